/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_syncer.c: the persistence thread (src/daemon/persist/syncer.c):
 * every request is answered, in order, from the event loop, the last
 * one with the newest numbers; requests made while a sync runs are
 * merged (group commit: never more syncs than requests); an injected
 * sync failure (STATSD_TEST_FAIL_AT=sync) is reported as -EIO; stopping
 * with a request pending calls nothing.
 */
#include <errno.h>
#include <fcntl.h>
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
		struct syncer_req req = { i, i * 10, 7 };

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
	struct syncer_req one = { 1, 10, 7 }, two = { 2, 20, 7 };
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

static Suite *
syncer_suite(void)
{
	Suite *s = suite_create("syncer");
	TCase *tc = tcase_create("syncer");

	tcase_add_test(tc, requests_are_answered_in_order_and_merged);
	tcase_add_test(tc, a_failed_sync_is_reported);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_main(syncer_suite());
}
