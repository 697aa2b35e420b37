/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * synopsis.c: a program written from the stats(3) SYNOPSIS alone, built by
 * tests/build/pkgconfig.sh with `cc prog.c $(pkg-config --cflags --libs
 * libstatsclient)` against the uninstalled library. It prints what it
 * sees; the script compares that with what the page says.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <statsd/stats.h>

enum { VOI_BYTES = 0, VOI_RTT = 2 };

int
main(void)
{
	struct voistatspec bytes[] = { STATS_VSS_SUM(), STATS_VSS_MAX() };
	struct voistatspec rtt[] = {
		STATS_VSS_MIN(),
		STATS_VSS_CRHIST32_LIN(0, 100, 10, 0),
	};
	struct statsblob *sb, *snap = NULL;
	struct sbuf *buf;
	char name[16];
	uint64_t sum;
	uint32_t min;
	int id, error;

	id = stats_tpl_alloc("SYNOPSIS", 0);
	if (id < 0)
		return 1;
	printf("dup %d\n", stats_tpl_alloc("SYNOPSIS", 0) == -EEXIST);
	error = stats_tpl_add_voistats(id, VOI_BYTES, "bytes",
	    VSD_DTYPE_INT_U64, NVSS(bytes), bytes, 0);
	error |= stats_tpl_add_voistats(id, VOI_RTT, "rtt", VSD_DTYPE_INT_U32,
	    NVSS(rtt), rtt, SB_VOI_RELUPDATE);
	if (error != 0)
		return 2;
	sb = stats_blob_alloc(id, 0);
	if (sb == NULL)
		return 3;
	stats_voi_update_abs_u64(sb, VOI_BYTES, 100);
	stats_voi_update_abs_u64(sb, VOI_BYTES, 250);
	stats_voi_update_abs_u32(sb, VOI_RTT, 40);
	stats_voi_update_rel_u32(sb, VOI_RTT, -25);	/* 15 */
	printf("rel on abs-only VOI %d\n",
	    stats_voi_update_rel_u64(sb, VOI_BYTES, 1) == EINVAL);
	stats_voistat_fetch_u64(sb, VOI_BYTES, VS_STYPE_SUM, &sum);
	stats_voistat_fetch_u32(sb, VOI_RTT, VS_STYPE_MIN, &min);
	printf("sum %ju min %u\n", (uintmax_t)sum, min);
	printf("eftype %d\n",
	    stats_voistat_fetch_u32(sb, VOI_BYTES, VS_STYPE_SUM, &min) ==
	    EFTYPE);
	stats_tpl_id2name(id, name, sizeof(name));
	printf("name %s\n", name);
	error = stats_blob_snapshot(&snap, 0, sb,
	    SB_CLONE_ALLOCDST | SB_CLONE_RSTSRC);
	printf("snapshot %d\n", error);
	buf = sbuf_new_auto();
	stats_blob_tostr(snap, buf, SB_STRFMT_JSON, SB_TOSTR_META);
	sbuf_finish(buf);
	printf("%s\n", sbuf_data(buf));
	sbuf_delete(buf);
	stats_voistat_fetch_u64(sb, VOI_BYTES, VS_STYPE_SUM, &sum);
	printf("after reset %ju\n", (uintmax_t)sum);
	stats_blob_destroy(snap);
	stats_blob_destroy(sb);
	return 0;
}
