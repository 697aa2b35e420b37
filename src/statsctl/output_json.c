/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * output_json.c: statsctl's JSON output — the daemon's replies as they
 * are where they are already JSON, and the Linux definition and data
 * lines, distributions and watch reports made into JSON values. One JSON
 * document per run, except watch: one line per report (JSON Lines).
 */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "defn.h"
#include "output.h"

static void
json_emit(const json_t *v, size_t flags)
{
	json_dumpf(v, stdout, flags);
	putchar('\n');
}

static void
json_emit_new(json_t *v)
{
	json_emit(v, JSON_INDENT(2) | JSON_REAL_PRECISION(16));
	json_decref(v);
}

static void
jout_info(const json_t *hello, const json_t *info, bool with_config)
{
	(void)with_config;
	json_emit_new(json_pack("{s:O, s:O}", "hello", hello, "info", info));
}

static void
jout_templates(const json_t *reply, bool long_form)
{
	(void)long_form;
	json_emit(json_object_get(reply, "templates"), JSON_INDENT(2) |
	    JSON_REAL_PRECISION(16));
}

static void
jout_rates(const json_t *reply)
{
	json_emit_new(json_pack("{s:s, s:O}", "text", js_str(reply, "text",
	    ""), "rates", json_object_get(reply, "rates")));
}

/* A line's tokens (linux_line_tokens) as the members of a JSON array:
 * numbers as numbers (exact: an unsigned one above INT64_MAX as its
 * digits), texts and timestamps ("s.us") as strings. */
static void
jout_tok_num(void *arg, bool is_signed, uint64_t v)
{
	char digits[24];

	if (is_signed || v <= INT64_MAX) {
		json_array_append_new(arg, json_integer((json_int_t)v));
		return;
	}
	snprintf(digits, sizeof(digits), "%" PRIu64, v);
	json_array_append_new(arg, json_string(digits));
}

static void
jout_tok_text(void *arg, const char *s)
{
	json_array_append_new(arg, json_string(s));
}

static void
jout_tok_time(void *arg, uint64_t ns)
{
	char s[32];

	linux_seconds(s, sizeof(s), ns);
	jout_tok_text(arg, s);
}

/* Data lines: one object per line, the statistic's name and its
 * values, from the lines as data. */
static void
jout_data(const char *text, const struct linux_line *lines, size_t n)
{
	json_t *a = json_array(), *vals;
	size_t i;

	(void)text;
	for (i = 0; i < n; i++) {
		struct linux_tokens t = { jout_tok_num, jout_tok_text,
		    jout_tok_time, NULL };

		t.arg = vals = json_array();
		linux_line_tokens(&lines[i], &t);
		json_array_append_new(a, json_pack("{s:s, s:o}", "statistic",
		    lines[i].name, "values", vals));
	}
	json_emit_new(a);
}

/* A definition's attributes (defn_attrs_emit) as the members of a JSON
 * object: numbers as numbers (an unsigned one above INT64_MAX as its
 * digits), texts as strings, timestamps as "s.us". */
static void
jout_attr_num(void *arg, const char *key, bool is_signed, uint64_t v)
{
	json_t *a = json_array();

	jout_tok_num(a, is_signed, v);
	json_object_set(arg, key, json_array_get(a, 0));
	json_decref(a);
}

static void
jout_attr_text(void *arg, const char *key, const char *s)
{
	json_object_set_new(arg, key, json_string(s));
}

static void
jout_attr_time(void *arg, const char *key, uint64_t ns)
{
	char s[32];

	linux_seconds(s, sizeof(s), ns);
	jout_attr_text(arg, key, s);
}

/* Definition lines: one object per statistic, attribute: value. */
static void
jout_definition(const char *text, const struct defn_view *v, size_t n)
{
	json_t *a = json_array(), *o;
	size_t i;

	(void)text;
	for (i = 0; i < n; i++) {
		struct defn_sink s = { jout_attr_num, jout_attr_text,
		    jout_attr_time, NULL };

		s.arg = o = json_object();
		defn_attrs_emit(&v[i], &s);
		json_array_append_new(a, o);
	}
	json_emit_new(a);
}

static json_t *
jout_num(double v)
{
	if (!isfinite(v))
		return json_null();
	if (fabs(v) < 9e18 && v == floor(v))
		return json_integer((json_int_t)v);
	return json_real(v);
}

static void
jout_dists(const struct dist *d, size_t n)
{
	json_t *a = json_array(), *o, *b, *q;
	size_t i, j;

	for (i = 0; i < n; i++) {
		o = json_pack("{s:s, s:s}", "statistic", d[i].key, "kind",
		    d[i].kind);
		if (d[i].digest) {
			q = json_object();
			for (j = 0; j < d[i].nquant; j++)
				json_object_set_new(q, d[i].quant[j].label,
				    jout_num(d[i].quant[j].value));
			json_object_set_new(o, "count", jout_num(d[i].count));
			json_object_set_new(o, "min", jout_num(d[i].min));
			json_object_set_new(o, "max", jout_num(d[i].max));
			json_object_set_new(o, "quantiles", q);
		} else {
			b = json_array();
			for (j = 0; j < d[i].nrows; j++)
				json_array_append_new(b, json_pack("{s:s, "
				    "s:o, s:o, s:o}", "label",
				    d[i].rows[j].label, "lb",
				    jout_num(d[i].rows[j].lb), "ub",
				    jout_num(d[i].rows[j].ub), "count",
				    jout_num(d[i].rows[j].count)));
			json_object_set_new(o, "buckets", b);
			json_object_set_new(o, "oob", jout_num(d[i].oob));
		}
		json_array_append_new(a, o);
	}
	json_emit_new(a);
}

static void
jout_snapshot(const json_t *reply)
{
	json_emit(reply, JSON_INDENT(2) | JSON_REAL_PRECISION(16));
}

static void
jout_watch(const struct watch_frame *f)
{
	json_t *o = json_object(), *a = json_array(), *r;
	size_t i;

	json_object_set_new(o, "time", json_real(f->wall));
	json_object_set_new(o, "report", json_integer(f->seq));
	for (i = 0; i < f->nrows; i++) {
		r = json_pack("{s:s, s:o}", "statistic", f->rows[i].key,
		    "value", jout_num(f->rows[i].value));
		if (f->rows[i].counter) {
			json_object_set_new(r, "rate", json_real(
			    f->rows[i].rate));
		}
		json_array_append_new(a, r);
	}
	json_object_set_new(o, "stats", a);
	json_emit(o, JSON_COMPACT | JSON_REAL_PRECISION(16));
	json_decref(o);
	fflush(stdout);
}

const struct output output_json = {
	.name = "json",
	.info = jout_info,
	.templates = jout_templates,
	.rates = jout_rates,
	.definition = jout_definition,
	.data = jout_data,
	.dists = jout_dists,
	.snapshot = jout_snapshot,
	.watch = jout_watch,
};
