/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * _statistic.h: the calls between _statsclient.c (the series, the module)
 * and _statistic.c (the Linux statistics infrastructure's types).
 */
#ifndef STATSCLIENT_STATISTIC_H
#define STATSCLIENT_STATISTIC_H

#include <Python.h>

#include <statsd/client.h>

/* Add Statistic and StatisticInterface to module m. Returns: 0; -1 with
 * the exception set. */
int statistic_types_add(PyObject *m);

/* The process's client if a StatisticInterface was made (statistic.h's
 * calls open it), else NULL: dropped() and pushed() count its updates. */
stats_client_t *statistic_client(void);

/* In a fork() child: its lock, which a parent's thread may have held. */
void statistic_atfork_child(void);

/* Of _statsclient.c: in a fork() child not yet connected, connect (once)
 * before the first update; the GIL is held, and dropped around the
 * call. */
void statsclient_fork_check(void);

#endif
