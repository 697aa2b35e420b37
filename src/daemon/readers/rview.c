/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rview.c: a reader's view of the store for the exposition (rview.h):
 * its mappings of the published segments and its index of their kstats
 * in stem order.
 *
 * Each segment's part of the index is as the segment's chain was at the
 * chain id the view last read. When the chain id moved, the change log
 * tells which slots changed since; each is read again, and a slot that
 * now holds another generation (a kstat gone, another in its place)
 * drops the old entry and adds the new one. When the log no longer
 * reaches back that far, the segment is walked whole, and its entries of
 * the last walk are all dropped. New entries are sorted among themselves
 * and merged with the rest: never a sort of the whole index.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <statsd/kstat.h>

#include "clock.h"
#include "flat.h"
#include "kindex.h"
#include "pub.h"
#include "registry.h"
#include "render_prom.h"
#include "rights.h"
#include "rview.h"

/* Slots read from a change log at one refresh at most: more, and the
 * segment is walked instead. */
#define RV_CHANGES_MAX	4096u

struct rv_seg {
	uint64_t		 serial;
	struct store_reader	*r;
	uint32_t		 zone;
	bool			 gz;
	bool			 priv;
	char			 name[40];
	bool			 live;		/* published at the last refresh */
	uint64_t		 kcid;		/* the index's; 0: walk it */
	uint32_t		 walk;		/* walks so far */
	/* By slot, the generation + 1 of the kstat the index holds there
	 * (0: none); and the same for a walk under way, which replaces it
	 * only if the walk ends well (one that fails keeps the index as
	 * it was: every entry of the last good walk, and the changes read
	 * since). */
	uint32_t		*gen, *wgen;
	uint32_t		 nslots;
	struct rv_seg		*next;
};

/* A new entry, before it is merged. */
struct rv_add {
	struct rv_ent	 e;
	const char	*stem, *module, *name;
};

struct rview {
	struct pub		*p;
	struct rv_ent		*v;
	size_t			 n;
	/* The same entries in kstat(1M)'s order (kindex_cmp()). */
	struct rv_ent		*k;
	/* The entries' strings: plen bytes used of pcap, pdead of them of
	 * entries dropped. */
	char			*pool;
	size_t			 plen, pcap, pdead;
	uint64_t		 rules;		/* prom_rules_gen() of the stems */
	bool			 stemmed;
	uint64_t		 refreshed_ns;	/* the last refresh */
	struct rv_seg		*segs;
	/* The refresh under way: its new entries. */
	struct rv_add		*add;
	size_t			 nadd, cadd;
	const struct prom_rules	*cur_rules;
	struct rv_seg		*cur_seg;
	uint32_t		*cur_gen;	/* cur_seg's gen or wgen */
	uint32_t		 changed[RV_CHANGES_MAX];
	uint32_t		 undo[RV_CHANGES_MAX];	/* gen[] before */
	/* A kstat's copy (rview_read()). */
	void			*buf;
	size_t			 bufcap;
	struct rview_stats	 st;
};

int
rview_stem_cmp(const char *a, const char *b)
{
	for (;; a++, b++) {
		unsigned char x = *a == '_' ? 1 : (unsigned char)*a;
		unsigned char y = *b == '_' ? 1 : (unsigned char)*b;

		if (x != y)
			return x < y ? -1 : 1;
		if (x == 0)
			return 0;
	}
}

int
rview_cmp(const char *as, const char *am, const char *an, int32_t ai,
    const char *bs, const char *bm, const char *bn, int32_t bi)
{
	int c;

	if ((c = rview_stem_cmp(as, bs)) != 0)
		return c;
	if ((c = strcmp(am, bm)) != 0)
		return c;
	if ((c = strcmp(an, bn)) != 0)
		return c;
	return ai < bi ? -1 : ai > bi;
}

int
rview_new(struct pub *p, struct rview **ret)
{
	struct rview *v = calloc(1, sizeof(*v));

	if (v == NULL)
		return -ENOMEM;
	v->p = p;
	*ret = v;
	return 0;
}

static void
rv_seg_free(struct rv_seg *s)
{
	store_reader_close(s->r);
	free(s->gen);
	free(s->wgen);
	free(s);
}

struct rview *
rview_free(struct rview *v)
{
	struct rv_seg *s;

	if (v == NULL)
		return NULL;
	while ((s = v->segs) != NULL) {
		v->segs = s->next;
		rv_seg_free(s);
	}
	free(v->v);
	free(v->k);
	free(v->pool);
	free(v->add);
	free(v->buf);
	free(v);
	return NULL;
}

const struct rv_ent *
rview_ents(const struct rview *v, size_t *ret_n)
{
	*ret_n = v->n;
	return v->v;
}

const struct rv_ent *
rview_ents_kstat(const struct rview *v, size_t *ret_n)
{
	*ret_n = v->n;
	return v->k;
}

size_t
rview_seek_kstat(const struct rview *v, const char *module,
    int32_t instance, const char *name, bool after)
{
	size_t lo = 0, hi = v->n;

	if (module == NULL)
		return 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct rv_ent *e = &v->k[mid];
		int c = kindex_cmp(v->pool + e->module, e->instance,
		    v->pool + e->name, module, instance, name);

		if (c < 0 || (after && c == 0))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int
kent_cmp(const void *x, const void *y, void *arg)
{
	const struct rv_ent *a = x, *b = y;
	const char *pool = arg;

	return kindex_cmp(pool + a->module, a->instance, pool + a->name,
	    pool + b->module, b->instance, pool + b->name);
}

const char *
rview_str(const struct rview *v, uint32_t off)
{
	return v->pool + off;
}

bool
rview_visible(const struct rv_ent *e, const struct peer *p)
{
	return rights_may_see(p, e->seg->priv, e->seg->zone, e->seg->gz);
}

uint64_t
rview_rules_gen(const struct rview *v)
{
	return v->stemmed ? v->rules : UINT64_MAX;
}

uint64_t
rview_refreshed_ns(const struct rview *v)
{
	return v->refreshed_ns;
}

void
rview_stats(const struct rview *v, struct rview_stats *ret)
{
	*ret = v->st;
}

/* Append the string s (l bytes) to the pool; its offset in *off.
 * Returns: 0; -ENOMEM. */
static int
pool_add(struct rview *v, const char *s, size_t l, uint32_t *off)
{
	if (v->plen + l + 1 > v->pcap) {
		size_t nc = v->pcap > 0 ? v->pcap * 2 : 4096;
		char *np;

		while (nc < v->plen + l + 1)
			nc *= 2;
		if (nc > UINT32_MAX || (np = realloc(v->pool, nc)) == NULL)
			return -ENOMEM;
		v->pool = np;
		v->pcap = nc;
	}
	memcpy(v->pool + v->plen, s, l);
	v->pool[v->plen + l] = '\0';
	*off = (uint32_t)v->plen;
	v->plen += l + 1;
	return 0;
}

static size_t
ent_bytes(const struct rview *v, const struct rv_ent *e)
{
	return strlen(v->pool + e->stem) + strlen(v->pool + e->module) +
	    strlen(v->pool + e->name) + 3;
}

/* Add the kstat of h, in slot e of the segment being refreshed, to the
 * new entries. Returns: 0; -ENOMEM. */
static int
rv_add(struct rview *v, const struct store_entry *se,
    const struct kstat_hdr *h)
{
	char stem[PROM_NAME_MAX];
	struct rv_add *a;

	if (v->nadd == v->cadd) {
		size_t nc = v->cadd > 0 ? 2 * v->cadd : 256;
		void *np = realloc(v->add, nc * sizeof(*v->add));

		if (np == NULL)
			return -ENOMEM;
		v->add = np;
		v->cadd = nc;
	}
	a = &v->add[v->nadd];
	prom_stem_rules(v->cur_rules, h, stem, sizeof(stem));
	if (pool_add(v, stem, strlen(stem), &a->e.stem) < 0 ||
	    pool_add(v, h->module, strlen(h->module), &a->e.module) < 0 ||
	    pool_add(v, h->name, strlen(h->name), &a->e.name) < 0)
		return -ENOMEM;
	a->e.instance = h->instance;
	a->e.seg = v->cur_seg;
	a->e.ref = se->ref;
	a->e.walk = v->cur_seg->walk;
	if (se->ref.slot < v->cur_seg->nslots)
		v->cur_gen[se->ref.slot] = se->ref.gen + 1;
	v->nadd++;
	return 0;
}

/* The walk's callback: a kstat, or (NULL) the chain changed under the
 * walk, which starts again. */
static int
rv_walk_one(void *arg, const struct store_entry *se, const struct kstat_hdr *h)
{
	struct rview *v = arg;

	if (se == NULL) {
		/* Drop what this walk gathered (its strings stay as dead
		 * bytes of the pool). */
		while (v->nadd > 0 && v->add[v->nadd - 1].e.seg == v->cur_seg) {
			v->nadd--;
			v->pdead += ent_bytes(v, &v->add[v->nadd].e);
		}
		memset(v->cur_gen, 0, v->cur_seg->nslots * sizeof(uint32_t));
		return 0;
	}
	return rv_add(v, se, h);
}

static int rv_seg_changes(struct rview *v, struct rv_seg *s);

/* Drop the entries added since mark. */
static void
rv_drop_since(struct rview *v, size_t mark)
{
	while (v->nadd > mark) {
		v->nadd--;
		v->pdead += ent_bytes(v, &v->add[v->nadd].e);
	}
}

/*
 * Walk s whole: every entry it had is dropped, every kstat it has now
 * added. A chain that keeps changing under the walk (a storm of creates
 * and deletes: every try sees another KCID) is walked once as it is, and
 * what changed meanwhile is read from the change log (or, past what the
 * log holds, the pass kept as it is), so that a view is never left
 * behind for as long as the storm lasts.
 * Returns: 0; -ENOMEM; -EAGAIN (s is walked again next time).
 */
static int
rv_seg_walk(struct rview *v, struct rv_seg *s)
{
	size_t mark = v->nadd, mark2;
	uint64_t kcid, was = s->kcid;
	bool once = false;
	uint32_t *g;
	int r;

	s->walk++;
	memset(s->wgen, 0, s->nslots * sizeof(uint32_t));
	v->cur_gen = s->wgen;
	v->st.walks++;
	r = store_reader_walk(s->r, rv_walk_one, v, &kcid);
	if (r == -EAGAIN) {
		rv_drop_since(v, mark);
		memset(s->wgen, 0, s->nslots * sizeof(uint32_t));
		r = store_reader_walk_once(s->r, rv_walk_one, v, &kcid);
		once = true;
	}
	v->cur_gen = s->gen;
	if (r < 0) {
		rv_drop_since(v, mark);
		s->walk--;
		return r == -ENOMEM ? r : -EAGAIN;
	}
	g = s->gen;
	s->gen = s->wgen;
	s->wgen = g;
	s->kcid = kcid;
	if (!once)
		return 0;
	/* The slots changed since the pass began, as they are now (the
	 * pass may have seen them before, after, or not at all). */
	v->st.catchups++;
	v->cur_gen = s->gen;
	mark2 = v->nadd;
	if ((r = rv_seg_changes(v, s)) == -ERANGE) {
		/*
		 * More changes during the pass than the log holds. The pass
		 * stands as it is: the table is walked slot by slot, so a
		 * kstat that lived through the pass is in it, each read
		 * whole; one made or removed meanwhile may be or not, as in
		 * any read taken while the chain changes. s->kcid stays the
		 * pass's start: the next refresh reads on from there, or
		 * walks again. Never a view left behind for as long as a
		 * storm lasts.
		 */
		rv_drop_since(v, mark2);
		v->st.overruns++;
		return 0;
	}
	if (r < 0) {
		/* As it was: the walk's gens undone, its entries dropped. */
		rv_drop_since(v, mark);
		g = s->gen;
		s->gen = s->wgen;
		s->wgen = g;
		s->kcid = was;
		s->walk--;
		return r == -ENOMEM ? r : -EAGAIN;
	}
	return 0;
}

/* Read the slots of s that changed since the index's chain id.
 * Returns: 0; -ERANGE (walk it instead); -ENOMEM. */
static int
rv_seg_changes(struct rview *v, struct rv_seg *s)
{
	struct store_entry se;
	struct kstat_hdr h;
	uint64_t kcid;
	size_t n, i;
	int r;

	if (s->kcid == 0)
		return -ERANGE;
	r = store_reader_changes(s->r, s->kcid, v->changed, RV_CHANGES_MAX,
	    &n, &kcid);
	if (r < 0)
		return -ERANGE;
	v->st.changes += n;
	for (i = 0; i < n; i++) {
		uint32_t slot = v->changed[i];

		v->undo[i] = slot < s->nslots ? s->gen[slot] : 0;
		if (slot >= s->nslots)
			continue;
		r = store_reader_slot(s->r, slot, &se, &h);
		if (r == -ESTALE) {
			s->gen[slot] = 0;
			continue;
		}
		if (r == 0 && s->gen[slot] == se.ref.gen + 1)
			continue;	/* re-laid: the same kstat */
		if (r == 0)
			r = rv_add(v, &se, &h);
		if (r < 0) {
			/* As it was (the caller drops what was added): a
			 * walk, or the next refresh, reads it all again. */
			while (i-- > 0)
				if (v->changed[i] < s->nslots)
					s->gen[v->changed[i]] = v->undo[i];
			return r == -ENOMEM ? r : -ERANGE;
		}
	}
	s->kcid = kcid;
	return 0;
}

static struct rv_seg *
rv_seg_find(struct rview *v, uint64_t serial)
{
	struct rv_seg *s;

	for (s = v->segs; s != NULL; s = s->next)
		if (s->serial == serial)
			return s;
	return NULL;
}

/* Map a published segment. Returns: it; NULL (not ready, no memory:
 * tried again at the next refresh). */
static struct rv_seg *
rv_seg_open(struct rview *v, const struct pub_seg *ps)
{
	struct rv_seg *s = calloc(1, sizeof(*s));
	int fd, r;

	if (s == NULL)
		return NULL;
	/* Its own read-only descriptor, closed once mapped: the mapping
	 * keeps the segment, whatever the writer does with its own. */
	if ((fd = store_segment_reader_fd(ps->seg)) < 0) {
		free(s);
		return NULL;
	}
	r = store_reader_open(fd, &s->r);
	close(fd);
	if (r < 0) {
		free(s);
		return NULL;
	}
	s->nslots = store_reader_slots(s->r);
	s->gen = calloc(s->nslots > 0 ? s->nslots : 1, sizeof(*s->gen));
	s->wgen = calloc(s->nslots > 0 ? s->nslots : 1, sizeof(*s->wgen));
	if (s->gen == NULL || s->wgen == NULL) {
		rv_seg_free(s);
		return NULL;
	}
	s->serial = ps->serial;
	memcpy(s->name, ps->name, sizeof(s->name));
	s->zone = ps->zone;
	s->gz = ps->gz;
	s->priv = ps->priv;
	s->next = v->segs;
	v->segs = s;
	v->st.segments++;
	return s;
}

static int
add_cmp(const void *x, const void *y)
{
	const struct rv_add *a = x, *b = y;

	return rview_cmp(a->stem, a->module, a->name, a->e.instance,
	    b->stem, b->module, b->name, b->e.instance);
}

/* Is e still what its segment's slot holds? */
static bool
ent_live(const struct rv_ent *e)
{
	const struct rv_seg *s = e->seg;

	return s->live && e->walk == s->walk && e->ref.slot < s->nslots &&
	    s->gen[e->ref.slot] == e->ref.gen + 1;
}

/* Where an entry of the stem order is, by the offset of its module
 * (each entry has strings of its own): a table the compaction fills, so
 * that the kstat order's copies of the entries follow. */
static size_t
off_home(uint32_t off, size_t mask)
{
	return (size_t)((off * UINT64_C(11400714819323198485)) >> 32) & mask;
}

/* Copy the strings entries still use to a pool of their own, once half
 * of it is strings of entries gone. */
static void
rv_pool_compact(struct rview *v)
{
	size_t cap = 0, i, j, mask = 15;
	char *old = v->pool;
	uint32_t s, m, n, *where;

	if (v->pdead < 65536 || 2 * v->pdead < v->plen)
		return;
	for (i = 0; i < v->n; i++)
		cap += ent_bytes(v, &v->v[i]);
	while (mask + 1 < 2 * v->n)
		mask = 2 * mask + 1;
	/* Slots hold an entry's index + 1 (0: empty). */
	if ((where = calloc(mask + 1, sizeof(*where))) == NULL)
		return;
	for (i = 0; i < v->n; i++) {
		for (j = off_home(v->v[i].module, mask); where[j] != 0;
		    j = (j + 1) & mask)
			;
		where[j] = (uint32_t)i + 1;
	}
	/* The kstat order's entries, by where they are in the other. */
	for (i = 0; i < v->n; i++) {
		for (j = off_home(v->k[i].module, mask);
		    v->v[where[j] - 1].module != v->k[i].module;
		    j = (j + 1) & mask)
			;
		v->k[i].walk = where[j] - 1;	/* for now: its index */
	}
	free(where);
	v->pool = NULL;
	v->plen = v->pcap = 0;
	if ((v->pool = malloc(cap > 0 ? cap : 1)) == NULL) {
		v->pool = old;
		for (i = 0; i < v->n; i++)
			v->k[i].walk = v->v[v->k[i].walk].walk;
		return;
	}
	v->pcap = cap;
	/* Room for all of them: pool_add() cannot fail from here. */
	for (i = 0; i < v->n; i++) {
		struct rv_ent *e = &v->v[i];

		s = e->stem;
		m = e->module;
		n = e->name;
		(void)pool_add(v, old + s, strlen(old + s), &e->stem);
		(void)pool_add(v, old + m, strlen(old + m), &e->module);
		(void)pool_add(v, old + n, strlen(old + n), &e->name);
	}
	for (i = 0; i < v->n; i++)
		v->k[i] = v->v[v->k[i].walk];
	free(old);
	v->pdead = 0;
	v->st.compactions++;
}

int
rview_refresh(struct rview *v, const struct prom_rules *rules)
{
	const struct pub_segs *ps = pub_segs(v->p);
	struct rv_seg *s, **sp;
	struct rv_ent *nv, *kv;
	size_t i, a, b, k, mark, nk, nkeep = 0;
	bool changed = false, restem = false, behind = false;
	int r = 0;

	v->nadd = 0;
	v->cur_rules = rules;
	/* Other rules: every stem is made again. */
	if (!v->stemmed || v->rules != prom_rules_gen(rules)) {
		for (s = v->segs; s != NULL; s = s->next)
			s->kcid = 0;
		changed = restem = true;
	}
	for (s = v->segs; s != NULL; s = s->next)
		s->live = false;
	for (i = 0; i < ps->n; i++) {
		if ((s = rv_seg_find(v, ps->v[i].serial)) == NULL &&
		    (s = rv_seg_open(v, &ps->v[i])) == NULL)
			continue;
		s->live = true;
	}
	for (s = v->segs; s != NULL && r != -ENOMEM; s = s->next) {
		if (!s->live) {
			changed = true;
			continue;
		}
		if (s->kcid != 0 && store_reader_kcid(s->r) == s->kcid)
			continue;
		changed = true;
		v->cur_seg = s;
		v->cur_gen = s->gen;
		mark = v->nadd;
		if ((r = rv_seg_changes(v, s)) == -ERANGE ||
		    r == -ENOMEM) {
			/* What the log gave is dropped: the walk finds it. */
			rv_drop_since(v, mark);
			r = rv_seg_walk(v, s);
		}
		if (r == -EAGAIN) {
			r = 0;	/* walked again at the next refresh */
			behind = true;
		}
	}
	if (r == -ENOMEM) {
		/* As it was: the next refresh walks what it must. */
		for (s = v->segs; s != NULL; s = s->next)
			s->kcid = 0;
		v->stemmed = false;
		return r;
	}
	v->refreshed_ns = clock_now_ns();
	if (!changed)
		return 0;
	if ((nv = malloc((v->n + v->nadd + 1) * sizeof(*nv))) == NULL) {
		for (s = v->segs; s != NULL; s = s->next)
			s->kcid = 0;
		v->stemmed = false;
		return -ENOMEM;
	}
	for (i = 0; i < v->nadd; i++) {
		v->add[i].stem = v->pool + v->add[i].e.stem;
		v->add[i].module = v->pool + v->add[i].e.module;
		v->add[i].name = v->pool + v->add[i].e.name;
	}
	if (v->nadd > 0)
		qsort(v->add, v->nadd, sizeof(*v->add), add_cmp);
	/* The entries still live, in order, merged with the new ones. */
	for (i = 0; i < v->n; i++) {
		if (ent_live(&v->v[i]))
			v->v[nkeep++] = v->v[i];
		else
			v->pdead += ent_bytes(v, &v->v[i]);
	}
	for (k = a = b = 0; a < nkeep || b < v->nadd; k++) {
		const struct rv_ent *ka = a < nkeep ? &v->v[a] : NULL;

		if (ka != NULL && (b == v->nadd || rview_cmp(
		    v->pool + ka->stem, v->pool + ka->module,
		    v->pool + ka->name, ka->instance, v->add[b].stem,
		    v->add[b].module, v->add[b].name,
		    v->add[b].e.instance) < 0))
			nv[k] = v->v[a++];
		else
			nv[k] = v->add[b++].e;
	}
	/* The kstat(1M) order: the entries kept, in that order already,
	 * merged with the new ones sorted so. */
	if ((kv = malloc((k + 1) * sizeof(*kv))) == NULL) {
		free(nv);
		for (s = v->segs; s != NULL; s = s->next)
			s->kcid = 0;
		v->stemmed = false;
		return -ENOMEM;
	}
	nk = 0;
	for (i = 0; i < v->n; i++)
		if (ent_live(&v->k[i]))
			v->k[nk++] = v->k[i];
	{
		struct rv_ent *ne = malloc((v->nadd + 1) * sizeof(*ne));
		size_t x, y, z;

		if (ne == NULL) {
			free(nv);
			free(kv);
			for (s = v->segs; s != NULL; s = s->next)
				s->kcid = 0;
			v->stemmed = false;
			return -ENOMEM;
		}
		for (i = 0; i < v->nadd; i++)
			ne[i] = v->add[i].e;
		qsort_r(ne, v->nadd, sizeof(*ne), kent_cmp, v->pool);
		for (z = x = y = 0; x < nk || y < v->nadd; z++) {
			if (x < nk && (y == v->nadd || kent_cmp(&v->k[x],
			    &ne[y], v->pool) < 0))
				kv[z] = v->k[x++];
			else
				kv[z] = ne[y++];
		}
		free(ne);
	}
	free(v->k);
	v->k = kv;
	free(v->v);
	v->v = nv;
	v->n = k;
	v->nadd = 0;
	v->rules = prom_rules_gen(rules);
	/* A segment left with its old stems is stemmed again next time. */
	v->stemmed = !(restem && behind);
	/* Segments no longer published: nothing of them is left. */
	for (sp = &v->segs; (s = *sp) != NULL;) {
		if (s->live) {
			sp = &s->next;
			continue;
		}
		*sp = s->next;
		rv_seg_free(s);
		v->st.segments--;
	}
	rv_pool_compact(v);
	return 0;
}

int
rview_header(struct rview *v, const struct rv_ent *e, struct kstat_hdr *h)
{
	size_t size;
	int r;

	(void)v;
	r = store_reader_read(e->seg->r, e->ref, NULL, h, NULL, 0, &size);
	return r == -ENOBUFS ? 0 : r;
}

int
rview_read(struct rview *v, const struct rv_ent *e, struct kstat_hdr *h,
    struct ks_view *kv)
{
	const struct reg_template *t;
	struct store_entry se;

	return rview_read_entry(v, e, h, kv, &se, &t);
}

int
rview_read_entry(struct rview *v, const struct rv_ent *e, struct kstat_hdr *h,
    struct ks_view *kv, struct store_entry *se, const struct reg_template **ret_t)
{
	const struct reg_template *t;
	size_t size = 0;
	int r, tries;

	for (tries = 0; tries < 4; tries++) {
		r = store_reader_read(e->seg->r, e->ref, se, h, v->buf,
		    v->bufcap, &size);
		if (r != -ENOBUFS)
			break;
		free(v->buf);
		v->bufcap = 0;
		if ((v->buf = malloc(size)) == NULL)
			return -ENOMEM;
		v->bufcap = size;
	}
	if (r < 0)
		return r == -ENOBUFS ? -EAGAIN : r;
	if ((r = store_reader_read_text(e->seg->r, e->ref, h)) < 0)
		return r;
	if ((t = pub_tpl_find(v->p, se->slot.tpl_hash)) == NULL)
		return -ENOENT;
	kv->hdr = h;
	kv->sb = v->buf;
	kv->names = (const char *const *)t->names;
	kv->nnames = t->nnames;
	kv->k2 = t->k2;
	*ret_t = t;
	return 0;
}

int
rview_entry(struct rview *v, const struct rv_ent *e, struct store_entry *se,
    struct kstat_hdr *h, const struct reg_template **ret_t)
{
	size_t size;
	int r;

	r = store_reader_read(e->seg->r, e->ref, se, h, NULL, 0, &size);
	if (r < 0 && r != -ENOBUFS)
		return r;
	if ((r = store_reader_read_text(e->seg->r, e->ref, h)) < 0)
		return r;
	if ((*ret_t = pub_tpl_find(v->p, se->slot.tpl_hash)) == NULL)
		return -ENOENT;
	return 0;
}

const char *
rview_seg_name(const struct rv_ent *e)
{
	return e->seg->name;
}

void
rview_seg_where(const struct rv_ent *e, uint32_t *ret_zone, bool *ret_gz)
{
	*ret_zone = e->seg->zone;
	*ret_gz = e->seg->gz;
}
