/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * v_sample.c: `statsctl sample-rates` — the templates' sample rates as
 * stats(3) text ("<name>":<hash>=<pct>,...), and with an argument,
 * replacing them (an admin call).
 */
#include <getopt.h>

#include "conn.h"
#include "output.h"
#include "statsctl.h"

static int
sample_run(struct sc *sc, int argc, char **argv)
{
	static const struct option opts[] = {
		SC_OPTS_OUTPUT,
		{ NULL, 0, NULL, 0 },
	};
	enum sc_format fmt = SC_FMT_TEXT;
	json_t *reply = NULL;
	int r;

	if ((r = sc_getopt(sc, argc, argv, ":jp", opts, &fmt, NULL,
	    NULL)) != 0)
		return r;
	if (argc - optind > 1)
		return sc_usage(sc, "one SPEC=PCT,... list at most (got %d "
		    "arguments)", argc - optind);
	sc->subject = "sample rates";
	if (optind < argc)
		r = sc_call(sc, VL_M_SAMPLE_RATES_SET, json_pack("{s:s}", "text",
		    argv[optind]), &reply);
	else
		r = sc_call(sc, VL_M_SAMPLE_RATES_GET, NULL, &reply);
	if (r == 0)
		sc_output(sc, fmt)->rates(reply);
	json_decref(reply);
	return r;
}

const struct verb verb_sample_rates = {
	.name = "sample-rates",
	.run = sample_run,
	.usage = "sample-rates [-j|-p] [SPEC=PCT,...]",
	.summary = "show or set the templates' sample rates",
	.help =
	    "  SPEC=PCT,...     replace every rate: SPEC is a template's name or\n"
	    "                   \"<name>\":<hash>, PCT a percentage; the total is\n"
	    "                   at most 100. '' clears them (needs the admin right)\n"
	    "  -j, --json       the rates as JSON\n"
	    "  -p, --parseable  name<TAB>hash<TAB>pct lines\n",
};
