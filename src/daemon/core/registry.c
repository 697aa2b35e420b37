/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * registry.c: the daemon's template and kstat tables, the handle map the
 * drain looks records up in, and the two store segments the kstats live
 * in. Everything that adds, removes or re-lays a kstat goes through here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <statsd/kstat.h>

#include "blob.h"
#include "blobstore.h"
#include "daemon.h"
#include "engine.h"
#include "invariant.h"
#include "kindex.h"
#include "layout.h"
#include "log.h"
#include "pub.h"
#include "registry.h"
#include "tpl.h"
#include "tpldef.h"

struct registry {
	struct statsd		 *d;
	struct reg_seg		**segs;
	size_t			  nsegs, csegs;
	struct reg_seg		 *all;	/* every peer maps it: its KCID also
					 * moves when segments come and go */
	struct reg_template	**tpls;
	size_t			  ntpls, ctpls;
	struct reg_kstat	**ks;
	size_t			  nks, cks;
	/* handle -> kstat: open addressing, linear probing, no tombstones
	 * (deletion shifts entries back). */
	/* By handle, by name, and in kstat(1M)'s order. */
	struct kindex		 *ix;
	uint32_t		  next_handle;
	uint64_t		  next_tpl_seq;
	uint64_t		  next_seg_serial;
	struct reg_seg		 *gone;	/* reg_segs_publish() */
	uint64_t		  ndormant;
	/* registry_stats()' public counts. */
	uint64_t		  npublic, npublic_dormant, npublic_tpls;
	/* PERSISTENT kstats changed since the last registry_sync(). */
	struct reg_kstat	**dirty;
	size_t			  ndirty, cdirty;
};

static int
reg_segment(struct statsd *d, unsigned kind, uint64_t arena,
    const char *name, struct store_segment **ret)
{
	char memfd_name[64];
	struct store_params p = {
		.name = memfd_name,
		.kind = kind,
		.table_slots = d->cfg.max_kstats,
		.arena_size = arena,
	};
	int r;

	snprintf(memfd_name, sizeof(memfd_name), "statsd-%s", name);
	r = store_segment_new(&p, ret);
	if (r < 0)
		return r;
	/* A memfd is born mode 0777, and anyone holding even a read-only
	 * descriptor could reopen it read-write through /proc/self/fd.
	 * Owner-read-only stops that for every other uid. */
	if (fchmod(store_segment_fd(*ret), 0400) < 0) {
		r = -errno;
		*ret = store_segment_free(*ret);
		return r;
	}
	return 0;
}

/* A reader thread may still read a segment gone from the list, or a
 * template: freed once none can (pub_retire()). */
static void
reg_seg_free_cb(void *arg)
{
	store_segment_free(arg);
}

/* Tell the reader threads which segments there are (pub.h): every time
 * one comes or goes. A segment gone waits in r->gone, mapped, until a
 * list without it is published (without memory for one, readers keep
 * the old list, and the segment with it, until a later one).
 * Returns: 0; -ENOMEM. */
static int
reg_segs_publish(struct registry *r)
{
	struct reg_seg *rs;
	struct pub_seg *v;
	size_t i;
	int e;

	if (r->d->pub == NULL)
		return 0;
	if ((v = calloc(r->nsegs > 0 ? r->nsegs : 1, sizeof(*v))) == NULL)
		return -ENOMEM;
	for (i = 0; i < r->nsegs; i++) {
		v[i].seg = r->segs[i]->seg;
		v[i].serial = r->segs[i]->serial;
		v[i].zone = r->segs[i]->zone;
		v[i].gz = r->segs[i]->gz;
		v[i].priv = r->segs[i]->priv;
		memcpy(v[i].name, r->segs[i]->name, sizeof(v[i].name));
	}
	e = pub_segs_set(r->d->pub, v, r->nsegs);
	free(v);
	if (e < 0)
		return e;
	/* The segments gone are in no list readers may pick up now. */
	while ((rs = r->gone) != NULL) {
		r->gone = rs->gone_next;
		(void)pub_retire(r->d->pub, reg_seg_free_cb, rs->seg);
		free(rs);
	}
	return 0;
}

/*
 * The segment of the kstats that live in zone (and in the global zone
 * too with gz), PRIV or not: found, or made when create. A zone's segment
 * is charged, before its memfd is made, to the owner of n, the kstat
 * that makes it (QUOTA_ZONE_SEGMENTS: a descriptor statsd holds for as
 * long as the segment has kstats); the global zone's and every zone's
 * are statsd's own (n is NULL).
 * Returns: it; NULL (none, or it cannot be made: *ret_err, and for
 * -EDQUOT *why).
 */
static struct reg_seg *
reg_seg_get(struct registry *r, uint32_t zone, bool gz, bool priv,
    bool create, const struct reg_kstat_new *n, int *ret_err,
    struct quota_refusal *why)
{
	struct reg_seg *rs;
	size_t i;
	int e;

	/* gz means something only for a zone of its own. */
	if (zone == ZONE_ALL || zone == ZONE_GLOBAL)
		gz = false;
	for (i = 0; i < r->nsegs; i++) {
		rs = r->segs[i];
		if (rs->zone == zone && rs->gz == gz && rs->priv == priv)
			return rs;
	}
	*ret_err = -ENOENT;
	if (!create)
		return NULL;
	if (r->nsegs == r->csegs) {
		size_t nc = r->csegs > 0 ? 2 * r->csegs : 8;
		void *p = realloc(r->segs, nc * sizeof(*r->segs));

		if (p == NULL) {
			*ret_err = -ENOMEM;
			return NULL;
		}
		r->segs = p;
		r->csegs = nc;
	}
	rs = calloc(1, sizeof(*rs));
	if (rs == NULL) {
		*ret_err = -ENOMEM;
		return NULL;
	}
	if (n != NULL && zone != ZONE_ALL && zone != ZONE_GLOBAL) {
		e = n->restoring ? quota_force(r->d->quota, n->owner,
		    QUOTA_ZONE_SEGMENTS, 1) : quota_charge(r->d->quota,
		    n->owner, n->privileged, QUOTA_ZONE_SEGMENTS, 1, why);
		if (e < 0) {
			free(rs);
			*ret_err = e;
			return NULL;
		}
		rs->charged = true;
		rs->owner = n->owner;
	}
	rs->zone = zone;
	rs->gz = gz;
	rs->priv = priv;
	if (zone == ZONE_GLOBAL)
		snprintf(rs->name, sizeof(rs->name), "%s", priv ? "private" :
		    "public");
	else if (zone == ZONE_ALL)
		snprintf(rs->name, sizeof(rs->name), "all%s", priv ?
		    "-private" : "");
	else
		snprintf(rs->name, sizeof(rs->name), "zone%u%s%s",
		    (unsigned)zone, gz ? "+global" : "", priv ? "-private" :
		    "");
	e = reg_segment(r->d, priv ? STORE_SEG_PRIVATE : STORE_SEG_PUBLIC,
	    priv ? r->d->cfg.private_arena_size : r->d->cfg.arena_size,
	    rs->name, &rs->seg);
	if (e < 0) {
		log_error("cannot create the store segment %s: %s", rs->name,
		    strerror(-e));
		if (rs->charged)
			quota_release(r->d->quota, rs->owner,
			    QUOTA_ZONE_SEGMENTS, 1);
		free(rs);
		*ret_err = e;
		return NULL;
	}
	rs->serial = ++r->next_seg_serial;
	r->segs[r->nsegs++] = rs;
	if (reg_segs_publish(r) < 0) {
		/* Not one reader threads cannot see. */
		r->nsegs--;
		store_segment_free(rs->seg);
		if (rs->charged)
			quota_release(r->d->quota, rs->owner,
			    QUOTA_ZONE_SEGMENTS, 1);
		free(rs);
		*ret_err = -ENOMEM;
		return NULL;
	}
	/* Readers learn of a new segment from the one they all map. */
	if (r->all != NULL)
		store_segment_bump_kcid(r->all->seg);
	return rs;
}

/* Drop a zone's segment that holds nothing any more. Readers that map it
 * keep a valid, empty mapping. */
static void
reg_seg_release(struct registry *r, struct reg_seg *rs)
{
	size_t i;

	if (rs->nkstats > 0 || rs->zone == ZONE_ALL ||
	    rs->zone == ZONE_GLOBAL)
		return;
	for (i = 0; i < r->nsegs; i++)
		if (r->segs[i] == rs) {
			r->segs[i] = r->segs[--r->nsegs];
			break;
		}
	if (rs->charged)
		quota_release(r->d->quota, rs->owner, QUOTA_ZONE_SEGMENTS, 1);
	if (r->d->pub == NULL) {
		store_segment_free(rs->seg);
		free(rs);
	} else {
		rs->gone_next = r->gone;
		r->gone = rs;
		(void)reg_segs_publish(r);
	}
	store_segment_bump_kcid(r->all->seg);
}

size_t
registry_segments(struct registry *r, struct reg_seg ***ret)
{
	*ret = r->segs;
	return r->nsegs;
}

int
registry_new(struct statsd *d, struct registry **ret)
{
	struct registry *r;
	int e;

	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return -ENOMEM;
	r->d = d;
	r->next_handle = 1;
	if (kindex_new(&r->ix) < 0) {
		free(r);
		return -ENOMEM;
	}
	/* The one every peer maps, then the global zone's two. */
	r->all = reg_seg_get(r, ZONE_ALL, false, false, true, NULL, &e, NULL);
	if (r->all == NULL ||
	    reg_seg_get(r, ZONE_GLOBAL, false, false, true, NULL, &e,
	    NULL) == NULL ||
	    reg_seg_get(r, ZONE_GLOBAL, false, true, true, NULL, &e,
	    NULL) == NULL) {
		registry_free(r);
		return e;
	}
	*ret = r;
	return 0;
}

static void
reg_template_free(struct reg_template *t)
{
	uint16_t i;

	if (t == NULL)
		return;
	for (i = 0; i < t->nnames; i++)
		free(t->names[i]);
	free(t->names);
	free(t->uses);
	free(t->k2);
	free(t->vois_json);
	json_decref(t->def);
	free(t);
}

static void
reg_template_free_cb(void *arg)
{
	reg_template_free(arg);
}

static void reg_kstat_unname(struct reg_kstat *k);

struct registry *
registry_free(struct registry *r)
{
	struct reg_seg *rs;
	size_t i;

	if (r == NULL)
		return NULL;
	kindex_free(r->ix);	/* before the kstats its entries live in */
	for (i = 0; i < r->nks; i++) {
		blob_storage_close(r->ks[i]->storage);
		reg_kstat_unname(r->ks[i]);
		free(r->ks[i]);
	}
	free(r->ks);
	free(r->dirty);
	for (i = 0; i < r->ntpls; i++) {
		/* The engine's template too: a registry made again in the
		 * same process (a test, a fuzzer) registers it anew. */
		(void)tpl_release(r->tpls[i]->id);
		reg_template_free(r->tpls[i]);
	}
	free(r->tpls);
	for (i = 0; i < r->nsegs; i++) {
		store_segment_free(r->segs[i]->seg);
		free(r->segs[i]);
	}
	while ((rs = r->gone) != NULL) {
		r->gone = rs->gone_next;
		store_segment_free(rs->seg);
		free(rs);
	}
	free(r->segs);
	free(r);
	return NULL;
}

void
registry_stats(const struct registry *r, struct registry_stats *ret)
{
	size_t i;

	memset(ret, 0, sizeof(*ret));
	if (r == NULL)
		return;
	ret->kstats = r->nks - r->ndormant;
	ret->dormant = r->ndormant;
	ret->public_kstats = r->npublic;
	ret->public_dormant = r->npublic_dormant;
	ret->public_templates = r->npublic_tpls;
	ret->templates = r->ntpls;
	ret->segments = r->nsegs;
	for (i = 0; i < r->nsegs; i++)
		ret->kcid += store_segment_kcid(r->segs[i]->seg);
}

/* ---------------------------------------------------------------- templates */

/* Release the template of k's re-laid layout, if any. */
static void
reg_kstat_unname(struct reg_kstat *k)
{
	if (k->relaid != 0)
		(void)tpl_release(k->relaid - 1);
	k->relaid = 0;
	k->relaid_hash = 0;
}

void
registry_kstat_name_layout(struct registry *r, struct reg_kstat *k)
{
	const struct statsblobv1 *b =
	    (const struct statsblobv1 *)registry_blob_peek(k);
	char name[TPL_MAX_NAME_LEN + 1];
	int id;

	(void)r;
	if (k->relaid != 0 && k->relaid_hash == b->tplhash)
		return;
	reg_kstat_unname(k);
	if (b->tplhash == k->tpl->hash)
		return;
	/* One a kstat at most: a peer that redefines again and again
	 * replaces it, never piles them up. A name a user took already
	 * leaves the layout unnamed (the flat view is named anyway). */
	snprintf(name, sizeof(name), "%.40s.relaid.%u", k->tpl->name,
	    (unsigned)k->handle);
	id = tpl_add_layout(name, k->tpl->id, (const struct statsblob *)b,
	    b->tplhash);
	if (id < 0) {
		log_debug("the re-laid layout of kstat %s:%d:%s is unnamed: "
		    "%s", k->hdr.module, (int)k->hdr.instance, k->hdr.name,
		    strerror(-id));
		return;
	}
	k->relaid = id + 1;
	k->relaid_hash = b->tplhash;
}

bool
registry_blob_named(const struct reg_kstat *k, const struct statsblob *b)
{
	uint32_t h = ((const struct statsblobv1 *)b)->tplhash;

	return h == k->tpl->hash || (k->relaid != 0 && h == k->relaid_hash);
}

static int
reg_template_fill(struct reg_template *t, int id)
{
	const struct statsblob_tpl *tpl;
	const struct statsblobv1 *sb;
	uint16_t i, n;
	int e = 0;

	t->id = id;
	tpl_rlock();
	tpl = tpl_get_locked(id);
	if (tpl == NULL) {
		tpl_runlock();
		return -ENOENT;
	}
	sb = (const struct statsblobv1 *)tpl->sb;
	snprintf(t->name, sizeof(t->name), "%s", tpl->mb->tplname);
	t->hash = tpl->mb->tplhash;
	t->size = sb->cursz;
	n = blob_nvois(sb);
	t->names = calloc(n > 0 ? n : 1, sizeof(*t->names));
	if (t->names == NULL) {
		e = -ENOMEM;
	} else {
		t->nnames = n;
		for (i = 0; i < n; i++)
			if (tpl->mb->voi_meta[i].name != NULL) {
				t->names[i] =
				    strdup(tpl->mb->voi_meta[i].name);
				if (t->names[i] == NULL)
					e = -ENOMEM;
			}
	}
	tpl_runlock();
	snprintf(t->spec, sizeof(t->spec), "\"%s\":%u", t->name, t->hash);
	return e;
}

/* Forget template i: no kstat uses it. */
static void
reg_template_drop(struct registry *r, size_t i)
{
	struct reg_template *t = r->tpls[i];

	memmove(&r->tpls[i], &r->tpls[i + 1],
	    (r->ntpls - i - 1) * sizeof(*r->tpls));
	r->ntpls--;
	quota_release(r->d->quota, t->owner, QUOTA_TEMPLATES, 1);
	quota_release(r->d->quota, t->owner, QUOTA_TEMPLATE_BYTES, t->bytes);
	(void)tpl_release(t->id);
	if (r->d->pub == NULL) {
		reg_template_free(t);
		return;
	}
	pub_tpl_remove(r->d->pub, t, t->hash);
	(void)pub_retire(r->d->pub, reg_template_free_cb, t);
}

/* Free owner's oldest template that no kstat uses, other than keep.
 * Returns: whether one was freed. */
static bool
reg_template_evict(struct registry *r, uid_t owner,
    const struct reg_template *keep)
{
	size_t i;

	for (i = 0; i < r->ntpls; i++)
		if (r->tpls[i]->owner == owner && r->tpls[i]->nkstats == 0 &&
		    r->tpls[i] != keep) {
			log_info("uid %u at its template limit: unused "
			    "template %s freed", (unsigned)owner,
			    r->tpls[i]->spec);
			reg_template_drop(r, i);
			return true;
		}
	return false;
}

/* Charge t (count and bytes) to its owner, freeing the owner's unused
 * templates while that makes room. Returns: 0; -EDQUOT; -ENOMEM. */
static int
reg_template_charge(struct registry *r, struct reg_template *t,
    const struct reg_owner *o, struct quota_refusal *why)
{
	struct quota *q = r->d->quota;
	int e;

	if (o->restoring) {
		e = quota_force(q, o->uid, QUOTA_TEMPLATES, 1);
		if (e == 0)
			e = quota_force(q, o->uid, QUOTA_TEMPLATE_BYTES,
			    t->bytes);
		return e;
	}
	for (;;) {
		e = quota_check(q, o->uid, o->privileged, QUOTA_TEMPLATES, 1,
		    why);
		if (e == 0)
			e = quota_check(q, o->uid, o->privileged,
			    QUOTA_TEMPLATE_BYTES, t->bytes, why);
		if (e != -EDQUOT || !reg_template_evict(r, o->uid, t))
			break;
	}
	if (e == 0)
		e = quota_charge(q, o->uid, o->privileged, QUOTA_TEMPLATES, 1,
		    why);
	if (e == 0) {
		e = quota_charge(q, o->uid, o->privileged,
		    QUOTA_TEMPLATE_BYTES, t->bytes, why);
		if (e < 0)
			quota_release(q, o->uid, QUOTA_TEMPLATES, 1);
	}
	return e;
}

static int
reg_voi_cmp(const void *a, const void *b)
{
	json_int_t x = json_integer_value(json_object_get(*(json_t *const *)a,
	    "id"));
	json_int_t y = json_integer_value(json_object_get(*(json_t *const *)b,
	    "id"));

	return x < y ? -1 : x > y;
}

/*
 * A definition as the registry keeps it: its VOIs in the order of their
 * ids, whatever order they came in, so that one schema is one definition
 * and lays out one blob, with one hash. (A VOI's statistics keep the
 * order given: it is their layout.)
 * Returns: a new reference, or NULL.
 */
static json_t *
reg_template_canonical(json_t *def)
{
	json_t *c = json_deep_copy(def), *vois, **v, *sorted;
	size_t n, i;

	vois = json_object_get(c, "vois");
	n = json_array_size(vois);
	if (c == NULL || n < 2)
		return c;
	v = calloc(n, sizeof(*v));
	sorted = json_array();
	if (v == NULL || sorted == NULL) {
		free(v);
		json_decref(sorted);
		json_decref(c);
		return NULL;
	}
	for (i = 0; i < n; i++)
		v[i] = json_array_get(vois, i);
	qsort(v, n, sizeof(*v), reg_voi_cmp);
	for (i = 0; i < n; i++)
		json_array_append(sorted, v[i]);
	free(v);
	json_object_set_new(c, "vois", sorted);
	return c;
}

int
registry_template_add(struct registry *r, json_t *given,
    const struct reg_owner *owner, struct reg_template **ret,
    bool *ret_created, struct input_error *err, struct quota_refusal *why)
{
	const char *name = json_string_value(json_object_get(given, "name"));
	struct reg_template *t;
	size_t i, deflen;
	json_t *def;
	int id, e;

	if (name == NULL)
		return input_fail(err, EINVAL, "name", "a template needs a name");
	def = reg_template_canonical(given);
	if (def == NULL)
		return -ENOMEM;
	/* Only the owner's own: another's template of this name is not in
	 * the way, and is not shown (its spec, or that it exists). */
	for (i = 0; i < r->ntpls; i++) {
		if (r->tpls[i]->owner != owner->uid ||
		    strcmp(r->tpls[i]->name, name) != 0)
			continue;
		e = json_equal(r->tpls[i]->def, def) ? 0 : -EEXIST;
		json_decref(def);
		if (e < 0)
			return e;
		*ret = r->tpls[i];
		*ret_created = false;
		return 0;
	}
	/* What the definition costs to keep: its text, as a measure of
	 * the JSON tree and names, and (below) its blob. */
	deflen = json_dumpb(def, NULL, 0, JSON_COMPACT);
	if (r->ntpls == r->ctpls) {
		size_t nc = r->ctpls > 0 ? 2 * r->ctpls : 16;
		void *p = realloc(r->tpls, nc * sizeof(*r->tpls));

		if (p == NULL) {
			json_decref(def);
			return -ENOMEM;
		}
		r->tpls = p;
		r->ctpls = nc;
	}
	id = tpldef_register(def, err);
	if (id < 0) {
		json_decref(def);
		return id;
	}
	t = calloc(1, sizeof(*t));
	if (t == NULL) {
		json_decref(def);
		(void)tpl_release(id);
		return -ENOMEM;
	}
	t->def = def;
	t->vois_json = json_dumps(json_object_get(def, "vois"),
	    JSON_COMPACT | JSON_ENCODE_ANY);
	e = t->vois_json != NULL ? reg_template_fill(t, id) : -ENOMEM;
	if (e < 0) {
		(void)tpl_release(id);
		reg_template_free(t);
		return e;
	}
	t->k2 = calloc(t->nnames > 0 ? t->nnames : 1, sizeof(*t->k2));
	if (t->k2 == NULL) {
		(void)tpl_release(id);
		reg_template_free(t);
		return -ENOMEM;
	}
	t->owner = owner->uid;
	t->bytes = deflen + t->size;
	e = reg_template_charge(r, t, owner, why);
	if (e < 0) {
		(void)tpl_release(id);
		reg_template_free(t);
		return e;
	}
	tpldef_k2hist(t->def, t->k2, t->nnames);
	/* Reader threads name a blob's VOIs by the template its slot
	 * names: one they cannot find is no template yet. */
	if (r->d->pub != NULL && pub_tpl_add(r->d->pub, t, t->hash) < 0) {
		quota_release(r->d->quota, t->owner, QUOTA_TEMPLATES, 1);
		quota_release(r->d->quota, t->owner, QUOTA_TEMPLATE_BYTES,
		    t->bytes);
		(void)tpl_release(id);
		reg_template_free(t);
		return -ENOMEM;
	}
	t->seq = ++r->next_tpl_seq;
	r->tpls[r->ntpls++] = t;
	*ret = t;
	*ret_created = true;
	return 0;
}

/* Which templates a lookup takes: any, the owner's, or the ones a peer
 * may use. */
enum reg_tpl_filter { RTF_ANY, RTF_OWNED, RTF_USABLE };

struct reg_tpl_who {
	uid_t		uid;
	bool		privileged;
	uint32_t	zone;
};

/* The newest template spec names that the filter takes. */
static struct reg_template *
reg_template_lookup(struct registry *r, const char *spec,
    enum reg_tpl_filter f, const struct reg_tpl_who *who)
{
	char name[TPL_MAX_NAME_LEN + 1];
	uint32_t hash;
	size_t i;

	if (stats_tpl_spec_parse(spec, name, sizeof(name), &hash) != 0)
		return NULL;
	for (i = r->ntpls; i-- > 0;) {
		struct reg_template *t = r->tpls[i];

		if (name[0] != '\0' && strcmp(t->name, name) != 0)
			continue;
		if (hash != 0 && t->hash != hash)
			continue;
		if (f == RTF_OWNED && t->owner != who->uid)
			continue;
		if (f == RTF_USABLE && !registry_template_usable(t, who->uid,
		    who->privileged, who->zone))
			continue;
		return t;
	}
	return NULL;
}

struct reg_template *
registry_template_find(struct registry *r, const char *spec)
{
	return reg_template_lookup(r, spec, RTF_ANY, NULL);
}

struct reg_template *
registry_template_find_owned(struct registry *r, const char *spec, uid_t uid)
{
	struct reg_tpl_who who = { uid, false, ZONE_GLOBAL };

	return reg_template_lookup(r, spec, RTF_OWNED, &who);
}

bool
registry_template_usable(const struct reg_template *t, uid_t uid,
    bool privileged, uint32_t zone)
{
	if (privileged || t->owner == uid)
		return true;
	return zone == ZONE_GLOBAL ? t->npublic > 0 : t->nall > 0;
}

struct reg_template *
registry_template_resolve(struct registry *r, const char *spec, uid_t uid,
    bool privileged, uint32_t zone)
{
	struct reg_tpl_who who = { uid, privileged, zone };
	struct reg_template *t;

	t = reg_template_lookup(r, spec, RTF_OWNED, &who);
	return t != NULL ? t : reg_template_lookup(r, spec, RTF_USABLE, &who);
}

size_t
registry_templates(struct registry *r, struct reg_template ***ret)
{
	*ret = r->tpls;
	return r->ntpls;
}

size_t
registry_templates_after(struct registry *r, uint64_t seq)
{
	size_t lo = 0, hi = r->ntpls, mid;

	/* The list is in registration order, so in seq order. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (r->tpls[mid]->seq <= seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

json_t *
registry_template_json(const struct reg_template *t)
{
	return json_pack("{s:s, s:s, s:I, s:I, s:O}", "spec", t->spec,
	    "name", t->name, "hash", (json_int_t)t->hash,
	    "size", (json_int_t)t->size, "vois",
	    json_object_get(t->def, "vois"));
}

/* ------------------------------------------------------------ handles */

struct reg_kstat *
registry_kstat_by_handle(struct registry *r, uint32_t handle)
{
	struct kx_entry *e = kindex_by_handle(r->ix, handle);

	return e != NULL ? e->item : NULL;
}

void
registry_kstat_hint(const struct registry *r, uint32_t handle)
{
	kindex_hint(r->ix, handle);
}

uint32_t
registry_next_handle(const struct registry *r)
{
	return r->next_handle;
}

void
registry_raise_next_handle(struct registry *r, uint32_t h)
{
	if (h > r->next_handle)
		r->next_handle = h;
}

/* ------------------------------------------------------------------ kstats */

struct reg_kstat *
registry_kstat_find(struct registry *r, const char *module, int32_t instance,
    const char *name)
{
	struct kx_entry *e = kindex_by_name(r->ix, module, instance, name);

	return e != NULL ? e->item : NULL;
}

size_t
registry_kstats(struct registry *r, struct reg_kstat ***ret)
{
	*ret = r->ks;
	return r->nks;
}

struct reg_kstat *
registry_kstat_seek(struct registry *r, const char *module,
    int32_t instance, const char *name, bool after)
{
	struct kx_entry *e = kindex_seek(r->ix, module, instance, name,
	    after);

	return e != NULL ? e->item : NULL;
}

struct reg_kstat *
registry_kstat_after(struct registry *r, const struct reg_kstat *k)
{
	struct kx_entry *e = kindex_next(r->ix, &k->ix);

	return e != NULL ? e->item : NULL;
}

uint32_t
registry_kstat_ndata(const struct reg_kstat *k)
{
	if (k->ndata != 0)
		return k->ndata;
	return k->hdr.type == KSTAT_TYPE_RAW ? k->tpl->nnames * 8u :
	    k->tpl->nnames;
}

void
registry_kstat_name(const struct reg_kstat *k, char *buf, size_t len)
{
	snprintf(buf, len, "%s:%d:%s", k->hdr.module, (int)k->hdr.instance,
	    k->hdr.name);
}

/* Revive a dormant kstat: same template, back in the chain. */
/* Does every peer of the global zone see k? */
static bool
reg_public(const struct reg_kstat *k)
{
	return (k->hdr.flags & KSTAT_FLAG_PRIV) == 0 &&
	    zone_sees(ZONE_GLOBAL, k->zone, reg_kstat_gz(k));
}

/* Is k seen by a peer of any zone? (Not PRIV, of ZONE_ALL.) */
static bool
reg_everywhere(const struct reg_kstat *k)
{
	return (k->hdr.flags & KSTAT_FLAG_PRIV) == 0 && k->zone == ZONE_ALL;
}

/* Count k (delta 1) or stop counting it (-1) as public, active or
 * dormant as it is now. */
static void
reg_public_count(struct registry *r, struct reg_kstat *k, int delta)
{
	if (!reg_public(k))
		return;
	if (k->dormant)
		r->npublic_dormant += (uint64_t)(int64_t)delta;
	else
		r->npublic += (uint64_t)(int64_t)delta;
}

/* Count k as dormant (delta 1) or not any more (-1). */
static void
reg_dormant_count(struct registry *r, struct reg_kstat *k, int delta)
{
	r->ndormant += (uint64_t)(int64_t)delta;
	k->rseg->ndormant += (uint32_t)delta;
}

/* Make sure t has an entry for rs, so that reg_tpl_count() cannot fail.
 * Returns: 0; -ENOMEM. */
static int
reg_tpl_use_reserve(struct reg_template *t, struct reg_seg *rs)
{
	struct reg_tpl_use *u;
	uint32_t i;

	for (i = 0; i < t->nuses; i++)
		if (t->uses[i].rs == rs && t->uses[i].n > 0)
			return 0;
	for (i = 0; i < t->nuses; i++)
		if (t->uses[i].n == 0) {
			t->uses[i].rs = rs;
			return 0;
		}
	u = realloc(t->uses, (t->nuses + 1) * sizeof(*u));
	if (u == NULL)
		return -ENOMEM;
	t->uses = u;
	t->uses[t->nuses].rs = rs;
	t->uses[t->nuses++].n = 0;
	return 0;
}

/* Count k as made from t (delta 1) or not any more (-1): t's kstats,
 * public ones, those of every zone, and those in k's segment (reserved
 * with reg_tpl_use_reserve() first). */
static void
reg_tpl_count(struct registry *r, struct reg_template *t,
    struct reg_kstat *k, int delta)
{
	uint32_t i;

	t->nkstats += (unsigned)delta;
	if (reg_public(k)) {
		if (delta > 0 && t->npublic++ == 0)
			r->npublic_tpls++;
		if (delta < 0 && --t->npublic == 0)
			r->npublic_tpls--;
	}
	if (reg_everywhere(k))
		t->nall += (unsigned)delta;
	for (i = 0; i < t->nuses; i++)
		if (t->uses[i].rs == k->rseg && t->uses[i].n > 0) {
			t->uses[i].n += (uint32_t)delta;
			return;
		}
	/* The first of its segment: the entry reserved for it. */
	INVARIANT(delta > 0);
	for (i = 0; i < t->nuses; i++)
		if (t->uses[i].rs == k->rseg && t->uses[i].n == 0) {
			t->uses[i].n = 1;
			return;
		}
	INVARIANT(false);
}

static int
reg_revive(struct registry *r, struct reg_kstat *k,
    const struct reg_kstat_new *n)
{
	int e;

	if (k->tpl != n->tpl)
		return -ESTALE;
	e = store_kstat_set_flags(k->seg, k->ref.slot, 0,
	    KSTAT_FLAG_DORMANT);
	if (e < 0)
		return e;
	reg_public_count(r, k, -1);
	k->hdr.flags &= ~(uint32_t)KSTAT_FLAG_DORMANT;
	k->dormant = false;
	reg_dormant_count(r, k, -1);
	reg_public_count(r, k, 1);
	return 0;
}

/* Give back everything k was charged. */
static void
reg_kstat_uncharge(struct registry *r, struct reg_kstat *k)
{
	int q;

	for (q = 0; q < QUOTA_NUM; q++) {
		quota_release(r->d->quota, k->owner, (enum quota_res)q,
		    k->charged[q]);
		k->charged[q] = 0;
	}
}

/* Charge n units of q to k's owner and note it in k. */
static int
reg_kstat_charge(struct registry *r, struct reg_kstat *k, bool privileged,
    bool force, enum quota_res q, uint64_t n, struct quota_refusal *why)
{
	int e;

	if (n == 0)
		return 0;
	e = force ? quota_force(r->d->quota, k->owner, q, n) :
	    quota_charge(r->d->quota, k->owner, privileged, q, n, why);
	if (e == 0)
		k->charged[q] += n;
	return e;
}

/* The store refused a kstat for lack of room: name what is full. */
static void
reg_store_full(struct registry *r, bool priv, struct quota_refusal *why)
{
	if (!priv && quota_used_total(r->d->quota, QUOTA_KSTATS) >=
	    r->d->cfg.max_kstats) {
		why->limit = "max_kstats";
		why->value = r->d->cfg.max_kstats;
	} else {
		why->limit = priv ? "private_arena_size" : "arena_size";
		why->value = priv ? r->d->cfg.private_arena_size :
		    r->d->cfg.arena_size;
	}
}

int
registry_kstat_create(struct registry *r, const struct reg_kstat_new *n,
    struct reg_kstat **ret, bool *ret_revived, struct quota_refusal *why)
{
	struct reg_kstat *k, *old;
	struct store_slot slot;
	bool priv = (n->hdr->flags & KSTAT_FLAG_PRIV) != 0;
	void *blob;
	uint32_t size;
	int e;

	*ret_revived = false;
	old = registry_kstat_find(r, n->hdr->module, n->hdr->instance,
	    n->hdr->name);
	if (old != NULL) {
		if (!old->dormant)
			return -EEXIST;
		e = reg_revive(r, old, n);
		if (e < 0)
			return e;
		*ret = old;
		*ret_revived = true;
		return 0;
	}
	if (r->nks == r->cks) {
		size_t nc = r->cks > 0 ? 2 * r->cks : 64;
		void *p = realloc(r->ks, nc * sizeof(*r->ks));

		if (p == NULL)
			return -ENOMEM;
		r->ks = p;
		r->cks = nc;
	}
	if (r->nks >= 2 * (size_t)r->d->cfg.max_kstats)
		return -ENOSPC;
	k = calloc(1, sizeof(*k));
	if (k == NULL)
		return -ENOMEM;
	k->hdr = *n->hdr;
	size = n->blob != NULL ? n->blob_size : n->tpl->size;
	if (size < SB_V1_HDRSZ || size > STORE_BLOB_MAX) {
		free(k);
		return -E2BIG;
	}
	k->handle = n->handle != 0 ? n->handle : r->next_handle;
	if (registry_kstat_by_handle(r, k->handle) != NULL) {
		free(k);
		return -EEXIST;
	}
	k->owner = n->owner;
	k->owner_zone = n->owner_zone;
	k->zone = n->zone;
	if (n->gz && n->zone != ZONE_ALL && n->zone != ZONE_GLOBAL)
		k->hdr.flags |= KSTAT2_FLAG_GZ_VIS;
	else
		k->hdr.flags &= ~(uint32_t)KSTAT2_FLAG_GZ_VIS;
	k->tpl = n->tpl;
	k->rseg = reg_seg_get(r, k->zone, reg_kstat_gz(k), priv, true, n, &e,
	    why);
	if (k->rseg == NULL) {
		free(k);
		return e;
	}
	if (reg_tpl_use_reserve(k->tpl, k->rseg) < 0) {
		reg_seg_release(r, k->rseg);
		free(k);
		return -ENOMEM;
	}
	k->seg = k->rseg->seg;
	k->size = size;
	k->hdr.crtime = (hrtime_t)(n->crtime != 0 ? n->crtime :
	    clock_now_ns());
	k->hdr.kid = (int64_t)k->handle;
	if (n->dormant)
		k->hdr.flags |= KSTAT_FLAG_DORMANT;
	k->ndata = n->ndata;
	slot.owner_uid = (uint32_t)n->owner;
	slot.tpl_hash = n->tpl->hash;
	slot.ndata = registry_kstat_ndata(k);
	/* The public segment is shared by everyone: its slots and arena
	 * are charged. The private one only privileged peers can fill. */
	e = 0;
	if (!priv) {
		e = reg_kstat_charge(r, k, n->privileged, n->restoring,
		    QUOTA_KSTATS, 1, why);
		if (e == 0)
			e = reg_kstat_charge(r, k, n->privileged,
			    n->restoring, QUOTA_ARENA,
			    store_kstat_cost(&k->hdr, size), why);
	}
	if (e == 0 && (k->hdr.flags & KSTAT_FLAG_PERSISTENT))
		e = reg_kstat_charge(r, k, n->privileged, n->restoring,
		    QUOTA_PERSISTENT, blob_storage_disk_bytes(size), why);
	if (e == 0) {
		e = store_kstat_add_at(k->seg, &k->hdr, &slot, size,
		    n->at_seg != NULL && strcmp(n->at_seg, k->rseg->name) ==
		    0 ? n->at_off : 0, &k->ref, NULL);
		if (e == -ENOSPC) {
			reg_store_full(r, priv, why);
			e = -EDQUOT;
		}
	}
	if (e < 0) {
		reg_kstat_uncharge(r, k);
		reg_seg_release(r, k->rseg);
		free(k);
		return e;
	}
	(void)store_kstat_write_begin(k->seg, k->ref.slot, &blob);
	if (n->blob != NULL) {
		memcpy(blob, n->blob, size);
	} else {
		((struct statsblob *)blob)->maxsz = (uint16_t)size;
		e = stats_blob_init(blob, (uint32_t)n->tpl->id, 0);
	}
	store_kstat_write_end(k->seg, k->ref.slot, (uint64_t)k->hdr.crtime);
	k->blob = blob;
	k->hdr.snaptime = k->hdr.crtime;
	if (e != 0) {
		(void)store_kstat_remove(k->seg, k->ref.slot);
		reg_kstat_uncharge(r, k);
		reg_seg_release(r, k->rseg);
		free(k);
		return -EINVAL;
	}
	k->ix.handle = k->handle;
	k->ix.instance = k->hdr.instance;
	k->ix.module = k->hdr.module;
	k->ix.name = k->hdr.name;
	k->ix.item = k;
	if (kindex_add(r->ix, &k->ix) < 0) {
		(void)store_kstat_remove(k->seg, k->ref.slot);
		reg_kstat_uncharge(r, k);
		reg_seg_release(r, k->rseg);
		free(k);
		return -ENOMEM;
	}
	k->storage = n->storage;
	k->rseg->nkstats++;
	reg_tpl_count(r, k->tpl, k, 1);
	zones_ref(r->d->zones, k->zone);
	zones_ref(r->d->zones, k->owner_zone);
	if (n->dormant) {
		k->dormant = true;
		reg_dormant_count(r, k, 1);
	}
	reg_public_count(r, k, 1);
	if (k->handle >= r->next_handle)
		r->next_handle = k->handle + 1;
	if (r->next_handle == 0)	/* never give out 0 */
		r->next_handle = 1;
	k->pos = r->nks;
	r->ks[r->nks++] = k;
	if (n->blob != NULL)
		registry_kstat_name_layout(r, k);
	*ret = k;
	return 0;
}

int
registry_kstat_delete(struct registry *r, struct reg_kstat *k)
{
	if ((k->hdr.flags & KSTAT_FLAG_PERSISTENT) && !k->dormant) {
		registry_sync(r);
		(void)store_kstat_set_flags(k->seg, k->ref.slot,
		    KSTAT_FLAG_DORMANT, 0);
		reg_public_count(r, k, -1);
		k->hdr.flags |= KSTAT_FLAG_DORMANT;
		k->dormant = true;
		reg_dormant_count(r, k, 1);
		reg_public_count(r, k, 1);
		return 1;
	}
	registry_kstat_forget(r, k);
	return 0;
}

void
registry_kstat_forget(struct registry *r, struct reg_kstat *k)
{
	size_t i;

	reg_public_count(r, k, -1);
	reg_tpl_count(r, k->tpl, k, -1);
	if (k->dormant)
		reg_dormant_count(r, k, -1);
	for (i = r->ndirty; i-- > 0;)
		if (r->dirty[i] == k)
			r->dirty[i] = r->dirty[--r->ndirty];
	(void)store_kstat_remove(k->seg, k->ref.slot);
	kindex_remove(r->ix, &k->ix);
	r->ks[k->pos] = r->ks[--r->nks];
	r->ks[k->pos]->pos = k->pos;
	blob_storage_remove(k->storage);
	reg_kstat_uncharge(r, k);
	reg_kstat_unname(k);
	k->rseg->nkstats--;
	reg_seg_release(r, k->rseg);
	zones_unref(r->d->zones, k->zone);
	zones_unref(r->d->zones, k->owner_zone);
	free(k);
}

json_t *
registry_kstat_json(struct registry *r, const struct reg_kstat *k)
{
	struct kstat_json_fields f = {
		.hdr = &k->hdr,
		.flags = k->hdr.flags & (KS_FLAGS_SHOWN | KSTAT2_FLAG_GZ_VIS),
		.handle = k->handle,
		.segment = k->rseg->name,
		.ref = k->ref,
		.owner = k->owner,
		.spec = k->tpl->spec,
		.size = k->size,
		.zone = k->zone,
		.ndata = registry_kstat_ndata(k),
	};

	(void)r;
	return registry_kstat_json_of(&f);
}

json_t *
registry_kstat_json_of(const struct kstat_json_fields *f)
{
	const struct kstat_hdr *h = f->hdr;
	json_t *flags = json_array(), *path = json_array();
	const char *names[KS_NFLAG_NAMES];
	char seg[KS_PATH_MAX + 1];
	uint32_t i, np;
	size_t nf;

	nf = ks_flags_names(f->flags, names);
	for (i = 0; i < nf; i++)
		json_array_append_new(flags, json_string(names[i]));
	np = ks_hdr_npseg(h);
	for (i = 0; i < np; i++)
		if (ks_hdr_pseg(h, i, seg, sizeof(seg)) == 0)
			json_array_append_new(path, json_string(seg));
	return json_pack("{s:s, s:i, s:s, s:s, s:s, s:o, s:I, s:I, s:s, "
	    "s:I, s:I, s:I, s:s, s:I, s:I, s:I, s:s, s:o, s:I, s:s, s:I, "
	    "s:I}",
	    "module", h->module, "instance", (int)h->instance,
	    "name", h->name, "class", h->class_,
	    "type", h->type < KSTAT_NUM_TYPES ? ks_type_id(h->type) : "RAW",
	    "flags", flags, "kid", (json_int_t)h->kid,
	    "handle", (json_int_t)f->handle,
	    "segment", f->segment,
	    "slot", (json_int_t)f->ref.slot, "gen", (json_int_t)f->ref.gen,
	    "owner", (json_int_t)f->owner, "template", f->spec,
	    "size", (json_int_t)f->size,
	    "crtime", (json_int_t)h->crtime,
	    "snaptime", (json_int_t)h->snaptime,
	    "description", h->desc, "path", path,
	    "zone", (json_int_t)(f->zone == ZONE_ALL ? -1 : (int64_t)f->zone),
	    "content", ks_content_id(h->content) != NULL ?
	    ks_content_id(h->content) : "UNK",
	    "scale", (json_int_t)(h->scale > INT64_MAX ? INT64_MAX :
	    (h->scale == 0 ? 1 : h->scale)),
	    "ndata", (json_int_t)f->ndata);
}

/* -------------------------------------------------------------------- blobs */

struct statsblob *
registry_blob_begin(struct registry *r, struct reg_kstat *k)
{
	void *blob;

	if (k->storage != NULL) {
		if (!k->dirty) {
			if (r->ndirty == r->cdirty) {
				size_t nc = r->cdirty > 0 ? 2 * r->cdirty : 64;
				void *p = realloc(r->dirty,
				    nc * sizeof(*r->dirty));

				if (p == NULL) {
					/* Sync this one now instead. */
					return k->storage->blob;
				}
				r->dirty = p;
				r->cdirty = nc;
			}
			r->dirty[r->ndirty++] = k;
			k->dirty = true;
		}
		return k->storage->blob;
	}
	(void)store_kstat_write_begin(k->seg, k->ref.slot, &blob);
	return blob;
}

static void reg_sync_one(struct reg_kstat *k);

void
registry_blob_end(struct registry *r, struct reg_kstat *k, uint64_t snaptime)
{
	(void)r;
	k->hdr.snaptime = (hrtime_t)snaptime;
	k->changes++;
	if (k->storage == NULL)
		store_kstat_write_end(k->seg, k->ref.slot, snaptime);
	else if (!k->dirty)
		reg_sync_one(k);	/* the dirty list could not grow */
}

const struct statsblob *
registry_blob_peek(const struct reg_kstat *k)
{
	if (k->storage != NULL)
		return k->storage->blob;
	return k->blob;
}

int
registry_kstat_attach(struct registry *r, struct reg_kstat *k,
    struct blob_storage *s)
{
	(void)r;
	if (k->size > BLOB_STORAGE_CAP)
		return -E2BIG;
	memcpy(s->blob, registry_blob_peek(k), k->size);
	blob_storage_set_size(s, k->size);
	k->storage = s;
	return 0;
}

/* Copy a PERSISTENT kstat's stored blob into its store blob. */
static void
reg_sync_one(struct reg_kstat *k)
{
	void *blob;

	if (store_kstat_write_begin(k->seg, k->ref.slot, &blob) < 0)
		return;
	memcpy(blob, k->storage->blob, k->size);
	store_kstat_write_end(k->seg, k->ref.slot,
	    (uint64_t)k->hdr.snaptime);
	k->dirty = false;
}

void
registry_sync(struct registry *r)
{
	size_t i;

	for (i = 0; i < r->ndirty; i++)
		if (r->dirty[i]->dirty)
			reg_sync_one(r->dirty[i]);
	r->ndirty = 0;
}

/* Move k's charge of q to n units. Returns: 0; -EDQUOT. */
static int
reg_kstat_recharge(struct registry *r, struct reg_kstat *k, bool privileged,
    enum quota_res q, uint64_t n, struct quota_refusal *why)
{
	if (n > k->charged[q])
		return reg_kstat_charge(r, k, privileged, false, q,
		    n - k->charged[q], why);
	quota_release(r->d->quota, k->owner, q, k->charged[q] - n);
	k->charged[q] = n;
	return 0;
}

/*
 * Install nb (size bytes) as k's blob: the owner is charged for the new
 * size (privileged: held to the totals only), the store switches to it in
 * one seqlock window (store_kstat_relayout_with()), with x (may be NULL)
 * as the slot's template hash and ndata. A PERSISTENT kstat's stored
 * blob takes it once the store could: a full arena leaves both as they
 * were.
 */
static int
reg_blob_install(struct registry *r, struct reg_kstat *k,
    const struct statsblob *nb, uint32_t size, bool privileged,
    const struct store_slot *x, struct quota_refusal *why)
{
	uint64_t old_arena = k->charged[QUOTA_ARENA];
	uint64_t old_disk = k->charged[QUOTA_PERSISTENT];
	bool priv = k->rseg->priv;
	void *blob;
	int e = 0;

	if (size < SB_V1_HDRSZ || size > STORE_BLOB_MAX)
		return -E2BIG;
	if (size == k->size && x == NULL) {
		if (k->storage != NULL)
			memcpy(k->storage->blob, nb, size);
		(void)store_kstat_write_begin(k->seg, k->ref.slot, &blob);
		memcpy(blob, nb, size);
		k->hdr.snaptime = (hrtime_t)clock_now_ns();
		store_kstat_write_end(k->seg, k->ref.slot,
		    (uint64_t)k->hdr.snaptime);
		k->blob = blob;
		k->dirty = false;
		k->changes++;
		return 0;
	}
	if (!priv)
		e = reg_kstat_recharge(r, k, privileged, QUOTA_ARENA,
		    store_kstat_relayout_cost(k->seg, k->ref.slot, size), why);
	if (e == 0 && (k->hdr.flags & KSTAT_FLAG_PERSISTENT))
		e = reg_kstat_recharge(r, k, privileged, QUOTA_PERSISTENT,
		    blob_storage_disk_bytes(size), why);
	k->hdr.snaptime = (hrtime_t)clock_now_ns();
	if (e == 0) {
		e = store_kstat_relayout_with(k->seg, k->ref.slot, nb, size, x,
		    (uint64_t)k->hdr.snaptime, &blob);
		if (e == -ENOSPC) {
			reg_store_full(r, priv, why);
			e = -EDQUOT;
		}
	}
	if (e < 0) {
		(void)reg_kstat_recharge(r, k, true, QUOTA_ARENA, old_arena,
		    why);
		(void)reg_kstat_recharge(r, k, true, QUOTA_PERSISTENT,
		    old_disk, why);
		return e;
	}
	if (k->storage != NULL) {
		memcpy(k->storage->blob, nb, size);
		blob_storage_set_size(k->storage, size);
	}
	k->blob = blob;
	k->size = size;
	k->dirty = false;
	k->changes++;
	return 0;
}

int
registry_blob_replace(struct registry *r, struct reg_kstat *k,
    const struct statsblob *nb, uint32_t size, bool privileged,
    struct quota_refusal *why)
{
	return reg_blob_install(r, k, nb, size, privileged, NULL, why);
}

/* VOI id's definition in a template's canonical definition, or NULL. */
static json_t *
reg_voi_def(const struct reg_template *t, int id)
{
	json_t *v;
	size_t i;

	json_array_foreach(json_object_get(t->def, "vois"), i, v) {
		if (json_integer_value(json_object_get(v, "id")) == id)
			return v;
	}
	return NULL;
}

int
registry_kstat_relayout(struct registry *r, struct reg_kstat *k,
    struct reg_template *t, bool privileged, uint16_t *ret_kept,
    struct quota_refusal *why)
{
	const struct statsblob_tpl *et;
	struct statsblob *nb = NULL;
	struct store_slot x;
	json_t *od, *nd;
	bool *keep;
	uint16_t i, kept = 0;
	int e;

	if (k->dormant)
		return -ENOENT;
	if (t == k->tpl) {
		for (i = 0; i < t->nnames; i++)
			kept += reg_voi_def(t, i) != NULL;
		*ret_kept = kept;
		return 0;
	}
	keep = calloc(t->nnames > 0 ? t->nnames : 1, sizeof(*keep));
	if (keep == NULL)
		return -ENOMEM;
	/* A VOI id both templates hold must mean the same VOI: records for
	 * it still in a ring, or in a spill buffer's log, are applied by id
	 * and must land on what they were meant for. */
	for (i = 0; i < t->nnames; i++) {
		nd = reg_voi_def(t, i);
		od = i < k->tpl->nnames ? reg_voi_def(k->tpl, i) : NULL;
		if (nd == NULL || od == NULL)
			continue;
		if (!json_equal(od, nd)) {
			free(keep);
			return -EINVAL;
		}
		keep[i] = true;
		kept++;
	}
	tpl_rlock();
	et = tpl_get_locked(t->id);
	e = et == NULL ? ENOENT : layout_carry(registry_blob_peek(k), et->sb,
	    keep, t->nnames, t->hash, &nb);
	tpl_runlock();
	free(keep);
	if (e == 0 && reg_tpl_use_reserve(t, k->rseg) < 0) {
		free(nb);
		e = ENOMEM;
	}
	if (e != 0)
		return e == EFBIG ? -E2BIG : -e;
	registry_sync(r);	/* nothing of the old blob left behind */
	x.owner_uid = (uint32_t)k->owner;
	x.tpl_hash = t->hash;
	x.ndata = k->ndata != 0 ? k->ndata : (k->hdr.type == KSTAT_TYPE_RAW ?
	    t->nnames * 8u : t->nnames);
	e = reg_blob_install(r, k, nb, ((struct statsblobv1 *)nb)->cursz,
	    privileged, &x, why);
	free(nb);
	if (e < 0)
		return e;
	/* Everything counted of a template moves with it (that it is seen
	 * in every zone, too: reg_tpl_count()). */
	reg_tpl_count(r, k->tpl, k, -1);
	reg_tpl_count(r, t, k, 1);
	k->tpl = t;
	reg_kstat_unname(k);	/* laid out as t now */
	*ret_kept = kept;
	return 0;
}
