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

#include "blob.h"
#include "defn.h"
#include "hist.h"
#include "render_linux.h"
#include "stat_defn.h"
#include "stat_history.h"
#include "stat_list.h"
#include "stat_raw.h"

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

static void
lx_value(struct sbuf *buf, const char *name, const struct statsblobv1 *b,
    const struct voi *v, const struct vsd_defn *d)
{
	const struct voistatdata *vsd = lx_stat(b, v,
	    d->mode == DEFN_MODE_PRODUCTS ? VS_STYPE_SUM : VS_STYPE_COUNT, NULL);

	sbuf_printf(buf, "%s %" PRId64 "\n", name, lx_s64(vsd));
}

/* The figures of a range after its name: " num min avg max". */
static void
lx_range(struct sbuf *buf, uint64_t num, int64_t acc, int64_t min,
    int64_t max)
{
	char avg[48];

	if (num == 0) {
		sbuf_cat(buf, " 0 0 0.000 0\n");
		return;
	}
	linux_avg(avg, sizeof(avg), acc, num);
	sbuf_printf(buf, " %" PRIu64 " %" PRId64 " %s %" PRId64 "\n", num, min,
	    avg, max);
}

static void
lx_list(struct sbuf *buf, const char *name, const struct voistatdata *vsd)
{
	const struct vsd_list *l = (const struct vsd_list *)vsd;
	uint16_t i;

	for (i = 0; i < l->nentries; i++)
		sbuf_printf(buf, "%s 0x%" PRIx64 " %" PRIu64 "\n", name,
		    l->ent[i].x.int64.u64, l->ent[i].hits);
}

static void
lx_array(struct sbuf *buf, const char *name, const struct voistat *vs,
    const struct voistatdata *vsd)
{
	const struct hist_geom *g = hist_geom(vs->dtype);
	struct voistatdata *h = (struct voistatdata *)vsd;
	uint32_t n, i;

	if (g == NULL || g->kind != 'C' || vs->dsz < g->hdrsz)
		return;
	n = (vs->dsz - g->hdrsz) / g->bktsz;
	/* Bucket i holds (X_{i-1}, X_i]: its successor starts at X_i + 1. */
	for (i = 0; i + 1 < n; i++)
		sbuf_printf(buf, "%s <=%" PRId64 " %" PRIu64 "\n", name,
		    hist_bkt_lb(h, g, i + 1)->int64.s64 - 1,
		    hist_bkt_cnt(vsd, g, i));
	if (n >= 2)
		sbuf_printf(buf, "%s >%" PRId64 " %" PRIu64 "\n", name,
		    hist_bkt_lb(h, g, n - 1)->int64.s64 - 1,
		    hist_bkt_cnt(vsd, g, n - 1));
}

struct lx_ctx {
	struct sbuf	*buf;
	const char	*name;
	bool		 range;
};

static int
lx_history_one(const struct history_entry *e, void *ctx)
{
	struct lx_ctx *c = ctx;
	char ts[48];

	linux_timestamp(ts, sizeof(ts), e->end_ns);
	sbuf_printf(c->buf, "%s %s", c->name, ts);
	if (c->range)
		lx_range(c->buf, e->num, e->acc, e->min, e->max);
	else
		sbuf_printf(c->buf, " %" PRId64 "\n", e->total);
	return 0;
}

static int
lx_raw_one(const struct raw_rec *r, void *ctx)
{
	struct lx_ctx *c = ctx;
	char ts[48];

	linux_timestamp(ts, sizeof(ts), r->time);
	sbuf_printf(c->buf, "%s %s %" PRIu64 " %" PRId64 " %" PRIu64 "\n",
	    c->name, ts, r->serial, r->x, r->y);
	return 0;
}

int
linux_data_format(struct sbuf *buf, const struct statsblob *sb,
    const char *const *names, uint16_t nnames, uint64_t now_ns)
{
	const struct statsblobv1 *b = (const struct statsblobv1 *)sb;
	uint16_t i, n;

	if (buf == NULL || b == NULL || b->abi != STATS_ABI_V1)
		return -EINVAL;
	n = blob_nvois(b);
	for (i = 0; i < n; i++) {
		const struct voi *v = &b->vois[i];
		const struct voistatdata *dv, *vsd;
		const struct voistat *vs = NULL;
		const struct vsd_defn *d;
		struct lx_ctx c;
		char dflt[16];

		if (v->id < 0 ||
		    (dv = lx_stat(b, v, VS_STYPE_DEFN, NULL)) == NULL)
			continue;
		d = (const struct vsd_defn *)dv;
		c.buf = buf;
		c.name = i < nnames && names != NULL && names[i] != NULL ?
		    names[i] : NULL;
		if (c.name == NULL) {
			snprintf(dflt, sizeof(dflt), "voi%u", i);
			c.name = dflt;
		}
		c.range = d->mode == DEFN_MODE_RANGE;
		switch (d->type) {
		case DEFN_VALUE:
			lx_value(buf, c.name, b, v, d);
			break;
		case DEFN_RANGE:
			sbuf_cat(buf, c.name);
			lx_range(buf,
			    (uint64_t)lx_s64(lx_stat(b, v, VS_STYPE_COUNT, NULL)),
			    lx_s64(lx_stat(b, v, VS_STYPE_SUM, NULL)),
			    lx_s64(lx_stat(b, v, VS_STYPE_MIN, NULL)),
			    lx_s64(lx_stat(b, v, VS_STYPE_MAX, NULL)));
			break;
		case DEFN_ARRAY:
			if ((vsd = lx_stat(b, v, VS_STYPE_HIST, &vs)) != NULL)
				lx_array(buf, c.name, vs, vsd);
			break;
		case DEFN_LIST:
			if ((vsd = lx_stat(b, v, VS_STYPE_LIST, NULL)) != NULL)
				lx_list(buf, c.name, vsd);
			break;
		case DEFN_HISTORY:
			/* A stopped history does not move on. */
			if ((vsd = lx_stat(b, v, VS_STYPE_HISTORY, NULL)) != NULL)
				(void)stat_history_read(vsd, d->on ? now_ns :
				    d->stopped_ns, lx_history_one, &c);
			break;
		case DEFN_RAW:
			if ((vsd = lx_stat(b, v, VS_STYPE_RAW, NULL)) != NULL)
				(void)stat_raw_read(vsd, lx_raw_one, &c);
			break;
		default:
			break;
		}
	}
	return sbuf_error(buf) != 0 ? -sbuf_error(buf) : 0;
}
