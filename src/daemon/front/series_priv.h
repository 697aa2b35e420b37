/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * series_priv.h: what series' files share: the table's entries and
 * state, and the calls series.c (a line's apply and update, expiry)
 * makes into the table (series_table.c) and the templates
 * (series_tpl.c). Lowest first: series_tpl.c, series_table.c, series.c.
 */
#ifndef STATSD_SERIES_PRIV_H
#define STATSD_SERIES_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "engine.h"
#include "registry.h"
#include "series.h"
#include "siphash.h"
#include "stat_list.h"

#define SERIES_CLASS	"statsd"
/* A timer's milliseconds are kept as whole microseconds. */
#define SERIES_TIMER_SCALE	1000.0

/* Sets: a HyperLogLog of 2^10 six-bit registers (1.04/sqrt(1024): about
 * 3 % standard error) estimates the distinct count once the exact LIST
 * is full. The registers are text, one base64 digit each ('A' is 0), in
 * the STRING of the set's VOI 2 ("hll"), so that whatever carries the
 * blob (the checkpoint, a PERSISTENT kstat's runtime file, dormancy)
 * carries the estimate, and a reset clears it with the LIST. */
#define HLL_P		10
#define HLL_M		(1u << HLL_P)
#define HLL_VOI		2

#define FNV_BASIS	UINT64_C(0xcbf29ce484222325)

struct series_ent {
	uint64_t	 hash;
	uint32_t	 handle;	/* the kstat's; looked up on use */
	uint64_t	 last_ns;	/* last line */
	uint32_t	 src;		/* index into the sources */
	uint8_t		 type;
	uint32_t	 name_len;
	uint32_t	 ntags;
	/* Timers, histograms, distributions: the fraction of 1/rate the
	 * whole weights so far have left out (series_weight()). */
	double		 carry;
	char		*hll;		/* a set without a VOI 2 STRING:
					 * its registers, here */
	/* Where its kstat and blob were at its last line: only ever
	 * prefetched (series_hint_data()), never read through, so a stale
	 * address costs nothing but a wasted hint. */
	const void	*hint_k;
	const void	*hint_blob;
	const char	*name;		/* in bytes[] */
	const char	**tag;		/* sorted, distinct; into bytes[] */
	uint32_t	*tag_len;
	char		 bytes[];
};

/* Who made series, with how many: the uids of the Unix socket, and UDP;
 * and the PERSISTENT series each made in turn number turn. */
struct series_source {
	uid_t		uid;
	bool		udp;
	uint32_t	n;
	uint64_t	turn;
	unsigned	durable;
};

/* A kstat of a series, under the keyed hash of its path. Entries are
 * checked on use (a peer may have deleted the kstat). */
struct series_by_path {
	uint64_t	hash;
	uint32_t	handle;		/* 0: empty */
};

struct series {
	struct statsd		 *d;
	struct reg_template	 *tpl[SL_NTYPES];
	struct series_ent	**tab;		/* open addressing, linear */
	size_t			  cap;		/* a power of two */
	size_t			  n;
	size_t			  cursor;	/* series_expire()'s */
	struct series_source	 *srcs;
	size_t			  nsrcs, csrcs;
	struct series_stats	  st;
	/* The blob open for writing: consecutive lines of one series (a
	 * client's batch, a burst) share one seqlock section and one plan
	 * of the VOI's statistics. Closed before anything else touches the
	 * registry, and by series_sync() at the end of every batch. */
	struct reg_kstat	 *open_k;
	struct statsblob	 *open_sb;
	uint64_t		  open_now;
	struct engine_plan	  plan;
	bool			  plan_made;	/* for open_sb */
	/* The series of the last line applied, while its blob is open
	 * (cleared by series_close()): the next line without tags that
	 * names it finds it without the table (series_apply()). */
	struct series_ent	 *last_e;
	struct sip_key		  key;		/* series_key()'s */
	/* The kstats of series by path (series_kstat()): open addressing,
	 * built from the registry on first use, so that PERSISTENT ones
	 * from the checkpoint are found whatever their instance. */
	struct series_by_path	 *bypath;
	size_t			  bp_cap;	/* 0: not built yet */
	size_t			  bp_n;
	uint64_t		  turn;		/* series_sync()s so far */
};

/* series_tpl.c */
uint64_t series_fnv(const char *p, size_t n, uint64_t h);

/* series_table.c */
uint64_t series_mix(uint64_t x);
/* Sort a line's tags (as sl_series_path_make() does) and drop repeats.
 * Returns: how many are left. */
uint32_t series_tags_sort(const char **tag, uint32_t *tag_len,
	    uint32_t ntags);
/* series_key() and series_slot() take sorted, distinct tags. */
uint64_t series_key(const struct series *s, uint8_t type, const char *name,
	    uint32_t name_len, const char *const *tag, const uint32_t *tag_len,
	    uint32_t ntags);
struct series_ent **series_slot(struct series *s, uint64_t h, uint8_t type,
	    const char *name, uint32_t name_len, const char *const *tag,
	    const uint32_t *tag_len, uint32_t ntags);
int	series_grow(struct series *s);
void	series_unslot(struct series *s, size_t i);
void	series_ent_free(struct series *s, struct series_ent *e);
uint64_t series_path_hash(const struct series *s, const char *const *seg,
	    uint32_t nseg);
void	series_bypath_put(struct series_by_path *t, size_t cap, uint64_t h,
	    uint32_t handle);
int	series_bypath_build(struct series *s, size_t want);
struct reg_kstat *series_bypath_find(struct series *s, uint64_t h,
	    const struct sl_series_path *sp);

#endif /* STATSD_SERIES_PRIV_H */
