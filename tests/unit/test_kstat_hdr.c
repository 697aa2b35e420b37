/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_kstat_hdr.c: kstat headers as data: each field's rules (lengths,
 * characters, defaults), kstat2 paths, descriptions and content types,
 * validation of a foreign copy, a new header in one call, the kstat_t a
 * header makes, the flags by their names, kstat_lookup's wildcards, and
 * kstat(1M)'s selectors in glob and /regex/ form.
 */
#include <errno.h>

#include "unit.h"
#include "kstat_hdr.h"

START_TEST(init_rules_and_defaults)
{
	struct kstat_hdr h;
	struct input_error err;

	ck_assert_int_eq(ks_hdr_init(&h, "sd", 3, NULL, NULL, KSTAT_TYPE_IO,
	    KSTAT_FLAG_PERSISTENT, &err), 0);
	ck_assert_str_eq(h.name, "sd3");		/* <module><instance> */
	ck_assert_str_eq(h.class_, "misc");
	ck_assert_int_eq(h.scale, 1);
	ck_assert_int_eq(h.content, KSTAT2_NVMT_UNK);
	ck_assert_int_eq(ks_hdr_check(&h, &err), 0);
	/* 30 characters fit, 31 do not. */
	ck_assert_int_eq(ks_hdr_init(&h, "abcdefghijklmnopqrstuvwxyz0123", 0,
	    "n", "c", KSTAT_TYPE_NAMED, 0, &err), 0);
	ck_assert_int_eq(ks_hdr_init(&h, "abcdefghijklmnopqrstuvwxyz01234", 0,
	    "n", "c", KSTAT_TYPE_NAMED, 0, &err), -ENAMETOOLONG);
	ck_assert_str_eq(err.where, "module");
	/* A long default name is cut to 30. */
	ck_assert_int_eq(ks_hdr_init(&h, "abcdefghijklmnopqrstuvwxyz0123", 42,
	    NULL, NULL, KSTAT_TYPE_NAMED, 0, &err), 0);
	ck_assert_str_eq(h.name, "abcdefghijklmnopqrstuvwxyz0123");
	ck_assert_int_eq(ks_hdr_init(&h, "", 0, "n", NULL, 1, 0, &err), -EINVAL);
	ck_assert_str_eq(err.where, "module");
	ck_assert_int_eq(ks_hdr_init(&h, "m", -1, "n", NULL, 1, 0, &err),
	    -EINVAL);
	ck_assert_str_eq(err.where, "instance");
	ck_assert_int_eq(ks_hdr_init(&h, "m", 0, "a:b", NULL, 1, 0, &err),
	    -EINVAL);
	ck_assert_str_eq(err.where, "name");
	ck_assert_int_eq(ks_hdr_init(&h, "m", 0, "n", "c\n", 1, 0, &err),
	    -EINVAL);
	ck_assert_str_eq(err.where, "class");
	ck_assert_int_eq(ks_hdr_init(&h, "m", 0, "n", NULL, KSTAT_NUM_TYPES, 0,
	    &err), -EINVAL);
	ck_assert_str_eq(err.where, "type");
	ck_assert_int_eq(ks_hdr_init(&h, "m", 0, "n", NULL, 1,
	    KSTAT_FLAG_DORMANT, &err), -EINVAL);
	ck_assert_str_eq(err.where, "flags");
	ck_assert_int_eq(ks_hdr_init(&h, "m", 0, "n", NULL, 1,
	    KSTAT_FLAG_PERSISTENT | KSTAT_FLAG_VIRTUAL, &err), -EINVAL);
	/* Spaces are allowed, as on illumos (if unwise). */
	ck_assert_int_eq(ks_hdr_init(&h, "my mod", 0, "n", NULL, 1,
	    KSTAT_FLAG_PRIV | KSTAT_FLAG_WRITABLE, &err), 0);
}
END_TEST

START_TEST(path_desc_content)
{
	static const char *const pseg[] = { "misc", "my_drv", "1", "data_in" };
	static const char *const bad[] = { "misc", "a/b", "c" };
	static const char *const two[] = { "misc", "x" };
	struct kstat_hdr h;
	struct input_error err;
	char seg[32];

	ks_hdr_init(&h, "my_drv", 1, "data_in", NULL, KSTAT_TYPE_HIST, 0, NULL);
	ck_assert_int_eq(ks_hdr_set_path(&h, pseg, 4, &err), 0);
	ck_assert_str_eq(h.path, "misc/my_drv/1/data_in");
	ck_assert_uint_eq(ks_hdr_npseg(&h), 4);
	ck_assert_int_eq(ks_hdr_pseg(&h, 3, seg, sizeof(seg)), 0);
	ck_assert_str_eq(seg, "data_in");
	ck_assert_int_eq(ks_hdr_pseg(&h, 0, seg, sizeof(seg)), 0);
	ck_assert_str_eq(seg, "misc");
	ck_assert_int_eq(ks_hdr_pseg(&h, 4, seg, sizeof(seg)), -ENOENT);
	ck_assert_int_eq(ks_hdr_set_path(&h, bad, 3, &err), -EINVAL);
	ck_assert_str_eq(err.where, "path");
	ck_assert_str_eq(h.path, "misc/my_drv/1/data_in");	/* unchanged */
	ck_assert_int_eq(ks_hdr_set_path(&h, two, 2, &err), -EINVAL);
	ck_assert_int_eq(ks_hdr_set_desc(&h, "data read by my_drv", &err), 0);
	ck_assert_str_eq(h.desc, "data read by my_drv");
	ck_assert_int_eq(ks_hdr_set_desc(&h, "bell\a", &err), -EINVAL);
	ck_assert_int_eq(ks_hdr_set_content(&h, KSTAT2_NVMT_T_REL, 1000000,
	    &err), 0);
	ck_assert_int_eq(ks_hdr_set_content(&h, KSTAT2_NVMT_NUM, 1, &err),
	    -EINVAL);
	ck_assert_str_eq(err.where, "content");
	ck_assert_int_eq(ks_hdr_set_content(&h, KSTAT2_NVMT_BYTES, 0, &err),
	    -EINVAL);
	ck_assert_str_eq(err.where, "scale");
	ck_assert_int_eq(ks_hdr_check(&h, &err), 0);
	ck_assert_int_eq(ks_hdr_set_path(&h, NULL, 0, &err), 0);
	ck_assert_str_eq(h.path, "");
	ck_assert_uint_eq(ks_hdr_npseg(&h), 0);
}
END_TEST

START_TEST(check_a_foreign_copy)
{
	struct kstat_hdr h, bad;
	struct input_error err;

	ks_hdr_init(&h, "unix", 0, "system_misc", "misc", KSTAT_TYPE_NAMED, 0,
	    NULL);
	bad = h;
	memset(bad.module, 'x', sizeof(bad.module));
	ck_assert_int_eq(ks_hdr_check(&bad, &err), -EINVAL);
	ck_assert_str_eq(err.where, "module");
	bad = h;
	bad.flags = 0x8000;
	ck_assert_int_eq(ks_hdr_check(&bad, &err), -EINVAL);
	ck_assert_str_eq(err.where, "flags");
	bad = h;
	bad.flags = KSTAT_FLAG_DORMANT;		/* statsd's to set: fine here */
	ck_assert_int_eq(ks_hdr_check(&bad, &err), 0);
	bad = h;
	strcpy(bad.path, "a//b/c");
	ck_assert_int_eq(ks_hdr_check(&bad, &err), -EINVAL);
	ck_assert_str_eq(err.where, "path");
	bad = h;
	memset(bad.desc, 'd', sizeof(bad.desc));
	ck_assert_int_eq(ks_hdr_check(&bad, &err), -EINVAL);
	ck_assert_str_eq(err.where, "description");
	bad = h;
	bad.scale = 0;
	ck_assert_int_eq(ks_hdr_check(&bad, &err), -EINVAL);
	bad = h;
	bad.instance = -5;
	ck_assert_int_eq(ks_hdr_check(&bad, &err), -EINVAL);
	ck_assert_str_eq(ks_type_name(KSTAT_TYPE_IO), "i/o");
	ck_assert_str_eq(ks_type_name(KSTAT_TYPE_NAMED), "name=value");
	ck_assert_ptr_null(ks_type_name(KSTAT_NUM_TYPES));
}
END_TEST

/* A new kstat's whole header in one call, each part's error with its
 * field; what a header makes of a kstat_t; the flags by their names. */
START_TEST(new_kstat_t_and_flag_names)
{
	const char *pseg[] = { "io", "disk", "sda" }, *bad[] = { "io", "" };
	const char *names[KS_NFLAG_NAMES];
	struct kstat_hdr h;
	struct input_error err;
	kstat_t ks;

	ck_assert_int_eq(ks_hdr_new(&h, "sd", 0, "sda", "disk",
	    KSTAT_TYPE_IO, KSTAT_FLAG_WRITABLE, pseg, 3, "the disk", &err), 0);
	ck_assert_str_eq(h.path, "io/disk/sda");
	ck_assert_str_eq(h.desc, "the disk");
	ck_assert_int_eq(ks_hdr_check(&h, &err), 0);
	ck_assert_int_eq(ks_hdr_new(&h, "sd", 0, "sda", NULL, KSTAT_TYPE_IO,
	    0, NULL, 0, NULL, &err), 0);
	ck_assert_str_eq(h.path, "");
	ck_assert_str_eq(h.desc, "");
	ck_assert_int_eq(ks_hdr_new(&h, "sd", 0, "sda", NULL, KSTAT_TYPE_IO,
	    0, bad, 2, NULL, &err), -EINVAL);
	ck_assert_str_eq(err.where, "path");
	ck_assert_int_eq(ks_hdr_new(&h, "sd", 0, "sda", NULL, KSTAT_TYPE_IO,
	    0, NULL, 0, "bad\001", &err), -EINVAL);
	ck_assert_str_eq(err.where, "description");
	ck_assert_int_eq(ks_hdr_new(&h, "s:d", 0, "sda", NULL, KSTAT_TYPE_IO,
	    0, pseg, 3, NULL, &err), -EINVAL);
	ck_assert_str_eq(err.where, "module");

	/* The header's part of a kstat_t; the rest is left as it was. */
	ck_assert_int_eq(ks_hdr_new(&h, "sd", 4, "sda", "disk",
	    KSTAT_TYPE_IO, KSTAT_FLAG_PERSISTENT, NULL, 0, NULL, &err), 0);
	h.kid = 12;
	h.crtime = 100;
	h.snaptime = 200;
	memset(&ks, 0, sizeof(ks));
	ks.ks_ndata = 7;
	ks_hdr_kstat(&ks, &h);
	ck_assert_str_eq(ks.ks_module, "sd");
	ck_assert_str_eq(ks.ks_name, "sda");
	ck_assert_str_eq(ks.ks_class, "disk");
	ck_assert_int_eq(ks.ks_instance, 4);
	ck_assert_uint_eq(ks.ks_type, KSTAT_TYPE_IO);
	ck_assert_uint_eq(ks.ks_flags, KSTAT_FLAG_PERSISTENT);
	ck_assert_int_eq(ks.ks_kid, 12);
	ck_assert_int_eq(ks.ks_crtime, 100);
	ck_assert_int_eq(ks.ks_snaptime, 200);
	ck_assert_uint_eq(ks.ks_ndata, 7);

	/* Names in the table's order, whatever the bits' order. */
	ck_assert_uint_eq(ks_flags_names(KSTAT2_FLAG_GZ_VIS |
	    KSTAT_FLAG_DORMANT | KSTAT_FLAG_PERSISTENT, names), 3);
	ck_assert_str_eq(names[0], "PERSISTENT");
	ck_assert_str_eq(names[1], "DORMANT");
	ck_assert_str_eq(names[2], "GZ_VIS");
	ck_assert_uint_eq(ks_flags_names(0, names), 0);
	ck_assert_uint_eq(ks_flags_names(0xffffffffu, names), KS_NFLAG_NAMES);
	/* A client sends only what means something to statsd. */
	ck_assert_uint_eq(ks_flags_names(KS_FLAGS_CREATOR & KS_FLAGS_MEANT,
	    names), 3);
	ck_assert_str_eq(names[2], "WRITABLE");
}
END_TEST

START_TEST(lookup_wildcards)
{
	struct kstat_hdr a, b, c;
	const struct kstat_hdr *all[] = { &a, &b, &c };

	ks_hdr_init(&a, "sd", 0, NULL, "disk", KSTAT_TYPE_IO, 0, NULL);
	ks_hdr_init(&b, "sd", 1, NULL, "disk", KSTAT_TYPE_IO, 0, NULL);
	ks_hdr_init(&c, "unix", 0, "system_misc", NULL, KSTAT_TYPE_NAMED, 0,
	    NULL);
	ck_assert_int_eq(ks_hdr_lookup(all, 3, "sd", 1, "sd1"), 1);
	ck_assert_int_eq(ks_hdr_lookup(all, 3, NULL, -1, NULL), 0);
	ck_assert_int_eq(ks_hdr_lookup(all, 3, NULL, 0, "system_misc"), 2);
	ck_assert_int_eq(ks_hdr_lookup(all, 3, "sd", -1, "sd1"), 1);
	ck_assert_int_eq(ks_hdr_lookup(all, 3, NULL, 1, NULL), 1);
	ck_assert_int_eq(ks_hdr_lookup(all, 3, "sd", 2, NULL), -ENOENT);
	ck_assert_int_eq(ks_hdr_lookup(all, 3, "SD", -1, NULL), -ENOENT);
}
END_TEST

static bool
sel_matches(const char *text, const struct kstat_hdr *h, const char *stat)
{
	struct ks_selector sel;
	struct input_error err;
	bool r;

	ck_assert_int_eq(ks_selector_parse(&sel, text, &err), 0);
	r = ks_selector_match_kstat(&sel, h) &&
	    (stat == NULL || ks_selector_match_stat(&sel, stat));
	ks_selector_done(&sel);
	return r;
}

START_TEST(selectors)
{
	struct kstat_hdr h;
	struct ks_selector sel;
	struct input_error err;

	ks_hdr_init(&h, "unix", 0, "system_misc", NULL, KSTAT_TYPE_NAMED, 0,
	    NULL);
	/* The man page's equivalent forms. */
	ck_assert(sel_matches("unix:0:system_misc:avenrun*", &h,
	    "avenrun_15min"));
	ck_assert(sel_matches(":::avenrun*", &h, "avenrun_1min"));
	ck_assert(sel_matches(":::/^avenrun_[0-9]+min$/", &h, "avenrun_5min"));
	ck_assert(!sel_matches(":::/^avenrun_[0-9]+min$/", &h, "avenrun_x"));
	ck_assert(!sel_matches("unix:0:system_misc:avenrun*", &h, "nproc"));
	/* Globs are anchored, regexes are not. */
	ck_assert(!sel_matches("uni", &h, NULL));
	ck_assert(sel_matches("/ni/", &h, NULL));
	ck_assert(sel_matches("u?ix:[0-3]", &h, NULL));
	ck_assert(!sel_matches("unix:1", &h, NULL));
	ck_assert(sel_matches("unix::system_*", &h, NULL));
	ck_assert(sel_matches("", &h, "anything"));
	/* The instance is matched as a decimal string. */
	ck_assert(sel_matches(":/^0$/", &h, NULL));
	/* A regex may hold ':'. */
	ck_assert(sel_matches("/^(unix|x:y)$/:0", &h, NULL));
	ck_assert_int_eq(ks_selector_parse(&sel, "a:b:c:d:e", &err), -EINVAL);
	ck_assert_int_eq(ks_selector_parse(&sel, "::/(/", &err), -EINVAL);
	ck_assert_str_eq(err.where, "name");
	ck_assert(err.msg[0] != '\0');
	/* -m/-i/-n/-s set fields one by one. */
	ks_selector_all(&sel);
	ck_assert_int_eq(ks_selector_set(&sel, KS_F_NAME, "system_*", &err), 0);
	ck_assert(ks_selector_match_kstat(&sel, &h));
	ck_assert_int_eq(ks_selector_set(&sel, KS_F_MODULE, "/^cpu/", &err), 0);
	ck_assert(!ks_selector_match_kstat(&sel, &h));
	ks_selector_done(&sel);
}
END_TEST

/* A name written out is a literal a reader can go straight to; anything
 * with a glob character, a regex or "everything" is not. */
START_TEST(literals)
{
	static const struct {
		const char	*text;
		const char	*literal;
	} t[] = {
		{ "cpu_stat", "cpu_stat" }, { "0", "0" }, { "a.b-c", "a.b-c" },
		{ "cpu*", NULL }, { "cpu?", NULL }, { "cpu[01]", NULL },
		{ "a\\*", NULL }, { "/cpu/", NULL }, { "*", NULL }, { "", NULL },
	};
	struct ks_pattern p;
	struct ks_selector sel;
	struct input_error err;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		ck_assert_int_eq(ks_pattern_init(&p, t[i].text, &err), 0);
		if (t[i].literal == NULL)
			ck_assert_ptr_null(ks_pattern_literal(&p));
		else
			ck_assert_str_eq(ks_pattern_literal(&p), t[i].literal);
		ks_pattern_done(&p);
		ck_assert_ptr_null(ks_pattern_literal(&p));
	}
	ck_assert_int_eq(ks_selector_parse(&sel, "unix:0:/sys/:x*", &err), 0);
	ck_assert_str_eq(ks_pattern_literal(&sel.f[KS_F_MODULE]), "unix");
	ck_assert_str_eq(ks_pattern_literal(&sel.f[KS_F_INSTANCE]), "0");
	ck_assert_ptr_null(ks_pattern_literal(&sel.f[KS_F_NAME]));
	ck_assert_ptr_null(ks_pattern_literal(&sel.f[KS_F_STATISTIC]));
	ks_selector_done(&sel);
}
END_TEST


/* The one located input error: filled where and why, line and column
 * left as the caller set them, nothing done for a NULL one. */
START_TEST(input_error_filled)
{
	struct input_error err = { .line = 3, .col = 7 };

	ck_assert_int_eq(input_fail(&err, EINVAL, "vois[0].lb", "%d > %d", 5,
	    2), -EINVAL);
	ck_assert_str_eq(err.where, "vois[0].lb");
	ck_assert_str_eq(err.msg, "5 > 2");
	ck_assert_uint_eq(err.line, 3);
	ck_assert_uint_eq(err.col, 7);
	ck_assert_int_eq(input_fail(&err, ENAMETOOLONG, NULL, "x"),
	    -ENAMETOOLONG);
	ck_assert_str_eq(err.where, "");
	ck_assert_int_eq(input_fail(NULL, EINVAL, "a", "b"), -EINVAL);
}
END_TEST

static Suite *
kstat_hdr_suite(void)
{
	Suite *s = suite_create("kstat_hdr");
	TCase *tc = tcase_create("hdr");

	tcase_add_test(tc, init_rules_and_defaults);
	tcase_add_test(tc, input_error_filled);
	tcase_add_test(tc, path_desc_content);
	tcase_add_test(tc, check_a_foreign_copy);
	tcase_add_test(tc, new_kstat_t_and_flag_names);
	tcase_add_test(tc, lookup_wildcards);
	tcase_add_test(tc, selectors);
	tcase_add_test(tc, literals);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_main(kstat_hdr_suite());
}
