/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * expo.h: the Prometheus and OpenMetrics exposition of statsd's kstats,
 * in pages, shared by the Scrape method (statsctl scrape) and the HTTP
 * endpoint (http.c). A family's series must come together, and series
 * of one family come from every kstat whose names give the same stem
 * (render_prom.h); kstat(1M)'s order (module, instance, name) scatters
 * them. So the exposition walks a reader's index of the kstats in stem
 * order (rview.h), read from the store as any reader reads it, never
 * from the writer's tables: the HTTP thread runs it beside the event
 * loop. A page resumes after the last stem it sent, whatever changed
 * meanwhile.
 */
#ifndef STATSD_EXPO_H
#define STATSD_EXPO_H

#include <stdbool.h>
#include <stdint.h>

#include <statsd/kstat.h>

#include "kstat_hdr.h"
#include "render_prom.h"
#include "rights.h"

struct ks_selector;
struct expo_totals;
struct ks_pattern;
struct pub_reader;
struct rview;

/* Where an exposition reads: a reader's view of the store, the read
 * section of its thread (NULL: the writer's own loop, which needs none),
 * the mapping rules and summary quantiles of its start (read only by
 * expo_init()), and the totals to count in (NULL: none). */
struct expo_src {
	struct rview		*rv;
	struct pub_reader	*rd;
	const struct prom_rules	*rules;
	const char		*quantiles;
	struct expo_totals	*totals;
};

/* One exposition under way: what to show, and where it is. A group is a
 * stem with the stems that extend it at a '_' (expo.c). */
struct expo {
	struct expo_src			 src;
	const struct peer		*peer;	/* whose view (view.h) */
	const struct ks_selector	*sel;	/* NULL: all */
	const struct ks_pattern		*cls;	/* NULL: all */
	struct prom_out			 out;
	double				 q[PROM_QUANTILES_MAX];
	char				 after[PROM_NAME_MAX]; /* "": start */
	bool				 done;
	/* Inside a stem of several kstats (mid), where the last page
	 * ended: the stem, the family of the pass, the least family above
	 * it seen so far in the pass, the family's type if its HELP and
	 * TYPE went out (0: not yet), and the last kstat rendered. */
	bool				 mid;
	char				 cur[PROM_NAME_MAX];
	char				 fam[PROM_NAME_MAX];
	char				 next[PROM_NAME_MAX];
	uint8_t				 famtype;
	char				 lstem[PROM_NAME_MAX];
	char				 lmod[KSTAT_STRLEN];
	char				 lname[KSTAT_STRLEN];
	int32_t				 linst;
	uint64_t			 kstats, series;
	uint64_t			 skipped;	/* not renderable */
	struct kstat_hdr		 kh;		/* the kstat looked at */
	/* The protobuf format (expo_set_protobuf()): pages are rendered
	 * as text into out.buf, then read into messages in dest. */
	struct expo_pb			*pb;
	struct sbuf			*dest;
};

/* An exposition from src into buf for peer. Returns: 0; -ENOMEM.
 * expo_done() frees it. */
int expo_init(struct expo *e, const struct expo_src *src, struct sbuf *buf,
    bool om, const struct peer *peer);
void expo_done(struct expo *e);

/*
 * expo_set_protobuf: make e's pages Prometheus' delimited protobuf
 * MetricFamily messages (expo_pb.h), native histograms included, into
 * the buffer given to expo_init(). Returns: 0; -ENOMEM; -ENOTSUP in a
 * statsd built without protobuf-c.
 */
int expo_set_protobuf(struct expo *e);

/*
 * expo_page: render stems after e->after into e->out.buf until it holds
 * about bytes more, or work units are spent (a stem at least); e->done
 * at the end, when OpenMetrics' "# EOF" is written too. What could not be
 * rendered is counted in e->skipped and in the daemon's own kstat.
 * Returns: 0; -ENOMEM.
 */
int expo_page(struct expo *e, size_t bytes, uint64_t units);

/*
 * Where the next page goes on, as text (a Scrape's cursor after "prom:"),
 * and back. expo_cursor_set() returns: 0; -EINVAL for a text that is not
 * one.
 */
#define EXPO_CURSOR_MAX	(4 * PROM_NAME_MAX + 2 * KSTAT_STRLEN + 40)
void expo_cursor(const struct expo *e, char *buf, size_t len);
int expo_cursor_set(struct expo *e, const char *c);

#endif /* STATSD_EXPO_H */
