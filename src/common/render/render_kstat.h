/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * render_kstat.h: kstats as illumos kstat(1M) shows them: a kstat's flat
 * statistics (flat.h) as text, and the default, parseable (-p, -C, -l) and
 * JSON (-j) outputs made from them. statsd renders its scrapes with it and
 * statsctl renders the flat statistics statsd sends it with it.
 */
#ifndef STATSD_RENDER_KSTAT_H
#define STATSD_RENDER_KSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <statsd/sbuf.h>
#include <statsd/stats.h>

#include "flat.h"
#include "kstat_hdr.h"

/*
 * What a flat statistic's value is: a signed or an unsigned integer, a
 * fixed-point number, a string, or an array of counts. The typed JSON of
 * replies (ksfmt_json_value) is written from it, and kstat(1M)'s text
 * forms quote and bracket by it.
 */
enum ksfmt_type {
	KSFMT_INT = 0,		/* n, as int64_t */
	KSFMT_UINT,		/* n */
	KSFMT_FIXED,		/* value: its exact decimal */
	KSFMT_STRING,		/* value */
	KSFMT_ARRAY,		/* arr[narr] */
	KSFMT_NTYPES
};

/* The names of enum ksfmt_type, as replies carry them ("int", ...). */
extern const char *const ksfmt_type_names[KSFMT_NTYPES];

/*
 * One flat statistic: its name, its value typed (n, arr) and as kstat(1M)
 * prints it (value: numbers exactly, in their type; an array's numbers
 * one blank apart; a string as it is). This is the renderers' input,
 * whether the kstat came from a blob here (ksfmt_stats) or from a reply
 * in statsctl.
 */
struct ksfmt_stat {
	const char	*name;
	const char	*value;
	uint8_t		 type;		/* enum ksfmt_type */
	bool		 counter;	/* only grows (field.h); else a gauge */
	uint16_t	 narr;
	uint64_t	 n;
	const uint64_t	*arr;
};

/*
 * ksfmt_json_value: st's value as typed JSON: a number (exact; an
 * unsigned one above INT64_MAX as the string of its digits, see
 * numeric_json_u64), a fixed-point number's exact decimal, a string, or
 * an array of numbers. Returns: 0; the buffer's error.
 */
int ksfmt_json_value(struct sbuf *buf, const struct ksfmt_stat *st);

/*
 * ksfmt_stats: the flat statistics of v (flat_walk), as text, sorted by
 * name (strcasecmp); the pseudo-statistics are not among them. Free the
 * result with ksfmt_stats_free().
 * Returns: 0; -ENOMEM.
 */
int ksfmt_stats(const struct ks_view *v, struct ksfmt_stat **ret,
    size_t *ret_n);
void ksfmt_stats_free(struct ksfmt_stat *st, size_t n);

/*
 * A kstat's statistics with its pseudo-statistics crtime and snaptime
 * (and class, with_class) merged in, sorted by name: what every form
 * shows. v's entries point into the statistics given, the header and the
 * list itself.
 */
struct ksfmt_list {
	struct ksfmt_stat	*v;
	size_t			 n;
	char			 crtime[40];
	char			 snaptime[40];
};

/* Returns: 0; -ENOMEM. ksfmt_list_done() frees it. */
int ksfmt_list_make(struct ksfmt_list *l, const struct kstat_hdr *h,
    const struct ksfmt_stat *st, size_t n, bool with_class);
void ksfmt_list_done(struct ksfmt_list *l);

enum ksfmt_mode {
	KSFMT_DEFAULT = 0,	/* kstat's freeform blocks */
	KSFMT_PARSEABLE,	/* -p: module:instance:name:statistic<TAB>value */
	KSFMT_COLON,		/* -C: the same with ':' for the TAB */
	KSFMT_NAMES,		/* -l: the names only */
	KSFMT_JSON,		/* -j */
};

/*
 * Rendering, one kstat at a time, so that kstats may come in pieces (a
 * streamed reply): ksfmt_begin(), ksfmt_kstat() for each kstat in the
 * order to show them, ksfmt_end().
 */
struct ksfmt_scratch;
struct ksfmt_out {
	struct sbuf	*buf;
	enum ksfmt_mode	 mode;
	size_t		 shown;		/* kstats shown so far */
	struct ksfmt_scratch *scratch;	/* ksfmt_view()'s; NULL at first */
};

void ksfmt_begin(struct ksfmt_out *o, struct sbuf *buf,
    enum ksfmt_mode mode);

/*
 * ksfmt_kstat: render one kstat: h's names, class, type and times, and
 * its flat statistics st (sorted or not), those sel (NULL: all) selects,
 * with the pseudo-statistics among them. A kstat with no statistic
 * selected is left out.
 * Returns: the number of statistics shown; -ENOMEM; -EINVAL for a bad
 * mode.
 */
int ksfmt_kstat(struct ksfmt_out *o, const struct kstat_hdr *h,
    const struct ksfmt_stat *st, size_t n, const struct ks_selector *sel);

/*
 * ksfmt_selected: how many of a kstat's statistics (pseudo-statistics
 * included) sel selects in mode, without rendering: kstat(1M)'s exit
 * status for -q. Returns: the number; -ENOMEM.
 */
int ksfmt_selected(enum ksfmt_mode mode, const struct kstat_hdr *h,
    const struct ksfmt_stat *st, size_t n, const struct ks_selector *sel);

/* End the output (-j: close the array, "[]" when nothing was shown).
 * Returns: 0; -errno of the buffer. */
int ksfmt_end(struct ksfmt_out *o);

/*
 * The way a scrape renders many kstats (blobs) quickly: each kstat's flat
 * statistics are made in o's scratch space (its names and values in two
 * buffers, no allocation per statistic), and their order, which depends
 * on their names alone, is sorted once for a run of kstats whose names
 * come out the same (the kstats of one template) and reused for the rest.
 *
 * ksfmt_view_stats: v's flat statistics, sorted as ksfmt_stats() sorts
 * them, with the pseudo-statistics crtime and snaptime (with_times) and
 * class (with_class) among them; *ret points into o's scratch space,
 * valid until the next call on o.
 * Returns: 0; -ENOMEM.
 */
int ksfmt_view_stats(struct ksfmt_out *o, const struct ks_view *v,
    bool with_times, bool with_class, const struct ksfmt_stat **ret,
    size_t *ret_n);

/*
 * ksfmt_list: render a kstat from its statistics as ksfmt_view_stats()
 * gives them for o's mode (sorted, the pseudo-statistics among them:
 * crtime and snaptime, and class but in -j), those sel (NULL: all)
 * selects; ksfmt_view() is both.
 * Returns: the number of statistics shown; -ENOMEM; -EINVAL for a bad
 * mode.
 */
int ksfmt_list(struct ksfmt_out *o, const struct kstat_hdr *h,
    const struct ksfmt_stat *st, size_t n, const struct ks_selector *sel);
int ksfmt_view(struct ksfmt_out *o, const struct ks_view *v,
    const struct ks_selector *sel);

/* Free o's scratch space (after ksfmt_view*). NULL-safe o->scratch. */
void ksfmt_done(struct ksfmt_out *o);

/*
 * ksfmt_render: render the kstats of views that sel (NULL: all) and
 * class_pat (NULL: all) select, in kstat(1M)'s order (ks_hdr_cmp), into
 * buf. *ret_matched (may be NULL) counts the kstats shown (kstat's exit
 * status is 1 when it is 0).
 * Returns: 0; -ENOMEM; -EINVAL for a bad mode.
 */
int ksfmt_render(struct sbuf *buf, enum ksfmt_mode mode,
    const struct ks_view *views, size_t n, const struct ks_selector *sel,
    const struct ks_pattern *class_pat, size_t *ret_matched);

/*
 * Kstats as typed JSON values for statsd's replies, written straight from
 * the statistics (never from their text): each value as
 * ksfmt_json_value() writes it.
 *
 * ksfmt_json_data: the object of the statistics st (sorted) that sel
 * (NULL: all) selects, name to value: Read's and Snapshot's "data", and
 * kstat -j's "data" in a Scrape's "kstats".
 * ksfmt_json_kstat: one item of a Scrape's "kstats" (flat false: kstat
 * -j's object of h, its "data" from st) or "flat" (flat true: a FlatKstat
 * of the IDL, its "stats" those of st that sel selects).
 * Returns: the number of statistics written; -errno of the buffer.
 */
int ksfmt_json_data(struct sbuf *buf, const struct ksfmt_stat *st,
    size_t n, const struct ks_selector *sel);
int ksfmt_json_kstat(struct sbuf *buf, bool flat, const struct kstat_hdr *h,
    const struct ksfmt_stat *st, size_t n, const struct ks_selector *sel);

/* The names every kstat item of a reply starts with, an object left
 * open: '{"module":...,"instance":...,"name":...,"class":...'. */
void ksfmt_json_names(struct sbuf *buf, const struct kstat_hdr *h);

/* A time in ns as kstat prints it: seconds "%.9f", or "0". */
void ksfmt_time(char *buf, size_t len, hrtime_t t);

#endif /* STATSD_RENDER_KSTAT_H */
