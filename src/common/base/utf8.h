/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * utf8.h: the one test of a UTF-8 sequence, for every place that takes
 * text a peer wrote and must tell UTF-8 from other bytes: statsd lines'
 * names and tags, strings written as JSON, messages read as JSON.
 */
#ifndef STATSD_UTF8_H
#define STATSD_UTF8_H

#include <stddef.h>
#include <stdint.h>

/*
 * utf8_seq: the length of the well-formed UTF-8 sequence of 2 to 4 bytes
 * at s (n bytes left, n >= 1), or 0 if there is none: RFC 3629's rules,
 * which jansson's are too (no overlong form, no surrogate, nothing past
 * U+10FFFF). An ASCII byte is not such a sequence: 0.
 */
static inline size_t
utf8_seq(const unsigned char *s, size_t n)
{
	uint32_t cp;
	size_t k, i;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	k = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	if (n < k)
		return 0;
	cp = s[0] & (0x7fu >> k);
	for (i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3fu);
	}
	if ((k == 3 && cp < 0x800) || (k == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return k;
}

#endif
