/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * m_scrape.c: io.statsd.Scrape — the kstats a selector and a class
 * pattern choose, rendered as kstat(1M) -j or -p text, Linux data lines
 * (with the same lines as data), or flat data, in pages (varlink.h): the page walk (m_walk.c) takes the
 * kstats in kstat's order from the registry's index, and each is
 * rendered as it comes, until the page's bytes or its slice of work are
 * spent; the next page resumes after the last one sent, however the
 * chain changed meanwhile. The reply is built as text, its values typed
 * by the renderer (render_kstat.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <statsd/kstat.h>
#include <statsd/sbuf.h>

#include "clock.h"
#include "control.h"
#include "daemon.h"
#include "expo.h"
#include "methods.h"
#include "registry.h"
#include "render_kstat.h"
#include "render_linux.h"
#include "rthread.h"
#include "rview.h"
#include "stat_scalar.h"
#include "statsd_line.h"
#include "view.h"

/*
 * What rendering a kstat costs, in slice units: a base, and its bytes.
 * The renderer writes a byte in a few nanoseconds, a unit is about four.
 */
#define M_COST_RENDER	4096u
#define M_COST_BYTE	2u

const struct vl_field m_scrape_params[] = {
	VLF_STR("format", true, 16),
	VLF_STR("selector", true, 1024),
	VLF_STR("class", true, 255),
	VLF_ARRAY("tags", true, VL_STRING, SL_PATH_TAGS_MAX, 1, 255),
	VLF_INT("interval_ms", true, 1, 3600000),
	VLF_INT("count", true, 1, INT32_MAX),
	M_CURSOR_FIELD,
	VLF_END
};

enum m_fmt { M_JSON, M_KSTAT, M_LINUX, M_FLAT, M_PROM, M_OM, M_NFMT };

static const char *const m_fmt_names[M_NFMT] = {
	[M_JSON] = "json", [M_KSTAT] = "kstat", [M_LINUX] = "linux",
	[M_FLAT] = "flat", [M_PROM] = "prometheus", [M_OM] = "openmetrics",
};

struct m_scrape {
	enum m_fmt		 fmt;
	bool			 has_sel;
	struct ks_selector	 sel;
	struct ks_pattern	 cls;
	/* tags a statsd series must carry, as path segments (escaped) */
	char			 tags[SL_PATH_TAGS_MAX][SL_PATH_MAX + 1];
	unsigned		 ntags;
	struct sbuf		*text;		/* kstat's text, data lines */
	struct sbuf		*items;		/* json and flat: the array */
	struct sbuf		*one;		/* one kstat's data lines */
	struct sbuf		*jtext;		/* text, as a JSON string:
						 * escaped by the reader
						 * thread (NULL: not yet) */
	bool			 final;		/* m_scrape_finish() done */
	size_t			 nitems;
	struct ksfmt_out	 out;
	uint64_t		 now;
};

static void
m_scrape_done(struct m_scrape *s)
{
	ksfmt_done(&s->out);
	if (s->has_sel)
		ks_selector_done(&s->sel);
	ks_pattern_done(&s->cls);
	sbuf_delete(s->text);
	sbuf_delete(s->items);
	sbuf_delete(s->one);
	sbuf_delete(s->jtext);
}

static const struct ks_selector *
m_sel(const struct m_scrape *s)
{
	return s->has_sel ? &s->sel : NULL;
}

/* What matching a kstat's names against the patterns may cost. */
static uint64_t
m_choose_cost(const struct m_scrape *s)
{
	/* A tag is compared with each segment of the path. */
	uint64_t c = ks_pattern_cost(&s->cls, KSTAT_STRLEN) +
	    (uint64_t)s->ntags * (SL_PATH_MAX / 8);

	if (s->has_sel)
		c += ks_pattern_cost(&s->sel.f[KS_F_MODULE], KSTAT_STRLEN) +
		    ks_pattern_cost(&s->sel.f[KS_F_INSTANCE], 11) +
		    ks_pattern_cost(&s->sel.f[KS_F_NAME], KSTAT_STRLEN);
	return c;
}

/* Does a kstat of header h carry every tag asked for (none asked:
 * yes)? */
static bool
m_tags_match(const struct m_scrape *s, const struct kstat_hdr *h)
{
	unsigned i;

	for (i = 0; i < s->ntags; i++)
		if (!sl_path_has_tag(h->path, s->tags[i]))
			return false;
	return true;
}

/* A JSON string value into sb. */
static void
m_jstr(struct sbuf *sb, const char *s)
{
	stat_json_string(sb, s, strlen(s));
}

/*
 * One item of the reply's "kstats" (kstat -j's object) or "flat" (the
 * kstat's flat statistics as data, for readers that render them:
 * statsctl renders kstat(1M)'s forms from them with render_kstat.c, its
 * times and class apart, as the reader selects among them itself): typed
 * values, written by the renderer straight into the reply.
 */
static int
m_item(struct m_scrape *s, const struct kstat_hdr *h,
    const struct ksfmt_stat *st, size_t n)
{
	int r;

	if (s->nitems++ > 0)
		sbuf_putc(s->items, ',');
	r = ksfmt_json_kstat(s->items, s->fmt == M_FLAT, h, st, n, m_sel(s));
	return r < 0 ? r : 0;
}

/*
 * Render one kstat (its header h, its view v) in the scrape's format;
 * *ret_nstats gets how many flat statistics the statistic pattern was
 * run on.
 * Returns: whether it was shown (some statistic selected; flat: always);
 * -ENOMEM.
 */
static int
m_render(struct m_scrape *s, const struct kstat_hdr *h,
    const struct ks_view *pv, size_t *ret_nstats)
{
	const struct ks_selector *sel = m_sel(s);
	const struct ksfmt_stat *st;
	struct ks_view v = *pv;
	size_t n = 0;
	int r = 0;

	*ret_nstats = 0;
	switch (s->fmt) {
	case M_LINUX:
		/* Only kstats with definitions have data lines, and a
		 * heading. */
		sbuf_clear(s->one);
		r = linux_data_format(s->one, v.sb, v.names, v.nnames, s->now);
		if (r < 0 || sbuf_finish(s->one) != 0 || sbuf_len(s->one) <= 0)
			return r < 0 ? r : 0;
		sbuf_printf(s->text, "# %s:%d:%s\n", h->module,
		    (int)h->instance, h->name);
		sbuf_cat(s->text, sbuf_data(s->one));
		/* And as data: the item, its lines typed. */
		if (s->nitems++ > 0)
			sbuf_putc(s->items, ',');
		ksfmt_json_names(s->items, h);
		sbuf_cat(s->items, ",\"lines\":");
		r = linux_data_json(s->items, v.sb, v.names, v.nnames, s->now);
		sbuf_putc(s->items, '}');
		return r < 0 ? r : 1;
	case M_FLAT:
		r = ksfmt_view_stats(&s->out, &v, false, false, &st, &n);
		if (r == 0)
			r = m_item(s, v.hdr, st, n);
		*ret_nstats = n;
		return r < 0 ? r : 1;
	case M_KSTAT:
		r = ksfmt_view(&s->out, &v, sel);
		*ret_nstats = r > 0 ? (size_t)r : 0;
		return r <= 0 ? r : 1;
	case M_JSON:
		r = ksfmt_view_stats(&s->out, &v, true, false, &st, &n);
		if (r == 0)
			r = ksfmt_list(&s->out, v.hdr, st, n, sel);
		if (r <= 0)
			return r;
		*ret_nstats = 2 * n;	/* for the text and the item */
		r = m_item(s, v.hdr, st, n);
		return r < 0 ? r : 1;
	case M_PROM:
	case M_OM:	/* m_scrape_prom() */
	case M_NFMT:
		break;
	}
	return 0;
}

/* The page's text made final (-j's array closes on the last page, whose
 * cursor is NULL) and escaped as a JSON string into s->jtext, where the
 * format has a text. Returns: 0; -ENOMEM. */
static int
m_scrape_finish(struct m_scrape *s, const char *cursor)
{
	size_t len, room;

	s->final = true;
	if (s->fmt == M_JSON && cursor == NULL)
		(void)ksfmt_end(&s->out);
	if (sbuf_finish(s->text) != 0 || sbuf_finish(s->items) != 0)
		return -ENOMEM;
	if (s->fmt == M_FLAT)
		return 0;
	/* Room for the escapes of a Prometheus text: two quotes and a
	 * newline in a series of some 40 bytes. */
	len = (size_t)sbuf_len(s->text);
	room = len + len / 8 + 64;
	s->jtext = sbuf_new(NULL, NULL, room > INT32_MAX ? 0 : (int)room,
	    SBUF_AUTOEXTEND);
	if (s->jtext == NULL)
		return -ENOMEM;
	stat_json_string(s->jtext, sbuf_data(s->text), len);
	return sbuf_finish(s->jtext) != 0 ? -ENOMEM : 0;
}

/* The page's reply, from what was rendered, with the next page's cursor
 * (NULL: the last page). The text is escaped here unless the reader
 * thread did (m_scrape_finish()): on the loop, the page is only copied
 * once, into the reply, between the small parts made here. */
static void
m_scrape_answer(struct vl_call *call, struct m_scrape *s, const char *cursor)
{
	bool items = s->fmt == M_JSON || s->fmt == M_FLAT ||
	    s->fmt == M_LINUX;
	struct sbuf *head = sbuf_new_auto(), *mid = sbuf_new_auto();
	struct sbuf *end = sbuf_new_auto();
	struct iovec v[5];
	size_t n = 0;

	if (head == NULL || mid == NULL || end == NULL ||
	    (!s->final && m_scrape_finish(s, cursor) < 0) ||
	    varlink_page_next(call, cursor) < 0)
		goto nomem;
	/* {"format":..,"kcid":..[,"kstats":[ items ]][,"text":" text "]
	 * [,"cursor":..]} */
	sbuf_printf(head, "{\"format\":\"%s\",\"kcid\":%lld",
	    m_fmt_names[s->fmt], (long long)m_kcid(call));
	if (items) {
		sbuf_cat(head, s->fmt == M_JSON ? ",\"kstats\":[" :
		    s->fmt == M_FLAT ? ",\"flat\":[" : ",\"linux\":[");
		sbuf_putc(mid, ']');
	}
	if (s->jtext != NULL)
		sbuf_cat(mid, ",\"text\":");
	if (cursor != NULL) {
		sbuf_cat(end, ",\"cursor\":");
		m_jstr(end, cursor);
	}
	sbuf_putc(end, '}');
	if (sbuf_finish(head) != 0 || sbuf_finish(mid) != 0 ||
	    sbuf_finish(end) != 0)
		goto nomem;
	v[n++] = (struct iovec){ sbuf_data(head), (size_t)sbuf_len(head) };
	if (items)
		v[n++] = (struct iovec){ sbuf_data(s->items),
		    (size_t)sbuf_len(s->items) };
	v[n++] = (struct iovec){ sbuf_data(mid), (size_t)sbuf_len(mid) };
	if (s->jtext != NULL)
		v[n++] = (struct iovec){ sbuf_data(s->jtext),
		    (size_t)sbuf_len(s->jtext) };
	v[n++] = (struct iovec){ sbuf_data(end), (size_t)sbuf_len(end) };
	(void)varlink_reply_textv(call, v, n);
	goto out;
nomem:
	varlink_error_errno(call, ENOMEM, "scrape");
out:
	sbuf_delete(head);
	sbuf_delete(mid);
	sbuf_delete(end);
}

/* Parse the call into s and w. Returns: 0; -errno (answered). */
static int
m_scrape_init(struct vl_call *call, json_t *params, struct m_scrape *s,
    struct m_walk *w)
{
	const char *format = varlink_str(params, "format", "json");
	const char *seltext = varlink_str(params, "selector", NULL);
	struct input_error kerr;
	int f;

	memset(s, 0, sizeof(*s));
	s->cls.any = true;
	for (f = 0; f < M_NFMT; f++)
		if (strcmp(format, m_fmt_names[f]) == 0)
			break;
	if (f == M_NFMT) {
		varlink_error_value(call, "format", "json, kstat, linux, "
		    "flat, prometheus or openmetrics");
		return -EINVAL;
	}
	s->fmt = (enum m_fmt)f;
	memset(&kerr, 0, sizeof(kerr));
	if (seltext != NULL) {
		if (ks_selector_parse(&s->sel, seltext, &kerr) < 0) {
			varlink_error_value(call, "selector", "%s", kerr.msg);
			return -EINVAL;
		}
		s->has_sel = true;
		w->module = ks_pattern_literal(&s->sel.f[KS_F_MODULE]);
		w->instance = m_literal_instance(&s->sel.f[KS_F_INSTANCE]);
		w->name = ks_pattern_literal(&s->sel.f[KS_F_NAME]);
	}
	if (ks_pattern_init(&s->cls, varlink_str(params, "class", NULL),
	    &kerr) < 0) {
		s->cls.any = true;
		m_scrape_done(s);
		varlink_error_value(call, "class", "%s", kerr.msg);
		return -EINVAL;
	}
	{
		json_t *a = json_object_get(params, "tags"), *e;
		size_t i;

		json_array_foreach(a, i, e) {
			const char *t = json_string_value(e);

			if (sl_seg_encode(t, strlen(t), s->tags[s->ntags],
			    sizeof(s->tags[0])) < 0) {
				m_scrape_done(s);
				varlink_error_value(call, "tags", "a tag "
				    "longer than a kstat2 path");
				return -EINVAL;
			}
			s->ntags++;
		}
	}
	s->text = sbuf_new_auto();
	s->items = sbuf_new_auto();
	s->one = sbuf_new_auto();
	if (s->text == NULL || s->items == NULL || s->one == NULL) {
		m_scrape_done(s);
		varlink_error_errno(call, ENOMEM, "scrape");
		return -ENOMEM;
	}
	s->now = clock_now_ns();
	return 0;
}

/* A page rendered by the reader thread (rthread.h) while the call
 * waits, parked: the Prometheus formats through the exposition, the
 * others through a walk of the view in kstat(1M)'s order. */
struct m_sjob {
	struct m_rcall		 rc;
	struct m_scrape		 s;
	bool			 prom;
	struct expo		 e;		/* prom */
	struct m_rwalk		 w;		/* the others */
	struct prom_rules	*rules;		/* the view's stems: the
						 * configuration's */
	struct kstat_hdr	 kh;
	size_t			 bytes;		/* the page's */
	int			 r;		/* what rendering gave */
};

static void
m_sjob_free(struct m_sjob *m)
{
	if (m->prom)
		expo_done(&m->e);
	prom_rules_unref(m->rules);
	m_scrape_done(&m->s);
	free(m);
}

static void
m_sjob_rc_free(struct m_rcall *rc)
{
	m_sjob_free((struct m_sjob *)(void *)rc);
}

/* The page's reply: its text, and where the next one goes on. */
static void
m_sjob_answer(struct vl_call *call, struct m_sjob *m)
{
	char c[EXPO_CURSOR_MAX + 8];

	if (m->r < 0) {
		varlink_error_errno(call, -m->r, "scrape");
		return;
	}
	if (!m->prom) {
		m_scrape_answer(call, &m->s, m_rwalk_cursor(&m->w));
	} else if (!m->e.done) {
		memcpy(c, "prom:", 5);
		expo_cursor(&m->e, c + 5, sizeof(c) - 5);
		m_scrape_answer(call, &m->s, c);
	} else {
		m_scrape_answer(call, &m->s, NULL);
	}
}

/* On the reader thread: a page of the exposition. */
static void
m_prom_run(struct rjob *j, struct rview *rv, struct pub_reader *rd)
{
	struct m_sjob *m = (struct m_sjob *)(void *)j;

	(void)rd;	/* the thread's section is open */
	m->e.src.rv = rv;
	m->r = expo_page(&m->e, m->bytes, VL_SLICE_UNITS);
	/* Escaped here, not on the loop: as much again as rendering. */
	if (m->r >= 0)
		m->r = m_scrape_finish(&m->s, NULL);
}

/* On the reader thread: a page of the other formats, as m_scrape() makes
 * one from the registry, from the view. */
static void
m_walk_run(struct rjob *j, struct rview *rv, struct pub_reader *rd)
{
	struct m_sjob *m = (struct m_sjob *)(void *)j;
	struct m_scrape *s = &m->s;
	struct kstat_hdr *h = &m->kh;
	const struct rv_ent *e;
	struct ks_view v;
	uint64_t cost = m_choose_cost(s);
	size_t nstats, before, after;
	int r;

	(void)rd;	/* the thread's section is open */
	if ((r = rview_refresh(rv, m->rules)) < 0) {
		m->r = r;
		return;
	}
	m_rwalk_start(&m->w, rv);
	while ((e = m_rwalk_next(&m->w, cost)) != NULL) {
		if (!rview_visible(e, &m->rc.peer) ||
		    rview_header(rv, e, h) < 0 ||
		    (h->flags & KSTAT_FLAG_DORMANT) != 0 || (s->has_sel &&
		    !ks_selector_match_kstat(&s->sel, h)) ||
		    !ks_pattern_match(&s->cls, h->class_))
			continue;
		/* Gone since, or kept busy, or its template not published
		 * yet: not in this page. */
		if ((r = rview_read(rv, e, h, &v)) == -ENOMEM)
			break;
		if (r < 0 || !m_tags_match(s, h)) {
			r = 0;
			continue;
		}
		before = (size_t)sbuf_len(s->text) + (size_t)sbuf_len(s->items);
		r = m_render(s, h, &v, &nstats);
		if (r == 1 && (sbuf_error(s->text) != 0 ||
		    sbuf_error(s->items) != 0))
			r = -ENOMEM;
		if (r < 0)
			break;
		after = (size_t)sbuf_len(s->text) + (size_t)sbuf_len(s->items);
		m_rwalk_charge(&m->w, M_COST_RENDER + M_COST_BYTE *
		    (after - before) + (s->has_sel ? ks_pattern_cost(
		    &s->sel.f[KS_F_STATISTIC], 64) * nstats : 0));
		if (r == 0)
			continue;
		m->w.sent++;
		if (after >= m->bytes)
			m_rwalk_cut(&m->w, e);
	}
	m->r = r < 0 ? r : m_scrape_finish(s, m_rwalk_cursor(&m->w));
}

static void
m_sjob_rc_answer(struct vl_call *call, struct m_rcall *rc)
{
	m_sjob_answer(call, (struct m_sjob *)(void *)rc);
}

/* A job for the page of call, s taken over (left as m_scrape_init()
 * begins one). Returns: it; NULL (answered). */
static struct m_sjob *
m_sjob_new(struct vl_call *call, struct m_scrape *s)
{
	struct m_sjob *m = calloc(1, sizeof(*m));

	if (m == NULL) {
		m_scrape_done(s);
		varlink_error_errno(call, ENOMEM, "scrape");
		return NULL;
	}
	/* Its patterns and buffers are on the heap: the copy holds them. */
	m->s = *s;
	memset(s, 0, sizeof(*s));
	s->cls.any = true;
	m->rc.peer = call->conn->peer;
	m->rc.answer = m_sjob_rc_answer;
	m->rc.free = m_sjob_rc_free;
	return m;
}

/* The formats other than Prometheus', a page from the reader thread. */
static void
m_scrape_walk_job(struct vl_call *call, json_t *params, struct m_scrape *s,
    const struct m_walk *w)
{
	struct m_sjob *m;

	if ((m = m_sjob_new(call, s)) == NULL)
		return;
	m->w.module = w->module;
	m->w.instance = w->instance;
	m->w.name = w->name;
	if (m_rwalk_prepare(call, params, &m->w) < 0) {
		m_sjob_free(m);
		return;
	}
	/* The renderer's count of kstats shown goes on from the pages
	 * before: -j's array opens on the first page only. */
	ksfmt_begin(&m->s.out, m->s.text, m->s.fmt == M_JSON ? KSFMT_JSON :
	    KSFMT_PARSEABLE);
	m->s.out.shown = (size_t)m->w.sent;
	m->bytes = varlink_page_size(call) / (m->s.fmt == M_JSON ? 4 : 2);
	m->rules = prom_rules_ref(call->d->cfg.mapping);
	m->rc.job.run = m_walk_run;
	m_rcall_submit(call, params, &m->rc);
}

/*
 * The Prometheus text and OpenMetrics formats (expo.h): pages in the
 * exposition's own order, by stem, whose cursor is "prom:<last stem>",
 * each rendered by the reader thread from the store (the loop's own view
 * of it when statsd runs without one). s is taken over.
 */
static void
m_scrape_prom(struct vl_call *call, json_t *params, struct m_scrape *s)
{
	const char *cursor = varlink_str(params, "cursor", NULL);
	struct statsd *d = call->d;
	struct expo_src src = {
		.rv = d->expo_rv,
		.rules = d->cfg.mapping,
		.quantiles = d->cfg.http_quantiles,
		.totals = &d->expo_tot,
	};
	struct m_sjob *m;

	if ((m = m_sjob_new(call, s)) == NULL)
		return;
	if (expo_init(&m->e, &src, m->s.text, m->s.fmt == M_OM,
	    &m->rc.peer) < 0) {
		m_sjob_free(m);
		varlink_error_errno(call, ENOMEM, "scrape");
		return;
	}
	m->prom = true;
	if (cursor != NULL && (strncmp(cursor, "prom:", 5) != 0 ||
	    expo_cursor_set(&m->e, cursor + 5) < 0)) {
		m_sjob_free(m);
		varlink_error_value(call, "cursor", "not a cursor of %s",
		    call->method->name);
		return;
	}
	m->e.sel = m_sel(&m->s);
	m->e.cls = &m->s.cls;
	m->bytes = varlink_page_size(call) / 2;
	if (cursor == NULL)
		d->expo_tot.scrapes++;
	if (d->rthread == NULL) {
		m->r = expo_page(&m->e, m->bytes, VL_SLICE_UNITS);
		m_sjob_answer(call, m);
		m_sjob_free(m);
		return;
	}
	m->rc.job.run = m_prom_run;
	m_rcall_submit(call, params, &m->rc);
}

void
m_scrape(struct vl_call *call, json_t *params)
{
	struct m_walk w = { .instance = -1 };
	struct m_scrape s;
	struct reg_kstat *k;
	struct ks_view v;
	uint64_t cost;
	size_t budget, nstats, before, after;
	int r = 0;

	if (m_scrape_init(call, params, &s, &w) < 0)
		return;
	if (s.fmt == M_PROM || s.fmt == M_OM) {
		m_scrape_prom(call, params, &s);
		m_scrape_done(&s);
		return;
	}
	if (call->d->rthread != NULL) {
		m_scrape_walk_job(call, params, &s, &w);
		m_scrape_done(&s);
		return;
	}
	if (m_walk_start(call, params, &w) < 0) {
		m_scrape_done(&s);
		return;
	}
	/* The renderer's count of kstats shown goes on from the pages
	 * before: -j's array opens on the first page only. */
	ksfmt_begin(&s.out, s.text, s.fmt == M_JSON ? KSFMT_JSON :
	    KSFMT_PARSEABLE);
	s.out.shown = (size_t)w.sent;
	/* The page's text and values, with room for the escapes of the
	 * text in the reply. */
	budget = varlink_page_size(call) / (s.fmt == M_JSON ? 4 : 2);
	cost = m_choose_cost(&s);
	while ((k = m_walk_next(&w, cost)) != NULL) {
		if (k->dormant || !view_kstat_visible(&call->conn->peer, k) ||
		    (s.has_sel && !ks_selector_match_kstat(&s.sel,
		    &k->hdr)) || !ks_pattern_match(&s.cls, k->hdr.class_) ||
		    !m_tags_match(&s, &k->hdr))
			continue;
		before = (size_t)sbuf_len(s.text) + (size_t)sbuf_len(s.items);
		view_kstat(k, registry_blob_peek(k), &v);
		r = m_render(&s, &k->hdr, &v, &nstats);
		if (r == 1 && (sbuf_error(s.text) != 0 ||
		    sbuf_error(s.items) != 0))
			r = -ENOMEM;
		if (r < 0)
			break;
		after = (size_t)sbuf_len(s.text) + (size_t)sbuf_len(s.items);
		/* What rendering cost: a base, its bytes, and the statistic
		 * pattern run on each statistic (names of up to 64). */
		m_walk_charge(&w, M_COST_RENDER + M_COST_BYTE *
		    (after - before) + (s.has_sel ? ks_pattern_cost(
		    &s.sel.f[KS_F_STATISTIC], 64) * nstats : 0));
		if (r == 0)
			continue;
		w.sent++;
		if (after >= budget)
			m_walk_cut(&w, k);
	}
	if (r < 0)
		varlink_error_errno(call, r, "scrape");
	else
		m_scrape_answer(call, &s, m_walk_cursor(&w));
	m_scrape_done(&s);
}
