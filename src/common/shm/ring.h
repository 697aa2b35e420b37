/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ring.h: the per-thread single-producer single-consumer update ring that
 * carries (X, Y) updates from an application thread to statsd, and its
 * shared-memory layout. One ring per producing thread is what lets a push be
 * plain stores plus one release store: no lock, no atomic read-modify-write,
 * no system call on the fast path.
 *
 * The daemon creates the ring (a sealed memfd plus an eventfd) and is its
 * consumer; the client maps it and is its producer. The daemon treats every
 * byte a client can write as hostile: it keeps its own copy of the geometry,
 * reads the producer index once per batch, bounds it, and validates each
 * record after copying it out.
 *
 * Layout of the memfd (all fields native-endian; `endian` tells which):
 *
 *   0    +--------------------------------------------------------------+
 *        | magic u64 "STDRING1"                                         |
 *        | abi_major u16 | abi_minor u16 | hdr_size u32                 |
 *        | compat u32    | incompat u32                                 |
 *        | endian u32    | rec_size u32 (32)                            |
 *        | cap_log2 u32  | reserved u32                                 |
 *        | birth u64 (CLOCK_REALTIME ns at creation)                    |
 *        | ovf_off u64   ovf_size u64     the overflow area (0: none)   |
 *        | ... padding to 128                   identity: written once  |
 *   128  +--------------------------------------------------------------+
 *        | head u64     producer index (records ever pushed)            |
 *        | dropped u64  updates the producer could not keep             |
 *        | wakeups u64  eventfd writes made by the producer             |
 *        | closed u32   producer is gone; drain what is left, then free |
 *        | spilled u64  updates put in spill buffers                    |
 *        | handovers u64  spill buffers handed over (records)           |
 *        | ... padding to 256                   written by the producer |
 *   256  +--------------------------------------------------------------+
 *        | tail u64     consumer index, published once per batch       |
 *        | ovf_done[2] u64  last hand-over merged, per spill buffer      |
 *        | rejected u64 updates statsd refused (before tail, each batch) |
 *        | ... padding to 384                   written by the consumer |
 *   384  +--------------------------------------------------------------+
 *        | sleeping u32 consumer is about to wait on the eventfd        |
 *        | ... padding to 512              set by consumer, cleared by  |
 *        |                                 the producer that wakes it   |
 *   512  +--------------------------------------------------------------+
 *        | rec[0] handle u32 | voi u16 | op u8 | flags u8 |             |
 *        |          x i64 | y i64 | time u64                  32 bytes  |
 *        | rec[1] ...                                                   |
 *        | rec[2^cap_log2 - 1]                                          |
 *   ovf_off (the next multiple of 4096) ----------------------------------+
 *        | spill buffer 0: ovf_size / 2 bytes                           |
 *        |   seq u64 | used u32 | nent u32 | nupd u64 | pad to 64       |
 *        |   entries, each 8-aligned:                                   |
 *        |     type u16 | flags u16 | len u32 | handle u32 | pad u32 |   |
 *        |     nupd u64 | then len bytes: a blob (BLOB) or records (LOG)|
 *        | spill buffer 1: the same                                     |
 *        +--------------------------------------------------------------+
 *
 * The producer and consumer lines are 128 bytes apart, not 64, because the
 * adjacent-line prefetcher pulls cache lines in pairs. Indices are free
 * running u64 counters; a record lives at rec[index & (capacity - 1)].
 *
 * The overflow area (RING_COMPAT_OVERFLOW) is where a producer keeps the
 * updates a full ring cannot take: two spill buffers, filled in turn by
 * the producer and each handed over with one ring record (op
 * RING_OP_SPILL, slot the buffer, x its hand-over number), so that statsd
 * merges it exactly where those updates belong in the ring's order.
 * statsd releases a buffer by storing the hand-over number in
 * ovf_done[buffer]; until then the producer leaves it alone. What a buffer
 * holds is engine business (spill.h): this layer only moves its bytes.
 *
 * Memory ordering:
 *   producer: write record; store-release head. Before overwriting a slot it
 *             has seen free via a load-acquire of tail. A spill buffer is
 *             written before the record that hands it over, so the
 *             release of head covers it too.
 *   consumer: load-acquire head; copy records; store-release tail. It
 *             copies a spill buffer out after the hand-over record, and
 *             store-releases ovf_done once it is merged; the producer
 *             load-acquires ovf_done before writing the buffer again.
 *   wakeup:   the consumer stores sleeping = 1, issues a full fence, then
 *             re-reads head; the producer, after its release of head, loads
 *             sleeping relaxed and, if set, exchanges it to 0 and writes the
 *             eventfd. The producer deliberately has no full fence (it would
 *             cost as much as the atomic add the ring exists to beat), so a
 *             wakeup can be lost in a narrow window; the consumer therefore
 *             always waits with a time-out (the daemon's periodic drain).
 */
#ifndef STATSD_COMMON_RING_H
#define STATSD_COMMON_RING_H

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "op.h"

#define RING_MAGIC		UINT64_C(0x31474e4952445453)	/* "STDRING1" */
#define RING_ABI_MAJOR		1
#define RING_ABI_MINOR		1
#define RING_ENDIAN		UINT32_C(0x01020304)
#define RING_HDR_SIZE		512u
#define RING_REC_SIZE		32u
#define RING_CAP_LOG2_MIN	2u
#define RING_CAP_LOG2_MAX	24u	/* 16 Mi records, 512 MiB */
#define RING_PREFETCH		16u	/* records ahead the producer prefetches */

/* Feature bits: a consumer or producer refuses a ring with an
 * incompatible bit it does not know, and ignores compatible ones. A
 * producer that does not know RING_COMPAT_OVERFLOW never spills. */
#define RING_COMPAT_OVERFLOW	0x1u	/* ovf_off/ovf_size: spill buffers */
#define RING_COMPAT_KNOWN	RING_COMPAT_OVERFLOW
#define RING_INCOMPAT_KNOWN	0u

/* The overflow area: two spill buffers of ovf_size / 2 bytes each. */
#define RING_OVF_NBUF		2u
#define RING_OVF_ALIGN		4096u
#define RING_OVF_MIN		(2u * RING_OVF_ALIGN)
#define RING_OVF_MAX		(UINT64_C(1) << 30)
#define RING_OVF_HDR_SIZE	64u
#define RING_OVF_ENT_SIZE	24u

/* The ring-only op of the record that hands a spill buffer over: slot is
 * the buffer (0 or 1), x its hand-over number (>= 1), everything else 0
 * but time. Never an engine op (op.h numbers those below 128). */
#define RING_OP_SPILL		0x80u

/* A spill buffer's head, then its entries (see the drawing above). */
struct ring_ovf_hdr {
	uint64_t seq;		/* hand-over number of what it holds */
	uint32_t used;		/* bytes of entries after this head */
	uint32_t nent;		/* entries */
	uint64_t nupd;		/* updates it holds */
	uint8_t pad[RING_OVF_HDR_SIZE - 24];
};

enum ring_ovf_type {
	RING_OVF_BLOB = 1,	/* a blob of kstat `handle`, updates folded in */
	RING_OVF_LOG = 2,	/* ring records, replayed in order */
};

struct ring_ovf_ent {
	uint16_t type;		/* enum ring_ovf_type */
	uint16_t flags;		/* 0 */
	uint32_t len;		/* bytes that follow: blob, or 32 per record */
	uint32_t handle;	/* BLOB: the kstat; LOG: 0 */
	uint32_t reserved;	/* 0 */
	uint64_t nupd;		/* updates: folded in (BLOB), records (LOG) */
};

_Static_assert(sizeof(struct ring_ovf_hdr) == RING_OVF_HDR_SIZE, "spill buffer head");
_Static_assert(sizeof(struct ring_ovf_ent) == RING_OVF_ENT_SIZE, "spill entry head");

/* One update as it sits in the ring. The layout is the wire format between
 * client and daemon, so it is fixed here and checked by static asserts. */
struct ring_rec {
	union {
		uint32_t handle;	/* the kstat's handle (KstatCreate's
					 * reply) */
		uint32_t ovf_buf;	/* RING_OP_SPILL: the overflow buffer
					 * handed over */
	};
	uint16_t voi;		/* VOI id within the kstat's template */
	uint8_t op;		/* enum stats_op */
	uint8_t flags;		/* RING_F_* allowed for op */
	int64_t x;		/* the value */
	int64_t y;		/* the weight, for the ops that take one */
	uint64_t time;		/* CLOCK_MONOTONIC ns; 0 = daemon stamps */
};

_Static_assert(sizeof(struct ring_rec) == RING_REC_SIZE, "ring record size");
_Static_assert(offsetof(struct ring_rec, x) == 8, "ring record layout");
_Static_assert(offsetof(struct ring_rec, time) == 24, "ring record layout");

/*
 * A record's op byte and flags are the engine's operations (op.h): the
 * numbering is part of the ring ABI, and the table in ring.c (allowed
 * flags, what Y may hold) is what the validator and ring_op_to_string()
 * use.
 */

struct ring_hdr {
	uint64_t magic;
	uint16_t abi_major;
	uint16_t abi_minor;
	uint32_t hdr_size;
	uint32_t compat;
	uint32_t incompat;
	uint32_t endian;
	uint32_t rec_size;
	uint32_t cap_log2;
	uint32_t reserved0;
	uint64_t birth;
	uint64_t ovf_off;
	uint64_t ovf_size;
	uint8_t pad0[128 - 64];

	_Atomic uint64_t head;
	_Atomic uint64_t dropped;
	_Atomic uint64_t wakeups;
	_Atomic uint32_t closed;
	uint32_t reserved1;
	_Atomic uint64_t spilled;
	_Atomic uint64_t handovers;
	uint8_t pad1[128 - 48];

	_Atomic uint64_t tail;
	_Atomic uint64_t ovf_done[RING_OVF_NBUF];
	_Atomic uint64_t rejected;
	uint8_t pad2[128 - 32];

	_Atomic uint32_t sleeping;
	uint8_t pad3[128 - 4];
};

_Static_assert(sizeof(struct ring_hdr) == RING_HDR_SIZE, "ring header size");
_Static_assert(offsetof(struct ring_hdr, head) == 128, "ring producer line");
_Static_assert(offsetof(struct ring_hdr, tail) == 256, "ring consumer line");
_Static_assert(offsetof(struct ring_hdr, sleeping) == 384, "ring wake line");
_Static_assert(offsetof(struct ring_hdr, ovf_off) == 48, "ring identity line");
_Static_assert(offsetof(struct ring_hdr, spilled) == 160, "ring producer line");
_Static_assert(offsetof(struct ring_hdr, ovf_done) == 264, "ring consumer line");
_Static_assert(offsetof(struct ring_hdr, rejected) == 280, "ring consumer line");
_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "u64 atomics must be lock-free in shared memory");

/*
 * Check a record's op, flags and Y against the op table (and a hand-over
 * record, RING_OP_SPILL, against its own rule). Slot and VOI are not
 * checked: only the daemon knows what the producer owns.
 * Returns: 0 if valid; -EBADMSG otherwise.
 */
int ring_rec_check(const struct ring_rec *rec);

/*
 * The name of an op ("abs", "xy", ...).
 * Returns: a static string; NULL for an op outside the table.
 */
const char *ring_op_to_string(unsigned op);

/* ---------------------------------------------------------------- producer */

/*
 * The producer's private view of a ring. Public only so that the push fast
 * path can be inlined; callers treat it as opaque. `head` is the producer's
 * own copy of its index (it never re-reads it from shared memory) and
 * `tail_cache` the consumer index as last seen, re-read only when the ring
 * looks full.
 */
struct ring_producer {
	struct ring_hdr *hdr;
	struct ring_rec *recs;
	uint64_t head;
	uint64_t tail_cache;
	uint64_t mask;
	uint64_t dropped;
	uint64_t wakeups;
	size_t map_size;
	int efd;
	/* Set while updates go to the spill buffers rather than the ring:
	 * whoever clears it (store-release) has published every record it
	 * pushed, so the fast path loads it acquire. */
	_Atomic int divert;
	uint8_t *ovf;		/* the overflow area, or NULL */
	size_t ovf_buf;		/* bytes per spill buffer */
};

/*
 * Client side: map a ring received from the daemon. `fd` is the ring's memfd
 * and `efd` its eventfd; neither is taken over (both may be closed after the
 * call; efd is duplicated). The header is validated: magic, ABI major,
 * incompatible features, sizes, and that the memfd is sealed and large enough.
 * Returns: 0 and *ret; -EPROTONOSUPPORT for another ABI major or unknown
 * incompatible features; -EBADMSG for a malformed header or size; -EPERM if
 * the memfd is not sealed; -ENOMEM; -errno from fstat, mmap or fcntl.
 */
int ring_map(int fd, int efd, struct ring_producer **ret);

/*
 * Mark the ring closed (the daemon frees it once drained), unmap it, close
 * the eventfd, and unbind it if it is the calling thread's current ring.
 * NULL-safe. Returns: NULL.
 */
struct ring_producer *ring_producer_free(struct ring_producer *p);

/* Are updates going to the spill buffers (the fast path must not push)? */
static inline int
ring_producer_diverted(const struct ring_producer *p)
{
	return atomic_load_explicit(&p->divert, memory_order_acquire);
}

/*
 * Spill buffer i (0 or 1) of the overflow area: its address and size.
 * Returns: 0; -ENOENT if the ring has no overflow area.
 */
int ring_producer_ovf(const struct ring_producer *p, unsigned i,
    void **ret_buf, size_t *ret_size);

/* The hand-over number statsd last released buffer i with (acquire: the
 * buffer may be written once this says so). */
uint64_t ring_producer_ovf_done(const struct ring_producer *p, unsigned i);

/*
 * Hand spill buffer i, filled and numbered seq in its head, to statsd:
 * one RING_OP_SPILL record. Never counts a drop.
 * Returns: 0; -ENOSPC if the ring is full (try again later).
 */
int ring_push_handover(struct ring_producer *p, unsigned i, uint64_t seq,
    uint64_t time_ns);

/* Count n updates put in spill buffers (mirrored in the header for the
 * daemon's information). */
void ring_producer_spilled(struct ring_producer *p, uint64_t n);

/* Producer-side counters, kept in the producer's memory (and mirrored in the
 * header for the daemon). */
static inline uint64_t ring_producer_dropped(const struct ring_producer *p) { return p->dropped; }
static inline uint64_t ring_producer_wakeups(const struct ring_producer *p) { return p->wakeups; }

/* Slow paths of the inline push; not for direct use. */
void ring_producer_wake(struct ring_producer *p);
void ring_producer_drop(struct ring_producer *p, uint64_t n);

/* The slot for the next record, or NULL if the ring is full even after
 * re-reading the consumer index. A bogus tail (ahead of head) reads as full. */
static inline struct ring_rec *
ring_producer_next(struct ring_producer *p)
{
	uint64_t h = p->head;

	if (h - p->tail_cache > p->mask) {
		p->tail_cache = atomic_load_explicit(&p->hdr->tail, memory_order_acquire);
		if (h - p->tail_cache > p->mask)
			return NULL;
	}
	/* Ask for write ownership of a line some records ahead: the
	 * consumer has read it on the last lap, so it must be fetched back
	 * from the consumer's cache, and starting early hides that trip. */
	__builtin_prefetch(&p->recs[(h + RING_PREFETCH) & p->mask], 1, 3);
	return &p->recs[h & p->mask];
}

/* Free slots, re-reading the consumer index. A bogus tail (ahead of head)
 * reads as a full ring. */
static inline uint64_t
ring_producer_room(struct ring_producer *p)
{
	uint64_t used;

	p->tail_cache = atomic_load_explicit(&p->hdr->tail, memory_order_acquire);
	used = p->head - p->tail_cache;
	return used > p->mask ? 0 : p->mask + 1 - used;
}

/* Publish records written since the last publish, and wake the consumer if
 * it said it was going to sleep. */
static inline void
ring_producer_publish(struct ring_producer *p, uint64_t head)
{
	p->head = head;
	atomic_store_explicit(&p->hdr->head, head, memory_order_release);
	if (atomic_load_explicit(&p->hdr->sleeping, memory_order_relaxed) != 0)
		ring_producer_wake(p);
}

/*
 * Push one update. Never blocks, never makes a system call unless the
 * consumer is asleep. The record is not validated here: the daemon does it.
 * Returns: 0 if queued; -ENOSPC if the ring was full (the update is dropped
 * and counted in the producer's drop counter).
 */
/* Fill the record ring_producer_next() gave (every field, once). */
static inline void
ring_rec_set(struct ring_rec *r, uint32_t handle, uint16_t voi, uint8_t op,
    uint8_t flags, int64_t x, int64_t y, uint64_t time_ns)
{
	r->handle = handle;
	r->voi = voi;
	r->op = op;
	r->flags = flags;
	r->x = x;
	r->y = y;
	r->time = time_ns;
}

static inline int
ring_push(struct ring_producer *p, uint32_t handle, uint16_t voi, uint8_t op,
    uint8_t flags, int64_t x, int64_t y, uint64_t time_ns)
{
	struct ring_rec *r = ring_producer_next(p);

	if (r == NULL) {
		ring_producer_drop(p, 1);
		return -ENOSPC;
	}
	ring_rec_set(r, handle, voi, op, flags, x, y, time_ns);
	ring_producer_publish(p, p->head + 1);
	return 0;
}

/* Push one record built by the caller. Same contract as ring_push(). */
static inline int
ring_push_rec(struct ring_producer *p, const struct ring_rec *rec)
{
	struct ring_rec *r = ring_producer_next(p);

	if (r == NULL) {
		ring_producer_drop(p, 1);
		return -ENOSPC;
	}
	*r = *rec;
	ring_producer_publish(p, p->head + 1);
	return 0;
}

/*
 * Push up to n records with one publish and at most one wakeup. Records that
 * do not fit are dropped and counted.
 * Returns: the number of records queued (0..n).
 */
size_t ring_push_batch(struct ring_producer *p, const struct ring_rec *recs, size_t n);

/*
 * The calling thread's ring. The client library binds a ring on a thread's
 * first update and unbinds it at thread exit and in the child after fork()
 * (two producers on one ring would corrupt it). Initial-exec TLS keeps the
 * lookup a single %fs-relative load even inside libstatsclient.so.
 */
extern _Thread_local struct ring_producer *ring_tls_current
    __attribute__((tls_model("initial-exec")));

/* Returns: the calling thread's ring, or NULL if none is bound. */
static inline struct ring_producer *
ring_producer_current(void)
{
	return ring_tls_current;
}

/* Bind p (or NULL) as the calling thread's ring. Returns: the previous one. */
struct ring_producer *ring_producer_bind(struct ring_producer *p);

/* ---------------------------------------------------------------- consumer */

struct ring_consumer;

struct ring_consumer_stats {
	uint64_t applied;	/* records the apply callback accepted */
	uint64_t rejected;	/* records failing ring_rec_check or refused */
	uint64_t dropped;	/* the producer's drop counter, as reported */
	uint64_t wakeups;	/* the producer's wakeup counter, as reported */
	uint64_t sleeps;	/* times the consumer armed the sleeping flag */
	uint64_t spilled;	/* the producer's spill counter, as reported */
	uint64_t handovers;	/* hand-over records taken */
	int broken;		/* the producer index went out of bounds */
	int closed;		/* the producer said it is gone */
};

/*
 * Daemon side: create a ring of 2^cap_log2 records: a sealed memfd, mapped
 * read-write, and a non-blocking eventfd. Both fds stay owned by the ring;
 * send them to the client with SCM_RIGHTS.
 * Returns: 0 and *ret; -EINVAL if cap_log2 is outside
 * [RING_CAP_LOG2_MIN, RING_CAP_LOG2_MAX]; -ENOMEM; -errno from memfd_create,
 * ftruncate, fcntl, mmap or eventfd.
 */
int ring_create(unsigned cap_log2, struct ring_consumer **ret);

/*
 * As ring_create(), with an overflow area of ovf_size bytes (0: none;
 * else a multiple of 2 * RING_OVF_ALIGN in [RING_OVF_MIN, RING_OVF_MAX])
 * after the records. The memfd is sparse: only pages written cost memory.
 * Returns: as ring_create(); -EINVAL for a bad ovf_size.
 */
int ring_create_ovf(unsigned cap_log2, uint64_t ovf_size,
    struct ring_consumer **ret);

/* The bytes of the ring's memfd, and of its overflow area (0: none). */
uint64_t ring_consumer_size(const struct ring_consumer *c);
uint64_t ring_consumer_ovf_size(const struct ring_consumer *c);

/*
 * Daemon side, after a restart: adopt an existing ring (from the runtime
 * directory) and resume at the consumer index it holds. Takes over fd and
 * efd on success only. The header is validated as in ring_map(); an index
 * already out of bounds marks the ring broken rather than failing.
 * Returns: as ring_map().
 */
int ring_consumer_attach(int fd, int efd, struct ring_consumer **ret);

/* Unmap and close both fds. NULL-safe. Returns: NULL. */
struct ring_consumer *ring_consumer_free(struct ring_consumer *c);

/* Returns: the ring's memfd / eventfd (owned by the ring). */
int ring_consumer_fd(const struct ring_consumer *c);
int ring_consumer_efd(const struct ring_consumer *c);

/*
 * Called for each record that passed ring_rec_check(), with a private copy
 * whose time is already stamped. The daemon checks slot, VOI and ownership
 * and applies the update.
 * Returns: 0 if applied; negative if refused (counted as rejected).
 */
typedef int ring_apply_fn(void *arg, const struct ring_rec *rec);

/*
 * Consume up to max records (0: all that are there), calling apply for each
 * valid one, then publish the consumer index once. Records with time 0 get
 * `now`. The producer index is read once; if it is behind what was seen
 * before or more than a capacity ahead of the consumer index, the ring is
 * marked broken and nothing more is read from it, ever.
 * Returns: the number of records consumed (applied or rejected), >= 0;
 * -EPIPE if the ring is broken.
 */
int ring_drain(struct ring_consumer *c, unsigned max, uint64_t now,
    ring_apply_fn *apply, void *arg);

/*
 * Called with runs of up to RING_DRAIN_CHUNK records that passed
 * ring_rec_check(), copied out of the ring and stamped, in ring order.
 * Returns: how many of them were refused (counted as rejected; the rest
 * as applied).
 */
#define RING_DRAIN_CHUNK	256u
typedef unsigned ring_apply_batch_fn(void *arg, const struct ring_rec *recs,
    unsigned n);

/*
 * As ring_drain(), but hand the valid records over in arrays, so that the
 * consumer can apply a run of records for one kstat as one batch.
 * Returns: as ring_drain().
 */
int ring_drain_batch(struct ring_consumer *c, unsigned max, uint64_t now,
    ring_apply_batch_fn *apply, void *arg);

/*
 * As ring_drain(), but copy up to max valid records into out[] instead of
 * calling back; invalid ones are counted as rejected and skipped, valid ones
 * counted as applied. Slot and VOI are left for the caller to check.
 * Returns: the number of records written to out (0..max); -EPIPE if broken.
 */
int ring_pop(struct ring_consumer *c, struct ring_rec *out, unsigned max,
    uint64_t now);

/*
 * How many records are waiting, reading the producer index once and
 * bounding it as ring_drain() does. Lets a consumer that is caught up wait
 * for a batch to build instead of reading the cache lines the producer is
 * still writing.
 * Returns: the count (0..capacity); -EPIPE if the ring is (now) broken.
 */
int64_t ring_consumer_pending(struct ring_consumer *c);

/*
 * The first half of going to sleep: set the sleeping flag, fence, and look
 * for records once more. After 0, wait on the eventfd (with a time-out, as a
 * wakeup can be lost) and then call ring_consumer_sleep_done().
 * Returns: 0 if the ring is empty and the flag is armed; -EAGAIN if records
 * arrived (the flag is cleared again); -EPIPE if broken.
 */
int ring_consumer_sleep_prepare(struct ring_consumer *c);

/* Clear the sleeping flag and the eventfd counter after a wait. */
void ring_consumer_sleep_done(struct ring_consumer *c);

/*
 * Prepare, poll the eventfd for at most timeout_ms, and finish, for
 * consumers without an event loop (tests, benchmarks).
 * Returns: 0 after a wakeup or the time-out (drain next either way);
 * -EPIPE if broken; -errno from poll.
 */
int ring_consumer_wait(struct ring_consumer *c, int timeout_ms);

/*
 * The spill buffer a hand-over record (RING_OP_SPILL, already checked by
 * ring_rec_check) names, copied out of the shared mapping into buf (at
 * least the buffer's size, ring_consumer_ovf_size() / 2): its head in
 * *ret_hdr and its used bytes of entries in buf. Everything is read once;
 * the copy is what the caller parses (ring_ovf_next()), so a producer
 * that keeps writing the buffer spoils only what it handed over.
 * Returns: 0; -EALREADY if this hand-over was merged already (statsd
 * restarted after releasing it); -ESTALE if the buffer holds another
 * hand-over now; -EBADMSG for a head that does not fit the buffer;
 * -ENOENT if the ring has no overflow area; -ENOBUFS if buf is too small.
 */
int ring_consumer_ovf_copy(struct ring_consumer *c, const struct ring_rec *rec,
    void *buf, size_t bufsize, struct ring_ovf_hdr *ret_hdr);

/*
 * Count n updates refused that came through a spill buffer (the ring's own
 * refusals are counted by ring_drain()). The ring's count of refusals is
 * written into its header before each publication of the consumer
 * index, so that a producer that sees its records consumed also sees
 * which of them were refused (libstatsclient counts them as dropped).
 */
void ring_consumer_reject(struct ring_consumer *c, uint64_t n);

/* Release the buffer of hand-over rec: the producer may fill it again. */
void ring_consumer_ovf_release(struct ring_consumer *c,
    const struct ring_rec *rec);

/*
 * The entry at *off of a spill buffer's entries (a private copy of len
 * bytes), checked: a known type, flags and reserved 0, its payload inside
 * the copy, a LOG's length a whole number of records. *off moves past it.
 * Returns: 1 and *ret_ent, *ret_payload; 0 at the end; -EBADMSG for a
 * malformed entry (the rest of the buffer is not read).
 */
int ring_ovf_next(const uint8_t *buf, size_t len, size_t *off,
    struct ring_ovf_ent *ret_ent, const uint8_t **ret_payload);

/* Returns: 1 if the producer closed the ring and it is empty (or broken), so
 * the daemon can free it; 0 otherwise. */
int ring_consumer_done(struct ring_consumer *c);

/* Fill *ret with the counters. */
void ring_consumer_stats(struct ring_consumer *c, struct ring_consumer_stats *ret);

/* Returns: the number of records in the ring as capacity (2^cap_log2). */
uint64_t ring_consumer_capacity(const struct ring_consumer *c);

/*
 * The raw shared mapping as a producer sees it, for tests and fuzzers that
 * play a hostile producer. *ret_size gets its length.
 * Returns: the mapping's address.
 */
void *ring_consumer_mem(struct ring_consumer *c, size_t *ret_size);

#endif
