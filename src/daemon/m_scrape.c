/*
 * m_scrape.c: io.statsd.Scrape — the kstats a selector and a class
 * pattern choose, rendered as kstat(1M) -j or -p text, Linux data lines,
 * or flat data, in pages (varlink.h): the page walk (m_walk.c) takes the
 * kstats in kstat's order from the registry's index, and each is
 * rendered as it comes, until the page's bytes or its slice of work are
 * spent; the next page resumes after the last one sent, however the
 * chain changed meanwhile. The reply is built as text.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <statsd/kstat.h>
#include <statsd/sbuf.h>

#include "clock.h"
#include "control.h"
#include "daemon.h"
#include "methods.h"
#include "registry.h"
#include "render_kstat.h"
#include "render_linux.h"

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
	VLF_INT("interval_ms", true, 1, 3600000),
	VLF_INT("count", true, 1, INT32_MAX),
	M_CURSOR_FIELD,
	VLF_END
};

enum m_fmt { M_JSON, M_KSTAT, M_LINUX, M_FLAT, M_NFMT };

static const char *const m_fmt_names[M_NFMT] = {
	[M_JSON] = "json", [M_KSTAT] = "kstat", [M_LINUX] = "linux",
	[M_FLAT] = "flat",
};

struct m_scrape {
	enum m_fmt		 fmt;
	bool			 has_sel;
	struct ks_selector	 sel;
	struct ks_pattern	 cls;
	struct sbuf		*text;		/* kstat's text, data lines */
	struct sbuf		*items;		/* json and flat: the array */
	struct sbuf		*one;		/* one kstat's data lines */
	size_t			 nitems;
	struct ksfmt_out	 out;
	uint64_t		 now;
};

static void
m_scrape_done(struct m_scrape *s)
{
	if (s->has_sel)
		ks_selector_done(&s->sel);
	ks_pattern_done(&s->cls);
	sbuf_delete(s->text);
	sbuf_delete(s->items);
	sbuf_delete(s->one);
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
	uint64_t c = ks_pattern_cost(&s->cls, KSTAT_STRLEN);

	if (s->has_sel)
		c += ks_pattern_cost(&s->sel.f[KS_F_MODULE], KSTAT_STRLEN) +
		    ks_pattern_cost(&s->sel.f[KS_F_INSTANCE], 11) +
		    ks_pattern_cost(&s->sel.f[KS_F_NAME], KSTAT_STRLEN);
	return c;
}

/* kstat -j's object for one kstat, or NULL if none of its statistics is
 * selected. */
static json_t *
m_json_item(const struct ks_view *v, const struct ks_selector *sel)
{
	const struct kstat_hdr *h = v->hdr;
	json_t *data = m_flat_json(v, sel);
	char t[40];

	if (data == NULL)
		return NULL;
	ksfmt_time(t, sizeof(t), h->snaptime);
	return json_pack("{s:s, s:i, s:s, s:s, s:i, s:o, s:o}",
	    "module", h->module, "instance", (int)h->instance, "name", h->name,
	    "class", h->class_, "type", (int)h->type, "snaptime",
	    m_json_parse(t, JSON_DECODE_ANY), "data", data);
}

/*
 * The kstat's flat statistics as data, for readers that render them
 * (statsctl renders kstat(1M)'s forms from them with render_kstat.c):
 * with those of its statistics the selector picks; its times and class
 * apart, as the reader selects among them itself. Values are kstat's
 * exact text.
 */
static json_t *
m_flat_item(const struct ks_view *v, const struct ks_selector *sel,
    size_t *ret_nstats)
{
	const struct kstat_hdr *h = v->hdr;
	struct ksfmt_stat *st;
	json_t *stats;
	size_t j, ns;

	if (ksfmt_stats(v, &st, &ns) < 0)
		return NULL;
	*ret_nstats = ns;
	stats = json_array();
	for (j = 0; j < ns; j++)
		if (sel == NULL || ks_selector_match_stat(sel, st[j].name))
			json_array_append_new(stats, json_pack(
			    "{s:s, s:s, s:b, s:b, s:b}", "name", st[j].name,
			    "value", st[j].value, "string", st[j].quoted,
			    "array", st[j].array, "counter", st[j].counter));
	ksfmt_stats_free(st, ns);
	return json_pack("{s:s, s:i, s:s, s:s, s:s, s:I, s:I, s:o}",
	    "module", h->module, "instance", (int)h->instance, "name", h->name,
	    "class", h->class_, "type", ks_type_id(h->type), "crtime",
	    (json_int_t)h->crtime, "snaptime", (json_int_t)h->snaptime,
	    "stats", stats);
}

/* Append one array item's text. Returns: 0; -ENOMEM. */
static int
m_item_add(struct m_scrape *s, json_t *item)
{
	char *t = json_dumps(item, JSON_COMPACT);

	json_decref(item);
	if (t == NULL)
		return -ENOMEM;
	sbuf_printf(s->items, "%s%s", s->nitems++ > 0 ? "," : "", t);
	free(t);
	return 0;
}

/*
 * Render one kstat in the scrape's format; *ret_nstats gets how many
 * flat statistics the statistic pattern was run on.
 * Returns: whether it was shown (some statistic selected; flat: always);
 * -ENOMEM.
 */
static int
m_render(struct m_scrape *s, const struct reg_kstat *k, size_t *ret_nstats)
{
	const struct ks_selector *sel = m_sel(s);
	struct ksfmt_stat *st;
	struct ks_view v;
	json_t *item;
	size_t ns;
	int r = 0;

	*ret_nstats = 0;
	m_view(k, registry_blob_peek(k), &v);
	switch (s->fmt) {
	case M_LINUX:
		/* Only kstats with definitions have data lines, and a
		 * heading. */
		sbuf_clear(s->one);
		r = linux_data_format(s->one, v.sb, v.names, v.nnames, s->now);
		if (r < 0 || sbuf_finish(s->one) != 0 || sbuf_len(s->one) <= 0)
			return r < 0 ? r : 0;
		sbuf_printf(s->text, "# %s:%d:%s\n", k->hdr.module,
		    (int)k->hdr.instance, k->hdr.name);
		sbuf_cat(s->text, sbuf_data(s->one));
		return 1;
	case M_FLAT:
		item = m_flat_item(&v, sel, ret_nstats);
		if (item == NULL)
			return -ENOMEM;
		r = m_item_add(s, item);
		return r < 0 ? r : 1;
	case M_JSON:
		item = m_json_item(&v, sel);
		if (item != NULL && (r = m_item_add(s, item)) < 0)
			return r;
		/* FALLTHROUGH */
	case M_KSTAT:
		if (ksfmt_stats(&v, &st, &ns) < 0)
			return -ENOMEM;
		*ret_nstats = 2 * ns;	/* for the text and the item */
		r = ksfmt_kstat(&s->out, v.hdr, st, ns, sel);
		ksfmt_stats_free(st, ns);
		return r < 0 ? r : r > 0;
	case M_NFMT:
		break;
	}
	return 0;
}

/* The page's reply, from what was rendered. */
static void
m_scrape_answer(struct vl_call *call, struct m_scrape *s,
    const struct m_walk *w)
{
	const char *cursor = m_walk_cursor(w);
	struct sbuf *msg = sbuf_new_auto();
	json_t *text;
	char *quoted = NULL;

	/* -j's array closes on the last page. */
	if (s->fmt == M_JSON && cursor == NULL)
		(void)ksfmt_end(&s->out);
	if (sbuf_finish(s->text) != 0 || sbuf_finish(s->items) != 0 ||
	    msg == NULL || varlink_page_next(call, cursor) < 0) {
		sbuf_delete(msg);
		varlink_error_errno(call, ENOMEM, "scrape");
		return;
	}
	sbuf_printf(msg, "{\"format\":\"%s\",\"kcid\":%lld", m_fmt_names[s->fmt],
	    (long long)m_kcid(call));
	if (s->fmt == M_JSON || s->fmt == M_FLAT)
		sbuf_printf(msg, ",\"%s\":[%s]", s->fmt == M_JSON ? "kstats" :
		    "flat", sbuf_data(s->items));
	if (s->fmt != M_FLAT) {
		text = json_string(sbuf_data(s->text));
		quoted = text != NULL ? json_dumps(text, JSON_ENCODE_ANY) :
		    NULL;
		json_decref(text);
		if (quoted == NULL) {
			sbuf_delete(msg);
			varlink_error_errno(call, ENOMEM, "scrape");
			return;
		}
		sbuf_printf(msg, ",\"text\":%s", quoted);
		free(quoted);
	}
	/* The cursor has no character JSON escapes: names are printable
	 * and hold no quote or backslash... but be sure. */
	if (cursor != NULL) {
		text = json_string(cursor);
		quoted = text != NULL ? json_dumps(text, JSON_ENCODE_ANY) :
		    NULL;
		json_decref(text);
		if (quoted == NULL) {
			sbuf_delete(msg);
			varlink_error_errno(call, ENOMEM, "scrape");
			return;
		}
		sbuf_printf(msg, ",\"cursor\":%s", quoted);
		free(quoted);
	}
	sbuf_putc(msg, '}');
	if (sbuf_finish(msg) != 0) {
		sbuf_delete(msg);
		varlink_error_errno(call, ENOMEM, "scrape");
		return;
	}
	varlink_reply_text(call, sbuf_data(msg), (size_t)sbuf_len(msg));
	sbuf_delete(msg);
}

/* Parse the call into s and w. Returns: 0; -errno (answered). */
static int
m_scrape_init(struct vl_call *call, json_t *params, struct m_scrape *s,
    struct m_walk *w)
{
	const char *format = varlink_str(params, "format", "json");
	const char *seltext = varlink_str(params, "selector", NULL);
	struct ks_error kerr;
	int f;

	memset(s, 0, sizeof(*s));
	s->cls.any = true;
	for (f = 0; f < M_NFMT; f++)
		if (strcmp(format, m_fmt_names[f]) == 0)
			break;
	if (f == M_NFMT) {
		varlink_error_value(call, "format", "json, kstat, linux or "
		    "flat");
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

void
m_scrape(struct vl_call *call, json_t *params)
{
	struct m_walk w = { .instance = -1 };
	struct m_scrape s;
	struct reg_kstat *k;
	uint64_t cost;
	size_t budget, nstats, before, after;
	int r = 0;

	if (m_scrape_init(call, params, &s, &w) < 0)
		return;
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
		if (k->dormant || !m_kstat_visible(&call->conn->peer, k) ||
		    (s.has_sel && !ks_selector_match_kstat(&s.sel,
		    &k->hdr)) || !ks_pattern_match(&s.cls, k->hdr.class_))
			continue;
		before = (size_t)sbuf_len(s.text) + (size_t)sbuf_len(s.items);
		r = m_render(&s, k, &nstats);
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
		m_scrape_answer(call, &s, &w);
	m_scrape_done(&s);
}
