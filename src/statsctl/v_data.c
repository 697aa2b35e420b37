/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * v_data.c: `statsctl data KSTAT` — the Linux data lines of one kstat's
 * statistics (the Linux statistics infrastructure's "data" file), as the
 * daemon renders them.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "linuxstat.h"
#include "output.h"
#include "stat_defn.h"
#include "statsctl.h"

/* An unsigned number of a reply (js_u64), or 0. */
static uint64_t
ld_u64(const json_t *o, const char *key)
{
	uint64_t u;

	return js_u64(json_object_get(o, key), &u) == 0 ? u : 0;
}

static int64_t
ld_s64(const json_t *o, const char *key)
{
	return (int64_t)json_integer_value(json_object_get(o, key));
}

/* A LinuxLine of the reply into l (its name points into o).
 * Returns: 0; -EPROTO. */
static int
ld_line(const json_t *o, struct linux_line *l)
{
	const char *type = js_str(o, "type", "");

	memset(l, 0, sizeof(*l));
	l->name = js_str(o, "statistic", NULL);
	for (l->type = 0; l->type < DEFN_NUM_TYPES; l->type++)
		if (strcmp(type, stat_defn_type_names[l->type]) == 0)
			break;
	if (l->name == NULL || l->type == DEFN_NUM_TYPES)
		return -EPROTO;
	l->range = json_object_get(o, "avg") != NULL;
	l->above = json_object_get(o, "gt") != NULL;
	l->time_ns = ld_u64(o, "time_ns");
	l->total = ld_s64(o, "total");
	l->num = ld_u64(o, "num");
	l->min = ld_s64(o, "min");
	l->max = ld_s64(o, "max");
	l->acc = ld_s64(o, "acc");
	l->bound = ld_s64(o, l->above ? "gt" : "le");
	l->count = ld_u64(o, "count");
	l->x = l->type == DEFN_RAW ? (uint64_t)ld_s64(o, "x") : ld_u64(o, "x");
	l->hits = ld_u64(o, "hits");
	l->serial = ld_u64(o, "serial");
	l->y = ld_u64(o, "y");
	return 0;
}

int
linux_data_get(struct sc *sc, const struct kref *k, struct linux_data *ld)
{
	char sel[256], full[128];
	const char *text, *body;
	const json_t *items, *lines;
	size_t i;
	int r;

	memset(ld, 0, sizeof(*ld));
	r = linux_require(sc, k);
	if (r != 0)
		return r;
	r = sc_call(sc, VL_M_SCRAPE, json_pack("{s:s, s:s}", "format", "linux",
	    "selector", kref_selector(k, sel, sizeof(sel))), &ld->reply);
	if (r != 0)
		return r;
	/* One kstat: drop the "# module:instance:name" line before it. */
	text = js_str(ld->reply, "text", "");
	body = text;
	if (body[0] == '#') {
		body = strchr(body, '\n');
		body = body != NULL ? body + 1 : "";
	}
	ld->text = strdup(body);
	items = json_object_get(ld->reply, "linux");
	lines = json_object_get(json_array_get(items, 0), "lines");
	ld->lines = calloc(json_array_size(lines) + 1, sizeof(*ld->lines));
	if (ld->text == NULL || ld->lines == NULL) {
		linux_data_done(ld);
		return sc_error("%s: out of memory", kref_format(k, full,
		    sizeof(full)));
	}
	for (i = 0; i < json_array_size(lines); i++)
		if (ld_line(json_array_get(lines, i), &ld->lines[ld->n++]) < 0) {
			linux_data_done(ld);
			return sc_error("statsd sent a Linux data line that is "
			    "not shaped as its interface says");
		}
	return 0;
}

void
linux_data_done(struct linux_data *ld)
{
	free(ld->text);
	free(ld->lines);
	json_decref(ld->reply);
	memset(ld, 0, sizeof(*ld));
}

static int
data_run(struct sc *sc, int argc, char **argv)
{
	static const struct option opts[] = {
		SC_OPTS_OUTPUT,
		{ NULL, 0, NULL, 0 },
	};
	enum sc_format fmt = SC_FMT_TEXT;
	struct linux_data ld;
	struct kref k;
	int r;

	if ((r = sc_getopt(sc, argc, argv, ":jp", opts, &fmt, NULL,
	    NULL)) != 0 || (r = sc_one_kstat(sc, argc, argv, false, &k)) != 0)
		return r;
	r = linux_data_get(sc, &k, &ld);
	if (r == 0)
		sc_output(sc, fmt)->data(ld.text, ld.lines, ld.n);
	linux_data_done(&ld);
	return r;
}

const struct verb verb_data = {
	.name = "data",
	.run = data_run,
	.usage = "data [-j|-p] KSTAT",
	.summary = "print a kstat's Linux data lines",
	.help =
	    "  KSTAT            module:instance:name, literally\n"
	    "  -j, --json       the lines as JSON: statistic and values\n"
	    "  -p, --parseable  the lines as they are\n",
};
