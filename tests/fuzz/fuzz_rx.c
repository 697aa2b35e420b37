/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_rx.c: libFuzzer target for the linear-time pattern engine (rx.h),
 * differential against glibc: an ERE against regcomp(3)/regexec(3) with
 * REG_EXTENDED | REG_NOSUB (rx's ERE is unanchored and without
 * REG_NEWLINE: '^' and '$' are the subject's ends, '.' and negated
 * brackets match '\n'), a glob against fnmatch(3) with no flags (the
 * whole subject; '\' quotes; '*' and '?' match '/' and a leading '.').
 *
 * The input is a mode byte (bit 0: glob), the pattern, a NUL, and the
 * subject. Where both engines take the pattern, they must give the same
 * answer on the subject, or the target aborts with both printed. rx's
 * work is checked too: a match may take at most 2 x (subject length + 1)
 * x (program size + 1) steps (the bound test_rx.c holds it to), and a
 * pattern compiles to at most RX_MAX_INSNS instructions.
 *
 * Left out, because the two engines legitimately read them differently:
 *   - a NUL in the subject: regexec(3) and fnmatch(3) stop there (and
 *     glibc's '.' never matches NUL), rx takes a length;
 *   - bracket expressions with collating elements "[." and equivalence
 *     classes "[=": POSIX has them, rx has neither (it reads the
 *     characters as members of the set);
 *   - what rx refuses (backreferences \1-\9, the GNU word and buffer
 *     anchors \b \B \< \> \` \', counts over 255) and what glibc refuses
 *     (a range ending in a class, "a{" and other unfinished intervals):
 *     only the patterns both compile are compared;
 *   - '^' and '$' inside a group of an ERE: glibc lets a '^' in a
 *     repeated group match at the start of every repetition, so that
 *     "(^ab|cd)+$" matches "cdab", which POSIX's anchor (and rx, and
 *     glibc itself on the group written out three times) does not;
 *   - an ERE anchor next to what a match consumes (a '^' after the
 *     pattern's first byte, a '$' before its last) on a subject with a
 *     newline: without REG_NEWLINE, glibc's DFA still gives the position
 *     after a consumed '\n' the context of a line start, so "^\n^" and
 *     "a.^b" match "\n" and "a\nb", where POSIX's anchors (and rx's)
 *     match only at the subject's ends; found by this fuzzer;
 *   - bytes 0x80-0xff in a glob: fnmatch(3) reads the pattern as
 *     multibyte text (mbsrtowcs) even in the C locale, where such a byte
 *     is an invalid sequence and the pattern is matched byte-wise by
 *     another code path; rx is byte-wise throughout.
 * And glibc's cost is not rx's, which is the reason rx exists: regcomp(3)
 * copies the operand of every '+' (a+ is a a*), so stacked or nested '+'
 * grow its tree exponentially ("a+++++..." takes gigabytes), its epsilon
 * closures grow exponentially with quantifiers stacked on one operand
 * ("^c********{5}$" takes 11 s), and a counted group of alternatives is
 * slower still ("^(a*|b*){255}$" takes a minute). So glibc is only asked
 * about patterns with at most RX_GLIBC_PLUS '+', no more than
 * RX_GLIBC_STACK quantifiers on one operand (a group's last counts as
 * its own: "((a*)*)*" stacks three), and a program of at most
 * RX_GLIBC_INSNS instructions. fnmatch(3) backtracks: k stars cost it
 * up to n^k steps on n bytes, so it is asked about globs of at most
 * RX_FNM_STARS stars, and of one star only on subjects over
 * RX_FNM_LONG bytes. rx runs every pattern it compiles.
 * glibc is used in the C locale (no setlocale()), so its ranges and
 * classes are the byte values rx uses.
 */
#include <fnmatch.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rx.h"

#define RX_GLIBC_PLUS	6
#define RX_GLIBC_STACK	2
#define RX_GLIBC_INSNS	128
#define RX_FNM_STARS	3
#define RX_FNM_LONG	256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Print a pattern or subject with its unprintable bytes escaped. */
static void
show(const char *what, const char *s, size_t len)
{
	size_t i;

	fprintf(stderr, "%s (%zu bytes): \"", what, len);
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
			fputc(c, stderr);
		else
			fprintf(stderr, "\\x%02x", c);
	}
	fprintf(stderr, "\"\n");
}

static void
disagree(const char *engine, const char *pat, size_t plen, const char *subj,
    size_t slen, bool rx, bool libc)
{
	fprintf(stderr, "fuzz_rx: rx and %s disagree\n", engine);
	show("pattern", pat, plen);
	show("subject", subj, slen);
	fprintf(stderr, "rx: %s, %s: %s\n", rx ? "match" : "no match", engine,
	    libc ? "match" : "no match");
	abort();
}

/* The length of the {m,n} at p, or 0 if there is none. */
static size_t
interval(const char *p, size_t len)
{
	size_t i;

	if (len < 2 || p[0] != '{')
		return 0;
	for (i = 1; i < len && (p[i] == ',' || (p[i] >= '0' && p[i] <= '9'));
	    i++)
		;
	return i < len && p[i] == '}' ? i + 1 : 0;
}

/* Does the ERE stack more than RX_GLIBC_STACK quantifiers on one
 * operand, or have more than RX_GLIBC_PLUS '+', or an anchor inside a
 * group? A quoted character and a bracket expression are operands; ')'
 * keeps the run of the group's last operand. */
static bool
glibc_avoid(const char *pat, size_t plen)
{
	size_t i, n = 0, plus = 0;
	int run = 0, depth = 0;

	for (i = 0; i < plen; i++) {
		char c = pat[i];

		if (c == '*' || c == '+' || c == '?' ||
		    (n = interval(pat + i, plen - i)) > 0) {
			if (c == '{')
				i += n - 1;
			if (++run > RX_GLIBC_STACK ||
			    (c == '+' && ++plus > RX_GLIBC_PLUS))
				return true;
		} else if (c == ')') {
			depth--;
			continue;
		} else if (c == '(') {
			depth++;
			run = 0;
		} else if ((c == '^' || c == '$') && depth > 0) {
			return true;
		} else if (c == '\\') {
			i++;
			run = 0;
		} else if (c == '[') {
			/* To its ']' (one right after '[' or "[^" is in it). */
			i++;
			if (i < plen && pat[i] == '^')
				i++;
			if (i < plen && pat[i] == ']')
				i++;
			while (i < plen && pat[i] != ']')
				i++;
			run = 0;
		} else {
			run = 0;
		}
	}
	return false;
}

/* Is the pattern one of those the engines read differently, or that
 * glibc would take too long over on a subject of slen bytes? */
static bool
skipped(const char *pat, size_t plen, bool glob, const char *subj,
    size_t slen)
{
	size_t i, stars = 0;
	bool nl = memchr(subj, '\n', slen) != NULL;

	for (i = 0; i < plen; i++) {
		if (!glob && nl && ((pat[i] == '^' && i > 0) ||
		    (pat[i] == '$' && i + 1 < plen)))
			return true;
		if (glob && (unsigned char)pat[i] >= 0x80)
			return true;
		if (glob && pat[i] == '*' && (++stars > RX_FNM_STARS ||
		    (stars > 1 && slen > RX_FNM_LONG)))
			return true;
		if (pat[i] == '[' && i + 1 < plen &&
		    (pat[i + 1] == '.' || pat[i + 1] == '='))
			return true;
	}
	return !glob && glibc_avoid(pat, plen);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *pat, *subj, *nul, *why;
	size_t plen, slen, off, insns;
	struct rx *re = NULL;
	uint64_t steps = 0;
	char *cpat, *csubj;
	bool glob, rx, libc;
	regex_t posix;

	if (size < 1)
		return 0;
	glob = data[0] & 1;
	pat = (const char *)data + 1;
	nul = memchr(pat, '\0', size - 1);
	if (nul == NULL)
		return 0;
	plen = (size_t)(nul - pat);
	subj = nul + 1;
	slen = size - 1 - plen - 1;
	if (rx_compile(pat, plen, glob ? RX_GLOB : RX_ERE, &re, &why,
	    &off) < 0)
		return 0;
	if (rx_size(re) > RX_MAX_INSNS) {
		show("pattern", pat, plen);
		fprintf(stderr, "fuzz_rx: %zu instructions\n", rx_size(re));
		abort();
	}
	rx = rx_match(re, subj, slen, &steps);
	insns = rx_size(re);
	if (steps > 2 * (slen + 1) * (rx_size(re) + 1)) {
		show("pattern", pat, plen);
		show("subject", subj, slen);
		fprintf(stderr, "fuzz_rx: %llu steps, program of %zu\n",
		    (unsigned long long)steps, rx_size(re));
		abort();
	}
	rx_free(re);
	if (memchr(subj, '\0', slen) != NULL || skipped(pat, plen, glob, subj, slen) ||
	    (!glob && insns > RX_GLIBC_INSNS))
		return 0;
	/* Both of glibc's take NUL-terminated text. */
	cpat = strndup(pat, plen);
	csubj = strndup(subj, slen);
	if (cpat == NULL || csubj == NULL)
		abort();
	if (glob) {
		libc = fnmatch(cpat, csubj, 0) == 0;
		if (rx != libc)
			disagree("fnmatch", pat, plen, subj, slen, rx, libc);
	} else if (regcomp(&posix, cpat, REG_EXTENDED | REG_NOSUB) == 0) {
		libc = regexec(&posix, csubj, 0, NULL, 0) == 0;
		regfree(&posix);
		if (rx != libc)
			disagree("regexec", pat, plen, subj, slen, rx, libc);
	}
	free(cpat);
	free(csubj);
	return 0;
}
