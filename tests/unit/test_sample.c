/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_sample.c: template sampling: stats_tpl_sample_rollthedice()
 * (deterministic per seed, weighted across seeds, -1 for the unselected
 * share, a real random source without a seed), sample-rate lists parsed and
 * formatted as text, and FreeBSD's sysctl handler driven through struct
 * sysctl_req and a subsystem callback.
 */
#include <errno.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "unit.h"

/*
 * Interpose getrandom(2) to see that a seedless roll uses it, and to make
 * it fail. The bytes still come from the kernel's generator.
 */
static unsigned getrandom_calls;
static int getrandom_fail;

ssize_t getrandom(void *buf, size_t len, unsigned int flags);

ssize_t
getrandom(void *buf, size_t len, unsigned int flags)
{
	getrandom_calls++;
	if (getrandom_fail) {
		errno = ENOSYS;
		return -1;
	}
	return syscall(SYS_getrandom, buf, len, flags);
}

/* Three templates A, B, C (and D) and their slot ids. */
static int ida, idb, idc, idd;

static int
tpl_named(const char *name)
{
	int id = stats_tpl_alloc(name, 0);

	if (id == -EEXIST)	/* CK_FORK=no: made by an earlier test */
		id = stats_tpl_fetch_allocid(name, 0);
	ck_assert_int_ge(id, 0);
	return id;
}

static void
setup(void)
{
	ida = tpl_named("A");
	idb = tpl_named("B");
	idc = tpl_named("C");
	idd = tpl_named("D");
}

static uint32_t
hash_of(int id)
{
	struct statsblob_tpl *tpl;

	ck_assert_int_eq(stats_tpl_fetch(id, &tpl), 0);
	return tpl->mb->tplhash;
}

START_TEST(dice_deterministic_per_seed)
{
	struct stats_tpl_sample_rate r[] = { { ida, 50 }, { idb, 25 } };
	char seed[32], copy[32];
	int i, first;

	for (i = 0; i < 200; i++) {
		snprintf(seed, sizeof(seed), "conn-%d", i);
		first = stats_tpl_sample_rollthedice(r, 2, seed, strlen(seed));
		memcpy(copy, seed, sizeof(seed));
		ck_assert_int_eq(stats_tpl_sample_rollthedice(r, 2, copy,
		    strlen(copy)), first);
		ck_assert_int_eq(stats_tpl_sample_rollthedice(r, 2, seed,
		    strlen(seed)), first);
		ck_assert(first == ida || first == idb || first == -1);
	}
	/* An empty seed is a seed too. */
	first = stats_tpl_sample_rollthedice(r, 2, seed, 0);
	ck_assert_int_eq(stats_tpl_sample_rollthedice(r, 2, copy, 0), first);
	ck_assert_uint_eq(getrandom_calls, 0);
}
END_TEST

START_TEST(dice_weighted_across_seeds)
{
	struct stats_tpl_sample_rate r[] = { { ida, 30 }, { idb, 20 },
	    { idc, 0 }, { idd, 10 } };
	int counts[5] = { 0 }, i, got;
	const int n = 100000;
	char seed[32];

	for (i = 0; i < n; i++) {
		snprintf(seed, sizeof(seed), "%d", 1000000 + i);
		got = stats_tpl_sample_rollthedice(r, 4, seed, strlen(seed));
		counts[got == ida ? 0 : got == idb ? 1 : got == idc ? 2 :
		    got == idd ? 3 : 4]++;
		ck_assert(got == -1 || got == ida || got == idb || got == idd);
	}
	/* Each gets its share (±1 point, ~7 sigma); C at 0% never wins. */
	ck_assert_int_lt(abs(counts[0] - 30000), 1000);
	ck_assert_int_lt(abs(counts[1] - 20000), 1000);
	ck_assert_int_eq(counts[2], 0);
	ck_assert_int_lt(abs(counts[3] - 10000), 1000);
	ck_assert_int_lt(abs(counts[4] - 40000), 1000);	/* unselected: -1 */
}
END_TEST

START_TEST(dice_edges)
{
	struct stats_tpl_sample_rate full[] = { { ida, 60 }, { idb, 40 } };
	struct stats_tpl_sample_rate none[] = { { ida, 0 }, { idb, 0 } };
	struct stats_tpl_sample_rate all[] = { { idc, 100 } };
	char seed[16];
	int i, got;

	for (i = 0; i < 2000; i++) {
		snprintf(seed, sizeof(seed), "s%d", i);
		got = stats_tpl_sample_rollthedice(full, 2, seed, strlen(seed));
		ck_assert(got == ida || got == idb);
		ck_assert_int_eq(stats_tpl_sample_rollthedice(none, 2, seed,
		    strlen(seed)), -1);
		ck_assert_int_eq(stats_tpl_sample_rollthedice(all, 1, seed,
		    strlen(seed)), idc);
	}
	ck_assert_int_eq(stats_tpl_sample_rollthedice(NULL, 1, seed, 1), -1);
	ck_assert_int_eq(stats_tpl_sample_rollthedice(all, 0, seed, 1), -1);
	ck_assert_int_eq(stats_tpl_sample_rollthedice(all, -1, NULL, 0), -1);
}
END_TEST

/* Seeds that differ only in their last character still spread. */
START_TEST(dice_neighbouring_seeds_spread)
{
	struct stats_tpl_sample_rate r[] = { { ida, 50 } };
	char seed[32];
	int i, hits = 0;

	for (i = 0; i < 10; i++) {
		snprintf(seed, sizeof(seed), "192.0.2.1:4432%d", i);
		if (stats_tpl_sample_rollthedice(r, 1, seed, strlen(seed)) ==
		    ida)
			hits++;
	}
	ck_assert_int_gt(hits, 0);
	ck_assert_int_lt(hits, 10);
}
END_TEST

START_TEST(dice_without_seed_uses_getrandom)
{
	struct stats_tpl_sample_rate r[] = { { ida, 50 } };
	int i, hits = 0, got;
	const int n = 20000;

	getrandom_calls = 0;
	for (i = 0; i < n; i++) {
		got = stats_tpl_sample_rollthedice(r, 1, NULL, 0);
		ck_assert(got == ida || got == -1);
		hits += got == ida;
	}
	ck_assert_uint_eq(getrandom_calls, (unsigned)n);
	ck_assert_int_lt(abs(hits - n / 2), 600);	/* ~8.5 sigma */
	/* No entropy source: it still answers, from the clock. */
	getrandom_fail = 1;
	got = stats_tpl_sample_rollthedice(r, 1, NULL, 0);
	ck_assert(got == ida || got == -1);
	getrandom_fail = 0;
}
END_TEST

static void
ck_parse(const char *text, int want_err, size_t want_pos)
{
	struct stats_tpl_sample_rate *rates = NULL;
	int n = -1, error;
	size_t pos = 9999;

	error = stats_tpl_sample_rates_parse(text, &rates, &n, &pos);
	ck_assert_msg(error == want_err, "'%s': %d, want %d", text, error,
	    want_err);
	if (want_err != 0)
		ck_assert_msg(pos == want_pos, "'%s': errpos %zu, want %zu",
		    text, pos, want_pos);
	free(rates);
}

START_TEST(rates_parse_every_form)
{
	struct stats_tpl_sample_rate *rates = NULL;
	char text[256];
	int n = -1;

	snprintf(text, sizeof(text), " A=30, \"B\":%u=20 ,:%u = 10,\"D\"=5, "
	    "C:0=1 ", hash_of(idb), hash_of(idc));
	ck_assert_int_eq(stats_tpl_sample_rates_parse(text, &rates, &n, NULL),
	    0);
	ck_assert_int_eq(n, 5);
	ck_assert_int_eq(rates[0].tpl_slot_id, ida);
	ck_assert_uint_eq(rates[0].tpl_sample_pct, 30);
	ck_assert_int_eq(rates[1].tpl_slot_id, idb);
	ck_assert_uint_eq(rates[1].tpl_sample_pct, 20);
	ck_assert_int_eq(rates[2].tpl_slot_id, idc);
	ck_assert_uint_eq(rates[2].tpl_sample_pct, 10);
	ck_assert_int_eq(rates[3].tpl_slot_id, idd);
	ck_assert_int_eq(rates[4].tpl_slot_id, idc);
	free(rates);
	/* Empty and blank lists are empty lists (sampling off). */
	rates = (void *)1;
	ck_assert_int_eq(stats_tpl_sample_rates_parse("", &rates, &n, NULL), 0);
	ck_assert_int_eq(n, 0);
	ck_assert_ptr_null(rates);
	ck_assert_int_eq(stats_tpl_sample_rates_parse(" \t\n", &rates, &n,
	    NULL), 0);
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(stats_tpl_sample_rates_parse("A=100", &rates, &n,
	    NULL), 0);
	free(rates);
}
END_TEST

START_TEST(rates_parse_errors)
{
	char text[200];
	struct stats_tpl_sample_rate *rates;
	int n;

	ck_parse("A", EINVAL, 0);
	ck_parse("A=", EINVAL, 0);
	ck_parse("A=x", EINVAL, 0);
	ck_parse("A=-5", EINVAL, 0);
	ck_parse("=5", EINVAL, 0);
	ck_parse("A=101", EINVAL, 0);
	ck_parse("A=99999999999999999999999", EINVAL, 0);
	ck_parse("A=60, B=41", EINVAL, 6);	/* over 100 in total */
	ck_parse("A=10 x", EINVAL, 5);		/* junk after a pair */
	ck_parse("A=10, Zed=5", ESRCH, 6);	/* unknown template */
	ck_parse("A=10,:12345=5", ESRCH, 5);
	ck_parse("a b=5", EINVAL, 0);
	ck_parse("A=1,,B=1", EINVAL, 4);
	memset(text, 'n', sizeof(text));
	strcpy(text + 100, "=5");
	ck_parse(text, EINVAL, 0);		/* spec longer than 77 */
	ck_assert_int_eq(stats_tpl_sample_rates_parse(NULL, &rates, &n, NULL),
	    EINVAL);
	ck_assert_int_eq(stats_tpl_sample_rates_parse("A=1", NULL, &n, NULL),
	    EINVAL);
	ck_assert_int_eq(stats_tpl_sample_rates_parse("A=1", &rates, NULL,
	    NULL), EINVAL);
	ck_assert_int_eq(stats_tpl_sample_rates_parse("Q=1", &rates, &n, NULL),
	    ESRCH);
}
END_TEST

START_TEST(rates_format_and_round_trip)
{
	struct stats_tpl_sample_rate r[] = { { ida, 30 }, { idd, 70 } }, bad[] =
	    { { 999, 1 } }, *back = NULL;
	struct sbuf *s = sbuf_new_auto(), fixed;
	char want[128], small[8];
	int n;

	ck_assert_int_eq(stats_tpl_sample_rates_format(r, 2, s), 0);
	sbuf_finish(s);
	snprintf(want, sizeof(want), "\"A\":%u=30,\"D\":%u=70", hash_of(ida),
	    hash_of(idd));
	ck_assert_str_eq(sbuf_data(s), want);
	ck_assert_int_eq(stats_tpl_sample_rates_parse(sbuf_data(s), &back, &n,
	    NULL), 0);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(memcmp(back, r, sizeof(r)), 0);
	free(back);
	sbuf_clear(s);
	ck_assert_int_eq(stats_tpl_sample_rates_format(NULL, 0, s), 0);
	sbuf_finish(s);
	ck_assert_str_eq(sbuf_data(s), "");
	ck_assert_int_eq(stats_tpl_sample_rates_format(bad, 1, s), ENOENT);
	bad[0].tpl_slot_id = -1;
	ck_assert_int_eq(stats_tpl_sample_rates_format(bad, 1, s), ENOENT);
	ck_assert_int_eq(stats_tpl_sample_rates_format(r, 2, NULL), EINVAL);
	ck_assert_int_eq(stats_tpl_sample_rates_format(NULL, 1, s), EINVAL);
	ck_assert_int_eq(stats_tpl_sample_rates_format(r, -1, s), EINVAL);
	sbuf_new(&fixed, small, sizeof(small), 0);
	ck_assert_int_eq(stats_tpl_sample_rates_format(r, 2, &fixed), ENOMEM);
	sbuf_delete(s);
}
END_TEST

/* A subsystem keeping its rates list behind a (pretend) lock. */
static struct subsys {
	struct stats_tpl_sample_rate	*rates;
	int				 nrates;
	int				 locked;
	int				 gets, runlocks, puts;
	int				 fail_get, fail_put;
	void				*ctx_seen;
	int				 ctx_zero;
} ss;

static int
subsys_cb(enum stats_tpl_sr_cb_action action,
    struct stats_tpl_sample_rate **rates, int *nrates, void *ctx)
{
	struct stats_tpl_sample_rate *old;
	int oldn;

	if (ss.ctx_seen == NULL && ctx != NULL) {
		ss.ctx_seen = ctx;
		ss.ctx_zero = ((unsigned char *)ctx)[0] == 0 &&
		    ((unsigned char *)ctx)[63] == 0;
	}
	ck_assert_ptr_eq(ctx, ss.ctx_seen);
	switch (action) {
	case TPL_SR_RLOCKED_GET:
	case TPL_SR_UNLOCKED_GET:
		ss.gets++;
		if (ss.fail_get)
			return EIO;
		ck_assert_int_eq(ss.locked, 0);
		ss.locked = action == TPL_SR_RLOCKED_GET;
		*rates = ss.rates;
		*nrates = ss.nrates;
		return 0;
	case TPL_SR_RUNLOCK:
		ck_assert_int_eq(ss.locked, 1);
		ss.locked = 0;
		ss.runlocks++;
		return 0;
	case TPL_SR_PUT:
		ss.puts++;
		if (ss.fail_put)
			return EBUSY;
		old = ss.rates;
		oldn = ss.nrates;
		ss.rates = *rates;
		ss.nrates = *nrates;
		*rates = old;		/* handed back for freeing */
		*nrates = oldn;
		return 0;
	}
	return EINVAL;
}

static int
sysctl_rates(const char *newtext, char *old, size_t oldlen, size_t *oldidx,
    intmax_t arg2)
{
	struct sysctl_req req;
	int error;

	memset(&req, 0, sizeof(req));
	req.newptr = newtext;
	req.newlen = newtext != NULL ? strlen(newtext) : 0;
	req.oldptr = old;
	req.oldlen = oldlen;
	ss.ctx_seen = NULL;
	error = stats_tpl_sample_rates(NULL, (void *)subsys_cb, arg2, &req);
	if (oldidx != NULL)
		*oldidx = req.oldidx;
	ck_assert_int_eq(ss.locked, 0);
	return error;
}

START_TEST(sysctl_read_and_write)
{
	char old[256], want[256];
	size_t idx;

	/* An empty list reads as "". */
	ck_assert_int_eq(sysctl_rates(NULL, old, sizeof(old), &idx, 0), 0);
	ck_assert_str_eq(old, "");
	ck_assert_uint_eq(idx, 1);
	ck_assert_int_eq(ss.gets, 1);
	ck_assert_int_eq(ss.runlocks, 1);
	/* Write: the subsystem gets the new list through TPL_SR_PUT. */
	ck_assert_int_eq(sysctl_rates("A=50, D=25", NULL, 0, NULL, 0), 0);
	ck_assert_int_eq(ss.puts, 1);
	ck_assert_int_eq(ss.nrates, 2);
	ck_assert_int_eq(ss.rates[0].tpl_slot_id, ida);
	ck_assert_uint_eq(ss.rates[1].tpl_sample_pct, 25);
	/* Read it back in normative form; a size probe says how much. */
	snprintf(want, sizeof(want), "\"A\":%u=50,\"D\":%u=25", hash_of(ida),
	    hash_of(idd));
	ck_assert_int_eq(sysctl_rates(NULL, NULL, 0, &idx, 0), 0);
	ck_assert_uint_eq(idx, strlen(want) + 1);
	ck_assert_int_eq(sysctl_rates(NULL, old, sizeof(old), &idx, 0), 0);
	ck_assert_str_eq(old, want);
	ck_assert_int_eq(sysctl_rates(NULL, old, strlen(want), &idx, 0),
	    ENOSPC);
	ck_assert_uint_eq(idx, strlen(want) + 1);
	/* Read and write at once: the old value comes back. */
	ck_assert_int_eq(sysctl_rates(":1=0", old, sizeof(old), &idx, 0),
	    ESRCH);
	ck_assert_int_eq(sysctl_rates("B=10", old, sizeof(old), &idx, 0), 0);
	ck_assert_str_eq(old, want);
	ck_assert_int_eq(ss.nrates, 1);
	/* An empty write turns sampling off. */
	ck_assert_int_eq(sysctl_rates("", NULL, 0, NULL, 0), 0);
	ck_assert_int_eq(ss.nrates, 0);
	ck_assert_ptr_null(ss.rates);
	ck_assert_int_eq(ss.gets, ss.runlocks);
}
END_TEST

START_TEST(sysctl_write_errors)
{
	struct sysctl_req req;
	int puts;

	ck_assert_int_eq(sysctl_rates("C=70", NULL, 0, NULL, 0), 0);
	puts = ss.puts;
	ck_assert_int_eq(sysctl_rates("A=50,B", NULL, 0, NULL, 0), EINVAL);
	ck_assert_int_eq(sysctl_rates("A=60,B=41", NULL, 0, NULL, 0), EINVAL);
	ck_assert_int_eq(sysctl_rates("A=101", NULL, 0, NULL, 0), EINVAL);
	ck_assert_int_eq(sysctl_rates("nosuch=1", NULL, 0, NULL, 0), ESRCH);
	ck_assert_int_eq(ss.puts, puts);	/* nothing handed over */
	ck_assert_int_eq(ss.nrates, 1);
	ck_assert_uint_eq(ss.rates[0].tpl_sample_pct, 70);
	/* An embedded NUL. */
	memset(&req, 0, sizeof(req));
	req.newptr = "A=1\0B=2";
	req.newlen = 7;
	ck_assert_int_eq(stats_tpl_sample_rates(NULL, (void *)subsys_cb, 0,
	    &req), EINVAL);
	/* Callback failures are passed on; the new list is not leaked. */
	ss.fail_put = 1;
	ck_assert_int_eq(sysctl_rates("A=1", NULL, 0, NULL, 0), EBUSY);
	ss.fail_put = 0;
	ss.fail_get = 1;
	ck_assert_int_eq(sysctl_rates(NULL, NULL, 0, NULL, 0), EIO);
	ss.fail_get = 0;
	/* A list the subsystem corrupted: the read cannot name it. */
	{
		struct stats_tpl_sample_rate bogus = { 4242, 1 }, *keep;
		int keepn;

		keep = ss.rates;
		keepn = ss.nrates;
		ss.rates = &bogus;
		ss.nrates = 1;
		ck_assert_int_eq(sysctl_rates(NULL, NULL, 0, NULL, 0), ENOENT);
		ss.rates = keep;
		ss.nrates = keepn;
	}
	/* Arguments. */
	ck_assert_int_eq(stats_tpl_sample_rates(NULL, NULL, 0, &req), EINVAL);
	ck_assert_int_eq(stats_tpl_sample_rates(NULL, (void *)subsys_cb, 0,
	    NULL), EINVAL);
	ck_assert_int_eq(stats_tpl_sample_rates(NULL, (void *)subsys_cb, -1,
	    &req), EINVAL);
	free(ss.rates);
	ss.rates = NULL;
	ss.nrates = 0;
}
END_TEST

START_TEST(sysctl_context_memory)
{
	/* arg2 > 0: one zeroed context of that size for every callback. */
	ck_assert_int_eq(sysctl_rates("A=5", NULL, 0, NULL, 64), 0);
	ck_assert_ptr_nonnull(ss.ctx_seen);
	ck_assert(ss.ctx_zero);
	ck_assert_int_eq(sysctl_rates(NULL, NULL, 0, NULL, 0), 0);
	ck_assert_ptr_null(ss.ctx_seen);
	free(ss.rates);
	ss.rates = NULL;
	ss.nrates = 0;
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("sample");
	TCase *tc = tcase_create("sample");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, dice_deterministic_per_seed);
	tcase_add_test(tc, dice_weighted_across_seeds);
	tcase_add_test(tc, dice_edges);
	tcase_add_test(tc, dice_neighbouring_seeds_spread);
	tcase_add_test(tc, dice_without_seed_uses_getrandom);
	tcase_add_test(tc, rates_parse_every_form);
	tcase_add_test(tc, rates_parse_errors);
	tcase_add_test(tc, rates_format_and_round_trip);
	tcase_add_test(tc, sysctl_read_and_write);
	tcase_add_test(tc, sysctl_write_errors);
	tcase_add_test(tc, sysctl_context_memory);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
