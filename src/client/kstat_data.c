/*
 * kstat_data.c: a kstat's blob as the records libkstat consumers read —
 * kstat_named_t arrays, kstat_intr_t, kstat_io_t, kstat_timer_t arrays and
 * raw bytes — following the flat naming of docs/formats.md §4. The blob
 * has been validated (stats_blob_validate) before it gets here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blob.h"
#include "hist.h"
#include "kind.h"
#include "kstat_data.h"
#include "stat_ioq.h"
#include "stat_scalar.h"
#include "stat_timer.h"

/* The flat statistics, in the order they are shown after a VOI's own
 * value. */
static const int kd_flat[] = {
	VS_STYPE_SUM, VS_STYPE_MIN, VS_STYPE_MAX, VS_STYPE_COUNT,
	VS_STYPE_LAST,
};

static const struct voistat *
kd_stat(const struct statsblobv1 *b, const struct voi *v, int stype)
{
	const struct voistat *vs;

	if (stype > v->voistatmaxid)
		return NULL;
	vs = blob_voistat(b, v, stype);
	return vs->stype == stype ? vs : NULL;
}

/* A growing array of named values, and the arrays and strings they point
 * to. */
struct kd_named {
	kstat_named_t	*v;
	size_t		 n, cap;
	char		*strs;		/* packed, NUL-terminated */
	size_t		 slen, scap;
	size_t		*soff;		/* v[i]'s string offset, or -1 */
	uint64_t	*arrs;		/* packed arrays */
	size_t		 alen, acap;
	size_t		*aoff;		/* v[i]'s array offset, or -1 */
};

static kstat_named_t *
kd_add(struct kd_named *kn, const char *name, const char *suffix)
{
	kstat_named_t *k;

	if (kn->n == kn->cap) {
		size_t ncap = kn->cap == 0 ? 16 : kn->cap * 2;
		kstat_named_t *nv = realloc(kn->v, ncap * sizeof(*nv));
		size_t *no;

		if (nv == NULL)
			return NULL;
		kn->v = nv;
		no = realloc(kn->soff, ncap * sizeof(*no));
		if (no == NULL)
			return NULL;
		kn->soff = no;
		no = realloc(kn->aoff, ncap * sizeof(*no));
		if (no == NULL)
			return NULL;
		kn->aoff = no;
		kn->cap = ncap;
	}
	k = &kn->v[kn->n];
	memset(k, 0, sizeof(*k));
	kn->soff[kn->n] = (size_t)-1;
	kn->aoff[kn->n] = (size_t)-1;
	kn->n++;
	if (suffix != NULL) {
		size_t l = strlen(name), sl = strlen(suffix);

		/* "<voi>.<kind>", the VOI name cut to keep the suffix. */
		if (l + 1 + sl > KSTAT_STRLEN - 1)
			l = sl + 1 < KSTAT_STRLEN - 1 ?
			    KSTAT_STRLEN - 2 - sl : 0;
		memcpy(k->name, name, l);
		k->name[l] = '.';
		memcpy(k->name + l + 1, suffix, sl < KSTAT_STRLEN - 2 - l ?
		    sl : KSTAT_STRLEN - 2 - l);
	} else {
		strncpy(k->name, name, KSTAT_STRLEN - 1);
	}
	return k;
}

static int
kd_string(struct kd_named *kn, const char *s, size_t len)
{
	if (kn->slen + len + 1 > kn->scap) {
		size_t ncap = (kn->scap + len + 1) * 2;
		char *ns = realloc(kn->strs, ncap);

		if (ns == NULL)
			return -ENOMEM;
		kn->strs = ns;
		kn->scap = ncap;
	}
	memcpy(kn->strs + kn->slen, s, len);
	kn->strs[kn->slen + len] = '\0';
	kn->soff[kn->n - 1] = kn->slen;
	kn->v[kn->n - 1].value.str.len = (uint32_t)len + 1;
	kn->slen += len + 1;
	return 0;
}

/* Make room for len more elements of the last value's array. Returns: a
 * pointer to them; NULL. */
static uint64_t *
kd_array(struct kd_named *kn, size_t len)
{
	if (kn->alen + len > kn->acap) {
		size_t ncap = (kn->acap + len) * 2;
		uint64_t *na = realloc(kn->arrs, ncap * sizeof(*na));

		if (na == NULL)
			return NULL;
		kn->arrs = na;
		kn->acap = ncap;
	}
	kn->aoff[kn->n - 1] = kn->alen;
	kn->v[kn->n - 1].data_type = KSTAT_DATA_UINT64_ARRAY;
	kn->v[kn->n - 1].value.str.len = (uint32_t)len;
	kn->alen += len;
	return kn->arrs + kn->alen - len;
}

/* A kstat2 histogram's fields: "buckets" (its counts), "type",
 * "range_min", "range_max", "stepping"; prefixed "<voi>." unless bare. */
static int
kd_k2hist(struct kd_named *kn, const char *name, bool bare,
    const struct voistatdata *vsd, enum vsd_dtype hist_dtype,
    const struct k2hist_params *k2)
{
	const struct hist_geom *g = hist_geom(hist_dtype);
	uint64_t f[K2HIST_NFIELDS - 1];
	const char *const *fn = k2hist_field_names;
	kstat_named_t *k;
	uint64_t *b;
	uint16_t i, n;

	if (g == NULL)
		return 0;
	k2hist_param_values(k2, f);
	n = hist_nbuckets(vsd, g);
	k = kd_add(kn, bare ? fn[0] : name, bare ? NULL : fn[0]);
	if (k == NULL || (b = kd_array(kn, n)) == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		b[i] = hist_bkt_cnt(vsd, g, i);
	for (i = 1; i < K2HIST_NFIELDS; i++) {
		k = kd_add(kn, bare ? fn[i] : name, bare ? NULL : fn[i]);
		if (k == NULL)
			return -ENOMEM;
		if (i == 1) {
			k->data_type = KSTAT_DATA_UINT32;
			k->value.ui32 = (uint32_t)f[0];
		} else {
			k->data_type = KSTAT_DATA_UINT64;
			k->value.ui64 = f[i - 1];
		}
	}
	return 0;
}

/* One scalar or string statistic as a named value. Returns: 0 (also for
 * one that cannot be shown: fixed point); -ENOMEM. */
static int
kd_value(struct kd_named *kn, const struct statsblobv1 *b,
    const struct voi *v, const struct voistat *vs, const char *name,
    const char *suffix)
{
	const struct voistatdata *vsd = blob_vsd(b, vs);
	int t = stat_named_data_type((enum vsd_dtype)v->dtype,
	    (enum vsd_dtype)vs->dtype, vsd);
	kstat_named_t *k;

	if (t < 0)
		return 0;
	k = kd_add(kn, name, suffix);
	if (k == NULL)
		return -ENOMEM;
	k->data_type = (unsigned char)t;
	if (vs->dtype == VSD_DTYPE_STRING) {
		const struct vsd_string *s = (const struct vsd_string *)vsd;

		if (t == KSTAT_DATA_CHAR) {
			memcpy(k->value.c, s->s, s->len < sizeof(k->value.c) ?
			    s->len : sizeof(k->value.c));
			return 0;
		}
		return kd_string(kn, s->s, s->len);
	}
	switch (t) {
	case KSTAT_DATA_INT32:
		k->value.i32 = vsd->int32.s32;
		break;
	case KSTAT_DATA_UINT32:
		k->value.ui32 = vsd->int32.u32;
		break;
	default:
		k->value.ui64 = vsd->int64.u64;
		break;
	}
	return 0;
}

static int
kd_fields(struct kd_named *kn, const char *name, const char *const *fnames,
    const uint64_t *vals, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		kstat_named_t *k = kd_add(kn, name, fnames[i]);

		if (k == NULL)
			return -ENOMEM;
		k->data_type = KSTAT_DATA_UINT64;
		k->value.ui64 = vals[i];
	}
	return 0;
}

static const char *
kd_name(const char *const *names, uint16_t nnames, int id, char *buf,
    size_t len)
{
	if (id < nnames && names != NULL && names[id] != NULL &&
	    names[id][0] != '\0')
		return names[id];
	snprintf(buf, len, "voi%d", id);
	return buf;
}

static int
kd_named(const struct statsblobv1 *b, uint8_t type, bool own_values,
    const char *const *names, const struct k2hist_params *k2,
    uint16_t nnames, hrtime_t snaptime, struct kd_out *out)
{
	struct kd_named kn = { 0 };
	uint16_t i, nv = blob_nvois(b);
	char nbuf[16];
	size_t k, total, aoff, soff;
	int r = 0;

	for (i = 0; i < nv && r == 0; i++) {
		const struct voi *v = &b->vois[i];
		const struct voistat *prim = NULL, *vs;
		const char *name;

		if (v->id < 0)
			continue;
		name = kd_name(names, nnames, i, nbuf, sizeof(nbuf));
		if (own_values) {
			prim = kd_stat(b, v, VS_STYPE_LAST);
			if (prim == NULL)
				prim = kd_stat(b, v, VS_STYPE_SUM);
			if (prim == NULL)
				prim = kd_stat(b, v, VS_STYPE_COUNT);
			if (prim != NULL)
				r = kd_value(&kn, b, v, prim, name, NULL);
		}
		for (k = 0; k < sizeof(kd_flat) / sizeof(kd_flat[0]) && r == 0;
		    k++) {
			vs = kd_stat(b, v, kd_flat[k]);
			if (vs != NULL && vs != prim)
				r = kd_value(&kn, b, v, vs, name,
				    stype_ops[kd_flat[k]].flatname);
		}
		if (r == 0 && (vs = kd_stat(b, v, VS_STYPE_IOQ)) != NULL) {
			kstat_io_t io;
			uint64_t f[IOQ_NFIELDS];

			stat_ioq_snapshot((const kstat_io_t *)blob_vsd(b, vs),
			    (uint64_t)snaptime, &io);
			stat_ioq_fields(&io, f);
			r = kd_fields(&kn, name, stat_ioq_field_names, f,
			    IOQ_NFIELDS);
		}
		if (r == 0 && k2 != NULL && i < nnames && k2[i].valid &&
		    (vs = kd_stat(b, v, VS_STYPE_HIST)) != NULL)
			r = kd_k2hist(&kn, name, type == KSTAT_TYPE_HIST,
			    blob_vsd(b, vs), (enum vsd_dtype)vs->dtype, &k2[i]);
		if (r == 0 && (vs = kd_stat(b, v, VS_STYPE_TIMER)) != NULL) {
			uint64_t f[TIMER_NFIELDS];

			stat_timer_fields((const struct vsd_timer *)blob_vsd(b,
			    vs), f);
			r = kd_fields(&kn, name, stat_timer_field_names, f,
			    TIMER_NFIELDS);
		}
	}
	if (r < 0)
		goto fail;
	/*
	 * One allocation: the named values, then the arrays (8-aligned, as
	 * a kstat_named_t's size is), then the strings they point into.
	 */
	_Static_assert(sizeof(kstat_named_t) % sizeof(uint64_t) == 0,
	    "arrays follow the named values aligned");
	aoff = kn.n * sizeof(kstat_named_t);
	soff = aoff + kn.alen * sizeof(uint64_t);
	total = soff + kn.slen;
	out->data = malloc(total > 0 ? total : 1);
	if (out->data == NULL) {
		r = -ENOMEM;
		goto fail;
	}
	if (kn.n > 0)
		memcpy(out->data, kn.v, kn.n * sizeof(kstat_named_t));
	if (kn.alen > 0)
		memcpy((char *)out->data + aoff, kn.arrs,
		    kn.alen * sizeof(uint64_t));
	if (kn.slen > 0)
		memcpy((char *)out->data + soff, kn.strs, kn.slen);
	for (k = 0; k < kn.n; k++) {
		kstat_named_t *kp = (kstat_named_t *)out->data + k;

		if (kn.soff[k] != (size_t)-1)
			kp->value.str.addr.ptr = (char *)out->data + soff +
			    kn.soff[k];
		if (kn.aoff[k] != (size_t)-1)
			kp->value.str.addr.ptr = (char *)out->data + aoff +
			    kn.aoff[k] * sizeof(uint64_t);
	}
	out->ndata = (unsigned)kn.n;
	out->size = total;
	out->type = KSTAT_TYPE_NAMED;
	out->longstrings = kn.slen > 0;
fail:
	free(kn.v);
	free(kn.soff);
	free(kn.strs);
	free(kn.aoff);
	free(kn.arrs);
	return r;
}

/* The value of a VOI's own LAST, SUM or COUNT, as a u64. */
static uint64_t
kd_scalar(const struct statsblobv1 *b, const struct voi *v)
{
	static const int order[] = { VS_STYPE_LAST, VS_STYPE_SUM,
	    VS_STYPE_COUNT };
	size_t k;

	for (k = 0; k < 3; k++) {
		const struct voistat *vs = kd_stat(b, v, order[k]);
		const struct voistatdata *vsd;

		if (vs == NULL || !dtype_is_scalar(vs->dtype))
			continue;
		vsd = blob_vsd(b, vs);
		return dtype_info[vs->dtype].size == 4 ? vsd->int32.u32 :
		    vsd->int64.u64;
	}
	return 0;
}

int
kd_convert(uint8_t type, uint32_t hdr_ndata, const struct statsblob *sb,
    const char *const *names, const struct k2hist_params *k2,
    uint16_t nnames, hrtime_t snaptime, struct kd_out *out)
{
	const struct statsblobv1 *b = (const struct statsblobv1 *)sb;
	uint16_t i, nv = blob_nvois(b);
	char nbuf[16];

	(void)hdr_ndata;
	memset(out, 0, sizeof(*out));
	switch (type) {
	case KSTAT_TYPE_NAMED:
		return kd_named(b, type, true, names, k2, nnames, snaptime,
		    out);
	case KSTAT_TYPE_INTR: {
		kstat_intr_t *ki = calloc(1, sizeof(*ki));

		if (ki == NULL)
			return -ENOMEM;
		for (i = 0; i < nv && i < KSTAT_NUM_INTRS; i++)
			if (b->vois[i].id >= 0)
				ki->intrs[i] = (unsigned int)kd_scalar(b,
				    &b->vois[i]);
		out->data = ki;
		out->ndata = 1;
		out->size = sizeof(*ki);
		out->type = type;
		return 0;
	}
	case KSTAT_TYPE_IO: {
		kstat_io_t *io = calloc(1, sizeof(*io));

		if (io == NULL)
			return -ENOMEM;
		for (i = 0; i < nv; i++) {
			const struct voistat *vs;

			if (b->vois[i].id < 0 ||
			    (vs = kd_stat(b, &b->vois[i], VS_STYPE_IOQ)) == NULL)
				continue;
			stat_ioq_snapshot((const kstat_io_t *)blob_vsd(b, vs),
			    (uint64_t)snaptime, io);
			break;
		}
		out->data = io;
		out->ndata = 1;
		out->size = sizeof(*io);
		out->type = type;
		return 0;
	}
	case KSTAT_TYPE_TIMER: {
		kstat_timer_t *kt = calloc(nv > 0 ? nv : 1, sizeof(*kt));
		unsigned n = 0;

		if (kt == NULL)
			return -ENOMEM;
		for (i = 0; i < nv; i++) {
			const struct voistat *vs;
			const struct vsd_timer *t;

			if (b->vois[i].id < 0 || (vs = kd_stat(b, &b->vois[i],
			    VS_STYPE_TIMER)) == NULL)
				continue;
			t = (const struct vsd_timer *)blob_vsd(b, vs);
			strncpy(kt[n].name, kd_name(names, nnames, i, nbuf,
			    sizeof(nbuf)), KSTAT_STRLEN - 1);
			kt[n].num_events = t->num_events;
			kt[n].elapsed_time = t->elapsed_time;
			kt[n].min_time = t->min_time;
			kt[n].max_time = t->max_time;
			kt[n].start_time = t->start_time;
			kt[n].stop_time = t->stop_time;
			n++;
		}
		out->data = kt;
		out->ndata = n;
		out->size = n * sizeof(*kt);
		out->type = type;
		return 0;
	}
	case KSTAT_TYPE_RAW: {
		/* statsd records no byte count: whole words, one a VOI. */
		size_t len = (size_t)nv * 8, off;
		uint8_t *raw = calloc(1, len > 0 ? len : 1);

		if (raw == NULL)
			return -ENOMEM;
		/* 8-byte words, VOI i at offset 8 i (kstat_raw_update). */
		for (i = 0; i < nv && (off = (size_t)i * 8) < len; i++) {
			uint64_t w;

			if (b->vois[i].id < 0)
				continue;
			w = kd_scalar(b, &b->vois[i]);
			memcpy(raw + off, &w, len - off < 8 ? len - off : 8);
		}
		out->data = raw;
		out->ndata = (unsigned)len;
		out->size = len;
		out->type = type;
		return 0;
	}
	default:
		/* Blobs and kstat2 histograms: their scalars, flat. */
		return kd_named(b, type, false, names, k2, nnames, snaptime,
		    out);
	}
}
