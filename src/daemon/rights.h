/*
 * rights.h: who a peer is and what it may do. Peers are identified by
 * SO_PEERCRED (and their supplementary groups by SO_PEERGROUPS), never by
 * anything they say. Three rights:
 *
 *   read   any peer that could connect: list, read and scrape what it may
 *          see (PRIV kstats only when privileged)
 *   owner  change what the peer owns: create kstats and templates, attach
 *          rings, write, reset, redefine and delete its own kstats
 *   admin  a privileged peer: uid 0, statsd's own uid, or a member of the
 *          configured admin group; it may do all of the above to any kstat
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
	uid_t	uid;
	gid_t	gid;
	pid_t	pid;
	bool	privileged;
};

/*
 * rights_peer_init: read fd's peer credentials and decide whether the peer
 * is privileged.
 * Returns: 0; -errno from getsockopt.
 */
int rights_peer_init(const struct statsd *d, int fd, struct peer *ret);

/* Look the admin group up again (after loading or reloading the config);
 * logs once if it does not exist. */
void rights_admin_group_update(struct statsd *d);

/* May p call a method that needs right r? */
bool rights_allows(const struct peer *p, enum right r);

/* May p change, reset or delete an object owned by owner? */
bool rights_may_modify(const struct peer *p, uid_t owner);

/* May p see a kstat with these STORE_KF_* flags? */
bool rights_may_see(const struct peer *p, uint32_t store_flags);

/* The rights p holds, as a JSON array of names. */
json_t *rights_to_json(const struct peer *p);

#endif
