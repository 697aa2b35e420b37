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
 * own name) and COUNT, each rendered exactly: the shortest double that
 * reads back to it, or its decimal expansion past a double's 53 bits. A
 * series with a distribution (a timer) keeps every kind's suffix.
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
	ck_assert_ptr_nonnull(strstr(t, "# TYPE statsd_t_q_count counter\n"));
	ck_assert_ptr_nonnull(strstr(t,
	    "statsd_t_q_count_total{env=\"prod\"} 1\n"));
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

START_TEST(series_timer_keeps_suffixes)
{
	static const char *const names[] = { "value" };
	int tpl = unit_tpl("promtm");
	struct statsblob *sb;
	struct kstat_hdr h;
	struct ks_view v = { &h, NULL, names, 1, NULL };
	char *t;

	UNIT_ADD(tpl, 0, "value", VSD_DTYPE_INT_S64, 0, STATS_VSS_SUM(),
	    STATS_VSS_TDGSTCLUST64(20, 4));
	sb = stats_blob_alloc((uint32_t)tpl, 0);
	v.sb = sb;
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_XY, 0, 7, 1, 0), 0);
	ks_hdr_init(&h, "statsd", 9, "t.ms", "statsd", KSTAT_TYPE_BLOB, 0,
	    NULL);
	snprintf(h.path, sizeof(h.path), "%s", "statsd/timer/t.ms");
	t = render(&v, true, NULL, NULL);
	ck_assert_ptr_nonnull(strstr(t, "statsd_t_ms_sum{} 7\n"));
	ck_assert_ptr_null(strstr(t, "statsd_t_ms{"));
	free(t);
	stats_blob_destroy(sb);
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
	tcase_add_test(tc, series_timer_keeps_suffixes);
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
