/*
 * drain.h: the update rings — creating and adopting them, draining them
 * into the kstats' blobs, and statsd's own kstat (statsd:0:daemon).
 *
 * A ring is drained when its eventfd says a producer woke the daemon (at
 * PRIO_DRAIN, ahead of control traffic), and by a periodic tick that
 * catches wakeups the lock-free protocol may lose. Each pass takes at most
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

struct drain_stats {
	uint64_t	applied;	/* records applied, rings gone included */
	uint64_t	rejected;	/* records refused */
	uint64_t	dropped;	/* drops the producers reported */
	uint64_t	wakeups;	/* eventfd wakeups the producers sent */
	uint64_t	passes;		/* drain passes that took records */
	uint64_t	errors;		/* rings found broken */
	unsigned	rings;
};

/* Start the tick and create statsd's own kstat. Returns: 0; -errno. */
int drain_new(struct statsd *d, struct drain **ret);

/* Drain every ring one last time and free them. NULL-safe. */
struct drain *drain_free(struct drain *dr);

/* A reloaded configuration: new tick period and limits. */
void drain_reload(struct drain *dr);

void drain_stats(const struct drain *dr, struct drain_stats *ret);

/*
 * drain_ring_new: a new ring of 2^cap_log2 records for c's owner.
 * *ret_fd and *ret_efd are new descriptors (the caller sends and closes
 * them).
 * Returns: 0 and the ring's id; -EMFILE past max_rings or
 * max_rings_per_uid (*ret_limit names which); -errno.
 */
int drain_ring_new(struct drain *dr, struct conn *c, unsigned cap_log2,
    uint32_t *ret_id, int *ret_fd, int *ret_efd, const char **ret_limit);

/*
 * drain_ring_adopt: resume draining a ring a client kept across a
 * restart of statsd: its memfd fd and eventfd efd (taken over, closed on
 * failure).
 * Returns: 0, the ring's id, its capacity and the records waiting;
 * -EMFILE (limits, as above); -EPERM if fd is not a sealed memfd;
 * -EBADF if efd is not an eventfd; -EFBIG past ring_max_capacity_log2;
 * -EBADMSG or -EPROTONOSUPPORT for a bad ring header.
 */
int drain_ring_adopt(struct drain *dr, struct conn *c, int fd, int efd,
    uint32_t *ret_id, uint64_t *ret_capacity, uint64_t *ret_pending,
    const char **ret_limit);

/* The connection is closing: drain its rings a last time, free them. */
void drain_conn_closed(struct drain *dr, struct conn *c);

/* Drain every ring completely now (before a checkpoint, at exit). */
void drain_all(struct drain *dr);

#endif
