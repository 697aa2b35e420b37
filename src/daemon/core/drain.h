/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * drain.h: the update rings — creating and adopting them, draining them
 * into the kstats' blobs, and statsd's own kstat (statsd:0:daemon).
 *
 * A ring is drained when its eventfd says a producer woke the daemon (at
 * PRIO_DRAIN, ahead of control traffic), and by a periodic tick, while
 * rings exist, that catches wakeups the lock-free protocol may lose. Each
 * pass takes at most
 * drain_batch records from a ring; what is left is taken by a backlog
 * pass that runs at control priority, one batch per ring per loop turn,
 * so that a flood of updates never stops control calls from being served.
 *
 * Every record is checked: its handle must name an active kstat the
 * ring's owner owns (or the owner is privileged), and the engine must
 * accept its VOI, op and value; anything else is counted as rejected.
 * A ring lives as long as the connection that attached it: when that
 * closes, the ring is drained one last time and freed.
 */
#ifndef STATSD_DAEMON_DRAIN_H
#define STATSD_DAEMON_DRAIN_H

#include <stdbool.h>
#include <stdint.h>

struct statsd;
struct drain;
struct conn;
struct quota_refusal;

struct drain_stats {
	uint64_t	applied;	/* updates applied, rings gone included */
	uint64_t	rejected;	/* records refused */
	uint64_t	dropped;	/* drops the producers reported */
	uint64_t	wakeups;	/* eventfd wakeups the producers sent */
	uint64_t	passes;		/* drain passes that took records */
	uint64_t	errors;		/* rings found broken */
	uint64_t	spilled;	/* updates merged from spill buffers
					   (in applied too) */
	uint64_t	spills;		/* spill buffers merged */
	uint64_t	ovf_bytes;	/* overflow areas of the rings */
	uint64_t	ovf_used;	/* bytes their buffers hold now */
	uint64_t	busy_ns;	/* CPU time of passes that took records */
	unsigned	rings;
};

/* Create statsd's own kstat and start the tick. Returns: 0; -errno. */
int drain_new(struct statsd *d, struct drain **ret);

/* Drain every ring one last time and free them. NULL-safe. */
struct drain *drain_free(struct drain *dr);

/*
 * drain_after_turn: after each turn of the event loop. The tick runs only
 * while rings exist: this starts it when the turn attached one, and
 * writes the self kstat when the turn changed what it shows (a client, a
 * datagram, a scrape), at most once a drain_interval_ms (a change within
 * it arms the tick once). An idle statsd wakes for nothing.
 */
void drain_after_turn(struct drain *dr);

/* A reloaded configuration: new tick period and limits. */
void drain_reload(struct drain *dr);

void drain_stats(const struct drain *dr, struct drain_stats *ret);

/* Rings attached now (dr NULL: 0): drain_stats()' rings, in O(1). */
unsigned drain_rings(const struct drain *dr);

/*
 * drain_ring_new: a new ring of 2^cap_log2 records for c's owner, with an
 * overflow area of ovf_size bytes (0: none), charged to its quotas.
 * *ret_fd and *ret_efd are new descriptors (the caller sends and closes
 * them).
 * Returns: 0 and the ring's id; -EDQUOT (*why names the limit); -errno.
 */
int drain_ring_new(struct drain *dr, struct conn *c, unsigned cap_log2,
    uint64_t ovf_size, uint32_t *ret_id, int *ret_fd, int *ret_efd,
    struct quota_refusal *why);

/*
 * drain_ring_adopt: resume draining a ring a client kept across a
 * restart of statsd (or across its own reconnection): its memfd fd and
 * eventfd efd (taken over, closed on failure). A ring is adopted once,
 * only by the user it was made for, and only while no ring of this
 * statsd is that ring.
 * Returns: 0, the ring's id, its capacity, the records waiting and the
 * bytes of its overflow area;
 * -EDQUOT (*why names the limit); -EPERM if fd is not a sealed memfd;
 * -EBADF if efd is not an eventfd; -EFBIG past ring_max_capacity_log2 or
 * ring_max_overflow_size; -EBUSY if the ring is attached already;
 * -ENOENT if statsd did not make it for the caller (or has no journal to
 * tell); -EBADMSG or -EPROTONOSUPPORT for a bad ring header.
 */
int drain_ring_adopt(struct drain *dr, struct conn *c, int fd, int efd,
    uint32_t *ret_id, uint64_t *ret_capacity, uint64_t *ret_pending,
    uint64_t *ret_ovf, struct quota_refusal *why);

/* Drain every ring completely now (before a checkpoint, at exit). */
void drain_all(struct drain *dr);

/* Drain the rings attached on connection c completely now: the updates
 * its producers pushed before it asked for what comes next (a kstat laid
 * out again) are applied first. */
void drain_conn(struct drain *dr, struct conn *c);

#endif
