/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * client_it.c: a libstatsclient application for the integration tests. Each
 * mode exercises one part of the library against a real statsd and checks
 * what it can see itself; test_client.py starts statsd, runs the modes and
 * checks the daemon's side. Output: "FAIL: ..." lines, "key=value" result
 * lines, then "N passed, N failed"; the exit status is 1 on any failure.
 *
 *   client_it MODE SOCKET [ARGS...]
 *
 * CLIENT_IT_RING_LOG2=n in the environment asks for rings of 2^n records.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <statsd/client.h>
#include <statsd/kstat.h>
#include <statsd/statistic.h>
#include <statsd/stats.h>

static int npassed, nfailed;
static const char *sock;
static stats_client_t *cli;

static void
check(int cond, const char *fmt, ...)
{
	va_list ap;

	if (cond) {
		npassed++;
		return;
	}
	nfailed++;
	printf("FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static int
finish(void)
{
	printf("%d passed, %d failed\n", npassed, nfailed);
	return nfailed > 0;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A template with one counter VOI ("n": SUM) and one value VOI ("v": SUM,
 * MIN, MAX, a histogram and a t-digest). */
static int
make_tpl(const char *name)
{
	struct voistatspec n[] = { STATS_VSS_SUM() };
	struct voistatspec v[] = {
		STATS_VSS_SUM(), STATS_VSS_MIN(), STATS_VSS_MAX(),
		STATS_VSS_CRHIST64_LIN(0, 1000, 100, VSD_HIST_UBOUND_INF),
		STATS_VSS_TDGSTCLUST64(32, 0),
	};
	int id = stats_tpl_fetch_allocid(name, 0);

	if (id >= 0)
		return id;
	id = stats_tpl_alloc(name, 0);
	check(id >= 0, "stats_tpl_alloc %s: %d", name, id);
	check(stats_tpl_add_voistats((uint32_t)id, 0, "n", VSD_DTYPE_INT_U64,
	    NVSS(n), n, 0) == 0, "add VOI n");
	check(stats_tpl_add_voistats((uint32_t)id, 1, "v", VSD_DTYPE_INT_S64,
	    NVSS(v), v, SB_VOI_RELUPDATE) == 0, "add VOI v");
	return id;
}

static struct statsblob *
publish(const char *name, uint32_t flags)
{
	struct statsblob *sb;

	sb = stats_blob_publish(cli, make_tpl("it_tpl"), "it", 0, name,
	    "test", flags);
	check(sb != NULL, "publish %s: %s (%s)", name, strerror(errno),
	    stats_client_strerror(cli));
	return sb;
}

static uint64_t
fetch_u64(struct statsblob *sb, int voi, enum voi_stype st)
{
	uint64_t v = 0;

	check(stats_voistat_fetch_u64(sb, voi, st, &v) == 0, "fetch u64");
	return v;
}

static int64_t
fetch_s64(struct statsblob *sb, int voi, enum voi_stype st)
{
	int64_t v = 0;

	check(stats_voistat_fetch_s64(sb, voi, st, &v) == 0, "fetch s64");
	return v;
}

/* Wait until a statistic of a published blob reaches want (the store copy
 * of a PERSISTENT kstat follows each drain pass). */
static uint64_t
wait_u64(struct statsblob *sb, int voi, uint64_t want)
{
	double end = now_s() + 20;
	uint64_t v = 0;

	while (now_s() < end) {
		stats_voistat_fetch_u64(sb, voi, VS_STYPE_SUM, &v);
		if (v == want)
			break;
		usleep(2000);
	}
	return v;
}

/* --------------------------------------------------------------- threads */

struct thr_arg {
	struct statsblob	*sb;
	long			 n;
	pthread_barrier_t	 go;
};

static void *
thr_main(void *p)
{
	struct thr_arg *a = p;
	long i;

	/* The first update gets the thread its ring (a call to statsd);
	 * the flood starts once every thread has one. */
	stats_voi_update_abs_u64(a->sb, 0, 1);
	pthread_barrier_wait(&a->go);
	for (i = 1; i < a->n; i++)
		stats_voi_update_abs_u64(a->sb, 0, 1);
	return NULL;
}

/* T threads x N updates each; after a flush, applied + dropped = pushed. */
static void
mode_threads(int argc, char **argv)
{
	long nthr = argc > 0 ? atol(argv[0]) : 8;
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	pthread_t t[64];
	struct thr_arg a;
	uint64_t p0, d0, s0, sum, pushed, dropped;
	double t0;
	long i;
	int r;

	a.sb = publish("threads", 0);
	a.n = n;
	if (a.sb == NULL || nthr > 64)
		return;
	p0 = stats_client_pushed(cli);
	d0 = stats_client_dropped(cli);
	s0 = fetch_u64(a.sb, 0, VS_STYPE_SUM);	/* an earlier run's */
	t0 = now_s();
	pthread_barrier_init(&a.go, NULL, (unsigned)nthr);
	for (i = 0; i < nthr; i++)
		pthread_create(&t[i], NULL, thr_main, &a);
	for (i = 0; i < nthr; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&a.go);
	r = stats_client_flush(cli, 60000);
	check(r == 0, "flush: %d", r);
	pushed = stats_client_pushed(cli) - p0;
	dropped = stats_client_dropped(cli) - d0;
	sum = fetch_u64(a.sb, 0, VS_STYPE_SUM) - s0;
	check(pushed == (uint64_t)(nthr * n), "pushed %" PRIu64 " = %ld",
	    pushed, nthr * n);
	check(sum + dropped == pushed, "applied %" PRIu64 " + dropped %"
	    PRIu64 " = pushed %" PRIu64, sum, dropped, pushed);
	if (dropped > 0)
		printf("note: reconnects %" PRIu64 ", last error: %s\n",
		    stats_client_reconnects(cli), stats_client_strerror(cli));
	printf("threads=%ld updates=%ld applied=%" PRIu64 " dropped=%" PRIu64
	    " seconds=%.3f\n", nthr, n, sum, dropped, now_s() - t0);
}

/* --------------------------------------------------------------- publish */

static void
mode_publish(int argc, char **argv)
{
	struct statsblob *sb;
	struct sbuf *b;
	char spec[128];
	double q = 0;
	int64_t rel = 0;
	int i, r;

	(void)argc;
	(void)argv;
	sb = publish("pub", 0);
	if (sb == NULL)
		return;
	check(stats_client_strerror(cli)[0] == '\0',
	    "statsd laid the template out as we did: %s",
	    stats_client_strerror(cli));
	for (i = 1; i <= 100; i++) {
		check(stats_voi_update_abs_s64(sb, 1, i * 10) == 0, "abs");
		stats_voi_update_abs_u64(sb, 0, 2);
	}
	/* Relative updates: statsd keeps the previous value. */
	stats_voi_update_rel_s64(sb, 1, 5);
	check(stats_voi_update_abs_u64(sb, 1, 1) == EINVAL,
	    "a VOI type mismatch is refused");
	check(stats_voi_update_abs_u64(sb, 7, 1) == EINVAL,
	    "an absent VOI is refused");
	r = stats_client_flush(cli, 10000);
	check(r == 0, "flush: %d", r);
	check(fetch_u64(sb, 0, VS_STYPE_SUM) == 200, "n.sum == 200");
	check(fetch_s64(sb, 1, VS_STYPE_SUM) == 50500 + 1005,
	    "v.sum == 51505 (got %" PRId64 ")", fetch_s64(sb, 1, VS_STYPE_SUM));
	check(fetch_s64(sb, 1, VS_STYPE_MIN) == 10, "v.min == 10");
	check(fetch_s64(sb, 1, VS_STYPE_MAX) == 1005, "v.max == 1005");
	check(stats_voistat_fetch_quantile(sb, 1, VS_STYPE_TDGST, 0.5, &q) == 0
	    && q > 400 && q < 600, "median of the digest %.1f", q);
	(void)rel;
	b = sbuf_new_auto();
	check(stats_blob_tostr(sb, b, SB_STRFMT_JSON, SB_TOSTR_META) == 0,
	    "tostr with META finds the template by statsd's hash");
	sbuf_finish(b);
	check(strstr(sbuf_data(b), "\"it_tpl\"") != NULL, "tostr names it");
	sbuf_delete(b);
	check(stats_tpl_id2spec((uint32_t)make_tpl("it_tpl"), spec,
	    sizeof(spec)) == 0, "spec");
	printf("spec=%s\n", spec);
	/* Publishing again joins the same kstat. */
	check(stats_blob_publish(cli, make_tpl("it_tpl"), "it", 0, "pub",
	    "test", 0) != NULL, "a second publish joins");
	check(stats_blob_unpublish(cli, sb) == 0, "unpublish: %s",
	    stats_client_strerror(cli));
	check(stats_voi_update_abs_u64(sb, 0, 1) == EINVAL,
	    "an unpublished blob refuses updates");
}

/* ----------------------------------------------- templates, once each */

/*
 * Kstats one call at a time, as applications make them: 20 published
 * blobs of one template, 5 NAMED kstats of one shape, 3 Linux interfaces
 * of one statistic. A connection sends each template once (the test
 * counts statsd's TemplateAdd calls); every kstat is made all the same.
 */
static void
mode_tplonce(int argc, char **argv)
{
	struct statistic_interface *si[3] = { NULL };
	kstat_t *ks[5] = { NULL };
	char nm[32];
	int i;

	(void)argc;
	(void)argv;
	for (i = 0; i < 20; i++) {
		snprintf(nm, sizeof(nm), "once%d", i);
		check(publish(nm, 0) != NULL, "publish %s", nm);
	}
	for (i = 0; i < 5; i++) {
		kstat_t *ksp;
		kstat_named_t *v;

		snprintf(nm, sizeof(nm), "konce%d", i);
		ksp = ks[i] = kstat_create("it", 0, nm, "test",
		    KSTAT_TYPE_NAMED, 2, 0);
		check(ksp != NULL, "kstat_create %s", nm);
		if (ksp == NULL)
			continue;
		v = KSTAT_NAMED_PTR(ksp);
		kstat_named_init(&v[0], "reqs", KSTAT_DATA_UINT64);
		kstat_named_init(&v[1], "errs", KSTAT_DATA_UINT64);
		kstat_install(ksp);
		check(!(ksp->ks_flags & KSTAT_FLAG_INVALID), "install %s: %s",
		    nm, stats_client_strerror(cli));
	}
	for (i = 0; i < 3; i++) {
		struct statistic *st = NULL;

		snprintf(nm, sizeof(nm), "it-once%d", i);
		check(statistic_create_interface(&si[i], nm) == 0 &&
		    statistic_create(&st, si[i], "calls", "calls") == 0 &&
		    statistic_start(st) >= 0, "statistic %s: %s", nm,
		    stats_client_strerror(cli));
	}
	for (i = 0; i < 3; i++)
		if (si[i] != NULL)
			(void)statistic_interface_remove(&si[i]);
	for (i = 0; i < 5; i++)
		if (ks[i] != NULL)
			kstat_delete(ks[i]);
}

/* A template of one SUM VOI called name. */
static int
one_tpl(const char *name)
{
	struct voistatspec n[] = { STATS_VSS_SUM() };
	int id = stats_tpl_fetch_allocid(name, 0);

	if (id >= 0)
		return id;
	id = stats_tpl_alloc(name, 0);
	check(id >= 0 && stats_tpl_add_voistats((uint32_t)id, 0, "n",
	    VSD_DTYPE_INT_U64, NVSS(n), n, 0) == 0, "template %s", name);
	return id;
}

/*
 * statsd lets a template go that no kstat uses when its owner needs room
 * (max_templates_per_uid = 2 here): the connection registered it, statsd
 * forgot it; a new kstat of it is still made (the client registers it
 * again).
 */
static void
mode_tplevict(int argc, char **argv)
{
	struct statsblob *a, *b, *c;

	(void)argc;
	(void)argv;
	a = stats_blob_publish(cli, one_tpl("ev1"), "it", 0, "ev1", "test", 0);
	check(a != NULL, "publish ev1: %s", stats_client_strerror(cli));
	check(a != NULL && stats_blob_unpublish(cli, a) == 0, "unpublish ev1");
	b = stats_blob_publish(cli, one_tpl("ev2"), "it", 0, "ev2", "test", 0);
	check(b != NULL, "publish ev2: %s", stats_client_strerror(cli));
	/* ev3 takes ev1's room: statsd frees ev1, no kstat using it. */
	c = stats_blob_publish(cli, one_tpl("ev3"), "it", 0, "ev3", "test", 0);
	check(c != NULL, "publish ev3: %s", stats_client_strerror(cli));
	check(b != NULL && stats_blob_unpublish(cli, b) == 0, "unpublish ev2");
	/* ev1 again, which this connection registered and statsd let go. */
	a = stats_blob_publish(cli, one_tpl("ev1"), "it", 0, "ev1b", "test",
	    0);
	check(a != NULL, "publish ev1 after statsd let it go: %s",
	    stats_client_strerror(cli));
	/* And many at once, of ev2, which statsd let go for ev1. */
	{
		struct stats_publish_name names[2] = {
			{ "it", 0, "ev2a" }, { "it", 0, "ev2b" } };
		struct statsblob *sb[2];

		check(stats_blob_unpublish(cli, c) == 0, "unpublish ev3");
		check(stats_blob_publish_many(cli, one_tpl("ev2"), names, 2,
		    "test", 0, sb) == 0, "publish_many ev2 after statsd let "
		    "it go: %s", stats_client_strerror(cli));
	}
}

/* ------------------------------------------------------ two processes */

/* n updates of 1 to VOI 0 of sb, flushed; print the client's counters. */
static void
feed(struct statsblob *sb, long n)
{
	long i;

	for (i = 0; i < n; i++)
		stats_voi_update_abs_u64(sb, 0, 1);
	check(stats_client_flush(cli, 30000) == 0, "flush");
	printf("pushed=%" PRIu64 " dropped=%" PRIu64 "\n",
	    stats_client_pushed(cli), stats_client_dropped(cli));
}

/* Feed kstat it:0:shared with N updates of 1; print what we did. */
static void
mode_feed(int argc, char **argv)
{
	long n = argc > 0 ? atol(argv[0]) : 100000;
	struct statsblob *sb = publish("shared", 0);

	if (sb != NULL)
		feed(sb, n);
}

/* Publish (join) kstat it:0:shared N times while another process floods
 * it: each join reads the kstat's place in the segment while statsd keeps
 * writing it. */
static void
mode_joins(int argc, char **argv)
{
	long n = argc > 0 ? atol(argv[0]) : 50, i;

	for (i = 0; i < n; i++)
		if (publish("shared", 0) == NULL)
			break;
	printf("joined=%ld\n", i);
}

/* kstat_read() kstat it:0:shared N times while other processes flood
 * it: each read copies the blob statsd keeps writing (regression: a read
 * gave up with EAGAIN where the library's own reads wait). */
static void
mode_kreads(int argc, char **argv)
{
	long n = argc > 0 ? atol(argv[0]) : 200, i;
	struct timespec ts = { 0, 10 * 1000000 };
	kstat_ctl_t *kc = kstat_open();
	kstat_named_t *kn = NULL;
	kstat_t *ksp = NULL;
	time_t t0 = time(NULL);

	check(kc != NULL, "kstat_open: %s", strerror(errno));
	if (kc == NULL)
		return;
	/* Once the feeders have made it, and their flood has begun. */
	while (time(NULL) - t0 < 60) {
		if (ksp == NULL)
			ksp = kstat_lookup(kc, "it", 0, "shared");
		if (ksp != NULL && kstat_read(kc, ksp, NULL) != -1 &&
		    (kn = kstat_data_lookup(ksp, "n.sum")) != NULL &&
		    kn->value.ui64 > 0)
			break;
		nanosleep(&ts, NULL);
		if (ksp == NULL)
			(void)kstat_chain_update(kc);
	}
	check(kn != NULL && kn->value.ui64 > 0, "it:0:shared fed");
	for (i = 0; ksp != NULL && i < n; i++)
		if (kstat_read(kc, ksp, NULL) == -1) {
			check(false, "kstat_read %ld: %s", i, strerror(errno));
			break;
		}
	printf("kreads=%ld\n", i);
	kstat_close(kc);
}

/* ------------------------------------------------------------- lossless */

/* One thread of a flood: N updates of VOI v (SUM, MIN, MAX) and N of
 * VOI n (a count), flat out; values 1..1000, with one 5000 and one -7
 * from the thread that has them, so MIN and MAX mean something. */
struct flood_arg {
	struct statsblob	*sb;
	long			 n;
	int			 t;
	pthread_barrier_t	*go;
};

static void *
flood_main(void *p)
{
	struct flood_arg *a = p;
	long i;

	stats_voi_update_abs_u64(a->sb, 0, 1);	/* its ring, first */
	pthread_barrier_wait(a->go);
	for (i = 1; i < a->n; i++) {
		int64_t v = 1 + (i * 7 + a->t) % 1000;

		if (a->t == 3 && i == a->n / 2)
			v = 5000;
		if (a->t == 5 && i == a->n / 3)
			v = -7;
		stats_voi_update_abs_s64(a->sb, 1, v);
		stats_voi_update_abs_u64(a->sb, 0, 1);
	}
	return NULL;
}

/*
 * T threads x N updates of it:0:NAME flat out, then (with "burst") one
 * thread's B updates as fast as it can: every update kept (statsd merges
 * what a full ring spilled), so that after a flush pushed = applied and
 * nothing is dropped. Prints what statsd must show.
 */
static void
mode_lossless(int argc, char **argv)
{
	const char *name = argc > 0 ? argv[0] : "lossless";
	long nthr = argc > 1 ? atol(argv[1]) : 8;
	long n = argc > 2 ? atol(argv[2]) : 1000000;
	struct flood_arg a[64];
	pthread_barrier_t go;
	pthread_t t[64];
	struct statsblob *sb = publish(name, 0);
	uint64_t p0, d0, pushed, dropped;
	long i;
	int r;

	if (sb == NULL || nthr > 64)
		return;
	p0 = stats_client_pushed(cli);
	d0 = stats_client_dropped(cli);
	pthread_barrier_init(&go, NULL, (unsigned)nthr);
	for (i = 0; i < nthr; i++) {
		a[i] = (struct flood_arg){ sb, n, (int)i, &go };
		pthread_create(&t[i], NULL, flood_main, &a[i]);
	}
	for (i = 0; i < nthr; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&go);
	r = stats_client_flush(cli, 120000);
	check(r == 0, "flush: %d", r);
	pushed = stats_client_pushed(cli) - p0;
	dropped = stats_client_dropped(cli) - d0;
	check(dropped == 0, "nothing dropped (%" PRIu64 ")", dropped);
	printf("pushed=%" PRIu64 " dropped=%" PRIu64 "\n", pushed, dropped);
}

/* One thread, B updates of 1 to it:0:NAME, as fast as it can, from a
 * thread whose ring statsd has been idle on. */
static void
mode_burst(int argc, char **argv)
{
	const char *name = argc > 0 ? argv[0] : "burst";
	long b = argc > 1 ? atol(argv[1]) : 20000, i;
	struct statsblob *sb = publish(name, 0);
	uint64_t p0, d0;
	struct timespec ts = { 0, 100 * 1000000 };

	if (sb == NULL)
		return;
	stats_voi_update_abs_u64(sb, 0, 1);	/* the thread's ring */
	check(stats_client_flush(cli, 10000) == 0, "first flush");
	nanosleep(&ts, NULL);			/* statsd goes to sleep */
	p0 = stats_client_pushed(cli);
	d0 = stats_client_dropped(cli);
	for (i = 0; i < b; i++)
		stats_voi_update_abs_u64(sb, 0, 1);
	check(stats_client_flush(cli, 60000) == 0, "flush");
	printf("pushed=%" PRIu64 " dropped=%" PRIu64 "\n",
	    stats_client_pushed(cli) - p0, stats_client_dropped(cli) - d0);
}

/* ------------------------------------------------------------- owners */

/* Publish it:0:NAME and hold it until stdin ends (another user's
 * squatter, or a kstat's rightful owner). */
static void
mode_squat(int argc, char **argv)
{
	char line[64];

	if (publish(argc > 0 ? argv[0] : "squat", 0) == NULL)
		return;
	printf("ok\n");
	while (fgets(line, sizeof(line), stdin) != NULL)
		;
}

/* Publish it:0:NAME, which exists and cannot be joined (another user's:
 * EPERM, the default; another template: EEXIST): refused, with a clear
 * error, never joined. */
static void
mode_nojoin(int argc, char **argv)
{
	int want = argc > 1 ? atoi(argv[1]) : EPERM;
	struct statsblob *sb;

	sb = stats_blob_publish(cli, make_tpl("it_tpl"), "it", 0,
	    argc > 0 ? argv[0] : "squat", "test", 0);
	check(sb == NULL && errno == want, "publish of a kstat it may not "
	    "join refused with %s (%s)", strerror(want), sb == NULL ?
	    strerror(errno) : "joined");
	printf("error=%d text=\"%s\"\n", sb == NULL ? errno : 0,
	    stats_client_strerror(cli));
}

/*
 * Publish it:0:NAME and push N updates; on a line from stdin (the kstat
 * is deleted meanwhile) push N more: statsd refuses them, and they count
 * as dropped, so pushed = applied + dropped from this client's view.
 */
static void
mode_refused(int argc, char **argv)
{
	struct statsblob *sb = publish(argc > 0 ? argv[0] : "refused", 0);
	long n = argc > 1 ? atol(argv[1]) : 1000;
	char line[64];

	if (sb == NULL)
		return;
	feed(sb, n);
	if (fgets(line, sizeof(line), stdin) != NULL)
		feed(sb, n);
}

/* ------------------------------------------------------------------ fork */

static void
mode_fork(int argc, char **argv)
{
	struct statsblob *sb = publish("forked", 0);
	uint64_t before, sum;
	int status = 0;
	pid_t pid;
	long i;

	(void)argc;
	(void)argv;
	if (sb == NULL)
		return;
	for (i = 0; i < 1000; i++)
		stats_voi_update_abs_u64(sb, 0, 1);
	check(stats_client_flush(cli, 10000) == 0, "parent flush");
	before = stats_client_pushed(cli);
	pid = fork();
	if (pid == 0) {
		/* The child: its own rings, its own counters. Until it is
		 * connected its updates would be dropped: a flush waits. */
		int ok = stats_client_pushed(cli) == 0;

		ok = ok && stats_client_flush(cli, 20000) == 0;
		for (i = 0; i < 5000; i++)
			stats_voi_update_abs_u64(sb, 0, 1);
		ok = ok && stats_client_flush(cli, 20000) == 0;
		ok = ok && stats_client_pushed(cli) == 5000 &&
		    stats_client_dropped(cli) == 0;
		printf("child pushed=%" PRIu64 " dropped=%" PRIu64 "\n",
		    stats_client_pushed(cli), stats_client_dropped(cli));
		fflush(stdout);
		_exit(ok ? 0 : 1);
	}
	for (i = 0; i < 2000; i++)
		stats_voi_update_abs_u64(sb, 0, 1);
	waitpid(pid, &status, 0);
	check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "the child pushed and flushed its own updates");
	check(stats_client_flush(cli, 10000) == 0, "parent flush after");
	check(stats_client_pushed(cli) == before + 2000, "parent counters "
	    "untouched by the child");
	sum = wait_u64(sb, 0, 8000 - stats_client_dropped(cli));
	printf("fork sum=%" PRIu64 " parent_dropped=%" PRIu64 "\n", sum,
	    stats_client_dropped(cli));
}

/* --------------------------------------------------------------- restart */

static char *
wait_line(char *buf, size_t len)
{
	return fgets(buf, (int)len, stdin);
}

/*
 * Survive a restart: publish a PERSISTENT kstat, push, say "ready", wait
 * for the test to restart statsd ("go"), push while it may be down, wait
 * for the reconnection, push again, flush, print the totals.
 */
static void
mode_restart(int argc, char **argv)
{
	struct statsblob *sb = publish("survivor", STATS_PUBLISH_PERSISTENT);
	char line[64];
	double end;
	long i;

	(void)argc;
	(void)argv;
	if (sb == NULL)
		return;
	for (i = 0; i < 10000; i++)
		stats_voi_update_abs_u64(sb, 0, 1);
	check(stats_client_flush(cli, 10000) == 0, "flush before");
	printf("ready\n");
	fflush(stdout);
	if (wait_line(line, sizeof(line)) == NULL)
		return;
	for (i = 0; i < 10000; i++)
		stats_voi_update_abs_u64(sb, 0, 1);
	end = now_s() + 30;
	while (stats_client_reconnects(cli) == 0 && now_s() < end)
		usleep(10000);
	check(stats_client_reconnects(cli) >= 1, "reconnected: %s",
	    stats_client_strerror(cli));
	for (i = 0; i < 10000; i++)
		stats_voi_update_abs_u64(sb, 0, 1);
	check(stats_client_flush(cli, 20000) == 0, "flush after");
	printf("pushed=%" PRIu64 " dropped=%" PRIu64 " reconnects=%" PRIu64
	    "\n", stats_client_pushed(cli), stats_client_dropped(cli),
	    stats_client_reconnects(cli));
}

/* Push i + 1 (times mul) to blob i's counter, flush, and count the blobs
 * that show it in place. */
static long
many_round(struct statsblob **sb, long n, uint64_t mul)
{
	long i, wrong = 0;

	/* In bursts a ring holds, so that none is dropped. */
	for (i = 0; i < n; i++) {
		stats_voi_update_abs_u64(sb[i], 0, (uint64_t)(i + 1) * mul);
		if (i % 4096 == 4095)
			check(stats_client_flush(cli, 60000) == 0, "flush");
	}
	check(stats_client_flush(cli, 60000) == 0, "flush");
	check(stats_client_dropped(cli) == 0, "none dropped");
	/* The store copy follows each drain pass: wait for the last. */
	(void)wait_u64(sb[n - 1], 0, (uint64_t)n * mul);
	for (i = 0; i < n; i++)
		if (fetch_u64(sb[i], 0, VS_STYPE_SUM) != (uint64_t)(i + 1) * mul)
			wrong++;
	return wrong;
}

/*
 * Many blobs in one process: publish N of them in batches (more than the
 * 16,384 windows of old, and more than a mapping each would allow), push
 * to each, and read each in place. With "restart": say "ready", wait for
 * the test to restart statsd ("go"), and check that after the
 * reconnection the same pointers show the new statsd's data.
 */
static void
mode_many(int argc, char **argv)
{
	long n = argc > 0 ? atol(argv[0]) : 0, i;
	bool restart = argc > 1 && strcmp(argv[1], "restart") == 0;
	struct stats_publish_name *names;
	struct statsblob **sb;
	char (*nm)[24];
	char line[64];
	double end;

	names = calloc((size_t)n + 1, sizeof(*names));
	sb = calloc((size_t)n + 1, sizeof(*sb));
	nm = calloc((size_t)n + 1, sizeof(*nm));
	check(n > 0 && names != NULL && sb != NULL && nm != NULL, "many: %ld",
	    n);
	if (n <= 0 || names == NULL || sb == NULL || nm == NULL)
		goto out;
	for (i = 0; i < n; i++) {
		snprintf(nm[i], sizeof(nm[i]), "b%ld", i);
		names[i].module = "many";
		names[i].instance = (int)(i % 4);
		names[i].name = nm[i];
	}
	check(stats_blob_publish_many(cli, make_tpl("it_tpl"), names,
	    (size_t)n, "test", 0, sb) == 0, "publish %ld: %s", n,
	    stats_client_strerror(cli));
	if (sb[0] == NULL)
		goto out;
	check(many_round(sb, n, 1) == 0, "each of %ld blobs shows its own "
	    "counter in place", n);
	if (restart) {
		printf("ready\n");
		fflush(stdout);
		if (wait_line(line, sizeof(line)) == NULL)
			goto out;
		end = now_s() + 60;
		while (stats_client_reconnects(cli) == 0 && now_s() < end)
			usleep(10000);
		check(stats_client_reconnects(cli) >= 1, "reconnected: %s",
		    stats_client_strerror(cli));
		/* The new statsd made them again from zero: the pointers
		 * show its data. */
		check(many_round(sb, n, 2) == 0, "after the restart, each "
		    "blob shows the new statsd's counter in place: %s",
		    stats_client_strerror(cli));
	}
	check(stats_blob_unpublish(cli, sb[0]) == 0, "unpublish one");
	check(stats_voi_update_abs_u64(sb[0], 0, 1) == EINVAL,
	    "an unpublished blob refuses updates");
	printf("many=%ld\n", n);
out:
	free(names);
	free(sb);
	free(nm);
}

/*
 * Published pointers across restarts: blobs of three sizes (chunks of
 * different classes, several to a page) published one by one (every
 * fourth PERSISTENT; kstats of the kstat API among them) and in a batch,
 * a few unpublished again (gaps in the layout), a counter pushed to each
 * and read through the pointer. Then, for each of ROUNDS
 * restarts: say "ready", wait for "go" (the test restarts statsd), wait
 * for the reconnection and check that every pointer the process holds
 * shows the new statsd's data: wrong=N counts those that do not.
 *
 *   client_it pointers SOCKET N ROUNDS
 */
static int
pointer_tpl(int size)
{
	struct voistatspec n[] = { STATS_VSS_SUM() };
	struct voistatspec v[] = {
		STATS_VSS_SUM(), STATS_VSS_MIN(), STATS_VSS_MAX(),
	};
	const char *name = size == 0 ? "pt_small" : "pt_mid";
	int id;

	if (size == 2)
		return make_tpl("it_tpl");
	id = stats_tpl_fetch_allocid(name, 0);
	if (id >= 0)
		return id;
	id = stats_tpl_alloc(name, 0);
	check(id >= 0, "stats_tpl_alloc %s: %d", name, id);
	check(stats_tpl_add_voistats((uint32_t)id, 0, "n", VSD_DTYPE_INT_U64,
	    NVSS(n), n, 0) == 0, "add VOI n");
	if (size == 1)
		check(stats_tpl_add_voistats((uint32_t)id, 1, "v",
		    VSD_DTYPE_INT_S64, NVSS(v), v, 0) == 0, "add VOI v");
	return id;
}

/* Push (i + 1) * mul to each live blob's counter, flush, and count the
 * pointers that do not show the sum: (i + 1) * mul, or for a PERSISTENT
 * one, which keeps its data across restarts, (i + 1) * (1 + ... + mul)
 * (waiting for the drain passes). */
static long
pointers_round(struct statsblob **sb, const bool *persist, long n,
    uint64_t mul)
{
	double end = now_s() + 20;
	long i, wrong;

	for (i = 0; i < n; i++)
		if (sb[i] != NULL)
			stats_voi_update_abs_u64(sb[i], 0, (uint64_t)(i + 1) *
			    mul);
	check(stats_client_flush(cli, 60000) == 0, "flush");
	check(stats_client_dropped(cli) == 0, "none dropped");
	do {
		for (i = 0, wrong = 0; i < n; i++) {
			uint64_t v = 0;

			if (sb[i] == NULL)
				continue;
			if (stats_voistat_fetch_u64(sb[i], 0, VS_STYPE_SUM,
			    &v) != 0 || v != (uint64_t)(i + 1) * (persist[i] ?
			    mul * (mul + 1) / 2 : mul))
				wrong++;
		}
		if (wrong > 0)
			usleep(20000);
	} while (wrong > 0 && now_s() < end);
	return wrong;
}

static void
mode_pointers(int argc, char **argv)
{
	long n = argc > 0 ? atol(argv[0]) : 0, rounds = argc > 1 ?
	    atol(argv[1]) : 0, i, k, half, wrong;
	struct stats_publish_name *names;
	struct statsblob **sb;
	char (*nm)[24], line[64];
	kstat_t **ks;
	size_t nks = 0, q;
	bool *persist;
	double end;

	names = calloc((size_t)n + 1, sizeof(*names));
	sb = calloc((size_t)n + 1, sizeof(*sb));
	nm = calloc((size_t)n + 1, sizeof(*nm));
	persist = calloc((size_t)n + 1, sizeof(*persist));
	ks = calloc((size_t)n + 1, sizeof(*ks));
	check(n >= 8 && names != NULL && sb != NULL && nm != NULL &&
	    persist != NULL && ks != NULL, "pointers: %ld", n);
	if (n < 8 || names == NULL || sb == NULL || nm == NULL ||
	    persist == NULL || ks == NULL)
		goto out;
	for (i = 0; i < n; i++)
		snprintf(nm[i], sizeof(nm[i]), "p%ld", i);
	/* The first half one at a time, sizes in turn: small and middling
	 * chunks share pages with the large ones' neighbours. */
	half = n / 2;
	for (i = 0; i < half; i++) {
		/* Now and then a kstat of the kstat API between them: made
		 * again too, it must not take a published blob's place. */
		if (i % 10 == 3) {
			char knm[24];
			kstat_t *ksp;

			snprintf(knm, sizeof(knm), "k%ld", i);
			ksp = kstat_create("ptrk", 0, knm, "test",
			    KSTAT_TYPE_NAMED, 1 + (uint32_t)(i % 7), 0);
			check(ksp != NULL, "kstat_create %s", knm);
			if (ksp != NULL) {
				uint32_t j;

				for (j = 0; j < ksp->ks_ndata; j++) {
					char vn[16];

					snprintf(vn, sizeof(vn), "v%u", j);
					kstat_named_init(
					    &KSTAT_NAMED_PTR(ksp)[j], vn,
					    KSTAT_DATA_UINT64);
				}
				kstat_install(ksp);
				ks[nks++] = ksp;
			}
		}
		persist[i] = i % 4 == 1;
		sb[i] = stats_blob_publish(cli, pointer_tpl((int)(i % 3)),
		    "ptr", 0, nm[i], "test", persist[i] ?
		    STATS_PUBLISH_PERSISTENT : 0);
		check(sb[i] != NULL, "publish %s: %s", nm[i],
		    stats_client_strerror(cli));
	}
	/* The rest in one batch of small ones. */
	for (i = half; i < n; i++) {
		names[i - half].module = "ptr";
		names[i - half].instance = 0;
		names[i - half].name = nm[i];
	}
	check(stats_blob_publish_many(cli, pointer_tpl(0), names,
	    (size_t)(n - half), "test", 0, sb + half) == 0,
	    "publish_many %ld: %s", n - half, stats_client_strerror(cli));
	/* Gaps: a restarted statsd has nothing where these were. */
	for (i = 5; i < n; i += 7) {
		check(sb[i] != NULL && stats_blob_unpublish(cli, sb[i]) == 0,
		    "unpublish %s", nm[i]);
		sb[i] = NULL;
	}
	wrong = pointers_round(sb, persist, n, 1);
	check(wrong == 0, "before a restart, %ld pointers show stale data",
	    wrong);
	for (k = 1; k <= rounds; k++) {
		printf("ready\n");
		fflush(stdout);
		if (wait_line(line, sizeof(line)) == NULL)
			goto out;
		end = now_s() + 60;
		while ((long)stats_client_reconnects(cli) < k && now_s() < end)
			usleep(10000);
		check((long)stats_client_reconnects(cli) >= k,
		    "reconnected (%ld): %s", k, stats_client_strerror(cli));
		/* The new statsd made them again from zero: each pointer
		 * shows what is pushed now. */
		wrong = pointers_round(sb, persist, n, (uint64_t)k + 1);
		printf("wrong=%ld\n", wrong);
		check(wrong == 0, "after restart %ld, %ld pointers show data "
		    "of before it (%s)", k, wrong, stats_client_strerror(cli));
	}
	printf("pointers=%ld\n", n);
out:
	for (q = 0; q < nks; q++)
		kstat_delete(ks[q]);
	free(ks);
	free(names);
	free(sb);
	free(nm);
	free(persist);
}

/*
 * Kstats of the kstat API that come back after a restart: make N NAMED
 * kstats of several sizes, say "ready", wait for "go" (the test restarts
 * statsd), wait for the reconnection, say "back", and hold them until
 * stdin ends.
 *
 *   client_it kwait SOCKET N
 */
static void
mode_kwait(int argc, char **argv)
{
	long n = argc > 0 ? atol(argv[0]) : 0, i;
	char nm[24], line[64];
	kstat_t **ks = calloc((size_t)(n > 0 ? n : 1), sizeof(*ks));
	double end;

	check(ks != NULL, "kwait: %ld", n);
	for (i = 0; ks != NULL && i < n; i++) {
		kstat_t *ksp;
		uint32_t j;

		snprintf(nm, sizeof(nm), "w%ld", i);
		ksp = kstat_create("kwait", 0, nm, "test", KSTAT_TYPE_NAMED,
		    1 + (uint32_t)(i % 9), 0);
		check(ksp != NULL, "kstat_create %s", nm);
		if (ksp == NULL)
			continue;
		for (j = 0; j < ksp->ks_ndata; j++) {
			char vn[16];

			snprintf(vn, sizeof(vn), "v%u", j);
			kstat_named_init(&KSTAT_NAMED_PTR(ksp)[j], vn,
			    KSTAT_DATA_UINT64);
		}
		kstat_install(ksp);
		ks[i] = ksp;
	}
	printf("ready\n");
	fflush(stdout);
	if (ks == NULL || wait_line(line, sizeof(line)) == NULL)
		goto out;
	end = now_s() + 60;
	while (stats_client_reconnects(cli) == 0 && now_s() < end)
		usleep(10000);
	check(stats_client_reconnects(cli) >= 1, "reconnected: %s",
	    stats_client_strerror(cli));
	printf("back\n");
	fflush(stdout);
	while (wait_line(line, sizeof(line)) != NULL)
		;
out:
	for (i = 0; ks != NULL && i < n; i++)
		if (ks[i] != NULL)
			kstat_delete(ks[i]);
	free(ks);
}

/* ----------------------------------------------------------------- kstat */

static kstat_named_t *
named(kstat_t *ksp, const char *name)
{
	kstat_named_t *kn = kstat_data_lookup(ksp, name);

	check(kn != NULL, "named value %s:%s: %s", ksp->ks_name, name,
	    strerror(errno));
	return kn;
}

/* What the "kstat" mode's provider did, as a consumer sees it. */
static void
kstat_verify(kstat_ctl_t *kc, const char *sfx)
{
	char nm[32];
	kstat_t *ksp;
	kstat_named_t *kn;
	kstat_io_t kio;
	kstat_intr_t *ki;
	kstat_timer_t *kt;
	kid_t kid;

	snprintf(nm, sizeof(nm), "named%s", sfx);
	ksp = kstat_lookup(kc, "it", 0, nm);
	check(ksp != NULL && ksp->ks_type == KSTAT_TYPE_NAMED,
	    "lookup it:0:%s", nm);
	if (ksp != NULL) {
		kid = kstat_read(kc, ksp, NULL);
		check(kid > 0, "kstat_read: %s", strerror(errno));
		check(ksp->ks_ndata >= 3, "3 named values (%u)", ksp->ks_ndata);
		if ((kn = named(ksp, "reqs")) != NULL)
			check(kn->data_type == KSTAT_DATA_UINT64 &&
			    kn->value.ui64 == 1010, "reqs == 1010 (%" PRIu64
			    ")", kn->value.ui64);
		if ((kn = named(ksp, "level")) != NULL)
			check(kn->data_type == KSTAT_DATA_INT32 &&
			    kn->value.i32 == -7, "level == -7 (%d)",
			    kn->value.i32);
		if ((kn = named(ksp, "label")) != NULL)
			check(kn->data_type == KSTAT_DATA_STRING &&
			    strcmp(KSTAT_NAMED_STR_PTR(kn), "hello") == 0,
			    "label == hello");
		check(ksp->ks_flags & KSTAT_FLAG_WRITABLE, "WRITABLE shown");
		check(kstat_data_lookup(ksp, "nope") == NULL &&
		    errno == ENOENT, "data lookup ENOENT");
	}
	snprintf(nm, sizeof(nm), "intr%s", sfx);
	ksp = kstat_lookup(kc, "it", -1, nm);
	check(ksp != NULL && ksp->ks_type == KSTAT_TYPE_INTR, "lookup intr");
	if (ksp != NULL && kstat_read(kc, ksp, NULL) > 0) {
		ki = KSTAT_INTR_PTR(ksp);
		check(ki->intrs[KSTAT_INTR_HARD] == 5 &&
		    ki->intrs[KSTAT_INTR_SOFT] == 2 &&
		    ki->intrs[KSTAT_INTR_SPURIOUS] == 0, "intrs 5 2 . 0");
		check(kstat_write(kc, ksp, NULL) == -1 && errno == EACCES,
		    "kstat_write on INTR: EACCES");
	}
	snprintf(nm, sizeof(nm), "disk%s", sfx);
	ksp = kstat_lookup(kc, NULL, -1, nm);
	check(ksp != NULL && ksp->ks_type == KSTAT_TYPE_IO, "lookup disk");
	if (ksp != NULL && kstat_read(kc, ksp, &kio) > 0) {
		check(kio.reads == 2 && kio.nread == 4096 + 100,
		    "reads 2, nread 4196 (%u, %" PRIu64 ")", kio.reads,
		    kio.nread);
		check(kio.writes == 1 && kio.nwritten == 512, "writes 1 512");
		check(kio.wcnt == 0 && kio.rcnt == 1, "wcnt 0, rcnt 1 (%u %u)",
		    kio.wcnt, kio.rcnt);
		check(kio.wtime > 0 && kio.rtime > 0, "wtime, rtime > 0");
	}
	snprintf(nm, sizeof(nm), "timers%s", sfx);
	ksp = kstat_lookup(kc, "it", 0, nm);
	check(ksp != NULL && ksp->ks_type == KSTAT_TYPE_TIMER, "lookup timer");
	if (ksp != NULL && kstat_read(kc, ksp, NULL) > 0) {
		check(ksp->ks_ndata == 2, "2 timers");
		kt = kstat_data_lookup(ksp, "t1");
		check(kt != NULL && kt->num_events == 3 && kt->min_time > 0 &&
		    kt->max_time >= kt->min_time && kt->elapsed_time >=
		    3 * kt->min_time, "t1: 3 events");
		kt = kstat_data_lookup(ksp, "t0");
		check(kt != NULL && kt->num_events == 1, "t0: 1 event");
	}
	snprintf(nm, sizeof(nm), "raw%s", sfx);
	ksp = kstat_lookup(kc, "it", 0, nm);
	check(ksp != NULL && ksp->ks_type == KSTAT_TYPE_RAW, "lookup raw");
	if (ksp != NULL && kstat_read(kc, ksp, NULL) > 0)
		/* illumos: a RAW kstat's ks_data_size is what its creator
		 * gave kstat_create(), here 12 bytes, not whole words. */
		check(ksp->ks_data_size == 12 && memcmp(ksp->ks_data,
		    "hello world!", 12) == 0,
		    "raw bytes at the record's size: %zu",
		    (size_t)ksp->ks_data_size);
	ksp = kstat_lookup(kc, "it", 0, "pub");
	if (ksp != NULL && kstat_read(kc, ksp, NULL) > 0)
		check(kstat_data_lookup(ksp, "v.max") != NULL,
		    "a blob shows its scalars flat");
}

/* The kstats stay for the test to read after this process: kept where
 * the leak checker sees them. */
static kstat_t *kn, *ki, *kio, *kt, *kr;
static kstat2_t *h, *h2;
static struct statistic_interface *si;
static struct statistic *reqs, *lat, *sizes, *hist, *lst, *raw;

/* Providers of every kstat type, then a consumer reads them back. */
static void
mode_kstat(int argc, char **argv)
{
	const char *sfx = argc > 0 ? argv[0] : "";
	char nm[32];
	kstat_t *kx;
	kstat_named_t *v;
	kstat_timer_t *t;
	kstat_ctl_t *kc;
	kid_t k0, k1;
	int i;

	snprintf(nm, sizeof(nm), "named%s", sfx);
	kn = kstat_create("it", 0, nm, "test", KSTAT_TYPE_NAMED, 3,
	    KSTAT_FLAG_WRITABLE);
	check(kn != NULL && (kn->ks_flags & KSTAT_FLAG_INVALID),
	    "kstat_create NAMED");
	if (kn == NULL)
		return;
	v = KSTAT_NAMED_PTR(kn);
	kstat_named_init(&v[0], "reqs", KSTAT_DATA_UINT64);
	kstat_named_init(&v[1], "level", KSTAT_DATA_INT32);
	kstat_named_init(&v[2], "label", KSTAT_DATA_STRING);
	kstat_named_setstr(&v[2], "hello");
	kstat_install(kn);
	check(!(kn->ks_flags & KSTAT_FLAG_INVALID), "installed: %s",
	    stats_client_strerror(cli));
	kstat_named_set_u64(kn, &v[0], 10);
	for (i = 0; i < 1000; i++)
		kstat_named_add(kn, &v[0], 1);
	kstat_named_set(kn, &v[1], -7);

	snprintf(nm, sizeof(nm), "intr%s", sfx);
	ki = kstat_create("it", 0, nm, "test", KSTAT_TYPE_INTR, 1, 0);
	kstat_install(ki);
	kstat_intr_add(ki, KSTAT_INTR_HARD, 3);
	kstat_intr_add(ki, KSTAT_INTR_HARD, 2);
	kstat_intr_add(ki, KSTAT_INTR_SOFT, 2);

	snprintf(nm, sizeof(nm), "disk%s", sfx);
	kio = kstat_create("it", 0, nm, "disk", KSTAT_TYPE_IO, 1, 0);
	kstat_install(kio);
	kstat_waitq_enter(KSTAT_IO_PTR(kio));
	usleep(1000);
	kstat_waitq_to_runq(KSTAT_IO_PTR(kio));
	usleep(1000);
	kstat_runq_exit(KSTAT_IO_PTR(kio));
	kstat_io_read(KSTAT_IO_PTR(kio), 4096);
	kstat_waitq_enter(KSTAT_IO_PTR(kio));
	kstat_waitq_to_runq(KSTAT_IO_PTR(kio));
	kstat_runq_back_to_waitq(KSTAT_IO_PTR(kio));
	kstat_waitq_exit(KSTAT_IO_PTR(kio));
	kstat_runq_enter(KSTAT_IO_PTR(kio));
	kstat_io_read(KSTAT_IO_PTR(kio), 100);
	kstat_io_write(KSTAT_IO_PTR(kio), 512);

	snprintf(nm, sizeof(nm), "timers%s", sfx);
	kt = kstat_create("it", 0, nm, "test", KSTAT_TYPE_TIMER, 2, 0);
	t = KSTAT_TIMER_PTR(kt);
	kstat_timer_init(&t[0], "t0");
	kstat_timer_init(&t[1], "t1");
	kstat_install(kt);
	kstat_timer_start(&t[0]);
	usleep(500);
	kstat_timer_stop(&t[0]);
	for (i = 0; i < 3; i++) {
		kstat_timer_start(&t[1]);
		usleep(200);
		kstat_timer_stop(&t[1]);
	}

	snprintf(nm, sizeof(nm), "raw%s", sfx);
	kr = kstat_create("it", 0, nm, "test", KSTAT_TYPE_RAW, 12, 0);
	kstat_install(kr);
	kstat_raw_update(kr, 0, "hello", 5);
	kstat_raw_update(kr, 5, " world!", 7);

	check(kstat_create("it", 0, "bad:name", NULL, KSTAT_TYPE_NAMED, 1,
	    0) == NULL && errno == EINVAL, "a name with ':' is refused");
	check(kstat_create("it", 0, "x", NULL, KSTAT_TYPE_INTR, 2, 0) ==
	    NULL && errno == EINVAL, "INTR takes one record");

	check(stats_client_flush(cli, 10000) == 0, "flush");
	check(stats_client_dropped(cli) == 0, "no drops");

	kc = kstat_open();
	check(kc != NULL, "kstat_open: %s", strerror(errno));
	if (kc == NULL)
		return;
	check(kc->kc_chain_id > 0 && kc->kc_chain != NULL, "a chain");
	kstat_verify(kc, sfx);
	check(kstat_chain_update(kc) == 0, "chain unchanged: 0");
	k0 = kc->kc_chain_id;
	snprintf(nm, sizeof(nm), "extra%s", sfx);
	kx = kstat_create("it", 0, nm, "test", KSTAT_TYPE_INTR, 1, 0);
	kstat_install(kx);
	k1 = kstat_chain_update(kc);
	check(k1 > 0 && k1 != k0 && k1 == kc->kc_chain_id,
	    "a new kstat gives a new KCID (%d -> %d)", (int)k0, (int)k1);
	check(kstat_lookup(kc, "it", 0, nm) != NULL, "the new kstat is there");
	kstat_delete(kx);
	check(kstat_chain_update(kc) > 0 && kstat_lookup(kc, "it", 0, nm) ==
	    NULL, "a deleted kstat leaves the chain");
	/* kstat_write: a writable NAMED kstat. */
	{
		kstat_t *w;
		kstat_named_t *lv;

		snprintf(nm, sizeof(nm), "named%s", sfx);
		w = kstat_lookup(kc, "it", 0, nm);
		if (w != NULL && kstat_read(kc, w, NULL) > 0 &&
		    (lv = kstat_data_lookup(w, "level")) != NULL) {
			lv->value.i32 = 42;
			check(kstat_write(kc, w, NULL) > 0, "kstat_write: %s",
			    strerror(errno));
			check(kstat_read(kc, w, NULL) > 0 &&
			    (lv = kstat_data_lookup(w, "level")) != NULL &&
			    lv->value.i32 == 42, "written value read back");
			lv->value.i32 = -7;
			(void)kstat_write(kc, w, NULL);
		}
	}
	check(kstat_close(kc) == 0, "kstat_close");
	printf("kstat providers done\n");
}

/* Only read what mode_kstat made (run with STATSD_KSTAT_SOCKET=1 too). */
static void
mode_kread(int argc, char **argv)
{
	kstat_ctl_t *kc = kstat_open();

	check(kc != NULL, "kstat_open: %s", strerror(errno));
	if (kc == NULL)
		return;
	kstat_verify(kc, argc > 0 ? argv[0] : "");
	kstat_close(kc);
}

/* The chain kstat_open() gives this process, each kstat read (through
 * its mapped segment): "chain=MODULE:INST:NAME read=1|0" lines, what a
 * consumer in a zone sees (test_zones.py). */
static void
mode_kchain(int argc, char **argv)
{
	kstat_ctl_t *kc = kstat_open();
	kstat_t *k;

	(void)argc;
	(void)argv;
	check(kc != NULL, "kstat_open: %s", strerror(errno));
	if (kc == NULL)
		return;
	for (k = kc->kc_chain; k != NULL; k = k->ks_next)
		printf("chain=%s:%d:%s read=%d\n", k->ks_module,
		    (int)k->ks_instance, k->ks_name, kstat_read(kc, k,
		    NULL) >= 0);
	kstat_close(kc);
}

/* The chain as a string: every kstat's kid and name, in chain order. */
static char *
chain_text(kstat_ctl_t *kc, size_t *ret_n)
{
	size_t len = 0, cap = 4096, n = 0;
	char *s = malloc(cap), line[160];
	kstat_t *p;

	for (p = kc->kc_chain; s != NULL && p != NULL; p = p->ks_next) {
		int l = snprintf(line, sizeof(line), "%lld %s:%d:%s %d\n",
		    (long long)p->ks_kid, p->ks_module, p->ks_instance,
		    p->ks_name, (int)p->ks_type);

		if (len + (size_t)l + 1 > cap) {
			char *q = realloc(s, cap *= 2);

			if (q == NULL) {
				free(s);
				return NULL;
			}
			s = q;
		}
		memcpy(s + len, line, (size_t)l + 1);
		len += (size_t)l;
		n++;
	}
	*ret_n = n;
	return s;
}

/* After every round of changes, the chain kstat_chain_update() made from
 * the change logs is the one a new kstat_open() reads whole. */
static int
chain_same(kstat_ctl_t *kc, const char *what)
{
	kstat_ctl_t *fresh = kstat_open();
	char *a, *b;
	size_t na = 0, nb = 0;
	int same;

	check(kstat_chain_update(kc) >= 0, "%s: chain update: %s", what,
	    strerror(errno));
	check(fresh != NULL, "%s: kstat_open", what);
	if (fresh == NULL)
		return 0;
	a = chain_text(kc, &na);
	b = chain_text(fresh, &nb);
	same = a != NULL && b != NULL && strcmp(a, b) == 0;
	check(same, "%s: the updated chain (%zu kstats) is the chain read "
	    "whole (%zu)", what, na, nb);
	free(a);
	free(b);
	kstat_close(fresh);
	return same;
}

/*
 * The consumer's chain updates: kstats added, deleted and re-added in
 * rounds, each round checked against a chain read whole; a round of more
 * changes than the change log holds, too (then the update reads it all).
 */
static void
mode_chain(int argc, char **argv)
{
	long big = argc > 0 ? atol(argv[0]) : 5000, i;
	struct stats_publish_name *names;
	struct statsblob **sb;
	char (*nm)[24];
	kstat_ctl_t *kc;
	kid_t before;

	names = calloc((size_t)big + 100, sizeof(*names));
	sb = calloc((size_t)big + 100, sizeof(*sb));
	nm = calloc((size_t)big + 100, sizeof(*nm));
	kc = kstat_open();
	check(kc != NULL && names != NULL && sb != NULL && nm != NULL,
	    "kstat_open: %s", strerror(errno));
	if (kc == NULL || names == NULL || sb == NULL || nm == NULL)
		goto out;
	for (i = 0; i < big + 100; i++) {
		snprintf(nm[i], sizeof(nm[i]), "c%ld", i);
		names[i].module = "chain";
		names[i].instance = (int)(i % 3);
		names[i].name = nm[i];
	}
	before = kc->kc_chain_id;
	check(stats_blob_publish_many(cli, make_tpl("it_tpl"), names, 10,
	    "test", 0, sb) == 0, "publish 10: %s", stats_client_strerror(cli));
	check(kstat_chain_update(kc) > 0 && kc->kc_chain_id != before,
	    "a new chain id after a change");
	check(kstat_chain_update(kc) == 0, "0: nothing changed since");
	chain_same(kc, "ten added");
	for (i = 0; i < 10; i += 3)
		check(stats_blob_unpublish(cli, sb[i]) == 0, "unpublish");
	chain_same(kc, "four deleted");
	check(stats_blob_publish_many(cli, make_tpl("it_tpl"), names, 4,
	    "test", 0, sb) == 0, "publish again: %s",
	    stats_client_strerror(cli));
	chain_same(kc, "added again in freed slots");
	/* More changes than the log holds between two updates. */
	check(stats_blob_publish_many(cli, make_tpl("it_tpl"), names + 10,
	    (size_t)big, "test", 0, sb + 10) == 0, "publish %ld: %s", big,
	    stats_client_strerror(cli));
	chain_same(kc, "more than the log holds");
	check(stats_blob_publish_many(cli, make_tpl("it_tpl"), names + 10 +
	    big, 3, "test", 0, sb + 10 + big) == 0, "publish 3");
	chain_same(kc, "three more");
	kstat_close(kc);
	printf("chain=ok\n");
out:
	free(names);
	free(sb);
	free(nm);
}

/* ---------------------------------------------------------------- kstat2 */

static void
mode_kstat2(int argc, char **argv)
{
	const char *pseg[] = { "misc", "it_drv", "1", "data_in" };
	const char *pseg2[] = { "misc", "it_drv", "lat", "2" };
	uint64_t pre[] = { 1, 2, 3 };
	uint64_t v;

	(void)argc;
	(void)argv;
	h = kstat2_create_histogram(pseg, 4, ALL_ZONES, KSTAT2_NVHIST_LINEAR,
	    KSTAT2_NVMT_BYTES, 1, KSTAT2_NVMF_NONE, pre, 3, 0, 1024, 128,
	    KSTAT2_FLAG_PERSISTENT, "data read by it_drv", KSTAT2_MF_NONE);
	check(h != NULL, "kstat2_create_histogram: %s", strerror(errno));
	if (h == NULL)
		return;
	check(strcmp(h->ks1.ks_module, "it_drv") == 0 &&
	    h->ks1.ks_instance == 1 && strcmp(h->ks1.ks_name, "data_in") == 0
	    && strcmp(h->ks1.ks_class, "misc") == 0 &&
	    strcmp(h->ks2_path, "misc/it_drv/1/data_in") == 0,
	    "kstat2 names: %s:%d:%s %s", h->ks1.ks_module, h->ks1.ks_instance,
	    h->ks1.ks_name, h->ks2_path);
	kstat2_install(h);
	for (v = 0; v < 2048; v += 16)
		kstat2_hist_add_value(h, v);
	h2 = kstat2_create_histogram(pseg2, 4, ALL_ZONES, KSTAT2_NVHIST_LOG2,
	    KSTAT2_NVMT_T_REL, 1000000, KSTAT2_NVMF_FRACT, NULL, 0, 0, 0, 0,
	    0, "latency", KSTAT2_MF_NONE);
	check(h2 != NULL, "a LOG2 histogram");
	kstat2_install(h2);
	kstat2_hist_add_value(h2, 0);
	kstat2_hist_add_value(h2, 1);
	kstat2_hist_add_values(h2, 1000, 10);
	check(kstat2_create_histogram(pseg, 2, ALL_ZONES, KSTAT2_NVHIST_LOG2,
	    KSTAT2_NVMT_CNT, 1, 0, NULL, 0, 0, 0, 0, 0, "x", 0) == NULL &&
	    errno == EINVAL, "two segments are too few");
	check(kstat2_create_histogram(pseg, 4, ALL_ZONES,
	    KSTAT2_NVHIST_LOG10_LIN, KSTAT2_NVMT_CNT, 1, 0, NULL, 0, 2, 4, 3,
	    0, "x", 0) == NULL && errno == EINVAL,
	    "LOG10_LIN stepping 3 is refused");
	check(stats_client_flush(cli, 10000) == 0, "flush");
}

/* ------------------------------------------------------------- statistic */

static void
mode_statistic(int argc, char **argv)
{
	struct statistic_interface *si2 = NULL;
	struct statistic *late = NULL;
	int i;

	(void)argc;
	(void)argv;
	check(statistic_create_interface(&si, "it-linux") == 0, "interface");
	check(statistic_create_interface(&si, "again") == -EINVAL,
	    "*iface must be NULL");
	check(statistic_create_interface(&si2, "bad:name") == -EINVAL,
	    "a ':' in the name");
	check(statistic_create(&reqs, si, "bytes", "bytes/request") == 0,
	    "create bytes");
	check(statistic_create(&lat, si, "latency", "us/request") == 0,
	    "create latency");
	check(statistic_create(&sizes, si, "sizes", "bytes/request") == 0,
	    "create sizes");
	check(statistic_create(&hist, si, "util", "slots/incidents") == 0,
	    "create util");
	check(statistic_create(&lst, si, "codes", "code/occurrence") == 0,
	    "create codes");
	check(statistic_create(&raw, si, "events", "x/y") == 0, "create raw");
	check(statistic_create(&late, si, "bytes", NULL) == -EEXIST,
	    "a name twice");
	check(statistic_define_value(reqs, STATISTIC_RANGE_MIN,
	    STATISTIC_RANGE_MAX, STATISTIC_DEF_MODE_PROD) == 0,
	    "define value: %s", stats_client_strerror(cli));
	check(statistic_define_range(lat, 0, 1000) == 0, "define range");
	check(statistic_define_array(sizes, 0, 1024, 256,
	    STATISTIC_DEF_SCALE_LIN) == 0, "define array");
	check(statistic_define_history(hist, 0, 127, 8, 1000000,
	    STATISTIC_DEF_MODE_RANGE) == 0, "define history");
	check(statistic_define_list(lst, 0, 1000, 4) == 0, "define list");
	check(statistic_define_raw(raw, 0, 100, 4) == 0, "define raw");
	check(statistic_define_array(sizes, 0, 1024, 0,
	    STATISTIC_DEF_SCALE_LIN) == -EINVAL, "base_interval 0");
	check(statistic_define_list(lst, 0, 1000, 0) == -EINVAL,
	    "list: entries_max 0");
	check(statistic_define_raw(raw, 100, 0, 4) == -EINVAL,
	    "raw: range_min above range_max");
	/* Off: nothing counts. */
	statistic_add(reqs, 100, 1);
	check(statistic_start(reqs) == STATISTIC_DEF_OFF, "start: was off");
	check(statistic_start(reqs) == STATISTIC_DEF_ON, "start: was on");
	statistic_start(lat);
	statistic_start(sizes);
	statistic_start(hist);
	statistic_start(lst);
	statistic_start(raw);
	for (i = 0; i < 10; i++) {
		statistic_add(reqs, 512, 2);
		statistic_inc(lat, i * 100);
		statistic_inc(sizes, i * 150);
		statistic_inc(hist, 5);
		statistic_inc(lst, 200 + i % 3);
		statistic_add_nolock(raw, i, 1);
	}
	statistic_inc(lat, 5000);	/* out of range */
	check(stats_client_flush(cli, 10000) == 0, "flush");
	check(statistic_stop(raw) == STATISTIC_DEF_ON, "stop: was on");
	printf("statistic done\n");
}

/*
 * The Linux page's programming model: "call statistic_create_interface()
 * in order to create an interface where several statistics for the
 * concerned entity can be attached next by calling statistic_create()",
 * and "in order to remove statistics call statistic_remove()". Statistics
 * are attached and removed here while the interface holds data; after each
 * step the updates are flushed and "step N" printed, and the next step
 * waits for a line on stdin, so that test_linux_grow.py reads statsd's
 * data lines in between.
 */
static void
grow_step(const char *n)
{
	char line[16];

	check(stats_client_flush(cli, 10000) == 0, "flush before step %s", n);
	printf("step %s\n", n);
	if (fgets(line, sizeof(line), stdin) == NULL)
		check(0, "stdin closed at step %s", n);
}

static void
mode_grow(int argc, char **argv)
{
	struct statistic_interface *gi = NULL;
	struct statistic *wr = NULL, *glat = NULL, *pend = NULL, *erp = NULL;
	struct statistic *again = NULL;
	int i;

	(void)argc;
	(void)argv;
	check(statistic_create_interface(&gi, "it-grow") == 0, "interface");
	check(statistic_create(&wr, gi, "request_sizes_scsi_write",
	    "bytes/request") == 0, "create request sizes");
	check(statistic_define_list(wr, 0, 0x100000, 16) == 0,
	    "define list: %s", stats_client_strerror(cli));
	/* statsd has the interface now: this one is attached to it live. */
	check(statistic_create(&glat, gi, "latencies_scsi_write",
	    "ms/request") == 0, "create latencies: %s",
	    stats_client_strerror(cli));
	check(statistic_define_array(glat, 0, 1024, 1,
	    STATISTIC_DEF_SCALE_LOG2) == 0, "define array");
	statistic_start(wr);
	statistic_start(glat);
	for (i = 0; i < 40; i++) {
		statistic_inc(wr, 0x1000 * (1 + i % 3));
		statistic_inc(glat, 1 << (i % 8));
	}
	grow_step("1");
	/* Another entity appears. */
	check(statistic_create(&pend, gi, "pending_scsi_write",
	    "commands/incidents") == 0, "create pending: %s",
	    stats_client_strerror(cli));
	check(statistic_define_range(pend, 0, 32) == 0, "define range");
	check(statistic_start(pend) == STATISTIC_DEF_OFF, "start pending");
	for (i = 0; i < 10; i++)
		statistic_inc(pend, i);
	grow_step("2");
	/* The first statistic goes on from where it was. */
	for (i = 0; i < 20; i++)
		statistic_inc(wr, 0x1000);
	grow_step("3");
	check(statistic_remove(&glat) == 0 && glat == NULL,
	    "remove latencies: %s", stats_client_strerror(cli));
	grow_step("4");
	check(statistic_create(&erp, gi, "occurrence_erp", NULL) == 0,
	    "create erp");
	check(statistic_start(erp) == STATISTIC_DEF_OFF, "start erp");
	statistic_add(erp, 1, 5);
	/* A name removed may come back: a new statistic, from zero. */
	check(statistic_create(&again, gi, "latencies_scsi_write",
	    "ms/request") == 0, "create latencies again");
	grow_step("5");
	check(statistic_interface_remove(&gi) == 0 && gi == NULL,
	    "remove the interface");
	printf("grow done\n");
}

/*
 * A definition statsd refuses, on an interface statsd does not have yet:
 * the kstat is made with every definition line in one call, all taken or
 * none, so the refusal leaves no interface behind (step 1); the next
 * definition makes it, without the refused one (step 2).
 */
static void
mode_statrefused(int argc, char **argv)
{
	struct statistic_interface *ri = NULL;
	struct statistic *big = NULL, *ok = NULL;
	int r;

	(void)argc;
	(void)argv;
	check(statistic_create_interface(&ri, "it-refused") == 0,
	    "interface");
	check(statistic_create(&big, ri, "big", "x/y") == 0, "create big");
	check(statistic_create(&ok, ri, "fine", "x/y") == 0, "create fine");
	r = statistic_define_list(big, 0, 1000, UINT32_MAX);
	check(r == -EINVAL && strstr(stats_client_strerror(cli),
	    "InvalidDefinition") != NULL, "a list of 2^32-1 entries is "
	    "refused: %d (%s)", r, stats_client_strerror(cli));
	grow_step("1");
	r = statistic_define_range(ok, 0, 10);
	check(r == 0, "define fine after the refusal: %d (%s)", r,
	    stats_client_strerror(cli));
	r = statistic_start(big);
	check(r == STATISTIC_DEF_OFF, "start big: %d (%s)", r,
	    stats_client_strerror(cli));
	grow_step("2");
	check(statistic_interface_remove(&ri) == 0, "remove the interface");
	printf("statrefused done\n");
}

static const struct {
	const char	*name;
	void		(*fn)(int, char **);
} modes[] = {
	{ "threads", mode_threads },
	{ "publish", mode_publish },
	{ "feed", mode_feed },
	{ "joins", mode_joins },
	{ "kreads", mode_kreads },
	{ "lossless", mode_lossless },
	{ "squat", mode_squat },
	{ "nojoin", mode_nojoin },
	{ "refused", mode_refused },
	{ "burst", mode_burst },
	{ "fork", mode_fork },
	{ "restart", mode_restart },
	{ "many", mode_many },
	{ "pointers", mode_pointers },
	{ "kwait", mode_kwait },
	{ "chain", mode_chain },
	{ "kstat", mode_kstat },
	{ "kread", mode_kread },
	{ "kchain", mode_kchain },
	{ "kstat2", mode_kstat2 },
	{ "statistic", mode_statistic },
	{ "grow", mode_grow },
	{ "statrefused", mode_statrefused },
	{ "tplonce", mode_tplonce },
	{ "tplevict", mode_tplevict },
};

int
main(int argc, char **argv)
{
	size_t i;
	int flags = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: client_it MODE SOCKET [ARGS...]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	sock = argv[2];
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (strcmp(modes[i].name, argv[1]) == 0)
			break;
	if (i == sizeof(modes) / sizeof(modes[0])) {
		fprintf(stderr, "client_it: no mode %s\n", argv[1]);
		return 2;
	}
	/* CLIENT_IT_RING_LOG2: ask for rings of that size. */
	if (getenv("CLIENT_IT_RING_LOG2") != NULL)
		flags |= STATS_CLIENT_RING_LOG2(atoi(getenv(
		    "CLIENT_IT_RING_LOG2")));
	cli = stats_client_open(sock, flags);
	check(cli != NULL, "stats_client_open %s: %s", sock, strerror(errno));
	if (cli != NULL) {
		modes[i].fn(argc - 3, argv + 3);
		stats_client_close(cli);
	}
	return finish();
}
