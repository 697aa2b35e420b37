/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tdigest.c: the t-digest data structure: a merging t-digest (Dunning and
 * Ertl 2019) living in one position-independent byte region, with its
 * quantile/CDF interpolation, digest merging, validation and rendering.
 * The blob glue is tdgst_stat.c; the design and its accuracy figures are in
 * docs/tdigest.md.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <statsd/sbuf.h>

#include "numeric.h"
#include "tdigest.h"

#define TD_MAGIC	0x31474454u	/* "TDG1" read little-endian */
#define TD_VERSION	1
#define TD_HDRSZ	56
/*
 * The insertion buffer holds clamp(nctroids, TD_BUFMIN, TD_BUFMAX) points.
 * A buffer as large as the centroid array amortises each merge over enough
 * adds; the upper bound caps the sorted copy that flushes and const queries
 * keep on the stack (TD_BUFMAX * 16 bytes).
 */
#define TD_BUFMIN	32
#define TD_BUFMAX	256
/*
 * The clustering aims at TD_FILL * maxctds centroids; the greedy pass lands
 * a little above its k-range, and the rare excess over maxctds is removed by
 * repair(). See docs/tdigest.md for how it was tuned.
 */
#define TD_FILL		0.80

/*
 * Every sample so far was an integer. Then every quantile is one too, and
 * the queries model each integer k as spread over [k - 1/2, k + 1/2):
 * interpolation between point masses returns a value that exists.
 */
#define TD_F_INTEGRAL	0x01
#define TD_F_KNOWN	TD_F_INTEGRAL

struct tdgst_hdr {
	uint32_t	magic;
	uint8_t		version;
	uint8_t		wide;		/* 0: float means, u32 counts; 1: double, u64 */
	uint8_t		prec;		/* recorded for FreeBSD compatibility only */
	uint8_t		flags;		/* TD_F_* */
	uint16_t	maxctds;	/* centroid capacity */
	uint16_t	bufcap;		/* insertion buffer capacity */
	uint16_t	nctds;		/* centroids in entries[0, nctds) */
	uint16_t	nbuf;		/* points in entries[maxctds, +nbuf) */
	uint32_t	size;		/* bytes of the whole region */
	uint32_t	pad1;
	uint64_t	smplcnt;	/* total weight, centroids plus buffer */
	uint64_t	compcnt;	/* clustering passes run */
	double		min;		/* exact extremes, valid if smplcnt > 0 */
	double		max;
};

_Static_assert(sizeof(struct tdgst_hdr) == TD_HDRSZ, "header layout");

struct ent32 {
	float		m;
	uint32_t	w;
};

struct ent64 {
	double		m;
	uint64_t	w;
};

/* A point or centroid in working precision (sort scratch, views). */
struct pt {
	double		m;
	uint64_t	w;
};

/* ------------------------------------------------------------------ */
/* Layout helpers                                                      */

static uint32_t
bufcap_for(uint32_t nctroids)
{
	if (nctroids < TD_BUFMIN)
		return TD_BUFMIN;
	if (nctroids > TD_BUFMAX)
		return TD_BUFMAX;
	return nctroids;
}

static size_t
region_size(uint32_t nctroids, int wide)
{
	size_t nent = (size_t)nctroids + bufcap_for(nctroids);
	size_t esz = wide ? sizeof(struct ent64) : sizeof(struct ent32);

	return TD_HDRSZ + nent * esz + (nent + 63) / 64 * sizeof(uint64_t);
}

/*
 * Where the arrays are, worked out once per operation: the project builds
 * with -fno-strict-aliasing, so every store into an entry would otherwise
 * make the compiler reload the header to recompute these.
 */
struct lay {
	struct ent32	*e32;
	struct ent64	*e64;
	uint64_t	*pb;
	bool		wide;
};

static inline struct lay
lay_of(const struct tdgst_hdr *h)
{
	size_t nent = (size_t)h->maxctds + h->bufcap;
	uintptr_t base = (uintptr_t)h + TD_HDRSZ;
	struct lay L;

	L.wide = h->wide;
	L.e32 = (struct ent32 *)base;
	L.e64 = (struct ent64 *)base;
	L.pb = (uint64_t *)(base + nent * (L.wide ? sizeof(struct ent64) :
	    sizeof(struct ent32)));
	return L;
}

static inline double
ent_m(const struct lay *L, uint32_t i)
{
	return L->wide ? L->e64[i].m : (double)L->e32[i].m;
}

static inline uint64_t
ent_w(const struct lay *L, uint32_t i)
{
	return L->wide ? L->e64[i].w : L->e32[i].w;
}

/* Callers guarantee that a narrow digest's m fits a float and w a uint32. */
static inline void
ent_put(const struct lay *L, uint32_t i, double m, uint64_t w)
{
	if (L->wide) {
		L->e64[i].m = m;
		L->e64[i].w = w;
	} else {
		L->e32[i].m = (float)m;
		L->e32[i].w = (uint32_t)w;
	}
}

static inline bool
pure_get(const struct lay *L, uint32_t i)
{
	return (L->pb[i / 64] >> (i % 64)) & 1;
}

static inline void
pure_put(const struct lay *L, uint32_t i, bool p)
{
	uint64_t bit = UINT64_C(1) << (i % 64);

	if (p)
		L->pb[i / 64] |= bit;
	else
		L->pb[i / 64] &= ~bit;
}

static inline double
dmin(double a, double b)
{
	return b < a ? b : a;
}

static inline double
dmax(double a, double b)
{
	return b > a ? b : a;
}

static inline uint64_t
count_limit(const struct tdgst_hdr *h)
{
	return h->wide ? UINT64_MAX : UINT32_MAX;
}

/* The O(1) check every entry point makes before indexing anything. */
static const struct tdgst_hdr *
hdr_ok(const void *mem)
{
	const struct tdgst_hdr *h = mem;

	if (h == NULL || h->magic != TD_MAGIC || h->version != TD_VERSION ||
	    h->wide > 1 || h->maxctds == 0 ||
	    h->bufcap != bufcap_for(h->maxctds) ||
	    h->size != region_size(h->maxctds, h->wide) ||
	    h->nctds > h->maxctds || h->nbuf > h->bufcap)
		return NULL;
	return h;
}

/* ------------------------------------------------------------------ */
/* Sorting the buffer copy                                              */

static void
pt_isort(struct pt *a, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct pt t = a[i];
		size_t j = i;

		while (j > 0 && a[j - 1].m > t.m) {
			a[j] = a[j - 1];
			j--;
		}
		a[j] = t;
	}
}

/* Branch-free merge: on random data a quicksort mispredicts about every
 * other comparison, which costs more than the extra copying. */
static void
pt_merge(const struct pt *x, size_t nx, const struct pt *y, size_t ny,
    struct pt *out)
{
	size_t i = 0, j = 0, k = 0;

	while (i < nx && j < ny) {
		bool t = y[j].m < x[i].m;
		const struct pt *from = t ? &y[j] : &x[i];	/* a cmov */

		out[k++] = *from;
		j += t;
		i += !t;
	}
	while (i < nx)
		out[k++] = x[i++];
	while (j < ny)
		out[k++] = y[j++];
}

/* Bottom-up merge sort, O(n log n) whatever the input; tmp holds n. */
static void
pt_sort(struct pt *a, size_t n, struct pt *tmp)
{
	struct pt *src = a, *dst = tmp, *t;

	for (size_t i = 0; i < n; i += 8)
		pt_isort(a + i, n - i < 8 ? n - i : 8);
	for (size_t wd = 8; wd < n; wd *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * wd) {
			size_t mid = lo + wd < n ? lo + wd : n;
			size_t hi = lo + 2 * wd < n ? lo + 2 * wd : n;

			pt_merge(src + lo, mid - lo, src + mid, hi - mid,
			    dst + lo);
		}
		t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
}

/* Copy the buffer into scratch and sort it. Returns the number of points. */
static uint32_t
buf_sorted(const struct tdgst_hdr *h, struct pt *scratch)
{
	struct pt tmp[TD_BUFMAX];
	struct lay L = lay_of(h);
	uint32_t nb = h->nbuf;

	for (uint32_t i = 0; i < nb; i++) {
		scratch[i].m = ent_m(&L, h->maxctds + i);
		scratch[i].w = ent_w(&L, h->maxctds + i);
	}
	pt_sort(scratch, nb, tmp);
	return nb;
}

/* ------------------------------------------------------------------ */
/* Clustering                                                           */

/*
 * The scale function is the paper's k2, k(q) = log(q / (1 - q)) / c, so the
 * weight a centroid may hold is proportional to q(1 - q): relative accuracy
 * in both tails. A cluster may span at most 1 in k, i.e. its two edges'
 * odds differ by at most a factor e^c. Positions are measured from the
 * cluster's own tail (rank for the lower half, n - rank for the upper), and
 * k2 is symmetric, so one formula serves both halves.
 *
 * Given the edge nearer the tail at distance t, the cluster may hold
 *   t (e^c - 1)(n - t) / (n - t + t e^c);
 * given the edge nearer the median at distance t, it may hold
 *   t (e^c - 1)(n - t) / (e^c (n - t) + t).
 * t = 0 gives 0: the extreme sample stays a singleton.
 */
static inline double
k2_room_out(double t, double n, double ec)
{
	return t * (ec - 1) * (n - t) / (n - t + t * ec);
}

static inline double
k2_room_in(double t, double n, double ec)
{
	return t * (ec - 1) * (n - t) / (ec * (n - t) + t);
}

/* One cluster under construction. */
struct clus {
	double		m;	/* weighted mean so far */
	uint64_t	w;
	double		v;	/* the value of a pure cluster */
	double		lo, hi;	/* smallest and largest item mean */
	double		room;	/* weight the cluster may reach */
	bool		pure;
};

static inline void
clus_start(struct clus *c, double m, uint64_t w, bool p, double room)
{
	c->m = c->v = c->lo = c->hi = m;
	c->w = w;
	c->pure = p;
	c->room = room;
}

/* Equal pure values always join: no information is lost. */
static inline bool
clus_join(struct clus *c, double m, uint64_t w, bool p)
{
	bool same = c->pure && p && m == c->v;

	if (!same && (double)c->w + (double)w > c->room)
		return false;
	c->w += w;
	c->m += (m - c->m) * ((double)w / (double)c->w);
	c->pure = same;
	if (m < c->lo)
		c->lo = m;
	if (m > c->hi)
		c->hi = m;
	return true;
}

static inline void
clus_emit(const struct lay *L, uint32_t at, const struct clus *c)
{
	/* rounding must not move a mean outside its items (keeps order) */
	double m = c->pure ? c->v : dmin(dmax(c->m, c->lo), c->hi);

	ent_put(L, at, m, c->w);
	pure_put(L, at, c->pure);
}

static inline void
ent_move(const struct lay *L, uint32_t to, uint32_t from)
{
	if (L->wide)
		L->e64[to] = L->e64[from];
	else
		L->e32[to] = L->e32[from];
	pure_put(L, to, pure_get(L, from));
}

/*
 * Greedily cluster the items entries[from], entries[from + step], ...
 * (count of them), writing clusters at entries[to], entries[to + step], ...
 * t is the first item's distance from its own tail, measured at the item's
 * tail-side edge when walking away from the tail (outward == false, i.e.
 * outside-in) and at its median-side edge when walking towards it.
 * Returns the number of clusters written. A write never overtakes a read
 * because every cluster consumes at least one item.
 */
static uint32_t
cluster_run(const struct lay *L, int64_t from, int64_t to, int step,
    uint32_t count, double t, double n, double ec, bool from_tail)
{
	struct clus c = { 0 };	/* -O3 cannot see it is set before use */
	uint32_t o = 0;

	for (uint32_t k = 0; k < count; k++, from += step) {
		uint32_t r = (uint32_t)from;
		double m = ent_m(L, r);
		uint64_t w = ent_w(L, r);
		bool p = pure_get(L, r);

		if (k == 0 || !clus_join(&c, m, w, p)) {
			if (k > 0) {
				clus_emit(L, (uint32_t)to, &c);
				to += step;
				o++;
			}
			clus_start(&c, m, w, p, from_tail ?
			    k2_room_out(t, n, ec) : k2_room_in(t, n, ec));
		}
		t += from_tail ? (double)w : -(double)w;
	}
	if (count > 0) {
		clus_emit(L, (uint32_t)to, &c);
		o++;
	}
	return o;
}

/*
 * Cluster entries[s, e) (sorted, total weight n) into entries[0, m) and
 * return m. Each half is clustered on its own, both in the same direction,
 * so the two tails are treated alike. Greedy filling drags each
 * cluster's mean towards the side the pass comes from (points between two
 * means go to the cluster being filled), so the direction alternates
 * between merges, as the paper's implementation does, and the drift
 * cancels instead of accumulating.
 */
static uint32_t
cluster(const struct lay *L, uint32_t s, uint32_t e, double n, double ec,
    bool from_tails)
{
	double half = n / 2, below = 0;
	uint32_t split = s, nl, nr, ol, or;

	while (split < e) {
		double w = (double)ent_w(L, split);

		if (below + w / 2 > half)
			break;
		below += w;
		split++;
	}
	nl = split - s;
	nr = e - split;
	if (from_tails) {
		/* lower half upwards from s into [0, ol); upper half
		 * downwards from e - 1 into [e - or, e); then close the gap */
		ol = cluster_run(L, s, 0, 1, nl, 0, n, ec, true);
		or = cluster_run(L, (int64_t)e - 1, (int64_t)e - 1, -1, nr, 0,
		    n, ec, true);
		for (uint32_t i = 0; i < or; i++)
			ent_move(L, ol + i, e - or + i);
		return ol + or;
	}
	/* from the median: lower half downwards into [split - ol, split),
	 * upper half upwards into [split, split + or) */
	ol = cluster_run(L, (int64_t)split - 1, (int64_t)split - 1, -1, nl,
	    below, n, ec, false);
	or = cluster_run(L, split, split, 1, nr, n - below, n, ec, false);
	for (uint32_t i = 0; i < ol + or; i++)
		ent_move(L, i, split - ol + i);
	return ol + or;
}

/*
 * Bring m centroids down to maxctds by merging, one at a time, the adjacent
 * pair whose union is smallest relative to what k2 allows at its position
 * (equal pure values first: they cost nothing). Rare: the clustering aims
 * below capacity; this makes the capacity a hard bound.
 */
static uint32_t
repair(const struct lay *L, uint32_t cap, uint32_t m, double n)
{
	while (m > cap) {
		double acc = 0, best = INFINITY;
		uint32_t bi = 0;

		for (uint32_t i = 0; i + 1 < m; i++) {
			double a = ent_m(L, i), b = ent_m(L, i + 1);
			uint64_t wa = ent_w(L, i), wb = ent_w(L, i + 1);
			double w = (double)wa + (double)wb;
			double q = (acc + w / 2) / n, cost;

			if (pure_get(L, i) && pure_get(L, i + 1) && a == b)
				cost = 0;
			else
				cost = w / (q * (1 - q) * n + 1);
			if (cost < best) {
				best = cost;
				bi = i;
			}
			acc += (double)wa;
		}

		double a = ent_m(L, bi), b = ent_m(L, bi + 1);
		uint64_t wa = ent_w(L, bi), wb = ent_w(L, bi + 1);
		bool p = pure_get(L, bi) && pure_get(L, bi + 1) && a == b;
		double mu = a + (b - a) * ((double)wb / ((double)wa + (double)wb));

		ent_put(L, bi, p ? a : dmin(dmax(mu, a), b), wa + wb);
		pure_put(L, bi, p);
		for (uint32_t i = bi + 1; i + 1 < m; i++)
			ent_move(L, i, i + 1);
		m--;
	}
	return m;
}

/* A centroid next to a new point, as seen by assign(). */
struct nbr {
	double		m;
	uint64_t	w;
	bool		pure;
	bool		ok;	/* false: there is no centroid on this side */
};

/*
 * Where a new point p with a.m <= p <= b.m belongs. Sorting a point after
 * the whole of the centroid below it would give it a rank it does not
 * have: the centroid's samples spread on both sides of its mean. A point
 * between two spread centroids belongs to one of them; the boundary puts
 * each centroid's share of the gap in proportion to its weight, as a
 * locally uniform density would. Ranks are exact only next to pure
 * centroids and beyond the extremes, where the point stays a singleton.
 * Returns: -1 for a, +1 for b, 0 for a free singleton.
 */
static int
assign(double p, const struct nbr *a, const struct nbr *b)
{
	double bd;

	if (!a->ok || !b->ok)
		return 0;
	if (a->pure && p == a->m)
		return -1;
	if (b->pure && p == b->m)
		return 1;
	if (a->pure && b->pure)
		return 0;
	if (a->pure)
		return 1;
	if (b->pure)
		return -1;
	bd = a->m + (b->m - a->m) * ((double)a->w / ((double)a->w +
	    (double)b->w));
	return p < bd ? -1 : 1;
}

/* Fold weight w at mean m into the weighted mean (*cm, *cw). */
static inline void
fold(double *cm, uint64_t *cw, double m, uint64_t w)
{
	*cw += w;
	*cm += (m - *cm) * ((double)w / (double)*cw);
}

/*
 * Merge np sorted points (pure[i] says whether point i is pure; NULL means
 * all are) into the centroids, then cluster if they no longer fit. The
 * caller has already counted the points' weight in smplcnt and emptied or
 * copied out the buffer, whose space the merge reuses.
 */
static void
absorb(struct tdgst_hdr *h, const struct pt *pts, const uint8_t *pure,
    uint32_t np, bool attach)
{
	struct lay L = lay_of(h);
	uint32_t nc = h->nctds, k = nc + np, n_items, ku = 0;
	int64_t i = (int64_t)nc - 1, j = (int64_t)np - 1;
	struct nbr up = { 0, 0, false, false }, lo = up;
	double pm = 0;
	uint64_t pw = 0;
	bool any = false, ppure = true;

	/*
	 * Merge from the top down into entries[.., nc + np). A point joins the
	 * centroid above it (already written at ku), or the one below it
	 * (pending until that centroid is written), or is written as a
	 * singleton; equal pure neighbours fold together. Writing index k
	 * stays at or above i + j + 2 before each step, so no unread centroid
	 * is overwritten.
	 */
	while (i >= 0 || j >= 0) {
		double m;
		uint64_t w;
		bool p;

		if (j >= 0 && (i < 0 || pts[j].m >= ent_m(&L, (uint32_t)i))) {
			m = pts[j].m;
			w = pts[j].w;
			p = pure == NULL || pure[j];
			j--;
			lo.ok = i >= 0;
			if (lo.ok) {
				lo.m = ent_m(&L, (uint32_t)i);
				lo.w = ent_w(&L, (uint32_t)i) + pw;
				lo.pure = pure_get(&L, (uint32_t)i) && ppure;
			}
			switch (attach || (p && ((lo.ok && lo.pure &&
			    m == lo.m) || (up.ok && up.pure && m == up.m))) ?
			    assign(m, &lo, &up) : 0) {
			case 1:
				/* a pure centroid stays pure only for its value */
				up.pure = up.pure && p && m == up.m;
				fold(&up.m, &up.w, m, w);
				up.m = up.pure ? m : dmax(up.m, m);
				ent_put(&L, ku, up.m, up.w);
				pure_put(&L, ku, up.pure);
				continue;
			case -1:
				ppure = ppure && p && m == lo.m;
				fold(&pm, &pw, m, w);
				continue;
			default:
				break;
			}
		} else {
			m = ent_m(&L, (uint32_t)i);
			w = ent_w(&L, (uint32_t)i);
			p = pure_get(&L, (uint32_t)i);
			if (pw > 0) {
				double cm = m;

				/* the pending points lie in [m, up.m) */
				fold(&cm, &w, pm, pw);
				p = p && ppure;
				if (!p)
					m = up.ok ? dmin(dmax(cm, m), up.m) :
					    dmax(cm, m);
			}
			i--;
			pw = 0;
			pm = 0;
			ppure = true;
		}
		if (any && p && pure_get(&L, k) && ent_m(&L, k) == m) {
			ent_put(&L, k, m, ent_w(&L, k) + w);
		} else {
			k--;
			ent_put(&L, k, m, w);
			pure_put(&L, k, p);
			any = true;
		}
		up.m = ent_m(&L, k);
		up.w = ent_w(&L, k);
		up.pure = pure_get(&L, k);
		up.ok = true;
		ku = k;
	}

	n_items = nc + np - k;
	if (n_items <= h->maxctds) {
		/* everything fits: keep it all, no information lost */
		for (uint32_t x = 0; x < n_items; x++)
			ent_move(&L, x, k + x);
		h->nctds = (uint16_t)n_items;
		return;
	}

	double n = (double)h->smplcnt;
	double ec = exp(2 * log(n) / (TD_FILL * h->maxctds));
	uint32_t m = cluster(&L, k, nc + np, n, ec, (h->compcnt & 1) == 0);

	if (m > h->maxctds)
		m = repair(&L, h->maxctds, m, n);
	h->nctds = (uint16_t)m;
	h->compcnt++;
}

static void
flush_buf(struct tdgst_hdr *h)
{
	struct pt scratch[TD_BUFMAX];
	uint32_t nb;

	if (h->nbuf == 0)
		return;
	nb = buf_sorted(h, scratch);
	h->nbuf = 0;
	absorb(h, scratch, NULL, nb, true);
}

/* ------------------------------------------------------------------ */
/* Lifecycle and updates                                                */

size_t
tdgst_size(uint32_t nctroids, int wide)
{
	size_t sz;

	if (nctroids == 0 || nctroids > UINT16_MAX)
		return 0;
	sz = region_size(nctroids, wide != 0);
	return sz > TDGST_MAXSZ ? 0 : sz;
}

int
tdgst_init(void *mem, size_t sz, uint32_t nctroids, uint32_t prec, int wide)
{
	struct tdgst_hdr *h = mem;
	size_t need;

	if (mem == NULL || nctroids == 0 || prec > 64)
		return -EINVAL;
	if (nctroids > UINT16_MAX)
		return -EFBIG;
	need = region_size(nctroids, wide != 0);
	if (need > TDGST_MAXSZ)
		return -EFBIG;
	if (sz < need)
		return -ENOSPC;
	memset(mem, 0, need);
	h->magic = TD_MAGIC;
	h->version = TD_VERSION;
	h->wide = wide != 0;
	h->prec = (uint8_t)prec;
	h->flags = TD_F_INTEGRAL;	/* vacuously: nothing seen yet */
	h->maxctds = (uint16_t)nctroids;
	h->bufcap = (uint16_t)bufcap_for(nctroids);
	h->size = (uint32_t)need;
	return 0;
}

void
tdgst_reset(void *mem)
{
	struct tdgst_hdr *h = (struct tdgst_hdr *)hdr_ok(mem);

	if (h == NULL)
		return;
	h->nctds = 0;
	h->nbuf = 0;
	h->smplcnt = 0;
	h->compcnt = 0;
	h->min = 0;
	h->max = 0;
	h->flags |= TD_F_INTEGRAL;
}

int
tdgst_add(void *mem, double x, uint64_t w)
{
	struct tdgst_hdr *h = (struct tdgst_hdr *)hdr_ok(mem);
	struct lay L;

	if (h == NULL || !isfinite(x) || w == 0)
		return -EINVAL;
	if (w > count_limit(h) - h->smplcnt)
		return -EOVERFLOW;
	if (!h->wide && fabs(x) > FLT_MAX)
		return -EOVERFLOW;
	if (h->nbuf >= h->bufcap)
		flush_buf(h);
	L = lay_of(h);
	if (h->smplcnt == 0) {
		h->min = h->max = x;
	} else {
		if (x < h->min)
			h->min = x;
		if (x > h->max)
			h->max = x;
	}
	if (x != floor(x))
		h->flags &= (uint8_t)~TD_F_INTEGRAL;
	ent_put(&L, h->maxctds + h->nbuf, x, w);
	h->nbuf++;
	h->smplcnt += w;
	if (h->nbuf == h->bufcap)
		flush_buf(h);
	return 0;
}

int
tdgst_flush(void *mem)
{
	struct tdgst_hdr *h = (struct tdgst_hdr *)hdr_ok(mem);

	if (h == NULL)
		return -EINVAL;
	flush_buf(h);
	return 0;
}

/* ------------------------------------------------------------------ */
/* The query model                                                      */

/*
 * A read-only view of the digest: the stored centroids merged on the fly
 * with a sorted copy of the buffer. Buffered points are placed by the same
 * rule a merge uses (assign()): folded into the spread centroid whose span
 * holds them, or kept as exact singletons.
 */
struct view {
	const struct tdgst_hdr *h;
	struct lay	L;
	uint32_t	nc, nb, i, j;
	struct nbr	prev;	/* the item returned last */
	struct pt	buf[TD_BUFMAX];
};

static void
view_rewind(struct view *v)
{
	v->i = v->j = 0;
	v->prev.ok = false;
}

static void
view_init(struct view *v, const struct tdgst_hdr *h)
{
	v->h = h;
	v->L = lay_of(h);
	v->nc = h->nctds;
	v->nb = buf_sorted(h, v->buf);
	view_rewind(v);
}

static struct nbr
view_ctd(const struct view *v, uint32_t i)
{
	struct nbr c = { 0, 0, false, false };

	if (i < v->nc) {
		c.m = ent_m(&v->L, i);
		c.w = ent_w(&v->L, i);
		c.pure = pure_get(&v->L, i);
		c.ok = true;
	}
	return c;
}

static bool
view_next(struct view *v, double *m, uint64_t *w, bool *p)
{
	struct nbr cur = view_ctd(v, v->i), nxt;
	double lo, hi;

	if (v->j < v->nb && (!cur.ok || v->buf[v->j].m < cur.m) &&
	    assign(v->buf[v->j].m, &v->prev, &cur) != 1) {
		v->prev.m = *m = v->buf[v->j].m;
		v->prev.w = *w = v->buf[v->j].w;
		v->prev.pure = *p = true;
		v->prev.ok = true;
		v->j++;
		return true;
	}
	if (!cur.ok)
		return false;

	nxt = view_ctd(v, v->i + 1);
	lo = hi = cur.m;
	*m = cur.m;
	*w = cur.w;
	*p = cur.pure;
	/* points below the centroid that the previous item did not take */
	for (; v->j < v->nb && v->buf[v->j].m < cur.m; v->j++) {
		lo = dmin(lo, v->buf[v->j].m);
		fold(m, w, v->buf[v->j].m, v->buf[v->j].w);
		*p = false;
	}
	/* points above it, up to the boundary with the next centroid */
	for (; v->j < v->nb; v->j++) {
		double x = v->buf[v->j].m;

		if (!(cur.pure && *p && x == cur.m) &&
		    (!nxt.ok || x >= nxt.m || assign(x, &cur, &nxt) != -1))
			break;
		hi = dmax(hi, x);
		fold(m, w, x, v->buf[v->j].w);
		*p = *p && x == cur.m;
	}
	if (*p)
		*m = cur.m;
	else
		*m = dmin(dmax(*m, lo), hi);
	v->prev.m = *m;
	v->prev.w = *w;
	v->prev.pure = *p;
	v->prev.ok = true;
	v->i++;
	return true;
}

/*
 * The estimated quantile function Q(t), t in [0, n] the rank, is built from
 * knots, each a stretch [a, b] of ranks going from value va to vb, joined
 * by straight lines:
 *   - the minimum sample occupies [0, 1], the maximum [n - 1, n];
 *   - a pure item (a singleton, or equal samples) is exact: flat over the
 *     ranks [W, W + w] it covers, as the paper treats singletons;
 *   - any other centroid is a single point at its centre rank W + w/2.
 * Knots are made disjoint and ascending (a stretch that overlaps the
 * previous one starts where that one ends), so Q is non-decreasing.
 *
 * For integer data (TD_F_INTEGRAL) Q describes the data with each integer
 * k spread evenly over (k - 1/2, k + 1/2]: a pure item of value v rises
 * from v - 1/2 to v + 1/2 over its ranks, and the answer is the integer
 * whose cell holds Q(t). A centroid's mean is the same under that spread,
 * so the estimate keeps the rank accuracy of the continuous one, and a
 * quantile between two point masses is a value whose rank interval holds
 * q, not a value between them that no sample has.
 */
struct knot {
	double	a, b, va, vb;
	double	w;	/* a point's centroid weight; 0 for a stretch */
};

struct kit {
	struct view	*vw;
	double		n, min, max, acc, prevb, prevv, half;
	int		state;	/* 0 min knot next, 1 items, 2 max knot, 3 done */
};

static void
kit_init(struct kit *k, struct view *vw)
{
	k->vw = vw;
	k->n = (double)vw->h->smplcnt;
	k->min = vw->h->min;
	k->max = vw->h->max;
	k->half = (vw->h->flags & TD_F_INTEGRAL) ? 0.5 : 0;
	k->acc = 0;
	k->prevb = 0;
	k->prevv = -INFINITY;
	k->state = 0;
	view_rewind(vw);
}

/*
 * The knot going from va at rank a to vb at rank b, after the previous
 * one: the part of it past the previous knot's end, non-decreasing.
 */
static void
kit_put(struct kit *k, struct knot *out, double a, double b, double va,
    double vb)
{
	out->a = dmax(a, k->prevb);
	out->b = dmax(b, out->a);
	out->va = va;
	if (b > a && out->a > a)
		out->va = out->a >= b ? vb : va + (vb - va) * ((out->a - a) /
		    (b - a));
	out->va = dmax(out->va, k->prevv);
	out->vb = dmax(vb, out->va);
	out->w = 0;
	k->prevb = out->b;
	k->prevv = out->vb;
}

static bool
kit_next(struct kit *k, struct knot *out)
{
	double m, lo, h = k->half;
	uint64_t w;
	bool p;

	switch (k->state) {
	case 0:
		/* the minimum sample: rank [0, 1]; for integer data the
		 * bottom of its cell, where a pure minimum's ramp starts */
		k->state = 1;
		if (h > 0)
			kit_put(k, out, 0, 0, k->min - h, k->min - h);
		else
			kit_put(k, out, 0, 1, k->min, k->min);
		return true;
	case 1:
		if (view_next(k->vw, &m, &w, &p)) {
			lo = k->acc;
			k->acc += (double)w;
			/* narrow means are rounded floats; the extremes are exact */
			m = dmin(dmax(m, k->min), k->max);
			if (p && lo == 0)
				m = k->min;
			else if (p && k->acc >= k->n)
				m = k->max;
			if (p) {
				kit_put(k, out, lo, k->acc, m - h, m + h);
			} else {
				kit_put(k, out, lo + (double)w / 2,
				    lo + (double)w / 2, m, m);
				out->w = (double)w;
			}
			return true;
		}
		k->state = 2;
		/* FALLTHROUGH */
	case 2:
		k->state = 3;
		if (h > 0)
			kit_put(k, out, k->n, k->n, k->max + h, k->max + h);
		else
			kit_put(k, out, k->n - 1, k->n, k->max, k->max);
		return true;
	default:
		return false;
	}
}

static double
lerp(double x0, double y0, double x1, double y1, double x)
{
	double y;

	if (x1 <= x0)
		return y1;
	y = y0 + (y1 - y0) * ((x - x0) / (x1 - x0));
	return dmin(dmax(y, y0), y1);
}

/* The answer for the model's value y: for integer data, the integer
 * whose cell (k - 1/2, k + 1/2] holds it (on a boundary, the lower one,
 * as the flat knots answer the smallest value whose rank reaches q). */
static double
kit_value(const struct kit *k, double y)
{
	if (k->half > 0)
		y = ceil(y - 0.5);
	return dmin(dmax(y, k->min), k->max);
}

/*
 * Between knots, Q is a monotone cubic (Fritsch and Carlson's piecewise
 * cubic Hermite interpolation) rather than a straight line, and a spread
 * centroid's knot is put at the value Q has at its centre rather than at
 * its mean: over a centroid of weight w where Q curves, the mean exceeds
 * the centre's value by Q'' w^2 / 24, Q'' estimated from the neighbouring
 * knots. Straight lines across centroids several percent wide were most
 * of the error mid-range on skewed data (docs/tdigest.md). Stretches (pure
 * items, the extremes) stay as they are, and a segment that starts or
 * ends at one keeps that end's secant slope, so data made of point masses
 * are interpolated as before.
 *
 * A query walks the knots once, keeping the last CV_WIN of them: a
 * segment's ends need their corrected values and slopes, which look one
 * knot further on each side, and each correction looks one further again.
 */
#define CV_WIN	8

struct curve {
	struct kit	k;
	struct knot	r[CV_WIN];	/* raw knots, by index mod CV_WIN */
	int64_t		n;		/* knots read */
	bool		eof;
};

static void
curve_init(struct curve *cv, struct view *vw)
{
	kit_init(&cv->k, vw);
	cv->n = 0;
	cv->eof = false;
}

/* Read one more knot. Returns: false at the end. */
static bool
curve_read(struct curve *cv)
{
	if (cv->eof || !kit_next(&cv->k, &cv->r[cv->n % CV_WIN])) {
		cv->eof = true;
		return false;
	}
	cv->n++;
	return true;
}

/* Knot i (read, and still in the window), or NULL. */
static const struct knot *
curve_raw(const struct curve *cv, int64_t i)
{
	if (i < 0 || i >= cv->n || i < cv->n - CV_WIN)
		return NULL;
	return &cv->r[i % CV_WIN];
}

static bool
is_point(const struct knot *kn)
{
	return kn != NULL && kn->w > 0;
}

/* The value of point knot i at its centre: its mean less the curvature
 * term, kept between its neighbours. */
static double
curve_val(const struct curve *cv, int64_t i)
{
	const struct knot *l = curve_raw(cv, i - 1), *c = curve_raw(cv, i),
	    *r = curve_raw(cv, i + 1);
	double dl, dr, q2, v;

	if (!is_point(c) || !is_point(l) || !is_point(r))
		return c->va;
	dl = (c->va - l->vb) / (c->a - l->b);
	dr = (r->va - c->vb) / (r->a - c->b);
	q2 = 2 * (dr - dl) / (r->a - l->b);
	v = c->va - q2 * c->w * c->w / 24;
	return dmin(dmax(v, l->vb), r->va);
}

/* The value where knot i starts (is_end false) or ends. */
static double
curve_end(const struct curve *cv, int64_t i, bool is_end)
{
	const struct knot *c = curve_raw(cv, i);

	if (is_point(c))
		return curve_val(cv, i);
	return is_end ? c->vb : c->va;
}

/* The secant slope of the segment from knot i to knot i + 1. */
static double
curve_secant(const struct curve *cv, int64_t i)
{
	const struct knot *a = curve_raw(cv, i), *b = curve_raw(cv, i + 1);

	if (b->a <= a->b)
		return 0;
	return (curve_end(cv, i + 1, false) - curve_end(cv, i, true)) /
	    (b->a - a->b);
}

/* Q's slope at point knot i, from the secants on either side (their
 * harmonic mean, 0 at an extremum): Fritsch and Carlson's choice, which
 * keeps the cubic monotone. d is the secant of the segment asked about. */
static double
curve_slope(const struct curve *cv, int64_t i, double d)
{
	double dl, dr;

	if (!is_point(curve_raw(cv, i)) || curve_raw(cv, i - 1) == NULL ||
	    curve_raw(cv, i + 1) == NULL)
		return d;
	dl = curve_secant(cv, i - 1);
	dr = curve_secant(cv, i);
	return dl > 0 && dr > 0 ? 2 / (1 / dl + 1 / dr) : 0;
}

/* A segment between knots: x0..x1 from y0 to y1, end slopes m0, m1. */
struct seg {
	double	x0, x1, y0, y1, m0, m1;
};

/* The segment from knot i to knot i + 1 (both in the window, with one
 * more on each side where there is one). */
static void
curve_seg(const struct curve *cv, int64_t i, struct seg *sg)
{
	double d;

	sg->x0 = curve_raw(cv, i)->b;
	sg->x1 = curve_raw(cv, i + 1)->a;
	sg->y0 = curve_end(cv, i, true);
	sg->y1 = curve_end(cv, i + 1, false);
	d = sg->x1 > sg->x0 ? (sg->y1 - sg->y0) / (sg->x1 - sg->x0) : 0;
	sg->m0 = curve_slope(cv, i, d);
	sg->m1 = curve_slope(cv, i + 1, d);
}

static double
seg_at(const struct seg *sg, double t)
{
	double h = sg->x1 - sg->x0, u, y;

	if (h <= 0)
		return sg->y1;
	u = (t - sg->x0) / h;
	u = dmin(dmax(u, 0), 1);
	y = (1 + 2 * u) * (1 - u) * (1 - u) * sg->y0 +
	    u * (1 - u) * (1 - u) * h * sg->m0 +
	    u * u * (3 - 2 * u) * sg->y1 + u * u * (u - 1) * h * sg->m1;
	return dmin(dmax(y, sg->y0), sg->y1);
}

/* The first t of the segment where it reaches y (strict: passes y). */
static double
seg_rank(const struct seg *sg, double y, bool strict)
{
	double lo = sg->x0, hi = sg->x1;

	for (int it = 0; it < 64 && hi - lo > 1e-9 * (1 + hi); it++) {
		double mid = lo + (hi - lo) / 2, v = seg_at(sg, mid);

		if (strict ? v > y : v >= y)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/*
 * The model's Q(t), for t not below the last call's (*ip is the knot the
 * walk has got to; start it at 0 on a fresh curve).
 */
static double
curve_q(struct curve *cv, int64_t *ip, double t)
{
	const struct knot *kn;
	struct seg sg;

	for (;; ++*ip) {
		/* knot i, with two more read for its segment's end slope */
		while (!cv->eof && cv->n < *ip + 3)
			(void)curve_read(cv);
		kn = curve_raw(cv, *ip);
		if (kn == NULL)
			return cv->k.max;
		if (t > kn->b)
			continue;
		if (*ip > 0 && t < kn->a) {
			curve_seg(cv, *ip - 1, &sg);
			return seg_at(&sg, t);
		}
		if (is_point(kn))
			return curve_val(cv, *ip);
		return kn->b > kn->a ? lerp(kn->a, kn->va, kn->b, kn->vb, t) :
		    kn->va;
	}
}

static double
view_quantile(struct view *vw, double q)
{
	struct curve cv;
	int64_t i = 0;

	curve_init(&cv, vw);
	if (q <= 0)
		return cv.k.min;
	if (q >= 1)
		return cv.k.max;
	return kit_value(&cv.k, curve_q(&cv, &i, q * cv.k.n));
}

/* The first rank t at which Q(t) reaches y (strict: passes y), or n. */
static double
view_rank(struct view *vw, double y, bool strict)
{
	struct curve cv;
	const struct knot *kn;
	struct seg sg;
	int64_t i;
	double va, vb;

	curve_init(&cv, vw);
	for (i = 0; curve_read(&cv) || i < cv.n; i++) {
		while (!cv.eof && cv.n < i + 3)
			(void)curve_read(&cv);
		kn = curve_raw(&cv, i);
		if (kn == NULL)
			break;
		/* on the segment from the previous knot to this one */
		if (i > 0 && kn->a > curve_raw(&cv, i - 1)->b) {
			curve_seg(&cv, i - 1, &sg);
			if (strict ? sg.y1 > y : sg.y1 >= y)
				return (strict ? sg.y0 > y : sg.y0 >= y) ?
				    sg.x0 : seg_rank(&sg, y, strict);
		}
		/* within this knot */
		va = curve_end(&cv, i, false);
		vb = curve_end(&cv, i, true);
		if (strict ? vb > y : vb >= y) {
			if ((strict ? va > y : va >= y) || kn->b <= kn->a)
				return kn->a;
			return kn->a + (kn->b - kn->a) * ((y - va) / (vb - va));
		}
	}
	return cv.k.n;
}

/*
 * F(x) is the midpoint of the ranks t whose answer is x, over n: exact
 * mid-rank for pure items, and the inverse of the interpolation elsewhere.
 * For integer data the answer is x over the ranks where Q is in x's cell;
 * a value between integers has no rank of its own and gets the cells'
 * boundary.
 */
static double
view_cdf(struct view *vw, double x)
{
	const struct tdgst_hdr *h = vw->h;
	double n = (double)h->smplcnt, tlo, thi;

	if (x < h->min)
		return 0;
	if (x > h->max)
		return 1;
	if (h->flags & TD_F_INTEGRAL) {
		if (x != floor(x))
			tlo = thi = view_rank(vw, floor(x) + 0.5, true);
		else {
			tlo = view_rank(vw, x - 0.5, true);
			thi = view_rank(vw, x + 0.5, true);
		}
	} else {
		tlo = view_rank(vw, x, false);
		thi = view_rank(vw, x, true);
	}
	return dmin(dmax((tlo + thi) / 2 / n, 0), 1);
}

/*
 * tdgst_merge feeds src into dst as weighted points through the same
 * assignment a flush uses. A spread src centroid is cut into up to
 * TD_PIECES pieces placed along src's own interpolated quantile function,
 * so its mass lands in dst's centroids the way src believes it lies rather
 * than all in one lump; pure centroids go across exactly.
 */
#define TD_PIECES	8

/* Evaluates Q(t) for non-decreasing t in one walk over the knots. */
struct qwalk {
	struct curve	cv;
	int64_t		i;
};

static void
qwalk_init(struct qwalk *qw, struct view *vw)
{
	curve_init(&qw->cv, vw);
	qw->i = 0;
}

static double
qwalk_at(struct qwalk *qw, double t)
{
	/* the model's value, not an integer answer: pieces are means */
	return dmin(dmax(curve_q(&qw->cv, &qw->i, t), qw->cv.k.min),
	    qw->cv.k.max);
}

/*
 * Walk src's items and their pieces in order, handing every stride-th
 * piece from offset `first` to the caller's arrays. Returns the number of
 * pieces in all (the caller learns it from the first, unstrided count).
 */
static uint32_t
pieces(struct view *sv, uint32_t first, uint32_t stride, struct pt *out,
    uint8_t *pure, uint32_t *nout, uint32_t cap)
{
	struct view walk;
	struct qwalk qw = { 0 };	/* -O3 cannot see it is set before use */
	double m, acc = 0;
	uint64_t w;
	bool p;
	uint32_t idx = 0;

	walk = *sv;
	view_rewind(&walk);
	qwalk_init(&qw, sv);
	*nout = 0;
	while (view_next(&walk, &m, &w, &p)) {
		uint32_t k = p || w < 2 ? 1 : (w < TD_PIECES ? (uint32_t)w :
		    TD_PIECES);
		double v[TD_PIECES], vm = 0, lo = m, hi = m;
		uint64_t pw[TD_PIECES];

		if (k == 1) {
			v[0] = m;
			pw[0] = w;
		} else {
			for (uint32_t j = 0; j < k; j++) {
				double t = acc + ((double)j + 0.5) *
				    ((double)w / k);

				pw[j] = w * (j + 1) / k - w * j / k;
				v[j] = qwalk_at(&qw, t);
				vm += v[j] * ((double)pw[j] / (double)w);
				lo = dmin(lo, v[j]);
				hi = dmax(hi, v[j]);
			}
			/* shift so the pieces keep the centroid's exact mean */
			for (uint32_t j = 0; j < k; j++)
				v[j] = dmin(dmax(v[j] + (m - vm), lo), hi);
		}
		for (uint32_t j = 0; j < k; j++, idx++) {
			if (idx < first || (idx - first) % stride != 0 ||
			    *nout >= cap)
				continue;
			out[*nout].m = v[j];
			out[*nout].w = pw[j];
			/* A piece of one sample is a point mass, whatever
			 * centroid it came from: a digest's singletons are
			 * pure (tdgst_validate() holds it to that). */
			pure[*nout] = (k == 1 && p) || pw[j] == 1;
			(*nout)++;
		}
		acc += (double)w;
	}
	return idx;
}

/* Pieces come out sorted except where the mean-keeping shift swapped the
 * edges of neighbouring centroids: insertion sort is linear here. */
static void
isort_flags(struct pt *a, uint8_t *f, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++) {
		struct pt t = a[i];
		uint8_t tf = f[i];
		uint32_t j = i;

		while (j > 0 && a[j - 1].m > t.m) {
			a[j] = a[j - 1];
			f[j] = f[j - 1];
			j--;
		}
		a[j] = t;
		f[j] = tf;
	}
}

int
tdgst_merge(void *dst, const void *src)
{
	struct tdgst_hdr *d = (struct tdgst_hdr *)hdr_ok(dst);
	const struct tdgst_hdr *s = hdr_ok(src);
	struct pt scratch[TD_BUFMAX];
	uint8_t pure[TD_BUFMAX];
	struct view sv;
	uintptr_t da, sa;
	uint32_t total, nchunk, per, np;

	if (d == NULL || s == NULL)
		return -EINVAL;
	da = (uintptr_t)dst;
	sa = (uintptr_t)src;
	if (da < sa + s->size && sa < da + d->size)
		return -EINVAL;
	if (s->smplcnt == 0)
		return 0;
	if (s->smplcnt > count_limit(d) - d->smplcnt)
		return -EOVERFLOW;
	if (!d->wide && (fabs(s->min) > FLT_MAX || fabs(s->max) > FLT_MAX))
		return -EOVERFLOW;

	flush_buf(d);
	d->flags &= (uint8_t)(s->flags | ~TD_F_INTEGRAL);
	if (d->smplcnt == 0) {
		d->min = s->min;
		d->max = s->max;
	} else {
		d->min = dmin(d->min, s->min);
		d->max = dmax(d->max, s->max);
	}

	/*
	 * Chunk c takes pieces c, c + S, c + 2S, ... (S chunks in all), so
	 * each intermediate clustering sees a proportional sample of src
	 * rather than one end of it, which would put dst's centroids at
	 * misleading ranks.
	 */
	view_init(&sv, s);
	per = d->bufcap;
	total = pieces(&sv, 0, 1, scratch, pure, &np, 0);
	nchunk = (total + per - 1) / per;
	for (uint32_t c = 0; c < nchunk; c++) {
		uint64_t wsum = 0;

		pieces(&sv, c, nchunk, scratch, pure, &np, per);
		for (uint32_t i = 0; i < np; i++)
			wsum += scratch[i].w;
		d->smplcnt += wsum;
		isort_flags(scratch, pure, np);
		absorb(d, scratch, pure, np, true);
	}
	return 0;
}

int
tdgst_quantile(const void *mem, double q, double *ret)
{
	const struct tdgst_hdr *h = hdr_ok(mem);
	struct view vw;

	if (h == NULL || ret == NULL || !(q >= 0 && q <= 1))
		return -EINVAL;
	if (h->smplcnt == 0)
		return -ENODATA;
	view_init(&vw, h);
	*ret = view_quantile(&vw, q);
	return 0;
}

int
tdgst_cdf(const void *mem, double x, double *ret)
{
	const struct tdgst_hdr *h = hdr_ok(mem);
	struct view vw;

	if (h == NULL || ret == NULL || isnan(x))
		return -EINVAL;
	if (h->smplcnt == 0)
		return -ENODATA;
	view_init(&vw, h);
	*ret = view_cdf(&vw, x);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Accessors and validation                                             */

uint64_t
tdgst_count(const void *mem)
{
	const struct tdgst_hdr *h = hdr_ok(mem);

	return h == NULL ? 0 : h->smplcnt;
}

double
tdgst_min(const void *mem)
{
	const struct tdgst_hdr *h = hdr_ok(mem);

	return h == NULL || h->smplcnt == 0 ? NAN : h->min;
}

double
tdgst_max(const void *mem)
{
	const struct tdgst_hdr *h = hdr_ok(mem);

	return h == NULL || h->smplcnt == 0 ? NAN : h->max;
}

uint32_t
tdgst_ncentroids(const void *mem)
{
	const struct tdgst_hdr *h = hdr_ok(mem);

	return h == NULL ? 0 : h->nctds;
}

uint32_t
tdgst_nbuffered(const void *mem)
{
	const struct tdgst_hdr *h = hdr_ok(mem);

	return h == NULL ? 0 : h->nbuf;
}

int
tdgst_centroid(const void *mem, uint32_t i, double *mean, uint64_t *w)
{
	const struct tdgst_hdr *h = hdr_ok(mem);

	struct lay L;

	if (h == NULL)
		return -EINVAL;
	if (i >= h->nctds)
		return -ENOENT;
	L = lay_of(h);
	if (mean != NULL)
		*mean = ent_m(&L, i);
	if (w != NULL)
		*w = ent_w(&L, i);
	return 0;
}

int
tdgst_validate(const void *mem, size_t sz)
{
	const struct tdgst_hdr *h = mem;
	uint64_t sum = 0, lim;
	double prev = -INFINITY;
	struct lay L;

	if (mem == NULL || sz < TD_HDRSZ || hdr_ok(mem) == NULL ||
	    h->size > sz || h->prec > 64 || (h->flags & ~TD_F_KNOWN) != 0 ||
	    h->pad1 != 0)
		return -EINVAL;
	lim = count_limit(h);
	L = lay_of(h);
	for (uint32_t i = 0; i < (uint32_t)h->nctds + h->nbuf; i++) {
		uint32_t at = i < h->nctds ? i : h->maxctds + (i - h->nctds);
		double m = ent_m(&L, at);
		uint64_t w = ent_w(&L, at);

		if (!isfinite(m) || w == 0 || w > lim - sum)
			return -EINVAL;
		sum += w;
		if (i < h->nctds) {
			if (m < prev || (w == 1 && !pure_get(&L, at)))
				return -EINVAL;
			prev = m;
		}
	}
	if (sum != h->smplcnt)
		return -EINVAL;
	if (sum > 0 && (!isfinite(h->min) || !isfinite(h->max) ||
	    h->min > h->max || (!h->wide && (fabs(h->min) > FLT_MAX ||
	    fabs(h->max) > FLT_MAX))))
		return -EINVAL;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Rendering                                                            */

/* The shortest %g text that reads back to the same double. */
static void
put_double(struct sbuf *sb, double v)
{
	char s[40];

	if (!isfinite(v)) {
		sbuf_cat(sb, "null");
		return;
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(s, sizeof(s), "%.*g", prec, v);
		if (prec == 17 || strtod(s, NULL) == v)
			break;
	}
	sbuf_cat(sb, s);
}

/* Narrow means are floats: their shortest float text ("0.1", not the
 * double expansion of the float nearest 0.1). */
static void
put_mean(struct sbuf *sb, const struct tdgst_hdr *h, double v)
{
	char s[40];

	if (h->wide || !isfinite(v)) {
		put_double(sb, v);
		return;
	}
	for (int prec = 6; prec <= 9; prec++) {
		snprintf(s, sizeof(s), "%.*g", prec, v);
		if (prec == 9 || strtof(s, NULL) == (float)v)
			break;
	}
	sbuf_cat(sb, s);
}

static const double render_q[] = { 0.5, 0.9, 0.99, 0.999 };
static const char *const render_qname[] = { "0.5", "0.9", "0.99", "0.999" };

static void
put_ctd(struct sbuf *sb, const struct tdgst_hdr *h, int json,
    const char *tag, int64_t idx, double m, uint64_t w)
{
	if (json) {
		sbuf_putc(sb, '{');
		if (idx >= 0)
			sbuf_printf(sb, "\"%s\":%jd,", tag, (intmax_t)idx);
		sbuf_cat(sb, "\"mu\":");
		put_mean(sb, h, m);
		sbuf_cat(sb, ",\"cnt\":");
		numeric_json_u64(sb, w);
		sbuf_putc(sb, '}');
	} else {
		sbuf_cat(sb, "\n\t\t\t\t");
		if (idx >= 0)
			sbuf_printf(sb, "%s[%jd].", tag, (intmax_t)idx);
		sbuf_cat(sb, "{mu=");
		put_mean(sb, h, m);
		sbuf_printf(sb, ",cnt=%ju}", (uintmax_t)w);
	}
}

int
tdgst_render(struct sbuf *sb, const void *mem, int json, int objdump)
{
	const struct tdgst_hdr *h = hdr_ok(mem);
	struct view vw;
	struct lay L;
	bool empty;
	double m;
	uint64_t w;
	bool p;
	uint32_t n;
	int err;

	if (sb == NULL || h == NULL)
		return -EINVAL;
	empty = h->smplcnt == 0;
	L = lay_of(h);
	view_init(&vw, h);
	n = h->nctds;
	if (!objdump)
		for (n = 0; view_next(&vw, &m, &w, &p); n++)
			;

	sbuf_printf(sb, json ?
	    "\"smplcnt\":%ju,\"compcnt\":%ju,\"maxctds\":%u,\"nctds\":%u" :
	    "smplcnt=%ju, compcnt=%ju, maxctds=%u, nctds=%u",
	    (uintmax_t)h->smplcnt, (uintmax_t)h->compcnt,
	    (unsigned)h->maxctds, n);
	if (objdump)
		sbuf_printf(sb, json ?
		    ",\"prec\":%u,\"wide\":%u,\"bufcap\":%u,\"nbuf\":%u" :
		    ", prec=%u, wide=%u, bufcap=%u, nbuf=%u",
		    (unsigned)h->prec, (unsigned)h->wide,
		    (unsigned)h->bufcap, (unsigned)h->nbuf);
	sbuf_cat(sb, json ? ",\"min\":" : ", min=");
	put_double(sb, empty ? NAN : h->min);
	sbuf_cat(sb, json ? ",\"max\":" : ", max=");
	put_double(sb, empty ? NAN : h->max);
	if (json)
		sbuf_cat(sb, ",\"quantiles\":{");
	for (size_t i = 0; i < sizeof(render_q) / sizeof(render_q[0]); i++) {
		if (json)
			sbuf_printf(sb, "%s\"%s\":", i > 0 ? "," : "",
			    render_qname[i]);
		else
			sbuf_printf(sb, ", q%s=", render_qname[i]);
		put_double(sb, empty ? NAN : view_quantile(&vw, render_q[i]));
	}
	if (json)
		sbuf_cat(sb, "},\"ctds\":[");

	if (objdump) {
		for (uint32_t i = 0; i < h->nctds; i++) {
			if (json && i > 0)
				sbuf_putc(sb, ',');
			put_ctd(sb, h, json, "ctd", i, ent_m(&L, i),
			    ent_w(&L, i));
		}
		if (json)
			sbuf_cat(sb, "],\"buf\":[");
		for (uint32_t i = 0; i < h->nbuf; i++) {
			if (json && i > 0)
				sbuf_putc(sb, ',');
			put_ctd(sb, h, json, "buf", i,
			    ent_m(&L, h->maxctds + i),
			    ent_w(&L, h->maxctds + i));
		}
	} else {
		uint32_t i = 0;

		view_rewind(&vw);
		while (view_next(&vw, &m, &w, &p)) {
			if (json && i++ > 0)
				sbuf_putc(sb, ',');
			put_ctd(sb, h, json, NULL, -1, m, w);
		}
	}
	if (json)
		sbuf_putc(sb, ']');
	err = sbuf_error(sb);
	return err == 0 ? 0 : -err;
}
