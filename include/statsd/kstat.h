/*
 * kstat.h: the illumos kstat and Solaris kstat2 data definitions (seeds 001
 * and 002) as statsd stores them: kstat types, named data types, flags,
 * and the INTR, IO and TIMER records with the seed's field names.
 *
 * This part of the header is shared by the engine and its front ends; the
 * provider and libkstat consumer calls are added by the client library.
 * Values are illumos's wherever illumos defines one, so that code written
 * against <kstat.h> keeps its meaning; statsd's additions (the HIST and BLOB
 * kstat types, KSTAT_FLAG_PRIV) take values illumos leaves unused.
 */
#ifndef STATSD_KSTAT_H
#define STATSD_KSTAT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int64_t		hrtime_t;	/* nanoseconds, CLOCK_MONOTONIC */
typedef int		kid_t;		/* unique kstat id */

/* 30 characters and a NUL, for module, name, class and statistic names. */
#define KSTAT_STRLEN	31

/* ks_type. RAW to TIMER are illumos's; HIST and BLOB are statsd's. */
#define KSTAT_TYPE_RAW		0	/* can be anything */
#define KSTAT_TYPE_NAMED	1	/* name/value pairs */
#define KSTAT_TYPE_INTR		2	/* interrupt statistics */
#define KSTAT_TYPE_IO		3	/* I/O statistics */
#define KSTAT_TYPE_TIMER	4	/* event timers */
#define KSTAT_TYPE_HIST		5	/* a kstat2 histogram */
#define KSTAT_TYPE_BLOB		6	/* a stats(3) blob or a Linux interface */
#define KSTAT_NUM_TYPES		7

/* kstat_named_t data types (illumos values). */
#define KSTAT_DATA_CHAR		0
#define KSTAT_DATA_INT32	1
#define KSTAT_DATA_UINT32	2
#define KSTAT_DATA_INT64	3
#define KSTAT_DATA_UINT64	4
#define KSTAT_DATA_STRING	9
/* LP64 user code: LONG is INT64 and ULONG UINT64; the rest are obsolete. */
#define KSTAT_DATA_LONG		KSTAT_DATA_INT64
#define KSTAT_DATA_ULONG	KSTAT_DATA_UINT64
#define KSTAT_DATA_LONGLONG	KSTAT_DATA_INT64
#define KSTAT_DATA_ULONGLONG	KSTAT_DATA_UINT64

/* ks_flags. illumos's bits, plus PRIV (kstat2's KSTAT2_MF_PRIV). */
#define KSTAT_FLAG_VIRTUAL	0x01	/* accepted, no meaning in statsd */
#define KSTAT_FLAG_VAR_SIZE	0x02	/* accepted, no meaning in statsd */
#define KSTAT_FLAG_WRITABLE	0x04	/* its owner or an admin may write it */
#define KSTAT_FLAG_PERSISTENT	0x08	/* delete makes it dormant */
#define KSTAT_FLAG_DORMANT	0x10	/* set by statsd: deleted, persistent */
#define KSTAT_FLAG_INVALID	0x20	/* set by statsd: created, not installed */
#define KSTAT_FLAG_LONGSTRINGS	0x40	/* set by statsd: has STRING values */
#define KSTAT_FLAG_PRIV		0x100	/* private segment, privileged peers */

/* kstat_intr_t indices. */
#define KSTAT_INTR_HARD		0
#define KSTAT_INTR_SOFT		1
#define KSTAT_INTR_WATCHDOG	2
#define KSTAT_INTR_SPURIOUS	3
#define KSTAT_INTR_MULTSVC	4
#define KSTAT_NUM_INTRS		5

typedef struct kstat_intr {
	unsigned int	intrs[KSTAT_NUM_INTRS];	/* interrupt counters */
} kstat_intr_t;

/*
 * I/O statistics. The times change only through the queue events (enter,
 * exit and the two moves), which keep Riemann sums: wlentime is the
 * integral of the wait queue's length over time, wtime the time it was
 * non-empty; the r fields are the same for the run queue. Times are ns.
 */
typedef struct kstat_io {
	uint64_t	nread;		/* number of bytes read */
	uint64_t	nwritten;	/* number of bytes written */
	unsigned int	reads;		/* number of read operations */
	unsigned int	writes;		/* number of write operations */
	hrtime_t	wtime;		/* cumulative wait (pre-service) time */
	hrtime_t	wlentime;	/* cumulative wait length*time product */
	hrtime_t	wlastupdate;	/* last time wait queue changed */
	hrtime_t	rtime;		/* cumulative run (service) time */
	hrtime_t	rlentime;	/* cumulative run length*time product */
	hrtime_t	rlastupdate;	/* last time run queue changed */
	unsigned int	wcnt;		/* count of elements in wait state */
	unsigned int	rcnt;		/* count of elements in run state */
} kstat_io_t;

typedef struct kstat_timer {
	char		name[KSTAT_STRLEN];	/* event name */
	unsigned char	resv;			/* reserved */
	uint64_t	num_events;		/* number of events */
	hrtime_t	elapsed_time;		/* cumulative elapsed time */
	hrtime_t	min_time;		/* shortest event duration */
	hrtime_t	max_time;		/* longest event duration */
	hrtime_t	start_time;		/* previous event start time */
	hrtime_t	stop_time;		/* previous event stop time */
} kstat_timer_t;

/*
 * kstat2 content types of values (KSTAT2_NVMT_*), recorded in a kstat's
 * header with its scale. Values are those of Solaris 11.4's libkstat2.
 */
enum kstat2_nv_metatype {
	KSTAT2_NVMT_UNK = 0,
	KSTAT2_NVMT_ID,
	KSTAT2_NVMT_CNT,
	KSTAT2_NVMT_T_EPOCH,
	KSTAT2_NVMT_T_REL,
	KSTAT2_NVMT_T_ACC,
	KSTAT2_NVMT_PCT,
	KSTAT2_NVMT_ADDR,
	KSTAT2_NVMT_TEMP_C,
	KSTAT2_NVMT_RPM,
	KSTAT2_NVMT_VOLT,
	KSTAT2_NVMT_WATT,
	KSTAT2_NVMT_CURR,
	KSTAT2_NVMT_BYTES,
	KSTAT2_NVMT_BITS,
	KSTAT2_NVMT_STATE,
	KSTAT2_NVMT_FREQ,
	KSTAT2_NVMT_FLAGS,
	KSTAT2_NVMT_JOULE,
	KSTAT2_NVMT_NUM
};

#ifdef __cplusplus
}
#endif

#endif /* STATSD_KSTAT_H */
