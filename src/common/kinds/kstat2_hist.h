/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kstat2_hist.h: Solaris kstat2's four histogram types (LINEAR, LOG2, LOG10,
 * LOG10_LIN) as bucket-bound generators for the engine's one HIST kind:
 * each produces the lower bounds of a CRHIST64 over an INT_U64 VOI.
 */
#ifndef STATSD_KSTAT2_HIST_H
#define STATSD_KSTAT2_HIST_H

#include <stdbool.h>
#include <stdint.h>

#include <statsd/stats.h>

#include "field.h"
#include "kindspec.h"

enum k2hist_type {
	K2HIST_LINEAR = 0,
	K2HIST_LOG2,
	K2HIST_LOG10,
	K2HIST_LOG10_LIN,
};

/*
 * What a kstat2 histogram was created with: the "type", "range_min",
 * "range_max" and "stepping" fields of its data, which readers show by
 * name beside its "buckets". valid is false for a VOI without one.
 */
struct k2hist_params {
	bool		 valid;
	enum k2hist_type type;
	uint64_t	 range_min;
	uint64_t	 range_max;
	uint64_t	 stepping;
};

/* A kstat2 histogram's flat fields, in the order readers list them: the
 * buckets (one array of counts), then the four creation parameters. */
#define K2HIST_NFIELDS	5
extern const struct stat_field k2hist_fields[K2HIST_NFIELDS];

/* The values of fields 1.. (type, range_min, range_max, stepping) of p:
 * out[i - 1] is field i's. */
void k2hist_param_values(const struct k2hist_params *p,
    uint64_t out[K2HIST_NFIELDS - 1]);

/* A LINEAR histogram with range_max = 0 grows on Solaris; ours is capped. */
#define K2HIST_LINEAR_MAXBKTS	1024

struct k2hist_spec {
	struct vss_hist_hlpr_info	 info;
	struct voistatdata_numeric	(*bkts)[2];
	uint32_t			 nbkts;
};

/*
 * k2hist_bounds: the lower bounds of the buckets of a kstat2 histogram.
 * With lbs NULL only *nbkts is computed.
 * Returns: 0; EINVAL for a bad type or parameters (stepping 0, range_max
 * below range_min, LOG10_LIN decades past 10^19 or a stepping that does not
 * divide a decade evenly); EOVERFLOW if *nbkts (in: capacity) is too small.
 */
int k2hist_bounds(enum k2hist_type type, uint64_t range_min,
    uint64_t range_max, uint64_t stepping, uint64_t *lbs, uint32_t *nbkts);

/*
 * The voistatspec flags of a kstat2 histogram: its buckets exist, at zero,
 * from creation (VS_ALWAYSVALID, which kind.c checks this equals). Set
 * them after any helper that clears the spec.
 */
#define K2HIST_VSS_FLAGS	0x02u

/*
 * k2hist_spec_init: prepare a CRHIST64 voistatspec for a kstat2 histogram
 * (use it with an INT_U64 VOI); k2hist_spec_done frees it.
 * Returns: 0; EINVAL as k2hist_bounds; ENOMEM.
 */
int k2hist_spec_init(struct k2hist_spec *ks, enum k2hist_type type,
    uint64_t range_min, uint64_t range_max, uint64_t stepping);
struct voistatspec k2hist_vss(struct k2hist_spec *ks);
void k2hist_spec_done(struct k2hist_spec *ks);

/* k2hist_type_name, k2hist_type_from_name: "LINEAR", "LOG2", ... */
const char *k2hist_type_name(enum k2hist_type type);
int k2hist_type_from_name(const char *name);

/*
 * K2HIST, the HIST kind's kstat2 spec (kindspec.h): scheme (the type's
 * name), lb (range_min), ub (range_max) and step (stepping); a CRHIST64
 * of an INT_U64 VOI, all of its buckets there from creation.
 * k2hist_params_from_args() reads them (p->valid false and -1 for an
 * unknown scheme; else the type).
 */
kind_build_fn k2hist_build;
int k2hist_params_from_args(const struct kind_args *a,
    struct k2hist_params *p);

#endif /* STATSD_KSTAT2_HIST_H */
