/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tostr.h: stats_blob_tostr() for a caller that has the template's names
 * already and must not take the template registry's lock: statsd's reader
 * threads, which find a kstat's template among those the writer published
 * and never wait on a lock the writer holds.
 */
#ifndef STATSD_RENDER_TOSTR_H
#define STATSD_RENDER_TOSTR_H

#include <stdint.h>

#include <statsd/sbuf.h>
#include <statsd/stats.h>

/*
 * blob_tostr_named: sb as stats_blob_tostr(sb, buf, fmt, flags |
 * SB_TOSTR_META) renders it, the template named tplname and its VOI names
 * the nnames of names (a VOI id past them shows unnamed).
 * Returns: 0; EINVAL; an sbuf error.
 */
int blob_tostr_named(struct statsblob *sb, struct sbuf *buf,
    enum sb_str_fmt fmt, uint32_t flags, const char *tplname,
    const char *const *names, uint16_t nnames);

#endif /* STATSD_RENDER_TOSTR_H */
