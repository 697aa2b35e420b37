/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hist.h: the HIST statistic family: continuous-range, discrete-range and
 * discrete-value histograms with 32- or 64-bit counters, their bucket
 * generators (LIN, EXP, LINEXP, USR), and quantiles by interpolation.
 */
#ifndef STATSD_HIST_H
#define STATSD_HIST_H

#include "dtype.h"
#include "kindspec.h"

int hist_update(struct voistatdata *, uint16_t, enum vsd_dtype,
    enum vsd_dtype, const struct voistatdata_numeric *, uint64_t, bool *);
void hist_reset(struct voistatdata *, uint16_t, enum vsd_dtype,
    enum vsd_dtype);
int hist_merge(struct voistatdata *, const struct voistatdata *, uint16_t,
    enum vsd_dtype, enum vsd_dtype);
const char *hist_check(const struct voistatdata *, uint16_t, enum vsd_dtype,
    enum vsd_dtype);
int hist_quantile(const struct voistatdata *, uint16_t, enum vsd_dtype,
    enum vsd_dtype, double, double *);
int hist_cdf(const struct voistatdata *, uint16_t, enum vsd_dtype,
    enum vsd_dtype, double, double *);
kind_render_fn hist_render;

/* Bytes of a histogram of dtype with nbkts buckets; 0 for a bad dtype. */
size_t hist_size(enum vsd_dtype hist_dtype, uint32_t nbkts);

/* Geometry of one histogram data type. */
struct hist_geom {
	uint16_t	hdrsz;		/* bytes before bkts[] */
	uint16_t	bktsz;		/* bytes per bucket */
	uint8_t		nbounds;	/* numerics per bucket: 1 or 2 */
	uint8_t		cnt64;		/* 64-bit counters */
	char		kind;		/* 'C', 'D' or 'V' */
};
const struct hist_geom *hist_geom(enum vsd_dtype hist_dtype);

/* Accessors for bucket i of a histogram of geometry g. */
struct voistatdata_numeric *hist_bkt_lb(struct voistatdata *vsd,
    const struct hist_geom *g, uint32_t i);
struct voistatdata_numeric *hist_bkt_ub(struct voistatdata *vsd,
    const struct hist_geom *g, uint32_t i);
uint64_t hist_bkt_cnt(const struct voistatdata *vsd,
    const struct hist_geom *g, uint32_t i);
uint64_t hist_oob(const struct voistatdata *vsd, const struct hist_geom *g);
uint16_t hist_nbuckets(const struct voistatdata *vsd,
    const struct hist_geom *g);

/* HIST as a template's statistic (kindspec.h): scheme, range, counters,
 * lb, ub, step, stepbase, stepexp, nlin, buckets, lbinf, ubinf. */
kind_build_fn hist_build;
kind_describe_fn hist_describe;

#endif /* STATSD_HIST_H */
