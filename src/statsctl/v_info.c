/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * v_info.c: `statsctl info` — who statsd is (Hello) and what it holds
 * (Info): version, uptime, paths, counts, the caller's rights, and with
 * --config its effective configuration.
 */
#include <getopt.h>

#include "conn.h"
#include "output.h"
#include "statsctl.h"

static int
info_run(struct sc *sc, int argc, char **argv)
{
	static const struct option opts[] = {
		SC_OPTS_OUTPUT,
		{ "config", no_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	enum sc_format fmt = SC_FMT_TEXT;
	json_t *hello = NULL, *info = NULL;
	bool config = false;
	int r;

	if ((r = sc_getopt(sc, argc, argv, ":jpc", opts, &fmt, sc_opt_flag,
	    &config)) != 0)
		return r;
	if (optind < argc)
		return sc_usage(sc, "unexpected argument '%s'", argv[optind]);
	r = sc_call(sc, VL_M_HELLO, json_pack("{s:s}", "client", "statsctl"),
	    &hello);
	if (r == 0)
		r = sc_call(sc, VL_M_INFO, NULL, &info);
	if (r == 0)
		sc_output(sc, fmt)->info(hello, info, config);
	json_decref(hello);
	json_decref(info);
	return r;
}

const struct verb verb_info = {
	.name = "info",
	.run = info_run,
	.usage = "info [-j|-p] [-c]",
	.summary = "show statsd's version, state and the caller's rights",
	.help =
	    "  -j, --json       JSON: {\"hello\": {...}, \"info\": {...}}\n"
	    "  -p, --parseable  key<TAB>value lines\n"
	    "  -c, --config     add the effective configuration\n",
};
