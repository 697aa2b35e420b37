/*
 * render_kstat.c: kstat(1M)'s views of statsd's kstats — the flat list of
 * a kstat's statistics, and the default, -p/-C/-l and -j outputs built on
 * it. Shapes and orders are illumos kstat(1M)'s; the JSON uses RFC 8259's
 * escapes only (docs/formats.md, Choices), never kstat's "\?".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "blob.h"
#include "hist.h"
#include "kind.h"
#include "numeric.h"
#include "render_kstat.h"
#include "stat_ioq.h"
#include "stat_scalar.h"
#include "stat_timer.h"

void
ksfmt_time(char *buf, size_t len, hrtime_t t)
{
	if (t == 0)
		snprintf(buf, len, "0");
	else
		snprintf(buf, len, "%" PRId64 ".%09" PRId64,
		    t / 1000000000, (t < 0 ? -t : t) % 1000000000);
}

struct stat_acc {
	struct ksfmt_stat	*v;
	size_t			 n, cap;
	int			 error;
};

static void
acc_push(struct stat_acc *a, const char *name, const char *suffix,
    const char *value, bool quoted)
{
	struct ksfmt_stat *s;
	size_t nl;

	if (a->error != 0)
		return;
	if (a->n == a->cap) {
		size_t cap = a->cap > 0 ? a->cap * 2 : 16;
		struct ksfmt_stat *nv = realloc(a->v, cap * sizeof(*nv));

		if (nv == NULL) {
			a->error = -ENOMEM;
			return;
		}
		a->v = nv;
		a->cap = cap;
	}
	s = &a->v[a->n];
	nl = strlen(name) + (suffix != NULL ? strlen(suffix) + 1 : 0) + 1;
	s->name = malloc(nl);
	s->value = strdup(value);
	if (s->name == NULL || s->value == NULL) {
		free(s->name);
		free(s->value);
		a->error = -ENOMEM;
		return;
	}
	if (suffix != NULL)
		snprintf(s->name, nl, "%s.%s", name, suffix);
	else
		snprintf(s->name, nl, "%s", name);
	s->quoted = quoted;
	s->array = false;
	a->n++;
}

/* A scalar or string statistic's value as text. */
static void
acc_push_value(struct stat_acc *a, const char *name, const char *suffix,
    const struct voi *v, const struct voistat *vs,
    const struct voistatdata *vsd)
{
	struct voistatdata_numeric n;
	struct sbuf *sb;

	if (vs->dtype == VSD_DTYPE_STRING) {
		const struct vsd_string *s = (const struct vsd_string *)vsd;

		acc_push(a, name, suffix, s->s, true);
		return;
	}
	sb = sbuf_new_auto();
	if (sb == NULL) {
		a->error = -ENOMEM;
		return;
	}
	numeric_load(vs->dtype, vsd, &n);
	numeric_format(sb, vs->dtype, &n);
	(void)v;
	if (sbuf_finish(sb) != 0)
		a->error = -ENOMEM;
	else
		acc_push(a, name, suffix, sbuf_data(sb), false);
	sbuf_delete(sb);
}

static void
acc_push_u64(struct stat_acc *a, const char *name, const char *suffix,
    uint64_t v, bool is_signed)
{
	char buf[32];

	if (is_signed)
		snprintf(buf, sizeof(buf), "%" PRId64, (int64_t)v);
	else
		snprintf(buf, sizeof(buf), "%" PRIu64, v);
	acc_push(a, name, suffix, buf, false);
}

static void
acc_push_ioq(struct stat_acc *a, const char *prefix,
    const struct voistatdata *vsd, hrtime_t snaptime)
{
	uint64_t f[IOQ_NFIELDS];
	kstat_io_t k;
	int i;

	/* Readers see the integrals up to the snapshot, as on illumos. */
	stat_ioq_snapshot((const kstat_io_t *)vsd,
	    snaptime > 0 ? (uint64_t)snaptime : 0, &k);
	stat_ioq_fields(&k, f);
	for (i = 0; i < IOQ_NFIELDS; i++) {
		/* The time fields are hrtime_t, the counts unsigned. */
		bool sgn = i >= 4 && i <= 9;

		if (prefix != NULL)
			acc_push_u64(a, prefix, stat_ioq_field_names[i], f[i],
			    sgn);
		else
			acc_push_u64(a, stat_ioq_field_names[i], NULL, f[i],
			    sgn);
	}
}

static void
acc_push_timer(struct stat_acc *a, const char *prefix,
    const struct voistatdata *vsd)
{
	uint64_t f[TIMER_NFIELDS];
	int i;

	stat_timer_fields((const struct vsd_timer *)vsd, f);
	for (i = 0; i < TIMER_NFIELDS; i++) {
		if (prefix != NULL)
			acc_push_u64(a, prefix, stat_timer_field_names[i], f[i],
			    i > 0);
		else
			acc_push_u64(a, stat_timer_field_names[i], NULL, f[i],
			    i > 0);
	}
}

/*
 * A kstat2 histogram's fields: its bucket counts as one array, then what
 * it was created with. A HIST kstat shows them under their own names, a
 * blob as <voi>.<field>.
 */
static void
acc_push_k2hist(struct stat_acc *a, const char *prefix,
    const struct voistatdata *vsd, enum vsd_dtype hist_dtype,
    const struct k2hist_params *k2)
{
	const struct hist_geom *g = hist_geom(hist_dtype);
	uint64_t f[K2HIST_NFIELDS - 1];
	const char *const *fn = k2hist_field_names;
	struct sbuf *sb;
	uint16_t i, n;

	if (g == NULL)
		return;
	k2hist_param_values(k2, f);
	sb = sbuf_new_auto();
	if (sb == NULL) {
		a->error = -ENOMEM;
		return;
	}
	n = hist_nbuckets(vsd, g);
	for (i = 0; i < n; i++)
		sbuf_printf(sb, i > 0 ? " %" PRIu64 : "%" PRIu64,
		    hist_bkt_cnt(vsd, g, i));
	if (sbuf_finish(sb) != 0) {
		a->error = -ENOMEM;
	} else {
		acc_push(a, prefix != NULL ? prefix : fn[0],
		    prefix != NULL ? fn[0] : NULL, sbuf_data(sb), false);
		if (a->error == 0)
			a->v[a->n - 1].array = true;
	}
	sbuf_delete(sb);
	for (i = 1; i < K2HIST_NFIELDS; i++)
		acc_push_u64(a, prefix != NULL ? prefix : fn[i],
		    prefix != NULL ? fn[i] : NULL, f[i - 1], false);
}

static const struct voistat *
view_stat(const struct statsblobv1 *b, const struct voi *v, int stype)
{
	const struct voistat *vs;

	if (stype > v->voistatmaxid)
		return NULL;
	vs = blob_voistat(b, v, stype);
	return vs->stype == stype ? vs : NULL;
}

/* The statistic a NAMED or INTR VOI shows under its own name. */
static int
named_primary(const struct statsblobv1 *b, const struct voi *v)
{
	static const int order[] = { VS_STYPE_LAST, VS_STYPE_SUM,
	    VS_STYPE_COUNT };
	size_t i;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (view_stat(b, v, order[i]) != NULL)
			return order[i];
	}
	return -1;
}

static int
stat_cmp(const void *x, const void *y)
{
	const struct ksfmt_stat *a = x, *b = y;
	int c = strcasecmp(a->name, b->name);

	return c != 0 ? c : strcmp(a->name, b->name);
}

int
ksfmt_stats(const struct ks_view *view, bool with_class,
    struct ksfmt_stat **ret, size_t *ret_n)
{
	const struct statsblobv1 *b = (const struct statsblobv1 *)view->sb;
	const struct kstat_hdr *h = view->hdr;
	struct stat_acc a = { NULL, 0, 0, 0 };
	uint16_t i, nv = b != NULL ? blob_nvois(b) : 0, ntimers = 0;
	bool io_done = false;
	char tbuf[40];

	for (i = 0; i < nv; i++) {
		if (b->vois[i].id >= 0 &&
		    view_stat(b, &b->vois[i], VS_STYPE_TIMER) != NULL)
			ntimers++;
	}
	for (i = 0; i < nv; i++) {
		const struct voi *v = &b->vois[i];
		char dflt[16];
		const char *name;
		int s, primary = -1;

		if (v->id < 0)
			continue;
		name = i < view->nnames && view->names != NULL &&
		    view->names[i] != NULL && view->names[i][0] != '\0' ?
		    view->names[i] : NULL;
		if (name == NULL) {
			snprintf(dflt, sizeof(dflt), "voi%u", i);
			name = dflt;
		}
		if (h->type == KSTAT_TYPE_NAMED || h->type == KSTAT_TYPE_INTR)
			primary = named_primary(b, v);
		for (s = 1; s <= v->voistatmaxid; s++) {
			const struct voistat *vs = view_stat(b, v, s);
			const struct voistatdata *vsd;

			if (vs == NULL)
				continue;
			vsd = blob_vsd(b, vs);
			if (s == primary) {
				acc_push_value(&a, name, NULL, v, vs, vsd);
			} else if (s == VS_STYPE_IOQ) {
				bool bare = h->type == KSTAT_TYPE_IO && !io_done;

				acc_push_ioq(&a, bare ? NULL : name, vsd,
				    h->snaptime);
				io_done = io_done || bare;
			} else if (s == VS_STYPE_HIST && view->k2 != NULL &&
			    i < view->nnames && view->k2[i].valid) {
				acc_push_k2hist(&a, h->type == KSTAT_TYPE_HIST ?
				    NULL : name, vsd, (enum vsd_dtype)vs->dtype,
				    &view->k2[i]);
			} else if (s == VS_STYPE_TIMER) {
				bool bare = h->type == KSTAT_TYPE_TIMER &&
				    ntimers == 1;

				if (bare)
					acc_push(&a, "name", NULL, name, true);
				acc_push_timer(&a, bare ? NULL : name, vsd);
			} else if (stype_ops[s].flatname != NULL &&
			    (dtype_is_scalar(vs->dtype) ||
			    vs->dtype == VSD_DTYPE_STRING)) {
				acc_push_value(&a, name, stype_ops[s].flatname,
				    v, vs, vsd);
			}
		}
	}
	ksfmt_time(tbuf, sizeof(tbuf), h->crtime);
	acc_push(&a, "crtime", NULL, tbuf, false);
	ksfmt_time(tbuf, sizeof(tbuf), h->snaptime);
	acc_push(&a, "snaptime", NULL, tbuf, false);
	if (with_class)
		acc_push(&a, "class", NULL, h->class_, true);
	if (a.error != 0) {
		ksfmt_stats_free(a.v, a.n);
		return a.error;
	}
	qsort(a.v, a.n, sizeof(*a.v), stat_cmp);
	*ret = a.v;
	*ret_n = a.n;
	return 0;
}

void
ksfmt_stats_free(struct ksfmt_stat *st, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(st[i].name);
		free(st[i].value);
	}
	free(st);
}

/* kstat(1M)'s order: module, instance, name. */
static int
view_cmp(const void *x, const void *y)
{
	const struct kstat_hdr *a = (*(const struct ks_view *const *)x)->hdr;
	const struct kstat_hdr *b = (*(const struct ks_view *const *)y)->hdr;
	int c = strcasecmp(a->module, b->module);

	if (c != 0)
		return c;
	if (a->instance != b->instance)
		return a->instance < b->instance ? -1 : 1;
	return strcasecmp(a->name, b->name);
}

static void
render_default(struct sbuf *buf, const struct kstat_hdr *h,
    const struct ksfmt_stat *st, const bool *sel, size_t n)
{
	size_t i;

	sbuf_printf(buf, "module: %-30.30s  instance: %-6d\n", h->module,
	    h->instance);
	sbuf_printf(buf, "name:   %-30.30s  class:    %-.30s\n", h->name,
	    h->class_);
	for (i = 0; i < n; i++) {
		if (sel[i])
			sbuf_printf(buf, "\t%-30s  %s\n", st[i].name,
			    st[i].value);
	}
	sbuf_putc(buf, '\n');
}

static void
render_parseable(struct sbuf *buf, enum ksfmt_mode mode,
    const struct kstat_hdr *h, const struct ksfmt_stat *st, const bool *sel,
    size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!sel[i])
			continue;
		sbuf_printf(buf, "%s:%d:%s:%s", h->module, h->instance, h->name,
		    st[i].name);
		if (mode == KSFMT_NAMES)
			sbuf_putc(buf, '\n');
		else
			sbuf_printf(buf, "%c%s\n",
			    mode == KSFMT_COLON ? ':' : '\t', st[i].value);
	}
}

/* An array value's numbers ("1 2 3") as a JSON array ("[1, 2, 3]"). */
static void
render_json_array(struct sbuf *buf, const char *v)
{
	sbuf_putc(buf, '[');
	for (; *v != '\0'; v++)
		if (*v == ' ')
			sbuf_cat(buf, ", ");
		else
			sbuf_putc(buf, *v);
	sbuf_putc(buf, ']');
}

static void
render_json(struct sbuf *buf, bool first, const struct kstat_hdr *h,
    const struct ksfmt_stat *st, const bool *sel, size_t n)
{
	char tbuf[40];
	bool any = false;
	size_t i;

	sbuf_cat(buf, first ? "[{\n\t\"module\": " : ", {\n\t\"module\": ");
	stat_json_string(buf, h->module, strlen(h->module));
	sbuf_printf(buf, ",\n\t\"instance\": %d,\n\t\"name\": ", h->instance);
	stat_json_string(buf, h->name, strlen(h->name));
	sbuf_cat(buf, ",\n\t\"class\": ");
	stat_json_string(buf, h->class_, strlen(h->class_));
	ksfmt_time(tbuf, sizeof(tbuf), h->snaptime);
	sbuf_printf(buf, ",\n\t\"type\": %u,\n\t\"snaptime\": %s,\n\t\"data\": {",
	    h->type, tbuf);
	for (i = 0; i < n; i++) {
		if (!sel[i])
			continue;
		sbuf_cat(buf, any ? ",\n\t\t" : "\n\t\t");
		any = true;
		stat_json_string(buf, st[i].name, strlen(st[i].name));
		sbuf_cat(buf, ": ");
		if (st[i].quoted)
			stat_json_string(buf, st[i].value, strlen(st[i].value));
		else if (st[i].array)
			render_json_array(buf, st[i].value);
		else
			sbuf_cat(buf, st[i].value);
	}
	sbuf_cat(buf, "\n\t}\n}");
}

int
ksfmt_render(struct sbuf *buf, enum ksfmt_mode mode,
    const struct ks_view *views, size_t n, const struct ks_selector *sel,
    const struct ks_pattern *class_pat, size_t *ret_matched)
{
	const struct ks_view **order;
	size_t i, j, shown = 0;
	int error = 0;

	if (buf == NULL || (views == NULL && n > 0) || mode > KSFMT_JSON)
		return -EINVAL;
	order = calloc(n > 0 ? n : 1, sizeof(*order));
	if (order == NULL)
		return -ENOMEM;
	for (i = j = 0; i < n; i++) {
		if ((sel == NULL || ks_selector_match_kstat(sel, views[i].hdr)) &&
		    (class_pat == NULL ||
		    ks_pattern_match(class_pat, views[i].hdr->class_)))
			order[j++] = &views[i];
	}
	qsort(order, j, sizeof(*order), view_cmp);
	for (i = 0; i < j && error == 0; i++) {
		struct ksfmt_stat *st;
		size_t ns, k, nsel = 0;
		bool *pick;

		error = ksfmt_stats(order[i], mode == KSFMT_PARSEABLE ||
		    mode == KSFMT_COLON || mode == KSFMT_NAMES, &st, &ns);
		if (error != 0)
			break;
		pick = calloc(ns > 0 ? ns : 1, sizeof(*pick));
		if (pick == NULL) {
			ksfmt_stats_free(st, ns);
			error = -ENOMEM;
			break;
		}
		for (k = 0; k < ns; k++) {
			pick[k] = sel == NULL ||
			    ks_selector_match_stat(sel, st[k].name);
			nsel += pick[k];
		}
		if (nsel > 0) {
			if (mode == KSFMT_DEFAULT)
				render_default(buf, order[i]->hdr, st, pick, ns);
			else if (mode == KSFMT_JSON)
				render_json(buf, shown == 0, order[i]->hdr, st,
				    pick, ns);
			else
				render_parseable(buf, mode, order[i]->hdr, st,
				    pick, ns);
			shown++;
		}
		free(pick);
		ksfmt_stats_free(st, ns);
	}
	free(order);
	if (error != 0)
		return error;
	if (mode == KSFMT_JSON)
		sbuf_cat(buf, shown == 0 ? "[]\n" : "]\n");
	if (ret_matched != NULL)
		*ret_matched = shown;
	return sbuf_error(buf) != 0 ? -sbuf_error(buf) : 0;
}
