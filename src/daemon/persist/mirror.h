/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mirror.h: PERSISTENT kstats' runtime files. Each PERSISTENT kstat's
 * blob lives in a file of its own, <runtime>/persist/<handle>.kstat,
 * mapped shared: the drain applies updates to it directly, so the data is
 * in the page cache the moment it is applied and outlives the process.
 * The store segment gets a copy after each drain pass (readers see that).
 * The registry holds a runtime file as a blob storage (blobstore.h).
 *
 * Every file is its full size from the start (blocks allocated up
 * front), so a full tmpfs fails a create, never a drain with SIGBUS.
 */
#ifndef STATSD_DAEMON_MIRROR_H
#define STATSD_DAEMON_MIRROR_H

#include <stdint.h>

#include "blobstore.h"

struct mirror;

/*
 * mirror_dir_make: make <runtime_dir>/persist, the runtime files'
 * directory (the ring journal lives there too).
 * Returns: 0 and *ret (malloc'd); -errno (logged).
 */
int mirror_dir_make(const char *runtime_dir, char **ret);

/*
 * mirror_create: a new runtime file in dir for kstat handle holding the
 * size bytes of blob (replacing any old file).
 * Returns: 0 and *ret; -errno.
 */
int mirror_create(const char *dir, uint32_t handle, const void *blob,
    uint32_t size, struct mirror **ret);

/*
 * mirror_open: map an existing runtime file in dir for handle if it was
 * born at birth (the caller validates the blob in it).
 * Returns: 0 and *ret; -ENOENT; -EBADMSG for a file that does not match;
 * -errno.
 */
int mirror_open(const char *dir, uint32_t handle, uint64_t birth,
    struct mirror **ret);

/*
 * mirror_sweep: remove the runtime files in dir whose handle keep(arg,
 * handle) says no record names: those of kstats made by a statsd killed
 * before their record was written (KstatCreateMany's, say), or removed
 * by one killed before the unlink. Files whose name is not
 * <handle>.kstat are left alone.
 * Returns: how many were removed.
 */
unsigned mirror_sweep(const char *dir, int (*keep)(void *arg,
    uint32_t handle), void *arg);

/* The file as the registry holds it. */
struct blob_storage *mirror_storage(struct mirror *m);

/* The runtime file behind a storage, or NULL if it is not one. */
struct mirror *mirror_of(struct blob_storage *s);

void *mirror_blob(struct mirror *m);
uint32_t mirror_size(const struct mirror *m);
uint64_t mirror_birth(const struct mirror *m);

/* Removed files (blob_storage_remove()) are deleted by fn(arg, path)
 * from now on (statsd's runtime files' thread, filer.h, in its queue's
 * order); fn NULL: by unlink(2) at once. */
void mirror_unlink_by(void (*fn)(void *arg, const char *path), void *arg);

/* Unmap (the file stays, for the next start). NULL-safe. */
void mirror_close(struct mirror *m);

#endif
