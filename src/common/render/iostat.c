/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * iostat.c: illumos iostat(8)'s arithmetic on kstat_io snapshots: rates
 * over the interval between snapshots, mean queue lengths as
 * lentime over elapsed time, service times by Little's law, and busy
 * percentages. One choice of ours: for a controller, %b is divided by the
 * device count like %w (illumos divides %w a second time, a typo).
 */
#include <string.h>

#include "iostat.h"

void
iostat_compute(const struct iostat_sample *old,
    const struct iostat_sample *cur, unsigned ndevs, struct iostat_figures *f)
{
	static const struct iostat_sample zero;
	double hr_etime, etime;
	uint64_t dt;

	memset(f, 0, sizeof(*f));
	if (old == NULL) {
		/* The first line covers the kstat's whole life. */
		dt = (uint64_t)cur->snaptime - (uint64_t)cur->crtime;
		old = &zero;
	} else {
		dt = (uint64_t)cur->snaptime - (uint64_t)old->snaptime;
	}
	hr_etime = dt == 0 ? 1e9 : (double)dt;
	etime = hr_etime / 1e9;
	f->etime = etime;
	/* Deltas modulo each counter's width. */
	f->rps = (double)(uint32_t)(cur->io.reads - old->io.reads) / etime;
	f->wps = (double)(uint32_t)(cur->io.writes - old->io.writes) / etime;
	f->tps = f->rps + f->wps;
	f->krps = (double)(cur->io.nread - old->io.nread) / etime / 1024.0;
	f->kwps = (double)(cur->io.nwritten - old->io.nwritten) / etime /
	    1024.0;
	if (ndevs > 1)
		hr_etime /= ndevs;
	f->wait = (double)((uint64_t)cur->io.wlentime -
	    (uint64_t)old->io.wlentime) / hr_etime;
	f->actv = (double)((uint64_t)cur->io.rlentime -
	    (uint64_t)old->io.rlentime) / hr_etime;
	if (f->tps > 0) {
		f->wsvc_t = f->wait * 1000.0 / f->tps;
		f->asvc_t = f->actv * 1000.0 / f->tps;
		f->svc_t = f->wsvc_t + f->asvc_t;
	}
	f->pct_w = 100.0 * (double)((uint64_t)cur->io.wtime -
	    (uint64_t)old->io.wtime) / hr_etime;
	f->pct_b = 100.0 * (double)((uint64_t)cur->io.rtime -
	    (uint64_t)old->io.rtime) / hr_etime;
	if (ndevs > 1) {
		f->pct_w /= ndevs;
		f->pct_b /= ndevs;
	}
}

void
iostat_format_x_header(struct sbuf *buf, int width)
{
	sbuf_printf(buf, "%-*s    r/s    w/s   kr/s   kw/s wait actv  svc_t"
	    "  %%w  %%b\n", width, "device");
}

void
iostat_format_x(struct sbuf *buf, const char *device, int width,
    const struct iostat_figures *f)
{
	sbuf_printf(buf, "%-*s %6.1f %6.1f %6.1f %6.1f %4.1f %4.1f %6.1f "
	    "%3.0f %3.0f \n", width, device, f->rps, f->wps, f->krps, f->kwps,
	    f->wait, f->actv, f->svc_t, f->pct_w, f->pct_b);
}

void
iostat_format_xn_header(struct sbuf *buf)
{
	sbuf_cat(buf, "    r/s    w/s   kr/s   kw/s wait actv wsvc_t asvc_t"
	    "  %w  %b device\n");
}

void
iostat_format_xn(struct sbuf *buf, const char *device,
    const struct iostat_figures *f)
{
	sbuf_printf(buf, " %6.1f %6.1f %6.1f %6.1f %4.1f %4.1f %6.1f %6.1f "
	    "%3.0f %3.0f %s\n", f->rps, f->wps, f->krps, f->kwps, f->wait,
	    f->actv, f->wsvc_t, f->asvc_t, f->pct_w, f->pct_b, device);
}
