/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ck_kstat.c: the appends a change waits on: a PERSISTENT kstat's
 * create's or revive's record (with its template's, if the log lacks it),
 * KstatCreateMany's batch (all or none), a delete's and a removal's, and
 * the meta record SampleRatesSet's new rates are in; and what each
 * record's bytes count for in the log (its live bytes, the compaction
 * under way). The append and its sync are ck_log.c's.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "checkpoint_priv.h"
#include "daemon.h"
#include "registry.h"

int
checkpoint_kstat_put(struct checkpoint *c, struct reg_kstat *k, bool dormant)
{
	json_t *recs[2];
	uint64_t len[2];
	size_t n = 0;
	int r;

	if (!ck_kept(c, k))
		return 0;
	/* A delete waiting on its record: the state it goes to (a dormant
	 * one removed has no record any more). */
	if (k->dormant && k->ckpt_deleting == CKPT_DEL_DROP)
		return 0;
	dormant = dormant || k->ckpt_deleting == CKPT_DEL_SLEEP;
	if (k->tpl->ckpt_bytes == 0)
		recs[n++] = ck_template_rec(k->tpl);
	recs[n++] = ck_kstat_rec(c, k, dormant);
	if (recs[n - 1] == NULL || (n == 2 && recs[0] == NULL)) {
		while (n-- > 0)
			json_decref(recs[n]);
		return -ENOMEM;
	}
	r = ck_append(c, recs, n, len);
	if (r < 0)
		return r;
	if (n == 2) {
		k->tpl->ckpt_bytes = len[0];
		c->live += len[0];
		/* The compaction under way has it too. */
		k->tpl->ckpt_gen = c->cgen;
		k->tpl->ckpt_pending = len[0];
	}
	c->live += len[n - 1];
	c->live -= k->ckpt_bytes < c->live ? k->ckpt_bytes : c->live;
	k->ckpt_bytes = len[n - 1];
	if (c->cfd >= 0)
		k->ckpt_pbytes = len[n - 1];
	k->ckpt_saved = k->ckpt_pending = k->changes;
	return 0;
}

int
checkpoint_kstats_put(struct checkpoint *c, struct reg_kstat **ks, size_t n)
{
	struct reg_template **tpls = NULL;
	json_t *batch, *recs, *rec;
	size_t i, j, nt = 0, nk = 0;
	uint64_t len, share;
	int r = -ENOMEM;

	/* A batch with no PERSISTENT kstat (most: every published blob)
	 * writes nothing: no record to build and throw away. */
	for (i = 0; i < n && (ks[i] == NULL || !ck_kept(c, ks[i])); i++)
		;
	if (i == n)
		return 0;
	batch = json_pack("{s:s, s:[]}", "t", "batch", "recs");
	recs = json_object_get(batch, "recs");
	tpls = calloc(n + 1, sizeof(*tpls));
	if (batch == NULL || tpls == NULL)
		goto fail;
	/* The templates the log lacks, once each, before their kstats. */
	for (i = 0; i < n; i++) {
		if (ks[i] == NULL || !ck_kept(c, ks[i]) ||
		    ks[i]->tpl->ckpt_bytes != 0)
			continue;
		for (j = 0; j < nt && tpls[j] != ks[i]->tpl; j++)
			;
		if (j < nt)
			continue;
		tpls[nt++] = ks[i]->tpl;
		rec = ck_template_rec(ks[i]->tpl);
		if (rec == NULL || json_array_append_new(recs, rec) < 0)
			goto fail;
	}
	for (i = 0; i < n; i++) {
		if (ks[i] == NULL || !ck_kept(c, ks[i]))
			continue;
		rec = ck_kstat_rec(c, ks[i], false);
		if (rec == NULL || json_array_append_new(recs, rec) < 0)
			goto fail;
		nk++;
	}
	if (nk == 0) {
		json_decref(batch);
		free(tpls);
		return 0;
	}
	r = ck_append(c, &batch, 1, &len);
	batch = NULL;
	if (r < 0)
		goto fail;
	/* Each thing's share of the line, as checkpoint_load counts it. */
	share = len / (nt + nk);
	for (j = 0; j < nt; j++) {
		tpls[j]->ckpt_bytes = share;
		c->live += share;
		tpls[j]->ckpt_gen = c->cgen;
		tpls[j]->ckpt_pending = share;
	}
	for (i = 0; i < n; i++) {
		if (ks[i] == NULL || !ck_kept(c, ks[i]))
			continue;
		c->live += share;
		c->live -= ks[i]->ckpt_bytes < c->live ? ks[i]->ckpt_bytes :
		    c->live;
		ks[i]->ckpt_bytes = share;
		if (c->cfd >= 0)
			ks[i]->ckpt_pbytes = share;
		ks[i]->ckpt_saved = ks[i]->ckpt_pending = ks[i]->changes;
	}
	free(tpls);
	return 0;
fail:
	json_decref(batch);
	free(tpls);
	return r;
}

int
checkpoint_kstat_drop(struct checkpoint *c, struct reg_kstat *k)
{
	json_t *rec;
	int r;

	if (!ck_kept(c, k) || k->ckpt_bytes == 0)
		return 0;
	rec = json_pack("{s:s, s:I}", "t", "kstat-", "handle",
	    (json_int_t)k->handle);
	if (rec == NULL)
		return -ENOMEM;
	r = ck_append(c, &rec, 1, NULL);
	if (r == 0) {
		c->live -= k->ckpt_bytes < c->live ? k->ckpt_bytes : c->live;
		k->ckpt_bytes = 0;
	}
	return r;
}

int
checkpoint_meta_put(struct checkpoint *c)
{
	json_t *rec = ck_meta_rec(c);
	uint64_t len;
	char *rates;
	int r;

	if (rec == NULL)
		return -ENOMEM;
	r = ck_append(c, &rec, 1, &len);
	if (r < 0)
		return r;
	/* What the log has now: the pass need not write it again. */
	rates = strdup(c->d->sample_rates != NULL ? c->d->sample_rates : "");
	if (rates != NULL) {
		free(c->meta_rates);
		c->meta_rates = rates;
	}
	c->meta_handle = registry_next_handle(c->d->reg);
	c->live += len;
	c->live -= c->meta_bytes < c->live ? c->meta_bytes : c->live;
	c->meta_bytes = len;
	return 0;
}
