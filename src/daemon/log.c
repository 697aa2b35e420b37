/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * log.c: level filtering and the stderr/syslog sink. Lines on stderr carry
 * an sd-daemon(3) "<N>" priority prefix so journald files them at the right
 * level; a terminal user sees it too, which is harmless.
 */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <syslog.h>

#include "log.h"

const char *const log_level_names[LOG_LVL_NUM + 1] = {
	"error", "warning", "notice", "info", "debug", NULL,
};

static const int log_syslog_prio[LOG_LVL_NUM] = {
	LOG_ERR, LOG_WARNING, LOG_NOTICE, LOG_INFO, LOG_DEBUG,
};

static _Atomic unsigned log_level = LOG_LVL_INFO;
static int log_syslog;

void
log_set_level(unsigned level)
{
	log_level = level < LOG_LVL_NUM ? level : LOG_LVL_DEBUG;
}

void
log_to_syslog(void)
{
	openlog("statsd", LOG_PID | LOG_NDELAY, LOG_DAEMON);
	log_syslog = 1;
}

void
log_msg(unsigned level, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	if (level > log_level)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (log_syslog)
		syslog(log_syslog_prio[level], "%s", line);
	else
		fprintf(stderr, "<%d>statsd: %s\n", log_syslog_prio[level],
		    line);
}
