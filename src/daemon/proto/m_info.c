/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * m_info.c: the methods that describe — io.statsd.Hello (versions, the
 * caller's identity and rights), io.statsd.Info (state, counters, the
 * effective configuration) and org.varlink.service's GetInfo and
 * GetInterfaceDescription.
 */
#include <string.h>
#include <unistd.h>

#include "checkpoint.h"
#include "config.h"
#include "control.h"
#include "daemon.h"
#include "drain.h"
#include "engine.h"
#include "methods.h"
#include "quota.h"
#include "registry.h"
#include "zones.h"
#include "ring.h"
#include "store.h"
#include "view.h"

#ifndef STATSD_VERSION
#define STATSD_VERSION "0"
#endif

const struct vl_field m_hello_params[] = {
	VLF_STR("client", true, 255),
	VLF_END
};

const struct vl_field m_info_params[] = { VLF_END };
const struct vl_field m_getinfo_params[] = { VLF_END };

const struct vl_field m_getifdesc_params[] = {
	VLF_STR("interface", false, 255),
	VLF_END
};

void
m_info_hello(struct vl_call *call, json_t *params)
{
	const struct peer *p = &call->conn->peer;
	char zname[ZONE_NAME_MAX];

	(void)params;
	varlink_reply(call, json_pack("{s:s, s:s, s:i, s:i, s:i, "
	    "s:{s:I, s:I, s:I, s:I, s:s}, s:b, s:o}",
	    "product", "statsd", "version", STATSD_VERSION,
	    "protocol", STATSD_PROTOCOL, "store_abi", STORE_ABI_MAJOR,
	    "ring_abi", RING_ABI_MAJOR,
	    "peer", "uid", (json_int_t)p->uid, "gid", (json_int_t)p->gid,
	    "pid", (json_int_t)p->pid, "zone", (json_int_t)p->zone,
	    "zone_name", zones_name(call->d->zones, p->zone, zname,
	    sizeof(zname)), "privileged", p->privileged,
	    "rights", rights_to_json(p)));
}

/*
 * What a caller may count: the kstats and templates it may see, never
 * another zone's, PRIV ones only when privileged (a container's root
 * counts its own zone's). The registry keeps counts
 * by segment and template, so Info costs the templates (at most
 * max_templates) and the segments, never a walk of every kstat, which at
 * 10^5 kstats held the loop for 10 ms a call.
 */
static void
m_info_visible(struct vl_call *call, struct registry_stats *rs)
{
	const struct peer *p = &call->conn->peer;
	struct reg_template **tpls;
	size_t n, i;

	if (p->zone == ZONE_GLOBAL) {
		if (p->privileged)
			return;
		rs->kstats = rs->public_kstats;
		rs->dormant = rs->public_dormant;
	} else
		view_zone_counts(call->d->reg, p, &rs->kstats, &rs->dormant);
	rs->templates = 0;
	n = registry_templates(call->d->reg, &tpls);
	for (i = 0; i < n; i++)
		rs->templates += view_template_visible(p, tpls[i]);
}

void
m_info_info(struct vl_call *call, json_t *params)
{
	struct statsd *d = call->d;
	const struct peer *p = &call->conn->peer;
	struct drain_stats ds;
	struct registry_stats rs;

	(void)params;
	drain_stats(d->drain, &ds);
	registry_stats(d->reg, &rs);
	m_info_visible(call, &rs);
	varlink_reply(call,
	    json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, "
	    "s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:s, s:s, s:s, s:o, s:o, "
	    "s:o}",
	    "version", STATSD_VERSION, "pid", (json_int_t)getpid(),
	    "uptime_ns", (json_int_t)(clock_now_ns() - d->start_ns),
	    "clients", (json_int_t)control_nconns(d->control),
	    "rings", (json_int_t)ds.rings,
	    "kstats", (json_int_t)rs.kstats,
	    "dormant", (json_int_t)rs.dormant,
	    "templates", (json_int_t)rs.templates,
	    "kcid", (json_int_t)view_kcid(d->reg, p),
	    "applied", (json_int_t)ds.applied,
	    "spilled", (json_int_t)ds.spilled,
	    "rejected", (json_int_t)ds.rejected,
	    "dropped", (json_int_t)ds.dropped,
	    "drain_passes", (json_int_t)ds.passes,
	    "drain_errors", (json_int_t)ds.errors,
	    "slices", (json_int_t)varlink_slices(),
	    "runtime_dir", d->runtime_dir, "state_dir", d->state_dir,
	    "socket", d->socket_path, "config", config_to_json(&d->cfg),
	    "quotas", quota_to_json(d->quota, p->uid, p->privileged,
	    p->privileged), "persistence",
	    checkpoint_to_json(d->checkpoint)));
}

void
m_info_getinfo(struct vl_call *call, json_t *params)
{
	(void)params;
	varlink_reply(call, json_pack("{s:s, s:s, s:s, s:s, s:[s, s]}",
	    "vendor", "statsd", "product", "statsd",
	    "version", STATSD_VERSION,
	    "url", "https://github.com/statsd-project/statsd",
	    "interfaces", VL_IFACE_SERVICE, VL_IFACE_STATSD));
}

void
m_info_getifdesc(struct vl_call *call, json_t *params)
{
	const char *name = varlink_str(params, "interface", "");
	const char *text = NULL;

	if (strcmp(name, VL_IFACE_STATSD) == 0)
		text = varlink_idl_io_statsd;
	else if (strcmp(name, VL_IFACE_SERVICE) == 0)
		text = varlink_idl_org_varlink_service;
	if (text == NULL) {
		varlink_error(call, VL_E_INTERFACE_NOT_FOUND,
		    json_pack("{s:s}", "interface", name));
		return;
	}
	varlink_reply(call, json_pack("{s:s}", "description", text));
}
