/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_ring.c: libFuzzer target for the ring consumer, played against a
 * hostile producer. The input is a script of producer moves (set the
 * producer index, write record bytes, poke header bytes) interleaved with
 * consumer calls; the consumer must never read outside the ring, never
 * crash, and keep its counters consistent.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ring.h"

#define FUZZ_LOG2	4u	/* 16 records: indices wrap often */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
fuzz_apply(void *arg, const struct ring_rec *rec)
{
	unsigned *seen = arg;

	(*seen)++;
	/* what the daemon would refuse: a slot it does not own */
	return rec->handle > 1000 ? -1 : 0;
}

static int
take(const uint8_t **data, size_t *size, void *out, size_t n)
{
	if (*size < n)
		return 0;
	memcpy(out, *data, n);
	*data += n;
	*size -= n;
	return 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ring_consumer_stats before, after;
	struct ring_consumer *c;
	struct ring_rec out[8];
	struct ring_hdr *hdr;
	uint8_t *mem;
	size_t msize;
	unsigned steps = 0;

	if (ring_create(FUZZ_LOG2, &c) < 0)
		return 0;
	mem = ring_consumer_mem(c, &msize);
	hdr = (struct ring_hdr *)mem;
	while (size > 0 && steps++ < 256) {
		uint8_t op = data[0], idx, val, max;
		uint64_t head;
		uint16_t off;
		unsigned seen = 0;
		int n;

		data++;
		size--;
		switch (op % 6) {
		case 0:		/* the producer index, any value */
			if (!take(&data, &size, &head, sizeof(head)))
				break;
			atomic_store_explicit(&hdr->head, head, memory_order_release);
			break;
		case 1:		/* record bytes at a slot */
			if (!take(&data, &size, &idx, 1))
				break;
			idx &= (1u << FUZZ_LOG2) - 1;
			take(&data, &size, mem + RING_HDR_SIZE + (size_t)idx * RING_REC_SIZE,
			    size < RING_REC_SIZE ? size : RING_REC_SIZE);
			break;
		case 2:		/* drain with a callback */
			if (!take(&data, &size, &max, 1))
				break;
			ring_consumer_stats(c, &before);
			n = ring_drain(c, max, 1, fuzz_apply, &seen);
			ring_consumer_stats(c, &after);
			if (n >= 0 && ((uint64_t)n > (1u << FUZZ_LOG2) ||
			    after.applied + after.rejected !=
			    before.applied + before.rejected + (uint64_t)n))
				abort();
			if (n < 0 && !after.broken)
				abort();
			break;
		case 3:		/* a header byte, anywhere in the 512 */
			if (!take(&data, &size, &off, sizeof(off)) ||
			    !take(&data, &size, &val, 1))
				break;
			mem[off % RING_HDR_SIZE] = val;
			break;
		case 4:		/* batch pop */
			n = ring_pop(c, out, 8, 1);
			if (n > 8)
				abort();
			while (n-- > 0)
				if (ring_rec_check(&out[n]) != 0)
					abort();
			break;
		case 5:		/* the sleep protocol and the bookkeeping */
			if (ring_consumer_sleep_prepare(c) == 0)
				ring_consumer_sleep_done(c);
			ring_consumer_pending(c);
			ring_consumer_done(c);
			break;
		}
	}
	ring_consumer_free(c);
	return 0;
}
