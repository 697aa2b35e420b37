/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_defn.c: Linux definitions as text: every attribute of Linux's tables
 * (writable, read-only, type-specific), junk, the rules without name=, type
 * changes and their required attributes, re-layout that keeps every other
 * statistic's data, all-or-nothing application, errors that name the
 * attribute, and the definition round trip.
 */
#include <errno.h>

#include "unit.h"
#include "blob.h"
#include "defn.h"
#include "engine.h"
#include "layout.h"
#include "render_linux.h"
#include "stat_list.h"

#define NOW	UINT64_C(2417020832398000)	/* [2417020.832398] */

static const char *const names[] = { "foo", "bar", "util_qdio_outb" };
#define NNAMES	3

/* An interface of the three statistics above, all fresh. */
static struct statsblob *
iface(void)
{
	struct statsblob *sb = layout_empty(), *nb;
	uint16_t i;

	ck_assert_ptr_nonnull(sb);
	for (i = 0; i < NNAMES; i++) {
		ck_assert_int_eq(defn_stat_create(sb, i, i == 2 ?
		    "slots-occupied/incidents" : "bytes/requests", NOW, &nb), 0);
		free(sb);
		sb = nb;
	}
	ck_assert_int_eq(stats_blob_validate(sb, sb->cursz), 0);
	return sb;
}

/* Apply text, which must succeed; the blob is replaced. */
static void
apply(struct statsblob **sb, const char *text, uint64_t now)
{
	struct input_error err = { 0 };
	struct statsblob *nb = NULL;
	int e;

	e = defn_apply(*sb, names, NNAMES, text, now, &nb, NULL, &err);
	if (e != 0)
		ck_abort_msg("'%s': %d line %u col %u %s: %s", text, e, err.line,
		    err.col, err.where, err.msg);
	ck_assert_int_eq(stats_blob_validate(nb, nb->cursz), 0);
	free(*sb);
	*sb = nb;
}

/* Apply text, which must fail with error on attr; nothing changes. */
static void
refuse(struct statsblob *sb, const char *text, int error, const char *attr)
{
	struct input_error err = { 0 };
	struct statsblob *nb = NULL;

	ck_assert_int_eq(defn_apply(sb, names, NNAMES, text, NOW, &nb, NULL,
	    &err), error);
	ck_assert_ptr_null(nb);
	ck_assert_str_eq(err.where, attr);
	ck_assert_uint_ge(err.line, 1);
	ck_assert(err.msg[0] != '\0');
}

static char *
format(const struct statsblob *sb)
{
	struct sbuf *s = sbuf_new_auto();
	char *r;

	ck_assert_int_eq(defn_format(s, sb, names, NNAMES), 0);
	ck_assert_int_eq(sbuf_finish(s), 0);
	r = strdup(sbuf_data(s));
	sbuf_delete(s);
	return r;
}

static char *
data(const struct statsblob *sb, uint64_t now)
{
	struct sbuf *s = sbuf_new_auto();
	char *r;

	ck_assert_int_eq(linux_data_format(s, sb, names, NNAMES, now), 0);
	ck_assert_int_eq(sbuf_finish(s), 0);
	r = strdup(sbuf_data(s));
	sbuf_delete(s);
	return r;
}

static void
feed(struct statsblob *sb, uint16_t voi, int64_t x, int64_t y, uint64_t t)
{
	ck_assert_int_eq(engine_apply(sb, voi, STATS_OP_XY, 0, x, y, t), 0);
}

START_TEST(fresh_statistics_are_value_increments_off)
{
	struct statsblob *sb = iface();
	char *txt = format(sb);

	ck_assert_str_eq(txt,
	    "name=foo on=0 type=value range_min=-9223372036854775807 "
	    "range_max=9223372036854775806 mode=increments "
	    "hits_out_of_range=0 data=[2417020.832398] "
	    "started=[2417020.832398] stopped=[2417020.832398] "
	    "units=bytes/requests\n"
	    "name=bar on=0 type=value range_min=-9223372036854775807 "
	    "range_max=9223372036854775806 mode=increments "
	    "hits_out_of_range=0 data=[2417020.832398] "
	    "started=[2417020.832398] stopped=[2417020.832398] "
	    "units=bytes/requests\n"
	    "name=util_qdio_outb on=0 type=value range_min=-9223372036854775807 "
	    "range_max=9223372036854775806 mode=increments "
	    "hits_out_of_range=0 data=[2417020.832398] "
	    "started=[2417020.832398] stopped=[2417020.832398] "
	    "units=slots-occupied/incidents\n\n");
	free(txt);
	/* Off: updates do nothing. */
	feed(sb, 0, 5, 1, NOW);
	txt = data(sb, NOW);
	ck_assert_str_eq(txt, "foo 0\nbar 0\nutil_qdio_outb 0\n");
	free(txt);
	free(sb);
}
END_TEST

/* The definition line the Linux documentation shows, read-only attributes
 * and all. */
START_TEST(seed_line_applies)
{
	struct statsblob *sb = iface();
	bool relaid = false;
	struct statsblob *nb;
	struct input_error err;
	char *txt;

	ck_assert_int_eq(defn_apply(sb, names, NNAMES,
	    "name=util_qdio_outb on=0 type=history range_min=0 range_max=127\n"
	    "entries_max=128 mode=range period=1000000 hits_out_of_range=0\n"
	    "data=[2417020.832398] started=[2417044.149675] "
	    "stopped=[2417020.832398]\nunits=slots-occupied/incidents\n",
	    NOW, &nb, &relaid, &err), -EINVAL);
	/* Split over lines as the documentation prints it, the first line
	 * lacks entries_max: an error naming it, and nothing changed. */
	ck_assert_str_eq(err.where, "entries_max");
	ck_assert_uint_eq(err.line, 1);
	ck_assert_int_eq(defn_apply(sb, names, NNAMES,
	    "name=util_qdio_outb on=0 type=history range_min=0 range_max=127 "
	    "entries_max=128 mode=range period=1000000 hits_out_of_range=0 "
	    "data=[2417020.832398] started=[2417044.149675] "
	    "stopped=[2417020.832398] units=slots-occupied/incidents",
	    NOW, &nb, &relaid, &err), 0);
	ck_assert(relaid);
	free(sb);
	sb = nb;
	txt = format(sb);
	ck_assert_ptr_nonnull(strstr(txt,
	    "name=util_qdio_outb on=0 type=history range_min=0 range_max=127 "
	    "entries_max=128 mode=range period=1000000 hits_out_of_range=0 "
	    "data=[2417020.832398] started=[2417020.832398] "
	    "stopped=[2417020.832398] units=slots-occupied/incidents\n"));
	free(txt);
	free(sb);
}
END_TEST

START_TEST(every_type_and_its_attributes)
{
	struct statsblob *sb = iface();
	char *txt;

	apply(&sb, "name=foo type=range range_min=-5 range_max=100", NOW);
	apply(&sb, "name=bar type=array range_min=0 range_max=1024 "
	    "base_interval=1 scale=log2", NOW);
	apply(&sb, "name=util_qdio_outb type=list entries_max=256", NOW);
	txt = format(sb);
	ck_assert_ptr_nonnull(strstr(txt, "name=foo on=0 type=range "
	    "range_min=-5 range_max=100 hits_out_of_range=0 "));
	ck_assert_ptr_nonnull(strstr(txt, "name=bar on=0 type=array "
	    "range_min=0 range_max=1024 base_interval=1 scale=log2 "
	    "hits_out_of_range=0 "));
	ck_assert_ptr_nonnull(strstr(txt, "name=util_qdio_outb on=0 type=list "
	    "range_min=-9223372036854775807 range_max=9223372036854775806 "
	    "entries_max=256 hits_missed=0 hits_out_of_range=0 "));
	free(txt);
	apply(&sb, "name=foo type=raw entries_max=16", NOW);
	apply(&sb, "name=bar type=value mode=products", NOW);
	apply(&sb, "name=util_qdio_outb type=history entries_max=8 "
	    "mode=increments period=250000", NOW);
	txt = format(sb);
	ck_assert_ptr_nonnull(strstr(txt, "name=foo on=0 type=raw "
	    "range_min=-5 range_max=100 entries_max=16 hits_out_of_range=0 "));
	ck_assert_ptr_nonnull(strstr(txt, "name=bar on=0 type=value "
	    "range_min=0 range_max=1024 mode=products hits_out_of_range=0 "));
	ck_assert_ptr_nonnull(strstr(txt, "type=history range_min=-9223372036854775807 "
	    "range_max=9223372036854775806 entries_max=8 mode=increments "
	    "period=250000 hits_out_of_range=0 "));
	free(txt);
	free(sb);
}
END_TEST

START_TEST(on_started_stopped)
{
	struct statsblob *sb = iface();
	char *txt;

	apply(&sb, "name=foo on=1", NOW + 1000000);
	txt = format(sb);
	ck_assert_ptr_nonnull(strstr(txt, "name=foo on=1 type=value "));
	ck_assert_ptr_nonnull(strstr(txt, "started=[2417020.833398] "
	    "stopped=[2417020.832398]"));
	free(txt);
	feed(sb, 0, 5, 2, NOW);
	feed(sb, 1, 5, 2, NOW);		/* bar is off */
	txt = data(sb, NOW);
	ck_assert_str_eq(txt, "foo 2\nbar 0\nutil_qdio_outb 0\n");
	free(txt);
	/* Turning on what is on changes no time. */
	apply(&sb, "name=foo on=1", NOW + 5000000);
	ck_assert_uint_eq(defn_get(sb, 0)->started_ns, NOW + 1000000);
	apply(&sb, "name=foo on=0", NOW + 7000000);
	ck_assert_uint_eq(defn_get(sb, 0)->stopped_ns, NOW + 7000000);
	ck_assert_uint_eq(defn_get(sb, 0)->on, 0);
	/* Starting and stopping keeps the data. */
	txt = data(sb, NOW);
	ck_assert_ptr_nonnull(strstr(txt, "foo 2\n"));
	free(txt);
	free(sb);
}
END_TEST

START_TEST(without_name_applies_to_all)
{
	struct statsblob *sb = iface();
	char *txt;

	apply(&sb, "on=1", NOW + 1000);
	ck_assert_uint_eq(defn_get(sb, 0)->on, 1);
	ck_assert_uint_eq(defn_get(sb, 1)->on, 1);
	ck_assert_uint_eq(defn_get(sb, 2)->on, 1);
	feed(sb, 0, 1, 3, NOW);
	feed(sb, 1, 1, 4, NOW);
	apply(&sb, "data=reset", NOW + 2000);
	txt = data(sb, NOW);
	ck_assert_str_eq(txt, "foo 0\nbar 0\nutil_qdio_outb 0\n");
	free(txt);
	ck_assert_uint_eq(defn_get(sb, 2)->data_ns, NOW + 2000);
	/* Resetting does not stop. */
	ck_assert_uint_eq(defn_get(sb, 2)->on, 1);
	apply(&sb, "on=0", NOW + 3000);
	ck_assert_uint_eq(defn_get(sb, 1)->on, 0);
	ck_assert_uint_eq(defn_get(sb, 1)->stopped_ns, NOW + 3000);
	/* Redefinitions need a name; the line does nothing. */
	refuse(sb, "type=list entries_max=3", -EINVAL, "type");
	refuse(sb, "on=1 range_min=4", -EINVAL, "range_min");
	ck_assert_uint_eq(defn_get(sb, 0)->on, 0);
	free(sb);
}
END_TEST

START_TEST(junk_and_read_only_are_ignored)
{
	struct statsblob *sb = iface();
	char *before, *after;

	before = format(sb);
	/* Read-only attributes with any value, unknown ones, stray words. */
	apply(&sb, "name=foo units=furlongs started=[1.000000] stopped=x "
	    "hits_out_of_range=99 hits_missed=7 data=[ 12.000000] colour=red "
	    "hello = =5 name", NOW);
	apply(&sb, "   \n\t\n", NOW);
	apply(&sb, "", NOW);
	after = format(sb);
	ck_assert_str_eq(before, after);
	free(before);
	free(after);
	free(sb);
}
END_TEST

START_TEST(bad_values_are_errors_naming_the_attribute)
{
	struct statsblob *sb = iface();
	struct input_error err;
	struct statsblob *nb = NULL;

	refuse(sb, "name=foo type=histogram", -EINVAL, "type");
	refuse(sb, "name=foo on=2", -EINVAL, "on");
	refuse(sb, "name=foo on=yes", -EINVAL, "on");
	refuse(sb, "name=foo data=clear", -EINVAL, "data");
	refuse(sb, "name=foo range_min=abc", -EINVAL, "range_min");
	refuse(sb, "name=foo range_max=99999999999999999999", -EINVAL,
	    "range_max");
	refuse(sb, "name=foo range_min=10 range_max=5", -EINVAL, "range_min");
	refuse(sb, "name=foo mode=range", -EINVAL, "mode");
	refuse(sb, "name=foo mode=sideways", -EINVAL, "mode");
	refuse(sb, "name=foo type=list entries_max=-1", -EINVAL,
	    "entries_max");
	refuse(sb, "name=foo type=list entries_max=0", -EINVAL, "entries_max");
	refuse(sb, "name=foo type=list entries_max=100000", -EINVAL,
	    "entries_max");
	refuse(sb, "name=foo type=array base_interval=0 scale=lin", -EINVAL,
	    "base_interval");
	refuse(sb, "name=foo type=array base_interval=1 scale=log10", -EINVAL,
	    "scale");
	refuse(sb, "name=foo type=array base_interval=1 scale=lin "
	    "range_min=0 range_max=1000000", -EINVAL, "base_interval");
	refuse(sb, "name=foo type=history entries_max=4 mode=range period=0",
	    -EINVAL, "period");
	refuse(sb, "name=foo type=history entries_max=4 mode=range "
	    "period=-5", -EINVAL, "period");
	/* Attributes of another type. */
	refuse(sb, "name=foo scale=log2", -EINVAL, "scale");
	refuse(sb, "name=foo entries_max=5", -EINVAL, "entries_max");
	refuse(sb, "name=foo period=5", -EINVAL, "period");
	refuse(sb, "name=foo type=list entries_max=4 mode=products", -EINVAL,
	    "mode");
	/* An unknown statistic. */
	refuse(sb, "name=nosuch on=1", -ENOENT, "name");
	/* The error says where: line 2, the token's column. */
	ck_assert_int_eq(defn_apply(sb, names, NNAMES,
	    "name=foo on=1\nname=bar  range_max=x", NOW, &nb, NULL, &err),
	    -EINVAL);
	ck_assert_uint_eq(err.line, 2);
	ck_assert_uint_eq(err.col, 11);
	ck_assert_str_eq(err.where, "range_max");
	/* All or nothing: line 1 did not take effect. */
	ck_assert_uint_eq(defn_get(sb, 0)->on, 0);
	free(sb);
}
END_TEST

START_TEST(type_change_needs_the_types_attributes)
{
	struct statsblob *sb = iface();

	refuse(sb, "name=foo type=history entries_max=4 mode=range", -EINVAL,
	    "period");
	refuse(sb, "name=foo type=history period=4 mode=range", -EINVAL,
	    "entries_max");
	refuse(sb, "name=foo type=history period=4 entries_max=4", -EINVAL,
	    "mode");
	refuse(sb, "name=foo type=array scale=lin", -EINVAL, "base_interval");
	refuse(sb, "name=foo type=array base_interval=2", -EINVAL, "scale");
	refuse(sb, "name=foo type=list", -EINVAL, "entries_max");
	refuse(sb, "name=foo type=raw", -EINVAL, "entries_max");
	apply(&sb, "name=foo type=list entries_max=4", NOW);
	/* Back to value: its mode is needed again. */
	refuse(sb, "name=foo type=value", -EINVAL, "mode");
	apply(&sb, "name=foo type=value mode=products", NOW);
	/* range needs nothing more. */
	apply(&sb, "name=foo type=range", NOW);
	free(sb);
}
END_TEST

START_TEST(repeated_attributes)
{
	struct statsblob *sb = iface();

	/* The last value wins... */
	apply(&sb, "name=foo on=1 on=0 range_min=1 range_min=2", NOW);
	ck_assert_uint_eq(defn_get(sb, 0)->on, 0);
	ck_assert_int_eq(defn_get(sb, 0)->range_min, 2);
	/* ...except for name, where the first does. */
	apply(&sb, "name=bar name=foo on=1", NOW);
	ck_assert_uint_eq(defn_get(sb, 1)->on, 1);
	ck_assert_uint_eq(defn_get(sb, 0)->on, 0);
	free(sb);
}
END_TEST

START_TEST(numbers_in_their_bases)
{
	struct statsblob *sb = iface();

	/* range_min/max and period take 0x and 0 prefixes; entries_max and
	 * base_interval are decimal. */
	apply(&sb, "name=foo range_min=-0x10 range_max=010", NOW);
	ck_assert_int_eq(defn_get(sb, 0)->range_min, -16);
	ck_assert_int_eq(defn_get(sb, 0)->range_max, 8);
	apply(&sb, "name=bar type=history entries_max=010 mode=range "
	    "period=0x10", NOW);
	ck_assert_uint_eq(defn_get(sb, 1)->entries_max, 10);
	ck_assert_uint_eq(defn_get(sb, 1)->period_us, 16);
	refuse(sb, "name=foo type=list entries_max=0x10", -EINVAL,
	    "entries_max");
	free(sb);
}
END_TEST

/*
 * A redefinition resets that statistic only; a change of shape re-lays
 * the blob and every other statistic's data is carried across.
 */
START_TEST(relayout_keeps_other_statistics)
{
	struct statsblob *sb = iface(), *nb;
	struct input_error err;
	uint32_t hash;
	bool relaid;
	char *txt;

	apply(&sb, "on=1", NOW);
	apply(&sb, "name=bar type=list entries_max=4", NOW);
	apply(&sb, "name=util_qdio_outb type=range", NOW);
	feed(sb, 0, 7, 3, NOW);
	feed(sb, 1, 0x1000, 2, NOW);
	feed(sb, 2, 4, 1, NOW);
	feed(sb, 2, 9, 1, NOW);
	feed(sb, 2, 500, 1, NOW);
	hash = ((struct statsblobv1 *)sb)->tplhash;
	/* entries_max changes the list's size: a re-layout. */
	ck_assert_int_eq(defn_apply(sb, names, NNAMES,
	    "name=foo type=list entries_max=64", NOW + 1000, &nb, &relaid,
	    &err), 0);
	ck_assert(relaid);
	ck_assert_uint_ne(((struct statsblobv1 *)nb)->tplhash, hash);
	ck_assert_uint_gt(nb->cursz, sb->cursz);
	free(sb);
	sb = nb;
	ck_assert_int_eq(stats_blob_validate(sb, sb->cursz), 0);
	txt = data(sb, NOW);
	ck_assert_str_eq(txt, "bar 0x1000 2\n"
	    "util_qdio_outb 3 4 171.000 500\n");
	free(txt);
	/* foo's redefinition reset it and restarted it (it was on). */
	ck_assert_uint_eq(defn_get(sb, 0)->on, 1);
	ck_assert_uint_eq(defn_get(sb, 0)->data_ns, NOW + 1000);
	feed(sb, 0, 3, 1, NOW);
	txt = data(sb, NOW);
	ck_assert_str_eq(txt, "foo 0x3 1\nbar 0x1000 2\n"
	    "util_qdio_outb 3 4 171.000 500\n");
	free(txt);
	/* range_max keeps the shape: no re-layout, foo alone is reset. */
	ck_assert_int_eq(defn_apply(sb, names, NNAMES,
	    "name=foo range_max=1000", NOW + 2000, &nb, &relaid, &err), 0);
	ck_assert(!relaid);
	ck_assert_uint_eq(((struct statsblobv1 *)nb)->tplhash,
	    ((struct statsblobv1 *)sb)->tplhash);
	free(sb);
	sb = nb;
	txt = data(sb, NOW);
	ck_assert_str_eq(txt, "bar 0x1000 2\nutil_qdio_outb 3 4 171.000 500\n");
	free(txt);
	/* Out of range now: counted, not kept. */
	feed(sb, 0, 5000, 1, NOW);
	ck_assert_uint_eq(defn_get(sb, 0)->hits_out_of_range, 1);
	free(sb);
}
END_TEST

/* Read the definition file, write it back: nothing changes, no data lost. */
START_TEST(round_trip)
{
	struct statsblob *sb = iface(), *nb;
	struct input_error err;
	char *def1, *def2, *d1, *d2;
	bool relaid;

	apply(&sb, "name=foo type=array range_min=0 range_max=1024 "
	    "base_interval=1 scale=log2 on=1", 5000000);
	apply(&sb, "name=bar type=history entries_max=4 mode=range "
	    "period=1000 on=1", 6000000);
	apply(&sb, "name=util_qdio_outb type=list entries_max=2 on=1",
	    7000000);
	feed(sb, 0, 3, 2, 8000000);
	feed(sb, 1, 3, 2, 8000000);
	feed(sb, 2, 1, 1, 8000000);
	feed(sb, 2, 2, 1, 8000000);
	feed(sb, 2, 3, 1, 8000000);	/* missed */
	def1 = format(sb);
	d1 = data(sb, 8000000);
	/* Small timestamps print with blanks inside the brackets. */
	ck_assert_ptr_nonnull(strstr(def1, "data=[    0.005000] "));
	ck_assert_ptr_nonnull(strstr(def1, "entries_max=2 hits_missed=1 "));
	ck_assert_int_eq(defn_apply(sb, names, NNAMES, def1, 9000000, &nb,
	    &relaid, &err), 0);
	ck_assert(!relaid);
	def2 = format(nb);
	d2 = data(nb, 8000000);
	ck_assert_str_eq(def1, def2);
	ck_assert_str_eq(d1, d2);
	ck_assert_int_eq(memcmp(sb, nb, sb->cursz), 0);
	free(def1);
	free(def2);
	free(d1);
	free(d2);
	free(nb);
	free(sb);
}
END_TEST

START_TEST(exploiter_calls)
{
	struct statsblob *sb = iface(), *nb;
	struct vsd_defn nd;
	const char *attr;
	bool relaid;

	ck_assert_int_eq(defn_set_on(sb, 0, true, 10), 0);
	ck_assert_int_eq(defn_set_on(sb, 0, true, 20), 1);
	ck_assert_int_eq(defn_set_on(sb, 9, true, 20), -ENOENT);
	feed(sb, 0, 1, 4, 30);
	ck_assert_int_eq(defn_reset(sb, 0, 40), 0);
	ck_assert_uint_eq(defn_get(sb, 0)->data_ns, 40);
	nd = *defn_get(sb, 0);
	nd.type = DEFN_RAW;
	ck_assert_int_eq(defn_define(sb, 0, &nd, 50, &nb, &relaid, &attr),
	    -EINVAL);
	ck_assert_str_eq(attr, "entries_max");
	nd.entries_max = 3;
	ck_assert_int_eq(defn_define(sb, 0, &nd, 50, &nb, &relaid, &attr), 0);
	ck_assert(relaid);
	ck_assert_uint_eq(defn_get(nb, 0)->type, DEFN_RAW);
	ck_assert_uint_eq(defn_get(nb, 0)->on, 1);
	free(nb);
	/* A statistic cannot be created twice; units are one token. */
	ck_assert_int_eq(defn_stat_create(sb, 1, NULL, 0, &nb), -EINVAL);
	ck_assert_int_eq(defn_stat_create(sb, 5, "a b", 0, &nb), -EINVAL);
	ck_assert_int_eq(defn_stat_create(sb, 5, NULL, 0, &nb), 0);
	ck_assert_int_eq(stats_blob_validate(nb, nb->cursz), 0);
	ck_assert_ptr_nonnull(defn_get(nb, 5));
	ck_assert_ptr_null(defn_get(nb, 4));
	free(nb);
	free(sb);
}
END_TEST

START_TEST(attribute_table_covers_the_seed)
{
	static const char *const seed[] = { "name", "units", "type", "data",
	    "on", "started", "stopped", "range_min", "range_max",
	    "hits_out_of_range", "entries_max", "hits_missed", "scale",
	    "base_interval", "mode", "period" };
	static const char *const ro[] = { "name", "units", "started",
	    "stopped", "hits_out_of_range", "hits_missed" };
	size_t i, j;

	ck_assert_uint_eq(defn_nattrs, NVSS(seed));
	for (i = 0; i < NVSS(seed); i++) {
		for (j = 0; j < defn_nattrs; j++) {
			if (strcmp(defn_attrs[j].name, seed[i]) == 0)
				break;
		}
		ck_assert_uint_lt(j, defn_nattrs);
	}
	for (i = 0; i < NVSS(ro); i++) {
		for (j = 0; j < defn_nattrs; j++) {
			if (strcmp(defn_attrs[j].name, ro[i]) == 0)
				ck_assert(!defn_attrs[j].writable);
		}
	}
}
END_TEST

static Suite *
defn_suite(void)
{
	Suite *s = suite_create("defn");
	TCase *tc = tcase_create("defn");

	tcase_add_test(tc, fresh_statistics_are_value_increments_off);
	tcase_add_test(tc, seed_line_applies);
	tcase_add_test(tc, every_type_and_its_attributes);
	tcase_add_test(tc, on_started_stopped);
	tcase_add_test(tc, without_name_applies_to_all);
	tcase_add_test(tc, junk_and_read_only_are_ignored);
	tcase_add_test(tc, bad_values_are_errors_naming_the_attribute);
	tcase_add_test(tc, type_change_needs_the_types_attributes);
	tcase_add_test(tc, repeated_attributes);
	tcase_add_test(tc, numbers_in_their_bases);
	tcase_add_test(tc, relayout_keeps_other_statistics);
	tcase_add_test(tc, round_trip);
	tcase_add_test(tc, exploiter_calls);
	tcase_add_test(tc, attribute_table_covers_the_seed);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_main(defn_suite());
}
