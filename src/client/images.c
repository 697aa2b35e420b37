/*
 * images.c: the layout of each kstat this process updates, as statsd laid
 * it out — a copy of its blob with every statistic reset — for the spill
 * buffers (spill.h): a thread whose ring is full folds its updates into a
 * copy of this image.
 *
 * Images are read from the read-only store segment when a kstat is
 * created or joined, and read again when the chain changed and the
 * kstat's blob has another size (a definition change that re-lays it).
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
static uint64_t cl_img_kcid;

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

/* The layout of blob (size bytes, reset, its times cleared), shared
 * with every kstat laid out alike. Returns: it; NULL (out of memory). */
static const struct cl_layout *
cl_layout_of(const uint8_t *blob, uint32_t size)
{
	uint64_t hash = 0xcbf29ce484222325ULL;	/* FNV-1a */
	struct cl_layout *l, **head;
	uint32_t i;

	for (i = 0; i < size; i++)
		hash = (hash ^ blob[i]) * 0x100000001b3ULL;
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

void
cl_image_take_locked(struct cl_kobj *o)
{
	struct cl_seg *seg = cl_segs_find(&cl.segs, o->seg);
	uint32_t handle = atomic_load_explicit(&o->handle,
	    memory_order_relaxed);
	struct store_kstat_info info;
	const struct cl_layout *l;
	struct cl_image *im;
	uint8_t *buf;
	size_t size;

	if (seg == NULL || seg->r == NULL || handle == 0)
		return;
	buf = malloc(STORE_BLOB_MAX);
	if (buf == NULL)
		return;
	if (cl_store_layout(seg->r, o->ref, &info, buf, STORE_BLOB_MAX,
	    &size) < 0) {
		/* Its updates are logged when they spill: still kept. */
		free(buf);
		return;
	}
	l = cl_layout_of(buf, (uint32_t)size);
	free(buf);
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

void
cl_images_refresh_locked(void)
{
	uint64_t kcid = cl_segs_kcid(&cl.segs), off;
	uint32_t size, chunk, have;
	struct cl_kobj *o;
	struct cl_seg *seg;

	if (kcid == cl_img_kcid)
		return;
	cl_img_kcid = kcid;
	/* A re-laid kstat's blob changes size (nearly always): a header
	 * read per kstat finds it, not a copy of every blob. */
	for (o = cl.objs; o != NULL; o = o->next) {
		uint32_t handle = atomic_load_explicit(&o->handle,
		    memory_order_relaxed);

		if (o->deleted || handle == 0 ||
		    (seg = cl_segs_find(&cl.segs, o->seg)) == NULL ||
		    seg->r == NULL || cl_store_span(seg->r, o->ref, &off,
		    &size, &chunk) < 0)
			continue;
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
	cl_img_kcid = 0;
}
