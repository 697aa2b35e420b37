/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * jrand.h: random jansson values for test_jdump.c and test_jload.c:
 * strings with every escape, UTF-8 of each length and embedded NULs,
 * keys likewise, integers to both ends, reals of random bits, nested a
 * few levels. A fixed seed: a failure repeats.
 */
#ifndef STATSD_TEST_JRAND_H
#define STATSD_TEST_JRAND_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <jansson.h>

static uint64_t jr_state = 0x9e3779b97f4a7c15ull;

static uint64_t
jr_next(void)
{
	jr_state ^= jr_state << 13;
	jr_state ^= jr_state >> 7;
	jr_state ^= jr_state << 17;
	return jr_state;
}

/* Bytes of a string: plain ASCII mostly, every control byte, the two
 * to escape, DEL, and UTF-8 sequences of 2, 3 and 4 bytes. */
static size_t
rand_text(char *out, size_t max)
{
	static const char *const utf8[] = { "\xc3\xa9", "\xe2\x82\xac",
	    "\xf0\x9f\x98\x80", "\xe2\x80\xa8", "\xef\xbf\xbf", "\xc2\x80" };
	size_t n = jr_next() % 24, len = 0, i;

	for (i = 0; i < n && len + 4 < max; i++) {
		unsigned k = (unsigned)(jr_next() % 10);

		if (k < 5)
			out[len++] = (char)(' ' + jr_next() % 95);
		else if (k == 5)
			out[len++] = (char)(jr_next() % 0x20);
		else if (k == 6)
			out[len++] = "\"\\\x7f/"[jr_next() % 4];
		else {
			const char *u = utf8[jr_next() % 6];

			memcpy(out + len, u, strlen(u));
			len += strlen(u);
		}
	}
	return len;
}

static double
rand_real(void)
{
	static const double some[] = { 0.0, -0.0, 1.0, 3.0, 0.1, 1e-5, 1e20,
	    1e21, 123456789012345678.0, DBL_MAX, DBL_MIN, 5e-324, -2.5,
	    1e300, 1e-300 };
	double d;
	uint64_t u;

	if (jr_next() % 3 == 0)
		return some[jr_next() % (sizeof(some) / sizeof(some[0]))];
	do {
		u = jr_next();
		memcpy(&d, &u, sizeof(d));
	} while (!isfinite(d));
	return d;
}

static json_t *
rand_value(unsigned depth)
{
	char text[128];
	size_t n, i;
	json_t *v;

	switch (jr_next() % (depth < 5 ? 9 : 7)) {
	case 0:
		n = rand_text(text, sizeof(text));
		return json_stringn(text, n);
	case 1: {
		static const json_int_t ends[] = { INT64_MIN, INT64_MAX, 0, -1,
		    1, 9, 10, -10 };

		return json_integer(jr_next() % 2 ? ends[jr_next() % 8] :
		    (json_int_t)jr_next());
	}
	case 2:
		return json_real(rand_real());
	case 3:
		return json_true();
	case 4:
		return json_false();
	case 5:
		return json_null();
	case 6:
		return json_string("plain");
	case 7:
		v = json_array();
		n = jr_next() % 5;
		for (i = 0; i < n; i++)
			json_array_append_new(v, rand_value(depth + 1));
		return v;
	default:
		v = json_object();
		n = jr_next() % 5;
		for (i = 0; i < n; i++) {
			size_t kl = rand_text(text, sizeof(text));

			json_object_setn_new(v, text, kl, rand_value(depth + 1));
		}
		return v;
	}
}

#endif
