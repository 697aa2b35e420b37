/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_quota.c: statsd's per-uid quotas — the per-uid limit, the total
 * and its reserve for privileged peers, charges and releases, the limit
 * a refusal names, and the JSON usage report; zones' store segments,
 * whose total the descriptor limit lowers so that root keeps descriptors.
 */
#include <errno.h>
#include <sys/resource.h>

#include <jansson.h>

#include "config.h"
#include "daemon.h"
#include "quota.h"
#include "unit.h"

static struct statsd d;

static struct quota *
q_new(void)
{
	struct quota *q;

	memset(&d, 0, sizeof(d));
	ck_assert_int_eq(config_defaults(&d.cfg), 0);
	d.cfg.max_kstats_per_uid = 10;
	d.cfg.max_kstats = 100;
	d.cfg.quota_reserve_percent = 10;
	ck_assert_int_eq(quota_new(&d, &q), 0);
	return q;
}

static void
q_done(struct quota *q)
{
	quota_free(q);
	config_done(&d.cfg);
}

START_TEST(per_uid_limit)
{
	struct quota *q = q_new();
	struct quota_refusal why;
	int i;

	for (i = 0; i < 10; i++)
		ck_assert_int_eq(quota_charge(q, 1000, false, QUOTA_KSTATS, 1,
		    &why), 0);
	ck_assert_int_eq(quota_charge(q, 1000, false, QUOTA_KSTATS, 1, &why),
	    -EDQUOT);
	ck_assert_str_eq(why.limit, "max_kstats_per_uid");
	ck_assert_uint_eq(why.value, 10);
	/* Another user is not affected; a release makes room. */
	ck_assert_int_eq(quota_charge(q, 1001, false, QUOTA_KSTATS, 1, &why),
	    0);
	quota_release(q, 1000, QUOTA_KSTATS, 1);
	ck_assert_int_eq(quota_charge(q, 1000, false, QUOTA_KSTATS, 1, &why),
	    0);
	ck_assert_uint_eq(quota_used(q, 1000, QUOTA_KSTATS), 10);
	ck_assert_uint_eq(quota_used_total(q, QUOTA_KSTATS), 11);
	ck_assert_uint_eq(quota_refusals(q), 1);
	/* A charge larger than the limit, and one that would wrap. */
	ck_assert_int_eq(quota_charge(q, 1002, false, QUOTA_KSTATS, 11, &why),
	    -EDQUOT);
	ck_assert_int_eq(quota_charge(q, 1002, false, QUOTA_KSTATS,
	    UINT64_MAX, &why), -EDQUOT);
	q_done(q);
}
END_TEST

START_TEST(reserve_for_privileged)
{
	struct quota *q = q_new();
	struct quota_refusal why;
	uid_t u;

	/* 100 in total, 90 for unprivileged users together. */
	for (u = 1; u <= 9; u++)
		ck_assert_int_eq(quota_charge(q, u, false, QUOTA_KSTATS, 10,
		    &why), 0);
	ck_assert_int_eq(quota_charge(q, 10, false, QUOTA_KSTATS, 1, &why),
	    -EDQUOT);
	ck_assert_str_eq(why.limit, "max_kstats");
	ck_assert_uint_eq(why.value, 90);
	/* Root is held to the total only, past any per-uid limit. */
	ck_assert_int_eq(quota_charge(q, 0, true, QUOTA_KSTATS, 10, &why), 0);
	ck_assert_int_eq(quota_charge(q, 0, true, QUOTA_KSTATS, 1, &why),
	    -EDQUOT);
	ck_assert_str_eq(why.limit, "max_kstats");
	ck_assert_uint_eq(why.value, 100);
	/* No reserve: everyone shares the whole. */
	d.cfg.quota_reserve_percent = 0;
	quota_release(q, 0, QUOTA_KSTATS, 10);
	ck_assert_int_eq(quota_charge(q, 10, false, QUOTA_KSTATS, 10, &why),
	    0);
	q_done(q);
}
END_TEST

START_TEST(force_and_release_saturate)
{
	struct quota *q = q_new();
	struct quota_refusal why;

	/* What was restored at start is charged even past the limits. */
	ck_assert_int_eq(quota_force(q, 5, QUOTA_KSTATS, 50), 0);
	ck_assert_uint_eq(quota_used(q, 5, QUOTA_KSTATS), 50);
	ck_assert_int_eq(quota_charge(q, 5, false, QUOTA_KSTATS, 1, &why),
	    -EDQUOT);
	quota_release(q, 5, QUOTA_KSTATS, 80);
	ck_assert_uint_eq(quota_used(q, 5, QUOTA_KSTATS), 0);
	ck_assert_uint_eq(quota_used_total(q, QUOTA_KSTATS), 0);
	quota_release(q, 6, QUOTA_KSTATS, 1);	/* an unknown user */
	ck_assert_uint_eq(quota_used(q, 6, QUOTA_KSTATS), 0);
	q_done(q);
}
END_TEST

START_TEST(many_users)
{
	struct quota *q = q_new();
	struct quota_refusal why;
	uid_t u;

	for (u = 0; u < 5000; u++)
		ck_assert_int_eq(quota_charge(q, u * 7919, u == 0, QUOTA_BUFFERED,
		    u + 1, &why), 0);
	for (u = 0; u < 5000; u++)
		ck_assert_uint_eq(quota_used(q, u * 7919, QUOTA_BUFFERED), u + 1);
	q_done(q);
}
END_TEST

START_TEST(usage_json)
{
	struct quota *q = q_new();
	struct quota_refusal why;
	json_t *o, *t;

	ck_assert_int_eq(quota_charge(q, 7, false, QUOTA_KSTATS, 3, &why), 0);
	o = quota_to_json(q, 7, false, false);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(o,
	    "kstats"), "used")), 3);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(o,
	    "kstats"), "limit")), 10);
	ck_assert_ptr_null(json_object_get(o, "total"));
	ck_assert_ptr_null(json_object_get(o, "users"));
	json_decref(o);
	o = quota_to_json(q, 0, true, true);
	t = json_object_get(json_object_get(o, "total"), "kstats");
	ck_assert_int_eq(json_integer_value(json_object_get(t, "used")), 3);
	ck_assert_int_eq(json_integer_value(json_object_get(t, "limit")), 100);
	ck_assert_uint_eq(json_array_size(json_object_get(o, "users")), 1);
	json_decref(o);
	ck_assert_str_eq(quota_name(QUOTA_ARENA), "arena_bytes");
	ck_assert_str_eq(quota_per_uid_key(QUOTA_ARENA), "arena_bytes_per_uid");
	ck_assert_str_eq(quota_total_key(QUOTA_ARENA), "arena_size");
	q_done(q);
}
END_TEST

/*
 * Zone segments are charged as any resource; their total is what the
 * descriptor limit leaves beside the other totals, with the reserve: a
 * user whose containers make segments until refused leaves root the
 * reserve, and every other total's descriptors.
 */
START_TEST(zone_segments_fit_the_descriptor_limit)
{
	struct quota *q = q_new();
	struct quota_refusal why;
	struct rlimit old, low;
	uint64_t others, fit, n;
	int i;

	d.cfg.max_zone_segments_per_uid = 4;
	d.cfg.max_zone_segments = 1024;
	others = (uint64_t)d.cfg.max_connections +
	    d.cfg.http_max_connections + 2 * (uint64_t)d.cfg.max_rings +
	    QUOTA_FDS_OWN;
	ck_assert_uint_eq(quota_zone_segments_fit(&d.cfg, others), 0);
	ck_assert_uint_eq(quota_zone_segments_fit(&d.cfg, others - 1), 0);
	ck_assert_uint_eq(quota_zone_segments_fit(&d.cfg, others + 300), 300);
	/* The per-uid limit, named. */
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(quota_charge(q, 1000, false,
		    QUOTA_ZONE_SEGMENTS, 1, &why), 0);
	ck_assert_int_eq(quota_charge(q, 1000, false, QUOTA_ZONE_SEGMENTS, 1,
	    &why), -EDQUOT);
	ck_assert_str_eq(why.limit, "max_zone_segments_per_uid");
	quota_release(q, 1000, QUOTA_ZONE_SEGMENTS, 4);

	/* A soft descriptor limit that leaves room for 100 segments: users
	 * together get 90 of them, root the other 10, whatever the
	 * configured total. */
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &old), 0);
	low = old;
	low.rlim_cur = (rlim_t)(others + 100);
	if (low.rlim_max != RLIM_INFINITY && low.rlim_cur > low.rlim_max)
		low.rlim_cur = low.rlim_max;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
	fit = quota_zone_segments_fit(&d.cfg, (uint64_t)low.rlim_cur);
	ck_assert_uint_le(fit, 100);
	d.cfg.max_zone_segments_per_uid = 65536;
	for (n = 0; quota_charge(q, 1000 + (uid_t)(n % 7), false,
	    QUOTA_ZONE_SEGMENTS, 1, &why) == 0; n++)
		ck_assert_uint_le(n, fit);
	ck_assert_str_eq(why.limit, "max_zone_segments");
	ck_assert_uint_eq(why.value, fit / 100 * 90 + fit % 100 * 90 / 100);
	ck_assert_uint_eq(n, why.value);
	for (i = 0; quota_charge(q, 0, true, QUOTA_ZONE_SEGMENTS, 1, &why) ==
	    0; i++)
		ck_assert_int_le(i, 100);
	ck_assert_uint_eq(n + (uint64_t)i, fit);
	ck_assert_uint_eq(why.value, fit);
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &old), 0);
	/* The configured total binds when the limit leaves more. */
	d.cfg.max_zone_segments = 5;
	ck_assert_int_eq(quota_check(q, 0, true, QUOTA_ZONE_SEGMENTS, 1,
	    &why), -EDQUOT);
	ck_assert_uint_eq(why.value, 5);
	q_done(q);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("quota");
	TCase *tc = tcase_create("quota");

	tcase_add_test(tc, per_uid_limit);
	tcase_add_test(tc, reserve_for_privileged);
	tcase_add_test(tc, force_and_release_saturate);
	tcase_add_test(tc, many_users);
	tcase_add_test(tc, usage_json);
	tcase_add_test(tc, zone_segments_fit_the_descriptor_limit);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
