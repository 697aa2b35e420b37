/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_ring.c: the update ring — correctness and wrap-around, exact drop
 * accounting, wakeups, a two-thread stress run with exact totals, and a
 * consumer facing a hostile producer (random records, random header,
 * indices out of range or moving backwards).
 */
#include <check.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ring.h"
#include "shm.h"

/* xorshift64*: a fixed-seed generator, so a failure replays. */
static uint64_t
rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * UINT64_C(2685821657736338717);
}

struct pair {
	struct ring_consumer *c;
	struct ring_producer *p;
	struct ring_hdr *hdr;
	struct ring_rec *recs;
};

static void
pair_open(struct pair *pr, unsigned log2)
{
	size_t size;

	ck_assert_int_eq(ring_create(log2, &pr->c), 0);
	ck_assert_int_eq(ring_map(ring_consumer_fd(pr->c), ring_consumer_efd(pr->c), &pr->p), 0);
	pr->hdr = ring_consumer_mem(pr->c, &size);
	pr->recs = (struct ring_rec *)((char *)pr->hdr + RING_HDR_SIZE);
	ck_assert_uint_eq(size, RING_HDR_SIZE + ((size_t)RING_REC_SIZE << log2));
}

static void
pair_close(struct pair *pr)
{
	pr->p = ring_producer_free(pr->p);
	pr->c = ring_consumer_free(pr->c);
}

/* Apply callback that records what it sees. */
struct seen {
	uint64_t n;
	uint64_t sum;
	int64_t last;
	int order_ok;
	uint32_t refuse_slot_above;
	struct ring_rec last_rec;
};

static int
seen_apply(void *arg, const struct ring_rec *rec)
{
	struct seen *s = arg;

	if (s->refuse_slot_above != 0 && rec->handle > s->refuse_slot_above)
		return -EPERM;
	if (rec->x <= s->last)
		s->order_ok = 0;
	s->last = rec->x;
	s->n++;
	s->sum += (uint64_t)rec->x;
	s->last_rec = *rec;
	return 0;
}

static void
seen_init(struct seen *s)
{
	memset(s, 0, sizeof(*s));
	s->order_ok = 1;
	s->last = INT64_MIN;
}

START_TEST(test_record_layout)
{
	struct ring_rec r = { .op = STATS_OP_ABS };

	ck_assert_uint_eq(sizeof(struct ring_rec), 32);
	ck_assert_int_eq(ring_rec_check(&r), 0);
	ck_assert_str_eq(ring_op_to_string(STATS_OP_XY), "xy");
	ck_assert_ptr_null(ring_op_to_string(0));
	ck_assert_ptr_null(ring_op_to_string(STATS_OP_NUM));
}
END_TEST

START_TEST(test_roundtrip)
{
	struct pair pr;
	struct seen s;

	pair_open(&pr, 4);
	ck_assert_uint_eq(ring_consumer_capacity(pr.c), 16);
	ck_assert_int_eq(ring_push(pr.p, 7, 3, STATS_OP_XY, 0, 42, 5, 1234), 0);
	seen_init(&s);
	ck_assert_int_eq(ring_drain(pr.c, 0, 999, seen_apply, &s), 1);
	ck_assert_uint_eq(s.last_rec.handle, 7);
	ck_assert_uint_eq(s.last_rec.voi, 3);
	ck_assert_uint_eq(s.last_rec.op, STATS_OP_XY);
	ck_assert_int_eq(s.last_rec.x, 42);
	ck_assert_int_eq(s.last_rec.y, 5);
	ck_assert_uint_eq(s.last_rec.time, 1234);
	/* time 0 is stamped by the consumer */
	ck_assert_int_eq(ring_push(pr.p, 7, 3, STATS_OP_ABS, 0, 43, 0, 0), 0);
	ck_assert_int_eq(ring_drain(pr.c, 0, 999, seen_apply, &s), 1);
	ck_assert_uint_eq(s.last_rec.time, 999);
	ck_assert_int_eq(ring_drain(pr.c, 0, 999, seen_apply, &s), 0);
	pair_close(&pr);
}
END_TEST

START_TEST(test_wraparound)
{
	struct pair pr;
	struct seen s;
	int64_t next = 1;
	uint64_t pushed = 0;
	unsigned round, k;
	int n;

	pair_open(&pr, 3);	/* 8 records */
	seen_init(&s);
	for (round = 0; round < 5000; round++) {
		unsigned want = round % 9;	/* 0..8: never more than fits */
		unsigned room = 8 - (unsigned)(pushed - s.n);

		for (k = 0; k < want && k < room; k++) {
			ck_assert_int_eq(ring_push(pr.p, 1, 0, STATS_OP_ABS, 0, next++, 0, 1), 0);
			pushed++;
		}
		n = ring_drain(pr.c, 1 + round % 5, 1, seen_apply, &s);
		ck_assert_int_ge(n, 0);
	}
	while ((n = ring_drain(pr.c, 0, 1, seen_apply, &s)) > 0)
		;
	ck_assert_int_eq(n, 0);
	ck_assert_uint_eq(s.n, pushed);
	ck_assert_int_eq(s.order_ok, 1);
	ck_assert_int_eq(s.last, next - 1);
	ck_assert_uint_eq(ring_producer_dropped(pr.p), 0);
	ck_assert_uint_gt(pushed, 8 * 100);	/* wrapped many times */
	pair_close(&pr);
}
END_TEST

START_TEST(test_full_drops_exact)
{
	struct ring_consumer_stats st;
	struct pair pr;
	struct seen s;
	int i, ok = 0, full = 0;

	pair_open(&pr, 2);	/* 4 records */
	for (i = 1; i <= 10; i++) {
		int r = ring_push(pr.p, 0, 0, STATS_OP_ABS, 0, i, 0, 1);

		if (r == 0)
			ok++;
		else if (r == -ENOSPC)
			full++;
	}
	ck_assert_int_eq(ok, 4);
	ck_assert_int_eq(full, 6);
	ck_assert_uint_eq(ring_producer_dropped(pr.p), 6);
	seen_init(&s);
	ck_assert_int_eq(ring_drain(pr.c, 0, 1, seen_apply, &s), 4);
	ck_assert_int_eq(s.last, 4);
	for (i = 11; i <= 15; i++)
		ring_push(pr.p, 0, 0, STATS_OP_ABS, 0, i, 0, 1);
	ck_assert_int_eq(ring_drain(pr.c, 0, 1, seen_apply, &s), 4);
	ring_consumer_stats(pr.c, &st);
	ck_assert_uint_eq(st.applied, 8);
	ck_assert_uint_eq(st.dropped, 7);
	ck_assert_uint_eq(st.rejected, 0);
	ck_assert_uint_eq(st.applied + st.dropped, 15);
	pair_close(&pr);
}
END_TEST

START_TEST(test_batch)
{
	struct ring_rec recs[12];
	struct ring_consumer_stats st;
	struct pair pr;
	struct seen s;
	int i;

	pair_open(&pr, 3);
	for (i = 0; i < 12; i++)
		recs[i] = (struct ring_rec){ .handle = 1, .op = STATS_OP_ABS, .x = i + 1, .time = 1 };
	ck_assert_uint_eq(ring_push_batch(pr.p, recs, 5), 5);
	seen_init(&s);
	ck_assert_int_eq(ring_drain(pr.c, 3, 1, seen_apply, &s), 3);
	/* 2 in the ring, 6 free; the batch wraps past the end */
	ck_assert_uint_eq(ring_push_batch(pr.p, recs + 5, 7), 6);
	ck_assert_uint_eq(ring_producer_dropped(pr.p), 1);
	ck_assert_int_eq(ring_drain(pr.c, 0, 1, seen_apply, &s), 8);
	ck_assert_int_eq(s.order_ok, 1);
	ck_assert_int_eq(s.last, 11);
	ck_assert_uint_eq(ring_push_batch(pr.p, recs, 0), 0);
	ring_consumer_stats(pr.c, &st);
	ck_assert_uint_eq(st.applied, 11);
	ck_assert_uint_eq(st.dropped, 1);
	pair_close(&pr);
}
END_TEST

START_TEST(test_validation_counts)
{
	static const struct ring_rec bad[] = {
		{ .op = STATS_OP_INVALID },
		{ .op = STATS_OP_NUM },
		{ .op = 0xff },
		{ .op = STATS_OP_ABS, .flags = STATS_OPF_RUNQ },
		{ .op = STATS_OP_ABS, .flags = 0x80 },
		{ .op = STATS_OP_ABS, .y = 1 },
		{ .op = STATS_OP_XY, .y = -1 },
		{ .op = STATS_OP_TSTART, .flags = STATS_OPF_UNSIGNED },
		{ .op = STATS_OP_QENTER, .y = 3 },
	};
	static const struct ring_rec good[] = {
		{ .op = STATS_OP_ABS, .x = 1 },
		{ .op = STATS_OP_XY, .x = 2, .y = 7 },
		{ .op = STATS_OP_XY, .x = 3, .y = -1, .flags = STATS_OPF_UNSIGNED },
		{ .op = STATS_OP_QMOVE, .x = 4, .flags = STATS_OPF_RUNQ },
		{ .op = STATS_OP_HIST, .x = 5, .y = 1 },
		{ .op = STATS_OP_SET, .x = 6, .handle = 500 },	/* refused by callback */
	};
	struct ring_consumer_stats st;
	struct ring_rec out[16];
	struct pair pr;
	struct seen s;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_int_eq(ring_rec_check(&bad[i]), -EBADMSG);
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ck_assert_int_eq(ring_rec_check(&good[i]), 0);

	pair_open(&pr, 5);
	ring_push_batch(pr.p, bad, sizeof(bad) / sizeof(bad[0]));
	ring_push_batch(pr.p, good, sizeof(good) / sizeof(good[0]));
	seen_init(&s);
	s.refuse_slot_above = 100;
	ck_assert_int_eq(ring_drain(pr.c, 0, 1, seen_apply, &s), 15);
	ring_consumer_stats(pr.c, &st);
	ck_assert_uint_eq(st.applied, 5);
	ck_assert_uint_eq(st.rejected, 10);
	ck_assert_int_eq(st.broken, 0);

	/* ring_pop: invalid skipped and counted, valid copied out */
	ring_push_batch(pr.p, good, 2);
	ring_push_batch(pr.p, bad, 3);
	ring_push_batch(pr.p, good + 2, 2);
	ck_assert_int_eq(ring_pop(pr.c, out, 3, 9), 3);
	ck_assert_int_eq(out[0].x, 1);
	ck_assert_int_eq(out[2].x, 3);
	ck_assert_int_eq(ring_pop(pr.c, out, 16, 9), 1);
	ck_assert_int_eq(out[0].x, 4);
	ck_assert_uint_eq(out[0].time, 9);
	ring_consumer_stats(pr.c, &st);
	ck_assert_uint_eq(st.applied, 9);
	ck_assert_uint_eq(st.rejected, 13);
	pair_close(&pr);
}
END_TEST

START_TEST(test_map_rejects)
{
	struct ring_producer *p = NULL;
	struct ring_consumer *c;
	struct ring_hdr *h;
	size_t size;
	int fd;

	ck_assert_int_eq(ring_create(1, &c), -EINVAL);
	ck_assert_int_eq(ring_create(RING_CAP_LOG2_MAX + 1, &c), -EINVAL);
	ck_assert_int_eq(ring_create(3, &c), 0);
	h = ring_consumer_mem(c, &size);

	h->magic ^= 1;
	ck_assert_int_eq(ring_map(ring_consumer_fd(c), -1, &p), -EBADMSG);
	h->magic ^= 1;
	h->abi_major = 2;
	ck_assert_int_eq(ring_map(ring_consumer_fd(c), -1, &p), -EPROTONOSUPPORT);
	h->abi_major = RING_ABI_MAJOR;
	h->incompat = 0x80;
	ck_assert_int_eq(ring_map(ring_consumer_fd(c), -1, &p), -EPROTONOSUPPORT);
	h->incompat = 0;
	h->compat = 0x80;	/* unknown compatible bits are fine */
	h->cap_log2 = 10;	/* claims more than the memfd holds */
	ck_assert_int_eq(ring_map(ring_consumer_fd(c), -1, &p), -EBADMSG);
	h->cap_log2 = 3;
	h->rec_size = 64;
	ck_assert_int_eq(ring_map(ring_consumer_fd(c), -1, &p), -EBADMSG);
	h->rec_size = RING_REC_SIZE;
	ck_assert_int_eq(ring_map(ring_consumer_fd(c), -1, &p), 0);
	ck_assert_ptr_nonnull(p);
	p = ring_producer_free(p);
	ck_assert_ptr_null(p);
	ck_assert_ptr_null(ring_producer_free(NULL));
	ck_assert_ptr_null(ring_consumer_free(NULL));
	c = ring_consumer_free(c);

	/* an unsealed memfd could be shrunk under the mapping */
	fd = memfd_create("unsealed", MFD_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 4096), 0);
	ck_assert_int_eq(ring_map(fd, -1, &p), -EPERM);
	close(fd);
	/* sealed but too small for a header */
	ck_assert_int_eq(shm_memfd_new("tiny", 64, &fd), 0);
	ck_assert_int_eq(ring_map(fd, -1, &p), -EBADMSG);
	close(fd);
}
END_TEST

START_TEST(test_wakeup)
{
	struct ring_consumer_stats st;
	struct pollfd pfd;
	struct pair pr;
	struct seen s;

	pair_open(&pr, 4);
	seen_init(&s);
	pfd.fd = ring_consumer_efd(pr.c);
	pfd.events = POLLIN;

	/* no sleeper: no wakeup */
	ring_push(pr.p, 0, 0, STATS_OP_ABS, 0, 1, 0, 1);
	ck_assert_uint_eq(ring_producer_wakeups(pr.p), 0);
	/* records pending: the consumer must not go to sleep */
	ck_assert_int_eq(ring_consumer_sleep_prepare(pr.c), -EAGAIN);
	ck_assert_int_eq(atomic_load(&pr.hdr->sleeping), 0);
	ck_assert_int_eq(ring_drain(pr.c, 0, 1, seen_apply, &s), 1);

	ck_assert_int_eq(ring_consumer_sleep_prepare(pr.c), 0);
	ck_assert_int_eq(poll(&pfd, 1, 0), 0);
	ring_push(pr.p, 0, 0, STATS_OP_ABS, 0, 2, 0, 1);
	ring_push(pr.p, 0, 0, STATS_OP_ABS, 0, 3, 0, 1);
	/* one wakeup per sleep, however many pushes */
	ck_assert_uint_eq(ring_producer_wakeups(pr.p), 1);
	ck_assert_int_eq(poll(&pfd, 1, 0), 1);
	ring_consumer_sleep_done(pr.c);
	ck_assert_int_eq(poll(&pfd, 1, 0), 0);
	ck_assert_int_eq(ring_drain(pr.c, 0, 1, seen_apply, &s), 2);

	/* the poll-based helper times out on an empty ring */
	ck_assert_int_eq(ring_consumer_wait(pr.c, 1), 0);
	ring_consumer_stats(pr.c, &st);
	ck_assert_uint_eq(st.sleeps, 2);
	ck_assert_uint_eq(st.wakeups, 1);
	pair_close(&pr);
}
END_TEST

START_TEST(test_tls_and_close)
{
	struct ring_consumer *c2;
	struct pair pr;
	struct seen s;
	int fd, efd;

	pair_open(&pr, 4);
	ck_assert_ptr_null(ring_producer_current());
	ck_assert_ptr_null(ring_producer_bind(pr.p));
	ck_assert_ptr_eq(ring_producer_current(), pr.p);
	ring_push(ring_producer_current(), 0, 0, STATS_OP_ABS, 0, 1, 0, 1);
	ring_push(ring_producer_current(), 0, 0, STATS_OP_ABS, 0, 2, 0, 1);
	ring_push(ring_producer_current(), 0, 0, STATS_OP_ABS, 0, 3, 0, 1);
	seen_init(&s);
	ck_assert_int_eq(ring_drain(pr.c, 1, 1, seen_apply, &s), 1);

	/* a restarted daemon adopts the ring and resumes at its tail */
	fd = dup(ring_consumer_fd(pr.c));
	efd = dup(ring_consumer_efd(pr.c));
	ck_assert_int_eq(ring_consumer_attach(fd, efd, &c2), 0);
	ck_assert_int_eq(ring_drain(c2, 0, 1, seen_apply, &s), 2);
	ck_assert_int_eq(s.order_ok, 1);
	ck_assert_int_eq(s.last, 3);

	ck_assert_int_eq(ring_consumer_done(c2), 0);
	ring_push(pr.p, 0, 0, STATS_OP_ABS, 0, 4, 0, 1);
	pr.p = ring_producer_free(pr.p);
	ck_assert_ptr_null(ring_producer_current());
	ck_assert_int_eq(ring_consumer_done(c2), 0);	/* one left */
	ck_assert_int_eq(ring_drain(c2, 0, 1, seen_apply, &s), 1);
	ck_assert_int_eq(ring_consumer_done(c2), 1);
	ring_consumer_free(c2);
	pair_close(&pr);
}
END_TEST

/* ------------------------------------------------------ hostile producers */

static void
consumed_bounded(struct pair *pr, unsigned max)
{
	struct ring_consumer_stats before, st;
	struct seen s;
	int n;

	seen_init(&s);
	ring_consumer_stats(pr->c, &before);
	n = ring_drain(pr->c, max, 1, seen_apply, &s);
	ring_consumer_stats(pr->c, &st);
	if (n >= 0) {
		ck_assert_uint_le((uint64_t)n, ring_consumer_capacity(pr->c));
		ck_assert_uint_eq(s.n, st.applied - before.applied);
		ck_assert_uint_eq((uint64_t)n, st.applied + st.rejected -
		    before.applied - before.rejected);
	} else {
		ck_assert_int_eq(n, -EPIPE);
		ck_assert_int_eq(st.broken, 1);
	}
}

START_TEST(test_hostile_random_records)
{
	struct ring_consumer_stats st;
	uint64_t seed = 0x9e3779b97f4a7c15u, head = 0;
	struct pair pr;
	unsigned it, i;
	int n;

	pair_open(&pr, 5);
	for (it = 0; it < 2000; it++) {
		uint64_t add = rnd(&seed) % 33;
		struct seen s;

		for (i = 0; i < 32 * 32 / 8; i++)
			((uint64_t *)pr.recs)[i] = rnd(&seed);
		/* make some records plausible so both paths run */
		for (i = 0; i < 32; i += 3) {
			pr.recs[i].op = (uint8_t)(rnd(&seed) % STATS_OP_NUM);
			pr.recs[i].flags = (uint8_t)(rnd(&seed) & 3);
			pr.recs[i].y = 0;
		}
		head += add;
		atomic_store(&pr.hdr->head, head);
		seen_init(&s);
		n = ring_drain(pr.c, 0, 1, seen_apply, &s);
		ck_assert_int_eq(n, (int)add);
	}
	ring_consumer_stats(pr.c, &st);
	ck_assert_uint_eq(st.applied + st.rejected, head);
	ck_assert_uint_gt(st.applied, 0);
	ck_assert_uint_gt(st.rejected, 0);
	ck_assert_int_eq(st.broken, 0);
	pair_close(&pr);
}
END_TEST

START_TEST(test_hostile_random_header)
{
	uint64_t seed = 12345;
	unsigned it, i;

	for (it = 0; it < 300; it++) {
		struct pair pr;
		struct ring_consumer_stats st;

		pair_open(&pr, 4);
		ring_push(pr.p, 0, 0, STATS_OP_ABS, 0, 1, 0, 1);
		for (i = 0; i < RING_HDR_SIZE / 8; i++)
			if (rnd(&seed) % 4 == 0)
				((uint64_t *)pr.hdr)[i] = rnd(&seed);
		if (it % 2)	/* half the time, a small plausible head */
			atomic_store(&pr.hdr->head, rnd(&seed) % 20);
		consumed_bounded(&pr, 0);
		consumed_bounded(&pr, 0);
		ring_consumer_sleep_prepare(pr.c);
		ring_consumer_sleep_done(pr.c);
		ring_consumer_stats(pr.c, &st);
		ring_consumer_done(pr.c);
		pair_close(&pr);
	}
}
END_TEST

START_TEST(test_hostile_indices)
{
	static const uint64_t bogus[] = {
		17, 1000, UINT64_C(1) << 40, UINT64_MAX, UINT64_MAX - 3,
	};
	struct ring_consumer_stats st;
	struct ring_rec out[4];
	size_t i;

	for (i = 0; i < sizeof(bogus) / sizeof(bogus[0]); i++) {
		struct pair pr;

		pair_open(&pr, 4);	/* 16 records */
		atomic_store(&pr.hdr->head, bogus[i]);
		consumed_bounded(&pr, 0);
		ring_consumer_stats(pr.c, &st);
		ck_assert_int_eq(st.broken, 1);
		ck_assert_uint_eq(st.applied + st.rejected, 0);
		/* broken stays broken, whatever the producer does next */
		atomic_store(&pr.hdr->head, 0);
		ck_assert_int_eq(ring_pop(pr.c, out, 4, 1), -EPIPE);
		ck_assert_int_eq(ring_consumer_sleep_prepare(pr.c), -EPIPE);
		ck_assert_int_eq(ring_consumer_done(pr.c), 1);
		pair_close(&pr);
	}
	/* exactly a full ring is fine */
	{
		struct pair pr;
		struct seen s;

		pair_open(&pr, 4);
		atomic_store(&pr.hdr->head, 16);
		seen_init(&s);
		ck_assert_int_eq(ring_drain(pr.c, 0, 1, seen_apply, &s), 16);
		pair_close(&pr);
	}
}
END_TEST

START_TEST(test_hostile_head_backwards)
{
	struct ring_consumer_stats st;
	struct pair pr;
	struct seen s;
	int i;

	pair_open(&pr, 4);
	for (i = 1; i <= 6; i++)
		ring_push(pr.p, 0, 0, STATS_OP_ABS, 0, i, 0, 1);
	seen_init(&s);
	ck_assert_int_eq(ring_drain(pr.c, 2, 1, seen_apply, &s), 2);
	/* head goes 6 -> 4: still ahead of the tail (2), but backwards */
	atomic_store(&pr.hdr->head, 4);
	ck_assert_int_eq(ring_drain(pr.c, 0, 1, seen_apply, &s), -EPIPE);
	ring_consumer_stats(pr.c, &st);
	ck_assert_int_eq(st.broken, 1);
	ck_assert_uint_eq(st.applied, 2);
	pair_close(&pr);

	/* behind the tail */
	pair_open(&pr, 4);
	for (i = 1; i <= 6; i++)
		ring_push(pr.p, 0, 0, STATS_OP_ABS, 0, i, 0, 1);
	ck_assert_int_eq(ring_drain(pr.c, 0, 1, seen_apply, &s), 6);
	atomic_store(&pr.hdr->head, 5);
	ck_assert_int_eq(ring_drain(pr.c, 0, 1, seen_apply, &s), -EPIPE);
	pair_close(&pr);

	/* a producer winding its drop counter back is not believed */
	pair_open(&pr, 4);
	atomic_store(&pr.hdr->dropped, 10);
	ring_consumer_stats(pr.c, &st);
	ck_assert_uint_eq(st.dropped, 10);
	atomic_store(&pr.hdr->dropped, 3);
	ring_consumer_stats(pr.c, &st);
	ck_assert_uint_eq(st.dropped, 10);
	pair_close(&pr);
}
END_TEST

/* ------------------------------------------------------------- stress */

struct stress {
	struct pair pr;
	uint64_t records;
	_Atomic int done;
	/* producer's tallies */
	uint64_t pushed;
	uint64_t pushed_sum;
	/* consumer's tallies */
	struct seen s;
	uint64_t cons_sum;
	int waits;
};

static int
stress_apply(void *arg, const struct ring_rec *rec)
{
	struct stress *st = arg;

	if (rec->x <= st->s.last || rec->handle != ((uint64_t)rec->x & 1023))
		st->s.order_ok = 0;
	st->s.last = rec->x;
	st->s.n++;
	st->cons_sum += (uint64_t)rec->x;
	return 0;
}

static void *
stress_consumer(void *arg)
{
	struct stress *st = arg;
	unsigned idle = 0;
	int n;

	for (;;) {
		int finished = atomic_load_explicit(&st->done, memory_order_acquire);

		n = ring_drain(st->pr.c, 4096, 1, stress_apply, st);
		if (n < 0)
			break;
		if (n > 0) {
			idle = 0;
			continue;
		}
		if (finished)
			break;
		/* spin a little before sleeping, so wakeups stay rare */
		if (++idle < 2000)
			continue;
		ring_consumer_wait(st->pr.c, 1);
		st->waits++;
		idle = 0;
	}
	return NULL;
}

START_TEST(test_stress_two_threads)
{
	struct ring_consumer_stats cs;
	struct stress *st;
	const char *env = getenv("RING_STRESS_RECORDS");
	pthread_t th;
	uint64_t i;

	st = calloc(1, sizeof(*st));
	ck_assert_ptr_nonnull(st);
	st->records = env != NULL ? strtoull(env, NULL, 10) : 50000000u;
	if (st->records == 0)
		st->records = 50000000u;
	pair_open(&st->pr, 12);
	seen_init(&st->s);
	ck_assert_int_eq(pthread_create(&th, NULL, stress_consumer, st), 0);
	for (i = 1; i <= st->records; i++) {
		if (ring_push(st->pr.p, (uint32_t)(i & 1023), 0, STATS_OP_ABS, 0,
		    (int64_t)i, 0, 1) == 0) {
			st->pushed++;
			st->pushed_sum += i;
		}
	}
	atomic_store_explicit(&st->done, 1, memory_order_release);
	ck_assert_int_eq(pthread_join(th, NULL), 0);

	ring_consumer_stats(st->pr.c, &cs);
	ck_assert_int_eq(cs.broken, 0);
	ck_assert_int_eq(st->s.order_ok, 1);
	ck_assert_uint_eq(cs.rejected, 0);
	ck_assert_uint_eq(cs.applied, st->s.n);
	ck_assert_uint_eq(st->s.n, st->pushed);
	ck_assert_uint_eq(st->cons_sum, st->pushed_sum);
	ck_assert_uint_eq(cs.dropped, ring_producer_dropped(st->pr.p));
	ck_assert_uint_eq(cs.applied + cs.dropped, st->records);
	pair_close(&st->pr);
	free(st);
}
END_TEST

static Suite *
ring_suite(void)
{
	Suite *s = suite_create("ring");
	TCase *tc = tcase_create("core");
	TCase *th = tcase_create("hostile");
	TCase *ts = tcase_create("stress");

	tcase_add_test(tc, test_record_layout);
	tcase_add_test(tc, test_roundtrip);
	tcase_add_test(tc, test_wraparound);
	tcase_add_test(tc, test_full_drops_exact);
	tcase_add_test(tc, test_batch);
	tcase_add_test(tc, test_validation_counts);
	tcase_add_test(tc, test_map_rejects);
	tcase_add_test(tc, test_wakeup);
	tcase_add_test(tc, test_tls_and_close);
	suite_add_tcase(s, tc);

	tcase_add_test(th, test_hostile_random_records);
	tcase_add_test(th, test_hostile_random_header);
	tcase_add_test(th, test_hostile_indices);
	tcase_add_test(th, test_hostile_head_backwards);
	suite_add_tcase(s, th);

	/* 50 M records take seconds plain and minutes under TSan. */
	tcase_set_timeout(ts, 600);
	tcase_add_test(ts, test_stress_two_threads);
	suite_add_tcase(s, ts);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(ring_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
