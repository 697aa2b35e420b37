/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * render_prom.c: the Prometheus text format 0.0.4 and OpenMetrics 1.0.0
 * of a kstat (render_prom.h). Counter or gauge is the kind table's word
 * (field.h), never a guess from a name; a stats(3) HIST is a histogram
 * with cumulative buckets and a t-digest a summary. docs/formats.md has
 * the mapping and the choices.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <statsd/kstat.h>

#include "blob.h"
#include "dec.h"
#include "dtype.h"
#include "flat.h"
#include "hist.h"
#include "kind.h"
#include "numeric.h"
#include "render_prom.h"
#include "stat_history.h"
#include "stat_list.h"
#include "stat_raw.h"
#include "statsd_line.h"
#include "tdigest.h"

enum prom_type { PT_NONE = 0, PT_COUNTER, PT_GAUGE, PT_HISTOGRAM,
    PT_SUMMARY };

static const char *const pt_names[] = {
	[PT_NONE] = "unknown", [PT_COUNTER] = "counter", [PT_GAUGE] = "gauge",
	[PT_HISTOGRAM] = "histogram", [PT_SUMMARY] = "summary",
};

const double prom_default_quantiles[3] = { 0.5, 0.9, 0.99 };

/*
 * A conversion to base units, kept exact: a value times mult, divided by
 * 10^point (a time in ns to seconds is point 9). Integers are converted
 * in 128 bits and written as the exact quotient (put_dec()).
 */
struct conv {
	uint64_t	mult;
	unsigned	point;
};

/* One kstat being rendered. */
struct pctx {
	struct prom_out		*o;
	const struct ks_view	*v;
	const char		*only;
	char			*next;
	size_t			 nextlen;
	char			 name[PROM_NAME_MAX];	/* the family's */
	size_t			 namelen;
	size_t			 stemlen;
	/* The VOI under way (vsrc) as a name part: "_<voi>", sanitised. */
	const char		*vsrc;
	char			 vpart[PROM_NAME_MAX];
	size_t			 vlen;
	int			 nseries;
	bool			 statsd_series;	/* the front door's */
	bool			 prom_series;	/* a Prometheus client's */
	/* What one is in its integers: PROM_SERIES_UNIT for a Prometheus
	 * client's series, else 1. */
	double			 unit;
	int			 sl_type;	/* its enum sl_type, or -1 */
	const char		*series_help;	/* HELP's tail, or NULL */
	struct prom_match	*map;		/* its rule, or NULL */
};

int
prom_begin(struct prom_out *o, struct sbuf *buf, bool om)
{
	memset(o, 0, sizeof(*o));
	o->buf = buf;
	o->om = om;
	o->quantiles = prom_default_quantiles;
	o->nq = sizeof(prom_default_quantiles) /
	    sizeof(prom_default_quantiles[0]);
	o->labels = sbuf_new_auto();
	return o->labels != NULL ? 0 : -ENOMEM;
}

void
prom_done(struct prom_out *o)
{
	sbuf_delete(o->labels);
	o->labels = NULL;
}

void
prom_end(struct prom_out *o)
{
	if (o->om)
		sbuf_cat(o->buf, "# EOF\n");
}

/*
 * Appends without a call while the buffer has room (a scrape writes a few
 * hundred million small pieces); sbuf_bcat() grows it, and latches
 * errors, otherwise.
 */
static inline void
w_bcat(struct sbuf *sb, const char *s, size_t n)
{
	if (sb->s_error == 0 && (size_t)sb->s_len + n < (size_t)sb->s_size) {
		memcpy(sb->s_buf + sb->s_len, s, n);
		sb->s_len += (ssize_t)n;
		sb->s_buf[sb->s_len] = '\0';
	} else {
		(void)sbuf_bcat(sb, s, n);
	}
}

static inline void
w_cat(struct sbuf *sb, const char *s)
{
	w_bcat(sb, s, strlen(s));
}

static inline void
w_putc(struct sbuf *sb, char c)
{
	w_bcat(sb, &c, 1);
}

/* Append s to name (at *len, within PROM_NAME_MAX) as a metric name may
 * hold it: every run of other characters one '_', none doubled. */
static void
san_cat(char *name, size_t *len, const char *s, size_t n)
{
	size_t i, l = *len;

	for (i = 0; i < n && s[i] != '\0' && l + 1 < PROM_NAME_MAX; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9')))
			c = '_';
		if (c == '_' && l > 0 && name[l - 1] == '_')
			continue;
		name[l++] = c;
	}
	name[l] = '\0';
	*len = l;
}

/* Append "_" and s, sanitised. */
static void
name_part(char *name, size_t *len, const char *s, size_t n)
{
	if (*len > 0 && name[*len - 1] != '_' && *len + 1 < PROM_NAME_MAX) {
		name[(*len)++] = '_';
		name[*len] = '\0';
	}
	san_cat(name, len, s, n);
	/* A part that was all separators leaves no trailing '_'. */
	while (*len > 0 && name[*len - 1] == '_')
		name[--(*len)] = '\0';
}

/*
 * A word of a name that is a Prometheus type (promtool's lint refuses
 * "_histogram_" in a name: unix:kstat_types has a VOI "histogram") gets
 * an 's': the kstat types' counts are "histograms".
 */
static void
name_untype(char *name, size_t *len, size_t from)
{
	/* With their lengths: this runs for every word of every series'
	 * name, and a strlen() of each type at each word was an eighth of
	 * a scrape's CPU. */
	static const struct {
		const char	*w;
		size_t		 len;
	} types[] = { { "counter", 7 }, { "gauge", 5 }, { "histogram", 9 },
	    { "summary", 7 } };
	size_t i, start = from, l = *len;

	for (i = from; i <= l; i++) {
		size_t t, wl;

		if (i < l && name[i] != '_')
			continue;
		wl = i - start;
		for (t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
			if (start == 0 || i < from || wl != types[t].len ||
			    memcmp(name + start, types[t].w, wl) != 0 ||
			    l + 2 > PROM_NAME_MAX)
				continue;
			memmove(name + i + 1, name + i, l - i + 1);
			name[i] = 's';
			l++;
			i++;
			break;
		}
		start = i + 1;
	}
	*len = l;
}

/* The path segment i (0-based) of a kstat2 path "a/b/c": its text and
 * length. Returns: whether there is one. */
static bool
path_seg(const char *path, unsigned i, const char **ret, size_t *ret_len)
{
	const char *p = path, *e;

	if (*p == '\0')
		return false;
	for (;;) {
		e = strchr(p, '/');
		if (i == 0) {
			*ret = p;
			*ret_len = e != NULL ? (size_t)(e - p) : strlen(p);
			return true;
		}
		if (e == NULL)
			return false;
		p = e + 1;
		i--;
	}
}

/* A path segment of a statsd series with its %XX escapes undone
 * (statsd_line.h); one that does not decode is taken as it is. */
static size_t
seg_decode(const char *s, size_t n, char *out, size_t outlen)
{
	int r = sl_seg_decode(s, n, out, outlen);

	if (r >= 0)
		return (size_t)r;
	n = n < outlen - 1 ? n : outlen - 1;
	memcpy(out, s, n);
	out[n] = '\0';
	return n;
}

/* Is h a statsd series of the front door (a metric name and tags in its
 * path)? */
static bool
is_statsd_series(const struct kstat_hdr *h)
{
	return strcmp(h->class_, "statsd") == 0 &&
	    strncmp(h->path, "statsd/", 7) == 0;
}

/*
 * Is h a series of a Prometheus client library (statsd's Python binding):
 * class "prometheus", path "prometheus/<type>/<family>[/<label>=<value>
 * ...]"? It is shown under its family's own name and labels, as that
 * library would show it, so that dashboards keep working when an
 * application moves to statsd. Its one VOI keeps millionths in integers
 * (PROM_SERIES_UNIT): a stats(3) histogram takes integer bounds, and a
 * Prometheus bucket's bound is a fraction (le="0.005"); shown, a value is
 * the correctly rounded quotient.
 */
#define PROM_SERIES_UNIT	1e6

static bool
is_prom_series(const struct kstat_hdr *h)
{
	const char *fam;

	if (strcmp(h->class_, "prometheus") != 0 ||
	    strncmp(h->path, "prometheus/", 11) != 0)
		return false;
	/* statsd_ is statsd's own namespace: a peer's series claiming it
	 * (to pass for statsd's counters) keeps its kstat's names. */
	fam = strchr(h->path + 11, '/');
	return fam != NULL && strncmp(fam + 1, "statsd_", 7) != 0;
}

static int series_type(const struct kstat_hdr *h);

/* The metric of a statsd series, decoded, into buf (KS_PATH_MAX + 1). */
static size_t
series_metric(const struct kstat_hdr *h, char *buf, size_t len)
{
	const char *seg;
	size_t seglen;

	if (!path_seg(h->path, 2, &seg, &seglen)) {
		buf[0] = '\0';
		return 0;
	}
	return seg_decode(seg, seglen, buf, len);
}

char *
prom_stem_rules(const struct prom_rules *rules, const struct kstat_hdr *h,
    char *buf, size_t len)
{
	struct prom_match m;
	char metric[KS_PATH_MAX + 1];
	size_t ml, n = 0;

	if (rules == NULL || prom_rules_count(rules) == 0 ||
	    !is_statsd_series(h))
		return prom_stem(h, buf, len);
	ml = series_metric(h, metric, sizeof(metric));
	if (!prom_rules_match(rules, metric, ml, &m) || m.drop ||
	    m.name[0] == '\0')
		return prom_stem(h, buf, len);
	/* The rule's name is the family's: sanitised, no prefix. */
	{
		char name[PROM_NAME_MAX];

		name[0] = '\0';
		san_cat(name, &n, m.name, strlen(m.name));
		/* A counter named "x_total" is the family x: its series get
		 * their _total once. */
		if (series_type(h) == SL_COUNTER && n > 6 &&
		    strcmp(name + n - 6, "_total") == 0)
			name[n - 6] = '\0';
		snprintf(buf, len, "%s", name);
	}
	return buf;
}

char *
prom_stem(const struct kstat_hdr *h, char *buf, size_t len)
{
	char name[PROM_NAME_MAX];
	size_t n = 0;
	const char *seg;
	size_t seglen;

	name[0] = '\0';
	if (is_prom_series(h) && path_seg(h->path, 2, &seg, &seglen)) {
		char family[KS_PATH_MAX + 1];
		size_t fl = seg_decode(seg, seglen, family, sizeof(family));

		san_cat(name, &n, family, fl);
		snprintf(buf, len, "%s", name);
		return buf;
	}
	san_cat(name, &n, "statsd", 6);
	if (is_statsd_series(h) && path_seg(h->path, 2, &seg, &seglen)) {
		char metric[KS_PATH_MAX + 1];
		size_t ml = seg_decode(seg, seglen, metric, sizeof(metric));

		name_part(name, &n, metric, ml);
	} else {
		name_part(name, &n, h->module, strlen(h->module));
		name_part(name, &n, h->name, strlen(h->name));
	}
	name_untype(name, &n, 0);
	snprintf(buf, len, "%s", name);
	return buf;
}

/* A label value, escaped (\\, \" and \n), within quotes. */
static void
label_value(struct sbuf *sb, const char *s, size_t n)
{
	size_t i;

	w_putc(sb, '"');
	for (i = 0; i < n && s[i] != '\0'; i++) {
		if (s[i] == '\\')
			w_cat(sb, "\\\\");
		else if (s[i] == '"')
			w_cat(sb, "\\\"");
		else if (s[i] == '\n')
			w_cat(sb, "\\n");
		else
			w_putc(sb, s[i]);
	}
	w_putc(sb, '"');
}

/*
 * A statsd series' tags as labels: "key:value" is key="value", a bare
 * "key" key="true". A key is sanitised as a label name; one that would
 * be reserved (le, quantile, a leading "__") or repeat the one before
 * (tags are sorted) is prefixed "tag_" or left out.
 */
static bool
lname_in(const char *names, const char *key)
{
	const char *p;

	for (p = names; p != NULL && *p != '\0'; p += strlen(p) + 1)
		if (strcmp(p, key) == 0)
			return true;
	return false;
}

static void
tag_labels(struct sbuf *sb, const char *path, const char *skip, bool first)
{
	char tag[KS_PATH_MAX + 1], key[PROM_NAME_MAX], prev[PROM_NAME_MAX];
	const char *seg, *colon, *val;
	size_t seglen, tl, kl, vl;
	unsigned i;

	prev[0] = '\0';
	for (i = 3; path_seg(path, i, &seg, &seglen); i++) {
		tl = seg_decode(seg, seglen, tag, sizeof(tag));
		colon = memchr(tag, ':', tl);
		kl = 0;
		key[0] = '\0';
		san_cat(key, &kl, tag, colon != NULL ? (size_t)(colon - tag) :
		    tl);
		if (kl == 0)
			continue;
		if ((key[0] >= '0' && key[0] <= '9') || strcmp(key, "le") == 0 ||
		    strcmp(key, "quantile") == 0 || key[0] == '_') {
			char k2[PROM_NAME_MAX + 8];

			snprintf(k2, sizeof(k2), "tag_%s", key);
			memcpy(key, k2, sizeof(key) - 1);
			key[sizeof(key) - 1] = '\0';
		}
		if (strcmp(key, prev) == 0 || lname_in(skip, key))
			continue;
		snprintf(prev, sizeof(prev), "%s", key);
		val = colon != NULL ? colon + 1 : "true";
		vl = colon != NULL ? tl - (size_t)(colon + 1 - tag) : 4;
		if (!first)
			w_putc(sb, ',');
		first = false;
		w_cat(sb, key);
		w_putc(sb, '=');
		label_value(sb, val, vl);
	}
}

/* A Prometheus client's series' labels: its path's "<label>=<value>"
 * segments, in their order (the client checked the names). */
static void
prom_series_labels(struct sbuf *sb, const char *path)
{
	char lv[KS_PATH_MAX + 1];
	const char *seg, *eq;
	size_t seglen, n;
	unsigned i;
	bool first = true;

	for (i = 3; path_seg(path, i, &seg, &seglen); i++) {
		n = seg_decode(seg, seglen, lv, sizeof(lv));
		eq = memchr(lv, '=', n);
		if (eq == NULL || eq == lv)
			continue;
		if (!first)
			w_putc(sb, ',');
		first = false;
		w_bcat(sb, lv, (size_t)(eq - lv));
		w_putc(sb, '=');
		label_value(sb, eq + 1, n - (size_t)(eq + 1 - lv));
	}
}

/* The kstat's labels, without braces, into o->labels. */
static int
make_labels(struct prom_out *o, const struct kstat_hdr *h, bool series,
    const struct prom_match *m)
{
	struct sbuf *sb = o->labels;
	const char *seg;
	size_t seglen;
	unsigned i;

	sbuf_clear(sb);
	if (is_prom_series(h)) {
		prom_series_labels(sb, h->path);
	} else if (series) {
		/* A rule's labels, then the tags of other names. */
		if (m != NULL)
			w_cat(sb, m->labels);
		tag_labels(sb, h->path, m != NULL ? m->lnames : NULL,
		    m == NULL || m->labels[0] == '\0');
	} else {
		w_cat(sb, "module=");
		label_value(sb, h->module, strlen(h->module));
		/* Not "instance": Prometheus gives every series its
		 * target's (host:port) under that name. */
		sbuf_printf(sb, ",kstat_instance=\"%d\",name=",
		    (int)h->instance);
		label_value(sb, h->name, strlen(h->name));
		w_cat(sb, ",class=");
		label_value(sb, h->class_, strlen(h->class_));
		for (i = 0; path_seg(h->path, i, &seg, &seglen); i++) {
			sbuf_printf(sb, ",path_%u=", i + 1);
			label_value(sb, seg, seglen);
		}
	}
	return sbuf_finish(sb) != 0 ? -ENOMEM : 0;
}

/* d as Go's strconv would read it back exactly: the shortest of %.15g
 * and %.17g that round-trips; with canon, a ".0" on an integer, as
 * OpenMetrics writes le and quantile. */
static void
put_double(struct sbuf *sb, double d, bool canon)
{
	char t[40];

	if (isnan(d)) {
		w_cat(sb, "NaN");
		return;
	}
	if (isinf(d)) {
		w_cat(sb, d > 0 ? "+Inf" : "-Inf");
		return;
	}
	snprintf(t, sizeof(t), "%.15g", d);
	if (strtod(t, NULL) != d)
		snprintf(t, sizeof(t), "%.17g", d);
	w_cat(sb, t);
	if (canon && strpbrk(t, ".eEn") == NULL)
		w_cat(sb, ".0");
}

/* Text as HELP holds it, escaped: \\ and \n, and \" in OpenMetrics. */
static void
put_help(struct prom_out *o, const char *s)
{
	const char *p = s;

	for (; *s != '\0'; s++) {
		if (*s != '\\' && *s != '\n' && (*s != '"' || !o->om))
			continue;
		w_bcat(o->buf, p, (size_t)(s - p));
		w_cat(o->buf, *s == '\\' ? "\\\\" : *s == '\n' ? "\\n" :
		    "\\\"");
		p = s + 1;
	}
	w_bcat(o->buf, p, (size_t)(s - p));
}

/* "# HELP <family> <text>\n": the kstat's description, then what the
 * series is. */
static void
put_help_line(struct pctx *c, const char *total, const char *voi,
    const char *what)
{
	const struct kstat_hdr *h = c->v->hdr;
	struct sbuf *sb = c->o->buf;

	w_cat(sb, "# HELP ");
	w_bcat(sb, c->name, c->namelen);
	w_cat(sb, total);
	w_putc(sb, ' ');
	if (c->prom_series) {
		/* The client's documentation alone, as the client shows. */
		put_help(c->o, h->desc);
		w_putc(sb, '\n');
		return;
	}
	if (c->sl_type >= 0) {
		/* "statsd timer api.latency, in seconds" */
		char metric[KS_PATH_MAX + 1];
		const char *seg;
		size_t seglen, ml = 0;

		if (path_seg(h->path, 2, &seg, &seglen))
			ml = seg_decode(seg, seglen, metric, sizeof(metric));
		metric[ml] = '\0';
		w_cat(sb, "statsd ");
		w_cat(sb, sl_type_names[c->sl_type]);
		w_putc(sb, ' ');
		put_help(c->o, metric);
		if (c->series_help != NULL) {
			w_cat(sb, ", ");
			w_cat(sb, c->series_help);
		}
		w_putc(sb, '\n');
		return;
	}
	if (h->desc[0] != '\0') {
		put_help(c->o, h->desc);
		w_cat(sb, " (");
	}
	put_help(c->o, h->module);
	w_putc(sb, ':');
	put_help(c->o, h->name);
	w_putc(sb, ' ');
	if (voi != NULL) {
		put_help(c->o, voi);
		w_putc(sb, ' ');
	}
	w_cat(sb, what);
	w_cat(sb, h->desc[0] != '\0' ? ")\n" : "\n");
}

/*
 * Whether the family in c->name takes this series: it is the family
 * asked for, and the open family or a new one (whose HELP and TYPE are
 * written now) of the same type. what says what the series is, for HELP.
 */
static bool
fam_take(struct pctx *c, enum prom_type t, const char *voi, const char *what)
{
	struct prom_out *o = c->o;
	struct sbuf *sb = o->buf;
	const char *total = t == PT_COUNTER && !o->om ? "_total" : "";

	if (c->only != NULL && strcmp(c->name, c->only) != 0) {
		if (c->next != NULL && strcmp(c->name, c->only) > 0 &&
		    (c->next[0] == '\0' || strcmp(c->name, c->next) < 0))
			snprintf(c->next, c->nextlen, "%s", c->name);
		return false;
	}
	if (o->famlen == c->namelen && memcmp(o->fam, c->name,
	    c->namelen) == 0) {
		if (o->famtype == t)
			return true;
		o->conflicts++;
		return false;
	}
	memcpy(o->fam, c->name, c->namelen + 1);
	o->famlen = c->namelen;
	o->famtype = (uint8_t)t;
	if (o->om) {
		w_cat(sb, "# TYPE ");
		w_bcat(sb, c->name, c->namelen);
		w_putc(sb, ' ');
		w_cat(sb, pt_names[t]);
		w_putc(sb, '\n');
	}
	put_help_line(c, total, voi, what);
	if (!o->om) {
		w_cat(sb, "# TYPE ");
		w_bcat(sb, c->name, c->namelen);
		w_cat(sb, total);
		w_putc(sb, ' ');
		w_cat(sb, pt_names[t]);
		w_putc(sb, '\n');
	}
	return true;
}

/* An integer: its digits, with a '-' when neg. */
static void
put_int(struct sbuf *sb, uint64_t mag, bool neg)
{
	char t[1 + DEC_U64_MAX], *p = dec_u64_end(t + sizeof(t), mag);

	if (neg)
		*--p = '-';
	w_bcat(sb, p, (size_t)(t + sizeof(t) - p));
}

static void
put_i64(struct sbuf *sb, int64_t v)
{
	put_int(sb, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, v < 0);
}

/*
 * mag / 10^point, exactly: the integer's digits with the decimal point
 * moved and trailing zeros dropped, so that 200 us is "0.0002", never the
 * 0.00019999999999999998 that 200 * 1e-6 is as a double; a reader parses
 * it to the double nearest the exact quotient. canon: ".0" on a whole
 * number, as OpenMetrics writes le. point is at most 24.
 */
static void
put_dec(struct sbuf *sb, unsigned __int128 mag, bool neg, unsigned point,
    bool canon)
{
	char t[72];
	size_t i = sizeof(t), nd = 0, frac = point, end = sizeof(t);

	do {
		t[--i] = (char)('0' + (unsigned)(mag % 10));
		mag /= 10;
		nd++;
	} while (mag != 0);
	while (nd < point + 1) {
		t[--i] = '0';
		nd++;
	}
	while (frac > 0 && t[end - 1] == '0') {
		end--;
		frac--;
	}
	if (neg && (nd > 1 || t[i] != '0' || frac > 0))
		w_putc(sb, '-');
	w_bcat(sb, t + i, nd - point);
	if (frac > 0) {
		w_putc(sb, '.');
		w_bcat(sb, t + i + nd - point, frac);
	} else if (canon) {
		w_cat(sb, ".0");
	}
}

/* A signed 128-bit value / 10^point, exactly (put_dec()). */
static void
put_dec_s(struct sbuf *sb, __int128 v, unsigned point, bool canon)
{
	put_dec(sb, v < 0 ? (unsigned __int128)0 - (unsigned __int128)v :
	    (unsigned __int128)v, v < 0, point, canon);
}

/* An integer numeric's value; false for a fixed-point one. */
static bool
num_int(enum vsd_dtype dt, const struct voistatdata_numeric *n, __int128 *ret)
{
	switch (dt) {
	case VSD_DTYPE_INT_S32:
		*ret = n->int32.s32;
		return true;
	case VSD_DTYPE_INT_U32:
		*ret = n->int32.u32;
		return true;
	case VSD_DTYPE_INT_S64:
		*ret = n->int64.s64;
		return true;
	case VSD_DTYPE_INT_U64:
		*ret = n->int64.u64;
		return true;
	default:
		return false;
	}
}

/* A value converted by cv: exactly for an integer, else as the nearest
 * double of the converted fixed-point value. */
static void
put_conv(struct sbuf *sb, enum vsd_dtype dt,
    const struct voistatdata_numeric *n, const struct conv *cv)
{
	__int128 x;
	double d;
	unsigned i;

	if (num_int(dt, n, &x)) {
		put_dec_s(sb, x * (__int128)cv->mult, cv->point, false);
		return;
	}
	d = numeric_to_double(dt, n) * (double)cv->mult;
	for (i = 0; i < cv->point; i++)
		d /= 10;
	put_double(sb, d, false);
}

/* The start of a series: "<family><suffix>{<labels>[,<extra>". */
static void
series_start(struct pctx *c, const char *suffix)
{
	struct sbuf *sb = c->o->buf;

	w_bcat(sb, c->name, c->namelen);
	w_cat(sb, suffix);
	w_putc(sb, '{');
	w_bcat(sb, sbuf_data(c->o->labels), (size_t)sbuf_len(c->o->labels));
	c->nseries++;
}

/* Set c->name: the stem, the VOI (NULL: none), a part (NULL: none) and a
 * unit suffix (NULL: none). */
static void
fam_name(struct pctx *c, const char *voi, const char *part, const char *unit)
{
	size_t n = c->stemlen;

	c->name[n] = '\0';
	if (voi != NULL && voi == c->vsrc && n + c->vlen < PROM_NAME_MAX) {
		/* The VOI's part, made once for all its statistics. */
		memcpy(c->name + n, c->vpart, c->vlen + 1);
		n += c->vlen;
	} else if (voi != NULL) {
		size_t from = n;

		name_part(c->name, &n, voi, strlen(voi));
		name_untype(c->name, &n, from);
	}
	/* Parts and units are the kind table's words: never a type's. */
	if (part != NULL)
		name_part(c->name, &n, part, strlen(part));
	if (unit != NULL)
		name_part(c->name, &n, unit, strlen(unit));
	c->namelen = n;
}

/* The unit a kstat2 content type gives its values, and the conversion to
 * base units (times in ns to seconds), with the kstat's scale. */
static const char *
content_unit(const struct kstat_hdr *h, struct conv *cv)
{
	cv->mult = h->scale > 1 ? (uint64_t)h->scale : 1;
	cv->point = 0;
	switch (h->content) {
	case KSTAT2_NVMT_BYTES:
		return "bytes";
	case KSTAT2_NVMT_T_REL:
	case KSTAT2_NVMT_T_ACC:
		cv->point = 9;
		return "seconds";
	default:
		return NULL;
	}
}

/* A VOI whose name ends in a time unit (uptime_ns) is a time: its name
 * without the unit, in seconds (point from the unit). Returns: whether
 * it is; the name's length without the unit in *ret_len. */
static bool
voi_time_unit(const char *voi, size_t *ret_len, unsigned *point)
{
	static const struct { const char *sfx; unsigned point; } u[] = {
		{ "_ns", 9 }, { "_us", 6 }, { "_ms", 3 },
	};
	size_t n = voi != NULL ? strlen(voi) : 0, i;

	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++)
		if (n > 3 && strcmp(voi + n - 3, u[i].sfx) == 0) {
			*ret_len = n - 3;
			*point = u[i].point;
			return true;
		}
	return false;
}

/* An integer scalar exactly, as numeric_format() would, without printf. */
static void
put_numeric(struct sbuf *sb, enum vsd_dtype dt,
    const struct voistatdata_numeric *n)
{
	switch (dt) {
	case VSD_DTYPE_INT_S32:
		put_i64(sb, n->int32.s32);
		break;
	case VSD_DTYPE_INT_U32:
		put_int(sb, n->int32.u32, false);
		break;
	case VSD_DTYPE_INT_S64:
		put_i64(sb, n->int64.s64);
		break;
	case VSD_DTYPE_INT_U64:
		put_int(sb, n->int64.u64, false);
		break;
	default:
		numeric_format(sb, dt, n);
		break;
	}
}

/*
 * A fixed-point value exactly: as the shortest double that reads back to
 * it when a double holds it (up to 53 significant bits: 16.666666666744277
 * for a Q32.32 16.67, 5 for 5.0), else as its exact decimal expansion
 * (numeric_format()), which a reader parses to the nearest double.
 */
static void
put_q(struct sbuf *sb, enum vsd_dtype dt, const struct voistatdata_numeric *n)
{
	uint64_t mag = 0;

	if (dt == VSD_DTYPE_Q_U64)
		mag = n->q64.uq64;
	else if (dt == VSD_DTYPE_Q_S64)
		mag = n->q64.sq64 < 0 ? (uint64_t)0 - (uint64_t)n->q64.sq64 :
		    (uint64_t)n->q64.sq64;
	if (mag != 0 && 64 - __builtin_clzll(mag) - __builtin_ctzll(mag) > 53)
		(void)numeric_format(sb, dt, n);
	else
		put_double(sb, numeric_to_double(dt, n), false);
}

/* A scalar statistic (SUM, MIN, MAX, LAST, COUNT): one series. */
static void
put_scalar(struct pctx *c, const struct voi *v, const struct voistat *vs,
    const struct voistatdata *vsd, const char *voi, bool own)
{
	const struct stat_field *f = &stype_ops[vs->stype].fields[0];
	bool sgn = dtype_valid(v->dtype) && dtype_info[v->dtype].is_signed;
	enum prom_type t = field_is_counter(f, sgn) ? PT_COUNTER : PT_GAUGE;
	struct voistatdata_numeric num;
	struct conv cv = { 1, 0 };
	const char *unit = vs->stype == VS_STYPE_COUNT ? NULL :
	    content_unit(c->v->hdr, &cv);
	char base[PROM_NAME_MAX];
	size_t blen;
	unsigned tp;

	if (!dtype_is_scalar(vs->dtype))
		return;	/* a string: no number to show */
	if (vs->stype == VS_STYPE_COUNT) {
		cv.mult = 1;
		cv.point = 0;
	} else if (unit == NULL && voi_time_unit(voi, &blen, &tp)) {
		snprintf(base, sizeof(base), "%.*s", (int)blen, voi);
		voi = base;
		unit = "seconds";
		cv.point = tp;
	}
	fam_name(c, voi, own ? NULL : f->suffix, unit);
	if (!fam_take(c, t, voi, stype_ops[vs->stype].name))
		return;
	series_start(c, t == PT_COUNTER ? "_total" : "");
	w_cat(c->o->buf, "} ");
	numeric_load((enum vsd_dtype)vs->dtype, vsd, &num);
	if (c->unit != 1)
		put_double(c->o->buf, numeric_to_double(
		    (enum vsd_dtype)vs->dtype, &num) / c->unit, false);
	else if (cv.mult == 1 && cv.point == 0 && !dtype_info[vs->dtype].is_q)
		put_numeric(c->o->buf, (enum vsd_dtype)vs->dtype, &num);
	else if (cv.mult == 1 && cv.point == 0)
		put_q(c->o->buf, (enum vsd_dtype)vs->dtype, &num);
	else
		put_conv(c->o->buf, (enum vsd_dtype)vs->dtype, &num, &cv);
	w_putc(c->o->buf, '\n');
}

/* A record kind's fields (kstat_io, kstat_timer): one family each, times
 * in seconds. */
static void
put_fields(struct pctx *c, const struct stype_ops *ops,
    const struct voistatdata *vsd, const char *voi)
{
	uint64_t vals[32], now = c->v->hdr->snaptime > 0 ?
	    (uint64_t)c->v->hdr->snaptime : 0;
	uint8_t i;

	if (ops->nfields > sizeof(vals) / sizeof(vals[0]))
		return;
	ops->field_values(vsd, now, vals);
	for (i = 0; i < ops->nfields; i++) {
		const struct stat_field *f = &ops->fields[i];
		bool ns = strcmp(f->unit, "ns") == 0;
		enum prom_type t = field_is_counter(f, false) ? PT_COUNTER :
		    PT_GAUGE;

		fam_name(c, voi, f->suffix, ns ? "seconds" :
		    f->unit[0] != '\0' ? f->unit : NULL);
		if (!fam_take(c, t, voi, f->suffix))
			continue;
		series_start(c, t == PT_COUNTER ? "_total" : "");
		w_cat(c->o->buf, "} ");
		if (ns && f->is_signed)
			put_dec_s(c->o->buf, (int64_t)vals[i], 9, false);
		else if (ns)
			put_dec(c->o->buf, vals[i], false, 9, false);
		else if (f->is_signed)
			put_i64(c->o->buf, (int64_t)vals[i]);
		else
			put_int(c->o->buf, vals[i], false);
		w_putc(c->o->buf, '\n');
	}
}

/* The VOI's SUM as a double, for a histogram's or summary's _sum.
 * Returns: whether it has one. */
static bool
voi_sum(const struct statsblobv1 *b, const struct voi *v, double *ret)
{
	const struct voistat *vs = blob_stat(b, v, VS_STYPE_SUM);
	struct voistatdata_numeric num;

	if (vs == NULL || !dtype_is_scalar(vs->dtype))
		return false;
	numeric_load((enum vsd_dtype)vs->dtype, blob_vsd(b, vs), &num);
	*ret = numeric_to_double((enum vsd_dtype)vs->dtype, &num);
	return true;
}

static void
put_bucket(struct pctx *c, double le, uint64_t cum)
{
	series_start(c, "_bucket");
	w_cat(c->o->buf, sbuf_len(c->o->labels) > 0 ? ",le=\"" : "le=\"");
	put_double(c->o->buf, le, true);
	w_cat(c->o->buf, "\"} ");
	put_int(c->o->buf, cum, false);
	w_putc(c->o->buf, '\n');
}

/* The _count of a histogram or summary, after its _sum. */
static void
put_count(struct pctx *c, uint64_t count)
{
	series_start(c, "_count");
	w_cat(c->o->buf, "} ");
	put_int(c->o->buf, count, false);
	w_putc(c->o->buf, '\n');
}

/* The _sum and _count of a histogram or summary: both or neither, as
 * OpenMetrics asks, so only when the VOI has a SUM. */
static void
put_sum_count(struct pctx *c, bool has_sum, double sum, uint64_t count)
{
	if (!has_sum)
		return;
	series_start(c, "_sum");
	w_cat(c->o->buf, "} ");
	put_double(c->o->buf, sum, false);
	w_putc(c->o->buf, '\n');
	put_count(c, count);
}

/* The _sum and _count of a statsd series' histogram or summary: the
 * SUM stat sum (skipped unless scalar) written in its own type, scaled
 * down point decimal places, and count. */
static void
put_stat_sum_count(struct pctx *c, const struct statsblobv1 *b,
    const struct voistat *sum, unsigned point, uint64_t count)
{
	struct voistatdata_numeric num;

	if (sum == NULL || !dtype_is_scalar(sum->dtype))
		return;
	series_start(c, "_sum");
	w_cat(c->o->buf, "} ");
	numeric_load((enum vsd_dtype)sum->dtype, blob_vsd(b, sum), &num);
	put_conv(c->o->buf, (enum vsd_dtype)sum->dtype, &num,
	    &(struct conv){ 1, point });
	w_putc(c->o->buf, '\n');
	put_count(c, count);
}

/*
 * A stats(3) histogram: cumulative buckets. A bucket is [lb, next lb)
 * (continuous ranges) or [lb, ub) (discrete ranges), so its le is the
 * next bound, less one on an integer VOI; a discrete value's le is the
 * value. Out-of-band counts of a continuous-range histogram are values
 * below its first bound: they count in every bucket. Those of the other
 * forms may lie anywhere outside the buckets: they count in +Inf only.
 */
static void
put_hist(struct pctx *c, const struct statsblobv1 *b, const struct voi *v,
    const struct voistat *vs, const struct voistatdata *vsd, const char *voi)
{
	const struct hist_geom *g = hist_geom((enum vsd_dtype)vs->dtype);
	enum vsd_dtype vd = (enum vsd_dtype)v->dtype;
	struct voistatdata_numeric max;
	struct voistatdata *w = (struct voistatdata *)vsd;
	bool integer, has_sum, have_prev = false, neg = false;
	uint64_t oob, cum, total = 0;
	double sum = 0, le, prev = 0, div = c->unit;
	const char *unit = NULL;
	uint16_t i, n;

	if (g == NULL || !dtype_is_scalar(vd))
		return;
	/* A kstat2 histogram's content type names the unit of its values
	 * (its bounds, in base units: times in seconds); its scale is of
	 * the bucket contents, not of the bounds. */
	if (c->v->hdr->type == KSTAT_TYPE_HIST) {
		struct conv cv;

		unit = content_unit(c->v->hdr, &cv);
		/* A bound is divided once, by an exact power of ten, so
		 * that it is the correctly rounded decimal. */
		if (cv.point == 9)
			div *= 1e9;
	}
	fam_name(c, voi, c->prom_series ? NULL : "hist", unit);
	if (!fam_take(c, PT_HISTOGRAM, voi, "HIST"))
		return;
	integer = !dtype_info[vd].is_q;
	max = numeric_limit(vd, true);
	n = hist_nbuckets(vsd, g);
	oob = hist_oob(vsd, g);
	cum = g->kind == 'C' ? oob : 0;
	for (i = 0; i < n; i++) {
		const struct voistatdata_numeric *ub;
		uint64_t cnt = hist_bkt_cnt(vsd, g, i);

		total += cnt;
		cum += cnt;
		if (g->kind == 'C')
			ub = i + 1 < n ? hist_bkt_lb(w, g, i + 1) : NULL;
		else if (g->kind == 'D')
			ub = hist_bkt_ub(w, g, i);
		else
			ub = hist_bkt_lb(w, g, i);
		/* The last range reaching the type's maximum is +Inf's. */
		if (ub == NULL || (g->kind != 'V' &&
		    numeric_cmp(vd, ub, &max) == 0))
			continue;
		le = numeric_to_double(vd, ub);
		if (g->kind != 'V' && integer)
			le -= 1;
		le /= div;
		if (have_prev && le <= prev)
			continue;	/* not above the last: merged into it */
		put_bucket(c, le, cum);
		neg = neg || le < 0;
		prev = le;
		have_prev = true;
	}
	total += oob;
	put_bucket(c, INFINITY, total);
	/* OpenMetrics has no _sum for a histogram with a bucket below 0
	 * (its sum need not grow), and no _count without one: a statsd
	 * timer's band below 0 is one. The VOI's SUM and COUNT are still
	 * series of their own. */
	has_sum = voi_sum(b, v, &sum) && !(c->o->om && neg);
	put_sum_count(c, has_sum, sum / div, total);
}

/* A t-digest: a summary of the configured quantiles (NaN while empty). */
static void
put_tdgst(struct pctx *c, const struct statsblobv1 *b, const struct voi *v,
    const struct voistatdata *vsd, const char *voi)
{
	uint64_t count = tdgst_count(vsd);
	double q, sum = 0;
	bool has_sum;
	size_t i;

	fam_name(c, voi, c->prom_series ? NULL : "tdigest", NULL);
	if (!fam_take(c, PT_SUMMARY, voi, "TDGST"))
		return;
	for (i = 0; i < c->o->nq; i++) {
		if (count == 0 || tdgst_quantile(vsd, c->o->quantiles[i],
		    &q) != 0)
			q = NAN;
		q /= c->unit;
		series_start(c, "");
		w_cat(c->o->buf, sbuf_len(c->o->labels) > 0 ?
		    ",quantile=\"" : "quantile=\"");
		put_double(c->o->buf, c->o->quantiles[i], true);
		w_cat(c->o->buf, "\"} ");
		put_double(c->o->buf, q, false);
		w_putc(c->o->buf, '\n');
	}
	has_sum = voi_sum(b, v, &sum);
	put_sum_count(c, has_sum, sum / c->unit, count);
}

/* One series of c's family with one more label (NULL: none) and a
 * value already formatted by put. */
static void
put_plain(struct pctx *c, const char *suffix, const char *label,
    const char *lvalue, int64_t v, bool is_signed)
{
	series_start(c, suffix);
	if (label != NULL) {
		if (sbuf_len(c->o->labels) > 0)
			w_putc(c->o->buf, ',');
		w_cat(c->o->buf, label);
		w_putc(c->o->buf, '=');
		label_value(c->o->buf, lvalue, strlen(lvalue));
	}
	w_cat(c->o->buf, "} ");
	if (is_signed)
		put_i64(c->o->buf, v);
	else
		put_int(c->o->buf, (uint64_t)v, false);
	w_putc(c->o->buf, '\n');
}

/*
 * A Linux list (X -> hits, at most entries_max X, kept until a reset): a
 * counter of hits by value (the label "value", bounded by entries_max),
 * and one of the hits that found no room.
 */
static void
put_list(struct pctx *c, const struct voi *v, const struct voistatdata *vsd,
    const char *voi)
{
	const struct vsd_list *l = (const struct vsd_list *)vsd;
	struct sbuf *t;
	uint16_t i;

	fam_name(c, voi, "list_hits", NULL);
	if (fam_take(c, PT_COUNTER, voi, "LIST hits by value") &&
	    (t = sbuf_new_auto()) != NULL) {
		for (i = 0; i < l->nentries && i < l->entries_max; i++) {
			sbuf_clear(t);
			put_numeric(t, (enum vsd_dtype)v->dtype, &l->ent[i].x);
			if (sbuf_finish(t) != 0)
				break;
			put_plain(c, "_total", "value", sbuf_data(t),
			    (int64_t)l->ent[i].hits, false);
		}
		sbuf_delete(t);
	}
	fam_name(c, voi, "list_missed", NULL);
	if (fam_take(c, PT_COUNTER, voi, "LIST hits without room"))
		put_plain(c, "_total", NULL, NULL, (int64_t)l->hits_missed,
		    false);
}

/* The newest period of a Linux history. */
struct newest {
	struct history_entry	e;
	bool			any;
};

static int
newest_fn(const struct history_entry *e, void *arg)
{
	struct newest *n = arg;

	n->e = *e;
	n->any = true;
	return 0;
}

/*
 * A Linux history: its newest period (the one under way) as gauges: the
 * period's total (increments, products), or its count, sum, min and max
 * (range). Older periods are history a scraper keeps itself.
 */
static void
put_history(struct pctx *c, const struct voistatdata *vsd, const char *voi)
{
	const struct vsd_history *hs = (const struct vsd_history *)vsd;
	uint64_t now = c->v->hdr->snaptime > 0 ?
	    (uint64_t)c->v->hdr->snaptime : 0;
	struct newest n = { .any = false };
	static const char *const parts[] = { "period_count", "period_sum",
	    "period_min", "period_max" };
	size_t i;

	(void)stat_history_read(vsd, now, newest_fn, &n);
	if (hs->mode != HISTORY_RANGE) {
		fam_name(c, voi, "period", NULL);
		if (fam_take(c, PT_GAUGE, voi, "HISTORY newest period"))
			put_plain(c, "", NULL, NULL, n.any ? n.e.total : 0,
			    true);
		return;
	}
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		int64_t val = i == 0 ? (int64_t)n.e.num : i == 1 ? n.e.acc :
		    i == 2 ? n.e.min : n.e.max;

		fam_name(c, voi, parts[i], NULL);
		if (fam_take(c, PT_GAUGE, voi, "HISTORY newest period"))
			put_plain(c, "", NULL, NULL, n.any ? val : 0, true);
	}
}

/*
 * A Linux raw ring: the records made since the reset (a counter) and the
 * newest record's X (a gauge, when there is one). The records themselves
 * are events, not series.
 */
static void
put_raw(struct pctx *c, const struct voistatdata *vsd, const char *voi)
{
	const struct vsd_raw *r = (const struct vsd_raw *)vsd;

	fam_name(c, voi, "raw_records", NULL);
	if (fam_take(c, PT_COUNTER, voi, "RAW records made"))
		put_plain(c, "_total", NULL, NULL, (int64_t)r->serial, false);
	if (r->nrec == 0 || r->entries_max == 0)
		return;
	fam_name(c, voi, "raw_last", NULL);
	if (fam_take(c, PT_GAUGE, voi, "RAW newest record's X"))
		put_plain(c, "", NULL, NULL, r->rec[(r->next + r->entries_max -
		    1) % r->entries_max].x, true);
}

/*
 * Does the VOI keep scalar statistics only (SUM, COUNT, MIN, MAX, LAST)?
 * A statsd series' VOI that does is one number, as a named kstat's value
 * is: a counter's SUM, a gauge's LAST, a set's distinct count. Its
 * primary statistic (flat_primary()) then takes the metric's own name,
 * peer.requests' SUM statsd_peer_requests_total, and the others keep
 * their kind's suffix. A VOI with a distribution (HIST, TDGST, LIST) has
 * no one value.
 */
static bool
voi_is_scalar(const struct statsblobv1 *b, const struct voi *v)
{
	const struct voistat *vs;
	int s;

	BLOB_FOREACH_STAT(b, v, s, vs)
		if (s != VS_STYPE_SUM && s != VS_STYPE_COUNT &&
		    s != VS_STYPE_MIN && s != VS_STYPE_MAX &&
		    s != VS_STYPE_LAST)
			return false;
	return true;
}

/* ------------------------------------------------- statsd series */

/* The statsd type of a series of the front door, by its path's second
 * segment ("statsd/timer/..."); -1 for none. */
static int
series_type(const struct kstat_hdr *h)
{
	const char *seg;
	size_t n;
	int t;

	if (!path_seg(h->path, 1, &seg, &n))
		return -1;
	for (t = 0; t < SL_NTYPES; t++)
		if (strlen(sl_type_names[t]) == n &&
		    memcmp(seg, sl_type_names[t], n) == 0)
			return t;
	return -1;
}

/* One classic bucket: le = mag / 10^point. */
static void
put_bucket_dec(struct pctx *c, __int128 le, unsigned point, uint64_t cum)
{
	series_start(c, "_bucket");
	w_cat(c->o->buf, sbuf_len(c->o->labels) > 0 ? ",le=\"" : "le=\"");
	put_dec_s(c->o->buf, le, point, true);
	w_cat(c->o->buf, "\"} ");
	put_int(c->o->buf, cum, false);
	w_putc(c->o->buf, '\n');
}

/*
 * The native buckets of a statsd series (VOI 2, prom_native_lbs()) as
 * "# NATIVE <schema> <zero count> <key>:<count>..." for expo_pb.c: each
 * range is exactly one native bucket, its key that of its least value.
 * Nothing while the bands below 0 or above the top count anything: those
 * values have no exact native bucket (the classic buckets still hold
 * them).
 */
static void
put_native(struct pctx *c, const struct statsblobv1 *b, unsigned point)
{
	const struct voistat *hs;
	const struct hist_geom *g;
	struct voistatdata *w;
	enum vsd_dtype vd;
	uint16_t i, n;
	char *end;
	long schema;
	double scale = 1;
	__int128 lb;
	unsigned k;

	if (blob_nvois(b) < 3 || b->vois[2].id < 0 || c->v->nnames < 3 ||
	    c->v->names[2] == NULL || strncmp(c->v->names[2],
	    PROM_NATIVE_VOI, strlen(PROM_NATIVE_VOI)) != 0)
		return;
	schema = strtol(c->v->names[2] + strlen(PROM_NATIVE_VOI), &end, 10);
	if (*end != '\0' || schema < PROM_NATIVE_SCHEMA_MIN ||
	    schema > PROM_NATIVE_SCHEMA_MAX)
		return;
	vd = (enum vsd_dtype)b->vois[2].dtype;
	if ((hs = blob_stat(b, &b->vois[2], VS_STYPE_HIST)) == NULL ||
	    (g = hist_geom((enum vsd_dtype)hs->dtype)) == NULL ||
	    g->kind != 'C' || !dtype_valid(vd) || dtype_info[vd].is_q)
		return;
	w = blob_vsd(b, hs);
	n = hist_nbuckets(w, g);
	/* The band below 0, 0's range, the native ones, the band above. */
	if (n < 3 || hist_oob(w, g) != 0 || hist_bkt_cnt(w, g, 0) != 0 ||
	    hist_bkt_cnt(w, g, (uint32_t)(n - 1)) != 0)
		return;
	for (k = 0; k < point; k++)
		scale *= 10;
	w_cat(c->o->buf, "# NATIVE ");
	put_i64(c->o->buf, schema);
	w_putc(c->o->buf, ' ');
	put_int(c->o->buf, hist_bkt_cnt(w, g, 1), false);
	for (i = 2; i + 1 < n; i++) {
		uint64_t cnt = hist_bkt_cnt(w, g, i);

		if (cnt == 0 || !num_int(vd, hist_bkt_lb(w, g, i), &lb) ||
		    lb <= 0)
			continue;
		w_putc(c->o->buf, ' ');
		put_i64(c->o->buf, prom_native_key((double)lb / scale,
		    (int)schema));
		w_putc(c->o->buf, ':');
		put_int(c->o->buf, cnt, false);
	}
	w_putc(c->o->buf, '\n');
}

/*
 * A mapping rule's summary of a statsd timer, histogram or distribution:
 * the t-digest's quantiles (the rule's, else the configured ones; NaN
 * while empty), a timer's in seconds, with _sum and _count.
 */
static void
put_series_summary(struct pctx *c, const struct statsblobv1 *b, bool timer)
{
	const struct voi *v0 = &b->vois[0];
	const struct voistat *td = blob_stat(b, v0, VS_STYPE_TDGST);
	const struct voistat *sum = blob_stat(b, v0, VS_STYPE_SUM);
	const double *qs = c->map->quantiles != NULL ? c->map->quantiles :
	    c->o->quantiles;
	size_t nq = c->map->quantiles != NULL ? c->map->nq : c->o->nq, i;
	bool named = c->map->name[0] != '\0';
	unsigned point = timer ? PROM_TIMER_POINT : 0;
	uint64_t count;
	double q;

	if (td == NULL)
		return;
	count = tdgst_count(blob_vsd(b, td));
	fam_name(c, NULL, NULL, timer && !named ? "seconds" : NULL);
	c->series_help = timer ? "in seconds" : NULL;
	if (!fam_take(c, PT_SUMMARY, NULL, "TDGST"))
		return;
	for (i = 0; i < nq; i++) {
		if (count == 0 || tdgst_quantile(blob_vsd(b, td), qs[i], &q) !=
		    0)
			q = NAN;
		series_start(c, "");
		w_cat(c->o->buf, sbuf_len(c->o->labels) > 0 ?
		    ",quantile=\"" : "quantile=\"");
		put_double(c->o->buf, qs[i], true);
		w_cat(c->o->buf, "\"} ");
		put_double(c->o->buf, timer ? q / 1e6 : q, false);
		w_putc(c->o->buf, '\n');
	}
	put_stat_sum_count(c, b, sum, point, count);
}

/*
 * A statsd timer, histogram or distribution: one histogram, a timer's in
 * seconds (its values are kept in microseconds: point 6). Its classic
 * buckets are VOI 1's HIST (statsd_buckets_timer, _histogram): ranges
 * [le + 1, next le + 1) of whole units, so that a bucket counts exactly
 * the values <= le, the first range reaching down to the type's minimum
 * and the last, up to its maximum, the +Inf bucket's. _sum is VOI 0's
 * SUM, _count the total of the buckets. A series without that VOI (one
 * made with another template) has the +Inf bucket only, from its COUNT.
 * The t-digest and the log-linear HIST stay in the blob, for statsctl
 * and the quantile API, and are not shown.
 */
static void
put_series_hist(struct pctx *c, const struct statsblobv1 *b, bool timer)
{
	const struct voi *v0 = &b->vois[0];
	const struct voistat *hs = NULL, *sum, *cnt;
	unsigned point = timer ? PROM_TIMER_POINT : 0;
	struct voistatdata_numeric num;
	uint64_t total = 0;
	__int128 x;

	bool named = c->map != NULL && c->map->name[0] != '\0';
	bool classic = c->map == NULL || c->map->observer != PROM_OBS_NATIVE;

	if (c->map != NULL && c->map->observer == PROM_OBS_SUMMARY) {
		put_series_summary(c, b, timer);
		return;
	}
	fam_name(c, NULL, NULL, timer && !named ? "seconds" : NULL);
	c->series_help = timer ? "in seconds" : NULL;
	if (!fam_take(c, PT_HISTOGRAM, NULL, "HIST"))
		return;
	if (blob_nvois(b) > 1 && b->vois[1].id >= 0 &&
	    dtype_valid(b->vois[1].dtype) && !dtype_info[b->vois[1].dtype].is_q)
		hs = blob_stat(b, &b->vois[1], VS_STYPE_HIST);
	if (!classic)
		hs = NULL;	/* native only: +Inf, _sum and _count */
	if (hs != NULL && hist_geom((enum vsd_dtype)hs->dtype) != NULL &&
	    hist_geom((enum vsd_dtype)hs->dtype)->kind == 'C') {
		const struct hist_geom *g = hist_geom((enum vsd_dtype)hs->dtype);
		enum vsd_dtype vd = (enum vsd_dtype)b->vois[1].dtype;
		struct voistatdata *w = blob_vsd(b, hs);
		struct voistatdata_numeric max = numeric_limit(vd, true);
		uint16_t i, n = hist_nbuckets(w, g);

		/* Values below the first range (none with its band below)
		 * are in every bucket. */
		total = hist_oob(w, g);
		for (i = 0; i < n; i++) {
			const struct voistatdata_numeric *ub;

			total += hist_bkt_cnt(w, g, i);
			if (i + 1 >= n)
				continue;
			ub = hist_bkt_lb(w, g, i + 1);
			if (numeric_cmp(vd, ub, &max) == 0 ||
			    !num_int(vd, ub, &x))
				continue;
			put_bucket_dec(c, x - 1, point, total);
		}
	} else if ((cnt = blob_stat(b, v0, VS_STYPE_COUNT)) != NULL &&
	    dtype_is_scalar(cnt->dtype)) {
		numeric_load((enum vsd_dtype)cnt->dtype, blob_vsd(b, cnt), &num);
		if (num_int((enum vsd_dtype)cnt->dtype, &num, &x) && x > 0)
			total = (uint64_t)x;
	}
	series_start(c, "_bucket");
	w_cat(c->o->buf, sbuf_len(c->o->labels) > 0 ? ",le=\"+Inf\"} " :
	    "le=\"+Inf\"} ");
	put_int(c->o->buf, total, false);
	w_putc(c->o->buf, '\n');
	sum = blob_stat(b, v0, VS_STYPE_SUM);
	if (sum == NULL || !dtype_is_scalar(sum->dtype))
		return;
	put_stat_sum_count(c, b, sum, point, total);
	if (c->o->native)
		put_native(c, b, point);
}

/*
 * A statsd series is one family, named by its metric, in base units: a
 * counter is a counter (its SUM, statsd_<metric>_total; the COUNT of
 * lines stays in the blob for statsctl and Read), a gauge a gauge (its
 * LAST), a set a gauge of its distinct count (VOI 1; members are never
 * labels), a timer a histogram in seconds, a histogram or distribution
 * one in the unit sent.
 */
static void
put_series(struct pctx *c, const struct statsblobv1 *b)
{
	const struct voistat *vs;
	const struct voi *v;

	c->series_help = c->sl_type == SL_SET ? "the distinct count" : NULL;
	switch (c->sl_type) {
	case SL_COUNTER:
	case SL_GAUGE:
		v = &b->vois[0];
		vs = c->sl_type == SL_COUNTER ? blob_stat(b, v, VS_STYPE_SUM) :
		    blob_stat(b, v, VS_STYPE_LAST);
		if (vs != NULL)
			put_scalar(c, v, vs, blob_vsd(b, vs), NULL, true);
		break;
	case SL_SET:
		if (blob_nvois(b) < 2 || b->vois[1].id < 0)
			break;
		v = &b->vois[1];
		if ((vs = blob_stat(b, v, VS_STYPE_LAST)) != NULL)
			put_scalar(c, v, vs, blob_vsd(b, vs), NULL, true);
		break;
	default:
		put_series_hist(c, b, c->sl_type == SL_TIMER);
		break;
	}
}

/*
 * Is h, a statsd series, older than its rule's ttl? Not updated (its
 * snaptime) for ttl at the scrape's time. A snaptime ahead of that time
 * (a series restored from before a reboot: the monotonic clock began
 * again) counts as fresh.
 */
static bool
series_old(const struct prom_out *o, const struct kstat_hdr *h,
    uint64_t ttl_ns)
{
	uint64_t t = (uint64_t)h->snaptime;

	return ttl_ns > 0 && o->now_ns > t && o->now_ns - t > ttl_ns;
}

int
prom_kstat(struct prom_out *o, const struct ks_view *view, const char *only,
    char *next, size_t nextlen)
{
	const struct statsblobv1 *b = (const struct statsblobv1 *)view->sb;
	const struct kstat_hdr *h = view->hdr;
	struct pctx c = { .o = o, .v = view, .only = only, .next = next,
	    .nextlen = nextlen };
	bool own = h->type == KSTAT_TYPE_NAMED || h->type == KSTAT_TYPE_INTR;
	struct flat_each e;
	struct prom_match match;

	if (b == NULL)
		return -EINVAL;
	c.statsd_series = is_statsd_series(h);
	c.prom_series = is_prom_series(h);
	c.unit = c.prom_series ? PROM_SERIES_UNIT : 1;
	c.sl_type = c.statsd_series ? series_type(h) : -1;
	if (c.sl_type >= 0 && o->rules != NULL &&
	    prom_rules_count(o->rules) > 0) {
		char metric[KS_PATH_MAX + 1];
		size_t ml = series_metric(h, metric, sizeof(metric));

		if (prom_rules_match(o->rules, metric, ml, &match)) {
			if (match.drop || series_old(o, h, match.ttl_ns))
				return 0;
			c.map = &match;
		}
	}
	if (c.map != NULL && c.map->name[0] != '\0')
		prom_stem_rules(o->rules, h, c.name, sizeof(c.name));
	else
		prom_stem(h, c.name, sizeof(c.name));
	c.stemlen = strlen(c.name);
	if (make_labels(o, h, c.statsd_series, c.map) < 0)
		return -ENOMEM;
	if (c.sl_type >= 0 && blob_nvois(b) > 0) {
		put_series(&c, b);
		return sbuf_error(o->buf) != 0 ? -ENOMEM : c.nseries;
	}
	flat_each_begin(&e, view);
	while (flat_each_voi(&e)) {
		const struct voistat *prim = NULL;
		/* A statsd series has one VOI, "value": its families are
		 * named by the metric and the kind. */
		const char *name = c.statsd_series || c.prom_series ? NULL :
		    e.name;

		c.vsrc = NULL;
		if (name != NULL) {
			size_t n = c.stemlen, from = n;

			name_part(c.name, &n, name, strlen(name));
			name_untype(c.name, &n, from);
			c.vlen = n - c.stemlen;
			memcpy(c.vpart, c.name + c.stemlen, c.vlen + 1);
			c.vsrc = name;
		}
		if ((own || ((c.statsd_series || c.prom_series) &&
		    voi_is_scalar(b, e.v))) &&
		    (prim = flat_primary(view->sb, e.v)) != NULL)
			put_scalar(&c, e.v, prim, blob_vsd(b, prim), name,
			    name != NULL || c.statsd_series || c.prom_series);
		while (flat_each_stat(&e, prim)) {
			const struct stype_ops *ops = &stype_ops[e.s];

			if (e.s == VS_STYPE_HIST) {
				put_hist(&c, b, e.v, e.vs, e.vsd, name);
			} else if (e.s == VS_STYPE_TDGST) {
				put_tdgst(&c, b, e.v, e.vsd, name);
			} else if (e.s == VS_STYPE_LIST) {
				put_list(&c, e.v, e.vsd, name);
			} else if (e.s == VS_STYPE_HISTORY) {
				put_history(&c, e.vsd, name);
			} else if (e.s == VS_STYPE_RAW) {
				put_raw(&c, e.vsd, name);
			} else if (e.s == VS_STYPE_IOQ) {
				/* An IO kstat's first queue is its own. */
				put_fields(&c, ops, e.vsd, e.io_own ? NULL :
				    name);
			} else if (ops->field_values != NULL) {
				put_fields(&c, ops, e.vsd, name);
			} else if (ops->nfields == 1 && !c.prom_series) {
				/* A Prometheus client's series is its one
				 * value, or its distribution whose _sum and
				 * _count are its scalars. */
				put_scalar(&c, e.v, e.vs, e.vsd, name, false);
			}
			/* The internal kinds (DEFN, VOISTATE) have no
			 * series. */
		}
	}
	if (sbuf_error(o->buf) != 0)
		return -ENOMEM;
	return c.nseries;
}

int
prom_parse_quantiles(const char *text, double *q)
{
	const char *p = text;
	char *end;
	int n = 0;

	while (*p != '\0') {
		double d;

		if (n == PROM_QUANTILES_MAX)
			return -EINVAL;
		errno = 0;
		d = strtod(p, &end);
		if (end == p || errno != 0 || !(d >= 0 && d <= 1) ||
		    (n > 0 && d <= q[n - 1]))
			return -EINVAL;
		q[n++] = d;
		p = end;
		if (*p == ',')
			p++;
		else if (*p != '\0')
			return -EINVAL;
	}
	return n > 0 ? n : -EINVAL;
}

int
prom_parse_bounds(const char *text, unsigned point, int64_t *le)
{
	const char *p = text;
	int n = 0;

	if (point > PROM_BOUNDS_POINT_MAX)
		return -EINVAL;
	while (*p != '\0') {
		/* Whole units of 10^-point, exactly: digits, a point and
		 * digits; a digit finer than the unit must be 0. */
		unsigned __int128 v = 0;
		unsigned frac = 0, digits = 0;
		bool dot = false;

		if (n == PROM_BOUNDS_MAX)
			return -EINVAL;
		for (; *p != '\0' && *p != ','; p++) {
			if (*p == '.' && !dot) {
				dot = true;
				continue;
			}
			if (*p < '0' || *p > '9')
				return -EINVAL;
			digits++;
			if (dot && frac == point) {
				if (*p != '0')
					return -EINVAL;
				continue;
			}
			frac += dot;
			v = v * 10 + (unsigned)(*p - '0');
			if (v > (unsigned __int128)INT64_MAX)
				return -EINVAL;
		}
		if (digits == 0)
			return -EINVAL;
		for (; frac < point; frac++) {
			v *= 10;
			if (v > (unsigned __int128)INT64_MAX)
				return -EINVAL;
		}
		/* Above 0, ascending, and below the type's top: the last
		 * range starts at le + 1. */
		if (v == 0 || v >= (unsigned __int128)INT64_MAX ||
		    (n > 0 && (int64_t)v <= le[n - 1]))
			return -EINVAL;
		le[n++] = (int64_t)v;
		if (*p == ',' && *++p == '\0')
			return -EINVAL;
	}
	return n > 0 ? n : -EINVAL;
}

/*
 * 2^(j/2^schema)/2 for j < 2^schema, schemas 1 to 3: the float64 values
 * Prometheus' client_golang (and the clients that follow it) compares
 * with, so that a value lands in the bucket those clients give it (a few
 * are a unit in the last place off the nearest double, which is what
 * makes them the reference rather than exp2()).
 */
static const double native_b1[] = { 0.5, 0.7071067811865475 };
static const double native_b2[] = { 0.5, 0.5946035575013605,
    0.7071067811865475, 0.8408964152537144 };
static const double native_b3[] = { 0.5, 0.5452538663326288,
    0.5946035575013605, 0.6484197773255048, 0.7071067811865475,
    0.7711054127039704, 0.8408964152537144, 0.9170040432046711 };

static const double *
native_bounds(int schema)
{
	return schema == 1 ? native_b1 : schema == 2 ? native_b2 : native_b3;
}

/* a / 2^s rounded towards minus infinity, as Go's >> of a negative int. */
static int
floor_shift(int a, int s)
{
	int d = 1 << s;

	return a >= 0 ? a / d : -((-a + d - 1) / d);
}

int
prom_native_key(double v, int schema)
{
	int exp, key;
	double frac = frexp(v, &exp);

	if (schema > 0) {
		const double *b = native_bounds(schema);
		int n = 1 << schema, lo = 0, hi = n;

		/* The least j with b[j] >= frac (sort.SearchFloat64s). */
		while (lo < hi) {
			int mid = lo + (hi - lo) / 2;

			if (b[mid] < frac)
				lo = mid + 1;
			else
				hi = mid;
		}
		return lo + (exp - 1) * n;
	}
	key = exp;
	if (frac == 0.5)
		key--;
	return floor_shift(key + (1 << -schema) - 1, -schema);
}

int
prom_native_lbs(int schema, unsigned point, int64_t *lbs, size_t max)
{
	double scale = 1;
	int64_t top = point == PROM_TIMER_POINT ?
	    (int64_t)PROM_NATIVE_TOP_S * 1000000 : PROM_NATIVE_TOP;
	size_t n = 0;
	unsigned k;
	int key, last;

	if (schema < PROM_NATIVE_SCHEMA_MIN || schema > PROM_NATIVE_SCHEMA_MAX ||
	    point > 6 || max < 3)
		return -EINVAL;
	for (k = 0; k < point; k++)
		scale *= 10;
	lbs[n++] = 0;
	last = prom_native_key((double)top / scale, schema);
	for (key = prom_native_key(1 / scale, schema); key <= last; key++) {
		/* The least unit u whose bucket is key or above. */
		int64_t lo = 1, hi = top;

		while (lo < hi) {
			int64_t mid = lo + (hi - lo) / 2;

			if (prom_native_key((double)mid / scale, schema) < key)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (prom_native_key((double)lo / scale, schema) != key)
			continue;	/* no whole unit in this bucket */
		if (n + 1 >= max)
			return -EINVAL;
		lbs[n++] = lo;
	}
	/* The last bucket's end, past the top: the band above starts. */
	{
		int64_t lo = top, hi = top * 2;

		while (lo < hi) {
			int64_t mid = lo + (hi - lo) / 2;

			if (prom_native_key((double)mid / scale, schema) <= last)
				lo = mid + 1;
			else
				hi = mid;
		}
		lbs[n++] = lo;
	}
	return (int)n;
}

/* ------------------------------------------------------ mapping rules */

#define RULE_LABELS_MAX	16
#define RULE_CAPTURES	9

struct prom_rule {
	char		*line;		/* as given */
	char		*glob;
	unsigned	 nstars;
	bool		 drop;
	char		*name;		/* with $n; NULL: the default */
	enum prom_observer obs;
	double		 q[PROM_QUANTILES_MAX];
	size_t		 nq;
	uint64_t	 ttl_ns;	/* 0: none */
	size_t		 nl;
	char		*lname[RULE_LABELS_MAX];
	char		*lval[RULE_LABELS_MAX];	/* unescaped, with $n */
};

struct prom_rules {
	atomic_uint		 refs;
	uint64_t		 gen;
	struct prom_rule	*v;
	size_t			 n, cap;
};

static atomic_uint_fast64_t rules_gen;

struct prom_rules *
prom_rules_new(void)
{
	struct prom_rules *r = calloc(1, sizeof(*r));

	if (r == NULL)
		return NULL;
	atomic_init(&r->refs, 1);
	r->gen = atomic_fetch_add(&rules_gen, 1) + 1;
	return r;
}

struct prom_rules *
prom_rules_ref(const struct prom_rules *cr)
{
	struct prom_rules *r = (struct prom_rules *)cr;

	if (r != NULL)
		atomic_fetch_add(&r->refs, 1);
	return r;
}

static void
rule_free(struct prom_rule *ru)
{
	size_t i;

	free(ru->line);
	free(ru->glob);
	free(ru->name);
	for (i = 0; i < ru->nl; i++) {
		free(ru->lname[i]);
		free(ru->lval[i]);
	}
}

void
prom_rules_unref(const struct prom_rules *cr)
{
	struct prom_rules *r = (struct prom_rules *)cr;
	size_t i;

	if (r == NULL || atomic_fetch_sub(&r->refs, 1) != 1)
		return;
	for (i = 0; i < r->n; i++)
		rule_free(&r->v[i]);
	free(r->v);
	free(r);
}

size_t
prom_rules_count(const struct prom_rules *r)
{
	return r != NULL ? r->n : 0;
}

const char *
prom_rules_line(const struct prom_rules *r, size_t i)
{
	return r != NULL && i < r->n ? r->v[i].line : NULL;
}

uint64_t
prom_rules_gen(const struct prom_rules *r)
{
	return r != NULL ? r->gen : 0;
}

static int
rule_fail(char *why, size_t whylen, unsigned *col, const char *line,
    const char *at, const char *msg)
{
	snprintf(why, whylen, "%s", msg);
	*col = (unsigned)(at - line) + 1;
	return -EINVAL;
}

/* A $n or ${n} at p (p[0] == '$'): n, and the length; 0 if none. */
static unsigned
capture_ref(const char *p, size_t *len)
{
	if (p[1] >= '1' && p[1] <= '9') {
		*len = 2;
		return (unsigned)(p[1] - '0');
	}
	if (p[1] == '{' && p[2] >= '1' && p[2] <= '9' && p[3] == '}') {
		*len = 4;
		return (unsigned)(p[2] - '0');
	}
	return 0;
}

/* Check the $n of a template against the glob's captures. */
static const char *
check_refs(const char *t, size_t n, unsigned nstars, size_t *at)
{
	size_t i, l;

	for (i = 0; i < n; i++) {
		if (t[i] != '$')
			continue;
		if (capture_ref(t + i, &l) == 0) {
			*at = i;
			return "a '$' is $1 to $9 or ${1} to ${9}";
		}
		if (capture_ref(t + i, &l) > nstars) {
			*at = i;
			return "no such capture in the glob";
		}
		i += l - 1;
	}
	return NULL;
}

/* statsd_ttl_s's bound: a year. */
#define RULE_TTL_MAX_S	31536000u

/*
 * A rule's ttl= at v: a whole number and its unit, s, m or h (as a
 * statsd_exporter duration of one unit), 1 s to a year; into *ns. *end
 * gets where it stops. Returns: NULL; the fault, with *end at it.
 */
static const char *
parse_ttl(const char *v, const char **end, uint64_t *ns)
{
	const char *p = v;
	uint64_t n = 0, unit;

	for (; *p >= '0' && *p <= '9'; p++)
		if ((n = n * 10 + (uint64_t)(*p - '0')) > RULE_TTL_MAX_S) {
			*end = v;
			return "a ttl is 1 s to a year";
		}
	*end = p;
	unit = *p == 's' ? 1 : *p == 'm' ? 60 : *p == 'h' ? 3600 : 0;
	if (p == v || unit == 0 || (p[1] != '\0' && p[1] != ' ' &&
	    p[1] != '\t'))
		return "a ttl is a whole number and s, m or h";
	*end = p + 1;
	if (n == 0 || n * unit > RULE_TTL_MAX_S) {
		*end = v;
		return "a ttl is 1 s to a year";
	}
	*ns = n * unit * 1000000000u;
	return NULL;
}

int
prom_rules_add(struct prom_rules *r, const char *line, char *why,
    size_t whylen, unsigned *col)
{
	struct prom_rule ru;
	const char *p = line, *tok, *msg;
	size_t at, i;
	int e = -EINVAL;

	memset(&ru, 0, sizeof(ru));
	while (*p == ' ' || *p == '\t')
		p++;
	/* The glob: at most one '*' in each dotted component. */
	tok = p;
	while (*p != '\0' && *p != ' ' && *p != '\t')
		p++;
	if (p == tok)
		return rule_fail(why, whylen, col, line, tok, "a rule starts "
		    "with a glob");
	{
		const char *q;
		unsigned stars = 0;

		for (q = tok; q < p; q++) {
			if (*q == '.') {
				if (q == tok || q[-1] == '.' || q + 1 == p)
					return rule_fail(why, whylen, col,
					    line, q, "an empty component in "
					    "the glob");
				stars = 0;
			} else if (*q == '*') {
				if (++stars > 1)
					return rule_fail(why, whylen, col,
					    line, q, "at most one '*' in a "
					    "component");
				if (++ru.nstars > RULE_CAPTURES)
					return rule_fail(why, whylen, col,
					    line, q, "at most 9 '*' in a glob");
			} else if ((unsigned char)*q < 0x21 || *q == 0x7f) {
				return rule_fail(why, whylen, col, line, q,
				    "a control character in the glob");
			}
		}
	}
	if ((ru.glob = strndup(tok, (size_t)(p - tok))) == NULL)
		return -ENOMEM;
	for (;;) {
		const char *eq, *v;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0')
			break;
		tok = p;
		if (strncmp(p, "drop", 4) == 0 && (p[4] == '\0' || p[4] == ' ' ||
		    p[4] == '\t')) {
			ru.drop = true;
			p += 4;
			continue;
		}
		for (eq = p; *eq != '\0' && *eq != '=' && *eq != ' ' &&
		    *eq != '\t'; eq++)
			;
		if (*eq != '=') {
			e = rule_fail(why, whylen, col, line, tok, "expected "
			    "drop, name=, observer=, quantiles=, ttl= or "
			    "label=\"value\"");
			goto fail;
		}
		v = eq + 1;
		if ((size_t)(eq - tok) == 4 && strncmp(tok, "name", 4) == 0) {
			for (p = v; *p != '\0' && *p != ' ' && *p != '\t'; p++)
				if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' &&
				    *p <= 'Z') || (*p >= '0' && *p <= '9') ||
				    *p == '_' || *p == ':' || *p == '$' ||
				    *p == '{' || *p == '}') || (p == v &&
				    *p >= '0' && *p <= '9')) {
					e = rule_fail(why, whylen, col, line,
					    p, "a name holds letters, digits, "
					    "'_', ':' and captures, and starts "
					    "with no digit");
					goto fail;
				}
			if (p == v || ru.name != NULL) {
				e = rule_fail(why, whylen, col, line, tok,
				    p == v ? "an empty name" : "name given "
				    "twice");
				goto fail;
			}
			if ((msg = check_refs(v, (size_t)(p - v), ru.nstars,
			    &at)) != NULL) {
				e = rule_fail(why, whylen, col, line, v + at,
				    msg);
				goto fail;
			}
			if ((ru.name = strndup(v, (size_t)(p - v))) == NULL) {
				e = -ENOMEM;
				goto fail;
			}
			continue;
		}
		if ((size_t)(eq - tok) == 8 && strncmp(tok, "observer", 8) ==
		    0) {
			static const char *const obs[] = { "histogram",
			    "summary", "native" };

			for (p = v; *p != '\0' && *p != ' ' && *p != '\t'; p++)
				;
			for (i = 0; i < 3; i++)
				if ((size_t)(p - v) == strlen(obs[i]) &&
				    strncmp(v, obs[i], strlen(obs[i])) == 0)
					break;
			if (i == 3) {
				e = rule_fail(why, whylen, col, line, v,
				    "observer is histogram, summary or "
				    "native");
				goto fail;
			}
			ru.obs = (enum prom_observer)i;
			continue;
		}
		if ((size_t)(eq - tok) == 3 && strncmp(tok, "ttl", 3) == 0) {
			if (ru.ttl_ns != 0) {
				e = rule_fail(why, whylen, col, line, tok,
				    "ttl given twice");
				goto fail;
			}
			if ((msg = parse_ttl(v, &p, &ru.ttl_ns)) != NULL) {
				e = rule_fail(why, whylen, col, line, p, msg);
				goto fail;
			}
			continue;
		}
		if ((size_t)(eq - tok) == 9 && strncmp(tok, "quantiles", 9) ==
		    0) {
			char qs[256];
			int nq;

			for (p = v; *p != '\0' && *p != ' ' && *p != '\t'; p++)
				;
			snprintf(qs, sizeof(qs), "%.*s", (int)(p - v), v);
			if ((size_t)(p - v) >= sizeof(qs) ||
			    (nq = prom_parse_quantiles(qs, ru.q)) < 0) {
				e = rule_fail(why, whylen, col, line, v,
				    "quantiles are up to 16 ascending numbers "
				    "in [0, 1], comma-separated");
				goto fail;
			}
			ru.nq = (size_t)nq;
			continue;
		}
		/* label="value": a label name, not reserved. */
		for (p = tok; p < eq; p++)
			if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' &&
			    *p <= 'Z') || *p == '_' || (p > tok && *p >= '0' &&
			    *p <= '9'))) {
				e = rule_fail(why, whylen, col, line, p,
				    "a label name holds letters, digits and "
				    "'_', and starts with no digit");
				goto fail;
			}
		if ((eq - tok >= 2 && tok[0] == '_' && tok[1] == '_') ||
		    ((size_t)(eq - tok) == 2 && strncmp(tok, "le", 2) == 0) ||
		    ((size_t)(eq - tok) == 8 && strncmp(tok, "quantile", 8) ==
		    0)) {
			e = rule_fail(why, whylen, col, line, tok,
			    "a reserved label name");
			goto fail;
		}
		if (*v != '"') {
			e = rule_fail(why, whylen, col, line, v, "a label's "
			    "value is quoted: label=\"value\"");
			goto fail;
		}
		for (p = v + 1; *p != '\0' && *p != '"'; p++)
			if (*p == '\\' && p[1] != '\0')
				p++;
		if (*p != '"') {
			e = rule_fail(why, whylen, col, line, v, "an unclosed "
			    "quote");
			goto fail;
		}
		if (ru.nl == RULE_LABELS_MAX) {
			e = rule_fail(why, whylen, col, line, tok,
			    "at most 16 labels");
			goto fail;
		}
		for (i = 0; i < ru.nl; i++)
			if (strlen(ru.lname[i]) == (size_t)(eq - tok) &&
			    strncmp(ru.lname[i], tok, (size_t)(eq - tok)) == 0)
				break;
		if (i < ru.nl) {
			e = rule_fail(why, whylen, col, line, tok,
			    "a label given twice");
			goto fail;
		}
		{
			char *val = malloc((size_t)(p - v)), *o = val;
			const char *q;

			if (val == NULL) {
				e = -ENOMEM;
				goto fail;
			}
			for (q = v + 1; q < p; q++) {
				if (*q == '\\' && q + 1 < p) {
					q++;
					*o++ = *q == 'n' ? '\n' : *q;
				} else {
					*o++ = *q;
				}
			}
			*o = '\0';
			if ((msg = check_refs(val, strlen(val), ru.nstars,
			    &at)) != NULL) {
				free(val);
				e = rule_fail(why, whylen, col, line, v + 1,
				    msg);
				goto fail;
			}
			ru.lval[ru.nl] = val;
			if ((ru.lname[ru.nl] = strndup(tok,
			    (size_t)(eq - tok))) == NULL) {
				free(val);
				e = -ENOMEM;
				goto fail;
			}
			ru.nl++;
		}
		p++;
		if (*p != '\0' && *p != ' ' && *p != '\t') {
			e = rule_fail(why, whylen, col, line, p, "a blank "
			    "after a label's value");
			goto fail;
		}
	}
	if (ru.drop && (ru.name != NULL || ru.nl > 0)) {
		e = rule_fail(why, whylen, col, line, line, "a drop rule "
		    "names nothing");
		goto fail;
	}
	if ((ru.line = strdup(line)) == NULL) {
		e = -ENOMEM;
		goto fail;
	}
	if (r->n == r->cap) {
		size_t nc = r->cap > 0 ? r->cap * 2 : 8;
		struct prom_rule *a = realloc(r->v, nc * sizeof(*a));

		if (a == NULL) {
			e = -ENOMEM;
			goto fail;
		}
		r->v = a;
		r->cap = nc;
	}
	r->v[r->n++] = ru;
	return 0;
fail:
	rule_free(&ru);
	return e;
}

/* glob against the metric, component by component; the captures. */
static bool
rule_glob(const char *g, const char *m, size_t ml, const char **cap,
    size_t *caplen)
{
	const char *me = m + ml;
	unsigned nc = 0;

	for (;;) {
		const char *ge = strchr(g, '.'), *mc = memchr(m, '.',
		    (size_t)(me - m)), *star;
		size_t gl, cl;

		if (ge == NULL)
			ge = g + strlen(g);
		if (mc == NULL)
			mc = me;
		gl = (size_t)(ge - g);
		cl = (size_t)(mc - m);
		star = memchr(g, '*', gl);
		if (star == NULL) {
			if (gl != cl || memcmp(g, m, gl) != 0)
				return false;
		} else {
			size_t pre = (size_t)(star - g), suf = gl - pre - 1;

			/* The '*' takes at least one character. */
			if (cl < pre + suf + 1 || memcmp(g, m, pre) != 0 ||
			    memcmp(star + 1, mc - suf, suf) != 0)
				return false;
			cap[nc] = m + pre;
			caplen[nc++] = cl - pre - suf;
		}
		if (*ge == '\0' || mc == me)
			return *ge == '\0' && mc == me;
		g = ge + 1;
		m = mc + 1;
	}
}

/* t with its $n expanded into out (len bytes); escaped as a label value
 * when esc. Returns: the length; (size_t)-1 if it does not fit. */
static size_t
expand(const char *t, const char **cap, const size_t *caplen, char *out,
    size_t len, bool esc)
{
	size_t o = 0, l, i;

	for (; *t != '\0'; t++) {
		const char *s = t;
		size_t n = 1;
		unsigned c = *t == '$' ? capture_ref(t, &l) : 0;

		if (c > 0) {
			s = cap[c - 1];
			n = caplen[c - 1];
			t += l - 1;
		}
		for (i = 0; i < n; i++) {
			const char *rep = NULL;

			if (esc && s[i] == '\\')
				rep = "\\\\";
			else if (esc && s[i] == '"')
				rep = "\\\"";
			else if (esc && s[i] == '\n')
				rep = "\\n";
			if (rep != NULL) {
				if (o + 2 >= len)
					return (size_t)-1;
				memcpy(out + o, rep, 2);
				o += 2;
			} else {
				if (o + 1 >= len)
					return (size_t)-1;
				out[o++] = s[i];
			}
		}
	}
	out[o] = '\0';
	return o;
}

bool
prom_rules_match(const struct prom_rules *r, const char *metric, size_t len,
    struct prom_match *m)
{
	const char *cap[RULE_CAPTURES];
	size_t caplen[RULE_CAPTURES], i, j, o = 0, lo = 0;

	memset(m, 0, offsetof(struct prom_match, labels));
	m->labels[0] = '\0';
	m->lnames[0] = '\0';
	for (i = 0; r != NULL && i < r->n; i++) {
		const struct prom_rule *ru = &r->v[i];

		if (!rule_glob(ru->glob, metric, len, cap, caplen))
			continue;
		m->matched = true;
		m->drop = ru->drop;
		m->observer = ru->obs;
		m->ttl_ns = ru->ttl_ns;
		if (ru->nq > 0) {
			m->quantiles = ru->q;
			m->nq = ru->nq;
		}
		if (ru->name != NULL && expand(ru->name, cap, caplen, m->name,
		    sizeof(m->name), false) == (size_t)-1)
			m->name[0] = '\0';
		for (j = 0; j < ru->nl; j++) {
			size_t nl = strlen(ru->lname[j]), n, o0 = o;

			/* Labels past the room are left out. */
			if (o + nl + 4 >= sizeof(m->labels) ||
			    lo + nl + 2 >= sizeof(m->lnames))
				break;
			if (o > 0)
				m->labels[o++] = ',';
			memcpy(m->labels + o, ru->lname[j], nl);
			o += nl;
			m->labels[o++] = '=';
			m->labels[o++] = '"';
			n = expand(ru->lval[j], cap, caplen, m->labels + o,
			    sizeof(m->labels) - o - 1, true);
			if (n == (size_t)-1) {
				o = o0;
				break;
			}
			o += n;
			m->labels[o++] = '"';
			memcpy(m->lnames + lo, ru->lname[j], nl + 1);
			lo += nl + 1;
		}
		m->labels[o] = '\0';
		m->lnames[lo] = '\0';
		return true;
	}
	return false;
}
