/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mirror.c: PERSISTENT kstats' runtime files (see mirror.h): making,
 * checking and mapping them, and the blob-storage operations the registry
 * uses on them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "blob.h"
#include "invariant.h"
#include "log.h"
#include "mirror.h"
#include "shm.h"

#define PMIR_MAGIC	UINT64_C(0x3152494d50445453)	/* "STDPMIR1" */
#define PMIR_HDR	4096u
#define PMIR_SIZE	(PMIR_HDR + BLOB_STORAGE_CAP)

/* The head of a runtime file; the blob follows at PMIR_HDR. */
struct pmir_hdr {
	uint64_t	magic;
	uint32_t	version;
	uint32_t	handle;
	uint64_t	birth;
	uint32_t	size;
	uint32_t	cap;
};

struct mirror {
	struct blob_storage	 st;	/* st.blob: the map, past its head */
	uint32_t		 handle;
	void			*map;
	char			 path[PATH_MAX];
};

static const struct blob_storage_ops mirror_ops;

/* Who deletes a removed file (mirror_unlink_by()); NULL: unlink(2) here. */
static void (*mirror_unlinker)(void *arg, const char *path);
static void *mirror_unlinker_arg;

void
mirror_unlink_by(void (*fn)(void *arg, const char *path), void *arg)
{
	mirror_unlinker = fn;
	mirror_unlinker_arg = arg;
}

uint64_t
blob_storage_disk_bytes(uint32_t size)
{
	return PMIR_SIZE + (uint64_t)size;
}

int
mirror_dir_make(const char *runtime_dir, char **ret)
{
	char *dir;
	int r;

	/* Room for "/persist" and a file name under it. */
	if (strlen(runtime_dir) + 32 >= PATH_MAX)
		return -ENAMETOOLONG;
	if (asprintf(&dir, "%s/persist", runtime_dir) < 0)
		return -ENOMEM;
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		r = -errno;
		log_error("cannot create %s: %s", dir, strerror(errno));
		free(dir);
		return r;
	}
	*ret = dir;
	return 0;
}

static void
pmir_path(const char *dir, uint32_t handle, char *buf, size_t len)
{
	if ((size_t)snprintf(buf, len, "%s/%" PRIu32 ".kstat", dir,
	    handle) >= len)
		buf[0] = '\0';
}

static int
pmir_map(const char *dir, uint32_t handle, int fd, struct mirror **ret)
{
	struct mirror *m;
	void *map;

	map = mmap(NULL, PMIR_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return -errno;
	m = calloc(1, sizeof(*m));
	if (m == NULL) {
		munmap(map, PMIR_SIZE);
		return -ENOMEM;
	}
	m->st.ops = &mirror_ops;
	m->st.blob = (char *)map + PMIR_HDR;
	m->handle = handle;
	m->map = map;
	pmir_path(dir, handle, m->path, sizeof(m->path));
	*ret = m;
	return 0;
}

int
mirror_create(const char *dir, uint32_t handle, const void *blob,
    uint32_t size, struct mirror **ret)
{
	char path[PATH_MAX];
	struct pmir_hdr *h;
	int fd, r;

	if (size > BLOB_STORAGE_CAP)
		return -E2BIG;
	pmir_path(dir, handle, path, sizeof(path));
	(void)unlink(path);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
	    0600);
	if (fd < 0)
		return -errno;
	/* Allocate the blocks now: a full tmpfs then fails here, not as a
	 * SIGBUS in the middle of a drain. */
	r = posix_fallocate(fd, 0, PMIR_SIZE);
	if (r != 0) {
		close(fd);
		(void)unlink(path);
		return -r;
	}
	r = pmir_map(dir, handle, fd, ret);
	close(fd);
	if (r < 0) {
		(void)unlink(path);
		return r;
	}
	h = (*ret)->map;
	memcpy((*ret)->st.blob, blob, size);
	h->version = 1;
	h->handle = handle;
	h->birth = shm_birth_stamp();
	h->size = size;
	h->cap = BLOB_STORAGE_CAP;
	h->magic = PMIR_MAGIC;
	return 0;
}

int
mirror_open(const char *dir, uint32_t handle, uint64_t birth,
    struct mirror **ret)
{
	char path[PATH_MAX];
	struct pmir_hdr h;
	struct stat st;
	int fd, r;

	pmir_path(dir, handle, path, sizeof(path));
	fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size != (off_t)PMIR_SIZE) {
		close(fd);
		return -EBADMSG;
	}
	/* A file of an older statsd, or copied sparse: its blocks now, so
	 * that a full runtime directory fails here, not as a SIGBUS. */
	r = posix_fallocate(fd, 0, PMIR_SIZE);
	if (r != 0) {
		close(fd);
		return -r;
	}
	r = pmir_map(dir, handle, fd, ret);
	close(fd);
	if (r < 0)
		return r;
	memcpy(&h, (*ret)->map, sizeof(h));
	if (h.magic != PMIR_MAGIC || h.version != 1 || h.handle != handle ||
	    h.birth != birth || h.cap != BLOB_STORAGE_CAP ||
	    h.size < SB_V1_HDRSZ || h.size > BLOB_STORAGE_CAP) {
		mirror_close(*ret);
		*ret = NULL;
		return -EBADMSG;
	}
	return 0;
}

unsigned
mirror_sweep(const char *dir, int (*keep)(void *arg, uint32_t handle),
    void *arg)
{
	char path[PATH_MAX];
	struct dirent *e;
	unsigned removed = 0;
	DIR *dp = opendir(dir);

	if (dp == NULL)
		return 0;
	while ((e = readdir(dp)) != NULL) {
		unsigned long h;
		char *end;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		errno = 0;
		h = strtoul(e->d_name, &end, 10);
		if (errno != 0 || h > UINT32_MAX || strcmp(end, ".kstat") != 0 ||
		    keep(arg, (uint32_t)h))
			continue;
		pmir_path(dir, (uint32_t)h, path, sizeof(path));
		if (path[0] != '\0' && unlink(path) == 0)
			removed++;
	}
	closedir(dp);
	return removed;
}

struct blob_storage *
mirror_storage(struct mirror *m)
{
	return &m->st;
}

struct mirror *
mirror_of(struct blob_storage *s)
{
	if (s == NULL || s->ops != &mirror_ops)
		return NULL;
	return (struct mirror *)((char *)s - offsetof(struct mirror, st));
}

void *
mirror_blob(struct mirror *m)
{
	return m->st.blob;
}

uint32_t
mirror_size(const struct mirror *m)
{
	return ((const struct pmir_hdr *)m->map)->size;
}

uint64_t
mirror_birth(const struct mirror *m)
{
	return ((const struct pmir_hdr *)m->map)->birth;
}

void
mirror_close(struct mirror *m)
{
	if (m == NULL)
		return;
	munmap(m->map, PMIR_SIZE);
	free(m);
}

static void
mirror_st_set_size(struct blob_storage *s, uint32_t size)
{
	/* The file has room for BLOB_STORAGE_CAP bytes: a larger size in its
	 * header would have the next start refuse the file, and the kstat's
	 * data lost without a word now. */
	INVARIANT(size <= BLOB_STORAGE_CAP);
	((struct pmir_hdr *)mirror_of(s)->map)->size = size;
}

static void
mirror_st_close(struct blob_storage *s)
{
	mirror_close(mirror_of(s));
}

/* Unmap and delete the file. */
static void
mirror_st_remove(struct blob_storage *s)
{
	struct mirror *m = mirror_of(s);

	if (mirror_unlinker != NULL)
		mirror_unlinker(mirror_unlinker_arg, m->path);
	else
		(void)unlink(m->path);
	mirror_close(m);
}

static const struct blob_storage_ops mirror_ops = {
	.set_size = mirror_st_set_size,
	.close = mirror_st_close,
	.remove = mirror_st_remove,
};
