/*
 * op.h: the engine's operations — what one update record asks of one VOI —
 * and the single entry point every front end and the daemon's ring drain
 * use to apply them: engine_apply().
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

/* The current CLOCK_MONOTONIC time in ns. */
uint64_t engine_now_ns(void);

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

#endif /* STATSD_OP_H */
