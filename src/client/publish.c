/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * publish.c: stats_blob_publish() and stats_blob_publish_many() — a
 * stats(3) template described to statsd as JSON (TemplateAdd's
 * VoiSpec/StatSpec), kstats of it (KstatCreateMany: one call for up to
 * 4096 of them), and statsd's blobs shown to the application in place
 * through read-only windows onto the store segments.
 *
 * Every window lives in one address range reserved at the first publish:
 * the engine routes stats_voi_update_xy() on any blob in that range to
 * cl_remote_update() (op.h's engine_remote_set()), which finds the blob's
 * kstat by its address and pushes a ring record. The range holds a region
 * per segment, laid out as the segment, mapped with one mmap whatever the
 * number of blobs. After a restart each region is mapped again onto the
 * new segment: the pointer the application holds cannot move, so each
 * kstat is made again with the offset its blob is shown at (at_segment,
 * at_offset), where the new statsd lays it out unless a kstat it restored
 * first lies there; such a blob still follows when a whole number of
 * pages away from its pointer, alike with its page's other blobs.
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

/*
 * The window range: as much address space as this, reserved (PROT_NONE,
 * nothing committed) at the first publish; smaller if the kernel will
 * not give that much.
 */
#define CL_WIN_RANGE	((size_t)64 << 30)
#define CL_WIN_RANGE_MIN ((size_t)1 << 30)
#define CL_REGIONS_MAX	64

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
	uint8_t		*addr;		/* where the application sees it */
	uint32_t	 chunk;		/* its arena chunk's bytes */
	struct cl_pub	*next;
};

/*
 * A region of the window range: a store segment of statsd, laid out as
 * the segment is — the segment is mapped read-only over the region once,
 * and a blob at offset o of the segment is seen at base + o. So every
 * blob of a segment is shown by one mapping, however many there are (a
 * mapping of its own for each, as an mmap per blob would make, passes the
 * kernel's vm.max_map_count of 65,530 at some 32,000 blobs).
 */
struct cl_region {
	char		 seg[CL_SEG_NAME_MAX];
	uint64_t	 birth;		/* of the segment mapped now */
	uint8_t		*base;
	size_t		 size;		/* reserved */
	size_t		 mapped;	/* of it, mapped */
};

/* Published blobs by address: an open-addressing table the update path
 * reads without a lock. It only grows (by a new table); old tables are
 * kept, since a reader may still be in one. */
struct cl_aent {
	_Atomic uintptr_t	 key;		/* 0: free */
	struct cl_pub *_Atomic	 pub;		/* NULL: unpublished */
};

struct cl_atab {
	size_t		 mask;
	size_t		 used;
	struct cl_atab	*older;
	struct cl_aent	 e[];
};

static uint8_t *cl_win_base;
static size_t cl_win_size, cl_win_used;
static size_t cl_page;
static struct cl_region cl_regions[CL_REGIONS_MAX];
static size_t cl_nregions;
static struct cl_pub *cl_pubs;		/* every publication, for remaps */
static struct cl_atab *_Atomic cl_atab;

/* -------------------------------------------------- blobs by address */

static size_t
cl_addr_hash(uintptr_t a)
{
	return (size_t)(((uint64_t)a >> 6) * UINT64_C(11400714819323198485) >>
	    20);
}

static struct cl_pub *
cl_addr_find(const void *p)
{
	struct cl_atab *t = atomic_load_explicit(&cl_atab,
	    memory_order_acquire);
	uintptr_t a = (uintptr_t)p, k;
	size_t i;

	if (t == NULL)
		return NULL;
	for (i = cl_addr_hash(a) & t->mask; (k = atomic_load_explicit(
	    &t->e[i].key, memory_order_acquire)) != 0; i = (i + 1) & t->mask)
		if (k == a)
			return atomic_load_explicit(&t->e[i].pub,
			    memory_order_acquire);
	return NULL;
}

/* Put (or take out, pub NULL) the blob at p. cl.lock held.
 * Returns: 0; -ENOMEM. */
static int
cl_addr_set_locked(const void *p, struct cl_pub *pub)
{
	struct cl_atab *t = atomic_load_explicit(&cl_atab,
	    memory_order_relaxed), *nt;
	uintptr_t a = (uintptr_t)p, k;
	size_t i, cap;

	if (t == NULL || 2 * (t->used + 1) > t->mask + 1) {
		if (pub == NULL)
			return 0;
		cap = t != NULL ? 2 * (t->mask + 1) : 1024;
		nt = calloc(1, sizeof(*nt) + cap * sizeof(nt->e[0]));
		if (nt == NULL)
			return -ENOMEM;
		nt->mask = cap - 1;
		nt->older = t;
		for (i = 0; t != NULL && i <= t->mask; i++) {
			struct cl_pub *q = atomic_load_explicit(&t->e[i].pub,
			    memory_order_relaxed);
			size_t j;

			k = atomic_load_explicit(&t->e[i].key,
			    memory_order_relaxed);
			if (k == 0 || q == NULL)
				continue;
			for (j = cl_addr_hash(k) & nt->mask; nt->e[j].key != 0;
			    j = (j + 1) & nt->mask)
				;
			atomic_store_explicit(&nt->e[j].pub, q,
			    memory_order_relaxed);
			atomic_store_explicit(&nt->e[j].key, k,
			    memory_order_relaxed);
			nt->used++;
		}
		atomic_store_explicit(&cl_atab, nt, memory_order_release);
		t = nt;
	}
	for (i = cl_addr_hash(a) & t->mask; (k = atomic_load_explicit(
	    &t->e[i].key, memory_order_relaxed)) != 0; i = (i + 1) & t->mask)
		if (k == a) {
			atomic_store_explicit(&t->e[i].pub, pub,
			    memory_order_release);
			return 0;
		}
	if (pub == NULL)
		return 0;
	atomic_store_explicit(&t->e[i].pub, pub, memory_order_relaxed);
	atomic_store_explicit(&t->e[i].key, a, memory_order_release);
	t->used++;
	return 0;
}

/* ------------------------------------------------------ the update hook */

static int
cl_remote_update(struct statsblob *sb, int32_t voi_id, enum vsd_dtype dtype,
    const struct voistatdata_numeric *voival, uint64_t y, uint32_t flags)
{
	const struct cl_pub_voi *v;
	struct cl_pub *pub;
	uint8_t op, rf = 0;
	int64_t x;

	pub = cl_addr_find(sb);
	if (pub == NULL || voival == NULL || y == 0 ||
	    (flags & ~SB_VOI_RELUPDATE) != 0 || voi_id < 0 ||
	    voi_id >= pub->nvois)
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

/* --------------------------------------------------------------- windows */

/* Reserve the window range and turn routing on. cl.lock held. */
static int
cl_win_init_locked(void)
{
	size_t size;
	void *base = MAP_FAILED;

	if (cl_win_base != NULL)
		return 0;
	cl_page = (size_t)sysconf(_SC_PAGESIZE);
	for (size = CL_WIN_RANGE; base == MAP_FAILED && size >=
	    CL_WIN_RANGE_MIN; size /= 4)
		base = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
		    MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED)
		return cl_fail(errno, "publish: cannot reserve address space "
		    "for published blobs: %s", strerror(errno));
	cl_win_base = base;
	cl_win_size = size * 4;
	engine_remote_set(base, cl_win_size, cl_remote_update);
	return 0;
}

/* Map seg over region g (the part of it the region holds). */
static int
cl_region_map(struct cl_region *g, const struct cl_seg *seg)
{
	size_t len = store_reader_size(seg->r);
	void *at;

	if (len > g->size)
		len = g->size;
	at = mmap(g->base, len, PROT_READ, MAP_SHARED | MAP_FIXED, seg->fd, 0);
	if (at == MAP_FAILED)
		return cl_fail(errno, "publish: cannot map segment %s: %s",
		    seg->name, strerror(errno));
	/* What the old segment had beyond the new one's end is reserved
	 * again. */
	if (g->mapped > len)
		(void)mmap(g->base + len, g->mapped - len, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
		    -1, 0);
	g->mapped = len;
	g->birth = seg->birth;
	return 0;
}

/* The region of segment seg, made (and seg mapped over it) the first
 * time. Returns: it; NULL (the last error says why). */
static struct cl_region *
cl_region_get_locked(const struct cl_seg *seg)
{
	struct cl_region *g;
	size_t i, size;

	for (i = 0; i < cl_nregions; i++)
		if (strcmp(cl_regions[i].seg, seg->name) == 0)
			return &cl_regions[i];
	/* Twice the segment: room for a larger one after a restart. */
	size = (2 * store_reader_size(seg->r) + cl_page - 1) / cl_page *
	    cl_page;
	if (cl_nregions == CL_REGIONS_MAX || size > cl_win_size - cl_win_used) {
		(void)cl_fail(ENOSPC, "publish: no address space left to show "
		    "the blobs of segment %s", seg->name);
		return NULL;
	}
	g = &cl_regions[cl_nregions];
	memset(g, 0, sizeof(*g));
	snprintf(g->seg, sizeof(g->seg), "%s", seg->name);
	g->base = cl_win_base + cl_win_used;
	g->size = size;
	if (cl_region_map(g, seg) < 0)
		return NULL;
	cl_win_used += size;
	cl_nregions++;
	return g;
}

/* The segment pub's kstat is in (attaching again for one statsd made
 * since: its zone's first kstat). */
static struct cl_seg *
cl_pub_seg_locked(const struct cl_pub *pub)
{
	struct cl_seg *seg = cl_segs_find(&cl.segs, pub->o.seg);

	if (seg == NULL && cl_segments_attach_locked() == 0)
		seg = cl_segs_find(&cl.segs, pub->o.seg);
	if (seg == NULL)
		(void)cl_fail(ENOTCONN, "publish: statsd gave no segment %s",
		    pub->o.seg);
	return seg;
}

/* Copy the VOI table of statsd's blob (of segment seg). */
static int
cl_pub_vois(struct cl_pub *pub, struct cl_seg *seg)
{
	const struct statsblobv1 *b;
	uint8_t *copy = NULL;
	size_t size = 0;
	uint32_t isize;
	uint16_t i, n;
	int r;

	/* Only the layout: the VOI table, which no update moves. Making
	 * the kstat read it already, checked, for its image (images.c):
	 * read again, in a 64 KiB buffer of its own, only if that one is
	 * missing. */
	b = (const struct statsblobv1 *)cl_image(NULL, atomic_load_explicit(
	    &pub->o.handle, memory_order_relaxed), &isize);
	if (b == NULL) {
		copy = malloc(STORE_BLOB_MAX);
		if (copy == NULL)
			return -ENOMEM;
		r = cl_store_layout(seg->r, pub->o.ref, copy, STORE_BLOB_MAX,
		    &size);
		b = (const struct statsblobv1 *)copy;
		if (r < 0) {
			free(copy);
			return cl_fail(-r, "publish: statsd's blob of %s: %s",
			    pub->o.hdr.name, r == -EBADMSG ?
			    "does not validate" : strerror(-r));
		}
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

/* Show a newly made pub's blob: where it lies in its segment's region,
 * its VOIs, and its address for the update hook. Returns: 0; -errno. */
static int
cl_pub_place_locked(struct cl_pub *pub)
{
	struct cl_region *g;
	struct cl_seg *seg;
	uint64_t off;
	uint32_t size;
	int r;

	seg = cl_pub_seg_locked(pub);
	if (seg == NULL)
		return -ENOTCONN;
	g = cl_region_get_locked(seg);
	if (g == NULL)
		return -ENOSPC;
	r = cl_store_span(seg->r, pub->o.ref, &off, &size,
	    &pub->chunk);
	if (r < 0)
		return cl_fail(r, "publish: %s:%d:%s is not in the segment: %s",
		    pub->o.hdr.module, (int)pub->o.hdr.instance, pub->o.hdr.name,
		    strerror(-r));
	if (g->birth != seg->birth || off + pub->chunk > g->mapped)
		return cl_fail(EADDRNOTAVAIL, "publish: %s:%d:%s lies past "
		    "what this process shows of segment %s", pub->o.hdr.module,
		    (int)pub->o.hdr.instance, pub->o.hdr.name, seg->name);
	pub->addr = g->base + off;
	/* Asked of a restarted statsd: the blob where it is shown. */
	pub->o.at = off;
	pub->o.at_shown = true;
	r = cl_pub_vois(pub, seg);
	if (r == 0)
		r = cl_addr_set_locked(pub->addr, pub);
	return r;
}

/* A page of a region as a restart leaves it: what its blobs need. */
struct cl_page_need {
	uint8_t		*page;
	int64_t		 shift;		/* new offset - old offset */
};

static int
cl_page_need_cmp(const void *a, const void *b)
{
	const struct cl_page_need *x = a, *y = b;

	if (x->page != y->page)
		return x->page < y->page ? -1 : 1;
	return x->shift < y->shift ? -1 : x->shift > y->shift;
}

/*
 * After a restart: map the new segment over g, so that every blob the new
 * statsd laid out where the old one had it (the common case: a process
 * makes its kstats again in the order it first made them) shows its new
 * data at the address the application holds. A page whose blobs all
 * moved by the same whole number of pages shows the page they moved to;
 * one whose blobs moved apart keeps what it showed (a private copy), and
 * the last error says so. Updates go to the new kstats in every case.
 */
static void
cl_region_remap_locked(struct cl_region *g, struct cl_seg *seg)
{
	struct cl_page_need *need = NULL;
	size_t n = 0, cap = 0, i, j;
	struct cl_pub *pub;
	uint64_t off;
	uint32_t size, chunk;
	uint8_t *save = NULL;
	size_t nbad = 0, k;

	for (pub = cl_pubs; pub != NULL; pub = pub->next) {
		uint8_t *p;

		if (!pub->o.listed || pub->o.deleted || pub->addr < g->base ||
		    pub->addr >= g->base + g->size ||
		    cl_store_span(seg->r, pub->o.ref, &off, &size,
		    &chunk) < 0)
			continue;
		for (p = (uint8_t *)((uintptr_t)pub->addr & ~(uintptr_t)(cl_page
		    - 1)); p < pub->addr + pub->chunk; p += cl_page) {
			if (n == cap) {
				void *q;

				cap = cap > 0 ? 2 * cap : 256;
				q = realloc(need, cap * sizeof(*need));
				if (q == NULL) {
					free(need);
					return;
				}
				need = q;
			}
			need[n].page = p;
			need[n].shift = (int64_t)off - (pub->addr - g->base);
			n++;
		}
	}
	qsort(need, n, sizeof(*need), cl_page_need_cmp);
	/* Keep one entry per page: its shift, or INT64_MIN when its blobs
	 * want different ones (or a shift of part of a page). */
	for (i = j = 0; i < n; i++) {
		if (j > 0 && need[j - 1].page == need[i].page) {
			if (need[j - 1].shift != need[i].shift)
				need[j - 1].shift = INT64_MIN;
			continue;
		}
		need[j] = need[i];
		if (need[j].shift % (int64_t)cl_page != 0)
			need[j].shift = INT64_MIN;
		j++;
	}
	n = j;
	/* What the pages that cannot follow show now, kept. */
	for (i = 0; i < n; i++)
		nbad += need[i].shift == INT64_MIN;
	if (nbad > 0)
		save = malloc(nbad * cl_page);
	for (i = k = 0; save != NULL && i < n; i++)
		if (need[i].shift == INT64_MIN)
			memcpy(save + k++ * cl_page, need[i].page, cl_page);
	if (cl_region_map(g, seg) == 0) {
		for (i = k = 0; i < n; i++) {
			off_t at = (off_t)(need[i].page - g->base) +
			    need[i].shift;

			if (need[i].shift == 0)
				continue;
			if (need[i].shift != INT64_MIN && at >= 0 &&
			    (size_t)at < store_reader_size(seg->r)) {
				(void)mmap(need[i].page, cl_page, PROT_READ,
				    MAP_SHARED | MAP_FIXED, seg->fd, at);
				continue;
			}
			if (save == NULL || need[i].shift != INT64_MIN)
				continue;
			(void)mmap(need[i].page, cl_page, PROT_READ |
			    PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
			    MAP_FIXED, -1, 0);
			memcpy(need[i].page, save + k++ * cl_page, cl_page);
			(void)mprotect(need[i].page, cl_page, PROT_READ);
		}
	}
	if (nbad > 0)
		(void)cl_fail(EADDRNOTAVAIL, "publish: blobs of segment %s "
		    "moved apart in the new statsd's segment; their pointers "
		    "show the data of before the restart", seg->name);
	free(save);
	free(need);
}

void
cl_windows_remap_locked(void)
{
	struct cl_seg *seg;
	size_t i;

	for (i = 0; i < cl_nregions; i++) {
		seg = cl_segs_find(&cl.segs, cl_regions[i].seg);
		if (seg == NULL && cl_segments_attach_locked() == 0)
			seg = cl_segs_find(&cl.segs, cl_regions[i].seg);
		if (seg != NULL && seg->birth != cl_regions[i].birth)
			cl_region_remap_locked(&cl_regions[i], seg);
	}
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
	const struct voistat *vs;
	uint32_t lo = UINT32_MAX;
	int s;

	BLOB_FOREACH_VOISTAT(b, v, s, vs)
		if (vs->data_off < lo)
			lo = vs->data_off;
	return lo;
}

static int
cl_voi_json(const struct statsblobv1 *b, const struct voi *v,
    const char *name, json_t **ret)
{
	const struct voistat *order[VS_NUM_STYPES], *vs;
	json_t *stats = json_array(), *st;
	int s, n = 0, i, j;

	BLOB_FOREACH_STAT(b, v, s, vs) {
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
		const struct voistatdata *vsd;

		vs = order[j];
		vsd = blob_vsd(b, vs);

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

/*
 * TemplateAdd's parameters for tpl_id, made once while the template stays
 * as it is (its name and hash, which adding a VOI changes): publishing a
 * kstat of a template the connection registered then encodes nothing of
 * it (cl_tpl_register_locked() knows the object). cl.lock held.
 * Returns: 0 and *ret (a reference); -errno.
 */
#define CL_TPLJS	8

static struct {
	int	 id;
	char	 spec[STATS_TPL_MAX_STR_SPEC_LEN + 8];
	json_t	*tj;
} cl_tpljs[CL_TPLJS];
static unsigned cl_tpljs_next;

static int
cl_tpl_json_cached(int tpl_id, json_t **ret)
{
	char spec[STATS_TPL_MAX_STR_SPEC_LEN + 8];
	unsigned i;
	int r;

	if (stats_tpl_id2spec((uint32_t)tpl_id, spec, sizeof(spec)) != 0)
		return cl_tpl_json(tpl_id, ret);
	for (i = 0; i < CL_TPLJS; i++)
		if (cl_tpljs[i].tj != NULL && cl_tpljs[i].id == tpl_id &&
		    strcmp(cl_tpljs[i].spec, spec) == 0) {
			*ret = json_incref(cl_tpljs[i].tj);
			return 0;
		}
	r = cl_tpl_json(tpl_id, ret);
	if (r < 0)
		return r;
	i = cl_tpljs_next++ % CL_TPLJS;
	json_decref(cl_tpljs[i].tj);
	cl_tpljs[i].id = tpl_id;
	memcpy(cl_tpljs[i].spec, spec, sizeof(spec));
	cl_tpljs[i].tj = json_incref(*ret);
	return 0;
}

/* ------------------------------------------------------------ public API */

/* A new pub for the kstat module:instance:name of tj (borrowed) and
 * flags, named but not made. Returns: it; NULL (*ret_r says why). */
static struct cl_pub *
cl_pub_new(json_t *tj, const char *module, int instance, const char *name,
    const char *ks_class, uint32_t flags, int *ret_r)
{
	struct cl_pub *pub = calloc(1, sizeof(*pub));

	if (pub == NULL) {
		*ret_r = -ENOMEM;
		return NULL;
	}
	*ret_r = cl_kobj_names(&pub->o, module, instance, name,
	    ks_class != NULL ? ks_class : "misc");
	if (*ret_r < 0) {
		cl_kobj_free(&pub->o);
		return NULL;
	}
	pub->o.hdr.flags = flags & KS_FLAGS_MEANT;
	pub->o.tpl = json_incref(tj);
	pub->o.join = true;
	pub->o.owner = pub;
	return pub;
}

/* A pub's kstat2 path and description. Returns: 0; -errno (the last
 * error names the field). */
static int
cl_pub_extra(struct cl_pub *pub, const struct stats_publish_extra *x)
{
	struct input_error err = { 0 };
	int r = 0;

	if (x->npath > 0)
		r = ks_hdr_set_path(&pub->o.hdr, x->path, x->npath, &err);
	if (r == 0 && x->description != NULL)
		r = ks_hdr_set_desc(&pub->o.hdr, x->description, &err);
	if (r < 0)
		return cl_fail(r, "%s: %s", err.where[0] != '\0' ? err.where :
		    "kstat", err.msg);
	return 0;
}

/*
 * Publish n blobs of template tpl_id: make their kstats (in batches),
 * then show each in place. All or none.
 * Returns: 0 and ret[0..n); -errno (the last error says why).
 */
static int
cl_publish_locked(int tpl_id, const struct stats_publish_name *names,
    size_t n, const char *ks_class, uint32_t flags,
    const struct stats_publish_extra *x, struct statsblob **ret)
{
	struct cl_pub **pubs;
	json_t *tj = NULL;
	char local[STATS_TPL_MAX_STR_SPEC_LEN + 8];
	size_t i, made = 0;
	int r;

	pubs = calloc(n > 0 ? n : 1, sizeof(*pubs));
	if (pubs == NULL)
		return -ENOMEM;
	r = cl_tpl_json_cached(tpl_id, &tj);
	if (r == 0)
		r = cl_win_init_locked();
	for (i = 0; r == 0 && i < n; i++) {
		pubs[i] = cl_pub_new(tj, names[i].module, names[i].instance,
		    names[i].name, ks_class, flags, &r);
		if (r == 0 && x != NULL)
			r = cl_pub_extra(pubs[i], x);
	}
	json_decref(tj);
	if (r == 0)
		r = cl_kobj_create_many_locked((struct cl_kobj **)pubs, n);
	if (r == 0)
		made = n;
	for (i = 0; r == 0 && i < n; i++)
		r = cl_pub_place_locked(pubs[i]);
	if (r < 0) {
		for (i = 0; i < n && pubs[i] != NULL; i++) {
			if (pubs[i]->addr != NULL)
				(void)cl_addr_set_locked(pubs[i]->addr, NULL);
			if (i < made)
				(void)cl_kobj_delete_locked(&pubs[i]->o);
			free(pubs[i]->vois);
			cl_kobj_free(&pubs[i]->o);
		}
		free(pubs);
		return r;
	}
	for (i = 0; i < n; i++) {
		pubs[i]->next = cl_pubs;
		cl_pubs = pubs[i];
		ret[i] = (struct statsblob *)pubs[i]->addr;
	}
	/* statsd computes the hash itself; it matches ours when the JSON
	 * laid the same blob out, and stats_blob_tostr() then finds the
	 * template by it. */
	if (n > 0 && stats_tpl_id2spec((uint32_t)tpl_id, local,
	    sizeof(local)) == 0 && strcmp(local, pubs[0]->o.tplspec) != 0)
		(void)cl_fail(0, "publish: statsd registered %s as %s",
		    local, pubs[0]->o.tplspec);
	free(pubs);
	return 0;
}

struct statsblob *
stats_blob_publish(stats_client_t *c, int tpl_id, const char *module,
    int instance, const char *name, const char *ks_class, uint32_t flags)
{
	struct stats_publish_name nm = { module, instance, name };
	struct statsblob *sb = NULL;
	int r;

	if (c != &cl || (flags & ~(uint32_t)(STATS_PUBLISH_PERSISTENT |
	    STATS_PUBLISH_PRIV)) != 0) {
		errno = EINVAL;
		return NULL;
	}
	pthread_mutex_lock(&cl.lock);
	r = cl_publish_locked(tpl_id, &nm, 1, ks_class, flags, NULL, &sb);
	pthread_mutex_unlock(&cl.lock);
	if (r < 0) {
		errno = -r;
		return NULL;
	}
	return sb;
}

struct statsblob *
stats_blob_publish_ext(stats_client_t *c, int tpl_id, const char *module,
    int instance, const char *name, const char *ks_class, uint32_t flags,
    const struct stats_publish_extra *x)
{
	struct stats_publish_name nm = { module, instance, name };
	struct statsblob *sb = NULL;
	int r;

	if (c != &cl || x == NULL || (x->npath > 0 && x->path == NULL) ||
	    (flags & ~(uint32_t)(STATS_PUBLISH_PERSISTENT |
	    STATS_PUBLISH_PRIV)) != 0) {
		errno = EINVAL;
		return NULL;
	}
	pthread_mutex_lock(&cl.lock);
	r = cl_publish_locked(tpl_id, &nm, 1, ks_class, flags, x, &sb);
	pthread_mutex_unlock(&cl.lock);
	if (r < 0) {
		errno = -r;
		return NULL;
	}
	return sb;
}

int
stats_blob_publish_many(stats_client_t *c, int tpl_id,
    const struct stats_publish_name *names, size_t n, const char *ks_class,
    uint32_t flags, struct statsblob **ret)
{
	int r;

	if (c != &cl || (flags & ~(uint32_t)(STATS_PUBLISH_PERSISTENT |
	    STATS_PUBLISH_PRIV)) != 0 || (n > 0 && (names == NULL ||
	    ret == NULL)))
		return -EINVAL;
	pthread_mutex_lock(&cl.lock);
	r = cl_publish_locked(tpl_id, names, n, ks_class, flags, NULL, ret);
	pthread_mutex_unlock(&cl.lock);
	return r;
}

int
stats_blob_unpublish(stats_client_t *c, struct statsblob *sb)
{
	struct cl_pub *pub;
	int r;

	if (c != &cl || sb == NULL)
		return -EINVAL;
	pthread_mutex_lock(&cl.lock);
	pub = cl_addr_find(sb);
	if (pub == NULL || pub->o.deleted) {
		pthread_mutex_unlock(&cl.lock);
		return -EINVAL;
	}
	(void)cl_addr_set_locked(pub->addr, NULL);
	r = cl_kobj_delete_locked(&pub->o);
	pthread_mutex_unlock(&cl.lock);
	return r;
}
