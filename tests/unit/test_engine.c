/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_engine.c: engine_apply() and engine_set_string(), the one entry
 * point of op.h: value conversion into each VOI type, the rules on flags,
 * weights and times, dispatch to the statistics an op concerns (COUNT,
 * LAST, SUM's SET, HIST's op), relative updates, and that the op numbering
 * is the ring record's.
 */
#include <errno.h>

#include <statsd/kstat.h>

#include "unit.h"
#include "blob.h"
#include "engine.h"
#include "ring.h"
#include "stat_scalar.h"
#include "stat_timer.h"

static struct statsblob *
blob_of(int tpl)
{
	struct statsblob *sb = stats_blob_alloc((uint32_t)tpl, 0);

	ck_assert_ptr_nonnull(sb);
	return sb;
}

START_TEST(count_sum_min_max_from_xy)
{
	int tpl = unit_tpl("eng");
	struct statsblob *sb;
	int64_t v;

	UNIT_ADD(tpl, 0, "lat", VSD_DTYPE_INT_S64, 0,
	    STATS_VSS(VS_STYPE_COUNT, 0, 0, stats_vss_count_hlpr, NULL),
	    STATS_VSS_SUM(), STATS_VSS_MIN(), STATS_VSS_MAX());
	sb = blob_of(tpl);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_XY, 0, 10, 3, 0), 0);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_ABS, 0, -4, 0, 0), 0);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_XY, 0, 7, 2, 0), 0);
	/* COUNT = 3 + 1 + 2; SUM = 30 - 4 + 14. */
	ck_assert_int_eq(stats_voistat_fetch_s64(sb, 0, VS_STYPE_COUNT, &v), 0);
	ck_assert_int_eq(v, 6);
	ck_assert_int_eq(stats_voistat_fetch_s64(sb, 0, VS_STYPE_SUM, &v), 0);
	ck_assert_int_eq(v, 40);
	ck_assert_int_eq(stats_voistat_fetch_s64(sb, 0, VS_STYPE_MIN, &v), 0);
	ck_assert_int_eq(v, -4);
	ck_assert_int_eq(stats_voistat_fetch_s64(sb, 0, VS_STYPE_MAX, &v), 0);
	ck_assert_int_eq(v, 10);
	/* A zero weight changes nothing; a negative one is refused. */
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_XY, 0, 99, 0, 0), 0);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_XY, 0, 99, -1, 0),
	    -EINVAL);
	ck_assert_int_eq(stats_voistat_fetch_s64(sb, 0, VS_STYPE_COUNT, &v), 0);
	ck_assert_int_eq(v, 6);
	/* stats(3)'s path counts too. */
	ck_assert_int_eq(stats_voi_update_abs_s64(sb, 0, 5), 0);
	ck_assert_int_eq(stats_voistat_fetch_s64(sb, 0, VS_STYPE_COUNT, &v), 0);
	ck_assert_int_eq(v, 7);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(count_of_fixed_point_counts_units)
{
	int tpl = unit_tpl("engq");
	struct statsblob *sb;
	s64q_t q;

	UNIT_ADD(tpl, 0, "q", VSD_DTYPE_Q_S64, 0,
	    STATS_VSS(VS_STYPE_COUNT, 0, 0, stats_vss_count_hlpr, NULL));
	sb = blob_of(tpl);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_XY, 0,
	    STATS_SQ64(2.5), 4, 0), 0);
	ck_assert_int_eq(stats_voistat_fetch_sq64(sb, 0, VS_STYPE_COUNT, &q), 0);
	ck_assert(q == STATS_SQ64(4.0));
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(values_must_fit_the_voi_type)
{
	int tpl = unit_tpl("engfit");
	struct statsblob *sb;
	uint32_t u;
	int32_t s;
	uint64_t u64;

	UNIT_ADD(tpl, 0, "u32", VSD_DTYPE_INT_U32, 0,
	    STATS_VSS(VS_STYPE_LAST, 0, 0, stats_vss_last_hlpr, NULL));
	UNIT_ADD(tpl, 1, "s32", VSD_DTYPE_INT_S32, 0,
	    STATS_VSS(VS_STYPE_LAST, 0, 0, stats_vss_last_hlpr, NULL));
	UNIT_ADD(tpl, 2, "u64", VSD_DTYPE_INT_U64, 0,
	    STATS_VSS(VS_STYPE_LAST, 0, 0, stats_vss_last_hlpr, NULL));
	sb = blob_of(tpl);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_SET, 0,
	    (int64_t)UINT32_MAX, 0, 0), 0);
	ck_assert_int_eq(stats_voistat_fetch_u32(sb, 0, VS_STYPE_LAST, &u), 0);
	ck_assert_uint_eq(u, UINT32_MAX);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_SET, 0,
	    (int64_t)UINT32_MAX + 1, 0, 0), -EINVAL);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_SET, 0, -1, 0, 0),
	    -EINVAL);
	ck_assert_int_eq(engine_apply(sb, 1, STATS_OP_SET, 0, INT32_MIN, 0, 0),
	    0);
	ck_assert_int_eq(stats_voistat_fetch_s32(sb, 1, VS_STYPE_LAST, &s), 0);
	ck_assert_int_eq(s, INT32_MIN);
	ck_assert_int_eq(engine_apply(sb, 1, STATS_OP_SET, 0,
	    (int64_t)INT32_MIN - 1, 0, 0), -EINVAL);
	ck_assert_int_eq(engine_apply(sb, 1, STATS_OP_SET, STATS_OPF_UNSIGNED,
	    (int64_t)INT32_MAX + 1, 0, 0), -EINVAL);
	/* A u64 past INT64_MAX travels as its bit pattern. */
	ck_assert_int_eq(engine_apply(sb, 2, STATS_OP_SET, STATS_OPF_UNSIGNED,
	    -1, 0, 0), 0);
	ck_assert_int_eq(stats_voistat_fetch_u64(sb, 2, VS_STYPE_LAST, &u64),
	    0);
	ck_assert(u64 == UINT64_MAX);
	ck_assert_int_eq(engine_apply(sb, 2, STATS_OP_SET, 0, -1, 0, 0),
	    -EINVAL);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(bad_arguments)
{
	int tpl = unit_tpl("engbad");
	struct statsblob *sb;

	UNIT_ADD(tpl, 1, "c", VSD_DTYPE_INT_S64, 0, STATS_VSS_SUM());
	sb = blob_of(tpl);
	ck_assert_int_eq(engine_apply(NULL, 1, STATS_OP_XY, 0, 1, 1, 0),
	    -EINVAL);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_XY, 0, 1, 1, 0),
	    -EINVAL);	/* vacant VOI */
	ck_assert_int_eq(engine_apply(sb, 2, STATS_OP_XY, 0, 1, 1, 0),
	    -EINVAL);
	ck_assert_int_eq(engine_apply(sb, 1, 0, 0, 1, 1, 0), -EINVAL);
	ck_assert_int_eq(engine_apply(sb, 1, STATS_OP_NUM, 0, 1, 1, 0),
	    -EINVAL);
	ck_assert_int_eq(engine_apply(sb, 1, STATS_OP_XY, 0x80, 1, 1, 0),
	    -EINVAL);
	ck_assert_int_eq(engine_apply(sb, 1, STATS_OP_XY, STATS_OPF_RUNQ, 1, 1,
	    0), -EINVAL);
	ck_assert_int_eq(engine_apply(sb, 1, STATS_OP_QENTER,
	    STATS_OPF_UNSIGNED, 0, 0, 0), -EINVAL);
	ck_assert_int_eq(engine_apply(sb, 1, STATS_OP_ABS, 0, 1, 1, 0),
	    -EINVAL);	/* ABS takes no weight */
	ck_assert_int_eq(engine_apply(sb, 1, STATS_OP_XY, 0, 1, 1,
	    (uint64_t)INT64_MAX + 1), -EINVAL);
	/* REL needs VOI state. */
	ck_assert_int_eq(engine_apply(sb, 1, STATS_OP_REL, 0, 1, 0, 0),
	    -EINVAL);
	/* No statistic of a SUM-only VOI takes a queue or timer event. */
	ck_assert_int_eq(engine_apply(sb, 1, STATS_OP_QENTER, 0, 0, 0, 5),
	    -EOPNOTSUPP);
	ck_assert_int_eq(engine_apply(sb, 1, STATS_OP_TSTART, 0, 0, 0, 5),
	    -EOPNOTSUPP);
	ck_assert_int_eq(engine_apply(sb, 1, STATS_OP_HIST, 0, 1, 1, 0),
	    -EOPNOTSUPP);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(relative_updates_and_set)
{
	int tpl = unit_tpl("engrel");
	struct statsblob *sb;
	int64_t v;

	UNIT_ADD(tpl, 0, "lvl", VSD_DTYPE_INT_S64, SB_VOI_RELUPDATE,
	    STATS_VSS_MAX(),
	    STATS_VSS(VS_STYPE_LAST, 0, 0, stats_vss_last_hlpr, NULL));
	sb = blob_of(tpl);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_REL, 0, 5, 0, 0), 0);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_REL, 0, 3, 0, 0), 0);
	ck_assert_int_eq(stats_voistat_fetch_s64(sb, 0, VS_STYPE_LAST, &v), 0);
	ck_assert_int_eq(v, 8);
	/* SET moves the value a later relative update starts from. */
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_SET, 0, 100, 0, 0), 0);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_REL, 0, -1, 0, 0), 0);
	ck_assert_int_eq(stats_voistat_fetch_s64(sb, 0, VS_STYPE_LAST, &v), 0);
	ck_assert_int_eq(v, 99);
	/* SET is not an update: MAX saw 5 and 8 and 99 only. */
	ck_assert_int_eq(stats_voistat_fetch_s64(sb, 0, VS_STYPE_MAX, &v), 0);
	ck_assert_int_eq(v, 99);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(set_writes_a_counter)
{
	int tpl = unit_tpl("engset");
	struct statsblob *sb;
	uint32_t v;

	/* An INTR counter: a u32 SUM bumped by ABS 1 and written by SET. */
	UNIT_ADD(tpl, KSTAT_INTR_HARD, "hard", VSD_DTYPE_INT_U32, 0,
	    STATS_VSS_SUM());
	sb = blob_of(tpl);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_ABS, 0, 1, 0, 0), 0);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_ABS, 0, 1, 0, 0), 0);
	ck_assert_int_eq(stats_voistat_fetch_u32(sb, 0, VS_STYPE_SUM, &v), 0);
	ck_assert_uint_eq(v, 2);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_SET, 0, 40, 0, 0), 0);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_ABS, 0, 1, 0, 0), 0);
	ck_assert_int_eq(stats_voistat_fetch_u32(sb, 0, VS_STYPE_SUM, &v), 0);
	ck_assert_uint_eq(v, 41);
	/* The counter wraps at its width, as a kstat uint_t does. */
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_SET, 0, UINT32_MAX, 0,
	    0), 0);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_ABS, 0, 1, 0, 0), 0);
	ck_assert_int_eq(stats_voistat_fetch_u32(sb, 0, VS_STYPE_SUM, &v), 0);
	ck_assert_uint_eq(v, 0);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(hist_op_reaches_only_histograms)
{
	int tpl = unit_tpl("enghist");
	struct statsblob *sb;
	struct voistatdata *vsd;
	int64_t v;

	UNIT_ADD(tpl, 0, "h", VSD_DTYPE_INT_U64, 0, STATS_VSS_SUM(),
	    STATS_VSS_CRHIST64_LIN(0, 100, 10, 0));
	sb = blob_of(tpl);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_HIST, 0, 25, 3, 0), 0);
	ck_assert_int_eq(stats_voistat_fetch_s64(sb, 0, VS_STYPE_SUM, &v),
	    EFTYPE);
	ck_assert_int_eq(stats_voistat_fetch_dptr(sb, 0, VS_STYPE_SUM, NULL,
	    &vsd, NULL), 0);
	ck_assert_int_eq(vsd->int64.u64, 0);
	ck_assert_int_eq(stats_voistat_fetch_dptr(sb, 0, VS_STYPE_HIST, NULL,
	    &vsd, NULL), 0);
	ck_assert_int_eq(vsd->hist.crhist64.bkts[2].cnt, 3);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(strings_and_chars)
{
	int tpl = unit_tpl("engstr");
	struct statsblob *sb;
	struct voistatdata *vsd;
	struct vsd_string *s;
	char *txt;

	UNIT_ADD(tpl, 0, "model", VSD_DTYPE_INT_U64, 0,
	    STATS_VSS(VS_STYPE_LAST, 0, 0, stat_string_vss_hlpr,
	    (&(struct vss_string_hlpr_info){ KSTAT_DATA_STRING, 32 })));
	UNIT_ADD(tpl, 1, "state", VSD_DTYPE_INT_U64, 0,
	    STATS_VSS(VS_STYPE_LAST, 0, 0, stat_string_vss_hlpr,
	    (&(struct vss_string_hlpr_info){ KSTAT_DATA_CHAR, 0 })));
	UNIT_ADD(tpl, 2, "n", VSD_DTYPE_INT_U64, 0, STATS_VSS_SUM());
	sb = blob_of(tpl);
	ck_assert_int_eq(engine_set_string(sb, 0, "Fast \"disk\"\n", 12), 0);
	ck_assert_int_eq(engine_set_string(sb, 1, "online", 6), 0);
	ck_assert_int_eq(engine_set_string(sb, 1, "0123456789abcdef", 16), 0);
	ck_assert_int_eq(engine_set_string(sb, 1, "0123456789abcdefX", 17),
	    -E2BIG);
	ck_assert_int_eq(engine_set_string(sb, 2, "x", 1), -EINVAL);
	/* Text is never updated by a value. */
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_XY, 0, 1, 1, 0),
	    -EOPNOTSUPP);
	ck_assert_int_eq(stats_voistat_fetch_dptr(sb, 1, VS_STYPE_LAST, NULL,
	    &vsd, NULL), 0);
	s = (struct vsd_string *)vsd;
	ck_assert_int_eq(s->len, 16);
	ck_assert_str_eq(s->s, "0123456789abcdef");
	txt = unit_tostr(sb, SB_STRFMT_JSON, SB_TOSTR_META);
	ck_assert_ptr_nonnull(strstr(txt,
	    "\"LAST\":{\"errs\":0,\"val\":\"Fast \\\"disk\\\"\\n\"}"));
	free(txt);
	ck_assert_int_eq(stats_blob_validate(sb, sb->cursz), 0);
	/* A length that overruns the capacity is caught by validation. */
	stats_voistat_fetch_dptr(sb, 0, VS_STYPE_LAST, NULL, &vsd, NULL);
	((struct vsd_string *)vsd)->len = 40;
	ck_assert_int_ne(stats_blob_validate(sb, sb->cursz), 0);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(time_is_stamped_when_zero)
{
	int tpl = unit_tpl("engtime");
	struct statsblob *sb;
	struct voistatdata *vsd;
	uint64_t before = clock_now_ns(), t;

	UNIT_ADD(tpl, 0, "t", VSD_DTYPE_INT_S64, 0,
	    STATS_VSS(VS_STYPE_TIMER, 0, 0, stat_timer_vss_hlpr, NULL));
	sb = blob_of(tpl);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_TSTART, 0, 0, 0, 0), 0);
	ck_assert_int_eq(stats_voistat_fetch_dptr(sb, 0, VS_STYPE_TIMER, NULL,
	    &vsd, NULL), 0);
	t = (uint64_t)((struct vsd_timer *)vsd)->start_time;
	ck_assert_uint_ge(t, before);
	ck_assert_uint_le(t, clock_now_ns());
	stats_blob_destroy(sb);
}
END_TEST

/*
 * engine_apply_batch() is engine_apply() record by record: random records
 * (good and bad ops, flags, weights, values at every type's edges) over
 * VOIs it takes its fast path for (integer and fixed-point counters of
 * each width and sign, with and without relative updates, fixed point's
 * sums refusing overflow) and VOIs it does not (histograms, a SUM with a
 * definition-free SET), applied both ways
 * to two blobs of one template, give the same bytes and the same number
 * of refusals.
 */
START_TEST(batch_is_apply_record_by_record)
{
	static const enum vsd_dtype types[] = {
		VSD_DTYPE_INT_S32, VSD_DTYPE_INT_U32, VSD_DTYPE_INT_S64,
		VSD_DTYPE_INT_U64, VSD_DTYPE_INT_SLONG, VSD_DTYPE_INT_ULONG,
		VSD_DTYPE_Q_S32, VSD_DTYPE_Q_U32, VSD_DTYPE_Q_S64,
		VSD_DTYPE_Q_U64,
	};
	static const int64_t edges[] = {
		0, 1, -1, INT32_MAX, INT32_MIN, (int64_t)UINT32_MAX,
		(int64_t)UINT32_MAX + 1, INT64_MAX, INT64_MIN, 12345, -777,
	};
	int tpl = unit_tpl("batch");
	struct statsblob *a, *b;
	struct ring_rec recs[512];
	uint64_t seed = 42;
	size_t i, round, refused_a, refused_b;
	uint16_t v = 0;
	char name[16];

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		snprintf(name, sizeof(name), "c%zu", i);
		ck_assert_int_eq(stats_tpl_add_voistats((uint32_t)tpl, v++,
		    name, types[i], 4, (struct voistatspec[]){
		    STATS_VSS_SUM(), STATS_VSS_MIN(), STATS_VSS_MAX(),
		    STATS_VSS(VS_STYPE_COUNT, 0, 0, stats_vss_count_hlpr,
		    NULL) }, 0), 0);
		snprintf(name, sizeof(name), "r%zu", i);
		ck_assert_int_eq(stats_tpl_add_voistats((uint32_t)tpl, v++,
		    name, types[i], 2, (struct voistatspec[]){
		    STATS_VSS_SUM(), STATS_VSS(VS_STYPE_LAST, 0, 0,
		    stats_vss_last_hlpr, NULL) }, SB_VOI_RELUPDATE), 0);
	}
	UNIT_ADD(tpl, v, "q", VSD_DTYPE_Q_S64, 0, STATS_VSS_SUM(),
	    STATS_VSS_MAX());
	v++;
	UNIT_ADD(tpl, v, "h", VSD_DTYPE_INT_U64, 0,
	    STATS_VSS_CRHIST64_LIN(0, 100, 10, 0), STATS_VSS_SUM());
	v++;
	a = blob_of(tpl);
	b = blob_of(tpl);
	memcpy(b, a, ((struct statsblobv1 *)a)->cursz);	/* same birth */
	for (round = 0; round < 200; round++) {
		refused_a = 0;
		for (i = 0; i < 512; i++) {
			uint64_t r = unit_rnd(&seed);
			struct ring_rec *rec = &recs[i];

			memset(rec, 0, sizeof(*rec));
			/* Runs of one VOI, as a drain sees them. */
			rec->voi = i > 0 && (r & 3) != 0 ? recs[i - 1].voi :
			    (uint16_t)((r >> 8) % (v + 1u));
			rec->op = (r >> 16) % 8 == 0 ? (uint8_t)((r >> 20) %
			    (STATS_OP_NUM + 1)) : (r >> 24) & 1 ?
			    STATS_OP_XY : STATS_OP_ABS;
			rec->flags = (r >> 28) % 4 == 0 ? (uint8_t)((r >> 30) &
			    7) : (r >> 33) & 1 ? STATS_OPF_UNSIGNED : 0;
			rec->x = (r >> 34) % 3 == 0 ? edges[(r >> 40) %
			    (sizeof(edges) / sizeof(edges[0]))] :
			    (int64_t)(unit_rnd(&seed) % 2000) - 1000;
			rec->y = rec->op == STATS_OP_XY ||
			    rec->op == STATS_OP_HIST ? (int64_t)((r >> 44) %
			    5) - 1 : (r >> 48) % 16 == 0;
			rec->time = 1 + ((r >> 52) % 16 == 0 ? STATS_TIME_MAX :
			    round * 512 + i);
			r = (uint64_t)-engine_apply(a, rec->voi, rec->op,
			    rec->flags, rec->x, rec->y, rec->time);
			if (r == EINVAL || r == EOPNOTSUPP)
				refused_a++;
		}
		refused_b = engine_apply_batch(b, recs, 512);
		ck_assert_uint_eq(refused_a, refused_b);
		ck_assert_mem_eq(a, b, ((struct statsblobv1 *)a)->cursz);
	}
	stats_blob_destroy(a);
	stats_blob_destroy(b);
}
END_TEST

static Suite *
engine_suite(void)
{
	Suite *s = suite_create("engine");
	TCase *tc = tcase_create("apply");

	tcase_add_test(tc, count_sum_min_max_from_xy);
	tcase_add_test(tc, count_of_fixed_point_counts_units);
	tcase_add_test(tc, values_must_fit_the_voi_type);
	tcase_add_test(tc, bad_arguments);
	tcase_add_test(tc, relative_updates_and_set);
	tcase_add_test(tc, set_writes_a_counter);
	tcase_add_test(tc, hist_op_reaches_only_histograms);
	tcase_add_test(tc, strings_and_chars);
	tcase_add_test(tc, time_is_stamped_when_zero);
	tcase_add_test(tc, batch_is_apply_record_by_record);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_main(engine_suite());
}
