/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kindex.h: the registry's indexes of kstats — by handle (what every ring
 * record carries: the drain's lookup), by exact name (module, instance,
 * name), and in illumos kstat(1M)'s order, so that a read of many kstats
 * can stop after a page and resume after the last kstat it sent however
 * the chain changed meanwhile.
 *
 * Each kstat embeds a struct kx_entry whose key fields point into the
 * kstat itself; the index never owns entries or keys. Every operation
 * costs the same whatever the number of kstats, but for the ordered ones,
 * which cost O(log n): two hash tables (open addressing, grown by
 * doubling, deletion by shifting back so no tombstone builds up) and a
 * skip list.
 *
 * The order is kstat(1M)'s — module (strcasecmp), instance, name
 * (strcasecmp) — made total by comparing module and name exactly after
 * that, so that names differing only in case still have their places.
 */
#ifndef STATSD_DAEMON_KINDEX_H
#define STATSD_DAEMON_KINDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KX_MAX_HEIGHT	16	/* a quarter of the entries per level up */

struct kx_entry {
	/* The key: set before kindex_add(), unchanged while indexed. */
	uint32_t		 handle;
	int32_t			 instance;
	const char		*module;
	const char		*name;
	void			*item;		/* what the entry stands for */
	/* The index's. */
	uint32_t		 name_hash;
	uint8_t			 height;
	uint32_t		 unsorted;	/* not yet in the order: its
						 * place among those + 1 */
	struct kx_entry		**next;		/* height of them */
	uint64_t		 mprefix, nprefix;	/* kindex.c kx_prefix() */
};

struct kindex;

/* Returns: 0 and *ret; -ENOMEM. */
int kindex_new(struct kindex **ret);

/* NULL-safe; the entries still in it are their owners' again (what the
 * index allocated for them is freed). Returns: NULL. */
struct kindex *kindex_free(struct kindex *x);

/* Entries indexed. */
size_t kindex_count(const struct kindex *x);

/* How far the entry furthest from its home slot in the name table lies
 * from it: the most slots a lookup by name walks past. */
size_t kindex_name_probe_max(const struct kindex *x);

/*
 * kindex_add: index e under its handle, its name and its place in the
 * order. Its place in the order is found when the order is next read
 * (kindex_seek(), kindex_next()), with every other entry added since.
 * Returns: 0; -EEXIST if its handle or its name is indexed already
 * (nothing changed); -ENOMEM (nothing changed).
 */
int kindex_add(struct kindex *x, struct kx_entry *e);

/* Take e out of every index (it must be in them). */
void kindex_remove(struct kindex *x, struct kx_entry *e);

/* Returns: the entry of that handle, or NULL. */
struct kx_entry *kindex_by_handle(const struct kindex *x, uint32_t handle);
/* Prefetch the slot kindex_by_handle(handle) reads first. */
void	kindex_hint(const struct kindex *x, uint32_t handle);

/* Returns: the entry of exactly that name, or NULL. */
struct kx_entry *kindex_by_name(const struct kindex *x, const char *module,
    int32_t instance, const char *name);

/*
 * kindex_seek: the first entry at or after (after: strictly after) the
 * key module:instance:name in the order; module NULL is before every
 * entry.
 * Returns: it, or NULL at the end.
 */
struct kx_entry *kindex_seek(struct kindex *x, const char *module,
    int32_t instance, const char *name, bool after);

/* Returns: the entry after e (which x indexes) in the order, or NULL at
 * the end. */
struct kx_entry *kindex_next(struct kindex *x, const struct kx_entry *e);

/* The order: <0, 0 or >0 as a comes before, is, or comes after b. */
int kindex_cmp(const char *am, int32_t ai, const char *an, const char *bm,
    int32_t bi, const char *bn);

#endif
