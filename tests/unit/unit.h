/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * unit.h: helpers shared by the Check suites of src/common. Only public
 * names of <statsd/stats.h> are used here, so test_api.c may include it too.
 */
#ifndef STATSD_TESTS_UNIT_H
#define STATSD_TESTS_UNIT_H

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <statsd/stats.h>

/* xorshift64*: fixed seeds, so a failure replays exactly. */
static inline uint64_t
unit_rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * UINT64_C(2685821657736338717);
}

/*
 * A fresh template named base_N. Check forks per test, so names never
 * collide anyway; the counter keeps CK_FORK=no runs working as well.
 */
static inline int
unit_tpl(const char *base)
{
	static unsigned n;
	char name[TPL_MAX_NAME_LEN + 1];
	int id;

	snprintf(name, sizeof(name), "%s_%u", base, n++);
	id = stats_tpl_alloc(name, 0);
	ck_assert_int_ge(id, 0);
	return id;
}

/* Add one VOI, asserting success. */
#define UNIT_ADD(tpl, voi, name, dtype, flags, ...) do {		\
	struct voistatspec unit_vss_[] = { __VA_ARGS__ };		\
	ck_assert_int_eq(stats_tpl_add_voistats((uint32_t)(tpl), (voi),	\
	    (name), (dtype), (uint32_t)NVSS(unit_vss_), unit_vss_,	\
	    (flags)), 0);						\
} while (0)

/* The blob rendered as a heap string (free it). */
static inline char *
unit_tostr(struct statsblob *sb, enum sb_str_fmt fmt, uint32_t flags)
{
	struct sbuf *s = sbuf_new_auto();
	char *r;

	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(stats_blob_tostr(sb, s, fmt, flags), 0);
	ck_assert_int_eq(sbuf_finish(s), 0);
	r = strdup(sbuf_data(s));
	ck_assert_ptr_nonnull(r);
	sbuf_delete(s);
	return r;
}

/* One statistic's data rendered as a heap string (free it). */
static inline char *
unit_vsdstr(const struct voistatdata *vsd, enum vsd_dtype dtype,
    enum sb_str_fmt fmt, int objdump)
{
	struct sbuf *s = sbuf_new_auto();
	char *r;

	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(stats_voistatdata_tostr(vsd, dtype, fmt, s, objdump),
	    0);
	ck_assert_int_eq(sbuf_finish(s), 0);
	r = strdup(sbuf_data(s));
	ck_assert_ptr_nonnull(r);
	sbuf_delete(s);
	return r;
}

/* Run a suite with the default fork mode; the exit status says pass/fail. */
static inline int
unit_main(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int nf;

	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif /* STATSD_TESTS_UNIT_H */
