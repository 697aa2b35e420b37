/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stat_scalar.c: COUNT and LAST, the scalar statistics of the kstat and
 * Linux front ends, and SET for SUM (a kstat counter written as a whole).
 *
 * COUNT is the Linux value statistic in mode increments and the "number"
 * of a range: the sum of the weights. LAST is a kstat named value: the last
 * X an update or SET gave it, or a CHAR or STRING value set as text.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <statsd/kstat.h>

#include "numeric.h"
#include "op.h"
#include "sbuf_claim.h"
#include "stat_scalar.h"
#include "utf8.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* One weight in the VOI's units: 1, or 1.0 for a fixed-point type. */
static struct voistatdata_numeric
count_unit(enum vsd_dtype dtype)
{
	struct voistatdata_numeric one;
	unsigned fbits = 0;

	if (dtype_info[dtype].is_q)
		fbits = (dtype == VSD_DTYPE_Q_S32 || dtype == VSD_DTYPE_Q_U32) ?
		    STATS_Q32_FBITS : STATS_Q64_FBITS;
	one.int64.u64 = 0;
	if (dtype_info[dtype].size == 4)
		one.int32.u32 = (uint32_t)1 << fbits;
	else
		one.int64.u64 = (uint64_t)1 << fbits;
	return one;
}

static int
scalar_vss(enum vsd_dtype voi_dtype, struct voistatspec *vss,
    enum voi_stype stype)
{
	struct voistatdata_numeric *iv;

	if (vss == NULL || !dtype_is_scalar(voi_dtype) || vss->stype != stype)
		return EINVAL;
	iv = calloc(1, sizeof(*iv));
	if (iv == NULL)
		return ENOMEM;
	vss->iv = (struct voistatdata *)iv;
	vss->vsdsz = dtype_info[voi_dtype].size;
	vss->vs_dtype = voi_dtype;
	return 0;
}

int
stats_vss_count_hlpr(enum vsd_dtype voi_dtype, struct voistatspec *vss,
    void *info)
{
	(void)info;
	return scalar_vss(voi_dtype, vss, VS_STYPE_COUNT);
}

int
stats_vss_last_hlpr(enum vsd_dtype voi_dtype, struct voistatspec *vss,
    void *info)
{
	(void)info;
	return scalar_vss(voi_dtype, vss, VS_STYPE_LAST);
}

int
stat_string_vss_hlpr(enum vsd_dtype voi_dtype, struct voistatspec *vss,
    struct vss_string_hlpr_info *info)
{
	struct vsd_string *iv;
	uint32_t cap;

	if (vss == NULL || info == NULL || !dtype_is_scalar(voi_dtype) ||
	    vss->stype != VS_STYPE_LAST)
		return EINVAL;
	if (info->kind == KSTAT_DATA_CHAR)
		cap = STRING_CHAR_MAX + 1;
	else if (info->kind == KSTAT_DATA_STRING && info->maxlen >= 1 &&
	    info->maxlen <= STRING_MAX)
		cap = (uint32_t)info->maxlen + 1;
	else
		return EINVAL;
	iv = calloc(1, STRING_HDRSZ + cap);
	if (iv == NULL)
		return ENOMEM;
	iv->cap = (uint16_t)cap;
	iv->kind = info->kind;
	vss->iv = (struct voistatdata *)iv;
	vss->vsdsz = STRING_HDRSZ + cap;
	vss->vs_dtype = VSD_DTYPE_STRING;
	return 0;
}

int
stat_string_set(struct voistatdata *vsd, const char *s, size_t len)
{
	struct vsd_string *str = (struct vsd_string *)vsd;

	if (len >= str->cap)
		return E2BIG;
	memcpy(str->s, s, len);
	/* Clear the tail so a copy of the blob leaks no old text. */
	memset(str->s + len, 0, str->cap - len);
	str->len = (uint16_t)len;
	return 0;
}

int
stat_named_data_type(enum vsd_dtype voi_dtype, enum vsd_dtype vs_dtype,
    const struct voistatdata *vsd)
{
	if (vs_dtype == VSD_DTYPE_STRING)
		return ((const struct vsd_string *)vsd)->kind;
	switch (voi_dtype) {
	case VSD_DTYPE_INT_S32:
		return KSTAT_DATA_INT32;
	case VSD_DTYPE_INT_U32:
		return KSTAT_DATA_UINT32;
	case VSD_DTYPE_INT_S64:
	case VSD_DTYPE_INT_SLONG:
		return KSTAT_DATA_INT64;
	case VSD_DTYPE_INT_U64:
	case VSD_DTYPE_INT_ULONG:
		return KSTAT_DATA_UINT64;
	default:
		return -1;
	}
}

int
stat_count_update(struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype,
    const struct voistatdata_numeric *x, uint64_t y, bool *changed)
{
	struct voistatdata_numeric acc, one = count_unit(vs_dtype);
	int error;

	(void)dsz;
	(void)voi_dtype;
	(void)x;
	numeric_load(vs_dtype, vsd, &acc);
	error = numeric_add(vs_dtype, &acc, &one, y);
	if (error != 0)
		return error;
	numeric_store(vs_dtype, vsd, &acc);
	*changed = true;
	return 0;
}

int
stat_last_update(struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype,
    const struct voistatdata_numeric *x, uint64_t y, bool *changed)
{
	(void)dsz;
	(void)voi_dtype;
	(void)y;
	if (vs_dtype == VSD_DTYPE_STRING)
		return EOPNOTSUPP;	/* text is set, never updated */
	numeric_store(vs_dtype, vsd, x);
	*changed = true;
	return 0;
}

int
stat_last_event(struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype,
    const struct stats_event *ev, bool *changed)
{
	if (ev->op != STATS_OP_SET)
		return EOPNOTSUPP;
	return stat_last_update(vsd, dsz, vs_dtype, voi_dtype, &ev->x, 1,
	    changed);
}

int
stat_sum_event(struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype,
    const struct stats_event *ev, bool *changed)
{
	(void)dsz;
	(void)voi_dtype;
	/* A kstat counter written as a whole (kstat_write, knp->value = v). */
	if (ev->op != STATS_OP_SET)
		return EOPNOTSUPP;
	numeric_store(vs_dtype, vsd, &ev->x);
	*changed = true;
	return 0;
}

void
stat_last_reset(struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype)
{
	(void)voi_dtype;
	if (vs_dtype == VSD_DTYPE_STRING) {
		struct vsd_string *str = (struct vsd_string *)vsd;

		str->len = 0;
		memset(str->s, 0, str->cap);
		return;
	}
	memset(vsd, 0, dsz);
}

int
stat_last_merge(struct voistatdata *dst, const struct voistatdata *src,
    uint16_t dsz, enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype)
{
	(void)voi_dtype;
	(void)vs_dtype;
	/* The source is the later copy: its value is the last one. */
	memcpy(dst, src, dsz);
	return 0;
}

const char *
stat_last_check(const struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype)
{
	const struct vsd_string *str = (const struct vsd_string *)vsd;

	if (vs_dtype != VSD_DTYPE_STRING)
		return numeric_check(vsd, dsz, vs_dtype, voi_dtype);
	if (dsz < STRING_HDRSZ + 1u)
		return "string value smaller than its header";
	if (str->cap != dsz - STRING_HDRSZ)
		return "string capacity disagrees with its size";
	if (str->kind != KSTAT_DATA_CHAR && str->kind != KSTAT_DATA_STRING)
		return "string value of an unknown kind";
	if (str->len >= str->cap || str->s[str->len] != '\0')
		return "string value not terminated";
	return NULL;
}

/* Bytes of a word: each of its bytes, repeated. */
#define JSON_ONES	0x0101010101010101ull
#define JSON_HIGHS	0x8080808080808080ull

/*
 * The bytes of a word a JSON string escapes (below 0x20, above 0x7e, a
 * quote or a backslash), each marked by its high bit. Bit tricks of "Bit
 * Twiddling Hacks" (a byte less than n, one greater than n, one equal to
 * n): a borrow or a carry can mark a byte above a marked one, never
 * below, so the lowest mark is always a byte to escape.
 */
static inline uint64_t
json_word_special(uint64_t w)
{
	uint64_t q = w ^ (JSON_ONES * '"'), b = w ^ (JSON_ONES * '\\');

	return (((w - JSON_ONES * 0x20) & ~w) |
	    ((w + JSON_ONES * (127 - 0x7e)) | w) |
	    ((q - JSON_ONES) & ~q) | ((b - JSON_ONES) & ~b)) & JSON_HIGHS;
}

#ifdef __SSE2__
/* json_word_special() for 16 bytes, exact: one bit a byte. */
static inline unsigned
json_block_special(__m128i x)
{
	__m128i q = _mm_cmpeq_epi8(x, _mm_set1_epi8('"'));
	__m128i b = _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'));
	/* Unsigned: at most 0x1f when the minimum with it is the byte,
	 * at least 0x7f when the maximum is. */
	__m128i lo = _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(0x1f)), x);
	__m128i hi = _mm_cmpeq_epi8(_mm_max_epu8(x,
	    _mm_set1_epi8(0x7f)), x);

	return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(q, b),
	    _mm_or_si128(lo, hi)));
}
#endif

/* The escapes of two bytes, by the byte escaped (0: none). */
static const char json_esc2[256] = {
	['"'] = '"', ['\\'] = '\\', ['\n'] = 'n', ['\t'] = 't', ['\r'] = 'r',
};

/* Room json_escape_some() keeps at the end of its output: a block of 16
 * bytes that doubles, and the 16 it copies ahead. */
#define JSON_ESC_SLACK	64

/*
 * Escape p[0..len) as the inside of a JSON string into out (room bytes,
 * at least JSON_ESC_SLACK), until the input ends or fewer than
 * JSON_ESC_SLACK bytes of room are left.
 * Returns: the bytes written; *used: the input bytes escaped.
 */
static size_t
json_escape_some(char *out, size_t room, const unsigned char *p, size_t len,
    size_t *used)
{
	size_t i = 0, o = 0, u;
	unsigned char c;

	/*
	 * Bytes are copied ahead a block at a time and kept up to the
	 * first byte to escape, which the block's lowest mark finds
	 * (little-endian: the lowest byte is the first), as simdjson's
	 * writer does. A scrape's text has a quote or a newline every few
	 * bytes, several a block: each mark of a 16-byte block is taken
	 * from the one mask in turn, and the escapes of two bytes are
	 * looked up, not switched on. Escaping a page of Prometheus text
	 * took 2.5 times as long when each escape ended the block and the
	 * next block was loaded from the byte after it.
	 */
	while (i < len && room - o >= JSON_ESC_SLACK) {
#ifdef __SSE2__
		if (len - i >= 32) {
			/* Every mark of the block in turn: the bytes before it
			 * are copied 16 at a time from where the last one left
			 * off (within the input: 16 more bytes are there). */
			__m128i x = _mm_loadu_si128((const void *)(p + i));
			unsigned m = json_block_special(x);
			size_t done = 0;

			if (m == 0) {
				_mm_storeu_si128((void *)(out + o), x);
				i += 16;
				o += 16;
				continue;
			}
			do {
				u = (size_t)__builtin_ctz(m);
				_mm_storeu_si128((void *)(out + o),
				    _mm_loadu_si128((const void *)(p + i + done)));
				o += u - done;
				c = p[i + u];
				if (json_esc2[c] == 0)
					break;
				out[o++] = '\\';
				out[o++] = json_esc2[c];
				done = u + 1;
				m &= m - 1;
			} while (m != 0);
			if (m == 0) {
				_mm_storeu_si128((void *)(out + o),
				    _mm_loadu_si128((const void *)(p + i + done)));
				o += 16 - done;
				i += 16;
				continue;
			}
			i += u;	/* p[i] is to escape, not in two bytes */
		} else
#endif
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		if (len - i >= 8) {
			uint64_t w, m;

			memcpy(&w, p + i, 8);
			memcpy(out + o, &w, 8);
			m = json_word_special(w);
			if (m == 0) {
				i += 8;
				o += 8;
				continue;
			}
			u = (size_t)__builtin_ctzll(m) >> 3;
			i += u;
			o += u;	/* p[i] is to escape */
		}
#endif
		c = p[i];
		if (json_esc2[c] != 0) {
			out[o++] = '\\';
			out[o++] = json_esc2[c];
			i++;
			continue;
		}
		/* Printable ASCII but the quote and the backslash: as it is
		 * (the last bytes, short of a word). */
		if (c >= 0x20 && c < 0x7f) {
			out[o++] = (char)c;
			i++;
			continue;
		}
		/*
		 * RFC 8259's escapes only, never kstat(1M)'s invalid "\?".
		 * UTF-8 is JSON's own text and goes as it is (a statsd tag
		 * "city:zürich" reaches statsctl as itself); any other byte
		 * past ASCII, and any other control character, is shown as
		 * the code point of its value, so the output is valid JSON
		 * whatever a provider stored.
		 */
		if (c >= 0x80 && (u = utf8_seq(p + i, len - i)) > 0) {
			memcpy(out + o, p + i, u);	/* u <= 4 */
			o += u;
			i += u;
			continue;
		}
		o += (size_t)snprintf(out + o, room - o, "\\u%04x", c);
		i++;
	}
	*used = i;
	return o;
}

void
stat_json_string(struct sbuf *buf, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	char bounce[4096], *out;
	size_t room, used, o;

	sbuf_putc(buf, '"');
	while (len > 0) {
		/*
		 * Written in place at the end of the text, with room for an
		 * eighth more than the rest: a page of a scrape is not copied
		 * again. A buffer that cannot grow to that takes what fits
		 * through a buffer of our own (sbuf_bcat() keeps as much as
		 * fits, as sbuf(9) does).
		 */
		out = sbuf_claim(buf, len + len / 8 + JSON_ESC_SLACK, &room);
		if (out == NULL) {
			if (sbuf_error(buf) != 0)
				return;
			out = bounce;
			room = sizeof(bounce);
		}
		o = json_escape_some(out, room, p, len, &used);
		if (out == bounce) {
			if (sbuf_bcat(buf, bounce, o) != 0)
				return;
		} else
			sbuf_commit(buf, o);
		p += used;
		len -= used;
	}
	sbuf_putc(buf, '"');
}

int
stat_string_render(struct sbuf *buf, const struct voistatdata *vsd,
    uint16_t dsz, enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype,
    enum sb_str_fmt fmt, bool objdump)
{
	const struct vsd_string *str = (const struct vsd_string *)vsd;
	size_t len = strnlen(str->s, str->len);

	(void)dsz;
	(void)vs_dtype;
	(void)voi_dtype;
	(void)objdump;
	if (fmt == SB_STRFMT_JSON) {
		sbuf_cat(buf, "\"val\":");
		stat_json_string(buf, str->s, len);
	} else {
		sbuf_putc(buf, '"');
		sbuf_bcat(buf, str->s, len);
		sbuf_putc(buf, '"');
	}
	return sbuf_error(buf);
}

/* COUNT and LAST take no parameters; STRING its maxlen (64 by default),
 * CHAR none (eight bytes, kstat_named_t's). */
int
stat_count_build(const struct kind_args *a, enum vsd_dtype voi_dtype,
    struct voistatspec *vss, uint32_t *n, uint32_t max, struct input_error *err)
{
	(void)a;
	return kind_add(vss, n, max, VS_STYPE_COUNT,
	    (vss_hlpr_fn)stats_vss_count_hlpr, NULL,
	    voi_dtype, 0, err);
}

int
stat_last_build(const struct kind_args *a, enum vsd_dtype voi_dtype,
    struct voistatspec *vss, uint32_t *n, uint32_t max, struct input_error *err)
{
	(void)a;
	return kind_add(vss, n, max, VS_STYPE_LAST,
	    (vss_hlpr_fn)stats_vss_last_hlpr, NULL,
	    voi_dtype, 0, err);
}

static int
stat_text_build(uint8_t kind, const struct kind_args *a,
    enum vsd_dtype voi_dtype, struct voistatspec *vss, uint32_t *n,
    uint32_t max, struct input_error *err)
{
	struct vss_string_hlpr_info si = {
		.kind = kind,
		.maxlen = (uint16_t)kind_int(a, KP_MAXLEN, 64),
	};

	return kind_add(vss, n, max, VS_STYPE_LAST,
	    (vss_hlpr_fn)stat_string_vss_hlpr, &si, voi_dtype, 0, err);
}

int
stat_string_build(const struct kind_args *a, enum vsd_dtype voi_dtype,
    struct voistatspec *vss, uint32_t *n, uint32_t max, struct input_error *err)
{
	return stat_text_build(KSTAT_DATA_STRING, a, voi_dtype, vss, n, max,
	    err);
}

int
stat_char_build(const struct kind_args *a, enum vsd_dtype voi_dtype,
    struct voistatspec *vss, uint32_t *n, uint32_t max, struct input_error *err)
{
	return stat_text_build(KSTAT_DATA_CHAR, a, voi_dtype, vss, n, max,
	    err);
}

/* LAST: spec 0 (LAST) for a number, 1 (STRING, with its maxlen) or 2
 * (CHAR) for text, as the kind table lists them. */
int
stat_last_describe(const struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype, struct kind_args *ret)
{
	const struct vsd_string *s = (const struct vsd_string *)vsd;

	(void)voi_dtype;
	memset(ret, 0, sizeof(*ret));
	if (vs_dtype != VSD_DTYPE_STRING)
		return 0;
	if (dsz < STRING_HDRSZ || s->cap == 0)
		return -EINVAL;
	if (s->kind == KSTAT_DATA_CHAR)
		return 2;
	kind_set_int(ret, KP_MAXLEN, s->cap - 1);
	return 1;
}
