/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rview.h: a reader's view of the store, for the exposition. A reader
 * (the HTTP thread, or the event loop for the varlink Scrape) maps every
 * published segment read-only (pub.h), as any client of the store does,
 * and keeps an index of their kstats in the exposition's order — stem,
 * module, name, instance (render_prom.h: a stem's kstats give one
 * family's series) — brought up to date from each segment's change log,
 * so that a scrape after one new kstat costs that kstat, not a walk of
 * all of them, and never costs the writer anything. A kstat is read
 * under its slot's sequence counter and shown with the VOI names of the
 * template its slot names, found among those the writer published.
 *
 * One reader only: a view is not shared between threads. Every call but
 * rview_new() and rview_free() is made inside the reader's read section
 * (pub_enter()), or by the writer itself.
 */
#ifndef STATSD_DAEMON_RVIEW_H
#define STATSD_DAEMON_RVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kstat_hdr.h"
#include "store.h"

struct ks_view;
struct peer;
struct reg_template;
struct prom_rules;
struct pub;
struct rv_seg;
struct rview;

/* One kstat of the index: its stem and names (offsets in the view's
 * strings: rview_str()), and where it is. */
struct rv_ent {
	uint32_t	 stem;
	uint32_t	 module;
	uint32_t	 name;
	int32_t		 instance;
	struct rv_seg	*seg;
	struct store_ref ref;
	uint32_t	 walk;		/* the segment's walk that found it */
};

/* Returns: 0 and *ret; -ENOMEM. */
int rview_new(struct pub *p, struct rview **ret);

/* Unmap and free. NULL-safe. Returns: NULL. */
struct rview *rview_free(struct rview *v);

/*
 * rview_refresh: bring the index up to the published segments and to
 * what each holds now, with stems made by rules (another generation of
 * rules than the index's makes every stem again).
 * Returns: 0; -ENOMEM (the index as it was is kept).
 */
int rview_refresh(struct rview *v, const struct prom_rules *rules);

/* The rules generation of the index's stems (UINT64_MAX: none yet), and
 * when it was last refreshed (clock_now_ns()). */
uint64_t rview_rules_gen(const struct rview *v);
uint64_t rview_refreshed_ns(const struct rview *v);

/* The index, in order: its entries and their count. */
const struct rv_ent *rview_ents(const struct rview *v, size_t *ret_n);

/* The same entries in kstat(1M)'s order (module, instance, name:
 * kindex_cmp()), and where the first at or after (after: strictly after)
 * module:instance:name is in it (module NULL: 0). */
const struct rv_ent *rview_ents_kstat(const struct rview *v, size_t *ret_n);
size_t rview_seek_kstat(const struct rview *v, const char *module,
    int32_t instance, const char *name, bool after);

/* A string of the index (an entry's stem, module or name). */
const char *rview_str(const struct rview *v, uint32_t off);

/* May peer p see the kstat of e (its segment's zone and PRIV: view.h)? */
bool rview_visible(const struct rv_ent *e, const struct peer *p);

/*
 * rview_header: e's kstat header as it is now (its path and description
 * left empty). Returns: 0; -ESTALE if the kstat is gone; -EAGAIN if the
 * writer kept its slot busy; -EBADMSG.
 */
int rview_header(struct rview *v, const struct rv_ent *e, struct kstat_hdr *h);

/*
 * rview_read: e's kstat, whole, for a renderer: its header (h, with its
 * path and description) and blob copied consistently into the view's
 * buffer, and its VOI names; kv points into both, valid until the next
 * call. Returns: 0; -ENOENT if the template its slot names is not
 * published (yet); -ENOMEM; errors as rview_header().
 */
int rview_read(struct rview *v, const struct rv_ent *e, struct kstat_hdr *h,
    struct ks_view *kv);

/* rview_read, and from the same read its slot's own fields (owner,
 * template hash, blob size: se) and its template (*ret_t). */
int rview_read_entry(struct rview *v, const struct rv_ent *e,
    struct kstat_hdr *h, struct ks_view *kv, struct store_entry *se,
    const struct reg_template **ret_t);

/*
 * rview_entry: e's kstat as its slot says now, without its blob: the
 * slot's own fields (owner, template hash, blob size), its header with
 * its path and description, and its template.
 * Returns: 0; -ENOENT if the template is not published; errors as
 * rview_header().
 */
int rview_entry(struct rview *v, const struct rv_ent *e, struct store_entry *se,
    struct kstat_hdr *h, const struct reg_template **ret_t);

/* e's segment: its name, and where its kstats are seen (its zone,
 * ZONE_ALL for every zone; and whether in the global zone too). */
const char *rview_seg_name(const struct rv_ent *e);
void rview_seg_where(const struct rv_ent *e, uint32_t *ret_zone, bool *ret_gz);

/* The index's order of stems: '_' before every other character, so that
 * the stems that extend a stem at a '_' ("statsd_a_b" of "statsd_a")
 * follow it at once. */
int rview_stem_cmp(const char *a, const char *b);

/* The index's order: stem, module, name, instance. */
int rview_cmp(const char *as, const char *am, const char *an, int32_t ai,
    const char *bs, const char *bm, const char *bn, int32_t bi);

/* What refreshing the view has cost (tests): segments walked whole,
 * slots read from change logs, the strings compacted. */
struct rview_stats {
	uint64_t	walks;
	uint64_t	changes;
	uint64_t	segments;	/* mapped now */
	uint64_t	compactions;	/* of the strings */
	uint64_t	catchups;	/* walks under changes, caught up
					 * from the log */
	uint64_t	overruns;	/* of them, more changes than the
					 * log held: the pass kept as is */
};
void rview_stats(const struct rview *v, struct rview_stats *ret);

#endif /* STATSD_DAEMON_RVIEW_H */
