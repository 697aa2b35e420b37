/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sysks.c: the kstats statsd keeps itself, and illumos's standard system
 * kstat <unix, 0, kstat_types>.
 */
#include <errno.h>
#include <string.h>

#include <jansson.h>

#include <statsd/kstat.h>

#include "daemon.h"
#include "engine.h"
#include "kstat_hdr.h"
#include "log.h"
#include "registry.h"
#include "sysks.h"

/*
 * The levels among statsd's own values: what is there now (clients,
 * rings, kstats, series, the overflow areas' bytes), and the uptime.
 * Every other value of statsd:0:daemon only grows while statsd runs (the
 * drain's and the front door's totals): a SUM, which the kind table
 * (field.h) makes a counter of an unsigned VOI, so that the exposition
 * writes it as a counter (_total) and rate() applies. illumos's
 * unix:0:kstat_types holds numbers, not counts: levels.
 */
static const char *const sysks_levels[] = {
	"uptime_ns", "clients", "rings", "kstats", "templates",
	"overflow_bytes", "overflow_used", "statsd_series",
};

static bool
sysks_is_counter(const struct sysks_spec *s, const char *name)
{
	size_t i;

	if (strcmp(s->module, SYSKS_MODULE_STATSD) != 0)
		return false;
	for (i = 0; i < sizeof(sysks_levels) / sizeof(sysks_levels[0]); i++)
		if (strcmp(name, sysks_levels[i]) == 0)
			return false;
	return true;
}

int
sysks_create(struct statsd *d, const struct sysks_spec *s,
    struct reg_kstat **ret)
{
	struct reg_owner self = { d->self_uid, true, false };
	struct quota_refusal why;
	struct reg_kstat_new n;
	struct kstat_hdr hdr;
	struct reg_template *t;
	struct input_error kerr;
	json_t *def, *vois;
	struct input_error terr;
	bool created, revived;
	uint16_t i;
	int r;

	vois = json_array();
	for (i = 0; i < s->n; i++)
		json_array_append_new(vois, json_pack("{s:I, s:s, s:s, "
		    "s:[{s:s}]}", "id", (json_int_t)i, "name", s->names[i],
		    "dtype", "INT_U64", "stats", "kind",
		    sysks_is_counter(s, s->names[i]) ? "SUM" : "LAST"));
	def = json_pack("{s:s, s:o}", "name", s->tplname, "vois", vois);
	if (def == NULL)
		return -ENOMEM;
	r = registry_template_add(d->reg, def, &self, &t, &created, &terr, &why);
	json_decref(def);
	if (r < 0) {
		log_error("%s:0:%s: template: %s %s", s->module, s->name,
		    terr.where, terr.msg);
		return r;
	}
	r = ks_hdr_new(&hdr, s->module, 0, s->name, s->class_,
	    KSTAT_TYPE_NAMED, s->flags, NULL, 0, s->desc, &kerr);
	if (r < 0) {
		log_error("%s:0:%s: %s: %s", s->module, s->name,
		    kerr.where[0] != '\0' ? kerr.where : "header", kerr.msg);
		*ret = NULL;
		return r;
	}
	memset(&n, 0, sizeof(n));
	n.hdr = &hdr;
	n.owner = d->self_uid;
	n.privileged = true;
	n.owner_zone = ZONE_GLOBAL;
	n.zone = s->zone;
	n.tpl = t;
	r = registry_kstat_create(d->reg, &n, ret, &revived, &why);
	if (r < 0) {
		log_error("%s:0:%s: %s", s->module, s->name, strerror(-r));
		*ret = NULL;
		return r;
	}
	(*ret)->internal = true;
	return 0;
}

void
sysks_set(struct statsd *d, struct reg_kstat *k, const uint64_t *v,
    uint16_t n, uint64_t now)
{
	struct statsblob *sb;
	uint16_t i;

	sb = registry_blob_begin(d->reg, k);
	for (i = 0; i < n; i++)
		(void)engine_apply(sb, i, STATS_OP_SET, STATS_OPF_UNSIGNED,
		    (int64_t)v[i], 0, now);
	registry_blob_end(d->reg, k, now);
}

int
sysks_kstat_types(struct statsd *d)
{
	const char *names[KSTAT_NUM_TYPES];
	uint64_t v[KSTAT_NUM_TYPES];
	struct sysks_spec s = {
		.tplname = "unix.kstat_types",
		.module = SYSKS_MODULE_UNIX,
		.name = "kstat_types",
		.class_ = "kstat",
		.desc = "the kstat types: each type's name and number",
		.names = names,
		.n = KSTAT_NUM_TYPES,
		.zone = ZONE_ALL,	/* "in every chain" */
	};
	struct reg_kstat *k;
	uint16_t i;
	int r;

	/* illumos's names and numbers (raw 0 ... event_timer 4), then
	 * statsd's own types. */
	for (i = 0; i < KSTAT_NUM_TYPES; i++) {
		names[i] = ks_type_name((uint8_t)i);
		v[i] = i;
	}
	r = sysks_create(d, &s, &k);
	if (r == 0)
		sysks_set(d, k, v, KSTAT_NUM_TYPES, clock_now_ns());
	return r;
}
