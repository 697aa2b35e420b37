/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rx.h: patterns matched in time linear in the subject — the POSIX
 * extended regular expressions and shell globs that kstat(1M) selectors
 * use, compiled to a Thompson NFA and run as a Pike VM (the construction
 * of Thompson 1968 and of Pike's sam, as in RE2).
 *
 * Patterns come from untrusted peers, so nothing here backtracks: a match
 * costs at most (subject length + 1) x program size steps, and the
 * program is bounded (RX_MAX_INSNS; a {m,n} that would expand past it is
 * refused, not compiled). There are no backreferences, which no linear
 * engine can have.
 *
 * ERE syntax: literals; '.'; bracket expressions with ranges, negation
 * and the classes [:alpha:] [:digit:] [:alnum:] [:upper:] [:lower:]
 * [:space:] [:blank:] [:punct:] [:print:] [:graph:] [:cntrl:]
 * [:xdigit:]; '^' and '$' anchors; '(' ')' groups; '|'; the quantifiers
 * '*', '+', '?', {m}, {m,}, {m,n} and {,n} (m, n <= RX_DUP_MAX); '\'
 * quoting the next character; \w \W \s \S. An ERE is unanchored: it
 * matches if it matches any substring (regexec(3) without REG_NOSUB's
 * flags). A glob (fnmatch(3) without flags) matches the whole subject:
 * '*', '?', bracket expressions ('!' or '^' negates), '\' quoting.
 */
#ifndef STATSD_COMMON_RX_H
#define STATSD_COMMON_RX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RX_MAX_INSNS	2048	/* instructions in one program */
#define RX_DUP_MAX	255	/* largest count in {m,n} (POSIX RE_DUP_MAX) */
#define RX_MAX_PATTERN	1024	/* bytes of pattern text */

enum rx_syntax {
	RX_ERE = 0,		/* unanchored extended regular expression */
	RX_GLOB,		/* whole-string shell glob */
};

struct rx;

/*
 * rx_compile: compile the len bytes of text.
 * Returns: 0 and *ret (rx_free() it); -EINVAL with *ret_err set to a
 * static message (what is wrong: "unmatched (", "backreferences are not
 * supported", "pattern too large", ...) and *ret_off to the byte of text
 * where it was found; -ENOMEM.
 */
int rx_compile(const char *text, size_t len, enum rx_syntax syntax,
    struct rx **ret, const char **ret_err, size_t *ret_off);

/*
 * rx_match: does re match s (len bytes)? If steps is not NULL, the work
 * done (VM steps, at most (len + 1) x rx_size(re)) is added to *steps, so
 * that a caller matching many subjects can bound its work.
 * Returns: true or false (false too if scratch memory cannot be had).
 */
bool rx_match(const struct rx *re, const char *s, size_t len,
    uint64_t *steps);

/* The program's size in instructions. */
size_t rx_size(const struct rx *re);

/* NULL-safe. */
void rx_free(struct rx *re);

#endif /* STATSD_COMMON_RX_H */
