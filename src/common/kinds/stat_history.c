/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stat_history.c: the HISTORY statistic, Linux's "history": COUNT, SUM
 * or a range (num, min, avg, max) per period, for the last entries_max
 * periods.
 *
 * Periods are anchored at the first update after a reset: it opens a
 * period ending period_us later. An update past the newest period's end
 * opens one empty period for every period that has elapsed (at most
 * entries_max of them), so gaps show as empty periods, as on Linux. Reading
 * never advances the ring: stat_history_read() shows the elapsed periods as
 * empty without writing, so a stopped statistic's history stays put (the
 * Linux code's known bug, a history that advances while off because reads
 * write, does not arise). period_us is stored exactly as given, never
 * round-tripped through nanoseconds (docs/formats.md, Choices).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "op.h"
#include "stat_history.h"

size_t
stat_history_cellsz(unsigned mode)
{
	switch (mode) {
	case HISTORY_INCREMENTS:
	case HISTORY_PRODUCTS:
		return sizeof(int64_t);
	case HISTORY_RANGE:
		return sizeof(struct history_range_cell);
	default:
		return 0;
	}
}

size_t
stat_history_size(unsigned mode, uint32_t entries_max)
{
	size_t c = stat_history_cellsz(mode);

	return c == 0 ? 0 : HISTORY_HDRSZ + (size_t)entries_max * c;
}

uint32_t
stat_history_entries_max(unsigned mode)
{
	size_t c = stat_history_cellsz(mode);

	return c == 0 ? 0 : (uint32_t)((STAT_ROOM - HISTORY_HDRSZ) / c);
}

static void
history_cell_clear(struct vsd_history *h, uint16_t i)
{
	if (h->mode == HISTORY_RANGE) {
		struct history_range_cell *c =
		    (struct history_range_cell *)h->cells + i;

		/* Sentinels: any value is below min and above max. */
		c->num = 0;
		c->acc = 0;
		c->min = INT64_MAX;
		c->max = INT64_MIN;
	} else {
		((int64_t *)h->cells)[i] = 0;
	}
}

int
stat_history_vss_hlpr(enum vsd_dtype voi_dtype, struct voistatspec *vss,
    struct vss_history_hlpr_info *info)
{
	struct vsd_history *iv;
	size_t sz;

	if (vss == NULL || info == NULL || !dtype_is_scalar(voi_dtype) ||
	    info->mode >= HISTORY_NUM_MODES || info->entries_max == 0 ||
	    info->period_us == 0 || info->period_us > HISTORY_PERIOD_MAX)
		return EINVAL;
	if (info->entries_max > stat_history_entries_max(info->mode))
		return EFBIG;
	sz = stat_history_size(info->mode, info->entries_max);
	iv = calloc(1, sz);
	if (iv == NULL)
		return ENOMEM;
	iv->entries_max = (uint16_t)info->entries_max;
	iv->mode = info->mode;
	iv->period_us = info->period_us;
	vss->iv = (struct voistatdata *)iv;
	vss->vsdsz = sz;
	vss->vs_dtype = VSD_DTYPE_HISTORY;
	return 0;
}

/* Open the periods that have elapsed by t, so that t is in the newest. */
static void
history_advance(struct vsd_history *h, uint64_t t)
{
	uint64_t p = h->period_us * 1000u, n, k;

	if (h->ncells == 0) {
		h->head = 0;
		h->ncells = 1;
		history_cell_clear(h, 0);
		h->checkpoint_ns = t + p;
		return;
	}
	if (t <= h->checkpoint_ns)
		return;
	/* Periods elapsed; n·p ≤ t - checkpoint + p cannot overflow. */
	n = (t - h->checkpoint_ns + p - 1) / p;
	k = n < h->entries_max ? n : h->entries_max;
	while (k-- > 0) {
		h->head = (uint16_t)((h->head + 1u) % h->entries_max);
		history_cell_clear(h, h->head);
		if (h->ncells < h->entries_max)
			h->ncells++;
	}
	h->checkpoint_ns += n * p;
}

static void
history_cell_add(struct vsd_history *h, uint16_t i, int64_t x, uint64_t y)
{
	if (h->mode == HISTORY_RANGE) {
		struct history_range_cell *c =
		    (struct history_range_cell *)h->cells + i;

		c->num += y;
		c->acc = (int64_t)((uint64_t)c->acc + (uint64_t)x * y);
		if (x < c->min)
			c->min = x;
		if (x > c->max)
			c->max = x;
	} else {
		int64_t *c = (int64_t *)h->cells + i;
		uint64_t add = h->mode == HISTORY_INCREMENTS ? y :
		    (uint64_t)x * y;

		/* Wrap-around, as the integer SUM does, but defined. */
		*c = (int64_t)((uint64_t)*c + add);
	}
}

int
stat_history_event(struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype,
    const struct stats_event *ev, bool *changed)
{
	struct vsd_history *h = (struct vsd_history *)vsd;

	(void)dsz;
	(void)vs_dtype;
	(void)voi_dtype;
	if (!engine_op_is_xy(ev->op))
		return EOPNOTSUPP;
	history_advance(h, ev->time);
	history_cell_add(h, h->head, ev->xs64, ev->y);
	*changed = true;
	return 0;
}

void
stat_history_reset(struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype)
{
	struct vsd_history *h = (struct vsd_history *)vsd;

	(void)dsz;
	(void)vs_dtype;
	(void)voi_dtype;
	memset(h->cells, 0, (size_t)h->entries_max *
	    stat_history_cellsz(h->mode));
	h->ncells = 0;
	h->head = 0;
	h->checkpoint_ns = 0;
}

static void
history_entry_of(const struct vsd_history *h, uint16_t i,
    struct history_entry *e)
{
	if (h->mode == HISTORY_RANGE) {
		const struct history_range_cell *c =
		    (const struct history_range_cell *)h->cells + i;

		e->num = c->num;
		e->acc = c->acc;
		e->min = c->num > 0 ? c->min : 0;
		e->max = c->num > 0 ? c->max : 0;
	} else {
		e->total = ((const int64_t *)h->cells)[i];
	}
}

int
stat_history_read(const struct voistatdata *vsd, uint64_t now_ns,
    int (*fn)(const struct history_entry *e, void *ctx), void *ctx)
{
	const struct vsd_history *h = (const struct vsd_history *)vsd;
	uint64_t p = h->period_us * 1000u, n = 0, virt = 0, newest, shown;
	uint64_t skip, j, oldest;
	int rv;

	if (h->ncells == 0)
		return 0;
	if (now_ns > h->checkpoint_ns) {
		n = (now_ns - h->checkpoint_ns + p - 1) / p;
		virt = n < h->entries_max ? n : h->entries_max;
	}
	newest = h->checkpoint_ns + n * p;
	shown = h->ncells + virt;
	if (shown > h->entries_max)
		shown = h->entries_max;
	skip = h->ncells + virt - shown;	/* oldest stored cells dropped */
	oldest = (h->head + (uint64_t)h->entries_max - h->ncells + 1u) %
	    h->entries_max;
	for (j = 0; j < shown; j++) {
		struct history_entry e;

		memset(&e, 0, sizeof(e));
		e.end_ns = newest - (shown - 1 - j) * p;
		if (j < shown - virt)
			history_entry_of(h, (uint16_t)((oldest + skip + j) %
			    h->entries_max), &e);
		rv = fn(&e, ctx);
		if (rv != 0)
			return rv;
	}
	return 0;
}

struct history_merge_ctx {
	struct vsd_history	*d;
	uint64_t		 p;
};

static int
history_merge_one(const struct history_entry *e, void *ctx)
{
	struct history_merge_ctx *mc = ctx;
	struct vsd_history *d = mc->d;
	uint64_t back;
	uint16_t i;

	if (e->end_ns > d->checkpoint_ns)
		return 0;
	/* The destination period that covers this entry's end. */
	back = (d->checkpoint_ns - e->end_ns) / mc->p;
	if (back >= d->ncells)
		return 0;
	i = (uint16_t)((d->head + (uint64_t)d->entries_max - back) %
	    d->entries_max);
	if (d->mode == HISTORY_RANGE) {
		struct history_range_cell *c =
		    (struct history_range_cell *)d->cells + i;

		if (e->num == 0)
			return 0;
		c->num += e->num;
		c->acc = (int64_t)((uint64_t)c->acc + (uint64_t)e->acc);
		if (e->min < c->min)
			c->min = e->min;
		if (e->max > c->max)
			c->max = e->max;
	} else {
		int64_t *c = (int64_t *)d->cells + i;

		*c = (int64_t)((uint64_t)*c + (uint64_t)e->total);
	}
	return 0;
}

int
stat_history_merge(struct voistatdata *dst, const struct voistatdata *src,
    uint16_t dsz, enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype)
{
	struct vsd_history *d = (struct vsd_history *)dst;
	const struct vsd_history *s = (const struct vsd_history *)src;
	struct history_merge_ctx mc = { d, d->period_us * 1000u };

	(void)vs_dtype;
	(void)voi_dtype;
	if (d->entries_max != s->entries_max || d->mode != s->mode ||
	    d->period_us != s->period_us)
		return EINVAL;
	if (s->ncells == 0)
		return 0;
	if (d->ncells == 0) {
		memcpy(d, s, dsz);
		return 0;
	}
	/* Bring the destination up to the later of the two, then add. */
	if (s->checkpoint_ns > d->checkpoint_ns)
		history_advance(d, s->checkpoint_ns);
	return stat_history_read(src, 0, history_merge_one, &mc);
}

const char *
stat_history_check(const struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype)
{
	const struct vsd_history *h = (const struct vsd_history *)vsd;

	(void)voi_dtype;
	if (vs_dtype != VSD_DTYPE_HISTORY || dsz < HISTORY_HDRSZ)
		return "history smaller than its header";
	if (h->mode >= HISTORY_NUM_MODES)
		return "history with an unknown mode";
	if (h->entries_max == 0 ||
	    stat_history_size(h->mode, h->entries_max) != dsz)
		return "history entries_max disagrees with its size";
	if (h->ncells > h->entries_max || h->head >= h->entries_max)
		return "history ring indices out of range";
	if (h->period_us == 0 || h->period_us > HISTORY_PERIOD_MAX)
		return "history period out of range";
	if (h->checkpoint_ns > STATS_TIME_MAX + HISTORY_PERIOD_MAX * 1000u)
		return "history checkpoint out of range";
	return NULL;
}

const char *const stat_history_mode_names[HISTORY_NUM_MODES] = {
	[HISTORY_INCREMENTS] = "increments",
	[HISTORY_PRODUCTS] = "products",
	[HISTORY_RANGE] = "range",
};

struct history_render_ctx {
	struct sbuf	*buf;
	enum sb_str_fmt	 fmt;
	bool		 range;
	unsigned	 n;
};

static int
history_render_one(const struct history_entry *e, void *ctx)
{
	struct history_render_ctx *rc = ctx;

	if (rc->fmt == SB_STRFMT_JSON) {
		sbuf_printf(rc->buf, "%s{\"end_ns\":%ju,", rc->n++ > 0 ? "," : "",
		    (uintmax_t)e->end_ns);
		if (rc->range)
			sbuf_printf(rc->buf, "\"num\":%ju,\"acc\":%jd,"
			    "\"min\":%jd,\"max\":%jd}", (uintmax_t)e->num,
			    (intmax_t)e->acc, (intmax_t)e->min,
			    (intmax_t)e->max);
		else
			sbuf_printf(rc->buf, "\"total\":%jd}",
			    (intmax_t)e->total);
	} else {
		sbuf_printf(rc->buf, "\n\t\t\t\t{end_ns=%ju,", (uintmax_t)e->end_ns);
		if (rc->range)
			sbuf_printf(rc->buf, "num=%ju,acc=%jd,min=%jd,max=%jd}",
			    (uintmax_t)e->num, (intmax_t)e->acc,
			    (intmax_t)e->min, (intmax_t)e->max);
		else
			sbuf_printf(rc->buf, "total=%jd}", (intmax_t)e->total);
	}
	return 0;
}

int
stat_history_render(struct sbuf *buf, const struct voistatdata *vsd,
    uint16_t dsz, enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype,
    enum sb_str_fmt fmt, bool objdump)
{
	const struct vsd_history *h = (const struct vsd_history *)vsd;
	struct history_render_ctx rc = { buf, fmt, h->mode == HISTORY_RANGE, 0 };
	const char *mode = h->mode < HISTORY_NUM_MODES ?
	    stat_history_mode_names[h->mode] : "?";

	(void)dsz;
	(void)vs_dtype;
	(void)voi_dtype;
	(void)objdump;
	if (fmt == SB_STRFMT_JSON)
		sbuf_printf(buf, "\"entries_max\":%hu,\"mode\":\"%s\","
		    "\"period_us\":%ju,\"entries\":[", h->entries_max, mode,
		    (uintmax_t)h->period_us);
	else
		sbuf_printf(buf, "entries_max=%hu, mode=%s, period_us=%ju",
		    h->entries_max, mode, (uintmax_t)h->period_us);
	(void)stat_history_read(vsd, 0, history_render_one, &rc);
	if (fmt == SB_STRFMT_JSON)
		sbuf_cat(buf, "]");
	return sbuf_error(buf);
}

/* HISTORY: entries_max (16), mode (increments, products or range) and
 * period_us (1 s). */
int
stat_history_build(const struct kind_args *a, enum vsd_dtype voi_dtype,
    struct voistatspec *vss, uint32_t *n, uint32_t max, struct input_error *err)
{
	const char *mode = kind_str(a, KP_MODE, "increments");
	struct vss_history_hlpr_info hi = {
		.entries_max = (uint32_t)kind_int(a, KP_ENTRIES_MAX, 16),
		.period_us = (uint64_t)kind_int(a, KP_PERIOD_US, 1000000),
	};
	unsigned m;

	for (m = 0; m < HISTORY_NUM_MODES; m++)
		if (strcmp(stat_history_mode_names[m], mode) == 0)
			break;
	if (m == HISTORY_NUM_MODES)
		return kind_fail(err, "mode", "increments, products or range");
	hi.mode = (uint8_t)m;
	return kind_add(vss, n, max, VS_STYPE_HISTORY,
	    (vss_hlpr_fn)stat_history_vss_hlpr, &hi, voi_dtype, 0, err);
}
