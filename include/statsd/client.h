/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * client.h: libstatsclient's connection to statsd, the node-local
 * statistics service, and stats(3) blobs published through it.
 *
 * A process has one connection to statsd (its "client"). Every update the
 * process makes — stats_voi_update_*() on a published blob, the kstat
 * provider calls of <statsd/kstat.h>, statistic_add() of
 * <statsd/statistic.h> — goes into an update ring of the calling thread:
 * a shared-memory queue statsd drains. A thread gets its ring on its first
 * update (the one slow path: a call over the socket); after that an update
 * is a few plain stores, with no lock, no system call and no atomic
 * read-modify-write. An update call never blocks and never fails because
 * of statsd, and a full ring loses nothing: the update goes to the ring's
 * spill buffers (an overflow area statsd makes with the ring, where the
 * library applies it with the same engine as a local stats(3) update),
 * which statsd merges in order once the thread hands them over. Only an
 * exhausted overflow area, or no connection at all, drops an update; it
 * is then counted (stats_client_dropped()).
 *
 * The library reconnects by itself when statsd restarts (a small library
 * thread watches the socket and retries with back-off), hands its rings
 * back to the new statsd so that what they hold is applied, and re-creates
 * what it had created. After fork() the child forgets the parent's rings
 * and connection; it connects again on its first use and gets rings of its
 * own.
 *
 * Nothing in the library prints. Calls return -errno (or NULL with errno
 * set) and keep a text of the last error on the client handle
 * (stats_client_strerror()).
 */
#ifndef STATSD_CLIENT_H
#define STATSD_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include <statsd/stats.h>

#ifndef STATS_API
#define STATS_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The socket used when neither the caller nor $STATSD_SOCKET names one. */
#define STATS_DEFAULT_SOCKET	"/run/statsd/statsd.sock"

typedef struct stats_client stats_client_t;

/* stats_client_open() flags. STATS_CLIENT_NOSPILL asks for rings without
 * spill buffers (a full ring then drops, and counts): for comparisons and
 * tests. */
#define STATS_CLIENT_LAZY		0x0001	/* succeed with no statsd yet */
#define STATS_CLIENT_NORECONNECT	0x0002	/* no background reconnection */
#define STATS_CLIENT_NOSPILL		0x0004	/* rings without spill buffers:
						   a full ring drops */
/* Ask for rings of 2^n records (2..24; statsd may refuse large ones). */
#define STATS_CLIENT_RING_LOG2(n)	(((n) & 0x1f) << 8)

/*
 * stats_client_open: the process's connection to statsd at socket_path
 * (NULL: $STATSD_SOCKET, else STATS_DEFAULT_SOCKET). A process has one
 * client: opening again with the same path (or NULL) returns the same
 * client with one more reference; stats_client_close() drops one. Without
 * STATS_CLIENT_LAZY, the call fails unless statsd answers; with it, the
 * client connects in the background.
 * Returns: the client; NULL with errno set: EINVAL (bad flags or path),
 * EBUSY (the process's client uses another socket), ENOENT or ECONNREFUSED
 * (no statsd there), EPROTONOSUPPORT (a statsd of another protocol or ABI),
 * ETIMEDOUT, ENOMEM.
 */
STATS_API stats_client_t *stats_client_open(const char *socket_path,
    int flags);

/*
 * stats_client_close: drop a reference; the last one closes the connection
 * and the rings (statsd applies what they still hold) and unpublishes
 * nothing: kstats stay with statsd until deleted (PERSISTENT ones across
 * restarts). Only call it once no thread updates through the client any
 * more; published blob pointers stay readable until the process exits.
 * NULL-safe.
 */
STATS_API void stats_client_close(stats_client_t *c);

/*
 * stats_client_default: the process's client, opening it lazily (NULL
 * path, STATS_CLIENT_LAZY) if it is not open yet. The kstat and statistic
 * calls, which take no client, use it.
 * Returns: the client (the reference is the library's: do not close it);
 * NULL with errno set (ENOMEM).
 */
STATS_API stats_client_t *stats_client_default(void);

/*
 * stats_client_flush: wait until every update this process pushed before
 * the call has been applied by statsd (or dropped), at most timeout_ms
 * (negative: no limit). After it returns 0, applied + dropped = pushed,
 * exactly, for those updates. With no connection it waits for the
 * background reconnection.
 * Returns: 0; -ETIMEDOUT; -ENOTCONN if the client does not reconnect
 * (STATS_CLIENT_NORECONNECT) and is not connected; -EINVAL for NULL.
 */
STATS_API int stats_client_flush(stats_client_t *c, int timeout_ms);

/*
 * stats_client_connect: connect now, in the calling thread, unless the
 * client is connected, and give the thread its update ring. Updates made
 * while the client is not connected are dropped (and counted) until the
 * watcher thread has reconnected, so a fork() child (a pre-fork server's
 * worker) calls this before its first update: that update then finds a
 * ring, and the connection, holding one, is not closed by statsd as idle
 * while the worker waits for work. It starts the library's watcher
 * thread, as a first update would.
 * Returns: 0; -ENOTCONN (no statsd, or it refused: the last error says
 * why; the watcher goes on trying); -EINVAL for NULL.
 */
STATS_API int stats_client_connect(stats_client_t *c);

/*
 * stats_client_dropped: the updates this process made that never reached a
 * kstat: dropped with no ring (no connection, or statsd refused a ring) or
 * with an exhausted overflow area (a full ring alone drops nothing), lost
 * in a ring a restarted statsd would not take back, or refused by statsd
 * (a kstat that is gone, or that the process may not update: statsd
 * writes its count of refusals into the ring).
 * Returns: the count (0 for NULL).
 */
STATS_API uint64_t stats_client_dropped(stats_client_t *c);

/*
 * stats_client_pushed: the updates this process made through the library
 * (into rings, into spill buffers, or dropped), for checking applied +
 * dropped = pushed.
 * Returns: the count (0 for NULL).
 */
STATS_API uint64_t stats_client_pushed(stats_client_t *c);

/*
 * stats_client_connected: whether the client is connected now.
 * Returns: 1; 0 (also for NULL).
 */
STATS_API int stats_client_connected(stats_client_t *c);

/*
 * stats_client_reconnects: how many times the client connected again after
 * losing statsd (a restart), for tests and monitoring.
 * Returns: the count (0 for NULL).
 */
STATS_API uint64_t stats_client_reconnects(stats_client_t *c);

/*
 * stats_client_strerror: the text of the client's last error, e.g.
 * "KstatCreate: io.statsd.KstatExists: kstat=app:0:requests".
 * Returns: the text ("" if none; valid until the next call that fails).
 */
STATS_API const char *stats_client_strerror(stats_client_t *c);

/* ------------------------------------------------------ stats(3) publish */

/* stats_blob_publish() flags; the same bits as KSTAT_FLAG_PERSISTENT and
 * KSTAT_FLAG_PRIV of <statsd/kstat.h>. */
#define STATS_PUBLISH_PERSISTENT	0x0008	/* survives statsd restarts */
#define STATS_PUBLISH_PRIV		0x0100	/* private: privileged readers */

/*
 * stats_blob_publish: register template tpl_id (of stats_tpl_alloc() and
 * stats_tpl_add_voistats()) with statsd under its "<name>":<hash> spec, and
 * create kstat module:instance:name of class ks_class (NULL: "misc") with a
 * blob of it. If the kstat exists already with the same template (another
 * process of the same user published it), the caller joins it. A kstat of
 * another user (or zone) is never joined, unless the caller is privileged:
 * the publish fails with EPERM, and the last error names the owner.
 *
 * The blob returned is statsd's, seen through a read-only mapping:
 * stats_voistat_fetch_*(), the quantile calls and stats_blob_tostr() read
 * it in place, and stats_voi_update_*() on it travels over the calling
 * thread's ring, never blocking (a relative update leaves *voival as it
 * was: statsd keeps the previous value). Writing it by any other means
 * (stats_blob_reset(), a snapshot with SB_CLONE_RSTSRC, a merge into it)
 * faults: take a copy with stats_blob_clone() for those.
 *
 * A process may publish as many blobs as statsd's limits let it: every
 * blob of a store segment is shown through one mapping of the segment.
 * After statsd restarts, the blobs are made again, each asked of the new
 * statsd at the offset of the segment it had (PERSISTENT ones statsd
 * restores there itself), and their pointers show the new statsd's data.
 * Only a blob whose place a kstat made anew before the process came back
 * took is laid out elsewhere: it follows if a whole page of blobs moved
 * alike, and otherwise keeps showing its data of before the restart
 * (stats_client_strerror() says so), while its updates go to the new
 * statsd as always.
 *
 * Returns: the blob, valid until the process exits; NULL with errno set:
 * EINVAL (bad arguments or flags, or a template statsd cannot lay out; the
 * reason is in stats_client_strerror()), ENOENT (no such template), EEXIST
 * (the kstat exists with another template), EPERM (PRIV without the right,
 * or the kstat is another user's),
 * ENOSPC (a statsd limit), ENOTCONN, ETIMEDOUT, ENOMEM.
 */
STATS_API struct statsblob *stats_blob_publish(stats_client_t *c, int tpl_id,
    const char *module, int instance, const char *name, const char *ks_class,
    uint32_t flags);

/* What stats_blob_publish_ext() adds to a kstat's names. */
struct stats_publish_extra {
	const char *const	*path;		/* kstat2 path segments */
	uint32_t		 npath;		/* 0 (none), or 3..16 */
	const char		*description;	/* NULL: none */
};

/*
 * stats_blob_publish_ext: stats_blob_publish() of a kstat that also has a
 * kstat2 path of x->npath segments (each non-empty, printable, without
 * '/'; 255 bytes in all once joined by '/') and a description
 * (printable, at most 1023 bytes): the Prometheus exposition names a
 * kstat of class "prometheus" by its path (docs/formats.md). A kstat
 * joined keeps the path and description it was made with.
 * Returns: as stats_blob_publish(); EINVAL or ENAMETOOLONG for a bad path
 * or description.
 */
STATS_API struct statsblob *stats_blob_publish_ext(stats_client_t *c,
    int tpl_id, const char *module, int instance, const char *name,
    const char *ks_class, uint32_t flags,
    const struct stats_publish_extra *x);

/* One blob of stats_blob_publish_many(): its kstat's names. */
struct stats_publish_name {
	const char	*module;
	int		 instance;
	const char	*name;
};

/*
 * stats_blob_publish_many: stats_blob_publish() for n kstats of template
 * tpl_id, class ks_class and flags, named by names[0..n): in one call to
 * statsd per 4096 of them (io.statsd.KstatCreateMany) instead of two round
 * trips each, so that a process makes 10^5 kstats in about a second. All
 * are published or none.
 * Returns: 0 and ret[0..n) (each as stats_blob_publish() returns it);
 * -errno as stats_blob_publish() sets it (nothing published).
 */
STATS_API int stats_blob_publish_many(stats_client_t *c, int tpl_id,
    const struct stats_publish_name *names, size_t n, const char *ks_class,
    uint32_t flags, struct statsblob **ret);

/*
 * stats_blob_unpublish: delete the kstat behind a published blob (a
 * PERSISTENT one goes dormant and keeps its data). Like freed memory, the
 * pointer is then not to be used: updates through it are refused with
 * EINVAL and reads show its last data, until statsd gives its space to
 * another kstat that this process publishes: the pointer then shows that
 * one (as a pointer to freed memory may come to point to a new object).
 * Returns: 0; -EINVAL if sb is not a published blob; -ENOTCONN; -EPERM;
 * -errno of the call.
 */
STATS_API int stats_blob_unpublish(stats_client_t *c, struct statsblob *sb);

#ifdef __cplusplus
}
#endif

#endif /* STATSD_CLIENT_H */
