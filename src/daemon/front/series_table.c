/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * series_table.c: the table of statsd's series, from (type, name, tags)
 * to an entry under a keyed hash (open addressing, linear probing), and
 * the index of series' kstats by path, built from the registry.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"
#include "registry.h"
#include "series.h"
#include "series_priv.h"
#include "siphash.h"
#include "sysks.h"

uint64_t
series_mix(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	x *= UINT64_C(0xc4ceb9fe1a85ec53);
	x ^= x >> 33;
	return x;
}

/* sl_series_path_make()'s order: bytewise, a prefix first. */
static int
series_tag_cmp(const char *a, uint32_t an, const char *b, uint32_t bn)
{
	int c;

	/* Tags mostly differ in their key's first byte. */
	if (an > 0 && bn > 0 && a[0] != b[0])
		return (unsigned char)a[0] - (unsigned char)b[0];
	c = memcmp(a, b, an < bn ? an : bn);

	if (c != 0)
		return c;
	return an < bn ? -1 : an > bn;
}

uint32_t
series_tags_sort(const char **tag, uint32_t *tag_len, uint32_t ntags)
{
	uint32_t i, j, nd = 0;

	/* Insertion sort: a line has a handful of tags. */
	for (i = 1; i < ntags; i++) {
		const char *t = tag[i];
		uint32_t tl = tag_len[i];

		for (j = i; j > 0 && series_tag_cmp(tag[j - 1], tag_len[j - 1],
		    t, tl) > 0; j--) {
			tag[j] = tag[j - 1];
			tag_len[j] = tag_len[j - 1];
		}
		tag[j] = t;
		tag_len[j] = tl;
	}
	for (i = 0; i < ntags; i++) {
		if (nd > 0 && tag_len[nd - 1] == tag_len[i] &&
		    memcmp(tag[nd - 1], tag[i], tag_len[i]) == 0)
			continue;
		tag[nd] = tag[i];
		tag_len[nd++] = tag_len[i];
	}
	return nd;
}

/* The bytes series_key() hashes in one call, on the stack: twice a
 * kstat2 path's SL_PATH_MAX. A longer line (refused: no path holds it)
 * is hashed in pieces, the same hash. */
#define SERIES_KEY_BUF	512

/*
 * The key of (type, name, sorted distinct tags): one SipHash-1-3 over the
 * type's byte, the name and each tag after a 0xff byte, which no UTF-8
 * name or tag holds, so that no two series give the same bytes. Keyed
 * (siphash.h) with the table's own random key: the names come from
 * anyone who can send a datagram, and with a hash they could compute
 * they could make every series of theirs share one run of the table.
 */
uint64_t
series_key(const struct series *s, uint8_t type, const char *name,
    uint32_t name_len, const char *const *tag, const uint32_t *tag_len,
    uint32_t ntags)
{
	static const char sep = (char)0xff;
	char buf[SERIES_KEY_BUF], *p = buf;
	size_t total = 1 + (size_t)name_len + ntags;
	struct sip_state st;
	uint32_t i;

	for (i = 0; i < ntags; i++)
		total += tag_len[i];
	if (total > sizeof(buf)) {
		sip_init(&st, &s->key, 1, 3);
		sip_update(&st, &type, 1);
		sip_update(&st, name, name_len);
		for (i = 0; i < ntags; i++) {
			sip_update(&st, &sep, 1);
			sip_update(&st, tag[i], tag_len[i]);
		}
		return sip_final(&st);
	}
	*p++ = (char)type;
	memcpy(p, name, name_len);
	p += name_len;
	for (i = 0; i < ntags; i++) {
		*p++ = sep;
		memcpy(p, tag[i], tag_len[i]);
		p += tag_len[i];
	}
	return siphash13(&s->key, buf, total);
}

/* Does e hold exactly this series? Both tag lists are sorted and
 * distinct. */
static bool
series_eq(const struct series_ent *e, uint8_t type, const char *name,
    uint32_t name_len, const char *const *tag, const uint32_t *tag_len,
    uint32_t ntags)
{
	uint32_t i;

	if (e->type != type || e->name_len != name_len || e->ntags != ntags ||
	    memcmp(e->name, name, name_len) != 0)
		return false;
	for (i = 0; i < ntags; i++)
		if (e->tag_len[i] != tag_len[i] ||
		    memcmp(e->tag[i], tag[i], tag_len[i]) != 0)
			return false;
	return true;
}

/* ------------------------------------------------------------------ table */

struct series_ent **
series_slot(struct series *s, uint64_t h, uint8_t type, const char *name,
    uint32_t name_len, const char *const *tag, const uint32_t *tag_len,
    uint32_t ntags)
{
	size_t i, mask = s->cap - 1;

	for (i = h & mask; s->tab[i] != NULL; i = (i + 1) & mask)
		if (s->tab[i]->hash == h && series_eq(s->tab[i], type, name,
		    name_len, tag, tag_len, ntags))
			break;
	return &s->tab[i];
}

int
series_grow(struct series *s)
{
	size_t nc = s->cap * 2, i, j;
	struct series_ent **nt = calloc(nc, sizeof(*nt));

	if (nt == NULL)
		return -ENOMEM;
	for (i = 0; i < s->cap; i++) {
		if (s->tab[i] == NULL)
			continue;
		for (j = s->tab[i]->hash & (nc - 1); nt[j] != NULL;
		    j = (j + 1) & (nc - 1))
			;
		nt[j] = s->tab[i];
	}
	free(s->tab);
	s->tab = nt;
	s->cap = nc;
	s->cursor = 0;
	return 0;
}

/* Take slot i out, moving later entries of its cluster back (linear
 * probing's deletion, no tombstones). */
void
series_unslot(struct series *s, size_t i)
{
	size_t mask = s->cap - 1, j = i, home;

	s->tab[i] = NULL;
	for (;;) {
		j = (j + 1) & mask;
		if (s->tab[j] == NULL)
			break;
		home = s->tab[j]->hash & mask;
		/* Move it unless its home lies in (i, j] cyclically. */
		if ((j > i && (home <= i || home > j)) ||
		    (j < i && (home <= i && home > j))) {
			s->tab[i] = s->tab[j];
			s->tab[j] = NULL;
			i = j;
		}
	}
	s->n--;
}

void
series_ent_free(struct series *s, struct series_ent *e)
{
	if (e == NULL)
		return;
	if (e->src < s->nsrcs && s->srcs[e->src].n > 0)
		s->srcs[e->src].n--;
	free(e->hll);
	free(e);
}

/* ------------------------------------------------------ kstats by path */

static bool
series_path_is(const struct reg_kstat *k, const struct sl_series_path *sp)
{
	const char *p = k->hdr.path;
	uint32_t i;

	for (i = 0; i < sp->nseg; i++) {
		size_t n = strlen(sp->seg[i]);

		if (i > 0 && *p++ != '/')
			return false;
		if (strncmp(p, sp->seg[i], n) != 0)
			return false;
		p += n;
	}
	return *p == '\0';
}

/* The keyed hash of a path, as its kstat holds it (segments joined by
 * '/'); the same for sp and for k->hdr.path. */
uint64_t
series_path_hash(const struct series *s, const char *const *seg,
    uint32_t nseg)
{
	struct sip_state st;
	uint32_t i;

	sip_init(&st, &s->key, 1, 3);
	for (i = 0; i < nseg; i++) {
		if (i > 0)
			sip_update(&st, "/", 1);
		sip_update(&st, seg[i], strlen(seg[i]));
	}
	return sip_final(&st);
}

void
series_bypath_put(struct series_by_path *t, size_t cap, uint64_t h,
    uint32_t handle)
{
	size_t i;

	for (i = h & (cap - 1); t[i].handle != 0; i = (i + 1) & (cap - 1))
		;
	t[i].hash = h;
	t[i].handle = handle;
}

/*
 * (Re)build the index from the registry's kstats of series, with room for
 * twice as many and more: what was deleted behind its back drops out.
 * Returns: 0; -ENOMEM (the old index stays).
 */
int
series_bypath_build(struct series *s, size_t want)
{
	struct reg_kstat **all;
	struct series_by_path *t;
	size_t n, i, cap = 64;

	n = registry_kstats(s->d->reg, &all);
	while (cap < 2 * (want > n ? want : n) + 2)
		cap *= 2;
	t = calloc(cap, sizeof(*t));
	if (t == NULL)
		return -ENOMEM;
	s->bp_n = 0;
	for (i = 0; i < n; i++) {
		const struct reg_kstat *k = all[i];
		const char *seg[1] = { k->hdr.path };

		if (k->internal || k->hdr.path[0] == '\0' ||
		    strcmp(k->hdr.module, SYSKS_MODULE_STATSD) != 0)
			continue;
		series_bypath_put(t, cap, series_path_hash(s, seg, 1),
		    k->handle);
		s->bp_n++;
	}
	free(s->bypath);
	s->bypath = t;
	s->bp_cap = cap;
	return 0;
}

struct reg_kstat *
series_bypath_find(struct series *s, uint64_t h,
    const struct sl_series_path *sp)
{
	size_t i, mask = s->bp_cap - 1;

	for (i = h & mask; s->bypath[i].handle != 0; i = (i + 1) & mask) {
		struct reg_kstat *k;

		if (s->bypath[i].hash != h)
			continue;
		k = registry_kstat_by_handle(s->d->reg, s->bypath[i].handle);
		if (k != NULL && !k->internal &&
		    strcmp(k->hdr.module, SYSKS_MODULE_STATSD) == 0 &&
		    series_path_is(k, sp))
			return k;
	}
	return NULL;
}
