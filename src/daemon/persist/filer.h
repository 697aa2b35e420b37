/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * filer.h: the runtime files' thread. PERSISTENT kstats' runtime files
 * (mirror.h) are made (open, posix_fallocate(2) of their 68 KiB, mmap)
 * and deleted here, off the event loop: on tmpfs a make costs some
 * 50 microseconds and an unlink 20, on a disk file system an unlink of
 * the allocated blocks a millisecond, and a KstatCreateMany makes
 * hundreds at once.
 *
 * One thread, one queue, in order: an unlink asked for before a make
 * runs before it, so a handle's file is never deleted under a newer one.
 * The loop pushes under a mutex held for a pointer's store; made files
 * come back to the loop through an eventfd, their batch's done() called
 * there, never on the thread.
 */
#ifndef STATSD_DAEMON_FILER_H
#define STATSD_DAEMON_FILER_H

#include <stddef.h>
#include <stdint.h>

struct event_base;
struct filer;
struct mirror;

/* One runtime file to make, and how it went. */
struct filer_make {
	uint32_t	 handle;
	uint32_t	 size;
	const void	*blob;		/* size bytes: its first content */
	struct mirror	*m;		/* made, or NULL */
	int		 err;		/* 0 or -errno */
};

/* Files made together, reported together. */
struct filer_batch {
	void			(*done)(struct filer_batch *b); /* the loop */
	void			*arg;
	size_t			 n;
	struct filer_make	*e;
	struct filer_batch	*next;	/* the filer's */
};

/* Start the thread for the runtime files of dir; done() is called from
 * base's loop. Returns: 0 and *ret; -errno. */
int filer_new(struct event_base *base, const char *dir, struct filer **ret);

/* Stop the thread once everything queued ran, and call the done() of
 * every batch made (at exit, with no loop running). NULL-safe.
 * Returns: NULL. */
struct filer *filer_free(struct filer *f);

/* Make b's files (b's own until done()). */
void filer_make(struct filer *f, struct filer_batch *b);

/* Delete the file at path, after everything queued before. Without
 * memory for the request, deleted here. */
void filer_unlink(struct filer *f, const char *path);

/* filer_unlink(filer, path), as mirror_unlink_by() takes it. */
void filer_unlink_cb(void *filer, const char *path);

/* Files made and deleted so far. */
void filer_counts(struct filer *f, uint64_t *made, uint64_t *deleted);

#endif /* STATSD_DAEMON_FILER_H */
