/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * images.c: the layout of each kstat this process updates, as statsd laid
 * it out — a copy of its blob with every statistic reset — for the spill
 * buffers (spill.h): a thread whose ring is full folds its updates into a
 * copy of this image.
 *
 * Images are read from the read-only store segment when a kstat is
 * created or joined, and read again when the chain changed: the kstats
 * in the slots the segments' change logs name (a definition change that
 * re-lays a kstat, a delete and a create again), or, past what a log
 * holds, those whose blob has another size.
 * Kstats of one layout share one copy of it. The producing threads look
 * them up by handle without a lock: the table is an array of atomic
 * pointers, replaced whole when it grows; an image, once published, is
 * never changed, and neither images nor old tables are freed before the
 * client closes (a re-layout leaves one image behind).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "blob.h"
#include "client_priv.h"

/* One layout: a blob with every statistic reset and no birth time. */
struct cl_layout {
	uint32_t		 size;
	uint64_t		 hash;
	struct cl_layout	*next;		/* in its bucket */
	_Alignas(8) uint8_t	 blob[];
};

struct cl_image {
	uint32_t		 handle;
	uint32_t		 size;
	const uint8_t		*blob;		/* its layout's */
	struct cl_image		*retired;	/* every image ever made */
};

struct cl_imgtab {
	uint32_t		 cap;		/* a power of two */
	uint32_t		 n;
	struct cl_imgtab	*old;		/* replaced tables */
	struct cl_image *_Atomic slot[];
};

static struct cl_imgtab *_Atomic cl_imgs;
static struct cl_image *cl_img_all;		/* for freeing */
#define CL_LAYOUT_BUCKETS	1024
static struct cl_layout *cl_layouts[CL_LAYOUT_BUCKETS];
static uint8_t *cl_layout_buf;			/* STORE_BLOB_MAX bytes */
static uint64_t cl_img_kcid;

/*
 * The kstats this process updates, by the segment slot they were in when
 * their image was taken (cl.lock), and each segment's chain id as of the
 * last refresh: a refresh reads again only the kstats in the slots the
 * segments' change logs name, not every kstat of the process.
 */
struct cl_imgslot {
	uint64_t		 birth;
	uint32_t		 slot;
	struct cl_kobj		*o;
	struct cl_imgslot	*next;
};

static struct cl_imgslot **cl_slots;
static size_t cl_slots_mask, cl_nslots;
static struct {
	uint64_t		 birth;
	uint64_t		 kcid;
} *cl_img_seen;
static size_t cl_img_nseen;

static size_t
cl_slot_hash(uint64_t birth, uint32_t slot)
{
	return (size_t)(((birth ^ slot) * UINT64_C(11400714819323198485)) >>
	    17) & cl_slots_mask;
}

/* Remember that o is in slot of segment birth. */
static void
cl_slot_note(uint64_t birth, uint32_t slot, struct cl_kobj *o)
{
	struct cl_imgslot *e;

	if (cl_slots == NULL || cl_nslots > cl_slots_mask) {
		size_t cap = cl_slots != NULL ? 2 * (cl_slots_mask + 1) : 1024,
		    i;
		struct cl_imgslot **nt = calloc(cap, sizeof(*nt));

		if (nt == NULL)
			return;
		for (i = 0; cl_slots != NULL && i <= cl_slots_mask; i++)
			while ((e = cl_slots[i]) != NULL) {
				size_t h = (size_t)(((e->birth ^ e->slot) *
				    UINT64_C(11400714819323198485)) >> 17) &
				    (cap - 1);

				cl_slots[i] = e->next;
				e->next = nt[h];
				nt[h] = e;
			}
		free(cl_slots);
		cl_slots = nt;
		cl_slots_mask = cap - 1;
	}
	for (e = cl_slots[cl_slot_hash(birth, slot)]; e != NULL; e = e->next)
		if (e->birth == birth && e->slot == slot) {
			e->o = o;
			return;
		}
	e = malloc(sizeof(*e));
	if (e == NULL)
		return;
	e->birth = birth;
	e->slot = slot;
	e->o = o;
	e->next = cl_slots[cl_slot_hash(birth, slot)];
	cl_slots[cl_slot_hash(birth, slot)] = e;
	cl_nslots++;
}

static struct cl_kobj *
cl_slot_find(uint64_t birth, uint32_t slot)
{
	struct cl_imgslot *e;

	if (cl_slots == NULL)
		return NULL;
	for (e = cl_slots[cl_slot_hash(birth, slot)]; e != NULL; e = e->next)
		if (e->birth == birth && e->slot == slot)
			return e->o;
	return NULL;
}

static uint32_t
cl_img_hash(uint32_t handle, uint32_t mask)
{
	return (handle * UINT32_C(2654435761)) & mask;
}

const struct statsblob *
cl_image(void *arg, uint32_t handle, uint32_t *ret_size)
{
	struct cl_imgtab *t = atomic_load_explicit(&cl_imgs,
	    memory_order_acquire);
	struct cl_image *im;
	uint32_t i;

	(void)arg;
	if (t == NULL || handle == 0)
		return NULL;
	for (i = cl_img_hash(handle, t->cap - 1);
	    (im = atomic_load_explicit(&t->slot[i], memory_order_acquire)) !=
	    NULL; i = (i + 1) & (t->cap - 1))
		if (im->handle == handle) {
			*ret_size = im->size;
			return (const struct statsblob *)im->blob;
		}
	return NULL;
}

/* Put im in table t (there is room). */
static void
cl_img_put(struct cl_imgtab *t, struct cl_image *im)
{
	struct cl_image *cur;
	uint32_t i;

	for (i = cl_img_hash(im->handle, t->cap - 1);
	    (cur = atomic_load_explicit(&t->slot[i], memory_order_relaxed)) !=
	    NULL; i = (i + 1) & (t->cap - 1))
		if (cur->handle == im->handle)
			break;
	if (cur == NULL)
		t->n++;
	atomic_store_explicit(&t->slot[i], im, memory_order_release);
}

/* Publish im, growing the table if need be. cl.lock held. */
static int
cl_img_publish(struct cl_image *im)
{
	struct cl_imgtab *t = atomic_load_explicit(&cl_imgs,
	    memory_order_relaxed), *nt;
	uint32_t cap, i;

	if (t == NULL || 2 * (t->n + 1) > t->cap) {
		cap = t == NULL ? 256 : 2 * t->cap;
		nt = calloc(1, sizeof(*nt) + (size_t)cap * sizeof(nt->slot[0]));
		if (nt == NULL)
			return -ENOMEM;
		nt->cap = cap;
		nt->old = t;
		for (i = 0; t != NULL && i < t->cap; i++) {
			struct cl_image *e = atomic_load_explicit(&t->slot[i],
			    memory_order_relaxed);

			if (e != NULL)
				cl_img_put(nt, e);
		}
		/* Threads still probing the old table find what it had. */
		atomic_store_explicit(&cl_imgs, nt, memory_order_release);
		t = nt;
	}
	cl_img_put(t, im);
	return 0;
}

/*
 * A hash of a blob's bytes, for the tables of layouts: FNV-1a's step on
 * words, each product folded so that a word's high bytes reach the
 * bucket's low bits (a byte at a time was a twentieth of making a
 * kstat). The tables' memcmp() decides.
 */
static uint64_t
cl_blob_hash(const uint8_t *blob, size_t size)
{
	uint64_t hash = 0xcbf29ce484222325ULL, w;
	size_t i;

	for (i = 0; i + 8 <= size; i += 8) {
		memcpy(&w, blob + i, sizeof(w));
		hash = (hash ^ w) * 0x100000001b3ULL;
		hash ^= hash >> 32;
	}
	for (; i < size; i++)
		hash = (hash ^ blob[i]) * 0x100000001b3ULL;
	return hash;
}

/* The layout of blob (size bytes, reset, its times cleared), shared
 * with every kstat laid out alike. Returns: it; NULL (out of memory). */
static const struct cl_layout *
cl_layout_of(const uint8_t *blob, uint32_t size)
{
	uint64_t hash = cl_blob_hash(blob, size);
	struct cl_layout *l, **head;

	head = &cl_layouts[hash % CL_LAYOUT_BUCKETS];
	for (l = *head; l != NULL; l = l->next)
		if (l->hash == hash && l->size == size &&
		    memcmp(l->blob, blob, size) == 0)
			return l;
	l = malloc(sizeof(*l) + size);
	if (l == NULL)
		return NULL;
	l->size = size;
	l->hash = hash;
	memcpy(l->blob, blob, size);
	l->next = *head;
	*head = l;
	return l;
}

/*
 * The layouts last made from a blob as it was read, before it was
 * checked and reset: every kstat of a template is read as the same bytes
 * while nothing has updated it (just made, just re-laid), and the check
 * and reset of the same bytes give the same layout. Both were 60 % of a
 * kstat_install()'s CPU in the client, twice: the creating thread takes
 * the new kstat's image, then the watcher again, for the change log
 * names its slot. A blob read otherwise is checked, and takes its slot.
 * cl.lock held.
 */
#define CL_RAW_SLOTS	64

static struct cl_raw {
	uint64_t		 hash;
	uint32_t		 size;
	uint8_t			*bytes;
	const struct cl_layout	*l;
} cl_raws[CL_RAW_SLOTS];

/* The layout of the blob read into buf (size bytes; buf is reset in
 * place when it is checked). Returns: it; NULL for a blob that is not
 * valid, or without memory. */
static const struct cl_layout *
cl_layout_read(uint8_t *buf, size_t size)
{
	struct statsblobv1 *sb = (struct statsblobv1 *)(void *)buf;
	const struct cl_layout *l;
	struct cl_raw *r;
	uint8_t *keep;
	uint64_t h;

	/* Its times differ from one kstat to the next, and the reset
	 * clears them whatever they were: cleared first, they are not
	 * told apart. */
	if (size >= SB_V1_HDRSZ)
		sb->created = sb->lastrst = 0;
	h = cl_blob_hash(buf, size);
	r = &cl_raws[h % CL_RAW_SLOTS];
	if (r->l != NULL && r->hash == h && r->size == size &&
	    memcmp(r->bytes, buf, size) == 0)
		return r->l;
	keep = malloc(size > 0 ? size : 1);
	if (keep != NULL)
		memcpy(keep, buf, size);
	if (blob_layout_clean(sb, size) != NULL ||
	    (l = cl_layout_of(buf, (uint32_t)size)) == NULL) {
		free(keep);
		return NULL;
	}
	if (keep != NULL) {
		free(r->bytes);
		r->bytes = keep;
		r->hash = h;
		r->size = (uint32_t)size;
		r->l = l;
	}
	return l;
}

void
cl_image_take_locked(struct cl_kobj *o)
{
	struct cl_seg *seg = cl_segs_find(&cl.segs, o->seg);
	uint32_t handle = atomic_load_explicit(&o->handle,
	    memory_order_relaxed);
	const struct cl_layout *l;
	struct cl_image *im;
	uint8_t *buf;
	size_t size;

	if (seg == NULL || seg->r == NULL || handle == 0)
		return;
	cl_slot_note(seg->birth, o->ref.slot, o);
	/* One buffer for every read, kept: a 64 KiB malloc() and free()
	 * a kstat faulted its pages in again each time glibc trimmed the
	 * heap. */
	if (cl_layout_buf == NULL)
		cl_layout_buf = malloc(STORE_BLOB_MAX);
	buf = cl_layout_buf;
	if (buf == NULL)
		return;
	if (cl_store_layout_raw(seg->r, o->ref, buf, STORE_BLOB_MAX,
	    &size) < 0) {
		/* Its updates are logged when they spill: still kept. */
		return;
	}
	l = cl_layout_read(buf, size);
	if (l == NULL)
		return;
	im = malloc(sizeof(*im));
	if (im == NULL)
		return;
	im->handle = handle;
	im->size = l->size;
	im->blob = l->blob;
	if (cl_img_publish(im) < 0) {
		free(im);
		return;
	}
	im->retired = cl_img_all;
	cl_img_all = im;
}

/* Read again the images of the kstats in the slots segment g's change
 * log names since the last refresh. Returns: 0; -ERANGE when the log
 * cannot tell (then every image is read again). */
static int
cl_images_changes_locked(struct cl_seg *g, uint64_t from, uint64_t *ret_now)
{
	uint32_t slots[1024];
	struct cl_kobj *o;
	size_t n, i;
	int r;

	r = store_reader_changes(g->r, from, slots, sizeof(slots) /
	    sizeof(slots[0]), &n, ret_now);
	if (r < 0)
		return r;
	for (i = 0; i < n; i++) {
		o = cl_slot_find(g->birth, slots[i]);
		if (o != NULL && !o->deleted && o->ref.slot == slots[i])
			cl_image_take_locked(o);
	}
	return 0;
}

/*
 * o is being deleted (and its owner frees it next): the slots that name
 * it name nothing now. The delete itself is in the change log, so the
 * watcher's next refresh looks its slot up; it must not find o there.
 * Every slot is looked at (o may be named in a slot it left), once per
 * delete, which is itself a call to statsd.
 */
void
cl_images_forget_locked(const struct cl_kobj *o)
{
	struct cl_imgslot *e;
	size_t i;

	for (i = 0; cl_slots != NULL && i <= cl_slots_mask; i++)
		for (e = cl_slots[i]; e != NULL; e = e->next)
			if (e->o == o)
				e->o = NULL;
}

void
cl_images_refresh_locked(void)
{
	uint64_t kcid = cl_segs_kcid(&cl.segs), now, off;
	uint32_t size, chunk, have;
	struct cl_kobj *o;
	struct cl_seg *seg;
	bool all = cl_img_nseen != cl.segs.n;
	size_t i;

	if (kcid == cl_img_kcid)
		return;
	cl_img_kcid = kcid;
	/* Only the slots that changed, when every segment's log tells. */
	for (i = 0; !all && i < cl.segs.n; i++) {
		struct cl_seg *g = &cl.segs.v[i];

		if (g->r == NULL || cl_img_seen[i].birth != g->birth ||
		    cl_images_changes_locked(g, cl_img_seen[i].kcid,
		    &now) < 0)
			all = true;
		else
			cl_img_seen[i].kcid = now;
	}
	if (!all)
		return;
	/* Where the next refresh starts: the chain ids before this pass,
	 * so that what changes during it is read again next time. */
	if (cl_img_nseen != cl.segs.n) {
		void *p = realloc(cl_img_seen, (cl.segs.n + 1) *
		    sizeof(*cl_img_seen));

		if (p == NULL) {
			cl_img_nseen = 0;
			p = NULL;
		} else {
			cl_img_seen = p;
			cl_img_nseen = cl.segs.n;
		}
	}
	for (i = 0; i < cl_img_nseen; i++) {
		cl_img_seen[i].birth = cl.segs.v[i].birth;
		cl_img_seen[i].kcid = cl.segs.v[i].r != NULL ?
		    store_reader_kcid(cl.segs.v[i].r) : 0;
	}
	/* Past what the logs tell: a re-laid kstat's blob changes size
	 * (nearly always), so a header read per kstat finds it, not a copy
	 * of every blob. */
	for (o = cl.objs; o != NULL; o = o->next) {
		uint32_t handle = atomic_load_explicit(&o->handle,
		    memory_order_relaxed);

		if (o->deleted || handle == 0 ||
		    (seg = cl_segs_find(&cl.segs, o->seg)) == NULL ||
		    seg->r == NULL || cl_store_span(seg->r, o->ref, &off,
		    &size, &chunk) < 0)
			continue;
		cl_slot_note(seg->birth, o->ref.slot, o);
		if (cl_image(NULL, handle, &have) == NULL || have != size)
			cl_image_take_locked(o);
	}
}

void
cl_images_free_locked(void)
{
	struct cl_imgtab *t = atomic_load_explicit(&cl_imgs,
	    memory_order_relaxed);

	/* Only once no thread updates (stats_client_close()'s contract). */
	atomic_store_explicit(&cl_imgs, NULL, memory_order_release);
	while (t != NULL) {
		struct cl_imgtab *old = t->old;

		free(t);
		t = old;
	}
	while (cl_img_all != NULL) {
		struct cl_image *im = cl_img_all;

		cl_img_all = im->retired;
		free(im);
	}
	for (size_t i = 0; i < CL_LAYOUT_BUCKETS; i++)
		while (cl_layouts[i] != NULL) {
			struct cl_layout *l = cl_layouts[i];

			cl_layouts[i] = l->next;
			free(l);
		}
	/* They named the layouts just freed. */
	for (size_t i = 0; i < CL_RAW_SLOTS; i++) {
		free(cl_raws[i].bytes);
		cl_raws[i] = (struct cl_raw){ 0 };
	}
	free(cl_layout_buf);
	cl_layout_buf = NULL;
	cl_img_kcid = 0;
	for (size_t i = 0; cl_slots != NULL && i <= cl_slots_mask; i++)
		while (cl_slots[i] != NULL) {
			struct cl_imgslot *e = cl_slots[i];

			cl_slots[i] = e->next;
			free(e);
		}
	free(cl_slots);
	cl_slots = NULL;
	cl_slots_mask = cl_nslots = 0;
	free(cl_img_seen);
	cl_img_seen = NULL;
	cl_img_nseen = 0;
}
