/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * shm.h: the low-level helpers that make and check the memfds behind the
 * store segments and the rings. They exist so that both get the same rules:
 * fixed size, sparse, sealed against shrinking and growing, so that no peer
 * holding the fd can make another peer's mapping fault with SIGBUS.
 */
#ifndef STATSD_COMMON_SHM_H
#define STATSD_COMMON_SHM_H

#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>

/* The seals every segment and ring carries. F_SEAL_SEAL stops a peer from
 * adding F_SEAL_WRITE-like seals of its own later. */
#define SHM_SEALS_REQUIRED	(F_SEAL_SHRINK | F_SEAL_GROW)

/*
 * Create a memfd of exactly `size` bytes (sparse: no page is allocated until
 * touched), close-on-exec, sealed with SHM_SEALS_REQUIRED and F_SEAL_SEAL.
 * `name` only shows in /proc/<pid>/fd.
 * Returns: 0 and *ret_fd on success; -EINVAL if size is 0; -errno from
 * memfd_create, ftruncate or fcntl otherwise.
 */
int shm_memfd_new(const char *name, size_t size, int *ret_fd);

/*
 * Check that `fd` cannot change size under a mapping and return its size.
 * Only a memfd sealed with SHM_SEALS_REQUIRED passes: a descriptor from
 * another process could otherwise be truncated under our mapping (SIGBUS).
 * Returns: 0 and *ret_size on success; -EPERM if the fd lacks the seals or
 * cannot be sealed at all; -EBADMSG if it is empty or too large to map;
 * -errno from fstat or fcntl.
 */
int shm_fd_check(int fd, size_t *ret_size);

/*
 * Map `size` bytes of `fd` shared, read-only or read-write.
 * Returns: 0 and *ret_addr on success; -errno from mmap.
 */
int shm_map(int fd, size_t size, int writable, void **ret_addr);

/*
 * A read-only open file description of the same memfd, for handing to
 * readers: with it they cannot map the segment writable (mmap returns
 * EACCES), whatever they ask for.
 * Returns: a new fd (>= 0, close-on-exec); -errno from open.
 */
int shm_reopen_ro(int fd);

/* A birth stamp: CLOCK_REALTIME in ns, so a reader can tell a segment made by
 * a restarted daemon from the one it had. */
uint64_t shm_birth_stamp(void);

#endif
