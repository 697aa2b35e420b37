/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * jdump.c: compact JSON text of a jansson value (jdump.h).
 *
 * Every call and reply on the control socket is encoded this way, on both
 * ends. jansson 2.14's json_dumps() took about 4 us for a 200-byte
 * KstatCreate: before each object and array it prints the value's address
 * with snprintf() into the key of a hash table made for the call, to find
 * loops. A message is a tree its sender has just built, which cannot
 * hold a loop, so this encoder walks it and writes into one growing
 * buffer. The text is json_dumps(v, JSON_COMPACT)'s byte for byte (the
 * same escapes, the same form of reals), which test_jdump.c checks
 * against jansson over random values: the state log's records, written
 * with it too, read the same either way.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dec.h"
#include "jdump.h"
#include "utf8.h"

/* The buffer is struct jtext (jdump.h): the piece-by-piece writers at
 * the end of this file share it. */

/* Room for n more bytes and a NUL. */
static bool
jb_room(struct jtext *b, size_t n)
{
	size_t nc;
	char *p;

	if (b->bad)
		return false;
	if (b->cap - b->len > n)
		return true;
	nc = b->cap > 0 ? b->cap : 256;
	while (nc - b->len <= n) {
		if (nc > SIZE_MAX / 4) {
			b->bad = true;
			return false;
		}
		nc *= 2;
	}
	p = realloc(b->s, nc);
	if (p == NULL) {
		b->bad = true;
		return false;
	}
	b->s = p;
	b->cap = nc;
	return true;
}

static void
jb_put(struct jtext *b, const void *p, size_t n)
{
	if (n > 0 && jb_room(b, n)) {
		memcpy(b->s + b->len, p, n);
		b->len += n;
	}
}

static void
jb_putc(struct jtext *b, char c)
{
	if (jb_room(b, 1))
		b->s[b->len++] = c;
}

static void
jb_cat(struct jtext *b, const char *s)
{
	if (s != NULL)
		jb_put(b, s, strlen(s));
}

/* A string, quoted and escaped as jansson escapes it. */
static void
jb_string(struct jtext *b, const char *str, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, run, k;

	jb_putc(b, '"');
	while (i < n && !b->bad) {
		/* A run of bytes that go as they are. */
		for (run = i; run < n && s[run] >= 0x20 && s[run] < 0x80 &&
		    s[run] != '"' && s[run] != '\\'; run++)
			;
		jb_put(b, s + i, run - i);
		i = run;
		if (i == n)
			break;
		if (s[i] >= 0x80) {
			k = utf8_seq(s + i, n - i);
			if (k == 0) {
				b->bad = true;
				return;
			}
			jb_put(b, s + i, k);
			i += k;
			continue;
		}
		switch (s[i]) {
		case '"':
			jb_put(b, "\\\"", 2);
			break;
		case '\\':
			jb_put(b, "\\\\", 2);
			break;
		case '\b':
			jb_put(b, "\\b", 2);
			break;
		case '\f':
			jb_put(b, "\\f", 2);
			break;
		case '\n':
			jb_put(b, "\\n", 2);
			break;
		case '\r':
			jb_put(b, "\\r", 2);
			break;
		case '\t':
			jb_put(b, "\\t", 2);
			break;
		default: {
			char u[6] = { '\\', 'u', '0', '0', hex[s[i] >> 4],
			    hex[s[i] & 0xf] };

			jb_put(b, u, sizeof(u));
			break;
		}
		}
		i++;
	}
	jb_putc(b, '"');
}

static void
jb_integer(struct jtext *b, json_int_t v)
{
	char d[DEC_I64_MAX], *p = dec_u64_end(d + sizeof(d), v < 0 ?
	    (uint64_t)0 - (uint64_t)v : (uint64_t)v);

	if (v < 0)
		*--p = '-';
	jb_put(b, p, (size_t)(d + sizeof(d) - p));
}

/*
 * A real as jansson writes it: "%.17g", read back as the same double;
 * the locale's decimal point as '.'; ".0" added if that left neither a
 * point nor an exponent (it would read back as an integer); the
 * exponent without '+' or leading zeros.
 */
static void
jb_real(struct jtext *b, double v)
{
	char d[40], *e, *p;
	int n;

	n = snprintf(d, sizeof(d), "%.17g", v);
	if (n < 0 || (size_t)n >= sizeof(d) - 3) {
		b->bad = true;
		return;
	}
	for (p = d; *p != '\0'; p++)
		if (strchr("0123456789+-e", *p) == NULL)
			*p = '.';
	if (strchr(d, '.') == NULL && strchr(d, 'e') == NULL) {
		memcpy(d + n, ".0", 3);
		n += 2;
	}
	if ((e = strchr(d, 'e')) != NULL) {
		char *from = e + 1, *to = e + 1;

		if (*from == '-')
			to = ++from;
		else if (*from == '+')
			from++;
		while (*from == '0' && from[1] != '\0')
			from++;
		memmove(to, from, strlen(from) + 1);
		n = (int)strlen(d);
	}
	jb_put(b, d, (size_t)n);
}

static void
jb_value(struct jtext *b, const json_t *v, unsigned depth)
{
	size_t i, n;
	void *it;

	if (b->bad)
		return;
	if (depth > JDUMP_DEPTH_MAX) {
		b->bad = true;
		return;
	}
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		jb_putc(b, '{');
		/* In the order the keys were set, as jansson keeps them. */
		for (it = json_object_iter((json_t *)(uintptr_t)v), i = 0;
		    it != NULL; it = json_object_iter_next(
		    (json_t *)(uintptr_t)v, it), i++) {
			if (i > 0)
				jb_putc(b, ',');
			jb_string(b, json_object_iter_key(it),
			    json_object_iter_key_len(it));
			jb_putc(b, ':');
			jb_value(b, json_object_iter_value(it), depth + 1);
		}
		jb_putc(b, '}');
		break;
	case JSON_ARRAY:
		jb_putc(b, '[');
		n = json_array_size(v);
		for (i = 0; i < n; i++) {
			if (i > 0)
				jb_putc(b, ',');
			jb_value(b, json_array_get(v, i), depth + 1);
		}
		jb_putc(b, ']');
		break;
	case JSON_STRING:
		jb_string(b, json_string_value(v), json_string_length(v));
		break;
	case JSON_INTEGER:
		jb_integer(b, json_integer_value(v));
		break;
	case JSON_REAL:
		jb_real(b, json_real_value(v));
		break;
	case JSON_TRUE:
		jb_put(b, "true", 4);
		break;
	case JSON_FALSE:
		jb_put(b, "false", 5);
		break;
	case JSON_NULL:
		jb_put(b, "null", 4);
		break;
	default:
		b->bad = true;
		break;
	}
}

/* The text made, NUL-terminated; NULL (and freed) if anything failed. */
static char *
jb_finish(struct jtext *b, size_t *len)
{
	if (!jb_room(b, 0)) {
		free(b->s);
		return NULL;
	}
	b->s[b->len] = '\0';
	if (len != NULL)
		*len = b->len;
	return b->s;
}

char *
jdump(const json_t *v, unsigned flags, size_t *len)
{
	struct jtext b = { 0 };

	if (v == NULL || (!(flags & JDUMP_ANY) && !json_is_object(v) &&
	    !json_is_array(v)))
		return NULL;
	jb_value(&b, v, 0);
	return jb_finish(&b, len);
}

char *
jdump_framed(const char *head, const json_t *v, const char *tail,
    size_t *len)
{
	struct jtext b = { 0 };
	char *s;

	if (v == NULL || (!json_is_object(v) && !json_is_array(v)))
		return NULL;
	jb_cat(&b, head);
	jb_value(&b, v, 0);
	jb_cat(&b, tail);
	s = jb_finish(&b, len);
	if (s != NULL && len != NULL)
		(*len)++;
	return s;
}

/* ------------------------------------------------ text piece by piece */

/* Is a comma due before the next key or item? */
static void
jtext_comma(struct jtext *t)
{
	if (t->len > 0 && t->s[t->len - 1] != '{' && t->s[t->len - 1] != '[' &&
	    t->s[t->len - 1] != ':')
		jb_putc(t, ',');
}

void
jtext_open(struct jtext *t, char c)
{
	jtext_comma(t);
	jb_putc(t, c);
}

void
jtext_close(struct jtext *t, char c)
{
	jb_putc(t, c);
}

void
jtext_key(struct jtext *t, const char *key)
{
	jtext_comma(t);
	jb_string(t, key, strlen(key));
	jb_putc(t, ':');
}

void
jtext_str(struct jtext *t, const char *s)
{
	jtext_comma(t);
	if (s == NULL) {
		t->bad = true;
		return;
	}
	jb_string(t, s, strlen(s));
}

void
jtext_int(struct jtext *t, int64_t v)
{
	jtext_comma(t);
	jb_integer(t, (json_int_t)v);
}

void
jtext_bool(struct jtext *t, bool v)
{
	jtext_comma(t);
	jb_cat(t, v ? "true" : "false");
}

char *
jtext_end(struct jtext *t, size_t *len)
{
	char *s = jb_finish(t, len);

	memset(t, 0, sizeof(*t));
	return s;
}
