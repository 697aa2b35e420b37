/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * arena.h: the allocator for blob chunks inside a store segment's arena.
 * Internal to the store writer (the daemon); readers never use it and never
 * need to, since every chunk is described by its kstat header.
 */
#ifndef STATSD_COMMON_ARENA_H
#define STATSD_COMMON_ARENA_H

#include <stdint.h>

#define STORE_ARENA_MIN_SHIFT	6u	/* 64-byte chunks: cache-line aligned */
#define STORE_ARENA_CLASSES	12u	/* 64 B .. 128 KiB */
#define STORE_ARENA_CHUNK_MAX	(1u << (STORE_ARENA_MIN_SHIFT + STORE_ARENA_CLASSES - 1))

/*
 * Power-of-two size classes with a free list per class; fresh space comes
 * from a bump pointer. The state lives in the daemon's memory, the list
 * links in the first 8 bytes of free chunks (segment offsets): everything
 * the arena holds is described by the kstat table, so after a restart it
 * can be rebuilt from the table alone.
 */
struct store_arena {
	uint8_t *base;		/* segment mapping */
	uint64_t off;		/* arena start, from segment start */
	uint64_t size;
	uint64_t bump;		/* next fresh byte, from arena start */
	uint64_t free_head[STORE_ARENA_CLASSES];	/* 0 = empty */
	uint64_t in_use;	/* bytes in allocated chunks */
};

/* Set up an empty arena over [off, off + size) of the mapping at base. */
void store_arena_init(struct store_arena *a, uint8_t *base, uint64_t off, uint64_t size);

/* The size of the chunk store_arena_alloc() takes for n bytes; 0 if n is
 * 0 or larger than STORE_ARENA_CHUNK_MAX. */
uint64_t store_arena_chunk_size(uint64_t n);

/*
 * Allocate a chunk of at least n bytes (n >= 1).
 * Returns: 0, with *ret_off (from segment start, 64-byte aligned) and
 * *ret_chunk (the chunk's size); -E2BIG if n > STORE_ARENA_CHUNK_MAX;
 * -ENOSPC if the arena has no room.
 */
int store_arena_alloc(struct store_arena *a, uint64_t n, uint64_t *ret_off,
    uint32_t *ret_chunk);

/* Give back a chunk obtained from store_arena_alloc(). */
void store_arena_free(struct store_arena *a, uint64_t off, uint32_t chunk);

#endif
