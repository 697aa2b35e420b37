/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_flat.c: a kstat's flat view (model/flat.c): the names each kstat
 * type gives, the "LAST, else SUM, else COUNT" rule for a NAMED value,
 * and what the kind table says each field is: a SUM is a counter only on
 * an unsigned VOI, COUNT always, MIN, MAX and LAST never; kstat_io and
 * kstat_timer fields as their kinds list them.
 */
#include "unit.h"
#include "engine.h"
#include "flat.h"
#include "kind.h"
#include "stat_ioq.h"
#include "stat_scalar.h"
#include "stat_timer.h"

#define COUNTVSS	STATS_VSS(VS_STYPE_COUNT, 0, 0, stats_vss_count_hlpr, \
			    NULL)
#define LASTVSS		STATS_VSS(VS_STYPE_LAST, 0, 0, stats_vss_last_hlpr, \
			    NULL)

struct seen {
	char	 names[64][64];
	bool	 counter[64];
	uint8_t	 vtype[64];
	size_t	 n;
};

static int
collect(const struct flat_stat *fs, void *arg)
{
	struct seen *s = arg;

	ck_assert_uint_lt(s->n, 64);
	flat_name(fs, s->names[s->n], sizeof(s->names[s->n]));
	s->counter[s->n] = fs->counter;
	s->vtype[s->n] = fs->vtype;
	s->n++;
	return 0;
}

/* The index of name among what was seen, or -1. */
static int
seen_at(const struct seen *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (strcmp(s->names[i], name) == 0)
			return (int)i;
	return -1;
}

static struct statsblob *
two_vois(void)
{
	int tpl = unit_tpl("flat");

	UNIT_ADD(tpl, 0, "bytes", VSD_DTYPE_INT_U64, 0, STATS_VSS_SUM(),
	    STATS_VSS_MIN(), STATS_VSS_MAX(), COUNTVSS);
	UNIT_ADD(tpl, 1, "level", VSD_DTYPE_INT_S64, 0, STATS_VSS_SUM(),
	    LASTVSS);
	return stats_blob_alloc((uint32_t)tpl, 0);
}

START_TEST(blob_names_and_counters)
{
	static const char *const names[] = { "bytes", "level" };
	struct statsblob *sb = two_vois();
	struct kstat_hdr h;
	struct ks_view v = { &h, sb, names, 2, NULL };
	struct seen s = { .n = 0 };

	ks_hdr_init(&h, "app", 0, "x", NULL, KSTAT_TYPE_BLOB, 0, NULL);
	ck_assert_int_eq(flat_walk(&v, collect, &s), 0);
	/* Every scalar as <voi>.<kind>, in the kind table's order. */
	ck_assert_uint_eq(s.n, 6);
	ck_assert_str_eq(s.names[0], "bytes.sum");
	ck_assert_str_eq(s.names[1], "bytes.max");
	ck_assert_str_eq(s.names[2], "bytes.min");
	ck_assert_str_eq(s.names[3], "bytes.count");
	ck_assert_str_eq(s.names[4], "level.sum");
	ck_assert_str_eq(s.names[5], "level.last");
	/* An unsigned VOI's SUM only grows; a signed one's may fall. */
	ck_assert(s.counter[seen_at(&s, "bytes.sum")]);
	ck_assert(!s.counter[seen_at(&s, "level.sum")]);
	ck_assert(s.counter[seen_at(&s, "bytes.count")]);
	ck_assert(!s.counter[seen_at(&s, "bytes.min")]);
	ck_assert(!s.counter[seen_at(&s, "bytes.max")]);
	ck_assert(!s.counter[seen_at(&s, "level.last")]);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(named_values_take_last_then_sum_then_count)
{
	static const char *const names[] = { "bytes", "level" };
	struct statsblob *sb = two_vois();
	struct kstat_hdr h;
	struct ks_view v = { &h, sb, names, 2, NULL };
	const struct statsblobv1 *b = (const struct statsblobv1 *)sb;
	struct seen s = { .n = 0 };

	/* bytes has a SUM (no LAST): its own value is the SUM, a counter;
	 * level has a LAST: its own value is the LAST, a gauge. */
	ck_assert_int_eq(flat_primary(sb, &b->vois[0])->stype, VS_STYPE_SUM);
	ck_assert_int_eq(flat_primary(sb, &b->vois[1])->stype,
	    VS_STYPE_LAST);
	ks_hdr_init(&h, "app", 0, "x", NULL, KSTAT_TYPE_NAMED, 0, NULL);
	ck_assert_int_eq(flat_walk(&v, collect, &s), 0);
	ck_assert_str_eq(s.names[0], "bytes");
	ck_assert(s.counter[0]);
	ck_assert_int_eq(seen_at(&s, "bytes.sum"), -1);
	ck_assert_int_ge(seen_at(&s, "bytes.count"), 0);
	ck_assert_int_ge(seen_at(&s, "level"), 0);
	ck_assert(!s.counter[seen_at(&s, "level")]);
	ck_assert_int_eq(seen_at(&s, "level.last"), -1);
	ck_assert_int_ge(seen_at(&s, "level.sum"), 0);
	stats_blob_destroy(sb);
}
END_TEST

START_TEST(record_kinds_list_their_fields)
{
	static const char *const names[] = { "disk", "flush" };
	int tpl = unit_tpl("rec");
	struct statsblob *sb;
	struct kstat_hdr h;
	struct ks_view v;
	struct seen s = { .n = 0 };
	size_t i;

	UNIT_ADD(tpl, 0, "disk", VSD_DTYPE_INT_S64, 0,
	    STATS_VSS(VS_STYPE_IOQ, 0, 0, stat_ioq_vss_hlpr, NULL));
	UNIT_ADD(tpl, 1, "flush", VSD_DTYPE_INT_S64, 0,
	    STATS_VSS(VS_STYPE_TIMER, 0, 0, stat_timer_vss_hlpr, NULL));
	sb = stats_blob_alloc((uint32_t)tpl, 0);
	v = (struct ks_view){ &h, sb, names, 2, NULL };
	ks_hdr_init(&h, "sd", 0, NULL, NULL, KSTAT_TYPE_BLOB, 0, NULL);
	ck_assert_int_eq(flat_walk(&v, collect, &s), 0);
	ck_assert_uint_eq(s.n, IOQ_NFIELDS + TIMER_NFIELDS);
	for (i = 0; i < IOQ_NFIELDS; i++) {
		char want[64];

		snprintf(want, sizeof(want), "disk.%s",
		    stat_ioq_fields[i].suffix);
		ck_assert_str_eq(s.names[i], want);
		ck_assert_int_eq(s.counter[i],
		    stat_ioq_fields[i].sem == FIELD_COUNTER);
		ck_assert_int_eq(s.vtype[i], FLAT_U64);
	}
	ck_assert(s.counter[seen_at(&s, "disk.nread")]);
	ck_assert(!s.counter[seen_at(&s, "disk.wcnt")]);
	ck_assert(s.counter[seen_at(&s, "flush.num_events")]);
	ck_assert(!s.counter[seen_at(&s, "flush.max_time")]);
	/* An IO kstat shows its first queue bare; a lone timer of a TIMER
	 * kstat is bare too, with its name first. */
	s.n = 0;
	h.type = KSTAT_TYPE_IO;
	ck_assert_int_eq(flat_walk(&v, collect, &s), 0);
	ck_assert_str_eq(s.names[0], "nread");
	ck_assert_int_ge(seen_at(&s, "flush.elapsed_time"), 0);
	s.n = 0;
	h.type = KSTAT_TYPE_TIMER;
	ck_assert_int_eq(flat_walk(&v, collect, &s), 0);
	ck_assert_int_ge(seen_at(&s, "disk.nread"), 0);
	ck_assert_int_ge(seen_at(&s, "name"), 0);
	ck_assert_int_eq(s.vtype[seen_at(&s, "name")], FLAT_STRING);
	ck_assert_int_eq(seen_at(&s, "name") + 1, seen_at(&s, "num_events"));
	stats_blob_destroy(sb);
}
END_TEST

/* The kind table: every kind with flat fields says what they are. */
START_TEST(kind_table_fields)
{
	int s;
	uint8_t i;

	for (s = 1; s < VS_NUM_STYPES; s++) {
		const struct stype_ops *k = &stype_ops[s];

		ck_assert_ptr_nonnull(k->name);
		ck_assert_int_eq(k->fields == NULL, k->nfields == 0);
		for (i = 0; i < k->nfields; i++) {
			ck_assert_ptr_nonnull(k->fields[i].suffix);
			ck_assert_ptr_nonnull(k->fields[i].unit);
			ck_assert_int_le(k->fields[i].sem,
			    FIELD_COUNTER_IF_UNSIGNED);
		}
	}
	ck_assert_int_eq(stype_ops[VS_STYPE_SUM].fields[0].sem,
	    FIELD_COUNTER_IF_UNSIGNED);
	ck_assert(field_is_counter(&stype_ops[VS_STYPE_SUM].fields[0],
	    false));
	ck_assert(!field_is_counter(&stype_ops[VS_STYPE_SUM].fields[0],
	    true));
	ck_assert(field_is_counter(&stype_ops[VS_STYPE_COUNT].fields[0],
	    true));
}
END_TEST

static Suite *
flat_suite(void)
{
	Suite *s = suite_create("flat");
	TCase *tc = tcase_create("flat");

	tcase_add_test(tc, blob_names_and_counters);
	tcase_add_test(tc, named_values_take_last_then_sum_then_count);
	tcase_add_test(tc, record_kinds_list_their_fields);
	tcase_add_test(tc, kind_table_fields);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_main(flat_suite());
}
