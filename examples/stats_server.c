/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stats_server.c: a server that keeps its request statistics with the
 * stats(3) API, published through statsd so that statsctl and scrapers see
 * them. Each "request" has a latency and a size; the blob keeps their sums,
 * extremes, a latency histogram and a t-digest.
 *
 *   stats_server [SOCKET [REQUESTS]]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <statsd/client.h>
#include <statsd/stats.h>

enum { VOI_LATENCY, VOI_BYTES };

int
main(int argc, char **argv)
{
	struct voistatspec lat[] = {
		STATS_VSS_SUM(), STATS_VSS_MIN(), STATS_VSS_MAX(),
		STATS_VSS_CRHIST64_EXP(1, 100000, 2, 1, VSD_HIST_UBOUND_INF),
		STATS_VSS_TDGSTCLUST64(64, 0),
	};
	struct voistatspec bytes[] = { STATS_VSS_SUM(), STATS_VSS_MAX() };
	long n = argc > 2 ? atol(argv[2]) : 100000, i;
	stats_client_t *c;
	struct statsblob *sb;
	struct sbuf *out;
	double p99 = 0;
	int tpl;

	c = stats_client_open(argc > 1 ? argv[1] : NULL, 0);
	if (c == NULL) {
		fprintf(stderr, "stats_server: no statsd: %s\n",
		    strerror(errno));
		return 1;
	}
	tpl = stats_tpl_alloc("example_server", 0);
	if (tpl < 0 || stats_tpl_add_voistats((uint32_t)tpl, VOI_LATENCY,
	    "latency_us", VSD_DTYPE_INT_U64, NVSS(lat), lat, 0) != 0 ||
	    stats_tpl_add_voistats((uint32_t)tpl, VOI_BYTES, "bytes",
	    VSD_DTYPE_INT_U64, NVSS(bytes), bytes, 0) != 0) {
		fprintf(stderr, "stats_server: template refused\n");
		return 1;
	}
	/* The blob is statsd's: statsctl shows example:0:server. */
	sb = stats_blob_publish(c, tpl, "example", 0, "server", "app", 0);
	if (sb == NULL) {
		fprintf(stderr, "stats_server: %s\n", stats_client_strerror(c));
		return 1;
	}
	srandom(1);
	for (i = 0; i < n; i++) {
		/* Serve a request; each update is a ring record. */
		uint64_t us = 50 + (uint64_t)(random() % 1000) *
		    (random() % 100 == 0 ? 50 : 1);

		stats_voi_update_abs_u64(sb, VOI_LATENCY, us);
		stats_voi_update_abs_u64(sb, VOI_BYTES, 512 + random() % 4096);
	}
	if (stats_client_flush(c, 5000) != 0)
		fprintf(stderr, "stats_server: flush timed out\n");
	/* Read statsd's blob in place. */
	stats_voistat_fetch_quantile(sb, VOI_LATENCY, VS_STYPE_TDGST, 0.99,
	    &p99);
	printf("%ld requests, p99 latency %.0f us, %llu dropped\n", n, p99,
	    (unsigned long long)stats_client_dropped(c));
	out = sbuf_new_auto();
	stats_blob_tostr(sb, out, SB_STRFMT_JSON, SB_TOSTR_META);
	sbuf_finish(out);
	printf("%.300s...\n", sbuf_data(out));
	sbuf_delete(out);
	stats_client_close(c);
	return 0;
}
