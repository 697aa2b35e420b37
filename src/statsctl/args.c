/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * args.c: statsctl's command-line values — a KSTAT argument
 * (module:instance:name[:statistic]), its literal kstat(1M) selector, and
 * numbers and intervals checked for range.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kstat_hdr.h"
#include "statsctl.h"

int
sc_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *ret)
{
	unsigned long long v;
	char *end;

	if (s == NULL || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return -EINVAL;
	*ret = v;
	return 0;
}

int
sc_parse_seconds(const char *s, uint64_t min_ms, uint64_t max_ms,
    uint64_t *ret_ms)
{
	uint64_t sec = 0, ms, scale = 100;
	const char *p = s;
	bool digits = false;

	if (s == NULL)
		return -EINVAL;
	/* Whole seconds, then up to three decimals (milliseconds). */
	for (; *p >= '0' && *p <= '9'; p++) {
		if (sec > max_ms / 10000)
			return -EINVAL;
		sec = sec * 10 + (uint64_t)(*p - '0');
		digits = true;
	}
	ms = sec * 1000;
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (scale == 0)
				return -EINVAL;
			ms += (uint64_t)(*p - '0') * scale;
			scale /= 10;
			digits = true;
		}
	}
	if (!digits || *p != '\0' || ms < min_ms || ms > max_ms)
		return -EINVAL;
	*ret_ms = ms;
	return 0;
}

int
sc_parse_interval(const struct sc *sc, const char *s, uint64_t *ret_ms)
{
	if (sc_parse_seconds(s, 1, 3600000, ret_ms) < 0)
		return sc_usage(sc, "interval '%s' must be seconds, 0.001 to "
		    "3600", s);
	return 0;
}

/* Copy field [s, e) into buf; it must be 1..len-1 bytes. */
static int
kref_field(const char *s, const char *e, char *buf, size_t len)
{
	size_t n = (size_t)(e - s);

	if (n == 0 || n >= len)
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return 0;
}

int
kref_parse(const char *text, bool allow_stat, struct kref *ret)
{
	struct kref k;
	const char *c1, *c2, *c3;
	char inst[16];
	uint64_t v;

	memset(&k, 0, sizeof(k));
	c1 = strchr(text, ':');
	c2 = c1 != NULL ? strchr(c1 + 1, ':') : NULL;
	if (c2 == NULL)
		return -EINVAL;
	c3 = strchr(c2 + 1, ':');
	if (c3 != NULL && !allow_stat)
		return -EINVAL;
	if (kref_field(text, c1, k.module, sizeof(k.module)) < 0 ||
	    kref_field(c1 + 1, c2, inst, sizeof(inst)) < 0 ||
	    sc_parse_uint(inst, 0, INT32_MAX, &v) < 0 ||
	    kref_field(c2 + 1, c3 != NULL ? c3 : c2 + 1 + strlen(c2 + 1),
	    k.name, sizeof(k.name)) < 0)
		return -EINVAL;
	if (c3 != NULL && kref_field(c3 + 1, c3 + 1 + strlen(c3 + 1),
	    k.stat, sizeof(k.stat)) < 0)
		return -EINVAL;
	k.instance = (int32_t)v;
	*ret = k;
	return 0;
}

int
sc_kstat_arg(const struct sc *sc, const char *arg, bool allow_stat,
    struct kref *k)
{
	if (kref_parse(arg, allow_stat, k) < 0)
		return sc_usage(sc, "'%s' is not module:instance:name%s", arg,
		    allow_stat ? "[:voi]" : "");
	return 0;
}

int
sc_one_kstat(const struct sc *sc, int argc, char **argv, bool allow_stat,
    struct kref *k)
{
	if (argc - optind != 1)
		return sc_usage(sc, "one KSTAT%s, please",
		    allow_stat ? "[:VOI]" : "");
	return sc_kstat_arg(sc, argv[optind], allow_stat, k);
}

int
sc_lead_kstat(struct sc *sc, int argc, char **argv, int min,
    const char *missing, struct kref *k)
{
	int r;

	if ((r = sc_getopt(sc, argc, argv, "+:", NULL, NULL, NULL, NULL)) != 0)
		return r;
	if (argc - optind < min)
		return sc_usage(sc, "%s", missing);
	return sc_kstat_arg(sc, argv[optind], false, k);
}

int
sc_stat_names(const struct sc *sc, int argc, char **argv, size_t per,
    size_t *len)
{
	int i;

	for (i = optind + 1; i < argc; i++) {
		if (argv[i][0] == '\0' || strpbrk(argv[i], " \t\n=") != NULL)
			return sc_usage(sc, "'%s' is not a statistic's name",
			    argv[i]);
		*len += strlen(argv[i]) + per;
	}
	return 0;
}

int
sc_opt_flag(struct sc *sc, int c, const char *arg, void *ctx)
{
	(void)sc;
	(void)c;
	(void)arg;
	*(bool *)ctx = true;
	return 0;
}

int
sc_getopt(struct sc *sc, int argc, char **argv, const char *shortopts,
    const struct option *opts, enum sc_format *fmt, sc_opt_fn fn, void *ctx)
{
	int c, r;

	while ((c = getopt_long(argc, argv, shortopts, opts, NULL)) != -1) {
		if (c == 'j' && fmt != NULL)
			*fmt = SC_FMT_JSON;
		else if (c == 'p' && fmt != NULL)
			*fmt = SC_FMT_PARSEABLE;
		else if (c != ':' && c != '?' && fn != NULL) {
			if ((r = fn(sc, c, optarg, ctx)) != 0)
				return r;
		} else
			return sc_optbad(sc, c, argv);
	}
	return 0;
}

char *
kref_format(const struct kref *k, char *buf, size_t len)
{
	snprintf(buf, len, "%s:%d:%s", k->module, (int)k->instance, k->name);
	return buf;
}

/* Append field s to buf with fnmatch(3)'s special characters escaped,
 * and a leading '/' too (it would make the field a regex). */
static void
kref_escape(char *buf, size_t len, const char *s)
{
	size_t off = strlen(buf);
	const char *p;

	for (p = s; *p != '\0' && off + 2 < len; p++) {
		if (strchr("*?[]\\", *p) != NULL || (*p == '/' && p == s))
			buf[off++] = '\\';
		buf[off++] = *p;
	}
	buf[off] = '\0';
}

char *
kref_selector(const struct kref *k, char *buf, size_t len)
{
	char inst[16];

	if (len == 0)
		return buf;
	buf[0] = '\0';
	kref_escape(buf, len, k->module);
	snprintf(inst, sizeof(inst), ":%d:", (int)k->instance);
	kref_escape(buf, len, inst);
	kref_escape(buf, len, k->name);
	if (k->stat[0] != '\0') {
		kref_escape(buf, len, ":");
		kref_escape(buf, len, k->stat);
	}
	return buf;
}

int
sc_check_selector(const struct sc *sc, const char *text)
{
	struct ks_selector sel;
	struct input_error err;

	memset(&err, 0, sizeof(err));
	if (ks_selector_parse(&sel, text, &err) < 0)
		return sc_usage(sc, "bad selector '%s': %s%s%s", text,
		    err.where, err.where[0] != '\0' ? ": " : "", err.msg);
	ks_selector_done(&sel);
	return 0;
}

int
sc_check_class(const struct sc *sc, const char *text)
{
	struct ks_pattern pat;
	struct input_error err;

	memset(&err, 0, sizeof(err));
	if (ks_pattern_init(&pat, text, &err) < 0)
		return sc_usage(sc, "bad class pattern '%s': %s", text,
		    err.msg);
	ks_pattern_done(&pat);
	return 0;
}
