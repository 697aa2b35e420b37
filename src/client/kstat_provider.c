/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kstat_provider.c: the provider calls of illumos kstat and Solaris kstat2
 * over statsd — create, install and delete kstats of every type and kstat2
 * histograms, and the explicit update calls, each a ring record.
 *
 * A provider's kstat is one allocation: the header the caller sees, the
 * kstat_io_t of an IO kstat and the data array of the others, so that the
 * update calls that get only a pointer into the data (the queue events, the
 * timers) find their kstat from it. Each kstat type has a fixed template
 * shape (named after its layout, so kstats of one layout share it):
 *
 *   NAMED   a VOI per value, by its name: LAST, with VOI state for adds;
 *           CHAR and STRING values a string statistic
 *   INTR    VOIs hard, soft, watchdog, spurious, multsvc: SUM (INT_U32)
 *   IO      one VOI "io": IOQ
 *   TIMER   a VOI per timer, by its name: TIMER
 *   RAW     a VOI per 8 bytes, "w<i>": LAST (INT_U64)
 *   HIST    one VOI "buckets": K2HIST (INT_U64)
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_priv.h"
#include "dec.h"
#include "kstat2_hist.h"
#include "kstat_hdr.h"
#include "stat_scalar.h"

#define KP_MAGIC	0x6b707276u	/* "kprv" */
#define KP_MAX_VOIS	256		/* statsd's TPLDEF_MAX_VOIS */
#define KP_RAW_MAX	(KP_MAX_VOIS * 8)
#define KP_STRING_LEN	256		/* least capacity of a STRING value */

struct kp {
	uint32_t	 magic;
	uint8_t		 type;
	bool		 installed;
	uint32_t	 ndata;
	struct cl_kobj	*o;
	uint64_t	*hist_buckets;	/* kstat2: pre-computed, until install */
	uint16_t	 hist_n;
	union {
		kstat_t		ks;
		kstat2_t	ks2;	/* begins with its kstat_t */
	} u;
	kstat_io_t	 io;
	uint64_t	 data[];	/* the other types' ks_data */
};

static const char *const kp_intr_names[KSTAT_NUM_INTRS] = {
	"hard", "soft", "watchdog", "spurious", "multsvc",
};

static struct kp *
kp_of(kstat_t *ksp, uint8_t type)
{
	struct kp *p;

	if (ksp == NULL)
		return NULL;
	p = (struct kp *)(void *)((char *)ksp - offsetof(struct kp, u));
	return p->magic == KP_MAGIC && p->type == type ? p : NULL;
}

static uint32_t
kp_handle(const struct kp *p)
{
	return atomic_load_explicit(&p->o->handle, memory_order_relaxed);
}

/* Record an error on the client without a caller to return it to. */
static void
kp_note(int err, const char *what, const char *why)
{
	pthread_mutex_lock(&cl.lock);
	(void)cl_fail(err, "%s: %s", what, why);
	pthread_mutex_unlock(&cl.lock);
}

static struct kp *
kp_new(const char *module, int instance, const char *name,
    const char *ks_class, uint8_t type, uint32_t ndata, uint32_t flags,
    size_t datasz)
{
	struct kp *p;
	int r;

	p = calloc(1, sizeof(*p) + datasz);
	if (p == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	p->o = calloc(1, sizeof(*p->o));
	if (p->o == NULL) {
		free(p);
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_lock(&cl.lock);
	r = cl_kobj_names(p->o, module, instance, name, ks_class);
	pthread_mutex_unlock(&cl.lock);
	if (r < 0) {
		cl_kobj_free(p->o);
		free(p);
		errno = -r;
		return NULL;
	}
	p->magic = KP_MAGIC;
	p->type = type;
	p->ndata = ndata;
	p->o->hdr.type = type;
	p->o->hdr.flags = flags & KS_FLAGS_MEANT;
	p->o->owner = p;
	ks_hdr_kstat(&p->u.ks, &p->o->hdr);
	/* The creator's flags as given, until statsd has it. */
	p->u.ks.ks_flags = flags | KSTAT_FLAG_INVALID;
	p->u.ks.ks_crtime = (hrtime_t)clock_now_ns();
	p->u.ks.ks_ndata = ndata;
	p->u.ks.ks_data_size = datasz;
	p->u.ks.ks_data = type == KSTAT_TYPE_IO ? (void *)&p->io :
	    (void *)p->data;
	if (type == KSTAT_TYPE_IO)
		p->u.ks.ks_data_size = sizeof(kstat_io_t);
	return p;
}

kstat_t *
kstat_create(const char *ks_module, int ks_instance, const char *ks_name,
    const char *ks_class, unsigned char ks_type, unsigned int ks_ndata,
    uint32_t ks_flag)
{
	struct kp *p;
	size_t datasz = 0;
	unsigned i;

	if (stats_client_default() == NULL)
		return NULL;
	switch (ks_type) {
	case KSTAT_TYPE_NAMED:
		if (ks_ndata == 0 || ks_ndata > KP_MAX_VOIS)
			goto inval;
		datasz = ks_ndata * sizeof(kstat_named_t);
		break;
	case KSTAT_TYPE_TIMER:
		if (ks_ndata == 0 || ks_ndata > KP_MAX_VOIS)
			goto inval;
		datasz = ks_ndata * sizeof(kstat_timer_t);
		break;
	case KSTAT_TYPE_INTR:
		if (ks_ndata != 1)
			goto inval;
		datasz = sizeof(kstat_intr_t);
		break;
	case KSTAT_TYPE_IO:
		if (ks_ndata != 1)
			goto inval;
		break;
	case KSTAT_TYPE_RAW:
		if (ks_ndata == 0 || ks_ndata > KP_RAW_MAX)
			goto inval;
		datasz = (ks_ndata + 7u) / 8u * 8u;
		break;
	default:
		goto inval;
	}
	if ((ks_flag & ~(uint32_t)KS_FLAGS_CREATOR) ||
	    ((ks_flag & KSTAT_FLAG_PERSISTENT) &&
	    (ks_flag & KSTAT_FLAG_VIRTUAL)))
		goto inval;
	p = kp_new(ks_module, ks_instance, ks_name, ks_class, ks_type,
	    ks_ndata, ks_flag, datasz);
	if (p == NULL)
		return NULL;
	if (ks_type == KSTAT_TYPE_RAW) {
		p->u.ks.ks_data_size = ks_ndata;
		/* Its bytes: readers read it at that size, not in words. */
		p->o->ndata = ks_ndata;
	}
	if (ks_type == KSTAT_TYPE_TIMER) {
		kstat_timer_t *kt = p->u.ks.ks_data;

		/* The index that takes a timer back to its kstat. */
		for (i = 0; i < ks_ndata; i++)
			kt[i].resv = (unsigned char)i;
	}
	return &p->u.ks;
inval:
	errno = EINVAL;
	return NULL;
}

void
kstat_named_init(kstat_named_t *knp, const char *name,
    unsigned char data_type)
{
	if (knp == NULL)
		return;
	memset(knp, 0, sizeof(*knp));
	if (name != NULL)
		strncpy(knp->name, name, KSTAT_STRLEN - 1);
	knp->data_type = data_type;
}

void
kstat_named_setstr(kstat_named_t *knp, const char *src)
{
	if (knp == NULL)
		return;
	knp->value.str.addr.ptr = (char *)(uintptr_t)src;
	knp->value.str.len = src != NULL ? (uint32_t)strlen(src) + 1 : 0;
}

void
kstat_timer_init(kstat_timer_t *ktp, const char *name)
{
	unsigned char resv;

	if (ktp == NULL)
		return;
	resv = ktp->resv;
	memset(ktp, 0, sizeof(*ktp));
	ktp->resv = resv;
	if (name != NULL)
		strncpy(ktp->name, name, KSTAT_STRLEN - 1);
}

/* ---------------------------------------------------- templates as JSON */

static json_t *
kp_voi(int id, const char *name, const char *dtype, bool rel, json_t *stat)
{
	return json_pack("{s:i, s:s, s:s, s:b, s:[o]}", "id", id, "name",
	    name, "dtype", dtype, "relupdate", rel, "stats", stat);
}

/*
 * The capacity of a STRING value: KP_STRING_LEN bytes, or room for the
 * string kstat_named_setstr() gave it if that is longer ("arbitrary-length
 * strings", up to statsd's STRING_MAX).
 */
static size_t
kp_string_cap(const kstat_named_t *kn)
{
	size_t n = kn->value.str.addr.ptr != NULL ?
	    strlen(kn->value.str.addr.ptr) + 1 : 0;

	return n > KP_STRING_LEN ? (n < STRING_MAX ? n : STRING_MAX) :
	    KP_STRING_LEN;
}

/* The VOIs of a kstat of p's type, from what the provider set up. */
static int
kp_vois(struct kp *p, json_t **ret)
{
	json_t *vois = json_array();
	char nm[16];
	unsigned i;

	switch (p->type) {
	case KSTAT_TYPE_NAMED:
		for (i = 0; i < p->ndata; i++) {
			const kstat_named_t *kn = (kstat_named_t *)p->data + i;
			const char *dt;
			json_t *st;

			switch (kn->data_type) {
			case KSTAT_DATA_INT32:
				dt = "INT_S32";
				break;
			case KSTAT_DATA_UINT32:
				dt = "INT_U32";
				break;
			case KSTAT_DATA_INT64:
				dt = "INT_S64";
				break;
			case KSTAT_DATA_UINT64:
				dt = "INT_U64";
				break;
			case KSTAT_DATA_CHAR:
			case KSTAT_DATA_STRING:
				dt = NULL;
				break;
			default:
				json_decref(vois);
				return cl_fail(EINVAL, "kstat_install: %s has "
				    "a named value of type %u", p->o->hdr.name,
				    kn->data_type);
			}
			st = dt != NULL ? json_pack("{s:s}", "kind", "LAST") :
			    kn->data_type == KSTAT_DATA_CHAR ?
			    json_pack("{s:s}", "kind", "CHAR") :
			    json_pack("{s:s, s:i}", "kind", "STRING", "maxlen",
			    (int)kp_string_cap(kn));
			json_array_append_new(vois, kp_voi((int)i, kn->name,
			    dt != NULL ? dt : "INT_S64", dt != NULL, st));
		}
		break;
	case KSTAT_TYPE_INTR:
		for (i = 0; i < KSTAT_NUM_INTRS; i++)
			json_array_append_new(vois, kp_voi((int)i,
			    kp_intr_names[i], "INT_U32", false,
			    json_pack("{s:s}", "kind", "SUM")));
		break;
	case KSTAT_TYPE_IO:
		json_array_append_new(vois, kp_voi(0, "io", "INT_S64", false,
		    json_pack("{s:s}", "kind", "IOQ")));
		break;
	case KSTAT_TYPE_TIMER:
		for (i = 0; i < p->ndata; i++) {
			const kstat_timer_t *kt = (kstat_timer_t *)p->data + i;

			snprintf(nm, sizeof(nm), "timer%u", i);
			json_array_append_new(vois, kp_voi((int)i,
			    kt->name[0] != '\0' ? kt->name : nm, "INT_S64",
			    false, json_pack("{s:s}", "kind", "TIMER")));
		}
		break;
	case KSTAT_TYPE_RAW:
		for (i = 0; i < (p->ndata + 7) / 8; i++) {
			snprintf(nm, sizeof(nm), "w%u", i);
			json_array_append_new(vois, kp_voi((int)i, nm,
			    "INT_U64", false, json_pack("{s:s}", "kind",
			    "LAST")));
		}
		break;
	case KSTAT_TYPE_HIST: {
		const kstat2_t *k2 = &p->u.ks2;

		json_array_append_new(vois, kp_voi(0, "buckets", "INT_U64",
		    false, json_pack("{s:s, s:s, s:I, s:I, s:I}", "kind",
		    "K2HIST", "scheme", k2hist_type_name(
		    (enum k2hist_type)k2->ks2_hist_type), "lb",
		    (json_int_t)k2->ks2_range_min, "ub",
		    (json_int_t)k2->ks2_range_max, "step",
		    (json_int_t)k2->ks2_stepping)));
		break;
	}
	default:
		json_decref(vois);
		return -EINVAL;
	}
	*ret = vois;
	return 0;
}

/* TemplateAdd parameters named after the layout: equal layouts share. */
static int
kp_template(struct kp *p, json_t **ret)
{
	json_t *vois = NULL;
	char *text, name[64];
	uint32_t h = 2166136261u;
	const char *c;
	int r;

	r = kp_vois(p, &vois);
	if (r < 0)
		return r;
	text = json_dumps(vois, JSON_COMPACT | JSON_SORT_KEYS);
	if (text == NULL) {
		json_decref(vois);
		return -ENOMEM;
	}
	for (c = text; *c != '\0'; c++)		/* FNV-1a */
		h = (h ^ (uint8_t)*c) * 16777619u;
	snprintf(name, sizeof(name), "kstat.%s.%08x", ks_type_id(p->o->hdr.type),
	    h);
	*ret = json_pack("{s:s, s:o}", "name", name, "vois", vois);
	/* The name and the VOIs' text tell the template: the connection
	 * knows whether it registered it without encoding it again. */
	free(p->o->tplkey);
	p->o->tplkey = NULL;
	if (*ret != NULL && asprintf(&p->o->tplkey, "%s %s", name, text) < 0)
		p->o->tplkey = NULL;
	free(text);
	return *ret != NULL ? 0 : -ENOMEM;
}

/*
 * The templates of the last NAMED layouts installed, by a text of the
 * layout (each value's name, data type and string capacity): kstats of
 * one layout share their template, made and encoded once, and the
 * connection knows it registered it by the object alone (kobj.c). A
 * process that makes thousands of kstats of a few layouts builds no JSON
 * for them. cl.lock held.
 */
#define KP_TPLS		16

static struct {
	char	*shape;
	json_t	*tpl;
	char	*tplkey;
} kp_tpls[KP_TPLS];
static unsigned kp_tpls_next;

/*
 * A NAMED kstat's layout as text, "N<ndata>" then "|<name>/<type>/<cap>"
 * a value; NULL for another type or no memory. Written by hand: eleven
 * snprintf() calls were an eighth of a kstat_install()'s CPU.
 */
static char *
kp_shape(const struct kp *p)
{
	size_t off = 0, nl;
	unsigned i;
	char *s;

	if (p->type != KSTAT_TYPE_NAMED)
		return NULL;
	/* Room for each value's name and three numbers of 20 digits. */
	s = malloc(24 + (size_t)p->ndata * (KSTAT_STRLEN + 64));
	if (s == NULL)
		return NULL;
	s[off++] = 'N';
	off += dec_u64(s + off, p->ndata);
	for (i = 0; i < p->ndata; i++) {
		const kstat_named_t *kn = (const kstat_named_t *)p->data + i;

		s[off++] = '|';
		nl = strnlen(kn->name, KSTAT_STRLEN);
		memcpy(s + off, kn->name, nl);
		off += nl;
		s[off++] = '/';
		off += dec_u64(s + off, kn->data_type);
		s[off++] = '/';
		off += dec_u64(s + off, kn->data_type == KSTAT_DATA_STRING ?
		    kp_string_cap(kn) : 0);
	}
	s[off] = '\0';
	return s;
}

/* p's template and key (references), from the layouts made already or
 * made now. Returns: 0; -errno. */
static int
kp_template_shared(struct kp *p, json_t **ret)
{
	char *shape = kp_shape(p);
	unsigned i;
	int r;

	for (i = 0; shape != NULL && i < KP_TPLS; i++)
		if (kp_tpls[i].shape != NULL &&
		    strcmp(kp_tpls[i].shape, shape) == 0) {
			free(shape);
			free(p->o->tplkey);
			p->o->tplkey = kp_tpls[i].tplkey != NULL ?
			    strdup(kp_tpls[i].tplkey) : NULL;
			*ret = json_incref(kp_tpls[i].tpl);
			return 0;
		}
	r = kp_template(p, ret);
	if (r < 0 || shape == NULL) {
		free(shape);
		return r;
	}
	i = kp_tpls_next++ % KP_TPLS;
	free(kp_tpls[i].shape);
	json_decref(kp_tpls[i].tpl);
	free(kp_tpls[i].tplkey);
	kp_tpls[i].shape = shape;
	kp_tpls[i].tpl = json_incref(*ret);
	kp_tpls[i].tplkey = p->o->tplkey != NULL ? strdup(p->o->tplkey) :
	    NULL;
	return 0;
}

/* ------------------------------------------------------- life cycle */

static void
kp_install(struct kp *p)
{
	json_t *tpl = NULL;
	int r;

	if (p->installed)
		return;
	pthread_mutex_lock(&cl.lock);
	r = kp_template_shared(p, &tpl);
	if (r < 0) {
		pthread_mutex_unlock(&cl.lock);
		return;
	}
	json_decref(p->o->tpl);
	p->o->tpl = tpl;
	r = cl_kobj_create_locked(p->o);
	if (r == -ENOTCONN) {
		/* Created when the client connects. */
		if (!p->o->listed)
			cl_kobj_list_add(p->o);
		cl_kick_locked();
		r = 0;
	}
	if (r == 0) {
		p->installed = true;
		p->u.ks.ks_flags &= ~(uint32_t)KSTAT_FLAG_INVALID;
		p->u.ks.ks_kid = (kid_t)kp_handle(p);
	}
	pthread_mutex_unlock(&cl.lock);
}

void
kstat_install(kstat_t *ksp)
{
	struct kp *p;
	unsigned i;

	if (ksp == NULL)
		return;
	p = (struct kp *)(void *)((char *)ksp - offsetof(struct kp, u));
	if (p->magic != KP_MAGIC)
		return;
	kp_install(p);
	/* Initial strings: the provider publishes them, WRITABLE or not. */
	if (p->installed && p->type == KSTAT_TYPE_NAMED) {
		for (i = 0; i < p->ndata; i++) {
			kstat_named_t *kn = (kstat_named_t *)p->data + i;

			if (kn->data_type == KSTAT_DATA_STRING &&
			    kn->value.str.addr.ptr != NULL)
				(void)kstat_named_set_string(ksp, kn,
				    kn->value.str.addr.ptr);
		}
	}
}

void
kstat_delete(kstat_t *ksp)
{
	struct kp *p;

	if (ksp == NULL)
		return;
	p = (struct kp *)(void *)((char *)ksp - offsetof(struct kp, u));
	if (p->magic != KP_MAGIC)
		return;
	pthread_mutex_lock(&cl.lock);
	if (p->installed)
		(void)cl_kobj_delete_locked(p->o);
	pthread_mutex_unlock(&cl.lock);
	cl_kobj_free(p->o);
	free(p->hist_buckets);
	p->magic = 0;
	free(p);
}

/* ----------------------------------------------------------- updates */

static int
kp_named_index(struct kp *p, const kstat_named_t *knp)
{
	const kstat_named_t *base = (const kstat_named_t *)p->data;

	if (knp < base || knp >= base + p->ndata)
		return -1;
	return (int)(knp - base);
}

void
kstat_named_set(kstat_t *ksp, kstat_named_t *knp, int64_t v)
{
	struct kp *p = kp_of(ksp, KSTAT_TYPE_NAMED);
	int i = p != NULL ? kp_named_index(p, knp) : -1;

	if (i >= 0)
		cl_push(kp_handle(p), (uint16_t)i, STATS_OP_SET, 0, v, 0, 0);
}

void
kstat_named_set_u64(kstat_t *ksp, kstat_named_t *knp, uint64_t v)
{
	struct kp *p = kp_of(ksp, KSTAT_TYPE_NAMED);
	int i = p != NULL ? kp_named_index(p, knp) : -1;

	if (i >= 0)
		cl_push(kp_handle(p), (uint16_t)i, STATS_OP_SET,
		    STATS_OPF_UNSIGNED, (int64_t)v, 0, 0);
}

void
kstat_named_add(kstat_t *ksp, kstat_named_t *knp, int64_t delta)
{
	struct kp *p = kp_of(ksp, KSTAT_TYPE_NAMED);
	int i = p != NULL ? kp_named_index(p, knp) : -1;

	if (i >= 0)
		cl_push(kp_handle(p), (uint16_t)i, STATS_OP_REL, 0, delta, 0,
		    0);
}

int
kstat_named_set_string(kstat_t *ksp, kstat_named_t *knp, const char *s)
{
	struct kp *p = kp_of(ksp, KSTAT_TYPE_NAMED);
	int i = p != NULL ? kp_named_index(p, knp) : -1;
	struct vlc_reply rep;
	int r;

	if (i < 0 || s == NULL || (knp->data_type != KSTAT_DATA_STRING &&
	    knp->data_type != KSTAT_DATA_CHAR) || strlen(s) >= (knp->data_type
	    == KSTAT_DATA_CHAR ? sizeof(knp->value.c) : STRING_MAX))
		return -EINVAL;
	pthread_mutex_lock(&cl.lock);
	r = cl_ensure_locked();
	if (r == 0)
		r = cl_call_locked(VL_M_WRITE, json_pack("{s:s, s:i, "
		    "s:s, s:{s:s}, s:b}", "module", p->o->hdr.module, "instance",
		    (int)p->o->hdr.instance, "name", p->o->hdr.name, "values",
		    knp->name, s, "publish", 1), NULL, 0, &rep);
	if (r == 0)
		vlc_reply_done(&rep);
	pthread_mutex_unlock(&cl.lock);
	return r;
}

void
kstat_intr_add(kstat_t *ksp, int which, uint32_t n)
{
	struct kp *p = kp_of(ksp, KSTAT_TYPE_INTR);

	if (p != NULL && which >= 0 && which < KSTAT_NUM_INTRS)
		cl_push(kp_handle(p), (uint16_t)which, STATS_OP_ABS, 0,
		    (int64_t)n, 0, 0);
}

static struct kp *
kp_of_io(kstat_io_t *kiop)
{
	struct kp *p;

	if (kiop == NULL)
		return NULL;
	p = (struct kp *)(void *)((char *)kiop - offsetof(struct kp, io));
	return p->magic == KP_MAGIC && p->type == KSTAT_TYPE_IO ? p : NULL;
}

/* A queue event, stamped now: the Riemann sums need the event's time,
 * not the time statsd drains it. */
static void
kp_queue(kstat_io_t *kiop, uint8_t op, uint8_t flags)
{
	struct kp *p = kp_of_io(kiop);

	if (p != NULL)
		cl_push(kp_handle(p), 0, op, flags, 0, 0, clock_now_ns());
}

void
kstat_waitq_enter(kstat_io_t *kiop)
{
	kp_queue(kiop, STATS_OP_QENTER, 0);
}

void
kstat_waitq_exit(kstat_io_t *kiop)
{
	kp_queue(kiop, STATS_OP_QEXIT, 0);
}

void
kstat_runq_enter(kstat_io_t *kiop)
{
	kp_queue(kiop, STATS_OP_QENTER, STATS_OPF_RUNQ);
}

void
kstat_runq_exit(kstat_io_t *kiop)
{
	kp_queue(kiop, STATS_OP_QEXIT, STATS_OPF_RUNQ);
}

void
kstat_waitq_to_runq(kstat_io_t *kiop)
{
	kp_queue(kiop, STATS_OP_QMOVE, 0);
}

void
kstat_runq_back_to_waitq(kstat_io_t *kiop)
{
	kp_queue(kiop, STATS_OP_QMOVE, STATS_OPF_RUNQ);
}

static void
kp_transfer(kstat_io_t *kiop, int64_t x)
{
	struct kp *p = kp_of_io(kiop);

	if (p != NULL)
		cl_push(kp_handle(p), 0, STATS_OP_XY, 0, x, 1, 0);
}

void
kstat_io_read(kstat_io_t *kiop, uint64_t nbytes)
{
	if (nbytes <= INT64_MAX)
		kp_transfer(kiop, (int64_t)nbytes);
}

void
kstat_io_write(kstat_io_t *kiop, uint64_t nbytes)
{
	if (nbytes <= INT64_MAX)
		kp_transfer(kiop, -(int64_t)nbytes);
}

static void
kp_timer(kstat_timer_t *ktp, uint8_t op)
{
	struct kp *p;
	char *base;

	if (ktp == NULL)
		return;
	/* resv is the timer's index: back to the array, then the kstat. */
	base = (char *)(ktp - ktp->resv);
	p = (struct kp *)(void *)(base - offsetof(struct kp, data));
	if (p->magic != KP_MAGIC || p->type != KSTAT_TYPE_TIMER ||
	    ktp->resv >= p->ndata)
		return;
	cl_push(kp_handle(p), ktp->resv, op, 0, 0, 0, clock_now_ns());
}

void
kstat_timer_start(kstat_timer_t *ktp)
{
	kp_timer(ktp, STATS_OP_TSTART);
}

void
kstat_timer_stop(kstat_timer_t *ktp)
{
	kp_timer(ktp, STATS_OP_TSTOP);
}

void
kstat_raw_update(kstat_t *ksp, size_t off, const void *buf, size_t len)
{
	struct kp *p = kp_of(ksp, KSTAT_TYPE_RAW);
	size_t w;

	if (p == NULL || buf == NULL || off > p->ndata ||
	    len > p->ndata - off || len == 0)
		return;
	memcpy((uint8_t *)p->data + off, buf, len);
	for (w = off / 8; w <= (off + len - 1) / 8; w++)
		cl_push(kp_handle(p), (uint16_t)w, STATS_OP_SET,
		    STATS_OPF_UNSIGNED, (int64_t)p->data[w], 0, 0);
}

/* ------------------------------------------------------------ kstat2 */

/* kstat2 path segments to module:instance:name and class. */
static int
kp_k2_names(const char *const *pseg, uint32_t npseg, const char **module,
    int *instance, const char **name, const char **cls)
{
	uint32_t i;

	*cls = pseg[0];
	*module = pseg[1];
	*instance = 0;
	*name = pseg[npseg - 1];
	for (i = npseg; i-- > 2;) {
		const char *s = pseg[i];

		if (s[0] != '\0' && strspn(s, "0123456789") == strlen(s) &&
		    strlen(s) < 10) {
			*instance = atoi(s);
			break;
		}
	}
	for (i = npseg; i-- > 2;) {
		const char *s = pseg[i];

		if (strspn(s, "0123456789") != strlen(s)) {
			*name = s;
			break;
		}
	}
	return 0;
}

kstat2_t *
kstat2_create_histogram(const char *ks_pseg[], uint32_t ks_npseg,
    zoneid_t ks_zone, kstat2_nv_hist_type_t type,
    kstat2_nv_metatype_t content_type, uint64_t scale,
    kstat2_nv_metaflag_t md_flags, uint64_t *buckets, uint16_t num_buckets,
    uint64_t range_min, uint64_t range_max, uint64_t stepping,
    uint32_t ks_flags, const char *desc, kstat2_metaflag_t ks_mflags)
{
	struct input_error kerr = { 0 };
	const char *module, *name, *cls;
	uint32_t nbkts = 0, flags, i;
	int instance, r;
	struct kp *p;

	if (stats_client_default() == NULL)
		return NULL;
	if (ks_pseg == NULL || ks_npseg < KS_NPSEG_MIN || ks_zone < ALL_ZONES ||
	    ks_npseg > KS_NPSEG_MAX || (unsigned)type > KSTAT2_NVHIST_LOG10_LIN
	    || (unsigned)content_type >= KSTAT2_NVMT_NUM ||
	    (buckets != NULL && num_buckets == 0) ||
	    (ks_flags & ~(uint32_t)(KSTAT2_FLAG_PERSISTENT | KSTAT2_FLAG_GZ_VIS |
	    KSTAT2_FLAG_PRIV)) != 0 || (ks_mflags & ~(KSTAT2_MF_STABLE |
	    KSTAT2_MF_PRIV)) != 0)
		goto inval;
	for (i = 0; i < ks_npseg; i++)
		if (ks_pseg[i] == NULL)
			goto inval;
	/* The buckets the parameters make (and that they are valid). */
	nbkts = K2HIST_LINEAR_MAXBKTS + 64;
	if (k2hist_bounds((enum k2hist_type)type, range_min, range_max,
	    stepping, NULL, &nbkts) != 0)
		goto inval;
	if (buckets != NULL && num_buckets > nbkts)
		goto inval;
	kp_k2_names(ks_pseg, ks_npseg, &module, &instance, &name, &cls);
	flags = (ks_flags & KSTAT2_FLAG_PERSISTENT) |
	    ((ks_flags & KSTAT2_FLAG_PRIV) || (ks_mflags & KSTAT2_MF_PRIV) ?
	    KSTAT_FLAG_PRIV : 0);
	p = kp_new(module, instance, name, cls, KSTAT_TYPE_HIST, 1, flags, 0);
	if (p == NULL)
		return NULL;
	/* The path and the description by the header's rules. */
	if (ks_hdr_set_path(&p->o->hdr, ks_pseg, ks_npseg, &kerr) < 0 ||
	    (desc != NULL && ks_hdr_set_desc(&p->o->hdr, desc, &kerr) < 0) ||
	    ks_hdr_set_content(&p->o->hdr, (uint8_t)content_type,
	    scale == 0 ? 1 : scale, &kerr) < 0) {
		kp_note(EINVAL, "kstat2_create_histogram", kerr.msg);
		kstat2_delete(&p->u.ks2);
		goto inval;
	}
	p->u.ks.ks_data = NULL;
	p->u.ks.ks_data_size = 0;
	/* Where it is seen: statsd decides what a zone's peer may name. */
	p->o->has_zone = true;
	p->o->zone = ks_zone;
	if (ks_flags & KSTAT2_FLAG_GZ_VIS)
		p->o->hdr.flags |= KSTAT2_FLAG_GZ_VIS;
	memcpy(p->u.ks2.ks2_path, p->o->hdr.path, sizeof(p->u.ks2.ks2_path));
	p->u.ks2.ks2_hist_type = type;
	p->u.ks2.ks2_content = content_type;
	p->u.ks2.ks2_scale = scale == 0 ? 1 : scale;
	p->u.ks2.ks2_md_flags = md_flags;
	p->u.ks2.ks2_mflags = ks_mflags;
	p->u.ks2.ks2_range_min = range_min;
	p->u.ks2.ks2_range_max = range_max;
	p->u.ks2.ks2_stepping = stepping;
	r = 0;
	p->u.ks2.ks2_desc = desc != NULL ? p->o->hdr.desc : NULL;
	if (buckets != NULL) {
		p->hist_buckets = malloc(num_buckets * sizeof(uint64_t));
		if (p->hist_buckets == NULL)
			r = -ENOMEM;
		else
			memcpy(p->hist_buckets, buckets,
			    num_buckets * sizeof(uint64_t));
		p->hist_n = num_buckets;
	}
	if (r < 0) {
		kstat2_delete(&p->u.ks2);
		errno = ENOMEM;
		return NULL;
	}
	return &p->u.ks2;
inval:
	errno = EINVAL;
	return NULL;
}

void
kstat2_install(kstat2_t *ksp2)
{
	struct kp *p = ksp2 != NULL ? kp_of(&ksp2->ks1, KSTAT_TYPE_HIST) :
	    NULL;
	uint64_t *lbs;
	uint32_t n, i;

	if (p == NULL)
		return;
	kp_install(p);
	if (!p->installed || p->hist_buckets == NULL)
		return;
	/* Pre-computed data: each bucket's count, at its lower bound. */
	n = K2HIST_LINEAR_MAXBKTS + 64;
	lbs = calloc(n, sizeof(*lbs));
	if (lbs != NULL && k2hist_bounds((enum k2hist_type)ksp2->ks2_hist_type,
	    ksp2->ks2_range_min, ksp2->ks2_range_max, ksp2->ks2_stepping, lbs,
	    &n) == 0) {
		for (i = 0; i < p->hist_n && i < n; i++)
			if (p->hist_buckets[i] > 0)
				cl_push(kp_handle(p), 0, STATS_OP_HIST,
				    STATS_OPF_UNSIGNED, (int64_t)lbs[i],
				    (int64_t)p->hist_buckets[i], 0);
	}
	free(lbs);
	free(p->hist_buckets);
	p->hist_buckets = NULL;
}

void
kstat2_delete(kstat2_t *ksp2)
{
	if (ksp2 != NULL)
		kstat_delete(&ksp2->ks1);
}

void
kstat2_hist_add_value(kstat2_t *ksp2, uint64_t value)
{
	kstat2_hist_add_values(ksp2, value, 1);
}

void
kstat2_hist_add_values(kstat2_t *ksp2, uint64_t value, uint64_t count)
{
	struct kp *p = ksp2 != NULL ? kp_of(&ksp2->ks1, KSTAT_TYPE_HIST) :
	    NULL;

	if (p != NULL && count > 0)
		cl_push(kp_handle(p), 0, STATS_OP_HIST, STATS_OPF_UNSIGNED,
		    (int64_t)value, (int64_t)count, 0);
}
