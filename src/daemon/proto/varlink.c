/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * varlink.c: the varlink protocol over control.c's connections: message
 * parsing and its envelope, dispatch through the method table main.c
 * gives it (methods.c's; it names no handler) after the method's right
 * and parameters are checked, "oneway", and the callbacks control.c
 * calls. Parameter checks are vl_check.c's, replies vl_reply.c's,
 * streams, pages and deferred calls vl_stream.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "control.h"
#include "daemon.h"
#include "jload.h"
#include "log.h"
#include "varlink.h"
#include "varlink_priv.h"

/* The call envelope. */
static const struct vl_field vl_envelope[] = {
	VLF_STR("method", false, 255),
	VLF_OBJ("parameters", true),
	VLF_BOOL("more", true),
	VLF_BOOL("oneway", true),
	VLF_BOOL("upgrade", true),
	VLF_END
};

static struct vl_conn *
vl_conn_get(struct conn *c)
{
	if (c->vl == NULL)
		c->vl = calloc(1, sizeof(struct vl_conn));
	return c->vl;
}

static const struct vl_method *
vl_find(const struct vl_methods *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (strcmp(t->m[i].name, name) == 0)
			return &t->m[i];
	return NULL;
}

/* Is name's interface part one we serve? */
static bool
vl_interface_known(const char *name, char *iface, size_t len)
{
	const char *dot = strrchr(name, '.');
	size_t n = dot != NULL ? (size_t)(dot - name) : 0;

	if (n >= len)
		n = len - 1;
	memcpy(iface, name, n);
	iface[n] = '\0';
	return strcmp(iface, VL_IFACE_STATSD) == 0 ||
	    strcmp(iface, VL_IFACE_SERVICE) == 0;
}

static void
vl_protocol_error(struct conn *c, enum vl_err e, json_t *params)
{
	struct vl_call call = { .d = c->d, .conn = c };

	varlink_error(&call, e, params);
}

static void
varlink_conn_message(struct conn *c, const char *msg, size_t len)
{
	struct vl_call call = { .d = c->d, .conn = c };
	const struct vl_method *m;
	json_error_t jerr;
	json_t *root, *params;
	char bad[256], iface[256];
	const char *name;

	if (vl_conn_get(c) == NULL) {
		control_close(c);
		return;
	}
	/* jansson's reading and errors, in a fifth of the time for what
	 * calls hold (jload.h). */
	root = jload(msg, len, &jerr);
	if (root == NULL) {
		char reason[300];

		snprintf(reason, sizeof(reason), "not JSON: %s at line %d, "
		    "column %d", jerr.text, jerr.line, jerr.column);
		vl_protocol_error(c, VL_E_INVALID_MESSAGE,
		    json_pack("{s:s}", "reason", reason));
		return;
	}
	if (!json_is_object(root)) {
		vl_protocol_error(c, VL_E_INVALID_MESSAGE,
		    json_pack("{s:s}", "reason", "not a JSON object"));
		goto out;
	}
	if (!json_is_string(json_object_get(root, "method"))) {
		vl_protocol_error(c, VL_E_INVALID_MESSAGE, json_pack("{s:s}",
		    "reason", "no \"method\" string"));
		goto out;
	}
	params = json_object_get(root, "parameters");
	/* A null "parameters" is none, as other varlink services read it:
	 * the reference Go library sends it for a call without any. */
	if (json_is_null(params))
		params = NULL;
	if (params != NULL && !json_is_object(params)) {
		vl_protocol_error(c, VL_E_INVALID_MESSAGE, json_pack("{s:s}",
		    "reason", "\"parameters\" is not an object"));
		goto out;
	}
	if (vl_check_params(root, vl_envelope, bad, sizeof(bad)) < 0) {
		vl_protocol_error(c, VL_E_INVALID_PARAMETER,
		    json_pack("{s:s}", "parameter", bad));
		goto out;
	}
	call.more = json_is_true(json_object_get(root, "more"));
	call.oneway = json_is_true(json_object_get(root, "oneway"));
	name = json_string_value(json_object_get(root, "method"));
	m = vl_find(c->d->methods, name);
	if (m == NULL) {
		if (!vl_interface_known(name, iface, sizeof(iface)))
			varlink_error(&call, VL_E_INTERFACE_NOT_FOUND,
			    json_pack("{s:s}", "interface", iface));
		else
			varlink_error(&call, VL_E_METHOD_NOT_FOUND,
			    json_pack("{s:s}", "method", name));
		goto out;
	}
	call.method = m;
	if (json_is_true(json_object_get(root, "upgrade"))) {
		varlink_error_param(&call, "upgrade");
		goto out;
	}
	if (call.more && (m->flags & (VL_M_STREAMS | VL_M_PAGES)) == 0) {
		call.more = false;
		varlink_error_param(&call, "more");
		goto out;
	}
	if (call.more && call.oneway) {
		call.more = false;
		call.oneway = false;
		varlink_error_param(&call, "oneway");
		goto out;
	}
	if (!rights_allows(&c->peer, m->right)) {
		varlink_error_denied(&call, m->right);
		goto out;
	}
	if (params == NULL) {
		params = json_object();
		json_object_set_new(root, "parameters", params);
	}
	if (vl_check_params(params, m->params, bad, sizeof(bad)) < 0) {
		varlink_error_param(&call, bad);
		goto out;
	}
	log_debug("uid %u: %s", (unsigned)c->peer.uid, m->name);
	if (call.more)
		vl_start_stream(&call, params);
	else
		vl_run(&call, params);
out:
	/* The reply goes before the call's objects are freed (a
	 * KstatCreate's are some 4,000 instructions): the client wakes and
	 * reads it meanwhile. */
	control_flush_call(c);
	json_decref(root);
}

static void
varlink_conn_too_large(struct conn *c, size_t limit)
{
	log_notice("connection %llu (uid %u): message over %zu bytes; "
	    "closing", (unsigned long long)c->id, (unsigned)c->peer.uid,
	    limit);
	vl_protocol_error(c, VL_E_MESSAGE_TOO_LARGE,
	    json_pack("{s:I}", "limit", (json_int_t)limit));
}

static void
varlink_conn_closed(struct conn *c)
{
	if (c->d->conn_closed != NULL)
		c->d->conn_closed(c->d, c);
	vl_conn_free(c);
}

const struct control_events varlink_conn_events = {
	.message = varlink_conn_message,
	.too_large = varlink_conn_too_large,
	.closed = varlink_conn_closed,
	.drained = vl_stream_drained,
};
