/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * statsd_line.h: the statsd and DogStatsD line protocol, parsed in place,
 * and how a statsd series (type + metric name + tag set) is named as a
 * kstat: its kstat2 path, which carries the name and the tags to every
 * reader.
 *
 * A datagram holds lines ended by '\n' (a '\r' before it is dropped):
 *
 *   <name>:<value>[:<value>...]|<type>[|@<rate>][|#<tag>[,<tag>...]]
 *       [|c:<container>][|T<unix seconds>][|<any other field>]
 *
 * as Etsy statsd and DogStatsD accept it: types c, g, ms, h, d and s; a
 * gauge value with a leading sign is a delta; several values on one line
 * are DogStatsD 1.1's packing; tags are `key:value` or bare `key`. A field
 * this parser does not know is skipped and counted (ignored), the line is
 * still good. Nothing is copied: a parsed line points into the caller's
 * buffer, and nothing here allocates.
 */
#ifndef STATSD_STATSD_LINE_H
#define STATSD_STATSD_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sl_type {
	SL_COUNTER = 0,		/* c */
	SL_GAUGE,		/* g */
	SL_TIMER,		/* ms */
	SL_HISTOGRAM,		/* h */
	SL_DISTRIBUTION,	/* d */
	SL_SET,			/* s */
	SL_NTYPES
};

/* "counter", "gauge", "timer", "histogram", "distribution", "set": the
 * component segment of a series' kstat2 path. */
extern const char *const sl_type_names[SL_NTYPES];

/*
 * sl_tpl_type: the type whose statsd series template name is, in any
 * layout: "statsd.<type>" or "statsd.<type>.<digest of the layout>".
 * Returns: the type; -1 if name is no such name.
 */
int sl_tpl_type(const char *name);

/* Why a line was refused; SL_OK for a good one. */
enum sl_reject {
	SL_OK = 0,
	SL_R_SYNTAX,	/* no ':' after the name, no '|' and type */
	SL_R_NAME,	/* empty, too long, or a control character or blank */
	SL_R_TYPE,	/* not one of c, g, ms, h, d, s */
	SL_R_VALUE,	/* not a number (for s: empty), or too many */
	SL_R_RATE,	/* not a number in (0, 1] */
	SL_R_TAGS,	/* a tag too long, empty key, or too many tags */
	SL_R_UTF8,	/* name, tag or set member not valid UTF-8 */
	SL_R_EVENT,	/* a DogStatsD event (_e{) or service check (_sc|) */
	SL_R_TIMESTAMP,	/* |T not a whole number of seconds */
	SL_NREJECTS
};

/* "syntax", "name", "type", "value", "rate", "tags", "utf8", "event",
 * "timestamp" (SL_OK: "ok"): the names the daemon counts them by. */
extern const char *const sl_reject_names[SL_NREJECTS];

/* Bounds a line must keep (the daemon's config). */
struct sl_limits {
	uint32_t	name_max;	/* bytes of a metric name */
	uint32_t	tag_max;	/* bytes of one tag */
	uint32_t	tags_max;	/* tags on one line */
	uint32_t	values_max;	/* values on one line (1.1 packing) */
};

struct sl_line {
	const char	*name;
	const char	*values;	/* the values, ':'-separated */
	const char	*tags;		/* after '#', ','-separated; or NULL */
	const char	*container;	/* after "c:"; or NULL */
	uint32_t	 name_len;
	uint32_t	 values_len;
	uint32_t	 tags_len;
	uint32_t	 container_len;
	uint32_t	 nvalues;
	uint32_t	 ntags;		/* non-empty tags */
	uint32_t	 ignored;	/* fields skipped */
	uint8_t		 type;		/* enum sl_type */
	bool		 has_rate;
	bool		 has_ts;
	double		 rate;		/* 1 when not given */
	int64_t		 ts;		/* |T: unix seconds */
	double		 value;		/* the first value as a number (a
					 * set's: 0), parsed once */
};

/*
 * sl_line_parse: parse the len bytes at p (one line, without its end) and
 * check every part of it against lim: each value is a number (a decimal
 * with optional sign, fraction and exponent; not inf, nan or hex), except
 * a set's, which is any non-empty valid UTF-8.
 * Returns: SL_OK and *ret; else the reason (ret's contents undefined).
 */
enum sl_reject sl_line_parse(const char *p, size_t len,
    const struct sl_limits *lim, struct sl_line *ret);

struct sl_value {
	const char	*s;		/* the value's text */
	uint32_t	 len;
	bool		 signed_;	/* written with a leading + or - */
	double		 v;		/* as a number (not for sets) */
};

/*
 * sl_value_next: the value of l after *pos (start with 0), *pos moved on.
 * Returns: true and *ret; false after the last.
 */
bool sl_value_next_packed(const struct sl_line *l, uint32_t *pos,
    struct sl_value *ret);

static inline bool
sl_value_next(const struct sl_line *l, uint32_t *pos, struct sl_value *ret)
{
	/* One value (nearly every line): the whole part, parsed already;
	 * several: sl_value_next_packed() splits them. */
	if (*pos > l->values_len)
		return false;
	if (*pos == 0 && l->nvalues == 1) {
		ret->s = l->values;
		ret->len = l->values_len;
		ret->signed_ = l->values[0] == '+' || l->values[0] == '-';
		ret->v = l->value;
		*pos = l->values_len + 1;
		return true;
	}
	return sl_value_next_packed(l, pos, ret);
}

/*
 * sl_tag_next: the next non-empty tag of a tags field (tags, len) after
 * *pos (start with 0). Returns: true, *ret_tag and *ret_len; false at the
 * end.
 */
bool sl_tag_next(const char *tags, uint32_t len, uint32_t *pos,
    const char **ret_tag, uint32_t *ret_len);

/*
 * sl_next_line: the next line of a datagram (buf, len) after *pos (start
 * with 0): up to '\n' or the end, a '\r' before the '\n' dropped; empty
 * lines are skipped. Returns: true, *ret_line, *ret_len; false at the end.
 */
bool sl_next_line(const char *buf, size_t len, size_t *pos,
    const char **ret_line, size_t *ret_len);

/* Is (s, n) valid UTF-8 (no overlong forms, no surrogates)? */
bool sl_utf8_valid(const char *s, size_t n);

/*
 * A series as a kstat2 path: "statsd/<type>/<name>[/<tag>...]", tags
 * sorted bytewise and repeated ones dropped. Every byte outside printable
 * ASCII, and '/' and '%', is written %XX (upper-case hex), so the path
 * holds any UTF-8 name and tag; sl_seg_decode() undoes it.
 */
#define SL_PATH_CATEGORY	"statsd"
#define SL_PATH_TAGS_MAX	13	/* kstat2's 16 segments, less 3 */
#define SL_PATH_MAX		255

struct sl_series_path {
	char		 buf[SL_PATH_MAX + 1 + 16];
	const char	*seg[3 + SL_PATH_TAGS_MAX];
	uint32_t	 nseg;
};

/*
 * sl_series_path_make: the path of the series of type (name, name_len)
 * with the ntags tags tags[i] (lengths tag_len[i]; the order is
 * irrelevant; tags[] and tag_len[] are sorted in place).
 * Returns: 0 and *ret; -E2BIG for more than SL_PATH_TAGS_MAX distinct
 * tags; -ENAMETOOLONG if the path passes SL_PATH_MAX bytes.
 */
int sl_series_path_make(uint8_t type, const char *name, uint32_t name_len,
    const char **tags, uint32_t *tag_len, uint32_t ntags,
    struct sl_series_path *ret);

/*
 * sl_seg_encode: (s, n) as a path segment (escaped as above) into out
 * (len bytes with its NUL): how a reader names a tag to look for.
 * Returns: the length; -ENAMETOOLONG.
 */
int sl_seg_encode(const char *s, size_t n, char *out, size_t len);

/* Does the kstat2 path (segments joined by '/') hold segment seg whole,
 * past its first three (category, type, name)? That is: does the series
 * carry this (encoded) tag? */
bool sl_path_has_tag(const char *path, const char *seg);

/*
 * sl_seg_decode: a path segment's own bytes, %XX undone, into out (len
 * bytes with its NUL).
 * Returns: the length; -EINVAL for a bad escape; -ENAMETOOLONG.
 */
int sl_seg_decode(const char *seg, size_t seg_len, char *out, size_t len);

#endif /* STATSD_STATSD_LINE_H */
