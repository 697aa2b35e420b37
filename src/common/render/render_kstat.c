/* SPDX-License-Identifier: BSD-2-Clause */
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

#include "dec.h"
#include "dtype.h"
#include "numeric.h"
#include "render_kstat.h"
#include "stat_scalar.h"

void
ksfmt_time(char *buf, size_t len, hrtime_t t)
{
	/* The magnitude as unsigned: -t overflows for INT64_MIN, and the
	 * sign of a time between -1 s and 0 is in neither part. */
	uint64_t m = t < 0 ? (uint64_t)0 - (uint64_t)t : (uint64_t)t;

	if (t == 0)
		snprintf(buf, len, "0");
	else
		snprintf(buf, len, "%s%" PRIu64 ".%09" PRIu64, t < 0 ? "-" : "",
		    m / 1000000000, m % 1000000000);
}

const char *const ksfmt_type_names[KSFMT_NTYPES] = {
	[KSFMT_INT] = "int", [KSFMT_UINT] = "uint", [KSFMT_FIXED] = "fixed",
	[KSFMT_STRING] = "string", [KSFMT_ARRAY] = "array",
};

/* What fs's value is, into st: its type and, for numbers, the number;
 * for an array, fs's own counts (the caller keeps them if it must). */
static void
ksfmt_typed(const struct flat_stat *fs, struct ksfmt_stat *st)
{
	struct voistatdata_numeric num;

	st->n = 0;
	st->arr = NULL;
	st->narr = 0;
	switch (fs->vtype) {
	case FLAT_SCALAR:
		/* A type with no number (never a scalar statistic's) is
		 * shown as the text it has. */
		if (!dtype_is_scalar(fs->vs_dtype)) {
			st->type = KSFMT_STRING;
			break;
		}
		if (dtype_info[fs->vs_dtype].is_q) {
			st->type = KSFMT_FIXED;
			break;
		}
		numeric_load(fs->vs_dtype, fs->vsd, &num);
		st->type = dtype_info[fs->vs_dtype].is_signed ? KSFMT_INT :
		    KSFMT_UINT;
		st->n = st->type == KSFMT_INT ?
		    (uint64_t)numeric_s64(fs->vs_dtype, &num) :
		    numeric_u64(fs->vs_dtype, &num);
		break;
	case FLAT_STRING:
		st->type = KSFMT_STRING;
		break;
	case FLAT_U64:
		st->type = fs->f->is_signed ? KSFMT_INT : KSFMT_UINT;
		st->n = fs->u64;
		break;
	default:
		st->type = KSFMT_ARRAY;
		st->arr = fs->arr;
		st->narr = fs->n;
		break;
	}
}

int
ksfmt_json_value(struct sbuf *buf, const struct ksfmt_stat *st)
{
	uint16_t i;

	switch (st->type) {
	case KSFMT_INT:
		sbuf_printf(buf, "%" PRId64, (int64_t)st->n);
		break;
	case KSFMT_UINT:
		numeric_json_u64(buf, st->n);
		break;
	case KSFMT_STRING:
		stat_json_string(buf, st->value, strlen(st->value));
		break;
	case KSFMT_ARRAY:
		sbuf_putc(buf, '[');
		for (i = 0; i < st->narr; i++) {
			if (i > 0)
				sbuf_putc(buf, ',');
			numeric_json_u64(buf, st->arr[i]);
		}
		sbuf_putc(buf, ']');
		break;
	default:	/* a fixed-point number's decimal is a JSON number */
		sbuf_cat(buf, st->value);
		break;
	}
	return sbuf_error(buf);
}

void
ksfmt_json_names(struct sbuf *buf, const struct kstat_hdr *h)
{
	sbuf_cat(buf, "{\"module\":");
	stat_json_string(buf, h->module, strlen(h->module));
	sbuf_printf(buf, ",\"instance\":%d,\"name\":", (int)h->instance);
	stat_json_string(buf, h->name, strlen(h->name));
	sbuf_cat(buf, ",\"class\":");
	stat_json_string(buf, h->class_, strlen(h->class_));
}

/* One FlatStat: the value in the member its type says (the IDL's). */
static void
json_flat_stat(struct sbuf *buf, const struct ksfmt_stat *st)
{
	sbuf_cat(buf, "{\"name\":");
	stat_json_string(buf, st->name, strlen(st->name));
	sbuf_printf(buf, ",\"type\":\"%s\",", st->type < KSFMT_NTYPES ?
	    ksfmt_type_names[st->type] : "fixed");
	if (st->type == KSFMT_INT ||
	    (st->type == KSFMT_UINT && st->n <= INT64_MAX))
		sbuf_cat(buf, "\"value\":");
	else if (st->type == KSFMT_ARRAY)
		sbuf_cat(buf, "\"counts\":");
	else
		sbuf_cat(buf, "\"text\":");
	if (st->type == KSFMT_FIXED)
		stat_json_string(buf, st->value, strlen(st->value));
	else
		ksfmt_json_value(buf, st);
	sbuf_cat(buf, st->counter ? ",\"counter\":true}" :
	    ",\"counter\":false}");
}

int
ksfmt_json_data(struct sbuf *buf, const struct ksfmt_stat *st, size_t n,
    const struct ks_selector *sel)
{
	size_t i;
	int shown = 0;

	sbuf_putc(buf, '{');
	for (i = 0; i < n; i++) {
		if (sel != NULL && !ks_selector_match_stat(sel, st[i].name))
			continue;
		if (shown++ > 0)
			sbuf_putc(buf, ',');
		stat_json_string(buf, st[i].name, strlen(st[i].name));
		sbuf_putc(buf, ':');
		ksfmt_json_value(buf, &st[i]);
	}
	sbuf_putc(buf, '}');
	return sbuf_error(buf) != 0 ? -sbuf_error(buf) : shown;
}

int
ksfmt_json_kstat(struct sbuf *buf, bool flat, const struct kstat_hdr *h,
    const struct ksfmt_stat *st, size_t n, const struct ks_selector *sel)
{
	char t[40];
	size_t i;
	int shown = 0;

	ksfmt_json_names(buf, h);
	if (!flat) {
		ksfmt_time(t, sizeof(t), h->snaptime);
		sbuf_printf(buf, ",\"type\":%u,\"snaptime\":%s,\"data\":",
		    (unsigned)h->type, t);
		shown = ksfmt_json_data(buf, st, n, sel);
		sbuf_putc(buf, '}');
		return sbuf_error(buf) != 0 ? -sbuf_error(buf) : shown;
	}
	sbuf_printf(buf, ",\"type\":\"%s\",\"crtime\":%" PRId64
	    ",\"snaptime\":%" PRId64 ",\"stats\":[", ks_type_id(h->type),
	    (int64_t)h->crtime, (int64_t)h->snaptime);
	for (i = 0; i < n; i++) {
		if (sel != NULL && !ks_selector_match_stat(sel, st[i].name))
			continue;
		if (shown++ > 0)
			sbuf_putc(buf, ',');
		json_flat_stat(buf, &st[i]);
	}
	sbuf_cat(buf, "]}");
	return sbuf_error(buf) != 0 ? -sbuf_error(buf) : shown;
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
	ksfmt_typed(fs, s);
	s->name = strdup(flat_name(fs, name, sizeof(name)));
	s->value = strdup(sbuf_data(a->sb));
	if (s->narr > 0) {
		uint64_t *arr = malloc(s->narr * sizeof(*arr));

		if (arr != NULL)
			memcpy(arr, s->arr, s->narr * sizeof(*arr));
		s->arr = arr;
	}
	if (s->name == NULL || s->value == NULL ||
	    (s->narr > 0 && s->arr == NULL)) {
		free((char *)s->name);
		free((char *)s->value);
		free((uint64_t *)s->arr);
		return -ENOMEM;
	}
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
		free((uint64_t *)st[i].arr);
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
	    .value = l->crtime, .type = KSFMT_FIXED };
	l->v[k++] = (struct ksfmt_stat){ .name = "snaptime",
	    .value = l->snaptime, .type = KSFMT_FIXED };
	if (with_class)
		l->v[k++] = (struct ksfmt_stat){ .name = "class",
		    .value = h->class_, .type = KSFMT_STRING };
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
		if (sel == NULL || sel[i])
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
	char prefix[3 * KSTAT_STRLEN + 16], sep[1] = {
	    mode == KSFMT_COLON ? ':' : '\t' };
	size_t i;
	int plen;

	/* "module:instance:name:" once; then each line is copies. */
	plen = snprintf(prefix, sizeof(prefix), "%s:%d:%s:", h->module,
	    h->instance, h->name);
	if (plen < 0 || (size_t)plen >= sizeof(prefix))
		plen = 0;
	for (i = 0; i < n; i++) {
		if (sel != NULL && !sel[i])
			continue;
		sbuf_bcat(buf, prefix, (size_t)plen);
		sbuf_cat(buf, st[i].name);
		if (mode != KSFMT_NAMES) {
			sbuf_bcat(buf, sep, 1);
			sbuf_cat(buf, st[i].value);
		}
		sbuf_bcat(buf, "\n", 1);
	}
}

/* An array's numbers as kstat -j writes them ("[1, 2, 3]"). */
static void
render_json_array(struct sbuf *buf, const struct ksfmt_stat *st)
{
	uint16_t i;

	sbuf_putc(buf, '[');
	for (i = 0; i < st->narr; i++)
		sbuf_printf(buf, i > 0 ? ", %" PRIu64 : "%" PRIu64,
		    st->arr[i]);
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
		if (sel != NULL && !sel[i])
			continue;
		sbuf_cat(buf, any ? ",\n\t\t" : "\n\t\t");
		any = true;
		stat_json_string(buf, st[i].name, strlen(st[i].name));
		sbuf_cat(buf, ": ");
		if (st[i].type == KSFMT_STRING)
			stat_json_string(buf, st[i].value, strlen(st[i].value));
		else if (st[i].type == KSFMT_ARRAY)
			render_json_array(buf, &st[i]);
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
	o->scratch = NULL;
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

/* ------------------------------------------------------------ scratch */

/*
 * A run of kstats' flat statistics without an allocation per statistic:
 * names and values go into two growing buffers (offsets until the walk
 * ends, since the buffers may move), and the order is a permutation
 * kept with the names it sorted, reused while the names come out the
 * same.
 */
struct ksfmt_ent {
	uint32_t	 name, value;	/* offsets */
	uint32_t	 arr;		/* an offset into nums */
	uint16_t	 narr;
	uint8_t		 type;
	bool		 counter;
	uint64_t	 n;
};

struct ksfmt_scratch {
	struct ksfmt_ent *ent;
	size_t		  nent, cent;
	char		 *names, *values;
	size_t		  nlen, ncap, vlen, vcap;
	uint64_t	 *nums;		/* arrays' counts */
	size_t		  nnum, cnum;
	char		 *keys;		/* the names the order was made for */
	size_t		  klen, kcap;
	uint32_t	 *perm;
	size_t		  cperm;
	struct ksfmt_stat *v;		/* the sorted result */
	size_t		  cv;
	struct sbuf	 *one;		/* a value made by numeric_format */
	bool		  failed;
};

static int
scr_grow(char **buf, size_t *cap, size_t need)
{
	size_t nc = *cap > 0 ? *cap : 4096;
	char *p;

	while (nc < need)
		nc *= 2;
	if (nc == *cap)
		return 0;
	p = realloc(*buf, nc);
	if (p == NULL)
		return -ENOMEM;
	*buf = p;
	*cap = nc;
	return 0;
}

/* Append len bytes and a NUL to a buffer. Returns: their offset; -1. */
static int64_t
scr_put(char **buf, size_t *len, size_t *cap, const char *a, size_t alen,
    const char *b, size_t blen)
{
	size_t at = *len;

	if (scr_grow(buf, cap, at + alen + blen + 1) < 0)
		return -1;
	memcpy(*buf + at, a, alen);
	if (blen > 0)
		memcpy(*buf + at + alen, b, blen);
	(*buf)[at + alen + blen] = '\0';
	*len = at + alen + blen + 1;
	return (int64_t)at;
}

/* An integer in decimal, backwards into the end of buf. Returns: its
 * first character. */
static char *
scr_u64(char *end, uint64_t v, bool neg)
{
	*--end = '\0';
	end = dec_u64_end(end, v);
	if (neg)
		*--end = '-';
	return end;
}

/* A value as kstat(1M) prints it, made without printf where it is an
 * integer. Returns: the text (in nbuf, or in sc->one); NULL on error. */
static const char *
scr_value(struct ksfmt_scratch *sc, const struct flat_stat *fs, char *nbuf,
    size_t nlen)
{
	struct voistatdata_numeric num;
	int64_t x;

	if (fs->vtype == FLAT_SCALAR) {
		numeric_load(fs->vs_dtype, fs->vsd, &num);
		switch (fs->vs_dtype) {
		case VSD_DTYPE_INT_U32:
			return scr_u64(nbuf + nlen, num.int32.u32, false);
		case VSD_DTYPE_INT_S32:
			x = num.int32.s32;
			return scr_u64(nbuf + nlen, x < 0 ? -(uint64_t)x :
			    (uint64_t)x, x < 0);
		case VSD_DTYPE_INT_U64:
		case VSD_DTYPE_INT_ULONG:
			return scr_u64(nbuf + nlen, num.int64.u64, false);
		case VSD_DTYPE_INT_S64:
		case VSD_DTYPE_INT_SLONG:
			x = num.int64.s64;
			return scr_u64(nbuf + nlen, x < 0 ? -(uint64_t)x :
			    (uint64_t)x, x < 0);
		default:
			break;
		}
	} else if (fs->vtype == FLAT_U64) {
		x = (int64_t)fs->u64;
		if (fs->f->is_signed && x < 0)
			return scr_u64(nbuf + nlen, -(uint64_t)x, true);
		return scr_u64(nbuf + nlen, fs->u64, false);
	}
	sbuf_clear(sc->one);
	acc_value(sc->one, fs);
	if (sbuf_finish(sc->one) != 0)
		return NULL;
	return sbuf_data(sc->one);
}

/* Keep an array's counts in sc->nums. Returns: their offset; -1. */
static int64_t
scr_nums(struct ksfmt_scratch *sc, const uint64_t *arr, uint16_t n)
{
	size_t at = sc->nnum;

	if (at + n > sc->cnum) {
		size_t nc = sc->cnum > 0 ? sc->cnum : 256;
		void *p;

		while (nc < at + n)
			nc *= 2;
		p = realloc(sc->nums, nc * sizeof(*sc->nums));
		if (p == NULL)
			return -1;
		sc->nums = p;
		sc->cnum = nc;
	}
	if (n > 0)
		memcpy(sc->nums + at, arr, n * sizeof(*arr));
	sc->nnum = at + n;
	return (int64_t)at;
}

/* Add a statistic named n1 (and n2 after it) whose value is ts (its text
 * value[vlen], its type, its numbers). */
static int
scr_add(struct ksfmt_scratch *sc, const char *n1, size_t l1, const char *n2,
    size_t l2, const char *value, size_t vlen, const struct ksfmt_stat *ts)
{
	struct ksfmt_ent *e;
	int64_t no, vo, ao;

	if (sc->nent == sc->cent) {
		size_t nc = sc->cent > 0 ? 2 * sc->cent : 64;
		void *p = realloc(sc->ent, nc * sizeof(*sc->ent));

		if (p == NULL)
			return -ENOMEM;
		sc->ent = p;
		sc->cent = nc;
	}
	no = scr_put(&sc->names, &sc->nlen, &sc->ncap, n1, l1, n2, l2);
	vo = scr_put(&sc->values, &sc->vlen, &sc->vcap, value, vlen, NULL, 0);
	ao = scr_nums(sc, ts->arr, ts->narr);
	if (no < 0 || vo < 0 || ao < 0 || no > UINT32_MAX ||
	    vo > UINT32_MAX || ao > UINT32_MAX)
		return -ENOMEM;
	e = &sc->ent[sc->nent++];
	e->name = (uint32_t)no;
	e->value = (uint32_t)vo;
	e->arr = (uint32_t)ao;
	e->narr = ts->narr;
	e->type = ts->type;
	e->counter = ts->counter;
	e->n = ts->n;
	return 0;
}

static int
scr_push(const struct flat_stat *fs, void *arg)
{
	struct ksfmt_scratch *sc = arg;
	char num[32];
	const char *value = scr_value(sc, fs, num, sizeof(num));
	const char *a = fs->prefix != NULL ? fs->prefix : fs->field != NULL ?
	    fs->field : "";
	const char *b = fs->prefix != NULL && fs->field != NULL ? fs->field :
	    NULL;
	size_t la = strlen(a), lb = b != NULL ? strlen(b) : 0;
	char name[2 * 128];
	struct ksfmt_stat ts;

	if (value == NULL)
		return -ENOMEM;
	ksfmt_typed(fs, &ts);
	ts.counter = fs->counter;
	/* "<prefix>.<field>", as flat_name() spells it (and cuts it). */
	if (b != NULL) {
		if (la + 1 + lb < sizeof(name)) {
			memcpy(name, a, la);
			name[la] = '.';
			memcpy(name + la + 1, b, lb);
			la = la + 1 + lb;
		} else {
			flat_name(fs, name, sizeof(name));
			la = strlen(name);
		}
		a = name;
	}
	return scr_add(sc, a, la, NULL, 0, value, strlen(value), &ts);
}

/* Entry numbers by their names, as stat_cmp orders statistics. */
static int
scr_cmp(const void *x, const void *y, void *arg)
{
	const struct ksfmt_scratch *sc = arg;
	const char *a = sc->names + sc->ent[*(const uint32_t *)x].name;
	const char *b = sc->names + sc->ent[*(const uint32_t *)y].name;
	int c = strcasecmp(a, b);

	return c != 0 ? c : strcmp(a, b);
}

int
ksfmt_view_stats(struct ksfmt_out *o, const struct ks_view *v,
    bool with_times, bool with_class, const struct ksfmt_stat **ret,
    size_t *ret_n)
{
	struct ksfmt_scratch *sc = o->scratch;
	const struct kstat_hdr *h = v->hdr;
	static const struct ksfmt_stat fixed = { .type = KSFMT_FIXED },
	    string = { .type = KSFMT_STRING };
	char t[40];
	size_t i;
	int r;

	if (sc == NULL) {
		sc = o->scratch = calloc(1, sizeof(*sc));
		if (sc != NULL)
			sc->one = sbuf_new_auto();
		if (sc == NULL || sc->one == NULL)
			return -ENOMEM;
	}
	sc->nent = sc->nlen = sc->vlen = sc->nnum = 0;
	r = flat_walk(v, scr_push, sc);
	if (r != 0)
		return r < 0 ? r : -EINVAL;
	if (with_times) {
		ksfmt_time(t, sizeof(t), h->crtime);
		r = scr_add(sc, "crtime", 6, NULL, 0, t, strlen(t), &fixed);
		ksfmt_time(t, sizeof(t), h->snaptime);
		if (r == 0)
			r = scr_add(sc, "snaptime", 8, NULL, 0, t, strlen(t),
			    &fixed);
	}
	if (r == 0 && with_class)
		r = scr_add(sc, "class", 5, NULL, 0, h->class_,
		    strlen(h->class_), &string);
	if (r < 0)
		return r;
	if (sc->nent > sc->cperm || sc->nent > sc->cv) {
		void *p = realloc(sc->perm, sc->nent * sizeof(*sc->perm));
		void *q = p != NULL ? realloc(sc->v, sc->nent *
		    sizeof(*sc->v)) : NULL;

		if (p != NULL)
			sc->perm = p;
		if (q == NULL)
			return -ENOMEM;
		sc->v = q;
		sc->cperm = sc->cv = sc->nent;
		sc->klen = 0;		/* the order must be made again */
	}
	/* The names as before: the same order. Else sort them (offsets
	 * into the names, so the comparison reads the names) and keep
	 * them and their order. */
	if (sc->klen != sc->nlen || memcmp(sc->keys, sc->names,
	    sc->nlen) != 0) {
		for (i = 0; i < sc->nent; i++)
			sc->perm[i] = (uint32_t)i;
		qsort_r(sc->perm, sc->nent, sizeof(*sc->perm), scr_cmp, sc);
		if (scr_grow(&sc->keys, &sc->kcap, sc->nlen + 1) < 0) {
			sc->klen = 0;
			return -ENOMEM;
		}
		memcpy(sc->keys, sc->names, sc->nlen);
		sc->klen = sc->nlen;
	}
	for (i = 0; i < sc->nent; i++) {
		const struct ksfmt_ent *e = &sc->ent[sc->perm[i]];

		sc->v[i] = (struct ksfmt_stat){
			.name = sc->names + e->name,
			.value = sc->values + e->value,
			.type = e->type, .counter = e->counter,
			.n = e->n, .narr = e->narr,
			.arr = e->narr > 0 ? sc->nums + e->arr : NULL,
		};
	}
	*ret = sc->v;
	*ret_n = sc->nent;
	return 0;
}

int
ksfmt_list(struct ksfmt_out *o, const struct kstat_hdr *h,
    const struct ksfmt_stat *st, size_t n, const struct ks_selector *sel)
{
	bool small[128], *pick = NULL;
	int nsel = (int)n;
	size_t k;

	if (o->mode > KSFMT_JSON)
		return -EINVAL;
	if (sel != NULL) {
		pick = n <= sizeof(small) / sizeof(small[0]) ? small :
		    calloc(n, sizeof(*pick));
		if (pick == NULL)
			return -ENOMEM;
		for (k = 0, nsel = 0; k < n; k++) {
			pick[k] = ks_selector_match_stat(sel, st[k].name);
			nsel += pick[k];
		}
	}
	if (nsel == 0)
		;
	else if (o->mode == KSFMT_DEFAULT)
		render_default(o->buf, h, st, pick, n);
	else if (o->mode == KSFMT_JSON)
		render_json(o->buf, o->shown == 0, h, st, pick, n);
	else
		render_parseable(o->buf, o->mode, h, st, pick, n);
	if (nsel > 0)
		o->shown++;
	if (pick != small)
		free(pick);
	return sbuf_error(o->buf) != 0 ? -sbuf_error(o->buf) : nsel;
}

int
ksfmt_view(struct ksfmt_out *o, const struct ks_view *v,
    const struct ks_selector *sel)
{
	const struct ksfmt_stat *st;
	bool parse = o->mode == KSFMT_PARSEABLE || o->mode == KSFMT_COLON ||
	    o->mode == KSFMT_NAMES;
	size_t n;
	int r;

	if (o->mode > KSFMT_JSON)
		return -EINVAL;
	r = ksfmt_view_stats(o, v, true, parse, &st, &n);
	if (r < 0)
		return r;
	return ksfmt_list(o, v->hdr, st, n, sel);
}

void
ksfmt_done(struct ksfmt_out *o)
{
	struct ksfmt_scratch *sc = o->scratch;

	if (sc == NULL)
		return;
	free(sc->ent);
	free(sc->names);
	free(sc->values);
	free(sc->nums);
	free(sc->keys);
	free(sc->perm);
	free(sc->v);
	sbuf_delete(sc->one);
	free(sc);
	o->scratch = NULL;
}
