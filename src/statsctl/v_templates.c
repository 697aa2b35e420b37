/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * v_templates.c: `statsctl templates` — the registered templates, as
 * stats(3)'s comma-separated "<name>":<hash> list, or with -l each
 * template's VOIs and statistics.
 */
#include <getopt.h>

#include "conn.h"
#include "output.h"
#include "statsctl.h"

static int
templates_run(struct sc *sc, int argc, char **argv)
{
	static const struct option opts[] = {
		SC_OPTS_OUTPUT,
		{ "long", no_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 },
	};
	enum sc_format fmt = SC_FMT_TEXT;
	json_t *reply = NULL;
	bool long_form = false;
	int r;

	if ((r = sc_getopt(sc, argc, argv, ":jpl", opts, &fmt, sc_opt_flag,
	    &long_form)) != 0)
		return r;
	if (optind < argc)
		return sc_usage(sc, "unexpected argument '%s'", argv[optind]);
	r = sc_call(sc, VL_M_TEMPLATE_LIST, NULL, &reply);
	if (r == 0)
		sc_output(sc, fmt)->templates(reply, long_form);
	json_decref(reply);
	return r;
}

const struct verb verb_templates = {
	.name = "templates",
	.run = templates_run,
	.usage = "templates [-j|-p] [-l]",
	.summary = "list the templates as \"<name>\":<hash>,...",
	.help =
	    "  -l, --long       each template's VOIs and statistics\n"
	    "  -j, --json       the templates as JSON\n"
	    "  -p, --parseable  name<TAB>hash<TAB>size<TAB>VOIs lines\n",
};
