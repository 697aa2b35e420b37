/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * output_parse.c: statsctl's parseable output (-p) — one record per line,
 * fields separated by TABs, no headers, nothing a script must skip.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <statsd/stats.h>

#include "output.h"

/* key<TAB>value for each scalar member of o, keys prefixed; skip (may
 * be NULL) is a member to leave out. */
static void
parse_flat(const char *prefix, const json_t *o, const char *skip)
{
	const char *key;
	json_t *v;
	char num[64];
	size_t i;

	json_object_foreach((json_t *)o, key, v) {
		if (skip != NULL && strcmp(key, skip) == 0)
			continue;
		if (json_is_string(v)) {
			printf("%s%s\t%s\n", prefix, key, json_string_value(v));
		} else if (json_is_number(v)) {
			fmt_number(num, sizeof(num), json_number_value(v));
			printf("%s%s\t%s\n", prefix, key, num);
		} else if (json_is_boolean(v)) {
			printf("%s%s\t%d\n", prefix, key, json_is_true(v));
		} else if (json_is_array(v)) {
			/* Names (flags) joined by commas; numbers (a
			 * histogram's buckets) by blanks, as kstat -p. */
			printf("%s%s\t", prefix, key);
			for (i = 0; i < json_array_size(v); i++) {
				const json_t *e = json_array_get(v, i);

				if (json_is_number(e))
					fmt_number(num, sizeof(num),
					    json_number_value(e));
				printf("%s%s", i == 0 ? "" : json_is_number(e) ?
				    " " : ",", json_is_string(e) ?
				    json_string_value(e) : json_is_number(e) ?
				    num : "?");
			}
			putchar('\n');
		}
	}
}

static void
parse_info(const json_t *hello, const json_t *info, bool with_config)
{
	const json_t *peer = json_object_get(hello, "peer");

	parse_flat("", hello, NULL);
	parse_flat("peer.", peer, NULL);
	/* Hello and Info both give the version: once is enough. */
	parse_flat("", info, "version");
	if (with_config)
		parse_flat("config.", json_object_get(info, "config"), NULL);
}

static void
parse_templates(const json_t *reply, bool long_form)
{
	const json_t *tpls = json_object_get(reply, "templates");
	size_t i;

	(void)long_form;
	for (i = 0; i < json_array_size(tpls); i++) {
		const json_t *t = json_array_get(tpls, i);

		printf("%s\t%lld\t%lld\t%zu\n", js_str(t, "name", "?"),
		    js_int(t, "hash", 0), js_int(t, "size", 0),
		    json_array_size(json_object_get(t, "vois")));
	}
}

static void
parse_rates(const json_t *reply)
{
	const json_t *rates = json_object_get(reply, "rates");
	char name[STATS_TPL_MAX_STR_SPEC_LEN + 1];
	uint32_t hash;
	size_t i;

	for (i = 0; i < json_array_size(rates); i++) {
		const json_t *r = json_array_get(rates, i);

		if (stats_tpl_spec_parse(js_str(r, "template", ""), name,
		    sizeof(name), &hash) != 0)
			continue;
		printf("%s\t%" PRIu32 "\t%lld\n", name, hash,
		    js_int(r, "pct", 0));
	}
}

static void
parse_dists(const struct dist *d, size_t n)
{
	char a[64], b[64];
	size_t i, j;

	for (i = 0; i < n; i++) {
		if (d[i].digest) {
			fmt_number(a, sizeof(a), d[i].count);
			printf("%s\tcount\t%s\n", d[i].key, a);
			fmt_number(a, sizeof(a), d[i].min);
			printf("%s\tmin\t%s\n", d[i].key, a);
			for (j = 0; j < d[i].nquant; j++) {
				fmt_number(a, sizeof(a), d[i].quant[j].value);
				printf("%s\t%s\t%s\n", d[i].key,
				    d[i].quant[j].label, a);
			}
			fmt_number(a, sizeof(a), d[i].max);
			printf("%s\tmax\t%s\n", d[i].key, a);
			continue;
		}
		for (j = 0; j < d[i].nrows; j++) {
			fmt_number(a, sizeof(a), d[i].rows[j].lb);
			fmt_number(b, sizeof(b), d[i].rows[j].ub);
			printf("%s\t%s\t%s\t%lld\n", d[i].key, a, b,
			    (long long)d[i].rows[j].count);
		}
		if (d[i].oob != 0)
			printf("%s\toob\toob\t%lld\n", d[i].key,
			    (long long)d[i].oob);
	}
}

static void
parse_snapshot(const json_t *reply)
{
	const json_t *k = json_object_get(reply, "kstat");
	char prefix[128];

	snprintf(prefix, sizeof(prefix), "%s:%lld:%s:", js_str(k, "module",
	    "?"), js_int(k, "instance", 0), js_str(k, "name", "?"));
	parse_flat(prefix, json_object_get(reply, "data"), NULL);
}

static void
parse_watch(const struct watch_frame *f)
{
	char v[64];
	size_t i;

	for (i = 0; i < f->nrows; i++) {
		fmt_number(v, sizeof(v), f->rows[i].value);
		if (f->rows[i].counter)
			printf("%.3f\t%s\t%s\t%.2f\n", f->wall, f->rows[i].key,
			    v, f->rows[i].rate);
		else
			printf("%.3f\t%s\t%s\t\n", f->wall, f->rows[i].key, v);
	}
	fflush(stdout);
}

const struct output output_parseable = {
	.name = "parseable",
	.info = parse_info,
	.templates = parse_templates,
	.rates = parse_rates,
	.definition = out_definition_text,
	.data = out_data_text,
	.dists = parse_dists,
	.snapshot = parse_snapshot,
	.watch = parse_watch,
};
