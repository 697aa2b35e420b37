/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * update.c: the engine's one update path. Every front end (stats(3) abs
 * and rel updates, kstat named values and counters, Linux statistic_add,
 * ring records drained by the daemon) ends here with an (X, Y) pair or one
 * of the other operations of op.h, applied by update_voi() to each
 * statistic of one VOI.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "blob.h"
#include "engine.h"
#include "kind.h"
#include "numeric.h"
#include "ring.h"
#include "stat_defn.h"
#include "stat_scalar.h"

/* A VOI's value as a sign- or zero-extended 64-bit integer (Q: raw). */
static int64_t
update_xs64(enum vsd_dtype dtype, const struct voistatdata_numeric *n)
{
	if (dtype_info[dtype].size == 4)
		return dtype_info[dtype].is_signed ? n->int32.s32 :
		    (int64_t)n->int32.u32;
	return n->int64.s64;
}

/*
 * Apply ev to every statistic of v it concerns, highest statistic type
 * first as FreeBSD does. A Linux statistic's definition is consulted
 * first: an (X, Y) update it turns away (off, out of range) changes
 * nothing else.
 * Returns: 0; EOPNOTSUPP if no statistic takes the op; otherwise the error
 * of the last statistic that failed (each failure counted in its errs).
 */
static int
update_voi(struct statsblobv1 *b, struct voi *v, struct stats_event *ev)
{
	bool xy = engine_op_is_xy(ev->op), applied = false, any = false;
	struct voistat *vs;
	int s, e, error = 0;

	if (xy && (vs = blob_stat(b, v, VS_STYPE_DEFN)) != NULL &&
	    !stat_defn_gate(blob_vsd(b, vs), ev->xs64)) {
		/* Its hits_out_of_range may have moved: merges carry it. */
		vs->flags |= VS_VSDVALID;
		return 0;
	}
	for (s = v->voistatmaxid; s > VS_STYPE_VOISTATE; s--) {
		const struct stype_ops *ops = &stype_ops[s];
		bool changed = false;

		vs = blob_voistat(b, v, s);
		if (vs->stype < 0 || s == VS_STYPE_DEFN)
			continue;
		any = true;
		if (xy && ops->update != NULL) {
			e = ops->update(blob_vsd(b, vs), vs->dsz, vs->dtype,
			    v->dtype, &ev->x, ev->y, &changed);
		} else if (ev->op == STATS_OP_HIST) {
			e = s != VS_STYPE_HIST ? EOPNOTSUPP :
			    ops->update(blob_vsd(b, vs), vs->dsz, vs->dtype,
			    v->dtype, &ev->x, ev->y, &changed);
		} else if (ops->event != NULL) {
			/* Stamp once, and only for a kind that keeps time. */
			if (ev->time == 0)
				ev->time = clock_now_ns();
			e = ops->event(blob_vsd(b, vs), vs->dsz, vs->dtype,
			    v->dtype, ev, &changed);
		} else {
			e = EOPNOTSUPP;
		}
		if (e == EOPNOTSUPP)
			continue;
		applied = true;
		if (e != 0) {
			if (vs->errs < VS_ERRS_MAX)
				vs->errs++;
			error = e;
		} else if (changed) {
			vs->flags |= VS_VSDVALID;
		}
	}
	if (!applied && (any || !xy))
		return EOPNOTSUPP;
	return error;
}

/* Remember the value a relative update will start from. */
static void
update_voistate(struct statsblobv1 *b, struct voi *v,
    const struct voistatdata_numeric *x)
{
	if (v->flags & VOI_REQSTATE)
		blob_vsd(b, blob_voistat(b, v, VS_STYPE_VOISTATE))->voistate.prev =
		    *x;
}

/* prev + rel, in place; fixed point refuses to overflow. */
static int
update_rel(struct statsblobv1 *b, struct voi *v,
    struct voistatdata_numeric *x)
{
	struct voistatdata_numeric abs;
	int e;

	if (!(v->flags & VOI_REQSTATE))
		return EINVAL;
	abs = blob_vsd(b, blob_voistat(b, v, VS_STYPE_VOISTATE))->voistate.prev;
	e = numeric_add(v->dtype, &abs, x, 1);
	if (e != 0)
		return e;
	*x = abs;
	return 0;
}

/* The remote range of op.h: len is stored last and loaded first, so a
 * reader that sees it also sees base and fn. */
static _Atomic(uintptr_t) remote_base;
static _Atomic(size_t) remote_len;
static engine_remote_fn *_Atomic remote_fn;

void
engine_remote_set(const void *base, size_t len, engine_remote_fn *fn)
{
	atomic_store_explicit(&remote_len, 0, memory_order_release);
	atomic_store_explicit(&remote_fn, fn, memory_order_relaxed);
	atomic_store_explicit(&remote_base, (uintptr_t)base,
	    memory_order_relaxed);
	atomic_store_explicit(&remote_len, fn != NULL ? len : 0,
	    memory_order_release);
}

int
stats_voi_update_xy(struct statsblob *sb, int32_t voi_id,
    enum vsd_dtype voi_dtype, struct voistatdata_numeric *voival, uint64_t y,
    uint32_t flags)
{
	struct statsblobv1 *b = (struct statsblobv1 *)sb;
	struct stats_event ev;
	struct voi *v;
	size_t rlen;
	int e;

	rlen = atomic_load_explicit(&remote_len, memory_order_acquire);
	if (__builtin_expect((uintptr_t)sb - atomic_load_explicit(&remote_base,
	    memory_order_relaxed) < rlen, 0))
		return atomic_load_explicit(&remote_fn, memory_order_relaxed)(
		    sb, voi_id, voi_dtype, voival, y, flags);
	if (b == NULL || b->abi != STATS_ABI_V1 || voival == NULL || y == 0 ||
	    voi_id < 0 || voi_id >= blob_nvois(b) ||
	    (flags & ~SB_VOI_RELUPDATE) != 0)
		return EINVAL;
	v = &b->vois[voi_id];
	if (v->id < 0 || v->dtype != voi_dtype)
		return EINVAL;
	if (flags & SB_VOI_RELUPDATE) {
		e = update_rel(b, v, voival);
		if (e != 0)
			return e;
	}
	ev.op = STATS_OP_XY;
	ev.flags = 0;
	ev.x = *voival;
	ev.xs64 = update_xs64(voi_dtype, voival);
	ev.y = y;
	ev.time = 0;
	e = update_voi(b, v, &ev);
	update_voistate(b, v, voival);
	return e;
}

/*
 * x, as a ring record carries it, in the VOI's type: a signed value, or
 * with STATS_OPF_UNSIGNED an unsigned one; refused if the type cannot hold
 * it. Fixed-point types take their raw bits, ranged as their integer width.
 */
static int
update_x(enum vsd_dtype dtype, int64_t x, bool is_unsigned,
    struct voistatdata_numeric *n)
{
	bool sgn = dtype_info[dtype].is_signed;
	uint64_t u = (uint64_t)x;

	n->int64.u64 = 0;
	if (dtype_info[dtype].size == 4) {
		if (sgn ? (is_unsigned ? u > INT32_MAX :
		    x < INT32_MIN || x > INT32_MAX) :
		    (is_unsigned ? u > UINT32_MAX : x < 0 || x > UINT32_MAX))
			return EINVAL;
		n->int32.u32 = (uint32_t)u;
		return 0;
	}
	if (sgn ? (is_unsigned && u > INT64_MAX) : (!is_unsigned && x < 0))
		return EINVAL;
	n->int64.u64 = u;
	return 0;
}

int
engine_apply(struct statsblob *sb, uint16_t voi, uint8_t op, uint8_t flags,
    int64_t x, int64_t y, uint64_t time_ns)
{
	struct statsblobv1 *b = (struct statsblobv1 *)sb;
	bool weighted = op == STATS_OP_XY || op == STATS_OP_HIST;
	bool queue = op == STATS_OP_QENTER || op == STATS_OP_QEXIT ||
	    op == STATS_OP_QMOVE;
	bool timer = op == STATS_OP_TSTART || op == STATS_OP_TSTOP;
	struct stats_event ev;
	struct voi *v;
	int e;

	if (b == NULL || b->abi != STATS_ABI_V1 || voi >= blob_nvois(b) ||
	    b->vois[voi].id < 0)
		return -EINVAL;
	v = &b->vois[voi];
	if (op == STATS_OP_INVALID || op >= STATS_OP_NUM ||
	    (flags & ~STATS_OPF_KNOWN) != 0 ||
	    ((flags & STATS_OPF_RUNQ) && !queue) ||
	    ((flags & STATS_OPF_UNSIGNED) && (queue || timer)) ||
	    time_ns > STATS_TIME_MAX)
		return -EINVAL;
	ev.op = op;
	ev.flags = flags;
	ev.time = time_ns;
	if (weighted) {
		if (y < 0 && !(flags & STATS_OPF_UNSIGNED))
			return -EINVAL;
		if (y == 0)
			return 0;	/* no weight: nothing to add */
		ev.y = (uint64_t)y;
	} else {
		if (y != 0)
			return -EINVAL;
		ev.y = 1;
	}
	if (queue || timer) {
		/* Not a value of the VOI: QEXIT's X counts bytes moved. */
		ev.x = stats_ctor_vsd_numeric((uint64_t)x);
		ev.xs64 = x;
	} else {
		e = update_x(v->dtype, x, (flags & STATS_OPF_UNSIGNED) != 0,
		    &ev.x);
		if (e == 0 && op == STATS_OP_REL)
			e = update_rel(b, v, &ev.x);
		if (e != 0)
			return -e;
		ev.xs64 = update_xs64(v->dtype, &ev.x);
	}
	e = update_voi(b, v, &ev);
	if (engine_op_is_xy(op) || op == STATS_OP_SET)
		update_voistate(b, v, &ev.x);
	return -e;
}

int
engine_set_string(struct statsblob *sb, uint16_t voi, const char *s,
    size_t len)
{
	struct statsblobv1 *b = (struct statsblobv1 *)sb;
	struct voistat *vs;
	struct voi *v;
	int e;

	if (b == NULL || b->abi != STATS_ABI_V1 || voi >= blob_nvois(b) ||
	    b->vois[voi].id < 0 || (s == NULL && len > 0))
		return -EINVAL;
	v = &b->vois[voi];
	vs = blob_stat(b, v, VS_STYPE_LAST);
	if (vs == NULL || vs->dtype != VSD_DTYPE_STRING)
		return -EINVAL;
	e = stat_string_set(blob_vsd(b, vs), s != NULL ? s : "", len);
	if (e != 0)
		return -e;
	vs->flags |= VS_VSDVALID;
	return 0;
}

/* ------------------------------------------------------------- batches */

/*
 * A VOI that batches apply without the kind table: every statistic a plain
 * SUM, COUNT, MIN, MAX or LAST in the VOI's own type, integer or fixed
 * point, and no definition gate. That is nearly every counter of a kstat
 * (and every statsd counter), and what a drain spends its time on.
 * Anything else goes through engine_apply().
 */
enum fast_kind { FK_SUM, FK_COUNT, FK_MIN, FK_MAX, FK_LAST };

/* The fast kind of a statistic type, or -1. */
static int
fast_kind_of(int stype)
{
	switch (stype) {
	case VS_STYPE_SUM:
		return FK_SUM;
	case VS_STYPE_COUNT:
		return FK_COUNT;
	case VS_STYPE_MIN:
		return FK_MIN;
	case VS_STYPE_MAX:
		return FK_MAX;
	case VS_STYPE_LAST:
		return FK_LAST;
	default:
		return -1;
	}
}

void
engine_plan_make(struct engine_plan *pl, struct statsblob *sb, uint16_t voi)
{
	struct statsblobv1 *b = (struct statsblobv1 *)sb;
	const struct voi *v;
	struct voistat *vs;
	enum vsd_dtype dt;
	int s;

	pl->voi = voi;
	pl->fast = false;
	pl->n = 0;
	if (b == NULL || b->abi != STATS_ABI_V1 || voi >= blob_nvois(b) ||
	    b->vois[voi].id < 0)
		return;
	v = &b->vois[voi];
	dt = (enum vsd_dtype)v->dtype;
	if (!dtype_is_scalar(dt))
		return;
	BLOB_FOREACH_STAT(b, v, s, vs) {
		if (fast_kind_of(s) < 0 || vs->dtype != dt || pl->n == 5)
			return;
		pl->st[pl->n].kind = (uint8_t)fast_kind_of(s);
		pl->st[pl->n].vs = vs;
		pl->st[pl->n].data = blob_vsd(b, vs);
		pl->n++;
	}
	if (pl->n == 0)
		return;
	pl->state = (v->flags & VOI_REQSTATE) ? &blob_vsd(b,
	    blob_voistat(b, v, VS_STYPE_VOISTATE))->voistate.prev : NULL;
	pl->wide = dtype_info[dt].size == 8;
	pl->sgn = dtype_info[dt].is_signed;
	pl->q = dtype_info[dt].is_q;
	/* COUNT's unit: one weight, 1.0 in fixed point (stat_scalar.c) */
	pl->one = !pl->q ? 1 : (uint64_t)1 << (pl->wide ? STATS_Q64_FBITS :
	    STATS_Q32_FBITS);
	pl->fast = true;
}

/*
 * *cur + v·y in the plan's fixed-point type, exactly, as numeric_add()
 * adds: a sum that leaves the type is refused (qmath's overflow, not a
 * wrap). Returns: whether it fit (*cur is the sum).
 */
static inline bool
fast_q_add(const struct engine_plan *pl, uint64_t *cur, uint64_t v,
    uint64_t y)
{
	if (pl->sgn) {
		__int128 sum = (__int128)(pl->wide ? (int64_t)*cur :
		    (int32_t)(uint32_t)*cur) + (__int128)(pl->wide ?
		    (int64_t)v : (int32_t)(uint32_t)v) * (__int128)y;

		if (sum < (pl->wide ? INT64_MIN : INT32_MIN) ||
		    sum > (pl->wide ? INT64_MAX : INT32_MAX))
			return false;
		*cur = (uint64_t)(int64_t)sum;
	} else {
		unsigned __int128 sum = (unsigned __int128)*cur +
		    (unsigned __int128)v * y;

		if (sum > (pl->wide ? UINT64_MAX : UINT32_MAX))
			return false;
		*cur = (uint64_t)sum;
	}
	return true;
}

/* a < b in the plan's type, both as stored bit patterns. */
static inline bool
fast_less(const struct engine_plan *pl, uint64_t a, uint64_t b)
{
	if (pl->wide)
		return pl->sgn ? (int64_t)a < (int64_t)b : a < b;
	return pl->sgn ? (int32_t)(uint32_t)a < (int32_t)(uint32_t)b :
	    (uint32_t)a < (uint32_t)b;
}

/* ABS or XY through a fast plan: engine_apply()'s checks and results. */
static inline int
fast_apply(const struct engine_plan *pl, const struct ring_rec *r)
{
	bool uns = (r->flags & STATS_OPF_UNSIGNED) != 0;
	uint64_t u = (uint64_t)r->x, y, cur;
	unsigned i;
	int error = 0;

	if ((r->flags & ~STATS_OPF_UNSIGNED) != 0 || r->time > STATS_TIME_MAX)
		return -EINVAL;
	if (r->op == STATS_OP_ABS) {
		if (r->y != 0)
			return -EINVAL;
		y = 1;
	} else {
		if (r->y < 0 && !uns)
			return -EINVAL;
		if (r->y == 0)
			return 0;
		y = (uint64_t)r->y;
	}
	/* update_x()'s ranges. */
	if (pl->wide) {
		if (pl->sgn ? (uns && u > INT64_MAX) : (!uns && r->x < 0))
			return -EINVAL;
	} else {
		if (pl->sgn ? (uns ? u > INT32_MAX :
		    r->x < INT32_MIN || r->x > INT32_MAX) :
		    (uns ? u > UINT32_MAX : r->x < 0 || r->x > UINT32_MAX))
			return -EINVAL;
		u = (uint32_t)u;
	}
	for (i = 0; i < pl->n; i++) {
		const struct engine_plan_stat *f = &pl->st[i];
		uint32_t c32;

		if (pl->wide)
			memcpy(&cur, f->data, 8);
		else {
			memcpy(&c32, f->data, 4);
			cur = c32;
		}
		switch (f->kind) {
		case FK_SUM:
		case FK_COUNT:
			if (!pl->q) {
				cur += (f->kind == FK_SUM ? u : 1) * y;
				break;
			}
			if (!fast_q_add(pl, &cur, f->kind == FK_SUM ? u :
			    pl->one, y)) {
				/* engine_apply()'s: counted, unchanged */
				if (f->vs->errs < VS_ERRS_MAX)
					f->vs->errs++;
				error = -EOVERFLOW;
				continue;
			}
			break;
		case FK_MIN:
			if (!fast_less(pl, u, cur))
				continue;
			cur = u;
			break;
		case FK_MAX:
			if (!fast_less(pl, cur, u))
				continue;
			cur = u;
			break;
		default:
			cur = u;
			break;
		}
		if (pl->wide)
			memcpy(f->data, &cur, 8);
		else {
			c32 = (uint32_t)cur;
			memcpy(f->data, &c32, 4);
		}
		f->vs->flags |= VS_VSDVALID;
	}
	if (pl->state != NULL) {
		struct voistatdata_numeric n;

		n.int64.u64 = 0;
		if (pl->wide)
			n.int64.u64 = u;
		else
			n.int32.u32 = (uint32_t)u;
		*pl->state = n;
	}
	return error;
}

int
engine_plan_apply(const struct engine_plan *pl, struct statsblob *sb,
    const struct ring_rec *rec)
{
	if (pl->fast && pl->voi == rec->voi && (rec->op == STATS_OP_ABS ||
	    rec->op == STATS_OP_XY))
		return fast_apply(pl, rec);
	return engine_apply(sb, rec->voi, rec->op, rec->flags, rec->x, rec->y,
	    rec->time);
}

size_t
engine_apply_batch(struct statsblob *sb, const struct ring_rec *recs,
    size_t n)
{
	struct statsblobv1 *b = (struct statsblobv1 *)sb;
	struct engine_plan pl = { .voi = -1 };
	size_t i, refused = 0;
	int e;

	if (b == NULL || b->abi != STATS_ABI_V1)
		return n;
	for (i = 0; i < n; i++) {
		const struct ring_rec *r = &recs[i];

		if (r->voi != pl.voi)
			engine_plan_make(&pl, sb, r->voi);
		if (pl.fast && (r->op == STATS_OP_ABS || r->op == STATS_OP_XY))
			e = fast_apply(&pl, r);
		else
			e = engine_apply(sb, r->voi, r->op, r->flags, r->x,
			    r->y, r->time);
		if (e == -EINVAL || e == -EOPNOTSUPP)
			refused++;
	}
	return refused;
}
