/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * call.c: the process's one client as every other file of the library
 * uses it — its calls over the socket, the last error text, making sure
 * it is connected, and waking the watcher thread. Connecting (and bringing
 * rings, segments, kstats and mapped blobs back) and the watcher are
 * client.c's, above everything; this file reaches them only through the
 * struct cl_life client.c gives it, so that the files between call down.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "client_priv.h"

struct stats_client cl = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.wakefd = -1,
	.watch_fd = -1,
};

int
cl_fail(int err, const char *fmt, ...)
{
	va_list ap;

	if (err < 0)
		err = -err;
	va_start(ap, fmt);
	vsnprintf(cl.err, sizeof(cl.err), fmt, ap);
	va_end(ap);
	return -err;
}

/* ------------------------------------------------------------- the calls */

void
cl_disconnect_locked(const char *why)
{
	if (cl.vlc == NULL)
		return;
	cl.vlc = vlc_free(cl.vlc);
	atomic_store_explicit(&cl.connected, 0, memory_order_release);
	if (why != NULL)
		(void)cl_fail(ENOTCONN, "disconnected from %s: %s", cl.path,
		    why);
	cl_kick_locked();
}

/* What vlc_call() returned, as cl_call_locked() returns it. */
static int
cl_call_end_locked(const char *method, int r, struct vlc_reply *ret)
{
	char desc[400];
	const char *m;

	m = strrchr(method, '.') != NULL ? strrchr(method, '.') + 1 : method;
	if (r == -EREMOTEIO) {
		r = vlc_error_errno(ret->error);
		(void)cl_fail(r, "%s: %s", m,
		    vlc_reply_describe(ret, desc, sizeof(desc)));
		return -r;
	}
	if (r == -ETIMEDOUT || r == -ENOMEM)
		return cl_fail(r, "%s: %s", m, strerror(-r));
	if (r < 0) {
		/* Gone, or the framing is lost: the connection cannot be
		 * used again. (A late reply is skipped by vlclient.) */
		cl_disconnect_locked(strerror(-r));
		(void)cl_fail(r, "%s: %s", m, strerror(-r));
		return r == -EPIPE ? -ENOTCONN : r;
	}
	return 0;
}

int
cl_call_locked(const char *method, json_t *params, const int *fds,
    size_t nfds, struct vlc_reply *ret)
{
	int r;

	memset(ret, 0, sizeof(*ret));
	if (cl.vlc == NULL) {
		json_decref(params);
		return cl_fail(ENOTCONN, "%s: not connected to statsd",
		    method);
	}
	r = vlc_call(cl.vlc, method, params, 0, fds, nfds, CL_CALL_TIMEOUT_MS,
	    ret);
	json_decref(params);
	return cl_call_end_locked(method, r, ret);
}

int
cl_call_text_locked(const char *method, const char *params,
    struct vlc_reply *ret)
{
	memset(ret, 0, sizeof(*ret));
	if (cl.vlc == NULL)
		return cl_fail(ENOTCONN, "%s: not connected to statsd",
		    method);
	return cl_call_end_locked(method, vlc_call_text(cl.vlc, method,
	    params, 0, NULL, 0, CL_CALL_TIMEOUT_MS, ret), ret);
}

int
cl_ensure_locked(void)
{
	if (cl.refs == 0)
		return cl_fail(ENOTCONN, "the client is closed");
	if (cl.vlc != NULL)
		return 0;
	/* The last error keeps why (no socket, refused, another ABI). */
	return cl.life->connect_locked() < 0 ? -ENOTCONN : 0;
}

/* ------------------------------------------------------------ the watcher */

void
cl_kick_locked(void)
{
	uint64_t one = 1;
	sigset_t all, old;

	if (cl.refs == 0 || cl.stopping ||
	    (cl.flags & STATS_CLIENT_NORECONNECT))
		return;
	if (cl.wakefd < 0) {
		cl.wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (cl.wakefd < 0)
			return;
		atomic_store(&cl.watch_fd, cl.wakefd);
	}
	if (!cl.thr_running) {
		/* The watcher takes no signal meant for the application. */
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		if (pthread_create(&cl.thr, NULL, cl.life->watch, NULL) == 0)
			cl.thr_running = true;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	(void)!write(cl.wakefd, &one, sizeof(one));
}

void
cl_watcher_spilling(void)
{
	uint64_t one = 1;
	int fd;

	if (atomic_exchange(&cl.watch_idle, 0) == 0)
		return;
	fd = atomic_load(&cl.watch_fd);
	if (fd >= 0)
		(void)!write(fd, &one, sizeof(one));
}
