/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_rights.c: who a peer is (src/daemon/policy/rights.c): the
 * privileged ones (uid 0, statsd's own uid, the admin group), what a
 * container's root may do, what a peer may see and change; and the owner
 * of a TCP connection's other end, told by the kernel's socket
 * diagnostics for both ends of a loopback connection, IPv4 and IPv6
 * (mapped IPv4 on a [::] listener included), a reply left unread by an
 * earlier query skipped, and no owner for a socket that is not TCP.
 */
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon.h"
#include "rights.h"
#include "unit.h"
#include "zones.h"

static struct statsd d;

START_TEST(who_is_privileged)
{
	struct peer p;

	d.self_uid = 4242;
	d.admin_gid = 777;
	d.admin_gid_valid = true;
	rights_peer_cred(&d, 0, 100, &p);
	ck_assert(p.privileged);
	rights_peer_cred(&d, 4242, 100, &p);
	ck_assert(p.privileged);
	rights_peer_cred(&d, 1000, 777, &p);
	ck_assert(p.privileged);
	rights_peer_cred(&d, 65534, 65534, &p);
	ck_assert(!p.privileged);
	ck_assert(rights_allows(&p, RIGHT_READ));
	ck_assert(!rights_allows(&p, RIGHT_ADMIN));
	ck_assert(rights_may_modify(&p, 65534, ZONE_GLOBAL));
	ck_assert(!rights_may_modify(&p, 0, ZONE_GLOBAL));
	ck_assert(rights_may_see(&p, false, ZONE_GLOBAL, false));
	ck_assert(!rights_may_see(&p, true, ZONE_GLOBAL, false));
	/* A container's root: its own zone's, never statsd's admin. */
	rights_peer_cred(&d, 0, 0, &p);
	p.zone = 5;
	ck_assert(!rights_allows(&p, RIGHT_ADMIN));
	ck_assert(rights_may_modify(&p, 1000, 5));
	ck_assert(!rights_may_modify(&p, 1000, ZONE_GLOBAL));
	d.admin_gid_valid = false;
}
END_TEST

/* A connected pair over loopback: the accepted end in *srv, the
 * client's in *cli. */
static bool
tcp_pair(int family, const void *addr, int *srv, int *cli)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int l, one = 1;

	l = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0)
		return false;
	memset(&ss, 0, sizeof(ss));
	if (family == AF_INET) {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;

		a->sin_family = AF_INET;
		memcpy(&a->sin_addr, addr, 4);
		len = sizeof(*a);
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;

		a->sin6_family = AF_INET6;
		memcpy(&a->sin6_addr, addr, 16);
		len = sizeof(*a);
		(void)setsockopt(l, IPPROTO_IPV6, IPV6_V6ONLY, &(int){ 0 },
		    sizeof(int));
	}
	(void)setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(l, (struct sockaddr *)&ss, len) < 0 || listen(l, 4) < 0 ||
	    getsockname(l, (struct sockaddr *)&ss, &len) < 0) {
		close(l);
		return false;
	}
	*cli = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(*cli, 0);
	ck_assert_int_eq(connect(*cli, (struct sockaddr *)&ss, len), 0);
	*srv = accept(l, NULL, NULL);
	ck_assert_int_ge(*srv, 0);
	close(l);
	return true;
}

static void
both_ends_owned(int family, const void *addr)
{
	int nl = rights_tcp_diag_open(), srv, cli;
	uid_t uid = 12345;

	if (nl < 0) {
		fprintf(stderr, "# no sock_diag: %s\n", strerror(-nl));
		return;
	}
	if (!tcp_pair(family, addr, &srv, &cli)) {
		/* No IPv6 loopback here. */
		close(nl);
		return;
	}
	ck_assert_int_eq(rights_tcp_peer_uid(nl, srv, &uid), 0);
	ck_assert_uint_eq(uid, getuid());
	uid = 12345;
	ck_assert_int_eq(rights_tcp_peer_uid(nl, cli, &uid), 0);
	ck_assert_uint_eq(uid, getuid());
	close(srv);
	close(cli);
	close(nl);
}

START_TEST(a_loopback_peer_has_its_owner)
{
	static const unsigned char lo4[4] = { 127, 0, 0, 1 };
	static const unsigned char lo6[16] = { [15] = 1 };
	static const unsigned char mapped[16] = { [10] = 0xff, [11] = 0xff,
	    [12] = 127, [15] = 1 };

	both_ends_owned(AF_INET, lo4);
	both_ends_owned(AF_INET6, lo6);
	/* An IPv4 client of a [::] listener: its socket is IPv4. */
	both_ends_owned(AF_INET6, mapped);
}
END_TEST

/* A reply no one read (an earlier query's, say) is skipped, not taken
 * for the answer. */
START_TEST(a_stale_reply_is_skipped)
{
	static const unsigned char lo4[4] = { 127, 0, 0, 1 };
	struct {
		struct nlmsghdr		nlh;
		struct inet_diag_req_v2	r;
	} req;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	int nl = rights_tcp_diag_open(), srv, cli;
	uid_t uid = 12345;

	if (nl < 0 || !tcp_pair(AF_INET, lo4, &srv, &cli)) {
		if (nl >= 0)
			close(nl);
		return;
	}
	/* A query of no socket at all: its error reply waits unread. */
	memset(&req, 0, sizeof(req));
	req.nlh.nlmsg_len = sizeof(req);
	req.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	req.nlh.nlmsg_flags = NLM_F_REQUEST;
	req.nlh.nlmsg_seq = 0x7fffffff;
	req.r.sdiag_family = AF_INET;
	req.r.sdiag_protocol = IPPROTO_TCP;
	req.r.idiag_states = ~0u;
	req.r.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
	req.r.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
	ck_assert_int_eq(sendto(nl, &req, sizeof(req), 0,
	    (struct sockaddr *)&kernel, sizeof(kernel)), (int)sizeof(req));
	ck_assert_int_eq(rights_tcp_peer_uid(nl, srv, &uid), 0);
	ck_assert_uint_eq(uid, getuid());
	close(srv);
	close(cli);
	close(nl);
}
END_TEST

START_TEST(a_socket_not_tcp_has_none)
{
	int nl = rights_tcp_diag_open(), sv[2];
	uid_t uid;

	if (nl < 0)
		return;
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	ck_assert_int_eq(rights_tcp_peer_uid(nl, sv[0], &uid), -ENOENT);
	close(sv[0]);
	close(sv[1]);
	ck_assert_int_eq(rights_tcp_peer_uid(nl, -1, &uid), -EBADF);
	close(nl);
}
END_TEST

static Suite *
rights_suite(void)
{
	Suite *s = suite_create("rights");
	TCase *tc = tcase_create("rights");

	tcase_add_test(tc, who_is_privileged);
	tcase_add_test(tc, a_loopback_peer_has_its_owner);
	tcase_add_test(tc, a_stale_reply_is_skipped);
	tcase_add_test(tc, a_socket_not_tcp_has_none);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_main(rights_suite());
}
