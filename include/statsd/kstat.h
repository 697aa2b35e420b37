/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kstat.h: the illumos kstat(3KSTAT) and Solaris kstat2 data definitions
 * as statsd stores them: kstat types, named data types, flags, and the
 * INTR, IO and TIMER records with illumos's field names.
 *
 * The first part of the header is shared by the engine and its front ends;
 * the second declares libstatsclient's provider and libkstat consumer calls.
 * Values are illumos's wherever illumos defines one, so that code written
 * against <kstat.h> keeps its meaning; statsd's additions (the HIST and BLOB
 * kstat types, KSTAT_FLAG_PRIV) take values illumos leaves unused.
 */
#ifndef STATSD_KSTAT_H
#define STATSD_KSTAT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int64_t		hrtime_t;	/* nanoseconds, CLOCK_MONOTONIC */
typedef int		kid_t;		/* unique kstat id */

/* 30 characters and a NUL, for module, name, class and statistic names. */
#define KSTAT_STRLEN	31

/* ks_type. RAW to TIMER are illumos's; HIST and BLOB are statsd's. */
#define KSTAT_TYPE_RAW		0	/* can be anything */
#define KSTAT_TYPE_NAMED	1	/* name/value pairs */
#define KSTAT_TYPE_INTR		2	/* interrupt statistics */
#define KSTAT_TYPE_IO		3	/* I/O statistics */
#define KSTAT_TYPE_TIMER	4	/* event timers */
#define KSTAT_TYPE_HIST		5	/* a kstat2 histogram */
#define KSTAT_TYPE_BLOB		6	/* a stats(3) blob or a Linux interface */
#define KSTAT_NUM_TYPES		7

/* kstat_named_t data types (illumos values). */
#define KSTAT_DATA_CHAR		0
#define KSTAT_DATA_INT32	1
#define KSTAT_DATA_UINT32	2
#define KSTAT_DATA_INT64	3
#define KSTAT_DATA_UINT64	4
#define KSTAT_DATA_STRING	9
/* statsd's: an array of uint64_t (a kstat2 histogram's "buckets"). */
#define KSTAT_DATA_UINT64_ARRAY	10
/* LP64 user code: LONG is INT64 and ULONG UINT64; the rest are obsolete. */
#define KSTAT_DATA_LONG		KSTAT_DATA_INT64
#define KSTAT_DATA_ULONG	KSTAT_DATA_UINT64
#define KSTAT_DATA_LONGLONG	KSTAT_DATA_INT64
#define KSTAT_DATA_ULONGLONG	KSTAT_DATA_UINT64

/* ks_flags. illumos's bits, plus PRIV (kstat2's KSTAT2_MF_PRIV). */
#define KSTAT_FLAG_VIRTUAL	0x01	/* accepted, no meaning in statsd */
#define KSTAT_FLAG_VAR_SIZE	0x02	/* accepted, no meaning in statsd */
#define KSTAT_FLAG_WRITABLE	0x04	/* its owner or an admin may write it */
#define KSTAT_FLAG_PERSISTENT	0x08	/* delete makes it dormant */
#define KSTAT_FLAG_DORMANT	0x10	/* set by statsd: deleted, persistent */
#define KSTAT_FLAG_INVALID	0x20	/* set by statsd: created, not installed */
#define KSTAT_FLAG_LONGSTRINGS	0x40	/* set by statsd: has STRING values */
#define KSTAT_FLAG_PRIV		0x100	/* private segment, privileged peers */

/* kstat_intr_t indices. */
#define KSTAT_INTR_HARD		0
#define KSTAT_INTR_SOFT		1
#define KSTAT_INTR_WATCHDOG	2
#define KSTAT_INTR_SPURIOUS	3
#define KSTAT_INTR_MULTSVC	4
#define KSTAT_NUM_INTRS		5

typedef struct kstat_intr {
	unsigned int	intrs[KSTAT_NUM_INTRS];	/* interrupt counters */
} kstat_intr_t;

/*
 * I/O statistics. The times change only through the queue events (enter,
 * exit and the two moves), which keep Riemann sums: wlentime is the
 * integral of the wait queue's length over time, wtime the time it was
 * non-empty; the r fields are the same for the run queue. Times are ns.
 */
typedef struct kstat_io {
	uint64_t	nread;		/* number of bytes read */
	uint64_t	nwritten;	/* number of bytes written */
	unsigned int	reads;		/* number of read operations */
	unsigned int	writes;		/* number of write operations */
	hrtime_t	wtime;		/* cumulative wait (pre-service) time */
	hrtime_t	wlentime;	/* cumulative wait length*time product */
	hrtime_t	wlastupdate;	/* last time wait queue changed */
	hrtime_t	rtime;		/* cumulative run (service) time */
	hrtime_t	rlentime;	/* cumulative run length*time product */
	hrtime_t	rlastupdate;	/* last time run queue changed */
	unsigned int	wcnt;		/* count of elements in wait state */
	unsigned int	rcnt;		/* count of elements in run state */
} kstat_io_t;

typedef struct kstat_timer {
	char		name[KSTAT_STRLEN];	/* event name */
	unsigned char	resv;			/* reserved */
	uint64_t	num_events;		/* number of events */
	hrtime_t	elapsed_time;		/* cumulative elapsed time */
	hrtime_t	min_time;		/* shortest event duration */
	hrtime_t	max_time;		/* longest event duration */
	hrtime_t	start_time;		/* previous event start time */
	hrtime_t	stop_time;		/* previous event stop time */
} kstat_timer_t;

/*
 * kstat2 content types of values (KSTAT2_NVMT_*), recorded in a kstat's
 * header with its scale. Values are those of Solaris 11.4's libkstat2.
 */
enum kstat2_nv_metatype {
	KSTAT2_NVMT_UNK = 0,
	KSTAT2_NVMT_ID,
	KSTAT2_NVMT_CNT,
	KSTAT2_NVMT_T_EPOCH,
	KSTAT2_NVMT_T_REL,
	KSTAT2_NVMT_T_ACC,
	KSTAT2_NVMT_PCT,
	KSTAT2_NVMT_ADDR,
	KSTAT2_NVMT_TEMP_C,
	KSTAT2_NVMT_RPM,
	KSTAT2_NVMT_VOLT,
	KSTAT2_NVMT_WATT,
	KSTAT2_NVMT_CURR,
	KSTAT2_NVMT_BYTES,
	KSTAT2_NVMT_BITS,
	KSTAT2_NVMT_STATE,
	KSTAT2_NVMT_FREQ,
	KSTAT2_NVMT_FLAGS,
	KSTAT2_NVMT_JOULE,
	KSTAT2_NVMT_NUM
};

#ifndef STATS_API
#define STATS_API __attribute__((visibility("default")))
#endif

/*
 * ---------------------------------------------------------------------------
 * The API of libstatsclient for illumos kstat and Solaris kstat2: kstats
 * as illumos's libkstat shows them to consumers, and the provider calls
 * that create and feed them through statsd. See kstat(3).
 */

#define KSTAT_READ	0
#define KSTAT_WRITE	1

/*
 * A named value. The union is illumos's, with its obsolete members; l and
 * ul are long as in illumos's LP64 user headers (kstat(3KSTAT) shows
 * the ILP32 int32_t), matching KSTAT_DATA_LONG = KSTAT_DATA_INT64 above.
 */
typedef struct kstat_named {
	char		name[KSTAT_STRLEN];	/* name of counter */
	unsigned char	data_type;		/* KSTAT_DATA_* */
	union {
		char		c[16];		/* enough for 128-bit ints */
		struct {
			union {
				char	*ptr;	/* NUL-terminated string */
				char	 __pad[8];
			} addr;
			uint32_t	len;	/* strlen(ptr) + 1 */
		} str;
		int32_t		i32;
		uint32_t	ui32;
		int64_t		i64;
		uint64_t	ui64;
		/* obsolete */
		long		l;
		unsigned long	ul;
		long long	ll;
		unsigned long long ull;
		float		f;
		double		d;
	} value;				/* value of counter */
} kstat_named_t;

#define KSTAT_NAMED_STR_PTR(knptr)	((knptr)->value.str.addr.ptr)
#define KSTAT_NAMED_STR_BUFLEN(knptr)	((knptr)->value.str.len)

/*
 * A KSTAT_DATA_UINT64_ARRAY value is laid out like a long string: the
 * pointer is to its first element, packed after the kstat_named_t array in
 * ks_data (and in kstat_read()'s buf), and the length counts elements.
 */
#define KSTAT_NAMED_ARR_PTR(knptr)	\
	((uint64_t *)(void *)(knptr)->value.str.addr.ptr)
#define KSTAT_NAMED_ARR_LEN(knptr)	((knptr)->value.str.len)

/*
 * The kstat header. Fields and their order are illumos's; ks_flags is
 * 32 bits wide (illumos: uchar_t) to hold KSTAT_FLAG_PRIV. The "kernel
 * only" fields exist for source compatibility: a provider may keep its own
 * pointer in ks_private; statsd calls none of the functions.
 */
typedef struct kstat {
	hrtime_t	 ks_crtime;		/* creation time */
	struct kstat	*ks_next;		/* kstat chain linkage */
	kid_t		 ks_kid;		/* unique kstat ID */
	char		 ks_module[KSTAT_STRLEN]; /* module name */
	unsigned char	 ks_resv;		/* reserved */
	int		 ks_instance;		/* module's instance */
	char		 ks_name[KSTAT_STRLEN];	/* kstat name */
	unsigned char	 ks_type;		/* kstat data type */
	char		 ks_class[KSTAT_STRLEN]; /* kstat class */
	uint32_t	 ks_flags;		/* KSTAT_FLAG_* */
	void		*ks_data;		/* type-specific data */
	unsigned int	 ks_ndata;		/* # of data records */
	size_t		 ks_data_size;		/* size of the data section */
	hrtime_t	 ks_snaptime;		/* time of last data snapshot */
	/* kernel only */
	int		(*ks_update)(struct kstat *, int);
	void		*ks_private;
	int		(*ks_snapshot)(struct kstat *, void *, int);
	void		*ks_lock;
} kstat_t;

/* A consumer's handle. kc_kd is the control socket (read nothing from it). */
typedef struct kstat_ctl {
	kid_t		 kc_chain_id;		/* current kstat chain ID */
	kstat_t		*kc_chain;		/* pointer to kstat chain */
	int		 kc_kd;			/* statsd's control socket */
} kstat_ctl_t;

#define KSTAT_NAMED_PTR(kptr)	((kstat_named_t *)(kptr)->ks_data)
#define KSTAT_INTR_PTR(kptr)	((kstat_intr_t *)(kptr)->ks_data)
#define KSTAT_IO_PTR(kptr)	((kstat_io_t *)(kptr)->ks_data)
#define KSTAT_TIMER_PTR(kptr)	((kstat_timer_t *)(kptr)->ks_data)

/* ------------------------------------------------------------ consumers */

/*
 * kstat_open: connect to statsd (at the socket of the process's client if
 * it is open, else $STATSD_SOCKET, else /run/statsd/statsd.sock), map its
 * store segments read-only (the private
 * one too for a privileged user) and read the chain. Where statsd gives no
 * segment, or $STATSD_KSTAT_SOCKET is set to 1, every read goes over the
 * socket instead. The handle is not shared with other threads (MT-Unsafe,
 * as on illumos).
 * Returns: the handle; NULL with errno set (ENOENT, ECONNREFUSED: no statsd;
 * EPROTONOSUPPORT; ENOMEM).
 */
STATS_API kstat_ctl_t *kstat_open(void);

/*
 * kstat_close: free the chain and every ks_data, close the connection.
 * Returns: 0; -1 with errno set (EINVAL for NULL).
 */
STATS_API int kstat_close(kstat_ctl_t *kc);

/*
 * kstat_chain_update: bring kc_chain up to date. Kstats that are still
 * there keep their kstat_t (and ks_data); pointers to others are freed.
 * Blobs (stats(3) kstats and Linux interfaces) and kstat2 histograms show
 * as KSTAT_TYPE_NAMED.
 * Returns: the new KCID if the chain changed; 0 if not; -1 with errno set
 * (EAGAIN: the chain kept changing; ENOMEM; EPIPE: statsd went away).
 */
STATS_API kid_t kstat_chain_update(kstat_ctl_t *kc);

/*
 * kstat_lookup: the first kstat of the chain with that module, instance
 * and name; NULL module, instance -1 and NULL name match anything.
 * Returns: the kstat; NULL with errno ENOENT.
 */
STATS_API kstat_t *kstat_lookup(kstat_ctl_t *kc, const char *ks_module,
    int ks_instance, const char *ks_name);

/*
 * kstat_read: take a consistent snapshot of ksp into ks_data (allocated
 * by the library) and, if buf is not NULL, copy ks_data_size bytes of it
 * to buf (string pointers of NAMED values then point into buf). Sets
 * ks_ndata, ks_data_size, ks_snaptime and ks_flags.
 *   NAMED   one kstat_named_t per VOI, by the VOI's name, holding its LAST
 *           value (else its SUM, else its COUNT), then the VOI's other
 *           scalar statistics as "<voi>.<kind>"; for a blob only the
 *           "<voi>.<kind>" ones
 *   HIST    (a kstat2 histogram, shown as NAMED) the fields of kstat2's
 *           histogram data by their names: "buckets", a
 *           KSTAT_DATA_UINT64_ARRAY of the bucket counts, every bucket from
 *           creation on (KSTAT_NAMED_ARR_PTR, KSTAT_NAMED_ARR_LEN);
 *           "type" (UINT32, a kstat2_nv_hist_type_t); "range_min",
 *           "range_max" and "stepping" (UINT64) as created. Bucket i's
 *           values follow from those four (docs/formats.md)
 *   INTR    a kstat_intr_t; IO a kstat_io_t (its integrals carried up to
 *           ks_snaptime); TIMER a kstat_timer_t per timer; RAW its
 *           creator's ndata bytes (ks_data_size)
 * Returns: the current KCID (compare it with kc_chain_id); -1 with errno
 * set: ENXIO (the kstat is gone), EAGAIN (kept changing), EINVAL (NULL,
 * or malformed data), ENOMEM.
 */
STATS_API kid_t kstat_read(kstat_ctl_t *kc, kstat_t *ksp, void *buf);

/*
 * kstat_write: set the named values of a WRITABLE NAMED kstat from buf
 * (NULL: from ks_data), as read by kstat_read(). Only its own named
 * values ("<voi>.<kind>" entries are read-only) are written.
 * Returns: the current KCID; -1 with errno set: EACCES (not a writable
 * NAMED kstat), EPERM (neither its owner nor privileged), EINVAL (a
 * different ks_ndata or data type), ENXIO, ENOMEM.
 */
STATS_API kid_t kstat_write(kstat_ctl_t *kc, kstat_t *ksp, void *buf);

/*
 * kstat_data_lookup: the named value (NAMED) or timer (TIMER) called name
 * in the data of the last kstat_read().
 * Returns: a pointer into ks_data; NULL with errno EINVAL (another type)
 * or ENOENT.
 */
STATS_API void *kstat_data_lookup(kstat_t *ksp, const char *name);

/* ------------------------------------------------------------ providers */

/*
 * kstat_create: a new kstat, not yet visible (KSTAT_FLAG_INVALID), of type
 * RAW (ndata bytes, at most 2048), NAMED (ndata values: name them with
 * kstat_named_init() in ks_data), INTR (ndata 1), IO (ndata 1) or TIMER
 * (ndata timers: name them with kstat_timer_init()). ks_flag may hold
 * KSTAT_FLAG_PERSISTENT, KSTAT_FLAG_WRITABLE and KSTAT_FLAG_PRIV (VIRTUAL
 * and VAR_SIZE are accepted and mean nothing). name NULL means
 * "<module><instance>", class NULL "misc". The kstat is seen in the
 * caller's zone, and from a zone in the global zone too (illumos's kernel
 * kstat_create() is ALL_ZONES; statsd's callers are applications, each in
 * its container). Uses stats_client_default().
 * Unlike illumos, ks_data of a provider's kstat is not where the values
 * live: change them with the update calls below; read them with
 * kstat_read().
 * Returns: the kstat; NULL with errno set (EINVAL, ENAMETOOLONG, ENOMEM).
 */
STATS_API kstat_t *kstat_create(const char *ks_module, int ks_instance,
    const char *ks_name, const char *ks_class, unsigned char ks_type,
    unsigned int ks_ndata, uint32_t ks_flag);

/*
 * kstat_install: make the kstat visible: statsd creates it (a PERSISTENT
 * one that is dormant comes back with its data). If statsd is not
 * reachable it is created when the client connects; if statsd refuses it
 * (a name it does not take, a limit), it stays KSTAT_FLAG_INVALID and
 * stats_client_strerror(stats_client_default()) says why.
 */
STATS_API void kstat_install(kstat_t *ksp);

/*
 * kstat_delete: delete the kstat (a PERSISTENT one goes dormant and keeps
 * its data) and free ksp. No update call may use it afterwards.
 */
STATS_API void kstat_delete(kstat_t *ksp);

/* kstat_named_init: name a NAMED value and give its KSTAT_DATA_* type
 * (before kstat_install()). */
STATS_API void kstat_named_init(kstat_named_t *knp, const char *name,
    unsigned char data_type);

/* kstat_named_setstr: point a STRING value at src (before kstat_install(),
 * which publishes it as the initial value, WRITABLE or not; the value then
 * holds at least 255 bytes, or src whole if longer, up to 4095). */
STATS_API void kstat_named_setstr(kstat_named_t *knp, const char *src);

/* kstat_timer_init: name a timer (before kstat_install()). The reserved
 * byte ktp->resv is the library's: do not write it. */
STATS_API void kstat_timer_init(kstat_timer_t *ktp, const char *name);

/*
 * Updates of an installed kstat. Each is a record on the calling thread's
 * ring: they never block and never fail (an update that cannot be queued is
 * counted by stats_client_dropped()). Queue and timer events carry the time
 * of the call (CLOCK_MONOTONIC). Calls on a kstat of another type, or on
 * one kstat_create() did not make, are ignored.
 *
 * kstat_named_set, _set_u64: set numeric named value knp (an element of
 * ks_data). kstat_named_add: add delta to it.
 */
STATS_API void kstat_named_set(kstat_t *ksp, kstat_named_t *knp, int64_t v);
STATS_API void kstat_named_set_u64(kstat_t *ksp, kstat_named_t *knp,
    uint64_t v);
STATS_API void kstat_named_add(kstat_t *ksp, kstat_named_t *knp,
    int64_t delta);

/*
 * kstat_named_set_string: publish a CHAR or STRING named value. Strings do
 * not fit a ring record: this is a call over the socket (statsd's Write,
 * as the provider), so it may block. The kstat need not be WRITABLE: that
 * flag is what consumers may write.
 * Returns: 0; -EINVAL (not a string value, or longer than the value
 * holds); -ENOTCONN; -errno.
 */
STATS_API int kstat_named_set_string(kstat_t *ksp, kstat_named_t *knp,
    const char *s);

/* kstat_intr_add: add n to interrupt counter which (KSTAT_INTR_*). */
STATS_API void kstat_intr_add(kstat_t *ksp, int which, uint32_t n);

/*
 * The I/O queue events of illumos's kstat_queue(9F), on the kstat_io_t of
 * an IO kstat (KSTAT_IO_PTR(ksp)): a request enters the wait queue, moves
 * to the run queue (or back), leaves it. kstat_io_read and kstat_io_write
 * account one transfer of nbytes (nread/reads, nwritten/writes).
 */
STATS_API void kstat_waitq_enter(kstat_io_t *kiop);
STATS_API void kstat_waitq_exit(kstat_io_t *kiop);
STATS_API void kstat_runq_enter(kstat_io_t *kiop);
STATS_API void kstat_runq_exit(kstat_io_t *kiop);
STATS_API void kstat_waitq_to_runq(kstat_io_t *kiop);
STATS_API void kstat_runq_back_to_waitq(kstat_io_t *kiop);
STATS_API void kstat_io_read(kstat_io_t *kiop, uint64_t nbytes);
STATS_API void kstat_io_write(kstat_io_t *kiop, uint64_t nbytes);

/* kstat_timer_start, _stop: an event of timer ktp (an element of the
 * TIMER kstat's ks_data) starts or stops. */
STATS_API void kstat_timer_start(kstat_timer_t *ktp);
STATS_API void kstat_timer_stop(kstat_timer_t *ktp);

/*
 * kstat_raw_update: write len bytes at offset off of a RAW kstat's data
 * (statsd keeps it as 8-byte words; the words touched are sent whole,
 * from ks_data, which this call updates first). Calls on one kstat must
 * not run concurrently.
 */
STATS_API void kstat_raw_update(kstat_t *ksp, size_t off, const void *buf,
    size_t len);

/* ------------------------------------------------------------------ kstat2 */

/*
 * Zones, the Linux way: a process's zone is its namespace (the pid one by
 * default; statsd.conf's zones), the global zone statsd's own. A zone's
 * number is what statsd's Hello reports as peer.zone.
 */
typedef int zoneid_t;
#define ALL_ZONES	(-1)	/* every zone (from a zone: its own and the
				 * global zone, never another) */
#define GLOBAL_ZONEID	0	/* the global zone only */

typedef enum kstat2_nv_metatype kstat2_nv_metatype_t;

typedef enum kstat2_nv_hist_type {
	KSTAT2_NVHIST_LINEAR = 0,	/* linear buckets of stepping */
	KSTAT2_NVHIST_LOG2,		/* 65 buckets, powers of 2 */
	KSTAT2_NVHIST_LOG10,		/* 21 buckets, powers of 10 */
	KSTAT2_NVHIST_LOG10_LIN		/* decades of stepping linear steps */
} kstat2_nv_hist_type_t;

/* Flags of a histogram's bucket ranges. */
typedef enum kstat2_nv_metaflag {
	KSTAT2_NVMF_NONE = 0x0,
	KSTAT2_NVMF_FRACT = 0x1		/* divide by scale (not multiply) */
} kstat2_nv_metaflag_t;

/* Meta-flags of a kstat2 as a whole. */
typedef enum kstat2_metaflag {
	KSTAT2_MF_NONE = 0x00,
	KSTAT2_MF_STABLE = 0x01,	/* recorded, no effect */
	KSTAT2_MF_PRIV = 0x02		/* privileged readers only */
} kstat2_metaflag_t;

/* ks_flags of kstat2_create_histogram(). PRIV is statsd's alias of
 * KSTAT2_MF_PRIV for callers who pass kstat flags. */
#define KSTAT2_FLAG_PERSISTENT	KSTAT_FLAG_PERSISTENT
#define KSTAT2_FLAG_GZ_VIS	0x200	/* seen in ks_zone and the global zone */
#define KSTAT2_FLAG_PRIV	KSTAT_FLAG_PRIV

#define KSTAT2_PATHLEN		256

typedef struct kstat2 {
	kstat_t			 ks1;		/* the kstat it also is */
	char			 ks2_path[KSTAT2_PATHLEN]; /* "seg/seg/..." */
	kstat2_nv_hist_type_t	 ks2_hist_type;
	kstat2_nv_metatype_t	 ks2_content;
	uint64_t		 ks2_scale;
	kstat2_nv_metaflag_t	 ks2_md_flags;
	kstat2_metaflag_t	 ks2_mflags;
	uint64_t		 ks2_range_min;
	uint64_t		 ks2_range_max;
	uint64_t		 ks2_stepping;
	const char		*ks2_desc;
} kstat2_t;

/*
 * kstat2_create_histogram: a Solaris kstat2 histogram: named by ks_npseg
 * path segments (3 to 16; the kstat is <pseg[1]>:<instance>:<name>, class
 * pseg[0], where instance is the last all-digit segment after the second
 * (0 if none) and name the last other one), of type LINEAR (range_min,
 * range_max, stepping), LOG2, LOG10 or LOG10_LIN (decades range_min to
 * range_max of stepping steps). buckets (num_buckets > 0) is pre-computed
 * data added at install. ks_zone is ALL_ZONES, GLOBAL_ZONEID or the
 * caller's own zone (a caller in a zone may name only its zone or the
 * global zone; ALL_ZONES then means its zone and the global zone). ks_flags
 * may hold KSTAT2_FLAG_PERSISTENT, KSTAT2_FLAG_GZ_VIS (seen in ks_zone and
 * in the global zone too) and KSTAT2_FLAG_PRIV; ks_mflags KSTAT2_MF_PRIV.
 * desc is copied. The content
 * type and scale go to statsd with the kstat (readers show them: a
 * consumer as the named values "content" and "scale"); md_flags is kept
 * in the kstat2_t only. Install it with
 * kstat2_install().
 * Returns: the kstat; NULL with errno set (EINVAL for bad parameters,
 * ENAMETOOLONG, ENOMEM).
 */
STATS_API kstat2_t *kstat2_create_histogram(const char *ks_pseg[],
    uint32_t ks_npseg, zoneid_t ks_zone, kstat2_nv_hist_type_t type,
    kstat2_nv_metatype_t content_type, uint64_t scale,
    kstat2_nv_metaflag_t md_flags, uint64_t *buckets, uint16_t num_buckets,
    uint64_t range_min, uint64_t range_max, uint64_t stepping,
    uint32_t ks_flags, const char *desc, kstat2_metaflag_t ks_mflags);

/* kstat2_install, kstat2_delete: as kstat_install() and kstat_delete(). */
STATS_API void kstat2_install(kstat2_t *ksp2);
STATS_API void kstat2_delete(kstat2_t *ksp2);

/* kstat2_hist_add_value: add 1 to the bucket of value (a ring record). */
STATS_API void kstat2_hist_add_value(kstat2_t *ksp2, uint64_t value);

/* kstat2_hist_add_values: add count to the bucket of value (statsd's). */
STATS_API void kstat2_hist_add_values(kstat2_t *ksp2, uint64_t value,
    uint64_t count);

#ifdef __cplusplus
}
#endif

#endif /* STATSD_KSTAT_H */
