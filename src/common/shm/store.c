/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * store.c: the writer side of a store segment, used only by statsd: making
 * the segment, adding, re-laying and removing kstats, and bracketing blob
 * writes with the per-kstat sequence counter. Layout and rules are in
 * store.h; the reader is store_reader.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "arena.h"
#include "shm.h"
#include "invariant.h"
#include "store.h"

/* GCC's ThreadSanitizer does not model atomic_thread_fence() and warns
 * (-Wtsan). The seqlock needs the fences; under TSan the racy side is left
 * uninstrumented instead (see store_copy_racy() in store_reader.c). */
#if defined(__SANITIZE_THREAD__) && !defined(__clang__) && __GNUC__ >= 12
#pragma GCC diagnostic ignored "-Wtsan"
#endif

#define STORE_PAGE	4096u

struct store_segment {
	uint8_t *base;
	size_t size;
	int fd;
	struct store_super *sb;
	struct store_arena arena;
	uint32_t slots;
	/* Freed slots are reused oldest first, so a stale (slot, gen) held
	 * by a reader is as unlikely as possible to meet its slot reused
	 * even before the generation check. */
	uint32_t *free_q;
	uint32_t free_first;
	uint32_t free_count;
	uint32_t used;		/* fresh slots handed out: table_used */
	struct store_change *log;
	uint32_t log_slots;
};

static uint64_t
store_round_up(uint64_t v, uint64_t to)
{
	return (v + to - 1) / to * to;
}

static struct store_kstat_hdr *
store_hdr(const struct store_segment *s, uint32_t slot)
{
	return (struct store_kstat_hdr *)(s->base + s->sb->table_off +
	    (uint64_t)slot * STORE_KSTAT_SIZE);
}

/* The writer half of the seqlock. A single writer (the daemon thread that
 * owns the segment) means plain load + store, no read-modify-write. */
static void
store_seqc_begin(_Atomic uint32_t *c)
{
	uint32_t seq = atomic_load_explicit(c, memory_order_relaxed);

	/* Even: no write is open. Two open at once would let a reader take
	 * a torn copy as coherent. */
	INVARIANT_Z(seq & 1);
	atomic_store_explicit(c, seq + 1, memory_order_relaxed);
	/* Readers must not see any write below before they see seq odd. */
	atomic_thread_fence(memory_order_release);
}

static void
store_seqc_end(_Atomic uint32_t *c)
{
	uint32_t seq = atomic_load_explicit(c, memory_order_relaxed);

	/* Odd: the write being closed was opened. */
	INVARIANT_NZ(seq & 1);
	atomic_store_explicit(c, seq + 1, memory_order_release);
}

/* Every change of a header or blob. */
static void
store_seq_begin(struct store_kstat_hdr *k)
{
	store_seqc_begin(&k->seq);
}

static void
store_seq_end(struct store_kstat_hdr *k)
{
	store_seqc_end(&k->seq);
}

/* A change of the layout (add, remove, re-lay): both counters, the
 * layout's inside the whole one. */
static void
store_layout_begin(struct store_kstat_hdr *k)
{
	store_seqc_begin(&k->seq);
	store_seqc_begin(&k->lseq);
}

static void
store_layout_end(struct store_kstat_hdr *k)
{
	store_seqc_end(&k->lseq);
	store_seqc_end(&k->seq);
}

/*
 * The chain changed at slot: log it at the new KCID's entry, then move the
 * KCID. The entry is a seqlock of its own: its kcid is 0 while slot and
 * gen change, so a reader that finds the KCID it looks for before and
 * after copying them has a consistent copy.
 */
static void
store_kcid_bump(struct store_segment *s, uint32_t slot)
{
	uint64_t v = atomic_load_explicit(&s->sb->kcid, memory_order_relaxed);
	struct store_change *c = &s->log[(v + 1) & (s->log_slots - 1)];

	atomic_store_explicit(&c->kcid, 0, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit(&c->slot, slot, memory_order_relaxed);
	atomic_store_explicit(&c->gen, slot < s->slots ?
	    store_hdr(s, slot)->gen : 0, memory_order_relaxed);
	atomic_store_explicit(&c->kcid, v + 1, memory_order_release);
	atomic_store_explicit(&s->sb->kcid, v + 1, memory_order_release);
}

int
store_segment_new(const struct store_params *p, struct store_segment **ret)
{
	struct store_segment *s;
	struct store_super *sb;
	uint64_t table_off, log_off, arena_off, arena_size, size;
	uint32_t log_slots = p->log_slots != 0 ? p->log_slots :
	    STORE_LOG_SLOTS;
	void *addr;
	int r;

	if (p->kind != STORE_SEG_PUBLIC && p->kind != STORE_SEG_PRIVATE)
		return -EINVAL;
	if (p->table_slots == 0 || p->table_slots > STORE_SLOTS_MAX)
		return -EINVAL;
	if (p->arena_size == 0 || p->arena_size > (UINT64_C(1) << 40))
		return -EINVAL;
	if (log_slots > STORE_LOG_SLOTS || (log_slots & (log_slots - 1)) != 0)
		return -EINVAL;
	table_off = STORE_SUPER_SIZE;
	log_off = table_off + (uint64_t)p->table_slots * STORE_KSTAT_SIZE;
	arena_off = store_round_up(log_off + (uint64_t)log_slots *
	    sizeof(struct store_change), STORE_PAGE);
	arena_size = store_round_up(p->arena_size, STORE_PAGE);
	size = arena_off + arena_size;

	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return -ENOMEM;
	s->fd = -1;
	s->slots = p->table_slots;
	s->log_slots = log_slots;
	s->free_q = calloc(p->table_slots, sizeof(*s->free_q));
	if (s->free_q == NULL) {
		r = -ENOMEM;
		goto fail;
	}
	r = shm_memfd_new(p->name != NULL ? p->name : "statsd-store",
	    (size_t)size, &s->fd);
	if (r < 0)
		goto fail;
	r = shm_map(s->fd, (size_t)size, 1, &addr);
	if (r < 0)
		goto fail;
	s->base = addr;
	s->size = (size_t)size;
	s->sb = sb = addr;
	sb->magic = STORE_MAGIC;
	sb->abi_major = STORE_ABI_MAJOR;
	sb->abi_minor = STORE_ABI_MINOR;
	sb->hdr_size = STORE_SUPER_SIZE;
	sb->endian = STORE_ENDIAN;
	sb->kind = p->kind;
	sb->compat = STORE_COMPAT_LAYOUTSEQ | STORE_COMPAT_CHANGELOG;
	sb->seg_size = size;
	sb->birth = shm_birth_stamp();
	sb->table_off = table_off;
	sb->table_slots = p->table_slots;
	sb->kstat_size = STORE_KSTAT_SIZE;
	sb->arena_off = arena_off;
	sb->arena_size = arena_size;
	sb->log_off = log_off;
	sb->log_slots = log_slots;
	s->log = (struct store_change *)(s->base + log_off);
	sb->next_kid = 1;
	atomic_store_explicit(&sb->kcid, 1, memory_order_relaxed);
	store_arena_init(&s->arena, s->base, arena_off, arena_size);
	/* Varnish's rule: the ready flag goes up after a barrier, so a
	 * reader that sees it sees a whole superblock. */
	atomic_store_explicit(&sb->ready, 1, memory_order_release);
	*ret = s;
	return 0;
fail:
	store_segment_free(s);
	return r;
}

struct store_segment *
store_segment_free(struct store_segment *s)
{
	if (s == NULL)
		return NULL;
	if (s->base != NULL)
		munmap(s->base, s->size);
	if (s->fd >= 0)
		close(s->fd);
	free(s->free_q);
	free(s);
	return NULL;
}

int
store_segment_fd(const struct store_segment *s)
{
	return s->fd;
}

int
store_segment_reader_fd(const struct store_segment *s)
{
	return shm_reopen_ro(s->fd);
}

void
store_segment_bump_kcid(struct store_segment *s)
{
	/* No slot: a reader of the log walks the whole chain. */
	store_kcid_bump(s, UINT32_MAX);
}

uint64_t
store_segment_kcid(const struct store_segment *s)
{
	return atomic_load_explicit(&s->sb->kcid, memory_order_relaxed);
}

/* Copy a checked string into its fixed field; the field is zero-filled
 * first so nothing of a previous occupant of the slot shows through. */
static void
store_strset(char *dst, size_t len, const char *src)
{
	memset(dst, 0, len);
	memcpy(dst, src, strnlen(src, len));
}

/* What of h the store refuses: its strings must end inside their fields
 * (h may come from anywhere), the names must not be empty. */
static int
store_hdr_check(const struct kstat_hdr *h, size_t *ret_plen, size_t *ret_dlen)
{
	size_t plen = strnlen(h->path, sizeof(h->path));
	size_t dlen = strnlen(h->desc, sizeof(h->desc));

	if (strnlen(h->module, sizeof(h->module)) == sizeof(h->module) ||
	    strnlen(h->name, sizeof(h->name)) == sizeof(h->name) ||
	    strnlen(h->class_, sizeof(h->class_)) == sizeof(h->class_) ||
	    plen == sizeof(h->path) || dlen == sizeof(h->desc))
		return -ENAMETOOLONG;
	if (h->module[0] == '\0' || h->name[0] == '\0')
		return -EINVAL;
	*ret_plen = plen;
	*ret_dlen = dlen;
	return 0;
}

static int
store_slot_take(struct store_segment *s, uint32_t *ret_slot)
{
	if (s->used < s->slots) {
		*ret_slot = s->used++;
		return 0;
	}
	if (s->free_count == 0)
		return -ENOSPC;
	*ret_slot = s->free_q[s->free_first];
	s->free_first = (s->free_first + 1) % s->slots;
	s->free_count--;
	return 0;
}

static void
store_slot_give(struct store_segment *s, uint32_t slot)
{
	/* A slot given back twice would hand one slot to two kstats. */
	INVARIANT(slot < s->slots && s->free_count < s->slots);
	s->free_q[(s->free_first + s->free_count) % s->slots] = slot;
	s->free_count++;
}

/* Where the blob's text (path, description) starts inside its chunk. */
static uint32_t
store_text_off(uint32_t blob_size)
{
	return (uint32_t)store_round_up(blob_size, 8);
}

/* Arena bytes asked for a blob of blob_size with text of tlen bytes
 * (path, description and their NULs; 0: no text). */
static uint64_t
store_need(uint32_t blob_size, uint64_t tlen)
{
	uint64_t need = blob_size;

	if (tlen > 0)
		need = (uint64_t)store_text_off(blob_size) + tlen;
	return need > 0 ? need : 1;
}

uint64_t
store_kstat_cost(const struct kstat_hdr *h, uint32_t blob_size)
{
	size_t plen, dlen;

	if (store_hdr_check(h, &plen, &dlen) < 0 || blob_size > STORE_BLOB_MAX)
		return 0;
	return store_arena_chunk_size(store_need(blob_size,
	    plen > 0 || dlen > 0 ? plen + 1 + dlen + 1 : 0));
}

uint64_t
store_kstat_relayout_cost(const struct store_segment *s, uint32_t slot,
    uint32_t blob_size)
{
	const struct store_kstat_hdr *k;

	if (slot >= s->used || blob_size > STORE_BLOB_MAX)
		return 0;
	k = store_hdr(s, slot);
	if ((k->flags & STORE_KF_USED) == 0)
		return 0;
	return store_arena_chunk_size(store_need(blob_size, k->text_off != 0 ?
	    (uint64_t)k->path_len + 1 + k->desc_len + 1 : 0));
}

int
store_kstat_add(struct store_segment *s, const struct kstat_hdr *h,
    const struct store_slot *x, uint32_t blob_size, struct store_ref *ret_ref)
{
	return store_kstat_add_at(s, h, x, blob_size, 0, ret_ref, NULL);
}

int
store_kstat_add_at(struct store_segment *s, const struct kstat_hdr *h,
    const struct store_slot *x, uint32_t blob_size, uint64_t at,
    struct store_ref *ret_ref, bool *ret_placed)
{
	struct store_kstat_hdr *k;
	size_t plen, dlen;
	uint64_t off, need;
	uint32_t slot, chunk, toff = 0;
	int r;

	r = store_hdr_check(h, &plen, &dlen);
	if (r < 0)
		return r;
	if (blob_size > STORE_BLOB_MAX)
		return -E2BIG;
	if (plen > 0 || dlen > 0)
		toff = store_text_off(blob_size);
	need = store_need(blob_size, plen > 0 || dlen > 0 ?
	    plen + 1 + dlen + 1 : 0);
	if (ret_placed != NULL)
		*ret_placed = false;
	if (at != 0 && store_arena_alloc_at(&s->arena, at, need, &chunk) == 0) {
		off = at;
		if (ret_placed != NULL)
			*ret_placed = true;
	} else {
		r = store_arena_alloc(&s->arena, need, &off, &chunk);
		if (r < 0)
			return r;
	}
	r = store_slot_take(s, &slot);
	if (r < 0) {
		store_arena_free(&s->arena, off, chunk);
		return r;
	}
	k = store_hdr(s, slot);
	store_layout_begin(k);
	memset(s->base + off, 0, chunk);
	if (toff != 0) {
		if (plen > 0)
			memcpy(s->base + off + toff, h->path, plen);
		if (dlen > 0)
			memcpy(s->base + off + toff + plen + 1, h->desc, dlen);
	}
	k->gen++;
	k->kid = h->kid != 0 ? (uint64_t)h->kid : s->sb->next_kid++;
	k->crtime = (uint64_t)h->crtime;
	k->snaptime = (uint64_t)h->crtime;
	k->blob_off = off;
	k->blob_size = blob_size;
	k->chunk_size = chunk;
	k->tpl_hash = x->tpl_hash;
	k->owner_uid = x->owner_uid;
	k->instance = h->instance;
	k->flags = (h->flags & KS_FLAGS_SHOWN) | STORE_KF_USED;
	k->type = h->type;
	k->content = h->content;
	k->ndata = x->ndata;
	k->text_off = toff;
	k->path_len = (uint16_t)plen;
	k->desc_len = (uint16_t)dlen;
	k->scale = h->scale;
	store_strset(k->module, sizeof(k->module), h->module);
	store_strset(k->name, sizeof(k->name), h->name);
	store_strset(k->class_, sizeof(k->class_), h->class_);
	store_layout_end(k);

	if (slot + 1 > atomic_load_explicit(&s->sb->table_used, memory_order_relaxed))
		atomic_store_explicit(&s->sb->table_used, slot + 1, memory_order_release);
	atomic_store_explicit(&s->sb->nkstat,
	    atomic_load_explicit(&s->sb->nkstat, memory_order_relaxed) + 1,
	    memory_order_relaxed);
	store_kcid_bump(s, slot);
	if (ret_ref != NULL) {
		ret_ref->slot = slot;
		ret_ref->gen = k->gen;
	}
	return 0;
}

static struct store_kstat_hdr *
store_used_hdr(const struct store_segment *s, uint32_t slot)
{
	struct store_kstat_hdr *k;

	if (slot >= s->used)
		return NULL;
	k = store_hdr(s, slot);
	return (k->flags & STORE_KF_USED) != 0 ? k : NULL;
}

uint64_t
store_kstat_blob_off(const struct store_segment *s, uint32_t slot)
{
	const struct store_kstat_hdr *k = store_used_hdr(s, slot);

	return k != NULL ? k->blob_off : 0;
}

int
store_kstat_remove(struct store_segment *s, uint32_t slot)
{
	struct store_kstat_hdr *k = store_used_hdr(s, slot);

	if (k == NULL)
		return -ENOENT;
	store_layout_begin(k);
	store_arena_free(&s->arena, k->blob_off, k->chunk_size);
	k->flags = 0;
	k->blob_off = 0;
	k->blob_size = 0;
	k->chunk_size = 0;
	k->text_off = 0;
	k->path_len = 0;
	k->desc_len = 0;
	store_layout_end(k);
	store_slot_give(s, slot);
	atomic_store_explicit(&s->sb->nkstat,
	    atomic_load_explicit(&s->sb->nkstat, memory_order_relaxed) - 1,
	    memory_order_relaxed);
	store_kcid_bump(s, slot);
	return 0;
}

int
store_kstat_relayout(struct store_segment *s, uint32_t slot, uint32_t blob_size)
{
	return store_kstat_relayout_with(s, slot, NULL, blob_size, NULL, 0,
	    NULL);
}

int
store_kstat_relayout_with(struct store_segment *s, uint32_t slot,
    const void *blob, uint32_t blob_size, const struct store_slot *x,
    uint64_t snaptime, void **ret_blob)
{
	struct store_kstat_hdr *k = store_used_hdr(s, slot);
	uint64_t off, need;
	uint32_t chunk, toff = 0, tlen = 0;
	int r;

	if (k == NULL)
		return -ENOENT;
	if (blob_size > STORE_BLOB_MAX)
		return -E2BIG;
	if (k->text_off != 0) {
		toff = store_text_off(blob_size);
		tlen = (uint32_t)k->path_len + 1 + k->desc_len + 1;
	}
	need = store_need(blob_size, tlen);
	r = store_arena_alloc(&s->arena, need, &off, &chunk);
	if (r < 0)
		return r;
	/* The whole new blob is written in a chunk no reader knows yet;
	 * the header then switches to it in one window of both sequence
	 * counters, so a reader copies the old blob or the new one. */
	memset(s->base + off, 0, chunk);
	if (blob != NULL)
		memcpy(s->base + off, blob, blob_size);
	if (tlen != 0)
		memcpy(s->base + off + toff, s->base + k->blob_off + k->text_off, tlen);
	store_layout_begin(k);
	store_arena_free(&s->arena, k->blob_off, k->chunk_size);
	k->blob_off = off;
	k->blob_size = blob_size;
	k->chunk_size = chunk;
	k->text_off = toff;
	if (x != NULL) {
		k->tpl_hash = x->tpl_hash;
		k->ndata = x->ndata;
	}
	if (snaptime != 0)
		k->snaptime = snaptime;
	store_layout_end(k);
	store_kcid_bump(s, slot);
	if (ret_blob != NULL)
		*ret_blob = s->base + off;
	return 0;
}

int
store_kstat_set_flags(struct store_segment *s, uint32_t slot, uint32_t set,
    uint32_t clear)
{
	struct store_kstat_hdr *k = store_used_hdr(s, slot);

	if (k == NULL)
		return -ENOENT;
	if (((set | clear) & STORE_KF_USED) != 0)
		return -EINVAL;
	store_seq_begin(k);
	k->flags = (k->flags & ~clear) | set;
	store_seq_end(k);
	return 0;
}

int
store_kstat_write_begin(struct store_segment *s, uint32_t slot, void **ret_blob)
{
	struct store_kstat_hdr *k = store_used_hdr(s, slot);

	if (k == NULL)
		return -ENOENT;
	store_seq_begin(k);
	*ret_blob = s->base + k->blob_off;
	return 0;
}

void
store_kstat_write_end(struct store_segment *s, uint32_t slot, uint64_t snaptime)
{
	struct store_kstat_hdr *k;

	/* write_begin took this slot's seqlock: leaving it odd would hold
	 * every reader of it spinning. */
	INVARIANT(slot < s->used);
	k = store_hdr(s, slot);
	if (snaptime != 0)
		k->snaptime = snaptime;
	store_seq_end(k);
}
