/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_jdump.c: jdump() writes json_dumps(v, JSON_COMPACT)'s bytes, for
 * random values of every type (strings with every escape, UTF-8 of every
 * length, embedded NULs, keys likewise; integers to both ends; reals of
 * random bits), refuses what jansson refuses (text that is not UTF-8,
 * a scalar without JDUMP_ANY) and what nests too deep, and frames a
 * message.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "jdump.h"
#include "unit.h"

static uint64_t rnd = 0x9e3779b97f4a7c15ull;

static uint64_t
next(void)
{
	rnd ^= rnd << 13;
	rnd ^= rnd >> 7;
	rnd ^= rnd << 17;
	return rnd;
}

/* Bytes of a string: plain ASCII mostly, every control byte, the two
 * to escape, DEL, and UTF-8 sequences of 2, 3 and 4 bytes. */
static size_t
rand_text(char *out, size_t max)
{
	static const char *const utf8[] = { "\xc3\xa9", "\xe2\x82\xac",
	    "\xf0\x9f\x98\x80", "\xe2\x80\xa8", "\xef\xbf\xbf", "\xc2\x80" };
	size_t n = next() % 24, len = 0, i;

	for (i = 0; i < n && len + 4 < max; i++) {
		unsigned k = (unsigned)(next() % 10);

		if (k < 5)
			out[len++] = (char)(' ' + next() % 95);
		else if (k == 5)
			out[len++] = (char)(next() % 0x20);
		else if (k == 6)
			out[len++] = "\"\\\x7f/"[next() % 4];
		else {
			const char *u = utf8[next() % 6];

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

	if (next() % 3 == 0)
		return some[next() % (sizeof(some) / sizeof(some[0]))];
	do {
		u = next();
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

	switch (next() % (depth < 5 ? 9 : 7)) {
	case 0:
		n = rand_text(text, sizeof(text));
		return json_stringn(text, n);
	case 1: {
		static const json_int_t ends[] = { INT64_MIN, INT64_MAX, 0, -1,
		    1, 9, 10, -10 };

		return json_integer(next() % 2 ? ends[next() % 8] :
		    (json_int_t)next());
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
		n = next() % 5;
		for (i = 0; i < n; i++)
			json_array_append_new(v, rand_value(depth + 1));
		return v;
	default:
		v = json_object();
		n = next() % 5;
		for (i = 0; i < n; i++) {
			size_t kl = rand_text(text, sizeof(text));

			json_object_setn_new(v, text, kl, rand_value(depth + 1));
		}
		return v;
	}
}

START_TEST(as_jansson_writes)
{
	unsigned i, reals = 0;

	for (i = 0; i < 20000; i++) {
		json_t *v = rand_value(0);
		json_t *o = json_pack("{s:o}", "v", json_incref(v));
		char *a = jdump(o, 0, NULL), *b = json_dumps(o, JSON_COMPACT);
		char *c = jdump(v, JDUMP_ANY, NULL);
		char *d = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		size_t len;
		char *e = jdump(o, 0, &len);

		ck_assert_ptr_nonnull(a);
		ck_assert_ptr_nonnull(b);
		ck_assert_str_eq(a, b);
		ck_assert_str_eq(c, d);
		ck_assert_uint_eq(len, strlen(b));
		reals += strstr(b, ".") != NULL || strstr(b, "e") != NULL;
		free(a);
		free(b);
		free(c);
		free(d);
		free(e);
		json_decref(o);
		json_decref(v);
	}
	ck_assert_uint_gt(reals, 1000);
}
END_TEST

START_TEST(reals_read_back)
{
	unsigned i;

	for (i = 0; i < 20000; i++) {
		double d = rand_real();
		json_t *a = json_pack("[f]", d), *back;
		char *t = jdump(a, 0, NULL);

		back = json_loads(t, 0, NULL);
		ck_assert_ptr_nonnull(back);
		ck_assert(json_is_real(json_array_get(back, 0)));
		ck_assert(json_real_value(json_array_get(back, 0)) == d);
		free(t);
		json_decref(back);
		json_decref(a);
	}
}
END_TEST

START_TEST(refused_as_jansson_refuses)
{
	static const char *const bad[] = { "\xc3", "\xc0\x80", "\xed\xa0\x80",
	    "\xf4\x90\x80\x80", "\xe0\x80\xaf", "a\xffz", "\x80" };
	json_t *o;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		o = json_object();
		json_object_set_new(o, "k", json_string_nocheck(bad[i]));
		ck_assert_ptr_null(json_dumps(o, JSON_COMPACT));
		ck_assert_ptr_null(jdump(o, 0, NULL));
		json_decref(o);
		o = json_object();
		json_object_set_new_nocheck(o, bad[i], json_true());
		ck_assert_ptr_null(jdump(o, 0, NULL));
		json_decref(o);
	}
	/* A scalar needs JDUMP_ANY, as JSON_ENCODE_ANY. */
	o = json_integer(7);
	ck_assert_ptr_null(jdump(o, 0, NULL));
	ck_assert_ptr_null(jdump_framed("x", o, "y", NULL));
	json_decref(o);
	ck_assert_ptr_null(jdump(NULL, JDUMP_ANY, NULL));
}
END_TEST

START_TEST(depth_bounded)
{
	json_t *top = json_array(), *a = top;
	char *t;
	unsigned i;

	for (i = 0; i < JDUMP_DEPTH_MAX; i++) {
		json_t *in = json_array();

		json_array_append_new(a, in);
		a = in;
	}
	t = jdump(top, 0, NULL);		/* JDUMP_DEPTH_MAX levels in */
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(strlen(t), 2 * (JDUMP_DEPTH_MAX + 1));
	free(t);
	json_array_append_new(a, json_array());
	ck_assert_ptr_null(jdump(top, 0, NULL));
	json_decref(top);
}
END_TEST

START_TEST(framed)
{
	json_t *p = json_pack("{s:i, s:s}", "handle", 14, "segment", "p\"x");
	size_t len;
	char *t = jdump_framed("{\"parameters\":", p, "}", &len);

	ck_assert_str_eq(t,
	    "{\"parameters\":{\"handle\":14,\"segment\":\"p\\\"x\"}}");
	/* The NUL that ends a message is counted. */
	ck_assert_uint_eq(len, strlen(t) + 1);
	free(t);
	t = jdump_framed(NULL, p, NULL, &len);
	ck_assert_str_eq(t, "{\"handle\":14,\"segment\":\"p\\\"x\"}");
	free(t);
	json_decref(p);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("jdump");
	TCase *tc = tcase_create("jdump");

	tcase_add_test(tc, as_jansson_writes);
	tcase_add_test(tc, reals_read_back);
	tcase_add_test(tc, refused_as_jansson_refuses);
	tcase_add_test(tc, depth_bounded);
	tcase_add_test(tc, framed);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
