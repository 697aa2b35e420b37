/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_stat_scalar.c: COUNT and LAST against hand-computed values in
 * 32-bit, 64-bit and fixed-point VOIs: counting, wrap, reset, merge (COUNT
 * adds, LAST takes the later copy's), validation, flat names and the
 * helpers' refusals.
 */
#include <errno.h>

#include <statsd/kstat.h>

#include "unit.h"
#include "engine.h"
#include "stat_scalar.h"

#define COUNT	STATS_VSS(VS_STYPE_COUNT, 0, 0, stats_vss_count_hlpr, NULL)
#define LAST	STATS_VSS(VS_STYPE_LAST, 0, 0, stats_vss_last_hlpr, NULL)

START_TEST(count_and_last)
{
	int tpl = unit_tpl("scalar");
	struct statsblob *a, *b;
	uint32_t u;
	int32_t s;
	char *txt;

	UNIT_ADD(tpl, 0, "u", VSD_DTYPE_INT_U32, 0, COUNT, LAST);
	UNIT_ADD(tpl, 1, "s", VSD_DTYPE_INT_S32, 0, COUNT, LAST);
	a = stats_blob_alloc((uint32_t)tpl, 0);
	ck_assert_int_eq(engine_apply(a, 0, STATS_OP_XY, 0, 7, 3, 0), 0);
	ck_assert_int_eq(engine_apply(a, 0, STATS_OP_XY, 0, 9,
	    (int64_t)UINT32_MAX, 0), 0);
	/* A 32-bit COUNT wraps: 3 + (2^32 - 1) = 2 (mod 2^32). */
	ck_assert_int_eq(stats_voistat_fetch_u32(a, 0, VS_STYPE_COUNT, &u), 0);
	ck_assert_uint_eq(u, 2);
	ck_assert_int_eq(stats_voistat_fetch_u32(a, 0, VS_STYPE_LAST, &u), 0);
	ck_assert_uint_eq(u, 9);
	ck_assert_int_eq(engine_apply(a, 1, STATS_OP_ABS, 0, -4, 0, 0), 0);
	ck_assert_int_eq(stats_blob_clone(&b, 0, a, SB_CLONE_ALLOCDST), 0);
	ck_assert_int_eq(engine_apply(b, 1, STATS_OP_ABS, 0, 12, 0, 0), 0);
	ck_assert_int_eq(stats_blob_merge(a, b, 0), 0);
	ck_assert_int_eq(stats_voistat_fetch_s32(a, 1, VS_STYPE_COUNT, &s), 0);
	ck_assert_int_eq(s, 3);		/* 1 + 2 */
	ck_assert_int_eq(stats_voistat_fetch_s32(a, 1, VS_STYPE_LAST, &s), 0);
	ck_assert_int_eq(s, 12);	/* the later copy's */
	txt = unit_tostr(a, SB_STRFMT_JSON, SB_TOSTR_META);
	ck_assert_ptr_nonnull(strstr(txt, "\"s\":{\"stats\":{\"COUNT\":{"
	    "\"errs\":0,\"val\":3},\"LAST\":{\"errs\":0,\"val\":12}}}"));
	free(txt);
	ck_assert_int_eq(stats_blob_reset(a), 0);
	ck_assert_int_eq(stats_voistat_fetch_s32(a, 1, VS_STYPE_LAST, &s), 0);
	ck_assert_int_eq(s, 0);
	stats_blob_destroy(a);
	stats_blob_destroy(b);
}
END_TEST

START_TEST(strings)
{
	int tpl = unit_tpl("str");
	struct statsblob *a, *b;
	struct voistatdata *vsd;
	char *txt;

	UNIT_ADD(tpl, 0, "c", VSD_DTYPE_INT_U64, 0,
	    STATS_VSS(VS_STYPE_LAST, 0, 0, stat_string_vss_hlpr,
	    (&(struct vss_string_hlpr_info){ KSTAT_DATA_CHAR, 0 })));
	a = stats_blob_alloc((uint32_t)tpl, 0);
	ck_assert_int_eq(engine_set_string(a, 0, "up", 2), 0);
	ck_assert_int_eq(stats_blob_clone(&b, 0, a, SB_CLONE_ALLOCDST), 0);
	ck_assert_int_eq(engine_set_string(b, 0, "down", 4), 0);
	ck_assert_int_eq(stats_blob_merge(a, b, 0), 0);
	stats_voistat_fetch_dptr(a, 0, VS_STYPE_LAST, NULL, &vsd, NULL);
	ck_assert_str_eq(((struct vsd_string *)vsd)->s, "down");
	txt = unit_tostr(a, SB_STRFMT_FREEFORM, 0);
	ck_assert_ptr_nonnull(strstr(txt, "voistatdata: \"down\""));
	free(txt);
	/* Shorter text leaves no trace of the longer. */
	ck_assert_int_eq(engine_set_string(a, 0, "x", 1), 0);
	ck_assert_int_eq(memcmp(((struct vsd_string *)vsd)->s, "x\0\0\0\0", 5),
	    0);
	ck_assert_int_eq(stats_blob_reset(a), 0);
	ck_assert_uint_eq(((struct vsd_string *)vsd)->len, 0);
	((struct vsd_string *)vsd)->kind = 7;
	ck_assert_str_eq(stats_blob_validate_why(a, a->cursz),
	    "string value of an unknown kind");
	stats_blob_destroy(a);
	stats_blob_destroy(b);
}
END_TEST

/* JSON text: UTF-8 as it is, other bytes past ASCII as code points. */
START_TEST(json_strings)
{
	static const struct { const char *in, *out; } c[] = {
		{ "z\xc3\xbcrich", "\"z\xc3\xbcrich\"" },
		{ "\xe2\x82\xac \xf0\x9f\x98\x80", "\"\xe2\x82\xac \xf0\x9f\x98\x80\"" },
		{ "a\"b\\c\n", "\"a\\\"b\\\\c\\n\"" },
		{ "\xe9t\xe9", "\"\\u00e9t\\u00e9\"" },	/* Latin-1 */
		{ "\xc0\x80", "\"\\u00c0\\u0080\"" },	/* overlong */
		{ "\xed\xa0\x80", "\"\\u00ed\\u00a0\\u0080\"" },	/* surrogate */
		{ "\xc3", "\"\\u00c3\"" },		/* cut short */
	};
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct sbuf *sb = sbuf_new_auto();

		stat_json_string(sb, c[i].in, strlen(c[i].in));
		ck_assert_int_eq(sbuf_finish(sb), 0);
		ck_assert_str_eq(sbuf_data(sb), c[i].out);
		sbuf_delete(sb);
	}
}
END_TEST

/* The escape of one ASCII byte, as RFC 8259 has it, for the check. */
static void
ref_escape(struct sbuf *sb, unsigned char c)
{
	if (c == '"' || c == '\\')
		sbuf_printf(sb, "\\%c", c);
	else if (c == '\n')
		sbuf_cat(sb, "\\n");
	else if (c == '\t')
		sbuf_cat(sb, "\\t");
	else if (c == '\r')
		sbuf_cat(sb, "\\r");
	else if (c < 0x20 || c >= 0x7f)
		sbuf_printf(sb, "\\u%04x", c);
	else
		sbuf_putc(sb, (char)c);
}

/*
 * Long texts (past the escaper's own buffer, runs of every length, a
 * special byte at every place of an 8-byte word): the same bytes as one
 * byte at a time, and a 2-byte UTF-8 character kept whole wherever it
 * falls, a buffer's end included.
 */
START_TEST(json_strings_long)
{
	static const char pick[] = "ab\"\\\n\t\r\x01\x1f\x7f ~}#[]\x80\xff";
	unsigned seed = 7;
	size_t round, n, i;

	for (round = 0; round < 200; round++) {
		struct sbuf *got = sbuf_new_auto(), *want = sbuf_new_auto();
		char *in;

		n = round < 20 ? round * 411 : (size_t)(rand_r(&seed) % 20000);
		in = malloc(n + 1);
		ck_assert_ptr_nonnull(in);
		sbuf_putc(want, '"');
		for (i = 0; i < n; i++) {
			unsigned r = (unsigned)rand_r(&seed);

			/* Mostly plain, in runs of any length. */
			if (r % 97 == 0 && i + 1 < n) {
				in[i] = (char)0xc3;
				in[i + 1] = (char)0xa9;
				sbuf_bcat(want, in + i, 2);
				i++;
				continue;
			}
			in[i] = r % 5 != 0 ? (char)('a' + r % 26) :
			    pick[(r / 5) % (sizeof(pick) - 1)];
			ref_escape(want, (unsigned char)in[i]);
		}
		sbuf_putc(want, '"');
		stat_json_string(got, in, n);
		ck_assert_int_eq(sbuf_finish(got), 0);
		ck_assert_int_eq(sbuf_finish(want), 0);
		ck_assert_uint_eq(sbuf_len(got), sbuf_len(want));
		ck_assert_int_eq(memcmp(sbuf_data(got), sbuf_data(want),
		    (size_t)sbuf_len(want)), 0);
		free(in);
		sbuf_delete(got);
		sbuf_delete(want);
	}
}
END_TEST

/*
 * The escape is written in place at the end of the buffer: after text
 * already there, into buffers made small or large, through texts that
 * grow six times (every byte a control character) and so need more room
 * than was claimed; and into fixed buffers, which keep the prefix that
 * fits and latch the error, as sbuf_bcat() does.
 */
START_TEST(json_strings_in_place)
{
	static const int caps[] = { 0, 1, 16, 100, 4096, 70000 };
	unsigned seed = 11;
	size_t round, n, i, c;

	for (round = 0; round < 60; round++) {
		struct sbuf *want = sbuf_new_auto();
		char *in;
		unsigned dense = (unsigned)(round % 3);

		n = (size_t)(rand_r(&seed) % 9000);
		in = malloc(n + 1);
		ck_assert_ptr_nonnull(in);
		sbuf_cat(want, "head:\"");
		for (i = 0; i < n; i++) {
			unsigned r = (unsigned)rand_r(&seed);

			/* dense 0: few escapes; 1: a quote in four; 2: all
			 * control characters. */
			in[i] = dense == 2 ? (char)(1 + r % 31) :
			    dense == 1 && r % 4 == 0 ? '"' : (char)('a' + r % 26);
			ref_escape(want, (unsigned char)in[i]);
		}
		sbuf_putc(want, '"');
		ck_assert_int_eq(sbuf_finish(want), 0);
		for (c = 0; c < sizeof(caps) / sizeof(caps[0]); c++) {
			struct sbuf *got = sbuf_new(NULL, NULL, caps[c],
			    SBUF_AUTOEXTEND);
			char *fixed = malloc((size_t)caps[c] + 1);
			struct sbuf fx;

			ck_assert_ptr_nonnull(got);
			ck_assert_ptr_nonnull(fixed);
			sbuf_cat(got, "head:");
			stat_json_string(got, in, n);
			ck_assert_int_eq(sbuf_finish(got), 0);
			ck_assert_uint_eq(sbuf_len(got), sbuf_len(want));
			ck_assert_int_eq(memcmp(sbuf_data(got), sbuf_data(want),
			    (size_t)sbuf_len(want)), 0);
			sbuf_delete(got);
			if (caps[c] < 2) {
				free(fixed);
				continue;
			}
			ck_assert_ptr_eq(sbuf_new(&fx, fixed, caps[c],
			    SBUF_FIXEDLEN), &fx);
			sbuf_cat(&fx, "head:");
			stat_json_string(&fx, in, n);
			if ((ssize_t)caps[c] > sbuf_len(want)) {
				ck_assert_int_eq(sbuf_finish(&fx), 0);
				ck_assert_str_eq(sbuf_data(&fx), sbuf_data(want));
			} else {
				ck_assert_int_ne(sbuf_finish(&fx), 0);
				ck_assert_uint_eq(strlen(fixed),
				    (size_t)caps[c] - 1);
				ck_assert_int_eq(memcmp(fixed, sbuf_data(want),
				    (size_t)caps[c] - 1), 0);
			}
			sbuf_delete(&fx);
			free(fixed);
		}
		free(in);
		sbuf_delete(want);
	}
}
END_TEST

START_TEST(helper_refusals)
{
	struct voistatspec v = { .stype = VS_STYPE_SUM };
	struct vss_string_hlpr_info si = { KSTAT_DATA_STRING, 0 };

	ck_assert_int_eq(stats_vss_count_hlpr(VSD_DTYPE_INT_S64, &v, NULL),
	    EINVAL);	/* wrong stype */
	v.stype = VS_STYPE_LAST;
	ck_assert_int_eq(stat_string_vss_hlpr(VSD_DTYPE_INT_S64, &v, &si),
	    EINVAL);	/* no room */
	si.maxlen = STRING_MAX + 1;
	ck_assert_int_eq(stat_string_vss_hlpr(VSD_DTYPE_INT_S64, &v, &si),
	    EINVAL);
	si.kind = KSTAT_DATA_INT32;
	si.maxlen = 8;
	ck_assert_int_eq(stat_string_vss_hlpr(VSD_DTYPE_INT_S64, &v, &si),
	    EINVAL);
	ck_assert_int_eq(stats_vss_last_hlpr(VSD_DTYPE_LIST, &v, NULL), EINVAL);
}
END_TEST

START_TEST(named_data_types)
{
	struct vss_string_hlpr_info si = { KSTAT_DATA_CHAR, 0 };
	struct voistatspec v = { .stype = VS_STYPE_LAST };

	ck_assert_int_eq(stat_named_data_type(VSD_DTYPE_INT_S32,
	    VSD_DTYPE_INT_S32, NULL), KSTAT_DATA_INT32);
	ck_assert_int_eq(stat_named_data_type(VSD_DTYPE_INT_U32,
	    VSD_DTYPE_INT_U32, NULL), KSTAT_DATA_UINT32);
	ck_assert_int_eq(stat_named_data_type(VSD_DTYPE_INT_SLONG,
	    VSD_DTYPE_INT_SLONG, NULL), KSTAT_DATA_INT64);
	ck_assert_int_eq(stat_named_data_type(VSD_DTYPE_INT_U64,
	    VSD_DTYPE_INT_U64, NULL), KSTAT_DATA_UINT64);
	ck_assert_int_eq(stat_named_data_type(VSD_DTYPE_Q_S64,
	    VSD_DTYPE_Q_S64, NULL), -1);
	ck_assert_int_eq(stat_string_vss_hlpr(VSD_DTYPE_INT_U64, &v, &si), 0);
	ck_assert_int_eq(stat_named_data_type(VSD_DTYPE_INT_U64,
	    VSD_DTYPE_STRING, v.iv), KSTAT_DATA_CHAR);
	ck_assert_uint_eq(v.vsdsz, STRING_HDRSZ + STRING_CHAR_MAX + 1);
	free(v.iv);
}
END_TEST

static Suite *
stat_scalar_suite(void)
{
	Suite *s = suite_create("stat_scalar");
	TCase *tc = tcase_create("scalar");

	tcase_add_test(tc, count_and_last);
	tcase_add_test(tc, strings);
	tcase_add_test(tc, helper_refusals);
	tcase_add_test(tc, json_strings_long);
	tcase_add_test(tc, json_strings_in_place);
	tcase_add_test(tc, json_strings);
	tcase_add_test(tc, named_data_types);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_main(stat_scalar_suite());
}
