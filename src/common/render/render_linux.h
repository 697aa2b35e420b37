/*
 * render_linux.h: a Linux interface's "data" file: one or more lines per
 * statistic, each tagged with the statistic's name, in the formats of its
 * type (value, range, list, array, history, raw).
 */
#ifndef STATSD_RENDER_LINUX_H
#define STATSD_RENDER_LINUX_H

#include <stddef.h>
#include <stdint.h>

#include <statsd/sbuf.h>
#include <statsd/stats.h>

/*
 * linux_data_format: append the data lines of every VOI of sb that has a
 * definition (a DEFN statistic), in VOI order, named by names[id]. now_ns
 * is the time of the read: a history shows the periods elapsed by then
 * (by the time it was stopped, if it is off). sb must be validated.
 * Returns: 0; -EINVAL; -ENOMEM.
 */
int linux_data_format(struct sbuf *buf, const struct statsblob *sb,
    const char *const *names, uint16_t nnames, uint64_t now_ns);

/* A range's average acc/num as "%lld.%03lld", rounded half away from 0;
 * "0.000" when num is 0. */
void linux_avg(char *buf, size_t len, int64_t acc, uint64_t num);

#endif /* STATSD_RENDER_LINUX_H */
