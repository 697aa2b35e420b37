/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * producer.c: the update rings of this process. A thread gets a ring on its
 * first update (a RingAttach over the socket, or an idle ring a finished
 * thread left), keeps it bound in thread-local storage, and gives it back
 * when it exits. Flush waits on the consumer index statsd publishes in each
 * ring; the counters behind stats_client_dropped() and _pushed() are read
 * from the rings' headers.
 *
 * Every ring stays in the list until the client closes, so that a flush
 * sees records a finished thread left behind, and a ring is handed back to
 * a restarted statsd whatever thread it belonged to.
 *
 * A full ring's updates go to its spill buffers (spill.h), which the
 * producing thread hands over itself as soon as the ring has room; the
 * watcher does it for a thread that stopped updating, and a flush for
 * what was pending when it began. The three take turns under the ring's
 * spill lock, which only the slow path takes.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "client_priv.h"
#include "numeric.h"

static pthread_key_t cl_key;
static _Thread_local struct cl_ring *cl_tls_ring;
static _Thread_local uint64_t cl_tls_retry;

static void
cl_spill_lock(struct cl_ring *r)
{
	unsigned n = 0;

	/* Held for a hand-over or one spilled update: a few hundred
	 * nanoseconds, unless its holder was preempted. */
	while (atomic_exchange_explicit(&r->spill_lock, 1,
	    memory_order_acquire) != 0)
		if (++n % 64 == 0)
			sched_yield();
}

static void
cl_spill_unlock(struct cl_ring *r)
{
	atomic_store_explicit(&r->spill_lock, 0, memory_order_release);
}

/* Wake statsd's consumer of r: harmless if it is awake. */
static void
cl_ring_poke(const struct cl_ring *r)
{
	uint64_t one = 1;

	(void)!write(r->efd, &one, sizeof(one));
}

/* Before a ring is closed: hand its spill buffers over, waiting (a
 * little) for statsd to make room in the ring. */
static void
cl_ring_spill_out(struct cl_ring *r)
{
	struct timespec ts = { 0, 1000000 };
	int i, left = 0;

	if (r->sp == NULL || r->dead)
		return;
	for (i = 0; i < 1000; i++) {
		cl_spill_lock(r);
		left = spill_handover(r->sp, true);
		cl_spill_unlock(r);
		if (left == 0)
			return;
		cl_ring_poke(r);
		nanosleep(&ts, NULL);
	}
}

static void
cl_ring_free(struct cl_ring *r, bool close_it)
{
	if (close_it) {
		cl_ring_spill_out(r);
		spill_producer_free(r->sp);
		ring_producer_free(r->p);
	} else {
		spill_producer_free(r->sp);
		/* A fork child: unmap the parent's ring without marking it
		 * closed (the parent still produces into it). The fields are
		 * ring.h's public producer view. */
		munmap(r->p->hdr, r->p->map_size);
		if (r->p->efd >= 0)
			close(r->p->efd);
		free(r->p);
	}
	if (r->memfd >= 0)
		close(r->memfd);
	if (r->efd >= 0)
		close(r->efd);
	free(r);
}

/* A ring's updates: records pushed (not the hand-over records), updates
 * spilled, updates dropped; and of them, those that never reached a
 * kstat. */
static void
cl_ring_counts(struct cl_ring *r, uint64_t *pushed, uint64_t *dropped)
{
	const struct ring_hdr *h = r->p->hdr;
	uint64_t d;

	if (r->sp != NULL) {
		cl_spill_lock(r);
		spill_count(r->sp);
		cl_spill_unlock(r);
	}
	d = atomic_load_explicit(&h->dropped, memory_order_relaxed);
	*pushed += atomic_load_explicit(&h->head, memory_order_acquire) -
	    atomic_load_explicit(&h->handovers, memory_order_relaxed) +
	    atomic_load_explicit(&h->spilled, memory_order_relaxed) + d;
	/* Dropped here, or pushed and refused by statsd (it says so in the
	 * ring), or lost in a ring no statsd took back. */
	*dropped += d + atomic_load_explicit(&h->rejected,
	    memory_order_acquire) + r->lost;
}

/* A thread is done with its ring (it exited). */
static void
cl_thread_exit(void *arg)
{
	struct cl_ring *r = arg;

	pthread_mutex_lock(&cl.lock);
	r->bound = false;
	if (r->orphan)
		cl_ring_free(r, true);
	pthread_mutex_unlock(&cl.lock);
	ring_producer_bind(NULL);
	cl_tls_ring = NULL;
}

void
cl_producer_init_once(void)
{
	(void)pthread_key_create(&cl_key, cl_thread_exit);
}

void
cl_producer_child(void)
{
	ring_producer_bind(NULL);
	cl_tls_ring = NULL;
	cl_tls_retry = 0;
	(void)pthread_setspecific(cl_key, NULL);
}

/* A new ring from statsd. Returns: it (listed, unbound); NULL. */
static struct cl_ring *
cl_ring_attach_locked(void)
{
	struct vlc_reply rep;
	struct cl_ring *r;
	json_t *params = json_object();
	json_int_t id = 0;
	int fd, efd, e;

	if (cl.ring_log2 != 0)
		json_object_set_new(params, "capacity_log2",
		    json_integer(cl.ring_log2));
	if (cl.nospill)
		json_object_set_new(params, "overflow_size", json_integer(0));
	if (cl_call_locked(VL_M_RING_ATTACH, params, NULL, 0, &rep) < 0)
		return NULL;
	(void)json_unpack(rep.params, "{s:I}", "ring", &id);
	fd = vlc_reply_take_fd(&rep, 0);
	efd = vlc_reply_take_fd(&rep, 1);
	vlc_reply_done(&rep);
	r = calloc(1, sizeof(*r));
	if (fd < 0 || efd < 0 || r == NULL) {
		(void)cl_fail(r == NULL ? ENOMEM : EPROTO, "RingAttach: %s",
		    r == NULL ? "out of memory" : "a reply without the ring's "
		    "two descriptors");
		goto fail;
	}
	e = ring_map(fd, efd, &r->p);
	if (e < 0) {
		(void)cl_fail(e, "RingAttach: the ring statsd sent cannot be "
		    "mapped: %s", strerror(-e));
		goto fail;
	}
	e = spill_producer_new(r->p, cl_image, NULL, &r->sp);
	if (e == -ENOMEM) {
		r->p = ring_producer_free(r->p);
		(void)cl_fail(e, "RingAttach: out of memory");
		goto fail;
	}
	r->memfd = fd;
	r->efd = efd;
	r->id = (uint32_t)id;
	r->next = cl.rings;
	cl.rings = r;
	return r;
fail:
	if (fd >= 0)
		close(fd);
	if (efd >= 0)
		close(efd);
	free(r);
	return NULL;
}

/* The calling thread's ring, getting one if it can. */
static struct ring_producer *
cl_thread_ring(void)
{
	struct cl_ring *r;
	uint64_t now = clock_now_ns();

	if (now < cl_tls_retry)
		return NULL;
	/* Wait for another thread getting its ring, or a call in progress;
	 * not for a (re)connection, which can take seconds. */
	if (atomic_load_explicit(&cl.connecting, memory_order_relaxed) ||
	    (pthread_mutex_trylock(&cl.lock) != 0 &&
	    (atomic_load_explicit(&cl.connecting, memory_order_relaxed) ||
	    pthread_mutex_lock(&cl.lock) != 0))) {
		cl_tls_retry = now + CL_RING_RETRY_NS;
		return NULL;
	}
	if (cl.refs == 0 || cl.vlc == NULL) {
		cl_kick_locked();
		pthread_mutex_unlock(&cl.lock);
		cl_tls_retry = now + CL_RING_RETRY_NS;
		return NULL;
	}
	for (r = cl.rings; r != NULL; r = r->next)
		if (!r->bound && !r->dead)
			break;
	if (r == NULL)
		r = cl_ring_attach_locked();
	if (r == NULL) {
		pthread_mutex_unlock(&cl.lock);
		cl_tls_retry = now + CL_RING_RETRY_NS;
		return NULL;
	}
	r->bound = true;
	pthread_mutex_unlock(&cl.lock);
	cl_tls_ring = r;
	ring_producer_bind(r->p);
	(void)pthread_setspecific(cl_key, r);
	return r->p;
}

int
cl_thread_ring_attach(void)
{
	if (ring_producer_current() != NULL || cl_tls_ring != NULL)
		return 0;
	cl_tls_retry = 0;
	return cl_thread_ring() != NULL ? 0 : -ENOTCONN;
}

void
cl_push_slow(uint32_t handle, uint16_t voi, uint8_t op, uint8_t flags,
    int64_t x, int64_t y, uint64_t time_ns)
{
	struct ring_producer *p = ring_producer_current();
	struct cl_ring *r;

	if (handle != 0) {
		if (p == NULL && cl_tls_ring == NULL)
			p = cl_thread_ring();
		r = cl_tls_ring;
		if (p != NULL && r != NULL && r->sp != NULL) {
			struct ring_rec rec = { .handle = handle, .voi = voi,
			    .op = op, .flags = flags, .x = x, .y = y,
			    .time = time_ns };

			bool was;

			cl_spill_lock(r);
			was = spill_diverted(r->sp);
			(void)spill_push(r->sp, &rec);
			if (!was && spill_diverted(r->sp))
				cl_watcher_spilling();
			cl_spill_unlock(r);
			return;
		}
		if (p != NULL) {
			(void)ring_push(p, handle, voi, op, flags, x, y,
			    time_ns);
			return;
		}
	}
	/* The one read-modify-write of the update path, and only when the
	 * update cannot be queued at all. */
	atomic_fetch_add_explicit(&cl.nodrop, 1, memory_order_relaxed);
}

/* ------------------------------------------------------------ life cycle */

void
cl_rings_adopt_locked(void)
{
	struct cl_ring *r;

	for (r = cl.rings; r != NULL && cl.vlc != NULL; r = r->next) {
		struct vlc_reply rep;
		int fds[2] = { r->memfd, r->efd };
		json_int_t id = 0;

		if (r->dead)
			continue;
		if (cl_call_locked(VL_M_RING_ATTACH, json_pack("{s:b}",
		    "adopt", 1), fds, 2, &rep) < 0) {
			/* Refused by a statsd that is there: nobody will
			 * drain it; its records count as dropped. */
			if (cl.vlc != NULL)
				r->dead = true;
			continue;
		}
		(void)json_unpack(rep.params, "{s:I}", "ring", &id);
		r->id = (uint32_t)id;
		vlc_reply_done(&rep);
	}
	cl_rings_discard_locked();
}

void
cl_rings_discard_locked(void)
{
	struct cl_ring *r;

	for (r = cl.rings; r != NULL; r = r->next) {
		struct ring_hdr *h = r->p->hdr;
		uint64_t head, tail, i;

		if (!r->dead)
			continue;
		/* Be the ring's consumer: take everything, apply nothing.
		 * A hand-over record stands for its buffer's updates. */
		if (r->sp != NULL) {
			cl_spill_lock(r);
			r->lost += spill_discard(r->sp);
		}
		head = atomic_load_explicit(&h->head, memory_order_acquire);
		tail = atomic_load_explicit(&h->tail, memory_order_relaxed);
		if (head - tail <= r->p->mask + 1) {
			for (i = tail; i != head; i++) {
				const struct ring_rec *rec =
				    &r->p->recs[i & r->p->mask];
				void *buf;
				size_t bsize;

				if (rec->op != RING_OP_SPILL)
					r->lost++;
				else if (ring_producer_ovf(r->p, rec->ovf_buf,
				    &buf, &bsize) == 0)
					r->lost += ((const struct
					    ring_ovf_hdr *)buf)->nupd;
			}
			atomic_store_explicit(&h->tail, head,
			    memory_order_release);
		}
		if (r->sp != NULL)
			cl_spill_unlock(r);
	}
}

void
cl_rings_free_locked(void)
{
	while (cl.rings != NULL) {
		struct cl_ring *r = cl.rings;

		cl.rings = r->next;
		cl_ring_counts(r, &cl.gone_pushed, &cl.gone_dropped);
		if (r->bound)
			r->orphan = true;	/* its thread frees it */
		else
			cl_ring_free(r, true);
	}
}

void
cl_rings_forget_locked(void)
{
	while (cl.rings != NULL) {
		struct cl_ring *r = cl.rings;

		cl.rings = r->next;
		cl_ring_free(r, false);
	}
	cl.gone_pushed = 0;
	cl.gone_dropped = 0;
	atomic_store_explicit(&cl.nodrop, 0, memory_order_relaxed);
}

void
cl_rings_count_locked(uint64_t *pushed, uint64_t *dropped)
{
	uint64_t n = atomic_load_explicit(&cl.nodrop, memory_order_relaxed);
	struct cl_ring *r;

	*pushed = cl.gone_pushed + n;
	*dropped = cl.gone_dropped + n;
	for (r = cl.rings; r != NULL; r = r->next)
		cl_ring_counts(r, pushed, dropped);
}

/* ----------------------------------------------------------------- flush */

struct cl_flush_target {
	struct cl_ring	*r;
	uint64_t	 head;		/* records to see consumed */
	uint64_t	 need;		/* hand-overs to see made */
	bool		 handed;	/* they are */
};

static bool
cl_ring_listed(const struct cl_ring *r)
{
	const struct cl_ring *q;

	for (q = cl.rings; q != NULL; q = q->next)
		if (q == r)
			return true;
	return false;
}

/* Hand over what t's ring held when the flush began, if it has room.
 * Once done, the records to wait for include the hand-over records. */
static void
cl_flush_spills(struct cl_flush_target *t)
{
	struct cl_ring *r = t->r;

	if (t->handed)
		return;
	cl_spill_lock(r);
	if (spill_handed(r->sp) < t->need)
		(void)spill_handover(r->sp, true);
	if (spill_handed(r->sp) >= t->need) {
		t->handed = true;
		t->head = atomic_load_explicit(&r->p->hdr->head,
		    memory_order_acquire);
	}
	cl_spill_unlock(r);
}

int
cl_rings_flush(int timeout_ms)
{
	struct cl_flush_target *t = NULL;
	struct cl_ring *r;
	uint64_t start = clock_now_ns(), last_poke, now;
	long sleep_us = 50;
	size_t n = 0, i, cap = 0;

	pthread_mutex_lock(&cl.lock);
	for (r = cl.rings; r != NULL; r = r->next) {
		if (n == cap) {
			struct cl_flush_target *nt;

			cap = cap == 0 ? 16 : cap * 2;
			nt = realloc(t, cap * sizeof(*t));
			if (nt == NULL) {
				pthread_mutex_unlock(&cl.lock);
				free(t);
				return -ENOMEM;
			}
			t = nt;
		}
		t[n].r = r;
		t[n].head = atomic_load_explicit(&r->p->hdr->head,
		    memory_order_acquire);
		t[n].handed = true;
		if (r->sp != NULL && !r->dead) {
			cl_spill_lock(r);
			t[n].need = spill_handed(r->sp) + spill_pending(r->sp);
			t[n].handed = spill_pending(r->sp) == 0;
			cl_spill_unlock(r);
		}
		n++;
		if (cl.vlc != NULL)
			cl_ring_poke(r);
	}
	pthread_mutex_unlock(&cl.lock);
	last_poke = start;
	for (;;) {
		bool done = true;

		now = clock_now_ns();
		pthread_mutex_lock(&cl.lock);
		cl_rings_discard_locked();
		for (i = 0; i < n; i++) {
			struct ring_hdr *h;

			if (t[i].r == NULL)
				continue;
			if (!cl_ring_listed(t[i].r) || t[i].r->dead) {
				t[i].r = NULL;	/* closed, or given up */
				continue;
			}
			cl_flush_spills(&t[i]);
			h = t[i].r->p->hdr;
			if (t[i].handed && atomic_load_explicit(&h->tail,
			    memory_order_acquire) >= t[i].head) {
				t[i].r = NULL;
				continue;
			}
			done = false;
			/* The producer wakes a sleeping consumer itself; this
			 * only shortens the wait for the periodic drain. */
			if (cl.vlc != NULL && now - last_poke > 20000000u)
				cl_ring_poke(t[i].r);
		}
		if (now - last_poke > 20000000u)
			last_poke = now;
		pthread_mutex_unlock(&cl.lock);
		if (done)
			break;
		if (timeout_ms >= 0 &&
		    now - start >= (uint64_t)timeout_ms * 1000000u) {
			free(t);
			return -ETIMEDOUT;
		}
		struct timespec ts = { 0, sleep_us * 1000 };
		nanosleep(&ts, NULL);
		if (sleep_us < 2000)
			sleep_us *= 2;
	}
	free(t);
	return 0;
}

bool
cl_rings_spill_handover_locked(void)
{
	struct cl_ring *r;
	bool left = false;

	for (r = cl.rings; r != NULL; r = r->next) {
		if (r->sp == NULL || r->dead ||
		    !ring_producer_diverted(r->p))
			continue;
		cl_spill_lock(r);
		(void)spill_handover(r->sp, false);
		left |= spill_diverted(r->sp);
		cl_spill_unlock(r);
	}
	return left;
}

/* --------------------------------------------------------------- values */

int64_t
cl_x_of(enum vsd_dtype dtype, const struct voistatdata_numeric *v,
    uint8_t *flags)
{
	switch (dtype) {
	case VSD_DTYPE_INT_S32:
		return v->int32.s32;
	case VSD_DTYPE_Q_S32:
		return v->q32.sq32;
	case VSD_DTYPE_INT_U32:
		return (int64_t)v->int32.u32;
	case VSD_DTYPE_Q_U32:
		return (int64_t)v->q32.uq32;
	case VSD_DTYPE_INT_SLONG:
		return (int64_t)v->intlong.slong;
	case VSD_DTYPE_INT_S64:
	case VSD_DTYPE_Q_S64:
		return v->int64.s64;
	default:
		/* U64, ULONG, UQ64: the bit pattern, read as unsigned. */
		*flags |= STATS_OPF_UNSIGNED;
		return (int64_t)v->int64.u64;
	}
}
