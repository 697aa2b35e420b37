/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * render_prom.h: kstats in the Prometheus text format 0.0.4 and in
 * OpenMetrics 1.0.0, the formats Prometheus, VictoriaMetrics, the
 * OpenTelemetry Collector and node_exporter's textfile collector read.
 * Each statistic becomes a metric family whose type (counter or gauge)
 * comes from the kind table's flat fields (field.h); a stats(3) histogram
 * becomes a histogram with cumulative buckets, a t-digest a summary.
 * docs/formats.md has the mapping.
 *
 * A family's series must come together. Series of one family can come
 * from several kstats: those whose names give the same stem (module and
 * name, e.g. the instances of one driver). The caller orders kstats by
 * stem (prom_stem) and renders a stem's kstats either one by one, when
 * the stem has one kstat, or family by family: prom_kstat() with only
 * set renders one family of a kstat and says which family of that kstat
 * comes next in name order.
 */
#ifndef STATSD_RENDER_PROM_H
#define STATSD_RENDER_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <statsd/sbuf.h>

#include "flat.h"

#define PROM_NAME_MAX	512	/* a family name, prefix and suffixes in */
#define PROM_QUANTILES_MAX 16

struct prom_rules;

struct prom_out {
	struct sbuf	*buf;
	bool		 om;		/* OpenMetrics, else text 0.0.4 */
	const double	*quantiles;	/* of summaries, ascending */
	size_t		 nq;
	/* The family whose series are being written ("": none) and its
	 * type: a series of that name and another type is left out. */
	char		 fam[PROM_NAME_MAX];
	size_t		 famlen;
	uint8_t		 famtype;
	uint64_t	 conflicts;	/* series left out for their type */
	/* For the protobuf exposition (expo_pb.h): a statsd series'
	 * native buckets as "# NATIVE" lines after its histogram. */
	bool		 native;
	/* The mapping rules of statsd series (NULL: none), referenced. */
	const struct prom_rules *rules;
	/* The scrape's time (clock_now_ns()) for the rules' ttl= (0: no
	 * series is old). */
	uint64_t	 now_ns;
	/* Scratch: the kstat's labels, as written in every series. */
	struct sbuf	*labels;
};

/* Quantiles of summaries when nothing else is configured. */
extern const double prom_default_quantiles[3];

/* Returns: 0; -ENOMEM. prom_done() frees what prom_begin() made. */
int prom_begin(struct prom_out *o, struct sbuf *buf, bool om);
void prom_done(struct prom_out *o);

/* The end of the exposition: OpenMetrics' "# EOF". */
void prom_end(struct prom_out *o);

/*
 * prom_stem: the part of every family name of h that its names give:
 * "statsd_<module>_<name>", sanitised (a run of characters a metric name
 * cannot hold is one '_'); a statsd series (class "statsd", path
 * "statsd/<type>/<metric>...") gives "statsd_<metric>". Into buf (len ≥
 * PROM_NAME_MAX). Returns: buf.
 */
char *prom_stem(const struct kstat_hdr *h, char *buf, size_t len);
/* The same with mapping rules: a statsd series a rule names has that
 * name (expanded) as its stem. */
char *prom_stem_rules(const struct prom_rules *rules,
    const struct kstat_hdr *h, char *buf, size_t len);

/*
 * Mapping rules, as the Prometheus statsd_exporter's glob mappings: an
 * ordered list, each rule a line
 *
 *	<glob> [drop] [name=<family>] [observer=histogram|summary|native]
 *	    [quantiles=<q,...>] [ttl=<n>s|m|h] [<label>="<value>"]...
 *
 * The glob matches a statsd metric's dotted name whole; each '*' matches
 * a run of characters without a '.' and is a capture, $1 to $9 (or
 * ${1}) in the family name and label values. The first rule that matches
 * a series decides: drop leaves it out of the exposition; name replaces
 * statsd_<metric> (a timer's _seconds too); the labels are added to its
 * tags' (a tag of a label's name gives way); the observer of a timer,
 * histogram or distribution is its histogram (classic buckets, and
 * native ones in protobuf: the default), a summary of the t-digest's
 * quantiles (the rule's, else http_quantiles), or native only (no
 * classic buckets); ttl leaves out a series whose kstat was not updated
 * (its snaptime) for that long, until it is updated again. A rule set is
 * shared by reference: a scrape under way keeps the rules it started
 * with.
 */
struct prom_rules *prom_rules_new(void);
struct prom_rules *prom_rules_ref(const struct prom_rules *r);
void prom_rules_unref(const struct prom_rules *r);
size_t prom_rules_count(const struct prom_rules *r);
/* Rule i's line as given (NULL past the last). */
const char *prom_rules_line(const struct prom_rules *r, size_t i);
/* A number that differs for every rule set made (for caches). */
uint64_t prom_rules_gen(const struct prom_rules *r);

/*
 * prom_rules_add: one rule from line (NUL-terminated) at the end of r.
 * Returns: 0; -EINVAL with why (whylen bytes) and *col, the 1-based
 * column of the fault in line; -ENOMEM.
 */
int prom_rules_add(struct prom_rules *r, const char *line, char *why,
    size_t whylen, unsigned *col);

/* What the first matching rule says of a metric. */
enum prom_observer { PROM_OBS_HISTOGRAM = 0, PROM_OBS_SUMMARY,
    PROM_OBS_NATIVE };
struct prom_match {
	bool		 matched, drop;
	char		 name[PROM_NAME_MAX];	/* "": the default */
	enum prom_observer observer;
	const double	*quantiles;		/* NULL: the default */
	size_t		 nq;
	uint64_t	 ttl_ns;		/* 0: none */
	/* Labels, expanded and escaped: name="value",... */
	char		 labels[1024];
	/* Their names, NUL-separated, for the tags that give way. */
	char		 lnames[256];
};

/* prom_rules_match: the first rule matching metric (len bytes) into m.
 * Returns: whether one did. */
bool prom_rules_match(const struct prom_rules *r, const char *metric,
    size_t len, struct prom_match *m);

/*
 * prom_kstat: the series of v, with its labels, each family's HELP and
 * TYPE lines first unless the family is o->fam already (the family the
 * last kstat ended with). only (NULL: all families) renders one family;
 * then next (may be NULL; nextlen bytes) gets the least of v's family
 * names above only when it is below next's value ("" means none yet).
 * Returns: the number of series written; -ENOMEM; -EINVAL if v's blob
 * cannot be rendered (nothing written).
 */
int prom_kstat(struct prom_out *o, const struct ks_view *v, const char *only,
    char *next, size_t nextlen);

/*
 * A statsd timer's values are kept in microseconds: its histogram, in
 * seconds, moves their decimal point by 6.
 */
#define PROM_TIMER_POINT	6

/* Classic buckets of a statsd series: at most this many finite bounds. */
#define PROM_BOUNDS_MAX		32
#define PROM_BOUNDS_POINT_MAX	18

/* The default layouts: client_golang's DefBuckets, in seconds, for
 * timers; the same 1-2.5-5 steps in whole units for histograms and
 * distributions, whose values are kept whole. */
#define PROM_BUCKETS_TIMER	"0.005,0.01,0.025,0.05,0.1,0.25,0.5,1,2.5,5,10"
#define PROM_BUCKETS_HISTOGRAM	"1,2,5,10,25,50,100,250,500,1000,2500"

/*
 * prom_parse_bounds: "0.005,0.01,1" (decimals above 0, ascending,
 * comma-separated, at most PROM_BOUNDS_MAX) into le, in whole units of
 * 10^-point (point 6: seconds into microseconds), exactly: a bound finer
 * than the unit, or past 2^63, is refused. Returns: how many; -EINVAL.
 */
int prom_parse_bounds(const char *text, unsigned point, int64_t *le);

/*
 * Native histograms (Prometheus' exponential buckets): bucket k of schema
 * s holds the values in (2^((k-1)/2^s), 2^(k/2^s)]. A statsd timer,
 * histogram or distribution keeps, beside its classic buckets, the
 * stats(3) ranges of whole units that are exactly those buckets (VOI 2,
 * named PROM_NATIVE_VOI and its schema), from 1 unit to
 * PROM_NATIVE_TOP_S seconds (a timer) or PROM_NATIVE_TOP units: with a
 * band below 0, one for 0 (the zero bucket) and one above the top, which
 * rule the native histogram out while they count anything.
 */
#define PROM_NATIVE_VOI		"native_schema_"
#define PROM_NATIVE_SCHEMA_MIN	(-4)
#define PROM_NATIVE_SCHEMA_MAX	3	/* finer would not fit a blob */
#define PROM_NATIVE_SCHEMA_DEF	3
#define PROM_NATIVE_TOP_S	8192	/* 2^13 s: 2 h 16 min */
#define PROM_NATIVE_TOP		1000000000
#define PROM_NATIVE_LBS_MAX	512

/*
 * prom_native_key: the native bucket of v > 0 at schema, as client_golang
 * computes it from the float64 value (frexp, and a search of its bounds
 * 2^(j/2^s)/2), so that statsd's buckets are the ones a Prometheus client
 * would fill with the same observations.
 */
int prom_native_key(double v, int schema);

/*
 * prom_native_lbs: the lower bounds of the ranges of VOI 2 in whole units
 * of 10^-point: 0 (the zero bucket), then the least unit of each native
 * bucket up to the top, then the top + 1 (the band above). Returns: how
 * many (at most max); -EINVAL for a schema out of range or too many.
 */
int prom_native_lbs(int schema, unsigned point, int64_t *lbs, size_t max);

/*
 * prom_parse_quantiles: "0.5,0.9,0.99" into q (at most PROM_QUANTILES_MAX,
 * each in [0, 1], ascending). Returns: how many; -EINVAL.
 */
int prom_parse_quantiles(const char *text, double *q);

#endif /* STATSD_RENDER_PROM_H */
