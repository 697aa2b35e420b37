/*
 * render_kstat.c: kstat(1M)'s views of statsd's kstats — a kstat's flat
 * statistics as text, and the default, -p/-C/-l and -j outputs built on
 * them. Shapes and orders are illumos kstat(1M)'s; the JSON uses RFC 8259's
 * escapes only (docs/formats.md, Choices), never kstat's "\?".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "numeric.h"
#include "render_kstat.h"
#include "stat_scalar.h"

void
ksfmt_time(char *buf, size_t len, hrtime_t t)
{
	if (t == 0)
		snprintf(buf, len, "0");
	else
		snprintf(buf, len, "%" PRId64 ".%09" PRId64,
		    t / 1000000000, (t < 0 ? -t : t) % 1000000000);
}

/* The flat statistics being collected as text. */
struct stat_acc {
	struct ksfmt_stat	*v;
	size_t			 n, cap;
	struct sbuf		*sb;
};

/* A flat statistic's value as kstat(1M) prints it, into sb. */
static void
acc_value(struct sbuf *sb, const struct flat_stat *fs)
{
	struct voistatdata_numeric num;
	uint16_t i;

	switch (fs->vtype) {
	case FLAT_SCALAR:
		numeric_load(fs->vs_dtype, fs->vsd, &num);
		numeric_format(sb, fs->vs_dtype, &num);
		break;
	case FLAT_STRING:
		sbuf_bcat(sb, fs->str, fs->len);
		break;
	case FLAT_U64:
		if (fs->f->is_signed)
			sbuf_printf(sb, "%" PRId64, (int64_t)fs->u64);
		else
			sbuf_printf(sb, "%" PRIu64, fs->u64);
		break;
	case FLAT_U64_ARRAY:
		for (i = 0; i < fs->n; i++)
			sbuf_printf(sb, i > 0 ? " %" PRIu64 : "%" PRIu64,
			    fs->arr[i]);
		break;
	}
}

static int
acc_push(const struct flat_stat *fs, void *arg)
{
	struct stat_acc *a = arg;
	struct ksfmt_stat *s;
	char name[2 * 128];

	if (a->n == a->cap) {
		size_t cap = a->cap > 0 ? a->cap * 2 : 16;
		struct ksfmt_stat *nv = realloc(a->v, cap * sizeof(*nv));

		if (nv == NULL)
			return -ENOMEM;
		a->v = nv;
		a->cap = cap;
	}
	sbuf_clear(a->sb);
	acc_value(a->sb, fs);
	if (sbuf_finish(a->sb) != 0)
		return -ENOMEM;
	s = &a->v[a->n];
	s->name = strdup(flat_name(fs, name, sizeof(name)));
	s->value = strdup(sbuf_data(a->sb));
	if (s->name == NULL || s->value == NULL) {
		free((char *)s->name);
		free((char *)s->value);
		return -ENOMEM;
	}
	s->quoted = fs->vtype == FLAT_STRING;
	s->array = fs->vtype == FLAT_U64_ARRAY;
	s->counter = fs->counter;
	a->n++;
	return 0;
}

static int
stat_cmp(const void *x, const void *y)
{
	const struct ksfmt_stat *a = x, *b = y;
	int c = strcasecmp(a->name, b->name);

	return c != 0 ? c : strcmp(a->name, b->name);
}

int
ksfmt_stats(const struct ks_view *view, struct ksfmt_stat **ret,
    size_t *ret_n)
{
	struct stat_acc a = { NULL, 0, 0, sbuf_new_auto() };
	int r;

	if (a.sb == NULL)
		return -ENOMEM;
	r = flat_walk(view, acc_push, &a);
	sbuf_delete(a.sb);
	if (r != 0) {
		ksfmt_stats_free(a.v, a.n);
		return r < 0 ? r : -EINVAL;
	}
	if (a.n > 0)
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
		free((char *)st[i].name);
		free((char *)st[i].value);
	}
	free(st);
}

int
ksfmt_list_make(struct ksfmt_list *l, const struct kstat_hdr *h,
    const struct ksfmt_stat *st, size_t n, bool with_class)
{
	size_t k = 0;

	memset(l, 0, sizeof(*l));
	l->v = malloc((n + 3) * sizeof(*l->v));
	if (l->v == NULL)
		return -ENOMEM;
	if (n > 0)
		memcpy(l->v, st, n * sizeof(*st));
	k = n;
	ksfmt_time(l->crtime, sizeof(l->crtime), h->crtime);
	ksfmt_time(l->snaptime, sizeof(l->snaptime), h->snaptime);
	l->v[k++] = (struct ksfmt_stat){ .name = "crtime",
	    .value = l->crtime };
	l->v[k++] = (struct ksfmt_stat){ .name = "snaptime",
	    .value = l->snaptime };
	if (with_class)
		l->v[k++] = (struct ksfmt_stat){ .name = "class",
		    .value = h->class_, .quoted = true };
	qsort(l->v, k, sizeof(*l->v), stat_cmp);
	l->n = k;
	return 0;
}

void
ksfmt_list_done(struct ksfmt_list *l)
{
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static int
view_cmp(const void *x, const void *y)
{
	return ks_hdr_cmp((*(const struct ks_view *const *)x)->hdr,
	    (*(const struct ks_view *const *)y)->hdr);
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

void
ksfmt_begin(struct ksfmt_out *o, struct sbuf *buf, enum ksfmt_mode mode)
{
	o->buf = buf;
	o->mode = mode;
	o->shown = 0;
}

/* The statistics of a kstat a mode shows, and which of them sel picks. */
static int
ksfmt_pick(enum ksfmt_mode mode, const struct kstat_hdr *h,
    const struct ksfmt_stat *st, size_t n, const struct ks_selector *sel,
    struct ksfmt_list *l, bool **ret_pick)
{
	size_t k;
	int nsel = 0, r;

	r = ksfmt_list_make(l, h, st, n, mode == KSFMT_PARSEABLE ||
	    mode == KSFMT_COLON || mode == KSFMT_NAMES);
	if (r < 0)
		return r;
	*ret_pick = calloc(l->n, sizeof(**ret_pick));
	if (*ret_pick == NULL) {
		ksfmt_list_done(l);
		return -ENOMEM;
	}
	for (k = 0; k < l->n; k++) {
		(*ret_pick)[k] = sel == NULL ||
		    ks_selector_match_stat(sel, l->v[k].name);
		nsel += (*ret_pick)[k];
	}
	return nsel;
}

int
ksfmt_selected(enum ksfmt_mode mode, const struct kstat_hdr *h,
    const struct ksfmt_stat *st, size_t n, const struct ks_selector *sel)
{
	struct ksfmt_list l;
	bool *pick;
	int nsel;

	nsel = ksfmt_pick(mode, h, st, n, sel, &l, &pick);
	if (nsel < 0)
		return nsel;
	free(pick);
	ksfmt_list_done(&l);
	return nsel;
}

int
ksfmt_kstat(struct ksfmt_out *o, const struct kstat_hdr *h,
    const struct ksfmt_stat *st, size_t n, const struct ks_selector *sel)
{
	struct ksfmt_list l;
	bool *pick;
	int nsel;

	if (o->mode > KSFMT_JSON)
		return -EINVAL;
	nsel = ksfmt_pick(o->mode, h, st, n, sel, &l, &pick);
	if (nsel < 0)
		return nsel;
	if (nsel == 0)
		;
	else if (o->mode == KSFMT_DEFAULT)
		render_default(o->buf, h, l.v, pick, l.n);
	else if (o->mode == KSFMT_JSON)
		render_json(o->buf, o->shown == 0, h, l.v, pick, l.n);
	else
		render_parseable(o->buf, o->mode, h, l.v, pick, l.n);
	if (nsel > 0)
		o->shown++;
	free(pick);
	ksfmt_list_done(&l);
	return sbuf_error(o->buf) != 0 ? -sbuf_error(o->buf) : nsel;
}

int
ksfmt_end(struct ksfmt_out *o)
{
	if (o->mode == KSFMT_JSON)
		sbuf_cat(o->buf, o->shown == 0 ? "[]\n" : "]\n");
	return sbuf_error(o->buf) != 0 ? -sbuf_error(o->buf) : 0;
}

int
ksfmt_render(struct sbuf *buf, enum ksfmt_mode mode,
    const struct ks_view *views, size_t n, const struct ks_selector *sel,
    const struct ks_pattern *class_pat, size_t *ret_matched)
{
	const struct ks_view **order;
	struct ksfmt_out o;
	size_t i, j;
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
	ksfmt_begin(&o, buf, mode);
	for (i = 0; i < j && error == 0; i++) {
		struct ksfmt_stat *st;
		size_t ns;

		error = ksfmt_stats(order[i], &st, &ns);
		if (error != 0)
			break;
		error = ksfmt_kstat(&o, order[i]->hdr, st, ns, sel);
		if (error > 0)
			error = 0;
		ksfmt_stats_free(st, ns);
	}
	free(order);
	if (error == 0)
		error = ksfmt_end(&o);
	if (error != 0)
		return error;
	if (ret_matched != NULL)
		*ret_matched = o.shown;
	return 0;
}
