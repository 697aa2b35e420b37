/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * drain_apply.c: what the drain does with the records it takes from a
 * ring: runs of updates for one kstat applied as one batch, and spill
 * hand-overs, whose buffer is read as hostile input and merged into the
 * kstats it names, at the hand-over's place in the ring's order.
 *
 * Every update is checked: its handle must name an active kstat the
 * ring's owner owns (or the owner is privileged), and the engine must
 * accept its VOI, op and value; a spill blob must validate and be laid
 * out as the kstat's own blob. Anything else is counted as rejected. A
 * producer can claim any number of updates in a spill; statsd believes
 * at most one per nanosecond since the ring's last hand-over, so the
 * counters it shows cannot be run up.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "blob.h"
#include "daemon.h"
#include "drain_priv.h"
#include "engine.h"
#include "crashpoint.h"
#include "journal.h"
#include "log.h"
#include "registry.h"
#include "ring.h"
#include "spill.h"
#include "view.h"

/*
 * The VOIs a run of records touches, for the undo record of a PERSISTENT
 * kstat: up to DRAIN_UNDO_VOIS distinct ones; with more, the whole blob
 * is saved. Returns: how many, or 0 for the whole blob.
 */
#define DRAIN_UNDO_VOIS	16

static size_t
drain_run_vois(const struct ring_rec *recs, unsigned n, uint16_t *vois)
{
	size_t nv = 0, k;
	unsigned i;

	for (i = 0; i < n; i++) {
		for (k = 0; k < nv && vois[k] != recs[i].voi; k++)
			;
		if (k < nv)
			continue;
		if (nv == DRAIN_UNDO_VOIS)
			return 0;
		vois[nv++] = recs[i].voi;
	}
	return nv;
}

/* kstat handle, if rg's producer may update it. Returns: it, or NULL. */
static struct reg_kstat *
drain_kstat(struct ring *rg, uint32_t handle)
{
	struct reg_kstat *k = registry_kstat_by_handle(rg->dr->d->reg,
	    handle);

	/* The rule of the socket's owner right, zones included. */
	if (k == NULL || k->dormant || !view_kstat_may_modify(&rg->peer, k))
		return NULL;
	return k;
}

/* One journal step: n records of the pass, or n items of a spill. */
static void
drain_step(struct ring *rg, bool spill, uint64_t n)
{
	if (spill)
		journal_spill_done(rg->journal, n);
	else
		journal_ring_done(rg->journal, n);
}

/*
 * A run of records for one kstat, applied as one batch: one lookup and
 * ownership check, one seqlock write section (or one undo record, for a
 * PERSISTENT kstat), one journal step. Returns: how many were refused.
 */
static unsigned
drain_run(struct ring *rg, const struct ring_rec *recs, unsigned n,
    bool spill)
{
	struct statsd *d = rg->dr->d;
	struct reg_kstat *k;
	struct statsblob *sb;
	uint16_t vois[DRAIN_UNDO_VOIS];
	size_t nv;
	unsigned refused;

	k = drain_kstat(rg, recs[0].handle);
	if (k == NULL) {
		drain_step(rg, spill, n);
		return n;
	}
	sb = registry_blob_begin(d->reg, k);
	if (k->storage != NULL) {
		nv = drain_run_vois(recs, n, vois);
		journal_undo_begin(d->journal, rg->journal, k->handle, sb,
		    k->size, nv > 0 ? vois : NULL, nv);
	}
	/* A statistic that failed (a queue exit from an empty queue) is
	 * counted in its errs; the record itself reached the blob. */
	refused = (unsigned)engine_apply_batch(sb, recs, n);
	registry_blob_end(d->reg, k, rg->dr->now);
	/* Applied, not counted: the undo record puts it back. */
	crashpoint("drain.applied");
	drain_step(rg, spill, n);
	if (k->storage != NULL)
		journal_undo_end(d->journal);
	/* Applied and counted, the ring's index not yet published. */
	crashpoint("drain.run");
	return refused;
}

/* Records in ring order, split into runs for one kstat. */
static unsigned
drain_runs(struct ring *rg, const struct ring_rec *recs, unsigned n,
    bool spill)
{
	unsigned i, j, refused = 0;

	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && recs[j].handle == recs[i].handle; j++)
			;
		refused += drain_run(rg, recs + i, j - i, spill);
	}
	return refused;
}

static void
drain_spill_refusal(struct ring *rg, const char *what, const char *why)
{
	if (rg->spill_logged)
		return;
	rg->spill_logged = true;
	log_warning("ring %u (uid %u): %s refused: %s (logged once per ring)",
	    rg->id, (unsigned)rg->peer.uid, what, why);
}

/*
 * The log of a spill buffer: its records checked and replayed as if they
 * had come through the ring, after the first *skip (replayed before a
 * restart).
 */
static void
drain_spill_log(struct ring *rg, const uint8_t *pl, uint64_t nrec,
    uint64_t *skip, uint64_t *applied, uint64_t *rejected)
{
	struct ring_rec buf[RING_DRAIN_CHUNK];
	uint64_t i = 0;

	while (i < nrec) {
		uint64_t end = nrec - i > RING_DRAIN_CHUNK ?
		    i + RING_DRAIN_CHUNK : nrec;
		unsigned k = 0, r;

		for (; i < end; i++) {
			if (*skip > 0) {
				(*skip)--;
				(*applied)++;
				continue;
			}
			memcpy(&buf[k], pl + i * RING_REC_SIZE, RING_REC_SIZE);
			if (ring_rec_check(&buf[k]) != 0 ||
			    buf[k].op == RING_OP_SPILL) {
				(*rejected)++;
				journal_spill_done(rg->journal, 1);
				continue;
			}
			/* The producer stamps what it logs; this is a lie. */
			if (buf[k].time == 0)
				buf[k].time = rg->dr->now;
			k++;
		}
		r = drain_runs(rg, buf, k, true);
		*applied += k - r;
		*rejected += r;
	}
}

/* One spill blob merged into its kstat. Returns: true if merged. */
static bool
drain_spill_blob(struct ring *rg, const struct ring_ovf_ent *e,
    const uint8_t *pl)
{
	struct drain *dr = rg->dr;
	struct statsd *d = dr->d;
	struct reg_kstat *k = drain_kstat(rg, e->handle);
	struct statsblob *sb;
	const char *why;
	int r;

	if (k == NULL || e->len != k->size) {
		journal_spill_done(rg->journal, 1);
		drain_spill_refusal(rg, "a spill blob", k == NULL ?
		    "no kstat of its handle the ring may update" :
		    "not the size of the kstat's blob");
		return false;
	}
	sb = registry_blob_begin(d->reg, k);
	if (k->storage != NULL)
		journal_undo_begin(d->journal, rg->journal, k->handle, sb,
		    k->size, NULL, 0);
	r = spill_merge(sb, pl, e->len, dr->merge_scratch, &why);
	registry_blob_end(d->reg, k, dr->now);
	journal_spill_done(rg->journal, 1);
	if (k->storage != NULL)
		journal_undo_end(d->journal);
	if (r < 0)
		drain_spill_refusal(rg, "a spill blob", why);
	return r == 0;
}

/* Room for a copy of one of rg's spill buffers. Returns: 0; -ENOMEM. */
static int
drain_spill_room(struct drain *dr, size_t need)
{
	void *p;

	if (dr->merge_scratch == NULL) {
		dr->merge_scratch = malloc(SB_V1_MAXSZ);
		if (dr->merge_scratch == NULL)
			return -ENOMEM;
	}
	if (dr->spill_copy_size >= need)
		return 0;
	p = realloc(dr->spill_copy, need);
	if (p == NULL)
		return -ENOMEM;
	dr->spill_copy = p;
	dr->spill_copy_size = need;
	return 0;
}

/*
 * A hand-over record: the spill buffer it names copied out of the ring,
 * its entries merged and replayed in order (after those merged before a
 * restart, which the journal counted), and the buffer released.
 */
static void
drain_spill(struct ring *rg, const struct ring_rec *rec)
{
	struct drain *dr = rg->dr;
	size_t bufsize = (size_t)ring_consumer_ovf_size(rg->c) /
	    RING_OVF_NBUF, off = 0;
	uint64_t skip, budget, applied = 0, rejected = 0, nupd;
	struct ring_ovf_hdr h;
	struct ring_ovf_ent e;
	const uint8_t *pl;
	int r;

	if (drain_spill_room(dr, bufsize) < 0) {
		/* Left for the next pass: the record is taken again only
		 * after a restart, so count the buffer as refused. */
		drain_spill_refusal(rg, "a spill buffer", "out of memory");
		ring_consumer_ovf_release(rg->c, rec);
		return;
	}
	r = ring_consumer_ovf_copy(rg->c, rec, dr->spill_copy, bufsize, &h);
	if (r == -EALREADY || r == -ESTALE)
		return;		/* merged before a restart; stale */
	if (r < 0) {
		drain_spill_refusal(rg, "a spill buffer", "its head does not "
		    "fit the buffer");
		ring_consumer_ovf_release(rg->c, rec);
		return;
	}
	/* At most one update per nanosecond since the last hand-over. */
	budget = dr->now > rg->last_spill_ns ? dr->now - rg->last_spill_ns : 1;
	rg->last_spill_ns = dr->now;
	skip = journal_spill_begin(rg->journal, h.seq);
	while ((r = ring_ovf_next(dr->spill_copy, h.used, &off, &e,
	    &pl)) == 1) {
		if (e.type == RING_OVF_LOG) {
			drain_spill_log(rg, pl, e.len / RING_REC_SIZE, &skip,
			    &applied, &rejected);
			continue;
		}
		nupd = e.nupd < budget ? e.nupd : budget;
		budget -= nupd;
		if (skip > 0) {
			skip--;
			applied += nupd;
		} else if (drain_spill_blob(rg, &e, pl))
			applied += nupd;
		else
			rejected += nupd;
	}
	if (r < 0)
		drain_spill_refusal(rg, "the rest of a spill buffer",
		    "a malformed entry");
	rg->spill_applied = drain_sat_add(rg->spill_applied, applied);
	/* With the ring's own refusals: the producer learns of them. */
	ring_consumer_reject(rg->c, rejected);
	rg->spills++;
	ring_consumer_ovf_release(rg->c, rec);
}

unsigned
drain_apply(void *arg, const struct ring_rec *recs, unsigned n)
{
	struct ring *rg = arg;
	unsigned i = 0, j, refused = 0;

	if (rg->skip > 0) {
		/* Applied by the statsd that was killed mid-pass; the journal
		 * counted them at the start of this pass. */
		i = rg->skip < n ? (unsigned)rg->skip : n;
		rg->skip -= i;
	}
	for (; i < n; i = j) {
		if (recs[i].op == RING_OP_SPILL) {
			drain_spill(rg, &recs[i]);
			journal_ring_done(rg->journal, 1);
			j = i + 1;
			continue;
		}
		for (j = i + 1; j < n && recs[j].handle == recs[i].handle &&
		    recs[j].op != RING_OP_SPILL; j++)
			;
		refused += drain_run(rg, recs + i, j - i, false);
	}
	return refused;
}
