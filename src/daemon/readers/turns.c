/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * turns.c: fair turns between peers (turns.h) — a queue of tasks per
 * peer, and two rotations of the peers that have some: the privileged
 * ones, served whole each round, and the others, TURNS_ROUND_OTHERS a
 * round: round robin with a quantum of one task, as a network scheduler's
 * fair queuing serves flows, so that a peer's share does not grow with
 * the number of its connections or calls.
 */
#include <errno.h>
#include <stdlib.h>

#include <event2/event.h>

#include "clock.h"
#include "turns.h"

struct turn_peer {
	uint64_t		 key;
	bool			 privileged;
	unsigned		 refs;
	struct turn_task	*head, *tail;	/* its queue */
	bool			 ready;		/* in a rotation */
	struct turn_peer	*rprev, *rnext;	/* the rotation */
	struct turn_peer	*prev, *next;	/* every peer */
};

/* A rotation: a list of peers with queued tasks, served from the head. */
struct rotation {
	struct turn_peer	*head, *tail;
	unsigned		 n;
};

struct turns {
	struct event		*ev;
	struct turn_peer	*peers;
	struct rotation		 priv, others;
	uint64_t		 next_unique;
	bool			 armed;
	/* Unprivileged turns run at once in this pass of the loop. The
	 * pass ends with ev_pass, made active by the first of them: libevent
	 * runs it after the callbacks already active in the pass (an epoll
	 * batch's). Not the loop's cached time: libevent reads a coarse
	 * clock, the same for every pass of a few milliseconds. */
	struct event		*ev_pass;
	bool			 pass_open;
	unsigned		 pass_others;
	struct turns_stats	 st;
};

static void turns_round(evutil_socket_t fd, short what, void *arg);

/* The pass of the loop is over: its budget of turns at once too. */
static void
turns_pass_end(evutil_socket_t fd, short what, void *arg)
{
	struct turns *ts = arg;

	(void)fd;
	(void)what;
	ts->pass_open = false;
}

static void
rot_push(struct rotation *r, struct turn_peer *p)
{
	p->rnext = NULL;
	p->rprev = r->tail;
	if (r->tail != NULL)
		r->tail->rnext = p;
	else
		r->head = p;
	r->tail = p;
	r->n++;
	p->ready = true;
}

static void
rot_remove(struct rotation *r, struct turn_peer *p)
{
	if (p->rprev != NULL)
		p->rprev->rnext = p->rnext;
	else
		r->head = p->rnext;
	if (p->rnext != NULL)
		p->rnext->rprev = p->rprev;
	else
		r->tail = p->rprev;
	p->rprev = p->rnext = NULL;
	r->n--;
	p->ready = false;
}

static struct rotation *
rot_of(struct turns *ts, const struct turn_peer *p)
{
	return p->privileged ? &ts->priv : &ts->others;
}

static void
turns_arm(struct turns *ts)
{
	static const struct timeval zero = { 0, 0 };

	/* A zero time-out, not event_active(): the round comes at the next
	 * loop turn, after the events already waiting (the drain's, the
	 * sockets'). */
	if (!ts->armed) {
		ts->armed = true;
		event_add(ts->ev, &zero);
	}
}

int
turns_new(struct event_base *base, int priority, struct turns **ret)
{
	struct turns *ts = calloc(1, sizeof(*ts));

	if (ts == NULL)
		return -ENOMEM;
	ts->ev = evtimer_new(base, turns_round, ts);
	ts->ev_pass = event_new(base, -1, 0, turns_pass_end, ts);
	if (ts->ev == NULL || ts->ev_pass == NULL) {
		if (ts->ev != NULL)
			event_free(ts->ev);
		free(ts);
		return -ENOMEM;
	}
	event_priority_set(ts->ev, priority);
	event_priority_set(ts->ev_pass, priority);
	/* Keys above every uid (uid_t is 32 bits). */
	ts->next_unique = UINT64_C(1) << 32;
	*ret = ts;
	return 0;
}

struct turns *
turns_free(struct turns *ts)
{
	struct turn_peer *p;

	if (ts == NULL)
		return NULL;
	while ((p = ts->peers) != NULL) {
		ts->peers = p->next;
		free(p);
	}
	event_free(ts->ev);
	event_free(ts->ev_pass);
	free(ts);
	return NULL;
}

struct turn_peer *
turns_peer_get(struct turns *ts, uint64_t key, bool privileged)
{
	struct turn_peer *p;

	/* A list: peers are the uids with a connection and the HTTP
	 * connections, both bounded by the connection limits, and one is
	 * looked up per accepted connection only. */
	for (p = ts->peers; p != NULL; p = p->next)
		if (p->key == key && p->privileged == privileged) {
			p->refs++;
			return p;
		}
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return NULL;
	p->key = key;
	p->privileged = privileged;
	p->refs = 1;
	p->next = ts->peers;
	if (ts->peers != NULL)
		ts->peers->prev = p;
	ts->peers = p;
	ts->st.peers++;
	return p;
}

void
turns_peer_put(struct turns *ts, struct turn_peer *p)
{
	if (p == NULL || --p->refs > 0)
		return;
	while (p->head != NULL)
		turns_cancel(ts, p->head);
	if (p->prev != NULL)
		p->prev->next = p->next;
	else
		ts->peers = p->next;
	if (p->next != NULL)
		p->next->prev = p->prev;
	ts->st.peers--;
	free(p);
}

uint64_t
turns_key_unique(struct turns *ts)
{
	return ts->next_unique++;
}

void
turns_queue(struct turns *ts, struct turn_task *t)
{
	struct turn_peer *p = t->peer;

	if (t->queued)
		return;
	t->queued = true;
	t->next = NULL;
	if (p->tail != NULL)
		p->tail->next = t;
	else
		p->head = t;
	p->tail = t;
	if (!p->ready)
		rot_push(rot_of(ts, p), p);
	turns_arm(ts);
}

void
turns_cancel(struct turns *ts, struct turn_task *t)
{
	struct turn_peer *p = t->peer;
	struct turn_task **l, *prev = NULL;

	if (!t->queued)
		return;
	for (l = &p->head; *l != NULL; prev = *l, l = &(*l)->next)
		if (*l == t) {
			*l = t->next;
			if (p->tail == t)
				p->tail = prev;
			break;
		}
	t->queued = false;
	t->next = NULL;
	if (p->head == NULL && p->ready)
		rot_remove(rot_of(ts, p), p);
}

/* Run t, timed: it may queue tasks, cancel them, put peers (its own
 * among them). */
static void
turns_run(struct turns *ts, struct turn_task *t)
{
	uint64_t t0;

	ts->st.turns++;
	t0 = clock_now_ns();
	t->run(t);
	t0 = clock_now_ns() - t0;
	if (t0 > ts->st.longest_ns)
		ts->st.longest_ns = t0;
}

/* The head task of the rotation's first peer, run; the peer goes to the
 * end of the rotation if it has more. */
static void
turns_one(struct turns *ts, struct rotation *r)
{
	struct turn_peer *p = r->head;
	struct turn_task *t = p->head;

	p->head = t->next;
	if (p->head == NULL)
		p->tail = NULL;
	t->next = NULL;
	t->queued = false;
	rot_remove(r, p);
	if (p->head != NULL)
		rot_push(r, p);
	turns_run(ts, t);
}

bool
turns_run_now(struct turns *ts, struct turn_task *t)
{
	if (t->queued || ts->priv.head != NULL || ts->others.head != NULL)
		return false;
	if (!t->peer->privileged) {
		if (!ts->pass_open) {
			ts->pass_open = true;
			ts->pass_others = 0;
			event_active(ts->ev_pass, EV_TIMEOUT, 0);
		}
		if (ts->pass_others >= TURNS_ROUND_OTHERS)
			return false;
		ts->pass_others++;
	}
	ts->st.at_once++;
	turns_run(ts, t);
	return true;
}

static void
turns_round(evutil_socket_t fd, short what, void *arg)
{
	struct turns *ts = arg;
	unsigned n, i;

	(void)fd;
	(void)what;
	ts->armed = false;
	ts->st.rounds++;
	/* Each privileged peer ready at the start gets its turn: their
	 * capacity is reserved, whatever the others queue. */
	for (n = ts->priv.n, i = 0; i < n && ts->priv.head != NULL; i++)
		turns_one(ts, &ts->priv);
	n = ts->others.n < TURNS_ROUND_OTHERS ? ts->others.n :
	    TURNS_ROUND_OTHERS;
	for (i = 0; i < n && ts->others.head != NULL; i++)
		turns_one(ts, &ts->others);
	if (ts->priv.head != NULL || ts->others.head != NULL)
		turns_arm(ts);
}

void
turns_stats(const struct turns *ts, struct turns_stats *ret)
{
	*ret = ts->st;
}
