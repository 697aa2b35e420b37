/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * statsd_line.c: the statsd and DogStatsD line protocol, parsed in place,
 * and a series' kstat2 path (statsd_line.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "statsd_line.h"

const char *const sl_type_names[SL_NTYPES] = {
	[SL_COUNTER] = "counter",
	[SL_GAUGE] = "gauge",
	[SL_TIMER] = "timer",
	[SL_HISTOGRAM] = "histogram",
	[SL_DISTRIBUTION] = "distribution",
	[SL_SET] = "set",
};

int
sl_tpl_type(const char *name)
{
	size_t n;
	int t;

	if (strncmp(name, "statsd.", 7) != 0)
		return -1;
	for (t = 0; t < SL_NTYPES; t++) {
		n = strlen(sl_type_names[t]);
		if (strncmp(name + 7, sl_type_names[t], n) == 0 &&
		    (name[7 + n] == '\0' || name[7 + n] == '.'))
			return t;
	}
	return -1;
}

const char *const sl_reject_names[SL_NREJECTS] = {
	[SL_OK] = "ok",
	[SL_R_SYNTAX] = "syntax",
	[SL_R_NAME] = "name",
	[SL_R_TYPE] = "type",
	[SL_R_VALUE] = "value",
	[SL_R_RATE] = "rate",
	[SL_R_TAGS] = "tags",
	[SL_R_UTF8] = "utf8",
	[SL_R_EVENT] = "event",
	[SL_R_TIMESTAMP] = "timestamp",
};

/* The longest number text taken (a value, a rate): "-1.5e-300" and the
 * like fit easily; anything longer is not a statsd client's. */
#define SL_NUM_MAX	63

bool
sl_utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < n) {
		unsigned c = p[i];
		size_t k;
		unsigned cp;

		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			k = 1;
			cp = c & 0x1f;
		} else if (c >= 0xe0 && c <= 0xef) {
			k = 2;
			cp = c & 0x0f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			k = 3;
			cp = c & 0x07;
		} else {
			return false;
		}
		if (n - i <= k)
			return false;
		for (size_t j = 1; j <= k; j++) {
			if ((p[i + j] & 0xc0) != 0x80)
				return false;
			cp = (cp << 6) | (p[i + j] & 0x3f);
		}
		/* overlong forms, surrogates, past U+10FFFF */
		if ((k == 2 && cp < 0x800) || (k == 3 && cp < 0x10000) ||
		    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
			return false;
		i += k + 1;
	}
	return true;
}

/*
 * A decimal number: [+-]digits[.digits][e[+-]digits], at least one digit
 * before the exponent. Plain integers of up to 18 digits are converted
 * here, exactly; anything else through strtod() on a bounded copy, so the
 * grammar (not strtod's: no hex, inf or nan) decides what is a number.
 */
static bool
sl_number(const char *s, size_t n, double *ret)
{
	char buf[SL_NUM_MAX + 1];
	size_t i = 0, digits = 0;
	bool plain = true, neg = false;
	int64_t acc = 0;

	if (n == 0 || n > SL_NUM_MAX)
		return false;
	if (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-';
		i++;
	}
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		if (digits < 18)
			acc = acc * 10 + (s[i] - '0');
		digits++;
	}
	if (i < n && s[i] == '.') {
		plain = false;
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			digits++;
	}
	if (digits == 0)
		return false;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		size_t e0;

		plain = false;
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		e0 = i;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == e0)
			return false;
	}
	if (i != n)
		return false;
	if (plain && digits <= 18) {
		*ret = neg ? -(double)acc : (double)acc;
		return true;
	}
	memcpy(buf, s, n);
	buf[n] = '\0';
	*ret = strtod(buf, NULL);
	return isfinite(*ret);
}

/* Bytes a name may not hold: controls and blanks (statsd clients never
 * send them; a name with them is garbage). */
static bool
sl_name_ok(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c <= 0x20 || c == 0x7f || c == '|' || c == '#' ||
		    c == '@' || c == ',')
			return false;
	}
	return true;
}

/* A tag or a set member: no controls (blanks are allowed in values). */
static bool
sl_text_ok(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c == 0x7f)
			return false;
	}
	return true;
}

static int
sl_type_parse(const char *s, size_t n)
{
	if (n == 1) {
		switch (s[0]) {
		case 'c': return SL_COUNTER;
		case 'g': return SL_GAUGE;
		case 'h': return SL_HISTOGRAM;
		case 'd': return SL_DISTRIBUTION;
		case 's': return SL_SET;
		default: return -1;
		}
	}
	if (n == 2 && s[0] == 'm' && s[1] == 's')
		return SL_TIMER;
	return -1;
}

static enum sl_reject
sl_tags_check(const char *s, uint32_t n, const struct sl_limits *lim,
    uint32_t *ret_ntags)
{
	const char *t;
	uint32_t pos = 0, tl, ntags = 0;

	while (sl_tag_next(s, n, &pos, &t, &tl)) {
		if (++ntags > lim->tags_max || tl > lim->tag_max || t[0] == ':')
			return SL_R_TAGS;
		if (!sl_text_ok(t, tl))
			return SL_R_TAGS;
		if (!sl_utf8_valid(t, tl))
			return SL_R_UTF8;
	}
	*ret_ntags = ntags;
	return SL_OK;
}

static enum sl_reject
sl_values_check(struct sl_line *l, const struct sl_limits *lim)
{
	struct sl_value v;
	uint32_t pos = 0, n = 0;

	while (sl_value_next(l, &pos, &v)) {
		if (++n > lim->values_max || v.len == 0)
			return SL_R_VALUE;
		if (l->type == SL_SET) {
			if (v.len > lim->tag_max || !sl_text_ok(v.s, v.len))
				return SL_R_VALUE;
			if (!sl_utf8_valid(v.s, v.len))
				return SL_R_UTF8;
		} else if (!sl_number(v.s, v.len, &v.v)) {
			return SL_R_VALUE;
		}
	}
	l->nvalues = n;
	return n == 0 ? SL_R_VALUE : SL_OK;
}

enum sl_reject
sl_line_parse(const char *p, size_t len, const struct sl_limits *lim,
    struct sl_line *ret)
{
	const char *end = p + len, *colon, *bar, *f, *fe;
	enum sl_reject r;
	int type;

	if (len >= 3 && (memcmp(p, "_e{", 3) == 0 ||
	    (len >= 4 && memcmp(p, "_sc|", 4) == 0)))
		return SL_R_EVENT;
	colon = memchr(p, ':', len);
	bar = memchr(p, '|', len);
	if (colon == NULL || bar == NULL || bar < colon)
		return SL_R_SYNTAX;
	memset(ret, 0, sizeof(*ret));
	ret->rate = 1.0;
	ret->name = p;
	ret->name_len = (uint32_t)(colon - p);
	if (ret->name_len == 0 || ret->name_len > lim->name_max ||
	    !sl_name_ok(p, ret->name_len))
		return SL_R_NAME;
	if (!sl_utf8_valid(p, ret->name_len))
		return SL_R_UTF8;
	ret->values = colon + 1;
	ret->values_len = (uint32_t)(bar - colon - 1);

	/* The type, then the optional fields, each after a '|'. */
	f = bar + 1;
	fe = memchr(f, '|', (size_t)(end - f));
	if (fe == NULL)
		fe = end;
	type = sl_type_parse(f, (size_t)(fe - f));
	if (type < 0)
		return SL_R_TYPE;
	ret->type = (uint8_t)type;
	while (fe < end) {
		size_t n;

		f = fe + 1;
		fe = memchr(f, '|', (size_t)(end - f));
		if (fe == NULL)
			fe = end;
		n = (size_t)(fe - f);
		if (n > 0 && f[0] == '@') {
			if (!sl_number(f + 1, n - 1, &ret->rate) ||
			    !(ret->rate > 0.0 && ret->rate <= 1.0))
				return SL_R_RATE;
			ret->has_rate = true;
		} else if (n > 0 && f[0] == '#') {
			ret->tags = f + 1;
			ret->tags_len = (uint32_t)(n - 1);
			r = sl_tags_check(ret->tags, ret->tags_len, lim,
			    &ret->ntags);
			if (r != SL_OK)
				return r;
		} else if (n > 1 && f[0] == 'c' && f[1] == ':') {
			if (n - 2 > lim->tag_max || !sl_text_ok(f + 2, n - 2))
				return SL_R_TAGS;
			if (!sl_utf8_valid(f + 2, n - 2))
				return SL_R_UTF8;
			ret->container = n > 2 ? f + 2 : NULL;
			ret->container_len = (uint32_t)(n - 2);
		} else if (n > 0 && f[0] == 'T') {
			int64_t ts = 0;
			size_t i;

			if (n < 2 || n > 19)
				return SL_R_TIMESTAMP;
			for (i = 1; i < n; i++) {
				if (f[i] < '0' || f[i] > '9')
					return SL_R_TIMESTAMP;
				ts = ts * 10 + (f[i] - '0');
			}
			ret->ts = ts;
			ret->has_ts = true;
		} else {
			ret->ignored++;
		}
	}
	return sl_values_check(ret, lim);
}

bool
sl_value_next(const struct sl_line *l, uint32_t *pos, struct sl_value *ret)
{
	const char *s, *c;
	uint32_t left;

	/* *pos == values_len: an empty value (an empty field, or after an
	 * ending ':'); past it: the end. */
	if (*pos > l->values_len)
		return false;
	s = l->values + *pos;
	left = l->values_len - *pos;
	c = memchr(s, ':', left);
	ret->s = s;
	ret->len = c != NULL ? (uint32_t)(c - s) : left;
	ret->signed_ = ret->len > 0 && (s[0] == '+' || s[0] == '-');
	ret->v = 0;
	if (l->type != SL_SET && !sl_number(s, ret->len, &ret->v))
		ret->v = NAN;
	/* Past the ':' (an ending one leaves an empty last value), or one
	 * past the end. */
	*pos = c != NULL ? *pos + ret->len + 1 : l->values_len + 1;
	return true;
}

bool
sl_tag_next(const char *tags, uint32_t len, uint32_t *pos,
    const char **ret_tag, uint32_t *ret_len)
{
	while (*pos < len) {
		const char *s = tags + *pos, *c;
		uint32_t n;

		c = memchr(s, ',', len - *pos);
		n = c != NULL ? (uint32_t)(c - s) : len - *pos;
		*pos += n + 1;
		if (n > 0) {
			*ret_tag = s;
			*ret_len = n;
			return true;
		}
	}
	return false;
}

bool
sl_next_line(const char *buf, size_t len, size_t *pos, const char **ret_line,
    size_t *ret_len)
{
	while (*pos < len) {
		const char *s = buf + *pos, *nl;
		size_t n;

		nl = memchr(s, '\n', len - *pos);
		n = nl != NULL ? (size_t)(nl - s) : len - *pos;
		*pos += n + (nl != NULL);
		if (n > 0 && s[n - 1] == '\r')
			n--;
		if (n > 0) {
			*ret_line = s;
			*ret_len = n;
			return true;
		}
	}
	return false;
}

/* ------------------------------------------------------- the series path */

static const char sl_hex[] = "0123456789ABCDEF";

/* Append (s, n) escaped to b at *off (cap bytes, NUL kept room for).
 * Returns: 0; -ENAMETOOLONG. */
static int
sl_escape(char *b, size_t cap, size_t *off, const char *s, size_t n)
{
	size_t i, o = *off;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c >= 0x7f || c == '/' || c == '%') {
			if (o + 3 >= cap)
				return -ENAMETOOLONG;
			b[o++] = '%';
			b[o++] = sl_hex[c >> 4];
			b[o++] = sl_hex[c & 15];
		} else {
			if (o + 1 >= cap)
				return -ENAMETOOLONG;
			b[o++] = (char)c;
		}
	}
	*off = o;
	return 0;
}

static int
sl_bytes_cmp(const char *a, uint32_t an, const char *b, uint32_t bn)
{
	int c = memcmp(a, b, an < bn ? an : bn);

	if (c != 0)
		return c;
	return an < bn ? -1 : an > bn;
}

int
sl_series_path_make(uint8_t type, const char *name, uint32_t name_len,
    const char **tags, uint32_t *tag_len, uint32_t ntags,
    struct sl_series_path *ret)
{
	/* The segments are written one after the other, each ended by a
	 * NUL; the path's length is theirs plus a '/' between each. */
	size_t cap = sizeof(ret->buf), off = 0, used;
	uint32_t i, j, n = 0;
	int r;

	if (type >= SL_NTYPES)
		return -EINVAL;
	/* Insertion sort: a line has a handful of tags. */
	for (i = 1; i < ntags; i++) {
		const char *t = tags[i];
		uint32_t tl = tag_len[i];

		for (j = i; j > 0 && sl_bytes_cmp(tags[j - 1], tag_len[j - 1],
		    t, tl) > 0; j--) {
			tags[j] = tags[j - 1];
			tag_len[j] = tag_len[j - 1];
		}
		tags[j] = t;
		tag_len[j] = tl;
	}
	ret->nseg = 0;
	ret->seg[ret->nseg++] = ret->buf;
	memcpy(ret->buf, SL_PATH_CATEGORY, sizeof(SL_PATH_CATEGORY));
	off = sizeof(SL_PATH_CATEGORY);
	ret->seg[ret->nseg++] = ret->buf + off;
	r = sl_escape(ret->buf, cap, &off, sl_type_names[type],
	    strlen(sl_type_names[type]));
	if (r < 0)
		return r;
	ret->buf[off++] = '\0';
	ret->seg[ret->nseg++] = ret->buf + off;
	r = sl_escape(ret->buf, cap, &off, name, name_len);
	if (r < 0)
		return r;
	ret->buf[off++] = '\0';
	for (i = 0; i < ntags; i++) {
		if (i > 0 && sl_bytes_cmp(tags[i - 1], tag_len[i - 1], tags[i],
		    tag_len[i]) == 0)
			continue;
		if (++n > SL_PATH_TAGS_MAX)
			return -E2BIG;
		ret->seg[ret->nseg++] = ret->buf + off;
		r = sl_escape(ret->buf, cap, &off, tags[i], tag_len[i]);
		if (r < 0)
			return r;
		ret->buf[off++] = '\0';
	}
	used = off - 1;		/* NULs between segments are its '/'s */
	if (used > SL_PATH_MAX)
		return -ENAMETOOLONG;
	return 0;
}

int
sl_seg_encode(const char *s, size_t n, char *out, size_t len)
{
	size_t off = 0;
	int r;

	if (len == 0)
		return -ENAMETOOLONG;
	r = sl_escape(out, len, &off, s, n);
	if (r < 0)
		return r;
	out[off] = '\0';
	return (int)off;
}

bool
sl_path_has_tag(const char *path, const char *seg)
{
	size_t n = strlen(seg);
	const char *p = path;
	unsigned i;

	for (i = 0; i < 3 && p != NULL; i++) {
		p = strchr(p, '/');
		if (p != NULL)
			p++;
	}
	while (p != NULL && *p != '\0') {
		const char *e = strchr(p, '/');
		size_t l = e != NULL ? (size_t)(e - p) : strlen(p);

		if (l == n && memcmp(p, seg, n) == 0)
			return true;
		p = e != NULL ? e + 1 : NULL;
	}
	return false;
}

static int
sl_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int
sl_seg_decode(const char *seg, size_t seg_len, char *out, size_t len)
{
	size_t i, o = 0;

	for (i = 0; i < seg_len; i++) {
		char c = seg[i];

		if (c == '%') {
			int hi, lo;

			if (seg_len - i < 3)
				return -EINVAL;
			hi = sl_hexval(seg[i + 1]);
			lo = sl_hexval(seg[i + 2]);
			if (hi < 0 || lo < 0)
				return -EINVAL;
			c = (char)(hi << 4 | lo);
			i += 2;
		}
		if (o + 1 >= len)
			return -ENAMETOOLONG;
		out[o++] = c;
	}
	if (len == 0)
		return -ENAMETOOLONG;
	out[o] = '\0';
	return (int)o;
}
