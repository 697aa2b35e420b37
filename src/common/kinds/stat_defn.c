/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stat_defn.c: the DEFN statistic — a Linux statistic's definition as data
 * in its blob — and the mapping from a definition to the statistics its
 * VOI carries (see stat_defn.h for the table).
 *
 * Array intervals follow the Linux statistics infrastructure's documented
 * meaning, (X_{i-1}, X_i], with clamping at both ends (docs/formats.md,
 * Choices): X_0 = range_min, X_i = range_min + i·b (lin) or
 * range_min + b·2^(i-1) (log2), for every X_i ≤ range_max; values ≤ X_0
 * go to the first interval and values past the last X to the open one
 * above it. They are kept as a CRHIST64 whose
 * lower bounds are X_{i-1} + 1, which for integers is the same partition.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "hist.h"
#include "numeric.h"
#include "stat_defn.h"
#include "stat_history.h"
#include "stat_list.h"
#include "stat_raw.h"
#include "stat_scalar.h"

_Static_assert((int)DEFN_MODE_RANGE == (int)HISTORY_RANGE,
    "definition modes are history modes");

const char *const stat_defn_type_names[DEFN_NUM_TYPES] = {
	[DEFN_VALUE] = "value",
	[DEFN_RANGE] = "range",
	[DEFN_ARRAY] = "array",
	[DEFN_LIST] = "list",
	[DEFN_HISTORY] = "history",
	[DEFN_RAW] = "raw",
};

_Static_assert((int)DEFN_NUM_MODES == (int)HISTORY_NUM_MODES &&
    (int)DEFN_MODE_INCREMENTS == (int)HISTORY_INCREMENTS &&
    (int)DEFN_MODE_PRODUCTS == (int)HISTORY_PRODUCTS &&
    (int)DEFN_MODE_RANGE == (int)HISTORY_RANGE,
    "a definition's mode is its history's mode");

const char *const stat_defn_scale_names[DEFN_NUM_SCALES] = {
	[DEFN_SCALE_LIN] = "lin",
	[DEFN_SCALE_LOG2] = "log2",
};

/* The most array intervals a CRHIST64 in one blob can hold. */
#define DEFN_ARRAY_MAX	((STAT_ROOM - 16u) / 16u)

void
stat_defn_default(struct vsd_defn *d, const char *units, uint64_t now)
{
	memset(d, 0, sizeof(*d));
	d->type = DEFN_VALUE;
	d->mode = DEFN_MODE_INCREMENTS;
	d->range_min = DEFN_RANGE_MIN;
	d->range_max = DEFN_RANGE_MAX;
	d->data_ns = d->started_ns = d->stopped_ns = now;
	if (units != NULL)
		strncpy(d->units, units, DEFN_UNITS_MAX);
}

int
stat_defn_array_bounds(const struct vsd_defn *d, int64_t *X, uint32_t *n)
{
	uint32_t cap = X != NULL ? *n : UINT32_MAX, k = 0;
	__int128 x, b = (__int128)d->base_interval;
	uint32_t i;

	if (d->base_interval == 0)
		return EINVAL;
	for (i = 0;; i++) {
		if (i == 0)
			x = d->range_min;
		else if (d->scale == DEFN_SCALE_LIN)
			x = (__int128)d->range_min + b * i;
		else
			x = (__int128)d->range_min + (b << (i - 1));
		if (x > d->range_max)
			break;
		if (k >= DEFN_ARRAY_MAX)
			return EFBIG;
		if (X != NULL) {
			if (k >= cap)
				return EOVERFLOW;
			X[k] = (int64_t)x;
		}
		k++;
	}
	/* One interval per X plus the open one above: at least two. */
	if (k < 1)
		return EINVAL;
	*n = k;
	return 0;
}

const char *
stat_defn_valid(const struct vsd_defn *d, const char **ret_attr)
{
	const char *attr = NULL, *why = NULL;
	uint32_t n;
	int e;

	if (d->type >= DEFN_NUM_TYPES) {
		attr = "type";
		why = "unknown type";
	} else if (d->on > 1) {
		attr = "on";
		why = "on must be 0 or 1";
	} else if (d->range_min > d->range_max) {
		attr = "range_min";
		why = "range_min is above range_max";
	} else if (memchr(d->units, '\0', sizeof(d->units)) == NULL) {
		attr = "units";
		why = "units not terminated";
	}
	if (why != NULL)
		goto out;
	switch (d->type) {
	case DEFN_VALUE:
		if (d->mode > DEFN_MODE_PRODUCTS) {
			attr = "mode";
			why = "a value's mode is increments or products";
		}
		break;
	case DEFN_ARRAY:
		if (d->scale >= DEFN_NUM_SCALES) {
			attr = "scale";
			why = "scale is lin or log2";
		} else if (d->base_interval == 0 ||
		    d->base_interval > (uint64_t)INT64_MAX) {
			attr = "base_interval";
			why = "base_interval must be between 1 and 2^63-1";
		} else if (d->range_max == INT64_MAX) {
			attr = "range_max";
			why = "an array's range_max must be below 2^63-1";
		} else if ((e = stat_defn_array_bounds(d, NULL, &n)) != 0) {
			attr = "base_interval";
			why = e == EFBIG ? "too many intervals for a blob" :
			    "fewer than two intervals";
		}
		break;
	case DEFN_LIST:
		if (d->entries_max == 0 || d->entries_max > LIST_ENTRIES_MAX) {
			attr = "entries_max";
			why = "entries_max out of range for a list";
		}
		break;
	case DEFN_RAW:
		if (d->entries_max == 0 || d->entries_max > RAW_ENTRIES_MAX) {
			attr = "entries_max";
			why = "entries_max out of range for a raw ring";
		}
		break;
	case DEFN_HISTORY:
		if (d->mode >= DEFN_NUM_MODES) {
			attr = "mode";
			why = "unknown mode";
		} else if (d->entries_max == 0 || d->entries_max >
		    stat_history_entries_max(d->mode)) {
			attr = "entries_max";
			why = "entries_max out of range for this history";
		} else if (d->period_us == 0 ||
		    d->period_us > HISTORY_PERIOD_MAX) {
			attr = "period";
			why = "period out of range";
		}
		break;
	default:
		break;
	}
out:
	if (ret_attr != NULL)
		*ret_attr = attr;
	return why;
}

/* Fill one spec by a helper; the helper's iv becomes the caller's. */
static int
defn_spec(struct voistatspec *vss, enum voi_stype stype, vss_hlpr_fn fn,
    void *info)
{
	memset(vss, 0, sizeof(*vss));
	vss->stype = stype;
	return fn(VSD_DTYPE_INT_S64, vss, info);
}

static int
defn_array_spec(const struct vsd_defn *d, struct voistatspec *vss)
{
	struct voistatdata_numeric (*bkts)[2];
	int64_t *X;
	uint32_t n = DEFN_ARRAY_MAX, i;
	int error;

	X = calloc(n, sizeof(*X));
	if (X == NULL)
		return ENOMEM;
	error = stat_defn_array_bounds(d, X, &n);
	bkts = error == 0 ? calloc(n, sizeof(*bkts)) : NULL;
	if (error == 0 && bkts == NULL)
		error = ENOMEM;
	if (error == 0) {
		/* (X_{i-1}, X_i] is [X_{i-1} + 1, X_i + 1) for integers. */
		for (i = 0; i < n; i++)
			bkts[i][0] = bkts[i][1] =
			    stats_ctor_vsd_numeric((uint64_t)(X[i] + 1));
		struct vss_hist_hlpr_info info = {
			.scheme = BKT_USR,
			.hist_dtype = VSD_DTYPE_CRHIST64,
			.flags = VSD_HIST_LBOUND_INF,
			.usr.nbkts = (uint16_t)n,
			.usr.bkts = (const void *)bkts,
		};
		error = defn_spec(vss, VS_STYPE_HIST,
		    (vss_hlpr_fn)stats_vss_hist_hlpr, &info);
	}
	free(bkts);
	free(X);
	return error;
}

int
stat_defn_vss(const struct vsd_defn *d, struct voistatspec *vss,
    uint32_t *nvss)
{
	struct voistatspec v[DEFN_MAX_VSS];
	uint32_t n = 0, i;
	int error = 0;

	if (*nvss < DEFN_MAX_VSS || stat_defn_valid(d, NULL) != NULL)
		return EINVAL;
	memset(v, 0, sizeof(v));
	v[0].stype = VS_STYPE_DEFN;
	v[0].vs_dtype = VSD_DTYPE_DEFN;
	v[0].vsdsz = DEFN_SIZE;
	v[0].iv = malloc(DEFN_SIZE);
	if (v[0].iv == NULL)
		return ENOMEM;
	memcpy(v[0].iv, d, DEFN_SIZE);
	n = 1;
	switch (d->type) {
	case DEFN_VALUE:
		if (d->mode == DEFN_MODE_INCREMENTS)
			error = defn_spec(&v[n++], VS_STYPE_COUNT,
			    (vss_hlpr_fn)stats_vss_count_hlpr, NULL);
		else
			error = defn_spec(&v[n++], VS_STYPE_SUM,
			    (vss_hlpr_fn)stats_vss_numeric_hlpr, NULL);
		break;
	case DEFN_RANGE:
		error = defn_spec(&v[n++], VS_STYPE_COUNT,
		    (vss_hlpr_fn)stats_vss_count_hlpr, NULL);
		if (error == 0)
			error = defn_spec(&v[n++], VS_STYPE_SUM,
			    (vss_hlpr_fn)stats_vss_numeric_hlpr, NULL);
		if (error == 0)
			error = defn_spec(&v[n++], VS_STYPE_MIN,
			    (vss_hlpr_fn)stats_vss_numeric_hlpr, NULL);
		if (error == 0)
			error = defn_spec(&v[n++], VS_STYPE_MAX,
			    (vss_hlpr_fn)stats_vss_numeric_hlpr, NULL);
		break;
	case DEFN_ARRAY:
		error = defn_array_spec(d, &v[n++]);
		break;
	case DEFN_LIST: {
		struct vss_list_hlpr_info li = { d->entries_max };

		error = defn_spec(&v[n++], VS_STYPE_LIST,
		    (vss_hlpr_fn)stat_list_vss_hlpr, &li);
		break;
	}
	case DEFN_HISTORY: {
		struct vss_history_hlpr_info hi = { d->entries_max, d->mode,
		    d->period_us };

		error = defn_spec(&v[n++], VS_STYPE_HISTORY,
		    (vss_hlpr_fn)stat_history_vss_hlpr, &hi);
		break;
	}
	case DEFN_RAW: {
		struct vss_raw_hlpr_info ri = { d->entries_max };

		error = defn_spec(&v[n++], VS_STYPE_RAW,
		    (vss_hlpr_fn)stat_raw_vss_hlpr, &ri);
		break;
	}
	default:
		error = EINVAL;
		break;
	}
	if (error != 0) {
		for (i = 0; i < n; i++)
			free(v[i].iv);
		return error;
	}
	memcpy(vss, v, n * sizeof(*vss));
	*nvss = n;
	return 0;
}

bool
stat_defn_gate(struct voistatdata *vsd, int64_t x)
{
	struct vsd_defn *d = (struct vsd_defn *)vsd;

	if (!d->on)
		return false;
	if (d->type != DEFN_ARRAY && (x < d->range_min || x > d->range_max)) {
		d->hits_out_of_range++;
		return false;
	}
	return true;
}

void
stat_defn_reset_at(struct vsd_defn *d, uint64_t now)
{
	d->hits_out_of_range = 0;
	d->data_ns = now;
}

void
stat_defn_stamp(struct voistatdata *vsd, uint16_t dsz, uint64_t now)
{
	struct vsd_defn *d = (struct vsd_defn *)vsd;

	if (dsz < DEFN_SIZE)
		return;
	d->data_ns = d->started_ns = d->stopped_ns = now;
}

void
stat_defn_reset(struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype)
{
	(void)dsz;
	(void)vs_dtype;
	(void)voi_dtype;
	/* A blob reset is a reset of the data: its age starts now. */
	stat_defn_reset_at((struct vsd_defn *)vsd, clock_now_ns());
}

int
stat_defn_merge(struct voistatdata *dst, const struct voistatdata *src,
    uint16_t dsz, enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype)
{
	struct vsd_defn *d = (struct vsd_defn *)dst;
	const struct vsd_defn *s = (const struct vsd_defn *)src;

	(void)dsz;
	(void)vs_dtype;
	(void)voi_dtype;
	/* The definition is the destination's; only the counts add up. */
	d->hits_out_of_range += s->hits_out_of_range;
	return 0;
}

const char *
stat_defn_check(const struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype)
{
	const struct vsd_defn *d = (const struct vsd_defn *)vsd;

	if (vs_dtype != VSD_DTYPE_DEFN || dsz != DEFN_SIZE)
		return "definition of the wrong size";
	if (voi_dtype != VSD_DTYPE_INT_S64)
		return "definition of a VOI that is not INT_S64";
	if (stat_defn_valid(d, NULL) != NULL)
		return "definition not valid";
	return NULL;
}

int
stat_defn_render(struct sbuf *buf, const struct voistatdata *vsd,
    uint16_t dsz, enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype,
    enum sb_str_fmt fmt, bool objdump)
{
	const struct vsd_defn *d = (const struct vsd_defn *)vsd;
	const char *type = d->type < DEFN_NUM_TYPES ?
	    stat_defn_type_names[d->type] : "?";

	(void)dsz;
	(void)vs_dtype;
	(void)voi_dtype;
	(void)objdump;
	if (fmt == SB_STRFMT_JSON)
		sbuf_printf(buf, "\"type\":\"%s\",\"on\":%u,\"range_min\":%jd,"
		    "\"range_max\":%jd,\"hits_out_of_range\":%ju,"
		    "\"data_ns\":%ju,\"started_ns\":%ju,\"stopped_ns\":%ju",
		    type, d->on, (intmax_t)d->range_min, (intmax_t)d->range_max,
		    (uintmax_t)d->hits_out_of_range, (uintmax_t)d->data_ns,
		    (uintmax_t)d->started_ns, (uintmax_t)d->stopped_ns);
	else
		sbuf_printf(buf, "type=%s, on=%u, range_min=%jd, range_max=%jd, "
		    "hits_out_of_range=%ju, data_ns=%ju, started_ns=%ju, "
		    "stopped_ns=%ju", type, d->on, (intmax_t)d->range_min,
		    (intmax_t)d->range_max, (uintmax_t)d->hits_out_of_range,
		    (uintmax_t)d->data_ns, (uintmax_t)d->started_ns,
		    (uintmax_t)d->stopped_ns);
	return sbuf_error(buf);
}

/*
 * DEFN: units; the statistics a Linux statistic is made of (its
 * definition, then a value's COUNT and SUM to begin with). It needs an
 * INT_S64 VOI of its own (the kind table says it comes alone).
 */
int
stat_defn_build(const struct kind_args *a, enum vsd_dtype voi_dtype,
    struct voistatspec *vss, uint32_t *n, uint32_t max, struct input_error *err)
{
	const char *units = kind_str(a, KP_UNITS, "");
	struct vsd_defn d;
	uint32_t k = DEFN_MAX_VSS;
	size_t i;
	int e;

	if (voi_dtype != VSD_DTYPE_INT_S64)
		return kind_fail(err, "kind", "DEFN needs an INT_S64 VOI");
	if (max - *n < DEFN_MAX_VSS)
		return kind_fail(err, "kind", "too many statistics");
	for (i = 0; units[i] != '\0'; i++)
		if (units[i] <= ' ' || units[i] > '~')
			return kind_fail(err, "units",
			    "printable, without blanks");
	/* A template's: no times (stat_defn_stamp gives a blob its own). */
	stat_defn_default(&d, units, 0);
	e = stat_defn_vss(&d, vss + *n, &k);
	if (e == ENOMEM)
		return -ENOMEM;
	if (e != 0)
		return kind_fail(err, "", "bad definition");
	*n += k;
	return 0;
}

int
stats_vss_defn_hlpr(enum vsd_dtype voi_dtype, struct voistatspec *vss,
    const char *units)
{
	struct vsd_defn *d;
	size_t i;

	if (vss == NULL || voi_dtype != VSD_DTYPE_INT_S64 ||
	    vss->stype != VS_STYPE_DEFN)
		return EINVAL;
	if (units == NULL)
		units = "";
	if (strlen(units) > DEFN_UNITS_MAX)
		return EINVAL;
	for (i = 0; units[i] != '\0'; i++)
		if (units[i] <= ' ' || units[i] > '~')
			return EINVAL;
	d = malloc(DEFN_SIZE);
	if (d == NULL)
		return ENOMEM;
	stat_defn_default(d, units, 0);
	vss->iv = (struct voistatdata *)d;
	vss->vsdsz = DEFN_SIZE;
	vss->vs_dtype = VSD_DTYPE_DEFN;
	return 0;
}

/* DEFN: its units; what it defines is its own (a VOI's other statistics
 * are the definition's). */
int
stat_defn_describe(const struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype, struct kind_args *ret)
{
	const struct vsd_defn *d = (const struct vsd_defn *)vsd;

	(void)vs_dtype;
	(void)voi_dtype;
	memset(ret, 0, sizeof(*ret));
	if (dsz < DEFN_SIZE || memchr(d->units, '\0', sizeof(d->units)) ==
	    NULL)
		return -EINVAL;
	if (d->units[0] != '\0')
		kind_set_str(ret, KP_UNITS, d->units);
	return 0;
}
