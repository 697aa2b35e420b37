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
#include <string.h>

/* The most characters of a uint64_t (UINT64_MAX), and of an int64_t
 * with its sign (INT64_MIN). */
#define DEC_U64_MAX	20
#define DEC_I64_MAX	20

/* v's digits, written backwards so that they end just before end.
 * Returns: the first (end less 1 to DEC_U64_MAX). */
static inline char *
dec_u64_end(char *end, uint64_t v)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	return end;
}

/* v's digits at s, no NUL. Returns: how many (1 to DEC_U64_MAX). */
static inline size_t
dec_u64(char *s, uint64_t v)
{
	char d[DEC_U64_MAX], *p = dec_u64_end(d + sizeof(d), v);
	size_t n = (size_t)(d + sizeof(d) - p);

	memcpy(s, p, n);
	return n;
}

#endif
