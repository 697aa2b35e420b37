/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_vlclient.c: the varlink client (src/client/vlclient.c) against a
 * scripted server thread on a Unix socket in a temporary directory: call
 * and reply, error replies and their errno, descriptors with the message
 * they came with (also when two replies arrive in one read), a call that
 * times out and the late reply it leaves, a peer that hangs up, and
 * replies that are not varlink; long strings decoded as jansson would.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "vlclient.h"

/* What the server does with each call it reads, in order. */
struct step {
	const char	*reply;		/* bytes to send, NULs included */
	size_t		 len;
	int		 nfds;		/* fresh pipes' read ends to send */
	int		 delay_ms;	/* before answering */
	int		 read_delay_ms;	/* before reading the call */
	bool		 hangup;	/* close instead of answering */
};

struct server {
	char		 dir[64];
	char		 path[128];
	int		 lfd;
	const struct step *steps;
	size_t		 nsteps;
	pthread_t	 thr;
	char		 last_call[512];
	char		 log[4096];	/* every call read, NULs between */
	size_t		 log_len;
	int		 got_fds;	/* descriptors received with calls */
};

#define REPLY(s)	.reply = s, .len = sizeof(s) - 1

static void
srv_send(int fd, const char *buf, size_t len, int nfds)
{
	union {
		struct cmsghdr	align;
		char		buf[CMSG_SPACE(sizeof(int) * 4)];
	} ctl;
	struct iovec iov = { (void *)buf, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	int fds[4], i, p[2];

	if (nfds > 0) {
		struct cmsghdr *cm;

		for (i = 0; i < nfds; i++) {
			ck_assert_int_eq(pipe(p), 0);
			close(p[1]);
			fds[i] = p[0];
		}
		memset(&ctl, 0, sizeof(ctl));
		mh.msg_control = ctl.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
		memcpy(CMSG_DATA(cm), fds, sizeof(int) * (size_t)nfds);
	}
	ck_assert_int_eq(sendmsg(fd, &mh, MSG_NOSIGNAL), (ssize_t)len);
	for (i = 0; i < nfds; i++)
		close(fds[i]);
}

/* Read one NUL-terminated call. Returns: 0; -1 at end of stream. */
static int
srv_read_call(struct server *s, int fd)
{
	union {
		struct cmsghdr	align;
		char		buf[CMSG_SPACE(sizeof(int) * 4)];
	} ctl;
	size_t n = 0;

	for (;;) {
		struct iovec iov = { s->last_call + n, 1 };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
		    .msg_control = ctl.buf, .msg_controllen = sizeof(ctl) };
		struct cmsghdr *cm;
		ssize_t r = recvmsg(fd, &mh, 0);

		if (r <= 0)
			return -1;
		for (cm = CMSG_FIRSTHDR(&mh); cm != NULL;
		    cm = CMSG_NXTHDR(&mh, cm)) {
			int *fds = (int *)CMSG_DATA(cm);
			size_t k, nf = (cm->cmsg_len - CMSG_LEN(0)) /
			    sizeof(int);

			for (k = 0; k < nf; k++) {
				close(fds[k]);
				s->got_fds++;
			}
		}
		if (s->last_call[n] == '\0') {
			if (s->log_len + n + 1 <= sizeof(s->log)) {
				memcpy(s->log + s->log_len, s->last_call,
				    n + 1);
				s->log_len += n + 1;
			}
			return 0;
		}
		if (++n == sizeof(s->last_call) - 1)
			return -1;
	}
}

static void *
srv_main(void *arg)
{
	struct server *s = arg;
	size_t i;
	int fd;

	fd = accept(s->lfd, NULL, NULL);
	if (fd < 0)
		return NULL;
	for (i = 0; i < s->nsteps; i++) {
		if (s->steps[i].read_delay_ms > 0)
			usleep((useconds_t)s->steps[i].read_delay_ms * 1000);
		if (srv_read_call(s, fd) < 0)
			break;
		if (s->steps[i].delay_ms > 0)
			usleep((useconds_t)s->steps[i].delay_ms * 1000);
		if (s->steps[i].hangup) {
			close(fd);
			return NULL;
		}
		srv_send(fd, s->steps[i].reply, s->steps[i].len,
		    s->steps[i].nfds);
	}
	/* Wait for the client to hang up. */
	while (srv_read_call(s, fd) == 0)
		;
	close(fd);
	return NULL;
}

static struct server *
srv_start_fn(void *(*fn)(void *), const struct step *steps, size_t n)
{
	struct server *s = calloc(1, sizeof(*s));
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	ck_assert_ptr_nonnull(s);
	strcpy(s->dir, "/tmp/vlctest.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(s->dir));
	snprintf(s->path, sizeof(s->path), "%s/s.sock", s->dir);
	memcpy(sa.sun_path, s->path, strlen(s->path) + 1);
	s->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(s->lfd, 0);
	ck_assert_int_eq(bind(s->lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(s->lfd, 4), 0);
	s->steps = steps;
	s->nsteps = n;
	ck_assert_int_eq(pthread_create(&s->thr, NULL, fn, s), 0);
	return s;
}

static struct server *
srv_start(const struct step *steps, size_t n)
{
	return srv_start_fn(srv_main, steps, n);
}

static void
srv_stop(struct server *s)
{
	pthread_join(s->thr, NULL);
	close(s->lfd);
	unlink(s->path);
	rmdir(s->dir);
	free(s);
}

static bool
fd_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

START_TEST(call_and_reply)
{
	static const struct step st[] = {
		{ REPLY("{\"parameters\":{\"kcid\":7}}\0") },
	};
	struct server *s = srv_start(st, 1);
	struct vlc_reply rep;
	struct vlc *c;
	json_t *p = json_pack("{s:s}", "module", "app");

	ck_assert_int_eq(vlc_connect(s->path, 1000, &c), 0);
	ck_assert_str_eq(vlc_path(c), s->path);
	ck_assert_int_eq(vlc_call(c, VL_M_CHAIN, p, 0, NULL, 0, 1000,
	    &rep), 0);
	ck_assert_ptr_null(rep.error);
	ck_assert_int_eq(json_integer_value(json_object_get(rep.params,
	    "kcid")), 7);
	ck_assert(!rep.continues);
	ck_assert(strstr(s->last_call, "\"method\":\"" VL_M_CHAIN "\"") !=
	    NULL);
	ck_assert(strstr(s->last_call, "\"module\":\"app\"") != NULL);
	vlc_reply_done(&rep);
	json_decref(p);
	vlc_free(c);
	srv_stop(s);
}
END_TEST

/*
 * A call's frame is written round its parameters' text (no object built
 * for it): the bytes must be json_dumps()'s of the object the client
 * used to build, for every flag, with and without parameters; a method
 * name that needs escaping goes through jansson as before.
 */
START_TEST(frames_as_jansson)
{
	static const struct step st[] = {
		{ REPLY("{\"parameters\":{}}\0") },
		{ REPLY("{\"parameters\":{}}\0") },
		{ REPLY("{\"parameters\":{}}\0") },
		{ .reply = "", .len = 0 },	/* the oneway call's: none */
		{ REPLY("{\"parameters\":{}}\0") },
		{ REPLY("{\"parameters\":{}}\0") },
	};
	static const struct {
		const char	*method;
		unsigned	 flags;
		bool		 params;
	} calls[] = {
		{ VL_M_CHAIN, 0, true },
		{ VL_M_READ, 0, false },
		{ VL_M_SCRAPE, VLC_MORE, true },
		{ VL_M_INFO, VLC_ONEWAY, true },
		{ "com.example.Odd\"Name\\", 0, true },
		{ VL_M_HELLO, 0, false },
	};
	struct server *s = srv_start(st, 6);
	struct vlc_reply rep;
	const char *at;
	struct vlc *c;
	json_t *p = json_pack("{s:s, s:[i, s, b], s:s}", "module", "app",
	    "list", -3, "x\"\n\xc3\xa9", 1, "name", "");
	size_t i;

	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(vlc_connect(s->path, 1000, &c), 0);
	for (i = 0; i < 6; i++) {
		ck_assert_int_eq(vlc_call(c, calls[i].method, calls[i].params ?
		    p : NULL, calls[i].flags, NULL, 0, 1000, &rep), 0);
		vlc_reply_done(&rep);
	}
	for (i = 0, at = s->log; i < 6; i++, at += strlen(at) + 1) {
		json_t *m = json_pack("{s:s, s:o}", "method", calls[i].method,
		    "parameters", calls[i].params ? json_incref(p) :
		    json_object());
		char *want;

		if (calls[i].flags & VLC_MORE)
			json_object_set_new(m, "more", json_true());
		if (calls[i].flags & VLC_ONEWAY)
			json_object_set_new(m, "oneway", json_true());
		want = json_dumps(m, JSON_COMPACT);
		ck_assert(at < s->log + s->log_len);
		ck_assert_str_eq(at, want);
		free(want);
		json_decref(m);
	}
	json_decref(p);
	vlc_free(c);
	srv_stop(s);
}
END_TEST

START_TEST(error_reply)
{
	static const struct step st[] = {
		{ REPLY("{\"error\":\"" VL_ERR_NO_SUCH_KSTAT "\",\"parameters\":"
		    "{\"kstat\":\"app:0:x\"}}\0") },
	};
	struct server *s = srv_start(st, 1);
	struct vlc_reply rep;
	struct vlc *c;
	char buf[128];

	ck_assert_int_eq(vlc_connect(s->path, 1000, &c), 0);
	ck_assert_int_eq(vlc_call(c, VL_M_READ, NULL, 0, NULL, 0,
	    1000, &rep), -EREMOTEIO);
	ck_assert_str_eq(rep.error, VL_ERR_NO_SUCH_KSTAT);
	ck_assert_int_eq(vlc_error_errno(rep.error), ENOENT);
	ck_assert_str_eq(vlc_reply_describe(&rep, buf, sizeof(buf)),
	    VL_ERR_NO_SUCH_KSTAT ": kstat=app:0:x");
	ck_assert(strstr(s->last_call, "\"parameters\":{}") != NULL);
	vlc_reply_done(&rep);
	vlc_free(c);
	srv_stop(s);
	ck_assert_int_eq(vlc_error_errno(
	    VL_ERR_INVALID_PARAMETER), EINVAL);
	ck_assert_int_eq(vlc_error_errno("com.example.Unknown"), EPROTO);
}
END_TEST

START_TEST(descriptors)
{
	static const struct step st[] = {
		{ REPLY("{\"parameters\":{\"ring\":1}}\0"), .nfds = 2 },
		{ REPLY("{\"parameters\":{\"n\":1}}\0") },
	};
	struct server *s = srv_start(st, 2);
	struct vlc_reply rep;
	struct vlc *c;
	int fds[2], mine[2], fd;

	ck_assert_int_eq(vlc_connect(s->path, 1000, &c), 0);
	ck_assert_int_eq(pipe(mine), 0);
	ck_assert_int_eq(vlc_call(c, VL_M_RING_ATTACH, NULL, 0, mine, 2,
	    1000, &rep), 0);
	ck_assert_uint_eq(rep.nfds, 2);
	fd = vlc_reply_take_fd(&rep, 0);
	ck_assert_int_ge(fd, 0);
	fds[1] = rep.fds[1];
	ck_assert_int_eq(vlc_reply_take_fd(&rep, 0), -EBADMSG);
	ck_assert_int_eq(vlc_reply_take_fd(&rep, 5), -EBADMSG);
	vlc_reply_done(&rep);
	ck_assert(fd_open(fd));
	ck_assert(!fd_open(fds[1]));	/* not taken: closed with the reply */
	close(fd);
	ck_assert_int_eq(s->got_fds, 2);
	close(mine[0]);
	close(mine[1]);
	ck_assert_int_eq(vlc_call(c, VL_M_INFO, NULL, 0, NULL, 0, 1000,
	    &rep), 0);
	ck_assert_uint_eq(rep.nfds, 0);
	vlc_reply_done(&rep);
	vlc_free(c);
	srv_stop(s);
}
END_TEST

/* Replies that arrive together: each keeps its own descriptors. */
static void *
pipelined_server(void *arg)
{
	struct server *s = arg;
	static const char two[] = "{\"parameters\":{\"a\":1}}\0"
	    "{\"parameters\":{\"b\":2}}";
	int fd = accept(s->lfd, NULL, NULL);

	(void)srv_read_call(s, fd);
	(void)srv_read_call(s, fd);
	srv_send(fd, two, sizeof(two) - 1 - strlen("{\"parameters\":{\"b\":2}}"),
	    0);
	srv_send(fd, two + sizeof(two) - 1 - strlen("{\"parameters\":{\"b\":2}}"),
	    strlen("{\"parameters\":{\"b\":2}}") + 1, 1);
	while (srv_read_call(s, fd) == 0)
		;
	close(fd);
	return NULL;
}

START_TEST(pipelined)
{
	struct server *s = srv_start_fn(pipelined_server, NULL, 0);
	struct vlc_reply rep;
	struct vlc *c;

	ck_assert_int_eq(vlc_connect(s->path, 1000, &c), 0);
	ck_assert_int_eq(vlc_send(c, VL_M_HELLO, NULL, 0, NULL, 0, 1000),
	    0);
	ck_assert_int_eq(vlc_send(c, VL_M_READ, NULL, VLC_MORE, NULL, 0,
	    1000), 0);
	usleep(100000);		/* both replies in the socket */
	ck_assert_int_eq(vlc_recv(c, 1000, &rep), 0);
	ck_assert_ptr_nonnull(json_object_get(rep.params, "a"));
	ck_assert_uint_eq(rep.nfds, 0);
	vlc_reply_done(&rep);
	ck_assert_int_eq(vlc_recv(c, 1000, &rep), 0);
	ck_assert_ptr_nonnull(json_object_get(rep.params, "b"));
	ck_assert_uint_eq(rep.nfds, 1);
	vlc_reply_done(&rep);
	vlc_free(c);
	srv_stop(s);
}
END_TEST

START_TEST(timeout_then_late_reply)
{
	static const struct step st[] = {
		{ REPLY("{\"parameters\":{\"late\":true}}\0"), .nfds = 1,
		    .delay_ms = 300 },
		{ REPLY("{\"parameters\":{\"second\":true}}\0") },
	};
	struct server *s = srv_start(st, 2);
	struct vlc_reply rep;
	struct vlc *c;

	ck_assert_int_eq(vlc_connect(s->path, 1000, &c), 0);
	ck_assert_int_eq(vlc_call(c, VL_M_INFO, NULL, 0, NULL, 0, 50,
	    &rep), -ETIMEDOUT);
	vlc_reply_done(&rep);
	/* The late reply is skipped: this call gets its own. */
	ck_assert_int_eq(vlc_call(c, VL_M_CHAIN, NULL, 0, NULL, 0, 2000,
	    &rep), 0);
	ck_assert_ptr_nonnull(json_object_get(rep.params, "second"));
	ck_assert_ptr_null(json_object_get(rep.params, "late"));
	ck_assert_uint_eq(rep.nfds, 0);
	vlc_reply_done(&rep);
	vlc_free(c);
	srv_stop(s);
}
END_TEST

/*
 * A call sleeps once while it waits for its reply. The server reads each
 * call 20 ms after it was sent, so the client is asleep when the read
 * frees the call's buffer; a client that waited in a blocking recvmsg(2)
 * would be woken by that (AF_UNIX stream sockets wake a sleeping reader
 * on write space too) and sleep again: two voluntary context switches a
 * call, where poll(2) takes one.
 */
START_TEST(one_sleep_a_call)
{
#define LATE_READ	{ REPLY("{\"parameters\":{}}\0"), \
			    .read_delay_ms = 20, .delay_ms = 20 }
	static const struct step st[] = {
		LATE_READ, LATE_READ, LATE_READ, LATE_READ, LATE_READ,
		LATE_READ,
	};
#undef LATE_READ
	struct server *s = srv_start(st, 6);
	struct rusage before, after;
	struct vlc_reply rep;
	struct vlc *c;
	int i;

	ck_assert_int_eq(vlc_connect(s->path, 1000, &c), 0);
	ck_assert_int_eq(getrusage(RUSAGE_THREAD, &before), 0);
	for (i = 0; i < 6; i++) {
		ck_assert_int_eq(vlc_call(c, VL_M_HELLO, NULL, 0, NULL, 0,
		    2000, &rep), 0);
		vlc_reply_done(&rep);
	}
	ck_assert_int_eq(getrusage(RUSAGE_THREAD, &after), 0);
	/* 6 with poll(2), 12 with blocking reads; some slack for a sleep
	 * of something else (a page fault on a busy machine). */
	ck_assert_int_le(after.ru_nvcsw - before.ru_nvcsw, 9);
	ck_assert_int_ge(after.ru_nvcsw - before.ru_nvcsw, 1);
	vlc_free(c);
	srv_stop(s);
}
END_TEST

START_TEST(hangup)
{
	static const struct step st[] = {
		{ .hangup = true },
	};
	struct server *s = srv_start(st, 1);
	struct vlc_reply rep;
	struct vlc *c;

	ck_assert_int_eq(vlc_connect(s->path, 1000, &c), 0);
	ck_assert_int_eq(vlc_call(c, VL_M_HELLO, NULL, 0, NULL, 0, 1000,
	    &rep), -EPIPE);
	/* Unusable from now on. */
	ck_assert_int_eq(vlc_send(c, VL_M_HELLO, NULL, 0, NULL, 0, 100),
	    -EPIPE);
	vlc_free(c);
	srv_stop(s);
}
END_TEST

START_TEST(not_varlink)
{
	static const struct step st[] = {
		{ REPLY("[1,2,3]\0") },
	};
	static const struct step st2[] = {
		{ REPLY("{\"parameters\":[1]}\0") },
	};
	struct server *s = srv_start(st, 1);
	struct vlc_reply rep;
	struct vlc *c;

	ck_assert_int_eq(vlc_connect(s->path, 1000, &c), 0);
	ck_assert_int_eq(vlc_call(c, VL_M_HELLO, NULL, 0, NULL, 0, 1000,
	    &rep), -EPROTO);
	vlc_free(c);
	srv_stop(s);
	s = srv_start(st2, 1);
	ck_assert_int_eq(vlc_connect(s->path, 1000, &c), 0);
	ck_assert_int_eq(vlc_call(c, VL_M_HELLO, NULL, 0, NULL, 0, 1000,
	    &rep), -EPROTO);
	vlc_free(c);
	srv_stop(s);
}
END_TEST

/* A message with a long string s (JSON text, escapes as they are) at a
 * place, for vlc_loadb(). */
static char *
long_msg(const char *before, const char *s, size_t reps, const char *after,
    size_t *ret_len)
{
	size_t lb = strlen(before), ls = strlen(s), la = strlen(after), i;
	char *m = malloc(lb + ls * reps + la + 1);

	ck_assert_ptr_nonnull(m);
	memcpy(m, before, lb);
	for (i = 0; i < reps; i++)
		memcpy(m + lb + i * ls, s, ls);
	memcpy(m + lb + reps * ls, after, la + 1);
	*ret_len = lb + ls * reps + la;
	return m;
}

/* vlc_loadb() reads a message as json_loadb() does, whatever its long
 * string holds; both refuse what is not JSON. */
static void
loads_as_jansson(const char *before, const char *s, size_t reps,
    const char *after)
{
	json_error_t jerr;
	size_t len;
	char *m = long_msg(before, s, reps, after, &len);
	json_t *a = vlc_loadb(m, len);
	json_t *b = json_loadb(m, len, JSON_REJECT_DUPLICATES, &jerr);

	if (b == NULL)
		ck_assert_ptr_null(a);
	else
		ck_assert_msg(a != NULL && json_equal(a, b),
		    "vlc_loadb differs from json_loadb for %.60s...", s);
	json_decref(a);
	json_decref(b);
	free(m);
}

START_TEST(long_strings)
{
	/* A page's text: lines, quotes, a tab, escapes of every kind. */
	loads_as_jansson("{\"parameters\":{\"format\":\"prometheus\","
	    "\"text\":\"", "m{a=\\\"x\\\"} 1\\n\\t\\/\\b\\f\\r"
	    "\\\\", 8000, "\",\"cursor\":\"prom:x\"},\"continues\":true}");
	/* UTF-8 as it is, \u escapes of 1 to 3 bytes and a pair (4). */
	loads_as_jansson("{\"parameters\":{\"text\":\"",
	    "z\xc3\xbcrich \\u00e9\\u20ac\\ud83d\\ude00 \\u0041",
	    4000, "\"}}");
	/* In an array, after other strings. */
	loads_as_jansson("{\"parameters\":{\"a\":[\"x\",\"",
	    "0123456789abcdef", 5000, "\",\"y\"]}}");
	/* Long keys are jansson's. */
	loads_as_jansson("{\"parameters\":{\"", "k", 70000,
	    "\":1}}");
	/* What jansson refuses, refused: a lone low surrogate, a high one
	 * alone, \u0000, a bad escape, a raw newline, bad UTF-8,
	 * duplicate keys. */
	loads_as_jansson("{\"t\":\"", "a\\udc00", 20000, "\"}");
	loads_as_jansson("{\"t\":\"", "a\\ud800b", 20000, "\"}");
	loads_as_jansson("{\"t\":\"", "a\\u0000", 20000, "\"}");
	loads_as_jansson("{\"t\":\"", "a\\q", 20000, "\"}");
	loads_as_jansson("{\"t\":\"", "a\n", 40000, "\"}");
	loads_as_jansson("{\"t\":\"", "a\xff", 40000, "\"}");
	loads_as_jansson("{\"t\":1,\"t\":\"", "abcd", 20000, "\"}");
	/* Unterminated, and an escape at the very end. */
	loads_as_jansson("{\"t\":\"", "abcd", 20000, "");
	loads_as_jansson("{\"t\":\"", "abcd", 20000, "\\");
	/* The rest holds the marker vlc_loadb puts in its place. */
	loads_as_jansson("{\"m\":\"vlc\\u0001long\\u0002string\","
	    "\"t\":\"", "abcd", 20000, "\"}");
	/* Short messages take jansson's path. */
	loads_as_jansson("{\"t\":\"", "ab\\u00e9", 10, "\"}");
}
END_TEST

START_TEST(connect_errors)
{
	struct vlc *c;

	ck_assert_int_eq(vlc_connect(NULL, 100, &c), -EINVAL);
	ck_assert_int_eq(vlc_connect("", 100, &c), -EINVAL);
	ck_assert_int_eq(vlc_connect("/nonexistent/statsd.sock", 100, &c),
	    -ENOENT);
	setenv("STATSD_SOCKET", "/x/y.sock", 1);
	ck_assert_str_eq(vlc_default_socket(), "/x/y.sock");
	setenv("STATSD_SOCKET", "", 1);
	ck_assert_str_eq(vlc_default_socket(), "/run/statsd/statsd.sock");
	unsetenv("STATSD_SOCKET");
}
END_TEST

static Suite *
vlclient_suite(void)
{
	Suite *s = suite_create("vlclient");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, call_and_reply);
	tcase_add_test(tc, error_reply);
	tcase_add_test(tc, descriptors);
	tcase_add_test(tc, pipelined);
	tcase_add_test(tc, timeout_then_late_reply);
	tcase_add_test(tc, one_sleep_a_call);
	tcase_add_test(tc, frames_as_jansson);
	tcase_add_test(tc, hangup);
	tcase_add_test(tc, not_varlink);
	tcase_add_test(tc, connect_errors);
	tcase_add_test(tc, long_strings);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(vlclient_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
