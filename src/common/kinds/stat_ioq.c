/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stat_ioq.c: the IOQ statistic: kstat_io_t's counters and the queue
 * arithmetic of illumos kstat(3KSTAT).
 *
 * At each change of a queue's length we add the time since its previous
 * change, times the length during that time, to its lentime, and the time
 * itself to its busy time if the length was not zero (the Riemann sums
 * kstat(3KSTAT) draws). Every event carries its own time; an event older
 * than the queue's last change counts as happening at that change (a
 * delta of 0), since events of different producer threads may be drained
 * slightly out of order.
 *
 * How events are encoded (op.h):
 *   QENTER, QEXIT            the wait queue; with STATS_OPF_RUNQ the run queue
 *   QMOVE                    wait -> run; with STATS_OPF_RUNQ run -> wait
 *   QEXIT|RUNQ with X != 0   also counts a finished transfer: X > 0 a read
 *                            of X bytes, X < 0 a write of -X bytes
 *   (X, Y) updates           Y transfers of |X| bytes in all: reads if X ≥ 0,
 *                            writes if X < 0
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "numeric.h"
#include "op.h"
#include "stat_ioq.h"

/* kstat_io_t's fields in their order: byte and operation counts and the
 * busy and length-time integrals only grow; the queue lengths and the
 * times of their last change are levels. */
const struct stat_field stat_ioq_fields[IOQ_NFIELDS] = {
	{ "nread", FIELD_COUNTER, false, "bytes", false },
	{ "nwritten", FIELD_COUNTER, false, "bytes", false },
	{ "reads", FIELD_COUNTER, false, "", false },
	{ "writes", FIELD_COUNTER, false, "", false },
	{ "wtime", FIELD_COUNTER, true, "ns", false },
	{ "wlentime", FIELD_COUNTER, true, "ns", false },
	{ "wlastupdate", FIELD_GAUGE, true, "ns", false },
	{ "rtime", FIELD_COUNTER, true, "ns", false },
	{ "rlentime", FIELD_COUNTER, true, "ns", false },
	{ "rlastupdate", FIELD_GAUGE, true, "ns", false },
	{ "wcnt", FIELD_GAUGE, false, "", false },
	{ "rcnt", FIELD_GAUGE, false, "", false },
};

static void
ioq_values(const kstat_io_t *k, uint64_t v[IOQ_NFIELDS])
{
	v[0] = k->nread;
	v[1] = k->nwritten;
	v[2] = k->reads;
	v[3] = k->writes;
	v[4] = (uint64_t)k->wtime;
	v[5] = (uint64_t)k->wlentime;
	v[6] = (uint64_t)k->wlastupdate;
	v[7] = (uint64_t)k->rtime;
	v[8] = (uint64_t)k->rlentime;
	v[9] = (uint64_t)k->rlastupdate;
	v[10] = k->wcnt;
	v[11] = k->rcnt;
}

void
stat_ioq_field_values(const struct voistatdata *vsd, uint64_t now_ns,
    uint64_t *v)
{
	kstat_io_t k;

	stat_ioq_snapshot((const kstat_io_t *)vsd, now_ns, &k);
	ioq_values(&k, v);
}

int
stat_ioq_vss_hlpr(enum vsd_dtype voi_dtype, struct voistatspec *vss,
    void *info)
{
	(void)info;
	if (vss == NULL || !dtype_is_scalar(voi_dtype))
		return EINVAL;
	vss->iv = calloc(1, IOQ_SIZE);
	if (vss->iv == NULL)
		return ENOMEM;
	vss->vsdsz = IOQ_SIZE;
	vss->vs_dtype = VSD_DTYPE_IOQ;
	return 0;
}

/* One queue's fields, so the wait and run arithmetic is written once. */
struct ioq_queue {
	hrtime_t	*time, *lentime, *lastupdate;
	unsigned int	*cnt;
};

static struct ioq_queue
ioq_queue(kstat_io_t *k, bool run)
{
	struct ioq_queue q;

	if (run) {
		q.time = &k->rtime;
		q.lentime = &k->rlentime;
		q.lastupdate = &k->rlastupdate;
		q.cnt = &k->rcnt;
	} else {
		q.time = &k->wtime;
		q.lentime = &k->wlentime;
		q.lastupdate = &k->wlastupdate;
		q.cnt = &k->wcnt;
	}
	return q;
}

/* Account the time since the queue's last change, then move it to t. */
static void
ioq_account(struct ioq_queue q, uint64_t t)
{
	uint64_t last = (uint64_t)*q.lastupdate, delta;

	if (t <= last)
		return;
	delta = t - last;
	if (*q.cnt != 0) {
		/* Unsigned: a wrap is defined; hrtime_t readers see it too. */
		*q.lentime = (hrtime_t)((uint64_t)*q.lentime + delta * *q.cnt);
		*q.time = (hrtime_t)((uint64_t)*q.time + delta);
	}
	*q.lastupdate = (hrtime_t)t;
}

static void
ioq_transfer(kstat_io_t *k, int64_t x, uint64_t n)
{
	if (x >= 0) {
		k->nread += (uint64_t)x;
		k->reads += (unsigned int)n;
	} else {
		k->nwritten += -(uint64_t)x;
		k->writes += (unsigned int)n;
	}
}

int
stat_ioq_update(struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype,
    const struct voistatdata_numeric *x, uint64_t y, bool *changed)
{
	kstat_io_t *k = (kstat_io_t *)vsd;
	struct voistatdata_numeric v = *x;
	int64_t xs;

	(void)dsz;
	(void)vs_dtype;
	/* |X| bytes in all over Y operations; the sign picks the direction. */
	if (dtype_info[voi_dtype].size == 4)
		xs = dtype_info[voi_dtype].is_signed ? v.int32.s32 :
		    (int64_t)v.int32.u32;
	else
		xs = v.int64.s64;
	if (!dtype_info[voi_dtype].is_signed && xs < 0)
		xs = INT64_MAX;		/* a u64 past INT64_MAX: read */
	ioq_transfer(k, xs, y);
	*changed = true;
	return 0;
}

int
stat_ioq_event(struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype,
    const struct stats_event *ev, bool *changed)
{
	kstat_io_t *k = (kstat_io_t *)vsd;
	bool run = (ev->flags & STATS_OPF_RUNQ) != 0;
	struct ioq_queue from, to;

	(void)dsz;
	(void)vs_dtype;
	(void)voi_dtype;
	switch (ev->op) {
	case STATS_OP_QENTER:
		to = ioq_queue(k, run);
		if (*to.cnt == UINT32_MAX)
			return EOVERFLOW;
		ioq_account(to, ev->time);
		(*to.cnt)++;
		break;
	case STATS_OP_QEXIT:
		from = ioq_queue(k, run);
		if (*from.cnt == 0)
			return ERANGE;	/* illumos would wrap the count */
		ioq_account(from, ev->time);
		(*from.cnt)--;
		if (run && ev->xs64 != 0)
			ioq_transfer(k, ev->xs64, 1);
		break;
	case STATS_OP_QMOVE:
		/* Plain: waitq_to_runq. RUNQ: runq_back_to_waitq. */
		from = ioq_queue(k, run);
		to = ioq_queue(k, !run);
		if (*from.cnt == 0)
			return ERANGE;
		if (*to.cnt == UINT32_MAX)
			return EOVERFLOW;
		ioq_account(from, ev->time);
		(*from.cnt)--;
		ioq_account(to, ev->time);
		(*to.cnt)++;
		break;
	default:
		return EOPNOTSUPP;
	}
	*changed = true;
	return 0;
}

void
stat_ioq_snapshot(const kstat_io_t *in, uint64_t now_ns, kstat_io_t *out)
{
	struct ioq_queue q;
	int run;

	*out = *in;
	/* As illumos's snapshot: only a busy queue's integrals move. */
	for (run = 0; run < 2; run++) {
		q = ioq_queue(out, run);
		if (*q.cnt != 0)
			ioq_account(q, now_ns);
	}
}

void
stat_ioq_reset(struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype)
{
	kstat_io_t *k = (kstat_io_t *)vsd;
	unsigned int wcnt = k->wcnt, rcnt = k->rcnt;
	hrtime_t wl = k->wlastupdate, rl = k->rlastupdate;

	(void)dsz;
	(void)vs_dtype;
	(void)voi_dtype;
	/*
	 * The queues' contents are state, not statistics: requests still
	 * queued will exit later, so their counts and last-change times
	 * survive a reset; every counter and integral starts over.
	 */
	memset(k, 0, sizeof(*k));
	k->wcnt = wcnt;
	k->rcnt = rcnt;
	k->wlastupdate = wl;
	k->rlastupdate = rl;
}

int
stat_ioq_merge(struct voistatdata *dst, const struct voistatdata *src,
    uint16_t dsz, enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype)
{
	kstat_io_t *d = (kstat_io_t *)dst;
	const kstat_io_t *s = (const kstat_io_t *)src;

	(void)dsz;
	(void)vs_dtype;
	(void)voi_dtype;
	d->nread += s->nread;
	d->nwritten += s->nwritten;
	d->reads += s->reads;
	d->writes += s->writes;
	d->wtime = (hrtime_t)((uint64_t)d->wtime + (uint64_t)s->wtime);
	d->wlentime = (hrtime_t)((uint64_t)d->wlentime + (uint64_t)s->wlentime);
	d->rtime = (hrtime_t)((uint64_t)d->rtime + (uint64_t)s->rtime);
	d->rlentime = (hrtime_t)((uint64_t)d->rlentime + (uint64_t)s->rlentime);
	if (s->wlastupdate > d->wlastupdate)
		d->wlastupdate = s->wlastupdate;
	if (s->rlastupdate > d->rlastupdate)
		d->rlastupdate = s->rlastupdate;
	d->wcnt += s->wcnt;
	d->rcnt += s->rcnt;
	return 0;
}

const char *
stat_ioq_check(const struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype)
{
	(void)vsd;
	(void)voi_dtype;
	if (vs_dtype != VSD_DTYPE_IOQ || dsz != IOQ_SIZE)
		return "I/O statistic of the wrong size";
	return NULL;
}

int
stat_ioq_render(struct sbuf *buf, const struct voistatdata *vsd,
    uint16_t dsz, enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype,
    enum sb_str_fmt fmt, bool objdump)
{
	uint64_t v[IOQ_NFIELDS];
	int i;

	(void)dsz;
	(void)vs_dtype;
	(void)voi_dtype;
	(void)objdump;
	ioq_values((const kstat_io_t *)vsd, v);
	for (i = 0; i < IOQ_NFIELDS; i++) {
		if (fmt == SB_STRFMT_JSON) {
			sbuf_printf(buf, "%s\"%s\":", i > 0 ? "," : "",
			    stat_ioq_fields[i].suffix);
			numeric_json_u64(buf, v[i]);
		} else
			sbuf_printf(buf, "%s%s=%ju", i > 0 ? ", " : "",
			    stat_ioq_fields[i].suffix, (uintmax_t)v[i]);
	}
	return sbuf_error(buf);
}

/* IOQ takes no parameters. */
int
stat_ioq_build(const struct kind_args *a, enum vsd_dtype voi_dtype,
    struct voistatspec *vss, uint32_t *n, uint32_t max, struct input_error *err)
{
	(void)a;
	return kind_add(vss, n, max, VS_STYPE_IOQ,
	    (vss_hlpr_fn)stat_ioq_vss_hlpr, NULL,
	    voi_dtype, 0, err);
}
