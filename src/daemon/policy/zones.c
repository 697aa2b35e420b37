/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * zones.c: peers' zones — the container cgroup or the namespace of the
 * connecting process, read race-free through its pidfd — the patterns
 * that say which cgroups are containers, and the table that numbers
 * zones.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rx.h"
#include "zones.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD	77
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open	434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal	424
#endif

/* /proc/<pid>/cgroup is a line per hierarchy, each path at most
 * PATH_MAX: a dozen v1 hierarchies and the unified one fit. */
#define ZONE_CGROUP_FILE_MAX	65536
/* A glob component of at most this many instructions is matched in
 * rx_match()'s stack scratch: no allocation, so no failure that could
 * pass a container's peer for the host's. */
#define ZONE_GLOB_INSNS		64
#define ZONE_NAME_COMP_MAX	255	/* a cgroup's name: NAME_MAX */

const char *const zone_kind_names[ZONE_KIND_NUM + 1] = {
	[ZONE_KIND_CGROUP] = "cgroup",
	[ZONE_KIND_PIDNS] = "pidns",
	[ZONE_KIND_USERNS] = "userns",
	[ZONE_KIND_CGROUPNS] = "cgroupns",
	[ZONE_KIND_NONE] = "none",
	NULL
};

/* Each namespace kind's file in /proc/<pid>/ns. */
static const char *const zone_ns_files[ZONE_KIND_NUM] = {
	[ZONE_KIND_PIDNS] = "pid",
	[ZONE_KIND_USERNS] = "user",
	[ZONE_KIND_CGROUPNS] = "cgroup",
};

const char zone_cgroups_default[] =
    /* systemd-nspawn and machined's machines (machine-<name>.scope,
     * systemd-nspawn@<name>.service), rootful podman under the systemd
     * cgroup manager (libpod-<id>.scope; a pod's
     * machine-libpod_pod_<id>.slice), libvirt's LXC domains. */
    "/machine.slice/* "
    /* Docker's systemd and cgroupfs drivers; rootful podman's cgroupfs
     * manager. */
    "/system.slice/docker-*.scope /docker/* /libpod_parent/* "
    /* Rootless podman (a container, a pod) and rootless Docker, in the
     * user's systemd instance. */
    "/user.slice/user-*.slice/user@*.service/user.slice/libpod-*.scope "
    "/user.slice/user-*.slice/user@*.service/user.slice/"
    "user-libpod_pod_*.slice "
    "/user.slice/user-*.slice/user@*.service/user.slice/docker-*.scope "
    /* LXC, LXD and Incus: since LXC 4.0, LXC 3.x, before. */
    "/lxc.payload.* /lxc.payload/* /lxc/* "
    /* Kubernetes pods: the kubelet's cgroupfs driver (Guaranteed pods,
     * then Burstable and BestEffort ones), then its systemd driver. */
    "/kubepods*/pod* /kubepods*/*/pod* /kubepods*/kubepods-pod*.slice "
    "/kubepods*/*/kubepods-*-pod*.slice";

/* ------------------------------------------------------------ patterns */

/* One component: a literal name, or a glob. */
struct zone_comp {
	char		*lit;		/* NULL: a glob */
	size_t		 litlen;
	struct rx	*rx;
};

struct zone_pattern {
	size_t			 ncomp;
	struct zone_comp	 comp[ZONE_PATTERN_DEPTH];
};

struct zone_patterns {
	size_t			 n;
	struct zone_pattern	 v[ZONE_PATTERNS_MAX];
};

void
zone_patterns_free(struct zone_patterns *p)
{
	size_t i, j;

	if (p == NULL)
		return;
	for (i = 0; i < p->n; i++)
		for (j = 0; j < p->v[i].ncomp; j++) {
			free(p->v[i].comp[j].lit);
			rx_free(p->v[i].comp[j].rx);
		}
	free(p);
}

/* Say what is wrong with pattern tok (n bytes). Returns: -EINVAL. */
static int
zp_fail(char *why, size_t len, const char *tok, size_t n, const char *msg)
{
	snprintf(why, len, "pattern \"%.*s%s\": %s", (int)(n > 96 ? 96 : n),
	    tok, n > 96 ? "..." : "", msg);
	return -EINVAL;
}

/* Compile one component c (n bytes) of pattern tok into *out. */
static int
zp_comp(struct zone_comp *out, const char *c, size_t n, const char *tok,
    size_t tn, char *why, size_t len)
{
	const char *err = NULL;
	char msg[160];
	size_t i, off = 0;
	bool glob = false;

	if ((n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
		return zp_fail(why, len, tok, tn, "'.' and '..' are not "
		    "cgroup names");
	for (i = 0; i < n; i++) {
		if (c[i] == '\\') {
			glob = true;
			i++;
		} else if (c[i] == '*' || c[i] == '?' || c[i] == '[') {
			glob = true;
			if (c[i] == '*' && i + 1 < n && c[i + 1] == '*')
				return zp_fail(why, len, tok, tn, "'**' is not "
				    "supported: a '*' matches within one path "
				    "component, so write one pattern for each "
				    "depth");
		}
	}
	if (!glob) {
		if (n > ZONE_NAME_COMP_MAX)
			return zp_fail(why, len, tok, tn, "a component longer "
			    "than a cgroup's name (255 bytes)");
		out->lit = malloc(n + 1);
		if (out->lit == NULL)
			return -ENOMEM;
		memcpy(out->lit, c, n);
		out->lit[n] = '\0';
		out->litlen = n;
		return 0;
	}
	switch (rx_compile(c, n, RX_GLOB, &out->rx, &err, &off)) {
	case 0:
		break;
	case -ENOMEM:
		return -ENOMEM;
	default:
		snprintf(msg, sizeof(msg), "%s (at byte %zu of \"%.*s\")", err,
		    off, (int)(n > 64 ? 64 : n), c);
		return zp_fail(why, len, tok, tn, msg);
	}
	if (rx_size(out->rx) > ZONE_GLOB_INSNS) {
		rx_free(out->rx);
		out->rx = NULL;
		snprintf(msg, sizeof(msg), "the glob \"%.*s\" is too long (its "
		    "program passes %d instructions: a character or a class "
		    "is one, a '*' three)", (int)(n > 64 ? 64 : n), c,
		    ZONE_GLOB_INSNS);
		return zp_fail(why, len, tok, tn, msg);
	}
	return 0;
}

/* Compile pattern tok (n bytes) into p's next slot. */
static int
zp_one(struct zone_patterns *p, const char *tok, size_t n, char *why,
    size_t len)
{
	struct zone_pattern *pat;
	size_t i = 1, c0;
	int r;

	if (p->n == ZONE_PATTERNS_MAX) {
		snprintf(why, len, "more than %d patterns", ZONE_PATTERNS_MAX);
		return -EINVAL;
	}
	if (tok[0] != '/')
		return zp_fail(why, len, tok, n, "not a cgroup path (it "
		    "starts with '/')");
	if (n == 1)
		return zp_fail(why, len, tok, n, "the root cgroup is the host, "
		    "not a container");
	pat = &p->v[p->n];
	for (;;) {
		c0 = i;
		while (i < n && tok[i] != '/') {
			if (tok[i] == '\\') {
				if (i + 1 >= n)
					return zp_fail(why, len, tok, n, "a "
					    "'\\' at its end quotes nothing");
				if (tok[i + 1] == '/')
					return zp_fail(why, len, tok, n, "a "
					    "cgroup's name holds no '/'");
				i++;
			}
			i++;
		}
		if (i == c0)
			return zp_fail(why, len, tok, n, "an empty component "
			    "('//', or a '/' at its end)");
		if (pat->ncomp == ZONE_PATTERN_DEPTH)
			return zp_fail(why, len, tok, n, "deeper than 32 "
			    "components");
		r = zp_comp(&pat->comp[pat->ncomp], tok + c0, i - c0, tok, n,
		    why, len);
		if (r < 0)
			return r;
		pat->ncomp++;
		if (i == n)
			break;
		i++;
	}
	p->n++;
	return 0;
}

int
zone_patterns_parse(const char *text, struct zone_patterns **ret, char *why,
    size_t len)
{
	struct zone_patterns *p = calloc(1, sizeof(*p));
	const char *s = text, *e;
	int r = 0;

	*ret = NULL;
	if (p == NULL)
		return -ENOMEM;
	if (len > 0)
		why[0] = '\0';
	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '\0')
			break;
		for (e = s; *e != '\0' && *e != ' ' && *e != '\t'; e++)
			if (*e == '\\' && e[1] != '\0')
				e++;
		/* zp_one()'s partial work stays in p->v[p->n]: counted, so
		 * that zone_patterns_free() frees it. */
		r = zp_one(p, s, (size_t)(e - s), why, len);
		if (r < 0) {
			if (p->n < ZONE_PATTERNS_MAX && p->v[p->n].ncomp > 0)
				p->n++;
			if (r == -ENOMEM)
				snprintf(why, len, "out of memory");
			zone_patterns_free(p);
			return r;
		}
		s = e;
	}
	if (p->n == 0) {
		free(p);
		p = NULL;
	}
	*ret = p;
	return 0;
}

static bool
zp_comp_match(const struct zone_comp *c, const char *s, size_t n)
{
	if (c->lit != NULL)
		return n == c->litlen && memcmp(c->lit, s, n) == 0;
	return rx_match(c->rx, s, n, NULL);
}

size_t
zone_patterns_match(const struct zone_patterns *p, const char *path,
    size_t len)
{
	size_t start[ZONE_PATTERN_DEPTH], end[ZONE_PATTERN_DEPTH];
	size_t ncomp = 0, i = 1, j, k, best = 0, bestk = 0;

	if (p == NULL || len == 0 || path[0] != '/')
		return 0;
	while (i < len && ncomp < ZONE_PATTERN_DEPTH) {
		start[ncomp] = i;
		while (i < len && path[i] != '/')
			i++;
		if (i == start[ncomp])
			break;
		end[ncomp++] = i++;
	}
	for (k = 0; k < p->n; k++) {
		const struct zone_pattern *pat = &p->v[k];
		bool ok = pat->ncomp <= ncomp && pat->ncomp > bestk;

		for (j = 0; ok && j < pat->ncomp; j++)
			ok = zp_comp_match(&pat->comp[j], path + start[j],
			    end[j] - start[j]);
		if (ok) {
			bestk = pat->ncomp;
			best = end[bestk - 1];
		}
	}
	return best;
}

/* --------------------------------------------------------------- zones */

struct zone {
	uint32_t	 id;
	unsigned	 refs;
	char		*path;		/* a container cgroup's; NULL: a ns */
	size_t		 pathlen;
	dev_t		 dev;
	ino_t		 ino;
	int		 nsfd;		/* holds the namespace (and its inode) */
};

struct zones {
	enum zone_kind		 kind;
	struct zone_patterns	*pats;
	char			*own;	/* statsd's container cgroup, or NULL */
	size_t			 ownlen;
	struct zone		 global;
	struct zone		**v;	/* the others */
	size_t			 n, cap;
	uint32_t		 next_id;
};

/* Is pid gone (rather than hidden from statsd)? */
static bool
zones_gone(pid_t pid)
{
	return pid != 0 && kill(pid, 0) < 0 && errno == ESRCH;
}

/* Open pid's /proc file rel ("self" when pid is 0). ENOENT: gone, or
 * hidden (hidepid=, systemd's ProtectProc=) from a statsd that may not
 * look at it: the same as EACCES then. Returns: the fd; -errno. */
static int
zones_proc_open(pid_t pid, const char *rel)
{
	char path[64];
	int fd;

	if (pid == 0)
		snprintf(path, sizeof(path), "/proc/self/%s", rel);
	else
		snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, rel);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno != ENOENT ? -errno : zones_gone(pid) ? -ESRCH :
		    -EACCES;
	return fd;
}

/* Open the namespace of kind of pid ("self" when pid is 0). */
static int
zones_ns_open(enum zone_kind kind, pid_t pid, struct stat *st)
{
	char rel[32];
	int fd;

	snprintf(rel, sizeof(rel), "ns/%s", zone_ns_files[kind]);
	fd = zones_proc_open(pid, rel);
	if (fd < 0)
		return fd;
	if (fstat(fd, st) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

/*
 * The cgroup of pid ("self" when 0), from /proc/<pid>/cgroup: the
 * unified hierarchy's "0::" line, which a hybrid host has too, else (a
 * cgroup v1 host) systemd's name=systemd hierarchy, whose paths are the
 * same units. buf (ZONE_CGROUP_FILE_MAX bytes) gets the file; *ret_path
 * points into it, NUL-terminated.
 * Returns: the path's length; -ENOENT (neither line); -ESRCH (gone, or a
 * zombie whose cgroup was removed); -EACCES; -errno.
 */
static ssize_t
zones_cgroup_read(pid_t pid, char *buf, const char **ret_path)
{
	const char *v2 = NULL, *v1 = NULL;
	size_t used = 0, n2 = 0, n1 = 0, n;
	char *line, *next, *c1, *c2;
	ssize_t got;
	int fd;

	fd = zones_proc_open(pid, "cgroup");
	if (fd < 0)
		return fd;
	while (used < ZONE_CGROUP_FILE_MAX - 1) {
		got = read(fd, buf + used, ZONE_CGROUP_FILE_MAX - 1 - used);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int e = errno == ESRCH || zones_gone(pid) ? -ESRCH :
			    -errno;

			close(fd);
			return e;
		}
		if (got == 0)
			break;
		used += (size_t)got;
	}
	close(fd);
	buf[used] = '\0';
	for (line = buf; *line != '\0'; line = next) {
		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		else
			next = line + strlen(line);
		/* "<id>:<controllers>:<path>"; the path may hold ':'. */
		c1 = strchr(line, ':');
		c2 = c1 != NULL ? strchr(c1 + 1, ':') : NULL;
		if (c2 == NULL)
			continue;
		n = strlen(c2 + 1);
		if (c1 - line == 1 && line[0] == '0' && c2 == c1 + 1) {
			v2 = c2 + 1;
			n2 = n;
		} else if ((size_t)(c2 - c1 - 1) == 12 &&
		    memcmp(c1 + 1, "name=systemd", 12) == 0) {
			v1 = c2 + 1;
			n1 = n;
		}
	}
	if (v2 == NULL) {
		v2 = v1;
		n2 = n1;
	}
	if (v2 == NULL)
		return zones_gone(pid) ? -ESRCH : -ENOENT;
	/* A dead cgroup: only a zombie can still be in it. */
	if (n2 >= 10 && memcmp(v2 + n2 - 10, " (deleted)", 10) == 0)
		return -ESRCH;
	*ret_path = v2;
	return (ssize_t)n2;
}

/* Does path (n bytes) have a ".." component: a cgroup outside statsd's
 * cgroup namespace, which /proc shows relative to statsd's root? */
static bool
zones_outside(const char *path, size_t n)
{
	size_t i = 0, c0;

	while (i < n) {
		while (i < n && path[i] == '/')
			i++;
		c0 = i;
		while (i < n && path[i] != '/')
			i++;
		if (i - c0 == 2 && path[c0] == '.' && path[c0 + 1] == '.')
			return true;
	}
	return false;
}

int
zones_new(enum zone_kind kind, const char *patterns, struct zones **ret)
{
	struct zones *z;
	struct stat st;
	const char *path;
	char why[256], *buf;
	ssize_t n;
	size_t m;
	int fd = -1, r;

	if ((unsigned)kind >= ZONE_KIND_NUM)
		return -EINVAL;
	z = calloc(1, sizeof(*z));
	if (z == NULL)
		return -ENOMEM;
	z->kind = kind;
	z->global.id = ZONE_GLOBAL;
	z->global.nsfd = -1;
	z->next_id = 1;
	if (kind == ZONE_KIND_CGROUP) {
		r = zone_patterns_parse(patterns != NULL ? patterns :
		    zone_cgroups_default, &z->pats, why, sizeof(why));
		buf = r == 0 ? malloc(ZONE_CGROUP_FILE_MAX) : NULL;
		if (r == 0 && buf == NULL)
			r = -ENOMEM;
		if (r < 0) {
			zones_free(z);
			return r;
		}
		/* statsd's own container (when it runs in one) is the
		 * global zone: its peers there are the host to it. */
		n = zones_cgroup_read(0, buf, &path);
		m = n > 0 ? zone_patterns_match(z->pats, path, (size_t)n) : 0;
		if (m > 0 && (z->own = strndup(path, m)) == NULL)
			n = -ENOMEM;
		z->ownlen = m;
		free(buf);
		if (n < 0) {
			zones_free(z);
			return (int)n;
		}
	} else if (kind != ZONE_KIND_NONE) {
		fd = zones_ns_open(kind, 0, &st);
		if (fd < 0) {
			zones_free(z);
			return fd;
		}
		z->global.nsfd = fd;
		z->global.dev = st.st_dev;
		z->global.ino = st.st_ino;
	}
	*ret = z;
	return 0;
}

static void
zone_free(struct zone *e)
{
	if (e->nsfd >= 0)
		close(e->nsfd);
	free(e->path);
	free(e);
}

struct zones *
zones_free(struct zones *z)
{
	size_t i;

	if (z == NULL)
		return NULL;
	for (i = 0; i < z->n; i++)
		zone_free(z->v[i]);
	if (z->global.nsfd >= 0)
		close(z->global.nsfd);
	zone_patterns_free(z->pats);
	free(z->own);
	free(z->v);
	free(z);
	return NULL;
}

static struct zone *
zones_find(const struct zones *z, uint32_t id, size_t *ret_i)
{
	size_t i;

	for (i = 0; i < z->n; i++)
		if (z->v[i]->id == id) {
			if (ret_i != NULL)
				*ret_i = i;
			return z->v[i];
		}
	return NULL;
}

/* A new zone in the table, with one reference. Returns: it; NULL (out of
 * memory, or of numbers). */
static struct zone *
zones_add(struct zones *z)
{
	struct zone *e, **nv;

	if (z->n == z->cap) {
		size_t cap = z->cap > 0 ? 2 * z->cap : 8;

		nv = realloc(z->v, cap * sizeof(*nv));
		if (nv == NULL)
			return NULL;
		z->v = nv;
		z->cap = cap;
	}
	if (z->next_id == ZONE_ALL || (e = calloc(1, sizeof(*e))) == NULL)
		return NULL;
	e->id = z->next_id++;
	e->nsfd = -1;
	e->refs = 1;
	z->v[z->n++] = e;
	return e;
}

/* The zone of container cgroup path (n bytes), with a reference. */
static int
zones_of_path(struct zones *z, const char *path, size_t n, uint32_t *ret)
{
	struct zone *e;
	size_t i;

	if (n >= ZONE_NAME_MAX)
		return -ENAMETOOLONG;
	if (z->own != NULL && n == z->ownlen && memcmp(path, z->own, n) == 0) {
		*ret = ZONE_GLOBAL;
		return 0;
	}
	for (i = 0; i < z->n; i++) {
		e = z->v[i];
		if (e->path != NULL && e->pathlen == n &&
		    memcmp(e->path, path, n) == 0) {
			e->refs++;
			*ret = e->id;
			return 0;
		}
	}
	e = zones_add(z);
	if (e == NULL)
		return -ENOMEM;
	e->path = strndup(path, n);
	if (e->path == NULL) {
		zones_unref(z, e->id);
		return -ENOMEM;
	}
	e->pathlen = n;
	*ret = e->id;
	return 0;
}

int
zones_of_cgroup(struct zones *z, const char *path, uint32_t *ret_zone)
{
	size_t n = strlen(path), m;

	if (n == 0 || path[0] != '/')
		return -EINVAL;
	if (zones_outside(path, n))
		return -EXDEV;
	m = zone_patterns_match(z->pats, path, n);
	if (m == 0) {
		*ret_zone = ZONE_GLOBAL;
		return 0;
	}
	return zones_of_path(z, path, m, ret_zone);
}

int
zones_of_name(struct zones *z, const char *name, uint32_t *ret_zone)
{
	size_t n = strlen(name), i = 1, c0;

	if (n < 2 || name[0] != '/' || strchr(name, '\n') != NULL)
		return -EINVAL;
	while (i <= n) {
		c0 = i;
		while (i < n && name[i] != '/')
			i++;
		if (i == c0 || i - c0 > ZONE_NAME_COMP_MAX ||
		    (i - c0 == 1 && name[c0] == '.') ||
		    (i - c0 == 2 && name[c0] == '.' && name[c0 + 1] == '.'))
			return -EINVAL;
		i++;
	}
	return zones_of_path(z, name, n, ret_zone);
}

/* The pidfd of fd's peer: SO_PEERPIDFD names the very process that
 * connected; pidfd_open() of its pid is the fallback for older kernels. */
static int
zones_peer_pidfd(int fd, pid_t pid)
{
	socklen_t len = sizeof(int);
	int pfd = -1;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pfd, &len) == 0 &&
	    pfd >= 0)
		return pfd;
	pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	return pfd >= 0 ? pfd : -errno;
}

/* Does pidfd's process still live (so that what was read of its pid was
 * its own)? Returns: 0; -ESRCH. */
static int
zones_still(int pfd)
{
	int r = (int)syscall(SYS_pidfd_send_signal, pfd, 0, NULL, 0);

	/* EPERM: it lives, and is another user's. */
	return r == 0 || errno == EPERM ? 0 : -ESRCH;
}

/* The zone of pid, a peer in a container cgroup (zones = cgroup). */
static int
zones_peer_cgroup(struct zones *z, int pfd, pid_t pid, uint32_t *ret_zone)
{
	char *buf = malloc(ZONE_CGROUP_FILE_MAX);
	const char *path = NULL;
	ssize_t n;
	int r;

	if (buf == NULL)
		return -ENOMEM;
	n = zones_cgroup_read(pid, buf, &path);
	r = zones_still(pfd);
	if (r == 0 && n < 0)
		r = (int)n;
	if (r == 0)
		r = zones_of_cgroup(z, path, ret_zone);
	free(buf);
	return r;
}

/* The zone of pid, a peer in a namespace (zones = pidns, ...). */
static int
zones_peer_ns(struct zones *z, int pfd, pid_t pid, uint32_t *ret_zone)
{
	struct zone *e;
	struct stat st;
	size_t i;
	int nsfd, r;

	nsfd = zones_ns_open(z->kind, pid, &st);
	r = zones_still(pfd);
	if (nsfd < 0)
		return r < 0 ? r : nsfd;
	if (r < 0) {
		close(nsfd);
		return r;
	}
	if (st.st_dev == z->global.dev && st.st_ino == z->global.ino) {
		close(nsfd);
		*ret_zone = ZONE_GLOBAL;
		return 0;
	}
	for (i = 0; i < z->n; i++) {
		e = z->v[i];
		if (e->path == NULL && e->dev == st.st_dev &&
		    e->ino == st.st_ino) {
			close(nsfd);
			e->refs++;
			*ret_zone = e->id;
			return 0;
		}
	}
	e = zones_add(z);
	if (e == NULL) {
		close(nsfd);
		return -ENOMEM;
	}
	e->dev = st.st_dev;
	e->ino = st.st_ino;
	e->nsfd = nsfd;
	*ret_zone = e->id;
	return 0;
}

int
zones_of_peer(struct zones *z, int fd, pid_t pid, uint32_t *ret_zone)
{
	int pfd, r;

	if (z->kind == ZONE_KIND_NONE) {
		*ret_zone = ZONE_GLOBAL;
		return 0;
	}
	/* pid 0: the peer is in a pid namespace statsd cannot see into. */
	if (pid <= 0)
		return -ESRCH;
	pfd = zones_peer_pidfd(fd, pid);
	if (pfd < 0)
		return pfd;
	r = z->kind == ZONE_KIND_CGROUP ?
	    zones_peer_cgroup(z, pfd, pid, ret_zone) :
	    zones_peer_ns(z, pfd, pid, ret_zone);
	close(pfd);
	return r;
}

void
zones_ref(struct zones *z, uint32_t zone)
{
	struct zone *e = zone == ZONE_GLOBAL || zone == ZONE_ALL ? NULL :
	    zones_find(z, zone, NULL);

	if (e != NULL)
		e->refs++;
}

void
zones_unref(struct zones *z, uint32_t zone)
{
	struct zone *e;
	size_t i;

	if (zone == ZONE_GLOBAL || zone == ZONE_ALL ||
	    (e = zones_find(z, zone, &i)) == NULL || --e->refs > 0)
		return;
	zone_free(e);
	z->v[i] = z->v[--z->n];
}

const char *
zones_name(const struct zones *z, uint32_t zone, char *buf, size_t len)
{
	const struct zone *e;

	if (zone == ZONE_GLOBAL)
		snprintf(buf, len, "global");
	else if (zone == ZONE_ALL)
		snprintf(buf, len, "all");
	else if ((e = zones_find(z, zone, NULL)) == NULL)
		snprintf(buf, len, "zone%u", (unsigned)zone);
	else if (e->path != NULL)
		snprintf(buf, len, "%s", e->path);
	else
		snprintf(buf, len, "%s:[%llu]", zone_ns_files[z->kind],
		    (unsigned long long)e->ino);
	return buf;
}

bool
zones_lasting(const struct zones *z, uint32_t zone)
{
	return zones_cgroup(z, zone) != NULL || zone == ZONE_GLOBAL ||
	    zone == ZONE_ALL;
}

const char *
zones_cgroup(const struct zones *z, uint32_t zone)
{
	const struct zone *e = zone == ZONE_GLOBAL || zone == ZONE_ALL ?
	    NULL : zones_find(z, zone, NULL);

	return e != NULL ? e->path : NULL;
}

/* Root, or CAP_SYS_PTRACE: ptrace access to every process. */
static bool
zones_may_ptrace(void)
{
	char line[256];
	unsigned long long eff = 0;
	bool found = false;
	FILE *f;

	if (geteuid() == 0)
		return true;
	f = fopen("/proc/self/status", "re");
	if (f == NULL)
		return false;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "CapEff: %llx", &eff) == 1) {
			found = true;
			break;
		}
	fclose(f);
	return found && (eff & (1ull << 19)) != 0;	/* CAP_SYS_PTRACE */
}

/* Is statsd's gid, or one of its groups, gid? */
static bool
zones_in_group(gid_t gid)
{
	gid_t groups[256];
	int i, n;

	if (getegid() == gid)
		return true;
	n = getgroups((int)(sizeof(groups) / sizeof(groups[0])), groups);
	for (i = 0; i < n; i++)
		if (groups[i] == gid)
			return true;
	return false;
}

/* Does /proc hide other users' processes from statsd (mounted with
 * hidepid= other than off, statsd not in its gid=)? */
static bool
zones_proc_hidden(void)
{
	char *line = NULL, *opts, *o, *save = NULL;
	bool hidden = false, exempt = false;
	size_t cap = 0;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (f == NULL)
		return false;
	while (getline(&line, &cap, f) > 0) {
		/* "... <mount point> <opts> [tags] - proc <src> <super opts>" */
		if (strstr(line, " /proc ") == NULL ||
		    (opts = strstr(line, " - proc ")) == NULL)
			continue;
		opts = strchr(opts + 8, ' ');
		if (opts == NULL)
			continue;
		hidden = exempt = false;
		for (o = strtok_r(opts + 1, ",\n", &save); o != NULL;
		    o = strtok_r(NULL, ",\n", &save)) {
			if (strncmp(o, "hidepid=", 8) == 0)
				hidden = strcmp(o + 8, "0") != 0 &&
				    strcmp(o + 8, "off") != 0;
			else if (strncmp(o, "gid=", 4) == 0)
				exempt = zones_in_group((gid_t)strtoul(o + 4,
				    NULL, 10));
		}
	}
	free(line);
	fclose(f);
	return hidden && !exempt;
}

const char *
zones_may_look(const struct zones *z)
{
	if (z->kind == ZONE_KIND_NONE || zones_may_ptrace())
		return NULL;
	if (z->kind != ZONE_KIND_CGROUP)
		return "reading another user's /proc/<pid>/ns takes root or "
		    "CAP_SYS_PTRACE";
	if (zones_proc_hidden())
		return "/proc is mounted with hidepid= (systemd's "
		    "ProtectProc=): other users' /proc/<pid>/cgroup are hidden";
	return NULL;
}

const char *
zones_strerror(int err)
{
	switch (err) {
	case -ESRCH:
		return "its zone cannot be told (it exited, or statsd cannot "
		    "see its pid)";
	case -EACCES:
		return "statsd may not read its /proc/<pid> to tell its zone "
		    "(see statsd.conf's zones)";
	case -EXDEV:
		return "its cgroup is outside statsd's cgroup namespace";
	case -ENOENT:
		return "its /proc/<pid>/cgroup names no cgroup v2 path";
	case -ENAMETOOLONG:
		return "its container cgroup's path is too long";
	default:
		return strerror(-err);
	}
}

bool
zones_known(const struct zones *z, uint32_t zone)
{
	return zone == ZONE_GLOBAL || zones_find(z, zone, NULL) != NULL;
}

unsigned
zones_count(const struct zones *z)
{
	return (unsigned)z->n + 1;
}
