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
#include "utf8.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

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
	size_t i = 0, k;

	while (i < n) {
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		if ((k = utf8_seq(p + i, n - i)) == 0)
			return false;
		i += k;
	}
	return true;
}

/*
 * Powers of ten a double holds exactly: 10^22 is the last (5^22 < 2^53).
 */
static const double sl_pow10[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12,
	1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/*
 * A decimal number: [+-]digits[.digits][e[+-]digits], at least one digit
 * before the exponent; the grammar (not strtod's: no hex, inf or nan)
 * decides what is a number. Its value is the double nearest to it, as
 * strtod() gives it: computed here when that is one correctly rounded
 * operation (Clinger's fast path, which David Gay's strtod and glibc's
 * take too: digits m < 2^53 and a power of ten of at most 22, both exact
 * doubles, so m * 10^e or m / 10^e rounds once, to nearest), else through
 * strtod() on a bounded copy. Statsd values ("1", "12.5", "0.25") nearly
 * always take the fast path.
 */
static bool
sl_number(const char *s, size_t n, double *ret)
{
	char buf[SL_NUM_MAX + 1];
	size_t i = 0, digits = 0, frac = 0;
	bool neg = false, eneg = false;
	uint64_t m = 0;
	int64_t e = 0;
	double v;

	if (n == 0 || n > SL_NUM_MAX)
		return false;
	if (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-';
		i++;
	}
	/* m holds the first 19 digits (below 10^19 < 2^64); past them the
	 * number takes strtod(). */
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		if (digits < 19)
			m = m * 10 + (uint64_t)(s[i] - '0');
		digits++;
	}
	if (i < n && s[i] == '.') {
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
			if (digits < 19)
				m = m * 10 + (uint64_t)(s[i] - '0');
			digits++;
			frac++;
		}
	}
	if (digits == 0)
		return false;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		size_t e0;

		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			eneg = s[i++] == '-';
		e0 = i;
		for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			if (e < 100000)		/* far past any double's */
				e = e * 10 + (s[i] - '0');
		if (i == e0)
			return false;
	}
	if (i != n)
		return false;
	e = (eneg ? -e : e) - (int64_t)frac;
	if (digits <= 19 && e == 0) {
		/* A whole number: one conversion, rounded to nearest. */
		v = (double)m;
		*ret = neg ? -v : v;
		return true;
	}
	if (digits <= 19 && m <= (UINT64_C(1) << 53) && e >= -22 && e <= 22) {
		v = e < 0 ? (double)m / sl_pow10[-e] : (double)m * sl_pow10[e];
		*ret = neg ? -v : v;
		return true;
	}
	memcpy(buf, s, n);
	buf[n] = '\0';
	*ret = strtod(buf, NULL);
	return isfinite(*ret);
}

/*
 * A few digits and nothing else ("1", "250": most statsd values), as
 * sl_number() reads them, without its call: below 10^15, every such
 * number is a double exactly.
 * Returns: false for anything else (sl_number() then decides).
 */
static inline bool
sl_whole(const char *s, size_t n, double *ret)
{
	uint64_t m = 0;
	size_t i;

	if (n == 0 || n > 15)
		return false;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		m = m * 10 + (uint64_t)(s[i] - '0');
	}
	*ret = (double)m;
	return true;
}

/*
 * Byte classes of a line's one pass over a name, a tag or a set member:
 * what it may not hold, and what needs the UTF-8 check.
 */
enum {
	SL_C_CTL = 1,		/* a control: in nothing */
	SL_C_NAMEBAD = 2,	/* a blank or '|', '#', '@', ',': not in a name */
	SL_C_HIGH = 4,		/* >= 0x80: UTF-8 to check */
	SL_C_COLON = 8,		/* ends a name */
	SL_C_BAR = 16,		/* ends a name: a line without one */
};

static const uint8_t sl_class[256] = {
	[0x00 ... 0x1f] = SL_C_CTL | SL_C_NAMEBAD,
	[' '] = SL_C_NAMEBAD,
	['|'] = SL_C_NAMEBAD | SL_C_BAR,
	['#'] = SL_C_NAMEBAD,
	['@'] = SL_C_NAMEBAD,
	[','] = SL_C_NAMEBAD,
	[':'] = SL_C_COLON,
	[0x7f] = SL_C_CTL | SL_C_NAMEBAD,
	[0x80 ... 0xff] = SL_C_HIGH,
};

/* The classes of the n bytes at s, or'ed. */
static inline unsigned
sl_classes(const char *s, size_t n)
{
	unsigned acc = 0;
	size_t i;

	for (i = 0; i < n; i++)
		acc |= sl_class[(unsigned char)s[i]];
	return acc;
}

/*
 * The start of a name, 16 bytes at a time: where its first ':' or '|'
 * is, or the bytes left short of a block; *acc gets the classes of the
 * bytes before that. A name is of letters, digits, '.', '_' and '-',
 * none of which has a class, so the bytes' classes are looked up
 * (sl_classes()) only in a block that holds others. Names under 16
 * bytes are left to the byte loop of sl_line_parse(): for them a block
 * of 8 cost more instructions than the loop saved.
 * Returns: the bytes scanned (at a ':' or '|', or len minus under 16).
 */
static size_t
sl_name_scan(const char *p, size_t len, unsigned *acc)
{
	size_t i = 0;

#ifdef __SSE2__
	for (; len - i >= 16; i += 16) {
		__m128i x = _mm_loadu_si128((const void *)(p + i));
		/* A byte at most ' ', at least 0x7f, or one of "#@," has a
		 * class (sl_class[]). */
		unsigned stop = (unsigned)_mm_movemask_epi8(_mm_or_si128(
		    _mm_cmpeq_epi8(x, _mm_set1_epi8(':')),
		    _mm_cmpeq_epi8(x, _mm_set1_epi8('|'))));
		unsigned odd = (unsigned)_mm_movemask_epi8(_mm_or_si128(
		    _mm_or_si128(_mm_cmpeq_epi8(_mm_min_epu8(x,
		    _mm_set1_epi8(' ')), x), _mm_cmpeq_epi8(_mm_max_epu8(x,
		    _mm_set1_epi8(0x7f)), x)), _mm_or_si128(_mm_or_si128(
		    _mm_cmpeq_epi8(x, _mm_set1_epi8('#')),
		    _mm_cmpeq_epi8(x, _mm_set1_epi8('@'))),
		    _mm_cmpeq_epi8(x, _mm_set1_epi8(',')))));
		size_t n = stop != 0 ? (size_t)__builtin_ctz(stop) : 16;

		if (odd & ((1u << n) - 1))
			*acc |= sl_classes(p + i, n);
		if (stop != 0)
			return i + n;
	}
#endif
	(void)p;
	(void)len;
	(void)acc;
	return i;
}

/* A tag or a set member: no controls (blanks are allowed in values);
 * SL_R_UTF8 if not valid UTF-8. */
static enum sl_reject
sl_text_check(const char *s, size_t n, enum sl_reject bad)
{
	unsigned acc = sl_classes(s, n);

	if (acc & SL_C_CTL)
		return bad;
	if ((acc & SL_C_HIGH) && !sl_utf8_valid(s, n))
		return SL_R_UTF8;
	return SL_OK;
}

static enum sl_reject
sl_tags_check(const char *s, uint32_t n, const struct sl_limits *lim,
    uint32_t *ret_ntags)
{
	const char *q = s, *end = s + n, *t;
	uint32_t tl, ntags = 0;
	unsigned acc;

	/* As sl_tag_next() splits them, each looked at in the same pass. */
	while (q < end) {
		for (t = q, acc = 0; q < end && *q != ','; q++)
			acc |= sl_class[(unsigned char)*q];
		tl = (uint32_t)(q++ - t);
		if (tl == 0)
			continue;
		if (++ntags > lim->tags_max || tl > lim->tag_max || t[0] == ':')
			return SL_R_TAGS;
		if (acc & SL_C_CTL)
			return SL_R_TAGS;
		if ((acc & SL_C_HIGH) && !sl_utf8_valid(t, tl))
			return SL_R_UTF8;
	}
	*ret_ntags = ntags;
	return SL_OK;
}

/*
 * Every value of l: each number parsed once, here (the first kept in
 * l->value for sl_value_next()), a set's member checked as text. What
 * refuses the line is the first bad value's reason. packed: the values
 * hold a ':' (else they are one value, not looked for).
 */
static enum sl_reject
sl_values_check(struct sl_line *l, bool packed, const struct sl_limits *lim)
{
	const char *s = l->values, *end = s + l->values_len, *c;
	uint32_t n = 0, len;
	enum sl_reject r;
	double v = 0;

	/* As sl_value_next() walks them: an empty values part is one empty
	 * value, and an ending ':' leaves an empty last one. */
	for (;;) {
		c = packed ? memchr(s, ':', (size_t)(end - s)) : NULL;
		len = (uint32_t)((c != NULL ? c : end) - s);
		if (++n > lim->values_max || len == 0)
			return SL_R_VALUE;
		if (l->type == SL_SET) {
			if (len > lim->tag_max)
				return SL_R_VALUE;
			if ((r = sl_text_check(s, len, SL_R_VALUE)) != SL_OK)
				return r;
		} else if (!sl_whole(s, len, n == 1 ? &l->value : &v) &&
		    !sl_number(s, len, n == 1 ? &l->value : &v)) {
			return SL_R_VALUE;
		}
		if (c == NULL)
			break;
		s = c + 1;
	}
	l->nvalues = n;
	return SL_OK;
}

enum sl_reject
sl_line_parse(const char *p, size_t len, const struct sl_limits *lim,
    struct sl_line *ret)
{
	const char *end = p + len, *colon, *bar, *f, *fe;
	enum sl_reject r;
	unsigned acc = 0, cls;
	bool packed = false;
	size_t i;

	if (len >= 3 && p[0] == '_' && (memcmp(p, "_e{", 3) == 0 ||
	    (len >= 4 && memcmp(p, "_sc|", 4) == 0)))
		return SL_R_EVENT;
	/* The name, up to the first ':', in one pass that also looks at
	 * what it holds. A '|' before any ':' is no line. */
	i = sl_name_scan(p, len, &acc);
	for (; i < len; i++) {
		cls = sl_class[(unsigned char)p[i]];
		if (cls & (SL_C_COLON | SL_C_BAR))
			break;
		acc |= cls;
	}
	if (i == len || p[i] == '|')
		return SL_R_SYNTAX;
	colon = p + i;
	/* The values, up to the first '|': a few bytes, and whether they
	 * are more than one. */
	for (bar = colon + 1; bar < end && *bar != '|'; bar++)
		packed |= *bar == ':';
	if (bar == end)
		return SL_R_SYNTAX;
	memset(ret, 0, sizeof(*ret));
	ret->rate = 1.0;
	ret->name = p;
	ret->name_len = (uint32_t)i;
	if (i == 0 || i > lim->name_max || (acc & (SL_C_CTL | SL_C_NAMEBAD)))
		return SL_R_NAME;
	if ((acc & SL_C_HIGH) && !sl_utf8_valid(p, i))
		return SL_R_UTF8;
	ret->values = colon + 1;
	ret->values_len = (uint32_t)(bar - colon - 1);

	/* The type, then the optional fields, each after a '|'. */
	f = bar + 1;
	if (f < end && (f + 1 == end || f[1] == '|')) {
		fe = f + 1;
		switch (f[0]) {
		case 'c': ret->type = SL_COUNTER; break;
		case 'g': ret->type = SL_GAUGE; break;
		case 'h': ret->type = SL_HISTOGRAM; break;
		case 'd': ret->type = SL_DISTRIBUTION; break;
		case 's': ret->type = SL_SET; break;
		default: return SL_R_TYPE;
		}
	} else if (end - f >= 2 && f[0] == 'm' && f[1] == 's' &&
	    (f + 2 == end || f[2] == '|')) {
		fe = f + 2;
		ret->type = SL_TIMER;
	} else {
		return SL_R_TYPE;
	}
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
			if (n - 2 > lim->tag_max)
				return SL_R_TAGS;
			if ((r = sl_text_check(f + 2, n - 2, SL_R_TAGS)) !=
			    SL_OK)
				return r;
			ret->container = n > 2 ? f + 2 : NULL;
			ret->container_len = (uint32_t)(n - 2);
		} else if (n > 0 && f[0] == 'T') {
			int64_t ts = 0;
			size_t k;

			if (n < 2 || n > 19)
				return SL_R_TIMESTAMP;
			for (k = 1; k < n; k++) {
				if (f[k] < '0' || f[k] > '9')
					return SL_R_TIMESTAMP;
				ts = ts * 10 + (f[k] - '0');
			}
			ret->ts = ts;
			ret->has_ts = true;
		} else {
			ret->ignored++;
		}
	}
	return sl_values_check(ret, packed, lim);
}

bool
sl_value_next_packed(const struct sl_line *l, uint32_t *pos,
    struct sl_value *ret)
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
	/* The first value sl_line_parse() parsed already. */
	if (*pos == 0 && l->nvalues > 0)
		ret->v = l->value;
	else if (l->type != SL_SET && !sl_number(s, ret->len, &ret->v))
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
