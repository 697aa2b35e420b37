/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bench_tdigest.c: t-digest figures for docs/tdigest.md: ns per add
 * (amortised, buffer merges included), ns per quantile query, bytes per
 * digest, and the accuracy table — max |rank error| over several seeds for
 * each data set and q, at 50, 100 and 200 centroids; and, run by
 * tdigest_vs_npm.sh, the same errors next to those of the npm `tdigest`
 * package (Dunning's t-digest as Will Welch wrote it) at equal size.
 *
 * usage: bench_tdigest [runs]          (default 5 seeds per data set)
 *        bench_tdigest npm SCRIPT MODULE_DIR [runs]   (default 3)
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tdigest.h"

static _Alignas(8) unsigned char mem[TDGST_MAXSZ];

/* splitmix64, fixed seeds: the table is reproducible. */
static uint64_t
rnd(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static double
unif(uint64_t *s)
{
	return (double)(rnd(s) >> 11) * 0x1p-53;
}

static double
gauss(uint64_t *s)
{
	double u, v, r;

	do {
		u = 2 * unif(s) - 1;
		v = 2 * unif(s) - 1;
		r = u * u + v * v;
	} while (r >= 1 || r == 0);
	return u * sqrt(-2 * log(r) / r);
}

static int
cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

#define NDIST	10
static const char *const dist_name[NDIST] = {
	"uniform", "exponential", "lognormal2", "mixture", "ascending",
	"descending", "int-dups", "int-lognormal", "zipf", "few-values",
};

/* Zipf's law over 1..ZIPF_N, exponent 1.1, by its CDF. */
#define ZIPF_N	100000
static double zipf_cdf[ZIPF_N];

static double
zipf(double u)
{
	size_t lo = 0, hi = ZIPF_N - 1;

	if (zipf_cdf[ZIPF_N - 1] == 0) {
		double t = 0;

		for (size_t k = 0; k < ZIPF_N; k++)
			zipf_cdf[k] = t += pow((double)k + 1, -1.1);
		for (size_t k = 0; k < ZIPF_N; k++)
			zipf_cdf[k] /= t;
	}
	while (lo < hi) {
		size_t m = (lo + hi) / 2;

		if (zipf_cdf[m] < u)
			lo = m + 1;
		else
			hi = m;
	}
	return (double)lo + 1;
}

/* Seven values repeated, the commonest 40% of the samples. */
static double
few(double u)
{
	static const double val[] = { 1, 2, 3, 5, 8, 100, 1000 };
	static const double cum[] = { 0.4, 0.6, 0.75, 0.85, 0.93, 0.98, 1 };
	size_t k = 0;

	while (u > cum[k])
		k++;
	return val[k];
}

/* The same ten inputs as tests/unit/test_tdigest.c. */
static void
gen(int d, double *v, size_t n, uint64_t seed)
{
	uint64_t s = seed;

	for (size_t i = 0; i < n; i++) {
		double u = unif(&s);

		switch (d) {
		case 1:
			v[i] = -log1p(-u);
			break;
		case 2:
			v[i] = exp(2 * gauss(&s));
			break;
		case 3:
			v[i] = u < 0.7 ? gauss(&s) : 5 + 0.5 * gauss(&s);
			break;
		case 6:
			v[i] = floor(-10 * log1p(-u));
			break;
		case 7:
			v[i] = round(1000 * exp(2 * gauss(&s)));
			break;
		case 8:
			v[i] = zipf(u);
			break;
		case 9:
			v[i] = few(u);
			break;
		default:
			v[i] = u;
			break;
		}
	}
	if (d == 4 || d == 5)
		qsort(v, n, sizeof(*v), cmpd);
	if (d == 5)
		for (size_t i = 0; i < n / 2; i++) {
			double t = v[i];

			v[i] = v[n - 1 - i];
			v[n - 1 - i] = t;
		}
}

static size_t
count_cmp(const double *s, size_t n, double x, int upto)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;

		if (s[m] < x || (upto && s[m] == x))
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

static double
rank_err(const double *s, size_t n, double q, double x)
{
	double lo = (double)count_cmp(s, n, x, 0) / (double)n;
	double hi = (double)count_cmp(s, n, x, 1) / (double)n;

	return q < lo ? lo - q : q > hi ? q - hi : 0;
}

static double
now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static const double qs[] = {
	1e-4, 1e-3, 0.01, 0.1, 0.5, 0.9, 0.99, 0.999, 0.9999,
};
#define NQ	(sizeof(qs) / sizeof(qs[0]))
#define N	1000000

static void
speed(double *v, uint32_t nct, int wide)
{
	double best = INFINITY, t0, t1, sink = 0, x;
	size_t sz = tdgst_size(nct, wide);
	int nq = 200000;

	/* best of 5: the build machine is a shared VM */
	for (int r = 0; r < 5; r++) {
		tdgst_init(mem, sz, nct, 0, wide);
		t0 = now_ns();
		for (size_t i = 0; i < N; i++)
			tdgst_add(mem, v[i], 1);
		t1 = now_ns();
		if ((t1 - t0) / N < best)
			best = (t1 - t0) / N;
	}
	tdgst_flush(mem);
	t0 = now_ns();
	for (int i = 0; i < nq; i++) {
		tdgst_quantile(mem, (i % 997) / 997.0, &x);
		sink += x;
	}
	t1 = now_ns();
	printf("| %s | %u | %zu | %.1f | %.0f |\n", wide ? "64" : "32", nct,
	    sz, best, (t1 - t0) / nq);
	if (sink == 42)
		printf("\n");
}

/*
 * The comparison with the npm package at equal size, two ways: equal
 * centroids (npm's digest ends with at most as many as ours holds), and
 * equal bytes (npm's centroids, stored as ours are, 16 bytes each, take
 * our whole wide region, its insertion buffer included). Ours is wide
 * (TDGSTCLUST64). Rank errors below one rank in N count as 1/N in the
 * ratios; a ratio above 1 means npm is worse by that factor.
 */
static void
print_table(const char *title, const double err[][NQ], int ratio,
    const double other[][NQ])
{
	printf("\n%s\n\n| data |", title);
	for (size_t k = 0; k < NQ; k++)
		printf(" %g |", qs[k]);
	printf("\n|---|");
	for (size_t k = 0; k < NQ; k++)
		printf("---|");
	printf("\n");
	for (int d = 0; d < NDIST; d++) {
		printf("| %s |", dist_name[d]);
		for (size_t k = 0; k < NQ; k++) {
			if (ratio)
				printf(" %.2g |", fmax(other[d][k], 1.0 / N) /
				    fmax(err[d][k], 1.0 / N));
			else
				printf(" %.1e |", err[d][k]);
		}
		printf("\n");
	}
}

static int
npm_compare(const char *script, const char *moddir, int runs)
{
	static const uint32_t nct = 100;
	char path[] = "/tmp/bench_tdigest.XXXXXX", cmd[1024], line[4096];
	double *v = malloc(N * sizeof(double)), *s = malloc(N * sizeof(double));
	size_t sz = tdgst_size(nct, 1);
	unsigned want[2] = { nct, (unsigned)(sz / 16) };
	static double ours[NDIST][NQ], theirs[2][NDIST][NQ];
	unsigned got[2] = { 0, 0 };
	int fd;

	if (v == NULL || s == NULL || (fd = mkstemp(path)) < 0)
		return 1;
	close(fd);
	for (int d = 0; d < NDIST; d++) {
		double delta[2] = { 0, 0 };

		for (int r = 0; r < runs; r++) {
			FILE *f;

			gen(d, v, N, 1000 + (uint64_t)d + 100 * (uint64_t)r);
			memcpy(s, v, N * sizeof(double));
			qsort(s, N, sizeof(double), cmpd);
			f = fopen(path, "wb");
			if (f == NULL || fwrite(v, sizeof(double), N, f) != N ||
			    fclose(f) != 0)
				return 1;
			tdgst_init(mem, sizeof(mem), nct, 4, 1);
			for (size_t i = 0; i < N; i++)
				tdgst_add(mem, v[i], 1);
			for (size_t k = 0; k < NQ; k++) {
				double x;

				tdgst_quantile(mem, qs[k], &x);
				ours[d][k] = fmax(ours[d][k], rank_err(s, N,
				    qs[k], x));
			}
			for (int w = 0; w < 2; w++) {
				FILE *p;
				char *tok, *end;
				unsigned c;

				/* the first seed searches npm's compression;
				 * the others reuse it */
				if (r == 0)
					snprintf(cmd, sizeof(cmd), "node '%s' "
					    "'%s' '%s' %u", script, moddir, path,
					    want[w]);
				else
					snprintf(cmd, sizeof(cmd), "node '%s' "
					    "'%s' '%s' %u %.17g", script, moddir,
					    path, want[w], delta[w]);
				p = popen(cmd, "r");
				if (p == NULL || fgets(line, sizeof(line), p) ==
				    NULL || pclose(p) != 0) {
					fprintf(stderr, "bench_tdigest: %s "
					    "failed\n", cmd);
					unlink(path);
					return 1;
				}
				c = (unsigned)strtoul(line, &end, 10);
				delta[w] = strtod(end, &end);
				if (c > got[w])
					got[w] = c;
				for (size_t k = 0; k < NQ; k++) {
					double x = strtod(end, &tok);

					end = tok;
					theirs[w][d][k] = fmax(theirs[w][d][k],
					    rank_err(s, N, qs[k], x));
				}
			}
		}
		fprintf(stderr, "bench_tdigest: %s done\n", dist_name[d]);
	}
	unlink(path);
	printf("statsd TDGSTCLUST64(%u): %zu bytes; npm tdigest 0.1.3: at most "
	    "%u centroids (equal centroids), %u (equal bytes, 16 each); max "
	    "|rank error| over %d seeds of 1e6 values\n", nct, sz, got[0],
	    got[1], runs);
	print_table("### statsd, 100 centroids", ours, 0, NULL);
	print_table("### npm tdigest, equal centroids", theirs[0], 0, NULL);
	print_table("### npm / statsd, equal centroids (above 1: statsd "
	    "better)", ours, 1, theirs[0]);
	print_table("### npm tdigest, equal bytes", theirs[1], 0, NULL);
	print_table("### npm / statsd, equal bytes (above 1: statsd better)",
	    ours, 1, theirs[1]);
	free(v);
	free(s);
	return 0;
}

int
main(int argc, char **argv)
{
	static const uint32_t ncts[] = { 50, 100, 200 };
	int runs = argc > 1 ? atoi(argv[1]) : 5;

	if (argc >= 4 && strcmp(argv[1], "npm") == 0)
		return npm_compare(argv[2], argv[3], argc > 4 ?
		    atoi(argv[4]) : 3);
	double *v = malloc(N * sizeof(double)), *s = malloc(N * sizeof(double));

	if (v == NULL || s == NULL || runs < 1)
		return 1;

	gen(1, v, N, 7);
	printf("## speed (1e6 exponential values, weight 1)\n\n");
	printf("| width | nctroids | bytes | ns/add | ns/quantile |\n");
	printf("|---|---|---|---|---|\n");
	for (size_t c = 0; c < 3; c++) {
		speed(v, ncts[c], 0);
		speed(v, ncts[c], 1);
	}

	for (size_t c = 0; c < 3; c++) {
		uint32_t nct = ncts[c];

		printf("\n## max |rank error|, narrow (32), nctroids %u, "
		    "%zu bytes, 1e6 values, %d seeds\n\n", nct,
		    tdgst_size(nct, 0), runs);
		printf("| data |");
		for (size_t k = 0; k < NQ; k++)
			printf(" %g |", qs[k]);
		printf("\n|---|");
		for (size_t k = 0; k < NQ; k++)
			printf("---|");
		printf("\n");
		for (int d = 0; d < NDIST; d++) {
			double mx[NQ] = { 0 };

			for (int r = 0; r < runs; r++) {
				gen(d, v, N, 1000 + (uint64_t)d + 100 *
				    (uint64_t)r);
				memcpy(s, v, N * sizeof(double));
				qsort(s, N, sizeof(double), cmpd);
				tdgst_init(mem, TDGST_MAXSZ, nct, 0, 0);
				for (size_t i = 0; i < N; i++)
					tdgst_add(mem, v[i], 1);
				for (size_t k = 0; k < NQ; k++) {
					double x, e;

					tdgst_quantile(mem, qs[k], &x);
					e = rank_err(s, N, qs[k], x);
					if (e > mx[k])
						mx[k] = e;
				}
			}
			printf("| %s |", dist_name[d]);
			for (size_t k = 0; k < NQ; k++)
				printf(" %.1e |", mx[k]);
			printf("\n");
		}
	}
	free(v);
	free(s);
	return 0;
}
