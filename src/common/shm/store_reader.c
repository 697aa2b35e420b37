/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * store_reader.c: the reader side of a store segment, for statsctl,
 * libkstat-style consumers and anything else holding a read-only fd. It
 * copies out under the per-kstat sequence counter with bounded retries and
 * trusts nothing it reads: the geometry is validated once and kept
 * privately, and every header copy is validated before any offset in it is
 * followed. Layout and rules are in store.h.
 */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "arena.h"
#include "shm.h"
#include "store.h"

/* GCC's ThreadSanitizer does not model atomic_thread_fence() and warns
 * (-Wtsan). The seqlock needs the fences; under TSan the racy side is left
 * uninstrumented instead (see store_copy_racy() in store_reader.c). */
#if defined(__SANITIZE_THREAD__) && !defined(__clang__) && __GNUC__ >= 12
#pragma GCC diagnostic ignored "-Wtsan"
#endif

#define STORE_CHAIN_RETRIES	64u

struct store_reader {
	const uint8_t *base;
	size_t map_size;
	const struct store_super *sb;
	/* Validated at open; never read from the mapping again. */
	uint64_t birth;
	uint64_t table_off;
	uint64_t arena_off;
	uint64_t arena_end;
	uint32_t slots;
	uint32_t kstat_size;
	uint32_t kind;
	bool lseq;		/* headers keep a layout sequence counter */
	const struct store_change *log;	/* NULL: no change log */
	uint32_t log_slots;
	uint64_t log_off_;
};

/* A header copy that passed validation plus what the caller wants copied
 * with it, inside the same sequence window. */
struct store_snap {
	struct store_kstat_hdr h;
	struct store_ref want;	/* gen 0: any */
	void *buf;
	size_t bufsize;
	struct kstat_hdr *text;	/* its path and desc wanted */
	bool layout;	/* under lseq: the data may be torn */
};

static inline void
store_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/*
 * Wait before retry number `tries` of a seqlock read. A writer's critical
 * section is short, so spin first; but a writer preempted mid-write (two
 * cores, a busy machine) keeps the sequence odd for a whole time slice,
 * and spinning through every retry would give up long before it runs
 * again. Later retries yield the CPU to it.
 */
#define STORE_SPIN_RETRIES	64u

static inline void
store_backoff(uint32_t tries)
{
	if (tries < STORE_SPIN_RETRIES)
		store_cpu_relax();
	else
		sched_yield();
}

/*
 * Copy bytes the daemon may be writing at the same time. The race is the
 * point of a seqlock: the copy is thrown away unless the sequence counter
 * says it was quiet. Volatile word loads keep the compiler from turning
 * this into a memcpy call (which ThreadSanitizer intercepts), and the
 * attribute keeps TSan from reporting the race the protocol already
 * handles. Bytes up to the first 8-byte boundary and after the last one
 * are copied singly.
 */
__attribute__((no_sanitize("thread")))
static void
store_copy_racy(void *dst, const void *src, size_t n)
{
	const volatile uint8_t *s1 = src;
	const volatile uint64_t *s8;
	uint8_t *d = dst;
	size_t i = 0, words;

	for (; i < n && ((uintptr_t)(s1 + i) & 7) != 0; i++)
		d[i] = s1[i];
	s8 = (const volatile uint64_t *)(const volatile void *)(s1 + i);
	for (words = (n - i) / 8; words > 0; words--, s8++, i += 8) {
		uint64_t w = *s8;

		memcpy(d + i, &w, sizeof(w));
	}
	for (; i < n; i++)
		d[i] = s1[i];
}

/*
 * Validate a consistent header copy against the reader's own geometry.
 * Returns: 0; -ESTALE for an unused slot; -EBADMSG if anything is out of
 * bounds.
 */
static int
store_hdr_check(const struct store_reader *r, const struct store_kstat_hdr *h)
{
	uint64_t text_end, arena_size = r->arena_end - r->arena_off;

	if ((h->flags & STORE_KF_USED) == 0)
		return -ESTALE;
	if (strnlen(h->module, sizeof(h->module)) == sizeof(h->module) ||
	    strnlen(h->name, sizeof(h->name)) == sizeof(h->name) ||
	    strnlen(h->class_, sizeof(h->class_)) == sizeof(h->class_))
		return -EBADMSG;
	/* Written so that no subtraction can wrap: the chunk must fit in the
	 * arena, then its start must leave room for it. */
	if (h->chunk_size == 0 || h->chunk_size > STORE_ARENA_CHUNK_MAX ||
	    h->chunk_size > arena_size || h->blob_off % 8 != 0 ||
	    h->blob_off < r->arena_off ||
	    h->blob_off - r->arena_off > arena_size - h->chunk_size)
		return -EBADMSG;
	if (h->blob_size > STORE_BLOB_MAX || h->blob_size > h->chunk_size)
		return -EBADMSG;
	if (h->text_off == 0) {
		if (h->path_len != 0 || h->desc_len != 0)
			return -EBADMSG;
	} else {
		if (h->text_off < h->blob_size || h->path_len > STORE_PATH_MAX ||
		    h->desc_len > STORE_DESC_MAX)
			return -EBADMSG;
		text_end = (uint64_t)h->text_off + h->path_len + 1 + h->desc_len + 1;
		if (text_end > h->chunk_size)
			return -EBADMSG;
	}
	return 0;
}

/* Everything copied under the sequence counter after the header: the
 * header is checked first so no offset is followed before it is known to
 * be in bounds. */
static int
store_snap_extra(const struct store_reader *r, struct store_snap *sn)
{
	const struct store_kstat_hdr *h = &sn->h;
	const uint8_t *chunk;
	int rc;

	rc = store_hdr_check(r, h);
	if (rc < 0)
		return rc;
	if (sn->want.gen != 0 && h->gen != sn->want.gen)
		return -ESTALE;
	chunk = r->base + h->blob_off;
	if (sn->text != NULL) {
		if (h->text_off == 0)
			return 0;
		store_copy_racy(sn->text->path, chunk + h->text_off,
		    h->path_len);
		store_copy_racy(sn->text->desc,
		    chunk + h->text_off + h->path_len + 1, h->desc_len);
		return 0;
	}
	if (sn->bufsize == (size_t)-1)
		return 0;		/* header only */
	if (sn->buf == NULL || sn->bufsize < h->blob_size)
		return -ENOBUFS;
	store_copy_racy(sn->buf, chunk, h->blob_size);
	return 0;
}

/*
 * The seqlock read loop: sequence (acquire), copy, fence (acquire),
 * sequence again; retry while odd or changed.
 * Returns: the verdict on the one consistent copy; -EAGAIN if none was
 * had in STORE_READ_RETRIES tries.
 */
static int
store_snap(const struct store_reader *r, uint32_t slot, struct store_snap *sn)
{
	const struct store_kstat_hdr *k = (const struct store_kstat_hdr *)
	    (r->base + r->table_off + (uint64_t)slot * r->kstat_size);
	/* A layout read counts on the layout's counter alone: an update of
	 * the data (the drain keeps seq odd nearly all the time while
	 * producers flood the kstat) does not make it try again. */
	const _Atomic uint32_t *seq = sn->layout && r->lseq ? &k->lseq :
	    &k->seq;
	uint32_t s1, s2, tries;
	int rc;

	for (tries = 0; tries < STORE_READ_RETRIES; tries++) {
		s1 = atomic_load_explicit(seq, memory_order_acquire);
		if (s1 & 1) {
			store_backoff(tries);
			continue;
		}
		store_copy_racy(&sn->h, k, sizeof(sn->h));
		rc = store_snap_extra(r, sn);
		atomic_thread_fence(memory_order_acquire);
		s2 = atomic_load_explicit(seq, memory_order_relaxed);
		if (s1 == s2)
			return rc;
		store_backoff(tries);
	}
	return -EAGAIN;
}

/*
 * The one decoder of a slot: a checked header copy (its strings end
 * inside their fields) into the slot's own fields and the kstat's header.
 * The header's path and description stay empty: they are in the arena
 * (store_reader_read_text()), and a walk need not copy 1.3 KB per kstat.
 */
static void
store_decode(uint32_t slot, const struct store_kstat_hdr *k,
    struct store_entry *e, struct kstat_hdr *h)
{
	if (e != NULL) {
		e->ref.slot = slot;
		e->ref.gen = k->gen;
		e->slot.owner_uid = k->owner_uid;
		e->slot.ndata = k->ndata;
		e->slot.tpl_hash = k->tpl_hash;
		e->blob_size = k->blob_size;
	}
	if (h == NULL)
		return;
	memcpy(h->module, k->module, sizeof(h->module));
	memcpy(h->name, k->name, sizeof(h->name));
	memcpy(h->class_, k->class_, sizeof(h->class_));
	h->type = k->type;
	h->content = k->content;
	h->instance = k->instance;
	h->flags = k->flags & ~STORE_KF_USED;
	h->kid = (int64_t)k->kid;
	h->scale = k->scale;
	h->crtime = (hrtime_t)k->crtime;
	h->snaptime = (hrtime_t)k->snaptime;
	h->path[0] = '\0';
	h->desc[0] = '\0';
}

static int
store_super_check(const struct store_super *sb, size_t size,
    struct store_reader *r)
{
	uint64_t table_end;

	if (sb->magic != STORE_MAGIC || sb->endian != STORE_ENDIAN)
		return -EBADMSG;
	if (sb->abi_major != STORE_ABI_MAJOR ||
	    (sb->incompat & ~STORE_INCOMPAT_KNOWN) != 0)
		return -EPROTONOSUPPORT;
	/* Larger headers and kstat slots are allowed: a later minor version
	 * may append fields, which this reader then skips. */
	if (sb->hdr_size < STORE_SUPER_SIZE || sb->seg_size > size ||
	    sb->hdr_size > sb->seg_size)
		return -EBADMSG;
	if (sb->kind != STORE_SEG_PUBLIC && sb->kind != STORE_SEG_PRIVATE)
		return -EBADMSG;
	if (sb->kstat_size < STORE_KSTAT_SIZE || sb->kstat_size > 4096 ||
	    sb->kstat_size % 64 != 0)
		return -EBADMSG;
	if (sb->table_slots == 0 || sb->table_slots > STORE_SLOTS_MAX)
		return -EBADMSG;
	if (sb->table_off < sb->hdr_size || sb->table_off % 64 != 0 ||
	    sb->table_off > sb->seg_size)
		return -EBADMSG;
	table_end = sb->table_off + (uint64_t)sb->table_slots * sb->kstat_size;
	if (table_end > sb->seg_size)
		return -EBADMSG;
	if (sb->arena_off < table_end || sb->arena_off % 64 != 0 ||
	    sb->arena_off > sb->seg_size ||
	    sb->arena_size > sb->seg_size - sb->arena_off)
		return -EBADMSG;
	/* The change log: between the table and the arena, a power of two
	 * of entries. A log that does not fit is ignored, not refused: the
	 * reader walks the chain as without one. */
	r->log = NULL;
	r->log_slots = 0;
	if ((sb->compat & STORE_COMPAT_CHANGELOG) && sb->hdr_size >= 124 &&
	    sb->log_slots > 0 && (sb->log_slots & (sb->log_slots - 1)) == 0 &&
	    sb->log_slots <= (1u << 20) && sb->log_off % 16 == 0 &&
	    sb->log_off >= table_end && sb->log_off <= sb->arena_off &&
	    (uint64_t)sb->log_slots * sizeof(struct store_change) <=
	    sb->arena_off - sb->log_off)
		r->log_slots = sb->log_slots;
	r->log_off_ = sb->log_off;
	r->birth = sb->birth;
	r->table_off = sb->table_off;
	r->arena_off = sb->arena_off;
	r->arena_end = sb->arena_off + sb->arena_size;
	r->slots = sb->table_slots;
	r->kstat_size = sb->kstat_size;
	r->kind = sb->kind;
	r->lseq = (sb->compat & STORE_COMPAT_LAYOUTSEQ) != 0;
	return 0;
}

int
store_reader_open(int fd, struct store_reader **ret)
{
	struct store_reader *r;
	struct store_super copy;
	size_t size;
	void *addr;
	int rc;

	rc = shm_fd_check(fd, &size);
	if (rc < 0)
		return rc;
	if (size < STORE_SUPER_SIZE)
		return -EBADMSG;
	rc = shm_map(fd, size, 0, &addr);
	if (rc < 0)
		return rc;
	r = calloc(1, sizeof(*r));
	if (r == NULL) {
		rc = -ENOMEM;
		goto fail;
	}
	r->base = addr;
	r->map_size = size;
	r->sb = addr;
	if (atomic_load_explicit(&r->sb->ready, memory_order_acquire) != 1) {
		rc = -EAGAIN;
		goto fail;
	}
	store_copy_racy(&copy, addr, sizeof(copy));
	rc = store_super_check(&copy, size, r);
	if (rc < 0)
		goto fail;
	if (r->log_slots > 0)
		r->log = (const struct store_change *)(r->base + r->log_off_);
	*ret = r;
	return 0;
fail:
	free(r);
	munmap(addr, size);
	return rc;
}

struct store_reader *
store_reader_close(struct store_reader *r)
{
	if (r == NULL)
		return NULL;
	munmap((void *)r->base, r->map_size);
	free(r);
	return NULL;
}

uint64_t
store_reader_kcid(const struct store_reader *r)
{
	return atomic_load_explicit(&r->sb->kcid, memory_order_acquire);
}

uint32_t
store_reader_slots(const struct store_reader *r)
{
	return r->slots;
}

uint64_t
store_reader_birth(const struct store_reader *r)
{
	return r->birth;
}

unsigned
store_reader_kind(const struct store_reader *r)
{
	return r->kind;
}

size_t
store_reader_size(const struct store_reader *r)
{
	return r->map_size;
}

/* One pass over the table; the KCID check around it is the caller's. */
static int
store_walk(struct store_reader *r, store_walk_fn *fn, void *arg)
{
	struct store_snap sn;
	struct store_entry e;
	struct kstat_hdr h;
	uint32_t used, slot;
	int rc;

	used = atomic_load_explicit(&r->sb->table_used, memory_order_acquire);
	if (used > r->slots)
		used = r->slots;
	for (slot = 0; slot < used; slot++) {
		memset(&sn, 0, sizeof(sn));
		sn.bufsize = (size_t)-1;
		rc = store_snap(r, slot, &sn);
		if (rc == -ESTALE)
			continue;
		if (rc < 0)
			return rc;
		store_decode(slot, &sn.h, &e, &h);
		rc = fn(arg, &e, &h);
		if (rc != 0)
			return rc;
	}
	return 0;
}

int
store_reader_walk(struct store_reader *r, store_walk_fn *fn, void *arg,
    uint64_t *ret_kcid)
{
	uint64_t k1, k2;
	unsigned tries;
	int rc;

	for (tries = 0; tries < STORE_CHAIN_RETRIES; tries++) {
		if (tries > 0) {
			rc = fn(arg, NULL, NULL);
			if (rc != 0)
				return rc;
		}
		k1 = atomic_load_explicit(&r->sb->kcid, memory_order_acquire);
		rc = store_walk(r, fn, arg);
		if (rc != 0 && rc != -EBADMSG)
			return rc;
		atomic_thread_fence(memory_order_acquire);
		k2 = atomic_load_explicit(&r->sb->kcid, memory_order_relaxed);
		if (k1 != k2)
			continue;
		/* A malformed header in a walk that saw a stable chain is
		 * real, not a race. */
		if (rc != 0)
			return rc;
		if (ret_kcid != NULL)
			*ret_kcid = k1;
		return 0;
	}
	return -EAGAIN;
}

int
store_reader_walk_once(struct store_reader *r, store_walk_fn *fn, void *arg,
    uint64_t *ret_kcid)
{
	int rc;

	*ret_kcid = atomic_load_explicit(&r->sb->kcid, memory_order_acquire);
	rc = store_walk(r, fn, arg);
	/* Not stable, a malformed header is as likely a slot being made. */
	return rc == -EBADMSG ? -EAGAIN : rc;
}

/* What a lookup looks for, and where the one it finds goes. */
struct store_find {
	const char		*module;	/* NULL: any */
	int32_t			 instance;	/* -1: any */
	const char		*name;		/* NULL: any */
	struct store_entry	*e;
	struct kstat_hdr	*h;
};

static int
store_find_one(void *arg, const struct store_entry *e,
    const struct kstat_hdr *h)
{
	struct store_find *f = arg;

	if ((f->instance != -1 && h->instance != f->instance) ||
	    (f->module != NULL && strcmp(h->module, f->module) != 0) ||
	    (f->name != NULL && strcmp(h->name, f->name) != 0))
		return 0;
	if (f->e != NULL)
		*f->e = *e;
	if (f->h != NULL)
		*f->h = *h;
	return 1;
}

int
store_reader_lookup(struct store_reader *r, const char *module,
    int32_t instance, const char *name, struct store_entry *ret_e,
    struct kstat_hdr *ret_h)
{
	struct store_find f = { module, instance, name, ret_e, ret_h };
	int rc;

	/* One pass, no KCID check: each header copy is consistent on its
	 * own, and a lookup answers for one kstat. */
	rc = store_walk(r, store_find_one, &f);
	return rc == 1 ? 0 : rc < 0 ? rc : -ENOENT;
}

/* A read under the whole sequence counter, or (layout) the layout's. */
static int
store_read(struct store_reader *r, struct store_ref ref, bool layout,
    struct store_entry *ret_e, struct kstat_hdr *ret_h, void *buf,
    size_t bufsize, size_t *ret_size)
{
	struct store_snap sn;
	int rc;

	if (ref.slot >= r->slots)
		return -ENOENT;
	memset(&sn, 0, sizeof(sn));
	sn.want = ref;
	sn.buf = buf;
	sn.bufsize = buf != NULL ? bufsize : 0;
	sn.layout = layout;
	rc = store_snap(r, ref.slot, &sn);
	if (rc == 0 || rc == -ENOBUFS) {
		store_decode(ref.slot, &sn.h, ret_e, ret_h);
		if (ret_size != NULL)
			*ret_size = sn.h.blob_size;
	}
	return rc;
}

int
store_reader_read(struct store_reader *r, struct store_ref ref,
    struct store_entry *ret_e, struct kstat_hdr *ret_h, void *buf,
    size_t bufsize, size_t *ret_size)
{
	return store_read(r, ref, false, ret_e, ret_h, buf, bufsize,
	    ret_size);
}

int
store_reader_read_layout(struct store_reader *r, struct store_ref ref,
    struct store_entry *ret_e, struct kstat_hdr *ret_h, void *buf,
    size_t bufsize, size_t *ret_size)
{
	return store_read(r, ref, true, ret_e, ret_h, buf, bufsize, ret_size);
}

int
store_reader_read_text(struct store_reader *r, struct store_ref ref,
    struct kstat_hdr *h)
{
	struct store_snap sn;
	int rc;

	if (ref.slot >= r->slots)
		return -ENOENT;
	memset(&sn, 0, sizeof(sn));
	sn.want = ref;
	sn.text = h;
	rc = store_snap(r, ref.slot, &sn);
	h->path[rc == 0 ? sn.h.path_len : 0] = '\0';
	h->desc[rc == 0 ? sn.h.desc_len : 0] = '\0';
	return rc;
}

int
store_reader_blob_span(struct store_reader *r, struct store_ref ref,
    uint64_t *ret_off, uint32_t *ret_size, uint32_t *ret_chunk)
{
	struct store_snap sn;
	int rc;

	if (ref.slot >= r->slots)
		return -ENOENT;
	memset(&sn, 0, sizeof(sn));
	sn.want = ref;
	sn.bufsize = (size_t)-1;	/* the validated header only */
	sn.layout = true;
	rc = store_snap(r, ref.slot, &sn);
	if (rc < 0)
		return rc;
	*ret_off = sn.h.blob_off;
	*ret_size = sn.h.blob_size;
	*ret_chunk = sn.h.chunk_size;
	return 0;
}

int
store_reader_changes(struct store_reader *r, uint64_t from, uint32_t *out,
    size_t max, size_t *ret_n, uint64_t *ret_kcid)
{
	uint64_t now, k, k1, k2;
	uint32_t slot, tries;
	size_t n = 0;

	now = atomic_load_explicit(&r->sb->kcid, memory_order_acquire);
	if (r->log == NULL || now < from || now - from > r->log_slots ||
	    now - from > max)
		return -ERANGE;
	for (k = from + 1; k <= now; k++) {
		const struct store_change *c = &r->log[k & (r->log_slots - 1)];

		for (tries = 0; ; tries++) {
			if (tries == STORE_READ_RETRIES)
				return -EAGAIN;
			k1 = atomic_load_explicit(&c->kcid,
			    memory_order_acquire);
			slot = atomic_load_explicit(&c->slot,
			    memory_order_relaxed);
			atomic_thread_fence(memory_order_acquire);
			k2 = atomic_load_explicit(&c->kcid,
			    memory_order_relaxed);
			if (k1 == k2 && k1 != 0)
				break;
			store_backoff(tries);
		}
		/* Written over by a later change: the log has moved on. A
		 * change of no slot (the segments themselves): walk it all. */
		if (k1 != k || slot >= r->slots)
			return -ERANGE;
		out[n++] = slot;
	}
	*ret_n = n;
	*ret_kcid = now;
	return 0;
}

int
store_reader_slot(struct store_reader *r, uint32_t slot,
    struct store_entry *ret_e, struct kstat_hdr *ret_h)
{
	struct store_snap sn;
	int rc;

	if (slot >= r->slots)
		return -ENOENT;
	memset(&sn, 0, sizeof(sn));
	sn.bufsize = (size_t)-1;
	rc = store_snap(r, slot, &sn);
	if (rc < 0)
		return rc;
	store_decode(slot, &sn.h, ret_e, ret_h);
	return 0;
}
