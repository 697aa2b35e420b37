/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_spill.c: spill buffers (spill.h), end to end in one process: a
 * producer on a tiny ring spills, hands buffers over and goes on; a
 * consumer drains the ring and merges what was handed over the way statsd
 * does. For every kind the result is the same as applying every update in
 * order (the t-digest within its bounds); the overflow area, once
 * exhausted, drops and counts exactly; a hand-over taken twice is merged
 * once; hostile buffers and blobs are refused without harm.
 */
#include <errno.h>
#include <math.h>

#include "unit.h"
#include "blob.h"
#include "engine.h"
#include "ring.h"
#include "spill.h"
#include "stat_history.h"
#include "stat_ioq.h"
#include "stat_list.h"
#include "stat_raw.h"
#include "stat_scalar.h"
#include "stat_timer.h"

enum {
	V_SUM, V_HIST, V_TDGST, V_LAST, V_LIST, V_HISTORY, V_RAW, V_IOQ,
	V_TIMER, V_REL, NV
};

static int
kinds_tpl(void)
{
	int tpl = unit_tpl("spill");

	UNIT_ADD(tpl, V_SUM, "sum", VSD_DTYPE_INT_U64, 0, STATS_VSS_SUM(),
	    STATS_VSS_MIN(), STATS_VSS_MAX(),
	    STATS_VSS(VS_STYPE_COUNT, 0, 0, stats_vss_count_hlpr, NULL));
	UNIT_ADD(tpl, V_HIST, "hist", VSD_DTYPE_INT_S64, 0,
	    STATS_VSS_CRHIST64_LIN(0, 1000, 100, 0), STATS_VSS_SUM());
	UNIT_ADD(tpl, V_TDGST, "tdgst", VSD_DTYPE_INT_U64, 0,
	    STATS_VSS_TDGSTCLUST64(40, 4));
	UNIT_ADD(tpl, V_LAST, "last", VSD_DTYPE_INT_S64, 0,
	    STATS_VSS(VS_STYPE_LAST, 0, 0, stats_vss_last_hlpr, NULL));
	UNIT_ADD(tpl, V_LIST, "list", VSD_DTYPE_INT_S64, 0,
	    STATS_VSS(VS_STYPE_LIST, 0, 0, stat_list_vss_hlpr,
	    (&(struct vss_list_hlpr_info){ 8 })));
	UNIT_ADD(tpl, V_HISTORY, "history", VSD_DTYPE_INT_S64, 0,
	    STATS_VSS(VS_STYPE_HISTORY, 0, 0, stat_history_vss_hlpr,
	    (&(struct vss_history_hlpr_info){ 16, HISTORY_RANGE, 50 })));
	UNIT_ADD(tpl, V_RAW, "raw", VSD_DTYPE_INT_S64, 0,
	    STATS_VSS(VS_STYPE_RAW, 0, 0, stat_raw_vss_hlpr,
	    (&(struct vss_raw_hlpr_info){ 16 })));
	UNIT_ADD(tpl, V_IOQ, "ioq", VSD_DTYPE_INT_S64, 0,
	    STATS_VSS(VS_STYPE_IOQ, 0, 0, stat_ioq_vss_hlpr, NULL));
	UNIT_ADD(tpl, V_TIMER, "timer", VSD_DTYPE_INT_S64, 0,
	    STATS_VSS(VS_STYPE_TIMER, 0, 0, stat_timer_vss_hlpr, NULL));
	UNIT_ADD(tpl, V_REL, "rel", VSD_DTYPE_INT_S64, SB_VOI_RELUPDATE,
	    STATS_VSS_SUM(), STATS_VSS_MAX(),
	    STATS_VSS(VS_STYPE_LAST, 0, 0, stats_vss_last_hlpr, NULL));
	return tpl;
}

/* A random update of kind-VOI v at time t: ops each kind takes. */
static struct ring_rec
gen(uint64_t *seed, uint32_t handle, uint64_t t)
{
	uint64_t r = unit_rnd(seed);
	struct ring_rec rec = { .handle = handle, .time = t };
	int64_t x = (int64_t)(unit_rnd(seed) % 1000);

	rec.voi = (uint16_t)(r % NV);
	r >>= 8;
	switch (rec.voi) {
	case V_SUM:
	case V_TDGST:
		rec.op = r & 1 ? STATS_OP_XY : STATS_OP_ABS;
		rec.flags = STATS_OPF_UNSIGNED;
		break;
	case V_HIST:
		rec.op = r % 3 == 0 ? STATS_OP_HIST : r % 3 == 1 ?
		    STATS_OP_XY : STATS_OP_ABS;
		break;
	case V_LAST:
		rec.op = r & 1 ? STATS_OP_SET : STATS_OP_ABS;
		break;
	case V_LIST:
		rec.op = r & 1 ? STATS_OP_XY : STATS_OP_ABS;
		x %= 12;	/* more distinct X than entries */
		break;
	case V_HISTORY:
	case V_RAW:
		rec.op = r & 1 ? STATS_OP_XY : STATS_OP_ABS;
		break;
	case V_IOQ:
		rec.op = (uint8_t[]){ STATS_OP_QENTER, STATS_OP_QEXIT,
		    STATS_OP_QMOVE, STATS_OP_XY }[r % 4];
		rec.flags = rec.op != STATS_OP_XY && (r >> 2) & 1 ?
		    STATS_OPF_RUNQ : 0;
		if (rec.op != STATS_OP_XY && !(rec.op == STATS_OP_QEXIT &&
		    rec.flags))
			x = 0;
		break;
	case V_TIMER:
		rec.op = r & 1 ? STATS_OP_TSTART : STATS_OP_TSTOP;
		x = 0;
		break;
	default:
		rec.op = r % 3 == 0 ? STATS_OP_ABS : STATS_OP_REL;
		x -= 500;
		break;
	}
	rec.x = x;
	if (rec.op == STATS_OP_XY || rec.op == STATS_OP_HIST)
		rec.y = 1 + (int64_t)((r >> 4) % 3);
	return rec;
}

/* What statsd does, in miniature: the ring's records and the spill
 * buffers they hand over, applied to blobs[handle]. */
struct mini {
	struct ring_consumer	*c;
	struct statsblob	**blobs;
	uint32_t		 nblobs;
	uint8_t			*copy;
	void			*scratch;
	uint64_t		 merged, logged, refused, handovers;
};

static void
mini_apply(struct mini *m, const struct ring_rec *rec)
{
	if (rec->handle == 0 || rec->handle > m->nblobs || ring_rec_check(rec) ||
	    rec->op == RING_OP_SPILL) {
		m->refused++;
		return;
	}
	m->refused += engine_apply_batch(m->blobs[rec->handle - 1], rec, 1);
}

static void
mini_spill(struct mini *m, const struct ring_rec *rec)
{
	struct ring_ovf_hdr h;
	struct ring_ovf_ent e;
	const uint8_t *pl;
	const char *why;
	size_t off = 0;
	uint64_t i;
	int r;

	r = ring_consumer_ovf_copy(m->c, rec, m->copy,
	    ring_consumer_ovf_size(m->c) / 2, &h);
	if (r == -EALREADY || r == -ESTALE)
		return;
	ck_assert_int_eq(r, 0);
	m->handovers++;
	while ((r = ring_ovf_next(m->copy, h.used, &off, &e, &pl)) == 1) {
		if (e.type == RING_OVF_BLOB) {
			ck_assert_uint_ge(e.handle, 1);
			ck_assert_uint_le(e.handle, m->nblobs);
			ck_assert_int_eq(spill_merge(m->blobs[e.handle - 1], pl,
			    e.len, m->scratch, &why), 0);
			m->merged += e.nupd;
			continue;
		}
		for (i = 0; i < e.len / RING_REC_SIZE; i++) {
			struct ring_rec lr;

			memcpy(&lr, pl + i * RING_REC_SIZE, sizeof(lr));
			mini_apply(m, &lr);
			m->logged++;
		}
	}
	ck_assert_int_eq(r, 0);
	ring_consumer_ovf_release(m->c, rec);
}

static unsigned
mini_batch(void *arg, const struct ring_rec *recs, unsigned n)
{
	struct mini *m = arg;
	unsigned i;

	for (i = 0; i < n; i++) {
		if (recs[i].op == RING_OP_SPILL)
			mini_spill(m, &recs[i]);
		else
			mini_apply(m, &recs[i]);
	}
	return 0;
}

static void
mini_drain(struct mini *m)
{
	while (ring_drain_batch(m->c, 0, 1, mini_batch, m) > 0)
		;
}

struct tpl_arg {
	struct statsblob *img;
};

static const struct statsblob *
tpl_of(void *arg, uint32_t handle, uint32_t *ret_size)
{
	struct tpl_arg *ta = arg;

	if (handle == 0 || handle > 2)
		return NULL;
	*ret_size = ta->img->cursz;
	return ta->img;
}

/* Every statistic of every VOI but the t-digest, byte for byte; the
 * t-digest by its count and quantiles. */
static void
same_result(struct statsblob *want, struct statsblob *got)
{
	const struct statsblobv1 *a = (const void *)want, *b = (const void *)got;
	uint16_t v;
	int s;

	for (v = 0; v < NV; v++) {
		const struct voi *vp = &a->vois[v];

		for (s = 0; s <= vp->voistatmaxid; s++) {
			const struct voistat *x = blob_voistat(a, vp, s);
			const struct voistat *y = blob_voistat(b, vp, s);

			if (x->stype < 0)
				continue;
			ck_assert_int_eq(x->errs, y->errs);
			if (v == V_TDGST)
				continue;
			ck_assert_msg((x->flags & VS_VSDVALID) ==
			    (y->flags & VS_VSDVALID), "VOI %u stat %d flags", v, s);
			ck_assert_msg(memcmp(blob_vsd(a, x), blob_vsd(b, y),
			    x->dsz) == 0, "VOI %u statistic %d differs", v, s);
		}
	}
	for (double q = 0.1; q < 1; q += 0.2) {
		double qa, qb;
		int ra, rb;

		ra = stats_voistat_fetch_quantile(want, V_TDGST,
		    VS_STYPE_TDGST, q, &qa);
		rb = stats_voistat_fetch_quantile(got, V_TDGST,
		    VS_STYPE_TDGST, q, &qb);
		ck_assert_int_eq(ra, rb);
		if (ra != 0)
			continue;	/* both empty */
		/* Values spread over 0..999: a t-digest of 40 centroids
		 * stays within a few percent of the range. */
		ck_assert_msg(fabs(qa - qb) <= 50, "q%.1f: %f vs %f", q, qa, qb);
	}
}

/*
 * A producer and a consumer on one ring of 2^log2 records with an
 * overflow area of ovf bytes, and nk kstats of the kinds' template:
 * want[] gets every update applied in order, got[] what the consumer
 * applies and merges.
 */
struct rig {
	struct tpl_arg		 ta;
	struct statsblob	*want[2], *got[2];
	struct mini		 m;
	struct ring_producer	*p;
	struct spill_producer	*sp;
};

static void
rig_up(struct rig *g, unsigned log2, uint64_t ovf, uint32_t nk)
{
	int tpl = kinds_tpl();
	uint32_t i;

	memset(g, 0, sizeof(*g));
	g->ta.img = stats_blob_alloc((uint32_t)tpl, 0);
	ck_assert_ptr_nonnull(g->ta.img);
	for (i = 0; i < nk; i++) {
		g->want[i] = stats_blob_alloc((uint32_t)tpl, 0);
		g->got[i] = stats_blob_alloc((uint32_t)tpl, 0);
		memcpy(g->want[i], g->ta.img, g->ta.img->cursz);
		memcpy(g->got[i], g->ta.img, g->ta.img->cursz);
	}
	ck_assert_int_eq(ring_create_ovf(log2, ovf, &g->m.c), 0);
	ck_assert_int_eq(ring_map(ring_consumer_fd(g->m.c), -1, &g->p), 0);
	ck_assert_int_eq(spill_producer_new(g->p, tpl_of, &g->ta, &g->sp), 0);
	g->m.blobs = g->got;
	g->m.nblobs = nk;
	g->m.copy = malloc(ovf / 2);
	g->m.scratch = malloc(65536);
}

/* What a flush does: hand over, drain, until nothing is left. */
static void
rig_flush(struct rig *g)
{
	int i;

	for (i = 0; i < 100 && (spill_handover(g->sp, true) != 0 ||
	    spill_diverted(g->sp)); i++)
		mini_drain(&g->m);
	ck_assert_int_eq(spill_handover(g->sp, true), 0);
	mini_drain(&g->m);
}

static void
rig_down(struct rig *g)
{
	int i;

	spill_producer_free(g->sp);
	ring_producer_free(g->p);
	ring_consumer_free(g->m.c);
	free(g->m.copy);
	free(g->m.scratch);
	for (i = 0; i < 2; i++) {
		stats_blob_destroy(g->want[i]);
		stats_blob_destroy(g->got[i]);
	}
	stats_blob_destroy(g->ta.img);
}

/*
 * A producer pushing into a 4-record ring that is drained only now and
 * then spills most of its updates; in the end both kstats hold what
 * applying every update in order gives, for every kind.
 */
START_TEST(every_kind_through_the_spill_path)
{
	struct rig g;
	uint64_t seed = 7 + (uint64_t)_i, t = 1000000, n, spilled = 0;
	int r;

	rig_up(&g, 2, 256 * 1024, 2);
	for (n = 0; n < 20000; n++) {
		struct ring_rec rec = gen(&seed, 1 + (uint32_t)(n % 3 == 0),
		    t += 1000 + unit_rnd(&seed) % 30000);

		r = spill_push(g.sp, &rec);
		ck_assert_int_ge(r, 0);
		spilled += r == 1;
		(void)engine_apply(g.want[rec.handle - 1], rec.voi, rec.op,
		    rec.flags, rec.x, rec.y, rec.time);
		if (unit_rnd(&seed) % 64 == 0)
			mini_drain(&g.m);
	}
	rig_flush(&g);
	ck_assert_uint_gt(spilled, 10000);
	ck_assert_uint_eq(g.m.merged + g.m.logged, spilled);
	ck_assert_uint_gt(g.m.merged, 1000);
	ck_assert_uint_gt(g.m.logged, 1000);
	ck_assert_uint_eq(ring_producer_dropped(g.p), 0);
	same_result(g.want[0], g.got[0]);
	same_result(g.want[1], g.got[1]);
	rig_down(&g);
}
END_TEST

/*
 * Nobody drains: the ring fills, then both buffers; after that updates
 * are dropped and counted, and every one is either applied once the
 * consumer catches up or counted as dropped.
 */
START_TEST(exhausted_overflow_drops_and_counts)
{
	struct rig g;
	uint64_t pushed = 0, dropped = 0, spilled = 0, inring = 0, sum;
	int r;

	rig_up(&g, 4, RING_OVF_MIN, 1);
	/* Logged updates (HISTORY) take 32 bytes each: a 4 KiB buffer
	 * holds about a hundred; folded ones (SUM) take none once the
	 * blob is there. */
	for (pushed = 0; pushed < 2000; pushed++) {
		struct ring_rec rec = { .handle = 1, .voi = pushed % 2 ?
		    V_SUM : V_HISTORY, .op = STATS_OP_ABS, .x = 3,
		    .time = 1000 + pushed, .flags = pushed % 2 ?
		    STATS_OPF_UNSIGNED : 0 };

		r = spill_push(g.sp, &rec);
		if (r == -ENOSPC) {
			dropped++;
			continue;
		}
		ck_assert_int_ge(r, 0);
		spilled += r == 1;
		inring += r == 0;
		(void)engine_apply(g.want[0], rec.voi, rec.op, rec.flags,
		    rec.x, rec.y, rec.time);
	}
	ck_assert_uint_eq(inring, 16);
	ck_assert_uint_gt(dropped, 0);
	ck_assert_uint_eq(ring_producer_dropped(g.p), dropped);
	/* SUM updates fold forever; only the logged ones ran out. */
	ck_assert_uint_eq(inring + spilled + dropped, pushed);
	rig_flush(&g);
	ck_assert_uint_eq(g.m.merged + g.m.logged, spilled);
	same_result(g.want[0], g.got[0]);
	ck_assert_int_eq(stats_voistat_fetch_u64(g.got[0], V_SUM,
	    VS_STYPE_SUM, &sum), 0);
	ck_assert_uint_eq(sum, 3 * 1000);
	rig_down(&g);
}
END_TEST

/* A hand-over record seen twice (statsd restarted after merging it) and
 * a record for a buffer that holds another hand-over now are not merged
 * again. */
START_TEST(handover_merged_once)
{
	struct rig g;
	struct ring_rec recs[64];
	uint64_t sum;
	int i, n = 0;

	rig_up(&g, 2, RING_OVF_MIN, 1);
	for (i = 0; i < 10; i++) {
		struct ring_rec rec = { .handle = 1, .voi = V_SUM,
		    .op = STATS_OP_ABS, .flags = STATS_OPF_UNSIGNED, .x = 1,
		    .time = 1 };

		ck_assert_int_ge(spill_push(g.sp, &rec), 0);
	}
	/* Take the records by hand, keeping copies, and apply them twice. */
	for (;;) {
		while (n < 63 && ring_pop(g.m.c, &recs[n], 1, 1) == 1)
			n++;
		if (!spill_diverted(g.sp))
			break;
		(void)spill_handover(g.sp, true);
	}
	for (i = 0; i < n; i++)
		mini_batch(&g.m, &recs[i], 1);
	for (i = 0; i < n; i++)
		if (recs[i].op == RING_OP_SPILL)
			mini_batch(&g.m, &recs[i], 1);
	ck_assert_int_eq(stats_voistat_fetch_u64(g.got[0], V_SUM,
	    VS_STYPE_SUM, &sum), 0);
	ck_assert_uint_eq(sum, 10);
	ck_assert_uint_eq(g.m.handovers, 1);
	rig_down(&g);
}
END_TEST

/* Blobs that do not validate, or are laid out otherwise, are refused and
 * leave the kstat's blob as it was. */
START_TEST(hostile_blobs_refused)
{
	int tpl = kinds_tpl(), other = unit_tpl("other");
	struct statsblob *dst, *src, *ob, *before;
	uint8_t *scratch = malloc(65536), *bad;
	uint64_t seed = 99;
	const char *why;
	size_t i, k;

	UNIT_ADD(other, 0, "x", VSD_DTYPE_INT_U64, 0, STATS_VSS_SUM());
	dst = stats_blob_alloc((uint32_t)tpl, 0);
	src = stats_blob_alloc((uint32_t)tpl, 0);
	ob = stats_blob_alloc((uint32_t)other, 0);
	before = stats_blob_alloc((uint32_t)tpl, 0);
	ck_assert_int_eq(stats_voi_update_abs_u64(dst, V_SUM, 5), 0);
	ck_assert_int_eq(stats_voi_update_abs_u64(src, V_SUM, 7), 0);
	memcpy(before, dst, dst->cursz);
	ck_assert_int_eq(spill_merge(dst, ob, ob->cursz, scratch, &why),
	    -ESTALE);
	ck_assert_int_eq(spill_merge(dst, src, src->cursz - 8, scratch, &why),
	    -EBADMSG);
	bad = malloc(src->cursz);
	for (k = 0; k < 5000; k++) {
		memcpy(bad, src, src->cursz);
		for (i = 0; i < 1 + k % 4; i++)
			bad[unit_rnd(&seed) % src->cursz] ^=
			    (uint8_t)(1 + unit_rnd(&seed) % 255);
		if (spill_merge(dst, bad, src->cursz, scratch, &why) != 0)
			ck_assert_mem_eq(dst, before, dst->cursz);
		else
			memcpy(before, dst, dst->cursz);
	}
	free(bad);
	free(scratch);
	stats_blob_destroy(dst);
	stats_blob_destroy(src);
	stats_blob_destroy(ob);
	stats_blob_destroy(before);
}
END_TEST

/* Entries that lie about their sizes or types end the walk. */
START_TEST(hostile_entries_refused)
{
	uint8_t buf[256];
	struct ring_ovf_ent e = { .type = RING_OVF_BLOB, .len = 300 };
	const uint8_t *pl;
	size_t off = 0;

	memset(buf, 0, sizeof(buf));
	memcpy(buf, &e, sizeof(e));
	ck_assert_int_eq(ring_ovf_next(buf, sizeof(buf), &off, &e, &pl),
	    -EBADMSG);
	e = (struct ring_ovf_ent){ .type = 9 };
	memcpy(buf, &e, sizeof(e));
	off = 0;
	ck_assert_int_eq(ring_ovf_next(buf, sizeof(buf), &off, &e, &pl),
	    -EBADMSG);
	e = (struct ring_ovf_ent){ .type = RING_OVF_LOG, .len = 33 };
	memcpy(buf, &e, sizeof(e));
	off = 0;
	ck_assert_int_eq(ring_ovf_next(buf, sizeof(buf), &off, &e, &pl),
	    -EBADMSG);
	e = (struct ring_ovf_ent){ .type = RING_OVF_LOG, .len = 64 };
	memcpy(buf, &e, sizeof(e));
	off = 0;
	ck_assert_int_eq(ring_ovf_next(buf, sizeof(buf), &off, &e, &pl), 1);
	ck_assert_uint_eq(off, RING_OVF_ENT_SIZE + 64);
	off = 3;
	ck_assert_int_eq(ring_ovf_next(buf, sizeof(buf), &off, &e, &pl),
	    -EBADMSG);
}
END_TEST

static Suite *
spill_suite(void)
{
	Suite *s = suite_create("spill");
	TCase *tc = tcase_create("spill");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, every_kind_through_the_spill_path, 0, 4);
	tcase_add_test(tc, exhausted_overflow_drops_and_counts);
	tcase_add_test(tc, handover_merged_once);
	tcase_add_test(tc, hostile_blobs_refused);
	tcase_add_test(tc, hostile_entries_refused);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_main(spill_suite());
}
