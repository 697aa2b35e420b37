/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_render_prom.c: the Prometheus text format and OpenMetrics of
 * kstats: counter or gauge by the kind table (an unsigned SUM a counter,
 * a signed one a gauge), a NAMED kstat's own values, cumulative histogram
 * buckets with le = next bound - 1 and out-of-band counts below the
 * range in every bucket, summaries, names sanitised with their units,
 * label escapes, one family at a time across kstats, a Prometheus
 * client's series under its own names, and the quantile list's parser.
 */
#include <errno.h>
#include <math.h>

#include "unit.h"
#include "engine.h"
#include "render_prom.h"
#include "stat_history.h"
#include "stat_list.h"
#include "stat_raw.h"

#define LASTU64	STATS_VSS(VS_STYPE_LAST, 0, 0, stats_vss_last_hlpr, NULL)

static char *
render(const struct ks_view *v, bool om, const char *only, char *next)
{
	struct sbuf *s = sbuf_new_auto();
	struct prom_out o;
	char *r;

	ck_assert_int_eq(prom_begin(&o, s, om), 0);
	ck_assert_int_ge(prom_kstat(&o, v, only, next, PROM_NAME_MAX), 0);
	prom_end(&o);
	prom_done(&o);
	ck_assert_int_eq(sbuf_finish(s), 0);
	r = strdup(sbuf_data(s));
	sbuf_delete(s);
	return r;
}

static const char *const app_names[] = { "requests", "delta", "uptime_ns" };

static struct statsblob *
app_blob(void)
{
	int tpl = unit_tpl("prom");
	struct statsblob *sb;

	UNIT_ADD(tpl, 0, "requests", VSD_DTYPE_INT_U64, 0, STATS_VSS_SUM(),
	    STATS_VSS_COUNT());
	UNIT_ADD(tpl, 1, "delta", VSD_DTYPE_INT_S64, 0, STATS_VSS_SUM());
	UNIT_ADD(tpl, 2, "uptime_ns", VSD_DTYPE_INT_U64, 0, LASTU64);
	sb = stats_blob_alloc((uint32_t)tpl, 0);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_ABS, 0, 5, 0, 0), 0);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_ABS, 0, 2, 0, 0), 0);
	ck_assert_int_eq(engine_apply(sb, 1, STATS_OP_ABS, 0, -3, 0, 0), 0);
	ck_assert_int_eq(engine_apply(sb, 2, STATS_OP_SET, 0, 1500000000, 0,
	    0), 0);
	return sb;
}

START_TEST(counter_or_gauge_by_kind)
{
	struct statsblob *sb = app_blob();
	struct kstat_hdr h;
	struct ks_view v = { &h, sb, app_names, 3, NULL };
	char *t;

	ks_hdr_init(&h, "app", 2, "req", "net", KSTAT_TYPE_RAW, 0, NULL);
	t = render(&v, false, NULL, NULL);
	ck_assert_ptr_nonnull(strstr(t,
	    "# TYPE statsd_app_req_requests_sum_total counter\n"
	    "statsd_app_req_requests_sum_total{module=\"app\","
	    "kstat_instance=\"2\",name=\"req\",class=\"net\"} 7\n"));
	ck_assert_ptr_nonnull(strstr(t,
	    "# TYPE statsd_app_req_requests_count_total counter\n"));
	ck_assert_ptr_nonnull(strstr(t,
	    "# TYPE statsd_app_req_delta_sum gauge\n"));
	ck_assert_ptr_nonnull(strstr(t, "statsd_app_req_delta_sum{"));
	ck_assert_ptr_nonnull(strstr(t, "} -3\n"));
	/* A VOI in ns is shown in seconds. */
	ck_assert_ptr_nonnull(strstr(t,
	    "# TYPE statsd_app_req_uptime_last_seconds gauge\n"));
	ck_assert_ptr_nonnull(strstr(t, "} 1.5\n"));
	ck_assert_ptr_null(strstr(t, "# EOF"));
	free(t);
	/* OpenMetrics: the family without _total, TYPE first, # EOF. */
	t = render(&v, true, NULL, NULL);
	ck_assert_ptr_nonnull(strstr(t,
	    "# TYPE statsd_app_req_requests_sum counter\n"
	    "# HELP statsd_app_req_requests_sum "));
	ck_assert_ptr_nonnull(strstr(t, "statsd_app_req_requests_sum_total{"));
	ck_assert(strlen(t) > 6 && strcmp(t + strlen(t) - 6, "# EOF\n") == 0);
	free(t);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(named_own_values)
{
	static const char *const names[] = { "nproc" };
	int tpl = unit_tpl("promn");
	struct statsblob *sb;
	struct kstat_hdr h;
	struct ks_view v = { &h, NULL, names, 1, NULL };
	char *t;

	UNIT_ADD(tpl, 0, "nproc", VSD_DTYPE_INT_U32, 0, LASTU64);
	sb = stats_blob_alloc((uint32_t)tpl, 0);
	v.sb = sb;
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_SET, 0, 61, 0, 0), 0);
	ks_hdr_init(&h, "unix", 0, "system_misc", "misc", KSTAT_TYPE_NAMED, 0,
	    NULL);
	t = render(&v, false, NULL, NULL);
	ck_assert_str_eq(t,
	    "# HELP statsd_unix_system_misc_nproc unix:system_misc nproc "
	    "LAST\n"
	    "# TYPE statsd_unix_system_misc_nproc gauge\n"
	    "statsd_unix_system_misc_nproc{module=\"unix\","
	    "kstat_instance=\"0\",name=\"system_misc\",class=\"misc\"} 61\n");
	free(t);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(histogram_cumulative)
{
	static const char *const names[] = { "lat" };
	int tpl = unit_tpl("promh");
	struct statsblob *sb;
	struct kstat_hdr h;
	struct ks_view v = { &h, NULL, names, 1, NULL };
	char *t;
	int i;

	/* [10, 20) [20, 30) ... [40, max]: below 10 is out of band. */
	UNIT_ADD(tpl, 0, "lat", VSD_DTYPE_INT_U64, 0, STATS_VSS_SUM(),
	    STATS_VSS_CRHIST64_LIN(10, 50, 10, 0));
	sb = stats_blob_alloc((uint32_t)tpl, 0);
	v.sb = sb;
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_ABS, 0, 5, 0, 0),
		    0);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_ABS, 0, 15, 0, 0), 0);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_ABS, 0, 35, 0, 0), 0);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_ABS, 0, 900, 0, 0), 0);
	ks_hdr_init(&h, "app", 0, "h", "misc", KSTAT_TYPE_RAW, 0, NULL);
	t = render(&v, true, NULL, NULL);
	ck_assert_ptr_nonnull(strstr(t, "# TYPE statsd_app_h_lat_hist "
	    "histogram\n"));
	/* The two below the range count in every bucket. */
	ck_assert_ptr_nonnull(strstr(t, "class=\"misc\",le=\"19.0\"} 3\n"));
	ck_assert_ptr_nonnull(strstr(t, "class=\"misc\",le=\"29.0\"} 3\n"));
	ck_assert_ptr_nonnull(strstr(t, "class=\"misc\",le=\"39.0\"} 4\n"));
	ck_assert_ptr_nonnull(strstr(t, "class=\"misc\",le=\"+Inf\"} 5\n"));
	ck_assert_ptr_nonnull(strstr(t, "statsd_app_h_lat_hist_count{module="));
	ck_assert_ptr_nonnull(strstr(t, "} 960\n"));	/* _sum */
	free(t);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(summary_quantiles)
{
	static const char *const names[] = { "d" };
	int tpl = unit_tpl("proms");
	struct statsblob *sb;
	struct kstat_hdr h;
	struct ks_view v = { &h, NULL, names, 1, NULL };
	char *t;
	int i;

	UNIT_ADD(tpl, 0, "d", VSD_DTYPE_INT_U64, 0,
	    STATS_VSS_TDGSTCLUST64(32, 0));
	sb = stats_blob_alloc((uint32_t)tpl, 0);
	v.sb = sb;
	ks_hdr_init(&h, "app", 0, "s", "misc", KSTAT_TYPE_RAW, 0, NULL);
	/* Empty: NaN, and no _sum or _count without a SUM. */
	t = render(&v, false, NULL, NULL);
	ck_assert_ptr_nonnull(strstr(t, "# TYPE statsd_app_s_d_tdigest "
	    "summary\n"));
	ck_assert_ptr_nonnull(strstr(t, "quantile=\"0.5\"} NaN\n"));
	ck_assert_ptr_null(strstr(t, "_count"));
	free(t);
	for (i = 1; i <= 100; i++)
		ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_ABS, 0, i, 0, 0),
		    0);
	t = render(&v, false, NULL, NULL);
	ck_assert_ptr_null(strstr(t, "NaN"));
	ck_assert_ptr_nonnull(strstr(t, "quantile=\"0.99\"}"));
	free(t);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(names_labels_and_passes)
{
	static const char *const names[] = { "a-b", "histogram" };
	int tpl = unit_tpl("promx");
	struct statsblob *sb;
	struct kstat_hdr h;
	struct ks_view v = { &h, NULL, names, 2, NULL };
	char next[PROM_NAME_MAX], stem[PROM_NAME_MAX], *t;

	UNIT_ADD(tpl, 0, "a-b", VSD_DTYPE_INT_U64, 0, LASTU64);
	UNIT_ADD(tpl, 1, "histogram", VSD_DTYPE_INT_U64, 0, LASTU64);
	sb = stats_blob_alloc((uint32_t)tpl, 0);
	v.sb = sb;
	ks_hdr_init(&h, "my.mod", 0, "x\"y", "c\\d", KSTAT_TYPE_NAMED, 0,
	    NULL);
	ck_assert_str_eq(prom_stem(&h, stem, sizeof(stem)),
	    "statsd_my_mod_x_y");
	t = render(&v, false, NULL, NULL);
	ck_assert_ptr_nonnull(strstr(t, "statsd_my_mod_x_y_a_b{"));
	ck_assert_ptr_nonnull(strstr(t, "name=\"x\\\"y\",class=\"c\\\\d\""));
	/* A type word in a name is refused by promtool's lint. */
	ck_assert_ptr_nonnull(strstr(t, "statsd_my_mod_x_y_histograms{"));
	free(t);
	/* One family at a time: the one asked for, and the next by name. */
	next[0] = '\0';
	t = render(&v, false, "statsd_my_mod_x_y_a_b", next);
	ck_assert_ptr_nonnull(strstr(t, "statsd_my_mod_x_y_a_b{"));
	ck_assert_ptr_null(strstr(t, "histograms"));
	ck_assert_str_eq(next, "statsd_my_mod_x_y_histograms");
	free(t);
	stats_blob_destroy(sb);
}
END_TEST

/*
 * A statsd counter: an unsigned fixed-point SUM (a counter, the metric's
 * own name) rendered exactly: the shortest double that reads back to it,
 * or its decimal expansion past a double's 53 bits. Its COUNT stays in
 * the blob: one series.
 */
START_TEST(series_fixed_point_counter)
{
	static const char *const names[] = { "value" };
	int tpl = unit_tpl("promq");
	struct statsblob *sb;
	struct kstat_hdr h;
	struct ks_view v = { &h, NULL, names, 1, NULL };
	char *t;
	/* 5/0.3 in Q32.32, as statsd's series.c makes it */
	int64_t x = (int64_t)nearbyint(ldexp(5 / 0.3, STATS_Q64_FBITS));

	UNIT_ADD(tpl, 0, "value", VSD_DTYPE_Q_U64, 0, STATS_VSS_SUM(),
	    STATS_VSS_COUNT());
	sb = stats_blob_alloc((uint32_t)tpl, 0);
	v.sb = sb;
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_XY, 0, x, 1, 0), 0);
	ks_hdr_init(&h, "statsd", 9, "t.q", "statsd", KSTAT_TYPE_BLOB, 0,
	    NULL);
	snprintf(h.path, sizeof(h.path), "%s", "statsd/counter/t.q/env:prod");
	t = render(&v, true, NULL, NULL);
	ck_assert_ptr_nonnull(strstr(t, "# TYPE statsd_t_q counter\n"));
	ck_assert_ptr_nonnull(strstr(t,
	    "statsd_t_q_total{env=\"prod\"} 16.666666666744277\n"));
	ck_assert_ptr_null(strstr(t, "_count"));
	free(t);
	/* 2^31 + 2^-32: 64 significant bits, its decimal expansion. */
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_XY, STATS_OPF_UNSIGNED,
	    (int64_t)(((uint64_t)1 << 63) + 1 - (uint64_t)x), 1, 0), 0);
	t = render(&v, true, NULL, NULL);
	ck_assert_ptr_nonnull(strstr(t, "statsd_t_q_total{env=\"prod\"} "
	    "2147483648.00000000023283064365386962890625\n"));
	free(t);
	stats_blob_destroy(sb);
}
END_TEST

/* The template of a statsd timer as series.c makes it: VOI 0 the values
 * in microseconds, VOI 1 the classic buckets as ranges [le + 1, ...). */
static struct statsblob *
timer_blob(const char *tplname)
{
	int tpl = unit_tpl(tplname);

	UNIT_ADD(tpl, 0, "value", VSD_DTYPE_INT_S64, 0, STATS_VSS_SUM(),
	    STATS_VSS_MIN(), STATS_VSS_COUNT(),
	    STATS_VSS_TDGSTCLUST64(20, 4));
	UNIT_ADD(tpl, 1, "buckets", VSD_DTYPE_INT_S64, 0,
	    STATS_VSS_HIST(VSD_DTYPE_CRHIST64, STATS_VSS_HIST_HLPR_INFO_USR(
	    VSD_DTYPE_CRHIST64, HBKTS(CRBKT(5001), CRBKT(100001),
	    CRBKT(2500001)), VSD_HIST_LBOUND_INF)));
	return stats_blob_alloc((uint32_t)tpl, 0);
}

static void
timer_add(struct statsblob *sb, int64_t us, int64_t weight)
{
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_XY, 0, us, weight, 0), 0);
	ck_assert_int_eq(engine_apply(sb, 1, STATS_OP_XY, 0, us, weight, 0), 0);
}

/*
 * A statsd timer is one histogram in seconds: its classic buckets with le
 * the exact decimal of the microseconds (5000 us is "0.005", never a
 * double's 0.0050000000000000001), a value on a bound in that bucket,
 * _sum exactly (200 us is 0.0002), _count the buckets' total; MIN, the
 * t-digest and COUNT are not shown.
 */
START_TEST(series_timer_one_histogram)
{
	static const char *const names[] = { "value", "buckets" };
	struct statsblob *sb = timer_blob("promtm");
	struct kstat_hdr h;
	struct ks_view v = { &h, sb, names, 2, NULL };
	char *t;

	timer_add(sb, 200, 1);		/* 0.2 ms */
	timer_add(sb, 5000, 2);		/* on the bound 0.005, weight 2 */
	timer_add(sb, 5001, 1);
	timer_add(sb, 3000000, 1);	/* past the last bound: +Inf */
	ks_hdr_init(&h, "statsd", 9, "t.ms", "statsd", KSTAT_TYPE_BLOB, 0,
	    NULL);
	snprintf(h.path, sizeof(h.path), "%s", "statsd/timer/t.ms/env:a");
	t = render(&v, true, NULL, NULL);
	ck_assert_str_eq(t,
	    "# TYPE statsd_t_ms_seconds histogram\n"
	    "# HELP statsd_t_ms_seconds statsd timer t.ms, in seconds\n"
	    "statsd_t_ms_seconds_bucket{env=\"a\",le=\"0.005\"} 3\n"
	    "statsd_t_ms_seconds_bucket{env=\"a\",le=\"0.1\"} 4\n"
	    "statsd_t_ms_seconds_bucket{env=\"a\",le=\"2.5\"} 4\n"
	    "statsd_t_ms_seconds_bucket{env=\"a\",le=\"+Inf\"} 5\n"
	    "statsd_t_ms_seconds_sum{env=\"a\"} 3.015201\n"
	    "statsd_t_ms_seconds_count{env=\"a\"} 5\n"
	    "# EOF\n");
	free(t);
	/* The text format: the same, without # EOF. */
	t = render(&v, false, NULL, NULL);
	ck_assert_ptr_nonnull(strstr(t, "# TYPE statsd_t_ms_seconds histogram\n"
	    "statsd_t_ms_seconds_bucket{env=\"a\",le=\"0.005\"} 3\n"));
	free(t);
	stats_blob_destroy(sb);
}
END_TEST

/*
 * A histogram or distribution: one histogram in the unit sent, whole
 * bounds; a series made by another template (no VOI 1) shows its +Inf
 * bucket from COUNT with _sum, never a bucket it cannot count; a set is
 * one gauge of its distinct count (VOI 1), its members never labels.
 */
START_TEST(series_histogram_set_gauge)
{
	static const char *const names[] = { "value", "distinct" };
	int tpl = unit_tpl("promhs");
	struct statsblob *sb;
	struct kstat_hdr h;
	struct ks_view v = { &h, NULL, names, 1, NULL };
	char *t;

	UNIT_ADD(tpl, 0, "value", VSD_DTYPE_INT_S64, 0, STATS_VSS_SUM(),
	    STATS_VSS_COUNT());
	sb = stats_blob_alloc((uint32_t)tpl, 0);
	v.sb = sb;
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_XY, 0, 7, 3, 0), 0);
	ks_hdr_init(&h, "statsd", 9, "h", "statsd", KSTAT_TYPE_BLOB, 0, NULL);
	snprintf(h.path, sizeof(h.path), "%s", "statsd/distribution/h");
	t = render(&v, false, NULL, NULL);
	ck_assert_str_eq(t,
	    "# HELP statsd_h statsd distribution h\n"
	    "# TYPE statsd_h histogram\n"
	    "statsd_h_bucket{le=\"+Inf\"} 3\n"
	    "statsd_h_sum{} 21\n"
	    "statsd_h_count{} 3\n");
	free(t);
	stats_blob_destroy(sb);

	tpl = unit_tpl("promset");
	UNIT_ADD(tpl, 0, "value", VSD_DTYPE_INT_S64, 0,
	    STATS_VSS(VS_STYPE_LIST, 0, 0, stat_list_vss_hlpr,
	    (&(struct vss_list_hlpr_info){ 8 })));
	UNIT_ADD(tpl, 1, "distinct", VSD_DTYPE_INT_U64, 0, LASTU64);
	sb = stats_blob_alloc((uint32_t)tpl, 0);
	v.sb = sb;
	v.nnames = 2;
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_XY, 0, 11, 1, 0), 0);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_XY, 0, 12, 1, 0), 0);
	ck_assert_int_eq(engine_apply(sb, 1, STATS_OP_SET, STATS_OPF_UNSIGNED,
	    2, 0, 0), 0);
	ks_hdr_init(&h, "statsd", 9, "s", "statsd", KSTAT_TYPE_BLOB, 0, NULL);
	snprintf(h.path, sizeof(h.path), "%s", "statsd/set/s");
	t = render(&v, false, NULL, NULL);
	ck_assert_str_eq(t,
	    "# HELP statsd_s statsd set s, the distinct count\n"
	    "# TYPE statsd_s gauge\n"
	    "statsd_s{} 2\n");
	free(t);
	stats_blob_destroy(sb);
}
END_TEST

/*
 * Values in a time unit are converted exactly: the decimal of the exact
 * quotient, 200 us 0.0002 and 123456789 ns 0.123456789, negatives too.
 */
START_TEST(exact_base_units)
{
	static const char *const names[] = { "lat_us", "up_ns", "d_ms" };
	int tpl = unit_tpl("promex");
	struct statsblob *sb;
	struct kstat_hdr h;
	struct ks_view v = { &h, NULL, names, 3, NULL };
	char *t;

	UNIT_ADD(tpl, 0, "lat_us", VSD_DTYPE_INT_U64, 0, LASTU64);
	UNIT_ADD(tpl, 1, "up_ns", VSD_DTYPE_INT_U64, 0, STATS_VSS_SUM());
	UNIT_ADD(tpl, 2, "d_ms", VSD_DTYPE_INT_S64, 0, STATS_VSS_LAST());
	sb = stats_blob_alloc((uint32_t)tpl, 0);
	v.sb = sb;
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_SET, 0, 200, 0, 0), 0);
	ck_assert_int_eq(engine_apply(sb, 1, STATS_OP_SET, 0, 123456789, 0,
	    0), 0);
	ck_assert_int_eq(engine_apply(sb, 2, STATS_OP_SET, 0, -1500, 0, 0), 0);
	ks_hdr_init(&h, "app", 0, "x", "misc", KSTAT_TYPE_NAMED, 0, NULL);
	t = render(&v, false, NULL, NULL);
	ck_assert_ptr_nonnull(strstr(t, "# TYPE statsd_app_x_lat_seconds gauge\n"
	    "statsd_app_x_lat_seconds{module=\"app\",kstat_instance=\"0\","
	    "name=\"x\",class=\"misc\"} 0.0002\n"));
	ck_assert_ptr_nonnull(strstr(t,
	    "# TYPE statsd_app_x_up_seconds_total counter\n"));
	ck_assert_ptr_nonnull(strstr(t, "\"} 0.123456789\n"));
	ck_assert_ptr_nonnull(strstr(t, "\"} -1.5\n"));
	free(t);
	stats_blob_destroy(sb);
}
END_TEST

/* Bucket bounds: exact decimals in whole units of 10^-point. */
START_TEST(bucket_bounds)
{
	int64_t le[PROM_BOUNDS_MAX];

	ck_assert_int_eq(prom_parse_bounds(PROM_BUCKETS_TIMER, 6, le), 11);
	ck_assert_int_eq(le[0], 5000);
	ck_assert_int_eq(le[2], 25000);
	ck_assert_int_eq(le[7], 1000000);
	ck_assert_int_eq(le[10], 10000000);
	ck_assert_int_eq(prom_parse_bounds(PROM_BUCKETS_HISTOGRAM, 0, le), 11);
	ck_assert_int_eq(le[10], 2500);
	ck_assert_int_eq(prom_parse_bounds("0.0000015", 6, le), -EINVAL);
	ck_assert_int_eq(prom_parse_bounds("0.0000010", 6, le), 1);
	ck_assert_int_eq(le[0], 1);
	ck_assert_int_eq(prom_parse_bounds("2.5", 0, le), -EINVAL);
	ck_assert_int_eq(prom_parse_bounds("2.0,3.", 0, le), 2);
	ck_assert_int_eq(prom_parse_bounds("0", 0, le), -EINVAL);
	ck_assert_int_eq(prom_parse_bounds("2,1", 0, le), -EINVAL);
	ck_assert_int_eq(prom_parse_bounds("1,1", 0, le), -EINVAL);
	ck_assert_int_eq(prom_parse_bounds("1,", 0, le), -EINVAL);
	ck_assert_int_eq(prom_parse_bounds(",1", 0, le), -EINVAL);
	ck_assert_int_eq(prom_parse_bounds("", 0, le), -EINVAL);
	ck_assert_int_eq(prom_parse_bounds("-1", 0, le), -EINVAL);
	ck_assert_int_eq(prom_parse_bounds("1e3", 0, le), -EINVAL);
	ck_assert_int_eq(prom_parse_bounds(".", 0, le), -EINVAL);
	ck_assert_int_eq(prom_parse_bounds("1.2.3", 6, le), -EINVAL);
	ck_assert_int_eq(prom_parse_bounds("99999999999999999999", 0, le),
	    -EINVAL);
	ck_assert_int_eq(prom_parse_bounds("9223372036855", 6, le), -EINVAL);
	ck_assert_int_eq(prom_parse_bounds("1,2,3,4,5,6,7,8,9,10,11,12,13,14,"
	    "15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33", 0, le),
	    -EINVAL);
}
END_TEST

/*
 * A Prometheus client's series (class prometheus, path prometheus/<type>/
 * <family>/<label>=<value>): its family's own name and labels, HELP the
 * description alone, millionths shown as the quotient, a bucket's le its
 * bound less one millionth, and no series of the COUNT beside the HIST.
 */
START_TEST(prom_client_series)
{
	static const char *const names[] = { "value" };
	int tpl = unit_tpl("promcl");
	struct statsblob *sb;
	struct kstat_hdr h;
	struct ks_view v = { &h, NULL, names, 1, NULL };
	const char *path[] = { "prometheus", "histogram", "app_lat_seconds",
	    "route=%2Fa", "code=2\"0" };
	char *t;
	int i;

	/* Bounds 0.005 and 0.1 (millionths plus one), +Inf above. */
	UNIT_ADD(tpl, 0, "value", VSD_DTYPE_INT_S64, 0, STATS_VSS_SUM(),
	    STATS_VSS_COUNT(), STATS_VSS_CRHIST64_USR(HBKTS(CRBKT(INT64_MIN),
	    CRBKT(5001), CRBKT(100001)), 0));
	sb = stats_blob_alloc((uint32_t)tpl, 0);
	v.sb = sb;
	/* 0.005 (on the bound), 0.006, 0.1 and 2 seconds. */
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_ABS, 0,
		    (int64_t[]){ 5000, 6000, 100000, 2000000 }[i], 0, 0), 0);
	ck_assert_int_eq(ks_hdr_new(&h, "python", 7, "app_lat_seconds.1",
	    "prometheus", KSTAT_TYPE_BLOB, 0, path, 5, "Latency.", NULL), 0);
	t = render(&v, false, NULL, NULL);
	ck_assert_ptr_nonnull(strstr(t, "# HELP app_lat_seconds Latency.\n"
	    "# TYPE app_lat_seconds histogram\n"));
	ck_assert_ptr_nonnull(strstr(t, "app_lat_seconds_bucket{route=\"/a\","
	    "code=\"2\\\"0\",le=\"0.005\"} 1\n"));
	ck_assert_ptr_nonnull(strstr(t, ",le=\"0.1\"} 3\n"));
	ck_assert_ptr_nonnull(strstr(t, ",le=\"+Inf\"} 4\n"));
	ck_assert_ptr_nonnull(strstr(t, "app_lat_seconds_sum{route=\"/a\","
	    "code=\"2\\\"0\"} 2.111\n"));
	ck_assert_ptr_nonnull(strstr(t, "_count{route=\"/a\",code=\"2\\\"0\"}"
	    " 4\n"));
	ck_assert_ptr_null(strstr(t, "statsd_"));
	ck_assert_ptr_null(strstr(t, "_count_total"));
	free(t);
	stats_blob_destroy(sb);

	/* A counter: <family>_total, its millionths as the quotient. */
	tpl = unit_tpl("promclc");
	UNIT_ADD(tpl, 0, "value", VSD_DTYPE_INT_U64, 0, STATS_VSS_SUM());
	sb = stats_blob_alloc((uint32_t)tpl, 0);
	v.sb = sb;
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_ABS, 0, 2500000, 0, 0),
	    0);
	path[1] = "counter";
	path[2] = "app_requests";
	ck_assert_int_eq(ks_hdr_new(&h, "python", 8, "app_requests.2",
	    "prometheus", KSTAT_TYPE_BLOB, 0, path, 3, "Requests.", NULL), 0);
	t = render(&v, false, NULL, NULL);
	ck_assert_ptr_nonnull(strstr(t, "# HELP app_requests_total Requests.\n"
	    "# TYPE app_requests_total counter\n"
	    "app_requests_total{} 2.5\n"));
	free(t);
	/* statsd_ is statsd's: such a family keeps the kstat's names. */
	path[2] = "statsd_statsd_daemon_applied";
	ck_assert_int_eq(ks_hdr_new(&h, "python", 8, "statsd_statsd_da.3",
	    "prometheus", KSTAT_TYPE_BLOB, 0, path, 3, "Spoof.", NULL), 0);
	t = render(&v, false, NULL, NULL);
	ck_assert_ptr_null(strstr(t, "# TYPE statsd_statsd_daemon_applied"));
	ck_assert_ptr_nonnull(strstr(t, "statsd_python_statsd_statsd_da_3_"
	    "value_sum_total{module=\"python\""));
	free(t);
	stats_blob_destroy(sb);
}
END_TEST

/* A statsd series: named by its metric, labelled by its tags; a kstat2
 * path's segments are labels of other kstats. */
START_TEST(series_tags_and_paths)
{
	static const char *const names[] = { "value" };
	int tpl = unit_tpl("promt");
	struct statsblob *sb;
	struct kstat_hdr h;
	struct ks_view v = { &h, NULL, names, 1, NULL };
	char stem[PROM_NAME_MAX], *t;

	UNIT_ADD(tpl, 0, "value", VSD_DTYPE_INT_U64, 0, STATS_VSS_SUM());
	sb = stats_blob_alloc((uint32_t)tpl, 0);
	v.sb = sb;
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_ABS, 0, 4, 0, 0), 0);
	ks_hdr_init(&h, "statsd", 7, "peer.requests", "statsd",
	    KSTAT_TYPE_RAW, 0, NULL);
	snprintf(h.path, sizeof(h.path), "%s", "statsd/counter/"
	    "peer.requests%2Fin/bare/env:prod/le:x/q:a\\b%22");
	ck_assert_str_eq(prom_stem(&h, stem, sizeof(stem)),
	    "statsd_peer_requests_in");
	t = render(&v, false, NULL, NULL);
	/* One number (a SUM only): the metric's own name. */
	ck_assert_ptr_nonnull(strstr(t, "# TYPE statsd_peer_requests_in_total "
	    "counter\n"));
	ck_assert_ptr_nonnull(strstr(t, "statsd_peer_requests_in_total{"
	    "bare=\"true\",env=\"prod\",tag_le=\"x\",q=\"a\\\\b\\\"\"} 4\n"));
	ck_assert_ptr_null(strstr(t, "module="));
	free(t);
	/* Another kstat's path: path_1, path_2, ... */
	ks_hdr_init(&h, "app", 0, "req", "misc", KSTAT_TYPE_RAW, 0, NULL);
	snprintf(h.path, sizeof(h.path), "%s", "zone/web");
	t = render(&v, false, NULL, NULL);
	ck_assert_ptr_nonnull(strstr(t, "class=\"misc\",path_1=\"zone\","
	    "path_2=\"web\"} 4\n"));
	free(t);
	stats_blob_destroy(sb);
}
END_TEST

/* The Linux kinds: a list's hits by value and its misses (counters), a
 * history's newest period (gauges), a raw ring's records and newest X. */
START_TEST(linux_kinds)
{
	static const char *const names[] = { "sizes", "load", "ev" };
	int tpl = unit_tpl("proml");
	struct statsblob *sb;
	struct kstat_hdr h;
	struct ks_view v = { &h, NULL, names, 3, NULL };
	char *t;

	UNIT_ADD(tpl, 0, "sizes", VSD_DTYPE_INT_S64, 0,
	    STATS_VSS(VS_STYPE_LIST, 0, 0, stat_list_vss_hlpr,
	    (&(struct vss_list_hlpr_info){ 2 })));
	UNIT_ADD(tpl, 1, "load", VSD_DTYPE_INT_S64, 0,
	    STATS_VSS(VS_STYPE_HISTORY, 0, 0, stat_history_vss_hlpr,
	    (&(struct vss_history_hlpr_info){ 4, HISTORY_RANGE, 1000000 })));
	UNIT_ADD(tpl, 2, "ev", VSD_DTYPE_INT_S64, 0,
	    STATS_VSS(VS_STYPE_RAW, 0, 0, stat_raw_vss_hlpr,
	    (&(struct vss_raw_hlpr_info){ 2 })));
	sb = stats_blob_alloc((uint32_t)tpl, 0);
	v.sb = sb;
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_XY, 0, -4, 3, 0), 0);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_XY, 0, 8, 1, 0), 0);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_XY, 0, 9, 1, 0), 0);
	ck_assert_int_eq(engine_apply(sb, 1, STATS_OP_XY, 0, 5, 1, 100), 0);
	ck_assert_int_eq(engine_apply(sb, 1, STATS_OP_XY, 0, 7, 1, 200), 0);
	ck_assert_int_eq(engine_apply(sb, 2, STATS_OP_XY, 0, 11, 1, 100), 0);
	ck_assert_int_eq(engine_apply(sb, 2, STATS_OP_XY, 0, 12, 1, 200), 0);
	ck_assert_int_eq(engine_apply(sb, 2, STATS_OP_XY, 0, 13, 1, 300), 0);
	ks_hdr_init(&h, "app", 0, "lx", "misc", KSTAT_TYPE_RAW, 0, NULL);
	h.snaptime = 300;
	t = render(&v, true, NULL, NULL);
	ck_assert_ptr_nonnull(strstr(t,
	    "# TYPE statsd_app_lx_sizes_list_hits counter\n"));
	ck_assert_ptr_nonnull(strstr(t, ",value=\"-4\"} 3\n"));
	ck_assert_ptr_nonnull(strstr(t, ",value=\"8\"} 1\n"));
	ck_assert_ptr_nonnull(strstr(t, "statsd_app_lx_sizes_list_missed_total{"));
	ck_assert_ptr_nonnull(strstr(t,
	    "# TYPE statsd_app_lx_load_period_count gauge\n"));
	ck_assert_ptr_nonnull(strstr(t, "statsd_app_lx_load_period_max{"));
	ck_assert_ptr_nonnull(strstr(t, "statsd_app_lx_ev_raw_records_total{"));
	ck_assert_ptr_nonnull(strstr(t, "class=\"misc\"} 3\n"));
	ck_assert_ptr_nonnull(strstr(t, "statsd_app_lx_ev_raw_last{"));
	ck_assert_ptr_nonnull(strstr(t, "class=\"misc\"} 13\n"));
	free(t);
	stats_blob_destroy(sb);
}
END_TEST

/* One family name, two types (an unsigned SUM is a counter, a signed one
 * a gauge): the first kstat's type holds, the other's series are left
 * out and counted, and nothing else breaks. */
START_TEST(conflicting_types)
{
	static const char *const names[] = { "v" };
	int tu = unit_tpl("promcu"), ts = unit_tpl("promcs");
	struct statsblob *su, *ss;
	struct kstat_hdr hu, hs;
	struct ks_view vu = { &hu, NULL, names, 1, NULL };
	struct ks_view vs = { &hs, NULL, names, 1, NULL };
	struct sbuf *s = sbuf_new_auto();
	struct prom_out o;
	char next[PROM_NAME_MAX] = "";

	UNIT_ADD(tu, 0, "v", VSD_DTYPE_INT_U64, 0, STATS_VSS_SUM());
	UNIT_ADD(ts, 0, "v", VSD_DTYPE_INT_S64, 0, STATS_VSS_SUM());
	su = stats_blob_alloc((uint32_t)tu, 0);
	ss = stats_blob_alloc((uint32_t)ts, 0);
	vu.sb = su;
	vs.sb = ss;
	ks_hdr_init(&hu, "app", 0, "c", "misc", KSTAT_TYPE_RAW, 0, NULL);
	ks_hdr_init(&hs, "app", 1, "c", "misc", KSTAT_TYPE_RAW, 0, NULL);
	ck_assert_int_eq(prom_begin(&o, s, true), 0);
	ck_assert_int_eq(prom_kstat(&o, &vu, "statsd_app_c_v_sum", next,
	    sizeof(next)), 1);
	ck_assert_int_eq(prom_kstat(&o, &vs, "statsd_app_c_v_sum", next,
	    sizeof(next)), 0);
	ck_assert_uint_eq(o.conflicts, 1);
	prom_end(&o);
	ck_assert_int_eq(sbuf_finish(s), 0);
	ck_assert_ptr_nonnull(strstr(sbuf_data(s),
	    "# TYPE statsd_app_c_v_sum counter\n"));
	ck_assert_ptr_null(strstr(sbuf_data(s), "gauge"));
	prom_done(&o);
	sbuf_delete(s);
	stats_blob_destroy(su);
	stats_blob_destroy(ss);
}
END_TEST

START_TEST(quantile_list)
{
	double q[PROM_QUANTILES_MAX];

	ck_assert_int_eq(prom_parse_quantiles("0.5,0.9,0.99", q), 3);
	ck_assert(q[0] == 0.5 && q[2] == 0.99);
	ck_assert_int_eq(prom_parse_quantiles("0,1", q), 2);
	ck_assert_int_eq(prom_parse_quantiles("", q), -EINVAL);
	ck_assert_int_eq(prom_parse_quantiles("0.9,0.5", q), -EINVAL);
	ck_assert_int_eq(prom_parse_quantiles("1.5", q), -EINVAL);
	ck_assert_int_eq(prom_parse_quantiles("nan", q), -EINVAL);
	ck_assert_int_eq(prom_parse_quantiles("0.5,,0.6", q), -EINVAL);
	ck_assert_int_eq(prom_parse_quantiles("0.5x", q), -EINVAL);
	ck_assert_int_eq(prom_parse_quantiles(
	    "0,.1,.2,.3,.4,.5,.6,.7,.75,.8,.85,.9,.95,.97,.98,.99,1", q),
	    -EINVAL);
}
END_TEST

/*
 * Native buckets as client_golang fills them: its schema-3 bounds (the
 * constants of its nativeHistogramBounds), each bound in its own bucket
 * (upper bounds are inclusive), the next double in the next; negative
 * schemas by powers of 4 and 16. The ranges of whole units each lie in
 * one bucket, and every bucket with a whole unit has its range.
 */
START_TEST(native_buckets)
{
	static const double go3[] = { 0.5, 0.5452538663326288,
	    0.5946035575013605, 0.6484197773255048, 0.7071067811865475,
	    0.7711054127039704, 0.8408964152537144, 0.9170040432046711 };
	int64_t lbs[PROM_NATIVE_LBS_MAX];
	int i, n, j;

	for (i = 1; i < 8; i++) {
		ck_assert_int_eq(prom_native_key(go3[i] * 2, 3), i);
		ck_assert_int_eq(prom_native_key(nextafter(go3[i] * 2, 4), 3),
		    i + 1);
		ck_assert_int_eq(prom_native_key(nextafter(go3[i] * 2, 0), 3),
		    i);
		ck_assert_int_eq(prom_native_key(nextafter(go3[i - 1] * 2, 4),
		    3), i);
	}
	ck_assert_int_eq(prom_native_key(1, 3), 0);
	ck_assert_int_eq(prom_native_key(2, 3), 8);
	ck_assert_int_eq(prom_native_key(3, 3), 13);
	ck_assert_int_eq(prom_native_key(0.0002, 3), -98);
	ck_assert_int_eq(prom_native_key(1, 0), 0);
	ck_assert_int_eq(prom_native_key(3, 0), 2);
	ck_assert_int_eq(prom_native_key(4, 0), 2);
	ck_assert_int_eq(prom_native_key(3, -1), 1);
	ck_assert_int_eq(prom_native_key(4, -1), 1);
	ck_assert_int_eq(prom_native_key(4.5, -1), 2);
	ck_assert_int_eq(prom_native_key(0.5, -1), 0);
	ck_assert_int_eq(prom_native_key(0.2, -1), -1);
	ck_assert_int_eq(prom_native_key(16, -2), 1);
	ck_assert_int_eq(prom_native_key(17, -2), 2);

	for (j = 0; j < 2; j++) {
		unsigned point = j == 0 ? PROM_TIMER_POINT : 0;
		double scale = j == 0 ? 1e6 : 1;

		n = prom_native_lbs(3, point, lbs, PROM_NATIVE_LBS_MAX);
		ck_assert_int_gt(n, 100);
		ck_assert_int_eq(lbs[0], 0);
		ck_assert_int_eq(lbs[1], 1);
		for (i = 2; i < n; i++) {
			ck_assert_int_gt(lbs[i], lbs[i - 1]);
			/* A range's first and last units share a bucket;
			 * the unit before it is in an earlier one. */
			ck_assert_int_eq(prom_native_key((double)lbs[i - 1] /
			    scale, 3), prom_native_key((double)(lbs[i] - 1) /
			    scale, 3));
			ck_assert_int_lt(prom_native_key((double)(lbs[i] - 1) /
			    scale, 3), prom_native_key((double)lbs[i] / scale,
			    3));
		}
		ck_assert_int_ge(lbs[n - 1], j == 0 ?
		    (int64_t)PROM_NATIVE_TOP_S * 1000000 : PROM_NATIVE_TOP);
	}
	ck_assert_int_eq(prom_native_lbs(4, 6, lbs, PROM_NATIVE_LBS_MAX),
	    -EINVAL);
	ck_assert_int_eq(prom_native_lbs(-5, 6, lbs, PROM_NATIVE_LBS_MAX),
	    -EINVAL);
	ck_assert_int_gt(prom_native_lbs(-4, 6, lbs, PROM_NATIVE_LBS_MAX), 3);
}
END_TEST

/* A rule refused: the column of its fault. */
static void
rule_bad(const char *line, unsigned want_col)
{
	struct prom_rules *r = prom_rules_new();
	char why[200];
	unsigned col = 0;

	ck_assert_ptr_nonnull(r);
	ck_assert_msg(prom_rules_add(r, line, why, sizeof(why), &col) ==
	    -EINVAL, "%s accepted", line);
	ck_assert_msg(col == want_col, "%s: column %u (%s), want %u", line, col,
	    why, want_col);
	ck_assert_uint_eq(prom_rules_count(r), 0);
	prom_rules_unref(r);
}

/*
 * Mapping rules: globs match whole dotted names, a '*' one or more
 * characters of one component, captured; the first rule that matches
 * decides; names and label values expand $n and ${n}, values escaped;
 * a bad rule is refused with the column of its fault.
 */
START_TEST(mapping_rules)
{
	struct prom_rules *r = prom_rules_new();
	struct prom_match m;
	char why[200];
	unsigned col;

	ck_assert_int_eq(prom_rules_add(r, "api.*.latency name=api_latency "
	    "route=\"$1\" why=\"a \\\"q\\\" ${1}\"", why, sizeof(why),
	    &col), 0);
	ck_assert_int_eq(prom_rules_add(r, "api.*.*  drop", why, sizeof(why),
	    &col), 0);
	ck_assert_int_eq(prom_rules_add(r, "t_*.x*y observer=summary "
	    "quantiles=0.5,0.9 name=$2_$1", why, sizeof(why), &col), 0);
	ck_assert_int_eq(prom_rules_add(r, "n.* observer=native", why,
	    sizeof(why), &col), 0);
	ck_assert_int_eq(prom_rules_add(r, "ttl.*.m ttl=5m", why,
	    sizeof(why), &col), 0);
	ck_assert_int_eq(prom_rules_add(r, "ttl.* ttl=30s name=x_$1", why,
	    sizeof(why), &col), 0);
	ck_assert_uint_eq(prom_rules_count(r), 6);
	ck_assert_str_eq(prom_rules_line(r, 1), "api.*.*  drop");

	ck_assert(prom_rules_match(r, "api.login.latency", 17, &m));
	ck_assert(!m.drop);
	ck_assert_str_eq(m.name, "api_latency");
	ck_assert_str_eq(m.labels, "route=\"login\",why=\"a \\\"q\\\" login\"");
	ck_assert_str_eq(m.lnames, "route");
	ck_assert_str_eq(m.lnames + 6, "why");
	ck_assert_int_eq(m.observer, PROM_OBS_HISTOGRAM);
	/* A capture is one component, never empty, never a '.'. */
	ck_assert(prom_rules_match(r, "api.a.b", 7, &m) && m.drop);
	ck_assert(!prom_rules_match(r, "api..latency", 12, &m));
	ck_assert(!prom_rules_match(r, "api.a.b.latency", 15, &m));
	ck_assert(!prom_rules_match(r, "api.login", 9, &m));
	ck_assert(!prom_rules_match(r, "xapi.a.b", 8, &m));
	ck_assert(prom_rules_match(r, "t_1.xABy", 8, &m));
	ck_assert_str_eq(m.name, "AB_1");
	ck_assert_int_eq(m.observer, PROM_OBS_SUMMARY);
	ck_assert_uint_eq(m.nq, 2);
	ck_assert(m.quantiles[1] == 0.9);
	ck_assert(!prom_rules_match(r, "t_1.xy", 6, &m));
	ck_assert(prom_rules_match(r, "n.q", 3, &m));
	ck_assert_int_eq(m.observer, PROM_OBS_NATIVE);
	ck_assert_str_eq(m.name, "");
	ck_assert_uint_eq(m.ttl_ns, 0);
	ck_assert(prom_rules_match(r, "ttl.a.m", 7, &m));
	ck_assert_uint_eq(m.ttl_ns, 300000000000u);
	ck_assert(prom_rules_match(r, "ttl.a", 5, &m));
	ck_assert_uint_eq(m.ttl_ns, 30000000000u);
	ck_assert_str_eq(m.name, "x_a");
	ck_assert(!prom_rules_match(r, "other", 5, &m));
	/* Shared by reference. */
	ck_assert_ptr_eq(prom_rules_ref(r), r);
	prom_rules_unref(r);
	ck_assert(prom_rules_gen(r) != 0);
	prom_rules_unref(r);

	rule_bad("", 1);
	rule_bad("a.**.b drop", 4);
	rule_bad("a..b drop", 3);
	rule_bad("a.*.b name=x_$2", 14);
	rule_bad("a.*.b name=x_$0", 14);
	rule_bad("a.*.b name=9x", 12);
	rule_bad("a.*.b name=a-b", 13);
	rule_bad("a.*.b name=a name=b", 14);
	rule_bad("a.*.b bogus", 7);
	rule_bad("a.*.b observer=gauge", 16);
	rule_bad("a.*.b quantiles=0.9,0.5", 17);
	rule_bad("a.*.b le=\"1\"", 7);
	rule_bad("a.*.b __x=\"1\"", 7);
	rule_bad("a.*.b 1x=\"1\"", 7);
	rule_bad("a.*.b x=1", 9);
	rule_bad("a.*.b x=\"1", 9);
	rule_bad("a.*.b x=\"$3\"", 10);
	rule_bad("a.*.b x=\"1\"y", 12);
	rule_bad("a.*.b x=\"1\" x=\"2\"", 13);
	rule_bad("a.*.b drop name=x", 1);
	rule_bad("a.*.*.*.*.*.*.*.*.*.* drop", 21);
	rule_bad("a.*.b ttl=", 11);
	rule_bad("a.*.b ttl=5", 12);
	rule_bad("a.*.b ttl=5d", 12);
	rule_bad("a.*.b ttl=5sx", 12);
	rule_bad("a.*.b ttl=s", 11);
	rule_bad("a.*.b ttl=0s", 11);
	rule_bad("a.*.b ttl=366d", 14);
	rule_bad("a.*.b ttl=8761h", 11);
	rule_bad("a.*.b ttl=99999999999s", 11);
	rule_bad("a.*.b ttl=1h ttl=2h", 14);
}
END_TEST

/* A rule renames, labels, drops and observes statsd series. */
START_TEST(mapping_rules_render)
{
	static const char *const names[] = { "value", "buckets" };
	struct statsblob *sb = timer_blob("prommap");
	struct prom_rules *r = prom_rules_new();
	struct sbuf *out = sbuf_new_auto();
	struct kstat_hdr h;
	struct ks_view v = { &h, sb, names, 2, NULL };
	struct prom_out o;
	char why[200], stem[PROM_NAME_MAX];
	unsigned col;
	const char *t;

	ck_assert_int_eq(prom_rules_add(r, "api.*.latency name=api_latency "
	    "route=\"$1\"", why, sizeof(why), &col), 0);
	ck_assert_int_eq(prom_rules_add(r, "sum.* observer=summary "
	    "quantiles=0.5", why, sizeof(why), &col), 0);
	ck_assert_int_eq(prom_rules_add(r, "drop.* drop", why, sizeof(why),
	    &col), 0);
	ck_assert_int_eq(prom_rules_add(r, "old.* ttl=10s", why, sizeof(why),
	    &col), 0);
	timer_add(sb, 2000, 1);
	ks_hdr_init(&h, "statsd", 9, "api.a.latency", "statsd",
	    KSTAT_TYPE_BLOB, 0, NULL);
	snprintf(h.path, sizeof(h.path), "%s",
	    "statsd/timer/api.a.latency/route:x/zone:b");
	ck_assert_str_eq(prom_stem_rules(r, &h, stem, sizeof(stem)),
	    "api_latency");
	ck_assert_int_eq(prom_begin(&o, out, false), 0);
	o.rules = r;
	ck_assert_int_eq(prom_kstat(&o, &v, NULL, NULL, 0), 6);
	/* The rule's route wins over the tag route:x. */
	snprintf(h.path, sizeof(h.path), "%s", "statsd/timer/sum.t");
	ck_assert_int_eq(prom_kstat(&o, &v, NULL, NULL, 0), 3);
	snprintf(h.path, sizeof(h.path), "%s", "statsd/timer/drop.t");
	ck_assert_int_eq(prom_kstat(&o, &v, NULL, NULL, 0), 0);
	/* ttl=10s: shown up to 10 s after its last update (snaptime),
	 * then left out; a snaptime ahead of the scrape's time is fresh;
	 * no scrape time, no TTL. */
	snprintf(h.path, sizeof(h.path), "%s", "statsd/timer/old.t");
	h.snaptime = 5000000000;
	o.now_ns = 15000000000u;
	ck_assert_int_eq(prom_kstat(&o, &v, NULL, NULL, 0), 6);
	o.now_ns = 15000000001u;
	ck_assert_int_eq(prom_kstat(&o, &v, NULL, NULL, 0), 0);
	h.snaptime = 20000000000;
	ck_assert_int_eq(prom_kstat(&o, &v, NULL, NULL, 0), 6);
	h.snaptime = 0;
	o.now_ns = 0;
	ck_assert_int_eq(prom_kstat(&o, &v, NULL, NULL, 0), 6);
	/* Another rule's series is not aged. */
	o.now_ns = 1000000000000u;
	snprintf(h.path, sizeof(h.path), "%s", "statsd/timer/sum.t");
	ck_assert_int_eq(prom_kstat(&o, &v, NULL, NULL, 0), 3);
	prom_done(&o);
	ck_assert_int_eq(sbuf_finish(out), 0);
	t = sbuf_data(out);
	ck_assert_ptr_nonnull(strstr(t, "# TYPE api_latency histogram\n"));
	ck_assert_ptr_nonnull(strstr(t, "api_latency_bucket{route=\"a\","
	    "zone=\"b\",le=\"0.005\"} 1\n"));
	ck_assert_ptr_nonnull(strstr(t, "api_latency_sum{route=\"a\","
	    "zone=\"b\"} 0.002\n"));
	ck_assert_ptr_null(strstr(t, "route=\"x\""));
	ck_assert_ptr_nonnull(strstr(t, "# TYPE statsd_sum_t_seconds summary\n"));
	ck_assert_ptr_nonnull(strstr(t,
	    "statsd_sum_t_seconds{quantile=\"0.5\"} 0.002\n"));
	ck_assert_ptr_nonnull(strstr(t, "statsd_sum_t_seconds_count{} 1\n"));
	ck_assert_ptr_null(strstr(t, "drop"));
	sbuf_delete(out);
	prom_rules_unref(r);
	stats_blob_destroy(sb);
}
END_TEST

static Suite *
render_prom_suite(void)
{
	Suite *s = suite_create("render_prom");
	TCase *tc = tcase_create("prom");

	tcase_add_test(tc, counter_or_gauge_by_kind);
	tcase_add_test(tc, named_own_values);
	tcase_add_test(tc, histogram_cumulative);
	tcase_add_test(tc, summary_quantiles);
	tcase_add_test(tc, names_labels_and_passes);
	tcase_add_test(tc, series_tags_and_paths);
	tcase_add_test(tc, prom_client_series);
	tcase_add_test(tc, series_fixed_point_counter);
	tcase_add_test(tc, series_timer_one_histogram);
	tcase_add_test(tc, series_histogram_set_gauge);
	tcase_add_test(tc, exact_base_units);
	tcase_add_test(tc, bucket_bounds);
	tcase_add_test(tc, native_buckets);
	tcase_add_test(tc, mapping_rules);
	tcase_add_test(tc, mapping_rules_render);
	tcase_add_test(tc, linux_kinds);
	tcase_add_test(tc, conflicting_types);
	tcase_add_test(tc, quantile_list);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_main(render_prom_suite());
}
