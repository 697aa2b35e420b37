/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kstat_data.h: turning a kstat's blob into the records libkstat consumers
 * read (kstat_data.c).
 */
#ifndef STATSD_CLIENT_KSTAT_DATA_H
#define STATSD_CLIENT_KSTAT_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <statsd/kstat.h>
#include <statsd/stats.h>

#include "kstat2_hist.h"

/* The converted data: one allocation (free() it); strings of NAMED values
 * are packed after the array and pointed to from it. */
struct kd_out {
	void		*data;
	unsigned	 ndata;
	size_t		 size;
	uint8_t		 type;		/* the KSTAT_TYPE_* consumers see */
	bool		 longstrings;	/* has KSTAT_DATA_STRING values */
};

/*
 * kd_convert: the data of a kstat of statsd type type (KSTAT_TYPE_*;
 * HIST and BLOB show as NAMED), header ndata (a RAW kstat's bytes) and
 * kstat2 content type and scale (shown by a kstat2 histogram that has
 * them, as its "content" and "scale"), from its validated blob
 * sb, its VOI names (names[id], nnames of them; missing ones read
 * "voi<id>"), what its kstat2 histograms were made with (k2[id], nnames
 * of them, or NULL) and its snapshot time (IO integrals are carried up to
 * it). A kstat2 histogram's bucket counts are a KSTAT_DATA_UINT64_ARRAY.
 * Returns: 0 and *out; -ENOMEM.
 */
int kd_convert(uint8_t type, uint32_t hdr_ndata, uint8_t content,
    uint64_t scale, const struct statsblob *sb,
    const char *const *names, const struct k2hist_params *k2,
    uint16_t nnames, hrtime_t snaptime, struct kd_out *out);

#endif
