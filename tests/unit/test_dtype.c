/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_dtype.c: the data-type table: every type named once, scalar sizes,
 * signedness and fixed point as their names say, the alignment layout
 * relies on, each compound type in its family, and the bounds of
 * dtype_valid().
 */
#include "dtype.h"
#include "unit.h"

START_TEST(every_type_named_once)
{
	int i, j;

	/* 0 is VOISTATE, the engine's own: no VOI or statistic has it. */
	ck_assert(!dtype_valid(VSD_DTYPE_VOISTATE));
	ck_assert(!dtype_valid(VSD_NUM_DTYPES));
	for (i = 0; i < VSD_NUM_DTYPES; i++) {
		ck_assert(i == VSD_DTYPE_VOISTATE || dtype_valid(i));
		ck_assert_ptr_nonnull(dtype_info[i].name);
		ck_assert_str_eq(stats_vsd_dtype_name((enum vsd_dtype)i),
		    dtype_info[i].name);
		for (j = 0; j < i; j++)
			ck_assert_str_ne(dtype_info[i].name,
			    dtype_info[j].name);
	}
}
END_TEST

START_TEST(scalars_as_their_names_say)
{
	int i, n = 0;

	for (i = 1; i < VSD_NUM_DTYPES; i++) {
		const struct dtype_info *d = &dtype_info[i];
		const char *nm = d->name;

		if (!dtype_is_scalar(i))
			continue;
		n++;
		ck_assert(d->size == 4 || d->size == 8);
		ck_assert_uint_eq(d->align, d->size);
		ck_assert(d->is_q == (strncmp(nm, "Q_", 2) == 0));
		ck_assert(d->is_signed == (strstr(nm, "_S") != NULL));
		if (strstr(nm, "32") != NULL)
			ck_assert_uint_eq(d->size, 4);
		if (strstr(nm, "64") != NULL)
			ck_assert_uint_eq(d->size, 8);
		if (strstr(nm, "LONG") != NULL)
			ck_assert_uint_eq(d->size, sizeof(long));
	}
	ck_assert_int_eq(n, 10);
	ck_assert_uint_eq(dtype_info[VSD_DTYPE_VOISTATE].size, 8);
}
END_TEST

START_TEST(compound_types_in_their_family)
{
	static const struct { enum vsd_dtype t; enum dtype_family f; } want[] = {
		{ VSD_DTYPE_VOISTATE, DF_VOISTATE },
		{ VSD_DTYPE_CRHIST32, DF_HIST }, { VSD_DTYPE_DRHIST32, DF_HIST },
		{ VSD_DTYPE_DVHIST32, DF_HIST }, { VSD_DTYPE_CRHIST64, DF_HIST },
		{ VSD_DTYPE_DRHIST64, DF_HIST }, { VSD_DTYPE_DVHIST64, DF_HIST },
		{ VSD_DTYPE_TDGSTCLUST32, DF_TDGST },
		{ VSD_DTYPE_TDGSTCLUST64, DF_TDGST },
		{ VSD_DTYPE_LIST, DF_LIST }, { VSD_DTYPE_HISTORY, DF_HISTORY },
		{ VSD_DTYPE_RAW, DF_RAW }, { VSD_DTYPE_IOQ, DF_IOQ },
		{ VSD_DTYPE_TIMER, DF_TIMER }, { VSD_DTYPE_STRING, DF_STRING },
		{ VSD_DTYPE_DEFN, DF_DEFN },
	};
	size_t i, n = sizeof(want) / sizeof(want[0]);

	/* With the ten scalars, every type (VOISTATE is 0). */
	ck_assert_uint_eq(n + 10, VSD_NUM_DTYPES);
	for (i = 0; i < n; i++) {
		const struct dtype_info *d = &dtype_info[want[i].t];

		ck_assert_uint_eq(d->family, want[i].f);
		/* Compound data is 8-aligned: layout puts it on 8 bytes. */
		ck_assert_uint_eq(d->align, 8);
		ck_assert(!d->is_q && !d->is_signed);
	}
}
END_TEST

/* A type by its name: every name of the table, and nothing else. */
START_TEST(types_by_name)
{
	int d;

	for (d = 1; d < VSD_NUM_DTYPES; d++)
		ck_assert_int_eq(dtype_from_name(dtype_info[d].name), d);
	ck_assert_int_eq(dtype_from_name("INT_U64"), VSD_DTYPE_INT_U64);
	ck_assert_int_eq(dtype_from_name("int_u64"), -1);
	ck_assert_int_eq(dtype_from_name("INT_U6"), -1);
	ck_assert_int_eq(dtype_from_name(""), -1);
	ck_assert_int_eq(dtype_from_name(NULL), -1);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("dtype");
	TCase *tc = tcase_create("dtype");

	tcase_add_test(tc, every_type_named_once);
	tcase_add_test(tc, scalars_as_their_names_say);
	tcase_add_test(tc, compound_types_in_their_family);
	tcase_add_test(tc, types_by_name);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
