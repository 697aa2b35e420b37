/*
 * persist.h: what survives a restart and a kill -9.
 *
 * Two places, two lifetimes:
 *   - each PERSISTENT kstat's blob lives in a file of its own in the
 *     runtime directory (<runtime>/persist/<handle>.kstat), mapped shared:
 *     the drain applies updates to it directly, so the data is in the page
 *     cache the moment it is applied and outlives the process. The store
 *     segment gets a copy after each drain pass (readers see that).
 *   - the checkpoint, <state>/statsd.checkpoint, holds the templates, the
 *     PERSISTENT kstats' headers, their blobs as of the checkpoint, the
 *     sample rates and the next handle. It is written to a temporary file,
 *     fsync'd and renamed over the old one: on every change of the set of
 *     PERSISTENT kstats, every checkpoint_interval_ms, and at exit.
 * On start the checkpoint is loaded and each kstat takes its blob from
 * its runtime file when that file is the one the checkpoint names (same
 * birth stamp) and validates, else from the checkpoint (after a reboot
 * cleared the runtime directory).
 */
#ifndef STATSD_DAEMON_PERSIST_H
#define STATSD_DAEMON_PERSIST_H

#include <stdint.h>

struct statsd;
struct persist;
struct persist_mirror;

#define PERSIST_BLOB_CAP	65536u	/* room for any blob, re-laid or not */

/* Returns: 0 and *ret; -errno (logged). */
int persist_new(struct statsd *d, struct persist **ret);
struct persist *persist_free(struct persist *p);

/*
 * persist_load: restore templates, sample rates and PERSISTENT kstats
 * from the checkpoint into d->reg. A missing checkpoint is a fresh start;
 * a damaged one is logged and set aside (renamed *.bad).
 * Returns: 0; -errno for what stops the start (out of memory).
 */
int persist_load(struct persist *p);

/* persist_checkpoint: write the checkpoint now. Returns: 0; -errno
 * (logged once per failure streak). */
int persist_checkpoint(struct persist *p);

/* Mark the checkpoint stale: it is rewritten at the next chance (the
 * end of the current loop turn). */
void persist_dirty(struct persist *p);

/*
 * persist_mirror_create: a new runtime file for kstat handle holding the
 * size bytes of blob (replacing any old file).
 * Returns: 0 and *ret; -errno.
 */
int persist_mirror_create(struct persist *p, uint32_t handle,
    const void *blob, uint32_t size, struct persist_mirror **ret);

/*
 * persist_mirror_open: map an existing runtime file for handle if it was
 * born at birth and holds a valid blob.
 * Returns: 0 and *ret; -ENOENT; -EBADMSG for a file that does not match
 * or validate; -errno.
 */
int persist_mirror_open(struct persist *p, uint32_t handle, uint64_t birth,
    struct persist_mirror **ret);

void *persist_mirror_blob(struct persist_mirror *m);
uint32_t persist_mirror_size(const struct persist_mirror *m);
uint64_t persist_mirror_birth(const struct persist_mirror *m);
/* After a re-layout: the blob's new size (<= PERSIST_BLOB_CAP). */
void persist_mirror_set_size(struct persist_mirror *m, uint32_t size);

/* Unmap (the file stays, for the next start). NULL-safe. */
void persist_mirror_close(struct persist_mirror *m);
/* Unmap and delete the file. NULL-safe. */
void persist_mirror_remove(struct persist_mirror *m);

#endif
