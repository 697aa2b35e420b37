/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * checkpoint.c: the checkpoint log (see checkpoint.h): framed records,
 * synced appends for each PERSISTENT create, revive, delete and removal,
 * the periodic pass that appends changed blobs (or compacts the log) in
 * slices, the state directory's health, and loading at start.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <jansson.h>
#include <zlib.h>

#include <statsd/kstat.h>

#include "b64.h"
#include "blob.h"
#include "checkpoint.h"
#include "crashpoint.h"
#include "daemon.h"
#include "journal.h"
#include "log.h"
#include "mirror.h"
#include "registry.h"
#include "statsd_line.h"
#include "syncer.h"
#include "zones.h"

#define CKPT_NAME	"statsd.checkpoint"
/* 3: "batch" records (KstatCreateMany). Version 2 logs are read and
 * rewritten. */
#define CKPT_VERSION	3
/* Handles given out after the last checkpoint are skipped on restart, so
 * a record left in a ring for a kstat that did not survive never lands
 * in a new one. */
#define CKPT_HANDLE_SKIP	65536u
/* The log is compacted past twice what it holds and this. */
#define CKPT_COMPACT_MIN	65536u
/* Bytes the periodic pass writes per loop turn. */
#define CKPT_SLICE_BYTES	(1u << 20)
/* A longer line is damage, not a record. */
#define CKPT_MAX_LINE		(8u << 20)
/* Runs of damage copied aside one by one at start; past that, the last
 * copy takes everything up to the end of the last run. */
#define CKPT_MAX_DAMAGE		16
/* After a failure, what must be written to call the log writable again
 * (a few pages: a write that fits in the slack of the log's last page
 * proves nothing of the room records need). */
#define CKPT_PROBE_BYTES	16384u

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
};

static void checkpoint_tick_cb(evutil_socket_t fd, short what, void *arg);
static void checkpoint_step_cb(evutil_socket_t fd, short what, void *arg);

/* --------------------------------------------------------------- framing */

/* The standard CRC-32 (ISO-HDLC, as gzip and PNG use it). */
static uint32_t
ck_crc32(const void *buf, size_t len)
{
	return (uint32_t)crc32(0L, (const Bytef *)buf, (uInt)len);
}

/* One record as its line: "<length> <crc32> <json>\n". */
static char *
ck_line(json_t *rec, size_t *ret_len)
{
	char *json = json_dumps(rec, JSON_COMPACT), *line;
	size_t n;
	int h;

	if (json == NULL)
		return NULL;
	n = strlen(json);
	line = malloc(n + 32);
	if (line == NULL) {
		free(json);
		return NULL;
	}
	h = snprintf(line, 32, "%zu %08" PRIx32 " ", n, ck_crc32(json, n));
	memcpy(line + h, json, n);
	line[h + n] = '\n';
	*ret_len = (size_t)h + n + 1;
	free(json);
	return line;
}

/* Bytes written to checkpoint files since start (Info). */
static uint64_t ck_written;

static int
ck_write_all(int fd, const char *p, size_t len)
{
	ck_written += len;
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Syncs of the state directory's files since start (Info): what a
 * batch of changes costs the disk. */
static uint64_t ck_syncs;

static int
ck_sync(int fd)
{
	ck_syncs++;
	return fdatasync(fd);
}

/* One record's line to the log. With a crash point armed, in two
 * writes, so that a test can stop statsd between them as a crash in the
 * middle of a write would: a torn last record. */
static int
ck_write_rec(int fd, const char *line, size_t len)
{
	int r;

	if (crashpoint_armed == NULL || len < 2)
		return ck_write_all(fd, line, len);
	r = ck_write_all(fd, line, len / 2);
	crashpoint("log.torn");
	return r < 0 ? r : ck_write_all(fd, line + len / 2, len - len / 2);
}

/* -------------------------------------------------------------- records */

static json_t *
ck_kstat_rec(struct checkpoint *c, struct reg_kstat *k, bool dormant)
{
	const char *zc = zones_cgroup(c->d->zones, k->zone);
	const char *oc = zones_cgroup(c->d->zones, k->owner_zone);
	const struct statsblob *sb = registry_blob_peek(k);
	json_t *path = json_array(), *o;
	char seg[KS_PATH_MAX + 1], *b64;
	uint32_t i, np = ks_hdr_npseg(&k->hdr);

	for (i = 0; i < np; i++)
		if (ks_hdr_pseg(&k->hdr, i, seg, sizeof(seg)) == 0)
			json_array_append_new(path, json_string(seg));
	b64 = b64_encode(sb, k->size);
	if (b64 == NULL) {
		json_decref(path);
		return NULL;
	}
	o = json_pack("{s:s, s:I, s:s, s:i, s:s, s:s, s:i, s:I, s:I, s:s, "
	    "s:s, s:o, s:I, s:b, s:I, s:s}", "t", "kstat",
	    "handle", (json_int_t)k->handle, "module", k->hdr.module,
	    "instance", (int)k->hdr.instance, "name", k->hdr.name,
	    "class", k->hdr.class_, "type", (int)k->hdr.type,
	    "flags", (json_int_t)(k->hdr.flags & KS_FLAGS_CREATOR),
	    "owner", (json_int_t)k->owner, "template", k->tpl->spec,
	    "description", k->hdr.desc, "path", path,
	    "crtime", (json_int_t)k->hdr.crtime, "dormant", dormant,
	    "birth", (json_int_t)(k->storage != NULL ?
	    mirror_birth(mirror_of(k->storage)) : 0), "blob", b64);
	free(b64);
	/* Every zone's, a container's (by its cgroup, which names it
	 * after a restart too), or (absent) the global zone's; made by a
	 * container, or (absent) by the global zone. */
	if (o != NULL && k->zone == ZONE_ALL)
		json_object_set_new(o, "zone", json_integer(-1));
	if (o != NULL && zc != NULL)
		json_object_set_new(o, "zone_cgroup", json_string(zc));
	if (o != NULL && oc != NULL)
		json_object_set_new(o, "owner_cgroup", json_string(oc));
	if (o != NULL && reg_kstat_gz(k))
		json_object_set_new(o, "gz", json_true());
	/* kstat2's content type and scale, and ndata as given (absent:
	 * none, as in checkpoints written before them). */
	if (o != NULL && k->hdr.content != 0)
		json_object_set_new(o, "content",
		    json_integer(k->hdr.content));
	if (o != NULL && k->hdr.scale > 1)
		json_object_set_new(o, "scale", json_integer(
		    k->hdr.scale > INT64_MAX ? INT64_MAX :
		    (json_int_t)k->hdr.scale));
	if (o != NULL && k->ndata != 0)
		json_object_set_new(o, "ndata", json_integer(k->ndata));
	return o;
}

static json_t *
ck_template_rec(const struct reg_template *t)
{
	return json_pack("{s:s, s:I, s:O}", "t", "template", "owner",
	    (json_int_t)t->owner, "def", t->def);
}

static json_t *
ck_meta_rec(struct checkpoint *c)
{
	return json_pack("{s:s, s:I, s:s}", "t", "meta", "next_handle",
	    (json_int_t)registry_next_handle(c->d->reg), "sample_rates",
	    c->d->sample_rates != NULL ? c->d->sample_rates : "");
}

bool
checkpoint_outlives(const struct zones *z, uint32_t owner_zone,
    uint32_t zone)
{
	return zones_lasting(z, owner_zone) && zones_lasting(z, zone);
}

bool
checkpoint_outlives_statsd(const struct zones *z, const struct reg_kstat *k)
{
	return checkpoint_outlives(z, k->owner_zone, k->zone);
}

/* Is k one the checkpoint keeps? */
static bool
ck_kept(const struct checkpoint *c, const struct reg_kstat *k)
{
	return (k->hdr.flags & KSTAT_FLAG_PERSISTENT) &&
	    checkpoint_outlives_statsd(c->d->zones, k);
}

/* ----------------------------------------------------------- the state */

/* Note a failure to write: unusable until a write succeeds again. */
static int
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

static void
ck_ok(struct checkpoint *c)
{
	if (c->failing)
		log_notice("checkpoint %s written again; PERSISTENT kstats "
		    "are accepted", c->path);
	c->failing = false;
	c->why[0] = '\0';
}

static int
ck_sync_dir(struct checkpoint *c)
{
	int fd = open(c->d->state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int r = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0)
		r = -errno;
	close(fd);
	return r;
}

/* The log's first line. Returns: it (malloc'd), or NULL. */
static char *
ck_head(size_t *ret_len)
{
	json_t *head = json_pack("{s:s, s:i}", "format", "statsd-checkpoint",
	    "version", CKPT_VERSION);
	char *line = head != NULL ? ck_line(head, ret_len) : NULL;

	json_decref(head);
	return line;
}

/* Open the log for appending (making the state directory if needed, and
 * the log's head if it is new). Returns: 0; -errno with c->why set. */
static int
ck_open(struct checkpoint *c)
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
		head = ck_head(&len);
		r = head == NULL ? -ENOMEM : ck_write_all(fd, head, len);
		free(head);
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

/* ------------------------------------------------- durable off the loop */

/* Tell the changes waiting up to seq (all of them: UINT64_MAX) how they
 * ended. */
static void
ck_settle(struct checkpoint *c, uint64_t upto, int result)
{
	struct checkpoint_wait *w, *next;

	for (w = c->waiters; w != NULL; w = next) {
		next = w->next;
		if (w->seq > upto)
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

/* Everything appended is durable now (a sync in the loop). */
static void
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
static int
ck_cut(struct checkpoint *c, const char *what, int err)
{
	if (c->fd >= 0 && ftruncate(c->fd, (off_t)c->synced) == 0) {
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

/* The persistence thread synced req (in the loop). */
static void
ck_synced(void *arg, const struct syncer_req *req, int err)
{
	struct checkpoint *c = arg;

	/* The log was cut or replaced since: its waiters were told then. */
	if (req->gen != c->gen)
		return;
	if (err < 0) {
		(void)ck_cut(c, "cannot sync", err);
		return;
	}
	if (req->size > c->synced)
		c->synced = req->size;
	if (req->seq > c->seq_durable)
		c->seq_durable = req->seq;
	/* Durable, the callers not yet answered. */
	crashpoint("log.synced");
	ck_ok(c);
	ck_settle(c, c->seq_durable, 0);
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

int
checkpoint_wait(struct checkpoint *c, struct checkpoint_wait *w)
{
	struct syncer_req req = { c->seq, c->size, c->gen };
	int r;

	if (c->seq_durable >= c->seq)
		return 0;
	r = c->fd < 0 ? -EIO : syncer_request(c->syncer, c->fd, &req);
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

/* Are appends to be left unsynced (the thread syncs them)? */
static bool
ck_deferring(struct checkpoint *c)
{
	if (c->unsynced <= 0 || c->no_syncer)
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

/* Append records (NULL ends the list; each taken over) to the log, and
 * to the new log of a compaction in progress, and sync the log (unless
 * checkpoint_unsynced: then checkpoint_wait() has it synced).
 * *ret_len (may be NULL) gets each record's bytes. A failure cuts the log
 * back to what was synced. Returns: 0; -errno (logged). */
static int
ck_append(struct checkpoint *c, json_t **recs, size_t n, uint64_t *ret_len)
{
	size_t i, len;
	char *line;
	int r;

	r = ck_open(c);
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
		if (r == 0 && c->cfd >= 0 && ck_write_all(c->cfd, line,
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

/* ---------------------------------------------------- the synced appends */

int
checkpoint_kstat_put(struct checkpoint *c, struct reg_kstat *k, bool dormant)
{
	json_t *recs[2];
	uint64_t len[2];
	size_t n = 0;
	int r;

	if (!ck_kept(c, k))
		return 0;
	if (k->tpl->ckpt_bytes == 0)
		recs[n++] = ck_template_rec(k->tpl);
	recs[n++] = ck_kstat_rec(c, k, dormant);
	if (recs[n - 1] == NULL || (n == 2 && recs[0] == NULL)) {
		while (n-- > 0)
			json_decref(recs[n]);
		return -ENOMEM;
	}
	r = ck_append(c, recs, n, len);
	if (r < 0)
		return r;
	if (n == 2) {
		k->tpl->ckpt_bytes = len[0];
		c->live += len[0];
		/* The compaction under way has it too. */
		k->tpl->ckpt_gen = c->cgen;
		k->tpl->ckpt_pending = len[0];
	}
	c->live += len[n - 1];
	c->live -= k->ckpt_bytes < c->live ? k->ckpt_bytes : c->live;
	k->ckpt_bytes = len[n - 1];
	if (c->cfd >= 0)
		k->ckpt_pbytes = len[n - 1];
	k->ckpt_saved = k->ckpt_pending = k->changes;
	return 0;
}

int
checkpoint_kstats_put(struct checkpoint *c, struct reg_kstat **ks, size_t n)
{
	struct reg_template **tpls = NULL;
	json_t *batch, *recs, *rec;
	size_t i, j, nt = 0, nk = 0;
	uint64_t len, share;
	int r = -ENOMEM;

	batch = json_pack("{s:s, s:[]}", "t", "batch", "recs");
	recs = json_object_get(batch, "recs");
	tpls = calloc(n + 1, sizeof(*tpls));
	if (batch == NULL || tpls == NULL)
		goto fail;
	/* The templates the log lacks, once each, before their kstats. */
	for (i = 0; i < n; i++) {
		if (ks[i] == NULL || !ck_kept(c, ks[i]) ||
		    ks[i]->tpl->ckpt_bytes != 0)
			continue;
		for (j = 0; j < nt && tpls[j] != ks[i]->tpl; j++)
			;
		if (j < nt)
			continue;
		tpls[nt++] = ks[i]->tpl;
		rec = ck_template_rec(ks[i]->tpl);
		if (rec == NULL || json_array_append_new(recs, rec) < 0)
			goto fail;
	}
	for (i = 0; i < n; i++) {
		if (ks[i] == NULL || !ck_kept(c, ks[i]))
			continue;
		rec = ck_kstat_rec(c, ks[i], false);
		if (rec == NULL || json_array_append_new(recs, rec) < 0)
			goto fail;
		nk++;
	}
	if (nk == 0) {
		json_decref(batch);
		free(tpls);
		return 0;
	}
	r = ck_append(c, &batch, 1, &len);
	batch = NULL;
	if (r < 0)
		goto fail;
	/* Each thing's share of the line, as checkpoint_load counts it. */
	share = len / (nt + nk);
	for (j = 0; j < nt; j++) {
		tpls[j]->ckpt_bytes = share;
		c->live += share;
		tpls[j]->ckpt_gen = c->cgen;
		tpls[j]->ckpt_pending = share;
	}
	for (i = 0; i < n; i++) {
		if (ks[i] == NULL || !ck_kept(c, ks[i]))
			continue;
		c->live += share;
		c->live -= ks[i]->ckpt_bytes < c->live ? ks[i]->ckpt_bytes :
		    c->live;
		ks[i]->ckpt_bytes = share;
		if (c->cfd >= 0)
			ks[i]->ckpt_pbytes = share;
		ks[i]->ckpt_saved = ks[i]->ckpt_pending = ks[i]->changes;
	}
	free(tpls);
	return 0;
fail:
	json_decref(batch);
	free(tpls);
	return r;
}

int
checkpoint_kstat_drop(struct checkpoint *c, struct reg_kstat *k)
{
	json_t *rec;
	int r;

	if (!ck_kept(c, k) || k->ckpt_bytes == 0)
		return 0;
	rec = json_pack("{s:s, s:I}", "t", "kstat-", "handle",
	    (json_int_t)k->handle);
	if (rec == NULL)
		return -ENOMEM;
	r = ck_append(c, &rec, 1, NULL);
	if (r == 0) {
		c->live -= k->ckpt_bytes < c->live ? k->ckpt_bytes : c->live;
		k->ckpt_bytes = 0;
	}
	return r;
}

/* ------------------------------------------------------ the periodic pass */

static void
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

/* Write one kstat's record to the new log (or the log). Returns: its
 * bytes; 0 on failure. */
static uint64_t
ck_pass_one(struct checkpoint *c, struct reg_kstat *k)
{
	int fd = c->cfd >= 0 ? c->cfd : c->fd;
	uint64_t total = 0;
	size_t len;
	char *line;
	json_t *rec;

	/* Its template first, if the log (or the new log) lacks it. */
	if (c->cfd >= 0 ? k->tpl->ckpt_gen != c->cgen :
	    k->tpl->ckpt_bytes == 0) {
		rec = ck_template_rec(k->tpl);
		line = rec != NULL ? ck_line(rec, &len) : NULL;
		json_decref(rec);
		if (line == NULL || ck_write_all(fd, line, len) < 0) {
			free(line);
			return 0;
		}
		free(line);
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
	rec = ck_kstat_rec(c, k, k->dormant);
	line = rec != NULL ? ck_line(rec, &len) : NULL;
	json_decref(rec);
	if (line == NULL || ck_write_all(fd, line, len) < 0) {
		free(line);
		return 0;
	}
	free(line);
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

/* The pass is over: sync (and, for a compaction, put the new log in
 * place). */
static void
ck_pass_end(struct checkpoint *c, bool ok)
{
	struct registry *reg = c->d->reg;
	struct reg_template **tpls;
	struct reg_kstat **ks;
	size_t n, i;
	json_t *meta;
	char *line = NULL;
	size_t len = 0;
	int fd = c->cfd >= 0 ? c->cfd : c->fd, r = ok ? 0 : -EIO;

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
	}
	json_decref(meta);
	free(line);
	if (r == 0 && ck_sync(fd) < 0)
		r = -errno;
	if (r == 0 && c->cfd >= 0) {
		if (rename(c->tmp, c->path) < 0 || ck_sync_dir(c) < 0)
			r = -errno;
	}
	if (r < 0) {
		if (c->cfd >= 0) {
			/* The log itself is as it was. */
			close(c->cfd);
			c->cfd = -1;
			(void)unlink(c->tmp);
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
	}
	if (c->cfd >= 0) {
		close(c->fd);
		c->fd = c->cfd;
		c->cfd = -1;
		/* Syncs under way are of the old file: everything they
		 * cover is in this one, synced. */
		c->gen++;
		c->size = c->csize + len;
		c->live = c->clive + len;
		c->meta_bytes = len;
		c->compactions++;
		c->compact_now = false;
		/* Templates not written are not in the log any more. */
		n = registry_templates(reg, &tpls);
		for (i = 0; i < n; i++)
			tpls[i]->ckpt_bytes = tpls[i]->ckpt_gen == c->cgen ?
			    tpls[i]->ckpt_pending : 0;
	} else if (len > 0) {
		c->live += len;
		c->live -= c->meta_bytes < c->live ? c->meta_bytes : c->live;
		c->meta_bytes = len;
	}
	n = registry_kstats(reg, &ks);
	for (i = 0; i < n; i++) {
		ks[i]->ckpt_saved = ks[i]->ckpt_pending;
		if (ks[i]->ckpt_pbytes != 0) {
			ks[i]->ckpt_bytes = ks[i]->ckpt_pbytes;
			ks[i]->ckpt_pbytes = 0;
		}
	}
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
	    k = registry_kstat_after(k)) {
		c->at_start = false;
		snprintf(c->cur_module, sizeof(c->cur_module), "%s",
		    k->hdr.module);
		snprintf(c->cur_name, sizeof(c->cur_name), "%s", k->hdr.name);
		c->cur_instance = k->hdr.instance;
		if (!ck_kept(c, k) || (c->cfd < 0 && k->ckpt_saved ==
		    k->changes && k->ckpt_bytes != 0))
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

	if (c->passing || ck_open(c) < 0)
		return;
	if (c->compact_now || c->size > 2 * c->live + CKPT_COMPACT_MIN)
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

static void
checkpoint_step_cb(evutil_socket_t fd, short what, void *arg)
{
	static const struct timeval zero = { 0, 0 };
	struct checkpoint *c = arg;

	(void)fd;
	(void)what;
	if (c->passing && !ck_pass_step(c))
		event_add(c->ev_step, &zero);
}

static void
checkpoint_tick_cb(evutil_socket_t fd, short what, void *arg)
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

/* ------------------------------------------------------------ the object */

int
checkpoint_new(struct statsd *d, struct checkpoint **ret)
{
	struct checkpoint *c;

	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->d = d;
	c->fd = c->cfd = -1;
	if (strlen(d->state_dir) + 32 >= sizeof(c->path)) {
		free(c);
		return -ENAMETOOLONG;
	}
	snprintf(c->path, sizeof(c->path), "%s/" CKPT_NAME, d->state_dir);
	snprintf(c->tmp, sizeof(c->tmp), "%s/" CKPT_NAME ".tmp",
	    d->state_dir);
	c->ev_tick = evtimer_new(d->base, checkpoint_tick_cb, c);
	c->ev_step = evtimer_new(d->base, checkpoint_step_cb, c);
	if (c->ev_tick == NULL || c->ev_step == NULL) {
		if (c->ev_tick != NULL)
			event_free(c->ev_tick);
		free(c);
		return -ENOMEM;
	}
	event_priority_set(c->ev_tick, PRIO_CONTROL);
	event_priority_set(c->ev_step, PRIO_CONTROL);
	ck_arm(c);
	*ret = c;
	return 0;
}

struct checkpoint *
checkpoint_free(struct checkpoint *c)
{
	if (c == NULL)
		return NULL;
	event_free(c->ev_tick);
	event_free(c->ev_step);
	if (c->cfd >= 0) {
		close(c->cfd);
		(void)unlink(c->tmp);
	}
	c->syncer = syncer_free(c->syncer);
	/* Changes still waiting: statsd is going; whether their records
	 * are durable is for the next start to find out. */
	ck_settle(c, UINT64_MAX, -ECANCELED);
	if (c->fd >= 0)
		close(c->fd);
	free(c->meta_rates);
	free(c);
	return NULL;
}

bool
checkpoint_status(const struct checkpoint *c, const char **ret_why)
{
	bool usable = c->fd >= 0 && c->why[0] == '\0';

	if (ret_why != NULL)
		*ret_why = c->why;
	return usable;
}

json_t *
checkpoint_to_json(struct checkpoint *c)
{
	return json_pack("{s:s, s:b, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
	    "state_dir", c->d->state_dir, "usable", checkpoint_status(c, NULL),
	    "error", c->why, "log_bytes", (json_int_t)c->size, "live_bytes",
	    (json_int_t)c->live, "compactions", (json_int_t)c->compactions,
	    "written_bytes", (json_int_t)ck_written, "syncs",
	    (json_int_t)(ck_syncs + (c->syncer != NULL ?
	    syncer_count(c->syncer) : 0)), "damaged_records",
	    (json_int_t)c->damaged_records, "damaged_bytes",
	    (json_int_t)c->damaged_bytes);
}

/* ----------------------------------------------------------------- loading */

static void
ck_set_aside(struct checkpoint *c, const char *why)
{
	char bad[PATH_MAX + 8];

	snprintf(bad, sizeof(bad), "%s.bad", c->path);
	log_error("checkpoint %s: %s; set aside as %s, starting empty",
	    c->path, why, bad);
	(void)rename(c->path, bad);
}

/*
 * Damaged bytes of the log at start: copied aside, beside the log, to
 * <log>.damaged-<seconds>-<offset> (an operator may piece a record back
 * from it), logged and counted in Info. f is the log.
 */
static void
ck_damaged(struct checkpoint *c, FILE *f, uint64_t off, uint64_t len,
    unsigned lines, const char *what)
{
	char aside[PATH_MAX + 64], buf[65536];
	uint64_t done = 0;
	ssize_t n;
	int fd;

	c->damaged_records += lines;
	c->damaged_bytes += len;
	snprintf(aside, sizeof(aside), "%s.damaged-%lld-%" PRIu64, c->path,
	    (long long)time(NULL), off);
	fd = open(aside, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
	    0600);
	while (fd >= 0 && done < len) {
		n = pread(fileno(f), buf, len - done < sizeof(buf) ?
		    (size_t)(len - done) : sizeof(buf), (off_t)(off + done));
		if (n <= 0 || ck_write_all(fd, buf, (size_t)n) < 0)
			break;
		done += (uint64_t)n;
	}
	if (fd >= 0 && (done < len || fdatasync(fd) < 0)) {
		close(fd);
		(void)unlink(aside);
		fd = -1;
	}
	if (fd >= 0)
		close(fd);
	log_error("checkpoint %s: %u damaged record%s at byte %" PRIu64
	    " (%" PRIu64 " bytes) %s; copied aside: %s", c->path, lines, lines == 1 ?
	    "" : "s", off, len, what, fd >= 0 ? aside :
	    "none (it could not be written)");
}

/* An optional integer field of a record: def if absent, else clamped to
 * lo..hi (a value out of range is as bad as any: the header's checks
 * refuse what the clamp lets through). */
static json_int_t
ck_int(json_t *o, const char *key, json_int_t def, json_int_t lo,
    json_int_t hi)
{
	json_t *v = json_object_get(o, key);
	json_int_t i;

	if (!json_is_integer(v))
		return def;
	i = json_integer_value(v);
	return i < lo ? lo : i > hi ? hi : i;
}

/* Restore one template a kept kstat uses. Returns: NULL, or why not. */
static const char *
ck_load_template(struct checkpoint *c, json_t *rec, uint64_t bytes)
{
	json_int_t owner = json_integer_value(json_object_get(rec, "owner"));
	json_t *def = json_object_get(rec, "def");
	struct reg_owner o = { (uid_t)owner, true, true };
	struct quota_refusal refusal;
	struct reg_template *t;
	struct input_error terr;
	bool created;

	if (!json_is_object(def) || owner < 0 || owner > UINT32_MAX)
		return "malformed template";
	if (registry_template_add(c->d->reg, def, &o, &t, &created, &terr, &refusal) < 0)
		return "its definition is refused";
	t->ckpt_bytes = bytes;
	return NULL;
}

/* The zone a kstat record names by its cgroup (cg: a string, or NULL
 * for the global zone), with a reference. Returns: NULL, or why not. */
static const char *
ck_load_zone(struct checkpoint *c, json_t *cg, uint32_t *ret)
{
	*ret = ZONE_GLOBAL;
	if (cg == NULL)
		return NULL;
	switch (zones_of_name(c->d->zones, json_string_value(cg), ret)) {
	case 0:
		return NULL;
	case -ENOMEM:
		return "out of memory";
	default:
		return "its zone's cgroup is not a cgroup path";
	}
}

/* Restore one PERSISTENT kstat. Returns: NULL, or why it was skipped (a
 * static string). */
static const char *
ck_load_kstat(struct checkpoint *c, json_t *o, uint64_t bytes,
    uint32_t *max_handle)
{
	struct registry *reg = c->d->reg;
	const char *pseg[KS_NPSEG_MAX];
	struct reg_kstat_new n;
	struct kstat_hdr hdr;
	struct mirror *m = NULL;
	struct reg_template *t;
	struct quota_refusal refusal;
	struct reg_kstat *k;
	struct input_error kerr;
	json_int_t handle, instance, type, flags, owner, crtime, birth;
	const char *module, *name, *class_, *spec, *desc, *b64, *zwhy;
	json_t *path, *e, *zone_cg, *owner_cg;
	uint32_t zone = ZONE_GLOBAL, owner_zone = ZONE_GLOBAL;
	void *buf = NULL;
	bool revived, from_file = false;
	size_t i;
	long len = 0;
	int dormant = 0, r;

	if (json_unpack(o, "{s:I, s:s, s:I, s:s, s:s, s:I, s:I, s:I, s:s, "
	    "s:s, s:o, s:I, s:b, s:I, s:s}", "handle", &handle,
	    "module", &module, "instance", &instance, "name", &name,
	    "class", &class_, "type", &type, "flags", &flags,
	    "owner", &owner, "template", &spec, "description", &desc,
	    "path", &path, "crtime", &crtime, "dormant", &dormant,
	    "birth", &birth, "blob", &b64) != 0)
		return "malformed entry";
	/* crtime is CLOCK_MONOTONIC nanoseconds: never negative. */
	if (handle <= 0 || handle > UINT32_MAX || instance < 0 ||
	    instance > INT32_MAX || type < 0 || type >= KSTAT_NUM_TYPES ||
	    owner < 0 || owner > UINT32_MAX || !json_is_array(path) ||
	    json_array_size(path) > KS_NPSEG_MAX || crtime < 0 || birth < 0)
		return "field out of range";
	/* Its owner's template of that spec, as when it was made (names
	 * are per owner); else another's it was made from. */
	t = registry_template_find_owned(reg, spec, (uid_t)owner);
	if (t == NULL)
		t = registry_template_find(reg, spec);
	if (t == NULL || strcmp(t->spec, spec) != 0)
		return "its template is gone";
	zone_cg = json_object_get(o, "zone_cgroup");
	owner_cg = json_object_get(o, "owner_cgroup");
	if ((zone_cg != NULL && !json_is_string(zone_cg)) ||
	    (owner_cg != NULL && !json_is_string(owner_cg)))
		return "malformed zone";
	json_array_foreach(path, i, e) {
		if (!json_is_string(e))
			return "malformed path";
		pseg[i] = json_string_value(e);
	}
	if (ks_hdr_new(&hdr, module, (int32_t)instance, name, class_,
	    (uint8_t)type, (uint32_t)flags, pseg, (uint32_t)json_array_size(path),
	    desc[0] != '\0' ? desc : NULL, &kerr) < 0 ||
	    ks_hdr_set_content(&hdr, (uint8_t)ck_int(o, "content", 0, 0,
	    UINT8_MAX), (uint64_t)ck_int(o, "scale", 1, 1, INT64_MAX),
	    &kerr) < 0)
		return "a bad name or header";
	if (c->d->persist_dir != NULL && mirror_open(c->d->persist_dir,
	    (uint32_t)handle, (uint64_t)birth, &m) == 0) {
		journal_undo_recover(c->d->journal, (uint32_t)handle,
		    mirror_blob(m), mirror_size(m));
		if (stats_blob_validate(mirror_blob(m),
		    mirror_size(m)) != 0) {
			mirror_close(m);
			m = NULL;
		}
		from_file = m != NULL;
	}
	if (m == NULL) {
		/* After a reboot (or a damaged file): the checkpoint's copy. */
		buf = malloc(BLOB_STORAGE_CAP);
		if (buf == NULL)
			return "out of memory";
		len = b64_decode(b64, buf, BLOB_STORAGE_CAP);
		if (len <= 0 || stats_blob_validate(buf, (size_t)len) != 0) {
			free(buf);
			return "its blob does not validate";
		}
		r = c->d->persist_dir != NULL ? mirror_create(
		    c->d->persist_dir, (uint32_t)handle, buf, (uint32_t)len,
		    &m) : -ENOENT;
		if (r < 0)
			log_warning("checkpoint: kstat %s:%d:%s comes back "
			    "without a runtime file (%s): updates since the "
			    "last checkpoint are lost if statsd is killed",
			    module, (int)instance, name, strerror(-r));
	}
	/* A container's zone, found again by its cgroup (a reference each,
	 * dropped below: the kstat takes its own). */
	zwhy = ck_load_zone(c, zone_cg, &zone);
	if (zwhy == NULL)
		zwhy = ck_load_zone(c, owner_cg, &owner_zone);
	if (zwhy != NULL) {
		zones_unref(c->d->zones, zone);
		mirror_close(m);
		free(buf);
		return zwhy;
	}
	if (zone_cg == NULL && json_integer_value(json_object_get(o,
	    "zone")) == -1)
		zone = ZONE_ALL;
	memset(&n, 0, sizeof(n));
	n.hdr = &hdr;
	n.owner = (uid_t)owner;
	n.owner_zone = owner_zone;
	n.zone = zone;
	n.gz = json_is_true(json_object_get(o, "gz"));
	n.tpl = t;
	n.ndata = (uint32_t)ck_int(o, "ndata", 0, 0, UINT32_MAX);
	n.handle = (uint32_t)handle;
	n.crtime = (uint64_t)crtime;
	n.storage = m != NULL ? mirror_storage(m) : NULL;
	n.blob = m != NULL ? mirror_blob(m) : buf;
	n.blob_size = m != NULL ? mirror_size(m) : (uint32_t)len;
	n.dormant = dormant != 0;
	n.restoring = true;
	r = registry_kstat_create(reg, &n, &k, &revived, &refusal);
	zones_unref(c->d->zones, zone);
	zones_unref(c->d->zones, owner_zone);
	free(buf);
	if (r < 0) {
		mirror_close(m);
		return "refused by the store";
	}
	k->ckpt_bytes = bytes;
	/* The runtime file is ahead of the log (updates after its last
	 * pass): the next pass writes it. */
	if (from_file)
		k->changes++;
	if ((uint32_t)handle > *max_handle)
		*max_handle = (uint32_t)handle;
	return NULL;
}

/* The last record about each thing: a template by name, a kstat by
 * handle, with its line's bytes. */
struct ck_replay {
	json_t		*tpls;		/* name -> [rec, bytes] */
	json_t		*kstats;	/* handle -> [rec, bytes] */
	json_t		*meta;		/* the last meta record */
	uint64_t	 meta_bytes;
	unsigned	 records;
	int		 version;	/* the head's; 0 if it was damaged */
	/* Runs of damaged lines with good records after them. */
	struct ck_damage {
		uint64_t	 off, len;
		unsigned	 lines;
	}		 damage[CKPT_MAX_DAMAGE];
	size_t		 ndamage;
};

static void
ck_replay_sub(struct ck_replay *rp, json_t *rec, uint64_t bytes,
    int nested)
{
	const char *t = json_string_value(json_object_get(rec, "t"));
	json_int_t h;
	char key[16];

	rp->records++;
	if (t == NULL)
		return;
	if (strcmp(t, "meta") == 0) {
		json_decref(rp->meta);
		rp->meta = json_incref(rec);
		rp->meta_bytes = bytes;
	} else if (strcmp(t, "template") == 0) {
		const char *name = json_string_value(json_object_get(
		    json_object_get(rec, "def"), "name"));

		if (name != NULL)
			json_object_set_new(rp->tpls, name, json_pack("[O, I]",
			    rec, (json_int_t)bytes));
	} else if (strcmp(t, "batch") == 0 && nested == 0) {
		/* KstatCreateMany's kstats (and the templates they use): one
		 * line, so all of them or none. Each gets an equal share of
		 * the line's bytes, as checkpoint_kstats_put counts them. */
		json_t *recs = json_object_get(rec, "recs"), *e;
		size_t i, nr = json_array_size(recs);

		rp->records--;
		json_array_foreach(recs, i, e)
			if (json_is_object(e))
				ck_replay_sub(rp, e, bytes / nr, 1);
	} else if (strcmp(t, "kstat") == 0 || strcmp(t, "kstat-") == 0) {
		h = json_integer_value(json_object_get(rec, "handle"));
		snprintf(key, sizeof(key), "%lld", (long long)h);
		if (strcmp(t, "kstat") == 0)
			json_object_set_new(rp->kstats, key, json_pack("[O, I]",
			    rec, (json_int_t)bytes));
		else
			json_object_del(rp->kstats, key);
	}
}

static void
ck_replay_rec(struct ck_replay *rp, json_t *rec, uint64_t bytes)
{
	ck_replay_sub(rp, rec, bytes, 0);
}

/* A record's line, checked: its frame (length, CRC-32) and its JSON.
 * Returns: the record; NULL for damage. */
static json_t *
ck_parse_line(const char *line, size_t n)
{
	unsigned long long len;
	unsigned crc;
	int skip = 0;
	json_t *rec;

	if (n > CKPT_MAX_LINE || line[n - 1] != '\n' ||
	    sscanf(line, "%llu %8x %n", &len, &crc, &skip) != 2 ||
	    skip == 0 || (size_t)skip + len + 1 != n ||
	    ck_crc32(line + skip, (size_t)len) != crc)
		return NULL;
	rec = json_loadb(line + skip, (size_t)len, JSON_REJECT_DUPLICATES,
	    NULL);
	if (!json_is_object(rec)) {
		json_decref(rec);
		return NULL;
	}
	return rec;
}

/* Note a run of damaged lines at off: kept for copying aside. */
static void
ck_damage_add(struct ck_replay *rp, uint64_t off, uint64_t len,
    unsigned lines)
{
	struct ck_damage *d;

	if (rp->ndamage == CKPT_MAX_DAMAGE) {
		/* Past that, the last one grows to the end of the next. */
		d = &rp->damage[rp->ndamage - 1];
		d->len = off + len - d->off;
		d->lines += lines;
		return;
	}
	d = &rp->damage[rp->ndamage++];
	d->off = off;
	d->len = len;
	d->lines = lines;
}

/*
 * Read the log's records. A line that fails its frame, CRC or JSON is
 * damage: followed by a good record, it is skipped and noted in
 * rp->damage (the records after it are kept); at the end, it is the
 * tail, *ret_good stops before it and *ret_tail_whole says whether its
 * last line ended (a line cut short is a write a crash interrupted).
 * Returns: 0 with *ret_good the bytes up to the end of the last good
 * record; -EBADMSG (not a checkpoint, or another version); -errno.
 */
static int
ck_read_log(FILE *f, struct ck_replay *rp, uint64_t *ret_good,
    bool *ret_tail_whole)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	uint64_t good = 0, pos = 0, bad_at = UINT64_MAX;
	unsigned bad_lines = 0;
	bool first = true, whole = false;
	int r = 0;

	while ((n = getline(&line, &cap, f)) > 0) {
		json_t *rec = ck_parse_line(line, (size_t)n), *v;

		if (rec == NULL) {
			if (bad_at == UINT64_MAX) {
				bad_at = pos;
				bad_lines = 0;
			}
			bad_lines++;
			whole = line[n - 1] == '\n';
			pos += (uint64_t)n;
			continue;
		}
		if (bad_at != UINT64_MAX) {
			ck_damage_add(rp, bad_at, pos - bad_at, bad_lines);
			bad_at = UINT64_MAX;
		}
		v = json_object_get(rec, "version");
		if (first && json_is_integer(v)) {
			/* The head: a version this statsd reads. */
			rp->version = (int)json_integer_value(v);
			if (rp->version < 2 || rp->version > CKPT_VERSION) {
				json_decref(rec);
				r = -EBADMSG;
				break;
			}
		} else if (first && rp->ndamage == 0) {
			/* Framed, but no head: not a statsd checkpoint. */
			json_decref(rec);
			r = -EBADMSG;
			break;
		} else {
			/* (After a damaged head: its records still are.) */
			ck_replay_rec(rp, rec, (uint64_t)n);
		}
		first = false;
		json_decref(rec);
		pos += (uint64_t)n;
		good = pos;
	}
	free(line);
	if (n < 0 && ferror(f))
		r = r < 0 ? r : -EIO;
	/* Nothing but damage: not a checkpoint, unless it is one line, the
	 * head cut short when the log was made. */
	if (r == 0 && first && bad_at != UINT64_MAX && (bad_lines > 1 ||
	    whole))
		r = -EBADMSG;
	*ret_good = good;
	*ret_tail_whole = bad_at != UINT64_MAX && whole;
	return r;
}

/* A version 1 checkpoint: one object with every template and kstat. */
static int
ck_read_v1(FILE *f, struct ck_replay *rp)
{
	json_t *root = json_loadf(f, JSON_REJECT_DUPLICATES, NULL), *e;
	size_t i;

	if (!json_is_object(root) || json_integer_value(json_object_get(root,
	    "version")) != 1 || !json_is_array(json_object_get(root,
	    "templates")) || !json_is_array(json_object_get(root,
	    "kstats"))) {
		json_decref(root);
		return -EBADMSG;
	}
	json_array_foreach(json_object_get(root, "templates"), i, e) {
		json_t *rec = json_pack("{s:s, s:I, s:O}", "t", "template",
		    "owner", (json_int_t)0, "def", e);

		ck_replay_rec(rp, rec, 0);
		json_decref(rec);
	}
	json_array_foreach(json_object_get(root, "kstats"), i, e) {
		json_object_set_new(e, "t", json_string("kstat"));
		ck_replay_rec(rp, e, 0);
	}
	e = json_pack("{s:s, s:O, s:O}", "t", "meta", "next_handle",
	    json_object_get(root, "next_handle"), "sample_rates",
	    json_object_get(root, "sample_rates"));
	ck_replay_rec(rp, e, 0);
	json_decref(e);
	json_decref(root);
	return 0;
}

/* Apply what the replay found: the templates kept kstats use, the
 * kstats, the meta. */
static void
ck_apply(struct checkpoint *c, struct ck_replay *rp)
{
	struct registry *reg = c->d->reg;
	uint32_t max_handle = 0;
	unsigned nk = 0, nt = 0;
	const char *key, *rates = "", *why;
	json_int_t next = 0;
	json_t *v;

	json_object_foreach(rp->tpls, key, v) {
		/* statsd's own kstats' templates ("statsd.*": sysks.c,
		 * series.c) are made at every start, as this statsd defines
		 * them; one kept from an older statsd would hold its name
		 * with an older definition. A series template of an older
		 * layout (series.c names each layout by a digest of it)
		 * comes back, so that the PERSISTENT series made from it
		 * keep their data; this statsd's own is made already. */
		if (strncmp(key, "statsd.", 7) == 0 && (sl_tpl_type(key) < 0 ||
		    registry_template_find_owned(reg, key, (uid_t)
		    json_integer_value(json_object_get(json_array_get(v, 0),
		    "owner"))) != NULL))
			continue;
		why = ck_load_template(c, json_array_get(v, 0),
		    (uint64_t)json_integer_value(json_array_get(v, 1)));
		if (why != NULL)
			log_error("checkpoint: template %s not restored: %s",
			    key, why);
		else
			nt++;
	}
	json_object_foreach(rp->kstats, key, v) {
		why = ck_load_kstat(c, json_array_get(v, 0),
		    (uint64_t)json_integer_value(json_array_get(v, 1)),
		    &max_handle);
		if (why != NULL)
			log_error("checkpoint: kstat handle %s not restored: %s",
			    key, why);
		else
			nk++;
	}
	if (rp->meta != NULL) {
		next = json_integer_value(json_object_get(rp->meta,
		    "next_handle"));
		if (json_is_string(json_object_get(rp->meta, "sample_rates")))
			rates = json_string_value(json_object_get(rp->meta,
			    "sample_rates"));
	}
	free(c->d->sample_rates);
	c->d->sample_rates = strdup(rates);
	if (next > 0 && next <= UINT32_MAX)
		registry_raise_next_handle(reg, (uint32_t)next);
	registry_raise_next_handle(reg, max_handle + 1);
	if (UINT32_MAX - registry_next_handle(reg) > CKPT_HANDLE_SKIP)
		registry_raise_next_handle(reg, registry_next_handle(reg) +
		    CKPT_HANDLE_SKIP);
	log_info("restored %u templates and %u PERSISTENT kstats from %s "
	    "(%u records)", nt, nk, c->path, rp->records);
}

/* Does the log (as replayed, in rp->kstats) name a kstat of handle? */
static int
ck_names_handle(void *arg, uint32_t handle)
{
	struct ck_replay *rp = arg;
	char key[16];

	snprintf(key, sizeof(key), "%" PRIu32, handle);
	return json_object_get(rp->kstats, key) != NULL;
}

int
checkpoint_load(struct checkpoint *c)
{
	struct ck_replay rp = { 0 };
	struct reg_template **tpls;
	struct reg_kstat **ks;
	struct stat st;
	uint64_t good = 0;
	bool v1 = false, tail_whole = false;
	size_t i, n;
	FILE *f;
	int ch, r;

	f = fopen(c->path, "re");
	if (f == NULL) {
		if (errno != ENOENT) {
			/* There may be kstats in it: never write over it. */
			c->unread = true;
			snprintf(c->why, sizeof(c->why), "cannot read %s: %s",
			    c->path, strerror(errno));
			log_error("checkpoint: %s; PERSISTENT kstats are "
			    "refused until statsd restarts", c->why);
		}
		(void)ck_open(c);
		return 0;
	}
	rp.tpls = json_object();
	rp.kstats = json_object();
	if (rp.tpls == NULL || rp.kstats == NULL) {
		fclose(f);
		json_decref(rp.tpls);
		json_decref(rp.kstats);
		return -ENOMEM;
	}
	ch = getc(f);
	v1 = ch == '{';
	if (ch != EOF)
		ungetc(ch, f);
	r = v1 ? ck_read_v1(f, &rp) : ck_read_log(f, &rp, &good,
	    &tail_whole);
	if (r == -EBADMSG) {
		fclose(f);
		ck_set_aside(c, "not a statsd checkpoint");
	} else if (r < 0) {
		/* A read error: what was read is restored, and the file is
		 * neither cut nor written over. */
		fclose(f);
		ck_apply(c, &rp);
		c->unread = true;
		snprintf(c->why, sizeof(c->why), "cannot read %s: %s",
		    c->path, strerror(-r));
		log_error("checkpoint: %s; PERSISTENT kstats are refused "
		    "until statsd restarts", c->why);
	} else {
		ck_apply(c, &rp);
		/* Damage in the middle: copied aside, reported, skipped
		 * (the records after it were restored). */
		for (i = 0; i < rp.ndamage; i++)
			ck_damaged(c, f, rp.damage[i].off, rp.damage[i].len,
			    rp.damage[i].lines, "skipped; the records after "
			    "it are restored");
		if (!v1 && fstat(fileno(f), &st) == 0 &&
		    (uint64_t)st.st_size > good) {
			/* The tail: a whole line that fails its check is
			 * damage too (copied aside); a line cut short, a
			 * write a crash interrupted. Either way only what
			 * follows the last good record is cut off. */
			if (tail_whole)
				ck_damaged(c, f, good, (uint64_t)st.st_size -
				    good, 1, "cut off");
			else
				log_warning("checkpoint %s: a record cut short "
				    "at byte %" PRIu64 " (a crash while it was "
				    "written) is dropped", c->path, good);
			if (truncate(c->path, (off_t)good) < 0)
				log_warning("checkpoint: cannot cut it: %s",
				    strerror(errno));
		}
		fclose(f);
		/* Runtime files no record names: of kstats whose record
		 * a crash kept from being written, or removed ones. */
		if (c->d->persist_dir != NULL) {
			unsigned gone = mirror_sweep(c->d->persist_dir,
			    ck_names_handle, &rp);

			if (gone > 0)
				log_notice("checkpoint: %u runtime files of "
				    "kstats no record names were removed",
				    gone);
		}
	}
	json_decref(rp.tpls);
	json_decref(rp.kstats);
	json_decref(rp.meta);
	if (ck_open(c) < 0)
		return 0;
	/* What the log holds now is what was restored. */
	c->live = rp.meta_bytes;
	c->meta_bytes = rp.meta_bytes;
	n = registry_templates(c->d->reg, &tpls);
	for (i = 0; i < n; i++)
		c->live += tpls[i]->ckpt_bytes;
	n = registry_kstats(c->d->reg, &ks);
	for (i = 0; i < n; i++)
		c->live += ks[i]->ckpt_bytes;
	/* A version 1 or 2 file, one with damage in it (its copy is
	 * aside), or a log mostly of old records: rewrite. */
	c->compact_now = v1 || rp.version < CKPT_VERSION || rp.ndamage > 0;
	if (c->compact_now || c->size > 2 * c->live + CKPT_COMPACT_MIN)
		(void)checkpoint_write(c);
	return 0;
}
