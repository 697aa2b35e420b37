/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * shm.c: memfd creation, sealing, checking and mapping for the store
 * segments and the rings. Nothing here knows any layout.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "shm.h"

int
shm_memfd_new(const char *name, size_t size, int *ret_fd)
{
	int fd, r;

	if (size == 0 || size > (size_t)INT64_MAX)
		return -EINVAL;
	fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	/* ftruncate on a fresh memfd only sets i_size: the pages stay
	 * unallocated until first touched, which is what makes a large
	 * fixed maximum size affordable. */
	if (ftruncate(fd, (off_t)size) < 0)
		goto fail;
	if (fcntl(fd, F_ADD_SEALS, SHM_SEALS_REQUIRED | F_SEAL_SEAL) < 0)
		goto fail;
	/*
	 * A memfd is born mode 0777, and anyone handed a read-only
	 * descriptor could reopen it read-write through /proc/self/fd.
	 * Only the creator's uid may reopen it at all.
	 */
	if (fchmod(fd, 0600) < 0)
		goto fail;
	*ret_fd = fd;
	return 0;
fail:
	r = -errno;
	close(fd);
	return r;
}

int
shm_fd_check(int fd, size_t *ret_size)
{
	struct stat st;
	int seals;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (st.st_size <= 0 || (uint64_t)st.st_size > SIZE_MAX / 2)
		return -EBADMSG;
	/*
	 * Only a memfd sealed against shrinking can be mapped without risking
	 * SIGBUS: a file that cannot be sealed (EINVAL) is refused too.
	 */
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0)
		return errno == EINVAL ? -EPERM : -errno;
	if ((seals & SHM_SEALS_REQUIRED) != SHM_SEALS_REQUIRED)
		return -EPERM;
	*ret_size = (size_t)st.st_size;
	return 0;
}

int
shm_map(int fd, size_t size, int writable, void **ret_addr)
{
	void *p;

	p = mmap(NULL, size, writable ? PROT_READ | PROT_WRITE : PROT_READ,
	    MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	*ret_addr = p;
	return 0;
}

int
shm_reopen_ro(int fd)
{
	char path[64];
	int nfd;

	/* Reopening through /proc makes a new open file description with
	 * its own access mode; dup() would share the read-write one. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	nfd = open(path, O_RDONLY | O_CLOEXEC);
	if (nfd < 0)
		return -errno;
	return nfd;
}

uint64_t
shm_birth_stamp(void)
{
	return clock_ns(CLOCK_REALTIME);
}
