/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * arena.c: blob chunk allocation inside a store segment's arena (see
 * arena.h for why it is shaped this way).
 */
#include <errno.h>
#include <string.h>

#include "arena.h"
#include "invariant.h"

static unsigned
store_arena_class(uint64_t n)
{
	unsigned k = 0;

	while (((uint64_t)1 << (STORE_ARENA_MIN_SHIFT + k)) < n)
		k++;
	return k;
}

void
store_arena_init(struct store_arena *a, uint8_t *base, uint64_t off, uint64_t size)
{
	memset(a, 0, sizeof(*a));
	a->base = base;
	a->off = off;
	a->size = size;
}

uint64_t
store_arena_chunk_size(uint64_t n)
{
	if (n == 0 || n > STORE_ARENA_CHUNK_MAX)
		return 0;
	return (uint64_t)1 << (STORE_ARENA_MIN_SHIFT + store_arena_class(n));
}

int
store_arena_alloc(struct store_arena *a, uint64_t n, uint64_t *ret_off,
    uint32_t *ret_chunk)
{
	uint64_t chunk, off;
	unsigned k;

	if (n == 0 || n > STORE_ARENA_CHUNK_MAX)
		return -E2BIG;
	k = store_arena_class(n);
	chunk = (uint64_t)1 << (STORE_ARENA_MIN_SHIFT + k);
	if (a->free_head[k] != 0) {
		off = a->free_head[k];
		/* The free list lives in the segment: a link out of the
		 * arena would hand out memory that is not a chunk. */
		INVARIANT(off >= a->off && off - a->off + chunk <= a->bump);
		memcpy(&a->free_head[k], a->base + off, sizeof(uint64_t));
	} else {
		if (a->size - a->bump < chunk)
			return -ENOSPC;
		off = a->off + a->bump;
		a->bump += chunk;
	}
	a->in_use += chunk;
	*ret_off = off;
	*ret_chunk = (uint32_t)chunk;
	return 0;
}

void
store_arena_free(struct store_arena *a, uint64_t off, uint32_t chunk)
{
	unsigned k = store_arena_class(chunk);

	/* A chunk this arena handed out, whole: else the free list would
	 * link foreign memory, or two chunks overlap. */
	INVARIANT(chunk == store_arena_chunk_size(chunk) && off >= a->off &&
	    off - a->off + chunk <= a->bump && a->in_use >= chunk);
	memcpy(a->base + off, &a->free_head[k], sizeof(uint64_t));
	a->free_head[k] = off;
	a->in_use -= chunk;
}
