/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * main.c: statsd's command line, start-up and shutdown — paths, the
 * config, the runtime directory's lock, socket activation, signals
 * (SIGTERM/SIGINT stop, SIGHUP reloads), sd_notify (READY, STATUS,
 * RELOADING, STOPPING) and the watchdog.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <jansson.h>
#include <systemd/sd-daemon.h>

#include "checkpoint.h"
#include "config.h"
#include "control.h"
#include "crashpoint.h"
#include "daemon.h"
#include "expo.h"
#include "filer.h"
#include "http.h"
#include "drain.h"
#include "engine.h"
#include "front.h"
#include "journal.h"
#include "log.h"
#include "methods.h"
#include "mirror.h"
#include "pub.h"
#include "quota.h"
#include "registry.h"
#include "rights.h"
#include "rthread.h"
#include "rview.h"
#include "series.h"
#include "sysks.h"
#include "varlink.h"
#include "turns.h"
#include "zones.h"

#ifndef STATSD_VERSION
#define STATSD_VERSION "0"
#endif
#ifndef STATSD_SYSCONFDIR
#define STATSD_SYSCONFDIR "/etc"
#endif

#define STATUS_PERIOD_S	5

struct opts {
	bool		 foreground;
	bool		 check_config;
	bool		 print_config;
	bool		 dump_methods;
	bool		 config_mdoc;
	const char	*config;
	const char	*runtime_dir;
	const char	*state_dir;
	const char	*socket;
	const char	*http_listen;
	const char	*statsd_udp;
	const char	*statsd_unix;
};

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: statsd [--foreground] [--config FILE] [--runtime-dir DIR]\n"
	    "              [--state-dir DIR] [--socket PATH] [--check-config]\n"
	    "              [--http-listen ADDR:PORT]\n"
	    "              [--statsd-udp ADDR:PORT] [--statsd-unix PATH]\n"
	    "       statsd --print-config | --version | --help\n");
}

static int
parse_args(int argc, char **argv, struct opts *o)
{
	enum { O_DUMP = 256, O_MDOC, O_PRINT, O_VERSION, O_HTTP, O_UDP,
	    O_UNIX };
	static const struct option lo[] = {
		{ "foreground", no_argument, NULL, 'f' },
		{ "config", required_argument, NULL, 'c' },
		{ "runtime-dir", required_argument, NULL, 'r' },
		{ "state-dir", required_argument, NULL, 's' },
		{ "socket", required_argument, NULL, 'S' },
		{ "check-config", no_argument, NULL, 'n' },
		{ "http-listen", required_argument, NULL, O_HTTP },
		{ "statsd-udp", required_argument, NULL, O_UDP },
		{ "statsd-unix", required_argument, NULL, O_UNIX },
		{ "print-config", no_argument, NULL, O_PRINT },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, O_VERSION },
		/* For the build's tests and the man page. */
		{ "dump-methods", no_argument, NULL, O_DUMP },
		{ "config-mdoc", no_argument, NULL, O_MDOC },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	while ((c = getopt_long(argc, argv, "fc:r:s:S:nh", lo, NULL)) != -1) {
		switch (c) {
		case 'f': o->foreground = true; break;
		case 'c': o->config = optarg; break;
		case 'r': o->runtime_dir = optarg; break;
		case 's': o->state_dir = optarg; break;
		case 'S': o->socket = optarg; break;
		case 'n': o->check_config = true; break;
		case O_PRINT: o->print_config = true; break;
		case O_HTTP: o->http_listen = optarg; break;
		case O_UDP: o->statsd_udp = optarg; break;
		case O_UNIX: o->statsd_unix = optarg; break;
		case O_DUMP: o->dump_methods = true; break;
		case O_MDOC: o->config_mdoc = true; break;
		case 'h': usage(stdout); exit(0);
		case O_VERSION: printf("statsd %s\n", STATSD_VERSION); exit(0);
		default: usage(stderr); return -1;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return -1;
	}
	return 0;
}

/* The first of a colon-separated list, as systemd sets $*_DIRECTORY. */
static char *
first_dir(const char *opt, const char *env, const char *def)
{
	const char *v = opt != NULL ? opt : getenv(env);
	size_t n;

	if (v == NULL || v[0] == '\0')
		v = def;
	n = opt != NULL ? strlen(v) : strcspn(v, ":");
	return strndup(v, n);
}

static int
mkdir_p(const char *path, mode_t mode)
{
	char buf[PATH_MAX], *p;

	if (strlen(path) >= sizeof(buf))
		return -ENAMETOOLONG;
	strcpy(buf, path);
	for (p = buf + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, mode) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

/* The options that override keys of the file (at start and on every
 * reload, as --socket does). Returns: 0; -ENOMEM. */
static int
config_options(const struct statsd *d, struct config *c)
{
	const char *v[2] = { d->opt_statsd_udp, d->opt_statsd_unix };
	char **f[2] = { &c->statsd_udp, &c->statsd_unix };
	int i;

	for (i = 0; i < 2; i++) {
		char *dup;

		if (v[i] == NULL)
			continue;
		dup = strdup(v[i]);
		if (dup == NULL)
			return -ENOMEM;
		free(*f[i]);
		*f[i] = dup;
	}
	return 0;
}

/* ------------------------------------------------------------ signals */

/* What the STATUS= line says; it is sent again only when this changed. */
struct status_key {
	unsigned	clients, rings;
	uint64_t	kstats;
	bool		refused;	/* PERSISTENT kstats refused */
};

struct mainloop {
	struct statsd	*d;
	struct event	*ev_term, *ev_int, *ev_hup;
	struct event	*ev_reclaim;	/* what readers let go of: freed */
	struct event	*ev_watchdog, *ev_status;
	struct timeval	 watchdog_tv;
	struct status_key status;	/* as last sent */
	uint64_t	 dgrams, kstats;	/* as the last turn left them */
};

static void
status_now(struct statsd *d, struct status_key *k)
{
	struct registry_stats rs;

	registry_stats(d->reg, &rs);
	k->clients = control_nconns(d->control);
	k->rings = drain_rings(d->drain);
	k->kstats = rs.kstats;
	k->refused = !checkpoint_status(d->checkpoint, NULL);
}

static bool
status_same(const struct status_key *a, const struct status_key *b)
{
	return a->clients == b->clients && a->rings == b->rings &&
	    a->kstats == b->kstats && a->refused == b->refused;
}

static void
notify_status(struct mainloop *ml)
{
	struct status_key *k = &ml->status;
	const char *why = "";

	status_now(ml->d, k);
	/* An unusable state directory is said wherever statsd reports. */
	(void)checkpoint_status(ml->d->checkpoint, &why);
	sd_notifyf(0, "STATUS=serving %u clients, %llu kstats, %u rings%s%s",
	    k->clients, (unsigned long long)k->kstats, k->rings,
	    why[0] != '\0' ? "; PERSISTENT kstats refused: " : "", why);
}

static void
on_stop(evutil_socket_t sig, short what, void *arg)
{
	struct mainloop *ml = arg;

	(void)what;
	log_info("signal %d: stopping", (int)sig);
	sd_notify(0, "STOPPING=1\nSTATUS=stopping");
	ml->d->stopping = true;
	event_base_loopbreak(ml->d->base);
}

static void
on_reload(evutil_socket_t sig, short what, void *arg)
{
	struct mainloop *ml = arg;
	struct statsd *d = ml->d;
	struct input_error err;
	struct config n;
	char kept[512], msg[600];

	(void)sig;
	(void)what;
	sd_notifyf(0, "RELOADING=1\nSTATUS=reloading\nMONOTONIC_USEC=%llu",
	    (unsigned long long)(clock_now_ns() / 1000));
	if (config_load(d->config_path, d->config_required, &n, &err) < 0) {
		config_error_format(&err, msg, sizeof(msg));
		log_error("reload refused, configuration kept: %s", msg);
	} else if (config_options(d, &n) < 0) {
		config_done(&n);
		log_error("reload refused, configuration kept: out of memory");
	} else {
		if (config_reload_apply(&d->cfg, &n, kept, sizeof(kept)) > 0)
			log_warning("reload: %s need a restart; their old "
			    "values stay", kept);
		config_done(&n);
		log_set_level(d->cfg.log_level);
		rights_admin_group_update(d);
		control_reload(d->control);
		drain_reload(d->drain);
		if (http_reconfigure(d) < 0)
			log_warning("reload: the HTTP endpoint keeps its old "
			    "settings: out of memory");
		log_info("configuration reloaded");
	}
	sd_notify(0, "READY=1");
	notify_status(ml);
}

/* How soon what was retired is looked at again (pub.h): reader
 * sections last a page, so a few of these free it. Armed only while
 * something waits: an idle statsd makes no such wake-up. */
#define RECLAIM_US	20000

static void
on_reclaim(evutil_socket_t fd, short what, void *arg)
{
	struct mainloop *ml = arg;
	struct timeval tv = { 0, RECLAIM_US };

	(void)fd;
	(void)what;
	if (pub_reclaim(ml->d->pub) > 0)
		event_add(ml->ev_reclaim, &tv);
}

/* Something was retired with nothing waiting: look again soon. */
static void
reclaim_wake(void *arg)
{
	struct mainloop *ml = arg;
	struct timeval tv = { 0, RECLAIM_US };

	if (ml->ev_reclaim != NULL && !evtimer_pending(ml->ev_reclaim, NULL))
		event_add(ml->ev_reclaim, &tv);
}

static void
on_watchdog(evutil_socket_t fd, short what, void *arg)
{
	struct mainloop *ml = arg;

	(void)fd;
	(void)what;
	sd_notify(0, "WATCHDOG=1");
	event_add(ml->ev_watchdog, &ml->watchdog_tv);
}

static void
on_status(evutil_socket_t fd, short what, void *arg)
{
	struct mainloop *ml = arg;

	(void)fd;
	(void)what;
	notify_status(ml);
}

/*
 * After each turn of the event loop: the timers that run only while
 * there is something to do. An idle statsd (no client, no ring, no
 * series, nothing changed) has none running, so it sleeps until a peer
 * comes or systemd's watchdog is due: each of them is started again here,
 * after the turn that gave it work.
 *   - the drain's tick, while rings exist or the self kstat changes;
 *   - the checkpoint's pass, while clients are connected or datagrams
 *     come or kstats come and go (series expire): what may change
 *     PERSISTENT kstats (one more pass follows the last of them);
 *   - STATUS=, STATUS_PERIOD_S after what it says changed.
 */
static void
after_turn(struct mainloop *ml)
{
	struct statsd *d = ml->d;
	struct registry_stats rs;
	struct status_key k;
	uint64_t dgrams = front_datagrams(d->front);

	drain_after_turn(d->drain);
	registry_stats(d->reg, &rs);
	if (control_nconns(d->control) > 0 || dgrams != ml->dgrams ||
	    rs.kstats != ml->kstats)
		checkpoint_tick_wake(d->checkpoint);
	ml->dgrams = dgrams;
	ml->kstats = rs.kstats;
	if (!event_pending(ml->ev_status, EV_TIMEOUT, NULL)) {
		status_now(d, &k);
		if (!status_same(&k, &ml->status)) {
			struct timeval tv = { STATUS_PERIOD_S, 0 };

			event_add(ml->ev_status, &tv);
		}
	}
}

/* --------------------------------------------------------------- start */

/* Socket activation: the listening Unix stream sockets systemd passed
 * (control), a TCP one for the HTTP endpoint (*ret_http, else -1), and
 * its datagram sockets (the statsd front door, *ret_dg and *ret_ndg). */
static int
listen_fds(int **ret, int *ret_http, int **ret_dg, size_t *ret_ndg)
{
	int n, i, k = 0, *fds, *dg;

	*ret = NULL;
	*ret_dg = NULL;
	*ret_ndg = 0;
	n = sd_listen_fds(1);
	if (n < 0) {
		log_error("sd_listen_fds: %s", strerror(-n));
		return n;
	}
	if (n == 0)
		return 0;
	fds = calloc((size_t)n, sizeof(*fds));
	dg = calloc((size_t)n, sizeof(*dg));
	if (fds == NULL || dg == NULL) {
		free(fds);
		free(dg);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		int fd = SD_LISTEN_FDS_START + i;

		if (sd_is_socket_unix(fd, SOCK_STREAM, 1, NULL, 0) > 0) {
			fds[k++] = fd;
		} else if (*ret_http < 0 && sd_is_socket_inet(fd, AF_UNSPEC,
		    SOCK_STREAM, 1, 0) > 0) {
			*ret_http = fd;
		} else if (sd_is_socket(fd, AF_UNSPEC, SOCK_DGRAM, -1) > 0) {
			dg[(*ret_ndg)++] = fd;
		} else {
			log_warning("passed descriptor %d is not a listening "
			    "Unix stream or TCP socket, nor a datagram "
			    "socket; ignored", fd);
			close(fd);
		}
	}
	*ret = fds;
	*ret_dg = dg;
	return k;
}

static int
lock_runtime(const char *dir)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/statsd.lock", dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		log_error("cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		log_error("another statsd runs on %s", dir);
		close(fd);
		return -1;
	}
	return fd;
}

/* Fork into the background; the parent exits once the child says it is
 * ready (a byte on the pipe), so `statsd && client` works. */
static int
daemonize(int *ret_wfd)
{
	int p[2], devnull;
	pid_t pid;
	char c;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid > 0) {
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(1);
		_exit(0);
	}
	close(p[0]);
	if (setsid() < 0)
		return -errno;
	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (devnull >= 0) {
		dup2(devnull, 0);
		dup2(devnull, 1);
		dup2(devnull, 2);
		if (devnull > 2)
			close(devnull);
	}
	log_to_syslog();
	*ret_wfd = p[1];
	return 0;
}

/*
 * statsd's scheduling priority (statsd.conf nice), set before any thread
 * starts: Linux keeps a nice value per thread, and a new thread takes its
 * creator's. Without the privilege to raise it, statsd runs at the nice
 * it was given, and says so.
 */
static void
set_nice(int nice)
{
	int cur;

	errno = 0;
	cur = getpriority(PRIO_PROCESS, 0);
	if (errno == 0 && cur == nice)
		return;
	if (setpriority(PRIO_PROCESS, 0, nice) < 0)
		log_notice("nice = %d: %s; statsd keeps nice %d", nice,
		    strerror(errno), cur);
}

/*
 * Raise the soft limit on descriptors to the hard one. statsd holds one
 * for every connection (max_connections, 1024 by default), every HTTP
 * scrape, every ring and its eventfd and every PERSISTENT kstat's file,
 * and systemd starts services with a soft limit of 1024: a crowd of
 * peers would otherwise run statsd out of descriptors below its own
 * quotas. statsd uses epoll, never select(2), so descriptors above 1023
 * are safe, which is the case systemd.exec(5) leaves the raise to the
 * program for (its hard limit is 524288).
 */
static void
raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		log_notice("cannot raise the descriptor limit to %llu: %s",
		    (unsigned long long)rl.rlim_max, strerror(errno));
}

/* statsd's own kstat's view of the control socket and the front door
 * (struct self_feed): the drain writes the kstat but calls neither. */
static void
main_self_values(const struct statsd *d, uint64_t *clients, uint64_t *v,
    unsigned max)
{
	*clients = control_nconns(d->control);
	if (front_nstats <= max)
		front_stat_values(d->front, v);
}

static int
run(struct statsd *d, bool foreground)
{
	struct mainloop ml = { .d = d };
	struct event_config *ecfg;
	uint64_t wd_usec = 0;
	const char *why = "", *zwhy;
	int *lfds = NULL, *dfds = NULL, nl, lockfd, r, ready_fd = -1;
	int http_fd = -1, e;
	size_t ndfds = 0;

	if (!foreground && daemonize(&ready_fd) < 0) {
		log_error("cannot go to the background: %s", strerror(errno));
		return 1;
	}
	if (mkdir_p(d->runtime_dir, 0755) < 0) {
		log_error("cannot create %s: %s", d->runtime_dir,
		    strerror(errno));
		return 1;
	}
	/* An unusable state directory does not stop statsd: it runs
	 * without keeping PERSISTENT kstats, and says so (checkpoint.h). */
	if (mkdir_p(d->state_dir, 0750) < 0)
		log_error("cannot create the state directory %s: %s",
		    d->state_dir, strerror(errno));
	lockfd = lock_runtime(d->runtime_dir);
	if (lockfd < 0)
		return 1;
	set_nice(d->cfg.nice);
	raise_nofile();
	crashpoint_init();
	signal(SIGPIPE, SIG_IGN);
	ecfg = event_config_new();
	if (ecfg == NULL)
		return 1;
	d->base = event_base_new_with_config(ecfg);
	event_config_free(ecfg);
	if (d->base == NULL || event_base_priority_init(d->base,
	    PRIO_NUM) < 0) {
		log_error("cannot set up the event loop");
		return 1;
	}
	if (turns_new(d->base, PRIO_CONTROL, &d->turns) < 0) {
		log_error("cannot set up the event loop");
		return 1;
	}
	d->start_ns = clock_now_ns();
	d->self_uid = geteuid();
	d->self_feed = (struct self_feed){ front_stat_names, front_nstats,
	    main_self_values };
	rights_admin_group_update(d);
	r = zones_new((enum zone_kind)d->cfg.zones, d->cfg.zone_cgroups,
	    &d->zones);
	if (r < 0) {
		if (d->cfg.zones == ZONE_KIND_CGROUP)
			log_error("zones = cgroup: %s; set zones = none on a "
			    "host without containers", r == -ENOENT ?
			    "/proc/self/cgroup has no cgroup v2 (0::) line, "
			    "nor a name=systemd one, to tell containers by" :
			    strerror(-r));
		else
			log_error("zones = %s: cannot open statsd's own "
			    "namespace: %s", zone_kind_names[d->cfg.zones],
			    strerror(-r));
		goto out;
	}
	zwhy = zones_may_look(d->zones);
	if (zwhy != NULL)
		log_warning("zones = %s: %s, so peers of other users will be "
		    "refused; set zones = none for a host without containers",
		    zone_kind_names[d->cfg.zones], zwhy);
	ml.ev_reclaim = evtimer_new(d->base, on_reclaim, &ml);
	r = ml.ev_reclaim != NULL ? 0 : -ENOMEM;
	if (r == 0)
		r = pub_new(&d->pub);
	if (r == 0) {
		pub_set_wake(d->pub, reclaim_wake, &ml);
		r = quota_new(d, &d->quota);
	}
	if (r == 0)
		r = registry_new(d, &d->reg);
	if (r == 0)
		r = rview_new(d->pub, &d->expo_rv);
	/* Without its reader threads, statsd reads in the loop. */
	if (r == 0 && (e = rthread_start(d->base, d->pub,
	    d->cfg.reader_threads, &d->rthread)) < 0)
		log_warning("no reader threads (%s): reads run in the event "
		    "loop", strerror(-e));
	/* Without the runtime files' directory (a full runtime directory),
	 * PERSISTENT kstats are refused and restored ones run without
	 * their files; mirror_dir_make() logged why. */
	if (r == 0 && mirror_dir_make(d->runtime_dir, &d->persist_dir) == 0)
		d->journal = journal_open(d->persist_dir);
	/* The runtime files are made and deleted off the loop; without the
	 * thread, in it. */
	if (r == 0 && d->persist_dir != NULL) {
		if ((e = filer_new(d->base, d->persist_dir, &d->filer)) < 0)
			log_warning("no runtime files' thread (%s): PERSISTENT "
			    "kstats' files are made in the event loop",
			    strerror(-e));
		else
			mirror_unlink_by(filer_unlink_cb, d->filer);
	}
	if (r == 0)
		r = checkpoint_new(d, &d->checkpoint);
	/* The statsd series' templates first: PERSISTENT series in the
	 * checkpoint are made of them. */
	if (r == 0)
		r = series_templates(d, NULL);
	if (r == 0)
		r = checkpoint_load(d->checkpoint);
	if (r == 0)
		r = sysks_kstat_types(d);
	if (r == 0)
		r = drain_new(d, &d->drain);
	if (r < 0)
		goto out;
	nl = listen_fds(&lfds, &http_fd, &dfds, &ndfds);
	if (nl < 0) {
		r = nl;
		goto out;
	}
	r = control_new(d, &varlink_conn_events, lfds, (size_t)nl,
	    &d->control);
	free(lfds);
	if (r == 0)
		r = front_new(d, dfds, ndfds, &d->front);
	free(dfds);
	/* An endpoint that cannot listen is logged; statsd serves its
	 * clients without it. */
	if (r == 0)
		(void)http_start(d, http_fd);
	if (r < 0)
		goto out;
	ml.ev_term = evsignal_new(d->base, SIGTERM, on_stop, &ml);
	ml.ev_int = evsignal_new(d->base, SIGINT, on_stop, &ml);
	ml.ev_hup = evsignal_new(d->base, SIGHUP, on_reload, &ml);
	ml.ev_status = evtimer_new(d->base, on_status, &ml);
	ml.ev_watchdog = evtimer_new(d->base, on_watchdog, &ml);
	if (ml.ev_term == NULL || ml.ev_int == NULL || ml.ev_hup == NULL ||
	    ml.ev_status == NULL || ml.ev_watchdog == NULL) {
		r = -ENOMEM;
		goto out;
	}
	event_add(ml.ev_term, NULL);
	event_add(ml.ev_int, NULL);
	event_add(ml.ev_hup, NULL);
	event_priority_set(ml.ev_status, PRIO_CONTROL);
	/* The watchdog is pinged at half its period from the control
	 * priority: a loop that stops serving control stops pinging. */
	if (sd_watchdog_enabled(0, &wd_usec) > 0 && wd_usec > 0) {
		uint64_t half = wd_usec / 2;

		ml.watchdog_tv.tv_sec = (time_t)(half / 1000000);
		ml.watchdog_tv.tv_usec = (suseconds_t)(half % 1000000);
		event_priority_set(ml.ev_watchdog, PRIO_CONTROL);
		event_add(ml.ev_watchdog, &ml.watchdog_tv);
		sd_notify(0, "WATCHDOG=1");
	}
	if (!checkpoint_status(d->checkpoint, &why))
		log_error("the state directory %s is unusable (%s): statsd "
		    "runs, but refuses PERSISTENT kstats until it can write "
		    "there", d->state_dir, why);
	log_info("statsd %s ready on %s (runtime %s, state %s)",
	    STATSD_VERSION, nl > 0 ? "activated sockets" : d->socket_path,
	    d->runtime_dir, d->state_dir);
	sd_notify(0, "READY=1");
	notify_status(&ml);
	if (ready_fd >= 0) {
		(void)write(ready_fd, "", 1);
		close(ready_fd);
	}
	/* A turn at a time (EVLOOP_ONCE: until every active event ran), so
	 * that after_turn() sees what each turn changed. */
	while (!d->stopping && event_base_loop(d->base, EVLOOP_ONCE) == 0)
		after_turn(&ml);
	r = 0;
out:
	/* Everything in the rings and the datagram sockets' threads goes
	 * into the blobs, the blobs into the checkpoint, before anything
	 * else is freed. */
	d->front = front_free(d->front);
	if (d->drain != NULL)
		drain_all(d->drain);
	if (d->checkpoint != NULL && d->reg != NULL)
		(void)checkpoint_write(d->checkpoint);
	http_stop(d);
	/* Pages it still renders come back to calls that wait for them. */
	d->rthread = rthread_stop(d->rthread);
	/* Files still being made come back to the creates that wait for
	 * them; what is queued to delete is deleted. */
	d->filer = filer_free(d->filer);
	mirror_unlink_by(NULL, NULL);
	d->expo_rv = rview_free(d->expo_rv);
	d->control = control_free(d->control);
	d->drain = drain_free(d->drain);
	d->checkpoint = checkpoint_free(d->checkpoint);
	d->journal = journal_free(d->journal);
	d->reg = registry_free(d->reg);
	/* No reader is left: everything retired goes. */
	d->pub = pub_free(d->pub);
	d->quota = quota_free(d->quota);
	d->zones = zones_free(d->zones);
	if (d->turns != NULL) {
		struct turns_stats tst;

		/* What the loop's turns took, for tests and operators to
		 * read: the longest is wall time (a loaded machine's too). */
		turns_stats(d->turns, &tst);
		log_info("turns: %llu in %llu rounds, %llu taken at once, "
		    "the longest %.1f ms; "
		    "%llu reads the reader thread left to the loop",
		    (unsigned long long)tst.turns,
		    (unsigned long long)tst.rounds,
		    (unsigned long long)tst.at_once,
		    (double)tst.longest_ns / 1e6,
		    (unsigned long long)d->reads_here);
	}
	d->turns = turns_free(d->turns);
	if (ml.ev_term != NULL)
		event_free(ml.ev_term);
	if (ml.ev_int != NULL)
		event_free(ml.ev_int);
	if (ml.ev_hup != NULL)
		event_free(ml.ev_hup);
	if (ml.ev_status != NULL)
		event_free(ml.ev_status);
	if (ml.ev_watchdog != NULL)
		event_free(ml.ev_watchdog);
	if (ml.ev_reclaim != NULL)
		event_free(ml.ev_reclaim);
	event_base_free(d->base);
	close(lockfd);
	if (r < 0) {
		log_error("start-up failed: %s", strerror(-r));
		return 1;
	}
	log_info("stopped");
	return 0;
}

int
main(int argc, char **argv)
{
	static struct statsd d;
	struct input_error err;
	char msg[600], defconf[PATH_MAX];
	struct opts o;
	int rc;

	if (parse_args(argc, argv, &o) < 0)
		return 2;
#ifdef M_MMAP_THRESHOLD
	/*
	 * A page of a read is a few hundred KiB of text, made and freed a
	 * few times a page. Past glibc's threshold each buffer was a fresh
	 * mmap(2), faulted in page by page and unmapped again: a sixth of
	 * a varlink Scrape's CPU. Buffers up to 4 MiB come from the heap,
	 * and up to 16 MiB of free heap is kept for the next page.
	 */
	(void)mallopt(M_MMAP_THRESHOLD, 4 << 20);
	(void)mallopt(M_TRIM_THRESHOLD, 16 << 20);
#endif
	if (o.dump_methods) {
		varlink_dump_tables(stdout, &statsd_methods);
		return 0;
	}
	d.methods = &statsd_methods;
	if (o.config_mdoc) {
		config_print_mdoc(stdout);
		return 0;
	}
	snprintf(defconf, sizeof(defconf), "%s/statsd/statsd.conf",
	    STATSD_SYSCONFDIR);
	d.config_path = o.config != NULL ? o.config : defconf;
	d.config_required = o.config != NULL;
	if (config_load(d.config_path, d.config_required, &d.cfg, &err) < 0) {
		config_error_format(&err, msg, sizeof(msg));
		fprintf(stderr, "statsd: %s\n", msg);
		return 1;
	}
	if (o.http_listen != NULL) {
		/* Checked as the key's value; kept apart from the file's
		 * settings, as --socket is, so that a reload compares the
		 * file with the file. */
		struct config scratch;

		rc = config_defaults(&scratch);
		if (rc == 0)
			rc = config_set(&scratch, "http_listen", o.http_listen,
			    msg, sizeof(msg));
		config_done(&scratch);
		if (rc < 0) {
			fprintf(stderr, "statsd: --http-listen %s: %s\n",
			    o.http_listen, msg);
			config_done(&d.cfg);
			return 2;
		}
		d.http_listen = o.http_listen;
	}
	d.opt_statsd_udp = o.statsd_udp;
	d.opt_statsd_unix = o.statsd_unix;
	if (config_options(&d, &d.cfg) < 0) {
		fprintf(stderr, "statsd: out of memory\n");
		return 1;
	}
	if (o.check_config || o.print_config) {
		if (o.check_config)
			fprintf(stderr, "statsd: %s: configuration OK\n",
			    access(d.config_path, F_OK) == 0 ?
			    d.config_path : "built-in defaults");
		config_print(stdout, &d.cfg);
		config_done(&d.cfg);
		return 0;
	}
	log_set_level(d.cfg.log_level);
	d.runtime_dir = first_dir(o.runtime_dir, "RUNTIME_DIRECTORY",
	    "/run/statsd");
	d.state_dir = first_dir(o.state_dir, "STATE_DIRECTORY",
	    "/var/lib/statsd");
	if (o.socket != NULL)
		d.socket_path = strdup(o.socket);
	else if (d.cfg.socket[0] != '\0')
		d.socket_path = strdup(d.cfg.socket);
	else if (d.runtime_dir != NULL &&
	    asprintf(&d.socket_path, "%s/statsd.sock", d.runtime_dir) < 0)
		d.socket_path = NULL;
	d.sample_rates = strdup("");
	if (d.runtime_dir == NULL || d.state_dir == NULL ||
	    d.socket_path == NULL || d.sample_rates == NULL) {
		fprintf(stderr, "statsd: out of memory\n");
		return 1;
	}
	rc = run(&d, o.foreground);
	config_done(&d.cfg);
	free(d.runtime_dir);
	free(d.state_dir);
	free(d.persist_dir);
	free(d.socket_path);
	free(d.sample_rates);
	return rc;
}
