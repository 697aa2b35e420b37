/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_tostr.c: stats_blob_tostr() and stats_voistatdata_tostr(): the
 * stats(3) page's OBJDUMP example byte for byte (only the address and the
 * times differ), the freeform and JSON shapes with and without META and
 * OBJDUMP, JSON parsed back with jansson, and every error path.
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>

#include "blob.h"
#include "tostr.h"
#include "unit.h"

/*
 * A template name whose hash, with the page's layout, is the page's
 * tplhash (found by search: the page does not name its template).
 */
#define PAGE_TPL_NAME	"STATS3_EXAMPLE_Bn_Zuh"

static int
page_tpl(const char *name)
{
	int id = stats_tpl_alloc(name, 0);

	ck_assert_int_ge(id, 0);
	UNIT_ADD(id, 0, "", VSD_DTYPE_INT_S64, SB_VOI_RELUPDATE,
	    STATS_VSS_MIN());
	UNIT_ADD(id, 2, "", VSD_DTYPE_INT_U32, 0, STATS_VSS_SUM(),
	    STATS_VSS_MAX());
	return id;
}

/* The page's rendering, its "\" line breaks joined, its tabs restored. */
static const char page_objdump[] =
    "struct statsblobv1@0x8016250a0, abi=1, endian=1, maxsz=136, cursz=136, "
    "created=6294158585626144, lastrst=6294158585626144, flags=0x0000, "
    "stats_off=56, statsdata_off=112, tplhash=2994056564\n"
    "\tvois[0]: id=0, name=\"\", flags=0x0001, dtype=INT_S64, "
    "voistatmaxid=3, stats_off=80\n"
    "\t\tvois[0]stat[0]: stype=VOISTATE, flags=0x0000, dtype=VOISTATE, "
    "dsz=8, data_off=120\n"
    "\t\t\tvoistatdata: prev=0\n"
    "\t\tvois[0]stat[1]: stype=-1\n"
    "\t\tvois[0]stat[2]: stype=-1\n"
    "\t\tvois[0]stat[3]: stype=MIN, flags=0x0000, dtype=INT_S64, "
    "dsz=8, data_off=128\n"
    "\t\t\tvoistatdata: 9223372036854775807\n"
    "\tvois[1]: id=-1\n"
    "\tvois[2]: id=2, name=\"\", flags=0x0000, dtype=INT_U32, "
    "voistatmaxid=2, stats_off=56\n"
    "\t\tvois[2]stat[0]: stype=-1\n"
    "\t\tvois[2]stat[1]: stype=SUM, flags=0x0000, dtype=INT_U32, dsz=4, "
    "data_off=112\n"
    "\t\t\tvoistatdata: 0\n"
    "\t\tvois[2]stat[2]: stype=MAX, flags=0x0000, dtype=INT_U32, dsz=4, "
    "data_off=116\n"
    "\t\t\tvoistatdata: 0";

/* Replace the first "<key><digits or hex>" value in s by want. */
static void
subst(char *s, size_t cap, const char *key, const char *want)
{
	char *p = strstr(s, key), *e, tail[4096];

	ck_assert_ptr_nonnull(p);
	p += strlen(key);
	e = p;
	while ((*e >= '0' && *e <= '9') || (*e >= 'a' && *e <= 'f') ||
	    *e == 'x')
		e++;
	ck_assert_uint_lt(strlen(e), sizeof(tail));
	strcpy(tail, e);
	ck_assert_uint_lt((size_t)(p - s) + strlen(want) + strlen(tail), cap);
	strcpy(p, want);
	strcat(p, tail);
}

START_TEST(page_objdump_example_byte_for_byte)
{
	struct statsblob *sb;
	char *txt, buf[4096], addr[32];

	sb = stats_blob_alloc((uint32_t)page_tpl(PAGE_TPL_NAME), 0);
	txt = unit_tostr(sb, SB_STRFMT_FREEFORM, SB_TOSTR_OBJDUMP);
	/* The address is the blob's own, and created == lastrst. */
	snprintf(addr, sizeof(addr), "@%p,", (void *)sb);
	ck_assert_ptr_nonnull(strstr(txt, addr));
	snprintf(addr, sizeof(addr), "created=%" PRId64 ",",
	    ((struct statsblobv1 *)sb)->created);
	ck_assert_ptr_nonnull(strstr(txt, addr));
	snprintf(addr, sizeof(addr), "lastrst=%" PRId64 ",",
	    ((struct statsblobv1 *)sb)->lastrst);
	ck_assert_ptr_nonnull(strstr(txt, addr));
	ck_assert_uint_lt(strlen(txt), sizeof(buf));
	strcpy(buf, txt);
	subst(buf, sizeof(buf), "@", "0x8016250a0");
	subst(buf, sizeof(buf), "created=", "6294158585626144");
	subst(buf, sizeof(buf), "lastrst=", "6294158585626144");
	ck_assert_str_eq(buf, page_objdump);
	ck_assert_uint_eq(sb->cursz, 136);
	free(txt);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(page_example_other_forms)
{
	struct statsblob *sb;
	char *txt, want[512];
	int id = page_tpl("pg");

	sb = stats_blob_alloc((uint32_t)id, 0);
	ck_assert_int_eq(stats_voi_update_rel_s64(sb, 0, -4), 0);
	ck_assert_int_eq(stats_voi_update_abs_u32(sb, 2, 7), 0);
	/* Freeform without the dump: no VOI state, no vacant slots. */
	txt = unit_tostr(sb, SB_STRFMT_FREEFORM, 0);
	snprintf(want, sizeof(want), "struct statsblobv1@%p, tplhash=%u\n"
	    "\tvois[0]: id=0, name=\"\"\n"
	    "\t\tvois[0]stat[3]: stype=MIN\n\t\t\tvoistatdata: -4\n"
	    "\tvois[2]: id=2, name=\"\"\n"
	    "\t\tvois[2]stat[1]: stype=SUM\n\t\t\tvoistatdata: 7\n"
	    "\t\tvois[2]stat[2]: stype=MAX\n\t\t\tvoistatdata: 7", (void *)sb,
	    ((struct statsblobv1 *)sb)->tplhash);
	ck_assert_str_eq(txt, want);
	free(txt);
	/* With META: the template's name; VOI names are empty here. */
	txt = unit_tostr(sb, SB_STRFMT_FREEFORM, SB_TOSTR_META);
	snprintf(want, sizeof(want), "struct statsblobv1@%p, tplhash=%u, "
	    "tplname=\"pg\"\n\tvois[0]: id=0, name=\"\"\n", (void *)sb,
	    ((struct statsblobv1 *)sb)->tplhash);
	ck_assert_int_eq(strncmp(txt, want, strlen(want)), 0);
	free(txt);
	/* JSON. */
	txt = unit_tostr(sb, SB_STRFMT_JSON, 0);
	snprintf(want, sizeof(want), "{\"tplname\":null,\"tplhash\":%u,"
	    "\"vois\":{\"[0]\":{\"stats\":{\"[3]\":{\"errs\":0,\"val\":-4}}},"
	    "\"[2]\":{\"stats\":{\"[1]\":{\"errs\":0,\"val\":7},"
	    "\"[2]\":{\"errs\":0,\"val\":7}}}}}",
	    ((struct statsblobv1 *)sb)->tplhash);
	ck_assert_str_eq(txt, want);
	free(txt);
	txt = unit_tostr(sb, SB_STRFMT_JSON, SB_TOSTR_META);
	snprintf(want, sizeof(want), "{\"tplname\":\"pg\",\"tplhash\":%u,"
	    "\"vois\":{\"[0]\":{\"stats\":{\"MIN\":{\"errs\":0,\"val\":-4}}},"
	    "\"[2]\":{\"stats\":{\"SUM\":{\"errs\":0,\"val\":7},"
	    "\"MAX\":{\"errs\":0,\"val\":7}}}}}",
	    ((struct statsblobv1 *)sb)->tplhash);
	ck_assert_str_eq(txt, want);
	free(txt);
	stats_blob_destroy(sb);
}
END_TEST

static json_t *
parse(const char *s, size_t flags)
{
	json_error_t jerr;
	json_t *j = json_loads(s, JSON_REJECT_DUPLICATES | flags, &jerr);

	ck_assert_msg(j != NULL, "JSON error '%s' at %d in: %s", jerr.text,
	    jerr.position, s);
	return j;
}

/* json_object_get along a path of keys. */
static json_t *
jget(json_t *j, ...)
{
	va_list ap;
	const char *k;

	va_start(ap, j);
	while (j != NULL && (k = va_arg(ap, const char *)) != NULL)
		j = json_object_get(j, k);
	va_end(ap);
	return j;
}

START_TEST(json_objdump_parses_back)
{
	struct statsblob *sb;
	struct statsblobv1 *b;
	json_t *j, *v;
	char *txt;
	int id = page_tpl("dumpjs");

	sb = stats_blob_alloc((uint32_t)id, 0);
	b = (struct statsblobv1 *)sb;
	ck_assert_int_eq(stats_voi_update_rel_s64(sb, 0, 11), 0);
	txt = unit_tostr(sb, SB_STRFMT_JSON, SB_TOSTR_OBJDUMP | SB_TOSTR_META);
	j = parse(txt, 0);
	ck_assert_int_eq(json_integer_value(jget(j, "abi", NULL)), 1);
	ck_assert_int_eq(json_integer_value(jget(j, "endian", NULL)), SB_LE);
	ck_assert_int_eq(json_integer_value(jget(j, "maxsz", NULL)), 136);
	ck_assert_int_eq(json_integer_value(jget(j, "cursz", NULL)), 136);
	ck_assert_int_eq(json_integer_value(jget(j, "created", NULL)),
	    b->created);
	ck_assert_int_eq(json_integer_value(jget(j, "lastrst", NULL)),
	    b->lastrst);
	ck_assert_int_eq(json_integer_value(jget(j, "stats_off", NULL)), 56);
	ck_assert_int_eq(json_integer_value(jget(j, "statsdata_off", NULL)),
	    112);
	ck_assert_str_eq(json_string_value(jget(j, "tplname", NULL)), "dumpjs");
	ck_assert_int_eq((uint32_t)json_integer_value(jget(j, "tplhash", NULL)),
	    b->tplhash);
	ck_assert_int_eq(json_integer_value(jget(j, "vois", "[1]", "id",
	    NULL)), -1);
	ck_assert_int_eq(json_object_size(jget(j, "vois", "[1]", NULL)), 1);
	v = jget(j, "vois", "[0]", NULL);
	ck_assert_int_eq(json_integer_value(jget(v, "id", NULL)), 0);
	ck_assert_str_eq(json_string_value(jget(v, "name", NULL)), "");
	ck_assert_int_eq(json_integer_value(jget(v, "flags", NULL)), 1);
	ck_assert_str_eq(json_string_value(jget(v, "dtype", NULL)), "INT_S64");
	ck_assert_int_eq(json_integer_value(jget(v, "voistatmaxid", NULL)), 3);
	ck_assert_int_eq(json_integer_value(jget(v, "stats_off", NULL)), 80);
	ck_assert_int_eq(json_object_size(jget(v, "stats", NULL)), 4);
	ck_assert_str_eq(json_string_value(jget(v, "stats", "[0]", "stype",
	    NULL)), "VOISTATE");
	ck_assert_int_eq(json_integer_value(jget(v, "stats", "[0]",
	    "voistatdata", "prev", NULL)), 11);
	ck_assert_int_eq(json_integer_value(jget(v, "stats", "[1]", "stype",
	    NULL)), -1);
	ck_assert_int_eq(json_integer_value(jget(v, "stats", "[3]",
	    "voistatdata", "val", NULL)), 11);
	ck_assert_int_eq(json_integer_value(jget(v, "stats", "[3]", "data_off",
	    NULL)), 128);
	ck_assert_int_eq(json_integer_value(jget(v, "stats", "[3]", "flags",
	    NULL)), 1);	/* VS_VSDVALID */
	ck_assert_int_eq(json_integer_value(jget(j, "vois", "[2]", "stats",
	    "[2]", "voistatdata", "val", NULL)), 0);
	json_decref(j);
	free(txt);
	/* Without META the names are null. */
	txt = unit_tostr(sb, SB_STRFMT_JSON, SB_TOSTR_OBJDUMP);
	j = parse(txt, 0);
	ck_assert(json_is_null(jget(j, "tplname", NULL)));
	ck_assert(json_is_null(jget(j, "vois", "[0]", "name", NULL)));
	json_decref(j);
	free(txt);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(json_meta_every_type_parses_back)
{
	struct statsblob *sb;
	json_t *j, *st;
	char *txt;
	int id = unit_tpl("all.types-1"), v;
	static const char *const names[] = { "s32", "u32", "s64", "u64",
	    "slong", "ulong", "sq32", "uq32", "sq64", "uq64" };

	for (v = 0; v < 10; v++)
		UNIT_ADD(id, v, names[v], (enum vsd_dtype)(VSD_DTYPE_INT_S32 + v),
		    0, STATS_VSS_SUM(), STATS_VSS_MIN());
	UNIT_ADD(id, 12, "hist", VSD_DTYPE_INT_S32, 0,
	    STATS_VSS_CRHIST32_LIN(-10, 10, 10, VSD_HIST_LBOUND_INF));
	sb = stats_blob_alloc((uint32_t)id, 0);
	ck_assert_int_eq(stats_voi_update_abs_s32(sb, 0, INT32_MIN), 0);
	ck_assert_int_eq(stats_voi_update_abs_u32(sb, 1, UINT32_MAX), 0);
	ck_assert_int_eq(stats_voi_update_abs_s64(sb, 2, INT64_MIN), 0);
	ck_assert_int_eq(stats_voi_update_abs_u64(sb, 3, INT64_MAX), 0);
	ck_assert_int_eq(stats_voi_update_abs_slong(sb, 4, -1), 0);
	ck_assert_int_eq(stats_voi_update_abs_ulong(sb, 5, 1), 0);
	ck_assert_int_eq(stats_voi_update_abs_sq32(sb, 6, STATS_SQ32(-12.5)),
	    0);
	ck_assert_int_eq(stats_voi_update_abs_uq32(sb, 7, 1), 0);
	ck_assert_int_eq(stats_voi_update_abs_sq64(sb, 8, STATS_SQ64(0.25)),
	    0);
	ck_assert_int_eq(stats_voi_update_abs_uq64(sb, 9, STATS_UQ64(1e9)), 0);
	ck_assert_int_eq(stats_voi_update_abs_s32(sb, 12, -11), 0);
	ck_assert_int_eq(stats_voi_update_abs_s32(sb, 12, 0), 0);
	ck_assert_int_eq(stats_voi_update_abs_s32(sb, 12, 5), 0);
	txt = unit_tostr(sb, SB_STRFMT_JSON, SB_TOSTR_META);
	ck_assert_ptr_nonnull(strstr(txt, "\"sq32\":{\"stats\":{\"SUM\":"
	    "{\"errs\":0,\"val\":-12.5000}"));
	ck_assert_ptr_nonnull(strstr(txt, "\"val\":0.0000152587890625}"));
	j = parse(txt, 0);
	ck_assert_int_eq(strncmp(json_string_value(jget(j, "tplname", NULL)),
	    "all.types-1_", 12), 0);
	st = jget(j, "vois", NULL);
	ck_assert_int_eq(json_object_size(st), 11);
	ck_assert_int_eq(json_integer_value(jget(st, "s32", "stats", "SUM",
	    "val", NULL)), INT32_MIN);
	ck_assert_int_eq(json_integer_value(jget(st, "u32", "stats", "SUM",
	    "val", NULL)), UINT32_MAX);
	/* MIN saw only its start value: never valid, so null. */
	ck_assert(json_is_null(jget(st, "u32", "stats", "MIN", NULL)));
	ck_assert_int_eq(json_integer_value(jget(st, "s64", "stats", "SUM",
	    "val", NULL)), INT64_MIN);
	ck_assert_int_eq(json_integer_value(jget(st, "u64", "stats", "SUM",
	    "val", NULL)), INT64_MAX);
	ck_assert_int_eq(json_integer_value(jget(st, "slong", "stats", "MIN",
	    "val", NULL)), -1);
	ck_assert_double_eq(json_real_value(jget(st, "sq32", "stats", "SUM",
	    "val", NULL)), -12.5);
	ck_assert_double_eq(json_real_value(jget(st, "sq64", "stats", "MIN",
	    "val", NULL)), 0.25);
	ck_assert_double_eq(json_real_value(jget(st, "uq64", "stats", "SUM",
	    "val", NULL)), 1e9);
	ck_assert_int_eq(json_integer_value(jget(st, "hist", "stats", "HIST",
	    "nbkts", NULL)), 4);
	ck_assert_int_eq(json_integer_value(jget(st, "hist", "stats", "HIST",
	    "oob", NULL)), 0);
	{
		json_t *bk = jget(st, "hist", "stats", "HIST", "bkts", NULL);

		ck_assert_int_eq(json_array_size(bk), 4);
		ck_assert_int_eq(json_integer_value(json_object_get(
		    json_array_get(bk, 0), "lb")), INT32_MIN);
		ck_assert_int_eq(json_integer_value(json_object_get(
		    json_array_get(bk, 0), "ub")), -10);
		ck_assert_int_eq(json_integer_value(json_object_get(
		    json_array_get(bk, 0), "cnt")), 1);
		ck_assert_int_eq(json_integer_value(json_object_get(
		    json_array_get(bk, 2), "cnt")), 2);
		ck_assert_int_eq(json_integer_value(json_object_get(
		    json_array_get(bk, 3), "ub")), INT32_MAX);
	}
	json_decref(j);
	free(txt);
	/* The whole dump parses too. */
	txt = unit_tostr(sb, SB_STRFMT_JSON, SB_TOSTR_META | SB_TOSTR_OBJDUMP);
	j = parse(txt, JSON_DECODE_INT_AS_REAL);	/* holds UINT64_MAX */
	ck_assert_int_eq(json_object_size(jget(j, "vois", NULL)), 13);
	ck_assert_str_eq(json_string_value(jget(j, "vois", "[12]", "name",
	    NULL)), "hist");
	st = jget(j, "vois", "[12]", "stats", "[4]", "voistatdata", "bkts",
	    NULL);
	ck_assert_int_eq(json_array_size(st), 4);
	ck_assert_double_eq(json_number_value(json_object_get(
	    json_array_get(st, 3), "bkt")), 3);
	json_decref(j);
	free(txt);
	stats_blob_destroy(sb);
}
END_TEST

/*
 * Regression: with META, VOIs named "" were keyed "" in JSON, so two of
 * them produced duplicate keys and a parser kept only one.
 */
START_TEST(json_meta_unnamed_vois_keep_ids)
{
	struct statsblob *sb;
	json_t *j;
	char *txt;
	int id = unit_tpl("unnamed");

	UNIT_ADD(id, 0, "", VSD_DTYPE_INT_U32, 0, STATS_VSS_SUM());
	UNIT_ADD(id, 1, "", VSD_DTYPE_INT_U32, 0, STATS_VSS_SUM());
	UNIT_ADD(id, 2, "named", VSD_DTYPE_INT_U32, 0, STATS_VSS_SUM());
	sb = stats_blob_alloc((uint32_t)id, 0);
	ck_assert_int_eq(stats_voi_update_abs_u32(sb, 1, 3), 0);
	txt = unit_tostr(sb, SB_STRFMT_JSON, SB_TOSTR_META);
	j = parse(txt, 0);
	ck_assert_int_eq(json_object_size(jget(j, "vois", NULL)), 3);
	ck_assert(json_is_null(jget(j, "vois", "[0]", "stats", "SUM", NULL)));
	ck_assert_int_eq(json_integer_value(jget(j, "vois", "[1]", "stats",
	    "SUM", "val", NULL)), 3);
	ck_assert_ptr_nonnull(jget(j, "vois", "named", "stats", NULL));
	json_decref(j);
	free(txt);
	stats_blob_destroy(sb);
}
END_TEST

/*
 * blob_tostr_named() (statsd's reader threads, which have the names and
 * must not take the registry's lock) renders exactly what META renders,
 * in both formats, dump or not; a VOI past the names shows unnamed.
 */
static char *
named_tostr(struct statsblob *sb, enum sb_str_fmt fmt, uint32_t flags,
    const char *tplname, const char *const *names, uint16_t n)
{
	struct sbuf *s = sbuf_new_auto();
	char *r;

	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(blob_tostr_named(sb, s, fmt, flags, tplname, names,
	    n), 0);
	ck_assert_int_eq(sbuf_finish(s), 0);
	r = strdup(sbuf_data(s));
	ck_assert_ptr_nonnull(r);
	sbuf_delete(s);
	return r;
}

START_TEST(named_is_meta)
{
	static const char *const names[] = { "", "b", "c" };
	static const uint32_t how[] = { 0, SB_TOSTR_OBJDUMP };
	struct statsblob *sb;
	struct sbuf *s;
	char tname[64], *a, *b;
	int id = unit_tpl("named.meta"), f, i;

	UNIT_ADD(id, 0, "", VSD_DTYPE_INT_U32, 0, STATS_VSS_SUM());
	UNIT_ADD(id, 1, "b", VSD_DTYPE_INT_S64, 0, STATS_VSS_SUM(),
	    STATS_VSS_MAX());
	UNIT_ADD(id, 2, "c", VSD_DTYPE_INT_S32, 0,
	    STATS_VSS_CRHIST32_LIN(0, 10, 5, 0));
	sb = stats_blob_alloc((uint32_t)id, 0);
	ck_assert_int_eq(stats_voi_update_abs_u32(sb, 0, 3), 0);
	ck_assert_int_eq(stats_voi_update_abs_s64(sb, 1, -9), 0);
	ck_assert_int_eq(stats_voi_update_abs_s32(sb, 2, 4), 0);
	ck_assert_int_eq(stats_tpl_id2name((uint32_t)id, tname,
	    sizeof(tname)), 0);
	for (f = 0; f < 2; f++) {
		for (i = 0; i < 2; i++) {
			a = unit_tostr(sb, (enum sb_str_fmt)f,
			    SB_TOSTR_META | how[i]);
			b = named_tostr(sb, (enum sb_str_fmt)f, how[i], tname,
			    names, 3);
			ck_assert_str_eq(a, b);
			free(a);
			free(b);
		}
	}
	/* Names for two VOIs of three: the third keyed by its id. */
	b = named_tostr(sb, SB_STRFMT_JSON, 0, tname, names, 2);
	ck_assert_ptr_nonnull(strstr(b, "\"[2]\":{\"stats\":"));
	ck_assert_ptr_nonnull(strstr(b, "\"b\":{\"stats\":{\"SUM\""));
	free(b);
	s = sbuf_new_auto();
	ck_assert_int_eq(blob_tostr_named(sb, s, SB_STRFMT_JSON, 0, NULL,
	    names, 3), EINVAL);
	ck_assert_int_eq(blob_tostr_named(sb, s, SB_STRFMT_NUM_FMTS, 0, tname,
	    names, 3), EINVAL);
	sbuf_delete(s);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(freeform_meta_names_and_errs)
{
	struct statsblob *sb;
	char *txt;
	int id = unit_tpl("ff");

	UNIT_ADD(id, 1, "bytes", VSD_DTYPE_Q_U32, 0, STATS_VSS_SUM(),
	    STATS_VSS_MAX());
	sb = stats_blob_alloc((uint32_t)id, 0);
	ck_assert_int_eq(stats_voi_update_abs_uq32(sb, 1, UINT32_MAX), 0);
	ck_assert_int_eq(stats_voi_update_abs_uq32(sb, 1, 1), EOVERFLOW);
	txt = unit_tostr(sb, SB_STRFMT_FREEFORM, SB_TOSTR_META);
	ck_assert_ptr_nonnull(strstr(txt, "\n\tvois[1]: id=1, name=\"bytes\"\n"
	    "\t\tvois[1]stat[1]: stype=SUM, errs=1\n\t\t\tvoistatdata: "
	    "65535.9999847412109375\n\t\tvois[1]stat[2]: stype=MAX\n\t\t\t"
	    "voistatdata: 65535.9999847412109375"));
	free(txt);
	/* In the dump too, after the stype, as FreeBSD places it. */
	txt = unit_tostr(sb, SB_STRFMT_FREEFORM, SB_TOSTR_OBJDUMP);
	ck_assert_ptr_nonnull(strstr(txt, "stype=SUM, errs=1, flags=0x0001, "
	    "dtype=Q_U32, dsz=4"));
	ck_assert_ptr_nonnull(strstr(txt, "stype=MAX, flags=0x0001, "));
	free(txt);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(tostr_errors)
{
	struct statsblob *sb;
	struct sbuf *s = sbuf_new_auto(), fixed;
	char small[16];
	int id = page_tpl("errs");

	sb = stats_blob_alloc((uint32_t)id, 0);
	ck_assert_int_eq(stats_blob_tostr(NULL, s, SB_STRFMT_JSON, 0), EINVAL);
	ck_assert_int_eq(stats_blob_tostr(sb, NULL, SB_STRFMT_JSON, 0), EINVAL);
	ck_assert_int_eq(stats_blob_tostr(sb, s, SB_STRFMT_NUM_FMTS, 0),
	    EINVAL);
	ck_assert_int_eq(stats_blob_tostr(sb, s, (enum sb_str_fmt)-1, 0),
	    EINVAL);
	ck_assert_int_eq(stats_blob_tostr(sb, s, SB_STRFMT_JSON, 0x4), EINVAL);
	sb->abi = 0;
	ck_assert_int_eq(stats_blob_tostr(sb, s, SB_STRFMT_JSON, 0), EINVAL);
	sb->abi = STATS_ABI_V1;
	/* META needs the template: an unknown hash is EINVAL. */
	((struct statsblobv1 *)sb)->tplhash ^= 0x5a5a5a5a;
	ck_assert_int_eq(stats_blob_tostr(sb, s, SB_STRFMT_JSON, SB_TOSTR_META),
	    EINVAL);
	ck_assert_int_eq(stats_blob_tostr(sb, s, SB_STRFMT_JSON, 0), 0);
	/* A full fixed buffer: sbuf_error(). */
	sbuf_new(&fixed, small, sizeof(small), 0);
	ck_assert_int_eq(stats_blob_tostr(sb, &fixed, SB_STRFMT_FREEFORM,
	    SB_TOSTR_OBJDUMP), ENOMEM);
	sbuf_new(&fixed, small, sizeof(small), 0);
	ck_assert_int_eq(stats_blob_tostr(sb, &fixed, SB_STRFMT_JSON, 0),
	    ENOMEM);
	sbuf_delete(s);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(voistatdata_tostr_scalars_and_errors)
{
	struct voistatdata vsd;
	struct sbuf *s = sbuf_new_auto(), fixed;
	char *txt, small[4];

	memset(&vsd, 0, sizeof(vsd));
	vsd.int32.s32 = -9;
	txt = unit_vsdstr(&vsd, VSD_DTYPE_INT_S32, SB_STRFMT_FREEFORM, 0);
	ck_assert_str_eq(txt, "-9");
	free(txt);
	txt = unit_vsdstr(&vsd, VSD_DTYPE_INT_U32, SB_STRFMT_JSON, 1);
	ck_assert_str_eq(txt, "4294967287");
	free(txt);
	vsd.q64.sq64 = STATS_SQ64(-0.5);
	txt = unit_vsdstr(&vsd, VSD_DTYPE_Q_S64, SB_STRFMT_JSON, 0);
	ck_assert_str_eq(txt, "-0.5000");
	free(txt);
	/* VOISTATE: its VOI's type is unknown here, so signed 64-bit. */
	vsd.voistate.prev.int64.s64 = -3;
	txt = unit_vsdstr(&vsd, VSD_DTYPE_VOISTATE, SB_STRFMT_FREEFORM, 0);
	ck_assert_str_eq(txt, "prev=-3");
	free(txt);
	txt = unit_vsdstr(&vsd, VSD_DTYPE_VOISTATE, SB_STRFMT_JSON, 0);
	ck_assert_str_eq(txt, "\"prev\":-3");
	free(txt);
	ck_assert_int_eq(stats_voistatdata_tostr(NULL, VSD_DTYPE_INT_S32,
	    SB_STRFMT_JSON, s, 0), EINVAL);
	ck_assert_int_eq(stats_voistatdata_tostr(&vsd, VSD_DTYPE_INT_S32,
	    SB_STRFMT_JSON, NULL, 0), EINVAL);
	ck_assert_int_eq(stats_voistatdata_tostr(&vsd, VSD_NUM_DTYPES,
	    SB_STRFMT_JSON, s, 0), EINVAL);
	ck_assert_int_eq(stats_voistatdata_tostr(&vsd, (enum vsd_dtype)-1,
	    SB_STRFMT_JSON, s, 0), EINVAL);
	ck_assert_int_eq(stats_voistatdata_tostr(&vsd, VSD_DTYPE_INT_S32,
	    SB_STRFMT_NUM_FMTS, s, 0), EINVAL);
	ck_assert_int_eq(stats_voistatdata_tostr(&vsd, VSD_DTYPE_INT_S32,
	    (enum sb_str_fmt)-1, s, 0), EINVAL);
	sbuf_new(&fixed, small, sizeof(small), 0);
	vsd.int64.s64 = 123456;
	ck_assert_int_eq(stats_voistatdata_tostr(&vsd, VSD_DTYPE_INT_S64,
	    SB_STRFMT_FREEFORM, &fixed, 0), ENOMEM);
	sbuf_delete(s);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("tostr");
	TCase *tc = tcase_create("tostr");

	tcase_add_test(tc, page_objdump_example_byte_for_byte);
	tcase_add_test(tc, page_example_other_forms);
	tcase_add_test(tc, json_objdump_parses_back);
	tcase_add_test(tc, json_meta_every_type_parses_back);
	tcase_add_test(tc, json_meta_unnamed_vois_keep_ids);
	tcase_add_test(tc, freeform_meta_names_and_errs);
	tcase_add_test(tc, named_is_meta);
	tcase_add_test(tc, tostr_errors);
	tcase_add_test(tc, voistatdata_tostr_scalars_and_errors);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
