/* SPDX-License-Identifier: BSD-2-Clause */
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
#include "clock.h"
#include "crashpoint.h"
#include "dec.h"
#include "control.h"
#include "daemon.h"
#include "defn.h"
#include "drain.h"
#include "filer.h"
#include "jdump.h"
#include "log.h"
#include "methods.h"
#include "mirror.h"
#include "registry.h"
#include "stat_scalar.h"
#include "sysks.h"
#include "view.h"

#define M_NAME_FIELDS							\
	VLF_STR("module", false, KSTAT_STRLEN - 1),			\
	VLF_INT("instance", false, 0, INT32_MAX),			\
	VLF_STR("name", false, KSTAT_STRLEN - 1)

/* kstat2's content type and scale of the values, and the kstat's ndata
 * (a RAW kstat's bytes). */
#define M_CONTENT_FIELDS						\
	VLF_STR("content", true, 16),					\
	VLF_INT("scale", true, 1, INT64_MAX),				\
	VLF_INT("ndata", true, 1, UINT32_MAX)

/* Where the creator had the blob before statsd restarted: its segment
 * and offset (store_kstat_add_at(); a hint, checked by the arena). */
#define M_AT_FIELDS							\
	VLF_STR("at_segment", true, 39),				\
	VLF_INT("at_offset", true, 1, INT64_MAX)

const struct vl_field m_kstat_create_params[] = {
	M_NAME_FIELDS,
	VLF_STR("class", true, KSTAT_STRLEN - 1),
	VLF_STR("template", false, STATS_TPL_MAX_STR_SPEC_LEN),
	VLF_STR("type", true, 8),
	VLF_ARRAY("flags", true, VL_STRING, 8, 0, 16),
	VLF_STR("description", true, KS_DESC_MAX),
	VLF_ARRAY("path", true, VL_STRING, KS_NPSEG_MAX, 0, KS_PATH_MAX),
	VLF_INT("zone", true, -1, INT32_MAX),
	M_CONTENT_FIELDS,
	M_AT_FIELDS,
	VLF_BOOL("brief", true),
	VLF_STR("definitions", true, M_KSTAT_DEFN_MAX),
	VLF_END
};

/* One kstat of a KstatCreateMany: what is its own. */
static const struct vl_field m_kstat_name_fields[] = {
	M_NAME_FIELDS,
	VLF_STR("class", true, KSTAT_STRLEN - 1),
	VLF_STR("description", true, KS_DESC_MAX),
	VLF_ARRAY("path", true, VL_STRING, KS_NPSEG_MAX, 0, KS_PATH_MAX),
	M_AT_FIELDS,
	VLF_END
};

const struct vl_field m_kstat_create_many_params[] = {
	VLF_STR("template", false, STATS_TPL_MAX_STR_SPEC_LEN),
	VLF_STR("type", true, 8),
	VLF_ARRAY("flags", true, VL_STRING, 8, 0, 16),
	VLF_STR("class", true, KSTAT_STRLEN - 1),
	VLF_INT("zone", true, -1, INT32_MAX),
	VLF_BOOL("join", true),
	M_CONTENT_FIELDS,
	VLF_STRUCTS("kstats", false, "KstatName", m_kstat_name_fields,
	    M_KSTAT_BATCH_MAX),
	VLF_END
};

const struct vl_field m_kstat_relayout_params[] = {
	M_NAME_FIELDS,
	VLF_STR("template", false, STATS_TPL_MAX_STR_SPEC_LEN),
	VLF_END
};

const struct vl_field m_kstat_delete_params[] = {
	M_NAME_FIELDS,
	VLF_END
};

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
	if (k != NULL && !view_kstat_visible(&call->conn->peer, k))
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

struct reg_kstat *
m_kstat_get_own(struct vl_call *call, json_t *params, bool dormant_too,
    const char *field, const char *internal_why)
{
	struct reg_kstat *k;

	k = m_kstat_get(call, params, dormant_too);
	if (k == NULL)
		return NULL;
	if (!view_kstat_may_modify(&call->conn->peer, k)) {
		varlink_error_denied(call, RIGHT_OWNER);
		return NULL;
	}
	if (k->internal) {
		varlink_error_value(call, field, "%s", internal_why);
		return NULL;
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
m_kstat_fail(struct vl_call *call, int r, const struct input_error *kerr,
    const char *full, const char *spec, const struct quota_refusal *why)
{
	switch (r) {
	case -EINVAL:
	case -ENAMETOOLONG:
		varlink_error_input(call, VL_E_INVALID_VALUE, kerr);
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
	uint8_t		 content;	/* KSTAT2_NVMT_* */
	uint64_t	 scale;		/* ≥ 1 */
};

/*
 * kstat2's content type and scale (into kind) and ndata (into n, whose
 * template is known): a RAW kstat's ndata is its bytes, at most its
 * template's words; another's at most its template's VOIs.
 * Returns: 0; -EINVAL (answered).
 */
static int
m_kstat_content(struct vl_call *call, json_t *params,
    struct reg_kstat_new *n, struct m_kstat_kind *kind)
{
	const char *content = varlink_str(params, "content", "UNK");
	uint64_t most;
	int c;

	c = ks_content_from_id(content);
	if (c < 0) {
		varlink_error_value(call, "content", "a kstat2 content type: "
		    "UNK, ID, CNT, T_EPOCH, T_REL, T_ACC, PCT, ADDR, TEMP_C, "
		    "RPM, VOLT, WATT, CURR, BYTES, BITS, STATE, FREQ, FLAGS "
		    "or JOULE");
		return -EINVAL;
	}
	kind->content = (uint8_t)c;
	kind->scale = (uint64_t)varlink_int(params, "scale", 1);
	n->ndata = (uint32_t)varlink_int(params, "ndata", 0);
	most = kind->type == KSTAT_TYPE_RAW ? (uint64_t)n->tpl->nnames * 8 :
	    n->tpl->nnames;
	if (n->ndata > most) {
		varlink_error_value(call, "ndata", "at most %llu for a %s "
		    "kstat of %s", (unsigned long long)most,
		    ks_type_id(kind->type), n->tpl->spec);
		return -EINVAL;
	}
	return 0;
}

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
	/* The caller's own template of that spec first, then one it may
	 * see (registry.h): a hidden one is no such template. */
	n->tpl = registry_template_resolve(call->d->reg, varlink_str(params,
	    "template", ""), peer->uid, peer->privileged, peer->zone);
	if (n->tpl == NULL) {
		varlink_error(call, VL_E_NO_SUCH_TEMPLATE, json_pack("{s:s}",
		    "template", varlink_str(params, "template", "")));
		return -EINVAL;
	}
	return m_kstat_content(call, params, n, kind);
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
	struct input_error kerr = { 0 };
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
		if (kerr.where[0] != '\0' && prefix[0] != '\0') {
			char where[sizeof(kerr.where)];

			snprintf(where, sizeof(where), "%.63s%.63s", prefix,
			    kerr.where);
			memcpy(kerr.where, where, sizeof(where));
		}
		m_kstat_fail(call, r, &kerr, "", "", NULL);
		return r;
	}
	/* Checked already: m_kstat_content(). */
	(void)ks_hdr_set_content(h, kind->content, kind->scale, NULL);
	if (sysks_module_own(h->module)) {
		snprintf(field, sizeof(field), "%smodule", prefix);
		varlink_error_value(call, field, "%s is statsd's own module: "
		    "only statsd makes kstats in it", h->module);
		return -EINVAL;
	}
	return 0;
}

/* The place o (KstatCreate's parameters, or a KstatName) asks for the
 * blob at, into n: both fields, or none. */
static void
m_kstat_at(json_t *o, struct reg_kstat_new *n)
{
	n->at_seg = NULL;
	n->at_off = 0;
	if (json_is_string(json_object_get(o, "at_segment")) &&
	    json_is_integer(json_object_get(o, "at_offset"))) {
		n->at_seg = varlink_str(o, "at_segment", NULL);
		n->at_off = (uint64_t)varlink_int(o, "at_offset", 0);
	}
}

int
m_kstat_defn(struct vl_call *call, struct reg_kstat *k, const char *text,
    const char *field, bool *ret_relaid, bool *ret_resized)
{
	struct statsd *d = call->d;
	const char *const *names;
	struct input_error derr;
	struct statsblob *nb = NULL, *sb;
	uint64_t now = clock_now_ns();
	uint32_t size;
	uint16_t nn;
	int r;

	*ret_relaid = *ret_resized = false;
	names = registry_kstat_names(k, &nn);
	memset(&derr, 0, sizeof(derr));
	r = defn_apply(registry_blob_peek(k), names, nn, text, now, &nb,
	    ret_relaid, &derr);
	if (r == -EINVAL || r == -ENOENT) {
		varlink_error_input(call, VL_E_INVALID_DEFINITION, &derr);
		return r;
	}
	if (r == -EFBIG) {
		varlink_error_value(call, field,
		    "the statistics would not fit a blob");
		return r;
	}
	if (r < 0) {
		varlink_error_errno(call, r, "definition");
		return r;
	}
	size = ((const struct statsblob *)nb)->cursz;
	if (size == k->size) {
		sb = registry_blob_begin(d->reg, k);
		memcpy(sb, nb, size);
		registry_blob_end(d->reg, k, now);
		registry_sync(d->reg);
	} else {
		struct quota_refusal why;

		/* The owner pays for the new size; an admin re-laying
		 * another user's kstat is held to the totals only. */
		r = registry_blob_replace(d->reg, k, nb, size,
		    call->conn->peer.privileged, &why);
		if (r < 0) {
			free(nb);
			if (r == -EDQUOT)
				varlink_error_limit(call, why.limit,
				    (int64_t)why.value);
			else
				varlink_error_errno(call, r, "definition");
			return r;
		}
		*ret_resized = true;
	}
	free(nb);
	/* A new shape keeps its names: a template of its own. */
	if (*ret_relaid)
		registry_kstat_name_layout(d->reg, k);
	return 0;
}

/* Take back a create whose record is not in the checkpoint (a batch
 * not written): a revived kstat sleeps again (the checkpoint still has
 * it dormant), a new one goes with nothing left behind, its runtime
 * file too. */
static void
m_kstat_unmake(struct statsd *d, struct reg_kstat *k, bool revived)
{
	if (revived)
		(void)registry_kstat_delete(d->reg, k);
	else
		registry_kstat_forget(d->reg, k);
}

/*
 * Is k's runtime file still to be made, by the runtime files' thread
 * (filer.h)? Then its create is answered once the file is made and its
 * record durable (m_durable_files()).
 */
static bool
m_kstat_file_later(struct statsd *d, const struct reg_kstat *k)
{
	return (k->hdr.flags & KSTAT_FLAG_PERSISTENT) && k->storage == NULL &&
	    d->filer != NULL && checkpoint_outlives_statsd(d->zones, k);
}

/*
 * Create (or revive) one kstat as n says, for the caller: a PERSISTENT
 * one gets its runtime file and, if durable, its place in the checkpoint,
 * or is not made (without durable, the caller writes the checkpoint for
 * a whole batch: checkpoint_kstats_put). With the runtime files' thread
 * running, the file is made there afterwards (m_kstat_file_later()), and
 * the record written once it is. defs (NULL: none) are Linux
 * definition lines it takes before anyone is told of it: refused, the
 * kstat is not made either.
 * Returns: 0 and *ret, *ret_revived; -errno (answered).
 */
static int
m_kstat_make(struct vl_call *call, const struct reg_kstat_new *n,
    const char *defs, bool durable, struct reg_kstat **ret,
    bool *ret_revived)
{
	struct statsd *d = call->d;
	const struct peer *peer = &call->conn->peer;
	struct quota_refusal why;
	struct input_error kerr = { 0 };
	struct reg_kstat *k;
	const char *ckwhy;
	int r;

	k = registry_kstat_find(d->reg, n->hdr->module, n->hdr->instance,
	    n->hdr->name);
	/*
	 * A name held by a kstat the caller may not see (PRIV, another
	 * zone's) gets the neutral refusal: PermissionDenied, as for a
	 * privileged kstat, never KstatExists, which would tell that such a
	 * kstat exists; the refusal names no kstat (docs/security.md).
	 */
	if (k != NULL && !view_kstat_visible(peer, k)) {
		varlink_error_denied(call, RIGHT_ADMIN);
		return -EPERM;
	}
	if (k != NULL && k->dormant) {
		/* Reviving: only its owner or an admin may. It keeps its
		 * zone. */
		if (!view_kstat_may_modify(peer, k)) {
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
		/* Its name as text only for the error. */
		char full[128];

		snprintf(full, sizeof(full), "%s:%d:%s", n->hdr->module,
		    (int)n->hdr->instance, n->hdr->name);
		m_kstat_fail(call, r, &kerr, full, n->tpl->spec, &why);
		return r;
	}
	if ((k->hdr.flags & KSTAT_FLAG_PERSISTENT) && k->storage == NULL &&
	    checkpoint_outlives_statsd(d->zones, k) && d->filer == NULL) {
		struct mirror *m;

		/* Its runtime file, blocks and all, before it is used: a
		 * full runtime directory refuses the create. Without the
		 * files' thread (no runtime directory, or the thread did not
		 * start), here. */
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
	/* Its definitions, all or none, before its checkpoint record has
	 * it: refused, the create is taken back as a create that cannot be
	 * kept is, the definitions' refusal answered. */
	if (defs != NULL && defs[0] != '\0') {
		bool relaid, resized;

		r = m_kstat_defn(call, k, defs, "definitions", &relaid,
		    &resized);
		if (r < 0) {
			m_kstat_unmake(d, k, *ret_revived);
			return r;
		}
	}
	/* Only a durable create is answered: one that cannot be written to
	 * the checkpoint is undone, leaving nothing behind (a revived one
	 * goes dormant again). */
	r = durable && !m_kstat_file_later(d, k) ?
	    checkpoint_kstat_put(d->checkpoint, k, false) : 0;
	if (r < 0) {
		if (*ret_revived)
			(void)registry_kstat_delete(d->reg, k);
		else
			registry_kstat_forget(d->reg, k);
		(void)checkpoint_status(d->checkpoint, &ckwhy);
		m_kstat_not_durable(call, r, ckwhy);
		return r;
	}
	log_debug("uid %u %s kstat %s:%d:%s (handle %u)", (unsigned)peer->uid,
	    *ret_revived ? "revived" : "created", n->hdr->module,
	    (int)n->hdr->instance, n->hdr->name, k->handle);
	*ret = k;
	return 0;
}

/*
 * A create answered once its checkpoint record is durable: the record is
 * written in the loop and synced by the persistence thread (with every
 * other change waiting then: group commit), and the call waits, parked,
 * meanwhile; the loop serves everyone else. If the sync fails, the
 * record is cut off the log and the kstats the call made are taken back,
 * whether the caller is still there or not.
 */
struct m_durable {
	struct checkpoint_wait	 w;
	struct statsd		*d;
	struct conn		*conn;	/* NULL once the caller is gone */
	char			*reply;	/* the answer's parameters */
	size_t			 len;
	size_t			 n;
	uint32_t		*handles;	/* made by the call; 0: not */
	bool			*revived;
	uint64_t		 appends;	/* the log's, before */
	/* A KstatDelete: done once durable (handles[0]), the kstat as
	 * it was when asked (dormant or not); nothing to undo. */
	bool			 del;
	bool			 was_dormant;
	bool			 answered;	/* m_durable_step did */
	/* Runtime files made by the files' thread first (m_durable_files):
	 * the records are written once they are back. */
	struct filer_batch	 fb;
	char			*blobs;		/* fb's first contents */
	enum {
		MD_RECORDED,		/* the records are written */
		MD_FILES,		/* the files are with the thread */
		MD_UNRECORDED,		/* back: the records to write */
	}			 stage;
	int			 files_err;	/* the first file's failure */
	bool			 submitted;	/* fb went to the thread */
	bool			 many;		/* one record for them all */
};

static void
m_durable_free(struct m_durable *m)
{
	if (m == NULL)
		return;
	free(m->reply);
	free(m->handles);
	free(m->revived);
	free(m->fb.e);
	free(m->blobs);
	free(m);
}

static struct m_durable *
m_durable_new(struct vl_call *call, size_t n)
{
	struct m_durable *m = calloc(1, sizeof(*m));

	if (m == NULL)
		return NULL;
	m->d = call->d;
	m->conn = call->conn;
	m->n = n;
	m->appends = checkpoint_appends(call->d->checkpoint);
	m->handles = calloc(n + 1, sizeof(*m->handles));
	m->revived = calloc(n + 1, sizeof(*m->revived));
	if (m->handles == NULL || m->revived == NULL) {
		m_durable_free(m);
		return NULL;
	}
	return m;
}

/* The delete's record is durable: do it, unless the kstat changed
 * meanwhile (another delete did it first, a create revived it: the log
 * has their records after this one). */
static void
m_durable_apply(struct m_durable *m)
{
	struct reg_kstat *k;

	if (!m->del)
		return;
	k = registry_kstat_by_handle(m->d->reg, m->handles[0]);
	if (k == NULL)
		return;
	k->ckpt_deleting = 0;
	if (k->dormant == m->was_dormant)
		(void)registry_kstat_delete(m->d->reg, k);
}

/* The sync failed: the records are off the log; so are the kstats. */
static void
m_durable_undo(struct m_durable *m)
{
	struct reg_kstat *k;
	size_t i, n = 0;

	if (m->del) {
		/* Not done: the kstat stays as it is. */
		k = registry_kstat_by_handle(m->d->reg, m->handles[0]);
		if (k != NULL)
			k->ckpt_deleting = 0;
		log_warning("PERSISTENT delete not made durable: not done");
		return;
	}

	for (i = m->n; i-- > 0;) {
		k = m->handles[i] != 0 ? registry_kstat_by_handle(m->d->reg,
		    m->handles[i]) : NULL;
		if (k != NULL && !k->dormant) {
			m_kstat_unmake(m->d, k, m->revived[i]);
			n++;
		}
	}
	if (m->n > 0)
		log_warning("PERSISTENT create not made durable: %zu kstats "
		    "taken back", n);
}

static void
m_durable_wake(void *arg)
{
	struct m_durable *m = arg;

	if (m->conn != NULL) {
		varlink_wake(m->conn);
		return;
	}
	/* (Cancelled: statsd is stopping, after its last checkpoint; the
	 * next start finds whether the record is there.) The caller gone,
	 * a durable change is done all the same. */
	if (m->w.result == 0)
		m_durable_apply(m);
	if (m->w.result < 0 && m->w.result != -ECANCELED)
		m_durable_undo(m);
	m_durable_free(m);
}

static int m_durable_record(struct m_durable *m);
static void m_durable_orphan(struct m_durable *m);

static bool
m_durable_step(struct vl_call *call, json_t *params, void *state,
    uint64_t budget)
{
	struct m_durable *m = state;
	const char *why;
	int r;

	(void)params;
	(void)budget;
	if (m->stage == MD_FILES || m->w.result == 1) {
		varlink_park(call);
		return false;
	}
	if (m->stage == MD_UNRECORDED && (r = m_durable_record(m)) < 0) {
		m->answered = true;
		why = NULL;
		if (r != m->files_err)
			(void)checkpoint_status(m->d->checkpoint, &why);
		m_kstat_not_durable(call, r, why == NULL || why[0] != '\0' ?
		    why : "cannot write its checkpoint record");
		return true;
	}
	if (m->w.result == 1) {
		varlink_park(call);
		return false;
	}
	m->answered = true;
	if (m->w.result == 0)
		m_durable_apply(m);
	if (m->w.result == 0 && m->reply != NULL) {
		varlink_reply_text(call, m->reply, m->len);
		return true;
	}
	if (m->w.result == 0) {
		varlink_error_errno(call, ENOMEM, "kstat create");
		return true;
	}
	m_durable_undo(m);
	(void)checkpoint_status(m->d->checkpoint, &why);
	m_kstat_not_durable(call, m->w.result, why);
	return true;
}

/* The call is answered, or its caller gone: a wait still on finishes
 * without it (m_durable_wake). */
static void
m_durable_state_free(void *state)
{
	struct m_durable *m = state;

	if ((m->w.result == 1 && m->w.prevp != NULL) ||
	    m->stage == MD_FILES) {
		m->conn = NULL;
		return;
	}
	/* Gone with its files made, before its records were written:
	 * done all the same; refused before its files were asked for
	 * (varlink_defer() failed): taken back. */
	if (m->stage == MD_UNRECORDED) {
		if (m->submitted) {
			m_durable_orphan(m);
			return;
		}
		m_durable_undo(m);
		m_durable_free(m);
		return;
	}
	checkpoint_wait_cancel(m->d->checkpoint, &m->w);
	/* Told, and the caller gone before it was answered: what the
	 * answer would have done is done all the same. */
	if (!m->answered && m->w.result == 0)
		m_durable_apply(m);
	else if (!m->answered && m->w.result < 0 && m->w.result != -ECANCELED)
		m_durable_undo(m);
	m_durable_free(m);
}

/* Answer call with reply (taken over, NULL: out of memory) once what was
 * appended for m's kstats is durable. */
static void
m_durable_answer(struct vl_call *call, json_t *params, struct m_durable *m,
    char *reply, size_t len)
{
	const char *why;
	int r;

	m->reply = reply;
	m->len = len;
	m->w.wake = m_durable_wake;
	m->w.arg = m;
	/* Nothing written (no PERSISTENT kstat made): nothing to wait
	 * for, whatever other changes are waiting. A delete waits for
	 * what is written before it all the same (another delete's record
	 * of the same kstat). */
	r = !m->del && checkpoint_appends(m->d->checkpoint) == m->appends ?
	    0 : checkpoint_wait(m->d->checkpoint, &m->w);
	if (r == 1) {
		(void)varlink_defer(call, params, m_durable_step, m,
		    m_durable_state_free);
		return;
	}
	if (r == 0)
		m_durable_apply(m);
	if (r == 0 && reply != NULL)
		varlink_reply_text(call, reply, len);
	else if (r == 0)
		varlink_error_errno(call, ENOMEM, "kstat create");
	else {
		m_durable_undo(m);
		(void)checkpoint_status(m->d->checkpoint, &why);
		m_kstat_not_durable(call, r, why);
	}
	m_durable_free(m);
}

/*
 * The files are back (m_durable_files()): write the records of the
 * call's kstats, a batch's as one, and wait for them to be durable.
 * Returns: 0 (m->w.result: 1 waiting, 0 durable, -errno lost: undo);
 * -errno (the kstats taken back).
 */
static int
m_durable_record(struct m_durable *m)
{
	struct statsd *d = m->d;
	struct reg_kstat **ks;
	size_t i;
	int r;

	m->stage = MD_RECORDED;
	if (m->files_err < 0)
		return m->files_err;	/* taken back when they came */
	if ((ks = calloc(m->n + 1, sizeof(*ks))) == NULL) {
		m_durable_undo(m);
		return -ENOMEM;
	}
	for (i = 0; i < m->n; i++)
		ks[i] = m->handles[i] != 0 ?
		    registry_kstat_by_handle(d->reg, m->handles[i]) : NULL;
	/* Made, with their runtime files; none in the checkpoint yet. */
	if (m->many)
		crashpoint("create_many.made");
	checkpoint_unsynced(d->checkpoint, true);
	r = m->many ? checkpoint_kstats_put(d->checkpoint, ks, m->n) :
	    ks[0] != NULL ? checkpoint_kstat_put(d->checkpoint, ks[0], false) :
	    0;
	checkpoint_unsynced(d->checkpoint, false);
	free(ks);
	if (r < 0) {
		m_durable_undo(m);
		return r;
	}
	m->w.wake = m_durable_wake;
	m->w.arg = m;
	m->w.result = checkpoint_appends(d->checkpoint) == m->appends ? 0 :
	    checkpoint_wait(d->checkpoint, &m->w);
	return 0;
}

/* The create's caller is gone, its files made: it is done all the same,
 * as a create whose record waits to be durable is (m_durable_wake()). */
static void
m_durable_orphan(struct m_durable *m)
{
	m->conn = NULL;
	if (m_durable_record(m) == 0 && m->w.result == 1)
		return;		/* m_durable_wake() finishes it */
	if (m->w.result < 0 && m->w.result != -ECANCELED)
		m_durable_undo(m);
	m_durable_free(m);
}

/* Back from the files' thread, in the loop: each file goes to its kstat,
 * unless the kstat went meanwhile; if one could not be made, none of the
 * call's kstats stay. The call goes on in its next turn. */
static void
m_durable_files_done(struct filer_batch *b)
{
	struct m_durable *m = b->arg;
	struct reg_kstat *k;
	size_t i;

	for (i = 0; i < b->n; i++) {
		struct filer_make *e = &b->e[i];

		if (e->err < 0 && m->files_err == 0)
			m->files_err = e->err;
		if (e->m == NULL)
			continue;
		k = registry_kstat_by_handle(m->d->reg, e->handle);
		if (k == NULL || k->storage != NULL ||
		    registry_kstat_attach(m->d->reg, k,
		    mirror_storage(e->m)) < 0)
			blob_storage_remove(mirror_storage(e->m));
	}
	m->stage = MD_UNRECORDED;
	if (m->files_err < 0)
		m_durable_undo(m);
	if (m->conn != NULL)
		varlink_wake(m->conn);
	else
		m_durable_orphan(m);
}

/*
 * Like m_durable_answer(), for kstats whose runtime files are still to
 * be made (m_kstat_file_later()): the files' thread makes them while the
 * call waits; then the records are written and the call answered with
 * reply (taken over) once they are durable. A file that cannot be made
 * refuses the create, as a full runtime directory always did.
 */
static void
m_durable_files(struct vl_call *call, json_t *params, struct m_durable *m,
    char *reply, size_t len)
{
	struct statsd *d = m->d;
	struct reg_kstat *k;
	size_t i, nf = 0, bytes = 0, off = 0;

	m->reply = reply;
	m->len = len;
	for (i = 0; i < m->n; i++) {
		k = m->handles[i] != 0 ? registry_kstat_by_handle(d->reg,
		    m->handles[i]) : NULL;
		if (k != NULL && m_kstat_file_later(d, k)) {
			nf++;
			bytes += k->size;
		}
	}
	m->fb.e = calloc(nf + 1, sizeof(*m->fb.e));
	m->blobs = malloc(bytes + 1);
	if (m->fb.e == NULL || m->blobs == NULL) {
		m_durable_undo(m);
		m_durable_free(m);
		varlink_error_errno(call, ENOMEM, "kstat create");
		return;
	}
	for (i = 0; i < m->n; i++) {
		struct filer_make *e = &m->fb.e[m->fb.n];

		k = m->handles[i] != 0 ? registry_kstat_by_handle(d->reg,
		    m->handles[i]) : NULL;
		if (k == NULL || !m_kstat_file_later(d, k))
			continue;
		e->handle = k->handle;
		e->size = k->size;
		e->blob = m->blobs + off;
		memcpy(m->blobs + off, registry_blob_peek(k), k->size);
		off += k->size;
		m->fb.n++;
	}
	m->fb.done = m_durable_files_done;
	m->fb.arg = m;
	/* Deferred first: if that fails (answered, m taken back and
	 * freed), no file is asked for. */
	m->stage = MD_UNRECORDED;
	(void)varlink_defer(call, params, m_durable_step, m,
	    m_durable_state_free);
	if (!call->deferred)
		return;
	m->stage = MD_FILES;
	m->submitted = true;
	filer_make(d->filer, &m->fb);
}

/*
 * KstatCreate's reply with brief: what a client's ring records and reads
 * need (KstatMade), written as text, without the whole Kstat object it
 * would be built as, dumped and parsed back.
 */
static char *
m_kstat_brief(const struct reg_kstat *k, bool revived, size_t *ret_len)
{
	struct sbuf *sb = sbuf_new_auto();
	char num[DEC_U64_MAX], *text = NULL;

	if (sb == NULL)
		return NULL;
	sbuf_cat(sb, "{\"made\":{\"handle\":");
	sbuf_bcat(sb, num, dec_u64(num, k->handle));
	sbuf_cat(sb, ",\"segment\":");
	stat_json_string(sb, k->rseg->name, strlen(k->rseg->name));
	sbuf_cat(sb, ",\"slot\":");
	sbuf_bcat(sb, num, dec_u64(num, k->ref.slot));
	sbuf_cat(sb, ",\"gen\":");
	sbuf_bcat(sb, num, dec_u64(num, k->ref.gen));
	sbuf_cat(sb, revived ? "},\"revived\":true}" :
	    "},\"revived\":false}");
	if (sbuf_finish(sb) == 0) {
		*ret_len = (size_t)sbuf_len(sb);
		text = malloc(*ret_len + 1);
		if (text != NULL)
			memcpy(text, sbuf_data(sb), *ret_len + 1);
	}
	sbuf_delete(sb);
	return text;
}

void
m_kstat_create(struct vl_call *call, json_t *params)
{
	struct statsd *d = call->d;
	struct m_kstat_kind kind;
	struct reg_kstat_new n;
	struct kstat_hdr hdr;
	struct reg_kstat *k;
	struct m_durable *m;
	json_t *reply;
	char *text;
	size_t len = 0;
	bool revived;
	int r;

	if (m_kstat_common(call, params, &n, &kind) < 0 ||
	    m_kstat_hdr(call, params, &kind, "", &hdr) < 0)
		return;
	n.hdr = &hdr;
	m_kstat_at(params, &n);
	m = m_durable_new(call, 1);
	if (m == NULL) {
		varlink_error_errno(call, ENOMEM, "kstat create");
		return;
	}
	/* Its record written, synced by the persistence thread. */
	checkpoint_unsynced(d->checkpoint, true);
	r = m_kstat_make(call, &n, varlink_str(params, "definitions", NULL),
	    true, &k, &revived);
	checkpoint_unsynced(d->checkpoint, false);
	if (r < 0) {
		m_durable_free(m);
		return;
	}
	m->handles[0] = k->handle;
	m->revived[0] = revived;
	if (varlink_bool(params, "brief", false)) {
		text = m_kstat_brief(k, revived, &len);
	} else {
		reply = json_pack("{s:o, s:b}", "kstat",
		    registry_kstat_json(d->reg, k), "revived", revived);
		text = reply != NULL ? jdump(reply, 0, NULL) : NULL;
		json_decref(reply);
		len = text != NULL ? strlen(text) : 0;
	}
	if (m_kstat_file_later(d, k))
		m_durable_files(call, params, m, text, text != NULL ? len : 0);
	else
		m_durable_answer(call, params, m, text, text != NULL ? len :
		    0);
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
	json_t *names = json_object_get(params, "kstats"), *o;
	bool join = varlink_bool(params, "join", false);
	struct m_kstat_kind kind;
	struct reg_kstat_new n, common;
	struct kstat_hdr hdr;
	struct reg_kstat **made, *k;
	size_t i, count = json_array_size(names);
	struct sbuf *ks = NULL, *flags = NULL, *quoted = NULL;
	char prefix[32], *text = NULL;
	struct m_durable *m = NULL;
	bool *revived, later = false;
	int r;

	if (m_kstat_common(call, params, &common, &kind) < 0)
		return;
	made = calloc(count + 1, sizeof(*made));
	revived = calloc(count + 1, sizeof(*revived));
	ks = sbuf_new_auto();
	flags = sbuf_new_auto();
	m = m_durable_new(call, count);
	if (made == NULL || revived == NULL || ks == NULL || flags == NULL ||
	    m == NULL) {
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
		m_kstat_at(o, &n);
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
		    view_kstat_visible(&call->conn->peer, k) &&
		    view_kstat_may_modify(&call->conn->peer, k)) {
			m_kstat_made(ks, k, i == 0);
			sbuf_cat(flags, i == 0 ? "false" : ",false");
			continue;
		}
		if (m_kstat_make(call, &n, NULL, false, &made[i],
		    &revived[i]) < 0) {
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
	/* Their runtime files to make first, on the files' thread: the
	 * record is written once they are (m_durable_files()). */
	for (i = 0; i < count; i++)
		if (made[i] != NULL && m_kstat_file_later(d, made[i]))
			later = true;
	/* Made, with their runtime files; none in the checkpoint yet. */
	if (!later)
		crashpoint("create_many.made");
	/*
	 * All or none, after a crash too: the PERSISTENT ones go into the
	 * checkpoint as one record, synced by the persistence thread; if
	 * it cannot be written, every kstat of the call goes.
	 */
	r = 0;
	if (!later) {
		checkpoint_unsynced(d->checkpoint, true);
		r = checkpoint_kstats_put(d->checkpoint, made, count);
		checkpoint_unsynced(d->checkpoint, false);
	}
	if (r < 0) {
		const char *ckwhy;

		for (i = count; i-- > 0;)
			if (made[i] != NULL)
				m_kstat_unmake(d, made[i], revived[i]);
		(void)checkpoint_status(d->checkpoint, &ckwhy);
		m_kstat_not_durable(call, r, ckwhy[0] != '\0' ? ckwhy :
		    "cannot write its checkpoint record");
		goto out;
	}
	for (i = 0; i < count; i++) {
		m->handles[i] = made[i] != NULL ? made[i]->handle : 0;
		m->revived[i] = revived[i];
	}
	/* joined: those not made by this call. */
	sbuf_cat(flags, "],\"joined\":[");
	for (i = 0; i < count; i++)
		sbuf_printf(flags, "%s%s", i == 0 ? "" : ",", made[i] == NULL ?
		    "true" : "false");
	sbuf_cat(flags, "]");
	quoted = sbuf_new_auto();
	if (quoted != NULL)
		stat_json_string(quoted, common.tpl->spec,
		    strlen(common.tpl->spec));
	sbuf_putc(ks, ']');
	if (quoted != NULL && sbuf_finish(quoted) == 0 &&
	    sbuf_finish(ks) == 0 && sbuf_finish(flags) == 0)
		r = asprintf(&text, "{\"template\":%s,%s,%s}",
		    sbuf_data(quoted), sbuf_data(ks), sbuf_data(flags));
	else
		r = -1;
	/* Answered once the record is durable (without the text: out of
	 * memory, once it is durable all the same). */
	m->many = true;
	if (later)
		m_durable_files(call, params, m, r < 0 ? NULL : text, r < 0 ?
		    0 : (size_t)r);
	else
		m_durable_answer(call, params, m, r < 0 ? NULL : text,
		    r < 0 ? 0 : (size_t)r);
	m = NULL;
out:
	m_durable_free(m);
	sbuf_delete(ks);
	sbuf_delete(flags);
	sbuf_delete(quoted);
	free(made);
	free(revived);
}

void
m_kstat_delete(struct vl_call *call, json_t *params)
{
	struct statsd *d = call->d;
	struct reg_kstat *k;
	struct m_durable *m;
	const char *ckwhy;
	bool persistent;
	char *text;
	int dormant, r;

	/* A dormant kstat is deleted for good: its data, its handle and
	 * what it held of its owner's quotas go. */
	k = m_kstat_get_own(call, params, true, "name",
	    "statsd's own kstat stays");
	if (k == NULL)
		return;
	persistent = (k->hdr.flags & KSTAT_FLAG_PERSISTENT) != 0;
	if (!persistent) {
		dormant = registry_kstat_delete(d->reg, k);
		varlink_reply(call, json_pack("{s:b}", "dormant",
		    dormant == 1));
		return;
	}
	/*
	 * The checkpoint first: a PERSISTENT kstat's delete (dormant) or
	 * removal (of a dormant one) is durable before it is done, or not
	 * done. Its record is written here and synced by the persistence
	 * thread (group commit, as creates); the delete is done and
	 * answered once it is durable, and not done if the sync fails.
	 */
	m = m_durable_new(call, 1);
	if (m == NULL) {
		varlink_error_errno(call, ENOMEM, "kstat delete");
		return;
	}
	m->del = true;
	m->was_dormant = k->dormant;
	m->handles[0] = k->handle;
	checkpoint_unsynced(d->checkpoint, true);
	r = k->dormant ? checkpoint_kstat_drop(d->checkpoint, k) :
	    checkpoint_kstat_put(d->checkpoint, k, true);
	checkpoint_unsynced(d->checkpoint, false);
	if (r < 0) {
		m_durable_free(m);
		(void)checkpoint_status(d->checkpoint, &ckwhy);
		m_kstat_not_durable(call, r, ckwhy);
		return;
	}
	k->ckpt_deleting = k->dormant ? CKPT_DEL_DROP : CKPT_DEL_SLEEP;
	/* Written, not durable, not done. */
	crashpoint("delete.written");
	/* What registry_kstat_delete will say. */
	text = strdup(k->dormant ? "{\"dormant\":false}" :
	    "{\"dormant\":true}");
	m_durable_answer(call, params, m, text, text != NULL ?
	    strlen(text) : 0);
}

void
m_kstat_relayout(struct vl_call *call, json_t *params)
{
	struct statsd *d = call->d;
	const struct peer *peer = &call->conn->peer;
	const char *spec = varlink_str(params, "template", "");
	struct quota_refusal why;
	struct reg_template *t;
	struct reg_kstat *k;
	struct m_durable *m;
	const char *ckwhy;
	uint16_t kept = 0;
	json_t *reply;
	char full[128], *text;
	int r;

	k = m_kstat_get_own(call, params, false, "name",
	    "statsd's own kstats keep their layout");
	if (k == NULL)
		return;
	t = registry_template_find(d->reg, spec);
	if (t == NULL) {
		varlink_error(call, VL_E_NO_SUCH_TEMPLATE, json_pack("{s:s}",
		    "template", spec));
		return;
	}
	/* A PERSISTENT kstat's new layout must reach the checkpoint: refused
	 * at once, with the reason, while it cannot be written. */
	if ((k->hdr.flags & KSTAT_FLAG_PERSISTENT) &&
	    checkpoint_outlives_statsd(d->zones, k) &&
	    !checkpoint_status(d->checkpoint, &ckwhy)) {
		m_kstat_not_durable(call, -EIO, ckwhy);
		return;
	}
	/* What the caller pushed before asking lands in the old layout. */
	drain_conn(d->drain, call->conn);
	r = registry_kstat_relayout(d->reg, k, t, peer->privileged, &kept,
	    &why);
	if (r == -EINVAL) {
		varlink_error_value(call, "template", "a VOI id of both "
		    "templates is defined otherwise in %s", t->spec);
		return;
	}
	if (r == -E2BIG) {
		varlink_error_value(call, "template", "the kstat's statistics "
		    "would not fit a blob");
		return;
	}
	if (r < 0) {
		registry_kstat_name(k, full, sizeof(full));
		m_kstat_fail(call, r, &(struct input_error){ 0 }, full, t->spec,
		    &why);
		return;
	}
	registry_kstat_name(k, full, sizeof(full));
	log_debug("uid %u re-laid kstat %s from %s (%u VOIs kept)",
	    (unsigned)peer->uid, full, t->spec, (unsigned)kept);
	reply = json_pack("{s:o, s:i}", "kstat", registry_kstat_json(d->reg,
	    k), "kept", (int)kept);
	if (!(k->hdr.flags & KSTAT_FLAG_PERSISTENT)) {
		varlink_reply(call, reply);
		return;
	}
	/* Answered once its new record is durable (synced by the
	 * persistence thread). */
	m = m_durable_new(call, 0);
	if (m != NULL) {
		checkpoint_unsynced(d->checkpoint, true);
		r = checkpoint_kstat_put(d->checkpoint, k, false);
		checkpoint_unsynced(d->checkpoint, false);
	} else {
		r = -ENOMEM;
	}
	if (r < 0) {
		json_decref(reply);
		m_durable_free(m);
		(void)checkpoint_status(d->checkpoint, &ckwhy);
		m_kstat_not_durable(call, r, ckwhy);
		return;
	}
	text = reply != NULL ? jdump(reply, 0, NULL) : NULL;
	json_decref(reply);
	m_durable_answer(call, params, m, text, text != NULL ? strlen(text) :
	    0);
}
