/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bench_create.c: what creating one kstat costs, one call at a time, as
 * applications create them, on a statsd that already holds n kstats (a
 * statsd of its own, default configuration). For each size, `calls` new
 * kstats each way:
 *
 *   publish     stats_blob_publish() of a 10-VOI template (SUM, MIN and
 *               MAX on each VOI, the template of bench_scale)
 *   kstat       kstat_create() of a NAMED kstat of 10 values, their
 *               kstat_named_init(), kstat_install()
 *   statistic   statistic_create_interface(), statistic_create() and
 *               statistic_start(), which makes the interface's kstat (a
 *               Linux interface is created on statsd once it is started)
 *   round trip  one io.statsd.Hello call and its reply over a Unix socket
 *               of its own: the floor of any call
 *
 * Each as microseconds a call of wall time, of statsd's CPU time (every
 * thread's, from /proc/PID/task/TID/schedstat) and of this process's CPU
 * time. The store is filled first with stats_blob_publish_many().
 *
 * The same source builds against an older libstatsclient: create_vs.py
 * runs it against the tree's statsd and library and another build's,
 * side by side.
 *
 * Usage: bench_create [sizes (comma-separated)] [statsd] [calls] [ways]
 * (ways: a comma-separated list of roundtrip, publish, kstat, statistic;
 * all by default).
 * One line a size and way: "ROW n=N way=W wall_us=.. statsd_us=.. client_us=..".
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <statsd/client.h>
#include <statsd/kstat.h>
#include <statsd/statistic.h>
#include <statsd/stats.h>

#include "benchutil.h"
#include "varlink_names.h"

#ifndef STATSD_PATH
#define STATSD_PATH	"statsd"
#endif

#define NVOIS		10
#define FILL_BATCH	4096

static struct bench_statsd sd = { .pid = -1 };
static size_t cur_size;		/* the kstats statsd holds */
static const char *ways = "roundtrip,publish,kstat,statistic";

/* Is way in the list asked for? */
static int
way_on(const char *way)
{
	size_t n = strlen(way);
	const char *p;

	for (p = strstr(ways, way); p != NULL; p = strstr(p + 1, way))
		if ((p == ways || p[-1] == ',') && (p[n] == ',' ||
		    p[n] == '\0'))
			return 1;
	return 0;
}

static void
die(const char *what)
{
	fprintf(stderr, "bench_create: %s\n", what);
	bench_statsd_stop(&sd);
	exit(1);
}

/* Nanoseconds every thread of pid has run on a CPU. */
static double
task_cpu_ns(pid_t pid)
{
	char path[320];
	double total = 0, ns;
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if ((d = opendir(path)) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/schedstat",
		    (int)pid, de->d_name);
		f = fopen(path, "r");
		if (f != NULL && fscanf(f, "%lf", &ns) == 1)
			total += ns;
		if (f != NULL)
			fclose(f);
	}
	closedir(d);
	return total;
}

static double
proc_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

struct span {
	double	wall, daemon, client;
};

static void
span_begin(struct span *s)
{
	s->wall = (double)bench_now_ns();
	s->daemon = task_cpu_ns(sd.pid);
	s->client = proc_cpu_ns();
}

static void
span_end(struct span *s, size_t n, const char *way)
{
	double wall = (double)bench_now_ns() - s->wall;
	double daemon = task_cpu_ns(sd.pid) - s->daemon;
	double client = proc_cpu_ns() - s->client;

	printf("ROW n=%zu way=%s wall_us=%.2f statsd_us=%.2f client_us=%.2f\n",
	    cur_size, way, wall / 1e3 / (double)n,
	    daemon / 1e3 / (double)n, client / 1e3 / (double)n);
	fflush(stdout);
}

static int
make_tpl(void)
{
	struct voistatspec vss[] = { STATS_VSS_SUM(), STATS_VSS_MIN(),
	    STATS_VSS_MAX() };
	char name[16];
	int id, v;

	id = stats_tpl_fetch_allocid("create", 0);
	if (id >= 0)
		return id;
	id = stats_tpl_alloc("create", 0);
	if (id < 0)
		die("stats_tpl_alloc");
	for (v = 0; v < NVOIS; v++) {
		snprintf(name, sizeof(name), "v%d", v);
		if (stats_tpl_add_voistats((uint32_t)id, v, name,
		    VSD_DTYPE_INT_U64, NVSS(vss), vss, 0) != 0)
			die("stats_tpl_add_voistats");
	}
	return id;
}

static void
fill(stats_client_t *c, int tpl, size_t n)
{
	struct stats_publish_name names[FILL_BATCH];
	struct statsblob *sb[FILL_BATCH];
	char nm[FILL_BATCH][24];
	size_t done = 0, i, m;

	while (done < n) {
		m = n - done < FILL_BATCH ? n - done : FILL_BATCH;
		for (i = 0; i < m; i++) {
			snprintf(nm[i], sizeof(nm[i]), "f%zu", done + i);
			names[i].module = "fill";
			names[i].instance = (int)((done + i) % 100);
			names[i].name = nm[i];
		}
		if (stats_blob_publish_many(c, tpl, names, m, "bench", 0,
		    sb) != 0) {
			fprintf(stderr, "%s\n", stats_client_strerror(c));
			die("stats_blob_publish_many");
		}
		done += m;
	}
}

/* One Hello and its reply, on a connection of its own. */
static void
round_trips(size_t calls)
{
	static const char hello[] = "{\"method\":\"" VL_M_HELLO "\"}";
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char buf[4096];
	struct span s;
	size_t i;
	int fd;

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	memcpy(sa.sun_path, sd.sock, strlen(sd.sock) + 1);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die("connect");
	span_begin(&s);
	for (i = 0; i < calls; i++) {
		ssize_t got;

		if (write(fd, hello, sizeof(hello)) != (ssize_t)sizeof(hello))
			die("write");
		/* The reply ends with its NUL. Wait in poll(2), as
		 * libstatsclient does: a read blocked on an AF_UNIX stream
		 * socket is also woken when statsd's read of the call frees
		 * its buffer (write space, which poll's wait filters out),
		 * and that second sleep and wake-up would be counted in the
		 * floor. */
		do {
			struct pollfd p = { .fd = fd, .events = POLLIN };

			if (poll(&p, 1, -1) < 0)
				die("poll");
			got = read(fd, buf, sizeof(buf));
		} while (got > 0 && buf[got - 1] != '\0');
		if (got <= 0)
			die("read");
	}
	span_end(&s, calls, "roundtrip");
	close(fd);
}

static void
measure(size_t n, const char *statsd, size_t calls)
{
	struct statistic_interface **ifs;
	stats_client_t *c;
	struct span s;
	char nm[32];
	size_t i;
	int tpl;

	bench_statsd_start(&sd, "bench_create", statsd,
	    "log_level = warning\nhttp_listen =\nstatsd_udp =\n"
	    "statsd_unix = none\n");
	setenv("STATSD_SOCKET", sd.sock, 1);
	c = stats_client_open(sd.sock, 0);
	if (c == NULL)
		die("stats_client_open");
	tpl = make_tpl();
	fill(c, tpl, n);
	cur_size = n;

	if (way_on("roundtrip"))
		round_trips(calls);

	span_begin(&s);
	for (i = 0; way_on("publish") && i < calls; i++) {
		snprintf(nm, sizeof(nm), "p%zu", i);
		if (stats_blob_publish(c, tpl, "pub", (int)(i % 100), nm,
		    "bench", 0) == NULL) {
			fprintf(stderr, "%s\n", stats_client_strerror(c));
			die("stats_blob_publish");
		}
	}
	if (way_on("publish"))
		span_end(&s, calls, "publish");

	span_begin(&s);
	for (i = 0; way_on("kstat") && i < calls; i++) {
		kstat_named_t *kn;
		kstat_t *ksp;
		int v;

		snprintf(nm, sizeof(nm), "k%zu", i);
		ksp = kstat_create("ks", (int)(i % 100), nm, "bench",
		    KSTAT_TYPE_NAMED, NVOIS, 0);
		if (ksp == NULL)
			die("kstat_create");
		kn = ksp->ks_data;
		for (v = 0; v < NVOIS; v++) {
			char vn[16];

			snprintf(vn, sizeof(vn), "v%d", v);
			kstat_named_init(&kn[v], vn, KSTAT_DATA_UINT64);
		}
		kstat_install(ksp);
		if (ksp->ks_flags & KSTAT_FLAG_INVALID) {
			fprintf(stderr, "%s\n", stats_client_strerror(c));
			die("kstat_install");
		}
	}
	if (way_on("kstat"))
		span_end(&s, calls, "kstat");

	ifs = calloc(calls, sizeof(*ifs));
	if (ifs == NULL)
		die("out of memory");
	span_begin(&s);
	for (i = 0; way_on("statistic") && i < calls; i++) {
		struct statistic *st = NULL;

		snprintf(nm, sizeof(nm), "if%zu", i);
		if (statistic_create_interface(&ifs[i], nm) != 0 ||
		    statistic_create(&st, ifs[i], "requests", "calls") != 0 ||
		    statistic_start(st) < 0) {
			fprintf(stderr, "%s\n", stats_client_strerror(c));
			die("statistic_create");
		}
	}
	if (way_on("statistic"))
		span_end(&s, calls, "statistic");
	free(ifs);

	stats_client_close(c);
	bench_statsd_stop(&sd);
}

int
main(int argc, char **argv)
{
	const char *sizes = argc > 1 ? argv[1] : "2000,20000";
	const char *statsd = argc > 2 ? argv[2] : STATSD_PATH;
	size_t calls = argc > 3 ? strtoul(argv[3], NULL, 10) : 1000;

	if (argc > 4)
		ways = argv[4];
	char *list = strdup(sizes), *tok, *save = NULL;

	if (list == NULL || calls == 0)
		return 2;
	for (tok = strtok_r(list, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save))
		measure(strtoul(tok, NULL, 10), statsd, calls);
	free(list);
	return 0;
}
