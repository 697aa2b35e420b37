/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rthread.h: a reader thread for the control socket's reads. The event
 * loop parses a call, checks it and queues its work here as a job; the
 * thread runs it against its own view of the store (rview.h), inside a
 * read section (pub.h), and hands it back; the loop then answers the
 * call. So a read the loop would have spent a page rendering costs the
 * loop a queue and a reply, and the drain and root's calls run meanwhile.
 *
 * Jobs come and go through two lock-free lists (a push is one
 * compare-and-swap): the loop never waits for the thread, nor the thread
 * for the loop. A job of a privileged peer runs before the others that
 * wait; each job is bounded (a page). The loop hands a peer's page over
 * in that peer's turn (turns.h), so the thread's queue holds at most one
 * job per connection, in the order of the loop's rotation.
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
	struct rjob	*next;		/* the lists' */
};

/* Start the thread, its view of the store registered with p, its
 * finished jobs handed back through base. Returns: 0 and *ret; -errno. */
int rthread_start(struct event_base *base, struct pub *p,
    struct rthread **ret);

/* Stop the thread: jobs not run yet are run, and every job's done() is
 * called before this returns. NULL-safe. Returns: NULL. */
struct rthread *rthread_stop(struct rthread *rt);

/* Queue j (run and done set). */
void rthread_submit(struct rthread *rt, struct rjob *j);

#endif /* STATSD_DAEMON_RTHREAD_H */
