/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rthread.c: the reader thread for the control socket's reads
 * (rthread.h): two lock-free lists (a Treiber stack each, read whole and
 * turned into arrival order), an eventfd each way, and the thread's own
 * view of the store.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <event2/event.h>

#include "crashpoint.h"
#include "daemon.h"
#include "log.h"
#include "pub.h"
#include "rthread.h"
#include "rview.h"

/* How long the "reader.stall" failure point holds a page (tests). */
#define RTHREAD_STALL_US	1500000

struct rthread {
	struct pub		*p;
	struct pub_reader	*rd;
	struct rview		*rv;		/* the thread's alone */
	_Atomic(struct rjob *)	 in;		/* queued, newest first */
	_Atomic(struct rjob *)	 out;		/* run, newest first */
	int			 infd;		/* the thread sleeps on it */
	int			 outfd;		/* the loop's event */
	struct event		*ev;
	pthread_t		 th;
	bool			 running;
	_Atomic bool		 stopping;
	/* The thread's: what it took from in, in arrival order. */
	struct rjob		*priv, **priv_tail;
	struct rjob		*others, **others_tail;
	uint64_t		 done;		/* the loop's: handed back */
};

static void
list_push(_Atomic(struct rjob *) *l, struct rjob *j)
{
	struct rjob *h = atomic_load(l);

	do
		j->next = h;
	while (!atomic_compare_exchange_weak(l, &h, j));
}

/* Everything on l, oldest first. */
static struct rjob *
list_take(_Atomic(struct rjob *) *l)
{
	struct rjob *h = atomic_exchange(l, NULL), *r = NULL, *n;

	for (; h != NULL; h = n) {
		n = h->next;
		h->next = r;
		r = h;
	}
	return r;
}

static void
efd_poke(int fd)
{
	uint64_t one = 1;

	(void)!write(fd, &one, sizeof(one));
}

/* The next job: a privileged peer's before the others. */
static struct rjob *
rt_next(struct rthread *rt)
{
	struct rjob *j, *n;

	for (j = list_take(&rt->in); j != NULL; j = n) {
		n = j->next;
		j->next = NULL;
		if (j->privileged) {
			*rt->priv_tail = j;
			rt->priv_tail = &j->next;
		} else {
			*rt->others_tail = j;
			rt->others_tail = &j->next;
		}
	}
	if ((j = rt->priv) != NULL) {
		if ((rt->priv = j->next) == NULL)
			rt->priv_tail = &rt->priv;
	} else if ((j = rt->others) != NULL) {
		if ((rt->others = j->next) == NULL)
			rt->others_tail = &rt->others;
	}
	return j;
}

static void *
rt_main(void *arg)
{
	struct rthread *rt = arg;
	struct rjob *j;
	sigset_t all;
	uint64_t v;

	/* Signals are the loop's. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	for (;;) {
		if ((j = rt_next(rt)) == NULL) {
			if (atomic_load(&rt->stopping) &&
			    atomic_load(&rt->in) == NULL)
				break;
			/* Blocks until a job, or the stop, comes. */
			(void)!read(rt->infd, &v, sizeof(v));
			continue;
		}
		/* The tests' stand-in for a thread kept off the CPU: a
		 * page that comes back long after its call. */
		if (crashpoint_fail("reader.stall"))
			(void)usleep(RTHREAD_STALL_US);
		pub_enter(rt->rd);
		j->run(j, rt->rv, rt->rd);
		pub_leave(rt->rd);
		list_push(&rt->out, j);
		efd_poke(rt->outfd);
	}
	return NULL;
}

/* Jobs run: their done(), in the loop. */
static void
rt_on_out(evutil_socket_t fd, short what, void *arg)
{
	struct rthread *rt = arg;
	struct rjob *j, *n;
	uint64_t v;

	(void)what;
	(void)!read(fd, &v, sizeof(v));
	for (j = list_take(&rt->out); j != NULL; j = n) {
		n = j->next;
		rt->done++;
		j->done(j);
	}
}

static void
rt_free(struct rthread *rt)
{
	if (rt->ev != NULL)
		event_free(rt->ev);
	if (rt->infd >= 0)
		close(rt->infd);
	if (rt->outfd >= 0)
		close(rt->outfd);
	rview_free(rt->rv);
	pub_reader_free(rt->rd);
	free(rt);
}

int
rthread_start(struct event_base *base, struct pub *p, struct rthread **ret)
{
	struct rthread *rt = calloc(1, sizeof(*rt));
	int e;

	if (rt == NULL)
		return -ENOMEM;
	rt->p = p;
	rt->infd = rt->outfd = -1;
	atomic_init(&rt->in, NULL);
	atomic_init(&rt->out, NULL);
	atomic_init(&rt->stopping, false);
	rt->priv_tail = &rt->priv;
	rt->others_tail = &rt->others;
	if ((rt->infd = eventfd(0, EFD_CLOEXEC)) < 0 ||
	    (rt->outfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
		e = -errno;
		rt_free(rt);
		return e;
	}
	if ((e = rview_new(p, &rt->rv)) < 0 ||
	    (e = pub_reader_new(p, &rt->rd)) < 0) {
		rt_free(rt);
		return e;
	}
	rt->ev = event_new(base, rt->outfd, EV_READ | EV_PERSIST, rt_on_out,
	    rt);
	if (rt->ev == NULL || event_priority_set(rt->ev, PRIO_CONTROL) < 0 ||
	    event_add(rt->ev, NULL) < 0) {
		rt_free(rt);
		return -ENOMEM;
	}
	if ((e = pthread_create(&rt->th, NULL, rt_main, rt)) != 0) {
		rt_free(rt);
		return -e;
	}
	rt->running = true;
	(void)pthread_setname_np(rt->th, "statsd-reader");
	*ret = rt;
	return 0;
}

struct rthread *
rthread_stop(struct rthread *rt)
{
	if (rt == NULL)
		return NULL;
	if (rt->running) {
		atomic_store(&rt->stopping, true);
		efd_poke(rt->infd);
		pthread_join(rt->th, NULL);
	}
	/* Every job has run: their done() now. */
	rt_on_out(rt->outfd, EV_READ, rt);
	/* For tests and operators: how much the loop left to it. */
	log_info("reader thread: %llu pages", (unsigned long long)rt->done);
	rt_free(rt);
	return NULL;
}

void
rthread_submit(struct rthread *rt, struct rjob *j)
{
	list_push(&rt->in, j);
	efd_poke(rt->infd);
}
