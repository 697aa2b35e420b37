/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_series.c: statsd/DogStatsD series as kstats (src/daemon/series.c):
 * one kstat per type, name and tag set, whatever the tags' order or
 * repeats; each type's updates with Y = 1/rate; gauge deltas; sets exact,
 * then estimated; the caps per source and in all; owners and rights;
 * expiry, and a PERSISTENT series asleep and awake again; a kstat deleted
 * behind the table's back made again.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>

#include "blob.h"
#include "daemon_statsd.h"
#include "series.h"

static const struct sl_limits lim = {
	.name_max = 200, .tag_max = 200, .tags_max = 32, .values_max = 64,
};

static const struct series_src root = { { .privileged = true }, false };
static const struct series_src udp = { { .uid = 0 }, true };
static const struct series_src nobody = { { .uid = 65534, .gid = 65534 },
    false };
static const struct series_src alice = { { .uid = 1000, .gid = 1000 },
    false };

static enum series_result
feed(struct series *s, const struct series_src *src, const char *line,
    uint64_t now)
{
	struct sl_line l;

	enum series_result r;

	ck_assert_msg(sl_line_parse(line, strlen(line), &lim, &l) == SL_OK,
	    "%s", line);
	r = series_apply(s, src, &l, now);
	series_sync(s);		/* as front.c after each batch */
	return r;
}

/* The kstat of a series, by its exact path (an owner's tag and all). */
static struct reg_kstat *
find_exact(struct statsd *d, const char *path)
{
	struct reg_kstat **all;
	size_t n, i;

	n = registry_kstats(d->reg, &all);
	for (i = 0; i < n; i++)
		if (strcmp(all[i]->hdr.path, path) == 0)
			return all[i];
	return NULL;
}

/* k's path without its statsd_uid:<uid> segment, into buf. */
static const char *
path_unowned(const struct reg_kstat *k, char *buf, size_t len)
{
	const char *p = k->hdr.path, *e;
	size_t n = 0;

	for (; *p != '\0'; p = *e == '/' ? e + 1 : e) {
		e = strchr(p, '/');
		if (e == NULL)
			e = p + strlen(p);
		if (strncmp(p, SERIES_UID_TAG ":", sizeof(SERIES_UID_TAG)) == 0)
			continue;
		n += (size_t)snprintf(buf + n, len - n, "%s%.*s", n > 0 ? "/" :
		    "", (int)(e - p), p);
		ck_assert_uint_lt(n, len);
	}
	buf[n] = '\0';
	return buf;
}

/* The kstat of a series by its path as its lines name it: exactly, or
 * the one series of that path whatever its owner's tag (two owners' are
 * an error here: find_exact() tells them apart). */
static struct reg_kstat *
find(struct statsd *d, const char *path)
{
	struct reg_kstat **all, *k = find_exact(d, path), *found = NULL;
	char buf[512];
	size_t n, i;

	if (k != NULL)
		return k;
	n = registry_kstats(d->reg, &all);
	for (i = 0; i < n; i++)
		if (strcmp(path_unowned(all[i], buf, sizeof(buf)), path) == 0) {
			ck_assert_msg(found == NULL, "two series of %s", path);
			found = all[i];
		}
	return found;
}

/* A whole statistic (a counter's is unsigned). */
static int64_t
stat_of(const struct reg_kstat *k, uint16_t voi, int stype)
{
	const struct statsblobv1 *b = (const struct statsblobv1 *)
	    registry_blob_peek(k);
	int64_t v = 0;

	if (b->vois[voi].dtype == VSD_DTYPE_INT_U64) {
		uint64_t u = 0;

		ck_assert_int_eq(stats_voistat_fetch_u64((struct statsblob *)
		    registry_blob_peek(k), voi, stype, &u), 0);
		ck_assert_uint_le(u, INT64_MAX);
		return (int64_t)u;
	}
	ck_assert_int_eq(stats_voistat_fetch_s64((struct statsblob *)
	    registry_blob_peek(k), voi, stype, &v), 0);
	return v;
}

static uint64_t
ustat_of(const struct reg_kstat *k, uint16_t voi, int stype)
{
	uint64_t v = 0;

	ck_assert_int_eq(stats_voistat_fetch_u64((struct statsblob *)
	    registry_blob_peek(k), voi, stype, &v), 0);
	return v;
}

struct fixture {
	char		*rt, *st;
	struct statsd	 d;
	struct series	*s;
};

/* set_exact_max: the sets' LIST size (0: the default), fixed in their
 * template when series_new() registers it. */
static void
fx_start_sets(struct fixture *f, unsigned set_exact_max)
{
	f->rt = unit_tmpdir();
	f->st = unit_tmpdir();
	unit_statsd_start(&f->d, f->rt, f->st);
	f->d.self_uid = 0;
	if (set_exact_max > 0)
		f->d.cfg.statsd_set_exact_max = set_exact_max;
	ck_assert_int_eq(series_new(&f->d, &f->s), 0);
}

static void
fx_start(struct fixture *f)
{
	fx_start_sets(f, 0);
}

static void
fx_stop(struct fixture *f)
{
	f->s = series_free(f->s);
	unit_statsd_stop(&f->d, true);
	free(f->rt);
	free(f->st);
}

START_TEST(one_kstat_per_series)
{
	struct fixture f;
	struct reg_kstat *k;

	fx_start(&f);
	ck_assert_int_eq(feed(f.s, &root, "req:1|c|#b,a:1", 1), SERIES_OK);
	ck_assert_int_eq(feed(f.s, &root, "req:2|c|#a:1,b", 2), SERIES_OK);
	ck_assert_int_eq(feed(f.s, &root, "req:4|c|#a:1,b,a:1", 3), SERIES_OK);
	ck_assert_int_eq(feed(f.s, &root, "req:8|c", 4), SERIES_OK);
	ck_assert_int_eq(feed(f.s, &root, "req:16|g", 5), SERIES_OK);
	k = find(&f.d, "statsd/counter/req/a:1/b");
	ck_assert_ptr_nonnull(k);
	ck_assert_int_eq(stat_of(k, 0, VS_STYPE_SUM), 7);
	ck_assert_str_eq(k->hdr.module, "statsd");
	ck_assert_str_eq(k->hdr.name, "req");
	ck_assert_str_eq(k->hdr.class_, "statsd");
	ck_assert_int_ge(k->hdr.instance, 1);
	k = find(&f.d, "statsd/counter/req");
	ck_assert_ptr_nonnull(k);
	ck_assert_int_eq(stat_of(k, 0, VS_STYPE_SUM), 8);
	k = find(&f.d, "statsd/gauge/req");
	ck_assert_ptr_nonnull(k);
	ck_assert_int_eq(stat_of(k, 0, VS_STYPE_LAST), 16);
	/* Three series, three kstats of one name: different instances. */
	ck_assert_ptr_nonnull(find(&f.d, "statsd/counter/req/a:1/b"));
	ck_assert_int_ne(find(&f.d, "statsd/counter/req")->hdr.instance,
	    find(&f.d, "statsd/gauge/req")->hdr.instance);
	fx_stop(&f);
}
END_TEST

START_TEST(updates_of_each_type)
{
	struct fixture f;
	struct reg_kstat *k;

	fx_start(&f);
	/* c: SUM += v/rate, COUNT += 1 a value */
	feed(f.s, &root, "c:3|c", 1);
	feed(f.s, &root, "c:2|c|@0.25", 1);
	k = find(&f.d, "statsd/counter/c");
	ck_assert_int_eq(stat_of(k, 0, VS_STYPE_SUM), 11);
	ck_assert_int_eq(stat_of(k, 0, VS_STYPE_COUNT), 2);
	/* ... whole, the fraction carried: 5/0.3 adds 16 (16.67, not 15),
	 * and 1/0.3 then 4 (0.67 + 3.33): 20 for the two, exactly */
	feed(f.s, &root, "c:5|c|@0.3", 1);
	ck_assert_int_eq(stat_of(k, 0, VS_STYPE_SUM), 27);
	feed(f.s, &root, "c:1|c|@0.3", 1);
	ck_assert_int_eq(stat_of(k, 0, VS_STYPE_SUM), 31);
	ck_assert_int_eq(stat_of(k, 0, VS_STYPE_COUNT), 3 + 1);
	/* A counter does not go down: a negative increment refuses the
	 * line whole (its other values too), and makes no series. */
	ck_assert_int_eq(feed(f.s, &root, "c:1:-2|c", 1), SERIES_NEGATIVE);
	ck_assert_int_eq(feed(f.s, &root, "c:-0.5|c|@0.5", 1),
	    SERIES_NEGATIVE);
	ck_assert_int_eq(stat_of(k, 0, VS_STYPE_COUNT), 4);
	ck_assert_int_eq(feed(f.s, &root, "neg:-1|c", 1), SERIES_NEGATIVE);
	ck_assert_ptr_null(find(&f.d, "statsd/counter/neg"));
	ck_assert_int_eq(feed(f.s, &root, "c:2:-1e-300|c", 1),
	    SERIES_NEGATIVE);
	ck_assert_int_eq(feed(f.s, &root, "c:1e-5:-0.00e7|c", 1), SERIES_OK);
	ck_assert_int_eq(stat_of(k, 0, VS_STYPE_COUNT), 6);
	ck_assert_int_eq(feed(f.s, &root, "c:+0:-0|c", 1), SERIES_OK);
	ck_assert_int_eq(stat_of(k, 0, VS_STYPE_COUNT), 8);
	ck_assert_int_eq(stat_of(k, 0, VS_STYPE_SUM), 31);
	/* 64 bits: a counter passes 2^32 (a busy byte counter's hours) and
	 * 2^63 (2^64 is centuries of 10^9 a second away) */
	ck_assert_int_eq(feed(f.s, &root, "big:4000000000:4000000000|c", 1),
	    SERIES_OK);
	ck_assert_int_eq(stat_of(find(&f.d, "statsd/counter/big"), 0,
	    VS_STYPE_SUM), 8000000000);
	ck_assert_int_eq(feed(f.s, &root,
	    "big:9000000000000000000:9000000000000000000|c", 1), SERIES_OK);
	{
		uint64_t u = 0;

		ck_assert_int_eq(stats_voistat_fetch_u64((struct statsblob *)
		    registry_blob_peek(find(&f.d, "statsd/counter/big")), 0,
		    VS_STYPE_SUM, &u), 0);
		ck_assert_uint_eq(u, UINT64_C(18000000008000000000));
	}
	/* one line's count/rate fits the update's 63 bits */
	ck_assert_int_eq(feed(f.s, &root, "big2:1|c|@0.0000000000000000001",
	    1), SERIES_RANGE);
	/* g: set, then deltas */
	feed(f.s, &root, "g:10|g", 1);
	feed(f.s, &root, "g:-4|g", 1);
	feed(f.s, &root, "g:+1|g", 1);
	k = find(&f.d, "statsd/gauge/g");
	ck_assert_int_eq(stat_of(k, 0, VS_STYPE_LAST), 7);
	feed(f.s, &root, "g:2|g", 1);
	ck_assert_int_eq(stat_of(k, 0, VS_STYPE_LAST), 2);
	/* ms: microseconds */
	feed(f.s, &root, "t:1.5:0.25|ms", 1);
	k = find(&f.d, "statsd/timer/t");
	ck_assert_int_eq(stat_of(k, 0, VS_STYPE_SUM), 1750);
	ck_assert_int_eq(stat_of(k, 0, VS_STYPE_MIN), 250);
	ck_assert_int_eq(stat_of(k, 0, VS_STYPE_MAX), 1500);
	ck_assert_int_eq(stat_of(k, 0, VS_STYPE_COUNT), 2);
	/* d: Y = 1/rate */
	feed(f.s, &root, "d:10|d|@0.1", 1);
	k = find(&f.d, "statsd/distribution/d");
	ck_assert_int_eq(stat_of(k, 0, VS_STYPE_SUM), 100);
	ck_assert_int_eq(stat_of(k, 0, VS_STYPE_COUNT), 10);
	/* A value the VOI cannot hold: counted, the others applied. */
	ck_assert_int_eq(feed(f.s, &root, "h:1:1e300:2|h", 1), SERIES_RANGE);
	k = find(&f.d, "statsd/histogram/h");
	ck_assert_int_eq(stat_of(k, 0, VS_STYPE_SUM), 3);
	fx_stop(&f);
}
END_TEST

START_TEST(sets_exact_then_estimated)
{
	struct fixture f;
	struct reg_kstat *k;
	char line[64];
	int i;
	uint64_t n;

	fx_start_sets(&f, 16);
	feed(f.s, &root, "u:a:b:a|s", 1);
	feed(f.s, &root, "u:c|s", 1);
	k = find(&f.d, "statsd/set/u");
	ck_assert_uint_eq(ustat_of(k, 1, VS_STYPE_LAST), 3);
	for (i = 0; i < 5000; i++) {
		snprintf(line, sizeof(line), "v:m%d|s", i % 2000);
		feed(f.s, &root, line, 1);
	}
	k = find(&f.d, "statsd/set/v");
	n = ustat_of(k, 1, VS_STYPE_LAST);
	/* 2000 distinct, past the list of 16: HyperLogLog, ~3 % error. */
	ck_assert_msg(n > 1800 && n < 2200, "estimate %llu",
	    (unsigned long long)n);
	fx_stop(&f);
}
END_TEST

START_TEST(caps_and_rights)
{
	struct fixture f;
	char line[64];
	int i;

	fx_start(&f);
	f.d.cfg.statsd_max_series = 10;
	f.d.cfg.statsd_udp_max_series = 3;
	f.d.cfg.statsd_max_series_per_uid = 4;
	for (i = 0; i < 5; i++) {
		snprintf(line, sizeof(line), "u%d:1|c", i);
		ck_assert_int_eq(feed(f.s, &udp, line, 1), i < 3 ? SERIES_OK :
		    SERIES_CAP);
	}
	for (i = 0; i < 5; i++) {
		snprintf(line, sizeof(line), "n%d:1|c", i);
		ck_assert_int_eq(feed(f.s, &nobody, line, 1), i < 4 ?
		    SERIES_OK : SERIES_CAP);
	}
	ck_assert_uint_eq(find_exact(&f.d,
	    "statsd/counter/n0/statsd_uid:65534")->owner, 65534);
	ck_assert_uint_eq(find_exact(&f.d, "statsd/counter/u0")->owner, 0);
	/* Old series still take lines at the cap. */
	ck_assert_int_eq(feed(f.s, &udp, "u0:1|c", 1), SERIES_OK);
	/* Each sender has its own series: nobody's line of UDP's name is a
	 * new series of nobody's (past its cap here), never UDP's. */
	ck_assert_int_eq(feed(f.s, &nobody, "u0:1|c", 1), SERIES_CAP);
	ck_assert_int_eq(stat_of(find_exact(&f.d, "statsd/counter/u0"), 0,
	    VS_STYPE_SUM), 2);
	/* root's r and alice's r are two series; root's n0 is root's. */
	ck_assert_int_eq(feed(f.s, &root, "r:1|c", 1), SERIES_OK);
	ck_assert_int_eq(feed(f.s, &alice, "r:5|c", 1), SERIES_OK);
	ck_assert_int_eq(feed(f.s, &root, "n0:7|c", 1), SERIES_OK);
	ck_assert_int_eq(stat_of(find_exact(&f.d,
	    "statsd/counter/r/statsd_uid:0"), 0, VS_STYPE_SUM), 1);
	ck_assert_int_eq(stat_of(find_exact(&f.d,
	    "statsd/counter/r/statsd_uid:1000"), 0, VS_STYPE_SUM), 5);
	ck_assert_uint_eq(find_exact(&f.d,
	    "statsd/counter/r/statsd_uid:1000")->owner, 1000);
	ck_assert_int_eq(stat_of(find_exact(&f.d,
	    "statsd/counter/n0/statsd_uid:65534"), 0, VS_STYPE_SUM), 1);
	ck_assert_int_eq(stat_of(find_exact(&f.d,
	    "statsd/counter/n0/statsd_uid:0"), 0, VS_STYPE_SUM), 7);
	/* The total cap: 3 + 4 + 3 made. */
	ck_assert_int_eq(feed(f.s, &root, "r3:1|c", 1), SERIES_CAP);
	/* A statsd_uid tag a line carries is left out: no line names an
	 * owner but its sender's, and a UDP line none. */
	ck_assert_int_eq(feed(f.s, &nobody, "n0:1|c|#statsd_uid:0", 1),
	    SERIES_OK);
	ck_assert_int_eq(feed(f.s, &udp, "u0:1|c|#statsd_uid:65534,statsd_uid",
	    1), SERIES_OK);
	ck_assert_int_eq(stat_of(find_exact(&f.d,
	    "statsd/counter/n0/statsd_uid:65534"), 0, VS_STYPE_SUM), 2);
	ck_assert_int_eq(stat_of(find_exact(&f.d,
	    "statsd/counter/n0/statsd_uid:0"), 0, VS_STYPE_SUM), 7);
	ck_assert_int_eq(stat_of(find_exact(&f.d, "statsd/counter/u0"), 0,
	    VS_STYPE_SUM), 3);
	/* Too many tags for a kstat2 path: a Unix sender's owner tag is
	 * one of its 13. */
	ck_assert_int_eq(feed(f.s, &root, "x:1|c|#a,b,c,d,e,f,g,h,i,j,k,l,m,n",
	    1), SERIES_TOOLONG);
	ck_assert_int_eq(feed(f.s, &root, "x:1|c|#a,b,c,d,e,f,g,h,i,j,k,l,m",
	    1), SERIES_TOOLONG);
	fx_stop(&f);
}
END_TEST

/* A set's HyperLogLog is in its blob: it sleeps and wakes with the
 * series, and a PERSISTENT one outlives a restart. */
START_TEST(set_estimate_survives)
{
	struct fixture f;
	struct reg_kstat *k;
	char line[64];
	uint64_t n, sec = 1000000000u;
	int i;

	fx_start_sets(&f, 16);
	f.d.cfg.statsd_ttl_s = 10;
	free(f.d.cfg.statsd_persistent_prefixes);
	f.d.cfg.statsd_persistent_prefixes = strdup("keep.");
	for (i = 0; i < 3000; i++) {
		snprintf(line, sizeof(line), "keep.s:m%d|s", i);
		feed(f.s, &root, line, 1 * sec);
	}
	n = ustat_of(find(&f.d, "statsd/set/keep.s"), 1, VS_STYPE_LAST);
	ck_assert_msg(n > 2700 && n < 3300, "estimate %llu",
	    (unsigned long long)n);
	/* asleep, awake: a member seen before changes nothing */
	ck_assert_uint_eq(series_expire(f.s, 20 * sec, 1u << 20), 1);
	ck_assert(find(&f.d, "statsd/set/keep.s")->dormant);
	ck_assert_int_eq(feed(f.s, &root, "keep.s:m7|s", 21 * sec), SERIES_OK);
	ck_assert_uint_eq(ustat_of(find(&f.d, "statsd/set/keep.s"), 1,
	    VS_STYPE_LAST), n);
	/* a restart, as main.c starts: the templates, then the checkpoint */
	f.s = series_free(f.s);
	unit_statsd_stop(&f.d, true);
	unit_statsd_open(&f.d, f.rt, f.st);
	f.d.self_uid = 0;
	f.d.cfg.statsd_set_exact_max = 16;
	free(f.d.cfg.statsd_persistent_prefixes);
	f.d.cfg.statsd_persistent_prefixes = strdup("keep.");
	ck_assert_int_eq(series_templates(&f.d, NULL), 0);
	ck_assert_int_eq(checkpoint_load(f.d.checkpoint), 0);
	ck_assert_int_eq(series_new(&f.d, &f.s), 0);
	k = find(&f.d, "statsd/set/keep.s");
	ck_assert_ptr_nonnull(k);
	ck_assert_uint_eq(ustat_of(k, 1, VS_STYPE_LAST), n);
	ck_assert_int_eq(feed(f.s, &root, "keep.s:m7:m8|s", 1), SERIES_OK);
	k = find(&f.d, "statsd/set/keep.s");
	ck_assert_uint_eq(ustat_of(k, 1, VS_STYPE_LAST), n);
	/* and new members count on from there */
	for (i = 3000; i < 6000; i++) {
		snprintf(line, sizeof(line), "keep.s:m%d|s", i);
		feed(f.s, &root, line, 2);
	}
	n = ustat_of(k, 1, VS_STYPE_LAST);
	ck_assert_msg(n > 5400 && n < 6600, "estimate %llu",
	    (unsigned long long)n);
	fx_stop(&f);
}
END_TEST

START_TEST(expiry_and_persistence)
{
	struct fixture f;
	struct series_stats ss;
	struct reg_kstat *k;
	uint64_t sec = 1000000000u;

	fx_start(&f);
	f.d.cfg.statsd_ttl_s = 10;
	free(f.d.cfg.statsd_persistent_prefixes);
	f.d.cfg.statsd_persistent_prefixes = strdup("keep. also.");
	feed(f.s, &root, "keep.a:5|c", 1 * sec);
	feed(f.s, &root, "drop.b:1|c", 1 * sec);
	feed(f.s, &root, "also.c:1|c", 8 * sec);
	feed(f.s, &root, "other.d:1|c", 8 * sec);
	k = find(&f.d, "statsd/counter/keep.a");
	ck_assert(k->hdr.flags & KSTAT_FLAG_PERSISTENT);
	ck_assert(!(find(&f.d, "statsd/counter/drop.b")->hdr.flags &
	    KSTAT_FLAG_PERSISTENT));
	/* At 12 s the two idle since 1 s go; also.c and other.d stay. */
	ck_assert_uint_eq(series_expire(f.s, 12 * sec, 1u << 20), 2);
	ck_assert_ptr_null(find(&f.d, "statsd/counter/drop.b"));
	k = find(&f.d, "statsd/counter/keep.a");
	ck_assert_ptr_nonnull(k);
	ck_assert(k->dormant);
	series_stats(f.s, &ss);
	ck_assert_uint_eq(ss.series, 2);
	ck_assert_uint_eq(ss.expired, 2);
	/* Its next line wakes it with its data. */
	ck_assert_int_eq(feed(f.s, &root, "keep.a:1|c", 13 * sec), SERIES_OK);
	k = find(&f.d, "statsd/counter/keep.a");
	ck_assert(!k->dormant);
	ck_assert_int_eq(stat_of(k, 0, VS_STYPE_SUM), 6);
	/* A kstat deleted behind the table's back is made again; a
	 * PERSISTENT one made dormant wakes with its data. */
	k = find(&f.d, "statsd/counter/other.d");
	ck_assert_int_eq(registry_kstat_delete(f.d.reg, k), 0);
	ck_assert_int_eq(feed(f.s, &root, "other.d:3|c", 14 * sec), SERIES_OK);
	ck_assert_int_eq(stat_of(find(&f.d, "statsd/counter/other.d"), 0,
	    VS_STYPE_SUM), 3);
	k = find(&f.d, "statsd/counter/also.c");
	ck_assert_int_eq(registry_kstat_delete(f.d.reg, k), 1);
	ck_assert_int_eq(feed(f.s, &root, "also.c:3|c", 14 * sec), SERIES_OK);
	ck_assert_int_eq(stat_of(find(&f.d, "statsd/counter/also.c"), 0,
	    VS_STYPE_SUM), 4);
	fx_stop(&f);
}
END_TEST

START_TEST(many_series_grow_the_table)
{
	struct fixture f;
	struct series_stats ss;
	char line[64];
	int i;

	fx_start(&f);
	f.d.cfg.statsd_ttl_s = 1;
	for (i = 0; i < 5000; i++) {
		snprintf(line, sizeof(line), "m%d:%d|c|#k:%d", i, i, i % 7);
		ck_assert_int_eq(feed(f.s, &root, line, 1), SERIES_OK);
	}
	for (i = 0; i < 5000; i += 499) {
		snprintf(line, sizeof(line), "m%d:%d|c|#k:%d", i, i, i % 7);
		ck_assert_int_eq(feed(f.s, &root, line, 1), SERIES_OK);
	}
	series_stats(f.s, &ss);
	ck_assert_uint_eq(ss.series, 5000);
	ck_assert_uint_eq(ss.created, 5000);
	/* Expiry in slices: every series goes, none twice. */
	while (series_expire(f.s, 10000000000ull, 333) > 0 || ss.series > 0)
		series_stats(f.s, &ss);
	series_stats(f.s, &ss);
	ck_assert_uint_eq(ss.expired, 5000);
	fx_stop(&f);
}
END_TEST

/* The table's key before it was keyed: FNV-1a of the name, the type
 * mixed in (a series without tags). */
static uint64_t
old_key(uint8_t type, const char *name)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	for (; *name != '\0'; name++)
		h = (h ^ (uint8_t)*name) * UINT64_C(0x100000001b3);
	h ^= type;
	h ^= h >> 33;
	h *= UINT64_C(0xff51afd7ed558ccd);
	h ^= h >> 33;
	h *= UINT64_C(0xc4ceb9fe1a85ec53);
	h ^= h >> 33;
	return h;
}

/*
 * Hash flooding: 700 counter names that share the low 11 bits of the old
 * key, as anyone who can send a datagram could compute them, filled one
 * run of the table (2048 slots by then) 700 long. With the keyed hash
 * they spread like any names.
 */
START_TEST(flood_names_spread)
{
	struct fixture f;
	struct series_stats ss;
	char name[32], line[48];
	uint64_t want;
	uint32_t c = 0;
	int i;

	fx_start(&f);
	want = old_key(SL_COUNTER, "seed") & 0x7ff;
	for (i = 0; i < 700; i++) {
		do
			snprintf(name, sizeof(name), "f%" PRIu32, c++);
		while ((old_key(SL_COUNTER, name) & 0x7ff) != want);
		snprintf(line, sizeof(line), "%s:1|c", name);
		ck_assert_int_eq(feed(f.s, &root, line, 1), SERIES_OK);
	}
	series_stats(f.s, &ss);
	ck_assert_uint_eq(ss.series, 700);
	ck_assert_uint_lt(series_probe_max(f.s), 64);
	fx_stop(&f);
}
END_TEST

/* A kstat in module statsd at instance inst with path seg[], of tpl, as
 * a series of another run or of another sender would be. */
static struct reg_kstat *
put_kstat(struct statsd *d, int32_t inst, const char *name,
    const char *const *seg, uint32_t nseg, struct reg_template *tpl)
{
	struct reg_kstat_new n;
	struct kstat_hdr hdr;
	struct input_error kerr;
	struct quota_refusal why;
	struct reg_kstat *k;
	bool revived;

	ck_assert_int_eq(ks_hdr_new(&hdr, "statsd", inst, name, "statsd",
	    KSTAT_TYPE_BLOB, 0, seg, nseg, "in the way", &kerr), 0);
	memset(&n, 0, sizeof(n));
	n.hdr = &hdr;
	n.owner = 65534;
	n.privileged = true;
	n.owner_zone = ZONE_GLOBAL;
	n.zone = ZONE_GLOBAL;
	n.tpl = tpl;
	ck_assert_int_eq(registry_kstat_create(d->reg, &n, &k, &revived,
	    &why), 0);
	return k;
}

static int32_t
next_inst(int32_t i)
{
	return i == INT32_MAX ? 1 : i + 1;
}

/*
 * A series is found by its path and made wherever there is room: 100
 * kstats of its name at the instances from the one it had (another
 * sender's series, as one could place them when the instance was a hash
 * anyone could compute) do not keep it from being made again, where
 * statsd used to give up after 64 (SERIES_STORE, for good); and a kstat
 * of its path at an instance of its own (a PERSISTENT series of an
 * earlier run) is the one it takes up again.
 */
START_TEST(kstats_in_the_way)
{
	static const char *const moved[] = { "statsd", "gauge", "moved",
	    "statsd_uid:65534" };
	struct fixture f;
	struct reg_kstat *k, *m;
	struct reg_template *tpl;
	int32_t inst, i0;
	char tagseg[32];
	int i, paths;

	fx_start(&f);
	/* What the checkpoint brings back at start, before any line. */
	tpl = registry_template_find(f.d.reg, "statsd.gauge");
	ck_assert_ptr_nonnull(tpl);
	m = put_kstat(&f.d, 777, "moved", moved, 4, tpl);
	ck_assert_int_eq(feed(f.s, &nobody, "moved:5|g", 1), SERIES_OK);
	k = find_exact(&f.d, "statsd/gauge/moved/statsd_uid:65534");
	ck_assert_ptr_eq(k, m);
	ck_assert_int_eq(k->hdr.instance, 777);
	ck_assert_int_eq(stat_of(k, 0, VS_STYPE_LAST), 5);
	{
		struct reg_kstat **all;
		size_t n = registry_kstats(f.d.reg, &all), j;

		for (paths = 0, j = 0; j < n; j++)
			paths += strcmp(all[j]->hdr.path,
			    "statsd/gauge/moved/statsd_uid:65534") == 0;
		ck_assert_int_eq(paths, 1);
	}

	ck_assert_int_eq(feed(f.s, &root, "victim.g:1|g", 2), SERIES_OK);
	k = find(&f.d, "statsd/gauge/victim.g");
	ck_assert_ptr_nonnull(k);
	i0 = inst = k->hdr.instance;
	ck_assert_int_eq(registry_kstat_delete(f.d.reg, k), 0);
	for (i = 0; i < 100; i++, inst = next_inst(inst)) {
		const char *seg[4] = { "statsd", "gauge", "victim.g", tagseg };

		snprintf(tagseg, sizeof(tagseg), "squat:%d", i);
		put_kstat(&f.d, inst, "victim.g", seg, 4, tpl);
	}
	ck_assert_int_eq(feed(f.s, &root, "victim.g:2|g", 3), SERIES_OK);
	k = find(&f.d, "statsd/gauge/victim.g");
	ck_assert_ptr_nonnull(k);
	ck_assert_int_eq(k->hdr.instance, inst);
	ck_assert_int_ne(k->hdr.instance, i0);
	ck_assert_int_eq(stat_of(k, 0, VS_STYPE_LAST), 2);
	fx_stop(&f);
}
END_TEST

/* Whole weights of 1/rate, the fraction carried to the series' next
 * value: the totals stay within one of values/rate. */
START_TEST(fractional_weights_carried)
{
	struct fixture f;
	struct reg_kstat *k;
	int i;

	fx_start(&f);
	for (i = 0; i < 10; i++)
		ck_assert_int_eq(feed(f.s, &root, "w:2|h|@0.3", 1), SERIES_OK);
	k = find(&f.d, "statsd/histogram/w");
	ck_assert_int_eq(stat_of(k, 0, VS_STYPE_COUNT), 33);	/* not 30 */
	ck_assert_int_eq(stat_of(k, 0, VS_STYPE_SUM), 66);
	/* DogStatsD 1.1 values weigh one by one: 3, 3, 4 */
	feed(f.s, &root, "d:1:1:1|d|@0.3", 1);
	k = find(&f.d, "statsd/distribution/d");
	ck_assert_int_eq(stat_of(k, 0, VS_STYPE_COUNT), 10);
	for (i = 0; i < 4; i++)
		feed(f.s, &root, "t:1|ms|@0.4", 1);
	k = find(&f.d, "statsd/timer/t");
	ck_assert_int_eq(stat_of(k, 0, VS_STYPE_COUNT), 10);
	/* each series carries its own fraction */
	feed(f.s, &root, "a:1|h|@0.5", 1);
	feed(f.s, &root, "b:1|h|@0.75", 1);
	feed(f.s, &root, "b:1|h|@0.75", 1);
	feed(f.s, &root, "b:1|h|@0.75", 1);
	ck_assert_int_eq(stat_of(find(&f.d, "statsd/histogram/a"), 0,
	    VS_STYPE_COUNT), 2);
	ck_assert_int_eq(stat_of(find(&f.d, "statsd/histogram/b"), 0,
	    VS_STYPE_COUNT), 4);
	/* 1000 values at a rate 1/1.7: 1700, to within one */
	for (i = 0; i < 1000; i++)
		feed(f.s, &root, "r:1|h|@0.588235294117647", 1);
	ck_assert_int_ge(stat_of(find(&f.d, "statsd/histogram/r"), 0,
	    VS_STYPE_COUNT), 1699);
	ck_assert_int_le(stat_of(find(&f.d, "statsd/histogram/r"), 0,
	    VS_STYPE_COUNT), 1700);
	/* a weight a double cannot hold whole: refused, counted */
	ck_assert_int_eq(feed(f.s, &root, "w:2|h|@1e-300", 1), SERIES_RANGE);
	ck_assert_int_eq(stat_of(find(&f.d, "statsd/histogram/w"), 0,
	    VS_STYPE_COUNT), 33);
	fx_stop(&f);
}
END_TEST

/* DogStatsD's container field is the tag container_id:<id>; it wins
 * over a container_id tag on the same line. */
START_TEST(container_field_is_a_tag)
{
	struct fixture f;
	struct reg_kstat *k;

	fx_start(&f);
	ck_assert_int_eq(feed(f.s, &root, "c1:1|c|c:abc123", 1), SERIES_OK);
	k = find(&f.d, "statsd/counter/c1/container_id:abc123");
	ck_assert_ptr_nonnull(k);
	ck_assert_int_eq(stat_of(k, 0, VS_STYPE_SUM), 1);
	ck_assert_int_eq(feed(f.s, &root, "c1:1|c|#env:prod|c:abc123", 1),
	    SERIES_OK);
	ck_assert_int_eq(feed(f.s, &root,
	    "c1:2|c|c:abc123|#container_id:other,env:prod,container_id", 1),
	    SERIES_OK);
	k = find(&f.d, "statsd/counter/c1/container_id:abc123/env:prod");
	ck_assert_ptr_nonnull(k);
	ck_assert_int_eq(stat_of(k, 0, VS_STYPE_SUM), 3);
	/* without the field, the tag is the line's own */
	ck_assert_int_eq(feed(f.s, &root, "c1:4|c|#container_id:other", 1),
	    SERIES_OK);
	k = find(&f.d, "statsd/counter/c1/container_id:other");
	ck_assert_ptr_nonnull(k);
	ck_assert_int_eq(stat_of(k, 0, VS_STYPE_SUM), 4);
	/* it counts among the 13 tags a path holds (a UDP line's: a Unix
	 * line's owner tag is one more); an empty field is none */
	ck_assert_int_eq(feed(f.s, &udp,
	    "c2:1|c|#a,b,c,d,e,f,g,h,i,j,k,l,m|c:x", 1), SERIES_TOOLONG);
	ck_assert_int_eq(feed(f.s, &udp,
	    "c2:1|c|#a,b,c,d,e,f,g,h,i,j,k,l|c:x", 1), SERIES_OK);
	ck_assert_int_eq(feed(f.s, &root,
	    "c2:1|c|#a,b,c,d,e,f,g,h,i,j,k,l|c:x", 1), SERIES_TOOLONG);
	ck_assert_int_eq(feed(f.s, &root, "c3:1|c|c:", 1), SERIES_OK);
	ck_assert_ptr_nonnull(find(&f.d, "statsd/counter/c3"));
	fx_stop(&f);
}
END_TEST

/*
 * A series kstat made from an older layout of statsd's own template of
 * its type (an older statsd's "statsd.timer", other statsd_buckets_*: as
 * the checkpoint brings them back) is the series' kstat still, updated
 * in its own layout; one of another user's template of that name is not.
 */
START_TEST(older_layouts_kept)
{
	static const char *const old[] = { "statsd", "timer", "old.t",
	    "statsd_uid:65534" };
	static const char *const theirs[] = { "statsd", "histogram",
	    "their.h", "statsd_uid:65534" };
	struct reg_owner user = { 1000, false, false };
	struct reg_template *t, *u;
	struct quota_refusal why;
	struct input_error terr;
	struct fixture f;
	struct reg_kstat *k, *m, *mu;
	json_t *def;
	bool created;

	fx_start(&f);
	t = unit_template(&f.d, "{\"name\":\"statsd.timer\",\"vois\":[{"
	    "\"id\":0,\"name\":\"value\",\"dtype\":\"INT_S64\",\"stats\":"
	    "[{\"kind\":\"SUM\"},{\"kind\":\"COUNT\"}]}]}");
	ck_assert_ptr_nonnull(t);
	m = put_kstat(&f.d, 31, "old.t", old, 4, t);
	/* Before any line, as the checkpoint's at start: another user's
	 * template of the name is not a layout of statsd's. */
	def = json_loads("{\"name\":\"statsd.histogram\",\"vois\":[{"
	    "\"id\":0,\"name\":\"value\",\"dtype\":\"INT_S64\",\"stats\":"
	    "[{\"kind\":\"SUM\"}]}]}", 0, NULL);
	ck_assert_int_eq(registry_template_add(f.d.reg, def, &user, &u,
	    &created, &terr, &why), 0);
	json_decref(def);
	mu = put_kstat(&f.d, 32, "their.h", theirs, 4, u);
	ck_assert_int_eq(feed(f.s, &nobody, "old.t:5|ms|@0.5", 1),
	    SERIES_OK);
	k = find_exact(&f.d, "statsd/timer/old.t/statsd_uid:65534");
	ck_assert_ptr_eq(k, m);
	ck_assert_ptr_eq(k->tpl, t);
	ck_assert_int_eq(stat_of(k, 0, VS_STYPE_SUM), 5000 * 2);
	ck_assert_int_eq(stat_of(k, 0, VS_STYPE_COUNT), 2);
	/* a new series of the type takes this layout's template */
	ck_assert_int_eq(feed(f.s, &nobody, "new.t:5|ms", 1), SERIES_OK);
	k = find_exact(&f.d, "statsd/timer/new.t/statsd_uid:65534");
	ck_assert_ptr_nonnull(k);
	ck_assert_ptr_ne(k->tpl, t);
	ck_assert_int_eq(strncmp(k->tpl->name, "statsd.timer.", 13), 0);
	ck_assert_int_eq(feed(f.s, &nobody, "their.h:1|h", 1),
	    SERIES_STORE);
	ck_assert_int_eq(stat_of(mu, 0, VS_STYPE_SUM), 0);
	ck_assert_int_eq(sl_tpl_type("statsd.timer"), SL_TIMER);
	ck_assert_int_eq(sl_tpl_type("statsd.set.0123abcd"), SL_SET);
	ck_assert_int_eq(sl_tpl_type("statsd.self"), -1);
	ck_assert_int_eq(sl_tpl_type("statsd.timers"), -1);
	fx_stop(&f);
}
END_TEST

START_TEST(configured_templates)
{
	struct reg_owner user = { 1000, false, false };
	struct reg_template *t = NULL;
	struct quota_refusal why;
	struct fixture f;
	struct reg_kstat *k;
	struct input_error terr;
	json_t *def;
	bool created;

	fx_start(&f);
	/* root's fixed-point counter: fractions kept */
	unit_template(&f.d, "{\"name\":\"my.counter\",\"vois\":[{\"id\":0,"
	    "\"name\":\"v\",\"dtype\":\"Q_S64\",\"stats\":[{\"kind\":"
	    "\"SUM\"}]}]}");
	free(f.d.cfg.statsd_template[SL_COUNTER]);
	f.d.cfg.statsd_template[SL_COUNTER] = strdup("my.counter");
	ck_assert_int_eq(feed(f.s, &root, "q:1.5|c", 1), SERIES_OK);
	ck_assert_int_eq(feed(f.s, &root, "q:0.25|c", 1), SERIES_OK);
	k = find(&f.d, "statsd/counter/q");
	ck_assert_str_eq(k->tpl->name, "my.counter");
	{
		s64q_t q = 0;

		ck_assert_int_eq(stats_voistat_fetch_sq64((struct statsblob *)
		    registry_blob_peek(k), 0, VS_STYPE_SUM, &q), 0);
		ck_assert_int_eq(q, (int64_t)(1.75 * 4294967296.0));
	}
	/* another user's template is not taken, nor a missing one */
	def = json_loads("{\"name\":\"their.gauge\",\"vois\":[{\"id\":0,"
	    "\"name\":\"v\",\"dtype\":\"INT_S64\",\"stats\":[{\"kind\":"
	    "\"LAST\"}]}]}", 0, NULL);
	ck_assert_int_eq(registry_template_add(f.d.reg, def, &user, &t,
	    &created, &terr, &why), 0);
	json_decref(def);
	free(f.d.cfg.statsd_template[SL_GAUGE]);
	f.d.cfg.statsd_template[SL_GAUGE] = strdup("their.gauge");
	ck_assert_int_eq(feed(f.s, &root, "g:1|g", 1), SERIES_STORE);
	free(f.d.cfg.statsd_template[SL_GAUGE]);
	f.d.cfg.statsd_template[SL_GAUGE] = strdup("no.such");
	ck_assert_int_eq(feed(f.s, &root, "g:1|g", 1), SERIES_STORE);
	ck_assert_ptr_null(find(&f.d, "statsd/gauge/g"));
	/* back to statsd's own */
	f.d.cfg.statsd_template[SL_GAUGE][0] = '\0';
	ck_assert_int_eq(feed(f.s, &root, "g:1|g", 1), SERIES_OK);
	ck_assert_str_eq(find(&f.d, "statsd/gauge/g")->tpl->name,
	    "statsd.gauge");
	fx_stop(&f);
}
END_TEST

/*
 * A series whose kstat was deleted behind the table's back (its owner may
 * delete it) is found by its key and made again, in a table most of whose
 * slots are empty after an expiry. Before, its entry was found by a walk
 * of the whole table at every such line; that cost is not asserted here
 * (no timings in tests), only that each comes back whole.
 */
START_TEST(deleted_series_found_by_key)
{
	struct fixture f;
	struct series_stats ss;
	uint64_t sec = 1000000000u;
	char line[64], path[64];
	struct reg_kstat *k;
	int i;

	fx_start(&f);
	f.d.cfg.statsd_ttl_s = 10;
	for (i = 0; i < 4000; i++) {
		snprintf(line, sizeof(line), "old%d:1|c", i);
		ck_assert_int_eq(feed(f.s, &root, line, 1 * sec), SERIES_OK);
	}
	for (i = 0; i < 200; i++) {
		snprintf(line, sizeof(line), "mine%d:1|c", i);
		ck_assert_int_eq(feed(f.s, &root, line, 5 * sec), SERIES_OK);
	}
	while (series_expire(f.s, 12 * sec, 1u << 20) > 0)
		;
	series_stats(f.s, &ss);
	ck_assert_uint_eq(ss.series, 200);
	for (i = 0; i < 200; i++) {
		snprintf(path, sizeof(path), "statsd/counter/mine%d", i);
		ck_assert_int_eq(registry_kstat_delete(f.d.reg,
		    find(&f.d, path)), 0);
	}
	for (i = 0; i < 200; i++) {
		snprintf(line, sizeof(line), "mine%d:2|c", i);
		ck_assert_int_eq(feed(f.s, &root, line, 13 * sec), SERIES_OK);
	}
	series_stats(f.s, &ss);
	ck_assert_uint_eq(ss.series, 200);
	for (i = 0; i < 200; i++) {
		snprintf(path, sizeof(path), "statsd/counter/mine%d", i);
		k = find(&f.d, path);
		ck_assert_ptr_nonnull(k);
		ck_assert_int_eq(stat_of(k, 0, VS_STYPE_SUM), 2);
	}
	fx_stop(&f);
}
END_TEST

/*
 * A series is its sender's (series.h). nobody claims a name first, over
 * the Unix socket and over UDP; the owner's later lines, Unix and UDP,
 * are all applied, the owner's Unix ones to its own series; nobody's
 * never reach it. A series an older statsd left at an untagged path (a
 * kstat from the checkpoint) is written only by its owner's namespace.
 */
START_TEST(series_belong_to_their_sender)
{
	static const char *const old[] = { "statsd", "counter", "legacy" };
	struct fixture f;
	struct reg_template *tpl;
	struct reg_kstat *mine, *theirs, *anon;
	int i;

	fx_start(&f);
	f.d.self_uid = 4242;		/* UDP's owner: not root */
	/* Left by an earlier run, before any line (as the checkpoint's). */
	tpl = registry_template_find(f.d.reg, "statsd.counter");
	ck_assert_ptr_nonnull(tpl);
	(void)put_kstat(&f.d, 9, "legacy", old, 3, tpl);	/* nobody's */
	ck_assert_int_eq(feed(f.s, &nobody, "app.req:1000000|c", 1),
	    SERIES_OK);
	for (i = 0; i < 2000; i++)
		ck_assert_int_eq(feed(f.s, &alice, "app.req:1|c", 2),
		    SERIES_OK);
	for (i = 0; i < 1000; i++)
		ck_assert_int_eq(feed(f.s, &udp, "app.req:1|c", 3),
		    SERIES_OK);
	mine = find_exact(&f.d, "statsd/counter/app.req/statsd_uid:1000");
	theirs = find_exact(&f.d, "statsd/counter/app.req/statsd_uid:65534");
	anon = find_exact(&f.d, "statsd/counter/app.req");
	ck_assert_ptr_nonnull(mine);
	ck_assert_ptr_nonnull(theirs);
	ck_assert_ptr_nonnull(anon);
	ck_assert_uint_eq(mine->owner, 1000);
	ck_assert_uint_eq(theirs->owner, 65534);
	ck_assert_uint_eq(anon->owner, 4242);
	ck_assert_int_eq(stat_of(mine, 0, VS_STYPE_SUM), 2000);
	ck_assert_int_eq(stat_of(mine, 0, VS_STYPE_COUNT), 2000);
	ck_assert_int_eq(stat_of(anon, 0, VS_STYPE_SUM), 1000);
	ck_assert_int_eq(stat_of(theirs, 0, VS_STYPE_SUM), 1000000);
	/* nobody's later lines, with a forged owner tag too, stay its own. */
	ck_assert_int_eq(feed(f.s, &nobody, "app.req:5|c|#statsd_uid:1000",
	    4), SERIES_OK);
	ck_assert_int_eq(stat_of(mine, 0, VS_STYPE_SUM), 2000);
	ck_assert_int_eq(stat_of(theirs, 0, VS_STYPE_SUM), 1000005);
	/* Nor a tag the exposition would show as the label statsd_uid. */
	ck_assert_int_eq(feed(f.s, &udp, "u0:1|c|#statsd.uid:0,Statsd_uid:1,"
	    "statsd__uid:0,statsd-uid,statsd_uid2:5", 4), SERIES_OK);
	ck_assert_int_eq(feed(f.s, &nobody, "app.req:1|c|#statsd.uid:1000",
	    4), SERIES_OK);
	ck_assert_int_eq(stat_of(find_exact(&f.d,
	    "statsd/counter/u0/Statsd_uid:1/statsd_uid2:5"), 0, VS_STYPE_SUM),
	    1);
	ck_assert_int_eq(stat_of(theirs, 0, VS_STYPE_SUM), 1000006);
	ck_assert_int_eq(feed(f.s, &udp, "legacy:1|c", 5), SERIES_DENIED);
	ck_assert_int_eq(feed(f.s, &root, "legacy:1|c", 5), SERIES_OK);
	ck_assert_int_eq(stat_of(find_exact(&f.d, "statsd/counter/legacy"), 0,
	    VS_STYPE_SUM), 0);
	fx_stop(&f);
}
END_TEST

/*
 * PERSISTENT series made or revived in one turn are bounded per source:
 * a datagram of 40 lines of deleted PERSISTENT series revives 8, refuses
 * the rest as busy, and the next turns revive the rest; another source's
 * budget is its own.
 */
START_TEST(persistent_makes_bounded_per_turn)
{
	struct fixture f;
	struct reg_kstat *k;
	struct sl_line l;
	char line[64], path[96];
	unsigned ok, busy, turn;
	int64_t sum[40];
	int i;

	fx_start(&f);
	free(f.d.cfg.statsd_persistent_prefixes);
	f.d.cfg.statsd_persistent_prefixes = strdup("keep.");
	f.d.cfg.statsd_max_series_per_uid = 100;
	/* One batch (no series_sync() between): 8 made, 32 busy. */
	for (ok = busy = 0, i = 0; i < 40; i++) {
		enum series_result r;

		snprintf(line, sizeof(line), "keep.%d:1|c", i);
		ck_assert(sl_line_parse(line, strlen(line), &lim, &l) ==
		    SL_OK);
		r = series_apply(f.s, &nobody, &l, 1);
		ok += r == SERIES_OK;
		busy += r == SERIES_BUSY;
	}
	/* Another source's lines in that batch: its own budget. */
	ck_assert(sl_line_parse("keep.root:1|c", 13, &lim, &l) == SL_OK);
	ck_assert_int_eq(series_apply(f.s, &root, &l, 1), SERIES_OK);
	/* Not PERSISTENT: no budget at all. */
	ck_assert(sl_line_parse("plain:1|c", 9, &lim, &l) == SL_OK);
	ck_assert_int_eq(series_apply(f.s, &nobody, &l, 1), SERIES_OK);
	series_sync(f.s);
	ck_assert_uint_eq(ok, SERIES_DURABLE_PER_TURN);
	ck_assert_uint_eq(busy, 40 - SERIES_DURABLE_PER_TURN);
	/* Each later turn makes 8 more, until all 40 are. */
	for (turn = 0; ok < 40; turn++) {
		unsigned made = 0;

		for (i = 0; i < 40; i++) {
			snprintf(line, sizeof(line), "keep.%d:1|c", i);
			ck_assert(sl_line_parse(line, strlen(line), &lim,
			    &l) == SL_OK);
			made += series_apply(f.s, &nobody, &l, 2) == SERIES_OK;
		}
		series_sync(f.s);
		ck_assert_uint_eq(made, ok + SERIES_DURABLE_PER_TURN > 40 ?
		    40 : ok + SERIES_DURABLE_PER_TURN);
		ok = made;
	}
	ck_assert_uint_eq(turn, 4);
	/* All deleted (dormant), then one datagram of all 40: 8 revived. */
	for (i = 0; i < 40; i++) {
		snprintf(path, sizeof(path),
		    "statsd/counter/keep.%d/statsd_uid:65534", i);
		k = find_exact(&f.d, path);
		ck_assert_ptr_nonnull(k);
		sum[i] = stat_of(k, 0, VS_STYPE_SUM);
		ck_assert_int_ge(sum[i], 1);
		ck_assert_int_eq(registry_kstat_delete(f.d.reg, k), 1);
	}
	for (ok = busy = 0, i = 0; i < 40; i++) {
		enum series_result r;

		snprintf(line, sizeof(line), "keep.%d:1|c", i);
		ck_assert(sl_line_parse(line, strlen(line), &lim, &l) ==
		    SL_OK);
		r = series_apply(f.s, &nobody, &l, 3);
		ok += r == SERIES_OK;
		busy += r == SERIES_BUSY;
	}
	series_sync(f.s);
	ck_assert_uint_eq(ok, SERIES_DURABLE_PER_TURN);
	ck_assert_uint_eq(busy, 40 - SERIES_DURABLE_PER_TURN);
	for (ok = 0, i = 0; i < 40; i++) {
		snprintf(path, sizeof(path),
		    "statsd/counter/keep.%d/statsd_uid:65534", i);
		k = find_exact(&f.d, path);
		ck_assert_ptr_nonnull(k);
		/* Revived with its data and this line; or asleep with its
		 * data. */
		ck_assert_int_eq(stat_of(k, 0, VS_STYPE_SUM), sum[i] +
		    !k->dormant);
		ok += !k->dormant;
	}
	ck_assert_uint_eq(ok, SERIES_DURABLE_PER_TURN);
	/* A new table over the same registry, as after a restart: the 8
	 * awake series are found by their paths, at no cost; the others
	 * still wake 8 a turn. */
	f.s = series_free(f.s);
	ck_assert_int_eq(series_new(&f.d, &f.s), 0);
	for (ok = busy = 0, i = 0; i < 40; i++) {
		enum series_result r;

		snprintf(line, sizeof(line), "keep.%d:1|c", i);
		ck_assert(sl_line_parse(line, strlen(line), &lim, &l) ==
		    SL_OK);
		r = series_apply(f.s, &nobody, &l, 4);
		ok += r == SERIES_OK;
		busy += r == SERIES_BUSY;
	}
	series_sync(f.s);
	ck_assert_uint_eq(ok, 2 * SERIES_DURABLE_PER_TURN);
	ck_assert_uint_eq(busy, 40 - 2 * SERIES_DURABLE_PER_TURN);
	fx_stop(&f);
}
END_TEST

/*
 * Lines of one batch (no series_sync() between them) that name the series
 * of the line before find it without the table: each still goes to its
 * own type's, tags' and sender's series, whatever came just before.
 */
START_TEST(lines_of_a_batch)
{
	static const struct {
		const struct series_src	*src;
		const char		*line;
	} batch[] = {
		{ &udp, "b:1|c" }, { &udp, "b:1|c" }, { &udp, "b:1|g" },
		{ &udp, "b:1|c" }, { &udp, "b:1|c|#t" }, { &udp, "b:2|c|#" },
		{ &udp, "b:1|c|#t" }, { &udp, "b:1|c" }, { &alice, "b:1|c" },
		{ &alice, "b:1|c" }, { &nobody, "b:1|c" }, { &alice, "b:1|c" },
		{ &udp, "b:4|c" }, { &udp, "c:1|c" }, { &udp, "b:1|c|c:k8s" },
		{ &udp, "b:1|c" }, { &alice, "b:1|c|#statsd_uid:7" },
		{ &udp, "b:-1|c" }, { &udp, "b:1|c" },
	};
	struct fixture f;
	struct reg_kstat *k;
	struct sl_line l;
	size_t i;

	fx_start(&f);
	for (i = 0; i < sizeof(batch) / sizeof(batch[0]); i++) {
		const char *ln = batch[i].line;

		ck_assert(sl_line_parse(ln, strlen(ln), &lim, &l) == SL_OK);
		ck_assert_int_eq(series_apply(f.s, batch[i].src, &l, 1),
		    strcmp(ln, "b:-1|c") == 0 ? SERIES_NEGATIVE : SERIES_OK);
	}
	series_sync(f.s);
	ck_assert_int_eq(stat_of(find_exact(&f.d, "statsd/counter/b"), 0,
	    VS_STYPE_SUM), 1 + 1 + 1 + 2 + 1 + 4 + 1 + 1);
	ck_assert_int_eq(stat_of(find_exact(&f.d, "statsd/gauge/b"), 0,
	    VS_STYPE_LAST), 1);
	ck_assert_int_eq(stat_of(find_exact(&f.d, "statsd/counter/b/t"), 0,
	    VS_STYPE_SUM), 2);
	ck_assert_int_eq(stat_of(find_exact(&f.d,
	    "statsd/counter/b/container_id:k8s"), 0, VS_STYPE_SUM), 1);
	ck_assert_int_eq(stat_of(find_exact(&f.d, "statsd/counter/c"), 0,
	    VS_STYPE_SUM), 1);
	ck_assert_int_eq(stat_of(find_exact(&f.d,
	    "statsd/counter/b/statsd_uid:1000"), 0, VS_STYPE_SUM), 4);
	ck_assert_int_eq(stat_of(find_exact(&f.d,
	    "statsd/counter/b/statsd_uid:65534"), 0, VS_STYPE_SUM), 1);
	/* A series deleted between batches is made again by its next
	 * lines, the first and those after it. */
	k = find_exact(&f.d, "statsd/counter/b");
	ck_assert_int_eq(registry_kstat_delete(f.d.reg, k), 0);
	for (i = 0; i < 3; i++) {
		ck_assert(sl_line_parse("b:1|c", 5, &lim, &l) == SL_OK);
		ck_assert_int_eq(series_apply(f.s, &udp, &l, 2), SERIES_OK);
	}
	series_sync(f.s);
	ck_assert_int_eq(stat_of(find_exact(&f.d, "statsd/counter/b"), 0,
	    VS_STYPE_SUM), 3);
	fx_stop(&f);
}
END_TEST

/*
 * The hints front.c runs ahead of the lines of a slab (series.h) change
 * nothing: lines hinted three ahead, in the front's order, give exactly
 * the sums of lines applied alone, through series made on the way,
 * kstats deleted under their entries (whose hints then name a freed
 * kstat and blob: prefetched, never read, which ASan would report), and
 * entries freed and made again between a line's hints.
 */
static void
feed_hinted(struct series *s, const struct series_src *src,
    char lines[][32], int n, uint64_t now)
{
	struct sl_line l[8];
	struct series_hint h[8];
	int i;

	for (i = 0; i < n + 3; i++) {
		if (i < n) {
			ck_assert_int_eq(sl_line_parse(lines[i],
			    strlen(lines[i]), &lim, &l[i % 8]), SL_OK);
			series_hint_key(s, src, &l[i % 8], &h[i % 8]);
			ck_assert(h[i % 8].ok);
		}
		if (i >= 1 && i - 1 < n)
			series_hint_entry(s, &h[(i - 1) % 8]);
		if (i >= 2 && i - 2 < n)
			series_hint_data(s, &h[(i - 2) % 8]);
		if (i >= 3)
			ck_assert_int_eq(series_apply(s, src, &l[(i - 3) % 8],
			    now), SERIES_OK);
	}
	series_sync(s);
}

START_TEST(hints_change_nothing)
{
	static char lines[600][32];
	struct fixture f;
	char path[64];
	struct reg_kstat *k;
	int i, round;

	fx_start(&f);
	for (round = 0; round < 3; round++) {
		for (i = 0; i < 600; i++)
			snprintf(lines[i], sizeof(lines[i]), "h%d:%d|%s",
			    i % 300, i % 300 + 1, i % 3 == 0 ? "ms" : "c");
		feed_hinted(f.s, &udp, lines, 600, 1000);
		if (round == 2)
			break;
		/* Half the kstats deleted: their entries stay, stale. */
		for (i = 0; i < 300; i += 2) {
			snprintf(path, sizeof(path), "statsd/%s/h%d",
			    i % 3 == 0 ? "timer" : "counter", i);
			k = find(&f.d, path);
			ck_assert_ptr_nonnull(k);
			ck_assert_int_eq(registry_kstat_delete(f.d.reg, k), 0);
		}
	}
	/* Each series' lines since its kstat was last made: counters of
	 * odd i all 3 rounds (6 lines), even i the last round (2). */
	for (i = 0; i < 300; i++) {
		snprintf(path, sizeof(path), "statsd/%s/h%d",
		    i % 3 == 0 ? "timer" : "counter", i);
		k = find(&f.d, path);
		ck_assert_ptr_nonnull(k);
		ck_assert_int_eq(stat_of(k, 0, VS_STYPE_SUM),
		    (int64_t)(i + 1) * (i % 2 ? 6 : 2) *
		    (i % 3 == 0 ? 1000 : 1));
	}
	fx_stop(&f);
}
END_TEST

/*
 * A line whose name and tags pass the key's buffer is hashed in pieces,
 * and refused: no kstat2 path holds it (SL_PATH_MAX).
 */
START_TEST(long_series_keyed_in_pieces)
{
	char a[201], b[201], c[201], line[800];
	struct reg_kstat **all;
	struct fixture f;
	size_t n;
	int i;

	fx_start(&f);
	n = registry_kstats(f.d.reg, &all);
	memset(a, 'a', 200);
	memset(b, 'b', 200);
	memset(c, 'c', 200);
	a[200] = b[200] = c[200] = '\0';
	for (i = 0; i < 4; i++) {
		snprintf(line, sizeof(line), "long.name:1|c|#%s,%s,%s",
		    i % 2 ? a : c, b, i % 2 ? c : a);
		ck_assert_int_eq(feed(f.s, &udp, line, 1), SERIES_TOOLONG);
	}
	ck_assert_uint_eq(registry_kstats(f.d.reg, &all), n);
	/* The same line with one short tag is a series. */
	ck_assert_int_eq(feed(f.s, &udp, "long.name:1|c|#x", 1), SERIES_OK);
	ck_assert_int_eq(stat_of(find_exact(&f.d, "statsd/counter/long.name/x"),
	    0, VS_STYPE_SUM), 1);
	fx_stop(&f);
}
END_TEST

static Suite *
series_suite(void)
{
	Suite *s = suite_create("series");
	TCase *tc = tcase_create("series");

	tcase_add_test(tc, one_kstat_per_series);
	tcase_add_test(tc, updates_of_each_type);
	tcase_add_test(tc, sets_exact_then_estimated);
	tcase_add_test(tc, caps_and_rights);
	tcase_add_test(tc, expiry_and_persistence);
	tcase_add_test(tc, many_series_grow_the_table);
	tcase_add_test(tc, flood_names_spread);
	tcase_add_test(tc, kstats_in_the_way);
	tcase_add_test(tc, configured_templates);
	tcase_add_test(tc, older_layouts_kept);
	tcase_add_test(tc, fractional_weights_carried);
	tcase_add_test(tc, container_field_is_a_tag);
	tcase_add_test(tc, set_estimate_survives);
	tcase_add_test(tc, deleted_series_found_by_key);
	tcase_add_test(tc, series_belong_to_their_sender);
	tcase_add_test(tc, persistent_makes_bounded_per_turn);
	tcase_add_test(tc, lines_of_a_batch);
	tcase_add_test(tc, long_series_keyed_in_pieces);
	tcase_add_test(tc, hints_change_nothing);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_main(series_suite());
}
