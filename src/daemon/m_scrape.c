/*
 * m_scrape.c: io.statsd.Scrape — the kstats a selector and a class
 * pattern choose, rendered as kstat(1M) -j or -p text, Linux data lines,
 * or flat data, in slices: the choice is made over a walk that survives
 * creates and deletes (registry_kstat_next), then the chosen kstats are
 * put in kstat's order and rendered one by one, each slice within its
 * budget, so that a scrape of the whole store never holds the loop. The
 * reply is built as text and counts in the caller's buffered bytes while
 * it grows.
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
#include "quota.h"
#include "registry.h"
#include "render_kstat.h"
#include "render_linux.h"

#define M_COST_KSTAT	64u	/* looking at one kstat */
#define M_COST_RENDER	4096u	/* rendering one, besides its bytes */

const struct vl_field m_scrape_params[] = {
	VLF_STR("format", true, 16),
	VLF_STR("selector", true, 1024),
	VLF_STR("class", true, 255),
	VLF_INT("interval_ms", true, 1, 3600000),
	VLF_INT("count", true, 1, INT32_MAX),
	VLF_END
};

enum m_fmt { M_JSON, M_KSTAT, M_LINUX, M_FLAT };

static const char *const m_fmt_names[] = {
	[M_JSON] = "json", [M_KSTAT] = "kstat", [M_LINUX] = "linux",
	[M_FLAT] = "flat",
};

/* A chosen kstat: its handle, and its creation number to tell it from a
 * later kstat that got the same handle back after a restart. */
struct m_pick {
	uint32_t	 handle;
	uint64_t	 seq;
};

struct m_scrape {
	struct statsd		*d;
	struct conn		*conn;
	enum m_fmt		 fmt;
	bool			 has_sel;
	struct ks_selector	 sel;
	struct ks_pattern	 cls;
	bool			 sorted;
	uint64_t		 cursor;	/* the choosing walk */
	struct m_pick		*picks;
	size_t			 npicks, cpicks, next;
	struct sbuf		*text;		/* kstat's text, data lines */
	struct sbuf		*items;		/* json and flat: the array */
	struct sbuf		*one;		/* one kstat's data lines */
	size_t			 nitems;
	struct ksfmt_out	 out;
	size_t			 reserved;
};

static void
m_scrape_free(void *arg)
{
	struct m_scrape *s = arg;

	if (s == NULL)
		return;
	if (s->has_sel)
		ks_selector_done(&s->sel);
	ks_pattern_done(&s->cls);
	if (s->reserved > 0)
		(void)control_reserve(s->conn, -(int64_t)s->reserved, NULL);
	free(s->picks);
	sbuf_delete(s->text);
	sbuf_delete(s->items);
	sbuf_delete(s->one);
	free(s);
}

static const struct ks_selector *
m_sel(const struct m_scrape *s)
{
	return s->has_sel ? &s->sel : NULL;
}

/* What matching k's names against the patterns may cost. */
static uint64_t
m_choose_cost(const struct m_scrape *s, const struct reg_kstat *k)
{
	uint64_t c = M_COST_KSTAT + ks_pattern_cost(&s->cls,
	    strlen(k->hdr.class_));

	if (s->has_sel)
		c += ks_pattern_cost(&s->sel.f[KS_F_MODULE],
		    strlen(k->hdr.module)) +
		    ks_pattern_cost(&s->sel.f[KS_F_INSTANCE], 11) +
		    ks_pattern_cost(&s->sel.f[KS_F_NAME], strlen(k->hdr.name));
	return c;
}

static int
m_pick_add(struct m_scrape *s, const struct reg_kstat *k)
{
	if (s->npicks == s->cpicks) {
		size_t nc = s->cpicks > 0 ? 2 * s->cpicks : 64;
		void *p = realloc(s->picks, nc * sizeof(*s->picks));

		if (p == NULL)
			return -ENOMEM;
		s->picks = p;
		s->cpicks = nc;
	}
	s->picks[s->npicks].handle = k->handle;
	s->picks[s->npicks].seq = k->seq;
	s->npicks++;
	return 0;
}

/* The kstat a pick names, if it is still there and still visible. */
static struct reg_kstat *
m_pick_get(const struct vl_call *call, const struct m_pick *p)
{
	struct reg_kstat *k = registry_kstat_by_handle(call->d->reg,
	    p->handle);

	if (k == NULL || k->seq != p->seq || k->dormant ||
	    !m_kstat_visible(&call->conn->peer, k))
		return NULL;
	return k;
}

static int
m_pick_cmp(const void *a, const void *b, void *reg)
{
	const struct reg_kstat *x = registry_kstat_by_handle(reg,
	    ((const struct m_pick *)a)->handle);
	const struct reg_kstat *y = registry_kstat_by_handle(reg,
	    ((const struct m_pick *)b)->handle);

	return ks_hdr_cmp(&x->hdr, &y->hdr);
}

/* Put the picks in kstat(1M)'s order (what every format but Linux data
 * lines shows), dropping those gone since they were chosen. */
static void
m_picks_sort(const struct vl_call *call, struct m_scrape *s)
{
	size_t i, n = 0;

	for (i = 0; i < s->npicks; i++)
		if (m_pick_get(call, &s->picks[i]) != NULL)
			s->picks[n++] = s->picks[i];
	s->npicks = n;
	if (s->fmt != M_LINUX && n > 1)
		qsort_r(s->picks, n, sizeof(*s->picks), m_pick_cmp,
		    call->d->reg);
	s->sorted = true;
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

/* Render one kstat in the scrape's format; *ret_nstats gets how many
 * flat statistics the statistic pattern was run on. Returns: 0;
 * -ENOMEM. */
static int
m_render(struct m_scrape *s, const struct reg_kstat *k, uint64_t now,
    size_t *ret_nstats)
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
		r = linux_data_format(s->one, v.sb, v.names, v.nnames, now);
		if (r < 0 || sbuf_finish(s->one) != 0 || sbuf_len(s->one) <= 0)
			return r;
		sbuf_printf(s->text, "# %s:%d:%s\n", k->hdr.module,
		    (int)k->hdr.instance, k->hdr.name);
		sbuf_cat(s->text, sbuf_data(s->one));
		return 0;
	case M_FLAT:
		item = m_flat_item(&v, sel, ret_nstats);
		return item != NULL ? m_item_add(s, item) : -ENOMEM;
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
		return r < 0 ? r : 0;
	}
	return 0;
}

/* The reply's bytes so far, kept against the caller's buffered bytes and
 * max_output. Returns: 0; -EDQUOT with *why. */
static int
m_scrape_reserve(struct m_scrape *s, struct quota_refusal *why)
{
	size_t now = (size_t)sbuf_len(s->text) + (size_t)sbuf_len(s->items);

	if (now > s->d->cfg.max_output / 2) {
		why->limit = "max_output";
		why->value = s->d->cfg.max_output;
		return -EDQUOT;
	}
	if (now > s->reserved) {
		if (control_reserve(s->conn, (int64_t)(now - s->reserved),
		    why) < 0)
			return -EDQUOT;
		s->reserved = now;
	}
	return 0;
}

/* The whole reply, from what was rendered. */
static void
m_scrape_answer(struct vl_call *call, struct m_scrape *s)
{
	struct sbuf *msg = sbuf_new_auto();
	json_t *text;
	char *quoted = NULL;

	if (s->fmt == M_JSON || s->fmt == M_KSTAT)
		(void)ksfmt_end(&s->out);
	if (sbuf_finish(s->text) != 0 || sbuf_finish(s->items) != 0 ||
	    msg == NULL) {
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
	sbuf_putc(msg, '}');
	if (sbuf_finish(msg) != 0) {
		sbuf_delete(msg);
		varlink_error_errno(call, ENOMEM, "scrape");
		return;
	}
	/* From reserved to queued: the reply counts once. */
	(void)control_reserve(s->conn, -(int64_t)s->reserved, NULL);
	s->reserved = 0;
	varlink_reply_text(call, sbuf_data(msg), (size_t)sbuf_len(msg));
	sbuf_delete(msg);
}

static bool
m_scrape_step(struct vl_call *call, json_t *params, void *state,
    uint64_t budget)
{
	struct m_scrape *s = state;
	struct quota_refusal why;
	struct reg_kstat *k;
	uint64_t at = s->cursor, now = clock_now_ns();
	int r;

	(void)params;
	/* Choose. */
	while (!s->sorted &&
	    (k = registry_kstat_next(call->d->reg, &s->cursor)) != NULL) {
		if (!varlink_budget_take(&budget, m_choose_cost(s, k))) {
			s->cursor = at;
			return false;
		}
		at = s->cursor;
		if (k->dormant || !m_kstat_visible(&call->conn->peer, k) ||
		    (s->has_sel && !ks_selector_match_kstat(&s->sel,
		    &k->hdr)) || !ks_pattern_match(&s->cls, k->hdr.class_))
			continue;
		if (m_pick_add(s, k) < 0) {
			varlink_error_errno(call, ENOMEM, "scrape");
			return true;
		}
	}
	if (!s->sorted)
		m_picks_sort(call, s);
	/* Render. */
	while (s->next < s->npicks) {
		size_t before = (size_t)sbuf_len(s->text) +
		    (size_t)sbuf_len(s->items), nstats;

		if (budget == 0)
			return false;
		k = m_pick_get(call, &s->picks[s->next++]);
		if (k == NULL)
			continue;
		r = m_render(s, k, now, &nstats);
		if (r == 0 && (sbuf_error(s->text) != 0 ||
		    sbuf_error(s->items) != 0))
			r = -ENOMEM;
		if (r < 0) {
			varlink_error_errno(call, r, "scrape");
			return true;
		}
		if (m_scrape_reserve(s, &why) < 0) {
			varlink_error_limit(call, why.limit, (int64_t)why.value);
			return true;
		}
		/* What rendering cost: a base, its bytes, and the statistic
		 * pattern run on each statistic (names of up to 64). */
		(void)varlink_budget_take(&budget, M_COST_RENDER +
		    16 * ((size_t)sbuf_len(s->text) +
		    (size_t)sbuf_len(s->items) - before) +
		    (s->has_sel ? ks_pattern_cost(&s->sel.f[KS_F_STATISTIC],
		    64) * nstats : 0));
	}
	m_scrape_answer(call, s);
	return true;
}

void
m_scrape(struct vl_call *call, json_t *params)
{
	const char *format = varlink_str(params, "format", "json");
	const char *seltext = varlink_str(params, "selector", NULL);
	struct ks_error kerr;
	struct m_scrape *s;
	size_t f;

	for (f = 0; f < sizeof(m_fmt_names) / sizeof(m_fmt_names[0]); f++)
		if (strcmp(format, m_fmt_names[f]) == 0)
			break;
	if (f == sizeof(m_fmt_names) / sizeof(m_fmt_names[0])) {
		varlink_error_value(call, "format", "json, kstat, linux or "
		    "flat");
		return;
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		varlink_error_errno(call, ENOMEM, "scrape");
		return;
	}
	s->d = call->d;
	s->conn = call->conn;
	s->fmt = (enum m_fmt)f;
	s->cls.any = true;
	memset(&kerr, 0, sizeof(kerr));
	if (seltext != NULL) {
		if (ks_selector_parse(&s->sel, seltext, &kerr) < 0) {
			m_scrape_free(s);
			varlink_error_value(call, "selector", "%s", kerr.msg);
			return;
		}
		s->has_sel = true;
	}
	if (ks_pattern_init(&s->cls, varlink_str(params, "class", NULL),
	    &kerr) < 0) {
		s->cls.any = true;
		m_scrape_free(s);
		varlink_error_value(call, "class", "%s", kerr.msg);
		return;
	}
	s->text = sbuf_new_auto();
	s->items = sbuf_new_auto();
	s->one = sbuf_new_auto();
	if (s->text == NULL || s->items == NULL || s->one == NULL) {
		m_scrape_free(s);
		varlink_error_errno(call, ENOMEM, "scrape");
		return;
	}
	ksfmt_begin(&s->out, s->text, s->fmt == M_JSON ? KSFMT_JSON :
	    KSFMT_PARSEABLE);
	if (m_scrape_step(call, params, s, VL_SLICE_UNITS)) {
		m_scrape_free(s);
		return;
	}
	(void)varlink_defer(call, params, m_scrape_step, s, m_scrape_free);
}
