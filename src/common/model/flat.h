/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * flat.h: a kstat's flat view, one name per scalar (docs/formats.md §4),
 * as illumos kstat(1M)'s outputs, the libkstat consumer API, the JSON
 * scrape and the exposition show a blob. flat_walk() is the one walk that
 * names a blob's statistics, gives their values and says what each is,
 * from the kind table's flat fields (kind.h); every flat reader is built
 * on it.
 */
#ifndef STATSD_FLAT_H
#define STATSD_FLAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <statsd/stats.h>

#include "blob.h"
#include "field.h"
#include "kstat2_hist.h"
#include "kstat_hdr.h"

/*
 * A kstat to read: its header, a validated blob (stats_blob_validate),
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

enum flat_vtype {
	FLAT_SCALAR = 0,	/* the statistic's data: vs_dtype at vsd */
	FLAT_STRING,		/* str, len: a CHAR or STRING value (vsd),
				 * or a lone timer's name */
	FLAT_U64,		/* u64: a field of a record kind */
	FLAT_U64_ARRAY,		/* arr[n]: kstat2 histogram bucket counts */
};

/* One flat statistic. Everything it points to lives during the call. */
struct flat_stat {
	const char			*prefix;	/* the VOI's name, or
							 * NULL: a bare field */
	const char			*field;		/* NULL: the VOI's own
							 * value */
	const struct stat_field		*f;		/* what it is */
	bool				 counter;	/* f, for this VOI */
	uint8_t				 vtype;		/* enum flat_vtype */
	enum vsd_dtype			 voi_dtype;
	enum vsd_dtype			 vs_dtype;
	const struct voistatdata	*vsd;
	const char			*str;
	size_t				 len;
	uint64_t			 u64;
	const uint64_t			*arr;
	uint16_t			 n;
};

typedef int (*flat_fn)(const struct flat_stat *fs, void *arg);

/*
 * The one walk over a kstat's statistics that flat_walk() and the
 * exposition both take: VOI by VOI, vacant ones left out, each with its
 * name; within a VOI, its statistics by type, but the one the caller
 * shows apart as the VOI's own value (flat_primary()); an IO kstat's
 * first queue marked as the kstat's own.
 *
 *	flat_each_begin(&e, view);
 *	while (flat_each_voi(&e)) {
 *		prim = ...;
 *		while (flat_each_stat(&e, prim))
 *			...e.s, e.vs, e.vsd...
 *	}
 */
struct flat_each {
	uint16_t			 i;	/* the VOI's index */
	const struct voi		*v;
	const char			*name;	/* its name (flat_voi_name) */
	int				 s;	/* the statistic's type */
	const struct voistat		*vs;
	const struct voistatdata	*vsd;
	bool				 io_own; /* an IO kstat's own queue */
	/* the walk's own */
	const struct ks_view		*view;
	uint16_t			 nv;
	bool				 io_done;
	char				 dflt[16];
};

void flat_each_begin(struct flat_each *e, const struct ks_view *view);
/* On to the next VOI that is not vacant. Returns: false past the last. */
bool flat_each_voi(struct flat_each *e);
/* On to the VOI's next statistic other than skip (may be NULL).
 * Returns: false past the last. */
bool flat_each_stat(struct flat_each *e, const struct voistat *skip);

/*
 * flat_walk: call fn for each flat statistic of v's blob, in the order of
 * struct flat_each: VOI by VOI; within a VOI its own value first (NAMED
 * and INTR kstats: see flat_primary), then each statistic's fields in the
 * kind table's order.
 * How a kstat's type names things:
 *   NAMED, INTR  the VOI's own value under its name; its other scalar
 *                statistics as <voi>.<kind>
 *   IO           the first IOQ statistic's fields bare, integrated up to
 *                the header's snaptime as a reader's snapshot is
 *   TIMER        a lone timer bare, with "name" (its VOI's name) first
 *   HIST         kstat2 histogram fields bare
 *   others       <voi>.<kind> for scalar statistics, <voi>.<field> for
 *                IOQ, TIMER and kstat2 histograms
 * Histograms other than kstat2's, digests, lists and rings have no flat
 * form; DEFN and VOISTATE are internal.
 * Returns: 0; fn's first non-zero value, which ends the walk; -ENOMEM.
 */
int flat_walk(const struct ks_view *v, flat_fn fn, void *arg);

/*
 * flat_primary: the statistic a NAMED or INTR VOI shows under its own
 * name: its LAST, else its SUM, else its COUNT (a kstat named value is a
 * LAST or a SUM, an interrupt counter a SUM).
 * Returns: its voistat; NULL if the VOI has none of them.
 */
const struct voistat *flat_primary(const struct statsblob *sb,
    const struct voi *v);

/* The name of v's VOI i: its template's, or "voi<i>" (into dflt, len
 * bytes) when it has none. */
const char *flat_voi_name(const struct ks_view *v, uint16_t i, char *dflt,
    size_t len);

/* fs's name: "<prefix>.<field>", "<prefix>" or "<field>", into buf
 * (truncated to len, always terminated). Returns: buf. */
char *flat_name(const struct flat_stat *fs, char *buf, size_t len);

#endif /* STATSD_FLAT_H */
