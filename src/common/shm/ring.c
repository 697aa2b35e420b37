/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ring.c: the update ring — creation and adoption by the daemon, mapping by
 * the client, the producer's slow paths, and the consumer, which reads
 * everything a client wrote as hostile input. Layout and ordering rules are
 * in ring.h.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ring.h"
#include "shm.h"

enum ring_yrule {
	RING_Y_ZERO,		/* Y unused: must be 0 */
	RING_Y_WEIGHT,		/* Y is a weight: >= 0 (or any u64) */
};

struct ring_op_info {
	const char *name;
	uint8_t flags;		/* RING_F_* this op accepts */
	uint8_t yrule;
};

/* The one definition of what each op may carry. */
static const struct ring_op_info ring_ops[STATS_OP_NUM] = {
	[STATS_OP_ABS]    = { "abs",    STATS_OPF_UNSIGNED, RING_Y_ZERO },
	[STATS_OP_REL]    = { "rel",    STATS_OPF_UNSIGNED, RING_Y_ZERO },
	[STATS_OP_XY]     = { "xy",     STATS_OPF_UNSIGNED, RING_Y_WEIGHT },
	[STATS_OP_QENTER] = { "qenter", STATS_OPF_RUNQ,     RING_Y_ZERO },
	[STATS_OP_QEXIT]  = { "qexit",  STATS_OPF_RUNQ,     RING_Y_ZERO },
	[STATS_OP_QMOVE]  = { "qmove",  STATS_OPF_RUNQ,     RING_Y_ZERO },
	[STATS_OP_TSTART] = { "tstart", 0,               RING_Y_ZERO },
	[STATS_OP_TSTOP]  = { "tstop",  0,               RING_Y_ZERO },
	[STATS_OP_SET]    = { "set",    STATS_OPF_UNSIGNED, RING_Y_ZERO },
	[STATS_OP_HIST]   = { "hist",   STATS_OPF_UNSIGNED, RING_Y_WEIGHT },
};

_Thread_local struct ring_producer *ring_tls_current
    __attribute__((tls_model("initial-exec")));

struct ring_consumer {
	struct ring_hdr *hdr;
	const struct ring_rec *recs;
	size_t map_size;
	/* Geometry and indices are the consumer's own: never re-read from the
	 * mapping, which the producer can scribble on. */
	uint64_t cap;
	uint64_t mask;
	uint64_t tail;
	uint64_t head_seen;
	uint64_t applied;
	uint64_t rejected;
	uint64_t dropped;
	uint64_t wakeups;
	uint64_t sleeps;
	uint64_t spilled;
	uint64_t handovers;
	uint64_t rejected_base;	/* the ring's refusals before it came here */
	uint64_t ovf_off;	/* the overflow area, from the header once */
	uint64_t ovf_size;
	int broken;
	int fd;
	int efd;
};

/* Inline for the consumer's loop, where a call per record shows. */
static inline int
ring_rec_valid(const struct ring_rec *rec)
{
	const struct ring_op_info *oi;

	if (rec->op == RING_OP_SPILL)
		return rec->ovf_buf < RING_OVF_NBUF && rec->voi == 0 &&
		    rec->flags == 0 && rec->x > 0 && rec->y == 0 ? 0 : -EBADMSG;
	if (rec->op == STATS_OP_INVALID || rec->op >= STATS_OP_NUM)
		return -EBADMSG;
	oi = &ring_ops[rec->op];
	if ((rec->flags & ~oi->flags) != 0)
		return -EBADMSG;
	switch (oi->yrule) {
	case RING_Y_ZERO:
		if (rec->y != 0)
			return -EBADMSG;
		break;
	case RING_Y_WEIGHT:
		if (rec->y < 0 && (rec->flags & STATS_OPF_UNSIGNED) == 0)
			return -EBADMSG;
		break;
	}
	return 0;
}

int
ring_rec_check(const struct ring_rec *rec)
{
	return ring_rec_valid(rec);
}

const char *
ring_op_to_string(unsigned op)
{
	if (op == RING_OP_SPILL)
		return "spill";
	if (op == STATS_OP_INVALID || op >= STATS_OP_NUM)
		return NULL;
	return ring_ops[op].name;
}

/* Where the overflow area starts: after the records, on a page. */
static uint64_t
ring_ovf_off(unsigned log2)
{
	uint64_t end = RING_HDR_SIZE + ((uint64_t)RING_REC_SIZE << log2);

	return (end + RING_OVF_ALIGN - 1) / RING_OVF_ALIGN * RING_OVF_ALIGN;
}

/* Validate a header against the size of the memfd it sits in. Works on a
 * private copy so that a peer cannot change a field between check and use. */
static int
ring_hdr_check(const struct ring_hdr *h, size_t size, unsigned *ret_log2)
{
	uint64_t need;

	if (h->magic != RING_MAGIC || h->endian != RING_ENDIAN)
		return -EBADMSG;
	if (h->abi_major != RING_ABI_MAJOR ||
	    (h->incompat & ~RING_INCOMPAT_KNOWN) != 0)
		return -EPROTONOSUPPORT;
	if (h->hdr_size != RING_HDR_SIZE || h->rec_size != RING_REC_SIZE)
		return -EBADMSG;
	if (h->cap_log2 < RING_CAP_LOG2_MIN || h->cap_log2 > RING_CAP_LOG2_MAX)
		return -EBADMSG;
	need = RING_HDR_SIZE + ((uint64_t)RING_REC_SIZE << h->cap_log2);
	if (need > size)
		return -EBADMSG;
	if (h->compat & RING_COMPAT_OVERFLOW) {
		if (h->ovf_off != ring_ovf_off(h->cap_log2) ||
		    h->ovf_size < RING_OVF_MIN || h->ovf_size > RING_OVF_MAX ||
		    h->ovf_size % (RING_OVF_NBUF * RING_OVF_ALIGN) != 0 ||
		    h->ovf_off + h->ovf_size > size)
			return -EBADMSG;
	}
	*ret_log2 = h->cap_log2;
	return 0;
}

/* Map fd and check its header; the common part of ring_map() and
 * ring_consumer_attach(). */
static int
ring_open_map(int fd, void **ret_addr, size_t *ret_size, unsigned *ret_log2,
    struct ring_hdr *ret_copy)
{
	struct ring_hdr copy;
	size_t size;
	void *addr;
	int r;

	r = shm_fd_check(fd, &size);
	if (r < 0)
		return r;
	if (size < RING_HDR_SIZE)
		return -EBADMSG;
	r = shm_map(fd, size, 1, &addr);
	if (r < 0)
		return r;
	memcpy(&copy, addr, sizeof(copy));
	r = ring_hdr_check(&copy, size, ret_log2);
	if (r < 0) {
		munmap(addr, size);
		return r;
	}
	if (!(copy.compat & RING_COMPAT_OVERFLOW))
		copy.ovf_off = copy.ovf_size = 0;
	*ret_copy = copy;
	*ret_addr = addr;
	*ret_size = size;
	return 0;
}

/* ---------------------------------------------------------------- producer */

int
ring_map(int fd, int efd, struct ring_producer **ret)
{
	struct ring_producer *p;
	struct ring_hdr copy;
	unsigned log2;
	size_t size;
	void *addr;
	int r;

	r = ring_open_map(fd, &addr, &size, &log2, &copy);
	if (r < 0)
		return r;
	p = calloc(1, sizeof(*p));
	if (p == NULL) {
		r = -ENOMEM;
		goto fail;
	}
	p->efd = -1;
	if (efd >= 0) {
		p->efd = fcntl(efd, F_DUPFD_CLOEXEC, 3);
		if (p->efd < 0) {
			r = -errno;
			goto fail;
		}
	}
	p->hdr = addr;
	p->recs = (struct ring_rec *)((char *)addr + RING_HDR_SIZE);
	p->map_size = size;
	p->mask = (UINT64_C(1) << log2) - 1;
	if (copy.ovf_size > 0) {
		p->ovf = (uint8_t *)addr + copy.ovf_off;
		p->ovf_buf = (size_t)copy.ovf_size / RING_OVF_NBUF;
	}
	/* Resume where a previous producer of this ring stopped. */
	p->head = atomic_load_explicit(&p->hdr->head, memory_order_relaxed);
	p->tail_cache = atomic_load_explicit(&p->hdr->tail, memory_order_acquire);
	p->dropped = atomic_load_explicit(&p->hdr->dropped, memory_order_relaxed);
	p->wakeups = atomic_load_explicit(&p->hdr->wakeups, memory_order_relaxed);
	atomic_store_explicit(&p->hdr->closed, 0, memory_order_relaxed);
	*ret = p;
	return 0;
fail:
	free(p);
	munmap(addr, size);
	return r;
}

struct ring_producer *
ring_producer_free(struct ring_producer *p)
{
	if (p == NULL)
		return NULL;
	if (ring_tls_current == p)
		ring_tls_current = NULL;
	/* Release: the daemon that sees closed also sees every record. */
	atomic_store_explicit(&p->hdr->closed, 1, memory_order_release);
	ring_producer_wake(p);
	munmap(p->hdr, p->map_size);
	if (p->efd >= 0)
		close(p->efd);
	free(p);
	return NULL;
}

void
ring_producer_wake(struct ring_producer *p)
{
	uint64_t one = 1;

	/* Only one producer write per sleep: whoever clears the flag wakes.
	 * This exchange is the one read-modify-write in the producer and it
	 * runs only when the consumer is asleep. */
	if (atomic_exchange_explicit(&p->hdr->sleeping, 0, memory_order_relaxed) == 0)
		return;
	if (p->efd >= 0 && write(p->efd, &one, sizeof(one)) == sizeof(one)) {
		p->wakeups++;
		atomic_store_explicit(&p->hdr->wakeups, p->wakeups, memory_order_relaxed);
	}
}

void
ring_producer_drop(struct ring_producer *p, uint64_t n)
{
	/* The producer is the only writer of this counter, so a plain add
	 * and a store do; no read-modify-write on shared memory. */
	p->dropped += n;
	atomic_store_explicit(&p->hdr->dropped, p->dropped, memory_order_relaxed);
}

int
ring_producer_ovf(const struct ring_producer *p, unsigned i, void **ret_buf,
    size_t *ret_size)
{
	if (p->ovf == NULL || i >= RING_OVF_NBUF)
		return -ENOENT;
	*ret_buf = p->ovf + (size_t)i * p->ovf_buf;
	*ret_size = p->ovf_buf;
	return 0;
}

uint64_t
ring_producer_ovf_done(const struct ring_producer *p, unsigned i)
{
	return atomic_load_explicit(&p->hdr->ovf_done[i % RING_OVF_NBUF],
	    memory_order_acquire);
}

int
ring_push_handover(struct ring_producer *p, unsigned i, uint64_t seq,
    uint64_t time_ns)
{
	struct ring_rec *r = ring_producer_next(p);

	if (r == NULL)
		return -ENOSPC;
	r->ovf_buf = i;
	r->voi = 0;
	r->op = RING_OP_SPILL;
	r->flags = 0;
	r->x = (int64_t)seq;
	r->y = 0;
	r->time = time_ns;
	atomic_store_explicit(&p->hdr->handovers, atomic_load_explicit(
	    &p->hdr->handovers, memory_order_relaxed) + 1,
	    memory_order_relaxed);
	ring_producer_publish(p, p->head + 1);
	return 0;
}

void
ring_producer_spilled(struct ring_producer *p, uint64_t n)
{
	/* The producer is the only writer: no read-modify-write. */
	atomic_store_explicit(&p->hdr->spilled, atomic_load_explicit(
	    &p->hdr->spilled, memory_order_relaxed) + n, memory_order_relaxed);
}

size_t
ring_push_batch(struct ring_producer *p, const struct ring_rec *recs, size_t n)
{
	uint64_t h = p->head, room, idx;
	size_t take, first;

	if (n == 0)
		return 0;
	room = p->mask + 1 - (h - p->tail_cache);
	if (h - p->tail_cache > p->mask || room < n) {
		p->tail_cache = atomic_load_explicit(&p->hdr->tail, memory_order_acquire);
		room = h - p->tail_cache > p->mask ? 0 :
		    p->mask + 1 - (h - p->tail_cache);
	}
	take = room < n ? (size_t)room : n;
	idx = h & p->mask;
	first = (size_t)(p->mask + 1 - idx);
	if (first > take)
		first = take;
	memcpy(&p->recs[idx], recs, first * sizeof(*recs));
	memcpy(&p->recs[0], recs + first, (take - first) * sizeof(*recs));
	if (take < n)
		ring_producer_drop(p, n - take);
	if (take > 0)
		ring_producer_publish(p, h + take);
	return take;
}

struct ring_producer *
ring_producer_bind(struct ring_producer *p)
{
	struct ring_producer *old = ring_tls_current;

	ring_tls_current = p;
	return old;
}

/* ---------------------------------------------------------------- consumer */

static struct ring_consumer *
ring_consumer_new(void *addr, size_t size, unsigned log2, int fd, int efd)
{
	struct ring_consumer *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->hdr = addr;
	c->recs = (const struct ring_rec *)((char *)addr + RING_HDR_SIZE);
	c->map_size = size;
	c->cap = UINT64_C(1) << log2;
	c->mask = c->cap - 1;
	c->fd = fd;
	c->efd = efd;
	return c;
}

int
ring_create(unsigned cap_log2, struct ring_consumer **ret)
{
	return ring_create_ovf(cap_log2, 0, ret);
}

int
ring_create_ovf(unsigned cap_log2, uint64_t ovf_size,
    struct ring_consumer **ret)
{
	struct ring_consumer *c;
	struct ring_hdr *h;
	size_t size;
	void *addr;
	int fd, efd, r;

	if (cap_log2 < RING_CAP_LOG2_MIN || cap_log2 > RING_CAP_LOG2_MAX)
		return -EINVAL;
	if (ovf_size != 0 && (ovf_size < RING_OVF_MIN ||
	    ovf_size > RING_OVF_MAX ||
	    ovf_size % (RING_OVF_NBUF * RING_OVF_ALIGN) != 0))
		return -EINVAL;
	size = RING_HDR_SIZE + ((size_t)RING_REC_SIZE << cap_log2);
	if (ovf_size != 0)
		size = (size_t)(ring_ovf_off(cap_log2) + ovf_size);
	r = shm_memfd_new("statsd-ring", size, &fd);
	if (r < 0)
		return r;
	r = shm_map(fd, size, 1, &addr);
	if (r < 0) {
		close(fd);
		return r;
	}
	efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (efd < 0) {
		r = -errno;
		goto fail;
	}
	h = addr;
	h->abi_major = RING_ABI_MAJOR;
	h->abi_minor = RING_ABI_MINOR;
	h->hdr_size = RING_HDR_SIZE;
	h->compat = 0;
	h->incompat = 0;
	h->endian = RING_ENDIAN;
	h->rec_size = RING_REC_SIZE;
	h->cap_log2 = cap_log2;
	h->birth = shm_birth_stamp();
	if (ovf_size != 0) {
		h->compat |= RING_COMPAT_OVERFLOW;
		h->ovf_off = ring_ovf_off(cap_log2);
		h->ovf_size = ovf_size;
	}
	/* Magic last: a header with the magic is a complete header. The
	 * client gets the fd only after this returns, so no fence is needed. */
	h->magic = RING_MAGIC;
	c = ring_consumer_new(addr, size, cap_log2, fd, efd);
	if (c == NULL) {
		r = -ENOMEM;
		close(efd);
		goto fail;
	}
	c->ovf_off = h->ovf_off;
	c->ovf_size = h->ovf_size;
	*ret = c;
	return 0;
fail:
	munmap(addr, size);
	close(fd);
	return r;
}

int
ring_consumer_attach(int fd, int efd, struct ring_consumer **ret)
{
	struct ring_consumer *c;
	struct ring_hdr copy;
	unsigned log2;
	uint64_t head;
	size_t size;
	void *addr;
	int r;

	r = ring_open_map(fd, &addr, &size, &log2, &copy);
	if (r < 0)
		return r;
	c = ring_consumer_new(addr, size, log2, fd, efd);
	if (c == NULL) {
		munmap(addr, size);
		return -ENOMEM;
	}
	/* Like the capacity: taken from the header once, and kept. */
	c->ovf_off = copy.ovf_off;
	c->ovf_size = copy.ovf_size;
	/* The consumer index is the one thing taken from the mapping, once:
	 * it is where the previous daemon stopped. */
	c->tail = atomic_load_explicit(&c->hdr->tail, memory_order_relaxed);
	c->head_seen = c->tail;
	/* What an earlier consumer refused stays the producer's count; it
	 * is not this consumer's, so its own stays 0. */
	c->rejected_base = atomic_load_explicit(&c->hdr->rejected,
	    memory_order_relaxed);
	head = atomic_load_explicit(&c->hdr->head, memory_order_acquire);
	if (head - c->tail > c->cap)
		c->broken = 1;
	*ret = c;
	return 0;
}

struct ring_consumer *
ring_consumer_free(struct ring_consumer *c)
{
	if (c == NULL)
		return NULL;
	munmap(c->hdr, c->map_size);
	if (c->fd >= 0)
		close(c->fd);
	if (c->efd >= 0)
		close(c->efd);
	free(c);
	return NULL;
}

int
ring_consumer_fd(const struct ring_consumer *c)
{
	return c->fd;
}

int
ring_consumer_efd(const struct ring_consumer *c)
{
	return c->efd;
}

uint64_t
ring_consumer_capacity(const struct ring_consumer *c)
{
	return c->cap;
}

uint64_t
ring_consumer_size(const struct ring_consumer *c)
{
	return c->map_size;
}

uint64_t
ring_consumer_ovf_size(const struct ring_consumer *c)
{
	return c->ovf_size;
}

/* Read the producer index once and bound it.
 * Returns: the number of records available (<= cap); -EPIPE if broken. */
static int64_t
ring_consumer_avail(struct ring_consumer *c)
{
	uint64_t head;

	if (c->broken)
		return -EPIPE;
	head = atomic_load_explicit(&c->hdr->head, memory_order_acquire);
	if (head < c->head_seen || head - c->tail > c->cap) {
		c->broken = 1;
		return -EPIPE;
	}
	c->head_seen = head;
	return (int64_t)(head - c->tail);
}

/* The records a drain of at most max (0: no bound) takes, in *n.
 * Returns: 0; -EPIPE if the ring is broken. */
static int
ring_consumer_window(struct ring_consumer *c, unsigned max, uint64_t *n)
{
	int64_t avail = ring_consumer_avail(c);

	if (avail < 0)
		return (int)avail;
	*n = max != 0 && avail > (int64_t)max ? max : (uint64_t)avail;
	return 0;
}

int64_t
ring_consumer_pending(struct ring_consumer *c)
{
	return ring_consumer_avail(c);
}

static void
ring_consumer_publish(struct ring_consumer *c, uint64_t n)
{
	c->tail += n;
	/* The refusals first: the tail's release covers them. */
	atomic_store_explicit(&c->hdr->rejected, c->rejected_base +
	    c->rejected, memory_order_relaxed);
	atomic_store_explicit(&c->hdr->tail, c->tail, memory_order_release);
}

void
ring_consumer_reject(struct ring_consumer *c, uint64_t n)
{
	c->rejected += n;
}

/* Copy record i out of the ring and check it. The copy is what gets used,
 * so the producer cannot change a field after it has been checked. */
static inline int
ring_consumer_take(struct ring_consumer *c, uint64_t i, uint64_t now,
    struct ring_rec *out)
{
	memcpy(out, &c->recs[i & c->mask], sizeof(*out));
	if (ring_rec_valid(out) < 0 ||
	    (out->op == RING_OP_SPILL && c->ovf_size == 0)) {
		c->rejected++;
		return -EBADMSG;
	}
	if (out->time == 0)
		out->time = now;
	return 0;
}

int
ring_drain_batch(struct ring_consumer *c, unsigned max, uint64_t now,
    ring_apply_batch_fn *apply, void *arg)
{
	struct ring_rec buf[RING_DRAIN_CHUNK];
	uint64_t i, n = 0;
	int r;

	if ((r = ring_consumer_window(c, max, &n)) < 0)
		return r;
	for (i = 0; i < n;) {
		uint64_t end = i + RING_DRAIN_CHUNK < n ? i + RING_DRAIN_CHUNK : n;
		unsigned k = 0, refused;

		unsigned spills = 0;

		for (; i < end; i++)
			if (ring_consumer_take(c, c->tail + i, now, &buf[k]) == 0)
				spills += buf[k++].op == RING_OP_SPILL;
		if (k == 0)
			continue;
		/* Hand-overs are not updates: counted on their own. */
		refused = apply(arg, buf, k);
		if (refused > k - spills)
			refused = k - spills;
		c->handovers += spills;
		c->applied += k - spills - refused;
		c->rejected += refused;
	}
	if (n > 0)
		ring_consumer_publish(c, n);
	return (int)n;
}

/*
 * Its own loop rather than ring_drain_batch() with a callback per record:
 * copying every record into a chunk buffer first and calling back through
 * a second indirection costs about 60 % more per record (bench_ring,
 * "consumer drain+apply").
 */
int
ring_drain(struct ring_consumer *c, unsigned max, uint64_t now,
    ring_apply_fn *apply, void *arg)
{
	struct ring_rec rec;
	uint64_t i, n = 0;
	int r;

	if ((r = ring_consumer_window(c, max, &n)) < 0)
		return r;
	for (i = 0; i < n; i++) {
		if (ring_consumer_take(c, c->tail + i, now, &rec) < 0)
			continue;
		/* Hand-overs are not updates: counted on their own. */
		if (rec.op == RING_OP_SPILL) {
			(void)apply(arg, &rec);
			c->handovers++;
		} else if (apply(arg, &rec) < 0)
			c->rejected++;
		else
			c->applied++;
	}
	if (n > 0)
		ring_consumer_publish(c, n);
	return (int)n;
}

int
ring_pop(struct ring_consumer *c, struct ring_rec *out, unsigned max,
    uint64_t now)
{
	int64_t avail;
	uint64_t i, n;
	unsigned k = 0;

	avail = ring_consumer_avail(c);
	if (avail < 0)
		return (int)avail;
	n = (uint64_t)avail;
	/* Stop once max valid records are out; invalid ones consumed on the
	 * way are not retried. */
	for (i = 0; i < n && k < max; i++) {
		if (ring_consumer_take(c, c->tail + i, now, &out[k]) == 0)
			k++;
	}
	c->applied += k;
	if (i > 0)
		ring_consumer_publish(c, i);
	return (int)k;
}

int
ring_consumer_sleep_prepare(struct ring_consumer *c)
{
	uint64_t head;

	if (c->broken)
		return -EPIPE;
	/* Store-load ordering: the flag must be visible before head is read
	 * again, or a producer that missed the flag could also be missed. A
	 * seq_cst exchange gives the full barrier (and, unlike a fence, is
	 * understood by GCC's ThreadSanitizer). */
	atomic_exchange_explicit(&c->hdr->sleeping, 1, memory_order_seq_cst);
	head = atomic_load_explicit(&c->hdr->head, memory_order_seq_cst);
	if (head != c->tail) {
		atomic_store_explicit(&c->hdr->sleeping, 0, memory_order_relaxed);
		return -EAGAIN;
	}
	c->sleeps++;
	return 0;
}

void
ring_consumer_sleep_done(struct ring_consumer *c)
{
	uint64_t v;

	atomic_store_explicit(&c->hdr->sleeping, 0, memory_order_relaxed);
	/* Non-blocking: EAGAIN just means nobody wrote. */
	if (read(c->efd, &v, sizeof(v)) < 0)
		return;
}

int
ring_consumer_wait(struct ring_consumer *c, int timeout_ms)
{
	struct pollfd pfd = { .fd = c->efd, .events = POLLIN };
	int r;

	r = ring_consumer_sleep_prepare(c);
	if (r == -EAGAIN)
		return 0;
	if (r < 0)
		return r;
	r = poll(&pfd, 1, timeout_ms);
	if (r < 0)
		r = -errno;
	else
		r = 0;
	ring_consumer_sleep_done(c);
	return r;
}

int
ring_consumer_ovf_copy(struct ring_consumer *c, const struct ring_rec *rec,
    void *buf, size_t bufsize, struct ring_ovf_hdr *ret_hdr)
{
	const uint8_t *b;
	uint64_t bsize = c->ovf_size / RING_OVF_NBUF, done;
	struct ring_ovf_hdr h;

	if (c->ovf_size == 0 || rec->ovf_buf >= RING_OVF_NBUF)
		return -ENOENT;
	if (bufsize < bsize)
		return -ENOBUFS;
	/* statsd is the only writer of ovf_done: a producer that winds it
	 * back only makes statsd merge its own buffer twice. */
	done = atomic_load_explicit(&c->hdr->ovf_done[rec->ovf_buf],
	    memory_order_relaxed);
	if (done == (uint64_t)rec->x)
		return -EALREADY;
	b = (const uint8_t *)c->hdr + c->ovf_off + rec->ovf_buf * bsize;
	memcpy(&h, b, sizeof(h));
	if (h.seq != (uint64_t)rec->x)
		return -ESTALE;
	if (h.used > bsize - RING_OVF_HDR_SIZE)
		return -EBADMSG;
	memcpy(buf, b + RING_OVF_HDR_SIZE, h.used);
	*ret_hdr = h;
	return 0;
}

void
ring_consumer_ovf_release(struct ring_consumer *c, const struct ring_rec *rec)
{
	if (c->ovf_size == 0 || rec->ovf_buf >= RING_OVF_NBUF)
		return;
	atomic_store_explicit(&c->hdr->ovf_done[rec->ovf_buf], (uint64_t)rec->x,
	    memory_order_release);
}

int
ring_ovf_next(const uint8_t *buf, size_t len, size_t *off,
    struct ring_ovf_ent *ret_ent, const uint8_t **ret_payload)
{
	struct ring_ovf_ent e;
	size_t o = *off;

	if (o >= len)
		return 0;
	if (o % 8 != 0 || len - o < sizeof(e))
		return -EBADMSG;
	memcpy(&e, buf + o, sizeof(e));
	o += sizeof(e);
	if ((e.type != RING_OVF_BLOB && e.type != RING_OVF_LOG) ||
	    e.flags != 0 || e.reserved != 0 || e.len > len - o ||
	    (e.type == RING_OVF_LOG && (e.len % RING_REC_SIZE != 0 ||
	    e.handle != 0)))
		return -EBADMSG;
	*ret_ent = e;
	*ret_payload = buf + o;
	o += e.len;
	*off = (o + 7) & ~(size_t)7;
	if (*off > len)
		*off = len;
	return 1;
}

int
ring_consumer_done(struct ring_consumer *c)
{
	uint64_t head;

	if (c->broken)
		return 1;
	if (atomic_load_explicit(&c->hdr->closed, memory_order_acquire) == 0)
		return 0;
	head = atomic_load_explicit(&c->hdr->head, memory_order_acquire);
	return head == c->tail;
}

void
ring_consumer_stats(struct ring_consumer *c, struct ring_consumer_stats *ret)
{
	uint64_t v;

	/* Producer-reported counters only ever go up; a producer that winds
	 * them back is ignored rather than believed. */
	v = atomic_load_explicit(&c->hdr->dropped, memory_order_relaxed);
	if (v > c->dropped)
		c->dropped = v;
	v = atomic_load_explicit(&c->hdr->wakeups, memory_order_relaxed);
	if (v > c->wakeups)
		c->wakeups = v;
	ret->applied = c->applied;
	ret->rejected = c->rejected;
	ret->dropped = c->dropped;
	ret->wakeups = c->wakeups;
	ret->sleeps = c->sleeps;
	v = atomic_load_explicit(&c->hdr->spilled, memory_order_relaxed);
	if (v > c->spilled)
		c->spilled = v;
	ret->spilled = c->spilled;
	ret->handovers = c->handovers;
	ret->broken = c->broken;
	ret->closed = atomic_load_explicit(&c->hdr->closed, memory_order_relaxed) != 0;
}

void *
ring_consumer_mem(struct ring_consumer *c, size_t *ret_size)
{
	*ret_size = c->map_size;
	return c->hdr;
}
