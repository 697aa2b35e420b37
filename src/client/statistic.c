/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * statistic.c: the exploiter API of the Linux statistics infrastructure over
 * statsd. An interface becomes kstat linux:0:<name> once something needs
 * statsd to know it (a definition, start, stop or reset); its template has a
 * VOI per statistic carrying the DEFN statistic. Definitions are sent as the
 * Linux definition lines (DefinitionSet), and remembered so that a
 * restarted statsd gets every statistic as it was defined. A statistic
 * created or removed on an interface statsd has already lays the kstat
 * out again in place (KstatRelayout): the other statistics keep their
 * data and definitions.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <statsd/statistic.h>

#include "client_priv.h"
#include "tpl.h"

#define SI_MAGIC	0x73696661u	/* "sifa" */
#define ST_MAGIC	0x73746174u	/* "stat" */
#define ST_DEFLINE	192

struct statistic {
	uint32_t			 magic;
	struct statistic_interface	*iface;
	uint16_t			 voi;
	bool				 on;
	char				 name[STATISTIC_NAME_SIZE];
	char				 units[STATISTIC_NAME_SIZE];
	char				 defline[ST_DEFLINE];	/* "" default */
	struct statistic		*next;
};

struct statistic_interface {
	uint32_t		 magic;
	struct cl_kobj		*o;
	struct statistic	*stats;		/* creation order */
	/* The next statistic's VOI id. Ids are never given twice in an
	 * interface's life: an update of a removed statistic still in a
	 * ring or a spill buffer then finds no VOI (statsd counts it)
	 * instead of landing on a newer statistic. */
	uint16_t		 next_voi;
	bool			 made;		/* statsd has it, this shape */
	int			 sent;		/* si_created's DefinitionSet */
};

/* ----------------------------------------------------------- the kstat */

/* Every statistic's definition and on state, as definition lines. */
static char *
si_lines(struct statistic_interface *si)
{
	struct statistic *st;
	size_t len = 1;
	char *text, *p;

	for (st = si->stats; st != NULL; st = st->next)
		len += 2 * (strlen(st->name) + 8) + strlen(st->defline) + 16;
	text = malloc(len);
	if (text == NULL)
		return NULL;
	p = text;
	*p = '\0';
	for (st = si->stats; st != NULL; st = st->next) {
		if (st->defline[0] != '\0')
			p += sprintf(p, "name=%s %s\n", st->name, st->defline);
		if (st->on)
			p += sprintf(p, "name=%s on=1\n", st->name);
	}
	return text;
}

static int
si_send_locked(struct statistic_interface *si, const char *text)
{
	struct vlc_reply rep;
	int r;

	if (text[0] == '\0')
		return 0;
	r = cl_call_locked(VL_M_DEFINITION_SET, json_pack("{s:s, s:i, "
	    "s:s, s:s}", "module", si->o->hdr.module, "instance",
	    (int)si->o->hdr.instance, "name", si->o->hdr.name, "text", text), NULL, 0,
	    &rep);
	if (r == 0)
		vlc_reply_done(&rep);
	return r;
}

/* After statsd created the kstat (again): bring the definitions back,
 * unless the create carried them (si_make_locked). */
static void
si_created(struct cl_kobj *o, bool revived)
{
	struct statistic_interface *si = o->owner;
	char *text;

	(void)revived;
	if (o->defs_taken) {
		si->sent = 0;
		return;
	}
	text = si_lines(si);
	si->sent = text != NULL ? si_send_locked(si, text) : -ENOMEM;
	free(text);
}

static int
si_template(struct statistic_interface *si, json_t **ret)
{
	struct statistic *st;
	json_t *vois = json_array();
	char *text, name[64];
	uint32_t h = 2166136261u;
	const char *c;

	for (st = si->stats; st != NULL; st = st->next)
		json_array_append_new(vois, json_pack("{s:i, s:s, s:s, "
		    "s:[{s:s, s:s}]}", "id", (int)st->voi, "name", st->name,
		    "dtype", "INT_S64", "stats", "kind", "DEFN", "units",
		    st->units));
	text = json_dumps(vois, JSON_COMPACT);
	if (text == NULL) {
		json_decref(vois);
		return -ENOMEM;
	}
	for (c = text; *c != '\0'; c++)		/* FNV-1a: one name a shape */
		h = (h ^ (uint8_t)*c) * 16777619u;
	snprintf(name, sizeof(name), "linux.%08x", h);
	*ret = json_pack("{s:s, s:o}", "name", name, "vois", vois);
	/* The name and the VOIs' text tell the template (kobj.c). */
	free(si->o->tplkey);
	si->o->tplkey = NULL;
	if (*ret != NULL && asprintf(&si->o->tplkey, "%s %s", name, text) < 0)
		si->o->tplkey = NULL;
	free(text);
	return *ret != NULL ? 0 : -ENOMEM;
}

/*
 * Interfaces of one shape (their statistics' ids, names and units) share
 * their template, made and encoded once, as kstat_provider.c's NAMED
 * kstats do: a process that makes many interfaces of a few shapes builds
 * no JSON for them, and the connection knows it registered the template
 * by the object alone (kobj.c). cl.lock held.
 */
#define SI_TPLS		16

static struct {
	char	*shape;
	json_t	*tpl;
	char	*tplkey;
} si_tpls[SI_TPLS];
static unsigned si_tpls_next;

/* si's statistics as text, each field by its length (units may hold
 * any printable byte); NULL: no memory. */
static char *
si_shape(const struct statistic_interface *si)
{
	const struct statistic *st;
	size_t len = 1, off = 0;
	char *s;

	for (st = si->stats; st != NULL; st = st->next)
		len += strlen(st->name) + strlen(st->units) + 48;
	s = malloc(len);
	if (s == NULL)
		return NULL;
	s[0] = '\0';
	for (st = si->stats; st != NULL; st = st->next)
		off += (size_t)snprintf(s + off, len - off, "%u:%zu:%s%zu:%s;",
		    (unsigned)st->voi, strlen(st->name), st->name,
		    strlen(st->units), st->units);
	return s;
}

/* si's template and key (references), from the shapes made already or
 * made now. Returns: 0; -errno. */
static int
si_template_shared(struct statistic_interface *si, json_t **ret)
{
	char *shape = si_shape(si);
	unsigned i;
	int r;

	for (i = 0; shape != NULL && i < SI_TPLS; i++)
		if (si_tpls[i].shape != NULL &&
		    strcmp(si_tpls[i].shape, shape) == 0) {
			free(shape);
			free(si->o->tplkey);
			si->o->tplkey = si_tpls[i].tplkey != NULL ?
			    strdup(si_tpls[i].tplkey) : NULL;
			*ret = json_incref(si_tpls[i].tpl);
			return 0;
		}
	r = si_template(si, ret);
	if (r < 0 || shape == NULL) {
		free(shape);
		return r;
	}
	i = si_tpls_next++ % SI_TPLS;
	free(si_tpls[i].shape);
	json_decref(si_tpls[i].tpl);
	free(si_tpls[i].tplkey);
	si_tpls[i].shape = shape;
	si_tpls[i].tpl = json_incref(*ret);
	si_tpls[i].tplkey = si->o->tplkey != NULL ? strdup(si->o->tplkey) :
	    NULL;
	return 0;
}

/* Make statsd's kstat match the statistics we have. cl.lock held. */
static int
si_make_locked(struct statistic_interface *si)
{
	json_t *tpl;
	char *lines;
	int r;

	if (si->made)
		return 0;
	r = cl_ensure_locked();
	if (r < 0)
		return r;
	if (si->o->listed) {
		/* Another shape: statsd cannot add or drop a VOI. */
		r = cl_kobj_delete_locked(si->o);
		if (r < 0 && r != -ENOENT)
			return r;
		si->o->deleted = false;
	}
	if (si->stats == NULL)
		return 0;
	r = si_template_shared(si, &tpl);
	if (r < 0)
		return r;
	json_decref(si->o->tpl);
	si->o->tpl = tpl;
	si->sent = 0;
	/* Every line goes with the create, in its one round trip: statsd
	 * makes the kstat with all of them or not at all, so a refused
	 * line leaves no kstat without its definitions behind. (A statsd
	 * that cannot take them, or a kstat that exists, gets them after,
	 * by si_created.) */
	lines = si_lines(si);
	if (lines == NULL)
		return -ENOMEM;
	si->o->defs = lines;
	r = cl_kobj_create_locked(si->o);
	si->o->defs = NULL;
	free(lines);
	if (r == 0)
		si->made = true;
	return r < 0 ? r : si->sent;
}

/*
 * statsd has the kstat, and a statistic was created or removed: lay it
 * out again in place, every other statistic keeping its data and its
 * definition (statsd carries them across). With no statistic left, or
 * no statsd to ask, the kstat is made again when next needed. cl.lock
 * held. Returns: 0; -errno of the calls.
 */
static int
si_relayout_locked(struct statistic_interface *si)
{
	json_t *tpl;
	int r;

	if (!si->made)
		return 0;
	if (si->stats == NULL || !si->o->listed) {
		si->made = false;
		return si_make_locked(si);
	}
	r = si_template_shared(si, &tpl);
	if (r < 0)
		return r;
	r = cl_kobj_relayout_locked(si->o, tpl);
	json_decref(tpl);
	if (r == -ENOTCONN)
		si->made = false;	/* made again, with every line */
	return r;
}

static struct statistic *
st_of(struct statistic *st)
{
	return st != NULL && st->magic == ST_MAGIC ? st : NULL;
}

/* Send one statistic's line, making the kstat first if need be. */
static int
st_send(struct statistic *st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
st_send(struct statistic *st, const char *fmt, ...)
{
	struct statistic_interface *si = st->iface;
	char line[ST_DEFLINE + STATISTIC_NAME_SIZE + 16];
	va_list ap;
	int n, r;

	n = snprintf(line, sizeof(line), "name=%s ", st->name);
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&cl.lock);
	if (!si->made) {
		/* The new kstat gets every line, this one included. */
		r = si_make_locked(si);
	} else {
		r = cl_ensure_locked();
		if (r == 0)
			r = si_send_locked(si, line);
	}
	pthread_mutex_unlock(&cl.lock);
	return r;
}

/* ------------------------------------------------------------ the API */

int
statistic_create_interface(struct statistic_interface **iface,
    const char *name)
{
	struct statistic_interface *si;
	int r;

	if (iface == NULL || *iface != NULL || name == NULL)
		return -EINVAL;
	if (stats_client_default() == NULL)
		return -errno;
	si = calloc(1, sizeof(*si));
	if (si == NULL)
		return -ENOMEM;
	si->o = calloc(1, sizeof(*si->o));
	if (si->o == NULL) {
		free(si);
		return -ENOMEM;
	}
	pthread_mutex_lock(&cl.lock);
	r = cl_kobj_names(si->o, "linux", 0, name, "linux");
	pthread_mutex_unlock(&cl.lock);
	if (r < 0 || strcmp(si->o->hdr.name, name) != 0) {
		cl_kobj_free(si->o);
		free(si);
		return r < 0 ? r : -EINVAL;
	}
	si->magic = SI_MAGIC;
	si->o->owner = si;
	si->o->created = si_created;
	*iface = si;
	return 0;
}

int
statistic_interface_remove(struct statistic_interface **iface)
{
	struct statistic_interface *si;
	struct statistic *st;
	int r = 0;

	if (iface == NULL || *iface == NULL || (*iface)->magic != SI_MAGIC)
		return -EINVAL;
	si = *iface;
	pthread_mutex_lock(&cl.lock);
	if (si->o->listed)
		r = cl_kobj_delete_locked(si->o);
	pthread_mutex_unlock(&cl.lock);
	while ((st = si->stats) != NULL) {
		si->stats = st->next;
		st->magic = 0;
		free(st);
	}
	cl_kobj_free(si->o);
	si->magic = 0;
	free(si);
	*iface = NULL;
	return r;
}

static bool
st_units_ok(const char *u)
{
	size_t i;

	for (i = 0; u[i] != '\0'; i++)
		if (u[i] <= ' ' || u[i] > '~')
			return false;
	return i < STATISTIC_NAME_SIZE;
}

int
statistic_create(struct statistic **stat, struct statistic_interface *iface,
    const char *name, const char *units)
{
	struct statistic *st, **pp;
	int r = 0;

	if (stat == NULL || *stat != NULL || iface == NULL ||
	    iface->magic != SI_MAGIC || name == NULL || name[0] == '\0' ||
	    strlen(name) >= STATISTIC_NAME_SIZE || !tpl_voi_name_valid(name) ||
	    (units != NULL && !st_units_ok(units)))
		return -EINVAL;
	pthread_mutex_lock(&cl.lock);
	for (pp = &iface->stats; *pp != NULL; pp = &(*pp)->next) {
		if (strcmp((*pp)->name, name) == 0) {
			pthread_mutex_unlock(&cl.lock);
			return -EEXIST;
		}
	}
	if (iface->next_voi > INT16_MAX) {
		pthread_mutex_unlock(&cl.lock);
		return -ENOSPC;
	}
	st = calloc(1, sizeof(*st));
	if (st == NULL) {
		pthread_mutex_unlock(&cl.lock);
		return -ENOMEM;
	}
	st->magic = ST_MAGIC;
	st->iface = iface;
	st->voi = iface->next_voi;
	strcpy(st->name, name);
	if (units != NULL)
		strcpy(st->units, units);
	*pp = st;
	/* A kstat statsd has already: lay it out again, now. */
	r = si_relayout_locked(iface);
	if (r < 0 && r != -ENOTCONN) {
		/* statsd refused the new shape: the statistic is not made. */
		*pp = NULL;
		pthread_mutex_unlock(&cl.lock);
		free(st);
		return r;
	}
	iface->next_voi++;
	pthread_mutex_unlock(&cl.lock);
	*stat = st;
	return r;
}

int
statistic_remove(struct statistic **stat)
{
	struct statistic *st;
	struct statistic_interface *si;
	struct statistic **pp;
	int r = 0;

	if (stat == NULL || (st = st_of(*stat)) == NULL)
		return -EINVAL;
	si = st->iface;
	pthread_mutex_lock(&cl.lock);
	for (pp = &si->stats; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == st) {
			*pp = st->next;
			break;
		}
	}
	r = si_relayout_locked(si);
	pthread_mutex_unlock(&cl.lock);
	st->magic = 0;
	free(st);
	*stat = NULL;
	return r;
}

static int
st_define(struct statistic *st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
st_define(struct statistic *st, const char *fmt, ...)
{
	char line[ST_DEFLINE], old[ST_DEFLINE];
	va_list ap;
	int r;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&cl.lock);
	memcpy(old, st->defline, sizeof(old));
	memcpy(st->defline, line, sizeof(line));
	pthread_mutex_unlock(&cl.lock);
	r = st_send(st, "%s", line);
	if (r < 0) {
		/* statsd refused it: a later layout must not send it again. */
		pthread_mutex_lock(&cl.lock);
		memcpy(st->defline, old, sizeof(old));
		pthread_mutex_unlock(&cl.lock);
	}
	return r;
}

#define ST_RANGE "range_min=%" PRId64 " range_max=%" PRId64

int
statistic_define_value(struct statistic *stat, int64_t range_min,
    int64_t range_max, int mode)
{
	struct statistic *st = st_of(stat);

	if (st == NULL || range_min > range_max ||
	    (mode != STATISTIC_DEF_MODE_INC && mode != STATISTIC_DEF_MODE_PROD))
		return -EINVAL;
	return st_define(st, "type=value " ST_RANGE " mode=%s", range_min,
	    range_max, mode == STATISTIC_DEF_MODE_INC ? "increments" :
	    "products");
}

int
statistic_define_range(struct statistic *stat, int64_t range_min,
    int64_t range_max)
{
	struct statistic *st = st_of(stat);

	if (st == NULL || range_min > range_max)
		return -EINVAL;
	return st_define(st, "type=range " ST_RANGE, range_min, range_max);
}

int
statistic_define_array(struct statistic *stat, int64_t range_min,
    int64_t range_max, uint32_t base_interval, uint8_t scale)
{
	struct statistic *st = st_of(stat);

	if (st == NULL || range_min > range_max || base_interval == 0 ||
	    (scale != STATISTIC_DEF_SCALE_LIN &&
	    scale != STATISTIC_DEF_SCALE_LOG2))
		return -EINVAL;
	return st_define(st, "type=array " ST_RANGE " base_interval=%" PRIu32
	    " scale=%s", range_min, range_max, base_interval,
	    scale == STATISTIC_DEF_SCALE_LIN ? "lin" : "log2");
}

/* A list or a raw statistic: both keep up to entries_max values in a
 * range, and differ only in what they keep. */
static int
st_define_entries(struct statistic *stat, const char *type,
    int64_t range_min, int64_t range_max, uint32_t entries_max)
{
	struct statistic *st = st_of(stat);

	if (st == NULL || range_min > range_max || entries_max == 0)
		return -EINVAL;
	return st_define(st, "type=%s " ST_RANGE " entries_max=%" PRIu32,
	    type, range_min, range_max, entries_max);
}

int
statistic_define_list(struct statistic *stat, int64_t range_min,
    int64_t range_max, uint32_t entries_max)
{
	return st_define_entries(stat, "list", range_min, range_max,
	    entries_max);
}

int
statistic_define_raw(struct statistic *stat, int64_t range_min,
    int64_t range_max, uint32_t entries_max)
{
	return st_define_entries(stat, "raw", range_min, range_max,
	    entries_max);
}

int
statistic_define_history(struct statistic *stat, int64_t range_min,
    int64_t range_max, uint32_t entries_max, uint64_t period, int mode)
{
	struct statistic *st = st_of(stat);
	static const char *const modes[] = { "increments", "products",
	    "range" };

	if (st == NULL || range_min > range_max || entries_max == 0 ||
	    period == 0 || mode < 0 || mode > STATISTIC_DEF_MODE_RANGE)
		return -EINVAL;
	return st_define(st, "type=history " ST_RANGE " entries_max=%" PRIu32
	    " mode=%s period=%" PRIu64, range_min, range_max, entries_max,
	    modes[mode], period);
}

static int
st_onoff(struct statistic *stat, bool on)
{
	struct statistic *st = st_of(stat);
	bool prev;
	int r;

	if (st == NULL)
		return -EINVAL;
	pthread_mutex_lock(&cl.lock);
	prev = st->on;
	st->on = on;
	pthread_mutex_unlock(&cl.lock);
	r = st_send(st, "on=%d", on ? 1 : 0);
	if (r < 0) {
		pthread_mutex_lock(&cl.lock);
		st->on = prev;
		pthread_mutex_unlock(&cl.lock);
		return r;
	}
	return prev ? STATISTIC_DEF_ON : STATISTIC_DEF_OFF;
}

int
statistic_start(struct statistic *stat)
{
	return st_onoff(stat, true);
}

int
statistic_stop(struct statistic *stat)
{
	return st_onoff(stat, false);
}

int
statistic_reset(struct statistic *stat)
{
	struct statistic *st = st_of(stat);

	if (st == NULL)
		return -EINVAL;
	return st_send(st, "data=reset");
}

uint64_t
statistic_add(struct statistic *stat, int64_t x, uint64_t y)
{
	if (stat != NULL && stat->magic == ST_MAGIC && y > 0 &&
	    y <= INT64_MAX)
		cl_push(atomic_load_explicit(&stat->iface->o->handle,
		    memory_order_relaxed), stat->voi, STATS_OP_XY, 0, x,
		    (int64_t)y, 0);
	return 0;
}

uint64_t
statistic_inc(struct statistic *stat, int64_t x)
{
	return statistic_add(stat, x, 1);
}

uint64_t
statistic_add_nolock(struct statistic *stat, int64_t x, uint64_t y)
{
	return statistic_add(stat, x, y);
}

uint64_t
statistic_inc_nolock(struct statistic *stat, int64_t x)
{
	return statistic_add(stat, x, 1);
}
