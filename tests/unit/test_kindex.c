/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_kindex.c: the registry's kstat indexes — lookups by handle and by
 * name, duplicates refused, the kstat(1M) order checked against a sort
 * through random additions and removals (read at once and in rounds),
 * seeks at and after a key (also
 * one no entry has), and growth of the tables; names about the 8-byte
 * prefixes the skip list compares first.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <strings.h>

#include "kindex.h"
#include "unit.h"

struct item {
	struct kx_entry	 e;
	char		 module[32];
	char		 name[32];
	bool		 in;
};

static void
item_set(struct item *it, uint32_t handle, const char *m, int32_t inst,
    const char *n)
{
	memset(it, 0, sizeof(*it));
	snprintf(it->module, sizeof(it->module), "%s", m);
	snprintf(it->name, sizeof(it->name), "%s", n);
	it->e.handle = handle;
	it->e.instance = inst;
	it->e.module = it->module;
	it->e.name = it->name;
	it->e.item = it;
}

START_TEST(lookups)
{
	struct kindex *x;
	struct item a, b, c, dup;

	ck_assert_int_eq(kindex_new(&x), 0);
	item_set(&a, 1, "app", 0, "req");
	item_set(&b, 2, "app", 1, "req");
	item_set(&c, 3, "App", 0, "req");
	ck_assert_int_eq(kindex_add(x, &a.e), 0);
	ck_assert_int_eq(kindex_add(x, &b.e), 0);
	ck_assert_int_eq(kindex_add(x, &c.e), 0);
	ck_assert_uint_eq(kindex_count(x), 3);
	ck_assert_ptr_eq(kindex_by_handle(x, 2), &b.e);
	ck_assert_ptr_null(kindex_by_handle(x, 4));
	ck_assert_ptr_eq(kindex_by_name(x, "app", 0, "req"), &a.e);
	ck_assert_ptr_eq(kindex_by_name(x, "App", 0, "req"), &c.e);
	ck_assert_ptr_null(kindex_by_name(x, "app", 2, "req"));
	ck_assert_ptr_null(kindex_by_name(x, "app", 0, "Req"));
	/* The same handle, or the same name, again: refused, no change. */
	item_set(&dup, 2, "other", 0, "x");
	ck_assert_int_eq(kindex_add(x, &dup.e), -EEXIST);
	item_set(&dup, 9, "app", 1, "req");
	ck_assert_int_eq(kindex_add(x, &dup.e), -EEXIST);
	ck_assert_uint_eq(kindex_count(x), 3);
	kindex_remove(x, &b.e);
	ck_assert_ptr_null(kindex_by_handle(x, 2));
	ck_assert_ptr_null(kindex_by_name(x, "app", 1, "req"));
	ck_assert_ptr_eq(kindex_by_handle(x, 3), &c.e);
	/* Now the name is free. */
	ck_assert_int_eq(kindex_add(x, &dup.e), 0);
	ck_assert_ptr_eq(kindex_by_name(x, "app", 1, "req"), &dup.e);
	kindex_free(x);
}
END_TEST

START_TEST(order_is_kstats)
{
	struct kindex *x;
	struct item it[4];
	struct kx_entry *e;

	ck_assert_int_eq(kindex_new(&x), 0);
	/* kstat(1M): module and name without case, instance by number;
	 * then exact names so that every entry has one place. */
	item_set(&it[0], 1, "b", 10, "x");
	item_set(&it[1], 2, "B", 2, "x");
	item_set(&it[2], 3, "a", 2, "Z");
	item_set(&it[3], 4, "a", 2, "y");
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(kindex_add(x, &it[i].e), 0);
	e = kindex_seek(x, NULL, 0, NULL, false);
	ck_assert_ptr_eq(e, &it[3].e);
	e = kindex_next(x, e);
	ck_assert_ptr_eq(e, &it[2].e);
	e = kindex_next(x, e);
	ck_assert_ptr_eq(e, &it[1].e);
	e = kindex_next(x, e);
	ck_assert_ptr_eq(e, &it[0].e);
	ck_assert_ptr_null(kindex_next(x, e));
	/* At, after, and between keys. */
	ck_assert_ptr_eq(kindex_seek(x, "a", 2, "Z", false), &it[2].e);
	ck_assert_ptr_eq(kindex_seek(x, "a", 2, "Z", true), &it[1].e);
	ck_assert_ptr_eq(kindex_seek(x, "a", 3, "", false), &it[1].e);
	ck_assert_ptr_eq(kindex_seek(x, "b", 10, "x", false), &it[0].e);
	ck_assert_ptr_null(kindex_seek(x, "b", 10, "x", true));
	ck_assert_ptr_null(kindex_seek(x, "c", 0, "", false));
	ck_assert_ptr_eq(kindex_seek(x, "", 0, "", true), &it[3].e);
	kindex_free(x);
}
END_TEST

static int
item_cmp(const void *a, const void *b)
{
	const struct item *x = *(const struct item *const *)a;
	const struct item *y = *(const struct item *const *)b;

	return kindex_cmp(x->module, x->e.instance, x->name, y->module,
	    y->e.instance, y->name);
}

/* The walk of x is its entries in it[0..nit) marked in, sorted by
 * kindex_cmp(). Returns: how many; sorted: they, in order. */
static size_t
check_order(struct kindex *x, struct item *it, size_t nit,
    struct item **sorted)
{
	struct kx_entry *e;
	size_t i, n = 0;

	for (i = 0; i < nit; i++)
		if (it[i].in)
			sorted[n++] = &it[i];
	ck_assert_uint_eq(kindex_count(x), n);
	qsort(sorted, n, sizeof(*sorted), item_cmp);
	for (i = 0, e = kindex_seek(x, NULL, 0, NULL, false); i < n;
	    i++, e = kindex_next(x, e))
		ck_assert_ptr_eq(e, &sorted[i]->e);
	ck_assert_ptr_null(e);
	return n;
}

#define NRAND	20000

START_TEST(random_against_sort)
{
	static struct item it[NRAND];
	static struct item *sorted[NRAND];
	struct kindex *x;
	struct kx_entry *e;
	uint64_t s = 42;
	size_t i, n, k;

	ck_assert_int_eq(kindex_new(&x), 0);
	for (i = 0; i < NRAND; i++) {
		char m[16], nm[16];

		snprintf(m, sizeof(m), "%c%u", "aAbB"[unit_rnd(&s) % 4],
		    (unsigned)(unit_rnd(&s) % 50));
		snprintf(nm, sizeof(nm), "n%u", (unsigned)i);
		item_set(&it[i], (uint32_t)i + 1, m,
		    (int32_t)(unit_rnd(&s) % 7), nm);
		ck_assert_int_eq(kindex_add(x, &it[i].e), 0);
		it[i].in = true;
	}
	/* Remove a third at random, and add some back. */
	for (i = 0; i < NRAND / 3; i++) {
		k = unit_rnd(&s) % NRAND;
		if (it[k].in) {
			kindex_remove(x, &it[k].e);
			it[k].in = false;
		}
	}
	for (i = 0; i < NRAND / 10; i++) {
		k = unit_rnd(&s) % NRAND;
		if (!it[k].in) {
			ck_assert_int_eq(kindex_add(x, &it[k].e), 0);
			it[k].in = true;
		}
	}
	for (i = 0; i < NRAND; i++) {
		ck_assert_ptr_eq(kindex_by_handle(x, (uint32_t)i + 1),
		    it[i].in ? &it[i].e : NULL);
		ck_assert_ptr_eq(kindex_by_name(x, it[i].module,
		    it[i].e.instance, it[i].name), it[i].in ? &it[i].e : NULL);
	}
	n = check_order(x, it, NRAND, sorted);
	/* Resuming after any entry gives the rest, as a reader resumes
	 * after the last kstat it was sent. */
	for (i = 0; i + 1 < n; i += 97) {
		e = kindex_seek(x, sorted[i]->module, sorted[i]->e.instance,
		    sorted[i]->name, true);
		ck_assert_ptr_eq(e, &sorted[i + 1]->e);
	}
	for (i = 0; i < NRAND; i++)
		if (it[i].in)
			kindex_remove(x, &it[i].e);
	ck_assert_uint_eq(kindex_count(x), 0);
	ck_assert_ptr_null(kindex_seek(x, NULL, 0, NULL, false));
	kindex_free(x);
}
END_TEST

/*
 * Entries added find their place when the order is next read: few
 * against a long list are walked to it one by one, many are merged in one
 * pass. Rounds of random additions and removals of every size, the order
 * read after each and checked against a sort, take both ways, and
 * removals of entries placed and not yet placed. A walk that meets
 * additions made after its cursor sees those that sort after it.
 */
#define NSETTLE	4000


START_TEST(order_settles_when_read)
{
	static struct item it[NSETTLE];
	static struct item *sorted[NSETTLE];
	static const size_t batch[] = { 1, 2, 3, 7, 40, 129, 1000, 2500 };
	struct kindex *x;
	struct kx_entry *e;
	uint64_t s = 7;
	size_t i, j, k, r;

	ck_assert_int_eq(kindex_new(&x), 0);
	for (i = 0; i < NSETTLE; i++) {
		char m[16], nm[16];

		snprintf(m, sizeof(m), "m%u", (unsigned)(unit_rnd(&s) % 40));
		snprintf(nm, sizeof(nm), "s%u", (unsigned)i);
		item_set(&it[i], (uint32_t)i + 1, m,
		    (int32_t)(unit_rnd(&s) % 3), nm);
	}
	for (r = 0; r < 60; r++) {
		size_t b = batch[unit_rnd(&s) % (sizeof(batch) /
		    sizeof(batch[0]))];

		for (j = 0; j < b; j++) {
			k = unit_rnd(&s) % NSETTLE;
			if (it[k].in && unit_rnd(&s) % 3 == 0) {
				kindex_remove(x, &it[k].e);
				it[k].in = false;
			} else if (!it[k].in) {
				ck_assert_int_eq(kindex_add(x, &it[k].e), 0);
				it[k].in = true;
			}
		}
		(void)check_order(x, it, NSETTLE, sorted);
	}
	/* A walk halfway: of two entries added now, the one after the
	 * cursor is met, the one before is not. */
	for (i = 0; i < NSETTLE; i++)
		if (it[i].in) {
			kindex_remove(x, &it[i].e);
			it[i].in = false;
		}
	for (i = 0; i < 100; i++) {
		item_set(&it[i], (uint32_t)i + 1, "walk", 0, "");
		snprintf(it[i].name, sizeof(it[i].name), "w%03u",
		    (unsigned)(2 * i + 1));
		ck_assert_int_eq(kindex_add(x, &it[i].e), 0);
		it[i].in = true;
	}
	e = kindex_seek(x, "walk", 0, "w051", false);
	ck_assert_str_eq(((struct item *)e->item)->name, "w051");
	item_set(&it[100], 101, "walk", 0, "w002");
	item_set(&it[101], 102, "walk", 0, "w052");
	ck_assert_int_eq(kindex_add(x, &it[100].e), 0);
	ck_assert_int_eq(kindex_add(x, &it[101].e), 0);
	e = kindex_next(x, e);
	ck_assert_ptr_eq(e, &it[101].e);
	e = kindex_next(x, e);
	ck_assert_str_eq(((struct item *)e->item)->name, "w053");
	/* Freed with entries placed and not yet placed (LeakSanitizer
	 * checks what the index allocated for them). */
	item_set(&it[102], 103, "walk", 0, "w000");
	ck_assert_int_eq(kindex_add(x, &it[102].e), 0);
	kindex_free(x);
	ck_assert_ptr_null(it[102].e.next);
	ck_assert_ptr_null(it[0].e.next);
}
END_TEST

/*
 * The skip list decides most comparisons from 8-byte case-folded
 * prefixes held in each entry (kindex.c kx_prefix()). Names of 0 to 12
 * bytes, from an alphabet of letters in both cases, a byte above 127 and
 * '_', around that 8-byte edge, with long shared prefixes: the walk must
 * still be kindex_cmp()'s order, and every seek, at and after a key that
 * may or may not be there, must land where the sorted list says.
 */
#define NEDGE	6000

static void
edge_name(uint64_t *s, char *out)
{
	static const char abc[] = "aAbB_\xe9";
	size_t len = (size_t)(unit_rnd(s) % 13), j;

	/* Most names share their first 6 to 9 bytes. */
	for (j = 0; j < len; j++)
		out[j] = j < 7 + unit_rnd(s) % 3 && unit_rnd(s) % 8 != 0 ?
		    'a' : abc[unit_rnd(s) % (sizeof(abc) - 1)];
	out[len] = '\0';
}

START_TEST(prefixes_keep_the_order)
{
	static struct item it[NEDGE];
	static struct item *sorted[NEDGE];
	struct kindex *x;
	struct kx_entry *e;
	uint64_t s = 7;
	size_t i, n = 0, lo;

	ck_assert_int_eq(kindex_new(&x), 0);
	for (i = 0; i < NEDGE; i++) {
		char m[16], nm[16];

		edge_name(&s, m);
		edge_name(&s, nm);
		item_set(&it[i], (uint32_t)i + 1, m,
		    (int32_t)(unit_rnd(&s) % 3), nm);
		if (kindex_add(x, &it[i].e) == 0)
			sorted[n++] = &it[i];
	}
	qsort(sorted, n, sizeof(*sorted), item_cmp);
	for (i = 0, e = kindex_seek(x, NULL, 0, NULL, false); i < n;
	    i++, e = kindex_next(x, e))
		ck_assert_ptr_eq(e, &sorted[i]->e);
	ck_assert_ptr_null(e);
	for (i = 0; i < 3000; i++) {
		char m[16], nm[16];
		int32_t inst = (int32_t)(unit_rnd(&s) % 3);
		bool after = unit_rnd(&s) % 2 == 0;

		edge_name(&s, m);
		edge_name(&s, nm);
		/* The first sorted entry past the key (at it, if !after). */
		for (lo = 0; lo < n; lo++) {
			int c = kindex_cmp(sorted[lo]->module,
			    sorted[lo]->e.instance, sorted[lo]->name, m, inst,
			    nm);

			if (after ? c > 0 : c >= 0)
				break;
		}
		ck_assert_ptr_eq(kindex_seek(x, m, inst, nm, after),
		    lo < n ? &sorted[lo]->e : NULL);
	}
	for (i = 0; i < n; i += 2)
		kindex_remove(x, &sorted[i]->e);
	for (i = 1, e = kindex_seek(x, NULL, 0, NULL, false); i < n;
	    i += 2, e = kindex_next(x, e))
		ck_assert_ptr_eq(e, &sorted[i]->e);
	ck_assert_ptr_null(e);
	kindex_free(x);
}
END_TEST

/* The name hash statsd used before it was keyed: 32-bit FNV-1a over
 * module, ':', the instance's four bytes, ':', name. */
static uint32_t
old_fnv(uint32_t h, const uint8_t *p, size_t n)
{
	while (n-- > 0)
		h = (h ^ *p++) * 16777619u;
	return h;
}

static uint32_t
old_name_hash(const char *m, int32_t inst, const char *n)
{
	uint8_t ib[4] = { (uint8_t)inst, (uint8_t)(inst >> 8),
	    (uint8_t)(inst >> 16), (uint8_t)((uint32_t)inst >> 24) };
	uint32_t h = old_fnv(2166136261u, (const uint8_t *)m, strlen(m));

	h = old_fnv(h, (const uint8_t *)":", 1);
	h = old_fnv(h, ib, 4);
	h = old_fnv(h, (const uint8_t *)":", 1);
	return old_fnv(h, (const uint8_t *)n, strlen(n));
}

/*
 * Hash flooding: 1500 names that all share the low 12 bits of the old
 * hash, as a local user could compute them offline, made one run of the
 * name table 1500 long, so every lookup of one walked hundreds of slots
 * and adding them cost a quadratic number. With the keyed hash they
 * spread like any names.
 */
#define FLOOD_N		1500
START_TEST(flood_names_spread)
{
	struct item *it = calloc(FLOOD_N, sizeof(*it));
	struct kindex *x;
	uint32_t want = old_name_hash("flood", 0, "seed") & 0xfff, c = 0;
	char n[32];
	size_t i;

	ck_assert_ptr_nonnull(it);
	ck_assert_int_eq(kindex_new(&x), 0);
	for (i = 0; i < FLOOD_N; i++) {
		do
			snprintf(n, sizeof(n), "n%" PRIu32, c++);
		while ((old_name_hash("flood", 0, n) & 0xfff) != want);
		item_set(&it[i], (uint32_t)i + 1, "flood", 0, n);
		ck_assert_int_eq(kindex_add(x, &it[i].e), 0);
	}
	ck_assert_uint_eq(kindex_count(x), FLOOD_N);
	/* Linear probing at a load of at most a half keeps the longest run
	 * to tens of slots for any names the key does not favour. */
	ck_assert_uint_lt(kindex_name_probe_max(x), 64);
	for (i = 0; i < FLOOD_N; i++)
		ck_assert_ptr_eq(kindex_by_name(x, "flood", 0, it[i].name),
		    &it[i].e);
	for (i = 0; i < FLOOD_N; i++)
		kindex_remove(x, &it[i].e);
	ck_assert_uint_eq(kindex_count(x), 0);
	kindex_free(x);
	free(it);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("kindex");
	TCase *tc = tcase_create("kindex");

	tcase_add_test(tc, lookups);
	tcase_add_test(tc, order_is_kstats);
	tcase_add_test(tc, random_against_sort);
	tcase_add_test(tc, order_settles_when_read);
	tcase_add_test(tc, prefixes_keep_the_order);
	tcase_add_test(tc, flood_names_spread);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
