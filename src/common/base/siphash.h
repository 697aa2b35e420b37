/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * siphash.h: SipHash (Aumasson and Bernstein, 2012), the keyed hash of
 * the daemon's tables whose keys peers choose: kstat names and statsd
 * series. An unkeyed hash such as FNV lets a local user compute, offline,
 * names that all land in one run of an open-addressed table, and then
 * every lookup and insert walks that run (hash flooding, as against the
 * web servers of 2011). With a key drawn at random when a table is made,
 * nobody outside statsd can tell which names collide. Perl, Python, Ruby,
 * Rust and the Linux kernel key their tables with SipHash for the same
 * reason.
 *
 * SipHash-1-3 (one compression round, three finalisation rounds; Python's
 * and Rust's choice for tables) for the tables, SipHash-2-4 (the paper's
 * recommendation for a PRF) where a strong one is wanted; both are
 * checked against published test vectors.
 */
#ifndef STATSD_COMMON_SIPHASH_H
#define STATSD_COMMON_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

struct sip_key {
	uint64_t	k0, k1;
};

/* A hash being computed over several pieces (sip_update() any number of
 * times): the same value as one call over the pieces joined. */
struct sip_state {
	uint64_t	v0, v1, v2, v3;
	uint64_t	tail;		/* bytes not yet in a word, little end first */
	uint64_t	len;		/* bytes so far */
	uint8_t		c, d;		/* compression and finalisation rounds */
};

void sip_init(struct sip_state *st, const struct sip_key *k, unsigned c,
    unsigned d);
void sip_update(struct sip_state *st, const void *p, size_t n);
uint64_t sip_final(const struct sip_state *st);

/* One call over p[0..n). */
uint64_t siphash13(const struct sip_key *k, const void *p, size_t n);
uint64_t siphash24(const struct sip_key *k, const void *p, size_t n);

/*
 * A fresh random key, from getrandom(2); if the kernel cannot give one
 * without blocking (early boot), from the clocks, the pid and addresses,
 * which an outsider cannot read at the moment the table is made.
 */
void sip_key_random(struct sip_key *k);

#endif /* STATSD_COMMON_SIPHASH_H */
