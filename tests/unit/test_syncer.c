/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_syncer.c: the persistence thread (src/daemon/persist/syncer.c):
 * every request is answered, in order, from the event loop, the last
 * one with the newest numbers; requests made while a sync runs are
 * merged (group commit: never more syncs than requests); an injected
 * sync failure (STATSD_TEST_FAIL_AT=sync) is reported as -EIO; stopping
 * with a request pending calls nothing; jobs run on the thread in order,
 * before a sync asked for after them, their results given back; and
 * syncer_drain() runs everything queued and reports it without a loop.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <unistd.h>

#include <event2/event.h>

#include "crashpoint.h"
#include "daemon_unit.h"
#include "syncer.h"

struct seen {
	struct event_base	*base;
	uint64_t		 seqs[64];
	int			 errs[64];
	unsigned		 n;
	uint64_t		 until;	/* break the loop at this seq */
};

static void
done(void *arg, const struct syncer_req *req, int err)
{
	struct seen *s = arg;

	ck_assert_uint_lt(s->n, 64);
	s->seqs[s->n] = req->seq;
	s->errs[s->n] = err;
	s->n++;
	ck_assert_uint_eq(req->size, req->seq * 10);
	ck_assert_uint_eq(req->gen, 7);
	if (req->seq >= s->until)
		event_base_loopbreak(s->base);
}

static int
scratch_fd(void)
{
	char *dir = unit_tmpdir(), path[600];
	int fd;

	snprintf(path, sizeof(path), "%s/log", dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "x\n", 2), 2);
	free(dir);
	return fd;
}

START_TEST(requests_are_answered_in_order_and_merged)
{
	struct seen s = { .base = event_base_new(), .until = 20 };
	struct syncer *sy;
	uint64_t i;
	unsigned k;
	int fd = scratch_fd();

	ck_assert_ptr_nonnull(s.base);
	ck_assert_int_eq(event_base_priority_init(s.base, 2), 0);
	ck_assert_int_eq(syncer_new(s.base, done, &s, &sy), 0);
	for (i = 1; i <= 20; i++) {
		struct syncer_req req = { i, i * 10, 7, NULL, NULL };

		ck_assert_int_eq(syncer_request(sy, fd, &req), 0);
	}
	/* The caller's descriptor may go at once: the thread has its own. */
	close(fd);
	ck_assert_int_eq(event_base_dispatch(s.base), 0);
	ck_assert_uint_ge(s.n, 1);
	ck_assert_uint_le(s.n, 20);
	ck_assert_uint_eq(s.seqs[s.n - 1], 20);
	for (k = 0; k < s.n; k++) {
		ck_assert_int_eq(s.errs[k], 0);
		if (k > 0)
			ck_assert_uint_gt(s.seqs[k], s.seqs[k - 1]);
	}
	ck_assert_uint_eq(syncer_count(sy), s.n);
	ck_assert_ptr_null(syncer_free(sy));
	event_base_free(s.base);
}
END_TEST

START_TEST(a_failed_sync_is_reported)
{
	struct seen s = { .base = event_base_new(), .until = 2 };
	struct syncer_req one = { 1, 10, 7, NULL, NULL };
	struct syncer_req two = { 2, 20, 7, NULL, NULL };
	struct syncer *sy;
	int fd = scratch_fd();

	setenv("STATSD_TEST_FAIL_AT", "sync:1", 1);
	crashpoint_init();
	ck_assert_int_eq(event_base_priority_init(s.base, 2), 0);
	ck_assert_int_eq(syncer_new(s.base, done, &s, &sy), 0);
	s.until = 1;
	ck_assert_int_eq(syncer_request(sy, fd, &one), 0);
	ck_assert_int_eq(event_base_dispatch(s.base), 0);
	s.until = 2;
	ck_assert_int_eq(syncer_request(sy, fd, &two), 0);
	ck_assert_int_eq(event_base_dispatch(s.base), 0);
	ck_assert_uint_eq(s.n, 2);
	ck_assert_int_eq(s.errs[0], -EIO);
	ck_assert_int_eq(s.errs[1], 0);
	/* Stopped with a request pending: nothing is called. */
	ck_assert_int_eq(syncer_request(sy, fd, &two), 0);
	ck_assert_ptr_null(syncer_free(sy));
	ck_assert_uint_eq(s.n, 2);
	close(fd);
	event_base_free(s.base);
	unsetenv("STATSD_TEST_FAIL_AT");
	crashpoint_init();
}
END_TEST

/* Jobs: what ran, in which order, on which thread. */
static pthread_t job_main;
static int job_order[8], job_n;

static int
job_work(void *arg)
{
	int id = (int)(intptr_t)arg;

	/* On the persistence thread, never the caller's. */
	ck_assert(!pthread_equal(pthread_self(), job_main));
	ck_assert_int_lt(job_n, 8);
	job_order[job_n++] = id;
	return id == 2 ? -ENOSPC : 0;
}

struct jseen {
	int		 ids[16];
	int		 errs[16];
	uint64_t	 seqs[16];
	unsigned	 n;
};

static void
jdone(void *arg, const struct syncer_req *req, int err)
{
	struct jseen *s = arg;

	ck_assert_uint_lt(s->n, 16);
	s->ids[s->n] = req->work != NULL ? (int)(intptr_t)req->arg : 0;
	s->errs[s->n] = err;
	s->seqs[s->n] = req->seq;
	s->n++;
}

START_TEST(jobs_run_in_order_before_later_syncs)
{
	struct event_base *base = event_base_new();
	struct jseen s = { .n = 0 };
	struct syncer *sy;
	int fd = scratch_fd(), i;

	job_main = pthread_self();
	job_n = 0;
	ck_assert_int_eq(event_base_priority_init(base, 2), 0);
	ck_assert_int_eq(syncer_new(base, jdone, &s, &sy), 0);
	for (i = 1; i <= 3; i++) {
		struct syncer_req req = { (uint64_t)i, 0, 1, job_work,
		    (void *)(intptr_t)i };

		ck_assert_int_eq(syncer_job(sy, &req), 0);
	}
	{
		struct syncer_req req = { 9, 0, 1, NULL, NULL };

		ck_assert_int_eq(syncer_request(sy, fd, &req), 0);
	}
	/* Every job and the sync run, reported here without a loop. */
	syncer_drain(sy);
	ck_assert_int_eq(job_n, 3);
	ck_assert_int_eq(job_order[0], 1);
	ck_assert_int_eq(job_order[1], 2);
	ck_assert_int_eq(job_order[2], 3);
	ck_assert_uint_eq(s.n, 4);
	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(s.ids[i], i + 1);
		ck_assert_int_eq(s.errs[i], i + 1 == 2 ? -ENOSPC : 0);
	}
	/* The sync asked for after the jobs, after them. */
	ck_assert_int_eq(s.ids[3], 0);
	ck_assert_uint_eq(s.seqs[3], 9);
	ck_assert_int_eq(s.errs[3], 0);
	ck_assert_uint_eq(syncer_count(sy), 4);
	/* Drained while idle: nothing more. */
	syncer_drain(sy);
	ck_assert_uint_eq(s.n, 4);
	ck_assert_ptr_null(syncer_free(sy));
	close(fd);
	event_base_free(base);
}
END_TEST

START_TEST(a_full_job_queue_refuses)
{
	struct event_base *base = event_base_new();
	struct jseen s = { .n = 0 };
	struct syncer *sy;
	unsigned queued = 0;
	int i, r;

	job_main = pthread_self();
	job_n = 0;
	ck_assert_int_eq(event_base_priority_init(base, 2), 0);
	ck_assert_int_eq(syncer_new(base, jdone, &s, &sy), 0);
	/* More than the queue holds, faster than the thread runs them or
	 * not: each is taken or refused with -EAGAIN, never lost. */
	for (i = 0; i < 64; i++) {
		struct syncer_req req = { (uint64_t)i, 0, 1, job_work,
		    (void *)(intptr_t)4 };

		r = syncer_job(sy, &req);
		ck_assert(r == 0 || r == -EAGAIN);
		if (r == 0)
			queued++;
		if (queued == 8)
			break;
	}
	syncer_drain(sy);
	ck_assert_uint_eq(s.n, queued);
	ck_assert_int_eq(job_n, (int)queued);
	ck_assert_ptr_null(syncer_free(sy));
	event_base_free(base);
}
END_TEST

static Suite *
syncer_suite(void)
{
	Suite *s = suite_create("syncer");
	TCase *tc = tcase_create("syncer");

	tcase_add_test(tc, requests_are_answered_in_order_and_merged);
	tcase_add_test(tc, a_failed_sync_is_reported);
	tcase_add_test(tc, jobs_run_in_order_before_later_syncs);
	tcase_add_test(tc, a_full_job_queue_refuses);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_main(syncer_suite());
}
