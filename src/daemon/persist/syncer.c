/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * syncer.c: the persistence thread (see syncer.h): one request waiting
 * (the newest replaces an older one not yet started), a few jobs queued
 * (run first, in order), one at a time, results handed to the loop in
 * order through an eventfd.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <event2/event.h>

#include "crashpoint.h"
#include "daemon.h"
#include "log.h"
#include "syncer.h"

/* Results the loop has not taken yet: the thread waits past this many
 * (a loop that stalls holds the thread, not memory). */
#define SYNCER_RESULTS	16
/* Jobs queued at most (the checkpoint has one at a time). */
#define SYNCER_JOBS	4

struct syncer_res {
	struct syncer_req	req;
	int			err;
};

struct syncer {
	pthread_t		 th;
	pthread_mutex_t		 mu;
	pthread_cond_t		 cv;		/* a request, room, or stop */
	pthread_cond_t		 idle;		/* nothing queued or running */
	bool			 started;
	bool			 stop;
	bool			 busy;		/* a sync or job running */
	/* Jobs queued, in order. */
	struct syncer_req	 jobs[SYNCER_JOBS];
	unsigned		 njobs;
	/* The request waiting, if want: its descriptor is the thread's. */
	bool			 want;
	int			 fd;
	struct syncer_req	 req;
	/* Results in order, for the loop. */
	struct syncer_res	 res[SYNCER_RESULTS];
	unsigned		 nres;
	uint64_t		 count;
	int			 efd;
	struct event		*ev;
	syncer_done_fn		*done;
	void			*arg;
};

static void *
syncer_main(void *arg)
{
	struct syncer *s = arg;
	struct syncer_req req;
	uint64_t one = 1;
	int fd, err;

	pthread_mutex_lock(&s->mu);
	for (;;) {
		while (!s->stop && ((!s->want && s->njobs == 0) ||
		    s->nres == SYNCER_RESULTS))
			pthread_cond_wait(&s->cv, &s->mu);
		if (s->stop)
			break;
		s->busy = true;
		if (s->njobs > 0) {
			/* A job first: a sync asked for after it must not
			 * run before it. */
			req = s->jobs[0];
			s->njobs--;
			memmove(&s->jobs[0], &s->jobs[1], s->njobs *
			    sizeof(s->jobs[0]));
			pthread_mutex_unlock(&s->mu);
			err = req.work(req.arg);
		} else {
			fd = s->fd;
			req = s->req;
			s->want = false;
			s->fd = -1;
			pthread_mutex_unlock(&s->mu);
			err = crashpoint_fail("sync") ? -EIO :
			    fdatasync(fd) < 0 ? -errno : 0;
			close(fd);
		}
		pthread_mutex_lock(&s->mu);
		s->busy = false;
		if (!s->want && s->njobs == 0)
			pthread_cond_broadcast(&s->idle);
		s->count++;
		s->res[s->nres].req = req;
		s->res[s->nres].err = err;
		s->nres++;
		if (s->nres == SYNCER_RESULTS)
			pthread_cond_broadcast(&s->idle);
		/* Woken by the eventfd: the loop takes the results (a
		 * counter at its limit is a wakeup already pending). */
		(void)!write(s->efd, &one, sizeof(one));
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

/* The results, in order, to done(). */
static void
syncer_deliver(struct syncer *s)
{
	struct syncer_res res[SYNCER_RESULTS];
	uint64_t v;
	unsigned i, n;

	if (read(s->efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		log_error("syncer: eventfd: %s", strerror(errno));
	pthread_mutex_lock(&s->mu);
	n = s->nres;
	memcpy(res, s->res, n * sizeof(res[0]));
	s->nres = 0;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
	for (i = 0; i < n; i++)
		s->done(s->arg, &res[i].req, res[i].err);
}

/* In the loop. */
static void
syncer_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	syncer_deliver(arg);
}

void
syncer_drain(struct syncer *s)
{
	bool more;

	do {
		pthread_mutex_lock(&s->mu);
		while (s->want || s->njobs > 0 || s->busy) {
			/* Results at their limit hold the thread: take
			 * them. */
			if (s->nres == SYNCER_RESULTS)
				break;
			pthread_cond_wait(&s->idle, &s->mu);
		}
		more = s->want || s->njobs > 0 || s->busy;
		pthread_mutex_unlock(&s->mu);
		/* (A done() may ask for more.) */
		syncer_deliver(s);
		pthread_mutex_lock(&s->mu);
		more = more || s->want || s->njobs > 0 || s->busy;
		pthread_mutex_unlock(&s->mu);
	} while (more);
}

int
syncer_new(struct event_base *base, syncer_done_fn *done, void *arg,
    struct syncer **ret)
{
	struct syncer *s = calloc(1, sizeof(*s));
	int r;

	if (s == NULL)
		return -ENOMEM;
	s->fd = -1;
	s->done = done;
	s->arg = arg;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	pthread_cond_init(&s->idle, NULL);
	s->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (s->efd < 0) {
		r = -errno;
		goto fail;
	}
	s->ev = event_new(base, s->efd, EV_READ | EV_PERSIST, syncer_cb, s);
	if (s->ev == NULL) {
		r = -ENOMEM;
		goto fail;
	}
	/* Answers to callers waiting on durability: as control calls. */
	event_priority_set(s->ev, PRIO_CONTROL);
	event_add(s->ev, NULL);
	r = -pthread_create(&s->th, NULL, syncer_main, s);
	if (r < 0)
		goto fail;
	s->started = true;
	pthread_setname_np(s->th, "statsd-sync");
	*ret = s;
	return 0;
fail:
	syncer_free(s);
	return r;
}

struct syncer *
syncer_free(struct syncer *s)
{
	if (s == NULL)
		return NULL;
	if (s->started) {
		pthread_mutex_lock(&s->mu);
		s->stop = true;
		pthread_cond_signal(&s->cv);
		pthread_mutex_unlock(&s->mu);
		pthread_join(s->th, NULL);
	}
	if (s->fd >= 0)
		close(s->fd);
	if (s->ev != NULL)
		event_free(s->ev);
	if (s->efd >= 0)
		close(s->efd);
	pthread_cond_destroy(&s->cv);
	pthread_cond_destroy(&s->idle);
	pthread_mutex_destroy(&s->mu);
	free(s);
	return NULL;
}

int
syncer_request(struct syncer *s, int fd, const struct syncer_req *req)
{
	int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 3), old = -1;

	if (dup_fd < 0)
		return -errno;
	pthread_mutex_lock(&s->mu);
	/* Group commit: a request not started yet is covered by this one
	 * (it reports the newer numbers). */
	if (s->want)
		old = s->fd;
	s->want = true;
	s->fd = dup_fd;
	s->req = *req;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
	if (old >= 0)
		close(old);
	return 0;
}

int
syncer_job(struct syncer *s, const struct syncer_req *req)
{
	pthread_mutex_lock(&s->mu);
	if (s->njobs == SYNCER_JOBS) {
		pthread_mutex_unlock(&s->mu);
		return -EAGAIN;
	}
	s->jobs[s->njobs++] = *req;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
	return 0;
}

uint64_t
syncer_count(struct syncer *s)
{
	uint64_t n;

	pthread_mutex_lock(&s->mu);
	n = s->count;
	pthread_mutex_unlock(&s->mu);
	return n;
}
