/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_stat_history.c: the HISTORY statistic against hand-computed values:
 * period anchoring, gaps opened as empty periods, the ring's wrap, reads
 * that show elapsed periods without writing, each mode, reset, merge and
 * validation.
 */
#include <errno.h>

#include "unit.h"
#include "engine.h"
#include "stat_history.h"

static struct statsblob *
hist_blob(uint32_t entries_max, uint8_t mode, uint64_t period_us)
{
	int tpl = unit_tpl("history");
	struct statsblob *sb;

	UNIT_ADD(tpl, 0, "util", VSD_DTYPE_INT_S64, 0,
	    STATS_VSS(VS_STYPE_HISTORY, 0, 0, stat_history_vss_hlpr,
	    (&(struct vss_history_hlpr_info){ entries_max, mode, period_us })));
	sb = stats_blob_alloc((uint32_t)tpl, 0);
	ck_assert_ptr_nonnull(sb);
	return sb;
}

static struct voistatdata *
hvsd(struct statsblob *sb)
{
	struct voistatdata *vsd;

	ck_assert_int_eq(stats_voistat_fetch_dptr(sb, 0, VS_STYPE_HISTORY,
	    NULL, &vsd, NULL), 0);
	return vsd;
}

static void
add(struct statsblob *sb, int64_t x, int64_t y, uint64_t t)
{
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_XY, 0, x, y, t), 0);
}

struct got {
	struct history_entry	e[16];
	unsigned		n;
};

static int
collect(const struct history_entry *e, void *ctx)
{
	struct got *g = ctx;

	ck_assert_uint_lt(g->n, 16);
	g->e[g->n++] = *e;
	return 0;
}

static struct got
read_at(struct statsblob *sb, uint64_t now)
{
	struct got g = { .n = 0 };

	ck_assert_int_eq(stat_history_read(hvsd(sb), now, collect, &g), 0);
	return g;
}

START_TEST(increments_periods_and_gaps)
{
	struct statsblob *sb = hist_blob(3, HISTORY_INCREMENTS, 1);
	struct got g;

	g = read_at(sb, 1000);
	ck_assert_uint_eq(g.n, 0);		/* nothing since the reset */
	add(sb, 7, 2, 5000);			/* opens (5000, 6000] */
	add(sb, 7, 1, 5500);
	add(sb, 7, 1, 6000);			/* still the same period */
	g = read_at(sb, 6000);
	ck_assert_uint_eq(g.n, 1);
	ck_assert_uint_eq(g.e[0].end_ns, 6000);
	ck_assert_int_eq(g.e[0].total, 4);
	add(sb, 7, 1, 6001);			/* (6000, 7000] */
	add(sb, 7, 5, 9500);			/* two empty, then (9000, 10000] */
	g = read_at(sb, 10000);
	ck_assert_uint_eq(g.n, 3);		/* the ring holds 3 */
	ck_assert_uint_eq(g.e[0].end_ns, 8000);
	ck_assert_int_eq(g.e[0].total, 0);
	ck_assert_uint_eq(g.e[1].end_ns, 9000);
	ck_assert_int_eq(g.e[1].total, 0);
	ck_assert_uint_eq(g.e[2].end_ns, 10000);
	ck_assert_int_eq(g.e[2].total, 5);
	/* Reading later shows the periods since as empty... */
	g = read_at(sb, 11000);
	ck_assert_uint_eq(g.n, 3);
	ck_assert_uint_eq(g.e[0].end_ns, 9000);
	ck_assert_int_eq(g.e[1].total, 5);
	ck_assert_uint_eq(g.e[2].end_ns, 11000);
	ck_assert_int_eq(g.e[2].total, 0);
	g = read_at(sb, 99999);
	ck_assert_uint_eq(g.n, 3);
	ck_assert_uint_eq(g.e[2].end_ns, 100000);
	ck_assert_int_eq(g.e[0].total + g.e[1].total + g.e[2].total, 0);
	/* ...without writing: the stored newest period is unchanged. */
	g = read_at(sb, 0);
	ck_assert_uint_eq(g.e[2].end_ns, 10000);
	ck_assert_int_eq(g.e[2].total, 5);
	/* A long gap: at most entries_max periods are opened. */
	add(sb, 7, 1, 10000 + 1000000);
	g = read_at(sb, 0);
	ck_assert_uint_eq(g.n, 3);
	ck_assert_uint_eq(g.e[2].end_ns, 1010000);	/* t is its end */
	ck_assert_int_eq(g.e[2].total, 1);
	ck_assert_int_eq(g.e[1].total, 0);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(products_and_range)
{
	struct statsblob *p = hist_blob(4, HISTORY_PRODUCTS, 1000);
	struct statsblob *r = hist_blob(4, HISTORY_RANGE, 1000);
	struct got g;

	add(p, 512, 2, 1000000);
	add(p, -100, 1, 1500000);
	add(p, 4096, 1, 2500000);	/* next period (2000000, 3000000] */
	g = read_at(p, 0);
	ck_assert_uint_eq(g.n, 2);
	ck_assert_int_eq(g.e[0].total, 1024 - 100);
	ck_assert_int_eq(g.e[1].total, 4096);
	ck_assert_uint_eq(g.e[1].end_ns, 3000000);

	add(r, 5, 1, 1000000);
	add(r, 1, 2, 1100000);
	add(r, 9, 1, 1900000);
	add(r, 3, 1, 3200000);		/* (2000000, 3000000] stays empty */
	g = read_at(r, 0);
	ck_assert_uint_eq(g.n, 3);
	ck_assert_uint_eq(g.e[0].num, 4);
	ck_assert_int_eq(g.e[0].acc, 5 + 2 + 9);
	ck_assert_int_eq(g.e[0].min, 1);
	ck_assert_int_eq(g.e[0].max, 9);
	ck_assert_uint_eq(g.e[1].num, 0);
	ck_assert_int_eq(g.e[1].min, 0);	/* sentinels hidden */
	ck_assert_int_eq(g.e[1].max, 0);
	ck_assert_uint_eq(g.e[2].num, 1);
	ck_assert_int_eq(g.e[2].min, 3);
	ck_assert_uint_eq(g.e[2].end_ns, 4000000);
	stats_blob_destroy(p);
	stats_blob_destroy(r);
}
END_TEST

START_TEST(reset_merge_validate)
{
	struct statsblob *a = hist_blob(4, HISTORY_RANGE, 1), *b;
	struct voistatdata *vsd;
	struct vsd_history *h;
	struct got g;

	add(a, 4, 1, 1000);		/* (1000, 2000] */
	add(a, 6, 1, 2500);		/* (2000, 3000] */
	ck_assert_int_eq(stats_blob_clone(&b, 0, a, SB_CLONE_ALLOCDST), 0);
	ck_assert_int_eq(stats_blob_reset(b), 0);
	ck_assert_uint_eq(read_at(b, 99999).n, 0);
	/* b's periods are anchored elsewhere: 1800 opens (1800, 2800]. */
	add(b, 10, 2, 1800);
	add(b, -3, 1, 3500);		/* (2800, 3800] */
	ck_assert_int_eq(stats_blob_merge(a, b, 0), 0);
	g = read_at(a, 0);
	/* a advanced to 3800 → (3000, 4000] opened; entries ending 2800 go
	 * to a's (2000, 3000], 3800 to (3000, 4000]. */
	ck_assert_uint_eq(g.n, 3);
	ck_assert_uint_eq(g.e[0].num, 1);
	ck_assert_uint_eq(g.e[1].num, 3);
	ck_assert_int_eq(g.e[1].min, 6);
	ck_assert_int_eq(g.e[1].max, 10);
	ck_assert_int_eq(g.e[1].acc, 26);
	ck_assert_uint_eq(g.e[2].num, 1);
	ck_assert_int_eq(g.e[2].min, -3);
	ck_assert_uint_eq(g.e[2].end_ns, 4000);
	ck_assert_int_eq(stats_blob_validate(a, a->cursz), 0);
	stats_voistat_fetch_dptr(a, 0, VS_STYPE_HISTORY, NULL, &vsd, NULL);
	h = (struct vsd_history *)vsd;
	h->head = 4;
	ck_assert_str_eq(stats_blob_validate_why(a, a->cursz),
	    "history ring indices out of range");
	h->head = 0;
	h->mode = 7;
	ck_assert_str_eq(stats_blob_validate_why(a, a->cursz),
	    "history with an unknown mode");
	h->mode = HISTORY_RANGE;
	h->period_us = 0;
	ck_assert_str_eq(stats_blob_validate_why(a, a->cursz),
	    "history period out of range");
	stats_blob_destroy(a);
	stats_blob_destroy(b);
}
END_TEST

START_TEST(helper_bounds)
{
	struct voistatspec vss = { .stype = VS_STYPE_HISTORY };
	struct vss_history_hlpr_info info = { 10, HISTORY_NUM_MODES, 1 };

	ck_assert_int_eq(stat_history_vss_hlpr(VSD_DTYPE_INT_S64, &vss, &info),
	    EINVAL);
	info.mode = HISTORY_RANGE;
	info.period_us = 0;
	ck_assert_int_eq(stat_history_vss_hlpr(VSD_DTYPE_INT_S64, &vss, &info),
	    EINVAL);
	info.period_us = HISTORY_PERIOD_MAX + 1;
	ck_assert_int_eq(stat_history_vss_hlpr(VSD_DTYPE_INT_S64, &vss, &info),
	    EINVAL);
	info.period_us = 1;
	info.entries_max = stat_history_entries_max(HISTORY_RANGE) + 1;
	ck_assert_int_eq(stat_history_vss_hlpr(VSD_DTYPE_INT_S64, &vss, &info),
	    EFBIG);
	info.entries_max--;
	ck_assert_int_eq(stat_history_vss_hlpr(VSD_DTYPE_INT_S64, &vss, &info),
	    0);
	free(vss.iv);
	/* Other ops do not concern a history; a read of nothing is empty. */
	struct statsblob *sb = hist_blob(2, HISTORY_INCREMENTS, 1);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_QENTER, 0, 0, 0, 5),
	    -EOPNOTSUPP);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(render)
{
	struct statsblob *sb = hist_blob(2, HISTORY_INCREMENTS, 1);
	char *txt;

	add(sb, 1, 3, 1000);
	txt = unit_tostr(sb, SB_STRFMT_JSON, 0);
	ck_assert_ptr_nonnull(strstr(txt, "{\"errs\":0,\"entries_max\":2,"
	    "\"mode\":\"increments\",\"period_us\":1,\"entries\":"
	    "[{\"end_ns\":2000,\"total\":3}]}"));
	free(txt);
	stats_blob_destroy(sb);
}
END_TEST

static Suite *
history_suite(void)
{
	Suite *s = suite_create("stat_history");
	TCase *tc = tcase_create("history");

	tcase_add_test(tc, increments_periods_and_gaps);
	tcase_add_test(tc, products_and_range);
	tcase_add_test(tc, reset_merge_validate);
	tcase_add_test(tc, helper_bounds);
	tcase_add_test(tc, render);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_main(history_suite());
}
