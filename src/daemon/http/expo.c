/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * expo.c: the exposition in pages (expo.h): the index of kstats in stem
 * order, and the walk over it that renders a stem's kstats so that each
 * family's series come together.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <statsd/kstat.h>

#include "clock.h"
#include "daemon.h"
#include "expo.h"
#include "expo_pb.h"
#include "methods.h"
#include "registry.h"
#include "view.h"

/* What a page may take. */
struct expo_page_budget {
	size_t		 start;		/* the buffer's length before it */
	size_t		 bytes;
	uint64_t	 units;
};

/* Work units (about 4 ns each): a kstat looked at (found by its handle,
 * its zone, selector and class checked: about a microsecond over 10^4
 * kstats and more), and one rendered (its series). */
#define EXPO_COST_KSTAT		256u
#define EXPO_COST_SERIES	64u

/*
 * A group of at most this many kstats is looked over first, to render
 * one it shows alone in one pass; a larger one goes family by family at
 * once, in passes a page can stop in the middle of: looking it over
 * whole could not be.
 */
#define EXPO_GROUP_SCAN		64u

/*
 * The kstats in (stem, module, name, instance) order, by handle (a kstat
 * may go between pages), with their stems and names; brought up to date
 * when the chain changed (kstats, dormant ones, the segments' chain ids).
 */
struct expo_ent {
	uint32_t	 handle;
	uint32_t	 stem;		/* offsets in stems: the stem, */
	uint32_t	 module;	/* the module and the name */
	uint32_t	 name;
	int32_t		 instance;
};

struct expo_index {
	struct expo_ent	*v;
	size_t		 n;
	/* The strings of the entries (stems and names): plen bytes used of
	 * pcap, pdead of them of entries dropped. */
	char		*stems;
	size_t		 plen, pcap, pdead;
	uint64_t	 kcid, kstats, dormant;
	uint64_t	 rules;		/* prom_rules_gen() of the stems */
	uint64_t	 made_ns;
	bool		 valid;
};

/*
 * How old an index a scrape under way goes on with while kstats come and
 * go: a stale index is safe (a gone kstat's handle finds nothing; a new
 * one waits for the next scrape), and re-sorting 10^5 kstats a page would
 * make a scrape during a stream of creations quadratic.
 */
#define EXPO_INDEX_STALE_NS	1000000000ull

struct sort_ent {
	struct expo_ent	 e;
	const struct reg_kstat *k;
	const char	*stem;
};

/*
 * Stems in an order where '_' comes before every other character, so
 * that the stems that extend a stem at a '_' ("statsd_a_b" of
 * "statsd_a") follow it at once: their families can have the same names
 * (a:b's VOI "c_d" and a:b_c's VOI "d" are both statsd_a_b_c_d), and a
 * group of such stems is rendered as one, family by family.
 */
static int
stem_cmp(const char *a, const char *b)
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

/* Is s the stem root, or one that extends it at a '_'? */
static bool
in_group(const char *root, size_t rlen, const char *s)
{
	return strncmp(s, root, rlen) == 0 && (s[rlen] == '\0' ||
	    s[rlen] == '_');
}

/* The index's order: stem, module, name, instance. */
static int
ent_cmp(const char *as, const char *am, const char *an, int32_t ai,
    const char *bs, const char *bm, const char *bn, int32_t bi)
{
	int c;

	if ((c = stem_cmp(as, bs)) != 0)
		return c;
	if ((c = strcmp(am, bm)) != 0)
		return c;
	if ((c = strcmp(an, bn)) != 0)
		return c;
	return ai < bi ? -1 : ai > bi;
}

static int
sort_cmp(const void *x, const void *y)
{
	const struct sort_ent *a = x, *b = y;

	return ent_cmp(a->stem, a->k->hdr.module, a->k->hdr.name,
	    a->k->hdr.instance, b->stem, b->k->hdr.module, b->k->hdr.name,
	    b->k->hdr.instance);
}

/* Append the string v (l bytes) to the pool; its offset in *off.
 * Returns: 0; -ENOMEM. */
static int
pool_add(char **pool, size_t *len, size_t *cap, const char *v, size_t l,
    uint32_t *off)
{
	if (*len + l + 1 > *cap) {
		size_t nc = *cap > 0 ? *cap * 2 : 4096;
		char *np;

		while (nc < *len + l + 1)
			nc *= 2;
		if ((np = realloc(*pool, nc)) == NULL)
			return -ENOMEM;
		*pool = np;
		*cap = nc;
	}
	memcpy(*pool + *len, v, l + 1);
	*off = (uint32_t)*len;
	*len += l + 1;
	return 0;
}

void
expo_index_free(struct statsd *d)
{
	struct expo_index *x = d->expo_ix;

	if (x == NULL)
		return;
	free(x->v);
	free(x->stems);
	free(x);
	d->expo_ix = NULL;
}

/* The bytes an entry's strings take in the pool. */
static size_t
ent_bytes(const struct expo_index *x, const struct expo_ent *v)
{
	return strlen(x->stems + v->stem) + strlen(x->stems + v->module) +
	    strlen(x->stems + v->name) + 3;
}

/* Copy the strings entries still use to a pool of their own, once half
 * of it is strings of kstats gone (the pool as it was is kept if there
 * is no memory for it). */
static void
expo_pool_compact(struct expo_index *x)
{
	size_t len = 0, cap = 0, i;
	struct expo_ent *v;
	char *pool;

	if (x->pdead < 65536 || 2 * x->pdead < x->plen)
		return;
	for (i = 0; i < x->n; i++)
		cap += ent_bytes(x, &x->v[i]);
	if ((pool = malloc(cap > 0 ? cap : 1)) == NULL)
		return;
	/* Room for all of them: pool_add() cannot fail from here. */
	for (i = 0; i < x->n; i++) {
		v = &x->v[i];
		(void)pool_add(&pool, &len, &cap, x->stems + v->stem,
		    strlen(x->stems + v->stem), &v->stem);
		(void)pool_add(&pool, &len, &cap, x->stems + v->module,
		    strlen(x->stems + v->module), &v->module);
		(void)pool_add(&pool, &len, &cap, x->stems + v->name,
		    strlen(x->stems + v->name), &v->name);
	}
	free(x->stems);
	x->stems = pool;
	x->plen = len;
	x->pcap = cap;
	x->pdead = 0;
}

/* A set of handles (never 0: statsd gives out no handle 0), open
 * addressing with Fibonacci hashing, at most half full. */
struct handle_set {
	uint32_t	*slot;
	size_t		 mask;
};

static int
hset_init(struct handle_set *hs, size_t n)
{
	size_t slots = 16;

	while (slots < 2 * n)
		slots *= 2;
	hs->slot = calloc(slots, sizeof(*hs->slot));
	hs->mask = slots - 1;
	return hs->slot != NULL ? 0 : -ENOMEM;
}

static size_t
hset_home(const struct handle_set *hs, uint32_t h)
{
	return (size_t)((h * UINT64_C(11400714819323198485)) >> 32) &
	    hs->mask;
}

static void
hset_add(struct handle_set *hs, uint32_t h)
{
	size_t i = hset_home(hs, h);

	while (hs->slot[i] != 0 && hs->slot[i] != h)
		i = (i + 1) & hs->mask;
	hs->slot[i] = h;
}

static bool
hset_has(const struct handle_set *hs, uint32_t h)
{
	size_t i = hset_home(hs, h);

	for (; hs->slot[i] != 0; i = (i + 1) & hs->mask)
		if (hs->slot[i] == h)
			return true;
	return false;
}

/*
 * The index as the chain is now (fresh: at a scrape's start), or as it
 * was at most EXPO_INDEX_STALE_NS ago. A change is merged in, never
 * sorted whole again: the entries of kstats gone are dropped, those of
 * new kstats sorted among themselves and merged with the rest, so that a
 * scrape after one new kstat costs a pass over the index (hash lookups
 * and copies), not a sort of all of it (at 100,000 kstats, the sort held
 * the loop for hundreds of milliseconds at every scrape that followed a
 * change).
 * Returns: it; NULL for -ENOMEM (the index as it was is kept).
 */
static struct expo_index *
expo_index(struct statsd *d, bool fresh, const struct prom_rules *rules)
{
	struct expo_index *x = d->expo_ix;
	struct registry_stats rs;
	struct reg_kstat **all;
	struct sort_ent *add = NULL;
	struct expo_ent *keep = NULL, *nv = NULL;
	struct handle_set seen = { NULL, 0 };
	char stem[PROM_NAME_MAX];
	size_t n, i, a, b, nadd = 0, nkeep = 0, dead = 0;
	bool restem;

	registry_stats(d->reg, &rs);
	/* Mapping rules rename statsd series: their stems change. */
	if (x != NULL && x->valid && x->rules == prom_rules_gen(rules) &&
	    ((x->kcid == rs.kcid && x->kstats == rs.kstats &&
	    x->dormant == rs.dormant) || (!fresh && clock_now_ns() -
	    x->made_ns < EXPO_INDEX_STALE_NS)))
		return x;
	if (x == NULL) {
		if ((x = calloc(1, sizeof(*x))) == NULL)
			return NULL;
		d->expo_ix = x;
	}
	restem = x->rules != prom_rules_gen(rules);
	n = registry_kstats(d->reg, &all);
	keep = malloc((x->n > 0 ? x->n : 1) * sizeof(*keep));
	add = malloc((n > 0 ? n : 1) * sizeof(*add));
	nv = malloc((n > 0 ? n : 1) * sizeof(*nv));
	/* A set of the handles kept, not a bitmap by handle: handles grow
	 * for as long as statsd runs. */
	if (hset_init(&seen, x->n) < 0 || keep == NULL || add == NULL ||
	    nv == NULL)
		goto fail;
	/* The entries whose kstats are still there, in order. Handles are
	 * never reused: one still there is the same kstat. */
	for (i = 0; i < x->n; i++) {
		uint32_t h = x->v[i].handle;

		/* Other mapping rules: every stem is made again. */
		if (restem) {
			dead += ent_bytes(x, &x->v[i]);
			continue;
		}
		if (h == 0 || registry_kstat_by_handle(d->reg, h) == NULL) {
			dead += ent_bytes(x, &x->v[i]);
			continue;
		}
		hset_add(&seen, h);
		keep[nkeep++] = x->v[i];
	}
	/* The new ones, their strings added to the pool. */
	for (i = 0; i < n; i++) {
		const struct kstat_hdr *hd = &all[i]->hdr;
		uint32_t h = all[i]->handle;
		size_t l;

		if (h != 0 && hset_has(&seen, h))
			continue;
		l = strlen(prom_stem_rules(rules, hd, stem, sizeof(stem)));
		/* The names too: a page resumes inside a group by looking
		 * its place up, whatever kstats went meanwhile. */
		if (pool_add(&x->stems, &x->plen, &x->pcap, stem, l,
		    &add[nadd].e.stem) < 0 || pool_add(&x->stems, &x->plen,
		    &x->pcap, hd->module, strlen(hd->module),
		    &add[nadd].e.module) < 0 || pool_add(&x->stems, &x->plen,
		    &x->pcap, hd->name, strlen(hd->name), &add[nadd].e.name) < 0)
			goto fail;
		add[nadd].k = all[i];
		add[nadd].e.handle = h;
		add[nadd].e.instance = hd->instance;
		nadd++;
	}
	if (nkeep + nadd != n)
		goto fail;	/* not a chain the index can stand for */
	for (i = 0; i < nadd; i++)
		add[i].stem = x->stems + add[i].e.stem;
	qsort(add, nadd, sizeof(*add), sort_cmp);
	for (i = a = b = 0; a < nkeep || b < nadd; i++) {
		const struct expo_ent *ka = a < nkeep ? &keep[a] : NULL;

		if (ka != NULL && (b == nadd || ent_cmp(x->stems + ka->stem,
		    x->stems + ka->module, x->stems + ka->name, ka->instance,
		    add[b].stem, add[b].k->hdr.module, add[b].k->hdr.name,
		    add[b].k->hdr.instance) < 0))
			nv[i] = keep[a++];
		else
			nv[i] = add[b++].e;
	}
	free(x->v);
	x->v = nv;
	x->n = n;
	x->pdead += dead;
	expo_pool_compact(x);
	free(seen.slot);
	free(keep);
	free(add);
	x->kcid = rs.kcid;
	x->kstats = rs.kstats;
	x->dormant = rs.dormant;
	x->rules = prom_rules_gen(rules);
	x->made_ns = clock_now_ns();
	x->valid = true;
	return x;
fail:
	free(seen.slot);
	free(keep);
	free(add);
	free(nv);
	return NULL;
}

int
expo_init(struct statsd *d, struct expo *e, struct sbuf *buf, bool om,
    const struct peer *peer)
{
	int nq;

	memset(e, 0, sizeof(*e));
	e->peer = peer;
	if (prom_begin(&e->out, buf, om) < 0)
		return -ENOMEM;
	/* The rules of the scrape's start, whatever a reload does. */
	e->out.rules = prom_rules_ref(d->cfg.mapping);
	e->out.now_ns = clock_now_ns();
	nq = prom_parse_quantiles(d->cfg.http_quantiles, e->q);
	if (nq > 0) {
		e->out.quantiles = e->q;
		e->out.nq = (size_t)nq;
	}
	return 0;
}

void
expo_done(struct expo *e)
{
	prom_rules_unref(e->out.rules);
	e->out.rules = NULL;
	prom_done(&e->out);
	if (e->pb != NULL) {
		expo_pb_free(e->pb);
		sbuf_delete(e->out.buf);
		e->out.buf = e->dest;
		e->pb = NULL;
	}
}

int
expo_set_protobuf(struct expo *e)
{
	struct sbuf *text;
	int r;

	if (e->pb != NULL)
		return 0;
	if (e->out.om)
		return -EINVAL;
	if ((r = expo_pb_new(&e->pb)) < 0)
		return r;
	if ((text = sbuf_new_auto()) == NULL) {
		expo_pb_free(e->pb);
		e->pb = NULL;
		return -ENOMEM;
	}
	e->dest = e->out.buf;
	e->out.buf = text;
	e->out.native = true;
	return 0;
}

/* The protobuf format: the page's text into messages in e->dest. */
static int
expo_page_pb(struct expo *e)
{
	struct sbuf *text = e->out.buf;
	int r;

	if (sbuf_error(text) != 0)
		return -ENOMEM;
	r = expo_pb_feed(e->pb, sbuf_data(text), (size_t)sbuf_len(text),
	    e->dest);
	sbuf_clear(text);
	if (r == 0 && e->done)
		r = expo_pb_end(e->pb, e->dest);
	return r == -EINVAL ? 0 : r;
}

/* Is k one e shows? */
static bool
expo_shows(const struct expo *e, const struct reg_kstat *k)
{
	if (k == NULL || k->dormant || !view_kstat_visible(e->peer, k))
		return false;
	if (e->sel != NULL && !ks_selector_match_kstat(e->sel, &k->hdr))
		return false;
	return e->cls == NULL || ks_pattern_match(e->cls, k->hdr.class_);
}

/* Render one kstat (only: one family of it), its work added to *work:
 * the series written, and, for one family, the names of all of them
 * (a pass makes every family name of the kstat to find its own and the
 * next). Returns: series; -ENOMEM; 0 for one that cannot be rendered
 * (counted). */
static int
expo_kstat(struct statsd *d, struct expo *e, const struct reg_kstat *k,
    const char *only, char *next, size_t nextlen, uint64_t *work)
{
	struct ks_view v;
	int r;

	view_kstat(k, registry_blob_peek(k), &v);
	r = prom_kstat(&e->out, &v, only, next, nextlen);
	*work += EXPO_COST_SERIES * ((r > 0 ? (uint64_t)r : 1) +
	    (only != NULL ? v.nnames : 0));
	if (r == -EINVAL) {
		/* Counted once: on its first (or only) pass. */
		if (only == NULL || only[0] == '\0') {
			e->skipped++;
			d->expo_skipped++;
		}
		return 0;
	}
	return r;
}

/* Where in x's entries [a, b) the first one after the last kstat a
 * page looked at inside the group (e->l*) is: O(log n), so that a page
 * that resumes deep in a group does not walk the part before it. */
static size_t
expo_after_last(const struct expo *e, const struct expo_index *x, size_t a,
    size_t b)
{
	while (a < b) {
		size_t mid = a + (b - a) / 2;
		const struct expo_ent *v = &x->v[mid];

		if (ent_cmp(x->stems + v->stem, x->stems + v->module,
		    x->stems + v->name, v->instance, e->lstem, e->lmod,
		    e->lname, e->linst) <= 0)
			a = mid + 1;
		else
			b = mid;
	}
	return a;
}

/* The page's budget: its bytes, or its work. */
static bool
expo_spent(const struct expo *e, const struct expo_page_budget *pb,
    uint64_t work)
{
	return (size_t)sbuf_len(e->out.buf) - pb->start >= pb->bytes ||
	    work >= pb->units;
}

/*
 * The stem of x's entries [a, b): its kstats one by one when it has one
 * to show, else family by family, each family's series of all of them
 * before the next family's. A stem of several kstats may end the page
 * between two of them (*cut), shown or not: e->mid and the rest of e's
 * stem state say where the next page goes on, so that no page costs
 * more than its budget and a kstat, however many kstats share a stem and
 * however few of them it shows (every kstat looked at is work: a family
 * pass over 120,000 kstats that shows 2 held the loop for 40 s).
 * Returns: series; -ENOMEM.
 */
static int
expo_stem(struct statsd *d, struct expo *e, const struct expo_index *x,
    size_t a, size_t b, const struct expo_page_budget *pb, uint64_t *work,
    bool *cut)
{
	const char *stem = x->stems + x->v[a].stem;
	char only[PROM_NAME_MAX], next[PROM_NAME_MAX];
	struct reg_kstat *k, *one = NULL;
	struct prom_out *o = &e->out;
	size_t i, start = a, shown = 0;
	bool resume = e->mid && strcmp(e->cur, stem) == 0;
	int r, total = 0;

	*cut = false;
	e->mid = false;
	if (!resume && b - a > EXPO_GROUP_SCAN) {
		only[0] = '\0';
		next[0] = '\0';
	} else if (!resume) {
		for (i = a; i < b && shown < 2; i++) {
			k = registry_kstat_by_handle(d->reg, x->v[i].handle);
			*work += EXPO_COST_KSTAT;
			if (!expo_shows(e, k))
				continue;
			one = k;
			shown++;
		}
		if (shown == 0)
			return 0;
		if (shown == 1) {
			e->kstats++;
			return expo_kstat(d, e, one, NULL, NULL, 0, work);
		}
		/* The least family name first (a pass that finds it), then
		 * each next one. */
		only[0] = '\0';
		next[0] = '\0';
	} else {
		memcpy(only, e->fam, sizeof(only));
		memcpy(next, e->next, sizeof(next));
		/* The family's HELP and TYPE went out on the last page. */
		o->famlen = e->famtype != 0 ? strlen(only) : 0;
		memcpy(o->fam, only, o->famlen);
		o->fam[o->famlen] = '\0';
		o->famtype = e->famtype;
		start = expo_after_last(e, x, a, b);
	}
	for (;;) {
		for (i = start; i < b; i++) {
			k = registry_kstat_by_handle(d->reg, x->v[i].handle);
			*work += EXPO_COST_KSTAT;
			if (expo_shows(e, k)) {
				if (only[0] == '\0')
					e->kstats++;
				r = expo_kstat(d, e, k, only, next,
				    sizeof(next), work);
				if (r < 0)
					return r;
				total += r;
			}
			if (!expo_spent(e, pb, *work) || i + 1 == b)
				continue;
			/* The page is spent: go on after k next time. */
			e->mid = true;
			memcpy(e->cur, stem, strlen(stem) + 1);
			memcpy(e->fam, only, sizeof(e->fam));
			memcpy(e->next, next, sizeof(e->next));
			snprintf(e->lstem, sizeof(e->lstem), "%s",
			    x->stems + x->v[i].stem);
			e->famtype = o->famlen > 0 && strcmp(o->fam, only) ==
			    0 ? o->famtype : 0;
			snprintf(e->lmod, sizeof(e->lmod), "%s",
			    x->stems + x->v[i].module);
			snprintf(e->lname, sizeof(e->lname), "%s",
			    x->stems + x->v[i].name);
			e->linst = x->v[i].instance;
			*cut = true;
			return total;
		}
		start = a;
		if (next[0] == '\0')
			break;
		memcpy(only, next, sizeof(only));
		next[0] = '\0';
	}
	return total;
}

int
expo_page(struct statsd *d, struct expo *e, size_t bytes, uint64_t units)
{
	struct expo_page_budget pb = { (size_t)sbuf_len(e->out.buf), bytes,
	    units };
	struct expo_index *x;
	size_t lo, hi, i, j;
	uint64_t work = 0, conflicts = e->out.conflicts;
	const char *from = e->mid ? e->cur : e->after;
	bool cut = false;
	int r;

	if (e->done)
		return 0;
	if ((x = expo_index(d, !e->mid && e->after[0] == '\0',
	    e->out.rules)) == NULL)
		return -ENOMEM;
	/* The group under way, or the first after the last one sent. */
	lo = 0;
	hi = x->n;
	if (from[0] != '\0') {
		size_t flen = strlen(from);

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (stem_cmp(x->stems + x->v[mid].stem, from) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		while (!e->mid && lo < x->n && in_group(from, flen,
		    x->stems + x->v[lo].stem))
			lo++;
	}
	for (i = lo; i < x->n; i = j) {
		const char *stem = x->stems + x->v[i].stem;
		size_t slen = strlen(stem);

		/* The group: this stem's kstats and those of the stems
		 * that extend it. */
		for (j = i + 1; j < x->n && in_group(stem, slen,
		    x->stems + x->v[j].stem); j++)
			;
		r = expo_stem(d, e, x, i, j, &pb, &work, &cut);
		if (r < 0)
			return r;
		e->series += (uint64_t)r;
		if (sbuf_error(e->out.buf) != 0)
			return -ENOMEM;
		if (cut)
			break;
		snprintf(e->after, sizeof(e->after), "%s", stem);
		if (j < x->n && expo_spent(e, &pb, work))
			break;
	}
	d->expo_conflicts += e->out.conflicts - conflicts;
	if (!cut && i >= x->n) {
		e->done = true;
		prom_end(&e->out);
	}
	if (e->pb != NULL)
		return expo_page_pb(e);
	return sbuf_error(e->out.buf) != 0 ? -ENOMEM : 0;
}

/*
 * A page's cursor: "<after>" between groups, or inside one
 * "<group>:<family>:<next>:<type>:<stem>:<module>:<instance>:<name>"
 * (stems and families hold no ':', nor do kstat names).
 */
void
expo_cursor(const struct expo *e, char *buf, size_t len)
{
	if (!e->mid)
		snprintf(buf, len, "%s", e->after);
	else
		snprintf(buf, len, "%s:%s:%s:%u:%s:%s:%d:%s", e->cur, e->fam,
		    e->next, (unsigned)e->famtype, e->lstem, e->lmod,
		    (int)e->linst, e->lname);
}

/* Copy the field of c up to the next ':' (or its end: last) into out. */
static const char *
cursor_field(const char *c, char *out, size_t len, bool last)
{
	const char *e = last ? c + strlen(c) : strchr(c, ':');
	size_t n;

	if (e == NULL || (n = (size_t)(e - c)) >= len)
		return NULL;
	memcpy(out, c, n);
	out[n] = '\0';
	return *e == ':' ? e + 1 : e;
}

int
expo_cursor_set(struct expo *e, const char *c)
{
	char t[16], in[16];
	char *end;
	long v;

	if (strchr(c, ':') == NULL)
		return cursor_field(c, e->after, sizeof(e->after), true) !=
		    NULL ? 0 : -EINVAL;
	if ((c = cursor_field(c, e->cur, sizeof(e->cur), false)) == NULL ||
	    (c = cursor_field(c, e->fam, sizeof(e->fam), false)) == NULL ||
	    (c = cursor_field(c, e->next, sizeof(e->next), false)) == NULL ||
	    (c = cursor_field(c, t, sizeof(t), false)) == NULL ||
	    (c = cursor_field(c, e->lstem, sizeof(e->lstem), false)) == NULL ||
	    (c = cursor_field(c, e->lmod, sizeof(e->lmod), false)) == NULL ||
	    (c = cursor_field(c, in, sizeof(in), false)) == NULL ||
	    cursor_field(c, e->lname, sizeof(e->lname), true) == NULL)
		return -EINVAL;
	v = strtol(t, &end, 10);
	if (*end != '\0' || v < 0 || v > 255)
		return -EINVAL;
	e->famtype = (uint8_t)v;
	v = strtol(in, &end, 10);
	if (*end != '\0' || in[0] == '\0' || v < 0 || v > INT32_MAX)
		return -EINVAL;
	e->linst = (int32_t)v;
	/* The family is "" while a page's first pass over a large group
	 * (which finds the least family) is under way. */
	e->mid = e->cur[0] != '\0';
	return e->mid ? 0 : -EINVAL;
}
