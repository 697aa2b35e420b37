/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stat_list.c: the LIST statistic, Linux's "list": X -> sum of Y for
 * the first entries_max distinct X, first come first served, kept in
 * descending order of hits.
 *
 * hits_missed counts pairs, not weights ("number of (X, Y) pairs missed"),
 * as the Linux documentation's table says and rev 1.5 of its code does.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "numeric.h"
#include "stat_list.h"

size_t
stat_list_size(uint32_t entries_max)
{
	return LIST_HDRSZ + (size_t)entries_max * LIST_ENTSZ;
}

int
stat_list_vss_hlpr(enum vsd_dtype voi_dtype, struct voistatspec *vss,
    struct vss_list_hlpr_info *info)
{
	struct vsd_list *iv;

	if (vss == NULL || info == NULL || !dtype_is_scalar(voi_dtype) ||
	    info->entries_max == 0)
		return EINVAL;
	if (info->entries_max > LIST_ENTRIES_MAX)
		return EFBIG;
	iv = calloc(1, stat_list_size(info->entries_max));
	if (iv == NULL)
		return ENOMEM;
	iv->entries_max = (uint16_t)info->entries_max;
	vss->iv = (struct voistatdata *)iv;
	vss->vsdsz = stat_list_size(info->entries_max);
	vss->vs_dtype = VSD_DTYPE_LIST;
	return 0;
}

/* Add y hits for x; returns false if x is new and there is no room. */
static bool
list_add(struct vsd_list *l, enum vsd_dtype voi_dtype,
    const struct voistatdata_numeric *x, uint64_t y)
{
	uint16_t i;

	for (i = 0; i < l->nentries; i++) {
		if (numeric_cmp(voi_dtype, &l->ent[i].x, x) == 0)
			break;
	}
	if (i == l->nentries) {
		if (l->nentries >= l->entries_max)
			return false;
		l->ent[i].x = *x;
		l->ent[i].hits = 0;
		l->nentries++;
	}
	l->ent[i].hits += y;
	/* Move toward the head past entries with fewer hits. */
	while (i > 0 && l->ent[i - 1].hits < l->ent[i].hits) {
		struct vsd_list_entry t = l->ent[i - 1];

		l->ent[i - 1] = l->ent[i];
		l->ent[i] = t;
		i--;
	}
	return true;
}

int
stat_list_update(struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype,
    const struct voistatdata_numeric *x, uint64_t y, bool *changed)
{
	struct vsd_list *l = (struct vsd_list *)vsd;
	struct voistatdata_numeric xv = *x;

	(void)dsz;
	(void)vs_dtype;
	/* Keep the word canonical so equal values compare equal bytewise. */
	if (dtype_info[voi_dtype].size == 4)
		xv.int32.pad = 0;
	if (!list_add(l, voi_dtype, &xv, y))
		l->hits_missed++;
	*changed = true;
	return 0;
}

void
stat_list_reset(struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype)
{
	struct vsd_list *l = (struct vsd_list *)vsd;

	(void)dsz;
	(void)vs_dtype;
	(void)voi_dtype;
	memset(l->ent, 0, (size_t)l->entries_max * LIST_ENTSZ);
	l->nentries = 0;
	l->hits_missed = 0;
}

int
stat_list_merge(struct voistatdata *dst, const struct voistatdata *src,
    uint16_t dsz, enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype)
{
	struct vsd_list *d = (struct vsd_list *)dst;
	const struct vsd_list *s = (const struct vsd_list *)src;
	uint16_t i;

	(void)dsz;
	(void)vs_dtype;
	if (d->entries_max != s->entries_max)
		return EINVAL;
	/* Source entries in its order: the busiest get the free room. */
	for (i = 0; i < s->nentries; i++) {
		if (!list_add(d, voi_dtype, &s->ent[i].x, s->ent[i].hits))
			d->hits_missed++;
	}
	d->hits_missed += s->hits_missed;
	return 0;
}

const char *
stat_list_check(const struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype)
{
	const struct vsd_list *l = (const struct vsd_list *)vsd;

	(void)voi_dtype;
	if (vs_dtype != VSD_DTYPE_LIST || dsz < LIST_HDRSZ)
		return "list smaller than its header";
	if (l->entries_max == 0 || stat_list_size(l->entries_max) != dsz)
		return "list entries_max disagrees with its size";
	if (l->nentries > l->entries_max)
		return "list with more entries than entries_max";
	return NULL;
}

int
stat_list_render(struct sbuf *buf, const struct voistatdata *vsd,
    uint16_t dsz, enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype,
    enum sb_str_fmt fmt, bool objdump)
{
	const struct vsd_list *l = (const struct vsd_list *)vsd;
	uint16_t i;

	(void)dsz;
	(void)vs_dtype;
	(void)objdump;
	if (!dtype_is_scalar(voi_dtype))
		voi_dtype = VSD_DTYPE_INT_S64;
	if (fmt == SB_STRFMT_JSON) {
		sbuf_printf(buf, "\"entries_max\":%hu,\"hits_missed\":",
		    l->entries_max);
		numeric_json_u64(buf, l->hits_missed);
		sbuf_cat(buf, ",\"entries\":[");
	} else
		sbuf_printf(buf, "entries_max=%hu, hits_missed=%ju",
		    l->entries_max, (uintmax_t)l->hits_missed);
	for (i = 0; i < l->nentries && i < l->entries_max; i++) {
		if (fmt == SB_STRFMT_JSON) {
			sbuf_cat(buf, i > 0 ? ",{\"x\":" : "{\"x\":");
			numeric_format_json(buf, voi_dtype, &l->ent[i].x);
			sbuf_cat(buf, ",\"hits\":");
			numeric_json_u64(buf, l->ent[i].hits);
			sbuf_putc(buf, '}');
		} else {
			sbuf_cat(buf, "\n\t\t\t\t{x=");
			numeric_format(buf, voi_dtype, &l->ent[i].x);
			sbuf_printf(buf, ",hits=%ju}", (uintmax_t)l->ent[i].hits);
		}
	}
	if (fmt == SB_STRFMT_JSON)
		sbuf_cat(buf, "]");
	return sbuf_error(buf);
}

/* LIST: entries_max (16 by default). */
int
stat_list_build(const struct kind_args *a, enum vsd_dtype voi_dtype,
    struct voistatspec *vss, uint32_t *n, uint32_t max, struct input_error *err)
{
	struct vss_list_hlpr_info li = {
		(uint32_t)kind_int(a, KP_ENTRIES_MAX, 16) };

	return kind_add(vss, n, max, VS_STYPE_LIST,
	    (vss_hlpr_fn)stat_list_vss_hlpr, &li, voi_dtype, 0, err);
}
