/*
 * v_scrape.c: `statsctl scrape` — every visible kstat in one of the
 * daemon's formats: json (kstat -j), kstat (kstat -p lines) or linux
 * (Linux data lines, "# module:instance:name" before each kstat).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "conn.h"
#include "statsctl.h"

/* Each page's text as it comes: statsctl holds one page at a time. */
static int
scrape_page(const json_t *page, void *arg)
{
	(void)arg;
	fputs(js_str(page, "text", ""), stdout);
	return 0;
}

static int
scrape_run(struct sc *sc, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "class", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	const char *format = "json", *cls = NULL;
	json_t *params;
	int c, r;

	while ((c = getopt_long(argc, argv, ":f:c:", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			format = optarg;
			break;
		case 'c':
			cls = optarg;
			break;
		default:
			return sc_optbad(sc, c, argv);
		}
	}
	if (strcmp(format, "json") != 0 && strcmp(format, "kstat") != 0 &&
	    strcmp(format, "linux") != 0)
		return sc_usage(sc, "unknown format '%s' (json, kstat or "
		    "linux)", format);
	if (argc - optind > 1)
		return sc_usage(sc, "one SELECTOR at most");
	if (optind < argc && (r = sc_check_selector(sc, argv[optind])) != 0)
		return r;
	if (cls != NULL && (r = sc_check_class(sc, cls)) != 0)
		return r;
	params = json_pack("{s:s}", "format", format);
	if (optind < argc)
		json_object_set_new(params, "selector",
		    json_string(argv[optind]));
	if (cls != NULL)
		json_object_set_new(params, "class", json_string(cls));
	return sc_call_each(sc, VL_M_SCRAPE, params, scrape_page, NULL);
}

const struct verb verb_scrape = {
	.name = "scrape",
	.run = scrape_run,
	.usage = "scrape [--format json|kstat|linux] [-c CLASS] [SELECTOR]",
	.summary = "print every kstat in one of statsd's formats",
	.help =
	    "  -f, --format F   json (kstat -j, the default), kstat (kstat -p\n"
	    "                   lines) or linux (Linux data lines)\n"
	    "  -c, --class PAT  only kstats whose class matches PAT\n"
	    "  SELECTOR         module:instance:name:statistic, each a shell\n"
	    "                   glob or /regex/ (default: everything)\n",
};
