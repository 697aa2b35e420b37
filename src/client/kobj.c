/*
 * kobj.c: the kstats this process created (published blobs, kstat and
 * kstat2 providers, Linux interfaces): registering their templates,
 * creating them, creating them again after statsd restarts, deleting them;
 * and the read-only store segments they live in, read patiently.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "client_priv.h"
#include "kstat_hdr.h"

int
cl_kobj_names(struct cl_kobj *o, const char *module, int instance,
    const char *name, const char *class_)
{
	struct kstat_hdr h;
	struct ks_error err = { 0 };
	int r;

	/* The header rules of kstat_hdr.c, with a throw-away header. */
	r = ks_hdr_init(&h, module, instance, name, class_, KSTAT_TYPE_BLOB,
	    0, &err);
	if (r < 0)
		return cl_fail(r, "%s: %s", err.field != NULL ? err.field :
		    "kstat", err.msg);
	memcpy(o->module, h.module, sizeof(o->module));
	memcpy(o->name, h.name, sizeof(o->name));
	memcpy(o->class_, h.class_, sizeof(o->class_));
	o->instance = instance;
	return 0;
}

void
cl_kobj_free(struct cl_kobj *o)
{
	uint32_t i;

	if (o == NULL)
		return;
	free(o->desc);
	for (i = 0; i < o->npath; i++)
		free(o->path[i]);
	free(o->path);
	json_decref(o->tpl);
	free(o->tplspec);
	free(o);
}

/* The Kstat object of a reply into o. Returns: 0; -EPROTO. */
static int
cl_kobj_take(struct cl_kobj *o, json_t *ks)
{
	json_int_t handle, slot, gen;
	const char *seg, *tpl;

	if (json_unpack(ks, "{s:I, s:s, s:I, s:I, s:s}", "handle", &handle,
	    "segment", &seg, "slot", &slot, "gen", &gen, "template", &tpl) != 0
	    || handle <= 0 || handle > UINT32_MAX)
		return cl_fail(EPROTO, "KstatCreate: a reply without handle, "
		    "segment, slot, gen and template");
	o->ref.slot = (uint32_t)slot;
	o->ref.gen = (uint32_t)gen;
	snprintf(o->seg, sizeof(o->seg), "%s", seg);
	atomic_store_explicit(&o->handle, (uint32_t)handle,
	    memory_order_release);
	cl_image_take_locked(o);
	return 0;
}

/* Find the kstat that exists under o's name; it must be of o's template. */
static int
cl_kobj_join_locked(struct cl_kobj *o)
{
	struct vlc_reply rep;
	json_t *ks;
	const char *tpl = "";
	int r;

	r = cl_call_locked(VL_M_LOOKUP, json_pack("{s:s, s:i, s:s}",
	    "module", o->module, "instance", (int)o->instance, "name",
	    o->name), NULL, 0, &rep);
	if (r < 0)
		return r;
	ks = json_array_get(json_object_get(rep.params, "kstats"), 0);
	(void)json_unpack(ks, "{s:s}", "template", &tpl);
	if (ks == NULL || strcmp(tpl, o->tplspec) != 0) {
		vlc_reply_done(&rep);
		return cl_fail(EEXIST, "kstat %s:%d:%s exists with another "
		    "template", o->module, (int)o->instance, o->name);
	}
	r = cl_kobj_take(o, ks);
	vlc_reply_done(&rep);
	return r;
}

static int
cl_kobj_make_locked(struct cl_kobj *o, bool again)
{
	struct vlc_reply rep;
	json_t *p, *flags, *path;
	const char *spec = NULL;
	bool revived = false;
	uint32_t i;
	size_t k;
	int r;

	r = cl_call_locked(VL_M_TEMPLATE_ADD, json_incref(o->tpl), NULL,
	    0, &rep);
	if (r < 0)
		return r;
	(void)json_unpack(rep.params, "{s:{s:s}}", "template", "spec", &spec);
	if (spec == NULL) {
		vlc_reply_done(&rep);
		return cl_fail(EPROTO, "TemplateAdd: a reply without the "
		    "template's spec");
	}
	free(o->tplspec);
	o->tplspec = strdup(spec);
	vlc_reply_done(&rep);
	if (o->tplspec == NULL)
		return -ENOMEM;

	flags = json_array();
	/* The flags KstatCreate takes, by their protocol names. */
	for (k = 0; k < KS_NFLAG_NAMES; k++)
		if (o->flags & ks_flag_names[k].flag & (KSTAT_FLAG_PERSISTENT |
		    KSTAT_FLAG_PRIV | KSTAT_FLAG_WRITABLE))
			json_array_append_new(flags,
			    json_string(ks_flag_names[k].name));
	if (o->gz_vis)
		json_array_append_new(flags, json_string("GZ_VIS"));
	p = json_pack("{s:s, s:i, s:s, s:s, s:s, s:s, s:o}", "module",
	    o->module, "instance", (int)o->instance, "name", o->name, "class",
	    o->class_, "template", o->tplspec, "type", o->type, "flags",
	    flags);
	if (p == NULL)
		return -ENOMEM;
	if (o->desc != NULL)
		json_object_set_new(p, "description", json_string(o->desc));
	if (o->has_zone)
		json_object_set_new(p, "zone", json_integer(o->zone));
	if (o->npath > 0) {
		path = json_array();
		for (i = 0; i < o->npath; i++)
			json_array_append_new(path, json_string(o->path[i]));
		json_object_set_new(p, "path", path);
	}
	r = cl_call_locked(VL_M_KSTAT_CREATE, p, NULL, 0, &rep);
	if (r == -EEXIST && (o->join || again)) {
		vlc_reply_done(&rep);
		r = cl_kobj_join_locked(o);
	} else if (r == 0) {
		revived = json_is_true(json_object_get(rep.params, "revived"));
		r = cl_kobj_take(o, json_object_get(rep.params, "kstat"));
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
cl_kobj_create_locked(struct cl_kobj *o)
{
	int r;

	r = cl_ensure_locked();
	if (r < 0)
		return r;
	r = cl_kobj_make_locked(o, false);
	if (r < 0)
		return r;
	if (!o->listed) {
		o->next = cl.objs;
		cl.objs = o;
		o->listed = true;
	}
	return 0;
}

int
cl_kobj_delete_locked(struct cl_kobj *o)
{
	struct cl_kobj **pp;
	struct vlc_reply rep;
	int r;

	for (pp = &cl.objs; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == o) {
			*pp = o->next;
			o->listed = false;
			break;
		}
	}
	o->deleted = true;
	atomic_store_explicit(&o->handle, 0, memory_order_release);
	r = cl_ensure_locked();
	if (r < 0)
		return r;
	r = cl_call_locked(VL_M_KSTAT_DELETE, json_pack("{s:s, s:i, "
	    "s:s}", "module", o->module, "instance", (int)o->instance, "name",
	    o->name), NULL, 0, &rep);
	vlc_reply_done(&rep);
	return r;
}

void
cl_kobjs_recreate_locked(void)
{
	struct cl_kobj *o;

	/* Records pushed meanwhile keep the old handle: statsd keeps the
	 * handles of PERSISTENT kstats across restarts. */
	for (o = cl.objs; o != NULL && cl.vlc != NULL; o = o->next)
		(void)cl_kobj_make_locked(o, true);
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

/* ------------------------------------------------------- store reads */

#define CL_STORE_TRIES	1000	/* of a millisecond each, at most */

int
cl_store_read(struct store_reader *r, struct store_ref ref,
    struct store_kstat_info *ret_info, void *buf, size_t bufsize,
    size_t *ret_size)
{
	struct timespec ts = { 0, 1000000 };
	int e, tries = 0;

	while ((e = store_reader_read(r, ref, ret_info, buf, bufsize,
	    ret_size)) == -EAGAIN && ++tries < CL_STORE_TRIES)
		nanosleep(&ts, NULL);
	return e;
}

int
cl_store_span(struct store_reader *r, struct store_ref ref,
    uint64_t *ret_off, uint32_t *ret_size, uint32_t *ret_chunk)
{
	struct timespec ts = { 0, 1000000 };
	int e, tries = 0;

	while ((e = store_reader_blob_span(r, ref, ret_off, ret_size,
	    ret_chunk)) == -EAGAIN && ++tries < CL_STORE_TRIES)
		nanosleep(&ts, NULL);
	return e;
}
