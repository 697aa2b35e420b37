/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_statsd_line.c: the statsd/DogStatsD line parser — every type, rates,
 * gauge deltas, tags, the container field, timestamps, DogStatsD 1.1
 * packing, line splitting with CR-LF, every reason a line is refused, UTF-8
 * checks — and a series' kstat2 path with its escapes.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>

#include "unit.h"
#include "kstat_hdr.h"
#include "statsd_line.h"
#include "utf8.h"

static const struct sl_limits lim = {
	.name_max = 200, .tag_max = 200, .tags_max = 32, .values_max = 64,
};

static enum sl_reject
parse(const char *s, struct sl_line *l)
{
	return sl_line_parse(s, strlen(s), &lim, l);
}

static double
value_at(const struct sl_line *l, unsigned k)
{
	struct sl_value v;
	uint32_t pos = 0;
	unsigned i = 0;

	while (sl_value_next(l, &pos, &v))
		if (i++ == k)
			return v.v;
	ck_abort_msg("no value %u", k);
	return 0;
}

START_TEST(types_and_values)
{
	static const struct { const char *line; int type; double v; } t[] = {
		{ "a.b:1|c", SL_COUNTER, 1 },
		{ "a.b:-2.5|g", SL_GAUGE, -2.5 },
		{ "lat:12.25|ms", SL_TIMER, 12.25 },
		{ "h:1e3|h", SL_HISTOGRAM, 1000 },
		{ "d:0.125|d", SL_DISTRIBUTION, 0.125 },
		{ "x:+7|g", SL_GAUGE, 7 },
		{ "big:123456789012345678|c", SL_COUNTER, 123456789012345678.0 },
		{ "x:.5|g", SL_GAUGE, 0.5 },
		{ "x:5.|g", SL_GAUGE, 5 },
	};
	struct sl_line l;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		ck_assert_msg(parse(t[i].line, &l) == SL_OK, "%s", t[i].line);
		ck_assert_int_eq(l.type, t[i].type);
		ck_assert_int_eq(l.nvalues, 1);
		ck_assert(value_at(&l, 0) == t[i].v);
		ck_assert(!l.has_rate && l.rate == 1.0);
		ck_assert_ptr_null(l.tags);
	}
	ck_assert_int_eq(parse("users:alice|s", &l), SL_OK);
	ck_assert_int_eq(l.type, SL_SET);
	ck_assert_int_eq(l.name_len, 5);
	ck_assert_int_eq(l.values_len, 5);
	ck_assert(memcmp(l.values, "alice", 5) == 0);
}
END_TEST

START_TEST(gauge_signs)
{
	struct sl_line l;
	struct sl_value v;
	uint32_t pos = 0;

	ck_assert_int_eq(parse("g:-3|g", &l), SL_OK);
	ck_assert(sl_value_next(&l, &pos, &v));
	ck_assert(v.signed_ && v.v == -3);
	pos = 0;
	ck_assert_int_eq(parse("g:3|g", &l), SL_OK);
	ck_assert(sl_value_next(&l, &pos, &v));
	ck_assert(!v.signed_ && v.v == 3);
}
END_TEST

START_TEST(fields)
{
	struct sl_line l;
	const char *t;
	uint32_t pos = 0, tl;

	ck_assert_int_eq(parse("page.views:1|c|@0.1|#env:prod,,web|c:abc123"
	    "|T1700000000", &l), SL_OK);
	ck_assert(l.has_rate && l.rate == 0.1);
	ck_assert_int_eq(l.ntags, 2);
	ck_assert(sl_tag_next(l.tags, l.tags_len, &pos, &t, &tl));
	ck_assert(tl == 8 && memcmp(t, "env:prod", 8) == 0);
	ck_assert(sl_tag_next(l.tags, l.tags_len, &pos, &t, &tl));
	ck_assert(tl == 3 && memcmp(t, "web", 3) == 0);
	ck_assert(!sl_tag_next(l.tags, l.tags_len, &pos, &t, &tl));
	ck_assert_int_eq(l.container_len, 6);
	ck_assert(memcmp(l.container, "abc123", 6) == 0);
	ck_assert(l.has_ts && l.ts == 1700000000);
	ck_assert_int_eq(l.ignored, 0);
	/* Fields in any order; an unknown one is skipped and counted. */
	ck_assert_int_eq(parse("x:1|c|#a|e:zzz|@0.5||", &l), SL_OK);
	ck_assert_int_eq(l.ignored, 3);
	ck_assert(l.rate == 0.5);
	ck_assert_int_eq(l.ntags, 1);
}
END_TEST

START_TEST(packing)
{
	struct sl_line l;

	ck_assert_int_eq(parse("d:1:2.5:-3|d|@0.5", &l), SL_OK);
	ck_assert_int_eq(l.nvalues, 3);
	ck_assert(value_at(&l, 0) == 1);
	ck_assert(value_at(&l, 1) == 2.5);
	ck_assert(value_at(&l, 2) == -3);
	ck_assert_int_eq(parse("s:a:b:a|s", &l), SL_OK);
	ck_assert_int_eq(l.nvalues, 3);
	/* An empty value anywhere refuses the line. */
	ck_assert_int_eq(parse("d:1:|d", &l), SL_R_VALUE);
	ck_assert_int_eq(parse("d::1|d", &l), SL_R_VALUE);
	ck_assert_int_eq(parse("d:|d", &l), SL_R_VALUE);
}
END_TEST

START_TEST(refusals)
{
	static const struct { const char *line; enum sl_reject r; } t[] = {
		{ "garbage", SL_R_SYNTAX },
		{ "a|c:1", SL_R_SYNTAX },
		{ "a:1", SL_R_SYNTAX },
		{ ":1|c", SL_R_NAME },
		{ "a b:1|c", SL_R_NAME },
		{ "a\tb:1|c", SL_R_NAME },
		{ "a:1|x", SL_R_TYPE },
		{ "a:1|", SL_R_TYPE },
		{ "a:1|cc", SL_R_TYPE },
		{ "a:abc|c", SL_R_VALUE },
		{ "a:1x|c", SL_R_VALUE },
		{ "a:0x10|c", SL_R_VALUE },
		{ "a:nan|g", SL_R_VALUE },
		{ "a:inf|g", SL_R_VALUE },
		{ "a:1e|g", SL_R_VALUE },
		{ "a:-|g", SL_R_VALUE },
		{ "a:1e999|g", SL_R_VALUE },
		{ "a:1|c|@0", SL_R_RATE },
		{ "a:1|c|@1.5", SL_R_RATE },
		{ "a:1|c|@x", SL_R_RATE },
		{ "a:1|c|@", SL_R_RATE },
		{ "a:1|c|#:v", SL_R_TAGS },
		{ "a:1|c|#k\x01", SL_R_TAGS },
		{ "a:1|c|T", SL_R_TIMESTAMP },
		{ "a:1|c|T12x", SL_R_TIMESTAMP },
		{ "_e{5,4}:title|text", SL_R_EVENT },
		{ "_sc|svc|0", SL_R_EVENT },
		{ "caf\xc3:1|c", SL_R_UTF8 },
		{ "a:1|c|#k:\xff", SL_R_UTF8 },
		{ "s:\xc0\x80|s", SL_R_UTF8 },
		{ "s:\xed\xa0\x80|s", SL_R_UTF8 },
	};
	struct sl_line l;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		ck_assert_msg(parse(t[i].line, &l) == t[i].r, "%s: %s, not %s",
		    t[i].line, sl_reject_names[parse(t[i].line, &l)],
		    sl_reject_names[t[i].r]);
	/* Valid UTF-8 is fine everywhere. */
	ck_assert_int_eq(parse("caf\xc3\xa9:1|c|#k:\xe2\x82\xac", &l), SL_OK);
	ck_assert_int_eq(parse("s:\xf0\x9f\x98\x80|s", &l), SL_OK);
	for (i = 0; i < SL_NREJECTS; i++)
		ck_assert_ptr_nonnull(sl_reject_names[i]);
}
END_TEST

START_TEST(limits)
{
	struct sl_limits small = { .name_max = 4, .tag_max = 3,
	    .tags_max = 2, .values_max = 2 };
	struct sl_line l;

#define P(s) sl_line_parse(s, strlen(s), &small, &l)
	ck_assert_int_eq(P("abcd:1|c"), SL_OK);
	ck_assert_int_eq(P("abcde:1|c"), SL_R_NAME);
	ck_assert_int_eq(P("a:1|c|#abc,de"), SL_OK);
	ck_assert_int_eq(P("a:1|c|#abcd"), SL_R_TAGS);
	ck_assert_int_eq(P("a:1|c|#a,b,c"), SL_R_TAGS);
	ck_assert_int_eq(P("a:1:2|d"), SL_OK);
	ck_assert_int_eq(P("a:1:2:3|d"), SL_R_VALUE);
	ck_assert_int_eq(P("a:abcd|s"), SL_R_VALUE);
	ck_assert_int_eq(P("a:1|c|c:abcd"), SL_R_TAGS);
#undef P
}
END_TEST

START_TEST(lines_of_a_datagram)
{
	const char dg[] = "a:1|c\r\nb:2|g\n\n\r\nc:3|ms";
	const char *ln;
	size_t pos = 0, n;

	ck_assert(sl_next_line(dg, sizeof(dg) - 1, &pos, &ln, &n));
	ck_assert(n == 5 && memcmp(ln, "a:1|c", 5) == 0);
	ck_assert(sl_next_line(dg, sizeof(dg) - 1, &pos, &ln, &n));
	ck_assert(n == 5 && memcmp(ln, "b:2|g", 5) == 0);
	ck_assert(sl_next_line(dg, sizeof(dg) - 1, &pos, &ln, &n));
	ck_assert(n == 6 && memcmp(ln, "c:3|ms", 6) == 0);
	ck_assert(!sl_next_line(dg, sizeof(dg) - 1, &pos, &ln, &n));
	pos = 0;
	ck_assert(!sl_next_line("\n\r\n", 3, &pos, &ln, &n));
}
END_TEST

START_TEST(series_path)
{
	const char *tags[4] = { "z:1", "env:prod", "a/b:%", "env:prod" };
	uint32_t tl[4] = { 3, 8, 5, 8 };
	struct sl_series_path sp;
	struct kstat_hdr h;
	struct input_error err;
	char out[64];

	ck_assert_int_eq(sl_series_path_make(SL_COUNTER, "peer.requests", 13,
	    tags, tl, 4, &sp), 0);
	ck_assert_int_eq(sp.nseg, 6);	/* the repeated tag dropped */
	ck_assert_str_eq(sp.seg[0], "statsd");
	ck_assert_str_eq(sp.seg[1], "counter");
	ck_assert_str_eq(sp.seg[2], "peer.requests");
	ck_assert_str_eq(sp.seg[3], "a%2Fb:%25");
	ck_assert_str_eq(sp.seg[4], "env:prod");
	ck_assert_str_eq(sp.seg[5], "z:1");
	/* What kstat headers take. */
	ck_assert_int_eq(ks_hdr_init(&h, "statsd", 1, "x", "statsd",
	    KSTAT_TYPE_BLOB, 0, &err), 0);
	ck_assert_int_eq(ks_hdr_set_path(&h, sp.seg, sp.nseg, &err), 0);
	ck_assert_str_eq(h.path,
	    "statsd/counter/peer.requests/a%2Fb:%25/env:prod/z:1");
	ck_assert_int_eq(sl_seg_decode(sp.seg[3], strlen(sp.seg[3]), out,
	    sizeof(out)), 5);
	ck_assert_str_eq(out, "a/b:%");
	ck_assert_int_eq(sl_seg_decode("%4", 2, out, sizeof(out)), -EINVAL);
	ck_assert_int_eq(sl_seg_decode("%zz", 3, out, sizeof(out)), -EINVAL);
	ck_assert_int_eq(sl_seg_decode("abc", 3, out, 3), -ENAMETOOLONG);
	/* UTF-8 is escaped into printable ASCII and back. */
	ck_assert_int_eq(sl_series_path_make(SL_GAUGE, "caf\xc3\xa9", 5, NULL,
	    NULL, 0, &sp), 0);
	ck_assert_str_eq(sp.seg[2], "caf%C3%A9");
	ck_assert_int_eq(sl_seg_decode(sp.seg[2], strlen(sp.seg[2]), out,
	    sizeof(out)), 5);
	ck_assert_str_eq(out, "caf\xc3\xa9");
	/* What a reader looks for: a tag, encoded, as a whole segment. */
	ck_assert_int_eq(sl_seg_encode("a/b:%", 5, out, sizeof(out)), 9);
	ck_assert_str_eq(out, "a%2Fb:%25");
	ck_assert_int_eq(sl_seg_encode("abc", 3, out, 3), -ENAMETOOLONG);
	ck_assert(sl_path_has_tag("statsd/counter/n/a%2Fb:%25/env:prod",
	    "env:prod"));
	ck_assert(sl_path_has_tag("statsd/counter/n/a%2Fb:%25/env:prod",
	    "a%2Fb:%25"));
	ck_assert(!sl_path_has_tag("statsd/counter/n/env:production",
	    "env:prod"));
	/* The name and type are not tags. */
	ck_assert(!sl_path_has_tag("statsd/counter/env:prod", "env:prod"));
	ck_assert(!sl_path_has_tag("statsd/counter/n/x", "counter"));
	ck_assert(!sl_path_has_tag("", "x"));
}
END_TEST

START_TEST(series_path_limits)
{
	char name[300], tagbuf[16][8];
	const char *tags[16];
	uint32_t tl[16], i;
	struct sl_series_path sp;

	for (i = 0; i < 16; i++) {
		snprintf(tagbuf[i], sizeof(tagbuf[i]), "t%u", i);
		tags[i] = tagbuf[i];
		tl[i] = (uint32_t)strlen(tagbuf[i]);
	}
	ck_assert_int_eq(sl_series_path_make(SL_SET, "n", 1, tags, tl, 13,
	    &sp), 0);
	ck_assert_int_eq(sp.nseg, 16);
	ck_assert_int_eq(sl_series_path_make(SL_SET, "n", 1, tags, tl, 14,
	    &sp), -E2BIG);
	memset(name, 'x', sizeof(name));
	/* "statsd/set/" is 11 bytes: 244 more fit, 245 do not. */
	ck_assert_int_eq(sl_series_path_make(SL_SET, name, 244, NULL, NULL, 0,
	    &sp), 0);
	ck_assert_int_eq(strlen(sp.seg[2]), 244);
	ck_assert_int_eq(sl_series_path_make(SL_SET, name, 245, NULL, NULL, 0,
	    &sp), -ENAMETOOLONG);
	ck_assert_int_eq(sl_series_path_make(SL_SET, name, 300, NULL, NULL, 0,
	    &sp), -ENAMETOOLONG);
	/* Escapes count three bytes each. */
	memset(name, '/', 100);
	ck_assert_int_eq(sl_series_path_make(SL_SET, name, 100, NULL, NULL, 0,
	    &sp), -ENAMETOOLONG);
}
END_TEST

START_TEST(random_bytes_never_crash)
{
	uint64_t seed = 42;
	char buf[64];
	struct sl_line l;
	int i, j;

	/* Every answer is a reason from the table; a good line's spans lie
	 * inside the input. */
	for (i = 0; i < 200000; i++) {
		size_t n = unit_rnd(&seed) % sizeof(buf);
		static const char alpha[] = "ab:|#@,.-+e1cgmsdhT\r\n\xc3\xa9";

		for (j = 0; j < (int)n; j++)
			buf[j] = alpha[unit_rnd(&seed) % (sizeof(alpha) - 1)];
		enum sl_reject r = sl_line_parse(buf, n, &lim, &l);

		ck_assert_int_lt(r, SL_NREJECTS);
		if (r == SL_OK) {
			ck_assert(l.name >= buf && l.name + l.name_len <= buf + n);
			ck_assert(l.values + l.values_len <= buf + n);
			ck_assert_int_ge(l.nvalues, 1);
		}
	}
}
END_TEST

/* The name's verdict, a byte at a time, for names_in_blocks. */
static enum sl_reject
name_verdict(const char *s, size_t n, size_t *name_len)
{
	size_t i, j;
	bool high = false;

	for (i = 0; i < n && s[i] != ':' && s[i] != '|'; i++)
		;
	if (i == n || s[i] == '|')
		return SL_R_SYNTAX;
	*name_len = i;
	if (i == 0 || i > lim.name_max)
		return SL_R_NAME;
	for (j = 0; j < i; j++) {
		unsigned char c = (unsigned char)s[j];

		if (c < 0x20 || c == 0x7f || strchr(" #@,", c) != NULL)
			return SL_R_NAME;
		high |= c >= 0x80;
	}
	for (j = 0; high && j < i; j++) {
		size_t u = (unsigned char)s[j] < 0x80 ? 1 :
		    utf8_seq((const unsigned char *)s + j, i - j);

		if (u == 0)
			return SL_R_UTF8;
		j += u - 1;
	}
	return SL_OK;
}

/*
 * A name is scanned 16 bytes at a time: names of 0 to 80 bytes, plain
 * with a byte the name may not hold, a ':' or a '|', UTF-8 good and bad,
 * at every place of a block and after it, get the verdict and the length
 * a byte-at-a-time reading gives.
 */
START_TEST(names_in_blocks)
{
	static const char odd[] = ":|: #@,\x01\x1f\x7f\x80\xff\xc3";
	uint64_t seed = 9;
	char buf[128];
	struct sl_line l;
	int i;

	for (i = 0; i < 100000; i++) {
		size_t n = unit_rnd(&seed) % 81, j, want_len = 0, k;
		enum sl_reject want, got;

		for (j = 0; j < n; j++)
			buf[j] = "abcXYZ019._-"[unit_rnd(&seed) % 12];
		/* One to three bytes that are not plain, anywhere. */
		for (k = unit_rnd(&seed) % 4; k > 0 && n > 0; k--) {
			j = unit_rnd(&seed) % n;
			if (unit_rnd(&seed) % 3 == 0 && j + 1 < n) {
				buf[j] = (char)0xc3;	/* é, whole */
				buf[j + 1] = (char)0xa9;
			} else
				buf[j] = odd[unit_rnd(&seed) % (sizeof(odd) -
				    1)];
		}
		memcpy(buf + n, ":1|c", 4);
		want = name_verdict(buf, n + 4, &want_len);
		got = sl_line_parse(buf, n + 4, &lim, &l);
		/* A good name may still be followed by values or a type
		 * that are not (a ':' or '|' put after it). */
		if (want == SL_OK && got != SL_R_SYNTAX && got != SL_R_NAME &&
		    got != SL_R_UTF8)
			got = SL_OK;
		ck_assert_msg(got == want, "line %.*s: %d, not %d",
		    (int)n + 4, buf, (int)got, (int)want);
		if (got != SL_R_SYNTAX)
			ck_assert_uint_eq(l.name_len, want_len);
	}
}
END_TEST

/*
 * A value is the double nearest its decimal, as strtod() rounds it,
 * whether the parser computes it itself (up to 19 digits below 2^53 and
 * a power of ten up to 22) or hands it to strtod(): numbers on both
 * sides of each bound, and ones whose last digit is a rounding's tie.
 */
START_TEST(numbers_as_strtod)
{
	static const char *const num[] = {
		"0", "-0", "-0.0", "+0e5", "1", "7.", ".5", "0.1", "0.3",
		"12.5", "-2.25", "1e22", "1e23", "1.5e-22", "1.5e-23",
		"123456789012345678", "1234567890123456789",
		"12345678901234567890", "18446744073709551615",
		"9007199254740992", "9007199254740993", "9007199254740993.0",
		"900719925474099.3", "9007199254740995e-1", "4503599627370497.5",
		"0.000000000000000000001", "1e-22", "2.2250738585072014e-308",
		"4.9e-324", "1e-400", "1.7976931348623157e308", "123.456e3",
		"0.1e1", "1E+2", "00000000000000000000000001", "3.14159265358979",
	};
	char line[128];
	struct sl_line l;
	size_t i;

	for (i = 0; i < sizeof(num) / sizeof(num[0]); i++) {
		double want = strtod(num[i], NULL), got;

		snprintf(line, sizeof(line), "n:%s|g", num[i]);
		ck_assert_msg(parse(line, &l) == SL_OK, "%s", line);
		got = value_at(&l, 0);
		ck_assert_msg(memcmp(&got, &want, sizeof(got)) == 0,
		    "%s: %a, strtod %a", num[i], got, want);
		/* The rate takes the same parser. */
		snprintf(line, sizeof(line), "n:1|c|@%s", num[i]);
		if (want > 0 && want <= 1) {
			ck_assert_msg(parse(line, &l) == SL_OK, "%s", line);
			ck_assert(memcmp(&l.rate, &want, sizeof(want)) == 0);
		}
	}
	/* Packed: the first value kept by the parse, the others parsed
	 * again, all the same. */
	ck_assert_int_eq(parse("d:0.1:0.1:1e23|d", &l), SL_OK);
	ck_assert(value_at(&l, 0) == 0.1 && value_at(&l, 1) == 0.1 &&
	    value_at(&l, 2) == 1e23);
}
END_TEST

static Suite *
statsd_line_suite(void)
{
	Suite *s = suite_create("statsd_line");
	TCase *tc = tcase_create("line");

	tcase_add_test(tc, types_and_values);
	tcase_add_test(tc, gauge_signs);
	tcase_add_test(tc, numbers_as_strtod);
	tcase_add_test(tc, fields);
	tcase_add_test(tc, packing);
	tcase_add_test(tc, refusals);
	tcase_add_test(tc, limits);
	tcase_add_test(tc, lines_of_a_datagram);
	tcase_add_test(tc, series_path);
	tcase_add_test(tc, series_path_limits);
	tcase_add_test(tc, random_bytes_never_crash);
	tcase_add_test(tc, names_in_blocks);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_main(statsd_line_suite());
}
