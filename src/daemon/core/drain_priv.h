/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * drain_priv.h: the drain's own state, shared by its two files: drain.c
 * (rings, passes, wakeups, attaching) and drain_apply.c (what a drained
 * record does to the kstats).
 */
#ifndef STATSD_DAEMON_DRAIN_PRIV_H
#define STATSD_DAEMON_DRAIN_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "drain.h"
#include "rights.h"
#include "ring.h"

struct conn;
struct event;
struct journal_ring;
struct reg_kstat;
struct statsd;

struct ring {
	struct drain		*dr;
	struct ring		*prev, *next;
	struct conn		*conn;
	struct peer		 peer;		/* the attaching peer (a copy:
						 * the connection holds its
						 * zone reference) */
	uint32_t		 id;
	struct ring_consumer	*c;
	struct event		*ev;
	bool			 backlog;	/* records left after a batch */
	bool			 lingering;	/* polled, not waiting for wakeups */
	unsigned		 quiet;		/* polls that found it empty */
	bool			 broken_logged;
	bool			 spill_logged;	/* a refusal was logged */
	struct journal_ring	*journal;	/* progress of the pass */
	uint64_t		 skip;		/* applied before a restart */
	uint64_t		 birth;		/* its header's, when attached */
	uint64_t		 bytes;		/* QUOTA_RING_BYTES charged */
	uint64_t		 last_spill_ns;	/* creation or last hand-over */
	uint64_t		 spill_applied;	/* updates merged from spills */
	uint64_t		 spills;	/* hand-overs merged */
};

struct drain {
	struct statsd		*d;
	struct ring		*rings;
	unsigned		 nrings;
	uint32_t		 next_id;
	struct event		*ev_tick;
	struct event		*ev_pump;
	bool			 pump_armed;
	struct event		*ev_poll;	/* on poll_fd */
	int			 poll_fd;	/* timerfd: microseconds */
	bool			 poll_armed;
	unsigned		 rr;		/* where the next pass starts */
	uint64_t		 passes;
	uint64_t		 errors;
	uint64_t		 busy_ns;	/* CPU time of passes that took
						   records */
	struct drain_stats	 gone;		/* of rings already freed */
	struct reg_kstat	*self;
	/* The self kstat's values as last written (idle: compared with
	 * now's, after each loop turn, to know whether to tick). */
	uint64_t		*self_last;
	uint16_t		 self_n;
	uint64_t		 self_at;	/* when last written */
	uint64_t		 tick_passes;	/* passes at the last tick */
	unsigned		 tick_quiet;	/* ticks since one took any */
	uint64_t		 now;		/* the current pass's time */
	/* Private copies of spill buffers, and room to merge a blob in. */
	uint8_t			*spill_copy;
	size_t			 spill_copy_size;
	void			*merge_scratch;
};

/*
 * drain_apply: ring_drain_batch()'s callback for ring arg: runs of
 * updates for one kstat applied as one batch, spill hand-overs merged.
 * Returns: how many updates were refused.
 */
unsigned drain_apply(void *arg, const struct ring_rec *recs, unsigned n);

/* a + b, held at INT64_MAX: a counter statsd shows (as a JSON integer)
 * that peers feed cannot wrap or turn negative. */
static inline uint64_t
drain_sat_add(uint64_t a, uint64_t b)
{
	return a > INT64_MAX - (b > INT64_MAX ? INT64_MAX : b) ? INT64_MAX :
	    a + b;
}

#endif
