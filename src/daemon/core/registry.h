/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * registry.h: the daemon's tables — templates (by the engine's id and by
 * spec) and kstats (by handle, and by module:instance:name) — and its two
 * store segments: the public one and the private one for PRIV kstats.
 *
 * A kstat's handle is a 32-bit number statsd gives it once and never
 * reuses; update records carry it in their slot field, and it is kept
 * across restarts for PERSISTENT kstats, so that records still in a ring
 * when statsd restarted land where they were meant to.
 *
 * The canonical copy of a kstat's blob is its store blob, or, for a
 * PERSISTENT kstat, its blob storage (blobstore.h: a runtime file);
 * registry_blob_begin() and registry_blob_end() bracket every change and
 * keep the two in step.
 *
 * What a template or a kstat holds is charged to its owner (quota.h) when
 * it is made and given back when it goes: a template its definition and
 * blob; a kstat its slot and arena chunk in the public segment, and, if
 * PERSISTENT, its bytes on disk; the first kstat of a zone's segment that
 * segment (a memfd descriptor), until the segment's last kstat goes. A user at its template limit has its own
 * templates that no kstat uses freed, oldest first.
 */
#ifndef STATSD_DAEMON_REGISTRY_H
#define STATSD_DAEMON_REGISTRY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include <statsd/stats.h>

#include "kindex.h"
#include "kstat_hdr.h"
#include "quota.h"
#include "store.h"
#include "zones.h"

struct statsd;
struct registry;
struct blob_storage;

struct reg_seg;

struct reg_template {
	int		 id;		/* the engine's */
	char		 name[TPL_MAX_NAME_LEN + 1];
	uint32_t	 hash;
	char		 spec[STATS_TPL_MAX_STR_SPEC_LEN + 8];
	uint32_t	 size;		/* bytes of a blob */
	uint16_t	 nnames;
	char		**names;	/* VOI names by id; NULL: vacant */
	struct k2hist_params *k2;	/* by VOI id: kstat2 histograms */
	json_t		*def;		/* the definition as given */
	char		*vois_json;	/* its "vois", as JSON text: what
					 * TemplateList shows, made once */
	uid_t		 owner;		/* charged for it */
	uint64_t	 bytes;		/* QUOTA_TEMPLATE_BYTES charged */
	unsigned	 nkstats;	/* kstats made from it, dormant too */
	uint64_t	 seq;		/* registration order, never reused */
	/* The checkpoint's: the bytes of its record there (0: none); while
	 * the log is compacted, the compaction it was written to and the
	 * bytes it took there. */
	uint64_t	 ckpt_bytes;
	uint32_t	 ckpt_gen;
	uint64_t	 ckpt_pending;
	unsigned	 npublic;	/* public kstats made from it */
	unsigned	 nall;		/* of them, those seen in every zone */
	/* The segments its kstats are in, with how many in each: what a
	 * zone's peer may see of it, found without a walk of every kstat.
	 * An entry whose count is 0 is vacant (its segment may be gone). */
	struct reg_tpl_use {
		struct reg_seg	*rs;
		uint32_t	 n;
	}		*uses;
	uint32_t	 nuses;
};

/*
 * A store segment and the kstats it holds: those that live in zone
 * (ZONE_ALL: every zone), in the global zone too with gz, PRIV ones when
 * priv. A peer is given the segments whose kstats it may see, so no map it
 * holds shows it a kstat of another zone. name is what Kstat.segment and
 * SegmentAttach call it: "public" and "private" (the global zone's), "all"
 * and "all-private", "zone<N>[+global][-private]".
 */
struct reg_seg {
	struct store_segment	*seg;
	uint32_t		 zone;
	bool			 gz;
	bool			 priv;
	uint32_t		 nkstats;
	uint32_t		 ndormant;	/* of them */
	char			 name[40];
	bool			 charged; /* a zone's: QUOTA_ZONE_SEGMENTS */
	uid_t			 owner;	/* charged for it */
	uint64_t		 serial;  /* never reused (pub.h) */
	struct reg_seg		*gone_next;
};

struct reg_kstat {
	uint32_t		 handle;
	/* flags: KSTAT_FLAG_*, and KSTAT2_FLAG_GZ_VIS for a zone's kstat
	 * seen in the global zone too (reg_kstat_gz()). */
	struct kstat_hdr	 hdr;
	uid_t			 owner;
	uint32_t		 owner_zone; /* the creator's zone */
	uint32_t		 zone;	/* where it is seen: a zone, ZONE_ALL */
	struct reg_template	*tpl;
	struct reg_seg		*rseg;	/* the segment of its zone and PRIV */
	struct store_segment	*seg;	/* rseg->seg */
	struct store_ref	 ref;
	uint32_t		 size;	/* blob bytes now */
	uint32_t		 ndata;	/* as its creator gave it; 0: none */
	struct statsblob	*blob;	/* in the store segment */
	struct blob_storage	*storage; /* PERSISTENT: the canonical blob */
	bool			 dirty;	/* storage ahead of the store */
	bool			 dormant;
	bool			 internal; /* statsd's own: not deletable */
	/* A definition re-laid its blob: the engine's template naming that
	 * layout (its id + 1; 0: none) and the layout hash it names. */
	int			 relaid;
	uint32_t		 relaid_hash;
	uint64_t		 charged[QUOTA_NUM]; /* to owner */
	struct kx_entry		 ix;	/* in the registry's indexes */
	size_t			 pos;	/* in registry_kstats() */
	/* Changes of the blob, counted; the checkpoint's: the count its
	 * last synced record holds, the count of a record written but not
	 * yet synced, the bytes of its last record (0: none). */
	uint64_t		 changes;
	uint64_t		 ckpt_saved, ckpt_pending;
	uint64_t		 ckpt_bytes, ckpt_pbytes;
	/* A delete whose record is written, not yet durable, not yet done
	 * (CKPT_DEL_*): the checkpoint's pass writes the state it is
	 * going to, not the one it leaves. */
	uint8_t			 ckpt_deleting;
};

#define CKPT_DEL_SLEEP	1	/* going dormant */
#define CKPT_DEL_DROP	2	/* a dormant one removed for good */

struct registry_stats {
	uint64_t	kstats;		/* active */
	uint64_t	dormant;
	uint64_t	templates;
	uint64_t	kcid;		/* every segment's, summed */
	uint64_t	segments;
	/* What any peer of the global zone may see: kstats neither PRIV
	 * nor another zone's, and the templates they use (statsd's own
	 * kstat, in the public segment, shows these). */
	uint64_t	public_kstats;
	uint64_t	public_dormant;
	uint64_t	public_templates;
};

/* Make the global zone's and every zone's public segments (sizes from the
 * config); the others come with their first kstat. Returns: 0; -errno. */
int registry_new(struct statsd *d, struct registry **ret);
struct registry *registry_free(struct registry *r);

void registry_stats(const struct registry *r, struct registry_stats *ret);

/* Every segment (borrowed; the list changes as zones come and go). */
size_t registry_segments(struct registry *r, struct reg_seg ***ret);

/* ---------------------------------------------------------------- templates */

/* Who a new object is charged to. */
struct reg_owner {
	uid_t	uid;
	bool	privileged;	/* held to the totals only */
	bool	restoring;	/* restored at start: charged unchecked */
};

/*
 * Template names are per owner: a template is its owner's uid, its name
 * and its definition. registry_template_add() looks only at the owner's
 * own templates, so no other user's TemplateAdd can take a name from it
 * (root's included), and what it answers tells nothing of others'
 * templates (a PRIV kstat's, another zone's). Two owners with one name
 * have two templates, each with the hash its own definition gives (the
 * same hash for the same definition: the engine tells them apart by id).
 *
 * registry_template_add: register def (a TemplateAdd definition) for
 * owner unless owner has the same definition registered already.
 * Definitions are compared, kept and laid out with their VOIs in the
 * order of their ids, so a template's hash is its name and schema's alone.
 * Returns: 0 and *ret, *ret_created; -EINVAL with *err filled;
 * -EEXIST if another definition of owner's has that name; -EDQUOT with
 * *why filled (max_templates, template bytes, per uid or in total);
 * -ENOMEM.
 */
int registry_template_add(struct registry *r, json_t *def,
    const struct reg_owner *owner, struct reg_template **ret,
    bool *ret_created, struct input_error *err, struct quota_refusal *why);

/* The template a spec ("<name>":<hash>, "<name>", :<hash>) names, the
 * newest if several match, whoever owns it (statsd's own lookups: the
 * checkpoint's). Returns: it, or NULL. */
struct reg_template *registry_template_find(struct registry *r,
    const char *spec);

/* The same among the templates of owner uid only. */
struct reg_template *registry_template_find_owned(struct registry *r,
    const char *spec, uid_t uid);

/*
 * registry_template_usable: may a peer (uid, privileged, in zone) make
 * kstats of t? Its own templates, any for a privileged peer; another's
 * only if some kstat of it shows the template to that peer anyway: a
 * public kstat (neither PRIV nor another zone's) for a peer of the global
 * zone, a kstat seen in every zone for a peer in a zone. So a spec is no
 * oracle: a hidden template is "no such template", as an absent one.
 */
bool registry_template_usable(const struct reg_template *t, uid_t uid,
    bool privileged, uint32_t zone);

/*
 * registry_template_resolve: the template a peer's spec names: the
 * newest of the peer's own that matches, else the newest matching one it
 * may use (registry_template_usable()). Returns: it, or NULL.
 */
struct reg_template *registry_template_resolve(struct registry *r,
    const char *spec, uid_t uid, bool privileged, uint32_t zone);

/* All templates, oldest first (borrowed). */
size_t registry_templates(struct registry *r, struct reg_template ***ret);

/* Is k, a zone's kstat, seen in the global zone too (GZ_VIS)? */
static inline bool
reg_kstat_gz(const struct reg_kstat *k)
{
	return (k->hdr.flags & KSTAT2_FLAG_GZ_VIS) != 0;
}

/* Where the first template registered after seq is in
 * registry_templates()' list (its count if none). */
size_t registry_templates_after(struct registry *r, uint64_t seq);

/* A template as the IDL's Template type. */
json_t *registry_template_json(const struct reg_template *t);

/* ------------------------------------------------------------------ kstats */

struct reg_kstat_new {
	/* Checked by the caller (ks_hdr_new()): names, type, the creator's
	 * flags, path, description. */
	const struct kstat_hdr	*hdr;
	uid_t			 owner;
	bool			 privileged;	/* the owner, now */
	uint32_t		 owner_zone;	/* the creator's zone */
	uint32_t		 zone;		/* ZONE_ALL, ZONE_GLOBAL, a zone */
	bool			 gz;		/* a zone's, seen globally too */
	struct reg_template	*tpl;
	uint32_t		 ndata;		/* as given; 0: the template's */
	/* Where the blob was before a restart, as its creator says (a
	 * published blob shown in place): the segment's name and the
	 * offset in it. Laid out there if it lands in that segment and
	 * the chunk is free; anywhere if not. NULL, 0: anywhere. */
	const char		*at_seg;
	uint64_t		 at_off;
	/* Restoring (ck_load.c) only; restoring charges unchecked: */
	bool			 restoring;
	uint32_t		 handle;	/* 0: a new one */
	uint64_t		 crtime;	/* 0: now */
	struct blob_storage	*storage;	/* taken over */
	const void		*blob;		/* initial data, or NULL */
	uint32_t		 blob_size;
	bool			 dormant;
};

/*
 * registry_kstat_create: add a kstat with a blob laid out from its
 * template — or revive a dormant PERSISTENT one of that name.
 * Returns: 0 and *ret (*ret_revived); -EEXIST if an active kstat has the
 * name; -ESTALE if a dormant one has another template; -EDQUOT with *why
 * filled (a quota of the owner, or the segment's slots or arena full);
 * -E2BIG for a blob over the store's limit; -EINVAL if the template's
 * blob cannot be made; -errno.
 */
int registry_kstat_create(struct registry *r, const struct reg_kstat_new *n,
    struct reg_kstat **ret, bool *ret_revived, struct quota_refusal *why);

/*
 * registry_kstat_delete: remove a kstat, or make an active PERSISTENT one
 * dormant (it keeps its data, its handle and its charges). A dormant one
 * is removed for good.
 * Returns: 1 if it went dormant; 0 if removed.
 */
int registry_kstat_delete(struct registry *r, struct reg_kstat *k);

/* Remove k for good, PERSISTENT or not, with its blob storage (a create
 * that could not be made durable leaves nothing behind). */
void registry_kstat_forget(struct registry *r, struct reg_kstat *k);

/* Give k, which has none, the blob storage s (a runtime file made after
 * k): k's blob is copied into it, and kept there from now on.
 * Returns: 0; -E2BIG (k's blob does not fit: s untouched). */
int registry_kstat_attach(struct registry *r, struct reg_kstat *k,
    struct blob_storage *s);

/* By name (dormant ones too), O(1). Returns: it, or NULL. */
struct reg_kstat *registry_kstat_find(struct registry *r, const char *module,
    int32_t instance, const char *name);

/* By handle, O(1): the drain's lookup. Returns: it, or NULL. */
struct reg_kstat *registry_kstat_by_handle(struct registry *r,
    uint32_t handle);
/* Prefetch where registry_kstat_by_handle(handle) will look first: a
 * hint for a lookup coming soon (series_hint_data()); reads nothing. */
void	registry_kstat_hint(const struct registry *r, uint32_t handle);

/* All kstats, in no particular order (borrowed; valid until the next
 * create or delete). */
size_t registry_kstats(struct registry *r, struct reg_kstat ***ret);

/*
 * In kstat(1M)'s order (kindex.h), dormant ones too: the first kstat at
 * or after (after: strictly after) module:instance:name (module NULL: the
 * first of all), and the one after k. A read of many kstats that answers
 * in pages resumes after the name of the last one it sent, whatever was
 * created or deleted meanwhile.
 * Returns: it, or NULL at the end.
 */
struct reg_kstat *registry_kstat_seek(struct registry *r, const char *module,
    int32_t instance, const char *name, bool after);
struct reg_kstat *registry_kstat_after(struct registry *r,
    const struct reg_kstat *k);

/* The next handle to give out, and raise it (the state log: persist/ck_*.c). */
uint32_t registry_next_handle(const struct registry *r);
void registry_raise_next_handle(struct registry *r, uint32_t h);

/* The kstat's ndata as readers see it: its creator's, else its
 * template's VOIs (for a RAW kstat, their bytes: a word each). */
uint32_t registry_kstat_ndata(const struct reg_kstat *k);

/* "module:instance:name" into buf. */
void registry_kstat_name(const struct reg_kstat *k, char *buf, size_t len);

/* A kstat as the IDL's Kstat type. */
json_t *registry_kstat_json(struct registry *r, const struct reg_kstat *k);

/* What a Kstat value says, however it was found: the registry's kstat,
 * or a reader's copy of a store slot (rview.h). */
struct kstat_json_fields {
	const struct kstat_hdr	*hdr;
	uint32_t		 flags;		/* shown, and GZ_VIS */
	uint32_t		 handle;
	const char		*segment;	/* its name */
	struct store_ref	 ref;
	uid_t			 owner;
	const char		*spec;		/* its template's */
	uint32_t		 size;		/* blob bytes */
	uint32_t		 zone;		/* ZONE_ALL: every zone */
	uint32_t		 ndata;
};
json_t *registry_kstat_json_of(const struct kstat_json_fields *f);

/* VOI names of a kstat by id (from its template). */
static inline const char *const *
registry_kstat_names(const struct reg_kstat *k, uint16_t *ret_n)
{
	*ret_n = k->tpl->nnames;
	return (const char *const *)k->tpl->names;
}

/* -------------------------------------------------------------------- blobs */

/* The canonical blob, to change: bracket every change with these two. */
struct statsblob *registry_blob_begin(struct registry *r, struct reg_kstat *k);
void registry_blob_end(struct registry *r, struct reg_kstat *k,
    uint64_t snaptime);

/* The canonical blob, to read (statsd is its only writer). */
const struct statsblob *registry_blob_peek(const struct reg_kstat *k);

/*
 * registry_blob_replace: install a new blob (of size bytes) for k, e.g.
 * after a definition change re-laid it; by charges to the kstat's owner
 * (privileged: held to the totals only).
 * Returns: 0; -E2BIG; -EDQUOT with *why filled (the old blob is kept);
 * -errno.
 */
int registry_blob_replace(struct registry *r, struct reg_kstat *k,
    const struct statsblob *nb, uint32_t size, bool privileged,
    struct quota_refusal *why);

/*
 * registry_kstat_relayout: lay k out again from template t (a VOI, a
 * statistic added or removed), keeping the data of every VOI whose
 * definition is the same in both templates byte for byte; the others are
 * as a new kstat of t has them. Readers of the store see the old blob or
 * the new one, never a mix; k is then t's (its slot's template hash
 * too). The owner is charged for the new size (privileged: held to the
 * totals only). A PERSISTENT kstat's stored blob is the new one when this
 * returns; making it durable (the checkpoint) is the caller's.
 * Returns: 0 and *ret_kept (VOIs kept); -EINVAL if a VOI id of both
 * templates has another definition in t; -ENOENT (dormant); -E2BIG;
 * -EDQUOT with *why filled (the old blob is kept); -ENOMEM.
 */
int registry_kstat_relayout(struct registry *r, struct reg_kstat *k,
    struct reg_template *t, bool privileged, uint16_t *ret_kept,
    struct quota_refusal *why);

/*
 * registry_kstat_name_layout: after k's blob changed layout (a definition
 * re-laid it), register the layout as a template of its own, named after
 * k's template and k ("<template>.relaid.<handle>"), with the blob's
 * layout hash and the VOI names of k's template, so that the stats(3)
 * renderer's META names find it; the one registered for an earlier layout
 * goes. Nothing if the blob is laid out as its template.
 */
void registry_kstat_name_layout(struct registry *r, struct reg_kstat *k);

/* Is b, k's blob, named by a template: its own, or the one of its re-laid
 * layout? (The stats(3) renderer's META names need one.) */
bool registry_blob_named(const struct reg_kstat *k,
    const struct statsblob *b);

/* Copy every PERSISTENT blob changed since the last sync into the store. */
void registry_sync(struct registry *r);

#endif
