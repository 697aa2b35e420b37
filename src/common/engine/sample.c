/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sample.c: template sampling: weighted random selection of a template
 * (stats_tpl_sample_rollthedice) and the text form of sample-rate lists,
 * with FreeBSD's generic read/write handler over it.
 *
 * Two deliberate differences from FreeBSD, both documented in stats(3):
 * the draw is uniform over [0, 100) so each template gets exactly its
 * percentage (FreeBSD's [0, 100] draw gives the first one an extra point),
 * and a seed is mixed with FNV-1a and a 64-bit finaliser rather than the
 * bare DJB step, whose outputs for similar seeds (connection ids that
 * differ in the last digit) fall in the same percentile.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "blob.h"
#include "tpl.h"

static uint64_t
sample_mix(const void *seed, size_t len)
{
	const unsigned char *p = seed;
	uint64_t h = 0xcbf29ce484222325ULL;

	while (len-- > 0) {
		h ^= *p++;
		h *= 0x100000001b3ULL;
	}
	/* splitmix64's finaliser spreads neighbouring seeds apart. */
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebULL;
	h ^= h >> 31;
	return h;
}

int
stats_tpl_sample_rollthedice(struct stats_tpl_sample_rate *rates, int nrates,
    void *seed_bytes, size_t seed_len)
{
	uint64_t r, cum = 0;
	uint32_t rnd;
	int i;

	if (rates == NULL || nrates <= 0)
		return -1;
	if (seed_bytes != NULL) {
		r = sample_mix(seed_bytes, seed_len);
	} else if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r)) {
		/* No entropy source (very early boot): fall back to time. */
		int64_t now = blob_sbinuptime();

		r = sample_mix(&now, sizeof(now));
	}
	/* Uniform over [0, 100) in units of 2^-32 of a percentage point. */
	rnd = (uint32_t)r;
	for (i = 0; i < nrates; i++) {
		if (rates[i].tpl_sample_pct == 0)
			continue;
		cum += (uint64_t)rates[i].tpl_sample_pct << 32;
		if ((uint64_t)rnd * 100 < cum)
			return rates[i].tpl_slot_id;
	}
	return -1;
}

static const char *
skip_space(const char *p)
{
	while (*p != '\0' && isspace((unsigned char)*p))
		p++;
	return p;
}

int
stats_tpl_sample_rates_parse(const char *text,
    struct stats_tpl_sample_rate **rates, int *nrates, size_t *errpos)
{
	struct stats_tpl_sample_rate *out = NULL, *tmp;
	char spec[STATS_TPL_MAX_STR_SPEC_LEN + 1];
	const char *p, *eq, *end, *start;
	unsigned long pct;
	uint32_t total = 0;
	int n = 0, id, error = 0;
	size_t len;
	char *pend;

	if (text == NULL || rates == NULL || nrates == NULL)
		return EINVAL;
	p = skip_space(text);
	while (*p != '\0') {
		start = p;
		eq = strchr(p, '=');
		if (eq == NULL) {
			error = EINVAL;	/* a spec with no "=pct" */
			break;
		}
		/* The spec, without the blanks around it. */
		end = eq;
		while (end > p && isspace((unsigned char)end[-1]))
			end--;
		len = (size_t)(end - p);
		if (len == 0 || len > STATS_TPL_MAX_STR_SPEC_LEN) {
			error = EINVAL;
			break;
		}
		memcpy(spec, p, len);
		spec[len] = '\0';
		p = skip_space(eq + 1);
		if (!isdigit((unsigned char)*p)) {
			error = EINVAL;
			break;
		}
		errno = 0;
		pct = strtoul(p, &pend, 10);
		if (errno == ERANGE || pct > 100) {
			error = EINVAL;
			break;
		}
		total += (uint32_t)pct;
		if (total > 100) {
			error = EINVAL;	/* the percentages add up past 100 */
			break;
		}
		p = skip_space(pend);
		if (*p == ',')
			p = skip_space(p + 1);
		else if (*p != '\0') {
			error = EINVAL;
			start = p;
			break;
		}
		id = stats_tpl_fetch_byspec(spec);
		if (id < 0) {
			error = id == -EINVAL ? EINVAL : ESRCH;
			break;
		}
		tmp = realloc(out, (size_t)(n + 1) * sizeof(*out));
		if (tmp == NULL) {
			error = ENOMEM;
			break;
		}
		out = tmp;
		out[n].tpl_slot_id = id;
		out[n].tpl_sample_pct = (uint32_t)pct;
		n++;
	}
	if (error != 0) {
		free(out);
		if (errpos != NULL)
			*errpos = (size_t)(start - text);
		return error;
	}
	*rates = out;
	*nrates = n;
	return 0;
}

int
stats_tpl_sample_rates_format(const struct stats_tpl_sample_rate *rates,
    int nrates, struct sbuf *buf)
{
	char spec[STATS_TPL_MAX_STR_SPEC_LEN + 1];
	int i, error;

	if (buf == NULL || (rates == NULL && nrates > 0) || nrates < 0)
		return EINVAL;
	for (i = 0; i < nrates; i++) {
		error = stats_tpl_id2spec((uint32_t)rates[i].tpl_slot_id, spec,
		    sizeof(spec));
		if (error != 0)
			return error == EOVERFLOW ? EINVAL : error;
		sbuf_printf(buf, "%s%s=%" PRIu32, i > 0 ? "," : "", spec,
		    rates[i].tpl_sample_pct);
	}
	return sbuf_error(buf);
}

int
stats_tpl_sample_rates(SYSCTL_HANDLER_ARGS)
{
	stats_tpl_sr_cb_t cb = (stats_tpl_sr_cb_t)arg1;
	struct stats_tpl_sample_rate *rates = NULL, *nrates_arr = NULL;
	int nrates = 0, nnew = 0, error;
	struct sbuf *sb = NULL;
	void *ctx = NULL;
	char *text = NULL;

	(void)oidp;
	if (cb == NULL || req == NULL || arg2 < 0)
		return EINVAL;
	if (arg2 > 0 && (ctx = calloc(1, (size_t)arg2)) == NULL)
		return ENOMEM;

	/* Read: render the current list while the subsystem holds it. */
	error = cb(TPL_SR_RLOCKED_GET, &rates, &nrates, ctx);
	if (error != 0)
		goto out;
	sb = sbuf_new_auto();
	if (sb == NULL)
		error = ENOMEM;
	else
		error = stats_tpl_sample_rates_format(rates, nrates, sb);
	cb(TPL_SR_RUNLOCK, &rates, &nrates, ctx);
	if (error == 0)
		error = sbuf_finish(sb) == 0 ? 0 : sbuf_error(sb);
	if (error != 0)
		goto out;
	req->oldidx = (size_t)sbuf_len(sb) + 1;
	if (req->oldptr != NULL) {
		if (req->oldlen < req->oldidx) {
			error = ENOSPC;
			goto out;
		}
		memcpy(req->oldptr, sbuf_data(sb), req->oldidx);
	}

	/* Write: parse everything first, then hand the list over whole. */
	if (req->newptr != NULL) {
		text = strndup(req->newptr, req->newlen);
		if (text == NULL) {
			error = ENOMEM;
			goto out;
		}
		if (strlen(text) != req->newlen) {
			error = EINVAL;	/* embedded NUL */
			goto out;
		}
		error = stats_tpl_sample_rates_parse(text, &nrates_arr, &nnew,
		    NULL);
		if (error != 0)
			goto out;
		error = cb(TPL_SR_PUT, &nrates_arr, &nnew, ctx);
		/* On success the callback handed back the old list. */
	}
out:
	free(nrates_arr);
	free(text);
	sbuf_delete(sb);
	free(ctx);
	return error;
}
