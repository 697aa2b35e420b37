/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_siphash.c: SipHash-2-4 against the vectors of its authors' paper
 * and reference code (key 00..0f, messages 00..n-1), SipHash-1-3 against
 * CPython's str/bytes hash with hash randomisation off (key 0), a hash
 * fed in pieces equal to one over the whole, and random keys that differ.
 */
#include "siphash.h"
#include "unit.h"

static const struct sip_key ref_key = {
	UINT64_C(0x0706050403020100), UINT64_C(0x0f0e0d0c0b0a0908)
};

START_TEST(siphash24_reference_vectors)
{
	static const struct {
		size_t		n;
		uint64_t	h;
	} v[] = {
		{ 0, UINT64_C(0x726fdb47dd0e0e31) },
		{ 1, UINT64_C(0x74f839c593dc67fd) },
		{ 7, UINT64_C(0xab0200f58b01d137) },
		{ 8, UINT64_C(0x93f5f5799a932462) },
		{ 15, UINT64_C(0xa129ca6149be45e5) },
		{ 16, UINT64_C(0x3f2acc7f57c29bdb) },
		{ 63, UINT64_C(0x958a324ceb064572) },
	};
	uint8_t m[64];
	size_t i;

	for (i = 0; i < sizeof(m); i++)
		m[i] = (uint8_t)i;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		ck_assert_uint_eq(siphash24(&ref_key, m, v[i].n), v[i].h);
}
END_TEST

/* PYTHONHASHSEED=0 python3 -c 'print(hash(b"siphash") % 2**64)': CPython
 * 3.11's bytes hash is SipHash-1-3 with a key of zeros then. */
START_TEST(siphash13_matches_cpython)
{
	const struct sip_key zero = { 0, 0 };

	ck_assert_uint_eq(siphash13(&zero, "siphash", 7),
	    UINT64_C(9395862239016565950));
	ck_assert_uint_eq(siphash13(&zero, "abcdefghijklmnop", 16),
	    UINT64_C(10733781318231302930));
}
END_TEST

START_TEST(pieces_equal_whole)
{
	uint8_t m[100];
	size_t n, a, b;

	for (n = 0; n < sizeof(m); n++)
		m[n] = (uint8_t)(n * 37 + 11);
	for (n = 0; n <= sizeof(m); n += 7)
		for (a = 0; a <= n; a++)
			for (b = a; b <= n; b += 3) {
				struct sip_state st;

				sip_init(&st, &ref_key, 1, 3);
				sip_update(&st, m, a);
				sip_update(&st, m + a, b - a);
				sip_update(&st, m + b, n - b);
				ck_assert_uint_eq(sip_final(&st),
				    siphash13(&ref_key, m, n));
			}
	/* sip_final() leaves the state as it was: more may follow. */
	{
		struct sip_state st;

		sip_init(&st, &ref_key, 2, 4);
		sip_update(&st, m, 10);
		(void)sip_final(&st);
		sip_update(&st, m + 10, 5);
		ck_assert_uint_eq(sip_final(&st), siphash24(&ref_key, m, 15));
	}
}
END_TEST

START_TEST(random_keys_differ)
{
	struct sip_key a, b;

	sip_key_random(&a);
	sip_key_random(&b);
	ck_assert(a.k0 != b.k0 || a.k1 != b.k1);
	ck_assert(siphash13(&a, "x", 1) != siphash13(&b, "x", 1));
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("siphash");
	TCase *tc = tcase_create("siphash");

	tcase_add_test(tc, siphash24_reference_vectors);
	tcase_add_test(tc, siphash13_matches_cpython);
	tcase_add_test(tc, pieces_equal_whole);
	tcase_add_test(tc, random_keys_differ);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
