/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * linux_server.c: an exploiter of the Linux statistics infrastructure,
 * like the zfcp driver it was written for: an interface with a
 * request-size list, a latency array, a fill-level range, a history of
 * queue utilisation and a counter. Users look at it with statsctl, whose
 * data and definition lines are the debugfs files of the original.
 *
 *   linux_server [REQUESTS]   (the socket: $STATSD_SOCKET)
 */
#include <stdio.h>
#include <stdlib.h>

#include <statsd/client.h>
#include <statsd/statistic.h>

int
main(int argc, char **argv)
{
	struct statistic_interface *iface = NULL;
	struct statistic *sizes = NULL, *lat = NULL, *pending = NULL,
	    *util = NULL, *erp = NULL;
	long n = argc > 1 ? atol(argv[1]) : 10000, i;
	int r;

	r = statistic_create_interface(&iface, "example-0.0.50d4");
	if (r == 0)
		r = statistic_create(&sizes, iface, "request_sizes_scsi_read",
		    "bytes/incidents");
	if (r == 0)
		r = statistic_create(&lat, iface, "latencies_scsi_read",
		    "ms/incidents");
	if (r == 0)
		r = statistic_create(&pending, iface, "pending_scsi_read",
		    "commands/incidents");
	if (r == 0)
		r = statistic_create(&util, iface, "util_qdio_outb",
		    "slots-occupied/incidents");
	if (r == 0)
		r = statistic_create(&erp, iface, "occurrence_erp",
		    "occurrences");
	/* Half-decent defaults, as Linux asks of exploiters. */
	if (r == 0)
		r = statistic_define_list(sizes, 0, 1 << 20, 16);
	if (r == 0)
		r = statistic_define_array(lat, 0, 1024, 1,
		    STATISTIC_DEF_SCALE_LOG2);
	if (r == 0)
		r = statistic_define_range(pending, 0, 128);
	if (r == 0)
		r = statistic_define_history(util, 0, 127, 16, 1000000,
		    STATISTIC_DEF_MODE_RANGE);
	if (r < 0) {
		fprintf(stderr, "linux_server: %s\n",
		    stats_client_strerror(stats_client_default()));
		return 1;
	}
	/* Collecting by default here; usually left to the user. */
	statistic_start(sizes);
	statistic_start(lat);
	statistic_start(pending);
	statistic_start(util);
	statistic_start(erp);
	for (i = 0; i < n; i++) {
		statistic_inc(sizes, 4096L << (i % 4));
		statistic_inc(lat, 1 + (i * 7) % 300);
		statistic_inc(pending, i % 9);
		statistic_inc(util, (i * 13) % 128);
		if (i % 1000 == 0)
			statistic_inc(erp, 0);
	}
	stats_client_flush(stats_client_default(), 5000);
	printf("%ld requests reported; see statsctl linux:0:example-0.0.50d4\n",
	    n);
	return 0;
}
