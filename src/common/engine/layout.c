/*
 * layout.c: lays a blob out from scratch, VOI by VOI, in the V1 format of
 * blob.h: the header, the VOI table, each VOI's voistat run in VOI order,
 * then each VOI's data block in VOI order (VOI state first, then its
 * statistics by type, each on its natural alignment, blocks a multiple of
 * 8 bytes). The order differs from the registry's (which puts the newest
 * VOI first, as FreeBSD does); readers go by offsets, so both are valid.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kind.h"
#include "layout.h"
#include "tpl.h"

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
	struct lay_stat	st[VS_NUM_STYPES];
};

static int
lay_from_vss(struct lay_voi *lv, int32_t voi_id, enum vsd_dtype voi_dtype,
    uint32_t flags, uint32_t nvss, const struct voistatspec *vss)
{
	static const struct voistatdata_voistate zero_state;
	uint32_t i;
	int s;

	for (s = 0; s < VS_NUM_STYPES; s++)
		lv->st[s].stype = -1;
	lv->id = (int16_t)voi_id;
	lv->dtype = (uint8_t)voi_dtype;
	lv->flags = (flags & SB_VOI_RELUPDATE) ? VOI_REQSTATE : 0;
	lv->maxstype = 0;
	if (flags & SB_VOI_RELUPDATE) {
		lv->st[0] = (struct lay_stat){ VS_STYPE_VOISTATE,
		    VSD_DTYPE_VOISTATE, 0, 0, sizeof(zero_state), &zero_state };
	}
	for (i = 0; i < nvss; i++) {
		const struct voistatspec *v = &vss[i];

		if (!stype_valid(v->stype) || !dtype_valid(v->vs_dtype) ||
		    v->iv == NULL || v->vsdsz == 0 || v->vsdsz > SB_V1_MAXSZ ||
		    lv->st[v->stype].stype >= 0)
			return EINVAL;
		if (dtype_is_scalar(v->vs_dtype) && (v->vs_dtype != voi_dtype ||
		    v->vsdsz != dtype_info[voi_dtype].size))
			return EINVAL;
		if (stype_ops[v->stype].check(v->iv, (uint16_t)v->vsdsz,
		    v->vs_dtype, voi_dtype) != NULL)
			return EINVAL;
		/* A definition is meaningful data from the start. */
		lv->st[v->stype] = (struct lay_stat){ (int8_t)v->stype,
		    (uint8_t)v->vs_dtype, 0,
		    (v->stype == VS_STYPE_DEFN ? VS_VSDVALID : 0) |
		    (uint8_t)(v->flags & VS_ALWAYSVALID),
		    (uint16_t)v->vsdsz, v->iv };
		if (v->stype > lv->maxstype)
			lv->maxstype = (int8_t)v->stype;
	}
	return 0;
}

static void
lay_from_blob(struct lay_voi *lv, const struct statsblobv1 *b,
    const struct voi *v)
{
	int s;

	for (s = 0; s < VS_NUM_STYPES; s++)
		lv->st[s].stype = -1;
	lv->id = v->id;
	lv->dtype = v->dtype;
	lv->flags = v->flags;
	lv->maxstype = v->id < 0 ? -1 : v->voistatmaxid;
	for (s = 0; v->id >= 0 && s <= v->voistatmaxid; s++) {
		const struct voistat *vs = blob_voistat(b, v, s);

		if (vs->stype < 0)
			continue;
		lv->st[s] = (struct lay_stat){ vs->stype, vs->dtype, vs->errs,
		    vs->flags, vs->dsz, blob_vsd(b, vs) };
	}
}

static int
lay_build(const struct statsblobv1 *old, const struct lay_voi *lv,
    uint16_t n, struct statsblob **ret)
{
	struct statsblobv1 *nb;
	size_t runs = 0, data = 0, sz, soff, doff;
	uint16_t i;
	int s;

	for (i = 0; i < n; i++) {
		if (lv[i].id < 0)
			continue;
		runs += (size_t)(lv[i].maxstype + 1) * sizeof(struct voistat);
		for (s = 0; s <= lv[i].maxstype; s++) {
			size_t a;

			if (lv[i].st[s].stype < 0)
				continue;
			a = dtype_info[lv[i].st[s].dtype].align;
			data = align_up(data, a < 8 ? a : 8) + lv[i].st[s].dsz;
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
	soff = nb->stats_off;
	doff = nb->statsdata_off;
	for (i = 0; i < n; i++) {
		struct voi *v = &nb->vois[i];

		v->id = lv[i].id;
		if (lv[i].id < 0) {
			v->voistatmaxid = -1;
			continue;
		}
		v->dtype = lv[i].dtype;
		v->flags = lv[i].flags;
		v->voistatmaxid = lv[i].maxstype;
		v->stats_off = (uint16_t)soff;
		soff += (size_t)(lv[i].maxstype + 1) * sizeof(struct voistat);
		for (s = 0; s <= lv[i].maxstype; s++) {
			struct voistat *vs = blob_voistat(nb, v, s);
			const struct lay_stat *ls = &lv[i].st[s];
			size_t a;

			vs->stype = ls->stype;
			if (ls->stype < 0)
				continue;
			a = dtype_info[ls->dtype].align;
			doff = align_up(doff - nb->statsdata_off, a < 8 ? a : 8) +
			    nb->statsdata_off;
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
	/* The layout, not the data, names the shape. */
	nb->tplhash = tpl_hash_buf((uint8_t *)nb + SB_V1_HDRSZ,
	    (size_t)nb->statsdata_off - SB_V1_HDRSZ, old->tplhash);
	*ret = (struct statsblob *)nb;
	return 0;
}

int
layout_set_voi(const struct statsblob *old, int32_t voi_id,
    enum vsd_dtype voi_dtype, uint32_t flags, uint32_t nvss,
    const struct voistatspec *vss, struct statsblob **ret)
{
	const struct statsblobv1 *ob = (const struct statsblobv1 *)old;
	struct lay_voi *lv;
	uint16_t onv, n, i;
	int error;

	if (ob == NULL || ret == NULL || ob->abi != STATS_ABI_V1 ||
	    voi_id < 0 || voi_id > INT16_MAX || !dtype_is_scalar(voi_dtype) ||
	    (flags & ~SB_VOI_RELUPDATE) != 0 || (nvss > 0 && vss == NULL) ||
	    nvss >= VS_NUM_STYPES)
		return EINVAL;
	onv = blob_nvois(ob);
	n = voi_id >= onv ? (uint16_t)(voi_id + 1) : onv;
	lv = calloc(n, sizeof(*lv));
	if (lv == NULL)
		return ENOMEM;
	for (i = 0; i < n; i++) {
		if (i < onv && i != voi_id) {
			lay_from_blob(&lv[i], ob, &ob->vois[i]);
		} else {
			lv[i].id = -1;
			lv[i].maxstype = -1;
		}
	}
	error = lay_from_vss(&lv[voi_id], voi_id, voi_dtype, flags, nvss, vss);
	if (error == 0)
		error = lay_build(ob, lv, n, ret);
	free(lv);
	return error;
}
