/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * input_error.h: where input was refused, and why: the one type every
 * parser and checker of input fills (kstat names and selectors, statistic
 * kinds' parameters, template definitions, Linux definition lines, the
 * configuration file), so that a varlink reply, a log line and statsctl's
 * message are each made one way from it.
 */
#ifndef STATSD_INPUT_ERROR_H
#define STATSD_INPUT_ERROR_H

#include <stdarg.h>

struct input_error {
	char		where[128];	/* what is at fault: a field
					 * ("module"), a parameter path
					 * ("vois[0].stats[1].lb"), an
					 * attribute, a key; "" for none */
	char		file[256];	/* a file's path; "" for none */
	unsigned	line;		/* 1-based; 0: not about a line */
	unsigned	col;		/* 1-based column; 0: none */
	char		msg[256];
};

/*
 * input_fail: fill err (NULL: nothing) with where (NULL: "") and the
 * message fmt makes; line, col and file stay as they are.
 * Returns: -error.
 */
int input_fail(struct input_error *err, int error, const char *where,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
int input_vfail(struct input_error *err, int error, const char *where,
    const char *fmt, va_list ap) __attribute__((format(printf, 4, 0)));

#endif /* STATSD_INPUT_ERROR_H */
