/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * quota.h: what each user may make statsd hold — per-uid usage of every
 * resource a peer can cause statsd to keep (connections, buffered bytes,
 * templates and their bytes, kstats, arena bytes, PERSISTENT bytes on
 * disk, rings and their bytes, zones' store segments), checked against a per-uid limit and a total, with a reserve of
 * every total for privileged peers, so that root is never locked out.
 *
 * The rule, for a charge of n units of resource r by a peer:
 *   - a privileged peer (uid 0, statsd's uid, the admin group) is held
 *     only to the total: used_total + n <= total;
 *   - any other peer is held to its own limit, used[uid] + n <= per_uid,
 *     and to the unreserved part of the total, used_total + n <=
 *     total * (100 - quota_reserve_percent) / 100, like the blocks ext4
 *     reserves for root.
 * A refusal names the configuration key that stopped it, which is what
 * LimitReached carries to the client, and is logged with a rate limit.
 *
 * Usage is kept by uid whatever the peer's privilege, so that releasing
 * needs only the uid the charge was made for; a user's entry stays once
 * made (there are no more entries than users on the machine).
 *
 * Adding a resource is one enum value, one row of quota_defs[] (its
 * config keys) and the calls that charge and release it.
 */
#ifndef STATSD_DAEMON_QUOTA_H
#define STATSD_DAEMON_QUOTA_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

struct statsd;
struct quota;

enum quota_res {
	QUOTA_CONNECTIONS = 0,	/* control connections */
	QUOTA_BUFFERED,		/* bytes of unread calls and unsent replies */
	QUOTA_TEMPLATES,	/* templates registered */
	QUOTA_TEMPLATE_BYTES,	/* their definitions and blobs */
	QUOTA_KSTATS,		/* kstats in the public segment */
	QUOTA_ARENA,		/* public arena bytes (chunks) */
	QUOTA_PERSISTENT,	/* disk bytes of PERSISTENT kstats */
	QUOTA_RINGS,		/* update rings attached */
	QUOTA_RING_BYTES,	/* their memfds: records and overflow areas */
	QUOTA_ZONE_SEGMENTS,	/* zones' store segments (a memfd each) */
	QUOTA_NUM
};

/*
 * Descriptors. Every descriptor statsd holds for peers is under a total:
 * connections (max_connections, http_max_connections), rings (two each,
 * max_rings), zones' store segments (max_zone_segments); statsd's own
 * (sockets, the global segments, the state log, files it opens for a
 * moment) are fewer than QUOTA_FDS_OWN. Zone segments' total is lowered
 * to what the descriptor limit leaves beside the others, so that the
 * totals together never pass it: with every total's reserve kept for
 * privileged peers, root's connection always finds a descriptor, however
 * many zones users' containers make.
 */
#define QUOTA_FDS_OWN	256u

/* The most zone segments the soft RLIMIT_NOFILE nofile leaves room for
 * beside the other totals of the configuration c (0: none). */
struct config;
uint64_t quota_zone_segments_fit(const struct config *c, uint64_t nofile);

/* Why a charge was refused: the configuration key and its value as it
 * applied to the peer (for a total, the part the peer may use). */
struct quota_refusal {
	const char	*limit;
	uint64_t	 value;
};

/* Returns: 0 and *ret; -ENOMEM. */
int quota_new(struct statsd *d, struct quota **ret);
struct quota *quota_free(struct quota *q);

/*
 * quota_charge: take n units of r for uid if the rule above allows it.
 * Returns: 0; -EDQUOT with *ret filled (the refusal is logged, rate
 * limited); -ENOMEM (nothing charged).
 */
int quota_charge(struct quota *q, uid_t uid, bool privileged,
    enum quota_res r, uint64_t n, struct quota_refusal *ret);

/* Would quota_charge() refuse? Returns: 0; -EDQUOT with *ret filled
 * (nothing logged). */
int quota_check(const struct quota *q, uid_t uid, bool privileged,
    enum quota_res r, uint64_t n, struct quota_refusal *ret);

/* Take n units of r for uid without a check: what statsd restores at
 * start was allowed when it was made. Returns: 0; -ENOMEM. */
int quota_force(struct quota *q, uid_t uid, enum quota_res r, uint64_t n);

/* Give back n units of r that uid was charged. */
void quota_release(struct quota *q, uid_t uid, enum quota_res r,
    uint64_t n);

/* What uid uses of r, and what everyone does. */
uint64_t quota_used(const struct quota *q, uid_t uid, enum quota_res r);
uint64_t quota_used_total(const struct quota *q, enum quota_res r);

/* Refusals since start, all resources together. */
uint64_t quota_refusals(const struct quota *q);

/* The resource's name ("kstats", "arena_bytes", ...), and its config
 * keys. */
const char *quota_name(enum quota_res r);
const char *quota_per_uid_key(enum quota_res r);
const char *quota_total_key(enum quota_res r);

/*
 * quota_refused_log: log that uid was refused (what: the thing asked
 * for), at most a few lines per period whatever the rate of refusals;
 * the lines not written are counted in the next one. For refusals that
 * are not a charge (a connection over the total at accept()).
 */
void quota_refused_log(struct quota *q, uid_t uid, const char *what,
    const struct quota_refusal *why);

/*
 * quota_to_json: uid's usage, {"<resource>": {"used", "limit"}} with the
 * limit that applies to it (privileged: the total), and with all_users
 * also "total": {"<resource>": {"used", "limit"}} for everyone, "users":
 * [{"uid", "<resource>": used, ...}] for every user seen, and "refusals".
 */
json_t *quota_to_json(const struct quota *q, uid_t uid, bool privileged,
    bool all_users);

#endif
