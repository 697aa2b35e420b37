/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * series.h: statsd/DogStatsD series mapped onto kstats. A series is a
 * metric type, name and tag set; it is one kstat (module "statsd", class
 * "statsd", its name and tags in its kstat2 path: statsd_line.h), made on
 * its first line from the type's template and updated by every line after
 * it with (X, Y) updates: a counter's X = count/rate in fixed point, the
 * others' Y = 1/rate made whole with the fraction carried to the series'
 * next value. A DogStatsD container field is the tag container_id. The
 * table finds a line's series by a keyed hash of its type, name and
 * sorted tags, without allocating; a series idle for the TTL expires
 * (a PERSISTENT one goes dormant with its data, and wakes with its next
 * line). Caps on series per source and in all bound what senders can
 * make; statsd stays the only writer.
 */
#ifndef STATSD_DAEMON_SERIES_H
#define STATSD_DAEMON_SERIES_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "rights.h"
#include "statsd_line.h"

struct statsd;
struct series;

/*
 * Who sent a line: a peer as rights.h has it, and what only UDP needs.
 * A series belongs to its sender: a line from the Unix socket is its uid's (SCM_CREDENTIALS), and its series carries the tag
 * statsd_uid:<uid> (SERIES_UID_TAG), which the exposition shows as the
 * label statsd_uid; a UDP line is anonymous, and its series, without that
 * tag, are UDP's own namespace, owned by statsd. A tag of that name that
 * a line carries itself is left out, whoever sends it. So one uid's
 * lines never write, hide or take the name of another's series, nor of
 * UDP's, and UDP's never those of any uid: each namespace has its own
 * series of a (type, name, tags), and privilege changes none of this.
 */
struct series_src {
	struct peer	peer;	/* the owner of what it makes (UDP: statsd's
				 * uid, unprivileged); privileged: held to the
				 * totals only (uid 0, admins) */
	bool		udp;	/* anonymous: UDP's own caps, owned by statsd */
};

/* The tag that names a series' owning uid (Unix socket lines). */
#define SERIES_UID_TAG		"statsd_uid"

/*
 * PERSISTENT series made or revived from one source (a uid, or UDP) in
 * one batch (between series_sync() calls: a loop turn of the front
 * door): each costs a file and a synced checkpoint record, so a datagram
 * naming hundreds of deleted ones cannot hold the loop. Lines past it are
 * refused as SERIES_BUSY and counted (statsd_refused_busy); the series
 * is made by a line of a later turn.
 */
#define SERIES_DURABLE_PER_TURN	8

/* What became of a line that parsed. */
enum series_result {
	SERIES_OK = 0,
	SERIES_CAP,	/* a new series past a cap: refused */
	SERIES_DENIED,	/* the series is another owner's (one left by an
			 * older statsd without its owner's tag) */
	SERIES_TOOLONG,	/* name and tags do not fit a kstat2 path */
	SERIES_RANGE,	/* a value the series' type cannot hold */
	SERIES_STORE,	/* the store or a quota refused the kstat */
	SERIES_NEGATIVE, /* a counter's negative increment: refused whole */
	SERIES_BUSY,	/* past the turn's PERSISTENT series of its source */
	SERIES_NRESULTS
};

/* "ok", "cap", "denied", "toolong", "range", "store", "negative",
 * "busy". */
extern const char *const series_result_names[SERIES_NRESULTS];

struct series_stats {
	uint64_t	series;		/* in the table now */
	uint64_t	created;	/* kstats made (or revived) */
	uint64_t	expired;
};

/*
 * series_templates: register statsd's own template of each type
 * (statsd.counter, statsd.gauge, and statsd.timer.<digest> ...
 * statsd.set.<digest>: those whose layout the configuration shapes are
 * named by a digest of it), and put them in ret[SL_NTYPES] unless ret is
 * NULL; registered already, they are found. statsd registers them before
 * it loads the checkpoint; the checkpoint then brings back the older
 * layouts its PERSISTENT series were made from (ck_load.c).
 * Returns: 0; -errno (logged).
 */
struct reg_template;
int series_templates(struct statsd *d, struct reg_template **ret);

/*
 * series_tpl_is_type: is t statsd's own template of a series of type, in
 * this layout or an older one ("statsd.<type>" or "statsd.<type>.<digest>",
 * owned by self_uid, with a VOI 0)?
 */
bool series_tpl_is_type(const struct reg_template *t, uint8_t type,
    uid_t self_uid);

/*
 * series_new: register the templates of each type (statsd's own) and an
 * empty table.
 * Returns: 0 and *ret; -errno (logged).
 */
int series_new(struct statsd *d, struct series **ret);
struct series *series_free(struct series *s);

/*
 * series_apply: apply line l from src at now (CLOCK_MONOTONIC ns).
 * Returns: SERIES_OK when its values reached the kstat (a value that did
 * not fit is SERIES_RANGE, the others still applied); else why not.
 */
enum series_result series_apply(struct series *s, const struct series_src *src,
    const struct sl_line *l, uint64_t now);

/*
 * Hints for a run of one-line datagrams of many series (DogStatsD
 * clients send a line a datagram, each of another series): the lookups
 * of the next lines are started while this one is applied, so that their
 * cache misses (the table's slot, the entry, the kstat, the blob) overlap
 * instead of following one another. Three steps, each a line or more
 * ahead of the next: series_hint_key() keys line l and prefetches its
 * slot; series_hint_entry() prefetches the entry in that slot;
 * series_hint_data() that entry's kstat, its handle's index slot and its
 * blob's first lines. Only prefetches: nothing is changed, and a line
 * that turns out otherwise (a new series, a deleted kstat) costs only the
 * wasted hints.
 */
struct series_hint {
	uint64_t	h;
	bool		ok;	/* h is a key: l had a series */
};
void	series_hint_key(struct series *s, const struct series_src *src,
	    const struct sl_line *l, struct series_hint *ret);
void	series_hint_entry(const struct series *s,
	    const struct series_hint *hint);
void	series_hint_data(const struct series *s,
	    const struct series_hint *hint);

/* After a batch of lines: PERSISTENT blobs into the store; a new turn
 * for SERIES_DURABLE_PER_TURN. */
void series_sync(struct series *s);

/*
 * series_expire: look at up to budget series from where the last call
 * stopped, and expire those idle for the configured TTL at now.
 * Returns: how many expired.
 */
unsigned series_expire(struct series *s, uint64_t now, unsigned budget);

void series_stats(const struct series *s, struct series_stats *ret);

/* How far the series furthest from its home slot lies from it: the most
 * slots a lookup walks past. */
size_t series_probe_max(const struct series *s);

#endif
