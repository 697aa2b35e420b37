/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * spill_tpl.h: the template of the spill fuzzer's kstats, shared with the
 * seed generator so that the seeds' blobs are laid out as the fuzzer's
 * kstats are (and so reach the merges): a VOI of every statistic kind.
 */
#ifndef STATSD_FUZZ_SPILL_TPL_H
#define STATSD_FUZZ_SPILL_TPL_H

#include <statsd/stats.h>

#include "stat_history.h"
#include "stat_ioq.h"
#include "stat_list.h"
#include "stat_raw.h"
#include "stat_scalar.h"
#include "stat_timer.h"

#define FUZZ_SPILL_NVOIS	10

/* Returns: the template's id, or -1. */
static inline int
fuzz_spill_tpl(void)
{
	struct voistatspec sum[] = { STATS_VSS_SUM(), STATS_VSS_MIN(),
	    STATS_VSS_MAX(), STATS_VSS(VS_STYPE_COUNT, 0, 0,
	    stats_vss_count_hlpr, NULL) };
	struct voistatspec hist[] = { STATS_VSS_CRHIST64_LIN(0, 1000, 100, 0),
	    STATS_VSS_SUM() };
	struct voistatspec td[] = { STATS_VSS_TDGSTCLUST64(20, 4) };
	struct voistatspec last[] = { STATS_VSS(VS_STYPE_LAST, 0, 0,
	    stats_vss_last_hlpr, NULL) };
	struct voistatspec list[] = { STATS_VSS(VS_STYPE_LIST, 0, 0,
	    stat_list_vss_hlpr, (&(struct vss_list_hlpr_info){ 4 })) };
	struct voistatspec history[] = { STATS_VSS(VS_STYPE_HISTORY, 0, 0,
	    stat_history_vss_hlpr,
	    (&(struct vss_history_hlpr_info){ 4, HISTORY_RANGE, 50 })) };
	struct voistatspec raw[] = { STATS_VSS(VS_STYPE_RAW, 0, 0,
	    stat_raw_vss_hlpr, (&(struct vss_raw_hlpr_info){ 4 })) };
	struct voistatspec ioq[] = { STATS_VSS(VS_STYPE_IOQ, 0, 0,
	    stat_ioq_vss_hlpr, NULL) };
	struct voistatspec timer[] = { STATS_VSS(VS_STYPE_TIMER, 0, 0,
	    stat_timer_vss_hlpr, NULL) };
	struct voistatspec rel[] = { STATS_VSS_SUM(), STATS_VSS_MAX() };
	int tpl = stats_tpl_alloc("fuzz_spill", 0);

	if (tpl < 0 ||
	    stats_tpl_add_voistats((uint32_t)tpl, 0, "sum", VSD_DTYPE_INT_U64,
	    NVSS(sum), sum, 0) != 0 ||
	    stats_tpl_add_voistats((uint32_t)tpl, 1, "hist", VSD_DTYPE_INT_S64,
	    NVSS(hist), hist, 0) != 0 ||
	    stats_tpl_add_voistats((uint32_t)tpl, 2, "td", VSD_DTYPE_INT_U64,
	    NVSS(td), td, 0) != 0 ||
	    stats_tpl_add_voistats((uint32_t)tpl, 3, "last", VSD_DTYPE_INT_S64,
	    NVSS(last), last, 0) != 0 ||
	    stats_tpl_add_voistats((uint32_t)tpl, 4, "list", VSD_DTYPE_INT_S64,
	    NVSS(list), list, 0) != 0 ||
	    stats_tpl_add_voistats((uint32_t)tpl, 5, "history",
	    VSD_DTYPE_INT_S64, NVSS(history), history, 0) != 0 ||
	    stats_tpl_add_voistats((uint32_t)tpl, 6, "raw", VSD_DTYPE_INT_S64,
	    NVSS(raw), raw, 0) != 0 ||
	    stats_tpl_add_voistats((uint32_t)tpl, 7, "ioq", VSD_DTYPE_INT_S64,
	    NVSS(ioq), ioq, 0) != 0 ||
	    stats_tpl_add_voistats((uint32_t)tpl, 8, "timer",
	    VSD_DTYPE_INT_S64, NVSS(timer), timer, 0) != 0 ||
	    stats_tpl_add_voistats((uint32_t)tpl, 9, "rel", VSD_DTYPE_INT_S64,
	    NVSS(rel), rel, SB_VOI_RELUPDATE) != 0)
		return -1;
	return tpl;
}

#endif
