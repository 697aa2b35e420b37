/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * daemon_statsd.h: a statsd without sockets for the registry and
 * checkpoint suites: the configuration's defaults, an event loop that
 * never runs, zones none, quotas, the registry, and the runtime files,
 * journal and checkpoint in scratch directories. Starting it again on
 * the same directories is a restart.
 */
#ifndef STATSD_TESTS_DAEMON_STATSD_H
#define STATSD_TESTS_DAEMON_STATSD_H

#include <event2/event.h>
#include <jansson.h>

#include "daemon_unit.h"
#include "checkpoint.h"
#include "clock.h"
#include "daemon.h"
#include "journal.h"
#include "mirror.h"
#include "quota.h"
#include "registry.h"
#include "zones.h"

/* Up to the checkpoint, not loaded yet (unit_statsd_start() loads it). */
static inline void
unit_statsd_open(struct statsd *d, const char *rt, const char *state)
{
	memset(d, 0, sizeof(*d));
	ck_assert_int_eq(config_defaults(&d->cfg), 0);
	d->cfg.zones = ZONE_KIND_NONE;
	d->runtime_dir = strdup(rt);
	d->state_dir = strdup(state);
	d->sample_rates = strdup("");
	d->base = event_base_new();
	ck_assert_ptr_nonnull(d->base);
	ck_assert_int_eq(zones_new(ZONE_KIND_NONE, NULL, &d->zones), 0);
	ck_assert_int_eq(quota_new(d, &d->quota), 0);
	ck_assert_int_eq(registry_new(d, &d->reg), 0);
	ck_assert_int_eq(mirror_dir_make(d->runtime_dir, &d->persist_dir), 0);
	d->journal = journal_open(d->persist_dir);
	ck_assert_ptr_nonnull(d->journal);
	ck_assert_int_eq(checkpoint_new(d, &d->checkpoint), 0);
}

static inline void
unit_statsd_start(struct statsd *d, const char *rt, const char *state)
{
	unit_statsd_open(d, rt, state);
	ck_assert_int_eq(checkpoint_load(d->checkpoint), 0);
}

/* Stop as statsd exits (with_checkpoint: the last checkpoint written) or
 * as a kill -9 leaves things (no checkpoint, files as they are). */
static inline void
unit_statsd_stop(struct statsd *d, bool with_checkpoint)
{
	if (with_checkpoint)
		ck_assert_int_eq(checkpoint_write(d->checkpoint), 0);
	d->checkpoint = checkpoint_free(d->checkpoint);
	d->reg = registry_free(d->reg);
	d->journal = journal_free(d->journal);
	d->quota = quota_free(d->quota);
	d->zones = zones_free(d->zones);
	event_base_free(d->base);
	config_done(&d->cfg);
	free(d->runtime_dir);
	free(d->state_dir);
	free(d->persist_dir);
	free(d->sample_rates);
}

/* Register a template from its JSON definition as root. */
static inline struct reg_template *
unit_template(struct statsd *d, const char *json)
{
	struct reg_owner root = { 0, true, false };
	struct reg_template *t = NULL;
	struct quota_refusal why;
	struct input_error terr;
	json_t *def = json_loads(json, 0, NULL);
	bool created;

	ck_assert_ptr_nonnull(def);
	ck_assert_int_eq(registry_template_add(d->reg, def, &root, &t,
	    &created, &terr, &why), 0);
	json_decref(def);
	return t;
}

/* The header of a BLOB kstat module:0:name with flags, checked. */
static inline void
unit_hdr(struct kstat_hdr *h, const char *module, const char *name,
    uint32_t flags)
{
	struct input_error err;

	ck_assert_int_eq(ks_hdr_new(h, module, 0, name, NULL, KSTAT_TYPE_BLOB,
	    flags, NULL, 0, NULL, &err), 0);
}

/* Create module:0:name of t, with flags, as root. */
static inline struct reg_kstat *
unit_kstat(struct statsd *d, struct reg_template *t, const char *module,
    const char *name, uint32_t flags, bool *revived)
{
	struct kstat_hdr h;
	struct reg_kstat_new n = {
		.hdr = &h, .owner = 0,
		.privileged = true, .owner_zone = ZONE_GLOBAL,
		.zone = ZONE_GLOBAL, .tpl = t,
	};
	struct reg_kstat *k = NULL;
	struct quota_refusal why;
	bool rv = false;

	unit_hdr(&h, module, name, flags);
	ck_assert_int_eq(registry_kstat_create(d->reg, &n, &k, &rv, &why), 0);
	if (revived != NULL)
		*revived = rv;
	return k;
}

/* Give a PERSISTENT kstat its runtime file, as KstatCreate does. */
static inline void
unit_persist(struct statsd *d, struct reg_kstat *k)
{
	struct mirror *m;

	if (k->storage != NULL)
		return;
	ck_assert_int_eq(mirror_create(d->persist_dir, k->handle,
	    registry_blob_peek(k), k->size, &m), 0);
	k->storage = mirror_storage(m);
}

/* Add x to VOI 0 of k, as a drain pass does. */
static inline void
unit_update(struct statsd *d, struct reg_kstat *k, uint64_t x)
{
	struct statsblob *sb = registry_blob_begin(d->reg, k);

	ck_assert_int_eq(stats_voi_update_abs_u64(sb, 0, x), 0);
	registry_blob_end(d->reg, k, clock_now_ns());
	registry_sync(d->reg);
}

/* VOI 0's SUM of k's blob. */
static inline uint64_t
unit_sum(const struct reg_kstat *k)
{
	uint64_t v = 0;

	ck_assert_int_eq(stats_voistat_fetch_u64((struct statsblob *)
	    registry_blob_peek(k), 0, VS_STYPE_SUM, &v), 0);
	return v;
}

#define UNIT_TPL	"{\"name\":\"T\",\"vois\":[{\"id\":0,\"name\":\"n\"," \
	"\"dtype\":\"INT_U64\",\"stats\":[{\"kind\":\"SUM\"}," \
	"{\"kind\":\"COUNT\"}]}]}"

#endif
