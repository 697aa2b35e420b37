/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kstat2_hist.c: the bucket bounds of Solaris kstat2's histogram types.
 *
 * Every kstat2 type partitions the unsigned 64-bit line into contiguous
 * buckets, so each is a continuous-range histogram (CRHIST64) whose lower
 * bounds we compute here; updates, rendering and quantiles are the engine's.
 *
 * LOG10_LIN: kstat2_create_histogram(9F)'s example numbers the 10^4
 * decade 19 to 23, a table left over from stepping 10, while its ranges
 * are those of stepping 5. We follow the ranges and DTrace's llquantize():
 * (2, 4, 5) gives 17 buckets, 0 (< 100), 1-5, 6-10, 11-15 and 16
 * (>= 100000). See docs/formats.md.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kstat2_hist.h"

/* The bucket counts only grow; the rest is what the histogram was created
 * with. */
const struct stat_field k2hist_fields[K2HIST_NFIELDS] = {
	{ "buckets", FIELD_COUNTER, false, "", false },
	{ "type", FIELD_GAUGE, false, "", true },
	{ "range_min", FIELD_GAUGE, false, "", false },
	{ "range_max", FIELD_GAUGE, false, "", false },
	{ "stepping", FIELD_GAUGE, false, "", false },
};

void
k2hist_param_values(const struct k2hist_params *p,
    uint64_t out[K2HIST_NFIELDS - 1])
{
	out[0] = (uint64_t)p->type;
	out[1] = p->range_min;
	out[2] = p->range_max;
	out[3] = p->stepping;
}

static const char *const k2hist_names[] = {
	[K2HIST_LINEAR] = "LINEAR",
	[K2HIST_LOG2] = "LOG2",
	[K2HIST_LOG10] = "LOG10",
	[K2HIST_LOG10_LIN] = "LOG10_LIN",
};

const char *
k2hist_type_name(enum k2hist_type type)
{
	if ((unsigned)type > K2HIST_LOG10_LIN)
		return NULL;
	return k2hist_names[type];
}

int
k2hist_type_from_name(const char *name)
{
	int i;

	for (i = 0; i <= K2HIST_LOG10_LIN; i++) {
		if (name != NULL && strcasecmp(name, k2hist_names[i]) == 0)
			return i;
	}
	return -EINVAL;
}

static uint64_t
pow10u(unsigned e)
{
	uint64_t r = 1;

	while (e-- > 0)
		r *= 10;
	return r;
}

/* Append one lower bound, counting even when out of room. */
static void
k2_push(uint64_t *lbs, uint32_t cap, uint32_t *n, uint64_t lb)
{
	if (lbs != NULL && *n < cap)
		lbs[*n] = lb;
	(*n)++;
}

int
k2hist_bounds(enum k2hist_type type, uint64_t range_min, uint64_t range_max,
    uint64_t stepping, uint64_t *lbs, uint32_t *nbkts)
{
	uint32_t cap, n = 0, i, nlin;
	uint64_t m, k, w, dec;

	if (nbkts == NULL)
		return EINVAL;
	cap = lbs != NULL ? *nbkts : 0;
	switch (type) {
	case K2HIST_LINEAR:
		/* 0: v <= range_min; i: 1 + (v - range_min) / stepping. */
		if (stepping == 0 || (range_max != 0 && range_max < range_min))
			return EINVAL;
		/* Compared before the + 2, which wraps for a full range. */
		if (range_max == 0 ||
		    (range_max - range_min) / stepping >
		    K2HIST_LINEAR_MAXBKTS - 2)
			nlin = K2HIST_LINEAR_MAXBKTS;
		else
			nlin = (uint32_t)((range_max - range_min) / stepping + 2);
		if (range_min == UINT64_MAX)
			return EINVAL;
		k2_push(lbs, cap, &n, 0);
		k2_push(lbs, cap, &n, range_min + 1);
		for (i = 2; i < nlin; i++) {
			if ((i - 1) > (UINT64_MAX - range_min) / stepping)
				break;	/* the rest of the line is the top bucket */
			k2_push(lbs, cap, &n, range_min + (i - 1) * stepping);
		}
		break;
	case K2HIST_LOG2:
		k2_push(lbs, cap, &n, 0);
		for (i = 0; i < 64; i++)
			k2_push(lbs, cap, &n, (uint64_t)1 << i);
		break;
	case K2HIST_LOG10:
		k2_push(lbs, cap, &n, 0);
		for (i = 0; i < 20; i++)
			k2_push(lbs, cap, &n, pow10u(i));
		break;
	case K2HIST_LOG10_LIN:
		/* range_min and range_max are decades; stepping steps each. */
		if (stepping == 0 || range_max < range_min || range_max > 18 ||
		    pow10u((unsigned)range_min + 1) % stepping != 0)
			return EINVAL;
		k2_push(lbs, cap, &n, 0);
		for (m = range_min; m <= range_max; m++) {
			dec = pow10u((unsigned)m);
			w = dec * 10 / stepping;
			for (k = dec / w; k < stepping; k++)
				k2_push(lbs, cap, &n, k * w > dec ? k * w : dec);
		}
		k2_push(lbs, cap, &n, pow10u((unsigned)range_max + 1));
		break;
	default:
		return EINVAL;
	}
	*nbkts = n;
	if (lbs != NULL && n > cap)
		return EOVERFLOW;
	return 0;
}

int
k2hist_spec_init(struct k2hist_spec *ks, enum k2hist_type type,
    uint64_t range_min, uint64_t range_max, uint64_t stepping)
{
	uint64_t *lbs;
	uint32_t n = 0, i;
	int error;

	if (ks == NULL)
		return EINVAL;
	memset(ks, 0, sizeof(*ks));
	error = k2hist_bounds(type, range_min, range_max, stepping, NULL, &n);
	if (error != 0)
		return error;
	lbs = calloc(n, sizeof(*lbs));
	ks->bkts = calloc(n, sizeof(*ks->bkts));
	if (lbs == NULL || ks->bkts == NULL) {
		free(lbs);
		free(ks->bkts);
		ks->bkts = NULL;
		return ENOMEM;
	}
	error = k2hist_bounds(type, range_min, range_max, stepping, lbs, &n);
	if (error != 0) {
		free(lbs);
		k2hist_spec_done(ks);
		return error;
	}
	for (i = 0; i < n; i++)
		ks->bkts[i][0] = ks->bkts[i][1] = stats_ctor_vsd_numeric(lbs[i]);
	free(lbs);
	ks->nbkts = n;
	return 0;
}

struct voistatspec
k2hist_vss(struct k2hist_spec *ks)
{
	struct vss_hist_hlpr_info *info = &ks->info;

	/* The union's members are const; fill them through a fresh copy. */
	struct vss_hist_hlpr_info tmp = {
		.scheme = BKT_USR,
		.hist_dtype = VSD_DTYPE_CRHIST64,
		.usr.nbkts = (uint16_t)ks->nbkts,
		.usr.bkts = (const void *)ks->bkts,
	};
	struct voistatspec vss = STATS_VSS_HIST(VSD_DTYPE_CRHIST64, info);

	memcpy(info, &tmp, sizeof(tmp));
	vss.flags = K2HIST_VSS_FLAGS;
	return vss;
}

void
k2hist_spec_done(struct k2hist_spec *ks)
{
	if (ks == NULL)
		return;
	free(ks->bkts);
	ks->bkts = NULL;
	ks->nbkts = 0;
}

int
k2hist_params_from_args(const struct kind_args *a, struct k2hist_params *p)
{
	int type = k2hist_type_from_name(kind_str(a, KP_SCHEME, "LINEAR"));

	p->valid = type >= 0;
	p->type = (enum k2hist_type)(type >= 0 ? type : 0);
	p->range_min = (uint64_t)kind_int(a, KP_LB, 0);
	p->range_max = (uint64_t)kind_int(a, KP_UB, 0);
	p->stepping = (uint64_t)kind_int(a, KP_STEP, 1);
	return type;
}

int
k2hist_build(const struct kind_args *a, enum vsd_dtype voi_dtype,
    struct voistatspec *vss, uint32_t *n, uint32_t max, struct input_error *err)
{
	struct k2hist_params p;
	struct k2hist_spec ks;
	struct voistatspec one;
	int e;

	if (voi_dtype != VSD_DTYPE_INT_U64)
		return kind_fail(err, "kind", "K2HIST needs an INT_U64 VOI");
	if (k2hist_params_from_args(a, &p) < 0)
		return kind_fail(err, "scheme",
		    "LINEAR, LOG2, LOG10 or LOG10_LIN");
	if (*n >= max)
		return kind_fail(err, "kind", "too many statistics");
	e = k2hist_spec_init(&ks, p.type, p.range_min, p.range_max,
	    p.stepping);
	if (e == ENOMEM)
		return -ENOMEM;
	if (e != 0)
		return kind_fail(err, "", "bad kstat2 histogram parameters");
	one = k2hist_vss(&ks);
	e = kind_hlpr(&vss[*n], VS_STYPE_HIST, one.hlpr, one.hlprinfo,
	    voi_dtype, one.vs_dtype, err);
	k2hist_spec_done(&ks);
	if (e == 0)
		vss[(*n)++].flags = K2HIST_VSS_FLAGS;
	return e;
}
