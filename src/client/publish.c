/*
 * publish.c: stats_blob_publish() — a stats(3) template described to
 * statsd as JSON (TemplateAdd's VoiSpec/StatSpec), a kstat of it, and
 * statsd's blob shown to the application in place through a read-only
 * window onto the store segment.
 *
 * Every window lives in one address range reserved at the first publish,
 * in fixed-size slots; the engine routes stats_voi_update_xy() on any blob
 * in that range to cl_remote_update() (op.h's engine_remote_set()), which
 * finds the blob's kstat by slot number and pushes a ring record. After a
 * restart each window is mapped again onto the new segment, at the same
 * address, when the blob keeps its offset within its page (the pointer
 * the application holds cannot move).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "blob.h"
#include "client_priv.h"
#include "engine.h"
#include "kind.h"

/* Slots of the window range; each holds the largest blob at any offset
 * within its first page. */
#define CL_WIN_SLOTS	16384u

/* A VOI as the update hook checks it: its type, and whether it takes
 * relative updates (VOI_REQSTATE). Copied once at publish, so the hook
 * reads nothing of statsd's memory (which a restart remaps). */
struct cl_pub_voi {
	int8_t		 dtype;		/* -1: vacant */
	bool		 rel;
};

struct cl_pub {
	struct cl_kobj	 o;		/* first: the kobj is freed as a pub */
	uint16_t	 nvois;
	struct cl_pub_voi *vois;
	uint32_t	 slot;
	_Atomic size_t	 inpage;	/* the blob's offset within its page */
	size_t		 maplen;	/* bytes mapped at the slot */
	struct cl_pub	*next;
};

static uint8_t *cl_win_base;
static size_t cl_win_size;		/* bytes per slot */
static size_t cl_page;
static uint32_t cl_win_next;
static struct cl_pub *cl_pubs;		/* every publication, for remaps */
static struct cl_pub *_Atomic cl_win_pub[CL_WIN_SLOTS];

/* ------------------------------------------------------ the update hook */

static int
cl_remote_update(struct statsblob *sb, int32_t voi_id, enum vsd_dtype dtype,
    const struct voistatdata_numeric *voival, uint64_t y, uint32_t flags)
{
	size_t off = (size_t)((uint8_t *)sb - cl_win_base);
	size_t slot = off / cl_win_size;
	const struct cl_pub_voi *v;
	struct cl_pub *pub;
	uint8_t op, rf = 0;
	int64_t x;

	pub = atomic_load_explicit(&cl_win_pub[slot], memory_order_acquire);
	if (pub == NULL || off != slot * cl_win_size +
	    atomic_load_explicit(&pub->inpage, memory_order_relaxed) ||
	    voival == NULL || y == 0 || (flags & ~SB_VOI_RELUPDATE) != 0 ||
	    voi_id < 0 || voi_id >= pub->nvois)
		return EINVAL;
	v = &pub->vois[voi_id];
	if (v->dtype < 0 || v->dtype != (int8_t)dtype)
		return EINVAL;
	if (flags & SB_VOI_RELUPDATE) {
		if (!v->rel || y != 1)
			return EINVAL;
		op = STATS_OP_REL;
	} else {
		op = y == 1 ? STATS_OP_ABS : STATS_OP_XY;
	}
	x = cl_x_of(dtype, voival, &rf);
	if (op == STATS_OP_XY && y > INT64_MAX && !(rf & STATS_OPF_UNSIGNED))
		return EINVAL;
	cl_push(atomic_load_explicit(&pub->o.handle, memory_order_relaxed),
	    (uint16_t)voi_id, op, rf, x, op == STATS_OP_XY ? (int64_t)y : 0, 0);
	return 0;
}

/* Reserve the window range and turn routing on. cl.lock held. */
static int
cl_win_init_locked(void)
{
	void *base;

	if (cl_win_base != NULL)
		return 0;
	cl_page = (size_t)sysconf(_SC_PAGESIZE);
	cl_win_size = (STORE_BLOB_MAX + 2 * cl_page - 1) / cl_page * cl_page;
	base = mmap(NULL, (size_t)CL_WIN_SLOTS * cl_win_size, PROT_NONE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED)
		return cl_fail(errno, "publish: cannot reserve address space "
		    "for published blobs: %s", strerror(errno));
	cl_win_base = base;
	engine_remote_set(base, (size_t)CL_WIN_SLOTS * cl_win_size,
	    cl_remote_update);
	return 0;
}

/* Map pub's blob at its slot. Returns: 0; -errno. */
static int
cl_win_map_locked(struct cl_pub *pub, bool first)
{
	struct cl_seg *seg = cl_segs_find(&cl.segs, pub->o.seg);
	uint64_t off;
	uint32_t size, chunk;
	size_t inpage, len;
	void *at;
	int r;

	/* A segment statsd made after this process attached (its zone's
	 * first kstat): attach again. */
	if (seg == NULL && cl_segments_attach_locked() == 0)
		seg = cl_segs_find(&cl.segs, pub->o.seg);
	if (seg == NULL)
		return cl_fail(ENOTCONN, "publish: statsd gave no segment %s",
		    pub->o.seg);
	r = cl_store_span(seg->r, pub->o.ref, &off, &size, &chunk);
	if (r < 0)
		return cl_fail(r, "publish: %s:%d:%s is not in the segment: %s",
		    pub->o.module, (int)pub->o.instance, pub->o.name,
		    strerror(-r));
	inpage = (size_t)(off % cl_page);
	if (!first && inpage != atomic_load_explicit(&pub->inpage,
	    memory_order_relaxed))
		return cl_fail(EADDRNOTAVAIL, "publish: %s:%d:%s moved within "
		    "its page in the new statsd's segment; its blob pointer "
		    "shows the data of before the restart", pub->o.module,
		    (int)pub->o.instance, pub->o.name);
	len = (inpage + chunk + cl_page - 1) / cl_page * cl_page;
	if (len > cl_win_size)
		len = cl_win_size;
	at = mmap(cl_win_base + (size_t)pub->slot * cl_win_size, len,
	    PROT_READ, MAP_SHARED | MAP_FIXED, seg->fd, (off_t)(off - inpage));
	if (at == MAP_FAILED)
		return cl_fail(errno, "publish: cannot map the blob: %s",
		    strerror(errno));
	/* A shorter mapping than before leaves the rest reserved. */
	if (pub->maplen > len)
		(void)mmap((uint8_t *)at + len, pub->maplen - len, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
		    -1, 0);
	atomic_store_explicit(&pub->inpage, inpage, memory_order_relaxed);
	pub->maplen = len;
	return 0;
}

/* Copy the VOI table of statsd's blob. */
static int
cl_pub_vois(struct cl_pub *pub)
{
	struct cl_seg *seg = cl_segs_find(&cl.segs, pub->o.seg);
	struct store_kstat_info info;
	const struct statsblobv1 *b;
	uint8_t *copy;
	size_t size = 0;
	uint16_t i, n;
	int r;

	if (seg == NULL)
		return cl_fail(ENOTCONN, "publish: statsd gave no segment %s",
		    pub->o.seg);
	copy = malloc(STORE_BLOB_MAX);
	if (copy == NULL)
		return -ENOMEM;
	/* A consistent copy: the mapping may be half-way through an
	 * update. */
	r = cl_store_read(seg->r, pub->o.ref, &info, copy, STORE_BLOB_MAX,
	    &size);
	b = (const struct statsblobv1 *)copy;
	if (r < 0 || stats_blob_validate((const struct statsblob *)b,
	    size) != 0) {
		free(copy);
		return cl_fail(r < 0 ? r : EPROTO, "publish: statsd's blob of "
		    "%s %s", pub->o.name, r < 0 ? strerror(-r) :
		    "does not validate");
	}
	n = blob_nvois(b);
	pub->vois = calloc(n + 1u, sizeof(*pub->vois));
	if (pub->vois == NULL) {
		free(copy);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		pub->vois[i].dtype = b->vois[i].id < 0 ? -1 :
		    (int8_t)b->vois[i].dtype;
		pub->vois[i].rel = (b->vois[i].flags & VOI_REQSTATE) != 0;
	}
	pub->nvois = n;
	free(copy);
	return 0;
}

void
cl_windows_remap_locked(void)
{
	struct cl_pub *pub;

	for (pub = cl_pubs; pub != NULL; pub = pub->next)
		if (pub->o.listed && !pub->o.deleted &&
		    atomic_load_explicit(&pub->o.handle,
		    memory_order_relaxed) != 0)
			(void)cl_win_map_locked(pub, false);
}

/* ------------------------------------------------- templates as JSON */

/*
 * A statistic as a StatSpec, from its kind's own description of it (the
 * kind table's describe) and the parameter table: {"kind": NAME, params}.
 * NULL if the kind cannot describe it.
 */
static json_t *
cl_stat_json(const struct voi *v, const struct voistat *vs,
    const struct voistatdata *vsd)
{
	const struct stype_ops *k = &stype_ops[vs->stype];
	struct kind_args a;
	json_t *st, *arr;
	size_t i;
	int spec, p;

	if (k->describe == NULL)
		return NULL;
	spec = k->describe(vsd, vs->dsz, (enum vsd_dtype)vs->dtype,
	    (enum vsd_dtype)v->dtype, &a);
	if (spec < 0 || spec >= k->nspecs)
		return NULL;
	st = json_pack("{s:s}", "kind", k->specs[spec].name);
	for (p = 0; st != NULL && p < KP_NUM; p++) {
		if (!kind_has(&a, (enum kind_param)p))
			continue;
		switch (kind_params[p].type) {
		case KPT_INT:
			json_object_set_new(st, kind_params[p].name,
			    json_integer((json_int_t)a.v[p]));
			break;
		case KPT_BOOL:
			json_object_set_new(st, kind_params[p].name,
			    json_boolean(a.v[p] != 0));
			break;
		case KPT_STRING:
			json_object_set_new(st, kind_params[p].name,
			    json_string(a.s[p]));
			break;
		case KPT_INTS:
			arr = json_array();
			for (i = 0; i < a.nints; i++)
				json_array_append_new(arr,
				    json_integer((json_int_t)a.ints[i]));
			json_object_set_new(st, kind_params[p].name, arr);
			break;
		}
	}
	kind_args_done(&a);
	return st;
}

/* The lowest data offset of a VOI's statistics: VOIs were added in the
 * order of decreasing offsets (each new block goes first). */
static uint32_t
cl_voi_first_off(const struct statsblobv1 *b, const struct voi *v)
{
	uint32_t lo = UINT32_MAX;
	int s;

	for (s = 0; s <= v->voistatmaxid; s++) {
		const struct voistat *vs = blob_voistat(b, v, s);

		if (vs->stype >= 0 && vs->data_off < lo)
			lo = vs->data_off;
	}
	return lo;
}

static int
cl_voi_json(const struct statsblobv1 *b, const struct voi *v,
    const char *name, json_t **ret)
{
	const struct voistat *order[VS_NUM_STYPES];
	json_t *stats = json_array(), *st;
	int s, n = 0, i, j;

	for (s = 0; s <= v->voistatmaxid && s < VS_NUM_STYPES; s++) {
		const struct voistat *vs = blob_voistat(b, v, s);

		if (vs->stype < 0 || s == VS_STYPE_VOISTATE)
			continue;
		/* The caller's spec order is the order of the data. */
		for (i = n; i > 0 && order[i - 1]->data_off > vs->data_off; i--)
			order[i] = order[i - 1];
		order[i] = vs;
		n++;
	}
	/* A statistic that comes alone (a Linux statistic's definition)
	 * brings the VOI's other statistics itself: describe it only. */
	for (j = 0; j < n; j++)
		if (stype_ops[order[j]->stype].alone) {
			order[0] = order[j];
			n = 1;
		}
	for (j = 0; j < n; j++) {
		const struct voistat *vs = order[j];
		const struct voistatdata *vsd = blob_vsd(b, vs);

		st = cl_stat_json(v, vs, vsd);
		if (st == NULL && stype_ops[vs->stype].describe == NULL) {
			json_decref(stats);
			return cl_fail(EINVAL, "publish: VOI %s has a %s "
			    "statistic, which only the kstat and statistic "
			    "calls make", name, stats_voi_stype_name(
			    (enum voi_stype)vs->stype));
		}
		if (st == NULL) {
			json_decref(stats);
			return cl_fail(EINVAL, "publish: VOI %s: a statistic "
			    "that does not describe itself", name);
		}
		json_array_append_new(stats, st);
	}
	*ret = json_pack("{s:i, s:s, s:s, s:b, s:o}", "id", (int)v->id,
	    "name", name, "dtype", stats_vsd_dtype_name(
	    (enum vsd_dtype)v->dtype), "relupdate",
	    (v->flags & VOI_REQSTATE) != 0, "stats", stats);
	return *ret != NULL ? 0 : -ENOMEM;
}

/* TemplateAdd's parameters for template tpl_id. */
static int
cl_tpl_json(int tpl_id, json_t **ret)
{
	struct statsblob_tpl *tpl;
	const struct statsblobv1 *b;
	const struct voi **order;
	json_t *vois;
	uint16_t nv, i;
	int n = 0, k, r;

	if (stats_tpl_fetch(tpl_id, &tpl) != 0)
		return cl_fail(ENOENT, "publish: no template %d", tpl_id);
	b = (const struct statsblobv1 *)tpl->sb;
	nv = blob_nvois(b);
	order = calloc(nv + 1u, sizeof(*order));
	if (order == NULL)
		return -ENOMEM;
	for (i = 0; i < nv; i++) {
		const struct voi *v = &b->vois[i];

		if (v->id < 0)
			continue;
		for (k = n; k > 0 && cl_voi_first_off(b, order[k - 1]) <
		    cl_voi_first_off(b, v); k--)
			order[k] = order[k - 1];
		order[k] = v;
		n++;
	}
	if (n == 0) {
		free(order);
		return cl_fail(EINVAL, "publish: template %s has no VOI",
		    tpl->mb->tplname);
	}
	vois = json_array();
	for (k = 0; k < n; k++) {
		const char *name = tpl->mb->voi_meta[order[k]->id].name;
		json_t *vj = NULL;

		r = cl_voi_json(b, order[k], name != NULL ? name : "", &vj);
		if (r < 0) {
			json_decref(vois);
			free(order);
			return r;
		}
		json_array_append_new(vois, vj);
	}
	free(order);
	*ret = json_pack("{s:s, s:o}", "name", tpl->mb->tplname, "vois",
	    vois);
	return *ret != NULL ? 0 : -ENOMEM;
}

/* ------------------------------------------------------------ public API */

struct statsblob *
stats_blob_publish(stats_client_t *c, int tpl_id, const char *module,
    int instance, const char *name, const char *ks_class, uint32_t flags)
{
	struct cl_pub *pub;
	json_t *tj = NULL;
	char local[STATS_TPL_MAX_STR_SPEC_LEN + 8];
	int r;

	if (c != &cl || (flags & ~(uint32_t)(STATS_PUBLISH_PERSISTENT |
	    STATS_PUBLISH_PRIV)) != 0) {
		errno = EINVAL;
		return NULL;
	}
	pthread_mutex_lock(&cl.lock);
	pub = calloc(1, sizeof(*pub));
	if (pub == NULL) {
		r = -ENOMEM;
		goto out;
	}
	r = cl_kobj_names(&pub->o, module, instance, name,
	    ks_class != NULL ? ks_class : "misc");
	if (r < 0)
		goto out;
	r = cl_tpl_json(tpl_id, &tj);
	if (r < 0)
		goto out;
	r = cl_win_init_locked();
	if (r < 0)
		goto out;
	if (cl_win_next == CL_WIN_SLOTS) {
		r = cl_fail(ENOSPC, "publish: %u blobs are published already",
		    CL_WIN_SLOTS);
		goto out;
	}
	pub->o.type = "BLOB";
	pub->o.flags = flags;
	pub->o.tpl = tj;
	pub->o.join = true;
	pub->o.owner = pub;
	tj = NULL;
	r = cl_kobj_create_locked(&pub->o);
	if (r < 0)
		goto out;
	pub->slot = cl_win_next;
	r = cl_win_map_locked(pub, true);
	if (r == 0)
		r = cl_pub_vois(pub);
	if (r < 0) {
		(void)cl_kobj_delete_locked(&pub->o);
		goto out;
	}
	cl_win_next++;
	pub->next = cl_pubs;
	cl_pubs = pub;
	atomic_store_explicit(&cl_win_pub[pub->slot], pub,
	    memory_order_release);
	/* statsd computes the hash itself; it matches ours when the JSON
	 * laid the same blob out, and stats_blob_tostr() then finds the
	 * template by it. */
	if (stats_tpl_id2spec((uint32_t)tpl_id, local, sizeof(local)) == 0 &&
	    strcmp(local, pub->o.tplspec) != 0)
		(void)cl_fail(0, "publish: statsd registered %s as %s",
		    local, pub->o.tplspec);
	pthread_mutex_unlock(&cl.lock);
	return (struct statsblob *)(cl_win_base +
	    (size_t)pub->slot * cl_win_size +
	    atomic_load_explicit(&pub->inpage, memory_order_relaxed));
out:
	json_decref(tj);
	if (pub != NULL && !pub->o.listed) {
		free(pub->vois);
		cl_kobj_free(&pub->o);
	}
	pthread_mutex_unlock(&cl.lock);
	errno = -r;
	return NULL;
}

int
stats_blob_unpublish(stats_client_t *c, struct statsblob *sb)
{
	size_t off, slot;
	struct cl_pub *pub;
	int r;

	if (c != &cl || cl_win_base == NULL || sb == NULL ||
	    (uint8_t *)sb < cl_win_base)
		return -EINVAL;
	off = (size_t)((uint8_t *)sb - cl_win_base);
	slot = off / cl_win_size;
	if (slot >= CL_WIN_SLOTS)
		return -EINVAL;
	pthread_mutex_lock(&cl.lock);
	pub = atomic_load_explicit(&cl_win_pub[slot], memory_order_relaxed);
	if (pub == NULL || off != slot * cl_win_size +
	    atomic_load_explicit(&pub->inpage, memory_order_relaxed)) {
		pthread_mutex_unlock(&cl.lock);
		return -EINVAL;
	}
	atomic_store_explicit(&cl_win_pub[slot], NULL, memory_order_release);
	r = cl_kobj_delete_locked(&pub->o);
	pthread_mutex_unlock(&cl.lock);
	return r;
}
