/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * http.c: GET /metrics over HTTP (http.h), on a thread of its own with
 * its own event loop: a scrape reads the store as any reader does
 * (expo.h, rview.h), so that no scrape, however large or slow, holds the
 * loop that applies updates and answers root. A scrape is a chunked reply
 * whose next page is rendered only once the last one was written out:
 * a scraper that does not read holds one page and no more, and its
 * connection times out (http_timeout_ms). HTTP peers are anonymous: they
 * see what an unprivileged peer of the global zone sees, and never a
 * PRIV kstat. No user is charged for them: a scrape is bounded by
 * HTTP's own limits (http_max_connections, a page of HTTP_PAGE bytes
 * each), so that no local user, nobody included, can use up what
 * Prometheus needs, nor Prometheus what a user may hold. Each connection
 * is a peer of its own in the HTTP thread's turns (turns.h): a page of a
 * scrape waits for one turn, however many other scrapes want theirs.
 * With zlib, a scraper that accepts gzip gets it: each page compressed
 * and flushed as it goes.
 *
 * Connections are bounded too, before any request: at most
 * http_max_connections are open. At the bound, a new connection closes
 * the oldest one that no scrape is answering (one still sending its
 * request, or idle between two), as a web server sheds slow clients
 * under load: a local user holding every connection with a header byte
 * every few seconds no longer locks Prometheus out, whose request comes
 * at once and is then answered. Only when every connection is being
 * answered does accepting stop, until one closes. A peer holds at most
 * http_max_connections_per_peer of them: a local user, named by the
 * kernel's socket diagnostics as the owner of the connection's other
 * end, or a remote address; one connection more is closed as it is
 * adopted, so no local user's slow scrapes fill the bound. Past the
 * bound, quota_reserve_percent more are kept for privileged local
 * users (uid 0, statsd's own). Each reads
 * at most HTTP_READ_AHEAD bytes of requests ahead of the one it is
 * answered, and an accept() that fails
 * (no file descriptor left) pauses accepting. Otherwise a local user's
 * idle connections took every descriptor statsd had, locking root out of
 * the control socket, and one connection pipelining requests it never
 * read the answers of made statsd buffer all it sent.
 */
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <event2/util.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <zlib.h>

#include "clock.h"
#include "daemon.h"
#include "expo.h"
#include "expo_pb.h"
#include "http.h"
#include "log.h"
#include "pub.h"
#include "rights.h"
#include "rview.h"
#include "turns.h"
#include "varlink.h"
#include "zones.h"

/* Bytes of one page of a scrape. */
#define HTTP_PAGE	(64u * 1024u)

/* The anonymous peer's identity, for what it may see (an unprivileged
 * peer of the global zone); nothing is charged to it. */
#define HTTP_UID	((uid_t)65534)

/* The longest request line and headers taken, and how much of the
 * requests a connection pipelines is read ahead of the one answered:
 * room for a whole next request, no more (the rest waits in the
 * kernel, and the client's sends block). */
#define HTTP_HEADERS_MAX	16384
#define HTTP_READ_AHEAD		(2 * HTTP_HEADERS_MAX)

/* How long accepting pauses after an accept() failed for want of a
 * descriptor or memory (as the control socket's). */
#define HTTP_ACCEPT_PAUSE_US	200000
/* A failing accept() is said once a time it starts failing, at most
 * once in this long. */
#define HTTP_SAY_EVERY_NS	10000000000ull

#define CT_TEXT	"text/plain; version=0.0.4; charset=utf-8"
#define CT_OM	"application/openmetrics-text; version=1.0.0; charset=utf-8"
#define CT_PB	"application/vnd.google.protobuf; " \
	"proto=io.prometheus.client.MetricFamily; encoding=delimited"

struct http_conn;

/* The settings the HTTP thread reads, as published (pub.h) at start and
 * at each reload: a reload frees the configuration's strings under the
 * loop, never these. */
struct http_conf {
	struct prom_rules	*rules;
	char			*quantiles;
	unsigned		 timeout_ms;
	unsigned		 max_connections;
	unsigned		 max_per_peer;
	unsigned		 reserve_pct;
	unsigned		 gzip_level;
};

struct http {
	struct statsd		*d;
	/* The thread's: its loop, its turns, its view of the store, its
	 * read section, and how the loop tells it to stop. */
	struct event_base	*base;
	struct turns		*turns;
	struct rview		*rv;
	struct pub_reader	*rd;
	int			 stopfd;
	struct event		*stop_ev;
	pthread_t		 thread;
	bool			 running;
	/* The published settings, as last read (http_settings()). */
	unsigned		 timeout_ms, max_connections, gzip_level;
	unsigned		 max_per_peer;
	/* Connections past max_connections only privileged local users
	 * may hold (quota_reserve_percent of it, at least one). */
	unsigned		 reserve;
	/* The socket diagnostics' netlink socket (rights.h), who a local
	 * peer is; -1: local peers are not told apart. */
	int			 diag;
	uint64_t		 refused_peer;	/* past max_per_peer */
	uint64_t		 refused_full;	/* past max_connections */
	struct evhttp		*h;
	struct evconnlistener	*lev;		/* evhttp's, on our socket */
	unsigned		 nscrapes;	/* under way */
	struct scrape		*scrapes;	/* those, to cut at stop */
	/* Open connections: those evhttp made since the last adopt pass,
	 * then those whose closing it tells us. */
	unsigned		 nconns;
	struct http_conn	*fresh, *conns;
	struct event		*adopt;		/* the pass, after accepts */
	struct event		*resume;	/* accepting, after a pause */
	bool			 full;		/* accepting stopped: nconns */
	bool			 paused;	/* accepting stopped: accept() */
	bool			 failing;	/* accept() failed, said once */
	uint64_t		 said_ns;	/* when, last */
	bool			 stopping;
};

/* One connection: its bufferevent (ours, made for evhttp), its
 * connection once adopted, the scrape it serves. */
struct http_conn {
	struct http		*http;
	struct bufferevent	*bev;
	struct evhttp_connection *evcon;
	struct scrape		*scrape;
	/* Who holds it (http_peer_key()); 0: no one held to the bound. */
	uint64_t		 peer;
	bool			 privileged;	/* may use the reserve */
	struct http_conn	*next, **prevp;
};

struct scrape {
	struct http		*http;
	struct evhttp_request	*req;
	struct http_conn	*conn;
	struct expo		 e;
	struct sbuf		*text;
	struct peer		 peer;
	struct turn_peer	*turn;		/* its connection's turns */
	struct turn_task	 task;		/* the next page */
	struct scrape		*next, **prevp;
	z_stream		 z;
	bool			 gz;
};

static void scrape_more(struct evhttp_connection *evcon, void *arg);

/* The connections only privileged local users may take beyond max:
 * pct percent of it, at least one (none without a reserve at all). */
static unsigned
http_reserve(unsigned max, unsigned pct)
{
	unsigned r = (unsigned)((uint64_t)max * pct / 100);

	return pct == 0 ? 0 : r > 0 ? r : 1;
}
static void http_free(struct http *http);
static void http_settings(struct http *http);

static void http_accept_on(struct http *http);

static void
scrape_free(struct scrape *s)
{
	if (s->conn != NULL) {
		s->conn->scrape = NULL;
		/* Its connection may be shed now: accept again. */
		if (s->http->full && s->conn->evcon != NULL) {
			s->http->full = false;
			http_accept_on(s->http);
		}
	}
	*s->prevp = s->next;
	if (s->next != NULL)
		s->next->prevp = s->prevp;
	s->http->nscrapes--;
	turns_cancel(s->http->turns, &s->task);
	turns_peer_put(s->http->turns, s->turn);
	expo_done(&s->e);
	sbuf_delete(s->text);
	if (s->gz)
		(void)deflateEnd(&s->z);
	free(s);
}

/*
 * The connection went away mid-scrape (the scraper left, or timed out):
 * libevent has let go of a request whose reply was not ended, which is
 * then ours to free; one still on its connection (statsd stopping) goes
 * with the connection.
 */
static void
scrape_closed(struct scrape *s)
{
	struct evhttp_request *req = s->req;

	s->conn = NULL;
	scrape_free(s);
	if (evhttp_request_get_connection(req) == NULL)
		evhttp_request_free(req);
}

/* ------------------------------------------------------------ connections */

static void
http_conn_unlink(struct http_conn *c)
{
	*c->prevp = c->next;
	if (c->next != NULL)
		c->next->prevp = c->prevp;
}

static void
http_conn_link(struct http_conn **head, struct http_conn *c)
{
	c->next = *head;
	c->prevp = head;
	if (c->next != NULL)
		c->next->prevp = &c->next;
	*head = c;
}

/* Accept again if nothing holds accepting back. */
static void
http_accept_on(struct http *http)
{
	if (!http->stopping && !http->full && !http->paused)
		(void)evconnlistener_enable(http->lev);
}

/* The oldest adopted connection no scrape is answering, or NULL. The
 * list is newest first. */
static struct http_conn *
http_conn_sheddable(struct http *http)
{
	struct http_conn *c, *old = NULL;

	for (c = http->conns; c != NULL; c = c->next)
		if (c->scrape == NULL && c->evcon != NULL)
			old = c;
	return old;
}

/* A connection is gone (its descriptor closed, or about to be). */
static void
http_conn_gone(struct http_conn *c)
{
	struct http *http = c->http;

	http_conn_unlink(c);
	free(c);
	http->nconns--;
	if (http->full && (http->nconns < http->max_connections +
	    http->reserve ||
	    http_conn_sheddable(http) != NULL)) {
		http->full = false;
		http_accept_on(http);
	}
}

static void
http_conn_closed(struct evhttp_connection *evcon, void *arg)
{
	struct http_conn *c = arg;

	(void)evcon;
	if (c->scrape != NULL)
		scrape_closed(c->scrape);
	http_conn_gone(c);
}

/*
 * evhttp asks for each accepted connection's bufferevent here: ours reads
 * at most HTTP_READ_AHEAD bytes ahead of the request evhttp works on, and
 * is counted; at http_max_connections accepting stops. The connection
 * evhttp wraps around it is only made after this returns: the adopt pass
 * (next in the loop, before any of its input is read) finds it.
 */
static struct bufferevent *
http_conn_new(struct event_base *base, void *arg)
{
	struct http *http = arg;
	struct http_conn *c = calloc(1, sizeof(*c));
	struct bufferevent *bev;

	if (c == NULL)
		return NULL;
	/* A reload's bound applies to the next connection. */
	http_settings(http);
	bev = bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
	if (bev == NULL) {
		free(c);
		return NULL;
	}
	bufferevent_setwatermark(bev, EV_READ, 0, HTTP_READ_AHEAD);
	/* Held until adopted, so that a connection evhttp drops at once is
	 * still ours to look at. */
	bufferevent_incref(bev);
	c->http = http;
	c->bev = bev;
	http->failing = false;
	http_conn_link(&http->fresh, c);
	event_active(http->adopt, EV_TIMEOUT, 1);
	++http->nconns;
	/* Past the reserve too: shed now. Past max_connections only, the
	 * adopt pass decides, once it knows who connected. */
	if (http->nconns > http->max_connections + http->reserve) {
		struct http_conn *old = http_conn_sheddable(http);

		/* Counted gone here, not by its close callback, which
		 * evhttp calls or not by the connection's state. */
		if (old != NULL) {
			struct evhttp_connection *evcon = old->evcon;

			evhttp_connection_set_closecb(evcon, NULL, NULL);
			http_conn_gone(old);
			evhttp_connection_free(evcon);
		}
	}
	if (http->nconns >= http->max_connections + http->reserve &&
	    http_conn_sheddable(http) == NULL) {
		http->full = true;
		(void)evconnlistener_disable(http->lev);
	}
	return bev;
}

/*
 * Who holds a connection, for http_max_connections_per_peer: a local
 * user (the owner of the other end's socket, sock_diag(7)), or a remote
 * address. 0 for a peer held to no bound: a privileged local user (uid
 * 0 or statsd's own: *privileged, it may use the reserve), or any local
 * one when the socket diagnostics are not there (rather than every local
 * scraper, Prometheus too, sharing one bound).
 */
static uint64_t
http_peer_key(struct http *http, int fd, bool *privileged)
{
	union {
		struct sockaddr		sa;
		struct sockaddr_in	in;
		struct sockaddr_in6	in6;
		struct sockaddr_storage	ss;
	} a;
	socklen_t len = sizeof(a);
	const unsigned char *p = NULL;
	uint64_t h = UINT64_C(0xcbf29ce484222325);	/* FNV-1a */
	size_t i, n = 0;
	uid_t uid;

	*privileged = false;
	if (http->diag >= 0) {
		int r = rights_tcp_peer_uid(http->diag, fd, &uid);

		*privileged = r == 0 && (uid == 0 ||
		    uid == http->d->self_uid);
		if (r == 0)
			return *privileged ? 0 : (UINT64_C(1) << 32) | uid;
		if (r != -ENOENT)
			return 0;	/* not told: not held */
	}
	if (getpeername(fd, &a.sa, &len) < 0)
		return 0;
	if (a.sa.sa_family == AF_INET) {
		p = (const unsigned char *)&a.in.sin_addr;
		n = 4;
	} else if (a.sa.sa_family == AF_INET6) {
		p = a.in6.sin6_addr.s6_addr;
		n = 16;
	}
	/* A local address not told apart by the diagnostics: not held. */
	if (n == 0 || http->diag < 0)
		return 0;
	for (i = 0; i < n; i++)
		h = (h ^ p[i]) * UINT64_C(0x100000001b3);
	/* Apart from the uids' keys; two addresses that fold alike share
	 * a bound, no more. */
	return (UINT64_C(2) << 32) | (uint32_t)(h ^ (h >> 32));
}

/* Does c make its peer hold more than max_per_peer connections? */
static bool
http_peer_over(struct http *http, const struct http_conn *c)
{
	const struct http_conn *o;
	unsigned n = 0;

	if (c->peer == 0)
		return false;
	for (o = http->conns; o != NULL; o = o->next)
		if (o->peer == c->peer && ++n > http->max_per_peer)
			return true;
	return false;
}

/* Close c, adopted, before a byte of it is read. */
static void
http_conn_refuse(struct http_conn *c)
{
	struct evhttp_connection *evcon = c->evcon;

	evhttp_connection_set_closecb(evcon, NULL, NULL);
	http_conn_gone(c);
	evhttp_connection_free(evcon);
}

/*
 * c was just adopted, its peer known: past its peer's bound it is
 * closed; past max_connections (in the reserve), an unprivileged peer's
 * sheds the oldest connection no scrape is answering, or is closed.
 */
static void
http_admit(struct http *http, struct http_conn *c)
{
	struct http_conn *old;

	if (http_peer_over(http, c)) {
		http->refused_peer++;
		http_conn_refuse(c);
		return;
	}
	if (c->privileged || http->nconns <= http->max_connections)
		return;
	/* The oldest first: c, the newest, only if it is the one. */
	old = http_conn_sheddable(http);
	if (old == NULL || old == c)
		http->refused_full++;
	http_conn_refuse(old != NULL ? old : c);
}

/*
 * The adopt pass: each fresh bufferevent's connection (evhttp makes it
 * its callbacks' argument) tells its closing from now on. One evhttp
 * has dropped already has no callbacks and no descriptor left.
 */
static void
http_adopt(evutil_socket_t fd, short what, void *arg)
{
	struct http *http = arg;

	(void)fd;
	(void)what;
	while (http->fresh != NULL) {
		struct http_conn *c = http->fresh;
		struct bufferevent *bev = c->bev;
		void *evcon = NULL;

		http_conn_unlink(c);
		bufferevent_getcb(bev, NULL, NULL, NULL, &evcon);
		if (evcon != NULL && bufferevent_getfd(bev) >= 0) {
			c->evcon = evcon;
			c->peer = http_peer_key(http, bufferevent_getfd(bev),
			    &c->privileged);
			evhttp_connection_set_closecb(c->evcon,
			    http_conn_closed, c);
			http_conn_link(&http->conns, c);
			bufferevent_decref(bev);
			http_admit(http, c);
		} else {
			bufferevent_decref(bev);
			http_conn_link(&http->conns, c);
			http_conn_gone(c);
		}
	}
	/* Accepting stopped with every connection fresh (a burst of them):
	 * those adopted may be shed now. */
	if (http->full && http_conn_sheddable(http) != NULL) {
		http->full = false;
		http_accept_on(http);
	}
}

/*
 * The connection a request came on. One evhttp made without our
 * bufferevent (there was no memory for it) is counted from here on.
 * Returns: it; NULL without memory.
 */
static struct http_conn *
http_conn_of(struct http *http, struct evhttp_connection *evcon)
{
	struct http_conn *c;

	for (c = http->conns; c != NULL; c = c->next)
		if (c->evcon == evcon)
			return c;
	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	c->http = http;
	c->evcon = evcon;
	http_conn_link(&http->conns, c);
	http->nconns++;
	evhttp_connection_set_closecb(evcon, http_conn_closed, c);
	return c;
}

/* The one endpoint, for the listener's error callback, which libevent
 * calls with evhttp's argument (the evhttp), not one of ours. */
static struct http *http_one;

/*
 * accept() failed for want of a descriptor (or memory): libevent would
 * try again at once, for as long as it fails, and log each time. Pause
 * instead, as the control socket does, and say so once.
 */
static void
http_accept_error(struct evconnlistener *lev, void *arg)
{
	struct http *http = http_one;
	struct timeval tv = { 0, HTTP_ACCEPT_PAUSE_US };
	int e = EVUTIL_SOCKET_ERROR();

	(void)arg;
	(void)evconnlistener_disable(lev);
	if (http == NULL)
		return;
	if (!http->failing && (http->said_ns == 0 ||
	    clock_now_ns() - http->said_ns >= HTTP_SAY_EVERY_NS)) {
		log_warning("http: accept: %s; pausing accepts",
		    strerror(e));
		http->said_ns = clock_now_ns();
	}
	http->failing = true;
	http->paused = true;
	evtimer_add(http->resume, &tv);
}

static void
http_accept_resume(evutil_socket_t fd, short what, void *arg)
{
	struct http *http = arg;

	(void)fd;
	(void)what;
	http->paused = false;
	http_accept_on(http);
}

static bool
scrape_gz(const struct scrape *s)
{
	return s->gz;
}

/* The page into b: as it is, or gzipped (every page flushed, so that
 * each makes a chunk; the last one ends the stream). Returns: 0; -1. */
static int
scrape_add(struct scrape *s, struct evbuffer *b)
{
	if (s->gz) {
		uLong bound = deflateBound(&s->z, (uLong)sbuf_len(s->text)) +
		    64;
		unsigned char *out = malloc(bound);
		int r;

		if (out == NULL)
			return -1;
		s->z.next_in = (Bytef *)sbuf_data(s->text);
		s->z.avail_in = (uInt)sbuf_len(s->text);
		s->z.next_out = out;
		s->z.avail_out = (uInt)bound;
		r = deflate(&s->z, s->e.done ? Z_FINISH : Z_SYNC_FLUSH);
		if ((r != Z_OK && r != Z_STREAM_END) || s->z.avail_in != 0) {
			free(out);
			return -1;
		}
		evbuffer_add(b, out, bound - s->z.avail_out);
		free(out);
		return 0;
	}
	return evbuffer_add(b, sbuf_data(s->text), (size_t)sbuf_len(s->text));
}

/* Render and send the next page, or end the reply. */
static void
scrape_page(struct scrape *s)
{
	struct evbuffer *b;
	int r;

	if (s->e.done) {
		struct evhttp_request *req = s->req;

		scrape_free(s);
		evhttp_send_reply_end(req);
		return;
	}
	sbuf_clear(s->text);
	r = expo_page(&s->e, HTTP_PAGE, VL_SLICE_UNITS);
	if (r < 0 || sbuf_finish(s->text) != 0 ||
	    (b = evbuffer_new()) == NULL) {
		struct evhttp_request *req = s->req;

		/* The status is sent: a cut reply is all that can say so
		 * (OpenMetrics readers see no "# EOF"). */
		log_warning("http: scrape: %s", strerror(r < 0 ? -r : ENOMEM));
		scrape_free(s);
		evhttp_send_reply_end(req);
		return;
	}
	/* Nothing to send (its kstats were all hidden): libevent sends no
	 * empty chunk, nor calls back; the next page comes in the next
	 * turn. */
	if (evbuffer_get_length(b) == 0 && sbuf_len(s->text) == 0 &&
	    !scrape_gz(s)) {
		evbuffer_free(b);
		if (s->e.done) {
			struct evhttp_request *req = s->req;

			scrape_free(s);
			evhttp_send_reply_end(req);
		} else {
			turns_queue(s->http->turns, &s->task);
		}
		return;
	}
	if (scrape_add(s, b) < 0) {
		struct evhttp_request *req = s->req;

		log_warning("http: scrape: gzip failed");
		evbuffer_free(b);
		scrape_free(s);
		evhttp_send_reply_end(req);
		return;
	}
	evhttp_send_reply_chunk_with_cb(s->req, b, scrape_more, s);
	evbuffer_free(b);
}

/* The scrape's turn: its next page. */
static void
scrape_turn(struct turn_task *t)
{
	scrape_page((struct scrape *)(void *)((char *)t -
	    offsetof(struct scrape, task)));
}

/* The last page was written out: the next one, in the next turn. */
static void
scrape_more(struct evhttp_connection *evcon, void *arg)
{
	struct scrape *s = arg;

	(void)evcon;
	turns_queue(s->http->turns, &s->task);
}

/* Does the Accept-Encoding header take gzip (with a weight above 0)? */
static bool
wants_gzip(const char *ae)
{
	const char *p = ae != NULL ? strstr(ae, "gzip") : NULL;
	const char *end, *q;

	if (p == NULL)
		return false;
	end = strchr(p, ',');
	q = strstr(p, "q=");
	return q == NULL || (end != NULL && q > end) || strtod(q + 2, NULL) > 0;
}

/* Does the Accept header ask for OpenMetrics (with a weight above 0)? */
static bool
wants_om(const char *accept)
{
	const char *p = accept;

	while (p != NULL && (p = strstr(p, "application/openmetrics-text")) !=
	    NULL) {
		const char *end = strchr(p, ','), *q = strstr(p, "q=");

		if (q == NULL || (end != NULL && q > end) || strtod(q + 2,
		    NULL) > 0)
			return true;
		p = end;
	}
	return false;
}

/*
 * Does the Accept header ask for Prometheus' protobuf format, delimited
 * MetricFamily messages (with a weight above 0)? Prometheus asks for it
 * first when its native histograms are on.
 */
static bool
wants_pb(const char *accept)
{
	const char *p = accept;

	while (p != NULL && (p = strstr(p, "application/vnd.google.protobuf"))
	    != NULL) {
		const char *end = strchr(p, ','), *q = strstr(p, "q=");
		const char *proto = strstr(p, "proto=io.prometheus.client."
		    "MetricFamily"), *enc = strstr(p, "encoding=delimited");

		if (proto != NULL && enc != NULL && (end == NULL ||
		    (proto < end && enc < end)) && (q == NULL ||
		    (end != NULL && q > end) || strtod(q + 2, NULL) > 0))
			return true;
		p = end;
	}
	return false;
}

static void
send_text(struct evhttp_request *req, int code, const char *reason,
    const char *text)
{
	struct evbuffer *b = evbuffer_new();

	evhttp_add_header(evhttp_request_get_output_headers(req),
	    "Content-Type", "text/plain; charset=utf-8");
	if (b != NULL)
		evbuffer_add(b, text, strlen(text));
	evhttp_send_reply(req, code, reason, b);
	if (b != NULL)
		evbuffer_free(b);
}

/*
 * The published settings into http (the rest of a scrape's start is
 * taken in scrape_expo_init()); a new time-out applies to connections
 * made from now on.
 */
static void
http_settings(struct http *http)
{
	const struct http_conf *c;
	struct timeval tv;

	pub_enter(http->rd);
	c = pub_conf(http->d->pub);
	if (c != NULL) {
		http->max_connections = c->max_connections;
		http->max_per_peer = c->max_per_peer;
		http->reserve = http_reserve(c->max_connections,
		    c->reserve_pct);
		http->gzip_level = c->gzip_level;
		if (c->timeout_ms != http->timeout_ms) {
			http->timeout_ms = c->timeout_ms;
			tv.tv_sec = c->timeout_ms / 1000;
			tv.tv_usec = (suseconds_t)(c->timeout_ms % 1000) *
			    1000;
			evhttp_set_timeout_tv(http->h, &tv);
		}
	}
	pub_leave(http->rd);
}

/* The scrape's exposition, with the rules and quantiles published now
 * (expo_init() takes its own of both). Returns: 0; -ENOMEM. */
static int
scrape_expo_init(struct http *http, struct scrape *s, bool om)
{
	const struct http_conf *c;
	struct expo_src src = {
		.rv = http->rv,
		.rd = http->rd,
		.totals = &http->d->expo_tot,
	};
	int r;

	pub_enter(http->rd);
	if ((c = pub_conf(http->d->pub)) != NULL) {
		src.rules = c->rules;
		src.quantiles = c->quantiles;
	}
	r = expo_init(&s->e, &src, s->text, om, &s->peer);
	pub_leave(http->rd);
	return r;
}

static void
serve_metrics(struct http *http, struct evhttp_request *req)
{
	struct evkeyvalq *in = evhttp_request_get_input_headers(req);
	const char *accept = evhttp_find_header(in, "Accept");
	bool pb = accept != NULL && expo_pb_available() && wants_pb(accept);
	bool om = !pb && accept != NULL && wants_om(accept);
	struct http_conn *conn;
	struct scrape *s;

	evhttp_add_header(evhttp_request_get_output_headers(req),
	    "Content-Type", pb ? CT_PB : om ? CT_OM : CT_TEXT);
	evhttp_add_header(evhttp_request_get_output_headers(req), "Vary",
	    "Accept, Accept-Encoding");
	if (evhttp_request_get_command(req) == EVHTTP_REQ_HEAD) {
		evhttp_send_reply(req, HTTP_OK, "OK", NULL);
		return;
	}
	conn = http_conn_of(http, evhttp_request_get_connection(req));
	if (http->nscrapes >= http->max_connections + http->reserve ||
	    (http->nscrapes >= http->max_connections &&
	    (conn == NULL || !conn->privileged))) {
		send_text(req, 503, "Service Unavailable",
		    "too many scrapes at once (http_max_connections)\n");
		return;
	}
	s = conn != NULL ? calloc(1, sizeof(*s)) : NULL;
	if (s == NULL || (s->text = sbuf_new_auto()) == NULL ||
	    (s->turn = turns_peer_get(http->turns, turns_key_unique(
	    http->turns), false)) == NULL ||
	    scrape_expo_init(http, s, om) < 0 ||
	    (pb && expo_set_protobuf(&s->e) < 0 && (expo_done(&s->e), true))) {
		if (s != NULL) {
			sbuf_delete(s->text);
			turns_peer_put(http->turns, s->turn);
		}
		free(s);
		send_text(req, 500, "Internal Server Error", "out of memory\n");
		return;
	}
	s->task.run = scrape_turn;
	s->task.peer = s->turn;
	/* Anonymous: an unprivileged peer of the global zone, which sees no
	 * PRIV kstat (view.h). */
	s->peer.uid = HTTP_UID;
	s->peer.gid = (gid_t)65534;
	s->peer.zone = ZONE_GLOBAL;
	s->peer.privileged = false;
	/* gzip: windowBits 15, + 16 for gzip's header and trailer. */
	if (http->gzip_level > 0 &&
	    wants_gzip(evhttp_find_header(in, "Accept-Encoding")) &&
	    deflateInit2(&s->z, (int)http->gzip_level,
	    Z_DEFLATED, 15 + 16, 8,
	    Z_DEFAULT_STRATEGY) == Z_OK) {
		s->gz = true;
		evhttp_add_header(evhttp_request_get_output_headers(req),
		    "Content-Encoding", "gzip");
	}
	s->http = http;
	s->req = req;
	s->conn = conn;
	conn->scrape = s;
	s->next = http->scrapes;
	s->prevp = &http->scrapes;
	if (s->next != NULL)
		s->next->prevp = &s->next;
	http->scrapes = s;
	http->nscrapes++;
	http->d->expo_tot.scrapes++;
	evhttp_send_reply_start(req, HTTP_OK, "OK");
	turns_queue(http->turns, &s->task);
}

static const char landing[] =
    "<!DOCTYPE html>\n<html><head><title>statsd</title></head><body>\n"
    "<h1>statsd</h1>\n<p><a href=\"/metrics\">Metrics</a>: every "
    "kstat a peer without privilege may read, in the Prometheus text "
    "format, or OpenMetrics when the Accept header asks for it.</p>\n"
    "</body></html>\n";

static void
on_request(struct evhttp_request *req, void *arg)
{
	struct http *http = arg;
	const char *uri = evhttp_request_get_uri(req);
	enum evhttp_cmd_type cmd = evhttp_request_get_command(req);
	size_t plen = strcspn(uri, "?#");

	http_settings(http);
	if (cmd != EVHTTP_REQ_GET && cmd != EVHTTP_REQ_HEAD) {
		evhttp_add_header(evhttp_request_get_output_headers(req),
		    "Allow", "GET, HEAD");
		send_text(req, 405, "Method Not Allowed",
		    "only GET and HEAD\n");
		return;
	}
	if (plen == 8 && strncmp(uri, "/metrics", 8) == 0) {
		serve_metrics(http, req);
	} else if (plen == 1 && uri[0] == '/') {
		struct evbuffer *b = evbuffer_new();

		evhttp_add_header(evhttp_request_get_output_headers(req),
		    "Content-Type", "text/html; charset=utf-8");
		if (b != NULL && cmd == EVHTTP_REQ_GET)
			evbuffer_add(b, landing, sizeof(landing) - 1);
		evhttp_send_reply(req, HTTP_OK, "OK", b);
		if (b != NULL)
			evbuffer_free(b);
	} else {
		send_text(req, HTTP_NOTFOUND, "Not Found",
		    "not found: statsd serves / and /metrics\n");
	}
}

static void
http_conf_free(void *arg)
{
	struct http_conf *c = arg;

	prom_rules_unref(c->rules);
	free(c->quantiles);
	free(c);
}

int
http_reconfigure(struct statsd *d)
{
	struct http_conf *c;

	if (d->http == NULL)
		return 0;
	if ((c = calloc(1, sizeof(*c))) == NULL ||
	    (c->quantiles = strdup(d->cfg.http_quantiles)) == NULL) {
		free(c);
		return -ENOMEM;
	}
	c->rules = prom_rules_ref(d->cfg.mapping);
	c->timeout_ms = d->cfg.http_timeout_ms;
	c->max_connections = d->cfg.http_max_connections;
	c->max_per_peer = d->cfg.http_max_connections_per_peer;
	c->reserve_pct = d->cfg.quota_reserve_percent;
	c->gzip_level = d->cfg.http_gzip_level;
	pub_conf_set(d->pub, c, http_conf_free);
	return 0;
}

/* The loop told the thread to stop. */
static void
http_on_stop(evutil_socket_t fd, short what, void *arg)
{
	struct http *http = arg;
	uint64_t v;

	(void)what;
	(void)!read(fd, &v, sizeof(v));
	event_base_loopbreak(http->base);
}

static void *
http_main(void *arg)
{
	struct http *http = arg;
	sigset_t all;

	/* Signals are the loop's (SIGTERM, SIGHUP...). */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	(void)event_base_dispatch(http->base);
	return NULL;
}

int
http_start(struct statsd *d, int fd)
{
	struct evhttp_bound_socket *bound;
	struct sockaddr_storage ss;
	socklen_t sl;
	char host[NI_MAXHOST], serv[NI_MAXSERV];
	struct http *http;
	struct timeval tv;
	char addr[CONFIG_ADDR_MAX];
	unsigned short port = 0;
	const char *listen = d->http_listen != NULL ? d->http_listen :
	    d->cfg.http_listen;
	int e;

	if (fd < 0 && listen[0] == '\0')
		return 0;
	if (fd < 0 && config_addr_port(listen, addr, sizeof(addr), &port) < 0) {
		log_error("http_listen %s: not ADDR:PORT", listen);
		return -EINVAL;
	}
	if ((http = calloc(1, sizeof(*http))) == NULL)
		return -ENOMEM;
	http->d = d;
	http->stopfd = -1;
	http->diag = -1;
	/* The thread's own loop, with the loop's priorities (the adopt
	 * pass runs first), turns and view of the store. */
	if ((http->base = event_base_new()) == NULL ||
	    event_base_priority_init(http->base, PRIO_NUM) < 0 ||
	    (http->h = evhttp_new(http->base)) == NULL ||
	    turns_new(http->base, PRIO_CONTROL, &http->turns) < 0 ||
	    rview_new(d->pub, &http->rv) < 0 ||
	    (http->stopfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0) {
		http_free(http);
		return -ENOMEM;
	}
	if ((e = pub_reader_new(d->pub, &http->rd)) < 0) {
		http_free(http);
		return e;
	}
	http->adopt = event_new(http->base, -1, 0, http_adopt, http);
	http->resume = evtimer_new(http->base, http_accept_resume, http);
	http->stop_ev = event_new(http->base, http->stopfd, EV_READ,
	    http_on_stop, http);
	if (http->adopt == NULL || http->resume == NULL ||
	    http->stop_ev == NULL || event_add(http->stop_ev, NULL) < 0) {
		http_free(http);
		return -ENOMEM;
	}
	/* Before evhttp's own events (the default, middle priority), so
	 * that a connection is adopted before any of its input is read. */
	event_priority_set(http->adopt, PRIO_DRAIN);
	http->timeout_ms = d->cfg.http_timeout_ms;
	http->max_connections = d->cfg.http_max_connections;
	http->max_per_peer = d->cfg.http_max_connections_per_peer;
	http->reserve = http_reserve(d->cfg.http_max_connections,
	    d->cfg.quota_reserve_percent);
	http->gzip_level = d->cfg.http_gzip_level;
	/* Without socket diagnostics, local peers share no bound. */
	if ((http->diag = rights_tcp_diag_open()) < 0)
		log_warning("http: no socket diagnostics (%s): local users' "
		    "HTTP connections are not told apart",
		    strerror(-http->diag));
	tv.tv_sec = d->cfg.http_timeout_ms / 1000;
	tv.tv_usec = (suseconds_t)(d->cfg.http_timeout_ms % 1000) * 1000;
	evhttp_set_timeout_tv(http->h, &tv);
	evhttp_set_max_headers_size(http->h, HTTP_HEADERS_MAX);
	evhttp_set_max_body_size(http->h, 0);
	evhttp_set_bevcb(http->h, http_conn_new, http);
	/* Every method reaches on_request, which answers 405. */
	evhttp_set_allowed_methods(http->h, EVHTTP_REQ_GET | EVHTTP_REQ_POST |
	    EVHTTP_REQ_HEAD | EVHTTP_REQ_PUT | EVHTTP_REQ_DELETE |
	    EVHTTP_REQ_OPTIONS | EVHTTP_REQ_TRACE | EVHTTP_REQ_CONNECT |
	    EVHTTP_REQ_PATCH);
	evhttp_set_gencb(http->h, on_request, http);
	/* A passed socket is blocking: an accept() with nothing queued
	 * would stop the loop. */
	if (fd >= 0)
		(void)evutil_make_socket_nonblocking(fd);
	bound = fd >= 0 ? evhttp_accept_socket_with_handle(http->h, fd) :
	    evhttp_bind_socket_with_handle(http->h, addr, port);
	if (bound == NULL) {
		e = errno != 0 ? errno : EADDRNOTAVAIL;
		log_error("http: cannot listen on %s: %s", fd >= 0 ?
		    "the socket systemd passed" : listen, strerror(e));
		http_free(http);
		return -e;
	}
	http->lev = evhttp_bound_socket_get_listener(bound);
	evconnlistener_set_error_cb(http->lev, http_accept_error);
	http_one = http;
	d->http = http;
	if ((e = http_reconfigure(d)) < 0 ||
	    (e = -pthread_create(&http->thread, NULL, http_main, http)) < 0) {
		log_error("http: cannot start its thread: %s", strerror(-e));
		d->http = NULL;
		http_free(http);
		return e;
	}
	http->running = true;
	/* Named before anyone can look (its log line says it serves). */
	(void)pthread_setname_np(http->thread, "statsd-http");
	/* The port bound (port 0 takes any): tests read it here. */
	sl = sizeof(ss);
	if (getsockname(evhttp_bound_socket_get_fd(bound),
	    (struct sockaddr *)&ss, &sl) == 0 && getnameinfo(
	    (struct sockaddr *)&ss, sl, host, sizeof(host), serv,
	    sizeof(serv), NI_NUMERICHOST | NI_NUMERICSERV) == 0)
		log_info("http: serving /metrics on %s port %s", host, serv);
	return 0;
}

/* Everything of http: evhttp_free() frees the connections, whose close
 * callbacks free their scrapes and themselves; those not adopted yet
 * hold their bufferevents until here. */
static void
http_free(struct http *http)
{
	if (http->running || http->refused_peer > 0)
		log_info("http: %llu connections past "
		    "http_max_connections_per_peer closed, %llu past "
		    "http_max_connections", (unsigned long long)
		    http->refused_peer, (unsigned long long)
		    http->refused_full);
	http->stopping = true;
	if (http->h != NULL)
		evhttp_free(http->h);
	while (http->scrapes != NULL)
		scrape_free(http->scrapes);
	while (http->fresh != NULL) {
		struct http_conn *c = http->fresh;

		http_conn_unlink(c);
		bufferevent_decref(c->bev);
		free(c);
	}
	while (http->conns != NULL) {
		struct http_conn *c = http->conns;

		http_conn_unlink(c);
		free(c);
	}
	if (http->adopt != NULL)
		event_free(http->adopt);
	if (http->resume != NULL)
		event_free(http->resume);
	if (http->stop_ev != NULL)
		event_free(http->stop_ev);
	if (http->stopfd >= 0)
		close(http->stopfd);
	if (http->diag >= 0)
		close(http->diag);
	turns_free(http->turns);
	rview_free(http->rv);
	pub_reader_free(http->rd);
	if (http->base != NULL)
		event_base_free(http->base);
	if (http_one == http)
		http_one = NULL;
	free(http);
}

void
http_stop(struct statsd *d)
{
	struct http *http = d->http;
	uint64_t one = 1;

	if (http == NULL)
		return;
	/* The thread ends its loop; then everything of it is this
	 * thread's to free. */
	if (http->running) {
		(void)!write(http->stopfd, &one, sizeof(one));
		pthread_join(http->thread, NULL);
	}
	http_free(http);
	d->http = NULL;
}
