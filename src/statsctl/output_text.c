/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * output_text.c: statsctl's output for people — info as systemctl's
 * status block, templates as stats(3)'s spec list (or a VOI listing),
 * distributions as DTrace's quantize() art, watch as a refreshing table
 * on a terminal and as plain lines when piped.
 */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "output.h"

#define DIST_WIDTH	40	/* DTrace's bar: 40 columns of '@' */

/* ns as systemd prints a time span: "3h 2min", "2min 5s", "1.028s". */
static void
fmt_span(char *buf, size_t len, long long ns)
{
	long long s = ns / 1000000000LL;

	if (ns < 0)
		snprintf(buf, len, "-");
	else if (s < 60)
		snprintf(buf, len, "%lld.%03llds", s,
		    (ns / 1000000LL) % 1000);
	else if (s < 3600)
		snprintf(buf, len, "%lldmin %llds", s / 60, s % 60);
	else if (s < 86400)
		snprintf(buf, len, "%lldh %lldmin", s / 3600, s % 3600 / 60);
	else
		snprintf(buf, len, "%lldd %lldh", s / 86400, s % 86400 / 3600);
}

static void
text_info(const json_t *hello, const json_t *info, bool with_config)
{
	const json_t *peer = json_object_get(hello, "peer");
	const json_t *rights = json_object_get(hello, "rights");
	const json_t *config = json_object_get(info, "config"), *v;
	const char *key;
	char span[64];
	size_t i;

	printf("%s %s, protocol %lld (store ABI %lld, ring ABI %lld)\n",
	    js_str(hello, "product", "statsd"), js_str(info, "version", "?"),
	    js_int(hello, "protocol", 0), js_int(hello, "store_abi", 0),
	    js_int(hello, "ring_abi", 0));
	fmt_span(span, sizeof(span), js_int(info, "uptime_ns", -1));
	printf("%11s: %lld\n", "PID", js_int(info, "pid", 0));
	printf("%11s: %s\n", "Uptime", span);
	printf("%11s: %s\n", "Socket", js_str(info, "socket", ""));
	printf("%11s: %s\n", "Runtime", js_str(info, "runtime_dir", ""));
	printf("%11s: %s\n", "State", js_str(info, "state_dir", ""));
	printf("%11s: %lld\n", "Clients", js_int(info, "clients", 0));
	printf("%11s: %lld\n", "Rings", js_int(info, "rings", 0));
	printf("%11s: %lld (%lld dormant)\n", "Kstats",
	    js_int(info, "kstats", 0), js_int(info, "dormant", 0));
	printf("%11s: %lld\n", "Templates", js_int(info, "templates", 0));
	printf("%11s: %lld\n", "Chain ID", js_int(info, "kcid", 0));
	printf("%11s: %lld applied, %lld rejected, %lld dropped\n", "Updates",
	    js_int(info, "applied", 0), js_int(info, "rejected", 0),
	    js_int(info, "dropped", 0));
	printf("%11s: %lld passes, %lld errors\n", "Drain",
	    js_int(info, "drain_passes", 0), js_int(info, "drain_errors", 0));
	printf("%11s: uid %lld, gid %lld, pid %lld; %s", "Caller",
	    js_int(peer, "uid", -1), js_int(peer, "gid", -1),
	    js_int(peer, "pid", -1), json_is_true(json_object_get(hello,
	    "privileged")) ? "privileged" : "unprivileged");
	for (i = 0; i < json_array_size(rights); i++)
		printf("%s%s", i == 0 ? " (" : ", ",
		    json_string_value(json_array_get(rights, i)));
	printf("%s\n", json_array_size(rights) > 0 ? ")" : "");
	if (!with_config)
		return;
	printf("%11s:\n", "Config");
	json_object_foreach((json_t *)config, key, v) {
		if (json_is_string(v))
			printf("%13s%s =%s%s\n", "", key,
			    json_string_length(v) > 0 ? " " : "",
			    json_string_value(v));
	}
}

/* One statistic of a VOI spec: KIND(param=value,...). */
static void
text_statspec(const json_t *st)
{
	const char *key;
	json_t *v;
	bool first = true;

	printf(" %s", js_str(st, "kind", "?"));
	json_object_foreach((json_t *)st, key, v) {
		char *s;

		if (strcmp(key, "kind") == 0)
			continue;
		s = json_is_string(v) ? NULL : json_dumps(v, JSON_COMPACT |
		    JSON_ENCODE_ANY);
		printf("%s%s=%s", first ? "(" : ",", key, json_is_string(v) ?
		    json_string_value(v) : s != NULL ? s : "?");
		free(s);
		first = false;
	}
	if (!first)
		putchar(')');
}

static void
text_templates(const json_t *reply, bool long_form)
{
	const json_t *tpls = json_object_get(reply, "templates");
	size_t i, j, k;

	if (!long_form) {
		printf("%s\n", js_str(reply, "list", ""));
		return;
	}
	for (i = 0; i < json_array_size(tpls); i++) {
		const json_t *t = json_array_get(tpls, i);
		const json_t *vois = json_object_get(t, "vois");

		printf("%s%s (%lld bytes)\n", i > 0 ? "\n" : "",
		    js_str(t, "spec", "?"), js_int(t, "size", 0));
		for (j = 0; j < json_array_size(vois); j++) {
			const json_t *v = json_array_get(vois, j);
			const json_t *sts = json_object_get(v, "stats");

			printf("  %3lld %-20s %-8s", js_int(v, "id", 0),
			    js_str(v, "name", "?"), js_str(v, "dtype", "?"));
			for (k = 0; k < json_array_size(sts); k++)
				text_statspec(json_array_get(sts, k));
			if (json_is_true(json_object_get(v, "relupdate")))
				printf(" relupdate");
			putchar('\n');
		}
	}
}

static void
text_rates(const json_t *reply)
{
	const char *text = js_str(reply, "text", "");

	if (text[0] != '\0')
		printf("%s\n", text);
}

/* DTrace's quantize() rendering of one histogram. */
static void
text_hist(const struct dist *d)
{
	size_t lo = 0, hi, i;
	double total = d->oob;
	bool any = false;
	char bar[DIST_WIDTH + 1];

	hi = d->nrows > 0 ? d->nrows - 1 : 0;
	for (i = 0; i < d->nrows; i++) {
		if (d->rows[i].count != 0) {
			if (!any)
				lo = i;
			hi = i;
			any = true;
		}
	}
	/* One row either side of the data, as DTrace shows; with no data,
	 * the first two buckets. */
	if (any) {
		lo = lo > 0 ? lo - 1 : 0;
		hi = hi + 1 < d->nrows ? hi + 1 : hi;
	} else {
		hi = d->nrows > 1 ? 1 : 0;
	}
	for (i = lo; i <= hi && i < d->nrows; i++)
		total += fabs(d->rows[i].count);
	printf("\n%16s %41s %-9s\n", "value",
	    "------------- Distribution -------------", "count");
	for (i = lo; i <= hi && i < d->nrows; i++) {
		const struct dist_row *r = &d->rows[i];
		int depth = total > 0 ? (int)lround(fabs(r->count) *
		    DIST_WIDTH / total) : 0;

		memset(bar, '@', (size_t)depth);
		bar[depth] = '\0';
		printf("%16s |%-*s %-9lld\n", r->label, DIST_WIDTH, bar,
		    (long long)r->count);
	}
	if (d->oob != 0) {
		int depth = (int)lround(d->oob * DIST_WIDTH / total);

		memset(bar, '@', (size_t)depth);
		bar[depth] = '\0';
		printf("%16s |%-*s %-9lld\n", "out of range", DIST_WIDTH, bar,
		    (long long)d->oob);
	}
}

/* A t-digest: its sample count, range and quantiles, in the same
 * value column as a histogram. */
static void
text_digest(const struct dist *d)
{
	char v[64];
	size_t i;

	printf("\n");
	fmt_number(v, sizeof(v), d->count);
	printf("%16s %s\n", "count", v);
	if (d->count > 0) {
		fmt_number(v, sizeof(v), d->min);
		printf("%16s %s\n", "min", v);
	}
	for (i = 0; i < d->nquant && d->count > 0; i++) {
		fmt_number(v, sizeof(v), d->quant[i].value);
		printf("%16s %s\n", d->quant[i].label, v);
	}
	if (d->count > 0) {
		fmt_number(v, sizeof(v), d->max);
		printf("%16s %s\n", "max", v);
	}
}

static void
text_dists(const struct dist *d, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		printf("%s%s  %s\n", i > 0 ? "\n" : "", d[i].key, d[i].kind);
		if (d[i].digest)
			text_digest(&d[i]);
		else
			text_hist(&d[i]);
	}
}

static void
text_snapshot(const json_t *reply)
{
	json_dumpf(reply, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(16));
	putchar('\n');
}

/* Rows that fit the terminal, less the header's. */
static size_t
text_rows_fit(void)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) < 0 || ws.ws_row < 5)
		return (size_t)-1;
	return (size_t)ws.ws_row - 4;
}

static void
text_watch(const struct watch_frame *f)
{
	char now[32], val[64], rate[32];
	time_t t = (time_t)f->wall;
	struct tm tm;
	size_t i, w = 30, fit;

	if (!f->tty) {
		/* Piped: one line per statistic per report. */
		for (i = 0; i < f->nrows; i++) {
			const struct watch_row *r = &f->rows[i];

			if (r->counter)
				snprintf(val, sizeof(val), "%.2f", r->rate);
			else
				fmt_number(val, sizeof(val), r->value);
			printf("%.3f %s %s\n", f->wall, r->key, val);
		}
		fflush(stdout);
		return;
	}
	localtime_r(&t, &tm);
	strftime(now, sizeof(now), "%H:%M:%S", &tm);
	for (i = 0; i < f->nrows; i++)
		if (strlen(f->rows[i].key) > w)
			w = strlen(f->rows[i].key);
	/* Home, clear, then the whole table: no flicker of half a frame. */
	printf("\033[H\033[2J");
	printf("statsctl watch  every %.3gs  report %u  %s\n\n",
	    (double)f->interval_ms / 1000.0, f->seq, now);
	printf("%-*s %16s %14s\n", (int)w, "NAME", "CURRENT", "CHANGE/s");
	fit = text_rows_fit();
	for (i = 0; i < f->nrows; i++) {
		const struct watch_row *r = &f->rows[i];

		if (i + 1 >= fit && i + 1 < f->nrows) {
			printf("(%zu more)\n", f->nrows - i);
			break;
		}
		fmt_number(val, sizeof(val), r->value);
		rate[0] = '\0';
		if (r->counter)
			snprintf(rate, sizeof(rate), "%.2f", r->rate);
		printf("%-*s %16s %14s\n", (int)w, r->key, val, rate);
	}
	fflush(stdout);
}

const struct output output_text = {
	.name = "text",
	.info = text_info,
	.templates = text_templates,
	.rates = text_rates,
	.definition = out_definition_text,
	.data = out_data_text,
	.dists = text_dists,
	.snapshot = text_snapshot,
	.watch = text_watch,
};
