/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_filer.c: the runtime files' thread (src/daemon/persist/filer.c):
 * a batch's files are made on the thread, each holding its first
 * content, and reported from the event loop in the order asked; an
 * unlink asked for before a make of the same handle runs before it (the
 * new file stays), one asked for after runs after (the file goes); an
 * injected failure ("filer.make") fails that file alone; a removed
 * runtime file is deleted by the thread once mirror_unlink_by() names
 * it; and stopping runs everything queued and reports it without a loop.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/event.h>

#include "crashpoint.h"
#include "daemon_unit.h"
#include "filer.h"
#include "mirror.h"

struct seen {
	struct event_base	*base;
	struct filer_batch	*order[8];
	unsigned		 n;
	unsigned		 until;	/* break the loop after this many */
};

static void
done(struct filer_batch *b)
{
	struct seen *s = b->arg;

	ck_assert_uint_lt(s->n, 8);
	s->order[s->n++] = b;
	if (s->n == s->until && s->base != NULL)
		event_base_loopbreak(s->base);
}

static struct event_base *
base_new(void)
{
	struct event_base *base = event_base_new();

	ck_assert_ptr_nonnull(base);
	ck_assert_int_eq(event_base_priority_init(base, 2), 0);
	return base;
}

static bool
exists(const char *dir, uint32_t handle)
{
	char path[600];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%u.kstat", dir, (unsigned)handle);
	return stat(path, &st) == 0;
}

static void
batch_init(struct filer_batch *b, struct filer_make *e, size_t n,
    uint32_t first, const char *content, struct seen *s)
{
	size_t i;

	memset(b, 0, sizeof(*b));
	memset(e, 0, n * sizeof(*e));
	for (i = 0; i < n; i++) {
		e[i].handle = first + (uint32_t)i;
		e[i].size = (uint32_t)strlen(content) + 1;
		e[i].blob = content;
	}
	b->e = e;
	b->n = n;
	b->done = done;
	b->arg = s;
}

START_TEST(a_batch_is_made_and_reported_in_order)
{
	struct seen s = { .base = base_new(), .until = 2 };
	struct filer_batch b1, b2;
	struct filer_make e1[3], e2[1];
	struct filer *f;
	char *dir = unit_tmpdir();
	uint64_t made, deleted;
	size_t i;

	ck_assert_int_eq(filer_new(s.base, dir, &f), 0);
	batch_init(&b1, e1, 3, 10, "first", &s);
	batch_init(&b2, e2, 1, 20, "second", &s);
	filer_make(f, &b1);
	filer_make(f, &b2);
	ck_assert_int_eq(event_base_dispatch(s.base), 0);
	ck_assert_uint_eq(s.n, 2);
	ck_assert_ptr_eq(s.order[0], &b1);
	ck_assert_ptr_eq(s.order[1], &b2);
	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(e1[i].err, 0);
		ck_assert_ptr_nonnull(e1[i].m);
		ck_assert_str_eq(mirror_blob(e1[i].m), "first");
		ck_assert_uint_eq(mirror_size(e1[i].m), 6);
		ck_assert(exists(dir, 10 + (uint32_t)i));
		mirror_close(e1[i].m);
	}
	ck_assert_str_eq(mirror_blob(e2[0].m), "second");
	mirror_close(e2[0].m);
	filer_counts(f, &made, &deleted);
	ck_assert_uint_eq(made, 4);
	ck_assert_uint_eq(deleted, 0);
	filer_free(f);
	event_base_free(s.base);
	free(dir);
}
END_TEST

START_TEST(unlinks_keep_their_place_in_the_queue)
{
	struct seen s = { .base = base_new(), .until = 1 };
	struct filer_batch b;
	struct filer_make e[1];
	struct filer *f;
	char *dir = unit_tmpdir(), path[600];
	FILE *old;

	/* An old file of handle 5, deleted before handle 5 is made
	 * again: the new one stays. */
	snprintf(path, sizeof(path), "%s/5.kstat", dir);
	old = fopen(path, "w");
	ck_assert_ptr_nonnull(old);
	fclose(old);
	ck_assert_int_eq(filer_new(s.base, dir, &f), 0);
	filer_unlink(f, path);
	batch_init(&b, e, 1, 5, "new", &s);
	filer_make(f, &b);
	ck_assert_int_eq(event_base_dispatch(s.base), 0);
	ck_assert_int_eq(e[0].err, 0);
	ck_assert(exists(dir, 5));
	/* Deleted after it was made: gone once the queue ran. */
	filer_unlink(f, path);
	filer_free(f);
	ck_assert(!exists(dir, 5));
	mirror_close(e[0].m);
	/* A file already gone is no error. */
	ck_assert_int_eq(filer_new(s.base, dir, &f), 0);
	filer_unlink(f, path);
	filer_free(f);
	event_base_free(s.base);
	free(dir);
}
END_TEST

START_TEST(an_injected_failure_fails_one_file)
{
	struct seen s = { .base = base_new(), .until = 1 };
	struct filer_batch b;
	struct filer_make e[3];
	struct filer *f;
	char *dir = unit_tmpdir();

	setenv("STATSD_TEST_FAIL_AT", "filer.make:2", 1);
	crashpoint_init();
	ck_assert_int_eq(filer_new(s.base, dir, &f), 0);
	batch_init(&b, e, 3, 1, "x", &s);
	filer_make(f, &b);
	ck_assert_int_eq(event_base_dispatch(s.base), 0);
	ck_assert_int_eq(e[0].err, 0);
	ck_assert_int_eq(e[1].err, -ENOSPC);
	ck_assert_ptr_null(e[1].m);
	ck_assert(!exists(dir, 2));
	ck_assert_int_eq(e[2].err, 0);
	mirror_close(e[0].m);
	mirror_close(e[2].m);
	filer_free(f);
	unsetenv("STATSD_TEST_FAIL_AT");
	crashpoint_init();
	event_base_free(s.base);
	free(dir);
}
END_TEST

START_TEST(a_removed_file_is_deleted_by_the_thread)
{
	struct seen s = { .base = base_new(), .until = 1 };
	struct filer_batch b;
	struct filer_make e[1];
	struct filer *f;
	char *dir = unit_tmpdir();
	uint64_t made, deleted;

	ck_assert_int_eq(filer_new(s.base, dir, &f), 0);
	batch_init(&b, e, 1, 7, "gone", &s);
	filer_make(f, &b);
	ck_assert_int_eq(event_base_dispatch(s.base), 0);
	mirror_unlink_by(filer_unlink_cb, f);
	blob_storage_remove(mirror_storage(e[0].m));
	filer_free(f);
	mirror_unlink_by(NULL, NULL);
	ck_assert(!exists(dir, 7));
	event_base_free(s.base);
	/* Without one, at once. */
	s.base = base_new();
	s.n = 0;
	ck_assert_int_eq(filer_new(s.base, dir, &f), 0);
	filer_make(f, &b);
	ck_assert_int_eq(event_base_dispatch(s.base), 0);
	filer_counts(f, &made, &deleted);
	ck_assert_uint_eq(made, 1);
	ck_assert_uint_eq(deleted, 0);
	blob_storage_remove(mirror_storage(e[0].m));
	ck_assert(!exists(dir, 7));
	filer_free(f);
	event_base_free(s.base);
	free(dir);
}
END_TEST

START_TEST(stopping_runs_what_is_queued)
{
	struct seen s = { .base = NULL, .until = 0 };
	struct event_base *base = base_new();
	struct filer_batch b[3];
	struct filer_make e[3][2];
	struct filer *f;
	char *dir = unit_tmpdir();
	size_t i;

	ck_assert_int_eq(filer_new(base, dir, &f), 0);
	for (i = 0; i < 3; i++) {
		batch_init(&b[i], e[i], 2, 100 + 2 * (uint32_t)i, "q", &s);
		filer_make(f, &b[i]);
	}
	/* No loop runs: filer_free() reports them. */
	filer_free(f);
	ck_assert_uint_eq(s.n, 3);
	for (i = 0; i < 3; i++) {
		ck_assert_ptr_eq(s.order[i], &b[i]);
		ck_assert_int_eq(e[i][0].err, 0);
		ck_assert_int_eq(e[i][1].err, 0);
		mirror_close(e[i][0].m);
		mirror_close(e[i][1].m);
	}
	ck_assert(exists(dir, 105));
	event_base_free(base);
	free(dir);
}
END_TEST

static Suite *
filer_suite(void)
{
	Suite *s = suite_create("filer");
	TCase *tc = tcase_create("filer");

	tcase_add_test(tc, a_batch_is_made_and_reported_in_order);
	tcase_add_test(tc, unlinks_keep_their_place_in_the_queue);
	tcase_add_test(tc, an_injected_failure_fails_one_file);
	tcase_add_test(tc, a_removed_file_is_deleted_by_the_thread);
	tcase_add_test(tc, stopping_runs_what_is_queued);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_main(filer_suite());
}
