/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tdigest.h: the t-digest quantile sketch (a merging t-digest after Dunning
 * and Ertl, "Computing Extremely Accurate Quantiles Using t-digests", 2019),
 * kept entirely inside one caller-provided byte region.
 *
 * The region holds no pointers, only counts and indices, so it may live in
 * shared memory, be copied with memcpy to another address, be snapshotted
 * and be merged. Its size is fixed at init by the centroid capacity. Nothing
 * here allocates, logs or keeps global state; every function is
 * deterministic.
 *
 * Layout (all fields host-endian, the region 8-byte aligned by the caller):
 *
 *   0                                56
 *   +--------------------------------+------------------------+----------+
 *   | header (struct tdgst_hdr)      | entries[maxctds+bufcap]| purity   |
 *   | magic, version, width, prec,   | [0, nctds): centroids, | bitmap,  |
 *   | maxctds, bufcap, nctds, nbuf,  |  ascending mean        | one bit  |
 *   | size, smplcnt, compcnt,        | [maxctds, +nbuf):      | per entry|
 *   | min, max                       |  insertion buffer      |          |
 *   +--------------------------------+------------------------+----------+
 *
 *   narrow ("32"): entry = { float mean; uint32_t weight; }   8 bytes
 *   wide   ("64"): entry = { double mean; uint64_t weight; } 16 bytes
 *
 * Header offsets: 0 magic u32 "TDG1", 4 version u8 (1), 5 wide u8,
 * 6 prec u8, 7 flags u8, 8 maxctds u16, 10 bufcap u16, 12 nctds u16, 14 nbuf
 * u16, 16 size u32 (whole region), 20 pad u32, 24 smplcnt u64, 32 compcnt
 * u64, 40 min double, 48 max double. bufcap = clamp(maxctds, 32, 256).
 *
 * A "pure" centroid is one whose samples all had the same value: it is
 * modelled exactly (as a point mass) by the quantile and CDF interpolation,
 * the way the paper treats singletons, and equal pure values always merge.
 *
 * flags bit 0 says every sample so far was an integer. Then quantiles are
 * integers too: the model spreads each integer k over (k - 1/2, k + 1/2],
 * and a quantile is the integer whose cell the interpolation lands in, so
 * that between point masses it gives a value whose rank interval holds q,
 * not one between them. Other bits are 0.
 *
 * Buffered points are part of the digest for every const query: quantile,
 * CDF and render merge a sorted copy of the buffer (on the stack, bounded)
 * with the centroids on the fly. Only tdgst_ncentroids/tdgst_centroid list
 * the stored centroids alone; call tdgst_flush first to include the buffer.
 *
 * The functions taking a digest check its header in O(1) (magic, version,
 * counts within capacity) and return -EINVAL on failure; they trust that the
 * region really is as long as the header says. tdgst_validate does the full
 * check for a copy that came from someone else.
 *
 * Nothing here locks: one writer at a time, and no reader during a write.
 */
#ifndef STATSD_TDIGEST_H
#define STATSD_TDIGEST_H

#include <stddef.h>
#include <stdint.h>

struct sbuf;

/* The largest region tdgst_init accepts: half of what a uint16 blob holds. */
#define TDGST_MAXSZ	32768u

/*
 * tdgst_size: the bytes a digest of nctroids centroids needs.
 * wide != 0 selects 64-bit counts and double means, else 32-bit counts and
 * float means.
 * Returns: the size, or 0 if nctroids is 0 or the size exceeds TDGST_MAXSZ.
 */
size_t tdgst_size(uint32_t nctroids, int wide);

/*
 * tdgst_init: lay an empty digest out in mem[0, sz). prec is FreeBSD's Q
 * fractional-bit precision; our means are binary floating point, so it only
 * is recorded and shown by objdump rendering (docs/tdigest.md).
 * Returns: 0;
 *   -EINVAL if mem is NULL, nctroids is 0 or prec > 64;
 *   -EFBIG if the digest would exceed TDGST_MAXSZ (or 65535 centroids);
 *   -ENOSPC if sz < tdgst_size(nctroids, wide).
 */
int tdgst_init(void *mem, size_t sz, uint32_t nctroids, uint32_t prec,
    int wide);

/* tdgst_reset: empty the digest, keeping its configuration. A region that
 * does not hold a digest is left alone. */
void tdgst_reset(void *mem);

/*
 * tdgst_add: add value x with weight w (w samples of x). Amortised O(log b)
 * per add; every b-th add (b = the buffer capacity) merges the buffer.
 * Returns: 0;
 *   -EINVAL if mem is not a digest, x is NaN or infinite, or w is 0;
 *   -EOVERFLOW if the total weight would exceed UINT32_MAX (narrow) or
 *   UINT64_MAX (wide), or, narrow only, |x| exceeds FLT_MAX.
 * On error the digest is unchanged.
 */
int tdgst_add(void *mem, double x, uint64_t w);

/*
 * tdgst_flush: merge the insertion buffer into the centroids now. Queries
 * never need it; tdgst_centroid does.
 * Returns: 0, or -EINVAL if mem is not a digest.
 */
int tdgst_flush(void *mem);

/*
 * tdgst_quantile: estimate the q-quantile, 0 <= q <= 1; q = 0 gives the
 * exact minimum, q = 1 the exact maximum. For a digest of integers only,
 * an integer.
 * Returns: 0 with *ret set;
 *   -EINVAL if mem is not a digest, ret is NULL, or q is NaN or outside
 *   [0, 1];
 *   -ENODATA if the digest is empty.
 * *ret is written only on success.
 */
int tdgst_quantile(const void *mem, double q, double *ret);

/*
 * tdgst_cdf: estimate the fraction of the weight at or below x, counting
 * weight equal to x by half (the mid-rank convention): 0 below the minimum,
 * 1 above the maximum. x may be infinite. For a digest of integers only, a
 * value between two integers has no weight of its own.
 * Returns: 0 with *ret set; -EINVAL if mem is not a digest, ret is NULL or
 * x is NaN; -ENODATA if the digest is empty. *ret is written only on success.
 */
int tdgst_cdf(const void *mem, double x, double *ret);

/*
 * tdgst_merge: add every sample of src to dst; src is not changed. The two
 * may differ in capacity and width. dst's buffer is flushed first.
 * Returns: 0;
 *   -EINVAL if either is not a digest, or the two regions overlap;
 *   -EOVERFLOW if the combined weight does not fit dst's counts, or dst is
 *   narrow and a value of src exceeds FLT_MAX in magnitude (dst unchanged).
 */
int tdgst_merge(void *dst, const void *src);

/*
 * tdgst_validate: check a digest read from untrusted memory of sz bytes:
 * header, sizes, every count and index, finite sorted means, positive
 * weights summing to the sample count, min <= max.
 * Returns: 0 if every query on it is safe and meaningful, -EINVAL if not.
 */
int tdgst_validate(const void *mem, size_t sz);

/* tdgst_count: the total weight added (0 if mem is not a digest). */
uint64_t tdgst_count(const void *mem);

/* tdgst_min, tdgst_max: the exact extreme values; NaN if the digest is
 * empty or mem is not a digest. */
double tdgst_min(const void *mem);
double tdgst_max(const void *mem);

/* tdgst_ncentroids: the number of stored centroids, excluding the insertion
 * buffer (0 if mem is not a digest). */
uint32_t tdgst_ncentroids(const void *mem);

/* tdgst_nbuffered: the number of points waiting in the insertion buffer. */
uint32_t tdgst_nbuffered(const void *mem);

/*
 * tdgst_centroid: the i-th stored centroid, in ascending mean order.
 * Returns: 0 with *mean and *w set (either may be NULL); -EINVAL if mem is
 * not a digest; -ENOENT if i >= tdgst_ncentroids(mem).
 */
int tdgst_centroid(const void *mem, uint32_t i, double *mean, uint64_t *w);

/*
 * tdgst_render: append the digest's body to sb. json != 0 gives the members
 * of a JSON object without the braces:
 *   "smplcnt":N,"compcnt":C,"maxctds":M,"nctds":K,"min":V,"max":V,
 *   "quantiles":{"0.5":V,"0.9":V,"0.99":V,"0.999":V},
 *   "ctds":[{"mu":V,"cnt":N},...]
 * else freeform text:
 *   smplcnt=N, compcnt=C, maxctds=M, nctds=K, min=V, max=V, q0.5=V,
 *   q0.9=V, q0.99=V, q0.999=V then "\n\t\t\t\t{mu=V,cnt=N}" per centroid.
 * Without objdump the centroids are the full digest (buffered points appear
 * as the singletons they are, so nctds may exceed maxctds until the next
 * merge). With objdump the stored centroids are listed with their index
 * ("ctd":i / ctd[i].) and the buffer separately ("buf" / buf[i].), and
 * prec, wide, bufcap and nbuf are shown. Numbers use the shortest text that
 * reads back to the same float or double; an empty digest renders null.
 * Returns: 0; -EINVAL if sb is NULL or mem is not a digest; otherwise the
 * negated error the sbuf latched (e.g. -ENOMEM).
 */
int tdgst_render(struct sbuf *sb, const void *mem, int json, int objdump);

#endif /* STATSD_TDIGEST_H */
