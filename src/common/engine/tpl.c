/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tpl.c: the template registry: allocation, VOI addition (which lays out
 * the template blob every blob of it copies), new blobs made from a
 * template, the template hash, lookups by name, hash and spec string, and
 * the list of all templates.
 *
 * As on FreeBSD, an application's templates are never freed, so a slot id
 * or a borrowed statsblob_tpl stays valid for the life of the process. A
 * daemon that holds templates for others (statsd) may release one it knows
 * nothing refers to any more (tpl_release()); its slot is then vacant
 * (NULL) and a later template may take it. One rwlock guards the list;
 * blobs made from templates need no lock of the registry's.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blob.h"
#include "clock.h"
#include "kind.h"
#include "layout.h"
#include "tpl.h"

static pthread_rwlock_t tpl_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct statsblob_tpl **tpllist;
static int ntpl;

void
tpl_rlock(void)
{
	pthread_rwlock_rdlock(&tpl_lock);
}

void
tpl_runlock(void)
{
	pthread_rwlock_unlock(&tpl_lock);
}

const struct statsblob_tpl *
tpl_get_locked(int id)
{
	return id >= 0 && id < ntpl ? tpllist[id] : NULL;
}

int
tpl_count_locked(void)
{
	return ntpl;
}

#define TPL_NAME_CHARS	"abcdefghijklmnopqrstuvwxyz" \
			"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-"

static bool
tpl_name_chars_ok(const char *name, size_t minlen, const char *chars)
{
	size_t n;

	if (name == NULL)
		return false;
	n = strlen(name);
	if (n < minlen || n > TPL_MAX_NAME_LEN)
		return false;
	return strspn(name, chars) == n;
}

bool
tpl_name_valid(const char *name)
{
	/* Template names travel unquoted in spec strings. */
	return tpl_name_chars_ok(name, 1, TPL_NAME_CHARS);
}

bool
tpl_voi_name_valid(const char *name)
{
	/*
	 * VOI names are flat names and JSON keys, written unquoted and
	 * unescaped, and Linux data lines' first word: no blank, quote,
	 * backslash or ':' (kstat(1M)'s separator). '=' and '/' are allowed
	 * for illumos's kstat_types names ("name=value", "i/o").
	 */
	return tpl_name_chars_ok(name, 0, TPL_NAME_CHARS "=/");
}

static uint32_t
tpl_hash_str(const char *s, uint32_t hash)
{
	return blob_hash_buf(s, strlen(s), hash);
}

static void
tpl_update_hash(struct statsblob_tpl *tpl)
{
	const struct statsblobv1 *sb = (const struct statsblobv1 *)tpl->sb;
	uint32_t h;
	uint16_t i, n = blob_nvois(sb);

	h = tpl_hash_str(tpl->mb->tplname, 0);
	for (i = 0; i < n; i++) {
		if (tpl->mb->voi_meta[i].name != NULL)
			h = tpl_hash_str(tpl->mb->voi_meta[i].name, h);
	}
	tpl->mb->tplhash = blob_hash_buf(sb, sb->cursz, h);
}

/* With the lock held: newest template matching name (if any) and hash. */
static int
tpl_find_locked(const char *name, uint32_t hash)
{
	int i;

	for (i = ntpl - 1; i >= 0; i--) {
		const struct metablob *mb;

		if (tpllist[i] == NULL)
			continue;
		mb = tpllist[i]->mb;

		if (name != NULL) {
			if (strcmp(mb->tplname, name) != 0)
				continue;
			if (hash == 0 || mb->tplhash == hash)
				return i;
		} else if (mb->tplhash == hash) {
			return i;
		}
	}
	return -ESRCH;
}

/*
 * With the lock held (for writing): tpl into the first slot tpl_release()
 * left vacant, or into a new one at the end of the list.
 * Returns: the template's id; -ENOMEM.
 */
static int
tpl_list_put_locked(struct statsblob_tpl *tpl)
{
	struct statsblob_tpl **nlist;
	int id;

	for (id = 0; id < ntpl && tpllist[id] != NULL; id++)
		;
	if (id < ntpl) {
		tpllist[id] = tpl;
		return id;
	}
	nlist = realloc(tpllist, (size_t)(ntpl + 1) * sizeof(*tpllist));
	if (nlist == NULL)
		return -ENOMEM;
	tpllist = nlist;
	tpllist[ntpl] = tpl;
	return ntpl++;
}

/* A new template of name; unless shared, none of that name may exist. */
static int
tpl_alloc(const char *name, bool shared)
{
	struct statsblob_tpl *tpl;
	struct statsblobv1 *sb;
	int id;

	if (!tpl_name_valid(name))
		return -EINVAL;
	tpl = calloc(1, sizeof(*tpl));
	if (tpl == NULL)
		return -ENOMEM;
	tpl->mb = calloc(1, sizeof(*tpl->mb));
	sb = calloc(1, SB_V1_HDRSZ);
	if (tpl->mb == NULL || sb == NULL ||
	    (tpl->mb->tplname = strdup(name)) == NULL) {
		if (tpl->mb != NULL)
			free(tpl->mb->tplname);
		free(tpl->mb);
		free(sb);
		free(tpl);
		return -ENOMEM;
	}
	sb->abi = STATS_ABI_V1;
	sb->endian = SB_HOST_ENDIAN;
	sb->maxsz = sb->cursz = SB_V1_HDRSZ;
	sb->stats_off = sb->statsdata_off = SB_V1_HDRSZ;
	tpl->sb = (struct statsblob *)sb;

	pthread_rwlock_wrlock(&tpl_lock);
	if (!shared && tpl_find_locked(name, 0) >= 0) {
		id = -EEXIST;
	} else {
		tpl_update_hash(tpl);
		id = tpl_list_put_locked(tpl);
	}
	pthread_rwlock_unlock(&tpl_lock);
	if (id < 0) {
		free(tpl->mb->tplname);
		free(tpl->mb);
		free(sb);
		free(tpl);
	}
	return id;
}

int
stats_tpl_alloc(const char *name, uint32_t flags)
{
	(void)flags;
	return tpl_alloc(name, false);
}

int
tpl_alloc_shared_name(const char *name)
{
	return tpl_alloc(name, true);
}

/* Free one template's memory. */
static void
tpl_destroy(struct statsblob_tpl *tpl)
{
	uint16_t i, n = blob_nvois((const struct statsblobv1 *)tpl->sb);

	for (i = 0; i < n && tpl->mb->voi_meta != NULL; i++)
		free(tpl->mb->voi_meta[i].name);
	free(tpl->mb->voi_meta);
	free(tpl->mb->tplname);
	free(tpl->mb);
	free(tpl->sb);
	free(tpl);
}

int
tpl_release(int id)
{
	struct statsblob_tpl *tpl = NULL;

	pthread_rwlock_wrlock(&tpl_lock);
	if (id >= 0 && id < ntpl) {
		tpl = tpllist[id];
		tpllist[id] = NULL;
	}
	pthread_rwlock_unlock(&tpl_lock);
	if (tpl == NULL)
		return -ENOENT;
	tpl_destroy(tpl);
	return 0;
}

int
tpl_add_layout(const char *name, int base, const struct statsblob *layout,
    uint32_t hash)
{
	const struct statsblobv1 *lb = (const struct statsblobv1 *)layout;
	struct statsblob_tpl *tpl;
	const struct statsblob_tpl *bt;
	uint16_t i, n, bn;
	int id, e = 0;

	if (!tpl_name_valid(name) || lb == NULL || lb->abi != STATS_ABI_V1 ||
	    lb->cursz < SB_V1_HDRSZ)
		return -EINVAL;
	n = blob_nvois(lb);
	tpl = calloc(1, sizeof(*tpl));
	if (tpl == NULL)
		return -ENOMEM;
	tpl->mb = calloc(1, sizeof(*tpl->mb));
	tpl->sb = malloc(lb->cursz);
	if (tpl->mb == NULL || tpl->sb == NULL ||
	    (tpl->mb->voi_meta = calloc(n > 0 ? n : 1,
	    sizeof(*tpl->mb->voi_meta))) == NULL ||
	    (tpl->mb->tplname = strdup(name)) == NULL) {
		e = -ENOMEM;
		goto fail;
	}
	memcpy(tpl->sb, lb, lb->cursz);
	((struct statsblobv1 *)tpl->sb)->tplhash = hash;
	tpl->mb->tplhash = hash;
	pthread_rwlock_wrlock(&tpl_lock);
	bt = base >= 0 && base < ntpl ? tpllist[base] : NULL;
	if (bt == NULL || tpl_find_locked(name, 0) >= 0) {
		pthread_rwlock_unlock(&tpl_lock);
		e = bt == NULL ? -ENOENT : -EEXIST;
		goto fail;
	}
	/* The base's VOI names, by id: a re-lay keeps every VOI's id. */
	bn = blob_nvois((const struct statsblobv1 *)bt->sb);
	for (i = 0; i < n && i < bn && e == 0; i++)
		if (bt->mb->voi_meta[i].name != NULL &&
		    (tpl->mb->voi_meta[i].name =
		    strdup(bt->mb->voi_meta[i].name)) == NULL)
			e = -ENOMEM;
	id = e != 0 ? e : tpl_list_put_locked(tpl);
	pthread_rwlock_unlock(&tpl_lock);
	if (id >= 0)
		return id;
	e = id;
fail:
	if (tpl->mb != NULL && tpl->mb->voi_meta != NULL) {
		for (i = 0; i < n; i++)
			free(tpl->mb->voi_meta[i].name);
		free(tpl->mb->voi_meta);
	}
	if (tpl->mb != NULL)
		free(tpl->mb->tplname);
	free(tpl->mb);
	free(tpl->sb);
	free(tpl);
	return e;
}

int
stats_tpl_fetch_allocid(const char *name, uint32_t hash)
{
	int id;

	pthread_rwlock_rdlock(&tpl_lock);
	id = tpl_find_locked(name, hash);
	pthread_rwlock_unlock(&tpl_lock);
	return id;
}

int
stats_tpl_fetch(int tpl_id, struct statsblob_tpl **tpl)
{
	int error = 0;

	pthread_rwlock_rdlock(&tpl_lock);
	if (tpl_id < 0 || tpl_id >= ntpl || tpllist[tpl_id] == NULL)
		error = ENOENT;
	else if (tpl != NULL)
		*tpl = tpllist[tpl_id];
	pthread_rwlock_unlock(&tpl_lock);
	return error;
}

/* Blobs are made from their template: a copy of its blob, stamped. */
struct statsblob *
stats_blob_alloc(uint32_t tpl_id, uint32_t flags)
{
	struct statsblob_tpl *tpl;
	struct statsblob *sb;
	size_t sz;

	(void)flags;
	tpl_rlock();
	tpl = (struct statsblob_tpl *)tpl_get_locked((int)tpl_id);
	sz = tpl != NULL && tpl_id <= INT32_MAX ? tpl->sb->cursz : 0;
	tpl_runlock();
	if (sz == 0)
		return NULL;
	sb = calloc(1, sz);
	if (sb == NULL)
		return NULL;
	sb->maxsz = (uint16_t)sz;
	if (stats_blob_init(sb, tpl_id, 0) != 0) {
		free(sb);
		return NULL;
	}
	return sb;
}

/* A new blob's statistics that keep times take the blob's birth. */
static void
tpl_stamp(struct statsblobv1 *b, uint64_t now_ns)
{
	uint16_t v, n = blob_nvois(b);
	int s;

	for (v = 0; v < n; v++) {
		const struct voi *vp = &b->vois[v];
		const struct voistat *vs;

		if (vp->id < 0)
			continue;
		BLOB_FOREACH_VOISTAT(b, vp, s, vs)
			if (stype_ops[s].stamp != NULL)
				stype_ops[s].stamp(blob_vsd(b, vs), vs->dsz,
				    now_ns);
	}
}

int
stats_blob_init(struct statsblob *sb, uint32_t tpl_id, uint32_t flags)
{
	struct statsblobv1 *b = (struct statsblobv1 *)sb;
	const struct statsblob_tpl *tpl;
	int error = 0;

	(void)flags;
	if (sb == NULL || tpl_id > INT32_MAX)
		return EINVAL;
	tpl_rlock();
	tpl = tpl_get_locked((int)tpl_id);
	if (tpl == NULL) {
		error = EINVAL;
	} else if (sb->maxsz < tpl->sb->cursz) {
		error = EOVERFLOW;
	} else {
		/* As on FreeBSD, maxsz becomes the template's. */
		memcpy(sb, tpl->sb, tpl->sb->cursz);
		b->tplhash = tpl->mb->tplhash;
		b->created = b->lastrst = blob_sbinuptime();
		tpl_stamp(b, clock_now_ns());
	}
	tpl_runlock();
	return error;
}

const struct statsblob_tpl *
tpl_by_hash(uint32_t hash)
{
	const struct statsblob_tpl *tpl = NULL;
	int id;

	pthread_rwlock_rdlock(&tpl_lock);
	id = tpl_find_locked(NULL, hash);
	if (id >= 0)
		tpl = tpllist[id];
	pthread_rwlock_unlock(&tpl_lock);
	return tpl;
}

int
stats_tpl_id2name(uint32_t tpl_id, char *buf, size_t len)
{
	int error = 0;

	pthread_rwlock_rdlock(&tpl_lock);
	if (tpl_id >= (uint32_t)ntpl || tpllist[tpl_id] == NULL)
		error = ENOENT;
	else if (buf == NULL || len <= strlen(tpllist[tpl_id]->mb->tplname))
		error = EOVERFLOW;
	else
		strcpy(buf, tpllist[tpl_id]->mb->tplname);
	pthread_rwlock_unlock(&tpl_lock);
	return error;
}

int
stats_tpl_id2spec(uint32_t tpl_id, char *buf, size_t len)
{
	int error = 0, n;

	pthread_rwlock_rdlock(&tpl_lock);
	if (tpl_id >= (uint32_t)ntpl || tpllist[tpl_id] == NULL) {
		error = ENOENT;
	} else if (buf == NULL) {
		error = EOVERFLOW;
	} else {
		n = snprintf(buf, len, "\"%s\":%" PRIu32,
		    tpllist[tpl_id]->mb->tplname, tpllist[tpl_id]->mb->tplhash);
		if (n < 0 || (size_t)n >= len)
			error = EOVERFLOW;
	}
	pthread_rwlock_unlock(&tpl_lock);
	return error;
}

int
stats_tpl_spec_parse(const char *spec, char *name, size_t namelen,
    uint32_t *hash)
{
	const char *p, *colon, *nend;
	unsigned long long h = 0;
	size_t n;
	char *end;

	if (spec == NULL || name == NULL || hash == NULL ||
	    strlen(spec) > STATS_TPL_MAX_STR_SPEC_LEN)
		return EINVAL;
	p = spec;
	if (*p == '"') {
		nend = strchr(p + 1, '"');
		if (nend == NULL)
			return EINVAL;
		p++;
		colon = nend + 1;
		if (*colon != ':' && *colon != '\0')
			return EINVAL;
	} else {
		colon = strchr(p, ':');
		nend = colon != NULL ? colon : p + strlen(p);
	}
	n = (size_t)(nend - p);
	if (colon != NULL && *colon == ':') {
		const char *digits = colon + 1;

		if (*digits < '0' || *digits > '9')
			return EINVAL;
		errno = 0;
		h = strtoull(digits, &end, 10);
		if (*end != '\0' || errno == ERANGE || h > UINT32_MAX)
			return EINVAL;
	}
	if (n == 0 && (colon == NULL || *colon != ':'))
		return EINVAL;		/* neither a name nor a hash */
	if (n >= namelen)
		return EOVERFLOW;
	memcpy(name, p, n);
	name[n] = '\0';
	if (n > 0 && !tpl_name_valid(name))
		return EINVAL;
	*hash = (uint32_t)h;
	return 0;
}

int
stats_tpl_fetch_byspec(const char *spec)
{
	char name[TPL_MAX_NAME_LEN + 1];
	uint32_t hash;
	int error;

	error = stats_tpl_spec_parse(spec, name, sizeof(name), &hash);
	if (error != 0)
		return -EINVAL;
	return stats_tpl_fetch_allocid(name[0] != '\0' ? name : NULL, hash);
}

int
stats_tpl_list(struct sbuf *buf)
{
	int i, n;

	if (buf == NULL)
		return EINVAL;
	pthread_rwlock_rdlock(&tpl_lock);
	for (i = 0, n = 0; i < ntpl; i++)
		if (tpllist[i] != NULL)
			sbuf_printf(buf, "%s\"%s\":%" PRIu32, n++ > 0 ? "," :
			    "", tpllist[i]->mb->tplname,
			    tpllist[i]->mb->tplhash);
	pthread_rwlock_unlock(&tpl_lock);
	return sbuf_error(buf);
}

const char *
stats_vsd_dtype_name(enum vsd_dtype dtype)
{
	if ((int)dtype < 0 || dtype >= VSD_NUM_DTYPES)
		return NULL;
	return dtype_info[dtype].name;
}

const char *
stats_voi_stype_name(enum voi_stype stype)
{
	if ((int)stype < 0 || stype >= VS_NUM_STYPES)
		return NULL;
	return stype_ops[stype].name;
}

const char *
stats_strerror(int error)
{
	if (error < 0)
		error = -error;
	if (error == EFTYPE)
		return "Inappropriate file type or format";
	return strerror(error);
}

/*
 * Grow the template blob by one VOI (layout.c lays it out, FreeBSD's way:
 * the new VOI in front) and record the VOI's name.
 */
static int
tpl_add_voi_locked(struct statsblob_tpl *tpl, int32_t voi_id,
    const char *voi_name, enum vsd_dtype voi_dtype, uint32_t nvss,
    const struct voistatspec *vss, uint32_t flags)
{
	struct statsblob *nsb;
	uint16_t onvois = blob_nvois((struct statsblobv1 *)tpl->sb), nnvois, v;
	struct voi_meta *nmeta;
	char *namecopy;
	int error;

	error = layout_tpl_add_voi(tpl->sb, voi_id, voi_dtype, flags, nvss,
	    vss, &nsb);
	if (error != 0)
		return error;
	/* Names key JSON objects and flat "<voi>.<kind>" names: unique. */
	for (v = 0; v < onvois && voi_name[0] != '\0'; v++) {
		const char *other = tpl->mb->voi_meta[v].name;

		if (other != NULL && strcmp(other, voi_name) == 0) {
			free(nsb);
			return EINVAL;
		}
	}
	nnvois = voi_id >= onvois ? (uint16_t)(voi_id + 1) : onvois;
	namecopy = strdup(voi_name);
	nmeta = calloc(nnvois, sizeof(*nmeta));
	if (namecopy == NULL || nmeta == NULL) {
		free(nsb);
		free(namecopy);
		free(nmeta);
		return ENOMEM;
	}
	if (onvois > 0)
		memcpy(nmeta, tpl->mb->voi_meta,
		    (size_t)onvois * sizeof(*nmeta));
	nmeta[voi_id].name = namecopy;
	free(tpl->mb->voi_meta);
	tpl->mb->voi_meta = nmeta;
	free(tpl->sb);
	tpl->sb = nsb;
	tpl_update_hash(tpl);
	return 0;
}

int
stats_tpl_add_voistats(uint32_t tpl_id, int32_t voi_id, const char *voi_name,
    enum vsd_dtype voi_dtype, uint32_t nvss, struct voistatspec *vss,
    uint32_t flags)
{
	bool *owned = NULL;
	uint32_t i;
	int error = 0;

	if (voi_id < 0 || voi_id > INT16_MAX || !dtype_is_scalar(voi_dtype) ||
	    nvss == 0 || vss == NULL || !tpl_voi_name_valid(voi_name) ||
	    (flags & ~SB_VOI_RELUPDATE) != 0)
		return EINVAL;
	owned = calloc(nvss, sizeof(*owned));
	if (owned == NULL)
		return ENOMEM;
	/* Helpers run last to first and stop at the first failure. */
	for (i = nvss; i-- > 0;) {
		if (vss[i].hlpr == NULL)
			continue;
		error = vss[i].hlpr(voi_dtype, &vss[i], vss[i].hlprinfo);
		if (error != 0)
			break;
		owned[i] = true;
	}
	if (error == 0)
		error = layout_check_vss(voi_dtype, nvss, vss);
	if (error == 0) {
		pthread_rwlock_wrlock(&tpl_lock);
		if (tpl_id >= (uint32_t)ntpl || tpllist[tpl_id] == NULL)
			error = EINVAL;
		else
			error = tpl_add_voi_locked(tpllist[tpl_id], voi_id,
			    voi_name, voi_dtype, nvss, vss, flags);
		pthread_rwlock_unlock(&tpl_lock);
	}
	/* The helpers' allocations are ours to free, whatever happened. */
	for (i = 0; i < nvss; i++) {
		if (owned[i]) {
			free(vss[i].iv);
			vss[i].iv = NULL;
		}
	}
	free(owned);
	return error;
}
