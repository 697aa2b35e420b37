/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stat_ioq.h: the IOQ statistic: a kstat_io_t kept from wait- and
 * run-queue events (illumos's I/O kstat), with its Riemann sums.
 */
#ifndef STATSD_STAT_IOQ_H
#define STATSD_STAT_IOQ_H

#include <statsd/kstat.h>

#include "dtype.h"
#include "field.h"
#include "op.h"
#include "kindspec.h"

#define IOQ_SIZE	((uint16_t)sizeof(kstat_io_t))

/*
 * stat_ioq_vss_hlpr: an IOQ spec (vss_hlpr_fn signature; info unused).
 * Returns: 0; EINVAL; ENOMEM.
 */
int stat_ioq_vss_hlpr(enum vsd_dtype voi_dtype, struct voistatspec *vss,
    void *info);

/*
 * stat_ioq_snapshot: the copy a reader sees at now_ns: for a non-empty
 * queue, the time since its last change is added to its integrals, as
 * illumos's snapshot does, so that readers see them up to the moment of
 * reading. in is not changed.
 */
void stat_ioq_snapshot(const kstat_io_t *in, uint64_t now_ns,
    kstat_io_t *out);

/* The fields of kstat_io_t in their order (the kind's flat fields), and
 * their values as a reader sees them at now_ns (stat_ioq_snapshot). */
#define IOQ_NFIELDS	12
extern const struct stat_field stat_ioq_fields[IOQ_NFIELDS];
void stat_ioq_field_values(const struct voistatdata *vsd, uint64_t now_ns,
    uint64_t *v);

int stat_ioq_update(struct voistatdata *, uint16_t, enum vsd_dtype,
    enum vsd_dtype, const struct voistatdata_numeric *, uint64_t, bool *);
int stat_ioq_event(struct voistatdata *, uint16_t, enum vsd_dtype,
    enum vsd_dtype, const struct stats_event *, bool *);
void stat_ioq_reset(struct voistatdata *, uint16_t, enum vsd_dtype,
    enum vsd_dtype);
int stat_ioq_merge(struct voistatdata *, const struct voistatdata *,
    uint16_t, enum vsd_dtype, enum vsd_dtype);
const char *stat_ioq_check(const struct voistatdata *, uint16_t,
    enum vsd_dtype, enum vsd_dtype);
kind_render_fn stat_ioq_render;

/* IOQ as a template's statistic (kindspec.h). */
kind_build_fn stat_ioq_build;

#endif /* STATSD_STAT_IOQ_H */
