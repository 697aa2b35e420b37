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
 * created with. */
static int
flat_k2hist(const struct voi *v, const struct voistat *vs,
    const struct voistatdata *vsd, const struct k2hist_params *k2,
    const char *prefix, flat_fn fn, void *arg)
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

int
flat_walk(const struct ks_view *view, flat_fn fn, void *arg)
{
	const struct statsblobv1 *b = (const struct statsblobv1 *)view->sb;
	const struct kstat_hdr *h = view->hdr;
	uint64_t now = h->snaptime > 0 ? (uint64_t)h->snaptime : 0;
	uint16_t i, nv = b != NULL ? blob_nvois(b) : 0, ntimers = 0;
	bool io_done = false, own = h->type == KSTAT_TYPE_NAMED ||
	    h->type == KSTAT_TYPE_INTR;
	int r = 0;

	for (i = 0; i < nv; i++)
		if (b->vois[i].id >= 0 &&
		    blob_stat(b, &b->vois[i], VS_STYPE_TIMER) != NULL)
			ntimers++;
	for (i = 0; i < nv && r == 0; i++) {
		const struct voi *v = &b->vois[i];
		const struct voistat *prim = NULL, *vs;
		char dflt[16];
		const char *name;
		int s;

		if (v->id < 0)
			continue;
		name = flat_voi_name(view, i, dflt, sizeof(dflt));
		if (own && (prim = flat_primary(view->sb, v)) != NULL)
			r = flat_value(v, prim, blob_vsd(b, prim), name, NULL,
			    fn, arg);
		BLOB_FOREACH_STAT(b, v, s, vs) {
			const struct stype_ops *ops = &stype_ops[s];
			const struct voistatdata *vsd;

			if (r != 0)
				break;
			if (vs == prim || ops->nfields == 0)
				continue;
			vsd = blob_vsd(b, vs);
			if (s == VS_STYPE_HIST) {
				if (view->k2 != NULL && i < view->nnames &&
				    view->k2[i].valid)
					r = flat_k2hist(v, vs, vsd,
					    &view->k2[i], h->type ==
					    KSTAT_TYPE_HIST ? NULL : name, fn,
					    arg);
			} else if (s == VS_STYPE_IOQ) {
				bool bare = h->type == KSTAT_TYPE_IO &&
				    !io_done;

				r = flat_fields(ops, v, vsd, now, bare ? NULL :
				    name, fn, arg);
				io_done = io_done || bare;
			} else if (s == VS_STYPE_TIMER) {
				bool bare = h->type == KSTAT_TYPE_TIMER &&
				    ntimers == 1;
				struct flat_stat nm = { .field = "name",
				    .f = &flat_timer_name,
				    .vtype = FLAT_STRING, .str = name,
				    .len = strlen(name) };

				if (bare)
					r = fn(&nm, arg);
				if (r == 0)
					r = flat_fields(ops, v, vsd, now, bare ?
					    NULL : name, fn, arg);
			} else if (ops->field_values != NULL) {
				r = flat_fields(ops, v, vsd, now, name, fn,
				    arg);
			} else {
				r = flat_value(v, vs, vsd, name,
				    ops->fields[0].suffix, fn, arg);
			}
		}
	}
	return r;
}
