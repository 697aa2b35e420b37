/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hist.c: the HIST statistic family.
 *
 * Bucket generation and update follow FreeBSD's stats(9) (subr_stats.c):
 * generated schemes stop after the first bucket whose upper bound
 * passes ub; a value lands in the highest-numbered bucket that matches and
 * in the out-of-band counter otherwise; counters wrap silently. Two
 * deliberate differences, both documented in stats(3): the infinite upper
 * bound of a DRHIST includes the type's maximum (FreeBSD drops it out of
 * band), and bucket arithmetic that would wrap the VOI's type is refused
 * with EINVAL instead of producing a disordered histogram.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "numeric.h"

/* Internal flag kept in the header: lower bounds ascend, so bsearch. */
#define HIST_SORTED	0x80
#define HIST_USER_FLAGS	(VSD_HIST_LBOUND_INF | VSD_HIST_UBOUND_INF)

#define CR32	((uint16_t)sizeof(struct voistatdata_crbkt32))
#define DR32	((uint16_t)sizeof(struct voistatdata_drbkt32))
#define DV32	((uint16_t)sizeof(struct voistatdata_dvbkt32))

static const struct hist_geom hist_geoms[] = {
	[VSD_DTYPE_CRHIST32] = { 8, CR32, 1, 0, 'C' },
	[VSD_DTYPE_DRHIST32] = { 8, DR32, 2, 0, 'D' },
	[VSD_DTYPE_DVHIST32] = { 8, DV32, 1, 0, 'V' },
	[VSD_DTYPE_CRHIST64] = { 16,
	    (uint16_t)sizeof(struct voistatdata_crbkt64), 1, 1, 'C' },
	[VSD_DTYPE_DRHIST64] = { 16,
	    (uint16_t)sizeof(struct voistatdata_drbkt64), 2, 1, 'D' },
	[VSD_DTYPE_DVHIST64] = { 16,
	    (uint16_t)sizeof(struct voistatdata_dvbkt64), 1, 1, 'V' },
};

const struct hist_geom *
hist_geom(enum vsd_dtype hist_dtype)
{
	if (hist_dtype < VSD_DTYPE_CRHIST32 || hist_dtype > VSD_DTYPE_DVHIST64)
		return NULL;
	return &hist_geoms[hist_dtype];
}

size_t
hist_size(enum vsd_dtype hist_dtype, uint32_t nbkts)
{
	const struct hist_geom *g = hist_geom(hist_dtype);

	return g == NULL ? 0 : g->hdrsz + (size_t)nbkts * g->bktsz;
}

/* The common header fields, at the same place in every histogram type. */
struct hist_hdr {
	union {
		uint32_t	oob32;
		uint64_t	oob64;
	};
};

static inline uint8_t *
hist_bkt(const struct voistatdata *vsd, const struct hist_geom *g, uint32_t i)
{
	return (uint8_t *)vsd + g->hdrsz + (size_t)i * g->bktsz;
}

/*
 * The bucket count, VOI type and flags follow the out-of-band counter,
 * which is 4 or 8 bytes wide; every header starts that way.
 */
struct hist_meta {
	uint16_t	nbkts;
	uint8_t		voi_dtype;
	uint8_t		hflags;
};

static inline struct hist_meta *
hist_meta(const struct voistatdata *vsd, const struct hist_geom *g)
{
	return (struct hist_meta *)((uint8_t *)vsd + (g->cnt64 ? 8 : 4));
}

static inline uint16_t
hist_nbkts(const struct voistatdata *vsd, const struct hist_geom *g)
{
	return hist_meta(vsd, g)->nbkts;
}

uint16_t
hist_nbuckets(const struct voistatdata *vsd, const struct hist_geom *g)
{
	return hist_nbkts(vsd, g);
}

struct voistatdata_numeric *
hist_bkt_lb(struct voistatdata *vsd, const struct hist_geom *g, uint32_t i)
{
	return (struct voistatdata_numeric *)hist_bkt(vsd, g, i);
}

struct voistatdata_numeric *
hist_bkt_ub(struct voistatdata *vsd, const struct hist_geom *g, uint32_t i)
{
	return (struct voistatdata_numeric *)hist_bkt(vsd, g, i) +
	    (g->nbounds - 1);
}

static void *
hist_bkt_cntp(const struct voistatdata *vsd, const struct hist_geom *g,
    uint32_t i)
{
	return hist_bkt(vsd, g, i) + g->nbounds * 8;
}

uint64_t
hist_bkt_cnt(const struct voistatdata *vsd, const struct hist_geom *g,
    uint32_t i)
{
	if (g->cnt64)
		return *(uint64_t *)hist_bkt_cntp(vsd, g, i);
	return *(uint32_t *)hist_bkt_cntp(vsd, g, i);
}

static void
hist_bkt_add(struct voistatdata *vsd, const struct hist_geom *g, uint32_t i,
    uint64_t y)
{
	/* Counters wrap silently at their width, as FreeBSD's do. */
	if (g->cnt64)
		*(uint64_t *)hist_bkt_cntp(vsd, g, i) += y;
	else
		*(uint32_t *)hist_bkt_cntp(vsd, g, i) += (uint32_t)y;
}

uint64_t
hist_oob(const struct voistatdata *vsd, const struct hist_geom *g)
{
	const struct hist_hdr *h = (const struct hist_hdr *)vsd;

	return g->cnt64 ? h->oob64 : h->oob32;
}

static void
hist_oob_add(struct voistatdata *vsd, const struct hist_geom *g, uint64_t y)
{
	struct hist_hdr *h = (struct hist_hdr *)vsd;

	if (g->cnt64)
		h->oob64 += y;
	else
		h->oob32 += (uint32_t)y;
}

/*
 * Bucket generation. Bounds are computed as exact 128-bit integers in the
 * VOI's units and range-checked against its type; fixed-point VOIs take
 * their bounds in whole units, scaled on store.
 */
struct hist_gen {
	enum vsd_dtype	voi_dtype;
	__int128	lo, hi;		/* the VOI type's range, in units */
	unsigned	fbits;		/* fixed-point scale */
	uint32_t	n;		/* buckets produced */
	uint32_t	cap;		/* buckets that fit a blob */
	__int128	(*b)[2];	/* bounds out, or NULL to count only */
};

static __int128
hist_unit(enum vsd_dtype dtype, const struct voistatdata_numeric *v)
{
	/* Bounds given to the helpers are raw 64-bit values in units. */
	if (dtype_info[dtype].is_signed)
		return dtype == VSD_DTYPE_INT_S32 || dtype == VSD_DTYPE_Q_S32 ?
		    (__int128)v->int32.s32 : (__int128)v->int64.s64;
	return dtype == VSD_DTYPE_INT_U32 || dtype == VSD_DTYPE_Q_U32 ?
	    (__int128)v->int32.u32 : (__int128)v->int64.u64;
}

static int
hist_gen_push(struct hist_gen *hg, __int128 lb, __int128 ub)
{
	if (hg->n >= hg->cap)
		return EFBIG;
	if (hg->b != NULL) {
		hg->b[hg->n][0] = lb;
		hg->b[hg->n][1] = ub;
	}
	hg->n++;
	return 0;
}

static __int128
hist_ipow(uint64_t base, uint64_t exp, __int128 limit)
{
	__int128 r = 1;

	/* Powers of 0 and 1 need no loop (stepexp may be 2^32 - 1). */
	if (base <= 1)
		return base == 0 && exp > 0 ? 0 : 1;
	while (exp-- > 0) {
		r *= base;
		if (r > limit)
			return limit + 1;
	}
	return r;
}

static int
hist_generate(struct hist_gen *hg, const struct vss_hist_hlpr_info *info)
{
	const struct hist_geom *g = hist_geom(info->hist_dtype);
	__int128 lb, ub, step, ilb, iub;
	uint32_t k;
	int error;

	ilb = hist_unit(hg->voi_dtype, &info->lb);
	iub = hist_unit(hg->voi_dtype, &info->ub);
	if (info->scheme == BKT_USR) {
		if (info->usr.nbkts == 0 || info->usr.bkts == NULL)
			return EINVAL;
		ilb = hist_unit(hg->voi_dtype, &info->usr.bkts[0].lb);
	}
	if (info->flags & VSD_HIST_LBOUND_INF) {
		error = hist_gen_push(hg, hg->lo, ilb);
		if (error != 0)
			return error;
	}
	if (info->scheme == BKT_USR) {
		for (k = 0; k < info->usr.nbkts; k++) {
			lb = hist_unit(hg->voi_dtype, &info->usr.bkts[k].lb);
			ub = hist_unit(hg->voi_dtype, &info->usr.bkts[k].ub);
			if (g->kind == 'D' && ub <= lb)
				return EINVAL;
			error = hist_gen_push(hg, lb, ub);
			if (error != 0)
				return error;
		}
		ub = hist_unit(hg->voi_dtype,
		    &info->usr.bkts[info->usr.nbkts - 1].ub);
	} else {
		if (iub < ilb)
			return EINVAL;
		ub = ilb;
		for (k = 0;; k++) {
			lb = ub;
			switch (info->scheme) {
			case BKT_LIN:
				step = hist_unit(hg->voi_dtype,
				    &info->lin.stepinc);
				break;
			case BKT_EXP:
				step = hist_ipow(info->exp.stepbase,
				    (uint64_t)info->exp.stepexp + k, hg->hi);
				break;
			case BKT_LINEXP: {
				uint64_t e = 1;
				__int128 p;

				if (info->linexp.stepbase < 2 ||
				    info->linexp.linstepdiv == 0)
					return EINVAL;
				while ((p = hist_ipow(info->linexp.stepbase, e,
				    hg->hi)) <= lb && p <= hg->hi)
					e++;
				step = p / info->linexp.linstepdiv;
				if (step < 1)
					step = 1;
				break;
			}
			default:
				return EINVAL;
			}
			if (step <= 0)
				return EINVAL;
			ub = lb + step;
			if (ub > hg->hi + 1)
				return EINVAL;	/* would wrap the VOI type */
			error = hist_gen_push(hg, lb, ub);
			if (error != 0)
				return error;
			if (ub > iub)
				break;
		}
	}
	if ((info->flags & VSD_HIST_UBOUND_INF) &&
	    !(g->kind == 'C' && info->scheme == BKT_USR)) {
		/*
		 * FreeBSD appends one more bucket starting where the last
		 * ended; a DRHIST's then reaches the type's maximum.
		 */
		if (ub > hg->hi)
			return EINVAL;
		error = hist_gen_push(hg, ub, hg->hi);
		if (error != 0)
			return error;
	}
	return 0;
}

int
stats_vss_hist_hlpr(enum vsd_dtype voi_dtype, struct voistatspec *vss,
    struct vss_hist_hlpr_info *info)
{
	const struct hist_geom *g;
	struct hist_gen hg;
	struct voistatdata_numeric lim;
	struct voistatdata *iv;
	size_t sz;
	uint32_t i;
	bool sorted = true;
	int error;

	if (vss == NULL || info == NULL || !dtype_is_scalar(voi_dtype))
		return EINVAL;
	g = hist_geom(info->hist_dtype);
	if (g == NULL || (info->flags & ~HIST_USER_FLAGS) != 0)
		return EINVAL;
	if (g->kind == 'V' && (info->flags & HIST_USER_FLAGS))
		return EINVAL;
	if (info->scheme != BKT_USR && g->kind != 'C')
		return EINVAL;
	info->voi_dtype = voi_dtype;

	memset(&hg, 0, sizeof(hg));
	hg.voi_dtype = voi_dtype;
	lim = numeric_limit(voi_dtype, false);
	hg.lo = hist_unit(voi_dtype, &lim);
	lim = numeric_limit(voi_dtype, true);
	hg.hi = hist_unit(voi_dtype, &lim);
	if (dtype_info[voi_dtype].is_q) {
		hg.fbits = (voi_dtype == VSD_DTYPE_Q_S32 ||
		    voi_dtype == VSD_DTYPE_Q_U32) ? STATS_Q32_FBITS :
		    STATS_Q64_FBITS;
		/* Bounds are whole units: the range shrinks by the scale. */
		hg.lo >>= hg.fbits;
		hg.hi >>= hg.fbits;
	}
	hg.cap = (uint32_t)((SB_V1_MAXSZ - SB_V1_HDRSZ - 16 - g->hdrsz) /
	    g->bktsz);
	if (hg.cap > UINT16_MAX)
		hg.cap = UINT16_MAX;
	error = hist_generate(&hg, info);	/* count */
	if (error != 0)
		return error;
	if (hg.n == 0)
		return EINVAL;
	hg.b = calloc(hg.n, sizeof(*hg.b));
	if (hg.b == NULL)
		return ENOMEM;
	hg.n = 0;
	error = hist_generate(&hg, info);
	if (error != 0) {
		free(hg.b);
		return error;
	}

	sz = hist_size(info->hist_dtype, hg.n);
	iv = calloc(1, sz);
	if (iv == NULL) {
		free(hg.b);
		return ENOMEM;
	}
	hist_meta(iv, g)->nbkts = (uint16_t)hg.n;
	hist_meta(iv, g)->voi_dtype = (uint8_t)voi_dtype;
	for (i = 0; i < hg.n; i++) {
		struct voistatdata_numeric lb, ub;

		/* Scale to fixed point, then truncate to the VOI's width. */
		lb = stats_ctor_vsd_numeric(
		    (uint64_t)(hg.b[i][0] * ((__int128)1 << hg.fbits)));
		ub = stats_ctor_vsd_numeric(
		    (uint64_t)(hg.b[i][1] * ((__int128)1 << hg.fbits)));
		if (hg.b[i][0] <= hg.lo)
			lb = numeric_limit(voi_dtype, false);
		if (hg.b[i][1] >= hg.hi)
			ub = numeric_limit(voi_dtype, true);
		if (dtype_info[voi_dtype].size == 4) {
			lb.int32.pad = 0;
			ub.int32.pad = 0;
		}
		*hist_bkt_lb(iv, g, i) = lb;
		if (g->nbounds == 2)
			*hist_bkt_ub(iv, g, i) = ub;
		if (i > 0 && (hg.b[i][0] < hg.b[i - 1][0] ||
		    (g->kind == 'D' && hg.b[i][0] < hg.b[i - 1][1])))
			sorted = false;
	}
	free(hg.b);
	hist_meta(iv, g)->hflags = (uint8_t)(info->flags |
	    (sorted && g->kind != 'V' ? HIST_SORTED : 0));
	vss->iv = iv;
	vss->vsdsz = sz;
	vss->vs_dtype = info->hist_dtype;
	return 0;
}

/* The bucket a value falls in, or -1 for out of band. */
static int32_t
hist_find(const struct voistatdata *vsd, const struct hist_geom *g,
    enum vsd_dtype voi_dtype, const struct voistatdata_numeric *x)
{
	uint16_t n = hist_nbkts(vsd, g);
	uint8_t hflags = hist_meta(vsd, g)->hflags;
	struct voistatdata *v = (struct voistatdata *)vsd;
	int32_t i;

	if (n == 0)
		return -1;
	if (g->kind == 'C' && (hflags & HIST_SORTED)) {
		/* The highest bucket whose lower bound is <= x. A 64-bit
		 * VOI's bounds (statsd's timers and histograms) are compared
		 * in place, not through numeric_cmp()'s call and switch at
		 * each of the search's steps. */
		int32_t lo = 0, hi = n - 1, found = -1;
		bool s64 = voi_dtype == VSD_DTYPE_INT_S64 ||
		    voi_dtype == VSD_DTYPE_Q_S64;
		bool u64 = voi_dtype == VSD_DTYPE_INT_U64 ||
		    voi_dtype == VSD_DTYPE_Q_U64;

		while (lo <= hi) {
			int32_t mid = lo + (hi - lo) / 2;
			const struct voistatdata_numeric *lb = hist_bkt_lb(v, g,
			    (uint32_t)mid);

			if (s64 ? x->int64.s64 >= lb->int64.s64 :
			    u64 ? x->int64.u64 >= lb->int64.u64 :
			    numeric_cmp(voi_dtype, x, lb) >= 0) {
				found = mid;
				lo = mid + 1;
			} else {
				hi = mid - 1;
			}
		}
		return found;
	}
	for (i = n - 1; i >= 0; i--) {
		const struct voistatdata_numeric *lb = hist_bkt_lb(v, g,
		    (uint32_t)i);

		switch (g->kind) {
		case 'C':
			if (numeric_cmp(voi_dtype, x, lb) >= 0)
				return i;
			break;
		case 'D': {
			const struct voistatdata_numeric *ub = hist_bkt_ub(v, g,
			    (uint32_t)i);
			int c = numeric_cmp(voi_dtype, x, ub);

			if (numeric_cmp(voi_dtype, x, lb) >= 0 && (c < 0 ||
			    (c == 0 && i == n - 1 &&
			    (hflags & VSD_HIST_UBOUND_INF))))
				return i;
			break;
		}
		default:
			if (numeric_cmp(voi_dtype, x, lb) == 0)
				return i;
			break;
		}
	}
	return -1;
}

int
hist_update(struct voistatdata *vsd, uint16_t dsz, enum vsd_dtype vs_dtype,
    enum vsd_dtype voi_dtype, const struct voistatdata_numeric *x, uint64_t y,
    bool *changed)
{
	const struct hist_geom *g = hist_geom(vs_dtype);
	int32_t i;

	(void)dsz;
	i = hist_find(vsd, g, voi_dtype, x);
	if (i < 0)
		hist_oob_add(vsd, g, y);
	else
		hist_bkt_add(vsd, g, (uint32_t)i, y);
	*changed = true;
	return 0;
}

void
hist_reset(struct voistatdata *vsd, uint16_t dsz, enum vsd_dtype vs_dtype,
    enum vsd_dtype voi_dtype)
{
	const struct hist_geom *g = hist_geom(vs_dtype);
	struct hist_hdr *h = (struct hist_hdr *)vsd;
	uint16_t i, n = hist_nbkts(vsd, g);

	(void)dsz;
	(void)voi_dtype;
	if (g->cnt64)
		h->oob64 = 0;
	else
		h->oob32 = 0;
	for (i = 0; i < n; i++)
		memset(hist_bkt_cntp(vsd, g, i), 0, g->cnt64 ? 8 : 4);
}

int
hist_merge(struct voistatdata *dst, const struct voistatdata *src,
    uint16_t dsz, enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype)
{
	const struct hist_geom *g = hist_geom(vs_dtype);
	uint16_t i, n = hist_nbkts(dst, g);
	uint64_t max;

	(void)dsz;
	(void)voi_dtype;
	if (hist_nbkts(src, g) != n)
		return EINVAL;
	for (i = 0; i < n; i++) {
		if (memcmp(hist_bkt(dst, g, i), hist_bkt(src, g, i),
		    g->nbounds * 8u) != 0)
			return EINVAL;
	}
	/* Updates wrap; a merge that would is refused (stats_blob_merge). */
	max = g->cnt64 ? UINT64_MAX : UINT32_MAX;
	if (hist_oob(src, g) > max - hist_oob(dst, g))
		return EOVERFLOW;
	for (i = 0; i < n; i++) {
		if (hist_bkt_cnt(src, g, i) > max - hist_bkt_cnt(dst, g, i))
			return EOVERFLOW;
	}
	hist_oob_add(dst, g, hist_oob(src, g));
	for (i = 0; i < n; i++)
		hist_bkt_add(dst, g, i, hist_bkt_cnt(src, g, i));
	return 0;
}

const char *
hist_check(const struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype)
{
	const struct hist_geom *g = hist_geom(vs_dtype);

	if (g == NULL)
		return "histogram with a non-histogram data type";
	if (dsz < g->hdrsz)
		return "histogram smaller than its header";
	if (hist_size(vs_dtype, hist_nbkts(vsd, g)) != dsz)
		return "histogram bucket count disagrees with its size";
	if (hist_meta(vsd, g)->voi_dtype != voi_dtype)
		return "histogram of another type than its VOI";
	if (hist_meta(vsd, g)->hflags & ~(HIST_USER_FLAGS | HIST_SORTED))
		return "histogram with unknown flags";
	return NULL;
}

/*
 * Bucket i's bounds as doubles for interpolation; an infinite bound is
 * reported as such so callers can avoid interpolating towards it.
 */
static void
hist_bounds(const struct voistatdata *vsd, const struct hist_geom *g,
    enum vsd_dtype voi_dtype, uint32_t i, double *lb, double *ub,
    bool *lb_inf, bool *ub_inf)
{
	struct voistatdata *v = (struct voistatdata *)vsd;
	struct voistatdata_numeric min = numeric_limit(voi_dtype, false);
	struct voistatdata_numeric max = numeric_limit(voi_dtype, true);
	const struct voistatdata_numeric *l = hist_bkt_lb(v, g, i), *u;
	uint16_t n = hist_nbkts(vsd, g);

	if (g->kind == 'C')
		u = i + 1 < n ? hist_bkt_lb(v, g, i + 1) : &max;
	else
		u = hist_bkt_ub(v, g, i);
	*lb = numeric_to_double(voi_dtype, l);
	*ub = numeric_to_double(voi_dtype, u);
	*lb_inf = (hist_meta(vsd, g)->hflags & VSD_HIST_LBOUND_INF) && i == 0 &&
	    numeric_cmp(voi_dtype, l, &min) == 0;
	*ub_inf = numeric_cmp(voi_dtype, u, &max) == 0 && i + 1 == n;
	if (g->kind == 'V')
		*ub = *lb;
}

int
hist_quantile(const struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype, double q, double *ret)
{
	const struct hist_geom *g = hist_geom(vs_dtype);
	uint16_t i, n = hist_nbkts(vsd, g);
	double total = 0, cum = 0, rank, lb, ub;
	bool lb_inf, ub_inf;

	(void)dsz;
	for (i = 0; i < n; i++)
		total += (double)hist_bkt_cnt(vsd, g, i);
	if (total == 0)
		return ENODATA;
	/* Out-of-band values have no position and are left out. */
	rank = q * total;
	for (i = 0; i < n; i++) {
		double c = (double)hist_bkt_cnt(vsd, g, i);

		if (c == 0 || cum + c < rank) {
			cum += c;
			continue;
		}
		hist_bounds(vsd, g, voi_dtype, i, &lb, &ub, &lb_inf, &ub_inf);
		if (lb_inf)
			*ret = ub;
		else if (ub_inf || g->kind == 'V')
			*ret = lb;
		else
			*ret = lb + (ub - lb) * ((rank - cum) / c);
		return 0;
	}
	/* Rounding can leave rank a hair above the total: the top value. */
	for (i = n; i-- > 0;) {
		if (hist_bkt_cnt(vsd, g, i) == 0)
			continue;
		hist_bounds(vsd, g, voi_dtype, i, &lb, &ub, &lb_inf, &ub_inf);
		*ret = ub_inf || g->kind == 'V' ? lb : ub;
		return 0;
	}
	return ENODATA;
}

int
hist_cdf(const struct voistatdata *vsd, uint16_t dsz, enum vsd_dtype vs_dtype,
    enum vsd_dtype voi_dtype, double x, double *ret)
{
	const struct hist_geom *g = hist_geom(vs_dtype);
	uint16_t i, n = hist_nbkts(vsd, g);
	double total = 0, below = 0, lb, ub;
	bool lb_inf, ub_inf;

	(void)dsz;
	for (i = 0; i < n; i++) {
		double c = (double)hist_bkt_cnt(vsd, g, i);

		total += c;
		if (c == 0)
			continue;
		hist_bounds(vsd, g, voi_dtype, i, &lb, &ub, &lb_inf, &ub_inf);
		if (g->kind == 'V') {
			if (lb <= x)
				below += c;
		} else if (ub_inf ? x >= lb : x >= ub) {
			below += c;
		} else if (x >= lb && !lb_inf) {
			below += c * (x - lb) / (ub - lb);
		} else if (lb_inf && x >= ub) {
			below += c;
		}
	}
	if (total == 0)
		return ENODATA;
	*ret = below / total;
	return 0;
}

int
hist_render(struct sbuf *buf, const struct voistatdata *vsd,
    uint16_t dsz, enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype,
    enum sb_str_fmt fmt, bool objdump)
{
	const struct hist_geom *g = hist_geom(vs_dtype);
	struct voistatdata *v = (struct voistatdata *)vsd;
	struct voistatdata_numeric max;
	uint16_t i, n;

	(void)dsz;
	if (g == NULL)
		return EINVAL;
	voi_dtype = hist_meta(vsd, g)->voi_dtype;
	n = hist_nbkts(vsd, g);
	if (!dtype_is_scalar(voi_dtype))
		return EINVAL;
	max = numeric_limit(voi_dtype, true);
	if (fmt == SB_STRFMT_JSON) {
		sbuf_printf(buf, "\"nbkts\":%hu,\"oob\":", n);
		numeric_json_u64(buf, hist_oob(vsd, g));
		sbuf_cat(buf, ",\"bkts\":[");
	} else
		sbuf_printf(buf, "nbkts=%hu, oob=%ju", n,
		    (uintmax_t)hist_oob(vsd, g));
	for (i = 0; i < n; i++) {
		const struct voistatdata_numeric *lb = hist_bkt_lb(v, g, i), *ub;

		if (g->kind == 'C')
			ub = i + 1 < n ? hist_bkt_lb(v, g, i + 1) : &max;
		else
			ub = hist_bkt_ub(v, g, i);
		if (fmt == SB_STRFMT_JSON) {
			sbuf_cat(buf, i > 0 ? ",{" : "{");
			if (objdump)
				sbuf_printf(buf, "\"bkt\":%hu,", i);
			sbuf_cat(buf, "\"lb\":");
			numeric_format_json(buf, voi_dtype, lb);
			sbuf_cat(buf, ",\"ub\":");
			numeric_format_json(buf, voi_dtype, ub);
			sbuf_cat(buf, ",\"cnt\":");
			numeric_json_u64(buf, hist_bkt_cnt(vsd, g, i));
			sbuf_putc(buf, '}');
		} else {
			sbuf_cat(buf, "\n\t\t\t\t");
			if (objdump)
				sbuf_printf(buf, "bkt[%hu].", i);
			sbuf_cat(buf, "{lb=");
			numeric_format(buf, voi_dtype, lb);
			sbuf_cat(buf, ",ub=");
			numeric_format(buf, voi_dtype, ub);
			sbuf_printf(buf, ",cnt=%ju}",
			    (uintmax_t)hist_bkt_cnt(vsd, g, i));
		}
	}
	if (fmt == SB_STRFMT_JSON)
		sbuf_cat(buf, "]");
	return sbuf_error(buf);
}

/* ----------------------------------------------- as a template statistic */

/*
 * HIST: range CR (continuous, the default), DR (ranges: USR buckets as lb,
 * ub pairs) or DV (values: USR buckets); counters 32 or 64; a CR
 * histogram's scheme LIN (step), EXP (stepbase, stepexp), LINEXP
 * (stepbase, nlin) or USR (buckets) over lb..ub; lbinf and ubinf add the
 * unbounded buckets either side.
 */
int
hist_build(const struct kind_args *a, enum vsd_dtype voi_dtype,
    struct voistatspec *vss, uint32_t *n, uint32_t max, struct input_error *err)
{
	const char *scheme = kind_str(a, KP_SCHEME, "LIN");
	const char *range = kind_str(a, KP_RANGE, "CR");
	int64_t counters = kind_int(a, KP_COUNTERS, 64);
	struct voistatdata_numeric (*bkts)[2] = NULL, lb, ub;
	enum vsd_dtype hd;
	uint32_t fl = 0;
	bool dr = strcmp(range, "DR") == 0;
	int r;

	if (counters != 32 && counters != 64)
		return kind_fail(err, "counters", "32 or 64");
	if (strcmp(range, "CR") == 0)
		hd = counters == 32 ? VSD_DTYPE_CRHIST32 : VSD_DTYPE_CRHIST64;
	else if (dr)
		hd = counters == 32 ? VSD_DTYPE_DRHIST32 : VSD_DTYPE_DRHIST64;
	else if (strcmp(range, "DV") == 0)
		hd = counters == 32 ? VSD_DTYPE_DVHIST32 : VSD_DTYPE_DVHIST64;
	else
		return kind_fail(err, "range", "CR, DR or DV");
	if (kind_int(a, KP_LBINF, 0))
		fl |= VSD_HIST_LBOUND_INF;
	if (kind_int(a, KP_UBINF, 0))
		fl |= VSD_HIST_UBOUND_INF;
	lb = stats_ctor_vsd_numeric((uint64_t)kind_int(a, KP_LB, 0));
	ub = stats_ctor_vsd_numeric((uint64_t)kind_int(a, KP_UB, 0));
	if (strcmp(scheme, "USR") == 0) {
		size_t nv = kind_has(a, KP_BUCKETS) ? a->nints : 0, i, nb;

		if (nv == 0)
			return kind_fail(err, "buckets", "USR needs buckets");
		if (dr && nv % 2 != 0)
			return kind_fail(err, "buckets",
			    "DR buckets are lb, ub pairs");
		nb = dr ? nv / 2 : nv;
		if (nb > KIND_BUCKETS_MAX)
			return kind_fail(err, "buckets", "too many buckets");
		bkts = calloc(nb, sizeof(*bkts));
		if (bkts == NULL)
			return -ENOMEM;
		for (i = 0; i < nv; i++) {
			uint64_t v = (uint64_t)a->ints[i];

			if (dr)
				bkts[i / 2][i % 2] = stats_ctor_vsd_numeric(v);
			else
				bkts[i][0] = bkts[i][1] =
				    stats_ctor_vsd_numeric(v);
		}
		struct vss_hist_hlpr_info info = {
			.scheme = BKT_USR, .voi_dtype = voi_dtype,
			.hist_dtype = hd, .flags = fl, .lb = lb, .ub = ub,
			.usr.nbkts = (uint16_t)nb,
			.usr.bkts = (const void *)bkts,
		};
		r = kind_add(vss, n, max, VS_STYPE_HIST,
		    (vss_hlpr_fn)stats_vss_hist_hlpr, &info, voi_dtype, hd,
		    err);
		free(bkts);
		return r;
	}
	if (strcmp(range, "CR") != 0)
		return kind_fail(err, "scheme",
		    "DR and DV histograms take USR buckets");
	if (strcmp(scheme, "LIN") == 0) {
		if (!kind_has(a, KP_STEP))
			return kind_fail(err, "step", "LIN needs step");
		struct vss_hist_hlpr_info info = {
			.scheme = BKT_LIN, .voi_dtype = voi_dtype,
			.hist_dtype = hd, .flags = fl, .lb = lb, .ub = ub,
			.lin.stepinc = stats_ctor_vsd_numeric(
			    (uint64_t)kind_int(a, KP_STEP, 0)),
		};
		return kind_add(vss, n, max, VS_STYPE_HIST,
		    (vss_hlpr_fn)stats_vss_hist_hlpr, &info, voi_dtype, hd,
		    err);
	}
	if (strcmp(scheme, "EXP") == 0) {
		struct vss_hist_hlpr_info info = {
			.scheme = BKT_EXP, .voi_dtype = voi_dtype,
			.hist_dtype = hd, .flags = fl, .lb = lb, .ub = ub,
			.exp.stepbase = (uint32_t)kind_int(a, KP_STEPBASE, 2),
			.exp.stepexp = (uint32_t)kind_int(a, KP_STEPEXP, 1),
		};
		return kind_add(vss, n, max, VS_STYPE_HIST,
		    (vss_hlpr_fn)stats_vss_hist_hlpr, &info, voi_dtype, hd,
		    err);
	}
	if (strcmp(scheme, "LINEXP") == 0) {
		struct vss_hist_hlpr_info info = {
			.scheme = BKT_LINEXP, .voi_dtype = voi_dtype,
			.hist_dtype = hd, .flags = fl, .lb = lb, .ub = ub,
			.linexp.stepbase = (uint32_t)kind_int(a, KP_STEPBASE,
			    10),
			.linexp.linstepdiv = (uint32_t)kind_int(a, KP_NLIN,
			    10),
		};
		return kind_add(vss, n, max, VS_STYPE_HIST,
		    (vss_hlpr_fn)stats_vss_hist_hlpr, &info, voi_dtype, hd,
		    err);
	}
	return kind_fail(err, "scheme", "LIN, EXP, LINEXP or USR");
}

/* A bound as a StatSpec's buckets take it: in whole units of the VOI's
 * type (fixed point is scaled back), as a 64-bit pattern. */
static int64_t
hist_bound(enum vsd_dtype dtype, const struct voistatdata_numeric *n)
{
	switch (dtype) {
	case VSD_DTYPE_INT_S32:
		return n->int32.s32;
	case VSD_DTYPE_INT_U32:
		return (int64_t)n->int32.u32;
	case VSD_DTYPE_Q_S32:
		return n->q32.sq32 >> STATS_Q32_FBITS;
	case VSD_DTYPE_Q_U32:
		return (int64_t)(n->q32.uq32 >> STATS_Q32_FBITS);
	case VSD_DTYPE_Q_S64:
		return n->q64.sq64 >> STATS_Q64_FBITS;
	case VSD_DTYPE_Q_U64:
		return (int64_t)(n->q64.uq64 >> STATS_Q64_FBITS);
	default:
		return n->int64.s64;
	}
}

/*
 * A histogram as USR buckets that lay the same data out again: the bucket
 * a LBOUND_INF flag added is left for the flag to add, and so is the last
 * bucket of a DRHIST with UBOUND_INF.
 */
int
hist_describe(const struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype, struct kind_args *ret)
{
	const struct hist_geom *g = hist_geom(vs_dtype);
	static const char *const ranges[] = { "CR", "DR", "DV" };
	uint32_t nb, first = 0, last, i;
	int64_t *b;
	size_t k = 0;
	uint8_t hflags;

	memset(ret, 0, sizeof(*ret));
	if (g == NULL || dsz < g->hdrsz)
		return -EINVAL;
	nb = hist_nbkts(vsd, g);
	if (nb == 0 || g->hdrsz + (size_t)nb * g->bktsz > dsz)
		return -EINVAL;
	hflags = hist_meta(vsd, g)->hflags & (VSD_HIST_LBOUND_INF |
	    VSD_HIST_UBOUND_INF);
	last = nb;
	if ((hflags & VSD_HIST_LBOUND_INF) && nb > 1)
		first = 1;
	if (g->kind == 'D' && (hflags & VSD_HIST_UBOUND_INF) &&
	    last - first > 1)
		last--;
	b = calloc((size_t)(last - first) * g->nbounds + 1, sizeof(*b));
	if (b == NULL)
		return -ENOMEM;
	for (i = first; i < last; i++) {
		b[k++] = hist_bound(voi_dtype, hist_bkt_lb(
		    (struct voistatdata *)vsd, g, i));
		if (g->kind == 'D')
			b[k++] = hist_bound(voi_dtype, hist_bkt_ub(
			    (struct voistatdata *)vsd, g, i));
	}
	kind_set_str(ret, KP_SCHEME, "USR");
	kind_set_str(ret, KP_RANGE, ranges[g->kind == 'C' ? 0 :
	    g->kind == 'D' ? 1 : 2]);
	kind_set_int(ret, KP_COUNTERS, g->cnt64 ? 64 : 32);
	kind_set_ints(ret, b, k);
	if (g->kind != 'V') {
		kind_set_int(ret, KP_LBINF, (hflags & VSD_HIST_LBOUND_INF) != 0);
		kind_set_int(ret, KP_UBINF, (hflags & VSD_HIST_UBOUND_INF) != 0);
	}
	return 0;
}
