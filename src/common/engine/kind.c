/*
 * kind.c: the statistic-type table, and the one place that renders a
 * statistic's data by its family.
 */
#include <errno.h>

#include "hist.h"
#include "kind.h"
#include "kstat2_hist.h"
#include "numeric.h"
#include "stat_defn.h"
#include "stat_history.h"
#include "stat_ioq.h"
#include "stat_list.h"
#include "stat_raw.h"
#include "stat_scalar.h"
#include "stat_timer.h"
#include "tdgst_stat.h"

_Static_assert(K2HIST_VSS_FLAGS == VS_ALWAYSVALID, "kstat2 histogram flags");

const struct stype_ops stype_ops[VS_NUM_STYPES] = {
	[VS_STYPE_VOISTATE] = {
		.name = "VOISTATE",
		.desc = "VOI related state data (not a real stat)",
	},
	[VS_STYPE_SUM] = {
		.name = "SUM",
		.fields = (const struct stat_field[]){
		    { "sum", FIELD_COUNTER_IF_UNSIGNED, false, "", false } },
		.nfields = 1,
		.desc = "Simple arithmetic accumulator",
		.update = numeric_sum_update, .reset = numeric_sum_reset,
		.merge = numeric_sum_merge, .check = numeric_check,
		.event = stat_sum_event,
	},
	[VS_STYPE_MAX] = {
		.name = "MAX",
		.fields = (const struct stat_field[]){
		    { "max", FIELD_GAUGE, false, "", false } },
		.nfields = 1,
		.desc = "Maximum observed VOI value",
		.update = numeric_max_update, .reset = numeric_max_reset,
		.merge = numeric_max_merge, .check = numeric_check,
	},
	[VS_STYPE_MIN] = {
		.name = "MIN",
		.fields = (const struct stat_field[]){
		    { "min", FIELD_GAUGE, false, "", false } },
		.nfields = 1,
		.desc = "Minimum observed VOI value",
		.update = numeric_min_update, .reset = numeric_min_reset,
		.merge = numeric_min_merge, .check = numeric_check,
	},
	[VS_STYPE_HIST] = {
		.name = "HIST",
		.desc = "Static bucket histogram of VOI values",
		.fields = k2hist_fields, .nfields = K2HIST_NFIELDS,
		.update = hist_update, .reset = hist_reset,
		.merge = hist_merge, .check = hist_check,
		.quantile = hist_quantile, .cdf = hist_cdf,
	},
	[VS_STYPE_TDGST] = {
		.name = "TDGST",
		.desc = "t-digest of VOI values",
		.update = tdgst_stat_update, .reset = tdgst_stat_reset,
		.merge = tdgst_stat_merge, .check = tdgst_stat_check,
		.quantile = tdgst_stat_quantile, .cdf = tdgst_stat_cdf,
	},
	[VS_STYPE_COUNT] = {
		.name = "COUNT",
		.fields = (const struct stat_field[]){
		    { "count", FIELD_COUNTER, false, "", false } },
		.nfields = 1,
		.desc = "Sum of update weights",
		.update = stat_count_update, .reset = numeric_sum_reset,
		.merge = numeric_sum_merge, .check = numeric_check,
	},
	[VS_STYPE_LAST] = {
		.name = "LAST",
		.fields = (const struct stat_field[]){
		    { "last", FIELD_GAUGE, false, "", false } },
		.nfields = 1,
		.desc = "Last value set or updated (kstat named value)",
		.update = stat_last_update, .reset = stat_last_reset,
		.merge = stat_last_merge, .check = stat_last_check,
		.event = stat_last_event,
	},
	[VS_STYPE_LIST] = {
		.name = "LIST",
		.desc = "Sum of weights per distinct VOI value",
		.update = stat_list_update, .reset = stat_list_reset,
		.merge = stat_list_merge, .check = stat_list_check,
	},
	[VS_STYPE_HISTORY] = {
		.name = "HISTORY",
		.desc = "Per-period count, sum or range, as a ring",
		.reset = stat_history_reset, .merge = stat_history_merge,
		.check = stat_history_check, .event = stat_history_event,
	},
	[VS_STYPE_RAW] = {
		.name = "RAW",
		.desc = "Ring of timestamped (X, Y) updates",
		.reset = stat_raw_reset, .merge = stat_raw_merge,
		.check = stat_raw_check, .event = stat_raw_event,
	},
	[VS_STYPE_IOQ] = {
		.name = "IOQ",
		.desc = "I/O counters and wait/run queue Riemann sums",
		.fields = stat_ioq_fields, .nfields = IOQ_NFIELDS,
		.field_values = stat_ioq_field_values,
		.update = stat_ioq_update, .reset = stat_ioq_reset,
		.merge = stat_ioq_merge, .check = stat_ioq_check,
		.event = stat_ioq_event,
	},
	[VS_STYPE_TIMER] = {
		.name = "TIMER",
		.desc = "Event count and durations from start/stop events",
		.fields = stat_timer_fields, .nfields = TIMER_NFIELDS,
		.field_values = stat_timer_field_values,
		.reset = stat_timer_reset, .merge = stat_timer_merge,
		.check = stat_timer_check, .event = stat_timer_event,
	},
	[VS_STYPE_DEFN] = {
		.name = "DEFN",
		.desc = "Run-time definition of a Linux statistic",
		.reset = stat_defn_reset, .merge = stat_defn_merge,
		.check = stat_defn_check,
	},
};

int
kind_render(struct sbuf *buf, const struct voistatdata *vsd,
    enum vsd_dtype voi_dtype, enum vsd_dtype vs_dtype, uint16_t dsz,
    enum sb_str_fmt fmt, bool objdump)
{
	if (buf == NULL || vsd == NULL || vs_dtype < 0 ||
	    vs_dtype >= VSD_NUM_DTYPES || fmt < 0 || fmt >= SB_STRFMT_NUM_FMTS)
		return EINVAL;
	switch (dtype_info[vs_dtype].family) {
	case DF_VOISTATE:
		if (!dtype_is_scalar(voi_dtype))
			voi_dtype = VSD_DTYPE_INT_S64;
		sbuf_cat(buf, fmt == SB_STRFMT_JSON ? "\"prev\":" : "prev=");
		return numeric_format(buf, voi_dtype, &vsd->voistate.prev);
	case DF_SCALAR: {
		struct voistatdata_numeric n;

		numeric_load(vs_dtype, vsd, &n);
		return numeric_format(buf, vs_dtype, &n);
	}
	case DF_HIST:
		return hist_render(buf, vsd, vs_dtype, fmt, objdump);
	case DF_TDGST:
		return tdgst_stat_render(buf, vsd, dsz, vs_dtype, fmt, objdump);
	case DF_LIST:
		return stat_list_render(buf, vsd, voi_dtype, fmt);
	case DF_HISTORY:
		return stat_history_render(buf, vsd, fmt);
	case DF_RAW:
		return stat_raw_render(buf, vsd, fmt);
	case DF_IOQ:
		return stat_ioq_render(buf, vsd, fmt);
	case DF_TIMER:
		return stat_timer_render(buf, vsd, fmt);
	case DF_STRING:
		return stat_string_render(buf, vsd, fmt);
	case DF_DEFN:
		return stat_defn_render(buf, vsd, fmt);
	default:
		return EINVAL;
	}
}
