/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * view.c: what a peer may see and change of the registry (view.h). The
 * rules themselves (privilege, zones, ownership) are rights.c's; this file
 * applies them to kstats, templates and store segments, so that no
 * handler, exposition page or drain pass decides visibility on its own.
 */
#include "registry.h"
#include "render_kstat.h"
#include "rights.h"
#include "view.h"
#include "zones.h"

bool
view_kstat_visible(const struct peer *p, const struct reg_kstat *k)
{
	return rights_may_see(p, (k->hdr.flags & KSTAT_FLAG_PRIV) != 0,
	    k->zone, reg_kstat_gz(k));
}

bool
view_kstat_may_modify(const struct peer *p, const struct reg_kstat *k)
{
	return rights_may_modify(p, k->owner, k->owner_zone);
}

void
view_kstat(const struct reg_kstat *k, const struct statsblob *sb,
    struct ks_view *v)
{
	v->hdr = &k->hdr;
	v->sb = sb;
	v->names = registry_kstat_names(k, &v->nnames);
	v->k2 = k->tpl->k2;
}

bool
view_segment_visible(const struct peer *p, const struct reg_seg *seg)
{
	return rights_may_see(p, seg->priv, seg->zone, seg->gz);
}

uint64_t
view_kcid(struct registry *r, const struct peer *p)
{
	struct reg_seg **segs;
	size_t n = registry_segments(r, &segs), i;
	uint64_t k = 0;

	for (i = 0; i < n; i++)
		if (view_segment_visible(p, segs[i]))
			k += store_segment_kcid(segs[i]->seg);
	return k;
}

void
view_zone_counts(struct registry *r, const struct peer *p,
    uint64_t *ret_active, uint64_t *ret_dormant)
{
	struct reg_seg **segs;
	size_t n = registry_segments(r, &segs), i;

	*ret_active = *ret_dormant = 0;
	for (i = 0; i < n; i++) {
		if (!view_segment_visible(p, segs[i]))
			continue;
		*ret_active += segs[i]->nkstats - segs[i]->ndormant;
		*ret_dormant += segs[i]->ndormant;
	}
}

bool
view_template_visible(const struct peer *p, const struct reg_template *t)
{
	uint32_t i;

	if (t->owner == p->uid || (p->privileged && p->zone == ZONE_GLOBAL))
		return true;
	if (p->zone == ZONE_GLOBAL)
		return t->npublic > 0;
	/* A zone's peer: by the segments t's kstats are in. */
	for (i = 0; i < t->nuses; i++)
		if (t->uses[i].n > 0 && view_segment_visible(p, t->uses[i].rs))
			return true;
	return false;
}
