/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dtype.h: the data types a statistic's data is kept in (enum vsd_dtype),
 * described once as data: each type's name, the size and alignment of its
 * values, and the family of statistics whose data it is. The statistic
 * kinds compute in these types and the engine lays blobs out by them, so
 * the table sits below both.
 *
 * Also the bounds every statistic's data lives within: a blob addresses
 * everything in it with 16-bit offsets (FreeBSD stats(3)'s V1 format,
 * drawn in blob.h), so no data is larger than a blob can hold.
 */
#ifndef STATSD_DTYPE_H
#define STATSD_DTYPE_H

#include <stdbool.h>
#include <stdint.h>

#include <statsd/stats.h>

#define SB_V1_MAXSZ	65535
#define SB_V1_HDRSZ	32

/*
 * The most bytes one list or ring statistic may take: a blob's 65535 less
 * room for the blob header, its VOI and that VOI's other statistics. The
 * entries_max bounds of LIST, HISTORY and RAW derive from it.
 */
#define STAT_ROOM	(SB_V1_MAXSZ - 1024u)

enum dtype_family {
	DF_NONE = 0,
	DF_VOISTATE,
	DF_SCALAR,
	DF_HIST,
	DF_TDGST,
	DF_LIST,		/* stat_list.c */
	DF_HISTORY,		/* stat_history.c */
	DF_RAW,			/* stat_raw.c */
	DF_IOQ,			/* stat_ioq.c */
	DF_TIMER,		/* stat_timer.c */
	DF_STRING,		/* stat_scalar.c */
	DF_DEFN,		/* stat_defn.c */
};

struct dtype_info {
	const char		*name;		/* "INT_U64" */
	uint16_t		 size;		/* scalars, VOISTATE: value size;
						   else 8 (each kind sizes its
						   own data) */
	uint8_t			 align;		/* alignment of the data */
	uint8_t			 family;	/* enum dtype_family */
	bool			 is_signed;	/* scalars: signed comparison */
	bool			 is_q;		/* scalars: fixed point */
};

extern const struct dtype_info dtype_info[VSD_NUM_DTYPES];

static inline bool
dtype_valid(int dtype)
{
	return dtype > 0 && dtype < VSD_NUM_DTYPES;
}

/* The type named name ("INT_U64", as dtype_info names them). Returns: it;
 * -1 for no such name. */
int dtype_from_name(const char *name);

static inline bool
dtype_is_scalar(int dtype)
{
	return dtype_valid(dtype) && dtype_info[dtype].family == DF_SCALAR;
}

#endif /* STATSD_DTYPE_H */
