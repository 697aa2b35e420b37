/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_json.c: libFuzzer target for the control socket's JSON reader and
 * writer (render/jload.c, render/jdump.c), the way in any local process
 * can write to: the input is one message. The fast reader must never
 * take a text jansson refuses, nor read one otherwise; jload() must give
 * jansson's answer; and what was read must be written back as
 * json_dumps() writes it, and read back the same.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "jdump.h"
#include "jload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	json_error_t je, le;
	json_t *f = jload_fast(buf, size);
	json_t *j = json_loadb(buf, size, JSON_REJECT_DUPLICATES, &je);
	json_t *l = jload(buf, size, &le);

	if (f != NULL && (j == NULL || !json_equal(f, j)))
		abort();
	if ((j == NULL) != (l == NULL) || (j != NULL && !json_equal(j, l)))
		abort();
	if (j == NULL && strcmp(je.text, le.text) != 0)
		abort();
	if (j != NULL) {
		char *a = jdump(j, 0, NULL), *b = json_dumps(j, JSON_COMPACT);
		json_t *back;

		if ((a == NULL) != (b == NULL) ||
		    (a != NULL && strcmp(a, b) != 0))
			abort();
		if (a != NULL) {
			back = jload(a, strlen(a), NULL);
			if (back == NULL || !json_equal(back, j))
				abort();
			json_decref(back);
		}
		free(a);
		free(b);
	}
	json_decref(f);
	json_decref(j);
	json_decref(l);
	return 0;
}
