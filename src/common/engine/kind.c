/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kind.c: the statistic-type table, and the one place that renders a
 * statistic's data by its family.
 */
#include <errno.h>
#include <string.h>

#include "hist.h"
#include "kind.h"
#include "kstat2_hist.h"
#include "numeric.h"
#include "op.h"
#include "stat_defn.h"
#include "stat_history.h"
#include "stat_ioq.h"
#include "stat_list.h"
#include "stat_raw.h"
#include "stat_scalar.h"
#include "stat_timer.h"
#include "tdgst_stat.h"

_Static_assert(K2HIST_VSS_FLAGS == VS_ALWAYSVALID, "kstat2 histogram flags");

/* Sets of ops, for the fold column. */
#define OPB(op)		(1u << (op))
#define FOLD_ALL	(((1u << STATS_OP_NUM) - 1) & ~OPB(STATS_OP_INVALID))
#define OPS_XY		(OPB(STATS_OP_ABS) | OPB(STATS_OP_REL) | OPB(STATS_OP_XY))
#define OPS_QUEUE	(OPB(STATS_OP_QENTER) | OPB(STATS_OP_QEXIT) | \
			    OPB(STATS_OP_QMOVE))
#define OPS_TIMER	(OPB(STATS_OP_TSTART) | OPB(STATS_OP_TSTOP))

/*
 * Why each fold column is what it is: sums, counts, extremes, histogram
 * buckets and t-digests add up in any order, and the last value merged
 * at its place in the ring's order is the last one; SET overwrites a SUM
 * (what came before it in the ring must not be added after); LIST keeps
 * the first entries_max X to come, HISTORY opens periods at its first
 * update, RAW numbers its records, a queue's integrals and a timer's
 * durations depend on the state before the event, and a definition
 * gates an update with what statsd has now: those are logged.
 */
const struct stype_ops stype_ops[VS_NUM_STYPES] = {
	[VS_STYPE_VOISTATE] = {
		.name = "VOISTATE",
		.desc = "VOI related state data (not a real stat)",
		.fold = FOLD_ALL,
	},
	[VS_STYPE_SUM] = {
		.name = "SUM",
		.specs = (const struct kind_spec[]){
		    { "SUM", 0, numeric_sum_build } }, .nspecs = 1,
		.describe = kind_describe_none,
		.fields = (const struct stat_field[]){
		    { "sum", FIELD_COUNTER_IF_UNSIGNED, false, "", false } },
		.nfields = 1,
		.desc = "Simple arithmetic accumulator",
		.fold = FOLD_ALL & ~OPB(STATS_OP_SET),
		.update = numeric_sum_update, .reset = numeric_sum_reset,
		.merge = numeric_sum_merge, .check = numeric_check,
		.event = stat_sum_event,
	},
	[VS_STYPE_MAX] = {
		.name = "MAX",
		.specs = (const struct kind_spec[]){
		    { "MAX", 0, numeric_max_build } }, .nspecs = 1,
		.describe = kind_describe_none,
		.fields = (const struct stat_field[]){
		    { "max", FIELD_GAUGE, false, "", false } },
		.nfields = 1,
		.desc = "Maximum observed VOI value",
		.fold = FOLD_ALL,
		.update = numeric_max_update, .reset = numeric_max_reset,
		.merge = numeric_max_merge, .check = numeric_check,
	},
	[VS_STYPE_MIN] = {
		.name = "MIN",
		.specs = (const struct kind_spec[]){
		    { "MIN", 0, numeric_min_build } }, .nspecs = 1,
		.describe = kind_describe_none,
		.fields = (const struct stat_field[]){
		    { "min", FIELD_GAUGE, false, "", false } },
		.nfields = 1,
		.desc = "Minimum observed VOI value",
		.fold = FOLD_ALL,
		.update = numeric_min_update, .reset = numeric_min_reset,
		.merge = numeric_min_merge, .check = numeric_check,
	},
	[VS_STYPE_HIST] = {
		.name = "HIST",
		.specs = (const struct kind_spec[]){
		    { "HIST", KP(SCHEME) | KP(RANGE) | KP(COUNTERS) | KP(LB) |
		      KP(UB) | KP(STEP) | KP(STEPBASE) | KP(STEPEXP) |
		      KP(NLIN) | KP(BUCKETS) | KP(LBINF) | KP(UBINF),
		      hist_build },
		    { "K2HIST", KP(SCHEME) | KP(LB) | KP(UB) | KP(STEP),
		      k2hist_build } }, .nspecs = 2,
		.describe = hist_describe,
		.desc = "Static bucket histogram of VOI values",
		.fold = FOLD_ALL,
		.family = DF_HIST, .render = hist_render,
		.fields = k2hist_fields, .nfields = K2HIST_NFIELDS,
		.update = hist_update, .reset = hist_reset,
		.merge = hist_merge, .check = hist_check,
		.quantile = hist_quantile, .cdf = hist_cdf,
	},
	[VS_STYPE_TDGST] = {
		.name = "TDGST",
		.specs = (const struct kind_spec[]){
		    { "TDGST", KP(COUNTERS) | KP(NCTDS) | KP(PREC),
		      tdgst_stat_build } }, .nspecs = 1,
		.describe = tdgst_stat_describe,
		.desc = "t-digest of VOI values",
		.fold = FOLD_ALL,
		.family = DF_TDGST, .render = tdgst_stat_render,
		.update = tdgst_stat_update, .reset = tdgst_stat_reset,
		.merge = tdgst_stat_merge, .check = tdgst_stat_check,
		.quantile = tdgst_stat_quantile, .cdf = tdgst_stat_cdf,
	},
	[VS_STYPE_COUNT] = {
		.name = "COUNT",
		.specs = (const struct kind_spec[]){
		    { "COUNT", 0, stat_count_build } }, .nspecs = 1,
		.describe = kind_describe_none,
		.fields = (const struct stat_field[]){
		    { "count", FIELD_COUNTER, false, "", false } },
		.nfields = 1,
		.desc = "Sum of update weights",
		.fold = FOLD_ALL,
		.update = stat_count_update, .reset = numeric_sum_reset,
		.merge = numeric_sum_merge, .check = numeric_check,
	},
	[VS_STYPE_LAST] = {
		.name = "LAST",
		.specs = (const struct kind_spec[]){
		    { "LAST", 0, stat_last_build },
		    { "STRING", KP(MAXLEN), stat_string_build },
		    { "CHAR", 0, stat_char_build } }, .nspecs = 3,
		.describe = stat_last_describe,
		.fields = (const struct stat_field[]){
		    { "last", FIELD_GAUGE, false, "", false } },
		.nfields = 1,
		.desc = "Last value set or updated (kstat named value)",
		.fold = FOLD_ALL,
		.family = DF_STRING, .render = stat_string_render,
		.update = stat_last_update, .reset = stat_last_reset,
		.merge = stat_last_merge, .check = stat_last_check,
		.event = stat_last_event,
	},
	[VS_STYPE_LIST] = {
		.name = "LIST",
		.specs = (const struct kind_spec[]){
		    { "LIST", KP(ENTRIES_MAX), stat_list_build } },
		.nspecs = 1,
		.desc = "Sum of weights per distinct VOI value",
		.fold = FOLD_ALL & ~OPS_XY,
		.family = DF_LIST, .render = stat_list_render,
		.update = stat_list_update, .reset = stat_list_reset,
		.merge = stat_list_merge, .check = stat_list_check,
	},
	[VS_STYPE_HISTORY] = {
		.name = "HISTORY",
		.specs = (const struct kind_spec[]){
		    { "HISTORY", KP(ENTRIES_MAX) | KP(MODE) | KP(PERIOD_US),
		      stat_history_build } }, .nspecs = 1,
		.desc = "Per-period count, sum or range, as a ring",
		.fold = FOLD_ALL & ~OPS_XY,
		.family = DF_HISTORY, .render = stat_history_render,
		.reset = stat_history_reset, .merge = stat_history_merge,
		.check = stat_history_check, .event = stat_history_event,
	},
	[VS_STYPE_RAW] = {
		.name = "RAW",
		.specs = (const struct kind_spec[]){
		    { "RAW", KP(ENTRIES_MAX), stat_raw_build } }, .nspecs = 1,
		.desc = "Ring of timestamped (X, Y) updates",
		.fold = FOLD_ALL & ~OPS_XY,
		.family = DF_RAW, .render = stat_raw_render,
		.reset = stat_raw_reset, .merge = stat_raw_merge,
		.check = stat_raw_check, .event = stat_raw_event,
	},
	[VS_STYPE_IOQ] = {
		.name = "IOQ",
		.specs = (const struct kind_spec[]){
		    { "IOQ", 0, stat_ioq_build } }, .nspecs = 1,
		.desc = "I/O counters and wait/run queue Riemann sums",
		.fold = FOLD_ALL & ~OPS_QUEUE,
		.family = DF_IOQ, .render = stat_ioq_render,
		.fields = stat_ioq_fields, .nfields = IOQ_NFIELDS,
		.field_values = stat_ioq_field_values,
		.update = stat_ioq_update, .reset = stat_ioq_reset,
		.merge = stat_ioq_merge, .check = stat_ioq_check,
		.event = stat_ioq_event,
	},
	[VS_STYPE_TIMER] = {
		.name = "TIMER",
		.specs = (const struct kind_spec[]){
		    { "TIMER", 0, stat_timer_build } }, .nspecs = 1,
		.desc = "Event count and durations from start/stop events",
		.fold = FOLD_ALL & ~OPS_TIMER,
		.family = DF_TIMER, .render = stat_timer_render,
		.fields = stat_timer_fields, .nfields = TIMER_NFIELDS,
		.field_values = stat_timer_field_values,
		.reset = stat_timer_reset, .merge = stat_timer_merge,
		.check = stat_timer_check, .event = stat_timer_event,
	},
	[VS_STYPE_DEFN] = {
		.name = "DEFN",
		.specs = (const struct kind_spec[]){
		    { "DEFN", KP(UNITS), stat_defn_build } }, .nspecs = 1,
		.alone = true,
		.describe = stat_defn_describe,
		.desc = "Run-time definition of a Linux statistic",
		.fold = FOLD_ALL & ~OPS_XY,
		.family = DF_DEFN, .render = stat_defn_render,
		.reset = stat_defn_reset, .merge = stat_defn_merge,
		.check = stat_defn_check, .stamp = stat_defn_stamp,
	},
};

int
kind_spec_find(const char *name, const struct kind_spec **ret)
{
	int s;
	uint8_t i;

	for (s = 1; name != NULL && s < VS_NUM_STYPES; s++)
		for (i = 0; i < stype_ops[s].nspecs; i++)
			if (strcmp(stype_ops[s].specs[i].name, name) == 0) {
				*ret = &stype_ops[s].specs[i];
				return s;
			}
	return -1;
}

int
kind_render(struct sbuf *buf, const struct voistatdata *vsd,
    enum vsd_dtype voi_dtype, enum vsd_dtype vs_dtype, uint16_t dsz,
    enum sb_str_fmt fmt, bool objdump)
{
	struct voistatdata_numeric n;
	uint8_t family;
	int s;

	if (buf == NULL || vsd == NULL || vs_dtype < 0 ||
	    vs_dtype >= VSD_NUM_DTYPES || fmt < 0 || fmt >= SB_STRFMT_NUM_FMTS)
		return EINVAL;
	family = dtype_info[vs_dtype].family;
	switch (family) {
	case DF_VOISTATE:
		if (!dtype_is_scalar(voi_dtype))
			voi_dtype = VSD_DTYPE_INT_S64;
		if (fmt != SB_STRFMT_JSON) {
			sbuf_cat(buf, "prev=");
			return numeric_format(buf, voi_dtype,
			    &vsd->voistate.prev);
		}
		sbuf_cat(buf, "\"prev\":");
		return numeric_format_json(buf, voi_dtype,
		    &vsd->voistate.prev);
	case DF_SCALAR:
		numeric_load(vs_dtype, vsd, &n);
		return fmt == SB_STRFMT_JSON ? numeric_format_json(buf,
		    vs_dtype, &n) : numeric_format(buf, vs_dtype, &n);
	default:
		/* The kind whose own data this is. */
		for (s = 1; s < VS_NUM_STYPES; s++)
			if (stype_ops[s].family == family &&
			    stype_ops[s].render != NULL)
				return stype_ops[s].render(buf, vsd, dsz,
				    vs_dtype, voi_dtype, fmt, objdump);
		return EINVAL;
	}
}
