/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dec.h: the one writer of an integer in decimal, for the paths that
 * write many (Prometheus and kstat(1M) text, JSON messages, kstat
 * names): through printf(3), a number costs a thousand instructions and
 * more, most of them reading the format.
 */
#ifndef STATSD_DEC_H
#define STATSD_DEC_H

#include <stddef.h>
#include <stdint.h>

/* The most characters dec_u64() writes (UINT64_MAX), and dec_i64(). */
#define DEC_U64_MAX	20
#define DEC_I64_MAX	20

/* v's digits at s, no NUL. Returns: how many (1 to DEC_U64_MAX). */
static inline size_t
dec_u64(char *s, uint64_t v)
{
	char d[DEC_U64_MAX];
	size_t n = 0, i;

	do {
		d[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	for (i = 0; i < n; i++)
		s[i] = d[n - 1 - i];
	return n;
}

/* v's digits at s, after a '-' when negative, no NUL. Returns: how many
 * characters (1 to DEC_I64_MAX: INT64_MIN has 19 digits). */
static inline size_t
dec_i64(char *s, int64_t v)
{
	if (v < 0) {
		s[0] = '-';
		return 1 + dec_u64(s + 1, (uint64_t)0 - (uint64_t)v);
	}
	return dec_u64(s, (uint64_t)v);
}

#endif
