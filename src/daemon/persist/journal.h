/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * journal.h: the ring journal, <runtime>/persist/rings.journal, which
 * makes a kill -9 in the middle of a drain pass neither lose nor repeat
 * updates of PERSISTENT kstats (their blobs live in runtime files,
 * mirror.h, that outlive the process).
 *
 * A ring's consumer index is published once per pass, after the pass;
 * updates are applied to the runtime files record by record. For each
 * ring the journal holds the index the current pass started from (base)
 * and how many records of the pass were applied (done). A restarted statsd
 * that is handed the ring back finds it by its birth stamp: if the ring's
 * published index is still base, the first done records were applied
 * already and are skipped. (done is bumped right after each run of
 * records for one kstat is applied: a kill between the two stores, a
 * window of a few instructions, would repeat that run; the undo record
 * below closes that window.)
 *
 * Without a journal (it could not be made) every call here is a no-op and
 * a kill -9 during a drain pass may repeat updates.
 */
#ifndef STATSD_DAEMON_JOURNAL_H
#define STATSD_DAEMON_JOURNAL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct journal;

/* One ring's slot. */
struct journal_ring {
	_Atomic uint64_t	birth;		/* the ring header's */
	_Atomic uint64_t	base;		/* consumer index at pass start */
	_Atomic uint64_t	done;		/* records of the pass applied */
	_Atomic uint32_t	uid;
	_Atomic uint32_t	used;		/* 0: free; else the epoch */
	_Atomic uint64_t	spill_seq;	/* hand-over being merged */
	_Atomic uint64_t	spill_done;	/* its items merged */
	uint8_t			pad[16];
};

/*
 * journal_open: map the journal in dir and start a new epoch. The slots
 * of rings attached in earlier runs and not let go (statsd was killed
 * while they were attached) are all kept, however many restarts ago: a
 * producer may hand its ring back after any number of them, and the
 * slot's count is what keeps its interrupted pass from being applied
 * twice. Slots are freed only by journal_ring_release.
 * Returns: the journal, or NULL (logged; statsd runs without one).
 */
struct journal *journal_open(const char *dir);

/* Unmap it (the file stays, for the next start). NULL-safe. Returns: NULL. */
struct journal *journal_free(struct journal *jn);

/* A slot for a new ring: a free one, never one a ring of an earlier run
 * still holds. Returns: it, or NULL (every slot held, or no journal: the
 * ring then runs without one; logged once). */
struct journal_ring *journal_ring_new(struct journal *jn, uint64_t birth,
    uid_t uid);

/*
 * The slot of a ring handed back: the one made for a ring of that birth
 * stamp and user (it is kept after the ring is freed, until another ring
 * gets it). *ret_skip gets how many of its records to skip: those a
 * killed statsd applied in its last pass.
 * Returns: the slot; NULL if there is none (the ring was not made by this
 * statsd for uid, or too long ago) or no journal.
 */
struct journal_ring *journal_ring_adopt(struct journal *jn, uint64_t birth,
    uid_t uid, uint64_t tail, uint64_t *ret_skip);

/* A drain pass starts at consumer index base, with the first done
 * records of it applied already (records a killed statsd applied, being
 * skipped now; usually 0). */
static inline void
journal_ring_pass(struct journal_ring *j, uint64_t base, uint64_t done)
{
	if (j == NULL)
		return;
	/* done first: a kill between the two stores must not pair the new
	 * base with the old count. */
	atomic_store_explicit(&j->done, done, memory_order_relaxed);
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store_explicit(&j->base, base, memory_order_relaxed);
}

/* n more records of the pass are applied (or refused). */
static inline void
journal_ring_done(struct journal_ring *j, uint64_t n)
{
	if (j == NULL)
		return;
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store_explicit(&j->done, atomic_load_explicit(&j->done,
	    memory_order_relaxed) + n, memory_order_relaxed);
}

/*
 * A spill hand-over numbered seq starts being merged: its items (blobs,
 * and records of its logs) are counted as they are merged, so that a
 * statsd killed half-way through merges the rest, and only the rest, when
 * the ring comes back.
 * Returns: how many of its items were merged already (0 unless it is the
 * hand-over the journal says was cut short).
 */
static inline uint64_t
journal_spill_begin(struct journal_ring *j, uint64_t seq)
{
	if (j == NULL)
		return 0;
	if (atomic_load_explicit(&j->spill_seq, memory_order_relaxed) == seq)
		return atomic_load_explicit(&j->spill_done,
		    memory_order_relaxed);
	/* The count first: a kill between the two stores must not pair
	 * the new hand-over with the old count. */
	atomic_store_explicit(&j->spill_done, 0, memory_order_relaxed);
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store_explicit(&j->spill_seq, seq, memory_order_relaxed);
	return 0;
}

/* n more items of the hand-over being merged are merged (or refused). */
static inline void
journal_spill_done(struct journal_ring *j, uint64_t n)
{
	if (j == NULL)
		return;
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store_explicit(&j->spill_done, atomic_load_explicit(
	    &j->spill_done, memory_order_relaxed) + n, memory_order_relaxed);
}

/* The ring is gone (drained and published). NULL-safe. */
void journal_ring_release(struct journal_ring *j);

/*
 * The one batch of updates in flight on a PERSISTENT kstat: a run of
 * records for it, or a spill blob merged into it. Before it is applied to
 * the runtime file, what it can change (the blob header, the statistics
 * table, and the data of the nvois VOIs in vois, or of every VOI with
 * vois NULL) is saved in the journal; after it is applied and counted
 * (journal_ring_done or journal_spill_done), the save is dropped. A
 * statsd killed in between finds the save at start and, unless the batch
 * was counted, puts those bytes back (journal_undo_recover): the batch is
 * then applied once, when the ring is handed back. No-ops without a
 * journal or a slot (j NULL).
 */
void journal_undo_begin(struct journal *jn, struct journal_ring *j,
    uint32_t handle, const void *blob, uint32_t size, const uint16_t *vois,
    size_t nvois);
void journal_undo_end(struct journal *jn);

/* At start, before kstat handle's blob (size bytes, in its runtime file)
 * is used: roll back an update that was cut short. */
void journal_undo_recover(struct journal *jn, uint32_t handle, void *blob,
    uint32_t size);

#endif
