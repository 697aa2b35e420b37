/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * client.c: the process's connection to statsd — open and close, the
 * handshake, reconnection after statsd restarts (a small watcher thread
 * that notices the socket closing and retries with back-off), fork
 * handling. The files below reach connecting and the watcher only
 * through the struct cl_life this file gives call.c.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "client_priv.h"

#define CL_PROTOCOL		1
#define CL_FLAGS_KNOWN		(STATS_CLIENT_LAZY | STATS_CLIENT_NORECONNECT | \
				    STATS_CLIENT_NOSPILL | \
				    STATS_CLIENT_RING_LOG2(0x1f))
/* How often the watcher hands over what a thread that stopped updating
 * left in its spill buffers. */
#define CL_SPILL_LOOK_MS	5

static pthread_once_t cl_once = PTHREAD_ONCE_INIT;

static int cl_connect_locked(void);
static void *cl_watch(void *arg);

/* What call.c reaches up to. */
static const struct cl_life cl_life = {
	.connect_locked = cl_connect_locked,
	.watch = cl_watch,
};

/* ------------------------------------------------------------ connecting */

/* Hello: check that statsd speaks our protocol and layouts. */
static int
cl_hello_locked(void)
{
	struct vlc_reply rep;
	json_int_t proto, sabi, rabi, uid = -1, zone = 0;
	int priv = 0, r;

	r = cl_call_locked(VL_M_HELLO, json_pack("{s:s}", "client",
	    "libstatsclient"), NULL, 0, &rep);
	if (r < 0)
		return r;
	if (json_unpack(rep.params, "{s:I, s:I, s:I, s?b, s?{s?I, s?I}}",
	    "protocol", &proto, "store_abi", &sabi, "ring_abi", &rabi,
	    "privileged", &priv, "peer", "uid", &uid, "zone", &zone) != 0) {
		vlc_reply_done(&rep);
		return cl_fail(EPROTO, "Hello: a reply without protocol, "
		    "store_abi and ring_abi");
	}
	vlc_reply_done(&rep);
	if (proto != CL_PROTOCOL || sabi != STORE_ABI_MAJOR ||
	    rabi != RING_ABI_MAJOR)
		return cl_fail(EPROTONOSUPPORT, "Hello: statsd speaks protocol "
		    "%lld (store ABI %lld, ring ABI %lld); this library %d "
		    "(%d, %d)", (long long)proto, (long long)sabi,
		    (long long)rabi, CL_PROTOCOL, STORE_ABI_MAJOR,
		    RING_ABI_MAJOR);
	cl.privileged = priv != 0;
	/* Who statsd says we are (SO_PEERCRED): whose kstats we may join. */
	cl.peer_uid = uid;
	cl.peer_zone = zone;
	return 0;
}

/*
 * Connect and bring everything back: rings, segments, kstats, mapped
 * blobs. Returns: 0; -errno (the last error says why).
 */
static int cl_connect_steps_locked(void);

static int
cl_connect_locked(void)
{
	int r;

	if (cl.vlc != NULL)
		return 0;
	atomic_store_explicit(&cl.connecting, 1, memory_order_relaxed);
	r = cl_connect_steps_locked();
	atomic_store_explicit(&cl.connecting, 0, memory_order_relaxed);
	return r;
}

static int
cl_connect_steps_locked(void)
{
	struct vlc *v;
	int r;

	r = vlc_connect(cl.path, CL_CALL_TIMEOUT_MS, &v);
	if (r < 0)
		return cl_fail(r, "connect %s: %s", cl.path, strerror(-r));
	cl.vlc = v;
	cl.conn_serial++;
	r = cl_hello_locked();
	if (r < 0) {
		cl.vlc = vlc_free(cl.vlc);
		return r;
	}
	cl_rings_adopt_locked();
	r = cl_segments_attach_locked();
	if (r < 0 && cl.vlc == NULL)
		return r;
	cl_kobjs_recreate_locked();
	cl_windows_remap_locked();
	if (cl.vlc == NULL)
		return -ENOTCONN;
	if (cl.gen++ > 0)
		atomic_fetch_add_explicit(&cl.reconnects, 1,
		    memory_order_relaxed);
	atomic_store_explicit(&cl.connected, 1, memory_order_release);
	return 0;
}

/* ------------------------------------------------------------ the watcher */

static void
cl_wait_wake(int fd, int wakefd, int timeout_ms, short *ret_revents)
{
	struct pollfd p[2] = {
		{ .fd = wakefd, .events = POLLIN },
		{ .fd = fd, .events = POLLRDHUP },
	};
	uint64_t v;

	*ret_revents = 0;
	if (poll(p, fd >= 0 ? 2 : 1, timeout_ms) > 0) {
		if (p[0].revents & POLLIN)
			(void)!read(wakefd, &v, sizeof(v));
		if (fd >= 0)
			*ret_revents = p[1].revents;
	}
}

static void *
cl_watch(void *arg)
{
	int backoff = CL_BACKOFF_MIN_MS;

	(void)arg;
	pthread_mutex_lock(&cl.lock);
	while (!cl.stopping) {
		int wakefd = cl.wakefd, fd;
		struct vlc *v = cl.vlc;
		short rev;

		if (v != NULL) {
			/* Connected: sleep until statsd hangs up (or we are
			 * woken), then tidy dead rings, hand over spill
			 * buffers threads left, and see whether kstats were
			 * re-laid. Spill buffers holding updates bring the
			 * watcher back within milliseconds. */
			bool spilling;

			/*
			 * Idle first, then look. A thread that starts
			 * spilling after the exchange finds the watcher idle
			 * and wakes it; one that started before it is seen by
			 * the look, since the exchange reads what that
			 * thread's own exchange wrote. Looking first lost
			 * the wakeup of a thread that began spilling in
			 * between: its updates waited for the long sleep.
			 */
			(void)atomic_exchange(&cl.watch_idle, 1);
			spilling = cl_rings_spill_handover_locked();
			if (spilling)
				atomic_store(&cl.watch_idle, 0);
			fd = vlc_fd(v);
			pthread_mutex_unlock(&cl.lock);
			cl_wait_wake(fd, wakefd, spilling ? CL_SPILL_LOOK_MS :
			    1000, &rev);
			pthread_mutex_lock(&cl.lock);
			atomic_store(&cl.watch_idle, 0);
			if (cl.stopping)
				break;
			if (cl.vlc == v && (rev & (POLLRDHUP | POLLHUP |
			    POLLERR | POLLNVAL)))
				cl_disconnect_locked("statsd closed the "
				    "connection");
			cl_rings_discard_locked();
			if (cl.vlc != NULL)
				cl_images_refresh_locked();
			backoff = CL_BACKOFF_MIN_MS;
			continue;
		}
		if (cl_connect_locked() == 0)
			continue;
		pthread_mutex_unlock(&cl.lock);
		cl_wait_wake(-1, wakefd, backoff, &rev);
		pthread_mutex_lock(&cl.lock);
		backoff = backoff * 2 > CL_BACKOFF_MAX_MS ? CL_BACKOFF_MAX_MS :
		    backoff * 2;
	}
	cl.thr_running = false;
	pthread_mutex_unlock(&cl.lock);
	return NULL;
}

/* Stop the watcher; cl.lock held on entry and on return. */
static void
cl_watch_stop_locked(void)
{
	uint64_t one = 1;
	pthread_t t = cl.thr;

	if (!cl.thr_running)
		return;
	cl.stopping = true;
	(void)!write(cl.wakefd, &one, sizeof(one));
	pthread_mutex_unlock(&cl.lock);
	pthread_join(t, NULL);
	pthread_mutex_lock(&cl.lock);
	cl.stopping = false;
}

/* ------------------------------------------------------------------ fork */

static void
cl_atfork_prepare(void)
{
	pthread_mutex_lock(&cl.lock);
}

static void
cl_atfork_parent(void)
{
	pthread_mutex_unlock(&cl.lock);
}

/* The child shares the parent's socket and rings: it must use neither. It
 * keeps the read-only maps and what the parent created (same user), and
 * connects again on first use. */
static void
cl_atfork_child(void)
{
	if (cl.refs > 0) {
		cl.vlc = vlc_free(cl.vlc);
		atomic_store_explicit(&cl.connected, 0, memory_order_relaxed);
		cl.thr_running = false;
		cl.stopping = false;
		atomic_store(&cl.watch_fd, -1);
		atomic_store(&cl.watch_idle, 0);
		if (cl.wakefd >= 0)
			close(cl.wakefd);
		cl.wakefd = -1;
		cl.pid = getpid();
		cl.gen = 0;
		cl_rings_forget_locked();
	}
	cl_producer_child();
	pthread_mutex_unlock(&cl.lock);
}

static void
cl_init_once(void)
{
	pthread_atfork(cl_atfork_prepare, cl_atfork_parent, cl_atfork_child);
	cl_producer_init_once();
}

/* ------------------------------------------------------------ public API */

static int
cl_open_locked(const char *path, int flags, bool implicit)
{
	int r;

	if (path == NULL)
		path = vlc_default_socket();
	if (cl.refs > 0) {
		if (strcmp(path, cl.path) != 0)
			return cl_fail(EBUSY, "the process is connected to %s",
			    cl.path);
		cl.refs++;
		return 0;
	}
	cl.path = strdup(path);
	if (cl.path == NULL)
		return -ENOMEM;
	cl.life = &cl_life;
	cl.flags = flags;
	cl.implicit = implicit;
	cl.ring_log2 = ((unsigned)flags >> 8) & 0x1f;
	cl.nospill = (flags & STATS_CLIENT_NOSPILL) != 0;
	cl.pid = getpid();
	cl.gen = 0;
	cl.err[0] = '\0';
	cl.refs = 1;
	r = cl_connect_locked();
	if (r < 0 && !(flags & STATS_CLIENT_LAZY)) {
		cl.refs = 0;
		free(cl.path);
		cl.path = NULL;
		return r;
	}
	cl_kick_locked();
	return 0;
}

stats_client_t *
stats_client_open(const char *socket_path, int flags)
{
	int r;

	if ((flags & ~CL_FLAGS_KNOWN) != 0 || (socket_path != NULL &&
	    socket_path[0] == '\0')) {
		errno = EINVAL;
		return NULL;
	}
	pthread_once(&cl_once, cl_init_once);
	pthread_mutex_lock(&cl.lock);
	r = cl_open_locked(socket_path, flags, false);
	pthread_mutex_unlock(&cl.lock);
	if (r < 0) {
		errno = -r;
		return NULL;
	}
	return &cl;
}

stats_client_t *
stats_client_default(void)
{
	int r = 0;

	pthread_once(&cl_once, cl_init_once);
	pthread_mutex_lock(&cl.lock);
	if (cl.refs == 0)
		r = cl_open_locked(NULL, STATS_CLIENT_LAZY, true);
	pthread_mutex_unlock(&cl.lock);
	if (r < 0) {
		errno = -r;
		return NULL;
	}
	return &cl;
}

void
stats_client_close(stats_client_t *c)
{
	if (c != &cl)
		return;
	pthread_mutex_lock(&cl.lock);
	if (cl.refs == 0 || --cl.refs > 0) {
		pthread_mutex_unlock(&cl.lock);
		return;
	}
	cl_watch_stop_locked();
	cl_rings_free_locked();
	cl_images_free_locked();
	cl.vlc = vlc_free(cl.vlc);
	atomic_store_explicit(&cl.connected, 0, memory_order_release);
	cl_segments_free_locked();
	/* What was created stays with statsd; forget how to re-create it. */
	while (cl.objs != NULL)
		cl_kobj_list_del(cl.objs);
	cl_tplregs_free_locked();
	atomic_store(&cl.watch_fd, -1);
	atomic_store(&cl.watch_idle, 0);
	if (cl.wakefd >= 0)
		close(cl.wakefd);
	cl.wakefd = -1;
	free(cl.path);
	cl.path = NULL;
	pthread_mutex_unlock(&cl.lock);
}

int
stats_client_flush(stats_client_t *c, int timeout_ms)
{
	uint64_t start = clock_now_ns();
	int left;

	if (c != &cl)
		return -EINVAL;
	pthread_mutex_lock(&cl.lock);
	if (cl.refs == 0) {
		pthread_mutex_unlock(&cl.lock);
		return -EINVAL;
	}
	if (cl.vlc == NULL && (cl.flags & STATS_CLIENT_NORECONNECT) &&
	    cl_connect_locked() < 0) {
		pthread_mutex_unlock(&cl.lock);
		return -ENOTCONN;
	}
	if (cl.vlc == NULL)
		cl_kick_locked();
	pthread_mutex_unlock(&cl.lock);
	/* Rings wait in a dead statsd: they drain once the client is back. */
	while (!atomic_load_explicit(&cl.connected, memory_order_acquire)) {
		struct timespec ts = { 0, 2000000 };

		if (timeout_ms >= 0 && clock_now_ns() - start >=
		    (uint64_t)timeout_ms * 1000000u)
			return -ETIMEDOUT;
		nanosleep(&ts, NULL);
	}
	left = timeout_ms < 0 ? -1 : timeout_ms - (int)((clock_now_ns() - start) /
	    1000000u);
	return cl_rings_flush(timeout_ms < 0 ? -1 : left > 0 ? left : 0);
}

int
stats_client_connect(stats_client_t *c)
{
	int r;

	if (c != &cl)
		return -EINVAL;
	pthread_mutex_lock(&cl.lock);
	r = cl_ensure_locked();
	/* The watcher, as a lazy first use starts it: it notices statsd
	 * going away and connects again, or goes on trying after a
	 * failure. */
	cl_kick_locked();
	pthread_mutex_unlock(&cl.lock);
	/* The thread's ring, now: its first update needs no call, and a
	 * connection that holds a ring is never closed as idle (a fork
	 * child waiting for work would otherwise lose it, and drop the
	 * updates it makes while the watcher connects again). */
	return r < 0 ? r : cl_thread_ring_attach();
}

/* The updates c's rings have taken and dropped; none for another
 * client than the process's one. */
static void
cl_counts(stats_client_t *c, uint64_t *pushed, uint64_t *dropped)
{
	*pushed = *dropped = 0;
	if (c != &cl)
		return;
	pthread_mutex_lock(&cl.lock);
	cl_rings_count_locked(pushed, dropped);
	pthread_mutex_unlock(&cl.lock);
}

uint64_t
stats_client_dropped(stats_client_t *c)
{
	uint64_t pushed, dropped;

	cl_counts(c, &pushed, &dropped);
	return dropped;
}

uint64_t
stats_client_pushed(stats_client_t *c)
{
	uint64_t pushed, dropped;

	cl_counts(c, &pushed, &dropped);
	return pushed;
}

int
stats_client_connected(stats_client_t *c)
{
	return c == &cl && atomic_load_explicit(&cl.connected,
	    memory_order_acquire) != 0;
}

uint64_t
stats_client_reconnects(stats_client_t *c)
{
	return c == &cl ? atomic_load_explicit(&cl.reconnects,
	    memory_order_relaxed) : 0;
}

const char *
stats_client_strerror(stats_client_t *c)
{
	static _Thread_local char copy[sizeof(cl.err)];

	if (c != &cl)
		return "not a client";
	pthread_mutex_lock(&cl.lock);
	memcpy(copy, cl.err, sizeof(copy));
	pthread_mutex_unlock(&cl.lock);
	return copy;
}
