/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * render_linux.h: a Linux interface's "data" file: one or more lines per
 * statistic, each tagged with the statistic's name, in the formats of its
 * type (value, range, list, array, history, raw).
 */
#ifndef STATSD_RENDER_LINUX_H
#define STATSD_RENDER_LINUX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <statsd/sbuf.h>
#include <statsd/stats.h>

/*
 * One data line as data: its statistic's name, its definition's type
 * (enum defn_type) and the figures of that type. A reply carries it as a
 * LinuxLine (the IDL's), and the text and JSON forms are written from it.
 */
struct linux_line {
	const char	*name;
	uint8_t		 type;		/* enum defn_type */
	bool		 range;		/* the figures are a range's (range,
					 * history of mode range) */
	bool		 above;		/* array: the last bucket, (bound, inf) */
	uint64_t	 time_ns;	/* history: the period's end; raw */
	int64_t		 total;		/* value; history of totals */
	uint64_t	 num;		/* range: acc / num is the average */
	int64_t		 acc, min, max;
	uint64_t	 x, hits;	/* list; raw: x (as int64_t) */
	int64_t		 bound;		/* array: (prev, bound], or (bound, inf) */
	uint64_t	 count;
	uint64_t	 serial, y;	/* raw */
};

/* Called for each line. Returns: 0 to go on; non-zero ends the walk. */
typedef int (*linux_line_fn)(const struct linux_line *l, void *arg);

/*
 * linux_data_walk: each data line of every VOI of sb that has a
 * definition (a DEFN statistic), in VOI order, named by names[id]. now_ns
 * is the time of the read: a history shows the periods elapsed by then
 * (by the time it was stopped, if it is off). sb must be validated.
 * Returns: 0; -EINVAL; fn's non-zero value.
 */
int linux_data_walk(const struct statsblob *sb, const char *const *names,
    uint16_t nnames, uint64_t now_ns, linux_line_fn fn, void *arg);

/*
 * What a line shows after its name, as tokens: numbers, and texts (a
 * timestamp, an average, "<=X", "0x..."). linux_line_tokens calls num (a
 * signed or an unsigned number), text or time for each, in order:
 * the data file's text and statsctl's JSON are written from the one
 * list.
 */
struct linux_tokens {
	void	(*num)(void *arg, bool is_signed, uint64_t v);
	void	(*text)(void *arg, const char *s);
	void	(*time)(void *arg, uint64_t ns);	/* a timestamp */
	void	*arg;
};
void linux_line_tokens(const struct linux_line *l,
    const struct linux_tokens *t);

/* A line as a LinuxLine of the IDL, typed JSON, into buf. Returns: 0;
 * the buffer's error. */
int linux_line_json(struct sbuf *buf, const struct linux_line *l);

/*
 * linux_data_format: append the data lines of every VOI of sb that has a
 * definition (a DEFN statistic), in VOI order, named by names[id]. now_ns
 * is the time of the read: a history shows the periods elapsed by then
 * (by the time it was stopped, if it is off). sb must be validated.
 * Returns: 0; -EINVAL; -ENOMEM.
 */
int linux_data_format(struct sbuf *buf, const struct statsblob *sb,
    const char *const *names, uint16_t nnames, uint64_t now_ns);

/*
 * linux_data_json: the data lines of sb (as linux_data_format has them)
 * as a JSON array of LinuxLine, appended to buf.
 * Returns: the number of lines; -EINVAL; -ENOMEM.
 */
int linux_data_json(struct sbuf *buf, const struct statsblob *sb,
    const char *const *names, uint16_t nnames, uint64_t now_ns);

/* A range's average acc/num as "%lld.%03lld", rounded half away from 0;
 * "0.000" when num is 0. */
void linux_avg(char *buf, size_t len, int64_t acc, uint64_t num);

#endif /* STATSD_RENDER_LINUX_H */
