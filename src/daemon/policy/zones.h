/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * zones.h: Solaris zones, the Linux way. A peer's zone is the container
 * its process is in, found from SO_PEERCRED's pid; the global zone is
 * statsd's own. What makes a container is statsd.conf's `zones`:
 *
 *   cgroup    (the default) the nearest cgroup v2 ancestor of the
 *             process's cgroup that one of `zone_cgroups`' patterns
 *             matches (/machine.slice/<machine>, /system.slice/docker-
 *             <id>.scope, a kubepods pod...); a process under none is in
 *             the global zone. /proc/<pid>/cgroup is world-readable, so
 *             this needs no privilege, and a cgroup path names the same
 *             container after a restart of statsd: these zones last.
 *   pidns, userns, cgroupns
 *             the process's namespace of that kind. Reading another
 *             user's /proc/<pid>/ns takes ptrace access (root, or
 *             CAP_SYS_PTRACE), and a namespace's inode number means
 *             nothing to a restarted statsd: these zones end with it.
 *   none      every peer is in the global zone.
 *
 * Zones are numbered as statsd first meets them (0 is the global zone);
 * a zone lives while a connection or a kstat refers to it, and a number
 * is never reused while statsd runs. A namespace zone holds a descriptor
 * of its namespace meanwhile, so the kernel cannot give its inode number
 * to another one: a later peer with that number is in the same
 * namespace, never in a new container that inherited it.
 */
#ifndef STATSD_DAEMON_ZONES_H
#define STATSD_DAEMON_ZONES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define ZONE_GLOBAL	0u		/* Solaris's GLOBAL_ZONEID */
#define ZONE_ALL	UINT32_MAX	/* Solaris's ALL_ZONES */
#define ZONE_NAME_MAX	4096		/* a zone's name, its NUL included */
#define ZONE_PATTERNS_MAX 64		/* patterns in zone_cgroups */
#define ZONE_PATTERN_DEPTH 32		/* components in one pattern */

/* What `zones` may say: what makes a zone. */
enum zone_kind {
	ZONE_KIND_CGROUP = 0,	/* a container cgroup (zone_cgroups) */
	ZONE_KIND_PIDNS,
	ZONE_KIND_USERNS,
	ZONE_KIND_CGROUPNS,
	ZONE_KIND_NONE,		/* every peer is in the global zone */
	ZONE_KIND_NUM
};

extern const char *const zone_kind_names[ZONE_KIND_NUM + 1];

/* The default of zone_cgroups: the cgroups the common container runtimes
 * make for a container (or a Kubernetes pod). */
extern const char zone_cgroups_default[];

struct zones;
struct zone_patterns;

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
 * zone_patterns_parse: compile zone_cgroups' text: patterns separated by
 * blanks, each an absolute cgroup path whose components are fnmatch(3)
 * globs ('*', '?', bracket expressions, '\' quoting) matched one
 * component at a time: a pattern matches cgroups of exactly its depth, and
 * no '*' crosses a '/'. Matching takes time linear in the path (rx.h).
 * Returns: 0 and *ret (NULL for an empty list); -EINVAL with why (len
 * bytes) naming the pattern and what is wrong with it; -ENOMEM.
 */
int zone_patterns_parse(const char *text, struct zone_patterns **ret,
    char *why, size_t len);
void zone_patterns_free(struct zone_patterns *p);

/*
 * zone_patterns_match: the deepest ancestor of cgroup path (len bytes,
 * from '/'), itself included, that a pattern matches.
 * Returns: the length of that ancestor's path; 0 if none matches.
 */
size_t zone_patterns_match(const struct zone_patterns *p, const char *path,
    size_t len);

/*
 * zones_new: a table of zones of kind; for ZONE_KIND_CGROUP, patterns is
 * zone_cgroups' text (NULL: the default). The global zone is statsd's own
 * namespace of that kind, or its own container cgroup (none: the host).
 * Returns: 0 and *ret; -EINVAL (bad patterns); -ENOENT (this process's
 * /proc/self/cgroup names no cgroup v2 path, nor a name=systemd one);
 * -errno (its namespace cannot be opened).
 */
int zones_new(enum zone_kind kind, const char *patterns, struct zones **ret);
struct zones *zones_free(struct zones *z);

/*
 * zones_of_peer: the zone of the peer on connected socket fd whose
 * SO_PEERCRED pid is pid, with a reference the caller drops with
 * zones_unref(). Its cgroup (or namespace) is read through the peer's
 * pidfd (SO_PEERPIDFD, Linux 6.5; else pidfd_open() of pid) and the pidfd
 * is checked afterwards, so a pid reused meanwhile is noticed.
 * Returns: 0 and *ret_zone; -ESRCH (the peer exited, or statsd cannot see
 * its pid: it is in an outer pid namespace); -EACCES (statsd may not read
 * its /proc/<pid>: see zones_may_look()); -EXDEV (its cgroup is outside
 * statsd's cgroup namespace); -ENAMETOOLONG; -errno.
 */
int zones_of_peer(struct zones *z, int fd, pid_t pid, uint32_t *ret_zone);

/*
 * zones_of_cgroup: the zone of a process in cgroup path (from '/', as
 * /proc/<pid>/cgroup's "0::" line gives it), with a reference.
 * Returns: 0 and *ret_zone; -EXDEV (a ".." component: outside statsd's
 * cgroup namespace); -EINVAL (not a cgroup path); -ENAMETOOLONG; -ENOMEM.
 */
int zones_of_cgroup(struct zones *z, const char *path, uint32_t *ret_zone);

/*
 * zones_of_name: the lasting zone a restarted statsd finds in its
 * checkpoint, by the name zones_name() gave it (a container cgroup's
 * path), with a reference; the global zone if it is statsd's own
 * container. Patterns are not applied: a zone whose cgroup zone_cgroups
 * no longer matches keeps its kstats, which no peer reaches but through
 * the global zone.
 * Returns: 0 and *ret_zone; -EINVAL (not a cgroup path); -ENOMEM.
 */
int zones_of_name(struct zones *z, const char *name, uint32_t *ret_zone);

/* Take or drop a reference to a zone (ZONE_GLOBAL and ZONE_ALL need
 * none; they are accepted and ignored). The last one frees the zone. */
void zones_ref(struct zones *z, uint32_t zone);
void zones_unref(struct zones *z, uint32_t zone);

/* A zone's name: "global", "all", a container cgroup's path
 * ("/machine.slice/machine-web.scope"), or for a namespace
 * "<kind>:[<inode>]" as /proc/<pid>/ns/<kind> reads. Returns: buf. */
const char *zones_name(const struct zones *z, uint32_t zone, char *buf,
    size_t len);

/*
 * zones_lasting: does zone mean the same after a restart of statsd, so
 * that its PERSISTENT kstats may be kept (the global zone, every zone, a
 * container cgroup)? A namespace zone does not: a restarted statsd cannot
 * tell its namespace from a new one that got its inode number.
 */
bool zones_lasting(const struct zones *z, uint32_t zone);

/* The cgroup path of a container-cgroup zone; NULL for any other. */
const char *zones_cgroup(const struct zones *z, uint32_t zone);

/*
 * zones_may_look: can statsd tell the zone of other users' peers? With
 * zones = cgroup it needs /proc/<pid> of other users' processes visible
 * (no hidepid= on /proc, as systemd's ProtectProc= sets it, unless statsd
 * is exempt); a namespace kind needs ptrace access too (root, or
 * CAP_SYS_PTRACE). Without it a peer of another uid is refused
 * (zones_of_peer() gives -EACCES): its zone cannot be told, and guessing
 * the global zone would show a container the host's kstats.
 * Returns: NULL if it can; else why not (a static string).
 */
const char *zones_may_look(const struct zones *z);

/* Why zones_of_peer() refused a peer (its negative errno): a static
 * string for the log. */
const char *zones_strerror(int err);

/* Is zone one statsd knows now (ZONE_GLOBAL, or a zone with peers or
 * kstats)? */
bool zones_known(const struct zones *z, uint32_t zone);

/* Zones known now, the global one included. */
unsigned zones_count(const struct zones *z);

#endif
