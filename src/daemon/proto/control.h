/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * control.h: the control socket and its connections — accept, peer
 * credentials, connection limits (total and per uid), NUL framing, the
 * message size limit, the idle time-out and output backpressure. It knows
 * nothing of what the messages mean: complete messages go to the protocol
 * layer through the callbacks it is given (struct control_events, which
 * varlink.c provides), one in each turn of the peer's uid (turns.h), and
 * replies come back as bytes (and file descriptors) to queue.
 *
 * Nothing here blocks: sockets are non-blocking, input is read as it
 * comes, output is queued and written when the socket takes it. Above the
 * high mark (max_output / 4) a connection's calls are no longer read and
 * its streams skip replies; below the low mark (max_output / 16) both
 * resume; past max_output the client is disconnected.
 */
#ifndef STATSD_DAEMON_CONTROL_H
#define STATSD_DAEMON_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rights.h"

struct statsd;
struct control;

#define CONN_MAX_FDS	4	/* descriptors a client may pass with a call */

/* A connection, as the protocol layer sees it. */
struct conn {
	struct statsd	*d;
	struct peer	 peer;
	uint64_t	 id;
	void		*vl;		/* varlink.c's per-connection state */
	unsigned	 nrings;	/* rings attached: no idle time-out */
	bool		 streaming;	/* a "more" call is running */
};

/* What a connection's events are handed to: the protocol layer. */
struct control_events {
	/* A complete message of len bytes (its NUL not counted). */
	void	(*message)(struct conn *c, const char *msg, size_t len);
	/* A message grew past limit bytes; the connection then closes once
	 * its output is written. */
	void	(*too_large)(struct conn *c, size_t limit);
	/* The connection is going away. */
	void	(*closed)(struct conn *c);
	/* Its output fell below the low mark. */
	void	(*drained)(struct conn *c);
};

/*
 * control_new: serve the control protocol on the listening sockets in
 * fds (from socket activation; taken over), or, with n == 0, on a socket
 * bound at d->socket_path (a stale socket file there is replaced), handing
 * each connection's events to ev.
 * Returns: 0 and *ret; -errno (logged).
 */
int control_new(struct statsd *d, const struct control_events *ev,
    const int *fds, size_t n, struct control **ret);

/* Close every connection and the listening sockets. The socket file is
 * removed only if statsd bound it itself. NULL-safe. Returns: NULL. */
struct control *control_free(struct control *ctl);

/* Connections open now. */
unsigned control_nconns(const struct control *ctl);

/*
 * control_send: queue one message (len bytes, its NUL included, taken
 * over: malloc'd) and nfds descriptors (taken over; sent with the
 * message's first byte).
 * Returns: 0; -ENOBUFS if the connection went past max_output (it is then
 * being closed); -EPIPE if it is closing already.
 */
int control_send(struct conn *c, char *data, size_t len, int *fds,
    size_t nfds);

/*
 * control_reserve: count delta more bytes (or, negative, fewer) of a
 * reply still being built for c (a call answered in slices) in its
 * user's buffered bytes (QUOTA_BUFFERED), as if they were queued.
 * Returns: 0; -EDQUOT with *why filled (nothing reserved: the call should
 * fail with LimitReached).
 */
struct quota_refusal;
int control_reserve(struct conn *c, int64_t delta, struct quota_refusal *why);

/* Is the connection's output above the high mark (streams should skip)? */
bool control_output_high(const struct conn *c);

/*
 * control_turn_queue: run t (its run set) in the connection's turn, the
 * turn its uid's calls share (turns.h): what a call does later (its next
 * page, a slice) waits for the same turn as its next call would.
 * control_turn_cancel: take it back (before what it runs goes away).
 */
struct turn_task;
void control_turn_queue(struct conn *c, struct turn_task *t);
void control_turn_cancel(struct conn *c, struct turn_task *t);

/* Take up to max descriptors that came with the current call.
 * Returns: how many. */
size_t control_take_fds(struct conn *c, int *fds, size_t max);

/* Stop or resume handing this connection's messages on (one call at a
 * time: a stream holds the connection). */
void control_hold_input(struct conn *c, bool hold);

/* From inside a call (the message callback): write what the call queued
 * now, not when the callback returns, so that what the callback still
 * does (freeing the call) overlaps the client's reading of the reply. */
void control_flush_call(struct conn *c);

/* Close the connection once its output is written. */
void control_close_after_flush(struct conn *c);

/* Close it now (a protocol violation, a stream that failed). */
void control_close(struct conn *c);

/* Apply a reloaded configuration's limits (they apply to new events). */
void control_reload(struct control *ctl);

#endif
