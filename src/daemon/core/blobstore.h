/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * blobstore.h: the blob-storage interface: where a kstat's canonical blob
 * lives when that is not its store segment's copy. The registry keeps a
 * PERSISTENT kstat's blob through it and knows nothing else of the
 * storage; mirror.c provides the one implementation, a runtime file that
 * outlives the process.
 */
#ifndef STATSD_DAEMON_BLOBSTORE_H
#define STATSD_DAEMON_BLOBSTORE_H

#include <stddef.h>
#include <stdint.h>

/* The most bytes a stored blob takes: room for any blob, re-laid or not. */
#define BLOB_STORAGE_CAP	65536u

struct blob_storage;

/* The disk bytes a stored blob of size bytes takes, its copy in the
 * checkpoint included: what a PERSISTENT kstat is charged
 * (QUOTA_PERSISTENT). From the one implementation, mirror.c. */
uint64_t blob_storage_disk_bytes(uint32_t size);

struct blob_storage_ops {
	/* The blob's size changed (a re-layout); size <= BLOB_STORAGE_CAP. */
	void	(*set_size)(struct blob_storage *s, uint32_t size);
	/* Let go of the storage; its data stays, for the next start. */
	void	(*close)(struct blob_storage *s);
	/* Let go of the storage and delete its data. */
	void	(*remove)(struct blob_storage *s);
};

struct blob_storage {
	const struct blob_storage_ops	*ops;
	void				*blob;	/* fixed while it lives */
};

static inline void
blob_storage_set_size(struct blob_storage *s, uint32_t size)
{
	s->ops->set_size(s, size);
}

/* NULL-safe. */
static inline void
blob_storage_close(struct blob_storage *s)
{
	if (s != NULL)
		s->ops->close(s);
}

/* NULL-safe. */
static inline void
blob_storage_remove(struct blob_storage *s)
{
	if (s != NULL)
		s->ops->remove(s);
}

#endif
