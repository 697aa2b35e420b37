/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * siphash.c: SipHash-c-d over bytes, whole or in pieces (siphash.h).
 */
#include <endian.h>
#include <errno.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "clock.h"
#include "siphash.h"

static inline uint64_t
sip_rotl(uint64_t x, unsigned b)
{
	return (x << b) | (x >> (64 - b));
}

/* c or d SipRounds over the state. */
static inline void
sip_rounds(struct sip_state *st, unsigned n)
{
	uint64_t v0 = st->v0, v1 = st->v1, v2 = st->v2, v3 = st->v3;

	while (n-- > 0) {
		v0 += v1;
		v1 = sip_rotl(v1, 13);
		v1 ^= v0;
		v0 = sip_rotl(v0, 32);
		v2 += v3;
		v3 = sip_rotl(v3, 16);
		v3 ^= v2;
		v0 += v3;
		v3 = sip_rotl(v3, 21);
		v3 ^= v0;
		v2 += v1;
		v1 = sip_rotl(v1, 17);
		v1 ^= v2;
		v2 = sip_rotl(v2, 32);
	}
	st->v0 = v0;
	st->v1 = v1;
	st->v2 = v2;
	st->v3 = v3;
}

static inline void
sip_word(struct sip_state *st, uint64_t m)
{
	st->v3 ^= m;
	sip_rounds(st, st->c);
	st->v0 ^= m;
}

void
sip_init(struct sip_state *st, const struct sip_key *k, unsigned c,
    unsigned d)
{
	/* "somepseudorandomlygeneratedbytes", the paper's constants. */
	st->v0 = k->k0 ^ UINT64_C(0x736f6d6570736575);
	st->v1 = k->k1 ^ UINT64_C(0x646f72616e646f6d);
	st->v2 = k->k0 ^ UINT64_C(0x6c7967656e657261);
	st->v3 = k->k1 ^ UINT64_C(0x7465646279746573);
	st->tail = 0;
	st->len = 0;
	st->c = (uint8_t)c;
	st->d = (uint8_t)d;
}

void
sip_update(struct sip_state *st, const void *p, size_t n)
{
	const uint8_t *b = p;
	unsigned have = (unsigned)(st->len & 7);

	st->len += n;
	/* Finish the word a previous piece began. */
	for (; have != 0 && n > 0; n--, have = (have + 1) & 7) {
		st->tail |= (uint64_t)*b++ << (8 * have);
		if (have == 7) {
			sip_word(st, st->tail);
			st->tail = 0;
		}
	}
	for (; n >= 8; n -= 8, b += 8) {
		uint64_t m;

		/* Little-endian whatever the host is, as SipHash defines. */
		memcpy(&m, b, sizeof(m));
		sip_word(st, le64toh(m));
	}
	for (have = 0; n > 0; n--, have++)
		st->tail |= (uint64_t)*b++ << (8 * have);
}

uint64_t
sip_final(const struct sip_state *in)
{
	struct sip_state st = *in;

	/* The last word: what is left, and the length's low byte on top. */
	sip_word(&st, st.tail | (st.len << 56));
	st.v2 ^= 0xff;
	sip_rounds(&st, st.d);
	return st.v0 ^ st.v1 ^ st.v2 ^ st.v3;
}

/* One SipRound over four words held in registers. */
#define SIP_ROUND(v0, v1, v2, v3) do {					\
	v0 += v1;							\
	v1 = sip_rotl(v1, 13);						\
	v1 ^= v0;							\
	v0 = sip_rotl(v0, 32);						\
	v2 += v3;							\
	v3 = sip_rotl(v3, 16);						\
	v3 ^= v2;							\
	v0 += v3;							\
	v3 = sip_rotl(v3, 21);						\
	v3 ^= v0;							\
	v2 += v1;							\
	v1 = sip_rotl(v1, 17);						\
	v1 ^= v2;							\
	v2 = sip_rotl(v2, 32);						\
} while (0)

/*
 * The whole of p[0..n) in one call: the same hash as sip_init(),
 * sip_update() and sip_final(), with the state in registers and the last
 * bytes taken at once. Tables hash every statsd line's name and tags
 * with it, most of them shorter than 16 bytes, where the state kept in
 * memory and a byte-at-a-time tail cost more than the rounds.
 */
static inline uint64_t
sip_whole(const struct sip_key *k, unsigned c, unsigned d, const void *p,
    size_t n)
{
	const uint8_t *b = p, *end = b + (n & ~(size_t)7);
	uint64_t v0 = k->k0 ^ UINT64_C(0x736f6d6570736575);
	uint64_t v1 = k->k1 ^ UINT64_C(0x646f72616e646f6d);
	uint64_t v2 = k->k0 ^ UINT64_C(0x6c7967656e657261);
	uint64_t v3 = k->k1 ^ UINT64_C(0x7465646279746573);
	uint64_t m;
	unsigned i;

	for (; b < end; b += 8) {
		memcpy(&m, b, sizeof(m));
		m = le64toh(m);
		v3 ^= m;
		for (i = 0; i < c; i++)
			SIP_ROUND(v0, v1, v2, v3);
		v0 ^= m;
	}
	/* The last word: what is left, and the length's low byte on top. */
	m = (uint64_t)n << 56;
	switch (n & 7) {
	case 7: m |= (uint64_t)b[6] << 48;	/* FALLTHROUGH */
	case 6: m |= (uint64_t)b[5] << 40;	/* FALLTHROUGH */
	case 5: m |= (uint64_t)b[4] << 32;	/* FALLTHROUGH */
	case 4: m |= (uint64_t)b[3] << 24;	/* FALLTHROUGH */
	case 3: m |= (uint64_t)b[2] << 16;	/* FALLTHROUGH */
	case 2: m |= (uint64_t)b[1] << 8;	/* FALLTHROUGH */
	case 1: m |= (uint64_t)b[0];		break;
	default: break;
	}
	v3 ^= m;
	for (i = 0; i < c; i++)
		SIP_ROUND(v0, v1, v2, v3);
	v0 ^= m;
	v2 ^= 0xff;
	for (i = 0; i < d; i++)
		SIP_ROUND(v0, v1, v2, v3);
	return v0 ^ v1 ^ v2 ^ v3;
}

uint64_t
siphash13(const struct sip_key *k, const void *p, size_t n)
{
	return sip_whole(k, 1, 3, p, n);
}

uint64_t
siphash24(const struct sip_key *k, const void *p, size_t n)
{
	return sip_whole(k, 2, 4, p, n);
}

void
sip_key_random(struct sip_key *k)
{
	uint64_t w[2];
	ssize_t r;

	do
		r = getrandom(w, sizeof(w), GRND_NONBLOCK);
	while (r < 0 && errno == EINTR);
	if (r != (ssize_t)sizeof(w)) {
		/* Nothing an outsider sees at this instant, hashed together. */
		struct sip_key mix = { clock_now_ns(),
		    clock_ns(CLOCK_REALTIME) ^ (uint64_t)getpid() };
		uint64_t a[3] = { clock_ns(CLOCK_THREAD_CPUTIME_ID),
		    (uint64_t)(uintptr_t)k, (uint64_t)(uintptr_t)&mix };

		w[0] = siphash24(&mix, a, sizeof(a));
		a[0] ^= w[0];
		w[1] = siphash24(&mix, a, sizeof(a));
	}
	k->k0 = w[0];
	k->k1 = w[1];
}
