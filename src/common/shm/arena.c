/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * arena.c: blob chunk allocation inside a store segment's arena (see
 * arena.h for why it is shaped this way).
 */
#include <errno.h>
#include <stdbool.h>
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

/* The index of the last hole that starts at or before off; nholes if
 * none does. */
static uint32_t
store_arena_hole_at(const struct store_arena *a, uint64_t off)
{
	uint32_t lo = 0, hi = a->nholes, mid;

	/* The first hole starting after off is holes[lo]. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (a->holes[mid].off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 ? lo - 1 : a->nholes;
}

static void
store_arena_hole_del(struct store_arena *a, uint32_t i)
{
	memmove(&a->holes[i], &a->holes[i + 1], (a->nholes - i - 1) *
	    sizeof(a->holes[0]));
	a->nholes--;
}

/* Make [off, end) hole i (moving those from i up). nholes < the most. */
static void
store_arena_hole_ins(struct store_arena *a, uint32_t i, uint64_t off,
    uint64_t end)
{
	memmove(&a->holes[i + 1], &a->holes[i], (a->nholes - i) *
	    sizeof(a->holes[0]));
	a->holes[i].off = off;
	a->holes[i].end = end;
	a->nholes++;
}

/* A last hole that reaches the bump pointer is fresh space again. */
static void
store_arena_hole_fold(struct store_arena *a)
{
	struct store_arena_hole *h;

	if (a->nholes == 0)
		return;
	h = &a->holes[a->nholes - 1];
	if (h->end == a->off + a->bump) {
		a->bump = h->off - a->off;
		a->nholes--;
	}
}

/* A chunk of chunk bytes from the start of the first hole that has room.
 * Returns: whether there was one (*ret_off). */
static bool
store_arena_hole_take(struct store_arena *a, uint64_t chunk,
    uint64_t *ret_off)
{
	uint32_t i;

	for (i = 0; i < a->nholes; i++) {
		struct store_arena_hole *h = &a->holes[i];

		if (h->end - h->off < chunk)
			continue;
		*ret_off = h->off;
		h->off += chunk;
		if (h->off == h->end)
			store_arena_hole_del(a, i);
		return true;
	}
	return false;
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
	} else if (store_arena_hole_take(a, chunk, &off)) {
		/* Holes before fresh space: a restarted daemon restores
		 * kstats at their offsets first and makes its own after,
		 * which then fill the space below them as they first did. */
	} else if (a->size - a->bump >= chunk) {
		off = a->off + a->bump;
		a->bump += chunk;
	} else {
		return -ENOSPC;
	}
	a->in_use += chunk;
	*ret_off = off;
	*ret_chunk = (uint32_t)chunk;
	return 0;
}

int
store_arena_alloc_at(struct store_arena *a, uint64_t off, uint64_t n,
    uint32_t *ret_chunk)
{
	struct store_arena_hole *h;
	uint64_t chunk, top = a->off + a->bump;
	uint32_t i;

	if (n == 0 || n > STORE_ARENA_CHUNK_MAX)
		return -E2BIG;
	chunk = store_arena_chunk_size(n);
	/* off comes from a peer: inside the arena, on a chunk boundary,
	 * before anything is computed from it. */
	if (off % (UINT64_C(1) << STORE_ARENA_MIN_SHIFT) != 0 ||
	    off < a->off || off - a->off > a->size ||
	    a->size - (off - a->off) < chunk)
		return -EINVAL;
	if (off >= top) {
		/* Fresh space: what lies between the bump pointer and off
		 * becomes a hole (no hole reaches the bump pointer: the
		 * fold gives such a one back to it). */
		if (off > top) {
			if (a->nholes == STORE_ARENA_HOLES_MAX)
				return -EBUSY;
			store_arena_hole_ins(a, a->nholes, top, off);
		}
		a->bump = off - a->off + chunk;
	} else {
		i = store_arena_hole_at(a, off);
		if (i == a->nholes)
			return -EBUSY;
		h = &a->holes[i];
		if (off + chunk > h->end)
			return -EBUSY;
		if (h->off < off && off + chunk < h->end) {
			/* In the middle: the hole splits in two. */
			if (a->nholes == STORE_ARENA_HOLES_MAX)
				return -EBUSY;
			store_arena_hole_ins(a, i + 1, off + chunk, h->end);
			a->holes[i].end = off;
		} else if (h->off < off) {
			h->end = off;
		} else if (off + chunk < h->end) {
			h->off = off + chunk;
		} else {
			store_arena_hole_del(a, i);
		}
	}
	a->in_use += chunk;
	*ret_chunk = (uint32_t)chunk;
	return 0;
}

void
store_arena_free(struct store_arena *a, uint64_t off, uint32_t chunk)
{
	unsigned k = store_arena_class(chunk);
	uint32_t i, j;
	bool prev, next;

	/* A chunk this arena handed out, whole: else the free list would
	 * link foreign memory, or two chunks overlap. */
	INVARIANT(chunk == store_arena_chunk_size(chunk) && off >= a->off &&
	    off - a->off + chunk <= a->bump && a->in_use >= chunk);
	a->in_use -= chunk;
	/* Beside a hole: back into it, so that chunks placed in a hole
	 * and freed leave it as whole as it was. */
	i = store_arena_hole_at(a, off);
	j = i < a->nholes ? i + 1 : 0;
	prev = i < a->nholes && a->holes[i].end == off;
	next = j < a->nholes && a->holes[j].off == off + chunk;
	if (prev && next) {
		a->holes[i].end = a->holes[j].end;
		store_arena_hole_del(a, j);
	} else if (prev) {
		a->holes[i].end += chunk;
	} else if (next) {
		a->holes[j].off = off;
	} else {
		memcpy(a->base + off, &a->free_head[k], sizeof(uint64_t));
		a->free_head[k] = off;
		return;
	}
	store_arena_hole_fold(a);
}
