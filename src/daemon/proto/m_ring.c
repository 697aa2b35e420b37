/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * m_ring.c: io.statsd.RingAttach (new rings, and rings handed back after
 * a restart) and io.statsd.SegmentAttach (read-only store segments). The
 * descriptors travel with the reply, or with the call, as SCM_RIGHTS.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "control.h"
#include "daemon.h"
#include "drain.h"
#include "quota.h"
#include "methods.h"
#include "registry.h"
#include "ring.h"
#include "store.h"
#include "view.h"

const struct vl_field m_ring_attach_params[] = {
	VLF_INT("capacity_log2", true, RING_CAP_LOG2_MIN, RING_CAP_LOG2_MAX),
	VLF_INT("overflow_size", true, 0, RING_OVF_MAX),
	VLF_BOOL("adopt", true),
	VLF_END
};

const struct vl_field m_ring_segment_params[] = {
	VLF_INT("from", true, 0, INT32_MAX),
	VLF_END
};

static void
m_ring_adopt(struct vl_call *call)
{
	struct statsd *d = call->d;
	struct quota_refusal why = { "", 0 };
	uint64_t cap = 0, pending = 0, ovf;
	uint32_t id;
	size_t n;
	int fds[2], r;

	n = control_take_fds(call->conn, fds, 2);
	if (n != 2) {
		while (n > 0)
			close(fds[--n]);
		varlink_error_value(call, "adopt",
		    "the call must carry the ring's "
		    "memfd and eventfd (SCM_RIGHTS)");
		return;
	}
	r = drain_ring_adopt(d->drain, call->conn, fds[0], fds[1], &id, &cap,
	    &pending, &ovf, &why);
	switch (r) {
	case 0:
		break;
	case -EDQUOT:
		varlink_error_limit(call, why.limit, (int64_t)why.value);
		return;
	case -EPERM:
		varlink_error_value(call, "adopt",
		    "descriptor 0 is not a sealed "
		    "memfd");
		return;
	case -EBADF:
		varlink_error_value(call, "adopt", "descriptor 1 is not an "
		    "eventfd");
		return;
	case -EFBIG:
		varlink_error_value(call, "adopt", "ring larger than "
		    "ring_max_capacity_log2 or ring_max_overflow_size");
		return;
	case -EBUSY:
		varlink_error_value(call, "adopt", "the ring is attached "
		    "already: a ring is adopted once");
		return;
	case -ENOENT:
		varlink_error_value(call, "adopt", "not a ring statsd made for "
		    "this user (or statsd runs without its ring journal)");
		return;
	default:
		varlink_error_value(call, "adopt", "not a ring this statsd can "
		    "read (%s)", strerror(-r));
		return;
	}
	varlink_reply(call, json_pack("{s:I, s:I, s:I, s:b, s:I}", "ring",
	    (json_int_t)id, "capacity", (json_int_t)cap, "overflow_size",
	    (json_int_t)ovf, "adopted", 1, "pending", (json_int_t)pending));
}

void
m_ring_attach(struct vl_call *call, json_t *params)
{
	struct statsd *d = call->d;
	struct quota_refusal why = { "", 0 };
	int64_t log2, ovf;
	uint32_t id;
	int fds[2], r;

	if (varlink_bool(params, "adopt", false)) {
		if (json_object_get(params, "capacity_log2") != NULL) {
			varlink_error_param(call, "capacity_log2");
			return;
		}
		if (json_object_get(params, "overflow_size") != NULL) {
			varlink_error_param(call, "overflow_size");
			return;
		}
		m_ring_adopt(call);
		return;
	}
	log2 = varlink_int(params, "capacity_log2", d->cfg.ring_capacity_log2);
	if (log2 > d->cfg.ring_max_capacity_log2) {
		varlink_error_value(call, "capacity_log2", "above "
		    "ring_max_capacity_log2 (%u)",
		    d->cfg.ring_max_capacity_log2);
		return;
	}
	ovf = varlink_int(params, "overflow_size",
	    (int64_t)d->cfg.ring_overflow_size);
	if ((uint64_t)ovf > d->cfg.ring_max_overflow_size) {
		varlink_error_value(call, "overflow_size", "above "
		    "ring_max_overflow_size (%llu)",
		    (unsigned long long)d->cfg.ring_max_overflow_size);
		return;
	}
	if (ovf % (RING_OVF_NBUF * RING_OVF_ALIGN) != 0) {
		varlink_error_value(call, "overflow_size", "not a multiple of "
		    "%u", RING_OVF_NBUF * RING_OVF_ALIGN);
		return;
	}
	r = drain_ring_new(d->drain, call->conn, (unsigned)log2,
	    (uint64_t)ovf, &id, &fds[0], &fds[1], &why);
	if (r == -EDQUOT) {
		varlink_error_limit(call, why.limit, (int64_t)why.value);
		return;
	}
	if (r < 0) {
		varlink_error_errno(call, r, "ring");
		return;
	}
	varlink_reply_fds(call, json_pack("{s:I, s:I, s:I, s:b, s:I}", "ring",
	    (json_int_t)id, "capacity", (json_int_t)1 << log2,
	    "overflow_size", (json_int_t)ovf, "adopted", 0, "pending",
	    (json_int_t)0), fds, 2);
}

void
m_ring_segment(struct vl_call *call, json_t *params)
{
	struct statsd *d = call->d;
	const struct peer *p = &call->conn->peer;
	int64_t from = varlink_int(params, "from", 0), seen = 0;
	struct reg_seg **segs;
	json_t *list = json_array(), *reply;
	int fds[CONN_MAX_FDS];
	size_t n, i, nfd = 0;

	if (list == NULL) {
		varlink_error_errno(call, ENOMEM, "segment");
		return;
	}
	n = registry_segments(d->reg, &segs);
	/*
	 * Only the segments whose kstats the peer may see: those of every
	 * zone, of its own zone, and (in the global zone) those zones share
	 * with it; private ones to privileged peers only. The kernel then
	 * enforces what the socket's rights decided. A reply carries as many
	 * descriptors as a message may; "next" asks for the rest.
	 */
	for (i = 0; i < n; i++) {
		int fd;

		if (!view_segment_visible(p, segs[i]) ||
		    seen++ < from)
			continue;
		if (nfd == CONN_MAX_FDS)
			break;
		fd = store_segment_reader_fd(segs[i]->seg);
		if (fd < 0) {
			while (nfd > 0)
				close(fds[--nfd]);
			json_decref(list);
			varlink_error_errno(call, fd, "segment");
			return;
		}
		json_array_append_new(list, json_pack("{s:s, s:I, s:s, s:I, "
		    "s:b, s:I}", "name", segs[i]->name, "fd", (json_int_t)nfd,
		    "kind", segs[i]->priv ? "private" : "public", "zone",
		    (json_int_t)(segs[i]->zone == ZONE_ALL ? -1 :
		    (int64_t)segs[i]->zone), "gz", segs[i]->gz, "kcid",
		    (json_int_t)store_segment_kcid(segs[i]->seg)));
		fds[nfd++] = fd;
	}
	reply = json_pack("{s:o}", "segments", list);
	for (; i < n; i++)
		if (view_segment_visible(p, segs[i])) {
			json_object_set_new(reply, "next", json_integer(from +
			    (int64_t)nfd));
			break;
		}
	varlink_reply_fds(call, reply, fds, nfd);
}
