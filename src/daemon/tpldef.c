/*
 * tpldef.c: from a JSON template definition to stats(3) statistic specs,
 * a dry-run layout that catches every error the definition can have, then
 * the engine's template registry.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blob.h"
#include "engine.h"
#include "kind.h"
#include "kstat2_hist.h"
#include "layout.h"
#include "stat_defn.h"
#include "stat_history.h"
#include "stat_ioq.h"
#include "stat_list.h"
#include "stat_raw.h"
#include "stat_scalar.h"
#include "stat_timer.h"
#include "tpl.h"
#include "tpldef.h"

#include <statsd/kstat.h>

const struct vl_field tpldef_statspec_fields[] = {
	VLF_STR("kind", false, 16),
	VLF_STR("scheme", true, 16),
	VLF_STR("range", true, 4),
	VLF_INT("counters", true, 32, 64),
	VLF_INT("lb", true, INT64_MIN, INT64_MAX),
	VLF_INT("ub", true, INT64_MIN, INT64_MAX),
	VLF_INT("step", true, INT64_MIN, INT64_MAX),
	VLF_INT("stepbase", true, 2, 1 << 16),
	VLF_INT("stepexp", true, 1, 64),
	VLF_INT("nlin", true, 1, 1 << 16),
	VLF_ARRAY("buckets", true, VL_INT, 2 * TPLDEF_MAX_BUCKETS, INT64_MIN,
	    INT64_MAX),
	VLF_BOOL("lbinf", true),
	VLF_BOOL("ubinf", true),
	VLF_INT("nctds", true, 1, 65535),
	VLF_INT("prec", true, 0, 64),
	VLF_INT("entries_max", true, 1, 65535),
	VLF_STR("mode", true, 16),
	VLF_INT("period_us", true, 1, INT64_MAX),
	VLF_INT("maxlen", true, 1, STRING_MAX),
	VLF_STR("units", true, DEFN_UNITS_MAX),
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

/* Which StatSpec parameters each kind takes (besides "kind"). */
static const struct {
	const char	*kind;
	const char	*params;	/* space-separated */
} tpldef_kinds[] = {
	{ "SUM", "" }, { "MIN", "" }, { "MAX", "" }, { "COUNT", "" },
	{ "LAST", "" }, { "STRING", "maxlen" }, { "CHAR", "" },
	{ "HIST", "scheme range counters lb ub step stepbase stepexp nlin "
	    "buckets lbinf ubinf" },
	{ "K2HIST", "scheme lb ub step" },
	{ "TDGST", "counters nctds prec" },
	{ "LIST", "entries_max" },
	{ "HISTORY", "entries_max mode period_us" },
	{ "RAW", "entries_max" },
	{ "IOQ", "" }, { "TIMER", "" },
	{ "DEFN", "units" },
};

/* The specs of one VOI being built. */
struct tpldef_voi {
	int32_t			 id;
	const char		*name;
	enum vsd_dtype		 dtype;
	uint32_t		 flags;
	uint32_t		 nvss;
	struct voistatspec	 vss[TPLDEF_MAX_STATS + DEFN_MAX_VSS];
};

static int
td_fail(struct tpldef_error *err, const char *prefix, const char *field,
    const char *reason)
{
	snprintf(err->parameter, sizeof(err->parameter), "%s%s%s", prefix,
	    field[0] != '\0' ? "." : "", field);
	snprintf(err->reason, sizeof(err->reason), "%s", reason);
	return -EINVAL;
}

static bool
td_word_in(const char *word, const char *list)
{
	size_t n = strlen(word);
	const char *p = list;

	while ((p = strstr(p, word)) != NULL) {
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return true;
		p += n;
	}
	return false;
}

static int64_t
td_int(json_t *o, const char *k, int64_t def)
{
	json_t *v = json_object_get(o, k);

	return json_is_integer(v) ? (int64_t)json_integer_value(v) : def;
}

static bool
td_has(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return v != NULL && !json_is_null(v);
}

static const char *
td_str(json_t *o, const char *k, const char *def)
{
	json_t *v = json_object_get(o, k);

	return json_is_string(v) ? json_string_value(v) : def;
}

/* Run a helper into vss (iv becomes ours) and map its errno. */
static int
td_hlpr(struct voistatspec *vss, enum voi_stype stype, vss_hlpr_fn fn,
    void *info, enum vsd_dtype voi_dtype, enum vsd_dtype vs_dtype,
    const char *path, struct tpldef_error *err)
{
	int e;

	memset(vss, 0, sizeof(*vss));
	vss->stype = stype;
	vss->vs_dtype = vs_dtype;
	e = fn(voi_dtype, vss, info);
	if (e == 0)
		return 0;
	if (e == EFBIG)
		return td_fail(err, path, "", "too large for a blob");
	if (e == ENOMEM)
		return -ENOMEM;
	return td_fail(err, path, "",
	    "parameters refused for this kind and data type");
}

static int
td_hist(struct tpldef_voi *tv, json_t *st, const char *path,
    struct tpldef_error *err)
{
	const char *scheme = td_str(st, "scheme", "LIN");
	const char *range = td_str(st, "range", "CR");
	int counters = (int)td_int(st, "counters", 64);
	struct voistatdata_numeric (*bkts)[2] = NULL;
	struct voistatdata_numeric lb, ub;
	struct voistatspec *vss = &tv->vss[tv->nvss];
	enum vsd_dtype hd;
	uint32_t fl = 0;
	bool dr = strcmp(range, "DR") == 0;
	int r;

	if (counters != 32 && counters != 64)
		return td_fail(err, path, "counters", "32 or 64");
	if (strcmp(range, "CR") == 0)
		hd = counters == 32 ? VSD_DTYPE_CRHIST32 : VSD_DTYPE_CRHIST64;
	else if (dr)
		hd = counters == 32 ? VSD_DTYPE_DRHIST32 : VSD_DTYPE_DRHIST64;
	else if (strcmp(range, "DV") == 0)
		hd = counters == 32 ? VSD_DTYPE_DVHIST32 : VSD_DTYPE_DVHIST64;
	else
		return td_fail(err, path, "range", "CR, DR or DV");
	if (json_is_true(json_object_get(st, "lbinf")))
		fl |= VSD_HIST_LBOUND_INF;
	if (json_is_true(json_object_get(st, "ubinf")))
		fl |= VSD_HIST_UBOUND_INF;
	lb = stats_ctor_vsd_numeric((uint64_t)td_int(st, "lb", 0));
	ub = stats_ctor_vsd_numeric((uint64_t)td_int(st, "ub", 0));
	if (strcmp(scheme, "USR") == 0) {
		json_t *b = json_object_get(st, "buckets"), *e;
		size_t n = json_array_size(b), i, nb;

		if (!json_is_array(b) || n == 0)
			return td_fail(err, path, "buckets",
			    "USR needs buckets");
		if (dr && n % 2 != 0)
			return td_fail(err, path, "buckets",
			    "DR buckets are lb, ub pairs");
		nb = dr ? n / 2 : n;
		if (nb > TPLDEF_MAX_BUCKETS)
			return td_fail(err, path, "buckets",
			    "too many buckets");
		bkts = calloc(nb, sizeof(*bkts));
		if (bkts == NULL)
			return -ENOMEM;
		json_array_foreach(b, i, e) {
			uint64_t v = (uint64_t)json_integer_value(e);

			if (dr)
				bkts[i / 2][i % 2] = stats_ctor_vsd_numeric(v);
			else
				bkts[i][0] = bkts[i][1] =
				    stats_ctor_vsd_numeric(v);
		}
		struct vss_hist_hlpr_info info = {
			.scheme = BKT_USR, .voi_dtype = tv->dtype,
			.hist_dtype = hd, .flags = fl, .lb = lb, .ub = ub,
			.usr.nbkts = (uint16_t)nb,
			.usr.bkts = (const void *)bkts,
		};
		r = td_hlpr(vss, VS_STYPE_HIST,
		    (vss_hlpr_fn)stats_vss_hist_hlpr, &info, tv->dtype, hd,
		    path, err);
		free(bkts);
	} else if (strcmp(range, "CR") != 0) {
		return td_fail(err, path, "scheme",
		    "DR and DV histograms take USR buckets");
	} else if (strcmp(scheme, "LIN") == 0) {
		if (!td_has(st, "step"))
			return td_fail(err, path, "step", "LIN needs step");
		struct vss_hist_hlpr_info info = {
			.scheme = BKT_LIN, .voi_dtype = tv->dtype,
			.hist_dtype = hd, .flags = fl, .lb = lb, .ub = ub,
			.lin.stepinc = stats_ctor_vsd_numeric(
			    (uint64_t)td_int(st, "step", 0)),
		};
		r = td_hlpr(vss, VS_STYPE_HIST,
		    (vss_hlpr_fn)stats_vss_hist_hlpr, &info, tv->dtype, hd,
		    path, err);
	} else if (strcmp(scheme, "EXP") == 0) {
		struct vss_hist_hlpr_info info = {
			.scheme = BKT_EXP, .voi_dtype = tv->dtype,
			.hist_dtype = hd, .flags = fl, .lb = lb, .ub = ub,
			.exp.stepbase = (uint32_t)td_int(st, "stepbase", 2),
			.exp.stepexp = (uint32_t)td_int(st, "stepexp", 1),
		};
		r = td_hlpr(vss, VS_STYPE_HIST,
		    (vss_hlpr_fn)stats_vss_hist_hlpr, &info, tv->dtype, hd,
		    path, err);
	} else if (strcmp(scheme, "LINEXP") == 0) {
		struct vss_hist_hlpr_info info = {
			.scheme = BKT_LINEXP, .voi_dtype = tv->dtype,
			.hist_dtype = hd, .flags = fl, .lb = lb, .ub = ub,
			.linexp.stepbase = (uint32_t)td_int(st, "stepbase",
			    10),
			.linexp.linstepdiv = (uint32_t)td_int(st, "nlin", 10),
		};
		r = td_hlpr(vss, VS_STYPE_HIST,
		    (vss_hlpr_fn)stats_vss_hist_hlpr, &info, tv->dtype, hd,
		    path, err);
	} else {
		return td_fail(err, path, "scheme", "LIN, EXP, LINEXP or USR");
	}
	if (r == 0)
		tv->nvss++;
	return r;
}

/* A K2HIST StatSpec's parameters; type -1 for an unknown scheme. */
static int
td_k2hist_params(json_t *st, struct k2hist_params *p)
{
	int type = k2hist_type_from_name(td_str(st, "scheme", "LINEAR"));

	p->valid = type >= 0;
	p->type = (enum k2hist_type)(type >= 0 ? type : 0);
	p->range_min = (uint64_t)td_int(st, "lb", 0);
	p->range_max = (uint64_t)td_int(st, "ub", 0);
	p->stepping = (uint64_t)td_int(st, "step", 1);
	return type;
}

void
tpldef_k2hist(json_t *def, struct k2hist_params *out, uint16_t n)
{
	json_t *v, *st;
	size_t i, j;

	json_array_foreach(json_object_get(def, "vois"), i, v) {
		json_int_t id = json_integer_value(json_object_get(v, "id"));

		if (id < 0 || id >= n)
			continue;
		json_array_foreach(json_object_get(v, "stats"), j, st)
			if (strcmp(td_str(st, "kind", ""), "K2HIST") == 0)
				(void)td_k2hist_params(st, &out[id]);
	}
}

static int
td_k2hist(struct tpldef_voi *tv, json_t *st, const char *path,
    struct tpldef_error *err)
{
	struct k2hist_params p;
	struct k2hist_spec ks;
	int e;

	if (tv->dtype != VSD_DTYPE_INT_U64)
		return td_fail(err, path, "kind",
		    "K2HIST needs an INT_U64 VOI");
	if (td_k2hist_params(st, &p) < 0)
		return td_fail(err, path, "scheme",
		    "LINEAR, LOG2, LOG10 or LOG10_LIN");
	e = k2hist_spec_init(&ks, p.type, p.range_min, p.range_max,
	    p.stepping);
	if (e == ENOMEM)
		return -ENOMEM;
	if (e != 0)
		return td_fail(err, path, "",
		    "bad kstat2 histogram parameters");
	tv->vss[tv->nvss] = k2hist_vss(&ks);
	e = td_hlpr(&tv->vss[tv->nvss], VS_STYPE_HIST,
	    tv->vss[tv->nvss].hlpr, tv->vss[tv->nvss].hlprinfo, tv->dtype,
	    tv->vss[tv->nvss].vs_dtype, path, err);
	k2hist_spec_done(&ks);
	if (e == 0)
		tv->vss[tv->nvss++].flags = K2HIST_VSS_FLAGS;
	return e;
}

static int
td_defn(struct tpldef_voi *tv, json_t *st, const char *path,
    struct tpldef_error *err)
{
	const char *units = td_str(st, "units", "");
	struct vsd_defn d;
	uint32_t n = DEFN_MAX_VSS;
	size_t i;
	int e;

	if (tv->dtype != VSD_DTYPE_INT_S64)
		return td_fail(err, path, "kind", "DEFN needs an INT_S64 VOI");
	if (tv->nvss != 0)
		return td_fail(err, path, "kind",
		    "DEFN must be the VOI's only statistic");
	for (i = 0; units[i] != '\0'; i++)
		if (units[i] <= ' ' || units[i] > '~')
			return td_fail(err, path, "units",
			    "printable, without blanks");
	stat_defn_default(&d, units, engine_now_ns());
	e = stat_defn_vss(&d, tv->vss, &n);
	if (e == ENOMEM)
		return -ENOMEM;
	if (e != 0)
		return td_fail(err, path, "", "bad definition");
	tv->nvss = n;
	return 0;
}

static int
td_stat(struct tpldef_voi *tv, json_t *st, const char *path,
    struct tpldef_error *err)
{
	const char *kind = td_str(st, "kind", "");
	struct voistatspec *vss = &tv->vss[tv->nvss];
	const char *key;
	json_t *v;
	size_t k;

	for (k = 0; k < sizeof(tpldef_kinds) / sizeof(tpldef_kinds[0]); k++)
		if (strcmp(tpldef_kinds[k].kind, kind) == 0)
			break;
	if (k == sizeof(tpldef_kinds) / sizeof(tpldef_kinds[0]))
		return td_fail(err, path, "kind", "unknown kind");
	json_object_foreach(st, key, v) {
		if (strcmp(key, "kind") == 0 || json_is_null(v))
			continue;
		if (!td_word_in(key, tpldef_kinds[k].params)) {
			char why[64];

			snprintf(why, sizeof(why), "not a parameter of %s",
			    kind);
			return td_fail(err, path, key, why);
		}
	}
	if (tv->nvss > 0 && tv->vss[0].stype == VS_STYPE_DEFN)
		return td_fail(err, path, "kind",
		    "DEFN must be the VOI's only statistic");
	if (strcmp(kind, "SUM") == 0 || strcmp(kind, "MIN") == 0 ||
	    strcmp(kind, "MAX") == 0) {
		enum voi_stype t = kind[1] == 'U' ? VS_STYPE_SUM :
		    kind[1] == 'I' ? VS_STYPE_MIN : VS_STYPE_MAX;

		if (td_hlpr(vss, t, (vss_hlpr_fn)stats_vss_numeric_hlpr, NULL,
		    tv->dtype, 0, path, err) < 0)
			return -EINVAL;
	} else if (strcmp(kind, "COUNT") == 0) {
		if (td_hlpr(vss, VS_STYPE_COUNT,
		    (vss_hlpr_fn)stat_count_vss_hlpr, NULL, tv->dtype, 0,
		    path, err) < 0)
			return -EINVAL;
	} else if (strcmp(kind, "LAST") == 0) {
		if (td_hlpr(vss, VS_STYPE_LAST,
		    (vss_hlpr_fn)stat_last_vss_hlpr, NULL, tv->dtype, 0,
		    path, err) < 0)
			return -EINVAL;
	} else if (strcmp(kind, "STRING") == 0 || strcmp(kind, "CHAR") == 0) {
		struct vss_string_hlpr_info si = {
			.kind = kind[0] == 'S' ? KSTAT_DATA_STRING :
			    KSTAT_DATA_CHAR,
			.maxlen = (uint16_t)td_int(st, "maxlen", 64),
		};

		if (td_hlpr(vss, VS_STYPE_LAST,
		    (vss_hlpr_fn)stat_string_vss_hlpr, &si, tv->dtype, 0,
		    path, err) < 0)
			return -EINVAL;
	} else if (strcmp(kind, "HIST") == 0) {
		return td_hist(tv, st, path, err);
	} else if (strcmp(kind, "K2HIST") == 0) {
		return td_k2hist(tv, st, path, err);
	} else if (strcmp(kind, "TDGST") == 0) {
		int counters = (int)td_int(st, "counters", 64);
		struct vss_tdgst_hlpr_info ti = {
			.voi_dtype = tv->dtype,
			.nctds = (uint32_t)td_int(st, "nctds", 64),
			.prec = (uint32_t)td_int(st, "prec", 0),
		};

		if (counters != 32 && counters != 64)
			return td_fail(err, path, "counters", "32 or 64");
		if (td_hlpr(vss, VS_STYPE_TDGST,
		    (vss_hlpr_fn)stats_vss_tdgst_hlpr, &ti, tv->dtype,
		    counters == 32 ? VSD_DTYPE_TDGSTCLUST32 :
		    VSD_DTYPE_TDGSTCLUST64, path, err) < 0)
			return -EINVAL;
	} else if (strcmp(kind, "LIST") == 0) {
		struct vss_list_hlpr_info li = {
			(uint32_t)td_int(st, "entries_max", 16) };

		if (td_hlpr(vss, VS_STYPE_LIST,
		    (vss_hlpr_fn)stat_list_vss_hlpr, &li, tv->dtype, 0, path,
		    err) < 0)
			return -EINVAL;
	} else if (strcmp(kind, "HISTORY") == 0) {
		const char *mode = td_str(st, "mode", "increments");
		struct vss_history_hlpr_info hi = {
			.entries_max = (uint32_t)td_int(st, "entries_max", 16),
			.period_us = (uint64_t)td_int(st, "period_us",
			    1000000),
		};
		unsigned m;

		for (m = 0; m < DEFN_NUM_MODES; m++)
			if (strcmp(stat_defn_mode_names[m], mode) == 0)
				break;
		if (m == DEFN_NUM_MODES)
			return td_fail(err, path, "mode",
			    "increments, products or range");
		hi.mode = (uint8_t)m;
		if (td_hlpr(vss, VS_STYPE_HISTORY,
		    (vss_hlpr_fn)stat_history_vss_hlpr, &hi, tv->dtype, 0,
		    path, err) < 0)
			return -EINVAL;
	} else if (strcmp(kind, "RAW") == 0) {
		struct vss_raw_hlpr_info ri = {
			(uint32_t)td_int(st, "entries_max", 16) };

		if (td_hlpr(vss, VS_STYPE_RAW, (vss_hlpr_fn)stat_raw_vss_hlpr,
		    &ri, tv->dtype, 0, path, err) < 0)
			return -EINVAL;
	} else if (strcmp(kind, "IOQ") == 0) {
		if (td_hlpr(vss, VS_STYPE_IOQ, (vss_hlpr_fn)stat_ioq_vss_hlpr,
		    NULL, tv->dtype, 0, path, err) < 0)
			return -EINVAL;
	} else if (strcmp(kind, "TIMER") == 0) {
		if (td_hlpr(vss, VS_STYPE_TIMER,
		    (vss_hlpr_fn)stat_timer_vss_hlpr, NULL, tv->dtype, 0, path,
		    err) < 0)
			return -EINVAL;
	} else {
		return td_defn(tv, st, path, err);
	}
	tv->nvss++;
	return 0;
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
    struct tpldef_error *err)
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
	for (d = 1; d < VSD_NUM_DTYPES; d++)
		if (dtype_is_scalar(d) &&
		    strcmp(stats_vsd_dtype_name((enum vsd_dtype)d),
		    dtname) == 0)
			break;
	if (d == VSD_NUM_DTYPES)
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

/* Lay a scratch blob out from all VOIs: every error the engine could
 * report later shows up here, before anything is registered. */
static int
td_dry_run(struct tpldef_voi *tvs, size_t n, struct tpldef_error *err)
{
	struct statsblob *sb = layout_empty(), *nb;
	size_t i;
	int e;

	if (sb == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		char path[32];

		e = layout_set_voi(sb, tvs[i].id, tvs[i].dtype, tvs[i].flags,
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
tpldef_register(json_t *def, struct tpldef_error *err)
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
	id = stats_tpl_alloc(name, 0);
	if (id < 0)
		goto out;
	for (i = 0; i < n; i++) {
		e = stats_tpl_add_voistats((uint32_t)id, tvs[i].id,
		    tvs[i].name, tvs[i].dtype, tvs[i].nvss, tvs[i].vss,
		    tvs[i].flags);
		if (e != 0) {
			/* The dry run makes this out-of-memory only; the
			 * half-built template stays in the engine, unlisted. */
			char path[32];

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
