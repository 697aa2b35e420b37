/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conn.c: statsctl's connection to statsd — connect on first use, calls
 * and streams through vlclient, and the table that turns each of the
 * daemon's error replies into a sentence naming what was wrong.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vlclient.h"
#include "conn.h"
#include "output.h"

/*
 * What statsctl prints for each error the daemon may send: {field} is the
 * reply parameter of that name. The names come from the interface
 * definitions (varlink_names.h); the sentences are statsctl's, written
 * once, here, and the man page's DIAGNOSTICS follow them. An error with no
 * sentence yet is printed as its name and parameters.
 */
static const char *const sc_errors[VL_E_NUM] = {
	[VL_E_NO_SUCH_KSTAT] = "no such kstat: {kstat}",
	[VL_E_KSTAT_EXISTS] = "kstat exists already: {kstat}",
	[VL_E_NO_SUCH_TEMPLATE] = "no such template: {template}",
	[VL_E_TEMPLATE_EXISTS] = "another template is named {template}",
	[VL_E_TEMPLATE_MISMATCH] =
	    "{kstat} was made from another template than {template}",
	[VL_E_INVALID_TEMPLATE] = "invalid template, {parameter}: {reason}",
	[VL_E_INVALID_VALUE] = "invalid {parameter}: {reason}",
	[VL_E_PERMISSION_DENIED] =
	    "permission denied: {method} needs the {right} right",
	[VL_E_LIMIT_REACHED] = "limit reached: {limit} is {value}",
	[VL_E_NOT_WRITABLE] = "not writable: {kstat} {statistic}",
	[VL_E_INVALID_DEFINITION] = "invalid definition: line {line}, "
	    "column {column}, {attribute}: {reason}",
	[VL_E_INVALID_MESSAGE] = "statsd refused the call: {reason}",
	[VL_E_MESSAGE_TOO_LARGE] =
	    "message too large for statsd (limit {limit} bytes)",
	[VL_E_TOO_MANY_CONNECTIONS] =
	    "statsd has too many connections (limit {limit})",
	[VL_E_SYSTEM_ERROR] = "statsd failed: {reason} (errno {errno})",
	[VL_E_INVALID_PARAMETER] = "statsd refused parameter {parameter}",
	[VL_E_METHOD_NOT_FOUND] =
	    "statsd does not know {method} (an older statsd?)",
	[VL_E_METHOD_NOT_IMPLEMENTED] = "statsd does not implement {method}",
	[VL_E_INTERFACE_NOT_FOUND] = "statsd does not serve {interface}",
};

/* io.statsd's methods by their short names ("Snapshot"), as the user
 * knows them. */
static const char *
sc_short_name(const char *s)
{
	size_t n = strlen(VL_IFACE_STATSD);

	if (strncmp(s, VL_IFACE_STATSD, n) == 0 && s[n] == '.')
		return s + n + 1;
	return s;
}

/* Append text to buf at *off, truncating; buf stays terminated. */
static void
sc_append(char *buf, size_t len, size_t *off, const char *s, size_t n)
{
	if (*off + 1 >= len)
		return;
	if (n > len - 1 - *off)
		n = len - 1 - *off;
	memcpy(buf + *off, s, n);
	*off += n;
	buf[*off] = '\0';
}

/* Expand {field} from params; a missing field expands to "?". */
static void
sc_expand(const char *tmpl, json_t *params, char *buf, size_t len)
{
	size_t off = 0;
	const char *p = tmpl, *close;

	buf[0] = '\0';
	while (*p != '\0') {
		char key[64], *val;
		json_t *v;

		if (*p != '{' || (close = strchr(p, '}')) == NULL ||
		    (size_t)(close - p - 1) >= sizeof(key)) {
			sc_append(buf, len, &off, p, 1);
			p++;
			continue;
		}
		memcpy(key, p + 1, (size_t)(close - p - 1));
		key[close - p - 1] = '\0';
		v = json_object_get(params, key);
		if (json_is_string(v)) {
			const char *s = sc_short_name(json_string_value(v));

			sc_append(buf, len, &off, s, strlen(s));
		} else if (v != NULL) {
			val = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
			if (val != NULL)
				sc_append(buf, len, &off, val, strlen(val));
			free(val);
		} else {
			sc_append(buf, len, &off, "?", 1);
		}
		p = close + 1;
	}
}

char *
sc_describe_error(const char *error, json_t *params, char *buf, size_t len)
{
	struct vlc_reply r = { .params = params, .error = (char *)error };
	enum vl_err e = vl_error_lookup(error);

	if (len == 0)
		return buf;
	if (e < VL_E_NUM && sc_errors[e] != NULL) {
		sc_expand(sc_errors[e], params, buf, len);
		return buf;
	}
	return vlc_reply_describe(&r, buf, len);
}

/* A transport failure of a call as a sentence. */
static int
sc_transport_error(const struct sc *sc, const char *method, int r)
{
	method = sc_short_name(method);
	switch (r) {
	case -ETIMEDOUT:
		return sc_error("statsd did not answer %s in time (%s)",
		    method, sc->socket);
	case -EPIPE:
		return sc_error("statsd closed the connection during %s",
		    method);
	case -EPROTO:
		return sc_error("statsd sent a reply to %s that is not "
		    "varlink", method);
	default:
		return sc_error("%s: %s", method, strerror(-r));
	}
}

/* Does method answer in pages (a stream of them with "more")? */
static bool
sc_paged(const char *method)
{
	return strcmp(method, VL_M_CHAIN) == 0 ||
	    strcmp(method, VL_M_LOOKUP) == 0 ||
	    strcmp(method, VL_M_SCRAPE) == 0 ||
	    strcmp(method, VL_M_TEMPLATE_LIST) == 0;
}

struct vlc *
sc_conn(struct sc *sc)
{
	int r;

	if (sc->vlc != NULL)
		return sc->vlc;
	r = vlc_connect(sc->socket, SC_TIMEOUT_MS, &sc->vlc);
	if (r < 0) {
		sc->vlc = NULL;
		sc_error("cannot connect to %s: %s%s", sc->socket,
		    strerror(-r), r == -ENOENT || r == -ECONNREFUSED ?
		    " (is statsd running?)" : "");
	}
	return sc->vlc;
}

void
sc_conn_close(struct sc *sc)
{
	sc->vlc = vlc_free(sc->vlc);
}

/* Take a reply's outcome: its parameters, or the error, printed. */
static int
sc_take(struct vlc_reply *rep, int r, const char *subject,
    json_t **ret_params)
{
	char msg[1024];

	if (r == -EREMOTEIO) {
		sc_error("%s%s%s", subject != NULL ? subject : "",
		    subject != NULL ? ": " : "", sc_describe_error(
		    rep->error, rep->params, msg, sizeof(msg)));
		vlc_reply_done(rep);
		return SC_EXIT_FAIL;
	}
	if (ret_params != NULL)
		*ret_params = json_incref(rep->params);
	vlc_reply_done(rep);
	return 0;
}

int
sc_call_each(struct sc *sc, const char *method, json_t *params,
    sc_reply_fn fn, void *arg)
{
	struct vlc_reply rep;
	struct vlc *c = sc_conn(sc);
	json_t *p = NULL;
	bool more;
	int r;

	if (c == NULL) {
		json_decref(params);
		return SC_EXIT_FAIL;
	}
	/* A read of many kstats answers in pages: ask for them all as one
	 * stream, each handed on as it comes. */
	memset(&rep, 0, sizeof(rep));
	r = vlc_call(c, method, params, sc_paged(method) ? VLC_MORE : 0, NULL,
	    0, SC_TIMEOUT_MS, &rep);
	json_decref(params);
	for (;;) {
		if (r < 0 && r != -EREMOTEIO)
			return sc_transport_error(sc, method, r);
		more = r == 0 && rep.continues;
		r = sc_take(&rep, r, sc->subject, &p);
		if (r != 0)
			return r;
		r = fn(p, arg);
		json_decref(p);
		if (r != 0 || !more)
			return r;
		memset(&rep, 0, sizeof(rep));
		r = vlc_recv(c, SC_TIMEOUT_MS, &rep);
	}
}

/*
 * Add a page of a paged reply to what came before: arrays grow, "text"
 * is joined, "list" joined with a comma; anything else is the first
 * page's.
 */
static int
sc_merge_page(json_t *acc, const json_t *page)
{
	const char *key;
	json_t *v, *a;

	json_object_foreach((json_t *)page, key, v) {
		a = json_object_get(acc, key);
		if (json_is_array(a) && json_is_array(v)) {
			if (json_array_extend(a, v) < 0)
				return sc_error("out of memory");
		} else if (json_is_string(a) && json_is_string(v) &&
		    (strcmp(key, "text") == 0 || strcmp(key, "list") == 0)) {
			const char *sep = strcmp(key, "list") == 0 &&
			    json_string_length(a) > 0 &&
			    json_string_length(v) > 0 ? "," : "";
			size_t la = json_string_length(a), lv =
			    json_string_length(v), ls = strlen(sep);
			char *t = malloc(la + ls + lv + 1);

			if (t == NULL)
				return sc_error("out of memory");
			memcpy(t, json_string_value(a), la);
			memcpy(t + la, sep, ls);
			memcpy(t + la + ls, json_string_value(v), lv);
			t[la + ls + lv] = '\0';
			json_object_set_new(acc, key, json_stringn(t,
			    la + ls + lv));
			free(t);
		}
	}
	return 0;
}

/* sc_call's reply, kept; the pages of a paged one joined into it. */
static int
sc_keep(const json_t *params, void *arg)
{
	json_t **ret = arg;

	if (ret == NULL)
		return 0;
	if (*ret == NULL) {
		*ret = json_deep_copy(params);
		if (*ret == NULL)
			return sc_error("out of memory");
	} else if (sc_merge_page(*ret, params) != 0) {
		return SC_EXIT_FAIL;
	}
	json_object_del(*ret, "cursor");
	return 0;
}

int
sc_call(struct sc *sc, const char *method, json_t *params,
    json_t **ret_params)
{
	json_t *keep = NULL;
	int r;

	if (ret_params != NULL)
		*ret_params = NULL;
	r = sc_call_each(sc, method, params, sc_keep, &keep);
	if (r == 0 && ret_params != NULL)
		*ret_params = keep;
	else
		json_decref(keep);
	return r;
}

int
sc_stream_start(struct sc *sc, const char *method, json_t *params)
{
	struct vlc *c = sc_conn(sc);
	int r;

	if (c == NULL) {
		json_decref(params);
		return SC_EXIT_FAIL;
	}
	r = vlc_send(c, method, params, VLC_MORE, NULL, 0, SC_TIMEOUT_MS);
	json_decref(params);
	if (r < 0)
		return sc_transport_error(sc, method, r);
	return 0;
}

int
sc_stream_next(struct sc *sc, int timeout_ms, json_t **ret_params,
    bool *ret_more)
{
	struct vlc_reply rep;
	int r;

	*ret_params = NULL;
	*ret_more = false;
	memset(&rep, 0, sizeof(rep));
	r = vlc_recv(sc->vlc, timeout_ms, &rep);
	if (r < 0 && r != -EREMOTEIO)
		return sc_transport_error(sc, "the stream", r);
	*ret_more = r == 0 && rep.continues;
	return sc_take(&rep, r, sc->subject, ret_params);
}
