/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * vl_reply.c: varlink replies and errors: a reply's message (with
 * "continues" in a stream) queued on control.c's connection with the
 * descriptors it passes, one too large for max_output refused in its
 * place, and every error reply the handlers send.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>

#include <jansson.h>

#include "control.h"
#include "daemon.h"
#include "jdump.h"
#include "log.h"
#include "quota.h"
#include "input_error.h"
#include "varlink.h"
#include "varlink_priv.h"

/* Queue message text s (len bytes with its NUL; taken over). */
static int
vl_send_text(struct vl_call *call, char *s, size_t len, int *fds,
    size_t nfds)
{
	size_t i, max = call->d->cfg.max_output;
	json_t *msg;

	if (len > max / 2) {
		struct quota_refusal why = { "max_output", max };

		/* One reply that could never be queued: say so instead of
		 * dropping the client. */
		free(s);
		for (i = 0; i < nfds; i++)
			close(fds[i]);
		quota_refused_log(call->d->quota, call->conn->peer.uid,
		    "a reply over max_output / 2", &why);
		msg = json_pack("{s:s, s:{s:s, s:I}}", "error",
		    vl_errors[VL_E_LIMIT_REACHED].name, "parameters",
		    "limit", "max_output", "value", (json_int_t)max);
		s = msg != NULL ? json_dumps(msg, JSON_COMPACT) : NULL;
		json_decref(msg);
		if (s == NULL)
			return -ENOMEM;
		len = strlen(s) + 1;
		nfds = 0;
	}
	return control_send(call->conn, s, len, fds, nfds);
}

static int
vl_send(struct vl_call *call, json_t *msg, int *fds, size_t nfds)
{
	size_t i, len;
	char *s;

	/* jdump() writes json_dumps()'s bytes without its loop check: a
	 * Hello's reply cost 4 us of jansson. */
	s = jdump(msg, 0, &len);
	json_decref(msg);
	if (s == NULL) {
		for (i = 0; i < nfds; i++)
			close(fds[i]);
		return -ENOMEM;
	}
	return vl_send_text(call, s, len + 1, fds, nfds);
}

int
varlink_reply_textv(struct vl_call *call, const struct iovec *v, size_t n)
{
	static const char head[] = "{\"parameters\":";
	const char *cont = call->more && !call->last ? ",\"continues\":true" :
	    "";
	size_t total, i, o, clen = strlen(cont);
	char *s;

	if (call->answered)
		return -EALREADY;
	call->answered = true;
	if (call->oneway)
		return 0;
	total = sizeof(head) - 1 + clen + 2;
	for (i = 0; i < n; i++)
		total += v[i].iov_len;
	s = malloc(total);
	if (s == NULL)
		return -ENOMEM;
	memcpy(s, head, sizeof(head) - 1);
	o = sizeof(head) - 1;
	for (i = 0; i < n; i++) {
		memcpy(s + o, v[i].iov_base, v[i].iov_len);
		o += v[i].iov_len;
	}
	memcpy(s + o, cont, clen);
	o += clen;
	s[o++] = '}';
	s[o] = '\0';
	return vl_send_text(call, s, total, NULL, 0);
}

int
varlink_reply_text(struct vl_call *call, const char *params, size_t len)
{
	struct iovec v = { .iov_base = (void *)(uintptr_t)params,
	    .iov_len = len };

	return varlink_reply_textv(call, &v, 1);
}

int
varlink_reply_fds(struct vl_call *call, json_t *params, int *fds, size_t nfds)
{
	json_t *msg;
	size_t i;

	if (call->answered) {
		log_error("%s: answered twice", call->method->name);
		json_decref(params);
		for (i = 0; i < nfds; i++)
			close(fds[i]);
		return -EALREADY;
	}
	call->answered = true;
	if (params == NULL)
		params = json_object();
	if (call->oneway) {
		json_decref(params);
		for (i = 0; i < nfds; i++)
			close(fds[i]);
		return 0;
	}
	msg = json_object();
	if (msg == NULL || params == NULL) {
		json_decref(msg);
		json_decref(params);
		for (i = 0; i < nfds; i++)
			close(fds[i]);
		return -ENOMEM;
	}
	json_object_set_new(msg, "parameters", params);
	if (call->more && !call->last)
		json_object_set_new(msg, "continues", json_true());
	return vl_send(call, msg, fds, nfds);
}

int
varlink_reply(struct vl_call *call, json_t *params)
{
	return varlink_reply_fds(call, params, NULL, 0);
}

int
varlink_error(struct vl_call *call, enum vl_err e, json_t *params)
{
	struct vl_conn *vc = call->conn->vl;
	json_t *msg;

	if (call->answered) {
		json_decref(params);
		return -EALREADY;
	}
	call->answered = true;
	if (vc != NULL)
		vc->errored = true;
	if (params == NULL)
		params = json_object();
	if (call->oneway) {
		json_decref(params);
		return 0;
	}
	msg = json_object();
	if (msg == NULL) {
		json_decref(params);
		return -ENOMEM;
	}
	json_object_set_new(msg, "error", json_string(vl_errors[e].name));
	json_object_set_new(msg, "parameters", params);
	return vl_send(call, msg, NULL, 0);
}

int
varlink_error_param(struct vl_call *call, const char *parameter)
{
	return varlink_error(call, VL_E_INVALID_PARAMETER,
	    json_pack("{s:s}", "parameter", parameter));
}

int
varlink_error_value(struct vl_call *call, const char *parameter,
    const char *fmt, ...)
{
	char reason[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	return varlink_error(call, VL_E_INVALID_VALUE, json_pack("{s:s, s:s}",
	    "parameter", parameter, "reason", reason));
}

int
varlink_error_input(struct vl_call *call, enum vl_err e,
    const struct input_error *err)
{
	const char *reason = err->msg[0] != '\0' ? err->msg : "refused";

	if (e == VL_E_INVALID_DEFINITION)
		return varlink_error(call, e, json_pack("{s:i, s:i, s:s, s:s}",
		    "line", (int)err->line, "column", (int)err->col,
		    "attribute", err->where, "reason", reason));
	return varlink_error(call, e, json_pack("{s:s, s:s}", "parameter",
	    err->where, "reason", reason));
}

int
varlink_error_errno(struct vl_call *call, int err, const char *what)
{
	char reason[256];

	if (err < 0)
		err = -err;
	snprintf(reason, sizeof(reason), "%s: %s", what, strerror(err));
	return varlink_error(call, VL_E_SYSTEM_ERROR, json_pack("{s:i, s:s}",
	    "errno", err, "reason", reason));
}

int
varlink_error_denied(struct vl_call *call, enum right r)
{
	return varlink_error(call, VL_E_PERMISSION_DENIED,
	    json_pack("{s:s, s:s}",
	    "method", call->method->name, "right", right_names[r]));
}

int
varlink_error_limit(struct vl_call *call, const char *limit, int64_t value)
{
	return varlink_error(call, VL_E_LIMIT_REACHED, json_pack("{s:s, s:I}",
	    "limit", limit, "value", (json_int_t)value));
}
