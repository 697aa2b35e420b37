/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kindspec.h: a statistic's spec parameters, described once as data. A
 * template's statistic is named by its kind ("HIST") and given by these
 * parameters ("scheme", "lb", ...), in the protocol's StatSpec and
 * wherever a statistic describes itself (a published stats(3) blob). Each
 * kind's file builds its voistatspec from a struct kind_args and says
 * which parameters it takes in the kind table (kind.h); statsd's StatSpec
 * parameter table, its template definitions and libstatsclient's publish
 * all loop over KIND_PARAMS.
 */
#ifndef STATSD_KINDSPEC_H
#define STATSD_KINDSPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <statsd/stats.h>

#include "input_error.h"

/* The most buckets a USR histogram names (a DR one gives two bounds
 * each). */
#define KIND_BUCKETS_MAX	1024

/*
 * Every parameter: its identifier, its name, its type and its bounds
 * (INT and each INTS element: the values; STRING: the most bytes; BOOL:
 * 0..1). X(ID, "name", TYPE, min, max). Where it is expanded, STRING_MAX
 * (stat_scalar.h) and DEFN_UNITS_MAX (stat_defn.h) must be known.
 */
#define KIND_PARAMS(X)							\
	X(SCHEME, "scheme", STRING, 0, 16)				\
	X(RANGE, "range", STRING, 0, 4)					\
	X(COUNTERS, "counters", INT, 32, 64)				\
	X(LB, "lb", INT, INT64_MIN, INT64_MAX)				\
	X(UB, "ub", INT, INT64_MIN, INT64_MAX)				\
	X(STEP, "step", INT, INT64_MIN, INT64_MAX)			\
	X(STEPBASE, "stepbase", INT, 2, 1 << 16)			\
	X(STEPEXP, "stepexp", INT, 1, 64)				\
	X(NLIN, "nlin", INT, 1, 1 << 16)				\
	X(BUCKETS, "buckets", INTS, INT64_MIN, INT64_MAX)		\
	X(LBINF, "lbinf", BOOL, 0, 1)					\
	X(UBINF, "ubinf", BOOL, 0, 1)					\
	X(NCTDS, "nctds", INT, 1, 65535)				\
	X(PREC, "prec", INT, 0, 64)					\
	X(ENTRIES_MAX, "entries_max", INT, 1, 65535)			\
	X(MODE, "mode", STRING, 0, 16)					\
	X(PERIOD_US, "period_us", INT, 1, INT64_MAX)			\
	X(MAXLEN, "maxlen", INT, 1, STRING_MAX)				\
	X(UNITS, "units", STRING, 0, DEFN_UNITS_MAX)

/* The most elements of the one INTS parameter (buckets). */
#define KIND_INTS_MAX		(2 * KIND_BUCKETS_MAX)

enum kind_param {
#define KIND_PARAM_ENUM(id, name, type, min, max) KP_##id,
	KIND_PARAMS(KIND_PARAM_ENUM)
#undef KIND_PARAM_ENUM
	KP_NUM
};

#define KP(id)		(1u << KP_##id)

enum kind_ptype {
	KPT_INT = 0,
	KPT_BOOL,
	KPT_STRING,
	KPT_INTS,
};

struct kind_param_info {
	const char	*name;
	uint8_t		 type;		/* enum kind_ptype */
	int64_t		 min, max;
};

extern const struct kind_param_info kind_params[KP_NUM];

/* The parameter of that name. Returns: its enum kind_param; -1. */
int kind_param_find(const char *name);

/* A statistic's parameters as values: those in set are given. */
struct kind_args {
	uint32_t	 set;			/* 1 << KP_* */
	int64_t		 v[KP_NUM];		/* INT, BOOL (0 or 1) */
	const char	*s[KP_NUM];		/* STRING */
	int64_t		*ints;			/* INTS (buckets), owned */
	size_t		 nints;
};

static inline bool
kind_has(const struct kind_args *a, enum kind_param p)
{
	return (a->set & (1u << p)) != 0;
}

static inline int64_t
kind_int(const struct kind_args *a, enum kind_param p, int64_t dflt)
{
	return kind_has(a, p) ? a->v[p] : dflt;
}

static inline const char *
kind_str(const struct kind_args *a, enum kind_param p, const char *dflt)
{
	return kind_has(a, p) && a->s[p] != NULL ? a->s[p] : dflt;
}

/* Set a parameter (ints is taken over). */
void kind_set_int(struct kind_args *a, enum kind_param p, int64_t v);
void kind_set_str(struct kind_args *a, enum kind_param p, const char *s);
void kind_set_ints(struct kind_args *a, int64_t *ints, size_t n);

/* Free what the arguments own. NULL-safe. */
void kind_args_done(struct kind_args *a);

/* Fill err: what was wrong with a statistic's spec, the parameter ("" for
 * the statistic as a whole, "kind" for its kind) and why.
 * Returns: -EINVAL. */
int kind_fail(struct input_error *err, const char *param, const char *reason);

/*
 * kind_hlpr: run a stats(3) spec helper into *vss (for a statistic of
 * stype and data type vs_dtype, 0 for the helper to choose) and say why it
 * refused: too large for a blob, or parameters that do not fit the kind
 * and the VOI's type.
 * Returns: 0; -EINVAL with err; -ENOMEM.
 */
int kind_hlpr(struct voistatspec *vss, enum voi_stype stype, vss_hlpr_fn fn,
    void *info, enum vsd_dtype voi_dtype, enum vsd_dtype vs_dtype,
    struct input_error *err);

/*
 * kind_add: kind_hlpr() into vss[*n], then count it; refused if max are
 * there already.
 * Returns: as kind_hlpr().
 */
int kind_add(struct voistatspec *vss, uint32_t *n, uint32_t max,
    enum voi_stype stype, vss_hlpr_fn fn, void *info,
    enum vsd_dtype voi_dtype, enum vsd_dtype vs_dtype, struct input_error *err);

/*
 * A kind's builder: the voistatspec(s) of a statistic with arguments a,
 * for a VOI of voi_dtype, appended at vss[*n] (room for max in all; most
 * kinds add one, DEFN several). The helpers' allocations (vss[].iv) are
 * the caller's.
 * Returns: 0; -EINVAL with err; -ENOMEM.
 */
typedef int kind_build_fn(const struct kind_args *a, enum vsd_dtype voi_dtype,
    struct voistatspec *vss, uint32_t *n, uint32_t max, struct input_error *err);

/*
 * A kind's description of one of its statistics (data vsd of dsz bytes
 * and type vs_dtype, of a VOI of voi_dtype), for a reader that makes a
 * StatSpec of it again: ret gets the parameters (kind_args_done() it).
 * Returns: the index of the spec name in the kind's row (0: the kind's
 * own); -EINVAL if the data cannot say how it was made; -ENOMEM.
 */
typedef int kind_describe_fn(const struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype,
    struct kind_args *ret);

/* The description of a kind that takes no parameters: its own name. */
kind_describe_fn kind_describe_none;

/*
 * A kind's encoding of one statistic's data (dsz bytes of type vs_dtype,
 * of a VOI of voi_dtype) in stats(3)'s freeform or JSON form: its value
 * or its body, no key, no braces around the whole; objdump adds the
 * internals. Returns: 0; EINVAL; the sbuf's error.
 */
struct sbuf;
typedef int kind_render_fn(struct sbuf *buf, const struct voistatdata *vsd,
    uint16_t dsz, enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype,
    enum sb_str_fmt fmt, bool objdump);

#endif /* STATSD_KINDSPEC_H */
