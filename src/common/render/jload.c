/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * jload.c: JSON text to a jansson value (jload.h).
 *
 * json_loadb() took about 3.8 us for a 91-byte KstatCreate reply on this
 * VM (19,000 instructions under callgrind): its lexer takes the text a
 * byte at a time through a stream that checks UTF-8 for each, and copies
 * every token into a buffer of its own. statsd reads every call with it,
 * and the client every reply. The reader here walks the text once and
 * makes the same jansson values, for what messages hold. Anything else,
 * and anything jansson would refuse, it leaves to json_loadb(): it must
 * never take a text jansson refuses, nor read one differently, and
 * test_jload.c holds it to that against jansson over random and mutated
 * texts. So a caller's answer, and its error, are jansson's.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jload.h"
#include "utf8.h"

struct jp {
	const unsigned char	*p, *end;
};

static json_t *jp_value(struct jp *j, unsigned depth);

static void
jp_ws(struct jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' ||
	    *j->p == '\r' || *j->p == '\t'))
		j->p++;
}

static int
jp_hex(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * The string whose opening quote j is past: its bytes at *ret and their
 * number; in place if it holds no escape, else decoded into stack
 * (stacksz bytes) or, if longer, into memory at *tmp for the caller to
 * free. Returns: false where the reader gives up.
 */
static bool
jp_string(struct jp *j, char *stack, size_t stacksz, char **tmp,
    const char **ret, size_t *ret_len)
{
	const unsigned char *s = j->p, *p = s;
	char *out = NULL;
	size_t o = 0, k;

	*tmp = NULL;
	for (;;) {
		/* A run of plain bytes. */
		while (p < j->end && *p >= 0x20 && *p < 0x80 && *p != '"' &&
		    *p != '\\')
			p++;
		if (p == j->end || *p < 0x20)
			return false;		/* unended, or a control byte */
		if (*p == '"')
			break;
		if (*p >= 0x80) {
			k = utf8_seq(p, (size_t)(j->end - p));
			if (k == 0)
				return false;
			p += k;
			continue;
		}
		/* An escape. The first makes room for the decoded string,
		 * which is no longer than its text, and copies what came
		 * before it. */
		if (out == NULL) {
			const unsigned char *q = p;
			size_t raw;

			while (q < j->end && *q != '"') {
				if (*q == '\\' && j->end - q < 2)
					return false;
				q += *q == '\\' ? 2 : 1;
			}
			if (q >= j->end)
				return false;
			raw = (size_t)(q - j->p);
			out = raw <= stacksz ? stack : (*tmp = malloc(raw));
			if (out == NULL)
				return false;
			memcpy(out, s, (size_t)(p - s));
			o = (size_t)(p - s);
		}
		if (j->end - p < 2)
			return false;
		switch (p[1]) {
		case '"':
		case '\\':
		case '/':
			out[o++] = (char)p[1];
			p += 2;
			break;
		case 'b':
			out[o++] = '\b';
			p += 2;
			break;
		case 'f':
			out[o++] = '\f';
			p += 2;
			break;
		case 'n':
			out[o++] = '\n';
			p += 2;
			break;
		case 'r':
			out[o++] = '\r';
			p += 2;
			break;
		case 't':
			out[o++] = '\t';
			p += 2;
			break;
		case 'u': {
			uint32_t cp = 0;
			int i, h;

			if (j->end - p < 6)
				return false;
			for (i = 2; i < 6; i++) {
				if ((h = jp_hex(p[i])) < 0)
					return false;
				cp = (cp << 4) | (uint32_t)h;
			}
			/* NUL (refused without JSON_ALLOW_NUL) and
			 * surrogates (pairs) are jansson's to read. */
			if (cp == 0 || (cp >= 0xd800 && cp <= 0xdfff))
				return false;
			if (cp < 0x80) {
				out[o++] = (char)cp;
			} else if (cp < 0x800) {
				out[o++] = (char)(0xc0 | (cp >> 6));
				out[o++] = (char)(0x80 | (cp & 0x3f));
			} else {
				out[o++] = (char)(0xe0 | (cp >> 12));
				out[o++] = (char)(0x80 | ((cp >> 6) & 0x3f));
				out[o++] = (char)(0x80 | (cp & 0x3f));
			}
			p += 6;
			break;
		}
		default:
			return false;
		}
		/* The bytes after it, up to the next escape or the end,
		 * copied as they are. */
		s = p;
		while (p < j->end && *p != '"' && *p != '\\') {
			if (*p < 0x20)
				return false;
			if (*p >= 0x80) {
				k = utf8_seq(p, (size_t)(j->end - p));
				if (k == 0)
					return false;
				p += k;
			} else {
				p++;
			}
		}
		if (p == j->end)
			return false;
		memcpy(out + o, s, (size_t)(p - s));
		o += (size_t)(p - s);
		if (*p == '"')
			break;
	}
	if (out != NULL) {
		*ret = out;
		*ret_len = o;
	} else {
		*ret = (const char *)s;
		*ret_len = (size_t)(p - s);
	}
	j->p = p + 1;
	return true;
}

static json_t *
jp_number(struct jp *j)
{
	const unsigned char *p = j->p;
	bool neg = false;
	uint64_t v = 0, max;

	if (*p == '-') {
		neg = true;
		p++;
	}
	if (p == j->end || *p < '0' || *p > '9')
		return NULL;
	if (*p == '0' && p + 1 < j->end && p[1] >= '0' && p[1] <= '9')
		return NULL;		/* a leading zero: refused */
	max = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	while (p < j->end && *p >= '0' && *p <= '9') {
		unsigned d = (unsigned)(*p - '0');

		if (v > (max - d) / 10)
			return NULL;	/* out of range: jansson's error */
		v = v * 10 + d;
		p++;
	}
	/* A fraction or an exponent makes a real: jansson's (strtod()). */
	if (p < j->end && (*p == '.' || *p == 'e' || *p == 'E'))
		return NULL;
	j->p = p;
	return json_integer(neg ? (json_int_t)(0 - v) : (json_int_t)v);
}

static bool
jp_word(struct jp *j, const char *w, size_t n)
{
	if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n) != 0)
		return false;
	j->p += n;
	return true;
}

static json_t *
jp_object(struct jp *j, unsigned depth)
{
	json_t *o = json_object(), *v;
	char stack[256], *tmp;
	const char *key;
	size_t klen, n;

	if (o == NULL)
		return NULL;
	j->p++;
	jp_ws(j);
	if (j->p < j->end && *j->p == '}') {
		j->p++;
		return o;
	}
	for (;;) {
		if (j->p == j->end || *j->p != '"')
			goto fail;
		j->p++;
		if (!jp_string(j, stack, sizeof(stack), &tmp, &key, &klen))
			goto fail_tmp;
		jp_ws(j);
		if (j->p == j->end || *j->p != ':')
			goto fail_tmp;
		j->p++;
		jp_ws(j);
		v = jp_value(j, depth + 1);
		n = json_object_size(o);
		if (v == NULL || json_object_setn_new_nocheck(o, key, klen,
		    v) < 0)
			goto fail_tmp;
		/* A repeated key replaced the value, and is refused
		 * (JSON_REJECT_DUPLICATES): one hash lookup a key, not two. */
		if (json_object_size(o) == n)
			goto fail_tmp;
		free(tmp);
		jp_ws(j);
		if (j->p == j->end)
			goto fail;
		if (*j->p == '}') {
			j->p++;
			return o;
		}
		if (*j->p != ',')
			goto fail;
		j->p++;
		jp_ws(j);
	}
fail_tmp:
	free(tmp);
fail:
	json_decref(o);
	return NULL;
}

static json_t *
jp_array(struct jp *j, unsigned depth)
{
	json_t *a = json_array(), *v;

	if (a == NULL)
		return NULL;
	j->p++;
	jp_ws(j);
	if (j->p < j->end && *j->p == ']') {
		j->p++;
		return a;
	}
	for (;;) {
		v = jp_value(j, depth + 1);
		if (v == NULL || json_array_append_new(a, v) < 0)
			break;
		jp_ws(j);
		if (j->p == j->end)
			break;
		if (*j->p == ']') {
			j->p++;
			return a;
		}
		if (*j->p != ',')
			break;
		j->p++;
		jp_ws(j);
	}
	json_decref(a);
	return NULL;
}

static json_t *
jp_value(struct jp *j, unsigned depth)
{
	char stack[256], *tmp;
	const char *s;
	size_t n;
	json_t *v;

	if (j->p == j->end || depth > JLOAD_DEPTH_MAX)
		return NULL;
	switch (*j->p) {
	case '{':
		return jp_object(j, depth);
	case '[':
		return jp_array(j, depth);
	case '"':
		j->p++;
		if (!jp_string(j, stack, sizeof(stack), &tmp, &s, &n)) {
			free(tmp);
			return NULL;
		}
		v = json_stringn_nocheck(s, n);
		free(tmp);
		return v;
	case 't':
		return jp_word(j, "true", 4) ? json_true() : NULL;
	case 'f':
		return jp_word(j, "false", 5) ? json_false() : NULL;
	case 'n':
		return jp_word(j, "null", 4) ? json_null() : NULL;
	default:
		return jp_number(j);
	}
}

json_t *
jload_fast(const char *buf, size_t len)
{
	struct jp j = { (const unsigned char *)buf,
	    (const unsigned char *)buf + len };
	json_t *v;

	if (buf == NULL)
		return NULL;
	jp_ws(&j);
	/* An object or an array: no JSON_DECODE_ANY. */
	if (j.p == j.end || (*j.p != '{' && *j.p != '['))
		return NULL;
	v = jp_value(&j, 0);
	if (v == NULL)
		return NULL;
	/* Nothing but white space after it. */
	jp_ws(&j);
	if (j.p != j.end) {
		json_decref(v);
		return NULL;
	}
	return v;
}

json_t *
jload(const char *buf, size_t len, json_error_t *err)
{
	json_error_t own;
	json_t *v = jload_fast(buf, len);

	if (v != NULL)
		return v;
	return json_loadb(buf, len, JSON_REJECT_DUPLICATES,
	    err != NULL ? err : &own);
}
