/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * expo.c: the exposition in pages (expo.h): the walk over a reader's
 * index of kstats in stem order (rview.h) that renders a stem's kstats
 * so that each family's series come together.
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
#include "flat.h"
#include "kstat_hdr.h"
#include "pub.h"
#include "rview.h"

/* What a page may take. */
struct expo_page_budget {
	size_t		 start;		/* the buffer's length before it */
	size_t		 bytes;
	uint64_t	 units;
};

/* Work units (about 4 ns each): a kstat looked at (its header copied
 * from the store, its zone, selector and class checked), and one rendered
 * (its series). */
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
 * How old an index a scrape under way goes on with while kstats come and
 * go: a stale index is safe (a gone kstat's slot reads as gone; a new
 * one waits for the next scrape), and merging 10^5 entries at every page
 * would make a scrape during a stream of creations quadratic.
 */
#define EXPO_INDEX_STALE_NS	1000000000ull

/* Is s the stem root, or one that extends it at a '_'? */
static bool
in_group(const char *root, size_t rlen, const char *s)
{
	return strncmp(s, root, rlen) == 0 && (s[rlen] == '\0' ||
	    s[rlen] == '_');
}

int
expo_init(struct expo *e, const struct expo_src *src, struct sbuf *buf,
    bool om, const struct peer *peer)
{
	int nq;

	memset(e, 0, sizeof(*e));
	e->peer = peer;
	e->src = *src;
	if (prom_begin(&e->out, buf, om) < 0)
		return -ENOMEM;
	/* The rules of the scrape's start, whatever a reload does. */
	e->out.rules = prom_rules_ref(src->rules);
	e->out.now_ns = clock_now_ns();
	nq = prom_parse_quantiles(src->quantiles, e->q);
	if (nq > 0) {
		e->out.quantiles = e->q;
		e->out.nq = (size_t)nq;
	}
	e->src.rules = NULL;
	e->src.quantiles = NULL;
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

/* Is the kstat of x one e shows? Its header in e->kh if so. */
static bool
expo_shows(struct expo *e, const struct rv_ent *x)
{
	if (!rview_visible(x, e->peer) ||
	    rview_header(e->src.rv, x, &e->kh) < 0 ||
	    (e->kh.flags & KSTAT_FLAG_DORMANT) != 0)
		return false;
	if (e->sel != NULL && !ks_selector_match_kstat(e->sel, &e->kh))
		return false;
	return e->cls == NULL || ks_pattern_match(e->cls, e->kh.class_);
}

/* Render the kstat of x (only: one family of it), its work added to
 * *work: the series written, and, for one family, the names of all of
 * them (a pass makes every family name of the kstat to find its own and
 * the next). Returns: series; -ENOMEM; 0 for one gone meanwhile, or one
 * that cannot be rendered (counted). */
static int
expo_kstat(struct expo *e, const struct rv_ent *x, const char *only,
    char *next, size_t nextlen, uint64_t *work)
{
	struct ks_view v;
	int r;

	r = rview_read(e->src.rv, x, &e->kh, &v);
	if (r == -ENOMEM)
		return r;
	if (r == -ESTALE)
		return 0;
	if (r == 0)
		r = prom_kstat(&e->out, &v, only, next, nextlen);
	*work += EXPO_COST_SERIES * ((r > 0 ? (uint64_t)r : 1) +
	    (only != NULL && r >= 0 ? v.nnames : 0));
	if (r < 0 && r != -ENOMEM) {
		/* Counted once: on its first (or only) pass. A kstat the
		 * writer kept busy, or whose template is not yet
		 * published, is one too. */
		if (only == NULL || only[0] == '\0') {
			e->skipped++;
			if (e->src.totals != NULL)
				e->src.totals->skipped++;
		}
		return 0;
	}
	return r;
}

/* Where in the index's entries [a, b) the first one after the last
 * kstat a page looked at inside the group (e->l*) is: O(log n), so that a
 * page that resumes deep in a group does not walk the part before it. */
static size_t
expo_after_last(const struct expo *e, const struct rv_ent *xv, size_t a,
    size_t b)
{
	const struct rview *rv = e->src.rv;

	while (a < b) {
		size_t mid = a + (b - a) / 2;
		const struct rv_ent *v = &xv[mid];

		if (rview_cmp(rview_str(rv, v->stem), rview_str(rv, v->module),
		    rview_str(rv, v->name), v->instance, e->lstem, e->lmod,
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
 * The stem of the index's entries [a, b): its kstats one by one when it
 * has one to show, else family by family, each family's series of all of
 * them before the next family's. A stem of several kstats may end the
 * page between two of them (*cut), shown or not: e->mid and the rest of
 * e's stem state say where the next page goes on, so that no page costs
 * more than its budget and a kstat, however many kstats share a stem and
 * however few of them it shows (every kstat looked at is work: a family
 * pass over 120,000 kstats that shows 2 held the loop for 40 s).
 * Returns: series; -ENOMEM.
 */
static int
expo_stem(struct expo *e, const struct rv_ent *xv, size_t a, size_t b,
    const struct expo_page_budget *pb, uint64_t *work, bool *cut)
{
	const struct rview *rv = e->src.rv;
	const char *stem = rview_str(rv, xv[a].stem);
	char only[PROM_NAME_MAX], next[PROM_NAME_MAX];
	struct prom_out *o = &e->out;
	size_t i, start = a, shown = 0, one = a;
	bool resume = e->mid && strcmp(e->cur, stem) == 0;
	int r, total = 0;

	*cut = false;
	e->mid = false;
	if (!resume && b - a > EXPO_GROUP_SCAN) {
		only[0] = '\0';
		next[0] = '\0';
	} else if (!resume) {
		for (i = a; i < b && shown < 2; i++) {
			*work += EXPO_COST_KSTAT;
			if (!expo_shows(e, &xv[i]))
				continue;
			one = i;
			shown++;
		}
		if (shown == 0)
			return 0;
		if (shown == 1) {
			e->kstats++;
			return expo_kstat(e, &xv[one], NULL, NULL, 0, work);
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
		start = expo_after_last(e, xv, a, b);
	}
	for (;;) {
		for (i = start; i < b; i++) {
			*work += EXPO_COST_KSTAT;
			if (expo_shows(e, &xv[i])) {
				if (only[0] == '\0')
					e->kstats++;
				r = expo_kstat(e, &xv[i], only, next,
				    sizeof(next), work);
				if (r < 0)
					return r;
				total += r;
			}
			if (!expo_spent(e, pb, *work) || i + 1 == b)
				continue;
			/* The page is spent: go on after this kstat next
			 * time. */
			e->mid = true;
			memcpy(e->cur, stem, strlen(stem) + 1);
			memcpy(e->fam, only, sizeof(e->fam));
			memcpy(e->next, next, sizeof(e->next));
			snprintf(e->lstem, sizeof(e->lstem), "%s",
			    rview_str(rv, xv[i].stem));
			e->famtype = o->famlen > 0 && strcmp(o->fam, only) ==
			    0 ? o->famtype : 0;
			snprintf(e->lmod, sizeof(e->lmod), "%s",
			    rview_str(rv, xv[i].module));
			snprintf(e->lname, sizeof(e->lname), "%s",
			    rview_str(rv, xv[i].name));
			e->linst = xv[i].instance;
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

/* Bring the reader's index up to date: at a scrape's start, when its
 * stems are of other rules, or when it is older than a page may use.
 * Returns: 0; -ENOMEM. */
static int
expo_index(struct expo *e, bool fresh)
{
	struct rview *rv = e->src.rv;

	if (!fresh && rview_rules_gen(rv) == prom_rules_gen(e->out.rules) &&
	    clock_now_ns() - rview_refreshed_ns(rv) < EXPO_INDEX_STALE_NS)
		return 0;
	return rview_refresh(rv, e->out.rules);
}

/*
 * The end of the group that begins at i (its stem root): the first entry
 * after i whose stem is neither the root nor one that extends it at a
 * '_'. The group is contiguous in the index's order ('_' sorts first),
 * so the end is found by galloping and then halving: a page that resumes
 * inside a group of 10^5 kstats costs a few dozen comparisons here, not
 * a scan of the group (which made a scrape in pages quadratic in the
 * size of its largest group).
 */
static size_t
expo_group_end(const struct rview *rv, const struct rv_ent *xv, size_t i,
    size_t n, const char *stem, size_t slen)
{
	size_t step = 1, lo, hi, mid;

	while (i + step < n && in_group(stem, slen,
	    rview_str(rv, xv[i + step].stem)))
		step *= 2;
	/* i + step / 2 is in the group; i + step is not (or is past n). */
	lo = i + step / 2 + 1;
	hi = i + step < n ? i + step : n;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (in_group(stem, slen, rview_str(rv, xv[mid].stem)))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* expo_page() inside the reader's section. */
static int
expo_page_in(struct expo *e, size_t bytes, uint64_t units)
{
	struct expo_page_budget pb = { (size_t)sbuf_len(e->out.buf), bytes,
	    units };
	const struct rview *rv = e->src.rv;
	const struct rv_ent *xv;
	size_t lo, hi, i, j, n;
	uint64_t work = 0, conflicts = e->out.conflicts;
	const char *from = e->mid ? e->cur : e->after;
	bool cut = false;
	int r;

	if ((r = expo_index(e, !e->mid && e->after[0] == '\0')) < 0)
		return r;
	xv = rview_ents(rv, &n);
	/* The group under way, or the first after the last one sent. */
	lo = 0;
	hi = n;
	if (from[0] != '\0') {
		size_t flen = strlen(from);

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (rview_stem_cmp(rview_str(rv, xv[mid].stem),
			    from) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		while (!e->mid && lo < n && in_group(from, flen,
		    rview_str(rv, xv[lo].stem)))
			lo++;
	}
	for (i = lo; i < n; i = j) {
		const char *stem = rview_str(rv, xv[i].stem);
		size_t slen = strlen(stem);

		/* The group: this stem's kstats and those of the stems
		 * that extend it. */
		j = expo_group_end(rv, xv, i, n, stem, slen);
		r = expo_stem(e, xv, i, j, &pb, &work, &cut);
		if (r < 0)
			return r;
		e->series += (uint64_t)r;
		if (sbuf_error(e->out.buf) != 0)
			return -ENOMEM;
		if (cut)
			break;
		snprintf(e->after, sizeof(e->after), "%s", stem);
		if (j < n && expo_spent(e, &pb, work))
			break;
	}
	if (e->src.totals != NULL)
		e->src.totals->conflicts += e->out.conflicts - conflicts;
	if (!cut && i >= n) {
		e->done = true;
		prom_end(&e->out);
	}
	if (e->pb != NULL)
		return expo_page_pb(e);
	return sbuf_error(e->out.buf) != 0 ? -ENOMEM : 0;
}

int
expo_page(struct expo *e, size_t bytes, uint64_t units)
{
	int r;

	if (e->done)
		return 0;
	if (e->src.rd != NULL)
		pub_enter(e->src.rd);
	r = expo_page_in(e, bytes, units);
	if (e->src.rd != NULL)
		pub_leave(e->src.rd);
	return r;
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
