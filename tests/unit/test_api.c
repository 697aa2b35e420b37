/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_api.c: a program written from the stats(3) SYNOPSIS, using only
 * <statsd/stats.h>: it builds FreeBSD's TCP_DEFAULT template, gathers data,
 * snapshots, renders and reads it back, samples templates, and provokes
 * every return value the page's RETURN VALUES section names.
 */
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <statsd/stats.h>

#include "unit.h"

/* VOI ids of FreeBSD's netinet/tcp.h. */
enum {
	VOI_TCP_TXPB, VOI_TCP_RETXPB, VOI_TCP_FRWIN, VOI_TCP_LCWIN,
	VOI_TCP_RTT, VOI_TCP_CSIG, VOI_TCP_GPUT, VOI_TCP_CALCFRWINDIFF,
	VOI_TCP_GPUT_ND, VOI_TCP_ACKLEN
};

/* tcp_stats_init(), as FreeBSD's tcp_stats.c writes it. */
static int
tcp_stats_init(void)
{
	struct voistatspec vss_sum[] = { STATS_VSS_SUM() };
	struct voistatspec vss_max[] = { STATS_VSS_MAX() };
	struct voistatspec vss_rtt[] = { STATS_VSS_MAX(), STATS_VSS_MIN(),
	    STATS_VSS_TDGSTCLUST32(20, 4) };
	struct voistatspec vss_csig[] = { STATS_VSS_DVHIST32_USR(
	    HBKTS(DVBKT(1), DVBKT(2), DVBKT(4), DVBKT(8)), 0) };
	struct voistatspec vss_gput[] = { STATS_VSS_MAX(),
	    STATS_VSS_TDGSTCLUST32(20, 4) };
	struct voistatspec vss_gput_nd[] = { STATS_VSS_TDGSTCLUST32(10, 4) };
	struct voistatspec vss_windiff[] = { STATS_VSS_CRHIST32_USR(
	    HBKTS(CRBKT(0)), VSD_HIST_LBOUND_INF) };
	struct voistatspec vss_acklen[] = { STATS_VSS_MAX(),
	    STATS_VSS_CRHIST32_LIN(0, 9, 1, VSD_HIST_UBOUND_INF) };
	int tpl, err = 0;

	tpl = stats_tpl_alloc("TCP_DEFAULT", 0);
	if (tpl < 0)
		return tpl;
	err |= stats_tpl_add_voistats(tpl, VOI_TCP_TXPB, "TCP_TXPB",
	    VSD_DTYPE_INT_U64, NVSS(vss_sum), vss_sum, 0);
	vss_sum[0] = STATS_VSS_SUM();
	err |= stats_tpl_add_voistats(tpl, VOI_TCP_RETXPB, "TCP_RETXPB",
	    VSD_DTYPE_INT_U32, NVSS(vss_sum), vss_sum, 0);
	err |= stats_tpl_add_voistats(tpl, VOI_TCP_FRWIN, "TCP_FRWIN",
	    VSD_DTYPE_INT_ULONG, NVSS(vss_max), vss_max, 0);
	vss_max[0] = STATS_VSS_MAX();
	err |= stats_tpl_add_voistats(tpl, VOI_TCP_LCWIN, "TCP_LCWIN",
	    VSD_DTYPE_INT_ULONG, NVSS(vss_max), vss_max, 0);
	err |= stats_tpl_add_voistats(tpl, VOI_TCP_RTT, "TCP_RTT",
	    VSD_DTYPE_INT_U32, NVSS(vss_rtt), vss_rtt, 0);
	err |= stats_tpl_add_voistats(tpl, VOI_TCP_CSIG, "TCP_CSIG",
	    VSD_DTYPE_INT_U32, NVSS(vss_csig), vss_csig, 0);
	err |= stats_tpl_add_voistats(tpl, VOI_TCP_GPUT, "TCP_GPUT",
	    VSD_DTYPE_INT_U32, NVSS(vss_gput), vss_gput, 0);
	err |= stats_tpl_add_voistats(tpl, VOI_TCP_GPUT_ND, "TCP_GPUT_ND",
	    VSD_DTYPE_INT_S32, NVSS(vss_gput_nd), vss_gput_nd, 0);
	err |= stats_tpl_add_voistats(tpl, VOI_TCP_CALCFRWINDIFF,
	    "TCP_CALCFRWINDIFF", VSD_DTYPE_INT_S32, NVSS(vss_windiff),
	    vss_windiff, 0);
	err |= stats_tpl_add_voistats(tpl, VOI_TCP_ACKLEN, "TCP_ACKLEN",
	    VSD_DTYPE_INT_U32, NVSS(vss_acklen), vss_acklen, 0);
	return err != 0 ? -err : tpl;
}

static json_t *
jpath(json_t *j, const char *a, const char *b, const char *c, const char *d)
{
	const char *k[] = { a, b, c, d };
	size_t i;

	for (i = 0; i < 4 && j != NULL && k[i] != NULL; i++)
		j = json_object_get(j, k[i]);
	return j;
}

START_TEST(tcp_default_end_to_end)
{
	struct statsblob *sb, *snap = NULL;
	struct sbuf *s;
	json_t *root, *vois;
	json_error_t jerr;
	char name[TPL_MAX_NAME_LEN + 1];
	uint64_t txpb;
	uint32_t rtt_max, rtt_min;
	unsigned long lcwin;
	double median;
	int tpl, i;

	tpl = tcp_stats_init();
	ck_assert_int_ge(tpl, 0);
	ck_assert_int_eq(stats_tpl_fetch_allocid("TCP_DEFAULT", 0), tpl);
	ck_assert_int_eq(stats_tpl_id2name(tpl, name, sizeof(name)), 0);
	ck_assert_str_eq(name, "TCP_DEFAULT");

	sb = stats_blob_alloc(tpl, 0);
	ck_assert_ptr_nonnull(sb);
	for (i = 1; i <= 500; i++) {
		ck_assert_int_eq(stats_voi_update_abs_u64(sb, VOI_TCP_TXPB,
		    1448), 0);
		ck_assert_int_eq(stats_voi_update_abs_ulong(sb, VOI_TCP_LCWIN,
		    (unsigned long)i * 1448), 0);
		ck_assert_int_eq(stats_voi_update_abs_u32(sb, VOI_TCP_RTT,
		    (uint32_t)(20 + i % 41)), 0);
		ck_assert_int_eq(stats_voi_update_abs_u32(sb, VOI_TCP_CSIG,
		    (uint32_t)(1u << (i % 5))), 0);
		ck_assert_int_eq(stats_voi_update_abs_s32(sb,
		    VOI_TCP_CALCFRWINDIFF, i % 3 - 1), 0);
		ck_assert_int_eq(stats_voi_update_abs_s32(sb, VOI_TCP_GPUT_ND,
		    i % 7 - 3), 0);
		ck_assert_int_eq(stats_voi_update_abs_u32(sb, VOI_TCP_ACKLEN,
		    (uint32_t)(i % 12)), 0);
	}
	ck_assert_int_eq(stats_voistat_fetch_u64(sb, VOI_TCP_TXPB,
	    VS_STYPE_SUM, &txpb), 0);
	ck_assert_uint_eq(txpb, 500 * 1448);
	ck_assert_int_eq(stats_voistat_fetch_ulong(sb, VOI_TCP_LCWIN,
	    VS_STYPE_MAX, &lcwin), 0);
	ck_assert_uint_eq(lcwin, 500 * 1448);
	ck_assert_int_eq(stats_voistat_fetch_u32(sb, VOI_TCP_RTT, VS_STYPE_MAX,
	    &rtt_max), 0);
	ck_assert_int_eq(stats_voistat_fetch_u32(sb, VOI_TCP_RTT, VS_STYPE_MIN,
	    &rtt_min), 0);
	ck_assert_uint_eq(rtt_max, 60);
	ck_assert_uint_eq(rtt_min, 20);
	ck_assert_int_eq(stats_voistat_fetch_quantile(sb, VOI_TCP_RTT,
	    VS_STYPE_TDGST, 0.5, &median), 0);
	ck_assert(median > 35 && median < 45);

	/* A snapshot that resets the connection's statistics. */
	ck_assert_int_eq(stats_blob_snapshot(&snap, 0, sb,
	    SB_CLONE_ALLOCDST | SB_CLONE_RSTSRC), 0);
	ck_assert_int_eq(stats_voistat_fetch_u64(sb, VOI_TCP_TXPB,
	    VS_STYPE_SUM, &txpb), 0);
	ck_assert_uint_eq(txpb, 0);

	/* The snapshot, as JSON with names, read back. */
	s = sbuf_new_auto();
	ck_assert_int_eq(stats_blob_tostr(snap, s, SB_STRFMT_JSON,
	    SB_TOSTR_META), 0);
	ck_assert_int_eq(sbuf_finish(s), 0);
	root = json_loads(sbuf_data(s), JSON_REJECT_DUPLICATES, &jerr);
	ck_assert_msg(root != NULL, "%s", jerr.text);
	ck_assert_str_eq(json_string_value(json_object_get(root, "tplname")),
	    "TCP_DEFAULT");
	vois = json_object_get(root, "vois");
	ck_assert_int_eq(json_object_size(vois), 10);
	ck_assert_int_eq(json_integer_value(jpath(vois, "TCP_TXPB", "stats",
	    "SUM", "val")), 500 * 1448);
	/* Never updated: null. */
	ck_assert(json_is_null(jpath(vois, "TCP_FRWIN", "stats", "MAX", NULL)));
	ck_assert_int_eq(json_integer_value(json_object_get(jpath(vois,
	    "TCP_ACKLEN", "stats", "HIST", NULL), "nbkts")), 11);
	ck_assert_int_eq(json_integer_value(json_object_get(jpath(vois,
	    "TCP_CSIG", "stats", "HIST", NULL), "oob")), 100);	/* 1 << 4 is no congestion signal */
	/* (int32)snd_cwnd - snd_wnd < 0 one time in three. */
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(
	    json_object_get(jpath(vois, "TCP_CALCFRWINDIFF", "stats", "HIST",
	    NULL), "bkts"), 0), "cnt")), 166);
	ck_assert_ptr_nonnull(jpath(vois, "TCP_RTT", "stats", "TDGST", NULL));
	json_decref(root);

	/* The template list, as kern.stats.templates shows it. */
	sbuf_clear(s);
	ck_assert_int_eq(stats_tpl_list(s), 0);
	sbuf_finish(s);
	ck_assert_int_eq(strncmp(sbuf_data(s), "\"TCP_DEFAULT\":", 14), 0);
	sbuf_delete(s);
	stats_blob_destroy(snap);
	stats_blob_destroy(sb);
}
END_TEST

struct walk {
	int	n;
	int	first_voi, last_voi;
};

static int
walker(struct sb_visit *sbv, void *usrctx)
{
	struct walk *w = usrctx;

	w->n++;
	if (sbv->flags & SB_IT_FIRST_VOI)
		w->first_voi++;
	if (sbv->flags & SB_IT_LAST_VOI)
		w->last_voi++;
	return 0;
}

/* Blobs live in the caller's memory and move with memcpy. */
START_TEST(embedded_blob_and_visit)
{
	union {
		struct statsblob sb;
		uint64_t space[64];
	} a, b;
	struct statsblob *dst = &b.sb;
	struct voistatspec vss[] = { STATS_VSS_SUM(), STATS_VSS_MAX() };
	struct walk w = { 0, 0, 0 };
	int64_t v;
	int tpl;

	tpl = stats_tpl_alloc("embedded", 0);
	ck_assert_int_ge(tpl, 0);
	ck_assert_int_eq(stats_tpl_add_voistats(tpl, 1, "x", VSD_DTYPE_INT_S64,
	    NVSS(vss), vss, SB_VOI_RELUPDATE), 0);
	vss[0] = STATS_VSS_MIN();
	ck_assert_int_eq(stats_tpl_add_voistats(tpl, 3, "y", VSD_DTYPE_INT_S64,
	    1, vss, 0), 0);
	memset(&a, 0, sizeof(a));
	a.sb.maxsz = sizeof(a);
	ck_assert_int_eq(stats_blob_init(&a.sb, tpl, 0), 0);
	ck_assert_int_eq(stats_voi_update_rel_s64(&a.sb, 1, 5), 0);
	ck_assert_int_eq(stats_voi_update_rel_s64(&a.sb, 1, 5), 0);
	ck_assert_int_eq(stats_voi_update_abs_s64(&a.sb, 3, -8), 0);
	memcpy(&b, &a, sizeof(a));
	memset(&a, 0xee, sizeof(a));
	ck_assert_int_eq(stats_voistat_fetch_s64(dst, 1, VS_STYPE_SUM, &v), 0);
	ck_assert_int_eq(v, 15);
	ck_assert_int_eq(stats_voistat_fetch_s64(dst, 1, VS_STYPE_MAX, &v), 0);
	ck_assert_int_eq(v, 10);
	ck_assert_int_eq(stats_blob_visit(dst, walker, &w), 0);
	ck_assert_int_eq(w.n, 4);	/* VOISTATE, SUM, MAX; MIN */
	ck_assert_int_eq(w.first_voi, 3);
	ck_assert_int_eq(w.last_voi, 1);
	ck_assert_int_eq(stats_blob_validate(dst, sizeof(b)), 0);
}
END_TEST

/* Every case under RETURN VALUES. */
START_TEST(return_values)
{
	struct voistatspec one[] = { STATS_VSS_SUM() };
	struct voistatspec big[] = { STATS_VSS_CRHIST64_LIN(0, 3999, 1, 0) };
	struct statsblob_tpl *tplp;
	struct statsblob *sb, *dst;
	union { struct statsblob sb; uint64_t space[8]; } small;
	char buf[4];
	int32_t s32;
	int tpl;

	/* stats_tpl_alloc: -EINVAL, -EEXIST. */
	ck_assert_int_eq(stats_tpl_alloc(NULL, 0), -EINVAL);
	tpl = stats_tpl_alloc("RV", 0);
	ck_assert_int_ge(tpl, 0);
	ck_assert_int_eq(stats_tpl_alloc("RV", 0), -EEXIST);
	/* stats_tpl_fetch_allocid: -ESRCH. */
	ck_assert_int_eq(stats_tpl_fetch_allocid("VR", 0), -ESRCH);
	/* stats_tpl_fetch: ENOENT. */
	ck_assert_int_eq(stats_tpl_fetch(tpl + 1, &tplp), ENOENT);
	/* stats_tpl_id2name: EOVERFLOW, ENOENT. */
	ck_assert_int_eq(stats_tpl_id2name(tpl, buf, 2), EOVERFLOW);
	ck_assert_int_eq(stats_tpl_id2name(tpl + 1, buf, sizeof(buf)), ENOENT);
	/* stats_tpl_add_voistats: EINVAL, EFBIG, EOPNOTSUPP. */
	ck_assert_int_eq(stats_tpl_add_voistats(tpl, -1, "a", VSD_DTYPE_INT_S32,
	    NVSS(one), one, 0), EINVAL);
	one[0] = STATS_VSS_SUM();
	ck_assert_int_eq(stats_tpl_add_voistats(tpl, 0, "a", VSD_DTYPE_INT_S32,
	    NVSS(one), one, 0), 0);
	one[0] = STATS_VSS_MAX();
	ck_assert_int_eq(stats_tpl_add_voistats(tpl, 0, "a", VSD_DTYPE_INT_S32,
	    NVSS(one), one, 0), EOPNOTSUPP);
	ck_assert_int_eq(stats_tpl_add_voistats(tpl, 1, "b", VSD_DTYPE_INT_U64,
	    NVSS(big), big, 0), 0);
	big[0] = STATS_VSS_CRHIST64_LIN(0, 3999, 1, 0);
	ck_assert_int_eq(stats_tpl_add_voistats(tpl, 2, "c", VSD_DTYPE_INT_U64,
	    NVSS(big), big, 0), EFBIG);
	/* stats_voi_update_*: EINVAL. */
	sb = stats_blob_alloc(tpl, 0);
	ck_assert_ptr_nonnull(sb);
	ck_assert_int_eq(stats_voi_update_abs_s32(sb, 0, 1), 0);
	ck_assert_int_eq(stats_voi_update_rel_s32(sb, 0, 1), EINVAL);
	ck_assert_int_eq(stats_voi_update_abs_s32(sb, 7, 1), EINVAL);
	/* stats_blob_init: EINVAL, EOVERFLOW. */
	small.sb.maxsz = sizeof(small);
	ck_assert_int_eq(stats_blob_init(NULL, tpl, 0), EINVAL);
	ck_assert_int_eq(stats_blob_init(&small.sb, tpl, 0), EOVERFLOW);
	/* stats_blob_alloc: NULL. */
	ck_assert_ptr_null(stats_blob_alloc(tpl + 1, 0));
	/* stats_blob_clone / snapshot: EINVAL, EOVERFLOW. */
	dst = &small.sb;
	ck_assert_int_eq(stats_blob_clone(&dst, sizeof(small), NULL, 0), EINVAL);
	ck_assert_int_eq(stats_blob_clone(&dst, sizeof(small), sb, 0),
	    EOVERFLOW);
	ck_assert_uint_eq(small.sb.cursz, sb->cursz);	/* the size needed */
	ck_assert_int_eq(stats_blob_snapshot(&dst, sizeof(small), sb,
	    SB_CLONE_RSTSRC), EOVERFLOW);
	ck_assert_int_eq(stats_blob_snapshot(&dst, sizeof(small), NULL, 0),
	    EINVAL);
	/* stats_blob_visit, stats_blob_tostr, stats_voistatdata_tostr. */
	ck_assert_int_eq(stats_blob_visit(sb, NULL, NULL), EINVAL);
	ck_assert_int_eq(stats_blob_tostr(sb, NULL, SB_STRFMT_JSON, 0), EINVAL);
	ck_assert_int_eq(stats_voistatdata_tostr(NULL, VSD_DTYPE_INT_S32,
	    SB_STRFMT_JSON, NULL, 0), EINVAL);
	/* stats_voistat_fetch_dptr: EINVAL; fetch_<dtype>: EINVAL, EFTYPE. */
	ck_assert_int_eq(stats_voistat_fetch_dptr(sb, 0, VS_STYPE_MAX, NULL,
	    NULL, NULL), EINVAL);
	ck_assert_int_eq(stats_voistat_fetch_s32(sb, 9, VS_STYPE_SUM, &s32),
	    EINVAL);
	ck_assert_int_eq(stats_voistat_fetch_s32(sb, 1, VS_STYPE_HIST, &s32),
	    EFTYPE);
	ck_assert_int_eq(stats_voistat_fetch_s32(sb, 0, VS_STYPE_SUM, &s32), 0);
	ck_assert_int_eq(s32, 1);
	ck_assert_str_eq(stats_strerror(EFTYPE),
	    "Inappropriate file type or format");
	/* stats_tpl_sample_rollthedice: -1 for no selection. */
	{
		struct stats_tpl_sample_rate r[] = { { tpl, 0 } };

		ck_assert_int_eq(stats_tpl_sample_rollthedice(r, 1, "x", 1),
		    -1);
		r[0].tpl_sample_pct = 100;
		ck_assert_int_eq(stats_tpl_sample_rollthedice(r, 1, NULL, 0),
		    tpl);
	}
	stats_blob_destroy(sb);
}
END_TEST

/* The page's example through the public API: its line shapes. */
START_TEST(page_example_shapes)
{
	struct voistatspec vss0[] = { STATS_VSS_MIN() };
	struct voistatspec vss2[] = { STATS_VSS_SUM(), STATS_VSS_MAX() };
	struct statsblob *sb;
	struct sbuf *s;
	int tpl;

	tpl = stats_tpl_alloc("page", 0);
	ck_assert_int_eq(stats_tpl_add_voistats(tpl, 0, "", VSD_DTYPE_INT_S64,
	    NVSS(vss0), vss0, SB_VOI_RELUPDATE), 0);
	ck_assert_int_eq(stats_tpl_add_voistats(tpl, 2, "", VSD_DTYPE_INT_U32,
	    NVSS(vss2), vss2, 0), 0);
	sb = stats_blob_alloc(tpl, 0);
	ck_assert_uint_eq(sb->cursz, 136);
	s = sbuf_new_auto();
	ck_assert_int_eq(stats_blob_tostr(sb, s, SB_STRFMT_FREEFORM,
	    SB_TOSTR_OBJDUMP), 0);
	sbuf_finish(s);
	ck_assert_ptr_nonnull(strstr(sbuf_data(s), ", abi=1, endian=1, "
	    "maxsz=136, cursz=136, created="));
	ck_assert_ptr_nonnull(strstr(sbuf_data(s), ", flags=0x0000, "
	    "stats_off=56, statsdata_off=112, tplhash="));
	ck_assert_ptr_nonnull(strstr(sbuf_data(s), "\tvois[0]: id=0, name=\"\", "
	    "flags=0x0001, dtype=INT_S64, voistatmaxid=3, stats_off=80\n"));
	ck_assert_ptr_nonnull(strstr(sbuf_data(s), "\tvois[1]: id=-1\n"));
	ck_assert_ptr_nonnull(strstr(sbuf_data(s), "\t\tvois[0]stat[3]: "
	    "stype=MIN, flags=0x0000, dtype=INT_S64, dsz=8, data_off=128\n"
	    "\t\t\tvoistatdata: 9223372036854775807\n"));
	sbuf_delete(s);
	stats_blob_destroy(sb);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("api");
	TCase *tc = tcase_create("api");

	tcase_add_test(tc, tcp_default_end_to_end);
	tcase_add_test(tc, embedded_blob_and_visit);
	tcase_add_test(tc, return_values);
	tcase_add_test(tc, page_example_shapes);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
