/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * flat.c: the flat view of a kstat's blob — the one walk that names each
 * scalar, reads its value and says whether it is a counter, driven by the
 * kind table's flat fields.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blob.h"
#include "flat.h"
#include "hist.h"
#include "kind.h"
#include "stat_scalar.h"

/* A lone timer's "name" pseudo-statistic: its VOI's name, a label. */
static const struct stat_field flat_timer_name = { "name", FIELD_GAUGE,
    false, "", false };
/* A kstat2 histogram's content type of its values and their scale. */
static const struct stat_field flat_k2_content = { "content", FIELD_GAUGE,
    false, "", false };
static const struct stat_field flat_k2_scale = { "scale", FIELD_GAUGE,
    false, "", false };

const struct voistat *
flat_primary(const struct statsblob *sb, const struct voi *v)
{
	static const int order[] = { VS_STYPE_LAST, VS_STYPE_SUM,
	    VS_STYPE_COUNT };
	const struct statsblobv1 *b = (const struct statsblobv1 *)sb;
	const struct voistat *vs;
	size_t i;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if ((vs = blob_stat(b, v, order[i])) != NULL)
			return vs;
	return NULL;
}

char *
flat_name(const struct flat_stat *fs, char *buf, size_t len)
{
	if (fs->prefix != NULL && fs->field != NULL)
		snprintf(buf, len, "%s.%s", fs->prefix, fs->field);
	else
		snprintf(buf, len, "%s", fs->prefix != NULL ? fs->prefix :
		    fs->field != NULL ? fs->field : "");
	return buf;
}

/* A scalar or string statistic: the VOI's own value (field NULL) or
 * <voi>.<kind>. */
static int
flat_value(const struct voi *v, const struct voistat *vs,
    const struct voistatdata *vsd, const char *prefix, const char *field,
    flat_fn fn, void *arg)
{
	const struct stat_field *f = &stype_ops[vs->stype].fields[0];
	struct flat_stat fs = {
		.prefix = prefix, .field = field, .f = f,
		.voi_dtype = (enum vsd_dtype)v->dtype,
		.vs_dtype = (enum vsd_dtype)vs->dtype, .vsd = vsd,
	};

	if (vs->dtype == VSD_DTYPE_STRING) {
		const struct vsd_string *s = (const struct vsd_string *)vsd;

		fs.vtype = FLAT_STRING;
		fs.str = s->s;
		fs.len = s->len;
	} else if (dtype_is_scalar(vs->dtype)) {
		fs.vtype = FLAT_SCALAR;
		fs.counter = field_is_counter(f, dtype_valid(v->dtype) &&
		    dtype_info[v->dtype].is_signed);
	} else {
		return 0;
	}
	return fn(&fs, arg);
}

/* A record kind's fields (IOQ, TIMER): bare (prefix NULL) or
 * <voi>.<field>. */
static int
flat_fields(const struct stype_ops *ops, const struct voi *v,
    const struct voistatdata *vsd, uint64_t now_ns, const char *prefix,
    flat_fn fn, void *arg)
{
	uint64_t vals[32];
	uint8_t i;
	int r;

	if (ops->nfields > sizeof(vals) / sizeof(vals[0]))
		return -EINVAL;
	ops->field_values(vsd, now_ns, vals);
	for (i = 0; i < ops->nfields; i++) {
		struct flat_stat fs = {
			.prefix = prefix, .field = ops->fields[i].suffix,
			.f = &ops->fields[i],
			.counter = field_is_counter(&ops->fields[i], false),
			.vtype = FLAT_U64, .voi_dtype = (enum vsd_dtype)v->dtype,
			.u64 = vals[i],
		};

		if ((r = fn(&fs, arg)) != 0)
			return r;
	}
	return 0;
}

/* A kstat2 histogram: its bucket counts as one array, then what it was
 * created with; the histogram kstat of kstat2 (h) then its content type
 * and scale, when its creator gave them (Solaris's kstat2 metadata of the
 * value: "content" by its KSTAT2_NVMT_* name, "scale"). */
static int
flat_k2hist(const struct kstat_hdr *h, const struct voi *v,
    const struct voistat *vs, const struct voistatdata *vsd,
    const struct k2hist_params *k2, const char *prefix, flat_fn fn,
    void *arg)
{
	const struct hist_geom *g = hist_geom((enum vsd_dtype)vs->dtype);
	const struct stat_field *fl = k2hist_fields;
	uint64_t p[K2HIST_NFIELDS - 1], *arr;
	struct flat_stat fs;
	uint16_t i, n;
	int r;

	if (g == NULL)
		return 0;
	n = hist_nbuckets(vsd, g);
	arr = malloc((n > 0 ? n : 1) * sizeof(*arr));
	if (arr == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		arr[i] = hist_bkt_cnt(vsd, g, i);
	fs = (struct flat_stat){ .prefix = prefix, .field = fl[0].suffix,
	    .f = &fl[0], .counter = field_is_counter(&fl[0], false),
	    .vtype = FLAT_U64_ARRAY, .voi_dtype = (enum vsd_dtype)v->dtype,
	    .arr = arr, .n = n };
	r = fn(&fs, arg);
	free(arr);
	k2hist_param_values(k2, p);
	for (i = 1; i < K2HIST_NFIELDS && r == 0; i++) {
		fs = (struct flat_stat){ .prefix = prefix,
		    .field = fl[i].suffix, .f = &fl[i],
		    .counter = field_is_counter(&fl[i], false),
		    .vtype = FLAT_U64, .voi_dtype = (enum vsd_dtype)v->dtype,
		    .u64 = p[i - 1] };
		r = fn(&fs, arg);
	}
	if (r == 0 && h->type == KSTAT_TYPE_HIST && (h->content != 0 ||
	    h->scale > 1) && ks_content_id(h->content) != NULL) {
		const char *c = ks_content_id(h->content);

		fs = (struct flat_stat){ .prefix = prefix, .field = "content",
		    .f = &flat_k2_content, .vtype = FLAT_STRING, .str = c,
		    .len = strlen(c), .voi_dtype = (enum vsd_dtype)v->dtype };
		r = fn(&fs, arg);
		fs = (struct flat_stat){ .prefix = prefix, .field = "scale",
		    .f = &flat_k2_scale, .vtype = FLAT_U64,
		    .voi_dtype = (enum vsd_dtype)v->dtype,
		    .u64 = h->scale > 1 ? h->scale : 1 };
		if (r == 0)
			r = fn(&fs, arg);
	}
	return r;
}

const char *
flat_voi_name(const struct ks_view *v, uint16_t i, char *dflt, size_t len)
{
	if (i < v->nnames && v->names != NULL && v->names[i] != NULL &&
	    v->names[i][0] != '\0')
		return v->names[i];
	snprintf(dflt, len, "voi%u", i);
	return dflt;
}

/* One statistic of the walk, not the VOI's own value, as flat stats. */
static int
flat_stat_fields(const struct flat_each *e, uint16_t ntimers, uint64_t now,
    flat_fn fn, void *arg)
{
	const struct ks_view *view = e->view;
	const struct kstat_hdr *h = view->hdr;
	const struct stype_ops *ops = &stype_ops[e->s];

	if (ops->nfields == 0)
		return 0;
	if (e->s == VS_STYPE_HIST) {
		if (view->k2 != NULL && e->i < view->nnames &&
		    view->k2[e->i].valid)
			return flat_k2hist(h, e->v, e->vs, e->vsd,
			    &view->k2[e->i],
			    h->type == KSTAT_TYPE_HIST ? NULL : e->name, fn,
			    arg);
		return 0;
	}
	if (e->s == VS_STYPE_IOQ)
		return flat_fields(ops, e->v, e->vsd, now, e->io_own ? NULL :
		    e->name, fn, arg);
	if (e->s == VS_STYPE_TIMER) {
		bool bare = h->type == KSTAT_TYPE_TIMER && ntimers == 1;
		struct flat_stat nm = { .field = "name",
		    .f = &flat_timer_name, .vtype = FLAT_STRING,
		    .str = e->name, .len = strlen(e->name) };
		int r = bare ? fn(&nm, arg) : 0;

		return r != 0 ? r : flat_fields(ops, e->v, e->vsd, now, bare ?
		    NULL : e->name, fn, arg);
	}
	if (ops->field_values != NULL)
		return flat_fields(ops, e->v, e->vsd, now, e->name, fn, arg);
	return flat_value(e->v, e->vs, e->vsd, e->name, ops->fields[0].suffix,
	    fn, arg);
}

void
flat_each_begin(struct flat_each *e, const struct ks_view *view)
{
	const struct statsblob *sb = view->sb;

	memset(e, 0, sizeof(*e));
	e->view = view;
	e->nv = sb != NULL ? blob_nvois((const struct statsblobv1 *)sb) : 0;
	e->i = UINT16_MAX;	/* the first step is to VOI 0 */
}

bool
flat_each_voi(struct flat_each *e)
{
	const struct statsblobv1 *b = (const struct statsblobv1 *)e->view->sb;

	do {
		if (++e->i >= e->nv) {
			e->i = e->nv;
			e->v = NULL;
			return false;
		}
	} while (b->vois[e->i].id < 0);
	e->v = &b->vois[e->i];
	e->name = flat_voi_name(e->view, e->i, e->dflt, sizeof(e->dflt));
	e->s = VS_STYPE_VOISTATE;
	return true;
}

bool
flat_each_stat(struct flat_each *e, const struct voistat *skip)
{
	const struct statsblobv1 *b = (const struct statsblobv1 *)e->view->sb;

	do
		e->vs = blob_stat_next(b, e->v, &e->s);
	while (e->vs != NULL && e->vs == skip);
	if (e->vs == NULL)
		return false;
	e->vsd = blob_vsd(b, e->vs);
	e->io_own = e->s == VS_STYPE_IOQ &&
	    e->view->hdr->type == KSTAT_TYPE_IO && !e->io_done;
	e->io_done = e->io_done || e->io_own;
	return true;
}

int
flat_walk(const struct ks_view *view, flat_fn fn, void *arg)
{
	const struct statsblobv1 *b = (const struct statsblobv1 *)view->sb;
	const struct kstat_hdr *h = view->hdr;
	uint64_t now = h->snaptime > 0 ? (uint64_t)h->snaptime : 0;
	uint16_t i, nv = b != NULL ? blob_nvois(b) : 0, ntimers = 0;
	bool own = h->type == KSTAT_TYPE_NAMED || h->type == KSTAT_TYPE_INTR;
	struct flat_each e;
	int r = 0;

	for (i = 0; i < nv; i++)
		if (b->vois[i].id >= 0 &&
		    blob_stat(b, &b->vois[i], VS_STYPE_TIMER) != NULL)
			ntimers++;
	flat_each_begin(&e, view);
	while (r == 0 && flat_each_voi(&e)) {
		const struct voistat *prim = NULL;

		if (own && (prim = flat_primary(view->sb, e.v)) != NULL)
			r = flat_value(e.v, prim, blob_vsd(b, prim), e.name,
			    NULL, fn, arg);
		while (r == 0 && flat_each_stat(&e, prim))
			r = flat_stat_fields(&e, ntimers, now, fn, arg);
	}
	return r;
}
