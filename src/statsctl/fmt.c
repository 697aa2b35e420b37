/*
 * fmt.c: small helpers the outputs and verbs share — numbers as statsctl
 * prints values, durations as systemctl does, template specs split apart,
 * and a reply's member read with a default.
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

int
spec_split(const char *spec, char *name, size_t len,
    unsigned long long *ret_hash)
{
	const char *q;
	char *end;
	size_t n;

	if (spec[0] != '"' || (q = strchr(spec + 1, '"')) == NULL ||
	    q[1] != ':')
		return -EINVAL;
	n = (size_t)(q - spec - 1);
	if (n >= len)
		return -EINVAL;
	memcpy(name, spec + 1, n);
	name[n] = '\0';
	errno = 0;
	*ret_hash = strtoull(q + 2, &end, 10);
	return errno != 0 || *end != '\0' ? -EINVAL : 0;
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

	return json_is_number(v) ? json_number_value(v) : dflt;
}
