/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_pub.c: what the writer publishes for reader threads (pub.c):
 * templates found by hash through additions, removals and growth; a
 * retired object freed only once no reader section that could hold it is
 * open; and reader threads looking things up while the writer changes,
 * retires and reclaims them (also run under ThreadSanitizer, which sees
 * a free racing a read).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include <check.h>

#include "pub.h"

/* The pub suite never looks inside a template: any object will do. */
struct reg_template {
	uint64_t	hash;
	_Atomic int	alive;
};

static _Atomic unsigned freed;

static void
count_free(void *arg)
{
	atomic_fetch_add(&freed, 1);
	free(arg);
}

static void
tpl_free(void *arg)
{
	struct reg_template *t = arg;

	atomic_store(&t->alive, 0);
	free(t);
}

static struct reg_template *
tpl_new(uint64_t hash)
{
	struct reg_template *t = calloc(1, sizeof(*t));

	ck_assert_ptr_nonnull(t);
	t->hash = hash;
	atomic_init(&t->alive, 1);
	return t;
}

START_TEST(templates_by_hash)
{
	struct reg_template *t[600];
	struct pub *p;
	unsigned i;

	ck_assert_int_eq(pub_new(&p), 0);
	ck_assert_ptr_null(pub_tpl_find(p, 1));
	/* Enough to grow the table several times. */
	for (i = 0; i < 600; i++) {
		t[i] = tpl_new(1000 + i);
		ck_assert_int_eq(pub_tpl_add(p, t[i], t[i]->hash), 0);
	}
	for (i = 0; i < 600; i++)
		ck_assert_ptr_eq(pub_tpl_find(p, 1000 + i), t[i]);
	ck_assert_ptr_null(pub_tpl_find(p, 999));
	/* Every other one goes; the rest are still found past the
	 * tombstones. */
	for (i = 0; i < 600; i += 2) {
		pub_tpl_remove(p, t[i], t[i]->hash);
		ck_assert_int_eq(pub_retire(p, tpl_free, t[i]), 0);
	}
	for (i = 0; i < 600; i++)
		if (i % 2 == 0)
			ck_assert_ptr_null(pub_tpl_find(p, 1000 + i));
		else
			ck_assert_ptr_eq(pub_tpl_find(p, 1000 + i), t[i]);
	/* Two templates of one hash (one definition, two owners): either
	 * is found while one is left. */
	{
		struct reg_template *a = tpl_new(7), *b = tpl_new(7);

		ck_assert_int_eq(pub_tpl_add(p, a, 7), 0);
		ck_assert_int_eq(pub_tpl_add(p, b, 7), 0);
		ck_assert_ptr_nonnull(pub_tpl_find(p, 7));
		pub_tpl_remove(p, a, 7);
		ck_assert_ptr_eq(pub_tpl_find(p, 7), b);
		pub_tpl_remove(p, b, 7);
		ck_assert_ptr_null(pub_tpl_find(p, 7));
		free(a);
		free(b);
	}
	ck_assert_uint_eq(pub_reclaim(p), 0);
	for (i = 1; i < 600; i += 2)
		free(t[i]);
	pub_free(p);
}
END_TEST

START_TEST(retired_waits_for_sections)
{
	struct pub_reader *r1, *r2;
	struct pub *p;

	atomic_store(&freed, 0);
	ck_assert_int_eq(pub_new(&p), 0);
	ck_assert_int_eq(pub_reader_new(p, &r1), 0);
	ck_assert_int_eq(pub_reader_new(p, &r2), 0);
	/* Outside any section: freed at the next reclaim. */
	ck_assert_int_eq(pub_retire(p, count_free, malloc(8)), 0);
	ck_assert_uint_eq(pub_reclaim(p), 0);
	ck_assert_uint_eq(atomic_load(&freed), 1);
	/* A section open before the retirement holds it... */
	pub_enter(r1);
	ck_assert_int_eq(pub_retire(p, count_free, malloc(8)), 0);
	/* ...and one opened after does not. */
	pub_enter(r2);
	ck_assert_uint_eq(pub_reclaim(p), 1);
	ck_assert_uint_eq(atomic_load(&freed), 1);
	pub_leave(r2);
	ck_assert_uint_eq(pub_reclaim(p), 1);
	pub_leave(r1);
	ck_assert_uint_eq(pub_reclaim(p), 0);
	ck_assert_uint_eq(atomic_load(&freed), 2);
	/* A section opened after a retirement does not hold it. */
	ck_assert_int_eq(pub_retire(p, count_free, malloc(8)), 0);
	pub_enter(r1);
	ck_assert_uint_eq(pub_reclaim(p), 0);
	ck_assert_uint_eq(atomic_load(&freed), 3);
	pub_leave(r1);
	pub_reader_free(r1);
	pub_reader_free(r2);
	/* What is still retired goes with the publication. */
	ck_assert_int_eq(pub_retire(p, count_free, malloc(8)), 0);
	pub_free(p);
	ck_assert_uint_eq(atomic_load(&freed), 4);
}
END_TEST

START_TEST(readers_bounded)
{
	struct pub_reader *r[PUB_READERS], *extra;
	struct pub *p;
	unsigned i;

	ck_assert_int_eq(pub_new(&p), 0);
	for (i = 0; i < PUB_READERS; i++)
		ck_assert_int_eq(pub_reader_new(p, &r[i]), 0);
	ck_assert_int_eq(pub_reader_new(p, &extra), -EBUSY);
	pub_reader_free(r[3]);
	ck_assert_int_eq(pub_reader_new(p, &extra), 0);
	ck_assert_ptr_eq(extra, r[3]);
	for (i = 0; i < PUB_READERS; i++)
		pub_reader_free(r[i]);
	pub_free(p);
}
END_TEST

START_TEST(segments_and_conf)
{
	struct pub_seg v[3] = {
		{ .serial = 1, .zone = 0 },
		{ .serial = 2, .zone = 5, .gz = true },
		{ .serial = 3, .zone = 5, .priv = true },
	};
	const struct pub_segs *s;
	struct pub *p;

	atomic_store(&freed, 0);
	ck_assert_int_eq(pub_new(&p), 0);
	ck_assert_uint_eq(pub_segs(p)->n, 0);
	ck_assert_int_eq(pub_segs_set(p, v, 3), 0);
	s = pub_segs(p);
	ck_assert_uint_eq(s->n, 3);
	ck_assert_uint_eq(s->v[1].zone, 5);
	ck_assert(s->v[1].gz);
	ck_assert(s->v[2].priv);
	ck_assert_ptr_null(pub_conf(p));
	pub_conf_set(p, malloc(8), count_free);
	pub_conf_set(p, malloc(8), count_free);
	ck_assert_ptr_nonnull(pub_conf(p));
	ck_assert_uint_eq(pub_reclaim(p), 0);
	ck_assert_uint_eq(atomic_load(&freed), 1);
	pub_free(p);
	ck_assert_uint_eq(atomic_load(&freed), 2);
}
END_TEST

/* Readers look templates and segments up while the writer replaces
 * them: every one a reader finds is alive for its whole section. */
struct race {
	struct pub		*p;
	struct pub_reader	*rd;
	_Atomic bool		 stop;
	uint64_t		 found;
};

static void *
race_reader(void *arg)
{
	struct race *r = arg;

	while (!atomic_load(&r->stop)) {
		const struct reg_template *t;
		const struct pub_segs *s;
		uint64_t h;

		pub_enter(r->rd);
		s = pub_segs(r->p);
		for (h = 0; h < 64; h++) {
			t = pub_tpl_find(r->p, h);
			if (t == NULL)
				continue;
			/* Read twice, across the writer's changes. */
			ck_assert_int_eq(atomic_load(&((struct reg_template *)
			    t)->alive), 1);
			ck_assert_uint_eq(t->hash, h);
			r->found++;
		}
		if (s->n > 0)
			ck_assert_uint_eq(s->v[s->n - 1].serial, s->n);
		pub_leave(r->rd);
	}
	return NULL;
}

START_TEST(readers_race_the_writer)
{
	struct reg_template *live[64] = { NULL };
	struct pub_seg segs[8];
	struct race r[2];
	pthread_t th[2];
	struct pub *p;
	unsigned i, round;

	ck_assert_int_eq(pub_new(&p), 0);
	for (i = 0; i < 2; i++) {
		r[i].p = p;
		atomic_init(&r[i].stop, false);
		r[i].found = 0;
		ck_assert_int_eq(pub_reader_new(p, &r[i].rd), 0);
		ck_assert_int_eq(pthread_create(&th[i], NULL, race_reader,
		    &r[i]), 0);
	}
	for (round = 0; round < 20000; round++) {
		unsigned h = (round * 37u) % 64u;

		if (live[h] != NULL) {
			pub_tpl_remove(p, live[h], h);
			ck_assert_int_eq(pub_retire(p, tpl_free, live[h]), 0);
			live[h] = NULL;
		} else {
			live[h] = tpl_new(h);
			ck_assert_int_eq(pub_tpl_add(p, live[h], h), 0);
		}
		if (round % 16 == 0) {
			size_t n = round / 16 % 8 + 1;

			for (i = 0; i < n; i++)
				segs[i] = (struct pub_seg){ .serial = i + 1 };
			ck_assert_int_eq(pub_segs_set(p, segs, n), 0);
		}
		if (round % 8 == 0)
			(void)pub_reclaim(p);
	}
	for (i = 0; i < 2; i++) {
		atomic_store(&r[i].stop, true);
		pthread_join(th[i], NULL);
		pub_reader_free(r[i].rd);
	}
	ck_assert_uint_eq(pub_reclaim(p), 0);
	for (i = 0; i < 64; i++)
		free(live[i]);
	pub_free(p);
}
END_TEST

static Suite *
pub_suite(void)
{
	Suite *s = suite_create("pub");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, templates_by_hash);
	tcase_add_test(tc, retired_waits_for_sections);
	tcase_add_test(tc, readers_bounded);
	tcase_add_test(tc, segments_and_conf);
	tcase_add_test(tc, readers_race_the_writer);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(pub_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
