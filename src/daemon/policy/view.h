/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * view.h: what a peer may see and change of the registry — the one place
 * that decides it, for the handlers, the exposition and the drain alike.
 * A kstat is seen by its zone and PRIV flag (illumos's ks_zone, Solaris'
 * KSTAT2_FLAG_GZ_VIS and kstat2's privileged kstats); it is changed by its
 * owner in its own zone or by an admin (rights.c's rules). A template is
 * seen by its owner and by whoever sees a kstat made from it; a store
 * segment is mapped by whoever sees the kstats it holds.
 */
#ifndef STATSD_DAEMON_VIEW_H
#define STATSD_DAEMON_VIEW_H

#include <stdbool.h>
#include <stdint.h>

struct ks_view;
struct peer;
struct reg_kstat;
struct reg_seg;
struct reg_template;
struct registry;
struct statsblob;

/* May peer p see kstat k (its zone, PRIV)? */
bool view_kstat_visible(const struct peer *p, const struct reg_kstat *k);

/* May peer p change, reset or delete kstat k, or feed it from a ring? */
bool view_kstat_may_modify(const struct peer *p, const struct reg_kstat *k);

/* k's view for the renderers (render_kstat.h), over its blob sb. */
void view_kstat(const struct reg_kstat *k, const struct statsblob *sb,
    struct ks_view *v);

/*
 * view_template_visible: may peer p see template t? Its own, and for a
 * privileged peer of the global zone every one; else one it sees a kstat
 * of (the registry counts them by segment: no walk of the kstats).
 */
bool view_template_visible(const struct peer *p, const struct reg_template *t);

/*
 * view_segment_visible: may peer p map store segment seg? The segments of
 * every zone and of its own, in the global zone those a zone shares with
 * it, PRIV ones to privileged peers only: the kstat rule, by segment.
 */
bool view_segment_visible(const struct peer *p, const struct reg_seg *seg);

/* The chain id p sees: the sum of the KCIDs of the segments it may map,
 * as a reader that maps them computes it. */
uint64_t view_kcid(struct registry *r, const struct peer *p);

/*
 * view_zone_counts: the active and dormant kstats peer p sees, counted by
 * segment, never by a walk of the kstats (Info's figures for a peer of a
 * zone).
 */
void view_zone_counts(struct registry *r, const struct peer *p,
    uint64_t *ret_active, uint64_t *ret_dormant);

#endif /* STATSD_DAEMON_VIEW_H */
