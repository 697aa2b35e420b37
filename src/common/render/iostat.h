/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * iostat.h: the figures iostat(8) derives from two snapshots of an I/O
 * kstat, with illumos iostat's formulas, and its -x and -xn lines.
 */
#ifndef STATSD_IOSTAT_H
#define STATSD_IOSTAT_H

#include <statsd/kstat.h>
#include <statsd/sbuf.h>

/* One reading of an I/O kstat: its kstat_io (as a reader's snapshot sees
 * it, stat_ioq_snapshot) and the kstat's times. */
struct iostat_sample {
	kstat_io_t	io;
	hrtime_t	snaptime;
	hrtime_t	crtime;
};

struct iostat_figures {
	double	rps, wps, tps;		/* r/s, w/s, their sum */
	double	krps, kwps;		/* kr/s, kw/s (KiB/s) */
	double	wait, actv;		/* mean queue lengths */
	double	wsvc_t, asvc_t, svc_t;	/* ms per operation */
	double	pct_w, pct_b;		/* %w, %b */
	double	etime;			/* the interval, seconds */
};

/*
 * iostat_compute: the figures between old and cur (old NULL: since cur's
 * creation, as iostat's first line). ndevs > 1 treats the kstat as a
 * controller of that many devices (averaged). Counter deltas are taken
 * modulo their width, so a wrapped counter still gives its increment.
 */
void iostat_compute(const struct iostat_sample *old,
    const struct iostat_sample *cur, unsigned ndevs,
    struct iostat_figures *f);

/* iostat -x: the header and a device's line, the device column width wide
 * (at least the length of "device"). */
void iostat_format_x_header(struct sbuf *buf, int width);
void iostat_format_x(struct sbuf *buf, const char *device, int width,
    const struct iostat_figures *f);
/* iostat -xn: the header and a line (the device name last). */
void iostat_format_xn_header(struct sbuf *buf);
void iostat_format_xn(struct sbuf *buf, const char *device,
    const struct iostat_figures *f);

#endif /* STATSD_IOSTAT_H */
