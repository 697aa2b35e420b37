/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * benchutil.h: what the benchmarks share — the monotonic clock in ns, one
 * template of one SUM VOI with the in-process update every ratio is taken
 * against, and a statsd of a benchmark's own on a temporary directory.
 */
#ifndef STATSD_BENCHUTIL_H
#define STATSD_BENCHUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* CLOCK_MONOTONIC and the calling thread's CPU time, in ns. */
uint64_t bench_now_ns(void);
uint64_t bench_cpu_ns(void);

/* Sleep us microseconds. */
void bench_sleep_us(long us);

/*
 * bench_sum_tpl: a template called name of one SUM VOI ("n", INT_U64),
 * made on the first call (a forked child inherits it); exits if it
 * cannot be made.
 * Returns: its id.
 */
int bench_sum_tpl(const char *name);

/*
 * bench_sum_update_ns: ns per stats_voi_update_abs_u64() of n updates on
 * a local blob of bench_sum_tpl(name), the best of reps runs.
 */
double bench_sum_update_ns(const char *name, uint64_t n, unsigned reps);

/* A statsd the benchmark started: its pid, temporary directory, socket. */
struct bench_statsd {
	const char	*who;		/* the benchmark, for messages */
	pid_t		 pid;		/* -1: none running */
	char		 dir[64];
	char		 sock[108];
};

/*
 * bench_statsd_start: start statsd (the binary path) in the foreground on
 * a new temporary directory, its configuration file holding conf, and
 * wait until its control socket answers; exits on failure.
 */
void bench_statsd_start(struct bench_statsd *d, const char *who,
    const char *statsd, const char *conf);

/* Stop it (SIGTERM, wait) and remove its directory. */
void bench_statsd_stop(struct bench_statsd *d);

#endif
