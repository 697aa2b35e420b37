/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_stat_defn.c: the DEFN statistic: array interval bounds (lin, log2,
 * clamping, limits), definition validity per type, the statistics each
 * type maps to, the update gate (off, out of range, arrays exempt), reset,
 * merge and validation.
 */
#include <errno.h>

#include "unit.h"
#include "blob.h"
#include "engine.h"
#include "layout.h"
#include "stat_defn.h"

static struct vsd_defn
arr(int64_t min, int64_t max, uint64_t b, uint8_t scale)
{
	struct vsd_defn d;

	stat_defn_default(&d, NULL, 0);
	d.type = DEFN_ARRAY;
	d.mode = 0;
	d.range_min = min;
	d.range_max = max;
	d.base_interval = b;
	d.scale = scale;
	return d;
}

START_TEST(array_bounds)
{
	struct vsd_defn d = arr(0, 1024, 1, DEFN_SCALE_LOG2);
	int64_t X[64];
	uint32_t n = 64;
	static const int64_t zfcp[] = { 0, 1, 2, 4, 8, 16, 32, 64, 128, 256,
	    512, 1024 };

	/* The zfcp example: 12 bounds, 13 lines. */
	ck_assert_int_eq(stat_defn_array_bounds(&d, X, &n), 0);
	ck_assert_uint_eq(n, 12);
	ck_assert_int_eq(memcmp(X, zfcp, sizeof(zfcp)), 0);
	d = arr(-10, 25, 10, DEFN_SCALE_LIN);
	n = 64;
	ck_assert_int_eq(stat_defn_array_bounds(&d, X, &n), 0);
	ck_assert_uint_eq(n, 4);
	ck_assert_int_eq(X[0], -10);
	ck_assert_int_eq(X[3], 20);
	/* log2 from a non-zero minimum: X_i = min + b·2^(i-1). */
	d = arr(100, 200, 5, DEFN_SCALE_LOG2);
	n = 64;
	ck_assert_int_eq(stat_defn_array_bounds(&d, X, &n), 0);
	ck_assert_uint_eq(n, 6);	/* 100 105 110 120 140 180 */
	ck_assert_int_eq(X[5], 180);
	/* min == max: one bound, two intervals; min > max: none. */
	d = arr(7, 7, 1, DEFN_SCALE_LIN);
	n = 64;
	ck_assert_int_eq(stat_defn_array_bounds(&d, X, &n), 0);
	ck_assert_uint_eq(n, 1);
	d = arr(8, 7, 1, DEFN_SCALE_LIN);
	ck_assert_int_eq(stat_defn_array_bounds(&d, X, &n), EINVAL);
	d = arr(0, 10, 0, DEFN_SCALE_LIN);
	ck_assert_int_eq(stat_defn_array_bounds(&d, X, &n), EINVAL);
	/* Too many intervals for a blob; too small an output. */
	d = arr(0, 1000000, 1, DEFN_SCALE_LIN);
	ck_assert_int_eq(stat_defn_array_bounds(&d, NULL, &n), EFBIG);
	d = arr(0, 100, 1, DEFN_SCALE_LIN);
	n = 4;
	ck_assert_int_eq(stat_defn_array_bounds(&d, X, &n), EOVERFLOW);
	/* Huge steps do not overflow. */
	d = arr(INT64_MIN, INT64_MAX - 1, UINT64_C(1) << 62, DEFN_SCALE_LOG2);
	n = 64;
	ck_assert_int_eq(stat_defn_array_bounds(&d, X, &n), 0);
	ck_assert_uint_eq(n, 3);	/* -2^63, -2^62, 0; then past 2^63 */
	ck_assert_int_eq(X[1], -(INT64_C(1) << 62));
	ck_assert_int_eq(X[2], 0);
}
END_TEST

START_TEST(validity)
{
	struct vsd_defn d;
	const char *attr;

	stat_defn_default(&d, "x/y", 0);
	ck_assert_ptr_null(stat_defn_valid(&d, &attr));
	ck_assert_ptr_null(attr);
	d.mode = DEFN_MODE_RANGE;
	ck_assert_ptr_nonnull(stat_defn_valid(&d, &attr));
	ck_assert_str_eq(attr, "mode");
	d.type = DEFN_HISTORY;
	d.entries_max = 10;
	d.period_us = 0;
	ck_assert_ptr_nonnull(stat_defn_valid(&d, &attr));
	ck_assert_str_eq(attr, "period");
	d.period_us = 1;
	ck_assert_ptr_null(stat_defn_valid(&d, &attr));
	d.type = DEFN_LIST;
	d.entries_max = 0;
	ck_assert_ptr_nonnull(stat_defn_valid(&d, &attr));
	ck_assert_str_eq(attr, "entries_max");
	d = arr(0, INT64_MAX, 1, DEFN_SCALE_LOG2);
	ck_assert_ptr_nonnull(stat_defn_valid(&d, &attr));
	ck_assert_str_eq(attr, "range_max");
	d.type = 9;
	ck_assert_ptr_nonnull(stat_defn_valid(&d, &attr));
	ck_assert_str_eq(attr, "type");
}
END_TEST

START_TEST(statistics_per_type)
{
	static const struct { uint8_t type, mode; int stypes[5]; } want[] = {
		{ DEFN_VALUE, DEFN_MODE_INCREMENTS, { VS_STYPE_DEFN,
		    VS_STYPE_COUNT } },
		{ DEFN_VALUE, DEFN_MODE_PRODUCTS, { VS_STYPE_DEFN,
		    VS_STYPE_SUM } },
		{ DEFN_RANGE, 0, { VS_STYPE_DEFN, VS_STYPE_COUNT, VS_STYPE_SUM,
		    VS_STYPE_MIN, VS_STYPE_MAX } },
		{ DEFN_ARRAY, 0, { VS_STYPE_DEFN, VS_STYPE_HIST } },
		{ DEFN_LIST, 0, { VS_STYPE_DEFN, VS_STYPE_LIST } },
		{ DEFN_HISTORY, DEFN_MODE_RANGE, { VS_STYPE_DEFN,
		    VS_STYPE_HISTORY } },
		{ DEFN_RAW, 0, { VS_STYPE_DEFN, VS_STYPE_RAW } },
	};
	size_t i;

	for (i = 0; i < NVSS(want); i++) {
		struct voistatspec vss[DEFN_MAX_VSS];
		uint32_t n = DEFN_MAX_VSS, k;
		struct vsd_defn d = arr(0, 100, 10, DEFN_SCALE_LIN);

		d.type = want[i].type;
		d.mode = want[i].mode;
		d.entries_max = 4;
		d.period_us = 1000;
		if (d.type != DEFN_ARRAY)
			d.base_interval = 0;
		ck_assert_int_eq(stat_defn_vss(&d, vss, &n), 0);
		for (k = 0; k < n; k++) {
			ck_assert_int_eq(vss[k].stype, want[i].stypes[k]);
			free(vss[k].iv);
		}
		ck_assert_int_eq(k < 5 ? want[i].stypes[k] : 0, 0);
	}
}
END_TEST

START_TEST(gate_reset_merge_check)
{
	struct voistatspec vss[DEFN_MAX_VSS];
	uint32_t n = DEFN_MAX_VSS, k;
	struct statsblob *e = layout_empty(), *sb, *copy;
	struct voistatdata *vsd;
	struct vsd_defn d, *dp;
	int64_t c;

	stat_defn_default(&d, NULL, 0);
	d.range_min = 0;
	d.range_max = 10;
	ck_assert_int_eq(stat_defn_vss(&d, vss, &n), 0);
	ck_assert_int_eq(layout_set_voi(e, 0, VSD_DTYPE_INT_S64, 0, n, vss,
	    &sb), 0);
	for (k = 0; k < n; k++)
		free(vss[k].iv);
	stats_voistat_fetch_dptr(sb, 0, VS_STYPE_DEFN, NULL, &vsd, NULL);
	dp = (struct vsd_defn *)vsd;
	/* Off: nothing counts, not even out of range. */
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_XY, 0, 5, 1, 0), 0);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_XY, 0, 50, 1, 0), 0);
	ck_assert_int_eq(stats_voistat_fetch_s64(sb, 0, VS_STYPE_COUNT, &c), 0);
	ck_assert_int_eq(c, 0);
	ck_assert_uint_eq(dp->hits_out_of_range, 0);
	dp->on = 1;
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_XY, 0, 0, 2, 0), 0);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_XY, 0, 10, 1, 0), 0);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_XY, 0, 11, 1, 0), 0);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_XY, 0, -1, 7, 0), 0);
	ck_assert_int_eq(stats_voistat_fetch_s64(sb, 0, VS_STYPE_COUNT, &c), 0);
	ck_assert_int_eq(c, 3);
	ck_assert_uint_eq(dp->hits_out_of_range, 2);	/* pairs, not weights */
	/* Merge adds the counts; the definition stays the destination's. */
	ck_assert_int_eq(stats_blob_clone(&copy, 0, sb, SB_CLONE_ALLOCDST), 0);
	ck_assert_int_eq(stats_blob_merge(copy, sb, 0), 0);
	stats_voistat_fetch_dptr(copy, 0, VS_STYPE_DEFN, NULL, &vsd, NULL);
	ck_assert_uint_eq(((struct vsd_defn *)vsd)->hits_out_of_range, 4);
	ck_assert_int_eq(stats_voistat_fetch_s64(copy, 0, VS_STYPE_COUNT, &c),
	    0);
	ck_assert_int_eq(c, 6);
	/* A blob reset clears the counts and dates the data; on stays. */
	ck_assert_int_eq(stats_blob_reset(sb), 0);
	ck_assert_uint_eq(dp->hits_out_of_range, 0);
	ck_assert_uint_gt(dp->data_ns, 0);
	ck_assert_uint_eq(dp->on, 1);
	ck_assert_int_eq(stats_blob_validate(sb, sb->cursz), 0);
	dp->on = 2;
	ck_assert_str_eq(stats_blob_validate_why(sb, sb->cursz),
	    "definition not valid");
	dp->on = 1;
	dp->units[sizeof(dp->units) - 1] = 'x';
	memset(dp->units, 'u', sizeof(dp->units));
	ck_assert_str_eq(stats_blob_validate_why(sb, sb->cursz),
	    "definition not valid");
	free(copy);
	free(sb);
	free(e);
}
END_TEST

/* A template's DEFN holds no times, so that its hash is its schema's
 * whenever it is registered; a blob made from it takes its birth. */
static const struct vsd_defn *
defn_of(const struct statsblob *sb)
{
	const struct statsblobv1 *b = (const struct statsblobv1 *)sb;

	return (const struct vsd_defn *)((const uint8_t *)b + blob_voistat(b,
	    &b->vois[0], VS_STYPE_DEFN)->data_off);
}

START_TEST(template_has_no_times)
{
	struct voistatspec vss[] = { STATS_VSS_DEFN("ms") };
	struct statsblob_tpl *tpl;
	const struct vsd_defn *t, *b;
	struct statsblob *sb;
	uint32_t h1;
	int id;

	id = stats_tpl_alloc("defn_times", 0);
	ck_assert_int_ge(id, 0);
	ck_assert_int_eq(stats_tpl_add_voistats((uint32_t)id, 0, "v",
	    VSD_DTYPE_INT_S64, 2, vss, 0), 0);
	ck_assert_int_eq(stats_tpl_fetch(id, &tpl), 0);
	t = defn_of(tpl->sb);
	ck_assert_uint_eq(t->data_ns, 0);
	ck_assert_uint_eq(t->started_ns, 0);
	ck_assert_uint_eq(t->stopped_ns, 0);
	h1 = tpl->mb->tplhash;
	sb = stats_blob_alloc((uint32_t)id, 0);
	ck_assert_ptr_nonnull(sb);
	b = defn_of(sb);
	ck_assert_uint_gt(b->started_ns, 0);
	ck_assert_uint_eq(b->data_ns, b->started_ns);
	ck_assert_uint_eq(b->stopped_ns, b->started_ns);
	/* The template is untouched by a blob's birth. */
	ck_assert_uint_eq(defn_of(tpl->sb)->started_ns, 0);
	ck_assert_uint_eq(tpl->mb->tplhash, h1);
	stats_blob_destroy(sb);
}
END_TEST

static Suite *
stat_defn_suite(void)
{
	Suite *s = suite_create("stat_defn");
	TCase *tc = tcase_create("defn");

	tcase_add_test(tc, array_bounds);
	tcase_add_test(tc, validity);
	tcase_add_test(tc, statistics_per_type);
	tcase_add_test(tc, gate_reset_merge_check);
	tcase_add_test(tc, template_has_no_times);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_main(stat_defn_suite());
}
