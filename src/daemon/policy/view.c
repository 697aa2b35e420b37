/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * view.c: what a peer may see and change of the registry (view.h). The
 * rules themselves (privilege, zones, ownership) are rights.c's; this file
 * applies them to kstats and templates, so that no handler, exposition
 * page or drain pass decides visibility on its own.
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
view_template_visible(const struct peer *p, const struct reg_template *t)
{
	if (t->owner == p->uid || (p->privileged && p->zone == ZONE_GLOBAL))
		return true;
	return p->zone == ZONE_GLOBAL ? t->npublic > 0 :
	    registry_template_in_zone(t, p->zone, p->privileged);
}
