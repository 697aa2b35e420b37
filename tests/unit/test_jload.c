/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_jload.c: jload() reads what json_loadb(JSON_REJECT_DUPLICATES)
 * reads. The fast reader never takes a text jansson refuses, nor reads
 * one otherwise (the same types and values throughout), over random
 * values' text, that text mutated byte by byte, and texts made to hit
 * every edge (numbers at the ends of the range, every escape, surrogates,
 * duplicate keys, trailing bytes, nesting); where it gives up, jload()
 * answers jansson's value or jansson's error. And it does not give up on
 * what messages hold.
 */
#include <stdbool.h>

#include "jdump.h"
#include "jload.h"
#include "jrand.h"
#include "unit.h"
#include "varlink_names.h"

static unsigned taken;

/* The property, for one text: what the fast reader takes, jansson reads
 * the same; jload() is jansson's answer either way. */
static void
same_as_jansson(const char *t, size_t n)
{
	json_error_t je, le;
	json_t *f = jload_fast(t, n);
	json_t *j = json_loadb(t, n, JSON_REJECT_DUPLICATES, &je);
	json_t *l = jload(t, n, &le);

	if (f != NULL) {
		taken++;
		ck_assert_msg(j != NULL, "taken, refused by jansson (%s): %.*s",
		    je.text, (int)n, t);
		ck_assert_msg(json_equal(f, j), "read otherwise: %.*s", (int)n,
		    t);
	}
	ck_assert((j == NULL) == (l == NULL));
	if (j != NULL)
		ck_assert(json_equal(j, l));
	else
		ck_assert_str_eq(je.text, le.text);
	json_decref(f);
	json_decref(j);
	json_decref(l);
}

/* A value without reals (jansson's to read), to count what the fast
 * reader takes. */
static bool
has_real(const json_t *v)
{
	const char *k;
	json_t *x;
	size_t i;

	if (json_is_real(v))
		return true;
	if (json_is_array(v)) {
		json_array_foreach(v, i, x)
			if (has_real(x))
				return true;
	}
	if (json_is_object(v)) {
		json_object_foreach((json_t *)(uintptr_t)v, k, x)
			if (has_real(x))
				return true;
	}
	return false;
}

START_TEST(random_values)
{
	unsigned i, plain = 0, plain_taken = 0;

	for (i = 0; i < 20000; i++) {
		json_t *v = json_pack("[o]", rand_value(0));
		char *t = jdump(v, 0, NULL);
		unsigned before = taken;

		ck_assert_ptr_nonnull(t);
		same_as_jansson(t, strlen(t));
		if (!has_real(v) && strstr(t, "\\u0000") == NULL) {
			plain++;
			plain_taken += taken > before;
		}
		free(t);
		json_decref(v);
	}
	/* Every value without a real or a NUL is the fast reader's. */
	ck_assert_uint_gt(plain, 5000);
	ck_assert_uint_eq(plain_taken, plain);
}
END_TEST

START_TEST(mutated)
{
	static const char bytes[] = "\"\\u{}[],:0123456789-.eE+tfnrl \t\n\r"
	    "\x7f\x80\xc3\xa9\xed\xff/bx";
	unsigned i, k;

	for (i = 0; i < 40000; i++) {
		json_t *v = json_pack("{s:o}", "k", rand_value(0));
		char *t = jdump(v, 0, NULL);
		size_t n = strlen(t), at;
		char buf[8192];

		if (n + 8 > sizeof(buf)) {
			free(t);
			json_decref(v);
			continue;
		}
		memcpy(buf, t, n);
		for (k = 0; k < 1 + jr_next() % 3; k++) {
			at = (size_t)(jr_next() % (n + 1));
			switch (jr_next() % 4) {
			case 0:		/* replace */
				if (at < n)
					buf[at] = bytes[jr_next() %
					    (sizeof(bytes) - 1)];
				break;
			case 1:		/* insert */
				memmove(buf + at + 1, buf + at, n - at);
				buf[at] = bytes[jr_next() % (sizeof(bytes) - 1)];
				n++;
				break;
			case 2:		/* delete */
				if (at < n) {
					memmove(buf + at, buf + at + 1,
					    n - at - 1);
					n--;
				}
				break;
			default:	/* cut */
				n = at;
				break;
			}
		}
		same_as_jansson(buf, n);
		free(t);
		json_decref(v);
	}
}
END_TEST

START_TEST(edges)
{
	static const char *const texts[] = {
		"{}", "[]", " \t\r\n{ } \n", "{}x", "{} {}", "", " ", "1",
		"\"s\"", "true", "null", "\xef\xbb\xbf{}",
		"[9223372036854775807]", "[9223372036854775808]",
		"[-9223372036854775808]", "[-9223372036854775809]",
		"[18446744073709551616]", "[-0]", "[0]", "[01]", "[-01]",
		"[-]", "[--1]", "[+1]", "[1.5]", "[1e5]", "[1E5]", "[1.]",
		"[.5]", "[0x10]", "[1,]", "[,1]", "[1 2]", "[[]]", "[[],[{}]]",
		"{\"a\":1,}", "{,}", "{\"a\" 1}", "{\"a\":}", "{a:1}",
		"{\"a\":1,\"a\":2}", "{\"a\":1,\"b\":{\"a\":2}}",
		"{\"\":0}", "{\"\":0,\"\":1}",
		"[\"\\u0000\"]", "{\"\\u0000\":1}", "[\"\\ud83d\\ude00\"]",
		"[\"\\uD800\"]", "[\"\\udc00\"]", "[\"\\u00e9\\u20AC\\u0041\"]",
		"[\"\\uZZZZ\"]", "[\"\\u12\"]", "[\"\\x\"]", "[\"\\'\"]",
		"[\"\\/\\b\\f\\n\\r\\t\\\"\\\\\"]", "[\"a\tb\"]", "[\"a\x7f\"]",
		"[\"\xc3\xa9\"]", "[\"\xc3\"]", "[\"\xc0\x80\"]",
		"[\"\xed\xa0\x80\"]", "[\"\xf4\x90\x80\x80\"]",
		"[\"\xf0\x9f\x98\x80\"]", "[\"unended]", "[\"\\", "[\"\\\"]",
		"[true,false,null]", "[tru]", "[truex]", "[nul]", "[False]",
		"{\"a\":[1,{\"b\":[true,\"\\n\"]}],\"c\":-5}",
		"[\"a\"\"b\"]", "[1]\0", "{\"a\":1}\0",
	};
	char deep[512];
	size_t i, d;

	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		same_as_jansson(texts[i], strlen(texts[i]));
	/* "[1]\0": the NUL is part of the text given. */
	same_as_jansson("[1]\0", 4);
	/* Nested to each depth round the fast reader's bound. */
	for (d = 1; d < 200; d += 7) {
		for (i = 0; i < d; i++)
			deep[i] = '[';
		for (i = 0; i < d; i++)
			deep[d + i] = ']';
		same_as_jansson(deep, 2 * d);
	}
}
END_TEST

START_TEST(messages)
{
	static const char *const msgs[] = {
		"{\"method\":\"" VL_M_KSTAT_CREATE "\",\"parameters\":{"
		"\"module\":\"ks\",\"instance\":1,\"name\":\"k1\",\"class\":"
		"\"bench\",\"template\":\"\\\"kstat.NAMED.10e7d627\\\":"
		"3241176934\",\"type\":\"NAMED\",\"flags\":[],\"brief\":true}}",
		"{\"parameters\":{\"made\":{\"handle\":14,\"segment\":"
		"\"public\",\"slot\":12,\"gen\":1},\"revived\":false}}",
		"{\"method\":\"" VL_M_HELLO "\"}",
		"{\"error\":\"" VL_ERR_NO_SUCH_KSTAT "\",\"parameters\":{}}",
	};
	size_t i;

	for (i = 0; i < sizeof(msgs) / sizeof(msgs[0]); i++) {
		json_t *f = jload_fast(msgs[i], strlen(msgs[i]));

		ck_assert_ptr_nonnull(f);
		json_decref(f);
		same_as_jansson(msgs[i], strlen(msgs[i]));
	}
	/* A long string with escapes (decoded off the stack). */
	{
		char big[4000];
		size_t n = 0;
		json_t *f;

		big[n++] = '[';
		big[n++] = '"';
		while (n < sizeof(big) - 8) {
			memcpy(big + n, "ab\\n\\u00e9", 10);
			n += 10;
		}
		big[n++] = '"';
		big[n++] = ']';
		f = jload_fast(big, n);
		ck_assert_ptr_nonnull(f);
		json_decref(f);
		same_as_jansson(big, n);
	}
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("jload");
	TCase *tc = tcase_create("jload");

	tcase_add_test(tc, random_values);
	tcase_add_test(tc, mutated);
	tcase_add_test(tc, edges);
	tcase_add_test(tc, messages);
	tcase_set_timeout(tc, 300);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
