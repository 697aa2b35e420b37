/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pub.h: what the writer publishes for statsd's reader threads. A reader
 * thread reads kstats the way any reader of the store does — it maps the
 * segments read-only and copies a kstat under its slot's sequence counter
 * — but two things it needs are not in the store: which segments exist
 * (they come and go with zones) and the templates that name a blob's
 * VOIs. The writer publishes both here, with a settings object of the
 * reader's choosing (its part of the configuration, which a reload
 * replaces).
 *
 * Nothing here is ever locked. The writer changes what it publishes by
 * swapping pointers; what a swap or a removal leaves unreachable is
 * retired, and freed by the writer once every reader that might still
 * hold it has left the read section it was in (epoch-based reclamation,
 * as the Linux kernel's RCU and Fraser's epochs do it): a reader's
 * section costs two atomic stores, and the writer never waits for a
 * reader. Reader sections are short (a page of a scrape), so what is
 * retired is freed soon after.
 *
 * The writer's calls (pub_segs_set, pub_tpl_*, pub_conf_set, pub_retire,
 * pub_reclaim, and registering a reader: pub_reader_new, pub_reader_free)
 * are the event loop's alone. A reader calls pub_enter()
 * before it looks at anything published and pub_leave() when it no
 * longer holds any of it; the writer reads what it published without.
 */
#ifndef STATSD_DAEMON_PUB_H
#define STATSD_DAEMON_PUB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pub;
struct pub_reader;
struct reg_template;
struct store_segment;

/* Reader threads (and reader contexts) that may be registered at once. */
#define PUB_READERS	8u

/* One segment as readers see it. serial is never reused, so that a
 * reader can tell a segment it mapped from a new one at the same address.
 * zone, gz and priv decide who may see its kstats (view.h). */
struct pub_seg {
	struct store_segment	*seg;
	uint64_t		 serial;
	uint32_t		 zone;
	bool			 gz;
	bool			 priv;
	char			 name[40];	/* Kstat.segment's */
};

struct pub_segs {
	size_t		n;
	struct pub_seg	v[];
};

/* Returns: 0 and *ret; -ENOMEM. */
int pub_new(struct pub **ret);

/* Free it and everything retired (no reader may be registered).
 * NULL-safe. Returns: NULL. */
struct pub *pub_free(struct pub *p);

/* ------------------------------------------------------------------ writer */

/* Publish the segments (copied); the old list is retired.
 * Returns: 0; -ENOMEM (the old list stays). */
int pub_segs_set(struct pub *p, const struct pub_seg *v, size_t n);

/* Publish template t under hash (a blob's slot names its template by
 * hash), and take it back (before t is retired: pub_retire()). Several
 * templates may share a hash (one definition registered by two owners:
 * the same names). Returns: 0; -ENOMEM. */
int pub_tpl_add(struct pub *p, const struct reg_template *t, uint64_t hash);
void pub_tpl_remove(struct pub *p, const struct reg_template *t,
    uint64_t hash);

/* Publish the readers' settings object; the old one is retired with
 * fn, as this one will be. */
void pub_conf_set(struct pub *p, void *conf, void (*fn)(void *));

/* Free arg with fn once no reader can hold it any more. Returns: 0; -ENOMEM, when arg was freed at once
 * after waiting for the readers' sections to end (they are short). */
int pub_retire(struct pub *p, void (*fn)(void *), void *arg);

/* fn(arg) is called when something is retired while nothing was
 * waiting: the writer calls pub_reclaim() soon after (a timer). */
void pub_set_wake(struct pub *p, void (*fn)(void *), void *arg);

/* Free what no reader can hold any more. Returns: how much is left to
 * free (the writer calls again later while it is not 0). */
size_t pub_reclaim(struct pub *p);

/* --------------------------------------------------------------- readers */

/* Register a reader (before its thread starts). Returns: 0 and *ret;
 * -EBUSY if PUB_READERS are. */
int pub_reader_new(struct pub *p, struct pub_reader **ret);

/* Unregister (its thread gone). NULL-safe. Returns: NULL. */
struct pub_reader *pub_reader_free(struct pub_reader *rd);

/* A read section: what is published may be looked at between the two. */
void pub_enter(struct pub_reader *rd);
void pub_leave(struct pub_reader *rd);

/* In a section (or the writer): the segments; the settings object (NULL:
 * none published); the first template published under hash, or NULL. */
const struct pub_segs *pub_segs(const struct pub *p);
void *pub_conf(const struct pub *p);
const struct reg_template *pub_tpl_find(const struct pub *p, uint64_t hash);

#endif /* STATSD_DAEMON_PUB_H */
