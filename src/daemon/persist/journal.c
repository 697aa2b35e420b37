/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * journal.c: the ring journal (see journal.h): its file, one slot per
 * ring being drained, and the undo record of the one update in flight on
 * a PERSISTENT kstat.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blob.h"
#include "blobstore.h"
#include "invariant.h"
#include "journal.h"
#include "log.h"

#define RJ_MAGIC	UINT64_C(0x314c4e4a52445453)	/* "STDRJNL1" */
#define RJ_SLOTS	65536u

struct rj_hdr {
	uint64_t	magic;
	uint32_t	nslots;
	uint32_t	epoch;		/* bumped at every start */
	uint8_t		pad[48];
};

_Static_assert(sizeof(struct journal_ring) == 64, "journal slot size");
_Static_assert(sizeof(struct rj_hdr) == 64, "journal header size");

/* The undo record of the one update in flight, after the slots. */
struct rj_undo {
	_Atomic uint32_t state;		/* 1 while an update is in flight */
	uint32_t	handle;
	uint32_t	slot;		/* the ring's journal slot */
	uint32_t	size;		/* the blob's */
	uint64_t	done_before;
	uint32_t	run_off, run_len;	/* the statistics table */
	uint32_t	data_off, data_len;	/* the statistics' data */
	uint64_t	spill_before;		/* the slot's spill_done */
	uint8_t		pad[16];
	uint8_t		bytes[];	/* header, run, data */
};

#define RJ_UNDO_BYTES	(BLOB_STORAGE_CAP + 4096u)
#define RJ_SIZE		(sizeof(struct rj_hdr) + RJ_SLOTS * \
			    sizeof(struct journal_ring) + \
			    sizeof(struct rj_undo) + RJ_UNDO_BYTES)

_Static_assert(sizeof(struct rj_undo) == 64, "undo header size");

struct journal {
	struct rj_hdr		*hdr;
	struct journal_ring	*slots;
	struct rj_undo		*undo;
	bool			 full_logged;
};

struct journal *
journal_open(const char *dir)
{
	size_t size = RJ_SIZE;
	char path[PATH_MAX + 32];
	struct journal *jn;
	struct stat st;
	uint32_t i, epoch, held = 0;
	void *map;
	int fd;

	snprintf(path, sizeof(path), "%s/rings.journal", dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	/* Its blocks are allocated up front: on a full runtime directory
	 * this fails now, instead of a SIGBUS when the drain writes through
	 * the mapping. */
	if (fd < 0 || fstat(fd, &st) < 0 || (st.st_size != (off_t)size &&
	    ftruncate(fd, 0) < 0) || ftruncate(fd, (off_t)size) < 0 ||
	    (errno = posix_fallocate(fd, 0, (off_t)size)) != 0) {
		log_warning("ring journal %s: %s; a kill -9 during a drain "
		    "pass may repeat updates", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return NULL;
	jn = calloc(1, sizeof(*jn));
	if (jn == NULL) {
		munmap(map, size);
		return NULL;
	}
	jn->hdr = map;
	jn->slots = (struct journal_ring *)((char *)map +
	    sizeof(struct rj_hdr));
	jn->undo = (struct rj_undo *)(jn->slots + RJ_SLOTS);
	if (jn->hdr->magic != RJ_MAGIC || jn->hdr->nslots != RJ_SLOTS) {
		memset(map, 0, sizeof(struct rj_hdr));
		jn->hdr->nslots = RJ_SLOTS;
		jn->hdr->magic = RJ_MAGIC;
		for (i = 0; i < RJ_SLOTS; i++)
			atomic_store(&jn->slots[i].used, 0);
		atomic_store(&jn->undo->state, 0);
	}
	epoch = jn->hdr->epoch + 1;
	if (epoch == 0)
		epoch = 1;
	jn->hdr->epoch = epoch;
	/*
	 * No slot is forgotten here, however many starts ago its ring was
	 * attached: its producer may hand it back after any number of
	 * restarts, and a slot cleared (or given to another ring) meanwhile
	 * would have its interrupted pass applied a second time. A slot is
	 * freed only when its ring is drained and let go
	 * (journal_ring_release).
	 */
	for (i = 0; i < RJ_SLOTS; i++)
		if (atomic_load(&jn->slots[i].used) != 0)
			held++;
	if (held > 0)
		log_info("ring journal %s: %u rings of earlier runs may be "
		    "handed back", path, held);
	return jn;
}

struct journal *
journal_free(struct journal *jn)
{
	if (jn == NULL)
		return NULL;
	munmap(jn->hdr, RJ_SIZE);
	free(jn);
	return NULL;
}

struct journal_ring *
journal_ring_new(struct journal *jn, uint64_t birth, uid_t uid)
{
	uint32_t i;

	if (jn == NULL)
		return NULL;
	/* Only a slot whose ring was let go: one held by a ring of an
	 * earlier run stays its until that ring is handed back. A slot
	 * never used first, so that a ring let go at a clean stop can still
	 * be handed back after the restart. */
	for (i = 0; i < 2 * RJ_SLOTS; i++) {
		struct journal_ring *j = &jn->slots[i % RJ_SLOTS];

		if (atomic_load(&j->used) != 0 || (i < RJ_SLOTS &&
		    atomic_load(&j->birth) != 0))
			continue;
		atomic_store(&j->birth, birth);
		atomic_store(&j->uid, (uint32_t)uid);
		atomic_store(&j->done, 0);
		atomic_store(&j->base, 0);
		atomic_store(&j->spill_seq, 0);
		atomic_store(&j->spill_done, 0);
		atomic_store(&j->used, jn->hdr->epoch);
		return j;
	}
	if (!jn->full_logged)
		log_warning("ring journal: all %u slots are held by rings that "
		    "may be handed back; new rings run without one (a kill -9 "
		    "during their drain may repeat updates, and they cannot be "
		    "handed back to the next statsd)", RJ_SLOTS);
	jn->full_logged = true;
	return NULL;
}

struct journal_ring *
journal_ring_adopt(struct journal *jn, uint64_t birth, uid_t uid,
    uint64_t tail, uint64_t *ret_skip)
{
	uint32_t i;

	*ret_skip = 0;
	if (jn == NULL)
		return NULL;
	/* The slot names the ring by its birth stamp and the user it was
	 * made for; a slot released when the ring was freed keeps both
	 * until it is given to another ring. */
	for (i = 0; i < RJ_SLOTS; i++) {
		struct journal_ring *j = &jn->slots[i];

		if (atomic_load(&j->birth) != birth || birth == 0 ||
		    atomic_load(&j->uid) != (uint32_t)uid)
			continue;
		if (atomic_load(&j->used) != 0 && atomic_load(&j->base) == tail)
			*ret_skip = atomic_load(&j->done);
		else {
			atomic_store(&j->done, 0);
			atomic_store(&j->spill_seq, 0);
			atomic_store(&j->spill_done, 0);
		}
		atomic_store(&j->used, jn->hdr->epoch);
		return j;
	}
	return NULL;
}

void
journal_ring_release(struct journal_ring *j)
{
	if (j != NULL)
		atomic_store(&j->used, 0);
}

void
journal_undo_begin(struct journal *jn, struct journal_ring *j,
    uint32_t handle, const void *blob, uint32_t size, const uint16_t *vois,
    size_t nvois)
{
	const struct statsblobv1 *b = blob;
	struct rj_undo *u;
	uint32_t lo = UINT32_MAX, hi = 0, run;
	size_t k;
	int s;

	if (jn == NULL || j == NULL || size > BLOB_STORAGE_CAP ||
	    size < SB_V1_HDRSZ || b->stats_off > b->statsdata_off ||
	    b->statsdata_off > size)
		return;
	if (vois == NULL) {
		lo = b->statsdata_off;
		hi = size;
	}
	/* The span of the VOIs' statistics' data: their blocks. */
	for (k = 0; vois != NULL && k < nvois; k++) {
		const struct voistat *vs;
		const struct voi *v;

		if (vois[k] >= blob_nvois(b))
			continue;
		v = &b->vois[vois[k]];
		if (v->id < 0)
			continue;
		BLOB_FOREACH_VOISTAT(b, v, s, vs) {
			if (vs->data_off < lo)
				lo = vs->data_off;
			if ((uint32_t)vs->data_off + vs->dsz > hi)
				hi = (uint32_t)vs->data_off + vs->dsz;
		}
	}
	if (lo > hi)
		lo = hi = b->statsdata_off;
	/* Every VOI's statistics table, whatever the VOIs: it is small. */
	run = (uint32_t)b->statsdata_off - b->stats_off;
	if (hi > size || SB_V1_HDRSZ + run + (hi - lo) > RJ_UNDO_BYTES)
		return;
	/* A slot of this journal: the undo record names the ring by it, and
	 * a restart rolls the update back only if that slot's progress is
	 * what it was; another's would repeat or lose the update. */
	INVARIANT((uintptr_t)j >= (uintptr_t)jn->slots &&
	    (uintptr_t)j < (uintptr_t)(jn->slots + RJ_SLOTS));
	u = jn->undo;
	u->handle = handle;
	u->slot = (uint32_t)(j - jn->slots);
	u->size = size;
	u->done_before = atomic_load_explicit(&j->done, memory_order_relaxed);
	u->spill_before = atomic_load_explicit(&j->spill_done,
	    memory_order_relaxed);
	u->run_off = b->stats_off;
	u->run_len = run;
	u->data_off = lo;
	u->data_len = hi - lo;
	memcpy(u->bytes, b, SB_V1_HDRSZ);
	memcpy(u->bytes + SB_V1_HDRSZ, (const char *)b + u->run_off, run);
	memcpy(u->bytes + SB_V1_HDRSZ + run, (const char *)b + lo, hi - lo);
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store_explicit(&u->state, 1, memory_order_relaxed);
	atomic_signal_fence(memory_order_seq_cst);
}

void
journal_undo_end(struct journal *jn)
{
	if (jn == NULL)
		return;
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store_explicit(&jn->undo->state, 0, memory_order_relaxed);
}

void
journal_undo_recover(struct journal *jn, uint32_t handle, void *blob,
    uint32_t size)
{
	struct rj_undo *u;

	if (jn == NULL)
		return;
	u = jn->undo;
	if (atomic_load(&u->state) != 1 || u->handle != handle)
		return;
	if (u->slot < RJ_SLOTS && u->size == size &&
	    u->run_len <= size && (uint64_t)u->run_off + u->run_len <= size &&
	    (uint64_t)u->data_off + u->data_len <= size &&
	    SB_V1_HDRSZ + u->run_len + u->data_len <= RJ_UNDO_BYTES &&
	    atomic_load(&jn->slots[u->slot].done) == u->done_before &&
	    atomic_load(&jn->slots[u->slot].spill_done) == u->spill_before) {
		memcpy(blob, u->bytes, SB_V1_HDRSZ);
		memcpy((char *)blob + u->run_off, u->bytes + SB_V1_HDRSZ,
		    u->run_len);
		memcpy((char *)blob + u->data_off, u->bytes + SB_V1_HDRSZ +
		    u->run_len, u->data_len);
		log_notice("kstat handle %u: an update cut short by the last "
		    "exit was rolled back; it is applied again when its ring "
		    "comes back", handle);
	}
	atomic_store(&u->state, 0);
}
