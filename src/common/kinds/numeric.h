/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * numeric.h: scalar values of every VOI data type, held in the 8-byte
 * struct voistatdata_numeric: limits, comparison, weighted addition,
 * conversion and rendering. Also the SUM, MIN and MAX statistics, which are
 * nothing but these operations applied to a stored scalar.
 */
#ifndef STATSD_NUMERIC_H
#define STATSD_NUMERIC_H

#include <stdbool.h>

#include "dtype.h"
#include "kindspec.h"

/* The type's minimum (max == false) or maximum as a numeric. */
struct voistatdata_numeric numeric_limit(enum vsd_dtype dtype, bool max);

/* -1, 0 or 1 as a < b, a == b, a > b in dtype's order. */
int numeric_cmp(enum vsd_dtype dtype, const struct voistatdata_numeric *a,
    const struct voistatdata_numeric *b);

/*
 * acc += x * y. Integers wrap, as FreeBSD's do; fixed-point types detect
 * overflow instead, as qmath does.
 * Returns: 0; EOVERFLOW (acc unchanged).
 */
int numeric_add(enum vsd_dtype dtype, struct voistatdata_numeric *acc,
    const struct voistatdata_numeric *x, uint64_t y);

/* The value as a double (fixed point scaled). */
double numeric_to_double(enum vsd_dtype dtype,
    const struct voistatdata_numeric *n);

/* Load a scalar of dtype from data / store it back (4 or 8 bytes). */
void numeric_load(enum vsd_dtype dtype, const void *data,
    struct voistatdata_numeric *n);
void numeric_store(enum vsd_dtype dtype, void *data,
    const struct voistatdata_numeric *n);

/* The value as a sign-extended (numeric_s64) or, for an unsigned dtype,
 * zero-extended (numeric_u64) 64-bit quantity. */
int64_t numeric_s64(enum vsd_dtype dtype,
    const struct voistatdata_numeric *n);
uint64_t numeric_u64(enum vsd_dtype dtype,
    const struct voistatdata_numeric *n);

/* Append the value in dtype's text form. Returns: 0 or the sbuf error. */
int numeric_format(struct sbuf *buf, enum vsd_dtype dtype,
    const struct voistatdata_numeric *n);

/*
 * The JSON forms statsd writes numbers in (docs/protocol.md, Numbers): a
 * JSON number, exactly; but an unsigned value above INT64_MAX, which
 * varlink's int and most JSON readers (jansson, Go's int64) cannot hold, is
 * a JSON string of its decimal digits. A fixed-point value is a JSON number
 * whose text is its exact decimal.
 * numeric_json_u64: v so. numeric_format_json: a value of dtype so.
 * Returns: 0 or the sbuf error.
 */
int numeric_json_u64(struct sbuf *buf, uint64_t v);
int numeric_format_json(struct sbuf *buf, enum vsd_dtype dtype,
    const struct voistatdata_numeric *n);

/*
 * Parse text as a value of dtype (decimal integer, or a decimal fraction
 * for the fixed-point types).
 * Returns: 0; EINVAL for junk; ERANGE if the value does not fit.
 */
int numeric_parse(const char *text, enum vsd_dtype dtype,
    struct voistatdata_numeric *n);

/* Statistic-type operations for SUM, MIN and MAX (used by kind.c). */
int numeric_sum_update(struct voistatdata *, uint16_t, enum vsd_dtype,
    enum vsd_dtype, const struct voistatdata_numeric *, uint64_t, bool *);
int numeric_max_update(struct voistatdata *, uint16_t, enum vsd_dtype,
    enum vsd_dtype, const struct voistatdata_numeric *, uint64_t, bool *);
int numeric_min_update(struct voistatdata *, uint16_t, enum vsd_dtype,
    enum vsd_dtype, const struct voistatdata_numeric *, uint64_t, bool *);
void numeric_sum_reset(struct voistatdata *, uint16_t, enum vsd_dtype,
    enum vsd_dtype);
void numeric_max_reset(struct voistatdata *, uint16_t, enum vsd_dtype,
    enum vsd_dtype);
void numeric_min_reset(struct voistatdata *, uint16_t, enum vsd_dtype,
    enum vsd_dtype);
int numeric_sum_merge(struct voistatdata *, const struct voistatdata *,
    uint16_t, enum vsd_dtype, enum vsd_dtype);
int numeric_max_merge(struct voistatdata *, const struct voistatdata *,
    uint16_t, enum vsd_dtype, enum vsd_dtype);
int numeric_min_merge(struct voistatdata *, const struct voistatdata *,
    uint16_t, enum vsd_dtype, enum vsd_dtype);
const char *numeric_check(const struct voistatdata *, uint16_t,
    enum vsd_dtype, enum vsd_dtype);

/* SUM, MIN, MAX as a template's statistics (kindspec.h): no
 * parameters. */
kind_build_fn numeric_sum_build, numeric_min_build, numeric_max_build;

#endif /* STATSD_NUMERIC_H */
