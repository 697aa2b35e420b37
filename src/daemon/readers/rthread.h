/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rthread.h: the reader threads for the control socket's reads. The
 * event loop parses a call, checks it and queues its work here as a job;
 * a thread runs it against its own view of the store (rview.h), inside a
 * read section (pub.h), and hands it back; the loop then answers the
 * call. So a read the loop would have spent a page rendering costs the
 * loop a queue and a reply, and the drain and root's calls run meanwhile.
 *
 * Jobs come and go through lock-free lists (a push is one
 * compare-and-swap): the loop never waits for a thread, nor a thread for
 * the loop. The loop gives a job to the thread with the fewest in hand.
 * With two threads or more the first is kept for privileged peers, so
 * root's page waits for no other user's, only for another privileged
 * peer's; within a thread a privileged peer's job runs before the others
 * waiting. Each job is bounded (a page). The loop hands a peer's page
 * over in that peer's turn (turns.h), so the threads hold at most one job
 * per connection, in the order of the loop's rotation.
 */
#ifndef STATSD_DAEMON_RTHREAD_H
#define STATSD_DAEMON_RTHREAD_H

#include <stdbool.h>

struct event_base;
struct pub;
struct pub_reader;
struct rthread;
struct rview;

struct rjob {
	/* On the reader thread, inside its read section, with its view. */
	void		(*run)(struct rjob *j, struct rview *rv,
			    struct pub_reader *rd);
	/* Back on the loop, after run(). */
	void		(*done)(struct rjob *j);
	bool		 privileged;	/* runs before the others waiting */
	unsigned	 worker;	/* the thread it went to */
	struct rjob	*next;		/* the lists' */
};

/* The most reader threads (reader_threads). */
#define RTHREAD_MAX	16

/* Start n threads (1 to RTHREAD_MAX), each with its view of the store
 * registered with p, their finished jobs handed back through base; with
 * two or more, the first takes privileged peers' jobs only.
 * Returns: 0 and *ret; -EINVAL; -errno. */
int rthread_start(struct event_base *base, struct pub *p, unsigned n,
    struct rthread **ret);

/* Stop the threads: jobs not run yet are run, and every job's done() is
 * called before this returns. NULL-safe. Returns: NULL. */
struct rthread *rthread_stop(struct rthread *rt);

/* Queue j (run, done and privileged set) on the thread with the fewest
 * jobs in hand that may take it. */
void rthread_submit(struct rthread *rt, struct rjob *j);

#endif /* STATSD_DAEMON_RTHREAD_H */
