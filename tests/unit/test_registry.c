/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_registry.c: statsd's registry of templates and kstats
 * (src/daemon/registry.c): a definition registered twice is one template,
 * another under its name is refused; kstats are found by name and by
 * handle, and a name is taken once; updates bump the snaptime and reach
 * the store segment; deleting a PERSISTENT kstat makes it dormant, and
 * creating it again revives its data, only with its own template; a
 * user's kstats stop at max_kstats_per_uid. Template names are per
 * owner: another user's template of a name neither blocks nor shows, and
 * a spec finds a caller's own template, or one a kstat it sees uses.
 * Zones' store segments are charged to the kstats' owners; what a zone's
 * peer sees is counted by segment and template, without a walk.
 */
#include <errno.h>

#include "daemon_statsd.h"
#include "rights.h"
#include "view.h"

START_TEST(templates_and_kstats)
{
	char *rt = unit_tmpdir(), *st = unit_tmpdir();
	struct reg_owner root = { 0, true, false };
	const struct peer root_peer = { .zone = ZONE_GLOBAL,
	    .privileged = true };
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

	kcid = view_kcid(d.reg, &root_peer);
	k = unit_kstat(&d, t, "app", "req", 0, &revived);
	ck_assert(!revived);
	ck_assert_uint_ne(view_kcid(d.reg, &root_peer), kcid);
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

/* Register json for uid (unprivileged unless uid 0). Returns: the
 * registry's answer; *ret and *created. */
static int
add_as(struct statsd *d, uid_t uid, const char *json,
    struct reg_template **ret, bool *created)
{
	struct reg_owner o = { uid, uid == 0, false };
	struct quota_refusal why;
	struct input_error err;
	json_t *def = json_loads(json, 0, NULL);
	int r;

	ck_assert_ptr_nonnull(def);
	*ret = NULL;
	r = registry_template_add(d->reg, def, &o, ret, created, &err, &why);
	json_decref(def);
	return r;
}

#define NAMED(voi, dtype, kind) "{\"name\":\"APP\",\"vois\":[{\"id\":0," \
	"\"name\":\"" voi "\",\"dtype\":\"" dtype "\",\"stats\":[{\"kind\":\"" \
	kind "\"}]}]}"

START_TEST(template_names_are_per_owner)
{
	char *rt = unit_tmpdir(), *st = unit_tmpdir();
	struct reg_template *mine, *theirs, *again, *root_t, *priv_t, **all;
	struct reg_kstat_new n;
	struct reg_kstat *k;
	struct kstat_hdr h;
	struct quota_refusal why;
	struct statsd d;
	bool created, revived;
	unsigned ntpl;
	size_t i;

	unit_statsd_start(&d, rt, st);
	/* uid 65534 takes the name first, with another definition. */
	ck_assert_int_eq(add_as(&d, 65534, NAMED("x", "INT_S64", "MAX"),
	    &theirs, &created), 0);
	ck_assert(created);
	/* The victim (uid 1000) and root register theirs all the same. */
	ck_assert_int_eq(add_as(&d, 1000, NAMED("a", "INT_U64", "SUM"),
	    &mine, &created), 0);
	ck_assert(created);
	ck_assert_ptr_ne(mine, theirs);
	ck_assert_uint_eq(mine->owner, 1000);
	ck_assert_str_eq(mine->name, "APP");
	ck_assert_uint_ne(mine->hash, theirs->hash);
	ck_assert_int_eq(add_as(&d, 0, NAMED("a", "INT_U64", "SUM"),
	    &root_t, &created), 0);
	ck_assert(created);
	ck_assert_ptr_ne(root_t, mine);
	/* One definition, one hash, whoever has it. */
	ck_assert_uint_eq(root_t->hash, mine->hash);
	ck_assert_str_eq(root_t->spec, mine->spec);
	/* Again: one's own template back; another of one's own name is
	 * refused, and only one's own is in the way. */
	ck_assert_int_eq(add_as(&d, 1000, NAMED("a", "INT_U64", "SUM"),
	    &again, &created), 0);
	ck_assert(!created);
	ck_assert_ptr_eq(again, mine);
	ck_assert_int_eq(add_as(&d, 1000, NAMED("z", "INT_U32", "MIN"),
	    &again, &created), -EEXIST);
	for (i = 0, ntpl = 0; i < registry_templates(d.reg, &all); i++)
		ntpl += strcmp(all[i]->name, "APP") == 0;
	ck_assert_uint_eq(ntpl, 3);

	/* Owned lookups; a spec resolves to the caller's own first. */
	ck_assert_ptr_eq(registry_template_find_owned(d.reg, "APP", 1000),
	    mine);
	ck_assert_ptr_eq(registry_template_find_owned(d.reg, "APP", 65534),
	    theirs);
	ck_assert_ptr_eq(registry_template_resolve(d.reg, mine->spec, 1000,
	    false, ZONE_GLOBAL), mine);
	ck_assert_ptr_eq(registry_template_resolve(d.reg, "APP", 65534,
	    false, ZONE_GLOBAL), theirs);
	ck_assert_ptr_eq(registry_template_resolve(d.reg, "APP", 0, true,
	    ZONE_GLOBAL), root_t);
	/* No kstat shows root's or 1000's template to uid 4242: hidden,
	 * as if absent, by name or by spec. */
	ck_assert_ptr_null(registry_template_resolve(d.reg, mine->spec, 4242,
	    false, ZONE_GLOBAL));

	/* A template only a PRIV kstat uses stays hidden; a public kstat
	 * shows its template to the global zone, not to another zone. */
	ck_assert_int_eq(add_as(&d, 0, "{\"name\":\"SECRET\",\"vois\":[{"
	    "\"id\":0,\"name\":\"s\",\"dtype\":\"INT_U64\",\"stats\":["
	    "{\"kind\":\"SUM\"}]}]}", &priv_t, &created), 0);
	unit_hdr(&h, "root", "secret", KSTAT_FLAG_PRIV);
	n = (struct reg_kstat_new){ .hdr = &h, .privileged = true,
	    .zone = ZONE_GLOBAL, .tpl = priv_t };
	ck_assert_int_eq(registry_kstat_create(d.reg, &n, &k, &revived,
	    &why), 0);
	ck_assert(!registry_template_usable(priv_t, 65534, false,
	    ZONE_GLOBAL));
	ck_assert_ptr_null(registry_template_resolve(d.reg, "SECRET", 65534,
	    false, ZONE_GLOBAL));
	ck_assert_ptr_null(registry_template_resolve(d.reg, priv_t->spec,
	    65534, false, ZONE_GLOBAL));
	ck_assert_ptr_eq(registry_template_resolve(d.reg, "SECRET", 0, true,
	    ZONE_GLOBAL), priv_t);
	k = unit_kstat(&d, root_t, "app", "seen", 0, NULL);
	ck_assert(registry_template_usable(root_t, 4242, false,
	    ZONE_GLOBAL));
	ck_assert(!registry_template_usable(root_t, 4242, false, 7));
	registry_kstat_forget(d.reg, k);
	ck_assert(!registry_template_usable(root_t, 4242, false,
	    ZONE_GLOBAL));
	unit_statsd_stop(&d, false);
	free(rt);
	free(st);
}
END_TEST

/*
 * A zone's store segments are charged to the owner of the kstat that
 * makes each (a memfd descriptor apiece) and given back with its last
 * kstat: a user's containers stop at max_zone_segments_per_uid, with
 * LimitReached's key, and no segment (no descriptor) is made for a
 * refused kstat.
 */
START_TEST(zone_segments_are_charged)
{
	char *rt = unit_tmpdir(), *st = unit_tmpdir();
	struct reg_kstat *k[8], *extra;
	struct reg_template *t;
	struct quota_refusal why;
	struct reg_seg **segs;
	struct statsd d;
	uint32_t zone[8];
	char name[64];
	size_t nsegs;
	bool rv;
	int i;

	unit_statsd_start(&d, rt, st);
	d.cfg.max_zone_segments_per_uid = 3;
	t = unit_template(&d, UNIT_TPL);
	nsegs = registry_segments(d.reg, &segs);
	for (i = 0; i < 5; i++) {
		struct kstat_hdr h;
		struct reg_kstat_new n = { .hdr = &h, .owner = 65534,
		    .tpl = t };

		snprintf(name, sizeof(name), "/machine.slice/box-%d.scope", i);
		ck_assert_int_eq(zones_of_name(d.zones, name, &zone[i]), 0);
		n.owner_zone = n.zone = zone[i];
		n.gz = true;
		unit_hdr(&h, "zapp", "k", 0);
		h.instance = i;
		memset(&why, 0, sizeof(why));
		k[i] = NULL;
		ck_assert_int_eq(registry_kstat_create(d.reg, &n, &k[i], &rv,
		    &why), i < 3 ? 0 : -EDQUOT);
		if (i >= 3) {
			ck_assert_str_eq(why.limit, "max_zone_segments_per_uid");
			ck_assert_uint_eq(why.value, 3);
		}
	}
	ck_assert_uint_eq(quota_used(d.quota, 65534, QUOTA_ZONE_SEGMENTS), 3);
	ck_assert_uint_eq(registry_segments(d.reg, &segs), nsegs + 3);
	/* The zone's second kind of segment (its own zone only, without the
	 * global zone) is one more; a second kstat in a segment none. */
	{
		struct kstat_hdr h;
		struct reg_kstat_new n = { .hdr = &h, .owner = 65534,
		    .owner_zone = zone[0], .zone = zone[0], .tpl = t };

		unit_hdr(&h, "zapp", "more", 0);
		n.gz = true;
		ck_assert_int_eq(registry_kstat_create(d.reg, &n, &extra, &rv,
		    &why), 0);
		ck_assert_uint_eq(quota_used(d.quota, 65534,
		    QUOTA_ZONE_SEGMENTS), 3);
		registry_kstat_forget(d.reg, extra);
		unit_hdr(&h, "zapp", "own", 0);
		n.gz = false;
		ck_assert_int_eq(registry_kstat_create(d.reg, &n, &extra, &rv,
		    &why), -EDQUOT);
		/* Root is held to the total only. */
		n.owner = 0;
		n.privileged = true;
		ck_assert_int_eq(registry_kstat_create(d.reg, &n, &extra, &rv,
		    &why), 0);
		ck_assert_uint_eq(quota_used(d.quota, 0, QUOTA_ZONE_SEGMENTS),
		    1);
		registry_kstat_forget(d.reg, extra);
		ck_assert_uint_eq(quota_used(d.quota, 0, QUOTA_ZONE_SEGMENTS),
		    0);
	}
	/* A segment's last kstat gone, its charge and descriptor go. */
	registry_kstat_forget(d.reg, k[1]);
	ck_assert_uint_eq(quota_used(d.quota, 65534, QUOTA_ZONE_SEGMENTS), 2);
	ck_assert_uint_eq(registry_segments(d.reg, &segs), nsegs + 2);
	registry_kstat_forget(d.reg, k[0]);
	registry_kstat_forget(d.reg, k[2]);
	ck_assert_uint_eq(quota_used(d.quota, 65534, QUOTA_ZONE_SEGMENTS), 0);
	ck_assert_uint_eq(quota_used_total(d.quota, QUOTA_ZONE_SEGMENTS), 0);
	ck_assert_uint_eq(registry_segments(d.reg, &segs), nsegs);
	for (i = 0; i < 5; i++)
		zones_unref(d.zones, zone[i]);
	unit_statsd_stop(&d, false);
	free(rt);
	free(st);
}
END_TEST

/* What a peer of zone (privileged or not) sees, counted by walking every
 * kstat: the answer view_zone_counts() gives without the walk. */
static void
walk_counts(struct statsd *d, uint32_t zone, bool privileged,
    uint64_t *active, uint64_t *dormant, struct reg_template *t, bool *uses)
{
	struct reg_kstat **ks;
	size_t n, i;

	*active = *dormant = 0;
	*uses = false;
	n = registry_kstats(d->reg, &ks);
	for (i = 0; i < n; i++) {
		if ((ks[i]->hdr.flags & KSTAT_FLAG_PRIV) && !privileged)
			continue;
		if (!zone_sees(zone, ks[i]->zone, reg_kstat_gz(ks[i])))
			continue;
		if (ks[i]->dormant)
			(*dormant)++;
		else
			(*active)++;
		if (ks[i]->tpl == t)
			*uses = true;
	}
}

/* Does an unprivileged peer of zone, not t's owner, see template t? */
static bool
zone_sees_template(uint32_t zone, const struct reg_template *t)
{
	const struct peer p = { .uid = 4242, .gid = 4242, .zone = zone };

	ck_assert_uint_ne(t->owner, p.uid);
	return view_template_visible(&p, t);
}

/* A peer may map a kstat's segment exactly when it sees the kstat. */
static void
segments_agree(struct statsd *d, const struct peer *p)
{
	struct reg_kstat **ks;
	size_t n, i;

	n = registry_kstats(d->reg, &ks);
	for (i = 0; i < n; i++)
		ck_assert(view_segment_visible(p, ks[i]->rseg) ==
		    view_kstat_visible(p, ks[i]));
}

/* The counts by segment agree with the walk, for zones a and b. */
static void
counts_agree(struct statsd *d, const uint32_t *zone, struct reg_template *t)
{
	uint64_t a, dm, wa, wd;
	bool uses;
	int i, priv;

	for (priv = 0; priv < 2; priv++) {
		const struct peer g = { .uid = 4242, .gid = 4242,
		    .zone = ZONE_GLOBAL, .privileged = priv };

		segments_agree(d, &g);
	}
	for (i = 0; i < 2; i++)
		for (priv = 0; priv < 2; priv++) {
			const struct peer p = { .uid = 4242, .gid = 4242,
			    .zone = zone[i], .privileged = priv };

			segments_agree(d, &p);
			walk_counts(d, zone[i], priv, &wa, &wd, t, &uses);
			view_zone_counts(d->reg, &p, &a, &dm);
			ck_assert_uint_eq(a, wa);
			ck_assert_uint_eq(dm, wd);
			if (!priv)
				ck_assert(zone_sees_template(zone[i], t) ==
				    uses);
		}
}

/*
 * A zone's peer is told how many kstats it sees (Info) and which
 * templates (TemplateList) from counts the registry keeps by segment and
 * template, never a walk of every kstat: the counts agree with a walk
 * through creates in two zones, in every zone, in the global zone, PRIV
 * ones, a PERSISTENT kstat going dormant and coming back, one forgotten,
 * and a kstat of every zone re-laid from another template (which once
 * left its first template seen in every zone).
 */
START_TEST(zone_counts_need_no_walk)
{
	char *rt = unit_tmpdir(), *st = unit_tmpdir();
	struct reg_kstat *k[6], *ks;
	struct reg_template *t, *t2;
	struct quota_refusal why;
	struct statsd d;
	uint32_t zone[2], zk[6] = { 0, 0, 1, ZONE_ALL, ZONE_GLOBAL, 0 };
	uint32_t fl[6] = { 0, KSTAT_FLAG_PERSISTENT, 0, 0, 0, KSTAT_FLAG_PRIV };
	uint16_t kept;
	bool rv, created;
	char name[8];
	int i;

	unit_statsd_start(&d, rt, st);
	t = unit_template(&d, UNIT_TPL);
	ck_assert_int_eq(add_as(&d, 0, "{\"name\":\"T2\",\"vois\":[{"
	    "\"id\":0,\"name\":\"n\",\"dtype\":\"INT_U64\",\"stats\":["
	    "{\"kind\":\"SUM\"},{\"kind\":\"COUNT\"}]},{\"id\":1,"
	    "\"name\":\"m\",\"dtype\":\"INT_U64\",\"stats\":["
	    "{\"kind\":\"MAX\"}]}]}", &t2, &created), 0);
	ck_assert_int_eq(zones_of_name(d.zones, "/machine.slice/a.scope",
	    &zone[0]), 0);
	ck_assert_int_eq(zones_of_name(d.zones, "/machine.slice/b.scope",
	    &zone[1]), 0);
	counts_agree(&d, zone, t);
	for (i = 0; i < 6; i++) {
		struct kstat_hdr h;
		struct reg_kstat_new n = { .hdr = &h, .privileged = true,
		    .tpl = t };

		n.zone = zk[i] < 2 ? zone[zk[i]] : zk[i];
		n.owner_zone = zk[i] < 2 ? zone[zk[i]] : ZONE_GLOBAL;
		snprintf(name, sizeof(name), "k%d", i);
		unit_hdr(&h, "zapp", name, fl[i]);
		ck_assert_int_eq(registry_kstat_create(d.reg, &n, &k[i], &rv,
		    &why), 0);
		counts_agree(&d, zone, t);
	}
	/* Dormant, and back. */
	unit_persist(&d, k[1]);
	ck_assert_int_eq(registry_kstat_delete(d.reg, k[1]), 1);
	counts_agree(&d, zone, t);
	{
		struct kstat_hdr h;
		struct reg_kstat_new n = { .hdr = &h, .privileged = true,
		    .zone = zone[0], .owner_zone = zone[0], .tpl = t };

		unit_hdr(&h, "zapp", "k1", KSTAT_FLAG_PERSISTENT);
		ck_assert_int_eq(registry_kstat_create(d.reg, &n, &ks, &rv,
		    &why), 0);
		ck_assert(rv);
		ck_assert_ptr_eq(ks, k[1]);
	}
	counts_agree(&d, zone, t);
	/* The kstat of every zone re-laid: t is seen in zone b no more. */
	ck_assert_int_eq(registry_kstat_relayout(d.reg, k[3], t2, true, &kept,
	    &why), 0);
	ck_assert_uint_eq(kept, 1);
	counts_agree(&d, zone, t);
	counts_agree(&d, zone, t2);
	ck_assert(zone_sees_template(zone[1], t));	/* k2 */
	registry_kstat_forget(d.reg, k[2]);
	ck_assert(!zone_sees_template(zone[1], t));
	ck_assert(zone_sees_template(zone[1], t2));
	ck_assert_uint_eq(t->nall, 0);
	ck_assert_uint_eq(t2->nall, 1);
	counts_agree(&d, zone, t);
	for (i = 0; i < 6; i++)
		if (i != 2)
			registry_kstat_forget(d.reg, k[i]);
	counts_agree(&d, zone, t);
	counts_agree(&d, zone, t2);
	zones_unref(d.zones, zone[0]);
	zones_unref(d.zones, zone[1]);
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
	tcase_add_test(tc, template_names_are_per_owner);
	tcase_add_test(tc, zone_segments_are_charged);
	tcase_add_test(tc, zone_counts_need_no_walk);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_main(registry_suite());
}
