/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * flatreply.c: statsd's flat kstats (Scrape's "flat" format) decoded into the
 * renderer's input, and the Scrape call that yields them kstat by kstat.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "output.h"
#include "flatreply.h"

/* Copy a string member into dst (cap bytes), refusing a missing one. */
static int
sc_flat_str(const json_t *o, const char *key, char *dst, size_t cap)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_string(v) || json_string_length(v) >= cap)
		return -EPROTO;
	memcpy(dst, json_string_value(v), json_string_length(v) + 1);
	return 0;
}

/* Keep p (allocated) for f to free. Returns: p; NULL. */
static void *
sc_flat_own(struct sc_flat *f, void *p)
{
	if (p != NULL)
		f->own[f->nown++] = p;
	return p;
}

/* A FlatStat's value into st, by its type; the text kstat(1M) prints
 * of a number is made here from the number. Returns: 0; -EPROTO;
 * -ENOMEM. */
static int
sc_flat_value(struct sc_flat *f, const json_t *s, struct ksfmt_stat *st)
{
	const json_t *v = json_object_get(s, "value");
	const json_t *counts = json_object_get(s, "counts");
	const char *type = js_str(s, "type", "");
	const char *text = js_str(s, "text", NULL);
	uint64_t *arr;
	char *buf;
	size_t i, len;

	for (st->type = 0; st->type < KSFMT_NTYPES; st->type++)
		if (strcmp(type, ksfmt_type_names[st->type]) == 0)
			break;
	switch (st->type) {
	case KSFMT_INT:
		if (!json_is_integer(v))
			return -EPROTO;
		st->n = (uint64_t)json_integer_value(v);
		break;
	case KSFMT_UINT:
		if (js_u64(v != NULL ? v : json_object_get(s, "text"),
		    &st->n) < 0)
			return -EPROTO;
		break;
	case KSFMT_FIXED:
	case KSFMT_STRING:
		if (text == NULL)
			return -EPROTO;
		st->value = text;
		return 0;
	case KSFMT_ARRAY:
		if (!json_is_array(counts) || json_array_size(counts) >
		    UINT16_MAX)
			return -EPROTO;
		st->narr = (uint16_t)json_array_size(counts);
		arr = sc_flat_own(f, calloc(st->narr + 1u, sizeof(*arr)));
		buf = sc_flat_own(f, malloc(21u * st->narr + 1));
		if (arr == NULL || buf == NULL)
			return -ENOMEM;
		for (i = len = 0; i < st->narr; i++) {
			if (js_u64(json_array_get(counts, i), &arr[i]) < 0)
				return -EPROTO;
			len += (size_t)sprintf(buf + len, i > 0 ? " %" PRIu64 :
			    "%" PRIu64, arr[i]);
		}
		buf[len] = '\0';
		st->arr = arr;
		st->value = buf;
		return 0;
	default:
		return -EPROTO;
	}
	buf = sc_flat_own(f, malloc(24));
	if (buf == NULL)
		return -ENOMEM;
	if (st->type == KSFMT_INT)
		sprintf(buf, "%" PRId64, (int64_t)st->n);
	else
		sprintf(buf, "%" PRIu64, st->n);
	st->value = buf;
	return 0;
}

int
sc_flat_decode(const json_t *o, struct sc_flat *f)
{
	const json_t *stats = json_object_get(o, "stats"), *s;
	const json_t *inst = json_object_get(o, "instance");
	const json_t *crt = json_object_get(o, "crtime");
	const json_t *snap = json_object_get(o, "snaptime");
	int type = ks_type_from_id(js_str(o, "type", NULL));
	size_t i;
	int r;

	memset(f, 0, sizeof(*f));
	if (!json_is_object(o) || !json_is_array(stats) || type < 0 ||
	    !json_is_integer(inst) || !json_is_integer(crt) ||
	    !json_is_integer(snap) ||
	    sc_flat_str(o, "module", f->hdr.module, sizeof(f->hdr.module)) ||
	    sc_flat_str(o, "name", f->hdr.name, sizeof(f->hdr.name)) ||
	    sc_flat_str(o, "class", f->hdr.class_, sizeof(f->hdr.class_)))
		return -EPROTO;
	f->hdr.type = (uint8_t)type;
	f->hdr.instance = (int32_t)json_integer_value(inst);
	f->hdr.crtime = (hrtime_t)json_integer_value(crt);
	f->hdr.snaptime = (hrtime_t)json_integer_value(snap);
	f->st = calloc(json_array_size(stats) + 1, sizeof(*f->st));
	/* Each statistic owns two allocations at most. */
	f->own = calloc(2 * json_array_size(stats) + 1, sizeof(*f->own));
	if (f->st == NULL || f->own == NULL) {
		sc_flat_done(f);
		return -ENOMEM;
	}
	json_array_foreach(stats, i, s) {
		struct ksfmt_stat *st = &f->st[f->n];

		st->name = js_str(s, "name", NULL);
		r = st->name != NULL ? sc_flat_value(f, s, st) : -EPROTO;
		if (r < 0) {
			sc_flat_done(f);
			return r;
		}
		st->counter = json_is_true(json_object_get(s, "counter"));
		f->n++;
	}
	return 0;
}

void
sc_flat_done(struct sc_flat *f)
{
	size_t i;

	for (i = 0; i < f->nown; i++)
		free(f->own[i]);
	free(f->own);
	free(f->st);
	f->own = NULL;
	f->nown = 0;
	f->st = NULL;
	f->n = 0;
}

int
sc_flat_reply(const json_t *reply, sc_flat_fn fn, void *arg)
{
	const json_t *flat = json_object_get(reply, "flat");
	struct sc_flat f;
	size_t i;
	int r;

	if (!json_is_array(flat))
		return sc_error("statsd sent a Scrape reply without its "
		    "flat kstats");
	for (i = 0; i < json_array_size(flat); i++) {
		r = sc_flat_decode(json_array_get(flat, i), &f);
		if (r == -ENOMEM)
			return sc_error("out of memory");
		if (r < 0)
			return sc_error("statsd sent a flat kstat that is not "
			    "shaped as its interface says");
		r = fn(&f, arg);
		sc_flat_done(&f);
		if (r != 0)
			return r;
	}
	return 0;
}

/* One reply of the call to sc_flat_reply. */
struct sc_flat_call {
	sc_flat_fn	 fn;
	void		*arg;
};

static int
sc_flat_each(const json_t *reply, void *arg)
{
	struct sc_flat_call *c = arg;

	return sc_flat_reply(reply, c->fn, c->arg);
}

int
sc_flat_scrape(struct sc *sc, json_t *params, sc_flat_fn fn, void *arg)
{
	struct sc_flat_call c = { fn, arg };

	if (params == NULL)
		params = json_object();
	json_object_set_new(params, "format", json_string("flat"));
	return sc_call_each(sc, VL_M_SCRAPE, params, sc_flat_each, &c);
}
