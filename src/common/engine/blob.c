/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * blob.c: blob life cycle (clone, snapshot, reset, destroy; a new blob
 * comes from its template, in tpl.c), the visitor, statistic lookup,
 * merging, and validation of blobs that come from elsewhere.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blob.h"
#include "clock.h"
#include "kind.h"

int64_t
blob_sbinuptime(void)
{
	uint64_t ns = clock_now_ns();

	/* FreeBSD's sbintime_t: seconds in the high 32 bits. */
	return (int64_t)((ns / 1000000000u) << 32) +
	    (int64_t)(((ns % 1000000000u) << 32) / 1000000000u);
}

uint32_t
blob_hash_buf(const void *buf, size_t len, uint32_t hash)
{
	const unsigned char *p = buf;

	/* FreeBSD's hash32 step, h * 33 + c, seeded with 0 by the caller. */
	while (len-- > 0)
		hash = (hash << 5) + hash + *p++;
	return hash;
}

static inline struct statsblobv1 *
sbv1(struct statsblob *sb)
{
	return (struct statsblobv1 *)sb;
}

int
stats_blob_clone(struct statsblob **dst, size_t dstmaxsz,
    struct statsblob *src, uint32_t flags)
{
	uint16_t maxsz;

	if (src == NULL || dst == NULL || src->cursz < sizeof(struct statsblob))
		return EINVAL;
	if ((flags & SB_CLONE_ALLOCDST) &&
	    (flags & (SB_CLONE_USRDST | SB_CLONE_USRDSTNOFAULT)))
		return EINVAL;
	if (flags & SB_CLONE_ALLOCDST) {
		*dst = malloc(src->cursz);
		if (*dst == NULL)
			return ENOMEM;
		(*dst)->maxsz = dstmaxsz = src->cursz;
	} else if (*dst == NULL || dstmaxsz < sizeof(struct statsblob)) {
		return EINVAL;
	}
	if (dstmaxsz < src->cursz) {
		/* Copy the header (but maxsz) so the caller sees cursz. */
		maxsz = (*dst)->maxsz;
		memcpy(*dst, src, sizeof(struct statsblob));
		(*dst)->maxsz = maxsz;
		return EOVERFLOW;
	}
	/* Everything but maxsz, which describes the destination's memory. */
	maxsz = (*dst)->maxsz;
	memcpy(*dst, src, src->cursz);
	(*dst)->maxsz = maxsz;
	return 0;
}

void
blob_reset_stats(struct statsblobv1 *sb)
{
	uint16_t v, n = blob_nvois(sb);
	int s;

	for (v = 0; v < n; v++) {
		const struct voi *vp = &sb->vois[v];
		struct voistat *vs;

		if (vp->id < 0)
			continue;
		BLOB_FOREACH_STAT(sb, vp, s, vs) {
			stype_ops[s].reset(blob_vsd(sb, vs), vs->dsz,
			    vs->dtype, vp->dtype);
			vs->errs = 0;
			vs->flags &= ~VS_VSDVALID;
		}
	}
	sb->lastrst = blob_sbinuptime();
}

int
stats_blob_reset(struct statsblob *sb)
{
	if (sb == NULL || sb->abi != STATS_ABI_V1)
		return EINVAL;
	blob_reset_stats(sbv1(sb));
	return 0;
}

int
stats_blob_snapshot(struct statsblob **dst, size_t dstmaxsz,
    struct statsblob *src, uint32_t flags)
{
	int error;

	if (src == NULL || src->abi != STATS_ABI_V1)
		return EINVAL;
	error = stats_blob_clone(dst, dstmaxsz, src, flags);
	if (error == 0 && (flags & SB_CLONE_RSTSRC))
		blob_reset_stats(sbv1(src));
	return error;
}

void
stats_blob_destroy(struct statsblob *sb)
{
	free(sb);
}

/* A VOI by id, or NULL if out of range or vacant. */
static struct voi *
blob_voi(struct statsblobv1 *sb, int32_t voi_id)
{
	if (voi_id < 0 || voi_id >= blob_nvois(sb) || sb->vois[voi_id].id < 0)
		return NULL;
	return &sb->vois[voi_id];
}

int
stats_voistat_fetch_dptr(struct statsblob *sb, int32_t voi_id,
    enum voi_stype stype, enum vsd_dtype *retdtype,
    struct voistatdata **retvsd, size_t *retvsdsz)
{
	struct voistat *vs;
	struct voi *v;

	if (sb == NULL || sb->abi != STATS_ABI_V1 || retvsd == NULL)
		return EINVAL;
	v = blob_voi(sbv1(sb), voi_id);
	if (v == NULL || (vs = blob_stat(sbv1(sb), v, (int)stype)) == NULL)
		return EINVAL;
	*retvsd = blob_vsd(sbv1(sb), vs);
	if (retdtype != NULL)
		*retdtype = vs->dtype;
	if (retvsdsz != NULL)
		*retvsdsz = vs->dsz;
	return 0;
}

int
stats_voistat_fetch_typed(struct statsblob *sb, int32_t voi_id,
    enum voi_stype stype, enum vsd_dtype dtype, void *ret, size_t retsz)
{
	struct voistat *vs;
	struct voi *v;

	if (sb == NULL || sb->abi != STATS_ABI_V1 || ret == NULL ||
	    !dtype_is_scalar(dtype) || retsz != dtype_info[dtype].size)
		return EINVAL;
	v = blob_voi(sbv1(sb), voi_id);
	if (v == NULL)
		return EINVAL;
	vs = blob_stat(sbv1(sb), v, (int)stype);
	if (vs == NULL || vs->dtype != dtype)
		return EFTYPE;
	memcpy(ret, blob_vsd(sbv1(sb), vs), retsz);
	return 0;
}

static int
blob_fetch_dist(struct statsblob *sb, int32_t voi_id, enum voi_stype stype,
    double arg, double *ret, bool quantile)
{
	const struct stype_ops *ops;
	struct voistat *vs;
	struct voi *v;

	if (sb == NULL || sb->abi != STATS_ABI_V1 || ret == NULL ||
	    !stype_valid(stype) || arg != arg)
		return EINVAL;
	ops = &stype_ops[stype];
	if ((quantile ? (void *)ops->quantile : (void *)ops->cdf) == NULL)
		return EINVAL;
	if (quantile && (arg < 0.0 || arg > 1.0))
		return EINVAL;
	v = blob_voi(sbv1(sb), voi_id);
	if (v == NULL || (vs = blob_stat(sbv1(sb), v, (int)stype)) == NULL)
		return EINVAL;
	if (quantile)
		return ops->quantile(blob_vsd(sbv1(sb), vs), vs->dsz, vs->dtype,
		    v->dtype, arg, ret);
	return ops->cdf(blob_vsd(sbv1(sb), vs), vs->dsz, vs->dtype, v->dtype,
	    arg, ret);
}

int
stats_voistat_fetch_quantile(struct statsblob *sb, int32_t voi_id,
    enum voi_stype stype, double q, double *ret)
{
	return blob_fetch_dist(sb, voi_id, stype, q, ret, true);
}

int
stats_voistat_fetch_cdf(struct statsblob *sb, int32_t voi_id,
    enum voi_stype stype, double x, double *ret)
{
	return blob_fetch_dist(sb, voi_id, stype, x, ret, false);
}

int
blob_iter(struct statsblobv1 *sb, bool nulls, blob_iter_cb cb, void *ctx)
{
	uint16_t n = blob_nvois(sb), v, lastvoi = 0;
	bool first_cb = true, first_voi = true;
	int s, laststat, rv;

	/* The last VOI slot that will be reported. */
	for (v = n; v-- > 0;) {
		if (nulls || sb->vois[v].id >= 0) {
			lastvoi = v;
			break;
		}
	}
	for (v = 0; v < n; v++) {
		struct voi *vp = &sb->vois[v];
		uint32_t vflags = 0;

		if (vp->id < 0 && !nulls)
			continue;
		if (first_voi)
			vflags |= SB_IT_FIRST_VOI;
		if (v == lastvoi)
			vflags |= SB_IT_LAST_VOI;
		first_voi = false;
		if (vp->id < 0) {
			uint32_t f = vflags | SB_IT_NULLVOI |
			    SB_IT_FIRST_VOISTAT | SB_IT_LAST_VOISTAT;

			if (first_cb)
				f |= SB_IT_FIRST_CB;
			if (v == lastvoi)
				f |= SB_IT_LAST_CB;
			first_cb = false;
			rv = cb(sb, vp, NULL, f, ctx);
			if (rv != 0)
				return rv;
			continue;
		}
		laststat = -1;
		for (s = vp->voistatmaxid; s >= 0; s--) {
			if (nulls || blob_voistat(sb, vp, s)->stype >= 0) {
				laststat = s;
				break;
			}
		}
		bool first_stat = true;
		for (s = 0; s <= vp->voistatmaxid; s++) {
			struct voistat *vs = blob_voistat(sb, vp, s);
			uint32_t f = vflags;

			if (vs->stype < 0 && !nulls)
				continue;
			if (vs->stype < 0)
				f |= SB_IT_NULLVOISTAT;
			if (first_stat)
				f |= SB_IT_FIRST_VOISTAT;
			if (s == laststat)
				f |= SB_IT_LAST_VOISTAT;
			if (first_cb)
				f |= SB_IT_FIRST_CB;
			if (v == lastvoi && s == laststat)
				f |= SB_IT_LAST_CB;
			first_stat = false;
			first_cb = false;
			rv = cb(sb, vp, vs, f, ctx);
			if (rv != 0)
				return rv;
		}
	}
	return 0;
}

struct visit_ctx {
	stats_blob_visitcb_t	func;
	void			*usrctx;
};

static int
blob_visit_one(struct statsblobv1 *sb, struct voi *v, struct voistat *vs,
    uint32_t flags, void *ctx)
{
	struct visit_ctx *vc = ctx;
	struct sb_visit sbv;

	memset(&sbv, 0, sizeof(sbv));
	sbv.tplhash = sb->tplhash;
	sbv.flags = flags;
	sbv.voi_id = v->id;
	sbv.voi_dtype = v->dtype;
	sbv.vs_stype = vs->stype;
	sbv.vs_dtype = vs->dtype;
	sbv.vs_dsz = (int16_t)vs->dsz;
	sbv.vs_errs = vs->errs;
	sbv.vs_data = blob_vsd(sb, vs);
	return vc->func(&sbv, vc->usrctx);
}

int
stats_blob_visit(struct statsblob *sb, stats_blob_visitcb_t func, void *usrctx)
{
	struct visit_ctx vc = { func, usrctx };

	if (sb == NULL || sb->abi != STATS_ABI_V1 || func == NULL)
		return EINVAL;
	(void)blob_iter(sbv1(sb), false, blob_visit_one, &vc);
	return 0;
}

/*
 * Claim [off, off + sz) in a bitmap of 4-byte units (data offsets are
 * 4-aligned); true if part of it was claimed already.
 */
static bool
blob_claim(uint64_t *used, uint16_t off, uint16_t sz)
{
	uint32_t u, end = ((uint32_t)off + sz + 3) / 4;

	for (u = off / 4u; u < end; u++) {
		if (used[u / 64] & (UINT64_C(1) << (u % 64)))
			return true;
		used[u / 64] |= UINT64_C(1) << (u % 64);
	}
	return false;
}

/* The structure; with data, every statistic's internals too. */
static const char *
blob_check_at(const struct statsblobv1 *sb, size_t len, bool data)
{
	/* Data that overlap would let one statistic rewrite another's sizes. */
	uint64_t used[(SB_V1_MAXSZ / 4 + 64) / 64];
	uint16_t n, v;
	int s;

	memset(used, 0, sizeof(used));

	if (sb == NULL || len < SB_V1_HDRSZ)
		return "blob shorter than its header";
	if (sb->abi != STATS_ABI_V1)
		return "unknown blob ABI";
	if (sb->endian != SB_HOST_ENDIAN)
		return "blob of foreign endianness";
	if (sb->cursz < SB_V1_HDRSZ || sb->cursz > len || sb->maxsz < sb->cursz)
		return "blob sizes out of range";
	if (sb->stats_off < SB_V1_HDRSZ || sb->stats_off > sb->statsdata_off ||
	    sb->statsdata_off > sb->cursz ||
	    (sb->stats_off - SB_V1_HDRSZ) % sizeof(struct voi) != 0)
		return "blob region offsets out of range";
	n = blob_nvois(sb);
	for (v = 0; v < n; v++) {
		const struct voi *vp = &sb->vois[v];

		if (vp->id < 0) {
			if (vp->id != -1)
				return "vacant VOI with a bad id";
			continue;
		}
		if (vp->id != v)
			return "VOI id disagrees with its slot";
		if (!dtype_is_scalar(vp->dtype))
			return "VOI with a bad data type";
		if (vp->voistatmaxid < 0 || vp->voistatmaxid >= VS_NUM_STYPES)
			return "VOI with a bad statistic count";
		if (vp->stats_off < sb->stats_off ||
		    (vp->stats_off - sb->stats_off) % sizeof(struct voistat) ||
		    vp->stats_off + (vp->voistatmaxid + 1) *
		    sizeof(struct voistat) > sb->statsdata_off)
			return "VOI statistics outside the statistics region";
		if ((vp->flags & ~VOI_REQSTATE) != 0)
			return "VOI with unknown flags";
		/* Every update of such a VOI writes through slot 0. */
		if ((vp->flags & VOI_REQSTATE) &&
		    blob_voistat(sb, vp, VS_STYPE_VOISTATE)->stype !=
		    VS_STYPE_VOISTATE)
			return "VOI state missing";
		for (s = 0; s <= vp->voistatmaxid; s++) {
			const struct voistat *vs = blob_voistat(sb, vp, s);
			const char *why;

			if (vs->stype < 0)
				continue;
			if (vs->stype != s)
				return "statistic in the wrong slot";
			if (vs->data_off < sb->statsdata_off ||
			    (size_t)vs->data_off + vs->dsz > sb->cursz ||
			    vs->data_off % 4 != 0)
				return "statistic data outside the data region";
			if (blob_claim(used, vs->data_off, vs->dsz))
				return "statistics whose data overlap";
			if (s == VS_STYPE_VOISTATE) {
				if (vs->dtype != VSD_DTYPE_VOISTATE ||
				    vs->dsz != 8 || vs->data_off % 8 != 0 ||
				    !(vp->flags & VOI_REQSTATE))
					return "bad VOI state";
				continue;
			}
			if (!dtype_valid(vs->dtype) ||
			    (dtype_info[vs->dtype].align > 4 && vs->data_off % 8))
				return "statistic with a bad data type";
			if (stype_ops[s].check == NULL)
				return "statistic of a type that cannot be checked";
			if (!data)
				continue;
			why = stype_ops[s].check(blob_vsd(sb, vs), vs->dsz,
			    vs->dtype, vp->dtype);
			if (why != NULL)
				return why;
		}
	}
	return NULL;
}

const char *
blob_check(const struct statsblobv1 *sb, size_t len)
{
	return blob_check_at(sb, len, true);
}

const char *
blob_layout_clean(struct statsblobv1 *sb, size_t len)
{
	const char *why = blob_check_at(sb, len, false);
	uint16_t v, n;

	if (why != NULL)
		return why;
	blob_reset_stats(sb);
	n = blob_nvois(sb);
	for (v = 0; v < n; v++) {
		struct voi *vp = &sb->vois[v];
		struct voistat *vs;

		if (vp->id < 0 || !(vp->flags & VOI_REQSTATE))
			continue;
		vs = blob_voistat(sb, vp, VS_STYPE_VOISTATE);
		memset(blob_vsd(sb, vs), 0, vs->dsz);
		vs->flags &= ~VS_VSDVALID;
		vs->errs = 0;
	}
	sb->created = sb->lastrst = 0;
	return blob_check(sb, len);
}

int
stats_blob_validate(const struct statsblob *sb, size_t len)
{
	return blob_check((const struct statsblobv1 *)sb, len) == NULL ? 0 :
	    EINVAL;
}

const char *
stats_blob_validate_why(const struct statsblob *sb, size_t len)
{
	return blob_check((const struct statsblobv1 *)sb, len);
}

int
stats_blob_merge(struct statsblob *dst, const struct statsblob *src,
    uint32_t flags)
{
	struct statsblobv1 *d = sbv1(dst), *tmp;
	const struct statsblobv1 *s = (const struct statsblobv1 *)src;
	uint16_t v, n;
	int st, error = 0;

	(void)flags;
	if (dst == NULL || src == NULL || dst->abi != STATS_ABI_V1 ||
	    src->abi != STATS_ABI_V1)
		return EINVAL;
	/* Same template: same hash, sizes and VOI table. */
	if (d->tplhash != s->tplhash || d->cursz != s->cursz ||
	    d->stats_off != s->stats_off ||
	    d->statsdata_off != s->statsdata_off ||
	    memcmp(d->vois, s->vois, (size_t)d->stats_off - SB_V1_HDRSZ) != 0)
		return EINVAL;
	/* Merge into a copy so a failure leaves dst untouched. */
	tmp = malloc(d->cursz);
	if (tmp == NULL)
		return ENOMEM;
	memcpy(tmp, d, d->cursz);
	n = blob_nvois(tmp);
	for (v = 0; v < n && error == 0; v++) {
		struct voi *vp = &tmp->vois[v];
		struct voistat *dvs;

		if (vp->id < 0)
			continue;
		BLOB_FOREACH_STAT(tmp, vp, st, dvs) {
			const struct voistat *svs = blob_voistat(s, vp, st);

			if (svs->stype != dvs->stype ||
			    svs->dtype != dvs->dtype || svs->dsz != dvs->dsz ||
			    svs->data_off != dvs->data_off) {
				error = EINVAL;
				break;
			}
			if (!(svs->flags & VS_VSDVALID))
				continue;
			error = stype_ops[st].merge(blob_vsd(tmp, dvs),
			    blob_vsd(s, svs), dvs->dsz, dvs->dtype, vp->dtype);
			if (error != 0)
				break;
			dvs->flags |= VS_VSDVALID;
		}
	}
	if (error == 0)
		memcpy(d, tmp, d->cursz);
	free(tmp);
	return error;
}
