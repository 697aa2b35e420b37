/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fmt.c: small helpers the outputs and verbs share — numbers as statsctl
 * prints values, durations as systemctl does, a reply's member read with
 * a default, and the Linux files' text as the text outputs print it.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"

void
fmt_number(char *buf, size_t len, double v)
{
	size_t n;

	if (isnan(v) || isinf(v)) {
		snprintf(buf, len, "%s", isnan(v) ? "nan" : v < 0 ? "-inf" :
		    "inf");
		return;
	}
	if (v == floor(v) && fabs(v) < 1e18) {
		snprintf(buf, len, "%.0f", v);
		return;
	}
	/* Nine decimals (kstat's times are ns), trailing zeros dropped. */
	snprintf(buf, len, "%.9f", v);
	n = strlen(buf);
	while (n > 0 && buf[n - 1] == '0')
		buf[--n] = '\0';
	if (n > 0 && buf[n - 1] == '.')
		buf[--n] = '\0';
}

void
out_data_text(const char *text, const struct linux_line *lines, size_t n)
{
	(void)lines;
	(void)n;
	fputs(text, stdout);
}

void
out_definition_text(const char *text, const struct defn_view *v, size_t n)
{
	(void)v;
	(void)n;
	fputs(text, stdout);
}

const char *
js_str(const json_t *o, const char *key, const char *dflt)
{
	const json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : dflt;
}

long long
js_int(const json_t *o, const char *key, long long dflt)
{
	const json_t *v = json_object_get(o, key);

	if (json_is_integer(v))
		return (long long)json_integer_value(v);
	if (json_is_real(v))
		return (long long)json_real_value(v);
	return dflt;
}

double
js_num(const json_t *o, const char *key, double dflt)
{
	const json_t *v = json_object_get(o, key);
	uint64_t u;

	if (json_is_string(v) && js_u64(v, &u) == 0)
		return (double)u;
	return json_is_number(v) ? json_number_value(v) : dflt;
}

int
js_u64(const json_t *v, uint64_t *ret)
{
	const char *s = json_string_value(v);
	char *end;

	if (json_is_integer(v) && json_integer_value(v) >= 0) {
		*ret = (uint64_t)json_integer_value(v);
		return 0;
	}
	/* Digits only: strtoull() would take a sign or white space. */
	if (s == NULL || s[0] < '0' || s[0] > '9')
		return -EPROTO;
	errno = 0;
	*ret = strtoull(s, &end, 10);
	return *end != '\0' || errno != 0 ? -EPROTO : 0;
}
