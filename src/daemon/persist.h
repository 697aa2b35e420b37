/*
 * persist.h: what survives a restart and a kill -9.
 *
 * Two places, two lifetimes:
 *   - each PERSISTENT kstat's blob lives in a file of its own in the
 *     runtime directory (<runtime>/persist/<handle>.kstat), mapped shared:
 *     the drain applies updates to it directly, so the data is in the page
 *     cache the moment it is applied and outlives the process. The store
 *     segment gets a copy after each drain pass (readers see that).
 *   - the checkpoint, <state>/statsd.checkpoint, holds the templates, the
 *     PERSISTENT kstats' headers, their blobs as of the checkpoint, the
 *     sample rates and the next handle. It is written to a temporary file,
 *     fsync'd and renamed over the old one: on every change of the set of
 *     PERSISTENT kstats, every checkpoint_interval_ms, and at exit.
 * On start the checkpoint is loaded and each kstat takes its blob from
 * its runtime file when that file is the one the checkpoint names (same
 * birth stamp) and validates, else from the checkpoint (after a reboot
 * cleared the runtime directory).
 */
#ifndef STATSD_DAEMON_PERSIST_H
#define STATSD_DAEMON_PERSIST_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

struct statsd;
struct persist;
struct persist_mirror;

#define PERSIST_BLOB_CAP	65536u	/* room for any blob, re-laid or not */

/* Returns: 0 and *ret; -errno (logged). */
int persist_new(struct statsd *d, struct persist **ret);
struct persist *persist_free(struct persist *p);

/*
 * persist_load: restore templates, sample rates and PERSISTENT kstats
 * from the checkpoint into d->reg. A missing checkpoint is a fresh start;
 * a damaged one is logged and set aside (renamed *.bad).
 * Returns: 0; -errno for what stops the start (out of memory).
 */
int persist_load(struct persist *p);

/* persist_checkpoint: write the checkpoint now. Returns: 0; -errno
 * (logged once per failure streak). */
int persist_checkpoint(struct persist *p);

/*
 * persist_mirror_create: a new runtime file for kstat handle holding the
 * size bytes of blob (replacing any old file).
 * Returns: 0 and *ret; -errno.
 */
int persist_mirror_create(struct persist *p, uint32_t handle,
    const void *blob, uint32_t size, struct persist_mirror **ret);

/*
 * persist_mirror_open: map an existing runtime file for handle if it was
 * born at birth (the caller validates the blob in it).
 * Returns: 0 and *ret; -ENOENT; -EBADMSG for a file that does not match;
 * -errno.
 */
int persist_mirror_open(struct persist *p, uint32_t handle, uint64_t birth,
    struct persist_mirror **ret);

void *persist_mirror_blob(struct persist_mirror *m);
uint32_t persist_mirror_size(const struct persist_mirror *m);
uint64_t persist_mirror_birth(const struct persist_mirror *m);
/* After a re-layout: the blob's new size (<= PERSIST_BLOB_CAP). */
void persist_mirror_set_size(struct persist_mirror *m, uint32_t size);

/*
 * The ring journal (<runtime>/persist/rings.journal) makes a kill -9 in
 * the middle of a drain pass neither lose nor repeat updates. A ring's
 * consumer index is published once per pass, after the pass; updates are
 * applied to the runtime files record by record. For each ring the
 * journal holds the index the current pass started from (base) and how
 * many records of the pass were applied (done). A restarted statsd that
 * is handed the ring back finds it by its birth stamp: if the ring's
 * published index is still base, the first done records were applied
 * already and are skipped. (done is bumped right after each record is
 * applied: a kill between the two stores, a window of a few
 * instructions, still repeats that one record.)
 */
struct persist_ring {
	_Atomic uint64_t	birth;		/* the ring header's */
	_Atomic uint64_t	base;		/* consumer index at pass start */
	_Atomic uint64_t	done;		/* records of the pass applied */
	_Atomic uint32_t	uid;
	_Atomic uint32_t	used;		/* 0: free; else the epoch */
	uint8_t			pad[32];
};

/* A journal slot for a new ring. Returns: it, or NULL (journal full or
 * unavailable: the ring then runs without one). */
struct persist_ring *persist_ring_new(struct persist *p, uint64_t birth,
    uid_t uid);

/* The slot of a ring handed back: *ret_skip gets how many of its records
 * to skip (0 if none, or no slot matches). Returns: a slot, or NULL. */
struct persist_ring *persist_ring_adopt(struct persist *p, uint64_t birth,
    uid_t uid, uint64_t tail, uint64_t *ret_skip);

/* A drain pass starts at consumer index base, with the first done
 * records of it applied already (records a killed statsd applied, being
 * skipped now; usually 0). */
static inline void
persist_ring_pass(struct persist_ring *j, uint64_t base, uint64_t done)
{
	if (j == NULL)
		return;
	/* done first: a kill between the two stores must not pair the new
	 * base with the old count. */
	atomic_store_explicit(&j->done, done, memory_order_relaxed);
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store_explicit(&j->base, base, memory_order_relaxed);
}

/* One more record of the pass is applied. */
static inline void
persist_ring_done(struct persist_ring *j)
{
	if (j == NULL)
		return;
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store_explicit(&j->done, atomic_load_explicit(&j->done,
	    memory_order_relaxed) + 1, memory_order_relaxed);
}

/* The ring is gone (drained and published). NULL-safe. */
void persist_ring_release(struct persist_ring *j);

/*
 * The one update in flight on a PERSISTENT kstat. Before it is applied
 * to the runtime file, what it can change (the blob header, the VOI's
 * statistics and their data) is saved in the journal; after it is
 * applied and counted (persist_ring_done), the save is dropped. A statsd
 * killed in between finds the save at start and, unless the update was
 * counted, puts those bytes back: the update is then applied once, when
 * the ring is handed back. No-ops without a journal slot (j NULL).
 */
void persist_undo_begin(struct persist *p, struct persist_ring *j,
    uint32_t handle, const void *blob, uint32_t size, uint16_t voi);
void persist_undo_end(struct persist *p);

/* Unmap (the file stays, for the next start). NULL-safe. */
void persist_mirror_close(struct persist_mirror *m);
/* Unmap and delete the file. NULL-safe. */
void persist_mirror_remove(struct persist_mirror *m);

#endif
