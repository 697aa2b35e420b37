/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * vlclient.c: the varlink client of vlclient.h — framing (JSON + NUL),
 * SCM_RIGHTS in both directions, time-outs with poll(2), and the table that
 * maps statsd's error names to errno values.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <statsd/client.h>

#include "clock.h"
#include "jdump.h"
#include "jload.h"
#include "vlclient.h"

#define VLC_DEFAULT_TIMEOUT_MS	5000
#define VLC_READ_CHUNK		65536u

struct vlc {
	int	 fd;
	bool	 broken;	/* framing lost: refuse further use */
	unsigned stale;		/* calls given up on: replies to skip */
	char	*path;
	/* Bytes received and not yet handed out as a reply. */
	char	*buf;
	size_t	 len;
	size_t	 cap;
	/* Descriptors received for the message that starts at buf[0]. */
	int	 fds[VLC_MAX_FDS];
	size_t	 nfds;
	/* Descriptors that arrived with bytes of a later message. */
	int	 nextfds[VLC_MAX_FDS];
	size_t	 nnextfds;
	size_t	 next_off;	/* where that later message starts in buf */
};

static uint64_t
vlc_deadline(int timeout_ms)
{
	return clock_now_ns() / 1000000u + (uint64_t)(timeout_ms < 0 ?
	    VLC_DEFAULT_TIMEOUT_MS : timeout_ms);
}

/* Wait for events on fd until the deadline. Returns: 0; -ETIMEDOUT; -errno. */
static int
vlc_wait(int fd, short events, uint64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = events };
	uint64_t now;
	int r;

	for (;;) {
		now = clock_now_ns() / 1000000u;
		if (now >= deadline)
			return -ETIMEDOUT;
		r = poll(&p, 1, (int)(deadline - now > INT32_MAX ? INT32_MAX :
		    deadline - now));
		if (r > 0)
			return 0;
		if (r == 0)
			return -ETIMEDOUT;
		if (errno != EINTR)
			return -errno;
	}
}

const char *
vlc_default_socket(void)
{
	const char *s = getenv("STATSD_SOCKET");

	return s != NULL && s[0] != '\0' ? s : STATS_DEFAULT_SOCKET;
}

int
vlc_connect(const char *path, int timeout_ms, struct vlc **ret)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	uint64_t deadline = vlc_deadline(timeout_ms);
	struct vlc *c;
	socklen_t elen = sizeof(int);
	int fd, r, err = 0;

	if (path == NULL || path[0] == '\0' ||
	    strlen(path) >= sizeof(sa.sun_path))
		return -EINVAL;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->path = strdup(path);
	if (c->path == NULL) {
		free(c);
		return -ENOMEM;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		r = -errno;
		goto fail;
	}
	c->fd = fd;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		if (errno != EINPROGRESS && errno != EAGAIN) {
			r = -errno;
			goto fail_fd;
		}
		/* A full backlog: wait until the daemon takes us. */
		r = vlc_wait(fd, POLLOUT, deadline);
		if (r < 0)
			goto fail_fd;
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) < 0) {
			r = -errno;
			goto fail_fd;
		}
		if (err != 0) {
			r = -err;
			goto fail_fd;
		}
	}
	*ret = c;
	return 0;
fail_fd:
	close(fd);
fail:
	free(c->path);
	free(c);
	return r;
}

static void
vlc_close_fds(int *fds, size_t *n)
{
	while (*n > 0)
		close(fds[--*n]);
}

struct vlc *
vlc_free(struct vlc *c)
{
	if (c == NULL)
		return NULL;
	vlc_close_fds(c->fds, &c->nfds);
	vlc_close_fds(c->nextfds, &c->nnextfds);
	if (c->fd >= 0)
		close(c->fd);
	free(c->buf);
	free(c->path);
	free(c);
	return NULL;
}

int
vlc_fd(const struct vlc *c)
{
	return c->fd;
}

const char *
vlc_path(const struct vlc *c)
{
	return c->path;
}

/* A call's closing keys by its flags (VLC_MORE 1, VLC_ONEWAY 2). */
static const char *const vlc_tails[4] = {
	"}", ",\"more\":true}", ",\"oneway\":true}",
	",\"more\":true,\"oneway\":true}",
};

#define VLC_NAME_MAX	255

/* Is the method's name written into JSON as it is (no escape needed)?
 * varlink names are letters, digits, dots, dashes (and underscores). */
static bool
vlc_plain_name(const char *m)
{
	size_t i;

	for (i = 0; m[i] != '\0'; i++)
		if (i == VLC_NAME_MAX || !((m[i] >= 'a' && m[i] <= 'z') ||
		    (m[i] >= 'A' && m[i] <= 'Z') || (m[i] >= '0' &&
		    m[i] <= '9') || m[i] == '.' || m[i] == '-' || m[i] == '_'))
			return false;
	return true;
}

/* a, b and c and a NUL, in memory of the caller's; *len counts the NUL. */
static char *
vlc_concat(const char *a, const char *b, const char *c, size_t *len)
{
	size_t na = strlen(a), nb = strlen(b), nc = strlen(c);
	char *s = malloc(na + nb + nc + 1);

	if (s == NULL)
		return NULL;
	memcpy(s, a, na);
	memcpy(s + na, b, nb);
	memcpy(s + na + nb, c, nc + 1);
	*len = na + nb + nc + 1;
	return s;
}

/*
 * A call's text, NUL included in *len: the frame written round the
 * parameters (their text, or jdump_framed() of their object), the same
 * bytes json_dumps() gave of an object holding the method, the
 * parameters and the flags, without building that object; a method name
 * JSON would escape goes through jansson (not with text parameters).
 */
static char *
vlc_frame(const char *method, json_t *params, const char *ptext,
    unsigned flags, size_t *len)
{
	static const char h1[] = "{\"method\":\"", h2[] = "\",\"parameters\":";
	char head[sizeof(h1) + VLC_NAME_MAX + sizeof(h2)];
	const char *tail = vlc_tails[flags & (VLC_MORE | VLC_ONEWAY)];
	size_t mn = strlen(method);
	json_t *msg;
	char *text;

	if (vlc_plain_name(method)) {
		memcpy(head, h1, sizeof(h1) - 1);
		memcpy(head + sizeof(h1) - 1, method, mn);
		memcpy(head + sizeof(h1) - 1 + mn, h2, sizeof(h2));
		if (ptext != NULL)
			return vlc_concat(head, ptext, tail, len);
		if (params == NULL)
			return vlc_concat(head, "{}", tail, len);
		return jdump_framed(head, params, tail, len);
	}
	if (ptext != NULL)
		return NULL;
	msg = json_object();
	if (msg == NULL || json_object_set_new_nocheck(msg, "method",
	    json_string(method)) < 0 || json_object_set_new_nocheck(msg,
	    "parameters", params != NULL ? json_incref(params) :
	    json_object()) < 0) {
		json_decref(msg);
		return NULL;
	}
	if (flags & VLC_MORE)
		json_object_set_new(msg, "more", json_true());
	if (flags & VLC_ONEWAY)
		json_object_set_new(msg, "oneway", json_true());
	/* jdump(), not json_dumps(): a quarter of a call's CPU. */
	text = jdump(msg, 0, len);
	json_decref(msg);
	if (text != NULL)
		(*len)++;		/* the NUL is the frame's end */
	return text;
}

static int
vlc_send_any(struct vlc *c, const char *method, json_t *params,
    const char *ptext, unsigned flags, const int *fds, size_t nfds,
    int timeout_ms)
{
	uint64_t deadline = vlc_deadline(timeout_ms);
	union {
		struct cmsghdr	align;
		char		buf[CMSG_SPACE(sizeof(int) * VLC_MAX_FDS)];
	} ctl;
	char *text;
	size_t len, off = 0;
	int r = 0;

	if (c->broken)
		return -EPIPE;
	if (method == NULL || method[0] == '\0' || nfds > VLC_MAX_FDS ||
	    (nfds > 0 && fds == NULL) || (ptext != NULL &&
	    !vlc_plain_name(method)))
		return -EINVAL;
	text = vlc_frame(method, params, ptext, flags, &len);
	if (text == NULL)
		return -ENOMEM;
	while (off < len) {
		struct iovec iov = { text + off, len - off };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n;

		if (off == 0 && nfds > 0) {
			struct cmsghdr *cm;

			memset(&ctl, 0, sizeof(ctl));
			mh.msg_control = ctl.buf;
			mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
			cm = CMSG_FIRSTHDR(&mh);
			cm->cmsg_level = SOL_SOCKET;
			cm->cmsg_type = SCM_RIGHTS;
			cm->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
			memcpy(CMSG_DATA(cm), fds, sizeof(int) * nfds);
		}
		n = sendmsg(c->fd, &mh, MSG_NOSIGNAL);
		if (n > 0) {
			off += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			r = vlc_wait(c->fd, POLLOUT, deadline);
			if (r < 0)
				break;
			continue;
		}
		r = n < 0 && errno != ECONNRESET ? -errno : -EPIPE;
		break;
	}
	free(text);
	if (r < 0 && off > 0)
		c->broken = true;	/* half a message went out */
	if (r == -EPIPE)
		c->broken = true;
	return r;
}

int
vlc_send(struct vlc *c, const char *method, json_t *params, unsigned flags,
    const int *fds, size_t nfds, int timeout_ms)
{
	return vlc_send_any(c, method, params, NULL, flags, fds, nfds,
	    timeout_ms);
}

int
vlc_send_text(struct vlc *c, const char *method, const char *params,
    unsigned flags, const int *fds, size_t nfds, int timeout_ms)
{
	return vlc_send_any(c, method, NULL, params != NULL ? params : "{}",
	    flags, fds, nfds, timeout_ms);
}

/*
 * Keep the descriptors of one recvmsg. statsd sends each message with its
 * own sendmsg, the descriptors with its first byte, and the kernel ends a
 * read after the data that came with descriptors: so they belong to the
 * last message that starts within the bytes this read brought,
 * [start, start + n) — or, if none starts there, to the one in progress.
 */
static int
vlc_keep_fds(struct vlc *c, struct msghdr *mh, size_t start, size_t n)
{
	struct cmsghdr *cm;
	size_t i, k, nf, at = 0;

	for (i = start; i < start + n; i++)
		if (i == 0 || c->buf[i - 1] == '\0')
			at = i;
	if (at == 0) {
		/* None starts here: the last start before this read. */
		for (i = start; i > 0; i--)
			if (c->buf[i - 1] == '\0') {
				at = i;
				break;
			}
	}
	for (cm = CMSG_FIRSTHDR(mh); cm != NULL; cm = CMSG_NXTHDR(mh, cm)) {
		bool later = at > 0;
		int *fds, *dst;
		size_t *dn;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		fds = (int *)CMSG_DATA(cm);
		nf = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		/* One later message with descriptors at most: a second
		 * cannot happen with one call at a time. */
		if (later && c->nnextfds > 0 && c->next_off != at)
			c->broken = true;
		dst = later ? c->nextfds : c->fds;
		dn = later ? &c->nnextfds : &c->nfds;
		for (k = 0; k < nf; k++) {
			if (c->broken || *dn >= VLC_MAX_FDS) {
				close(fds[k]);
				c->broken = true;
				continue;
			}
			dst[(*dn)++] = fds[k];
		}
		if (later)
			c->next_off = at;
	}
	return c->broken ? -EPROTO : 0;
}

/* Read once (non-blocking). Returns: bytes read (> 0); -EAGAIN; -EPIPE at
 * end of stream; -EPROTO; -errno. */
static int
vlc_read_some(struct vlc *c)
{
	union {
		struct cmsghdr	align;
		char		buf[CMSG_SPACE(sizeof(int) * VLC_MAX_FDS)];
	} ctl;
	struct iovec iov;
	struct msghdr mh = { 0 };
	ssize_t n;
	int r;

	if (c->cap - c->len < VLC_READ_CHUNK) {
		size_t ncap = c->cap == 0 ? VLC_READ_CHUNK * 2 : c->cap * 2;
		char *nb;

		if (ncap > VLC_MAX_MESSAGE + VLC_READ_CHUNK)
			ncap = VLC_MAX_MESSAGE + VLC_READ_CHUNK;
		if (ncap - c->len == 0)
			return -EPROTO;
		nb = realloc(c->buf, ncap);
		if (nb == NULL)
			return -ENOMEM;
		c->buf = nb;
		c->cap = ncap;
	}
	iov.iov_base = c->buf + c->len;
	iov.iov_len = c->cap - c->len;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = ctl.buf;
	mh.msg_controllen = sizeof(ctl.buf);
	do {
		n = recvmsg(c->fd, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? -EAGAIN :
		    errno == ECONNRESET ? -EPIPE : -errno;
	if (n == 0)
		return -EPIPE;
	c->len += (size_t)n;
	r = vlc_keep_fds(c, &mh, c->len - (size_t)n, (size_t)n);
	if (mh.msg_flags & MSG_CTRUNC)
		r = -EPROTO;	/* the kernel closed descriptors we lost */
	if (r < 0) {
		c->broken = true;
		return r;
	}
	return (int)n;
}

static void
vlc_reply_init(struct vlc_reply *r)
{
	memset(r, 0, sizeof(*r));
}

/* ------------------------------------------------ long strings, fast */

/*
 * A reply may hold one long string: a Scrape page's text (a megabyte of
 * Prometheus text or kstat -p lines). jansson decodes a string a byte at
 * a time through its lexer, which cost statsctl several times what statsd
 * spent rendering it. So the longest string of a large message is cut
 * out, decoded here (RFC 8259 escapes, UTF-8 checked by json_stringn()),
 * and put back in place of a marker the rest of the message cannot hold;
 * jansson parses the rest. Anything this decoder does not take (a bad or
 * NUL escape, a raw control byte) leaves the whole message to jansson,
 * whose answer (and error) stands.
 */
#define VLC_LONG_STRING	4096u

/* The longest string literal of buf[0, len) (buf[len] is NUL): its
 * content's offset and length. Returns: whether one is that long. */
static bool
vlc_longest_string(const char *buf, size_t len, size_t *ret_off,
    size_t *ret_n)
{
	size_t i = 0, best = 0, at = 0, start;

	while (i < len) {
		const char *q = memchr(buf + i, '"', len - i);

		if (q == NULL)
			break;
		start = i = (size_t)(q - buf) + 1;
		for (;;) {
			i += strcspn(buf + i, "\\\"");
			if (i >= len)
				return false;	/* unterminated: jansson's */
			if (buf[i] == '"')
				break;
			if (i + 1 >= len)
				return false;
			i += 2;			/* an escape and its char */
		}
		if (i - start > best) {
			best = i - start;
			at = start;
		}
		i++;
	}
	*ret_off = at;
	*ret_n = best;
	return best >= VLC_LONG_STRING;
}

static int
vlc_hex4(const char *s, uint32_t *ret)
{
	uint32_t v = 0;
	int k;

	for (k = 0; k < 4; k++) {
		char ch = s[k];

		v <<= 4;
		if (ch >= '0' && ch <= '9')
			v |= (uint32_t)(ch - '0');
		else if (ch >= 'a' && ch <= 'f')
			v |= (uint32_t)(ch - 'a' + 10);
		else if (ch >= 'A' && ch <= 'F')
			v |= (uint32_t)(ch - 'A' + 10);
		else
			return -1;
	}
	*ret = v;
	return 0;
}

/* Decode a string literal's content s[0, n) into out (n bytes of room:
 * decoding never grows). Returns: the length; -1 for what jansson must
 * judge. */
static ssize_t
vlc_unescape(const char *s, size_t n, char *out)
{
	size_t i = 0, o = 0;

	while (i < n) {
		size_t run = i;
		uint32_t cp, lo;

		while (run < n && s[run] != '\\' && (unsigned char)s[run] >= 0x20)
			run++;
		memcpy(out + o, s + i, run - i);
		o += run - i;
		i = run;
		if (i >= n)
			break;
		if (s[i] != '\\' || i + 1 >= n)
			return -1;		/* a raw control byte */
		switch (s[i + 1]) {
		case '"': out[o++] = '"'; break;
		case '\\': out[o++] = '\\'; break;
		case '/': out[o++] = '/'; break;
		case 'b': out[o++] = '\b'; break;
		case 'f': out[o++] = '\f'; break;
		case 'n': out[o++] = '\n'; break;
		case 'r': out[o++] = '\r'; break;
		case 't': out[o++] = '\t'; break;
		case 'u':
			if (i + 6 > n || vlc_hex4(s + i + 2, &cp) < 0 || cp == 0)
				return -1;
			if (cp >= 0xdc00 && cp <= 0xdfff)
				return -1;
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (i + 12 > n || s[i + 6] != '\\' ||
				    s[i + 7] != 'u' ||
				    vlc_hex4(s + i + 8, &lo) < 0 ||
				    lo < 0xdc00 || lo > 0xdfff)
					return -1;
				cp = 0x10000 + ((cp - 0xd800) << 10) +
				    (lo - 0xdc00);
				i += 6;
			}
			/* At most 4 bytes for 6 (12 for a pair) read. */
			if (cp < 0x80) {
				out[o++] = (char)cp;
			} else if (cp < 0x800) {
				out[o++] = (char)(0xc0 | (cp >> 6));
				out[o++] = (char)(0x80 | (cp & 0x3f));
			} else if (cp < 0x10000) {
				out[o++] = (char)(0xe0 | (cp >> 12));
				out[o++] = (char)(0x80 | ((cp >> 6) & 0x3f));
				out[o++] = (char)(0x80 | (cp & 0x3f));
			} else {
				out[o++] = (char)(0xf0 | (cp >> 18));
				out[o++] = (char)(0x80 | ((cp >> 12) & 0x3f));
				out[o++] = (char)(0x80 | ((cp >> 6) & 0x3f));
				out[o++] = (char)(0x80 | (cp & 0x3f));
			}
			i += 4;
			break;
		default:
			return -1;
		}
		i += 2;
	}
	return (ssize_t)o;
}

/* Replace the one string of tree v equal to marker with str (taken).
 * Returns: how many were replaced. */
static int
vlc_put_back(json_t *v, const char *marker, json_t *str)
{
	const char *key;
	json_t *e;
	size_t i;
	int n = 0;

	if (json_is_object(v)) {
		json_object_foreach(v, key, e) {
			if (json_is_string(e) &&
			    strcmp(json_string_value(e), marker) == 0) {
				if (n++ == 0)
					json_object_set(v, key, str);
			} else {
				n += vlc_put_back(e, marker, str);
			}
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, e) {
			if (json_is_string(e) &&
			    strcmp(json_string_value(e), marker) == 0) {
				if (n++ == 0)
					json_array_set(v, i, str);
			} else {
				n += vlc_put_back(e, marker, str);
			}
		}
	}
	return n;
}

/* buf[0, len) (buf[len] NUL) with its longest string decoded here, if
 * long. Returns: the message; NULL to leave it all to jansson. */
static json_t *
vlc_load_long(const char *buf, size_t len)
{
	static const char marker[] = "vlc\\u0001long\\u0002string";
	static const char marker_dec[] = "vlc\001long\002string";
	size_t off, n, mlen = sizeof(marker) - 1;
	json_t *m = NULL, *str;
	char *text, *dec;
	ssize_t dn;

	if (len < VLC_LONG_STRING || !vlc_longest_string(buf, len, &off, &n))
		return NULL;
	/* The rest must not hold the marker, escaped or not. */
	if (memmem(buf, off, marker, mlen) != NULL ||
	    memmem(buf + off + n, len - off - n, marker, mlen) != NULL ||
	    memmem(buf, off, marker_dec, sizeof(marker_dec) - 1) != NULL ||
	    memmem(buf + off + n, len - off - n, marker_dec,
	    sizeof(marker_dec) - 1) != NULL)
		return NULL;
	dec = malloc(n + 1);
	if (dec == NULL)
		return NULL;
	dn = vlc_unescape(buf + off, n, dec);
	str = dn < 0 ? NULL : json_stringn(dec, (size_t)dn);
	free(dec);
	if (str == NULL)
		return NULL;
	text = malloc(len - n + mlen + 1);
	if (text != NULL) {
		json_error_t jerr;

		memcpy(text, buf, off);
		memcpy(text + off, marker, mlen);
		memcpy(text + off + mlen, buf + off + n, len - off - n);
		m = jload(text, len - n + mlen, &jerr);
		free(text);
	}
	if (m != NULL && vlc_put_back(m, marker_dec, str) != 1) {
		json_decref(m);
		m = NULL;
	}
	json_decref(str);
	return m;
}

json_t *
vlc_loadb(const char *buf, size_t len)
{
	json_error_t jerr;
	json_t *m = vlc_load_long(buf, len);

	return m != NULL ? m : jload(buf, len, &jerr);
}

/* Parse the message buf[0, end) (without its NUL) into *ret. */
static int
vlc_parse(struct vlc *c, size_t end, struct vlc_reply *ret)
{
	json_t *m, *p, *e, *cont;

	m = vlc_loadb(c->buf, end);
	if (m == NULL || !json_is_object(m)) {
		json_decref(m);
		return -EPROTO;
	}
	p = json_object_get(m, "parameters");
	e = json_object_get(m, "error");
	cont = json_object_get(m, "continues");
	if ((p != NULL && !json_is_object(p)) ||
	    (e != NULL && !json_is_string(e)) ||
	    (cont != NULL && !json_is_boolean(cont))) {
		json_decref(m);
		return -EPROTO;
	}
	ret->params = p != NULL ? json_incref(p) : json_object();
	ret->error = e != NULL ? strdup(json_string_value(e)) : NULL;
	ret->continues = json_is_true(cont);
	json_decref(m);
	if (ret->params == NULL || (e != NULL && ret->error == NULL)) {
		vlc_reply_done(ret);
		return -ENOMEM;
	}
	return 0;
}

/* The next message, whatever call it answers. */
static int
vlc_recv_one(struct vlc *c, uint64_t deadline, struct vlc_reply *ret)
{
	char *nul;
	size_t end, rest, k;
	int r;

	vlc_reply_init(ret);
	if (c->broken)
		return -EPIPE;
	for (;;) {
		nul = c->len > 0 ? memchr(c->buf, '\0', c->len) : NULL;
		if (nul != NULL)
			break;
		if (c->len >= VLC_MAX_MESSAGE) {
			c->broken = true;
			return -EPROTO;
		}
		/* Nothing of a reply read yet: statsd is still at it (a
		 * reply takes it tens of microseconds), so wait first; a
		 * read tried first would be refused every time. (Out of
		 * time, the read is tried all the same, as it was.)
		 * The wait is poll(2), not a read that blocks: on Linux a
		 * task asleep in recvmsg(2) on an AF_UNIX stream socket is
		 * also woken when statsd's read frees the call's buffer
		 * (unix_write_space() wakes every sleeper; poll's wait
		 * entry ignores a write-space event it did not ask for),
		 * so a blocking read sleeps and wakes twice a call: one
		 * context switch more each call, and an inter-processor
		 * interrupt more for statsd to send. */
		if (c->len == 0) {
			r = vlc_wait(c->fd, POLLIN, deadline);
			if (r < 0 && r != -ETIMEDOUT)
				return r;
		}
		r = vlc_read_some(c);
		if (r == -EAGAIN) {
			r = vlc_wait(c->fd, POLLIN, deadline);
			if (r < 0)
				return r;
			continue;
		}
		if (r < 0) {
			if (r == -EPIPE)
				c->broken = true;
			return r;
		}
	}
	end = (size_t)(nul - c->buf);
	r = vlc_parse(c, end, ret);
	if (r < 0) {
		c->broken = r == -EPROTO;
		return r;
	}
	for (k = 0; k < c->nfds; k++)
		ret->fds[k] = c->fds[k];
	ret->nfds = c->nfds;
	c->nfds = 0;
	/* Shift the rest down; descriptors of the next message move up. */
	rest = c->len - end - 1;
	memmove(c->buf, nul + 1, rest);
	c->len = rest;
	if (c->nnextfds > 0 && c->next_off == end + 1) {
		memcpy(c->fds, c->nextfds, c->nnextfds * sizeof(int));
		c->nfds = c->nnextfds;
		c->nnextfds = 0;
	} else if (c->nnextfds > 0) {
		c->next_off -= end + 1;
	}
	return ret->error != NULL ? -EREMOTEIO : 0;
}

int
vlc_recv(struct vlc *c, int timeout_ms, struct vlc_reply *ret)
{
	uint64_t deadline = vlc_deadline(timeout_ms);
	int r;

	/* Replies to calls whose caller timed out come first (in call
	 * order, as varlink answers): drop them, and their descriptors. */
	while (c->stale > 0) {
		r = vlc_recv_one(c, deadline, ret);
		if (r < 0 && r != -EREMOTEIO)
			return r;
		if (!ret->continues)
			c->stale--;
		vlc_reply_done(ret);
	}
	r = vlc_recv_one(c, deadline, ret);
	if (r == -ETIMEDOUT)
		c->stale++;	/* its reply may still come */
	return r;
}

static int
vlc_call_any(struct vlc *c, const char *method, json_t *params,
    const char *ptext, unsigned flags, const int *fds, size_t nfds,
    int timeout_ms, struct vlc_reply *ret)
{
	uint64_t start = clock_now_ns() / 1000000u;
	int r, left;

	vlc_reply_init(ret);
	r = vlc_send_any(c, method, params, ptext, flags, fds, nfds,
	    timeout_ms);
	if (r < 0 || (flags & VLC_ONEWAY))
		return r;
	if (timeout_ms < 0)
		timeout_ms = VLC_DEFAULT_TIMEOUT_MS;
	left = timeout_ms - (int)(clock_now_ns() / 1000000u - start);
	return vlc_recv(c, left > 0 ? left : 0, ret);
}

int
vlc_call(struct vlc *c, const char *method, json_t *params, unsigned flags,
    const int *fds, size_t nfds, int timeout_ms, struct vlc_reply *ret)
{
	return vlc_call_any(c, method, params, NULL, flags, fds, nfds,
	    timeout_ms, ret);
}

int
vlc_call_text(struct vlc *c, const char *method, const char *params,
    unsigned flags, const int *fds, size_t nfds, int timeout_ms,
    struct vlc_reply *ret)
{
	return vlc_call_any(c, method, NULL, params != NULL ? params : "{}",
	    flags, fds, nfds, timeout_ms, ret);
}

int
vlc_reply_take_fd(struct vlc_reply *r, size_t i)
{
	int fd;

	if (i >= r->nfds || r->fds[i] < 0)
		return -EBADMSG;
	fd = r->fds[i];
	r->fds[i] = -1;
	return fd;
}

void
vlc_reply_done(struct vlc_reply *r)
{
	size_t i;

	if (r == NULL)
		return;
	for (i = 0; i < r->nfds; i++)
		if (r->fds[i] >= 0)
			close(r->fds[i]);
	json_decref(r->params);
	free(r->error);
	vlc_reply_init(r);
}

int
vlc_error_errno(const char *error)
{
	enum vl_err e = vl_error_lookup(error);

	return e < VL_E_NUM ? vl_errors[e].err : EPROTO;
}

char *
vlc_reply_describe(const struct vlc_reply *r, char *buf, size_t len)
{
	const char *key;
	bool first = true;
	json_t *v;
	size_t off;
	int n;

	if (len == 0)
		return buf;
	n = snprintf(buf, len, "%s", r->error != NULL ? r->error : "ok");
	off = n < 0 ? 0 : (size_t)n;
	if (r->params == NULL)
		return buf;
	json_object_foreach(r->params, key, v) {
		char *val;

		if (off + 1 >= len)
			break;
		val = json_is_string(v) ? strdup(json_string_value(v)) :
		    json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		n = snprintf(buf + off, len - off, "%s%s=%s",
		    first ? ": " : ", ", key, val != NULL ? val : "?");
		free(val);
		if (n < 0)
			break;
		off += (size_t)n;
		first = false;
	}
	return buf;
}
