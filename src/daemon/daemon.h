/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * daemon.h: the one context every part of statsd shares — configuration,
 * paths, the event loop and the modules' handles — and the event
 * priorities. main.c owns it; the modules borrow it.
 */
#ifndef STATSD_DAEMON_DAEMON_H
#define STATSD_DAEMON_DAEMON_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "config.h"

/* libevent priorities: lower runs first. Ring wakeups and the drain tick
 * beat control traffic; backlog passes share a priority with it so that
 * neither starves the other. */
#define PRIO_DRAIN	0
#define PRIO_CONTROL	1
#define PRIO_NUM	2

#define STATSD_PROTOCOL	1

struct event_base;
struct conn;
struct control;
struct registry;
struct drain;
struct journal;
struct checkpoint;
struct pub;
struct rthread;
struct rview;
struct http;
struct quota;
struct zones;
struct front;
struct vl_methods;
struct turns;

/* What every exposition counted (expo.h), from any thread. */
struct expo_totals {
	_Atomic uint64_t	scrapes;
	_Atomic uint64_t	skipped;	/* kstats not renderable */
	_Atomic uint64_t	conflicts;	/* series names met twice */
};

/*
 * What statsd's own kstat shows of the modules above the drain, which the
 * drain may not call (tests/build/layers.py): the control socket's
 * connections and the front door's counters. main.c fills it before the
 * drain starts.
 */
struct statsd;
struct self_feed {
	const char *const *names;	/* the front door's counters */
	unsigned	   n;
	/* The connections now, and the n counters into v, which has room
	 * for max (none are written if n > max). */
	void		 (*values)(const struct statsd *d, uint64_t *clients,
			    uint64_t *v, unsigned max);
};

struct statsd {
	struct config	 cfg;
	const char	*config_path;	/* NULL: built-in defaults */
	bool		 config_required;
	char		*runtime_dir;
	char		*state_dir;
	char		*persist_dir;	/* runtime files, ring journal */
	char		*socket_path;
	bool		 socket_from_cli;
	const char	*opt_statsd_udp;	/* --statsd-udp, or NULL */
	const char	*opt_statsd_unix;	/* --statsd-unix, or NULL */

	struct event_base *base;
	const struct vl_methods *methods;	/* what varlink.c dispatches to */
	struct control	*control;
	struct registry	*reg;
	struct drain	*drain;
	struct journal	*journal;	/* NULL: running without one */
	struct filer	*filer;		/* runtime files' thread, or NULL */
	struct checkpoint *checkpoint;
	struct quota	*quota;
	struct zones	*zones;
	struct front	*front;		/* statsd/DogStatsD sockets */
	struct turns	*turns;		/* peers' fair turns (turns.h) */

	uint64_t	 start_ns;	/* CLOCK_MONOTONIC (clock_now_ns) */
	uid_t		 self_uid;
	gid_t		 admin_gid;
	bool		 admin_gid_valid;
	bool		 stopping;
	char		*sample_rates;	/* stats(3) text; "" = none */

	/* What the writer publishes for reader threads (pub.h), and the
	 * reader thread of the control socket's reads (rthread.h; NULL:
	 * they are read in the loop). */
	struct pub	*pub;
	struct rthread	*rthread;
	/* Reads handed to the reader thread that the loop answered from
	 * the registry instead (m_read.c), logged at exit. */
	uint64_t	 reads_here;
	/* The exposition (expo.c, http.c): the loop's own view of the
	 * store for the varlink Scrape (the HTTP thread has its own), and
	 * what every exposition counted, in statsd:0:daemon. */
	struct rview	*expo_rv;
	struct http	*http;
	const char	*http_listen;	/* --http-listen; NULL: the config's */
	struct expo_totals expo_tot;
	struct self_feed self_feed;	/* for statsd's own kstat */
	/* Told when a control connection closes, before its state goes.
	 * The drain sets it (a ring dies with its connection), so that the
	 * protocol layer names no subsystem. */
	void		(*conn_closed)(struct statsd *d, struct conn *c);
};

#endif
