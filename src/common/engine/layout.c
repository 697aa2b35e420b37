/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * layout.c: the one way a blob is laid out, in the V1 format of blob.h:
 * the header, the VOI table, each VOI's voistat run, then each VOI's data
 * block (its statistics each on its natural alignment, a block a multiple
 * of 8 bytes). Templates grow here VOI by VOI (tpl.c) and kstats whose
 * statistics change at run time are re-laid here (defn.c).
 *
 * Where things go follows FreeBSD's stats(3): a VOI that is new goes in
 * front of every run and data block already there, and a VOI's statistics
 * are placed in the order they were given (the VOI state first). A VOI
 * carried across keeps its place and its statistics' order, so growing a
 * blob never moves the bytes of what was there relative to one another,
 * and a template grown the same way always has the same bytes: its hash
 * (tpl.c) is the hash of those bytes, kept in checkpoints, so this order
 * is part of statsd's persistent format. Readers go by offsets only.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kind.h"
#include "layout.h"

static size_t
align_up(size_t v, size_t a)
{
	return (v + a - 1) & ~(a - 1);
}

struct statsblob *
layout_empty(void)
{
	struct statsblobv1 *sb = calloc(1, SB_V1_HDRSZ);

	if (sb == NULL)
		return NULL;
	sb->abi = STATS_ABI_V1;
	sb->endian = SB_HOST_ENDIAN;
	sb->maxsz = sb->cursz = SB_V1_HDRSZ;
	sb->stats_off = sb->statsdata_off = SB_V1_HDRSZ;
	sb->created = sb->lastrst = blob_sbinuptime();
	return (struct statsblob *)sb;
}

int
layout_check_vss(enum vsd_dtype voi_dtype, uint32_t nvss,
    const struct voistatspec *vss)
{
	uint32_t seen = 0, i;

	for (i = 0; i < nvss; i++) {
		const struct voistatspec *s = &vss[i];

		if (!stype_valid(s->stype) || !dtype_valid(s->vs_dtype) ||
		    s->iv == NULL || s->vsdsz == 0 || s->vsdsz > SB_V1_MAXSZ)
			return EINVAL;
		if (seen & (1u << s->stype))
			return EINVAL;	/* one statistic of each type */
		seen |= 1u << s->stype;
		/* Scalar statistics hold the VOI's own type. */
		if (dtype_is_scalar(s->vs_dtype) && (s->vs_dtype != voi_dtype ||
		    s->vsdsz != dtype_info[voi_dtype].size))
			return EINVAL;
		if (stype_ops[s->stype].check != NULL &&
		    stype_ops[s->stype].check(s->iv, (uint16_t)s->vsdsz,
		    s->vs_dtype, voi_dtype) != NULL)
			return EINVAL;
	}
	return 0;
}

/* One statistic of the blob being built: where its data comes from. */
struct lay_stat {
	int8_t		 stype;		/* -1: vacant */
	uint8_t		 dtype;
	uint8_t		 errs;
	uint8_t		 flags;
	uint16_t	 dsz;
	const void	*data;
};

struct lay_voi {
	int16_t		id;		/* -1: vacant */
	uint8_t		dtype;
	uint16_t	flags;
	int8_t		maxstype;
	uint8_t		nplace;		/* statistics, in data block order */
	int8_t		place[VS_NUM_STYPES];
	struct lay_stat	st[VS_NUM_STYPES];
};

/* How a layout is asked for. */
#define	LAY_RELAY	0x1	/* a kstat's blob re-laid, not a template */

static void
lay_vacant(struct lay_voi *lv)
{
	int s;

	memset(lv, 0, sizeof(*lv));
	lv->id = -1;
	lv->maxstype = -1;
	for (s = 0; s < VS_NUM_STYPES; s++)
		lv->st[s].stype = -1;
}

static void
lay_from_vss(struct lay_voi *lv, int32_t voi_id, enum vsd_dtype voi_dtype,
    uint32_t flags, uint32_t nvss, const struct voistatspec *vss,
    unsigned how)
{
	static const struct voistatdata_voistate zero_state;
	uint32_t i;

	lay_vacant(lv);
	lv->id = (int16_t)voi_id;
	lv->dtype = (uint8_t)voi_dtype;
	lv->flags = (flags & SB_VOI_RELUPDATE) ? VOI_REQSTATE : 0;
	lv->maxstype = 0;
	if (flags & SB_VOI_RELUPDATE) {
		lv->st[VS_STYPE_VOISTATE] = (struct lay_stat){
		    VS_STYPE_VOISTATE, VSD_DTYPE_VOISTATE, 0, 0,
		    sizeof(zero_state), &zero_state };
		lv->place[lv->nplace++] = VS_STYPE_VOISTATE;
	}
	for (i = 0; i < nvss; i++) {
		const struct voistatspec *v = &vss[i];
		uint8_t vflags = (uint8_t)(v->flags & VS_ALWAYSVALID);

		/* In a live kstat a definition is meaningful from the start;
		 * a template's bytes stay as stats(3) makes them. */
		if ((how & LAY_RELAY) && v->stype == VS_STYPE_DEFN)
			vflags |= VS_VSDVALID;
		lv->st[v->stype] = (struct lay_stat){ (int8_t)v->stype,
		    (uint8_t)v->vs_dtype, 0, vflags, (uint16_t)v->vsdsz,
		    v->iv };
		lv->place[lv->nplace++] = (int8_t)v->stype;
		if (v->stype > lv->maxstype)
			lv->maxstype = (int8_t)v->stype;
	}
}

static void
lay_from_blob(struct lay_voi *lv, const struct statsblobv1 *b,
    const struct voi *v)
{
	const struct voistat *vs;
	int s, i;

	lay_vacant(lv);
	lv->id = v->id;
	lv->dtype = v->dtype;
	lv->flags = v->flags;
	lv->maxstype = v->voistatmaxid;
	BLOB_FOREACH_VOISTAT(b, v, s, vs) {
		lv->st[s] = (struct lay_stat){ vs->stype, vs->dtype, vs->errs,
		    vs->flags, vs->dsz, blob_vsd(b, vs) };
		/* Keep the statistics' order: insert by data offset. */
		for (i = lv->nplace; i > 0 && blob_voistat(b, v,
		    lv->place[i - 1])->data_off > vs->data_off; i--)
			lv->place[i] = lv->place[i - 1];
		lv->place[i] = (int8_t)s;
		lv->nplace++;
	}
}

/*
 * The new blob: old's header, then the n VOIs of lv (vacant ones take no
 * room), their runs and data blocks placed in the order of the norder
 * indices in order.
 */
static int
lay_build(const struct statsblobv1 *old, const struct lay_voi *lv,
    uint16_t n, const uint16_t *order, uint16_t norder, unsigned how,
    struct statsblob **ret)
{
	struct statsblobv1 *nb;
	size_t runs = 0, data = 0, sz, soff, doff;
	uint16_t i, k;
	int s;

	for (k = 0; k < norder; k++) {
		const struct lay_voi *l = &lv[order[k]];

		runs += (size_t)(l->maxstype + 1) * sizeof(struct voistat);
		for (s = 0; s < l->nplace; s++) {
			const struct lay_stat *ls = &l->st[l->place[s]];
			size_t a = dtype_info[ls->dtype].align;

			data = align_up(data, a < 8 ? a : 8) + ls->dsz;
		}
		data = align_up(data, 8);
	}
	sz = SB_V1_HDRSZ + (size_t)n * sizeof(struct voi) + runs + data;
	if (sz > SB_V1_MAXSZ)
		return EFBIG;
	nb = calloc(1, sz);
	if (nb == NULL)
		return ENOMEM;
	memcpy(nb, old, SB_V1_HDRSZ);
	nb->stats_off = (uint16_t)(SB_V1_HDRSZ + n * sizeof(struct voi));
	nb->statsdata_off = (uint16_t)(nb->stats_off + runs);
	nb->cursz = nb->maxsz = (uint16_t)sz;
	for (i = 0; i < n; i++) {
		nb->vois[i].id = -1;
		nb->vois[i].voistatmaxid = -1;
	}
	soff = nb->stats_off;
	doff = nb->statsdata_off;
	for (k = 0; k < norder; k++) {
		const struct lay_voi *l = &lv[order[k]];
		struct voi *v = &nb->vois[order[k]];

		v->id = l->id;
		v->dtype = l->dtype;
		v->flags = l->flags;
		v->voistatmaxid = l->maxstype;
		v->stats_off = (uint16_t)soff;
		soff += (size_t)(l->maxstype + 1) * sizeof(struct voistat);
		for (s = 0; s <= l->maxstype; s++)
			blob_voistat(nb, v, s)->stype = -1;
		for (s = 0; s < l->nplace; s++) {
			const struct lay_stat *ls = &l->st[l->place[s]];
			struct voistat *vs = blob_voistat(nb, v, ls->stype);
			size_t a = dtype_info[ls->dtype].align;

			doff = align_up(doff - nb->statsdata_off, a < 8 ? a : 8) +
			    nb->statsdata_off;
			vs->stype = ls->stype;
			vs->dtype = ls->dtype;
			vs->dsz = ls->dsz;
			vs->errs = ls->errs;
			vs->flags = ls->flags;
			vs->data_off = (uint16_t)doff;
			memcpy((uint8_t *)nb + doff, ls->data, ls->dsz);
			doff += ls->dsz;
		}
		doff = align_up(doff - nb->statsdata_off, 8) + nb->statsdata_off;
	}
	/*
	 * A re-laid blob's layout, not its data, names its shape, chained
	 * from the old so that blobs re-laid alike still merge. A template's
	 * header is left alone: tpl.c hashes the template's whole bytes.
	 */
	if (how & LAY_RELAY)
		nb->tplhash = blob_hash_buf((uint8_t *)nb + SB_V1_HDRSZ,
		    (size_t)nb->statsdata_off - SB_V1_HDRSZ, old->tplhash);
	*ret = (struct statsblob *)nb;
	return 0;
}

/* old with VOI voi_id set from vss: the one path both entry points take. */
static int
lay_set_voi(const struct statsblob *old, int32_t voi_id,
    enum vsd_dtype voi_dtype, uint32_t flags, uint32_t nvss,
    const struct voistatspec *vss, unsigned how, struct statsblob **ret)
{
	const struct statsblobv1 *ob = (const struct statsblobv1 *)old;
	struct lay_voi *lv;
	uint16_t *order;
	uint16_t onv, n, i, k, norder = 0;
	int error;

	if (ob == NULL || ret == NULL || ob->abi != STATS_ABI_V1 ||
	    voi_id < 0 || voi_id > INT16_MAX || !dtype_is_scalar(voi_dtype) ||
	    (flags & ~SB_VOI_RELUPDATE) != 0 || (nvss > 0 && vss == NULL) ||
	    nvss >= VS_NUM_STYPES)
		return EINVAL;
	error = layout_check_vss(voi_dtype, nvss, vss);
	if (error != 0)
		return error;
	onv = blob_nvois(ob);
	n = voi_id >= onv ? (uint16_t)(voi_id + 1) : onv;
	lv = calloc(n, sizeof(*lv));
	order = calloc(n, sizeof(*order));
	if (lv == NULL || order == NULL) {
		free(lv);
		free(order);
		return ENOMEM;
	}
	for (i = 0; i < n; i++) {
		if (i < onv && ob->vois[i].id >= 0)
			lay_from_blob(&lv[i], ob, &ob->vois[i]);
		else
			lay_vacant(&lv[i]);
	}
	/* A new VOI goes in front; one that was there keeps its place. */
	if (lv[voi_id].id < 0)
		order[norder++] = (uint16_t)voi_id;
	for (i = 0; i < n; i++) {
		if (lv[i].id < 0)
			continue;
		for (k = norder; k > 0 && lv[order[k - 1]].id >= 0 &&
		    ob->vois[order[k - 1]].stats_off > ob->vois[i].stats_off; k--)
			order[k] = order[k - 1];
		order[k] = i;
		norder++;
	}
	lay_from_vss(&lv[voi_id], voi_id, voi_dtype, flags, nvss, vss, how);
	error = lay_build(ob, lv, n, order, norder, how, ret);
	free(order);
	free(lv);
	return error;
}

int
layout_set_voi(const struct statsblob *old, int32_t voi_id,
    enum vsd_dtype voi_dtype, uint32_t flags, uint32_t nvss,
    const struct voistatspec *vss, struct statsblob **ret)
{
	return lay_set_voi(old, voi_id, voi_dtype, flags, nvss, vss,
	    LAY_RELAY, ret);
}

int
layout_tpl_add_voi(const struct statsblob *old, int32_t voi_id,
    enum vsd_dtype voi_dtype, uint32_t flags, uint32_t nvss,
    const struct voistatspec *vss, struct statsblob **ret)
{
	const struct statsblobv1 *ob = (const struct statsblobv1 *)old;

	if (ob != NULL && voi_id >= 0 && voi_id < blob_nvois(ob) &&
	    ob->vois[voi_id].id >= 0)
		return EOPNOTSUPP;
	return lay_set_voi(old, voi_id, voi_dtype, flags, nvss, vss, 0, ret);
}

int
layout_carry(const struct statsblob *old, const struct statsblob *tpl,
    const bool *keep, uint16_t nkeep, uint32_t tplhash,
    struct statsblob **ret)
{
	const struct statsblobv1 *ob = (const struct statsblobv1 *)old;
	const struct statsblobv1 *tb = (const struct statsblobv1 *)tpl;
	struct statsblobv1 *nb;
	struct lay_voi *lv;
	uint16_t *order;
	uint16_t onv, n, i, k, norder = 0;
	int error;

	if (ob == NULL || tb == NULL || ret == NULL ||
	    ob->abi != STATS_ABI_V1 || tb->abi != STATS_ABI_V1 ||
	    (nkeep > 0 && keep == NULL))
		return EINVAL;
	onv = blob_nvois(ob);
	n = blob_nvois(tb);
	lv = calloc(n > 0 ? n : 1, sizeof(*lv));
	order = calloc(n > 0 ? n : 1, sizeof(*order));
	if (lv == NULL || order == NULL) {
		free(lv);
		free(order);
		return ENOMEM;
	}
	for (i = 0; i < n; i++) {
		const struct voi *tv = &tb->vois[i];

		if (tv->id < 0) {
			lay_vacant(&lv[i]);
			continue;
		}
		/* A VOI kept takes the kstat's own statistics, as they are
		 * now (a Linux definition may have re-laid them); a new one
		 * is as a new kstat of the template has it. */
		if (i < nkeep && keep[i] && i < onv && ob->vois[i].id >= 0)
			lay_from_blob(&lv[i], ob, &ob->vois[i]);
		else
			lay_from_blob(&lv[i], tb, tv);
		/* The template's order of runs and data blocks. */
		for (k = norder; k > 0 &&
		    tb->vois[order[k - 1]].stats_off > tv->stats_off; k--)
			order[k] = order[k - 1];
		order[k] = i;
		norder++;
	}
	error = lay_build(ob, lv, n, order, norder, 0, ret);
	free(order);
	free(lv);
	if (error == 0) {
		nb = (struct statsblobv1 *)*ret;
		nb->tplhash = tplhash;
	}
	return error;
}
