/*
 * test_zones.c: statsd's zones — who sees what (Solaris's ks_zone,
 * ALL_ZONES, GLOBAL_ZONEID, KSTAT2_FLAG_GZ_VIS), and a peer's zone found
 * from the namespace of the process that connected: statsd's own is the
 * global zone, two pid namespaces are two zones, a process that joins a
 * namespace is in its zone, a peer that exited is refused, and the last
 * reference frees a zone. The namespace cases need root (unshare, setns);
 * without it they say so and pass.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
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

	ck_assert_int_eq(zones_new(ZONE_KIND_PID, &z), 0);
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
	ck_assert_int_eq(zones_new(ZONE_KIND_PID, &z), 0);
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
 * taken for the global zone. */
START_TEST(exited_peer_is_refused)
{
	struct sockaddr_un sa;
	socklen_t len;
	struct zones *z;
	uint32_t zone;
	int lfd, hold[2], fd, st;
	pid_t c;

	ck_assert_int_eq(zones_new(ZONE_KIND_PID, &z), 0);
	lfd = listener(&sa, &len);
	ck_assert_int_eq(pipe(hold), 0);
	c = peer(&sa, len, false, 0, hold);
	close(hold[1]);
	ck_assert_int_eq(waitpid(c, &st, 0), c);
	ck_assert_int_eq(zone_of(z, lfd, &zone, &fd), -ESRCH);
	ck_assert_uint_eq(zones_count(z), 1);
	close(fd);
	close(lfd);
	zones_free(z);
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

	ck_assert_int_eq(zones_new(ZONE_KIND_NONE, &z), 0);
	ck_assert(zones_may_look(z));
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
	suite_add_tcase(s, tc);
	return unit_main(s);
}
