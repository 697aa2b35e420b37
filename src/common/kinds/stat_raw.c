/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stat_raw.c: the RAW statistic, Linux's "raw": every (X, Y) pair with
 * its time and serial number, in a ring that overwrites the oldest.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "op.h"
#include "stat_raw.h"

size_t
stat_raw_size(uint32_t entries_max)
{
	return RAW_HDRSZ + (size_t)entries_max * RAW_RECSZ;
}

int
stat_raw_vss_hlpr(enum vsd_dtype voi_dtype, struct voistatspec *vss,
    struct vss_raw_hlpr_info *info)
{
	struct vsd_raw *iv;

	if (vss == NULL || info == NULL || !dtype_is_scalar(voi_dtype) ||
	    info->entries_max == 0)
		return EINVAL;
	if (info->entries_max > RAW_ENTRIES_MAX)
		return EFBIG;
	iv = calloc(1, stat_raw_size(info->entries_max));
	if (iv == NULL)
		return ENOMEM;
	iv->entries_max = (uint16_t)info->entries_max;
	vss->iv = (struct voistatdata *)iv;
	vss->vsdsz = stat_raw_size(info->entries_max);
	vss->vs_dtype = VSD_DTYPE_RAW;
	return 0;
}

static void
raw_push(struct vsd_raw *r, const struct raw_rec *rec)
{
	r->rec[r->next] = *rec;
	r->next = (r->next + 1u) % r->entries_max;
	if (r->nrec < r->entries_max)
		r->nrec++;
}

int
stat_raw_event(struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype,
    const struct stats_event *ev, bool *changed)
{
	struct vsd_raw *r = (struct vsd_raw *)vsd;
	struct raw_rec rec;

	(void)dsz;
	(void)vs_dtype;
	(void)voi_dtype;
	if (!engine_op_is_xy(ev->op))
		return EOPNOTSUPP;
	rec.time = ev->time;
	rec.serial = r->serial++;
	rec.x = ev->xs64;
	rec.y = ev->y;
	raw_push(r, &rec);
	*changed = true;
	return 0;
}

void
stat_raw_reset(struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype)
{
	struct vsd_raw *r = (struct vsd_raw *)vsd;

	(void)dsz;
	(void)vs_dtype;
	(void)voi_dtype;
	memset(r->rec, 0, (size_t)r->entries_max * RAW_RECSZ);
	r->nrec = 0;
	r->next = 0;
	r->serial = 0;
}

int
stat_raw_read(const struct voistatdata *vsd,
    int (*fn)(const struct raw_rec *r, void *ctx), void *ctx)
{
	const struct vsd_raw *r = (const struct vsd_raw *)vsd;
	uint32_t i, first;
	int rv;

	first = (r->next + r->entries_max - r->nrec) % r->entries_max;
	for (i = 0; i < r->nrec; i++) {
		rv = fn(&r->rec[(first + i) % r->entries_max], ctx);
		if (rv != 0)
			return rv;
	}
	return 0;
}

static int
raw_collect(const struct raw_rec *rec, void *ctx)
{
	struct raw_rec **p = ctx;

	*(*p)++ = *rec;
	return 0;
}

static int
raw_rec_cmp(const void *a, const void *b)
{
	const struct raw_rec *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return (x->serial > y->serial) - (x->serial < y->serial);
}

int
stat_raw_merge(struct voistatdata *dst, const struct voistatdata *src,
    uint16_t dsz, enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype)
{
	struct vsd_raw *d = (struct vsd_raw *)dst;
	const struct vsd_raw *s = (const struct vsd_raw *)src;
	struct raw_rec *all, *p;
	uint32_t n, i, keep;

	(void)dsz;
	(void)vs_dtype;
	(void)voi_dtype;
	if (d->entries_max != s->entries_max)
		return EINVAL;
	n = d->nrec + s->nrec;
	all = calloc(n > 0 ? n : 1, sizeof(*all));
	if (all == NULL)
		return ENOMEM;
	p = all;
	(void)stat_raw_read(dst, raw_collect, &p);
	(void)stat_raw_read(src, raw_collect, &p);
	/* Both rings in time order; the newest entries_max stay. */
	qsort(all, n, sizeof(*all), raw_rec_cmp);
	keep = n < d->entries_max ? n : d->entries_max;
	d->nrec = 0;
	d->next = 0;
	for (i = n - keep; i < n; i++)
		raw_push(d, &all[i]);
	d->serial += s->serial;		/* records seen by either */
	free(all);
	return 0;
}

const char *
stat_raw_check(const struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype)
{
	const struct vsd_raw *r = (const struct vsd_raw *)vsd;

	(void)voi_dtype;
	if (vs_dtype != VSD_DTYPE_RAW || dsz < RAW_HDRSZ)
		return "raw ring smaller than its header";
	if (r->entries_max == 0 || stat_raw_size(r->entries_max) != dsz)
		return "raw ring entries_max disagrees with its size";
	if (r->nrec > r->entries_max || r->next >= r->entries_max)
		return "raw ring indices out of range";
	return NULL;
}

struct raw_render_ctx {
	struct sbuf	*buf;
	enum sb_str_fmt	 fmt;
	unsigned	 n;
};

static int
raw_render_one(const struct raw_rec *r, void *ctx)
{
	struct raw_render_ctx *rc = ctx;

	if (rc->fmt == SB_STRFMT_JSON)
		sbuf_printf(rc->buf, "%s{\"time\":%ju,\"serial\":%ju,\"x\":%jd,"
		    "\"y\":%ju}", rc->n++ > 0 ? "," : "", (uintmax_t)r->time,
		    (uintmax_t)r->serial, (intmax_t)r->x, (uintmax_t)r->y);
	else
		sbuf_printf(rc->buf, "\n\t\t\t\t{time=%ju,serial=%ju,x=%jd,"
		    "y=%ju}", (uintmax_t)r->time, (uintmax_t)r->serial,
		    (intmax_t)r->x, (uintmax_t)r->y);
	return 0;
}

int
stat_raw_render(struct sbuf *buf, const struct voistatdata *vsd,
    uint16_t dsz, enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype,
    enum sb_str_fmt fmt, bool objdump)
{
	const struct vsd_raw *r = (const struct vsd_raw *)vsd;
	struct raw_render_ctx rc = { buf, fmt, 0 };

	(void)dsz;
	(void)vs_dtype;
	(void)voi_dtype;
	(void)objdump;
	if (fmt == SB_STRFMT_JSON)
		sbuf_printf(buf, "\"entries_max\":%hu,\"serial\":%ju,"
		    "\"records\":[", r->entries_max, (uintmax_t)r->serial);
	else
		sbuf_printf(buf, "entries_max=%hu, serial=%ju", r->entries_max,
		    (uintmax_t)r->serial);
	(void)stat_raw_read(vsd, raw_render_one, &rc);
	if (fmt == SB_STRFMT_JSON)
		sbuf_cat(buf, "]");
	return sbuf_error(buf);
}

/* RAW: entries_max (16 by default). */
int
stat_raw_build(const struct kind_args *a, enum vsd_dtype voi_dtype,
    struct voistatspec *vss, uint32_t *n, uint32_t max, struct input_error *err)
{
	struct vss_raw_hlpr_info ri = {
		(uint32_t)kind_int(a, KP_ENTRIES_MAX, 16) };

	return kind_add(vss, n, max, VS_STYPE_RAW,
	    (vss_hlpr_fn)stat_raw_vss_hlpr, &ri, voi_dtype, 0, err);
}
