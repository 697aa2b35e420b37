/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_zones.c: statsd's zones — who sees what (Solaris's ks_zone,
 * ALL_ZONES, GLOBAL_ZONEID, KSTAT2_FLAG_GZ_VIS); zone_cgroups' patterns
 * (what is refused, what they match, the runtimes' real cgroup layouts);
 * a peer's zone found from the container cgroup of the process that
 * connected (the default: two cgroups are two zones, a sub-cgroup is its
 * container's zone, a process under none and statsd's own container are
 * the global zone, a zone is found again by its name after a restart);
 * and from its namespace (statsd's own is the global zone, two pid
 * namespaces are two zones, a process that joins a namespace is in its
 * zone). A peer that exited is refused, and the last reference frees a
 * zone. The cases that make cgroups or namespaces need root; without it
 * they say so and pass.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"
#include "zones.h"

/*
 * kstat2_create_histogram(9F): "The constant ALL_ZONES is used to make the
 * kstat visible in all zones, and GLOBAL_ZONEID to make it visible only
 * in the global zone"; KSTAT2_FLAG_GZ_VIS "indicates that this kstat is
 * created and made visible in both the global zone and ks_zone".
 */
START_TEST(who_sees_what)
{
	ck_assert(zone_sees(ZONE_GLOBAL, ZONE_ALL, false));
	ck_assert(zone_sees(7, ZONE_ALL, false));
	ck_assert(zone_sees(ZONE_GLOBAL, ZONE_GLOBAL, false));
	ck_assert(!zone_sees(7, ZONE_GLOBAL, false));
	ck_assert(zone_sees(7, 7, false));
	ck_assert(!zone_sees(ZONE_GLOBAL, 7, false));
	ck_assert(zone_sees(ZONE_GLOBAL, 7, true));
	ck_assert(!zone_sees(8, 7, true));
	ck_assert(!zone_sees(8, 7, false));
}
END_TEST

/* A listening socket with an abstract name of its own. */
static int
listener(struct sockaddr_un *sa, socklen_t *len)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(fd, 0);
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
	    (size_t)snprintf(sa->sun_path + 1, sizeof(sa->sun_path) - 1,
	    "statsd-test-zones-%d", (int)getpid()));
	ck_assert_int_eq(bind(fd, (struct sockaddr *)sa, *len), 0);
	ck_assert_int_eq(listen(fd, 8), 0);
	return fd;
}

/*
 * A peer process: (with newns) in a new pid namespace, (with joinpid) in
 * the one that process made for its children, connected to sa; it lives
 * until the caller closes hold[1]. Returns: the pid of the forked child
 * (which waits for the peer).
 */
static pid_t
peer(const struct sockaddr_un *sa, socklen_t len, bool newns, pid_t joinpid,
    const int hold[2])
{
	pid_t child = fork();

	ck_assert_int_ge(child, 0);
	if (child == 0) {
		pid_t gc;
		int s, st;
		char c;

		close(hold[1]);	/* so that the parent's close is the end */
		if (newns && unshare(CLONE_NEWPID) < 0)
			_exit(3);
		if (joinpid > 0) {
			char path[64];
			int nfd;

			/* unshare() moved joinpid's children, not itself. */
			snprintf(path, sizeof(path),
			    "/proc/%d/ns/pid_for_children", (int)joinpid);
			nfd = open(path, O_RDONLY | O_CLOEXEC);
			if (nfd < 0 || setns(nfd, CLONE_NEWPID) < 0)
				_exit(3);
		}
		/* The pid namespace is the children's: connect from one. */
		gc = fork();
		if (gc == 0) {
			s = socket(AF_UNIX, SOCK_STREAM, 0);
			if (s < 0 || connect(s, (const struct sockaddr *)sa,
			    len) < 0)
				_exit(1);
			(void)read(hold[0], &c, 1);
			_exit(0);
		}
		if (gc < 0 || waitpid(gc, &st, 0) < 0)
			_exit(2);
		_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 2);
	}
	return child;
}

/* Accept a peer and tell its zone. */
static int
zone_of(struct zones *z, int lfd, uint32_t *ret, int *ret_fd)
{
	struct ucred uc;
	socklen_t ul = sizeof(uc);
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &ul), 0);
	*ret_fd = fd;
	return zones_of_peer(z, fd, uc.pid, ret);
}

static bool
can_unshare_pid(void)
{
	pid_t p = fork();
	int st;

	if (p == 0)
		_exit(unshare(CLONE_NEWPID) == 0 ? 0 : 1);
	return p > 0 && waitpid(p, &st, 0) == p && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0;
}

START_TEST(own_namespace_is_global)
{
	struct sockaddr_un sa;
	socklen_t len;
	struct zones *z;
	uint32_t zone = 99;
	int lfd, hold[2], fd, st;
	pid_t c;

	ck_assert_int_eq(zones_new(ZONE_KIND_PIDNS, NULL, &z), 0);
	lfd = listener(&sa, &len);
	ck_assert_int_eq(pipe(hold), 0);
	c = peer(&sa, len, false, 0, hold);
	ck_assert_int_eq(zone_of(z, lfd, &zone, &fd), 0);
	ck_assert_uint_eq(zone, ZONE_GLOBAL);
	ck_assert_uint_eq(zones_count(z), 1);
	close(hold[1]);
	ck_assert_int_eq(waitpid(c, &st, 0), c);
	close(fd);
	close(lfd);
	zones_free(z);
}
END_TEST

START_TEST(pid_namespaces_are_zones)
{
	struct sockaddr_un sa;
	socklen_t len;
	struct zones *z;
	uint32_t za, zb, za2;
	char name[ZONE_NAME_MAX];
	int lfd, hold[2], fa, fb, fa2, st;
	pid_t ca, cb, ca2;

	if (!can_unshare_pid()) {
		fprintf(stderr, "test_zones: cannot make a pid namespace "
		    "here; namespace cases not run\n");
		return;
	}
	ck_assert_int_eq(zones_new(ZONE_KIND_PIDNS, NULL, &z), 0);
	lfd = listener(&sa, &len);
	ck_assert_int_eq(pipe(hold), 0);
	ca = peer(&sa, len, true, 0, hold);
	ck_assert_int_eq(zone_of(z, lfd, &za, &fa), 0);
	cb = peer(&sa, len, true, 0, hold);
	ck_assert_int_eq(zone_of(z, lfd, &zb, &fb), 0);
	ck_assert_uint_ne(za, ZONE_GLOBAL);
	ck_assert_uint_ne(zb, ZONE_GLOBAL);
	ck_assert_uint_ne(za, zb);
	ck_assert_str_eq(zones_name(z, ZONE_GLOBAL, name, sizeof(name)),
	    "global");
	ck_assert_int_eq(strncmp(zones_name(z, za, name, sizeof(name)),
	    "pid:[", 5), 0);
	/* A process that joins A's namespace is in zone A. */
	ca2 = peer(&sa, len, false, ca, hold);
	ck_assert_int_eq(zone_of(z, lfd, &za2, &fa2), 0);
	ck_assert_uint_eq(za2, za);
	ck_assert_uint_eq(zones_count(z), 3);
	/* Each peer holds a reference; the last one frees the zone. */
	zones_unref(z, za);
	ck_assert(zones_known(z, za));
	zones_unref(z, za2);
	ck_assert(!zones_known(z, za));
	zones_unref(z, zb);
	ck_assert_uint_eq(zones_count(z), 1);
	close(hold[1]);
	ck_assert_int_eq(waitpid(ca, &st, 0), ca);
	ck_assert_int_eq(waitpid(cb, &st, 0), cb);
	ck_assert_int_eq(waitpid(ca2, &st, 0), ca2);
	close(fa);
	close(fb);
	close(fa2);
	close(lfd);
	zones_free(z);
}
END_TEST

/* A peer that is gone before statsd looks cannot be told: refused, never
 * taken for the global zone, whether zones are cgroups or namespaces. */
START_TEST(exited_peer_is_refused)
{
	static const enum zone_kind kinds[] = { ZONE_KIND_CGROUP,
	    ZONE_KIND_PIDNS };
	struct sockaddr_un sa;
	socklen_t len;
	struct zones *z;
	uint32_t zone;
	int lfd, hold[2], fd, st;
	size_t i;
	pid_t c;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		ck_assert_int_eq(zones_new(kinds[i], NULL, &z), 0);
		lfd = listener(&sa, &len);
		ck_assert_int_eq(pipe(hold), 0);
		c = peer(&sa, len, false, 0, hold);
		close(hold[1]);
		ck_assert_int_eq(waitpid(c, &st, 0), c);
		ck_assert_int_eq(zone_of(z, lfd, &zone, &fd), -ESRCH);
		ck_assert_uint_eq(zones_count(z), 1);
		close(hold[0]);
		close(fd);
		close(lfd);
		zones_free(z);
	}
}
END_TEST

START_TEST(none_is_one_zone)
{
	struct sockaddr_un sa;
	socklen_t len;
	struct zones *z;
	uint32_t zone = 99;
	int lfd, hold[2], fd, st;
	pid_t c;

	ck_assert_int_eq(zones_new(ZONE_KIND_NONE, NULL, &z), 0);
	ck_assert_ptr_null(zones_may_look(z));
	lfd = listener(&sa, &len);
	ck_assert_int_eq(pipe(hold), 0);
	c = peer(&sa, len, can_unshare_pid(), 0, hold);
	ck_assert_int_eq(zone_of(z, lfd, &zone, &fd), 0);
	ck_assert_uint_eq(zone, ZONE_GLOBAL);
	close(hold[1]);
	ck_assert_int_eq(waitpid(c, &st, 0), c);
	close(fd);
	close(lfd);
	zones_free(z);
}
END_TEST


/* ------------------------------------------------------- zone_cgroups */

/* The zone path patterns give path: "" when none matches. */
static void
match_is(const char *patterns, const char *path, const char *want)
{
	struct zone_patterns *p;
	char why[256];
	size_t n;

	ck_assert_msg(zone_patterns_parse(patterns, &p, why, sizeof(why)) == 0,
	    "%.200s: %s", patterns, why);
	n = zone_patterns_match(p, path, strlen(path));
	ck_assert_msg(n == strlen(want) && strncmp(path, want, n) == 0,
	    "%.200s in %.200s: %zu bytes, not %.200s", path, patterns, n,
	    want);
	zone_patterns_free(p);
}

/* fnmatch(3)'s globs, one path component at a time. */
START_TEST(patterns_match_by_component)
{
	/* A pattern matches cgroups of exactly its depth: their ancestor. */
	match_is("/box/*", "/box/a", "/box/a");
	match_is("/box/*", "/box/a/b/c", "/box/a");
	match_is("/box/*", "/box", "");
	match_is("/box/*", "/other/a", "");
	/* No '*' crosses a '/'. */
	match_is("/box*", "/box/a", "/box");
	match_is("/*x", "/a/x", "");
	/* The deepest ancestor any pattern matches. */
	match_is("/box/* /box/*/in/*", "/box/a/in/b/c", "/box/a/in/b");
	match_is("/box/*/in/* /box/*", "/box/a/in/b/c", "/box/a/in/b");
	match_is("/box/*/in/* /box/*", "/box/a/out/b", "/box/a");
	/* '?', classes, and '\' quoting. */
	match_is("/p?d-[0-9]*", "/pod-7x", "/pod-7x");
	match_is("/p?d-[0-9]*", "/pod-x7", "");
	match_is("/p?d-[!0-9]*", "/pod-x7", "/pod-x7");
	match_is("/a\\*b", "/a*b", "/a*b");
	match_is("/a\\*b", "/axb", "");
	/* Literal names, whole. */
	match_is("/machine.slice", "/machine.slice/x", "/machine.slice");
	match_is("/machine.slice", "/machine.slicex", "");
	match_is("/machine.slice", "/machine", "");
	/* No patterns: no containers. */
	match_is("", "/box/a", "");
	match_is("  \t ", "/box/a", "");
}
END_TEST

/*
 * The default list and the cgroups the runtimes make (systemd-nspawn,
 * machined, podman, Docker, LXC, Kubernetes' kubelet), as their
 * /proc/<pid>/cgroup "0::" lines show them: each container (a pod, for
 * Kubernetes) is one zone; the host's services, sessions, a user's
 * podman itself and a QoS class are not containers.
 */
START_TEST(default_patterns_know_the_runtimes)
{
	static const char id[] =
	    "9ec39b91f3d70e1beff50a308f77067065ea6be0d91a3378375056cd4422cf3d";
	static const char uid[] = "74c13223_5a00_11e9_b385_42010a80018d";
	static const char uidd[] = "74c13223-5a00-11e9-b385-42010a80018d";
	char path[1024], want[512];
	const char *u = "/user.slice/user-1000.slice/user@1000.service";
	size_t i;
	static const char *const fixed[][2] = {
		{ "/machine.slice/machine-web.scope/payload/system.slice/"
		    "nginx.service", "/machine.slice/machine-web.scope" },
		{ "/machine.slice/machine-web.scope/supervisor",
		    "/machine.slice/machine-web.scope" },
		{ "/machine.slice/systemd-nspawn@db.service/payload",
		    "/machine.slice/systemd-nspawn@db.service" },
		{ "/machine.slice/machine-lxc\\x2d7.scope",
		    "/machine.slice/machine-lxc\\x2d7.scope" },
		{ "/lxc.payload.c1/init.scope", "/lxc.payload.c1" },
		{ "/lxc.payload.c1", "/lxc.payload.c1" },
		{ "/lxc.payload/c1/.lxc", "/lxc.payload/c1" },
		{ "/lxc/c1", "/lxc/c1" },
		{ "/lxc.monitor.c1", "" },
		{ "/system.slice/sshd.service", "" },
		{ "/system.slice/docker.service", "" },
		{ "/user.slice/user-1000.slice/session-4.scope", "" },
		{ "/user.slice/user-1000.slice/user@1000.service/user.slice/"
		    "podman-6696.scope", "" },
		{ "/kubepods.slice/kubepods-besteffort.slice", "" },
		{ "/kubepods/burstable", "" },
		{ "/init.scope", "" },
		{ "/", "" },
	};

	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		match_is(zone_cgroups_default, fixed[i][0], fixed[i][1]);
	/* Docker: the systemd driver, the cgroupfs driver, rootless. */
	snprintf(path, sizeof(path), "/system.slice/docker-%s.scope", id);
	match_is(zone_cgroups_default, path, path);
	snprintf(path, sizeof(path), "/docker/%s", id);
	match_is(zone_cgroups_default, path, path);
	snprintf(want, sizeof(want), "%s/user.slice/docker-%s.scope", u, id);
	snprintf(path, sizeof(path), "%s/init", want);
	match_is(zone_cgroups_default, path, want);
	/* podman: rootful (systemd, cgroupfs; a pod), rootless (a
	 * container, a pod's container). */
	snprintf(want, sizeof(want), "/machine.slice/libpod-%s.scope", id);
	snprintf(path, sizeof(path), "%s/container", want);
	match_is(zone_cgroups_default, path, want);
	snprintf(want, sizeof(want), "/machine.slice/machine-libpod_pod_%s."
	    "slice", id);
	snprintf(path, sizeof(path), "%s/libpod-%s.scope/container", want, id);
	match_is(zone_cgroups_default, path, want);
	snprintf(path, sizeof(path), "/libpod_parent/libpod-%s", id);
	match_is(zone_cgroups_default, path, path);
	snprintf(want, sizeof(want), "%s/user.slice/libpod-%s.scope", u, id);
	snprintf(path, sizeof(path), "%s/container", want);
	match_is(zone_cgroups_default, path, want);
	snprintf(want, sizeof(want), "%s/user.slice/user-libpod_pod_%s.slice",
	    u, id);
	snprintf(path, sizeof(path), "%s/libpod-%s.scope/container", want, id);
	match_is(zone_cgroups_default, path, want);
	/* Kubernetes: a pod is a zone, under either driver and QoS. */
	snprintf(want, sizeof(want), "/kubepods/besteffort/pod%s", uidd);
	snprintf(path, sizeof(path), "%s/%s", want, id);
	match_is(zone_cgroups_default, path, want);
	snprintf(want, sizeof(want), "/kubepods/pod%s", uidd);
	snprintf(path, sizeof(path), "%s/%s", want, id);
	match_is(zone_cgroups_default, path, want);
	snprintf(want, sizeof(want), "/kubepods.slice/kubepods-burstable.slice/"
	    "kubepods-burstable-pod%s.slice", uid);
	snprintf(path, sizeof(path), "%s/cri-containerd-%s.scope", want, id);
	match_is(zone_cgroups_default, path, want);
	snprintf(want, sizeof(want), "/kubepods.slice/kubepods-pod%s.slice",
	    uid);
	snprintf(path, sizeof(path), "%s/crio-%s.scope", want, id);
	match_is(zone_cgroups_default, path, want);
}
END_TEST

/* Matching costs time linear in the path: a path as deep and as long as
 * /proc shows one, against the longest globs allowed, still answers
 * (and as the patterns say). */
START_TEST(patterns_bound_their_work)
{
	char pat[4096], path[4200], want[4200];
	size_t n = 0, i;

	for (i = 0; i < ZONE_PATTERN_DEPTH; i++)
		n += (size_t)snprintf(pat + n, sizeof(pat) - n,
		    "/*a*a*a*a*a*a*a*a*a*a*a*a*a*a*");
	n = 0;
	for (i = 0; i < 40; i++) {
		path[n++] = '/';
		memset(path + n, 'a', 100);
		n += 100;
	}
	path[n] = '\0';
	/* The 32-deep ancestor of a 40-deep path matches; a 31-deep path
	 * is not deep enough. */
	path[n] = '\0';
	memcpy(want, path, 32 * 101);
	want[32 * 101] = '\0';
	match_is(pat, path, want);
	path[31 * 101] = '\0';
	match_is(pat, path, "");
}
END_TEST

/* Two containers are two zones; a cgroup under none is the host. */
START_TEST(cgroups_are_zones)
{
	struct zones *z;
	uint32_t a, a2, b, g, r;
	char name[ZONE_NAME_MAX];

	ck_assert_int_eq(zones_new(ZONE_KIND_CGROUP, "/box/* /deep/*/box/*",
	    &z), 0);
	ck_assert_ptr_null(zones_may_look(z));
	ck_assert_int_eq(zones_of_cgroup(z, "/box/a/x/y", &a), 0);
	ck_assert_int_eq(zones_of_cgroup(z, "/box/a", &a2), 0);
	ck_assert_int_eq(zones_of_cgroup(z, "/box/b", &b), 0);
	ck_assert_int_eq(zones_of_cgroup(z, "/elsewhere/b", &g), 0);
	ck_assert_uint_ne(a, ZONE_GLOBAL);
	ck_assert_uint_eq(a, a2);
	ck_assert_uint_ne(b, ZONE_GLOBAL);
	ck_assert_uint_ne(a, b);
	ck_assert_uint_eq(g, ZONE_GLOBAL);
	ck_assert_uint_eq(zones_count(z), 3);
	/* Named after the container's cgroup, which lasts. */
	ck_assert_str_eq(zones_name(z, a, name, sizeof(name)), "/box/a");
	ck_assert_str_eq(zones_cgroup(z, b), "/box/b");
	ck_assert(zones_lasting(z, a));
	ck_assert(zones_lasting(z, ZONE_GLOBAL));
	ck_assert(zones_lasting(z, ZONE_ALL));
	ck_assert_ptr_null(zones_cgroup(z, ZONE_GLOBAL));
	/* Outside statsd's cgroup namespace: refused, never the host. */
	ck_assert_int_eq(zones_of_cgroup(z, "/../../box/c", &r), -EXDEV);
	ck_assert_int_eq(zones_of_cgroup(z, "box/c", &r), -EINVAL);
	/* What a checkpoint names is found again, with a reference. */
	ck_assert_int_eq(zones_of_name(z, "/box/b", &r), 0);
	ck_assert_uint_eq(r, b);
	zones_unref(z, r);
	ck_assert_int_eq(zones_of_name(z, "/gone/zone", &r), 0);
	ck_assert_uint_ne(r, ZONE_GLOBAL);
	ck_assert_str_eq(zones_name(z, r, name, sizeof(name)), "/gone/zone");
	zones_unref(z, r);
	ck_assert(!zones_known(z, r));
	ck_assert_int_eq(zones_of_name(z, "/a//b", &r), -EINVAL);
	ck_assert_int_eq(zones_of_name(z, "/a/../b", &r), -EINVAL);
	ck_assert_int_eq(zones_of_name(z, "/", &r), -EINVAL);
	ck_assert_int_eq(zones_of_name(z, "global", &r), -EINVAL);
	/* The last reference frees a zone; its number is not reused. */
	zones_unref(z, a);
	zones_unref(z, a2);
	ck_assert(!zones_known(z, a));
	ck_assert_int_eq(zones_of_cgroup(z, "/box/a", &a2), 0);
	ck_assert_uint_ne(a2, a);
	zones_unref(z, a2);
	zones_unref(z, b);
	ck_assert_uint_eq(zones_count(z), 1);
	zones_free(z);
	/* No patterns: every peer is the host's. */
	ck_assert_int_eq(zones_new(ZONE_KIND_CGROUP, "", &z), 0);
	ck_assert_int_eq(zones_of_cgroup(z, "/box/a", &r), 0);
	ck_assert_uint_eq(r, ZONE_GLOBAL);
	zones_free(z);
	ck_assert_int_eq(zones_new(ZONE_KIND_CGROUP, "box/*", &z), -EINVAL);
}
END_TEST

/* ------------------------------------------------- cgroups made here */

static char cg_root[512];	/* the test's cgroup, on the cgroup2 mount */
static char cg_rel[600];	/* it, as /proc/<pid>/cgroup names it */
static char cg_home[1024];	/* this process's cgroup.procs, to go back */

static int cg_join(const char *procs);
static void cg_rmdir(const char *rel);

/* Back home, and the test's cgroups removed: at the end, and at exit
 * when a check fails (Check's forked test then exits). */
static void
cg_cleanup(void)
{
	if (cg_root[0] == '\0')
		return;
	(void)cg_join(cg_home);
	cg_rmdir("box-a/deeper");
	cg_rmdir("box-a");
	cg_rmdir("box-b");
	cg_rmdir("plain");
	(void)rmdir(cg_root);
}

/* Make the test's cgroup under the cgroup2 mount (/sys/fs/cgroup, or
 * /sys/fs/cgroup/unified on a hybrid host). Returns: false if it cannot
 * be made here (not root, no cgroup2). */
static bool
cg_setup(void)
{
	char line[1024], mnt[256] = "", self[512] = "";
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (f == NULL)
		return false;
	while (fgets(line, sizeof(line), f) != NULL) {
		char *dash = strstr(line, " - cgroup2 ");
		char m[256];

		if (dash != NULL && sscanf(line, "%*s %*s %*s %*s %255s",
		    m) == 1) {
			snprintf(mnt, sizeof(mnt), "%s", m);
			break;
		}
	}
	fclose(f);
	f = fopen("/proc/self/cgroup", "re");
	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "0::", 3) == 0) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(self, sizeof(self), "%.500s", line + 3);
		}
	if (f != NULL)
		fclose(f);
	if (mnt[0] == '\0' || self[0] == '\0')
		return false;
	snprintf(cg_home, sizeof(cg_home), "%s%s/cgroup.procs", mnt,
	    strcmp(self, "/") == 0 ? "" : self);
	snprintf(cg_root, sizeof(cg_root), "%s/statsd-unit-zones-%d", mnt,
	    (int)getpid());
	snprintf(cg_rel, sizeof(cg_rel), "%s/statsd-unit-zones-%d",
	    strcmp(self, "/") == 0 ? "" : self, (int)getpid());
	if (mkdir(cg_root, 0755) < 0) {
		cg_root[0] = '\0';
		return false;
	}
	atexit(cg_cleanup);
	return true;
}

/* Make <cg_root>/rel. */
static void
cg_mkdir(const char *rel)
{
	char p[1024];

	snprintf(p, sizeof(p), "%s/%s", cg_root, rel);
	ck_assert_int_eq(mkdir(p, 0755), 0);
}

static void
cg_rmdir(const char *rel)
{
	char p[1024];

	snprintf(p, sizeof(p), "%s/%s", cg_root, rel);
	(void)rmdir(p);
}

/* Move the calling process into procs (a cgroup.procs path). */
static int
cg_join(const char *procs)
{
	int fd = open(procs, O_WRONLY | O_CLOEXEC);
	int ok = fd >= 0 && write(fd, "0", 1) == 1;

	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

/* A peer process in <cg_root>/rel (NULL: where this process is),
 * connected to sa; it lives until hold[1] is closed. */
static pid_t
cg_peer(const struct sockaddr_un *sa, socklen_t len, const char *rel,
    const int hold[2])
{
	pid_t child = fork();

	ck_assert_int_ge(child, 0);
	if (child == 0) {
		char procs[1024];
		int s;
		char c;

		close(hold[1]);
		snprintf(procs, sizeof(procs), "%s/%s/cgroup.procs", cg_root,
		    rel != NULL ? rel : "");
		if (rel != NULL && cg_join(procs) < 0)
			_exit(3);
		s = socket(AF_UNIX, SOCK_STREAM, 0);
		if (s < 0 || connect(s, (const struct sockaddr *)sa, len) < 0)
			_exit(1);
		(void)read(hold[0], &c, 1);
		_exit(0);
	}
	return child;
}

/* The zone of a peer made in rel. */
static int
cg_zone(struct zones *z, int lfd, const struct sockaddr_un *sa,
    socklen_t len, const char *rel, uint32_t *ret)
{
	int hold[2], fd, st, r;
	pid_t c;

	ck_assert_int_eq(pipe(hold), 0);
	c = cg_peer(sa, len, rel, hold);
	r = zone_of(z, lfd, ret, &fd);
	close(hold[1]);
	close(hold[0]);
	ck_assert_int_eq(waitpid(c, &st, 0), c);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(fd);
	return r;
}

/*
 * The default mode, for real: cgroups made here, peers moved into them
 * before they connect. Two containers are two zones named after their
 * cgroups; a peer deeper in a container is in its zone; a peer in no
 * container is the host's; and when statsd itself runs in a container,
 * that container is the global zone.
 */
START_TEST(peers_in_cgroups)
{
	struct sockaddr_un sa;
	socklen_t len;
	struct zones *z;
	uint32_t a, a2, b, g;
	char pats[700], name[ZONE_NAME_MAX], want[620];
	int lfd;

	if (!cg_setup()) {
		fprintf(stderr, "test_zones: cannot make a cgroup here (not "
		    "root, or no cgroup2 mount); cgroup peers not tested\n");
		return;
	}
	cg_mkdir("box-a");
	cg_mkdir("box-a/deeper");
	cg_mkdir("box-b");
	cg_mkdir("plain");
	/* Patterns name cgroups as /proc/<pid>/cgroup shows them. */
	snprintf(want, sizeof(want), "%s", cg_rel);
	snprintf(pats, sizeof(pats), "%s/box-*", want);
	ck_assert_int_eq(zones_new(ZONE_KIND_CGROUP, pats, &z), 0);
	lfd = listener(&sa, &len);
	ck_assert_int_eq(cg_zone(z, lfd, &sa, len, "box-a", &a), 0);
	ck_assert_int_eq(cg_zone(z, lfd, &sa, len, "box-a/deeper", &a2), 0);
	ck_assert_int_eq(cg_zone(z, lfd, &sa, len, "box-b", &b), 0);
	ck_assert_int_eq(cg_zone(z, lfd, &sa, len, "plain", &g), 0);
	ck_assert_uint_ne(a, ZONE_GLOBAL);
	ck_assert_uint_eq(a2, a);
	ck_assert_uint_ne(b, ZONE_GLOBAL);
	ck_assert_uint_ne(b, a);
	ck_assert_uint_eq(g, ZONE_GLOBAL);
	snprintf(name, sizeof(name), "%s/box-a", want);
	ck_assert_str_eq(zones_cgroup(z, a), name);
	ck_assert_int_eq(cg_zone(z, lfd, &sa, len, NULL, &g), 0);
	ck_assert_uint_eq(g, ZONE_GLOBAL);
	zones_free(z);
	/* statsd in box-a: box-a is its global zone, box-b a zone. */
	snprintf(name, sizeof(name), "%s/box-a/cgroup.procs", cg_root);
	ck_assert_int_eq(cg_join(name), 0);
	ck_assert_int_eq(zones_new(ZONE_KIND_CGROUP, pats, &z), 0);
	ck_assert_int_eq(cg_zone(z, lfd, &sa, len, "box-a/deeper", &a), 0);
	ck_assert_uint_eq(a, ZONE_GLOBAL);
	ck_assert_int_eq(cg_zone(z, lfd, &sa, len, "box-b", &b), 0);
	ck_assert_uint_ne(b, ZONE_GLOBAL);
	snprintf(name, sizeof(name), "%s/box-a", want);
	ck_assert_int_eq(zones_of_name(z, name, &a), 0);
	ck_assert_uint_eq(a, ZONE_GLOBAL);
	zones_free(z);
	close(lfd);
	cg_cleanup();
	ck_assert_int_eq(access(cg_root, F_OK), -1);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("zones");
	TCase *tc = tcase_create("zones");

	tcase_add_test(tc, who_sees_what);
	tcase_add_test(tc, own_namespace_is_global);
	tcase_add_test(tc, pid_namespaces_are_zones);
	tcase_add_test(tc, exited_peer_is_refused);
	tcase_add_test(tc, none_is_one_zone);
	tcase_add_test(tc, patterns_match_by_component);
	tcase_add_test(tc, default_patterns_know_the_runtimes);
	tcase_add_test(tc, patterns_bound_their_work);
	tcase_add_test(tc, cgroups_are_zones);
	tcase_add_test(tc, peers_in_cgroups);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
