/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * turns.h: fair turns between the peers of the event loop. Every piece
 * of work a peer asks for that is not the writer's own (a call read off
 * a control connection, a page of a paged or streamed reply, a slice of a
 * deferred call, a page of an HTTP scrape) is a task queued on its peer,
 * and run from here: one task of a peer per turn, the peers in rotation,
 * so that a user with many connections, or many calls pipelined, takes
 * one turn in each round, as a user with one does.
 *
 * A peer is a uid on the control socket, and each HTTP connection on its
 * own (scrapes are anonymous: no user's turn is theirs). Privileged
 * peers are a rotation of their own that every round serves whole before
 * the others; the others share at most TURNS_ROUND_OTHERS turns a round.
 * A round runs from the loop (a zero time-out at control priority), so
 * the drain and the sockets' events come between two rounds; every task
 * is bounded (a call, a page, a slice), so a round is too.
 *
 * The scheduler is the loop's alone: no locking.
 */
#ifndef STATSD_DAEMON_TURNS_H
#define STATSD_DAEMON_TURNS_H

#include <stdbool.h>
#include <stdint.h>

struct event_base;
struct turns;
struct turn_peer;

/* Unprivileged peers served in one round at most. */
#define TURNS_ROUND_OTHERS	4u

struct turn_task {
	/* Run once per queueing; queue it again (turns_queue()) for more. */
	void			(*run)(struct turn_task *t);
	struct turn_peer	*peer;
	struct turn_task	*next;
	bool			 queued;
};

/* Returns: 0 and *ret; -ENOMEM. */
int turns_new(struct event_base *base, int priority, struct turns **ret);

/* No task may be queued any more. NULL-safe. Returns: NULL. */
struct turns *turns_free(struct turns *ts);

/*
 * turns_peer_get: the peer of key (a uid; or, for a peer of its own,
 * turns_key_unique()), made on first use, with one more reference.
 * Returns: it; NULL without memory.
 */
struct turn_peer *turns_peer_get(struct turns *ts, uint64_t key,
    bool privileged);

/* Drop a reference (no task of the holder may stay queued). NULL-safe. */
void turns_peer_put(struct turns *ts, struct turn_peer *p);

/* A key no uid has, for a peer of its own (an HTTP connection). */
uint64_t turns_key_unique(struct turns *ts);

/* Queue t on its peer (t->run and t->peer set); queued already: nothing. */
void turns_queue(struct turns *ts, struct turn_task *t);

/*
 * turns_run_now: run t at once, from the caller's own event callback, as
 * a turn taken without waiting for a round, when that is fair: no task at
 * all is queued (no peer waits for a turn), t is not, and, for an
 * unprivileged peer, fewer than TURNS_ROUND_OTHERS turns were taken so in
 * this pass of the loop. A privileged peer whose event comes later in the
 * same pass then waits for no more calls of the others than a round would
 * make it. The round's zero time-out costs a second epoll_wait(2) a call,
 * and the caller's poll taken off and put back two epoll_ctl(2) calls;
 * a client making one call at a time pays neither.
 * Returns: true if t ran; false if not (the caller queues it).
 */
bool turns_run_now(struct turns *ts, struct turn_task *t);

/* Take t off its peer's queue, if it is there. */
void turns_cancel(struct turns *ts, struct turn_task *t);

/* Turns run since start, and rounds (for Info and the tests). */
struct turns_stats {
	uint64_t	turns;
	uint64_t	rounds;
	uint64_t	peers;		/* that have a reference now */
	uint64_t	longest_ns;	/* the longest turn, by the clock */
	uint64_t	at_once;	/* of the turns, run at once */
};
void turns_stats(const struct turns *ts, struct turns_stats *ret);

#endif
