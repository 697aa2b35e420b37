/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ck_record.c: the records of the state log, as JSON: a kstat's (header,
 * flags, zones, blob, where the blob lies), a template's and the meta
 * record (sample rates, next handle); and which kstats the log keeps.
 * Framing them is ck_frame.c's; appending them, checkpoint.c's.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include <jansson.h>

#include <statsd/kstat.h>

#include "b64.h"
#include "blob.h"
#include "checkpoint_priv.h"
#include "daemon.h"
#include "mirror.h"
#include "registry.h"
#include "zones.h"

json_t *
ck_kstat_rec(struct checkpoint *c, struct reg_kstat *k, bool dormant)
{
	const char *zc = zones_cgroup(c->d->zones, k->zone);
	const char *oc = zones_cgroup(c->d->zones, k->owner_zone);
	const struct statsblob *sb = registry_blob_peek(k);
	json_t *path = json_array(), *o;
	char seg[KS_PATH_MAX + 1], *b64;
	uint32_t i, np = ks_hdr_npseg(&k->hdr);
	uint64_t at;

	for (i = 0; i < np; i++)
		if (ks_hdr_pseg(&k->hdr, i, seg, sizeof(seg)) == 0)
			json_array_append_new(path, json_string(seg));
	b64 = b64_encode(sb, k->size);
	if (b64 == NULL) {
		json_decref(path);
		return NULL;
	}
	o = json_pack("{s:s, s:I, s:s, s:i, s:s, s:s, s:i, s:I, s:I, s:s, "
	    "s:s, s:o, s:I, s:b, s:I, s:s}", "t", "kstat",
	    "handle", (json_int_t)k->handle, "module", k->hdr.module,
	    "instance", (int)k->hdr.instance, "name", k->hdr.name,
	    "class", k->hdr.class_, "type", (int)k->hdr.type,
	    "flags", (json_int_t)(k->hdr.flags & KS_FLAGS_CREATOR),
	    "owner", (json_int_t)k->owner, "template", k->tpl->spec,
	    "description", k->hdr.desc, "path", path,
	    "crtime", (json_int_t)k->hdr.crtime, "dormant", dormant,
	    "birth", (json_int_t)(k->storage != NULL ?
	    mirror_birth(mirror_of(k->storage)) : 0), "blob", b64);
	free(b64);
	/* Every zone's, a container's (by its cgroup, which names it
	 * after a restart too), or (absent) the global zone's; made by a
	 * container, or (absent) by the global zone. */
	if (o != NULL && k->zone == ZONE_ALL)
		json_object_set_new(o, "zone", json_integer(-1));
	if (o != NULL && zc != NULL)
		json_object_set_new(o, "zone_cgroup", json_string(zc));
	if (o != NULL && oc != NULL)
		json_object_set_new(o, "owner_cgroup", json_string(oc));
	if (o != NULL && reg_kstat_gz(k))
		json_object_set_new(o, "gz", json_true());
	/* kstat2's content type and scale, and ndata as given (absent:
	 * none, as in checkpoints written before them). */
	if (o != NULL && k->hdr.content != 0)
		json_object_set_new(o, "content",
		    json_integer(k->hdr.content));
	if (o != NULL && k->hdr.scale > 1)
		json_object_set_new(o, "scale", json_integer(
		    k->hdr.scale > INT64_MAX ? INT64_MAX :
		    (json_int_t)k->hdr.scale));
	if (o != NULL && k->ndata != 0)
		json_object_set_new(o, "ndata", json_integer(k->ndata));
	/* Where its blob lies: a restarted statsd lays it out there again,
	 * so a process that shows it in place (a published blob) keeps
	 * showing it, and so do the processes whose blobs were around it
	 * (absent: anywhere, as in checkpoints written before). */
	at = store_kstat_blob_off(k->seg, k->ref.slot);
	if (o != NULL && at != 0) {
		json_object_set_new(o, "at_segment",
		    json_string(k->rseg->name));
		json_object_set_new(o, "at_offset",
		    json_integer((json_int_t)at));
	}
	return o;
}

json_t *
ck_template_rec(const struct reg_template *t)
{
	return json_pack("{s:s, s:I, s:O}", "t", "template", "owner",
	    (json_int_t)t->owner, "def", t->def);
}

json_t *
ck_meta_rec(struct checkpoint *c)
{
	return json_pack("{s:s, s:I, s:s}", "t", "meta", "next_handle",
	    (json_int_t)registry_next_handle(c->d->reg), "sample_rates",
	    c->d->sample_rates != NULL ? c->d->sample_rates : "");
}

bool
checkpoint_outlives(const struct zones *z, uint32_t owner_zone,
    uint32_t zone)
{
	return zones_lasting(z, owner_zone) && zones_lasting(z, zone);
}

bool
checkpoint_outlives_statsd(const struct zones *z, const struct reg_kstat *k)
{
	return checkpoint_outlives(z, k->owner_zone, k->zone);
}

/* Is k one the checkpoint keeps? */
bool
ck_kept(const struct checkpoint *c, const struct reg_kstat *k)
{
	return (k->hdr.flags & KSTAT_FLAG_PERSISTENT) &&
	    checkpoint_outlives_statsd(c->d->zones, k);
}
