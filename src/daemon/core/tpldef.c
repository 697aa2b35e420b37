/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tpldef.c: from a JSON template definition to stats(3) statistic specs
 * (each StatSpec built by its kind's row of the kind table, from the
 * parameters the table lists), a dry-run layout that catches every error
 * the definition can have, then the engine's template registry.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blob.h"
#include "kind.h"
#include "kindspec.h"
#include "kstat2_hist.h"
#include "layout.h"
#include "stat_defn.h"
#include "stat_scalar.h"
#include "tpl.h"
#include "tpldef.h"

#include <statsd/kstat.h>

/* StatSpec: the kind, and every parameter of the kind table's. */
#define TD_VLF_INT(n, lo, hi)	VLF_INT(n, true, lo, hi)
#define TD_VLF_BOOL(n, lo, hi)	VLF_BOOL(n, true)
#define TD_VLF_STRING(n, lo, hi) VLF_STR(n, true, hi)
#define TD_VLF_INTS(n, lo, hi)	VLF_ARRAY(n, true, VL_INT, KIND_INTS_MAX, \
				    lo, hi)
#define TD_VLF(id, n, type, lo, hi) TD_VLF_##type(n, lo, hi),

const struct vl_field tpldef_statspec_fields[] = {
	VLF_STR("kind", false, 16),
	KIND_PARAMS(TD_VLF)
	VLF_END
};

const struct vl_field tpldef_voispec_fields[] = {
	VLF_INT("id", false, 0, TPLDEF_MAX_VOI_ID),
	VLF_STR("name", false, TPL_MAX_NAME_LEN),
	VLF_STR("dtype", false, 16),
	VLF_BOOL("relupdate", true),
	VLF_STRUCTS("stats", false, "StatSpec", tpldef_statspec_fields,
	    TPLDEF_MAX_STATS),
	VLF_END
};

/* The specs of one VOI being built. */
struct tpldef_voi {
	int32_t			 id;
	const char		*name;
	enum vsd_dtype		 dtype;
	uint32_t		 flags;
	uint32_t		 nvss;
	struct voistatspec	 vss[TPLDEF_MAX_STATS + DEFN_MAX_VSS];
	const char		*alone;		/* the kind of a statistic
						 * that must be its only one */
};

static int
td_fail(struct input_error *err, const char *prefix, const char *field,
    const char *reason)
{
	char where[sizeof(err->where)];

	snprintf(where, sizeof(where), "%.96s%s%.30s", prefix,
	    field[0] != '\0' ? "." : "", field);
	return input_fail(err, EINVAL, where, "%s", reason);
}

static int64_t
td_int(json_t *o, const char *k, int64_t def)
{
	json_t *v = json_object_get(o, k);

	return json_is_integer(v) ? (int64_t)json_integer_value(v) : def;
}

static const char *
td_str(json_t *o, const char *k, const char *def)
{
	json_t *v = json_object_get(o, k);

	return json_is_string(v) ? json_string_value(v) : def;
}

/*
 * A StatSpec's parameters as kind arguments: each must be one the spec
 * takes, of its type (the protocol's table has checked the types and
 * bounds of a call already; a checkpoint's definitions come here
 * unchecked).
 */
static int
td_args(json_t *st, const struct kind_spec *ks, const char *kind,
    const char *path, struct kind_args *a, struct input_error *err)
{
	const char *key;
	json_t *v, *e;
	size_t i;
	int p;

	memset(a, 0, sizeof(*a));
	json_object_foreach(st, key, v) {
		const struct kind_param_info *pi;
		char why[64];

		if (strcmp(key, "kind") == 0 || json_is_null(v))
			continue;
		p = kind_param_find(key);
		if (p < 0 || (ks->params & (1u << p)) == 0) {
			snprintf(why, sizeof(why), "not a parameter of %s",
			    kind);
			return td_fail(err, path, key, why);
		}
		pi = &kind_params[p];
		switch (pi->type) {
		case KPT_INT:
			if (!json_is_integer(v) || json_integer_value(v) <
			    pi->min || json_integer_value(v) > pi->max)
				return td_fail(err, path, key,
				    "an integer out of range");
			kind_set_int(a, (enum kind_param)p,
			    (int64_t)json_integer_value(v));
			break;
		case KPT_BOOL:
			if (!json_is_boolean(v))
				return td_fail(err, path, key, "not a boolean");
			kind_set_int(a, (enum kind_param)p, json_is_true(v));
			break;
		case KPT_STRING:
			if (!json_is_string(v) ||
			    json_string_length(v) > (size_t)pi->max)
				return td_fail(err, path, key,
				    "not a string, or too long");
			kind_set_str(a, (enum kind_param)p,
			    json_string_value(v));
			break;
		case KPT_INTS: {
			int64_t *ints;

			if (!json_is_array(v) || json_array_size(v) >
			    KIND_INTS_MAX)
				return td_fail(err, path, key,
				    "not an array of at most 2048 integers");
			ints = calloc(json_array_size(v) + 1, sizeof(*ints));
			if (ints == NULL)
				return -ENOMEM;
			json_array_foreach(v, i, e) {
				if (!json_is_integer(e)) {
					free(ints);
					return td_fail(err, path, key,
					    "not an array of integers");
				}
				ints[i] = (int64_t)json_integer_value(e);
			}
			kind_set_ints(a, ints, json_array_size(v));
			break;
		}
		}
	}
	return 0;
}

void
tpldef_k2hist(json_t *def, struct k2hist_params *out, uint16_t n)
{
	const struct kind_spec *ks;
	struct input_error err;
	struct kind_args a;
	json_t *v, *st;
	size_t i, j;

	json_array_foreach(json_object_get(def, "vois"), i, v) {
		json_int_t id = json_integer_value(json_object_get(v, "id"));

		if (id < 0 || id >= n)
			continue;
		json_array_foreach(json_object_get(v, "stats"), j, st) {
			const char *kind = td_str(st, "kind", "");

			if (strcmp(kind, "K2HIST") != 0 ||
			    kind_spec_find(kind, &ks) < 0)
				continue;
			if (td_args(st, ks, kind, "", &a, &err) == 0)
				(void)k2hist_params_from_args(&a, &out[id]);
			kind_args_done(&a);
		}
	}
}

/* One StatSpec: its kind's row builds it. */
static int
td_stat(struct tpldef_voi *tv, json_t *st, const char *path,
    struct input_error *err)
{
	const char *kind = td_str(st, "kind", "");
	const struct kind_spec *ks;
	struct input_error kerr = { .where = "" };
	struct kind_args a;
	int stype, r;

	stype = kind_spec_find(kind, &ks);
	if (stype < 0)
		return td_fail(err, path, "kind", "unknown kind");
	r = td_args(st, ks, kind, path, &a, err);
	if (r == 0 && (tv->alone != NULL || (stype_ops[stype].alone &&
	    tv->nvss != 0))) {
		char why[96];

		snprintf(why, sizeof(why), "%s must be the VOI's only "
		    "statistic", tv->alone != NULL ? tv->alone : kind);
		r = td_fail(err, path, "kind", why);
	}
	if (r == 0) {
		r = ks->build(&a, tv->dtype, tv->vss, &tv->nvss,
		    (uint32_t)(sizeof(tv->vss) / sizeof(tv->vss[0])), &kerr);
		if (r == -EINVAL)
			td_fail(err, path, kerr.where, kerr.msg);
	}
	if (r == 0 && stype_ops[stype].alone)
		tv->alone = stype_ops[stype].name;
	kind_args_done(&a);
	return r;
}

static void
td_voi_free(struct tpldef_voi *tv)
{
	uint32_t i;

	for (i = 0; i < tv->nvss; i++) {
		free(tv->vss[i].iv);
		tv->vss[i].iv = NULL;
	}
	tv->nvss = 0;
}

static int
td_voi(struct tpldef_voi *tv, json_t *voi, size_t index,
    struct input_error *err)
{
	const char *dtname = td_str(voi, "dtype", "");
	char path[64], spath[96];
	json_t *stats, *st;
	size_t i;
	int d, r;

	snprintf(path, sizeof(path), "vois[%zu]", index);
	memset(tv, 0, sizeof(*tv));
	tv->id = (int32_t)td_int(voi, "id", 0);
	tv->name = td_str(voi, "name", "");
	if (!tpl_voi_name_valid(tv->name))
		return td_fail(err, path, "name",
		    "0 to 64 of [A-Za-z0-9_.=/-]");
	d = dtype_from_name(dtname);
	if (!dtype_is_scalar(d))
		return td_fail(err, path, "dtype",
		    "not a scalar data type (INT_S32 .. Q_U64)");
	tv->dtype = (enum vsd_dtype)d;
	if (json_is_true(json_object_get(voi, "relupdate")))
		tv->flags |= SB_VOI_RELUPDATE;
	stats = json_object_get(voi, "stats");
	if (json_array_size(stats) == 0)
		return td_fail(err, path, "stats",
		    "a VOI needs at least one statistic");
	json_array_foreach(stats, i, st) {
		snprintf(spath, sizeof(spath), "%s.stats[%zu]", path, i);
		r = td_stat(tv, st, spath, err);
		if (r < 0) {
			td_voi_free(tv);
			return r;
		}
	}
	return 0;
}

/* Lay a scratch blob out from all VOIs, as the template registry will
 * (the same layout code): every error the engine could report later shows
 * up here, before anything is registered. */
static int
td_dry_run(struct tpldef_voi *tvs, size_t n, struct input_error *err)
{
	struct statsblob *sb = layout_empty(), *nb;
	size_t i;
	int e;

	if (sb == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		char path[32];

		e = layout_tpl_add_voi(sb, tvs[i].id, tvs[i].dtype, tvs[i].flags,
		    tvs[i].nvss, tvs[i].vss, &nb);
		if (e != 0) {
			free(sb);
			if (e == ENOMEM)
				return -ENOMEM;
			snprintf(path, sizeof(path), "vois[%zu]", i);
			return td_fail(err, path, "", e == EFBIG ?
			    "the blob would pass 65535 bytes" :
			    "statistics refused (a repeated kind, or a type "
			    "that does not fit the VOI)");
		}
		free(sb);
		sb = nb;
	}
	free(sb);
	return 0;
}

int
tpldef_register(json_t *def, struct input_error *err)
{
	const char *name = td_str(def, "name", "");
	json_t *vois = json_object_get(def, "vois"), *voi;
	struct tpldef_voi *tvs;
	size_t n = json_array_size(vois), i, j;
	int id = -EINVAL, e;

	memset(err, 0, sizeof(*err));
	if (!tpl_name_valid(name))
		return td_fail(err, "name", "", "1 to 64 of [A-Za-z0-9_.-]");
	if (n == 0)
		return td_fail(err, "vois", "",
		    "a template needs at least one VOI");
	tvs = calloc(n, sizeof(*tvs));
	if (tvs == NULL)
		return -ENOMEM;
	json_array_foreach(vois, i, voi) {
		e = td_voi(&tvs[i], voi, i, err);
		if (e < 0) {
			id = e;
			goto out;
		}
		for (j = 0; j < i; j++) {
			char path[32];

			snprintf(path, sizeof(path), "vois[%zu]", i);
			if (tvs[j].id == tvs[i].id) {
				id = td_fail(err, path, "id",
				    "two VOIs with one id");
				goto out;
			}
			if (tvs[i].name[0] != '\0' &&
			    strcmp(tvs[j].name, tvs[i].name) == 0) {
				id = td_fail(err, path, "name",
				    "two VOIs with one name");
				goto out;
			}
		}
	}
	e = td_dry_run(tvs, n, err);
	if (e < 0) {
		id = e;
		goto out;
	}
	/* Names are per owner (registry.h): the engine may hold several
	 * templates of one name, which statsd tells apart by id. */
	id = tpl_alloc_shared_name(name);
	if (id < 0)
		goto out;
	for (i = 0; i < n; i++) {
		e = stats_tpl_add_voistats((uint32_t)id, tvs[i].id,
		    tvs[i].name, tvs[i].dtype, tvs[i].nvss, tvs[i].vss,
		    tvs[i].flags);
		if (e != 0) {
			/* The dry run makes this out-of-memory only; the
			 * half-built template goes. */
			char path[32];

			(void)tpl_release(id);
			snprintf(path, sizeof(path), "vois[%zu]", i);
			id = e == ENOMEM ? -ENOMEM : td_fail(err, path, "",
			    "refused by the engine");
			goto out;
		}
	}
out:
	for (i = 0; i < n; i++)
		td_voi_free(&tvs[i]);
	free(tvs);
	return id;
}
