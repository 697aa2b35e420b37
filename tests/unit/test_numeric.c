/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_numeric.c: scalar values of every VOI type: limits, comparison
 * (32-bit values ignore the pad word), weighted addition (integers wrap,
 * fixed point refuses to overflow), rendering (Q numbers exactly), parsing,
 * and the SUM/MIN/MAX operations the kind table dispatches to.
 */
#include <errno.h>
#include <limits.h>

#include "numeric.h"
#include "unit.h"

static struct voistatdata_numeric
num(uint64_t v)
{
	return stats_ctor_vsd_numeric(v);
}

static struct voistatdata_numeric
num32(uint32_t v, uint32_t pad)
{
	struct voistatdata_numeric n;

	n.int32.u32 = v;
	n.int32.pad = pad;
	return n;
}

static char *
fmt(enum vsd_dtype dtype, struct voistatdata_numeric n)
{
	struct sbuf *s = sbuf_new_auto();
	char *r;

	ck_assert_int_eq(numeric_format(s, dtype, &n), 0);
	sbuf_finish(s);
	r = strdup(sbuf_data(s));
	sbuf_delete(s);
	return r;
}

#define ck_fmt(dtype, n, want) do {					\
	char *got_ = fmt((dtype), (n));					\
	ck_assert_str_eq(got_, (want));					\
	free(got_);							\
} while (0)

START_TEST(limits_of_every_type)
{
	struct voistatdata_numeric lo, hi;

	lo = numeric_limit(VSD_DTYPE_INT_S32, false);
	hi = numeric_limit(VSD_DTYPE_INT_S32, true);
	ck_assert_int_eq(lo.int32.s32, INT32_MIN);
	ck_assert_int_eq(hi.int32.s32, INT32_MAX);
	ck_assert_uint_eq(lo.int32.pad, 0);
	hi = numeric_limit(VSD_DTYPE_INT_U32, true);
	ck_assert_uint_eq(hi.int64.u64, UINT32_MAX);
	ck_assert_uint_eq(numeric_limit(VSD_DTYPE_INT_U32, false).int64.u64, 0);
	ck_assert_int_eq(numeric_limit(VSD_DTYPE_INT_S64, false).int64.s64,
	    INT64_MIN);
	ck_assert_int_eq(numeric_limit(VSD_DTYPE_INT_S64, true).int64.s64,
	    INT64_MAX);
	ck_assert_uint_eq(numeric_limit(VSD_DTYPE_INT_U64, true).int64.u64,
	    UINT64_MAX);
	ck_assert_int_eq(numeric_limit(VSD_DTYPE_INT_SLONG, false).intlong.slong,
	    LONG_MIN);
	ck_assert_uint_eq(numeric_limit(VSD_DTYPE_INT_ULONG, true).intlong.ulong,
	    ULONG_MAX);
	ck_assert_int_eq(numeric_limit(VSD_DTYPE_Q_S32, false).q32.sq32,
	    INT32_MIN);
	ck_assert_uint_eq(numeric_limit(VSD_DTYPE_Q_U32, true).q32.uq32,
	    UINT32_MAX);
	ck_assert_int_eq(numeric_limit(VSD_DTYPE_Q_S64, true).q64.sq64,
	    INT64_MAX);
	ck_assert_uint_eq(numeric_limit(VSD_DTYPE_Q_U64, true).q64.uq64,
	    UINT64_MAX);
	/* Non-scalar types have no limits. */
	ck_assert_uint_eq(numeric_limit(VSD_DTYPE_CRHIST32, true).int64.u64, 0);
}
END_TEST

START_TEST(cmp_signed_unsigned_and_pad)
{
	struct voistatdata_numeric a, b;

	a = num((uint64_t)-1);
	b = num(1);
	ck_assert_int_eq(numeric_cmp(VSD_DTYPE_INT_S64, &a, &b), -1);
	ck_assert_int_eq(numeric_cmp(VSD_DTYPE_INT_U64, &a, &b), 1);
	ck_assert_int_eq(numeric_cmp(VSD_DTYPE_INT_SLONG, &a, &b), -1);
	ck_assert_int_eq(numeric_cmp(VSD_DTYPE_INT_ULONG, &a, &b), 1);
	ck_assert_int_eq(numeric_cmp(VSD_DTYPE_Q_S64, &a, &b), -1);
	ck_assert_int_eq(numeric_cmp(VSD_DTYPE_Q_U64, &a, &b), 1);
	ck_assert_int_eq(numeric_cmp(VSD_DTYPE_INT_S64, &b, &b), 0);
	/* 32-bit values: the pad word never takes part. */
	a = num32(0xffffffffu, 0x12345678);
	b = num32(1, 0);
	ck_assert_int_eq(numeric_cmp(VSD_DTYPE_INT_S32, &a, &b), -1);
	ck_assert_int_eq(numeric_cmp(VSD_DTYPE_INT_U32, &a, &b), 1);
	ck_assert_int_eq(numeric_cmp(VSD_DTYPE_Q_S32, &a, &b), -1);
	ck_assert_int_eq(numeric_cmp(VSD_DTYPE_Q_U32, &a, &b), 1);
	a = num32(7, 0xdeadbeef);
	b = num32(7, 0);
	ck_assert_int_eq(numeric_cmp(VSD_DTYPE_INT_U32, &a, &b), 0);
	ck_assert_int_eq(numeric_cmp(VSD_DTYPE_INT_S32, &a, &b), 0);
}
END_TEST

START_TEST(add_integers_wrap)
{
	struct voistatdata_numeric acc, x;

	acc = num32((uint32_t)INT32_MAX, 0);
	x = num32(1, 0);
	ck_assert_int_eq(numeric_add(VSD_DTYPE_INT_S32, &acc, &x, 1), 0);
	ck_assert_int_eq(acc.int32.s32, INT32_MIN);
	ck_assert_uint_eq(acc.int32.pad, 0);
	acc = num32(UINT32_MAX, 0);
	ck_assert_int_eq(numeric_add(VSD_DTYPE_INT_U32, &acc, &x, 2), 0);
	ck_assert_uint_eq(acc.int64.u64, 1);
	acc = num(UINT64_MAX);
	x = num(3);
	ck_assert_int_eq(numeric_add(VSD_DTYPE_INT_U64, &acc, &x, 1), 0);
	ck_assert_uint_eq(acc.int64.u64, 2);
	acc = num((uint64_t)INT64_MIN);
	x = num((uint64_t)-1);
	ck_assert_int_eq(numeric_add(VSD_DTYPE_INT_S64, &acc, &x, 1), 0);
	ck_assert_int_eq(acc.int64.s64, INT64_MAX);
	/* Weighted: x * y. */
	acc = num(10);
	x = num((uint64_t)-3);
	ck_assert_int_eq(numeric_add(VSD_DTYPE_INT_SLONG, &acc, &x, 4), 0);
	ck_assert_int_eq(acc.intlong.slong, -2);
	acc = num32(5, 0);
	x = num32((uint32_t)-2, 0);
	ck_assert_int_eq(numeric_add(VSD_DTYPE_INT_S32, &acc, &x, 3), 0);
	ck_assert_int_eq(acc.int32.s32, -1);
	acc = num(0);
	x = num(7);
	ck_assert_int_eq(numeric_add(VSD_DTYPE_INT_ULONG, &acc, &x,
	    UINT64_C(1) << 40), 0);
	ck_assert_uint_eq(acc.intlong.ulong, UINT64_C(7) << 40);
}
END_TEST

START_TEST(add_fixed_point_overflows)
{
	struct voistatdata_numeric acc, x;

	/* Q_S32: 1.5 + 2.25 = 3.75. */
	acc.int64.u64 = 0;
	acc.q32.sq32 = STATS_SQ32(1.5);
	x.int64.u64 = 0;
	x.q32.sq32 = STATS_SQ32(2.25);
	ck_assert_int_eq(numeric_add(VSD_DTYPE_Q_S32, &acc, &x, 1), 0);
	ck_assert_int_eq(acc.q32.sq32, STATS_SQ32(3.75));
	/* Up past the top: EOVERFLOW, value unchanged. */
	acc.q32.sq32 = INT32_MAX - 5;
	x.q32.sq32 = 6;
	ck_assert_int_eq(numeric_add(VSD_DTYPE_Q_S32, &acc, &x, 1), EOVERFLOW);
	ck_assert_int_eq(acc.q32.sq32, INT32_MAX - 5);
	x.q32.sq32 = 5;
	ck_assert_int_eq(numeric_add(VSD_DTYPE_Q_S32, &acc, &x, 1), 0);
	ck_assert_int_eq(acc.q32.sq32, INT32_MAX);
	/* Down past the bottom. */
	acc.q32.sq32 = INT32_MIN + 1;
	x.q32.sq32 = -2;
	ck_assert_int_eq(numeric_add(VSD_DTYPE_Q_S32, &acc, &x, 1), EOVERFLOW);
	ck_assert_int_eq(acc.q32.sq32, INT32_MIN + 1);
	/* Unsigned Q below zero is an overflow too. */
	acc = num32(3, 0);
	x = num32(4, 0);
	ck_assert_int_eq(numeric_add(VSD_DTYPE_Q_U32, &acc, &x, 1), 0);
	ck_assert_uint_eq(acc.q32.uq32, 7);
	acc = num32(UINT32_MAX, 0);
	x = num32(1, 0);
	ck_assert_int_eq(numeric_add(VSD_DTYPE_Q_U32, &acc, &x, 1), EOVERFLOW);
	ck_assert_uint_eq(acc.q32.uq32, UINT32_MAX);
	/* Weighted fixed point: 0.5 * 6 = 3. */
	acc = num(0);
	x = num((uint64_t)STATS_SQ64(0.5));
	ck_assert_int_eq(numeric_add(VSD_DTYPE_Q_S64, &acc, &x, 6), 0);
	ck_assert_int_eq(acc.q64.sq64, STATS_SQ64(3.0));
	acc = num((uint64_t)INT64_MAX);
	x = num(1);
	ck_assert_int_eq(numeric_add(VSD_DTYPE_Q_S64, &acc, &x, 1), EOVERFLOW);
	/* The extremes of x * y still fit the exact intermediate. */
	acc = num((uint64_t)INT64_MAX);
	x = num((uint64_t)-1);
	ck_assert_int_eq(numeric_add(VSD_DTYPE_Q_S64, &acc, &x, UINT64_MAX),
	    0);
	ck_assert_int_eq(acc.q64.sq64, INT64_MIN);
	acc = num((uint64_t)INT64_MIN);
	ck_assert_int_eq(numeric_add(VSD_DTYPE_Q_S64, &acc, &x, UINT64_MAX),
	    EOVERFLOW);
	ck_assert_int_eq(acc.q64.sq64, INT64_MIN);
	acc = num(UINT64_MAX - 1);
	x = num(1);
	ck_assert_int_eq(numeric_add(VSD_DTYPE_Q_U64, &acc, &x, 1), 0);
	ck_assert_int_eq(numeric_add(VSD_DTYPE_Q_U64, &acc, &x, 1), EOVERFLOW);
	ck_assert_uint_eq(acc.q64.uq64, UINT64_MAX);
}
END_TEST

/*
 * Regression: an unsigned 64-bit fixed-point x * y near 2^128 overflowed the
 * signed 128-bit intermediate (undefined behaviour, and a wrong verdict).
 */
START_TEST(q_u64_add_huge_weight_overflows_cleanly)
{
	struct voistatdata_numeric acc = num(5), x = num(UINT64_MAX);

	ck_assert_int_eq(numeric_add(VSD_DTYPE_Q_U64, &acc, &x, UINT64_MAX),
	    EOVERFLOW);
	ck_assert_uint_eq(acc.q64.uq64, 5);
	x = num(UINT64_C(1) << 63);
	ck_assert_int_eq(numeric_add(VSD_DTYPE_Q_U64, &acc, &x,
	    UINT64_C(1) << 63), EOVERFLOW);
	ck_assert_uint_eq(acc.q64.uq64, 5);
	acc = num(0);
	x = num(UINT64_MAX);
	ck_assert_int_eq(numeric_add(VSD_DTYPE_Q_U64, &acc, &x, 1), 0);
	ck_assert_uint_eq(acc.q64.uq64, UINT64_MAX);
}
END_TEST

START_TEST(to_double_every_type)
{
	struct voistatdata_numeric n;

	n = num32((uint32_t)-7, 0xffff);
	ck_assert_double_eq(numeric_to_double(VSD_DTYPE_INT_S32, &n), -7.0);
	ck_assert_double_eq(numeric_to_double(VSD_DTYPE_INT_U32, &n),
	    4294967289.0);
	n = num((uint64_t)-7);
	ck_assert_double_eq(numeric_to_double(VSD_DTYPE_INT_S64, &n), -7.0);
	ck_assert_double_eq(numeric_to_double(VSD_DTYPE_INT_SLONG, &n), -7.0);
	ck_assert_double_eq(numeric_to_double(VSD_DTYPE_INT_U64, &n),
	    18446744073709551609.0);
	ck_assert_double_eq(numeric_to_double(VSD_DTYPE_INT_ULONG, &n),
	    18446744073709551609.0);
	n = num32((uint32_t)STATS_SQ32(-2.5), 0);
	ck_assert_double_eq(numeric_to_double(VSD_DTYPE_Q_S32, &n), -2.5);
	n = num32(STATS_UQ32(2.5), 0);
	ck_assert_double_eq(numeric_to_double(VSD_DTYPE_Q_U32, &n), 2.5);
	n = num((uint64_t)STATS_SQ64(-0.25));
	ck_assert_double_eq(numeric_to_double(VSD_DTYPE_Q_S64, &n), -0.25);
	n = num(STATS_UQ64(1234.75));
	ck_assert_double_eq(numeric_to_double(VSD_DTYPE_Q_U64, &n), 1234.75);
	ck_assert_double_eq(numeric_to_double(VSD_DTYPE_CRHIST32, &n), 0.0);
}
END_TEST

START_TEST(load_store_widths)
{
	unsigned char mem[16];
	struct voistatdata_numeric n;

	memset(mem, 0xaa, sizeof(mem));
	n = num32(0x01020304, 0);
	numeric_store(VSD_DTYPE_INT_U32, mem, &n);
	ck_assert_uint_eq(mem[4], 0xaa);	/* 4 bytes only */
	numeric_load(VSD_DTYPE_INT_U32, mem, &n);
	ck_assert_uint_eq(n.int64.u64, 0x01020304);	/* pad cleared */
	n = num(UINT64_C(0x1122334455667788));
	numeric_store(VSD_DTYPE_INT_S64, mem + 8, &n);
	n = num(0);
	numeric_load(VSD_DTYPE_INT_S64, mem + 8, &n);
	ck_assert_uint_eq(n.int64.u64, UINT64_C(0x1122334455667788));
}
END_TEST

START_TEST(format_integers)
{
	ck_fmt(VSD_DTYPE_INT_S32, num32((uint32_t)INT32_MIN, 0xffffffff),
	    "-2147483648");
	ck_fmt(VSD_DTYPE_INT_U32, num32(UINT32_MAX, 0), "4294967295");
	ck_fmt(VSD_DTYPE_INT_S64, num((uint64_t)INT64_MIN),
	    "-9223372036854775808");
	ck_fmt(VSD_DTYPE_INT_U64, num(UINT64_MAX), "18446744073709551615");
	ck_fmt(VSD_DTYPE_INT_SLONG, num((uint64_t)-42), "-42");
	ck_fmt(VSD_DTYPE_INT_ULONG, num(42), "42");
}
END_TEST

START_TEST(format_fixed_point_exactly)
{
	struct voistatdata_numeric n;

	ck_fmt(VSD_DTYPE_Q_S32, num32((uint32_t)STATS_SQ32(12.5), 0),
	    "12.5000");
	ck_fmt(VSD_DTYPE_Q_S32, num32(1, 0), "0.0000152587890625");
	ck_fmt(VSD_DTYPE_Q_S32, num32((uint32_t)STATS_SQ32(-1.5), 0),
	    "-1.5000");
	ck_fmt(VSD_DTYPE_Q_S32, num32((uint32_t)INT32_MIN, 0), "-32768.0000");
	ck_fmt(VSD_DTYPE_Q_U32, num32(UINT32_MAX, 0),
	    "65535.9999847412109375");
	ck_fmt(VSD_DTYPE_Q_U32, num32(0, 0), "0.0000");
	ck_fmt(VSD_DTYPE_Q_S64, num((uint64_t)STATS_SQ64(-0.0625)),
	    "-0.0625");
	ck_fmt(VSD_DTYPE_Q_S64, num((uint64_t)INT64_MIN), "-2147483648.0000");
	ck_fmt(VSD_DTYPE_Q_U64, num(UINT64_MAX),
	    "4294967295.99999999976716935634613037109375");
	ck_fmt(VSD_DTYPE_Q_U64, num(STATS_UQ64(3.0)), "3.0000");
	n = num(0);
	{
		struct sbuf *s = sbuf_new_auto();

		ck_assert_int_eq(numeric_format(s, VSD_DTYPE_CRHIST32, &n),
		    EINVAL);
		ck_assert_int_eq(numeric_format(s, VSD_DTYPE_VOISTATE, &n),
		    EINVAL);
		sbuf_delete(s);
	}
}
END_TEST

START_TEST(format_reports_sbuf_error)
{
	struct sbuf sb;
	char buf[4];
	struct voistatdata_numeric n = num(123456);

	sbuf_new(&sb, buf, sizeof(buf), 0);
	ck_assert_int_eq(numeric_format(&sb, VSD_DTYPE_INT_U64, &n), ENOMEM);
	sbuf_new(&sb, buf, sizeof(buf), 0);
	n = num(STATS_UQ64(1.5));
	ck_assert_int_eq(numeric_format(&sb, VSD_DTYPE_Q_U64, &n), ENOMEM);
}
END_TEST

START_TEST(parse_integers)
{
	struct voistatdata_numeric n;

	ck_assert_int_eq(numeric_parse("-2147483648", VSD_DTYPE_INT_S32, &n),
	    0);
	ck_assert_int_eq(n.int32.s32, INT32_MIN);
	ck_assert_uint_eq(n.int32.pad, 0);
	ck_assert_int_eq(numeric_parse("2147483648", VSD_DTYPE_INT_S32, &n),
	    ERANGE);
	ck_assert_int_eq(numeric_parse("4294967295", VSD_DTYPE_INT_U32, &n), 0);
	ck_assert_uint_eq(n.int64.u64, UINT32_MAX);
	ck_assert_int_eq(numeric_parse("4294967296", VSD_DTYPE_INT_U32, &n),
	    ERANGE);
	ck_assert_int_eq(numeric_parse("-1", VSD_DTYPE_INT_U64, &n), ERANGE);
	ck_assert_int_eq(numeric_parse(" -1", VSD_DTYPE_INT_U32, &n), ERANGE);
	ck_assert_int_eq(numeric_parse("18446744073709551615",
	    VSD_DTYPE_INT_U64, &n), 0);
	ck_assert_uint_eq(n.int64.u64, UINT64_MAX);
	ck_assert_int_eq(numeric_parse("18446744073709551616",
	    VSD_DTYPE_INT_U64, &n), ERANGE);
	ck_assert_int_eq(numeric_parse("-9223372036854775809",
	    VSD_DTYPE_INT_S64, &n), ERANGE);
	ck_assert_int_eq(numeric_parse("77", VSD_DTYPE_INT_SLONG, &n), 0);
	ck_assert_int_eq(n.intlong.slong, 77);
	ck_assert_int_eq(numeric_parse("0x10", VSD_DTYPE_INT_ULONG, &n), 0);
	ck_assert_uint_eq(n.intlong.ulong, 16);
	ck_assert_int_eq(numeric_parse("12x", VSD_DTYPE_INT_S64, &n), EINVAL);
	ck_assert_int_eq(numeric_parse("x", VSD_DTYPE_INT_U64, &n), EINVAL);
	ck_assert_int_eq(numeric_parse("", VSD_DTYPE_INT_U64, &n), EINVAL);
	ck_assert_int_eq(numeric_parse(NULL, VSD_DTYPE_INT_U64, &n), EINVAL);
	ck_assert_int_eq(numeric_parse("1", VSD_DTYPE_CRHIST64, &n), EINVAL);
	ck_assert_int_eq(numeric_parse("1", VSD_DTYPE_VOISTATE, &n), EINVAL);
}
END_TEST

START_TEST(parse_fixed_point)
{
	struct voistatdata_numeric n;

	ck_assert_int_eq(numeric_parse("1.5", VSD_DTYPE_Q_S32, &n), 0);
	ck_assert_int_eq(n.q32.sq32, STATS_SQ32(1.5));
	ck_assert_int_eq(numeric_parse("-0.25", VSD_DTYPE_Q_S64, &n), 0);
	ck_assert_int_eq(n.q64.sq64, STATS_SQ64(-0.25));
	ck_assert_int_eq(numeric_parse("65535.5", VSD_DTYPE_Q_U32, &n), 0);
	ck_assert_uint_eq(n.q32.uq32, STATS_UQ32(65535.5));
	ck_assert_int_eq(numeric_parse("65536", VSD_DTYPE_Q_U32, &n), ERANGE);
	ck_assert_int_eq(numeric_parse("-0.5", VSD_DTYPE_Q_U64, &n), ERANGE);
	ck_assert_int_eq(numeric_parse("32768", VSD_DTYPE_Q_S32, &n), ERANGE);
	ck_assert_int_eq(numeric_parse("-32768", VSD_DTYPE_Q_S32, &n), 0);
	ck_assert_int_eq(n.q32.sq32, INT32_MIN);
	ck_assert_int_eq(numeric_parse("1.5z", VSD_DTYPE_Q_S32, &n), EINVAL);
	ck_assert_int_eq(numeric_parse("1e999", VSD_DTYPE_Q_S64, &n), ERANGE);
	ck_assert_int_eq(numeric_parse("inf", VSD_DTYPE_Q_U32, &n), ERANGE);
	ck_assert_int_eq(numeric_parse("nan", VSD_DTYPE_Q_S32, &n), EINVAL);
}
END_TEST

/*
 * Regression: the 64-bit fixed-point range check compared against limits
 * rounded to double, so 2^31 (Q_S64) and 2^32 (Q_U64) slipped through and
 * came back as the wrong number.
 */
START_TEST(parse_q64_limits_are_exact)
{
	struct voistatdata_numeric n;

	ck_assert_int_eq(numeric_parse("2147483648", VSD_DTYPE_Q_S64, &n),
	    ERANGE);
	ck_assert_int_eq(numeric_parse("4294967296", VSD_DTYPE_Q_U64, &n),
	    ERANGE);
	ck_assert_int_eq(numeric_parse("-2147483648", VSD_DTYPE_Q_S64, &n), 0);
	ck_assert_int_eq(n.q64.sq64, INT64_MIN);
	ck_assert_int_eq(numeric_parse("2147483647.5", VSD_DTYPE_Q_S64, &n),
	    0);
	ck_assert_int_eq(n.q64.sq64, STATS_SQ64(2147483647.5));
	ck_assert_int_eq(numeric_parse("4294967295", VSD_DTYPE_Q_U64, &n), 0);
	ck_assert_uint_eq(n.q64.uq64, STATS_UQ64(4294967295.0));
}
END_TEST

START_TEST(sum_min_max_operations)
{
	struct voistatdata vsd;
	struct voistatdata_numeric x;
	bool changed;

	memset(&vsd, 0, sizeof(vsd));
	x = num(5);
	changed = false;
	ck_assert_int_eq(numeric_sum_update(&vsd, 8, VSD_DTYPE_INT_U64,
	    VSD_DTYPE_INT_U64, &x, 3, &changed), 0);
	ck_assert(changed);
	ck_assert_uint_eq(vsd.int64.u64, 15);
	/* Adding zero still marks the sum valid, as on FreeBSD. */
	x = num(0);
	changed = false;
	numeric_sum_update(&vsd, 8, VSD_DTYPE_INT_U64, VSD_DTYPE_INT_U64, &x,
	    1, &changed);
	ck_assert(changed);
	numeric_sum_reset(&vsd, 8, VSD_DTYPE_INT_U64, VSD_DTYPE_INT_U64);
	ck_assert_uint_eq(vsd.int64.u64, 0);

	/* MAX: strict, starts at the type's minimum. */
	numeric_max_reset(&vsd, 4, VSD_DTYPE_INT_S32, VSD_DTYPE_INT_S32);
	ck_assert_int_eq(vsd.int32.s32, INT32_MIN);
	x = num32((uint32_t)INT32_MIN, 0);
	changed = false;
	numeric_max_update(&vsd, 4, VSD_DTYPE_INT_S32, VSD_DTYPE_INT_S32, &x,
	    1, &changed);
	ck_assert(!changed);
	x = num32((uint32_t)-3, 0);
	numeric_max_update(&vsd, 4, VSD_DTYPE_INT_S32, VSD_DTYPE_INT_S32, &x,
	    1, &changed);
	ck_assert(changed);
	ck_assert_int_eq(vsd.int32.s32, -3);

	/* MIN: strict, starts at the type's maximum. */
	numeric_min_reset(&vsd, 4, VSD_DTYPE_INT_U32, VSD_DTYPE_INT_U32);
	ck_assert_uint_eq(vsd.int32.u32, UINT32_MAX);
	x = num32(UINT32_MAX, 0);
	changed = false;
	numeric_min_update(&vsd, 4, VSD_DTYPE_INT_U32, VSD_DTYPE_INT_U32, &x,
	    1, &changed);
	ck_assert(!changed);
	x = num32(9, 0);
	numeric_min_update(&vsd, 4, VSD_DTYPE_INT_U32, VSD_DTYPE_INT_U32, &x,
	    1, &changed);
	ck_assert(changed);
	ck_assert_uint_eq(vsd.int32.u32, 9);
}
END_TEST

START_TEST(sum_min_max_merge)
{
	struct voistatdata d, s;

	d.int64.s64 = 10;
	s.int64.s64 = -4;
	ck_assert_int_eq(numeric_sum_merge(&d, &s, 8, VSD_DTYPE_INT_S64,
	    VSD_DTYPE_INT_S64), 0);
	ck_assert_int_eq(d.int64.s64, 6);
	ck_assert_int_eq(numeric_max_merge(&d, &s, 8, VSD_DTYPE_INT_S64,
	    VSD_DTYPE_INT_S64), 0);
	ck_assert_int_eq(d.int64.s64, 6);
	ck_assert_int_eq(numeric_min_merge(&d, &s, 8, VSD_DTYPE_INT_S64,
	    VSD_DTYPE_INT_S64), 0);
	ck_assert_int_eq(d.int64.s64, -4);
	s.int64.s64 = 100;
	ck_assert_int_eq(numeric_max_merge(&d, &s, 8, VSD_DTYPE_INT_S64,
	    VSD_DTYPE_INT_S64), 0);
	ck_assert_int_eq(d.int64.s64, 100);
	/* Fixed-point sums refuse to overflow. */
	d.q32.sq32 = INT32_MAX;
	s.q32.sq32 = 1;
	ck_assert_int_eq(numeric_sum_merge(&d, &s, 4, VSD_DTYPE_Q_S32,
	    VSD_DTYPE_Q_S32), EOVERFLOW);
	ck_assert_int_eq(d.q32.sq32, INT32_MAX);
}
END_TEST

START_TEST(check_reasons)
{
	struct voistatdata vsd;

	memset(&vsd, 0, sizeof(vsd));
	ck_assert_ptr_null(numeric_check(&vsd, 4, VSD_DTYPE_INT_U32,
	    VSD_DTYPE_INT_U32));
	ck_assert_ptr_nonnull(numeric_check(&vsd, 8, VSD_DTYPE_CRHIST32,
	    VSD_DTYPE_INT_U32));
	ck_assert_ptr_nonnull(numeric_check(&vsd, 4, VSD_DTYPE_INT_U32,
	    VSD_DTYPE_INT_S32));
	ck_assert_ptr_nonnull(numeric_check(&vsd, 8, VSD_DTYPE_INT_U32,
	    VSD_DTYPE_INT_U32));
}
END_TEST

/* JSON numbers: exact; an unsigned one past INT64_MAX as its digits. */
START_TEST(json_numbers_are_exact)
{
	struct voistatdata_numeric n;
	struct sbuf *s = sbuf_new_auto();

	numeric_json_u64(s, INT64_MAX);
	sbuf_putc(s, ' ');
	numeric_json_u64(s, (uint64_t)INT64_MAX + 1);
	sbuf_putc(s, ' ');
	n.int64.u64 = UINT64_MAX;
	numeric_format_json(s, VSD_DTYPE_INT_U64, &n);
	sbuf_putc(s, ' ');
	n.int64.s64 = -1;
	numeric_format_json(s, VSD_DTYPE_INT_S64, &n);
	sbuf_putc(s, ' ');
	n.int64.u64 = 0;
	n.int32.u32 = UINT32_MAX;
	numeric_format_json(s, VSD_DTYPE_INT_U32, &n);
	ck_assert_int_eq(sbuf_finish(s), 0);
	ck_assert_str_eq(sbuf_data(s), "9223372036854775807 "
	    "\"9223372036854775808\" \"18446744073709551615\" -1 "
	    "4294967295");
	sbuf_delete(s);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("numeric");
	TCase *tc = tcase_create("numeric");

	tcase_add_test(tc, limits_of_every_type);
	tcase_add_test(tc, cmp_signed_unsigned_and_pad);
	tcase_add_test(tc, add_integers_wrap);
	tcase_add_test(tc, add_fixed_point_overflows);
	tcase_add_test(tc, q_u64_add_huge_weight_overflows_cleanly);
	tcase_add_test(tc, to_double_every_type);
	tcase_add_test(tc, load_store_widths);
	tcase_add_test(tc, format_integers);
	tcase_add_test(tc, format_fixed_point_exactly);
	tcase_add_test(tc, format_reports_sbuf_error);
	tcase_add_test(tc, parse_integers);
	tcase_add_test(tc, parse_fixed_point);
	tcase_add_test(tc, parse_q64_limits_are_exact);
	tcase_add_test(tc, sum_min_max_operations);
	tcase_add_test(tc, sum_min_max_merge);
	tcase_add_test(tc, check_reasons);
	tcase_add_test(tc, json_numbers_are_exact);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
