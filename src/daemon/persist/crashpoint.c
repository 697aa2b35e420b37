/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * crashpoint.c: the crash and failure points of the crash tests (see
 * crashpoint.h): which are armed, how many times to pass them, the exit.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crashpoint.h"
#include "log.h"

const char *crashpoint_armed;
const char *crashpoint_fail_armed;
static char cp_name[64], cp_fail_name[64];
static unsigned long cp_left;
/* Counted down by any thread (the reader threads ask too). */
static _Atomic unsigned long cp_fail_left;

/* <name>[:<n>] from the environment into name and *left. Returns:
 * whether it is set. */
static bool
cp_parse(const char *var, char *name, size_t size, unsigned long *left)
{
	const char *v = getenv(var), *colon;
	unsigned long n = 1;
	size_t len;

	if (v == NULL || v[0] == '\0')
		return false;
	colon = strchr(v, ':');
	len = colon != NULL ? (size_t)(colon - v) : strlen(v);
	if (colon != NULL) {
		char *end;

		n = strtoul(colon + 1, &end, 10);
		if (*end != '\0' || n == 0)
			n = 1;
	}
	if (len == 0 || len >= size)
		return false;
	memcpy(name, v, len);
	name[len] = '\0';
	*left = n;
	return true;
}

void
crashpoint_init(void)
{
	unsigned long n;

	crashpoint_armed = NULL;
	crashpoint_fail_armed = NULL;
	if (cp_parse("STATSD_TEST_CRASH_AT", cp_name, sizeof(cp_name),
	    &cp_left)) {
		crashpoint_armed = cp_name;
		log_warning("STATSD_TEST_CRASH_AT: statsd exits (%d) on "
		    "reaching %s, time %lu", CRASHPOINT_EXIT, cp_name,
		    cp_left);
	}
	if (cp_parse("STATSD_TEST_FAIL_AT", cp_fail_name,
	    sizeof(cp_fail_name), &n)) {
		atomic_store(&cp_fail_left, n);
		crashpoint_fail_armed = cp_fail_name;
		log_warning("STATSD_TEST_FAIL_AT: %s fails once, on call "
		    "%lu", cp_fail_name, n);
	}
}

bool
crashpoint_fail_reached(const char *name)
{
	unsigned long n;

	if (strcmp(name, cp_fail_name) != 0)
		return false;
	/* Any thread may ask (the persistence thread, the reader
	 * threads): the count goes down to 0 and stays, so the n-th ask
	 * alone fails. */
	n = atomic_load(&cp_fail_left);
	do
		if (n == 0)
			return false;
	while (!atomic_compare_exchange_weak(&cp_fail_left, &n, n - 1));
	return n == 1;
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
