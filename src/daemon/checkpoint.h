/*
 * checkpoint.h: the checkpoint, <state>/statsd.checkpoint, and how
 * PERSISTENT kstats come back at start.
 *
 * What survives a restart and a kill -9 lives in three places with two
 * lifetimes: each PERSISTENT kstat's runtime file (mirror.h) and the ring
 * journal (journal.h) in the runtime directory, which a kill -9 leaves
 * and a reboot clears; and the checkpoint in the state directory, which
 * outlives a reboot. The checkpoint holds the templates, the PERSISTENT
 * kstats' headers, their blobs as of the checkpoint, the sample rates and
 * the next handle. It is written to a temporary file, fsync'd and renamed
 * over the old one: on every change of the set of PERSISTENT kstats,
 * every checkpoint_interval_ms, and at exit.
 *
 * On start the checkpoint is loaded and each kstat takes its blob from
 * its runtime file when that file is the one the checkpoint names (same
 * birth stamp) and validates, else from the checkpoint (after a reboot
 * cleared the runtime directory).
 */
#ifndef STATSD_DAEMON_CHECKPOINT_H
#define STATSD_DAEMON_CHECKPOINT_H

#include <stdbool.h>

struct statsd;
struct checkpoint;

/* Returns: 0 and *ret; -errno. The periodic write starts at once. */
int checkpoint_new(struct statsd *d, struct checkpoint **ret);
struct checkpoint *checkpoint_free(struct checkpoint *c);

/*
 * checkpoint_load: restore templates, sample rates and PERSISTENT kstats
 * from the checkpoint into d->reg, with their runtime files in
 * d->persist_dir (rolled back by d->journal where an update was cut
 * short). A missing checkpoint is a fresh start; a damaged one is logged
 * and set aside (renamed *.bad).
 * Returns: 0; -errno for what stops the start (out of memory).
 */
int checkpoint_load(struct checkpoint *c);

/* checkpoint_write: write the checkpoint now. Returns: 0; -errno
 * (logged once per failure streak). */
int checkpoint_write(struct checkpoint *c);

/*
 * checkpoint_outlives_statsd: does PERSISTENT kstat k survive a restart
 * of statsd (a runtime file, the checkpoint)? Only if the global zone made
 * it for the global zone or for every zone: a restarted statsd cannot tell
 * a zone's namespace from a new one that got its number, so a zone's
 * PERSISTENT kstats go dormant and come back only while statsd runs.
 */
struct reg_kstat;
bool checkpoint_outlives_statsd(const struct reg_kstat *k);

#endif
