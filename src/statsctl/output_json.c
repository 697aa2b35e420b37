/*
 * output_json.c: statsctl's JSON output — the daemon's replies as they
 * are where they are already JSON, and the Linux definition and data
 * lines, distributions and watch reports made into JSON values. One JSON
 * document per run, except watch: one line per report (JSON Lines).
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/*
 * A token of a Linux line as a JSON value: an integer as a number, a
 * timestamp "[ s.us]" as its text without brackets, anything else as a
 * string.
 */
static json_t *
jout_token(const char *s, size_t n)
{
	char buf[128], *end;
	long long v;

	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (buf[0] == '[' && n > 1 && buf[n - 1] == ']') {
		buf[n - 1] = '\0';
		s = buf + 1;
		while (*s == ' ')
			s++;
		return json_string(s);
	}
	if ((buf[0] >= '0' && buf[0] <= '9') || (buf[0] == '-' && n > 1)) {
		v = strtoll(buf, &end, 10);
		if (*end == '\0' && !(v == LLONG_MAX || v == LLONG_MIN))
			return json_integer(v);
	}
	return json_string(buf);
}

/* The end of the token at s: a bracketed timestamp may hold blanks. */
static const char *
jout_token_end(const char *s, const char *eol)
{
	const char *sp = memchr(s, ' ', (size_t)(eol - s)), *eq, *close;

	if (sp == NULL)
		sp = eol;
	eq = memchr(s, '=', (size_t)(sp - s));
	if (*s == '[' || (eq != NULL && eq[1] == '[')) {
		close = memchr(s, ']', (size_t)(eol - s));
		if (close != NULL)
			return close + 1;
	}
	return sp;
}

/* Definition lines: one object per statistic, attribute: value. */
static void
jout_definition(const char *text)
{
	json_t *a = json_array();
	const char *line = text;

	while (*line != '\0') {
		const char *eol = strchr(line, '\n'), *p, *e, *eq;
		json_t *o;

		if (eol == NULL)
			eol = line + strlen(line);
		o = json_object();
		for (p = line; p < eol; p = e) {
			while (p < eol && *p == ' ')
				p++;
			if (p >= eol)
				break;
			e = jout_token_end(p, eol);
			eq = memchr(p, '=', (size_t)(e - p));
			if (eq != NULL) {
				char key[64];
				size_t kl = (size_t)(eq - p);

				if (kl >= sizeof(key))
					kl = sizeof(key) - 1;
				memcpy(key, p, kl);
				key[kl] = '\0';
				json_object_set_new(o, key, jout_token(eq + 1,
				    (size_t)(e - eq - 1)));
			}
		}
		if (json_object_size(o) > 0)
			json_array_append_new(a, o);
		else
			json_decref(o);
		line = *eol == '\n' ? eol + 1 : eol;
	}
	json_emit_new(a);
}

/* Data lines: one object per line, the statistic's name and its
 * values. */
static void
jout_data(const char *text)
{
	json_t *a = json_array();
	const char *line = text;

	while (*line != '\0') {
		const char *eol = strchr(line, '\n'), *p, *e;
		json_t *vals, *name = NULL;

		if (eol == NULL)
			eol = line + strlen(line);
		vals = json_array();
		for (p = line; p < eol; p = e) {
			while (p < eol && *p == ' ')
				p++;
			if (p >= eol)
				break;
			e = jout_token_end(p, eol);
			if (name == NULL)
				name = json_stringn(p, (size_t)(e - p));
			else
				json_array_append_new(vals, jout_token(p,
				    (size_t)(e - p)));
		}
		if (name != NULL)
			json_array_append_new(a, json_pack("{s:o, s:o}",
			    "statistic", name, "values", vals));
		else
			json_decref(vals);
		line = *eol == '\n' ? eol + 1 : eol;
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
