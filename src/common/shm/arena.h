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
/* Free ranges store_arena_alloc_at() may leave below the bump pointer. */
#define STORE_ARENA_HOLES_MAX	1024u

/* A free range [off, end) (segment offsets) that no free list holds. */
struct store_arena_hole {
	uint64_t off;
	uint64_t end;
};

/*
 * Power-of-two size classes with a free list per class; fresh space comes
 * from a bump pointer. The state lives in the daemon's memory, the list
 * links in the first 8 bytes of free chunks (segment offsets): everything
 * the arena holds is described by the kstat table, so after a restart it
 * can be rebuilt from the table alone.
 *
 * A chunk placed at a given offset (store_arena_alloc_at(), a restarted
 * daemon laying a blob out where the one before had it) may leave space
 * below the bump pointer that no chunk covers: such space is kept as
 * holes, sorted and apart, which a later chunk placed inside splits and a
 * chunk freed beside merges back into (so that placing and freeing never
 * loses room for the largest class); a hole that reaches the bump pointer
 * goes back to it.
 */
struct store_arena {
	uint8_t *base;		/* segment mapping */
	uint64_t off;		/* arena start, from segment start */
	uint64_t size;
	uint64_t bump;		/* next fresh byte, from arena start */
	uint64_t free_head[STORE_ARENA_CLASSES];	/* 0 = empty */
	uint64_t in_use;	/* bytes in allocated chunks */
	uint32_t nholes;
	struct store_arena_hole holes[STORE_ARENA_HOLES_MAX];	/* by off */
};

/* Set up an empty arena over [off, off + size) of the mapping at base. */
void store_arena_init(struct store_arena *a, uint8_t *base, uint64_t off, uint64_t size);

/* The size of the chunk store_arena_alloc() takes for n bytes; 0 if n is
 * 0 or larger than STORE_ARENA_CHUNK_MAX. */
uint64_t store_arena_chunk_size(uint64_t n);

/*
 * Allocate a chunk of at least n bytes (n >= 1): from its class's free
 * list, else the first hole with room (from its start), else fresh space.
 * Returns: 0, with *ret_off (from segment start, 64-byte aligned) and
 * *ret_chunk (the chunk's size); -E2BIG if n > STORE_ARENA_CHUNK_MAX;
 * -ENOSPC if the arena has no room.
 */
int store_arena_alloc(struct store_arena *a, uint64_t n, uint64_t *ret_off,
    uint32_t *ret_chunk);

/*
 * Allocate the chunk store_arena_alloc() would take for n bytes exactly at
 * off (from segment start), if every byte of it is free: past the bump
 * pointer (the space skipped becomes a hole) or inside one hole. Never
 * takes a chunk from a free list, so a chunk freed and not yet reused is
 * not handed out twice.
 * Returns: 0 and *ret_chunk; -E2BIG as store_arena_alloc(); -EINVAL if off
 * is not 64-byte aligned or the chunk would not lie inside the arena;
 * -EBUSY if any byte of it is taken (or in a free list), or placing it
 * would need a hole more than STORE_ARENA_HOLES_MAX.
 */
int store_arena_alloc_at(struct store_arena *a, uint64_t off, uint64_t n,
    uint32_t *ret_chunk);

/* Give back a chunk obtained from store_arena_alloc() or
 * store_arena_alloc_at(). */
void store_arena_free(struct store_arena *a, uint64_t off, uint32_t chunk);

#endif
