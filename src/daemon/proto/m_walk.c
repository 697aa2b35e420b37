/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * m_walk.c: the walk that the reads of many kstats (Chain, Lookup,
 * Scrape) share to answer in pages: kstats in kstat(1M)'s order from the
 * registry's index, from the start or after a page's cursor, within the
 * range a selector's literal names allow, each page ending when its bytes
 * or its slice of work are spent; and the same walk over a reader's view
 * of the store (rview.h), for pages the reader thread renders.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <statsd/kstat.h>

#include "daemon.h"
#include "kindex.h"
#include "methods.h"
#include "registry.h"
#include "rview.h"

int32_t
m_literal_instance(const struct ks_pattern *p)
{
	const char *s = ks_pattern_literal(p);
	char *end;
	long v;

	if (s == NULL || s[0] < '0' || s[0] > '9' || (s[0] == '0' &&
	    s[1] != '\0'))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	return *end == '\0' && errno == 0 && v <= INT32_MAX ? (int32_t)v : -1;
}

/* Parse a cursor: "<sent>:<module>:<instance>:<name>". Returns: 0;
 * -EINVAL. */
static int
m_cursor_parse(const char *c, uint64_t *sent, char *module,
    int32_t *instance, char *name)
{
	const char *p = c, *q;
	unsigned long long n;
	long i;
	char *end;

	errno = 0;
	if (*p < '0' || *p > '9')
		return -EINVAL;
	n = strtoull(p, &end, 10);
	if (errno != 0 || *end != ':')
		return -EINVAL;
	p = end + 1;
	q = strchr(p, ':');
	if (q == NULL || q == p || (size_t)(q - p) >= KSTAT_STRLEN)
		return -EINVAL;
	memcpy(module, p, (size_t)(q - p));
	module[q - p] = '\0';
	p = q + 1;
	if (*p < '0' || *p > '9')
		return -EINVAL;
	i = strtol(p, &end, 10);
	if (errno != 0 || *end != ':' || i > INT32_MAX)
		return -EINVAL;
	p = end + 1;
	if (*p == '\0' || strlen(p) >= KSTAT_STRLEN || strchr(p, ':') != NULL)
		return -EINVAL;
	strcpy(name, p);
	*sent = n;
	*instance = (int32_t)i;
	return 0;
}

/* Does the walk name one kstat? */
static bool
m_walk_single(const struct m_walk *w)
{
	return w->module != NULL && w->instance >= 0 && w->name != NULL;
}

/* Does module:instance:name match the literal names (NULL, -1: any)? */
static bool
m_names_match(const char *wm, int32_t wi, const char *wn, const char *module,
    int32_t instance, const char *name)
{
	return (wm == NULL || strcmp(module, wm) == 0) &&
	    (wi < 0 || instance == wi) && (wn == NULL || strcmp(name, wn) == 0);
}

/* Is module:instance past the literal range (in kstat(1M)'s order)? */
static bool
m_names_past(const char *wm, int32_t wi, const char *module, int32_t instance)
{
	return wm != NULL && (strcasecmp(module, wm) != 0 || (wi >= 0 &&
	    instance > wi));
}

static bool
m_walk_match(const struct m_walk *w, const struct reg_kstat *k)
{
	return m_names_match(w->module, w->instance, w->name, k->hdr.module,
	    k->hdr.instance, k->hdr.name);
}

int
m_walk_start(struct vl_call *call, json_t *params, struct m_walk *w)
{
	const char *cursor = varlink_str(params, "cursor", NULL);
	char module[KSTAT_STRLEN], name[KSTAT_STRLEN];
	struct reg_kstat *k;
	int32_t instance;

	w->reg = call->d->reg;
	w->cursor[0] = '\0';
	w->sent = 0;
	w->last = NULL;
	w->budget = VL_SLICE_UNITS;
	if (cursor != NULL && m_cursor_parse(cursor, &w->sent, module,
	    &instance, name) < 0) {
		varlink_error_value(call, "cursor", "not a cursor of %s",
		    call->method->name);
		return -EINVAL;
	}
	if (m_walk_single(w)) {
		/* One name: one kstat, found by its hash. */
		w->k = cursor == NULL ? registry_kstat_find(w->reg, w->module,
		    w->instance, w->name) : NULL;
		return 0;
	}
	k = registry_kstat_seek(w->reg, w->module, w->instance, "", false);
	/* Resume after the last kstat sent, unless the range starts later
	 * (a cursor of another call). */
	if (cursor != NULL && (k == NULL || kindex_cmp(module, instance, name,
	    k->hdr.module, k->hdr.instance, k->hdr.name) >= 0))
		k = registry_kstat_seek(w->reg, module, instance, name, true);
	w->k = k;
	return 0;
}

void
m_walk_cut(struct m_walk *w, const struct reg_kstat *k)
{
	if (w->k == NULL)
		return;
	snprintf(w->cursor, sizeof(w->cursor), "%llu:%s:%d:%s",
	    (unsigned long long)w->sent, k->hdr.module, (int)k->hdr.instance,
	    k->hdr.name);
	w->k = NULL;
}

struct reg_kstat *
m_walk_next(struct m_walk *w, uint64_t cost)
{
	struct reg_kstat *k;

	while ((k = w->k) != NULL) {
		if (m_names_past(w->module, w->instance, k->hdr.module,
		    k->hdr.instance)) {
			w->k = NULL;	/* past the literal range */
			break;
		}
		/* The first kstat of a page is always looked at, so that
		 * every page goes forward. */
		if (w->last != NULL && !varlink_budget_take(&w->budget,
		    M_COST_KSTAT + cost)) {
			m_walk_cut(w, w->last);
			break;
		}
		w->last = k;
		w->k = m_walk_single(w) ? NULL : registry_kstat_after(w->reg, k);
		if (m_walk_match(w, k))
			return k;
	}
	return NULL;
}

void
m_walk_charge(struct m_walk *w, uint64_t units)
{
	(void)varlink_budget_take(&w->budget, units);
}

const char *
m_walk_cursor(const struct m_walk *w)
{
	return w->cursor[0] != '\0' ? w->cursor : NULL;
}

/* --------------------------------------------------- over a reader's view */

int
m_rwalk_prepare(struct vl_call *call, json_t *params, struct m_rwalk *w)
{
	const char *cursor = varlink_str(params, "cursor", NULL);

	w->sent = 0;
	w->resume = cursor != NULL;
	w->cursor[0] = '\0';
	w->budget = VL_SLICE_UNITS;
	if (cursor != NULL && m_cursor_parse(cursor, &w->sent, w->cmodule,
	    &w->cinstance, w->cname) < 0) {
		varlink_error_value(call, "cursor", "not a cursor of %s",
		    call->method->name);
		return -EINVAL;
	}
	return 0;
}

void
m_rwalk_start(struct m_rwalk *w, const struct rview *rv)
{
	const struct rv_ent *e;

	w->rv = rv;
	w->k = rview_ents_kstat(rv, &w->n);
	w->last = NULL;
	if (w->module != NULL && w->instance >= 0 && w->name != NULL) {
		/* One name: that kstat, on the first page only. */
		w->i = rview_seek_kstat(rv, w->module, w->instance, w->name,
		    false);
		if (w->resume || w->i >= w->n || kindex_cmp(rview_str(rv,
		    w->k[w->i].module), w->k[w->i].instance, rview_str(rv,
		    w->k[w->i].name), w->module, w->instance, w->name) != 0)
			w->i = w->n;
		else
			w->n = w->i + 1;
		return;
	}
	w->i = rview_seek_kstat(rv, w->module, w->instance, "", false);
	/* Resume after the last kstat sent, unless the range starts later
	 * (a cursor of another call). */
	e = w->i < w->n ? &w->k[w->i] : NULL;
	if (w->resume && (e == NULL || kindex_cmp(w->cmodule, w->cinstance,
	    w->cname, rview_str(rv, e->module), e->instance, rview_str(rv,
	    e->name)) >= 0))
		w->i = rview_seek_kstat(rv, w->cmodule, w->cinstance, w->cname,
		    true);
}

void
m_rwalk_cut(struct m_rwalk *w, const struct rv_ent *e)
{
	if (w->i >= w->n)
		return;
	snprintf(w->cursor, sizeof(w->cursor), "%llu:%s:%d:%s",
	    (unsigned long long)w->sent, rview_str(w->rv, e->module),
	    (int)e->instance, rview_str(w->rv, e->name));
	w->i = w->n;
}

const struct rv_ent *
m_rwalk_next(struct m_rwalk *w, uint64_t cost)
{
	const struct rv_ent *e;

	while (w->i < w->n) {
		e = &w->k[w->i];
		if (m_names_past(w->module, w->instance, rview_str(w->rv,
		    e->module), e->instance)) {
			w->i = w->n;	/* past the literal range */
			break;
		}
		/* The first kstat of a page is always looked at, so that
		 * every page goes forward. */
		if (w->last != NULL && !varlink_budget_take(&w->budget,
		    M_COST_KSTAT + cost)) {
			m_rwalk_cut(w, w->last);
			break;
		}
		w->last = e;
		w->i++;
		if (m_names_match(w->module, w->instance, w->name,
		    rview_str(w->rv, e->module), e->instance,
		    rview_str(w->rv, e->name)))
			return e;
	}
	return NULL;
}

void
m_rwalk_charge(struct m_rwalk *w, uint64_t units)
{
	(void)varlink_budget_take(&w->budget, units);
}

const char *
m_rwalk_cursor(const struct m_rwalk *w)
{
	return w->cursor[0] != '\0' ? w->cursor : NULL;
}
