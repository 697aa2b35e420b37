/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_rx.c: the linear-time pattern engine: ERE and glob syntax, every
 * compile error, agreement with glibc's regexec(3) and fnmatch(3) on
 * random patterns and subjects (the libraries statsd used before), the
 * bound on a match's work, and the hostile patterns that once hung and
 * bloated statsd.
 */
#include <errno.h>
#include <fnmatch.h>
#include <regex.h>

#include "rx.h"
#include "unit.h"

static struct rx *
compile(const char *text, enum rx_syntax syntax)
{
	const char *why = NULL;
	struct rx *re = NULL;
	size_t off;

	ck_assert_msg(rx_compile(text, strlen(text), syntax, &re, &why,
	    &off) == 0, "%s: %s", text, why != NULL ? why : "?");
	return re;
}

static bool
m(const char *pat, enum rx_syntax syntax, const char *s)
{
	struct rx *re = compile(pat, syntax);
	bool r = rx_match(re, s, strlen(s), NULL);

	rx_free(re);
	return r;
}

static void
refused(const char *pat, enum rx_syntax syntax, const char *what,
    size_t at)
{
	const char *why = NULL;
	struct rx *re = NULL;
	size_t off = 99;

	ck_assert_int_eq(rx_compile(pat, strlen(pat), syntax, &re, &why, &off),
	    -EINVAL);
	ck_assert_ptr_null(re);
	ck_assert_msg(why != NULL && strstr(why, what) != NULL,
	    "%s: wanted \"%s\", got \"%s\"", pat, what, why);
	if (at != (size_t)-1)
		ck_assert_uint_eq(off, at);
}

START_TEST(ere_syntax)
{
	ck_assert(m("abc", RX_ERE, "xxabcxx"));
	ck_assert(!m("abd", RX_ERE, "xxabcxx"));
	ck_assert(m("^abc$", RX_ERE, "abc"));
	ck_assert(!m("^abc$", RX_ERE, "abcd"));
	ck_assert(!m("^b", RX_ERE, "ab"));
	ck_assert(m("a.c", RX_ERE, "a-c"));
	ck_assert(m("^(ab|cd)+$", RX_ERE, "abcdab"));
	ck_assert(!m("^(ab|cd)+$", RX_ERE, "abce"));
	ck_assert(m("^a*$", RX_ERE, ""));
	ck_assert(m("^a?b$", RX_ERE, "b"));
	ck_assert(m("^a{2,3}$", RX_ERE, "aaa"));
	ck_assert(!m("^a{2,3}$", RX_ERE, "aaaa"));
	ck_assert(!m("^a{2,3}$", RX_ERE, "a"));
	ck_assert(m("^a{2}$", RX_ERE, "aa"));
	ck_assert(m("^a{2,}$", RX_ERE, "aaaaaa"));
	ck_assert(m("^a{,2}$", RX_ERE, ""));
	ck_assert(m("^a{0}b$", RX_ERE, "b"));
	ck_assert(m("^[a-c]+$", RX_ERE, "abcab"));
	ck_assert(!m("^[^a-c]+$", RX_ERE, "abd"));
	ck_assert(m("^[]a]+$", RX_ERE, "]a]"));
	ck_assert(m("^[a-]+$", RX_ERE, "-a"));
	ck_assert(m("^[[:digit:]]+$", RX_ERE, "0123"));
	ck_assert(!m("^[[:alpha:]]+$", RX_ERE, "ab1"));
	ck_assert(m("^\\.\\*$", RX_ERE, ".*"));
	ck_assert(m("^\\w+\\s\\W\\S$", RX_ERE, "a_1 -x"));
	ck_assert(m("()", RX_ERE, "x"));
	ck_assert(m("^(|a)b$", RX_ERE, "b"));
	ck_assert(m("^((a*)*)*$", RX_ERE, "aaaa"));
	ck_assert(m("nic[0-9]+", RX_ERE, "e1000g:nic12"));
}
END_TEST

/* A match may start after every thread has died: fuzz_rx found "$" on
 * "ab" refused, the VM stopping at the first position with no thread
 * alive as it does for a glob, though an ERE starts a new one at each. */
START_TEST(ere_starts_after_dead_threads)
{
	ck_assert(m("$", RX_ERE, "ab"));
	ck_assert(m("b$|$", RX_ERE, "xa"));
	ck_assert(m("^a|$", RX_ERE, "ba"));
	ck_assert(m("(^x)*$", RX_ERE, "yz"));
	ck_assert(m("^|c", RX_ERE, "abc"));
	ck_assert(!m("^a", RX_ERE, "ba"));
	ck_assert(!m("^$", RX_ERE, "ab"));
	/* '^' in a repeated group holds only at the start, as POSIX has
	 * it (glibc's regexec(3) matches this one). */
	ck_assert(!m("(^ab|cd)+$", RX_ERE, "cdab"));
	ck_assert(m("(^ab|cd)+$", RX_ERE, "abcd"));
}
END_TEST

START_TEST(glob_syntax)
{
	ck_assert(m("*", RX_GLOB, ""));
	ck_assert(m("cpu*", RX_GLOB, "cpu_stat0"));
	ck_assert(!m("cpu*", RX_GLOB, "xcpu"));
	ck_assert(m("c?u", RX_GLOB, "cpu"));
	ck_assert(!m("c?u", RX_GLOB, "cu"));
	ck_assert(m("[a-c]x", RX_GLOB, "bx"));
	ck_assert(m("[!a-c]x", RX_GLOB, "dx"));
	ck_assert(!m("[^a-c]x", RX_GLOB, "ax"));
	ck_assert(m("a\\*b", RX_GLOB, "a*b"));
	ck_assert(!m("a\\*b", RX_GLOB, "axb"));
	ck_assert(m("a[b", RX_GLOB, "a[b"));
	ck_assert(m("a.b", RX_GLOB, "a.b"));
	ck_assert(!m("a.b", RX_GLOB, "axb"));
	ck_assert(m("^$", RX_GLOB, "^$"));
}
END_TEST

START_TEST(errors)
{
	refused("(ab", RX_ERE, "unmatched (", 0);
	refused("ab)", RX_ERE, "unmatched )", 2);
	refused("a[bc", RX_ERE, "unmatched [", 1);
	refused("*a", RX_ERE, "nothing to repeat", 0);
	refused("a|+", RX_ERE, "nothing to repeat", 2);
	refused("(a)\\1", RX_ERE, "backreferences are not supported", 3);
	refused("^(a|a)*\\1*$", RX_ERE, "backreferences", 7);
	refused("a\\", RX_ERE, "trailing backslash", 1);
	/* fnmatch(3) matches nothing with it; rx took it as a literal
	 * backslash (fuzz_rx: "A\\" matched "A\\"). */
	refused("a\\", RX_GLOB, "trailing backslash", 1);
	ck_assert(m("a\\\\", RX_GLOB, "a\\"));
	refused("a\\b", RX_ERE, "not supported", 1);
	refused("a{1,256}", RX_ERE, "over 255", 1);
	refused("a{3,2}", RX_ERE, "n < m", 1);
	refused("a{1", RX_ERE, "invalid {m,n}", 1);
	refused("a{x}", RX_ERE, "invalid {m,n}", 1);
	refused("[[:nope:]]", RX_ERE, "unknown character class", 1);
	refused("[z-a]", RX_ERE, "invalid range end", 3);
	refused("(a{1,255}){1,255}", RX_ERE, "pattern too large", (size_t)-1);
	refused("(((((((((((((((((((((((((((((((((((((((((((((((((((((((((("
	    "(((((((((((((((((((((((((((((((((((((((((((((((((((((((((((("
	    "((((((((((((((((((((a", RX_ERE, "nested too deeply", (size_t)-1);
}
END_TEST

START_TEST(too_long)
{
	char *p = malloc(RX_MAX_PATTERN + 2);
	const char *why;
	struct rx *re;
	size_t off;

	memset(p, 'a', RX_MAX_PATTERN + 1);
	p[RX_MAX_PATTERN + 1] = '\0';
	ck_assert_int_eq(rx_compile(p, strlen(p), RX_ERE, &re, &why, &off),
	    -EINVAL);
	ck_assert_str_eq(why, "pattern too long");
	p[RX_MAX_PATTERN] = '\0';
	ck_assert_int_eq(rx_compile(p, strlen(p), RX_ERE, &re, &why, &off),
	    0);
	ck_assert(rx_match(re, p, strlen(p), NULL));
	rx_free(re);
	free(p);
}
END_TEST

/* The patterns of an attack that blocked statsd's loop: a backtracking
 * engine takes exponential time on them; this one a bounded number of
 * steps. */
START_TEST(hostile_patterns_are_linear)
{
	static const char *const pats[] = {
		"^(a|a)*$", "^(a|aa)*b$", "^(a*)*b$", "(a+)+b",
		"^(a|a?)+b$", "(x+x+)+y", "(a{1,16}){1,15}",
		"^([a-z]+)*[0-9]$",
	};
	char s[4096];
	size_t i, len;

	memset(s, 'a', sizeof(s));
	for (i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
		struct rx *re = compile(pats[i], RX_ERE);

		for (len = 30; len <= sizeof(s); len *= 4) {
			uint64_t steps = 0;

			(void)rx_match(re, s, len, &steps);
			ck_assert_msg(steps <= 2 * (len + 1) * (rx_size(re) + 1),
			    "%s on %zu bytes: %llu steps", pats[i], len,
			    (unsigned long long)steps);
		}
		rx_free(re);
	}
}
END_TEST

/* A random ERE from a grammar both engines read alike. */
static void
gen_ere(uint64_t *rnd, char *out, size_t *n, size_t cap, int depth)
{
	unsigned k = (unsigned)(unit_rnd(rnd) % (depth > 3 ? 5 : 9)), i;
	static const char *const atoms[] = {
		"a", "b", ".", "[ab]", "[^a]", "c",
	};

	if (*n + 16 >= cap)
		k = 0;
	switch (k) {
	case 0: case 1: case 2: case 3: case 4:
		{
			const char *a = atoms[unit_rnd(rnd) % 6];

			memcpy(out + *n, a, strlen(a));
			*n += strlen(a);
		}
		break;
	case 5:		/* concatenation */
		gen_ere(rnd, out, n, cap, depth + 1);
		gen_ere(rnd, out, n, cap, depth + 1);
		return;
	case 6:		/* a group, maybe an alternation */
		out[(*n)++] = '(';
		gen_ere(rnd, out, n, cap, depth + 1);
		if (unit_rnd(rnd) % 2) {
			out[(*n)++] = '|';
			gen_ere(rnd, out, n, cap, depth + 1);
		}
		out[(*n)++] = ')';
		break;
	default:
		out[(*n)++] = '(';
		gen_ere(rnd, out, n, cap, depth + 1);
		out[(*n)++] = ')';
		break;
	}
	/* A quantifier on what was just written. */
	i = (unsigned)(unit_rnd(rnd) % 8);
	if (i == 0)
		out[(*n)++] = '*';
	else if (i == 1)
		out[(*n)++] = '+';
	else if (i == 2)
		out[(*n)++] = '?';
	else if (i == 3)
		*n += (size_t)sprintf(out + *n, "{%u,%u}",
		    (unsigned)(unit_rnd(rnd) % 2), 1 + (unsigned)(unit_rnd(rnd) % 2));
}

START_TEST(agrees_with_regexec)
{
	uint64_t rnd = 0x5eedf00dULL;
	int t, j;

	for (t = 0; t < 3000; t++) {
		char pat[512], full[520], subj[16];
		size_t n = 0, len;
		regex_t posix;
		struct rx *re;

		gen_ere(&rnd, pat, &n, 200, 0);
		pat[n] = '\0';
		/* Anchor some of them. */
		snprintf(full, sizeof(full), "%s%s%s",
		    unit_rnd(&rnd) % 2 ? "^" : "", pat,
		    unit_rnd(&rnd) % 2 ? "$" : "");
		ck_assert_int_eq(regcomp(&posix, full, REG_EXTENDED | REG_NOSUB),
		    0);
		re = compile(full, RX_ERE);
		for (j = 0; j < 20; j++) {
			size_t k;

			len = (size_t)(unit_rnd(&rnd) % 8);
			for (k = 0; k < len; k++)
				subj[k] = "abc"[unit_rnd(&rnd) % 3];
			subj[len] = '\0';
			ck_assert_msg(rx_match(re, subj, len, NULL) ==
			    (regexec(&posix, subj, 0, NULL, 0) == 0),
			    "/%s/ on \"%s\": rx %d", full, subj,
			    rx_match(re, subj, len, NULL));
		}
		regfree(&posix);
		rx_free(re);
	}
}
END_TEST

START_TEST(agrees_with_fnmatch)
{
	static const char *const parts[] = {
		"a", "b", "*", "?", "[ab]", "[!a]", "\\*", "c",
	};
	uint64_t rnd = 0xf17e5ULL;
	int t, j;

	for (t = 0; t < 3000; t++) {
		char pat[64] = "", subj[16];
		size_t k, len;
		struct rx *re;
		int np = 1 + (int)(unit_rnd(&rnd) % 6), i;

		for (i = 0; i < np; i++)
			strcat(pat, parts[unit_rnd(&rnd) % 8]);
		re = compile(pat, RX_GLOB);
		for (j = 0; j < 20; j++) {
			len = (size_t)(unit_rnd(&rnd) % 7);
			for (k = 0; k < len; k++)
				subj[k] = "abc*"[unit_rnd(&rnd) % 4];
			subj[len] = '\0';
			ck_assert_msg(rx_match(re, subj, len, NULL) ==
			    (fnmatch(pat, subj, 0) == 0), "%s on \"%s\"", pat,
			    subj);
		}
		rx_free(re);
	}
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("rx");
	TCase *tc = tcase_create("rx");

	tcase_add_test(tc, ere_syntax);
	tcase_add_test(tc, ere_starts_after_dead_threads);
	tcase_add_test(tc, glob_syntax);
	tcase_add_test(tc, errors);
	tcase_add_test(tc, too_long);
	tcase_add_test(tc, hostile_patterns_are_linear);
	tcase_add_test(tc, agrees_with_regexec);
	tcase_add_test(tc, agrees_with_fnmatch);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
