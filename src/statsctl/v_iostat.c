/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * v_iostat.c: `statsctl iostat` — illumos iostat(8)'s -x and -xn
 * reports of I/O kstats (KSTAT_TYPE_IO): statsd sends each kstat's
 * kstat_io_t fields as flat statistics (Scrape's flat format), and
 * iostat.c computes the figures. As iostat does, the first report covers
 * each kstat's life since its creation; with an interval, each later one
 * the change since the report before, over the change in snaptime.
 */
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <statsd/sbuf.h>

#include "conn.h"
#include "flatreply.h"
#include "iostat.h"
#include "kstat_hdr.h"
#include "output.h"
#include "statsctl.h"

/* One I/O kstat of a report. */
struct io_dev {
	char			key[2 * KSTAT_STRLEN + 16];	/* m:i:n */
	char			name[KSTAT_STRLEN];
	struct iostat_sample	s;
};

struct io_report {
	struct sc	*sc;
	bool		 xn;		/* -n: iostat -xn's columns */
	struct io_dev	*devs;		/* this report's, as they came */
	size_t		 ndevs, cap;
	struct io_dev	*prev;		/* the report before, by key */
	size_t		 nprev;
	bool		 matched;	/* an I/O kstat in some report */
};

static int
io_dev_cmp(const void *a, const void *b)
{
	return strcmp(((const struct io_dev *)a)->key,
	    ((const struct io_dev *)b)->key);
}

/* kstat_io_t's fields as statsd names them (stat_ioq.c), where each one
 * goes in the sample. */
static const struct {
	const char	*name;
	size_t		 off;
	size_t		 size;
} io_fields[] = {
#define IO_FIELD(f) \
	{ #f, offsetof(kstat_io_t, f), sizeof(((kstat_io_t *)0)->f) }
	IO_FIELD(nread), IO_FIELD(nwritten), IO_FIELD(reads),
	IO_FIELD(writes), IO_FIELD(wtime), IO_FIELD(wlentime),
	IO_FIELD(wlastupdate), IO_FIELD(rtime), IO_FIELD(rlentime),
	IO_FIELD(rlastupdate), IO_FIELD(wcnt), IO_FIELD(rcnt),
#undef IO_FIELD
};
#define IO_NFIELDS	(sizeof(io_fields) / sizeof(io_fields[0]))

/* Store v in the field of io at off, of size bytes (a 32- or 64-bit
 * integer: kstat_io_t has no other). */
static void
io_store(kstat_io_t *io, size_t off, size_t size, uint64_t v)
{
	char *p = (char *)io + off;

	if (size == sizeof(uint32_t)) {
		uint32_t u = (uint32_t)v;

		memcpy(p, &u, sizeof(u));
	} else {
		memcpy(p, &v, sizeof(v));
	}
}

/* One kstat of a reply: an I/O kstat joins the report. */
static int
io_kstat(const struct sc_flat *f, void *arg)
{
	struct io_report *rep = arg;
	struct io_dev d;
	size_t i, j, found = 0;

	if (f->hdr.type != KSTAT_TYPE_IO)
		return 0;
	memset(&d, 0, sizeof(d));
	snprintf(d.key, sizeof(d.key), "%s:%d:%s", f->hdr.module,
	    (int)f->hdr.instance, f->hdr.name);
	snprintf(d.name, sizeof(d.name), "%s", f->hdr.name);
	d.s.crtime = f->hdr.crtime;
	d.s.snaptime = f->hdr.snaptime;
	for (i = 0; i < IO_NFIELDS; i++) {
		for (j = 0; j < f->n; j++) {
			const struct ksfmt_stat *st = &f->st[j];

			if (strcmp(st->name, io_fields[i].name) != 0)
				continue;
			if (st->type != KSFMT_UINT && st->type != KSFMT_INT)
				return sc_error("statsd sent %s's %s as a %s, "
				    "not an integer", d.key, st->name,
				    st->type < KSFMT_NTYPES ?
				    ksfmt_type_names[st->type] : "?");
			io_store(&d.s.io, io_fields[i].off,
			    io_fields[i].size, st->n);
			found++;
			break;
		}
	}
	if (found != IO_NFIELDS)
		return sc_error("statsd sent the I/O kstat %s without its "
		    "kstat_io fields", d.key);
	if (rep->ndevs == rep->cap) {
		size_t nc = rep->cap ? 2 * rep->cap : 16;
		void *p = realloc(rep->devs, nc * sizeof(*rep->devs));

		if (p == NULL)
			return sc_error("out of memory");
		rep->devs = p;
		rep->cap = nc;
	}
	rep->devs[rep->ndevs++] = d;
	return 0;
}

/* The previous sample of d's kstat, if it is the same kstat (a kstat
 * made again since has another crtime: its report starts afresh). */
static const struct iostat_sample *
io_prev(const struct io_report *rep, const struct io_dev *d)
{
	const struct io_dev *p;

	if (rep->nprev == 0)
		return NULL;
	p = bsearch(d, rep->prev, rep->nprev, sizeof(*rep->prev),
	    io_dev_cmp);
	return p != NULL && p->s.crtime == d->s.crtime ? &p->s : NULL;
}

/* Print the report, then keep its samples for the next one. */
static int
io_print(struct io_report *rep)
{
	struct sbuf *buf;
	struct iostat_figures fig;
	size_t i, len;
	int width = 6, r = 0;

	/* Nothing matched: no report; the caller says so. */
	if (rep->ndevs == 0 && !rep->matched)
		return 0;
	buf = sbuf_new_auto();
	if (buf == NULL)
		return sc_error("out of memory");
	for (i = 0; i < rep->ndevs; i++) {
		len = strlen(rep->devs[i].name);
		if (len > (size_t)width)
			width = (int)len;
	}
	/* illumos iostat titles each report so. */
	if (rep->xn) {
		sbuf_cat(buf, "                    extended device "
		    "statistics\n");
		iostat_format_xn_header(buf);
	} else {
		sbuf_printf(buf, "%*sextended device statistics\n",
		    width + 12, "");
		iostat_format_x_header(buf, width);
	}
	for (i = 0; i < rep->ndevs; i++) {
		const struct io_dev *d = &rep->devs[i];

		iostat_compute(io_prev(rep, d), &d->s, 1, &fig);
		if (rep->xn)
			iostat_format_xn(buf, d->name, &fig);
		else
			iostat_format_x(buf, d->name, width, &fig);
	}
	if (sbuf_finish(buf) != 0)
		r = sc_error("out of memory");
	else
		fwrite(sbuf_data(buf), 1, (size_t)sbuf_len(buf), stdout);
	fflush(stdout);
	sbuf_delete(buf);
	if (r != 0)
		return r;
	free(rep->prev);
	rep->prev = rep->devs;
	rep->nprev = rep->ndevs;
	qsort(rep->prev, rep->nprev, sizeof(*rep->prev), io_dev_cmp);
	rep->devs = NULL;
	rep->ndevs = rep->cap = 0;
	rep->matched = rep->matched || rep->nprev > 0;
	return 0;
}

/* Is s an interval or a count (digits, at most one '.'), not a selector? */
static bool
io_is_number(const char *s)
{
	bool dot = false;

	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++) {
		if (*s == '.' && !dot)
			dot = true;
		else if (*s < '0' || *s > '9')
			return false;
	}
	return true;
}

/* A pattern of kstats: a statistic field would leave out some of the
 * kstat_io fields every figure needs. */
static int
io_check_selector(struct sc *sc, const char *text)
{
	struct ks_selector sel;
	struct input_error err;
	bool any;
	int r;

	if ((r = sc_check_selector(sc, text)) != 0)
		return r;
	memset(&err, 0, sizeof(err));
	if (ks_selector_parse(&sel, text, &err) < 0)
		return sc_error("out of memory");
	any = sel.f[KS_F_STATISTIC].any;
	ks_selector_done(&sel);
	if (!any)
		return sc_usage(sc, "'%s' names statistics: iostat takes "
		    "module:instance:name", text);
	return 0;
}

/* The report once (no interval): every page of one Scrape. */
static int
io_once(struct sc *sc, struct io_report *rep, json_t *params)
{
	int r = sc_flat_scrape(sc, params, io_kstat, rep);

	return r != 0 ? r : io_print(rep);
}

/* A report every interval: a streamed Scrape, count replies (0: never
 * stopping), each reply's pages (a page with a cursor has more after it)
 * one report. */
static int
io_stream(struct sc *sc, struct io_report *rep, json_t *params,
    uint64_t ival, uint64_t count)
{
	json_t *reply;
	bool more = true;
	int r;

	json_object_set_new(params, "format", json_string("flat"));
	json_object_set_new(params, "interval_ms", json_integer(
	    (json_int_t)ival));
	if (count > 0)
		json_object_set_new(params, "count", json_integer(
		    (json_int_t)count));
	r = sc_stream_start(sc, VL_M_SCRAPE, params);
	while (r == 0 && more) {
		r = sc_stream_next(sc, (int)ival + SC_TIMEOUT_MS, &reply,
		    &more);
		if (r != 0)
			break;
		r = sc_flat_reply(reply, io_kstat, rep);
		if (r == 0 && js_str(reply, "cursor", NULL) == NULL) {
			r = io_print(rep);
			/* Nothing to follow: no I/O kstat matched. */
			if (r == 0 && !rep->matched)
				more = false;
		}
		json_decref(reply);
	}
	return r;
}

/* -x is iostat's: the extended report is the only one here. */
static int
iostat_opt(struct sc *sc, int c, const char *arg, void *ctx)
{
	struct io_report *rep = ctx;

	(void)sc;
	(void)arg;
	if (c == 'n')
		rep->xn = true;
	return 0;
}

static int
iostat_run(struct sc *sc, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "extended", no_argument, NULL, 'x' },
		{ "names-last", no_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	struct io_report rep = { .sc = sc };
	const char *sel = NULL;
	uint64_t ival = 0, count = 0;
	json_t *params;
	int i, nnum = 0, r;

	if ((r = sc_getopt(sc, argc, argv, ":xn", opts, NULL, iostat_opt,
	    &rep)) != 0)
		return r;
	for (i = optind; i < argc; i++) {
		if (io_is_number(argv[i])) {
			if (nnum == 2)
				return sc_usage(sc, "a third number '%s': only "
				    "interval and count", argv[i]);
			if (nnum == 0 && (r = sc_parse_interval(sc, argv[i],
			    &ival)) != 0)
				return r;
			if (nnum == 1 && sc_parse_uint(argv[i], 1,
			    INT32_MAX, &count) < 0)
				return sc_usage(sc, "count '%s' must be at "
				    "least 1", argv[i]);
			nnum++;
			continue;
		}
		if (nnum > 0)
			return sc_usage(sc, "selector '%s' after the interval",
			    argv[i]);
		if (sel != NULL)
			return sc_usage(sc, "one PATTERN at most");
		if ((r = io_check_selector(sc, argv[i])) != 0)
			return r;
		sel = argv[i];
	}
	params = json_object();
	if (params == NULL)
		return sc_error("out of memory");
	if (sel != NULL)
		json_object_set_new(params, "selector", json_string(sel));
	sc->subject = "iostat";
	r = ival == 0 ? io_once(sc, &rep, params) :
	    io_stream(sc, &rep, params, ival, count);
	if (r == 0 && !rep.matched)
		r = sc_error("iostat: no I/O kstat matches '%s'",
		    sel != NULL ? sel : "*");
	free(rep.devs);
	free(rep.prev);
	return r;
}

const struct verb verb_iostat = {
	.name = "iostat",
	.run = iostat_run,
	.usage = "iostat [-x] [-n] [PATTERN] [INTERVAL [COUNT]]",
	.summary = "I/O kstats as illumos iostat -x shows them",
	.help =
	    "  PATTERN          module:instance:name, each field a shell glob\n"
	    "                   or /regex/ (default: every I/O kstat)\n"
	    "  -x, --extended   the extended report (the only one; accepted\n"
	    "                   as iostat has it)\n"
	    "  -n, --names-last iostat -xn's columns: wsvc_t and asvc_t, the\n"
	    "                   device name last\n"
	    "  INTERVAL [COUNT] a report every INTERVAL seconds (decimals\n"
	    "                   allowed), COUNT of them (forever without)\n",
	.notes =
	    "The first report covers each kstat's life since its creation\n"
	    "(crtime), the later ones the change since the report before;\n"
	    "rates are over the change in snaptime, the time statsd last\n"
	    "updated the kstat. Only kstats of type IO are shown.\n",
};
