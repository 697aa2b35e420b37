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
		{ "json", no_argument, NULL, 'j' },
		{ "parseable", no_argument, NULL, 'p' },
		{ "config", no_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	enum sc_format fmt = SC_FMT_TEXT;
	json_t *hello = NULL, *info = NULL;
	bool config = false;
	int c, r;

	while ((c = getopt_long(argc, argv, ":jpc", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			fmt = SC_FMT_JSON;
			break;
		case 'p':
			fmt = SC_FMT_PARSEABLE;
			break;
		case 'c':
			config = true;
			break;
		default:
			return sc_optbad(sc, c, argv);
		}
	}
	if (optind < argc)
		return sc_usage(sc, "unexpected argument '%s'", argv[optind]);
	r = sc_call(sc, "Hello", json_pack("{s:s}", "client", "statsctl"),
	    &hello);
	if (r == 0)
		r = sc_call(sc, "Info", NULL, &info);
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
