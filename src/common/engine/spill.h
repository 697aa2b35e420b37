/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * spill.h: what a producer does with the updates its full ring cannot
 * take, and how statsd takes them back — the contents of the spill
 * buffers in a ring's overflow area (ring.h draws the bytes).
 *
 * A producer whose ring is full applies the update to its spill blob for
 * the kstat: a copy of the kstat's blob, laid out from its template with
 * every statistic reset, updated in place by the in-process engine (the
 * same engine_apply() as a local stats(3) update). Updates whose effect
 * cannot be folded and merged later with the same result — what a kind
 * keeps depends on their order or time (LIST, HISTORY, RAW, queue and
 * timer events, a relative update whose base the buffer does not know,
 * SET on a SUM, a Linux statistic's definition gate) — are kept instead
 * as records, stamped with their time, in the buffer's log, and replayed
 * in order. Each kind's row of the kind table says which ops fold
 * (stype_ops[].fold).
 *
 * The two buffers are filled in turn. When the ring has room again, the
 * producer hands the filled buffer over with one ring record and goes on
 * in the other; statsd merges it at that record, exactly where those
 * updates belong in the ring's order, and releases it. Updates are
 * dropped (and counted) only when both buffers are full or in statsd's
 * hands: when the overflow area itself is exhausted.
 *
 * In a buffer, every op of one VOI that follows a logged one is logged
 * too, so a VOI's folded updates all precede its logged ones, and statsd
 * takes the entries in their order: blobs merged, logs replayed.
 *
 * statsd reads a buffer as hostile input: a private copy, every entry
 * checked (ring_ovf_next()), every blob validated as a whole
 * (blob_check()) and held to the kstat's own layout before a kind merges
 * it (spill_merge()). A producer that lies can spoil only the kstats it
 * may update anyway.
 */
#ifndef STATSD_ENGINE_SPILL_H
#define STATSD_ENGINE_SPILL_H

#include <stdbool.h>
#include <stdint.h>

#include <statsd/stats.h>

#include "ring.h"

/* ---------------------------------------------------------------- producer */

struct spill_producer;

/*
 * The layout of kstat handle's blob as the producer last saw it, every
 * statistic reset: an image the producer copies into a buffer. It must
 * stay valid and unchanged while the spill producer may use it.
 * Returns: the image and *ret_size; NULL if unknown (its updates are then
 * logged).
 */
typedef const struct statsblob *spill_tpl_fn(void *arg, uint32_t handle,
    uint32_t *ret_size);

/*
 * spill_producer_new: spill for ring p, which must have an overflow area
 * (ring_producer_ovf()). Picks up buffers a previous producer of the
 * ring left in statsd's hands.
 * Returns: 0 and *ret; -ENOENT (no overflow area); -ENOMEM.
 */
int spill_producer_new(struct ring_producer *p, spill_tpl_fn *tpl, void *arg,
    struct spill_producer **ret);

/* NULL-safe. What the buffers hold stays in the shared memory. */
void spill_producer_free(struct spill_producer *sp);

/*
 * spill_push: one update — into the ring while it has room and nothing
 * waits in a buffer, else into a spill buffer; a buffer waiting is
 * handed over as soon as the ring has room. The caller serializes calls
 * on one spill producer (they are all on one ring). Never blocks, never
 * makes a system call unless the ring's wakeup does.
 * Returns: 0 if queued in the ring; 1 if spilled; -ENOSPC if dropped
 * (counted in the ring's drop counter): the overflow area is exhausted.
 */
int spill_push(struct spill_producer *sp, const struct ring_rec *rec);

/*
 * spill_handover: hand over what the buffers hold if the ring has room
 * (a flush, or a periodic look at a thread that stopped updating). With
 * force, the buffer being filled is handed over even while the other is
 * still in statsd's hands.
 * Returns: 0 if nothing is left to hand over; -EAGAIN if something is
 * (the ring is full: try again later).
 */
int spill_handover(struct spill_producer *sp, bool force);

/* Are updates going to the buffers (the ring's fast path must not)? */
bool spill_diverted(const struct spill_producer *sp);

/* Bring the ring header's spill counter up to date (spill_push() does it
 * every few dozen updates, not at each). */
void spill_count(struct spill_producer *sp);

/* Buffers holding updates not handed over yet (0..RING_OVF_NBUF), and
 * hand-overs made so far: a flush waits for the hand-overs of what was
 * pending when it began. */
unsigned spill_pending(const struct spill_producer *sp);
uint64_t spill_handed(const struct spill_producer *sp);

/*
 * spill_discard: statsd will never take this ring back: forget what the
 * buffers hold and go back to the ring.
 * Returns: the updates the buffers held that were not handed over.
 */
uint64_t spill_discard(struct spill_producer *sp);

/* ---------------------------------------------------------------- statsd */

/*
 * spill_merge: fold spill blob src (len bytes: a private copy of what a
 * producer handed over) into dst, the kstat's blob, with the statistic
 * kinds' merge functions; each statistic's failed-update count adds up,
 * and a VOI's state for relative updates is taken from the spill if an
 * update there set it. scratch: room for dst's cursz bytes, where the
 * merge is made first so that a refusal leaves dst as it was.
 * Returns: 0; -EBADMSG (*why says why) for a blob that does not validate;
 * -ESTALE for a blob not laid out as dst (made before dst was re-laid);
 * -EINVAL or -EOVERFLOW if a kind refuses (a counter would wrap).
 */
int spill_merge(struct statsblob *dst, const void *src, uint32_t len,
    void *scratch, const char **why);

#endif
