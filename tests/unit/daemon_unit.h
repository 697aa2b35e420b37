/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * daemon_unit.h: what the suites of statsd's persistence modules share:
 * a scratch directory, and a real blob to keep in it.
 */
#ifndef STATSD_TESTS_DAEMON_UNIT_H
#define STATSD_TESTS_DAEMON_UNIT_H

#include <stdlib.h>

#include "unit.h"

/* A fresh directory under /tmp (left for the system to clean). */
static inline char *
unit_tmpdir(void)
{
	char *d = strdup("/tmp/statsd-unit-XXXXXX");

	ck_assert_ptr_nonnull(d);
	ck_assert_ptr_nonnull(mkdtemp(d));
	return d;
}

/* A blob of a template of two VOIs (a SUM and a MIN each), with data. */
static inline struct statsblob *
unit_blob(const char *tplname)
{
	int tpl = unit_tpl(tplname);
	struct statsblob *sb;

	UNIT_ADD(tpl, 0, "a", VSD_DTYPE_INT_U64, 0, STATS_VSS_SUM(),
	    STATS_VSS_MIN());
	UNIT_ADD(tpl, 1, "b", VSD_DTYPE_INT_U64, 0, STATS_VSS_SUM(),
	    STATS_VSS_MIN());
	sb = stats_blob_alloc((uint32_t)tpl, 0);
	ck_assert_ptr_nonnull(sb);
	ck_assert_int_eq(stats_voi_update_abs_u64(sb, 0, 5), 0);
	ck_assert_int_eq(stats_voi_update_abs_u64(sb, 1, 7), 0);
	return sb;
}

#endif
