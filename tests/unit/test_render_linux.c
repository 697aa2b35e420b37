/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_render_linux.c: the data lines of every Linux statistic type against
 * the Linux documentation's sample output: value, range (num min avg max),
 * list, array (<=X_i ... >X_{n-1}, the zfcp log2 example's 13 lines),
 * history in both its forms with printk-style timestamps, and raw.
 */
#include <errno.h>

#include "unit.h"
#include "defn.h"
#include "engine.h"
#include "layout.h"
#include "render_linux.h"

#define T0	UINT64_C(3097300211992000)	/* [3097300.211992] */

static const char *const names[] = {
	"occurrence_qdio_outb_full", "util_qdio_outb", "util_qdio_inb",
	"occurrence_low_mem_scsi", "request_sizes_scsi_read",
	"latencies_scsi_write", "pending_scsi_write", "pending_scsi_read",
	"bar", "raw_requests",
};
#define NNAMES	10

static struct statsblob *
zfcp(void)
{
	static const char *const defs =
	    "on=1\n"
	    "name=util_qdio_outb type=history range_min=0 range_max=127 "
	    "entries_max=128 mode=range period=1000000\n"
	    "name=util_qdio_inb type=range\n"
	    "name=request_sizes_scsi_read type=list entries_max=256\n"
	    "name=latencies_scsi_write type=array range_min=0 range_max=1024 "
	    "base_interval=1 scale=log2\n"
	    "name=pending_scsi_write type=range\n"
	    "name=pending_scsi_read type=range\n"
	    "name=bar type=range\n"
	    "name=raw_requests type=raw entries_max=4\n";
	struct statsblob *sb = layout_empty(), *nb;
	struct input_error err;
	uint16_t i;

	for (i = 0; i < NNAMES; i++) {
		ck_assert_int_eq(defn_stat_create(sb, i, NULL, T0, &nb), 0);
		free(sb);
		sb = nb;
	}
	ck_assert_int_eq(defn_apply(sb, names, NNAMES, defs, T0, &nb, NULL,
	    &err), 0);
	free(sb);
	return nb;
}

static void
feed(struct statsblob *sb, uint16_t voi, int64_t x, int64_t y, uint64_t t)
{
	ck_assert_int_eq(engine_apply(sb, voi, STATS_OP_XY, 0, x, y, t), 0);
}

static char *
data(const struct statsblob *sb, uint64_t now)
{
	struct sbuf *s = sbuf_new_auto();
	char *r;

	ck_assert_int_eq(linux_data_format(s, sb, names, NNAMES, now), 0);
	ck_assert_int_eq(sbuf_finish(s), 0);
	r = strdup(sbuf_data(s));
	sbuf_delete(s);
	return r;
}

/* Whether txt holds line as a whole line: at the start or after a
 * newline, and ending in a newline.  No fixed buffer, so a long line is
 * compared whole rather than cut. */
static void
has_line(const char *txt, const char *line)
{
	size_t n = strlen(line);
	const char *p;

	for (p = txt; (p = strstr(p, line)) != NULL; p++)
		if ((p == txt || p[-1] == '\n') && p[n] == '\n')
			return;
	ck_abort_msg("no line '%s' in:\n%s", line, txt);
}

START_TEST(seed_sample_lines)
{
	struct statsblob *sb = zfcp();
	uint64_t s = 1000000000u;
	char *txt;
	int i;

	/* value: 57 occurrences. */
	feed(sb, 0, 1, 57, T0);
	/* history of ranges: first period opened at T0, ends T0 + 1 s;
	 * the period ending [3097394.211992] gets 865 values averaging
	 * 1.052: one 5, 41 twos and 823 ones (sum 910). */
	feed(sb, 1, 0, 0 + 1, T0);	/* x = 0: num 1, min 0, max 0 */
	feed(sb, 1, 5, 1, T0 + 93 * s + 1);
	feed(sb, 1, 2, 41, T0 + 93 * s + 2);
	feed(sb, 1, 1, 823, T0 + 94 * s);
	/* range: 118706 values, min 1, max 31, average 1.017. */
	feed(sb, 2, 31, 1, T0);
	feed(sb, 2, 1, 116717, T0);
	feed(sb, 2, 2, 1988, T0);
	/* list: descending by hits. */
	feed(sb, 4, 0x2000, 9281, T0);
	feed(sb, 4, 0x1000, 44163, T0);
	feed(sb, 4, 0x8000, 4682, T0);
	/* array: 174 in (2, 4], 872 in (4, 8], 1637 above 1024. */
	feed(sb, 5, 3, 100, T0);
	feed(sb, 5, 4, 74, T0);
	feed(sb, 5, 5, 872, T0);
	feed(sb, 5, 1025, 1000, T0);
	feed(sb, 5, INT64_MAX, 637, T0);
	/* ranges: 17121 pending, 1..32, avg 28.502 (sum 487980). */
	feed(sb, 6, 1, 1, T0);
	feed(sb, 6, 32, 1, T0);
	feed(sb, 6, 28, 8504, T0);
	feed(sb, 6, 29, 8615, T0);
	/* 72348 pending, 3..5, avg 3.002 (sum 217188). */
	feed(sb, 7, 5, 72, T0);
	feed(sb, 7, 3, 72276, T0);
	/* "bar 961 1 42.000 128". */
	feed(sb, 8, 1, 1, T0);
	feed(sb, 8, 128, 1, T0);
	feed(sb, 8, 42, 914, T0);
	feed(sb, 8, 41, 45, T0);
	txt = data(sb, T0 + 94 * s);
	has_line(txt, "occurrence_qdio_outb_full 57");
	has_line(txt, "util_qdio_outb [3097301.211992] 1 0 0.000 0");
	has_line(txt, "util_qdio_outb [3097302.211992] 0 0 0.000 0");
	has_line(txt, "util_qdio_outb [3097394.211992] 865 1 1.052 5");
	has_line(txt, "util_qdio_inb 118706 1 1.017 31");
	has_line(txt, "occurrence_low_mem_scsi 0");
	has_line(txt, "request_sizes_scsi_read 0x1000 44163\n"
	    "request_sizes_scsi_read 0x2000 9281\n"
	    "request_sizes_scsi_read 0x8000 4682");
	has_line(txt, "latencies_scsi_write <=0 0\n"
	    "latencies_scsi_write <=1 0\n"
	    "latencies_scsi_write <=2 0\n"
	    "latencies_scsi_write <=4 174\n"
	    "latencies_scsi_write <=8 872\n"
	    "latencies_scsi_write <=16 0\n"
	    "latencies_scsi_write <=32 0\n"
	    "latencies_scsi_write <=64 0\n"
	    "latencies_scsi_write <=128 0\n"
	    "latencies_scsi_write <=256 0\n"
	    "latencies_scsi_write <=512 0\n"
	    "latencies_scsi_write <=1024 0\n"
	    "latencies_scsi_write >1024 1637");
	has_line(txt, "pending_scsi_write 17121 1 28.502 32");
	has_line(txt, "pending_scsi_read 72348 3 3.002 5");
	has_line(txt, "bar 961 1 42.000 128");
	/* 94 periods so far: all fit the 128-entry ring, oldest first. */
	for (i = 0, s = 0; txt[i] != '\0'; i++)
		s += strncmp(txt + i, "util_qdio_outb [", 16) == 0;
	ck_assert_uint_eq(s, 94);
	free(txt);
	free(sb);
}
END_TEST

START_TEST(empty_and_negative_ranges)
{
	char buf[32];

	linux_avg(buf, sizeof(buf), 0, 0);
	ck_assert_str_eq(buf, "0.000");
	linux_avg(buf, sizeof(buf), 2, 3);
	ck_assert_str_eq(buf, "0.667");
	linux_avg(buf, sizeof(buf), 1, 8);	/* 0.125 exactly */
	ck_assert_str_eq(buf, "0.125");
	linux_avg(buf, sizeof(buf), 1, 16);	/* 0.0625: half rounds up */
	ck_assert_str_eq(buf, "0.063");
	linux_avg(buf, sizeof(buf), -1, 16);	/* ...and away from zero */
	ck_assert_str_eq(buf, "-0.063");
	linux_avg(buf, sizeof(buf), -7, 2);
	ck_assert_str_eq(buf, "-3.500");
	linux_avg(buf, sizeof(buf), INT64_MAX, 1);
	ck_assert_str_eq(buf, "9223372036854775807.000");
	linux_timestamp(buf, sizeof(buf), UINT64_C(5123456789));
	ck_assert_str_eq(buf, "[    5.123456]");
	linux_timestamp(buf, sizeof(buf), UINT64_C(3097394211992000));
	ck_assert_str_eq(buf, "[3097394.211992]");
}
END_TEST

START_TEST(history_increments_raw_and_stopped)
{
	static const char *const nm[] = { "rate", "reqs" };
	struct statsblob *sb = layout_empty(), *nb;
	struct input_error err;
	char *txt;
	struct sbuf *s;
	int i;

	for (i = 0; i < 2; i++) {
		ck_assert_int_eq(defn_stat_create(sb, (uint16_t)i, NULL, 0, &nb),
		    0);
		free(sb);
		sb = nb;
	}
	ck_assert_int_eq(defn_apply(sb, nm, 2, "on=1\nname=rate type=history "
	    "entries_max=3 mode=products period=1000000\nname=reqs type=raw "
	    "entries_max=2", 0, &nb, NULL, &err), 0);
	free(sb);
	sb = nb;
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_XY, 0, 512, 4,
	    UINT64_C(1000000000)), 0);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_XY, 0, 100, 1,
	    UINT64_C(2500000000)), 0);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(engine_apply(sb, 1, STATS_OP_XY, 0, -i, i + 1,
		    UINT64_C(7000000) * (uint64_t)(i + 1)), 0);
	s = sbuf_new_auto();
	ck_assert_int_eq(linux_data_format(s, sb, nm, 2, UINT64_C(3500000000)),
	    0);
	sbuf_finish(s);
	txt = sbuf_data(s);
	ck_assert_str_eq(txt,
	    "rate [    2.000000] 2048\n"
	    "rate [    3.000000] 100\n"
	    "rate [    4.000000] 0\n"
	    "reqs [    0.014000] 1 -1 2\n"
	    "reqs [    0.021000] 2 -2 3\n");
	/* Stopped at 3.2 s: a later read does not move the history on. */
	ck_assert_int_eq(defn_set_on(sb, 0, false, UINT64_C(3200000000)), 1);
	sbuf_clear(s);
	ck_assert_int_eq(linux_data_format(s, sb, nm, 2, UINT64_C(9000000000)),
	    0);
	sbuf_finish(s);
	ck_assert_ptr_nonnull(strstr(sbuf_data(s), "rate [    2.000000] 2048\n"
	    "rate [    3.000000] 100\n"
	    "rate [    4.000000] 0\n"));
	sbuf_delete(s);
	free(sb);
}
END_TEST

START_TEST(linear_array_and_out_of_range)
{
	static const char *const nm[] = { "lat" };
	struct statsblob *sb = layout_empty(), *nb;
	struct input_error err;
	struct sbuf *s;

	ck_assert_int_eq(defn_stat_create(sb, 0, NULL, 0, &nb), 0);
	free(sb);
	ck_assert_int_eq(defn_apply(nb, nm, 1, "name=lat on=1 type=array "
	    "range_min=10 range_max=40 base_interval=10 scale=lin", 0, &sb,
	    NULL, &err), 0);
	free(nb);
	/* Intervals (-inf,10] (10,20] (20,30] (30,40] (40,+inf): the edges
	 * take what is out of range, so nothing is out of range. */
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_XY, 0, -1000, 1, 1), 0);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_XY, 0, 10, 1, 1), 0);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_XY, 0, 11, 2, 1), 0);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_XY, 0, 30, 3, 1), 0);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_XY, 0, 40, 4, 1), 0);
	ck_assert_int_eq(engine_apply(sb, 0, STATS_OP_XY, 0, 41, 5, 1), 0);
	s = sbuf_new_auto();
	ck_assert_int_eq(linux_data_format(s, sb, nm, 1, 0), 0);
	sbuf_finish(s);
	ck_assert_str_eq(sbuf_data(s), "lat <=10 2\nlat <=20 2\nlat <=30 3\n"
	    "lat <=40 4\nlat >40 5\n");
	ck_assert_uint_eq(defn_get(sb, 0)->hits_out_of_range, 0);
	sbuf_delete(s);
	free(sb);
}
END_TEST

static Suite *
render_linux_suite(void)
{
	Suite *s = suite_create("render_linux");
	TCase *tc = tcase_create("data");

	tcase_add_test(tc, seed_sample_lines);
	tcase_add_test(tc, empty_and_negative_ranges);
	tcase_add_test(tc, history_increments_raw_and_stopped);
	tcase_add_test(tc, linear_array_and_out_of_range);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_main(render_linux_suite());
}
