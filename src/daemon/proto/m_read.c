/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * m_read.c: the methods that read and change kstat data —
 * io.statsd.Chain, Lookup, Read, Write and Snapshot — and the helpers the
 * readers share (m_scrape.c too): views and the chain id.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <statsd/kstat.h>
#include <statsd/sbuf.h>

#include "b64.h"
#include "blob.h"
#include "control.h"
#include "crashpoint.h"
#include "daemon.h"
#include "engine.h"
#include "jdump.h"
#include "methods.h"
#include "quota.h"
#include "registry.h"
#include "render_kstat.h"
#include "render_prom.h"
#include "rview.h"
#include "stat_scalar.h"
#include "tostr.h"
#include "view.h"

#define M_NAME_FIELDS							\
	VLF_STR("module", false, KSTAT_STRLEN - 1),			\
	VLF_INT("instance", false, 0, INT32_MAX),			\
	VLF_STR("name", false, KSTAT_STRLEN - 1)

#define M_WATCH_FIELDS							\
	VLF_INT("interval_ms", true, 1, 3600000),			\
	VLF_INT("count", true, 1, INT32_MAX)

const struct vl_field m_read_chain_params[] = {
	VLF_BOOL("dormant", true),
	M_CURSOR_FIELD,
	VLF_END
};

const struct vl_field m_read_lookup_params[] = {
	VLF_STR("module", true, 255),
	VLF_INT("instance", true, -1, INT32_MAX),
	VLF_STR("name", true, 255),
	VLF_STR("class", true, 255),
	M_CURSOR_FIELD,
	VLF_END
};

const struct vl_field m_read_read_params[] = {
	M_NAME_FIELDS,
	M_WATCH_FIELDS,
	VLF_END
};

const struct vl_field m_read_write_params[] = {
	M_NAME_FIELDS,
	VLF_OBJ("values", false),
	VLF_BOOL("publish", true),
	VLF_END
};

const struct vl_field m_read_snapshot_params[] = {
	M_NAME_FIELDS,
	VLF_BOOL("reset", true),
	VLF_END
};

static bool
m_visible(const struct vl_call *call, const struct reg_kstat *k)
{
	return view_kstat_visible(&call->conn->peer, k);
}

json_int_t
m_kcid(const struct vl_call *call)
{
	return (json_int_t)view_kcid(call->d->reg, &call->conn->peer);
}

/* A blob's JSON rendered (r: the renderer's return): finished, or "{}"
 * in its place if it could not be. */
static void
m_blob_done(struct sbuf *one, int r)
{
	if (r != 0 || sbuf_finish(one) != 0) {
		sbuf_clear(one);
		sbuf_cat(one, "{}");
		(void)sbuf_finish(one);
	}
}

/* The blob of k (copy) as stats(3)'s JSON renderer writes it, named by
 * its template, or by the template of its own a re-lay gave it, into one;
 * "{}" if it cannot be rendered. */
static void
m_blob_json(struct sbuf *one, const struct reg_kstat *k,
    struct statsblob *copy)
{
	m_blob_done(one, stats_blob_tostr(copy, one, SB_STRFMT_JSON,
	    registry_blob_named(k, copy) ? SB_TOSTR_META : 0));
}

/*
 * Read's and Snapshot's reply, as text, into sb: the kstat (its Kstat
 * value as JSON text), the time of the copy, its flat statistics and
 * times as typed data (render_kstat.h), its blob as stats(3)'s JSON (blob,
 * rendered), and (Snapshot, raw not NULL) its bytes.
 * Returns: 0; -errno.
 */
static int
m_read_text(struct sbuf *sb, const char *kstat, uint64_t snaptime,
    const struct ks_view *view, struct sbuf *blob, const char *raw)
{
	const struct ksfmt_stat *st;
	struct ksfmt_out o;
	size_t n;
	int r;

	ksfmt_begin(&o, sb, KSFMT_JSON);
	sbuf_printf(sb, "{\"kstat\":%s,\"snaptime\":%" PRIu64 ",\"data\":",
	    kstat, snaptime);
	r = ksfmt_view_stats(&o, view, true, false, &st, &n);
	if (r == 0)
		r = ksfmt_json_data(sb, st, n, NULL);
	if (r >= 0) {
		sbuf_cat(sb, ",\"blob\":");
		sbuf_bcat(sb, sbuf_data(blob), (size_t)sbuf_len(blob));
		if (raw != NULL) {
			sbuf_cat(sb, ",\"raw\":");
			stat_json_string(sb, raw, strlen(raw));
		}
		sbuf_putc(sb, '}');
		r = sbuf_finish(sb) != 0 ? -ENOMEM : 0;
	}
	ksfmt_done(&o);
	return r < 0 ? r : 0;
}

/* Read's and Snapshot's reply, made in the loop from the registry. */
static void
m_read_reply(struct vl_call *call, const struct reg_kstat *k,
    struct statsblob *copy, uint64_t snaptime, const char *raw)
{
	struct sbuf *sb = sbuf_new_auto(), *one = sbuf_new_auto();
	json_t *kj = registry_kstat_json(call->d->reg, k);
	char *kstat = kj != NULL ? jdump(kj, 0, NULL) : NULL;
	struct ks_view view;
	int r = -ENOMEM;

	json_decref(kj);
	if (sb != NULL && one != NULL && kstat != NULL) {
		view_kstat(k, copy, &view);
		m_blob_json(one, k, copy);
		r = m_read_text(sb, kstat, snaptime, &view, one, raw);
	}
	if (r < 0)
		varlink_error_errno(call, -r, call->method->name);
	else
		varlink_reply_text(call, sbuf_data(sb), (size_t)sbuf_len(sb));
	sbuf_delete(one);
	sbuf_delete(sb);
	free(kstat);
}

static struct statsblob *
m_blob_copy(const struct reg_kstat *k)
{
	struct statsblob *c = malloc(k->size);

	if (c != NULL)
		memcpy(c, registry_blob_peek(k), k->size);
	return c;
}

/* A bound on the bytes of a Kstat reply value of a kstat with that
 * header and template spec: the fixed fields and numbers (kstat2's
 * content, scale and ndata among them), then strings that escaping may
 * double. */
static size_t
m_kstat_json_bound(const struct kstat_hdr *h, const char *spec)
{
	return 640 + 2 * (strlen(h->desc) + strlen(h->path) + strlen(spec) +
	    3 * KSTAT_STRLEN);
}

/*
 * Chain and Lookup: a page of the Kstat values of the kstats a filter
 * selects, in kstat(1M)'s order.
 */
struct m_list {
	bool			 dormant;	/* Chain: dormant ones too */
	struct ks_pattern	 pat[3];	/* module, name, class */
};

static bool
m_list_selects(const struct vl_call *call, const struct m_list *l,
    const struct reg_kstat *k)
{
	return m_visible(call, k) && (l->dormant || !k->dormant) &&
	    ks_pattern_match(&l->pat[0], k->hdr.module) &&
	    ks_pattern_match(&l->pat[1], k->hdr.name) &&
	    ks_pattern_match(&l->pat[2], k->hdr.class_);
}

static void
m_list_page(struct vl_call *call, json_t *params, struct m_list *l,
    struct m_walk *w)
{
	size_t budget = varlink_page_size(call), used = 0;
	uint64_t cost = ks_pattern_cost(&l->pat[0], KSTAT_STRLEN) +
	    ks_pattern_cost(&l->pat[1], KSTAT_STRLEN) +
	    ks_pattern_cost(&l->pat[2], KSTAT_STRLEN);
	struct reg_kstat *k;
	json_t *a;

	if (m_walk_start(call, params, w) < 0)
		return;
	a = json_array();
	if (a == NULL) {
		varlink_error_errno(call, ENOMEM, call->method->name);
		return;
	}
	while ((k = m_walk_next(w, cost)) != NULL) {
		if (!m_list_selects(call, l, k))
			continue;
		json_array_append_new(a, registry_kstat_json(w->reg, k));
		m_walk_charge(w, M_COST_JSON);
		w->sent++;
		used += m_kstat_json_bound(&k->hdr, k->tpl->spec);
		if (used >= budget)
			m_walk_cut(w, k);
	}
	varlink_reply_page(call, json_pack("{s:I, s:o}", "kcid",
	    m_kcid(call), "kstats", a), m_walk_cursor(w));
}

/*
 * The same page from the reader thread (rthread.h, m_rcall.c): the walk
 * over the view's kstat(1M) order, each kstat's Kstat value made from
 * its store slot and its published template, as the registry's would be.
 */
struct m_ljob {
	struct m_rcall		 rc;
	struct m_list		 l;
	struct m_rwalk		 w;
	struct prom_rules	*rules;		/* the view's stems */
	size_t			 budget;	/* the page's bytes */
	struct kstat_hdr	 kh;
	json_t			*a;		/* the page's Kstat values */
	int			 r;
};

static void
m_ljob_free(struct m_rcall *rc)
{
	struct m_ljob *m = (struct m_ljob *)(void *)rc;
	size_t j;

	for (j = 0; j < 3; j++)
		ks_pattern_done(&m->l.pat[j]);
	prom_rules_unref(m->rules);
	json_decref(m->a);
	free(m);
}

/* The Kstat value of e's kstat from what the store says of it (its
 * slot se, header h, template t), and a bound on its bytes in a reply
 * (*ret_bound). Returns: it; NULL for -ENOMEM. */
static json_t *
m_rkstat_json(const struct rv_ent *e, const struct kstat_hdr *h,
    const struct store_entry *se, const struct reg_template *t,
    size_t *ret_bound)
{
	struct kstat_json_fields f;
	bool gz;

	memset(&f, 0, sizeof(f));
	rview_seg_where(e, &f.zone, &gz);
	f.hdr = h;
	f.flags = (h->flags & KS_FLAGS_SHOWN) | (gz ? KSTAT2_FLAG_GZ_VIS : 0);
	f.handle = (uint32_t)h->kid;	/* statsd's kid is its handle */
	f.segment = rview_seg_name(e);
	f.ref = e->ref;
	f.owner = (uid_t)se->slot.owner_uid;
	f.spec = t->spec;
	f.size = se->blob_size;
	f.ndata = se->slot.ndata;
	*ret_bound = m_kstat_json_bound(h, t->spec);
	return registry_kstat_json_of(&f);
}

/* A Kstat value of e's kstat, from the store: NULL if it is gone (or
 * kept busy, or its template not published), or for -ENOMEM (*ret_r). */
static json_t *
m_ljob_kstat(struct rview *rv, const struct rv_ent *e, struct kstat_hdr *h,
    size_t *ret_bound, int *ret_r)
{
	const struct reg_template *t;
	struct store_entry se;
	json_t *v;

	*ret_r = 0;
	if (rview_entry(rv, e, &se, h, &t) < 0)
		return NULL;
	if ((v = m_rkstat_json(e, h, &se, t, ret_bound)) == NULL)
		*ret_r = -ENOMEM;
	return v;
}

/* On the reader thread. */
static void
m_ljob_run(struct rjob *j, struct rview *rv, struct pub_reader *rd)
{
	struct m_ljob *m = (struct m_ljob *)(void *)j;
	struct kstat_hdr *h = &m->kh;
	uint64_t cost = ks_pattern_cost(&m->l.pat[0], KSTAT_STRLEN) +
	    ks_pattern_cost(&m->l.pat[1], KSTAT_STRLEN) +
	    ks_pattern_cost(&m->l.pat[2], KSTAT_STRLEN);
	const struct rv_ent *e;
	size_t used = 0, bound;
	json_t *v;
	int r;

	(void)rd;	/* the thread's section is open */
	if ((m->r = rview_refresh(rv, m->rules)) < 0)
		return;
	m_rwalk_start(&m->w, rv);
	while ((e = m_rwalk_next(&m->w, cost)) != NULL) {
		if (!rview_visible(e, &m->rc.peer) ||
		    rview_header(rv, e, h) < 0 || (!m->l.dormant &&
		    (h->flags & KSTAT_FLAG_DORMANT) != 0) ||
		    !ks_pattern_match(&m->l.pat[0], h->module) ||
		    !ks_pattern_match(&m->l.pat[1], h->name) ||
		    !ks_pattern_match(&m->l.pat[2], h->class_))
			continue;
		if ((v = m_ljob_kstat(rv, e, h, &bound, &r)) == NULL) {
			if (r < 0) {
				m->r = r;
				return;
			}
			continue;
		}
		if (json_array_append_new(m->a, v) < 0) {
			m->r = -ENOMEM;
			return;
		}
		m_rwalk_charge(&m->w, M_COST_JSON);
		m->w.sent++;
		used += bound;
		if (used >= m->budget)
			m_rwalk_cut(&m->w, e);
	}
}

static void
m_ljob_answer(struct vl_call *call, struct m_rcall *rc)
{
	struct m_ljob *m = (struct m_ljob *)(void *)rc;
	json_t *a = m->a;

	if (m->r < 0) {
		varlink_error_errno(call, -m->r, call->method->name);
		return;
	}
	m->a = NULL;
	varlink_reply_page(call, json_pack("{s:I, s:o}", "kcid",
	    m_kcid(call), "kstats", a), m_rwalk_cursor(&m->w));
}

/* Chain's or Lookup's page from the reader thread: l (its patterns) and
 * the literal names of w are taken over, l left matching all (unless the
 * job could not be made: answered, l still the caller's). */
static void
m_list_job(struct vl_call *call, json_t *params, struct m_list *l,
    const struct m_walk *w)
{
	struct m_ljob *m = calloc(1, sizeof(*m));
	size_t j;

	if (m == NULL || (m->a = json_array()) == NULL) {
		/* l stays the caller's to free. */
		free(m);
		varlink_error_errno(call, ENOMEM, call->method->name);
		return;
	}
	m->l = *l;
	memset(l, 0, sizeof(*l));
	for (j = 0; j < 3; j++)
		l->pat[j].any = true;
	m->rc.peer = call->conn->peer;
	m->rc.answer = m_ljob_answer;
	m->rc.free = m_ljob_free;
	m->rc.job.run = m_ljob_run;
	m->w.module = w->module;
	m->w.instance = w->instance;
	m->w.name = w->name;
	if (m_rwalk_prepare(call, params, &m->w) < 0) {
		m_ljob_free(&m->rc);
		return;
	}
	m->budget = varlink_page_size(call);
	m->rules = prom_rules_ref(call->d->cfg.mapping);
	m_rcall_submit(call, params, &m->rc);
}

void
m_read_chain(struct vl_call *call, json_t *params)
{
	struct m_walk w = { .instance = -1 };
	struct m_list l;
	int i;

	memset(&l, 0, sizeof(l));
	for (i = 0; i < 3; i++)
		l.pat[i].any = true;
	l.dormant = varlink_bool(params, "dormant", false);
	if (call->d->rthread != NULL)
		m_list_job(call, params, &l, &w);
	else
		m_list_page(call, params, &l, &w);
}

void
m_read_lookup(struct vl_call *call, json_t *params)
{
	static const char *const fields[] = { "module", "name", "class" };
	struct m_walk w = { .instance = -1 };
	struct input_error kerr;
	struct m_list l;
	size_t j;

	memset(&l, 0, sizeof(l));
	for (j = 0; j < 3; j++) {
		memset(&kerr, 0, sizeof(kerr));
		if (ks_pattern_init(&l.pat[j], varlink_str(params, fields[j],
		    NULL), &kerr) < 0) {
			varlink_error_value(call, fields[j], "%s", kerr.msg);
			while (j-- > 0)
				ks_pattern_done(&l.pat[j]);
			return;
		}
	}
	w.module = ks_pattern_literal(&l.pat[0]);
	w.instance = (int32_t)varlink_int(params, "instance", -1);
	w.name = ks_pattern_literal(&l.pat[1]);
	if (call->d->rthread != NULL) {
		/* It takes the patterns over (and leaves l's matching all,
		 * which ks_pattern_done() frees nothing of). */
		m_list_job(call, params, &l, &w);
	} else {
		m_list_page(call, params, &l, &w);
	}
	for (j = 0; j < 3; j++)
		ks_pattern_done(&l.pat[j]);
}

/*
 * Read, and Snapshot without reset, from the reader thread: the loop
 * finds the kstat and checks that the caller may see it; the thread reads
 * it from the store (header, slot and blob under its slot's sequence
 * counter, at one time) and renders the reply. What the thread cannot
 * render as the registry would (the kstat not in its view yet, its
 * template not published, a blob a re-lay left under a template of its
 * own) is rendered by the loop when the answer comes back, as before: the
 * reply is the same either way.
 */
struct m_kjob {
	struct m_rcall		 rc;
	json_t			*params;	/* the call's, for the loop */
	char			 module[KSTAT_STRLEN];
	char			 name[KSTAT_STRLEN];
	int32_t			 instance;
	bool			 snapshot;
	struct prom_rules	*rules;		/* the view's stems */
	struct kstat_hdr	 kh;
	struct sbuf		*out;		/* the reply's text */
	int			 r;
};

static void
m_kjob_free(struct m_rcall *rc)
{
	struct m_kjob *m = (struct m_kjob *)(void *)rc;

	json_decref(m->params);
	prom_rules_unref(m->rules);
	sbuf_delete(m->out);
	free(m);
}

/* The index entry of the job's kstat in rv, or NULL. */
static const struct rv_ent *
m_kjob_find(struct rview *rv, const struct m_kjob *m)
{
	const struct rv_ent *e;
	size_t n, i;

	e = rview_ents_kstat(rv, &n);
	i = rview_seek_kstat(rv, m->module, m->instance, m->name, false);
	if (i >= n || e[i].instance != m->instance ||
	    strcmp(rview_str(rv, e[i].module), m->module) != 0 ||
	    strcmp(rview_str(rv, e[i].name), m->name) != 0 ||
	    !rview_visible(&e[i], &m->rc.peer))
		return NULL;
	return &e[i];
}

/* On the reader thread. m->r: 0 and m->out; -ENOMEM; another -errno
 * (the loop renders it). */
static void
m_kjob_run(struct rjob *j, struct rview *rv, struct pub_reader *rd)
{
	struct m_kjob *m = (struct m_kjob *)(void *)j;
	const struct reg_template *t;
	const struct rv_ent *e;
	struct store_entry se;
	struct sbuf *one;
	struct ks_view kv;
	struct statsblob *sb;
	char *kstat = NULL, *raw = NULL;
	uint64_t now = clock_now_ns();
	size_t bound;
	json_t *kj;

	(void)rd;	/* the thread's section is open */
	if ((m->r = rview_refresh(rv, m->rules)) < 0)
		return;
	/* (Tests: the loop's reply, to compare.) */
	if (crashpoint_fail("reader.decline") ||
	    (e = m_kjob_find(rv, m)) == NULL) {
		m->r = -ENOENT;
		return;
	}
	if ((m->r = rview_read_entry(rv, e, &m->kh, &kv, &se, &t)) < 0)
		return;
	sb = (struct statsblob *)(void *)kv.sb;	/* the view's own copy */
	/* Named by its own template, or the loop's (a re-lay's name). */
	if (((const struct statsblobv1 *)kv.sb)->tplhash != t->hash ||
	    (m->kh.flags & KSTAT_FLAG_DORMANT) != 0) {
		m->r = -ENOENT;
		return;
	}
	m->r = -ENOMEM;
	kj = m_rkstat_json(e, &m->kh, &se, t, &bound);
	kstat = kj != NULL ? jdump(kj, 0, NULL) : NULL;
	json_decref(kj);
	if (m->snapshot && (raw = b64_encode(sb, se.blob_size)) == NULL)
		goto out;
	one = sbuf_new_auto();
	if (kstat == NULL || one == NULL ||
	    (m->out = sbuf_new_auto()) == NULL) {
		sbuf_delete(one);
		goto out;
	}
	m_blob_done(one, blob_tostr_named(sb, one, SB_STRFMT_JSON, 0,
	    t->name, kv.names, kv.nnames));
	m->r = m_read_text(m->out, kstat, m->snapshot ? now :
	    (uint64_t)m->kh.snaptime, &kv, one, raw);
	sbuf_delete(one);
out:
	free(raw);
	free(kstat);
}

static void m_read_here(struct vl_call *call, struct reg_kstat *k);
static void m_snapshot_here(struct vl_call *call, struct reg_kstat *k,
    bool reset);

static void
m_kjob_answer(struct vl_call *call, struct m_rcall *rc)
{
	struct m_kjob *m = (struct m_kjob *)(void *)rc;
	struct reg_kstat *k;

	if (m->r == 0) {
		varlink_reply_text(call, sbuf_data(m->out),
		    (size_t)sbuf_len(m->out));
		return;
	}
	if (m->r == -ENOMEM) {
		varlink_error_errno(call, ENOMEM, call->method->name);
		return;
	}
	/* The loop's copy, as if the thread had not been asked. */
	call->d->reads_here++;
	if ((k = m_kstat_get(call, m->params, false)) == NULL)
		return;
	if (m->snapshot)
		m_snapshot_here(call, k, false);
	else
		m_read_here(call, k);
}

/* Hand k's Read or Snapshot to the reader thread. Returns: whether it
 * was (answered if it could not be made: false, and the call answered). */
static bool
m_kjob_submit(struct vl_call *call, json_t *params,
    const struct reg_kstat *k, bool snapshot)
{
	struct m_kjob *m;

	if (call->d->rthread == NULL)
		return false;
	if ((m = calloc(1, sizeof(*m))) == NULL) {
		varlink_error_errno(call, ENOMEM, call->method->name);
		return true;
	}
	m->params = json_incref(params);
	snprintf(m->module, sizeof(m->module), "%s", k->hdr.module);
	snprintf(m->name, sizeof(m->name), "%s", k->hdr.name);
	m->instance = k->hdr.instance;
	m->snapshot = snapshot;
	m->rules = prom_rules_ref(call->d->cfg.mapping);
	m->rc.peer = call->conn->peer;
	m->rc.answer = m_kjob_answer;
	m->rc.free = m_kjob_free;
	m->rc.job.run = m_kjob_run;
	m_rcall_submit(call, params, &m->rc);
	return true;
}

/* Read, in the loop. */
static void
m_read_here(struct vl_call *call, struct reg_kstat *k)
{
	struct statsblob *copy;

	copy = m_blob_copy(k);
	if (copy == NULL) {
		varlink_error_errno(call, ENOMEM, "read");
		return;
	}
	m_read_reply(call, k, copy, (uint64_t)k->hdr.snaptime, NULL);
	free(copy);
}

void
m_read_read(struct vl_call *call, json_t *params)
{
	struct reg_kstat *k;

	k = m_kstat_get(call, params, false);
	if (k == NULL || m_kjob_submit(call, params, k, false))
		return;
	m_read_here(call, k);
}

/* The VOI id of a name in k's template, or -1. */
static int
m_voi_id(const struct reg_kstat *k, const char *name)
{
	uint16_t n, i;
	const char *const *names = registry_kstat_names(k, &n);

	for (i = 0; i < n; i++)
		if (names[i] != NULL && strcmp(names[i], name) == 0)
			return i;
	return -1;
}

void
m_read_write(struct vl_call *call, json_t *params)
{
	struct statsd *d = call->d;
	json_t *values = json_object_get(params, "values"), *v;
	struct reg_kstat *k;
	struct statsblob *copy, *sb;
	char full[128], path[320];
	const char *key;
	uint64_t now = clock_now_ns();
	int voi, r = 0;

	k = m_kstat_get(call, params, false);
	if (k == NULL)
		return;
	registry_kstat_name(k, full, sizeof(full));
	if (!view_kstat_may_modify(&call->conn->peer, k)) {
		varlink_error_denied(call, RIGHT_OWNER);
		return;
	}
	/* KSTAT_FLAG_WRITABLE says what consumers may write; a provider
	 * publishes its own values (a kstat_named_setstr() string) either
	 * way. */
	if ((k->hdr.flags & KSTAT_FLAG_WRITABLE) == 0 &&
	    (!varlink_bool(params, "publish", false) || k->internal)) {
		varlink_error(call, VL_E_NOT_WRITABLE, json_pack("{s:s, s:s}",
		    "kstat", full, "statistic", ""));
		return;
	}
	/* All values apply or none: change a copy, then install it. */
	copy = m_blob_copy(k);
	if (copy == NULL) {
		varlink_error_errno(call, ENOMEM, "write");
		return;
	}
	json_object_foreach(values, key, v) {
		snprintf(path, sizeof(path), "values.%s", key);
		voi = m_voi_id(k, key);
		if (voi < 0) {
			varlink_error(call, VL_E_NOT_WRITABLE,
			    json_pack("{s:s, "
			    "s:s}", "kstat", full, "statistic", key));
			free(copy);
			return;
		}
		if (json_is_integer(v))
			r = engine_apply(copy, (uint16_t)voi, STATS_OP_SET, 0,
			    (int64_t)json_integer_value(v), 0, now);
		else if (json_is_string(v))
			r = engine_set_string(copy, (uint16_t)voi,
			    json_string_value(v), json_string_length(v));
		else {
			varlink_error_param(call, path);
			free(copy);
			return;
		}
		if (r == -E2BIG) {
			varlink_error_value(call, path,
			    "string too long for the "
			    "value");
			free(copy);
			return;
		}
		if (r != 0) {
			varlink_error(call, VL_E_NOT_WRITABLE,
			    json_pack("{s:s, "
			    "s:s}", "kstat", full, "statistic", key));
			free(copy);
			return;
		}
	}
	sb = registry_blob_begin(d->reg, k);
	memcpy(sb, copy, k->size);
	registry_blob_end(d->reg, k, now);
	registry_sync(d->reg);
	free(copy);
	varlink_reply(call, json_pack("{s:o}", "kstat",
	    registry_kstat_json(d->reg, k)));
}

/* Snapshot of k, in the loop (reset: checked already). */
static void
m_snapshot_here(struct vl_call *call, struct reg_kstat *k, bool reset)
{
	struct statsd *d = call->d;
	struct statsblob *copy, *sb;
	uint64_t now = clock_now_ns();
	char *raw;

	copy = m_blob_copy(k);
	raw = copy != NULL ? b64_encode(copy, k->size) : NULL;
	if (raw == NULL) {
		free(copy);
		varlink_error_errno(call, ENOMEM, "snapshot");
		return;
	}
	if (reset) {
		sb = registry_blob_begin(d->reg, k);
		(void)stats_blob_reset(sb);
		registry_blob_end(d->reg, k, now);
		registry_sync(d->reg);
	}
	m_read_reply(call, k, copy, now, raw);
	free(raw);
	free(copy);
}

void
m_read_snapshot(struct vl_call *call, json_t *params)
{
	bool reset = varlink_bool(params, "reset", false);
	struct reg_kstat *k;

	k = m_kstat_get(call, params, false);
	if (k == NULL)
		return;
	if (reset && !view_kstat_may_modify(&call->conn->peer, k)) {
		varlink_error_denied(call, RIGHT_OWNER);
		return;
	}
	if (reset && k->internal) {
		varlink_error_value(call, "reset", "statsd's own kstats are "
		    "read-only");
		return;
	}
	/* A reset changes the kstat: the writer's. */
	if (!reset && m_kjob_submit(call, params, k, true))
		return;
	m_snapshot_here(call, k, reset);
}
