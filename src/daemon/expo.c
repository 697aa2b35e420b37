/*
 * expo.c: the exposition in pages (expo.h): the index of kstats in stem
 * order, and the walk over it that renders a stem's kstats so that each
 * family's series come together.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <statsd/kstat.h>

#include "clock.h"
#include "daemon.h"
#include "expo.h"
#include "methods.h"
#include "registry.h"

/* Work units: a kstat looked at, and one rendered (its series). */
#define EXPO_COST_KSTAT		16u
#define EXPO_COST_SERIES	64u

/*
 * The kstats in (stem, module, name, instance) order, by handle (a kstat
 * may go between pages), with their stems; made again when the chain
 * changed (kstats, dormant ones, the segments' chain ids).
 */
struct expo_ent {
	uint32_t	 handle;
	uint32_t	 stem;		/* offset in stems */
};

struct expo_index {
	struct expo_ent	*v;
	size_t		 n;
	char		*stems;
	uint64_t	 kcid, kstats, dormant;
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

static int
sort_cmp(const void *x, const void *y)
{
	const struct sort_ent *a = x, *b = y;
	int c;

	if ((c = strcmp(a->stem, b->stem)) != 0)
		return c;
	if ((c = strcmp(a->k->hdr.module, b->k->hdr.module)) != 0)
		return c;
	if ((c = strcmp(a->k->hdr.name, b->k->hdr.name)) != 0)
		return c;
	return a->k->hdr.instance < b->k->hdr.instance ? -1 :
	    a->k->hdr.instance > b->k->hdr.instance;
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

/* The index as the chain is now (fresh: at a scrape's start), or as it
 * was at most EXPO_INDEX_STALE_NS ago. Returns: it; NULL for -ENOMEM. */
static struct expo_index *
expo_index(struct statsd *d, bool fresh)
{
	struct expo_index *x = d->expo_ix;
	struct registry_stats rs;
	struct reg_kstat **all;
	struct sort_ent *se;
	char stem[PROM_NAME_MAX], *stems;
	size_t n, i, len = 0, cap = 0;

	registry_stats(d->reg, &rs);
	if (x != NULL && x->valid && ((x->kcid == rs.kcid &&
	    x->kstats == rs.kstats && x->dormant == rs.dormant) ||
	    (!fresh && clock_now_ns() - x->made_ns < EXPO_INDEX_STALE_NS)))
		return x;
	if (x == NULL) {
		if ((x = calloc(1, sizeof(*x))) == NULL)
			return NULL;
		d->expo_ix = x;
	}
	x->valid = false;
	n = registry_kstats(d->reg, &all);
	se = malloc((n > 0 ? n : 1) * sizeof(*se));
	stems = NULL;
	for (i = 0; se != NULL && i < n; i++) {
		size_t l = strlen(prom_stem(&all[i]->hdr, stem, sizeof(stem)));

		if (len + l + 1 > cap) {
			size_t nc = cap > 0 ? cap * 2 : 4096;
			char *ns;

			while (nc < len + l + 1)
				nc *= 2;
			if ((ns = realloc(stems, nc)) == NULL)
				break;
			stems = ns;
			cap = nc;
		}
		memcpy(stems + len, stem, l + 1);
		se[i].k = all[i];
		se[i].e.handle = all[i]->handle;
		se[i].e.stem = (uint32_t)len;
		len += l + 1;
	}
	if (se == NULL || i < n) {
		free(se);
		free(stems);
		return NULL;
	}
	for (i = 0; i < n; i++)
		se[i].stem = stems + se[i].e.stem;
	qsort(se, n, sizeof(*se), sort_cmp);
	free(x->v);
	x->v = malloc((n > 0 ? n : 1) * sizeof(*x->v));
	if (x->v == NULL) {
		free(se);
		free(stems);
		x->n = 0;
		return NULL;
	}
	for (i = 0; i < n; i++)
		x->v[i] = se[i].e;
	free(se);
	free(x->stems);
	x->stems = stems;
	x->n = n;
	x->kcid = rs.kcid;
	x->kstats = rs.kstats;
	x->dormant = rs.dormant;
	x->made_ns = clock_now_ns();
	x->valid = true;
	return x;
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
	prom_done(&e->out);
}

/* Is k one e shows? */
static bool
expo_shows(const struct expo *e, const struct reg_kstat *k)
{
	if (k == NULL || k->dormant || !m_kstat_visible(e->peer, k) ||
	    (e->no_priv && (k->hdr.flags & KSTAT_FLAG_PRIV) != 0))
		return false;
	if (e->sel != NULL && !ks_selector_match_kstat(e->sel, &k->hdr))
		return false;
	return e->cls == NULL || ks_pattern_match(e->cls, k->hdr.class_);
}

/* Render one kstat (only: one family of it). Returns: series; -ENOMEM;
 * 0 for one that cannot be rendered (counted). */
static int
expo_kstat(struct statsd *d, struct expo *e, const struct reg_kstat *k,
    const char *only, char *next, size_t nextlen)
{
	struct ks_view v;
	int r;

	m_view(k, registry_blob_peek(k), &v);
	r = prom_kstat(&e->out, &v, only, next, nextlen);
	if (r == -EINVAL) {
		/* Counted once: on its first (or only) pass. */
		if (only == NULL || next == NULL || next[0] == '\0') {
			e->skipped++;
			d->expo_skipped++;
		}
		return 0;
	}
	return r;
}

/*
 * The stem of x's entries [a, b): its kstats one by one when it has one
 * to show, else family by family, each family's series of all of them
 * before the next family's. Returns: series; -ENOMEM.
 */
static int
expo_stem(struct statsd *d, struct expo *e, const struct expo_index *x,
    size_t a, size_t b, uint64_t *work)
{
	char only[PROM_NAME_MAX], next[PROM_NAME_MAX];
	struct reg_kstat *k, *one = NULL;
	size_t i, shown = 0;
	int r, total = 0;

	for (i = a; i < b; i++) {
		k = registry_kstat_by_handle(d->reg, x->v[i].handle);
		*work += EXPO_COST_KSTAT;
		if (!expo_shows(e, k))
			continue;
		one = k;
		shown++;
	}
	if (shown == 0)
		return 0;
	e->kstats += shown;
	if (shown == 1) {
		r = expo_kstat(d, e, one, NULL, NULL, 0);
		*work += EXPO_COST_SERIES * (r > 0 ? (uint64_t)r : 1);
		return r;
	}
	/* The least family name first, then each next one. */
	only[0] = '\0';
	next[0] = '\0';
	for (;;) {
		for (i = a; i < b; i++) {
			k = registry_kstat_by_handle(d->reg, x->v[i].handle);
			if (!expo_shows(e, k))
				continue;
			r = expo_kstat(d, e, k, only, next, sizeof(next));
			if (r < 0)
				return r;
			total += r;
			*work += EXPO_COST_KSTAT + EXPO_COST_SERIES *
			    (uint64_t)r;
		}
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
	struct expo_index *x;
	size_t start = (size_t)sbuf_len(e->out.buf), lo, hi, i, j;
	uint64_t work = 0, conflicts = e->out.conflicts;
	int r;

	if (e->done)
		return 0;
	if ((x = expo_index(d, e->after[0] == '\0')) == NULL)
		return -ENOMEM;
	/* The first stem after the last one sent. */
	lo = 0;
	hi = x->n;
	if (e->after[0] != '\0') {
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (strcmp(x->stems + x->v[mid].stem, e->after) <= 0)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	for (i = lo; i < x->n; i = j) {
		const char *stem = x->stems + x->v[i].stem;

		for (j = i + 1; j < x->n && strcmp(x->stems + x->v[j].stem,
		    stem) == 0; j++)
			;
		r = expo_stem(d, e, x, i, j, &work);
		if (r < 0)
			return r;
		e->series += (uint64_t)r;
		snprintf(e->after, sizeof(e->after), "%s", stem);
		if (sbuf_error(e->out.buf) != 0)
			return -ENOMEM;
		if (j < x->n && ((size_t)sbuf_len(e->out.buf) - start >= bytes ||
		    work >= units))
			break;
	}
	d->expo_conflicts += e->out.conflicts - conflicts;
	if (i >= x->n) {
		e->done = true;
		prom_end(&e->out);
	}
	return sbuf_error(e->out.buf) != 0 ? -ENOMEM : 0;
}
