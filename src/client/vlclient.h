/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * vlclient.h: a small varlink client for statsd's control socket — connect,
 * call, receive replies with the file descriptors that came with them, and
 * turn varlink errors into errno values and text. libstatsclient and
 * statsctl both speak to statsd through it.
 *
 * Wire format (varlink.org): each message is one JSON object followed by a
 * NUL byte, over a SOCK_STREAM Unix socket. A call is
 *   {"method": "io.statsd.Chain", "parameters": {...}, "more": true}
 * and a reply is {"parameters": {...}} or {"error": "io.statsd.X",
 * "parameters": {...}}, with "continues": true on every reply of a stream
 * but the last. File descriptors travel as SCM_RIGHTS with the first byte
 * of the message they belong to.
 *
 * A connection carries one call at a time (varlink allows no interleaving):
 * callers that share one serialise their calls themselves. Every wait has a
 * time-out; nothing here prints, logs or raises SIGPIPE.
 */
#ifndef STATSD_CLIENT_VLCLIENT_H
#define STATSD_CLIENT_VLCLIENT_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "varlink_names.h"

/* Most descriptors one reply may carry (statsd sends at most two). */
#define VLC_MAX_FDS		8
/* Longest reply accepted, its NUL included. */
#define VLC_MAX_MESSAGE		(16u << 20)

/* vlc_call() / vlc_send() flags. */
#define VLC_MORE		0x01u	/* ask for a stream of replies */
#define VLC_ONEWAY		0x02u	/* no reply is sent */

struct vlc;

/* One reply. Everything in it is owned by it until vlc_reply_done(). */
/*
 * vlc_loadb: the JSON message buf[0, len) (buf[len] must be its NUL), as
 * json_loadb() with JSON_REJECT_DUPLICATES reads it, but with its longest
 * string, if long (a Scrape page's text), decoded at memcpy speed.
 * Returns: the value; NULL if it is not JSON.
 */
json_t *vlc_loadb(const char *buf, size_t len);

struct vlc_reply {
	json_t	*params;		/* "parameters", never NULL: {} */
	char	*error;			/* "error", or NULL for success */
	bool	 continues;		/* more replies of this call follow */
	int	 fds[VLC_MAX_FDS];	/* descriptors, in the order sent */
	size_t	 nfds;
};

/*
 * vlc_connect: connect to the Unix socket at path, waiting at most
 * timeout_ms (negative: the default of 5 s) for the daemon to accept.
 * Returns: 0 and *ret; -EINVAL for a NULL or too long path; -ENOENT if
 * nothing is there; -ECONNREFUSED if no one listens; -ETIMEDOUT; -ENOMEM;
 * -errno from socket or connect.
 */
int vlc_connect(const char *path, int timeout_ms, struct vlc **ret);

/* Close the connection and free it. NULL-safe. Returns: NULL. */
struct vlc *vlc_free(struct vlc *c);

/* The socket (to poll for the peer going away; never read it). */
int vlc_fd(const struct vlc *c);

/* The path the connection was made to. */
const char *vlc_path(const struct vlc *c);

/*
 * vlc_send: send a call without waiting for its reply. params is borrowed
 * (NULL: {}); fds (may be NULL if nfds is 0) are sent with it and stay the
 * caller's.
 * Returns: 0; -EINVAL for a bad method or too many fds; -EPIPE if the
 * connection is closed (it is then unusable); -ETIMEDOUT if the daemon
 * takes nothing for timeout_ms; -ENOMEM; -errno from sendmsg.
 */
int vlc_send(struct vlc *c, const char *method, json_t *params,
    unsigned flags, const int *fds, size_t nfds, int timeout_ms);

/*
 * vlc_send_text: vlc_send() of parameters already written as a JSON
 * object's text (jdump.h jtext; NULL: {}), which is sent as it is. The
 * method's name must need no escaping (-EINVAL).
 */
int vlc_send_text(struct vlc *c, const char *method, const char *params,
    unsigned flags, const int *fds, size_t nfds, int timeout_ms);

/*
 * vlc_recv: wait at most timeout_ms for the next reply. A call that timed
 * out leaves the connection usable: its reply, when it comes, is skipped
 * (and its descriptors closed) before the next one is returned.
 * Returns: 0 and *ret (vlc_reply_done() it) for a success reply; -EREMOTEIO
 * and *ret filled for an error reply (ret->error names it); -ETIMEDOUT;
 * -EPIPE if the daemon closed the connection; -EPROTO for a reply that is
 * not a JSON object, has the wrong member types, or is longer than
 * VLC_MAX_MESSAGE (the connection is then unusable); -ENOMEM.
 */
int vlc_recv(struct vlc *c, int timeout_ms, struct vlc_reply *ret);

/*
 * vlc_call: vlc_send() then vlc_recv() within one time-out. With VLC_ONEWAY
 * nothing is received and *ret is left empty.
 * Returns: as vlc_send() and vlc_recv().
 */
int vlc_call(struct vlc *c, const char *method, json_t *params,
    unsigned flags, const int *fds, size_t nfds, int timeout_ms,
    struct vlc_reply *ret);

/* vlc_call_text: vlc_send_text() then vlc_recv(), as vlc_call(). */
int vlc_call_text(struct vlc *c, const char *method, const char *params,
    unsigned flags, const int *fds, size_t nfds, int timeout_ms,
    struct vlc_reply *ret);

/*
 * vlc_reply_take_fd: take descriptor i of a reply (the reply no longer
 * closes it).
 * Returns: the descriptor; -EBADMSG if the reply has no descriptor i.
 */
int vlc_reply_take_fd(struct vlc_reply *r, size_t i);

/* Free a reply and close the descriptors nobody took. NULL-safe. */
void vlc_reply_done(struct vlc_reply *r);

/*
 * vlc_error_errno: the errno value that best says what a varlink error
 * name means to a caller (io.statsd.NoSuchKstat is ENOENT, ...).
 * Returns: a positive errno; EPROTO for a name not in the table.
 */
int vlc_error_errno(const char *error);

/*
 * vlc_reply_describe: a one-line text for an error reply, e.g.
 * "io.statsd.NoSuchKstat: kstat=app:0:requests", into buf (truncated to
 * len, always terminated).
 * Returns: buf.
 */
char *vlc_reply_describe(const struct vlc_reply *r, char *buf, size_t len);

/*
 * vlc_default_socket: the socket path a client uses when given none:
 * $STATSD_SOCKET if set and not empty, else STATS_DEFAULT_SOCKET.
 * Returns: a string that lives as long as the environment entry.
 */
const char *vlc_default_socket(void);

#endif
