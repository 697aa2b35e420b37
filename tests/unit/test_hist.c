/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_hist.c: the HIST statistic: bucket generation (LIN, EXP, LINEXP, USR,
 * the infinite-bound flags) against examples worked from FreeBSD's rules,
 * value placement at every edge (bounds, out of band, type limits, fixed
 * point), 32- and 64-bit counter overflow, merge, reset, quantile and CDF by
 * interpolation, rendering, and every helper error.
 */
#include <errno.h>
#include <jansson.h>
#include <time.h>

#include "hist.h"
#include "unit.h"

/* A template of one VOI with one histogram; returns a fresh blob. */
static struct statsblob *
one_hist(enum vsd_dtype voi_dtype, struct voistatspec vss)
{
	int id = unit_tpl("h");

	ck_assert_int_eq(stats_tpl_add_voistats((uint32_t)id, 0, "h", voi_dtype,
	    1, &vss, 0), 0);
	return stats_blob_alloc((uint32_t)id, 0);
}

static struct voistatdata *
hdata(struct statsblob *sb, enum vsd_dtype *dt)
{
	struct voistatdata *vsd;
	enum vsd_dtype d;

	ck_assert_int_eq(stats_voistat_fetch_dptr(sb, 0, VS_STYPE_HIST, &d,
	    &vsd, NULL), 0);
	if (dt != NULL)
		*dt = d;
	return vsd;
}

static uint16_t
nbkts(struct statsblob *sb)
{
	enum vsd_dtype dt;
	struct voistatdata *vsd = hdata(sb, &dt);

	/* Right after the out-of-band counter: 4 or 8 bytes in. */
	return hist_geom(dt)->cnt64 ? vsd->hist.crhist64.nbkts :
	    vsd->hist.crhist32.nbkts;
}

/* Lower bounds as signed 64-bit values of the VOI's type. */
static int64_t
lb(struct statsblob *sb, uint32_t i, enum vsd_dtype voi_dtype)
{
	enum vsd_dtype dt;
	struct voistatdata *vsd = hdata(sb, &dt);
	struct voistatdata_numeric *n = hist_bkt_lb(vsd, hist_geom(dt), i);

	switch (voi_dtype) {
	case VSD_DTYPE_INT_S32:
	case VSD_DTYPE_Q_S32:
		return n->int32.s32;
	case VSD_DTYPE_INT_U32:
	case VSD_DTYPE_Q_U32:
		return n->int32.u32;
	default:
		return n->int64.s64;
	}
}

static int64_t
ub(struct statsblob *sb, uint32_t i)
{
	enum vsd_dtype dt;
	struct voistatdata *vsd = hdata(sb, &dt);

	return hist_bkt_ub(vsd, hist_geom(dt), i)->int64.s64;
}

static uint64_t
cnt(struct statsblob *sb, uint32_t i)
{
	enum vsd_dtype dt;
	struct voistatdata *vsd = hdata(sb, &dt);

	return hist_bkt_cnt(vsd, hist_geom(dt), i);
}

static uint64_t
oob(struct statsblob *sb)
{
	enum vsd_dtype dt;
	struct voistatdata *vsd = hdata(sb, &dt);

	return hist_oob(vsd, hist_geom(dt));
}

static void
ck_lbs(struct statsblob *sb, enum vsd_dtype voi_dtype, const int64_t *want,
    size_t n)
{
	size_t i;

	ck_assert_uint_eq(nbkts(sb), n);
	for (i = 0; i < n; i++)
		ck_assert_msg(lb(sb, (uint32_t)i, voi_dtype) == want[i],
		    "bucket %zu: lb %jd, want %jd", i,
		    (intmax_t)lb(sb, (uint32_t)i, voi_dtype), (intmax_t)want[i]);
}

START_TEST(lin_buckets)
{
	static const int64_t w1[] = { 0, 5, 10 };
	static const int64_t w2[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	static const int64_t w3[] = { -30, -20, -10, 0 };
	struct statsblob *sb;

	sb = one_hist(VSD_DTYPE_INT_U32, STATS_VSS_CRHIST32_LIN(0, 10, 5, 0));
	ck_lbs(sb, VSD_DTYPE_INT_U32, w1, NVSS(w1));
	stats_blob_destroy(sb);
	sb = one_hist(VSD_DTYPE_INT_U64, STATS_VSS_CRHIST64_LIN(0, 9, 1, 0));
	ck_lbs(sb, VSD_DTYPE_INT_U64, w2, NVSS(w2));
	stats_blob_destroy(sb);
	sb = one_hist(VSD_DTYPE_INT_S64,
	    STATS_VSS_CRHIST64_LIN(-30, 5, 10, 0));
	ck_lbs(sb, VSD_DTYPE_INT_S64, w3, NVSS(w3));
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(exp_buckets)
{
	static const int64_t w1[] = { 0, 1, 3, 7, 15, 31, 63, 127, 255, 511 };
	static const int64_t w2[] = { 0, 10, 110 };
	struct statsblob *sb;

	sb = one_hist(VSD_DTYPE_INT_U32,
	    STATS_VSS_CRHIST32_EXP(0, 1000, 2, 0, 0));
	ck_lbs(sb, VSD_DTYPE_INT_U32, w1, NVSS(w1));
	stats_blob_destroy(sb);
	sb = one_hist(VSD_DTYPE_INT_U64,
	    STATS_VSS_CRHIST64_EXP(0, 1000, 10, 1, 0));
	ck_lbs(sb, VSD_DTYPE_INT_U64, w2, NVSS(w2));
	stats_blob_destroy(sb);
	/* A first step past the VOI's range: one bucket holds it all. */
	sb = one_hist(VSD_DTYPE_INT_U32,
	    STATS_VSS_CRHIST32_EXP(0, UINT32_MAX, 2, 40, 0));
	ck_lbs(sb, VSD_DTYPE_INT_U32, w2, 1);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(linexp_buckets)
{
	int64_t w[29];
	struct statsblob *sb;
	int i, k = 0;

	for (i = 0; i < 10; i++)
		w[k++] = i;
	for (i = 1; i < 10; i++)
		w[k++] = i * 10;
	for (i = 1; i < 10; i++)
		w[k++] = i * 100;
	w[k++] = 1000;
	sb = one_hist(VSD_DTYPE_INT_U32,
	    STATS_VSS_CRHIST32_LINEXP(0, 1000, 10, 10, 0));
	ck_lbs(sb, VSD_DTYPE_INT_U32, w, NVSS(w));
	stats_blob_destroy(sb);
}
END_TEST

/* FreeBSD's TCP_ACKLEN: LIN(0, 9, 1) + UBOUND_INF, 11 buckets 0..10. */
START_TEST(tcp_acklen_ubound_inf)
{
	static const int64_t w[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	struct statsblob *sb;
	char *txt;

	sb = one_hist(VSD_DTYPE_INT_U32,
	    STATS_VSS_CRHIST32_LIN(0, 9, 1, VSD_HIST_UBOUND_INF));
	ck_lbs(sb, VSD_DTYPE_INT_U32, w, NVSS(w));
	ck_assert_int_eq(stats_voi_update_abs_u32(sb, 0, UINT32_MAX), 0);
	ck_assert_int_eq(stats_voi_update_abs_u32(sb, 0, 10), 0);
	ck_assert_int_eq(stats_voi_update_abs_u32(sb, 0, 9), 0);
	ck_assert_uint_eq(cnt(sb, 10), 2);
	ck_assert_uint_eq(cnt(sb, 9), 1);
	ck_assert_uint_eq(oob(sb), 0);
	txt = unit_vsdstr(hdata(sb, NULL), VSD_DTYPE_CRHIST32,
	    SB_STRFMT_FREEFORM, 0);
	ck_assert_ptr_nonnull(strstr(txt, "{lb=10,ub=4294967295,cnt=2}"));
	ck_assert_ptr_nonnull(strstr(txt, "{lb=9,ub=10,cnt=1}"));
	free(txt);
	stats_blob_destroy(sb);
}
END_TEST

/* FreeBSD's TCP_CALCFRWINDIFF: USR {CRBKT(0)} + LBOUND_INF on INT_S32. */
START_TEST(tcp_calcfrwindiff_lbound_inf)
{
	static const int64_t w[] = { INT32_MIN, 0 };
	struct statsblob *sb;

	sb = one_hist(VSD_DTYPE_INT_S32, STATS_VSS_CRHIST32_USR(HBKTS(CRBKT(0)),
	    VSD_HIST_LBOUND_INF));
	ck_lbs(sb, VSD_DTYPE_INT_S32, w, NVSS(w));
	ck_assert_int_eq(stats_voi_update_abs_s32(sb, 0, INT32_MIN), 0);
	ck_assert_int_eq(stats_voi_update_abs_s32(sb, 0, -1), 0);
	ck_assert_int_eq(stats_voi_update_abs_s32(sb, 0, 0), 0);
	ck_assert_int_eq(stats_voi_update_abs_s32(sb, 0, INT32_MAX), 0);
	ck_assert_uint_eq(cnt(sb, 0), 2);
	ck_assert_uint_eq(cnt(sb, 1), 2);
	ck_assert_uint_eq(oob(sb), 0);
	stats_blob_destroy(sb);
}
END_TEST

/* statsd's DRHIST UBOUND_INF bucket includes the type's maximum. */
START_TEST(drhist_inf_bounds_include_type_limits)
{
	struct statsblob *sb;

	sb = one_hist(VSD_DTYPE_INT_U32, STATS_VSS_DRHIST32_USR(
	    HBKTS(DRBKT(5, 10)), VSD_HIST_UBOUND_INF | VSD_HIST_LBOUND_INF));
	ck_assert_uint_eq(nbkts(sb), 3);
	ck_assert_int_eq(lb(sb, 0, VSD_DTYPE_INT_U32), 0);
	ck_assert_int_eq(ub(sb, 0), 5);
	ck_assert_int_eq(lb(sb, 2, VSD_DTYPE_INT_U32), 10);
	ck_assert_int_eq(ub(sb, 2), UINT32_MAX);
	ck_assert_int_eq(stats_voi_update_abs_u32(sb, 0, UINT32_MAX), 0);
	ck_assert_int_eq(stats_voi_update_abs_u32(sb, 0, UINT32_MAX - 1), 0);
	ck_assert_int_eq(stats_voi_update_abs_u32(sb, 0, 10), 0);
	ck_assert_int_eq(stats_voi_update_abs_u32(sb, 0, 9), 0);
	ck_assert_int_eq(stats_voi_update_abs_u32(sb, 0, 0), 0);
	ck_assert_int_eq(stats_voi_update_abs_u32(sb, 0, 4), 0);
	ck_assert_uint_eq(cnt(sb, 2), 3);
	ck_assert_uint_eq(cnt(sb, 1), 1);
	ck_assert_uint_eq(cnt(sb, 0), 2);
	ck_assert_uint_eq(oob(sb), 0);
	stats_blob_destroy(sb);
	/* Signed 64-bit: the extremes. */
	sb = one_hist(VSD_DTYPE_INT_S64, STATS_VSS_DRHIST64_USR(
	    HBKTS(DRBKT(-1, 1)), VSD_HIST_UBOUND_INF | VSD_HIST_LBOUND_INF));
	ck_assert_int_eq(lb(sb, 0, VSD_DTYPE_INT_S64), INT64_MIN);
	ck_assert_int_eq(ub(sb, 2), INT64_MAX);
	ck_assert_int_eq(stats_voi_update_abs_s64(sb, 0, INT64_MIN), 0);
	ck_assert_int_eq(stats_voi_update_abs_s64(sb, 0, INT64_MAX), 0);
	ck_assert_int_eq(stats_voi_update_abs_s64(sb, 0, 1), 0);
	ck_assert_int_eq(stats_voi_update_abs_s64(sb, 0, 0), 0);
	ck_assert_uint_eq(cnt(sb, 0), 1);
	ck_assert_uint_eq(cnt(sb, 1), 1);
	ck_assert_uint_eq(cnt(sb, 2), 2);
	ck_assert_uint_eq(oob(sb), 0);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(edges_and_out_of_band)
{
	struct statsblob *sb;

	/* CRHIST: [lb_i, lb_i+1), below the first is out of band. */
	sb = one_hist(VSD_DTYPE_INT_S64, STATS_VSS_CRHIST64_LIN(-100, -1, 50,
	    0));
	ck_assert_uint_eq(nbkts(sb), 2);
	ck_assert_int_eq(stats_voi_update_abs_s64(sb, 0, -101), 0);
	ck_assert_int_eq(stats_voi_update_abs_s64(sb, 0, INT64_MIN), 0);
	ck_assert_int_eq(stats_voi_update_abs_s64(sb, 0, -100), 0);
	ck_assert_int_eq(stats_voi_update_abs_s64(sb, 0, -51), 0);
	ck_assert_int_eq(stats_voi_update_abs_s64(sb, 0, -50), 0);
	ck_assert_int_eq(stats_voi_update_abs_s64(sb, 0, INT64_MAX), 0);
	ck_assert_uint_eq(oob(sb), 2);
	ck_assert_uint_eq(cnt(sb, 0), 2);
	ck_assert_uint_eq(cnt(sb, 1), 2);
	stats_blob_destroy(sb);
	/* DRHIST: lb inclusive, ub exclusive, gaps and beyond out of band. */
	sb = one_hist(VSD_DTYPE_INT_U64, STATS_VSS_DRHIST64_USR(
	    HBKTS(DRBKT(10, 20), DRBKT(30, 40)), 0));
	ck_assert_int_eq(stats_voi_update_abs_u64(sb, 0, 9), 0);
	ck_assert_int_eq(stats_voi_update_abs_u64(sb, 0, 10), 0);
	ck_assert_int_eq(stats_voi_update_abs_u64(sb, 0, 19), 0);
	ck_assert_int_eq(stats_voi_update_abs_u64(sb, 0, 20), 0);
	ck_assert_int_eq(stats_voi_update_abs_u64(sb, 0, 29), 0);
	ck_assert_int_eq(stats_voi_update_abs_u64(sb, 0, 30), 0);
	ck_assert_int_eq(stats_voi_update_abs_u64(sb, 0, 40), 0);
	ck_assert_int_eq(stats_voi_update_abs_u64(sb, 0, UINT64_MAX), 0);
	ck_assert_uint_eq(cnt(sb, 0), 2);
	ck_assert_uint_eq(cnt(sb, 1), 1);
	ck_assert_uint_eq(oob(sb), 5);
	stats_blob_destroy(sb);
	/* DVHIST: exact values only. */
	sb = one_hist(VSD_DTYPE_INT_S32, STATS_VSS_DVHIST32_USR(
	    HBKTS(DVBKT(-1), DVBKT(1), DVBKT(4)), 0));
	ck_assert_int_eq(stats_voi_update_abs_s32(sb, 0, -1), 0);
	ck_assert_int_eq(stats_voi_update_abs_s32(sb, 0, 0), 0);
	ck_assert_int_eq(stats_voi_update_abs_s32(sb, 0, 4), 0);
	ck_assert_int_eq(stats_voi_update_abs_s32(sb, 0, 4), 0);
	ck_assert_int_eq(stats_voi_update_abs_s32(sb, 0, 5), 0);
	ck_assert_uint_eq(cnt(sb, 0), 1);
	ck_assert_uint_eq(cnt(sb, 1), 0);
	ck_assert_uint_eq(cnt(sb, 2), 2);
	ck_assert_uint_eq(oob(sb), 2);
	stats_blob_destroy(sb);
}
END_TEST

/* Unsorted user buckets fall back to the highest-index-first scan. */
START_TEST(unsorted_user_buckets)
{
	struct statsblob *sb;

	sb = one_hist(VSD_DTYPE_INT_U32, STATS_VSS_CRHIST32_USR(
	    HBKTS(CRBKT(50), CRBKT(10), CRBKT(30)), 0));
	ck_assert_int_eq(stats_voi_update_abs_u32(sb, 0, 5), 0);
	ck_assert_int_eq(stats_voi_update_abs_u32(sb, 0, 35), 0);
	ck_assert_int_eq(stats_voi_update_abs_u32(sb, 0, 60), 0);
	/* Highest index whose lb <= x: 35 and 60 both land in [30, ...). */
	ck_assert_uint_eq(cnt(sb, 2), 2);
	ck_assert_uint_eq(cnt(sb, 0), 0);
	ck_assert_uint_eq(oob(sb), 1);
	stats_blob_destroy(sb);
	/* Overlapping discrete ranges: the higher index wins. */
	sb = one_hist(VSD_DTYPE_INT_U32, STATS_VSS_DRHIST32_USR(
	    HBKTS(DRBKT(0, 100), DRBKT(40, 60)), 0));
	ck_assert_int_eq(stats_voi_update_abs_u32(sb, 0, 50), 0);
	ck_assert_int_eq(stats_voi_update_abs_u32(sb, 0, 70), 0);
	ck_assert_uint_eq(cnt(sb, 1), 1);
	ck_assert_uint_eq(cnt(sb, 0), 1);
	stats_blob_destroy(sb);
}
END_TEST

/* The binary search of sorted CRHISTs agrees with a plain scan. */
START_TEST(bsearch_agrees_with_scan)
{
	struct statsblob *sb;
	uint64_t seed = 42, want[41], x;
	int i, k;

	sb = one_hist(VSD_DTYPE_INT_S32, STATS_VSS_CRHIST32_LIN(-1000, 1000, 50,
	    0));
	ck_assert_uint_eq(nbkts(sb), 41);
	memset(want, 0, sizeof(want));
	for (i = 0; i < 20000; i++) {
		int32_t v = (int32_t)(unit_rnd(&seed) % 4400) - 2200;

		ck_assert_int_eq(stats_voi_update_abs_s32(sb, 0, v), 0);
		for (k = 40; k >= 0; k--) {
			if (v >= -1000 + 50 * k) {
				want[k]++;
				break;
			}
		}
	}
	x = 0;
	for (k = 0; k < 41; k++) {
		ck_assert_uint_eq(cnt(sb, (uint32_t)k), want[k]);
		x += want[k];
	}
	ck_assert_uint_eq(oob(sb) + x, 20000);
	stats_blob_destroy(sb);
}
END_TEST

/*
 * The same for 64-bit VOIs, whose bounds the search compares in place:
 * signed below zero, and unsigned past 2^63, where a signed comparison
 * would put the value below every bucket.
 */
START_TEST(bsearch_agrees_with_scan_64)
{
	struct statsblob *sb;
	uint64_t seed = 7, want[41], x;
	int i, k, pass;

	for (pass = 0; pass < 2; pass++) {
		bool sgn = pass == 0;

		sb = sgn ? one_hist(VSD_DTYPE_INT_S64,
		    STATS_VSS_CRHIST64_LIN(-1000, 1000, 50, 0)) :
		    one_hist(VSD_DTYPE_INT_U64,
		    STATS_VSS_CRHIST64_LIN(0, 2000, 50, 0));
		ck_assert_uint_eq(nbkts(sb), 41);
		memset(want, 0, sizeof(want));
		for (i = 0; i < 20000; i++) {
			int64_t v = (int64_t)(unit_rnd(&seed) % 4400) - 2200;

			if (sgn) {
				ck_assert_int_eq(stats_voi_update_abs_s64(sb,
				    0, v), 0);
				for (k = 40; k >= 0; k--)
					if (v >= -1000 + 50 * k) {
						want[k]++;
						break;
					}
				continue;
			}
			/* Unsigned: half below 2,200, half past 2^63. */
			x = v < 0 ? (UINT64_C(1) << 63) + (uint64_t)-v :
			    (uint64_t)v;
			ck_assert_int_eq(stats_voi_update_abs_u64(sb, 0, x), 0);
			want[x >= 2000 ? 40 : x / 50]++;
		}
		x = 0;
		for (k = 0; k < 41; k++) {
			ck_assert_uint_eq(cnt(sb, (uint32_t)k), want[k]);
			x += want[k];
		}
		ck_assert_uint_eq(oob(sb) + x, 20000);
		stats_blob_destroy(sb);
	}
}
END_TEST

/* Fixed-point VOIs take their bounds in whole units. */
START_TEST(fixed_point_bounds)
{
	struct statsblob *sb;
	char *txt;

	sb = one_hist(VSD_DTYPE_Q_S32, STATS_VSS_CRHIST32_LIN(-2, 2, 1, 0));
	ck_assert_uint_eq(nbkts(sb), 5);
	ck_assert_int_eq(lb(sb, 0, VSD_DTYPE_Q_S32), STATS_SQ32(-2));
	ck_assert_int_eq(lb(sb, 4, VSD_DTYPE_Q_S32), STATS_SQ32(2));
	ck_assert_int_eq(stats_voi_update_abs_sq32(sb, 0, STATS_SQ32(0.5)), 0);
	ck_assert_int_eq(stats_voi_update_abs_sq32(sb, 0, STATS_SQ32(1.0)), 0);
	ck_assert_int_eq(stats_voi_update_abs_sq32(sb, 0, STATS_SQ32(-2.5)), 0);
	ck_assert_int_eq(stats_voi_update_abs_sq32(sb, 0, STATS_SQ32(-1.5)), 0);
	ck_assert_uint_eq(cnt(sb, 2), 1);
	ck_assert_uint_eq(cnt(sb, 3), 1);
	ck_assert_uint_eq(cnt(sb, 0), 1);
	ck_assert_uint_eq(oob(sb), 1);
	txt = unit_vsdstr(hdata(sb, NULL), VSD_DTYPE_CRHIST32,
	    SB_STRFMT_FREEFORM, 0);
	ck_assert_ptr_nonnull(strstr(txt, "{lb=0.0000,ub=1.0000,cnt=1}"));
	ck_assert_ptr_nonnull(strstr(txt,
	    "{lb=2.0000,ub=32767.9999847412109375,cnt=0}"));
	free(txt);
	stats_blob_destroy(sb);
	/* Whole units past the fixed-point range are refused. */
	{
		struct voistatspec vss = STATS_VSS_CRHIST32_LIN(0, 70000, 10000,
		    0);
		int id = unit_tpl("qr");

		ck_assert_int_eq(stats_tpl_add_voistats((uint32_t)id, 0, "",
		    VSD_DTYPE_Q_U32, 1, &vss, 0), EINVAL);
	}
}
END_TEST

static int
add1(enum vsd_dtype voi_dtype, struct voistatspec vss)
{
	int id = unit_tpl("e");

	return stats_tpl_add_voistats((uint32_t)id, 0, "", voi_dtype, 1, &vss,
	    0);
}

START_TEST(helper_errors)
{
	struct voistatspec vss = STATS_VSS_CRHIST32_LIN(0, 10, 1, 0);
	struct vss_hist_hlpr_info info;

	ck_assert_int_eq(stats_vss_hist_hlpr(VSD_DTYPE_INT_U32, NULL,
	    (struct vss_hist_hlpr_info *)vss.hlprinfo), EINVAL);
	ck_assert_int_eq(stats_vss_hist_hlpr(VSD_DTYPE_INT_U32, &vss, NULL),
	    EINVAL);
	ck_assert_int_eq(stats_vss_hist_hlpr(VSD_DTYPE_CRHIST32, &vss,
	    (struct vss_hist_hlpr_info *)vss.hlprinfo), EINVAL);
	memcpy(&info, vss.hlprinfo, sizeof(info));
	info.hist_dtype = VSD_DTYPE_INT_U32;
	ck_assert_int_eq(stats_vss_hist_hlpr(VSD_DTYPE_INT_U32, &vss, &info),
	    EINVAL);
	info.hist_dtype = VSD_DTYPE_CRHIST32;
	info.flags = 0x4;
	ck_assert_int_eq(stats_vss_hist_hlpr(VSD_DTYPE_INT_U32, &vss, &info),
	    EINVAL);
	info.flags = 0;
	info.scheme = (enum hist_bkt_alloc)7;
	ck_assert_int_eq(stats_vss_hist_hlpr(VSD_DTYPE_INT_U32, &vss, &info),
	    EINVAL);
	/* Through add_voistats. */
	ck_assert_int_eq(add1(VSD_DTYPE_INT_U32,
	    STATS_VSS_CRHIST32_LIN(0, 10, 0, 0)), EINVAL);	/* step 0 */
	ck_assert_int_eq(add1(VSD_DTYPE_INT_U32,
	    STATS_VSS_CRHIST32_LIN(10, 0, 1, 0)), EINVAL);	/* ub < lb */
	ck_assert_int_eq(add1(VSD_DTYPE_INT_S32,
	    STATS_VSS_CRHIST32_LIN(0, 10, -1, 0)), EINVAL);	/* step < 0 */
	ck_assert_int_eq(add1(VSD_DTYPE_INT_U32,
	    STATS_VSS_CRHIST32_LIN(0, UINT32_MAX, 3u << 30, 0)), EINVAL);
	ck_assert_int_eq(add1(VSD_DTYPE_INT_U32,
	    STATS_VSS_CRHIST32_EXP(0, 100, 0, 0, 0)), EINVAL);	/* 0^1 */
	ck_assert_int_eq(add1(VSD_DTYPE_INT_U32,
	    STATS_VSS_CRHIST32_LINEXP(0, 100, 10, 1, 0)), EINVAL);
	ck_assert_int_eq(add1(VSD_DTYPE_INT_U32,
	    STATS_VSS_CRHIST32_LINEXP(0, 100, 0, 10, 0)), EINVAL);
	ck_assert_int_eq(add1(VSD_DTYPE_INT_U32, STATS_VSS_HIST(
	    VSD_DTYPE_DRHIST32, STATS_VSS_HIST_HLPR_INFO_LIN(
	    VSD_DTYPE_DRHIST32, 0, 10, 1, 0))), EINVAL);	/* LIN on DR */
	ck_assert_int_eq(add1(VSD_DTYPE_INT_U32, STATS_VSS_DVHIST32_USR(
	    HBKTS(DVBKT(1)), VSD_HIST_LBOUND_INF)), EINVAL);
	ck_assert_int_eq(add1(VSD_DTYPE_INT_U32, STATS_VSS_DVHIST64_USR(
	    HBKTS(DVBKT(1)), VSD_HIST_UBOUND_INF)), EINVAL);
	ck_assert_int_eq(add1(VSD_DTYPE_INT_U32, STATS_VSS_DRHIST32_USR(
	    HBKTS(DRBKT(5, 5)), 0)), EINVAL);			/* empty */
	ck_assert_int_eq(add1(VSD_DTYPE_INT_U32, STATS_VSS_DRHIST32_USR(
	    HBKTS(DRBKT(6, 5)), 0)), EINVAL);
	{
		struct voistatspec u = STATS_VSS_CRHIST32_USR(HBKTS(CRBKT(1)),
		    0);

		((struct vss_hist_hlpr_info *)u.hlprinfo)->usr.bkts = NULL;
		ck_assert_int_eq(add1(VSD_DTYPE_INT_U32, u), EINVAL);
	}
	/* Too many buckets for any blob. */
	ck_assert_int_eq(add1(VSD_DTYPE_INT_U64,
	    STATS_VSS_CRHIST64_LIN(0, 10000, 1, 0)), EFBIG);
	ck_assert_int_eq(add1(VSD_DTYPE_INT_U64,
	    STATS_VSS_CRHIST64_LIN(0, 4000, 1, 0)), 0);
}
END_TEST

/*
 * Regression: EXP with base 1 multiplied stepexp + k times per bucket, so a
 * large stepexp hung template creation for billions of iterations. The
 * bound is on the thread's CPU time, not the wall clock: a loaded machine
 * may keep the thread off the CPU for longer than the work takes, while
 * billions of iterations cost seconds of CPU however idle it is.
 */
START_TEST(exp_base_one_is_fast)
{
	struct timespec t0, t1;
	struct statsblob *sb;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	sb = one_hist(VSD_DTYPE_INT_U32,
	    STATS_VSS_CRHIST32_EXP(0, 100, 1, 4000000000u, 0));
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
	ck_assert_uint_eq(nbkts(sb), 101);	/* steps of 1^e = 1 */
	ck_assert_int_lt((t1.tv_sec - t0.tv_sec) * 1000000000L +
	    (t1.tv_nsec - t0.tv_nsec), 1000000000L);
	stats_blob_destroy(sb);
	/* Base 0: 0^0 = 1, then 0: a zero step. */
	ck_assert_int_eq(add1(VSD_DTYPE_INT_U32,
	    STATS_VSS_CRHIST32_EXP(0, 100, 0, 4000000000u, 0)), EINVAL);
}
END_TEST

/* 32-bit counters wrap at 2^32, as FreeBSD's; 64-bit ones do not. */
START_TEST(counter_overflow_32_and_64)
{
	struct statsblob *sb;
	struct voistatdata *vsd;
	struct voistatdata_numeric n;

	sb = one_hist(VSD_DTYPE_INT_U32, STATS_VSS_CRHIST32_LIN(10, 20, 10, 0));
	vsd = hdata(sb, NULL);
	vsd->hist.crhist32.bkts[0].cnt = UINT32_MAX;
	vsd->hist.crhist32.oob = UINT32_MAX;
	ck_assert_int_eq(stats_voi_update_abs_u32(sb, 0, 15), 0);
	ck_assert_int_eq(stats_voi_update_abs_u32(sb, 0, 5), 0);
	ck_assert_uint_eq(vsd->hist.crhist32.bkts[0].cnt, 0);
	ck_assert_uint_eq(vsd->hist.crhist32.oob, 0);
	/* A weight of 2^32 + 3 adds 3 to a 32-bit counter. */
	n = stats_ctor_vsd_numeric(25);
	ck_assert_int_eq(stats_voi_update_xy(sb, 0, VSD_DTYPE_INT_U32, &n,
	    (UINT64_C(1) << 32) + 3, 0), 0);
	ck_assert_uint_eq(vsd->hist.crhist32.bkts[1].cnt, 3);
	stats_blob_destroy(sb);

	sb = one_hist(VSD_DTYPE_INT_U32, STATS_VSS_CRHIST64_LIN(10, 20, 10, 0));
	vsd = hdata(sb, NULL);
	vsd->hist.crhist64.bkts[0].cnt = UINT32_MAX;
	vsd->hist.crhist64.oob = UINT32_MAX;
	ck_assert_int_eq(stats_voi_update_abs_u32(sb, 0, 15), 0);
	ck_assert_int_eq(stats_voi_update_abs_u32(sb, 0, 5), 0);
	ck_assert_uint_eq(vsd->hist.crhist64.bkts[0].cnt, UINT64_C(1) << 32);
	ck_assert_uint_eq(vsd->hist.crhist64.oob, UINT64_C(1) << 32);
	ck_assert_int_eq(stats_voi_update_xy(sb, 0, VSD_DTYPE_INT_U32, &n,
	    (UINT64_C(1) << 32) + 3, 0), 0);
	ck_assert_uint_eq(vsd->hist.crhist64.bkts[1].cnt,
	    (UINT64_C(1) << 32) + 3);
	vsd->hist.crhist64.bkts[1].cnt = UINT64_MAX;
	ck_assert_int_eq(stats_voi_update_abs_u32(sb, 0, 25), 0);
	ck_assert_uint_eq(vsd->hist.crhist64.bkts[1].cnt, 0);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(merge_adds_buckets)
{
	struct statsblob *a, *b;
	int id = unit_tpl("m");

	UNIT_ADD(id, 0, "", VSD_DTYPE_INT_U32, 0,
	    STATS_VSS_DVHIST64_USR(HBKTS(DVBKT(1), DVBKT(2)), 0));
	a = stats_blob_alloc((uint32_t)id, 0);
	b = stats_blob_alloc((uint32_t)id, 0);
	ck_assert_int_eq(stats_voi_update_abs_u32(a, 0, 1), 0);
	ck_assert_int_eq(stats_voi_update_abs_u32(b, 0, 1), 0);
	ck_assert_int_eq(stats_voi_update_abs_u32(b, 0, 2), 0);
	ck_assert_int_eq(stats_voi_update_abs_u32(b, 0, 3), 0);
	ck_assert_int_eq(stats_blob_merge(a, b, 0), 0);
	ck_assert_uint_eq(cnt(a, 0), 2);
	ck_assert_uint_eq(cnt(a, 1), 1);
	ck_assert_uint_eq(oob(a), 1);
	/* b unchanged. */
	ck_assert_uint_eq(cnt(b, 0), 1);
	stats_blob_destroy(a);
	stats_blob_destroy(b);
}
END_TEST

/*
 * Regression: merging two 32-bit histograms whose counts add past
 * UINT32_MAX wrapped silently although stats_blob_merge promises
 * EOVERFLOW (dst unchanged).
 */
START_TEST(merge_counter_overflow_is_eoverflow)
{
	struct statsblob *a, *b;
	uint8_t before[512];
	int id = unit_tpl("mo");

	UNIT_ADD(id, 0, "", VSD_DTYPE_INT_U32, 0,
	    STATS_VSS_CRHIST32_LIN(0, 10, 10, 0));
	a = stats_blob_alloc((uint32_t)id, 0);
	b = stats_blob_alloc((uint32_t)id, 0);
	ck_assert_int_eq(stats_voi_update_abs_u32(a, 0, 1), 0);
	ck_assert_int_eq(stats_voi_update_abs_u32(b, 0, 1), 0);
	hdata(a, NULL)->hist.crhist32.bkts[0].cnt = UINT32_MAX;
	memcpy(before, a, a->cursz);
	ck_assert_int_eq(stats_blob_merge(a, b, 0), EOVERFLOW);
	ck_assert_int_eq(memcmp(before, a, a->cursz), 0);
	/* The out-of-band counter too. */
	hdata(a, NULL)->hist.crhist32.bkts[0].cnt = 1;
	hdata(a, NULL)->hist.crhist32.oob = UINT32_MAX;
	hdata(b, NULL)->hist.crhist32.oob = 1;
	ck_assert_int_eq(stats_blob_merge(a, b, 0), EOVERFLOW);
	hdata(b, NULL)->hist.crhist32.oob = 0;
	ck_assert_int_eq(stats_blob_merge(a, b, 0), 0);
	ck_assert_uint_eq(cnt(a, 0), 2);
	stats_blob_destroy(a);
	stats_blob_destroy(b);
}
END_TEST

START_TEST(merge_refuses_other_bounds)
{
	struct statsblob *a, *b;
	struct voistatdata *va, *vb;
	enum vsd_dtype dt;

	a = one_hist(VSD_DTYPE_INT_U32, STATS_VSS_CRHIST32_LIN(0, 10, 5, 0));
	b = one_hist(VSD_DTYPE_INT_U32, STATS_VSS_CRHIST32_LIN(0, 10, 2, 0));
	va = hdata(a, &dt);
	vb = hdata(b, NULL);
	ck_assert_int_eq(hist_merge(va, vb, 0, dt, VSD_DTYPE_INT_U32), EINVAL);
	stats_blob_destroy(b);
	b = one_hist(VSD_DTYPE_INT_U32, STATS_VSS_CRHIST32_LIN(1, 11, 5, 0));
	vb = hdata(b, NULL);
	ck_assert_int_eq(hist_merge(va, vb, 0, dt, VSD_DTYPE_INT_U32), EINVAL);
	stats_blob_destroy(a);
	stats_blob_destroy(b);
}
END_TEST

START_TEST(reset_zeroes_counts_keeps_bounds)
{
	struct statsblob *sb;
	struct voistatdata *vsd;
	uint8_t hflags;

	sb = one_hist(VSD_DTYPE_INT_S64, STATS_VSS_DRHIST64_USR(
	    HBKTS(DRBKT(-5, 5)), VSD_HIST_UBOUND_INF));
	vsd = hdata(sb, NULL);
	hflags = vsd->hist.drhist64.hflags;
	ck_assert_int_eq(stats_voi_update_abs_s64(sb, 0, 0), 0);
	ck_assert_int_eq(stats_voi_update_abs_s64(sb, 0, 100), 0);
	ck_assert_int_eq(stats_voi_update_abs_s64(sb, 0, -100), 0);
	ck_assert_int_eq(stats_blob_reset(sb), 0);
	ck_assert_uint_eq(oob(sb), 0);
	ck_assert_uint_eq(cnt(sb, 0), 0);
	ck_assert_uint_eq(cnt(sb, 1), 0);
	ck_assert_int_eq(lb(sb, 0, VSD_DTYPE_INT_S64), -5);
	ck_assert_int_eq(ub(sb, 1), INT64_MAX);
	ck_assert_uint_eq(vsd->hist.drhist64.nbkts, 2);
	ck_assert_uint_eq(vsd->hist.drhist64.hflags, hflags);
	stats_blob_destroy(sb);
}
END_TEST

static double
quant(struct statsblob *sb, double q)
{
	double r;

	ck_assert_int_eq(stats_voistat_fetch_quantile(sb, 0, VS_STYPE_HIST, q,
	    &r), 0);
	return r;
}

static double
cdf(struct statsblob *sb, double x)
{
	double r;

	ck_assert_int_eq(stats_voistat_fetch_cdf(sb, 0, VS_STYPE_HIST, x, &r),
	    0);
	return r;
}

START_TEST(quantile_and_cdf_interpolate)
{
	struct statsblob *sb;
	double r;

	/* [0,10) [10,20) [20,inf): 5 | 12 13 | 40. */
	sb = one_hist(VSD_DTYPE_INT_U32, STATS_VSS_CRHIST32_LIN(0, 20, 10, 0));
	ck_assert_int_eq(stats_voistat_fetch_quantile(sb, 0, VS_STYPE_HIST,
	    0.5, &r), ENODATA);
	ck_assert_int_eq(stats_voi_update_abs_u32(sb, 0, 5), 0);
	ck_assert_int_eq(stats_voi_update_abs_u32(sb, 0, 12), 0);
	ck_assert_int_eq(stats_voi_update_abs_u32(sb, 0, 13), 0);
	ck_assert_int_eq(stats_voi_update_abs_u32(sb, 0, 40), 0);
	ck_assert_double_eq(quant(sb, 0), 0);
	ck_assert_double_eq(quant(sb, 0.125), 5);
	ck_assert_double_eq(quant(sb, 0.25), 10);
	ck_assert_double_eq(quant(sb, 0.5), 15);
	ck_assert_double_eq(quant(sb, 0.75), 20);
	ck_assert_double_eq(quant(sb, 1), 20);	/* open bucket: its lb */
	ck_assert_double_eq(cdf(sb, 0), 0);
	ck_assert_double_eq(cdf(sb, 5), 0.125);
	ck_assert_double_eq(cdf(sb, 10), 0.25);
	ck_assert_double_eq(cdf(sb, 15), 0.5);
	r = cdf(sb, 19.999);			/* continuous below 20 */
	ck_assert(r > 0.7499 && r < 0.75);
	ck_assert_double_eq(cdf(sb, 20), 1);
	ck_assert_double_eq(cdf(sb, 1e12), 1);
	ck_assert_double_eq(cdf(sb, -1), 0);
	/* Out-of-band values are left out of both. */
	stats_blob_destroy(sb);
	sb = one_hist(VSD_DTYPE_INT_U32, STATS_VSS_CRHIST32_LIN(10, 20, 10, 0));
	ck_assert_int_eq(stats_voi_update_abs_u32(sb, 0, 1), 0);
	ck_assert_int_eq(stats_voistat_fetch_quantile(sb, 0, VS_STYPE_HIST,
	    0.5, &r), ENODATA);
	ck_assert_int_eq(stats_voi_update_abs_u32(sb, 0, 12), 0);
	ck_assert_double_eq(quant(sb, 0.5), 15);
	ck_assert_double_eq(cdf(sb, 12), 0.2);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(quantile_infinite_and_discrete_buckets)
{
	struct statsblob *sb;

	/* LBOUND_INF: never interpolate towards INT32_MIN. */
	sb = one_hist(VSD_DTYPE_INT_S32, STATS_VSS_CRHIST32_USR(
	    HBKTS(CRBKT(0), CRBKT(100)), VSD_HIST_LBOUND_INF));
	ck_assert_int_eq(stats_voi_update_abs_s32(sb, 0, -1000000), 0);
	ck_assert_int_eq(stats_voi_update_abs_s32(sb, 0, 50), 0);
	ck_assert_double_eq(quant(sb, 0.25), 0);
	ck_assert_double_eq(quant(sb, 0.75), 50);
	ck_assert_double_eq(cdf(sb, -5), 0);
	ck_assert_double_eq(cdf(sb, 0), 0.5);
	ck_assert_double_eq(cdf(sb, 25), 0.625);
	stats_blob_destroy(sb);
	/* DVHIST: quantiles are values, the CDF is a step. */
	sb = one_hist(VSD_DTYPE_INT_U64, STATS_VSS_DVHIST64_USR(
	    HBKTS(DVBKT(3), DVBKT(7), DVBKT(9)), 0));
	ck_assert_int_eq(stats_voi_update_abs_u64(sb, 0, 3), 0);
	ck_assert_int_eq(stats_voi_update_abs_u64(sb, 0, 7), 0);
	ck_assert_int_eq(stats_voi_update_abs_u64(sb, 0, 7), 0);
	ck_assert_int_eq(stats_voi_update_abs_u64(sb, 0, 9), 0);
	ck_assert_double_eq(quant(sb, 0.1), 3);
	ck_assert_double_eq(quant(sb, 0.5), 7);
	ck_assert_double_eq(quant(sb, 1), 9);
	ck_assert_double_eq(cdf(sb, 2), 0);
	ck_assert_double_eq(cdf(sb, 7), 0.75);
	ck_assert_double_eq(cdf(sb, 8.5), 0.75);
	stats_blob_destroy(sb);
	/* DRHIST with a gap: interpolation stays inside each range. */
	sb = one_hist(VSD_DTYPE_INT_U32, STATS_VSS_DRHIST32_USR(
	    HBKTS(DRBKT(0, 10), DRBKT(100, 110)), 0));
	ck_assert_int_eq(stats_voi_update_abs_u32(sb, 0, 1), 0);
	ck_assert_int_eq(stats_voi_update_abs_u32(sb, 0, 101), 0);
	ck_assert_double_eq(quant(sb, 0.5), 10);
	ck_assert_double_eq(quant(sb, 0.75), 105);
	ck_assert_double_eq(cdf(sb, 50), 0.5);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(render_every_shape)
{
	struct statsblob *sb;
	json_t *j;
	json_error_t jerr;
	char *txt, buf[256];

	sb = one_hist(VSD_DTYPE_INT_S32, STATS_VSS_DRHIST32_USR(
	    HBKTS(DRBKT(-5, 0), DRBKT(0, 5)), 0));
	ck_assert_int_eq(stats_voi_update_abs_s32(sb, 0, -1), 0);
	ck_assert_int_eq(stats_voi_update_abs_s32(sb, 0, 9), 0);
	txt = unit_vsdstr(hdata(sb, NULL), VSD_DTYPE_DRHIST32,
	    SB_STRFMT_FREEFORM, 0);
	ck_assert_str_eq(txt, "nbkts=2, oob=1\n\t\t\t\t{lb=-5,ub=0,cnt=1}"
	    "\n\t\t\t\t{lb=0,ub=5,cnt=0}");
	free(txt);
	txt = unit_vsdstr(hdata(sb, NULL), VSD_DTYPE_DRHIST32,
	    SB_STRFMT_FREEFORM, 1);
	ck_assert_str_eq(txt, "nbkts=2, oob=1\n\t\t\t\tbkt[0].{lb=-5,ub=0,"
	    "cnt=1}\n\t\t\t\tbkt[1].{lb=0,ub=5,cnt=0}");
	free(txt);
	txt = unit_vsdstr(hdata(sb, NULL), VSD_DTYPE_DRHIST32, SB_STRFMT_JSON,
	    0);
	ck_assert_str_eq(txt, "\"nbkts\":2,\"oob\":1,\"bkts\":[{\"lb\":-5,"
	    "\"ub\":0,\"cnt\":1},{\"lb\":0,\"ub\":5,\"cnt\":0}]");
	snprintf(buf, sizeof(buf), "{%s}", txt);
	free(txt);
	j = json_loads(buf, JSON_REJECT_DUPLICATES, &jerr);
	ck_assert_msg(j != NULL, "%s", jerr.text);
	ck_assert_int_eq(json_array_size(json_object_get(j, "bkts")), 2);
	json_decref(j);
	txt = unit_vsdstr(hdata(sb, NULL), VSD_DTYPE_DRHIST32, SB_STRFMT_JSON,
	    1);
	ck_assert_ptr_nonnull(strstr(txt, "[{\"bkt\":0,\"lb\":-5,"));
	free(txt);
	stats_blob_destroy(sb);
	/* DVHIST shows each value as both bounds. */
	sb = one_hist(VSD_DTYPE_INT_U64, STATS_VSS_DVHIST64_USR(
	    HBKTS(DVBKT(UINT64_MAX)), 0));
	txt = unit_vsdstr(hdata(sb, NULL), VSD_DTYPE_DVHIST64,
	    SB_STRFMT_FREEFORM, 0);
	ck_assert_str_eq(txt, "nbkts=1, oob=0\n\t\t\t\t{lb=18446744073709551615,"
	    "ub=18446744073709551615,cnt=0}");
	free(txt);
	/* A histogram that names a non-scalar VOI type cannot render. */
	{
		struct sbuf *s = sbuf_new_auto();

		hdata(sb, NULL)->hist.dvhist64.voi_dtype = VSD_DTYPE_CRHIST32;
		ck_assert_int_eq(stats_voistatdata_tostr(hdata(sb, NULL),
		    VSD_DTYPE_DVHIST64, SB_STRFMT_JSON, s, 0), EINVAL);
		sbuf_delete(s);
	}
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(check_reasons_and_sizes)
{
	struct statsblob *sb;
	struct voistatdata *vsd;
	enum vsd_dtype dt;
	uint16_t dsz;

	ck_assert_uint_eq(hist_size(VSD_DTYPE_CRHIST32, 3), 8 + 3 * 16);
	ck_assert_uint_eq(hist_size(VSD_DTYPE_DRHIST32, 3), 8 + 3 * 24);
	ck_assert_uint_eq(hist_size(VSD_DTYPE_DVHIST32, 3), 8 + 3 * 16);
	ck_assert_uint_eq(hist_size(VSD_DTYPE_CRHIST64, 3), 16 + 3 * 16);
	ck_assert_uint_eq(hist_size(VSD_DTYPE_DRHIST64, 3), 16 + 3 * 24);
	ck_assert_uint_eq(hist_size(VSD_DTYPE_DVHIST64, 3), 16 + 3 * 16);
	ck_assert_uint_eq(hist_size(VSD_DTYPE_INT_U32, 3), 0);
	ck_assert_ptr_null(hist_geom(VSD_DTYPE_TDGSTCLUST32));
	sb = one_hist(VSD_DTYPE_INT_U32, STATS_VSS_CRHIST64_LIN(0, 10, 5, 0));
	vsd = hdata(sb, &dt);
	dsz = (uint16_t)hist_size(dt, 3);
	ck_assert_ptr_null(hist_check(vsd, dsz, dt, VSD_DTYPE_INT_U32));
	ck_assert_ptr_nonnull(hist_check(vsd, dsz, VSD_DTYPE_INT_U32,
	    VSD_DTYPE_INT_U32));
	ck_assert_ptr_nonnull(hist_check(vsd, 15, dt, VSD_DTYPE_INT_U32));
	ck_assert_ptr_nonnull(hist_check(vsd, (uint16_t)(dsz + 16), dt,
	    VSD_DTYPE_INT_U32));
	ck_assert_ptr_nonnull(hist_check(vsd, dsz, dt, VSD_DTYPE_INT_U64));
	vsd->hist.crhist64.hflags |= 0x40;
	ck_assert_ptr_nonnull(hist_check(vsd, dsz, dt, VSD_DTYPE_INT_U32));
	stats_blob_destroy(sb);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("hist");
	TCase *tc = tcase_create("hist");

	tcase_add_test(tc, lin_buckets);
	tcase_add_test(tc, exp_buckets);
	tcase_add_test(tc, linexp_buckets);
	tcase_add_test(tc, tcp_acklen_ubound_inf);
	tcase_add_test(tc, tcp_calcfrwindiff_lbound_inf);
	tcase_add_test(tc, drhist_inf_bounds_include_type_limits);
	tcase_add_test(tc, edges_and_out_of_band);
	tcase_add_test(tc, unsorted_user_buckets);
	tcase_add_test(tc, bsearch_agrees_with_scan);
	tcase_add_test(tc, bsearch_agrees_with_scan_64);
	tcase_add_test(tc, fixed_point_bounds);
	tcase_add_test(tc, helper_errors);
	tcase_add_test(tc, exp_base_one_is_fast);
	tcase_add_test(tc, counter_overflow_32_and_64);
	tcase_add_test(tc, merge_adds_buckets);
	tcase_add_test(tc, merge_counter_overflow_is_eoverflow);
	tcase_add_test(tc, merge_refuses_other_bounds);
	tcase_add_test(tc, reset_zeroes_counts_keeps_bounds);
	tcase_add_test(tc, quantile_and_cdf_interpolate);
	tcase_add_test(tc, quantile_infinite_and_discrete_buckets);
	tcase_add_test(tc, render_every_shape);
	tcase_add_test(tc, check_reasons_and_sizes);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
