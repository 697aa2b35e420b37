/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * flatreply.h: statsctl's side of statsd's flat kstats (Scrape's "flat"
 * format): each kstat of a reply decoded into the renderer's input — a
 * kstat header and its flat statistics (render_kstat.h) — so that show
 * and watch render and compute from data, with the daemon's own
 * renderer, and never parse text.
 */
#ifndef STATSCTL_FLATREPLY_H
#define STATSCTL_FLATREPLY_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "kstat_hdr.h"
#include "render_kstat.h"
#include "statsctl.h"

/* One decoded kstat; its statistics point into the reply it came from,
 * and into what the kstat owns (the texts of its numbers, its arrays). */
struct sc_flat {
	struct kstat_hdr	 hdr;
	struct ksfmt_stat	*st;
	size_t			 n;
	void			**own;
	size_t			 nown;
};

/*
 * sc_flat_decode: a FlatKstat object of a reply into f (sc_flat_done()
 * it; the reply must outlive f).
 * Returns: 0; -EPROTO for an object not shaped as the IDL says; -ENOMEM.
 */
int sc_flat_decode(const json_t *o, struct sc_flat *f);
void sc_flat_done(struct sc_flat *f);

/* Called for each kstat of a flat Scrape, in the order they come.
 * Returns: 0 to go on; anything else ends the walk with it. */
typedef int (*sc_flat_fn)(const struct sc_flat *f, void *arg);

/*
 * sc_flat_scrape: call Scrape with format "flat" and params (stolen:
 * selector, class, ...), and fn for each kstat of every reply of the call
 * (a reply marked "continues" is followed by more).
 * Returns: 0; SC_EXIT_FAIL (printed); fn's non-zero value.
 */
int sc_flat_scrape(struct sc *sc, json_t *params, sc_flat_fn fn, void *arg);

/*
 * sc_flat_reply: fn for each kstat of one reply's "flat" (a stream's
 * reply, as watch reads them).
 * Returns: 0; SC_EXIT_FAIL (printed); fn's non-zero value.
 */
int sc_flat_reply(const json_t *reply, sc_flat_fn fn, void *arg);

#endif /* STATSCTL_FLATREPLY_H */
