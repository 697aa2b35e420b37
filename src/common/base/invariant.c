/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * invariant.c: what a broken invariant does (invariant.h): one line on
 * stderr, which the daemon's journal keeps, then abort() for the core.
 */
#include <stdio.h>
#include <stdlib.h>

#include "invariant.h"

_Noreturn void
invariant_failed(const char *cond, const char *file, int line,
    const char *func)
{
	fprintf(stderr, "invariant failed: %s, at %s:%d in %s()\n", cond,
	    file, line, func);
	fflush(stderr);
	abort();
}
