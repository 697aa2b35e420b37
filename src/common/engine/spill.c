/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * spill.c: the spill buffers of a ring's overflow area — a producer
 * folding updates into spill blobs with the engine or logging them,
 * handing buffers over, and statsd merging a spill blob into a kstat
 * with the kinds' merge functions. spill.h has the rules.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "blob.h"
#include "clock.h"
#include "engine.h"
#include "kind.h"
#include "spill.h"

enum spill_state {
	SB_FREE,	/* statsd released it (or never had it) */
	SB_FILLING,	/* the producer writes into it */
	SB_CLOSED,	/* full: waits for room in the ring to be handed over */
	SB_HANDED,	/* in statsd's hands until it releases it */
};

/* One kstat of a buffer. */
struct spill_kst {
	uint32_t		 handle;	/* 0: an empty map slot */
	uint32_t		 blob;		/* payload offset of its BLOB
						   entry; 0: none yet */
	uint32_t		 size;		/* bytes of its blob */
	uint16_t		 nvois;		/* of its image; 0: no image */
	const struct statsblob	*img;
	uint64_t		*logged;	/* per VOI: logged here */
	/* The last verdict, for runs of updates to one VOI, and the VOI's
	 * statistics in the spill blob, looked up once per such run. */
	int32_t			 last_voi;
	uint8_t			 last_op;
	bool			 last_fold;
	bool			 reqstate;
	struct engine_plan	 plan;
};

struct spill_buf {
	uint8_t			*base;		/* head, then entries */
	size_t			 size;
	enum spill_state	 state;
	uint64_t		 seq;		/* when handed over */
	uint32_t		 used;		/* bytes of entries */
	uint32_t		 nent;
	uint64_t		 nupd;
	uint32_t		 log;		/* payload offset of the open
						   LOG entry (the last one) */
	uint64_t		 opened;	/* order of filling */
	struct spill_kst	*map;		/* by handle, open addressing */
	uint32_t		 mapcap, mapn;
};

struct spill_producer {
	struct ring_producer	*p;
	spill_tpl_fn		*tpl;
	void			*arg;
	struct spill_buf	 buf[RING_OVF_NBUF];
	int			 cur;		/* the FILLING one, or -1 */
	uint64_t		 next_seq;
	uint64_t		 opened;	/* buffers opened */
	uint64_t		 handed;	/* hand-overs made */
	uint64_t		 unpub;		/* spilled, not yet counted in
						   the ring's header */
	unsigned		 probe;		/* spills since the last look
						   at the ring */
	bool			 diverted;
};

/*
 * Look at the ring for room every this many spilled updates: the look
 * reads the line statsd writes. A buffer being filled is handed over only
 * once the ring is half empty (or when the watcher or a flush asks), so
 * that each hand-over carries many updates, not the few that fit while
 * the ring had a slot or two.
 */
#define SPILL_PROBE	64u

/* ------------------------------------------------------------ producer */



int
spill_producer_new(struct ring_producer *p, spill_tpl_fn *tpl, void *arg,
    struct spill_producer **ret)
{
	struct spill_producer *sp;
	uint64_t max = 0;
	unsigned i;

	sp = calloc(1, sizeof(*sp));
	if (sp == NULL)
		return -ENOMEM;
	for (i = 0; i < RING_OVF_NBUF; i++) {
		struct spill_buf *b = &sp->buf[i];
		struct ring_ovf_hdr h;
		uint64_t done;
		void *base;

		if (ring_producer_ovf(p, i, &base, &b->size) < 0) {
			free(sp);
			return -ENOENT;
		}
		b->base = base;
		memcpy(&h, b->base, sizeof(h));
		done = ring_producer_ovf_done(p, i);
		/* A buffer handed over and not released yet stays statsd's
		 * (another thread of this process filled it). */
		b->state = h.seq != 0 && h.seq != done ? SB_HANDED : SB_FREE;
		b->seq = h.seq;
		if (h.seq > max)
			max = h.seq;
		if (done > max)
			max = done;
	}
	sp->p = p;
	sp->tpl = tpl;
	sp->arg = arg;
	sp->cur = -1;
	sp->next_seq = max + 1;
	*ret = sp;
	return 0;
}

static void
spill_map_clear(struct spill_buf *b)
{
	uint32_t i;

	for (i = 0; i < b->mapcap; i++)
		free(b->map[i].logged);
	if (b->map != NULL)
		memset(b->map, 0, (size_t)b->mapcap * sizeof(*b->map));
	b->mapn = 0;
}

void
spill_producer_free(struct spill_producer *sp)
{
	unsigned i;

	if (sp == NULL)
		return;
	spill_count(sp);
	for (i = 0; i < RING_OVF_NBUF; i++) {
		spill_map_clear(&sp->buf[i]);
		free(sp->buf[i].map);
	}
	free(sp);
}

bool
spill_diverted(const struct spill_producer *sp)
{
	return sp->diverted;
}

unsigned
spill_pending(const struct spill_producer *sp)
{
	unsigned i, n = 0;

	for (i = 0; i < RING_OVF_NBUF; i++)
		n += sp->buf[i].state == SB_FILLING ||
		    sp->buf[i].state == SB_CLOSED;
	return n;
}

uint64_t
spill_handed(const struct spill_producer *sp)
{
	return sp->handed;
}

static void
spill_divert(struct spill_producer *sp, bool on)
{
	sp->diverted = on;
	/* Release: a thread whose fast path sees 0 also sees every record
	 * pushed here (the ring's producer index included). */
	atomic_store_explicit(&sp->p->divert, on ? 1 : 0,
	    memory_order_release);
}

static uint32_t
spill_hash(uint32_t handle, uint32_t mask)
{
	return (handle * UINT32_C(2654435761)) & mask;
}

/* The buffer's entry for handle, made if need be. Returns: it; NULL if
 * memory ran out. */
static struct spill_kst *
spill_kst(struct spill_producer *sp, struct spill_buf *b, uint32_t handle)
{
	struct spill_kst *k;
	uint32_t i;

	if (b->mapcap > 0) {
		for (i = spill_hash(handle, b->mapcap - 1);
		    b->map[i].handle != 0; i = (i + 1) & (b->mapcap - 1))
			if (b->map[i].handle == handle)
				return &b->map[i];
	}
	if (2 * (b->mapn + 1) > b->mapcap) {
		uint32_t ncap = b->mapcap > 0 ? 2 * b->mapcap : 64, j;
		struct spill_kst *nm = calloc(ncap, sizeof(*nm));

		if (nm == NULL)
			return NULL;
		for (j = 0; j < b->mapcap; j++) {
			if (b->map[j].handle == 0)
				continue;
			for (i = spill_hash(b->map[j].handle, ncap - 1);
			    nm[i].handle != 0; i = (i + 1) & (ncap - 1))
				;
			nm[i] = b->map[j];
		}
		free(b->map);
		b->map = nm;
		b->mapcap = ncap;
	}
	for (i = spill_hash(handle, b->mapcap - 1); b->map[i].handle != 0;
	    i = (i + 1) & (b->mapcap - 1))
		;
	k = &b->map[i];
	memset(k, 0, sizeof(*k));
	k->handle = handle;
	k->last_voi = -1;
	k->plan.voi = -1;
	k->img = sp->tpl != NULL ? sp->tpl(sp->arg, handle, &k->size) : NULL;
	if (k->img != NULL)
		k->nvois = blob_nvois((const struct statsblobv1 *)k->img);
	b->mapn++;
	return k;
}

static void
spill_open(struct spill_producer *sp, int i)
{
	struct spill_buf *b = &sp->buf[i];

	b->state = SB_FILLING;
	b->used = 0;
	b->nent = 0;
	b->nupd = 0;
	b->log = 0;
	b->opened = ++sp->opened;
	spill_map_clear(b);
	sp->cur = i;
}

/* Buffers statsd released are free again. */
static void
spill_refresh(struct spill_producer *sp)
{
	unsigned i;

	for (i = 0; i < RING_OVF_NBUF; i++)
		if (sp->buf[i].state == SB_HANDED &&
		    ring_producer_ovf_done(sp->p, i) == sp->buf[i].seq)
			sp->buf[i].state = SB_FREE;
}

/* Count the updates spilled so far in the ring's header (the client's
 * pushed counter reads it): at every look at the ring and every
 * hand-over, not at every update, and when asked. */
void
spill_count(struct spill_producer *sp)
{
	if (sp->unpub > 0) {
		ring_producer_spilled(sp->p, sp->unpub);
		sp->unpub = 0;
	}
}

/* Hand buffer i over: its head, then the record. Returns: 0; -ENOSPC. */
static int
spill_hand(struct spill_producer *sp, int i)
{
	struct spill_buf *b = &sp->buf[i];
	struct ring_ovf_hdr h;
	int r;

	spill_count(sp);
	memset(&h, 0, sizeof(h));
	h.seq = sp->next_seq;
	h.used = b->used;
	h.nent = b->nent;
	h.nupd = b->nupd;
	memcpy(b->base, &h, sizeof(h));
	r = ring_push_handover(sp->p, (unsigned)i, h.seq, clock_now_ns());
	if (r < 0)
		return r;
	sp->next_seq++;
	sp->handed++;
	b->seq = h.seq;
	b->state = SB_HANDED;
	if (sp->cur == i)
		sp->cur = -1;
	return 0;
}

/*
 * Hand over what waits, oldest first, as far as the ring has room: full
 * buffers, then the one being filled if the ring has min_room slots free
 * (and unless the other is still statsd's and not forced: there would be
 * nowhere to spill next). With nothing left and room in the ring, updates
 * go to the ring again.
 */
static void
spill_advance(struct spill_producer *sp, bool force, uint64_t min_room)
{
	int i, f;

	spill_refresh(sp);
	for (;;) {
		int oldest = -1;

		for (i = 0; i < (int)RING_OVF_NBUF; i++)
			if (sp->buf[i].state == SB_CLOSED && (oldest < 0 ||
			    sp->buf[i].opened < sp->buf[oldest].opened))
				oldest = i;
		if (oldest < 0)
			break;
		if (spill_hand(sp, oldest) < 0)
			return;
	}
	f = sp->cur;
	if (f >= 0) {
		if (!force && sp->buf[1 - f].state != SB_FREE)
			return;
		if (ring_producer_room(sp->p) < min_room ||
		    spill_hand(sp, f) < 0)
			return;
	}
	if (ring_producer_next(sp->p) != NULL)
		spill_divert(sp, false);
}

/* Does every statistic of v take op in a way that folds? */
static bool
spill_foldable(const struct statsblobv1 *b, const struct voi *v, uint8_t op)
{
	const struct voistat *vs;
	int s;

	if (op >= STATS_OP_NUM)
		return false;
	if (op == STATS_OP_REL && (!(v->flags & VOI_REQSTATE) ||
	    !(blob_voistat(b, v, VS_STYPE_VOISTATE)->flags & VS_VSDVALID)))
		return false;	/* a base this buffer does not know */
	BLOB_FOREACH_STAT(b, v, s, vs)
		if (!(stype_ops[s].fold & (1u << op)))
			return false;
	return true;
}

static struct ring_ovf_ent *
spill_ent(struct spill_buf *b, uint32_t payload)
{
	return (struct ring_ovf_ent *)(b->base + payload - RING_OVF_ENT_SIZE);
}

/* Append an entry of len payload bytes. Returns: its payload offset; 0
 * if the buffer is full. */
static uint32_t
spill_append(struct spill_buf *b, uint16_t type, uint32_t handle,
    uint32_t len)
{
	size_t room = b->size - RING_OVF_HDR_SIZE - b->used;
	size_t need = RING_OVF_ENT_SIZE + (((size_t)len + 7) & ~(size_t)7);
	struct ring_ovf_ent e;
	uint32_t at = RING_OVF_HDR_SIZE + b->used;

	if (need > room)
		return 0;
	memset(&e, 0, sizeof(e));
	e.type = type;
	e.len = len;
	e.handle = handle;
	memcpy(b->base + at, &e, sizeof(e));
	b->used += (uint32_t)need;
	b->nent++;
	return at + RING_OVF_ENT_SIZE;
}

/* Keep rec as a record of the buffer's log. Returns: 0; -ENOSPC. */
static int
spill_log(struct spill_buf *b, struct spill_kst *k, const struct ring_rec *rec)
{
	size_t room = b->size - RING_OVF_HDR_SIZE - b->used;
	struct ring_ovf_ent *e;
	struct ring_rec r = *rec;

	if (b->log != 0) {
		if (room < RING_REC_SIZE)
			return -ENOSPC;
		e = spill_ent(b, b->log);
	} else {
		b->log = spill_append(b, RING_OVF_LOG, 0, 0);
		if (b->log == 0)
			return -ENOSPC;
		e = spill_ent(b, b->log);
		if (b->size - RING_OVF_HDR_SIZE - b->used < RING_REC_SIZE) {
			/* The head fit, the record does not: leave it empty. */
			return -ENOSPC;
		}
	}
	/* Replayed later, the record keeps the time it happened. */
	if (r.time == 0)
		r.time = clock_now_ns();
	memcpy(b->base + b->log + e->len, &r, sizeof(r));
	e->len += RING_REC_SIZE;
	e->nupd++;
	b->used += RING_REC_SIZE;
	b->nupd++;
	if (k != NULL && rec->voi < k->nvois) {
		if (k->logged == NULL)
			k->logged = calloc((k->nvois + 63u) / 64u, 8);
		if (k->logged != NULL)
			k->logged[rec->voi / 64] |= UINT64_C(1) << (rec->voi % 64);
		/* Without the bitmap the VOI could fold again after its
		 * logged updates: log all of this kstat from now on. */
		if (k->logged == NULL)
			k->img = NULL;
	}
	return 0;
}

/* Put rec in buffer b: folded into the kstat's spill blob, or logged.
 * Returns: 0; -ENOSPC if b is full; -ENOMEM. */
static int
spill_add(struct spill_producer *sp, struct spill_buf *b,
    const struct ring_rec *rec)
{
	const struct statsblobv1 *img;
	struct statsblobv1 *blob;
	struct spill_kst *k;
	const struct voi *v;
	uint32_t at;
	int e;

	k = spill_kst(sp, b, rec->handle);
	if (k == NULL)
		return -ENOMEM;
	img = (const struct statsblobv1 *)k->img;
	/* No image, no such VOI: statsd judges the record as it would
	 * have from the ring. */
	if (img == NULL || rec->voi >= k->nvois || img->vois[rec->voi].id < 0 ||
	    (k->logged != NULL &&
	    (k->logged[rec->voi / 64] >> (rec->voi % 64)) & 1))
		return spill_log(b, k, rec);
	if (k->blob == 0) {
		/* A blob too large for an empty buffer can only be logged. */
		if (RING_OVF_HDR_SIZE + RING_OVF_ENT_SIZE + (size_t)k->size >
		    b->size)
			return spill_log(b, k, rec);
		at = spill_append(b, RING_OVF_BLOB, rec->handle, k->size);
		if (at == 0)
			return -ENOSPC;
		memcpy(b->base + at, k->img, k->size);
		k->blob = at;
		b->log = 0;
	}
	blob = (struct statsblobv1 *)(b->base + k->blob);
	v = &blob->vois[rec->voi];
	if (rec->voi != k->last_voi || rec->op != k->last_op ||
	    rec->op == STATS_OP_REL) {
		k->last_voi = rec->voi;
		k->last_op = rec->op;
		k->last_fold = spill_foldable(blob, v, rec->op);
		k->reqstate = (v->flags & VOI_REQSTATE) != 0;
		if (k->plan.voi != rec->voi)
			engine_plan_make(&k->plan, (struct statsblob *)blob,
			    rec->voi);
	}
	if (!k->last_fold)
		return spill_log(b, k, rec);
	/* The in-process engine, as a local stats(3) update would. */
	e = engine_plan_apply(&k->plan, (struct statsblob *)blob, rec);
	if (e == -EINVAL || e == -EOPNOTSUPP)
		return spill_log(b, k, rec);	/* statsd refuses it too */
	if (k->reqstate && (engine_op_is_xy(rec->op) ||
	    rec->op == STATS_OP_SET))
		blob_voistat(blob, v, VS_STYPE_VOISTATE)->flags |= VS_VSDVALID;
	spill_ent(b, k->blob)->nupd++;
	b->nupd++;
	return 0;
}

/* Is a buffer other than the one being filled free (statsd released it)? */
static bool
spill_other_free(struct spill_producer *sp)
{
	int i;

	spill_refresh(sp);
	for (i = 0; i < (int)RING_OVF_NBUF; i++)
		if (i != sp->cur && sp->buf[i].state == SB_FREE)
			return true;
	return false;
}

/* A buffer to fill: the one being filled, else a free one. */
static struct spill_buf *
spill_filling(struct spill_producer *sp)
{
	int i;

	if (sp->cur >= 0)
		return &sp->buf[sp->cur];
	spill_refresh(sp);
	for (i = 0; i < (int)RING_OVF_NBUF; i++)
		if (sp->buf[i].state == SB_FREE) {
			spill_open(sp, i);
			return &sp->buf[i];
		}
	return NULL;
}

/* Push rec into the ring if it has a slot. Returns: true if pushed. */
static bool
spill_ring_push(struct ring_producer *p, const struct ring_rec *rec)
{
	struct ring_rec *r = ring_producer_next(p);

	if (r == NULL)
		return false;
	*r = *rec;
	ring_producer_publish(p, p->head + 1);
	return true;
}

int
spill_push(struct spill_producer *sp, const struct ring_rec *rec)
{
	struct ring_producer *p = sp->p;
	struct spill_buf *b;
	int e;

	if (!sp->diverted) {
		if (spill_ring_push(p, rec))
			return 0;
		spill_divert(sp, true);
		sp->probe = 0;
	} else if (++sp->probe >= SPILL_PROBE) {
		sp->probe = 0;
		spill_count(sp);
		spill_advance(sp, false, (p->mask + 1) / 2);
		if (!sp->diverted) {
			if (spill_ring_push(p, rec))
				return 0;
			spill_divert(sp, true);
		}
	}
	b = spill_filling(sp);
	if (b != NULL) {
		e = spill_add(sp, b, rec);
		if (e == -ENOSPC && spill_other_free(sp)) {
			/* Full: it waits for room in the ring, and the other
			 * buffer, which statsd gave back, takes over. While
			 * the other is still statsd's, the full one keeps
			 * folding into the blobs it has. */
			b->state = SB_CLOSED;
			sp->cur = -1;
			b = spill_filling(sp);
			e = b != NULL ? spill_add(sp, b, rec) : -ENOSPC;
		}
		if (e == 0) {
			sp->unpub++;
			return 1;
		}
	}
	ring_producer_drop(p, 1);
	return -ENOSPC;
}

int
spill_handover(struct spill_producer *sp, bool force)
{
	unsigned i;

	spill_count(sp);
	if (!sp->diverted)
		return 0;
	spill_advance(sp, force, 1);
	if (!sp->diverted)
		return 0;
	for (i = 0; i < RING_OVF_NBUF; i++)
		if (sp->buf[i].state == SB_CLOSED ||
		    sp->buf[i].state == SB_FILLING)
			return -EAGAIN;
	/* Everything is in statsd's hands: the ring is just full. */
	return 0;
}

uint64_t
spill_discard(struct spill_producer *sp)
{
	uint64_t lost = 0;
	unsigned i;

	spill_count(sp);
	for (i = 0; i < RING_OVF_NBUF; i++) {
		struct spill_buf *b = &sp->buf[i];

		if (b->state == SB_FILLING || b->state == SB_CLOSED)
			lost += b->nupd;
		b->state = SB_FREE;
		spill_map_clear(b);
	}
	sp->cur = -1;
	spill_divert(sp, false);
	return lost;
}

/* -------------------------------------------------------------- statsd */

/* Are a and b laid out alike: same template, same statistics, same
 * places? Flags and failure counts may differ. */
static bool
spill_same_layout(const struct statsblobv1 *a, const struct statsblobv1 *b)
{
	uint16_t v, n;
	int s;

	if (a->tplhash != b->tplhash || a->cursz != b->cursz ||
	    a->stats_off != b->stats_off ||
	    a->statsdata_off != b->statsdata_off ||
	    memcmp(a->vois, b->vois, (size_t)a->stats_off - SB_V1_HDRSZ) != 0)
		return false;
	n = blob_nvois(a);
	for (v = 0; v < n; v++) {
		const struct voi *vp = &a->vois[v];

		if (vp->id < 0)
			continue;
		for (s = 0; s <= vp->voistatmaxid; s++) {
			const struct voistat *x = blob_voistat(a, vp, s);
			const struct voistat *y = blob_voistat(b, vp, s);

			if (x->stype != y->stype || x->dtype != y->dtype ||
			    x->data_off != y->data_off || x->dsz != y->dsz)
				return false;
		}
	}
	return true;
}

int
spill_merge(struct statsblob *dst, const void *src, uint32_t len,
    void *scratch, const char **why)
{
	const struct statsblobv1 *s = src;
	struct statsblobv1 *d = (struct statsblobv1 *)dst, *t = scratch;
	uint16_t v, n;
	unsigned errs;
	int st, e;

	*why = blob_check(s, len);
	if (*why != NULL)
		return -EBADMSG;
	if (s->cursz != len || !spill_same_layout(d, s)) {
		*why = "not laid out as the kstat's blob";
		return -ESTALE;
	}
	memcpy(t, d, d->cursz);
	n = blob_nvois(t);
	for (v = 0; v < n; v++) {
		struct voi *vp = &t->vois[v];
		const struct voistat *svs;
		struct voistat *dvs;

		if (vp->id < 0)
			continue;
		/* The base for relative updates, if the spill set it last. */
		svs = blob_voistat(s, vp, VS_STYPE_VOISTATE);
		if ((vp->flags & VOI_REQSTATE) && (svs->flags & VS_VSDVALID))
			blob_vsd(t, blob_voistat(t, vp, VS_STYPE_VOISTATE))->
			    voistate.prev = blob_vsd(s, svs)->voistate.prev;
		BLOB_FOREACH_STAT(t, vp, st, dvs) {
			svs = blob_voistat(s, vp, st);
			errs = (unsigned)dvs->errs + svs->errs;
			dvs->errs = (uint8_t)(errs > VS_ERRS_MAX ?
			    VS_ERRS_MAX : errs);
			if (!(svs->flags & VS_VSDVALID))
				continue;
			e = stype_ops[st].merge(blob_vsd(t, dvs),
			    blob_vsd(s, svs), dvs->dsz, dvs->dtype, vp->dtype);
			if (e != 0) {
				*why = "a statistic refused the merge";
				return -e;
			}
			dvs->flags |= VS_VSDVALID;
		}
	}
	memcpy(d, t, t->cursz);
	return 0;
}
