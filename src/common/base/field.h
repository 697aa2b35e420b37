/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * field.h: one flat field of a statistic kind — a scalar that flat views
 * (illumos kstat(1M)'s lines, the libkstat consumer API, the JSON scrape,
 * the Prometheus exposition) name "<voi>.<suffix>" — and what kind of
 * number it is. Each kind lists its fields in the kind table (kind.h);
 * readers take a field's meaning from there, never from its name.
 */
#ifndef STATSD_FIELD_H
#define STATSD_FIELD_H

#include <stdbool.h>
#include <stdint.h>

/*
 * A counter only grows, until a reset (readers take per-second rates of
 * it; the exposition calls it a counter); a gauge is a level that may go
 * either way (a minimum, a last value, a queue length, a time stamp).
 */
enum field_sem {
	FIELD_GAUGE = 0,
	FIELD_COUNTER,
	/*
	 * A SUM: Σ X·Y grows only when no X can be negative, that is when
	 * the VOI's type is unsigned (weights Y are ≥ 1, and a relative
	 * update's X is the new absolute value). On a signed VOI it is a
	 * gauge. (A SET, a kstat_named value written over, may lower it:
	 * rates read that as a reset.)
	 */
	FIELD_COUNTER_IF_UNSIGNED,
};

struct stat_field {
	const char	*suffix;	/* "sum", "nread": the flat name's tail */
	uint8_t		 sem;		/* enum field_sem */
	bool		 is_signed;	/* a time: printed as a signed number */
	const char	*unit;		/* "bytes", "ns"; "" for the VOI's own */
	bool		 narrow;	/* a 32-bit value (an enum) */
};

/* Is a field of a statistic of a VOI of that signedness a counter? */
static inline bool
field_is_counter(const struct stat_field *f, bool voi_signed)
{
	return f->sem == FIELD_COUNTER ||
	    (f->sem == FIELD_COUNTER_IF_UNSIGNED && !voi_signed);
}

#endif /* STATSD_FIELD_H */
