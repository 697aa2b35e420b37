/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * series_tpl.c: the templates of statsd's series, one a type: their
 * VOIs from the configuration (classic buckets, native histograms), the
 * name made of their layout's digest, and the unkeyed FNV-1a hash that
 * digest and the sets' HyperLogLog share.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "daemon.h"
#include "log.h"
#include "registry.h"
#include "render_prom.h"
#include "series.h"
#include "series_priv.h"
#include "stat_list.h"

/* ---------------------------------------------------------------- hashing */

/* FNV-1a, unkeyed, where the hash must be the same in every run: a set
 * member's place in the HyperLogLog registers kept in the blob (which a
 * PERSISTENT set carries across restarts). */
uint64_t
series_fnv(const char *p, size_t n, uint64_t h)
{
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)p[i];
		h *= UINT64_C(0x100000001b3);
	}
	return h;
}

/* ------------------------------------------------------------ templates */

/*
 * A timer's, histogram's or distribution's VOI 1, "buckets": the classic
 * buckets of its Prometheus histogram (statsd_buckets_timer, _histogram),
 * counted exactly as values arrive. The values are whole units (a timer's
 * microseconds), so the bucket "<= le" is the range [le + 1, next le + 1):
 * USR ranges starting at each le + 1, the band below the first reaching
 * down to the type's minimum and the last range up to its maximum (+Inf).
 * render_prom.c reads them back as le.
 */
static json_t *
series_tpl_classic(const struct config *c, uint8_t type)
{
	int64_t le[PROM_BOUNDS_MAX];
	json_t *b;
	int n, i;

	n = type == SL_TIMER ? prom_parse_bounds(c->statsd_buckets_timer,
	    PROM_TIMER_POINT, le) : prom_parse_bounds(
	    c->statsd_buckets_histogram, 0, le);
	if (n < 0 || (b = json_array()) == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		json_array_append_new(b, json_integer(le[i] + 1));
	return json_pack("{s:I,s:s,s:s,s:[{s:s,s:s,s:s,s:o,s:b}]}", "id",
	    (json_int_t)1, "name", "buckets", "dtype", "INT_S64", "stats",
	    "kind", "HIST", "range", "CR", "scheme", "USR", "buckets", b,
	    "lbinf", 1);
}

/*
 * Their VOI 2, "native_schema_<s>": the native histogram of schema s
 * (statsd_native_schema), counted exactly as values arrive: USR ranges
 * of whole units that are each one native bucket (prom_native_lbs()),
 * with the band below 0 and the one above the top.
 */
static json_t *
series_tpl_native(const struct config *c, uint8_t type)
{
	int64_t lbs[PROM_NATIVE_LBS_MAX];
	char name[32];
	json_t *b;
	int n, i;

	n = prom_native_lbs(c->statsd_native_schema, type == SL_TIMER ?
	    PROM_TIMER_POINT : 0, lbs, PROM_NATIVE_LBS_MAX);
	if (n < 0 || (b = json_array()) == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		json_array_append_new(b, json_integer(lbs[i]));
	snprintf(name, sizeof(name), "%s%d", PROM_NATIVE_VOI,
	    c->statsd_native_schema);
	return json_pack("{s:I,s:s,s:s,s:[{s:s,s:s,s:s,s:o,s:b}]}", "id",
	    (json_int_t)2, "name", name, "dtype", "INT_S64", "stats",
	    "kind", "HIST", "range", "CR", "scheme", "USR", "buckets", b,
	    "lbinf", 1);
}

/* The one VOI "value" of each type, timers' and histograms' "buckets"
 * and native buckets,
 * and sets' "distinct". */
static json_t *
series_tpl_def(const struct statsd *d, uint8_t type)
{
	const struct config *c = &d->cfg;
	json_t *stats, *vois;
	char name[32];

	switch (type) {
	case SL_COUNTER:
		stats = json_pack("[{s:s},{s:s}]", "kind", "SUM", "kind",
		    "COUNT");
		break;
	case SL_GAUGE:
		stats = json_pack("[{s:s}]", "kind", "LAST");
		break;
	case SL_SET:
		stats = json_pack("[{s:s,s:I}]", "kind", "LIST", "entries_max",
		    (json_int_t)c->statsd_set_exact_max);
		break;
	default:
		/* A log-linear histogram: ten steps per power of ten from 0
		 * to 10^9 (a timer's microseconds: 1000 s), and what lies
		 * outside in the bands below and above. */
		stats = json_pack("[{s:s,s:I},{s:s,s:s,s:I,s:I,s:I,s:I,s:b,"
		    "s:b},{s:s},{s:s},{s:s},{s:s}]",
		    "kind", "TDGST", "nctds", (json_int_t)64,
		    "kind", "HIST", "scheme", "LINEXP", "lb", (json_int_t)0,
		    "ub", (json_int_t)1000000000, "stepbase", (json_int_t)10,
		    "nlin", (json_int_t)10, "lbinf", 1, "ubinf", 1,
		    "kind", "SUM", "kind", "MIN", "kind", "MAX", "kind",
		    "COUNT");
		break;
	}
	if (stats == NULL)
		return NULL;
	/* A counter only grows (negative increments are refused): unsigned,
	 * which also makes its SUM a counter to every reader (field.h), and
	 * 64 bits whole, so that it counts to 1.8e19 (a fixed-point Q_U64
	 * would end below 2^32, hours of a busy byte counter); fractions
	 * are carried (series_count()). */
	vois = json_pack("[{s:I,s:s,s:s,s:b,s:o}]", "id", (json_int_t)0,
	    "name", "value", "dtype", type == SL_COUNTER ? "INT_U64" : "INT_S64",
	    "relupdate", type == SL_GAUGE, "stats", stats);
	if (vois != NULL && (type == SL_TIMER || type == SL_HISTOGRAM ||
	    type == SL_DISTRIBUTION)) {
		json_t *cl = series_tpl_classic(c, type);

		if (cl == NULL) {
			json_decref(vois);
			return NULL;
		}
		json_array_append_new(vois, cl);
		if ((cl = series_tpl_native(c, type)) == NULL) {
			json_decref(vois);
			return NULL;
		}
		json_array_append_new(vois, cl);
	}
	if (vois != NULL && type == SL_SET) {
		json_array_append_new(vois, json_pack("{s:I,s:s,s:s,s:[{s:s}]}",
		    "id", (json_int_t)1, "name", "distinct", "dtype", "INT_U64",
		    "stats", "kind", "LAST"));
		json_array_append_new(vois, json_pack(
		    "{s:I,s:s,s:s,s:[{s:s,s:I}]}", "id", (json_int_t)HLL_VOI,
		    "name", "hll", "dtype", "INT_U64", "stats", "kind", "STRING",
		    "maxlen", (json_int_t)HLL_M));
	}
	if (vois == NULL)
		return NULL;
	if (type == SL_COUNTER || type == SL_GAUGE) {
		snprintf(name, sizeof(name), "statsd.%s", sl_type_names[type]);
	} else {
		/* A layout that config shapes (statsd_buckets_*,
		 * statsd_native_schema, statsd_set_exact_max) is named by
		 * a digest of its VOIs: a changed layout is a new template,
		 * and a series made from an older one keeps it (its
		 * definition is in the checkpoint) and its data. */
		char *dump = json_dumps(vois, JSON_COMPACT | JSON_SORT_KEYS);
		uint64_t h;

		if (dump == NULL) {
			json_decref(vois);
			return NULL;
		}
		h = series_fnv(dump, strlen(dump), FNV_BASIS);
		free(dump);
		snprintf(name, sizeof(name), "statsd.%s.%08" PRIx32,
		    sl_type_names[type], (uint32_t)(h ^ (h >> 32)));
	}
	return json_pack("{s:s,s:o}", "name", name, "vois", vois);
}

bool
series_tpl_is_type(const struct reg_template *t, uint8_t type,
    uid_t self_uid)
{
	return t != NULL && t->owner == self_uid &&
	    sl_tpl_type(t->name) == (int)type && t->nnames >= 1 &&
	    t->names[0] != NULL;
}

int
series_templates(struct statsd *d, struct reg_template **ret)
{
	struct reg_owner self = { d->self_uid, true, false };
	struct quota_refusal why;
	struct reg_template *tpl;
	struct input_error terr;
	bool created;
	uint8_t t;
	int r;

	for (t = 0; t < SL_NTYPES; t++) {
		json_t *def = series_tpl_def(d, t);

		if (def == NULL)
			return -ENOMEM;
		r = registry_template_add(d->reg, def, &self, &tpl, &created,
		    &terr, &why);
		json_decref(def);
		if (r < 0) {
			log_error("statsd.%s template: %s %s", sl_type_names[t],
			    terr.where, terr.msg);
			return r;
		}
		if (ret != NULL)
			ret[t] = tpl;
	}
	return 0;
}
