/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * syncer.h: the persistence thread. The event loop writes state-log
 * records into the page cache (microseconds) and hands the fdatasync(2)
 * that makes them durable to this thread, which may take milliseconds or,
 * on a loaded disk, seconds: meanwhile the loop goes on serving everyone.
 *
 * Group commit: requests that arrive while a sync runs are merged into
 * one, the newest: a sync covers every record written before it started,
 * so one fdatasync answers them all (as PostgreSQL's and InnoDB's log
 * writers do). The result comes back to the loop, in request order,
 * through an eventfd: done() runs in the loop, never in the thread.
 */
#ifndef STATSD_DAEMON_SYNCER_H
#define STATSD_DAEMON_SYNCER_H

#include <stdint.h>

struct event_base;
struct syncer;

/* What a sync covered: the caller's numbers, given back. */
struct syncer_req {
	uint64_t	seq;	/* records written before it */
	uint64_t	size;	/* the file's size then */
	uint64_t	gen;	/* which file (the caller's count) */
	/* A job (syncer_job): run on the thread instead of a sync; its
	 * result is work's. NULL for a sync. */
	int		(*work)(void *arg);
	void		*arg;
};

typedef void syncer_done_fn(void *arg, const struct syncer_req *req,
    int err);

/* Start the thread; done(arg, req, 0 or -errno) is called from base's
 * loop once a request is synced. Returns: 0 and *ret; -errno. */
int syncer_new(struct event_base *base, syncer_done_fn *done, void *arg,
    struct syncer **ret);

/* Stop the thread (a sync under way finishes; requests not started are
 * dropped, without done()). NULL-safe. Returns: NULL. */
struct syncer *syncer_free(struct syncer *s);

/* Sync fd (duplicated here: the caller may close its own at once) and
 * then report req. Returns: 0; -errno (nothing queued). */
int syncer_request(struct syncer *s, int fd, const struct syncer_req *req);

/*
 * Run req->work(req->arg) on the thread (a compaction's new log synced
 * and renamed into place, a new log's first sync with its directory's),
 * then report req with its result. Jobs are never merged, run in the
 * order given, and each runs before any sync not yet started: a sync
 * asked for after a job is made after it. Returns: 0; -EAGAIN (too many
 * jobs waiting: nothing queued).
 */
int syncer_job(struct syncer *s, const struct syncer_req *req);

/* Wait until the thread is idle (every request and job run) and report
 * their results here, in the calling thread (at exit, with no loop
 * running). */
void syncer_drain(struct syncer *s);

/* Syncs run since start (Info). */
uint64_t syncer_count(struct syncer *s);

#endif
