/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bench_lossless.c: producers flat out against a real statsd. It starts
 * its own statsd on a temporary directory, then for 1, 2 and 8 threads
 * pushing N updates each (default 1,000,000) to one kstat and to 1,000
 * kstats — stats_voi_update_abs_u64() on published blobs of one SUM VOI,
 * through libstatsclient — prints: updates pushed, applied through the
 * ring, applied through spill buffers, dropped, ns per update, the ratio
 * to the same update in-process on a local blob, how long after the
 * burst's first update statsd had applied something, and how long after
 * its last one everything was applied. Each configuration runs twice:
 * with spill buffers ("spill", the design now) and without
 * (STATS_CLIENT_NOSPILL: a full ring drops, the design before), side by
 * side. A last line gives the drain's own rate: records applied through
 * the daemon's real path per second of drain time (statsd:0:daemon's
 * drain_ns).
 *
 * Usage: bench_lossless [updates-per-thread] [statsd binary]
 * Each configuration runs in a child process of its own (a process has
 * one client). Figures are reported, never asserted; on a shared 2-CPU
 * machine they move from run to run.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <statsd/client.h>
#include <statsd/kstat.h>
#include <statsd/stats.h>

#include "benchutil.h"

#ifndef STATSD_PATH
#define STATSD_PATH	"statsd"
#endif

#define MAXTHREADS	8

/* One template of one SUM VOI, made once (the children inherit it). */
#define SUM_TPL	"bench_lossless"

/* ------------------------------------------------------------ one row */

struct row {
	unsigned	 threads;
	unsigned	 nk;
	bool		 spill;
	uint64_t	 n;		/* updates per thread */
};

struct result {
	uint64_t	 pushed, ring, spilled, dropped;
	double		 ns;		/* burst wall time / updates */
	double		 cpu_ns;	/* producers' CPU time / updates */
	double		 first_us;	/* first update applied after */
	double		 all_ms;	/* last update to all applied */
	uint64_t	 drain_applied;	/* for the drain's rate */
	uint64_t	 drain_ns;
	int		 ok;
};

struct prod {
	pthread_t		 th;
	struct statsblob	**sb;
	unsigned		 nk;
	uint64_t		 n;
	uint64_t		 ns;
	uint64_t		 cpu_ns;
	_Atomic int		 finished;
	_Atomic int		*go;
};

static void *
prod_main(void *arg)
{
	struct prod *p = arg;
	uint64_t i, t0, c0, x = (uint64_t)(uintptr_t)p;

	/* The thread's ring, before the clock starts. */
	(void)stats_voi_update_abs_u64(p->sb[0], 0, 1);
	while (!atomic_load_explicit(p->go, memory_order_acquire))
		;
	t0 = bench_now_ns();
	c0 = bench_cpu_ns();
	if (p->nk == 1) {
		for (i = 0; i < p->n; i++)
			(void)stats_voi_update_abs_u64(p->sb[0], 0, 1);
	} else {
		for (i = 0; i < p->n; i++) {
			x = x * 6364136223846793005u + 1442695040888963407u;
			(void)stats_voi_update_abs_u64(p->sb[(uint32_t)(((x >>
			    32) * p->nk) >> 32)], 0, 1);
		}
	}
	p->ns = bench_now_ns() - t0;
	p->cpu_ns = bench_cpu_ns() - c0;
	atomic_store_explicit(&p->finished, 1, memory_order_release);
	return NULL;
}

static uint64_t
total(struct statsblob **sb, unsigned nk)
{
	uint64_t t = 0, v;
	unsigned k;

	for (k = 0; k < nk; k++)
		if (stats_voistat_fetch_u64(sb[k], 0, VS_STYPE_SUM, &v) == 0)
			t += v;
	return t;
}

/* statsd:0:daemon's counters: applied, spilled, drain_ns. */
static void
daemon_counters(uint64_t *applied, uint64_t *spilled, uint64_t *drain)
{
	kstat_ctl_t *kc = kstat_open();
	kstat_t *ksp;
	kstat_named_t *kn;

	*applied = *spilled = *drain = 0;
	if (kc == NULL)
		return;
	ksp = kstat_lookup(kc, "statsd", 0, "daemon");
	if (ksp != NULL && kstat_read(kc, ksp, NULL) != -1) {
		if ((kn = kstat_data_lookup(ksp, "applied")) != NULL)
			*applied = kn->value.ui64;
		if ((kn = kstat_data_lookup(ksp, "spilled")) != NULL)
			*spilled = kn->value.ui64;
		if ((kn = kstat_data_lookup(ksp, "drain_ns")) != NULL)
			*drain = kn->value.ui64;
	}
	kstat_close(kc);
}

/* The self kstat is updated on the drain tick (10 ms here). */
static void
daemon_settled(uint64_t *applied, uint64_t *spilled, uint64_t *drain)
{
	bench_sleep_us(40000);
	daemon_counters(applied, spilled, drain);
}

static void
run_row(const char *sock, const struct row *rw, int id, struct result *res)
{
	struct statsblob **sb = calloc(rw->nk, sizeof(*sb));
	struct prod pr[MAXTHREADS];
	stats_client_t *c;
	_Atomic int go = 0;
	uint64_t base, target, t0, t_end = 0, p0, d0, a0, s0, dn0;
	uint64_t a1, s1, dn1, first = 0, done = 0;
	char name[32];
	unsigned i, k;
	int tpl;

	memset(res, 0, sizeof(*res));
	c = stats_client_open(sock, rw->spill ? 0 : STATS_CLIENT_NOSPILL);
	if (c == NULL || sb == NULL) {
		fprintf(stderr, "bench_lossless: cannot connect to %s\n", sock);
		return;
	}
	tpl = bench_sum_tpl(SUM_TPL);
	for (k = 0; k < rw->nk; k++) {
		snprintf(name, sizeof(name), "k%u", k);
		sb[k] = stats_blob_publish(c, tpl, "bench", id, name, NULL, 0);
		if (sb[k] == NULL) {
			fprintf(stderr, "bench_lossless: publish: %s\n",
			    stats_client_strerror(c));
			return;
		}
	}
	for (i = 0; i < rw->threads; i++) {
		pr[i].sb = sb;
		pr[i].nk = rw->nk;
		pr[i].n = rw->n;
		pr[i].ns = 0;
		atomic_store(&pr[i].finished, 0);
		pr[i].go = &go;
		pthread_create(&pr[i].th, NULL, prod_main, &pr[i]);
	}
	/* Every thread has its ring and statsd is idle again. */
	while (total(sb, rw->nk) < rw->threads)
		bench_sleep_us(1000);
	(void)stats_client_flush(c, 10000);
	daemon_settled(&a0, &s0, &dn0);
	base = total(sb, rw->nk);
	p0 = stats_client_pushed(c);
	d0 = stats_client_dropped(c);
	t0 = bench_now_ns();
	atomic_store_explicit(&go, 1, memory_order_release);
	/* Watch from here: statsd's first applied update, then the end. */
	for (;;) {
		uint64_t t = bench_now_ns(), v = total(sb, rw->nk);
		bool running = false;

		for (i = 0; i < rw->threads; i++)
			running |= !atomic_load_explicit(&pr[i].finished,
			    memory_order_acquire);
		if (first == 0 && v > base)
			first = t;
		if (!running && t_end == 0) {
			t_end = t;
			break;
		}
		if (rw->nk == 1)
			bench_sleep_us(5);
		else
			bench_sleep_us(200);
	}
	for (i = 0; i < rw->threads; i++)
		pthread_join(pr[i].th, NULL);
	res->pushed = stats_client_pushed(c) - p0;
	res->dropped = stats_client_dropped(c) - d0;
	target = base + res->pushed - res->dropped;
	/* Everything applied, with no flush: the producers' own hand-overs
	 * and the library's watcher must bring it. */
	while (bench_now_ns() - t_end < 10 * UINT64_C(1000000000)) {
		if (total(sb, rw->nk) >= target) {
			done = bench_now_ns();
			break;
		}
		bench_sleep_us(rw->nk == 1 ? 20 : 500);
	}
	(void)stats_client_flush(c, 10000);
	daemon_settled(&a1, &s1, &dn1);
	res->spilled = s1 - s0;
	res->ring = a1 - a0 - res->spilled;
	/* Throughput: the burst's wall time over every update (threads
	 * share the CPUs), and the producers' own CPU time over them. */
	res->ns = (double)(t_end - t0) / (double)(rw->n * rw->threads);
	for (i = 0; i < rw->threads; i++)
		res->cpu_ns += (double)pr[i].cpu_ns;
	res->cpu_ns /= (double)(rw->n * rw->threads);
	res->first_us = first != 0 ? (double)(first - t0) / 1e3 : -1;
	res->all_ms = done != 0 ? (double)(done - t_end) / 1e6 : -1;
	res->drain_applied = a1 - a0;
	res->drain_ns = dn1 - dn0;
	res->ok = total(sb, rw->nk) == target;
	for (k = 0; k < rw->nk; k++)
		(void)stats_blob_unpublish(c, sb[k]);
	stats_client_close(c);
}

int
main(int argc, char **argv)
{
	static const unsigned threads[] = { 1, 2, 8 }, nks[] = { 1, 1000 };
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
	const char *statsd = argc > 2 ? argv[2] : STATSD_PATH;
	uint64_t drained = 0, drain_ns = 0;
	struct bench_statsd d;
	double local;
	int id = 0;
	size_t t, k, m;

	if (n == 0)
		n = 1000000;
	/* ns per in-process update of a local blob of the same template. */
	local = bench_sum_update_ns(SUM_TPL, 10 * n, 3);
	/* Room for the kstats of every row; a fast tick for the self
	 * kstat's counters. Everything else is statsd's default. */
	bench_statsd_start(&d, "bench_lossless", statsd, "max_kstats = 16384\n"
	    "arena_size = 256M\ndrain_interval_ms = 10\nlog_level = warning\n");
	printf("in-process stats_voi_update_abs_u64, local blob: %.2f ns\n\n",
	    local);
	printf("%-7s %-6s %-5s %10s %10s %10s %10s %9s %7s %7s %11s %9s "
	    "%s\n", "threads", "kstats", "mode", "pushed", "via ring",
	    "via spill", "dropped", "ns/update", "x local", "cpu ns",
	    "first (us)", "all (ms)", "exact");
	for (t = 0; t < 3; t++) {
		for (k = 0; k < 2; k++) {
			for (m = 0; m < 2; m++) {
				struct row rw = { threads[t], nks[k], m == 0, n };
				struct result res;
				int pfd[2];
				pid_t pid;

				if (pipe(pfd) < 0)
					exit(1);
				pid = fork();
				if (pid == 0) {
					close(pfd[0]);
					run_row(d.sock, &rw, id, &res);
					if (write(pfd[1], &res, sizeof(res)) < 0)
						_exit(1);
					_exit(0);
				}
				close(pfd[1]);
				memset(&res, 0, sizeof(res));
				if (read(pfd[0], &res, sizeof(res)) !=
				    (ssize_t)sizeof(res))
					res.pushed = 0;
				close(pfd[0]);
				waitpid(pid, NULL, 0);
				id++;
				printf("%-7u %-6u %-5s %10llu %10llu %10llu "
				    "%10llu %9.2f %7.2f %7.2f %11.1f %9.2f "
				    "%s\n", rw.threads, rw.nk, rw.spill ?
				    "spill" : "old",
				    (unsigned long long)res.pushed,
				    (unsigned long long)res.ring,
				    (unsigned long long)res.spilled,
				    (unsigned long long)res.dropped, res.ns,
				    res.ns / local, res.cpu_ns, res.first_us,
				    res.all_ms, res.ok ? "yes" : "NO");
				fflush(stdout);
				drained += res.drain_applied;
				drain_ns += res.drain_ns;
			}
		}
	}
	printf("\ndrain through the daemon's path: %.1f M updates/s of drain "
	    "time (%llu updates in %.1f ms)\n", drain_ns > 0 ?
	    (double)drained * 1e3 / (double)drain_ns : 0,
	    (unsigned long long)drained, (double)drain_ns / 1e6);
	printf("ns/update: the burst's wall time over all its updates; x "
	    "local: that over the in-process update; cpu ns: the producers' "
	    "CPU time per update;\nfirst: the burst's first update to "
	    "statsd's first applied one; all: its last update to all applied, "
	    "without a flush\n");
	bench_statsd_stop(&d);
	return 0;
}
