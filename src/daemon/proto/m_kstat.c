/*
 * m_kstat.c: io.statsd.KstatCreate, KstatCreateMany and KstatDelete, and
 * the by-name lookup (with its visibility rule) the other handlers share.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <statsd/kstat.h>
#include <statsd/sbuf.h>

#include "checkpoint.h"
#include "control.h"
#include "daemon.h"
#include "log.h"
#include "methods.h"
#include "mirror.h"
#include "registry.h"
#include "sysks.h"

#define M_NAME_FIELDS							\
	VLF_STR("module", false, KSTAT_STRLEN - 1),			\
	VLF_INT("instance", false, 0, INT32_MAX),			\
	VLF_STR("name", false, KSTAT_STRLEN - 1)

const struct vl_field m_kstat_create_params[] = {
	M_NAME_FIELDS,
	VLF_STR("class", true, KSTAT_STRLEN - 1),
	VLF_STR("template", false, STATS_TPL_MAX_STR_SPEC_LEN),
	VLF_STR("type", true, 8),
	VLF_ARRAY("flags", true, VL_STRING, 8, 0, 16),
	VLF_STR("description", true, KS_DESC_MAX),
	VLF_ARRAY("path", true, VL_STRING, KS_NPSEG_MAX, 0, KS_PATH_MAX),
	VLF_INT("zone", true, -1, INT32_MAX),
	VLF_END
};

/* One kstat of a KstatCreateMany: what is its own. */
static const struct vl_field m_kstat_name_fields[] = {
	M_NAME_FIELDS,
	VLF_STR("class", true, KSTAT_STRLEN - 1),
	VLF_STR("description", true, KS_DESC_MAX),
	VLF_ARRAY("path", true, VL_STRING, KS_NPSEG_MAX, 0, KS_PATH_MAX),
	VLF_END
};

const struct vl_field m_kstat_create_many_params[] = {
	VLF_STR("template", false, STATS_TPL_MAX_STR_SPEC_LEN),
	VLF_STR("type", true, 8),
	VLF_ARRAY("flags", true, VL_STRING, 8, 0, 16),
	VLF_STR("class", true, KSTAT_STRLEN - 1),
	VLF_INT("zone", true, -1, INT32_MAX),
	VLF_BOOL("join", true),
	VLF_STRUCTS("kstats", false, "KstatName", m_kstat_name_fields,
	    M_KSTAT_BATCH_MAX),
	VLF_END
};

const struct vl_field m_kstat_delete_params[] = {
	M_NAME_FIELDS,
	VLF_END
};

bool
m_kstat_visible(const struct peer *p, const struct reg_kstat *k)
{
	return rights_may_see(p, (k->hdr.flags & KSTAT_FLAG_PRIV) != 0,
	    k->zone, reg_kstat_gz(k));
}

bool
m_kstat_may_modify(const struct peer *p, const struct reg_kstat *k)
{
	return rights_may_modify(p, k->owner, k->owner_zone);
}

/*
 * Where a new kstat is seen (Solaris's ks_zone and KSTAT2_FLAG_GZ_VIS,
 * the Linux way): a peer of the global zone may name ALL_ZONES (-1), the
 * global zone (0, the default) or any zone statsd knows; a peer of a zone
 * may name only its own zone or the global zone, and ALL_ZONES (or no
 * zone) stands for its own zone and the global zone, never another zone.
 * Returns: 0; -EINVAL with *why.
 */
static int
m_kstat_zone(struct statsd *d, const struct peer *p, json_t *params,
    bool gz_vis, struct reg_kstat_new *n, const char **why)
{
	int64_t z = json_is_integer(json_object_get(params, "zone")) ?
	    varlink_int(params, "zone", 0) : -2;

	n->owner_zone = p->zone;
	n->gz = false;
	if (p->zone == ZONE_GLOBAL) {
		n->zone = z == -1 ? ZONE_ALL : z <= 0 ? ZONE_GLOBAL :
		    (uint32_t)z;
		n->gz = gz_vis;
		if (n->zone != ZONE_ALL && n->zone != ZONE_GLOBAL &&
		    !zones_known(d->zones, n->zone)) {
			*why = "no such zone";
			return -EINVAL;
		}
		return 0;
	}
	if (z == -2 || z == -1) {
		n->zone = p->zone;
		n->gz = true;
	} else if (z == 0) {
		n->zone = ZONE_GLOBAL;
	} else if ((uint32_t)z == p->zone) {
		n->zone = p->zone;
		n->gz = gz_vis;
	} else {
		*why = "a peer of a zone makes kstats of its own zone or of "
		    "the global zone only";
		return -EINVAL;
	}
	return 0;
}

struct reg_kstat *
m_kstat_get(struct vl_call *call, json_t *params, bool dormant_too)
{
	const char *module = varlink_str(params, "module", "");
	const char *name = varlink_str(params, "name", "");
	int32_t instance = (int32_t)varlink_int(params, "instance", 0);
	struct reg_kstat *k;
	char full[128];

	k = registry_kstat_find(call->d->reg, module, instance, name);
	if (k != NULL && (!dormant_too && k->dormant))
		k = NULL;
	/* A PRIV kstat does not exist for an unprivileged peer, nor one of
	 * another zone for any. */
	if (k != NULL && !m_kstat_visible(&call->conn->peer, k))
		k = NULL;
	if (k == NULL) {
		snprintf(full, sizeof(full), "%s:%d:%s", module, (int)instance,
		    name);
		varlink_error(call, VL_E_NO_SUCH_KSTAT, json_pack("{s:s}",
		    "kstat",
		    full));
	}
	return k;
}

/* A PERSISTENT kstat could not be made (or deleted) durably. */
static void
m_kstat_not_durable(struct vl_call *call, int r, const char *why)
{
	char reason[PATH_MAX + 640];

	if (why != NULL && why[0] != '\0')
		snprintf(reason, sizeof(reason), "PERSISTENT kstat not kept: "
		    "%s", why);
	else
		snprintf(reason, sizeof(reason), "PERSISTENT kstat not kept: "
		    "cannot make its runtime file: %s",
		    strerror(r < 0 ? -r : r));
	varlink_error(call, VL_E_SYSTEM_ERROR, json_pack("{s:i, s:s}",
	    "errno", r < 0 ? -r : r, "reason", reason));
}

static void
m_kstat_fail(struct vl_call *call, int r, const struct ks_error *kerr,
    const char *full, const char *spec, const struct quota_refusal *why)
{
	switch (r) {
	case -EINVAL:
	case -ENAMETOOLONG:
		varlink_error(call, VL_E_INVALID_VALUE, json_pack("{s:s, s:s}",
		    "parameter", kerr->field != NULL ? kerr->field : "",
		    "reason", kerr->msg[0] != '\0' ? kerr->msg :
		    "refused"));
		return;
	case -EEXIST:
		varlink_error(call, VL_E_KSTAT_EXISTS, json_pack("{s:s}",
		    "kstat",
		    full));
		return;
	case -ESTALE:
		varlink_error(call, VL_E_TEMPLATE_MISMATCH,
		    json_pack("{s:s, s:s}",
		    "kstat", full, "template", spec));
		return;
	case -EDQUOT:
		varlink_error_limit(call, why->limit, (int64_t)why->value);
		return;
	default:
		varlink_error_errno(call, r, "kstat create");
		return;
	}
}

/* What the kstats of one create call share in their headers. */
struct m_kstat_kind {
	uint8_t		 type;		/* KSTAT_TYPE_* */
	uint32_t	 flags;		/* the creator's KSTAT_FLAG_* */
	const char	*class_;	/* NULL: "misc" */
};

/*
 * The parameters a kstat's creation shares with the others of a
 * KstatCreateMany call: type, flags, class into kind; zone and template
 * into n.
 * Returns: 0; -EINVAL (answered).
 */
static int
m_kstat_common(struct vl_call *call, json_t *params, struct reg_kstat_new *n,
    struct m_kstat_kind *kind)
{
	const struct peer *peer = &call->conn->peer;
	const char *tname = varlink_str(params, "type", "BLOB");
	const char *zwhy = "";
	bool gz_vis = false;
	char idx[32];
	json_t *a, *e;
	size_t i;

	memset(n, 0, sizeof(*n));
	memset(kind, 0, sizeof(*kind));
	n->owner = peer->uid;
	n->privileged = peer->privileged;
	kind->class_ = varlink_str(params, "class", NULL);
	if (ks_type_from_id(tname) < 0) {
		varlink_error_value(call, "type",
		    "one of RAW, NAMED, INTR, IO, "
		    "TIMER, HIST, BLOB");
		return -EINVAL;
	}
	kind->type = (uint8_t)ks_type_from_id(tname);
	a = json_object_get(params, "flags");
	json_array_foreach(a, i, e) {
		uint32_t f = ks_flag_from_name(json_string_value(e));

		if (f == KSTAT2_FLAG_GZ_VIS) {
			gz_vis = true;
			continue;
		}
		if ((f & KS_FLAGS_CREATOR) == 0) {
			snprintf(idx, sizeof(idx), "flags[%zu]", i);
			varlink_error_value(call, idx,
			    "one of PERSISTENT, PRIV, "
			    "WRITABLE, VIRTUAL, VAR_SIZE, GZ_VIS");
			return -EINVAL;
		}
		kind->flags |= f;
	}
	if ((kind->flags & KSTAT_FLAG_PRIV) && !peer->privileged) {
		varlink_error_denied(call, RIGHT_ADMIN);
		return -EINVAL;
	}
	if (m_kstat_zone(call->d, peer, params, gz_vis, n, &zwhy) < 0) {
		varlink_error_value(call, "zone", "%s", zwhy);
		return -EINVAL;
	}
	n->tpl = registry_template_find(call->d->reg, varlink_str(params,
	    "template", ""));
	if (n->tpl == NULL) {
		varlink_error(call, VL_E_NO_SUCH_TEMPLATE, json_pack("{s:s}",
		    "template", varlink_str(params, "template", "")));
		return -EINVAL;
	}
	return 0;
}

/*
 * A kstat's header: its own names, description and kstat2 path from o,
 * the rest from kind, checked (an error is answered, its field named
 * after prefix: "" or "kstats[3].").
 * Returns: 0; -EINVAL, -ENAMETOOLONG (answered).
 */
static int
m_kstat_hdr(struct vl_call *call, json_t *o, const struct m_kstat_kind *kind,
    const char *prefix, struct kstat_hdr *h)
{
	const char *pseg[KS_NPSEG_MAX];
	const char *class_ = kind->class_;
	struct ks_error kerr = { 0 };
	char field[64];
	json_t *a, *e;
	size_t i;
	int r;

	if (json_is_string(json_object_get(o, "class")))
		class_ = varlink_str(o, "class", NULL);
	a = json_object_get(o, "path");
	json_array_foreach(a, i, e)
		pseg[i] = json_string_value(e);
	r = ks_hdr_new(h, varlink_str(o, "module", ""),
	    (int32_t)varlink_int(o, "instance", 0), varlink_str(o, "name", ""),
	    class_, kind->type, kind->flags, pseg,
	    (uint32_t)json_array_size(a), varlink_str(o, "description", NULL),
	    &kerr);
	if (r < 0) {
		if (kerr.field != NULL && prefix[0] != '\0') {
			snprintf(field, sizeof(field), "%s%s", prefix,
			    kerr.field);
			kerr.field = field;
		}
		m_kstat_fail(call, r, &kerr, "", "", NULL);
		return r;
	}
	if (sysks_module_own(h->module)) {
		snprintf(field, sizeof(field), "%smodule", prefix);
		varlink_error_value(call, field, "%s is statsd's own module: "
		    "only statsd makes kstats in it", h->module);
		return -EINVAL;
	}
	return 0;
}

/* Take back a create: a revived kstat sleeps again, a new one goes with
 * nothing left behind. */
static void
m_kstat_unmake(struct statsd *d, struct reg_kstat *k, bool revived)
{
	if (revived) {
		(void)checkpoint_kstat_put(d->checkpoint, k, true);
		(void)registry_kstat_delete(d->reg, k);
	} else {
		(void)checkpoint_kstat_drop(d->checkpoint, k);
		registry_kstat_forget(d->reg, k);
	}
}

/*
 * Create (or revive) one kstat as n says, for the caller, durably: a
 * PERSISTENT one gets its runtime file and its place in the checkpoint,
 * or is not made.
 * Returns: 0 and *ret, *ret_revived; -errno (answered).
 */
static int
m_kstat_make(struct vl_call *call, const struct reg_kstat_new *n,
    struct reg_kstat **ret, bool *ret_revived)
{
	struct statsd *d = call->d;
	const struct peer *peer = &call->conn->peer;
	struct quota_refusal why;
	struct ks_error kerr = { 0 };
	struct reg_kstat *k;
	const char *ckwhy;
	char full[128];
	int r;

	snprintf(full, sizeof(full), "%s:%d:%s", n->hdr->module,
	    (int)n->hdr->instance, n->hdr->name);
	k = registry_kstat_find(d->reg, n->hdr->module, n->hdr->instance,
	    n->hdr->name);
	/*
	 * A name held by a kstat the caller may not see (PRIV, another
	 * zone's) gets the neutral refusal: PermissionDenied, as for a
	 * privileged kstat, never KstatExists, which would tell that such a
	 * kstat exists; the refusal names no kstat (docs/security.md).
	 */
	if (k != NULL && !m_kstat_visible(peer, k)) {
		varlink_error_denied(call, RIGHT_ADMIN);
		return -EPERM;
	}
	if (k != NULL && k->dormant) {
		/* Reviving: only its owner or an admin may. It keeps its
		 * zone. */
		if (!m_kstat_may_modify(peer, k)) {
			varlink_error_denied(call, RIGHT_OWNER);
			return -EPERM;
		}
	}
	/* A PERSISTENT kstat that outlives statsd needs the checkpoint:
	 * refused at once, with the reason, while it cannot be written. */
	if ((n->hdr->flags & KSTAT_FLAG_PERSISTENT) &&
	    checkpoint_outlives(d->zones, n->owner_zone, n->zone) &&
	    !checkpoint_status(d->checkpoint, &ckwhy)) {
		m_kstat_not_durable(call, -EIO, ckwhy);
		return -EIO;
	}
	r = registry_kstat_create(d->reg, n, &k, ret_revived, &why);
	if (r < 0) {
		m_kstat_fail(call, r, &kerr, full, n->tpl->spec, &why);
		return r;
	}
	if ((k->hdr.flags & KSTAT_FLAG_PERSISTENT) && k->storage == NULL &&
	    checkpoint_outlives_statsd(d->zones, k)) {
		struct mirror *m;

		/* Its runtime file, blocks and all, before it is used: a
		 * full runtime directory refuses the create. */
		r = d->persist_dir != NULL ? mirror_create(d->persist_dir,
		    k->handle, registry_blob_peek(k), k->size, &m) : -ENOENT;
		if (r == 0)
			k->storage = mirror_storage(m);
		if (r < 0) {
			if (*ret_revived)
				(void)registry_kstat_delete(d->reg, k);
			else
				registry_kstat_forget(d->reg, k);
			m_kstat_not_durable(call, r, r == -ENOENT ?
			    "no runtime directory for its file" : NULL);
			return r;
		}
	}
	/* Only a durable create is answered: one that cannot be written to
	 * the checkpoint is undone, leaving nothing behind (a revived one
	 * goes dormant again). */
	r = checkpoint_kstat_put(d->checkpoint, k, false);
	if (r < 0) {
		if (*ret_revived)
			(void)registry_kstat_delete(d->reg, k);
		else
			registry_kstat_forget(d->reg, k);
		(void)checkpoint_status(d->checkpoint, &ckwhy);
		m_kstat_not_durable(call, r, ckwhy);
		return r;
	}
	log_debug("uid %u %s kstat %s (handle %u)", (unsigned)peer->uid,
	    *ret_revived ? "revived" : "created", full, k->handle);
	*ret = k;
	return 0;
}

void
m_kstat_create(struct vl_call *call, json_t *params)
{
	struct m_kstat_kind kind;
	struct reg_kstat_new n;
	struct kstat_hdr hdr;
	struct reg_kstat *k;
	bool revived;

	if (m_kstat_common(call, params, &n, &kind) < 0 ||
	    m_kstat_hdr(call, params, &kind, "", &hdr) < 0)
		return;
	n.hdr = &hdr;
	if (m_kstat_make(call, &n, &k, &revived) < 0)
		return;
	varlink_reply(call, json_pack("{s:o, s:b}", "kstat",
	    registry_kstat_json(call->d->reg, k), "revived", revived));
}

/* One made kstat of KstatCreateMany's reply: what a client's ring
 * records and reads need (the names are the call's). */
static void
m_kstat_made(struct sbuf *sb, const struct reg_kstat *k, bool first)
{
	sbuf_printf(sb, "%s{\"handle\":%u,\"segment\":\"%s\",\"slot\":%u,"
	    "\"gen\":%u}", first ? "" : ",", (unsigned)k->handle,
	    k->rseg->name, (unsigned)k->ref.slot, (unsigned)k->ref.gen);
}

void
m_kstat_create_many(struct vl_call *call, json_t *params)
{
	struct statsd *d = call->d;
	json_t *names = json_object_get(params, "kstats"), *o, *spec;
	bool join = varlink_bool(params, "join", false);
	struct m_kstat_kind kind;
	struct reg_kstat_new n, common;
	struct kstat_hdr hdr;
	struct reg_kstat **made, *k;
	size_t i, count = json_array_size(names);
	struct sbuf *ks = NULL, *flags = NULL;
	char prefix[32], *quoted = NULL;
	bool *revived;

	if (m_kstat_common(call, params, &common, &kind) < 0)
		return;
	made = calloc(count + 1, sizeof(*made));
	revived = calloc(count + 1, sizeof(*revived));
	ks = sbuf_new_auto();
	flags = sbuf_new_auto();
	if (made == NULL || revived == NULL || ks == NULL || flags == NULL) {
		varlink_error_errno(call, ENOMEM, "kstat create");
		goto out;
	}
	/* The reply is built as text: a batch of thousands of kstats is
	 * answered in about the time it takes to make them. */
	sbuf_cat(ks, "\"kstats\":[");
	sbuf_cat(flags, "\"revived\":[");
	json_array_foreach(names, i, o) {
		n = common;
		n.hdr = &hdr;
		snprintf(prefix, sizeof(prefix), "kstats[%zu].", i);
		if (m_kstat_hdr(call, o, &kind, prefix, &hdr) < 0) {
			while (i-- > 0)
				if (made[i] != NULL)
					m_kstat_unmake(d, made[i], revived[i]);
			goto out;
		}
		k = registry_kstat_find(d->reg, hdr.module, hdr.instance,
		    hdr.name);
		/* Joining: the caller's own kstat (or any, for a privileged
		 * caller) of the same template, as it is. */
		if (join && k != NULL && !k->dormant && k->tpl == n.tpl &&
		    m_kstat_visible(&call->conn->peer, k) &&
		    m_kstat_may_modify(&call->conn->peer, k)) {
			m_kstat_made(ks, k, i == 0);
			sbuf_cat(flags, i == 0 ? "false" : ",false");
			continue;
		}
		if (m_kstat_make(call, &n, &made[i], &revived[i]) < 0) {
			/* All or none: what the call made before goes. */
			while (i-- > 0)
				if (made[i] != NULL)
					m_kstat_unmake(d, made[i], revived[i]);
			goto out;
		}
		m_kstat_made(ks, made[i], i == 0);
		sbuf_printf(flags, "%s%s", i == 0 ? "" : ",", revived[i] ?
		    "true" : "false");
	}
	/* joined: those not made by this call. */
	sbuf_cat(flags, "],\"joined\":[");
	for (i = 0; i < count; i++)
		sbuf_printf(flags, "%s%s", i == 0 ? "" : ",", made[i] == NULL ?
		    "true" : "false");
	sbuf_cat(flags, "]");
	spec = json_string(common.tpl->spec);
	quoted = spec != NULL ? json_dumps(spec, JSON_ENCODE_ANY) : NULL;
	json_decref(spec);
	sbuf_putc(ks, ']');
	if (quoted == NULL || sbuf_finish(ks) != 0 || sbuf_finish(flags) != 0) {
		varlink_error_errno(call, ENOMEM, "kstat create");
		goto out;
	}
	{
		struct sbuf *msg = sbuf_new_auto();

		if (msg != NULL) {
			sbuf_printf(msg, "{\"template\":%s,%s,%s}", quoted,
			    sbuf_data(ks), sbuf_data(flags));
			if (sbuf_finish(msg) == 0)
				varlink_reply_text(call, sbuf_data(msg),
				    (size_t)sbuf_len(msg));
			sbuf_delete(msg);
		}
		if (!call->answered)
			varlink_error_errno(call, ENOMEM, "kstat create");
	}
out:
	sbuf_delete(ks);
	sbuf_delete(flags);
	free(quoted);
	free(made);
	free(revived);
}

void
m_kstat_delete(struct vl_call *call, json_t *params)
{
	struct statsd *d = call->d;
	struct reg_kstat *k;
	const char *ckwhy;
	bool persistent;
	int dormant, r;

	/* A dormant kstat is deleted for good: its data, its handle and
	 * what it held of its owner's quotas go. */
	k = m_kstat_get(call, params, true);
	if (k == NULL)
		return;
	if (!m_kstat_may_modify(&call->conn->peer, k)) {
		varlink_error_denied(call, RIGHT_OWNER);
		return;
	}
	if (k->internal) {
		varlink_error_value(call, "name", "statsd's own kstat stays");
		return;
	}
	/* The checkpoint first: a PERSISTENT kstat's delete (dormant) or
	 * removal (of a dormant one) is durable before it is done, or not
	 * done. */
	persistent = (k->hdr.flags & KSTAT_FLAG_PERSISTENT) != 0;
	if (persistent) {
		r = k->dormant ? checkpoint_kstat_drop(d->checkpoint, k) :
		    checkpoint_kstat_put(d->checkpoint, k, true);
		if (r < 0) {
			(void)checkpoint_status(d->checkpoint, &ckwhy);
			m_kstat_not_durable(call, r, ckwhy);
			return;
		}
	}
	dormant = registry_kstat_delete(d->reg, k);
	varlink_reply(call, json_pack("{s:b}", "dormant", dormant == 1));
}
