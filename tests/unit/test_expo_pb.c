/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_expo_pb.c: the text format read back into Prometheus' delimited
 * protobuf MetricFamily messages: each family one message, a counter's
 * and gauge's value, a histogram's classic buckets (+Inf left out, the
 * count), _sum and _count per label set, its native buckets as spans and
 * deltas from a "# NATIVE" line, a summary's quantiles, escapes undone,
 * and a family cut between two feeds staying one message. Decoded with
 * the C protoc-c made of metrics.proto.
 */
#include <errno.h>
#include <math.h>

#include "unit.h"
#include "expo_pb.h"
#include "metrics.pb-c.h"

typedef Io__Prometheus__Client__MetricFamily Fam;

/* The delimited messages of out, at most max. */
static size_t
decode(struct sbuf *out, Fam **f, size_t max)
{
	const uint8_t *p = (const uint8_t *)sbuf_data(out);
	size_t n = (size_t)sbuf_len(out), at = 0, k = 0;

	while (at < n && k < max) {
		uint64_t len = 0;
		int sh = 0;

		while (p[at] & 0x80) {
			len |= (uint64_t)(p[at++] & 0x7f) << sh;
			sh += 7;
		}
		len |= (uint64_t)p[at++] << sh;
		ck_assert_uint_le(at + len, n);
		f[k] = io__prometheus__client__metric_family__unpack(NULL, len,
		    p + at);
		ck_assert_ptr_nonnull(f[k]);
		k++;
		at += len;
	}
	ck_assert_uint_eq(at, n);
	return k;
}

static const char TEXT[] =
    "# HELP statsd_c_total statsd counter c\n"
    "# TYPE statsd_c_total counter\n"
    "statsd_c_total{} 16\n"
    "statsd_c_total{env=\"a \\\"q\\\" \\\\ \\n\"} 3\n"
    "# HELP statsd_t_seconds statsd timer t, in seconds\n"
    "# TYPE statsd_t_seconds histogram\n"
    "statsd_t_seconds_bucket{env=\"a\",le=\"0.005\"} 3\n"
    "statsd_t_seconds_bucket{env=\"a\",le=\"0.1\"} 4\n"
    "statsd_t_seconds_bucket{env=\"a\",le=\"+Inf\"} 5\n"
    "statsd_t_seconds_sum{env=\"a\"} 3.015201\n"
    "statsd_t_seconds_count{env=\"a\"} 5\n"
    "# NATIVE 3 1 -98:1 -61:2 -60:1 40:1\n"
    "statsd_t_seconds_bucket{env=\"b\",le=\"0.005\"} 0\n"
    "statsd_t_seconds_bucket{env=\"b\",le=\"0.1\"} 0\n"
    "statsd_t_seconds_bucket{env=\"b\",le=\"+Inf\"} 0\n"
    "statsd_t_seconds_sum{env=\"b\"} 0\n"
    "statsd_t_seconds_count{env=\"b\"} 0\n";

static const char TEXT2[] =
    "statsd_t_seconds_bucket{env=\"c\",le=\"0.005\"} 1\n"
    "statsd_t_seconds_bucket{env=\"c\",le=\"0.1\"} 1\n"
    "statsd_t_seconds_bucket{env=\"c\",le=\"+Inf\"} 1\n"
    "statsd_t_seconds_sum{env=\"c\"} 0.001\n"
    "statsd_t_seconds_count{env=\"c\"} 1\n"
    "# HELP statsd_s summary\n"
    "# TYPE statsd_s summary\n"
    "statsd_s{quantile=\"0.5\"} 2.5\n"
    "statsd_s{quantile=\"0.99\"} NaN\n"
    "statsd_s_sum{} 10\n"
    "statsd_s_count{} 4\n"
    "# HELP statsd_g gauge\n"
    "# TYPE statsd_g gauge\n"
    "statsd_g{module=\"m\"} -1.5\n";

START_TEST(families_and_native)
{
	struct expo_pb *pb;
	struct sbuf *out = sbuf_new_auto();
	Fam *f[8];
	Io__Prometheus__Client__Histogram *h;
	size_t n, i;

	ck_assert(expo_pb_available());
	ck_assert_int_eq(expo_pb_new(&pb), 0);
	ck_assert_int_eq(expo_pb_feed(pb, TEXT, strlen(TEXT), out), 0);
	/* The counter is out; the histogram waits for its next page. */
	ck_assert_uint_eq(decode(out, f, 8), 1);
	io__prometheus__client__metric_family__free_unpacked(f[0], NULL);
	ck_assert_int_eq(expo_pb_feed(pb, TEXT2, strlen(TEXT2), out), 0);
	ck_assert_int_eq(expo_pb_end(pb, out), 0);
	expo_pb_free(pb);
	n = decode(out, f, 8);
	ck_assert_uint_eq(n, 4);

	ck_assert_str_eq(f[0]->name, "statsd_c_total");
	ck_assert_str_eq(f[0]->help, "statsd counter c");
	ck_assert_int_eq(f[0]->type,
	    IO__PROMETHEUS__CLIENT__METRIC_TYPE__COUNTER);
	ck_assert_uint_eq(f[0]->n_metric, 2);
	ck_assert_uint_eq(f[0]->metric[0]->n_label, 0);
	ck_assert(f[0]->metric[0]->counter->value == 16);
	ck_assert_uint_eq(f[0]->metric[1]->n_label, 1);
	ck_assert_str_eq(f[0]->metric[1]->label[0]->name, "env");
	ck_assert_str_eq(f[0]->metric[1]->label[0]->value, "a \"q\" \\ \n");

	ck_assert_str_eq(f[1]->name, "statsd_t_seconds");
	ck_assert_str_eq(f[1]->help, "statsd timer t, in seconds");
	ck_assert_int_eq(f[1]->type,
	    IO__PROMETHEUS__CLIENT__METRIC_TYPE__HISTOGRAM);
	ck_assert_uint_eq(f[1]->n_metric, 3);
	h = f[1]->metric[0]->histogram;
	ck_assert_str_eq(f[1]->metric[0]->label[0]->value, "a");
	ck_assert_uint_eq(h->sample_count, 5);
	ck_assert(h->sample_sum == 3.015201);
	ck_assert_uint_eq(h->n_bucket, 2);
	ck_assert(h->bucket[0]->upper_bound == 0.005);
	ck_assert_uint_eq(h->bucket[0]->cumulative_count, 3);
	ck_assert(h->bucket[1]->upper_bound == 0.1);
	ck_assert_uint_eq(h->bucket[1]->cumulative_count, 4);
	ck_assert(h->has_schema);
	ck_assert_int_eq(h->schema, 3);
	ck_assert(h->zero_threshold > 0 && h->zero_threshold < 1e-30);
	ck_assert_uint_eq(h->zero_count, 1);
	/* -98, then -61 and -60 together, then 40. */
	ck_assert_uint_eq(h->n_positive_span, 3);
	ck_assert_int_eq(h->positive_span[0]->offset, -98);
	ck_assert_uint_eq(h->positive_span[0]->length, 1);
	ck_assert_int_eq(h->positive_span[1]->offset, 36);
	ck_assert_uint_eq(h->positive_span[1]->length, 2);
	ck_assert_int_eq(h->positive_span[2]->offset, 99);
	ck_assert_uint_eq(h->positive_span[2]->length, 1);
	ck_assert_uint_eq(h->n_positive_delta, 4);
	ck_assert_int_eq(h->positive_delta[0], 1);
	ck_assert_int_eq(h->positive_delta[1], 1);
	ck_assert_int_eq(h->positive_delta[2], -1);
	ck_assert_int_eq(h->positive_delta[3], 0);
	/* Without a # NATIVE line: classic only. */
	ck_assert(!f[1]->metric[1]->histogram->has_schema);
	ck_assert_uint_eq(f[1]->metric[1]->histogram->sample_count, 0);
	ck_assert_str_eq(f[1]->metric[2]->label[0]->value, "c");
	ck_assert(f[1]->metric[2]->histogram->sample_sum == 0.001);

	ck_assert_int_eq(f[2]->type,
	    IO__PROMETHEUS__CLIENT__METRIC_TYPE__SUMMARY);
	ck_assert_uint_eq(f[2]->n_metric, 1);
	ck_assert_uint_eq(f[2]->metric[0]->summary->n_quantile, 2);
	ck_assert(f[2]->metric[0]->summary->quantile[0]->quantile == 0.5);
	ck_assert(f[2]->metric[0]->summary->quantile[0]->value == 2.5);
	ck_assert(isnan(f[2]->metric[0]->summary->quantile[1]->value));
	ck_assert_uint_eq(f[2]->metric[0]->summary->sample_count, 4);
	ck_assert(f[2]->metric[0]->summary->sample_sum == 10);

	ck_assert_int_eq(f[3]->type, IO__PROMETHEUS__CLIENT__METRIC_TYPE__GAUGE);
	ck_assert(f[3]->metric[0]->gauge->value == -1.5);
	ck_assert_str_eq(f[3]->metric[0]->label[0]->name, "module");
	for (i = 0; i < n; i++)
		io__prometheus__client__metric_family__free_unpacked(f[i], NULL);
	sbuf_delete(out);
}
END_TEST

/* A line it cannot read is refused, never read past. */
START_TEST(bad_lines)
{
	static const char *const bad[] = {
		"# HELP x h\n# TYPE x gauge\nx{a=\"b} 1\n",
		"# HELP x h\n# TYPE x gauge\nx{a=b} 1\n",
		"# HELP x h\n# TYPE x gauge\nx{} \n",
		"x{} 1\n",
		"# HELP x h\n# TYPE x histogram\nx_bucket{le=\"1\"} 1\n"
		    "# NATIVE 3 0 5\n",
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct expo_pb *pb;
		struct sbuf *out = sbuf_new_auto();

		ck_assert_int_eq(expo_pb_new(&pb), 0);
		ck_assert_int_eq(expo_pb_feed(pb, bad[i], strlen(bad[i]), out),
		    -EINVAL);
		expo_pb_free(pb);
		sbuf_delete(out);
	}
}
END_TEST

static Suite *
expo_pb_suite(void)
{
	Suite *s = suite_create("expo_pb");
	TCase *tc = tcase_create("pb");

	tcase_add_test(tc, families_and_native);
	tcase_add_test(tc, bad_lines);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_main(expo_pb_suite());
}
