/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * store.h: the shared-memory store segment that holds the kstat chain and
 * the blobs — its layout (the versioned contract between statsd and every
 * reader), the daemon's writer API and the readers' API. statsd keeps two
 * segments: a public one (mode 0640 when kept as a file) and a private one
 * for PRIV kstats (0600); both have this layout and differ only in `kind`.
 *
 * Layout (offsets from the start of the segment; native-endian, `endian`
 * tells which; every offset is from the segment start, never a pointer):
 *
 *   0          +---------------------------------------------------------+
 *              | superblock (256 bytes)                                  |
 *              |   magic u64 "STDSTOR1" | abi_major u16 | abi_minor u16  |
 *              |   hdr_size u32 | compat u32 | incompat u32 | endian u32 |
 *              |   kind u32 | seg_size u64 | birth u64 | kcid u64        |
 *              |   table_off u64 | table_slots u32 | kstat_size u32      |
 *              |   arena_off u64 | arena_size u64                        |
 *              |   table_used u32 | nkstat u32 | next_kid u64 | ready u32|
 *              |   log_off u64 | log_slots u32  (compat CHANGELOG)       |
 *   table_off  +---------------------------------------------------------+
 *              | kstat header [0]            (kstat_size = 256 bytes)    |
 *              |   seq u32 (odd while written) | gen u32 (bumped on      |
 *              |   reuse) | kid | crtime | snaptime | blob_off u64 |      |
 *              |   blob_size u32 | chunk_size u32 | tpl_hash u64 |       |
 *              |   owner_uid u32 | instance i32 | flags u32 | type u8 |  |
 *              |   content u8 | ndata u32 | text_off u32 | path_len u16 |
 *              |   desc_len u16 | scale u64 | lseq u32 (odd while the |
 *              |   layout changes) | reserved |                         |
 *              |   module[31] | name[31] | class[31]                     |
 *              | kstat header [1] ...                                    |
 *              | kstat header [table_slots - 1]                          |
 *   log_off    +---------------------------------------------------------+
 *              | change log: log_slots entries of 16 bytes, a ring by    |
 *              | KCID: kcid u64 | slot u32 | gen u32                      |
 *   arena_off  +---------------------------------------------------------+
 *              | arena: chunks of 64 << k bytes, each holding one blob,  |
 *              | then (at blob_off + text_off) the kstat2 path and the   |
 *              | description, NUL-terminated                             |
 *              |                              ...                        |
 *   seg_size   +---------------------------------------------------------+
 *
 * The segment is a memfd of fixed maximum size, sparse (pages exist only
 * once touched) and sealed against shrinking and growing, so a mapping of
 * seg_size bytes can never fault.
 *
 * Consistency. Each kstat header has a sequence counter: the writer makes it
 * odd, changes the header and/or the blob, makes it even (release). A reader
 * loads it (acquire), copies header and blob, fences (acquire), loads it
 * again, and retries a bounded number of times if it was odd or changed —
 * the perf mmap-page loop. A slot is never reused without bumping its
 * generation, so a (slot, gen) reference goes stale instead of silently
 * naming another kstat. The chain id (KCID) changes whenever a kstat is
 * added, removed or re-laid; a chain walk is consistent when the KCID is the
 * same before and after it. Each change also goes into the change log, at
 * entry KCID mod log_slots (a per-entry seqlock: its kcid is 0 while it is
 * written), so that a reader that saw KCID k learns which slots changed
 * since by reading the entries k+1 .. now instead of the whole table, as
 * long as the log still holds them.
 *
 * Readers trust nothing: the superblock is validated once at open and its
 * geometry kept privately; every header copy is checked (offsets inside the
 * arena, sizes inside their chunk, strings terminated) after the sequence
 * check says the copy is consistent.
 */
#ifndef STATSD_COMMON_STORE_H
#define STATSD_COMMON_STORE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kstat_hdr.h"

#define STORE_MAGIC		UINT64_C(0x31524f5453445453)	/* "STDSTOR1" */
#define STORE_ABI_MAJOR		2	/* 2: a slot's flags are KSTAT_FLAG_* */
#define STORE_ABI_MINOR		0
#define STORE_ENDIAN		UINT32_C(0x01020304)
#define STORE_SUPER_SIZE	256u
#define STORE_KSTAT_SIZE	256u
#define STORE_STRLEN		31u	/* KSTAT_STRLEN: 30 characters + NUL */
#define STORE_BLOB_MAX		65535u	/* stats(3) blob sizes are u16 */
#define STORE_PATH_MAX		255u	/* kstat2 path, segments joined by '/' */
#define STORE_DESC_MAX		1023u
#define STORE_SLOTS_MAX		(1u << 22)
#define STORE_READ_RETRIES	1024u

/* Compatible features: a reader that knows none of them reads the
 * segment all the same. */
#define STORE_COMPAT_CHANGELOG	0x0001u	/* log_off, log_slots */
#define STORE_COMPAT_LAYOUTSEQ	0x0002u	/* kstat headers keep lseq */
#define STORE_COMPAT_KNOWN	(STORE_COMPAT_CHANGELOG | STORE_COMPAT_LAYOUTSEQ)
#define STORE_INCOMPAT_KNOWN	0u
#define STORE_LOG_SLOTS		4096u	/* changes a reader may be behind */

enum store_seg_kind {
	STORE_SEG_PUBLIC = 1,
	STORE_SEG_PRIVATE = 2,
};

/*
 * A slot's flags are the kstat's, in the one numbering of them, the public
 * API's (KSTAT_FLAG_* of <statsd/kstat.h>): the store carries the flags a
 * kstat shows (KS_FLAGS_SHOWN of kstat_hdr.h) and never reads them, so
 * that a reader shows them as they are. The store's one bit of its own,
 * USED, sits where the kstat flags leave room.
 */
#define STORE_KF_USED		0x80000000u	/* slot holds a kstat */

struct store_super {
	uint64_t magic;
	uint16_t abi_major;
	uint16_t abi_minor;
	uint32_t hdr_size;
	uint32_t compat;
	uint32_t incompat;
	uint32_t endian;
	uint32_t kind;
	uint64_t seg_size;
	uint64_t birth;
	_Atomic uint64_t kcid;
	uint64_t table_off;
	uint32_t table_slots;
	uint32_t kstat_size;
	uint64_t arena_off;
	uint64_t arena_size;
	_Atomic uint32_t table_used;	/* slots [0, table_used) were ever used */
	_Atomic uint32_t nkstat;
	uint64_t next_kid;		/* the writer's; readers ignore it */
	_Atomic uint32_t ready;		/* 1 once the segment is initialised */
	uint32_t pad0;
	uint64_t log_off;		/* CHANGELOG: the change log */
	uint32_t log_slots;		/* a power of two */
	uint8_t reserved[256 - 124];
};

/* One change of the chain: the KCID it made, and the slot it was in. */
struct store_change {
	_Atomic uint64_t kcid;		/* 0 while written */
	_Atomic uint32_t slot;
	_Atomic uint32_t gen;		/* of the kstat added; else its last */
};

struct store_kstat_hdr {
	_Atomic uint32_t seq;
	uint32_t gen;
	uint64_t kid;
	uint64_t crtime;
	uint64_t snaptime;
	uint64_t blob_off;	/* from segment start; inside the arena */
	uint32_t blob_size;
	uint32_t chunk_size;	/* arena bytes behind blob_off */
	uint64_t tpl_hash;
	uint32_t owner_uid;
	int32_t instance;
	uint32_t flags;		/* KSTAT_FLAG_*, and STORE_KF_USED */
	uint8_t type;		/* kstat type: RAW, NAMED, INTR, IO, TIMER, HIST, BLOB */
	uint8_t content;	/* kstat2 content type of the values */
	uint16_t reserved0;
	uint32_t ndata;
	uint32_t text_off;	/* from blob_off; 0 = no text */
	uint16_t path_len;	/* without the NUL */
	uint16_t desc_len;
	uint32_t reserved3;
	uint64_t scale;
	/* The layout's own sequence counter (LAYOUTSEQ): odd while the
	 * kstat is added, removed or re-laid, never moved by an update of
	 * its data, so a reader that wants only where the blob lies and
	 * how it is laid out is not starved by a flood of updates. */
	_Atomic uint32_t lseq;
	uint8_t reserved1[160 - 100];
	char module[STORE_STRLEN];
	char name[STORE_STRLEN];
	char class_[STORE_STRLEN];
	uint8_t reserved2[3];
};

_Static_assert(sizeof(struct store_super) == STORE_SUPER_SIZE, "superblock size");
_Static_assert(offsetof(struct store_super, ready) == 104, "superblock layout");
_Static_assert(offsetof(struct store_super, log_off) == 112, "superblock layout");
_Static_assert(sizeof(struct store_change) == 16, "change log entry");
_Static_assert(sizeof(struct store_kstat_hdr) == STORE_KSTAT_SIZE, "kstat header size");
_Static_assert(offsetof(struct store_kstat_hdr, scale) == 88, "kstat header layout");
_Static_assert(offsetof(struct store_kstat_hdr, lseq) == 96, "kstat header layout");
_Static_assert(offsetof(struct store_kstat_hdr, module) == 160, "kstat header layout");
/* The header's limits are the slot's: struct kstat_hdr is what the store
 * encodes into a slot and decodes out of one. */
_Static_assert(STORE_STRLEN == KSTAT_STRLEN, "kstat name length");
_Static_assert(STORE_PATH_MAX == KS_PATH_MAX, "kstat2 path length");
_Static_assert(STORE_DESC_MAX == KS_DESC_MAX, "description length");
_Static_assert((KS_FLAGS_KNOWN & STORE_KF_USED) == 0, "USED is the store's");

/* Names a kstat for readers: a slot and the generation it had. */
struct store_ref {
	uint32_t slot;
	uint32_t gen;
};

/*
 * What a slot holds besides the kstat's header (struct kstat_hdr): who
 * owns it and the template its blob is laid out from.
 */
struct store_slot {
	uint32_t owner_uid;
	uint32_t ndata;		/* the template's VOIs */
	uint64_t tpl_hash;
};

/* A reader's view of a slot, beside the header it decodes. */
struct store_entry {
	struct store_ref ref;
	struct store_slot slot;
	uint32_t blob_size;
};

/* ------------------------------------------------------------------ writer */

struct store_segment;

struct store_params {
	const char *name;	/* memfd name, for /proc/<pid>/fd only */
	unsigned kind;		/* enum store_seg_kind */
	uint32_t table_slots;	/* 1..STORE_SLOTS_MAX */
	uint64_t arena_size;	/* bytes; rounded up to the page size */
	/* Entries of the change log: a power of two up to STORE_LOG_SLOTS,
	 * 0 for STORE_LOG_SLOTS. A reader further behind reads the whole
	 * table, which for a small one costs little (and keeps the fuzzers'
	 * segment images small). */
	uint32_t log_slots;
};

/*
 * Create a segment: a sealed memfd of the fixed size that table_slots and
 * arena_size give, mapped read-write, initialised and marked ready.
 * Returns: 0 and *ret; -EINVAL for a bad kind, slot count or arena size;
 * -ENOMEM; -errno from memfd_create, ftruncate, fcntl or mmap.
 */
int store_segment_new(const struct store_params *p, struct store_segment **ret);

/* Unmap and close. NULL-safe. Returns: NULL. */
struct store_segment *store_segment_free(struct store_segment *s);

/* Returns: the segment's read-write memfd (owned by the segment). */
int store_segment_fd(const struct store_segment *s);

/*
 * A new read-only fd of the segment, to hand to a reader.
 * Returns: the fd (caller owns it); -errno from open.
 */
int store_segment_reader_fd(const struct store_segment *s);

/* Returns: the current chain id. */
uint64_t store_segment_kcid(const struct store_segment *s);

/* Move the chain id without a change of this segment's own: readers that
 * watch it look again (statsd's other segments came or went). */
void store_segment_bump_kcid(struct store_segment *s);

/*
 * Add a kstat with a zeroed blob of blob_size bytes, and bump the KCID:
 * the one encoder of a header into a slot. From h it stores the names,
 * instance, type, content, scale, the flags it shows (KS_FLAGS_SHOWN),
 * the KID (0: the segment's next one), crtime (also the first snaptime),
 * and the kstat2 path and description (empty: none); from x the slot's
 * own fields.
 * Returns: 0 and *ret_ref (may be NULL); -EINVAL for an empty module or
 * name; -ENAMETOOLONG for a string not terminated inside its field;
 * -E2BIG for blob_size > STORE_BLOB_MAX; -ENOSPC if the table or the
 * arena is full.
 */
int store_kstat_add(struct store_segment *s, const struct kstat_hdr *h,
    const struct store_slot *x, uint32_t blob_size, struct store_ref *ret_ref);

/*
 * store_kstat_add_at: store_kstat_add(), with the blob at offset at of the
 * segment (from its start) if its chunk is free there, anywhere the arena
 * has room if not (at 0: anywhere). A process that shows the blob at a
 * fixed place in its own mapping of the segment (libstatsclient's
 * published blobs) keeps seeing it when a restarted daemon lays the blob
 * out where the one before had it. at is untrusted: it only chooses among
 * free chunks of this segment, of the size the blob takes anyway.
 * Returns: as store_kstat_add(); *ret_placed (may be NULL): whether the
 * blob is at at.
 */
int store_kstat_add_at(struct store_segment *s, const struct kstat_hdr *h,
    const struct store_slot *x, uint32_t blob_size, uint64_t at,
    struct store_ref *ret_ref, bool *ret_placed);

/* Where the blob of the kstat in slot lies, from the segment start (what
 * store_kstat_add_at() takes to lay it out there again); 0 for an unused
 * slot. */
uint64_t store_kstat_blob_off(const struct store_segment *s, uint32_t slot);

/*
 * The arena bytes (one chunk) store_kstat_add() would take for h with a
 * blob of blob_size bytes, and store_kstat_relayout() for the kstat in
 * slot at blob_size: what a writer charges to the kstat's owner.
 * Returns: bytes; 0 for what could not be stored (a bad header, a blob
 * too large, an unused slot).
 */
uint64_t store_kstat_cost(const struct kstat_hdr *h, uint32_t blob_size);
uint64_t store_kstat_relayout_cost(const struct store_segment *s,
    uint32_t slot, uint32_t blob_size);

/*
 * Remove a kstat: free its blob, clear its slot for later reuse (with a new
 * generation), bump the KCID.
 * Returns: 0; -ENOENT if the slot is out of range or unused.
 */
int store_kstat_remove(struct store_segment *s, uint32_t slot);

/*
 * Re-lay a kstat's blob at a new size (zeroed), e.g. after a definition
 * change, and bump the KCID. On failure the old blob is kept.
 * Returns: 0; -ENOENT; -E2BIG; -ENOSPC.
 */
int store_kstat_relayout(struct store_segment *s, uint32_t slot, uint32_t blob_size);

/*
 * store_kstat_relayout_with: as store_kstat_relayout(), with the new
 * blob's bytes (blob_size of them; blob NULL leaves it zeroed, which is
 * store_kstat_relayout()) in place before any reader can see the new
 * layout: one window of the sequence counters moves a reader from
 * the old blob to the new, never through a zeroed or half-copied one.
 * With x, the slot's template hash and ndata become x's; snaptime (ns; 0
 * keeps the old one) is the kstat's snaptime. *ret_blob (may be NULL)
 * gets the writable new blob.
 * Returns: 0; -ENOENT; -E2BIG; -ENOSPC (the old blob is kept).
 */
int store_kstat_relayout_with(struct store_segment *s, uint32_t slot,
    const void *blob, uint32_t blob_size, const struct store_slot *x,
    uint64_t snaptime, void **ret_blob);

/* Set or clear kstat flags (a deleted PERSISTENT kstat's DORMANT).
 * Returns: 0; -ENOENT; -EINVAL for STORE_KF_USED. */
int store_kstat_set_flags(struct store_segment *s, uint32_t slot,
    uint32_t set, uint32_t clear);

/*
 * Open a write to a kstat: its sequence counter goes odd and *ret_blob gets
 * a writable pointer to its blob (valid until the next relayout or
 * remove). Every write to the blob must sit between this and
 * store_kstat_write_end(); keep it short, readers spin meanwhile.
 * Returns: 0; -ENOENT if the slot is out of range or unused.
 */
int store_kstat_write_begin(struct store_segment *s, uint32_t slot, void **ret_blob);

/* Close a write: record snaptime (ns; 0 keeps the old one) and make the
 * sequence counter even. */
void store_kstat_write_end(struct store_segment *s, uint32_t slot, uint64_t snaptime);

/* ------------------------------------------------------------------ reader */

struct store_reader;

/*
 * Map a segment read-only and validate its superblock. fd is not taken
 * over (it may be closed after the call).
 * Returns: 0 and *ret; -EAGAIN if the segment is not ready yet;
 * -EPROTONOSUPPORT for another ABI major or unknown incompatible features;
 * -EBADMSG for a malformed superblock or one that does not fit the fd;
 * -EPERM if the memfd is not sealed; -ENOMEM; -errno from fstat or mmap.
 */
int store_reader_open(int fd, struct store_reader **ret);

/* Unmap. NULL-safe. Returns: NULL. */
struct store_reader *store_reader_close(struct store_reader *r);

/* Returns: the segment's current chain id (cheap; compare to see whether
 * the chain changed since the last walk). */
uint64_t store_reader_kcid(const struct store_reader *r);

/* Returns: the slots of the segment's table, as validated at open (a
 * slot number a reader is told of is below it). */
uint32_t store_reader_slots(const struct store_reader *r);

/* Returns: the segment's birth stamp and kind, as validated at open. */
uint64_t store_reader_birth(const struct store_reader *r);
unsigned store_reader_kind(const struct store_reader *r);

/* Returns: the segment's size in bytes, as mapped (a reader that maps it
 * again, as libstatsclient does to show published blobs in place, maps
 * as much). */
size_t store_reader_size(const struct store_reader *r);

/*
 * Every reader call that describes a kstat decodes its slot, validated,
 * into a struct store_entry (the slot's own fields) and a struct
 * kstat_hdr: the one decoder of a slot. Either may be NULL when not
 * wanted. The header's path and description are left empty (they lie in
 * the arena, beside the blob): store_reader_read_text() fills them.
 */

/*
 * A walk over the chain calls fn with each used kstat, decoded, one at a
 * time: the header is the walk's, valid during the call only, so a walk
 * of a large chain holds one header, not one per kstat. fn(arg, NULL,
 * NULL) says the chain changed under the walk, which starts again: drop
 * what was gathered. A nonzero return of fn stops the walk.
 */
typedef int store_walk_fn(void *arg, const struct store_entry *e,
    const struct kstat_hdr *h);

/*
 * store_reader_walk: walk the chain. What fn was given last (since the
 * last NULL call) is consistent with one KCID, returned in *ret_kcid (may
 * be NULL).
 * Returns: 0; what fn returned, if nonzero; -EAGAIN if the chain kept
 * changing or a header kept being written for STORE_READ_RETRIES tries;
 * -EBADMSG if a header is malformed.
 */
int store_reader_walk(struct store_reader *r, store_walk_fn *fn, void *arg,
    uint64_t *ret_kcid);

/*
 * store_reader_walk_once: one pass over the chain as it is, whatever the
 * writer changes meanwhile. Each kstat fn is given is consistent on its
 * own (its slot's sequence counter), not with the others; *ret_kcid is
 * the KCID before the pass began, so that every change the pass may
 * have missed or seen only part of is in the change log after it: a
 * reader that reads the slots store_reader_changes() gives from there
 * has the chain as it is at the end. A chain the writer changes faster
 * than a walk can end is read this way.
 * Returns: 0; what fn returned, if nonzero; -EAGAIN if a header kept
 * being written or looked malformed (the writer in the middle of it).
 */
int store_reader_walk_once(struct store_reader *r, store_walk_fn *fn,
    void *arg, uint64_t *ret_kcid);

/*
 * store_reader_changes: the slots of the kstats added, removed or re-laid
 * since the chain had KCID from, in the order they changed (a slot may
 * come more than once), into out[0..max), from the change log; the KCID
 * they bring the reader to in *ret_kcid. Read each with
 * store_reader_slot() to learn what it holds now.
 * Returns: 0 and *ret_n; -ERANGE if the log no longer holds them all, or
 * the segment has none, or more than max changed (walk the whole chain
 * instead); -EAGAIN if an entry kept being written.
 */
int store_reader_changes(struct store_reader *r, uint64_t from,
    uint32_t *out, size_t max, size_t *ret_n, uint64_t *ret_kcid);

/*
 * store_reader_slot: what one slot holds now, as a chain walk would copy
 * it.
 * Returns: 0 and *ret; -ESTALE if the slot holds no kstat; -ENOENT if it
 * is out of range; errors as store_reader_read().
 */
int store_reader_slot(struct store_reader *r, uint32_t slot,
    struct store_entry *ret_e, struct kstat_hdr *ret_h);

/*
 * Find a kstat by module, instance and name, like kstat_lookup(3KSTAT):
 * NULL strings and instance -1 match anything.
 * Returns: 0, *ret_e and *ret_h; -ENOENT if none matches; errors as
 * store_reader_walk().
 */
int store_reader_lookup(struct store_reader *r, const char *module,
    int32_t instance, const char *name, struct store_entry *ret_e,
    struct kstat_hdr *ret_h);

/*
 * Copy a kstat's header and blob consistently. buf may be NULL to learn the
 * size; *ret_e, *ret_h (either may be NULL) and *ret_size are written on
 * success and on -ENOBUFS.
 * Returns: 0; -ENOBUFS if bufsize is smaller than the blob; -ESTALE if the
 * slot now holds another generation or nothing; -ENOENT if the slot is out
 * of range; -EAGAIN if the writer kept it busy for STORE_READ_RETRIES tries;
 * -EBADMSG if its header is malformed.
 */
int store_reader_read(struct store_reader *r, struct store_ref ref,
    struct store_entry *ret_e, struct kstat_hdr *ret_h, void *buf,
    size_t bufsize, size_t *ret_size);

/*
 * Copy a kstat's kstat2 path and description into h->path and h->desc
 * (the rest of h is left as it is). Strings absent are returned empty.
 * Returns: as store_reader_read() (both empty on error).
 */
int store_reader_read_text(struct store_reader *r, struct store_ref ref,
    struct kstat_hdr *h);

/*
 * A kstat's blob whose layout is consistent (the header, and the blob's
 * own header and VOI and statistic tables, as one add or re-lay left
 * them) but whose statistics' data may be torn: read under the layout
 * sequence counter, which updates of the data never move, so a flood of
 * updates cannot starve it. For a reader that wants only the layout and
 * resets the data it copied (libstatsclient, for the VOIs of a published
 * blob and the image of its spill blobs). On a segment without
 * LAYOUTSEQ this is store_reader_read().
 * Returns: as store_reader_read().
 */
int store_reader_read_layout(struct store_reader *r, struct store_ref ref,
    struct store_entry *ret_e, struct kstat_hdr *ret_h, void *buf,
    size_t bufsize, size_t *ret_size);

/*
 * Where a kstat's blob lies in the segment, for a reader that maps that
 * part itself (libstatsclient shows a published blob to its application in
 * place). The header is validated as for a read, so the span is inside the
 * arena. Read under the layout sequence counter, like
 * store_reader_read_layout(): updates of the blob never hold it up.
 * Returns: 0, *ret_off (from the segment start), *ret_size (blob bytes) and
 * *ret_chunk (arena bytes from *ret_off); errors as store_reader_read().
 */
int store_reader_blob_span(struct store_reader *r, struct store_ref ref,
    uint64_t *ret_off, uint32_t *ret_size, uint32_t *ret_chunk);

#endif
