/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_stat_raw.c: the RAW statistic: records with time and serial, the
 * ring overwriting its oldest, reset restarting serials, merge by time,
 * validation and rendering.
 */
#include <errno.h>

#include "unit.h"
#include "engine.h"
#include "stat_raw.h"

static struct statsblob *
raw_blob(uint32_t entries_max)
{
	int tpl = unit_tpl("raw");
	struct statsblob *sb;

	UNIT_ADD(tpl, 0, "req", VSD_DTYPE_INT_S64, 0,
	    STATS_VSS(VS_STYPE_RAW, 0, 0, stat_raw_vss_hlpr,
	    (&(struct vss_raw_hlpr_info){ entries_max })));
	sb = stats_blob_alloc((uint32_t)tpl, 0);
	ck_assert_ptr_nonnull(sb);
	return sb;
}

static struct voistatdata *
rvsd(struct statsblob *sb)
{
	struct voistatdata *vsd;

	ck_assert_int_eq(stats_voistat_fetch_dptr(sb, 0, VS_STYPE_RAW, NULL,
	    &vsd, NULL), 0);
	return vsd;
}

struct got {
	struct raw_rec	r[8];
	unsigned	n;
};

static int
collect(const struct raw_rec *r, void *ctx)
{
	struct got *g = ctx;

	ck_assert_uint_lt(g->n, 8);
	g->r[g->n++] = *r;
	return 0;
}

static struct got
records(struct statsblob *sb)
{
	struct got g = { .n = 0 };

	ck_assert_int_eq(stat_raw_read(rvsd(sb), collect, &g), 0);
	return g;
}

START_TEST(ring_of_records)
{
	struct statsblob *sb = raw_blob(3);
	struct got g;
	int i;

	for (i = 0; i < 5; i++)
		ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_XY, 0, 10 * i - 20,
		    i + 1, 100 * (uint64_t)(i + 1)), 0);
	g = records(sb);
	/* The last three, oldest first, with serials 2..4. */
	ck_assert_uint_eq(g.n, 3);
	for (i = 0; i < 3; i++) {
		ck_assert_uint_eq(g.r[i].serial, (uint64_t)i + 2);
		ck_assert_uint_eq(g.r[i].time, 100 * ((uint64_t)i + 3));
		ck_assert_int_eq(g.r[i].x, 10 * (i + 2) - 20);
		ck_assert_uint_eq(g.r[i].y, (uint64_t)i + 3);
	}
	ck_assert_int_eq(stats_blob_reset(sb), 0);
	ck_assert_uint_eq(records(sb).n, 0);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_ABS, 0, 1, 0, 7), 0);
	g = records(sb);
	ck_assert_uint_eq(g.n, 1);
	ck_assert_uint_eq(g.r[0].serial, 0);
	ck_assert_uint_eq(g.r[0].y, 1);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(merge_by_time_and_validate)
{
	struct statsblob *a = raw_blob(3), *b;
	struct vsd_raw *r;
	struct got g;

	ck_assert_int_eq(engine_apply(a, 0, STATS_OP_XY, 0, 1, 1, 100), 0);
	ck_assert_int_eq(engine_apply(a, 0, STATS_OP_XY, 0, 3, 1, 300), 0);
	ck_assert_int_eq(stats_blob_clone(&b, 0, a, SB_CLONE_ALLOCDST), 0);
	ck_assert_int_eq(stats_blob_reset(b), 0);
	ck_assert_int_eq(engine_apply(b, 0, STATS_OP_XY, 0, 2, 1, 200), 0);
	ck_assert_int_eq(engine_apply(b, 0, STATS_OP_XY, 0, 4, 1, 400), 0);
	ck_assert_int_eq(stats_blob_merge(a, b, 0), 0);
	g = records(a);
	ck_assert_uint_eq(g.n, 3);
	ck_assert_int_eq(g.r[0].x, 2);
	ck_assert_int_eq(g.r[1].x, 3);
	ck_assert_int_eq(g.r[2].x, 4);
	r = (struct vsd_raw *)rvsd(a);
	ck_assert_uint_eq(r->serial, 4);
	ck_assert_int_eq(stats_blob_validate(a, a->cursz), 0);
	r->next = 3;
	ck_assert_str_eq(stats_blob_validate_why(a, a->cursz),
	    "raw ring indices out of range");
	r->next = 0;
	r->nrec = 4;
	ck_assert_str_eq(stats_blob_validate_why(a, a->cursz),
	    "raw ring indices out of range");
	stats_blob_destroy(a);
	stats_blob_destroy(b);
}
END_TEST

START_TEST(helper_bounds_and_render)
{
	struct voistatspec vss = { .stype = VS_STYPE_RAW };
	struct vss_raw_hlpr_info info = { 0 };
	struct statsblob *sb;
	char *txt;

	ck_assert_int_eq(stat_raw_vss_hlpr(VSD_DTYPE_INT_S64, &vss, &info),
	    EINVAL);
	info.entries_max = RAW_ENTRIES_MAX + 1;
	ck_assert_int_eq(stat_raw_vss_hlpr(VSD_DTYPE_INT_S64, &vss, &info),
	    EFBIG);
	sb = raw_blob(2);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_XY, 0, -5, 2, 42), 0);
	txt = unit_tostr(sb, SB_STRFMT_JSON, 0);
	ck_assert_ptr_nonnull(strstr(txt, "{\"errs\":0,\"entries_max\":2,"
	    "\"serial\":1,\"records\":[{\"time\":42,\"serial\":0,\"x\":-5,"
	    "\"y\":2}]}"));
	free(txt);
	stats_blob_destroy(sb);
}
END_TEST

static Suite *
raw_suite(void)
{
	Suite *s = suite_create("stat_raw");
	TCase *tc = tcase_create("raw");

	tcase_add_test(tc, ring_of_records);
	tcase_add_test(tc, merge_by_time_and_validate);
	tcase_add_test(tc, helper_bounds_and_render);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_main(raw_suite());
}
