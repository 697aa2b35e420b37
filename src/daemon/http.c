/*
 * http.c: GET /metrics over HTTP (http.h). A scrape is a chunked reply
 * whose next page is rendered only once the last one was written out:
 * a scraper that does not read holds one page and no more, and its
 * connection times out (http_timeout_ms). HTTP peers are anonymous: they
 * see what an unprivileged peer of the global zone sees, and never a
 * PRIV kstat. Each scrape is charged to them, as uid HTTP_UID (nobody),
 * one connection and a page of buffered bytes (quota.h): HTTP can take
 * no more of statsd than an unprivileged user, and never the reserve
 * privileged peers keep. With zlib, a scraper that accepts gzip gets
 * it: each page compressed and flushed as it goes.
 */
#include <errno.h>
#include <netdb.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/util.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#ifdef HAVE_ZLIB
#include <zlib.h>
#endif

#include "daemon.h"
#include "expo.h"
#include "http.h"
#include "log.h"
#include "quota.h"
#include "varlink.h"
#include "zones.h"

/* Bytes of one page of a scrape. */
#define HTTP_PAGE	(64u * 1024u)

/* Whom HTTP scrapes are charged to: the anonymous peer's uid. */
#define HTTP_UID	((uid_t)65534)

#define CT_TEXT	"text/plain; version=0.0.4; charset=utf-8"
#define CT_OM	"application/openmetrics-text; version=1.0.0; charset=utf-8"

struct http {
	struct statsd		*d;
	struct evhttp		*h;
	unsigned		 nscrapes;	/* under way */
	struct scrape		*scrapes;	/* those, to cut at stop */
};

struct scrape {
	struct http		*http;
	struct evhttp_request	*req;
	struct evhttp_connection *evcon;
	struct expo		 e;
	struct sbuf		*text;
	struct peer		 peer;
	struct event		*later;		/* the next page, after a
						 * page with nothing in it */
	struct scrape		*next, **prevp;
#ifdef HAVE_ZLIB
	z_stream		 z;
	bool			 gz;
#endif
};

static void scrape_more(struct evhttp_connection *evcon, void *arg);

static void
scrape_free(struct scrape *s)
{
	if (s->evcon != NULL)
		evhttp_connection_set_closecb(s->evcon, NULL, NULL);
	*s->prevp = s->next;
	if (s->next != NULL)
		s->next->prevp = s->prevp;
	s->http->nscrapes--;
	if (s->later != NULL)
		event_free(s->later);
	quota_release(s->http->d->quota, HTTP_UID, QUOTA_CONNECTIONS, 1);
	quota_release(s->http->d->quota, HTTP_UID, QUOTA_BUFFERED, HTTP_PAGE);
	expo_done(&s->e);
	sbuf_delete(s->text);
#ifdef HAVE_ZLIB
	if (s->gz)
		(void)deflateEnd(&s->z);
#endif
	free(s);
}

/*
 * The connection went away mid-scrape (the scraper left, or timed out):
 * libevent has let go of a request whose reply was not ended, which is
 * then ours to free; one still on its connection (statsd stopping) goes
 * with the connection.
 */
static void
scrape_closed(struct evhttp_connection *evcon, void *arg)
{
	struct scrape *s = arg;
	struct evhttp_request *req = s->req;

	(void)evcon;
	s->evcon = NULL;
	scrape_free(s);
	if (evhttp_request_get_connection(req) == NULL)
		evhttp_request_free(req);
}

static bool
scrape_gz(const struct scrape *s)
{
#ifdef HAVE_ZLIB
	return s->gz;
#else
	(void)s;
	return false;
#endif
}

/* The page into b: as it is, or gzipped (every page flushed, so that
 * each makes a chunk; the last one ends the stream). Returns: 0; -1. */
static int
scrape_add(struct scrape *s, struct evbuffer *b)
{
#ifdef HAVE_ZLIB
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
#endif
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
	r = expo_page(s->http->d, &s->e, HTTP_PAGE, VL_SLICE_UNITS);
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
	 * empty chunk, nor calls back; the next page comes from the loop. */
	if (evbuffer_get_length(b) == 0 && sbuf_len(s->text) == 0 &&
	    !scrape_gz(s)) {
		struct timeval now = { 0, 0 };

		evbuffer_free(b);
		if (s->e.done) {
			struct evhttp_request *req = s->req;

			scrape_free(s);
			evhttp_send_reply_end(req);
		} else {
			evtimer_add(s->later, &now);
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

/* After a page with nothing in it. */
static void
scrape_later(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	scrape_page(arg);
}

/* The last page was written out: the next one. */
static void
scrape_more(struct evhttp_connection *evcon, void *arg)
{
	(void)evcon;
	scrape_page(arg);
}

#ifdef HAVE_ZLIB
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
#endif

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

static void
serve_metrics(struct http *http, struct evhttp_request *req)
{
	struct evkeyvalq *in = evhttp_request_get_input_headers(req);
	const char *accept = evhttp_find_header(in, "Accept");
	bool om = accept != NULL && wants_om(accept);
	struct quota_refusal why;
	struct scrape *s;
	char msg[160];

	evhttp_add_header(evhttp_request_get_output_headers(req),
	    "Content-Type", om ? CT_OM : CT_TEXT);
	evhttp_add_header(evhttp_request_get_output_headers(req), "Vary",
	    "Accept, Accept-Encoding");
	if (evhttp_request_get_command(req) == EVHTTP_REQ_HEAD) {
		evhttp_send_reply(req, HTTP_OK, "OK", NULL);
		return;
	}
	if (http->nscrapes >= http->d->cfg.http_max_connections) {
		send_text(req, 503, "Service Unavailable",
		    "too many scrapes at once (http_max_connections)\n");
		return;
	}
	if (quota_charge(http->d->quota, HTTP_UID, false, QUOTA_CONNECTIONS,
	    1, &why) < 0) {
		snprintf(msg, sizeof(msg), "over statsd's %s\n", why.limit);
		send_text(req, 503, "Service Unavailable", msg);
		return;
	}
	if (quota_charge(http->d->quota, HTTP_UID, false, QUOTA_BUFFERED,
	    HTTP_PAGE, &why) < 0) {
		quota_release(http->d->quota, HTTP_UID, QUOTA_CONNECTIONS, 1);
		snprintf(msg, sizeof(msg), "over statsd's %s\n", why.limit);
		send_text(req, 503, "Service Unavailable", msg);
		return;
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL || (s->text = sbuf_new_auto()) == NULL ||
	    (s->later = evtimer_new(http->d->base, scrape_later, s)) == NULL ||
	    expo_init(http->d, &s->e, s->text, om, &s->peer) < 0) {
		if (s != NULL) {
			sbuf_delete(s->text);
			if (s->later != NULL)
				event_free(s->later);
		}
		free(s);
		quota_release(http->d->quota, HTTP_UID, QUOTA_CONNECTIONS, 1);
		quota_release(http->d->quota, HTTP_UID, QUOTA_BUFFERED,
		    HTTP_PAGE);
		send_text(req, 500, "Internal Server Error", "out of memory\n");
		return;
	}
	/* Anonymous: an unprivileged peer of the global zone. */
	s->peer.uid = HTTP_UID;
	s->peer.gid = (gid_t)65534;
	s->peer.zone = ZONE_GLOBAL;
	s->peer.privileged = false;
	s->e.no_priv = true;
#ifdef HAVE_ZLIB
	/* gzip: windowBits 15, + 16 for gzip's header and trailer. */
	if (http->d->cfg.http_gzip_level > 0 &&
	    wants_gzip(evhttp_find_header(in, "Accept-Encoding")) &&
	    deflateInit2(&s->z, (int)http->d->cfg.http_gzip_level,
	    Z_DEFLATED, 15 + 16, 8,
	    Z_DEFAULT_STRATEGY) == Z_OK) {
		s->gz = true;
		evhttp_add_header(evhttp_request_get_output_headers(req),
		    "Content-Encoding", "gzip");
	}
#endif
	s->http = http;
	s->req = req;
	s->evcon = evhttp_request_get_connection(req);
	s->next = http->scrapes;
	s->prevp = &http->scrapes;
	if (s->next != NULL)
		s->next->prevp = &s->next;
	http->scrapes = s;
	http->nscrapes++;
	http->d->expo_scrapes++;
	evhttp_connection_set_closecb(s->evcon, scrape_closed, s);
	evhttp_send_reply_start(req, HTTP_OK, "OK");
	scrape_page(s);
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

/* "ADDR:PORT" or "[ADDR]:PORT" into addr and port. Returns: 0; -EINVAL. */
static int
split_listen(const char *v, char *addr, size_t len, unsigned short *port)
{
	const char *colon = strrchr(v, ':');
	size_t n;

	if (colon == NULL)
		return -EINVAL;
	n = (size_t)(colon - v);
	if (n >= 2 && v[0] == '[' && v[n - 1] == ']') {
		v++;
		n -= 2;
	}
	if (n == 0 || n >= len)
		return -EINVAL;
	memcpy(addr, v, n);
	addr[n] = '\0';
	*port = (unsigned short)strtoul(colon + 1, NULL, 10);
	return 0;
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
	char addr[128];
	unsigned short port = 0;
	const char *listen = d->http_listen != NULL ? d->http_listen :
	    d->cfg.http_listen;

	if (fd < 0 && listen[0] == '\0')
		return 0;
	if (fd < 0 && split_listen(listen, addr, sizeof(addr), &port) < 0) {
		log_error("http_listen %s: not ADDR:PORT", listen);
		return -EINVAL;
	}
	http = calloc(1, sizeof(*http));
	if (http == NULL || (http->h = evhttp_new(d->base)) == NULL) {
		free(http);
		return -ENOMEM;
	}
	http->d = d;
	tv.tv_sec = d->cfg.http_timeout_ms / 1000;
	tv.tv_usec = (suseconds_t)(d->cfg.http_timeout_ms % 1000) * 1000;
	evhttp_set_timeout_tv(http->h, &tv);
	evhttp_set_max_headers_size(http->h, 16384);
	evhttp_set_max_body_size(http->h, 0);
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
		int e = errno != 0 ? errno : EADDRNOTAVAIL;

		log_error("http: cannot listen on %s: %s", fd >= 0 ?
		    "the socket systemd passed" : listen, strerror(e));
		evhttp_free(http->h);
		free(http);
		return -e;
	}
	d->http = http;
	/* The port bound (port 0 takes any): tests read it here. */
	sl = sizeof(ss);
	if (getsockname(evhttp_bound_socket_get_fd(bound),
	    (struct sockaddr *)&ss, &sl) == 0 && getnameinfo(
	    (struct sockaddr *)&ss, sl, host, sizeof(host), serv,
	    sizeof(serv), NI_NUMERICHOST | NI_NUMERICSERV) == 0)
		log_info("http: serving /metrics on %s port %s", host, serv);
	return 0;
}

void
http_stop(struct statsd *d)
{
	struct http *http = d->http;

	if (http == NULL)
		return;
	/* evhttp_free() frees the connections, whose close callbacks
	 * free the scrapes. */
	evhttp_free(http->h);
	while (http->scrapes != NULL)
		scrape_free(http->scrapes);
	free(http);
	d->http = NULL;
}
