/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * crashpoint.c: the failure points of the crash tests (see crashpoint.h):
 * which one is armed, how many times to pass it, and the exit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crashpoint.h"
#include "log.h"

const char *crashpoint_armed;
static char cp_name[64];
static unsigned long cp_left;

void
crashpoint_init(void)
{
	const char *v = getenv("STATSD_TEST_CRASH_AT"), *colon;
	unsigned long n = 1;
	size_t len;

	crashpoint_armed = NULL;
	if (v == NULL || v[0] == '\0')
		return;
	colon = strchr(v, ':');
	len = colon != NULL ? (size_t)(colon - v) : strlen(v);
	if (colon != NULL) {
		char *end;

		n = strtoul(colon + 1, &end, 10);
		if (*end != '\0' || n == 0)
			n = 1;
	}
	if (len == 0 || len >= sizeof(cp_name))
		return;
	memcpy(cp_name, v, len);
	cp_name[len] = '\0';
	cp_left = n;
	crashpoint_armed = cp_name;
	log_warning("STATSD_TEST_CRASH_AT: statsd exits (%d) the %lu-th "
	    "time it reaches %s", CRASHPOINT_EXIT, n, cp_name);
}

void
crashpoint_reached(const char *name)
{
	static const char msg[] = "statsd: crash point reached\n";

	if (strcmp(name, cp_name) != 0 || --cp_left > 0)
		return;
	/* As a kill -9 would leave things: no stdio flush, no atexit. */
	(void)write(STDERR_FILENO, msg, sizeof(msg) - 1);
	_exit(CRASHPOINT_EXIT);
}
