/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_store.c: libFuzzer target for the store segment reader. The input
 * is a whole segment image, put in a sealed memfd as statsd would hand it
 * out; the reader opens it, walks the chain, looks kstats up and reads
 * every slot, and must never read outside the mapping or return a string
 * longer than its limit.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "shm.h"
#include "store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t blob[STORE_BLOB_MAX];

/* Each kstat of a walk, read (16 at most). */
struct fz_walk {
	struct store_reader	*r;
	size_t			 n;
};

static int
fz_one(void *arg, const struct store_entry *e, const struct kstat_hdr *h)
{
	struct fz_walk *w = arg;
	size_t bs;

	if (e == NULL)
		return 0;
	if (w->n++ >= 16)
		return -ENOBUFS;
	if (strlen(h->module) >= STORE_STRLEN || e->blob_size > STORE_BLOB_MAX)
		abort();
	store_reader_read(w->r, e->ref, NULL, NULL, blob, sizeof(blob), &bs);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct kstat_hdr h;
	struct fz_walk w = { 0 };
	struct store_entry e;
	struct store_reader *r;
	uint32_t changed[32];
	uint64_t now, kcid;
	size_t n = 0, i, bs;
	uint32_t slot;
	void *m;
	int fd;

	if (size == 0 || size > (1u << 20))
		return 0;
	if (shm_memfd_new("fuzz", size, &fd) < 0)
		return 0;
	if (shm_map(fd, size, 1, &m) == 0) {
		memcpy(m, data, size);
		munmap(m, size);
	}
	if (store_reader_open(fd, &r) < 0) {
		close(fd);
		return 0;
	}
	close(fd);
	store_reader_kcid(r);
	w.r = r;
	store_reader_walk(r, fz_one, &w, NULL);
	store_reader_lookup(r, "app", -1, NULL, &e, &h);
	/* The change log: from the start, and from a few changes back. */
	now = store_reader_kcid(r);
	for (i = 0; i < 2; i++)
		if (store_reader_changes(r, i == 0 ? 0 : now - (now > 3 ? 3 :
		    now), changed, sizeof(changed) / sizeof(changed[0]), &n,
		    &kcid) == 0)
			for (size_t j = 0; j < n; j++)
				if (changed[j] >= 1u << 22 ||
				    store_reader_slot(r, changed[j], &e, &h) == -ENOENT)
					abort();
	for (slot = 0; slot < 20; slot++) {
		struct store_ref ref = { slot, 1 };

		if (store_reader_read(r, ref, &e, &h, blob, sizeof(blob), &bs) == 0 &&
		    bs > STORE_BLOB_MAX)
			abort();
		store_reader_read(r, ref, NULL, NULL, blob, 7, &bs);
		if (store_reader_slot(r, slot, &e, &h) == 0 &&
		    strlen(h.module) >= STORE_STRLEN)
			abort();
		if (store_reader_read_text(r, ref, &h) == 0 &&
		    (strlen(h.path) > STORE_PATH_MAX || strlen(h.desc) > STORE_DESC_MAX))
			abort();
	}
	store_reader_close(r);
	return 0;
}
