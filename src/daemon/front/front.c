/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * front.c: the statsd/DogStatsD listeners: sockets, batched reads (in the
 * event loop, or by receiver threads), the line loop and its counters
 * (front.h).
 *
 * Receiver threads (statsd_threads > 0): each socket has one thread that
 * does nothing but recvmmsg(2) into slabs of datagram buffers and hands
 * the full slabs to the event loop, which parses and applies them: statsd
 * stays the single writer of the store, and the receiving, most of the
 * cost of a datagram, runs beside it, on another core or, on a busy one,
 * with a scheduler share of its own. statsd binds its UDP address with
 * statsd_threads sockets (SO_REUSEPORT), so senders are spread over the
 * threads while each sender's datagrams stay in one socket, in order.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <linux/sock_diag.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <event2/event.h>

#include "clock.h"
#include "daemon.h"
#include "front.h"
#include "log.h"
#include "series.h"
#include "statsd_line.h"

#define FRONT_MAX_SOCKS	20
/* Slabs of statsd_batch datagrams a receiver thread may fill ahead of
 * the event loop. */
#define FRONT_SLABS	4
/* Batches read per wakeup before the loop serves others: a flood cannot
 * hold the event loop (the rest waits in the socket buffer). */
#define FRONT_ROUNDS	16
/*
 * Datagram bytes applied per loop turn (and at least one datagram):
 * some 5 to 15 ms of parsing and applying. The rest of what was read
 * waits for the next turn, after the control events already waiting, as
 * the rings' drain does: a flood of large datagrams (60 KB of counter
 * lines each, from any local user) held the loop for seconds, and root's
 * Info with it.
 */
#define FRONT_TURN_BYTES	(256u * 1024u)
/* Series looked at per second of the expiry tick's period. */
#define FRONT_EXPIRE_BUDGET	16384
/* The expiry tick's longest period, when no datagram came (a series then
 * outlives its statsd_ttl_s by up to a sixtieth of it, a minute at most,
 * and an idle statsd with series wakes once a minute, not every
 * second). */
#define FRONT_EXPIRE_QUIET_S	60

/* The counters, in front_stat_names[]' order. */
enum {
	FS_DATAGRAMS = 0,
	FS_LINES,
	FS_APPLIED,
	FS_KERNEL_DROPS,
	FS_OVERSIZE,
	FS_IGNORED,
	FS_SERIES,
	FS_CREATED,
	FS_EXPIRED,
	FS_REJECTED,			/* SL_NREJECTS - 1 of them */
	FS_REFUSED = FS_REJECTED + SL_NREJECTS - 1, /* SERIES_NRESULTS - 1 */
	FS_NSTATS = FS_REFUSED + SERIES_NRESULTS - 1
};

const char *const front_stat_names[] = {
	"statsd_datagrams", "statsd_lines", "statsd_applied",
	"statsd_kernel_drops", "statsd_oversize", "statsd_ignored_fields",
	"statsd_series", "statsd_series_created", "statsd_series_expired",
	/* lines refused by the parser, by sl_reject_names[] */
	"statsd_rejected_syntax", "statsd_rejected_name",
	"statsd_rejected_type", "statsd_rejected_value",
	"statsd_rejected_rate", "statsd_rejected_tags",
	"statsd_rejected_utf8", "statsd_rejected_event",
	"statsd_rejected_timestamp",
	/* lines that parsed but were refused, by series_result_names[] */
	"statsd_refused_cap", "statsd_refused_denied",
	"statsd_refused_toolong", "statsd_refused_range",
	"statsd_refused_store", "statsd_refused_negative",
	"statsd_refused_busy",
};
const unsigned front_nstats = FS_NSTATS;
_Static_assert(sizeof(front_stat_names) / sizeof(front_stat_names[0]) ==
    FS_NSTATS, "a name per counter");
_Static_assert(SL_NREJECTS == 10 && SERIES_NRESULTS == 8,
    "front_stat_names[] lists every reason");

struct front;

/* statsd_batch datagrams' buffers, and how many were received. */
struct front_slab {
	struct front_slab	*next;
	unsigned		 n;
	unsigned		 next_i;	/* the next datagram to apply */
	bool			 drops_ok;
	uint32_t		 drops;		/* the socket's, after reading */
	/* What front_slab_prepare() must redo: all of it for another
	 * socket than the one it was made ready for, else the entries the
	 * kernel wrote (the last fill's). */
	const struct front_sock	*ready_for;
	unsigned		 written;
	struct mmsghdr		*msgs;
	struct iovec		*iov;
	char			*bufs;
	char			*ctl;
};

struct front_sock {
	struct front	*f;
	int		 fd;
	bool		 udp;
	bool		 bound;		/* statsd bound it: unlink at exit */
	uint32_t	 drops;		/* the kernel's drop count seen last */
	bool		 was_full;	/* its reader's last batch was */
	uint64_t	 drops_ns;	/* when its reader read drops last */
	/* Its receiver thread's pace (front_rx_pause()). */
	uint64_t	 rx_ns;		/* when a wait last ended in data */
	uint64_t	 pause_ns;	/* 0: wait in poll(2) */
	struct event	*ev;		/* read in the loop: its readiness */
	/* A receiver thread's: slabs free to fill and filled, under mu. */
	pthread_t	 th;
	bool		 th_started;
	pthread_mutex_t	 mu;
	pthread_cond_t	 cv;
	bool		 mu_made;
	atomic_bool	 stop;
	struct front_slab *free, *full, **full_tail;
	struct front_slab slabs[FRONT_SLABS];
};

struct front {
	struct statsd		*d;
	struct series		*series;
	struct front_sock	 socks[FRONT_MAX_SOCKS];
	unsigned		 nsocks;
	char			*unix_path;
	unsigned		 batch;
	size_t			 bufsize;
	unsigned		 threads;	/* statsd_threads */
	struct front_slab	 slab;		/* the loop's own */
	int			 wake_fd;	/* threads: slabs filled */
	atomic_bool		 woken;		/* wake_fd written, not yet read */
	struct event		*ev_wake;
	int			 stop_fd;	/* threads: readable at stop */
	/* A turn's work left over: the loop's own slab part applied (of
	 * slab_fs), or the threads' slabs; the next turn takes it. */
	struct front_sock	*slab_fs;
	struct event		*ev_more;
	unsigned		 rr;		/* the socket a turn starts at */
	struct event		*ev_expire;
	uint64_t		 expire_dgrams;	/* datagrams at the last tick */
	unsigned		 expire_period;	/* seconds: the tick's now */
	uint64_t		 st[FS_NSTATS];
};

static void front_expire_wake(struct front *f);

/* Room for SCM_CREDENTIALS (the Unix socket's). */
#define FRONT_CTL	CMSG_SPACE(sizeof(struct ucred))
/* How stale a receiver's drop count may get while batches come. */
#define FRONT_DROPS_EVERY_NS	10000000ull
/*
 * A receiver thread's pause between batches while datagrams stream in
 * (front_rx_pause()): at most this long a datagram waits in the socket
 * before it is received, and no shorter a pause than the least. Each
 * pause is a wake-up of the thread and of the loop, and the loop's
 * first lines after one find their series out of cache: at 1 ms rather
 * than 250 us, statsd spent 0.90x the CPU a line on a DogStatsD mix at
 * 150,000 lines a second. A statsd line is read every few seconds at
 * the soonest; a millisecond more in the socket changes nothing it
 * shows, and the fill rule below keeps a small buffer from overflowing.
 */
#define FRONT_PAUSE_MAX_NS	1000000ull
#define FRONT_PAUSE_MIN_NS	20000ull

/* ------------------------------------------------------------ the lines */

/* The line limits of the configuration (reloaded: read each time). */
static void
front_limits(const struct front *f, struct sl_limits *lim)
{
	const struct config *c = &f->d->cfg;

	*lim = (struct sl_limits){
		.name_max = c->statsd_name_max,
		.tag_max = c->statsd_tag_max,
		.tags_max = c->statsd_tags_max,
		.values_max = c->statsd_values_max,
	};
}

/* What front_hint_key() keeps of a datagram for its turn: the key of its
 * first line, and that line parsed, which front_lines() takes rather
 * than parse it again. */
struct front_hint {
	struct series_hint	 h;
	struct sl_line		 l;
	enum sl_reject		 r;
	size_t			 pos;	/* after the first line */
	bool			 parsed;
};

/* One line, parsed (r: sl_line_parse()'s answer), counted and applied. */
static void
front_line(struct front *f, enum sl_reject r, const struct sl_line *l,
    const struct series_src *src, uint64_t now)
{
	enum series_result res;

	f->st[FS_LINES]++;
	if (r != SL_OK) {
		f->st[FS_REJECTED + r - 1]++;
		return;
	}
	f->st[FS_IGNORED] += l->ignored;
	res = series_apply(f->series, src, l, now);
	if (res == SERIES_OK)
		f->st[FS_APPLIED]++;
	else
		f->st[FS_REFUSED + res - 1]++;
}

/* The lines of a datagram; its first one already parsed when first
 * says so (front_hint_key()). */
static void
front_lines(struct front *f, const char *buf, size_t len,
    const struct series_src *src, uint64_t now,
    const struct front_hint *first)
{
	struct sl_limits lim;
	struct sl_line l;
	const char *ln;
	size_t pos = 0, n;

	if (first != NULL && first->parsed) {
		front_line(f, first->r, &first->l, src, now);
		pos = first->pos;
	}
	front_limits(f, &lim);
	while (sl_next_line(buf, len, &pos, &ln, &n))
		front_line(f, sl_line_parse(ln, n, &lim, &l), &l, src, now);
}

/* Who sent a datagram on the Unix socket: SCM_CREDENTIALS, which the
 * kernel fills (SO_PASSCRED); none means nobody. */
static void
front_src_unix(const struct front *f, struct msghdr *mh,
    struct series_src *src)
{
	struct cmsghdr *cm;
	uid_t uid = 65534;
	gid_t gid = 65534;

	for (cm = CMSG_FIRSTHDR(mh); cm != NULL; cm = CMSG_NXTHDR(mh, cm)) {
		if (cm->cmsg_level == SOL_SOCKET &&
		    cm->cmsg_type == SCM_CREDENTIALS &&
		    cm->cmsg_len >= CMSG_LEN(sizeof(struct ucred))) {
			struct ucred uc;

			memcpy(&uc, CMSG_DATA(cm), sizeof(uc));
			uid = uc.uid;
			gid = uc.gid;
		}
	}
	/* As on the control socket: root, statsd itself, the admin group
	 * (as the datagram's primary group). */
	rights_peer_cred(f->d, uid, gid, &src->peer);
	src->udp = false;
}

/*
 * The socket's drop count: datagrams the kernel dropped for a full receive
 * buffer since the socket was made (sk_drops). SO_MEMINFO reads it;
 * SO_RXQ_OVFL would carry the same counter on every datagram, as a
 * control message whose making and copying cost the receiver about a
 * tenth of a datagram's time (Linux 6.1, loopback).
 */
static void
front_drops_read(int fd, struct front_slab *sl)
{
	uint32_t mem[SK_MEMINFO_VARS];
	socklen_t len = sizeof(mem);

	sl->drops_ok = getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mem, &len) == 0 &&
	    len > SK_MEMINFO_DROPS * sizeof(mem[0]);
	if (sl->drops_ok)
		sl->drops = mem[SK_MEMINFO_DROPS];
}

/*
 * After a batch of n datagrams from fs: read the drop count around
 * pressure (a full batch, the first after one) and otherwise at most
 * every FRONT_DROPS_EVERY_NS. The kernel drops only while the receive
 * buffer is full, which a backlog of small datagrams shows as a full
 * batch; a small buffer or large datagrams fill it short of one, and
 * those drops are counted at most that long after the next batch (the
 * expiry tick reads the count too, once a second while datagrams come).
 * A reader keeping up (a datagram or a few a batch) so saves a system
 * call a batch, which was one a datagram for senders of one line a
 * datagram.
 */
static void
front_drops_after(const struct front *f, struct front_sock *fs,
    struct front_slab *sl, unsigned n)
{
	bool full = n >= f->batch;
	uint64_t now = clock_now_ns();

	if (full || fs->was_full || now - fs->drops_ns >= FRONT_DROPS_EVERY_NS) {
		front_drops_read(fs->fd, sl);
		fs->drops_ns = now;
	} else
		sl->drops_ok = false;
	fs->was_full = full;
}

static void
front_drops_count(struct front *f, struct front_sock *fs,
    const struct front_slab *sl)
{
	if (sl->drops_ok && (int32_t)(sl->drops - fs->drops) > 0) {
		f->st[FS_KERNEL_DROPS] += sl->drops - fs->drops;
		fs->drops = sl->drops;
	}
}

static int
front_slab_init(struct front *f, struct front_slab *sl)
{
	sl->msgs = calloc(f->batch, sizeof(*sl->msgs));
	sl->iov = calloc(f->batch, sizeof(*sl->iov));
	sl->bufs = malloc((size_t)f->batch * f->bufsize);
	sl->ctl = calloc(f->batch, FRONT_CTL);
	if (sl->msgs == NULL || sl->iov == NULL || sl->bufs == NULL ||
	    sl->ctl == NULL)
		return -ENOMEM;
	return 0;
}

static void
front_slab_done(struct front_slab *sl)
{
	free(sl->msgs);
	free(sl->iov);
	free(sl->bufs);
	free(sl->ctl);
}

/* Ready sl for a recvmmsg on fs (the kernel rewrites lengths and
 * flags, of the entries it fills only). Only the Unix socket has a
 * control message: its sender's. */
static void
front_slab_prepare(const struct front *f, const struct front_sock *fs,
    struct front_slab *sl)
{
	unsigned i, n = sl->ready_for == fs ? sl->written : f->batch;

	sl->ready_for = fs;
	sl->written = 0;
	for (i = 0; i < n; i++) {
		struct msghdr *mh = &sl->msgs[i].msg_hdr;

		sl->iov[i].iov_base = sl->bufs + (size_t)i * f->bufsize;
		sl->iov[i].iov_len = f->bufsize;
		mh->msg_name = NULL;
		mh->msg_namelen = 0;
		mh->msg_iov = &sl->iov[i];
		mh->msg_iovlen = 1;
		mh->msg_control = fs->udp ? NULL : sl->ctl +
		    (size_t)i * FRONT_CTL;
		mh->msg_controllen = fs->udp ? 0 : FRONT_CTL;
		mh->msg_flags = 0;
	}
	sl->n = 0;
	sl->next_i = 0;
}

/* The next turn, after the control events waiting now (a zero time-out:
 * event_active() would run it in this turn's pass). */
static void
front_more(struct front *f)
{
	static const struct timeval zero = { 0, 0 };

	if (!evtimer_pending(f->ev_more, NULL))
		evtimer_add(f->ev_more, &zero);
}

/*
 * Hints for datagram i of sl, when it comes from UDP (one source for all):
 * its first line parsed, its key, its slot prefetched (series_hint_key()).
 * None for a datagram that repeats the one before it (a burst of one
 * series: its entry is in cache already), nor for one cut short.
 */
static void
front_hint_key(struct front *f, const struct front_slab *sl, unsigned i,
    const struct series_src *src, const struct sl_limits *lim,
    struct front_hint *ret)
{
	const char *buf = sl->iov[i].iov_base, *ln;
	size_t len = sl->msgs[i].msg_len, n;

	ret->h.ok = false;
	ret->parsed = false;
	if (sl->msgs[i].msg_hdr.msg_flags & MSG_TRUNC)
		return;
	if (i > 0 && sl->msgs[i - 1].msg_len == len &&
	    memcmp(sl->iov[i - 1].iov_base, buf, len) == 0)
		return;
	ret->pos = 0;
	if (!sl_next_line(buf, len, &ret->pos, &ln, &n))
		return;
	ret->r = sl_line_parse(ln, n, lim, &ret->l);
	ret->parsed = true;
	if (ret->r == SL_OK)
		series_hint_key(f->series, src, &ret->l, &ret->h);
}

/*
 * The datagrams of a filled slab from socket fs, from the next one on,
 * while *budget lasts (one at least). Returns: whether all are applied.
 *
 * From UDP, each datagram's series is looked up ahead of its turn, in
 * three steps a datagram apart (series.h, series_hint_key()): applying
 * a run of one-line datagrams of many series (a DogStatsD client's) is
 * otherwise a chain of cache misses, one after another, each line's
 * slot, entry, kstat and blob. The hints of datagram j live in
 * hint[j % FRONT_HINTS], from six datagrams before its turn to its turn,
 * which takes its first line as parsed there.
 */
#define FRONT_HINTS	8

static bool
front_slab_apply(struct front *f, struct front_sock *fs,
    struct front_slab *sl, size_t *budget)
{
	struct series_src udp = { .udp = true };
	struct front_hint hint[FRONT_HINTS];
	struct sl_limits lim;
	uint64_t now = clock_now_ns();
	unsigned j;

	/* Anonymous: statsd's uid owns what it makes, unprivileged. */
	rights_peer_cred(f->d, f->d->self_uid, (gid_t)-1, &udp.peer);
	udp.peer.privileged = false;
	if (sl->next_i == 0)
		front_drops_count(f, fs, sl);
	front_limits(f, &lim);
	if (fs->udp) {
		/* The first six datagrams: keyed; four entries; two
		 * blobs. */
		for (j = sl->next_i; j < sl->n && j < sl->next_i + 6; j++)
			front_hint_key(f, sl, j, &udp, &lim,
			    &hint[j % FRONT_HINTS]);
		for (j = sl->next_i; j < sl->n && j < sl->next_i + 4; j++)
			series_hint_entry(f->series, &hint[j % FRONT_HINTS].h);
		for (j = sl->next_i; j < sl->n && j < sl->next_i + 2; j++)
			series_hint_data(f->series, &hint[j % FRONT_HINTS].h);
	}
	for (; sl->next_i < sl->n; sl->next_i++) {
		struct msghdr *mh = &sl->msgs[sl->next_i].msg_hdr;
		size_t len = sl->msgs[sl->next_i].msg_len;
		struct series_src src;

		if (*budget == 0)
			return false;
		*budget = len < *budget ? *budget - len : 0;
		f->st[FS_DATAGRAMS]++;
		if (fs->udp) {
			j = sl->next_i;
			if (j + 6 < sl->n)
				front_hint_key(f, sl, j + 6, &udp, &lim,
				    &hint[(j + 6) % FRONT_HINTS]);
			if (j + 4 < sl->n)
				series_hint_entry(f->series,
				    &hint[(j + 4) % FRONT_HINTS].h);
			if (j + 2 < sl->n)
				series_hint_data(f->series,
				    &hint[(j + 2) % FRONT_HINTS].h);
		}
		if (mh->msg_flags & MSG_TRUNC) {
			f->st[FS_OVERSIZE]++;
			continue;
		}
		if (fs->udp)
			src = udp;
		else
			front_src_unix(f, mh, &src);
		front_lines(f, sl->iov[sl->next_i].iov_base, len, &src, now,
		    fs->udp ? &hint[sl->next_i % FRONT_HINTS] : NULL);
	}
	return true;
}

/* Reading in the event loop (statsd_threads = 0): what the last turn
 * left of the loop's slab, then new batches of fs (if any), within a
 * turn's budget. */
static void
front_read_turn(struct front *f, struct front_sock *fs, size_t budget)
{
	unsigned round;
	int n;

	if (f->slab_fs != NULL) {
		if (!front_slab_apply(f, f->slab_fs, &f->slab, &budget)) {
			front_more(f);
			return;
		}
		f->slab_fs = NULL;
	}
	for (round = 0; fs != NULL && round < FRONT_ROUNDS && budget > 0;
	    round++) {
		front_slab_prepare(f, fs, &f->slab);
		n = recvmmsg(fs->fd, f->slab.msgs, f->batch, MSG_DONTWAIT,
		    NULL);
		if (n <= 0) {
			if (n < 0 && errno != EAGAIN && errno != EINTR)
				log_warning("statsd %s socket: recvmmsg: %s",
				    fs->udp ? "UDP" : "Unix", strerror(errno));
			break;
		}
		f->slab.n = f->slab.written = (unsigned)n;
		front_drops_after(f, fs, &f->slab, (unsigned)n);
		if (!front_slab_apply(f, fs, &f->slab, &budget)) {
			f->slab_fs = fs;
			front_more(f);
			break;
		}
		if ((unsigned)n < f->batch)
			break;
	}
}

static void
front_read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct front_sock *fs = arg;
	struct front *f = fs->f;

	(void)fd;
	(void)what;
	front_read_turn(f, fs, FRONT_TURN_BYTES);
	series_sync(f->series);
	front_expire_wake(f);
}

/*
 * How a receiver thread waits for more once it has emptied its socket.
 *
 * A sender statsd keeps up with leaves one datagram in the socket at a
 * time: waiting in poll(2) for each costs a wake-up of this thread and,
 * through the hand-over, of the event loop, for every datagram, and so
 * most of statsd's CPU a line (perf showed 80 % of it in the kernel's
 * wake-up and receive paths). While datagrams stream in, the thread
 * sleeps instead, as a network card coalesces interrupts: what came
 * meanwhile waits in the socket buffer and one recvmmsg(2) takes it all.
 * A stream is a datagram that came sooner after the last than the
 * longest pause; its first pause is eight such gaps, counted from the
 * last datagram received (time spent waiting for a free slab, the loop
 * being behind, is not slept again). After each pause the socket's fill
 * (SO_MEMINFO) sets the next: half as long above a quarter of the
 * receive buffer, twice as long below a sixteenth, so a pause never risks
 * the drops a small buffer (an unprivileged statsd's is
 * net.core.rmem_max) would take. A pause that gathered nothing ends the
 * stream: back to poll(2), so a slow sender or an idle socket costs no
 * timed wake-up.
 *
 * UDP sockets only. A Unix datagram socket charges what waits in it to
 * its senders (its fill reads 0 here) and holds at most
 * net.unix.max_dgram_qlen datagrams, which a pause could fill: senders
 * would block, or lose datagrams statsd cannot count.
 * Returns: whether the socket has data to take (false: wait in poll).
 */
static bool
front_rx_pause(struct front_sock *fs)
{
	uint32_t mem[SK_MEMINFO_VARS];
	socklen_t len = sizeof(mem);
	uint64_t until = fs->rx_ns + fs->pause_ns;
	struct timespec ts = {
		.tv_sec = (time_t)(until / 1000000000u),
		.tv_nsec = (long)(until % 1000000000u),
	};

	/* (clock_nanosleep() returns its error; past until, at once.) */
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	    EINTR)
		continue;
	if (getsockopt(fs->fd, SOL_SOCKET, SO_MEMINFO, mem, &len) < 0 ||
	    len <= SK_MEMINFO_RCVBUF * sizeof(mem[0]))
		return true;	/* no measure: take what is there */
	if (mem[SK_MEMINFO_RMEM_ALLOC] == 0) {
		fs->pause_ns = 0;
		return false;
	}
	if (mem[SK_MEMINFO_RMEM_ALLOC] > mem[SK_MEMINFO_RCVBUF] / 4)
		fs->pause_ns = fs->pause_ns / 2 > FRONT_PAUSE_MIN_NS ?
		    fs->pause_ns / 2 : FRONT_PAUSE_MIN_NS;
	else if (mem[SK_MEMINFO_RMEM_ALLOC] < mem[SK_MEMINFO_RCVBUF] / 16)
		fs->pause_ns = fs->pause_ns * 2 < FRONT_PAUSE_MAX_NS ?
		    fs->pause_ns * 2 : FRONT_PAUSE_MAX_NS;
	return true;
}

/* Data came, after a wait in poll(2) if polled: that starts a stream if
 * it came soon enough after the last. */
static void
front_rx_got(struct front_sock *fs, bool polled)
{
	uint64_t now = clock_now_ns(), gap = now - fs->rx_ns;

	if (polled && fs->udp && fs->rx_ns != 0 && gap < FRONT_PAUSE_MAX_NS)
		fs->pause_ns = gap * 8 < FRONT_PAUSE_MIN_NS ?
		    FRONT_PAUSE_MIN_NS : gap * 8 < FRONT_PAUSE_MAX_NS ?
		    gap * 8 : FRONT_PAUSE_MAX_NS;
	fs->rx_ns = now;
}

/*
 * Fill sl with what fs has, waiting for a datagram without a time-out:
 * poll(2) on the socket and on the stop eventfd, so an idle thread sleeps
 * until a datagram or the stop (a receive time-out would wake it for
 * nothing, several times a second), or a pause while datagrams stream in
 * (front_rx_pause()). shutdown(2) would wake a blocked receive too, but a
 * socket systemd passed outlives statsd, to be passed again.
 * Returns: datagrams received; 0 at a stop.
 */
static int
front_rx_wait(struct front *f, struct front_sock *fs, struct front_slab *sl)
{
	struct pollfd pfd[2] = {
		{ .fd = fs->fd, .events = POLLIN },
		{ .fd = f->stop_fd, .events = POLLIN },
	};
	/* A batch short of full emptied the socket: wait before asking
	 * again (one call a wake-up, not two, for a reader keeping up). */
	bool wait = !fs->was_full, polled = false;
	int n;

	while (!atomic_load(&fs->stop)) {
		if (wait && fs->pause_ns > 0 && front_rx_pause(fs))
			wait = false;
		if (wait) {
			if (poll(pfd, 2, -1) < 0 && errno != EINTR)
				break;
			polled = true;
		}
		if (atomic_load(&fs->stop))
			break;
		front_slab_prepare(f, fs, sl);
		n = recvmmsg(fs->fd, sl->msgs, f->batch, MSG_DONTWAIT, NULL);
		if (n > 0) {
			front_rx_got(fs, polled);
			sl->written = (unsigned)n;
			return n;
		}
		/* A pending socket error (one an ICMP message left on a UDP
		 * socket) was taken by that call; anything else waits, in
		 * poll(2): a read that found nothing ends a stream (so a
		 * pause can never repeat without data). */
		fs->pause_ns = 0;
		wait = true;
	}
	return 0;
}

/*
 * A receiver thread: fill a free slab (blocking until a datagram comes,
 * then taking what else is there), hand it over, wake the loop. It only
 * receives: no statsd state but its socket's slab lists, under mu.
 */
static void *
front_rx_main(void *arg)
{
	struct front_sock *fs = arg;
	struct front *f = fs->f;
	const uint64_t one = 1;

	for (;;) {
		struct front_slab *sl;
		int n;

		pthread_mutex_lock(&fs->mu);
		while (fs->free == NULL && !atomic_load(&fs->stop))
			pthread_cond_wait(&fs->cv, &fs->mu);
		sl = fs->free;
		if (sl != NULL)
			fs->free = sl->next;
		pthread_mutex_unlock(&fs->mu);
		if (atomic_load(&fs->stop))
			break;
		n = front_rx_wait(f, fs, sl);
		if (n > 0)
			front_drops_after(f, fs, sl, (unsigned)n);
		pthread_mutex_lock(&fs->mu);
		if (n > 0) {
			sl->n = (unsigned)n;
			sl->next = NULL;
			*fs->full_tail = sl;
			fs->full_tail = &sl->next;
		} else {
			sl->next = fs->free;
			fs->free = sl;
		}
		pthread_mutex_unlock(&fs->mu);
		/* One wake-up until the loop takes it: a loop still busy
		 * with the last slabs finds this one too. */
		if (n > 0 && !atomic_exchange(&f->woken, true))
			(void)write(f->wake_fd, &one, sizeof(one));
	}
	return NULL;
}

/*
 * The loop's side of the threads: apply the slabs they filled, a socket
 * after the other from one further each turn, and give each back once
 * applied; what the budget does not reach waits for the next turn.
 * Returns: whether any is left.
 */
static bool
front_threads_turn(struct front *f, size_t budget)
{
	bool left = false;
	unsigned k;

	for (k = 0; k < f->nsocks; k++) {
		struct front_sock *fs = &f->socks[(f->rr + k) % f->nsocks];
		struct front_slab *sl;

		if (!fs->th_started)
			continue;
		for (;;) {
			/* The thread appends at the tail, under mu; the head
			 * is the loop's until handed back. */
			pthread_mutex_lock(&fs->mu);
			sl = fs->full;
			pthread_mutex_unlock(&fs->mu);
			if (sl == NULL)
				break;
			if (!front_slab_apply(f, fs, sl, &budget)) {
				left = true;
				break;
			}
			pthread_mutex_lock(&fs->mu);
			fs->full = sl->next;
			if (fs->full == NULL)
				fs->full_tail = &fs->full;
			sl->next = fs->free;
			fs->free = sl;
			pthread_cond_signal(&fs->cv);
			pthread_mutex_unlock(&fs->mu);
		}
	}
	f->rr++;
	return left;
}

static void
front_wake_cb(evutil_socket_t fd, short what, void *arg)
{
	struct front *f = arg;
	uint64_t v;

	(void)what;
	(void)read(fd, &v, sizeof(v));
	/* Before the lists are looked at: a slab handed over after this
	 * wakes the loop again. */
	atomic_store(&f->woken, false);
	if (front_threads_turn(f, FRONT_TURN_BYTES))
		front_more(f);
	series_sync(f->series);
	front_expire_wake(f);
}

/* The next turn of the work a turn left. */
static void
front_more_cb(evutil_socket_t fd, short what, void *arg)
{
	struct front *f = arg;

	(void)fd;
	(void)what;
	if (f->threads > 0) {
		if (front_threads_turn(f, FRONT_TURN_BYTES))
			front_more(f);
	} else {
		front_read_turn(f, NULL, FRONT_TURN_BYTES);
	}
	series_sync(f->series);
}

static int
front_rx_start(struct front *f, struct front_sock *fs)
{
	unsigned i;
	int r;

	if (pthread_mutex_init(&fs->mu, NULL) != 0)
		return -ENOMEM;
	if (pthread_cond_init(&fs->cv, NULL) != 0) {
		pthread_mutex_destroy(&fs->mu);
		return -ENOMEM;
	}
	fs->mu_made = true;
	fs->full = NULL;
	fs->full_tail = &fs->full;
	for (i = 0; i < FRONT_SLABS; i++) {
		r = front_slab_init(f, &fs->slabs[i]);
		if (r < 0)
			return r;
		fs->slabs[i].next = fs->free;
		fs->free = &fs->slabs[i];
	}
	r = pthread_create(&fs->th, NULL, front_rx_main, fs);
	if (r != 0)
		return -r;
	fs->th_started = true;
	return 0;
}

/*
 * The expiry tick: once a second while datagrams come (drops the kernel
 * counted after the last datagram read are counted within a second), and
 * while series exist but none came, once every sixtieth of statsd_ttl_s
 * (1 to 60 s), to expire them. A front door with neither has no timer
 * running, and the next datagram starts it (front_expire_wake()).
 */
static unsigned
front_expire_period(const struct front *f, bool quiet)
{
	unsigned p = f->d->cfg.statsd_ttl_s / 60;

	if (!quiet || p < 1)
		return 1;
	return p < FRONT_EXPIRE_QUIET_S ? p : FRONT_EXPIRE_QUIET_S;
}

static void
front_expire_arm(struct front *f, unsigned period_s)
{
	struct timeval tv = { (time_t)period_s, 0 };

	f->expire_period = period_s;
	event_add(f->ev_expire, &tv);
}

static void
front_expire_wake(struct front *f)
{
	if (!event_pending(f->ev_expire, EV_TIMEOUT, NULL) ||
	    f->expire_period > 1)
		front_expire_arm(f, 1);
}

static void
front_expire_cb(evutil_socket_t fd, short what, void *arg)
{
	struct front *f = arg;
	struct series_stats ss;
	unsigned i;
	bool quiet;

	(void)fd;
	(void)what;
	/* Drops that came after the last datagram read are counted here,
	 * within a second, even if no datagram follows them. */
	for (i = 0; i < f->nsocks; i++) {
		struct front_slab sl;

		front_drops_read(f->socks[i].fd, &sl);
		front_drops_count(f, &f->socks[i], &sl);
	}
	(void)series_expire(f->series, clock_now_ns(),
	    FRONT_EXPIRE_BUDGET * f->expire_period);
	series_stats(f->series, &ss);
	quiet = f->st[FS_DATAGRAMS] == f->expire_dgrams;
	f->expire_dgrams = f->st[FS_DATAGRAMS];
	if (!quiet || (ss.series > 0 && f->d->cfg.statsd_ttl_s > 0))
		front_expire_arm(f, front_expire_period(f, quiet));
}

/* ------------------------------------------------------------ the sockets */

static void
front_sockopts(const struct front *f, int fd, bool unix_)
{
	int one = 1, rcv = (int)f->d->cfg.statsd_rcvbuf;

	if (unix_ && setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one,
	    sizeof(one)) < 0)
		log_warning("statsd Unix socket: SO_PASSCRED: %s",
		    strerror(errno));
	/* SO_RCVBUFFORCE passes net.core.rmem_max when statsd may
	 * (CAP_NET_ADMIN); else SO_RCVBUF, capped there by the kernel. A
	 * socket systemd passed may have a larger buffer already
	 * (ReceiveBuffer=, set with privilege): it is kept. */
	if (rcv > 0) {
		int cur = 0;
		socklen_t cl = sizeof(cur);

		/* The kernel reports twice what was asked (its overhead). */
		if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &cur, &cl) < 0 ||
		    cur / 2 < rcv) {
			if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcv,
			    sizeof(rcv)) < 0)
				(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF,
				    &rcv, sizeof(rcv));
		}
	}
	(void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

static int
front_add(struct front *f, int fd, bool udp, bool bound)
{
	struct front_sock *fs;

	if (f->nsocks == FRONT_MAX_SOCKS) {
		close(fd);
		return -EMFILE;
	}
	fs = &f->socks[f->nsocks++];
	fs->f = f;
	fs->fd = fd;
	fs->udp = udp;
	fs->bound = bound;
	front_sockopts(f, fd, !udp);
	if (f->threads > 0)
		return front_rx_start(f, fs);
	fs->ev = event_new(f->d->base, fd, EV_READ | EV_PERSIST, front_read_cb,
	    fs);
	if (fs->ev == NULL)
		return -ENOMEM;
	/* As control's: a turn of each in turn (front_more()). */
	event_priority_set(fs->ev, PRIO_CONTROL);
	event_add(fs->ev, NULL);
	return 0;
}

/* "ADDR:PORT", "[V6ADDR]:PORT". */
static int
front_udp_open(struct front *f, const char *spec)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
	    .ai_socktype = SOCK_DGRAM, .ai_flags = AI_NUMERICHOST |
	    AI_NUMERICSERV | AI_PASSIVE };
	struct addrinfo *ai = NULL;
	char host[CONFIG_ADDR_MAX], serv[8];
	unsigned short port;
	unsigned i;
	int fd, r;

	if (config_addr_port(spec, host, sizeof(host), &port) < 0)
		return -EINVAL;
	snprintf(serv, sizeof(serv), "%u", port);
	r = getaddrinfo(host, serv, &hints, &ai);
	if (r != 0 || ai == NULL)
		return -EINVAL;
	/* With receiver threads, one socket per thread on one address
	 * (SO_REUSEPORT: the kernel hashes each sender to one of them). A
	 * port 0 is chosen by the first bind and reused by the others. */
	for (i = 0; i < (f->threads > 1 ? f->threads : 1); i++) {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		int one = 1;

		fd = socket(ai->ai_family, SOCK_DGRAM | SOCK_CLOEXEC |
		    SOCK_NONBLOCK, 0);
		if (fd < 0 || (f->threads > 1 && setsockopt(fd, SOL_SOCKET,
		    SO_REUSEPORT, &one, sizeof(one)) < 0) ||
		    bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 ||
		    getsockname(fd, (struct sockaddr *)&ss, &sl) < 0) {
			r = -errno;
			if (fd >= 0)
				close(fd);
			freeaddrinfo(ai);
			return r;
		}
		if (i == 0 && sl <= ai->ai_addrlen)
			memcpy(ai->ai_addr, &ss, sl);
		r = front_add(f, fd, true, false);
		if (r < 0) {
			freeaddrinfo(ai);
			return r;
		}
	}
	freeaddrinfo(ai);
	return 0;
}

static int
front_unix_open(struct front *f, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int fd, r;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	/* A socket left by an earlier statsd (the runtime directory's lock
	 * says none runs now); anything else there is not ours to remove. */
	if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode))
		(void)unlink(path);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    chmod(path, f->d->cfg.statsd_unix_mode) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	f->unix_path = strdup(path);
	return front_add(f, fd, false, true);
}

int
front_new(struct statsd *d, const int *fds, size_t nfds, struct front **ret)
{
	const struct config *c = &d->cfg;
	bool have_udp = false, have_unix = false;
	struct front *f;
	char *path = NULL;
	size_t i;
	int r;

	f = calloc(1, sizeof(*f));
	if (f == NULL)
		return -ENOMEM;
	f->d = d;
	f->batch = c->statsd_batch;
	f->bufsize = c->statsd_max_datagram;
	f->threads = c->statsd_threads;
	f->wake_fd = -1;
	f->stop_fd = -1;
	f->ev_expire = evtimer_new(d->base, front_expire_cb, f);
	f->ev_more = evtimer_new(d->base, front_more_cb, f);
	if (f->ev_expire == NULL || f->ev_more == NULL || (f->threads == 0 &&
	    front_slab_init(f, &f->slab) < 0)) {
		r = -ENOMEM;
		goto fail;
	}
	if (f->threads > 0) {
		f->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		f->stop_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		f->ev_wake = f->wake_fd < 0 || f->stop_fd < 0 ? NULL :
		    event_new(d->base,
		    f->wake_fd, EV_READ | EV_PERSIST, front_wake_cb, f);
		if (f->ev_wake == NULL) {
			r = -ENOMEM;
			goto fail;
		}
		event_priority_set(f->ev_wake, PRIO_CONTROL);
		event_add(f->ev_wake, NULL);
	}
	r = series_new(d, &f->series);
	if (r < 0)
		goto fail;
	for (i = 0; i < nfds; i++) {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		bool udp;

		if (getsockname(fds[i], (struct sockaddr *)&ss, &sl) < 0) {
			close(fds[i]);
			continue;
		}
		udp = ss.ss_family != AF_UNIX;
		have_udp |= udp;
		have_unix |= !udp;
		r = front_add(f, fds[i], udp, false);
		if (r < 0)
			goto fail;
	}
	/* A listener that cannot be opened (a port taken, an address family
	 * the sandbox forbids) is said, and statsd runs without it. */
	if (!have_udp && c->statsd_udp[0] != '\0') {
		r = front_udp_open(f, c->statsd_udp);
		if (r == -ENOMEM)
			goto fail;
		if (r < 0)
			log_error("statsd_udp %s: %s; running without it",
			    c->statsd_udp, r == -EINVAL ? "not ADDR:PORT with "
			    "a numeric address and port" : strerror(-r));
	}
	if (!have_unix && strcmp(c->statsd_unix, "none") != 0) {
		if (c->statsd_unix[0] != '\0')
			path = strdup(c->statsd_unix);
		else if (asprintf(&path, "%s/statsd.dgram", d->runtime_dir) < 0)
			path = NULL;
		if (path == NULL) {
			r = -ENOMEM;
			goto fail;
		}
		r = front_unix_open(f, path);
		if (r < 0)
			log_error("statsd_unix %s: %s; running without it",
			    path, strerror(-r));
		free(path);
		if (r == -ENOMEM)
			goto fail;
	}
	event_priority_set(f->ev_expire, PRIO_CONTROL);
	event_priority_set(f->ev_more, PRIO_CONTROL);
	front_expire_arm(f, 1);
	*ret = f;
	return 0;
fail:
	front_free(f);
	return r;
}

struct front *
front_free(struct front *f)
{
	unsigned i;

	if (f == NULL)
		return NULL;
	/* The threads first: the stop eventfd ends a wait in poll(2), the
	 * condition variable one for a free slab. */
	for (i = 0; i < f->nsocks; i++) {
		struct front_sock *fs = &f->socks[i];
		const uint64_t one = 1;

		if (!fs->th_started)
			continue;
		pthread_mutex_lock(&fs->mu);
		atomic_store(&fs->stop, true);
		pthread_cond_broadcast(&fs->cv);
		pthread_mutex_unlock(&fs->mu);
		(void)write(f->stop_fd, &one, sizeof(one));
		pthread_join(fs->th, NULL);
	}
	/* What they received last is applied, and what is left of the
	 * loop's own slab. */
	if (f->threads > 0) {
		(void)front_threads_turn(f, SIZE_MAX);
	} else if (f->slab_fs != NULL) {
		size_t all = SIZE_MAX;

		(void)front_slab_apply(f, f->slab_fs, &f->slab, &all);
	}
	if (f->series != NULL)
		series_sync(f->series);
	for (i = 0; i < f->nsocks; i++) {
		struct front_sock *fs = &f->socks[i];
		unsigned j;

		if (fs->ev != NULL)
			event_free(fs->ev);
		close(fs->fd);
		if (fs->bound && f->unix_path != NULL)
			(void)unlink(f->unix_path);
		for (j = 0; j < FRONT_SLABS; j++)
			front_slab_done(&fs->slabs[j]);
		if (fs->mu_made) {
			pthread_mutex_destroy(&fs->mu);
			pthread_cond_destroy(&fs->cv);
		}
	}
	if (f->ev_wake != NULL)
		event_free(f->ev_wake);
	if (f->wake_fd >= 0)
		close(f->wake_fd);
	if (f->stop_fd >= 0)
		close(f->stop_fd);
	if (f->ev_expire != NULL)
		event_free(f->ev_expire);
	if (f->ev_more != NULL)
		event_free(f->ev_more);
	f->series = series_free(f->series);
	front_slab_done(&f->slab);
	free(f->unix_path);
	free(f);
	return NULL;
}

void
front_stat_values(const struct front *f, uint64_t *v)
{
	struct series_stats ss;
	unsigned i;

	if (f == NULL) {
		memset(v, 0, FS_NSTATS * sizeof(*v));
		return;
	}
	for (i = 0; i < FS_NSTATS; i++)
		v[i] = f->st[i];
	series_stats(f->series, &ss);
	v[FS_SERIES] = ss.series;
	v[FS_CREATED] = ss.created;
	v[FS_EXPIRED] = ss.expired;
}

uint64_t
front_datagrams(const struct front *f)
{
	return f != NULL ? f->st[FS_DATAGRAMS] : 0;
}
