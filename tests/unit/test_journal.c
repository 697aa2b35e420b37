/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_journal.c: the ring journal (src/daemon/journal.c), as a kill -9
 * leaves it: a ring handed back to the next statsd skips exactly the
 * records of the interrupted pass that were applied, after any number of
 * restarts (its slot is never forgotten nor given to another ring while
 * the ring may come back); a ring whose index
 * moved on skips none; another user's ring is not matched; an update cut
 * short on a PERSISTENT blob is rolled back, and one that was counted is
 * not.
 */
#include <errno.h>
#include <signal.h>

#include "daemon_unit.h"
#include "journal.h"

START_TEST(handed_back_rings_skip_what_was_applied)
{
	char *dir = unit_tmpdir();
	struct journal *jn = journal_open(dir), *again;
	struct journal_ring *j, *j2;
	uint64_t skip = 99;

	ck_assert_ptr_nonnull(jn);
	j = journal_ring_new(jn, 42, 1000);
	ck_assert_ptr_nonnull(j);
	journal_ring_pass(j, 100, 0);
	journal_ring_done(j, 3);
	journal_ring_done(j, 2);
	/* statsd is killed here: the journal stays in its file. */
	jn = journal_free(jn);
	ck_assert_ptr_null(jn);
	again = journal_open(dir);
	ck_assert_ptr_nonnull(again);
	/* Another user's ring of the same birth is a new one. */
	j2 = journal_ring_adopt(again, 42, 1001, 100, &skip);
	ck_assert_uint_eq(skip, 0);
	journal_ring_release(j2);
	/* The ring, its index not published: 5 records were applied. */
	j2 = journal_ring_adopt(again, 42, 1000, 100, &skip);
	ck_assert_ptr_nonnull(j2);
	ck_assert_uint_eq(skip, 5);
	/* Published past base: nothing to skip. */
	journal_ring_pass(j2, 200, 0);
	journal_ring_done(j2, 4);
	again = journal_free(again);
	again = journal_open(dir);
	ck_assert_ptr_nonnull(journal_ring_adopt(again, 42, 1000, 204,
	    &skip));
	ck_assert_uint_eq(skip, 0);
	journal_free(again);
	/* Without a journal every call is a no-op. */
	ck_assert_ptr_null(journal_ring_new(NULL, 1, 1));
	ck_assert_ptr_null(journal_ring_adopt(NULL, 1, 1, 0, &skip));
	journal_undo_end(NULL);
	free(dir);
}
END_TEST

START_TEST(slots_survive_any_number_of_restarts)
{
	char *dir = unit_tmpdir();
	struct journal *jn = journal_open(dir);
	struct journal_ring *j, *other;
	uint64_t skip = 99;
	int start;

	ck_assert_ptr_nonnull(jn);
	j = journal_ring_new(jn, 42, 1000);
	ck_assert_ptr_nonnull(j);
	journal_ring_pass(j, 100, 0);
	journal_ring_done(j, 7);
	/* Killed mid-pass; then ten starts and stops, each making and
	 * letting go rings of its own, before the ring comes back. */
	for (start = 0; start < 10; start++) {
		jn = journal_free(jn);
		jn = journal_open(dir);
		ck_assert_ptr_nonnull(jn);
		other = journal_ring_new(jn, 1000 + (uint64_t)start, 1000);
		ck_assert_ptr_nonnull(other);
		ck_assert_ptr_ne(other, j);
		journal_ring_release(other);
	}
	j = journal_ring_adopt(jn, 42, 1000, 100, &skip);
	ck_assert_ptr_nonnull(j);
	ck_assert_uint_eq(skip, 7);
	/* Killed again while skipping: still the same count. */
	journal_ring_pass(j, 100, 7);
	jn = journal_free(jn);
	jn = journal_open(dir);
	ck_assert_ptr_nonnull(journal_ring_adopt(jn, 42, 1000, 100, &skip));
	ck_assert_uint_eq(skip, 7);
	journal_free(jn);
	free(dir);
}
END_TEST

START_TEST(an_update_cut_short_is_rolled_back)
{
	struct statsblob *sb = unit_blob("jn"), *copy;
	char *dir = unit_tmpdir();
	struct journal *jn = journal_open(dir);
	struct journal_ring *j = journal_ring_new(jn, 7, 0);
	uint16_t vois[] = { 0 };
	uint32_t size = sb->cursz;

	copy = malloc(size);
	memcpy(copy, sb, size);
	journal_ring_pass(j, 0, 0);
	journal_undo_begin(jn, j, 9, sb, size, vois, 1);
	ck_assert_int_eq(stats_voi_update_abs_u64(sb, 0, 1), 0);
	ck_assert_int_ne(memcmp(sb, copy, size), 0);
	/* Killed before the batch was counted: put back at start. */
	journal_free(jn);
	jn = journal_open(dir);
	journal_undo_recover(jn, 8, sb, size);		/* another kstat */
	ck_assert_int_ne(memcmp(sb, copy, size), 0);
	journal_undo_recover(jn, 9, sb, size);
	ck_assert_int_eq(memcmp(sb, copy, size), 0);
	/* A batch that was applied and counted stays. */
	j = journal_ring_new(jn, 8, 0);
	journal_ring_pass(j, 0, 0);
	journal_undo_begin(jn, j, 9, sb, size, NULL, 0);
	ck_assert_int_eq(stats_voi_update_abs_u64(sb, 1, 1), 0);
	journal_ring_done(j, 1);
	memcpy(copy, sb, size);
	journal_free(jn);
	jn = journal_open(dir);
	journal_undo_recover(jn, 9, sb, size);
	ck_assert_int_eq(memcmp(sb, copy, size), 0);
	/* And one that ended normally leaves nothing to recover. */
	j = journal_ring_new(jn, 9, 0);
	journal_undo_begin(jn, j, 9, sb, size, NULL, 0);
	journal_undo_end(jn);
	ck_assert_int_eq(stats_voi_update_abs_u64(sb, 1, 3), 0);
	memcpy(copy, sb, size);
	journal_free(jn);
	jn = journal_open(dir);
	journal_undo_recover(jn, 9, sb, size);
	ck_assert_int_eq(memcmp(sb, copy, size), 0);
	journal_free(jn);
	free(copy);
	stats_blob_destroy(sb);
	free(dir);
}
END_TEST

/* An undo record begun with another journal's ring would name a slot
 * that is not the ring's: statsd aborts (base/invariant.h). */
START_TEST(a_ring_of_another_journal_aborts)
{
	struct statsblob *sb = unit_blob("jn");
	char *d1 = unit_tmpdir(), *d2 = unit_tmpdir();
	struct journal *j1 = journal_open(d1), *j2 = journal_open(d2);
	struct journal_ring *r2 = journal_ring_new(j2, 7, 0);

	ck_assert_ptr_nonnull(j1);
	ck_assert_ptr_nonnull(r2);
	journal_undo_begin(j1, r2, 9, sb, sb->cursz, NULL, 0);
}
END_TEST

static Suite *
journal_suite(void)
{
	Suite *s = suite_create("journal");
	TCase *tc = tcase_create("journal");

	tcase_add_test(tc, handed_back_rings_skip_what_was_applied);
	tcase_add_test(tc, slots_survive_any_number_of_restarts);
	tcase_add_test(tc, an_update_cut_short_is_rolled_back);
	tcase_add_test_raise_signal(tc, a_ring_of_another_journal_aborts,
	    SIGABRT);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_main(journal_suite());
}
