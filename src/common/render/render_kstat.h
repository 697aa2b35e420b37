/*
 * render_kstat.h: kstats as kstat(1M) shows them: the flat statistics of a
 * kstat (one name per scalar, see docs/formats.md), and the default,
 * parseable (-p, -C, -l) and JSON (-j) outputs.
 */
#ifndef STATSD_RENDER_KSTAT_H
#define STATSD_RENDER_KSTAT_H

#include <stdbool.h>
#include <stddef.h>

#include <statsd/sbuf.h>
#include <statsd/stats.h>

#include "kstat2_hist.h"
#include "kstat_hdr.h"

/*
 * A kstat to render: its header, a validated blob (stats_blob_validate),
 * its VOI names by id (entries may be NULL; VOI i is then "voi<i>") and,
 * by VOI id too (NULL: none), what each kstat2 histogram was created with.
 */
struct ks_view {
	const struct kstat_hdr		*hdr;
	const struct statsblob		*sb;
	const char *const		*names;
	uint16_t			 nnames;
	const struct k2hist_params	*k2;	/* nnames of them, or NULL */
};

/* One flat statistic: its name and its value as text. */
struct ksfmt_stat {
	char		*name;
	char		*value;
	bool		 quoted;	/* a string: quoted in JSON */
	bool		 array;		/* numbers, one space apart: a JSON
					 * array */
};

/*
 * ksfmt_stats: the flat statistics of v, sorted by name (strcasecmp), with
 * the pseudo-statistics crtime and snaptime (and class with with_class).
 * Free the result with ksfmt_stats_free().
 *   NAMED, INTR  each VOI by its name: its LAST value, else its SUM, else
 *                its COUNT; the VOI's other scalars as <voi>.<kind>
 *   IO           the first IOQ statistic's kstat_io fields by their names,
 *                integrated up to snaptime as a reader's snapshot is
 *   TIMER        one timer: name and the kstat_timer fields by their names;
 *                several: <voi>.<field>
 *   HIST         a kstat2 histogram's fields by their names: buckets (an
 *                array of counts), type, range_min, range_max, stepping
 *   others       <voi>.<kind> for scalar statistics (sum, min, max, count,
 *                last), <voi>.<field> for IOQ and TIMER statistics and for
 *                kstat2 histograms
 * Other histograms, digests, lists and rings have no flat form.
 * Returns: 0; -ENOMEM.
 */
int ksfmt_stats(const struct ks_view *v, bool with_class,
    struct ksfmt_stat **ret, size_t *ret_n);
void ksfmt_stats_free(struct ksfmt_stat *st, size_t n);

enum ksfmt_mode {
	KSFMT_DEFAULT = 0,	/* kstat's freeform blocks */
	KSFMT_PARSEABLE,	/* -p: module:instance:name:statistic<TAB>value */
	KSFMT_COLON,		/* -C: the same with ':' for the TAB */
	KSFMT_NAMES,		/* -l: the names only */
	KSFMT_JSON,		/* -j */
};

/*
 * ksfmt_render: render the kstats of views that sel (NULL: all) and
 * class_pat (NULL: all) select, in kstat(1M)'s order (module and name by
 * strcasecmp, instance by number), into buf. A kstat with no statistic
 * selected is left out. *ret_matched (may be NULL) counts the kstats shown
 * (kstat's exit status is 1 when it is 0).
 * Returns: 0; -ENOMEM; -EINVAL for a bad mode.
 */
int ksfmt_render(struct sbuf *buf, enum ksfmt_mode mode,
    const struct ks_view *views, size_t n, const struct ks_selector *sel,
    const struct ks_pattern *class_pat, size_t *ret_matched);

/* A time in ns as kstat prints it: seconds "%.9f", or "0". */
void ksfmt_time(char *buf, size_t len, hrtime_t t);

#endif /* STATSD_RENDER_KSTAT_H */
