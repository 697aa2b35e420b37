/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * v_defn.c: the verbs on Linux statistic definitions — `definition`
 * (read the definition lines), `define` (write attribute=value lines),
 * and `on` / `off` (start and stop statistics).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "linuxstat.h"
#include "output.h"
#include "stat_defn.h"
#include "stat_history.h"
#include "statsctl.h"

#define DEFN_TEXT_MAX	65536

/* The index of name in a table of n names, or n. */
static unsigned
defn_index(const char *const *table, unsigned n, const char *name)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (table[i] != NULL && strcmp(table[i], name) == 0)
			break;
	return i;
}

/* A LinuxDefinition of the reply into v (its name points into o).
 * Returns: 0; -EPROTO. */
static int
defn_decode(const json_t *o, struct defn_view *v)
{
	struct vsd_defn *d = &v->d;

	memset(v, 0, sizeof(*v));
	v->name = js_str(o, "name", NULL);
	d->type = (uint8_t)defn_index(stat_defn_type_names, DEFN_NUM_TYPES,
	    js_str(o, "type", ""));
	if (v->name == NULL || d->type == DEFN_NUM_TYPES)
		return -EPROTO;
	d->on = (uint8_t)js_int(o, "on", 0);
	d->mode = (uint8_t)defn_index(stat_history_mode_names,
	    HISTORY_NUM_MODES, js_str(o, "mode", ""));
	d->scale = (uint8_t)defn_index(stat_defn_scale_names, DEFN_NUM_SCALES,
	    js_str(o, "scale", ""));
	d->entries_max = (uint32_t)js_int(o, "entries_max", 0);
	d->range_min = js_int(o, "range_min", 0);
	d->range_max = js_int(o, "range_max", 0);
	d->base_interval = (uint64_t)js_num(o, "base_interval", 0);
	d->period_us = (uint64_t)js_int(o, "period", 0);
	d->hits_out_of_range = (uint64_t)js_int(o, "hits_out_of_range", 0);
	d->data_ns = (uint64_t)js_int(o, "data_ns", 0);
	d->started_ns = (uint64_t)js_int(o, "started_ns", 0);
	d->stopped_ns = (uint64_t)js_int(o, "stopped_ns", 0);
	snprintf(d->units, sizeof(d->units), "%s", js_str(o, "units", ""));
	v->hits_missed = (uint64_t)js_int(o, "hits_missed", 0);
	return 0;
}

int
linux_defn_get(struct sc *sc, const struct kref *k, struct linux_defns *ld)
{
	const json_t *defs;
	json_t *params;
	size_t i;
	int r;

	memset(ld, 0, sizeof(*ld));
	params = json_pack("{s:s, s:i, s:s}", "module", k->module,
	    "instance", (int)k->instance, "name", k->name);
	r = sc_call(sc, VL_M_DEFINITION_GET, params, &ld->reply);
	if (r != 0)
		return r;
	ld->text = js_str(ld->reply, "text", "");
	defs = json_object_get(ld->reply, "definitions");
	ld->v = calloc(json_array_size(defs) + 1, sizeof(*ld->v));
	if (ld->v == NULL) {
		linux_defn_done(ld);
		return sc_error("out of memory");
	}
	for (i = 0; i < json_array_size(defs); i++)
		if (defn_decode(json_array_get(defs, i), &ld->v[ld->n++]) < 0) {
			linux_defn_done(ld);
			return sc_error("statsd sent a Linux definition that is "
			    "not shaped as its interface says");
		}
	return 0;
}

void
linux_defn_done(struct linux_defns *ld)
{
	free(ld->v);
	json_decref(ld->reply);
	memset(ld, 0, sizeof(*ld));
}

int
linux_require(struct sc *sc, const struct kref *k)
{
	struct linux_defns ld;
	char full[128];
	bool any;
	int r;

	r = linux_defn_get(sc, k, &ld);
	if (r != 0)
		return r;
	any = ld.n > 0;
	linux_defn_done(&ld);
	if (!any)
		return sc_error("%s has no Linux statistics (no VOI of its "
		    "template has a DEFN statistic)", kref_format(k, full,
		    sizeof(full)));
	return 0;
}

int
linux_defn_set(struct sc *sc, const struct kref *k, const char *text)
{
	char full[128];
	json_t *params;
	int r;

	/* A refused line is named by its number: say whose lines. */
	sc->subject = kref_format(k, full, sizeof(full));
	params = json_pack("{s:s, s:i, s:s, s:s}", "module", k->module,
	    "instance", (int)k->instance, "name", k->name, "text", text);
	r = sc_call(sc, VL_M_DEFINITION_SET, params, NULL);
	sc->subject = NULL;
	return r;
}

static int
definition_run(struct sc *sc, int argc, char **argv)
{
	static const struct option opts[] = {
		SC_OPTS_OUTPUT,
		{ NULL, 0, NULL, 0 },
	};
	enum sc_format fmt = SC_FMT_TEXT;
	struct linux_defns ld;
	struct kref k;
	int r;

	if ((r = sc_getopt(sc, argc, argv, ":jp", opts, &fmt, NULL,
	    NULL)) != 0 || (r = sc_one_kstat(sc, argc, argv, false, &k)) != 0)
		return r;
	r = linux_require(sc, &k);
	if (r != 0)
		return r;
	r = linux_defn_get(sc, &k, &ld);
	if (r == 0)
		sc_output(sc, fmt)->definition(ld.text, ld.v, ld.n);
	linux_defn_done(&ld);
	return r;
}

int
linux_defn_apply(struct sc *sc, const struct kref *k, char *text)
{
	int r;

	r = linux_require(sc, k);
	if (r == 0)
		r = linux_defn_set(sc, k, text);
	free(text);
	return r;
}

/* Standard input, whole, as definition text. */
static char *
defn_read_stdin(void)
{
	size_t len = 0, n;
	char *buf = malloc(DEFN_TEXT_MAX + 1);

	if (buf == NULL)
		return NULL;
	while (len < DEFN_TEXT_MAX &&
	    (n = fread(buf + len, 1, DEFN_TEXT_MAX - len, stdin)) > 0)
		len += n;
	buf[len] = '\0';
	return buf;
}

static int
define_run(struct sc *sc, int argc, char **argv)
{
	struct kref k;
	size_t len = 1, off = 0;
	char *text;
	int i, r;

	if ((r = sc_lead_kstat(sc, argc, argv, 2, "KSTAT and at least one "
	    "line of attribute=value tokens, please", &k)) != 0)
		return r;
	if (argc - optind == 2 && strcmp(argv[optind + 1], "-") == 0) {
		text = defn_read_stdin();
	} else {
		/* Each argument is one line. */
		for (i = optind + 1; i < argc; i++)
			len += strlen(argv[i]) + 1;
		text = malloc(len);
		if (text != NULL) {
			for (i = optind + 1; i < argc; i++)
				off += (size_t)sprintf(text + off, "%s\n",
				    argv[i]);
			text[off] = '\0';
		}
	}
	if (text == NULL)
		return sc_error("cannot read the definition: %s",
		    strerror(errno));
	return linux_defn_apply(sc, &k, text);
}

/* on and off: "on=1" for every statistic, or "name=S on=1" for each S. */
static int
onoff_run(struct sc *sc, int argc, char **argv, int on)
{
	struct kref k;
	size_t len = 16, off = 0;
	char *text;
	int i, r;

	if ((r = sc_lead_kstat(sc, argc, argv, 1, "a KSTAT, please",
	    &k)) != 0)
		return r;
	if ((r = sc_stat_names(sc, argc, argv, 16, &len)) != 0)
		return r;
	text = malloc(len);
	if (text == NULL)
		return sc_error("out of memory");
	if (argc - optind == 1)
		off = (size_t)sprintf(text, "on=%d\n", on);
	for (i = optind + 1; i < argc; i++)
		off += (size_t)sprintf(text + off, "name=%s on=%d\n", argv[i],
		    on);
	return linux_defn_apply(sc, &k, text);
}

static int
on_run(struct sc *sc, int argc, char **argv)
{
	return onoff_run(sc, argc, argv, 1);
}

static int
off_run(struct sc *sc, int argc, char **argv)
{
	return onoff_run(sc, argc, argv, 0);
}

const struct verb verb_definition = {
	.name = "definition",
	.run = definition_run,
	.usage = "definition [-j|-p] KSTAT",
	.summary = "print a kstat's Linux definition lines",
	.help =
	    "  KSTAT            module:instance:name, literally\n"
	    "  -j, --json       one object per statistic, attribute: value\n"
	    "  -p, --parseable  the lines as they are\n",
};

const struct verb verb_define = {
	.name = "define",
	.run = define_run,
	.usage = "define KSTAT 'attr=value ...' ... | define KSTAT -",
	.summary = "change Linux statistics' definitions",
	.help =
	    "  KSTAT            module:instance:name, literally\n"
	    "  'attr=value ...' one definition line per argument (name=,\n"
	    "                   type=, on=, data=reset, range_min=, ...);\n"
	    "                   all lines apply, or none\n"
	    "  -                read the lines from standard input\n",
};

const struct verb verb_on = {
	.name = "on",
	.run = on_run,
	.usage = "on KSTAT [STATISTIC...]",
	.summary = "turn Linux statistics on (all of a kstat's, or those named)",
	.help =
	    "  KSTAT            module:instance:name, literally\n"
	    "  STATISTIC...     only these statistics (default: all)\n",
};

const struct verb verb_off = {
	.name = "off",
	.run = off_run,
	.usage = "off KSTAT [STATISTIC...]",
	.summary = "turn Linux statistics off (all of a kstat's, or those named)",
	.help =
	    "  KSTAT            module:instance:name, literally\n"
	    "  STATISTIC...     only these statistics (default: all)\n",
};
