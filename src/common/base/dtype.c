/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dtype.c: the data-type table (see dtype.h).
 */
#include <string.h>

#include "dtype.h"

#define SCALAR(nm, sz, sgn, q)	{ nm, sz, sz, DF_SCALAR, sgn, q }
/*
 * Every other type's data is sized by its statistic kind (a histogram by
 * its buckets, a list by entries_max); the table gives its alignment.
 */
#define OTHER(nm, fam)		{ nm, 8, 8, fam, false, false }

const struct dtype_info dtype_info[VSD_NUM_DTYPES] = {
	[VSD_DTYPE_VOISTATE]	= { "VOISTATE", 8, 8, DF_VOISTATE, false, false },
	[VSD_DTYPE_INT_S32]	= SCALAR("INT_S32", 4, true, false),
	[VSD_DTYPE_INT_U32]	= SCALAR("INT_U32", 4, false, false),
	[VSD_DTYPE_INT_S64]	= SCALAR("INT_S64", 8, true, false),
	[VSD_DTYPE_INT_U64]	= SCALAR("INT_U64", 8, false, false),
	[VSD_DTYPE_INT_SLONG]	= SCALAR("INT_SLONG", sizeof(long), true, false),
	[VSD_DTYPE_INT_ULONG]	= SCALAR("INT_ULONG", sizeof(long), false, false),
	[VSD_DTYPE_Q_S32]	= SCALAR("Q_S32", 4, true, true),
	[VSD_DTYPE_Q_U32]	= SCALAR("Q_U32", 4, false, true),
	[VSD_DTYPE_Q_S64]	= SCALAR("Q_S64", 8, true, true),
	[VSD_DTYPE_Q_U64]	= SCALAR("Q_U64", 8, false, true),
	[VSD_DTYPE_CRHIST32]	= OTHER("CRHIST32", DF_HIST),
	[VSD_DTYPE_DRHIST32]	= OTHER("DRHIST32", DF_HIST),
	[VSD_DTYPE_DVHIST32]	= OTHER("DVHIST32", DF_HIST),
	[VSD_DTYPE_CRHIST64]	= OTHER("CRHIST64", DF_HIST),
	[VSD_DTYPE_DRHIST64]	= OTHER("DRHIST64", DF_HIST),
	[VSD_DTYPE_DVHIST64]	= OTHER("DVHIST64", DF_HIST),
	[VSD_DTYPE_TDGSTCLUST32] = OTHER("TDGSTCLUST32", DF_TDGST),
	[VSD_DTYPE_TDGSTCLUST64] = OTHER("TDGSTCLUST64", DF_TDGST),
	[VSD_DTYPE_LIST]	= OTHER("LIST", DF_LIST),
	[VSD_DTYPE_HISTORY]	= OTHER("HISTORY", DF_HISTORY),
	[VSD_DTYPE_RAW]		= OTHER("RAW", DF_RAW),
	[VSD_DTYPE_IOQ]		= OTHER("IOQ", DF_IOQ),
	[VSD_DTYPE_TIMER]	= OTHER("TIMER", DF_TIMER),
	[VSD_DTYPE_STRING]	= OTHER("STRING", DF_STRING),
	[VSD_DTYPE_DEFN]	= OTHER("DEFN", DF_DEFN),
};

int
dtype_from_name(const char *name)
{
	int d;

	for (d = 1; name != NULL && d < VSD_NUM_DTYPES; d++)
		if (dtype_info[d].name != NULL &&
		    strcmp(dtype_info[d].name, name) == 0)
			return d;
	return -1;
}
