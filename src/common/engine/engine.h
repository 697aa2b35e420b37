/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * engine.h: the engine's entry points: engine_apply(), the single path
 * every front end and the daemon's ring drain use to apply an operation of
 * op.h to a blob, the string setter beside it, the engine's clock, and the
 * hook through which libstatsclient takes the updates of published blobs.
 */
#ifndef STATSD_ENGINE_H
#define STATSD_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <statsd/stats.h>

#include "clock.h"
#include "op.h"

/*
 * engine_apply: apply one operation to VOI voi of blob sb. x is read in the
 * VOI's type: as a signed value, or with STATS_OPF_UNSIGNED as an unsigned
 * one (a fixed-point VOI takes its raw fixed-point bits); a value the type
 * cannot hold is refused. ABS, REL, QENTER, QEXIT, QMOVE, TSTART, TSTOP and
 * SET take y = 0; XY and HIST take a weight y ≥ 0, and a weight of 0 changes
 * nothing. time_ns 0 means now. Each statistic of the VOI that the op
 * concerns is updated; a statistic's failure is counted in its errs.
 * Returns: 0; -EINVAL for a bad blob, VOI, op, flag, value or y;
 * -EOPNOTSUPP if no statistic of the VOI takes this op; otherwise the
 * negated errno of the last statistic that failed (ERANGE for a queue
 * exit from an empty queue, for instance).
 */
int engine_apply(struct statsblob *sb, uint16_t voi, uint8_t op,
    uint8_t flags, int64_t x, int64_t y, uint64_t time_ns);

/*
 * A VOI's statistics looked up once, for many updates of it: the runs of
 * engine_apply_batch(), a producer's spill blob. When every statistic of
 * the VOI is a plain integer SUM, COUNT, MIN, MAX or LAST in the VOI's
 * own type (nearly every counter of a kstat) and no definition gates it,
 * the plan is fast: ABS and XY records are applied without the kind
 * table. The plan points into the blob: it is good until the blob moves
 * or is re-laid. The fields are the engine's.
 */
struct engine_plan {
	int32_t			 voi;	/* -1: none */
	bool			 fast;
	bool			 wide;	/* 8-byte values (else 4) */
	bool			 sgn;
	bool			 q;	/* fixed point: sums refuse overflow */
	uint64_t		 one;	/* COUNT's unit */
	struct voistatdata_numeric *state; /* VOISTATE, or NULL */
	unsigned		 n;
	struct engine_plan_stat {
		uint8_t		 kind;
		struct voistat	*vs;
		void		*data;
	}			 st[5];
};

/* Make pl for VOI voi of sb (pl->fast says whether it is fast). */
void engine_plan_make(struct engine_plan *pl, struct statsblob *sb,
    uint16_t voi);

/*
 * engine_plan_apply: apply one record (ring.h's layout) to sb, through pl
 * if it is a fast plan for the record's VOI and the op is ABS or XY, else
 * through engine_apply().
 * Returns: as engine_apply().
 */
struct ring_rec;
int engine_plan_apply(const struct engine_plan *pl, struct statsblob *sb,
    const struct ring_rec *rec);

/*
 * engine_apply_batch: apply n update records (ring.h's layout; their
 * kstat slot is the caller's business: all are for sb) in order, with the
 * same checks and results as engine_apply() called on each, but with the
 * VOI's statistics looked up once per run of records for one VOI, and the
 * plain integer counters (SUM, COUNT, MIN, MAX, LAST) updated without the
 * kind table. This is the daemon's drain.
 * Returns: how many records engine_apply() would have refused (-EINVAL or
 * -EOPNOTSUPP); the others reached the blob.
 */
size_t engine_apply_batch(struct statsblob *sb, const struct ring_rec *recs,
    size_t n);

/*
 * engine_set_string: set the STRING value (a kstat CHAR or STRING named
 * value) of VOI voi to the len bytes at s.
 * Returns: 0; -EINVAL for a bad blob or VOI, or a VOI without a string
 * value; -E2BIG if len does not fit the value's capacity.
 */
int engine_set_string(struct statsblob *sb, uint16_t voi, const char *s,
    size_t len);

/*
 * Blobs that live elsewhere. libstatsclient shows the daemon's copy of a
 * published blob to its application through a read-only mapping inside one
 * address range; stats_voi_update_xy() on such a blob must not write it but
 * hand the update to the library, which sends it over its ring. The check
 * is one compare of the blob's address against the range (no lock, no
 * system call); src/common knows nothing else of what fn does.
 *
 * engine_remote_set: route updates of blobs inside [base, base + len) to
 * fn, whose return value stats_voi_update_xy() returns. Call it once,
 * before any blob in the range is handed out; len 0 turns routing off.
 */
typedef int engine_remote_fn(struct statsblob *sb, int32_t voi_id,
    enum vsd_dtype voi_dtype, const struct voistatdata_numeric *voival,
    uint64_t y, uint32_t flags);
void engine_remote_set(const void *base, size_t len, engine_remote_fn *fn);

#endif /* STATSD_ENGINE_H */
