/*
 * test_registry.c: statsd's registry of templates and kstats
 * (src/daemon/registry.c): a definition registered twice is one template,
 * another under its name is refused; kstats are found by name and by
 * handle, and a name is taken once; updates bump the snaptime and reach
 * the store segment; deleting a PERSISTENT kstat makes it dormant, and
 * creating it again revives its data, only with its own template; a
 * user's kstats stop at max_kstats_per_uid.
 */
#include <errno.h>

#include "daemon_statsd.h"

START_TEST(templates_and_kstats)
{
	char *rt = unit_tmpdir(), *st = unit_tmpdir();
	struct reg_owner root = { 0, true, false };
	struct reg_template *t, *t2, *other = NULL;
	struct reg_kstat *k, *dup = NULL;
	struct reg_kstat_new n;
	struct kstat_hdr h;
	struct quota_refusal why;
	struct input_error err;
	struct statsd d;
	struct input_error terr;
	json_t *def;
	bool created, revived;
	uint64_t kcid, snap;

	unit_statsd_start(&d, rt, st);
	t = unit_template(&d, UNIT_TPL);
	t2 = unit_template(&d, UNIT_TPL);
	ck_assert_ptr_eq(t, t2);
	ck_assert_ptr_eq(registry_template_find(d.reg, "T"), t);
	ck_assert_ptr_eq(registry_template_find(d.reg, t->spec), t);
	def = json_loads("{\"name\":\"T\",\"vois\":[{\"id\":0,\"name\":\"x\","
	    "\"dtype\":\"INT_S64\",\"stats\":[{\"kind\":\"MAX\"}]}]}", 0,
	    NULL);
	ck_assert_int_eq(registry_template_add(d.reg, def, &root, &other,
	    &created, &terr, &why),
	    -EEXIST);
	json_decref(def);

	kcid = registry_kcid(d.reg, ZONE_GLOBAL, true);
	k = unit_kstat(&d, t, "app", "req", 0, &revived);
	ck_assert(!revived);
	ck_assert_uint_ne(registry_kcid(d.reg, ZONE_GLOBAL, true), kcid);
	ck_assert_ptr_eq(registry_kstat_find(d.reg, "app", 0, "req"), k);
	ck_assert_ptr_eq(registry_kstat_by_handle(d.reg, k->handle), k);
	unit_hdr(&h, "app", "req", 0);
	n = (struct reg_kstat_new){ .hdr = &h, .privileged = true,
	    .zone = ZONE_GLOBAL, .tpl = t };
	ck_assert_int_eq(registry_kstat_create(d.reg, &n, &dup, &revived,
	    &why), -EEXIST);
	/* A bad name never reaches the registry: its header is refused. */
	ck_assert_int_eq(ks_hdr_new(&h, "bad:name", 0, "req", NULL,
	    KSTAT_TYPE_BLOB, 0, NULL, 0, NULL, &err), -EINVAL);
	ck_assert_str_eq(err.where, "module");

	snap = (uint64_t)k->hdr.snaptime;
	unit_update(&d, k, 40);
	unit_update(&d, k, 2);
	ck_assert_uint_eq(unit_sum(k), 42);
	ck_assert_uint_gt((uint64_t)k->hdr.snaptime, snap);

	/* A plain kstat goes; its name is free again. */
	ck_assert_int_eq(registry_kstat_delete(d.reg, k), 0);
	ck_assert_ptr_null(registry_kstat_find(d.reg, "app", 0, "req"));
	unit_statsd_stop(&d, false);
	free(rt);
	free(st);
}
END_TEST

START_TEST(persistent_kstats_go_dormant)
{
	char *rt = unit_tmpdir(), *st = unit_tmpdir();
	struct reg_template *t, *t2;
	struct reg_kstat *k, *k2 = NULL;
	struct reg_kstat_new n;
	struct kstat_hdr hdr;
	struct quota_refusal why;
	struct statsd d;
	bool revived;
	uint32_t h;

	unit_statsd_start(&d, rt, st);
	t = unit_template(&d, UNIT_TPL);
	t2 = unit_template(&d, "{\"name\":\"U\",\"vois\":[{\"id\":0,"
	    "\"name\":\"n\",\"dtype\":\"INT_U64\",\"stats\":[{\"kind\":"
	    "\"SUM\"}]}]}");
	k = unit_kstat(&d, t, "app", "keep", KSTAT_FLAG_PERSISTENT, NULL);
	unit_persist(&d, k);
	unit_update(&d, k, 7);
	h = k->handle;
	ck_assert_int_eq(registry_kstat_delete(d.reg, k), 1);
	ck_assert(k->dormant);
	/* Another template may not revive it. */
	unit_hdr(&hdr, "app", "keep", KSTAT_FLAG_PERSISTENT);
	n = (struct reg_kstat_new){ .hdr = &hdr, .privileged = true,
	    .zone = ZONE_GLOBAL, .tpl = t2 };
	ck_assert_int_eq(registry_kstat_create(d.reg, &n, &k2, &revived,
	    &why), -ESTALE);
	k2 = unit_kstat(&d, t, "app", "keep", KSTAT_FLAG_PERSISTENT,
	    &revived);
	ck_assert(revived);
	ck_assert_uint_eq(k2->handle, h);
	ck_assert_uint_eq(unit_sum(k2), 7);
	unit_statsd_stop(&d, false);
	free(rt);
	free(st);
}
END_TEST

START_TEST(kstats_per_user_are_bounded)
{
	char *rt = unit_tmpdir(), *st = unit_tmpdir();
	struct reg_template *t;
	struct reg_kstat *k = NULL;
	struct reg_kstat_new n;
	struct kstat_hdr h;
	struct quota_refusal why;
	struct statsd d;
	char name[16];
	bool revived;
	unsigned i;
	int r = 0;

	unit_statsd_start(&d, rt, st);
	t = unit_template(&d, UNIT_TPL);
	for (i = 0; i <= d.cfg.max_kstats_per_uid && r == 0; i++) {
		snprintf(name, sizeof(name), "k%u", i);
		unit_hdr(&h, "user", name, 0);
		n = (struct reg_kstat_new){ .hdr = &h, .owner = 1000,
		    .zone = ZONE_GLOBAL, .tpl = t };
		memset(&why, 0, sizeof(why));
		r = registry_kstat_create(d.reg, &n, &k, &revived, &why);
	}
	ck_assert_int_eq(r, -EDQUOT);
	ck_assert_uint_eq(i - 1, d.cfg.max_kstats_per_uid);
	ck_assert_str_eq(why.limit, "max_kstats_per_uid");
	unit_statsd_stop(&d, false);
	free(rt);
	free(st);
}
END_TEST

static Suite *
registry_suite(void)
{
	Suite *s = suite_create("registry");
	TCase *tc = tcase_create("registry");

	tcase_add_test(tc, templates_and_kstats);
	tcase_add_test(tc, persistent_kstats_go_dormant);
	tcase_add_test(tc, kstats_per_user_are_bounded);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_main(registry_suite());
}
