/*
 * v_watch.c: `statsctl watch` — a streamed Scrape, one reply every
 * interval; counters (sums, counts, I/O and timer totals) as per-second
 * rates over the snaptime delta, gauges (min, max, last, queue lengths)
 * as their current values. A refreshing table on a terminal, one line
 * per statistic per report when piped.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "conn.h"
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
	json_t			*chain;		/* kstats and their templates */
	json_t			*tpls;
	struct watch_prev	*prev;		/* sorted by key */
	size_t			 nprev;
	struct watch_row	*rows;
	size_t			 nrows;
	size_t			 cap;
};

/* kstat_io and kstat_timer fields: which add up (counters). */
static const struct {
	const char	*name;
	bool		 counter;
} watch_fields[] = {
	{ "nread", true }, { "nwritten", true }, { "reads", true },
	{ "writes", true }, { "wtime", true }, { "wlentime", true },
	{ "rtime", true }, { "rlentime", true }, { "wlastupdate", false },
	{ "rlastupdate", false }, { "wcnt", false }, { "rcnt", false },
	{ "num_events", true }, { "elapsed_time", true },
	{ "min_time", false }, { "max_time", false },
	{ "start_time", false }, { "stop_time", false },
	{ "sum", true }, { "count", true }, { "min", false },
	{ "max", false }, { "last", false },
};

/* A scraped kstat's entry in the chain as it was when watch began, or
 * NULL. */
static const json_t *
watch_chain_entry(const struct watch *w, const json_t *ks)
{
	const json_t *list = json_object_get(w->chain, "kstats");
	size_t i;

	for (i = 0; i < json_array_size(list); i++) {
		const json_t *c = json_array_get(list, i);

		if (js_int(c, "instance", -1) == js_int(ks, "instance", -2) &&
		    strcmp(js_str(c, "module", ""), js_str(ks, "module",
		    "")) == 0 && strcmp(js_str(c, "name", ""), js_str(ks,
		    "name", "")) == 0)
			return c;
	}
	return NULL;
}

/* A bare VOI name of a NAMED or INTR kstat: a counter unless its VOI
 * keeps a LAST (then it is a gauge, as is anything unknown). */
static bool
watch_bare_counter(const struct watch *w, const json_t *ks, const char *voi)
{
	const json_t *tpls = json_object_get(w->tpls, "templates");
	const char *spec = js_str(watch_chain_entry(w, ks), "template", NULL);
	size_t i, j, k;
	for (i = 0; spec != NULL && i < json_array_size(tpls); i++) {
		const json_t *t = json_array_get(tpls, i);
		const json_t *vois = json_object_get(t, "vois");

		if (strcmp(js_str(t, "spec", ""), spec) != 0)
			continue;
		for (j = 0; j < json_array_size(vois); j++) {
			const json_t *v = json_array_get(vois, j);
			const json_t *sts = json_object_get(v, "stats");
			bool last = false;

			if (strcmp(js_str(v, "name", ""), voi) != 0)
				continue;
			for (k = 0; k < json_array_size(sts); k++)
				last |= strcmp(js_str(json_array_get(sts, k),
				    "kind", ""), "LAST") == 0;
			return !last;
		}
	}
	return false;
}

static bool
watch_is_counter(const struct watch *w, const json_t *ks, const char *stat)
{
	const char *dot = strrchr(stat, '.');
	const char *field = dot != NULL ? dot + 1 : stat;
	size_t i;

	for (i = 0; i < sizeof(watch_fields) / sizeof(watch_fields[0]); i++)
		if (strcmp(watch_fields[i].name, field) == 0)
			return watch_fields[i].counter;
	return dot == NULL && watch_bare_counter(w, ks, stat);
}

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

/* The rows of one report from a Scrape reply; then remember its values
 * as the next report's previous ones. snaps[i] is row i's snaptime. */
static int
watch_rows(struct watch *w, const json_t *reply)
{
	const json_t *kstats = json_object_get(reply, "kstats");
	struct watch_prev *next;
	double *snaps = NULL;
	size_t i, j;

	w->nrows = 0;
	for (i = 0; i < json_array_size(kstats); i++) {
		const json_t *ks = json_array_get(kstats, i);
		const json_t *data = json_object_get(ks, "data"), *v;
		double snap = js_num(ks, "snaptime", 0);
		const char *stat;

		json_object_foreach((json_t *)data, stat, v) {
			struct watch_row r;
			const struct watch_prev *p;
			double dt;

			if (!json_is_number(v) || strcmp(stat, "crtime") == 0 ||
			    strcmp(stat, "snaptime") == 0)
				continue;
			memset(&r, 0, sizeof(r));
			snprintf(r.key, sizeof(r.key), "%s:%lld:%s:%s",
			    js_str(ks, "module", "?"), js_int(ks, "instance",
			    0), js_str(ks, "name", "?"), stat);
			r.value = json_number_value(v);
			r.counter = watch_is_counter(w, ks, stat);
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
			snaps = realloc(snaps, w->nrows * sizeof(*snaps));
			if (snaps == NULL)
				return sc_error("out of memory");
			snaps[w->nrows - 1] = snap;
		}
	}
	next = calloc(w->nrows > 0 ? w->nrows : 1, sizeof(*next));
	if (next == NULL) {
		free(snaps);
		return sc_error("out of memory");
	}
	for (j = 0; j < w->nrows; j++) {
		snprintf(next[j].key, sizeof(next[j].key), "%s",
		    w->rows[j].key);
		next[j].value = w->rows[j].value;
		next[j].snaptime = snaps[j];
	}
	free(snaps);
	qsort(next, w->nrows, sizeof(*next), watch_prev_cmp);
	free(w->prev);
	w->prev = next;
	w->nprev = w->nrows;
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
		if (sc_parse_seconds(arg, 1, 3600000, &wo->ival) < 0)
			return sc_usage(sc, "interval '%s' must be seconds, "
			    "0.001 to 3600", arg);
		break;
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
	json_t *params, *reply;
	bool more = true;
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
	/* What is a counter needs the templates: ask before the stream. */
	r = sc_call(sc, VL_M_CHAIN, NULL, &w.chain);
	if (r == 0)
		r = sc_call(sc, VL_M_TEMPLATE_LIST, NULL, &w.tpls);
	if (r != 0)
		goto done;
	params = json_pack("{s:s, s:I}", "format", "json", "interval_ms",
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
		r = watch_rows(&w, reply);
		json_decref(reply);
		if (r != 0 || seq++ == 0)
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
done:
	free(w.rows);
	free(w.prev);
	json_decref(w.chain);
	json_decref(w.tpls);
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
