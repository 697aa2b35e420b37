/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kstat_data.c: a kstat's blob as the records libkstat consumers read —
 * kstat_named_t arrays, kstat_intr_t, kstat_io_t, kstat_timer_t arrays and
 * raw bytes. Named values are the kstat's flat view (flat_walk): the same
 * names, in the same walk, as kstat(1M)'s lines. The blob has been
 * validated (stats_blob_validate) before it gets here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blob.h"
#include "flat.h"
#include "kstat_data.h"
#include "stat_ioq.h"
#include "stat_scalar.h"
#include "stat_timer.h"

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

/* One flat statistic as a named value (one that cannot be shown, a fixed
 * point number, is left out). Returns: 0; -ENOMEM. */
static int
kd_flat(const struct flat_stat *fs, void *arg)
{
	struct kd_named *kn = arg;
	kstat_named_t *k;
	uint64_t *a;
	int t;

	if (fs->vtype == FLAT_STRING && fs->vsd == NULL) {
		/* A name of the header's (a kstat2 histogram's content
		 * type): short, as illumos's KSTAT_DATA_CHAR holds it. */
		if (fs->str == NULL || fs->len >= sizeof(k->value.c))
			return 0;
		t = KSTAT_DATA_CHAR;
	} else if (fs->vtype == FLAT_SCALAR || fs->vtype == FLAT_STRING) {
		if (fs->vsd == NULL)
			return 0;
		t = stat_named_data_type(fs->voi_dtype, fs->vs_dtype,
		    fs->vsd);
		if (t < 0)
			return 0;
	} else {
		t = fs->vtype == FLAT_U64_ARRAY ? KSTAT_DATA_UINT64_ARRAY :
		    fs->f->narrow ? KSTAT_DATA_UINT32 : KSTAT_DATA_UINT64;
	}
	k = kd_add(kn, fs->prefix != NULL ? fs->prefix : fs->field,
	    fs->prefix != NULL ? fs->field : NULL);
	if (k == NULL)
		return -ENOMEM;
	k->data_type = (unsigned char)t;
	switch (fs->vtype) {
	case FLAT_STRING:
		if (t == KSTAT_DATA_CHAR) {
			memcpy(k->value.c, fs->str, fs->len <
			    sizeof(k->value.c) ? fs->len : sizeof(k->value.c));
			return 0;
		}
		return kd_string(kn, fs->str, fs->len);
	case FLAT_U64_ARRAY:
		if ((a = kd_array(kn, fs->n)) == NULL)
			return -ENOMEM;
		memcpy(a, fs->arr, fs->n * sizeof(*a));
		return 0;
	case FLAT_U64:
		if (t == KSTAT_DATA_UINT32)
			k->value.ui32 = (uint32_t)fs->u64;
		else
			k->value.ui64 = fs->u64;
		return 0;
	default:
		break;
	}
	switch (t) {
	case KSTAT_DATA_INT32:
		k->value.i32 = fs->vsd->int32.s32;
		break;
	case KSTAT_DATA_UINT32:
		k->value.ui32 = fs->vsd->int32.u32;
		break;
	default:
		k->value.ui64 = fs->vsd->int64.u64;
		break;
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
kd_named(const struct ks_view *view, struct kd_out *out)
{
	struct kd_named kn = { 0 };
	size_t k, total, aoff, soff;
	int r;

	r = flat_walk(view, kd_flat, &kn);
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

/* The value of a VOI's own statistic (flat_primary), as a u64. */
static uint64_t
kd_scalar(const struct statsblobv1 *b, const struct voi *v)
{
	const struct voistat *vs = flat_primary((const struct statsblob *)b,
	    v);
	const struct voistatdata *vsd;

	if (vs == NULL || !dtype_is_scalar(vs->dtype))
		return 0;
	vsd = blob_vsd(b, vs);
	return dtype_info[vs->dtype].size == 4 ? vsd->int32.u32 :
	    vsd->int64.u64;
}

int
kd_convert(uint8_t type, uint32_t hdr_ndata, uint8_t content, uint64_t scale,
    const struct statsblob *sb, const char *const *names,
    const struct k2hist_params *k2, uint16_t nnames, hrtime_t snaptime,
    struct kd_out *out)
{
	const struct statsblobv1 *b = (const struct statsblobv1 *)sb;
	struct kstat_hdr h = { .type = type, .snaptime = snaptime,
	    .content = content, .scale = scale };
	const struct ks_view view = { &h, sb, names, nnames, k2 };
	uint16_t i, nv = blob_nvois(b);
	char nbuf[16];

	memset(out, 0, sizeof(*out));
	switch (type) {
	case KSTAT_TYPE_NAMED:
		return kd_named(&view, out);
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
			    (vs = blob_stat(b, &b->vois[i], VS_STYPE_IOQ)) == NULL)
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

			if (b->vois[i].id < 0 || (vs = blob_stat(b, &b->vois[i],
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
		/* One word a VOI; the header's ndata is the record's bytes
		 * (its creator's kstat_create() ndata). */
		size_t len = (size_t)nv * 8, off;
		uint8_t *raw;

		if (hdr_ndata > 0 && hdr_ndata < len)
			len = hdr_ndata;
		raw = calloc(1, len > 0 ? len : 1);
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
		return kd_named(&view, out);
	}
}
