/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rights.c: peer credentials, the admin group and the per-object checks
 * behind the read/owner/admin rights.
 */
#include <errno.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>

#include "daemon.h"
#include "log.h"
#include "rights.h"
#include "zones.h"

#ifndef SO_PEERGROUPS
#define SO_PEERGROUPS 59
#endif

const char *const right_names[RIGHT_NUM] = { "read", "owner", "admin" };

/* Is gid among fd's peer's groups? SO_PEERGROUPS (Linux 4.13) gives the
 * supplementary groups as they were at connect(). */
static bool
rights_peer_in_group(int fd, gid_t gid)
{
	gid_t groups[64], *g = groups;
	socklen_t len = sizeof(groups);
	bool found = false;
	size_t i;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &len) < 0) {
		if (errno != ERANGE)
			return false;
		/* len now says how much is needed. */
		if (len == 0 || len > 65536 * sizeof(gid_t))
			return false;
		g = malloc(len);
		if (g == NULL)
			return false;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &len) < 0) {
			free(g);
			return false;
		}
	}
	for (i = 0; i < len / sizeof(gid_t); i++)
		if (g[i] == gid) {
			found = true;
			break;
		}
	if (g != groups)
		free(g);
	return found;
}

int
rights_peer_init(const struct statsd *d, int fd, struct peer *ret)
{
	struct ucred uc;
	socklen_t len = sizeof(uc);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) < 0)
		return -errno;
	if (len != sizeof(uc))
		return -EIO;
	rights_peer_cred(d, uc.uid, uc.gid, ret);
	ret->pid = uc.pid;
	/* A connection's supplementary groups count too. */
	ret->privileged |= d->admin_gid_valid &&
	    rights_peer_in_group(fd, d->admin_gid);
	return zones_of_peer(d->zones, fd, uc.pid, &ret->zone);
}

void
rights_peer_cred(const struct statsd *d, uid_t uid, gid_t gid,
    struct peer *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->uid = uid;
	ret->gid = gid;
	ret->zone = ZONE_GLOBAL;
	ret->privileged = uid == 0 || uid == d->self_uid ||
	    (d->admin_gid_valid && gid == d->admin_gid);
}

void
rights_peer_done(const struct statsd *d, struct peer *p)
{
	zones_unref(d->zones, p->zone);
	p->zone = ZONE_GLOBAL;
}

void
rights_admin_group_update(struct statsd *d)
{
	struct group *gr;

	d->admin_gid_valid = false;
	if (d->cfg.admin_group == NULL || d->cfg.admin_group[0] == '\0')
		return;
	errno = 0;
	gr = getgrnam(d->cfg.admin_group);
	if (gr == NULL) {
		log_notice("admin group \"%s\" does not exist; only uid 0 and "
		    "statsd's own uid are privileged", d->cfg.admin_group);
		return;
	}
	d->admin_gid = gr->gr_gid;
	d->admin_gid_valid = true;
}

bool
rights_allows(const struct peer *p, enum right r)
{
	/* A container's root administers its zone, not statsd. */
	return r != RIGHT_ADMIN || (p->privileged && p->zone == ZONE_GLOBAL);
}

bool
rights_may_modify(const struct peer *p, uid_t owner, uint32_t owner_zone)
{
	if (p->privileged && p->zone == ZONE_GLOBAL)
		return true;
	return p->zone == owner_zone && (p->privileged || p->uid == owner);
}

bool
rights_may_see(const struct peer *p, bool priv, uint32_t zone, bool gz)
{
	return (p->privileged || !priv) && zone_sees(p->zone, zone, gz);
}

json_t *
rights_to_json(const struct peer *p)
{
	json_t *a = json_array();
	int r;

	for (r = 0; r < RIGHT_NUM; r++)
		if (rights_allows(p, (enum right)r))
			json_array_append_new(a, json_string(right_names[r]));
	return a;
}

/* An IPv4 address mapped into IPv6 (::ffff:a.b.c.d): its IPv4 form. */
static bool
rights_v4_mapped(const struct sockaddr_in6 *a, struct sockaddr_in *ret)
{
	if (!IN6_IS_ADDR_V4MAPPED(&a->sin6_addr))
		return false;
	memset(ret, 0, sizeof(*ret));
	ret->sin_family = AF_INET;
	ret->sin_port = a->sin6_port;
	memcpy(&ret->sin_addr, &a->sin6_addr.s6_addr[12], 4);
	return true;
}

int
rights_tcp_peer_uid(int nl, int fd, uid_t *uid)
{
	union {
		struct sockaddr		sa;
		struct sockaddr_in	in;
		struct sockaddr_in6	in6;
		struct sockaddr_storage	ss;
	} me, peer;
	socklen_t ml = sizeof(me), pl = sizeof(peer);
	struct {
		struct nlmsghdr		nlh;
		struct inet_diag_req_v2	r;
	} req;
	union {
		struct nlmsghdr	nlh;
		char		buf[512];
	} resp;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct sockaddr_in m4, p4;
	const struct inet_diag_msg *msg;
	static _Thread_local uint32_t seq;
	unsigned tries;
	ssize_t n;

	if (getsockname(fd, &me.sa, &ml) < 0 ||
	    getpeername(fd, &peer.sa, &pl) < 0)
		return -errno;
	/* A listener on [::] takes IPv4 peers as mapped addresses: their
	 * sockets are IPv4 ones. */
	if (me.sa.sa_family == AF_INET6 && peer.sa.sa_family == AF_INET6 &&
	    rights_v4_mapped(&me.in6, &m4) && rights_v4_mapped(&peer.in6,
	    &p4)) {
		me.in = m4;
		peer.in = p4;
	}
	memset(&req, 0, sizeof(req));
	req.nlh.nlmsg_len = sizeof(req);
	req.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	req.nlh.nlmsg_flags = NLM_F_REQUEST;
	req.nlh.nlmsg_seq = ++seq;
	req.r.sdiag_family = (uint8_t)me.sa.sa_family;
	req.r.sdiag_protocol = IPPROTO_TCP;
	req.r.idiag_states = ~0u;
	req.r.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
	req.r.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
	/* The other end's socket: its source is our peer, its destination
	 * us. */
	if (me.sa.sa_family == AF_INET && peer.sa.sa_family == AF_INET) {
		req.r.id.idiag_sport = peer.in.sin_port;
		req.r.id.idiag_dport = me.in.sin_port;
		memcpy(req.r.id.idiag_src, &peer.in.sin_addr, 4);
		memcpy(req.r.id.idiag_dst, &me.in.sin_addr, 4);
	} else if (me.sa.sa_family == AF_INET6 &&
	    peer.sa.sa_family == AF_INET6) {
		req.r.id.idiag_sport = peer.in6.sin6_port;
		req.r.id.idiag_dport = me.in6.sin6_port;
		memcpy(req.r.id.idiag_src, &peer.in6.sin6_addr, 16);
		memcpy(req.r.id.idiag_dst, &me.in6.sin6_addr, 16);
	} else
		return -ENOENT;
	if (sendto(nl, &req, sizeof(req), 0, (struct sockaddr *)&kernel,
	    sizeof(kernel)) < 0)
		return -errno;
	/* The kernel answers within sendto(): the reply is queued by now,
	 * so the thread never waits here. One left by an earlier call that
	 * was not read (another sequence number) is skipped. */
	for (tries = 0;; tries++) {
		if ((n = recv(nl, &resp, sizeof(resp), MSG_DONTWAIT)) < 0)
			return errno == EAGAIN ? -EIO : -errno;
		if (!NLMSG_OK(&resp.nlh, (size_t)n))
			return -EIO;
		if (resp.nlh.nlmsg_seq == seq)
			break;
		if (tries == 8)
			return -EIO;
	}
	if (resp.nlh.nlmsg_type == NLMSG_ERROR)
		return -ENOENT;		/* not here: another host's */
	if (resp.nlh.nlmsg_type != SOCK_DIAG_BY_FAMILY ||
	    resp.nlh.nlmsg_len < NLMSG_LENGTH(sizeof(*msg)))
		return -EIO;
	msg = NLMSG_DATA(&resp.nlh);
	*uid = (uid_t)msg->idiag_uid;
	return 0;
}

int
rights_tcp_diag_open(void)
{
	int nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC,
	    NETLINK_SOCK_DIAG);

	return nl < 0 ? -errno : nl;
}
