/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_checkpoint.c: what survives a restart of statsd (the state log,
 * src/daemon/persist/checkpoint.c and its ck_*.c files, with the runtime
 * files and the journal):
 * a PERSISTENT kstat comes back with its handle, template and data; after
 * a kill -9, from its runtime file, with the updates made since the last
 * checkpoint; after a reboot (the runtime directory gone), from the
 * checkpoint; a plain kstat does not come back; a damaged checkpoint is
 * set aside and statsd starts afresh; a damaged record in the middle of
 * the log is skipped (copied aside, counted) with the records after it
 * kept; a batch of kstats (KstatCreateMany's one record) cut short by a
 * crash leaves none of them; a compaction's new log is synced and
 * renamed by the persistence thread while records go on being appended
 * (to both files), and each step of that failing leaves a whole log; a
 * new log's head is synced by the thread, and failing, started again;
 * a crash at each of the thread's steps (the pass's sync handed over, a
 * new log's head written or synced) leaves a whole log. A
 * container's PERSISTENT kstat
 * comes back in its zone, found again by the container's cgroup, with its
 * owner's zone and its GZ_VIS. Each life of statsd runs in a
 * process of its own, as it does in earnest (the engine never forgets a
 * template within a process).
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "checkpoint_priv.h"
#include "crashpoint.h"
#include "daemon_statsd.h"

/* A reboot: the runtime directory comes back empty. */
static void
reboot(const char *rt)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", rt);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(mkdir(rt, 0755), 0);
}

/* Run one life of statsd in a child process; it fails the test if the
 * child does. */
typedef void life_fn(const char *, const char *);

static void
life(life_fn *fn, const char *rt, const char *st)
{
	pid_t pid = fork();
	int status;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		fn(rt, st);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "a life of statsd failed (status %d)", status);
}

static uint32_t handle;

/* Start a later life of statsd on rt and st: module:0:keep must be back
 * with its handle and the sum given. Returns: the kstat. */
static struct reg_kstat *
life_start(struct statsd *d, const char *rt, const char *st,
    const char *module, uint64_t sum)
{
	struct reg_kstat *k;

	unit_statsd_start(d, rt, st);
	k = registry_kstat_find(d->reg, module, 0, "keep");
	ck_assert_ptr_nonnull(k);
	ck_assert_uint_eq(k->handle, handle);
	ck_assert_uint_eq(unit_sum(k), sum);
	return k;
}

static void
first_life(const char *rt, const char *st)
{
	struct reg_template *t;
	struct reg_kstat *k;
	struct statsd d;

	unit_statsd_start(&d, rt, st);
	t = unit_template(&d, UNIT_TPL);
	k = unit_kstat(&d, t, "app", "keep", KSTAT_FLAG_PERSISTENT, NULL);
	unit_persist(&d, k);
	(void)unit_kstat(&d, t, "app", "plain", 0, NULL);
	ck_assert_uint_eq(k->handle, handle);
	unit_update(&d, k, 10);
	unit_statsd_stop(&d, true);
}

/* A restart: from the runtime file, the checkpoint agreeing; then
 * updates after the last checkpoint, and a kill -9. */
static void
second_life(const char *rt, const char *st)
{
	struct reg_kstat *k;
	struct statsd d;

	k = life_start(&d, rt, st, "app", 10);
	ck_assert_ptr_null(registry_kstat_find(d.reg, "app", 0, "plain"));
	ck_assert_ptr_nonnull(registry_template_find(d.reg, "T"));
	ck_assert_uint_gt(registry_next_handle(d.reg), handle);
	unit_update(&d, k, 5);
	unit_statsd_stop(&d, false);
}

/* After the kill the runtime file has the updates; after a reboot
 * cleared the runtime directory, the checkpoint has them. */
static void
third_life(const char *rt, const char *st)
{
	struct statsd d;

	(void)life_start(&d, rt, st, "app", 15);
	unit_statsd_stop(&d, true);
}

/* The lives every restart test has: the kstat made, statsd restarted
 * (then killed), back from the runtime file, and, after a reboot, back
 * from the checkpoint (the third life again). */
static void
lives(life_fn *first, life_fn *second, life_fn *third)
{
	char *rt = unit_tmpdir(), *st = unit_tmpdir();

	handle = 1;	/* the first handle of a fresh statsd */
	life(first, rt, st);
	life(second, rt, st);
	life(third, rt, st);
	reboot(rt);
	life(third, rt, st);
	free(rt);
	free(st);
}

START_TEST(restart_kill_and_reboot)
{
	lives(first_life, second_life, third_life);
}
END_TEST

static void
make_one(const char *rt, const char *st)
{
	struct reg_template *t;
	struct reg_kstat *k;
	struct statsd d;

	unit_statsd_start(&d, rt, st);
	t = unit_template(&d, UNIT_TPL);
	k = unit_kstat(&d, t, "app", "keep", KSTAT_FLAG_PERSISTENT, NULL);
	unit_persist(&d, k);
	unit_statsd_stop(&d, true);
}

static void
find_none(const char *rt, const char *st)
{
	struct statsd d;

	unit_statsd_start(&d, rt, st);
	ck_assert_ptr_null(registry_kstat_find(d.reg, "app", 0, "keep"));
	unit_statsd_stop(&d, false);
}

START_TEST(a_damaged_checkpoint_is_set_aside)
{
	char *rt = unit_tmpdir(), *st = unit_tmpdir(), path[600];
	int fd;

	life(make_one, rt, st);
	snprintf(path, sizeof(path), "%s/statsd.checkpoint", st);
	fd = open(path, O_WRONLY | O_TRUNC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "{\"not\": a checkpoint", 20), 20);
	close(fd);
	life(find_none, rt, st);
	snprintf(path, sizeof(path), "%s/statsd.checkpoint.bad", st);
	ck_assert_int_eq(access(path, F_OK), 0);
	free(rt);
	free(st);
}
END_TEST

/* Six PERSISTENT kstats, app:0:k0..k5: k0..k2 put one by one, k3..k5
 * as one batch (KstatCreateMany's record); then a kill -9. */
static void
make_six(const char *rt, const char *st)
{
	struct reg_kstat *ks[3];
	struct reg_template *t;
	struct reg_kstat *k;
	struct statsd d;
	char name[8];
	int i;

	unit_statsd_start(&d, rt, st);
	t = unit_template(&d, UNIT_TPL);
	for (i = 0; i < 6; i++) {
		snprintf(name, sizeof(name), "k%d", i);
		k = unit_kstat(&d, t, "app", name, KSTAT_FLAG_PERSISTENT, NULL);
		unit_persist(&d, k);
		if (i < 3)
			ck_assert_int_eq(checkpoint_kstat_put(d.checkpoint, k,
			    false), 0);
		else
			ks[i - 3] = k;
	}
	ck_assert_int_eq(checkpoint_kstats_put(d.checkpoint, ks, 3), 0);
	unit_statsd_stop(&d, false);
}

/* Which of k0..k5 a statsd started on rt and st restores, as a mask;
 * *ret_damaged (may be NULL) gets Info's damaged_records. */
static unsigned
six_back(const char *rt, const char *st, json_int_t *ret_damaged)
{
	struct statsd d;
	unsigned mask = 0;
	char name[8];
	json_t *p;
	int i;

	unit_statsd_start(&d, rt, st);
	for (i = 0; i < 6; i++) {
		snprintf(name, sizeof(name), "k%d", i);
		if (registry_kstat_find(d.reg, "app", 0, name) != NULL)
			mask |= 1u << i;
	}
	p = checkpoint_to_json(d.checkpoint);
	if (ret_damaged != NULL)
		*ret_damaged = json_integer_value(json_object_get(p,
		    "damaged_records"));
	json_decref(p);
	unit_statsd_stop(&d, false);
	return mask;
}

/* The log's bytes (malloc'd, NUL-ended) and the offset of the start of
 * the line holding what. */
static char *
log_read(const char *st, const char *what, size_t *ret_len, size_t *ret_at)
{
	char path[600], *buf, *hit;
	struct stat sb;
	int fd;

	snprintf(path, sizeof(path), "%s/statsd.checkpoint", st);
	fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &sb), 0);
	buf = malloc((size_t)sb.st_size + 1);
	ck_assert_int_eq(read(fd, buf, (size_t)sb.st_size), sb.st_size);
	close(fd);
	buf[sb.st_size] = '\0';
	hit = strstr(buf, what);
	ck_assert_ptr_nonnull(hit);
	while (hit > buf && hit[-1] != '\n')
		hit--;
	*ret_len = (size_t)sb.st_size;
	*ret_at = (size_t)(hit - buf);
	return buf;
}

static void
log_write(const char *st, const char *buf, size_t len)
{
	char path[600];
	int fd;

	snprintf(path, sizeof(path), "%s/statsd.checkpoint", st);
	fd = open(path, O_WRONLY | O_TRUNC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, buf, len), (ssize_t)len);
	close(fd);
}

static unsigned
aside_files(const char *st)
{
	char cmd[700];

	snprintf(cmd, sizeof(cmd), "test $(ls '%s' | grep -c "
	    "'^statsd.checkpoint.damaged-') -eq 1", st);
	return system(cmd) == 0;
}

START_TEST(a_damaged_record_is_skipped_the_rest_kept)
{
	char *rt = unit_tmpdir(), *st = unit_tmpdir(), *buf;
	json_int_t damaged = -1;
	size_t len, at;

	life(make_six, rt, st);
	ck_assert_uint_eq(six_back(rt, st, NULL), 0x3f);
	/* Again on fresh directories, with damage this time. */
	free(rt);
	free(st);
	rt = unit_tmpdir();
	st = unit_tmpdir();
	life(make_six, rt, st);
	/* One bit of k1's record, in the middle of its line. */
	buf = log_read(st, "\"name\":\"k1\"", &len, &at);
	buf[at + (strchr(buf + at, '\n') - (buf + at)) / 2] ^= 0x01;
	log_write(st, buf, len);
	free(buf);
	ck_assert_uint_eq(six_back(rt, st, &damaged), 0x3d);
	ck_assert_int_eq(damaged, 1);
	ck_assert(aside_files(st));
	/* The records after it are in the log for good; no damage left. */
	ck_assert_uint_eq(six_back(rt, st, &damaged), 0x3d);
	ck_assert_int_eq(damaged, 0);
	free(rt);
	free(st);
}
END_TEST

START_TEST(a_batch_cut_short_leaves_none_of_it)
{
	char *rt = unit_tmpdir(), *st = unit_tmpdir(), *buf;
	json_int_t damaged = -1;
	size_t len, at;

	life(make_six, rt, st);
	/* The batch's line, the log's last, cut in its middle: a crash
	 * while it was written. */
	buf = log_read(st, "\"t\":\"batch\"", &len, &at);
	ck_assert_uint_eq(strchr(buf + at, '\n') - buf + 1, len);
	log_write(st, buf, at + (len - at) / 2);
	free(buf);
	ck_assert_uint_eq(six_back(rt, st, &damaged), 0x07);
	ck_assert_int_eq(damaged, 0);
	free(rt);
	free(st);
}
END_TEST

/* Set key to v in the record of the log holding what, framed again as
 * statsd frames it (so the record is valid, not damaged). */
static void
log_edit(const char *st, const char *what, const char *key, json_t *v)
{
	char *buf, *line, *out;
	const char *json;
	json_t *rec;
	size_t len, at, end, n;

	buf = log_read(st, what, &len, &at);
	end = (size_t)(strchr(buf + at, '\n') - buf);
	json = strchr(strchr(buf + at, ' ') + 1, ' ') + 1;
	rec = json_loadb(json, end - (size_t)(json - buf), 0, NULL);
	ck_assert_ptr_nonnull(rec);
	ck_assert_int_eq(json_object_set_new(rec, key, v), 0);
	line = ck_line(rec, &n);
	ck_assert_ptr_nonnull(line);
	json_decref(rec);
	out = malloc(len + n);
	memcpy(out, buf, at);
	memcpy(out + at, line, n);
	memcpy(out + at + n, buf + end + 1, len - end - 1);
	log_write(st, out, at + n + len - end - 1);
	free(out);
	free(line);
	free(buf);
}

/* k0 is back, still dormant; k1 (renamed k0) is not. */
static void
dormant_k0_kept(const char *rt, const char *st)
{
	struct reg_kstat *k;
	struct statsd d;

	unit_statsd_start(&d, rt, st);
	k = registry_kstat_find(d.reg, "app", 0, "k0");
	ck_assert_ptr_nonnull(k);
	ck_assert(k->dormant);
	ck_assert_ptr_null(registry_kstat_find(d.reg, "app", 0, "k1"));
	ck_assert_ptr_nonnull(registry_kstat_find(d.reg, "app", 0, "k2"));
	unit_statsd_stop(&d, true);
}

/* Regression (found by fuzz_checkpoint): a second record naming a kstat
 * already restored dormant, under another handle, revived the first and
 * leaked the runtime file made for it. Now it is refused, and the first
 * is restored as its own record has it. */
START_TEST(a_second_record_of_one_name_is_refused)
{
	char *rt = unit_tmpdir(), *st = unit_tmpdir();

	life(make_six, rt, st);
	log_edit(st, "\"name\":\"k0\"", "dormant", json_true());
	log_edit(st, "\"name\":\"k1\"", "name", json_string("k0"));
	life(dormant_k0_kept, rt, st);
	/* Again: the refusal changed nothing that was restored. */
	life(dormant_k0_kept, rt, st);
	free(rt);
	free(st);
}
END_TEST

/* A PERSISTENT kstat made in a container (zones = cgroup): its zone is
 * named by the container's cgroup. */
static void
zone_first_life(const char *rt, const char *st)
{
	struct reg_template *t;
	struct reg_kstat *k;
	struct quota_refusal why;
	struct statsd d;
	uint32_t zone;
	bool rv;

	unit_statsd_start(&d, rt, st);
	t = unit_template(&d, UNIT_TPL);
	ck_assert_int_eq(zones_of_name(d.zones, "/machine.slice/machine-a.scope",
	    &zone), 0);
	{
		struct kstat_hdr h;
		struct reg_kstat_new n = {
			.hdr = &h, .owner = 1000,
			.owner_zone = zone, .zone = zone, .gz = true, .tpl = t,
		};

		unit_hdr(&h, "zapp", "keep", KSTAT_FLAG_PERSISTENT);
		ck_assert_int_eq(registry_kstat_create(d.reg, &n, &k, &rv,
		    &why), 0);
	}
	zones_unref(d.zones, zone);
	ck_assert_uint_eq(k->handle, handle);
	ck_assert(checkpoint_outlives_statsd(d.zones, k));
	unit_persist(&d, k);
	ck_assert_int_eq(checkpoint_kstat_put(d.checkpoint, k, false), 0);
	unit_update(&d, k, 3);
	unit_statsd_stop(&d, true);
}

/* Back in the zone of that cgroup; updates, then a kill -9. */
static void
zone_second_life(const char *rt, const char *st)
{
	struct reg_kstat *k;
	struct statsd d;
	uint32_t zone;

	k = life_start(&d, rt, st, "zapp", 3);
	ck_assert_uint_ne(k->zone, ZONE_GLOBAL);
	ck_assert_str_eq(zones_cgroup(d.zones, k->zone),
	    "/machine.slice/machine-a.scope");
	ck_assert_uint_eq(k->owner_zone, k->zone);
	ck_assert_uint_eq(k->owner, 1000);
	ck_assert(reg_kstat_gz(k));
	/* A peer of that container, now, is in that zone. */
	ck_assert_int_eq(zones_of_name(d.zones,
	    "/machine.slice/machine-a.scope", &zone), 0);
	ck_assert_uint_eq(zone, k->zone);
	zones_unref(d.zones, zone);
	unit_update(&d, k, 4);
	unit_statsd_stop(&d, false);
}

static void
zone_third_life(const char *rt, const char *st)
{
	struct reg_kstat *k;
	struct statsd d;

	k = life_start(&d, rt, st, "zapp", 7);
	ck_assert_str_eq(zones_cgroup(d.zones, k->zone),
	    "/machine.slice/machine-a.scope");
	unit_statsd_stop(&d, true);
}

START_TEST(a_container_kstat_comes_back_in_its_zone)
{
	lives(zone_first_life, zone_second_life, zone_third_life);
}
END_TEST

/* ------------------------------------- durable off the loop: the thread */

#define CP_N	20

/* What the thread's steps are to do in a life (a failure point armed,
 * or none), and what the life then finds. */
static const char *cp_fail;

static void
cp_arm(void)
{
	if (cp_fail != NULL)
		setenv("STATSD_TEST_FAIL_AT", cp_fail, 1);
	else
		unsetenv("STATSD_TEST_FAIL_AT");
	crashpoint_init();
}

static void
cp_wake(void *arg)
{
	(void)arg;
}

/* Run the loop until w is answered (bounded: a hang fails the test).
 * Returns: its result. */
static int
cp_wait(struct statsd *d, struct checkpoint_wait *w)
{
	unsigned i;

	for (i = 0; w->result == 1 && i < 1000000; i++)
		event_base_loop(d->base, EVLOOP_ONCE);
	ck_assert_int_ne(w->result, 1);
	return w->result;
}

/* Put k's record unsynced and wait for it. Returns: the wait's
 * result. */
static int
cp_put(struct statsd *d, struct reg_kstat *k)
{
	struct checkpoint_wait w = { .wake = cp_wake };
	int r;

	checkpoint_unsynced(d->checkpoint, true);
	r = checkpoint_kstat_put(d->checkpoint, k, false);
	checkpoint_unsynced(d->checkpoint, false);
	if (r < 0)
		return r;
	r = checkpoint_wait(d->checkpoint, &w);
	return r == 1 ? cp_wait(d, &w) : r;
}

static off_t
cp_file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_size : -1;
}

/*
 * CP_N PERSISTENT kstats, then records of cp:0:k0 until the log is past
 * its compaction's mark: the pass compacts it, and hands the new log's
 * sync and rename to the thread; while the thread has it, cp:0:k1 is
 * updated and put (its record goes to both files). Its wait is answered
 * once the new log is in place (or, its end failing, the old one
 * synced).
 */
static void
compact_life(const char *rt, const char *st)
{
	struct checkpoint_wait w = { .wake = cp_wake };
	struct reg_kstat *ks[CP_N];
	struct reg_template *t;
	struct checkpoint *c;
	struct statsd d;
	char name[16];
	unsigned i;
	bool seen = false;

	cp_arm();
	unit_statsd_start(&d, rt, st);
	c = d.checkpoint;
	t = unit_template(&d, UNIT_TPL);
	for (i = 0; i < CP_N; i++) {
		snprintf(name, sizeof(name), "k%u", i);
		ks[i] = unit_kstat(&d, t, "cp", name, KSTAT_FLAG_PERSISTENT,
		    NULL);
		unit_persist(&d, ks[i]);
		ck_assert_int_eq(cp_put(&d, ks[i]), 0);
	}
	/* Old records of k0 until compacting is due (written, the loop
	 * not run: the pass starts from the loop's next turn). */
	checkpoint_unsynced(c, true);
	while (c->size <= 2 * c->live + CKPT_COMPACT_MIN)
		ck_assert_int_eq(checkpoint_kstat_put(c, ks[0], false), 0);
	checkpoint_unsynced(c, false);
	for (i = 0; i < 100000 && !c->swapping && c->compactions == 0; i++)
		event_base_loop(d.base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
	/* Between the loop's turn that handed it over and the one told it
	 * is done (the thread's answer comes through the loop): never in
	 * one turn. */
	seen = c->swapping;
	ck_assert(seen);
	ck_assert_int_ge(cp_file_size(c->tmp), 1);
	unit_update(&d, ks[1], 7);
	checkpoint_unsynced(c, true);
	ck_assert_int_eq(checkpoint_kstat_put(c, ks[1], false), 0);
	checkpoint_unsynced(c, false);
	ck_assert_int_eq(checkpoint_wait(c, &w), 1);
	ck_assert_int_eq(cp_wait(&d, &w), 0);
	ck_assert(!c->swapping);
	/* Failing before its rename: the log as it was (its record synced
	 * there); after: the new one, in place. */
	if (cp_fail != NULL && strncmp(cp_fail, "compact.dirsync", 15) != 0)
		ck_assert_uint_eq(c->compactions, 0);
	else
		ck_assert_uint_eq(c->compactions, 1);
	ck_assert_int_eq(cp_file_size(c->tmp), -1);
	ck_assert_int_eq(cp_file_size(c->path), (off_t)c->size);
	ck_assert_uint_eq(c->synced, c->size);
	/* Told to the state directory's health: usable again (a sync that
	 * works came after any failure). */
	ck_assert(checkpoint_status(c, NULL));
	/* As a kill -9 leaves it: no last checkpoint. */
	unit_statsd_stop(&d, false);
}

/* After a reboot (from the log alone): every kstat, cp:0:k1 with the
 * update its record made while the compaction was being put in place
 * holds; and the log compacts again (no failure armed). */
static void
compact_back(const char *rt, const char *st)
{
	struct reg_kstat *k;
	struct statsd d;
	char name[16];
	unsigned i;

	cp_fail = NULL;
	cp_arm();
	unit_statsd_start(&d, rt, st);
	for (i = 0; i < CP_N; i++) {
		snprintf(name, sizeof(name), "k%u", i);
		k = registry_kstat_find(d.reg, "cp", 0, name);
		ck_assert_ptr_nonnull(k);
		ck_assert_uint_eq(unit_sum(k), i == 1 ? 7 : 0);
	}
	ck_assert_uint_eq(d.checkpoint->damaged_records, 0);
	unit_statsd_stop(&d, true);
}

static void
compact_case(const char *fail)
{
	char *rt = unit_tmpdir(), *st = unit_tmpdir();

	cp_fail = fail;
	life(compact_life, rt, st);
	reboot(rt);
	life(compact_back, rt, st);
	free(rt);
	free(st);
}

START_TEST(a_compaction_is_put_in_place_by_the_thread)
{
	compact_case(NULL);
}
END_TEST

/* Each step of the end failing once: before the rename the old log
 * stays (what was appended meanwhile synced there), after it (its
 * directory's sync) the new one is synced again before the changes
 * waiting are answered. */
START_TEST(a_compaction_whose_end_fails_keeps_a_whole_log)
{
	compact_case("compact.sync");
	compact_case("compact.rename");
	compact_case("compact.dirsync");
}
END_TEST

/*
 * The log gone while statsd runs (its descriptor closed, as a cut of a
 * log whose head was never durable leaves it): the next PERSISTENT
 * change starts a new one, whose head's sync (and its directory's) the
 * thread makes before the change's. Failing, the change is refused and
 * the log started again by the next one.
 */
static void
open_life(const char *rt, const char *st)
{
	struct reg_template *t;
	struct reg_kstat *k;
	struct checkpoint *c;
	struct statsd d;

	cp_arm();
	unit_statsd_start(&d, rt, st);
	c = d.checkpoint;
	t = unit_template(&d, UNIT_TPL);
	k = unit_kstat(&d, t, "op", "k", KSTAT_FLAG_PERSISTENT, NULL);
	unit_persist(&d, k);
	close(c->fd);
	c->fd = -1;
	ck_assert_int_eq(unlink(c->path), 0);
	if (cp_fail != NULL) {
		ck_assert_int_lt(cp_put(&d, k), 0);
		/* Nothing of it: not even a head. */
		ck_assert_int_eq(c->fd, -1);
		ck_assert_int_le(cp_file_size(c->path), 0);
	}
	ck_assert_int_eq(cp_put(&d, k), 0);
	ck_assert_int_ge(c->fd, 0);
	ck_assert_uint_eq(c->synced, c->size);
	ck_assert_int_eq(cp_file_size(c->path), (off_t)c->size);
	unit_statsd_stop(&d, false);
}

static void
open_back(const char *rt, const char *st)
{
	struct statsd d;

	cp_fail = NULL;
	cp_arm();
	unit_statsd_start(&d, rt, st);
	ck_assert_ptr_nonnull(registry_kstat_find(d.reg, "op", 0, "k"));
	ck_assert_uint_eq(d.checkpoint->damaged_records, 0);
	unit_statsd_stop(&d, false);
}

static void
open_case(const char *fail)
{
	char *rt = unit_tmpdir(), *st = unit_tmpdir();

	cp_fail = fail;
	life(open_life, rt, st);
	reboot(rt);
	life(open_back, rt, st);
	free(rt);
	free(st);
}

START_TEST(a_new_log_is_started_by_the_thread)
{
	open_case(NULL);
	open_case("open.sync");
}
END_TEST

/* Run fn as a life of statsd that must stop at the crash point armed
 * (exit CRASHPOINT_EXIT, as a kill -9 there leaves it). */
static const char *cp_crash;

static void
life_crash(life_fn *fn, const char *rt, const char *st)
{
	pid_t pid = fork();
	int status;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		setenv("STATSD_TEST_CRASH_AT", cp_crash, 1);
		fn(rt, st);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) ==
	    CRASHPOINT_EXIT, "statsd did not stop at %s (status %d)",
	    cp_crash, status);
}

/* A kept kstat updated to 9 and put; updated to 11; the periodic pass
 * writes its record and hands the sync to the thread. */
static void
pass_life(const char *rt, const char *st)
{
	struct reg_template *t;
	struct reg_kstat *k;
	struct statsd d;
	unsigned i;

	cp_fail = NULL;
	cp_arm();
	unit_statsd_start(&d, rt, st);
	t = unit_template(&d, UNIT_TPL);
	k = unit_kstat(&d, t, "ps", "k", KSTAT_FLAG_PERSISTENT, NULL);
	unit_persist(&d, k);
	unit_update(&d, k, 9);
	ck_assert_int_eq(cp_put(&d, k), 0);
	unit_update(&d, k, 2);
	event_active(d.checkpoint->ev_tick, EV_TIMEOUT, 0);
	for (i = 0; i < 1000; i++)
		event_base_loop(d.base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
	/* (Not reached with the crash point armed.) */
	unit_statsd_stop(&d, false);
}

/* After a reboot, from the log alone: the pass's record, whole. */
static void
pass_back(const char *rt, const char *st)
{
	struct reg_kstat *k;
	struct statsd d;

	unit_statsd_start(&d, rt, st);
	k = registry_kstat_find(d.reg, "ps", 0, "k");
	ck_assert_ptr_nonnull(k);
	ck_assert_uint_eq(unit_sum(k), 11);
	ck_assert_uint_eq(d.checkpoint->damaged_records, 0);
	unit_statsd_stop(&d, false);
}

/* A new log while statsd runs, killed with its head written and not
 * synced, or synced by the thread and the loop not told: after the
 * restart an empty log, or one with the kstat (its record may have been
 * written meanwhile; its caller was not answered), never damage. */
static void
open_crash_back(const char *rt, const char *st)
{
	struct statsd d;

	unit_statsd_start(&d, rt, st);
	if (strcmp(cp_crash, "log.opened") == 0)
		ck_assert_ptr_null(registry_kstat_find(d.reg, "op", 0, "k"));
	ck_assert_uint_eq(d.checkpoint->damaged_records, 0);
	ck_assert_int_ge(d.checkpoint->fd, 0);
	unit_statsd_stop(&d, false);
}

START_TEST(crash_at_each_step_of_the_thread)
{
	static const char *const opens[] = { "log.opened", "open.synced" };
	char *rt, *st;
	size_t i;

	/* The periodic pass's records handed to the thread. */
	rt = unit_tmpdir();
	st = unit_tmpdir();
	cp_crash = "pass.handed";
	life_crash(pass_life, rt, st);
	reboot(rt);
	life(pass_back, rt, st);
	free(rt);
	free(st);
	for (i = 0; i < sizeof(opens) / sizeof(opens[0]); i++) {
		rt = unit_tmpdir();
		st = unit_tmpdir();
		cp_fail = NULL;
		cp_crash = opens[i];
		life_crash(open_life, rt, st);
		reboot(rt);
		life(open_crash_back, rt, st);
		free(rt);
		free(st);
	}
}
END_TEST

static Suite *
checkpoint_suite(void)
{
	Suite *s = suite_create("checkpoint");
	TCase *tc = tcase_create("checkpoint");

	tcase_add_test(tc, restart_kill_and_reboot);
	tcase_add_test(tc, a_damaged_checkpoint_is_set_aside);
	tcase_add_test(tc, a_damaged_record_is_skipped_the_rest_kept);
	tcase_add_test(tc, a_batch_cut_short_leaves_none_of_it);
	tcase_add_test(tc, a_second_record_of_one_name_is_refused);
	tcase_add_test(tc, a_container_kstat_comes_back_in_its_zone);
	tcase_add_test(tc, a_compaction_is_put_in_place_by_the_thread);
	tcase_add_test(tc, a_compaction_whose_end_fails_keeps_a_whole_log);
	tcase_add_test(tc, a_new_log_is_started_by_the_thread);
	tcase_add_test(tc, crash_at_each_step_of_the_thread);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_main(checkpoint_suite());
}
