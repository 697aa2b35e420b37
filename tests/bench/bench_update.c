/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bench_update.c: nanoseconds per in-process update through the stats(3)
 * API: a SUM+MIN+MAX VOI, a 32-bucket CRHIST, a 10-VOI template (one update
 * to each VOI), and stats_voi_update_xy() called directly.
 *
 * Usage: bench_update [iterations]   (default 50000000 per case)
 * Build with buildtype=release for figures worth quoting.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <statsd/stats.h>

#define NVALS	4096	/* a power of two: values are picked with a mask */

static uint64_t vals[NVALS];
static volatile int sink;

/* Keep the compiler from caching blob memory across iterations. */
#define BARRIER()	__asm__ __volatile__("" ::: "memory")

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void
fill_values(uint64_t range)
{
	uint64_t s = 0x9e3779b97f4a7c15ULL;
	size_t i;

	for (i = 0; i < NVALS; i++) {
		s ^= s >> 12;
		s ^= s << 25;
		s ^= s >> 27;
		vals[i] = (s * 2685821657736338717ULL) % range;
	}
}

static int
make_tpl(const char *name, int nvoi, int kind)
{
	int tpl = stats_tpl_alloc(name, 0), v;
	char voiname[16];

	if (tpl < 0)
		return tpl;
	for (v = 0; v < nvoi; v++) {
		struct voistatspec three[] = { STATS_VSS_SUM(), STATS_VSS_MIN(),
		    STATS_VSS_MAX() };
		struct voistatspec hist[] = {
		    STATS_VSS_CRHIST64_LIN(0, 3100, 100, 0) };
		int error;

		snprintf(voiname, sizeof(voiname), "v%d", v);
		error = kind == 0 ?
		    stats_tpl_add_voistats(tpl, v, voiname, VSD_DTYPE_INT_U64,
		    NVSS(three), three, 0) :
		    stats_tpl_add_voistats(tpl, v, voiname, VSD_DTYPE_INT_U64,
		    NVSS(hist), hist, 0);

		if (error != 0)
			return -error;
	}
	return tpl;
}

static void
row(const char *what, uint64_t updates, double ns)
{
	printf("%-38s %12" PRIu64 " %10.2f\n", what, updates,
	    ns / (double)updates);
}

int
main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 50000000ULL, i;
	struct statsblob *sb3, *sbh, *sb10;
	struct voistatdata_numeric x;
	int t3, th, t10, acc = 0, v;
	double t0, t1;

	if (n == 0)
		n = 1;
	t3 = make_tpl("bench_sum_min_max", 1, 0);
	th = make_tpl("bench_crhist64", 1, 1);
	t10 = make_tpl("bench_ten_vois", 10, 0);
	if (t3 < 0 || th < 0 || t10 < 0) {
		fprintf(stderr, "bench_update: template setup failed\n");
		return 1;
	}
	sb3 = stats_blob_alloc((uint32_t)t3, 0);
	sbh = stats_blob_alloc((uint32_t)th, 0);
	sb10 = stats_blob_alloc((uint32_t)t10, 0);
	if (sb3 == NULL || sbh == NULL || sb10 == NULL) {
		fprintf(stderr, "bench_update: blob allocation failed\n");
		return 1;
	}

	printf("%-38s %12s %10s\n", "case (INT_U64 VOIs)", "updates",
	    "ns/update");

	fill_values(1000000);
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		acc |= stats_voi_update_abs_u64(sb3, 0, vals[i & (NVALS - 1)]);
		BARRIER();
	}
	t1 = now_ns();
	row("SUM+MIN+MAX, stats_voi_update_abs_u64", n, t1 - t0);

	fill_values(3300);	/* 32 buckets of 100, a few out of the last */
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		acc |= stats_voi_update_abs_u64(sbh, 0, vals[i & (NVALS - 1)]);
		BARRIER();
	}
	t1 = now_ns();
	row("CRHIST64 32 buckets, abs_u64", n, t1 - t0);

	fill_values(1000000);
	t0 = now_ns();
	for (i = 0; i < n / 10; i++) {
		for (v = 0; v < 10; v++) {
			acc |= stats_voi_update_abs_u64(sb10, v,
			    vals[(i + (uint64_t)v) & (NVALS - 1)]);
			BARRIER();
		}
	}
	t1 = now_ns();
	row("10-VOI template, 1 update per VOI", n / 10 * 10, t1 - t0);

	t0 = now_ns();
	for (i = 0; i < n; i++) {
		x.int64.u64 = vals[i & (NVALS - 1)];
		acc |= stats_voi_update_xy(sb3, 0, VSD_DTYPE_INT_U64, &x, 1, 0);
		BARRIER();
	}
	t1 = now_ns();
	row("SUM+MIN+MAX, stats_voi_update_xy", n, t1 - t0);

	sink = acc;
	stats_blob_destroy(sb3);
	stats_blob_destroy(sbh);
	stats_blob_destroy(sb10);
	return acc != 0;
}
