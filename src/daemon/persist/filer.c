/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * filer.c: the runtime files' thread (see filer.h): one FIFO of batches
 * to make and paths to unlink under a mutex, the batches made handed
 * back in order through a second list and an eventfd.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <event2/event.h>

#include "crashpoint.h"
#include "daemon.h"
#include "filer.h"
#include "log.h"
#include "mirror.h"

/* How long the "filer.stall" failure point holds a batch (tests). */
#define FILER_STALL_US	1500000

struct filer {
	char			*dir;
	pthread_t		 th;
	pthread_mutex_t		 mu;
	pthread_cond_t		 cv;		/* work, or the stop */
	bool			 started;
	bool			 stop;
	/* Queued, oldest first. An unlink is a batch without done(), its
	 * path in arg. */
	struct filer_batch	*head, **tail;
	/* Made, oldest first: the loop's to report. */
	struct filer_batch	*made, **made_tail;
	uint64_t		 nmade, ndeleted;
	int			 efd;
	struct event		*ev;
};

static void
filer_run(struct filer *f, struct filer_batch *b)
{
	size_t i;

	if (b->done == NULL) {
		/* ENOENT: gone already (a sweep, an operator). */
		if (unlink(b->arg) < 0 && errno != ENOENT)
			log_warning("cannot delete %s: %s", (char *)b->arg,
			    strerror(errno));
		free(b->arg);
		free(b);
		pthread_mutex_lock(&f->mu);
		f->ndeleted++;
		pthread_mutex_unlock(&f->mu);
		return;
	}
	/* The tests' stand-in for a slow file system: a batch that comes
	 * back long after its call. */
	if (crashpoint_fail("filer.stall")) {
		log_info("filer.stall: a batch of %zu held", b->n);
		(void)usleep(FILER_STALL_US);
		log_info("filer.stall: the batch held goes on");
	}
	for (i = 0; i < b->n; i++) {
		struct filer_make *e = &b->e[i];

		e->m = NULL;
		/* The tests' full runtime directory, at the n-th file. */
		e->err = crashpoint_fail("filer.make") ? -ENOSPC :
		    mirror_create(f->dir, e->handle, e->blob, e->size, &e->m);
	}
	pthread_mutex_lock(&f->mu);
	f->nmade += b->n;
	b->next = NULL;
	*f->made_tail = b;
	f->made_tail = &b->next;
	pthread_mutex_unlock(&f->mu);
	(void)!eventfd_write(f->efd, 1);
}

static void *
filer_main(void *arg)
{
	struct filer *f = arg;
	struct filer_batch *b;
	sigset_t all;

	/* Signals are the loop's. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_mutex_lock(&f->mu);
	for (;;) {
		while (!f->stop && f->head == NULL)
			pthread_cond_wait(&f->cv, &f->mu);
		/* Stopping: what is queued runs first. */
		if ((b = f->head) == NULL)
			break;
		if ((f->head = b->next) == NULL)
			f->tail = &f->head;
		pthread_mutex_unlock(&f->mu);
		filer_run(f, b);
		pthread_mutex_lock(&f->mu);
	}
	pthread_mutex_unlock(&f->mu);
	return NULL;
}

/* The batches made, in order, to their done(). */
static void
filer_deliver(struct filer *f)
{
	struct filer_batch *b, *n;
	eventfd_t v;

	(void)eventfd_read(f->efd, &v);
	pthread_mutex_lock(&f->mu);
	b = f->made;
	f->made = NULL;
	f->made_tail = &f->made;
	pthread_mutex_unlock(&f->mu);
	for (; b != NULL; b = n) {
		n = b->next;
		b->done(b);
	}
}

static void
filer_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	filer_deliver(arg);
}

int
filer_new(struct event_base *base, const char *dir, struct filer **ret)
{
	struct filer *f = calloc(1, sizeof(*f));
	int r;

	if (f == NULL)
		return -ENOMEM;
	f->efd = -1;
	f->tail = &f->head;
	f->made_tail = &f->made;
	pthread_mutex_init(&f->mu, NULL);
	pthread_cond_init(&f->cv, NULL);
	if ((f->dir = strdup(dir)) == NULL) {
		r = -ENOMEM;
		goto fail;
	}
	if ((f->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0) {
		r = -errno;
		goto fail;
	}
	f->ev = event_new(base, f->efd, EV_READ | EV_PERSIST, filer_cb, f);
	/* Creates wait on it: as control calls. */
	if (f->ev == NULL || event_priority_set(f->ev, PRIO_CONTROL) < 0 ||
	    event_add(f->ev, NULL) < 0) {
		r = -ENOMEM;
		goto fail;
	}
	r = -pthread_create(&f->th, NULL, filer_main, f);
	if (r < 0)
		goto fail;
	f->started = true;
	(void)pthread_setname_np(f->th, "statsd-files");
	*ret = f;
	return 0;
fail:
	filer_free(f);
	return r;
}

struct filer *
filer_free(struct filer *f)
{
	if (f == NULL)
		return NULL;
	if (f->started) {
		pthread_mutex_lock(&f->mu);
		f->stop = true;
		pthread_cond_signal(&f->cv);
		pthread_mutex_unlock(&f->mu);
		pthread_join(f->th, NULL);
		filer_deliver(f);
		/* For tests and operators: the loop made none of them. */
		log_info("runtime files' thread: %llu made, %llu deleted",
		    (unsigned long long)f->nmade,
		    (unsigned long long)f->ndeleted);
	}
	if (f->ev != NULL)
		event_free(f->ev);
	if (f->efd >= 0)
		close(f->efd);
	pthread_cond_destroy(&f->cv);
	pthread_mutex_destroy(&f->mu);
	free(f->dir);
	free(f);
	return NULL;
}

static void
filer_push(struct filer *f, struct filer_batch *b)
{
	b->next = NULL;
	pthread_mutex_lock(&f->mu);
	*f->tail = b;
	f->tail = &b->next;
	pthread_cond_signal(&f->cv);
	pthread_mutex_unlock(&f->mu);
}

void
filer_make(struct filer *f, struct filer_batch *b)
{
	filer_push(f, b);
}

void
filer_unlink(struct filer *f, const char *path)
{
	struct filer_batch *b = calloc(1, sizeof(*b));

	if (b == NULL || (b->arg = strdup(path)) == NULL) {
		free(b);
		(void)unlink(path);
		return;
	}
	filer_push(f, b);
}

void
filer_unlink_cb(void *filer, const char *path)
{
	filer_unlink(filer, path);
}

void
filer_counts(struct filer *f, uint64_t *made, uint64_t *deleted)
{
	pthread_mutex_lock(&f->mu);
	*made = f->nmade;
	*deleted = f->ndeleted;
	pthread_mutex_unlock(&f->mu);
}
