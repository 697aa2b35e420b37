/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tdgst_stat.c: the TDGST statistic: stats_vss_tdgst_hlpr() and the engine
 * operations, mapping the VOI's scalar values to the doubles the t-digest
 * (tdigest.c) works in.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "numeric.h"
#include "tdgst_stat.h"
#include "tdigest.h"

static int
tdgst_wide(enum vsd_dtype vs_dtype)
{
	return vs_dtype == VSD_DTYPE_TDGSTCLUST64;
}

int
stats_vss_tdgst_hlpr(enum vsd_dtype voi_dtype, struct voistatspec *vss,
    struct vss_tdgst_hlpr_info *info)
{
	struct voistatdata *iv;
	size_t sz;
	int error;

	if (vss == NULL || info == NULL || !dtype_is_scalar(voi_dtype) ||
	    (vss->vs_dtype != VSD_DTYPE_TDGSTCLUST32 &&
	    vss->vs_dtype != VSD_DTYPE_TDGSTCLUST64))
		return EINVAL;
	info->voi_dtype = voi_dtype;
	sz = tdgst_size(info->nctds, tdgst_wide(vss->vs_dtype));
	if (sz == 0)
		return EINVAL;
	if (sz > UINT16_MAX)
		return EFBIG;
	iv = calloc(1, sz);
	if (iv == NULL)
		return ENOMEM;
	error = tdgst_init(iv, sz, info->nctds, info->prec,
	    tdgst_wide(vss->vs_dtype));
	if (error != 0) {
		free(iv);
		return error < 0 ? -error : error;
	}
	vss->iv = iv;
	vss->vsdsz = sz;
	return 0;
}

int
tdgst_stat_update(struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype,
    const struct voistatdata_numeric *x, uint64_t y, bool *changed)
{
	int error;

	(void)dsz;
	(void)vs_dtype;
	error = tdgst_add(vsd, numeric_to_double(voi_dtype, x), y);
	if (error != 0)
		return -error;
	*changed = true;
	return 0;
}

void
tdgst_stat_reset(struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype)
{
	(void)dsz;
	(void)vs_dtype;
	(void)voi_dtype;
	tdgst_reset(vsd);
}

int
tdgst_stat_merge(struct voistatdata *dst, const struct voistatdata *src,
    uint16_t dsz, enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype)
{
	(void)dsz;
	(void)vs_dtype;
	(void)voi_dtype;
	return -tdgst_merge(dst, src);
}

const char *
tdgst_stat_check(const struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype)
{
	(void)voi_dtype;
	if (vs_dtype != VSD_DTYPE_TDGSTCLUST32 &&
	    vs_dtype != VSD_DTYPE_TDGSTCLUST64)
		return "t-digest with a non-digest data type";
	if (tdgst_validate(vsd, dsz) != 0)
		return "t-digest internals out of range";
	return NULL;
}

int
tdgst_stat_quantile(const struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype, double q, double *ret)
{
	(void)dsz;
	(void)vs_dtype;
	(void)voi_dtype;
	return -tdgst_quantile(vsd, q, ret);
}

int
tdgst_stat_cdf(const struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype, double x, double *ret)
{
	(void)dsz;
	(void)vs_dtype;
	(void)voi_dtype;
	return -tdgst_cdf(vsd, x, ret);
}

int
tdgst_stat_render(struct sbuf *buf, const struct voistatdata *vsd,
    uint16_t dsz, enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype,
    enum sb_str_fmt fmt, bool objdump)
{
	int error;

	(void)voi_dtype;
	(void)dsz;
	(void)vs_dtype;
	error = tdgst_render(buf, vsd, fmt == SB_STRFMT_JSON, objdump);
	return error < 0 ? -error : error;
}

/* TDGST: counters (32 or 64), nctds (64) and prec (0). */
int
tdgst_stat_build(const struct kind_args *a, enum vsd_dtype voi_dtype,
    struct voistatspec *vss, uint32_t *n, uint32_t max, struct input_error *err)
{
	int64_t counters = kind_int(a, KP_COUNTERS, 64);
	struct vss_tdgst_hlpr_info ti = {
		.voi_dtype = voi_dtype,
		.nctds = (uint32_t)kind_int(a, KP_NCTDS, 64),
		.prec = (uint32_t)kind_int(a, KP_PREC, 0),
	};

	if (counters != 32 && counters != 64)
		return kind_fail(err, "counters", "32 or 64");
	return kind_add(vss, n, max, VS_STYPE_TDGST,
	    (vss_hlpr_fn)stats_vss_tdgst_hlpr, &ti, voi_dtype,
	    counters == 32 ? VSD_DTYPE_TDGSTCLUST32 : VSD_DTYPE_TDGSTCLUST64,
	    err);
}

/* A t-digest's parameters, from the header layout tdigest.h draws. */
int
tdgst_stat_describe(const struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype, struct kind_args *ret)
{
	const uint8_t *h = (const uint8_t *)vsd;
	uint16_t maxctds;

	(void)voi_dtype;
	memset(ret, 0, sizeof(*ret));
	if (dsz < 16)
		return -EINVAL;
	memcpy(&maxctds, h + 8, sizeof(maxctds));
	kind_set_int(ret, KP_COUNTERS, vs_dtype == VSD_DTYPE_TDGSTCLUST64 ?
	    64 : 32);
	kind_set_int(ret, KP_NCTDS, maxctds);
	kind_set_int(ret, KP_PREC, h[6]);
	return 0;
}
