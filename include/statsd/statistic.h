/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * statistic.h: the exploiter API of the Linux statistics infrastructure
 * (the s390 proposal, revision 1.5), in user space over statsd.
 *
 * An interface is a kstat, linux:0:<interface name> of class "linux";
 * each statistic is one of its VOIs, carrying its run-time definition
 * (type, range, on/off, ...). Exploiters report (X, Y) pairs with
 * statistic_add() and statistic_inc(): each is a record on the calling
 * thread's update ring — no lock, no system call, never blocking, never
 * failing. Users read the data and change the definitions with statsctl
 * (the Linux data and definition lines), as they would the debugfs files.
 *
 * Statistics are created off, as value/increments over the widest range.
 * The calls that define, start, stop or reset talk to statsd and may block
 * for a round trip; so does creating or removing a statistic of an
 * interface statsd already has, which lays the kstat out again in place:
 * the interface's other statistics keep their data and definitions, and
 * readers see the interface before or after, never half-way. All use
 * stats_client_default().
 *
 * The calls are thread-safe; an update must not race with removing its
 * statistic.
 */
#ifndef STATSD_STATISTIC_H
#define STATSD_STATISTIC_H

#include <stdint.h>

#ifndef STATS_API
#define STATS_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define STATISTIC_NAME_SIZE	64	/* names and units: 63 characters */

/* The widest range, a new statistic's. */
#define STATISTIC_RANGE_MIN	(-0x7fffffffffffffffLL)
#define STATISTIC_RANGE_MAX	0x7ffffffffffffffeLL

/* Modes of value and history statistics. */
#define STATISTIC_DEF_MODE_INC		0	/* total of Y */
#define STATISTIC_DEF_MODE_PROD		1	/* total of X*Y */
#define STATISTIC_DEF_MODE_RANGE	2	/* history: num/min/avg/max */

/* Scales of array statistics. */
#define STATISTIC_DEF_SCALE_LIN		0
#define STATISTIC_DEF_SCALE_LOG2	1

/* What statistic_start() and statistic_stop() return. */
#define STATISTIC_DEF_OFF	0
#define STATISTIC_DEF_ON	1

struct statistic_interface;
struct statistic;

/*
 * statistic_create_interface: a new interface named name (1 to 30
 * printable characters, no ':' — a kstat name). *iface must be NULL.
 * statsd sees it once a statistic of it is defined or started.
 * Returns: 0 and *iface; -EINVAL (*iface set, bad name); -ENAMETOOLONG;
 * -ENOMEM.
 */
STATS_API int statistic_create_interface(struct statistic_interface **iface,
    const char *name);

/*
 * statistic_interface_remove: remove the interface, its statistics and its
 * kstat, and set *iface to NULL.
 * Returns: 0; -EINVAL if *iface is NULL; -errno of statsd's delete (the
 * interface is freed anyway).
 */
STATS_API int statistic_interface_remove(struct statistic_interface **iface);

/*
 * statistic_create: a new statistic named name (1 to 63 of
 * [A-Za-z0-9_.=/-], unique in the interface) whose (X, Y) mean units (at
 * most 63 printable characters without blanks, "unit1/unit2"; NULL: none).
 * *stat must be NULL. Appended to the interface, which fixes its output
 * order.
 * A statistic created on an interface statsd already has is attached to
 * it live: the others keep their data. Its id in the kstat (its VOI) is
 * never one of a statistic removed before, so an update of that one still
 * on its way is dropped, not counted in the new one; an interface takes
 * 32768 statistics over its life.
 * Returns: 0 and *stat; -EINVAL; -EEXIST (the name is taken); -ENOMEM;
 * -ENOSPC (the interface's ids are used up); -errno of statsd if it
 * refused the new layout (then nothing is created).
 */
STATS_API int statistic_create(struct statistic **stat,
    struct statistic_interface *iface, const char *name, const char *units);

/*
 * statistic_remove: remove a statistic and set *stat to NULL; the
 * interface's other statistics keep their data.
 * Returns: 0; -EINVAL if *stat is NULL; -errno of statsd.
 */
STATS_API int statistic_remove(struct statistic **stat);

/*
 * Definitions. Each resets the statistic's data and keeps it on or off.
 * range_min..range_max (inclusive) are the X values it takes; others count
 * as hits out of range (an array takes them in its edge intervals).
 *
 * statistic_define_value: total of Y (mode STATISTIC_DEF_MODE_INC) or of
 *   X*Y (STATISTIC_DEF_MODE_PROD).
 * statistic_define_range: number, minimum, average and maximum.
 * statistic_define_array: a histogram of intervals base_interval wide
 *   (STATISTIC_DEF_SCALE_LIN) or growing as powers of 2 (_LOG2).
 * statistic_define_list: totals of Y for up to entries_max distinct X.
 * statistic_define_raw: the last entries_max (time, serial, X, Y).
 * statistic_define_history: entries_max periods of period microseconds,
 *   each a value (mode INC or PROD) or a range (mode RANGE).
 *
 * Returns: 0; -EINVAL for a bad argument or one statsd refuses (the
 * reason is in stats_client_strerror()); -ENOTCONN; -errno.
 */
STATS_API int statistic_define_value(struct statistic *stat,
    int64_t range_min, int64_t range_max, int mode);
STATS_API int statistic_define_range(struct statistic *stat,
    int64_t range_min, int64_t range_max);
STATS_API int statistic_define_array(struct statistic *stat,
    int64_t range_min, int64_t range_max, uint32_t base_interval,
    uint8_t scale);
STATS_API int statistic_define_list(struct statistic *stat,
    int64_t range_min, int64_t range_max, uint32_t entries_max);
STATS_API int statistic_define_raw(struct statistic *stat,
    int64_t range_min, int64_t range_max, uint32_t entries_max);
STATS_API int statistic_define_history(struct statistic *stat,
    int64_t range_min, int64_t range_max, uint32_t entries_max,
    uint64_t period, int mode);

/*
 * statistic_start, statistic_stop: turn data gathering on or off.
 * Returns: the previous state (STATISTIC_DEF_ON or STATISTIC_DEF_OFF);
 * -EINVAL; -ENOTCONN; -errno.
 */
STATS_API int statistic_start(struct statistic *stat);
STATS_API int statistic_stop(struct statistic *stat);

/*
 * statistic_reset: discard the statistic's data.
 * Returns: 0; -EINVAL; -ENOTCONN; -errno.
 */
STATS_API int statistic_reset(struct statistic *stat);

/*
 * statistic_add: report (x, y). statistic_inc: report (x, 1). The _nolock
 * forms are the same calls (nothing here locks).
 * Returns: 0 always. (In the kernel these returned the statistic's new
 * total; in statsd the update is applied later, by the daemon.)
 */
STATS_API uint64_t statistic_add(struct statistic *stat, int64_t x,
    uint64_t y);
STATS_API uint64_t statistic_inc(struct statistic *stat, int64_t x);
STATS_API uint64_t statistic_add_nolock(struct statistic *stat, int64_t x,
    uint64_t y);
STATS_API uint64_t statistic_inc_nolock(struct statistic *stat, int64_t x);

#ifdef __cplusplus
}
#endif

#endif /* STATSD_STATISTIC_H */
