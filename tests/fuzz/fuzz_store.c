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

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t blob[STORE_BLOB_MAX];
	static char path[STORE_PATH_MAX + 1], desc[STORE_DESC_MAX + 1];
	struct store_kstat_info ki[16];
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
	if (store_reader_chain(r, ki, 16, &n, NULL) == 0) {
		for (i = 0; i < n; i++) {
			if (strlen(ki[i].module) > STORE_STRLEN ||
			    ki[i].blob_size > STORE_BLOB_MAX)
				abort();
			store_reader_read(r, ki[i].ref, NULL, blob, sizeof(blob), &bs);
		}
	}
	store_reader_lookup(r, "app", -1, NULL, &ki[0]);
	/* The change log: from the start, and from a few changes back. */
	now = store_reader_kcid(r);
	for (i = 0; i < 2; i++)
		if (store_reader_changes(r, i == 0 ? 0 : now - (now > 3 ? 3 :
		    now), changed, sizeof(changed) / sizeof(changed[0]), &n,
		    &kcid) == 0)
			for (size_t j = 0; j < n; j++)
				if (changed[j] >= 1u << 22 ||
				    store_reader_slot(r, changed[j], &ki[0]) == -ENOENT)
					abort();
	for (slot = 0; slot < 20; slot++) {
		struct store_ref ref = { slot, 1 };

		if (store_reader_read(r, ref, &ki[0], blob, sizeof(blob), &bs) == 0 &&
		    bs > STORE_BLOB_MAX)
			abort();
		store_reader_read(r, ref, NULL, blob, 7, &bs);
		if (store_reader_slot(r, slot, &ki[1]) == 0 &&
		    strlen(ki[1].module) > STORE_STRLEN)
			abort();
		if (store_reader_read_text(r, ref, path, desc) == 0 &&
		    (strlen(path) > STORE_PATH_MAX || strlen(desc) > STORE_DESC_MAX))
			abort();
	}
	store_reader_close(r);
	return 0;
}
