/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_iostat.c: iostat's figures from two kstat_io snapshots against
 * hand-computed values, the first line (since creation), counter wrap,
 * the idle case, a controller, and the -x / -xn line formats.
 */
#include <math.h>

#include "unit.h"
#include "iostat.h"

#define NEAR(a, b)	ck_assert_msg(fabs((a) - (b)) < 1e-9, "%.12f != %.12f", \
			    (double)(a), (double)(b))

/*
 * Over 2 s: 100 reads of 409600 bytes and 50 writes of 102400 bytes;
 * wlentime grew by 1 s (mean wait queue 0.5), rlentime by 3 s (mean 1.5),
 * the wait queue was busy 0.4 s and the run queue 1.8 s.
 */
static void
two_samples(struct iostat_sample *a, struct iostat_sample *b)
{
	memset(a, 0, sizeof(*a));
	a->crtime = 1000000000;
	a->snaptime = 5000000000;
	a->io.reads = 1000;
	a->io.writes = 500;
	a->io.nread = 1 << 20;
	a->io.nwritten = 1 << 19;
	a->io.wlentime = 7000000000;
	a->io.rlentime = 9000000000;
	a->io.wtime = 100;
	a->io.rtime = 200;
	*b = *a;
	b->snaptime = 7000000000;
	b->io.reads += 100;
	b->io.writes += 50;
	b->io.nread += 409600;
	b->io.nwritten += 102400;
	b->io.wlentime += 1000000000;
	b->io.rlentime += 3000000000;
	b->io.wtime += 400000000;
	b->io.rtime += 1800000000;
}

START_TEST(figures)
{
	struct iostat_sample a, b;
	struct iostat_figures f;

	two_samples(&a, &b);
	iostat_compute(&a, &b, 1, &f);
	NEAR(f.etime, 2.0);
	NEAR(f.rps, 50.0);
	NEAR(f.wps, 25.0);
	NEAR(f.tps, 75.0);
	NEAR(f.krps, 200.0);
	NEAR(f.kwps, 50.0);
	NEAR(f.wait, 0.5);
	NEAR(f.actv, 1.5);
	NEAR(f.wsvc_t, 0.5 * 1000 / 75);	/* Little's law, in ms */
	NEAR(f.asvc_t, 1.5 * 1000 / 75);
	NEAR(f.svc_t, 2.0 * 1000 / 75);
	NEAR(f.pct_w, 20.0);
	NEAR(f.pct_b, 90.0);
}
END_TEST

START_TEST(first_line_wrap_idle_controller)
{
	struct iostat_sample a, b;
	struct iostat_figures f;

	two_samples(&a, &b);
	/* First line: since creation (4 s), from zero. */
	iostat_compute(NULL, &a, 1, &f);
	NEAR(f.etime, 4.0);
	NEAR(f.rps, 250.0);
	/* A 32-bit counter that wrapped still gives its increment. */
	a.io.reads = UINT32_MAX - 9;
	b.io.reads = 90;
	iostat_compute(&a, &b, 1, &f);
	NEAR(f.rps, 50.0);
	/* Idle: no operations, no service times; same snaptime: 1 s. */
	iostat_compute(&a, &a, 1, &f);
	NEAR(f.etime, 1.0);
	NEAR(f.tps, 0.0);
	NEAR(f.svc_t, 0.0);
	NEAR(f.pct_b, 0.0);
	/* A controller of 4 devices: busy averaged over them. */
	two_samples(&a, &b);
	iostat_compute(&a, &b, 4, &f);
	NEAR(f.pct_b, 90.0);
	NEAR(f.pct_w, 20.0);
	NEAR(f.actv, 6.0);
}
END_TEST

START_TEST(lines)
{
	struct iostat_sample a, b;
	struct iostat_figures f;
	struct sbuf *s = sbuf_new_auto();

	two_samples(&a, &b);
	iostat_compute(&a, &b, 1, &f);
	iostat_format_x_header(s, 6);
	iostat_format_x(s, "sd0", 6, &f);
	iostat_format_xn_header(s);
	iostat_format_xn(s, "c0t0d0", &f);
	sbuf_finish(s);
	ck_assert_str_eq(sbuf_data(s),
	    "device    r/s    w/s   kr/s   kw/s wait actv  svc_t  %w  %b\n"
	    "sd0      50.0   25.0  200.0   50.0  0.5  1.5   26.7  20  90 \n"
	    "    r/s    w/s   kr/s   kw/s wait actv wsvc_t asvc_t  %w  %b device\n"
	    "   50.0   25.0  200.0   50.0  0.5  1.5    6.7   20.0  20  90 c0t0d0\n");
	sbuf_delete(s);
}
END_TEST

static Suite *
iostat_suite(void)
{
	Suite *s = suite_create("iostat");
	TCase *tc = tcase_create("iostat");

	tcase_add_test(tc, figures);
	tcase_add_test(tc, first_line_wrap_idle_controller);
	tcase_add_test(tc, lines);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_main(iostat_suite());
}
