/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kind.h: the kind table, which drives the engine and everything that
 * names a statistic. Each statistic kind is described once, here, as data
 * (its data types are in dtype.h): how a template names it and its
 * parameters, its flat fields and whether each is a counter, and its
 * operations. Update, reset, merge, validation, template definitions,
 * publication and the flat views loop over this table rather than
 * switching on kinds across files. Adding a kind is one file in kinds/
 * and one row here (docs/architecture.md shows how).
 */
#ifndef STATSD_KIND_H
#define STATSD_KIND_H

#include <stdbool.h>
#include <stdint.h>

#include "blob.h"
#include "dtype.h"
#include "field.h"
#include "kindspec.h"

struct stats_event;

/*
 * One statistic type. x is the update's value in the VOI's type and y its
 * weight (≥ 1). update returns 0 or an errno, and must leave the data
 * unchanged on error. merge folds src into dst (same type and layout);
 * check validates untrusted data; quantile and cdf are optional.
 *
 * fold is the set of ops (bit 1 << op) that a spill blob can take for
 * this kind and hand to merge later with the result of applying them in
 * place, in order: ops whose effect on the kind commutes with what may
 * come between (spill.h), and ops that do not concern the kind at all.
 * An op outside it, for any statistic of a VOI, is logged instead.
 *
 * event (optional) takes the operations of op.h that are not plain (X, Y)
 * updates (queue and timer events, SET), and the (X, Y) updates too for a
 * kind without update (those that need the time: HISTORY, RAW). It returns
 * 0, EOPNOTSUPP when the op does not concern this kind (not an error), or
 * an errno, leaving the data unchanged.
 */
/*
 * A name a template's statistic is given by in a StatSpec (kindspec.h):
 * the kind's own ("HIST"), or a variant ("K2HIST", a HIST laid out as a
 * kstat2 histogram; "STRING" and "CHAR", a LAST of text). params are the
 * parameters it takes (KP(...) bits); build makes its voistatspec(s).
 */
struct kind_spec {
	const char	*name;
	uint32_t	 params;
	kind_build_fn	*build;
};

struct stype_ops {
	const char	*name;		/* "SUM" */
	const char	*desc;
	uint32_t	 fold;		/* ops that fold into a spill blob */
	/*
	 * How a template names and parameterises the kind: its spec names
	 * (the first is the kind's own), whether it must be its VOI's only
	 * statistic (DEFN), and describe, which gives a statistic's
	 * parameters back from its data (NULL: it cannot).
	 */
	const struct kind_spec *specs;
	uint8_t		 nspecs;
	bool		 alone;
	kind_describe_fn *describe;
	/*
	 * The kind's flat fields (field.h): one for a scalar kind, whose
	 * value is the statistic's data itself ("sum", "last"); several for
	 * a record kind, whose values field_values gives (IOQ's kstat_io
	 * fields as a reader sees them at now_ns, TIMER's). A HIST has
	 * kstat2's fields when it is a kstat2 histogram (kstat2_hist.h);
	 * other kinds have none and are read whole.
	 */
	/*
	 * Its data's encoding in stats(3)'s text and JSON forms, for the
	 * data type family that is its own (a scalar or VOISTATE is encoded
	 * by the engine; LAST's own family is its text, STRING).
	 */
	uint8_t		 family;	/* enum dtype_family */
	kind_render_fn	*render;
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
	/*
	 * A kind whose data holds times: a template holds none (its hash is
	 * its name and schema's alone, whenever it is registered), and a
	 * blob made from it takes now_ns as its times (optional).
	 */
	void		(*stamp)(struct voistatdata *vsd, uint16_t dsz,
			    uint64_t now_ns);
};

extern const struct stype_ops stype_ops[VS_NUM_STYPES];

/*
 * kind_spec_find: the kind and spec of a StatSpec's kind name.
 * Returns: the kind (enum voi_stype) and *ret; -1 for an unknown name.
 */
int kind_spec_find(const char *name, const struct kind_spec **ret);

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
