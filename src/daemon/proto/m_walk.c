/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * m_walk.c: the walk that the reads of many kstats (Chain, Lookup,
 * Scrape) share to answer in pages: kstats in kstat(1M)'s order from the
 * registry's index, from the start or after a page's cursor, within the
 * range a selector's literal names allow, each page ending when its bytes
 * or its slice of work are spent.
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

static bool
m_walk_match(const struct m_walk *w, const struct reg_kstat *k)
{
	return (w->module == NULL || strcmp(k->hdr.module, w->module) == 0) &&
	    (w->instance < 0 || k->hdr.instance == w->instance) &&
	    (w->name == NULL || strcmp(k->hdr.name, w->name) == 0);
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
		if (w->module != NULL && (strcasecmp(k->hdr.module,
		    w->module) != 0 || (w->instance >= 0 &&
		    k->hdr.instance > w->instance))) {
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
		w->k = m_walk_single(w) ? NULL : registry_kstat_after(k);
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
