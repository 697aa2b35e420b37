/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * invariant.h: run-time checks of internal invariants, on in every build
 * type (NDEBUG does not touch them), as Varnish keeps its assert(), AN()
 * and AZ() in production: a broken invariant of shared memory or of
 * persistent state (a store offset out of its arena, a slot queue run
 * over, a seqlock's parity) would otherwise corrupt what readers map or
 * what the next start loads, silently. The check logs the condition,
 * file and line on stderr and aborts, so the core and the journal say
 * where.
 *
 * Only for what the code itself guarantees: what a peer sends (a ring
 * record, a call, a datagram, a file another process wrote) is input,
 * and gets an error, never an assertion (docs/architecture.md, "Errors
 * and assertions").
 */
#ifndef STATSD_INVARIANT_H
#define STATSD_INVARIANT_H

/* Log "invariant failed" with where, then abort(). */
_Noreturn void invariant_failed(const char *cond, const char *file,
    int line, const char *func);

/* e holds. */
#define INVARIANT(e) do {						\
	if (__builtin_expect(!(e), 0))					\
		invariant_failed(#e, __FILE__, __LINE__, __func__);	\
} while (0)

/* x is not zero (not NULL), and x is zero: Varnish's AN() and AZ(). */
#define INVARIANT_NZ(x)	INVARIANT((x) != 0)
#define INVARIANT_Z(x)	INVARIANT((x) == 0)

#endif /* STATSD_INVARIANT_H */
