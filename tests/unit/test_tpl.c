/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_tpl.c: the template registry: allocation and its errors, lookups by
 * name, hash and spec string in all three forms, the normative name:hash
 * output and the CSV list of every template, the hash itself (recomputed
 * here from its definition), the type names, and every error path of
 * stats_tpl_add_voistats() and the numeric helper.
 */
#include <errno.h>

#include "blob.h"
#include "tpl.h"
#include "unit.h"

/* FreeBSD's template hash, written out again: h = h * 33 + byte, seed 0. */
static uint32_t
djb(const void *p, size_t n, uint32_t h)
{
	const unsigned char *c = p;

	while (n-- > 0)
		h = h * 33u + *c++;
	return h;
}

static uint32_t
expected_hash(int id)
{
	struct statsblob_tpl *tpl;
	const struct statsblobv1 *sb;
	uint32_t h;
	uint16_t i, n;

	ck_assert_int_eq(stats_tpl_fetch(id, &tpl), 0);
	sb = (const struct statsblobv1 *)tpl->sb;
	h = djb(tpl->mb->tplname, strlen(tpl->mb->tplname), 0);
	n = (uint16_t)((sb->stats_off - SB_V1_HDRSZ) / sizeof(struct voi));
	for (i = 0; i < n; i++) {
		const char *nm = tpl->mb->voi_meta[i].name;

		if (nm != NULL)
			h = djb(nm, strlen(nm), h);
	}
	return djb(sb, sb->cursz, h);
}

START_TEST(alloc_ids_and_errors)
{
	char name[TPL_MAX_NAME_LEN + 2];
	int a, b;

	a = stats_tpl_alloc("alpha", 0);
	b = stats_tpl_alloc("beta.v1-x_2", 0xffffffffu);	/* flags unused */
	ck_assert_int_ge(a, 0);
	ck_assert_int_eq(b, a + 1);
	ck_assert_int_eq(stats_tpl_alloc("alpha", 0), -EEXIST);
	ck_assert_int_eq(stats_tpl_alloc(NULL, 0), -EINVAL);
	ck_assert_int_eq(stats_tpl_alloc("", 0), -EINVAL);
	ck_assert_int_eq(stats_tpl_alloc("a b", 0), -EINVAL);
	ck_assert_int_eq(stats_tpl_alloc("a\"b", 0), -EINVAL);
	ck_assert_int_eq(stats_tpl_alloc("a:1", 0), -EINVAL);
	ck_assert_int_eq(stats_tpl_alloc("a,b", 0), -EINVAL);
	ck_assert_int_eq(stats_tpl_alloc("a=b", 0), -EINVAL);
	memset(name, 'n', TPL_MAX_NAME_LEN);
	name[TPL_MAX_NAME_LEN] = '\0';
	ck_assert_int_eq(stats_tpl_alloc(name, 0), b + 1);	/* 64 is fine */
	name[TPL_MAX_NAME_LEN] = 'n';
	name[TPL_MAX_NAME_LEN + 1] = '\0';
	ck_assert_int_eq(stats_tpl_alloc(name, 0), -EINVAL);	/* 65 is not */
	ck_assert(tpl_name_valid("Ok_.-9"));
	ck_assert(!tpl_name_valid(NULL));
	ck_assert(tpl_voi_name_valid(""));
	ck_assert(!tpl_voi_name_valid("é"));
}
END_TEST

START_TEST(empty_template_blob)
{
	struct statsblob_tpl *tpl;
	const struct statsblobv1 *sb;
	int id = stats_tpl_alloc("empty", 0);

	ck_assert_int_eq(stats_tpl_fetch(id, &tpl), 0);
	sb = (const struct statsblobv1 *)tpl->sb;
	ck_assert_uint_eq(sb->abi, STATS_ABI_V1);
	ck_assert_uint_eq(sb->endian, SB_LE);
	ck_assert_uint_eq(sb->cursz, 32);
	ck_assert_uint_eq(sb->maxsz, 32);
	ck_assert_uint_eq(sb->stats_off, 32);
	ck_assert_uint_eq(sb->statsdata_off, 32);
	ck_assert_uint_eq(sb->tplhash, 0);
	ck_assert_str_eq(tpl->mb->tplname, "empty");
	ck_assert_uint_eq(tpl->mb->tplhash, expected_hash(id));
}
END_TEST

START_TEST(fetch_allocid_by_name_and_hash)
{
	struct statsblob_tpl *tpl;
	uint32_t h;
	int a = stats_tpl_alloc("one", 0), b = stats_tpl_alloc("two", 0);

	ck_assert_int_eq(stats_tpl_fetch(b, &tpl), 0);
	h = tpl->mb->tplhash;
	ck_assert_int_eq(stats_tpl_fetch_allocid("one", 0), a);
	ck_assert_int_eq(stats_tpl_fetch_allocid("two", 0), b);
	ck_assert_int_eq(stats_tpl_fetch_allocid("two", h), b);
	ck_assert_int_eq(stats_tpl_fetch_allocid("two", h + 1), -ESRCH);
	ck_assert_int_eq(stats_tpl_fetch_allocid("one", h), -ESRCH);
	ck_assert_int_eq(stats_tpl_fetch_allocid(NULL, h), b);
	ck_assert_int_eq(stats_tpl_fetch_allocid(NULL, h ^ 1), -ESRCH);
	ck_assert_int_eq(stats_tpl_fetch_allocid("three", 0), -ESRCH);
	/* The renderers' lookup by hash. */
	ck_assert_int_eq(stats_tpl_fetch(b, &tpl), 0);
	ck_assert_ptr_eq(tpl_by_hash(h), tpl);
	ck_assert_ptr_null(tpl_by_hash(h ^ 1));
	ck_assert_int_eq(stats_tpl_fetch_allocid("on", 0), -ESRCH);
}
END_TEST

START_TEST(fetch_enoent)
{
	struct statsblob_tpl *tpl = NULL;
	int id = stats_tpl_alloc("f", 0);

	ck_assert_int_eq(stats_tpl_fetch(id, &tpl), 0);
	ck_assert_ptr_nonnull(tpl);
	ck_assert_int_eq(stats_tpl_fetch(id, NULL), 0);
	ck_assert_int_eq(stats_tpl_fetch(-1, &tpl), ENOENT);
	ck_assert_int_eq(stats_tpl_fetch(id + 1, &tpl), ENOENT);
	ck_assert_int_eq(stats_tpl_fetch(INT32_MAX, &tpl), ENOENT);
}
END_TEST

START_TEST(id2name_and_id2spec)
{
	struct statsblob_tpl *tpl;
	char buf[STATS_TPL_MAX_STR_SPEC_LEN + 1], want[96];
	int id = stats_tpl_alloc("TCP_DEFAULT", 0);

	ck_assert_int_eq(stats_tpl_id2name((uint32_t)id, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "TCP_DEFAULT");
	ck_assert_int_eq(stats_tpl_id2name((uint32_t)id, buf, 12), 0);
	ck_assert_int_eq(stats_tpl_id2name((uint32_t)id, buf, 11), EOVERFLOW);
	ck_assert_int_eq(stats_tpl_id2name((uint32_t)id, NULL, 100), EOVERFLOW);
	ck_assert_int_eq(stats_tpl_id2name((uint32_t)id + 1, buf, sizeof(buf)),
	    ENOENT);
	ck_assert_int_eq(stats_tpl_id2name(UINT32_MAX, buf, sizeof(buf)),
	    ENOENT);

	ck_assert_int_eq(stats_tpl_fetch(id, &tpl), 0);
	snprintf(want, sizeof(want), "\"TCP_DEFAULT\":%u", tpl->mb->tplhash);
	ck_assert_int_eq(stats_tpl_id2spec((uint32_t)id, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, want);
	ck_assert_int_eq(stats_tpl_id2spec((uint32_t)id, buf, strlen(want) + 1),
	    0);
	ck_assert_int_eq(stats_tpl_id2spec((uint32_t)id, buf, strlen(want)),
	    EOVERFLOW);
	ck_assert_int_eq(stats_tpl_id2spec((uint32_t)id, NULL, 100), EOVERFLOW);
	ck_assert_int_eq(stats_tpl_id2spec((uint32_t)id + 1, buf, sizeof(buf)),
	    ENOENT);
}
END_TEST

static void
ck_spec(const char *spec, int want_err, const char *want_name,
    uint32_t want_hash)
{
	char name[TPL_MAX_NAME_LEN + 1];
	uint32_t hash = 0xdeadbeef;
	int error;

	error = stats_tpl_spec_parse(spec, name, sizeof(name), &hash);
	ck_assert_msg(error == want_err, "spec '%s': error %d, want %d", spec,
	    error, want_err);
	if (want_err == 0) {
		ck_assert_str_eq(name, want_name);
		ck_assert_uint_eq(hash, want_hash);
	}
}

START_TEST(spec_parse_three_forms)
{
	char name[8], longspec[STATS_TPL_MAX_STR_SPEC_LEN + 2];
	uint32_t hash;

	/* 1. normative, 2. name (quotes optional), 3. hash only. */
	ck_spec("\"TCP_DEFAULT\":1731235399", 0, "TCP_DEFAULT", 1731235399u);
	ck_spec("TCP_DEFAULT:1731235399", 0, "TCP_DEFAULT", 1731235399u);
	ck_spec("\"TCP_DEFAULT\"", 0, "TCP_DEFAULT", 0);
	ck_spec("TCP_DEFAULT", 0, "TCP_DEFAULT", 0);
	ck_spec(":1731235399", 0, "", 1731235399u);
	ck_spec(":4294967295", 0, "", UINT32_MAX);
	/* Malformed. */
	ck_spec(":4294967296", EINVAL, NULL, 0);
	ck_spec("", EINVAL, NULL, 0);
	ck_spec(":", EINVAL, NULL, 0);
	ck_spec("A:", EINVAL, NULL, 0);
	ck_spec("A:x", EINVAL, NULL, 0);
	ck_spec("A:-1", EINVAL, NULL, 0);
	ck_spec("A:12 ", EINVAL, NULL, 0);
	ck_spec("A:1:2", EINVAL, NULL, 0);
	ck_spec("\"A", EINVAL, NULL, 0);
	ck_spec("\"\"", EINVAL, NULL, 0);
	ck_spec("\"A\"x", EINVAL, NULL, 0);
	ck_spec("\"A\":", EINVAL, NULL, 0);
	ck_spec("A B", EINVAL, NULL, 0);
	ck_spec("A\"B", EINVAL, NULL, 0);
	memset(longspec, 'a', sizeof(longspec) - 1);
	longspec[sizeof(longspec) - 1] = '\0';
	ck_spec(longspec, EINVAL, NULL, 0);	/* longer than 77 */
	/* A 65-character name: too long for a 65-byte buffer, and invalid. */
	longspec[TPL_MAX_NAME_LEN + 1] = '\0';
	ck_spec(longspec, EOVERFLOW, NULL, 0);
	{
		char big[100];

		ck_assert_int_eq(stats_tpl_spec_parse(longspec, big,
		    sizeof(big), &hash), EINVAL);
	}
	/* Arguments, and a name buffer too small. */
	ck_assert_int_eq(stats_tpl_spec_parse(NULL, name, sizeof(name), &hash),
	    EINVAL);
	ck_assert_int_eq(stats_tpl_spec_parse("A", NULL, sizeof(name), &hash),
	    EINVAL);
	ck_assert_int_eq(stats_tpl_spec_parse("A", name, sizeof(name), NULL),
	    EINVAL);
	ck_assert_int_eq(stats_tpl_spec_parse("ABCDEFGH", name, sizeof(name),
	    &hash), EOVERFLOW);
	ck_assert_int_eq(stats_tpl_spec_parse("ABCDEFG", name, sizeof(name),
	    &hash), 0);
}
END_TEST

START_TEST(fetch_byspec_every_form)
{
	struct statsblob_tpl *tpl;
	char spec[STATS_TPL_MAX_STR_SPEC_LEN + 1];
	int id;

	stats_tpl_alloc("other", 0);
	id = stats_tpl_alloc("bySpec", 0);
	ck_assert_int_eq(stats_tpl_fetch(id, &tpl), 0);
	ck_assert_int_eq(stats_tpl_id2spec((uint32_t)id, spec, sizeof(spec)), 0);
	ck_assert_int_eq(stats_tpl_fetch_byspec(spec), id);
	ck_assert_int_eq(stats_tpl_fetch_byspec("bySpec"), id);
	ck_assert_int_eq(stats_tpl_fetch_byspec("\"bySpec\""), id);
	snprintf(spec, sizeof(spec), ":%u", tpl->mb->tplhash);
	ck_assert_int_eq(stats_tpl_fetch_byspec(spec), id);
	snprintf(spec, sizeof(spec), "bySpec:%u", tpl->mb->tplhash + 1);
	ck_assert_int_eq(stats_tpl_fetch_byspec(spec), -ESRCH);
	ck_assert_int_eq(stats_tpl_fetch_byspec("nothere"), -ESRCH);
	ck_assert_int_eq(stats_tpl_fetch_byspec("bad name"), -EINVAL);
	ck_assert_int_eq(stats_tpl_fetch_byspec(NULL), -EINVAL);
}
END_TEST

START_TEST(list_every_template_csv)
{
	struct sbuf *s = sbuf_new_auto(), sb;
	char small[8], want[512], spec[STATS_TPL_MAX_STR_SPEC_LEN + 1];
	char *before;
	int a, b;

	ck_assert_int_eq(stats_tpl_list(s), 0);
	sbuf_finish(s);
	before = strdup(sbuf_data(s));
	a = stats_tpl_alloc("L1", 0);
	b = stats_tpl_alloc("L2", 0);
	UNIT_ADD(b, 0, "v", VSD_DTYPE_INT_U32, 0, STATS_VSS_SUM());
	snprintf(want, sizeof(want), "%s%s", before, before[0] ? "," : "");
	ck_assert_int_eq(stats_tpl_id2spec((uint32_t)a, spec, sizeof(spec)), 0);
	strcat(want, spec);
	strcat(want, ",");
	ck_assert_int_eq(stats_tpl_id2spec((uint32_t)b, spec, sizeof(spec)), 0);
	strcat(want, spec);
	sbuf_clear(s);
	ck_assert_int_eq(stats_tpl_list(s), 0);
	sbuf_finish(s);
	ck_assert_str_eq(sbuf_data(s), want);
	/* Every entry is normative and resolves back to its template. */
	ck_assert_ptr_nonnull(strstr(sbuf_data(s), "\"L1\":"));
	ck_assert_int_eq(stats_tpl_fetch_byspec(spec), b);
	sbuf_delete(s);
	free(before);
	/* A buffer too small reports its error; NULL is refused. */
	sbuf_new(&sb, small, sizeof(small), 0);
	ck_assert_int_eq(stats_tpl_list(&sb), ENOMEM);
	ck_assert_int_eq(stats_tpl_list(NULL), EINVAL);
}
END_TEST

START_TEST(type_names_and_strerror)
{
	static const char *const dn[] = { "VOISTATE", "INT_S32", "INT_U32",
	    "INT_S64", "INT_U64", "INT_SLONG", "INT_ULONG", "Q_S32", "Q_U32",
	    "Q_S64", "Q_U64", "CRHIST32", "DRHIST32", "DVHIST32", "CRHIST64",
	    "DRHIST64", "DVHIST64", "TDGSTCLUST32", "TDGSTCLUST64" };
	static const char *const sn[] = { "VOISTATE", "SUM", "MAX", "MIN",
	    "HIST", "TDGST" };
	int i;

	/* FreeBSD's types; statsd's later kinds follow them. */
	for (i = 0; i < (int)NVSS(dn); i++)
		ck_assert_str_eq(stats_vsd_dtype_name((enum vsd_dtype)i), dn[i]);
	ck_assert_ptr_null(stats_vsd_dtype_name(VSD_NUM_DTYPES));
	ck_assert_ptr_null(stats_vsd_dtype_name((enum vsd_dtype)-1));
	for (i = 0; i < (int)NVSS(sn); i++)
		ck_assert_str_eq(stats_voi_stype_name((enum voi_stype)i), sn[i]);
	ck_assert_ptr_null(stats_voi_stype_name(VS_NUM_STYPES));
	ck_assert_ptr_null(stats_voi_stype_name((enum voi_stype)-1));
	ck_assert_str_eq(stats_strerror(EFTYPE),
	    "Inappropriate file type or format");
	ck_assert_str_eq(stats_strerror(-EFTYPE),
	    "Inappropriate file type or format");
	ck_assert_str_eq(stats_strerror(ENOENT), strerror(ENOENT));
	ck_assert_str_eq(stats_strerror(-EEXIST), strerror(EEXIST));
}
END_TEST

START_TEST(hash_follows_definition)
{
	struct statsblob_tpl *tpl;
	uint32_t h0, h1;
	int id = stats_tpl_alloc("hashme", 0);

	ck_assert_int_eq(stats_tpl_fetch(id, &tpl), 0);
	h0 = tpl->mb->tplhash;
	ck_assert_uint_eq(h0, expected_hash(id));
	UNIT_ADD(id, 1, "bytes", VSD_DTYPE_INT_U64, 0, STATS_VSS_SUM(),
	    STATS_VSS_MAX());
	h1 = tpl->mb->tplhash;
	ck_assert_uint_ne(h0, h1);
	ck_assert_uint_eq(h1, expected_hash(id));
	UNIT_ADD(id, 4, "", VSD_DTYPE_INT_S32, SB_VOI_RELUPDATE,
	    STATS_VSS_MIN(), STATS_VSS_CRHIST32_LIN(0, 100, 10, 0));
	ck_assert_uint_eq(tpl->mb->tplhash, expected_hash(id));
	/* A blob carries the template's hash. */
	{
		struct statsblob *sb = stats_blob_alloc((uint32_t)id, 0);

		ck_assert_uint_eq(((struct statsblobv1 *)sb)->tplhash,
		    tpl->mb->tplhash);
		stats_blob_destroy(sb);
	}
}
END_TEST

/* The layout of the stats(3) worked example: VOIs 0 and 2, in that order. */
START_TEST(add_voistats_page_layout)
{
	struct statsblob_tpl *tpl;
	const struct statsblobv1 *sb;
	const struct voistat *vs;
	int id = stats_tpl_alloc("layout", 0);

	UNIT_ADD(id, 0, "", VSD_DTYPE_INT_S64, SB_VOI_RELUPDATE,
	    STATS_VSS_MIN());
	UNIT_ADD(id, 2, "", VSD_DTYPE_INT_U32, 0, STATS_VSS_SUM(),
	    STATS_VSS_MAX());
	ck_assert_int_eq(stats_tpl_fetch(id, &tpl), 0);
	sb = (const struct statsblobv1 *)tpl->sb;
	ck_assert_uint_eq(sb->cursz, 136);
	ck_assert_uint_eq(sb->maxsz, 136);
	ck_assert_uint_eq(sb->stats_off, 56);
	ck_assert_uint_eq(sb->statsdata_off, 112);
	ck_assert_int_eq(sb->vois[0].id, 0);
	ck_assert_int_eq(sb->vois[1].id, -1);
	ck_assert_int_eq(sb->vois[1].voistatmaxid, -1);
	ck_assert_int_eq(sb->vois[2].id, 2);
	ck_assert_uint_eq(sb->vois[0].stats_off, 80);
	ck_assert_uint_eq(sb->vois[2].stats_off, 56);
	ck_assert_int_eq(sb->vois[0].voistatmaxid, 3);
	ck_assert_int_eq(sb->vois[2].voistatmaxid, 2);
	ck_assert_uint_eq(sb->vois[0].flags, VOI_REQSTATE);
	vs = blob_voistat(sb, &sb->vois[2], 0);
	ck_assert_int_eq(vs[0].stype, -1);
	ck_assert_uint_eq(vs[1].data_off, 112);
	ck_assert_uint_eq(vs[2].data_off, 116);
	vs = blob_voistat(sb, &sb->vois[0], 0);
	ck_assert_int_eq(vs[0].stype, VS_STYPE_VOISTATE);
	ck_assert_uint_eq(vs[0].data_off, 120);
	ck_assert_int_eq(vs[1].stype, -1);
	ck_assert_int_eq(vs[2].stype, -1);
	ck_assert_uint_eq(vs[3].data_off, 128);
	ck_assert_int_eq(blob_vsd(sb, &vs[3])->int64.s64, INT64_MAX);
	ck_assert_str_eq(tpl->mb->voi_meta[0].name, "");
	ck_assert_ptr_null(tpl->mb->voi_meta[1].name);
}
END_TEST

START_TEST(add_voistats_einval_paths)
{
	struct voistatspec vss[2], one;
	struct voistatdata_numeric iv;
	char longname[TPL_MAX_NAME_LEN + 2];
	int id = stats_tpl_alloc("einval", 0);

#define ADD1(voi, name, dtype, flags)					\
	(one = STATS_VSS_SUM(),						\
	stats_tpl_add_voistats((uint32_t)id, (voi), (name), (dtype), 1,	\
	    &one, (flags)))
	ck_assert_int_eq(ADD1(-1, "a", VSD_DTYPE_INT_U32, 0), EINVAL);
	ck_assert_int_eq(ADD1(INT16_MAX + 1, "a", VSD_DTYPE_INT_U32, 0),
	    EINVAL);
	ck_assert_int_eq(ADD1(0, "a", VSD_DTYPE_VOISTATE, 0), EINVAL);
	ck_assert_int_eq(ADD1(0, "a", VSD_DTYPE_CRHIST32, 0), EINVAL);
	ck_assert_int_eq(ADD1(0, "a", VSD_NUM_DTYPES, 0), EINVAL);
	ck_assert_int_eq(ADD1(0, NULL, VSD_DTYPE_INT_U32, 0), EINVAL);
	ck_assert_int_eq(ADD1(0, "a b", VSD_DTYPE_INT_U32, 0), EINVAL);
	memset(longname, 'v', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	ck_assert_int_eq(ADD1(0, longname, VSD_DTYPE_INT_U32, 0), EINVAL);
	ck_assert_int_eq(ADD1(0, "a", VSD_DTYPE_INT_U32, 0x2), EINVAL);
	one = STATS_VSS_SUM();
	ck_assert_int_eq(stats_tpl_add_voistats((uint32_t)id, 0, "a",
	    VSD_DTYPE_INT_U32, 0, &one, 0), EINVAL);
	ck_assert_int_eq(stats_tpl_add_voistats((uint32_t)id, 0, "a",
	    VSD_DTYPE_INT_U32, 1, NULL, 0), EINVAL);
	/* An unknown template (FreeBSD: EINVAL too). */
	one = STATS_VSS_SUM();
	ck_assert_int_eq(stats_tpl_add_voistats((uint32_t)id + 1, 0, "a",
	    VSD_DTYPE_INT_U32, 1, &one, 0), EINVAL);
	/* Two statistics of one type. */
	vss[0] = STATS_VSS_SUM();
	vss[1] = STATS_VSS_SUM();
	ck_assert_int_eq(stats_tpl_add_voistats((uint32_t)id, 0, "a",
	    VSD_DTYPE_INT_U32, 2, vss, 0), EINVAL);
	/* Hand-made specs: stype, dtype, iv, size and type agreement. */
	iv = stats_ctor_vsd_numeric(0);
	memset(&one, 0, sizeof(one));
	one.stype = VS_STYPE_VOISTATE;
	one.vs_dtype = VSD_DTYPE_INT_U32;
	one.iv = (struct voistatdata *)&iv;
	one.vsdsz = 4;
	ck_assert_int_eq(stats_tpl_add_voistats((uint32_t)id, 0, "a",
	    VSD_DTYPE_INT_U32, 1, &one, 0), EINVAL);
	one.stype = VS_NUM_STYPES;
	ck_assert_int_eq(stats_tpl_add_voistats((uint32_t)id, 0, "a",
	    VSD_DTYPE_INT_U32, 1, &one, 0), EINVAL);
	one.stype = VS_STYPE_SUM;
	one.vs_dtype = VSD_DTYPE_VOISTATE;
	ck_assert_int_eq(stats_tpl_add_voistats((uint32_t)id, 0, "a",
	    VSD_DTYPE_INT_U32, 1, &one, 0), EINVAL);
	one.vs_dtype = VSD_DTYPE_INT_S32;	/* not the VOI's type */
	ck_assert_int_eq(stats_tpl_add_voistats((uint32_t)id, 0, "a",
	    VSD_DTYPE_INT_U32, 1, &one, 0), EINVAL);
	one.vs_dtype = VSD_DTYPE_INT_U32;
	one.vsdsz = 8;				/* not the type's size */
	ck_assert_int_eq(stats_tpl_add_voistats((uint32_t)id, 0, "a",
	    VSD_DTYPE_INT_U32, 1, &one, 0), EINVAL);
	one.vsdsz = 0;
	ck_assert_int_eq(stats_tpl_add_voistats((uint32_t)id, 0, "a",
	    VSD_DTYPE_INT_U32, 1, &one, 0), EINVAL);
	one.vsdsz = 4;
	one.iv = NULL;
	ck_assert_int_eq(stats_tpl_add_voistats((uint32_t)id, 0, "a",
	    VSD_DTYPE_INT_U32, 1, &one, 0), EINVAL);
	one.vsdsz = SB_V1_MAXSZ + 1;
	one.iv = (struct voistatdata *)&iv;
	ck_assert_int_eq(stats_tpl_add_voistats((uint32_t)id, 0, "a",
	    VSD_DTYPE_INT_U32, 1, &one, 0), EINVAL);
	/* A helper's error is returned: SUM's helper cannot make a HIST. */
	one = STATS_VSS(VS_STYPE_HIST, 0, 0, stats_vss_numeric_hlpr, NULL);
	ck_assert_int_eq(stats_tpl_add_voistats((uint32_t)id, 0, "a",
	    VSD_DTYPE_INT_U32, 1, &one, 0), EINVAL);
	/* VOI names are unique within a template (empty ones excepted). */
	one = STATS_VSS_SUM();
	ck_assert_int_eq(stats_tpl_add_voistats((uint32_t)id, 0, "a",
	    VSD_DTYPE_INT_U32, 1, &one, 0), 0);
	one = STATS_VSS_SUM();
	ck_assert_int_eq(stats_tpl_add_voistats((uint32_t)id, 1, "a",
	    VSD_DTYPE_INT_U32, 1, &one, 0), EINVAL);
	one = STATS_VSS_SUM();
	ck_assert_int_eq(stats_tpl_add_voistats((uint32_t)id, 1, "",
	    VSD_DTYPE_INT_U32, 1, &one, 0), 0);
	one = STATS_VSS_SUM();
	ck_assert_int_eq(stats_tpl_add_voistats((uint32_t)id, 2, "",
	    VSD_DTYPE_INT_U32, 1, &one, 0), 0);
	/* Nothing else was added by any of the above. */
	{
		struct statsblob_tpl *tpl;

		ck_assert_int_eq(stats_tpl_fetch(id, &tpl), 0);
		ck_assert_int_eq(((struct statsblobv1 *)tpl->sb)->stats_off,
		    32 + 3 * 8);
	}
#undef ADD1
}
END_TEST

START_TEST(add_voistats_hand_made_spec_kept)
{
	struct voistatspec one;
	struct voistatdata_numeric iv = stats_ctor_vsd_numeric(42);
	uint64_t v;
	struct statsblob *sb;
	int id = stats_tpl_alloc("hand", 0);

	memset(&one, 0, sizeof(one));
	one.stype = VS_STYPE_SUM;
	one.vs_dtype = VSD_DTYPE_INT_U64;
	one.iv = (struct voistatdata *)&iv;
	one.vsdsz = 8;
	ck_assert_int_eq(stats_tpl_add_voistats((uint32_t)id, 3, "h",
	    VSD_DTYPE_INT_U64, 1, &one, 0), 0);
	/* Not the library's to free: iv is still ours. */
	ck_assert_ptr_eq(one.iv, (struct voistatdata *)&iv);
	sb = stats_blob_alloc((uint32_t)id, 0);
	ck_assert_int_eq(stats_voistat_fetch_u64(sb, 3, VS_STYPE_SUM, &v), 0);
	ck_assert_uint_eq(v, 42);	/* the initial value given */
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(add_voistats_eopnotsupp)
{
	int id = stats_tpl_alloc("dup", 0);
	struct voistatspec one = STATS_VSS_MAX();

	UNIT_ADD(id, 5, "x", VSD_DTYPE_INT_U32, 0, STATS_VSS_SUM());
	ck_assert_int_eq(stats_tpl_add_voistats((uint32_t)id, 5, "x",
	    VSD_DTYPE_INT_U32, 1, &one, 0), EOPNOTSUPP);
	/* A vacant slot below is still free. */
	UNIT_ADD(id, 2, "y", VSD_DTYPE_INT_U32, 0, STATS_VSS_SUM());
	one = STATS_VSS_MAX();
	ck_assert_int_eq(stats_tpl_add_voistats((uint32_t)id, 2, "y",
	    VSD_DTYPE_INT_U32, 1, &one, 0), EOPNOTSUPP);
}
END_TEST

START_TEST(add_voistats_efbig)
{
	struct statsblob_tpl *tpl;
	struct voistatspec one;
	uint16_t before;
	int id = stats_tpl_alloc("big", 0), error;

	/* 4000 buckets of 16 bytes: one fits, a second does not. */
	UNIT_ADD(id, 0, "a", VSD_DTYPE_INT_U64, 0,
	    STATS_VSS_CRHIST64_LIN(0, 3999, 1, 0));
	ck_assert_int_eq(stats_tpl_fetch(id, &tpl), 0);
	before = tpl->sb->cursz;
	one = STATS_VSS_CRHIST64_LIN(0, 3999, 1, 0);
	error = stats_tpl_add_voistats((uint32_t)id, 1, "b", VSD_DTYPE_INT_U64,
	    1, &one, 0);
	ck_assert_int_eq(error, EFBIG);
	ck_assert_uint_eq(tpl->sb->cursz, before);
	/* A VOI id so high its slots alone overflow. */
	one = STATS_VSS_SUM();
	ck_assert_int_eq(stats_tpl_add_voistats((uint32_t)id, INT16_MAX, "c",
	    VSD_DTYPE_INT_U64, 1, &one, 0), EFBIG);
	/* A single histogram too large for any blob: the helper says so. */
	one = STATS_VSS_CRHIST64_LIN(0, 100000, 1, 0);
	ck_assert_int_eq(stats_tpl_add_voistats((uint32_t)id, 2, "d",
	    VSD_DTYPE_INT_U64, 1, &one, 0), EFBIG);
}
END_TEST

START_TEST(numeric_helper)
{
	struct voistatspec vss = STATS_VSS_MIN();

	ck_assert_int_eq(stats_vss_numeric_hlpr(VSD_DTYPE_INT_U32, NULL, NULL),
	    EINVAL);
	ck_assert_int_eq(stats_vss_numeric_hlpr(VSD_DTYPE_CRHIST32, &vss, NULL),
	    EINVAL);
	ck_assert_int_eq(stats_vss_numeric_hlpr(VSD_DTYPE_VOISTATE, &vss, NULL),
	    EINVAL);
	vss.stype = VS_STYPE_TDGST;
	ck_assert_int_eq(stats_vss_numeric_hlpr(VSD_DTYPE_INT_U32, &vss, NULL),
	    EINVAL);
	vss.stype = VS_STYPE_MIN;
	ck_assert_int_eq(stats_vss_numeric_hlpr(VSD_DTYPE_INT_S32, &vss, NULL),
	    0);
	ck_assert_uint_eq(vss.vsdsz, 4);
	ck_assert_int_eq(vss.vs_dtype, VSD_DTYPE_INT_S32);
	ck_assert_int_eq(vss.iv->int32.s32, INT32_MAX);
	free(vss.iv);
	vss = STATS_VSS_MAX();
	ck_assert_int_eq(stats_vss_numeric_hlpr(VSD_DTYPE_Q_S64, &vss, NULL), 0);
	ck_assert_uint_eq(vss.vsdsz, 8);
	ck_assert_int_eq(vss.iv->q64.sq64, INT64_MIN);
	free(vss.iv);
	vss = STATS_VSS_SUM();
	ck_assert_int_eq(stats_vss_numeric_hlpr(VSD_DTYPE_INT_ULONG, &vss,
	    &(struct vss_numeric_hlpr_info){ .prec = 4 }), 0);
	ck_assert_uint_eq(vss.iv->intlong.ulong, 0);
	free(vss.iv);
}
END_TEST

/* statsd frees templates nothing uses: the slot goes vacant, lookups
 * skip it, and the next template takes it. */
START_TEST(release_leaves_a_vacant_slot)
{
	struct sbuf *sb = sbuf_new_auto();
	char name[TPL_MAX_NAME_LEN + 1];
	int a, b, c;

	a = stats_tpl_alloc("rel_a", 0);
	b = stats_tpl_alloc("rel_b", 0);
	ck_assert_int_ge(a, 0);
	ck_assert_int_eq(tpl_release(a), 0);
	ck_assert_int_eq(tpl_release(a), -ENOENT);
	ck_assert_int_eq(tpl_release(-1), -ENOENT);
	ck_assert_int_eq(stats_tpl_fetch(a, NULL), ENOENT);
	ck_assert_int_eq(stats_tpl_fetch_allocid("rel_a", 0), -ESRCH);
	ck_assert_int_eq(stats_tpl_id2name((uint32_t)a, name, sizeof(name)),
	    ENOENT);
	ck_assert_ptr_null(stats_blob_alloc((uint32_t)a, 0));
	ck_assert_int_eq(stats_tpl_list(sb), 0);
	ck_assert_int_eq(sbuf_finish(sb), 0);
	ck_assert_ptr_null(strstr(sbuf_data(sb), "rel_a"));
	ck_assert_ptr_nonnull(strstr(sbuf_data(sb), "rel_b"));
	ck_assert_int_eq(stats_tpl_fetch_allocid("rel_b", 0), b);
	c = stats_tpl_alloc("rel_a", 0);	/* the name is free again */
	ck_assert_int_eq(c, a);			/* and so is the slot */
	sbuf_delete(sb);
}
END_TEST

/* A re-laid blob's layout registered as a template of its own: the
 * base's VOI names by id, the layout's bytes, the hash it is given. */
START_TEST(add_layout_names_a_relaid_blob)
{
	struct statsblob_tpl *t;
	struct statsblob *b;
	int base, id;

	base = stats_tpl_alloc("lay_base", 0);
	ck_assert_int_ge(base, 0);
	UNIT_ADD(base, 0, "first", VSD_DTYPE_INT_S64, 0, STATS_VSS_SUM());
	UNIT_ADD(base, 2, "third", VSD_DTYPE_INT_S64, 0, STATS_VSS_MAX());
	b = stats_blob_alloc((uint32_t)base, 0);
	ck_assert_ptr_nonnull(b);
	id = tpl_add_layout("lay_base.relaid.1", base, b, 0x5eed);
	ck_assert_int_ge(id, 0);
	ck_assert_ptr_nonnull(tpl_by_hash(0x5eed));
	ck_assert_int_eq(stats_tpl_fetch(id, &t), 0);
	ck_assert_str_eq(t->mb->tplname, "lay_base.relaid.1");
	ck_assert_uint_eq(t->mb->tplhash, 0x5eed);
	ck_assert_str_eq(t->mb->voi_meta[0].name, "first");
	ck_assert_ptr_null(t->mb->voi_meta[1].name);
	ck_assert_str_eq(t->mb->voi_meta[2].name, "third");
	ck_assert_uint_eq(t->sb->cursz, b->cursz);
	ck_assert_int_eq(tpl_add_layout("lay_base.relaid.1", base, b, 1),
	    -EEXIST);
	ck_assert_int_eq(tpl_add_layout("bad name", base, b, 1), -EINVAL);
	ck_assert_int_eq(tpl_add_layout("lay_x", base, NULL, 1), -EINVAL);
	ck_assert_int_eq(tpl_add_layout("lay_x", 100000, b, 1), -ENOENT);
	ck_assert_int_eq(tpl_release(id), 0);
	ck_assert_ptr_null(tpl_by_hash(0x5eed));
	stats_blob_destroy(b);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("tpl");
	TCase *tc = tcase_create("tpl");

	tcase_add_test(tc, alloc_ids_and_errors);
	tcase_add_test(tc, add_layout_names_a_relaid_blob);
	tcase_add_test(tc, empty_template_blob);
	tcase_add_test(tc, fetch_allocid_by_name_and_hash);
	tcase_add_test(tc, fetch_enoent);
	tcase_add_test(tc, id2name_and_id2spec);
	tcase_add_test(tc, spec_parse_three_forms);
	tcase_add_test(tc, fetch_byspec_every_form);
	tcase_add_test(tc, list_every_template_csv);
	tcase_add_test(tc, type_names_and_strerror);
	tcase_add_test(tc, hash_follows_definition);
	tcase_add_test(tc, add_voistats_page_layout);
	tcase_add_test(tc, add_voistats_einval_paths);
	tcase_add_test(tc, add_voistats_hand_made_spec_kept);
	tcase_add_test(tc, add_voistats_eopnotsupp);
	tcase_add_test(tc, add_voistats_efbig);
	tcase_add_test(tc, numeric_helper);
	tcase_add_test(tc, release_leaves_a_vacant_slot);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
