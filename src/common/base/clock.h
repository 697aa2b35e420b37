/*
 * clock.h: the one clock of statsd, its library and its tools:
 * CLOCK_MONOTONIC in nanoseconds, the time base of every update, kstat
 * time (crtime, snaptime, hrtime_t as on illumos), ring record and
 * time-out. Inline, so that the client library and statsctl share it
 * without linking the engine.
 */
#ifndef STATSD_CLOCK_H
#define STATSD_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t
clock_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif /* STATSD_CLOCK_H */
