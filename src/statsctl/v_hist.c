/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * v_hist.c: `statsctl hist KSTAT[:VOI]` — a kstat's distributions: each
 * HIST and K2HIST statistic and each Linux array as DTrace's quantize()
 * art, each t-digest as its count, min, quantiles and max. The buckets
 * come from Read's blob JSON (and a Linux array's from its data lines);
 * the template says which histogram a HIST is (CR, DR, DV).
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <statsd/stats.h>

#include "conn.h"
#include "dtype.h"
#include "linuxstat.h"
#include "numeric.h"
#include "output.h"
#include "stat_defn.h"
#include "statsctl.h"

#define HIST_MAX_DISTS	256

struct hist_ctx {
	struct sc	*sc;
	struct kref	 k;
	const json_t	*tpl;		/* the kstat's template, or NULL */
	struct linux_data data;		/* Linux data lines, on first need */
	struct dist	 d[HIST_MAX_DISTS];
	size_t		 n;
};

/* The largest value of a VOI's type (from its name, by the type table),
 * and whether it is signed. */
static double
hist_type_max(const char *dtype, bool *is_signed)
{
	int d = dtype_from_name(dtype);
	struct voistatdata_numeric max;

	if (!dtype_is_scalar(d))
		d = VSD_DTYPE_INT_U64;
	*is_signed = dtype_info[d].is_signed;
	max = numeric_limit((enum vsd_dtype)d, true);
	return numeric_to_double((enum vsd_dtype)d, &max);
}

/* The template's spec of VOI name, or NULL. */
static const json_t *
hist_voi_spec(const struct hist_ctx *h, const char *name)
{
	const json_t *vois = json_object_get(h->tpl, "vois");
	size_t i;

	for (i = 0; i < json_array_size(vois); i++)
		if (strcmp(js_str(json_array_get(vois, i), "name", ""),
		    name) == 0)
			return json_array_get(vois, i);
	return NULL;
}

/* The first statistic of kind in a VOI spec, or NULL. */
static const json_t *
hist_stat_spec(const json_t *voi, const char *kind)
{
	const json_t *sts = json_object_get(voi, "stats");
	size_t i;

	for (i = 0; i < json_array_size(sts); i++)
		if (strcmp(js_str(json_array_get(sts, i), "kind", ""),
		    kind) == 0)
			return json_array_get(sts, i);
	return NULL;
}

static struct dist *
hist_new(struct hist_ctx *h, const char *voi, const char *kind)
{
	char full[128];
	struct dist *d;

	if (h->n == HIST_MAX_DISTS)
		return NULL;
	d = &h->d[h->n++];
	memset(d, 0, sizeof(*d));
	snprintf(d->key, sizeof(d->key), "%s:%s", kref_format(&h->k, full,
	    sizeof(full)), voi);
	snprintf(d->kind, sizeof(d->kind), "%s", kind);
	return d;
}

/* A HIST or K2HIST from the blob's buckets. */
static int
hist_buckets(struct hist_ctx *h, const char *voi, const json_t *st,
    const json_t *vspec)
{
	const json_t *bkts = json_object_get(st, "bkts");
	const json_t *sspec = hist_stat_spec(vspec, "HIST");
	const char *range = js_str(sspec, "range", "CR");
	const char *kind = "HIST";
	double tmax, tmin;
	bool sgn;
	struct dist *d;
	size_t i, n = json_array_size(bkts);

	if (sspec == NULL && hist_stat_spec(vspec, "K2HIST") != NULL)
		kind = "K2HIST";
	if (strcmp(kind, "K2HIST") == 0)
		range = "CR";
	d = hist_new(h, voi, kind);
	if (d == NULL)
		return 0;
	tmax = hist_type_max(js_str(vspec, "dtype", "INT_U64"), &sgn);
	tmin = sgn ? -tmax - 1 : 0;
	d->oob = js_num(st, "oob", 0);
	d->rows = calloc(n > 0 ? n : 1, sizeof(*d->rows));
	if (d->rows == NULL)
		return sc_error("out of memory");
	d->nrows = n;
	for (i = 0; i < n; i++) {
		const json_t *b = json_array_get(bkts, i);
		struct dist_row *r = &d->rows[i];
		char lb[40], ub[40];

		r->lb = js_num(b, "lb", 0);
		r->ub = js_num(b, "ub", 0);
		r->count = js_num(b, "cnt", 0);
		fmt_number(lb, sizeof(lb), r->lb);
		fmt_number(ub, sizeof(ub), r->ub);
		/* An open end reads as DTrace's edge rows: "< X", ">= X". */
		if (strcmp(range, "DV") == 0)
			snprintf(r->label, sizeof(r->label), "%s", lb);
		else if (i + 1 == n && r->ub >= tmax && r->lb > tmin)
			snprintf(r->label, sizeof(r->label), ">= %s", lb);
		else if (i == 0 && sgn && r->lb <= tmin)
			snprintf(r->label, sizeof(r->label), "< %s", ub);
		else if (strcmp(range, "DR") == 0)
			snprintf(r->label, sizeof(r->label), "[%s,%s)", lb,
			    ub);
		else
			snprintf(r->label, sizeof(r->label), "%s", lb);
	}
	return 0;
}

/* A t-digest: its sample count, min, max and quantiles. */
static int
hist_digest(struct hist_ctx *h, const char *voi, const json_t *st)
{
	const json_t *q = json_object_get(st, "quantiles"), *v;
	struct dist *d = hist_new(h, voi, "TDGST");
	const char *key;

	if (d == NULL)
		return 0;
	d->digest = true;
	d->count = js_num(st, "smplcnt", 0);
	d->min = js_num(st, "min", 0);
	d->max = js_num(st, "max", 0);
	json_object_foreach((json_t *)q, key, v) {
		struct dist_quantile *dq;

		if (d->nquant == sizeof(d->quant) / sizeof(d->quant[0]) ||
		    !json_is_number(v))
			continue;
		dq = &d->quant[d->nquant++];
		dq->q = strtod(key, NULL);
		dq->value = json_number_value(v);
		snprintf(dq->label, sizeof(dq->label), "p%g", dq->q * 100);
	}
	return 0;
}

/* The first text of a line's tokens: an array bucket's label ("<=X",
 * ">X"), as the data file prints it. */
static void
hist_tok_num(void *arg, bool is_signed, uint64_t v)
{
	(void)arg;
	(void)is_signed;
	(void)v;
}

static void
hist_tok_text(void *arg, const char *s)
{
	char *label = arg;

	if (label[0] == '\0')
		snprintf(label, sizeof(((struct dist_row *)NULL)->label), "%s",
		    s);
}

static void
hist_tok_time(void *arg, uint64_t ns)
{
	(void)arg;
	(void)ns;
}

/* A Linux array from its data lines, as data: each bucket
 * (X_{i-1}, X_i] with its count, and the last (X, inf). */
static int
hist_array(struct hist_ctx *h, const char *voi)
{
	struct dist *d = NULL;
	size_t cap = 0, i;
	double prev = -INFINITY;
	int r;

	if (h->data.reply == NULL) {
		r = linux_data_get(h->sc, &h->k, &h->data);
		if (r != 0)
			return r;
	}
	for (i = 0; i < h->data.n; i++) {
		const struct linux_line *l = &h->data.lines[i];
		struct dist_row *row;
		struct linux_tokens t = { hist_tok_num, hist_tok_text,
		    hist_tok_time, NULL };

		if (l->type != DEFN_ARRAY || strcmp(l->name, voi) != 0)
			continue;
		if (d == NULL && (d = hist_new(h, voi, "array")) == NULL)
			return 0;
		if (d->nrows == cap) {
			void *nr = realloc(d->rows, (cap = cap ? 2 * cap : 16) *
			    sizeof(*d->rows));

			if (nr == NULL)
				return sc_error("out of memory");
			d->rows = nr;
		}
		row = &d->rows[d->nrows++];
		memset(row, 0, sizeof(*row));
		t.arg = row->label;
		linux_line_tokens(l, &t);
		row->lb = l->above ? (double)l->bound : prev;
		row->ub = l->above ? INFINITY : (double)l->bound;
		row->count = (double)l->count;
		prev = (double)l->bound;
	}
	return 0;
}

/*
 * A blob re-laid by a definition change is rendered without its
 * template's names: VOIs as "[id]", statistics as "[stype]". Name them
 * again from the template and stats(3)'s kind names.
 */
static const char *
hist_voi_name(const struct hist_ctx *h, const char *key)
{
	const json_t *vois = json_object_get(h->tpl, "vois");
	long long id;
	size_t i;
	char *end;

	if (key[0] != '[')
		return key;
	id = strtoll(key + 1, &end, 10);
	if (*end != ']')
		return key;
	for (i = 0; i < json_array_size(vois); i++)
		if (js_int(json_array_get(vois, i), "id", -1) == id)
			return js_str(json_array_get(vois, i), "name", key);
	return key;
}

static json_t *
hist_named_stats(const json_t *stats)
{
	json_t *o = json_object(), *v;
	const char *key, *kind;
	long long n;
	char *end;

	json_object_foreach((json_t *)stats, key, v) {
		kind = key;
		if (key[0] == '[') {
			n = strtoll(key + 1, &end, 10);
			if (*end == ']' && n >= 0 && n < 256 &&
			    stats_voi_stype_name((enum voi_stype)n) != NULL)
				kind = stats_voi_stype_name((enum voi_stype)n);
		}
		json_object_set(o, kind, v);
	}
	return o;
}

/* Every distribution of one VOI of the blob. */
static int
hist_voi(struct hist_ctx *h, const char *voi, const json_t *raw_stats)
{
	const json_t *vspec = hist_voi_spec(h, voi), *st;
	json_t *stats = hist_named_stats(raw_stats);
	int r = 0;

	/* A Linux statistic's own HIST is how its array is kept: draw the
	 * array, with the bounds its data lines print. */
	if (json_object_get(stats, "DEFN") != NULL) {
		r = hist_array(h, voi);
		json_decref(stats);
		return r;
	}
	if ((st = json_object_get(stats, "HIST")) != NULL &&
	    json_is_object(st))
		r = hist_buckets(h, voi, st, vspec);
	if (r == 0 && (st = json_object_get(stats, "TDGST")) != NULL &&
	    json_is_object(st))
		r = hist_digest(h, voi, st);
	json_decref(stats);
	return r;
}

/* The kstat's template from TemplateList, by spec. */
static json_t *
hist_template(struct sc *sc, const char *spec)
{
	json_t *reply = NULL, *t = NULL;
	const json_t *tpls;
	size_t i;

	if (sc_call(sc, VL_M_TEMPLATE_LIST, NULL, &reply) != 0)
		return NULL;
	tpls = json_object_get(reply, "templates");
	for (i = 0; i < json_array_size(tpls); i++)
		if (strcmp(js_str(json_array_get(tpls, i), "spec", ""),
		    spec) == 0)
			t = json_incref(json_array_get(tpls, i));
	json_decref(reply);
	return t != NULL ? t : json_object();
}

static int
hist_run(struct sc *sc, int argc, char **argv)
{
	static const struct option opts[] = {
		SC_OPTS_OUTPUT,
		{ NULL, 0, NULL, 0 },
	};
	enum sc_format fmt = SC_FMT_TEXT;
	struct hist_ctx *h;
	json_t *reply = NULL, *tpl = NULL, *vois, *v;
	const char *voi, *key;
	bool found = false;
	char full[128];
	struct kref k;
	size_t i;
	int r;

	if ((r = sc_getopt(sc, argc, argv, ":jp", opts, &fmt, NULL,
	    NULL)) != 0 || (r = sc_one_kstat(sc, argc, argv, true, &k)) != 0)
		return r;
	h = calloc(1, sizeof(*h));
	if (h == NULL)
		return sc_error("out of memory");
	h->sc = sc;
	h->k = k;
	kref_format(&h->k, full, sizeof(full));
	r = sc_call(sc, VL_M_READ, json_pack("{s:s, s:i, s:s}", "module",
	    h->k.module, "instance", (int)h->k.instance, "name", h->k.name),
	    &reply);
	if (r == 0)
		tpl = hist_template(sc, js_str(json_object_get(reply, "kstat"),
		    "template", ""));
	if (r == 0 && tpl == NULL)
		r = SC_EXIT_FAIL;
	h->tpl = tpl;
	vois = json_object_get(json_object_get(reply, "blob"), "vois");
	json_object_foreach(vois, key, v) {
		voi = hist_voi_name(h, key);
		if (r != 0)
			break;
		if (h->k.stat[0] == '\0' || strcmp(voi, h->k.stat) == 0) {
			found = true;
			r = hist_voi(h, voi, json_object_get(v, "stats"));
		}
	}
	if (r == 0 && h->k.stat[0] != '\0' && !found)
		r = sc_error("%s has no VOI '%s'", full, h->k.stat);
	if (r == 0 && h->n == 0)
		r = h->k.stat[0] != '\0' ?
		    sc_error("%s:%s has no histogram, array or t-digest", full,
		    h->k.stat) :
		    sc_error("%s has no histogram, array or t-digest", full);
	if (r == 0)
		sc_output(sc, fmt)->dists(h->d, h->n);
	for (i = 0; i < h->n; i++)
		free(h->d[i].rows);
	linux_data_done(&h->data);
	free(h);
	json_decref(tpl);
	json_decref(reply);
	return r;
}

const struct verb verb_hist = {
	.name = "hist",
	.run = hist_run,
	.usage = "hist [-j|-p] KSTAT[:VOI]",
	.summary = "draw a kstat's histograms as DTrace's quantize() does",
	.help =
	    "  KSTAT[:VOI]      module:instance:name, and a VOI to draw only\n"
	    "                   its distributions\n"
	    "  -j, --json       buckets (label, lb, ub, count) and quantiles\n"
	    "  -p, --parseable  statistic<TAB>lb<TAB>ub<TAB>count lines; a\n"
	    "                   t-digest's as statistic<TAB>pNN<TAB>value\n",
	.notes =
	    "HIST, K2HIST and Linux arrays are drawn with a row either side of\n"
	    "the data; a t-digest prints count, min, p50, p90, p99, p99.9, max.\n",
};
