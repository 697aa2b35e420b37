/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kstat_server.c: a storage-server-like provider of illumos kstats and a
 * Solaris kstat2 histogram: a NAMED kstat of counters, an IO kstat fed by
 * queue events, an event timer and a latency histogram, all through statsd.
 *
 *   kstat_server [IOS]      (the socket is $STATSD_SOCKET)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <statsd/client.h>
#include <statsd/kstat.h>

static void
nap(long us)
{
	struct timespec ts = { 0, us * 1000 };

	nanosleep(&ts, NULL);
}

int
main(int argc, char **argv)
{
	const char *pseg[] = { "disk", "example", "0", "latency" };
	long n = argc > 1 ? atol(argv[1]) : 1000, i;
	kstat_t *named, *io, *tm;
	kstat_named_t *kn;
	kstat_timer_t *kt;
	kstat2_t *hist;

	named = kstat_create("example", 0, "counters", "misc",
	    KSTAT_TYPE_NAMED, 2, 0);
	io = kstat_create("example", 0, "disk0", "disk", KSTAT_TYPE_IO, 1, 0);
	tm = kstat_create("example", 0, "flush", "misc", KSTAT_TYPE_TIMER, 1,
	    0);
	hist = kstat2_create_histogram(pseg, 4, ALL_ZONES, KSTAT2_NVHIST_LOG2,
	    KSTAT2_NVMT_T_REL, 1000, KSTAT2_NVMF_FRACT, NULL, 0, 0, 0, 0, 0,
	    "I/O latency in ns", KSTAT2_MF_NONE);
	if (named == NULL || io == NULL || tm == NULL || hist == NULL) {
		perror("kstat_server: create");
		return 1;
	}
	kn = KSTAT_NAMED_PTR(named);
	kstat_named_init(&kn[0], "requests", KSTAT_DATA_UINT64);
	kstat_named_init(&kn[1], "queue_limit", KSTAT_DATA_INT32);
	kt = KSTAT_TIMER_PTR(tm);
	kstat_timer_init(&kt[0], "flush");
	kstat_install(named);
	kstat_install(io);
	kstat_install(tm);
	kstat2_install(hist);

	kstat_named_set(named, &kn[1], 64);
	for (i = 0; i < n; i++) {
		struct timespec a, b;

		clock_gettime(CLOCK_MONOTONIC, &a);
		kstat_named_add(named, &kn[0], 1);
		kstat_waitq_enter(KSTAT_IO_PTR(io));	/* request queued */
		kstat_waitq_to_runq(KSTAT_IO_PTR(io));	/* sent to the disk */
		nap(100);
		kstat_runq_exit(KSTAT_IO_PTR(io));	/* done */
		if (i % 3 == 0)
			kstat_io_write(KSTAT_IO_PTR(io), 4096);
		else
			kstat_io_read(KSTAT_IO_PTR(io), 8192);
		clock_gettime(CLOCK_MONOTONIC, &b);
		kstat2_hist_add_value(hist, (uint64_t)((b.tv_sec - a.tv_sec) *
		    1000000000L + (b.tv_nsec - a.tv_nsec)));
		if (i % 100 == 99) {
			kstat_timer_start(&kt[0]);
			nap(300);
			kstat_timer_stop(&kt[0]);
		}
	}
	stats_client_flush(stats_client_default(), 5000);
	printf("%ld I/Os; read them with kstat_reader or statsctl\n", n);
	return 0;
}
