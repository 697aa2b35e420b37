/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * varlink.c: the varlink protocol over control.c's connections — message
 * parsing, dispatch through the method table main.c gives it (methods.c's;
 * it names no handler), parameter validation by table, error replies,
 * streams ("more"/"continues"), "oneway", and the tables' dump for the IDL
 * agreement test.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "control.h"
#include "daemon.h"
#include "kind.h"
#include "log.h"
#include "quota.h"
#include "input_error.h"
#include "turns.h"
#include "varlink.h"

/* ------------------------------------------------------------ the tables */

/* The call envelope. */
static const struct vl_field vl_envelope[] = {
	VLF_STR("method", false, 255),
	VLF_OBJ("parameters", true),
	VLF_BOOL("more", true),
	VLF_BOOL("oneway", true),
	VLF_BOOL("upgrade", true),
	VLF_END
};

/* --------------------------------------------------- per-connection state */

struct vl_stream {
	struct vl_call	 call;
	json_t		*params;	/* as the client sent them */
	struct event	*ev;		/* the interval between rounds */
	struct turn_task page;		/* the next reply, in its turn */
	struct timeval	 interval;
	int64_t		 remaining;	/* rounds left; -1: until closed */
	bool		 repeat;	/* rounds every interval */
	bool		 waiting;	/* a page waits for the output */
	char		*cursor;	/* where the next page starts */
};

/* A call answered in slices (varlink_defer()). */
struct vl_job {
	struct vl_call	 call;		/* the dispatched one was on the stack */
	json_t		*params;
	vl_step_fn	*step;
	void		*state;
	void		(*state_free)(void *);
	struct turn_task task;		/* the next slice, in its turn */
	struct vl_stream *stream;	/* the stream it answers for, or NULL */
	bool		 parked;	/* waits for varlink_wake() */
};

struct vl_conn {
	struct vl_stream *stream;
	struct vl_job	 *job;
	bool		  errored;	/* the current call got an error */
};

static struct vl_conn *
vl_conn_get(struct conn *c)
{
	if (c->vl == NULL)
		c->vl = calloc(1, sizeof(struct vl_conn));
	return c->vl;
}

static void
vl_stream_free(struct conn *c, struct vl_stream *s)
{
	struct vl_conn *vc = c->vl;

	if (s == NULL)
		return;
	if (vc != NULL && vc->stream == s)
		vc->stream = NULL;
	if (s->ev != NULL)
		event_free(s->ev);
	control_turn_cancel(c, &s->page);
	json_decref(s->params);
	free(s->cursor);
	free(s->call.next);
	free(s);
	c->streaming = false;
}

/* ------------------------------------------------------------- validation */

/*
 * Where a value is in the message: a chain of frames up to the checked
 * object (NULL). The path's text ("kstats[3].name") is made only when a
 * value is refused: formatting it for every field of every call was a
 * fifth of a KstatCreate.
 */
struct vl_where {
	const struct vl_where	*up;
	const char		*name;	/* a field */
	long			 index;	/* its element; -1: the field */
};

/* Append w's path to bad (at *off, bounded by badlen). */
static void
vl_where_put(const struct vl_where *w, char *bad, size_t badlen, size_t *off)
{
	int n;

	if (w == NULL)
		return;
	vl_where_put(w->up, bad, badlen, off);
	if (*off >= badlen)
		return;
	n = w->index >= 0 ?
	    snprintf(bad + *off, badlen - *off, "%s%s[%ld]", *off > 0 &&
	    w->name[0] != '\0' ? "." : "", w->name, w->index) :
	    snprintf(bad + *off, badlen - *off, "%s%s", *off > 0 ? "." : "",
	    w->name);
	*off += n > 0 ? (size_t)n : 0;
}

/* Say where the refused value is. Returns: -EINVAL. */
static int
vl_where_bad(const struct vl_where *w, char *bad, size_t badlen)
{
	size_t off = 0;

	if (badlen > 0) {
		bad[0] = '\0';
		vl_where_put(w, bad, badlen, &off);
	}
	return -EINVAL;
}

static int vl_check_struct(json_t *obj, const struct vl_field *fields,
    const struct vl_where *where, char *bad, size_t badlen,
    unsigned depth);

/* Check one value against a field's type (elem: the array's element). */
static int
vl_check_value(json_t *v, const struct vl_field *f, uint8_t type,
    const struct vl_where *where, char *bad, size_t badlen,
    unsigned depth)
{
	switch (type) {
	case VL_BOOL:
		if (!json_is_boolean(v))
			break;
		return 0;
	case VL_INT:
		if (!json_is_integer(v) || json_integer_value(v) < f->min ||
		    json_integer_value(v) > f->max)
			break;
		return 0;
	case VL_STRING:
		if (!json_is_string(v) ||
		    json_string_length(v) > (size_t)f->max ||
		    strlen(json_string_value(v)) != json_string_length(v))
			break;
		return 0;
	case VL_OBJECT:
		if (!json_is_object(v))
			break;
		return 0;
	case VL_STRUCT:
		if (!json_is_object(v))
			break;
		return vl_check_struct(v, f->fields, where, bad, badlen,
		    depth + 1);
	}
	return vl_where_bad(where, bad, badlen);
}

static int
vl_check_struct(json_t *obj, const struct vl_field *fields,
    const struct vl_where *where, char *bad, size_t badlen,
    unsigned depth)
{
	const struct vl_field *f;
	const char *key;
	json_t *v;

	if (depth > 8)
		return vl_where_bad(where, bad, badlen);
	/* Unknown fields first: a misspelt optional field is named as
	 * what it is, not reported as something else missing. */
	json_object_foreach(obj, key, v) {
		for (f = fields; f->name != NULL; f++)
			if (strcmp(f->name, key) == 0)
				break;
		if (f->name == NULL) {
			struct vl_where at = { where, key, -1 };

			return vl_where_bad(&at, bad, badlen);
		}
	}
	for (f = fields; f->name != NULL; f++) {
		struct vl_where at = { where, f->name, -1 };

		v = json_object_get(obj, f->name);
		if (v == NULL || json_is_null(v)) {
			if (f->optional)
				continue;
			return vl_where_bad(&at, bad, badlen);
		}
		if (f->type == VL_ARRAY) {
			size_t i;
			json_t *e;

			if (!json_is_array(v) || json_array_size(v) > f->maxn)
				return vl_where_bad(&at, bad, badlen);
			json_array_foreach(v, i, e) {
				at.index = (long)i;
				if (vl_check_value(e, f, f->elem, &at, bad,
				    badlen, depth) < 0)
					return -EINVAL;
			}
			continue;
		}
		if (vl_check_value(v, f, f->type, &at, bad, badlen,
		    depth) < 0)
			return -EINVAL;
	}
	return 0;
}

/* ---------------------------------------------------------------- replies */

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
	size_t i;
	char *s;

	s = json_dumps(msg, JSON_COMPACT);
	json_decref(msg);
	if (s == NULL) {
		for (i = 0; i < nfds; i++)
			close(fds[i]);
		return -ENOMEM;
	}
	return vl_send_text(call, s, strlen(s) + 1, fds, nfds);
}

int
varlink_reply_text(struct vl_call *call, const char *params, size_t len)
{
	const char *cont = call->more && !call->last ? ",\"continues\":true" :
	    "";
	size_t total;
	char *s;

	if (call->answered)
		return -EALREADY;
	call->answered = true;
	if (call->oneway)
		return 0;
	total = sizeof("{\"parameters\":") - 1 + len + strlen(cont) + 2;
	s = malloc(total);
	if (s == NULL)
		return -ENOMEM;
	memcpy(s, "{\"parameters\":", sizeof("{\"parameters\":") - 1);
	memcpy(s + sizeof("{\"parameters\":") - 1, params, len);
	snprintf(s + sizeof("{\"parameters\":") - 1 + len,
	    strlen(cont) + 2, "%s}", cont);
	return vl_send_text(call, s, total, NULL, 0);
}

/* Does a stream send more rounds after the one running? */
static bool
vl_more_rounds(const struct vl_stream *s)
{
	return s->repeat && s->remaining != 1;
}

int
varlink_page_next(struct vl_call *call, const char *cursor)
{
	free(call->next);
	call->next = NULL;
	if (call->stream == NULL)
		return 0;
	if (cursor != NULL) {
		call->next = strdup(cursor);
		if (call->next == NULL)
			return -ENOMEM;
	}
	call->last = cursor == NULL && !vl_more_rounds(call->stream);
	return 0;
}

int
varlink_reply_page(struct vl_call *call, json_t *params, const char *cursor)
{
	if (params == NULL)
		params = json_object();
	if (params != NULL && cursor != NULL)
		json_object_set_new(params, "cursor", json_string(cursor));
	if (varlink_page_next(call, cursor) < 0) {
		json_decref(params);
		return varlink_error_errno(call, ENOMEM, "page");
	}
	return varlink_reply(call, params);
}

size_t
varlink_page_size(const struct vl_call *call)
{
	size_t page = call->d->cfg.reply_page_size;
	size_t fit = call->d->cfg.max_output / 8;

	return page < fit ? page : fit;
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

const char *
varlink_str(json_t *params, const char *name, const char *def)
{
	json_t *v = json_object_get(params, name);

	return json_is_string(v) ? json_string_value(v) : def;
}

int64_t
varlink_int(json_t *params, const char *name, int64_t def)
{
	json_t *v = json_object_get(params, name);

	return json_is_integer(v) ? (int64_t)json_integer_value(v) : def;
}

bool
varlink_bool(json_t *params, const char *name, bool def)
{
	json_t *v = json_object_get(params, name);

	return json_is_boolean(v) ? json_is_true(v) : def;
}

/* ---------------------------------------------------------------- dispatch */

/* Slices run since start, every connection's. */
static uint64_t vl_slices;

/* Run a handler once and make sure it answered. */
static void
vl_run(struct vl_call *call, json_t *params)
{
	struct vl_conn *vc = call->conn->vl;

	if (vc != NULL)
		vc->errored = false;
	call->answered = false;
	call->deferred = false;
	free(call->next);
	call->next = NULL;
	if (call->method->flags & VL_M_PAGES)
		vl_slices++;	/* a page is a slice of the work */
	call->method->handler(call, params);
	if (!call->answered && !call->deferred) {
		log_error("%s: handler gave no answer", call->method->name);
		varlink_error_errno(call, EPROTO, "no answer");
	}
}

static void vl_stream_next(struct conn *c, struct vl_stream *s);

static void
vl_job_free(struct vl_conn *vc)
{
	struct vl_job *j = vc->job;

	if (j == NULL)
		return;
	vc->job = NULL;
	control_turn_cancel(j->call.conn, &j->task);
	if (j->state_free != NULL)
		j->state_free(j->state);
	json_decref(j->params);
	free(j);
}


uint64_t
varlink_slices(void)
{
	return vl_slices;
}

/* One slice of a deferred call, in the connection's turn. */
static void
vl_job_turn(struct turn_task *t)
{
	struct vl_job *j = (struct vl_job *)(void *)((char *)t -
	    offsetof(struct vl_job, task));
	struct conn *c = j->call.conn;
	struct vl_conn *vc = c->vl;
	struct vl_stream *s = j->stream;

	vl_slices++;
	if (!j->step(&j->call, j->params, j->state, VL_SLICE_UNITS)) {
		if (!j->parked)
			control_turn_queue(c, &j->task);
		return;
	}
	if (!j->call.answered) {
		log_error("%s: deferred call gave no answer",
		    j->call.method->name);
		varlink_error_errno(&j->call, EPROTO, "no answer");
	}
	vl_job_free(vc);
	if (s != NULL)
		vl_stream_next(c, s);
	else
		control_hold_input(c, false);
}

int
varlink_defer(struct vl_call *call, json_t *params, vl_step_fn *step,
    void *state, void (*state_free)(void *))
{
	struct vl_conn *vc = call->conn->vl;
	struct vl_job *j;

	j = calloc(1, sizeof(*j));
	if (j == NULL || vc == NULL || vc->job != NULL) {
		free(j);
		if (state_free != NULL)
			state_free(state);
		return varlink_error_errno(call, ENOMEM, "deferred call");
	}
	j->call = *call;
	j->call.answered = false;
	j->call.next = NULL;
	j->params = json_incref(params);
	j->step = step;
	j->state = state;
	j->state_free = state_free;
	j->stream = vc->stream != NULL && call == &vc->stream->call ?
	    vc->stream : NULL;
	j->task.run = vl_job_turn;
	vc->job = j;
	call->deferred = true;
	/* One call at a time: the connection's next calls wait. The next
	 * slice comes in the uid's next turn (turns.h), after the other
	 * peers' waiting turns. */
	control_hold_input(call->conn, true);
	control_turn_queue(call->conn, &j->task);
	return 0;
}

void
varlink_park(struct vl_call *call)
{
	struct vl_conn *vc = call->conn->vl;

	if (vc != NULL && vc->job != NULL && &vc->job->call == call)
		vc->job->parked = true;
}

void
varlink_wake(struct conn *c)
{
	struct vl_conn *vc = c->vl;

	if (vc == NULL || vc->job == NULL || !vc->job->parked)
		return;
	vc->job->parked = false;
	control_turn_queue(c, &vc->job->task);
}

bool
varlink_budget_take(uint64_t *budget, uint64_t units)
{
	if (*budget == 0)
		return false;
	*budget = units >= *budget ? 0 : *budget - units;
	return true;
}

static void vl_stream_step(struct vl_stream *s);

/* Run the next page in the connection's turn as soon as the client's
 * output is below the high mark (varlink_conn_drained() says when it
 * falls). */
static void
vl_stream_page_later(struct vl_stream *s)
{
	if (control_output_high(s->call.conn)) {
		s->waiting = true;
		return;
	}
	control_turn_queue(s->call.conn, &s->page);
}

static void
vl_stream_page_turn(struct turn_task *t)
{
	vl_stream_step((struct vl_stream *)(void *)((char *)t -
	    offsetof(struct vl_stream, page)));
}

static void
vl_stream_tick(evutil_socket_t fd, short what, void *arg)
{
	struct vl_stream *s = arg;

	(void)fd;
	(void)what;
	/* A client that does not read gets no new round (watch semantics:
	 * the next one is as fresh as the skipped one would have been). */
	if (control_output_high(s->call.conn)) {
		event_add(s->ev, &s->interval);
		return;
	}
	control_turn_queue(s->call.conn, &s->page);
}

/* One reply of a stream: a page (from the cursor, or a round's first)
 * or a repeated reply. */
static void
vl_stream_step(struct vl_stream *s)
{
	struct conn *c = s->call.conn;
	struct vl_conn *vc = c->vl;
	bool paged = (s->call.method->flags & VL_M_PAGES) != 0;
	json_t *params = s->params;

	if (paged && s->cursor != NULL) {
		params = json_copy(s->params);
		if (params == NULL || json_object_set_new(params, "cursor",
		    json_string(s->cursor)) < 0) {
			json_decref(params);
			varlink_error_errno(&s->call, ENOMEM, "page");
			vl_stream_next(c, s);
			return;
		}
	} else {
		json_incref(params);
	}
	s->call.last = !paged && !vl_more_rounds(s);
	vl_run(&s->call, params);
	json_decref(params);
	if (vc->job == NULL)
		vl_stream_next(c, s);
}

/* A reply of the stream was answered: end it, or go on with the next
 * page at once, or the next round after the interval. */
static void
vl_stream_next(struct conn *c, struct vl_stream *s)
{
	struct vl_conn *vc = c->vl;

	free(s->cursor);
	s->cursor = s->call.next;
	s->call.next = NULL;
	if (vc->errored || s->call.last) {
		control_hold_input(c, false);
		vl_stream_free(c, s);
		return;
	}
	control_hold_input(c, true);
	if (s->cursor != NULL) {
		vl_stream_page_later(s);
		return;
	}
	if (s->remaining > 0)
		s->remaining--;
	event_add(s->ev, &s->interval);
}

static void
vl_start_stream(struct vl_call *call, json_t *params)
{
	struct conn *c = call->conn;
	struct vl_conn *vc = c->vl;
	unsigned flags = call->method->flags;
	int64_t interval = varlink_int(params, "interval_ms", 1000);
	int64_t count = varlink_int(params, "count", -1);
	struct vl_stream *s;

	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		varlink_error_errno(call, ENOMEM, "stream");
		return;
	}
	/* A method that only pages sends one round; one that also repeats
	 * repeats when asked to (Read always does). */
	s->repeat = (flags & VL_M_STREAMS) != 0 && ((flags & VL_M_PAGES) ==
	    0 || json_object_get(params, "interval_ms") != NULL ||
	    json_object_get(params, "count") != NULL);
	if (s->repeat && interval < call->d->cfg.watch_min_interval_ms) {
		free(s);
		varlink_error_value(call, "interval_ms", "below "
		    "watch_min_interval_ms (%u)",
		    call->d->cfg.watch_min_interval_ms);
		return;
	}
	s->call = *call;
	s->call.stream = s;
	s->params = json_incref(params);
	s->remaining = s->repeat ? count : 1;
	s->interval.tv_sec = interval / 1000;
	s->interval.tv_usec = (interval % 1000) * 1000;
	s->ev = evtimer_new(call->d->base, vl_stream_tick, s);
	s->page.run = vl_stream_page_turn;
	if (s->ev == NULL) {
		vl_stream_free(c, s);
		varlink_error_errno(call, ENOMEM, "stream");
		return;
	}
	event_priority_set(s->ev, PRIO_CONTROL);
	vc->stream = s;
	c->streaming = true;
	/* The first reply now; the connection's next calls wait until the
	 * stream ends (one call at a time, as varlink has it). */
	call->answered = true;
	vl_stream_step(s);
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
	root = json_loadb(msg, len, JSON_REJECT_DUPLICATES, &jerr);
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
	if (vl_check_struct(root, vl_envelope, NULL, bad, sizeof(bad), 0) < 0) {
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
	if (vl_check_struct(params, m->params, NULL, bad, sizeof(bad), 0) < 0) {
		varlink_error_param(&call, bad);
		goto out;
	}
	log_debug("uid %u: %s", (unsigned)c->peer.uid, m->name);
	if (call.more)
		vl_start_stream(&call, params);
	else
		vl_run(&call, params);
out:
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
	struct vl_conn *vc = c->vl;

	if (c->d->conn_closed != NULL)
		c->d->conn_closed(c->d, c);
	if (vc != NULL) {
		vl_job_free(vc);
		vl_stream_free(c, vc->stream);
		free(vc);
		c->vl = NULL;
	}
}

static void
varlink_conn_drained(struct conn *c)
{
	struct vl_conn *vc = c->vl;
	struct vl_stream *s = vc != NULL ? vc->stream : NULL;

	/* A page waited for the client to read: send it now. Repeated
	 * replies re-check the output level at each tick, and control.c
	 * resumes reading by itself. */
	if (s != NULL && s->waiting) {
		s->waiting = false;
		control_turn_queue(c, &s->page);
	}
}

const struct control_events varlink_conn_events = {
	.message = varlink_conn_message,
	.too_large = varlink_conn_too_large,
	.closed = varlink_conn_closed,
	.drained = varlink_conn_drained,
};

/* ------------------------------------------------------------------- dump */

static json_t *
vl_type_json(const struct vl_field *f)
{
	static const char *const base[] = {
		[VL_BOOL] = "bool", [VL_INT] = "int", [VL_STRING] = "string",
		[VL_OBJECT] = "object",
	};
	char buf[128];
	const char *t;

	if (f->type == VL_ARRAY)
		t = f->elem == VL_STRUCT ? f->type_name : base[f->elem];
	else if (f->type == VL_STRUCT)
		t = f->type_name;
	else
		t = base[f->type];
	snprintf(buf, sizeof(buf), "%s%s%s", f->optional ? "?" : "",
	    f->type == VL_ARRAY ? "[]" : "", t);
	return json_string(buf);
}

static json_t *
vl_fields_json(const struct vl_field *fields, json_t *types)
{
	const struct vl_field *f;
	json_t *a = json_array();

	for (f = fields; f->name != NULL; f++) {
		json_array_append_new(a, json_pack("{s:s, s:o}", "name",
		    f->name, "type", vl_type_json(f)));
		if (f->fields != NULL && json_object_get(types,
		    f->type_name) == NULL)
			json_object_set_new(types, f->type_name,
			    vl_fields_json(f->fields, types));
	}
	return a;
}

/* The StatSpec kinds of the kind table, with the parameters each takes. */
static json_t *
vl_kinds_json(void)
{
	json_t *a = json_array();
	int s, p;
	uint8_t i;

	for (s = 1; s < VS_NUM_STYPES; s++) {
		for (i = 0; i < stype_ops[s].nspecs; i++) {
			const struct kind_spec *ks = &stype_ops[s].specs[i];
			json_t *ps = json_array();

			for (p = 0; p < KP_NUM; p++)
				if (ks->params & (1u << p))
					json_array_append_new(ps,
					    json_string(kind_params[p].name));
			json_array_append_new(a, json_pack("{s:s, s:o}",
			    "name", ks->name, "params", ps));
		}
	}
	return a;
}

void
varlink_dump_tables(FILE *f, const struct vl_methods *t)
{
	json_t *root = json_object(), *ms = json_array(), *es = json_array();
	json_t *types = json_object();
	size_t i, j;
	char *s;

	for (i = 0; i < t->n; i++) {
		const struct vl_method *m = &t->m[i];

		json_array_append_new(ms, json_pack("{s:s, s:s, s:b, s:b, "
		    "s:o}", "name", m->name, "right", right_names[m->right],
		    "streams", (m->flags & (VL_M_STREAMS | VL_M_PAGES)) != 0,
		    "pages", (m->flags & VL_M_PAGES) != 0,
		    "params", vl_fields_json(m->params, types)));
	}
	for (i = 0; i < VL_E_NUM; i++) {
		json_t *p = json_array();

		for (j = 0; vl_errors[i].params[j] != NULL; j++)
			json_array_append_new(p,
			    json_string(vl_errors[i].params[j]));
		json_array_append_new(es, json_pack("{s:s, s:o}", "name",
		    vl_errors[i].name, "params", p));
	}
	json_object_set_new(root, "methods", ms);
	json_object_set_new(root, "errors", es);
	json_object_set_new(root, "types", types);
	json_object_set_new(root, "kinds", vl_kinds_json());
	s = json_dumps(root, JSON_INDENT(1) | JSON_SORT_KEYS);
	if (s != NULL)
		fprintf(f, "%s\n", s);
	free(s);
	json_decref(root);
}
