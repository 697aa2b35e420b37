/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * quota.c: per-uid usage of what peers make statsd hold, the per-uid
 * limits and totals of the configuration, the reserve for privileged
 * peers, and rate-limited refusal logging (quota.h has the rule).
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "config.h"
#include "daemon.h"
#include "engine.h"
#include "log.h"
#include "quota.h"

/* A configuration field holding a limit: its offset and whether it is a
 * uint64_t (CFG_SIZE keys above 4 GiB) or an unsigned. */
struct quota_key {
	const char	*key;
	size_t		 off;
	bool		 wide;
};

#define QK(k, f)	{ k, offsetof(struct config, f), false }
#define QKW(k, f)	{ k, offsetof(struct config, f), true }

static const struct quota_def {
	const char		*name;
	struct quota_key	 per_uid;
	struct quota_key	 total;
} quota_defs[QUOTA_NUM] = {
	[QUOTA_CONNECTIONS] = { "connections",
	    QK("max_connections_per_uid", max_connections_per_uid),
	    QK("max_connections", max_connections) },
	[QUOTA_BUFFERED] = { "buffered_bytes",
	    QKW("max_buffered_per_uid", max_buffered_per_uid),
	    QKW("max_buffered", max_buffered) },
	[QUOTA_TEMPLATES] = { "templates",
	    QK("max_templates_per_uid", max_templates_per_uid),
	    QK("max_templates", max_templates) },
	[QUOTA_TEMPLATE_BYTES] = { "template_bytes",
	    QKW("max_template_bytes_per_uid", max_template_bytes_per_uid),
	    QKW("max_template_bytes", max_template_bytes) },
	[QUOTA_KSTATS] = { "kstats",
	    QK("max_kstats_per_uid", max_kstats_per_uid),
	    QK("max_kstats", max_kstats) },
	[QUOTA_ARENA] = { "arena_bytes",
	    QKW("arena_bytes_per_uid", arena_bytes_per_uid),
	    QKW("arena_size", arena_size) },
	[QUOTA_PERSISTENT] = { "persistent_bytes",
	    QKW("max_persistent_bytes_per_uid", max_persistent_bytes_per_uid),
	    QKW("max_persistent_bytes", max_persistent_bytes) },
	[QUOTA_RINGS] = { "rings",
	    QK("max_rings_per_uid", max_rings_per_uid),
	    QK("max_rings", max_rings) },
	[QUOTA_RING_BYTES] = { "ring_bytes",
	    QKW("max_ring_bytes_per_uid", max_ring_bytes_per_uid),
	    QKW("max_ring_bytes", max_ring_bytes) },
	[QUOTA_ZONE_SEGMENTS] = { "zone_segments",
	    QK("max_zone_segments_per_uid", max_zone_segments_per_uid),
	    QK("max_zone_segments", max_zone_segments) },
};

/* Refusal lines: at most QUOTA_LOG_BURST per QUOTA_LOG_PERIOD_NS. */
#define QUOTA_LOG_BURST		5u
#define QUOTA_LOG_PERIOD_NS	(10 * UINT64_C(1000000000))

struct quota_user {
	uid_t		 uid;
	bool		 used_slot;
	uint64_t	 used[QUOTA_NUM];
};

struct quota {
	struct statsd		*d;
	/* uid -> usage: open addressing, linear probing, never shrinks. */
	struct quota_user	*users;
	size_t			 nusers, cap;
	uint64_t		 total[QUOTA_NUM];
	uint64_t		 refusals;
	uint64_t		 log_period_start;
	unsigned		 log_lines;
	uint64_t		 log_suppressed;
};

static uint64_t
quota_key_value(const struct config *c, const struct quota_key *k)
{
	const char *p = (const char *)c + k->off;

	if (k->wide)
		return *(const uint64_t *)(const void *)p;
	return *(const unsigned *)(const void *)p;
}

int
quota_new(struct statsd *d, struct quota **ret)
{
	struct quota *q = calloc(1, sizeof(*q));

	if (q == NULL)
		return -ENOMEM;
	q->d = d;
	q->cap = 64;
	q->users = calloc(q->cap, sizeof(*q->users));
	if (q->users == NULL) {
		free(q);
		return -ENOMEM;
	}
	*ret = q;
	return 0;
}

struct quota *
quota_free(struct quota *q)
{
	if (q == NULL)
		return NULL;
	free(q->users);
	free(q);
	return NULL;
}

static size_t
quota_slot(size_t cap, uid_t uid)
{
	return (size_t)(((uint64_t)uid * UINT64_C(11400714819323198485)) >>
	    32) & (cap - 1);
}

static struct quota_user *
quota_lookup(const struct quota *q, uid_t uid)
{
	size_t i = quota_slot(q->cap, uid);

	while (q->users[i].used_slot) {
		if (q->users[i].uid == uid)
			return &q->users[i];
		i = (i + 1) & (q->cap - 1);
	}
	return NULL;
}

static int
quota_grow(struct quota *q)
{
	size_t ncap = 2 * q->cap, i, j;
	struct quota_user *n = calloc(ncap, sizeof(*n));

	if (n == NULL)
		return -ENOMEM;
	for (i = 0; i < q->cap; i++) {
		if (!q->users[i].used_slot)
			continue;
		j = quota_slot(ncap, q->users[i].uid);
		while (n[j].used_slot)
			j = (j + 1) & (ncap - 1);
		n[j] = q->users[i];
	}
	free(q->users);
	q->users = n;
	q->cap = ncap;
	return 0;
}

/* uid's entry, made if needed. Returns: it, or NULL (out of memory). */
static struct quota_user *
quota_user(struct quota *q, uid_t uid)
{
	struct quota_user *u = quota_lookup(q, uid);
	size_t i;

	if (u != NULL)
		return u;
	if (2 * (q->nusers + 1) > q->cap && quota_grow(q) < 0)
		return NULL;
	i = quota_slot(q->cap, uid);
	while (q->users[i].used_slot)
		i = (i + 1) & (q->cap - 1);
	q->users[i].used_slot = true;
	q->users[i].uid = uid;
	q->nusers++;
	return &q->users[i];
}

uint64_t
quota_zone_segments_fit(const struct config *c, uint64_t nofile)
{
	uint64_t others = (uint64_t)c->max_connections +
	    c->http_max_connections + 2 * (uint64_t)c->max_rings +
	    QUOTA_FDS_OWN;

	return nofile > others ? nofile - others : 0;
}

/* r's total: the configuration's, for zone segments no more than the
 * descriptor limit leaves (quota.h). */
static uint64_t
quota_total(const struct quota *q, enum quota_res r)
{
	uint64_t total = quota_key_value(&q->d->cfg, &quota_defs[r].total);
	struct rlimit rl;

	if (r == QUOTA_ZONE_SEGMENTS && getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
	    rl.rlim_cur != RLIM_INFINITY) {
		uint64_t fit = quota_zone_segments_fit(&q->d->cfg,
		    (uint64_t)rl.rlim_cur);

		if (fit < total)
			total = fit;
	}
	return total;
}

/* The part of r's total a peer may use. */
static uint64_t
quota_total_for(const struct quota *q, enum quota_res r, bool privileged)
{
	uint64_t total = quota_total(q, r);
	unsigned pct = q->d->cfg.quota_reserve_percent;

	if (privileged || pct == 0)
		return total;
	/* total * (100 - pct) / 100 without overflow for totals near
	 * 2^64. */
	return total / 100 * (100 - pct) + total % 100 * (100 - pct) / 100;
}

static uint64_t
quota_per_uid_limit(const struct quota *q, enum quota_res r)
{
	return quota_key_value(&q->d->cfg, &quota_defs[r].per_uid);
}

int
quota_check(const struct quota *q, uid_t uid, bool privileged,
    enum quota_res r, uint64_t n, struct quota_refusal *ret)
{
	uint64_t cap, mine, used = quota_used(q, uid, r);

	mine = quota_per_uid_limit(q, r);
	if (!privileged && (used > mine || n > mine - used)) {
		ret->limit = quota_defs[r].per_uid.key;
		ret->value = mine;
		return -EDQUOT;
	}
	cap = quota_total_for(q, r, privileged);
	if (q->total[r] > cap || n > cap - q->total[r]) {
		ret->limit = quota_defs[r].total.key;
		ret->value = cap;
		return -EDQUOT;
	}
	return 0;
}

int
quota_charge(struct quota *q, uid_t uid, bool privileged, enum quota_res r,
    uint64_t n, struct quota_refusal *ret)
{
	struct quota_user *u;

	if (quota_check(q, uid, privileged, r, n, ret) < 0) {
		q->refusals++;
		quota_refused_log(q, uid, quota_defs[r].name, ret);
		return -EDQUOT;
	}
	u = quota_user(q, uid);
	if (u == NULL)
		return -ENOMEM;
	u->used[r] += n;
	q->total[r] += n;
	return 0;
}

int
quota_force(struct quota *q, uid_t uid, enum quota_res r, uint64_t n)
{
	struct quota_user *u = quota_user(q, uid);

	if (u == NULL)
		return -ENOMEM;
	u->used[r] += n;
	q->total[r] += n;
	return 0;
}

void
quota_release(struct quota *q, uid_t uid, enum quota_res r, uint64_t n)
{
	struct quota_user *u = quota_lookup(q, uid);

	/* A release never exceeds its charge; saturate rather than wrap
	 * should a caller get that wrong. */
	if (u != NULL)
		u->used[r] -= n < u->used[r] ? n : u->used[r];
	q->total[r] -= n < q->total[r] ? n : q->total[r];
}

uint64_t
quota_used(const struct quota *q, uid_t uid, enum quota_res r)
{
	const struct quota_user *u = quota_lookup(q, uid);

	return u != NULL ? u->used[r] : 0;
}

uint64_t
quota_used_total(const struct quota *q, enum quota_res r)
{
	return q->total[r];
}

uint64_t
quota_refusals(const struct quota *q)
{
	return q->refusals;
}

const char *
quota_name(enum quota_res r)
{
	return quota_defs[r].name;
}

const char *
quota_per_uid_key(enum quota_res r)
{
	return quota_defs[r].per_uid.key;
}

const char *
quota_total_key(enum quota_res r)
{
	return quota_defs[r].total.key;
}

void
quota_refused_log(struct quota *q, uid_t uid, const char *what,
    const struct quota_refusal *why)
{
	uint64_t now = clock_now_ns();

	if (now - q->log_period_start >= QUOTA_LOG_PERIOD_NS) {
		if (q->log_suppressed > 0)
			log_notice("%" PRIu64 " more refusals were not logged "
			    "in the last %u s", q->log_suppressed,
			    (unsigned)(QUOTA_LOG_PERIOD_NS / 1000000000u));
		q->log_period_start = now;
		q->log_lines = 0;
		q->log_suppressed = 0;
	}
	if (q->log_lines >= QUOTA_LOG_BURST) {
		q->log_suppressed++;
		return;
	}
	q->log_lines++;
	log_notice("uid %u refused %s: %s (%" PRIu64 ") reached",
	    (unsigned)uid, what, why->limit, why->value);
}

json_t *
quota_to_json(const struct quota *q, uid_t uid, bool privileged,
    bool all_users)
{
	json_t *o = json_object(), *t = all_users ? json_object() : NULL;
	int r;

	if (o == NULL)
		return NULL;
	for (r = 0; r < QUOTA_NUM; r++) {
		uint64_t lim = privileged ?
		    quota_total_for(q, (enum quota_res)r, true) :
		    quota_per_uid_limit(q, (enum quota_res)r);

		json_object_set_new(o, quota_defs[r].name,
		    json_pack("{s:I, s:I}", "used",
		    (json_int_t)quota_used(q, uid, (enum quota_res)r),
		    "limit", (json_int_t)(lim > INT64_MAX ? INT64_MAX : lim)));
		if (t != NULL) {
			lim = quota_total_for(q, (enum quota_res)r, true);
			json_object_set_new(t, quota_defs[r].name,
			    json_pack("{s:I, s:I}", "used",
			    (json_int_t)q->total[r], "limit",
			    (json_int_t)(lim > INT64_MAX ? INT64_MAX : lim)));
		}
	}
	if (t != NULL) {
		json_t *users = json_array();
		size_t i;

		for (i = 0; i < q->cap; i++) {
			const struct quota_user *u = &q->users[i];
			json_t *e;

			if (!u->used_slot)
				continue;
			e = json_pack("{s:I}", "uid", (json_int_t)u->uid);
			for (r = 0; r < QUOTA_NUM; r++)
				json_object_set_new(e, quota_defs[r].name,
				    json_integer((json_int_t)u->used[r]));
			json_array_append_new(users, e);
		}
		json_object_set_new(o, "total", t);
		json_object_set_new(o, "users", users);
		json_object_set_new(o, "refusals",
		    json_integer((json_int_t)q->refusals));
	}
	return o;
}
