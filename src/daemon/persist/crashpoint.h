/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * crashpoint.h: named failure points for the crash tests. Each durable
 * step (a ring's run applied and counted, a state-log record half
 * written, a batch's files made but its record not yet) calls
 * crashpoint() with its name; a statsd started with
 * STATSD_TEST_CRASH_AT=<name>[:<n>] exits with _exit(CRASHPOINT_EXIT) the
 * n-th time (default 1) it reaches that point, as a kill -9 there would
 * leave it: nothing flushed, no handler run. Tests then check what a
 * restart makes of it, at that exact step rather than wherever a random
 * kill happens to land. The points and what a crash at each leaves are
 * listed in docs/durability.md.
 *
 * Unset (always, outside tests), a point costs one load and a branch.
 */
#ifndef STATSD_DAEMON_CRASHPOINT_H
#define STATSD_DAEMON_CRASHPOINT_H

#include <stdbool.h>

/* The exit status of a crash point reached (sysexits' EX_SOFTWARE + 16,
 * a number nothing else in statsd exits with). */
#define CRASHPOINT_EXIT	86

/* The point armed, or NULL. */
extern const char *crashpoint_armed;

/* Read STATSD_TEST_CRASH_AT and STATSD_TEST_FAIL_AT (once, at start,
 * before any thread; logged when set). */
void crashpoint_init(void);

/* The armed point's name matched: count it, exit if it is the n-th. */
void crashpoint_reached(const char *name);

static inline void
crashpoint(const char *name)
{
	if (__builtin_expect(crashpoint_armed != NULL, 0))
		crashpoint_reached(name);
}

/*
 * Failure points, the same way: with STATSD_TEST_FAIL_AT=<name>[:<n>],
 * crashpoint_fail(name) is true the n-th time it is asked (once), and the
 * caller fails as the system call it stands for would, as a disk that
 * reports a write error: the persistence thread's steps ("sync" a log
 * sync, "compact.sync", "compact.rename", "compact.dirsync" a
 * compaction's end, "open.sync" a new log's head); and the reader
 * thread's "reader.stall", which holds its n-th page 1.5 s, as a thread
 * the scheduler keeps off the CPU would, and "reader.decline", which has
 * the loop render its n-th Read or Snapshot (as when the thread's view
 * lacks the kstat), for tests to compare the two.
 */
extern const char *crashpoint_fail_armed;
bool crashpoint_fail_reached(const char *name);

static inline bool
crashpoint_fail(const char *name)
{
	return __builtin_expect(crashpoint_fail_armed != NULL, 0) &&
	    crashpoint_fail_reached(name);
}

#endif
