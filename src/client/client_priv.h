/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * client_priv.h: libstatsclient's internals shared by its files — the one
 * process-wide client (connection, rings, segments, what it created), the
 * update fast path every front end uses, and the calls over the socket.
 *
 *   client.c     open/close, connecting and reconnecting, the watcher
 *                thread, fork handling: above all the others
 *   call.c       the one client (cl), calls over the socket, the last
 *                error, waking the watcher: below all the others, it
 *                reaches client.c only through struct cl_life
 *   producer.c   per-thread rings: attach, bind, retire, flush, counters,
 *                and their spill buffers when a ring is full
 *   images.c     the layouts of the kstats, for the spill buffers
 *   kobj.c       kstats the process created, and re-creating them
 *   segs.c       the store segments mapped, and reads from them
 *   publish.c    stats_blob_publish(): templates as JSON, mapped blobs,
 *                the engine's remote-update hook
 *   kstat_*.c, statistic.c   the kstat and Linux APIs over the above
 *
 * Locking: cl.lock guards everything in struct stats_client except the
 * fields marked atomic. The update fast path takes no lock.
 */
#ifndef STATSD_CLIENT_PRIV_H
#define STATSD_CLIENT_PRIV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include <statsd/client.h>
#include <statsd/kstat.h>

#include "clock.h"
#include "kstat_hdr.h"
#include "op.h"
#include "ring.h"
#include "segs.h"
#include "spill.h"
#include "store.h"
#include "vlclient.h"

/* Kstats in one KstatCreateMany (statsd takes 4096). */
#define CL_BATCH_MAX		4096
/* How long one call over the socket may take. */
#define CL_CALL_TIMEOUT_MS	5000
/* Back-off of the background reconnection. */
#define CL_BACKOFF_MIN_MS	20
#define CL_BACKOFF_MAX_MS	1000
/* A thread that could not get a ring tries again after this long. */
#define CL_RING_RETRY_NS	(100u * 1000000u)

/* One update ring this process holds. */
struct cl_ring {
	struct ring_producer	*p;
	/* Its spill buffers (NULL: no overflow area). The thread that
	 * produces into the ring, the watcher and a flush take turns on
	 * them under spill_lock; the fast path stays off the ring while
	 * they hold updates (ring_producer_diverted()). */
	struct spill_producer	*sp;
	_Atomic int		 spill_lock;
	int			 memfd;		/* kept to hand back */
	int			 efd;
	uint32_t		 id;		/* statsd's */
	bool			 bound;		/* a thread produces into it */
	bool			 orphan;	/* client closed while bound */
	bool			 dead;		/* no statsd drains it */
	uint64_t		 lost;		/* records emptied while dead */
	struct cl_ring		*next;
};


struct cl_kobj;

/* Called under cl.lock after a kstat was created (or re-created after a
 * restart): revived says statsd had it (dormant) with its data. */
typedef void cl_kobj_created_fn(struct cl_kobj *o, bool revived);

/*
 * A kstat this process created: what it takes to create it again after
 * statsd restarts, and the handle its update records carry.
 */
struct cl_kobj {
	_Atomic uint32_t	 handle;	/* 0: not created (yet) */
	/* Its header, checked (ks_hdr_init() and friends): names, type,
	 * flags (KS_FLAGS_MEANT, and KSTAT2_FLAG_GZ_VIS), kstat2 path and
	 * description ("": none). */
	struct kstat_hdr	 hdr;
	bool			 has_zone;	/* zone given (kstat2) */
	int32_t			 zone;		/* ALL_ZONES, GLOBAL_ZONEID, a
						 * zone */
	uint32_t		 ndata;		/* given to statsd (a RAW
						 * kstat's bytes); 0: none */
	json_t			*tpl;		/* TemplateAdd parameters */
	char			*tplkey;	/* tpl's text, or text as sure
						 * to tell it (NULL: encode
						 * tpl to know) */
	char			*tplspec;	/* statsd's "<name>":<hash> */
	bool			 join;		/* may join one that exists */
	bool			 listed;	/* on cl.objs */
	bool			 deleted;
	struct store_ref	 ref;		/* in its segment */
	char			 seg[CL_SEG_NAME_MAX]; /* its segment's name */
	uint64_t		 at;		/* its blob's offset in seg,
						 * asked of a restarted statsd;
						 * 0: none */
	bool			 at_shown;	/* at is where the process
						 * shows it (published): kept */
	/* Linux definition lines the next KstatCreate carries, applied
	 * with the create or not at all (borrowed for that call; NULL:
	 * none), and whether the last create applied them. */
	const char		*defs;
	bool			 defs_taken;
	cl_kobj_created_fn	*created;	/* may be NULL */
	void			*owner;		/* the front end's object */
	struct cl_kobj		*prev, *next;	/* on cl.objs */
};

/*
 * What call.c reaches upward through (client.c's, set before the client
 * first opens): connecting, which brings rings, segments, kstats and
 * mapped blobs back (0; -errno), and the watcher thread's body.
 */
struct cl_life {
	int			(*connect_locked)(void);
	void			*(*watch)(void *arg);
};

/* Templates registered on a connection, remembered: TemplateAdd goes
 * once a connection, the kstats name the template by statsd's spec. */
#define CL_TPLREGS		32

struct cl_tplreg {
	uint64_t		 conn;		/* cl.conn_serial; 0: unused */
	uint64_t		 hash;		/* of text */
	json_t			*obj;		/* held: the same object is the
						 * same text, unencoded */
	char			*text;		/* TemplateAdd's parameters */
	char			*spec;		/* statsd's "<name>":<hash> */
};

struct stats_client {
	pthread_mutex_t		 lock;
	const struct cl_life	*life;		/* set once, never NULL
						 * while refs > 0 */
	unsigned		 refs;		/* 0: closed */
	bool			 implicit;	/* opened by stats_client_default */
	int			 flags;
	char			*path;
	pid_t			 pid;
	unsigned		 ring_log2;	/* 0: statsd's default */
	bool			 nospill;	/* rings without overflow areas */

	struct vlc		*vlc;		/* NULL: not connected */
	uint64_t		 conn_serial;	/* connections made, never
						 * reset: names this one */
	/* The connection (conn_serial) to a statsd that knows no brief
	 * nor definitions in KstatCreate (older): the plain call there. */
	uint64_t		 plain_create;
	struct cl_tplreg	 tplregs[CL_TPLREGS];
	unsigned		 tplreg_next;	/* the next to replace */
	_Atomic int		 connected;
	_Atomic int		 connecting;	/* a (re)connection runs */
	bool			 privileged;
	int64_t			 peer_uid;	/* statsd's word: Hello */
	int64_t			 peer_zone;
	uint64_t		 gen;		/* connections made */
	_Atomic uint64_t	 reconnects;

	struct cl_ring		*rings;
	uint64_t		 gone_pushed;	/* of rings freed */
	uint64_t		 gone_dropped;
	_Atomic uint64_t	 nodrop;	/* dropped with no ring */

	struct cl_segs		 segs;		/* mapped read-only */
	struct cl_kobj		*objs;		/* oldest first */
	struct cl_kobj		*objs_tail;

	pthread_t		 thr;
	bool			 thr_running;
	bool			 stopping;
	int			 wakefd;	/* eventfd: wake the watcher */
	/* The watcher's long sleep, which a thread that starts spilling
	 * cuts short (once per sleep: the flag is exchanged). */
	_Atomic int		 watch_idle;
	_Atomic int		 watch_fd;	/* wakefd, for that thread */

	char			 err[512];
};

/* The process's client. Never freed, so no pointer to it dangles. */
extern struct stats_client cl;

/* ------------------------------------------------------------------ call.c */

/* Record the last error (printf-style) on the client. Returns: -err. */
int cl_fail(int err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * cl_call: one call over the connection, with cl.lock held; params is
 * taken over (NULL: {}). On a lost or
 * confused connection the client disconnects and the watcher is woken.
 * Error replies are recorded as the last error ("Method: error: params").
 * Returns: 0 and *ret (vlc_reply_done() it); -ENOTCONN; the errno of an
 * error reply (vlc_error_errno(), *ret then holds it too); -errno.
 */
int cl_call_locked(const char *method, json_t *params, const int *fds,
    size_t nfds, struct vlc_reply *ret);

/* cl_call_locked() of parameters written as text (jdump.h jtext; NULL:
 * {}), which stay the caller's; no descriptors. */
int cl_call_text_locked(const char *method, const char *params,
    struct vlc_reply *ret);

/* A thread's spill buffers began to hold updates: make sure the watcher
 * looks at them within milliseconds (no lock; at most one system call
 * per watcher sleep). */
void cl_watcher_spilling(void);

/* Wake the watcher thread, starting it if it is not running. cl.lock held. */
void cl_kick_locked(void);

/* Make sure the client is open (stats_client_default()) and connected,
 * connecting now if not. cl.lock held. Returns: 0; -errno. */
int cl_ensure_locked(void);

/* Drop the connection (statsd went away, or a call failed mid-way). */
void cl_disconnect_locked(const char *why);

/* ------------------------------------------------------------- producer.c */

/* Give the calling thread its ring now, if it has none (connected, cl.lock
 * not held). Returns: 0; -ENOTCONN (not connected, or statsd refused a
 * ring: the last error says why). */
int cl_thread_ring_attach(void);

/* Slow path of cl_push(): get the thread a ring, or count a drop. */
void cl_push_slow(uint32_t handle, uint16_t voi, uint8_t op, uint8_t flags,
    int64_t x, int64_t y, uint64_t time_ns);

/*
 * cl_push: send one update record. Never blocks, never fails: with no
 * ring (or no handle yet) the update is counted as dropped. The fast path
 * is one TLS load and ring_push().
 */
static inline void
cl_push(uint32_t handle, uint16_t voi, uint8_t op, uint8_t flags, int64_t x,
    int64_t y, uint64_t time_ns)
{
	struct ring_producer *p = ring_producer_current();
	struct ring_rec *r;

	if (__builtin_expect(p != NULL && handle != 0 &&
	    !ring_producer_diverted(p), 1) &&
	    __builtin_expect((r = ring_producer_next(p)) != NULL, 1)) {
		ring_rec_set(r, handle, voi, op, flags, x, y, time_ns);
		ring_producer_publish(p, p->head + 1);
		return;
	}
	/* No ring yet, a full one, or one whose spill buffers hold
	 * updates: they come first. */
	cl_push_slow(handle, voi, op, flags, x, y, time_ns);
}

/* Hand every ring back to a new statsd (RingAttach adopt); those it
 * refuses are marked dead. cl.lock held. */
void cl_rings_adopt_locked(void);

/* Empty the dead rings, counting their records as dropped. cl.lock held. */
void cl_rings_discard_locked(void);

/* Free every ring (close) or forget them (fork child). cl.lock held. */
void cl_rings_free_locked(void);
void cl_rings_forget_locked(void);

/* Counters over every ring, live and gone. cl.lock held. */
void cl_rings_count_locked(uint64_t *pushed, uint64_t *dropped);

/* Wait until the rings and their spill buffers hold nothing pushed before
 * the call. */
int cl_rings_flush(int timeout_ms);

/* Hand over what the rings' spill buffers hold, where the rings have
 * room (the watcher, every few milliseconds while any does).
 * Returns: true if some still hold updates. cl.lock held. */
bool cl_rings_spill_handover_locked(void);

/* Thread and fork plumbing of producer.c. */
void cl_producer_init_once(void);
void cl_producer_child(void);

/* ----------------------------------------------------------------- kobj.c */

/*
 * cl_kobj_create_locked: register o's template and create its kstat (or,
 * with o->join, join an existing kstat of that template), then put o on
 * cl.objs so that it is created again after a restart.
 * Returns: 0; -errno (the last error says why).
 */
int cl_kobj_create_locked(struct cl_kobj *o);

/*
 * cl_kobj_relayout_locked: lay o's kstat out again from template tpl
 * (TemplateAdd parameters, not taken over): KstatRelayout keeps the data
 * of every VOI tpl defines as o's template did. o is then tpl's.
 * Returns: 0; -errno of the calls (o is as before).
 */
int cl_kobj_relayout_locked(struct cl_kobj *o, json_t *tpl);

/*
 * cl_kobj_create_many_locked: cl_kobj_create_locked() for n kobjs of one
 * template, type, flags and zone (objs[0]'s), in as few calls as
 * statsd's batch takes (KstatCreateMany): all of them or none.
 * Returns: 0; -errno (the last error says why).
 */
int cl_kobj_create_many_locked(struct cl_kobj **objs, size_t n);

/* Put o on cl.objs (at the end: they stay in creation order), or take it
 * off. cl.lock held. */
void cl_kobj_list_add(struct cl_kobj *o);
void cl_kobj_list_del(struct cl_kobj *o);

/* Delete o's kstat and take it off cl.objs. Returns: 0; -errno. */
int cl_kobj_delete_locked(struct cl_kobj *o);

/* After a reconnect: create every listed kobj again. cl.lock held. */
void cl_kobjs_recreate_locked(void);

/* Forget the templates connections registered (the client closes). */
void cl_tplregs_free_locked(void);

/* Free a kobj that is not listed. NULL-safe. */
void cl_kobj_free(struct cl_kobj *o);

/* Fill o's names. Returns: 0; -EINVAL/-ENAMETOOLONG (last error set). */
int cl_kobj_names(struct cl_kobj *o, const char *module, int instance,
    const char *name, const char *class_);

/* Map the segments statsd gives this peer (SegmentAttach), keeping those
 * mapped already. cl.lock held. Returns: 0; -errno. */
int cl_segments_attach_locked(void);
void cl_segments_free_locked(void);

/* ----------------------------------------------------------------- images.c */

/* spill_tpl_fn for the spill buffers: kstat handle's layout, lock-free. */
const struct statsblob *cl_image(void *arg, uint32_t handle,
    uint32_t *ret_size);

/* Read o's layout from its segment (after it was created or joined). */
void cl_image_take_locked(struct cl_kobj *o);

/* Read the layouts again if a chain changed (a kstat may be re-laid). */
void cl_images_refresh_locked(void);

/* o is being deleted: no slot names it any more. */
void cl_images_forget_locked(const struct cl_kobj *o);

/* Forget them all (the client closes). */
void cl_images_free_locked(void);

/* ---------------------------------------------------------------- publish.c */

/* After a reconnect: map the published blobs of the new statsd. */
void cl_windows_remap_locked(void);

/* --------------------------------------------------------------- helpers */

/* Values of the ring's op for an (X, Y) update of a VOI of type dtype:
 * x as the record carries it, and whether it needs STATS_OPF_UNSIGNED. */
int64_t cl_x_of(enum vsd_dtype dtype, const struct voistatdata_numeric *v,
    uint8_t *flags);

#endif
