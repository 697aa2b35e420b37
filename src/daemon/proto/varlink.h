/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * varlink.h: the protocol layer — one JSON object per NUL-terminated
 * message, parsed with jansson; the method table (name, handler,
 * parameter table, right); declarative parameter tables that reject
 * unknown and mistyped fields by name; error replies; org.varlink.service
 * introspection; "more"/"continues" streams and "oneway" calls.
 *
 * A handler gets its call and its validated parameters, and answers with
 * exactly one varlink_reply*() or varlink_error*(). For a method that
 * streams, a call with "more" runs the handler again every interval_ms
 * (its parameter) until count replies (its parameter) are sent or the
 * client leaves; the handler need not know.
 *
 * A method that reads many things answers in pages: the handler sends
 * about a page (varlink_page_size() bytes, and at most one slice of work,
 * below) with varlink_reply_page(), naming where the next page starts (a
 * cursor, its parameter "cursor"), and is run again from there. Without
 * "more" the client gets the first page and the cursor, and calls again
 * with it; with "more" the pages stream, each rendered from the loop once
 * the client's output is below the high mark, so a reader that does not
 * read holds at most a quarter of max_output and a page, and delays
 * neither the drain nor anyone else. A paged method that also repeats
 * (Scrape) sends rounds of pages when given interval_ms or count.
 */
#ifndef STATSD_DAEMON_VARLINK_H
#define STATSD_DAEMON_VARLINK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/uio.h>

#include <jansson.h>

#include "rights.h"
#include "varlink_names.h"

struct conn;
struct control_events;
struct statsd;

/* ------------------------------------------------------ parameter tables */

enum vl_type {
	VL_BOOL = 1,
	VL_INT,
	VL_STRING,
	VL_OBJECT,	/* any JSON object (varlink "object") */
	VL_STRUCT,	/* a named varlink type: fields below */
	VL_ARRAY,	/* of elem; VL_STRUCT elements use fields */
};

struct vl_field {
	const char		*name;		/* NULL ends a table */
	uint8_t			 type;		/* enum vl_type */
	uint8_t			 elem;		/* VL_ARRAY: element type */
	bool			 optional;
	int64_t			 min, max;	/* INT: bounds; STRING: max
						 * bytes; for an ARRAY, of
						 * each element */
	size_t			 maxn;		/* ARRAY: most elements */
	const struct vl_field	*fields;	/* VL_STRUCT, arrays of it */
	const char		*type_name;	/* VL_STRUCT: the IDL type */
};

#define VLF_BOOL(n, opt)	{ .name = (n), .type = VL_BOOL, .optional = (opt) }
#define VLF_INT(n, opt, lo, hi)	{ .name = (n), .type = VL_INT, .optional = (opt), \
				  .min = (lo), .max = (hi) }
#define VLF_STR(n, opt, len)	{ .name = (n), .type = VL_STRING, \
				  .optional = (opt), .max = (len) }
#define VLF_OBJ(n, opt)		{ .name = (n), .type = VL_OBJECT, .optional = (opt) }
#define VLF_ARRAY(n, opt, el, nmax, lo, hi) { .name = (n), .type = VL_ARRAY, \
				  .elem = (el), .optional = (opt), \
				  .min = (lo), .max = (hi), .maxn = (nmax) }
#define VLF_STRUCTS(n, opt, tn, f, nmax) { .name = (n), .type = VL_ARRAY, \
				  .elem = VL_STRUCT, .optional = (opt), \
				  .maxn = (nmax), .fields = (f), .type_name = (tn) }
#define VLF_END			{ .name = NULL }

/* ----------------------------------------------------------------- errors */

/* enum vl_err and the error table (names, parameters, errno values) are
 * generated from the interface definitions into varlink_names.h. */

/* ---------------------------------------------------------------- methods */

struct vl_call;

typedef void vl_handler_fn(struct vl_call *call, json_t *params);

#define VL_M_STREAMS	0x01u	/* "more" repeats it every interval_ms */
#define VL_M_PAGES	0x02u	/* answers in pages with a cursor */

struct vl_method {
	const char		*name;		/* fully qualified */
	vl_handler_fn		*handler;
	const struct vl_field	*params;
	enum right		 right;
	unsigned		 flags;
};

/* A method table: the one statsd serves is methods.c's statsd_methods,
 * which main.c puts in d->methods for varlink.c to dispatch through. */
struct vl_methods {
	const struct vl_method	*m;
	size_t			 n;
};

struct vl_stream;

struct vl_call {
	struct statsd		*d;
	struct conn		*conn;
	const struct vl_method	*method;
	struct vl_stream	*stream;	/* NULL: no "more" */
	char			*next;		/* a page's cursor (paged) */
	bool			 more;
	bool			 oneway;
	bool			 answered;
	bool			 deferred;	/* varlink_defer() took it */
	bool			 last;		/* this reply ends the stream */
};

/*
 * Work bigger than a bound is done in slices, so that no call holds the
 * loop: a handler that could not finish within its budget hands the call
 * to varlink_defer(), and step() is then run once per turn of the
 * caller's uid (turns.h), after the turns of the other peers that wait,
 * with a budget of VL_SLICE_UNITS, until it has answered and returns
 * true. Meanwhile the
 * connection's later calls wait (one call at a time, as varlink has it).
 * A unit is about one step of the pattern engine (rx.h); handlers charge
 * their work to the budget with varlink_budget_take().
 */
#define VL_SLICE_UNITS	(1u << 18)

typedef bool vl_step_fn(struct vl_call *call, json_t *params, void *state,
    uint64_t budget);

/*
 * varlink_defer: answer call later, by slices of step(); state is the
 * handler's (state_free()d when the call is answered or the client
 * leaves).
 * Returns: 0; or an error was answered (out of memory; state freed).
 */
int varlink_defer(struct vl_call *call, json_t *params, vl_step_fn *step,
    void *state, void (*state_free)(void *));

/*
 * A deferred call that waits on something outside the loop (a sync by
 * the persistence thread): its step calls varlink_park() before
 * returning false, and is not run again until varlink_wake() on its
 * connection (from whatever learns the wait is over).
 */
void varlink_park(struct vl_call *call);
void varlink_wake(struct conn *c);

/* Slices run since start: those of deferred calls, and pages. */
uint64_t varlink_slices(void);

/* Charge units of work to *budget. Returns: whether there was budget
 * left before (the work may go ahead). */
bool varlink_budget_take(uint64_t *budget, uint64_t units);

/* Reply with params (taken over; NULL = {}). Returns: 0; -errno. */
int varlink_reply(struct vl_call *call, json_t *params);

/*
 * varlink_reply_page: a paged method's reply; params taken over. cursor
 * (copied; NULL: this page is the last) says where the next page starts:
 * the client sees it as the reply's "cursor" parameter. A page is one
 * slice of work: a paged method never defers.
 * Returns: 0; -errno.
 */
int varlink_reply_page(struct vl_call *call, json_t *params,
    const char *cursor);

/*
 * varlink_page_next: for a page answered as text (varlink_reply_text(),
 * which then must hold the "cursor" parameter itself): where the next
 * page starts (copied; NULL: this page is the last). Call it before the
 * reply. Returns: 0; -ENOMEM.
 */
int varlink_page_next(struct vl_call *call, const char *cursor);

/* How many bytes a page should hold at most (reply_page_size, bounded by
 * max_output so that a page always fits). */
size_t varlink_page_size(const struct vl_call *call);

/* Reply with parameters given as the text of a JSON object (len bytes,
 * no NUL needed; copied): for a reply built piece by piece as text.
 * Returns: 0; -errno. */
int varlink_reply_text(struct vl_call *call, const char *params,
    size_t len);

/* The same, the object's text given in n pieces (copied once, joined):
 * a large page's parts are not joined first. Returns: 0; -errno. */
int varlink_reply_textv(struct vl_call *call, const struct iovec *v,
    size_t n);

/* Reply with descriptors (taken over either way; closed after sending). */
int varlink_reply_fds(struct vl_call *call, json_t *params, int *fds,
    size_t nfds);

/* Reply with an error; params taken over (NULL = {}). Returns: 0. */
int varlink_error(struct vl_call *call, enum vl_err e, json_t *params);

/* Shorthands for the common errors. */
int varlink_error_param(struct vl_call *call, const char *parameter);
/*
 * varlink_error_input: refused input (input_error.h) as error e: an
 * InvalidDefinition names line, column and attribute (err's where); the
 * others (InvalidValue, InvalidTemplate) name the parameter (err's where).
 * The reason is err's message, or "refused" when it has none.
 */
struct input_error;
int varlink_error_input(struct vl_call *call, enum vl_err e,
    const struct input_error *err);
int varlink_error_value(struct vl_call *call, const char *parameter,
    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int varlink_error_errno(struct vl_call *call, int err, const char *what);
int varlink_error_denied(struct vl_call *call, enum right r);
int varlink_error_limit(struct vl_call *call, const char *limit, int64_t value);

/* Parameter accessors (the table has already checked type and bounds). */
const char *varlink_str(json_t *params, const char *name, const char *def);
int64_t varlink_int(json_t *params, const char *name, int64_t def);
bool varlink_bool(json_t *params, const char *name, bool def);

/* ---------------------------------------------------- connection events */

/* What control.c hands each connection's events to (control_new()): a
 * complete message, a message past the size limit, a closed connection,
 * output below the low mark. */
extern const struct control_events varlink_conn_events;

/* The method table t and the error table as JSON, for the test that
 * checks them against io.statsd.varlink (statsd --dump-methods). */
void varlink_dump_tables(FILE *f, const struct vl_methods *t);

/* The embedded interface descriptions. */
extern const char varlink_idl_io_statsd[];
extern const char varlink_idl_org_varlink_service[];

#endif
