/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bench_lines.c: the CPU statsd spends on a statsd/DogStatsD line once
 * the kernel has handed it over: datagrams of 20 lines fed in process to
 * what the front door runs on each (front.c's front_lines(): the line
 * split, sl_line_parse() and series_apply(), series_sync() after every
 * statsd_batch datagrams), on a registry of the daemon's own, without
 * sockets. The shapes are statsd_sender.c's and what DogStatsD clients
 * send:
 *
 *   counter   20 x "bench.c:1|c" (statsd_vs_etsy.py's 1x20 and 8x20)
 *   mix       statsd_sender.c's 1,000 names (counters, some at @0.5,
 *             gauges, timers, histograms, sets), 20 a datagram
 *   gauge     20 gauges a datagram, absolute and deltas
 *   timer     20 timers at @0.5, fractional milliseconds
 *   tags      counters with 3 DogStatsD tags, in varying order
 *
 * For each: ns of thread CPU time per line (the median of ROUNDS rounds,
 * so a busy shared machine moves it little), the same for the parse
 * alone (the rest is the apply), and CPU instructions per line where the
 * kernel counts them (perf_event_open(2); a VM often has no counters:
 * "-"). For exact counts per function, run it under
 * `valgrind --tool=callgrind --toggle-collect=rounds_full bench_lines
 * 1000 1 SHAPE` and read callgrind_annotate's table (the total over
 * 20,000 lines; rounds_parse for the parse alone).
 *
 * usage: bench_lines [datagrams a round, default 20000] [rounds, 7]
 *        [shape: only that one]
 * Build with buildtype=release or debugoptimized for figures worth quoting.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "daemon.h"
#include "quota.h"
#include "registry.h"
#include "rights.h"
#include "series.h"
#include "statsd_line.h"
#include "zones.h"

#define LINES		20	/* a datagram's */
#define VARIANTS	1000	/* distinct datagrams of a shape, cycled */
#define DGRAM_MAX	2048
#define MIX_NAMES	1000

struct shape {
	const char	*name;
	void		(*make)(char *out, size_t cap, unsigned i);
};

static size_t
cat(char *out, size_t cap, size_t off, const char *line)
{
	int n = snprintf(out + off, cap - off, "%s%s", off > 0 ? "\n" : "",
	    line);

	if (n < 0 || (size_t)n >= cap - off) {
		fprintf(stderr, "bench_lines: datagram too long\n");
		exit(1);
	}
	return off + (size_t)n;
}

static void
make_counter(char *out, size_t cap, unsigned i)
{
	size_t off = 0;
	unsigned j;

	(void)i;
	for (j = 0; j < LINES; j++)
		off = cat(out, cap, off, "bench.c:1|c");
}

/* statsd_sender.c's mix_line(), name k. */
static void
mix_line(char *out, size_t cap, unsigned k)
{
	unsigned t = k % 20;

	if (t < 8)
		snprintf(out, cap, "mix.%u:1|c%s", k, t % 4 == 0 ? "|@0.5" : "");
	else if (t < 14)
		snprintf(out, cap, "mix.%u:%u|g", k, k % 97);
	else if (t < 17)
		snprintf(out, cap, "mix.%u:%u|ms", k, 1 + k % 250);
	else if (t < 19)
		snprintf(out, cap, "mix.%u:%u|h", k, k % 1000);
	else
		snprintf(out, cap, "mix.%u:u%u|s", k, k % 50);
}

static void
make_mix(char *out, size_t cap, unsigned i)
{
	char line[64];
	size_t off = 0;
	unsigned j;

	/* Datagram i holds names 20i .. 20i+19 (mod 1,000), and the names'
	 * values change from one pass over them to the next. */
	for (j = 0; j < LINES; j++) {
		mix_line(line, sizeof(line), (i * LINES + j) % MIX_NAMES);
		off = cat(out, cap, off, line);
	}
}

static void
make_gauge(char *out, size_t cap, unsigned i)
{
	char line[64];
	size_t off = 0;
	unsigned j;

	for (j = 0; j < LINES; j++) {
		if (j % 5 == 4)
			snprintf(line, sizeof(line), "app.queue.%u:%s%u|g", j,
			    (i + j) % 2 ? "+" : "-", (i + j) % 7);
		else
			snprintf(line, sizeof(line), "app.queue.%u:%u|g", j,
			    (i * 31 + j * 7) % 5000);
		off = cat(out, cap, off, line);
	}
}

static void
make_timer(char *out, size_t cap, unsigned i)
{
	char line[64];
	size_t off = 0;
	unsigned j;

	for (j = 0; j < LINES; j++) {
		snprintf(line, sizeof(line), "api.latency.%u:%u.%u|ms|@0.5",
		    j % 4, (i * 13 + j * 17) % 900, (i + j) % 10);
		off = cat(out, cap, off, line);
	}
}

static void
make_tags(char *out, size_t cap, unsigned i)
{
	static const char *const route[] = { "/v1/users", "/v1/orders",
	    "/v1/cart", "/health" };
	char line[128];
	size_t off = 0;
	unsigned j;

	for (j = 0; j < LINES; j++) {
		unsigned r = (i + j) % 4, h = j % 3;

		if ((i + j) % 2)
			snprintf(line, sizeof(line), "http.requests:1|c|"
			    "#env:prod,host:web-%u,route:%s", h, route[r]);
		else
			snprintf(line, sizeof(line), "http.requests:1|c|"
			    "#route:%s,env:prod,host:web-%u", route[r], h);
		off = cat(out, cap, off, line);
	}
}

static const struct shape shapes[] = {
	{ "counter", make_counter },
	{ "mix", make_mix },
	{ "gauge", make_gauge },
	{ "timer", make_timer },
	{ "tags", make_tags },
};
#define NSHAPES	(sizeof(shapes) / sizeof(shapes[0]))

static struct statsd d;
static struct series *ser;
static struct sl_limits lim;
static struct series_src udp = { .udp = true };
static uint64_t applied, refused, rejected;

static uint64_t
cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* front.c's front_lines(), less its counters' names. */
static void
feed(const char *buf, size_t len, uint64_t now)
{
	const char *ln;
	size_t pos = 0, n;

	while (sl_next_line(buf, len, &pos, &ln, &n)) {
		struct sl_line l;

		if (sl_line_parse(ln, n, &lim, &l) != SL_OK) {
			rejected++;
			continue;
		}
		if (series_apply(ser, &udp, &l, now) == SERIES_OK)
			applied++;
		else
			refused++;
	}
}

/* The parse alone. */
static void
parse_only(const char *buf, size_t len)
{
	const char *ln;
	size_t pos = 0, n;

	while (sl_next_line(buf, len, &pos, &ln, &n)) {
		struct sl_line l;

		if (sl_line_parse(ln, n, &lim, &l) != SL_OK)
			rejected++;
		else
			applied += l.nvalues;
	}
}

static int
instr_open(void)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_HARDWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

static uint64_t
instr_read(int fd)
{
	uint64_t v = 0;

	if (fd < 0 || read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		return 0;
	return v;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * n datagrams from dg[at] on, through the parse and the apply, then the
 * parse alone. Not inlined: callgrind's --toggle-collect names them.
 * Returns: where the next round starts.
 */
static __attribute__((noinline)) unsigned
rounds_full(char (*dg)[DGRAM_MAX], const size_t *len, unsigned n,
    unsigned at, uint64_t *now)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		feed(dg[at], len[at], *now);
		at = (at + 1) % VARIANTS;
		/* a batch of statsd_batch (64) datagrams a turn */
		if (i % 64 == 63)
			series_sync(ser);
		*now += 1000;
	}
	series_sync(ser);
	return at;
}

static __attribute__((noinline)) unsigned
rounds_parse(char (*dg)[DGRAM_MAX], const size_t *len, unsigned n,
    unsigned at)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		parse_only(dg[at], len[at]);
		at = (at + 1) % VARIANTS;
	}
	return at;
}

struct result {
	double	ns, parse_ns, instr, parse_instr;
};

/* One shape: rounds of n datagrams, full and parse only, interleaved. */
static void
run(const struct shape *sh, unsigned n, unsigned rounds, int ifd,
    struct result *ret)
{
	char (*dg)[DGRAM_MAX] = malloc(VARIANTS * sizeof(*dg));
	size_t *len = malloc(VARIANTS * sizeof(*len));
	uint64_t *full = calloc(rounds, sizeof(uint64_t));
	uint64_t *parse = calloc(rounds, sizeof(uint64_t));
	uint64_t *ifull = calloc(rounds, sizeof(uint64_t));
	uint64_t *iparse = calloc(rounds, sizeof(uint64_t));
	uint64_t now = 1000000000u, lines = (uint64_t)n * LINES;
	unsigned i, r, at = 0;

	if (dg == NULL || len == NULL || full == NULL || parse == NULL ||
	    ifull == NULL || iparse == NULL) {
		fprintf(stderr, "bench_lines: out of memory\n");
		exit(1);
	}
	for (i = 0; i < VARIANTS; i++) {
		sh->make(dg[i], DGRAM_MAX, i);
		len[i] = strlen(dg[i]);
	}
	/* The series made first, as a running statsd has them. */
	for (i = 0; i < VARIANTS; i++)
		feed(dg[i], len[i], now);
	series_sync(ser);
	for (r = 0; r < rounds; r++) {
		uint64_t t0, i0;

		i0 = instr_read(ifd);
		t0 = cpu_ns();
		at = rounds_full(dg, len, n, at, &now);
		full[r] = cpu_ns() - t0;
		ifull[r] = instr_read(ifd) - i0;
		i0 = instr_read(ifd);
		t0 = cpu_ns();
		at = rounds_parse(dg, len, n, at);
		parse[r] = cpu_ns() - t0;
		iparse[r] = instr_read(ifd) - i0;
	}
	qsort(full, rounds, sizeof(*full), cmp_u64);
	qsort(parse, rounds, sizeof(*parse), cmp_u64);
	qsort(ifull, rounds, sizeof(*ifull), cmp_u64);
	qsort(iparse, rounds, sizeof(*iparse), cmp_u64);
	ret->ns = (double)full[rounds / 2] / (double)lines;
	ret->parse_ns = (double)parse[rounds / 2] / (double)lines;
	ret->instr = (double)ifull[rounds / 2] / (double)lines;
	ret->parse_instr = (double)iparse[rounds / 2] / (double)lines;
	free(dg);
	free(len);
	free(full);
	free(parse);
	free(ifull);
	free(iparse);
}

static void
setup(void)
{
	int r;

	if (config_defaults(&d.cfg) != 0) {
		fprintf(stderr, "bench_lines: config_defaults failed\n");
		exit(1);
	}
	d.cfg.zones = ZONE_KIND_NONE;
	d.self_uid = getuid();
	d.sample_rates = strdup("");
	if ((r = zones_new(ZONE_KIND_NONE, NULL, &d.zones)) < 0 ||
	    (r = quota_new(&d, &d.quota)) < 0 ||
	    (r = registry_new(&d, &d.reg)) < 0 ||
	    (r = series_new(&d, &ser)) < 0) {
		fprintf(stderr, "bench_lines: setup: %s\n", strerror(-r));
		exit(1);
	}
	rights_peer_cred(&d, d.self_uid, (gid_t)-1, &udp.peer);
	lim.name_max = d.cfg.statsd_name_max;
	lim.tag_max = d.cfg.statsd_tag_max;
	lim.tags_max = d.cfg.statsd_tags_max;
	lim.values_max = d.cfg.statsd_values_max;
}

int
main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 20000;
	unsigned rounds = argc > 2 ? (unsigned)atoi(argv[2]) : 7;
	const char *only = argc > 3 ? argv[3] : NULL;
	unsigned shown = 0;
	struct result res[NSHAPES];
	double tot = 0, tot_p = 0;
	int ifd;
	size_t i;

	if (n < 1 || rounds < 1) {
		fprintf(stderr, "usage: bench_lines [datagrams] [rounds] "
		    "[shape]\n");
		return 2;
	}
	setup();
	ifd = instr_open();
	if (ifd >= 0)
		ioctl(ifd, PERF_EVENT_IOC_ENABLE, 0);
	for (i = 0; i < NSHAPES; i++)
		if (only == NULL || strcmp(only, shapes[i].name) == 0)
			run(&shapes[i], n, rounds, ifd, &res[i]);
		else
			res[i].ns = -1;
	if (rejected > 0 || refused > 0) {
		fprintf(stderr, "bench_lines: %" PRIu64 " lines rejected, %"
		    PRIu64 " refused\n", rejected, refused);
		return 1;
	}
	printf("%d lines a datagram, %u datagrams a round, median of %u "
	    "rounds\n", LINES, n, rounds);
	printf("%-8s %10s %10s %10s %12s %12s\n", "shape", "ns/line",
	    "parse ns", "apply ns", "instr/line", "parse instr");
	for (i = 0; i < NSHAPES; i++) {
		char a[32], b[32];

		if (res[i].ns < 0)
			continue;
		if (ifd >= 0) {
			snprintf(a, sizeof(a), "%.0f", res[i].instr);
			snprintf(b, sizeof(b), "%.0f", res[i].parse_instr);
		} else {
			snprintf(a, sizeof(a), "-");
			snprintf(b, sizeof(b), "-");
		}
		printf("%-8s %10.1f %10.1f %10.1f %12s %12s\n", shapes[i].name,
		    res[i].ns, res[i].parse_ns, res[i].ns - res[i].parse_ns,
		    a, b);
		tot += res[i].ns;
		tot_p += res[i].parse_ns;
		shown++;
	}
	if (shown > 1)
		printf("%-8s %10.1f %10.1f %10.1f\n", "mean", tot / shown,
		    tot_p / shown, (tot - tot_p) / shown);
	ser = series_free(ser);
	d.reg = registry_free(d.reg);
	d.quota = quota_free(d.quota);
	d.zones = zones_free(d.zones);
	config_done(&d.cfg);
	free(d.sample_rates);
	return 0;
}
