/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * log.h: the daemon's one way to say something: stderr in the foreground
 * (journald picks it up under systemd), syslog(3) once daemonized. Code logs
 * once, where it decides; library code in src/common never logs.
 */
#ifndef STATSD_DAEMON_LOG_H
#define STATSD_DAEMON_LOG_H

enum log_level {
	LOG_LVL_ERROR = 0,
	LOG_LVL_WARNING,
	LOG_LVL_NOTICE,
	LOG_LVL_INFO,
	LOG_LVL_DEBUG,
	LOG_LVL_NUM
};

/* The level names, as the config key log_level takes them. */
extern const char *const log_level_names[LOG_LVL_NUM + 1];

/* Messages above level are dropped. */
void log_set_level(unsigned level);
/* From now on log to syslog(3) instead of stderr. */
void log_to_syslog(void);

void log_msg(unsigned level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#define log_error(...)		log_msg(LOG_LVL_ERROR, __VA_ARGS__)
#define log_warning(...)	log_msg(LOG_LVL_WARNING, __VA_ARGS__)
#define log_notice(...)		log_msg(LOG_LVL_NOTICE, __VA_ARGS__)
#define log_info(...)		log_msg(LOG_LVL_INFO, __VA_ARGS__)
#define log_debug(...)		log_msg(LOG_LVL_DEBUG, __VA_ARGS__)

#endif
