/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * v_scrape.c: `statsctl scrape` — every visible kstat in one of the
 * daemon's formats: json (kstat -j), kstat (kstat -p lines), linux
 * (Linux data lines, "# module:instance:name" before each kstat),
 * prometheus (text 0.0.4) or openmetrics (1.0.0). With -o FILE the
 * output goes to FILE atomically: written beside it, synced, then
 * renamed over it, so that node_exporter's textfile collector never
 * reads half a file.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conn.h"
#include "output.h"
#include "statsctl.h"

/* Each page's text as it comes: statsctl holds one page at a time. */
static int
scrape_page(const json_t *page, void *arg)
{
	FILE *f = arg;

	fputs(js_str(page, "text", ""), f);
	return ferror(f) ? -EIO : 0;
}

/* Scrape into a temporary file beside path, then rename it over path. */
static int
scrape_to_file(struct sc *sc, json_t *params, const char *path)
{
	char tmp[PATH_MAX];
	FILE *f;
	int fd, r;

	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >=
	    (int)sizeof(tmp)) {
		json_decref(params);
		return sc_usage(sc, "-o %s: path too long", path);
	}
	fd = mkstemp(tmp);
	if (fd < 0 || (f = fdopen(fd, "w")) == NULL) {
		fprintf(stderr, "statsctl: %s: %s\n", tmp, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		json_decref(params);
		return 1;
	}
	/* The textfile collector reads files of any mode it can open. */
	(void)fchmod(fd, 0644);
	r = sc_call_each(sc, VL_M_SCRAPE, params, scrape_page, f);
	if (r == 0 && (fflush(f) != 0 || fsync(fd) != 0)) {
		fprintf(stderr, "statsctl: %s: %s\n", tmp, strerror(errno));
		r = 1;
	}
	if (fclose(f) != 0 && r == 0) {
		fprintf(stderr, "statsctl: %s: %s\n", tmp, strerror(errno));
		r = 1;
	}
	if (r == 0 && rename(tmp, path) != 0) {
		fprintf(stderr, "statsctl: %s: %s\n", path, strerror(errno));
		r = 1;
	}
	if (r != 0)
		unlink(tmp);
	return r;
}

static int
scrape_run(struct sc *sc, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "class", required_argument, NULL, 'c' },
		{ "output", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	const char *format = "json", *cls = NULL, *out = NULL;
	json_t *params;
	int c, r;

	while ((c = getopt_long(argc, argv, ":f:c:o:", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			format = optarg;
			break;
		case 'c':
			cls = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		default:
			return sc_optbad(sc, c, argv);
		}
	}
	if (strcmp(format, "json") != 0 && strcmp(format, "kstat") != 0 &&
	    strcmp(format, "linux") != 0 && strcmp(format, "prometheus") != 0 &&
	    strcmp(format, "openmetrics") != 0)
		return sc_usage(sc, "unknown format '%s' (json, kstat, linux, "
		    "prometheus or openmetrics)", format);
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
	if (out != NULL)
		return scrape_to_file(sc, params, out);
	return sc_call_each(sc, VL_M_SCRAPE, params, scrape_page, stdout);
}

const struct verb verb_scrape = {
	.name = "scrape",
	.run = scrape_run,
	.usage = "scrape [--format json|kstat|linux|prometheus|openmetrics]\n"
	    "              [-c CLASS] [-o FILE] [SELECTOR]",
	.summary = "print every kstat in one of statsd's formats",
	.help =
	    "  -f, --format F   json (kstat -j, the default), kstat (kstat -p\n"
	    "                   lines), linux (Linux data lines), prometheus\n"
	    "                   (text 0.0.4) or openmetrics (1.0.0)\n"
	    "  -c, --class PAT  only kstats whose class matches PAT\n"
	    "  -o, --output F   write to F atomically (written beside it,\n"
	    "                   then renamed): node_exporter's textfile\n"
	    "                   collector reads such files\n"
	    "  SELECTOR         module:instance:name:statistic, each a shell\n"
	    "                   glob or /regex/ (default: everything)\n",
};
