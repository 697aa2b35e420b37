/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * expo_pb.h: the exposition in Prometheus' protobuf format (delimited
 * io.prometheus.client.MetricFamily messages, metrics.proto), the one
 * that carries native histograms. It is made from the text format 0.0.4
 * that render_prom.c writes, page by page: a family's HELP, TYPE and
 * samples become one message, a histogram's _bucket, _sum and _count
 * lines of one label set one Metric, and the "# NATIVE" lines that
 * render_prom.c adds for the scrapes asking for it (prom_out.native) its
 * native buckets. A family cut by a page stays open for the next.
 */
#ifndef STATSD_EXPO_PB_H
#define STATSD_EXPO_PB_H

#include <stdbool.h>
#include <stddef.h>

#include <statsd/sbuf.h>

struct expo_pb;

/* Is the protobuf format built in (protobuf-c was there at build)? */
bool expo_pb_available(void);

/* Returns: 0; -ENOMEM; -ENOTSUP without protobuf-c. */
int expo_pb_new(struct expo_pb **ret);
void expo_pb_free(struct expo_pb *pb);

/*
 * expo_pb_feed: the whole lines of text (len bytes) into out, as
 * delimited messages of the families they end; the last family stays
 * open. Returns: 0; -ENOMEM; -EINVAL for a line it cannot read (the
 * rest is left out).
 */
int expo_pb_feed(struct expo_pb *pb, const char *text, size_t len,
    struct sbuf *out);

/* The open family, if any, into out. Returns: 0; -ENOMEM. */
int expo_pb_end(struct expo_pb *pb, struct sbuf *out);

#endif /* STATSD_EXPO_PB_H */
