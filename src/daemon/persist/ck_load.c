/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ck_load.c: loading the checkpoint at start: reading the log (or a
 * version 1 file), replaying its records to the last of each thing,
 * restoring templates and PERSISTENT kstats into the registry with their
 * runtime files, and damaged records skipped, copied aside and cut off.
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

#include <jansson.h>

#include <statsd/kstat.h>

#include "b64.h"
#include "blob.h"
#include "checkpoint_priv.h"
#include "daemon.h"
#include "journal.h"
#include "log.h"
#include "mirror.h"
#include "registry.h"
#include "statsd_line.h"
#include "zones.h"

/* Handles given out after the last checkpoint are skipped on restart, so
 * a record left in a ring for a kstat that did not survive never lands
 * in a new one. */
#define CKPT_HANDLE_SKIP	65536u
/* Runs of damage copied aside one by one at start; past that, the last
 * copy takes everything up to the end of the last run. */
#define CKPT_MAX_DAMAGE		16

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
	/* Two records of one name (a damaged or edited file): the first
	 * stays. Refused here, before a runtime file is opened or made
	 * for the second, so the first's state is left as it was. */
	if (registry_kstat_find(reg, module, (int32_t)instance, name) != NULL)
		return "a second kstat of the same name";
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
	/* Where its blob was (a hint the store checks as a peer's). */
	if (json_is_string(json_object_get(o, "at_segment"))) {
		n.at_seg = json_string_value(json_object_get(o,
		    "at_segment"));
		n.at_off = (uint64_t)ck_int(o, "at_offset", 0, 0, INT64_MAX);
	}
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

	/* A compaction's new log left by a crash before its rename: the
	 * log beside it is the one (docs/durability.md). */
	if (unlink(c->tmp) == 0)
		log_notice("checkpoint: %s, a compaction a crash cut short, "
		    "removed", c->tmp);
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
