/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * varlink_priv.h: what varlink's files share: a connection's varlink
 * state, and the calls the message dispatch (varlink.c) makes into the
 * parameter checks (vl_check.c) and the streams and jobs (vl_stream.c).
 * Lowest first: vl_check.c, vl_reply.c, vl_stream.c, varlink.c.
 */
#ifndef STATSD_VARLINK_PRIV_H
#define STATSD_VARLINK_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "varlink.h"

struct conn;
struct vl_job;
struct vl_stream;

struct vl_conn {
	struct vl_stream *stream;
	struct vl_job	 *job;
	bool		  errored;	/* the current call got an error */
};

/* vl_check.c: check obj against fields. Returns: 0; -EINVAL with the
 * refused value's path in bad. */
int	vl_check_params(json_t *obj, const struct vl_field *fields, char *bad,
	    size_t badlen);

/* vl_stream.c */
void	vl_run(struct vl_call *call, json_t *params);
void	vl_start_stream(struct vl_call *call, json_t *params);
/* The client's output fell below the high mark. */
void	vl_stream_drained(struct conn *c);
/* The connection closed: its stream and job go. */
void	vl_conn_free(struct conn *c);

#endif
