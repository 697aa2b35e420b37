/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_stat_ioq.c: the IOQ statistic: kstat(3KSTAT)'s Riemann sums on the
 * diagram's intervals i1 to i4, each queue event of kstat_queue(9F), the
 * transfer counters, the reader's snapshot fix-up, refusals that leave the
 * data as it was, reset and merge.
 */
#include <errno.h>

#include "unit.h"
#include "blob.h"
#include "engine.h"
#include "stat_ioq.h"

static struct statsblob *
ioq_blob(void)
{
	int tpl = unit_tpl("ioq");
	struct statsblob *sb;

	UNIT_ADD(tpl, 0, "disk", VSD_DTYPE_INT_S64, 0,
	    STATS_VSS(VS_STYPE_IOQ, 0, 0, stat_ioq_vss_hlpr, NULL));
	sb = stats_blob_alloc((uint32_t)tpl, 0);
	ck_assert_ptr_nonnull(sb);
	return sb;
}

static kstat_io_t *
kio(struct statsblob *sb)
{
	struct voistatdata *vsd;

	ck_assert_int_eq(stats_voistat_fetch_dptr(sb, 0, VS_STYPE_IOQ, NULL,
	    &vsd, NULL), 0);
	return (kstat_io_t *)vsd;
}

static void
ev(struct statsblob *sb, uint8_t op, uint8_t flags, int64_t x, uint64_t t,
    int want)
{
	ck_assert_int_eq(engine_apply(sb, 0, op, flags, x, 0, t), want);
}

/*
 * kstat(3KSTAT)'s diagram: the queue holds 2 during i1 = [t0, t1), 5 during
 * i2 = [t1, t2), 4 during i3 = [t2, t3), 8 during i4 = [t3, t4), then 0.
 * With t_k = 1000 + 1000k: lentime = 2·1000 + 5·1000 + 4·1000 + 8·1000 =
 * 19000 and busy time = 4000.
 */
START_TEST(riemann_sums_of_the_seed_diagram)
{
	struct statsblob *sb = ioq_blob();
	const uint64_t t0 = 1000, t1 = 2000, t2 = 3000, t3 = 4000, t4 = 5000;
	kstat_io_t *k;
	int i;

	for (i = 0; i < 2; i++)
		ev(sb, STATS_OP_QENTER, 0, 0, t0, 0);
	k = kio(sb);
	/* Entering an empty queue only moves lastupdate. */
	ck_assert_int_eq(k->wtime, 0);
	ck_assert_int_eq(k->wlentime, 0);
	ck_assert_int_eq(k->wlastupdate, t0);
	ck_assert_uint_eq(k->wcnt, 2);
	for (i = 0; i < 3; i++)
		ev(sb, STATS_OP_QENTER, 0, 0, t1, 0);
	ck_assert_int_eq(k->wlentime, 2 * 1000);	/* i1 */
	ck_assert_int_eq(k->wtime, 1000);
	ev(sb, STATS_OP_QEXIT, 0, 0, t2, 0);
	ck_assert_int_eq(k->wlentime, 2000 + 5 * 1000);	/* i2 */
	ck_assert_int_eq(k->wtime, 2000);
	for (i = 0; i < 4; i++)
		ev(sb, STATS_OP_QENTER, 0, 0, t3, 0);
	ck_assert_int_eq(k->wlentime, 7000 + 4 * 1000);	/* i3 */
	ck_assert_int_eq(k->wtime, 3000);
	ck_assert_uint_eq(k->wcnt, 8);
	for (i = 0; i < 8; i++)
		ev(sb, STATS_OP_QEXIT, 0, 0, t4, 0);
	ck_assert_int_eq(k->wlentime, 11000 + 8 * 1000);	/* i4 */
	ck_assert_int_eq(k->wtime, 4000);
	ck_assert_uint_eq(k->wcnt, 0);
	ck_assert_int_eq(k->wlastupdate, t4);
	/* Idle time adds nothing. */
	ev(sb, STATS_OP_QENTER, 0, 0, 9000, 0);
	ck_assert_int_eq(k->wlentime, 19000);
	ck_assert_int_eq(k->wtime, 4000);
	/* The run queue was never touched. */
	ck_assert_int_eq(k->rtime, 0);
	ck_assert_int_eq(k->rlentime, 0);
	ck_assert_int_eq(k->rlastupdate, 0);
	stats_blob_destroy(sb);
}
END_TEST

/* One request's life: arrive, start service, finish with a 4 KiB read. */
START_TEST(request_life_cycle)
{
	struct statsblob *sb = ioq_blob();
	kstat_io_t *k;

	ev(sb, STATS_OP_QENTER, 0, 0, 100, 0);			/* waitq_enter */
	ev(sb, STATS_OP_QENTER, 0, 0, 150, 0);			/* a second */
	ev(sb, STATS_OP_QMOVE, 0, 0, 200, 0);			/* waitq_to_runq */
	ev(sb, STATS_OP_QEXIT, STATS_OPF_RUNQ, 4096, 500, 0);	/* runq_exit */
	k = kio(sb);
	/* Wait: 1 during [100,150), 2 during [150,200), 1 after. */
	ck_assert_int_eq(k->wlentime, 50 + 100);
	ck_assert_int_eq(k->wtime, 100);
	ck_assert_uint_eq(k->wcnt, 1);
	ck_assert_int_eq(k->wlastupdate, 200);
	/* Run: 1 during [200,500). */
	ck_assert_int_eq(k->rlentime, 300);
	ck_assert_int_eq(k->rtime, 300);
	ck_assert_uint_eq(k->rcnt, 0);
	ck_assert_int_eq(k->rlastupdate, 500);
	ck_assert_uint_eq(k->reads, 1);
	ck_assert_uint_eq(k->nread, 4096);
	ck_assert_uint_eq(k->writes, 0);
	/* A write finishing: negative X. */
	ev(sb, STATS_OP_QMOVE, 0, 0, 600, 0);
	ev(sb, STATS_OP_QEXIT, STATS_OPF_RUNQ, -512, 700, 0);
	ck_assert_uint_eq(k->writes, 1);
	ck_assert_uint_eq(k->nwritten, 512);
	ck_assert_int_eq(k->wlentime, 150 + 400);
	ck_assert_int_eq(k->rtime, 400);
	/* runq_back_to_waitq: one timestamp, run then wait. */
	ev(sb, STATS_OP_QENTER, STATS_OPF_RUNQ, 0, 800, 0);
	ev(sb, STATS_OP_QMOVE, STATS_OPF_RUNQ, 0, 900, 0);
	ck_assert_uint_eq(k->rcnt, 0);
	ck_assert_uint_eq(k->wcnt, 1);
	ck_assert_int_eq(k->rtime, 500);
	ck_assert_int_eq(k->wlastupdate, 900);
	/* (X, Y) updates count transfers without queue events. */
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_XY, 0, 8192, 2, 0), 0);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_ABS, 0, -100, 0, 0), 0);
	ck_assert_uint_eq(k->reads, 3);
	ck_assert_uint_eq(k->nread, 4096 + 8192);
	ck_assert_uint_eq(k->writes, 2);
	ck_assert_uint_eq(k->nwritten, 612);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(refusals_leave_data_unchanged)
{
	struct statsblob *sb = ioq_blob();
	kstat_io_t before;

	ev(sb, STATS_OP_QEXIT, 0, 0, 10, -ERANGE);
	ev(sb, STATS_OP_QEXIT, STATS_OPF_RUNQ, 0, 10, -ERANGE);
	ev(sb, STATS_OP_QMOVE, 0, 0, 10, -ERANGE);
	ev(sb, STATS_OP_QMOVE, STATS_OPF_RUNQ, 0, 10, -ERANGE);
	before = *kio(sb);
	ck_assert_int_eq(memcmp(&before, &(kstat_io_t){ 0 }, sizeof(before)),
	    0);
	/* Timer ops do not concern an I/O statistic. */
	ev(sb, STATS_OP_TSTART, 0, 0, 10, -EOPNOTSUPP);
	/* An event dated before the last change counts as at that change. */
	ev(sb, STATS_OP_QENTER, 0, 0, 1000, 0);
	ev(sb, STATS_OP_QENTER, 0, 0, 900, 0);
	ck_assert_int_eq(kio(sb)->wlentime, 0);
	ck_assert_int_eq(kio(sb)->wlastupdate, 1000);
	ev(sb, STATS_OP_QEXIT, 0, 0, 1100, 0);
	ck_assert_int_eq(kio(sb)->wlentime, 200);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(errors_are_counted)
{
	struct statsblob *sb = ioq_blob();
	char *txt;

	ev(sb, STATS_OP_QEXIT, 0, 0, 10, -ERANGE);
	ev(sb, STATS_OP_QEXIT, 0, 0, 11, -ERANGE);
	txt = unit_tostr(sb, SB_STRFMT_FREEFORM, 0);
	ck_assert_ptr_nonnull(strstr(txt, "stype=IOQ, errs=2"));
	free(txt);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(snapshot_fixup)
{
	struct statsblob *sb = ioq_blob();
	kstat_io_t snap, *k;

	ev(sb, STATS_OP_QENTER, 0, 0, 100, 0);
	ev(sb, STATS_OP_QENTER, 0, 0, 100, 0);
	ev(sb, STATS_OP_QMOVE, 0, 0, 300, 0);
	k = kio(sb);
	/* At 1000: wait held 2 for 200 then 1 for 700; run 1 for 700. */
	stat_ioq_snapshot(k, 1000, &snap);
	ck_assert_int_eq(snap.wlentime, 400 + 700);
	ck_assert_int_eq(snap.wtime, 900);
	ck_assert_int_eq(snap.wlastupdate, 1000);
	ck_assert_int_eq(snap.rlentime, 700);
	ck_assert_int_eq(snap.rtime, 700);
	ck_assert_int_eq(snap.rlastupdate, 1000);
	/* The source is untouched. */
	ck_assert_int_eq(k->wlentime, 400);
	ck_assert_int_eq(k->rlastupdate, 300);
	/* An empty queue gets nothing added, and time never runs back. */
	ev(sb, STATS_OP_QEXIT, 0, 0, 400, 0);
	ev(sb, STATS_OP_QEXIT, STATS_OPF_RUNQ, 0, 400, 0);
	stat_ioq_snapshot(k, 2000, &snap);
	ck_assert_int_eq(snap.wlentime, k->wlentime);
	ck_assert_int_eq(snap.rtime, k->rtime);
	stat_ioq_snapshot(k, 50, &snap);
	ck_assert_int_eq(snap.wlastupdate, 400);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(reset_keeps_queue_state_and_merge_adds)
{
	struct statsblob *a = ioq_blob(), *b;
	kstat_io_t *k;

	ev(a, STATS_OP_QENTER, 0, 0, 100, 0);
	ev(a, STATS_OP_QENTER, 0, 0, 200, 0);
	ck_assert_int_eq(engine_apply(a, 0, STATS_OP_XY, 0, 10, 1, 0), 0);
	ck_assert_int_eq(stats_blob_clone(&b, 0, a, SB_CLONE_ALLOCDST), 0);
	ck_assert_int_eq(stats_blob_merge(b, a, 0), 0);
	k = kio(b);
	ck_assert_uint_eq(k->wcnt, 4);
	ck_assert_int_eq(k->wlentime, 200);
	ck_assert_uint_eq(k->reads, 2);
	ck_assert_uint_eq(k->nread, 20);
	ck_assert_int_eq(k->wlastupdate, 200);
	ck_assert_int_eq(stats_blob_reset(a), 0);
	k = kio(a);
	ck_assert_uint_eq(k->wcnt, 2);
	ck_assert_int_eq(k->wlastupdate, 200);
	ck_assert_int_eq(k->wlentime, 0);
	ck_assert_uint_eq(k->reads, 0);
	/* Requests still queued leave normally after the reset. */
	ev(a, STATS_OP_QEXIT, 0, 0, 300, 0);
	ck_assert_int_eq(k->wlentime, 200);
	ck_assert_int_eq(stats_blob_validate(a, a->cursz), 0);
	stats_blob_destroy(a);
	stats_blob_destroy(b);
}
END_TEST

START_TEST(render_fields)
{
	struct statsblob *sb = ioq_blob();
	char *txt;

	ev(sb, STATS_OP_QENTER, 0, 0, 100, 0);
	txt = unit_tostr(sb, SB_STRFMT_JSON, 0);
	ck_assert_ptr_nonnull(strstr(txt, "{\"errs\":0,\"nread\":0,\"nwritten\":0,"
	    "\"reads\":0,\"writes\":0,\"wtime\":0,\"wlentime\":0,"
	    "\"wlastupdate\":100,\"rtime\":0,\"rlentime\":0,\"rlastupdate\":0,"
	    "\"wcnt\":1,\"rcnt\":0}"));
	free(txt);
	stats_blob_destroy(sb);
}
END_TEST

static Suite *
ioq_suite(void)
{
	Suite *s = suite_create("stat_ioq");
	TCase *tc = tcase_create("ioq");

	tcase_add_test(tc, riemann_sums_of_the_seed_diagram);
	tcase_add_test(tc, request_life_cycle);
	tcase_add_test(tc, refusals_leave_data_unchanged);
	tcase_add_test(tc, errors_are_counted);
	tcase_add_test(tc, snapshot_fixup);
	tcase_add_test(tc, reset_keeps_queue_state_and_merge_adds);
	tcase_add_test(tc, render_fields);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_main(ioq_suite());
}
