/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * input_error.c: filling a struct input_error (input_error.h).
 */
#include <stdarg.h>
#include <stdio.h>

#include "input_error.h"

int
input_vfail(struct input_error *err, int error, const char *where,
    const char *fmt, va_list ap)
{
	if (err != NULL) {
		snprintf(err->where, sizeof(err->where), "%s",
		    where != NULL ? where : "");
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	}
	return -error;
}

int
input_fail(struct input_error *err, int error, const char *where,
    const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = input_vfail(err, error, where, fmt, ap);
	va_end(ap);
	return r;
}
