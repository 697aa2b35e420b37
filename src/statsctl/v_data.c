/*
 * v_data.c: `statsctl data KSTAT` — the Linux data lines of one kstat's
 * statistics (the Linux statistics infrastructure's "data" file), as the
 * daemon renders them.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "linuxstat.h"
#include "output.h"
#include "statsctl.h"

int
linux_data_get(struct sc *sc, const struct kref *k, char **ret_text)
{
	char sel[256], full[128];
	const char *text, *body;
	json_t *reply = NULL;
	int r;

	*ret_text = NULL;
	r = linux_require(sc, k);
	if (r != 0)
		return r;
	r = sc_call(sc, VL_M_SCRAPE, json_pack("{s:s, s:s}", "format", "linux",
	    "selector", kref_selector(k, sel, sizeof(sel))), &reply);
	if (r != 0)
		return r;
	/* One kstat: drop the "# module:instance:name" line before it. */
	text = js_str(reply, "text", "");
	body = text;
	if (body[0] == '#') {
		body = strchr(body, '\n');
		body = body != NULL ? body + 1 : "";
	}
	*ret_text = strdup(body);
	json_decref(reply);
	if (*ret_text == NULL)
		return sc_error("%s: out of memory", kref_format(k, full,
		    sizeof(full)));
	return 0;
}

static int
data_run(struct sc *sc, int argc, char **argv)
{
	static const struct option opts[] = {
		SC_OPTS_OUTPUT,
		{ NULL, 0, NULL, 0 },
	};
	enum sc_format fmt = SC_FMT_TEXT;
	struct kref k;
	char *text;
	int r;

	if ((r = sc_getopt(sc, argc, argv, ":jp", opts, &fmt, NULL,
	    NULL)) != 0 || (r = sc_one_kstat(sc, argc, argv, false, &k)) != 0)
		return r;
	r = linux_data_get(sc, &k, &text);
	if (r == 0)
		sc_output(sc, fmt)->data(text);
	free(text);
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
