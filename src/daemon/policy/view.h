/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * view.h: what a peer may see and change of the registry — the one place
 * that decides it, for the handlers, the exposition and the drain alike.
 * A kstat is seen by its zone and PRIV flag (illumos's ks_zone, Solaris'
 * KSTAT2_FLAG_GZ_VIS and kstat2's privileged kstats); it is changed by its
 * owner in its own zone or by an admin (rights.c's rules). A template is
 * seen by its owner and by whoever sees a kstat made from it.
 */
#ifndef STATSD_DAEMON_VIEW_H
#define STATSD_DAEMON_VIEW_H

#include <stdbool.h>
#include <stdint.h>

struct ks_view;
struct peer;
struct reg_kstat;
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
 * view_templates_mark: prepare view_template_visible() for peer p. A
 * privileged peer or one of the global zone needs nothing (the registry
 * counts each template's public kstats); a peer of a zone has the
 * templates of the kstats it sees marked, one walk of the kstats.
 * Returns: the mark to pass on (0 when nothing was marked).
 */
uint64_t view_templates_mark(struct registry *r, const struct peer *p);

/* May peer p see template t (mark: view_templates_mark()'s)? */
bool view_template_visible(const struct peer *p, const struct reg_template *t,
    uint64_t mark);

#endif /* STATSD_DAEMON_VIEW_H */
