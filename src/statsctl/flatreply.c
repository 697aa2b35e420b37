/*
 * flatreply.c: statsd's flat kstats (Scrape's "flat" format) decoded into the
 * renderer's input, and the Scrape call that yields them kstat by kstat.
 */
#include <errno.h>
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

int
sc_flat_decode(const json_t *o, struct sc_flat *f)
{
	const json_t *stats = json_object_get(o, "stats"), *s;
	const json_t *inst = json_object_get(o, "instance");
	const json_t *crt = json_object_get(o, "crtime");
	const json_t *snap = json_object_get(o, "snaptime");
	int type = ks_type_from_id(js_str(o, "type", NULL));
	size_t i;

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
	if (f->st == NULL)
		return -ENOMEM;
	json_array_foreach(stats, i, s) {
		struct ksfmt_stat *st = &f->st[f->n];

		st->name = js_str(s, "name", NULL);
		st->value = js_str(s, "value", NULL);
		if (st->name == NULL || st->value == NULL) {
			sc_flat_done(f);
			return -EPROTO;
		}
		st->quoted = json_is_true(json_object_get(s, "string"));
		st->array = json_is_true(json_object_get(s, "array"));
		st->counter = json_is_true(json_object_get(s, "counter"));
		f->n++;
	}
	return 0;
}

void
sc_flat_done(struct sc_flat *f)
{
	free(f->st);
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
