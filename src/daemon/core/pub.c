/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pub.c: the writer's publications for its reader threads (pub.h), and
 * their reclamation by epochs.
 *
 * Epochs: a global counter, and for each registered reader the value it
 * read when it entered its section (0 while it is in none). What the
 * writer makes unreachable is retired with the counter's value, which is
 * then raised. A reader that entered with a value above an object's was
 * in its section only after the object became unreachable (every atomic
 * here is sequentially consistent), so the object is freed once no
 * reader in a section entered with a value at or below it.
 *
 * Templates are found by hash in an open-addressing table of pointers to
 * small immutable nodes, which the writer fills and empties in place (a
 * removed node leaves a tombstone, so that a lookup walks on past it)
 * and grows by publishing a new table: a reader sees a node or not,
 * never half of one.
 */
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "pub.h"

struct tnode {
	uint64_t			 hash;
	const struct reg_template	*t;
};

struct tmap {
	size_t			 mask;
	size_t			 used;		/* nodes and tombstones */
	size_t			 live;
	_Atomic(struct tnode *)	 slot[];
};

/* A removed node's place: a lookup goes on past it. */
static struct tnode tomb;

struct retired {
	void		(*fn)(void *);
	void		*arg;
	uint64_t	 epoch;
	struct retired	*next;
};

struct pub_reader {
	struct pub		*p;
	_Atomic uint64_t	 epoch;		/* 0: in no section */
	bool			 used;		/* the writer's */
};

struct pub {
	_Atomic uint64_t		 epoch;
	struct pub_reader		 readers[PUB_READERS];
	_Atomic(struct pub_segs *)	 segs;
	_Atomic(struct tmap *)		 tmap;
	_Atomic(void *)			 conf;
	void				(*conf_free)(void *);
	/* Oldest first. */
	struct retired			*head, **tailp;
	size_t				 nretired;
	void				(*wake)(void *);
	void				*wake_arg;
};

static struct tmap *
tmap_new(size_t slots)
{
	struct tmap *m;
	size_t i;

	m = malloc(sizeof(*m) + slots * sizeof(m->slot[0]));
	if (m == NULL)
		return NULL;
	m->mask = slots - 1;
	m->used = m->live = 0;
	for (i = 0; i < slots; i++)
		atomic_init(&m->slot[i], NULL);
	return m;
}

static size_t
tmap_home(const struct tmap *m, uint64_t hash)
{
	return (size_t)((hash * UINT64_C(11400714819323198485)) >> 20) &
	    m->mask;
}

int
pub_new(struct pub **ret)
{
	struct pub *p;
	struct pub_segs *s;
	struct tmap *m;

	p = calloc(1, sizeof(*p));
	s = calloc(1, sizeof(*s));
	m = tmap_new(64);
	if (p == NULL || s == NULL || m == NULL) {
		free(p);
		free(s);
		free(m);
		return -ENOMEM;
	}
	atomic_init(&p->epoch, 1);
	atomic_init(&p->segs, s);
	atomic_init(&p->tmap, m);
	atomic_init(&p->conf, NULL);
	for (unsigned i = 0; i < PUB_READERS; i++) {
		p->readers[i].p = p;
		atomic_init(&p->readers[i].epoch, 0);
	}
	p->tailp = &p->head;
	*ret = p;
	return 0;
}

static void
tmap_free_nodes(struct tmap *m)
{
	size_t i;

	for (i = 0; i <= m->mask; i++) {
		struct tnode *n = atomic_load(&m->slot[i]);

		if (n != NULL && n != &tomb)
			free(n);
	}
}

struct pub *
pub_free(struct pub *p)
{
	struct retired *r;
	struct tmap *m;

	if (p == NULL)
		return NULL;
	while ((r = p->head) != NULL) {
		p->head = r->next;
		r->fn(r->arg);
		free(r);
	}
	free(atomic_load(&p->segs));
	m = atomic_load(&p->tmap);
	tmap_free_nodes(m);
	free(m);
	if (atomic_load(&p->conf) != NULL && p->conf_free != NULL)
		p->conf_free(atomic_load(&p->conf));
	free(p);
	return NULL;
}

/* ------------------------------------------------------------------ writer */

/* The least epoch a reader in a section entered with (UINT64_MAX: none
 * is in one). */
static uint64_t
pub_min_epoch(struct pub *p)
{
	uint64_t min = UINT64_MAX;
	unsigned i;

	for (i = 0; i < PUB_READERS; i++) {
		uint64_t e = atomic_load(&p->readers[i].epoch);

		if (e != 0 && e < min)
			min = e;
	}
	return min;
}

size_t
pub_reclaim(struct pub *p)
{
	uint64_t min = pub_min_epoch(p);
	struct retired *r;

	/* Retired in order: stop at the first a reader may hold. */
	while ((r = p->head) != NULL && r->epoch < min) {
		p->head = r->next;
		if (p->head == NULL)
			p->tailp = &p->head;
		p->nretired--;
		r->fn(r->arg);
		free(r);
	}
	return p->nretired;
}

int
pub_retire(struct pub *p, void (*fn)(void *), void *arg)
{
	struct retired *r;
	uint64_t e;

	e = atomic_fetch_add(&p->epoch, 1);
	if ((r = malloc(sizeof(*r))) == NULL) {
		/* No room to remember it: wait until every reader that
		 * might hold it has left its section. */
		while (pub_min_epoch(p) <= e)
			sched_yield();
		fn(arg);
		return -ENOMEM;
	}
	r->fn = fn;
	r->arg = arg;
	r->epoch = e;
	r->next = NULL;
	*p->tailp = r;
	p->tailp = &r->next;
	if (p->nretired++ == 0 && p->wake != NULL)
		p->wake(p->wake_arg);
	return 0;
}

void
pub_set_wake(struct pub *p, void (*fn)(void *), void *arg)
{
	p->wake = fn;
	p->wake_arg = arg;
}

int
pub_segs_set(struct pub *p, const struct pub_seg *v, size_t n)
{
	struct pub_segs *s, *old;

	s = malloc(sizeof(*s) + (n > 0 ? n : 1) * sizeof(s->v[0]));
	if (s == NULL)
		return -ENOMEM;
	s->n = n;
	if (n > 0)
		memcpy(s->v, v, n * sizeof(*v));
	old = atomic_exchange(&p->segs, s);
	(void)pub_retire(p, free, old);
	return 0;
}

/* Put node n in m's first empty or dead slot for its hash. */
static void
tmap_put(struct tmap *m, struct tnode *n)
{
	size_t i = tmap_home(m, n->hash);
	struct tnode *o;

	while ((o = atomic_load(&m->slot[i])) != NULL && o != &tomb)
		i = (i + 1) & m->mask;
	if (o == NULL)
		m->used++;
	m->live++;
	atomic_store(&m->slot[i], n);
}

int
pub_tpl_add(struct pub *p, const struct reg_template *t, uint64_t hash)
{
	struct tmap *m = atomic_load(&p->tmap), *nm;
	struct tnode *n;
	size_t i, slots;

	if ((n = malloc(sizeof(*n))) == NULL)
		return -ENOMEM;
	n->hash = hash;
	n->t = t;
	/* At most half full, tombstones included: grow (or just sweep
	 * the tombstones) into a new table, published whole. */
	if (2 * (m->used + 1) > m->mask + 1) {
		slots = m->mask + 1;
		while (2 * (m->live + 1) > slots / 2)
			slots *= 2;
		if ((nm = tmap_new(slots)) == NULL) {
			free(n);
			return -ENOMEM;
		}
		for (i = 0; i <= m->mask; i++) {
			struct tnode *o = atomic_load(&m->slot[i]);

			if (o != NULL && o != &tomb)
				tmap_put(nm, o);
		}
		atomic_store(&p->tmap, nm);
		(void)pub_retire(p, free, m);
		m = nm;
	}
	tmap_put(m, n);
	return 0;
}

void
pub_tpl_remove(struct pub *p, const struct reg_template *t, uint64_t hash)
{
	struct tmap *m = atomic_load(&p->tmap);
	size_t i = tmap_home(m, hash);
	struct tnode *n;

	for (; (n = atomic_load(&m->slot[i])) != NULL; i = (i + 1) & m->mask) {
		if (n == &tomb || n->t != t)
			continue;
		atomic_store(&m->slot[i], &tomb);
		m->live--;
		(void)pub_retire(p, free, n);
		return;
	}
}

void
pub_conf_set(struct pub *p, void *conf, void (*fn)(void *))
{
	void *old = atomic_exchange(&p->conf, conf);

	if (old != NULL && p->conf_free != NULL)
		(void)pub_retire(p, p->conf_free, old);
	p->conf_free = fn;
}

/* --------------------------------------------------------------- readers */

int
pub_reader_new(struct pub *p, struct pub_reader **ret)
{
	unsigned i;

	for (i = 0; i < PUB_READERS; i++)
		if (!p->readers[i].used) {
			p->readers[i].used = true;
			atomic_store(&p->readers[i].epoch, 0);
			*ret = &p->readers[i];
			return 0;
		}
	return -EBUSY;
}

struct pub_reader *
pub_reader_free(struct pub_reader *rd)
{
	if (rd == NULL)
		return NULL;
	atomic_store(&rd->epoch, 0);
	rd->used = false;
	return NULL;
}

void
pub_enter(struct pub_reader *rd)
{
	atomic_store(&rd->epoch, atomic_load(&rd->p->epoch));
}

void
pub_leave(struct pub_reader *rd)
{
	atomic_store(&rd->epoch, 0);
}

const struct pub_segs *
pub_segs(const struct pub *p)
{
	return atomic_load(&((struct pub *)p)->segs);
}

void *
pub_conf(const struct pub *p)
{
	return atomic_load(&((struct pub *)p)->conf);
}

const struct reg_template *
pub_tpl_find(const struct pub *p, uint64_t hash)
{
	struct tmap *m = atomic_load(&((struct pub *)p)->tmap);
	size_t i = tmap_home(m, hash);
	struct tnode *n;

	for (; (n = atomic_load(&m->slot[i])) != NULL; i = (i + 1) & m->mask)
		if (n != &tomb && n->hash == hash)
			return n->t;
	return NULL;
}
