/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stats.h: the stats(3) API of FreeBSD's libstats, on Linux.
 *
 * This is the in-process front end of statsd's statistics engine. A program
 * written from the stats(3) SYNOPSIS compiles against this header unchanged;
 * where Linux or statsd differs from FreeBSD, the difference is named at the
 * declaration and in stats(3) (man/stats.3).
 *
 * Every update is an (X, Y) pair: X the value, Y its weight. The stats(3)
 * update calls below pass Y = 1; stats_voi_update_xy() takes Y explicitly.
 *
 * Blobs hold offsets only, never pointers: a blob copied with memcpy to any
 * address (another process's mapping of shared memory, a file) stays valid.
 *
 * Locking is the caller's, as on FreeBSD: the template list has a lock of
 * its own, blobs have none.
 */
#ifndef STATSD_STATS_H
#define STATSD_STATS_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <statsd/sbuf.h>

#ifndef STATS_API
#define STATS_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*
 * FreeBSD's "inappropriate file type or format" errno, returned when a fetch
 * asks for a data type other than the statistic's. Linux has no EFTYPE; we
 * use a value Linux does not assign (Linux errnos stop well below 200), so
 * strerror() says "Unknown error 179" and stats_strerror() names it.
 */
#ifndef EFTYPE
#define EFTYPE 179
#endif

#define STATS_ABI_V1	1

/* Endianness of a blob's fields (struct statsblob.endian). */
enum sb_endianness {
	SB_UE = 0,	/* unknown */
	SB_LE,		/* little endian */
	SB_BE		/* big endian */
};

/*
 * The public 8-byte blob header. Everything after it is opaque and
 * versioned by abi; see src/common/engine/blob.h for the V1 layout.
 */
struct statsblob {
	uint8_t		abi;
	uint8_t		endian;
	uint16_t	flags;
	uint16_t	maxsz;
	uint16_t	cursz;
	/* Fill the rest of the blob. */
	uint8_t		opaque[];
} __attribute__((aligned(sizeof(void *))));

/* Data types of VOIs and of statistics. Values are FreeBSD's. */
enum vsd_dtype {
	VSD_DTYPE_VOISTATE = 0,	/* internal: previous value of a VOI */
	VSD_DTYPE_INT_S32,
	VSD_DTYPE_INT_U32,
	VSD_DTYPE_INT_S64,
	VSD_DTYPE_INT_U64,
	VSD_DTYPE_INT_SLONG,
	VSD_DTYPE_INT_ULONG,
	VSD_DTYPE_Q_S32,
	VSD_DTYPE_Q_U32,
	VSD_DTYPE_Q_S64,
	VSD_DTYPE_Q_U64,
	VSD_DTYPE_CRHIST32,
	VSD_DTYPE_DRHIST32,
	VSD_DTYPE_DVHIST32,
	VSD_DTYPE_CRHIST64,
	VSD_DTYPE_DRHIST64,
	VSD_DTYPE_DVHIST64,
	VSD_DTYPE_TDGSTCLUST32,
	VSD_DTYPE_TDGSTCLUST64,
	/* statsd's own compound types (illumos kstat, Linux statistics);
	 * not FreeBSD's. */
	VSD_DTYPE_LIST,		/* Linux list: X -> sum of Y, entries_max long */
	VSD_DTYPE_HISTORY,	/* Linux history: ring of per-period results */
	VSD_DTYPE_RAW,		/* Linux raw: ring of (time, serial, X, Y) */
	VSD_DTYPE_IOQ,		/* kstat_io_t, kept from queue events */
	VSD_DTYPE_TIMER,	/* kstat_timer_t without its name */
	VSD_DTYPE_STRING,	/* a kstat CHAR or STRING named value */
	VSD_DTYPE_DEFN,		/* a Linux statistic's run-time definition */
	VSD_NUM_DTYPES
};

/* Statistic types. A VOI has at most one statistic of each type. */
enum voi_stype {
	VS_STYPE_VOISTATE = 0,	/* internal: state for relative updates */
	VS_STYPE_SUM,		/* Σ X·Y */
	VS_STYPE_MAX,		/* max X */
	VS_STYPE_MIN,		/* min X */
	VS_STYPE_HIST,		/* bucket[X] += Y, plus out-of-band */
	VS_STYPE_TDGST,		/* t-digest of X weighted by Y */
	/* statsd's own statistic types (illumos kstat, Linux statistics);
	 * not FreeBSD's. */
	VS_STYPE_COUNT,		/* sum of Y */
	VS_STYPE_LAST,		/* the last X (kstat named value), or a string */
	VS_STYPE_LIST,		/* X -> sum of Y for up to entries_max X */
	VS_STYPE_HISTORY,	/* per-period COUNT, SUM or num/min/avg/max */
	VS_STYPE_RAW,		/* the last entries_max (time, serial, X, Y) */
	VS_STYPE_IOQ,		/* kstat_io: wait and run queue Riemann sums */
	VS_STYPE_TIMER,		/* kstat_timer: event count and durations */
	VS_STYPE_DEFN,		/* internal: a Linux statistic's definition */
	VS_NUM_STYPES
};

/* Render formats of stats_blob_tostr() and stats_voistatdata_tostr(). */
enum sb_str_fmt {
	SB_STRFMT_FREEFORM = 0,
	SB_STRFMT_JSON,
	SB_STRFMT_NUM_FMTS
};

/*
 * Fixed-point ("Q") numbers. FreeBSD's qmath(3) encodes the precision in
 * control bits of a sign-magnitude word. Ours is simpler and documented
 * here: a Q number is a two's-complement integer scaled by 2^-F, where F is
 * fixed by the type: 16 fractional bits for the 32-bit types (Q15.16 and
 * Q16.16) and 32 for the 64-bit types (Q31.32 and Q32.32). Sums detect
 * overflow (EOVERFLOW, value unchanged) instead of wrapping, as qmath does.
 * Rendering prints the exact decimal value: the integer part, a point and
 * the fraction's digits with trailing zeros trimmed to no fewer than four
 * ("12.5000", "0.0000152587890625"), the form FreeBSD's Q_TOSTR gives at
 * four fractional bits.
 */
typedef int32_t		s32q_t;
typedef uint32_t	u32q_t;
typedef int64_t		s64q_t;
typedef uint64_t	u64q_t;

#define STATS_Q32_FBITS	16
#define STATS_Q64_FBITS	32
/* Q numbers from whole and fractional parts or doubles (constants welcome). */
#define STATS_SQ32(d)	((s32q_t)((d) * 65536.0))
#define STATS_UQ32(d)	((u32q_t)((d) * 65536.0))
#define STATS_SQ64(d)	((s64q_t)((d) * 4294967296.0))
#define STATS_UQ64(d)	((u64q_t)((d) * 4294967296.0))
#define STATS_Q32_TO_DOUBLE(q)	((double)(q) / 65536.0)
#define STATS_Q64_TO_DOUBLE(q)	((double)(q) / 4294967296.0)

/* Statistic data, by type. Layouts are part of the V1 blob ABI. */
struct voistatdata_int32 {
	union {
		int32_t		s32;
		uint32_t	u32;
	};
};

struct voistatdata_int64 {
	union {
		int64_t		s64;
		uint64_t	u64;
	};
};

struct voistatdata_intlong {
	union {
		long		slong;
		unsigned long	ulong;
	};
};

struct voistatdata_q32 {
	union {
		s32q_t		sq32;
		u32q_t		uq32;
	};
};

struct voistatdata_q64 {
	union {
		s64q_t		sq64;
		u64q_t		uq64;
	};
};

/*
 * An 8-byte value of any scalar type: bucket bounds and the previous value
 * of a VOI are stored this way whatever the VOI's type. The 32-bit members
 * sit where a 32-bit load of the word finds them on this machine.
 */
struct voistatdata_numeric {
	union {
		struct {
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
			uint32_t pad;
#endif
			union {
				int32_t		s32;
				uint32_t	u32;
			};
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			uint32_t pad;
#endif
		} int32;
		struct {
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
			uint32_t pad;
#endif
			union {
				s32q_t		sq32;
				u32q_t		uq32;
			};
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			uint32_t pad;
#endif
		} q32;
		struct {
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ && __SIZEOF_LONG__ == 4
			uint32_t pad;
#endif
			union {
				long		slong;
				unsigned long	ulong;
			};
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && __SIZEOF_LONG__ == 4
			uint32_t pad;
#endif
		} intlong;
		struct voistatdata_int64	int64;
		struct voistatdata_q64		q64;
	};
} __attribute__((aligned(8)));

/* VOISTATE: the value the last update of a SB_VOI_RELUPDATE VOI used. */
struct voistatdata_voistate {
	struct voistatdata_numeric prev;
};

/*
 * Histogram buckets. Bounds are numerics interpreted in the VOI's type.
 * CRHIST: continuous range, bucket i is [lb_i, lb_{i+1}), the last one
 * open-ended. DRHIST: discrete range [lb, ub). DVHIST: exact value.
 */
struct voistatdata_crbkt32 {
	struct voistatdata_numeric	lb;
	uint32_t			cnt;
};
struct voistatdata_drbkt32 {
	struct voistatdata_numeric	lb, ub;
	uint32_t			cnt;
};
struct voistatdata_dvbkt32 {
	struct voistatdata_numeric	val;
	uint32_t			cnt;
};
struct voistatdata_crbkt64 {
	struct voistatdata_numeric	lb;
	uint64_t			cnt;
};
struct voistatdata_drbkt64 {
	struct voistatdata_numeric	lb, ub;
	uint64_t			cnt;
};
struct voistatdata_dvbkt64 {
	struct voistatdata_numeric	val;
	uint64_t			cnt;
};

/*
 * Histogram headers. FreeBSD leaves the word after a 32-bit oob as padding;
 * statsd records the bucket count and the VOI's type there so that a
 * histogram renders and merges on its own (stats_voistatdata_tostr() gets
 * no size). The 64-bit headers grow from 8 to 16 bytes for the same reason.
 */
#define STATS_HIST_HDR_FIELDS						\
	uint16_t	nbkts;						\
	uint8_t		voi_dtype;					\
	uint8_t		hflags

struct voistatdata_crhist32 {
	uint32_t	oob;
	STATS_HIST_HDR_FIELDS;
	struct voistatdata_crbkt32 bkts[];
};
struct voistatdata_drhist32 {
	uint32_t	oob;
	STATS_HIST_HDR_FIELDS;
	struct voistatdata_drbkt32 bkts[];
};
struct voistatdata_dvhist32 {
	uint32_t	oob;
	STATS_HIST_HDR_FIELDS;
	struct voistatdata_dvbkt32 bkts[];
};
struct voistatdata_crhist64 {
	uint64_t	oob;
	STATS_HIST_HDR_FIELDS;
	uint32_t	pad;
	struct voistatdata_crbkt64 bkts[];
};
struct voistatdata_drhist64 {
	uint64_t	oob;
	STATS_HIST_HDR_FIELDS;
	uint32_t	pad;
	struct voistatdata_drbkt64 bkts[];
};
struct voistatdata_dvhist64 {
	uint64_t	oob;
	STATS_HIST_HDR_FIELDS;
	uint32_t	pad;
	struct voistatdata_dvbkt64 bkts[];
};

struct voistatdata_hist {
	union {
		struct voistatdata_crhist32	crhist32;
		struct voistatdata_drhist32	drhist32;
		struct voistatdata_dvhist32	dvhist32;
		struct voistatdata_crhist64	crhist64;
		struct voistatdata_drhist64	drhist64;
		struct voistatdata_dvhist64	dvhist64;
	};
};

/*
 * A t-digest. Its layout is private to the engine (a merging t-digest kept
 * inside the blob, see docs/tdigest.md); read it with
 * stats_voistat_fetch_quantile() and stats_voistat_fetch_cdf().
 */
struct voistatdata_tdgst {
	uint64_t	tdgst_hdr;
};

struct voistatdata {
	union {
		struct voistatdata_voistate	voistate;
		struct voistatdata_int32	int32;
		struct voistatdata_q32		q32;
		struct voistatdata_int64	int64;
		struct voistatdata_q64		q64;
		struct voistatdata_intlong	intlong;
		struct voistatdata_hist		hist;
		struct voistatdata_tdgst	tdgst;
	};
} __attribute__((aligned(sizeof(void *))));

/* Histogram bucket schemes and flags. */
enum hist_bkt_alloc {
	BKT_LIN,	/* linear steps */
	BKT_EXP,	/* exponential steps */
	BKT_LINEXP,	/* linear steps within exponential ranges */
	BKT_USR		/* buckets given by the caller */
};

#define VSD_HIST_LBOUND_INF	0x01	/* add a bucket from the type's minimum */
#define VSD_HIST_UBOUND_INF	0x02	/* add a bucket up to the type's maximum */

struct voistatspec;
struct vss_hlpr_info;

typedef int (*vss_hlpr_fn)(enum vsd_dtype, struct voistatspec *,
    struct vss_hlpr_info *);

/* One statistic to add to a VOI. Use the STATS_VSS_*() macros. */
struct voistatspec {
	vss_hlpr_fn		hlpr;		/* fills iv, vsdsz, vs_dtype */
	struct vss_hlpr_info	*hlprinfo;	/* the helper's arguments */
	struct voistatdata	*iv;		/* initial value */
	size_t			vsdsz;		/* size of iv */
	uint32_t		flags;		/* 0 (statsd's kstat2 histograms
						 * use it internally) */
	enum vsd_dtype		vs_dtype : 8;
	enum voi_stype		stype : 8;
};

struct vss_numeric_hlpr_info {
	uint32_t	prec;	/* accepted for FreeBSD compatibility; Q precision is fixed */
};

struct vss_hist_hlpr_info {
	enum hist_bkt_alloc		scheme;
	enum vsd_dtype			voi_dtype;
	enum vsd_dtype			hist_dtype;
	uint32_t			flags;
	struct voistatdata_numeric	lb;
	struct voistatdata_numeric	ub;
	union {
		struct {
			const struct voistatdata_numeric stepinc;
		} lin;
		struct {
			const uint32_t stepbase;
			const uint32_t stepexp;
		} exp;
		struct {
			const uint32_t stepbase;
			const uint32_t linstepdiv;
		} linexp;
		struct {
			const uint16_t nbkts;
			const struct {
				struct voistatdata_numeric lb, ub;
			} *bkts;
		} usr;
	};
};

struct vss_tdgst_hlpr_info {
	enum vsd_dtype	voi_dtype;
	uint32_t	nctds;	/* centroid capacity */
	uint32_t	prec;	/* see docs/tdigest.md */
};

/*
 * Helpers behind the STATS_VSS_*() macros. Each fills vss->iv (heap memory
 * freed by stats_tpl_add_voistats()), vss->vsdsz and vss->vs_dtype.
 * Returns: 0; EINVAL for bad arguments; EFBIG if the statistic would not
 * fit a blob; ENOMEM.
 */
STATS_API int stats_vss_numeric_hlpr(enum vsd_dtype voi_dtype,
    struct voistatspec *vss, struct vss_numeric_hlpr_info *info);
STATS_API int stats_vss_hist_hlpr(enum vsd_dtype voi_dtype,
    struct voistatspec *vss, struct vss_hist_hlpr_info *info);
STATS_API int stats_vss_tdgst_hlpr(enum vsd_dtype voi_dtype,
    struct voistatspec *vss, struct vss_tdgst_hlpr_info *info);
/*
 * statsd's own kinds (not FreeBSD's): COUNT (the sum of the weights) and
 * LAST (the last value) take no info; DEFN takes the units (NULL: none)
 * of a Linux statistic, defined at run time by definition lines, on an
 * INT_S64 VOI of its own (STATS_VSS_DEFN() adds the COUNT it starts
 * with).
 */
STATS_API int stats_vss_count_hlpr(enum vsd_dtype voi_dtype,
    struct voistatspec *vss, void *info);
STATS_API int stats_vss_last_hlpr(enum vsd_dtype voi_dtype,
    struct voistatspec *vss, void *info);
STATS_API int stats_vss_defn_hlpr(enum vsd_dtype voi_dtype,
    struct voistatspec *vss, const char *units);

static inline struct voistatdata_numeric
stats_ctor_vsd_numeric(uint64_t val)
{
	struct voistatdata_numeric n;

	n.int64.u64 = val;
	return n;
}

#define STATS_VSS(st, vsf, dt, hlp, hlpi)				\
((struct voistatspec){							\
	.stype = (st),							\
	.flags = (vsf),							\
	.vs_dtype = (dt),						\
	.hlpr = (vss_hlpr_fn)(hlp),					\
	.hlprinfo = (struct vss_hlpr_info *)(hlpi),			\
})

#define STATS_VSS_SUM()	STATS_VSS(VS_STYPE_SUM, 0, 0, stats_vss_numeric_hlpr, NULL)
#define STATS_VSS_MAX()	STATS_VSS(VS_STYPE_MAX, 0, 0, stats_vss_numeric_hlpr, NULL)
#define STATS_VSS_MIN()	STATS_VSS(VS_STYPE_MIN, 0, 0, stats_vss_numeric_hlpr, NULL)
#define STATS_VSS_COUNT() STATS_VSS(VS_STYPE_COUNT, 0, 0, stats_vss_count_hlpr, NULL)
#define STATS_VSS_LAST() STATS_VSS(VS_STYPE_LAST, 0, 0, stats_vss_last_hlpr, NULL)
/* A Linux statistic: its definition, and the COUNT a value starts with. */
#define STATS_VSS_DEFN(units)						\
	STATS_VSS(VS_STYPE_DEFN, 0, VSD_DTYPE_DEFN, stats_vss_defn_hlpr,	\
	    (units)), STATS_VSS_COUNT()

#define STATS_VSS_HIST(htype, hlpi)					\
	STATS_VSS(VS_STYPE_HIST, 0, htype, stats_vss_hist_hlpr, hlpi)

#define STATS_VSS_HIST_HLPR_INFO_LIN(htype, hlb, hub, hstepinc, hflags)	\
(&(struct vss_hist_hlpr_info){						\
	.scheme = BKT_LIN,						\
	.hist_dtype = (htype),						\
	.flags = (hflags),						\
	.lb = stats_ctor_vsd_numeric((uint64_t)(hlb)),			\
	.ub = stats_ctor_vsd_numeric((uint64_t)(hub)),			\
	.lin.stepinc = stats_ctor_vsd_numeric((uint64_t)(hstepinc)),	\
})

#define STATS_VSS_HIST_HLPR_INFO_EXP(htype, hlb, hub, hbase, hexp, hflags) \
(&(struct vss_hist_hlpr_info){						\
	.scheme = BKT_EXP,						\
	.hist_dtype = (htype),						\
	.flags = (hflags),						\
	.lb = stats_ctor_vsd_numeric((uint64_t)(hlb)),			\
	.ub = stats_ctor_vsd_numeric((uint64_t)(hub)),			\
	.exp.stepbase = (hbase),					\
	.exp.stepexp = (hexp),						\
})

#define STATS_VSS_HIST_HLPR_INFO_LINEXP(htype, hlb, hub, hnlin, hbase, hflags) \
(&(struct vss_hist_hlpr_info){						\
	.scheme = BKT_LINEXP,						\
	.hist_dtype = (htype),						\
	.flags = (hflags),						\
	.lb = stats_ctor_vsd_numeric((uint64_t)(hlb)),			\
	.ub = stats_ctor_vsd_numeric((uint64_t)(hub)),			\
	.linexp.stepbase = (hbase),					\
	.linexp.linstepdiv = (hnlin),					\
})

#define STATS_VSS_HIST_HLPR_INFO_USR(htype, hbkts, hflags)		\
(&(struct vss_hist_hlpr_info){						\
	.scheme = BKT_USR,						\
	.hist_dtype = (htype),						\
	.flags = (hflags),						\
	.usr.nbkts = (uint16_t)NVSS(hbkts),				\
	.usr.bkts = (const void *)(hbkts),				\
})

/*
 * User bucket lists: HBKTS(CRBKT(0), CRBKT(10), ...). Each bucket is a
 * {lb, ub} pair of numerics; CRBKT and DVBKT repeat their one value.
 */
#define HBKTS(...)	((struct voistatdata_numeric [][2]){__VA_ARGS__})
#define CRBKT(lb)	{ stats_ctor_vsd_numeric((uint64_t)(lb)),	\
			  stats_ctor_vsd_numeric((uint64_t)(lb)) }
#define DRBKT(lb, ub)	{ stats_ctor_vsd_numeric((uint64_t)(lb)),	\
			  stats_ctor_vsd_numeric((uint64_t)(ub)) }
#define DVBKT(val)	CRBKT(val)

/* The number of elements of an array: specs, or buckets. */
#define NVSS(vss)	(sizeof(vss) / sizeof(*(vss)))

#define STATS_VSS_CRHIST32_LIN(lb, ub, stepinc, vsdflags)		\
	STATS_VSS_HIST(VSD_DTYPE_CRHIST32, STATS_VSS_HIST_HLPR_INFO_LIN(	\
	    VSD_DTYPE_CRHIST32, lb, ub, stepinc, vsdflags))
#define STATS_VSS_CRHIST64_LIN(lb, ub, stepinc, vsdflags)		\
	STATS_VSS_HIST(VSD_DTYPE_CRHIST64, STATS_VSS_HIST_HLPR_INFO_LIN(	\
	    VSD_DTYPE_CRHIST64, lb, ub, stepinc, vsdflags))
#define STATS_VSS_CRHIST32_EXP(lb, ub, stepbase, stepexp, vsdflags)	\
	STATS_VSS_HIST(VSD_DTYPE_CRHIST32, STATS_VSS_HIST_HLPR_INFO_EXP(	\
	    VSD_DTYPE_CRHIST32, lb, ub, stepbase, stepexp, vsdflags))
#define STATS_VSS_CRHIST64_EXP(lb, ub, stepbase, stepexp, vsdflags)	\
	STATS_VSS_HIST(VSD_DTYPE_CRHIST64, STATS_VSS_HIST_HLPR_INFO_EXP(	\
	    VSD_DTYPE_CRHIST64, lb, ub, stepbase, stepexp, vsdflags))
#define STATS_VSS_CRHIST32_LINEXP(lb, ub, nlinsteps, stepbase, vsdflags) \
	STATS_VSS_HIST(VSD_DTYPE_CRHIST32, STATS_VSS_HIST_HLPR_INFO_LINEXP( \
	    VSD_DTYPE_CRHIST32, lb, ub, nlinsteps, stepbase, vsdflags))
#define STATS_VSS_CRHIST64_LINEXP(lb, ub, nlinsteps, stepbase, vsdflags) \
	STATS_VSS_HIST(VSD_DTYPE_CRHIST64, STATS_VSS_HIST_HLPR_INFO_LINEXP( \
	    VSD_DTYPE_CRHIST64, lb, ub, nlinsteps, stepbase, vsdflags))
#define STATS_VSS_CRHIST32_USR(hbkts, vsdflags)				\
	STATS_VSS_HIST(VSD_DTYPE_CRHIST32, STATS_VSS_HIST_HLPR_INFO_USR(	\
	    VSD_DTYPE_CRHIST32, hbkts, vsdflags))
#define STATS_VSS_CRHIST64_USR(hbkts, vsdflags)				\
	STATS_VSS_HIST(VSD_DTYPE_CRHIST64, STATS_VSS_HIST_HLPR_INFO_USR(	\
	    VSD_DTYPE_CRHIST64, hbkts, vsdflags))
#define STATS_VSS_DRHIST32_USR(hbkts, vsdflags)				\
	STATS_VSS_HIST(VSD_DTYPE_DRHIST32, STATS_VSS_HIST_HLPR_INFO_USR(	\
	    VSD_DTYPE_DRHIST32, hbkts, vsdflags))
#define STATS_VSS_DRHIST64_USR(hbkts, vsdflags)				\
	STATS_VSS_HIST(VSD_DTYPE_DRHIST64, STATS_VSS_HIST_HLPR_INFO_USR(	\
	    VSD_DTYPE_DRHIST64, hbkts, vsdflags))
#define STATS_VSS_DVHIST32_USR(hbkts, vsdflags)				\
	STATS_VSS_HIST(VSD_DTYPE_DVHIST32, STATS_VSS_HIST_HLPR_INFO_USR(	\
	    VSD_DTYPE_DVHIST32, hbkts, vsdflags))
#define STATS_VSS_DVHIST64_USR(hbkts, vsdflags)				\
	STATS_VSS_HIST(VSD_DTYPE_DVHIST64, STATS_VSS_HIST_HLPR_INFO_USR(	\
	    VSD_DTYPE_DVHIST64, hbkts, vsdflags))

#define STATS_VSS_TDGSTCLUST32(hnctds, hprec)				\
	STATS_VSS(VS_STYPE_TDGST, 0, VSD_DTYPE_TDGSTCLUST32,		\
	    stats_vss_tdgst_hlpr, (&(struct vss_tdgst_hlpr_info){		\
	    .nctds = (hnctds), .prec = (hprec) }))
#define STATS_VSS_TDGSTCLUST64(hnctds, hprec)				\
	STATS_VSS(VS_STYPE_TDGST, 0, VSD_DTYPE_TDGSTCLUST64,		\
	    stats_vss_tdgst_hlpr, (&(struct vss_tdgst_hlpr_info){		\
	    .nctds = (hnctds), .prec = (hprec) }))

/* Flags. */
#define SB_VOI_RELUPDATE	0x00000001	/* VOI keeps state for rel updates */

#define SB_CLONE_RSTSRC		0x0001	/* reset src after a snapshot */
#define SB_CLONE_ALLOCDST	0x0002	/* allocate *dst */
#define SB_CLONE_USRDSTNOFAULT	0x0004	/* kernel only: accepted, no effect */
#define SB_CLONE_USRDST		0x0008	/* kernel only: accepted, no effect */

#define SB_TOSTR_OBJDUMP	0x00000001
#define SB_TOSTR_META		0x00000002

#define SB_IT_FIRST_CB		0x0001
#define SB_IT_LAST_CB		0x0002
#define SB_IT_FIRST_VOI		0x0004
#define SB_IT_LAST_VOI		0x0008
#define SB_IT_FIRST_VOISTAT	0x0010
#define SB_IT_LAST_VOISTAT	0x0020
#define SB_IT_NULLVOI		0x0040
#define SB_IT_NULLVOISTAT	0x0080

/* Templates. */
#define TPL_MAX_NAME_LEN		64
#define STATS_TPL_MAX_STR_SPEC_LEN	(TPL_MAX_NAME_LEN + 13)

struct voi_meta {
	char	*name;
	char	*desc;
};

struct metablob {
	char		*tplname;
	uint32_t	 tplhash;
	struct voi_meta	*voi_meta;
};

struct statsblob_tpl {
	struct metablob		*mb;	/* name, hash, VOI names */
	struct statsblob	*sb;	/* the template blob */
};

struct stats_tpl_sample_rate {
	int32_t		tpl_slot_id;	/* from stats_tpl_alloc() */
	uint32_t	tpl_sample_pct;	/* [0, 100] */
};

enum stats_tpl_sr_cb_action {
	TPL_SR_UNLOCKED_GET,
	TPL_SR_RLOCKED_GET,
	TPL_SR_RUNLOCK,
	TPL_SR_PUT
};

typedef int (*stats_tpl_sr_cb_t)(enum stats_tpl_sr_cb_action action,
    struct stats_tpl_sample_rate **rates, int *nrates, void *ctx);

/*
 * Linux has no sysctl(9). stats_tpl_sample_rates() keeps FreeBSD's handler
 * signature over this small request structure: arg1 is the subsystem's
 * stats_tpl_sr_cb_t, arg2 the size of the context to allocate for it, and
 * req carries the text to write (newptr/newlen, NULL for a read) and the
 * buffer to read into (oldptr/oldlen; oldidx is set to the length needed,
 * including the NUL).
 */
struct sysctl_oid;
struct sysctl_req {
	const void	*newptr;
	size_t		 newlen;
	void		*oldptr;
	size_t		 oldlen;
	size_t		 oldidx;
};
#ifndef SYSCTL_HANDLER_ARGS
#define SYSCTL_HANDLER_ARGS						\
	struct sysctl_oid *oidp, void *arg1, intmax_t arg2, struct sysctl_req *req
#endif

/*
 * stats_tpl_alloc: register an empty template named name: 1 to 64 of
 * [A-Za-z0-9_.-], unique. flags is unused.
 * Returns: the template's slot id (≥ 0); -EINVAL for a NULL, empty, too long
 * or ill-formed name (FreeBSD gives -ENOMEM for NULL); -EEXIST if the name
 * is taken; -ENOMEM.
 */
STATS_API int stats_tpl_alloc(const char *name, uint32_t flags);

/*
 * stats_tpl_fetch_allocid: the slot id of the newest template matching name
 * and hash. hash 0 matches any hash; a NULL name matches by hash alone.
 * Returns: the slot id; -ESRCH if none matches.
 */
STATS_API int stats_tpl_fetch_allocid(const char *name, uint32_t hash);

/*
 * stats_tpl_fetch: borrow the template at slot tpl_id. Templates are never
 * freed, so the pointer stays valid for the life of the process.
 * Returns: 0; ENOENT for an invalid id.
 */
STATS_API int stats_tpl_fetch(int tpl_id, struct statsblob_tpl **tpl);

/*
 * stats_tpl_id2name: copy the template's name into buf.
 * Returns: 0; ENOENT for an invalid id; EOVERFLOW if buf is NULL or len is
 * too short for the name and its NUL.
 */
STATS_API int stats_tpl_id2name(uint32_t tpl_id, char *buf, size_t len);

/*
 * stats_tpl_id2spec: write the normative spec "<name>":<hash> into buf.
 * Returns: 0; ENOENT; EOVERFLOW as stats_tpl_id2name().
 */
STATS_API int stats_tpl_id2spec(uint32_t tpl_id, char *buf, size_t len);

/*
 * stats_tpl_spec_parse: split a template spec in any of its three forms,
 * "<name>":<hash>, "<name>" (quotes optional) or :<hash>, into name (empty
 * for the hash-only form) and hash (0 when absent, the wildcard).
 * Returns: 0; EINVAL for a malformed spec or one longer than
 * STATS_TPL_MAX_STR_SPEC_LEN; EOVERFLOW if namelen is too small.
 */
STATS_API int stats_tpl_spec_parse(const char *spec, char *name,
    size_t namelen, uint32_t *hash);

/*
 * stats_tpl_fetch_byspec: stats_tpl_fetch_allocid() for a spec string.
 * Returns: the slot id; -EINVAL for a malformed spec; -ESRCH if none matches.
 */
STATS_API int stats_tpl_fetch_byspec(const char *spec);

/*
 * stats_tpl_list: append the comma-separated normative specs of every
 * template, oldest first (FreeBSD's kern.stats.templates) to buf.
 * Returns: 0; EINVAL for a NULL buf; or sbuf_error(buf).
 */
STATS_API int stats_tpl_list(struct sbuf *buf);

/*
 * stats_tpl_sample_rates: FreeBSD's generic sample-rate handler (see the
 * sysctl_req note above). A read renders the subsystem's rates as
 * "<name>":<hash>=<pct>,...; a write parses that list (any spec form per
 * entry), checks that every template exists and the total is at most 100,
 * and hands the new list to the callback with TPL_SR_PUT.
 * Returns: 0; EINVAL for a malformed list or a total over 100; ESRCH for an
 * unknown template; ENOMEM; ENOSPC if oldptr is too small for the text (the
 * needed length is in oldidx); or the callback's error.
 */
STATS_API int stats_tpl_sample_rates(SYSCTL_HANDLER_ARGS);

/*
 * stats_tpl_sample_rates_parse: parse a sample-rate list such as
 * "A=30, \"B\":123=20, :456=10" into a new array (free() it).
 * Returns: 0; EINVAL (malformed, or total over 100) with *errpos set to the
 * offending byte offset when errpos is not NULL; ESRCH for an unknown
 * template (errpos at its entry); ENOMEM.
 */
STATS_API int stats_tpl_sample_rates_parse(const char *text,
    struct stats_tpl_sample_rate **rates, int *nrates, size_t *errpos);

/*
 * stats_tpl_sample_rates_format: append "<name>":<hash>=<pct> entries,
 * comma-separated, to buf.
 * Returns: 0; ENOENT for a rate whose template does not exist; sbuf_error.
 */
STATS_API int stats_tpl_sample_rates_format(
    const struct stats_tpl_sample_rate *rates, int nrates, struct sbuf *buf);

/*
 * stats_tpl_sample_rollthedice: pick one template from rates, weighted by
 * their percentages. With seed_bytes the choice is a deterministic function
 * of the seed; without, it comes from getrandom(2).
 * Returns: a tpl_slot_id from rates, or -1 for "no statistics this time".
 */
STATS_API int stats_tpl_sample_rollthedice(struct stats_tpl_sample_rate *rates,
    int nrates, void *seed_bytes, size_t seed_len);

/*
 * stats_tpl_add_voistats: add VOI voi_id, named voi_name, of type
 * voi_dtype, with the nvss statistics in vss, to a template. flags may hold
 * SB_VOI_RELUPDATE. The helpers' allocations in vss are always released.
 * Returns: 0; EINVAL for bad arguments (including a duplicate statistic type
 * in vss, or a non-empty VOI name another VOI of the template has);
 * EOPNOTSUPP if the VOI already exists; EFBIG if the blob would
 * exceed 65535 bytes; ENOMEM.
 */
STATS_API int stats_tpl_add_voistats(uint32_t tpl_id, int32_t voi_id,
    const char *voi_name, enum vsd_dtype voi_dtype, uint32_t nvss,
    struct voistatspec *vss, uint32_t flags);

/*
 * stats_vsd_dtype_name, stats_voi_stype_name: "INT_U64", "SUM", ...
 * Returns: the name, or NULL out of range.
 */
STATS_API const char *stats_vsd_dtype_name(enum vsd_dtype dtype);
STATS_API const char *stats_voi_stype_name(enum voi_stype stype);

/* stats_strerror: strerror() that also names EFTYPE. */
STATS_API const char *stats_strerror(int error);

/* Blobs. */

/*
 * stats_blob_alloc: allocate a blob from template tpl_id (flags unused).
 * Returns: the blob (free it with stats_blob_destroy()); NULL for an
 * invalid id or on allocation failure.
 */
STATS_API struct statsblob *stats_blob_alloc(uint32_t tpl_id, uint32_t flags);

/*
 * stats_blob_init: lay template tpl_id out in the caller's sb, whose maxsz
 * says how large the buffer is. As on FreeBSD, maxsz is then the template's
 * size.
 * Returns: 0; EINVAL for NULL or an invalid id; EOVERFLOW if sb->maxsz is
 * smaller than the template.
 */
STATS_API int stats_blob_init(struct statsblob *sb, uint32_t tpl_id,
    uint32_t flags);

/*
 * stats_blob_clone: copy src into *dst (dstmaxsz bytes), leaving dst's maxsz
 * as it was; with SB_CLONE_ALLOCDST, allocate *dst first. The USRDST flags
 * are accepted and have no effect in user space.
 * Returns: 0; EINVAL for bad arguments; ENOMEM; EOVERFLOW if dst is too
 * small, in which case only the 8-byte header is copied so the caller can
 * read the size it needs from cursz.
 */
STATS_API int stats_blob_clone(struct statsblob **dst, size_t dstmaxsz,
    struct statsblob *src, uint32_t flags);

/*
 * stats_blob_snapshot: stats_blob_clone(), then with SB_CLONE_RSTSRC reset
 * every statistic of src (not the VOI state) and stamp its lastrst.
 * Returns: as stats_blob_clone(); src is reset only on success.
 */
STATS_API int stats_blob_snapshot(struct statsblob **dst, size_t dstmaxsz,
    struct statsblob *src, uint32_t flags);

/* stats_blob_destroy: free a blob from alloc, or clone with ALLOCDST. */
STATS_API void stats_blob_destroy(struct statsblob *sb);

/*
 * stats_blob_reset: reset every statistic of sb as SB_CLONE_RSTSRC does.
 * Returns: 0; EINVAL.
 */
STATS_API int stats_blob_reset(struct statsblob *sb);

/*
 * stats_blob_merge: fold src into dst, two blobs of the same template: SUM
 * adds, MIN and MAX combine, HIST adds buckets, TDGST merges digests,
 * VOISTATE keeps dst's. flags is unused.
 * Unlike updates, which wrap as FreeBSD's do, a merge refuses to wrap.
 * Returns: 0; EINVAL for blobs of different templates or layouts;
 * EOVERFLOW if any sum, histogram counter or digest count would overflow
 * (dst is then unchanged); ENOMEM.
 */
STATS_API int stats_blob_merge(struct statsblob *dst,
    const struct statsblob *src, uint32_t flags);

/*
 * stats_blob_validate: check a blob of unknown origin (a copy out of shared
 * memory, a file) before any other call reads it: header, every offset and
 * size, every statistic's internal counts, all within len bytes.
 * Returns: 0; EINVAL naming nothing more (use stats_blob_validate_why()).
 */
STATS_API int stats_blob_validate(const struct statsblob *sb, size_t len);
STATS_API const char *stats_blob_validate_why(const struct statsblob *sb,
    size_t len);

/* Reads. */

struct sb_visit {
	struct voistatdata	*vs_data;
	uint32_t		tplhash;
	uint32_t		flags;
	int16_t			voi_id;
	int16_t			vs_dsz;
	enum vsd_dtype		voi_dtype : 8;
	enum vsd_dtype		vs_dtype : 8;
	int8_t			vs_stype;
	uint16_t		vs_errs;
};

typedef int (*stats_blob_visitcb_t)(struct sb_visit *sbv, void *usrctx);

/*
 * stats_blob_visit: call func for every statistic of every VOI, in VOI id
 * order and, within a VOI, in statistic type order (VOISTATE included).
 * Unlike FreeBSD, SB_IT_FIRST_VOI and SB_IT_LAST_VOI mark exactly the first
 * and last VOI visited. A non-zero return from func stops the walk.
 * Returns: 0; EINVAL for bad arguments.
 */
STATS_API int stats_blob_visit(struct statsblob *sb, stats_blob_visitcb_t func,
    void *usrctx);

/*
 * stats_voistat_fetch_dptr: borrow a pointer to a statistic's data.
 * Returns: 0; EINVAL for bad arguments, an absent VOI or an absent
 * statistic (FreeBSD hands back a pointer to offset 0 for those).
 */
STATS_API int stats_voistat_fetch_dptr(struct statsblob *sb, int32_t voi_id,
    enum voi_stype stype, enum vsd_dtype *retdtype,
    struct voistatdata **retvsd, size_t *retvsdsz);

/*
 * stats_voistat_fetch_quantile: the q-quantile of a TDGST statistic, or of
 * a HIST by interpolation within its buckets.
 * Returns: 0; EINVAL for bad arguments, q outside [0, 1] or another stype;
 * ENODATA if the statistic holds no data.
 */
STATS_API int stats_voistat_fetch_quantile(struct statsblob *sb, int32_t voi_id,
    enum voi_stype stype, double q, double *ret);

/*
 * stats_voistat_fetch_cdf: the fraction of the weight at or below x.
 * Returns: as stats_voistat_fetch_quantile().
 */
STATS_API int stats_voistat_fetch_cdf(struct statsblob *sb, int32_t voi_id,
    enum voi_stype stype, double x, double *ret);

/*
 * stats_blob_tostr: render sb into buf as FREEFORM text or JSON.
 * SB_TOSTR_OBJDUMP adds the layout, vacant slots included; SB_TOSTR_META
 * names the template, VOIs and statistics (the template is found by the
 * blob's hash).
 * Returns: 0; EINVAL for bad arguments or, with META, an unknown template;
 * otherwise sbuf_error(buf).
 */
STATS_API int stats_blob_tostr(struct statsblob *sb, struct sbuf *buf,
    enum sb_str_fmt fmt, uint32_t flags);

/*
 * stats_voistatdata_tostr: render one statistic's data of type dtype.
 * Histograms and digests describe their own size. A VOISTATE's previous
 * value is shown as a signed 64-bit number, its VOI's type being unknown
 * here (stats_blob_tostr() shows it in the VOI's type).
 * Returns: 0; EINVAL; sbuf_error(buf).
 */
STATS_API int stats_voistatdata_tostr(const struct voistatdata *vsd,
    enum vsd_dtype dtype, enum sb_str_fmt fmt, struct sbuf *buf, int objdump);

/*
 * stats_voi_update_xy: the engine's one update: apply value *voival, of
 * type voi_dtype (which must be the VOI's), with weight y to every
 * statistic of the VOI. With SB_VOI_RELUPDATE in flags, *voival is relative
 * to the previous value and is replaced by the absolute value used.
 * Returns: 0; EINVAL for bad arguments (a VOI type mismatch, a relative
 * update on a VOI without SB_VOI_RELUPDATE, y == 0); otherwise the error of
 * the last statistic that failed (each failure is counted in its errs).
 */
STATS_API int stats_voi_update_xy(struct statsblob *sb, int32_t voi_id,
    enum vsd_dtype voi_dtype, struct voistatdata_numeric *voival,
    uint64_t y, uint32_t flags);

#define _STATS_UPDATE_FN(kind, ctype, member, dtype, rel)		\
static inline int							\
stats_voi_update_##kind##_##member(struct statsblob *sb, int32_t voi_id,\
    ctype voival)							\
{									\
	struct voistatdata_numeric n;					\
									\
	if (sb == NULL)							\
		return 0;						\
	n.int64.u64 = 0;						\
	n._STATS_MEMBER_##member = voival;				\
	return stats_voi_update_xy(sb, voi_id, dtype, &n, 1, rel);	\
}

#define _STATS_MEMBER_s32	int32.s32
#define _STATS_MEMBER_u32	int32.u32
#define _STATS_MEMBER_s64	int64.s64
#define _STATS_MEMBER_u64	int64.u64
#define _STATS_MEMBER_slong	intlong.slong
#define _STATS_MEMBER_ulong	intlong.ulong
#define _STATS_MEMBER_sq32	q32.sq32
#define _STATS_MEMBER_uq32	q32.uq32
#define _STATS_MEMBER_sq64	q64.sq64
#define _STATS_MEMBER_uq64	q64.uq64

#define _STATS_UPDATE_PAIR(ctype, member, dtype)			\
	_STATS_UPDATE_FN(abs, ctype, member, dtype, 0)			\
	_STATS_UPDATE_FN(rel, ctype, member, dtype, SB_VOI_RELUPDATE)

_STATS_UPDATE_PAIR(int32_t, s32, VSD_DTYPE_INT_S32)
_STATS_UPDATE_PAIR(uint32_t, u32, VSD_DTYPE_INT_U32)
_STATS_UPDATE_PAIR(int64_t, s64, VSD_DTYPE_INT_S64)
_STATS_UPDATE_PAIR(uint64_t, u64, VSD_DTYPE_INT_U64)
_STATS_UPDATE_PAIR(long, slong, VSD_DTYPE_INT_SLONG)
_STATS_UPDATE_PAIR(unsigned long, ulong, VSD_DTYPE_INT_ULONG)
_STATS_UPDATE_PAIR(s32q_t, sq32, VSD_DTYPE_Q_S32)
_STATS_UPDATE_PAIR(u32q_t, uq32, VSD_DTYPE_Q_U32)
_STATS_UPDATE_PAIR(s64q_t, sq64, VSD_DTYPE_Q_S64)
_STATS_UPDATE_PAIR(u64q_t, uq64, VSD_DTYPE_Q_U64)

/*
 * stats_voistat_fetch_<dtype>: copy out a scalar statistic.
 * Returns: 0; EINVAL for bad arguments; EFTYPE if the statistic is not of
 * that type (also for an absent statistic).
 */
/*
 * stats_voistat_fetch_typed: copy a scalar statistic of type dtype into
 * *ret (retsz bytes, the size of that type).
 * Returns: 0; EINVAL for bad arguments or an absent VOI; EFTYPE if the
 * statistic is absent or not of type dtype.
 */
STATS_API int stats_voistat_fetch_typed(struct statsblob *sb, int32_t voi_id,
    enum voi_stype stype, enum vsd_dtype dtype, void *ret, size_t retsz);

#define _STATS_FETCH_FN(ctype, member, dtype)				\
static inline int							\
stats_voistat_fetch_##member(struct statsblob *sb, int32_t voi_id,	\
    enum voi_stype stype, ctype *ret)					\
{									\
	return stats_voistat_fetch_typed(sb, voi_id, stype, dtype, ret,	\
	    sizeof(*ret));						\
}


_STATS_FETCH_FN(int32_t, s32, VSD_DTYPE_INT_S32)
_STATS_FETCH_FN(uint32_t, u32, VSD_DTYPE_INT_U32)
_STATS_FETCH_FN(int64_t, s64, VSD_DTYPE_INT_S64)
_STATS_FETCH_FN(uint64_t, u64, VSD_DTYPE_INT_U64)
_STATS_FETCH_FN(long, slong, VSD_DTYPE_INT_SLONG)
_STATS_FETCH_FN(unsigned long, ulong, VSD_DTYPE_INT_ULONG)
_STATS_FETCH_FN(s32q_t, sq32, VSD_DTYPE_Q_S32)
_STATS_FETCH_FN(u32q_t, uq32, VSD_DTYPE_Q_U32)
_STATS_FETCH_FN(s64q_t, sq64, VSD_DTYPE_Q_S64)
_STATS_FETCH_FN(u64q_t, uq64, VSD_DTYPE_Q_U64)

#ifdef __cplusplus
}
#endif

#endif /* STATSD_STATS_H */
