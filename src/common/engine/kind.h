/*
 * kind.h: the tables that drive the engine. Each data type and each
 * statistic type is described once, here, as data; update, reset, merge,
 * validation and rendering dispatch through these tables rather than
 * through switch statements scattered across files.
 */
#ifndef STATSD_KIND_H
#define STATSD_KIND_H

#include <stdbool.h>
#include <stdint.h>

#include "blob.h"

struct stats_event;

enum dtype_family {
	DF_NONE = 0,
	DF_VOISTATE,
	DF_SCALAR,
	DF_HIST,
	DF_TDGST,
	DF_LIST,		/* stat_list.c */
	DF_HISTORY,		/* stat_history.c */
	DF_RAW,			/* stat_raw.c */
	DF_IOQ,			/* stat_ioq.c */
	DF_TIMER,		/* stat_timer.c */
	DF_STRING,		/* stat_scalar.c */
	DF_DEFN,		/* stat_defn.c */
};

struct dtype_info {
	const char		*name;		/* "INT_U64" */
	uint16_t		 size;		/* scalars: value size; else 8 */
	uint8_t			 align;		/* alignment of the data */
	uint8_t			 family;	/* enum dtype_family */
	bool			 is_signed;	/* scalars: signed comparison */
	bool			 is_q;		/* scalars: fixed point */
};

extern const struct dtype_info dtype_info[VSD_NUM_DTYPES];

static inline bool
dtype_valid(int dtype)
{
	return dtype > 0 && dtype < VSD_NUM_DTYPES;
}

static inline bool
dtype_is_scalar(int dtype)
{
	return dtype_valid(dtype) && dtype_info[dtype].family == DF_SCALAR;
}

/*
 * One statistic type. x is the update's value in the VOI's type and y its
 * weight (≥ 1). update returns 0 or an errno, and must leave the data
 * unchanged on error. merge folds src into dst (same type and layout);
 * check validates untrusted data; quantile and cdf are optional.
 *
 * event (optional) takes the operations of op.h that are not plain (X, Y)
 * updates (queue and timer events, SET), and the (X, Y) updates too for a
 * kind without update (those that need the time: HISTORY, RAW). It returns
 * 0, EOPNOTSUPP when the op does not concern this kind (not an error), or
 * an errno, leaving the data unchanged.
 */
struct stype_ops {
	const char	*name;		/* "SUM" */
	const char	*flatname;	/* "sum" in flat views; NULL if none */
	const char	*desc;
	int		(*update)(struct voistatdata *vsd, uint16_t dsz,
			    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype,
			    const struct voistatdata_numeric *x, uint64_t y,
			    bool *changed);
	void		(*reset)(struct voistatdata *vsd, uint16_t dsz,
			    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype);
	int		(*merge)(struct voistatdata *dst,
			    const struct voistatdata *src, uint16_t dsz,
			    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype);
	const char	*(*check)(const struct voistatdata *vsd, uint16_t dsz,
			    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype);
	int		(*quantile)(const struct voistatdata *vsd, uint16_t dsz,
			    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype,
			    double q, double *ret);
	int		(*cdf)(const struct voistatdata *vsd, uint16_t dsz,
			    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype,
			    double x, double *ret);
	int		(*event)(struct voistatdata *vsd, uint16_t dsz,
			    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype,
			    const struct stats_event *ev, bool *changed);
};

extern const struct stype_ops stype_ops[VS_NUM_STYPES];

static inline bool
stype_valid(int stype)
{
	return stype > 0 && stype < VS_NUM_STYPES;
}

/*
 * The most bytes one list or ring statistic may take: a blob's 65535 less
 * room for the blob header, its VOI and that VOI's other statistics. The
 * entries_max bounds of LIST, HISTORY and RAW derive from it.
 */
#define STAT_ROOM	(SB_V1_MAXSZ - 1024u)

/*
 * Render one statistic's data (no key, no braces around the whole):
 * scalars as their value, compound types as their body. voi_dtype may be 0
 * when unknown (VOISTATE then renders as signed 64-bit).
 * Returns: 0, EINVAL, or the sbuf's error.
 */
int kind_render(struct sbuf *buf, const struct voistatdata *vsd,
    enum vsd_dtype voi_dtype, enum vsd_dtype vs_dtype, uint16_t dsz,
    enum sb_str_fmt fmt, bool objdump);

#endif /* STATSD_KIND_H */
