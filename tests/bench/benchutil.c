/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * benchutil.c: the clock, the SUM template and its local update, and a
 * statsd of the benchmark's own (benchutil.h).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <statsd/stats.h>

#include "benchutil.h"

static uint64_t
ts_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t
bench_now_ns(void)
{
	return ts_ns(CLOCK_MONOTONIC);
}

uint64_t
bench_cpu_ns(void)
{
	return ts_ns(CLOCK_THREAD_CPUTIME_ID);
}

void
bench_sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

/* ------------------------------------------------- the SUM template */

int
bench_sum_tpl(const char *name)
{
	static int tpl = -1;
	struct voistatspec sum[] = { STATS_VSS_SUM() };

	if (tpl >= 0)
		return tpl;
	tpl = stats_tpl_alloc(name, 0);
	if (tpl < 0 || stats_tpl_add_voistats((uint32_t)tpl, 0, "n",
	    VSD_DTYPE_INT_U64, 1, sum, 0) != 0) {
		fprintf(stderr, "%s: cannot make the template\n", name);
		exit(1);
	}
	return tpl;
}

double
bench_sum_update_ns(const char *name, uint64_t n, unsigned reps)
{
	struct statsblob *sb = stats_blob_alloc((uint32_t)bench_sum_tpl(name),
	    0);
	double best = 1e9;
	unsigned rep;

	for (rep = 0; rep < reps; rep++) {
		uint64_t i, t0 = bench_now_ns(), t;

		for (i = 0; i < n; i++)
			(void)stats_voi_update_abs_u64(sb, 0, i & 1023);
		__asm__ volatile("" : : "r"(sb) : "memory");
		t = bench_now_ns() - t0;
		if ((double)t / (double)n < best)
			best = (double)t / (double)n;
	}
	stats_blob_destroy(sb);
	return best;
}

/* ------------------------------------------------------------ statsd */

void
bench_statsd_stop(struct bench_statsd *d)
{
	char cmd[96];

	if (d->pid > 0) {
		kill(d->pid, SIGTERM);
		waitpid(d->pid, NULL, 0);
		d->pid = -1;
	}
	if (d->dir[0] == '\0')
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", d->dir);
	if (system(cmd) != 0)
		fprintf(stderr, "%s: cannot remove %s\n", d->who, d->dir);
	d->dir[0] = '\0';
}

static void
bench_statsd_fail(struct bench_statsd *d, const char *what)
{
	fprintf(stderr, "%s: %s\n", d->who, what);
	bench_statsd_stop(d);
	exit(1);
}

void
bench_statsd_start(struct bench_statsd *d, const char *who,
    const char *statsd, const char *conf)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char path[96], run[96], state[96];
	FILE *f;
	int i;

	d->who = who;
	d->pid = -1;
	snprintf(d->dir, sizeof(d->dir), "/tmp/%s.XXXXXX", who);
	if (mkdtemp(d->dir) == NULL) {
		perror("mkdtemp");
		d->dir[0] = '\0';
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/statsd.conf", d->dir);
	snprintf(run, sizeof(run), "%s/run", d->dir);
	snprintf(state, sizeof(state), "%s/state", d->dir);
	snprintf(d->sock, sizeof(d->sock), "%s/statsd.sock", run);
	if (strlen(d->sock) >= sizeof(sa.sun_path))
		bench_statsd_fail(d, "the socket's path is too long");
	f = fopen(path, "w");
	if (f == NULL)
		bench_statsd_fail(d, "cannot write the configuration");
	fputs(conf, f);
	fclose(f);
	d->pid = fork();
	if (d->pid == 0) {
		execl(statsd, statsd, "--foreground", "--config", path,
		    "--runtime-dir", run, "--state-dir", state, (char *)NULL);
		perror(statsd);
		_exit(127);
	}
	/* Up when its control socket takes a connection: 10 s at most. */
	memcpy(sa.sun_path, d->sock, strlen(d->sock) + 1);
	for (i = 0; i < 1000; i++) {
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);

		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
			close(fd);
			return;
		}
		close(fd);
		bench_sleep_us(10000);
	}
	bench_statsd_fail(d, "statsd did not start");
}
