/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stat_timer.h: the TIMER statistic: kstat_timer_t's fields (illumos's
 * event timer) kept from timer start and stop events; the timer's name is
 * its VOI's.
 */
#ifndef STATSD_STAT_TIMER_H
#define STATSD_STAT_TIMER_H

#include <statsd/kstat.h>

#include "dtype.h"
#include "field.h"
#include "op.h"
#include "kindspec.h"

struct vsd_timer {
	uint64_t	num_events;
	hrtime_t	elapsed_time;
	hrtime_t	min_time;
	hrtime_t	max_time;
	hrtime_t	start_time;
	hrtime_t	stop_time;
};

#define TIMER_SIZE	((uint16_t)sizeof(struct vsd_timer))
/* The kind's flat fields, and their values (now_ns unused). */
#define TIMER_NFIELDS	6
extern const struct stat_field stat_timer_fields[TIMER_NFIELDS];
void stat_timer_field_values(const struct voistatdata *vsd, uint64_t now_ns,
    uint64_t *v);

/*
 * stat_timer_vss_hlpr: a TIMER spec (vss_hlpr_fn signature; info unused).
 * Returns: 0; EINVAL; ENOMEM.
 */
int stat_timer_vss_hlpr(enum vsd_dtype voi_dtype, struct voistatspec *vss,
    void *info);

int stat_timer_event(struct voistatdata *, uint16_t, enum vsd_dtype,
    enum vsd_dtype, const struct stats_event *, bool *);
void stat_timer_reset(struct voistatdata *, uint16_t, enum vsd_dtype,
    enum vsd_dtype);
int stat_timer_merge(struct voistatdata *, const struct voistatdata *,
    uint16_t, enum vsd_dtype, enum vsd_dtype);
const char *stat_timer_check(const struct voistatdata *, uint16_t,
    enum vsd_dtype, enum vsd_dtype);
kind_render_fn stat_timer_render;

/* TIMER as a template's statistic (kindspec.h). */
kind_build_fn stat_timer_build;

#endif /* STATSD_STAT_TIMER_H */
