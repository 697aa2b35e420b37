/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * v_watch.c: `statsctl watch` — a streamed Scrape of flat kstats, one
 * reply every interval; counters as per-second rates over the snaptime
 * delta, gauges as their current values, as each statistic's kind says
 * (statsd marks the counters, from the kind table). A refreshing table
 * on a terminal, one line per statistic per report when piped.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "conn.h"
#include "flatreply.h"
#include "output.h"
#include "statsctl.h"

/* A previous value, to take the rate from. */
struct watch_prev {
	char	 key[160];
	double	 value;
	double	 snaptime;
};

struct watch {
	struct sc		*sc;
	struct watch_prev	*prev;		/* sorted by key */
	size_t			 nprev;
	struct watch_row	*rows;
	size_t			 nrows;
	size_t			 cap;
};

static int
watch_prev_cmp(const void *a, const void *b)
{
	return strcmp(((const struct watch_prev *)a)->key,
	    ((const struct watch_prev *)b)->key);
}

static const struct watch_prev *
watch_prev_find(const struct watch *w, const char *key)
{
	struct watch_prev k;

	snprintf(k.key, sizeof(k.key), "%s", key);
	return w->nprev == 0 ? NULL : bsearch(&k, w->prev, w->nprev,
	    sizeof(*w->prev), watch_prev_cmp);
}

static int
watch_row_add(struct watch *w, const struct watch_row *r)
{
	if (w->nrows == w->cap) {
		size_t nc = w->cap ? 2 * w->cap : 64;
		void *p = realloc(w->rows, nc * sizeof(*w->rows));

		if (p == NULL)
			return -1;
		w->rows = p;
		w->cap = nc;
	}
	w->rows[w->nrows++] = *r;
	return 0;
}

/* One report's rows, as they are made: each row's snaptime too. */
struct watch_report {
	struct watch	*w;
	double		*snaps;
	size_t		 cap;
};

/* A number of a flat statistic as watch computes with it: an integer
 * from its value, a fixed-point number from its exact decimal. */
static double
watch_number(const struct ksfmt_stat *st)
{
	if (st->type == KSFMT_INT)
		return (double)(int64_t)st->n;
	if (st->type == KSFMT_UINT)
		return (double)st->n;
	return strtod(st->value, NULL);
}

/* The rows of one kstat: its numbers (not strings, not arrays). */
static int
watch_kstat(const struct sc_flat *f, void *arg)
{
	struct watch_report *wr = arg;
	struct watch *w = wr->w;
	double snap = (double)f->hdr.snaptime / 1e9;
	size_t i;

	for (i = 0; i < f->n; i++) {
		const struct ksfmt_stat *st = &f->st[i];
		const struct watch_prev *p;
		struct watch_row r;
		double dt;

		if (st->type == KSFMT_STRING || st->type == KSFMT_ARRAY)
			continue;
		memset(&r, 0, sizeof(r));
		snprintf(r.key, sizeof(r.key), "%s:%d:%s:%s", f->hdr.module,
		    (int)f->hdr.instance, f->hdr.name, st->name);
		r.value = watch_number(st);
		r.counter = st->counter;
		if (r.counter) {
			p = watch_prev_find(w, r.key);
			dt = p != NULL ? snap - p->snaptime : 0;
			/* Unchanged since the last report: no rate. A
			 * counter that went down was reset. */
			if (dt > 0)
				r.rate = (r.value >= p->value ?
				    r.value - p->value : r.value) / dt;
		}
		if (watch_row_add(w, &r) < 0)
			return sc_error("out of memory");
		/* The snaptime rides in the previous-value list. */
		if (w->nrows > wr->cap) {
			double *ns = realloc(wr->snaps, w->cap *
			    sizeof(*ns));

			if (ns == NULL)
				return sc_error("out of memory");
			wr->snaps = ns;
			wr->cap = w->cap;
		}
		wr->snaps[w->nrows - 1] = snap;
	}
	return 0;
}

/*
 * The rows of one report from the pages of one scrape, as they stream
 * (a page with a cursor has more after it: *ret_done false); at the last
 * page, remember the report's values as the next report's previous ones.
 */
static int
watch_rows(struct watch *w, struct watch_report *wr, const json_t *reply,
    bool *ret_done)
{
	struct watch_prev *next;
	size_t j;
	int r;

	*ret_done = false;
	r = sc_flat_reply(reply, watch_kstat, wr);
	if (r != 0 || js_str(reply, "cursor", NULL) != NULL)
		return r;
	next = calloc(w->nrows > 0 ? w->nrows : 1, sizeof(*next));
	if (next == NULL)
		return sc_error("out of memory");
	for (j = 0; j < w->nrows; j++) {
		snprintf(next[j].key, sizeof(next[j].key), "%s",
		    w->rows[j].key);
		next[j].value = w->rows[j].value;
		next[j].snaptime = wr->snaps[j];
	}
	qsort(next, w->nrows, sizeof(*next), watch_prev_cmp);
	free(w->prev);
	w->prev = next;
	w->nprev = w->nrows;
	*ret_done = true;
	return 0;
}

/* watch's own options: -i, -n and -c. */
struct watch_opts {
	uint64_t	 ival;	/* ms */
	uint64_t	 count;	/* 0: never stop */
	const char	*cls;
};

static int
watch_opt(struct sc *sc, int c, const char *arg, void *ctx)
{
	struct watch_opts *wo = ctx;

	switch (c) {
	case 'i':
		return sc_parse_interval(sc, arg, &wo->ival);
	case 'n':
		if (sc_parse_uint(arg, 1, INT32_MAX - 1, &wo->count) < 0)
			return sc_usage(sc, "count '%s' must be at least 1",
			    arg);
		break;
	default:
		wo->cls = arg;
		break;
	}
	return 0;
}

static int
watch_run(struct sc *sc, int argc, char **argv)
{
	static const struct option opts[] = {
		SC_OPTS_OUTPUT,
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'n' },
		{ "class", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	enum sc_format fmt = SC_FMT_TEXT;
	struct watch w = { .sc = sc };
	struct watch_frame f;
	const struct output *out;
	struct timespec now;
	struct watch_opts wo = { 1000, 0, NULL };
	uint64_t ival, count;
	const char *cls;
	struct watch_report wr = { .w = &w };
	json_t *params, *reply;
	bool more = true, done = true;
	unsigned seq = 0;
	int r;

	if ((r = sc_getopt(sc, argc, argv, ":jpi:n:c:", opts, &fmt, watch_opt,
	    &wo)) != 0)
		return r;
	ival = wo.ival;
	count = wo.count;
	cls = wo.cls;
	if (argc - optind > 1)
		return sc_usage(sc, "one PATTERN at most");
	if (optind < argc && (r = sc_check_selector(sc, argv[optind])) != 0)
		return r;
	if (cls != NULL && (r = sc_check_class(sc, cls)) != 0)
		return r;
	out = sc_output(sc, fmt);
	params = json_pack("{s:s, s:I}", "format", "flat", "interval_ms",
	    (json_int_t)ival);
	if (optind < argc)
		json_object_set_new(params, "selector",
		    json_string(argv[optind]));
	if (cls != NULL)
		json_object_set_new(params, "class", json_string(cls));
	/* The first reply is the baseline; count reports follow it. */
	if (count > 0)
		json_object_set_new(params, "count", json_integer(
		    (json_int_t)count + 1));
	sc->subject = "watch";
	r = sc_stream_start(sc, VL_M_SCRAPE, params);
	while (r == 0 && more) {
		r = sc_stream_next(sc, (int)ival + SC_TIMEOUT_MS, &reply,
		    &more);
		if (r != 0)
			break;
		if (done)
			w.nrows = 0;	/* a new report */
		r = watch_rows(&w, &wr, reply, &done);
		json_decref(reply);
		if (r != 0 || !done || seq++ == 0)
			continue;
		clock_gettime(CLOCK_REALTIME, &now);
		memset(&f, 0, sizeof(f));
		f.wall = (double)now.tv_sec + (double)now.tv_nsec / 1e9;
		f.interval_ms = ival;
		f.seq = seq - 1;
		f.tty = fmt == SC_FMT_TEXT && sc->format == SC_FMT_TEXT &&
		    isatty(STDOUT_FILENO);
		f.rows = w.rows;
		f.nrows = w.nrows;
		out->watch(&f);
	}
	free(wr.snaps);
	free(w.rows);
	free(w.prev);
	return r;
}

const struct verb verb_watch = {
	.name = "watch",
	.run = watch_run,
	.usage = "watch [-j|-p] [-i SEC] [-n COUNT] [-c CLASS] [PATTERN]",
	.summary = "watch kstats change: counters as rates, gauges as values",
	.help =
	    "  PATTERN          module:instance:name:statistic, each field a\n"
	    "                   shell glob or /regex/ (default: everything)\n"
	    "  -i, --interval S seconds between reports (default 1; decimals\n"
	    "                   allowed; statsd's watch_min_interval_ms bounds)\n"
	    "  -n, --count N    stop after N reports (default: never)\n"
	    "  -c, --class PAT  only kstats whose class matches PAT\n"
	    "  -j, --json       one JSON object per report, one per line\n"
	    "  -p, --parseable  time<TAB>statistic<TAB>value<TAB>rate lines\n",
	.notes =
	    "Rates are per second over the change in each kstat's snaptime; a\n"
	    "terminal gets a table redrawn each report, a pipe plain lines\n"
	    "\"time statistic rate-or-value\".\n",
};
