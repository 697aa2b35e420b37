/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_blob.c: blob life cycle and reads: alloc/init/clone/snapshot/reset/
 * destroy with every error path (clone into a buffer that is too small
 * included), SB_CLONE_RSTSRC semantics, position independence (memcpy to
 * another address), the visitor's order and flags, the fetch functions
 * (EFTYPE), stats_blob_merge, and stats_blob_validate on crafted and
 * randomly corrupted blobs.
 */
#include <errno.h>
#include <math.h>
#include <time.h>

#include "blob.h"
#include "unit.h"

/* The stats(3) worked example: VOI 0 s64 REL {MIN}, VOI 2 u32 {SUM, MAX}. */
static int
page_tpl(void)
{
	int id = unit_tpl("page");

	UNIT_ADD(id, 0, "", VSD_DTYPE_INT_S64, SB_VOI_RELUPDATE,
	    STATS_VSS_MIN());
	UNIT_ADD(id, 2, "", VSD_DTYPE_INT_U32, 0, STATS_VSS_SUM(),
	    STATS_VSS_MAX());
	return id;
}

/* Something of every FreeBSD scalar and histogram shape. */
static int
rich_tpl(void)
{
	int id = unit_tpl("rich");
	struct voistatdata_numeric dr[][2] = {
		DRBKT(0, 10), DRBKT(20, 30), DRBKT(30, 1000) };

	UNIT_ADD(id, 0, "s64", VSD_DTYPE_INT_S64, SB_VOI_RELUPDATE,
	    STATS_VSS_SUM(), STATS_VSS_MAX(), STATS_VSS_MIN());
	UNIT_ADD(id, 2, "u32", VSD_DTYPE_INT_U32, 0, STATS_VSS_SUM(),
	    STATS_VSS_CRHIST32_LIN(0, 100, 10, VSD_HIST_UBOUND_INF));
	UNIT_ADD(id, 3, "dr", VSD_DTYPE_INT_U64, 0, STATS_VSS_MAX(),
	    STATS_VSS_DRHIST64_USR(dr, 0));
	UNIT_ADD(id, 4, "q", VSD_DTYPE_Q_S32, SB_VOI_RELUPDATE,
	    STATS_VSS_SUM(), STATS_VSS_MIN());
	UNIT_ADD(id, 5, "dv", VSD_DTYPE_INT_S32, 0,
	    STATS_VSS_DVHIST32_USR(HBKTS(DVBKT(-1), DVBKT(0), DVBKT(7)), 0));
	return id;
}

static void
feed_rich(struct statsblob *sb, int k)
{
	int i;

	for (i = 0; i < k; i++) {
		ck_assert_int_eq(stats_voi_update_abs_s64(sb, 0, i - 3), 0);
		ck_assert_int_eq(stats_voi_update_abs_u32(sb, 2,
		    (uint32_t)(i * 13)), 0);
		ck_assert_int_eq(stats_voi_update_abs_u64(sb, 3,
		    (uint64_t)i * 7), 0);
		ck_assert_int_eq(stats_voi_update_rel_sq32(sb, 4,
		    STATS_SQ32(0.5)), 0);
		ck_assert_int_eq(stats_voi_update_abs_s32(sb, 5, i % 9 - 1), 0);
	}
}

static struct statsblobv1 *
v1(struct statsblob *sb)
{
	return (struct statsblobv1 *)sb;
}

START_TEST(alloc_init_destroy)
{
	struct statsblob_tpl *tpl;
	struct statsblob *sb;
	union { struct statsblob sb; uint8_t b[512]; } mem;
	int id = page_tpl();

	ck_assert_ptr_null(stats_blob_alloc((uint32_t)id + 1, 0));
	ck_assert_ptr_null(stats_blob_alloc(UINT32_MAX, 0));
	sb = stats_blob_alloc((uint32_t)id, 0);
	ck_assert_ptr_nonnull(sb);
	ck_assert_int_eq(stats_tpl_fetch(id, &tpl), 0);
	ck_assert_uint_eq(sb->abi, STATS_ABI_V1);
	ck_assert_uint_eq(sb->endian, SB_LE);
	ck_assert_uint_eq(sb->cursz, 136);
	ck_assert_uint_eq(sb->maxsz, 136);
	ck_assert_uint_eq(v1(sb)->tplhash, tpl->mb->tplhash);
	ck_assert_int_gt(v1(sb)->created, 0);
	ck_assert_int_eq(v1(sb)->created, v1(sb)->lastrst);
	/* Same bytes as the template past the header's stamps. */
	ck_assert_int_eq(memcmp((uint8_t *)sb + 32, (uint8_t *)tpl->sb + 32,
	    136 - 32), 0);
	stats_blob_destroy(sb);
	stats_blob_destroy(NULL);

	/* init: arguments, size, and maxsz taken from the template. */
	ck_assert_int_eq(stats_blob_init(NULL, (uint32_t)id, 0), EINVAL);
	memset(&mem, 0, sizeof(mem));
	mem.sb.maxsz = sizeof(mem);
	ck_assert_int_eq(stats_blob_init(&mem.sb, (uint32_t)id + 1, 0), EINVAL);
	ck_assert_int_eq(stats_blob_init(&mem.sb, UINT32_MAX, 0), EINVAL);
	mem.sb.maxsz = 135;
	ck_assert_int_eq(stats_blob_init(&mem.sb, (uint32_t)id, 0), EOVERFLOW);
	ck_assert_uint_eq(mem.sb.abi, 0);	/* untouched */
	mem.sb.maxsz = sizeof(mem);
	ck_assert_int_eq(stats_blob_init(&mem.sb, (uint32_t)id, 0xff), 0);
	ck_assert_uint_eq(mem.sb.maxsz, 136);
	ck_assert_uint_eq(mem.sb.cursz, 136);
	ck_assert_int_eq(stats_blob_validate(&mem.sb, sizeof(mem)), 0);
}
END_TEST

START_TEST(clone_einval)
{
	struct statsblob *src, *dst = NULL, small;
	union { struct statsblob sb; uint8_t b[256]; } mem;
	int id = page_tpl();

	src = stats_blob_alloc((uint32_t)id, 0);
	ck_assert_int_eq(stats_blob_clone(NULL, 256, src, 0), EINVAL);
	ck_assert_int_eq(stats_blob_clone(&dst, 256, NULL, 0), EINVAL);
	ck_assert_int_eq(stats_blob_clone(&dst, 256, src, 0), EINVAL);
	dst = &mem.sb;
	ck_assert_int_eq(stats_blob_clone(&dst, 7, src, 0), EINVAL);
	ck_assert_int_eq(stats_blob_clone(&dst, 256, src,
	    SB_CLONE_ALLOCDST | SB_CLONE_USRDST), EINVAL);
	ck_assert_int_eq(stats_blob_clone(&dst, 256, src,
	    SB_CLONE_ALLOCDST | SB_CLONE_USRDSTNOFAULT), EINVAL);
	memset(&small, 0, sizeof(small));
	small.abi = STATS_ABI_V1;
	small.cursz = 7;
	ck_assert_int_eq(stats_blob_clone(&dst, 256, &small, 0), EINVAL);
	/* The user-space flags are accepted and do nothing here. */
	mem.sb.maxsz = sizeof(mem);
	ck_assert_int_eq(stats_blob_clone(&dst, sizeof(mem), src,
	    SB_CLONE_USRDST), 0);
	ck_assert_int_eq(stats_blob_clone(&dst, sizeof(mem), src,
	    SB_CLONE_USRDSTNOFAULT), 0);
	stats_blob_destroy(src);
}
END_TEST

START_TEST(clone_allocdst)
{
	struct statsblob *src, *dst = NULL;
	int id = page_tpl();

	src = stats_blob_alloc((uint32_t)id, 0);
	ck_assert_int_eq(stats_voi_update_abs_u32(src, 2, 77), 0);
	ck_assert_int_eq(stats_blob_clone(&dst, 0, src, SB_CLONE_ALLOCDST), 0);
	ck_assert_ptr_nonnull(dst);
	ck_assert_ptr_ne(dst, src);
	ck_assert_uint_eq(dst->maxsz, src->cursz);
	ck_assert_int_eq(memcmp(dst, src, src->cursz), 0);
	stats_blob_destroy(dst);
	stats_blob_destroy(src);
}
END_TEST

START_TEST(clone_into_buffer_too_small)
{
	union { struct statsblob sb; uint8_t b[200]; } mem;
	struct statsblob *src, *dst = &mem.sb;
	size_t i;
	int id = page_tpl();

	src = stats_blob_alloc((uint32_t)id, 0);
	src->flags = 0x1234;
	memset(&mem, 0xa5, sizeof(mem));
	mem.sb.maxsz = 100;
	ck_assert_int_eq(stats_blob_clone(&dst, 135, src, 0), EOVERFLOW);
	/* Only the header, and not its maxsz: the caller reads cursz. */
	ck_assert_uint_eq(mem.sb.abi, STATS_ABI_V1);
	ck_assert_uint_eq(mem.sb.endian, src->endian);
	ck_assert_uint_eq(mem.sb.flags, 0x1234);
	ck_assert_uint_eq(mem.sb.cursz, 136);
	ck_assert_uint_eq(mem.sb.maxsz, 100);
	for (i = sizeof(struct statsblob); i < sizeof(mem); i++)
		ck_assert_uint_eq(mem.b[i], 0xa5);
	/* Snapshot says the same and leaves src alone under RSTSRC. */
	ck_assert_int_eq(stats_voi_update_abs_u32(src, 2, 5), 0);
	ck_assert_int_eq(stats_blob_snapshot(&dst, 8, src, SB_CLONE_RSTSRC),
	    EOVERFLOW);
	{
		uint32_t v;

		ck_assert_int_eq(stats_voistat_fetch_u32(src, 2, VS_STYPE_SUM,
		    &v), 0);
		ck_assert_uint_eq(v, 5);
	}
	/* Exactly big enough works and keeps the destination's maxsz. */
	mem.sb.maxsz = 200;
	ck_assert_int_eq(stats_blob_clone(&dst, 136, src, 0), 0);
	ck_assert_uint_eq(mem.sb.maxsz, 200);
	ck_assert_int_eq(memcmp(mem.b + 8, (uint8_t *)src + 8, 128), 0);
	ck_assert_uint_eq(mem.b[136], 0xa5);
	stats_blob_destroy(src);
}
END_TEST

/* The layout libstatsclient takes from statsd's blob while producers
 * flood it (store_reader_read_layout(): the data may be torn): whatever
 * updates wrote, the VOI states (the base of relative updates) included,
 * is reset, so a busy blob gives the same layout as a fresh one; a
 * broken structure is still refused. */
START_TEST(layout_clean_of_a_busy_blob)
{
	int id = rich_tpl();
	struct statsblob *busy = stats_blob_alloc((uint32_t)id, 0);
	struct statsblob *fresh = stats_blob_alloc((uint32_t)id, 0);
	size_t size = v1(busy)->cursz;

	feed_rich(busy, 50);
	ck_assert_int_ne(memcmp(busy, fresh, size), 0);
	ck_assert_ptr_null(blob_layout_clean(v1(busy), size));
	ck_assert_ptr_null(blob_layout_clean(v1(fresh), size));
	ck_assert_int_eq(memcmp(busy, fresh, size), 0);
	ck_assert_int_eq(v1(busy)->created, 0);
	ck_assert(!(blob_voistat(v1(busy), &v1(busy)->vois[0],
	    VS_STYPE_VOISTATE)->flags & VS_VSDVALID));
	/* Relative updates need a base again, as on a fresh blob. */
	ck_assert_int_eq(stats_blob_validate(busy, size), 0);
	v1(busy)->vois[2].id = 7;
	ck_assert_str_eq(blob_layout_clean(v1(busy), size),
	    "VOI id disagrees with its slot");
	ck_assert_ptr_nonnull(blob_layout_clean(v1(busy), SB_V1_HDRSZ - 1));
	stats_blob_destroy(busy);
	stats_blob_destroy(fresh);
}
END_TEST

START_TEST(snapshot_rstsrc_semantics)
{
	struct statsblob *src, *dst = NULL;
	int64_t created, lastrst, s64;
	uint32_t u32;
	struct timespec ts = { 0, 2000000 };
	int id = rich_tpl();

	src = stats_blob_alloc((uint32_t)id, 0);
	feed_rich(src, 20);
	created = v1(src)->created;
	lastrst = v1(src)->lastrst;
	nanosleep(&ts, NULL);
	ck_assert_int_eq(stats_blob_snapshot(&dst, 0, src,
	    SB_CLONE_ALLOCDST | SB_CLONE_RSTSRC), 0);
	/* The snapshot holds the values from before the reset. */
	ck_assert_int_eq(stats_voistat_fetch_s64(dst, 0, VS_STYPE_MAX, &s64),
	    0);
	ck_assert_int_eq(s64, 16);
	ck_assert_int_eq(stats_voistat_fetch_u32(dst, 2, VS_STYPE_SUM, &u32),
	    0);
	ck_assert_uint_eq(u32, 13 * 190);
	ck_assert_int_eq(v1(dst)->lastrst, lastrst);
	/* src: statistics back to their initial values ... */
	ck_assert_int_eq(stats_voistat_fetch_s64(src, 0, VS_STYPE_SUM, &s64),
	    0);
	ck_assert_int_eq(s64, 0);
	ck_assert_int_eq(stats_voistat_fetch_s64(src, 0, VS_STYPE_MAX, &s64),
	    0);
	ck_assert_int_eq(s64, INT64_MIN);
	ck_assert_int_eq(stats_voistat_fetch_s64(src, 0, VS_STYPE_MIN, &s64),
	    0);
	ck_assert_int_eq(s64, INT64_MAX);
	{
		struct voistatdata *vsd;
		s32q_t q;

		ck_assert_int_eq(stats_voistat_fetch_sq32(src, 4, VS_STYPE_SUM,
		    &q), 0);
		ck_assert_int_eq(q, 0);
		ck_assert_int_eq(stats_voistat_fetch_dptr(src, 2,
		    VS_STYPE_HIST, NULL, &vsd, NULL), 0);
		ck_assert_uint_eq(vsd->hist.crhist32.oob, 0);
		ck_assert_uint_eq(vsd->hist.crhist32.nbkts, 12);
		for (u32 = 0; u32 < 12; u32++) {
			ck_assert_uint_eq(vsd->hist.crhist32.bkts[u32].cnt, 0);
			ck_assert_int_eq(
			    vsd->hist.crhist32.bkts[u32].lb.int32.s32,
			    (int32_t)u32 * 10);	/* bounds kept */
		}
		/* ... the VOI state kept: the next relative update adds on. */
		ck_assert_int_eq(stats_voistat_fetch_dptr(src, 4,
		    VS_STYPE_VOISTATE, NULL, &vsd, NULL), 0);
		ck_assert_int_eq(vsd->voistate.prev.q32.sq32,
		    STATS_SQ32(10.0));
		ck_assert_int_eq(stats_voi_update_rel_sq32(src, 4,
		    STATS_SQ32(1.0)), 0);
		ck_assert_int_eq(stats_voistat_fetch_sq32(src, 4, VS_STYPE_SUM,
		    &q), 0);
		ck_assert_int_eq(q, STATS_SQ32(11.0));
	}
	/* ... lastrst moves, created does not, and no stat is valid. */
	ck_assert_int_eq(v1(src)->created, created);
	ck_assert_int_gt(v1(src)->lastrst, lastrst);
	{
		char *js = unit_tostr(src, SB_STRFMT_JSON, 0);

		ck_assert_ptr_nonnull(strstr(js, "\"[0]\":{\"stats\":{\"[1]\":"
		    "null,\"[2]\":null,\"[3]\":null}}"));
		free(js);
	}
	stats_blob_destroy(dst);
	stats_blob_destroy(src);
}
END_TEST

START_TEST(snapshot_and_reset_einval)
{
	struct statsblob *src, *dst = NULL;
	int id = page_tpl();

	src = stats_blob_alloc((uint32_t)id, 0);
	ck_assert_int_eq(stats_blob_snapshot(&dst, 0, NULL, SB_CLONE_ALLOCDST),
	    EINVAL);
	src->abi = 2;
	ck_assert_int_eq(stats_blob_snapshot(&dst, 0, src, SB_CLONE_ALLOCDST),
	    EINVAL);
	ck_assert_int_eq(stats_blob_reset(src), EINVAL);
	src->abi = STATS_ABI_V1;
	ck_assert_int_eq(stats_blob_reset(NULL), EINVAL);
	ck_assert_int_eq(stats_blob_snapshot(NULL, 0, src, 0), EINVAL);
	/* Without RSTSRC a snapshot leaves src as it was. */
	ck_assert_int_eq(stats_voi_update_abs_u32(src, 2, 9), 0);
	ck_assert_int_eq(stats_blob_snapshot(&dst, 0, src, SB_CLONE_ALLOCDST),
	    0);
	ck_assert_int_eq(memcmp(dst, src, src->cursz), 0);
	ck_assert_int_eq(stats_blob_reset(src), 0);
	{
		uint32_t v;

		ck_assert_int_eq(stats_voistat_fetch_u32(src, 2, VS_STYPE_MAX,
		    &v), 0);
		ck_assert_uint_eq(v, 0);
	}
	stats_blob_destroy(dst);
	stats_blob_destroy(src);
}
END_TEST

/* A blob copied with memcpy to another address can still be read. */
START_TEST(memcpy_to_another_address)
{
	struct statsblob *sb;
	uint8_t *arena;
	struct statsblob *copy;
	char *a, *b;
	uint64_t u64;
	double q;
	uint16_t sz;
	int id = rich_tpl();

	sb = stats_blob_alloc((uint32_t)id, 0);
	feed_rich(sb, 30);
	sz = sb->cursz;
	a = unit_tostr(sb, SB_STRFMT_JSON, SB_TOSTR_OBJDUMP);
	arena = aligned_alloc(64, 4096);
	copy = (struct statsblob *)(arena + 1024);
	memcpy(copy, sb, sz);
	memset(sb, 0x5a, sz);		/* the original is gone */
	stats_blob_destroy(sb);
	ck_assert_int_eq(stats_blob_validate(copy, sz), 0);
	b = unit_tostr(copy, SB_STRFMT_JSON, SB_TOSTR_OBJDUMP);
	ck_assert_str_eq(a, b);
	ck_assert_int_eq(stats_voistat_fetch_u64(copy, 3, VS_STYPE_MAX, &u64),
	    0);
	ck_assert_uint_eq(u64, 29 * 7);
	ck_assert_int_eq(stats_voistat_fetch_quantile(copy, 2, VS_STYPE_HIST,
	    0.5, &q), 0);
	ck_assert_double_eq(q, 110);	/* the open-ended top bucket */
	/* And updated in its new place. */
	ck_assert_int_eq(stats_voi_update_abs_u64(copy, 3, 100000), 0);
	ck_assert_int_eq(stats_voistat_fetch_u64(copy, 3, VS_STYPE_MAX, &u64),
	    0);
	ck_assert_uint_eq(u64, 100000);
	/* Moving it again, even to an odd 8-aligned offset, still works. */
	memmove(arena + 8, copy, sz);
	copy = (struct statsblob *)(arena + 8);
	ck_assert_int_eq(stats_voistat_fetch_u64(copy, 3, VS_STYPE_MAX, &u64),
	    0);
	ck_assert_uint_eq(u64, 100000);
	free(a);
	free(b);
	free(arena);
}
END_TEST

struct seen {
	int		n;
	int		stop_at;
	int16_t		voi[16];
	int8_t		stype[16];
	uint32_t	flags[16];
	uint8_t		voi_dtype[16];
	uint8_t		vs_dtype[16];
	int16_t		dsz[16];
	uint16_t	errs[16];
	uint32_t	hash[16];
	struct voistatdata *data[16];
};

static int
record(struct sb_visit *sbv, void *ctx)
{
	struct seen *s = ctx;

	ck_assert_int_lt(s->n, 16);
	s->voi[s->n] = sbv->voi_id;
	s->stype[s->n] = sbv->vs_stype;
	s->flags[s->n] = sbv->flags;
	s->voi_dtype[s->n] = sbv->voi_dtype;
	s->vs_dtype[s->n] = sbv->vs_dtype;
	s->dsz[s->n] = sbv->vs_dsz;
	s->errs[s->n] = sbv->vs_errs;
	s->hash[s->n] = sbv->tplhash;
	s->data[s->n] = sbv->vs_data;
	s->n++;
	return s->n == s->stop_at;
}

START_TEST(visit_order_and_flags)
{
	struct statsblob *sb;
	struct seen s;
	int id = page_tpl(), i;
	static const int16_t voi[] = { 0, 0, 2, 2 };
	static const int8_t st[] = { 0, 3, 1, 2 };
	static const uint32_t fl[] = {
	    SB_IT_FIRST_CB | SB_IT_FIRST_VOI | SB_IT_FIRST_VOISTAT,
	    SB_IT_FIRST_VOI | SB_IT_LAST_VOISTAT,
	    SB_IT_LAST_VOI | SB_IT_FIRST_VOISTAT,
	    SB_IT_LAST_VOI | SB_IT_LAST_VOISTAT | SB_IT_LAST_CB };
	static const uint8_t vdt[] = { VSD_DTYPE_INT_S64, VSD_DTYPE_INT_S64,
	    VSD_DTYPE_INT_U32, VSD_DTYPE_INT_U32 };
	static const uint8_t sdt[] = { VSD_DTYPE_VOISTATE, VSD_DTYPE_INT_S64,
	    VSD_DTYPE_INT_U32, VSD_DTYPE_INT_U32 };
	static const int16_t dsz[] = { 8, 8, 4, 4 };
	static const uint16_t off[] = { 120, 128, 112, 116 };

	sb = stats_blob_alloc((uint32_t)id, 0);
	memset(&s, 0, sizeof(s));
	ck_assert_int_eq(stats_blob_visit(sb, record, &s), 0);
	ck_assert_int_eq(s.n, 4);
	for (i = 0; i < 4; i++) {
		ck_assert_int_eq(s.voi[i], voi[i]);
		ck_assert_int_eq(s.stype[i], st[i]);
		ck_assert_uint_eq(s.flags[i], fl[i]);
		ck_assert_uint_eq(s.voi_dtype[i], vdt[i]);
		ck_assert_uint_eq(s.vs_dtype[i], sdt[i]);
		ck_assert_int_eq(s.dsz[i], dsz[i]);
		ck_assert_uint_eq(s.errs[i], 0);
		ck_assert_uint_eq(s.hash[i], v1(sb)->tplhash);
		ck_assert_ptr_eq(s.data[i], (uint8_t *)sb + off[i]);
	}
	/* A non-zero return stops the walk; visit still returns 0. */
	memset(&s, 0, sizeof(s));
	s.stop_at = 2;
	ck_assert_int_eq(stats_blob_visit(sb, record, &s), 0);
	ck_assert_int_eq(s.n, 2);
	ck_assert_int_eq(stats_blob_visit(NULL, record, &s), EINVAL);
	ck_assert_int_eq(stats_blob_visit(sb, NULL, &s), EINVAL);
	sb->abi = 0;
	ck_assert_int_eq(stats_blob_visit(sb, record, &s), EINVAL);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(visit_single_and_errs)
{
	struct statsblob *sb;
	struct seen s;
	int id = unit_tpl("single"), i;

	UNIT_ADD(id, 3, "q", VSD_DTYPE_Q_U32, 0, STATS_VSS_SUM());
	sb = stats_blob_alloc((uint32_t)id, 0);
	ck_assert_int_eq(stats_voi_update_abs_uq32(sb, 3, UINT32_MAX), 0);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(stats_voi_update_abs_uq32(sb, 3, 1),
		    EOVERFLOW);
	memset(&s, 0, sizeof(s));
	ck_assert_int_eq(stats_blob_visit(sb, record, &s), 0);
	ck_assert_int_eq(s.n, 1);
	ck_assert_int_eq(s.voi[0], 3);
	ck_assert_uint_eq(s.flags[0], SB_IT_FIRST_CB | SB_IT_LAST_CB |
	    SB_IT_FIRST_VOI | SB_IT_LAST_VOI | SB_IT_FIRST_VOISTAT |
	    SB_IT_LAST_VOISTAT);
	ck_assert_uint_eq(s.errs[0], 3);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(fetch_dptr_paths)
{
	struct statsblob *sb;
	struct voistatdata *vsd = NULL;
	enum vsd_dtype dt = 0;
	size_t sz = 0;
	int id = page_tpl();

	sb = stats_blob_alloc((uint32_t)id, 0);
	ck_assert_int_eq(stats_voistat_fetch_dptr(sb, 2, VS_STYPE_MAX, &dt,
	    &vsd, &sz), 0);
	ck_assert_ptr_eq(vsd, (uint8_t *)sb + 116);
	ck_assert_int_eq(dt, VSD_DTYPE_INT_U32);
	ck_assert_uint_eq(sz, 4);
	ck_assert_int_eq(stats_voistat_fetch_dptr(sb, 0, VS_STYPE_VOISTATE,
	    NULL, &vsd, NULL), 0);
	ck_assert_ptr_eq(vsd, (uint8_t *)sb + 120);
	ck_assert_int_eq(stats_voistat_fetch_dptr(NULL, 2, VS_STYPE_MAX, &dt,
	    &vsd, &sz), EINVAL);
	ck_assert_int_eq(stats_voistat_fetch_dptr(sb, 2, VS_STYPE_MAX, &dt,
	    NULL, &sz), EINVAL);
	ck_assert_int_eq(stats_voistat_fetch_dptr(sb, -1, VS_STYPE_MAX, &dt,
	    &vsd, &sz), EINVAL);
	ck_assert_int_eq(stats_voistat_fetch_dptr(sb, 3, VS_STYPE_MAX, &dt,
	    &vsd, &sz), EINVAL);
	ck_assert_int_eq(stats_voistat_fetch_dptr(sb, 1, VS_STYPE_MAX, &dt,
	    &vsd, &sz), EINVAL);	/* vacant VOI */
	ck_assert_int_eq(stats_voistat_fetch_dptr(sb, 0, VS_STYPE_SUM, &dt,
	    &vsd, &sz), EINVAL);	/* vacant stat slot */
	ck_assert_int_eq(stats_voistat_fetch_dptr(sb, 2, VS_STYPE_MIN, &dt,
	    &vsd, &sz), EINVAL);	/* beyond voistatmaxid */
	ck_assert_int_eq(stats_voistat_fetch_dptr(sb, 2, VS_STYPE_VOISTATE,
	    &dt, &vsd, &sz), EINVAL);	/* no VOI state without RELUPDATE */
	ck_assert_int_eq(stats_voistat_fetch_dptr(sb, 2, (enum voi_stype)-1,
	    &dt, &vsd, &sz), EINVAL);
	sb->abi = 9;
	ck_assert_int_eq(stats_voistat_fetch_dptr(sb, 2, VS_STYPE_MAX, &dt,
	    &vsd, &sz), EINVAL);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(fetch_every_type_and_eftype)
{
	struct statsblob *sb;
	int32_t s32;
	uint32_t u32;
	int64_t s64;
	uint64_t u64;
	long sl;
	unsigned long ul;
	s32q_t sq32;
	u32q_t uq32;
	s64q_t sq64;
	u64q_t uq64;
	int id = unit_tpl("types"), v;

	for (v = 0; v < 10; v++)
		UNIT_ADD(id, v, "", (enum vsd_dtype)(VSD_DTYPE_INT_S32 + v), 0,
		    STATS_VSS_SUM());
	sb = stats_blob_alloc((uint32_t)id, 0);
	ck_assert_int_eq(stats_voi_update_abs_s32(sb, 0, -5), 0);
	ck_assert_int_eq(stats_voi_update_abs_u32(sb, 1, 5), 0);
	ck_assert_int_eq(stats_voi_update_abs_s64(sb, 2, -6), 0);
	ck_assert_int_eq(stats_voi_update_abs_u64(sb, 3, 6), 0);
	ck_assert_int_eq(stats_voi_update_abs_slong(sb, 4, -7), 0);
	ck_assert_int_eq(stats_voi_update_abs_ulong(sb, 5, 7), 0);
	ck_assert_int_eq(stats_voi_update_abs_sq32(sb, 6, STATS_SQ32(-1.5)), 0);
	ck_assert_int_eq(stats_voi_update_abs_uq32(sb, 7, STATS_UQ32(1.5)), 0);
	ck_assert_int_eq(stats_voi_update_abs_sq64(sb, 8, STATS_SQ64(-2.5)), 0);
	ck_assert_int_eq(stats_voi_update_abs_uq64(sb, 9, STATS_UQ64(2.5)), 0);
	ck_assert_int_eq(stats_voistat_fetch_s32(sb, 0, VS_STYPE_SUM, &s32), 0);
	ck_assert_int_eq(s32, -5);
	ck_assert_int_eq(stats_voistat_fetch_u32(sb, 1, VS_STYPE_SUM, &u32), 0);
	ck_assert_uint_eq(u32, 5);
	ck_assert_int_eq(stats_voistat_fetch_s64(sb, 2, VS_STYPE_SUM, &s64), 0);
	ck_assert_int_eq(s64, -6);
	ck_assert_int_eq(stats_voistat_fetch_u64(sb, 3, VS_STYPE_SUM, &u64), 0);
	ck_assert_uint_eq(u64, 6);
	ck_assert_int_eq(stats_voistat_fetch_slong(sb, 4, VS_STYPE_SUM, &sl), 0);
	ck_assert_int_eq(sl, -7);
	ck_assert_int_eq(stats_voistat_fetch_ulong(sb, 5, VS_STYPE_SUM, &ul), 0);
	ck_assert_uint_eq(ul, 7);
	ck_assert_int_eq(stats_voistat_fetch_sq32(sb, 6, VS_STYPE_SUM, &sq32),
	    0);
	ck_assert_int_eq(sq32, STATS_SQ32(-1.5));
	ck_assert_int_eq(stats_voistat_fetch_uq32(sb, 7, VS_STYPE_SUM, &uq32),
	    0);
	ck_assert_uint_eq(uq32, STATS_UQ32(1.5));
	ck_assert_int_eq(stats_voistat_fetch_sq64(sb, 8, VS_STYPE_SUM, &sq64),
	    0);
	ck_assert_int_eq(sq64, STATS_SQ64(-2.5));
	ck_assert_int_eq(stats_voistat_fetch_uq64(sb, 9, VS_STYPE_SUM, &uq64),
	    0);
	ck_assert_uint_eq(uq64, STATS_UQ64(2.5));
	/* EFTYPE: another type, even one of the same size. */
	ck_assert_int_eq(stats_voistat_fetch_u32(sb, 0, VS_STYPE_SUM, &u32),
	    EFTYPE);
	ck_assert_int_eq(stats_voistat_fetch_sq32(sb, 0, VS_STYPE_SUM, &sq32),
	    EFTYPE);
	ck_assert_int_eq(stats_voistat_fetch_s64(sb, 3, VS_STYPE_SUM, &s64),
	    EFTYPE);
	ck_assert_int_eq(stats_voistat_fetch_u64(sb, 5, VS_STYPE_SUM, &u64),
	    EFTYPE);
	/* EFTYPE for an absent statistic of a present VOI, as FreeBSD. */
	ck_assert_int_eq(stats_voistat_fetch_s32(sb, 0, VS_STYPE_MAX, &s32),
	    EFTYPE);
	ck_assert_int_eq(stats_voistat_fetch_s32(sb, 0, VS_STYPE_TDGST, &s32),
	    EFTYPE);
	/* EINVAL: no such VOI, NULL, a wrong size or a non-scalar type. */
	ck_assert_int_eq(stats_voistat_fetch_s32(sb, 10, VS_STYPE_SUM, &s32),
	    EINVAL);
	ck_assert_int_eq(stats_voistat_fetch_s32(sb, -1, VS_STYPE_SUM, &s32),
	    EINVAL);
	ck_assert_int_eq(stats_voistat_fetch_s32(NULL, 0, VS_STYPE_SUM, &s32),
	    EINVAL);
	ck_assert_int_eq(stats_voistat_fetch_s32(sb, 0, VS_STYPE_SUM, NULL),
	    EINVAL);
	ck_assert_int_eq(stats_voistat_fetch_typed(sb, 0, VS_STYPE_SUM,
	    VSD_DTYPE_INT_S32, &s64, sizeof(s64)), EINVAL);
	ck_assert_int_eq(stats_voistat_fetch_typed(sb, 0, VS_STYPE_SUM,
	    VSD_DTYPE_CRHIST32, &s64, 8), EINVAL);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(quantile_cdf_arguments)
{
	struct statsblob *sb;
	double r = -1;
	int id = rich_tpl();

	sb = stats_blob_alloc((uint32_t)id, 0);
	ck_assert_int_eq(stats_voistat_fetch_quantile(sb, 2, VS_STYPE_HIST,
	    0.5, &r), ENODATA);
	ck_assert_int_eq(stats_voistat_fetch_cdf(sb, 2, VS_STYPE_HIST, 5, &r),
	    ENODATA);
	ck_assert_int_eq(stats_voistat_fetch_quantile(sb, 2, VS_STYPE_SUM,
	    0.5, &r), EINVAL);
	ck_assert_int_eq(stats_voistat_fetch_cdf(sb, 2, VS_STYPE_SUM, 1, &r),
	    EINVAL);
	ck_assert_int_eq(stats_voistat_fetch_quantile(sb, 2, VS_STYPE_HIST,
	    -0.01, &r), EINVAL);
	ck_assert_int_eq(stats_voistat_fetch_quantile(sb, 2, VS_STYPE_HIST,
	    1.01, &r), EINVAL);
	ck_assert_int_eq(stats_voistat_fetch_quantile(sb, 2, VS_STYPE_HIST,
	    NAN, &r), EINVAL);
	ck_assert_int_eq(stats_voistat_fetch_cdf(sb, 2, VS_STYPE_HIST, NAN,
	    &r), EINVAL);
	ck_assert_int_eq(stats_voistat_fetch_quantile(sb, 2, VS_STYPE_HIST,
	    0.5, NULL), EINVAL);
	ck_assert_int_eq(stats_voistat_fetch_quantile(NULL, 2, VS_STYPE_HIST,
	    0.5, &r), EINVAL);
	ck_assert_int_eq(stats_voistat_fetch_quantile(sb, 1, VS_STYPE_HIST,
	    0.5, &r), EINVAL);
	ck_assert_int_eq(stats_voistat_fetch_quantile(sb, 0, VS_STYPE_HIST,
	    0.5, &r), EINVAL);
	ck_assert_int_eq(stats_voistat_fetch_quantile(sb, 2,
	    VS_STYPE_VOISTATE, 0.5, &r), EINVAL);
	ck_assert_double_eq(r, -1);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(merge_combines_every_kind)
{
	struct statsblob *a, *b;
	struct voistatdata *vsd;
	int64_t s64;
	uint64_t u64;
	uint32_t u32;
	s32q_t q;
	int id = rich_tpl();

	a = stats_blob_alloc((uint32_t)id, 0);
	b = stats_blob_alloc((uint32_t)id, 0);
	ck_assert_int_eq(stats_voi_update_abs_s64(a, 0, 10), 0);
	ck_assert_int_eq(stats_voi_update_abs_s64(a, 0, -2), 0);
	ck_assert_int_eq(stats_voi_update_abs_s64(b, 0, 50), 0);
	ck_assert_int_eq(stats_voi_update_abs_s64(b, 0, -9), 0);
	ck_assert_int_eq(stats_voi_update_abs_u32(a, 2, 5), 0);
	ck_assert_int_eq(stats_voi_update_abs_u32(b, 2, 15), 0);
	ck_assert_int_eq(stats_voi_update_abs_u32(b, 2, 17), 0);
	ck_assert_int_eq(stats_voi_update_abs_u64(b, 3, 15), 0);	/* oob */
	ck_assert_int_eq(stats_voi_update_abs_u64(b, 3, 5), 0);
	ck_assert_int_eq(stats_voi_update_rel_sq32(a, 4, STATS_SQ32(1.25)), 0);
	ck_assert_int_eq(stats_voi_update_rel_sq32(b, 4, STATS_SQ32(100)), 0);
	ck_assert_int_eq(stats_blob_merge(a, b, 0), 0);
	ck_assert_int_eq(stats_voistat_fetch_s64(a, 0, VS_STYPE_SUM, &s64), 0);
	ck_assert_int_eq(s64, 10 - 2 + 50 - 9);
	ck_assert_int_eq(stats_voistat_fetch_s64(a, 0, VS_STYPE_MAX, &s64), 0);
	ck_assert_int_eq(s64, 50);
	ck_assert_int_eq(stats_voistat_fetch_s64(a, 0, VS_STYPE_MIN, &s64), 0);
	ck_assert_int_eq(s64, -9);
	ck_assert_int_eq(stats_voistat_fetch_u32(a, 2, VS_STYPE_SUM, &u32), 0);
	ck_assert_uint_eq(u32, 37);
	ck_assert_int_eq(stats_voistat_fetch_dptr(a, 2, VS_STYPE_HIST, NULL,
	    &vsd, NULL), 0);
	ck_assert_uint_eq(vsd->hist.crhist32.bkts[0].cnt, 1);
	ck_assert_uint_eq(vsd->hist.crhist32.bkts[1].cnt, 2);
	/* b's MAX and HIST become a's: they were never valid in a. */
	ck_assert_int_eq(stats_voistat_fetch_u64(a, 3, VS_STYPE_MAX, &u64), 0);
	ck_assert_uint_eq(u64, 15);
	ck_assert_int_eq(stats_voistat_fetch_dptr(a, 3, VS_STYPE_HIST, NULL,
	    &vsd, NULL), 0);
	ck_assert_uint_eq(vsd->hist.drhist64.oob, 1);
	ck_assert_uint_eq(vsd->hist.drhist64.bkts[0].cnt, 1);
	ck_assert_int_eq(stats_voistat_fetch_sq32(a, 4, VS_STYPE_SUM, &q), 0);
	ck_assert_int_eq(q, STATS_SQ32(101.25));
	/* VOISTATE keeps dst's. */
	ck_assert_int_eq(stats_voistat_fetch_dptr(a, 4, VS_STYPE_VOISTATE,
	    NULL, &vsd, NULL), 0);
	ck_assert_int_eq(vsd->voistate.prev.q32.sq32, STATS_SQ32(1.25));
	/* Valid flags now reflect the merged data. */
	{
		char *js = unit_tostr(a, SB_STRFMT_JSON, SB_TOSTR_META);

		ck_assert_ptr_nonnull(strstr(js, "\"dr\":{\"stats\":{\"MAX\":"
		    "{\"errs\":0,\"val\":15}"));
		ck_assert_ptr_nonnull(strstr(js, "\"dv\":{\"stats\":{\"HIST\":"
		    "null}}"));
		free(js);
	}
	stats_blob_destroy(a);
	stats_blob_destroy(b);
}
END_TEST

START_TEST(merge_skips_invalid_src_stats)
{
	struct statsblob *a, *b;
	int64_t s64;
	int id = rich_tpl();

	a = stats_blob_alloc((uint32_t)id, 0);
	b = stats_blob_alloc((uint32_t)id, 0);
	ck_assert_int_eq(stats_blob_merge(a, b, 0), 0);
	ck_assert_int_eq(stats_voistat_fetch_s64(a, 0, VS_STYPE_MIN, &s64), 0);
	ck_assert_int_eq(s64, INT64_MAX);
	{
		char *js = unit_tostr(a, SB_STRFMT_JSON, 0);

		ck_assert_ptr_null(strstr(js, "errs"));
		free(js);
	}
	stats_blob_destroy(a);
	stats_blob_destroy(b);
}
END_TEST

START_TEST(merge_einval)
{
	struct statsblob *a, *b, *c;
	int id = rich_tpl(), id2 = page_tpl(), id3;

	a = stats_blob_alloc((uint32_t)id, 0);
	b = stats_blob_alloc((uint32_t)id2, 0);
	ck_assert_int_eq(stats_blob_merge(a, b, 0), EINVAL);
	ck_assert_int_eq(stats_blob_merge(b, a, 0), EINVAL);
	ck_assert_int_eq(stats_blob_merge(NULL, a, 0), EINVAL);
	ck_assert_int_eq(stats_blob_merge(a, NULL, 0), EINVAL);
	/* Same layout, another template: the hashes differ. */
	id3 = page_tpl();
	c = stats_blob_alloc((uint32_t)id3, 0);
	ck_assert_int_eq(b->cursz, c->cursz);
	ck_assert_int_eq(stats_blob_merge(b, c, 0), EINVAL);
	/* Same hash but a tampered VOI table or statistic. */
	stats_blob_destroy(c);
	c = stats_blob_alloc((uint32_t)id2, 0);
	v1(c)->vois[2].flags = VOI_REQSTATE;
	ck_assert_int_eq(stats_blob_merge(b, c, 0), EINVAL);
	v1(c)->vois[2].flags = 0;
	blob_voistat(v1(c), &v1(c)->vois[2], VS_STYPE_SUM)->dsz = 8;
	ck_assert_int_eq(stats_blob_merge(b, c, 0), EINVAL);
	blob_voistat(v1(c), &v1(c)->vois[2], VS_STYPE_SUM)->dsz = 4;
	c->abi = 0;
	ck_assert_int_eq(stats_blob_merge(b, c, 0), EINVAL);
	c->abi = STATS_ABI_V1;
	ck_assert_int_eq(stats_blob_merge(b, c, 0), 0);
	stats_blob_destroy(a);
	stats_blob_destroy(b);
	stats_blob_destroy(c);
}
END_TEST

START_TEST(merge_overflow_leaves_dst_unchanged)
{
	struct statsblob *a, *b;
	uint8_t before[1024];
	int id = rich_tpl();

	a = stats_blob_alloc((uint32_t)id, 0);
	b = stats_blob_alloc((uint32_t)id, 0);
	s32q_t q;

	feed_rich(a, 5);
	ck_assert_int_eq(stats_voistat_fetch_sq32(a, 4, VS_STYPE_SUM, &q), 0);
	ck_assert_int_eq(stats_voi_update_abs_sq32(a, 4, INT32_MAX - q - 100),
	    0);
	ck_assert_int_eq(stats_voi_update_abs_sq32(b, 4, 101), 0);
	memcpy(before, a, a->cursz);
	ck_assert_int_eq(stats_blob_merge(a, b, 0), EOVERFLOW);
	ck_assert_int_eq(memcmp(before, a, a->cursz), 0);
	stats_blob_destroy(a);
	stats_blob_destroy(b);
}
END_TEST

/*
 * Regression: stats_blob_merge promises EOVERFLOW when a sum would
 * overflow; integer sums wrapped silently instead.
 */
START_TEST(merge_integer_sum_overflow_is_eoverflow)
{
	struct statsblob *a, *b;
	uint8_t before[1024];
	int id = rich_tpl();

	a = stats_blob_alloc((uint32_t)id, 0);
	b = stats_blob_alloc((uint32_t)id, 0);
	ck_assert_int_eq(stats_voi_update_abs_u32(a, 2, UINT32_MAX - 1), 0);
	ck_assert_int_eq(stats_voi_update_abs_u32(b, 2, 2), 0);
	memcpy(before, a, a->cursz);
	ck_assert_int_eq(stats_blob_merge(a, b, 0), EOVERFLOW);
	ck_assert_int_eq(memcmp(before, a, a->cursz), 0);
	stats_blob_destroy(b);
	b = stats_blob_alloc((uint32_t)id, 0);
	ck_assert_int_eq(stats_voi_update_abs_s64(a, 0, INT64_MIN), 0);
	ck_assert_int_eq(stats_voi_update_abs_s64(b, 0, -1), 0);
	ck_assert_int_eq(stats_blob_merge(a, b, 0), EOVERFLOW);
	stats_blob_destroy(a);
	stats_blob_destroy(b);
}
END_TEST

/* Copy a fresh blob into an exact-size heap buffer. */
static struct statsblob *
exact_copy(const struct statsblob *sb)
{
	struct statsblob *c = malloc(sb->cursz);

	memcpy(c, sb, sb->cursz);
	return c;
}

static void
ck_rejects(struct statsblob *sb, size_t len, const char *what)
{
	const char *why = stats_blob_validate_why(sb, len);

	ck_assert_msg(why != NULL, "accepted: %s", what);
	ck_assert_int_eq(stats_blob_validate(sb, len), EINVAL);
}

START_TEST(validate_crafted_corruptions)
{
	struct statsblob *good, *c;
	struct statsblobv1 *b;
	struct voistat *vs;
	size_t len;
	int id = rich_tpl();

	good = stats_blob_alloc((uint32_t)id, 0);
	feed_rich(good, 10);
	len = good->cursz;
	ck_assert_int_eq(stats_blob_validate(good, len), 0);
	ck_assert_ptr_null(stats_blob_validate_why(good, len));
	ck_assert_int_eq(stats_blob_validate(good, len + 100), 0);
	ck_rejects(good, len - 1, "len below cursz");
	ck_rejects(good, 31, "len below the header");
	ck_rejects(NULL, 1000, "NULL");

#define CORRUPT(what, stmt) do {					\
	c = exact_copy(good);						\
	b = v1(c);							\
	stmt;								\
	ck_rejects(c, len, what);					\
	free(c);							\
} while (0)
	CORRUPT("abi", c->abi = 2);
	CORRUPT("endian", c->endian = SB_BE);
	CORRUPT("cursz small", c->cursz = 31);
	CORRUPT("maxsz below cursz", c->maxsz = (uint16_t)(c->cursz - 1));
	CORRUPT("stats_off low", b->stats_off = 24);
	CORRUPT("stats_off unaligned", b->stats_off = 33);
	CORRUPT("stats_off past data", b->stats_off = b->statsdata_off + 8);
	CORRUPT("statsdata_off past end", b->statsdata_off = c->cursz + 1);
	CORRUPT("vacant id", b->vois[1].id = -2);
	CORRUPT("id vs slot", b->vois[2].id = 3);
	CORRUPT("voi dtype", b->vois[2].dtype = VSD_DTYPE_CRHIST32);
	CORRUPT("voi dtype 0", b->vois[2].dtype = 0);
	CORRUPT("voistatmaxid", b->vois[2].voistatmaxid = -1);
	CORRUPT("voistatmaxid big", b->vois[2].voistatmaxid = 100);
	CORRUPT("voi stats_off low", b->vois[2].stats_off = 8);
	CORRUPT("voi stats_off unaligned",
	    b->vois[2].stats_off = (uint16_t)(b->vois[2].stats_off + 2));
	CORRUPT("voi stats_off high", b->vois[2].stats_off = b->statsdata_off);
	CORRUPT("voi flags", b->vois[2].flags = 0x80);
	CORRUPT("stat in wrong slot",
	    blob_voistat(b, &b->vois[2], 1)->stype = 4);
	CORRUPT("data past cursz",
	    blob_voistat(b, &b->vois[2], 1)->data_off = (uint16_t)(c->cursz - 2));
	CORRUPT("data before region",
	    blob_voistat(b, &b->vois[2], 1)->data_off = 16);
	CORRUPT("data unaligned", blob_voistat(b, &b->vois[0], 1)->data_off =
	    (uint16_t)(blob_voistat(b, &b->vois[0], 1)->data_off + 2));
	CORRUPT("8-byte data on 4", blob_voistat(b, &b->vois[0], 1)->data_off =
	    (uint16_t)(blob_voistat(b, &b->vois[0], 1)->data_off + 4));
	CORRUPT("scalar size", blob_voistat(b, &b->vois[2], 1)->dsz = 8);
	CORRUPT("scalar dtype", blob_voistat(b, &b->vois[2], 1)->dtype =
	    VSD_DTYPE_INT_S32);
	CORRUPT("stat dtype out of range",
	    blob_voistat(b, &b->vois[2], 1)->dtype = 200);
	CORRUPT("voistate dtype",
	    blob_voistat(b, &b->vois[0], 0)->dtype = VSD_DTYPE_INT_S64);
	CORRUPT("voistate without REQSTATE", b->vois[0].flags = 0);
	/* Histograms: size, count, type and flags. */
	vs = blob_voistat(v1(good), &v1(good)->vois[2], VS_STYPE_HIST);
	CORRUPT("hist dsz", blob_voistat(b, &b->vois[2], 4)->dsz =
	    (uint16_t)(vs->dsz - 16));
	CORRUPT("hist nbkts", blob_vsd(b, blob_voistat(b, &b->vois[2],
	    4))->hist.crhist32.nbkts = 11);
	CORRUPT("hist voi dtype", blob_vsd(b, blob_voistat(b, &b->vois[2],
	    4))->hist.crhist32.voi_dtype = VSD_DTYPE_INT_S32);
	CORRUPT("hist flags", blob_vsd(b, blob_voistat(b, &b->vois[2],
	    4))->hist.crhist32.hflags |= 0x10);
	CORRUPT("hist tiny", blob_voistat(b, &b->vois[2], 4)->dsz = 4);
	CORRUPT("hist as scalar", blob_voistat(b, &b->vois[2], 4)->dtype =
	    VSD_DTYPE_INT_U32);
	CORRUPT("scalar as hist", blob_voistat(b, &b->vois[2], 1)->dtype =
	    VSD_DTYPE_CRHIST32);
	CORRUPT("hist as digest", blob_voistat(b, &b->vois[2], 4)->dtype =
	    VSD_DTYPE_TDGSTCLUST32);
#undef CORRUPT
	stats_blob_destroy(good);
}
END_TEST

/*
 * Regression: a VOI flagged for relative updates whose VOI-state slot was
 * vacant passed validation, and the next update wrote the previous value
 * through that vacant slot's (unchecked) data offset.
 */
START_TEST(validate_reqstate_needs_voistate)
{
	struct statsblob *good, *c;
	struct voistat *vs;
	int id = rich_tpl();

	good = stats_blob_alloc((uint32_t)id, 0);
	c = exact_copy(good);
	vs = blob_voistat(v1(c), &v1(c)->vois[0], VS_STYPE_VOISTATE);
	vs->stype = -1;
	vs->data_off = 0xfff0;
	ck_assert_ptr_nonnull(stats_blob_validate_why(c, c->cursz));
	ck_assert_int_eq(stats_blob_validate(c, c->cursz), EINVAL);
	free(c);
	stats_blob_destroy(good);
}
END_TEST

/*
 * Regression: two statistics whose data overlap passed validation; an
 * update of one then rewrote the other's bucket count, and the next reset
 * ran off the end of the blob.
 */
START_TEST(validate_rejects_overlapping_data)
{
	struct statsblob *good, *c;
	struct statsblobv1 *b;
	int id = rich_tpl();

	good = stats_blob_alloc((uint32_t)id, 0);
	c = exact_copy(good);
	b = v1(c);
	/* Point VOI 2's SUM at its histogram's header. */
	blob_voistat(b, &b->vois[2], VS_STYPE_SUM)->data_off =
	    blob_voistat(b, &b->vois[2], VS_STYPE_HIST)->data_off;
	ck_rejects(c, c->cursz, "overlap");
	free(c);
	c = exact_copy(good);
	b = v1(c);
	/* Or the VOI state of VOI 0 at its own SUM. */
	blob_voistat(b, &b->vois[0], VS_STYPE_VOISTATE)->data_off =
	    blob_voistat(b, &b->vois[0], VS_STYPE_SUM)->data_off;
	ck_rejects(c, c->cursz, "overlap");
	free(c);
	stats_blob_destroy(good);
}
END_TEST

/* Everything a reader might do with a blob it was told is valid. */
static int
count_cb(struct sb_visit *sbv, void *ctx)
{
	(void)sbv;
	(*(int *)ctx)++;
	return 0;
}

static void
exercise(struct statsblob *sb, struct statsblob *pristine)
{
	static const enum sb_str_fmt fmts[] = { SB_STRFMT_FREEFORM,
	    SB_STRFMT_JSON };
	struct statsblob *snap = NULL;
	struct voistatdata_numeric n;
	struct voistatdata *vsd;
	struct sbuf *s;
	double r;
	int f, fl, v, st, dt, n_cb = 0;

	for (f = 0; f < 2; f++) {
		for (fl = 0; fl < 4; fl++) {
			s = sbuf_new_auto();
			(void)stats_blob_tostr(sb, s, fmts[f], (uint32_t)fl);
			sbuf_delete(s);
		}
	}
	(void)stats_blob_visit(sb, count_cb, &n_cb);
	for (v = -1; v < 8; v++) {
		for (st = 0; st < 6; st++) {
			size_t sz;
			enum vsd_dtype rdt;

			if (stats_voistat_fetch_dptr(sb, v, (enum voi_stype)st,
			    &rdt, &vsd, &sz) == 0) {
				s = sbuf_new_auto();
				(void)stats_voistatdata_tostr(vsd, rdt,
				    SB_STRFMT_JSON, s, 1);
				sbuf_delete(s);
			}
			(void)stats_voistat_fetch_quantile(sb, v,
			    (enum voi_stype)st, 0.5, &r);
			(void)stats_voistat_fetch_cdf(sb, v,
			    (enum voi_stype)st, 3.0, &r);
		}
		for (dt = VSD_DTYPE_INT_S32; dt <= VSD_DTYPE_Q_U64; dt++) {
			n = stats_ctor_vsd_numeric(17);
			(void)stats_voi_update_xy(sb, v, (enum vsd_dtype)dt, &n,
			    3, 0);
			n = stats_ctor_vsd_numeric(1);
			(void)stats_voi_update_xy(sb, v, (enum vsd_dtype)dt, &n,
			    1, SB_VOI_RELUPDATE);
		}
	}
	(void)stats_blob_merge(sb, pristine, 0);
	(void)stats_blob_merge(pristine, sb, 0);
	if (stats_blob_snapshot(&snap, 0, sb, SB_CLONE_ALLOCDST |
	    SB_CLONE_RSTSRC) == 0)
		stats_blob_destroy(snap);
}

/*
 * Flip 1 to 4 random bits of a copy of good, n times: validation must
 * answer (with a reason when it refuses), and whatever it accepts must be
 * safe to read, update, render, merge and snapshot. Each copy sits in an
 * exact-size allocation, so AddressSanitizer sees any stray access.
 */
static void
fuzz(struct statsblob *good, int n, uint64_t seed)
{
	struct statsblob *c, *pristine;
	size_t len = good->cursz, pos;
	int i, k, accepted = 0;

	for (i = 0; i < n; i++) {
		int nflip = 1 + (int)(unit_rnd(&seed) % 4);
		const char *why;

		c = exact_copy(good);
		for (k = 0; k < nflip; k++) {
			/* Half the flips land in the header and tables. */
			if (unit_rnd(&seed) & 1)
				pos = unit_rnd(&seed) % v1(good)->statsdata_off;
			else
				pos = unit_rnd(&seed) % len;
			((uint8_t *)c)[pos] ^= (uint8_t)(1u <<
			    (unit_rnd(&seed) % 8));
		}
		why = stats_blob_validate_why(c, len);
		ck_assert_int_eq(stats_blob_validate(c, len),
		    why == NULL ? 0 : EINVAL);
		if (why == NULL) {
			accepted++;
			pristine = exact_copy(good);
			exercise(c, pristine);
			free(pristine);
		} else {
			ck_assert(why[0] != '\0');
		}
		free(c);
	}
	/* Some corruptions are harmless (counts, values): they pass. */
	ck_assert_int_gt(accepted, 0);
	ck_assert_int_lt(accepted, n);
}

START_TEST(validate_random_flips_never_crash)
{
	struct statsblob *good;
	int id = rich_tpl(), i;

	good = stats_blob_alloc((uint32_t)id, 0);
	feed_rich(good, 25);
	fuzz(good, 4000, 0x5eedf00dULL);
	stats_blob_destroy(good);
	/* t-digests too. */
	id = unit_tpl("digests");
	UNIT_ADD(id, 0, "n", VSD_DTYPE_INT_U32, 0, STATS_VSS_MAX(),
	    STATS_VSS_TDGSTCLUST32(8, 4));
	UNIT_ADD(id, 1, "w", VSD_DTYPE_Q_S64, SB_VOI_RELUPDATE,
	    STATS_VSS_TDGSTCLUST64(6, 4));
	good = stats_blob_alloc((uint32_t)id, 0);
	for (i = 0; i < 50; i++) {
		ck_assert_int_eq(stats_voi_update_abs_u32(good, 0,
		    (uint32_t)(i * 37 % 101)), 0);
		ck_assert_int_eq(stats_voi_update_rel_sq64(good, 1,
		    STATS_SQ64(0.5)), 0);
	}
	fuzz(good, 1500, 0xd16e57ULL);
	stats_blob_destroy(good);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("blob");
	TCase *tc = tcase_create("blob");

	tcase_add_test(tc, alloc_init_destroy);
	tcase_add_test(tc, clone_einval);
	tcase_add_test(tc, clone_allocdst);
	tcase_add_test(tc, clone_into_buffer_too_small);
	tcase_add_test(tc, snapshot_rstsrc_semantics);
	tcase_add_test(tc, layout_clean_of_a_busy_blob);
	tcase_add_test(tc, snapshot_and_reset_einval);
	tcase_add_test(tc, memcpy_to_another_address);
	tcase_add_test(tc, visit_order_and_flags);
	tcase_add_test(tc, visit_single_and_errs);
	tcase_add_test(tc, fetch_dptr_paths);
	tcase_add_test(tc, fetch_every_type_and_eftype);
	tcase_add_test(tc, quantile_cdf_arguments);
	tcase_add_test(tc, merge_combines_every_kind);
	tcase_add_test(tc, merge_skips_invalid_src_stats);
	tcase_add_test(tc, merge_einval);
	tcase_add_test(tc, merge_overflow_leaves_dst_unchanged);
	tcase_add_test(tc, merge_integer_sum_overflow_is_eoverflow);
	tcase_add_test(tc, validate_crafted_corruptions);
	tcase_add_test(tc, validate_reqstate_needs_voistate);
	tcase_add_test(tc, validate_rejects_overlapping_data);
	tcase_add_test(tc, validate_random_flips_never_crash);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
