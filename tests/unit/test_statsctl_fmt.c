/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_statsctl_fmt.c: statsctl's readers of a reply's numbers (fmt.c):
 * an unsigned number is a JSON integer, or above INT64_MAX the string of
 * its digits, and nothing else; js_num() reads both as a double, and
 * fmt_number() prints integers without decimals.
 */
#include <errno.h>
#include <stdint.h>

#include "unit.h"
#include "output.h"

/* The value of text as a reply member, through js_u64(). */
static int
u64_of(const char *text, uint64_t *ret)
{
	json_t *v = json_loads(text, JSON_DECODE_ANY, NULL);
	int r;

	ck_assert_ptr_nonnull(v);
	r = js_u64(v, ret);
	json_decref(v);
	return r;
}

START_TEST(u64_integers_and_digits)
{
	uint64_t u = 7;

	ck_assert_int_eq(u64_of("0", &u), 0);
	ck_assert_uint_eq(u, 0);
	ck_assert_int_eq(u64_of("9223372036854775807", &u), 0);
	ck_assert_uint_eq(u, INT64_MAX);
	/* Past INT64_MAX statsd sends the digits; exact up to UINT64_MAX. */
	ck_assert_int_eq(u64_of("\"9223372036854775808\"", &u), 0);
	ck_assert_uint_eq(u, (uint64_t)INT64_MAX + 1);
	ck_assert_int_eq(u64_of("\"18446744073709551615\"", &u), 0);
	ck_assert_uint_eq(u, UINT64_MAX);
	ck_assert_int_eq(u64_of("\"42\"", &u), 0);
	ck_assert_uint_eq(u, 42);
}
END_TEST

START_TEST(u64_refuses_the_rest)
{
	static const char *const bad[] = {
		"-1", "1.5", "true", "null", "{}", "[1]", "\"\"", "\"-1\"",
		"\" 1\"", "\"+1\"", "\"1 \"", "\"12a\"", "\"0x10\"",
		"\"18446744073709551616\"",
	};
	uint64_t u;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(u64_of(bad[i], &u) == -EPROTO, "%s", bad[i]);
	ck_assert_int_eq(js_u64(NULL, &u), -EPROTO);
}
END_TEST

START_TEST(num_reads_digits_and_numbers)
{
	json_t *o = json_loads("{\"big\":\"18446744073709551615\","
	    "\"i\":-3,\"r\":0.25,\"s\":\"x\"}", 0, NULL);
	char buf[64];

	ck_assert_ptr_nonnull(o);
	ck_assert(js_num(o, "big", -1) == 18446744073709551615.0);
	ck_assert(js_num(o, "i", 0) == -3);
	ck_assert(js_num(o, "r", 0) == 0.25);
	ck_assert(js_num(o, "s", -1) == -1);
	ck_assert(js_num(o, "none", -2) == -2);
	json_decref(o);
	fmt_number(buf, sizeof(buf), 18446744073709551615.0);
	ck_assert_str_eq(buf, "18446744073709551616");
	fmt_number(buf, sizeof(buf), 0.25);
	ck_assert_str_eq(buf, "0.25");
	fmt_number(buf, sizeof(buf), 12);
	ck_assert_str_eq(buf, "12");
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("statsctl_fmt");
	TCase *tc = tcase_create("statsctl_fmt");

	tcase_add_test(tc, u64_integers_and_digits);
	tcase_add_test(tc, u64_refuses_the_rest);
	tcase_add_test(tc, num_reads_digits_and_numbers);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
