/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * numeric.c: scalar arithmetic for every VOI data type, and the SUM, MIN
 * and MAX statistics built on it.
 *
 * FreeBSD's integer sums wrap silently; so do ours, but through unsigned
 * arithmetic so that signed wrap-around is defined. Fixed-point (Q) sums
 * detect overflow and leave the value unchanged, as qmath's Q_QADDQ does.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "numeric.h"

int64_t
numeric_s64(enum vsd_dtype dtype, const struct voistatdata_numeric *n)
{
	switch (dtype) {
	case VSD_DTYPE_INT_S32:
		return n->int32.s32;
	case VSD_DTYPE_Q_S32:
		return n->q32.sq32;
	case VSD_DTYPE_INT_U32:
		return n->int32.u32;
	case VSD_DTYPE_Q_U32:
		return n->q32.uq32;
	case VSD_DTYPE_INT_SLONG:
		return n->intlong.slong;
	case VSD_DTYPE_INT_ULONG:
		return (int64_t)n->intlong.ulong;
	default:
		return n->int64.s64;
	}
}

uint64_t
numeric_u64(enum vsd_dtype dtype, const struct voistatdata_numeric *n)
{
	return (uint64_t)numeric_s64(dtype, n);
}

/* Store a 64-bit quantity, truncated to dtype's width. */
static void
numeric_set(enum vsd_dtype dtype, struct voistatdata_numeric *n, uint64_t v)
{
	n->int64.u64 = 0;
	switch (dtype) {
	case VSD_DTYPE_INT_S32:
	case VSD_DTYPE_INT_U32:
	case VSD_DTYPE_Q_S32:
	case VSD_DTYPE_Q_U32:
		n->int32.u32 = (uint32_t)v;
		break;
	case VSD_DTYPE_INT_SLONG:
	case VSD_DTYPE_INT_ULONG:
		n->intlong.ulong = (unsigned long)v;
		break;
	default:
		n->int64.u64 = v;
		break;
	}
}

struct voistatdata_numeric
numeric_limit(enum vsd_dtype dtype, bool max)
{
	struct voistatdata_numeric n;

	n.int64.u64 = 0;
	switch (dtype) {
	case VSD_DTYPE_INT_S32:
	case VSD_DTYPE_Q_S32:
		n.int32.s32 = max ? INT32_MAX : INT32_MIN;
		break;
	case VSD_DTYPE_INT_U32:
	case VSD_DTYPE_Q_U32:
		n.int32.u32 = max ? UINT32_MAX : 0;
		break;
	case VSD_DTYPE_INT_S64:
	case VSD_DTYPE_Q_S64:
		n.int64.s64 = max ? INT64_MAX : INT64_MIN;
		break;
	case VSD_DTYPE_INT_U64:
	case VSD_DTYPE_Q_U64:
		n.int64.u64 = max ? UINT64_MAX : 0;
		break;
	case VSD_DTYPE_INT_SLONG:
		n.intlong.slong = max ? LONG_MAX : LONG_MIN;
		break;
	case VSD_DTYPE_INT_ULONG:
		n.intlong.ulong = max ? ULONG_MAX : 0;
		break;
	default:
		break;
	}
	return n;
}

int
numeric_cmp(enum vsd_dtype dtype, const struct voistatdata_numeric *a,
    const struct voistatdata_numeric *b)
{
	if (dtype_valid(dtype) && dtype_info[dtype].is_signed) {
		int64_t x = numeric_s64(dtype, a), y = numeric_s64(dtype, b);

		return (x > y) - (x < y);
	} else {
		uint64_t x = numeric_u64(dtype, a), y = numeric_u64(dtype, b);

		if (dtype == VSD_DTYPE_INT_U32 || dtype == VSD_DTYPE_Q_U32) {
			x = (uint32_t)x;
			y = (uint32_t)y;
		}
		return (x > y) - (x < y);
	}
}

/*
 * acc += x * y in exact arithmetic, then a range check: EOVERFLOW leaves
 * acc unchanged. __int128 is a GCC and Clang extension on 64-bit targets,
 * the only ones statsd builds for; it saves a hand-written overflow check
 * per signedness and width.
 */
static int
numeric_add_exact(enum vsd_dtype dtype, struct voistatdata_numeric *acc,
    const struct voistatdata_numeric *x, uint64_t y)
{
	struct voistatdata_numeric lo = numeric_limit(dtype, false);
	struct voistatdata_numeric hi = numeric_limit(dtype, true);

	if (dtype_info[dtype].is_signed) {
		__int128 sum = (__int128)numeric_s64(dtype, acc) +
		    (__int128)numeric_s64(dtype, x) * (__int128)y;

		if (sum < numeric_s64(dtype, &lo) ||
		    sum > numeric_s64(dtype, &hi))
			return EOVERFLOW;
		numeric_set(dtype, acc, (uint64_t)sum);
	} else {
		/* v * y nears 2^128: exact only in unsigned 128 bits. */
		unsigned __int128 sum = (unsigned __int128)numeric_u64(dtype,
		    acc) + (unsigned __int128)numeric_u64(dtype, x) * y;

		if (sum > numeric_u64(dtype, &hi))
			return EOVERFLOW;
		numeric_set(dtype, acc, (uint64_t)sum);
	}
	return 0;
}

int
numeric_add(enum vsd_dtype dtype, struct voistatdata_numeric *acc,
    const struct voistatdata_numeric *x, uint64_t y)
{
	uint64_t a = numeric_u64(dtype, acc), v = numeric_u64(dtype, x);

	if (dtype_info[dtype].is_q)
		return numeric_add_exact(dtype, acc, x, y);
	numeric_set(dtype, acc, a + v * y);
	return 0;
}

double
numeric_to_double(enum vsd_dtype dtype, const struct voistatdata_numeric *n)
{
	switch (dtype) {
	case VSD_DTYPE_INT_S32:
	case VSD_DTYPE_INT_S64:
	case VSD_DTYPE_INT_SLONG:
		return (double)numeric_s64(dtype, n);
	case VSD_DTYPE_INT_U32:
	case VSD_DTYPE_INT_U64:
	case VSD_DTYPE_INT_ULONG:
		return (double)numeric_u64(dtype, n);
	case VSD_DTYPE_Q_S32:
		return STATS_Q32_TO_DOUBLE(n->q32.sq32);
	case VSD_DTYPE_Q_U32:
		return STATS_Q32_TO_DOUBLE(n->q32.uq32);
	case VSD_DTYPE_Q_S64:
		return STATS_Q64_TO_DOUBLE(n->q64.sq64);
	case VSD_DTYPE_Q_U64:
		return STATS_Q64_TO_DOUBLE(n->q64.uq64);
	default:
		return 0.0;
	}
}

/*
 * Constant-size copies: a memcpy whose size comes from the table is an
 * out-of-line call on the update path, these are single moves.
 */
void
numeric_load(enum vsd_dtype dtype, const void *data,
    struct voistatdata_numeric *n)
{
	n->int64.u64 = 0;
	if (dtype_info[dtype].size == 4)
		memcpy(n, data, 4);
	else
		memcpy(n, data, 8);
}

void
numeric_store(enum vsd_dtype dtype, void *data,
    const struct voistatdata_numeric *n)
{
	if (dtype_info[dtype].size == 4)
		memcpy(data, n, 4);
	else
		memcpy(data, n, 8);
}

/* Exact decimal of a fixed-point number with fbits fractional bits. */
static int
numeric_format_q(struct sbuf *buf, bool neg, unsigned __int128 mag,
    unsigned fbits)
{
	unsigned __int128 one = (unsigned __int128)1 << fbits;
	unsigned __int128 frac = mag & (one - 1);
	char digits[72];
	int nd = 0, keep;

	sbuf_printf(buf, "%s%" PRIu64 ".", neg ? "-" : "",
	    (uint64_t)(mag >> fbits));
	/* Each ×10 step yields one exact digit; 2^-n has exactly n digits. */
	while (nd < (int)fbits) {
		frac *= 10;
		digits[nd++] = (char)('0' + (int)(frac >> fbits));
		frac &= one - 1;
	}
	keep = nd;
	while (keep > 4 && digits[keep - 1] == '0')
		keep--;
	sbuf_bcat(buf, digits, (size_t)keep);
	return sbuf_error(buf);
}

int
numeric_format(struct sbuf *buf, enum vsd_dtype dtype,
    const struct voistatdata_numeric *n)
{
	int64_t s;

	switch (dtype) {
	case VSD_DTYPE_INT_S32:
		sbuf_printf(buf, "%d", n->int32.s32);
		break;
	case VSD_DTYPE_INT_U32:
		sbuf_printf(buf, "%u", n->int32.u32);
		break;
	case VSD_DTYPE_INT_S64:
		sbuf_printf(buf, "%jd", (intmax_t)n->int64.s64);
		break;
	case VSD_DTYPE_INT_U64:
		sbuf_printf(buf, "%ju", (uintmax_t)n->int64.u64);
		break;
	case VSD_DTYPE_INT_SLONG:
		sbuf_printf(buf, "%ld", n->intlong.slong);
		break;
	case VSD_DTYPE_INT_ULONG:
		sbuf_printf(buf, "%lu", n->intlong.ulong);
		break;
	case VSD_DTYPE_Q_S32:
	case VSD_DTYPE_Q_S64:
		s = numeric_s64(dtype, n);
		return numeric_format_q(buf, s < 0,
		    s < 0 ? (unsigned __int128)(-(__int128)s) :
		    (unsigned __int128)s,
		    dtype == VSD_DTYPE_Q_S32 ? STATS_Q32_FBITS : STATS_Q64_FBITS);
	case VSD_DTYPE_Q_U32:
		return numeric_format_q(buf, false, n->q32.uq32,
		    STATS_Q32_FBITS);
	case VSD_DTYPE_Q_U64:
		return numeric_format_q(buf, false, n->q64.uq64,
		    STATS_Q64_FBITS);
	default:
		return EINVAL;
	}
	return sbuf_error(buf);
}

int
numeric_json_u64(struct sbuf *buf, uint64_t v)
{
	sbuf_printf(buf, v <= INT64_MAX ? "%" PRIu64 : "\"%" PRIu64 "\"", v);
	return sbuf_error(buf);
}

int
numeric_format_json(struct sbuf *buf, enum vsd_dtype dtype,
    const struct voistatdata_numeric *n)
{
	if (dtype_valid(dtype) && !dtype_info[dtype].is_signed &&
	    !dtype_info[dtype].is_q && dtype_info[dtype].size == 8)
		return numeric_json_u64(buf, numeric_u64(dtype, n));
	return numeric_format(buf, dtype, n);
}

int
numeric_parse(const char *text, enum vsd_dtype dtype,
    struct voistatdata_numeric *n)
{
	struct voistatdata_numeric lo, hi;
	char *end;

	if (!dtype_is_scalar(dtype) || text == NULL || *text == '\0')
		return EINVAL;
	lo = numeric_limit(dtype, false);
	hi = numeric_limit(dtype, true);
	errno = 0;
	if (dtype_info[dtype].is_q) {
		unsigned fbits = (dtype == VSD_DTYPE_Q_S32 ||
		    dtype == VSD_DTYPE_Q_U32) ? STATS_Q32_FBITS :
		    STATS_Q64_FBITS;
		long double d = strtold(text, &end), scaled;

		if (end == text || *end != '\0' || d != d)
			return EINVAL;
		scaled = d * (long double)((uint64_t)1 << fbits);
		/*
		 * Compare with the raw limits, exact in long double; limits
		 * rounded through double let 2^63 and 2^64 through.
		 */
		if (errno == ERANGE ||
		    scaled < (dtype_info[dtype].is_signed ?
		    (long double)numeric_s64(dtype, &lo) : 0.0L) ||
		    scaled > (dtype_info[dtype].is_signed ?
		    (long double)numeric_s64(dtype, &hi) :
		    (long double)numeric_u64(dtype, &hi)))
			return ERANGE;
		if (dtype_info[dtype].is_signed)
			numeric_set(dtype, n, (uint64_t)(int64_t)scaled);
		else
			numeric_set(dtype, n, (uint64_t)scaled);
		return 0;
	}
	if (dtype_info[dtype].is_signed) {
		long long v = strtoll(text, &end, 0);

		if (end == text || *end != '\0')
			return EINVAL;
		if (errno == ERANGE || v < numeric_s64(dtype, &lo) ||
		    v > numeric_s64(dtype, &hi))
			return ERANGE;
		numeric_set(dtype, n, (uint64_t)v);
	} else {
		unsigned long long v;

		while (*text == ' ' || *text == '\t')
			text++;
		if (*text == '-')
			return ERANGE;
		v = strtoull(text, &end, 0);
		if (end == text || *end != '\0')
			return EINVAL;
		if (errno == ERANGE || (dtype == VSD_DTYPE_INT_U32 &&
		    v > UINT32_MAX))
			return ERANGE;
		numeric_set(dtype, n, v);
	}
	return 0;
}

/* SUM, MIN and MAX keep one scalar of the VOI's type. */

int
numeric_sum_update(struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype,
    const struct voistatdata_numeric *x, uint64_t y, bool *changed)
{
	struct voistatdata_numeric acc;
	int error;

	(void)dsz;
	(void)voi_dtype;
	numeric_load(vs_dtype, vsd, &acc);
	error = numeric_add(vs_dtype, &acc, x, y);
	if (error != 0)
		return error;
	numeric_store(vs_dtype, vsd, &acc);
	*changed = true;
	return 0;
}

static int
numeric_extreme_update(struct voistatdata *vsd, enum vsd_dtype vs_dtype,
    const struct voistatdata_numeric *x, int want, bool *changed)
{
	struct voistatdata_numeric cur;

	numeric_load(vs_dtype, vsd, &cur);
	/* Strict comparison: FreeBSD marks MAX valid only when it moves. */
	if (numeric_cmp(vs_dtype, x, &cur) == want) {
		numeric_store(vs_dtype, vsd, x);
		*changed = true;
	}
	return 0;
}

int
numeric_max_update(struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype,
    const struct voistatdata_numeric *x, uint64_t y, bool *changed)
{
	(void)dsz;
	(void)voi_dtype;
	(void)y;
	return numeric_extreme_update(vsd, vs_dtype, x, 1, changed);
}

int
numeric_min_update(struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype,
    const struct voistatdata_numeric *x, uint64_t y, bool *changed)
{
	(void)dsz;
	(void)voi_dtype;
	(void)y;
	return numeric_extreme_update(vsd, vs_dtype, x, -1, changed);
}

void
numeric_sum_reset(struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype)
{
	(void)voi_dtype;
	(void)vs_dtype;
	memset(vsd, 0, dsz);
}

void
numeric_max_reset(struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype)
{
	struct voistatdata_numeric lim = numeric_limit(vs_dtype, false);

	(void)dsz;
	(void)voi_dtype;
	numeric_store(vs_dtype, vsd, &lim);
}

void
numeric_min_reset(struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype)
{
	struct voistatdata_numeric lim = numeric_limit(vs_dtype, true);

	(void)dsz;
	(void)voi_dtype;
	numeric_store(vs_dtype, vsd, &lim);
}

int
numeric_sum_merge(struct voistatdata *dst, const struct voistatdata *src,
    uint16_t dsz, enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype)
{
	struct voistatdata_numeric d, s;
	int error;

	(void)dsz;
	(void)voi_dtype;
	/*
	 * Updates of integer sums wrap, as FreeBSD's do, but a merge that
	 * would wrap is refused: stats_blob_merge() promises EOVERFLOW.
	 */
	numeric_load(vs_dtype, dst, &d);
	numeric_load(vs_dtype, src, &s);
	error = numeric_add_exact(vs_dtype, &d, &s, 1);
	if (error == 0)
		numeric_store(vs_dtype, dst, &d);
	return error;
}

int
numeric_max_merge(struct voistatdata *dst, const struct voistatdata *src,
    uint16_t dsz, enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype)
{
	struct voistatdata_numeric s;
	bool changed;

	numeric_load(vs_dtype, src, &s);
	return numeric_max_update(dst, dsz, vs_dtype, voi_dtype, &s, 1,
	    &changed);
}

int
numeric_min_merge(struct voistatdata *dst, const struct voistatdata *src,
    uint16_t dsz, enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype)
{
	struct voistatdata_numeric s;
	bool changed;

	numeric_load(vs_dtype, src, &s);
	return numeric_min_update(dst, dsz, vs_dtype, voi_dtype, &s, 1,
	    &changed);
}

const char *
numeric_check(const struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype)
{
	(void)vsd;
	if (!dtype_is_scalar(vs_dtype))
		return "scalar statistic with a non-scalar data type";
	if (vs_dtype != voi_dtype)
		return "scalar statistic of another type than its VOI";
	if (dsz != dtype_info[vs_dtype].size)
		return "scalar statistic of the wrong size";
	return NULL;
}

int
stats_vss_numeric_hlpr(enum vsd_dtype voi_dtype, struct voistatspec *vss,
    struct vss_numeric_hlpr_info *info)
{
	struct voistatdata_numeric *iv;
	uint16_t sz;

	(void)info;
	if (vss == NULL || !dtype_is_scalar(voi_dtype))
		return EINVAL;
	if (vss->stype != VS_STYPE_SUM && vss->stype != VS_STYPE_MIN &&
	    vss->stype != VS_STYPE_MAX)
		return EINVAL;
	iv = calloc(1, sizeof(*iv));
	if (iv == NULL)
		return ENOMEM;
	/* The reset state is the initial state: 0, type max, type min. */
	sz = dtype_info[voi_dtype].size;
	if (vss->stype == VS_STYPE_SUM)
		numeric_sum_reset((struct voistatdata *)iv, sz, voi_dtype,
		    voi_dtype);
	else if (vss->stype == VS_STYPE_MIN)
		numeric_min_reset((struct voistatdata *)iv, sz, voi_dtype,
		    voi_dtype);
	else
		numeric_max_reset((struct voistatdata *)iv, sz, voi_dtype,
		    voi_dtype);
	vss->iv = (struct voistatdata *)iv;
	vss->vsdsz = sz;
	vss->vs_dtype = voi_dtype;
	return 0;
}

/* SUM, MIN and MAX take no parameters. */
static int
numeric_build(enum voi_stype stype, enum vsd_dtype voi_dtype,
    struct voistatspec *vss, uint32_t *n, uint32_t max,
    struct input_error *err)
{
	return kind_add(vss, n, max, stype,
	    (vss_hlpr_fn)stats_vss_numeric_hlpr, NULL, voi_dtype, 0, err);
}

int
numeric_sum_build(const struct kind_args *a, enum vsd_dtype voi_dtype,
    struct voistatspec *vss, uint32_t *n, uint32_t max, struct input_error *err)
{
	(void)a;
	return numeric_build(VS_STYPE_SUM, voi_dtype, vss, n, max, err);
}

int
numeric_min_build(const struct kind_args *a, enum vsd_dtype voi_dtype,
    struct voistatspec *vss, uint32_t *n, uint32_t max, struct input_error *err)
{
	(void)a;
	return numeric_build(VS_STYPE_MIN, voi_dtype, vss, n, max, err);
}

int
numeric_max_build(const struct kind_args *a, enum vsd_dtype voi_dtype,
    struct voistatspec *vss, uint32_t *n, uint32_t max, struct input_error *err)
{
	(void)a;
	return numeric_build(VS_STYPE_MAX, voi_dtype, vss, n, max, err);
}
