/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kobj.c: the kstats this process created (published blobs, kstat and
 * kstat2 providers, Linux interfaces): registering their templates,
 * creating them, creating them again after statsd restarts, deleting them;
 * and the read-only store segments they live in, read patiently.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client_priv.h"
#include "jdump.h"
#include "kstat_hdr.h"

int
cl_kobj_names(struct cl_kobj *o, const char *module, int instance,
    const char *name, const char *class_)
{
	struct input_error err = { 0 };
	int r;

	r = ks_hdr_init(&o->hdr, module, instance, name, class_,
	    KSTAT_TYPE_BLOB, 0, &err);
	if (r < 0)
		return cl_fail(r, "%s: %s", err.where[0] != '\0' ?
		    err.where : "kstat", err.msg);
	return 0;
}

void
cl_kobj_free(struct cl_kobj *o)
{
	if (o == NULL)
		return;
	json_decref(o->tpl);
	free(o->tplkey);
	free(o->tplspec);
	free(o);
}

/*
 * The parameters of KstatCreate and KstatCreateMany are written as text
 * (jdump.h jtext), not built as jansson objects to be encoded and freed:
 * that building, encoding and freeing was 40 % of the client's
 * instructions for a kstat_install(). Every string written here was
 * checked as printable ASCII when it was set (kstat_hdr.c), but for the
 * definitions' lines, which a text that is not UTF-8 would spoil (the
 * call then fails as out of memory, as json_string() made it fail).
 */

/* "flags": the flags KstatCreate takes of o, by their protocol names. */
static void
cl_kobj_flags_text(const struct cl_kobj *o, struct jtext *t)
{
	const char *names[KS_NFLAG_NAMES];
	size_t i, n;

	n = ks_flags_names(o->hdr.flags & (KS_FLAGS_MEANT |
	    KSTAT2_FLAG_GZ_VIS), names);
	jtext_key(t, "flags");
	jtext_open(t, '[');
	for (i = 0; i < n; i++)
		jtext_str(t, names[i]);
	jtext_close(t, ']');
}

/* "path": o's kstat2 path, segment by segment (if it has one). */
static void
cl_kobj_path_text(const struct cl_kobj *o, struct jtext *t)
{
	char seg[KS_PATH_MAX + 1];
	uint32_t i, n = ks_hdr_npseg(&o->hdr);

	if (o->hdr.path[0] == '\0')
		return;
	jtext_key(t, "path");
	jtext_open(t, '[');
	for (i = 0; i < n; i++)
		if (ks_hdr_pseg(&o->hdr, i, seg, sizeof(seg)) == 0)
			jtext_str(t, seg);
	jtext_close(t, ']');
}

/* The Kstat object of a reply into o. Returns: 0; -EPROTO. */
static int
cl_kobj_take(struct cl_kobj *o, json_t *ks)
{
	json_t *jh = json_object_get(ks, "handle"),
	    *jseg = json_object_get(ks, "segment"),
	    *jslot = json_object_get(ks, "slot"),
	    *jgen = json_object_get(ks, "gen");
	json_int_t handle, slot, gen;
	size_t seglen;

	/* A Kstat, or KstatCreateMany's KstatMade. Read field by field:
	 * json_unpack() reading its format was a tenth of the call. */
	if (!json_is_integer(jh) || !json_is_string(jseg) ||
	    !json_is_integer(jslot) || !json_is_integer(jgen))
		return cl_fail(EPROTO, "KstatCreate: a reply without handle, "
		    "segment, slot and gen");
	handle = json_integer_value(jh);
	slot = json_integer_value(jslot);
	gen = json_integer_value(jgen);
	seglen = json_string_length(jseg);
	if (handle <= 0 || handle > UINT32_MAX || slot < 0 ||
	    slot > UINT32_MAX || gen < 0 || gen > UINT32_MAX ||
	    seglen >= sizeof(o->seg) ||
	    memchr(json_string_value(jseg), '\0', seglen) != NULL)
		return cl_fail(EPROTO, "KstatCreate: a reply without handle, "
		    "segment, slot and gen");
	o->ref.slot = (uint32_t)slot;
	o->ref.gen = (uint32_t)gen;
	memcpy(o->seg, json_string_value(jseg), seglen + 1);
	/* Where its blob lies now, asked of a restarted statsd, so that it
	 * takes no place a published blob of this process (or another's)
	 * had; a published blob's is the one its pointer shows, kept. */
	if (!o->at_shown) {
		struct cl_seg *sg = cl_segs_find(&cl.segs, o->seg);
		uint32_t bsize, chunk;
		uint64_t off;

		o->at = sg != NULL && sg->r != NULL && cl_store_span(sg->r,
		    o->ref, &off, &bsize, &chunk) == 0 ? off : 0;
	}
	atomic_store_explicit(&o->handle, (uint32_t)handle,
	    memory_order_release);
	cl_image_take_locked(o);
	return 0;
}

/* ------------------------------------------------------------- templates */

static uint64_t
cl_tpl_hash(const char *text)
{
	uint64_t h = 14695981039346656037ull;	/* FNV-1a */

	for (; *text != '\0'; text++)
		h = (h ^ (uint8_t)*text) * 1099511628211ull;
	return h;
}

/* What this connection registered as text, if it did. */
static struct cl_tplreg *
cl_tplreg_find(const char *text, uint64_t hash)
{
	unsigned i;

	for (i = 0; i < CL_TPLREGS; i++) {
		struct cl_tplreg *t = &cl.tplregs[i];

		if (t->conn == cl.conn_serial && t->hash == hash &&
		    strcmp(t->text, text) == 0)
			return t;
	}
	return NULL;
}

static void
cl_tplreg_clear(struct cl_tplreg *t)
{
	json_decref(t->obj);
	free(t->text);
	free(t->spec);
	memset(t, 0, sizeof(*t));
}

/* Remember that this connection registered text as spec (both taken
 * over), in place of the oldest entry. */
static void
cl_tplreg_add(json_t *obj, char *text, uint64_t hash, char *spec)
{
	struct cl_tplreg *t = &cl.tplregs[cl.tplreg_next++ % CL_TPLREGS];

	cl_tplreg_clear(t);
	t->conn = cl.conn_serial;
	t->obj = json_incref(obj);
	t->hash = hash;
	t->text = text;
	t->spec = spec;
}

void
cl_tplregs_free_locked(void)
{
	unsigned i;

	for (i = 0; i < CL_TPLREGS; i++)
		cl_tplreg_clear(&cl.tplregs[i]);
}

/*
 * Register template tpl (TemplateAdd's parameters) on this connection,
 * once: later kstats of the same template name it by the spec statsd
 * gave, without sending it again. key is tpl's text, or a text that
 * tells it as surely (NULL: encode tpl). statsd keeps a template while a
 * kstat uses it, and a client's unused ones until that client needs the
 * room: a create refused for a template statsd let go registers it again
 * (fresh: even if this connection did).
 * Returns: 0 and *ret_spec (a copy); -errno (the last error says why).
 */
static int
cl_tpl_register_locked(json_t *tpl, const char *key, bool fresh,
    char **ret_spec)
{
	struct vlc_reply rep;
	struct cl_tplreg *t;
	const char *spec = NULL;
	char *text, *copy;
	uint64_t hash;
	int r;

	*ret_spec = NULL;
	/* The object registered already (a publisher's template, made once
	 * for its id): no need to encode it to know. */
	for (t = cl.tplregs; !fresh && t < cl.tplregs + CL_TPLREGS; t++)
		if (t->conn == cl.conn_serial && t->obj == tpl) {
			*ret_spec = strdup(t->spec);
			return *ret_spec != NULL ? 0 : -ENOMEM;
		}
	text = key != NULL ? strdup(key) : json_dumps(tpl, JSON_COMPACT);
	if (text == NULL)
		return -ENOMEM;
	hash = cl_tpl_hash(text);
	t = cl_tplreg_find(text, hash);
	if (t != NULL && !fresh) {
		free(text);
		*ret_spec = strdup(t->spec);
		return *ret_spec != NULL ? 0 : -ENOMEM;
	}
	if (t != NULL)
		cl_tplreg_clear(t);
	r = cl_call_locked(VL_M_TEMPLATE_ADD, json_incref(tpl), NULL, 0, &rep);
	if (r < 0) {
		free(text);
		return r;
	}
	(void)json_unpack(rep.params, "{s:{s:s}}", "template", "spec", &spec);
	if (spec == NULL) {
		vlc_reply_done(&rep);
		free(text);
		return cl_fail(EPROTO, "TemplateAdd: a reply without the "
		    "template's spec");
	}
	*ret_spec = strdup(spec);
	copy = strdup(spec);
	vlc_reply_done(&rep);
	if (*ret_spec == NULL || copy == NULL) {
		free(*ret_spec);
		*ret_spec = NULL;
		free(copy);
		free(text);
		return -ENOMEM;
	}
	cl_tplreg_add(tpl, text, hash, copy);
	return 0;
}

/* Did an older statsd refuse KstatCreate's brief or definitions, as
 * parameters it does not know? */
static bool
cl_no_brief(const struct vlc_reply *rep)
{
	const char *what = NULL;

	if (rep->error == NULL ||
	    strcmp(rep->error, VL_ERR_INVALID_PARAMETER) != 0)
		return false;
	(void)json_unpack(rep->params, "{s:s}", "parameter", &what);
	return what != NULL && (strcmp(what, "brief") == 0 ||
	    strcmp(what, "definitions") == 0);
}

/* Did statsd refuse a create for a template it no longer has? */
static bool
cl_no_template(const struct vlc_reply *rep)
{
	return rep->error != NULL &&
	    strcmp(rep->error, VL_ERR_NO_SUCH_TEMPLATE) == 0;
}

/*
 * The kstat that exists under o's name: it must be of o's template, and
 * this client's to update (joined, its updates would be statsd's to
 * refuse, while the application read the other user's data as its own).
 * A kstat of another user (or zone) is never joined, unless this client
 * is privileged: statsd applies a privileged peer's updates to any
 * kstat. With take, o becomes it.
 * Returns: 0; -EEXIST (another template); -EPERM (another user's);
 * -ENOENT (none); -errno of the call. The last error says which.
 */
static int
cl_kobj_join_locked(struct cl_kobj *o, bool take)
{
	struct vlc_reply rep;
	json_t *ks;
	const char *tpl = "";
	json_int_t owner = -1, zone = 0;
	int r;

	r = cl_call_locked(VL_M_LOOKUP, json_pack("{s:s, s:i, s:s}",
	    "module", o->hdr.module, "instance", (int)o->hdr.instance, "name",
	    o->hdr.name), NULL, 0, &rep);
	if (r < 0)
		return r;
	ks = json_array_get(json_object_get(rep.params, "kstats"), 0);
	if (ks == NULL) {
		vlc_reply_done(&rep);
		return -ENOENT;
	}
	(void)json_unpack(ks, "{s:s, s?I, s?I}", "template", &tpl, "owner",
	    &owner, "zone", &zone);
	if (strcmp(tpl, o->tplspec) != 0) {
		vlc_reply_done(&rep);
		return cl_fail(EEXIST, "kstat %s:%d:%s exists with another "
		    "template", o->hdr.module, (int)o->hdr.instance, o->hdr.name);
	}
	if (!cl.privileged && (owner != cl.peer_uid || zone != cl.peer_zone)) {
		vlc_reply_done(&rep);
		return cl_fail(EPERM, "kstat %s:%d:%s exists, owned by uid "
		    "%lld%s: not joined", o->hdr.module, (int)o->hdr.instance,
		    o->hdr.name, (long long)owner, zone != cl.peer_zone ?
		    " of another zone" : "");
	}
	r = take ? cl_kobj_take(o, ks) : 0;
	vlc_reply_done(&rep);
	return r;
}

/* Where o's blob was, into KstatCreate's parameters or o's KstatName: a
 * restarted statsd lays it out there if it can, so a published blob's
 * pointer keeps showing it, and no kstat takes another's place. */
static void
cl_kobj_at_text(const struct cl_kobj *o, struct jtext *t)
{
	if (o->at == 0 || o->seg[0] == '\0')
		return;
	jtext_key(t, "at_segment");
	jtext_str(t, o->seg);
	jtext_key(t, "at_offset");
	jtext_int(t, (int64_t)o->at);
}

/* kstat2's content type and scale and o's ndata, for KstatCreate (or
 * KstatCreateMany), where they are not the defaults. */
static void
cl_kobj_content_text(const struct cl_kobj *o, struct jtext *t)
{
	if (o->hdr.content != 0 && ks_content_id(o->hdr.content) != NULL) {
		jtext_key(t, "content");
		jtext_str(t, ks_content_id(o->hdr.content));
	}
	if (o->hdr.scale > 1) {
		jtext_key(t, "scale");
		jtext_int(t, o->hdr.scale > INT64_MAX ? INT64_MAX :
		    (int64_t)o->hdr.scale);
	}
	if (o->ndata != 0) {
		jtext_key(t, "ndata");
		jtext_int(t, (int64_t)o->ndata);
	}
}

/* A key and its string. */
static void
cl_text_str(struct jtext *t, const char *key, const char *s)
{
	jtext_key(t, key);
	jtext_str(t, s);
}

/* o's module, instance, name and class, and its description and path if
 * it has them: what KstatCreate and each of KstatCreateMany's names say
 * first. */
static void
cl_kobj_name_text(const struct cl_kobj *o, struct jtext *t)
{
	cl_text_str(t, "module", o->hdr.module);
	jtext_key(t, "instance");
	jtext_int(t, (int)o->hdr.instance);
	cl_text_str(t, "name", o->hdr.name);
	cl_text_str(t, "class", o->hdr.class_);
	if (o->hdr.desc[0] != '\0')
		cl_text_str(t, "description", o->hdr.desc);
	cl_kobj_path_text(o, t);
}

static int
cl_kobj_make_locked(struct cl_kobj *o, bool again)
{
	struct vlc_reply rep;
	struct jtext t = { 0 };
	bool revived = false, fresh = false, plain;
	char *p;
	int r;

retry:
	free(o->tplspec);
	r = cl_tpl_register_locked(o->tpl, o->tplkey, fresh, &o->tplspec);
	if (r < 0)
		return r;

	jtext_open(&t, '{');
	cl_kobj_name_text(o, &t);
	cl_text_str(&t, "template", o->tplspec);
	cl_text_str(&t, "type", ks_type_id(o->hdr.type));
	cl_kobj_flags_text(o, &t);
	if (o->has_zone) {
		jtext_key(&t, "zone");
		jtext_int(&t, o->zone);
	}
	cl_kobj_content_text(o, &t);
	cl_kobj_at_text(o, &t);
	/* The reply as KstatMade, and the definitions in the same call:
	 * one round trip, nothing decoded the client does not use. */
	plain = cl.plain_create == cl.conn_serial;
	if (!plain) {
		jtext_key(&t, "brief");
		jtext_bool(&t, true);
	}
	if (!plain && o->defs != NULL && o->defs[0] != '\0')
		cl_text_str(&t, "definitions", o->defs);
	jtext_close(&t, '}');
	p = jtext_end(&t, NULL);
	if (p == NULL)
		return -ENOMEM;
	o->defs_taken = false;
	r = cl_call_text_locked(VL_M_KSTAT_CREATE, p, &rep);
	free(p);
	if (r < 0 && !fresh && cl_no_template(&rep)) {
		vlc_reply_done(&rep);
		fresh = true;
		goto retry;
	}
	if (r < 0 && !plain && cl_no_brief(&rep)) {
		vlc_reply_done(&rep);
		cl.plain_create = cl.conn_serial;
		goto retry;
	}
	if (r == -EEXIST && (o->join || again)) {
		vlc_reply_done(&rep);
		r = cl_kobj_join_locked(o, true);
	} else if (r == 0) {
		json_t *ks = json_object_get(rep.params, "made");

		revived = json_is_true(json_object_get(rep.params, "revived"));
		r = cl_kobj_take(o, ks != NULL ? ks :
		    json_object_get(rep.params, "kstat"));
		o->defs_taken = r == 0 && !plain && o->defs != NULL &&
		    o->defs[0] != '\0';
		vlc_reply_done(&rep);
	} else {
		vlc_reply_done(&rep);
	}
	if (r < 0)
		return r;
	if (o->created != NULL)
		o->created(o, revived);
	return 0;
}

int
cl_kobj_relayout_locked(struct cl_kobj *o, json_t *tpl)
{
	struct vlc_reply rep;
	const char *spec = NULL;
	char *nspec;
	int r;

	r = cl_ensure_locked();
	if (r < 0)
		return r;
	r = cl_call_locked(VL_M_TEMPLATE_ADD, json_incref(tpl), NULL, 0,
	    &rep);
	if (r < 0)
		return r;
	(void)json_unpack(rep.params, "{s:{s:s}}", "template", "spec", &spec);
	nspec = spec != NULL ? strdup(spec) : NULL;
	vlc_reply_done(&rep);
	if (nspec == NULL)
		return spec == NULL ? cl_fail(EPROTO, "TemplateAdd: a reply "
		    "without the template's spec") : -ENOMEM;
	r = cl_call_locked(VL_M_KSTAT_RELAYOUT, json_pack("{s:s, s:i, s:s, "
	    "s:s}", "module", o->hdr.module, "instance", (int)o->hdr.instance,
	    "name", o->hdr.name, "template", nspec), NULL, 0, &rep);
	if (r == 0)
		r = cl_kobj_take(o, json_object_get(rep.params, "kstat"));
	vlc_reply_done(&rep);
	if (r < 0) {
		free(nspec);
		return r;
	}
	/* What a restarted statsd is given to create it again. */
	json_decref(o->tpl);
	o->tpl = json_incref(tpl);
	free(o->tplspec);
	o->tplspec = nspec;
	return 0;
}

int
cl_kobj_create_locked(struct cl_kobj *o)
{
	int r;

	r = cl_ensure_locked();
	if (r < 0)
		return r;
	r = cl_kobj_make_locked(o, false);
	if (r < 0)
		return r;
	if (!o->listed)
		cl_kobj_list_add(o);
	return 0;
}

void
cl_kobj_list_add(struct cl_kobj *o)
{
	o->next = NULL;
	o->prev = cl.objs_tail;
	if (cl.objs_tail != NULL)
		cl.objs_tail->next = o;
	else
		cl.objs = o;
	cl.objs_tail = o;
	o->listed = true;
}

void
cl_kobj_list_del(struct cl_kobj *o)
{
	if (!o->listed)
		return;
	if (o->prev != NULL)
		o->prev->next = o->next;
	else
		cl.objs = o->next;
	if (o->next != NULL)
		o->next->prev = o->prev;
	else
		cl.objs_tail = o->prev;
	o->prev = o->next = NULL;
	o->listed = false;
}

/* KstatCreateMany's parameters for o's kind (what objs share), the
 * object left open for its "kstats". */
static void
cl_kobj_many_text(const struct cl_kobj *o, bool join, struct jtext *t)
{
	jtext_open(t, '{');
	cl_text_str(t, "template", o->tplspec);
	cl_text_str(t, "type", ks_type_id(o->hdr.type));
	cl_kobj_flags_text(o, t);
	jtext_key(t, "join");
	jtext_bool(t, join);
	if (o->has_zone) {
		jtext_key(t, "zone");
		jtext_int(t, o->zone);
	}
	cl_kobj_content_text(o, t);
}

/* Do a and b go in one KstatCreateMany? */
static bool
cl_kobj_same_kind(const struct cl_kobj *a, const struct cl_kobj *b)
{
	return a->tplspec != NULL && b->tplspec != NULL &&
	    strcmp(a->tplspec, b->tplspec) == 0 &&
	    a->hdr.type == b->hdr.type && a->hdr.flags == b->hdr.flags &&
	    a->has_zone == b->has_zone && a->zone == b->zone &&
	    a->hdr.content == b->hdr.content && a->hdr.scale == b->hdr.scale &&
	    a->ndata == b->ndata;
}

/*
 * One KstatCreateMany for objs[0..n) (n <= CL_BATCH_MAX; objs[0]'s
 * template registered, each of the same kind).
 * Returns: 0; -errno (nothing made).
 */
static int
cl_kobj_batch_locked(struct cl_kobj **objs, size_t n, bool join)
{
	struct vlc_reply rep;
	struct jtext t = { 0 };
	json_t *ks, *rv;
	size_t i;
	char *p;
	int r;

	cl_kobj_many_text(objs[0], join, &t);
	jtext_key(&t, "kstats");
	jtext_open(&t, '[');
	for (i = 0; i < n; i++) {
		/* Each its KstatName. */
		jtext_open(&t, '{');
		cl_kobj_name_text(objs[i], &t);
		cl_kobj_at_text(objs[i], &t);
		jtext_close(&t, '}');
	}
	jtext_close(&t, ']');
	jtext_close(&t, '}');
	p = jtext_end(&t, NULL);
	if (p == NULL)
		return -ENOMEM;
	r = cl_call_text_locked(VL_M_KSTAT_CREATE_MANY, p, &rep);
	free(p);
	if (r < 0) {
		if (cl_no_template(&rep))
			r = -ESTALE;
		vlc_reply_done(&rep);
		return r;
	}
	ks = json_object_get(rep.params, "kstats");
	rv = json_object_get(rep.params, "revived");
	if (json_array_size(ks) != n || json_array_size(rv) != n) {
		vlc_reply_done(&rep);
		return cl_fail(EPROTO, "KstatCreateMany: a reply for %zu "
		    "kstats, not %zu", json_array_size(ks), n);
	}
	for (i = 0; i < n && r == 0; i++)
		r = cl_kobj_take(objs[i], json_array_get(ks, i));
	for (i = 0; i < n && r == 0; i++)
		if (objs[i]->created != NULL)
			objs[i]->created(objs[i],
			    json_is_true(json_array_get(rv, i)));
	vlc_reply_done(&rep);
	return r;
}

/* The template of objs[0] registered (fresh: even if this connection
 * did), its spec in every obj. */
static int
cl_kobj_template_locked(struct cl_kobj **objs, size_t n, bool fresh)
{
	char *spec;
	size_t i;
	int r;

	r = cl_tpl_register_locked(objs[0]->tpl, objs[0]->tplkey, fresh,
	    &spec);
	if (r < 0)
		return r;
	for (i = 0; i < n; i++) {
		free(objs[i]->tplspec);
		objs[i]->tplspec = strdup(spec);
		if (objs[i]->tplspec == NULL)
			r = -ENOMEM;
	}
	free(spec);
	return r;
}

/*
 * A batch that would join refused: a name was taken by a kstat it could
 * not join. Say which, and why: another template, or another user's.
 * Returns: -EPERM or -EEXIST (the last error says why).
 */
static int
cl_kobj_why_taken_locked(struct cl_kobj **objs, size_t n)
{
	char err[sizeof(cl.err)];
	size_t i;
	int r;

	memcpy(err, cl.err, sizeof(err));
	for (i = 0; i < n; i++) {
		r = cl_kobj_join_locked(objs[i], false);
		if (r == -EPERM || r == -EEXIST)
			return r;
	}
	memcpy(cl.err, err, sizeof(err));
	return -EEXIST;
}

int
cl_kobj_create_many_locked(struct cl_kobj **objs, size_t n)
{
	size_t done = 0, m, i;
	bool fresh = false;
	int r;

	if (n == 0)
		return 0;
	r = cl_ensure_locked();
	if (r == 0)
		r = cl_kobj_template_locked(objs, n, false);
	while (r == 0 && done < n) {
		m = n - done < CL_BATCH_MAX ? n - done : CL_BATCH_MAX;
		r = cl_kobj_batch_locked(objs + done, m, objs[0]->join);
		if (r == -ESTALE && !fresh) {
			/* statsd let the template go: register it again. */
			fresh = true;
			r = cl_kobj_template_locked(objs, n, true);
			continue;
		}
		if (r == -ESTALE)
			r = -ENOENT;
		if (r == 0)
			done += m;
		else if (r == -EEXIST && objs[0]->join)
			r = cl_kobj_why_taken_locked(objs + done, m);
	}
	if (r < 0) {
		/* All or none: what the batches before made goes. */
		for (i = 0; i < done; i++)
			(void)cl_kobj_delete_locked(objs[i]);
		return r;
	}
	for (i = 0; i < n; i++)
		if (!objs[i]->listed)
			cl_kobj_list_add(objs[i]);
	return 0;
}

int
cl_kobj_delete_locked(struct cl_kobj *o)
{
	struct vlc_reply rep;
	int r;

	cl_kobj_list_del(o);
	cl_images_forget_locked(o);
	o->deleted = true;
	atomic_store_explicit(&o->handle, 0, memory_order_release);
	r = cl_ensure_locked();
	if (r < 0)
		return r;
	r = cl_call_locked(VL_M_KSTAT_DELETE, json_pack("{s:s, s:i, "
	    "s:s}", "module", o->hdr.module, "instance",
	    (int)o->hdr.instance, "name", o->hdr.name), NULL, 0, &rep);
	vlc_reply_done(&rep);
	return r;
}

void
cl_kobjs_recreate_locked(void)
{
	struct cl_kobj *o, *batch[CL_BATCH_MAX], *next;
	size_t n, i;

	/*
	 * Oldest first, as they were made, each asked at the offset its
	 * blob had (cl_kobj_at_text(): a published blob's pointer shows
	 * that offset), so that a new statsd lays their blobs out as the
	 * old one did, and in batches of one template and kind: a process
	 * with many kstats is back in a few calls. Records pushed meanwhile keep
	 * the old handle: statsd keeps the handles of PERSISTENT kstats
	 * across restarts.
	 */
	for (o = cl.objs; o != NULL && cl.vlc != NULL; o = next) {
		n = 0;
		batch[n++] = o;
		for (next = o->next; next != NULL && n < CL_BATCH_MAX &&
		    cl_kobj_same_kind(o, next); next = next->next)
			batch[n++] = next;
		if (n > 1 && cl_kobj_template_locked(batch, n, false) == 0 &&
		    cl_kobj_batch_locked(batch, n, true) == 0)
			continue;
		for (i = 0; i < n && cl.vlc != NULL; i++)
			(void)cl_kobj_make_locked(batch[i], true);
	}
}

/* -------------------------------------------------------------- segments */

void
cl_segments_free_locked(void)
{
	cl_segs_free(&cl.segs);
}

static int
cl_segments_call(void *ctx, json_t *params, struct vlc_reply *rep)
{
	(void)ctx;
	return cl_call_locked(VL_M_SEGMENT_ATTACH, params, NULL, 0, rep);
}

int
cl_segments_attach_locked(void)
{
	int r, err = 0;

	r = cl_segs_attach(&cl.segs, cl_segments_call, NULL, &err);
	if (r < 0)
		return cl_fail(-r, "SegmentAttach: %s", strerror(-r));
	if (err < 0)
		return cl_fail(-err, "SegmentAttach: a segment cannot be read: "
		    "%s", strerror(-err));
	return 0;
}
