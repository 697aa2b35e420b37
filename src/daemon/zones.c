/*
 * zones.c: peers' zones — the namespace of the connecting process, read
 * race-free through its pidfd — and the table that numbers them.
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

const char *const zone_kind_names[ZONE_KIND_NUM + 1] = {
	[ZONE_KIND_PID] = "pid",
	[ZONE_KIND_USER] = "user",
	[ZONE_KIND_CGROUP] = "cgroup",
	[ZONE_KIND_NONE] = "none",
	NULL
};

struct zone {
	uint32_t	 id;
	dev_t		 dev;
	ino_t		 ino;
	int		 nsfd;		/* holds the namespace (and its inode) */
	unsigned	 refs;
};

struct zones {
	enum zone_kind	 kind;
	struct zone	 global;
	struct zone	**v;		/* the others */
	size_t		 n, cap;
	uint32_t	 next_id;
};

/* Open the namespace of kind of pid ("self" when pid is 0). */
static int
zones_ns_open(enum zone_kind kind, pid_t pid, struct stat *st)
{
	char path[64];
	int fd;

	if (pid == 0)
		snprintf(path, sizeof(path), "/proc/self/ns/%s",
		    zone_kind_names[kind]);
	else
		snprintf(path, sizeof(path), "/proc/%d/ns/%s", (int)pid,
		    zone_kind_names[kind]);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	/* ENOENT: gone, or hidden (ProtectProc=invisible) from a statsd
	 * that may not look at it: the same as EACCES then. */
	if (fd < 0)
		return errno == ENOENT && kill(pid, 0) < 0 && errno == ESRCH ?
		    -ESRCH : errno == ENOENT ? -EACCES : -errno;
	if (fstat(fd, st) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

int
zones_new(enum zone_kind kind, struct zones **ret)
{
	struct zones *z;
	struct stat st;
	int fd = -1;

	if ((unsigned)kind >= ZONE_KIND_NUM)
		return -EINVAL;
	if (kind != ZONE_KIND_NONE) {
		fd = zones_ns_open(kind, 0, &st);
		if (fd < 0)
			return fd;
	}
	z = calloc(1, sizeof(*z));
	if (z == NULL) {
		if (fd >= 0)
			close(fd);
		return -ENOMEM;
	}
	z->kind = kind;
	z->global.id = ZONE_GLOBAL;
	z->global.nsfd = fd;
	if (fd >= 0) {
		z->global.dev = st.st_dev;
		z->global.ino = st.st_ino;
	}
	z->next_id = 1;
	*ret = z;
	return 0;
}

struct zones *
zones_free(struct zones *z)
{
	size_t i;

	if (z == NULL)
		return NULL;
	for (i = 0; i < z->n; i++) {
		close(z->v[i]->nsfd);
		free(z->v[i]);
	}
	if (z->global.nsfd >= 0)
		close(z->global.nsfd);
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

int
zones_of_peer(struct zones *z, int fd, pid_t pid, uint32_t *ret_zone)
{
	struct zone *e, **nv;
	struct stat st;
	size_t i;
	int pfd, nsfd, r;

	if (z->kind == ZONE_KIND_NONE) {
		*ret_zone = ZONE_GLOBAL;
		return 0;
	}
	/* pid 0: the peer is in a pid namespace statsd cannot see into. */
	if (pid <= 0)
		return -ESRCH;
	pfd = zones_peer_pidfd(fd, pid);
	if (pfd < 0)
		return pfd == -ESRCH ? -ESRCH : pfd;
	nsfd = zones_ns_open(z->kind, pid, &st);
	/* Still the same process? Then the namespace read was its own. */
	r = (int)syscall(SYS_pidfd_send_signal, pfd, 0, NULL, 0);
	if (r < 0)
		r = errno == EPERM ? 0 : -ESRCH;
	close(pfd);
	if (nsfd < 0)
		return nsfd;
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
		if (e->dev == st.st_dev && e->ino == st.st_ino) {
			close(nsfd);
			e->refs++;
			*ret_zone = e->id;
			return 0;
		}
	}
	if (z->n == z->cap) {
		size_t cap = z->cap > 0 ? 2 * z->cap : 8;

		nv = realloc(z->v, cap * sizeof(*nv));
		if (nv == NULL) {
			close(nsfd);
			return -ENOMEM;
		}
		z->v = nv;
		z->cap = cap;
	}
	e = calloc(1, sizeof(*e));
	if (e == NULL || z->next_id == ZONE_ALL) {
		free(e);
		close(nsfd);
		return -ENOMEM;
	}
	e->id = z->next_id++;
	e->dev = st.st_dev;
	e->ino = st.st_ino;
	e->nsfd = nsfd;
	e->refs = 1;
	z->v[z->n++] = e;
	*ret_zone = e->id;
	return 0;
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
	close(e->nsfd);
	free(e);
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
	else if ((e = zones_find(z, zone, NULL)) != NULL)
		snprintf(buf, len, "%s:[%llu]", zone_kind_names[z->kind],
		    (unsigned long long)e->ino);
	else
		snprintf(buf, len, "zone%u", (unsigned)zone);
	return buf;
}

bool
zones_may_look(const struct zones *z)
{
	char line[256];
	unsigned long long eff = 0;
	bool found = false;
	FILE *f;

	if (z->kind == ZONE_KIND_NONE || geteuid() == 0)
		return true;
	/* Another user's /proc/<pid>/ns needs ptrace access to it. */
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
