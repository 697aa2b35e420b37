/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tpldef.h: template definitions as JSON — the VoiSpec/StatSpec shape of
 * io.statsd.varlink — turned into stats(3) statistic specs and registered
 * with the engine. A definition is checked completely (by laying a scratch
 * blob out with it) before the engine's registry, which never forgets a
 * template, sees it.
 */
#ifndef STATSD_DAEMON_TPLDEF_H
#define STATSD_DAEMON_TPLDEF_H

#include <jansson.h>

#include "input_error.h"
#include "kstat2_hist.h"
#include "varlink.h"

/* The StatSpec and VoiSpec parameter tables (shared with the IDL). */
extern const struct vl_field tpldef_statspec_fields[];
extern const struct vl_field tpldef_voispec_fields[];

#define TPLDEF_MAX_VOIS		256
#define TPLDEF_MAX_STATS	16
#define TPLDEF_MAX_VOI_ID	4095

/*
 * tpldef_register: check a definition ({"name":..., "vois":[...]},
 * shaped by the tables above) and register it with the engine.
 * Another template of that name may exist (statsd keeps names per owner:
 * registry.h); the engine tells them apart by id.
 * Returns: the engine's template id (>= 0); -EINVAL with *err; -ENOMEM.
 */
int tpldef_register(json_t *def, struct input_error *err);

/*
 * tpldef_k2hist: what each K2HIST statistic of a registered definition
 * was made with, into out[id] for VOI id < n (out[id].valid set); others
 * are left alone.
 */
void tpldef_k2hist(json_t *def, struct k2hist_params *out, uint16_t n);

#endif
