/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * segs.h: the store segments statsd gives a connection (SegmentAttach),
 * mapped read-only and kept across calls as the set changes: statsd gives
 * each peer the segments of the zones whose kstats it may see, and makes
 * and drops a zone's segments as kstats come and go.
 */
#ifndef STATSD_CLIENT_SEGS_H
#define STATSD_CLIENT_SEGS_H

#include <stdbool.h>
#include <stdint.h>

#include "store.h"
#include "vlclient.h"

#define CL_SEG_NAME_MAX	40

/* One segment: its name (Kstat.segment), descriptor and reader. */
struct cl_seg {
	char			 name[CL_SEG_NAME_MAX];
	bool			 priv;
	int			 fd;
	struct store_reader	*r;
	uint64_t		 birth;		/* names it across updates */
	uint64_t		 kcid;		/* as of the last look */
};

struct cl_segs {
	struct cl_seg		*v;
	size_t			 n;
};

/* Makes one SegmentAttach call with params (taken over) into *rep. */
typedef int cl_segs_call_fn(void *ctx, json_t *params,
    struct vlc_reply *rep);

/*
 * cl_segs_attach: make s the segments statsd gives now (SegmentAttach,
 * page after page, through call): ones s maps already (same name and
 * birth) stay as they are, new ones are mapped, the others unmapped.
 * Returns: 0; -errno of a call; -EPROTO for a malformed reply; -ENOMEM. A
 * segment that cannot be mapped is left out (*ret_err, may be NULL, says
 * why).
 */
int cl_segs_attach(struct cl_segs *s, cl_segs_call_fn *call, void *ctx,
    int *ret_err);

/* The segment called name, or NULL. */
struct cl_seg *cl_segs_find(struct cl_segs *s, const char *name);

/* The segment whose birth stamp is birth, or NULL. */
struct cl_seg *cl_segs_by_birth(struct cl_segs *s, uint64_t birth);

/* The sum of every segment's chain id now: what a chain walk compares. */
uint64_t cl_segs_kcid(const struct cl_segs *s);

/* Has the "all" segment (every peer's) moved since the last update? Then
 * segments may have come or gone: attach again. */
bool cl_segs_stale(const struct cl_segs *s);

void cl_segs_free(struct cl_segs *s);

/*
 * Kstat ref's header and blob from a store segment, read patiently: a
 * writer that keeps the kstat busy (producers flooding it, a machine
 * under load) is waited out, a millisecond at a time, for a second at
 * most, before -EAGAIN.
 * Returns: as store_reader_read().
 */
int cl_store_read(struct store_reader *r, struct store_ref ref,
    struct kstat_hdr *ret_h, void *buf, size_t bufsize, size_t *ret_size);

/*
 * The layout of kstat ref's blob from a store segment, or only where the
 * blob lies: read under the layout's sequence counter
 * (store_reader_read_layout()), which updates never move, so a kstat that
 * producers flood (statsd then holds its whole sequence odd nearly all the
 * time) is read at once. The copy's data are reset (blob_layout_clean()):
 * what is left is the blob as publish and the spill images want it. An
 * add or re-lay in progress is waited out.
 * Returns: as store_reader_read() / store_reader_blob_span(); -EBADMSG if
 * the copy is not a valid blob.
 */
int cl_store_layout(struct store_reader *r, struct store_ref ref, void *buf,
    size_t bufsize, size_t *ret_size);
/* The copy as it was read, not checked nor reset. */
int cl_store_layout_raw(struct store_reader *r, struct store_ref ref,
    void *buf, size_t bufsize, size_t *ret_size);
int cl_store_span(struct store_reader *r, struct store_ref ref,
    uint64_t *ret_off, uint32_t *ret_size, uint32_t *ret_chunk);

#endif
