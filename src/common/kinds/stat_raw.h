/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stat_raw.h: the RAW statistic (Linux's "raw" type): a ring of the last
 * entries_max (time, serial, X, Y) records; serial counts the records since
 * the last reset, from 0.
 */
#ifndef STATSD_STAT_RAW_H
#define STATSD_STAT_RAW_H

#include "dtype.h"
#include "op.h"
#include "kindspec.h"

struct raw_rec {
	uint64_t	time;		/* CLOCK_MONOTONIC ns */
	uint64_t	serial;
	int64_t		x;
	uint64_t	y;
};

struct vsd_raw {
	uint16_t	entries_max;
	uint16_t	pad0;
	uint32_t	nrec;		/* records held, ≤ entries_max */
	uint32_t	next;		/* where the next record goes */
	uint32_t	pad1;
	uint64_t	serial;		/* serial of the next record */
	struct raw_rec	rec[];
};

#define RAW_HDRSZ	24u
#define RAW_RECSZ	32u
#define RAW_ENTRIES_MAX	((STAT_ROOM - RAW_HDRSZ) / RAW_RECSZ)

struct vss_raw_hlpr_info {
	uint32_t	entries_max;	/* 1..RAW_ENTRIES_MAX */
};

size_t stat_raw_size(uint32_t entries_max);

/*
 * stat_raw_vss_hlpr: a RAW spec (vss_hlpr_fn signature).
 * Returns: 0; EINVAL for entries_max 0; EFBIG past RAW_ENTRIES_MAX; ENOMEM.
 */
int stat_raw_vss_hlpr(enum vsd_dtype voi_dtype, struct voistatspec *vss,
    struct vss_raw_hlpr_info *info);

/*
 * stat_raw_read: call fn for each record, oldest first, until it returns
 * non-zero; returns that.
 */
int stat_raw_read(const struct voistatdata *vsd,
    int (*fn)(const struct raw_rec *r, void *ctx), void *ctx);

int stat_raw_event(struct voistatdata *, uint16_t, enum vsd_dtype,
    enum vsd_dtype, const struct stats_event *, bool *);
void stat_raw_reset(struct voistatdata *, uint16_t, enum vsd_dtype,
    enum vsd_dtype);
int stat_raw_merge(struct voistatdata *, const struct voistatdata *,
    uint16_t, enum vsd_dtype, enum vsd_dtype);
const char *stat_raw_check(const struct voistatdata *, uint16_t,
    enum vsd_dtype, enum vsd_dtype);
kind_render_fn stat_raw_render;

/* RAW as a template's statistic (kindspec.h): entries_max. */
kind_build_fn stat_raw_build;

#endif /* STATSD_STAT_RAW_H */
