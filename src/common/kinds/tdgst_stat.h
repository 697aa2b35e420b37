/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tdgst_stat.h: the TDGST statistic: the glue between the blob engine and
 * the t-digest data structure in tdigest.c (which knows nothing of blobs).
 */
#ifndef STATSD_TDGST_STAT_H
#define STATSD_TDGST_STAT_H

#include "dtype.h"
#include "kindspec.h"

int tdgst_stat_update(struct voistatdata *, uint16_t, enum vsd_dtype,
    enum vsd_dtype, const struct voistatdata_numeric *, uint64_t, bool *);
void tdgst_stat_reset(struct voistatdata *, uint16_t, enum vsd_dtype,
    enum vsd_dtype);
int tdgst_stat_merge(struct voistatdata *, const struct voistatdata *,
    uint16_t, enum vsd_dtype, enum vsd_dtype);
const char *tdgst_stat_check(const struct voistatdata *, uint16_t,
    enum vsd_dtype, enum vsd_dtype);
int tdgst_stat_quantile(const struct voistatdata *, uint16_t, enum vsd_dtype,
    enum vsd_dtype, double, double *);
int tdgst_stat_cdf(const struct voistatdata *, uint16_t, enum vsd_dtype,
    enum vsd_dtype, double, double *);
kind_render_fn tdgst_stat_render;

/* TDGST as a template's statistic (kindspec.h): counters, nctds, prec. */
kind_build_fn tdgst_stat_build;
kind_describe_fn tdgst_stat_describe;

#endif /* STATSD_TDGST_STAT_H */
