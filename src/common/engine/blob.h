/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * blob.h: the STATS_ABI_V1 blob layout and the engine's internal interface
 * between the template, update, render and statistic-family modules.
 *
 * A blob is one contiguous allocation of at most 65535 bytes, addressed by
 * 16-bit offsets from its own start, so it can be copied byte for byte into
 * shared memory, a file or another process and still be read:
 *
 *   0              32                stats_off            statsdata_off   cursz
 *   +--------------+-----------------+--------------------+---------------+
 *   | statsblobv1  | struct voi [N]  | struct voistat []  | statistic     |
 *   | header       | indexed by id,  | one run per VOI,   | data, one     |
 *   |              | vacant: id = -1 | indexed by stype,  | block per VOI |
 *   |              |                 | vacant: stype = -1 |               |
 *   +--------------+-----------------+--------------------+---------------+
 *
 * Adding a VOI to a template appends its struct voi (with vacant slots for
 * any skipped ids) and puts its voistat run and its data block at the
 * *front* of their regions, shifting the older ones: the FreeBSD order that
 * gives the stats(3) page's 136-byte example. Within a data block the VOI
 * state comes first, then each statistic in the order of the caller's spec
 * array. statsd adds one rule FreeBSD lacks: each statistic's data starts on
 * its natural alignment (4 bytes for 32-bit scalars, 8 for the rest) and each
 * block is a multiple of 8 bytes, so typed loads are always aligned. The
 * page's example is unchanged by it.
 */
#ifndef STATSD_BLOB_H
#define STATSD_BLOB_H

#include <stdbool.h>
#include <stdint.h>

#include <statsd/stats.h>

#include "dtype.h"		/* SB_V1_MAXSZ, SB_V1_HDRSZ */

/* voi.flags */
#define VOI_REQSTATE	0x0001	/* the VOI keeps a VOISTATE (SB_VOI_RELUPDATE) */

/* voistat.flags */
#define VS_VSDVALID	0x01	/* updated since init or reset */
/*
 * Valid from init, and after a reset: the initial data is itself a value.
 * Solaris kstat2 creates a histogram "containing exactly 65 buckets" (LOG2)
 * before anything is added, so a kstat2 histogram is its buckets at zero,
 * never the "null" stats(3) shows for a statistic not yet updated.
 */
#define VS_ALWAYSVALID	0x02

#define VS_ERRS_MAX	UINT8_MAX

struct voi {
	int16_t		id;		/* -1: vacant */
	uint8_t		dtype;		/* enum vsd_dtype */
	int8_t		voistatmaxid;	/* highest stype of this VOI */
	uint16_t	stats_off;	/* offset of its voistat run */
	uint16_t	flags;		/* VOI_* */
};

struct voistat {
	int8_t		stype;		/* -1: vacant */
	uint8_t		dtype;		/* enum vsd_dtype of the data */
	uint16_t	data_off;
	uint16_t	dsz;
	uint8_t		errs;		/* failed updates, saturating */
	uint8_t		flags;		/* VS_* */
};

struct statsblobv1 {
	uint8_t		abi;
	uint8_t		endian;
	uint16_t	flags;
	uint16_t	maxsz;
	uint16_t	cursz;
	uint32_t	tplhash;
	uint16_t	stats_off;
	uint16_t	statsdata_off;
	int64_t		created;	/* 32.32 fixed-point CLOCK_MONOTONIC s */
	int64_t		lastrst;
	struct voi	vois[];
};

_Static_assert(sizeof(struct voi) == 8, "struct voi is 8 bytes in ABI V1");
_Static_assert(sizeof(struct voistat) == 8, "struct voistat is 8 bytes");
_Static_assert(sizeof(struct statsblobv1) == SB_V1_HDRSZ, "V1 header size");
_Static_assert(sizeof(struct voistatdata_numeric) == 8, "numeric is 8 bytes");

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SB_HOST_ENDIAN	SB_LE
#elif __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define SB_HOST_ENDIAN	SB_BE
#else
#define SB_HOST_ENDIAN	SB_UE
#endif

static inline uint16_t
blob_nvois(const struct statsblobv1 *sb)
{
	return (uint16_t)((sb->stats_off - SB_V1_HDRSZ) / sizeof(struct voi));
}

static inline struct voistat *
blob_voistat(const struct statsblobv1 *sb, const struct voi *v, int stype)
{
	return (struct voistat *)((uintptr_t)sb + v->stats_off) + stype;
}

static inline struct voistatdata *
blob_vsd(const struct statsblobv1 *sb, const struct voistat *vs)
{
	return (struct voistatdata *)((uintptr_t)sb + vs->data_off);
}

/* The VOI's populated statistic of type stype, or NULL: the one lookup of
 * "this VOI's statistic of type s" (the voistat array is indexed by type,
 * a vacant slot has stype -1). */
static inline struct voistat *
blob_stat(const struct statsblobv1 *sb, const struct voi *v, int stype)
{
	struct voistat *vs;

	if (stype < 0 || stype > v->voistatmaxid)
		return NULL;
	vs = blob_voistat(sb, v, stype);
	return vs->stype == stype ? vs : NULL;
}

/*
 * blob_stat_next: the VOI's next populated statistic after type *s, or
 * NULL; *s becomes its type. BLOB_FOREACH_STAT walks a VOI's statistics
 * with it, in type order, its state (VS_STYPE_VOISTATE) left out;
 * BLOB_FOREACH_VOISTAT takes the state too. s is an int, vs a pointer to
 * a (const) struct voistat; break and continue work as in any loop. The
 * blob must be well formed (blob_check()); blob_check itself reads the
 * slots one by one.
 */
static inline struct voistat *
blob_stat_next(const struct statsblobv1 *sb, const struct voi *v, int *s)
{
	while (++*s <= v->voistatmaxid && *s < VS_NUM_STYPES) {
		struct voistat *vs = blob_voistat(sb, v, *s);

		if (vs->stype == *s)
			return vs;
	}
	return NULL;
}

#define BLOB_FOREACH_STAT(sb, v, s, vs)					\
	for ((s) = VS_STYPE_VOISTATE;					\
	    ((vs) = blob_stat_next((sb), (v), &(s))) != NULL; )
#define BLOB_FOREACH_VOISTAT(sb, v, s, vs)				\
	for ((s) = VS_STYPE_VOISTATE - 1;				\
	    ((vs) = blob_stat_next((sb), (v), &(s))) != NULL; )

/* Does vs hold data to show (updated, or valid from init)? */
static inline bool
voistat_valid(const struct voistat *vs)
{
	return (vs->flags & (VS_VSDVALID | VS_ALWAYSVALID)) != 0;
}

/* The current time as FreeBSD's sbintime_t: seconds << 32 | fraction. */
int64_t blob_sbinuptime(void);

/*
 * blob_hash_buf: FreeBSD's hash32 step (h * 33 + c) over len bytes,
 * chained from hash. A template's tplhash (tpl.c) and a re-laid blob's
 * (layout.c) are both made of it.
 */
uint32_t blob_hash_buf(const void *buf, size_t len, uint32_t hash);

/* Reset every statistic, as SB_CLONE_RSTSRC does. */
void blob_reset_stats(struct statsblobv1 *sb);

/*
 * blob_check: structural validation of a blob of len bytes (header, every
 * offset and size, statistic internals through the kind table).
 * Returns: NULL when valid, else a static string naming what is wrong.
 */
const char *blob_check(const struct statsblobv1 *sb, size_t len);

/*
 * blob_layout_clean: the layout of a blob copied while its statistics were
 * being written (store_reader_read_layout()): checks the structure, but
 * not the statistics' internals, which may be torn; then resets every
 * statistic and every VOI's state (the base of relative updates) and
 * zeroes the blob's times, so that only the layout is left, which is
 * checked whole.
 * Returns: NULL when valid, else a static string naming what is wrong.
 */
const char *blob_layout_clean(struct statsblobv1 *sb, size_t len);

/*
 * blob_iter: the walk behind stats_blob_visit() and the renderers. It calls
 * cb for every populated statistic (VOISTATE included) or, with nulls, for
 * vacant VOI slots (vs == NULL) and vacant statistic slots as well, with
 * the SB_IT_* flags computed exactly. A non-zero return from cb stops the
 * walk and is returned.
 */
typedef int (*blob_iter_cb)(struct statsblobv1 *sb, struct voi *v,
    struct voistat *vs, uint32_t flags, void *ctx);
int blob_iter(struct statsblobv1 *sb, bool nulls, blob_iter_cb cb, void *ctx);

#endif /* STATSD_BLOB_H */
