/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * drain.c: the update rings and the drain — eventfd wakeups at drain
 * priority, the periodic tick, bounded batches with a backlog pass at
 * control priority, the per-record checks, and statsd's own kstat.
 */
#include <errno.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <event2/event.h>
#include <jansson.h>

#include <statsd/kstat.h>

#include "clock.h"
#include "control.h"
#include "daemon.h"
#include "drain.h"
#include "drain_priv.h"
#include "engine.h"
#include "journal.h"
#include "log.h"
#include "quota.h"
#include "registry.h"
#include "rights.h"
#include "ring.h"
#include "shm.h"
#include "sysks.h"

/* statsd's own kstat: one LAST value per VOI, in this order. */
static const char *const drain_self_vois[] = {
	"uptime_ns", "clients", "rings", "kstats", "templates", "applied",
	"rejected", "dropped", "wakeups", "drain_passes", "drain_errors",
	"spilled", "spills", "overflow_bytes", "overflow_used", "drain_ns",
	"expo_scrapes", "expo_skipped", "expo_conflicts",
};
#define NSELF	(sizeof(drain_self_vois) / sizeof(drain_self_vois[0]))
/* Then the statsd/DogStatsD front door's counters (d->self_feed). */
#define NSELF_MAX	(NSELF + 64)

static void drain_pump_arm(struct drain *dr);
static void drain_conn_hook(struct statsd *d, struct conn *c);
static void drain_poll_arm(struct drain *dr);

/* Empty polls after which a lingering ring goes back to wakeups. */
#define DRAIN_QUIET_POLLS	4

/* The consumer index as published in the ring (statsd is its only
 * writer; a producer that scribbles on it spoils only its own journal). */
static uint64_t
drain_ring_tail(struct ring *rg)
{
	size_t size;
	struct ring_hdr *h = ring_consumer_mem(rg->c, &size);

	return atomic_load_explicit(&h->tail, memory_order_relaxed);
}

/* The drain's CPU time (statsd is one thread): what the self kstat's
 * drain_ns counts, so that the drain's rate is its own, however busy the
 * machine is. */
static uint64_t
drain_cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* One pass over one ring. Returns: records taken. */
static int
drain_ring(struct drain *dr, struct ring *rg)
{
	unsigned batch = dr->d->cfg.drain_batch;
	int n;

	uint64_t t0 = drain_cpu_ns();

	journal_ring_pass(rg->journal, drain_ring_tail(rg), rg->skip);
	n = ring_drain_batch(rg->c, batch, dr->now, drain_apply, rg);
	if (n > 0)
		dr->busy_ns += drain_cpu_ns() - t0;
	if (n == -EPIPE) {
		if (!rg->broken_logged) {
			log_warning("ring %u (uid %u): producer index out of "
			    "bounds; the ring is no longer read", rg->id,
			    (unsigned)rg->peer.uid);
			dr->errors++;
			rg->broken_logged = true;
		}
		rg->backlog = false;
		return 0;
	}
	if (n < 0)
		return 0;
	if (n > 0)
		dr->passes++;
	rg->backlog = (unsigned)n == batch;
	if (rg->backlog) {
		drain_pump_arm(dr);
		return n;
	}
	/*
	 * Caught up. A ring that had records is looked at again shortly
	 * (lingering) rather than armed for a wakeup: during a burst the
	 * producer then makes no system call, and the drain keeps pace
	 * without waiting for one. Once it stays empty for a few looks, ask
	 * the producer for a wakeup, unless records came in meanwhile.
	 */
	if (dr->d->cfg.drain_poll_us > 0 && (n > 0 || (rg->lingering &&
	    ++rg->quiet < DRAIN_QUIET_POLLS))) {
		if (n > 0)
			rg->quiet = 0;
		rg->lingering = true;
		drain_poll_arm(dr);
		return n;
	}
	rg->lingering = false;
	if (ring_consumer_sleep_prepare(rg->c) == -EAGAIN) {
		rg->backlog = true;
		drain_pump_arm(dr);
	}
	return n;
}

/*
 * Add a ring's counters to *to as statsd shows them: what it applied
 * (spills included) and refused, and what its producer reports, believed
 * up to one event per nanosecond of the ring's life, so that no producer
 * can run the daemon-wide sums up (they are held at INT64_MAX besides).
 */
static void
drain_ring_stats_add(struct drain_stats *to, struct ring *rg)
{
	struct ring_consumer_stats st;
	uint64_t now, life;

	ring_consumer_stats(rg->c, &st);
	now = shm_birth_stamp();	/* the clock the ring's birth is on */
	life = now > rg->birth ? now - rg->birth : 0;
	to->applied = drain_sat_add(to->applied, drain_sat_add(st.applied,
	    rg->spill_applied));
	to->rejected = drain_sat_add(to->rejected, st.rejected);
	to->dropped = drain_sat_add(to->dropped, st.dropped < life ?
	    st.dropped : life);
	to->wakeups = drain_sat_add(to->wakeups, st.wakeups < life ?
	    st.wakeups : life);
	to->spilled = drain_sat_add(to->spilled, rg->spill_applied);
	to->spills = drain_sat_add(to->spills, rg->spills);
}

static void
drain_ring_free(struct drain *dr, struct ring *rg)
{
	drain_ring_stats_add(&dr->gone, rg);
	quota_release(dr->d->quota, rg->peer.uid, QUOTA_RINGS, 1);
	quota_release(dr->d->quota, rg->peer.uid, QUOTA_RING_BYTES, rg->bytes);
	if (rg->prev != NULL)
		rg->prev->next = rg->next;
	else
		dr->rings = rg->next;
	if (rg->next != NULL)
		rg->next->prev = rg->prev;
	dr->nrings--;
	if (rg->conn != NULL && rg->conn->nrings > 0)
		rg->conn->nrings--;
	journal_ring_release(rg->journal);
	event_free(rg->ev);
	ring_consumer_free(rg->c);
	free(rg);
}

/*
 * Bytes its spill buffers hold now: those of buffers statsd has not
 * released, as their heads say (the producer's word, bounded by the
 * buffer: for the self kstat only).
 */
static uint64_t
drain_ovf_used(struct ring *rg)
{
	size_t size;
	uint8_t *mem = ring_consumer_mem(rg->c, &size);
	struct ring_hdr *h = (struct ring_hdr *)mem;
	uint64_t bsize = ring_consumer_ovf_size(rg->c) / RING_OVF_NBUF;
	uint64_t off = ring_consumer_size(rg->c) - ring_consumer_ovf_size(rg->c);
	uint64_t used = 0;
	unsigned i;

	for (i = 0; i < RING_OVF_NBUF; i++) {
		struct ring_ovf_hdr b;

		memcpy(&b, mem + off + i * bsize, sizeof(b));
		if (b.seq == 0 || b.seq == atomic_load_explicit(
		    &h->ovf_done[i], memory_order_relaxed))
			continue;
		used += b.used < bsize ? b.used : bsize;
	}
	return used;
}

/* Drain a ring until empty (bounded by its capacity plus what a producer
 * can add meanwhile: a few passes). */
static void
drain_ring_empty(struct drain *dr, struct ring *rg)
{
	uint64_t cap = ring_consumer_capacity(rg->c), taken = 0;
	int n;

	do {
		n = drain_ring(dr, rg);
		taken += n > 0 ? (uint64_t)n : 0;
	} while (n > 0 && taken < 2 * cap);
	registry_sync(dr->d->reg);
}

/* Finish a pass: persistent blobs to the store, closed rings freed. */
static void
drain_pass_end(struct drain *dr)
{
	struct ring *rg, *next;

	registry_sync(dr->d->reg);
	for (rg = dr->rings; rg != NULL; rg = next) {
		next = rg->next;
		if (ring_consumer_done(rg->c))
			drain_ring_free(dr, rg);
	}
}

static void
drain_wake_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ring *rg = arg;
	struct drain *dr = rg->dr;

	(void)fd;
	(void)what;
	ring_consumer_sleep_done(rg->c);
	dr->now = clock_now_ns();
	(void)drain_ring(dr, rg);
	registry_sync(dr->d->reg);
}

/*
 * One pass over the rings that need it (all with records waiting, or
 * only those left with a backlog), within a budget of records per loop
 * turn. Passes start one ring further each time, so that under a flood
 * every ring gets its turn; rings the budget did not reach keep their
 * backlog and the pump brings them back at the next turn.
 */
static void
drain_pass(struct drain *dr, bool backlog_only)
{
	uint64_t budget = 16 * (uint64_t)dr->d->cfg.drain_batch, taken = 0;
	unsigned start, i, n = dr->nrings;
	struct ring *rg;

	dr->now = clock_now_ns();
	if (n == 0)
		return;
	start = dr->rr++ % n;
	for (rg = dr->rings, i = 0; i < start && rg != NULL; i++)
		rg = rg->next;
	for (i = 0; i < n; i++, rg = rg->next) {
		if (rg == NULL)
			rg = dr->rings;
		if (taken >= budget) {
			if (ring_consumer_pending(rg->c) > 0) {
				rg->backlog = true;
				drain_pump_arm(dr);
			}
			continue;
		}
		if (rg->backlog || (!backlog_only &&
		    ring_consumer_pending(rg->c) > 0))
			taken += (uint64_t)drain_ring(dr, rg);
	}
	drain_pass_end(dr);
}

static void
drain_pump_cb(evutil_socket_t fd, short what, void *arg)
{
	struct drain *dr = arg;

	(void)fd;
	(void)what;
	dr->pump_armed = false;
	drain_pass(dr, true);
}

static void
drain_pump_arm(struct drain *dr)
{
	static const struct timeval zero = { 0, 0 };

	if (dr->pump_armed)
		return;
	dr->pump_armed = true;
	/* A zero time-out, not event_active(): it becomes active at the
	 * next loop turn, after control events already waiting. */
	event_add(dr->ev_pump, &zero);
}

/* The lingering rings' look: drain each, and look again while any still
 * lingers. */
static void
drain_poll_cb(evutil_socket_t fd, short what, void *arg)
{
	struct drain *dr = arg;
	struct ring *rg;

	uint64_t expirations;

	(void)what;
	if (read(fd, &expirations, sizeof(expirations)) < 0)
		return;		/* not expired yet: a stale readiness */
	dr->poll_armed = false;
	dr->now = clock_now_ns();
	for (rg = dr->rings; rg != NULL; rg = rg->next)
		if (rg->lingering && !rg->backlog)
			(void)drain_ring(dr, rg);
	drain_pass_end(dr);
}

/* A timerfd rather than a libevent timer: libevent rounds its timers to
 * epoll_wait()'s milliseconds (its precise-timer mode would change every
 * other timer of the loop too). */
static void
drain_poll_arm(struct drain *dr)
{
	unsigned us = dr->d->cfg.drain_poll_us;
	struct itimerspec its = { .it_value = { us / 1000000,
	    (long)(us % 1000000) * 1000 } };

	if (dr->poll_armed)
		return;
	if (timerfd_settime(dr->poll_fd, 0, &its, NULL) == 0)
		dr->poll_armed = true;
}

/*
 * Ask the Linux fair scheduler for a short time slice. EEVDF (Linux 6.6
 * and later) takes sched_attr.sched_runtime as the slice of a SCHED_OTHER
 * task, and a task with a shorter slice preempts one with a longer slice
 * when it wakes: a producer that wakes statsd onto its own CPU (the
 * scheduler's wake-affine placement, when the other CPUs are busy) is
 * then interrupted for the drain within microseconds, instead of at the
 * end of its own slice, milliseconds later. Older kernels ignore it.
 */
static void
drain_sched_slice(unsigned us)
{
	struct {
		uint32_t size, policy;
		uint64_t flags;
		int32_t nice;
		uint32_t priority;
		uint64_t runtime, deadline, period;
	} attr;

	if (us == 0)
		return;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.policy = SCHED_OTHER;
	attr.nice = getpriority(PRIO_PROCESS, 0);
	attr.runtime = (uint64_t)us * 1000u;
	if (syscall(SYS_sched_setattr, 0, &attr, 0) < 0)
		log_debug("sched_setattr (a %u us slice): %s", us,
		    strerror(errno));
}

/* -------------------------------------------------------- self kstat */

/* How many of the self feed's counters fit beside the drain's own. */
static unsigned
drain_self_nfeed(const struct statsd *d)
{
	unsigned n = d->self_feed.names != NULL ? d->self_feed.n : 0;

	return n < NSELF_MAX - NSELF ? n : (unsigned)(NSELF_MAX - NSELF);
}

/* The self kstat's values now, in drain_self_vois[] then the front door's
 * counters' order. Returns: how many. */
static uint16_t
drain_self_values(struct drain *dr, uint64_t *v)
{
	struct statsd *d = dr->d;
	struct registry_stats rs;
	struct drain_stats ds;

	drain_stats(dr, &ds);
	registry_stats(d->reg, &rs);
	v[0] = dr->now - d->start_ns;
	v[1] = 0;
	v[2] = ds.rings;
	/* What any reader of the public segment may know: no PRIV kstat, no
	 * other zone's, nor their templates. */
	v[3] = rs.public_kstats;
	v[4] = rs.public_templates;
	v[5] = ds.applied;
	v[6] = ds.rejected;
	v[7] = ds.dropped;
	v[8] = ds.wakeups;
	v[9] = ds.passes;
	v[10] = ds.errors;
	v[11] = ds.spilled;
	v[12] = ds.spills;
	v[13] = ds.ovf_bytes;
	v[14] = ds.ovf_used;
	v[15] = ds.busy_ns;
	/* The exposition: scrapes begun, kstats it could not render and
	 * series left out for a type their family does not have. */
	v[16] = atomic_load(&d->expo_tot.scrapes);
	v[17] = atomic_load(&d->expo_tot.skipped);
	v[18] = atomic_load(&d->expo_tot.conflicts);
	if (d->self_feed.values != NULL)
		d->self_feed.values(d, &v[1], v + NSELF,
		    (unsigned)(NSELF_MAX - NSELF));
	return (uint16_t)(NSELF + drain_self_nfeed(d));
}

/* Do v's values differ from those last written, uptime aside? */
static bool
drain_self_changed(const struct drain *dr, const uint64_t *v, uint16_t n)
{
	return dr->self_last == NULL || n != dr->self_n ||
	    memcmp(v + 1, dr->self_last + 1, (n - 1) * sizeof(*v)) != 0;
}

/* Write the self kstat. Returns: whether anything but its uptime
 * changed since it was last written. */
static bool
drain_self_update(struct drain *dr)
{
	uint64_t v[NSELF_MAX];
	uint16_t n;
	bool changed;

	if (dr->self == NULL)
		return false;
	n = drain_self_values(dr, v);
	changed = drain_self_changed(dr, v, n);
	sysks_set(dr->d, dr->self, v, n, dr->now);
	dr->self_at = dr->now;
	if (dr->self_last != NULL && n <= dr->self_n) {
		memcpy(dr->self_last, v, n * sizeof(*v));
		dr->self_n = n;
	}
	return changed;
}

static int
drain_self_create(struct drain *dr)
{
	const struct self_feed *f = &dr->d->self_feed;
	static const char *names[NSELF_MAX];
	struct sysks_spec spec = {
		.tplname = "statsd.self",
		.module = SYSKS_MODULE_STATSD,
		.name = "daemon",
		.class_ = "misc",
		.desc = "statsd itself: uptime, clients, rings, records, "
		    "statsd/DogStatsD lines",
		.names = names,
		.n = (uint16_t)(NSELF + drain_self_nfeed(dr->d)),
	};
	unsigned i;

	for (i = 0; i < NSELF; i++)
		names[i] = drain_self_vois[i];
	for (i = 0; i < drain_self_nfeed(dr->d); i++)
		names[NSELF + i] = f->names[i];
	return sysks_create(dr->d, &spec, &dr->self);
}

/* ------------------------------------------------------------- the tick */

static void
drain_tick_arm_ms(struct drain *dr, unsigned ms)
{
	struct timeval tv = { ms / 1000, (long)(ms % 1000) * 1000 };

	event_add(dr->ev_tick, &tv);
}

static void
drain_tick_arm(struct drain *dr)
{
	drain_tick_arm_ms(dr, dr->d->cfg.drain_interval_ms);
}

/*
 * While rings are attached the tick takes the records whose wakeup the
 * lock-free protocol lost. Once no ring had records for a second of ticks,
 * it ticks once a second instead: idle producers then cost statsd one
 * wake-up a second, not twenty, and a lost wakeup waits that long at
 * most. Any pass that takes records (a wakeup's) brings the period back.
 */
#define DRAIN_QUIET_TICK_MS	1000u

static void
drain_tick_rearm(struct drain *dr)
{
	unsigned ms = dr->d->cfg.drain_interval_ms;

	if (dr->passes != dr->tick_passes) {
		dr->tick_passes = dr->passes;
		dr->tick_quiet = 0;
	} else if ((uint64_t)++dr->tick_quiet * ms >= DRAIN_QUIET_TICK_MS &&
	    ms < DRAIN_QUIET_TICK_MS) {
		ms = DRAIN_QUIET_TICK_MS;
	}
	drain_tick_arm_ms(dr, ms);
}

/*
 * The tick runs while rings exist (their records are taken even if a
 * wakeup is lost). Without rings the self kstat is written after the loop
 * turn that changed it (drain_after_turn()), at most once a tick's
 * period: a change within the period arms the tick once. An idle statsd
 * has no timer of its own running.
 */
static void
drain_tick_cb(evutil_socket_t fd, short what, void *arg)
{
	struct drain *dr = arg;

	(void)fd;
	(void)what;
	drain_pass(dr, false);
	(void)drain_self_update(dr);
	if (dr->nrings > 0)
		drain_tick_rearm(dr);
}

void
drain_after_turn(struct drain *dr)
{
	uint64_t v[NSELF_MAX], period;
	uint16_t n;

	if (dr == NULL || event_pending(dr->ev_tick, EV_TIMEOUT, NULL))
		return;
	if (dr->nrings > 0) {
		drain_tick_arm(dr);
		return;
	}
	if (dr->self == NULL)
		return;
	dr->now = clock_now_ns();
	n = drain_self_values(dr, v);
	if (!drain_self_changed(dr, v, n))
		return;
	period = (uint64_t)dr->d->cfg.drain_interval_ms * 1000000u;
	if (dr->now - dr->self_at >= period)
		(void)drain_self_update(dr);
	else
		drain_tick_arm(dr);
}

int
drain_new(struct statsd *d, struct drain **ret)
{
	struct drain *dr;

	dr = calloc(1, sizeof(*dr));
	if (dr == NULL)
		return -ENOMEM;
	dr->d = d;
	dr->next_id = 1;
	dr->poll_fd = -1;
	dr->ev_tick = evtimer_new(d->base, drain_tick_cb, dr);
	dr->ev_pump = evtimer_new(d->base, drain_pump_cb, dr);
	dr->poll_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK |
	    TFD_CLOEXEC);
	dr->ev_poll = dr->poll_fd < 0 ? NULL : event_new(d->base, dr->poll_fd,
	    EV_READ | EV_PERSIST, drain_poll_cb, dr);
	if (dr->ev_tick == NULL || dr->ev_pump == NULL || dr->ev_poll == NULL) {
		drain_free(dr);
		return -ENOMEM;
	}
	event_priority_set(dr->ev_tick, PRIO_DRAIN);
	event_priority_set(dr->ev_pump, PRIO_CONTROL);
	event_priority_set(dr->ev_poll, PRIO_DRAIN);
	event_add(dr->ev_poll, NULL);
	drain_sched_slice(d->cfg.drain_slice_us);
	dr->self_last = calloc(NSELF_MAX, sizeof(*dr->self_last));
	if (dr->self_last == NULL) {
		drain_free(dr);
		return -ENOMEM;
	}
	dr->self_n = NSELF_MAX;
	(void)drain_self_create(dr);
	dr->now = clock_now_ns();
	drain_self_update(dr);
	drain_tick_arm(dr);
	d->conn_closed = drain_conn_hook;
	*ret = dr;
	return 0;
}

struct drain *
drain_free(struct drain *dr)
{
	if (dr == NULL)
		return NULL;
	if (dr->d->conn_closed == drain_conn_hook)
		dr->d->conn_closed = NULL;
	drain_all(dr);
	while (dr->rings != NULL)
		drain_ring_free(dr, dr->rings);
	if (dr->ev_tick != NULL)
		event_free(dr->ev_tick);
	if (dr->ev_pump != NULL)
		event_free(dr->ev_pump);
	if (dr->ev_poll != NULL)
		event_free(dr->ev_poll);
	if (dr->poll_fd >= 0)
		close(dr->poll_fd);
	free(dr->spill_copy);
	free(dr->merge_scratch);
	free(dr->self_last);
	free(dr);
	return NULL;
}

void
drain_reload(struct drain *dr)
{
	drain_tick_arm(dr);
}

unsigned
drain_rings(const struct drain *dr)
{
	return dr != NULL ? dr->nrings : 0;
}

void
drain_stats(const struct drain *dr, struct drain_stats *ret)
{
	struct ring *rg;

	memset(ret, 0, sizeof(*ret));
	if (dr == NULL)
		return;
	*ret = dr->gone;
	for (rg = dr->rings; rg != NULL; rg = rg->next) {
		uint64_t ovf = ring_consumer_ovf_size(rg->c);

		drain_ring_stats_add(ret, rg);
		ret->ovf_bytes += ovf;
		if (ovf > 0)
			ret->ovf_used += drain_ovf_used(rg);
	}
	ret->passes = dr->passes;
	ret->errors = dr->errors;
	ret->busy_ns = dr->busy_ns;
	ret->rings = dr->nrings;
}

void
drain_all(struct drain *dr)
{
	struct ring *rg;

	dr->now = clock_now_ns();
	for (rg = dr->rings; rg != NULL; rg = rg->next)
		drain_ring_empty(dr, rg);
	registry_sync(dr->d->reg);
}

/* ---------------------------------------------------------- attaching */

/* Charge a ring of size bytes to c's user: one ring, its bytes.
 * Returns: 0; -EDQUOT with *why (logged, rate limited). */
static int
drain_charge(struct drain *dr, struct conn *c, uint64_t size,
    struct quota_refusal *why)
{
	struct quota *q = dr->d->quota;
	int r;

	r = quota_charge(q, c->peer.uid, c->peer.privileged, QUOTA_RINGS, 1,
	    why);
	if (r < 0)
		return r;
	r = quota_charge(q, c->peer.uid, c->peer.privileged, QUOTA_RING_BYTES,
	    size, why);
	if (r < 0)
		quota_release(q, c->peer.uid, QUOTA_RINGS, 1);
	return r;
}

/* A new ring entry for rc, charged size bytes. Returns: it; NULL. */
static struct ring *
drain_ring_add(struct drain *dr, struct conn *c, struct ring_consumer *rc,
    uint64_t size)
{
	struct ring *rg;
	size_t msize;

	rg = calloc(1, sizeof(*rg));
	if (rg == NULL)
		return NULL;
	rg->dr = dr;
	rg->conn = c;
	rg->peer = c->peer;
	rg->c = rc;
	rg->bytes = size;
	/* The birth stamp is read once: the producer can rewrite it. */
	rg->birth = ((struct ring_hdr *)ring_consumer_mem(rc, &msize))->birth;
	rg->last_spill_ns = clock_now_ns();
	rg->id = dr->next_id++;
	rg->ev = event_new(dr->d->base, ring_consumer_efd(rc),
	    EV_READ | EV_PERSIST, drain_wake_cb, rg);
	if (rg->ev == NULL) {
		free(rg);
		return NULL;
	}
	event_priority_set(rg->ev, PRIO_DRAIN);
	event_add(rg->ev, NULL);
	rg->next = dr->rings;
	if (dr->rings != NULL)
		dr->rings->prev = rg;
	dr->rings = rg;
	dr->nrings++;
	c->nrings++;
	return rg;
}

int
drain_ring_new(struct drain *dr, struct conn *c, unsigned cap_log2,
    uint64_t ovf_size, uint32_t *ret_id, int *ret_fd, int *ret_efd,
    struct quota_refusal *why)
{
	struct ring_consumer *rc;
	struct ring *rg;
	int r, fd = -1, efd = -1;

	r = ring_create_ovf(cap_log2, ovf_size, &rc);
	if (r < 0)
		return r;
	r = drain_charge(dr, c, ring_consumer_size(rc), why);
	if (r < 0) {
		ring_consumer_free(rc);
		return r;
	}
	/* Only the client it is sent to may map it; see registry.c. */
	(void)fchmod(ring_consumer_fd(rc), 0600);
	fd = fcntl(ring_consumer_fd(rc), F_DUPFD_CLOEXEC, 3);
	efd = fcntl(ring_consumer_efd(rc), F_DUPFD_CLOEXEC, 3);
	if (fd < 0 || efd < 0) {
		r = -errno;
		goto fail;
	}
	rg = drain_ring_add(dr, c, rc, ring_consumer_size(rc));
	if (rg == NULL) {
		r = -ENOMEM;
		goto fail;
	}
	rg->journal = journal_ring_new(dr->d->journal, rg->birth,
	    c->peer.uid);
	/* Armed from the start: the first push wakes the daemon. */
	(void)ring_consumer_sleep_prepare(rc);
	*ret_id = rg->id;
	*ret_fd = fd;
	*ret_efd = efd;
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	if (efd >= 0)
		close(efd);
	quota_release(dr->d->quota, c->peer.uid, QUOTA_RINGS, 1);
	quota_release(dr->d->quota, c->peer.uid, QUOTA_RING_BYTES,
	    ring_consumer_size(rc));
	ring_consumer_free(rc);
	return r;
}

static bool
drain_is_eventfd(int fd)
{
	char path[64], target[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = '\0';
	return strcmp(target, "anon_inode:[eventfd]") == 0;
}

/* The largest ring memfd a client may hand back. */
static uint64_t
drain_adopt_max(const struct config *cfg)
{
	uint64_t recs = RING_HDR_SIZE + ((uint64_t)RING_REC_SIZE <<
	    cfg->ring_max_capacity_log2);

	return (recs + RING_OVF_ALIGN - 1) / RING_OVF_ALIGN * RING_OVF_ALIGN +
	    cfg->ring_max_overflow_size;
}

int
drain_ring_adopt(struct drain *dr, struct conn *c, int fd, int efd,
    uint32_t *ret_id, uint64_t *ret_capacity, uint64_t *ret_pending,
    uint64_t *ret_ovf, struct quota_refusal *why)
{
	struct ring_consumer *rc;
	struct journal_ring *j;
	struct ring *rg;
	struct stat st;
	uint64_t birth, skip = 0;
	int64_t pending;
	size_t msize;
	int seals, r;

	/* The client made no promise: insist on a sealed memfd (a plain
	 * file could be truncated under the mapping) and a real eventfd. */
	r = -EPERM;
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || (seals & SHM_SEALS_REQUIRED) != SHM_SEALS_REQUIRED)
		goto fail;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		goto fail;
	r = -EFBIG;
	if ((uint64_t)st.st_size > drain_adopt_max(&dr->d->cfg))
		goto fail;
	r = -EBADF;
	if (!drain_is_eventfd(efd))
		goto fail;
	(void)fcntl(efd, F_SETFL, O_NONBLOCK);
	r = ring_consumer_attach(fd, efd, &rc);
	if (r < 0)
		goto fail;
	if (ring_consumer_ovf_size(rc) > dr->d->cfg.ring_max_overflow_size) {
		ring_consumer_free(rc);		/* closes both */
		return -EFBIG;
	}
	/*
	 * Adopted once, only by its owner, only once its holder is gone: no
	 * ring of this statsd has that birth stamp (the same memfd handed
	 * back twice, or a copy of a live ring's header), and the journal
	 * has a slot made for a ring of that birth and this user — a ring
	 * statsd made for the caller, which the journal slot of no other
	 * ring describes.
	 */
	birth = ((struct ring_hdr *)ring_consumer_mem(rc, &msize))->birth;
	for (rg = dr->rings; rg != NULL; rg = rg->next)
		if (rg->birth == birth) {
			ring_consumer_free(rc);
			return -EBUSY;
		}
	j = journal_ring_adopt(dr->d->journal, birth, c->peer.uid,
	    atomic_load_explicit(&((struct ring_hdr *)ring_consumer_mem(rc,
	    &msize))->tail, memory_order_relaxed), &skip);
	if (j == NULL) {
		ring_consumer_free(rc);
		return -ENOENT;
	}
	r = drain_charge(dr, c, ring_consumer_size(rc), why);
	if (r < 0) {
		journal_ring_release(j);
		ring_consumer_free(rc);
		return r;
	}
	rg = drain_ring_add(dr, c, rc, ring_consumer_size(rc));
	if (rg == NULL) {
		quota_release(dr->d->quota, c->peer.uid, QUOTA_RINGS, 1);
		quota_release(dr->d->quota, c->peer.uid, QUOTA_RING_BYTES,
		    ring_consumer_size(rc));
		journal_ring_release(j);
		ring_consumer_free(rc);
		return -ENOMEM;
	}
	rg->journal = j;
	pending = ring_consumer_pending(rc);
	*ret_pending = pending > 0 ? (uint64_t)pending : 0;
	*ret_capacity = ring_consumer_capacity(rc);
	*ret_ovf = ring_consumer_ovf_size(rc);
	*ret_id = rg->id;
	/* What was left in it is drained at once, less what the journal
	 * says was applied already. */
	rg->skip = skip < *ret_pending ? skip : *ret_pending;
	if (rg->skip > 0)
		log_notice("ring %u (uid %u): %llu records were applied before "
		    "statsd restarted; skipped", rg->id, (unsigned)rg->peer.uid,
		    (unsigned long long)rg->skip);
	rg->backlog = true;
	drain_pump_arm(dr);
	return 0;
fail:
	close(fd);
	close(efd);
	return r;
}

void
drain_conn(struct drain *dr, struct conn *c)
{
	struct ring *rg;

	dr->now = clock_now_ns();
	for (rg = dr->rings; rg != NULL; rg = rg->next)
		if (rg->conn == c)
			drain_ring_empty(dr, rg);
}

/* The connection is closing (d->conn_closed): drain its rings a last
 * time, free them. */
static void
drain_conn_closed(struct drain *dr, struct conn *c)
{
	struct ring *rg, *next;

	dr->now = clock_now_ns();
	for (rg = dr->rings; rg != NULL; rg = next) {
		next = rg->next;
		if (rg->conn != c)
			continue;
		drain_ring_empty(dr, rg);
		rg->conn = NULL;
		drain_ring_free(dr, rg);
	}
}

static void
drain_conn_hook(struct statsd *d, struct conn *c)
{
	if (d->drain != NULL)
		drain_conn_closed(d->drain, c);
}
