/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * render_linux.c: the Linux statistics infrastructure's data lines, read
 * from the statistics each definition maps to (stat_defn.h):
 *
 *   value    <name> <total>
 *   range    <name> <num> <min> <avg> <max>        ("0 0 0.000 0" if empty)
 *   list     <name> 0x<X> <hits>                   per entry, busiest first
 *   array    <name> <=<X_i> <count> ... <name> ><X_{n-1}> <count>
 *   history  <name> [<s>.<µs>] <total>             oldest first; mode range:
 *            <name> [<s>.<µs>] <num> <min> <avg> <max>
 *   raw      <name> [<s>.<µs>] <serial> <X> <Y>    oldest first
 *
 * Two choices of ours (docs/formats.md): a range's average is signed and
 * exact (the Linux code divides unsigned), and an array's lines come from
 * the bucket bounds, (X_{i-1}, X_i] as documented.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blob.h"
#include "defn.h"
#include "hist.h"
#include "numeric.h"
#include "render_linux.h"
#include "stat_defn.h"
#include "stat_history.h"
#include "stat_list.h"
#include "stat_raw.h"
#include "stat_scalar.h"

void
linux_avg(char *buf, size_t len, int64_t acc, uint64_t num)
{
	__int128 t, milli;
	unsigned __int128 m;

	if (num == 0) {
		snprintf(buf, len, "0.000");
		return;
	}
	/* One digit past the third, then round half away from zero. */
	t = (__int128)acc * 10000 / (__int128)num;
	milli = (t + (t >= 0 ? 5 : -5)) / 10;
	m = milli < 0 ? (unsigned __int128)-milli : (unsigned __int128)milli;
	snprintf(buf, len, "%s%" PRIu64 ".%03u", milli < 0 ? "-" : "",
	    (uint64_t)(m / 1000), (unsigned)(m % 1000));
}

static const struct voistatdata *
lx_stat(const struct statsblobv1 *b, const struct voi *v, int stype,
    const struct voistat **ret_vs)
{
	const struct voistat *vs = blob_stat(b, v, stype);

	if (vs == NULL)
		return NULL;
	if (ret_vs != NULL)
		*ret_vs = vs;
	return blob_vsd(b, vs);
}

static int64_t
lx_s64(const struct voistatdata *vsd)
{
	return vsd != NULL ? vsd->int64.s64 : 0;
}

/* The walk's state: the line being made, where it goes. */
struct lx_ctx {
	struct linux_line	 l;
	linux_line_fn		 fn;
	void			*arg;
};

static int
lx_list(struct lx_ctx *c, const struct voistatdata *vsd)
{
	const struct vsd_list *l = (const struct vsd_list *)vsd;
	uint16_t i;
	int r = 0;

	for (i = 0; i < l->nentries && r == 0; i++) {
		c->l.x = l->ent[i].x.int64.u64;
		c->l.hits = l->ent[i].hits;
		r = c->fn(&c->l, c->arg);
	}
	return r;
}

static int
lx_array(struct lx_ctx *c, const struct voistat *vs,
    const struct voistatdata *vsd)
{
	const struct hist_geom *g = hist_geom(vs->dtype);
	struct voistatdata *h = (struct voistatdata *)vsd;
	uint32_t n, i;
	int r = 0;

	if (g == NULL || g->kind != 'C' || vs->dsz < g->hdrsz)
		return 0;
	n = (vs->dsz - g->hdrsz) / g->bktsz;
	/* Bucket i holds (X_{i-1}, X_i]: its successor starts at X_i + 1;
	 * the last is (X_{n-2}, inf). */
	for (i = 0; i + 1 < n && r == 0; i++) {
		c->l.bound = hist_bkt_lb(h, g, i + 1)->int64.s64 - 1;
		c->l.count = hist_bkt_cnt(vsd, g, i);
		r = c->fn(&c->l, c->arg);
	}
	if (n >= 2 && r == 0) {
		c->l.above = true;
		c->l.bound = hist_bkt_lb(h, g, n - 1)->int64.s64 - 1;
		c->l.count = hist_bkt_cnt(vsd, g, n - 1);
		r = c->fn(&c->l, c->arg);
	}
	return r;
}

static int
lx_history_one(const struct history_entry *e, void *ctx)
{
	struct lx_ctx *c = ctx;

	c->l.time_ns = e->end_ns;
	c->l.total = e->total;
	c->l.num = e->num;
	c->l.acc = e->acc;
	c->l.min = e->min;
	c->l.max = e->max;
	return c->fn(&c->l, c->arg);
}

static int
lx_raw_one(const struct raw_rec *r, void *ctx)
{
	struct lx_ctx *c = ctx;

	c->l.time_ns = r->time;
	c->l.serial = r->serial;
	c->l.x = (uint64_t)r->x;
	c->l.y = r->y;
	return c->fn(&c->l, c->arg);
}

/* The lines of one VOI with definition d. Returns: 0; fn's value. */
static int
lx_voi(struct lx_ctx *c, const struct statsblobv1 *b, const struct voi *v,
    const struct vsd_defn *d, uint64_t now_ns)
{
	const struct voistatdata *vsd;
	const struct voistat *vs = NULL;

	c->l.type = d->type;
	c->l.range = d->type == DEFN_RANGE || (d->type == DEFN_HISTORY &&
	    d->mode == DEFN_MODE_RANGE);
	switch (d->type) {
	case DEFN_VALUE:
		c->l.total = lx_s64(lx_stat(b, v, d->mode == DEFN_MODE_PRODUCTS ?
		    VS_STYPE_SUM : VS_STYPE_COUNT, NULL));
		return c->fn(&c->l, c->arg);
	case DEFN_RANGE:
		c->l.num = (uint64_t)lx_s64(lx_stat(b, v, VS_STYPE_COUNT, NULL));
		c->l.acc = lx_s64(lx_stat(b, v, VS_STYPE_SUM, NULL));
		c->l.min = lx_s64(lx_stat(b, v, VS_STYPE_MIN, NULL));
		c->l.max = lx_s64(lx_stat(b, v, VS_STYPE_MAX, NULL));
		return c->fn(&c->l, c->arg);
	case DEFN_ARRAY:
		vsd = lx_stat(b, v, VS_STYPE_HIST, &vs);
		return vsd != NULL ? lx_array(c, vs, vsd) : 0;
	case DEFN_LIST:
		vsd = lx_stat(b, v, VS_STYPE_LIST, NULL);
		return vsd != NULL ? lx_list(c, vsd) : 0;
	case DEFN_HISTORY:
		/* A stopped history does not move on. */
		vsd = lx_stat(b, v, VS_STYPE_HISTORY, NULL);
		return vsd != NULL ? stat_history_read(vsd, d->on ? now_ns :
		    d->stopped_ns, lx_history_one, c) : 0;
	case DEFN_RAW:
		vsd = lx_stat(b, v, VS_STYPE_RAW, NULL);
		return vsd != NULL ? stat_raw_read(vsd, lx_raw_one, c) : 0;
	default:
		return 0;
	}
}

int
linux_data_walk(const struct statsblob *sb, const char *const *names,
    uint16_t nnames, uint64_t now_ns, linux_line_fn fn, void *arg)
{
	const struct statsblobv1 *b = (const struct statsblobv1 *)sb;
	struct lx_ctx c;
	uint16_t i, n;
	char dflt[16];
	int r;

	if (b == NULL || b->abi != STATS_ABI_V1)
		return -EINVAL;
	n = blob_nvois(b);
	for (i = 0; i < n; i++) {
		const struct voi *v = &b->vois[i];
		const struct voistatdata *dv;

		if (v->id < 0 ||
		    (dv = lx_stat(b, v, VS_STYPE_DEFN, NULL)) == NULL)
			continue;
		memset(&c, 0, sizeof(c));
		c.fn = fn;
		c.arg = arg;
		c.l.name = i < nnames && names != NULL && names[i] != NULL ?
		    names[i] : NULL;
		if (c.l.name == NULL) {
			snprintf(dflt, sizeof(dflt), "voi%u", i);
			c.l.name = dflt;
		}
		r = lx_voi(&c, b, v, (const struct vsd_defn *)dv, now_ns);
		if (r != 0)
			return r;
	}
	return 0;
}

/* A range's figures: "num min avg max" ("0 0 0.000 0" if empty). */
static void
lx_range_tokens(const struct linux_line *l, const struct linux_tokens *t)
{
	char avg[48];

	linux_avg(avg, sizeof(avg), l->acc, l->num);
	t->num(t->arg, false, l->num);
	t->num(t->arg, true, l->num > 0 ? (uint64_t)l->min : 0);
	t->text(t->arg, avg);
	t->num(t->arg, true, l->num > 0 ? (uint64_t)l->max : 0);
}

void
linux_line_tokens(const struct linux_line *l, const struct linux_tokens *t)
{
	char buf[48];

	switch (l->type) {
	case DEFN_VALUE:
		t->num(t->arg, true, (uint64_t)l->total);
		break;
	case DEFN_RANGE:
		lx_range_tokens(l, t);
		break;
	case DEFN_LIST:
		snprintf(buf, sizeof(buf), "0x%" PRIx64, l->x);
		t->text(t->arg, buf);
		t->num(t->arg, false, l->hits);
		break;
	case DEFN_ARRAY:
		snprintf(buf, sizeof(buf), "%s%" PRId64, l->above ? ">" : "<=",
		    l->bound);
		t->text(t->arg, buf);
		t->num(t->arg, false, l->count);
		break;
	case DEFN_HISTORY:
	case DEFN_RAW:
		t->time(t->arg, l->time_ns);
		if (l->type == DEFN_RAW) {
			t->num(t->arg, false, l->serial);
			t->num(t->arg, true, l->x);
			t->num(t->arg, false, l->y);
		} else if (l->range) {
			lx_range_tokens(l, t);
		} else {
			t->num(t->arg, true, (uint64_t)l->total);
		}
		break;
	default:
		break;
	}
}

/* The data file's text: a line's tokens one blank apart. */
static void
lx_text_num(void *arg, bool is_signed, uint64_t v)
{
	sbuf_printf(arg, is_signed ? " %" PRId64 : " %" PRIu64, v);
}

static void
lx_text_text(void *arg, const char *s)
{
	sbuf_putc(arg, ' ');
	sbuf_cat(arg, s);
}

static void
lx_text_time(void *arg, uint64_t ns)
{
	char ts[48];

	linux_timestamp(ts, sizeof(ts), ns);
	lx_text_text(arg, ts);
}

static int
lx_text_line(const struct linux_line *l, void *arg)
{
	const struct linux_tokens t = { lx_text_num, lx_text_text,
	    lx_text_time, arg };

	sbuf_cat(arg, l->name);
	linux_line_tokens(l, &t);
	sbuf_putc(arg, '\n');
	return 0;
}

int
linux_data_format(struct sbuf *buf, const struct statsblob *sb,
    const char *const *names, uint16_t nnames, uint64_t now_ns)
{
	int r;

	if (buf == NULL)
		return -EINVAL;
	r = linux_data_walk(sb, names, nnames, now_ns, lx_text_line, buf);
	if (r != 0)
		return r;
	return sbuf_error(buf) != 0 ? -sbuf_error(buf) : 0;
}

/* A signed number of a LinuxLine, and an unsigned one (exact, see
 * numeric_json_u64). */
static void
lx_json_s64(struct sbuf *buf, const char *key, int64_t v)
{
	sbuf_printf(buf, ",\"%s\":%" PRId64, key, v);
}

static void
lx_json_u64(struct sbuf *buf, const char *key, uint64_t v)
{
	sbuf_printf(buf, ",\"%s\":", key);
	numeric_json_u64(buf, v);
}

int
linux_line_json(struct sbuf *buf, const struct linux_line *l)
{
	char avg[48];

	sbuf_cat(buf, "{\"statistic\":");
	stat_json_string(buf, l->name, strlen(l->name));
	sbuf_printf(buf, ",\"type\":\"%s\"", l->type < DEFN_NUM_TYPES ?
	    stat_defn_type_names[l->type] : "?");
	if (l->type == DEFN_HISTORY || l->type == DEFN_RAW)
		lx_json_u64(buf, "time_ns", l->time_ns);
	if (l->range) {
		linux_avg(avg, sizeof(avg), l->acc, l->num);
		lx_json_u64(buf, "num", l->num);
		lx_json_s64(buf, "acc", l->acc);
		lx_json_s64(buf, "min", l->num > 0 ? l->min : 0);
		sbuf_printf(buf, ",\"avg\":\"%s\"", avg);
		lx_json_s64(buf, "max", l->num > 0 ? l->max : 0);
	} else if (l->type == DEFN_VALUE || l->type == DEFN_HISTORY) {
		lx_json_s64(buf, "total", l->total);
	} else if (l->type == DEFN_LIST) {
		lx_json_u64(buf, "x", l->x);
		lx_json_u64(buf, "hits", l->hits);
	} else if (l->type == DEFN_ARRAY) {
		lx_json_s64(buf, l->above ? "gt" : "le", l->bound);
		lx_json_u64(buf, "count", l->count);
	} else if (l->type == DEFN_RAW) {
		lx_json_u64(buf, "serial", l->serial);
		lx_json_s64(buf, "x", (int64_t)l->x);
		lx_json_u64(buf, "y", l->y);
	}
	sbuf_putc(buf, '}');
	return sbuf_error(buf);
}

/* The walk's JSON array: lines so far. */
struct lx_json {
	struct sbuf	*buf;
	int		 n;
};

static int
lx_json_line(const struct linux_line *l, void *arg)
{
	struct lx_json *j = arg;

	if (j->n++ > 0)
		sbuf_putc(j->buf, ',');
	return linux_line_json(j->buf, l);
}

int
linux_data_json(struct sbuf *buf, const struct statsblob *sb,
    const char *const *names, uint16_t nnames, uint64_t now_ns)
{
	struct lx_json j = { buf, 0 };
	int r;

	if (buf == NULL)
		return -EINVAL;
	sbuf_putc(buf, '[');
	r = linux_data_walk(sb, names, nnames, now_ns, lx_json_line, &j);
	sbuf_putc(buf, ']');
	if (r != 0)
		return r < 0 ? r : -r;
	return sbuf_error(buf) != 0 ? -sbuf_error(buf) : j.n;
}
