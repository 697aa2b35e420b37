/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_line.c: libFuzzer target for the statsd/DogStatsD line parser, the
 * way in that any local process (and, over UDP, anything that reaches the
 * port) can write to: the input is one datagram. Each line is parsed; a
 * good line's values and tags are walked, and its series path is made, as
 * statsd does. Nothing may crash or read out of bounds, and what a good
 * line points at must lie inside the datagram.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "statsd_line.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct sl_limits lim = {
	.name_max = 200, .tag_max = 200, .tags_max = 32, .values_max = 64,
};

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data, *ln, *tags[32], *t;
	uint32_t tl[32], ntags, pos, n;
	struct sl_series_path sp;
	struct sl_value v;
	struct sl_line l;
	size_t at = 0, len;
	char out[SL_PATH_MAX + 1];

	while (sl_next_line(buf, size, &at, &ln, &len)) {
		if (ln < buf || ln + len > buf + size)
			abort();
		if (sl_line_parse(ln, len, &lim, &l) != SL_OK)
			continue;
		if (l.name + l.name_len > ln + len || l.name_len == 0)
			abort();
		pos = 0;
		n = 0;
		while (sl_value_next(&l, &pos, &v)) {
			if (v.s < ln || v.s + v.len > ln + len)
				abort();
			n++;
		}
		if (n != l.nvalues)
			abort();
		pos = 0;
		ntags = 0;
		while (sl_tag_next(l.tags, l.tags_len, &pos, &t, &tl[ntags])) {
			if (ntags == 32)
				abort();
			tags[ntags++] = t;
		}
		if (ntags != l.ntags)
			abort();
		if (sl_series_path_make(l.type, l.name, l.name_len, tags, tl,
		    ntags, &sp) == 0) {
			for (n = 0; n < sp.nseg; n++)
				(void)sl_seg_decode(sp.seg[n], strlen(sp.seg[n]),
				    out, sizeof(out));
		}
	}
	return 0;
}
