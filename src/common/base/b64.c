/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * b64.c: base64 encoding and strict decoding (padding required, no
 * whitespace): the tree's one base64 codec (b64.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "b64.h"

static const char b64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *
b64_encode(const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t i, o = 0;
	char *s;

	s = malloc((len + 2) / 3 * 4 + 1);
	if (s == NULL)
		return NULL;
	for (i = 0; i + 2 < len; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 |
		    p[i + 2];

		s[o++] = b64_alphabet[v >> 18];
		s[o++] = b64_alphabet[(v >> 12) & 63];
		s[o++] = b64_alphabet[(v >> 6) & 63];
		s[o++] = b64_alphabet[v & 63];
	}
	if (i < len) {
		uint32_t v = (uint32_t)p[i] << 16;

		if (i + 1 < len)
			v |= (uint32_t)p[i + 1] << 8;
		s[o++] = b64_alphabet[v >> 18];
		s[o++] = b64_alphabet[(v >> 12) & 63];
		s[o++] = i + 1 < len ? b64_alphabet[(v >> 6) & 63] : '=';
		s[o++] = '=';
	}
	s[o] = '\0';
	return s;
}

char
b64_digit(unsigned v)
{
	return b64_alphabet[v & 63];
}

/* By ranges, not a search of the alphabet: a set's 1,024 registers are
 * read this way at every count. */
int
b64_value(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

long
b64_decode(const char *text, void *buf, size_t cap)
{
	size_t n = strlen(text), i, o = 0;
	uint8_t *out = buf;

	if (n % 4 != 0)
		return -EINVAL;
	for (i = 0; i < n; i += 4) {
		int a = b64_value(text[i]), b = b64_value(text[i + 1]);
		int c = text[i + 2] == '=' ? -2 : b64_value(text[i + 2]);
		int d = text[i + 3] == '=' ? -2 : b64_value(text[i + 3]);
		uint32_t v;

		if (a < 0 || b < 0 || c == -1 || d == -1 ||
		    (c == -2 && d != -2) || ((c == -2 || d == -2) &&
		    i + 4 != n))
			return -EINVAL;
		v = (uint32_t)a << 18 | (uint32_t)b << 12 |
		    (uint32_t)(c < 0 ? 0 : c) << 6 | (uint32_t)(d < 0 ? 0 : d);
		if (o + 1 + (c >= 0) + (d >= 0) > cap)
			return -ENOBUFS;
		out[o++] = (uint8_t)(v >> 16);
		if (c >= 0)
			out[o++] = (uint8_t)(v >> 8);
		if (d >= 0)
			out[o++] = (uint8_t)v;
	}
	return (long)o;
}
