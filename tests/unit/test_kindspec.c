/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_kindspec.c: the kind table's template side (kinds/kindspec.c and
 * each kind's builder): every kind is named by a spec and built by its
 * row, every parameter a spec takes is in the parameter table, errors name
 * the parameter, and a statistic that describes itself describes the
 * parameters it was built with (publish and TemplateAdd agree).
 */
#include "unit.h"
#include "kind.h"
#include "kindspec.h"

/* Build one statistic of spec name with a for a VOI of dtype. */
static int
build(const char *name, const struct kind_args *a, enum vsd_dtype dtype,
    struct voistatspec *vss, uint32_t *n, struct input_error *err)
{
	const struct kind_spec *ks;
	int s = kind_spec_find(name, &ks);

	ck_assert_int_gt(s, 0);
	*n = 0;
	memset(err, 0, sizeof(*err));
	return ks->build(a, dtype, vss, n, 8, err);
}

static void
vss_free(struct voistatspec *vss, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		free(vss[i].iv);
}

START_TEST(every_kind_in_the_table)
{
	const struct kind_spec *ks, *found;
	int s, t, p;
	uint8_t i, j;

	for (p = 0; p < KP_NUM; p++)
		ck_assert_int_eq(kind_param_find(kind_params[p].name), p);
	ck_assert_int_eq(kind_param_find("nosuch"), -1);
	for (s = 1; s < VS_NUM_STYPES; s++) {
		ck_assert_uint_ge(stype_ops[s].nspecs, 1);
		/* The first spec name is the kind's own. */
		ck_assert_str_eq(stype_ops[s].specs[0].name,
		    stype_ops[s].name);
		for (i = 0; i < stype_ops[s].nspecs; i++) {
			ks = &stype_ops[s].specs[i];
			ck_assert_ptr_nonnull(ks->build);
			ck_assert_uint_eq(ks->params & ~((1u << KP_NUM) - 1),
			    0);
			ck_assert_int_eq(kind_spec_find(ks->name, &found), s);
			ck_assert_ptr_eq(found, ks);
			/* One name, one kind. */
			for (t = s; t < VS_NUM_STYPES; t++)
				for (j = t == s ? i + 1 : 0;
				    j < stype_ops[t].nspecs; j++)
					ck_assert_str_ne(ks->name,
					    stype_ops[t].specs[j].name);
		}
	}
	ck_assert_int_eq(stype_ops[VS_STYPE_VOISTATE].nspecs, 0);
	ck_assert_int_eq(kind_spec_find("VOISTATE", &found), -1);
	ck_assert_int_eq(kind_spec_find("K2HIST", &found), VS_STYPE_HIST);
	ck_assert_int_eq(kind_spec_find("STRING", &found), VS_STYPE_LAST);
	ck_assert(stype_ops[VS_STYPE_DEFN].alone);
}
END_TEST

START_TEST(errors_name_the_parameter)
{
	struct voistatspec vss[8];
	struct kind_args a = { 0 };
	struct input_error err;
	uint32_t n;

	kind_set_str(&a, KP_SCHEME, "LIN");
	ck_assert_int_eq(build("HIST", &a, VSD_DTYPE_INT_U64, vss, &n, &err),
	    -EINVAL);
	ck_assert_str_eq(err.where, "step");
	kind_set_int(&a, KP_COUNTERS, 48);
	ck_assert_int_eq(build("HIST", &a, VSD_DTYPE_INT_U64, vss, &n, &err),
	    -EINVAL);
	ck_assert_str_eq(err.where, "counters");
	memset(&a, 0, sizeof(a));
	ck_assert_int_eq(build("K2HIST", &a, VSD_DTYPE_INT_S64, vss, &n,
	    &err), -EINVAL);
	ck_assert_str_eq(err.where, "kind");
	kind_set_str(&a, KP_UNITS, "m s");
	ck_assert_int_eq(build("DEFN", &a, VSD_DTYPE_INT_S64, vss, &n, &err),
	    -EINVAL);
	ck_assert_str_eq(err.where, "units");
	memset(&a, 0, sizeof(a));
	kind_set_str(&a, KP_MODE, "sometimes");
	ck_assert_int_eq(build("HISTORY", &a, VSD_DTYPE_INT_S64, vss, &n,
	    &err), -EINVAL);
	ck_assert_str_eq(err.where, "mode");
	/* A well-formed spec builds, and DEFN brings its own statistics. */
	memset(&a, 0, sizeof(a));
	kind_set_str(&a, KP_UNITS, "ms");
	ck_assert_int_eq(build("DEFN", &a, VSD_DTYPE_INT_S64, vss, &n, &err),
	    0);
	ck_assert_uint_ge(n, 2);
	ck_assert_int_eq(vss[0].stype, VS_STYPE_DEFN);
	vss_free(vss, n);
}
END_TEST

/* What a kind builds, it describes back (stats_blob_publish's StatSpecs
 * are what TemplateAdd takes). */
START_TEST(describe_gives_back_the_spec)
{
	int64_t dr[] = { 0, 10, 10, 20, 50, 60 };
	struct voistatspec vss[8];
	struct kind_args a = { 0 }, d;
	struct input_error err;
	uint32_t n;
	size_t i;
	int64_t *ints = malloc(sizeof(dr));

	memcpy(ints, dr, sizeof(dr));
	kind_set_str(&a, KP_SCHEME, "USR");
	kind_set_str(&a, KP_RANGE, "DR");
	kind_set_int(&a, KP_COUNTERS, 32);
	kind_set_ints(&a, ints, 6);
	kind_set_int(&a, KP_LBINF, 1);
	ck_assert_int_eq(build("HIST", &a, VSD_DTYPE_INT_S64, vss, &n, &err),
	    0);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(stype_ops[VS_STYPE_HIST].describe(vss[0].iv,
	    (uint16_t)vss[0].vsdsz, vss[0].vs_dtype, VSD_DTYPE_INT_S64, &d),
	    0);
	ck_assert_str_eq(kind_str(&d, KP_SCHEME, ""), "USR");
	ck_assert_str_eq(kind_str(&d, KP_RANGE, ""), "DR");
	ck_assert_int_eq(kind_int(&d, KP_COUNTERS, 0), 32);
	ck_assert_int_eq(kind_int(&d, KP_LBINF, 0), 1);
	ck_assert_int_eq(kind_int(&d, KP_UBINF, 1), 0);
	ck_assert_uint_eq(d.nints, 6);
	for (i = 0; i < 6; i++)
		ck_assert_int_eq(d.ints[i], dr[i]);
	kind_args_done(&d);
	kind_args_done(&a);
	vss_free(vss, n);

	memset(&a, 0, sizeof(a));
	kind_set_int(&a, KP_NCTDS, 40);
	kind_set_int(&a, KP_COUNTERS, 32);
	kind_set_int(&a, KP_PREC, 3);
	ck_assert_int_eq(build("TDGST", &a, VSD_DTYPE_INT_U64, vss, &n, &err),
	    0);
	ck_assert_int_eq(stype_ops[VS_STYPE_TDGST].describe(vss[0].iv,
	    (uint16_t)vss[0].vsdsz, vss[0].vs_dtype, VSD_DTYPE_INT_U64, &d),
	    0);
	ck_assert_int_eq(kind_int(&d, KP_NCTDS, 0), 40);
	ck_assert_int_eq(kind_int(&d, KP_COUNTERS, 0), 32);
	ck_assert_int_eq(kind_int(&d, KP_PREC, 0), 3);
	kind_args_done(&d);
	vss_free(vss, n);
	/* Text LASTs describe their variant, DEFN its units. */
	memset(&a, 0, sizeof(a));
	kind_set_int(&a, KP_MAXLEN, 40);
	ck_assert_int_eq(build("STRING", &a, VSD_DTYPE_INT_U64, vss, &n, &err),
	    0);
	ck_assert_int_eq(stype_ops[VS_STYPE_LAST].describe(vss[0].iv,
	    (uint16_t)vss[0].vsdsz, vss[0].vs_dtype, VSD_DTYPE_INT_U64, &d),
	    1);
	ck_assert_str_eq(stype_ops[VS_STYPE_LAST].specs[1].name, "STRING");
	ck_assert_int_eq(kind_int(&d, KP_MAXLEN, 0), 40);
	vss_free(vss, n);
	memset(&a, 0, sizeof(a));
	kind_set_str(&a, KP_UNITS, "ms/requests");
	ck_assert_int_eq(build("DEFN", &a, VSD_DTYPE_INT_S64, vss, &n, &err),
	    0);
	ck_assert_int_eq(stype_ops[VS_STYPE_DEFN].describe(vss[0].iv,
	    (uint16_t)vss[0].vsdsz, vss[0].vs_dtype, VSD_DTYPE_INT_S64, &d),
	    0);
	ck_assert_str_eq(kind_str(&d, KP_UNITS, ""), "ms/requests");
	vss_free(vss, n);
	/* The public helper lays out what the StatSpec builds. */
	{
		struct voistatspec pub[] = { STATS_VSS_DEFN("ms/requests") };

		ck_assert_uint_eq(NVSS(pub), 2);
		ck_assert_int_eq(pub[0].hlpr(VSD_DTYPE_INT_S64, &pub[0],
		    pub[0].hlprinfo), 0);
		ck_assert_int_eq(pub[0].vs_dtype, VSD_DTYPE_DEFN);
		ck_assert_int_eq(pub[1].stype, VS_STYPE_COUNT);
		ck_assert_int_eq(pub[0].hlpr(VSD_DTYPE_INT_U64, &pub[1],
		    pub[0].hlprinfo), EINVAL);
		free(pub[0].iv);
	}
	/* Kinds made only by the kstat and statistic calls do not. */
	ck_assert_ptr_null(stype_ops[VS_STYPE_IOQ].describe);
}
END_TEST

static Suite *
kindspec_suite(void)
{
	Suite *s = suite_create("kindspec");
	TCase *tc = tcase_create("kindspec");

	tcase_add_test(tc, every_kind_in_the_table);
	tcase_add_test(tc, errors_name_the_parameter);
	tcase_add_test(tc, describe_gives_back_the_spec);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_main(kindspec_suite());
}
