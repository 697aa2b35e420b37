/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stat_history.h: the HISTORY statistic (Linux's "history" type): a
 * ring of entries_max per-period results, each the COUNT (mode increments),
 * the SUM (mode products) or num/acc/min/max (mode range) of the (X, Y)
 * pairs of one period of period_us microseconds.
 */
#ifndef STATSD_STAT_HISTORY_H
#define STATSD_STAT_HISTORY_H

#include "dtype.h"
#include "op.h"
#include "kindspec.h"

enum history_mode {
	HISTORY_INCREMENTS = 0,	/* cell += Y */
	HISTORY_PRODUCTS,	/* cell += X·Y */
	HISTORY_RANGE,		/* num += Y, acc += X·Y, min, max */
	HISTORY_NUM_MODES
};

struct history_range_cell {
	uint64_t	num;
	int64_t		acc;
	int64_t		min;
	int64_t		max;
};

/*
 * cell[head] is the newest, of the period ending at checkpoint_ns; the one
 * before it (modulo entries_max) ended period_us earlier, and so on for
 * ncells cells. ncells 0 means no period has begun since the last reset;
 * the first update begins one.
 */
struct vsd_history {
	uint16_t	entries_max;
	uint8_t		mode;		/* enum history_mode */
	uint8_t		pad0;
	uint16_t	ncells;
	uint16_t	head;
	uint64_t	period_us;	/* kept exactly as given: never via ns */
	uint64_t	checkpoint_ns;	/* end of the newest cell's period */
	uint8_t		cells[];
};

#define HISTORY_HDRSZ		24u
#define HISTORY_PERIOD_MAX	UINT64_C(10000000000000)	/* µs, ~115 days */

struct vss_history_hlpr_info {
	uint32_t	entries_max;
	uint8_t		mode;		/* enum history_mode */
	uint64_t	period_us;	/* 1..HISTORY_PERIOD_MAX */
};

/* The modes' names, in definition lines and renderings: "increments"... */
extern const char *const stat_history_mode_names[HISTORY_NUM_MODES];

/* Bytes of one cell, and of a history; 0 for a bad mode. */
size_t stat_history_cellsz(unsigned mode);
size_t stat_history_size(unsigned mode, uint32_t entries_max);
/* The largest entries_max that fits a blob in this mode. */
uint32_t stat_history_entries_max(unsigned mode);

/*
 * stat_history_vss_hlpr: a HISTORY spec (vss_hlpr_fn signature).
 * Returns: 0; EINVAL for a bad mode, entries_max 0 or a period out of
 * range; EFBIG if it would not fit a blob; ENOMEM.
 */
int stat_history_vss_hlpr(enum vsd_dtype voi_dtype, struct voistatspec *vss,
    struct vss_history_hlpr_info *info);

/*
 * One period as read: its end time and its values (num = 0 and the others
 * 0 for an empty range cell; total for the other modes).
 */
struct history_entry {
	uint64_t	end_ns;
	int64_t		total;		/* increments, products */
	uint64_t	num;		/* range */
	int64_t		acc, min, max;
};

/*
 * stat_history_read: the periods as they stand at now_ns, oldest first:
 * periods that elapsed since the last update are shown empty, as though
 * the ring had been advanced, without changing the data. Calls fn for each
 * until it returns non-zero, and returns that.
 */
int stat_history_read(const struct voistatdata *vsd, uint64_t now_ns,
    int (*fn)(const struct history_entry *e, void *ctx), void *ctx);

int stat_history_event(struct voistatdata *, uint16_t, enum vsd_dtype,
    enum vsd_dtype, const struct stats_event *, bool *);
void stat_history_reset(struct voistatdata *, uint16_t, enum vsd_dtype,
    enum vsd_dtype);
int stat_history_merge(struct voistatdata *, const struct voistatdata *,
    uint16_t, enum vsd_dtype, enum vsd_dtype);
const char *stat_history_check(const struct voistatdata *, uint16_t,
    enum vsd_dtype, enum vsd_dtype);
kind_render_fn stat_history_render;

/* HISTORY as a template's statistic (kindspec.h): entries_max, mode,
 * period_us. */
kind_build_fn stat_history_build;

#endif /* STATSD_STAT_HISTORY_H */
