/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_stat_timer.c: the TIMER statistic against hand-computed values:
 * kstat_timer_start/stop arithmetic, a stop before its start, reset while
 * running, merge and rendering.
 */
#include <errno.h>

#include "unit.h"
#include "engine.h"
#include "stat_timer.h"

static struct statsblob *
timer_blob(void)
{
	int tpl = unit_tpl("timer");
	struct statsblob *sb;

	UNIT_ADD(tpl, 0, "flush", VSD_DTYPE_INT_S64, 0,
	    STATS_VSS(VS_STYPE_TIMER, 0, 0, stat_timer_vss_hlpr, NULL));
	sb = stats_blob_alloc((uint32_t)tpl, 0);
	ck_assert_ptr_nonnull(sb);
	return sb;
}

static struct vsd_timer *
tm(struct statsblob *sb)
{
	struct voistatdata *vsd;

	ck_assert_int_eq(stats_voistat_fetch_dptr(sb, 0, VS_STYPE_TIMER, NULL,
	    &vsd, NULL), 0);
	return (struct vsd_timer *)vsd;
}

static void
run(struct statsblob *sb, uint64_t start, uint64_t stop)
{
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_TSTART, 0, 0, 0, start),
	    0);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_TSTOP, 0, 0, 0, stop), 0);
}

START_TEST(start_stop_arithmetic)
{
	struct statsblob *sb = timer_blob();
	struct vsd_timer *t;

	run(sb, 1000, 1500);	/* 500 */
	t = tm(sb);
	ck_assert_uint_eq(t->num_events, 1);
	ck_assert_int_eq(t->elapsed_time, 500);
	ck_assert_int_eq(t->min_time, 500);
	ck_assert_int_eq(t->max_time, 500);
	ck_assert_int_eq(t->start_time, 1000);
	ck_assert_int_eq(t->stop_time, 1500);
	run(sb, 2000, 2200);	/* 200 */
	run(sb, 3000, 3900);	/* 900 */
	ck_assert_uint_eq(t->num_events, 3);
	ck_assert_int_eq(t->elapsed_time, 1600);
	ck_assert_int_eq(t->min_time, 200);
	ck_assert_int_eq(t->max_time, 900);
	ck_assert_int_eq(t->start_time, 3000);
	ck_assert_int_eq(t->stop_time, 3900);
	/* A zero-length event is the new minimum. */
	run(sb, 4000, 4000);
	ck_assert_int_eq(t->min_time, 0);
	ck_assert_uint_eq(t->num_events, 4);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(stop_before_start_is_refused)
{
	struct statsblob *sb = timer_blob();
	struct vsd_timer before;

	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_TSTART, 0, 0, 0, 5000),
	    0);
	before = *tm(sb);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_TSTOP, 0, 0, 0, 4000),
	    -ERANGE);
	ck_assert_int_eq(memcmp(&before, tm(sb), sizeof(before)), 0);
	/* Queue ops do not concern a timer; a timer op takes no weight. */
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_QENTER, 0, 0, 0, 1),
	    -EOPNOTSUPP);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_TSTOP, 0, 0, 1, 6000),
	    -EINVAL);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(reset_while_running_and_merge)
{
	struct statsblob *a = timer_blob(), *b = timer_blob();
	struct vsd_timer *t;

	run(a, 100, 400);			/* 300 */
	run(b, 200, 250);			/* 50 */
	run(b, 1000, 1700);			/* 700 */
	ck_assert_int_eq(stats_blob_merge(a, b, 0), EINVAL);	/* 2 templates */
	/* Same template: b2 from a's template. */
	struct statsblob *c;
	ck_assert_int_eq(stats_blob_clone(&c, 0, a, SB_CLONE_ALLOCDST), 0);
	run(c, 2000, 2010);			/* 10 */
	ck_assert_int_eq(stats_blob_merge(a, c, 0), 0);
	t = tm(a);
	ck_assert_uint_eq(t->num_events, 3);	/* 1 + (1 + 1) */
	ck_assert_int_eq(t->elapsed_time, 300 + 300 + 10);
	ck_assert_int_eq(t->min_time, 10);
	ck_assert_int_eq(t->max_time, 300);
	ck_assert_int_eq(t->start_time, 2000);
	ck_assert_int_eq(t->stop_time, 2010);
	/* A timer started before a reset stops against that start. */
	ck_assert_int_eq(engine_apply(a, 0, STATS_OP_TSTART, 0, 0, 0, 5000),
	    0);
	ck_assert_int_eq(stats_blob_reset(a), 0);
	ck_assert_uint_eq(t->num_events, 0);
	ck_assert_int_eq(engine_apply(a, 0, STATS_OP_TSTOP, 0, 0, 0, 5600), 0);
	ck_assert_int_eq(t->elapsed_time, 600);
	ck_assert_int_eq(t->min_time, 600);
	stats_blob_destroy(a);
	stats_blob_destroy(b);
	stats_blob_destroy(c);
}
END_TEST

START_TEST(render)
{
	struct statsblob *sb = timer_blob();
	char *txt;

	run(sb, 10, 30);
	txt = unit_tostr(sb, SB_STRFMT_FREEFORM, 0);
	ck_assert_ptr_nonnull(strstr(txt, "voistatdata: num_events=1, "
	    "elapsed_time=20, min_time=20, max_time=20, start_time=10, "
	    "stop_time=30"));
	free(txt);
	ck_assert_int_eq(stats_blob_validate(sb, sb->cursz), 0);
	stats_blob_destroy(sb);
}
END_TEST

static Suite *
timer_suite(void)
{
	Suite *s = suite_create("stat_timer");
	TCase *tc = tcase_create("timer");

	tcase_add_test(tc, start_stop_arithmetic);
	tcase_add_test(tc, stop_before_start_is_refused);
	tcase_add_test(tc, reset_while_running_and_merge);
	tcase_add_test(tc, render);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_main(timer_suite());
}
