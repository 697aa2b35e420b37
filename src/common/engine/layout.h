/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * layout.h: the one blob layout. Templates grow here VOI by VOI, and a
 * kstat whose statistics change at run time (a Linux definition that
 * alters a statistic's shape, a statistic added to an interface) gets a
 * new blob laid out here, with every statistic that did not change
 * carried across byte for byte. Where each piece goes is said in layout.c.
 */
#ifndef STATSD_LAYOUT_H
#define STATSD_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "blob.h"

struct voistatspec;

/*
 * layout_empty: a blob with no VOIs (free() it).
 * Returns: the blob, or NULL when out of memory.
 */
struct statsblob *layout_empty(void);

/*
 * layout_set_voi: a new blob (free() it) that is old with VOI voi_id
 * replaced by one of type voi_dtype carrying the nvss statistics in vss,
 * each holding its data vss[i].iv (vss[i].vsdsz bytes); voi_id may be
 * new, one past the last or further (the gap is vacant VOIs). Every other
 * VOI keeps its statistics and their data; the header keeps its times. The
 * layout hash (tplhash) becomes a hash of the new layout chained from the
 * old hash, so blobs re-laid alike still merge and differ from the old.
 * flags may hold SB_VOI_RELUPDATE (a zeroed VOI state is added). A
 * definition statistic (DEFN) is marked valid: it is data from the start.
 * Returns: 0 and *ret; EINVAL for bad arguments (a duplicate or invalid
 * statistic type, a scalar statistic of another type than the VOI); EFBIG
 * if the blob would pass 65535 bytes; ENOMEM.
 */
int layout_set_voi(const struct statsblob *old, int32_t voi_id,
    enum vsd_dtype voi_dtype, uint32_t flags, uint32_t nvss,
    const struct voistatspec *vss, struct statsblob **ret);

/*
 * layout_tpl_add_voi: as layout_set_voi, for a template: VOI voi_id must
 * be new (EOPNOTSUPP if old holds it), a definition statistic is left
 * as given (not marked valid), and the header, tplhash included, is old's
 * (the template registry hashes the template's bytes itself).
 */
int layout_tpl_add_voi(const struct statsblob *old, int32_t voi_id,
    enum vsd_dtype voi_dtype, uint32_t flags, uint32_t nvss,
    const struct voistatspec *vss, struct statsblob **ret);

/*
 * layout_carry: a kstat's blob (old) laid out again from another template
 * (tpl, that template's blob): a new blob (free() it) with tpl's VOIs in
 * tpl's order, where each VOI id with keep[id] set (id < nkeep) and held
 * by old carries old's statistics and their data byte for byte (failure
 * counts and flags too), and every other VOI is as tpl has it. The header
 * (creation and reset times) is old's, its layout hash tplhash: the
 * template's, so that the blob is named by it.
 * Returns: 0 and *ret; EINVAL; EFBIG if the blob would pass 65535 bytes;
 * ENOMEM.
 */
int layout_carry(const struct statsblob *old, const struct statsblob *tpl,
    const bool *keep, uint16_t nkeep, uint32_t tplhash,
    struct statsblob **ret);

/*
 * layout_check_vss: whether the nvss statistic specs in vss may be a VOI
 * of type voi_dtype: valid kinds and types, one statistic of each kind,
 * scalar statistics of the VOI's own type, and each kind's own check.
 * Returns: 0, or EINVAL.
 */
int layout_check_vss(enum vsd_dtype voi_dtype, uint32_t nvss,
    const struct voistatspec *vss);

#endif /* STATSD_LAYOUT_H */
