/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * checkpoint_priv.h: what the checkpoint's files share: the log's object,
 * its format's constants, and what each file gives those above it. The
 * files, lowest first (tests/build/layers.py holds the order): ck_frame.c,
 * ck_record.c, ck_log.c, ck_kstat.c, ck_pass.c, checkpoint.c, ck_load.c.
 */
#ifndef STATSD_CHECKPOINT_PRIV_H
#define STATSD_CHECKPOINT_PRIV_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <event2/util.h>
#include <jansson.h>

#include <statsd/kstat.h>

#include "checkpoint.h"

struct ck_job;
struct event;
struct reg_kstat;
struct reg_template;
struct statsd;
struct syncer;
struct syncer_req;

#define CKPT_NAME	"statsd.checkpoint"
/* 3: "batch" records (KstatCreateMany). Version 2 logs are read and
 * rewritten. */
#define CKPT_VERSION	3
/* The log is compacted past twice what it holds and this. */
#define CKPT_COMPACT_MIN	65536u

struct checkpoint {
	struct statsd	*d;
	char		 path[PATH_MAX];
	char		 tmp[PATH_MAX];
	struct event	*ev_tick;
	struct event	*ev_step;
	int		 fd;		/* the log, appended to; -1: unusable */
	uint64_t	 size;		/* its bytes */
	uint64_t	 synced;	/* bytes known durable */
	uint64_t	 live;		/* bytes of each thing's last record */
	uint64_t	 meta_bytes;
	uint32_t	 meta_handle;	/* next handle as last written */
	char		*meta_rates;	/* sample rates as last written */
	bool		 unread;	/* exists, could not be read: hands off */
	bool		 failing;	/* logged once per failure streak */
	char		 why[PATH_MAX + 512];	/* why unusable; "" if usable */
	uint64_t	 compactions;
	/* Appends written and not synced at once (checkpoint_unsynced),
	 * synced by the persistence thread, and the changes waiting. */
	struct syncer	*syncer;	/* made when first needed */
	bool		 no_syncer;	/* it could not be: sync here */
	int		 unsynced;	/* > 0: appends are not synced */
	uint64_t	 seq;		/* appends written */
	uint64_t	 seq_durable;	/* appends known durable */
	uint64_t	 gen;		/* bumped when the log is cut or
					 * replaced */
	struct checkpoint_wait *waiters;
	/* Damaged records found at start (skipped, or cut off as the
	 * tail), and their bytes: copied aside. */
	uint64_t	 damaged_records;
	uint64_t	 damaged_bytes;
	/* The periodic pass, in slices. */
	bool		 passing;
	bool		 compact_now;	/* the log is not one (version 1) */
	/* Where the pass is, in kstat(1M)'s order: after this kstat's name
	 * (from the first kstat while at_start). */
	bool		 at_start;
	char		 cur_module[KSTAT_STRLEN];
	char		 cur_name[KSTAT_STRLEN];
	int32_t		 cur_instance;
	/* A compaction in progress: the new log, written beside. */
	int		 cfd;
	uint64_t	 csize, clive;
	uint32_t	 cgen;		/* marks templates written to it */
	/* Its new log written, handed to the persistence thread to be
	 * synced and renamed into place (appends go on, to both files). */
	bool		 swapping;
	uint64_t	 swap_meta;	/* its meta record's bytes */
	uint64_t	 swap_seq;	/* appends it holds */
	bool		 swap_cut;	/* the log was cut meanwhile */
	int		 cut_err;
	/* A cut lost records the pass had counted written: the next pass
	 * rewrites the log whole. */
	bool		 rewrite;
	/* Sync in the calling thread (checkpoint_write: at start, at exit,
	 * SampleRatesSet). */
	bool		 inline_sync;
	/* A compaction's end, once the persistence thread is done with it
	 * (ck_synced calls it): ck_pass.c's ck_swapped, given by
	 * checkpoint_new, so that the log's syncs (ck_log.c) call nothing of
	 * the pass above them. */
	void		(*swapped)(struct checkpoint *c, struct ck_job *j,
			    const struct syncer_req *req, int err);
};

/*
 * What the persistence thread does besides syncing the log: a new log's
 * first sync (its head, and its name in the directory), and a
 * compaction's end (its new log synced, renamed over the old one, the
 * rename made durable). Each owns a duplicate of the file's descriptor
 * and copies of the names, so that the loop may close or cut its own
 * meanwhile.
 */
struct ck_job {
	int	fd;
	bool	renamed;	/* (a compaction) its rename was done */
	char	path[PATH_MAX];
	char	tmp[PATH_MAX];
	char	dir[PATH_MAX];
};

/* ck_frame.c */
uint32_t	 ck_crc32(const void *buf, size_t len);
char		*ck_line(json_t *rec, size_t *ret_len);
char		*ck_head(size_t *ret_len);
json_t		*ck_parse_line(const char *line, size_t n);
int		 ck_write_all(int fd, const char *p, size_t len);
int		 ck_write_rec(int fd, const char *line, size_t len);
int		 ck_sync(int fd);
uint64_t	 ck_written_bytes(void);
uint64_t	 ck_sync_count(void);

/* ck_record.c: a record as JSON (NULL: out of memory). A kstat's says
 * dormant as its dormant flag. */
json_t		*ck_kstat_rec(struct checkpoint *c, struct reg_kstat *k,
		    bool dormant);
json_t		*ck_template_rec(const struct reg_template *t);
json_t		*ck_meta_rec(struct checkpoint *c);
/* Is k one the checkpoint keeps (PERSISTENT, outliving statsd)? */
bool		 ck_kept(const struct checkpoint *c, const struct reg_kstat *k);

/* ck_log.c: the state directory's health (ck_failed: unusable, logged
 * once, returns err; ck_ok: usable again) */
int		 ck_failed(struct checkpoint *c, const char *what, int err);
void		 ck_ok(struct checkpoint *c);
int		 ck_sync_dir(struct checkpoint *c);
/* the persistence thread's jobs */
struct ck_job	*ck_job_new(struct checkpoint *c, int fd);
void		 ck_job_free(struct ck_job *j);
int		 ck_open_work(void *arg);
int		 ck_compact_work(void *arg);
bool		 ck_thread(struct checkpoint *c);
/* the log opened, appended to, synced, cut */
int		 ck_open_how(struct checkpoint *c, bool defer);
int		 ck_open(struct checkpoint *c);
int		 ck_append(struct checkpoint *c, json_t **recs, size_t n,
		    uint64_t *ret_len);
int		 ck_request(struct checkpoint *c);
int		 ck_cut(struct checkpoint *c, const char *what, int err);
/* the changes waiting told */
void		 ck_settle(struct checkpoint *c, uint64_t upto, int result);
void		 ck_all_durable(struct checkpoint *c);
void		 ck_durable(struct checkpoint *c, const struct syncer_req *req,
		    const char *point);

/* ck_pass.c: the periodic pass's timers (ck_arm: the next pass one
 * checkpoint_interval_ms from now), and a compaction's end, the hook
 * c->swapped */
void		 ck_arm(struct checkpoint *c);
void		 ck_tick_cb(evutil_socket_t fd, short what, void *arg);
void		 ck_step_cb(evutil_socket_t fd, short what, void *arg);
void		 ck_swapped(struct checkpoint *c, struct ck_job *j,
		    const struct syncer_req *req, int err);

#endif
