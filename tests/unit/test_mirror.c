/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_mirror.c: PERSISTENT kstats' runtime files (src/daemon/mirror.c):
 * a file holds its blob across an unmap (a restart) and is opened again
 * only with the birth stamp it was made with; a file of another handle,
 * birth or shape is refused, never mapped; the registry's storage view
 * leads back to the file; a sweep removes the runtime files no record
 * names and nothing else.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include "daemon_unit.h"
#include "blobstore.h"
#include "mirror.h"

START_TEST(blob_outlives_the_mapping)
{
	struct statsblob *sb = unit_blob("mir");
	char *rt = unit_tmpdir(), *dir;
	struct mirror *m, *again;
	uint64_t birth;
	uint32_t size = sb->cursz;

	ck_assert_int_eq(mirror_dir_make(rt, &dir), 0);
	ck_assert_int_eq(mirror_create(dir, 7, sb, size, &m), 0);
	ck_assert_uint_eq(mirror_size(m), size);
	ck_assert_int_eq(memcmp(mirror_blob(m), sb, size), 0);
	ck_assert_ptr_eq(mirror_of(mirror_storage(m)), m);
	ck_assert_ptr_eq(mirror_storage(m)->blob, mirror_blob(m));
	birth = mirror_birth(m);
	/* A change made through the mapping is in the file. */
	((uint8_t *)mirror_blob(m))[size - 1] ^= 0x5a;
	mirror_close(m);
	ck_assert_int_eq(mirror_open(dir, 7, birth, &again), 0);
	ck_assert_uint_eq(mirror_size(again), size);
	ck_assert_int_eq(memcmp(mirror_blob(again), sb, size - 1), 0);
	ck_assert_uint_eq(((uint8_t *)mirror_blob(again))[size - 1],
	    ((uint8_t *)sb)[size - 1] ^ 0x5a);
	mirror_close(again);
	/* Another birth (a file of an earlier life), or no file. */
	ck_assert_int_eq(mirror_open(dir, 7, birth + 1, &again), -EBADMSG);
	ck_assert_int_eq(mirror_open(dir, 8, birth, &again), -ENOENT);
	mirror_close(NULL);
	stats_blob_destroy(sb);
	free(dir);
	free(rt);
}
END_TEST

START_TEST(hostile_files_are_refused)
{
	struct statsblob *sb = unit_blob("mirbad");
	char *rt = unit_tmpdir(), *dir, path[512];
	struct mirror *m;
	uint64_t birth;
	int fd;

	ck_assert_int_eq(mirror_dir_make(rt, &dir), 0);
	ck_assert_int_eq(mirror_create(dir, 3, sb, sb->cursz, &m), 0);
	birth = mirror_birth(m);
	mirror_close(m);
	snprintf(path, sizeof(path), "%s/3.kstat", dir);
	/* Shortened: not its full size. */
	ck_assert_int_eq(truncate(path, 100), 0);
	ck_assert_int_eq(mirror_open(dir, 3, birth, &m), -EBADMSG);
	/* Its header overwritten. */
	ck_assert_int_eq(mirror_create(dir, 3, sb, sb->cursz, &m), 0);
	birth = mirror_birth(m);
	mirror_close(m);
	fd = open(path, O_WRONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pwrite(fd, "garbage!", 8, 0), 8);
	close(fd);
	ck_assert_int_eq(mirror_open(dir, 3, birth, &m), -EBADMSG);
	/* A link in its place is not followed. */
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(symlink("/etc/passwd", path), 0);
	ck_assert_int_lt(mirror_open(dir, 3, birth, &m), 0);
	stats_blob_destroy(sb);
	free(dir);
	free(rt);
}
END_TEST

/* Keeps handle 2 only. */
static int
keep_two(void *arg, uint32_t handle)
{
	(*(unsigned *)arg)++;
	return handle == 2;
}

START_TEST(files_no_record_names_are_swept)
{
	struct statsblob *sb = unit_blob("swp");
	char *rt = unit_tmpdir(), *dir, path[600];
	struct mirror *m;
	unsigned asked = 0;
	uint32_t h;
	int fd;

	ck_assert_int_eq(mirror_dir_make(rt, &dir), 0);
	for (h = 1; h <= 3; h++) {
		ck_assert_int_eq(mirror_create(dir, h, sb, sb->cursz, &m), 0);
		mirror_close(m);
	}
	/* Not runtime files: left alone, never asked about. */
	snprintf(path, sizeof(path), "%s/rings.journal", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	snprintf(path, sizeof(path), "%s/0x1.kstat", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_uint_eq(mirror_sweep(dir, keep_two, &asked), 2);
	ck_assert_uint_eq(asked, 3);
	ck_assert_int_eq(access(path, F_OK), 0);
	snprintf(path, sizeof(path), "%s/rings.journal", dir);
	ck_assert_int_eq(access(path, F_OK), 0);
	for (h = 1; h <= 3; h++) {
		snprintf(path, sizeof(path), "%s/%u.kstat", dir, (unsigned)h);
		ck_assert_int_eq(access(path, F_OK) == 0, h == 2);
	}
	free(dir);
	free(rt);
	stats_blob_destroy(sb);
}
END_TEST

/* A blob size past the file's room is never written to its header:
 * statsd aborts (base/invariant.h) rather than lose the kstat at the
 * next start. */
START_TEST(a_size_past_the_room_aborts)
{
	struct statsblob *sb = unit_blob("mir");
	char *rt = unit_tmpdir(), *dir;
	struct mirror *m;

	ck_assert_int_eq(mirror_dir_make(rt, &dir), 0);
	ck_assert_int_eq(mirror_create(dir, 7, sb, sb->cursz, &m), 0);
	blob_storage_set_size(mirror_storage(m), BLOB_STORAGE_CAP);
	ck_assert_uint_eq(mirror_size(m), BLOB_STORAGE_CAP);
	blob_storage_set_size(mirror_storage(m), BLOB_STORAGE_CAP + 1);
}
END_TEST

static Suite *
mirror_suite(void)
{
	Suite *s = suite_create("mirror");
	TCase *tc = tcase_create("mirror");

	tcase_add_test(tc, blob_outlives_the_mapping);
	tcase_add_test(tc, hostile_files_are_refused);
	tcase_add_test(tc, files_no_record_names_are_swept);
	tcase_add_test_raise_signal(tc, a_size_past_the_room_aborts, SIGABRT);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_main(mirror_suite());
}
