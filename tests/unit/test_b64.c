/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_b64.c: the one base64 codec: RFC 4648's test vectors both ways,
 * every byte value round trip, and the strict decoder refusing what is
 * not exactly RFC 4648 §4 with padding (what the checkpoint, Snapshot and
 * libstatsclient rely on).
 */
#include <errno.h>

#include "unit.h"
#include "b64.h"

static const struct {
	const char	*plain;
	const char	*coded;
} rfc4648[] = {
	{ "", "" }, { "f", "Zg==" }, { "fo", "Zm8=" }, { "foo", "Zm9v" },
	{ "foob", "Zm9vYg==" }, { "fooba", "Zm9vYmE=" },
	{ "foobar", "Zm9vYmFy" },
};

START_TEST(rfc4648_vectors)
{
	char buf[16];
	size_t i;

	for (i = 0; i < sizeof(rfc4648) / sizeof(rfc4648[0]); i++) {
		char *s = b64_encode(rfc4648[i].plain,
		    strlen(rfc4648[i].plain));
		long n;

		ck_assert_ptr_nonnull(s);
		ck_assert_str_eq(s, rfc4648[i].coded);
		free(s);
		n = b64_decode(rfc4648[i].coded, buf, sizeof(buf));
		ck_assert_int_eq(n, (long)strlen(rfc4648[i].plain));
		ck_assert(memcmp(buf, rfc4648[i].plain, (size_t)n) == 0);
	}
}
END_TEST

/* Every byte value, at every offset modulo three, comes back. */
START_TEST(round_trip_every_byte)
{
	unsigned char in[259], out[259];
	size_t len;

	for (len = 0; len < sizeof(in); len++)
		in[len] = (unsigned char)(len * 7 + 3);
	for (len = 0; len <= sizeof(in); len += 1) {
		char *s = b64_encode(in, len);

		ck_assert_ptr_nonnull(s);
		ck_assert_uint_eq(strlen(s), (len + 2) / 3 * 4);
		ck_assert_int_eq(b64_decode(s, out, sizeof(out)), (long)len);
		ck_assert(memcmp(in, out, len) == 0);
		free(s);
	}
}
END_TEST

START_TEST(strict_decoder_refuses)
{
	static const char *const bad[] = {
		"Zg",		/* no padding */
		"Zg=",		/* short padding */
		"Z===",		/* too much padding */
		"Zg==Zg==",	/* padding inside */
		"Zm9v\n",	/* whitespace */
		" Zm9v",
		"Zm9-",		/* the URL alphabet */
		"Zm9_",
		"Zm=v",		/* padding before a digit */
	};
	char buf[16];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(b64_decode(bad[i], buf, sizeof(buf)) == -EINVAL,
		    "accepted '%s'", bad[i]);
	/* Room for the bytes, exactly. */
	ck_assert_int_eq(b64_decode("Zm9vYmFy", buf, 6), 6);
	ck_assert_int_eq(b64_decode("Zm9vYmFy", buf, 5), -ENOBUFS);
}
END_TEST

/* The digits, as the HyperLogLog registers use them. */
START_TEST(digits_and_values)
{
	unsigned v;

	for (v = 0; v < 64; v++)
		ck_assert_int_eq(b64_value(b64_digit(v)), (int)v);
	ck_assert_int_eq(b64_digit(0), 'A');
	ck_assert_int_eq(b64_digit(63), '/');
	ck_assert_int_eq(b64_value('='), -1);
	ck_assert_int_eq(b64_value('\0'), -1);
	ck_assert_int_eq(b64_value('-'), -1);
}
END_TEST

/* Every byte: a digit's value, or -1 (b64_value() works by ranges). */
START_TEST(every_byte_value)
{
	static const char alphabet[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	int c;

	for (c = -128; c < 128; c++) {
		const char *p = c != 0 ? strchr(alphabet, c) : NULL;

		ck_assert_int_eq(b64_value((char)c),
		    p != NULL ? (int)(p - alphabet) : -1);
	}
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("b64");
	TCase *tc = tcase_create("b64");

	tcase_add_test(tc, rfc4648_vectors);
	tcase_add_test(tc, round_trip_every_byte);
	tcase_add_test(tc, strict_decoder_refuses);
	tcase_add_test(tc, digits_and_values);
	tcase_add_test(tc, every_byte_value);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
