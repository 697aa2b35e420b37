/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_rview.c: a reader's view of the store (rview.c) over real
 * segments: its index in the exposition's order, kept from the change
 * logs (and walked when a log does not reach back), segments published
 * and withdrawn, who sees what, a kstat read whole with its template's
 * names; and a reader thread refreshing and reading while the writer
 * adds, removes and updates kstats (also under ThreadSanitizer).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <check.h>

#include "flat.h"
#include "kindex.h"
#include "pub.h"
#include "registry.h"
#include "rights.h"
#include "rview.h"
#include "store.h"
#include "zones.h"

static struct store_segment *
seg_new(uint32_t slots, uint32_t log_slots)
{
	struct store_params p = {
		.name = "test", .kind = STORE_SEG_PUBLIC,
		.table_slots = slots, .arena_size = 1 << 20,
		.log_slots = log_slots,
	};
	struct store_segment *s = NULL;

	ck_assert_int_eq(store_segment_new(&p, &s), 0);
	return s;
}

static struct store_ref
add(struct store_segment *s, const char *module, int32_t inst,
    const char *name, uint64_t tpl_hash)
{
	struct kstat_hdr h;
	struct store_slot x;
	struct store_ref ref;

	memset(&h, 0, sizeof(h));
	memset(&x, 0, sizeof(x));
	snprintf(h.module, sizeof(h.module), "%s", module);
	snprintf(h.name, sizeof(h.name), "%s", name);
	snprintf(h.class_, sizeof(h.class_), "misc");
	h.instance = inst;
	h.type = 1;
	x.tpl_hash = tpl_hash;
	x.ndata = 2;
	ck_assert_int_eq(store_kstat_add(s, &h, &x, 64, &ref), 0);
	return ref;
}

/* The index is in rview_cmp()'s order, and holds n entries. */
static void
check_order(struct rview *v, size_t n)
{
	const struct rv_ent *e;
	size_t i, got;

	e = rview_ents(v, &got);
	ck_assert_uint_eq(got, n);
	for (i = 1; i < got; i++)
		ck_assert_int_lt(rview_cmp(rview_str(v, e[i - 1].stem),
		    rview_str(v, e[i - 1].module), rview_str(v, e[i - 1].name),
		    e[i - 1].instance, rview_str(v, e[i].stem),
		    rview_str(v, e[i].module), rview_str(v, e[i].name),
		    e[i].instance), 0);
}

/* The kstat(1M) order holds the same n entries, in kindex_cmp()'s
 * order, and a seek finds each. */
static void
check_korder(struct rview *v, size_t n)
{
	const struct rv_ent *k, *e;
	size_t i, got, ne;

	k = rview_ents_kstat(v, &got);
	e = rview_ents(v, &ne);
	ck_assert_uint_eq(got, n);
	ck_assert_uint_eq(ne, n);
	for (i = 0; i < got; i++) {
		const char *m = rview_str(v, k[i].module);
		const char *nm = rview_str(v, k[i].name);

		if (i > 0)
			ck_assert_int_lt(kindex_cmp(rview_str(v,
			    k[i - 1].module), k[i - 1].instance,
			    rview_str(v, k[i - 1].name), m, k[i].instance,
			    nm), 0);
		ck_assert_uint_eq(rview_seek_kstat(v, m, k[i].instance, nm,
		    false), i);
		ck_assert_uint_eq(rview_seek_kstat(v, m, k[i].instance, nm,
		    true), i + 1);
	}
	ck_assert_uint_eq(rview_seek_kstat(v, NULL, 0, NULL, false), 0);
	(void)e;
}

/* Is module:inst:name in the index? */
static bool
has(struct rview *v, const char *module, int32_t inst, const char *name)
{
	const struct rv_ent *e;
	size_t i, n;

	e = rview_ents(v, &n);
	for (i = 0; i < n; i++)
		if (strcmp(rview_str(v, e[i].module), module) == 0 &&
		    strcmp(rview_str(v, e[i].name), name) == 0 &&
		    e[i].instance == inst)
			return true;
	return false;
}

static void
publish(struct pub *p, struct store_segment **segs, const uint32_t *zone,
    const bool *priv, size_t n)
{
	struct pub_seg v[4];
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = (struct pub_seg){ .seg = segs[i], .serial =
		    (uint64_t)(uintptr_t)segs[i], .zone = zone[i],
		    .priv = priv[i] };
	ck_assert_int_eq(pub_segs_set(p, v, n), 0);
	(void)pub_reclaim(p);
}

START_TEST(index_follows_the_chain)
{
	struct store_segment *segs[2] = { seg_new(64, 0), seg_new(64, 0) };
	const uint32_t zone[2] = { ZONE_GLOBAL, 5 };
	const bool priv[2] = { false, true };
	struct rview_stats st;
	struct store_ref gone;
	struct rview *v;
	struct pub *p;

	ck_assert_int_eq(pub_new(&p), 0);
	ck_assert_int_eq(rview_new(p, &v), 0);
	publish(p, segs, zone, priv, 2);
	(void)add(segs[0], "net", 0, "lo", 1);
	gone = add(segs[0], "cpu", 1, "sys", 1);
	(void)add(segs[0], "cpu", 0, "sys", 1);
	(void)add(segs[1], "disk", 0, "sda", 1);
	ck_assert_int_eq(rview_refresh(v, NULL), 0);
	check_order(v, 4);
	check_korder(v, 4);
	rview_stats(v, &st);
	ck_assert_uint_eq(st.segments, 2);
	ck_assert_uint_eq(st.walks, 2);
	/* Nothing changed: nothing read. */
	ck_assert_int_eq(rview_refresh(v, NULL), 0);
	rview_stats(v, &st);
	ck_assert_uint_eq(st.walks, 2);
	ck_assert_uint_eq(st.changes, 0);
	/* One gone, one new in its slot, one more: from the change log. */
	ck_assert_int_eq(store_kstat_remove(segs[0], gone.slot), 0);
	(void)add(segs[0], "cpu", 2, "sys", 1);
	(void)add(segs[0], "aaa", 0, "first", 1);
	ck_assert_int_eq(rview_refresh(v, NULL), 0);
	rview_stats(v, &st);
	ck_assert_uint_eq(st.walks, 2);
	ck_assert_uint_ge(st.changes, 3);
	check_order(v, 5);
	check_korder(v, 5);
	ck_assert(!has(v, "cpu", 1, "sys"));
	ck_assert(has(v, "cpu", 2, "sys"));
	ck_assert(has(v, "aaa", 0, "first"));
	/* The zone's segment withdrawn: its kstats leave the index. */
	publish(p, segs, zone, priv, 1);
	ck_assert_int_eq(rview_refresh(v, NULL), 0);
	check_order(v, 4);
	ck_assert(!has(v, "disk", 0, "sda"));
	rview_stats(v, &st);
	ck_assert_uint_eq(st.segments, 1);
	rview_free(v);
	pub_free(p);
	store_segment_free(segs[0]);
	store_segment_free(segs[1]);
}
END_TEST

START_TEST(log_overrun_walks)
{
	struct store_segment *seg = seg_new(256, 4);
	const uint32_t zone = ZONE_GLOBAL;
	const bool priv = false;
	struct rview_stats st;
	struct rview *v;
	struct pub *p;
	char name[16];
	int i;

	ck_assert_int_eq(pub_new(&p), 0);
	ck_assert_int_eq(rview_new(p, &v), 0);
	publish(p, &seg, &zone, &priv, 1);
	(void)add(seg, "m", 0, "start", 1);
	ck_assert_int_eq(rview_refresh(v, NULL), 0);
	check_order(v, 1);
	/* More changes than the log holds: the segment is walked. */
	for (i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "k%02d", i);
		(void)add(seg, "m", i % 3, name, 1);
	}
	ck_assert_int_eq(rview_refresh(v, NULL), 0);
	rview_stats(v, &st);
	ck_assert_uint_eq(st.walks, 2);
	check_order(v, 41);
	check_korder(v, 41);
	for (i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "k%02d", i);
		ck_assert(has(v, "m", i % 3, name));
	}
	rview_free(v);
	pub_free(p);
	store_segment_free(seg);
}
END_TEST

START_TEST(visibility_and_reads)
{
	struct store_segment *segs[2] = { seg_new(16, 0), seg_new(16, 0) };
	const uint32_t zone[2] = { ZONE_GLOBAL, ZONE_GLOBAL };
	const bool priv[2] = { false, true };
	struct peer anon = { .uid = 65534, .gid = 65534, .zone = ZONE_GLOBAL };
	struct peer root = { .uid = 0, .zone = ZONE_GLOBAL,
	    .privileged = true };
	static char n0[] = "first", n1[] = "second";
	char *names[2] = { n0, n1 };
	struct reg_template t;
	const struct rv_ent *e;
	struct store_ref ref;
	struct kstat_hdr h;
	struct ks_view kv;
	struct rview *v;
	struct pub *p;
	void *blob;
	size_t n, i;

	memset(&t, 0, sizeof(t));
	t.nnames = 2;
	t.names = names;
	t.hash = 77;
	ck_assert_int_eq(pub_new(&p), 0);
	ck_assert_int_eq(rview_new(p, &v), 0);
	publish(p, segs, zone, priv, 2);
	ref = add(segs[0], "pub", 0, "a", 77);
	(void)add(segs[1], "priv", 0, "b", 77);
	(void)add(segs[0], "pub", 0, "c", 78);	/* no such template */
	ck_assert_int_eq(store_kstat_write_begin(segs[0], ref.slot, &blob),
	    0);
	memset(blob, 0x5a, 64);
	store_kstat_write_end(segs[0], ref.slot, 1234);
	ck_assert_int_eq(rview_refresh(v, NULL), 0);
	e = rview_ents(v, &n);
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(pub_tpl_add(p, &t, 77), 0);
	for (i = 0; i < n; i++) {
		const char *name = rview_str(v, e[i].name);
		int r;

		ck_assert(rview_visible(&e[i], &root));
		ck_assert(rview_visible(&e[i], &anon) ==
		    (strcmp(name, "b") != 0));
		ck_assert_int_eq(rview_header(v, &e[i], &h), 0);
		ck_assert_str_eq(h.name, name);
		r = rview_read(v, &e[i], &h, &kv);
		if (strcmp(name, "c") == 0) {
			ck_assert_int_eq(r, -ENOENT);
			continue;
		}
		ck_assert_int_eq(r, 0);
		ck_assert_uint_eq(kv.nnames, 2);
		ck_assert_str_eq(kv.names[1], "second");
		ck_assert_ptr_eq(kv.hdr, &h);
		if (strcmp(name, "a") == 0) {
			ck_assert_uint_eq(((const unsigned char *)kv.sb)[10],
			    0x5a);
			ck_assert_uint_eq(h.snaptime, 1234);
		}
	}
	/* Gone after the index was made: the read says so. */
	e = rview_ents(v, &n);
	for (i = 0; i < n; i++)
		if (strcmp(rview_str(v, e[i].name), "a") == 0)
			break;
	ck_assert_int_eq(store_kstat_remove(segs[0], ref.slot), 0);
	ck_assert_int_eq(rview_read(v, &e[i], &h, &kv), -ESTALE);
	pub_tpl_remove(p, &t, 77);
	rview_free(v);
	pub_free(p);
	store_segment_free(segs[0]);
	store_segment_free(segs[1]);
}
END_TEST

START_TEST(compaction_keeps_both_orders)
{
	struct store_segment *seg = seg_new(64, 0);
	const uint32_t zone = ZONE_GLOBAL;
	const bool priv = false;
	struct store_ref refs[40];
	bool live[40] = { false };
	struct rview_stats st;
	struct rview *v;
	struct pub *p;
	char name[32];
	unsigned round, i, nlive = 0;

	ck_assert_int_eq(pub_new(&p), 0);
	ck_assert_int_eq(rview_new(p, &v), 0);
	publish(p, &seg, &zone, &priv, 1);
	/* Names of 27 bytes, gone and back: half the strings are dead
	 * bytes many times over, and the pool is compacted. */
	for (round = 0; round < 3000; round++) {
		i = (round * 13u) % 40u;
		snprintf(name, sizeof(name), "kstat_name_%02u_pad_pad_pad", i);
		if (live[i]) {
			ck_assert_int_eq(store_kstat_remove(seg,
			    refs[i].slot), 0);
			nlive--;
		} else {
			refs[i] = add(seg, i % 2 ? "odd" : "even", (int32_t)i,
			    name, 1);
			nlive++;
		}
		live[i] = !live[i];
		ck_assert_int_eq(rview_refresh(v, NULL), 0);
	}
	rview_stats(v, &st);
	ck_assert_uint_ge(st.compactions, 1);
	check_order(v, nlive);
	check_korder(v, nlive);
	for (i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "kstat_name_%02u_pad_pad_pad", i);
		ck_assert(has(v, i % 2 ? "odd" : "even", (int32_t)i, name) ==
		    live[i]);
	}
	rview_free(v);
	pub_free(p);
	store_segment_free(seg);
}
END_TEST

/* A reader thread against the writer: every kstat it reads is whole
 * (its blob is one byte repeated), and its last refresh sees the chain
 * as the writer left it. */
struct race {
	struct pub		*p;
	struct pub_reader	*rd;
	struct rview		*v;
	_Atomic bool		 stop;
	uint64_t		 reads;
};

static void *
race_reader(void *arg)
{
	struct race *r = arg;
	struct kstat_hdr h;
	struct ks_view kv;

	while (!atomic_load(&r->stop)) {
		const struct rv_ent *e;
		size_t n, i, j;

		pub_enter(r->rd);
		ck_assert_int_eq(rview_refresh(r->v, NULL), 0);
		e = rview_ents(r->v, &n);
		for (i = 0; i < n; i++) {
			const unsigned char *b;

			if (rview_read(r->v, &e[i], &h, &kv) != 0)
				continue;
			b = (const unsigned char *)kv.sb;
			for (j = 1; j < 64; j++)
				ck_assert_uint_eq(b[j], b[0]);
			r->reads++;
		}
		pub_leave(r->rd);
	}
	return NULL;
}

START_TEST(reader_races_the_writer)
{
	struct store_segment *seg = seg_new(64, 16);
	const uint32_t zone = ZONE_GLOBAL;
	const bool priv = false;
	static char n0[] = "v";
	char *names[1] = { n0 };
	struct store_ref refs[32];
	bool live[32] = { false };
	struct reg_template t;
	struct race r;
	pthread_t th;
	unsigned round, i, nlive = 0;
	char name[16];

	memset(&t, 0, sizeof(t));
	t.nnames = 1;
	t.names = names;
	ck_assert_int_eq(pub_new(&r.p), 0);
	ck_assert_int_eq(pub_tpl_add(r.p, &t, 9), 0);
	publish(r.p, &seg, &zone, &priv, 1);
	ck_assert_int_eq(rview_new(r.p, &r.v), 0);
	ck_assert_int_eq(pub_reader_new(r.p, &r.rd), 0);
	atomic_init(&r.stop, false);
	r.reads = 0;
	ck_assert_int_eq(pthread_create(&th, NULL, race_reader, &r), 0);
	for (round = 0; round < 20000; round++) {
		void *blob;

		i = (round * 7u) % 32u;
		if (live[i] && round % 3 == 0) {
			ck_assert_int_eq(store_kstat_remove(seg,
			    refs[i].slot), 0);
			live[i] = false;
			nlive--;
		} else if (!live[i]) {
			snprintf(name, sizeof(name), "k%u", i);
			refs[i] = add(seg, "race", 0, name, 9);
			live[i] = true;
			nlive++;
		} else {
			ck_assert_int_eq(store_kstat_write_begin(seg,
			    refs[i].slot, &blob), 0);
			memset(blob, (int)(round & 0xff), 64);
			store_kstat_write_end(seg, refs[i].slot, round);
		}
	}
	atomic_store(&r.stop, true);
	pthread_join(th, NULL);
	ck_assert_int_eq(rview_refresh(r.v, NULL), 0);
	check_order(r.v, nlive);
	check_korder(r.v, nlive);
	for (i = 0; i < 32; i++) {
		snprintf(name, sizeof(name), "k%u", i);
		ck_assert(has(r.v, "race", 0, name) == live[i]);
	}
	pub_reader_free(r.rd);
	rview_free(r.v);
	pub_tpl_remove(r.p, &t, 9);
	pub_free(r.p);
	store_segment_free(seg);
}
END_TEST

/*
 * A storm of creates and deletes, each sooner than a walk of the segment
 * can end: every try of a stable walk sees another KCID. The view walks
 * the chain once as it is and reads what changed meanwhile from the log,
 * so a refresh during the storm already holds every kstat made before
 * it (a view used to stay empty, or stale, for as long as the storm
 * lasted), and the first after it holds exactly the kstats left.
 */
#define STORM_STATIC	20000u
#define STORM_CHURN	16u

struct storm {
	struct store_segment	*seg;
	_Atomic bool		 stop;
	_Atomic uint64_t	 changes;
	bool			 live[STORM_CHURN];
};

static void *
storm_writer(void *arg)
{
	struct storm *s = arg;
	struct store_ref refs[STORM_CHURN];
	const struct timespec pause = { 0, 20000 };
	char name[16];
	unsigned i = 0, k;

	while (!atomic_load(&s->stop)) {
		k = i++ % STORM_CHURN;
		if (s->live[k]) {
			ck_assert_int_eq(store_kstat_remove(s->seg,
			    refs[k].slot), 0);
		} else {
			snprintf(name, sizeof(name), "c%u", k);
			refs[k] = add(s->seg, "churn", 0, name, 9);
		}
		s->live[k] = !s->live[k];
		atomic_fetch_add(&s->changes, 1);
		nanosleep(&pause, NULL);
	}
	return NULL;
}

static size_t
count_module(struct rview *v, const char *module)
{
	const struct rv_ent *e;
	size_t i, n, c = 0;

	e = rview_ents(v, &n);
	for (i = 0; i < n; i++)
		c += strcmp(rview_str(v, e[i].module), module) == 0;
	return c;
}

/*
 * 20,000 kstats that stay, and a writer making and removing 16 others
 * without end, in a segment whose change log holds log_slots changes.
 * Refreshes during the storm show every kstat that stayed (a walk never
 * holds still: each is made once as it is, and completed from the log,
 * or, past what the log holds, kept as it is); after it, exactly the
 * kstats left, in both orders. Returns the view's stats.
 */
static void
storm_run(uint32_t log_slots, struct rview_stats *ret)
{
	struct store_params sp = {
		.name = "storm", .kind = STORE_SEG_PUBLIC,
		.table_slots = 32768, .arena_size = 16u << 20,
		.log_slots = log_slots,
	};
	const uint32_t zone = ZONE_GLOBAL;
	const bool priv = false;
	struct store_segment *seg = NULL;
	struct pub_reader *rd;
	struct rview_stats st;
	struct storm storm;
	struct rview *v;
	struct pub *p;
	pthread_t th;
	size_t tries, got = 0, nlive = 0;
	char name[16];
	unsigned i;

	ck_assert_int_eq(store_segment_new(&sp, &seg), 0);
	ck_assert_int_eq(pub_new(&p), 0);
	publish(p, &seg, &zone, &priv, 1);
	ck_assert_int_eq(rview_new(p, &v), 0);
	ck_assert_int_eq(pub_reader_new(p, &rd), 0);
	for (i = 0; i < STORM_STATIC; i++) {
		snprintf(name, sizeof(name), "k%05u", i);
		(void)add(seg, "static", (int32_t)(i % 7), name, 9);
	}
	memset(&storm, 0, sizeof(storm));
	storm.seg = seg;
	atomic_init(&storm.stop, false);
	atomic_init(&storm.changes, 0);
	ck_assert_int_eq(pthread_create(&th, NULL, storm_writer, &storm), 0);
	while (atomic_load(&storm.changes) < 4)
		sched_yield();
	for (tries = 0; tries < 20 && got != STORM_STATIC; tries++) {
		pub_enter(rd);
		ck_assert_int_eq(rview_refresh(v, NULL), 0);
		got = count_module(v, "static");
		pub_leave(rd);
	}
	rview_stats(v, &st);
	atomic_store(&storm.stop, true);
	pthread_join(th, NULL);
	ck_assert_msg(got == STORM_STATIC, "during the storm, %zu of %u "
	    "kstats after %zu refreshes (%llu walks, %llu caught up)", got,
	    STORM_STATIC, tries, (unsigned long long)st.walks,
	    (unsigned long long)st.catchups);
	*ret = st;
	for (i = 0; i < STORM_CHURN; i++)
		nlive += storm.live[i];
	ck_assert_int_eq(rview_refresh(v, NULL), 0);
	check_order(v, STORM_STATIC + nlive);
	check_korder(v, STORM_STATIC + nlive);
	for (i = 0; i < STORM_CHURN; i++) {
		snprintf(name, sizeof(name), "c%u", i);
		ck_assert(has(v, "churn", 0, name) == storm.live[i]);
	}
	pub_reader_free(rd);
	rview_free(v);
	pub_free(p);
	store_segment_free(seg);
}

/*
 * Whether a walk meets the storm at all is the scheduler's call: on two
 * cores busy with other tests the writer may not run during any walk of
 * a run. A run that met none is run again (each checks the view whole),
 * up to STORM_RUNS times.
 */
#define STORM_RUNS	20

START_TEST(walk_catches_up_under_a_storm)
{
	struct rview_stats st;
	unsigned n;

	for (n = 0; n < STORM_RUNS; n++) {
		storm_run(4096, &st);
		if (st.catchups >= 1)
			break;
	}
	ck_assert_uint_ge(st.catchups, 1);
}
END_TEST

/* A log of 16 changes, overrun within every walk: each pass is kept as
 * it is (before, every catch-up failed and the view held none of the
 * 20,000 for as long as the storm lasted). */
START_TEST(walk_kept_when_the_storm_overruns_the_log)
{
	struct rview_stats st;
	unsigned n;

	for (n = 0; n < STORM_RUNS; n++) {
		storm_run(16, &st);
		if (st.overruns >= 1)
			break;
	}
	ck_assert_uint_ge(st.overruns, 1);
}
END_TEST

static Suite *
rview_suite(void)
{
	Suite *s = suite_create("rview");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, index_follows_the_chain);
	tcase_add_test(tc, log_overrun_walks);
	tcase_add_test(tc, walk_catches_up_under_a_storm);
	tcase_add_test(tc, walk_kept_when_the_storm_overruns_the_log);
	tcase_add_test(tc, visibility_and_reads);
	tcase_add_test(tc, compaction_keeps_both_orders);
	tcase_add_test(tc, reader_races_the_writer);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(rview_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
