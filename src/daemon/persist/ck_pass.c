/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ck_pass.c: the state log's periodic pass: every
 * checkpoint_interval_ms (and at exit, and at once when the log has
 * grown past twice what it holds) the kstats whose blob changed are
 * appended, in slices of the loop, with one sync handed to the
 * persistence thread; or the log is compacted: rewritten beside the old
 * one with one record per thing, and synced and renamed into place by
 * the thread while appends go to both files. A failing state directory
 * is tried again from here.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>
#include <jansson.h>

#include "checkpoint_priv.h"
#include "crashpoint.h"
#include "daemon.h"
#include "registry.h"
#include "syncer.h"

/* Bytes the periodic pass writes per loop turn. */
#define CKPT_SLICE_BYTES	(1u << 20)
/* After a failure, what must be written to call the log writable again
 * (a few pages: a write that fits in the slack of the log's last page
 * proves nothing of the room records need). */
#define CKPT_PROBE_BYTES	16384u

static int ck_write_now(struct checkpoint *c);

void
ck_arm(struct checkpoint *c)
{
	unsigned ms = c->d->cfg.checkpoint_interval_ms;
	struct timeval tv = { ms / 1000, (long)(ms % 1000) * 1000 };

	event_add(c->ev_tick, &tv);
}

/* Start a compaction: the new log beside the old, its head written. */
static void
ck_compact_begin(struct checkpoint *c)
{
	size_t len;
	char *line = ck_head(&len);

	c->cfd = open(c->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
	    O_NOFOLLOW, 0600);
	if (line == NULL || c->cfd < 0 || ck_write_all(c->cfd, line, len) < 0) {
		if (c->cfd >= 0)
			close(c->cfd);
		c->cfd = -1;
		(void)unlink(c->tmp);
		free(line);
		return;
	}
	free(line);
	c->csize = c->clive = len;
	c->cgen++;
}

/* Write rec (taken over; NULL: it could not be made) to fd as its line.
 * Returns: the line's bytes; 0 on failure. */
static size_t
ck_put(int fd, json_t *rec)
{
	size_t len = 0;
	char *line = rec != NULL ? ck_line(rec, &len) : NULL;

	json_decref(rec);
	if (line == NULL || ck_write_all(fd, line, len) < 0)
		len = 0;
	free(line);
	return len;
}

/* Write one kstat's record to the new log (or the log). Returns: its
 * bytes; 0 on failure. */
static uint64_t
ck_pass_one(struct checkpoint *c, struct reg_kstat *k)
{
	int fd = c->cfd >= 0 ? c->cfd : c->fd;
	uint64_t total = 0;
	size_t len;

	/* Its template first, if the log (or the new log) lacks it. */
	if (c->cfd >= 0 ? k->tpl->ckpt_gen != c->cgen :
	    k->tpl->ckpt_bytes == 0) {
		if ((len = ck_put(fd, ck_template_rec(k->tpl))) == 0)
			return 0;
		if (c->cfd >= 0) {
			k->tpl->ckpt_gen = c->cgen;
			k->tpl->ckpt_pending = len;
			c->csize += len;
			c->clive += len;
		} else {
			k->tpl->ckpt_bytes = len;
			c->size += len;
			c->live += len;
		}
		total += len;
	}
	/* Going dormant (a delete waiting on its record): as it will be. */
	len = ck_put(fd, ck_kstat_rec(c, k, k->dormant ||
	    (k->ckpt_deleting == CKPT_DEL_SLEEP)));
	if (len == 0)
		return 0;
	k->ckpt_pending = k->changes;
	if (c->cfd >= 0) {
		c->csize += len;
		c->clive += len;
		k->ckpt_pbytes = len;
	} else {
		c->size += len;
		c->live += len;
		c->live -= k->ckpt_bytes < c->live ? k->ckpt_bytes : c->live;
		k->ckpt_bytes = len;
	}
	return total + len;
}

/* A compaction's new log is the log (its records now count, and the
 * templates it lacks are not in the log any more). */
static void
ck_compacted(struct checkpoint *c, uint64_t meta_len)
{
	struct reg_template **tpls;
	size_t n, i;

	close(c->fd);
	c->fd = c->cfd;
	c->cfd = -1;
	c->size = c->csize;
	c->live = c->clive;
	c->meta_bytes = meta_len;
	c->compactions++;
	c->compact_now = false;
	c->rewrite = false;
	n = registry_templates(c->d->reg, &tpls);
	for (i = 0; i < n; i++)
		tpls[i]->ckpt_bytes = tpls[i]->ckpt_gen == c->cgen ?
		    tpls[i]->ckpt_pending : 0;
}

/* The pass's records are written: what they hold is the kstats' saved
 * state (the bytes of a compaction's, once its log is the log). */
static void
ck_pass_saved(struct checkpoint *c)
{
	struct reg_kstat **ks;
	size_t n, i;

	n = registry_kstats(c->d->reg, &ks);
	for (i = 0; i < n; i++) {
		ks[i]->ckpt_saved = ks[i]->ckpt_pending;
		if (ks[i]->ckpt_pbytes != 0) {
			ks[i]->ckpt_bytes = ks[i]->ckpt_pbytes;
			ks[i]->ckpt_pbytes = 0;
		}
	}
}

/* A compaction's new log is dropped: the log is as it was. */
static void
ck_compact_drop(struct checkpoint *c)
{
	struct reg_kstat **ks;
	size_t n, i;

	close(c->cfd);
	c->cfd = -1;
	(void)unlink(c->tmp);
	n = registry_kstats(c->d->reg, &ks);
	for (i = 0; i < n; i++)
		ks[i]->ckpt_pbytes = 0;
}

/*
 * The persistence thread is done with a compaction's end (in the loop):
 * the new log is the log (renamed), or the old one still is. Records
 * appended meanwhile went to both files; their syncs, asked for on the
 * new file, run after this one's on the thread, so they count only once
 * the new file is the log.
 */
void
ck_swapped(struct checkpoint *c, struct ck_job *j,
    const struct syncer_req *req, int err)
{
	bool renamed = j->renamed, cut = c->swap_cut;

	ck_job_free(j);
	c->swapping = false;
	c->swap_cut = false;
	if (!renamed) {
		/* The old log stays; what was appended to it since its last
		 * sync is synced anew (the syncs asked for on the new file
		 * are void). */
		ck_compact_drop(c);
		c->gen++;
		if (cut) {
			(void)ck_cut(c, "cannot write", c->cut_err);
			return;
		}
		(void)ck_failed(c, "cannot compact", err);
		if (c->seq_durable < c->seq && ck_request(c) < 0)
			(void)ck_cut(c, "cannot sync", -EIO);
		return;
	}
	ck_compacted(c, c->swap_meta);
	ck_pass_saved(c);
	c->synced = req->size;
	if (err < 0 && !cut) {
		/* Renamed, and then the directory's sync failed: the new
		 * log is synced, its name may not be. Its head's job again
		 * (file and directory synced) answers the changes waiting,
		 * those it holds too; failing again, the log is cut. */
		struct ck_job *retry = ck_job_new(c, c->fd);
		struct syncer_req again = { c->seq, c->size, c->gen,
		    ck_open_work, retry };

		(void)ck_failed(c, "cannot sync the directory of", err);
		if (retry != NULL && syncer_job(c->syncer, &again) == 0)
			return;
		if (retry != NULL)
			ck_job_free(retry);
	}
	if (err < 0 || cut) {
		/* The log was cut meanwhile (or the directory cannot be
		 * synced): the changes the new log holds synced are
		 * durable; the rest is cut off, and the log rewritten whole
		 * at the next pass. */
		if (err == 0 && req->seq > c->seq_durable) {
			c->seq_durable = req->seq;
			ck_settle(c, c->seq_durable, 0);
		}
		(void)ck_cut(c, "cannot write", err < 0 ? err : c->cut_err);
		return;
	}
	/* The new log in place, durable (its size is synced already). */
	ck_durable(c, req, "compact.swapped");
}

/* A compaction's new log written: hand its sync and rename to the
 * thread. Returns: whether it took it. */
static bool
ck_compact_hand(struct checkpoint *c, uint64_t meta_len)
{
	struct ck_job *j;
	struct syncer_req req;

	if (c->inline_sync || !ck_thread(c))
		return false;
	j = ck_job_new(c, c->cfd);
	if (j == NULL)
		return false;
	/* Syncs of the old file asked for before count no more: the job
	 * covers every record appended so far. */
	req = (struct syncer_req){ c->seq, c->csize, c->gen + 1,
	    ck_compact_work, j };
	if (syncer_job(c->syncer, &req) < 0) {
		ck_job_free(j);
		return false;
	}
	c->gen++;
	c->swapping = true;
	c->swap_meta = meta_len;
	c->swap_seq = c->seq;
	/* Written whole, in the page cache, not durable, not in place. */
	crashpoint("compact.handed");
	return true;
}

/* The pass is over: sync (and, for a compaction, put the new log in
 * place), on the persistence thread unless inline_sync (or there is
 * none). */
static void
ck_pass_end(struct checkpoint *c, bool ok)
{
	struct registry *reg = c->d->reg;
	json_t *meta;
	char *line = NULL;
	size_t len = 0;
	int fd = c->cfd >= 0 ? c->cfd : c->fd, r = ok ? 0 : -EIO;
	bool handed = false, clean = false;

	c->passing = false;
	meta = ck_meta_rec(c);
	/* Failing: the meta record, padded, is the probe of the room. */
	if (meta != NULL && c->failing) {
		char *pad = malloc(CKPT_PROBE_BYTES + 1);

		if (pad != NULL) {
			memset(pad, '-', CKPT_PROBE_BYTES);
			pad[CKPT_PROBE_BYTES] = '\0';
			json_object_set_new(meta, "probe", json_string(pad));
			free(pad);
		}
	}
	if (r == 0 && (c->failing || c->cfd >= 0 || c->meta_handle !=
	    registry_next_handle(reg) || c->meta_rates == NULL ||
	    strcmp(c->meta_rates, c->d->sample_rates != NULL ?
	    c->d->sample_rates : "") != 0)) {
		line = meta != NULL ? ck_line(meta, &len) : NULL;
		r = line == NULL ? -ENOMEM : ck_write_all(fd, line, len);
		if (r == 0 && c->cfd < 0)
			c->size += len;
		if (r == 0 && c->cfd >= 0)
			c->csize += len;
	}
	json_decref(meta);
	free(line);
	if (r == 0 && c->cfd >= 0) {
		c->clive += len;
		handed = ck_compact_hand(c, len);
	} else if (r == 0 && c->size <= c->synced && !c->failing) {
		/* Nothing appended since the last sync: a pass that found
		 * nothing changed costs no fdatasync(2) and no wake-up of
		 * the thread (a client's idle ring keeps passes coming). */
		clean = true;
	} else if (r == 0 && !c->inline_sync && ck_thread(c)) {
		/* The pass's records are synced by the thread; no one
		 * waits on them (a failed sync cuts them off, and the next
		 * pass rewrites the log). */
		handed = ck_request(c) == 0;
		if (handed)
			crashpoint("pass.handed");
	}
	if (r == 0 && !handed && !clean && ck_sync(fd) < 0)
		r = -errno;
	if (r == 0 && !handed && c->cfd >= 0) {
		if (rename(c->tmp, c->path) < 0 || ck_sync_dir(c) < 0)
			r = -errno;
	}
	if (r < 0) {
		if (c->cfd >= 0) {
			/* The log itself is as it was. */
			ck_compact_drop(c);
			(void)ck_failed(c, "cannot write", r);
		} else {
			(void)ck_cut(c, "cannot write", r);
		}
		return;
	}
	if (len > 0) {
		free(c->meta_rates);
		c->meta_rates = strdup(c->d->sample_rates != NULL ?
		    c->d->sample_rates : "");
		c->meta_handle = registry_next_handle(reg);
		if (c->cfd < 0) {
			c->live += len;
			c->live -= c->meta_bytes < c->live ? c->meta_bytes :
			    c->live;
			c->meta_bytes = len;
		}
	}
	if (handed && c->cfd >= 0)
		return;		/* the rest when it is in place */
	if (c->cfd >= 0) {
		ck_compacted(c, len);
		/* Syncs under way are of the old file: everything they
		 * cover is in this one, synced. */
		c->gen++;
	}
	ck_pass_saved(c);
	if (handed)
		return;
	c->rewrite = false;
	ck_ok(c);
	/* The changes waiting on the thread too: their records are in
	 * what was just synced. */
	ck_all_durable(c);
}

/* One slice of the pass: kstats whose blob changed (a compaction: every
 * kept kstat), up to CKPT_SLICE_BYTES. Returns: whether it is over. */
static bool
ck_pass_step(struct checkpoint *c)
{
	struct registry *reg = c->d->reg;
	struct reg_kstat *k;
	uint64_t written = 0, w;

	/* Kstats made behind the cursor meanwhile were written when they
	 * were made (checkpoint_kstat_put), to a compaction's log too. */
	k = c->at_start ? registry_kstat_seek(reg, NULL, 0, NULL, false) :
	    registry_kstat_seek(reg, c->cur_module, c->cur_instance,
	    c->cur_name, true);
	for (; k != NULL && written < CKPT_SLICE_BYTES;
	    k = registry_kstat_after(reg, k)) {
		c->at_start = false;
		snprintf(c->cur_module, sizeof(c->cur_module), "%s",
		    k->hdr.module);
		snprintf(c->cur_name, sizeof(c->cur_name), "%s", k->hdr.name);
		c->cur_instance = k->hdr.instance;
		if (!ck_kept(c, k) || (c->cfd < 0 && k->ckpt_saved ==
		    k->changes && k->ckpt_bytes != 0))
			continue;
		/* Removed for good once its record is durable: a new log
		 * has no record of it. */
		if (k->dormant && k->ckpt_deleting == CKPT_DEL_DROP)
			continue;
		w = ck_pass_one(c, k);
		if (w == 0) {
			ck_pass_end(c, false);
			return true;
		}
		written += w;
	}
	if (k != NULL)
		return false;
	ck_pass_end(c, true);
	return true;
}

static void
ck_pass_begin(struct checkpoint *c)
{
	static const struct timeval zero = { 0, 0 };

	if (c->swapping) {
		/* The last compaction is not in place yet: later. */
		ck_arm(c);
		return;
	}
	if (c->passing || ck_open_how(c, true) < 0)
		return;
	if (c->compact_now || c->rewrite ||
	    c->size > 2 * c->live + CKPT_COMPACT_MIN)
		ck_compact_begin(c);
	if (c->cfd < 0 && c->compact_now) {
		/* Nothing may be appended to a version 1 file. */
		(void)ck_failed(c, "cannot rewrite", -EIO);
		return;
	}
	c->passing = true;
	c->at_start = true;
	if (!ck_pass_step(c))
		event_add(c->ev_step, &zero);
}

void
ck_step_cb(evutil_socket_t fd, short what, void *arg)
{
	static const struct timeval zero = { 0, 0 };
	struct checkpoint *c = arg;

	(void)fd;
	(void)what;
	if (c->passing && !ck_pass_step(c))
		event_add(c->ev_step, &zero);
}

void
ck_tick_cb(evutil_socket_t fd, short what, void *arg)
{
	struct checkpoint *c = arg;

	(void)fd;
	(void)what;
	ck_pass_begin(c);
	/* A failing state directory is tried again; otherwise the next
	 * pass waits for checkpoint_tick_wake(), so that an idle statsd
	 * wakes for nothing. */
	if (c->why[0] != '\0' && !event_pending(c->ev_tick, EV_TIMEOUT, NULL))
		ck_arm(c);
}

void
checkpoint_tick_wake(struct checkpoint *c)
{
	if (c != NULL && !event_pending(c->ev_tick, EV_TIMEOUT, NULL))
		ck_arm(c);
}

int
checkpoint_write(struct checkpoint *c)
{
	int r;

	/* Synced here, before returning: what the thread has under way
	 * first. */
	if (c->syncer != NULL)
		syncer_drain(c->syncer);
	c->inline_sync = true;
	r = ck_write_now(c);
	c->inline_sync = false;
	return r;
}

static int
ck_write_now(struct checkpoint *c)
{
	if (c->passing) {
		/* Finish the pass under way at once (at exit). */
		while (!ck_pass_step(c))
			;
	}
	ck_pass_begin(c);
	while (c->passing && !ck_pass_step(c))
		;
	return c->why[0] != '\0' ? -EIO : 0;
}
