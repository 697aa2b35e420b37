/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_stat_list.c: the LIST statistic against hand-computed values:
 * sums per distinct X, the descending order of hits, first come first
 * served with hits_missed counting pairs, reset, merge, validation and
 * rendering.
 */
#include <errno.h>

#include "unit.h"
#include "engine.h"
#include "stat_list.h"

static struct statsblob *
list_blob(uint32_t entries_max)
{
	int tpl = unit_tpl("list");
	struct statsblob *sb;

	UNIT_ADD(tpl, 0, "sizes", VSD_DTYPE_INT_S64, 0,
	    STATS_VSS(VS_STYPE_LIST, 0, 0, stat_list_vss_hlpr,
	    (&(struct vss_list_hlpr_info){ entries_max })));
	sb = stats_blob_alloc((uint32_t)tpl, 0);
	ck_assert_ptr_nonnull(sb);
	return sb;
}

static struct vsd_list *
lst(struct statsblob *sb)
{
	struct voistatdata *vsd;

	ck_assert_int_eq(stats_voistat_fetch_dptr(sb, 0, VS_STYPE_LIST, NULL,
	    &vsd, NULL), 0);
	return (struct vsd_list *)vsd;
}

static void
add(struct statsblob *sb, int64_t x, int64_t y)
{
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_XY, 0, x, y, 0), 0);
}

START_TEST(sums_order_and_misses)
{
	struct statsblob *sb = list_blob(3);
	struct vsd_list *l;

	add(sb, 0x1000, 1);
	add(sb, 0x2000, 1);
	add(sb, 0x5000, 2);
	l = lst(sb);
	/* 0x5000 has 2 hits and moved past both entries with 1. */
	ck_assert_uint_eq(l->nentries, 3);
	ck_assert_int_eq(l->ent[0].x.int64.s64, 0x5000);
	ck_assert_uint_eq(l->ent[0].hits, 2);
	ck_assert_int_eq(l->ent[1].x.int64.s64, 0x1000);
	ck_assert_int_eq(l->ent[2].x.int64.s64, 0x2000);
	/* Full: a new X is a miss, counted once per pair whatever Y is. */
	add(sb, 0x7000, 5);
	add(sb, 0x8000, 1);
	ck_assert_uint_eq(l->hits_missed, 2);
	ck_assert_uint_eq(l->nentries, 3);
	/* A known X still counts, and ties do not reorder. */
	add(sb, 0x2000, 1);
	ck_assert_int_eq(l->ent[0].x.int64.s64, 0x5000);
	ck_assert_int_eq(l->ent[1].x.int64.s64, 0x2000);
	ck_assert_uint_eq(l->ent[1].hits, 2);
	add(sb, 0x1000, 3);
	ck_assert_int_eq(l->ent[0].x.int64.s64, 0x1000);
	ck_assert_uint_eq(l->ent[0].hits, 4);
	ck_assert_int_eq(l->ent[1].x.int64.s64, 0x5000);
	ck_assert_int_eq(l->ent[2].x.int64.s64, 0x2000);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(negative_and_32bit_values)
{
	int tpl = unit_tpl("list32");
	struct statsblob *sb;
	struct voistatdata *vsd;
	struct vsd_list *l;

	UNIT_ADD(tpl, 0, "v", VSD_DTYPE_INT_S32, 0,
	    STATS_VSS(VS_STYPE_LIST, 0, 0, stat_list_vss_hlpr,
	    (&(struct vss_list_hlpr_info){ 4 })));
	sb = stats_blob_alloc((uint32_t)tpl, 0);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_XY, 0, -7, 1, 0), 0);
	ck_assert_int_eq(stats_voi_update_abs_s32(sb, 0, -7), 0);
	stats_voistat_fetch_dptr(sb, 0, VS_STYPE_LIST, NULL, &vsd, NULL);
	l = (struct vsd_list *)vsd;
	ck_assert_uint_eq(l->nentries, 1);
	ck_assert_uint_eq(l->ent[0].hits, 2);
	ck_assert_int_eq(l->ent[0].x.int32.s32, -7);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(reset_merge_validate)
{
	struct statsblob *a = list_blob(2), *b;
	struct vsd_list *l;

	add(a, 1, 1);
	add(a, 2, 1);
	add(a, 3, 1);	/* missed */
	ck_assert_int_eq(stats_blob_clone(&b, 0, a, SB_CLONE_ALLOCDST), 0);
	ck_assert_int_eq(stats_blob_reset(b), 0);
	ck_assert_uint_eq(lst(b)->nentries, 0);
	ck_assert_uint_eq(lst(b)->hits_missed, 0);
	add(b, 2, 5);
	add(b, 9, 1);
	/* a: {1:1, 2:1} missed 1; b: {2:5, 9:1}. Merge b into a. */
	ck_assert_int_eq(stats_blob_merge(a, b, 0), 0);
	l = lst(a);
	ck_assert_uint_eq(l->nentries, 2);
	ck_assert_int_eq(l->ent[0].x.int64.s64, 2);
	ck_assert_uint_eq(l->ent[0].hits, 6);
	ck_assert_int_eq(l->ent[1].x.int64.s64, 1);
	ck_assert_uint_eq(l->hits_missed, 2);	/* 1 + the 9 that found no room */
	ck_assert_int_eq(stats_blob_validate(a, a->cursz), 0);
	l->nentries = 3;
	ck_assert_str_eq(stats_blob_validate_why(a, a->cursz),
	    "list with more entries than entries_max");
	l->nentries = 2;
	l->entries_max = 3;
	ck_assert_str_eq(stats_blob_validate_why(a, a->cursz),
	    "list entries_max disagrees with its size");
	stats_blob_destroy(a);
	stats_blob_destroy(b);
}
END_TEST

START_TEST(helper_bounds)
{
	struct voistatspec vss = { .stype = VS_STYPE_LIST };
	struct vss_list_hlpr_info info = { 0 };

	ck_assert_int_eq(stat_list_vss_hlpr(VSD_DTYPE_INT_S64, &vss, &info),
	    EINVAL);
	info.entries_max = LIST_ENTRIES_MAX + 1;
	ck_assert_int_eq(stat_list_vss_hlpr(VSD_DTYPE_INT_S64, &vss, &info),
	    EFBIG);
	info.entries_max = LIST_ENTRIES_MAX;
	ck_assert_int_eq(stat_list_vss_hlpr(VSD_DTYPE_INT_S64, &vss, &info), 0);
	ck_assert_uint_le(vss.vsdsz, 65535 - 1024);
	free(vss.iv);
}
END_TEST

START_TEST(render)
{
	struct statsblob *sb = list_blob(4);
	char *txt;

	add(sb, 16, 2);
	add(sb, -1, 1);
	txt = unit_tostr(sb, SB_STRFMT_JSON, 0);
	ck_assert_ptr_nonnull(strstr(txt, "{\"errs\":0,\"entries_max\":4,"
	    "\"hits_missed\":0,\"entries\":[{\"x\":16,\"hits\":2},"
	    "{\"x\":-1,\"hits\":1}]}"));
	free(txt);
	stats_blob_destroy(sb);
}
END_TEST

static Suite *
list_suite(void)
{
	Suite *s = suite_create("stat_list");
	TCase *tc = tcase_create("list");

	tcase_add_test(tc, sums_order_and_misses);
	tcase_add_test(tc, negative_and_32bit_values);
	tcase_add_test(tc, reset_merge_validate);
	tcase_add_test(tc, helper_bounds);
	tcase_add_test(tc, render);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_main(list_suite());
}
