/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_update.c: the one update path (stats_voi_update_xy and the
 * stats_voi_update_<abs|rel>_<dtype> wrappers): every data type, initial
 * MIN/MAX values, relative updates only with SB_VOI_RELUPDATE, weights,
 * per-statistic error counting, the valid flag, every EINVAL, and the TDGST
 * statistic's glue (tdgst_stat.c).
 */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>

#include "blob.h"
#include "unit.h"

union scalar {
	int32_t		s32;
	uint32_t	u32;
	int64_t		s64;
	uint64_t	u64;
	long		sl;
	unsigned long	ul;
	uint8_t		raw[8];
};

static const size_t tsize[] = {
	[VSD_DTYPE_INT_S32] = 4, [VSD_DTYPE_INT_U32] = 4,
	[VSD_DTYPE_INT_S64] = 8, [VSD_DTYPE_INT_U64] = 8,
	[VSD_DTYPE_INT_SLONG] = sizeof(long),
	[VSD_DTYPE_INT_ULONG] = sizeof(long),
	[VSD_DTYPE_Q_S32] = 4, [VSD_DTYPE_Q_U32] = 4,
	[VSD_DTYPE_Q_S64] = 8, [VSD_DTYPE_Q_U64] = 8,
};

/* A statistic as a raw 64-bit pattern, sign- or zero-extended. */
static uint64_t
get(struct statsblob *sb, int voi, enum voi_stype st, enum vsd_dtype dt)
{
	union scalar u;

	memset(&u, 0, sizeof(u));
	ck_assert_int_eq(stats_voistat_fetch_typed(sb, voi, st, dt, &u,
	    tsize[dt]), 0);
	if (tsize[dt] == 4)
		return dt == VSD_DTYPE_INT_S32 || dt == VSD_DTYPE_Q_S32 ?
		    (uint64_t)(int64_t)u.s32 : u.u32;
	return u.u64;
}

static bool
is_valid(struct statsblob *sb, int voi, enum voi_stype st)
{
	struct statsblobv1 *b = (struct statsblobv1 *)sb;

	return (blob_voistat(b, &b->vois[voi], st)->flags & VS_VSDVALID) != 0;
}

static uint8_t
errs(struct statsblob *sb, int voi, enum voi_stype st)
{
	struct statsblobv1 *b = (struct statsblobv1 *)sb;

	return blob_voistat(b, &b->vois[voi], st)->errs;
}

static const struct {
	enum vsd_dtype	dt;
	uint64_t	min, max;	/* the type's limits, extended */
} types[] = {
	{ VSD_DTYPE_INT_S32, (uint64_t)(int64_t)INT32_MIN, INT32_MAX },
	{ VSD_DTYPE_INT_U32, 0, UINT32_MAX },
	{ VSD_DTYPE_INT_S64, (uint64_t)INT64_MIN, INT64_MAX },
	{ VSD_DTYPE_INT_U64, 0, UINT64_MAX },
	{ VSD_DTYPE_INT_SLONG, (uint64_t)(int64_t)LONG_MIN, LONG_MAX },
	{ VSD_DTYPE_INT_ULONG, 0, ULONG_MAX },
	{ VSD_DTYPE_Q_S32, (uint64_t)(int64_t)INT32_MIN, INT32_MAX },
	{ VSD_DTYPE_Q_U32, 0, UINT32_MAX },
	{ VSD_DTYPE_Q_S64, (uint64_t)INT64_MIN, INT64_MAX },
	{ VSD_DTYPE_Q_U64, 0, UINT64_MAX },
};

static int
all_types_tpl(uint32_t flags)
{
	int id = unit_tpl("types");
	size_t i;

	for (i = 0; i < NVSS(types); i++)
		UNIT_ADD(id, (int)i, "", types[i].dt, flags, STATS_VSS_SUM(),
		    STATS_VSS_MAX(), STATS_VSS_MIN());
	return id;
}

/* MIN starts at the dtype's maximum and MAX at its minimum. */
START_TEST(min_max_start_at_type_limits)
{
	struct statsblob *sb;
	size_t i;
	int id = all_types_tpl(0);

	sb = stats_blob_alloc((uint32_t)id, 0);
	for (i = 0; i < NVSS(types); i++) {
		ck_assert_uint_eq(get(sb, (int)i, VS_STYPE_SUM, types[i].dt), 0);
		ck_assert_uint_eq(get(sb, (int)i, VS_STYPE_MAX, types[i].dt),
		    types[i].min);
		ck_assert_uint_eq(get(sb, (int)i, VS_STYPE_MIN, types[i].dt),
		    types[i].max);
		ck_assert(!is_valid(sb, (int)i, VS_STYPE_MAX));
	}
	/* And return there after a reset. */
	for (i = 0; i < NVSS(types); i++) {
		struct voistatdata_numeric n = stats_ctor_vsd_numeric(1);

		ck_assert_int_eq(stats_voi_update_xy(sb, (int)i, types[i].dt,
		    &n, 1, 0), 0);
		ck_assert_uint_eq(get(sb, (int)i, VS_STYPE_MIN, types[i].dt), 1);
	}
	ck_assert_int_eq(stats_blob_reset(sb), 0);
	for (i = 0; i < NVSS(types); i++) {
		ck_assert_uint_eq(get(sb, (int)i, VS_STYPE_MAX, types[i].dt),
		    types[i].min);
		ck_assert_uint_eq(get(sb, (int)i, VS_STYPE_MIN, types[i].dt),
		    types[i].max);
	}
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(abs_updates_every_type)
{
	struct statsblob *sb;
	int id = all_types_tpl(0);

	sb = stats_blob_alloc((uint32_t)id, 0);
	ck_assert_int_eq(stats_voi_update_abs_s32(sb, 0, -7), 0);
	ck_assert_int_eq(stats_voi_update_abs_s32(sb, 0, 3), 0);
	ck_assert_int_eq(stats_voi_update_abs_u32(sb, 1, 4000000000u), 0);
	ck_assert_int_eq(stats_voi_update_abs_u32(sb, 1, 2), 0);
	ck_assert_int_eq(stats_voi_update_abs_s64(sb, 2, -(INT64_C(1) << 40)),
	    0);
	ck_assert_int_eq(stats_voi_update_abs_u64(sb, 3, UINT64_MAX), 0);
	ck_assert_int_eq(stats_voi_update_abs_u64(sb, 3, 1), 0);
	ck_assert_int_eq(stats_voi_update_abs_slong(sb, 4, LONG_MIN), 0);
	ck_assert_int_eq(stats_voi_update_abs_ulong(sb, 5, 9), 0);
	ck_assert_int_eq(stats_voi_update_abs_sq32(sb, 6, STATS_SQ32(-1.25)),
	    0);
	ck_assert_int_eq(stats_voi_update_abs_sq32(sb, 6, STATS_SQ32(3.5)), 0);
	ck_assert_int_eq(stats_voi_update_abs_uq32(sb, 7, STATS_UQ32(0.75)), 0);
	ck_assert_int_eq(stats_voi_update_abs_sq64(sb, 8, STATS_SQ64(-1e6)), 0);
	ck_assert_int_eq(stats_voi_update_abs_uq64(sb, 9, STATS_UQ64(1e6)), 0);

	ck_assert_int_eq((int64_t)get(sb, 0, VS_STYPE_SUM, VSD_DTYPE_INT_S32),
	    -4);
	ck_assert_int_eq((int64_t)get(sb, 0, VS_STYPE_MIN, VSD_DTYPE_INT_S32),
	    -7);
	ck_assert_int_eq((int64_t)get(sb, 0, VS_STYPE_MAX, VSD_DTYPE_INT_S32),
	    3);
	/* Integer sums wrap. */
	ck_assert_uint_eq(get(sb, 1, VS_STYPE_SUM, VSD_DTYPE_INT_U32),
	    (uint32_t)(4000000002u));
	ck_assert_uint_eq(get(sb, 1, VS_STYPE_MIN, VSD_DTYPE_INT_U32), 2);
	ck_assert_uint_eq(get(sb, 3, VS_STYPE_SUM, VSD_DTYPE_INT_U64), 0);
	ck_assert_uint_eq(get(sb, 3, VS_STYPE_MAX, VSD_DTYPE_INT_U64),
	    UINT64_MAX);
	ck_assert_int_eq((int64_t)get(sb, 4, VS_STYPE_MIN,
	    VSD_DTYPE_INT_SLONG), LONG_MIN);
	/* MAX only moves strictly above its start, the type's minimum. */
	ck_assert(is_valid(sb, 4, VS_STYPE_MIN));
	ck_assert(!is_valid(sb, 4, VS_STYPE_MAX));
	ck_assert_int_eq((int64_t)get(sb, 6, VS_STYPE_SUM, VSD_DTYPE_Q_S32),
	    STATS_SQ32(2.25));
	ck_assert_int_eq((int64_t)get(sb, 6, VS_STYPE_MIN, VSD_DTYPE_Q_S32),
	    STATS_SQ32(-1.25));
	ck_assert_uint_eq(get(sb, 7, VS_STYPE_MAX, VSD_DTYPE_Q_U32),
	    STATS_UQ32(0.75));
	ck_assert_int_eq((int64_t)get(sb, 8, VS_STYPE_MAX, VSD_DTYPE_Q_S64),
	    STATS_SQ64(-1e6));
	ck_assert_uint_eq(get(sb, 9, VS_STYPE_SUM, VSD_DTYPE_Q_U64),
	    STATS_UQ64(1e6));
	stats_blob_destroy(sb);
}
END_TEST

/* Relative updates only on VOIs with SB_VOI_RELUPDATE. */
START_TEST(rel_update_needs_relupdate)
{
	struct statsblob *sb;
	struct voistatdata_numeric n = stats_ctor_vsd_numeric(5);
	uint8_t before[2048];
	size_t i;
	int id = all_types_tpl(0);

	sb = stats_blob_alloc((uint32_t)id, 0);
	memcpy(before, sb, sb->cursz);
	ck_assert_int_eq(stats_voi_update_rel_s32(sb, 0, 1), EINVAL);
	ck_assert_int_eq(stats_voi_update_rel_u32(sb, 1, 1), EINVAL);
	ck_assert_int_eq(stats_voi_update_rel_s64(sb, 2, 1), EINVAL);
	ck_assert_int_eq(stats_voi_update_rel_u64(sb, 3, 1), EINVAL);
	ck_assert_int_eq(stats_voi_update_rel_slong(sb, 4, 1), EINVAL);
	ck_assert_int_eq(stats_voi_update_rel_ulong(sb, 5, 1), EINVAL);
	ck_assert_int_eq(stats_voi_update_rel_sq32(sb, 6, 1), EINVAL);
	ck_assert_int_eq(stats_voi_update_rel_uq32(sb, 7, 1), EINVAL);
	ck_assert_int_eq(stats_voi_update_rel_sq64(sb, 8, 1), EINVAL);
	ck_assert_int_eq(stats_voi_update_rel_uq64(sb, 9, 1), EINVAL);
	for (i = 0; i < NVSS(types); i++)
		ck_assert_int_eq(stats_voi_update_xy(sb, (int)i, types[i].dt,
		    &n, 1, SB_VOI_RELUPDATE), EINVAL);
	ck_assert_int_eq(memcmp(before, sb, sb->cursz), 0);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(rel_update_every_type)
{
	struct statsblob *sb;
	int id = all_types_tpl(SB_VOI_RELUPDATE);

	sb = stats_blob_alloc((uint32_t)id, 0);
	ck_assert_int_eq(stats_voi_update_rel_s32(sb, 0, -5), 0);
	ck_assert_int_eq(stats_voi_update_rel_s32(sb, 0, 8), 0);
	ck_assert_int_eq((int64_t)get(sb, 0, VS_STYPE_SUM, VSD_DTYPE_INT_S32),
	    -5 + 3);
	ck_assert_int_eq((int64_t)get(sb, 0, VS_STYPE_MIN, VSD_DTYPE_INT_S32),
	    -5);
	ck_assert_int_eq((int64_t)get(sb, 0, VS_STYPE_MAX, VSD_DTYPE_INT_S32),
	    3);
	/* Integer prev wraps like the type. */
	ck_assert_int_eq(stats_voi_update_abs_u32(sb, 1, UINT32_MAX - 1), 0);
	ck_assert_int_eq(stats_voi_update_rel_u32(sb, 1, 3), 0);
	ck_assert_uint_eq(get(sb, 1, VS_STYPE_MIN, VSD_DTYPE_INT_U32), 1);
	ck_assert_int_eq(stats_voi_update_rel_s64(sb, 2, 10), 0);
	ck_assert_int_eq(stats_voi_update_rel_s64(sb, 2, 10), 0);
	ck_assert_int_eq((int64_t)get(sb, 2, VS_STYPE_MAX, VSD_DTYPE_INT_S64),
	    20);
	ck_assert_int_eq(stats_voi_update_rel_u64(sb, 3, 7), 0);
	ck_assert_uint_eq(get(sb, 3, VS_STYPE_SUM, VSD_DTYPE_INT_U64), 7);
	ck_assert_int_eq(stats_voi_update_rel_slong(sb, 4, -3), 0);
	ck_assert_int_eq(stats_voi_update_rel_slong(sb, 4, -3), 0);
	ck_assert_int_eq((int64_t)get(sb, 4, VS_STYPE_MIN,
	    VSD_DTYPE_INT_SLONG), -6);
	ck_assert_int_eq(stats_voi_update_rel_ulong(sb, 5, 2), 0);
	ck_assert_int_eq(stats_voi_update_rel_ulong(sb, 5, 2), 0);
	ck_assert_uint_eq(get(sb, 5, VS_STYPE_SUM, VSD_DTYPE_INT_ULONG), 6);
	ck_assert_int_eq(stats_voi_update_rel_sq32(sb, 6, STATS_SQ32(0.5)), 0);
	ck_assert_int_eq(stats_voi_update_rel_sq32(sb, 6, STATS_SQ32(0.5)), 0);
	ck_assert_int_eq((int64_t)get(sb, 6, VS_STYPE_MAX, VSD_DTYPE_Q_S32),
	    STATS_SQ32(1.0));
	ck_assert_int_eq(stats_voi_update_rel_uq32(sb, 7, STATS_UQ32(2)), 0);
	ck_assert_uint_eq(get(sb, 7, VS_STYPE_SUM, VSD_DTYPE_Q_U32),
	    STATS_UQ32(2));
	ck_assert_int_eq(stats_voi_update_rel_sq64(sb, 8, STATS_SQ64(-2)), 0);
	ck_assert_int_eq(stats_voi_update_rel_sq64(sb, 8, STATS_SQ64(-2)), 0);
	ck_assert_int_eq((int64_t)get(sb, 8, VS_STYPE_MIN, VSD_DTYPE_Q_S64),
	    STATS_SQ64(-4));
	ck_assert_int_eq(stats_voi_update_rel_uq64(sb, 9, STATS_UQ64(1)), 0);
	ck_assert_uint_eq(get(sb, 9, VS_STYPE_MAX, VSD_DTYPE_Q_U64),
	    STATS_UQ64(1));
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(rel_update_tracks_abs_and_writes_back)
{
	struct statsblob *sb;
	struct voistatdata_numeric n;
	struct voistatdata *vsd;
	int id = unit_tpl("rel");

	UNIT_ADD(id, 0, "", VSD_DTYPE_INT_S64, SB_VOI_RELUPDATE,
	    STATS_VSS_MIN(), STATS_VSS_MAX());
	sb = stats_blob_alloc((uint32_t)id, 0);
	ck_assert_int_eq(stats_voi_update_abs_s64(sb, 0, 100), 0);
	ck_assert_int_eq(stats_voi_update_rel_s64(sb, 0, -30), 0);
	ck_assert_int_eq((int64_t)get(sb, 0, VS_STYPE_MIN, VSD_DTYPE_INT_S64),
	    70);
	ck_assert_int_eq((int64_t)get(sb, 0, VS_STYPE_MAX, VSD_DTYPE_INT_S64),
	    100);
	/* stats_voi_update_xy returns the absolute value it used. */
	n = stats_ctor_vsd_numeric(5);
	ck_assert_int_eq(stats_voi_update_xy(sb, 0, VSD_DTYPE_INT_S64, &n, 1,
	    SB_VOI_RELUPDATE), 0);
	ck_assert_int_eq(n.int64.s64, 75);
	ck_assert_int_eq(stats_voistat_fetch_dptr(sb, 0, VS_STYPE_VOISTATE,
	    NULL, &vsd, NULL), 0);
	ck_assert_int_eq(vsd->voistate.prev.int64.s64, 75);
	/* An absolute update replaces the state. */
	ck_assert_int_eq(stats_voi_update_abs_s64(sb, 0, -1), 0);
	ck_assert_int_eq(vsd->voistate.prev.int64.s64, -1);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(rel_q_overflow_touches_nothing)
{
	struct statsblob *sb;
	uint8_t before[256];
	int id = unit_tpl("relq");

	UNIT_ADD(id, 1, "", VSD_DTYPE_Q_S32, SB_VOI_RELUPDATE, STATS_VSS_SUM(),
	    STATS_VSS_MAX());
	sb = stats_blob_alloc((uint32_t)id, 0);
	ck_assert_int_eq(stats_voi_update_abs_sq32(sb, 1, INT32_MAX - 10), 0);
	memcpy(before, sb, sb->cursz);
	ck_assert_int_eq(stats_voi_update_rel_sq32(sb, 1, 11), EOVERFLOW);
	ck_assert_int_eq(memcmp(before, sb, sb->cursz), 0);
	ck_assert_uint_eq(errs(sb, 1, VS_STYPE_SUM), 0);
	/* In range: the statistics see INT32_MAX; the SUM itself overflows. */
	ck_assert_int_eq(stats_voi_update_rel_sq32(sb, 1, 10), EOVERFLOW);
	ck_assert_uint_eq(errs(sb, 1, VS_STYPE_SUM), 1);
	ck_assert_int_eq((int64_t)get(sb, 1, VS_STYPE_MAX, VSD_DTYPE_Q_S32),
	    INT32_MAX);
	ck_assert_int_eq((int64_t)get(sb, 1, VS_STYPE_SUM, VSD_DTYPE_Q_S32),
	    INT32_MAX - 10);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(update_xy_einval)
{
	struct statsblob *sb;
	struct voistatdata_numeric n = stats_ctor_vsd_numeric(1);
	uint8_t before[256];
	int id = unit_tpl("einval");

	UNIT_ADD(id, 0, "", VSD_DTYPE_INT_U32, 0, STATS_VSS_SUM());
	UNIT_ADD(id, 2, "", VSD_DTYPE_INT_U32, 0, STATS_VSS_SUM());
	sb = stats_blob_alloc((uint32_t)id, 0);
	memcpy(before, sb, sb->cursz);
	ck_assert_int_eq(stats_voi_update_xy(NULL, 0, VSD_DTYPE_INT_U32, &n, 1,
	    0), EINVAL);
	ck_assert_int_eq(stats_voi_update_xy(sb, 0, VSD_DTYPE_INT_U32, NULL, 1,
	    0), EINVAL);
	ck_assert_int_eq(stats_voi_update_xy(sb, 0, VSD_DTYPE_INT_U32, &n, 0,
	    0), EINVAL);
	ck_assert_int_eq(stats_voi_update_xy(sb, -1, VSD_DTYPE_INT_U32, &n, 1,
	    0), EINVAL);
	ck_assert_int_eq(stats_voi_update_xy(sb, 3, VSD_DTYPE_INT_U32, &n, 1,
	    0), EINVAL);
	ck_assert_int_eq(stats_voi_update_xy(sb, 1, VSD_DTYPE_INT_U32, &n, 1,
	    0), EINVAL);	/* vacant */
	ck_assert_int_eq(stats_voi_update_xy(sb, 0, VSD_DTYPE_INT_S32, &n, 1,
	    0), EINVAL);	/* not the VOI's type */
	ck_assert_int_eq(stats_voi_update_xy(sb, 0, VSD_DTYPE_VOISTATE, &n, 1,
	    0), EINVAL);
	ck_assert_int_eq(stats_voi_update_xy(sb, 0, VSD_DTYPE_INT_U32, &n, 1,
	    0x100), EINVAL);	/* unknown flag */
	ck_assert_int_eq(stats_voi_update_abs_s32(sb, 0, 1), EINVAL);
	ck_assert_int_eq(stats_voi_update_abs_u64(sb, 0, 1), EINVAL);
	sb->abi = 0;
	ck_assert_int_eq(stats_voi_update_xy(sb, 0, VSD_DTYPE_INT_U32, &n, 1,
	    0), EINVAL);
	sb->abi = STATS_ABI_V1;
	ck_assert_int_eq(memcmp(before, sb, sb->cursz), 0);
	/* The inline wrappers do nothing for a NULL blob, as on FreeBSD. */
	ck_assert_int_eq(stats_voi_update_abs_u32(NULL, 0, 1), 0);
	ck_assert_int_eq(stats_voi_update_rel_sq64(NULL, 0, 1), 0);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(weights_apply_per_statistic)
{
	struct statsblob *sb;
	struct voistatdata_numeric n;
	struct voistatdata *vsd;
	int id = unit_tpl("weights");

	UNIT_ADD(id, 0, "", VSD_DTYPE_INT_U64, 0, STATS_VSS_SUM(),
	    STATS_VSS_MAX(), STATS_VSS_MIN(),
	    STATS_VSS_CRHIST64_LIN(0, 100, 50, 0));
	sb = stats_blob_alloc((uint32_t)id, 0);
	n = stats_ctor_vsd_numeric(60);
	ck_assert_int_eq(stats_voi_update_xy(sb, 0, VSD_DTYPE_INT_U64, &n, 1000,
	    0), 0);
	n = stats_ctor_vsd_numeric(200);
	ck_assert_int_eq(stats_voi_update_xy(sb, 0, VSD_DTYPE_INT_U64, &n,
	    UINT64_C(1) << 33, 0), 0);
	ck_assert_uint_eq(get(sb, 0, VS_STYPE_SUM, VSD_DTYPE_INT_U64),
	    60000 + (UINT64_C(200) << 33));
	ck_assert_uint_eq(get(sb, 0, VS_STYPE_MAX, VSD_DTYPE_INT_U64), 200);
	ck_assert_uint_eq(get(sb, 0, VS_STYPE_MIN, VSD_DTYPE_INT_U64), 60);
	ck_assert_int_eq(stats_voistat_fetch_dptr(sb, 0, VS_STYPE_HIST, NULL,
	    &vsd, NULL), 0);
	ck_assert_uint_eq(vsd->hist.crhist64.bkts[1].cnt, 1000);
	ck_assert_uint_eq(vsd->hist.crhist64.bkts[2].cnt, UINT64_C(1) << 33);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(errs_count_and_saturate)
{
	struct statsblob *sb;
	char *txt;
	int id = unit_tpl("errs"), i;

	UNIT_ADD(id, 0, "", VSD_DTYPE_Q_U32, 0, STATS_VSS_SUM(),
	    STATS_VSS_MAX());
	sb = stats_blob_alloc((uint32_t)id, 0);
	ck_assert_int_eq(stats_voi_update_abs_uq32(sb, 0, UINT32_MAX - 5), 0);
	for (i = 0; i < 300; i++) {
		/* SUM fails; MAX still moves; the error is SUM's. */
		ck_assert_int_eq(stats_voi_update_abs_uq32(sb, 0, 6), EOVERFLOW);
	}
	ck_assert_uint_eq(errs(sb, 0, VS_STYPE_SUM), 255);
	ck_assert_uint_eq(errs(sb, 0, VS_STYPE_MAX), 0);
	ck_assert_uint_eq(get(sb, 0, VS_STYPE_SUM, VSD_DTYPE_Q_U32),
	    UINT32_MAX - 5);
	ck_assert_int_eq(stats_voi_update_abs_uq32(sb, 0, UINT32_MAX),
	    EOVERFLOW);
	ck_assert_uint_eq(get(sb, 0, VS_STYPE_MAX, VSD_DTYPE_Q_U32),
	    UINT32_MAX);
	txt = unit_tostr(sb, SB_STRFMT_FREEFORM, 0);
	ck_assert_ptr_nonnull(strstr(txt, "stype=SUM, errs=255\n"));
	ck_assert_ptr_nonnull(strstr(txt, "stype=MAX\n"));
	free(txt);
	/* A reset clears the error counts. */
	ck_assert_int_eq(stats_blob_reset(sb), 0);
	ck_assert_uint_eq(errs(sb, 0, VS_STYPE_SUM), 0);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(valid_only_when_moved)
{
	struct statsblob *sb;
	json_t *root;
	json_error_t jerr;
	char *js;
	int id = unit_tpl("valid");

	UNIT_ADD(id, 0, "", VSD_DTYPE_INT_U32, 0, STATS_VSS_SUM(),
	    STATS_VSS_MAX(), STATS_VSS_MIN());
	sb = stats_blob_alloc((uint32_t)id, 0);
	ck_assert_int_eq(stats_voi_update_abs_u32(sb, 0, 0), 0);
	ck_assert_int_eq(stats_voi_update_abs_u32(sb, 0, UINT32_MAX), 0);
	ck_assert_int_eq(stats_voi_update_abs_u32(sb, 0, 1), 0);
	/* MAX saw UINT32_MAX and MIN saw 0: both moved, both valid. */
	ck_assert(is_valid(sb, 0, VS_STYPE_MAX));
	ck_assert(is_valid(sb, 0, VS_STYPE_MIN));
	ck_assert_int_eq(stats_blob_reset(sb), 0);
	/* Only the type's minimum: MAX never moves and stays "null". */
	ck_assert_int_eq(stats_voi_update_abs_u32(sb, 0, 0), 0);
	ck_assert(is_valid(sb, 0, VS_STYPE_SUM));
	ck_assert(!is_valid(sb, 0, VS_STYPE_MAX));
	ck_assert(is_valid(sb, 0, VS_STYPE_MIN));
	js = unit_tostr(sb, SB_STRFMT_JSON, SB_TOSTR_META);
	root = json_loads(js, JSON_REJECT_DUPLICATES, &jerr);
	ck_assert_msg(root != NULL, "%s: %s", js, jerr.text);
	ck_assert(json_is_null(json_object_get(json_object_get(json_object_get(
	    json_object_get(root, "vois"), "[0]"), "stats"), "MAX")));
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(
	    json_object_get(json_object_get(json_object_get(root, "vois"),
	    "[0]"), "stats"), "MIN"), "val")), 0);
	json_decref(root);
	free(js);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(hist_counts_out_of_band)
{
	struct statsblob *sb;
	struct voistatdata *vsd;
	int id = unit_tpl("oob");

	UNIT_ADD(id, 0, "", VSD_DTYPE_INT_S32, 0,
	    STATS_VSS_DRHIST32_USR(HBKTS(DRBKT(-10, 0), DRBKT(5, 10)), 0));
	sb = stats_blob_alloc((uint32_t)id, 0);
	ck_assert_int_eq(stats_voi_update_abs_s32(sb, 0, -11), 0);
	ck_assert_int_eq(stats_voi_update_abs_s32(sb, 0, -10), 0);
	ck_assert_int_eq(stats_voi_update_abs_s32(sb, 0, 0), 0);
	ck_assert_int_eq(stats_voi_update_abs_s32(sb, 0, 3), 0);
	ck_assert_int_eq(stats_voi_update_abs_s32(sb, 0, 9), 0);
	ck_assert_int_eq(stats_voi_update_abs_s32(sb, 0, 10), 0);
	ck_assert_int_eq(stats_voistat_fetch_dptr(sb, 0, VS_STYPE_HIST, NULL,
	    &vsd, NULL), 0);
	ck_assert_uint_eq(vsd->hist.drhist32.oob, 4);
	ck_assert_uint_eq(vsd->hist.drhist32.bkts[0].cnt, 1);
	ck_assert_uint_eq(vsd->hist.drhist32.bkts[1].cnt, 1);
	ck_assert(is_valid(sb, 0, VS_STYPE_HIST));
	stats_blob_destroy(sb);
}
END_TEST

/* The TDGST statistic through the engine (tdgst_stat.c's glue). */
START_TEST(tdgst_glue)
{
	struct statsblob *sb, *sb2;
	struct voistatspec vss;
	json_t *root;
	json_error_t jerr;
	double q, c;
	char *js;
	int id = unit_tpl("tdgst"), i;

	UNIT_ADD(id, 0, "rtt", VSD_DTYPE_INT_U32, 0, STATS_VSS_MAX(),
	    STATS_VSS_TDGSTCLUST32(20, 4));
	UNIT_ADD(id, 1, "gput", VSD_DTYPE_Q_S64, 0,
	    STATS_VSS_TDGSTCLUST64(50, 8));
	sb = stats_blob_alloc((uint32_t)id, 0);
	sb2 = stats_blob_alloc((uint32_t)id, 0);
	ck_assert_int_eq(stats_voistat_fetch_quantile(sb, 0, VS_STYPE_TDGST,
	    0.5, &q), ENODATA);
	ck_assert_int_eq(stats_voistat_fetch_cdf(sb, 0, VS_STYPE_TDGST, 1, &c),
	    ENODATA);
	for (i = 1; i <= 1000; i++) {
		ck_assert_int_eq(stats_voi_update_abs_u32(sb, 0, (uint32_t)i),
		    0);
		ck_assert_int_eq(stats_voi_update_abs_sq64(sb, 1,
		    STATS_SQ64(i * 0.5)), 0);
		ck_assert_int_eq(stats_voi_update_abs_u32(sb2, 0,
		    (uint32_t)(1000 + i)), 0);
	}
	ck_assert_int_eq(stats_voistat_fetch_quantile(sb, 0, VS_STYPE_TDGST,
	    0.5, &q), 0);
	ck_assert_msg(fabs(q - 500) < 25, "median %f", q);
	ck_assert_int_eq(stats_voistat_fetch_quantile(sb, 0, VS_STYPE_TDGST,
	    0, &q), 0);
	ck_assert_double_eq(q, 1);
	ck_assert_int_eq(stats_voistat_fetch_quantile(sb, 0, VS_STYPE_TDGST,
	    1, &q), 0);
	ck_assert_double_eq(q, 1000);
	ck_assert_int_eq(stats_voistat_fetch_cdf(sb, 0, VS_STYPE_TDGST, 250,
	    &c), 0);
	ck_assert_msg(fabs(c - 0.25) < 0.03, "cdf %f", c);
	/* Fixed-point values are seen as their real value. */
	ck_assert_int_eq(stats_voistat_fetch_quantile(sb, 1, VS_STYPE_TDGST,
	    1, &q), 0);
	ck_assert_double_eq(q, 500);
	/* Merge: the digests add. */
	ck_assert_int_eq(stats_blob_merge(sb2, sb, 0), 0);
	ck_assert_int_eq(stats_voistat_fetch_quantile(sb2, 0, VS_STYPE_TDGST,
	    0.5, &q), 0);
	ck_assert_msg(fabs(q - 1000) < 50, "merged median %f", q);
	/* Rendered JSON is well formed, with and without the dump. */
	js = unit_tostr(sb2, SB_STRFMT_JSON, SB_TOSTR_META);
	root = json_loads(js, JSON_REJECT_DUPLICATES, &jerr);
	ck_assert_msg(root != NULL, "%s", jerr.text);
	ck_assert_ptr_nonnull(json_object_get(json_object_get(json_object_get(
	    json_object_get(root, "vois"), "rtt"), "stats"), "TDGST"));
	json_decref(root);
	free(js);
	js = unit_tostr(sb2, SB_STRFMT_JSON, SB_TOSTR_OBJDUMP);
	root = json_loads(js, JSON_REJECT_DUPLICATES, &jerr);
	ck_assert_msg(root != NULL, "%s", jerr.text);
	json_decref(root);
	free(js);
	ck_assert_int_eq(stats_blob_validate(sb2, sb2->cursz), 0);
	/* Reset empties it. */
	ck_assert_int_eq(stats_blob_reset(sb2), 0);
	ck_assert_int_eq(stats_voistat_fetch_quantile(sb2, 0, VS_STYPE_TDGST,
	    0.5, &q), ENODATA);
	/* A narrow digest counts in 32 bits: a weight past that fails. */
	{
		struct voistatdata_numeric n = stats_ctor_vsd_numeric(7);
		struct statsblobv1 *b = (struct statsblobv1 *)sb;

		ck_assert_int_eq(stats_voi_update_xy(sb, 0, VSD_DTYPE_INT_U32,
		    &n, UINT64_C(1) << 33, 0), EOVERFLOW);
		ck_assert_uint_eq(blob_voistat(b, &b->vois[0],
		    VS_STYPE_TDGST)->errs, 1);
		ck_assert_uint_eq(get(sb, 0, VS_STYPE_MAX, VSD_DTYPE_INT_U32),
		    1000);
	}
	/* A corrupted digest fails validation, with a reason. */
	{
		struct statsblob *bad = malloc(sb->cursz);
		struct voistatdata *vsd;

		memcpy(bad, sb, sb->cursz);
		ck_assert_int_eq(stats_voistat_fetch_dptr(bad, 0,
		    VS_STYPE_TDGST, NULL, &vsd, NULL), 0);
		memset(vsd, 0xff, 16);
		ck_assert_int_eq(stats_blob_validate(bad, bad->cursz), EINVAL);
		ck_assert_ptr_nonnull(stats_blob_validate_why(bad,
		    bad->cursz));
		free(bad);
	}
	/* Helper errors. */
	vss = STATS_VSS_TDGSTCLUST32(0, 4);
	ck_assert_int_eq(stats_tpl_add_voistats((uint32_t)id, 2, "",
	    VSD_DTYPE_INT_U32, 1, &vss, 0), EINVAL);
	vss = STATS_VSS_TDGSTCLUST64(100000, 4);
	ck_assert_int_ne(stats_tpl_add_voistats((uint32_t)id, 2, "",
	    VSD_DTYPE_INT_U32, 1, &vss, 0), 0);
	vss = STATS_VSS_TDGSTCLUST32(10, 4);
	ck_assert_int_eq(stats_vss_tdgst_hlpr(VSD_DTYPE_CRHIST32, &vss,
	    (struct vss_tdgst_hlpr_info *)vss.hlprinfo), EINVAL);
	ck_assert_int_eq(stats_vss_tdgst_hlpr(VSD_DTYPE_INT_U32, &vss, NULL),
	    EINVAL);
	vss.vs_dtype = VSD_DTYPE_CRHIST32;
	ck_assert_int_eq(stats_vss_tdgst_hlpr(VSD_DTYPE_INT_U32, &vss,
	    (struct vss_tdgst_hlpr_info *)vss.hlprinfo), EINVAL);
	stats_blob_destroy(sb);
	stats_blob_destroy(sb2);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("update");
	TCase *tc = tcase_create("update");

	tcase_add_test(tc, min_max_start_at_type_limits);
	tcase_add_test(tc, abs_updates_every_type);
	tcase_add_test(tc, rel_update_needs_relupdate);
	tcase_add_test(tc, rel_update_every_type);
	tcase_add_test(tc, rel_update_tracks_abs_and_writes_back);
	tcase_add_test(tc, rel_q_overflow_touches_nothing);
	tcase_add_test(tc, update_xy_einval);
	tcase_add_test(tc, weights_apply_per_statistic);
	tcase_add_test(tc, errs_count_and_saturate);
	tcase_add_test(tc, valid_only_when_moved);
	tcase_add_test(tc, hist_counts_out_of_band);
	tcase_add_test(tc, tdgst_glue);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
