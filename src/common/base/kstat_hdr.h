/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kstat_hdr.h: a kstat's header as data (illumos kstat and Solaris kstat2):
 * its names, kind, flags, kstat2 path, description and content type, with
 * the rules for each field; lookups with illumos's wildcards; and
 * kstat(1M)'s module:instance:name:statistic selectors, in shell-glob and
 * /regex/ forms.
 */
#ifndef STATSD_KSTAT_HDR_H
#define STATSD_KSTAT_HDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <statsd/kstat.h>

#include "input_error.h"

#define KS_PATH_MAX	255	/* kstat2 path: segments joined by '/' */
#define KS_NPSEG_MIN	3	/* category, component and name */
#define KS_NPSEG_MAX	16
#define KS_DESC_MAX	1023

/* Flags a creator may give; DORMANT, INVALID and LONGSTRINGS are ours. */
#define KS_FLAGS_CREATOR	(KSTAT_FLAG_VIRTUAL | KSTAT_FLAG_VAR_SIZE | \
				    KSTAT_FLAG_WRITABLE | \
				    KSTAT_FLAG_PERSISTENT | KSTAT_FLAG_PRIV)
#define KS_FLAGS_KNOWN		(KS_FLAGS_CREATOR | KSTAT_FLAG_DORMANT | \
				    KSTAT_FLAG_INVALID | \
				    KSTAT_FLAG_LONGSTRINGS)

struct kstat_hdr {
	char		module[KSTAT_STRLEN];
	char		name[KSTAT_STRLEN];
	char		class_[KSTAT_STRLEN];
	uint8_t		type;		/* KSTAT_TYPE_* */
	uint8_t		content;	/* enum kstat2_nv_metatype */
	int32_t		instance;	/* ≥ 0 */
	uint32_t	flags;		/* KSTAT_FLAG_* */
	int64_t		kid;
	uint64_t	scale;		/* ≥ 1: multiply values by it for units */
	hrtime_t	crtime;
	hrtime_t	snaptime;
	char		path[KS_PATH_MAX + 1];	/* "" when not a kstat2 */
	char		desc[KS_DESC_MAX + 1];
};

/*
 * ks_hdr_init: fill h for a new kstat. module is 1 to 30 characters; name
 * NULL means "<module><instance>" (truncated to 30), as on illumos; class_
 * NULL means "misc"; instance ≥ 0; type a KSTAT_TYPE_*; flags of
 * KS_FLAGS_CREATOR, PERSISTENT not with VIRTUAL. Names may hold any
 * printable character but ':' (kstat(1M)'s separator). content is UNK and
 * scale 1; kid, crtime and snaptime are 0 for the caller to set.
 * Returns: 0; -EINVAL or -ENAMETOOLONG with err naming the field.
 */
int ks_hdr_init(struct kstat_hdr *h, const char *module, int32_t instance,
    const char *name, const char *class_, uint8_t type, uint32_t flags,
    struct input_error *err);

/*
 * ks_hdr_set_path: the kstat2 path from npseg segments (0 clears it):
 * KS_NPSEG_MIN..KS_NPSEG_MAX non-empty printable segments without '/',
 * KS_PATH_MAX bytes in all once joined by '/'.
 * Returns: 0; -EINVAL or -ENAMETOOLONG with err; h unchanged on error.
 */
int ks_hdr_set_path(struct kstat_hdr *h, const char *const *pseg,
    uint32_t npseg, struct input_error *err);

/*
 * ks_hdr_set_desc, ks_hdr_set_content: the description (printable, ≤
 * KS_DESC_MAX), the content type and scale (≥ 1).
 * Returns: 0; -EINVAL or -ENAMETOOLONG with err; h unchanged on error.
 */
int ks_hdr_set_desc(struct kstat_hdr *h, const char *desc,
    struct input_error *err);
int ks_hdr_set_content(struct kstat_hdr *h, uint8_t content, uint64_t scale,
    struct input_error *err);

/*
 * ks_hdr_new: a new kstat's whole header as its creator gives it:
 * ks_hdr_init(), then the kstat2 path of npseg segments (0: none) and the
 * description (NULL: none). What a header must be before statsd's
 * registry takes it.
 * Returns: as ks_hdr_init(), ks_hdr_set_path(), ks_hdr_set_desc().
 */
int ks_hdr_new(struct kstat_hdr *h, const char *module, int32_t instance,
    const char *name, const char *class_, uint8_t type, uint32_t flags,
    const char *const *pseg, uint32_t npseg, const char *desc,
    struct input_error *err);

/*
 * ks_hdr_check: validate a header of unknown origin (a copy out of shared
 * memory): terminated strings, the rules above, known type and flags.
 * Returns: 0; -EINVAL with err naming the field.
 */
int ks_hdr_check(const struct kstat_hdr *h, struct input_error *err);

/* The path's segments: how many, and segment i into buf (≤ len bytes). */
uint32_t ks_hdr_npseg(const struct kstat_hdr *h);
int ks_hdr_pseg(const struct kstat_hdr *h, uint32_t i, char *buf, size_t len);

/* The kstat type's name as kstat_types shows it: "raw", "name=value",
 * "interrupt", "i/o"... */
const char *ks_type_name(uint8_t type);

/* The kstat type's identifier in the protocol: "RAW", "NAMED", "INTR",
 * "IO", "TIMER", "HIST", "BLOB"; NULL for an unknown type. */
const char *ks_type_id(uint8_t type);

/* The type of an identifier. Returns: its KSTAT_TYPE_*; -EINVAL. */
int ks_type_from_id(const char *id);

/* A kstat2 content type's identifier in the protocol: Solaris's
 * KSTAT2_NVMT_* without the prefix ("UNK", "CNT", "BYTES", "T_REL"...);
 * NULL for an unknown one. */
const char *ks_content_id(uint8_t content);

/* The content type of an identifier. Returns: its KSTAT2_NVMT_*;
 * -EINVAL. */
int ks_content_from_id(const char *id);

/*
 * The kstat flags by their names in the protocol, the one table of them:
 * "PERSISTENT", "PRIV", "WRITABLE", "DORMANT", then "VIRTUAL" and
 * "VAR_SIZE" (accepted, meaning nothing here) and kstat2's "GZ_VIS";
 * ks_flag_names[i].flag is the KSTAT_FLAG_* (KSTAT2_FLAG_*) value.
 */
struct ks_flag_name {
	const char	*name;
	uint32_t	 flag;
};
#define KS_NFLAG_NAMES	7
extern const struct ks_flag_name ks_flag_names[KS_NFLAG_NAMES];

/* The flags a kstat's description lists (Chain and friends), and that
 * its store slot keeps; with GZ_VIS, where it has it. */
#define KS_FLAGS_SHOWN	(KSTAT_FLAG_PERSISTENT | KSTAT_FLAG_PRIV | \
			    KSTAT_FLAG_WRITABLE | KSTAT_FLAG_DORMANT)

/* The creator's flags that mean something to statsd, which a client
 * keeps and sends (VIRTUAL and VAR_SIZE are accepted and mean nothing);
 * with GZ_VIS, where it has it. */
#define KS_FLAGS_MEANT	(KSTAT_FLAG_PERSISTENT | KSTAT_FLAG_PRIV | \
			    KSTAT_FLAG_WRITABLE)

/*
 * ks_flags_names: the protocol names of the flags set in flags, in
 * ks_flag_names[]'s order (every list of them is in that order), into
 * names[0..KS_NFLAG_NAMES).
 * Returns: how many.
 */
size_t ks_flags_names(uint32_t flags, const char *names[KS_NFLAG_NAMES]);

/* The flag of a name. Returns: its value; 0 for an unknown name. */
uint32_t ks_flag_from_name(const char *name);

/*
 * ks_hdr_kstat: the header's part of the public kstat_t (libkstat's
 * consumers, and a provider's own kstat_t): names, instance, type, flags,
 * KID, crtime and snaptime, as h has them. The rest of *ks (its data, the
 * chain link) is left as it is.
 */
void ks_hdr_kstat(kstat_t *ks, const struct kstat_hdr *h);

/* kstat(1M)'s order: module (strcasecmp), instance, name (strcasecmp). */
int ks_hdr_cmp(const struct kstat_hdr *a, const struct kstat_hdr *b);

/*
 * ks_hdr_matches: kstat_lookup(3KSTAT)'s test: module NULL, instance -1
 * and name NULL match anything; the rest compare exactly.
 */
bool ks_hdr_matches(const struct kstat_hdr *h, const char *module,
    int32_t instance, const char *name);

/*
 * ks_hdr_lookup: the first of n headers that ks_hdr_matches().
 * Returns: its index; -ENOENT.
 */
ssize_t ks_hdr_lookup(const struct kstat_hdr *const *hdrs, size_t n,
    const char *module, int32_t instance, const char *name);

/*
 * A kstat(1M) pattern: "/re/" is a POSIX extended regular expression,
 * unanchored; anything else a shell glob matched against the whole string.
 * An empty pattern, or "*", matches everything. Both compile to rx.h's
 * linear-time engine, since patterns come from untrusted peers: no
 * backreferences, a bounded program, and a match whose cost is bounded by
 * ks_pattern_cost().
 */
struct rx;
struct ks_pattern {
	bool		any;
	struct rx	*rx;
	char		*literal;	/* the one string it matches, if so */
};

/*
 * ks_pattern_init: compile text (NULL: match all).
 * Returns: 0; -EINVAL for a bad pattern (err->msg says what and where);
 * -ENOMEM.
 */
int ks_pattern_init(struct ks_pattern *p, const char *text,
    struct input_error *err);
bool ks_pattern_match(const struct ks_pattern *p, const char *s);
void ks_pattern_done(struct ks_pattern *p);

/*
 * ks_pattern_literal: the one string p matches, when it is a glob without
 * any of * ? [ \ (a name written out): a reader may then go straight to
 * it instead of matching every candidate.
 * Returns: the string (p's); NULL for any other pattern.
 */
const char *ks_pattern_literal(const struct ks_pattern *p);

/* The most work matching p against a string of len bytes can cost, in
 * engine steps (0 for a pattern that matches all): what a caller matching
 * many strings adds up to bound its work. */
uint64_t ks_pattern_cost(const struct ks_pattern *p, size_t len);

enum ks_field {
	KS_F_MODULE = 0,
	KS_F_INSTANCE,
	KS_F_NAME,
	KS_F_STATISTIC,
	KS_NFIELDS
};

/* module:instance:name:statistic, each a pattern; the instance is matched
 * as its decimal string. */
struct ks_selector {
	struct ks_pattern	f[KS_NFIELDS];
};

/*
 * ks_selector_parse: a kstat(1M) operand: up to four ':'-separated
 * patterns, an empty or absent one meaning "*". A /regex/ field may hold
 * ':' itself; it ends at a '/' followed by ':' or the end.
 * Returns: 0; -EINVAL with err naming the field (too many fields, a bad
 * regular expression); -ENOMEM. On error sel needs no ks_selector_done.
 */
int ks_selector_parse(struct ks_selector *sel, const char *text,
    struct input_error *err);

/* A selector that matches everything (then set fields, as -m/-i/-n/-s). */
void ks_selector_all(struct ks_selector *sel);
int ks_selector_set(struct ks_selector *sel, enum ks_field f,
    const char *text, struct input_error *err);

bool ks_selector_match_kstat(const struct ks_selector *sel,
    const struct kstat_hdr *h);
bool ks_selector_match_stat(const struct ks_selector *sel,
    const char *statistic);
void ks_selector_done(struct ks_selector *sel);

#endif /* STATSD_KSTAT_HDR_H */
