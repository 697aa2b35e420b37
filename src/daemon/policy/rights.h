/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rights.h: who a peer is and what it may do. Peers are identified by
 * SO_PEERCRED (and their supplementary groups by SO_PEERGROUPS), never by
 * anything they say; their zone is the container (a cgroup, or a
 * namespace) of the process that connected (zones.h). Three rights:
 *
 *   read   any peer that could connect: list, read and scrape what it may
 *          see (kstats of its zone, of every zone, and in the global zone
 *          those made visible there; PRIV kstats only when privileged)
 *   owner  change what the peer owns: create kstats and templates, attach
 *          rings, write, reset, redefine and delete its own kstats (made
 *          by its uid in its zone)
 *   admin  a privileged peer: uid 0, statsd's own uid, or a member of the
 *          configured admin group; it may do all of the above to any kstat
 *          of its zone, and in the global zone to any kstat it sees and
 *          call the admin methods
 *
 * Each method's right is a column of the method table (varlink.c); the
 * per-object checks below are what the handlers call.
 */
#ifndef STATSD_DAEMON_RIGHTS_H
#define STATSD_DAEMON_RIGHTS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

struct statsd;

enum right {
	RIGHT_READ = 0,
	RIGHT_OWNER,
	RIGHT_ADMIN,
	RIGHT_NUM
};

extern const char *const right_names[RIGHT_NUM];

struct peer {
	uid_t		uid;
	gid_t		gid;
	pid_t		pid;
	uint32_t	zone;		/* ZONE_GLOBAL or a zone's number */
	bool		privileged;
};

/*
 * rights_peer_cred: a peer of credentials uid and gid in the global zone,
 * privileged as rights_peer_init() decides (uid 0, statsd's uid, the admin
 * group as its primary group): the sender of a datagram, which carries
 * its credentials and no more.
 */
void rights_peer_cred(const struct statsd *d, uid_t uid, gid_t gid,
    struct peer *ret);

/*
 * rights_peer_init: read fd's peer credentials, find its zone (with a
 * reference: rights_peer_done() drops it) and decide whether the peer is
 * privileged.
 * Returns: 0; a negative errno from zones_of_peer() (its zone cannot be
 * told: zones_strerror() says why); -errno from getsockopt.
 */
int rights_peer_init(const struct statsd *d, int fd, struct peer *ret);
void rights_peer_done(const struct statsd *d, struct peer *p);

/*
 * rights_tcp_diag_open: a netlink socket of the kernel's socket
 * diagnostics (sock_diag(7)), for rights_tcp_peer_uid().
 * Returns: it; -errno.
 */
int rights_tcp_diag_open(void);

/*
 * rights_tcp_peer_uid: the uid owning the other end of fd, a TCP
 * connection whose both ends are on this host (over loopback, say), as
 * the kernel's socket diagnostics tell it (what ss -e shows), asked
 * through nl (rights_tcp_diag_open()). TCP carries no credentials; the
 * other end's socket, looked up by its addresses, has an owner.
 * Returns: 0 and *uid; -ENOENT (the other end is not a socket of this
 * host's network namespace: a remote peer); -errno.
 */
int rights_tcp_peer_uid(int nl, int fd, uid_t *uid);

/* Look the admin group up again (after loading or reloading the config);
 * logs once if it does not exist. */
void rights_admin_group_update(struct statsd *d);

/* May p call a method that needs right r? */
bool rights_allows(const struct peer *p, enum right r);

/* May p change, reset or delete an object owner made in owner_zone? */
bool rights_may_modify(const struct peer *p, uid_t owner,
    uint32_t owner_zone);

/* May p see a kstat (PRIV or not) that lives in zone (ZONE_ALL: all), and
 * in the global zone too with gz? */
bool rights_may_see(const struct peer *p, bool priv, uint32_t zone, bool gz);

/* The rights p holds, as a JSON array of names. */
json_t *rights_to_json(const struct peer *p);

#endif
