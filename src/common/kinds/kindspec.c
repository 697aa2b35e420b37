/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kindspec.c: the spec parameters' table, and the helpers every kind's
 * builder shares.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kindspec.h"
#include "stat_defn.h"
#include "stat_scalar.h"

const struct kind_param_info kind_params[KP_NUM] = {
#define KIND_PARAM_INFO(id, n, t, lo, hi) \
	[KP_##id] = { .name = n, .type = KPT_##t, .min = lo, .max = hi },
	KIND_PARAMS(KIND_PARAM_INFO)
#undef KIND_PARAM_INFO
};

int
kind_param_find(const char *name)
{
	int p;

	for (p = 0; name != NULL && p < KP_NUM; p++)
		if (strcmp(kind_params[p].name, name) == 0)
			return p;
	return -1;
}

void
kind_set_int(struct kind_args *a, enum kind_param p, int64_t v)
{
	a->set |= 1u << p;
	a->v[p] = v;
}

void
kind_set_str(struct kind_args *a, enum kind_param p, const char *s)
{
	a->set |= 1u << p;
	a->s[p] = s;
}

void
kind_set_ints(struct kind_args *a, int64_t *ints, size_t n)
{
	free(a->ints);
	a->set |= 1u << KP_BUCKETS;
	a->ints = ints;
	a->nints = n;
}

void
kind_args_done(struct kind_args *a)
{
	if (a == NULL)
		return;
	free(a->ints);
	a->ints = NULL;
	a->nints = 0;
}

int
kind_fail(struct input_error *err, const char *param, const char *reason)
{
	return input_fail(err, EINVAL, param, "%s", reason);
}

int
kind_hlpr(struct voistatspec *vss, enum voi_stype stype, vss_hlpr_fn fn,
    void *info, enum vsd_dtype voi_dtype, enum vsd_dtype vs_dtype,
    struct input_error *err)
{
	int e;

	memset(vss, 0, sizeof(*vss));
	vss->stype = stype;
	vss->vs_dtype = vs_dtype;
	e = fn(voi_dtype, vss, info);
	if (e == 0)
		return 0;
	if (e == ENOMEM)
		return -ENOMEM;
	return kind_fail(err, "", e == EFBIG ? "too large for a blob" :
	    "parameters refused for this kind and data type");
}

int
kind_add(struct voistatspec *vss, uint32_t *n, uint32_t max,
    enum voi_stype stype, vss_hlpr_fn fn, void *info,
    enum vsd_dtype voi_dtype, enum vsd_dtype vs_dtype, struct input_error *err)
{
	int r;

	if (*n >= max)
		return kind_fail(err, "kind", "too many statistics");
	r = kind_hlpr(&vss[*n], stype, fn, info, voi_dtype, vs_dtype, err);
	if (r == 0)
		(*n)++;
	return r;
}

int
kind_describe_none(const struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype, struct kind_args *ret)
{
	(void)vsd;
	(void)dsz;
	(void)vs_dtype;
	(void)voi_dtype;
	memset(ret, 0, sizeof(*ret));
	return 0;
}
