/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * main.c: statsctl, the operator's tool for statsd — global options, the
 * verb table, --help and --version, and the dispatch to one file per
 * verb (v_*.c). Exit status: 0 done, 1 an error (named on stderr), 2 a
 * usage error.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vlclient.h"
#include "conn.h"
#include "statsctl.h"

#ifndef STATSCTL_VERSION
#define STATSCTL_VERSION	"unknown"
#endif

/* The verbs, in the order `statsctl --help` lists them. */
static const struct verb *const verbs[] = {
	&verb_show,
	&verb_watch,
	&verb_iostat,
	&verb_hist,
	&verb_data,
	&verb_definition,
	&verb_define,
	&verb_on,
	&verb_off,
	&verb_reset,
	&verb_snapshot,
	&verb_templates,
	&verb_sample_rates,
	&verb_scrape,
	&verb_info,
};
#define NVERBS	(sizeof(verbs) / sizeof(verbs[0]))

static const char global_usage[] =
    "usage: statsctl [--socket PATH] [--json] VERB [ARGUMENTS...]\n"
    "       statsctl help [VERB] | --help | --version\n";

static const struct verb *
verb_find(const char *name)
{
	size_t i;

	for (i = 0; i < NVERBS; i++)
		if (strcmp(verbs[i]->name, name) == 0)
			return verbs[i];
	return NULL;
}

static void
help_all(FILE *f)
{
	size_t i;

	fputs(global_usage, f);
	fputs("\nOptions:\n"
	    "  --socket PATH  statsd's control socket (default: $STATSD_SOCKET,"
	    "\n                 else /run/statsd/statsd.sock)\n"
	    "  -j, --json     JSON output, for the verbs that have it\n"
	    "  -h, --help     this text; `statsctl VERB --help` for a verb's\n"
	    "  -V, --version  statsctl's version\n"
	    "\nVerbs:\n", f);
	for (i = 0; i < NVERBS; i++)
		fprintf(f, "  %-13s %s\n", verbs[i]->name, verbs[i]->summary);
}

static void
help_verb(const struct verb *v)
{
	printf("usage: statsctl %s\n\n%s.\n\n", v->usage, v->summary);
	if (v->help != NULL)
		fputs(v->help, stdout);
	printf("  --help           this text\n");
	if (v->notes != NULL)
		printf("\n%s", v->notes);
}

/* Does a verb's argument list ask for help (before any "--")? */
static bool
wants_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return false;
		if (strcmp(argv[i], "--help") == 0)
			return true;
	}
	return false;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 'S' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct sc sc = { .format = SC_FMT_TEXT };
	const struct verb *v;
	int c, r;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:jhV", opts, NULL)) != -1) {
		switch (c) {
		case 'S':
			sc.socket = optarg;
			break;
		case 'j':
			sc.format = SC_FMT_JSON;
			break;
		case 'h':
			help_all(stdout);
			return SC_EXIT_OK;
		case 'V':
			printf("statsctl %s\n", STATSCTL_VERSION);
			return SC_EXIT_OK;
		case ':':
			fprintf(stderr, "statsctl: option %s needs an "
			    "argument\n%s", argv[optind - 1], global_usage);
			return SC_EXIT_USAGE;
		default:
			fprintf(stderr, "statsctl: unknown option %s\n%s",
			    argv[optind - 1], global_usage);
			return SC_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "statsctl: no verb given\n%s", global_usage);
		return SC_EXIT_USAGE;
	}
	if (strcmp(argv[optind], "help") == 0) {
		if (optind + 1 >= argc) {
			help_all(stdout);
			return SC_EXIT_OK;
		}
		v = verb_find(argv[optind + 1]);
		if (v == NULL) {
			fprintf(stderr, "statsctl: help: no verb '%s'\n%s",
			    argv[optind + 1], global_usage);
			return SC_EXIT_USAGE;
		}
		help_verb(v);
		return SC_EXIT_OK;
	}
	v = verb_find(argv[optind]);
	if (v == NULL) {
		fprintf(stderr, "statsctl: unknown verb '%s' (`statsctl "
		    "--help` lists them)\n%s", argv[optind], global_usage);
		return SC_EXIT_USAGE;
	}
	if (wants_help(argc - optind, argv + optind)) {
		help_verb(v);
		return SC_EXIT_OK;
	}
	if (sc.socket == NULL)
		sc.socket = vlc_default_socket();
	sc.verb = v;
	/* Each verb parses its own options from the start of its argv
	 * (optind 0 makes GNU getopt start afresh). */
	c = optind;
	optind = 0;
	r = v->run(&sc, argc - c, argv + c);
	sc_conn_close(&sc);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		sc_error("cannot write the output");
		return SC_EXIT_FAIL;
	}
	return r;
}
