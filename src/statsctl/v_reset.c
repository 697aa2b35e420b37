/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * v_reset.c: `statsctl reset` (zero a kstat's data, or named Linux
 * statistics') and `statsctl snapshot` (a coherent copy of a kstat as
 * JSON, optionally resetting it in the same step).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "linuxstat.h"
#include "output.h"
#include "statsctl.h"

static json_t *
reset_params(const struct kref *k, bool reset)
{
	return json_pack("{s:s, s:i, s:s, s:b}", "module", k->module,
	    "instance", (int)k->instance, "name", k->name, "reset", reset);
}

static int
reset_run(struct sc *sc, int argc, char **argv)
{
	struct kref k;
	size_t len = 1, off = 0;
	char *text;
	int i, r;

	if ((r = sc_lead_kstat(sc, argc, argv, 1, "a KSTAT, please",
	    &k)) != 0)
		return r;
	/* The whole blob: a snapshot with reset, its copy thrown away. */
	if (argc - optind == 1)
		return sc_call(sc, VL_M_SNAPSHOT, reset_params(&k, true), NULL);
	/* Named Linux statistics: data=reset for each. */
	if ((r = sc_stat_names(sc, argc, argv, 24, &len)) != 0)
		return r;
	text = malloc(len);
	if (text == NULL)
		return sc_error("out of memory");
	for (i = optind + 1; i < argc; i++)
		off += (size_t)sprintf(text + off, "name=%s data=reset\n",
		    argv[i]);
	return linux_defn_apply(sc, &k, text);
}

struct snapshot_opts {
	bool	reset;	/* --reset */
	bool	raw;	/* --raw */
};

static int
snapshot_opt(struct sc *sc, int c, const char *arg, void *ctx)
{
	struct snapshot_opts *so = ctx;

	(void)sc;
	(void)arg;
	if (c == 'r')
		so->reset = true;
	else
		so->raw = true;
	return 0;
}

static int
snapshot_run(struct sc *sc, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "reset", no_argument, NULL, 'r' },
		{ "raw", no_argument, NULL, 'R' },
		{ "parseable", no_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	enum sc_format fmt = SC_FMT_JSON;
	struct snapshot_opts so = { false, false };
	json_t *reply = NULL;
	struct kref k;
	int r;

	if ((r = sc_getopt(sc, argc, argv, ":p", opts, &fmt, snapshot_opt,
	    &so)) != 0 || (r = sc_one_kstat(sc, argc, argv, false, &k)) != 0)
		return r;
	r = sc_call(sc, VL_M_SNAPSHOT, reset_params(&k, so.reset), &reply);
	if (r != 0)
		return r;
	/* The blob's bytes (base64) only on request: they are for tools. */
	if (!so.raw)
		json_object_del(reply, "raw");
	sc_output(sc, fmt)->snapshot(reply);
	json_decref(reply);
	return 0;
}

const struct verb verb_reset = {
	.name = "reset",
	.run = reset_run,
	.usage = "reset KSTAT [STATISTIC...]",
	.summary = "zero a kstat's data, or named Linux statistics'",
	.help =
	    "  KSTAT            module:instance:name, literally\n"
	    "  STATISTIC...     reset only these Linux statistics (data=reset)\n",
};

const struct verb verb_snapshot = {
	.name = "snapshot",
	.run = snapshot_run,
	.usage = "snapshot [--reset] [--raw] [-p] KSTAT",
	.summary = "print a coherent copy of a kstat as JSON",
	.help =
	    "  --reset          zero the kstat in the same step (owner right)\n"
	    "  --raw            add the blob's bytes, base64, as \"raw\"\n"
	    "  -p, --parseable  module:instance:name:statistic<TAB>value lines\n",
};
