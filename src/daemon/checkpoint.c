/*
 * checkpoint.c: the checkpoint (see checkpoint.h): writing it atomically,
 * on demand and every checkpoint_interval_ms, and loading it at start,
 * re-validated, with each PERSISTENT kstat's blob taken from its runtime
 * file or, failing that, from the checkpoint.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/event.h>
#include <jansson.h>

#include <statsd/kstat.h>

#include "b64.h"
#include "blob.h"
#include "checkpoint.h"
#include "daemon.h"
#include "journal.h"
#include "log.h"
#include "mirror.h"
#include "registry.h"
#include "zones.h"

#define CKPT_NAME	"statsd.checkpoint"
#define CKPT_VERSION	1
/* Handles given out after the last checkpoint are skipped on restart, so
 * a record left in a ring for a kstat that did not survive never lands
 * in a new one. */
#define CKPT_HANDLE_SKIP	65536u

struct checkpoint {
	struct statsd	*d;
	char		 path[PATH_MAX];
	char		 tmp[PATH_MAX];
	struct event	*ev_tick;
	bool		 failing;
};

static void checkpoint_tick_cb(evutil_socket_t fd, short what, void *arg);

static void
checkpoint_arm(struct checkpoint *c)
{
	unsigned ms = c->d->cfg.checkpoint_interval_ms;
	struct timeval tv = { ms / 1000, (long)(ms % 1000) * 1000 };

	event_add(c->ev_tick, &tv);
}

int
checkpoint_new(struct statsd *d, struct checkpoint **ret)
{
	struct checkpoint *c;

	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->d = d;
	if (strlen(d->state_dir) + 32 >= sizeof(c->path)) {
		free(c);
		return -ENAMETOOLONG;
	}
	snprintf(c->path, sizeof(c->path), "%s/" CKPT_NAME, d->state_dir);
	snprintf(c->tmp, sizeof(c->tmp), "%s/" CKPT_NAME ".tmp",
	    d->state_dir);
	c->ev_tick = evtimer_new(d->base, checkpoint_tick_cb, c);
	if (c->ev_tick == NULL) {
		free(c);
		return -ENOMEM;
	}
	event_priority_set(c->ev_tick, PRIO_CONTROL);
	checkpoint_arm(c);
	*ret = c;
	return 0;
}

struct checkpoint *
checkpoint_free(struct checkpoint *c)
{
	if (c == NULL)
		return NULL;
	event_free(c->ev_tick);
	free(c);
	return NULL;
}

/*
 * statsd's own kstats' templates ("statsd.*": sysks.c) are made at every
 * start, as this statsd defines them; one kept from an older statsd would
 * hold its name with an older definition.
 */
static bool
checkpoint_own_template(const char *name)
{
	return name != NULL && strncmp(name, "statsd.", 7) == 0;
}

static json_t *
checkpoint_kstat_json(struct reg_kstat *k)
{
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
	o = json_pack("{s:I, s:s, s:i, s:s, s:s, s:i, s:I, s:I, s:s, s:s, "
	    "s:o, s:I, s:b, s:I, s:s}",
	    "handle", (json_int_t)k->handle, "module", k->hdr.module,
	    "instance", (int)k->hdr.instance, "name", k->hdr.name,
	    "class", k->hdr.class_, "type", (int)k->hdr.type,
	    "flags", (json_int_t)(k->hdr.flags & KS_FLAGS_CREATOR),
	    "owner", (json_int_t)k->owner, "template", k->tpl->spec,
	    "description", k->hdr.desc, "path", path,
	    "crtime", (json_int_t)k->hdr.crtime, "dormant", k->dormant,
	    "birth", (json_int_t)(k->storage != NULL ?
	    mirror_birth(mirror_of(k->storage)) : 0), "blob", b64);
	free(b64);
	/* Every zone's, or (absent) the global zone's. */
	if (o != NULL && k->zone == ZONE_ALL)
		json_object_set_new(o, "zone", json_integer(-1));
	return o;
}

bool
checkpoint_outlives_statsd(const struct reg_kstat *k)
{
	return k->owner_zone == ZONE_GLOBAL && (k->zone == ZONE_GLOBAL ||
	    k->zone == ZONE_ALL);
}

int
checkpoint_write(struct checkpoint *c)
{
	struct registry *reg = c->d->reg;
	struct reg_template **tpls;
	struct reg_kstat **ks;
	json_t *root, *ta, *ka;
	size_t nt, nk, i;
	FILE *f = NULL;
	int fd = -1, r;

	root = json_object();
	ta = json_array();
	ka = json_array();
	if (root == NULL || ta == NULL || ka == NULL) {
		r = -ENOMEM;
		goto fail;
	}
	nt = registry_templates(reg, &tpls);
	for (i = 0; i < nt; i++)
		if (!checkpoint_own_template(tpls[i]->name))
			json_array_append(ta, tpls[i]->def);
	nk = registry_kstats(reg, &ks);
	for (i = 0; i < nk; i++) {
		json_t *o;

		if ((ks[i]->hdr.flags & KSTAT_FLAG_PERSISTENT) == 0 ||
		    !checkpoint_outlives_statsd(ks[i]))
			continue;
		o = checkpoint_kstat_json(ks[i]);
		if (o == NULL) {
			r = -ENOMEM;
			goto fail;
		}
		json_array_append_new(ka, o);
	}
	json_object_set_new(root, "format", json_string("statsd-checkpoint"));
	json_object_set_new(root, "version", json_integer(CKPT_VERSION));
	json_object_set_new(root, "next_handle",
	    json_integer(registry_next_handle(reg)));
	json_object_set_new(root, "sample_rates", json_string(
	    c->d->sample_rates != NULL ? c->d->sample_rates : ""));
	json_object_set_new(root, "templates", ta);
	json_object_set_new(root, "kstats", ka);
	ta = ka = NULL;
	fd = open(c->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
	    O_NOFOLLOW, 0600);
	if (fd < 0) {
		r = -errno;
		goto fail;
	}
	f = fdopen(fd, "w");
	if (f == NULL) {
		r = -errno;
		goto fail;
	}
	fd = -1;
	if (json_dumpf(root, f, JSON_COMPACT) < 0 || fputc('\n', f) == EOF ||
	    fflush(f) != 0) {
		r = -EIO;
		goto fail;
	}
	if (fsync(fileno(f)) < 0) {
		r = -errno;
		goto fail;
	}
	if (fclose(f) != 0) {
		f = NULL;
		r = -errno;
		goto fail;
	}
	f = NULL;
	if (rename(c->tmp, c->path) < 0) {
		r = -errno;
		goto fail;
	}
	/* The rename is durable once the directory is. */
	fd = open(c->d->state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
	json_decref(root);
	if (c->failing)
		log_notice("checkpoint written again");
	c->failing = false;
	return 0;
fail:
	if (f != NULL)
		fclose(f);
	if (fd >= 0)
		close(fd);
	(void)unlink(c->tmp);
	json_decref(ta);
	json_decref(ka);
	json_decref(root);
	if (!c->failing)
		log_error("cannot write the checkpoint %s: %s", c->path,
		    strerror(-r));
	c->failing = true;
	return r;
}

static void
checkpoint_tick_cb(evutil_socket_t fd, short what, void *arg)
{
	struct checkpoint *c = arg;
	struct reg_kstat **ks;
	size_t n, i;

	(void)fd;
	(void)what;
	n = registry_kstats(c->d->reg, &ks);
	for (i = 0; i < n; i++)
		if (ks[i]->hdr.flags & KSTAT_FLAG_PERSISTENT) {
			(void)checkpoint_write(c);
			break;
		}
	checkpoint_arm(c);
}

/* ----------------------------------------------------------------- loading */

static void
checkpoint_set_aside(struct checkpoint *c, const char *why)
{
	char bad[PATH_MAX + 8];

	snprintf(bad, sizeof(bad), "%s.bad", c->path);
	log_error("checkpoint %s: %s; set aside as %s, starting empty",
	    c->path, why, bad);
	(void)rename(c->path, bad);
}

/* Restore one PERSISTENT kstat. Returns: 0, or a reason it was skipped. */
static const char *
checkpoint_load_kstat(struct checkpoint *c, json_t *o,
    uint32_t *max_handle)
{
	struct registry *reg = c->d->reg;
	const char *pseg[KS_NPSEG_MAX];
	struct reg_kstat_new n;
	struct mirror *m = NULL;
	struct reg_template *t;
	struct quota_refusal refusal;
	struct reg_kstat *k;
	struct ks_error kerr;
	json_int_t handle, instance, type, flags, owner, crtime, birth;
	const char *module, *name, *class_, *spec, *desc, *b64;
	json_t *path, *e;
	void *buf = NULL;
	bool revived;
	size_t i;
	long len;
	int dormant = 0, r;

	if (json_unpack(o, "{s:I, s:s, s:I, s:s, s:s, s:I, s:I, s:I, s:s, "
	    "s:s, s:o, s:I, s:b, s:I, s:s}", "handle", &handle,
	    "module", &module, "instance", &instance, "name", &name,
	    "class", &class_, "type", &type, "flags", &flags,
	    "owner", &owner, "template", &spec, "description", &desc,
	    "path", &path, "crtime", &crtime, "dormant", &dormant,
	    "birth", &birth, "blob", &b64) != 0)
		return "malformed entry";
	if (handle <= 0 || handle > UINT32_MAX || instance < 0 ||
	    instance > INT32_MAX || type < 0 || type >= KSTAT_NUM_TYPES ||
	    owner < 0 || owner > UINT32_MAX || !json_is_array(path) ||
	    json_array_size(path) > KS_NPSEG_MAX)
		return "field out of range";
	t = registry_template_find(reg, spec);
	if (t == NULL || strcmp(t->spec, spec) != 0)
		return "its template is gone";
	json_array_foreach(path, i, e) {
		if (!json_is_string(e))
			return "malformed path";
		pseg[i] = json_string_value(e);
	}
	if (mirror_open(c->d->persist_dir, (uint32_t)handle, (uint64_t)birth,
	    &m) == 0) {
		journal_undo_recover(c->d->journal, (uint32_t)handle,
		    mirror_blob(m), mirror_size(m));
		if (stats_blob_validate(mirror_blob(m),
		    mirror_size(m)) != 0) {
			mirror_close(m);
			m = NULL;
		}
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
		r = mirror_create(c->d->persist_dir, (uint32_t)handle, buf,
		    (uint32_t)len, &m);
		free(buf);
		if (r < 0)
			return "cannot create its runtime file";
	}
	memset(&n, 0, sizeof(n));
	n.module = module;
	n.instance = (int32_t)instance;
	n.name = name;
	n.class_ = class_;
	n.type = (uint8_t)type;
	n.flags = (uint32_t)flags;
	n.desc = desc[0] != '\0' ? desc : NULL;
	n.path = pseg;
	n.npath = (uint32_t)json_array_size(path);
	n.owner = (uid_t)owner;
	n.owner_zone = ZONE_GLOBAL;
	n.zone = json_integer_value(json_object_get(o, "zone")) == -1 ?
	    ZONE_ALL : ZONE_GLOBAL;
	n.tpl = t;
	n.handle = (uint32_t)handle;
	n.crtime = (uint64_t)crtime;
	n.storage = mirror_storage(m);
	n.blob = mirror_blob(m);
	n.blob_size = mirror_size(m);
	n.dormant = dormant != 0;
	n.restoring = true;
	r = registry_kstat_create(reg, &n, &k, &revived, &kerr, &refusal);
	if (r < 0) {
		mirror_close(m);
		return kerr.field != NULL ? kerr.msg : "refused by the store";
	}
	if ((uint32_t)handle > *max_handle)
		*max_handle = (uint32_t)handle;
	return NULL;
}

int
checkpoint_load(struct checkpoint *c)
{
	struct registry *reg = c->d->reg;
	json_t *root, *ta, *ka, *e;
	json_error_t jerr;
	uint32_t max_handle = 0;
	json_int_t next;
	const char *rates = "";
	size_t i;
	unsigned nk = 0, nt = 0;

	root = json_load_file(c->path, JSON_REJECT_DUPLICATES, &jerr);
	if (root == NULL) {
		if (access(c->path, F_OK) < 0 && errno == ENOENT)
			return 0;
		checkpoint_set_aside(c, jerr.text);
		return 0;
	}
	ta = json_object_get(root, "templates");
	ka = json_object_get(root, "kstats");
	next = json_integer_value(json_object_get(root, "next_handle"));
	if (!json_is_object(root) || json_integer_value(json_object_get(root,
	    "version")) != CKPT_VERSION || !json_is_array(ta) ||
	    !json_is_array(ka)) {
		json_decref(root);
		checkpoint_set_aside(c, "not a version 1 checkpoint");
		return 0;
	}
	json_array_foreach(ta, i, e) {
		struct reg_template *t;
		char bad[128], reason[160];

		if (checkpoint_own_template(json_string_value(
		    json_object_get(e, "name"))))
			continue;
		/* The checkpoint does not say who added a template: statsd
		 * holds the restored ones itself. */
		struct reg_owner self = { c->d->self_uid, true, true };
		struct quota_refusal refusal;
		bool created;

		if (registry_template_add(reg, e, &self, &t, &created, bad,
		    sizeof(bad), reason, sizeof(reason), &refusal) < 0)
			log_error("checkpoint: template %zu not restored",
			    i);
		else
			nt++;
	}
	json_array_foreach(ka, i, e) {
		const char *why = checkpoint_load_kstat(c, e,
		    &max_handle);

		if (why != NULL)
			log_error("checkpoint: kstat %zu not restored: %s",
			    i, why);
		else
			nk++;
	}
	if (json_is_string(json_object_get(root, "sample_rates")))
		rates = json_string_value(json_object_get(root,
		    "sample_rates"));
	free(c->d->sample_rates);
	c->d->sample_rates = strdup(rates);
	if (next > 0 && next <= UINT32_MAX)
		registry_raise_next_handle(reg, (uint32_t)next);
	registry_raise_next_handle(reg, max_handle + 1);
	if (UINT32_MAX - registry_next_handle(reg) > CKPT_HANDLE_SKIP)
		registry_raise_next_handle(reg, registry_next_handle(reg) +
		    CKPT_HANDLE_SKIP);
	json_decref(root);
	log_info("restored %u templates and %u PERSISTENT kstats from %s",
	    nt, nk, c->path);
	return 0;
}
