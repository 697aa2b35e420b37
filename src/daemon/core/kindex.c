/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kindex.c: the registry's kstat indexes (kindex.h): a hash table by
 * handle, one by name, and a skip list in kstat(1M)'s order.
 *
 * Peers choose the names, so the name table's hash is keyed (SipHash-1-3,
 * siphash.h) with a key drawn when the index is made, and so is the skip
 * list's coin: with FNV and a fixed seed a local user could compute names
 * that share one run of the table, or an order of creation that keeps
 * every tall node at one end of the list, and make every lookup walk all
 * of their kstats.
 *
 * An entry added finds its place in the skip list only when the order is
 * next read, or once KX_UNSORTED_MAX wait, all of them together. A
 * creation's walk down the list was some 60 cache misses at 50,000
 * kstats, a fifth of statsd's CPU for a kstat_create() call; placed in
 * sorted batches (kx_settle()), each entry's search starts where the
 * last one's ended.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "invariant.h"
#include "kindex.h"
#include "siphash.h"

#define KX_MIN_SLOTS	64u
/* Placed at the latest when this many wait: a walk, or the creation that
 * fills the array, places at most this many at once (a median of 2.5 ms
 * at 100,000 kstats and 6 ms at a million, here), never a million. */
#define KX_UNSORTED_MAX	1024u

/* An open-addressing table of entries with linear probing. */
struct kx_table {
	struct kx_entry	**slot;
	size_t		  mask;
	size_t		  n;
};

struct kindex {
	struct kx_table	 by_handle;
	struct kx_table	 by_name;
	struct kx_entry	*head[KX_MAX_HEIGHT];	/* the skip list's */
	uint8_t		 height;		/* levels in use */
	struct kx_entry	*unsorted[KX_UNSORTED_MAX]; /* not yet in it */
	size_t		 nunsorted;
	uint64_t	 rnd;			/* for node heights */
	struct sip_key	 key;			/* of the name hash */
};

/* ------------------------------------------------------------------ keys */

static uint32_t
kx_handle_hash(uint32_t h)
{
	/* Fibonacci hashing spreads the sequential handles. */
	return (uint32_t)((h * UINT64_C(11400714819323198485)) >> 32);
}

static uint32_t
kx_name_hash(const struct kindex *x, const char *module, int32_t instance,
    const char *name)
{
	struct sip_state st;
	uint8_t inst[4];
	unsigned i;

	for (i = 0; i < 4; i++)
		inst[i] = (uint8_t)((uint32_t)instance >> (8 * i));
	/* The module's NUL ends it, so no two names give the same bytes. */
	sip_init(&st, &x->key, 1, 3);
	sip_update(&st, module, strlen(module) + 1);
	sip_update(&st, inst, sizeof(inst));
	sip_update(&st, name, strlen(name));
	return (uint32_t)sip_final(&st);
}

int
kindex_cmp(const char *am, int32_t ai, const char *an, const char *bm,
    int32_t bi, const char *bn)
{
	int c = strcasecmp(am, bm);

	if (c != 0)
		return c;
	if (ai != bi)
		return ai < bi ? -1 : 1;
	c = strcasecmp(an, bn);
	if (c != 0)
		return c;
	c = strcmp(am, bm);
	return c != 0 ? c : strcmp(an, bn);
}

/*
 * A name's first 8 bytes, case folded as strcasecmp() folds them, in one
 * big-endian integer (bytes after the NUL are 0; no other byte folds to
 * 0, so the lowest byte is 0 exactly when the name ended among them:
 * KX_WHOLE()). Two names whose prefixes differ compare as their prefixes;
 * equal prefixes that hold the NUL are equal names. So a walk of the
 * skip list decides at most entries from the integers the entry holds,
 * where strcasecmp() read both names: at 80,000 kstats each insertion
 * compared some 25 entries, each a cache miss on the entry, on its
 * links, and on its strings.
 */
#define KX_WHOLE(prefix)	(((prefix) & 0xff) == 0)

static uint64_t
kx_prefix(const char *s)
{
	uint64_t k = 0;
	bool end = false;
	unsigned j;

	for (j = 0; j < 8; j++) {
		unsigned char c = end ? 0 : (unsigned char)s[j];

		if (c == 0)
			end = true;
		k = k << 8 | (uint8_t)tolower(c);
	}
	return k;
}

/* A key looked for in the skip list, with its prefixes. */
struct kx_key {
	const char	*m, *n;
	int32_t		 i;
	uint64_t	 mprefix, nprefix;
};

static void
kx_key_of(struct kx_key *k, const char *m, int32_t i, const char *n)
{
	k->m = m;
	k->n = n;
	k->i = i;
	k->mprefix = kx_prefix(m);
	k->nprefix = kx_prefix(n);
}

static void
kx_key_entry(struct kx_key *k, const struct kx_entry *e)
{
	k->m = e->module;
	k->n = e->name;
	k->i = e->instance;
	k->mprefix = e->mprefix;
	k->nprefix = e->nprefix;
}

/* kindex_cmp(a's key, k), from the prefixes where they tell. */
static int
kx_cmp(const struct kx_entry *a, const struct kx_key *k)
{
	int c;

	if (a->mprefix != k->mprefix)
		return a->mprefix < k->mprefix ? -1 : 1;
	if (!KX_WHOLE(a->mprefix) && (c = strcasecmp(a->module + 8, k->m + 8)) != 0)
		return c;
	if (a->instance != k->i)
		return a->instance < k->i ? -1 : 1;
	if (a->nprefix != k->nprefix)
		return a->nprefix < k->nprefix ? -1 : 1;
	if (!KX_WHOLE(a->nprefix) && (c = strcasecmp(a->name + 8, k->n + 8)) != 0)
		return c;
	c = strcmp(a->module, k->m);
	return c != 0 ? c : strcmp(a->name, k->n);
}

/* ---------------------------------------------------------- hash tables */

typedef uint32_t kx_home_fn(const struct kx_entry *e);

static uint32_t
kx_home_handle(const struct kx_entry *e)
{
	return kx_handle_hash(e->handle);
}

static uint32_t
kx_home_name(const struct kx_entry *e)
{
	return e->name_hash;
}

static int
kx_table_init(struct kx_table *t, size_t slots)
{
	t->slot = calloc(slots, sizeof(*t->slot));
	if (t->slot == NULL)
		return -ENOMEM;
	t->mask = slots - 1;
	t->n = 0;
	return 0;
}

static void
kx_table_put(struct kx_table *t, struct kx_entry *e, kx_home_fn *home)
{
	size_t i = home(e) & t->mask;

	/* kx_table_reserve() keeps a free slot: without one the probe
	 * would never end. */
	INVARIANT(t->n <= t->mask);
	while (t->slot[i] != NULL)
		i = (i + 1) & t->mask;
	t->slot[i] = e;
	t->n++;
}

/* Make room for one more entry: the load stays at most a half.
 * Returns: 0; -ENOMEM (the table is unchanged). */
static int
kx_table_reserve(struct kx_table *t, kx_home_fn *home)
{
	struct kx_table nt;
	size_t i;

	if (2 * (t->n + 1) <= t->mask + 1)
		return 0;
	if (kx_table_init(&nt, 2 * (t->mask + 1)) < 0)
		return -ENOMEM;
	for (i = 0; i <= t->mask; i++)
		if (t->slot[i] != NULL)
			kx_table_put(&nt, t->slot[i], home);
	free(t->slot);
	*t = nt;
	return 0;
}

static void
kx_table_del(struct kx_table *t, struct kx_entry *e, kx_home_fn *home)
{
	size_t i = home(e) & t->mask, j, h;

	while (t->slot[i] != e) {
		if (t->slot[i] == NULL)
			return;
		i = (i + 1) & t->mask;
	}
	t->slot[i] = NULL;
	t->n--;
	/* Shift the rest of the run back over the hole, so that a probe
	 * never stops early at it: an entry moves unless its home lies
	 * cyclically in (i, j]. */
	for (j = (i + 1) & t->mask; t->slot[j] != NULL; j = (j + 1) &
	    t->mask) {
		h = home(t->slot[j]) & t->mask;
		if (i <= j ? (h <= i || h > j) : (h <= i && h > j)) {
			t->slot[i] = t->slot[j];
			t->slot[j] = NULL;
			i = j;
		}
	}
}

/* ------------------------------------------------------------ skip list */

static uint8_t
kx_height(struct kindex *x)
{
	uint64_t r;
	uint8_t h = 1;

	/* xorshift64 from a random seed: spread, and unknown to peers. */
	x->rnd ^= x->rnd << 13;
	x->rnd ^= x->rnd >> 7;
	x->rnd ^= x->rnd << 17;
	for (r = x->rnd; h < KX_MAX_HEIGHT && (r & 3) == 0; r >>= 2)
		h++;
	return h;
}

/* The last entry before the key at each level (NULL: the head). */
static void
kx_path(const struct kindex *x, const struct kx_key *k, bool after,
    struct kx_entry *pred[KX_MAX_HEIGHT])
{
	struct kx_entry *p = NULL, *q;
	int lv, c;

	for (lv = x->height - 1; lv >= 0; lv--) {
		for (;;) {
			q = p != NULL ? p->next[lv] : x->head[lv];
			if (q == NULL)
				break;
			c = kx_cmp(q, k);
			if (after ? c > 0 : c >= 0)
				break;
			p = q;
		}
		pred[lv] = p;
	}
}

static struct kx_entry **
kx_link(struct kindex *x, struct kx_entry *pred, int lv)
{
	return pred != NULL ? &pred->next[lv] : &x->head[lv];
}

static int
kx_unsorted_cmp(const void *a, const void *b)
{
	const struct kx_entry *ea = *(struct kx_entry *const *)a;
	struct kx_key k;

	kx_key_entry(&k, *(struct kx_entry *const *)b);
	return kx_cmp(ea, &k);
}

/*
 * Put the entries added since the order was last read into the list:
 * sorted, then each linked in after a search that starts where the last
 * one ended (a finger search). At each level the search goes on from the
 * last entry's predecessor there, unless the level above has already
 * moved past the last entry, which only happens forward. So the batch
 * costs a walk of the list's levels between its first and last key, not
 * one from the head for each, and the entries of the list it passes are
 * the same few at the upper levels. Cannot fail: the links were
 * allocated when each entry was added.
 */
static void
kx_settle(struct kindex *x)
{
	struct kx_entry *pred[KX_MAX_HEIGHT] = { NULL }, *p, *q, *e;
	struct kx_key k;
	size_t i;
	bool moved;
	int lv;

	if (x->nunsorted == 0)
		return;
	qsort(x->unsorted, x->nunsorted, sizeof(*x->unsorted),
	    kx_unsorted_cmp);
	for (i = 0; i < x->nunsorted; i++) {
		e = x->unsorted[i];
		kx_key_entry(&k, e);
		/* pred[] holds the last entry's predecessors (NULL: the
		 * head), each at or after the one of the level above. */
		p = NULL;
		moved = false;
		for (lv = x->height - 1; lv >= 0; lv--) {
			if (!moved)
				p = pred[lv];
			for (;;) {
				q = p != NULL ? p->next[lv] : x->head[lv];
				if (q == NULL || kx_cmp(q, &k) >= 0)
					break;
				p = q;
				moved = true;
			}
			pred[lv] = p;
		}
		if (e->height > x->height)
			x->height = e->height;
		for (lv = 0; lv < e->height; lv++) {
			struct kx_entry **l = kx_link(x, pred[lv], lv);

			e->next[lv] = *l;
			*l = e;
			pred[lv] = e;
		}
		e->unsorted = 0;
	}
	x->nunsorted = 0;
}

/* ------------------------------------------------------------------ API */

int
kindex_new(struct kindex **ret)
{
	struct kindex *x = calloc(1, sizeof(*x));

	if (x == NULL)
		return -ENOMEM;
	if (kx_table_init(&x->by_handle, KX_MIN_SLOTS) < 0 ||
	    kx_table_init(&x->by_name, KX_MIN_SLOTS) < 0) {
		kindex_free(x);
		return -ENOMEM;
	}
	x->height = 1;
	sip_key_random(&x->key);
	x->rnd = siphash13(&x->key, "height", 6) | 1;	/* never 0 */
	*ret = x;
	return 0;
}

struct kindex *
kindex_free(struct kindex *x)
{
	struct kx_entry *e, *next;

	if (x == NULL)
		return NULL;
	/* The entries stay their owners'; their links were the index's. */
	for (e = x->head[0]; e != NULL; e = next) {
		next = e->next[0];
		free(e->next);
		e->next = NULL;
		e->height = 0;
	}
	for (size_t i = 0; i < x->nunsorted; i++) {
		e = x->unsorted[i];
		free(e->next);
		e->next = NULL;
		e->height = 0;
		e->unsorted = 0;
	}
	free(x->by_handle.slot);
	free(x->by_name.slot);
	free(x);
	return NULL;
}

size_t
kindex_count(const struct kindex *x)
{
	return x->by_handle.n;
}

size_t
kindex_name_probe_max(const struct kindex *x)
{
	const struct kx_table *t = &x->by_name;
	size_t i, d, max = 0;

	for (i = 0; i <= t->mask; i++)
		if (t->slot[i] != NULL) {
			d = (i - (t->slot[i]->name_hash & t->mask)) & t->mask;
			if (d > max)
				max = d;
		}
	return max;
}

struct kx_entry *
kindex_by_handle(const struct kindex *x, uint32_t handle)
{
	const struct kx_table *t = &x->by_handle;
	size_t i = kx_handle_hash(handle) & t->mask;

	for (; t->slot[i] != NULL; i = (i + 1) & t->mask)
		if (t->slot[i]->handle == handle)
			return t->slot[i];
	return NULL;
}

void
kindex_hint(const struct kindex *x, uint32_t handle)
{
	const struct kx_table *t = &x->by_handle;

	__builtin_prefetch(&t->slot[kx_handle_hash(handle) & t->mask]);
}

/* kindex_by_name() for a name whose hash h is known. */
static struct kx_entry *
kx_by_name(const struct kindex *x, uint32_t h, const char *module,
    int32_t instance, const char *name)
{
	const struct kx_table *t = &x->by_name;
	size_t i = h & t->mask;

	for (; t->slot[i] != NULL; i = (i + 1) & t->mask) {
		const struct kx_entry *e = t->slot[i];

		if (e->name_hash == h && e->instance == instance &&
		    strcmp(e->module, module) == 0 &&
		    strcmp(e->name, name) == 0)
			return t->slot[i];
	}
	return NULL;
}

struct kx_entry *
kindex_by_name(const struct kindex *x, const char *module, int32_t instance,
    const char *name)
{
	return kx_by_name(x, kx_name_hash(x, module, instance, name), module,
	    instance, name);
}

int
kindex_add(struct kindex *x, struct kx_entry *e)
{
	struct kx_key k;
	uint32_t nh = kx_name_hash(x, e->module, e->instance, e->name);
	uint8_t h;

	if (kindex_by_handle(x, e->handle) != NULL ||
	    kx_by_name(x, nh, e->module, e->instance, e->name) != NULL)
		return -EEXIST;
	h = kx_height(x);
	e->next = calloc(h, sizeof(*e->next));
	if (e->next == NULL || kx_table_reserve(&x->by_handle,
	    kx_home_handle) < 0 || kx_table_reserve(&x->by_name,
	    kx_home_name) < 0) {
		free(e->next);
		e->next = NULL;
		return -ENOMEM;
	}
	e->name_hash = nh;
	e->height = h;
	kx_key_of(&k, e->module, e->instance, e->name);
	e->mprefix = k.mprefix;
	e->nprefix = k.nprefix;
	kx_table_put(&x->by_handle, e, kx_home_handle);
	kx_table_put(&x->by_name, e, kx_home_name);
	x->unsorted[x->nunsorted++] = e;
	e->unsorted = (uint32_t)x->nunsorted;
	if (x->nunsorted >= KX_UNSORTED_MAX)
		kx_settle(x);
	return 0;
}

void
kindex_remove(struct kindex *x, struct kx_entry *e)
{
	struct kx_entry *pred[KX_MAX_HEIGHT];
	struct kx_key k;
	int lv;

	kx_table_del(&x->by_handle, e, kx_home_handle);
	kx_table_del(&x->by_name, e, kx_home_name);
	if (e->unsorted != 0) {
		/* The last takes its place: their order is not kept. */
		struct kx_entry *last = x->unsorted[--x->nunsorted];

		x->unsorted[e->unsorted - 1] = last;
		last->unsorted = e->unsorted;
		e->unsorted = 0;
		goto unlinked;
	}
	kx_key_entry(&k, e);
	kx_path(x, &k, false, pred);
	for (lv = 0; lv < e->height; lv++) {
		struct kx_entry **l = kx_link(x, pred[lv], lv);

		if (*l == e)
			*l = e->next[lv];
	}
	while (x->height > 1 && x->head[x->height - 1] == NULL)
		x->height--;
unlinked:
	free(e->next);
	e->next = NULL;
	e->height = 0;
}

struct kx_entry *
kindex_seek(struct kindex *x, const char *module, int32_t instance,
    const char *name, bool after)
{
	struct kx_entry *pred[KX_MAX_HEIGHT];
	struct kx_key k;

	kx_settle(x);
	if (module == NULL)
		return x->head[0];
	kx_key_of(&k, module, instance, name);
	kx_path(x, &k, after, pred);
	return pred[0] != NULL ? pred[0]->next[0] : x->head[0];
}

struct kx_entry *
kindex_next(struct kindex *x, const struct kx_entry *e)
{
	/* Entries added since e was reached may come after it. */
	kx_settle(x);
	return e->next[0];
}
