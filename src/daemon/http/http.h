/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * http.h: the HTTP endpoint that serves /metrics to Prometheus and its
 * kin, from a thread of its own (libevent's evhttp): the exposition
 * (expo.h) in the Prometheus text format or OpenMetrics by the Accept
 * header, rendered a page at a time as the scraper takes it, so that a
 * slow scraper slows nobody else.
 */
#ifndef STATSD_HTTP_H
#define STATSD_HTTP_H

struct statsd;

/*
 * http_start: serve on fd (a listening TCP socket systemd passed), or
 * else on the address http_listen names ("" and fd < 0: no endpoint).
 * Returns: 0; -errno (logged).
 */
int http_start(struct statsd *d, int fd);

/* Publish the settings the HTTP thread reads (http_* keys, mapping
 * rules) as they are now: at a reload. Returns: 0; -ENOMEM (the old
 * ones stay). */
int http_reconfigure(struct statsd *d);

/* Stop serving; scrapes under way are cut. NULL-safe d->http. */
void http_stop(struct statsd *d);

#endif /* STATSD_HTTP_H */
