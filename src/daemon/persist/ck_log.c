/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ck_log.c: the state log's file while statsd runs and when it is
 * durable: opening it (its head on a new one), appending records to it
 * (and to a compaction's new log), syncing them in the loop or on the
 * persistence thread (syncer.c, and the jobs it runs for a new log and a
 * compaction's end) while the changes wait, cutting off an unsynced tail
 * that was lost, and the state directory's health.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/event.h>
#include <jansson.h>

#include "checkpoint_priv.h"
#include "crashpoint.h"
#include "daemon.h"
#include "log.h"
#include "registry.h"
#include "syncer.h"

/* ----------------------------------------------------------- the state */

/* Note a failure to write: unusable until a write succeeds again. */
int
ck_failed(struct checkpoint *c, const char *what, int err)
{
	snprintf(c->why, sizeof(c->why), "%s %s: %s", what, c->path,
	    strerror(-err));
	if (!c->failing)
		log_error("checkpoint: %s; PERSISTENT kstats are refused "
		    "until it can be written", c->why);
	c->failing = true;
	return err;
}

void
ck_ok(struct checkpoint *c)
{
	if (c->failing)
		log_notice("checkpoint %s written again; PERSISTENT kstats "
		    "are accepted", c->path);
	c->failing = false;
	c->why[0] = '\0';
}

/* fsync(2) the directory dir (a name made or renamed in it durable);
 * from either thread. Returns: 0; -errno. */
static int
ck_fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int r = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0)
		r = -errno;
	close(fd);
	return r;
}

int
ck_sync_dir(struct checkpoint *c)
{
	return ck_fsync_dir(c->d->state_dir);
}

struct ck_job *
ck_job_new(struct checkpoint *c, int fd)
{
	struct ck_job *j = calloc(1, sizeof(*j));

	if (j == NULL)
		return NULL;
	j->fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (j->fd < 0) {
		free(j);
		return NULL;
	}
	snprintf(j->path, sizeof(j->path), "%s", c->path);
	snprintf(j->tmp, sizeof(j->tmp), "%s", c->tmp);
	snprintf(j->dir, sizeof(j->dir), "%s", c->d->state_dir);
	return j;
}

void
ck_job_free(struct ck_job *j)
{
	close(j->fd);
	free(j);
}

/* On the thread: j's file synced (failing instead at the test's failure
 * point, STATSD_TEST_FAIL_AT). Returns: 0; -errno. */
static int
ck_job_sync(const struct ck_job *j, const char *point)
{
	return crashpoint_fail(point) ? -EIO :
	    fdatasync(j->fd) < 0 ? -errno : 0;
}

/* On the thread: a new log's head and name durable. */
int
ck_open_work(void *arg)
{
	struct ck_job *j = arg;
	int r;

	r = ck_job_sync(j, "open.sync");
	if (r == 0)
		r = ck_fsync_dir(j->dir);
	if (r < 0)
		return r;
	/* Durable, the loop not yet told. */
	crashpoint("open.synced");
	return 0;
}

/* On the thread: a compaction's new log synced, renamed into place, the
 * rename durable. A crash before the rename leaves the old log (the new
 * one beside it is removed at start); after it, the new one, which holds
 * every record the old one had synced. */
int
ck_compact_work(void *arg)
{
	struct ck_job *j = arg;
	int r;

	r = ck_job_sync(j, "compact.sync");
	if (r < 0)
		return r;
	crashpoint("compact.synced");
	r = crashpoint_fail("compact.rename") ? -EIO :
	    rename(j->tmp, j->path) < 0 ? -errno : 0;
	if (r < 0)
		return r;
	j->renamed = true;
	crashpoint("compact.renamed");
	r = crashpoint_fail("compact.dirsync") ? -EIO : ck_fsync_dir(j->dir);
	if (r < 0)
		return r;
	/* Durable, the loop not yet told. */
	crashpoint("compact.durable");
	return 0;
}

/* Open the log for appending (making the state directory if needed, and
 * the log's head if it is new). A new log's head is synced here, or (if
 * defer and the persistence thread can take it) by the thread, before
 * any append's sync. Returns: 0; -errno with c->why set. */
int
ck_open_how(struct checkpoint *c, bool defer)
{
	struct stat st;
	size_t len;
	char *head;
	int fd, r;

	if (c->fd >= 0)
		return 0;
	if (c->unread) {
		snprintf(c->why, sizeof(c->why), "%s exists but could not be "
		    "read at start; it is left alone until statsd restarts",
		    c->path);
		return -EACCES;
	}
	if (mkdir(c->d->state_dir, 0750) < 0 && errno != EEXIST)
		return ck_failed(c, "cannot make the directory of", -errno);
	fd = open(c->path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC |
	    O_NOFOLLOW, 0600);
	if (fd < 0)
		return ck_failed(c, "cannot open", -errno);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return ck_failed(c, "not a regular file:", -EINVAL);
	}
	if (st.st_size == 0) {
		struct ck_job *j = NULL;

		head = ck_head(&len);
		r = head == NULL ? -ENOMEM : ck_write_all(fd, head, len);
		free(head);
		/* Written, not durable. */
		if (r == 0)
			crashpoint("log.opened");
		if (r == 0 && defer && !c->inline_sync && ck_thread(c) &&
		    (j = ck_job_new(c, fd)) != NULL) {
			struct syncer_req req = { c->seq, len, c->gen,
			    ck_open_work, j };

			if (syncer_job(c->syncer, &req) == 0) {
				c->fd = fd;
				c->size = len;
				c->synced = 0;
				return 0;
			}
			ck_job_free(j);
		}
		if (r == 0 && (ck_sync(fd) < 0 || ck_sync_dir(c) < 0))
			r = -errno;
		if (r < 0) {
			if (ftruncate(fd, 0) < 0)
				(void)unlink(c->path);
			close(fd);
			return ck_failed(c, "cannot start", r);
		}
		st.st_size = (off_t)len;
	}
	c->fd = fd;
	c->size = c->synced = (uint64_t)st.st_size;
	return 0;
}

int
ck_open(struct checkpoint *c)
{
	return ck_open_how(c, false);
}

/* ------------------------------------------------- durable off the loop */

/* Tell the changes waiting past from and up to upto (all of them: 0,
 * UINT64_MAX) how they ended. */
static void
ck_settle_range(struct checkpoint *c, uint64_t from, uint64_t upto,
    int result)
{
	struct checkpoint_wait *w, *next;

	for (w = c->waiters; w != NULL; w = next) {
		next = w->next;
		if (w->seq > upto || w->seq <= from)
			continue;
		*w->prevp = w->next;
		if (w->next != NULL)
			w->next->prevp = w->prevp;
		w->next = NULL;
		w->prevp = NULL;
		w->result = result;
		w->wake(w->arg);
	}
}

void
ck_settle(struct checkpoint *c, uint64_t upto, int result)
{
	ck_settle_range(c, 0, upto, result);
}

/* Everything appended is durable now (a sync in the loop). */
void
ck_all_durable(struct checkpoint *c)
{
	c->synced = c->size;
	c->seq_durable = c->seq;
	ck_settle(c, UINT64_MAX, 0);
}

/*
 * The log's unsynced tail is lost (a write or a sync failed): cut it off,
 * so that what was not made durable never comes back at start, and tell
 * the changes waiting on it; a compaction or pass under way (which may
 * hold the same records) stops. Returns: err, logged.
 */
int
ck_cut(struct checkpoint *c, const char *what, int err)
{
	if (c->swapping) {
		/* The thread is putting the new log in place: which file is
		 * the log is known when it is done (ck_swapped cuts it). The
		 * changes appended since it was handed over are told now;
		 * those before wait for it (it has their records). */
		c->swap_cut = true;
		c->cut_err = err;
		(void)ck_failed(c, what, err);
		ck_settle_range(c, c->swap_seq, UINT64_MAX, err);
		return err;
	}
	if (c->fd >= 0 && c->synced == 0) {
		/* Not even its head is durable: started again when next
		 * opened. */
		if (ftruncate(c->fd, 0) < 0)
			(void)unlink(c->path);
		close(c->fd);
		c->fd = -1;
	} else if (c->fd >= 0 && ftruncate(c->fd, (off_t)c->synced) == 0) {
		c->size = c->synced;
	} else if (c->fd >= 0) {
		close(c->fd);
		c->fd = -1;
	}
	c->gen++;
	if (c->cfd >= 0) {
		close(c->cfd);
		c->cfd = -1;
		(void)unlink(c->tmp);
	}
	c->passing = false;
	c->seq_durable = c->seq;
	/* Records of the pass may have gone with the tail, and the meta
	 * record (the sample rates) with them: the next pass writes it. */
	c->rewrite = true;
	free(c->meta_rates);
	c->meta_rates = NULL;
	/* A template record may have gone with the tail: each is written
	 * again with its next kstat (a second record of one is harmless). */
	if (c->d->reg != NULL) {
		struct reg_template **tpls;
		size_t i, n = registry_templates(c->d->reg, &tpls);

		for (i = 0; i < n; i++)
			tpls[i]->ckpt_bytes = 0;
	}
	(void)ck_failed(c, what, err);
	ck_settle(c, UINT64_MAX, err);
	return err;
}

/*
 * What the persistence thread synced for req is durable (in the loop): the
 * log up to its size, the changes up to its seq; then (past crash point
 * point, if not NULL: durable, the callers not yet answered) the log is
 * writable and the changes waiting on it are answered.
 */
void
ck_durable(struct checkpoint *c, const struct syncer_req *req,
    const char *point)
{
	if (req->size > c->synced)
		c->synced = req->size;
	if (req->seq > c->seq_durable)
		c->seq_durable = req->seq;
	if (point != NULL)
		crashpoint(point);
	ck_ok(c);
	ck_settle(c, c->seq_durable, 0);
}

/* A new log's head is durable, or not (in the loop). (A compaction's log
 * whose directory sync failed once: with the changes it holds.) */
static void
ck_opened(struct checkpoint *c, struct ck_job *j,
    const struct syncer_req *req, int err)
{
	ck_job_free(j);
	/* Cut or replaced since: nothing left of it to make durable. */
	if (req->gen != c->gen)
		return;
	if (err < 0) {
		(void)ck_cut(c, "cannot start", err);
		return;
	}
	ck_durable(c, req, NULL);
}

/* The persistence thread synced req (in the loop). */
static void
ck_synced(void *arg, const struct syncer_req *req, int err)
{
	struct checkpoint *c = arg;

	if (req->work == ck_open_work) {
		ck_opened(c, req->arg, req, err);
		return;
	}
	if (req->work == ck_compact_work) {
		c->swapped(c, req->arg, req, err);
		return;
	}
	/* The log was cut or replaced since: its waiters were told then. */
	if (req->gen != c->gen)
		return;
	if (err < 0) {
		(void)ck_cut(c, "cannot sync", err);
		return;
	}
	ck_durable(c, req, "log.synced");
}

uint64_t
checkpoint_appends(const struct checkpoint *c)
{
	return c->seq;
}

void
checkpoint_unsynced(struct checkpoint *c, bool on)
{
	c->unsynced += on ? 1 : -1;
}

/* Have the thread sync what was appended (while a compaction's new log
 * is being put in place, that file: the syncs of the old one do not
 * count). Returns: 0; -errno (nothing asked). */
int
ck_request(struct checkpoint *c)
{
	struct syncer_req req = { c->seq, c->swapping ? c->csize : c->size,
	    c->gen, NULL, NULL };
	int fd = c->swapping ? c->cfd : c->fd;

	if (fd < 0 || c->syncer == NULL)
		return -EIO;
	return syncer_request(c->syncer, fd, &req);
}

int
checkpoint_wait(struct checkpoint *c, struct checkpoint_wait *w)
{
	int r;

	if (c->seq_durable >= c->seq)
		return 0;
	r = ck_request(c);
	if (r < 0 && c->swapping && c->syncer != NULL) {
		/* (Out of descriptors.) Finish the compaction, then sync
		 * the log here. */
		syncer_drain(c->syncer);
		if (c->seq_durable >= c->seq)
			return 0;
	}
	if (r < 0) {
		/* The thread cannot take it: sync here. */
		if (c->fd < 0 || ck_sync(c->fd) < 0)
			return ck_cut(c, "cannot sync", c->fd < 0 ? r : -errno);
		ck_all_durable(c);
		return 0;
	}
	w->result = 1;
	w->seq = c->seq;
	w->next = c->waiters;
	if (w->next != NULL)
		w->next->prevp = &w->next;
	w->prevp = &c->waiters;
	c->waiters = w;
	return 1;
}

void
checkpoint_flush(struct checkpoint *c)
{
	if (c->seq_durable >= c->seq || c->fd < 0)
		return;
	if (ck_request(c) == 0)
		return;
	if (c->swapping)
		syncer_drain(c->syncer);
	if (c->seq_durable >= c->seq)
		return;
	if (ck_sync(c->fd) < 0)
		(void)ck_cut(c, "cannot sync", -errno);
	else
		ck_all_durable(c);
}

void
checkpoint_wait_cancel(struct checkpoint *c, struct checkpoint_wait *w)
{
	(void)c;
	if (w == NULL || w->prevp == NULL)
		return;
	*w->prevp = w->next;
	if (w->next != NULL)
		w->next->prevp = w->prevp;
	w->next = NULL;
	w->prevp = NULL;
}

/* Is the persistence thread there (started if not yet)? */
bool
ck_thread(struct checkpoint *c)
{
	if (c->no_syncer)
		return false;
	if (c->syncer == NULL && syncer_new(c->d->base, ck_synced, c,
	    &c->syncer) < 0) {
		log_warning("checkpoint: no persistence thread; PERSISTENT "
		    "changes are synced in the event loop");
		c->no_syncer = true;
		return false;
	}
	return true;
}

/* Are appends to be left unsynced (the thread syncs them)? */
static bool
ck_deferring(struct checkpoint *c)
{
	return c->unsynced > 0 && !c->inline_sync && ck_thread(c);
}

/* Append records (NULL ends the list; each taken over) to the log, and
 * to the new log of a compaction in progress, and sync the log (unless
 * checkpoint_unsynced: then checkpoint_wait() has it synced).
 * *ret_len (may be NULL) gets each record's bytes. A failure cuts the log
 * back to what was synced. Returns: 0; -errno (logged). */
int
ck_append(struct checkpoint *c, json_t **recs, size_t n, uint64_t *ret_len)
{
	size_t i, len;
	char *line;
	int r;

	r = ck_open_how(c, ck_deferring(c));
	if (r < 0) {
		for (i = 0; i < n; i++)
			json_decref(recs[i]);
		return r;
	}
	for (i = 0; i < n; i++) {
		line = ck_line(recs[i], &len);
		json_decref(recs[i]);
		recs[i] = NULL;
		if (line == NULL) {
			r = -ENOMEM;
			break;
		}
		r = ck_write_rec(c->fd, line, len);
		if (r == 0 && c->swapping) {
			/* The new log, about to be the log, must have it:
			 * failing that, the record is cut off. */
			r = ck_write_all(c->cfd, line, len);
			if (r == 0) {
				c->csize += len;
				c->clive += len;
			}
		} else if (r == 0 && c->cfd >= 0 && ck_write_all(c->cfd, line,
		    len) < 0) {
			/* The compaction cannot follow: drop it. */
			close(c->cfd);
			c->cfd = -1;
			(void)unlink(c->tmp);
		} else if (r == 0 && c->cfd >= 0) {
			c->csize += len;
			c->clive += len;
		}
		free(line);
		if (r < 0)
			break;
		c->size += len;
		if (ret_len != NULL)
			ret_len[i] = len;
	}
	for (i++; i < n; i++)
		json_decref(recs[i]);
	/* Written, in the page cache: a kill -9 keeps it, a power cut may
	 * not. */
	crashpoint("log.written");
	if (r == 0 && ck_deferring(c)) {
		c->seq++;
		goto appended;
	}
	if (r == 0 && c->swapping) {
		uint64_t gen = c->gen;

		/* (No thread could take it.) The compaction's end first:
		 * the record is to be synced in the file that is the log. */
		syncer_drain(c->syncer);
		if (c->gen != gen)
			r = -EIO;
	}
	if (r == 0 && ck_sync(c->fd) < 0)
		r = -errno;
	/* What was not synced must not come back at start. */
	if (r < 0)
		return ck_cut(c, "cannot append to", r);
	c->seq++;
	/* Durable, the caller not yet answered. */
	crashpoint("log.synced");
	ck_ok(c);
	ck_all_durable(c);
appended:
	/* Past twice what it holds: compact soon, from the loop. */
	if (!c->passing && c->size > 2 * c->live + CKPT_COMPACT_MIN)
		event_active(c->ev_tick, EV_TIMEOUT, 0);
	return 0;
}

