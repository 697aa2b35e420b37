/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stat_scalar.h: the scalar statistics the kstat and Linux front ends add
 * to stats(3)'s SUM, MIN and MAX: COUNT (the sum of the weights Y) and LAST
 * (a kstat named value: the last X, or a CHAR or STRING value).
 */
#ifndef STATSD_STAT_SCALAR_H
#define STATSD_STAT_SCALAR_H

#include "dtype.h"
#include "op.h"
#include "kindspec.h"

/*
 * A STRING value: cap bytes of storage, len of them used and NUL-terminated
 * (len < cap). kind says which kstat data type it shows as.
 */
struct vsd_string {
	uint16_t	cap;
	uint16_t	len;
	uint8_t		kind;		/* KSTAT_DATA_CHAR or KSTAT_DATA_STRING */
	uint8_t		pad[3];
	char		s[];
};

#define STRING_HDRSZ	8u
#define STRING_CHAR_MAX	16u	/* a kstat CHAR value holds 16 bytes */
#define STRING_MAX	4096u	/* longest STRING value statsd keeps */

/* Arguments of stat_string_vss_hlpr(). */
struct vss_string_hlpr_info {
	uint8_t		kind;		/* KSTAT_DATA_CHAR or KSTAT_DATA_STRING */
	uint16_t	maxlen;		/* STRING: 1..STRING_MAX; CHAR: ignored */
};

/*
 * Helpers with the vss_hlpr_fn signature (use with STATS_VSS(), or call
 * them and free vss->iv yourself). COUNT and scalar LAST hold the VOI's
 * type; COUNT's unit is one weight (1.0 for a fixed-point VOI). Their
 * helpers, stats_vss_count_hlpr() and stats_vss_last_hlpr(), are public
 * (<statsd/stats.h>); the text one is statsd's.
 * Returns: 0; EINVAL; ENOMEM.
 */
int stat_string_vss_hlpr(enum vsd_dtype voi_dtype, struct voistatspec *vss,
    struct vss_string_hlpr_info *info);

/*
 * Set a STRING value to the len bytes at s.
 * Returns: 0; E2BIG if len does not fit.
 */
int stat_string_set(struct voistatdata *vsd, const char *s, size_t len);

/*
 * stat_named_data_type: the kstat_named_t data type (KSTAT_DATA_*) a named
 * value shows as: a string's kind, or by the VOI's type (S32 INT32, U32
 * UINT32, S64 and SLONG INT64, U64 and ULONG UINT64).
 * Returns: the type; -1 for a fixed-point VOI, which kstat cannot show.
 */
int stat_named_data_type(enum vsd_dtype voi_dtype, enum vsd_dtype vs_dtype,
    const struct voistatdata *vsd);

/* The kind-table operations. */
int stat_count_update(struct voistatdata *, uint16_t, enum vsd_dtype,
    enum vsd_dtype, const struct voistatdata_numeric *, uint64_t, bool *);
int stat_last_update(struct voistatdata *, uint16_t, enum vsd_dtype,
    enum vsd_dtype, const struct voistatdata_numeric *, uint64_t, bool *);
int stat_last_event(struct voistatdata *, uint16_t, enum vsd_dtype,
    enum vsd_dtype, const struct stats_event *, bool *);
int stat_sum_event(struct voistatdata *, uint16_t, enum vsd_dtype,
    enum vsd_dtype, const struct stats_event *, bool *);
void stat_last_reset(struct voistatdata *, uint16_t, enum vsd_dtype,
    enum vsd_dtype);
int stat_last_merge(struct voistatdata *, const struct voistatdata *,
    uint16_t, enum vsd_dtype, enum vsd_dtype);
const char *stat_last_check(const struct voistatdata *, uint16_t,
    enum vsd_dtype, enum vsd_dtype);
kind_render_fn stat_string_render;

/* Append s as a JSON string, quoted, with RFC 8259 escapes only. */
void stat_json_string(struct sbuf *buf, const char *s, size_t len);

/* COUNT, LAST, and LAST as STRING or CHAR, as a template's statistics
 * (kindspec.h). */
kind_build_fn stat_count_build, stat_last_build, stat_string_build,
    stat_char_build;
kind_describe_fn stat_last_describe;

#endif /* STATSD_STAT_SCALAR_H */
