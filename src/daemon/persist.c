/*
 * persist.c: PERSISTENT kstats across restarts — their runtime files
 * (mapped, updated in place by the drain) and the checkpoint in the state
 * directory (templates, headers, blobs, sample rates), written atomically
 * and loaded, re-validated, at start.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <jansson.h>

#include <statsd/kstat.h>

#include "b64.h"
#include "blob.h"
#include "daemon.h"
#include "log.h"
#include "persist.h"
#include "registry.h"

#define PMIR_MAGIC	UINT64_C(0x3152494d50445453)	/* "STDPMIR1" */
#define PMIR_HDR	4096u
#define PMIR_SIZE	(PMIR_HDR + PERSIST_BLOB_CAP)
#define CKPT_NAME	"statsd.checkpoint"
#define CKPT_VERSION	1
/* Handles given out after the last checkpoint are skipped on restart, so
 * a record left in a ring for a kstat that did not survive never lands
 * in a new one. */
#define CKPT_HANDLE_SKIP	65536u

/* The head of a runtime file; the blob follows at PMIR_HDR. */
struct pmir_hdr {
	uint64_t	magic;
	uint32_t	version;
	uint32_t	handle;
	uint64_t	birth;
	uint32_t	size;
	uint32_t	cap;
};

struct persist_mirror {
	struct persist	*p;
	uint32_t	 handle;
	void		*map;
	char		 path[PATH_MAX];
};

#define RJ_MAGIC	UINT64_C(0x314c4e4a52445453)	/* "STDRJNL1" */
#define RJ_SLOTS	65536u

struct rj_hdr {
	uint64_t	magic;
	uint32_t	nslots;
	uint32_t	epoch;		/* bumped at every start */
	uint8_t		pad[48];
};

_Static_assert(sizeof(struct persist_ring) == 64, "journal slot size");
_Static_assert(sizeof(struct rj_hdr) == 64, "journal header size");

/* The undo record of the one update in flight, after the slots. */
struct rj_undo {
	_Atomic uint32_t state;		/* 1 while an update is in flight */
	uint32_t	handle;
	uint32_t	slot;		/* the ring's journal slot */
	uint32_t	size;		/* the blob's */
	uint64_t	done_before;
	uint32_t	run_off, run_len;	/* the VOI's voistat run */
	uint32_t	data_off, data_len;	/* its statistics' data */
	uint8_t		pad[24];
	uint8_t		bytes[];	/* header, run, data */
};

#define RJ_UNDO_BYTES	(PERSIST_BLOB_CAP + 4096u)
#define RJ_SIZE		(sizeof(struct rj_hdr) + RJ_SLOTS * \
			    sizeof(struct persist_ring) + \
			    sizeof(struct rj_undo) + RJ_UNDO_BYTES)

_Static_assert(sizeof(struct rj_undo) == 64, "undo header size");

struct persist {
	struct statsd	*d;
	struct rj_hdr	*rj;			/* the ring journal, or NULL */
	struct persist_ring *rj_slots;
	struct rj_undo	*rj_undo;
	char		 dir[PATH_MAX];		/* runtime/persist */
	char		 ckpt[PATH_MAX];
	char		 tmp[PATH_MAX];
	struct event	*ev_tick;
	bool		 failing;
};

static void persist_tick_cb(evutil_socket_t fd, short what, void *arg);
static void rj_open(struct persist *p);

static void
persist_arm(struct persist *p)
{
	unsigned ms = p->d->cfg.checkpoint_interval_ms;
	struct timeval tv = { ms / 1000, (long)(ms % 1000) * 1000 };

	event_add(p->ev_tick, &tv);
}

int
persist_new(struct statsd *d, struct persist **ret)
{
	struct persist *p;

	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return -ENOMEM;
	p->d = d;
	if (strlen(d->runtime_dir) + 32 >= sizeof(p->dir) ||
	    strlen(d->state_dir) + 32 >= sizeof(p->ckpt)) {
		free(p);
		return -ENAMETOOLONG;
	}
	snprintf(p->dir, sizeof(p->dir), "%s/persist", d->runtime_dir);
	snprintf(p->ckpt, sizeof(p->ckpt), "%s/" CKPT_NAME, d->state_dir);
	snprintf(p->tmp, sizeof(p->tmp), "%s/" CKPT_NAME ".tmp",
	    d->state_dir);
	if (mkdir(p->dir, 0700) < 0 && errno != EEXIST) {
		int r = -errno;

		log_error("cannot create %s: %s", p->dir, strerror(errno));
		free(p);
		return r;
	}
	p->ev_tick = evtimer_new(d->base, persist_tick_cb, p);
	if (p->ev_tick == NULL) {
		free(p);
		return -ENOMEM;
	}
	event_priority_set(p->ev_tick, PRIO_CONTROL);
	persist_arm(p);
	rj_open(p);
	*ret = p;
	return 0;
}

/* Map the ring journal, start a new epoch, and forget the slots of rings
 * two starts old (a ring not handed back by then is not coming back). */
static void
rj_open(struct persist *p)
{
	size_t size = RJ_SIZE;
	char path[PATH_MAX + 32];
	struct stat st;
	uint32_t i, epoch;
	void *map;
	int fd;

	snprintf(path, sizeof(path), "%s/rings.journal", p->dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 || fstat(fd, &st) < 0 || (st.st_size != (off_t)size &&
	    ftruncate(fd, 0) < 0) || ftruncate(fd, (off_t)size) < 0) {
		log_warning("ring journal %s: %s; a kill -9 during a drain "
		    "pass may repeat updates", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return;
	p->rj = map;
	p->rj_slots = (struct persist_ring *)((char *)map +
	    sizeof(struct rj_hdr));
	p->rj_undo = (struct rj_undo *)(p->rj_slots + RJ_SLOTS);
	if (p->rj->magic != RJ_MAGIC || p->rj->nslots != RJ_SLOTS) {
		memset(map, 0, sizeof(struct rj_hdr));
		p->rj->nslots = RJ_SLOTS;
		p->rj->magic = RJ_MAGIC;
		for (i = 0; i < RJ_SLOTS; i++)
			atomic_store(&p->rj_slots[i].used, 0);
		atomic_store(&p->rj_undo->state, 0);
	}
	epoch = p->rj->epoch + 1;
	if (epoch == 0)
		epoch = 1;
	p->rj->epoch = epoch;
	for (i = 0; i < RJ_SLOTS; i++) {
		uint32_t u = atomic_load(&p->rj_slots[i].used);

		if (u != 0 && u != epoch - 1 && u != epoch)
			atomic_store(&p->rj_slots[i].used, 0);
	}
}

struct persist_ring *
persist_ring_new(struct persist *p, uint64_t birth, uid_t uid)
{
	uint32_t i;

	if (p == NULL || p->rj == NULL)
		return NULL;
	for (i = 0; i < RJ_SLOTS; i++) {
		struct persist_ring *j = &p->rj_slots[i];

		if (atomic_load(&j->used) != 0)
			continue;
		atomic_store(&j->birth, birth);
		atomic_store(&j->uid, (uint32_t)uid);
		atomic_store(&j->done, 0);
		atomic_store(&j->base, 0);
		atomic_store(&j->used, p->rj->epoch);
		return j;
	}
	return NULL;
}

struct persist_ring *
persist_ring_adopt(struct persist *p, uint64_t birth, uid_t uid,
    uint64_t tail, uint64_t *ret_skip)
{
	uint32_t i;

	*ret_skip = 0;
	if (p == NULL || p->rj == NULL)
		return NULL;
	for (i = 0; i < RJ_SLOTS; i++) {
		struct persist_ring *j = &p->rj_slots[i];

		if (atomic_load(&j->used) == 0 ||
		    atomic_load(&j->birth) != birth ||
		    atomic_load(&j->uid) != (uint32_t)uid)
			continue;
		if (atomic_load(&j->base) == tail)
			*ret_skip = atomic_load(&j->done);
		atomic_store(&j->used, p->rj->epoch);
		return j;
	}
	return persist_ring_new(p, birth, uid);
}

void
persist_ring_release(struct persist_ring *j)
{
	if (j != NULL)
		atomic_store(&j->used, 0);
}

void
persist_undo_begin(struct persist *p, struct persist_ring *j,
    uint32_t handle, const void *blob, uint32_t size, uint16_t voi)
{
	const struct statsblobv1 *b = blob;
	struct rj_undo *u;
	const struct voi *v;
	uint32_t lo = UINT32_MAX, hi = 0, run;
	int s;

	if (p->rj == NULL || j == NULL || size > PERSIST_BLOB_CAP ||
	    size < SB_V1_HDRSZ || voi >= blob_nvois(b))
		return;
	v = &b->vois[voi];
	if (v->id < 0 || v->voistatmaxid < 0)
		return;
	/* The span of the VOI's statistics' data: its block. */
	for (s = 0; s <= v->voistatmaxid; s++) {
		const struct voistat *vs = blob_voistat(b, v, s);

		if (vs->stype < 0)
			continue;
		if (vs->data_off < lo)
			lo = vs->data_off;
		if ((uint32_t)vs->data_off + vs->dsz > hi)
			hi = (uint32_t)vs->data_off + vs->dsz;
	}
	run = ((uint32_t)v->voistatmaxid + 1) * sizeof(struct voistat);
	if (lo > hi || hi > size || (uint32_t)v->stats_off + run > size)
		return;
	u = p->rj_undo;
	u->handle = handle;
	u->slot = (uint32_t)(j - p->rj_slots);
	u->size = size;
	u->done_before = atomic_load_explicit(&j->done, memory_order_relaxed);
	u->run_off = v->stats_off;
	u->run_len = run;
	u->data_off = lo;
	u->data_len = hi - lo;
	memcpy(u->bytes, b, SB_V1_HDRSZ);
	memcpy(u->bytes + SB_V1_HDRSZ, (const char *)b + u->run_off, run);
	memcpy(u->bytes + SB_V1_HDRSZ + run, (const char *)b + lo, hi - lo);
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store_explicit(&u->state, 1, memory_order_relaxed);
	atomic_signal_fence(memory_order_seq_cst);
}

void
persist_undo_end(struct persist *p)
{
	if (p->rj == NULL)
		return;
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store_explicit(&p->rj_undo->state, 0, memory_order_relaxed);
}

/* At start: a kstat's runtime file was being changed when statsd died.
 * Unless the change was counted, put the saved bytes back. */
static void
rj_undo_recover(struct persist *p, uint32_t handle, void *blob,
    uint32_t size)
{
	struct rj_undo *u = p->rj_undo;

	if (p->rj == NULL || atomic_load(&u->state) != 1 ||
	    u->handle != handle)
		return;
	if (u->slot < RJ_SLOTS && u->size == size &&
	    u->run_len <= 4096 && (uint64_t)u->run_off + u->run_len <= size &&
	    (uint64_t)u->data_off + u->data_len <= size &&
	    SB_V1_HDRSZ + u->run_len + u->data_len <= RJ_UNDO_BYTES &&
	    atomic_load(&p->rj_slots[u->slot].done) == u->done_before) {
		memcpy(blob, u->bytes, SB_V1_HDRSZ);
		memcpy((char *)blob + u->run_off, u->bytes + SB_V1_HDRSZ,
		    u->run_len);
		memcpy((char *)blob + u->data_off, u->bytes + SB_V1_HDRSZ +
		    u->run_len, u->data_len);
		log_notice("kstat handle %u: an update cut short by the last "
		    "exit was rolled back; it is applied again when its ring "
		    "comes back", handle);
	}
	atomic_store(&u->state, 0);
}

struct persist *
persist_free(struct persist *p)
{
	if (p == NULL)
		return NULL;
	if (p->rj != NULL)
		munmap(p->rj, RJ_SIZE);
	event_free(p->ev_tick);
	free(p);
	return NULL;
}

/* ------------------------------------------------------------ runtime files */

static void
pmir_path(struct persist *p, uint32_t handle, char *buf, size_t len)
{
	/* persist_new() checked that the directory leaves room. */
	if ((size_t)snprintf(buf, len, "%s/%" PRIu32 ".kstat", p->dir,
	    handle) >= len)
		buf[0] = '\0';
}

static int
pmir_map(struct persist *p, uint32_t handle, int fd,
    struct persist_mirror **ret)
{
	struct persist_mirror *m;
	void *map;

	map = mmap(NULL, PMIR_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return -errno;
	m = calloc(1, sizeof(*m));
	if (m == NULL) {
		munmap(map, PMIR_SIZE);
		return -ENOMEM;
	}
	m->p = p;
	m->handle = handle;
	m->map = map;
	pmir_path(p, handle, m->path, sizeof(m->path));
	*ret = m;
	return 0;
}

int
persist_mirror_create(struct persist *p, uint32_t handle, const void *blob,
    uint32_t size, struct persist_mirror **ret)
{
	char path[PATH_MAX];
	struct pmir_hdr *h;
	struct timespec ts;
	int fd, r;

	if (size > PERSIST_BLOB_CAP)
		return -E2BIG;
	pmir_path(p, handle, path, sizeof(path));
	(void)unlink(path);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
	    0600);
	if (fd < 0)
		return -errno;
	/* Allocate the blocks now: a full tmpfs then fails here, not as a
	 * SIGBUS in the middle of a drain. */
	r = posix_fallocate(fd, 0, PMIR_SIZE);
	if (r != 0) {
		close(fd);
		(void)unlink(path);
		return -r;
	}
	r = pmir_map(p, handle, fd, ret);
	close(fd);
	if (r < 0) {
		(void)unlink(path);
		return r;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	h = (*ret)->map;
	memcpy((char *)(*ret)->map + PMIR_HDR, blob, size);
	h->version = 1;
	h->handle = handle;
	h->birth = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	h->size = size;
	h->cap = PERSIST_BLOB_CAP;
	h->magic = PMIR_MAGIC;
	return 0;
}

int
persist_mirror_open(struct persist *p, uint32_t handle, uint64_t birth,
    struct persist_mirror **ret)
{
	char path[PATH_MAX];
	struct pmir_hdr h;
	struct stat st;
	int fd, r;

	pmir_path(p, handle, path, sizeof(path));
	fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size != (off_t)PMIR_SIZE) {
		close(fd);
		return -EBADMSG;
	}
	r = pmir_map(p, handle, fd, ret);
	close(fd);
	if (r < 0)
		return r;
	memcpy(&h, (*ret)->map, sizeof(h));
	if (h.magic != PMIR_MAGIC || h.version != 1 || h.handle != handle ||
	    h.birth != birth || h.cap != PERSIST_BLOB_CAP ||
	    h.size < SB_V1_HDRSZ || h.size > PERSIST_BLOB_CAP) {
		persist_mirror_close(*ret);
		*ret = NULL;
		return -EBADMSG;
	}
	return 0;
}

void *
persist_mirror_blob(struct persist_mirror *m)
{
	return (char *)m->map + PMIR_HDR;
}

uint32_t
persist_mirror_size(const struct persist_mirror *m)
{
	return ((const struct pmir_hdr *)m->map)->size;
}

uint64_t
persist_mirror_birth(const struct persist_mirror *m)
{
	return ((const struct pmir_hdr *)m->map)->birth;
}

void
persist_mirror_set_size(struct persist_mirror *m, uint32_t size)
{
	((struct pmir_hdr *)m->map)->size = size;
}

void
persist_mirror_close(struct persist_mirror *m)
{
	if (m == NULL)
		return;
	munmap(m->map, PMIR_SIZE);
	free(m);
}

void
persist_mirror_remove(struct persist_mirror *m)
{
	if (m == NULL)
		return;
	(void)unlink(m->path);
	persist_mirror_close(m);
}

/* -------------------------------------------------------------- checkpoint */

static json_t *
persist_kstat_json(struct reg_kstat *k)
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
	    "birth", (json_int_t)(k->mirror != NULL ?
	    persist_mirror_birth(k->mirror) : 0), "blob", b64);
	free(b64);
	return o;
}

int
persist_checkpoint(struct persist *p)
{
	struct registry *reg = p->d->reg;
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
		json_array_append(ta, tpls[i]->def);
	nk = registry_kstats(reg, &ks);
	for (i = 0; i < nk; i++) {
		json_t *o;

		if ((ks[i]->hdr.flags & KSTAT_FLAG_PERSISTENT) == 0)
			continue;
		o = persist_kstat_json(ks[i]);
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
	    p->d->sample_rates != NULL ? p->d->sample_rates : ""));
	json_object_set_new(root, "templates", ta);
	json_object_set_new(root, "kstats", ka);
	ta = ka = NULL;
	fd = open(p->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
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
	if (rename(p->tmp, p->ckpt) < 0) {
		r = -errno;
		goto fail;
	}
	/* The rename is durable once the directory is. */
	fd = open(p->d->state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
	json_decref(root);
	if (p->failing)
		log_notice("checkpoint written again");
	p->failing = false;
	return 0;
fail:
	if (f != NULL)
		fclose(f);
	if (fd >= 0)
		close(fd);
	(void)unlink(p->tmp);
	json_decref(ta);
	json_decref(ka);
	json_decref(root);
	if (!p->failing)
		log_error("cannot write the checkpoint %s: %s", p->ckpt,
		    strerror(-r));
	p->failing = true;
	return r;
}

static void
persist_tick_cb(evutil_socket_t fd, short what, void *arg)
{
	struct persist *p = arg;
	struct reg_kstat **ks;
	size_t n, i;

	(void)fd;
	(void)what;
	n = registry_kstats(p->d->reg, &ks);
	for (i = 0; i < n; i++)
		if (ks[i]->hdr.flags & KSTAT_FLAG_PERSISTENT) {
			(void)persist_checkpoint(p);
			break;
		}
	persist_arm(p);
}

/* ----------------------------------------------------------------- loading */

static void
persist_set_aside(struct persist *p, const char *why)
{
	char bad[PATH_MAX + 8];

	snprintf(bad, sizeof(bad), "%s.bad", p->ckpt);
	log_error("checkpoint %s: %s; set aside as %s, starting empty",
	    p->ckpt, why, bad);
	(void)rename(p->ckpt, bad);
}

/* Restore one PERSISTENT kstat. Returns: 0, or a reason it was skipped. */
static const char *
persist_load_kstat(struct persist *p, json_t *o, uint32_t *max_handle)
{
	struct registry *reg = p->d->reg;
	const char *pseg[KS_NPSEG_MAX];
	struct reg_kstat_new n;
	struct persist_mirror *m = NULL;
	struct reg_template *t;
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
	if (persist_mirror_open(p, (uint32_t)handle, (uint64_t)birth,
	    &m) == 0) {
		rj_undo_recover(p, (uint32_t)handle, persist_mirror_blob(m),
		    persist_mirror_size(m));
		if (stats_blob_validate(persist_mirror_blob(m),
		    persist_mirror_size(m)) != 0) {
			persist_mirror_close(m);
			m = NULL;
		}
	}
	if (m == NULL) {
		/* After a reboot (or a damaged file): the checkpoint's copy. */
		buf = malloc(PERSIST_BLOB_CAP);
		if (buf == NULL)
			return "out of memory";
		len = b64_decode(b64, buf, PERSIST_BLOB_CAP);
		if (len <= 0 || stats_blob_validate(buf, (size_t)len) != 0) {
			free(buf);
			return "its blob does not validate";
		}
		r = persist_mirror_create(p, (uint32_t)handle, buf,
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
	n.tpl = t;
	n.handle = (uint32_t)handle;
	n.crtime = (uint64_t)crtime;
	n.mirror = m;
	n.blob = persist_mirror_blob(m);
	n.blob_size = persist_mirror_size(m);
	n.dormant = dormant != 0;
	r = registry_kstat_create(reg, &n, &k, &revived, &kerr);
	if (r < 0) {
		persist_mirror_close(m);
		return kerr.field != NULL ? kerr.msg : "refused by the store";
	}
	if ((uint32_t)handle > *max_handle)
		*max_handle = (uint32_t)handle;
	return NULL;
}

int
persist_load(struct persist *p)
{
	struct registry *reg = p->d->reg;
	json_t *root, *ta, *ka, *e;
	json_error_t jerr;
	uint32_t max_handle = 0;
	json_int_t next;
	const char *rates = "";
	size_t i;
	unsigned nk = 0, nt = 0;

	root = json_load_file(p->ckpt, JSON_REJECT_DUPLICATES, &jerr);
	if (root == NULL) {
		if (access(p->ckpt, F_OK) < 0 && errno == ENOENT)
			return 0;
		persist_set_aside(p, jerr.text);
		return 0;
	}
	ta = json_object_get(root, "templates");
	ka = json_object_get(root, "kstats");
	next = json_integer_value(json_object_get(root, "next_handle"));
	if (!json_is_object(root) || json_integer_value(json_object_get(root,
	    "version")) != CKPT_VERSION || !json_is_array(ta) ||
	    !json_is_array(ka)) {
		json_decref(root);
		persist_set_aside(p, "not a version 1 checkpoint");
		return 0;
	}
	json_array_foreach(ta, i, e) {
		struct reg_template *t;
		char bad[128], reason[160];
		bool created;

		if (registry_template_add(reg, e, &t, &created, bad,
		    sizeof(bad), reason, sizeof(reason)) < 0)
			log_error("checkpoint: template %zu not restored",
			    i);
		else
			nt++;
	}
	json_array_foreach(ka, i, e) {
		const char *why = persist_load_kstat(p, e, &max_handle);

		if (why != NULL)
			log_error("checkpoint: kstat %zu not restored: %s",
			    i, why);
		else
			nk++;
	}
	if (json_is_string(json_object_get(root, "sample_rates")))
		rates = json_string_value(json_object_get(root,
		    "sample_rates"));
	free(p->d->sample_rates);
	p->d->sample_rates = strdup(rates);
	if (next > 0 && next <= UINT32_MAX)
		registry_raise_next_handle(reg, (uint32_t)next);
	registry_raise_next_handle(reg, max_handle + 1);
	if (UINT32_MAX - registry_next_handle(reg) > CKPT_HANDLE_SKIP)
		registry_raise_next_handle(reg, registry_next_handle(reg) +
		    CKPT_HANDLE_SKIP);
	json_decref(root);
	log_info("restored %u templates and %u PERSISTENT kstats from %s",
	    nt, nk, p->ckpt);
	return 0;
}
