/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stat_list.h: the LIST statistic (Linux's "list" type): a sparse
 * histogram of discrete X values, X -> sum of Y, for at most entries_max
 * distinct X; pairs with a new X beyond that are counted in hits_missed.
 */
#ifndef STATSD_STAT_LIST_H
#define STATSD_STAT_LIST_H

#include "dtype.h"
#include "kindspec.h"

struct vsd_list_entry {
	struct voistatdata_numeric	x;
	uint64_t			hits;
};

/*
 * Entries are kept in descending order of hits (a hit moves an entry
 * toward the head past entries with fewer), new X values join at the tail.
 */
struct vsd_list {
	uint16_t		entries_max;
	uint16_t		nentries;
	uint32_t		pad;
	uint64_t		hits_missed;	/* pairs that found no room */
	struct vsd_list_entry	ent[];
};

#define LIST_HDRSZ	16u
#define LIST_ENTSZ	16u
/* The most entries a list may have and still fit a blob with its VOI. */
#define LIST_ENTRIES_MAX	((STAT_ROOM - LIST_HDRSZ) / LIST_ENTSZ)

struct vss_list_hlpr_info {
	uint32_t	entries_max;	/* 1..LIST_ENTRIES_MAX */
};

/* Bytes of a list of entries_max entries. */
size_t stat_list_size(uint32_t entries_max);

/*
 * stat_list_vss_hlpr: a LIST spec (vss_hlpr_fn signature).
 * Returns: 0; EINVAL for entries_max 0; EFBIG past LIST_ENTRIES_MAX; ENOMEM.
 */
int stat_list_vss_hlpr(enum vsd_dtype voi_dtype, struct voistatspec *vss,
    struct vss_list_hlpr_info *info);

int stat_list_update(struct voistatdata *, uint16_t, enum vsd_dtype,
    enum vsd_dtype, const struct voistatdata_numeric *, uint64_t, bool *);
void stat_list_reset(struct voistatdata *, uint16_t, enum vsd_dtype,
    enum vsd_dtype);
int stat_list_merge(struct voistatdata *, const struct voistatdata *,
    uint16_t, enum vsd_dtype, enum vsd_dtype);
const char *stat_list_check(const struct voistatdata *, uint16_t,
    enum vsd_dtype, enum vsd_dtype);
kind_render_fn stat_list_render;

/* LIST as a template's statistic (kindspec.h): entries_max. */
kind_build_fn stat_list_build;

#endif /* STATSD_STAT_LIST_H */
