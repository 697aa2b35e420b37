/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conn.h: statsctl's side of the control socket — connect once, make a
 * call, and turn a failure (no daemon, a time-out, an io.statsd error)
 * into one message on stderr that says what was wrong.
 */
#ifndef STATSCTL_CONN_H
#define STATSCTL_CONN_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "statsctl.h"
#include "varlink_names.h"

/* Replies wait this long, except a stream's, which waits for its
 * interval as well. */
#define SC_TIMEOUT_MS	10000

/*
 * sc_conn: the connection, made on first use to sc->socket. On failure
 * prints "statsctl: cannot connect to PATH: <why> (is statsd running?)".
 * Returns: the connection; NULL.
 */
struct vlc *sc_conn(struct sc *sc);

/* Close the connection, if any. */
void sc_conn_close(struct sc *sc);

/*
 * sc_call: call method (a VL_M_* name) with params (stolen; NULL: {}) and
 * wait for its reply. On success *ret_params (may be NULL) is the reply's
 * parameters (the caller json_decref()s it); on failure the error is
 * printed. The pages of a read of many kstats or templates are joined
 * into one reply (sc_call_each() takes them one at a time).
 * Returns: 0; SC_EXIT_FAIL.
 */
int sc_call(struct sc *sc, const char *method, json_t *params,
    json_t **ret_params);

/*
 * sc_call_each: call method (params stolen) and hand each of its replies'
 * parameters to fn (borrowed for the call): one reply, or, for a read of
 * many kstats or templates, each page of it as it streams ("more"), so
 * that statsctl holds one page whatever statsd holds. Errors are
 * printed.
 * Returns: 0; SC_EXIT_FAIL; fn's first non-zero value, which ends it.
 */
typedef int (*sc_reply_fn)(const json_t *params, void *arg);
int sc_call_each(struct sc *sc, const char *method, json_t *params,
    sc_reply_fn fn, void *arg);

/*
 * sc_stream_start: start a streamed call of method (a VL_M_* name;
 * "more": the daemon replies every interval). params is stolen.
 * Returns: 0; SC_EXIT_FAIL (printed).
 */
int sc_stream_start(struct sc *sc, const char *method, json_t *params);

/*
 * sc_stream_next: the next reply of the stream, waiting at most
 * timeout_ms. *ret_more says whether more replies follow.
 * Returns: 0 and *ret_params; SC_EXIT_FAIL (printed).
 */
int sc_stream_next(struct sc *sc, int timeout_ms, json_t **ret_params,
    bool *ret_more);

/*
 * sc_describe_error: the text statsctl prints for an error reply of the
 * daemon: its name and parameters made into a sentence.
 * Returns: buf.
 */
char *sc_describe_error(const char *error, json_t *params, char *buf,
    size_t len);

#endif /* STATSCTL_CONN_H */
