/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rthread.c: the reader threads for the control socket's reads
 * (rthread.h): lock-free lists (Treiber stacks, each read whole and
 * turned into arrival order), one into each thread and one back, an
 * eventfd for each, and each thread's own view of the store.
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

/* One reader thread: its view, its queue, its wake-up. */
struct rworker {
	struct rthread		*rt;
	struct pub_reader	*rd;
	struct rview		*rv;		/* the thread's alone */
	_Atomic(struct rjob *)	 in;		/* queued, newest first */
	int			 infd;		/* the thread sleeps on it */
	pthread_t		 th;
	bool			 running;
	bool			 reserved;	/* privileged peers' only */
	/* The thread's: what it took from in, in arrival order. */
	struct rjob		*priv, **priv_tail;
	struct rjob		*others, **others_tail;
	/* The loop's. */
	unsigned		 inflight;	/* handed over, not back */
	uint64_t		 done;		/* handed back */
};

struct rthread {
	struct pub		*p;
	_Atomic(struct rjob *)	 out;		/* run, newest first */
	int			 outfd;		/* the loop's event */
	struct event		*ev;
	_Atomic bool		 stopping;
	size_t			 n;
	struct rworker		 w[];
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
rw_next(struct rworker *w)
{
	struct rjob *j, *n;

	for (j = list_take(&w->in); j != NULL; j = n) {
		n = j->next;
		j->next = NULL;
		if (j->privileged) {
			*w->priv_tail = j;
			w->priv_tail = &j->next;
		} else {
			*w->others_tail = j;
			w->others_tail = &j->next;
		}
	}
	if ((j = w->priv) != NULL) {
		if ((w->priv = j->next) == NULL)
			w->priv_tail = &w->priv;
	} else if ((j = w->others) != NULL) {
		if ((w->others = j->next) == NULL)
			w->others_tail = &w->others;
	}
	return j;
}

static void *
rw_main(void *arg)
{
	struct rworker *w = arg;
	struct rthread *rt = w->rt;
	struct rjob *j;
	sigset_t all;
	uint64_t v;

	/* Signals are the loop's. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	for (;;) {
		if ((j = rw_next(w)) == NULL) {
			if (atomic_load(&rt->stopping) &&
			    atomic_load(&w->in) == NULL)
				break;
			/* Blocks until a job, or the stop, comes. */
			(void)!read(w->infd, &v, sizeof(v));
			continue;
		}
		/* The tests' stand-in for a thread kept off the CPU: a
		 * page that comes back long after its call. */
		if (crashpoint_fail("reader.stall")) {
			log_info("reader.stall: a %s page held",
			    j->privileged ? "privileged peer's" : "user's");
			(void)usleep(RTHREAD_STALL_US);
			log_info("reader.stall: the page held goes on");
		}
		pub_enter(w->rd);
		j->run(j, w->rv, w->rd);
		pub_leave(w->rd);
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
	struct rworker *w;
	struct rjob *j, *n;
	uint64_t v;

	(void)what;
	(void)!read(fd, &v, sizeof(v));
	for (j = list_take(&rt->out); j != NULL; j = n) {
		n = j->next;
		w = &rt->w[j->worker];
		w->inflight--;
		w->done++;
		j->done(j);
	}
}

static void
rt_free(struct rthread *rt)
{
	size_t i;

	if (rt->ev != NULL)
		event_free(rt->ev);
	if (rt->outfd >= 0)
		close(rt->outfd);
	for (i = 0; i < rt->n; i++) {
		if (rt->w[i].infd >= 0)
			close(rt->w[i].infd);
		rview_free(rt->w[i].rv);
		pub_reader_free(rt->w[i].rd);
	}
	free(rt);
}

static int
rw_init(struct rthread *rt, struct rworker *w)
{
	int e;

	w->rt = rt;
	atomic_init(&w->in, NULL);
	w->priv_tail = &w->priv;
	w->others_tail = &w->others;
	if ((w->infd = eventfd(0, EFD_CLOEXEC)) < 0)
		return -errno;
	if ((e = rview_new(rt->p, &w->rv)) < 0 ||
	    (e = pub_reader_new(rt->p, &w->rd)) < 0)
		return e;
	return 0;
}

static void
rt_join(struct rthread *rt)
{
	size_t i;

	atomic_store(&rt->stopping, true);
	for (i = 0; i < rt->n; i++)
		if (rt->w[i].running)
			efd_poke(rt->w[i].infd);
	for (i = 0; i < rt->n; i++)
		if (rt->w[i].running) {
			pthread_join(rt->w[i].th, NULL);
			rt->w[i].running = false;
		}
}

int
rthread_start(struct event_base *base, struct pub *p, unsigned n,
    struct rthread **ret)
{
	struct rthread *rt;
	size_t i;
	int e;

	if (n < 1 || n > RTHREAD_MAX)
		return -EINVAL;
	if ((rt = calloc(1, sizeof(*rt) + n * sizeof(rt->w[0]))) == NULL)
		return -ENOMEM;
	rt->p = p;
	rt->n = n;
	rt->outfd = -1;
	for (i = 0; i < n; i++)
		rt->w[i].infd = -1;
	atomic_init(&rt->out, NULL);
	atomic_init(&rt->stopping, false);
	if ((rt->outfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
		e = -errno;
		rt_free(rt);
		return e;
	}
	for (i = 0; i < n; i++)
		if ((e = rw_init(rt, &rt->w[i])) < 0) {
			rt_free(rt);
			return e;
		}
	/* With two or more, the first is kept for privileged peers: root's
	 * page waits behind no other user's, whatever they queue. */
	rt->w[0].reserved = n >= 2;
	rt->ev = event_new(base, rt->outfd, EV_READ | EV_PERSIST, rt_on_out,
	    rt);
	if (rt->ev == NULL || event_priority_set(rt->ev, PRIO_CONTROL) < 0 ||
	    event_add(rt->ev, NULL) < 0) {
		rt_free(rt);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		struct rworker *w = &rt->w[i];

		if ((e = pthread_create(&w->th, NULL, rw_main, w)) != 0) {
			rt_join(rt);
			rt_free(rt);
			return -e;
		}
		w->running = true;
		(void)pthread_setname_np(w->th, w->reserved ?
		    "statsd-reader-p" : "statsd-reader");
	}
	*ret = rt;
	return 0;
}

struct rthread *
rthread_stop(struct rthread *rt)
{
	uint64_t all = 0;
	size_t i;

	if (rt == NULL)
		return NULL;
	rt_join(rt);
	/* Every job has run: their done() now. */
	rt_on_out(rt->outfd, EV_READ, rt);
	/* For tests and operators: how much the loop left to them. */
	for (i = 0; i < rt->n; i++)
		all += rt->w[i].done;
	log_info("reader threads: %llu pages, %llu of them on the thread "
	    "kept for privileged peers", (unsigned long long)all,
	    (unsigned long long)(rt->w[0].reserved ? rt->w[0].done : 0));
	rt_free(rt);
	return NULL;
}

/*
 * The thread with the fewest jobs in hand that may take j: a privileged
 * peer's may go to any, the reserved one first on a tie; the others' never
 * to the reserved one. In the loop, which alone counts what is in hand.
 */
void
rthread_submit(struct rthread *rt, struct rjob *j)
{
	struct rworker *best = NULL, *w;
	size_t i;

	for (i = 0; i < rt->n; i++) {
		w = &rt->w[i];
		if (w->reserved && !j->privileged)
			continue;
		if (best == NULL || w->inflight < best->inflight)
			best = w;
	}
	j->worker = (unsigned)(best - rt->w);
	best->inflight++;
	list_push(&best->in, j);
	efd_poke(best->infd);
}
