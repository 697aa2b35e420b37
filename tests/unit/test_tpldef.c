/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_tpldef.c: template definitions (src/daemon/tpldef.c): a JSON
 * definition built statistic by statistic through the kind table and
 * registered with the engine; every error names the field by its path and
 * leaves nothing registered; definitions that did not come through the
 * protocol's parameter tables (a checkpoint's) are checked as strictly;
 * kstat2 histograms' creation parameters are read back.
 */
#include <errno.h>

#include <jansson.h>

#include "unit.h"
#include "tpl.h"
#include "tpldef.h"

static json_t *
def(const char *text)
{
	json_error_t e;
	json_t *j = json_loads(text, 0, &e);

	ck_assert_msg(j != NULL, "bad test JSON: %s", e.text);
	return j;
}

/* Register text; on error, check the parameter named and that no
 * template of that name was made. */
static int
reg(const char *text, const char *want_param)
{
	struct input_error err;
	json_t *j = def(text);
	int r = tpldef_register(j, &err);

	if (want_param != NULL) {
		ck_assert_msg(r == -EINVAL, "accepted: %s", text);
		ck_assert_msg(strcmp(err.where, want_param) == 0,
		    "%s: named %s (%s), not %s", text, err.where,
		    err.msg, want_param);
		ck_assert(err.msg[0] != '\0');
		ck_assert_int_lt(stats_tpl_fetch_allocid(json_string_value(
		    json_object_get(j, "name")), 0), 0);
	}
	json_decref(j);
	return r;
}

START_TEST(a_definition_of_every_kind)
{
	int id = reg("{\"name\":\"ALL\",\"vois\":["
	    "{\"id\":0,\"name\":\"a\",\"dtype\":\"INT_U64\",\"stats\":["
	    "{\"kind\":\"SUM\"},{\"kind\":\"MIN\"},{\"kind\":\"MAX\"},"
	    "{\"kind\":\"COUNT\"},{\"kind\":\"LAST\"},"
	    "{\"kind\":\"HIST\",\"scheme\":\"EXP\",\"lb\":1,\"ub\":1024,"
	    "\"stepbase\":2,\"stepexp\":1},"
	    "{\"kind\":\"TDGST\",\"nctds\":16,\"counters\":32}]},"
	    "{\"id\":1,\"name\":\"b\",\"dtype\":\"INT_U64\",\"stats\":["
	    "{\"kind\":\"K2HIST\",\"scheme\":\"LOG2\",\"lb\":1,\"ub\":1024}]},"
	    "{\"id\":2,\"name\":\"c\",\"dtype\":\"INT_S64\",\"stats\":["
	    "{\"kind\":\"LIST\",\"entries_max\":4},"
	    "{\"kind\":\"HISTORY\",\"mode\":\"range\",\"entries_max\":3},"
	    "{\"kind\":\"RAW\",\"entries_max\":2},{\"kind\":\"IOQ\"},"
	    "{\"kind\":\"TIMER\"}]},"
	    "{\"id\":3,\"name\":\"d\",\"dtype\":\"INT_S64\",\"stats\":["
	    "{\"kind\":\"DEFN\",\"units\":\"ms\"}]},"
	    "{\"id\":4,\"name\":\"e\",\"dtype\":\"INT_U32\",\"stats\":["
	    "{\"kind\":\"STRING\",\"maxlen\":16}]},"
	    "{\"id\":5,\"name\":\"f\",\"dtype\":\"INT_U32\",\"stats\":["
	    "{\"kind\":\"HIST\",\"range\":\"DR\",\"scheme\":\"USR\","
	    "\"buckets\":[0,10,10,20],\"ubinf\":true}]}]}", NULL);
	struct statsblob *sb;

	ck_assert_int_ge(id, 0);
	sb = stats_blob_alloc((uint32_t)id, 0);
	ck_assert_ptr_nonnull(sb);
	stats_blob_destroy(sb);
}
END_TEST

/*
 * Names are per owner in statsd (registry.h): the engine holds a second
 * template of a name, another definition or the same, each under its own
 * id and with the hash its own definition gives; a released one leaves
 * the other whole.
 */
START_TEST(one_name_many_templates)
{
	static const char one[] = "{\"name\":\"SHARED\",\"vois\":[{"
	    "\"id\":0,\"name\":\"a\",\"dtype\":\"INT_U64\",\"stats\":["
	    "{\"kind\":\"SUM\"}]}]}";
	static const char other[] = "{\"name\":\"SHARED\",\"vois\":[{"
	    "\"id\":0,\"name\":\"b\",\"dtype\":\"INT_S64\",\"stats\":["
	    "{\"kind\":\"MAX\"}]}]}";
	struct statsblob_tpl *t1, *t2, *t3;
	int a = reg(one, NULL), b = reg(other, NULL), c = reg(one, NULL);
	struct statsblob *sb;

	ck_assert_int_ge(a, 0);
	ck_assert_int_ge(b, 0);
	ck_assert_int_ge(c, 0);
	ck_assert_int_ne(a, b);
	ck_assert_int_ne(a, c);
	ck_assert_int_eq(stats_tpl_fetch(a, &t1), 0);
	ck_assert_int_eq(stats_tpl_fetch(b, &t2), 0);
	ck_assert_int_eq(stats_tpl_fetch(c, &t3), 0);
	ck_assert_str_eq(t1->mb->tplname, "SHARED");
	ck_assert_str_eq(t2->mb->tplname, "SHARED");
	/* One definition, one hash; another definition, another. */
	ck_assert_uint_eq(t1->mb->tplhash, t3->mb->tplhash);
	ck_assert_uint_ne(t1->mb->tplhash, t2->mb->tplhash);
	ck_assert_int_eq(tpl_release(a), 0);
	sb = stats_blob_alloc((uint32_t)c, 0);
	ck_assert_ptr_nonnull(sb);
	stats_blob_destroy(sb);
	ck_assert_int_eq(tpl_release(b), 0);
	ck_assert_int_eq(tpl_release(c), 0);
	/* stats(3)'s own rule is unchanged: one name, one template. */
	ck_assert_int_ge(stats_tpl_alloc("SOLO", 0), 0);
	ck_assert_int_eq(stats_tpl_alloc("SOLO", 0), -EEXIST);
}
END_TEST

START_TEST(errors_name_the_field)
{
#define V0(stats) "{\"name\":\"E\",\"vois\":[{\"id\":0,\"name\":\"a\"," \
	"\"dtype\":\"INT_U64\",\"stats\":[" stats "]}]}"
	reg(V0("{\"kind\":\"NOPE\"}"), "vois[0].stats[0].kind");
	reg(V0("{\"kind\":\"SUM\"},{\"kind\":\"MIN\",\"lb\":1}"),
	    "vois[0].stats[1].lb");
	reg(V0("{\"kind\":\"HIST\",\"scheme\":\"LIN\",\"lb\":0,\"ub\":9}"),
	    "vois[0].stats[0].step");
	reg(V0("{\"kind\":\"HIST\",\"range\":\"XX\"}"),
	    "vois[0].stats[0].range");
	reg(V0("{\"kind\":\"HIST\",\"scheme\":\"USR\"}"),
	    "vois[0].stats[0].buckets");
	reg(V0("{\"kind\":\"HISTORY\",\"mode\":\"often\"}"),
	    "vois[0].stats[0].mode");
	reg(V0("{\"kind\":\"DEFN\"}"), "vois[0].stats[0].kind");
	reg(V0("{\"kind\":\"TDGST\",\"counters\":48}"),
	    "vois[0].stats[0].counters");
	reg(V0("{\"kind\":\"SUM\"},{\"kind\":\"SUM\"}"), "vois[0]");
	reg(V0(""), "vois[0].stats");
	/* A definition from a checkpoint has had no type check yet. */
	reg(V0("{\"kind\":\"TDGST\",\"nctds\":\"many\"}"),
	    "vois[0].stats[0].nctds");
	reg(V0("{\"kind\":\"HIST\",\"scheme\":\"USR\",\"buckets\":[1,\"x\"]}"),
	    "vois[0].stats[0].buckets");
	reg(V0("{\"kind\":\"STRING\",\"maxlen\":0}"),
	    "vois[0].stats[0].maxlen");
#undef V0
	/* DEFN comes alone, whichever is first. */
	reg("{\"name\":\"E\",\"vois\":[{\"id\":0,\"name\":\"a\",\"dtype\":"
	    "\"INT_S64\",\"stats\":[{\"kind\":\"DEFN\"},{\"kind\":\"SUM\"}]}]}",
	    "vois[0].stats[1].kind");
	reg("{\"name\":\"E\",\"vois\":[{\"id\":0,\"name\":\"a\",\"dtype\":"
	    "\"INT_S64\",\"stats\":[{\"kind\":\"SUM\"},{\"kind\":\"DEFN\"}]}]}",
	    "vois[0].stats[1].kind");
	reg("{\"name\":\"E\",\"vois\":[{\"id\":0,\"name\":\"a\",\"dtype\":"
	    "\"DOUBLE\",\"stats\":[{\"kind\":\"SUM\"}]}]}", "vois[0].dtype");
	reg("{\"name\":\"E\",\"vois\":[{\"id\":0,\"name\":\"a\",\"dtype\":"
	    "\"INT_S64\",\"stats\":[{\"kind\":\"SUM\"}]},{\"id\":0,\"name\":"
	    "\"b\",\"dtype\":\"INT_S64\",\"stats\":[{\"kind\":\"SUM\"}]}]}",
	    "vois[1].id");
	reg("{\"name\":\"bad name!\",\"vois\":[]}", "name");
	reg("{\"name\":\"E\",\"vois\":[]}", "vois");
}
END_TEST

START_TEST(kstat2_parameters_read_back)
{
	struct k2hist_params p[3];
	json_t *j = def("{\"name\":\"K\",\"vois\":["
	    "{\"id\":0,\"name\":\"a\",\"dtype\":\"INT_U64\",\"stats\":["
	    "{\"kind\":\"SUM\"}]},"
	    "{\"id\":2,\"name\":\"b\",\"dtype\":\"INT_U64\",\"stats\":["
	    "{\"kind\":\"K2HIST\",\"scheme\":\"LOG10_LIN\",\"lb\":1,"
	    "\"ub\":100000,\"step\":5}]}]}");

	memset(p, 0, sizeof(p));
	tpldef_k2hist(j, p, 3);
	ck_assert(!p[0].valid);
	ck_assert(!p[1].valid);
	ck_assert(p[2].valid);
	ck_assert_int_eq(p[2].type, K2HIST_LOG10_LIN);
	ck_assert_uint_eq(p[2].range_min, 1);
	ck_assert_uint_eq(p[2].range_max, 100000);
	ck_assert_uint_eq(p[2].stepping, 5);
	json_decref(j);
}
END_TEST

static Suite *
tpldef_suite(void)
{
	Suite *s = suite_create("tpldef");
	TCase *tc = tcase_create("tpldef");

	tcase_add_test(tc, a_definition_of_every_kind);
	tcase_add_test(tc, errors_name_the_field);
	tcase_add_test(tc, one_name_many_templates);
	tcase_add_test(tc, kstat2_parameters_read_back);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_main(tpldef_suite());
}
