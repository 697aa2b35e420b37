/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_layout.c: blobs built without the registry: an empty blob, VOIs
 * added, replaced and appended past a gap, every other statistic's data
 * carried across byte for byte, the layout hash, and refusals; and that
 * the template registry lays its templates out by the same code, in
 * FreeBSD's order (a new VOI in front, statistics in the order given).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "blob.h"
#include "engine.h"
#include "layout.h"
#include "stat_list.h"
#include "stat_scalar.h"

static struct voistatspec
spec(enum voi_stype st, vss_hlpr_fn fn, void *info)
{
	struct voistatspec v = { .stype = st };

	ck_assert_int_eq(fn(VSD_DTYPE_INT_S64, &v, info), 0);
	return v;
}

START_TEST(build_replace_append)
{
	struct statsblob *e = layout_empty(), *a, *b, *c;
	struct voistatspec v[3];
	struct vss_list_hlpr_info li = { 8 };
	int64_t x;
	uint32_t h;

	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(stats_blob_validate(e, e->cursz), 0);
	v[0] = spec(VS_STYPE_SUM, (vss_hlpr_fn)stats_vss_numeric_hlpr, NULL);
	v[1] = spec(VS_STYPE_COUNT, (vss_hlpr_fn)stats_vss_count_hlpr, NULL);
	ck_assert_int_eq(layout_set_voi(e, 0, VSD_DTYPE_INT_S64, 0, 2, v, &a),
	    0);
	ck_assert_int_eq(stats_blob_validate(a, a->cursz), 0);
	ck_assert_int_eq(engine_apply(a, 0, STATS_OP_XY, 0, 5, 3, 0), 0);
	/* Append VOI 3 past a gap; VOI 0's data comes across. */
	v[2] = spec(VS_STYPE_LIST, (vss_hlpr_fn)stat_list_vss_hlpr, &li);
	ck_assert_int_eq(layout_set_voi(a, 3, VSD_DTYPE_INT_S64,
	    SB_VOI_RELUPDATE, 1, &v[2], &b), 0);
	ck_assert_int_eq(stats_blob_validate(b, b->cursz), 0);
	ck_assert_int_eq(((struct statsblobv1 *)b)->vois[1].id, -1);
	ck_assert_int_eq(((struct statsblobv1 *)b)->vois[2].id, -1);
	ck_assert_int_eq(stats_voistat_fetch_s64(b, 0, VS_STYPE_SUM, &x), 0);
	ck_assert_int_eq(x, 15);
	ck_assert_int_eq(stats_voistat_fetch_s64(b, 0, VS_STYPE_COUNT, &x), 0);
	ck_assert_int_eq(x, 3);
	ck_assert_int_eq(engine_apply(b, 3, STATS_OP_REL, 0, 2, 0, 0), 0);
	ck_assert_int_eq(engine_apply(b, 3, STATS_OP_REL, 0, 2, 0, 0), 0);
	/* Replace VOI 0 by a COUNT only: VOI 3 keeps its list and state. */
	h = ((struct statsblobv1 *)b)->tplhash;
	ck_assert_int_eq(layout_set_voi(b, 0, VSD_DTYPE_INT_S64, 0, 1, &v[1],
	    &c), 0);
	ck_assert_int_eq(stats_blob_validate(c, c->cursz), 0);
	ck_assert_uint_ne(((struct statsblobv1 *)c)->tplhash, h);
	ck_assert_int_eq(stats_voistat_fetch_s64(c, 0, VS_STYPE_SUM, &x),
	    EFTYPE);
	ck_assert_int_eq(stats_voistat_fetch_s64(c, 0, VS_STYPE_COUNT, &x), 0);
	ck_assert_int_eq(x, 0);		/* the new statistic starts fresh */
	{
		struct voistatdata *vsd;
		const struct vsd_list *l;

		ck_assert_int_eq(stats_voistat_fetch_dptr(c, 3, VS_STYPE_LIST,
		    NULL, &vsd, NULL), 0);
		l = (const struct vsd_list *)vsd;
		ck_assert_uint_eq(l->nentries, 2);
		ck_assert_int_eq(l->ent[0].x.int64.s64, 2);
		ck_assert_int_eq(l->ent[1].x.int64.s64, 4);
	}
	ck_assert_int_eq(engine_apply(c, 3, STATS_OP_REL, 0, 1, 0, 0), 0);
	/* The same change made twice lays out alike: same hash. */
	{
		struct statsblob *d;

		ck_assert_int_eq(layout_set_voi(b, 0, VSD_DTYPE_INT_S64, 0, 1,
		    &v[1], &d), 0);
		ck_assert_uint_eq(((struct statsblobv1 *)d)->tplhash,
		    ((struct statsblobv1 *)c)->tplhash);
		ck_assert_int_eq(stats_blob_merge(d, c, 0), 0);
		free(d);
	}
	free(v[0].iv);
	free(v[1].iv);
	free(v[2].iv);
	free(e);
	free(a);
	free(b);
	free(c);
}
END_TEST

START_TEST(refusals)
{
	struct statsblob *e = layout_empty(), *a;
	struct voistatspec v[2];
	struct vss_list_hlpr_info li = { LIST_ENTRIES_MAX };

	v[0] = spec(VS_STYPE_SUM, (vss_hlpr_fn)stats_vss_numeric_hlpr, NULL);
	v[1] = v[0];
	/* One statistic of each type. */
	ck_assert_int_eq(layout_set_voi(e, 0, VSD_DTYPE_INT_S64, 0, 2, v, &a),
	    EINVAL);
	/* A scalar statistic holds its VOI's type. */
	ck_assert_int_eq(layout_set_voi(e, 0, VSD_DTYPE_INT_U32, 0, 1, v, &a),
	    EINVAL);
	ck_assert_int_eq(layout_set_voi(e, -1, VSD_DTYPE_INT_S64, 0, 1, v, &a),
	    EINVAL);
	ck_assert_int_eq(layout_set_voi(e, 0, VSD_DTYPE_LIST, 0, 1, v, &a),
	    EINVAL);
	free(v[0].iv);
	/* Two maximal lists do not fit one blob. */
	v[0] = spec(VS_STYPE_LIST, (vss_hlpr_fn)stat_list_vss_hlpr, &li);
	ck_assert_int_eq(layout_set_voi(e, 0, VSD_DTYPE_INT_S64, 0, 1, v, &a),
	    0);
	{
		struct statsblob *b;

		ck_assert_int_eq(layout_set_voi(a, 1, VSD_DTYPE_INT_S64, 0, 1,
		    v, &b), EFBIG);
	}
	free(v[0].iv);
	free(a);
	free(e);
}
END_TEST

static const struct voistat *
vstat(struct statsblob *b, int voi, int stype)
{
	struct statsblobv1 *v1 = (struct statsblobv1 *)b;

	return blob_voistat(v1, &v1->vois[voi], stype);
}

/* Two statistics given COUNT first, then SUM: placed in that order. */
static void
count_sum(struct voistatspec *v)
{
	v[0] = spec(VS_STYPE_COUNT, (vss_hlpr_fn)stats_vss_count_hlpr, NULL);
	v[1] = spec(VS_STYPE_SUM, (vss_hlpr_fn)stats_vss_numeric_hlpr, NULL);
}

START_TEST(template_is_the_layout)
{
	struct statsblob_tpl *tpl;
	struct statsblob *start, *a, *b, *c, *d;
	struct voistatspec v[2], w[2], m, n;
	int id;

	id = stats_tpl_alloc("layout_order", 0);
	ck_assert_int_ge(id, 0);
	ck_assert_int_eq(stats_tpl_fetch(id, &tpl), 0);
	start = malloc(tpl->sb->cursz);
	ck_assert_ptr_nonnull(start);
	memcpy(start, tpl->sb, tpl->sb->cursz);

	/* The registry's template, VOI 2 then VOI 0 ... */
	count_sum(v);
	m = spec(VS_STYPE_MAX, (vss_hlpr_fn)stats_vss_numeric_hlpr, NULL);
	ck_assert_int_eq(stats_tpl_add_voistats(id, 2, "two",
	    VSD_DTYPE_INT_S64, 2, v, 0), 0);
	ck_assert_int_eq(stats_tpl_add_voistats(id, 0, "zero",
	    VSD_DTYPE_INT_S64, 1, &m, SB_VOI_RELUPDATE), 0);
	/* ... is byte for byte the layout's. */
	count_sum(w);
	n = spec(VS_STYPE_MAX, (vss_hlpr_fn)stats_vss_numeric_hlpr, NULL);
	ck_assert_int_eq(layout_tpl_add_voi(start, 2, VSD_DTYPE_INT_S64, 0,
	    2, w, &a), 0);
	ck_assert_int_eq(layout_tpl_add_voi(a, 0, VSD_DTYPE_INT_S64,
	    SB_VOI_RELUPDATE, 1, &n, &b), 0);
	ck_assert_uint_eq(b->cursz, tpl->sb->cursz);
	ck_assert_mem_eq(b, tpl->sb, b->cursz);
	ck_assert_int_eq(layout_tpl_add_voi(b, 2, VSD_DTYPE_INT_S64, 0, 1,
	    &n, &c), EOPNOTSUPP);

	/* FreeBSD's order: the newer VOI first, statistics as given. */
	ck_assert_uint_lt(((struct statsblobv1 *)b)->vois[0].stats_off,
	    ((struct statsblobv1 *)b)->vois[2].stats_off);
	ck_assert_uint_lt(vstat(b, 0, VS_STYPE_MAX)->data_off,
	    vstat(b, 2, VS_STYPE_COUNT)->data_off);
	ck_assert_uint_lt(vstat(b, 2, VS_STYPE_COUNT)->data_off,
	    vstat(b, 2, VS_STYPE_SUM)->data_off);

	/* A re-lay puts a new VOI in front and keeps every other in place,
	 * a replaced VOI too. */
	ck_assert_int_eq(layout_set_voi(b, 1, VSD_DTYPE_INT_S64, 0, 1, &n,
	    &c), 0);
	ck_assert_int_eq(stats_blob_validate(c, c->cursz), 0);
	ck_assert_uint_lt(((struct statsblobv1 *)c)->vois[1].stats_off,
	    ((struct statsblobv1 *)c)->vois[0].stats_off);
	ck_assert_uint_lt(((struct statsblobv1 *)c)->vois[0].stats_off,
	    ((struct statsblobv1 *)c)->vois[2].stats_off);
	ck_assert_int_eq(layout_set_voi(c, 0, VSD_DTYPE_INT_S64, 0, 2, w,
	    &d), 0);
	ck_assert_int_eq(stats_blob_validate(d, d->cursz), 0);
	ck_assert_uint_lt(((struct statsblobv1 *)d)->vois[1].stats_off,
	    ((struct statsblobv1 *)d)->vois[0].stats_off);
	ck_assert_uint_lt(((struct statsblobv1 *)d)->vois[0].stats_off,
	    ((struct statsblobv1 *)d)->vois[2].stats_off);
	ck_assert_uint_lt(vstat(d, 0, VS_STYPE_COUNT)->data_off,
	    vstat(d, 0, VS_STYPE_SUM)->data_off);
	free(d);
	free(c);
	free(b);
	free(a);
	free(start);
	/* spec() ran the helpers itself: the registry freed none of these. */
	free(v[0].iv);
	free(v[1].iv);
	free(m.iv);
	free(w[0].iv);
	free(w[1].iv);
	free(n.iv);
}
END_TEST

/*
 * A kstat laid out again from another template: the VOIs kept carry their
 * data (and a re-laid statistic, as a definition leaves it) byte for byte,
 * a VOI not kept is as the template has it, a VOI the template lacks goes;
 * the header's times are the kstat's, its hash the template's.
 */
START_TEST(carry_to_template)
{
	struct statsblob *e = layout_empty(), *old1, *old, *t1, *tpl, *nb;
	struct statsblobv1 *ob, *n;
	struct voistatspec v[3];
	struct vss_list_hlpr_info li = { 8 };
	bool keep[3] = { true, false, false };
	int64_t x;

	v[0] = spec(VS_STYPE_SUM, (vss_hlpr_fn)stats_vss_numeric_hlpr, NULL);
	v[1] = spec(VS_STYPE_COUNT, (vss_hlpr_fn)stats_vss_count_hlpr, NULL);
	v[2] = spec(VS_STYPE_LIST, (vss_hlpr_fn)stat_list_vss_hlpr, &li);
	/* The kstat: VOI 0 (SUM, COUNT) and VOI 1 (a LIST), fed. */
	ck_assert_int_eq(layout_set_voi(e, 0, VSD_DTYPE_INT_S64, 0, 2, v,
	    &old1), 0);
	ck_assert_int_eq(layout_set_voi(old1, 1, VSD_DTYPE_INT_S64, 0, 1,
	    &v[2], &old), 0);
	ck_assert_int_eq(engine_apply(old, 0, STATS_OP_XY, 0, 7, 2, 0), 0);
	ck_assert_int_eq(engine_apply(old, 1, STATS_OP_XY, 0, 3, 1, 0), 0);
	ob = (struct statsblobv1 *)old;
	ob->lastrst = 12345;
	/* The new template: VOI 0 as before, VOI 1 gone, VOI 2 (a SUM). */
	ck_assert_int_eq(layout_tpl_add_voi(e, 0, VSD_DTYPE_INT_S64, 0, 2, v,
	    &t1), 0);
	ck_assert_int_eq(layout_tpl_add_voi(t1, 2, VSD_DTYPE_INT_S64, 0, 1, v,
	    &tpl), 0);
	ck_assert_int_eq(layout_carry(old, tpl, keep, 3, 0xabcdef, &nb), 0);
	n = (struct statsblobv1 *)nb;
	ck_assert_int_eq(stats_blob_validate(nb, nb->cursz), 0);
	ck_assert_uint_eq(n->tplhash, 0xabcdef);
	ck_assert_int_eq(n->lastrst, 12345);
	ck_assert_int_eq(n->created, ob->created);
	ck_assert_int_eq(blob_nvois(n), 3);
	ck_assert_int_eq(n->vois[1].id, -1);
	ck_assert_int_eq(stats_voistat_fetch_s64(nb, 0, VS_STYPE_SUM, &x), 0);
	ck_assert_int_eq(x, 14);
	ck_assert_int_eq(stats_voistat_fetch_s64(nb, 0, VS_STYPE_COUNT, &x),
	    0);
	ck_assert_int_eq(x, 2);
	ck_assert_int_eq(stats_voistat_fetch_s64(nb, 2, VS_STYPE_SUM, &x), 0);
	ck_assert_int_eq(x, 0);
	ck_assert_int_eq(engine_apply(nb, 2, STATS_OP_XY, 0, 4, 1, 0), 0);
	ck_assert_int_eq(stats_voistat_fetch_s64(nb, 2, VS_STYPE_SUM, &x), 0);
	ck_assert_int_eq(x, 4);
	/* An update of the VOI that went finds nothing. */
	ck_assert_int_ne(engine_apply(nb, 1, STATS_OP_XY, 0, 3, 1, 0), 0);
	free(nb);
	/* Nothing kept: every VOI as the template has it. */
	ck_assert_int_eq(layout_carry(old, tpl, NULL, 0, 1, &nb), 0);
	ck_assert_int_eq(stats_blob_validate(nb, nb->cursz), 0);
	ck_assert_int_eq(stats_voistat_fetch_s64(nb, 0, VS_STYPE_SUM, &x), 0);
	ck_assert_int_eq(x, 0);
	free(nb);
	ck_assert_int_eq(layout_carry(NULL, tpl, NULL, 0, 1, &nb), EINVAL);
	ck_assert_int_eq(layout_carry(old, tpl, NULL, 2, 1, &nb), EINVAL);
	free(v[0].iv);
	free(v[1].iv);
	free(v[2].iv);
	free(tpl);
	free(t1);
	free(old);
	free(old1);
	free(e);
}
END_TEST

static Suite *
layout_suite(void)
{
	Suite *s = suite_create("layout");
	TCase *tc = tcase_create("layout");

	tcase_add_test(tc, build_replace_append);
	tcase_add_test(tc, refusals);
	tcase_add_test(tc, template_is_the_layout);
	tcase_add_test(tc, carry_to_template);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_main(layout_suite());
}
