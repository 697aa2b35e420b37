/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tpl.h: the process-wide template registry (the one global src/common
 * keeps) and the rules for names.
 */
#ifndef STATSD_TPL_H
#define STATSD_TPL_H

#include <stdbool.h>

#include "blob.h"

/* Template names: 1 to 64 of [A-Za-z0-9_.-]. */
bool tpl_name_valid(const char *name);
/* VOI names: 0 to 64 of [A-Za-z0-9_.=/-] (empty is allowed, as on
 * FreeBSD). */
bool tpl_voi_name_valid(const char *name);

/* Run fn under the registry's read lock (rendering with META). */
void tpl_rlock(void);
void tpl_runlock(void);
/* With the read lock held: the template at id, or NULL (also for a slot
 * tpl_release() left vacant). */
const struct statsblob_tpl *tpl_get_locked(int id);
int tpl_count_locked(void);

/*
 * tpl_release: free template id and leave its slot vacant for a later
 * template. Only for a process that holds templates for others and knows
 * that no blob, id or borrowed pointer refers to it any more (statsd);
 * stats(3) itself never frees a template.
 * Returns: 0; -ENOENT if id names no template.
 */
int tpl_release(int id);

/*
 * tpl_alloc_shared_name: stats_tpl_alloc() for a process that holds
 * templates for others (statsd) and keeps one per owner: a name another
 * template has already is allowed, since the holder finds its templates
 * by id, never by name. Returns: the id; -EINVAL; -ENOMEM.
 */
int tpl_alloc_shared_name(const char *name);

/*
 * tpl_add_layout: register a template named name for a blob re-laid at run
 * time (layout: its bytes), so that a renderer asked for META names finds
 * it by the blob's layout hash: its VOI names are template base's, by id,
 * its blob layout's, its hash hash (the re-laid blob's tplhash, which
 * layout.c chains from the old one). Only for statsd, which releases it
 * (tpl_release()) when the blob changes layout again or goes.
 * Returns: its id; -EINVAL (a bad name or blob); -ENOENT (no base);
 * -EEXIST (the name is taken); -ENOMEM.
 */
int tpl_add_layout(const char *name, int base,
    const struct statsblob *layout, uint32_t hash);

/* The template whose hash is hash, or NULL. */
const struct statsblob_tpl *tpl_by_hash(uint32_t hash);

#endif /* STATSD_TPL_H */
