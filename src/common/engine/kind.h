/*
 * kind.h: the table that drives the engine. Each statistic type is
 * described once, here, as data (its data types are in dtype.h); update,
 * reset, merge, validation and rendering dispatch through these tables
 * rather than through switch statements scattered across files.
 */
#ifndef STATSD_KIND_H
#define STATSD_KIND_H

#include <stdbool.h>
#include <stdint.h>

#include "blob.h"
#include "dtype.h"
#include "field.h"

struct stats_event;

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
	const char	*desc;
	/*
	 * The kind's flat fields (field.h): one for a scalar kind, whose
	 * value is the statistic's data itself ("sum", "last"); several for
	 * a record kind, whose values field_values gives (IOQ's kstat_io
	 * fields as a reader sees them at now_ns, TIMER's). A HIST has
	 * kstat2's fields when it is a kstat2 histogram (kstat2_hist.h);
	 * other kinds have none and are read whole.
	 */
	const struct stat_field *fields;
	uint8_t		 nfields;
	void		(*field_values)(const struct voistatdata *vsd,
			    uint64_t now_ns, uint64_t *out);
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
 * Render one statistic's data (no key, no braces around the whole):
 * scalars as their value, compound types as their body. voi_dtype may be 0
 * when unknown (VOISTATE then renders as signed 64-bit).
 * Returns: 0, EINVAL, or the sbuf's error.
 */
int kind_render(struct sbuf *buf, const struct voistatdata *vsd,
    enum vsd_dtype voi_dtype, enum vsd_dtype vs_dtype, uint16_t dsz,
    enum sb_str_fmt fmt, bool objdump);

#endif /* STATSD_KIND_H */
