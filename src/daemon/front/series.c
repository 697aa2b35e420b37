/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * series.c: statsd/DogStatsD series as kstats — a line's series found or
 * made (its kstat, PERSISTENT ones revived within their bounds), the
 * caps, the updates a line makes, sets' distinct counts, and expiry
 * (series.h). The templates are series_tpl.c's, the table and the index
 * by path series_table.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <statsd/kstat.h>

#include "b64.h"
#include "blob.h"
#include "checkpoint.h"
#include "daemon.h"
#include "engine.h"
#include "filer.h"
#include "log.h"
#include "mirror.h"
#include "registry.h"
#include "render_prom.h"
#include "ring.h"
#include "series.h"
#include "series_priv.h"
#include "siphash.h"
#include "stat_list.h"
#include "stat_scalar.h"
#include "sysks.h"
#include "zones.h"

const char *const series_result_names[SERIES_NRESULTS] = {
	[SERIES_OK] = "ok",
	[SERIES_CAP] = "cap",
	[SERIES_DENIED] = "denied",
	[SERIES_TOOLONG] = "toolong",
	[SERIES_RANGE] = "range",
	[SERIES_STORE] = "store",
	[SERIES_NEGATIVE] = "negative",
	[SERIES_BUSY] = "busy",
};

static void
series_close(struct series *s)
{
	if (s->open_k == NULL)
		return;
	registry_blob_end(s->d->reg, s->open_k, s->open_now);
	s->open_k = NULL;
	s->open_sb = NULL;
	s->last_e = NULL;
}

static struct statsblob *
series_open(struct series *s, struct reg_kstat *k, uint64_t now)
{
	if (s->open_k != k) {
		series_close(s);
		s->open_sb = registry_blob_begin(s->d->reg, k);
		s->open_k = k;
		/* Made at its first use: gauges and sets need none. */
		s->plan_made = false;
	}
	s->open_now = now;
	return s->open_sb;
}

/* ---------------------------------------------------------------- sources */

static ssize_t
series_source(struct series *s, const struct series_src *src)
{
	size_t i;

	for (i = 0; i < s->nsrcs; i++)
		if (s->srcs[i].udp == src->udp &&
		    (src->udp || s->srcs[i].uid == src->peer.uid))
			return (ssize_t)i;
	if (s->nsrcs == s->csrcs) {
		size_t nc = s->csrcs ? 2 * s->csrcs : 8;
		void *p = realloc(s->srcs, nc * sizeof(*s->srcs));

		if (p == NULL)
			return -ENOMEM;
		s->srcs = p;
		s->csrcs = nc;
	}
	s->srcs[s->nsrcs] = (struct series_source){ src->peer.uid, src->udp, 0,
	    0, 0 };
	return (ssize_t)s->nsrcs++;
}

/* May source si make (or revive) one more PERSISTENT series this turn?
 * Counts it if so. */
static bool
series_durable_take(struct series *s, size_t si)
{
	struct series_source *so = &s->srcs[si];

	if (so->turn != s->turn) {
		so->turn = s->turn;
		so->durable = 0;
	}
	if (so->durable >= SERIES_DURABLE_PER_TURN)
		return false;
	so->durable++;
	return true;
}

/* ------------------------------------------------------------ the kstats */

static bool
series_persistent(const struct series *s, const char *name, uint32_t len)
{
	const char *p = s->d->cfg.statsd_persistent_prefixes;

	while (*p != '\0') {
		size_t n;

		p += strspn(p, " \t");
		n = strcspn(p, " \t");
		if (n > 0 && n <= len && memcmp(p, name, n) == 0)
			return true;
		p += n;
	}
	return false;
}

/* A series' record, written here and synced by the persistence thread
 * (no one is answered for a datagram). Returns: 0; -errno. */
static int
series_record(struct statsd *d, struct reg_kstat *k)
{
	int r;

	if (d->checkpoint == NULL)
		return 0;
	checkpoint_unsynced(d->checkpoint, true);
	r = checkpoint_kstat_put(d->checkpoint, k, false);
	checkpoint_unsynced(d->checkpoint, false);
	if (r == 0)
		checkpoint_flush(d->checkpoint);
	return r;
}

/* A series' runtime file on its way from the files' thread. */
struct series_file {
	struct filer_batch	 b;
	struct filer_make	 e;
	struct statsd		*d;
	bool			 revived;
	char			 blob[];
};

/* Back in the loop: the file goes to its series, which is recorded; one
 * that cannot be made takes the series back (a revived one sleeps
 * again), as a create in the loop would have refused it. A series gone
 * meanwhile leaves its file to be deleted. */
static void
series_file_done(struct filer_batch *b)
{
	struct series_file *sf = b->arg;
	struct statsd *d = sf->d;
	struct reg_kstat *k = registry_kstat_by_handle(d->reg, sf->e.handle);
	int r = sf->e.err;

	if (r == 0 && (k == NULL || k->storage != NULL ||
	    registry_kstat_attach(d->reg, k, mirror_storage(sf->e.m)) < 0)) {
		blob_storage_remove(mirror_storage(sf->e.m));
		k = NULL;
	}
	if (k != NULL && r == 0)
		r = series_record(d, k);
	if (k != NULL && r < 0) {
		log_debug("statsd series %s: not durable: %s", k->hdr.name,
		    strerror(-r));
		if (sf->revived)
			(void)registry_kstat_delete(d->reg, k);
		else
			registry_kstat_forget(d->reg, k);
	}
	free(sf);
}

/* Hand k's file to the files' thread. Returns: 0; -ENOMEM. */
static int
series_file_later(struct statsd *d, struct reg_kstat *k, bool revived)
{
	struct series_file *sf = calloc(1, sizeof(*sf) + k->size);

	if (sf == NULL)
		return -ENOMEM;
	sf->d = d;
	sf->revived = revived;
	memcpy(sf->blob, registry_blob_peek(k), k->size);
	sf->e.handle = k->handle;
	sf->e.size = k->size;
	sf->e.blob = sf->blob;
	sf->b.e = &sf->e;
	sf->b.n = 1;
	sf->b.done = series_file_done;
	sf->b.arg = sf;
	filer_make(d->filer, &sf->b);
	return 0;
}

/*
 * A PERSISTENT series is made as KstatCreate makes a kstat: with its
 * runtime file, and in the checkpoint, or not at all (a revived one goes
 * back to sleep). Others need nothing more. With the runtime files'
 * thread, its file is made there, and its record written once it is
 * (series_file_done()): until then it is counted into the store as any
 * series, and a crash meanwhile leaves no trace of it.
 * Returns: 0; -errno.
 */
static int
series_durable(struct series *s, struct reg_kstat *k, bool revived)
{
	struct statsd *d = s->d;
	int r = 0;

	if (!(k->hdr.flags & KSTAT_FLAG_PERSISTENT))
		return 0;
	if (k->storage == NULL && checkpoint_outlives_statsd(d->zones, k)) {
		struct mirror *m;

		if (d->filer != NULL)
			r = series_file_later(d, k, revived);
		else {
			/* Without the thread, here. */
			r = d->persist_dir != NULL ? mirror_create(
			    d->persist_dir, k->handle, registry_blob_peek(k),
			    k->size, &m) : -ENOENT;
			if (r == 0)
				k->storage = mirror_storage(m);
			if (r == 0)
				r = series_record(d, k);
		}
	} else
		r = series_record(d, k);
	if (r < 0) {
		if (revived)
			(void)registry_kstat_delete(d->reg, k);
		else
			registry_kstat_forget(d->reg, k);
	}
	return r;
}

/*
 * The kstat of a new series: one that exists with its path (left by an
 * earlier run, dormant or not), found by its path; or a new one. Its
 * instance is a keyed hash of the path, or the next free one after it:
 * no one outside statsd can tell where a series will go, and since the
 * path, not the instance, finds it again, no kstat in the way can keep a
 * series from being made (no peer makes kstats in module statsd, and a
 * series of one's own only moves another along).
 */
static enum series_result
series_kstat(struct series *s, const struct series_src *src, size_t si,
    uint8_t type, struct reg_template *tpl, const struct sl_series_path *sp,
    bool persistent, struct reg_kstat **ret)
{
	struct statsd *d = s->d;
	struct reg_kstat_new n;
	struct kstat_hdr hdr;
	struct quota_refusal why;
	struct input_error kerr;
	struct reg_kstat *k, **all;
	char kname[KSTAT_STRLEN], desc[64 + SL_PATH_MAX];
	uint64_t h;
	int32_t inst = 0;
	bool revived;
	size_t tries;
	int r;

	if (s->bp_cap == 0 && series_bypath_build(s, 0) < 0)
		return SERIES_STORE;
	h = series_path_hash(s, sp->seg, sp->nseg);
	snprintf(kname, sizeof(kname), "%s", sp->seg[2]);
	k = series_bypath_find(s, h, sp);
	if (k != NULL) {
		/* The path holds the owner's tag, so this is the sender's
		 * own series, unless an older statsd left it (series.h). */
		if (k->owner != (src->udp ? d->self_uid : src->peer.uid))
			return SERIES_DENIED;
		/* One made from an older layout of statsd's own template
		 * of this type (an older statsd, other statsd_buckets_*
		 * or statsd_native_schema) keeps it and its data: VOI 0
		 * means the same in every layout, and series_update()
		 * counts into the buckets the blob itself has. */
		if (k->tpl != tpl && tpl == s->tpl[type] &&
		    series_tpl_is_type(k->tpl, type, d->self_uid))
			tpl = k->tpl;
		if (!k->dormant && k->tpl == tpl) {
			*ret = k;
			return SERIES_OK;
		}
		if (k->tpl != tpl)
			return SERIES_STORE;
		inst = k->hdr.instance;		/* revived where it sleeps */
	}
	/* Made or woken, a PERSISTENT series costs a file and a sync: a
	 * source's turn has room for SERIES_DURABLE_PER_TURN (one awake
	 * already, as after a restart, costs nothing). */
	if ((persistent || k != NULL) && !series_durable_take(s, si))
		return SERIES_BUSY;
	if (k == NULL) {
		/* Every kstat but one could be in the way, no more. */
		inst = (int32_t)(1 + series_mix(h) % 0x7ffffffe);
		for (tries = registry_kstats(d->reg, &all) + 1; tries > 0 &&
		    registry_kstat_find(d->reg, SYSKS_MODULE_STATSD, inst,
		    kname) != NULL; tries--)
			inst = inst == INT32_MAX ? 1 : inst + 1;
		if (tries == 0)
			return SERIES_STORE;
	}
	snprintf(desc, sizeof(desc), "statsd %s %s", sp->seg[1], sp->seg[2]);
	r = ks_hdr_new(&hdr, SYSKS_MODULE_STATSD, inst, kname, SERIES_CLASS,
	    KSTAT_TYPE_BLOB, persistent ? KSTAT_FLAG_PERSISTENT : 0, sp->seg,
	    sp->nseg, desc, &kerr);
	if (r < 0) {
		log_debug("statsd series %s: %s: %s", sp->seg[2],
		    kerr.where[0] != '\0' ? kerr.where : "header", kerr.msg);
		return SERIES_STORE;
	}
	memset(&n, 0, sizeof(n));
	n.hdr = &hdr;
	n.owner = src->udp ? d->self_uid : src->peer.uid;
	/* UDP's series are anonymous: charged to statsd's own uid as an
	 * unprivileged peer's, so held to its per-user limits and to the
	 * totals less the reserve (besides UDP's own cap). As privileged,
	 * any local user's UDP lines of a PERSISTENT prefix took the whole
	 * of max_persistent_bytes, the reserve too, and root's PERSISTENT
	 * creates were refused, at every restart after. */
	n.privileged = src->peer.privileged;
	n.owner_zone = ZONE_GLOBAL;
	n.zone = ZONE_GLOBAL;
	n.tpl = tpl;
	r = registry_kstat_create(d->reg, &n, &k, &revived, &why);
	if (r < 0) {
		log_debug("statsd series %s: %s", sp->seg[2], strerror(-r));
		return SERIES_STORE;
	}
	r = series_durable(s, k, revived);
	if (r < 0) {
		log_debug("statsd series %s: not durable: %s", sp->seg[2],
		    strerror(-r));
		return SERIES_STORE;
	}
	if (!revived) {
		/* At most half full; a rebuild also drops the deleted. */
		if (2 * (s->bp_n + 1) > s->bp_cap &&
		    series_bypath_build(s, s->bp_n + 1) < 0)
			return SERIES_STORE;
		if (series_bypath_find(s, h, sp) == NULL) {
			series_bypath_put(s->bypath, s->bp_cap, h, k->handle);
			s->bp_n++;
		}
	}
	*ret = k;
	return SERIES_OK;
}

/*
 * The template of a new series of type: statsd_template_<type>, when
 * set, names one that root or statsd itself registered (a template of
 * another user's would let that user shape every sender's series), with
 * a VOI 0; else statsd's own.
 * Returns: it; NULL if the configured one cannot be used.
 */
static struct reg_template *
series_tpl_of(struct series *s, uint8_t type)
{
	const char *spec = s->d->cfg.statsd_template[type];
	struct reg_template *t;

	if (spec == NULL || spec[0] == '\0')
		return s->tpl[type];
	/* Root's or statsd's own, never another user's of that name. */
	t = registry_template_find_owned(s->d->reg, spec, 0);
	if (t == NULL)
		t = registry_template_find_owned(s->d->reg, spec,
		    s->d->self_uid);
	if (t == NULL || (t->owner != 0 && t->owner != s->d->self_uid) ||
	    t->nnames < 1 || t->names[0] == NULL) {
		log_debug("statsd_template_%s %s: %s", sl_type_names[type],
		    spec, t == NULL ? "no such template" : t->nnames < 1 ||
		    t->names[0] == NULL ? "no VOI 0" : "not root's");
		return NULL;
	}
	return t;
}

/* statsd_max_series, less quota_reserve_percent for an unprivileged
 * sender (UDP's are), as every total keeps room for privileged peers:
 * else users together (and UDP, anyone's) filled it and root's lines
 * made no series. */
static size_t
series_max(const struct series *s, const struct series_src *src)
{
	const struct config *c = &s->d->cfg;
	size_t max = c->statsd_max_series;

	if (src->peer.privileged)
		return max;
	return max - max * c->quota_reserve_percent / 100;
}

/* The slow path: a line whose series is not in the table (tag[]: sorted,
 * distinct). */
static enum series_result
series_make(struct series *s, const struct series_src *src,
    const struct sl_line *l, const char **tag, uint32_t *tag_len,
    uint32_t ntags, uint64_t now, struct series_ent **ret)
{
	const struct config *c = &s->d->cfg;
	struct sl_series_path sp;
	struct series_ent *e, **slot;
	struct reg_template *tpl;
	struct reg_kstat *k;
	enum series_result res;
	uint32_t i, nd = 0;
	ssize_t si;
	size_t bytes;
	uint64_t h;
	bool persistent;
	char *p;
	int r;

	r = sl_series_path_make(l->type, l->name, l->name_len, tag, tag_len,
	    ntags, &sp);
	if (r < 0)
		return SERIES_TOOLONG;
	/* tag[] came sorted and distinct (series_tags_sort()). */
	nd = ntags;
	h = series_key(s, l->type, l->name, l->name_len, tag, tag_len, nd);
	slot = series_slot(s, h, l->type, l->name, l->name_len, tag, tag_len,
	    nd);
	if (*slot != NULL) {
		*ret = *slot;
		return SERIES_OK;
	}
	si = series_source(s, src);
	if (si < 0)
		return SERIES_STORE;
	if (s->n >= series_max(s, src) || s->srcs[si].n >= (src->udp ?
	    c->statsd_udp_max_series : c->statsd_max_series_per_uid))
		return SERIES_CAP;
	tpl = series_tpl_of(s, l->type);
	if (tpl == NULL)
		return SERIES_STORE;
	persistent = series_persistent(s, l->name, l->name_len);
	res = series_kstat(s, src, (size_t)si, l->type, tpl, &sp, persistent,
	    &k);
	if (res != SERIES_OK)
		return res;
	bytes = sizeof(*e) + nd * (sizeof(char *) + sizeof(uint32_t)) +
	    l->name_len + 1;
	for (i = 0; i < nd; i++)
		bytes += tag_len[i];
	e = calloc(1, bytes);
	if (e == NULL)
		return SERIES_STORE;
	e->tag = (const char **)(void *)e->bytes;
	e->tag_len = (uint32_t *)(void *)(e->bytes + nd * sizeof(char *));
	p = e->bytes + nd * (sizeof(char *) + sizeof(uint32_t));
	memcpy(p, l->name, l->name_len);
	e->name = p;
	p += l->name_len + 1;
	for (i = 0; i < nd; i++) {
		memcpy(p, tag[i], tag_len[i]);
		e->tag[i] = p;
		e->tag_len[i] = tag_len[i];
		p += tag_len[i];
	}
	e->hash = h;
	e->handle = k->handle;
	e->last_ns = now;
	e->src = (uint32_t)si;
	e->type = l->type;
	e->name_len = l->name_len;
	e->ntags = nd;
	if ((s->n + 1) * 2 > s->cap && series_grow(s) < 0) {
		series_ent_free(s, e);
		return SERIES_STORE;
	}
	slot = series_slot(s, h, l->type, l->name, l->name_len, tag, tag_len,
	    nd);
	*slot = e;
	s->n++;
	s->srcs[si].n++;
	s->st.created++;
	*ret = e;
	return SERIES_OK;
}

/* ------------------------------------------------------------ the updates */

/* A register's value; a byte that is no digit (a blob from elsewhere) is
 * 0. */
static unsigned
hll_val(char c)
{
	int v = b64_value(c);

	return v < 0 ? 0 : (unsigned)v;
}

/*
 * A set's HLL_M registers: the STRING of its VOI 2 when its template has
 * one that holds them (statsd.set's), made all zeros when it holds
 * anything else (a new series, a reset); else the entry's own, made on
 * first use.
 * Returns: them; NULL without memory.
 */
static char *
hll_regs(struct series_ent *e, struct statsblob *sb)
{
	struct statsblobv1 *b = (struct statsblobv1 *)sb;
	struct voistat *vs = NULL;

	if (blob_nvois(b) > HLL_VOI && b->vois[HLL_VOI].id >= 0)
		vs = blob_stat(b, &b->vois[HLL_VOI], VS_STYPE_LAST);
	if (vs != NULL && vs->dtype == VSD_DTYPE_STRING &&
	    ((struct vsd_string *)blob_vsd(b, vs))->cap > HLL_M) {
		struct vsd_string *str = (struct vsd_string *)blob_vsd(b, vs);

		if (str->len != HLL_M) {
			memset(str->s, 'A', HLL_M);
			memset(str->s + HLL_M, 0, str->cap - HLL_M);
			str->len = HLL_M;
			vs->flags |= VS_VSDVALID;
		}
		return str->s;
	}
	if (e->hll == NULL && (e->hll = malloc(HLL_M)) != NULL)
		memset(e->hll, 'A', HLL_M);
	return e->hll;
}

static void
hll_add(char *reg, uint64_t h)
{
	uint32_t j = (uint32_t)(h >> (64 - HLL_P));
	uint64_t w = (h << HLL_P) | (UINT64_C(1) << (HLL_P - 1));
	unsigned rho = (unsigned)__builtin_clzll(w) + 1;	/* ≤ 55 */

	if (rho > hll_val(reg[j]))
		reg[j] = b64_digit(rho);
}

/* Flajolet et al.'s estimate, with linear counting for small counts. */
static uint64_t
hll_count(const char *reg)
{
	double sum = 0, m = HLL_M, e;
	unsigned j, zeros = 0;

	for (j = 0; j < HLL_M; j++) {
		unsigned r = hll_val(reg[j]);	/* < 64 */

		sum += 1.0 / (double)(UINT64_C(1) << r);	/* exact */
		zeros += r == 0;
	}
	e = 0.7213 / (1 + 1.079 / m) * m * m / sum;
	if (e <= 2.5 * m && zeros > 0)
		e = m * log(m / zeros);
	return (uint64_t)llround(e);
}

/* A value in the VOI's type: a timer's in microseconds; rounded to a
 * whole number, or for a fixed-point VOI to its fraction bits. */
static bool
series_x(uint8_t type, uint8_t dtype, double v, int64_t *ret)
{
	if (type == SL_TIMER)
		v *= SERIES_TIMER_SCALE;
	if (dtype == VSD_DTYPE_Q_S64 || dtype == VSD_DTYPE_Q_U64)
		v = ldexp(v, STATS_Q64_FBITS);
	else if (dtype == VSD_DTYPE_Q_S32 || dtype == VSD_DTYPE_Q_U32)
		v = ldexp(v, STATS_Q32_FBITS);
	v = nearbyint(v);
	if (!(v > -9.2e18 && v < 9.2e18))
		return false;
	*ret = (int64_t)v;
	return true;
}

/*
 * A counter's values, checked before any is applied: a counter only
 * grows, so a negative increment (python-statsd's decr) refuses the whole
 * line, as the Prometheus statsd_exporter refuses it: a rate() over a
 * counter that went down sees a reset. Values that go down are a gauge's
 * deltas (-N|g).
 */
static bool
series_negative(const struct sl_line *l)
{
	const char *p = l->values, *end = p + l->values_len, *e, *q;

	/* Without a '-' (nearly every line), nothing to look at: a value
	 * below 0 begins with one, and one value is the whole part. */
	if (l->nvalues == 1 ? *p != '-' : memchr(p, '-', l->values_len) ==
	    NULL)
		return false;
	for (; p < end; p = e + 1) {
		e = memchr(p, ':', (size_t)(end - p));
		if (e == NULL)
			e = end;
		/* -0, -0.0 and -0e5 are 0: a digit 1-9 before the exponent
		 * makes it below 0 (the parser took the number already). */
		if (*p == '-')
			for (q = p + 1; q < e && *q != 'e' && *q != 'E'; q++)
				if (*q >= '1' && *q <= '9')
					return true;
	}
	return false;
}

/* Weights past this are not whole numbers a double holds exactly. */
#define SERIES_WEIGHT_MAX	4503599627370496.0	/* 2^52 */

static bool
series_fixed(uint8_t dtype)
{
	return dtype == VSD_DTYPE_Q_S32 || dtype == VSD_DTYPE_Q_U32 ||
	    dtype == VSD_DTYPE_Q_S64 || dtype == VSD_DTYPE_Q_U64;
}

/*
 * v as a whole number, its fraction carried to the series' next one
 * (error diffusion): the whole numbers given out stay within one of the
 * sum of the v's, whatever they are. A total a hair below a whole number
 * is that number: 1/0.75 is rounded, and three of them make
 * 3.9999999999999996, not 4 (the carry may then be a hair below 0).
 */
static double
series_carry(struct series_ent *e, double v)
{
	double w = e->carry + v, n = floor(w + 1e-9);

	e->carry = w - n;
	return n;
}

/*
 * A counter's increment, count/rate (v ≥ 0). A fixed-point VOI (a
 * statsd_template_counter of Q type) keeps its fraction itself; an
 * integer one takes whole numbers, the fractions carried: five lines of
 * 1|c|@0.3 add 3, 3, 4, 3, 3 (16, for 16.67), and the sum stays within
 * one of the exact total.
 */
static double
series_count(struct series_ent *e, uint8_t dtype, double v)
{
	return series_fixed(dtype) ? v : series_carry(e, v);
}

/*
 * The weight of one sampled value of a timer, histogram or distribution:
 * 1/rate, whole (the (X, Y) model's weights are counts), with the
 * fraction carried to the series' next value (error diffusion): ten
 * values at @0.3 weigh 3, 3, 4, 3, 3, 4, ... 33 in all, not 30, and the
 * total stays within one of values/rate whatever the rates.
 * Returns: whether the weight fits (a rate below 2^-52 does not).
 */
static bool
series_weight(struct series_ent *e, double rate, int64_t *ret)
{
	/* (Most lines are not sampled: no division, whose latency every
	 * line of a series would wait for.) */
	double w = rate == 1.0 ? 1.0 : 1.0 / rate;

	if (!(e->carry + w < SERIES_WEIGHT_MAX))
		return false;
	*ret = (int64_t)series_carry(e, w);	/* ≥ 1: rate ≤ 1 */
	return true;
}

/* Has the blob the buckets of series_tpl_classic() (voi 1) or
 * series_tpl_native() (voi 2): a HIST there (a template of
 * statsd_template_timer may have other VOIs)? */
static bool
series_has_hist(const struct statsblob *sb, uint16_t voi)
{
	const struct statsblobv1 *b = (const struct statsblobv1 *)sb;

	return blob_nvois(b) > voi && b->vois[voi].id >= 0 &&
	    blob_stat(b, &b->vois[voi], VS_STYPE_HIST) != NULL;
}

static enum series_result
series_update(struct series *s, struct series_ent *e, struct statsblob *sb,
    const struct sl_line *l, uint64_t now)
{
	struct ring_rec rec = { .voi = 0, .op = STATS_OP_XY, .time = now };
	uint8_t dtype = ((const struct statsblobv1 *)sb)->vois[0].dtype;
	enum series_result res = SERIES_OK;
	struct sl_value v;
	uint32_t pos = 0;
	/* A counter's count scaled by 1/rate is X itself (series_count());
	 * Y = 1, so COUNT counts the values received. */
	int64_t y = 1, x;
	char *regs = NULL;

	if (l->type == SL_SET && (regs = hll_regs(e, sb)) == NULL)
		return SERIES_STORE;
	while (sl_value_next(l, &pos, &v)) {
		int rc;

		if (l->type != SL_COUNTER && l->type != SL_GAUGE &&
		    l->type != SL_SET && !series_weight(e, l->rate, &y)) {
			res = SERIES_RANGE;
			continue;
		}
		if (l->type == SL_SET) {
			uint64_t h = series_mix(series_fnv(v.s, v.len,
			    FNV_BASIS));

			hll_add(regs, h);
			rc = engine_apply(sb, 0, STATS_OP_XY, 0,
			    (int64_t)(h >> 1), 1, now);
		} else if (!series_x(l->type, dtype, l->type == SL_COUNTER ?
		    series_count(e, dtype, l->rate == 1.0 ? v.v :
		    v.v / l->rate) : v.v, &x)) {
			rc = -ERANGE;
		} else if (l->type == SL_GAUGE) {
			rc = engine_apply(sb, 0, v.signed_ ? STATS_OP_REL :
			    STATS_OP_ABS, 0, x, 0, now);
		} else {
			/* Through the plan: a counter's SUM and COUNT are
			 * plain additions, without the kind table. */
			rec.x = x;
			rec.y = y;
			if (!s->plan_made) {
				engine_plan_make(&s->plan, sb, 0);
				s->plan_made = true;
			}
			rc = engine_plan_apply(&s->plan, sb, &rec);
			/* A timer's, histogram's or distribution's classic
			 * and native buckets (VOIs 1 and 2,
			 * series_tpl_classic(), series_tpl_native()). */
			if (rc >= 0 && l->type != SL_COUNTER &&
			    series_has_hist(sb, 1))
				rc = engine_apply(sb, 1, STATS_OP_XY, 0, x, y,
				    now);
			if (rc >= 0 && l->type != SL_COUNTER &&
			    series_has_hist(sb, 2))
				rc = engine_apply(sb, 2, STATS_OP_XY, 0, x, y,
				    now);
		}
		if (rc < 0)
			res = SERIES_RANGE;
	}
	if (l->type == SL_SET) {
		struct statsblobv1 *b = (struct statsblobv1 *)sb;
		struct voistat *vs = blob_stat(b, &b->vois[0], VS_STYPE_LIST);
		const struct vsd_list *li = vs != NULL ?
		    (const struct vsd_list *)blob_vsd(b, vs) : NULL;
		uint64_t n;

		/* Exact while the list holds every member; the estimate (a
		 * pass over the registers) only past that. */
		if (li != NULL && li->hits_missed == 0)
			n = li->nentries;
		else {
			n = hll_count(regs);
			if (li != NULL && n < li->nentries)
				n = li->nentries;
		}
		(void)engine_apply(sb, 1, STATS_OP_SET, STATS_OPF_UNSIGNED,
		    (int64_t)n, 0, now);
	}
	return res;
}

/* The tag a DogStatsD container field |c:<id> becomes, and room for it
 * (statsd_tag_max bounds the id: at most 244 bytes). */
#define SERIES_CTAG		"container_id:"
#define SERIES_CTAG_LEN		(sizeof(SERIES_CTAG) - 1)
#define SERIES_CTAG_MAX		(SERIES_CTAG_LEN + 256)

/* The owner's tag, statsd_uid:<uid>, and room for it. */
#define SERIES_UTAG		SERIES_UID_TAG ":"
#define SERIES_UTAG_LEN		(sizeof(SERIES_UTAG) - 1)
#define SERIES_UTAG_MAX		(SERIES_UTAG_LEN + 12)

/* Is (t, n) the tag key (a NUL-ended "key:") bare or with a value? */
static bool
series_is_tag(const char *t, uint32_t n, const char *key, size_t keylen)
{
	return (n == keylen - 1 && memcmp(t, key, n) == 0) ||
	    (n >= keylen && memcmp(t, key, keylen) == 0);
}

/*
 * Would the exposition show tag (t, n) as the label statsd_uid? Its key
 * (up to the first ':') as a Prometheus label name: every run of bytes
 * other than [A-Za-z0-9] one '_' (render_prom.c's rule), so that
 * "statsd.uid" and "statsd__uid" are it too.
 */
static bool
series_is_uid_tag(const char *t, uint32_t n)
{
	static const char want[] = SERIES_UID_TAG;
	char key[sizeof(want)];
	uint32_t i, l = 0;

	/* Each byte of the key makes at most one of the label's, which
	 * begins with a byte of its own ('_' would stand for others). */
	if (n < sizeof(want) - 1 || t[0] != want[0])
		return false;
	for (i = 0; i < n && t[i] != ':'; i++) {
		char c = t[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9')))
			c = '_';
		if (c == '_' && l > 0 && key[l - 1] == '_')
			continue;
		if (l == sizeof(want) - 1)
			return false;
		key[l++] = c;
	}
	return l == sizeof(want) - 1 && memcmp(key, want, l) == 0;
}

/* Is (t, n) a container_id tag, bare or with a value? */
static bool
series_is_ctag(const char *t, uint32_t n)
{
	return series_is_tag(t, n, SERIES_CTAG, SERIES_CTAG_LEN);
}

/*
 * A line's tags into tag[] (room for SL_PATH_TAGS_MAX + 1): its #tags,
 * and its DogStatsD container field |c:<id> as the tag container_id:<id>
 * (written in ctag, SERIES_CTAG_MAX bytes), as DogStatsD's origin
 * detection tags the point with the container it came from. The field
 * wins: a container_id tag the line also carries is left out. Then, for
 * a line of the Unix socket, its sender's statsd_uid:<uid> (written in
 * utag, SERIES_UTAG_MAX bytes): the series is that uid's (series.h). A
 * tag of the line's own that the exposition would show as statsd_uid is
 * always left out: no line names an owner but its sender's, and a UDP
 * line none.
 * Returns: false for more than SL_PATH_TAGS_MAX tags.
 */
static bool
series_tags(const struct sl_line *l, const struct series_src *src,
    const char **tag, uint32_t *tag_len, uint32_t *ret_n, char *ctag,
    char *utag)
{
	uint32_t n = 0, pos = 0, tl;
	const char *t;
	int ul;

	while (l->tags_len > 0 &&
	    sl_tag_next(l->tags, l->tags_len, &pos, &t, &tl)) {
		if (l->container != NULL && series_is_ctag(t, tl))
			continue;
		if (series_is_uid_tag(t, tl))
			continue;
		if (n == SL_PATH_TAGS_MAX)
			return false;
		tag[n] = t;
		tag_len[n++] = tl;
	}
	if (l->container != NULL) {
		if (n == SL_PATH_TAGS_MAX ||
		    l->container_len > SERIES_CTAG_MAX - SERIES_CTAG_LEN)
			return false;
		memcpy(ctag, SERIES_CTAG, SERIES_CTAG_LEN);
		memcpy(ctag + SERIES_CTAG_LEN, l->container, l->container_len);
		tag[n] = ctag;
		tag_len[n++] = (uint32_t)SERIES_CTAG_LEN + l->container_len;
	}
	if (!src->udp) {
		if (n == SL_PATH_TAGS_MAX)
			return false;
		ul = snprintf(utag, SERIES_UTAG_MAX, "%s%u", SERIES_UTAG,
		    (unsigned)src->peer.uid);
		tag[n] = utag;
		tag_len[n++] = (uint32_t)ul;
	}
	*ret_n = n;
	return true;
}

/*
 * Is l, a line without tags, of the last line's series e? Of its type and
 * name, from its source (a uid, or UDP), and without a tag of its own: a
 * series of UDP has none, one of the Unix socket only its owner's
 * (series_tags()). Its kstat is as it was: nothing but this batch's lines
 * has run while its blob is open (series_open()).
 */
static bool
series_last_is(const struct series *s, const struct series_src *src,
    const struct sl_line *l)
{
	const struct series_ent *e = s->last_e;
	const struct series_source *so;

	if (e == NULL || l->tags_len != 0 || l->container_len != 0 ||
	    e->type != l->type || e->name_len != l->name_len ||
	    e->ntags != (src->udp ? 0u : 1u))
		return false;
	/* Names of one family differ at their end (api.req.2xx, .5xx). */
	if (e->name[l->name_len - 1] != l->name[l->name_len - 1])
		return false;
	so = &s->srcs[e->src];
	return so->udp == src->udp && (src->udp ||
	    so->uid == src->peer.uid) &&
	    memcmp(e->name, l->name, l->name_len) == 0;
}

enum series_result
series_apply(struct series *s, const struct series_src *src,
    const struct sl_line *l, uint64_t now)
{
	const char *tag[SL_PATH_TAGS_MAX + 1];
	uint32_t tag_len[SL_PATH_TAGS_MAX + 1], ntags = 0;
	char ctag[SERIES_CTAG_MAX], utag[SERIES_UTAG_MAX];
	struct series_ent **slot, *e;
	struct reg_kstat *k;
	struct statsblob *sb;
	enum series_result res;
	uint64_t h;

	/* Refused before its series is looked up: it makes none either. */
	if (l->type == SL_COUNTER && series_negative(l))
		return SERIES_NEGATIVE;
	/* A client's batch often names one series line after line (a
	 * counter bumped in a loop, one timer's samples). */
	if (series_last_is(s, src, l)) {
		e = s->last_e;
		k = s->open_k;
		goto found;
	}
	if (!series_tags(l, src, tag, tag_len, &ntags, ctag, utag))
		return SERIES_TOOLONG;
	ntags = series_tags_sort(tag, tag_len, ntags);
	h = series_key(s, l->type, l->name, l->name_len, tag, tag_len,
	    ntags);
	slot = series_slot(s, h, l->type, l->name, l->name_len, tag, tag_len,
	    ntags);
	e = *slot;
	if (e == NULL) {
		series_close(s);
		res = series_make(s, src, l, tag, tag_len, ntags, now, &e);
		if (res != SERIES_OK)
			return res;
	}
	k = registry_kstat_by_handle(s->d->reg, e->handle);
	if (k == NULL || k->dormant) {
		series_close(s);
		/* Deleted by a peer, or made dormant: make it again. Its
		 * slot by its own key (sorted, distinct tags), not by a walk
		 * of the table: a user who deleted its series and sent their
		 * lines again made each line cost the whole table. */
		slot = series_slot(s, e->hash, e->type, e->name, e->name_len,
		    e->tag, e->tag_len, e->ntags);
		if (*slot == e)
			series_unslot(s, (size_t)(slot - s->tab));
		series_ent_free(s, e);
		res = series_make(s, src, l, tag, tag_len, ntags, now, &e);
		if (res != SERIES_OK)
			return res;
		k = registry_kstat_by_handle(s->d->reg, e->handle);
		if (k == NULL)
			return SERIES_STORE;
	}
	/* A sender's lines find its own namespace's series only (its uid's
	 * tag, or none for UDP): a kstat of that path owned by another (a
	 * series an older statsd left, that privileged senders shared)
	 * is not written, privileged sender or not. */
	if (k->owner != (src->udp ? s->d->self_uid : src->peer.uid))
		return SERIES_DENIED;
found:
	e->last_ns = now;
	sb = series_open(s, k, now);
	s->last_e = e;
	e->hint_k = k;
	e->hint_blob = sb;
	return series_update(s, e, sb, l, now);
}

void
series_hint_key(struct series *s, const struct series_src *src,
    const struct sl_line *l, struct series_hint *ret)
{
	const char *tag[SL_PATH_TAGS_MAX + 1];
	uint32_t tag_len[SL_PATH_TAGS_MAX + 1], ntags = 0;
	char ctag[SERIES_CTAG_MAX], utag[SERIES_UTAG_MAX];

	ret->ok = false;
	if (!series_tags(l, src, tag, tag_len, &ntags, ctag, utag))
		return;
	ntags = series_tags_sort(tag, tag_len, ntags);
	ret->h = series_key(s, l->type, l->name, l->name_len, tag, tag_len,
	    ntags);
	ret->ok = true;
	__builtin_prefetch(&s->tab[ret->h & (s->cap - 1)]);
}

void
series_hint_entry(const struct series *s, const struct series_hint *hint)
{
	const struct series_ent *e;

	if (!hint->ok)
		return;
	e = s->tab[hint->h & (s->cap - 1)];
	if (e != NULL)
		__builtin_prefetch(e);
}

void
series_hint_data(const struct series *s, const struct series_hint *hint)
{
	const struct series_ent *e;
	uintptr_t k, b;

	if (!hint->ok)
		return;
	/* An entry in the table is a live one: its fields may be read. The
	 * addresses it keeps may be stale, so they are only prefetched, as
	 * integers (a freed object's address is not a pointer to use). */
	e = s->tab[hint->h & (s->cap - 1)];
	if (e == NULL || e->hash != hint->h)
		return;
	registry_kstat_hint(s->d->reg, e->handle);
	k = (uintptr_t)e->hint_k;
	b = (uintptr_t)e->hint_blob;
	if (k != 0) {
		__builtin_prefetch((const void *)k);
		__builtin_prefetch((const void *)(k +
		    offsetof(struct reg_kstat, owner)));
		__builtin_prefetch((const void *)(k +
		    offsetof(struct reg_kstat, blob)));
		__builtin_prefetch((const void *)(k +
		    offsetof(struct reg_kstat, ix)));
	}
	if (b != 0) {
		__builtin_prefetch((const void *)b, 1);
		__builtin_prefetch((const void *)(b + 64), 1);
		__builtin_prefetch((const void *)(b + 128), 1);
		__builtin_prefetch((const void *)(b + 192), 1);
	}
}

size_t
series_probe_max(const struct series *s)
{
	size_t i, d, max = 0, mask = s->cap - 1;

	for (i = 0; i < s->cap; i++)
		if (s->tab[i] != NULL) {
			d = (i - (s->tab[i]->hash & mask)) & mask;
			if (d > max)
				max = d;
		}
	return max;
}

void
series_sync(struct series *s)
{
	s->turn++;
	series_close(s);
	registry_sync(s->d->reg);
}

unsigned
series_expire(struct series *s, uint64_t now, unsigned budget)
{
	uint64_t ttl = (uint64_t)s->d->cfg.statsd_ttl_s * 1000000000u;
	unsigned expired = 0;
	size_t i;

	series_close(s);
	if (ttl == 0 || s->n == 0)
		return 0;
	if (budget > s->cap)
		budget = (unsigned)s->cap;
	for (; budget > 0; budget--) {
		struct series_ent *e;
		struct reg_kstat *k;

		i = s->cursor % s->cap;
		e = s->tab[i];
		if (e == NULL || now - e->last_ns < ttl) {
			s->cursor = i + 1;
			continue;
		}
		/* A PERSISTENT kstat goes dormant with its data; any other
		 * is removed. The slot is refilled by the cluster's next
		 * entry, so the cursor stays. */
		k = registry_kstat_by_handle(s->d->reg, e->handle);
		if (k != NULL && !k->dormant) {
			/* Dormant in the checkpoint first, as KstatDelete. */
			if ((k->hdr.flags & KSTAT_FLAG_PERSISTENT) &&
			    s->d->checkpoint != NULL) {
				checkpoint_unsynced(s->d->checkpoint, true);
				(void)checkpoint_kstat_put(s->d->checkpoint, k,
				    true);
				checkpoint_unsynced(s->d->checkpoint, false);
				checkpoint_flush(s->d->checkpoint);
			}
			(void)registry_kstat_delete(s->d->reg, k);
		}
		series_unslot(s, i);
		series_ent_free(s, e);
		expired++;
	}
	s->st.expired += expired;
	return expired;
}

void
series_stats(const struct series *s, struct series_stats *ret)
{
	*ret = s->st;
	ret->series = s->n;
}

int
series_new(struct statsd *d, struct series **ret)
{
	struct series *s = calloc(1, sizeof(*s));
	int r;

	if (s == NULL)
		return -ENOMEM;
	s->d = d;
	sip_key_random(&s->key);
	s->cap = 1024;
	s->tab = calloc(s->cap, sizeof(*s->tab));
	if (s->tab == NULL) {
		free(s);
		return -ENOMEM;
	}
	r = series_templates(d, s->tpl);
	if (r < 0) {
		series_free(s);
		return r;
	}
	*ret = s;
	return 0;
}

struct series *
series_free(struct series *s)
{
	size_t i;

	if (s == NULL)
		return NULL;
	series_close(s);
	for (i = 0; i < s->cap; i++)
		series_ent_free(s, s->tab[i]);
	free(s->tab);
	free(s->srcs);
	free(s->bypath);
	free(s);
	return NULL;
}
