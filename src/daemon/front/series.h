/*
 * series.h: statsd/DogStatsD series mapped onto kstats. A series is a
 * metric type, name and tag set; it is one kstat (module "statsd", class
 * "statsd", its name and tags in its kstat2 path: statsd_line.h), made on
 * its first line from the type's template and updated by every line after
 * it with (X, Y) updates: a counter's X = count/rate in fixed point, the
 * others' Y = 1/rate made whole with the fraction carried to the series'
 * next value. A DogStatsD container field is the tag container_id. The
 * table finds a line's series
 * without copying or sorting its tags; a series idle for the TTL expires
 * (a PERSISTENT one goes dormant with its data, and wakes with its next
 * line). Caps on series per source and in all bound what senders can
 * make; statsd stays the only writer.
 */
#ifndef STATSD_DAEMON_SERIES_H
#define STATSD_DAEMON_SERIES_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "statsd_line.h"

struct statsd;
struct series;

/* Who sent a line. */
struct series_src {
	uid_t	uid;		/* owner of what it makes */
	gid_t	gid;
	bool	udp;		/* anonymous: UDP's own caps, owned by statsd */
	bool	privileged;	/* may update any series (uid 0, admins) */
};

/* What became of a line that parsed. */
enum series_result {
	SERIES_OK = 0,
	SERIES_CAP,	/* a new series past a cap: refused */
	SERIES_DENIED,	/* the series is another owner's */
	SERIES_TOOLONG,	/* name and tags do not fit a kstat2 path */
	SERIES_RANGE,	/* a value the series' type cannot hold */
	SERIES_STORE,	/* the store or a quota refused the kstat */
	SERIES_NEGATIVE, /* a counter's negative increment: refused whole */
	SERIES_NRESULTS
};

/* "ok", "cap", "denied", "toolong", "range", "store", "negative". */
extern const char *const series_result_names[SERIES_NRESULTS];

struct series_stats {
	uint64_t	series;		/* in the table now */
	uint64_t	created;	/* kstats made (or revived) */
	uint64_t	expired;
};

/*
 * series_templates: register statsd's own template of each type
 * (statsd.counter ... statsd.set, as the configuration makes them), and
 * put them in ret[SL_NTYPES] unless ret is NULL; registered already, they
 * are found. statsd registers them before it loads the checkpoint, so
 * that the PERSISTENT series in it find their templates (the checkpoint
 * keeps no "statsd.*" template: statsd makes its own at every start).
 * Returns: 0; -errno (logged).
 */
struct reg_template;
int series_templates(struct statsd *d, struct reg_template **ret);

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

/* After a batch of lines: PERSISTENT blobs into the store. */
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
