/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * control.c: the control socket — accept, SO_PEERCRED, connection limits,
 * NUL framing with a size limit, SCM_RIGHTS in and out, the idle time-out
 * and output backpressure. It owns the sockets and nothing else; each
 * complete message goes to the events' message callback (varlink.c's).
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <event2/event.h>

#include "control.h"
#include "daemon.h"
#include "log.h"
#include "quota.h"
#include "turns.h"
#include "varlink_names.h"
#include "zones.h"

#define CONN_READ_CHUNK		65536u

struct outmsg {
	struct outmsg	*next;
	size_t		 len;
	size_t		 off;
	int		 fds[CONN_MAX_FDS];
	size_t		 nfds;
	char		*data;
};

struct cpriv {
	struct conn	 pub;		/* first: handlers see only this */
	struct control	*ctl;
	struct cpriv	*prev, *next;
	int		 fd;
	struct event	*ev_read;
	struct event	*ev_write;
	struct event	*ev_idle;
	struct event	*ev_kick;	/* deferred resume after hold/throttle */

	/* Input: [in_off, in_len) is unanswered; no NUL lies in
	 * [in_off, in_scan), so each byte is looked at once. */
	char		*in;
	size_t		 in_len, in_cap, in_off, in_scan;
	int		 in_fds[CONN_MAX_FDS];
	size_t		 in_nfds;

	struct outmsg	*out_head, *out_tail;
	size_t		 out_bytes;
	/* Replies in the making (control_reserve()). */
	uint64_t	 reserved;
	/* in_cap + out_bytes + reserved as charged to the peer's
	 * QUOTA_BUFFERED. */
	uint64_t	 charged;

	bool		 hold;		/* the protocol holds the input */
	bool		 throttled;	/* output above the high mark */
	bool		 closing;	/* close once output is written */
	bool		 dead;		/* closed while dispatching */
	bool		 doomed;	/* to be closed from the loop */
	unsigned	 busy;		/* dispatch depth */
	bool		 in_call;	/* conn_process() flushes after */
	/* Its uid's turns (turns.h): one call per turn. */
	struct turn_peer *turn;
	struct turn_task task;
};

struct listener {
	int		 fd;
	struct event	*ev;
};

struct control {
	struct statsd	*d;
	const struct control_events *ev;
	struct listener	*ls;
	size_t		 nls;
	bool		 bound;		/* statsd bound the socket itself */
	struct cpriv	*conns;
	unsigned	 nconns;
	uint64_t	 next_id;
	struct event	*ev_resume;	/* re-enables accept after EMFILE */
};

static void conn_read_cb(evutil_socket_t fd, short what, void *arg);
static void conn_write_cb(evutil_socket_t fd, short what, void *arg);
static void conn_idle_cb(evutil_socket_t fd, short what, void *arg);
static void conn_process(struct cpriv *cp);
static void conn_turn(struct turn_task *t);
static void conn_kick_cb(evutil_socket_t fd, short what, void *arg);

static struct cpriv *
cpriv_of(struct conn *c)
{
	return (struct cpriv *)c;
}

/*
 * Raise the connection's QUOTA_BUFFERED charge to want bytes (never
 * lowers it: conn_uncharge() does).
 * Returns: 0; -EDQUOT with *why filled (the charge is unchanged).
 */
static int
conn_charge(struct cpriv *cp, uint64_t want, struct quota_refusal *why)
{
	struct quota *q = cp->ctl->d->quota;
	const struct peer *p = &cp->pub.peer;

	if (want <= cp->charged)
		return 0;
	if (quota_charge(q, p->uid, p->privileged, QUOTA_BUFFERED,
	    want - cp->charged, why) < 0)
		return -EDQUOT;
	cp->charged = want;
	return 0;
}

/* Give back what the connection no longer holds. */
static void
conn_uncharge(struct cpriv *cp)
{
	uint64_t held = cp->in_cap + cp->out_bytes + cp->reserved;

	if (held < cp->charged) {
		quota_release(cp->ctl->d->quota, cp->pub.peer.uid,
		    QUOTA_BUFFERED, cp->charged - held);
		cp->charged = held;
	}
}

static void
conn_idle_arm(struct cpriv *cp)
{
	unsigned ms = cp->ctl->d->cfg.idle_timeout_ms;
	struct timeval tv = { ms / 1000, (long)(ms % 1000) * 1000 };

	event_add(cp->ev_idle, &tv);
}

static void
conn_free(struct cpriv *cp)
{
	struct control *ctl = cp->ctl;
	struct outmsg *m;
	size_t i;

	ctl->ev->closed(&cp->pub);
	turns_cancel(ctl->d->turns, &cp->task);
	turns_peer_put(ctl->d->turns, cp->turn);
	rights_peer_done(cp->pub.d, &cp->pub.peer);
	if (cp->prev != NULL)
		cp->prev->next = cp->next;
	else
		ctl->conns = cp->next;
	if (cp->next != NULL)
		cp->next->prev = cp->prev;
	ctl->nconns--;
	event_free(cp->ev_read);
	event_free(cp->ev_write);
	event_free(cp->ev_idle);
	event_free(cp->ev_kick);
	while ((m = cp->out_head) != NULL) {
		cp->out_head = m->next;
		for (i = 0; i < m->nfds; i++)
			close(m->fds[i]);
		free(m->data);
		free(m);
	}
	for (i = 0; i < cp->in_nfds; i++)
		close(cp->in_fds[i]);
	free(cp->in);
	close(cp->fd);
	quota_release(ctl->d->quota, cp->pub.peer.uid, QUOTA_BUFFERED,
	    cp->charged);
	quota_release(ctl->d->quota, cp->pub.peer.uid, QUOTA_CONNECTIONS, 1);
	log_debug("connection %llu closed",
	    (unsigned long long)cp->pub.id);
	free(cp);
}

/* Close now, or as soon as the dispatch on the stack returns. */
static void
conn_close_now(struct cpriv *cp)
{
	if (cp->busy > 0) {
		cp->dead = true;
		event_del(cp->ev_read);
		event_del(cp->ev_write);
		return;
	}
	conn_free(cp);
}

static void conn_kick(struct cpriv *cp);

/* The public close is always deferred to the loop, so that no caller —
 * a stream's timer, a drain callback — finds its connection freed under
 * it. */
void
control_close(struct conn *c)
{
	struct cpriv *cp = cpriv_of(c);

	if (cp->dead || cp->doomed)
		return;
	cp->doomed = true;
	event_del(cp->ev_read);
	event_del(cp->ev_write);
	conn_kick(cp);
}

/* Resume reading and processing later, from the loop: never from inside
 * a send or a dispatch, which would re-enter them. */
static void
conn_kick(struct cpriv *cp)
{
	if (!cp->dead && cp->ev_kick != NULL)
		event_active(cp->ev_kick, EV_TIMEOUT, 0);
}

/*
 * Are the connections of cp's user, together, past half of what they may
 * buffer (max_buffered_per_uid)? Then each of them stops taking calls
 * until its replies are read, as one connection does past a quarter of
 * max_output: a user that reads slowly on many connections at once is
 * slowed down, not disconnected for passing the limit it would
 * otherwise reach between them (eight connections at a quarter of
 * max_output each would reach it).
 */
static bool
conn_uid_pressed(const struct cpriv *cp)
{
	const struct statsd *d = cp->ctl->d;

	return !cp->pub.peer.privileged && quota_used(d->quota,
	    cp->pub.peer.uid, QUOTA_BUFFERED) > d->cfg.max_buffered_per_uid / 2;
}

/* Should the connection stop taking calls, its output as it is now? */
static bool
conn_output_high(const struct cpriv *cp)
{
	return cp->out_bytes > cp->ctl->d->cfg.max_output / 4 ||
	    (cp->out_bytes > 0 && conn_uid_pressed(cp));
}

/* Update the throttle state after the output queue changed. A throttled
 * connection takes calls again once its output is nearly all read, or
 * all of it (whatever its user's other connections hold). */
static void
conn_throttle_update(struct cpriv *cp)
{
	size_t max = cp->ctl->d->cfg.max_output;

	if (!cp->throttled && conn_output_high(cp)) {
		cp->throttled = true;
	} else if (cp->throttled && (cp->out_bytes == 0 ||
	    (cp->out_bytes <= max / 16 && !conn_uid_pressed(cp)))) {
		cp->throttled = false;
		conn_kick(cp);
	}
}

/* Write what the socket takes. Returns: 0; -1 if the connection died. */
static int
conn_flush(struct cpriv *cp)
{
	struct outmsg *m;

	while ((m = cp->out_head) != NULL) {
		union {
			char buf[CMSG_SPACE(sizeof(int) * CONN_MAX_FDS)];
			struct cmsghdr align;
		} cm;
		struct iovec iov = { m->data + m->off, m->len - m->off };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n;
		size_t i;

		if (m->off == 0 && m->nfds > 0) {
			struct cmsghdr *ch;

			memset(&cm, 0, sizeof(cm));
			mh.msg_control = cm.buf;
			mh.msg_controllen = CMSG_SPACE(sizeof(int) * m->nfds);
			ch = CMSG_FIRSTHDR(&mh);
			ch->cmsg_level = SOL_SOCKET;
			ch->cmsg_type = SCM_RIGHTS;
			ch->cmsg_len = CMSG_LEN(sizeof(int) * m->nfds);
			memcpy(CMSG_DATA(ch), m->fds, sizeof(int) * m->nfds);
		}
		n = sendmsg(cp->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				event_add(cp->ev_write, NULL);
				return 0;
			}
			if (errno == EINTR)
				continue;
			log_debug("connection %llu: send: %s",
			    (unsigned long long)cp->pub.id, strerror(errno));
			conn_close_now(cp);
			return -1;
		}
		if (m->off == 0) {
			/* The descriptors went with the first byte. */
			for (i = 0; i < m->nfds; i++)
				close(m->fds[i]);
			m->nfds = 0;
		}
		m->off += (size_t)n;
		cp->out_bytes -= (size_t)n;
		conn_uncharge(cp);
		conn_idle_arm(cp);
		if (m->off < m->len)
			continue;
		cp->out_head = m->next;
		if (cp->out_head == NULL)
			cp->out_tail = NULL;
		free(m->data);
		free(m);
	}
	event_del(cp->ev_write);
	if (cp->closing) {
		conn_close_now(cp);
		return -1;
	}
	conn_throttle_update(cp);
	return 0;
}

/* Put a message at the end of the output queue (no checks, no charge).
 * Returns: 0; -ENOMEM (nothing taken over). */
static int
conn_queue(struct cpriv *cp, char *data, size_t len, int *fds, size_t nfds)
{
	struct outmsg *m;

	m = calloc(1, sizeof(*m));
	if (m == NULL)
		return -ENOMEM;
	m->data = data;
	m->len = len;
	m->nfds = nfds;
	if (nfds > 0)
		memcpy(m->fds, fds, nfds * sizeof(int));
	if (cp->out_tail != NULL)
		cp->out_tail->next = m;
	else
		cp->out_head = m;
	cp->out_tail = m;
	cp->out_bytes += len;
	/* Written from the loop (or at the end of the dispatch), never
	 * from inside the caller. A call's own reply is written once its
	 * handler returned (control_flush_call(), else conn_process()),
	 * and waits for the loop only if the socket is full: no poll for
	 * writing added and removed again (two epoll_ctl calls) for every
	 * reply. */
	if (cp->out_head == m && !cp->in_call)
		event_add(cp->ev_write, NULL);
	return 0;
}

int
control_send(struct conn *c, char *data, size_t len, int *fds, size_t nfds)
{
	struct cpriv *cp = cpriv_of(c);
	size_t i, max = cp->ctl->d->cfg.max_output;
	struct quota_refusal why;

	if (cp->dead || cp->doomed || cp->closing || nfds > CONN_MAX_FDS)
		goto drop;
	if (cp->out_bytes + len > max) {
		why.limit = "max_output";
		why.value = max;
		quota_refused_log(cp->ctl->d->quota, c->peer.uid,
		    "reply bytes", &why);
		goto disconnect;
	}
	/* The connection's output counts in its user's buffered bytes,
	 * so that many connections of one user cannot pile up more than
	 * max_buffered_per_uid between them (quota_charge logs). */
	if (conn_charge(cp, cp->in_cap + cp->out_bytes + cp->reserved + len,
	    &why) < 0)
		goto disconnect;
	if (conn_queue(cp, data, len, fds, nfds) < 0)
		goto disconnect;
	if (conn_output_high(cp))
		cp->throttled = true;
	return 0;
disconnect:
	/* Closed at once, whatever it queued freed: a client that does not
	 * read its replies is not waited for. */
	free(data);
	for (i = 0; i < nfds; i++)
		close(fds[i]);
	control_close(c);
	return -ENOBUFS;
drop:
	free(data);
	for (i = 0; i < nfds; i++)
		close(fds[i]);
	return -EPIPE;
}

int
control_reserve(struct conn *c, int64_t delta, struct quota_refusal *why)
{
	struct cpriv *cp = cpriv_of(c);

	if (delta < 0) {
		cp->reserved -= (uint64_t)-delta < cp->reserved ?
		    (uint64_t)-delta : cp->reserved;
		conn_uncharge(cp);
		return 0;
	}
	if (conn_charge(cp, cp->in_cap + cp->out_bytes + cp->reserved +
	    (uint64_t)delta, why) < 0)
		return -EDQUOT;
	cp->reserved += (uint64_t)delta;
	return 0;
}

bool
control_output_high(const struct conn *c)
{
	const struct cpriv *cp = (const struct cpriv *)c;

	return cp->throttled || cp->dead || cp->doomed || cp->closing;
}

void
control_turn_queue(struct conn *c, struct turn_task *t)
{
	struct cpriv *cp = cpriv_of(c);

	t->peer = cp->turn;
	turns_queue(cp->ctl->d->turns, t);
}

void
control_turn_cancel(struct conn *c, struct turn_task *t)
{
	turns_cancel(cpriv_of(c)->ctl->d->turns, t);
}

size_t
control_take_fds(struct conn *c, int *fds, size_t max)
{
	struct cpriv *cp = cpriv_of(c);
	size_t n = cp->in_nfds < max ? cp->in_nfds : max, i;

	memcpy(fds, cp->in_fds, n * sizeof(int));
	for (i = n; i < cp->in_nfds; i++)
		cp->in_fds[i - n] = cp->in_fds[i];
	cp->in_nfds -= n;
	return n;
}

void
control_hold_input(struct conn *c, bool hold)
{
	struct cpriv *cp = cpriv_of(c);

	cp->hold = hold;
	if (!hold)
		conn_kick(cp);
}

void
control_close_after_flush(struct conn *c)
{
	struct cpriv *cp = cpriv_of(c);

	cp->closing = true;
	event_del(cp->ev_read);
	if (cp->out_head == NULL)
		control_close(c);
	else
		event_add(cp->ev_write, NULL);
}

/* Drop descriptors no call claimed: they came with the previous message. */
static void
conn_drop_fds(struct cpriv *cp)
{
	size_t i;

	for (i = 0; i < cp->in_nfds; i++)
		close(cp->in_fds[i]);
	cp->in_nfds = 0;
}

/*
 * The connection's calls would pass its user's buffered bytes: drop what
 * it sent, tell it why (the one message not charged: it is small and the
 * last), and close it once that is written.
 */
static void
conn_refuse_input(struct cpriv *cp, const struct quota_refusal *why)
{
	char *msg;
	int n;

	free(cp->in);
	cp->in = NULL;
	cp->in_len = cp->in_cap = cp->in_off = cp->in_scan = 0;
	conn_uncharge(cp);
	n = asprintf(&msg, "{\"error\":\"" VL_ERR_LIMIT_REACHED "\","
	    "\"parameters\":{\"limit\":\"%s\",\"value\":%llu}}",
	    why->limit, (unsigned long long)why->value);
	if (n < 0 || conn_queue(cp, msg, (size_t)n + 1, NULL, 0) < 0) {
		if (n >= 0)
			free(msg);
		control_close(&cp->pub);
		return;
	}
	control_close_after_flush(&cp->pub);
}

/* The NUL that ends the next complete message, or NULL. */
static char *
conn_next_nul(struct cpriv *cp)
{
	char *nul;

	if (cp->in_scan < cp->in_off)
		cp->in_scan = cp->in_off;
	if (cp->in_scan >= cp->in_len)
		return NULL;
	nul = memchr(cp->in + cp->in_scan, '\0', cp->in_len - cp->in_scan);
	cp->in_scan = nul != NULL ? (size_t)(nul - cp->in) : cp->in_len;
	return nul;
}

/* May the connection's calls be handed on now? */
static bool
conn_takes_calls(const struct cpriv *cp)
{
	return !cp->dead && !cp->doomed && !cp->closing && !cp->hold &&
	    !cp->throttled;
}

/*
 * After a call or a read: a complete call waits for the connection's next
 * turn (and nothing more is read meanwhile: the client's sends wait in
 * the socket), or the input is over the size limit, or more is read.
 */
static void
conn_next(struct cpriv *cp)
{
	size_t max = cp->ctl->d->cfg.max_message_size;

	if (!conn_takes_calls(cp))
		return;
	if (conn_next_nul(cp) != NULL) {
		event_del(cp->ev_read);
		turns_queue(cp->ctl->d->turns, &cp->task);
	} else if (cp->in_len - cp->in_off >= max) {
		cp->ctl->ev->too_large(&cp->pub, max);
		control_close_after_flush(&cp->pub);
	} else {
		event_add(cp->ev_read, NULL);
	}
}

/*
 * The connection's turn: hand its next complete message on, one. Each
 * message is passed over once (the offsets), however many a read
 * brought: 65,536 empty messages in one read cost 65,536 steps, not
 * 65,536 moves of the rest of the buffer.
 */
static void
conn_process(struct cpriv *cp)
{
	char *nul;

	cp->busy++;
	if (conn_takes_calls(cp) && (nul = conn_next_nul(cp)) != NULL) {
		size_t mlen = (size_t)(nul - (cp->in + cp->in_off));

		cp->in_call = true;
		cp->ctl->ev->message(&cp->pub, cp->in + cp->in_off, mlen);
		cp->in_call = false;
		if (!cp->dead && !cp->doomed) {
			conn_drop_fds(cp);
			cp->in_off += mlen + 1;
			if (cp->in_off == cp->in_len)
				cp->in_off = cp->in_len = cp->in_scan = 0;
		}
	}
	/* A large call's buffer goes once it is answered: an idle
	 * connection holds at most one read's worth. */
	if (cp->in_len == 0 && cp->in_cap > CONN_READ_CHUNK) {
		free(cp->in);
		cp->in = NULL;
		cp->in_cap = 0;
		conn_uncharge(cp);
	}
	cp->busy--;
	if (cp->dead) {
		conn_free(cp);
		return;
	}
	if (cp->doomed) {
		conn_close_now(cp);
		return;
	}
	if (cp->out_head != NULL && conn_flush(cp) < 0)
		return;
	conn_next(cp);
}

void
control_flush_call(struct conn *c)
{
	struct cpriv *cp = cpriv_of(c);

	/* A failed write leaves the connection dead, not freed (busy): the
	 * call's end frees it (conn_process()). */
	if (cp->in_call && !cp->dead && !cp->doomed && cp->out_head != NULL)
		(void)conn_flush(cp);
}

static void
conn_turn(struct turn_task *t)
{
	conn_process((struct cpriv *)(void *)((char *)t -
	    offsetof(struct cpriv, task)));
}

static void
conn_read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct cpriv *cp = arg;
	size_t max = cp->ctl->d->cfg.max_message_size;
	union {
		char buf[CMSG_SPACE(sizeof(int) * 16)];
		struct cmsghdr align;
	} cm;
	struct msghdr mh;
	struct iovec iov;
	struct cmsghdr *ch;
	size_t want;
	ssize_t n;

	(void)what;
	if (cp->hold || cp->throttled) {
		/* Leave the bytes in the socket: that is the backpressure on
		 * the client. Polled again when the hold ends. */
		event_del(cp->ev_read);
		return;
	}
	/* Nothing complete is left when more is read (conn_next()): what
	 * is left of a message moves to the front, once. */
	if (cp->in_off > 0) {
		memmove(cp->in, cp->in + cp->in_off, cp->in_len - cp->in_off);
		cp->in_len -= cp->in_off;
		cp->in_scan -= cp->in_scan >= cp->in_off ? cp->in_off :
		    cp->in_scan;
		cp->in_off = 0;
	}
	if (cp->in_len >= max) {
		event_del(cp->ev_read);
		return;
	}
	want = max - cp->in_len;
	if (want > CONN_READ_CHUNK)
		want = CONN_READ_CHUNK;
	if (cp->in_cap - cp->in_len < want) {
		size_t ncap = cp->in_len + want;
		struct quota_refusal why;
		char *p;

		if (conn_charge(cp, ncap + cp->out_bytes + cp->reserved,
		    &why) < 0) {
			conn_refuse_input(cp, &why);
			return;
		}
		p = realloc(cp->in, ncap);
		if (p == NULL) {
			conn_close_now(cp);
			return;
		}
		cp->in = p;
		cp->in_cap = ncap;
	}
	memset(&mh, 0, sizeof(mh));
	iov.iov_base = cp->in + cp->in_len;
	iov.iov_len = want;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cm.buf;
	mh.msg_controllen = sizeof(cm.buf);
	n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	if (n < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return;
		conn_close_now(cp);
		return;
	}
	for (ch = CMSG_FIRSTHDR(&mh); ch != NULL; ch = CMSG_NXTHDR(&mh, ch)) {
		size_t i, nfd;
		int *fds;

		if (ch->cmsg_level != SOL_SOCKET ||
		    ch->cmsg_type != SCM_RIGHTS)
			continue;
		nfd = (ch->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		fds = (int *)(void *)CMSG_DATA(ch);
		for (i = 0; i < nfd; i++) {
			if (cp->in_nfds < CONN_MAX_FDS)
				cp->in_fds[cp->in_nfds++] = fds[i];
			else
				close(fds[i]);
		}
	}
	if (n == 0) {
		/* The client will send no more (it left, or shut down its
		 * side): what it sent is answered, then the connection
		 * closes. */
		if (cp->out_head == NULL)
			conn_close_now(cp);
		else
			control_close_after_flush(&cp->pub);
		return;
	}
	cp->in_len += (size_t)n;
	conn_idle_arm(cp);
	/* A complete call is answered in this callback when no one waits
	 * for a turn (turns_run_now()): the poll stays as it is, and no
	 * round is armed. conn_process() sees to what comes after it. */
	if (conn_takes_calls(cp) && conn_next_nul(cp) != NULL &&
	    turns_run_now(cp->ctl->d->turns, &cp->task))
		return;
	conn_next(cp);
}

static void
conn_kick_cb(evutil_socket_t fd, short what, void *arg)
{
	struct cpriv *cp = arg;

	(void)fd;
	(void)what;
	if (cp->doomed) {
		conn_close_now(cp);
		return;
	}
	if (cp->dead || cp->closing)
		return;
	cp->busy++;
	if (!cp->throttled)
		cp->ctl->ev->drained(&cp->pub);
	cp->busy--;
	if (cp->dead) {
		conn_free(cp);
		return;
	}
	conn_next(cp);
}

static void
conn_write_cb(evutil_socket_t fd, short what, void *arg)
{
	struct cpriv *cp = arg;

	(void)fd;
	(void)what;
	(void)conn_flush(cp);
}

static void
conn_idle_cb(evutil_socket_t fd, short what, void *arg)
{
	struct cpriv *cp = arg;

	(void)fd;
	(void)what;
	/* Not idle: it holds rings or a stream, or statsd has not answered
	 * its call yet (a page the reader thread renders, a sync the
	 * persistence thread makes: the input is held meanwhile). A client
	 * that takes none of what is sent is idle all the same. */
	if (cp->out_head == NULL && (cp->pub.nrings > 0 ||
	    cp->pub.streaming || cp->hold)) {
		conn_idle_arm(cp);
		return;
	}
	log_debug("connection %llu (uid %u): idle time-out",
	    (unsigned long long)cp->pub.id, (unsigned)cp->pub.peer.uid);
	conn_close_now(cp);
}

/* Refuse a connection over a limit with one best-effort error message. */
static void
control_refuse(int fd, uint64_t limit)
{
	char msg[160];
	int n;

	n = snprintf(msg, sizeof(msg), "{\"error\":\""
	    VL_ERR_TOO_MANY_CONNECTIONS "\",\"parameters\":{\"limit\":%llu}}",
	    (unsigned long long)limit);
	(void)send(fd, msg, (size_t)n + 1, MSG_NOSIGNAL | MSG_DONTWAIT);
	close(fd);
}

static void
control_accept_one(struct control *ctl, int fd)
{
	struct statsd *d = ctl->d;
	struct quota_refusal why;
	struct cpriv *cp;
	struct peer peer = { 0 };
	int r;

	r = rights_peer_init(d, fd, &peer);
	if (r < 0) {
		log_warning("a peer (pid %d, uid %u) refused: %s",
		    (int)peer.pid, (unsigned)peer.uid, zones_strerror(r));
		close(fd);
		return;
	}
	/* max_connections_per_uid, and max_connections less the reserve
	 * for privileged peers (quota_charge logs a refusal). */
	r = quota_charge(d->quota, peer.uid, peer.privileged,
	    QUOTA_CONNECTIONS, 1, &why);
	if (r < 0) {
		rights_peer_done(d, &peer);
		control_refuse(fd, r == -EDQUOT ? why.value : 0);
		return;
	}
	cp = calloc(1, sizeof(*cp));
	if (cp == NULL) {
		quota_release(d->quota, peer.uid, QUOTA_CONNECTIONS, 1);
		rights_peer_done(d, &peer);
		close(fd);
		return;
	}
	cp->ctl = ctl;
	cp->fd = fd;
	cp->pub.d = d;
	cp->pub.peer = peer;
	cp->pub.id = ++ctl->next_id;
	/* The uid's turns, shared by all of its connections. */
	cp->turn = turns_peer_get(d->turns, peer.uid, peer.privileged);
	cp->task.run = conn_turn;
	cp->task.peer = cp->turn;
	cp->ev_read = event_new(d->base, fd, EV_READ | EV_PERSIST,
	    conn_read_cb, cp);
	cp->ev_write = event_new(d->base, fd, EV_WRITE | EV_PERSIST,
	    conn_write_cb, cp);
	cp->ev_idle = evtimer_new(d->base, conn_idle_cb, cp);
	cp->ev_kick = event_new(d->base, -1, 0, conn_kick_cb, cp);
	if (cp->turn == NULL || cp->ev_read == NULL || cp->ev_write == NULL ||
	    cp->ev_idle == NULL || cp->ev_kick == NULL) {
		turns_peer_put(d->turns, cp->turn);
		if (cp->ev_read != NULL)
			event_free(cp->ev_read);
		if (cp->ev_write != NULL)
			event_free(cp->ev_write);
		if (cp->ev_idle != NULL)
			event_free(cp->ev_idle);
		if (cp->ev_kick != NULL)
			event_free(cp->ev_kick);
		rights_peer_done(d, &cp->pub.peer);
		free(cp);
		quota_release(d->quota, peer.uid, QUOTA_CONNECTIONS, 1);
		close(fd);
		return;
	}
	event_priority_set(cp->ev_read, PRIO_CONTROL);
	event_priority_set(cp->ev_write, PRIO_CONTROL);
	event_priority_set(cp->ev_idle, PRIO_CONTROL);
	event_priority_set(cp->ev_kick, PRIO_CONTROL);
	cp->next = ctl->conns;
	if (ctl->conns != NULL)
		ctl->conns->prev = cp;
	ctl->conns = cp;
	ctl->nconns++;
	event_add(cp->ev_read, NULL);
	conn_idle_arm(cp);
	log_debug("connection %llu from uid %u pid %d", 
	    (unsigned long long)cp->pub.id, (unsigned)peer.uid, (int)peer.pid);
}

static void
control_resume_cb(evutil_socket_t fd, short what, void *arg)
{
	struct control *ctl = arg;
	size_t i;

	(void)fd;
	(void)what;
	for (i = 0; i < ctl->nls; i++)
		event_add(ctl->ls[i].ev, NULL);
}

static void
control_accept_cb(evutil_socket_t lfd, short what, void *arg)
{
	struct control *ctl = arg;
	int i, fd;

	(void)what;
	/* A bounded number per wakeup, so a flood of connects cannot hold
	 * the loop. */
	for (i = 0; i < 64; i++) {
		fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd >= 0) {
			control_accept_one(ctl, fd);
			continue;
		}
		if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
		    errno == ENOMEM) {
			struct timeval tv = { 0, 200000 };
			size_t j;

			log_warning("accept: %s; pausing accepts",
			    strerror(errno));
			for (j = 0; j < ctl->nls; j++)
				event_del(ctl->ls[j].ev);
			event_add(ctl->ev_resume, &tv);
		}
		return;
	}
}

static int
control_bind(struct control *ctl, int *ret_fd)
{
	struct statsd *d = ctl->d;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int fd, r;

	if (strlen(d->socket_path) >= sizeof(sa.sun_path)) {
		log_error("socket path too long: %s", d->socket_path);
		return -ENAMETOOLONG;
	}
	strcpy(sa.sun_path, d->socket_path);
	/* main.c holds the runtime directory's lock, so a socket file here
	 * is a stale one from a statsd that died. */
	if (lstat(d->socket_path, &st) == 0 && S_ISSOCK(st.st_mode))
		(void)unlink(d->socket_path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* The kernel's queue of connections not yet accepted is shared by
	 * every user, before any quota can apply: as long as the system
	 * allows (somaxconn), as systemd's socket units have it, so that a
	 * user's connect flood while statsd is busy does not refuse root
	 * with EAGAIN after 128. */
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    chmod(d->socket_path, d->cfg.socket_mode) < 0 ||
	    listen(fd, SOMAXCONN) < 0) {
		r = -errno;
		log_error("cannot listen on %s: %s", d->socket_path,
		    strerror(-r));
		close(fd);
		return r;
	}
	*ret_fd = fd;
	return 0;
}

int
control_new(struct statsd *d, const struct control_events *ev,
    const int *fds, size_t n, struct control **ret)
{
	struct control *ctl;
	size_t i;
	int r, fd;

	ctl = calloc(1, sizeof(*ctl));
	if (ctl == NULL)
		return -ENOMEM;
	ctl->d = d;
	ctl->ev = ev;
	ctl->ls = calloc(n > 0 ? n : 1, sizeof(*ctl->ls));
	ctl->ev_resume = evtimer_new(d->base, control_resume_cb, ctl);
	if (ctl->ls == NULL || ctl->ev_resume == NULL) {
		r = -ENOMEM;
		goto fail;
	}
	if (n == 0) {
		r = control_bind(ctl, &fd);
		if (r < 0)
			goto fail;
		ctl->bound = true;
		ctl->ls[0].fd = fd;
		ctl->nls = 1;
	} else {
		for (i = 0; i < n; i++) {
			int fl = fcntl(fds[i], F_GETFL);

			/* Activated sockets come blocking. */
			if (fl >= 0)
				(void)fcntl(fds[i], F_SETFL, fl | O_NONBLOCK);
			ctl->ls[i].fd = fds[i];
			ctl->nls++;
		}
	}
	for (i = 0; i < ctl->nls; i++) {
		ctl->ls[i].ev = event_new(d->base, ctl->ls[i].fd,
		    EV_READ | EV_PERSIST, control_accept_cb, ctl);
		if (ctl->ls[i].ev == NULL) {
			r = -ENOMEM;
			goto fail;
		}
		event_priority_set(ctl->ls[i].ev, PRIO_CONTROL);
		event_add(ctl->ls[i].ev, NULL);
	}
	*ret = ctl;
	return 0;
fail:
	control_free(ctl);
	return r;
}

struct control *
control_free(struct control *ctl)
{
	size_t i;

	if (ctl == NULL)
		return NULL;
	while (ctl->conns != NULL)
		conn_free(ctl->conns);
	for (i = 0; i < ctl->nls; i++) {
		if (ctl->ls[i].ev != NULL)
			event_free(ctl->ls[i].ev);
		close(ctl->ls[i].fd);
	}
	if (ctl->bound)
		(void)unlink(ctl->d->socket_path);
	if (ctl->ev_resume != NULL)
		event_free(ctl->ev_resume);
	free(ctl->ls);
	free(ctl);
	return NULL;
}

unsigned
control_nconns(const struct control *ctl)
{
	return ctl != NULL ? ctl->nconns : 0;
}

void
control_reload(struct control *ctl)
{
	struct cpriv *cp;

	for (cp = ctl->conns; cp != NULL; cp = cp->next)
		conn_idle_arm(cp);
}
