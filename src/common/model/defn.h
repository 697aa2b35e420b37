/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * defn.h: the Linux statistics infrastructure's definitions as text: parsing
 * and applying definition lines to a blob, and rendering a blob's
 * definitions as the lines the "definition" file shows, which can be written
 * back unchanged. Also the exploiter's calls behind them: create a
 * statistic, define it, start, stop and reset it.
 *
 * A Linux interface is a blob whose statistics are VOIs carrying a DEFN
 * statistic (stat_defn.h); their names are the caller's (names[voi id]).
 */
#ifndef STATSD_DEFN_H
#define STATSD_DEFN_H

#include <stdbool.h>
#include <stdint.h>

#include <statsd/sbuf.h>
#include <statsd/stats.h>

#include "input_error.h"
#include "stat_defn.h"

/*
 * defn_stat_create: a copy of sb (free() it) with a new statistic at VOI
 * voi_id (vacant or past the end): type value, mode increments, the widest
 * range, off, started = stopped = data = now. units: at most 63 printable
 * characters without blanks ("unit1/unit2"), or NULL.
 * Returns: 0 and *ret; -EINVAL (a VOI already there, bad units); -EFBIG;
 * -ENOMEM.
 */
int defn_stat_create(const struct statsblob *sb, uint16_t voi_id,
    const char *units, uint64_t now, struct statsblob **ret);

/*
 * defn_define: a copy of sb (free() it) with statistic voi_id redefined as
 * nd (its type, mode, scale, entries_max, range, base_interval, period and
 * on; the rest is kept): its data is reset (data = now) and, if the shape
 * of its statistics changed, the blob re-laid (*ret_relaid, may be NULL);
 * every other statistic is carried across untouched. on changes record
 * started/stopped = now.
 * Returns: 0 and *ret; -EINVAL with *ret_attr (may be NULL) naming the
 * attribute at fault; -ENOENT if voi_id is not a statistic; -EFBIG;
 * -ENOMEM.
 */
int defn_define(const struct statsblob *sb, uint16_t voi_id,
    const struct vsd_defn *nd, uint64_t now, struct statsblob **ret,
    bool *ret_relaid, const char **ret_attr);

/*
 * defn_get: the definition of statistic voi_id.
 * Returns: it, or NULL if voi_id is not a statistic (sb validated).
 */
const struct vsd_defn *defn_get(const struct statsblob *sb, uint16_t voi_id);

/*
 * defn_set_on, defn_reset: start or stop statistic voi_id (recording
 * started or stopped = now when the state changes), or reset its data
 * (data = now), in place.
 * Returns: the previous on state (0 or 1) / 0; -ENOENT if voi_id is not a
 * statistic.
 */
int defn_set_on(struct statsblob *sb, uint16_t voi_id, bool on,
    uint64_t now);
int defn_reset(struct statsblob *sb, uint16_t voi_id, uint64_t now);

/*
 * defn_apply: apply definition text (one or more lines) to a copy of sb,
 * as the Linux definition file does:
 *   - tokens are split on blanks; one is "attribute=value". Read-only
 *     attributes (units, started, stopped, hits_out_of_range, hits_missed,
 *     data=<timestamp>) and junk (unknown attributes, tokens without '=')
 *     are ignored, so a line read can be written back;
 *   - a writable attribute with a bad value is an error;
 *   - without name=, only on=1, on=0 and data=reset may be given; they
 *     apply to every statistic;
 *   - with name=, a change of type, mode, scale, entries_max, range_min,
 *     range_max, base_interval or period redefines the statistic and
 *     resets it (re-laying the blob if its shape changes); a type change
 *     needs all of the new type's attributes; attributes equal to the
 *     current ones change nothing;
 *   - for repeated attributes the last wins, except name (the first).
 * The whole text applies or nothing does: *ret is a new blob (free() it)
 * only on success. *ret_relaid (may be NULL) says whether the layout
 * changed.
 * Returns: 0; -EINVAL or -ENOENT (an unknown name) with err filled in;
 * -EFBIG; -ENOMEM.
 */
int defn_apply(const struct statsblob *sb, const char *const *names,
    uint16_t nnames, const char *text, uint64_t now, struct statsblob **ret,
    bool *ret_relaid, struct input_error *err);

/*
 * defn_format: append the definition file of sb: one line per statistic,
 * in VOI order, then an empty line:
 *   name=<n> on=<0|1> type=<t> range_min=<i> range_max=<i><type fields>
 *   hits_out_of_range=<n> data=<ts> started=<ts> stopped=<ts> units=<u>
 * with type fields " mode=<m>" (value), "" (range), " base_interval=<n>
 * scale=<s>" (array), " entries_max=<n> hits_missed=<n>" (list),
 * " entries_max=<n>" (raw), " entries_max=<n> mode=<m> period=<µs>"
 * (history), and timestamps as linux_timestamp().
 * Returns: 0; -EINVAL; -ENOMEM.
 */
int defn_format(struct sbuf *buf, const struct statsblob *sb,
    const char *const *names, uint16_t nnames);

/*
 * One statistic's definition as data: its name, its definition, and the
 * list's count of hits it missed (a list's only). A reply carries it as a
 * LinuxDefinition (the IDL's).
 */
struct defn_view {
	const char		*name;
	struct vsd_defn		 d;
	uint64_t		 hits_missed;
};

/*
 * A definition's attributes in the definition file's order, as they are
 * written: defn_attrs_emit calls num (an attribute's number), text or
 * time (a timestamp) for each; the definition file's text and the JSON
 * forms are all written from that one list.
 */
struct defn_sink {
	void	(*num)(void *arg, const char *key, bool is_signed,
		    uint64_t v);
	void	(*text)(void *arg, const char *key, const char *s);
	void	(*time)(void *arg, const char *key, uint64_t ns);
	void	*arg;
};
void defn_attrs_emit(const struct defn_view *v, const struct defn_sink *s);

/*
 * defn_walk: fn for the definition of each VOI of sb that has one, in VOI
 * order, named by names[id] ("voi<i>" without one).
 * Returns: 0; -EINVAL; fn's non-zero value.
 */
int defn_walk(const struct statsblob *sb, const char *const *names,
    uint16_t nnames, int (*fn)(const struct defn_view *v, void *arg),
    void *arg);

/* The definitions of sb as JSON: an array of LinuxDefinition (times in
 * ns, as "data_ns"...), appended to buf. Returns: 0; -EINVAL; -ENOMEM. */
int defn_json(struct sbuf *buf, const struct statsblob *sb,
    const char *const *names, uint16_t nnames);

/*
 * A time as the Linux code prints it: "[%5lu.%06lu]", s and µs. The
 * definition file's timestamps and the data file's history and raw lines
 * use it.
 */
void linux_timestamp(char *buf, size_t len, uint64_t ns);
/* The same time without brackets and padding: "<s>.<µs>". */
void linux_seconds(char *buf, size_t len, uint64_t ns);

/* The attribute table, for docs and tests: name, writable, applies to. */
struct defn_attr_info {
	const char	*name;
	uint8_t		 vtype;		/* how the value is read */
	bool		 writable;
	bool		 redefines;	/* a change redefines the statistic */
	uint8_t		 types;		/* bit per enum defn_type it applies to */
	uint8_t		 required;	/* types for which a type change needs it */
};
extern const struct defn_attr_info defn_attrs[];
extern const unsigned defn_nattrs;

#endif /* STATSD_DEFN_H */
