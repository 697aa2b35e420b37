/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_turns.c: the loop's fair turns (turns.h) — a peer with many tasks
 * queued takes one turn a round as a peer with one does; privileged
 * peers are served every round, however many others wait; a peer's tasks
 * run in the order queued; a task queued twice runs once; a cancelled
 * task never runs; a task may queue itself again and cancel others from
 * its run; a task is run at once only when no one waits for a turn, and
 * at most TURNS_ROUND_OTHERS unprivileged ones a pass of the loop.
 */
#include <event2/event.h>

#include "turns.h"
#include "unit.h"

struct rec {
	struct turn_task	 t;
	int			 who;
	int			 again;		/* queue itself this often */
	struct turns		*ts;
	struct turn_task	*victim;	/* cancel it when run */
};

static int order[4096];
static size_t norder;

static void
rec_run(struct turn_task *t)
{
	struct rec *r = (struct rec *)t;

	ck_assert_uint_lt(norder, 4096);
	order[norder++] = r->who;
	if (r->victim != NULL)
		turns_cancel(r->ts, r->victim);
	if (r->again > 0) {
		r->again--;
		turns_queue(r->ts, &r->t);
	}
}

static void
rec_init(struct rec *r, struct turns *ts, struct turn_peer *p, int who)
{
	memset(r, 0, sizeof(*r));
	r->t.run = rec_run;
	r->t.peer = p;
	r->who = who;
	r->ts = ts;
}

/* Run one round of the loop. */
static void
round_once(struct event_base *b)
{
	ck_assert_int_ge(event_base_loop(b, EVLOOP_ONCE | EVLOOP_NONBLOCK), 0);
}

START_TEST(many_tasks_one_turn)
{
	struct event_base *b = event_base_new();
	struct turns *ts;
	struct turn_peer *flood, *one;
	struct rec fr[100], o;
	struct turns_stats st;
	size_t i;

	ck_assert_int_eq(turns_new(b, 0, &ts), 0);
	flood = turns_peer_get(ts, 65534, false);
	one = turns_peer_get(ts, 1000, false);
	ck_assert_ptr_eq(turns_peer_get(ts, 65534, false), flood);
	turns_peer_put(ts, flood);
	for (i = 0; i < 100; i++) {
		rec_init(&fr[i], ts, flood, (int)i);
		turns_queue(ts, &fr[i].t);
	}
	rec_init(&o, ts, one, 1000);
	turns_queue(ts, &o.t);
	turns_queue(ts, &o.t);		/* queued already: once */
	norder = 0;
	round_once(b);
	/* One turn each: the flood's first task, then the other peer's. */
	ck_assert_uint_eq(norder, 2);
	ck_assert_int_eq(order[0], 0);
	ck_assert_int_eq(order[1], 1000);
	for (i = 0; i < 200 && norder < 101; i++)
		round_once(b);
	ck_assert_uint_eq(norder, 101);
	/* The flood's tasks in the order queued. */
	for (i = 2; i < 101; i++)
		ck_assert_int_eq(order[i], (int)i - 1);
	turns_stats(ts, &st);
	ck_assert_uint_eq(st.turns, 101);
	ck_assert_uint_eq(st.peers, 2);
	turns_peer_put(ts, flood);
	turns_peer_put(ts, one);
	turns_stats(ts, &st);
	ck_assert_uint_eq(st.peers, 0);
	turns_free(ts);
	event_base_free(b);
}
END_TEST

START_TEST(privileged_every_round)
{
	struct event_base *b = event_base_new();
	struct turns *ts;
	struct turn_peer *root, *others[16];
	struct rec r, o[16];
	size_t i, rounds, root_runs = 0;

	ck_assert_int_eq(turns_new(b, 0, &ts), 0);
	root = turns_peer_get(ts, 0, true);
	for (i = 0; i < 16; i++) {
		others[i] = turns_peer_get(ts, 2000 + i, false);
		rec_init(&o[i], ts, others[i], (int)(2000 + i));
		o[i].again = 1000;
		turns_queue(ts, &o[i].t);
	}
	rec_init(&r, ts, root, 0);
	r.again = 50;
	turns_queue(ts, &r.t);
	for (rounds = 0; rounds < 51; rounds++) {
		size_t j;

		norder = 0;
		round_once(b);
		/* At most the others' share, and root's turn in each. */
		ck_assert_uint_le(norder, 1 + TURNS_ROUND_OTHERS);
		for (j = 0; j < norder; j++)
			root_runs += order[j] == 0;
	}
	ck_assert_uint_eq(root_runs, 51);
	for (i = 0; i < 16; i++) {
		turns_cancel(ts, &o[i].t);
		turns_peer_put(ts, others[i]);
	}
	turns_peer_put(ts, root);
	turns_free(ts);
	event_base_free(b);
}
END_TEST

START_TEST(cancel)
{
	struct event_base *b = event_base_new();
	struct turns *ts;
	struct turn_peer *p, *q;
	struct rec a, c, x, y;
	size_t i;

	ck_assert_int_eq(turns_new(b, 0, &ts), 0);
	p = turns_peer_get(ts, 1, false);
	q = turns_peer_get(ts, 2, false);
	rec_init(&a, ts, p, 1);
	rec_init(&c, ts, p, 2);
	rec_init(&x, ts, p, 3);
	rec_init(&y, ts, q, 4);
	turns_queue(ts, &a.t);
	turns_queue(ts, &c.t);
	turns_queue(ts, &x.t);
	turns_queue(ts, &y.t);
	turns_cancel(ts, &c.t);		/* the middle one */
	a.victim = &x.t;		/* a's run cancels x */
	turns_cancel(ts, &y.t);		/* q's queue empties */
	turns_cancel(ts, &y.t);		/* not queued: nothing */
	norder = 0;
	for (i = 0; i < 4; i++)
		round_once(b);
	ck_assert_uint_eq(norder, 1);
	ck_assert_int_eq(order[0], 1);
	/* A peer put with a task queued takes it off first. */
	turns_queue(ts, &c.t);
	turns_peer_put(ts, p);
	round_once(b);
	ck_assert_uint_eq(norder, 1);
	turns_peer_put(ts, q);
	turns_free(ts);
	event_base_free(b);
}
END_TEST

/* The calls of one pass of the loop: turns_run_now() for each of the
 * pass's tasks, what it said kept. */
struct pass {
	struct turns	*ts;
	struct rec	*tasks;
	size_t		 n;
	bool		 ran[16];
};

static void
pass_cb(evutil_socket_t fd, short what, void *arg)
{
	struct pass *ps = arg;
	size_t i;

	(void)fd;
	(void)what;
	for (i = 0; i < ps->n; i++)
		ps->ran[i] = turns_run_now(ps->ts, &ps->tasks[i].t);
}

/* Run ps's calls in one pass of b's loop (a callback, as the control
 * socket's read callbacks are). */
static void
pass_once(struct event_base *b, struct pass *ps)
{
	static const struct timeval zero = { 0, 0 };

	ck_assert_int_eq(event_base_once(b, -1, EV_TIMEOUT, pass_cb, ps,
	    &zero), 0);
	round_once(b);
}

START_TEST(at_once)
{
	struct event_base *b = event_base_new();
	struct turns *ts;
	struct turn_peer *root, *others[6];
	struct rec r[7], q;
	struct pass ps;
	struct turns_stats st;
	size_t i;

	ck_assert_int_eq(turns_new(b, 0, &ts), 0);
	root = turns_peer_get(ts, 0, true);
	for (i = 0; i < 6; i++) {
		others[i] = turns_peer_get(ts, 3000 + i, false);
		rec_init(&r[i], ts, others[i], (int)(3000 + i));
	}
	rec_init(&r[6], ts, root, 0);
	memset(&ps, 0, sizeof(ps));
	ps.ts = ts;
	ps.tasks = r;
	ps.n = 7;

	/* Six users' calls and root's in one pass: the first
	 * TURNS_ROUND_OTHERS users' at once, the others not; root's at once
	 * all the same. */
	norder = 0;
	pass_once(b, &ps);
	for (i = 0; i < 6; i++)
		ck_assert(ps.ran[i] == (i < TURNS_ROUND_OTHERS));
	ck_assert(ps.ran[6]);
	ck_assert_uint_eq(norder, TURNS_ROUND_OTHERS + 1);
	ck_assert_int_eq(order[TURNS_ROUND_OTHERS], 0);
	turns_stats(ts, &st);
	ck_assert_uint_eq(st.at_once, TURNS_ROUND_OTHERS + 1);
	ck_assert_uint_eq(st.turns, TURNS_ROUND_OTHERS + 1);

	/* The next pass takes as many again. */
	ps.n = TURNS_ROUND_OTHERS;
	pass_once(b, &ps);
	for (i = 0; i < TURNS_ROUND_OTHERS; i++)
		ck_assert(ps.ran[i]);

	/* Anything queued, and no one's is run at once, root's neither:
	 * the queue goes first. */
	rec_init(&q, ts, others[5], 99);
	turns_queue(ts, &q.t);
	norder = 0;
	ck_assert(!turns_run_now(ts, &r[6].t));
	ck_assert(!turns_run_now(ts, &q.t));	/* queued itself */
	ck_assert_uint_eq(norder, 0);
	round_once(b);
	ck_assert_uint_eq(norder, 1);
	ck_assert_int_eq(order[0], 99);
	ps.tasks = &r[6];
	ps.n = 1;
	pass_once(b, &ps);
	ck_assert(ps.ran[0]);
	turns_stats(ts, &st);
	ck_assert_uint_eq(st.at_once, 2 * TURNS_ROUND_OTHERS + 2);

	for (i = 0; i < 6; i++)
		turns_peer_put(ts, others[i]);
	turns_peer_put(ts, root);
	turns_free(ts);
	event_base_free(b);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("turns");
	TCase *tc = tcase_create("turns");

	tcase_add_test(tc, many_tasks_one_turn);
	tcase_add_test(tc, privileged_every_round);
	tcase_add_test(tc, cancel);
	tcase_add_test(tc, at_once);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
