/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_varlink.c: libFuzzer target for the control socket as a local
 * peer reaches it: the input is the bytes one connection sends, NUL-
 * framed varlink calls (or anything else), sent to a statsd started in
 * this process as main.c does (an event loop with its priorities and
 * fair turns, zones none, quotas, the registry, runtime files, the ring
 * journal, the state log and its persistence thread, statsd's own
 * templates and kstats, the drain, the control socket with the varlink
 * protocol and methods.c's method table; no datagram sockets, no HTTP),
 * connects to it with the credentials of uid 65534, sends the input,
 * shuts its side down and runs the loop until statsd has answered
 * everything and closed the connection. Replies are read and dropped;
 * descriptors statsd passes (SegmentAttach) are closed by the kernel, as
 * they are not asked for.
 *
 * Starting a statsd costs tens of milliseconds, so one serves input after
 * input for as long as they leave it as it started: an input that made
 * or deleted a kstat or template (the chain's kcid moved), set sample
 * rates, was root's or left its connection open stops it (everything is
 * freed, the scratch directories emptied) and the next input starts a
 * new one. Every input thus meets the same statsd, and a crash or leak
 * is reproduced by its input alone.
 *
 * So the framing (control.c), the JSON parse and envelope (varlink.c),
 * the parameter tables generated from io.statsd.varlink (vl_check.c), the
 * rights, the handlers' own checks, streams, pages and deferred calls,
 * and the error replies all see hostile input. Nothing may crash, leak
 * (LeakSanitizer), trip UBSan, or run unbounded (-timeout).
 *
 * The peer's uid is set on the connecting thread only, with the raw
 * setresuid(2)/setresgid(2) system calls (glibc's wrappers change every
 * thread), and set back once connected: SO_PEERCRED holds the effective
 * ids of the connect(2). Not running as root (or without the capability
 * to change ids), the target connects as itself, which statsd is told is
 * not its own uid. An input that starts with the byte 0xff (never the
 * start of a JSON text) connects as uid 0 instead, so that the
 * administrator's methods are reached too.
 *
 * The listening socket is in the abstract namespace (no file, no
 * permission to grant uid 65534) and is passed to control_new() as
 * systemd passes an activated one.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <event2/event.h>

#include "checkpoint.h"
#include "clock.h"
#include "config.h"
#include "control.h"
#include "daemon.h"
#include "drain.h"
#include "expo.h"
#include "journal.h"
#include "log.h"
#include "methods.h"
#include "mirror.h"
#include "pub.h"
#include "quota.h"
#include "registry.h"
#include "rview.h"
#include "series.h"
#include "sysks.h"
#include "turns.h"
#include "varlink.h"
#include "zones.h"

#define PEER_UID	65534
#define PEER_GID	65534
/* The loop's turns one input may take: every call of a 64 KiB input
 * answered many times over; a stream that waits on its interval_ms is
 * cut here. */
#define MAX_TURNS	20000

static char top[64], rt[96], st[96];
static struct sockaddr_un addr;
static socklen_t addrlen;
/* The statsd inputs are sent to, and its counts when it started. */
static struct statsd sd;
static bool sd_up;
static struct registry_stats sd_fresh;

static void statsd_down(void);

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Empty a directory tree (files and directories under dir). */
static void
clear_dir(const char *dir)
{
	char path[PATH_MAX];
	struct dirent *e;
	struct stat sb;
	DIR *d = opendir(dir);
	int n;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		n = snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (n < 0 || (size_t)n >= sizeof(path))
			continue;
		if (lstat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
			clear_dir(path);
			(void)rmdir(path);
		} else {
			(void)unlink(path);
		}
	}
	closedir(d);
}

static void
cleanup(void)
{
	clear_dir(top);
	(void)rmdir(top);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char base[] = "/dev/shm/fuzz_varlink.XXXXXX";

	(void)argc;
	(void)argv;
	/* tmpfs where there is one: PERSISTENT kstats and the state log
	 * are synced, which costs nothing there. */
	if (mkdtemp(base) == NULL) {
		static const char tmp[] = "/tmp/fuzz_varlink.XXXXXX";

		memcpy(base, tmp, sizeof(tmp));
		if (mkdtemp(base) == NULL)
			abort();
	}
	snprintf(top, sizeof(top), "%s", base);
	atexit(cleanup);
	/* Run before cleanup(): statsd stops, then its files go. */
	atexit(statsd_down);
	snprintf(rt, sizeof(rt), "%s/run", base);
	snprintf(st, sizeof(st), "%s/state", base);
	/* An abstract socket named after the scratch directory, so that
	 * targets run side by side do not meet. */
	memset(&addr, 0, sizeof(addr));
	addr.sun_family = AF_UNIX;
	snprintf(addr.sun_path + 1, sizeof(addr.sun_path) - 1, "statsd%s",
	    base);
	addrlen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
	    strlen(addr.sun_path + 1));
	signal(SIGPIPE, SIG_IGN);
	/* Only errors: every refused call logs. */
	log_set_level(LOG_LVL_ERROR);
	return 0;
}

/* Connect to statsd as uid, gid, if this thread may take them (root
 * with CAP_SETUID and CAP_SETGID), else as itself. Returns: the socket. */
static int
connect_as(uid_t uid, gid_t gid)
{
	bool gid_set = false, uid_set = false;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
	    0), r;

	if (fd < 0)
		abort();
	if (geteuid() == 0 && uid != 0) {
		gid_set = syscall(SYS_setresgid, -1, gid, -1) == 0;
		uid_set = gid_set && syscall(SYS_setresuid, -1, uid, -1) == 0;
	}
	r = connect(fd, (struct sockaddr *)&addr, addrlen);
	if ((uid_set && syscall(SYS_setresuid, -1, 0, -1) < 0) ||
	    (gid_set && syscall(SYS_setresgid, -1, 0, -1) < 0))
		abort();
	if (r < 0)
		abort();
	return fd;
}

struct client {
	int		 fd;
	const uint8_t	*data;
	size_t		 size, sent;
	bool		 eof;
};

/* Read and drop what statsd answers; send what is left of the input. */
static void
client_cb(evutil_socket_t fd, short what, void *arg)
{
	struct client *cl = arg;
	char buf[65536];
	ssize_t n;

	if (what & EV_READ) {
		n = read(fd, buf, sizeof(buf));
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			cl->eof = true;
	}
	if ((what & EV_WRITE) && cl->sent < cl->size) {
		n = send(fd, cl->data + cl->sent, cl->size - cl->sent,
		    MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n > 0)
			cl->sent += (size_t)n;
		else if (n < 0 && errno != EAGAIN && errno != EINTR)
			cl->sent = cl->size;	/* statsd closed on us */
		if (cl->sent == cl->size)
			(void)shutdown(fd, SHUT_WR);
	}
}

/* Start statsd as main.c's run() does, on lfd. */
static void
statsd_start(struct statsd *d, int lfd)
{
	memset(d, 0, sizeof(*d));
	if (config_defaults(&d->cfg) < 0)
		abort();
	/* A small statsd: each input starts one. */
	d->cfg.zones = ZONE_KIND_NONE;
	d->cfg.max_kstats = 64;
	d->cfg.arena_size = 1 << 20;
	d->cfg.private_arena_size = 1 << 20;
	d->methods = &statsd_methods;
	d->runtime_dir = strdup(rt);
	d->state_dir = strdup(st);
	d->socket_path = strdup(addr.sun_path + 1);
	d->sample_rates = strdup("");
	if (d->runtime_dir == NULL || d->state_dir == NULL ||
	    d->socket_path == NULL || d->sample_rates == NULL)
		abort();
	if (mkdir(rt, 0755) < 0 || mkdir(st, 0750) < 0)
		abort();
	d->base = event_base_new();
	if (d->base == NULL || event_base_priority_init(d->base,
	    PRIO_NUM) < 0 || turns_new(d->base, PRIO_CONTROL, &d->turns) < 0)
		abort();
	d->start_ns = clock_now_ns();
	/* Not the uid that connects: running as root, uid 0 is privileged
	 * anyway; as another user, the peer is that user. */
	d->self_uid = 0;
	/* No reader thread: what is retired waits for statsd_stop(). */
	if (zones_new(ZONE_KIND_NONE, NULL, &d->zones) < 0 ||
	    pub_new(&d->pub) < 0 ||
	    quota_new(d, &d->quota) < 0 || registry_new(d, &d->reg) < 0 ||
	    rview_new(d->pub, &d->expo_rv) < 0 ||
	    mirror_dir_make(d->runtime_dir, &d->persist_dir) < 0)
		abort();
	d->journal = journal_open(d->persist_dir);
	if (d->journal == NULL || checkpoint_new(d, &d->checkpoint) < 0 ||
	    series_templates(d, NULL) < 0 ||
	    checkpoint_load(d->checkpoint) < 0 ||
	    sysks_kstat_types(d) < 0 || drain_new(d, &d->drain) < 0 ||
	    control_new(d, &varlink_conn_events, &lfd, 1, &d->control) < 0)
		abort();
}

/* Stop as main.c's run() does, and leave nothing on disk. */
static void
statsd_stop(struct statsd *d)
{
	if (d->drain != NULL)
		drain_all(d->drain);
	(void)checkpoint_write(d->checkpoint);
	d->expo_rv = rview_free(d->expo_rv);
	d->control = control_free(d->control);
	d->drain = drain_free(d->drain);
	d->checkpoint = checkpoint_free(d->checkpoint);
	d->journal = journal_free(d->journal);
	d->reg = registry_free(d->reg);
	d->pub = pub_free(d->pub);
	d->quota = quota_free(d->quota);
	d->zones = zones_free(d->zones);
	d->turns = turns_free(d->turns);
	event_base_free(d->base);
	config_done(&d->cfg);
	free(d->runtime_dir);
	free(d->state_dir);
	free(d->persist_dir);
	free(d->socket_path);
	free(d->sample_rates);
	clear_dir(top);
}

/* Start statsd, listening on an abstract socket. */
static void
statsd_up(void)
{
	int lfd;

	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&addr, addrlen) < 0 ||
	    listen(lfd, 4) < 0)
		abort();
	statsd_start(&sd, lfd);
	registry_stats(sd.reg, &sd_fresh);
	sd_up = true;
}

static void
statsd_down(void)
{
	if (!sd_up)
		return;
	statsd_stop(&sd);
	sd_up = false;
}

/* Is statsd as it started: no kstat, template or segment made or
 * deleted (each moves the chain's kcid), no sample rate set? */
static bool
statsd_fresh(void)
{
	struct registry_stats rs;

	registry_stats(sd.reg, &rs);
	return rs.kstats == sd_fresh.kstats &&
	    rs.dormant == sd_fresh.dormant &&
	    rs.templates == sd_fresh.templates &&
	    rs.kcid == sd_fresh.kcid && rs.segments == sd_fresh.segments &&
	    sd.sample_rates[0] == '\0';
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct client cl = { .fd = -1 };
	struct event *ev;
	bool root = size > 0 && data[0] == 0xff;
	int turns;

	if (!sd_up)
		statsd_up();
	cl.fd = connect_as(root ? 0 : PEER_UID, root ? 0 : PEER_GID);
	cl.data = data + (root ? 1 : 0);
	cl.size = size - (root ? 1 : 0);
	if (cl.size == 0)
		(void)shutdown(cl.fd, SHUT_WR);
	ev = event_new(sd.base, cl.fd, EV_READ | EV_WRITE | EV_PERSIST,
	    client_cb, &cl);
	if (ev == NULL || event_add(ev, NULL) < 0)
		abort();
	/* Until statsd closes the connection (it does once the input is
	 * answered), or a stream waits on its interval past MAX_TURNS. */
	for (turns = 0; !cl.eof && turns < MAX_TURNS; turns++) {
		if (cl.sent == cl.size && event_pending(ev, EV_WRITE, NULL)) {
			event_del(ev);
			event_assign(ev, sd.base, cl.fd, EV_READ | EV_PERSIST,
			    client_cb, &cl);
			event_add(ev, NULL);
		}
		if (event_base_loop(sd.base, EVLOOP_ONCE | EVLOOP_NONBLOCK) < 0)
			abort();
		drain_after_turn(sd.drain);
	}
	event_free(ev);
	close(cl.fd);
	/* The connection's close is seen, and its state goes. */
	for (turns = 0; control_nconns(sd.control) > 0 && turns < MAX_TURNS;
	    turns++)
		if (event_base_loop(sd.base, EVLOOP_ONCE | EVLOOP_NONBLOCK) < 0)
			abort();
	/* The next input starts from the same statsd: one that changed
	 * anything (or was root's) is stopped, and the next starts anew. */
	if (root || control_nconns(sd.control) > 0 || !statsd_fresh())
		statsd_down();
	return 0;
}
