/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * report.c: how a verb reports — the output it prints through (text,
 * JSON or parseable lines), its errors and its usage errors on stderr.
 * Every layer of statsctl reports, so this sits below them all and calls
 * none of them.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>

#include "output.h"
#include "statsctl.h"

int
sc_error(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("statsctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return SC_EXIT_FAIL;
}

int
sc_usage(const struct sc *sc, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "statsctl: %s: ", sc->verb->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nusage: statsctl %s\n", sc->verb->usage);
	return SC_EXIT_USAGE;
}

int
sc_optbad(const struct sc *sc, int c, char **argv)
{
	const char *arg = argv[optind - 1];

	if (c == ':')
		return sc_usage(sc, "option %s needs an argument", arg);
	if (optopt != 0)
		return sc_usage(sc, "unknown option -%c", optopt);
	return sc_usage(sc, "unknown option %s", arg);
}

const struct output *
sc_output(const struct sc *sc, enum sc_format f)
{
	if (f == SC_FMT_TEXT)
		f = sc->format;
	switch (f) {
	case SC_FMT_JSON:
		return &output_json;
	case SC_FMT_PARSEABLE:
		return &output_parseable;
	default:
		return &output_text;
	}
}
