/*
 * zones.h: Solaris zones, the Linux way. A peer's zone is the namespace
 * (of the kind statsd.conf's `zones` names: pid by default, or user or
 * cgroup) of the process that connected, found from SO_PEERCRED's pid; the
 * global zone is statsd's own namespace of that kind. Zones are numbered
 * as statsd first meets them (0 is the global zone) and the numbers are
 * never reused while statsd runs.
 *
 * A zone holds a descriptor of its namespace for as long as a connection
 * or a kstat refers to it, so the kernel cannot give the namespace's
 * inode number to another one meanwhile: a later peer with that number is
 * in the same namespace, never in a new container that inherited it.
 */
#ifndef STATSD_DAEMON_ZONES_H
#define STATSD_DAEMON_ZONES_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define ZONE_GLOBAL	0u		/* Solaris's GLOBAL_ZONEID */
#define ZONE_ALL	UINT32_MAX	/* Solaris's ALL_ZONES */
#define ZONE_NAME_MAX	48

/* What `zones` may say: the namespace that makes a zone. */
enum zone_kind {
	ZONE_KIND_PID = 0,
	ZONE_KIND_USER,
	ZONE_KIND_CGROUP,
	ZONE_KIND_NONE,		/* every peer is in the global zone */
	ZONE_KIND_NUM
};

extern const char *const zone_kind_names[ZONE_KIND_NUM + 1];

struct zones;

/*
 * Does a peer in zone peer_zone see what lives in zone (ZONE_ALL: every
 * zone) — also in the global zone when gz (KSTAT2_FLAG_GZ_VIS)?
 */
static inline bool
zone_sees(uint32_t peer_zone, uint32_t zone, bool gz)
{
	return zone == ZONE_ALL || zone == peer_zone ||
	    (peer_zone == ZONE_GLOBAL && gz);
}

/*
 * zones_new: a table whose global zone is this process's namespace of
 * kind.
 * Returns: 0 and *ret; -errno (the namespace cannot be opened).
 */
int zones_new(enum zone_kind kind, struct zones **ret);
struct zones *zones_free(struct zones *z);

/*
 * zones_of_peer: the zone of the peer on connected socket fd whose
 * SO_PEERCRED pid is pid, with a reference the caller drops with
 * zones_unref(). The namespace is read through the peer's pidfd
 * (SO_PEERPIDFD, Linux 6.5; else pidfd_open() of pid) and the pidfd is
 * checked afterwards, so a pid reused meanwhile is noticed.
 * Returns: 0 and *ret_zone; -ESRCH (the peer exited, or statsd cannot see
 * its pid: it is in an outer namespace); -EACCES (statsd may not read its
 * namespace: see zones_may_look()); -errno.
 */
int zones_of_peer(struct zones *z, int fd, pid_t pid, uint32_t *ret_zone);

/* Take or drop a reference to a zone (ZONE_GLOBAL and ZONE_ALL need
 * none; they are accepted and ignored). The last one frees the zone. */
void zones_ref(struct zones *z, uint32_t zone);
void zones_unref(struct zones *z, uint32_t zone);

/* A zone's name: "global", "all", or "<kind>:[<inode>]" as
 * /proc/<pid>/ns/<kind> reads. Returns: buf. */
const char *zones_name(const struct zones *z, uint32_t zone, char *buf,
    size_t len);

/*
 * zones_may_look: can statsd read other users' namespaces (root, or
 * CAP_SYS_PTRACE: /proc/<pid>/ns needs ptrace access)? Without it, a peer
 * of another uid is refused (zones_of_peer() gives -EACCES): its zone
 * cannot be told, and guessing the global zone would show a container the
 * host's kstats.
 */
bool zones_may_look(const struct zones *z);

/* Is zone one statsd knows now (ZONE_GLOBAL, or a zone with peers or
 * kstats)? */
bool zones_known(const struct zones *z, uint32_t zone);

/* Zones known now, the global one included. */
unsigned zones_count(const struct zones *z);

#endif
