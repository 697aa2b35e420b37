/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stat_timer.c: the TIMER statistic, illumos's kstat_timer_start() and
 * kstat_timer_stop() as events that carry their own time.
 *
 * A stop takes e = stop - start (the latest start); the first event sets
 * min_time, later ones lower it; max_time rises; elapsed_time sums; and
 * num_events counts stops. A stop dated before the latest start is refused
 * (ERANGE) rather than recorded as an enormous duration.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "numeric.h"
#include "op.h"
#include "stat_timer.h"

/* kstat_timer_t's fields but its name (the VOI's): the event count and
 * the total time only grow; the rest are levels and time stamps. */
const struct stat_field stat_timer_fields[TIMER_NFIELDS] = {
	{ "num_events", FIELD_COUNTER, false, "", false },
	{ "elapsed_time", FIELD_COUNTER, true, "ns", false },
	{ "min_time", FIELD_GAUGE, true, "ns", false },
	{ "max_time", FIELD_GAUGE, true, "ns", false },
	{ "start_time", FIELD_GAUGE, true, "ns", false },
	{ "stop_time", FIELD_GAUGE, true, "ns", false },
};

void
stat_timer_field_values(const struct voistatdata *vsd, uint64_t now_ns,
    uint64_t *v)
{
	const struct vsd_timer *t = (const struct vsd_timer *)vsd;

	(void)now_ns;
	v[0] = t->num_events;
	v[1] = (uint64_t)t->elapsed_time;
	v[2] = (uint64_t)t->min_time;
	v[3] = (uint64_t)t->max_time;
	v[4] = (uint64_t)t->start_time;
	v[5] = (uint64_t)t->stop_time;
}

int
stat_timer_vss_hlpr(enum vsd_dtype voi_dtype, struct voistatspec *vss,
    void *info)
{
	(void)info;
	if (vss == NULL || !dtype_is_scalar(voi_dtype))
		return EINVAL;
	vss->iv = calloc(1, TIMER_SIZE);
	if (vss->iv == NULL)
		return ENOMEM;
	vss->vsdsz = TIMER_SIZE;
	vss->vs_dtype = VSD_DTYPE_TIMER;
	return 0;
}

int
stat_timer_event(struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype,
    const struct stats_event *ev, bool *changed)
{
	struct vsd_timer *t = (struct vsd_timer *)vsd;
	hrtime_t now = (hrtime_t)ev->time, e;

	(void)dsz;
	(void)vs_dtype;
	(void)voi_dtype;
	switch (ev->op) {
	case STATS_OP_TSTART:
		t->start_time = now;
		break;
	case STATS_OP_TSTOP:
		if (now < t->start_time)
			return ERANGE;
		e = now - t->start_time;
		if (t->num_events == 0 || e < t->min_time)
			t->min_time = e;
		if (e > t->max_time)
			t->max_time = e;
		t->elapsed_time = (hrtime_t)((uint64_t)t->elapsed_time +
		    (uint64_t)e);
		t->num_events++;
		t->stop_time = now;
		break;
	default:
		return EOPNOTSUPP;
	}
	*changed = true;
	return 0;
}

void
stat_timer_reset(struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype)
{
	struct vsd_timer *t = (struct vsd_timer *)vsd;
	hrtime_t start = t->start_time;

	(void)dsz;
	(void)vs_dtype;
	(void)voi_dtype;
	/* A timer running across a reset still stops against its start. */
	memset(t, 0, sizeof(*t));
	t->start_time = start;
}

int
stat_timer_merge(struct voistatdata *dst, const struct voistatdata *src,
    uint16_t dsz, enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype)
{
	struct vsd_timer *d = (struct vsd_timer *)dst;
	const struct vsd_timer *s = (const struct vsd_timer *)src;

	(void)dsz;
	(void)vs_dtype;
	(void)voi_dtype;
	if (s->num_events > 0) {
		if (d->num_events == 0 || s->min_time < d->min_time)
			d->min_time = s->min_time;
		if (s->max_time > d->max_time)
			d->max_time = s->max_time;
		d->num_events += s->num_events;
		d->elapsed_time = (hrtime_t)((uint64_t)d->elapsed_time +
		    (uint64_t)s->elapsed_time);
	}
	if (s->start_time > d->start_time)
		d->start_time = s->start_time;
	if (s->stop_time > d->stop_time)
		d->stop_time = s->stop_time;
	return 0;
}

const char *
stat_timer_check(const struct voistatdata *vsd, uint16_t dsz,
    enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype)
{
	(void)vsd;
	(void)voi_dtype;
	if (vs_dtype != VSD_DTYPE_TIMER || dsz != TIMER_SIZE)
		return "timer statistic of the wrong size";
	return NULL;
}

int
stat_timer_render(struct sbuf *buf, const struct voistatdata *vsd,
    uint16_t dsz, enum vsd_dtype vs_dtype, enum vsd_dtype voi_dtype,
    enum sb_str_fmt fmt, bool objdump)
{
	uint64_t v[TIMER_NFIELDS];
	int i;

	(void)dsz;
	(void)vs_dtype;
	(void)voi_dtype;
	(void)objdump;
	stat_timer_field_values(vsd, 0, v);
	for (i = 0; i < TIMER_NFIELDS; i++) {
		if (fmt == SB_STRFMT_JSON) {
			sbuf_printf(buf, "%s\"%s\":", i > 0 ? "," : "",
			    stat_timer_fields[i].suffix);
			numeric_json_u64(buf, v[i]);
		} else
			sbuf_printf(buf, "%s%s=%ju", i > 0 ? ", " : "",
			    stat_timer_fields[i].suffix, (uintmax_t)v[i]);
	}
	return sbuf_error(buf);
}

/* TIMER takes no parameters. */
int
stat_timer_build(const struct kind_args *a, enum vsd_dtype voi_dtype,
    struct voistatspec *vss, uint32_t *n, uint32_t max, struct input_error *err)
{
	(void)a;
	return kind_add(vss, n, max, VS_STYPE_TIMER,
	    (vss_hlpr_fn)stat_timer_vss_hlpr, NULL,
	    voi_dtype, 0, err);
}
