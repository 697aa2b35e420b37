/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * vl_stream.c: varlink calls answered in more than one reply: streams
 * ("more"/"continues": rounds every interval, pages from a cursor), each
 * reply in the connection's turn once the client reads, and calls
 * deferred in slices (varlink_defer()); running a handler once and
 * seeing it answer; the connection's varlink state freed when it closes.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <jansson.h>

#include "control.h"
#include "daemon.h"
#include "log.h"
#include "turns.h"
#include "varlink.h"
#include "varlink_priv.h"

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

/* Slices run since start, every connection's. */
static uint64_t vl_slices;

/* Run a handler once and make sure it answered. */
void
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
	/* A page of a stream answered late: where the stream goes on, and
	 * whether it ends, are what that answer said (varlink_page_next()
	 * wrote them into the deferred copy of the call). */
	if (s != NULL) {
		free(s->call.next);
		s->call.next = j->call.next;
		s->call.last = j->call.last;
	} else {
		free(j->call.next);
	}
	j->call.next = NULL;
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

void
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

void
vl_stream_drained(struct conn *c)
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

void
vl_conn_free(struct conn *c)
{
	struct vl_conn *vc = c->vl;

	if (vc != NULL) {
		vl_job_free(vc);
		vl_stream_free(c, vc->stream);
		free(vc);
		c->vl = NULL;
	}
}
