/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * op.h: the engine's operations — what one update record asks of one VOI —
 * as the statistic kinds see them. engine.h has the one entry point that
 * applies them, engine_apply().
 *
 * The numbering is also the ring record's op byte (ring.h carries these
 * values as they are), so a drained record is applied without translation:
 * it is part of the ring ABI and never renumbered.
 */
#ifndef STATSD_OP_H
#define STATSD_OP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <statsd/stats.h>

enum stats_op {
	STATS_OP_INVALID = 0,
	STATS_OP_ABS = 1,	/* (X, 1) */
	STATS_OP_REL = 2,	/* (previous + X, 1); the VOI keeps VOISTATE */
	STATS_OP_XY = 3,	/* (X, Y) */
	STATS_OP_QENTER = 4,	/* wait queue enter; STATS_OPF_RUNQ: run queue */
	STATS_OP_QEXIT = 5,	/* wait queue exit; STATS_OPF_RUNQ: run queue */
	STATS_OP_QMOVE = 6,	/* wait -> run; STATS_OPF_RUNQ: run -> wait */
	STATS_OP_TSTART = 7,	/* timer start */
	STATS_OP_TSTOP = 8,	/* timer stop */
	STATS_OP_SET = 9,	/* named value (LAST, SUM) := X */
	STATS_OP_HIST = 10,	/* histograms only: bucket of X += Y */
	STATS_OP_NUM
};

#define STATS_OPF_UNSIGNED	0x01u	/* X and Y are u64 bit patterns */
#define STATS_OPF_RUNQ		0x02u	/* queue ops: the run queue */
#define STATS_OPF_KNOWN		0x03u

/* The ops that carry an (X, Y) update for every ordinary statistic. */
static inline bool
engine_op_is_xy(unsigned op)
{
	return op == STATS_OP_ABS || op == STATS_OP_REL || op == STATS_OP_XY;
}

/*
 * One operation as the statistic kinds see it: x already converted to the
 * VOI's type (and made absolute for REL), y ≥ 1 for the (X, Y) ops, and
 * time in CLOCK_MONOTONIC ns (never 0 by the time a kind's event hook runs).
 */
struct stats_event {
	uint8_t				op;	/* enum stats_op */
	uint8_t				flags;	/* STATS_OPF_* */
	struct voistatdata_numeric	x;
	int64_t				xs64;	/* x sign- or zero-extended */
	uint64_t			y;
	uint64_t			time;
};

/* Largest event time accepted: hrtime_t is signed. */
#define STATS_TIME_MAX	((uint64_t)INT64_MAX)

#endif /* STATSD_OP_H */
