/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_spill.c: libFuzzer target for spill buffers as statsd reads them.
 * The input is the entries of a buffer (what statsd copies out of the
 * overflow area after a hand-over record): blob entries are merged into
 * two kstats of a template with every statistic kind, log entries are
 * checked and replayed, exactly as the drain does. Whatever the bytes,
 * nothing is read outside the input, and the kstats' blobs stay valid.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "blob.h"
#include "engine.h"
#include "ring.h"
#include "spill.h"
#include "spill_tpl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct statsblob *img;
static void *scratch;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct statsblob *dst[2];
	struct ring_ovf_ent e;
	const uint8_t *pl;
	const char *why;
	size_t off = 0;
	int i, r;

	if (img == NULL) {
		int tpl = fuzz_spill_tpl();

		if (tpl < 0 || (img = stats_blob_alloc((uint32_t)tpl, 0)) ==
		    NULL || (scratch = malloc(65536)) == NULL)
			abort();
	}
	for (i = 0; i < 2; i++) {
		dst[i] = malloc(img->cursz);
		if (dst[i] == NULL)
			abort();
		memcpy(dst[i], img, img->cursz);
	}
	while ((r = ring_ovf_next(data, size, &off, &e, &pl)) == 1) {
		if (e.type == RING_OVF_BLOB) {
			if (e.handle < 1 || e.handle > 2)
				continue;	/* statsd: no such kstat */
			(void)spill_merge(dst[e.handle - 1], pl, e.len,
			    scratch, &why);
			continue;
		}
		for (size_t k = 0; k < e.len / RING_REC_SIZE; k++) {
			struct ring_rec rec;

			memcpy(&rec, pl + k * RING_REC_SIZE, sizeof(rec));
			if (ring_rec_check(&rec) != 0 ||
			    rec.op == RING_OP_SPILL || rec.handle < 1 ||
			    rec.handle > 2)
				continue;
			(void)engine_apply_batch(dst[rec.handle - 1], &rec, 1);
		}
	}
	for (i = 0; i < 2; i++) {
		/* A merge never leaves a kstat's blob malformed. */
		if (blob_check((const struct statsblobv1 *)dst[i],
		    img->cursz) != NULL)
			abort();
		free(dst[i]);
	}
	return 0;
}
