/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_render_kstat.c: kstats as kstat(1M) prints them: the man page's -p
 * example, illumos kstat(1M)'s default block and -j shape, -C and -l, flat
 * names for every kstat type (NAMED, INTR, IO with its snapshot fix-up,
 * TIMER, and <voi>.<kind> for blobs), ordering, selection and JSON escapes.
 */
#include <errno.h>

#include "unit.h"
#include "engine.h"
#include "render_kstat.h"
#include "stat_ioq.h"
#include "stat_scalar.h"
#include "stat_timer.h"

#define LASTU32	STATS_VSS(VS_STYPE_LAST, 0, 0, stats_vss_last_hlpr, NULL)

static const char *const misc_names[] = { "avenrun_15min", "avenrun_1min",
    "avenrun_5min", "nproc", "model" };

static struct statsblob *
system_misc(void)
{
	int tpl = unit_tpl("misc");
	struct statsblob *sb;

	UNIT_ADD(tpl, 0, "avenrun_15min", VSD_DTYPE_INT_U32, 0, LASTU32);
	UNIT_ADD(tpl, 1, "avenrun_1min", VSD_DTYPE_INT_U32, 0, LASTU32);
	UNIT_ADD(tpl, 2, "avenrun_5min", VSD_DTYPE_INT_U32, 0, LASTU32);
	UNIT_ADD(tpl, 3, "nproc", VSD_DTYPE_INT_S32, 0, STATS_VSS_SUM());
	UNIT_ADD(tpl, 4, "model", VSD_DTYPE_INT_U64, 0,
	    STATS_VSS(VS_STYPE_LAST, 0, 0, stat_string_vss_hlpr,
	    (&(struct vss_string_hlpr_info){ KSTAT_DATA_STRING, 64 })));
	sb = stats_blob_alloc((uint32_t)tpl, 0);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_SET, 0, 3, 0, 0), 0);
	ck_assert_int_eq(engine_apply(sb, 1, STATS_OP_SET, 0, 4, 0, 0), 0);
	ck_assert_int_eq(engine_apply(sb, 2, STATS_OP_SET, 0, 2, 0, 0), 0);
	ck_assert_int_eq(engine_apply(sb, 3, STATS_OP_ABS, 0, 61, 0, 0), 0);
	ck_assert_int_eq(engine_set_string(sb, 4, "Big \"Iron\"\t2", 12), 0);
	return sb;
}

static char *
render(enum ksfmt_mode mode, const struct ks_view *v, size_t n,
    const char *selector, size_t *matched)
{
	struct ks_selector sel;
	struct input_error err;
	struct sbuf *s = sbuf_new_auto();
	char *r;

	if (selector != NULL)
		ck_assert_int_eq(ks_selector_parse(&sel, selector, &err), 0);
	ck_assert_int_eq(ksfmt_render(s, mode, v, n, selector != NULL ? &sel :
	    NULL, NULL, matched), 0);
	if (selector != NULL)
		ks_selector_done(&sel);
	ck_assert_int_eq(sbuf_finish(s), 0);
	r = strdup(sbuf_data(s));
	sbuf_delete(s);
	return r;
}

/* Times as kstat prints them, for any value a corrupted checkpoint may
 * bring (INT64_MIN's negation once overflowed). */
START_TEST(times_every_value)
{
	char b[48];

	ksfmt_time(b, sizeof(b), 0);
	ck_assert_str_eq(b, "0");
	ksfmt_time(b, sizeof(b), 1500000000);
	ck_assert_str_eq(b, "1.500000000");
	ksfmt_time(b, sizeof(b), -1500000000);
	ck_assert_str_eq(b, "-1.500000000");
	ksfmt_time(b, sizeof(b), -500000000);
	ck_assert_str_eq(b, "-0.500000000");
	ksfmt_time(b, sizeof(b), INT64_MIN);
	ck_assert_str_eq(b, "-9223372036.854775808");
	ksfmt_time(b, sizeof(b), INT64_MAX);
	ck_assert_str_eq(b, "9223372036.854775807");
}
END_TEST

START_TEST(man_page_parseable_example)
{
	struct statsblob *sb = system_misc();
	struct kstat_hdr h;
	struct ks_view v = { &h, sb, misc_names, 5, NULL };
	size_t matched;
	char *txt;

	ks_hdr_init(&h, "unix", 0, "system_misc", "misc", KSTAT_TYPE_NAMED, 0,
	    NULL);
	h.snaptime = INT64_C(8464242917580);
	txt = render(KSFMT_PARSEABLE, &v, 1, "unix:0:system_misc:avenrun*",
	    &matched);
	ck_assert_str_eq(txt,
	    "unix:0:system_misc:avenrun_15min\t3\n"
	    "unix:0:system_misc:avenrun_1min\t4\n"
	    "unix:0:system_misc:avenrun_5min\t2\n");
	ck_assert_uint_eq(matched, 1);
	free(txt);
	/* Everything: pseudo-statistics included, class with -p. */
	txt = render(KSFMT_PARSEABLE, &v, 1, NULL, NULL);
	ck_assert_str_eq(txt,
	    "unix:0:system_misc:avenrun_15min\t3\n"
	    "unix:0:system_misc:avenrun_1min\t4\n"
	    "unix:0:system_misc:avenrun_5min\t2\n"
	    "unix:0:system_misc:class\tmisc\n"
	    "unix:0:system_misc:crtime\t0\n"
	    "unix:0:system_misc:model\tBig \"Iron\"\t2\n"
	    "unix:0:system_misc:nproc\t61\n"
	    "unix:0:system_misc:snaptime\t8464.242917580\n");
	free(txt);
	txt = render(KSFMT_COLON, &v, 1, ":::nproc", NULL);
	ck_assert_str_eq(txt, "unix:0:system_misc:nproc:61\n");
	free(txt);
	txt = render(KSFMT_NAMES, &v, 1, ":::/time/", NULL);
	ck_assert_str_eq(txt, "unix:0:system_misc:crtime\n"
	    "unix:0:system_misc:snaptime\n");
	free(txt);
	/* Nothing selected: nothing shown, and JSON is an empty array. */
	txt = render(KSFMT_PARSEABLE, &v, 1, "unix:1", &matched);
	ck_assert_str_eq(txt, "");
	ck_assert_uint_eq(matched, 0);
	free(txt);
	txt = render(KSFMT_JSON, &v, 1, ":::nosuch", &matched);
	ck_assert_str_eq(txt, "[]\n");
	ck_assert_uint_eq(matched, 0);
	free(txt);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(default_and_json_shapes)
{
	struct statsblob *sb = system_misc();
	struct kstat_hdr h;
	struct ks_view v = { &h, sb, misc_names, 5, NULL };
	char *txt;

	ks_hdr_init(&h, "unix", 0, "system_misc", "misc", KSTAT_TYPE_NAMED, 0,
	    NULL);
	h.snaptime = INT64_C(8464242917580);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_SET, 0, 14, 0, 0), 0);
	txt = render(KSFMT_DEFAULT, &v, 1, ":::/^(avenrun_15|crtime|snaptime)/",
	    NULL);
	ck_assert_str_eq(txt,
	    "module: unix                            instance: 0     \n"
	    "name:   system_misc                     class:    misc\n"
	    "\tavenrun_15min                   14\n"
	    "\tcrtime                          0\n"
	    "\tsnaptime                        8464.242917580\n"
	    "\n");
	free(txt);
	txt = render(KSFMT_JSON, &v, 1, ":::/^(avenrun_15|crtime|snaptime|model)/",
	    NULL);
	ck_assert_str_eq(txt,
	    "[{\n"
	    "\t\"module\": \"unix\",\n"
	    "\t\"instance\": 0,\n"
	    "\t\"name\": \"system_misc\",\n"
	    "\t\"class\": \"misc\",\n"
	    "\t\"type\": 1,\n"
	    "\t\"snaptime\": 8464.242917580,\n"
	    "\t\"data\": {\n"
	    "\t\t\"avenrun_15min\": 14,\n"
	    "\t\t\"crtime\": 0,\n"
	    "\t\t\"model\": \"Big \\\"Iron\\\"\\t2\",\n"
	    "\t\t\"snaptime\": 8464.242917580\n"
	    "\t}\n"
	    "}]\n");
	free(txt);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(intr_io_timer_and_blob_names)
{
	static const char *const intr_names[] = { "hard", "soft", "watchdog",
	    "spurious", "multiple_service" };
	static const char *const io_names[] = { "sd0" };
	static const char *const t_names[] = { "flush" };
	static const char *const b_names[] = { "latency" };
	int ti = unit_tpl("intr"), tio = unit_tpl("io"), tt = unit_tpl("tm"),
	    tb = unit_tpl("blob");
	struct statsblob *si, *sio, *st, *sbb;
	struct kstat_hdr hi, hio, ht, hb;
	struct ks_view v[4];
	char *txt;
	int i;

	for (i = 0; i < KSTAT_NUM_INTRS; i++)
		UNIT_ADD(ti, i, intr_names[i], VSD_DTYPE_INT_U32, 0,
		    STATS_VSS_SUM());
	UNIT_ADD(tio, 0, "sd0", VSD_DTYPE_INT_S64, 0,
	    STATS_VSS(VS_STYPE_IOQ, 0, 0, stat_ioq_vss_hlpr, NULL));
	UNIT_ADD(tt, 0, "flush", VSD_DTYPE_INT_S64, 0,
	    STATS_VSS(VS_STYPE_TIMER, 0, 0, stat_timer_vss_hlpr, NULL));
	UNIT_ADD(tb, 0, "latency", VSD_DTYPE_INT_U64, 0, STATS_VSS_SUM(),
	    STATS_VSS_MIN(), STATS_VSS_MAX(),
	    STATS_VSS(VS_STYPE_COUNT, 0, 0, stats_vss_count_hlpr, NULL),
	    STATS_VSS_CRHIST64_LIN(0, 100, 10, 0));
	si = stats_blob_alloc((uint32_t)ti, 0);
	sio = stats_blob_alloc((uint32_t)tio, 0);
	st = stats_blob_alloc((uint32_t)tt, 0);
	sbb = stats_blob_alloc((uint32_t)tb, 0);
	for (i = 0; i < 3; i++)
		engine_apply(si, KSTAT_INTR_HARD, STATS_OP_ABS, 0, 1, 0, 0);
	engine_apply(si, KSTAT_INTR_SPURIOUS, STATS_OP_ABS, 0, 1, 0, 0);
	engine_apply(sio, 0, STATS_OP_QENTER, 0, 0, 0, 1000);
	engine_apply(sio, 0, STATS_OP_QMOVE, 0, 0, 0, 1500);
	engine_apply(st, 0, STATS_OP_TSTART, 0, 0, 0, 100);
	engine_apply(st, 0, STATS_OP_TSTOP, 0, 0, 0, 350);
	stats_voi_update_abs_u64(sbb, 0, 7);
	stats_voi_update_abs_u64(sbb, 0, 70);
	ks_hdr_init(&hi, "pcie", 1, "intr0", "interrupts", KSTAT_TYPE_INTR, 0,
	    NULL);
	ks_hdr_init(&hio, "sd", 0, NULL, "disk", KSTAT_TYPE_IO, 0, NULL);
	hio.snaptime = 2000;	/* run queue busy 1500..2000 as read */
	ks_hdr_init(&ht, "fs", 0, "timers", NULL, KSTAT_TYPE_TIMER, 0, NULL);
	ks_hdr_init(&hb, "app", 10, "requests", "app", KSTAT_TYPE_BLOB, 0,
	    NULL);
	hb.crtime = 1500000000;
	v[0] = (struct ks_view){ &hi, si, intr_names, 5, NULL };
	v[1] = (struct ks_view){ &hio, sio, io_names, 1, NULL };
	v[2] = (struct ks_view){ &ht, st, t_names, 1, NULL };
	v[3] = (struct ks_view){ &hb, sbb, b_names, 1, NULL };
	txt = render(KSFMT_PARSEABLE, v, 4, ":::/^[^cs]|^s[^n]/", NULL);
	/* Order: app, fs, pcie, sd (module), by strcasecmp. */
	ck_assert_str_eq(txt,
	    "app:10:requests:latency.count\t2\n"
	    "app:10:requests:latency.max\t70\n"
	    "app:10:requests:latency.min\t7\n"
	    "app:10:requests:latency.sum\t77\n"
	    "fs:0:timers:elapsed_time\t250\n"
	    "fs:0:timers:max_time\t250\n"
	    "fs:0:timers:min_time\t250\n"
	    "fs:0:timers:name\tflush\n"
	    "fs:0:timers:num_events\t1\n"
	    "fs:0:timers:start_time\t100\n"
	    "fs:0:timers:stop_time\t350\n"
	    "pcie:1:intr0:hard\t3\n"
	    "pcie:1:intr0:multiple_service\t0\n"
	    "pcie:1:intr0:soft\t0\n"
	    "pcie:1:intr0:spurious\t1\n"
	    "pcie:1:intr0:watchdog\t0\n"
	    "sd:0:sd0:nread\t0\n"
	    "sd:0:sd0:nwritten\t0\n"
	    "sd:0:sd0:rcnt\t1\n"
	    "sd:0:sd0:reads\t0\n"
	    "sd:0:sd0:rlastupdate\t2000\n"
	    "sd:0:sd0:rlentime\t500\n"
	    "sd:0:sd0:rtime\t500\n"
	    "sd:0:sd0:wcnt\t0\n"
	    "sd:0:sd0:wlastupdate\t1500\n"
	    "sd:0:sd0:wlentime\t500\n"
	    "sd:0:sd0:writes\t0\n"
	    "sd:0:sd0:wtime\t500\n");
	free(txt);
	txt = render(KSFMT_PARSEABLE, v, 4, "app:::crtime", NULL);
	ck_assert_str_eq(txt, "app:10:requests:crtime\t1.500000000\n");
	free(txt);
	/* Instances sort as numbers. */
	hio.instance = 10;
	hb.instance = 9;
	strcpy(hb.module, "SD");
	txt = render(KSFMT_NAMES, v, 4, "/^[sS][dD]$/:::wcnt", NULL);
	ck_assert_str_eq(txt, "sd:10:sd0:wcnt\n");
	free(txt);
	txt = render(KSFMT_NAMES, v, 4, "/^[sS][dD]$/:::crtime", NULL);
	ck_assert_str_eq(txt, "SD:9:requests:crtime\nsd:10:sd0:crtime\n");
	free(txt);
	stats_blob_destroy(si);
	stats_blob_destroy(sio);
	stats_blob_destroy(st);
	stats_blob_destroy(sbb);
}
END_TEST

START_TEST(class_filter_and_several_timers)
{
	static const char *const t_names[] = { "open", "close" };
	int tt = unit_tpl("tm2");
	struct statsblob *st;
	struct kstat_hdr h;
	struct ks_view v = { &h, NULL, t_names, 2, NULL };
	struct ks_pattern cls;
	struct sbuf *s = sbuf_new_auto();
	size_t matched;

	UNIT_ADD(tt, 0, "open", VSD_DTYPE_INT_S64, 0,
	    STATS_VSS(VS_STYPE_TIMER, 0, 0, stat_timer_vss_hlpr, NULL));
	UNIT_ADD(tt, 1, "close", VSD_DTYPE_INT_S64, 0,
	    STATS_VSS(VS_STYPE_TIMER, 0, 0, stat_timer_vss_hlpr, NULL));
	st = stats_blob_alloc((uint32_t)tt, 0);
	v.sb = st;
	ks_hdr_init(&h, "fs", 0, "timers", "vfs", KSTAT_TYPE_TIMER, 0, NULL);
	ck_assert_int_eq(ks_pattern_init(&cls, "v*", NULL), 0);
	ck_assert_int_eq(ksfmt_render(s, KSFMT_NAMES, &v, 1, NULL, &cls,
	    &matched), 0);
	ck_assert_uint_eq(matched, 1);
	sbuf_finish(s);
	/* Several timers: each field under <voi>.<field>. */
	ck_assert_ptr_nonnull(strstr(sbuf_data(s), "fs:0:timers:close.num_events\n"));
	ck_assert_ptr_nonnull(strstr(sbuf_data(s), "fs:0:timers:open.stop_time\n"));
	ck_assert_ptr_null(strstr(sbuf_data(s), ":name\n"));
	ks_pattern_done(&cls);
	ck_assert_int_eq(ks_pattern_init(&cls, "disk", NULL), 0);
	sbuf_clear(s);
	ck_assert_int_eq(ksfmt_render(s, KSFMT_DEFAULT, &v, 1, NULL, &cls,
	    &matched), 0);
	ck_assert_uint_eq(matched, 0);
	ks_pattern_done(&cls);
	sbuf_delete(s);
	stats_blob_destroy(st);
}
END_TEST

/*
 * kstat2_create_histogram(9F): a LOG2 histogram kstat is created
 * "containing exactly 65 buckets", and its data's fields "buckets",
 * "type", "range_min", "range_max" and "stepping" are read by name. Before
 * anything is added, every bucket is there at zero.
 */
START_TEST(kstat2_histogram_fields)
{
	static const char *const names[] = { "buckets" };
	const struct k2hist_params k2[] = { { true, K2HIST_LOG2, 0, 0, 0 } };
	int tpl = unit_tpl("k2log2");
	struct k2hist_spec ks;
	struct voistatspec vss;
	struct statsblob *sb;
	struct kstat_hdr h;
	struct ks_view v = { &h, NULL, names, 1, k2 };
	char *out, *zeros, *p;
	int i;

	ck_assert_int_eq(k2hist_spec_init(&ks, K2HIST_LOG2, 0, 0, 0), 0);
	vss = k2hist_vss(&ks);
	ck_assert_int_eq(stats_tpl_add_voistats((uint32_t)tpl, 0, "buckets",
	    VSD_DTYPE_INT_U64, 1, &vss, 0), 0);
	k2hist_spec_done(&ks);
	sb = stats_blob_alloc((uint32_t)tpl, 0);
	v.sb = sb;
	ks_hdr_init(&h, "my_drv", 2, "data_in", "misc", KSTAT_TYPE_HIST, 0,
	    NULL);

	zeros = calloc(65, 2);
	for (i = 0, p = zeros; i < 65; i++)
		p += sprintf(p, i > 0 ? " 0" : "0");
	out = render(KSFMT_PARSEABLE, &v, 1, NULL, NULL);
	p = strstr(out, "my_drv:2:data_in:buckets\t");
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(strncmp(p + strlen("my_drv:2:data_in:buckets\t"),
	    zeros, strlen(zeros)), 0);
	ck_assert_ptr_nonnull(strstr(out, "my_drv:2:data_in:type\t1\n"));
	ck_assert_ptr_nonnull(strstr(out, "my_drv:2:data_in:range_min\t0\n"));
	ck_assert_ptr_nonnull(strstr(out, "my_drv:2:data_in:range_max\t0\n"));
	ck_assert_ptr_nonnull(strstr(out, "my_drv:2:data_in:stepping\t0\n"));
	free(out);

	/* -j: the buckets are a JSON array; one added value shows. */
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_HIST, STATS_OPF_UNSIGNED,
	    5, 3, 0), 0);
	out = render(KSFMT_JSON, &v, 1, NULL, NULL);
	ck_assert_ptr_nonnull(strstr(out, "\"buckets\": [0, 0, 0, 3, 0, "));
	ck_assert_ptr_nonnull(strstr(out, "\"type\": 1\n"));
	free(out);

	/* A blob that holds a kstat2 histogram: <voi>.<field>. */
	h.type = KSTAT_TYPE_BLOB;
	out = render(KSFMT_NAMES, &v, 1, NULL, NULL);
	ck_assert_ptr_nonnull(strstr(out, "my_drv:2:data_in:buckets.buckets\n"));
	ck_assert_ptr_nonnull(strstr(out, "my_drv:2:data_in:buckets.stepping\n"));
	free(out);
	free(zeros);
	stats_blob_destroy(sb);
}
END_TEST

/*
 * A reader that gets a kstat's flat statistics as data (statsctl, from
 * statsd's flat scrape) renders with ksfmt_begin/ksfmt_kstat/ksfmt_end
 * exactly what ksfmt_render makes from the blob, in every form, and the
 * statistics carry what the kind table says of them.
 */
START_TEST(render_from_data_is_render_from_blob)
{
	struct statsblob *sb = system_misc();
	struct kstat_hdr h, copy;
	struct ks_view v = { &h, sb, misc_names, 5, NULL };
	struct ksfmt_stat *st, *dup;
	struct ks_selector sel;
	struct input_error err;
	enum ksfmt_mode m;
	size_t n, i;

	ks_hdr_init(&h, "unix", 0, "system_misc", "misc", KSTAT_TYPE_NAMED, 0,
	    NULL);
	h.snaptime = INT64_C(8464242917580);
	h.crtime = 17;
	ck_assert_int_eq(ksfmt_stats(&v, &st, &n), 0);
	ck_assert_uint_eq(n, 5);
	for (i = 0; i < n; i++) {
		/* Pseudo-statistics are the renderer's to add. */
		ck_assert_str_ne(st[i].name, "crtime");
		ck_assert_str_ne(st[i].name, "class");
		/* nproc is a SUM of an INT_S32: a gauge; LASTs too. */
		ck_assert(!st[i].counter);
	}
	/* What a reply carries: the strings, the header's fields. */
	dup = calloc(n, sizeof(*dup));
	for (i = 0; i < n; i++) {
		dup[n - 1 - i] = st[i];
		dup[n - 1 - i].name = strdup(st[i].name);
		dup[n - 1 - i].value = strdup(st[i].value);
	}
	memset(&copy, 0, sizeof(copy));
	strcpy(copy.module, h.module);
	strcpy(copy.name, h.name);
	strcpy(copy.class_, h.class_);
	copy.type = h.type;
	copy.instance = h.instance;
	copy.crtime = h.crtime;
	copy.snaptime = h.snaptime;
	ck_assert_int_eq(ks_selector_parse(&sel, "unix:0::/a|cl|time/",
	    &err), 0);
	for (m = KSFMT_DEFAULT; m <= KSFMT_JSON; m++) {
		struct sbuf *s = sbuf_new_auto();
		struct ksfmt_out o;
		char *want;
		int k;

		for (k = 0; k < 2; k++) {
			const struct ks_selector *sp = k == 0 ? NULL : &sel;

			want = render(m, &v, 1, k == 0 ? NULL :
			    "unix:0::/a|cl|time/", NULL);
			sbuf_clear(s);
			ksfmt_begin(&o, s, m);
			ck_assert_int_gt(ksfmt_kstat(&o, &copy, dup, n, sp), 0);
			ck_assert_int_eq(ksfmt_end(&o), 0);
			ck_assert_int_eq(sbuf_finish(s), 0);
			ck_assert_str_eq(sbuf_data(s), want);
			free(want);
		}
		sbuf_delete(s);
	}
	/* -p counts class among what is selected, -j does not. */
	ks_selector_done(&sel);
	ck_assert_int_eq(ks_selector_parse(&sel, ":::class", &err), 0);
	ck_assert_int_eq(ksfmt_selected(KSFMT_PARSEABLE, &copy, dup, n, &sel),
	    1);
	ck_assert_int_eq(ksfmt_selected(KSFMT_JSON, &copy, dup, n, &sel), 0);
	ks_selector_done(&sel);
	ksfmt_stats_free(dup, n);
	ksfmt_stats_free(st, n);
	stats_blob_destroy(sb);
}
END_TEST

/*
 * The typed JSON of replies is written from the values, exactly: an
 * unsigned number above INT64_MAX as the string of its digits (never a
 * double), a negative one signed, a string escaped; in Read's "data" and
 * in a Scrape's flat item, whose members follow the statistic's type.
 */
START_TEST(typed_json_is_exact)
{
	static const char *const names[] = { "big", "neg", "model" };
	int tpl = unit_tpl("typed");
	struct statsblob *sb;
	struct kstat_hdr h;
	struct ks_view v = { &h, NULL, names, 3, NULL };
	struct ksfmt_stat *st;
	struct sbuf *s = sbuf_new_auto();
	size_t n;

	/* An empty MIN of an INT_U64 holds UINT64_MAX. */
	UNIT_ADD(tpl, 0, "big", VSD_DTYPE_INT_U64, 0, STATS_VSS_MIN());
	UNIT_ADD(tpl, 1, "neg", VSD_DTYPE_INT_S64, 0, LASTU32);
	UNIT_ADD(tpl, 2, "model", VSD_DTYPE_INT_U64, 0,
	    STATS_VSS(VS_STYPE_LAST, 0, 0, stat_string_vss_hlpr,
	    (&(struct vss_string_hlpr_info){ KSTAT_DATA_STRING, 64 })));
	sb = stats_blob_alloc((uint32_t)tpl, 0);
	ck_assert_int_eq(engine_apply(sb, 1, STATS_OP_SET, 0, INT64_MIN, 0,
	    0), 0);
	ck_assert_int_eq(engine_set_string(sb, 2, "a \"b\"", 5), 0);
	v.sb = sb;
	ks_hdr_init(&h, "m", 1, "k", "misc", KSTAT_TYPE_NAMED, 0, NULL);
	h.crtime = 5;
	h.snaptime = 1500000000;
	ck_assert_int_eq(ksfmt_stats(&v, &st, &n), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(st[0].name, "big.min");
	ck_assert_int_eq(st[0].type, KSFMT_UINT);
	ck_assert(st[0].n == UINT64_MAX);
	ck_assert_str_eq(st[0].value, "18446744073709551615");
	ck_assert_int_eq(st[2].type, KSFMT_INT);
	ck_assert_int_eq(st[1].type, KSFMT_STRING);
	ck_assert_int_eq(ksfmt_json_data(s, st, n, NULL), 3);
	ck_assert_int_eq(sbuf_finish(s), 0);
	ck_assert_str_eq(sbuf_data(s), "{\"big.min\":\"18446744073709551615\","
	    "\"model\":\"a \\\"b\\\"\",\"neg\":-9223372036854775808}");
	sbuf_clear(s);
	ck_assert_int_eq(ksfmt_json_kstat(s, true, &h, st, n, NULL), 3);
	ck_assert_int_eq(sbuf_finish(s), 0);
	ck_assert_str_eq(sbuf_data(s), "{\"module\":\"m\",\"instance\":1,"
	    "\"name\":\"k\",\"class\":\"misc\",\"type\":\"NAMED\","
	    "\"crtime\":5,\"snaptime\":1500000000,\"stats\":["
	    "{\"name\":\"big.min\",\"type\":\"uint\","
	    "\"text\":\"18446744073709551615\",\"counter\":false},"
	    "{\"name\":\"model\",\"type\":\"string\","
	    "\"text\":\"a \\\"b\\\"\",\"counter\":false},"
	    "{\"name\":\"neg\",\"type\":\"int\","
	    "\"value\":-9223372036854775808,\"counter\":false}]}");
	sbuf_clear(s);
	ck_assert_int_eq(ksfmt_json_kstat(s, false, &h, st, n, NULL), 3);
	ck_assert_int_eq(sbuf_finish(s), 0);
	ck_assert_str_eq(sbuf_data(s), "{\"module\":\"m\",\"instance\":1,"
	    "\"name\":\"k\",\"class\":\"misc\",\"type\":1,"
	    "\"snaptime\":1.500000000,\"data\":{"
	    "\"big.min\":\"18446744073709551615\",\"model\":\"a \\\"b\\\"\","
	    "\"neg\":-9223372036854775808}}");
	ksfmt_stats_free(st, n);
	sbuf_delete(s);
	stats_blob_destroy(sb);
}
END_TEST

static Suite *
render_kstat_suite(void)
{
	Suite *s = suite_create("render_kstat");
	TCase *tc = tcase_create("kstat");

	tcase_add_test(tc, times_every_value);
	tcase_add_test(tc, man_page_parseable_example);
	tcase_add_test(tc, default_and_json_shapes);
	tcase_add_test(tc, intr_io_timer_and_blob_names);
	tcase_add_test(tc, class_filter_and_several_timers);
	tcase_add_test(tc, kstat2_histogram_fields);
	tcase_add_test(tc, render_from_data_is_render_from_blob);
	tcase_add_test(tc, typed_json_is_exact);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_main(render_kstat_suite());
}
