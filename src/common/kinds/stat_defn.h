/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stat_defn.h: the DEFN statistic: a Linux statistic's run-time definition
 * kept in the blob, as one more statistic of its VOI, so that it travels
 * with snapshots, copies and shared memory. It gates the VOI's updates
 * (on/off, range) and says which statistics the VOI carries for its type:
 *
 *   type              statistics of the VOI (besides DEFN)
 *   value increments  COUNT
 *   value products    SUM
 *   range             COUNT, SUM, MIN, MAX (avg computed when read)
 *   array             HIST (a CRHIST64 with the array's intervals)
 *   list              LIST
 *   history           HISTORY
 *   raw               RAW
 *
 * A Linux statistic's VOI is of type INT_S64.
 */
#ifndef STATSD_STAT_DEFN_H
#define STATSD_STAT_DEFN_H

#include "dtype.h"
#include "kindspec.h"

enum defn_type {
	DEFN_VALUE = 0,
	DEFN_RANGE,
	DEFN_ARRAY,
	DEFN_LIST,
	DEFN_HISTORY,
	DEFN_RAW,
	DEFN_NUM_TYPES
};

/* The numbering is stat_history.h's enum history_mode. */
enum defn_mode {
	DEFN_MODE_INCREMENTS = 0,
	DEFN_MODE_PRODUCTS,
	DEFN_MODE_RANGE,
	DEFN_NUM_MODES
};

enum defn_scale {
	DEFN_SCALE_LIN = 0,
	DEFN_SCALE_LOG2,
	DEFN_NUM_SCALES
};

#define DEFN_UNITS_MAX	63	/* Linux: names, units ≤ 63 chars */
#define DEFN_RANGE_MIN	(-INT64_MAX)		/* -0x7fffffffffffffff */
#define DEFN_RANGE_MAX	(INT64_MAX - 1)		/* 0x7ffffffffffffffe */

/*
 * The record. Times are CLOCK_MONOTONIC ns: data_ns the last reset (the
 * "age" of the data), started_ns and stopped_ns the last on and off.
 * Attributes that do not apply to the type are kept at 0.
 */
struct vsd_defn {
	uint8_t		type;		/* enum defn_type */
	uint8_t		on;		/* 0 or 1 */
	uint8_t		mode;		/* enum defn_mode: value, history */
	uint8_t		scale;		/* enum defn_scale: array */
	uint32_t	entries_max;	/* list, history, raw */
	int64_t		range_min;
	int64_t		range_max;
	uint64_t	base_interval;	/* array */
	uint64_t	period_us;	/* history, µs exactly as given */
	uint64_t	hits_out_of_range;
	uint64_t	data_ns;
	uint64_t	started_ns;
	uint64_t	stopped_ns;
	char		units[DEFN_UNITS_MAX + 1];
};

#define DEFN_SIZE	((uint16_t)sizeof(struct vsd_defn))

/* The names used in definition lines: "value", "increments", "lin"... */
extern const char *const stat_defn_type_names[DEFN_NUM_TYPES];
/* A mode's name is stat_history_mode_names[] (stat_history.h). */
extern const char *const stat_defn_scale_names[DEFN_NUM_SCALES];

/*
 * stat_defn_default: the definition a new statistic gets: value,
 * increments, the widest range, off, started = stopped = data = now.
 */
void stat_defn_default(struct vsd_defn *d, const char *units, uint64_t now);

/*
 * stat_defn_valid: is d a complete, consistent definition for its type
 * (mode, scale, entries_max, period, base_interval and range)?
 * Returns: NULL, or a static message naming the attribute at fault in
 * *ret_attr (may be NULL).
 */
const char *stat_defn_valid(const struct vsd_defn *d, const char **ret_attr);

/*
 * stat_defn_array_bounds: the interval bounds X_0..X_{n-1} of an array
 * definition (the lines "<=X_i"; the last line is ">X_{n-1}"), into X
 * (capacity *n in, count out); X NULL counts only.
 * Returns: 0; EINVAL for base_interval 0 or fewer than two intervals;
 * EFBIG for more than a blob can hold; EOVERFLOW if X is too small.
 */
int stat_defn_array_bounds(const struct vsd_defn *d, int64_t *X,
    uint32_t *n);

/*
 * stat_defn_vss: the statistics a VOI carries for definition d (d itself
 * first, as the DEFN statistic's initial value), with their initial data
 * filled in (free each vss[i].iv). *nvss is the capacity of vss in and
 * the count out; 5 is always enough.
 * Returns: 0; EINVAL for an invalid definition; EFBIG; ENOMEM.
 */
#define DEFN_MAX_VSS	5
int stat_defn_vss(const struct vsd_defn *d, struct voistatspec *vss,
    uint32_t *nvss);

/*
 * stat_defn_gate: should an (X, Y) update with value x reach the VOI's
 * statistics? Not while off; not with x outside [range_min, range_max],
 * which counts a hit out of range — except for an array, whose edge
 * intervals take every value.
 */
bool stat_defn_gate(struct voistatdata *vsd, int64_t x);

void stat_defn_reset(struct voistatdata *, uint16_t, enum vsd_dtype,
    enum vsd_dtype);
/* Reset at a given time (stat_defn_reset takes the clock's). */
void stat_defn_reset_at(struct vsd_defn *d, uint64_t now);
/* A new blob's definition: data, started and stopped now. A template's
 * definition has no times (0), so that its hash is its schema's. */
void stat_defn_stamp(struct voistatdata *vsd, uint16_t dsz, uint64_t now);
int stat_defn_merge(struct voistatdata *, const struct voistatdata *,
    uint16_t, enum vsd_dtype, enum vsd_dtype);
const char *stat_defn_check(const struct voistatdata *, uint16_t,
    enum vsd_dtype, enum vsd_dtype);
kind_render_fn stat_defn_render;

/* DEFN as a template's statistic (kindspec.h): units. */
kind_build_fn stat_defn_build;
kind_describe_fn stat_defn_describe;

#endif /* STATSD_STAT_DEFN_H */
