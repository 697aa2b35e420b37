/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * checkpoint.h: the checkpoint, <state>/statsd.checkpoint, and how
 * PERSISTENT kstats come back at start.
 *
 * What survives a restart and a kill -9 lives in three places with two
 * lifetimes: each PERSISTENT kstat's runtime file (mirror.h) and the ring
 * journal (journal.h) in the runtime directory, which a kill -9 leaves
 * and a reboot clears; and the checkpoint in the state directory, which
 * outlives a reboot.
 *
 * The checkpoint is a log: records appended, one line each, framed by
 * length and CRC-32 (zlib's) so that a write cut short by a crash is
 * found and cut off at start, and a record damaged in the middle is
 * skipped (copied aside, counted in Info) with the records after it
 * kept. A record says that a template (one a PERSISTENT kstat uses)
 * exists, that a PERSISTENT kstat exists as it is now (header, flags,
 * blob), that one is gone, or the sample rates and next handle; a
 * "batch" record holds KstatCreateMany's kstats, all or none. The last
 * record about a thing wins. So what is written is what changed:
 *   - a PERSISTENT create, revive, delete (dormant) or removal appends
 *     one record (two with a template not yet kept; one batch for
 *     KstatCreateMany) and it is synced before the call is answered (a
 *     create's by the persistence thread, syncer.h, the others in the
 *     loop): a create succeeds only once it is durable, and one that
 *     cannot be made durable is undone, leaving nothing;
 *   - every checkpoint_interval_ms and at exit, the kstats whose blob
 *     changed since they were last written are appended, with one sync;
 *   - when the log passes twice what it holds (and 64 KiB), it is
 *     compacted: rewritten with one record per thing, synced and renamed
 *     over the old one.
 *
 * If the state directory cannot be used (missing and not creatable,
 * read-only, full, failing), statsd runs on and says so loudly: at start,
 * in Info.persistence, and in the log. PERSISTENT creates, revives and
 * deletes are then refused with the reason; everything else works. The
 * periodic tick tries again, and compacts to catch up once it can write.
 * A checkpoint that exists but cannot be read is never written over.
 *
 * On start the log is replayed and each kstat takes its blob from its
 * runtime file when that file is the one the checkpoint names (same birth
 * stamp) and validates, else from the checkpoint (after a reboot cleared
 * the runtime directory); if no runtime file can be made (a full runtime
 * directory), the kstat comes back without one. A version 1 checkpoint
 * (one JSON object) or a version 2 log is read and rewritten. What a
 * crash at each step leaves: docs/durability.md.
 */
#ifndef STATSD_DAEMON_CHECKPOINT_H
#define STATSD_DAEMON_CHECKPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct statsd;
struct checkpoint;
struct reg_kstat;

/* Returns: 0 and *ret; -ENOMEM. An unusable state directory is not an
 * error here: it is reported (checkpoint_status). The first periodic
 * pass is due one checkpoint_interval_ms after the start. */
int checkpoint_new(struct statsd *d, struct checkpoint **ret);
struct checkpoint *checkpoint_free(struct checkpoint *c);

/* The next periodic pass, one checkpoint_interval_ms from now unless one
 * is due already. A pass does not schedule the next (but while the state
 * directory fails): the caller wakes the tick while peers may change
 * PERSISTENT kstats, so one pass follows the last change. NULL-safe. */
void checkpoint_tick_wake(struct checkpoint *c);

/*
 * checkpoint_load: restore templates, sample rates and PERSISTENT kstats
 * from the checkpoint into d->reg, with their runtime files in
 * d->persist_dir (rolled back by d->journal where an update was cut
 * short). A missing checkpoint is a fresh start; a damaged one is logged
 * and set aside (renamed *.bad); a torn last record is cut off.
 * Returns: 0; -errno for what stops the start (out of memory).
 */
int checkpoint_load(struct checkpoint *c);

/*
 * checkpoint_kstat_put: make k's state, with dormant as its dormant flag,
 * durable (its template first, if not yet kept). Nothing if k does not
 * outlive statsd (checkpoint_outlives_statsd).
 * Returns: 0; -errno (logged; the checkpoint is as before: the caller
 * undoes what it did).
 */
int checkpoint_kstat_put(struct checkpoint *c, struct reg_kstat *k,
    bool dormant);

/*
 * checkpoint_kstats_put: make the n kstats of ks (NULL entries skipped;
 * those that do not outlive statsd too) durable as made, not dormant, in
 * one record with the templates the log lacks: after a crash at any
 * point, all of them are in the log or none is (KstatCreateMany). One
 * sync.
 * Returns: 0; -errno (logged; none of them is in the log: the caller
 * undoes them all).
 */
int checkpoint_kstats_put(struct checkpoint *c, struct reg_kstat **ks,
    size_t n);

/* checkpoint_kstat_drop: k is about to be removed for good: durable.
 * Returns: 0; -errno (logged; keep k). */
int checkpoint_kstat_drop(struct checkpoint *c, struct reg_kstat *k);

/* checkpoint_meta_put: append the meta record (the sample rates and the
 * next handle, as statsd holds them now): synced, or under
 * checkpoint_unsynced() handed to checkpoint_wait(). Returns: 0; -errno
 * (logged; the next pass writes it). */
int checkpoint_meta_put(struct checkpoint *c);

/*
 * Durable off the loop. Between checkpoint_unsynced(c, true) and
 * checkpoint_unsynced(c, false), the puts above write their records into
 * the page cache and return without syncing them; checkpoint_wait() then
 * hands the sync to the persistence thread (syncer.h), which syncs once
 * for every change waiting (group commit), and says when they are
 * durable. Without the thread (it could not be started) the puts sync as
 * they always do.
 */
void checkpoint_unsynced(struct checkpoint *c, bool on);

/* Appends written so far (not all durable): a caller compares it
 * before and after its change to know whether it wrote anything. */
uint64_t checkpoint_appends(const struct checkpoint *c);

/* One change waiting to be durable. The caller fills wake and arg; the
 * rest is the checkpoint's. */
struct checkpoint_wait {
	int			 result;	/* 1 waiting; 0 durable;
						 * -errno: lost (cut off the
						 * log: undo the change) */
	void			(*wake)(void *arg);	/* result is set */
	void			*arg;
	uint64_t		 seq;
	struct checkpoint_wait	*next, **prevp;
};

/*
 * checkpoint_wait: w waits until everything appended so far is durable
 * (w->wake(w->arg) is called from the loop with w->result set, w no
 * longer waiting), or was lost with the log's unsynced tail.
 * Returns: 0 durable already (w not waiting); 1 waiting; -errno lost
 * (w not waiting).
 */
int checkpoint_wait(struct checkpoint *c, struct checkpoint_wait *w);

/* w waits no more (its caller is gone). NULL-safe; a no-op for a w not
 * waiting. */
void checkpoint_wait_cancel(struct checkpoint *c, struct checkpoint_wait *w);

/* checkpoint_flush: have what was appended unsynced made durable by the
 * persistence thread, with no one waiting on it (a change no caller is
 * answered for: a statsd series made or gone dormant, a DefinitionSet).
 * A failed sync cuts it off the log, and the next pass rewrites the log
 * from what statsd holds. */
void checkpoint_flush(struct checkpoint *c);

/* checkpoint_write: append what changed (blobs, sample rates, the next
 * handle) with one sync, compacting when due. Returns: 0; -errno
 * (logged once per failure streak). */
int checkpoint_write(struct checkpoint *c);

/* Is the state directory usable now? *ret_why (may be NULL) gets why
 * not: a static or internal string, "" when usable. */
bool checkpoint_status(const struct checkpoint *c, const char **ret_why);

/* The checkpoint's state for Info: {state_dir, usable, error,
 * log_bytes, live_bytes, compactions, written_bytes (since start, all
 * its files)}. */
json_t *checkpoint_to_json(struct checkpoint *c);

/*
 * checkpoint_outlives_statsd: does PERSISTENT kstat k survive a restart
 * of statsd (a runtime file, the checkpoint)? Only if its zone and its
 * owner's zone last (zones_lasting(): the global zone, every zone, a
 * container cgroup): a restarted statsd cannot tell a namespace zone's
 * namespace from a new one that got its number, so such a zone's
 * PERSISTENT kstats go dormant and come back only while statsd runs.
 */
struct zones;
bool checkpoint_outlives_statsd(const struct zones *z,
    const struct reg_kstat *k);
/* The same rule for a kstat to be made by a peer of owner_zone for
 * zone. */
bool checkpoint_outlives(const struct zones *z, uint32_t owner_zone,
    uint32_t zone);

#endif
