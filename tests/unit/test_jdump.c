/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_jdump.c: jdump() writes json_dumps(v, JSON_COMPACT)'s bytes, for
 * random values of every type (strings with every escape, UTF-8 of every
 * length, embedded NULs, keys likewise; integers to both ends; reals of
 * random bits), refuses what jansson refuses (text that is not UTF-8,
 * a scalar without JDUMP_ANY) and what nests too deep, and frames a
 * message; jtext, piece by piece, writes the same bytes.
 */
#include "jdump.h"
#include "jrand.h"
#include "unit.h"

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

/*
 * Write v through jtext as a writer would, value by value. Returns: false
 * for what jtext does not write (a real; a string or key holding a NUL,
 * which a C string cannot).
 */
static bool
jtext_write(struct jtext *t, const json_t *v)
{
	const char *k;
	json_t *m;
	size_t i;

	switch (json_typeof(v)) {
	case JSON_OBJECT:
		jtext_open(t, '{');
		json_object_foreach((json_t *)(uintptr_t)v, k, m) {
			if (strlen(k) != json_object_iter_key_len(
			    json_object_key_to_iter(k)))
				return false;
			jtext_key(t, k);
			if (!jtext_write(t, m))
				return false;
		}
		jtext_close(t, '}');
		return true;
	case JSON_ARRAY:
		jtext_open(t, '[');
		for (i = 0; i < json_array_size(v); i++)
			if (!jtext_write(t, json_array_get(v, i)))
				return false;
		jtext_close(t, ']');
		return true;
	case JSON_STRING:
		if (strlen(json_string_value(v)) != json_string_length(v))
			return false;
		jtext_str(t, json_string_value(v));
		return true;
	case JSON_INTEGER:
		jtext_int(t, json_integer_value(v));
		return true;
	case JSON_TRUE:
	case JSON_FALSE:
		jtext_bool(t, json_is_true(v));
		return true;
	default:
		return false;
	}
}

/* jtext writes json_dumps()'s bytes for the values it can write, and its
 * commas wherever objects and arrays nest; text that is not UTF-8 spoils
 * it. */
START_TEST(jtext_as_jansson_writes)
{
	unsigned i, done = 0;
	struct jtext t = { 0 };
	char *a;

	for (i = 0; i < 20000; i++) {
		json_t *v = rand_value(0);
		json_t *o = json_pack("{s:o, s:[o, i]}", "v", json_incref(v),
		    "w", json_incref(v), -1);
		char *b = json_dumps(o, JSON_COMPACT);
		size_t len;

		if (jtext_write(&t, o)) {
			a = jtext_end(&t, &len);
			ck_assert_ptr_nonnull(a);
			ck_assert_str_eq(a, b);
			ck_assert_uint_eq(len, strlen(b));
			free(a);
			done++;
		} else {
			free(jtext_end(&t, NULL));
		}
		free(b);
		json_decref(o);
		json_decref(v);
	}
	ck_assert_uint_gt(done, 2000);
	jtext_open(&t, '{');
	jtext_key(&t, "k");
	jtext_str(&t, "\xc3\x28");
	jtext_close(&t, '}');
	ck_assert_ptr_null(jtext_end(&t, NULL));
	/* Empty again after: a fresh text. */
	jtext_open(&t, '[');
	jtext_int(&t, INT64_MIN);
	jtext_bool(&t, false);
	jtext_close(&t, ']');
	a = jtext_end(&t, NULL);
	ck_assert_str_eq(a, "[-9223372036854775808,false]");
	free(a);
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
	tcase_add_test(tc, jtext_as_jansson_writes);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
