/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_kstat2_hist.c: Solaris kstat2's four histogram types (LINEAR, LOG2,
 * LOG10, LOG10_LIN) as CRHIST64 bucket generators, checked value by value
 * against the bucket tables of kstat2_create_histogram(9F)'s examples (with
 * LOG10_LIN numbered by its ranges, as DTrace's llquantize does), plus their
 * parameter errors.
 */
#include <errno.h>

#include "kstat2_hist.h"
#include "unit.h"

struct k2 {
	struct k2hist_spec	spec;
	struct statsblob	*sb;
	uint32_t		n;
};

static void
k2_open(struct k2 *k, enum k2hist_type type, uint64_t rmin, uint64_t rmax,
    uint64_t step)
{
	struct voistatspec vss;
	int id = unit_tpl("k2");

	ck_assert_int_eq(k2hist_spec_init(&k->spec, type, rmin, rmax, step), 0);
	vss = k2hist_vss(&k->spec);
	ck_assert_int_eq(stats_tpl_add_voistats((uint32_t)id, 0, "k2",
	    VSD_DTYPE_INT_U64, 1, &vss, 0), 0);
	k->n = k->spec.nbkts;
	k2hist_spec_done(&k->spec);
	k->sb = stats_blob_alloc((uint32_t)id, 0);
	ck_assert_ptr_nonnull(k->sb);
}

static void
k2_close(struct k2 *k)
{
	stats_blob_destroy(k->sb);
}

static struct voistatdata_crhist64 *
k2_hist(struct k2 *k)
{
	struct voistatdata *vsd;

	ck_assert_int_eq(stats_voistat_fetch_dptr(k->sb, 0, VS_STYPE_HIST,
	    NULL, &vsd, NULL), 0);
	return &vsd->hist.crhist64;
}

/* The bucket v lands in, through the engine's own update. */
static int
bucket_of(struct k2 *k, uint64_t v)
{
	struct voistatdata_crhist64 *h;
	uint32_t i;
	int found = -1;

	ck_assert_int_eq(stats_blob_reset(k->sb), 0);
	ck_assert_int_eq(stats_voi_update_abs_u64(k->sb, 0, v), 0);
	h = k2_hist(k);
	ck_assert_uint_eq(h->oob, 0);	/* kstat2 histograms cover 0..max */
	for (i = 0; i < h->nbkts; i++) {
		if (h->bkts[i].cnt != 0) {
			ck_assert_int_eq(found, -1);
			found = (int)i;
		}
	}
	return found;
}

/* Every row [lo, hi] -> index, at both ends and the middle. */
struct row {
	uint64_t	lo, hi;
	int		idx;
};

static void
ck_rows(struct k2 *k, const struct row *rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t mid = rows[i].lo + (rows[i].hi - rows[i].lo) / 2;

		ck_assert_msg(bucket_of(k, rows[i].lo) == rows[i].idx,
		    "%ju in %d, want %d", (uintmax_t)rows[i].lo,
		    bucket_of(k, rows[i].lo), rows[i].idx);
		ck_assert_msg(bucket_of(k, rows[i].hi) == rows[i].idx,
		    "%ju in %d, want %d", (uintmax_t)rows[i].hi,
		    bucket_of(k, rows[i].hi), rows[i].idx);
		ck_assert_int_eq(bucket_of(k, mid), rows[i].idx);
	}
}

/* Example 1: LINEAR, range 0..1024 by 128: at most 10 buckets. */
START_TEST(linear_example_table)
{
	static const struct row rows[] = {
		{ 0, 0, 0 }, { 1, 127, 1 }, { 128, 255, 2 }, { 256, 383, 3 },
		{ 384, 511, 4 }, { 512, 639, 5 }, { 640, 767, 6 },
		{ 768, 895, 7 }, { 896, 1023, 8 }, { 1024, UINT64_MAX, 9 },
	};
	static const uint64_t want[] = { 0, 1, 128, 256, 384, 512, 640, 768,
	    896, 1024 };
	uint64_t lbs[16];
	uint32_t n = 16, i;
	struct k2 k;

	ck_assert_int_eq(k2hist_bounds(K2HIST_LINEAR, 0, 1024, 128, lbs, &n),
	    0);
	ck_assert_uint_eq(n, 10);
	for (i = 0; i < n; i++)
		ck_assert_uint_eq(lbs[i], want[i]);
	k2_open(&k, K2HIST_LINEAR, 0, 1024, 128);
	ck_assert_uint_eq(k.n, 10);
	ck_rows(&k, rows, NVSS(rows));
	k2_close(&k);
}
END_TEST

/* range_min is the upper bound of bucket 0; range_max the last's lower. */
START_TEST(linear_general_rule)
{
	static const struct row rows[] = {
		{ 0, 5, 0 }, { 6, 14, 1 }, { 15, 24, 2 }, { 25, UINT64_MAX, 3 },
	};
	struct k2 k;
	uint32_t n = 0;

	k2_open(&k, K2HIST_LINEAR, 5, 25, 10);
	ck_assert_uint_eq(k.n, 4);
	ck_rows(&k, rows, NVSS(rows));
	k2_close(&k);
	/* range_max 0: the array would grow without limit; ours is capped. */
	ck_assert_int_eq(k2hist_bounds(K2HIST_LINEAR, 0, 0, 1, NULL, &n), 0);
	ck_assert_uint_eq(n, K2HIST_LINEAR_MAXBKTS);
	ck_assert_int_eq(k2hist_bounds(K2HIST_LINEAR, 0, 1000000, 1, NULL, &n),
	    0);
	ck_assert_uint_eq(n, K2HIST_LINEAR_MAXBKTS);
	/* Steps that run off the top of the line end the histogram there. */
	ck_assert_int_eq(k2hist_bounds(K2HIST_LINEAR, UINT64_MAX - 10, 0, 100,
	    NULL, &n), 0);
	ck_assert_uint_eq(n, 2);
	k2_open(&k, K2HIST_LINEAR, 1, 0, UINT64_C(1) << 62);
	ck_assert_uint_eq(k.n, 5);
	ck_assert_int_eq(bucket_of(&k, UINT64_MAX), 4);
	ck_assert_int_eq(bucket_of(&k, 1), 0);
	ck_assert_int_eq(bucket_of(&k, 2), 1);
	k2_close(&k);
}
END_TEST

/*
 * Regression: (range_max - range_min) / stepping + 2 wrapped for a range
 * spanning the whole line, giving 2 buckets instead of the 1024 cap.
 */
START_TEST(linear_full_range_is_capped)
{
	uint32_t n = 0;

	ck_assert_int_eq(k2hist_bounds(K2HIST_LINEAR, 0, UINT64_MAX, 1, NULL,
	    &n), 0);
	ck_assert_uint_eq(n, K2HIST_LINEAR_MAXBKTS);
	ck_assert_int_eq(k2hist_bounds(K2HIST_LINEAR, 0, UINT64_MAX - 1, 1,
	    NULL, &n), 0);
	ck_assert_uint_eq(n, K2HIST_LINEAR_MAXBKTS);
}
END_TEST

/* Example 2: LOG2, exactly 65 buckets. */
START_TEST(log2_example_table)
{
	static const struct row rows[] = {
		{ 0, 0, 0 }, { 1, 1, 1 }, { 2, 3, 2 }, { 4, 7, 3 }, { 8, 15, 4 },
		{ UINT64_C(1) << 62, (UINT64_C(1) << 63) - 1, 63 },
		{ UINT64_C(1) << 63, UINT64_MAX, 64 },
	};
	struct k2 k;
	int i;

	k2_open(&k, K2HIST_LOG2, 7, 8, 9);	/* parameters ignored */
	ck_assert_uint_eq(k.n, 65);
	ck_rows(&k, rows, NVSS(rows));
	for (i = 1; i < 64; i++) {
		ck_assert_int_eq(bucket_of(&k, UINT64_C(1) << (i - 1)), i);
		ck_assert_int_eq(bucket_of(&k, (UINT64_C(1) << i) - 1), i);
	}
	k2_close(&k);
}
END_TEST

/* Example 3: LOG10, exactly 21 buckets. */
START_TEST(log10_example_table)
{
	static const struct row rows[] = {
		{ 0, 0, 0 }, { 1, 9, 1 }, { 10, 99, 2 }, { 100, 999, 3 },
		{ UINT64_C(1000000000000000000), UINT64_C(9999999999999999999),
		    19 },
		{ UINT64_C(10000000000000000000), UINT64_MAX, 20 },
	};
	struct k2 k;
	uint64_t p = 1;
	int i;

	k2_open(&k, K2HIST_LOG10, 0, 0, 0);
	ck_assert_uint_eq(k.n, 21);
	ck_rows(&k, rows, NVSS(rows));
	for (i = 1; i <= 19; i++, p *= 10) {
		ck_assert_int_eq(bucket_of(&k, p), i);
		ck_assert_int_eq(bucket_of(&k, p * 10 - 1), i);
	}
	k2_close(&k);
}
END_TEST

/*
 * Example 4: LOG10_LIN (2, 4, 5). The page's ranges are followed; its
 * numbering (19-23 for the 10^4 decade, 23 twice) is a stepping-10 relic.
 */
START_TEST(log10_lin_example_table)
{
	static const struct row rows[] = {
		{ 0, 99, 0 },
		{ 100, 199, 1 }, { 200, 399, 2 }, { 400, 599, 3 },
		{ 600, 799, 4 }, { 800, 999, 5 },
		{ 1000, 1999, 6 }, { 2000, 3999, 7 }, { 4000, 5999, 8 },
		{ 6000, 7999, 9 }, { 8000, 9999, 10 },
		{ 10000, 19999, 11 }, { 20000, 39999, 12 }, { 40000, 59999, 13 },
		{ 60000, 79999, 14 }, { 80000, 99999, 15 },
		{ 100000, UINT64_MAX, 16 },
	};
	struct k2 k;

	k2_open(&k, K2HIST_LOG10_LIN, 2, 4, 5);
	ck_assert_uint_eq(k.n, 17);
	ck_rows(&k, rows, NVSS(rows));
	k2_close(&k);
}
END_TEST

/* Stepping 10 is DTrace's llquantize(10, 2, 4, 10): 10000 is bucket 19. */
START_TEST(log10_lin_stepping_10_is_llquantize)
{
	struct k2 k;
	uint32_t n = 0;

	k2_open(&k, K2HIST_LOG10_LIN, 2, 4, 10);
	ck_assert_uint_eq(k.n, 29);
	ck_assert_int_eq(bucket_of(&k, 99), 0);
	ck_assert_int_eq(bucket_of(&k, 100), 1);
	ck_assert_int_eq(bucket_of(&k, 999), 9);
	ck_assert_int_eq(bucket_of(&k, 1000), 10);
	ck_assert_int_eq(bucket_of(&k, 10000), 19);
	ck_assert_int_eq(bucket_of(&k, 19999), 19);
	ck_assert_int_eq(bucket_of(&k, 99999), 27);
	ck_assert_int_eq(bucket_of(&k, 100000), 28);
	k2_close(&k);
	/* total = 2 + (max - min + 1) * (stepping - stepping / 10). */
	ck_assert_int_eq(k2hist_bounds(K2HIST_LOG10_LIN, 2, 4, 25, NULL, &n),
	    0);
	ck_assert_uint_eq(n, 2 + 3 * (25 - 2));
	ck_assert_int_eq(k2hist_bounds(K2HIST_LOG10_LIN, 0, 18, 10, NULL, &n),
	    0);
	ck_assert_uint_eq(n, 2 + 19 * 9);
}
END_TEST

START_TEST(parameter_errors)
{
	uint64_t lbs[4];
	uint32_t n;

	n = 0;
	ck_assert_int_eq(k2hist_bounds((enum k2hist_type)4, 0, 0, 1, NULL, &n),
	    EINVAL);
	ck_assert_int_eq(k2hist_bounds(K2HIST_LOG2, 0, 0, 0, NULL, NULL),
	    EINVAL);
	ck_assert_int_eq(k2hist_bounds(K2HIST_LINEAR, 0, 100, 0, NULL, &n),
	    EINVAL);
	ck_assert_int_eq(k2hist_bounds(K2HIST_LINEAR, 10, 5, 1, NULL, &n),
	    EINVAL);
	ck_assert_int_eq(k2hist_bounds(K2HIST_LINEAR, UINT64_MAX, 0, 1, NULL,
	    &n), EINVAL);
	ck_assert_int_eq(k2hist_bounds(K2HIST_LOG10_LIN, 2, 4, 0, NULL, &n),
	    EINVAL);
	ck_assert_int_eq(k2hist_bounds(K2HIST_LOG10_LIN, 2, 4, 3, NULL, &n),
	    EINVAL);	/* "a stepping of 3 will not be valid" */
	ck_assert_int_eq(k2hist_bounds(K2HIST_LOG10_LIN, 0, 4, 20, NULL, &n),
	    EINVAL);	/* 10 % 20 */
	ck_assert_int_eq(k2hist_bounds(K2HIST_LOG10_LIN, 4, 2, 5, NULL, &n),
	    EINVAL);
	ck_assert_int_eq(k2hist_bounds(K2HIST_LOG10_LIN, 2, 19, 5, NULL, &n),
	    EINVAL);
	ck_assert_int_eq(k2hist_bounds(K2HIST_LOG10_LIN, 18, 18, 10, NULL, &n),
	    0);
	/* Too little room: EOVERFLOW, and the count needed. */
	n = 4;
	ck_assert_int_eq(k2hist_bounds(K2HIST_LOG10, 0, 0, 0, lbs, &n),
	    EOVERFLOW);
	ck_assert_uint_eq(n, 21);
	ck_assert_uint_eq(lbs[3], 100);
	/* spec_init passes the errors on and leaves nothing allocated. */
	{
		struct k2hist_spec ks;

		ck_assert_int_eq(k2hist_spec_init(&ks, K2HIST_LOG10_LIN, 2, 4,
		    3), EINVAL);
		ck_assert_ptr_null(ks.bkts);
		ck_assert_int_eq(k2hist_spec_init(NULL, K2HIST_LOG2, 0, 0, 0),
		    EINVAL);
		k2hist_spec_done(NULL);
	}
}
END_TEST

START_TEST(type_names)
{
	ck_assert_str_eq(k2hist_type_name(K2HIST_LINEAR), "LINEAR");
	ck_assert_str_eq(k2hist_type_name(K2HIST_LOG2), "LOG2");
	ck_assert_str_eq(k2hist_type_name(K2HIST_LOG10), "LOG10");
	ck_assert_str_eq(k2hist_type_name(K2HIST_LOG10_LIN), "LOG10_LIN");
	ck_assert_ptr_null(k2hist_type_name((enum k2hist_type)4));
	ck_assert_ptr_null(k2hist_type_name((enum k2hist_type)-1));
	ck_assert_int_eq(k2hist_type_from_name("log10_lin"), K2HIST_LOG10_LIN);
	ck_assert_int_eq(k2hist_type_from_name("LINEAR"), K2HIST_LINEAR);
	ck_assert_int_eq(k2hist_type_from_name("LOG"), -EINVAL);
	ck_assert_int_eq(k2hist_type_from_name(NULL), -EINVAL);
}
END_TEST

/* The engine's quantiles and rendering work on kstat2 histograms. */
START_TEST(engine_reads_kstat2_histograms)
{
	struct k2 k;
	double q;
	char *txt;
	int i;

	k2_open(&k, K2HIST_LOG2, 0, 0, 0);
	for (i = 0; i < 100; i++)
		ck_assert_int_eq(stats_voi_update_abs_u64(k.sb, 0,
		    (uint64_t)i), 0);
	ck_assert_int_eq(stats_voistat_fetch_quantile(k.sb, 0, VS_STYPE_HIST,
	    0.5, &q), 0);
	ck_assert(q >= 32 && q < 64);
	txt = unit_tostr(k.sb, SB_STRFMT_FREEFORM, 0);
	ck_assert_ptr_nonnull(strstr(txt, "nbkts=65, oob=0"));
	ck_assert_ptr_nonnull(strstr(txt,
	    "{lb=9223372036854775808,ub=18446744073709551615,cnt=0}"));
	ck_assert_ptr_nonnull(strstr(txt, "{lb=32,ub=64,cnt=32}"));
	free(txt);
	k2_close(&k);
}
END_TEST

/*
 * Solaris creates a LOG2 histogram kstat "containing exactly 65 buckets":
 * its buckets exist, at zero, before any value is added and after a
 * reset, where stats(3) would show a statistic not yet updated as null.
 */
START_TEST(buckets_exist_from_creation)
{
	struct k2 k;
	char *txt;

	k2_open(&k, K2HIST_LOG2, 0, 0, 0);
	txt = unit_tostr(k.sb, SB_STRFMT_JSON, 0);
	ck_assert_ptr_null(strstr(txt, "\"[4]\":null"));
	ck_assert_ptr_nonnull(strstr(txt, "\"nbkts\":65,\"oob\":0,"));
	free(txt);
	ck_assert_int_eq(stats_voi_update_abs_u64(k.sb, 0, 7), 0);
	ck_assert_int_eq(stats_blob_reset(k.sb), 0);
	txt = unit_tostr(k.sb, SB_STRFMT_JSON, 0);
	ck_assert_ptr_null(strstr(txt, "\"[4]\":null"));
	ck_assert_ptr_nonnull(strstr(txt, "\"nbkts\":65,\"oob\":0,"));
	ck_assert_ptr_null(strstr(txt, "\"cnt\":1"));
	free(txt);
	k2_close(&k);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("kstat2_hist");
	TCase *tc = tcase_create("kstat2_hist");

	tcase_add_test(tc, linear_example_table);
	tcase_add_test(tc, linear_general_rule);
	tcase_add_test(tc, linear_full_range_is_capped);
	tcase_add_test(tc, log2_example_table);
	tcase_add_test(tc, log10_example_table);
	tcase_add_test(tc, log10_lin_example_table);
	tcase_add_test(tc, log10_lin_stepping_10_is_llquantize);
	tcase_add_test(tc, parameter_errors);
	tcase_add_test(tc, type_names);
	tcase_add_test(tc, engine_reads_kstat2_histograms);
	tcase_add_test(tc, buckets_exist_from_creation);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
