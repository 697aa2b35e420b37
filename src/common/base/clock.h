/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * clock.h: the one clock of statsd, its library and its tools:
 * CLOCK_MONOTONIC in nanoseconds, the time base of every update, kstat
 * time (crtime, snaptime, hrtime_t as on illumos), ring record and
 * time-out. Inline, so that the client library and statsctl share it
 * without linking the engine. Two other clocks are read in nanoseconds
 * the same way: the wall clock, for birth stamps that must tell a file or
 * a ring made before a reboot from one made after, and a thread's CPU
 * time, for the drain's own cost.
 */
#ifndef STATSD_CLOCK_H
#define STATSD_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Clock id in nanoseconds. */
static inline uint64_t
clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t
clock_now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

#endif /* STATSD_CLOCK_H */
