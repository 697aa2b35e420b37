/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * demo_producer.c: a small application feeding statsd, for tools/run.sh
 * and the manual pages' EXAMPLES, written as any application would be:
 * on the public headers and libstatsclient alone.
 *
 * It defines a FreeBSD stats(3) template, publishes a blob of it as the
 * kstat demo:0:web (stats_blob_publish()), and updates it with the
 * stats(3) calls, which travel to statsd over the thread's ring: a
 * simulated web server's requests, latencies and queue length, forever.
 * libstatsclient reconnects if statsd restarts and hands the ring back,
 * so nothing pushed meanwhile is lost.
 *
 * usage: demo_producer SOCKET [--exit-with-parent]
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include <statsd/client.h>
#include <statsd/stats.h>

enum { V_REQUESTS, V_LATENCY, V_QUEUE, V_QUEUE_WAIT };

/*
 * The template: requests (a sum and a count), the latency in µs (sum,
 * range, a histogram of 1 ms buckets and a t-digest), the queue length
 * (its last value) and the time spent queued as a Linux statistic, off
 * until `statsctl define` and `statsctl on` make it something (see
 * statsctl(8) EXAMPLES).
 */
static int
demo_template(void)
{
	struct voistatspec req[] = { STATS_VSS_SUM(), STATS_VSS_COUNT() };
	struct voistatspec lat[] = {
		STATS_VSS_SUM(), STATS_VSS_MIN(), STATS_VSS_MAX(),
		STATS_VSS_CRHIST64_LIN(0, 10000, 1000, 0),
		STATS_VSS_TDGSTCLUST64(64, 0),
	};
	struct voistatspec queue[] = { STATS_VSS_LAST() };
	struct voistatspec wait[] = { STATS_VSS_DEFN("ms/requests") };
	int id = stats_tpl_alloc("demo", 0);

	if (id < 0)
		return id;
	if (stats_tpl_add_voistats((uint32_t)id, V_REQUESTS, "requests",
	    VSD_DTYPE_INT_U64, NVSS(req), req, 0) != 0 ||
	    stats_tpl_add_voistats((uint32_t)id, V_LATENCY, "latency_us",
	    VSD_DTYPE_INT_U64, NVSS(lat), lat, 0) != 0 ||
	    stats_tpl_add_voistats((uint32_t)id, V_QUEUE, "queue",
	    VSD_DTYPE_INT_S64, NVSS(queue), queue, 0) != 0 ||
	    stats_tpl_add_voistats((uint32_t)id, V_QUEUE_WAIT, "queue_wait",
	    VSD_DTYPE_INT_S64, NVSS(wait), wait, 0) != 0)
		return -EINVAL;
	return id;
}

static void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

int
main(int argc, char **argv)
{
	unsigned seed = (unsigned)time(NULL);
	struct voistatdata_numeric x;
	struct statsblob *web;
	stats_client_t *c;
	uint64_t sent = 0;
	long queue = 0;
	int tpl;

	if (argc < 2) {
		fprintf(stderr, "usage: demo_producer SOCKET "
		    "[--exit-with-parent]\n");
		return 2;
	}
	if (argc > 2 && strcmp(argv[2], "--exit-with-parent") == 0)
		prctl(PR_SET_PDEATHSIG, SIGTERM);
	setvbuf(stdout, NULL, _IOLBF, 0);
	tpl = demo_template();
	if (tpl < 0) {
		fprintf(stderr, "demo: template: %s\n", strerror(-tpl));
		return 1;
	}
	/* statsd may not be up yet: connect in the background. */
	c = stats_client_open(argv[1], STATS_CLIENT_LAZY |
	    STATS_CLIENT_RING_LOG2(14));
	if (c == NULL) {
		fprintf(stderr, "demo: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	while ((web = stats_blob_publish(c, tpl, "demo", 0, "web", "demo",
	    0)) == NULL) {
		if (errno != ENOTCONN && errno != ETIMEDOUT &&
		    errno != ENOENT && errno != ECONNREFUSED) {
			fprintf(stderr, "demo: publish: %s (%s)\n",
			    strerror(errno), stats_client_strerror(c));
			return 1;
		}
		sleep_ms(200);
	}
	printf("demo: feeding demo:0:web\n");
	for (;;) {
		int i, burst = 1 + rand_r(&seed) % 20;

		for (i = 0; i < burst; i++) {
			/* A latency of 200..2200 µs, now and then a slow
			 * one. */
			uint64_t lat = 200 + (uint64_t)(rand_r(&seed) % 2000) +
			    (rand_r(&seed) % 50 == 0 ? 7000 : 0);

			(void)stats_voi_update_abs_u64(web, V_REQUESTS, 1);
			(void)stats_voi_update_abs_u64(web, V_LATENCY, lat);
			sent++;
		}
		queue += rand_r(&seed) % 5 - 2;
		if (queue < 0)
			queue = 0;
		(void)stats_voi_update_abs_s64(web, V_QUEUE, queue);
		/* Each request of the burst waited about as many ms as the
		 * queue is long: one (X, Y) update, X the wait, Y the
		 * requests. */
		x = stats_ctor_vsd_numeric((uint64_t)queue);
		(void)stats_voi_update_xy(web, V_QUEUE_WAIT,
		    VSD_DTYPE_INT_S64, &x, (uint64_t)burst, 0);
		if (sent % 1000 < (uint64_t)burst)
			printf("demo: %llu requests, %llu dropped\n",
			    (unsigned long long)sent,
			    (unsigned long long)stats_client_dropped(c));
		sleep_ms(10);
	}
}
