/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * defn.c: Linux definition lines — the attribute table, the parser, the
 * rules for applying a line (as the Linux statistics infrastructure's
 * documentation and code have them), and the definition file's rendering.
 *
 * Where the Linux code is silent or surprising, statsd chooses (and
 * docs/formats.md records): a writable attribute with a bad value is an
 * error, not junk; a redefinition without name=, an unknown name, and an
 * attribute that does not apply to the statistic's type are errors, not
 * silently ignored; on= is honoured on a line that redefines (Linux ignores
 * on=0 there); attributes equal to the current ones are no change, so a
 * definition file written back resets nothing; a text applies as a whole
 * or not at all.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blob.h"
#include "defn.h"
#include "kind.h"
#include "layout.h"
#include "numeric.h"
#include "stat_history.h"
#include "stat_list.h"
#include "stat_scalar.h"

enum defn_vtype {
	DV_NAME,	/* the statistic the line is about */
	DV_READONLY,	/* shown, never written */
	DV_TYPE,
	DV_DATA,	/* "reset", or a timestamp (read-only form) */
	DV_BOOL,
	DV_S64,		/* base 0, as the Linux code's match_token %s + strtoll */
	DV_U32,		/* decimal */
	DV_INT,		/* decimal, ≥ 1 */
	DV_U64,		/* base 0 */
	DV_SCALE,
	DV_MODE,
};

enum defn_attr {
	A_NAME, A_UNITS, A_TYPE, A_DATA, A_ON, A_STARTED, A_STOPPED,
	A_RANGE_MIN, A_RANGE_MAX, A_HITS_OOR, A_ENTRIES_MAX, A_HITS_MISSED,
	A_SCALE, A_BASE_INTERVAL, A_MODE, A_PERIOD, A_NUM
};

#define T(t)	(1u << (t))
#define ALL	(T(DEFN_VALUE) | T(DEFN_RANGE) | T(DEFN_ARRAY) | T(DEFN_LIST) | \
		    T(DEFN_HISTORY) | T(DEFN_RAW))

/* The Linux documentation's two attribute tables, as one. */
const struct defn_attr_info defn_attrs[A_NUM] = {
	[A_NAME]	  = { "name", DV_NAME, false, false, ALL, 0 },
	[A_UNITS]	  = { "units", DV_READONLY, false, false, ALL, 0 },
	[A_TYPE]	  = { "type", DV_TYPE, true, true, ALL, 0 },
	[A_DATA]	  = { "data", DV_DATA, true, false, ALL, 0 },
	[A_ON]		  = { "on", DV_BOOL, true, false, ALL, 0 },
	[A_STARTED]	  = { "started", DV_READONLY, false, false, ALL, 0 },
	[A_STOPPED]	  = { "stopped", DV_READONLY, false, false, ALL, 0 },
	[A_RANGE_MIN]	  = { "range_min", DV_S64, true, true, ALL, 0 },
	[A_RANGE_MAX]	  = { "range_max", DV_S64, true, true, ALL, 0 },
	[A_HITS_OOR]	  = { "hits_out_of_range", DV_READONLY, false, false,
			      ALL, 0 },
	[A_ENTRIES_MAX]	  = { "entries_max", DV_U32, true, true,
			      T(DEFN_LIST) | T(DEFN_HISTORY) | T(DEFN_RAW),
			      T(DEFN_LIST) | T(DEFN_HISTORY) | T(DEFN_RAW) },
	[A_HITS_MISSED]	  = { "hits_missed", DV_READONLY, false, false,
			      T(DEFN_LIST), 0 },
	[A_SCALE]	  = { "scale", DV_SCALE, true, true, T(DEFN_ARRAY),
			      T(DEFN_ARRAY) },
	[A_BASE_INTERVAL] = { "base_interval", DV_INT, true, true,
			      T(DEFN_ARRAY), T(DEFN_ARRAY) },
	[A_MODE]	  = { "mode", DV_MODE, true, true,
			      T(DEFN_VALUE) | T(DEFN_HISTORY),
			      T(DEFN_VALUE) | T(DEFN_HISTORY) },
	[A_PERIOD]	  = { "period", DV_U64, true, true, T(DEFN_HISTORY),
			      T(DEFN_HISTORY) },
};
const unsigned defn_nattrs = A_NUM;

/* One parsed line. */
struct defn_line {
	bool		 given[A_NUM];
	unsigned	 col[A_NUM];
	const char	*name;
	size_t		 namelen;
	uint8_t		 type, mode, scale, on;
	int64_t		 range_min, range_max;
	uint32_t	 entries_max;
	uint64_t	 base_interval, period;
	bool		 reset;
};

static int
defn_fail(struct input_error *err, int error, unsigned line, unsigned col,
    const char *attr, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

static int
defn_fail(struct input_error *err, int error, unsigned line, unsigned col,
    const char *attr, const char *fmt, ...)
{
	va_list ap;
	int r;

	if (err != NULL) {
		err->line = line;
		err->col = col;
	}
	va_start(ap, fmt);
	r = input_vfail(err, error, attr, fmt, ap);
	va_end(ap);
	return r;
}

/* ------------------------------------------------------------ the model */

static struct voistat *
defn_stat(const struct statsblobv1 *b, uint16_t voi_id, int stype)
{
	if (voi_id >= blob_nvois(b) || b->vois[voi_id].id < 0)
		return NULL;
	return blob_stat(b, &b->vois[voi_id], stype);
}

const struct vsd_defn *
defn_get(const struct statsblob *sb, uint16_t voi_id)
{
	const struct statsblobv1 *b = (const struct statsblobv1 *)sb;
	struct voistat *vs;

	if (b == NULL || b->abi != STATS_ABI_V1)
		return NULL;
	vs = defn_stat(b, voi_id, VS_STYPE_DEFN);
	return vs != NULL ? (const struct vsd_defn *)blob_vsd(b, vs) : NULL;
}

static struct vsd_defn *
defn_get_rw(struct statsblob *sb, uint16_t voi_id)
{
	return (struct vsd_defn *)(uintptr_t)defn_get(sb, voi_id);
}

int
defn_set_on(struct statsblob *sb, uint16_t voi_id, bool on, uint64_t now)
{
	struct vsd_defn *d = defn_get_rw(sb, voi_id);
	int was;

	if (d == NULL)
		return -ENOENT;
	was = d->on;
	if (was != on) {
		d->on = on;
		if (on)
			d->started_ns = now;
		else
			d->stopped_ns = now;
	}
	return was;
}

int
defn_reset(struct statsblob *sb, uint16_t voi_id, uint64_t now)
{
	struct statsblobv1 *b = (struct statsblobv1 *)sb;
	struct vsd_defn *d = defn_get_rw(sb, voi_id);
	const struct voi *v;
	struct voistat *vs;
	int s;

	if (d == NULL)
		return -ENOENT;
	v = &b->vois[voi_id];
	BLOB_FOREACH_STAT(b, v, s, vs) {
		if (s == VS_STYPE_DEFN)
			continue;
		stype_ops[s].reset(blob_vsd(b, vs), vs->dsz, vs->dtype,
		    v->dtype);
		vs->errs = 0;
		vs->flags &= ~VS_VSDVALID;
	}
	stat_defn_reset_at(d, now);
	return 0;
}

static void
defn_vss_free(struct voistatspec *vss, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		free(vss[i].iv);
}

static struct statsblob *
defn_copy(const struct statsblob *sb)
{
	struct statsblob *c = malloc(sb->cursz);

	if (c != NULL) {
		memcpy(c, sb, sb->cursz);
		c->maxsz = c->cursz;
	}
	return c;
}

/* Do the VOI's statistics have exactly the shapes vss describes? */
static bool
defn_same_shape(const struct statsblobv1 *b, uint16_t voi_id,
    const struct voistatspec *vss, uint32_t nvss)
{
	const struct voi *v = &b->vois[voi_id];
	const struct voistat *vs;
	uint32_t i, have = 0;
	int s;

	BLOB_FOREACH_STAT(b, v, s, vs)
		have++;
	if (have != nvss || (v->flags & VOI_REQSTATE))
		return false;
	for (i = 0; i < nvss; i++) {
		vs = defn_stat(b, voi_id, vss[i].stype);
		if (vs == NULL || vs->dtype != vss[i].vs_dtype ||
		    vs->dsz != vss[i].vsdsz)
			return false;
	}
	return true;
}

int
defn_stat_create(const struct statsblob *sb, uint16_t voi_id,
    const char *units, uint64_t now, struct statsblob **ret)
{
	const struct statsblobv1 *b = (const struct statsblobv1 *)sb;
	struct voistatspec vss[DEFN_MAX_VSS];
	uint32_t nvss = DEFN_MAX_VSS;
	struct vsd_defn d;
	size_t i, n;
	int e;

	if (b == NULL || ret == NULL || b->abi != STATS_ABI_V1 ||
	    voi_id > INT16_MAX ||
	    (voi_id < blob_nvois(b) && b->vois[voi_id].id >= 0))
		return -EINVAL;
	n = units != NULL ? strlen(units) : 0;
	if (n > DEFN_UNITS_MAX)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		/* Units travel as one token of a definition line. */
		if ((unsigned char)units[i] <= ' ' ||
		    (unsigned char)units[i] >= 0x7f)
			return -EINVAL;
	}
	stat_defn_default(&d, units, now);
	e = stat_defn_vss(&d, vss, &nvss);
	if (e != 0)
		return -e;
	e = layout_set_voi(sb, voi_id, VSD_DTYPE_INT_S64, 0, nvss, vss, ret);
	defn_vss_free(vss, nvss);
	return -e;
}

/* The attributes that make up a definition (not its state). */
static bool
defn_differs(const struct vsd_defn *a, const struct vsd_defn *b)
{
	return a->type != b->type || a->mode != b->mode ||
	    a->scale != b->scale || a->entries_max != b->entries_max ||
	    a->range_min != b->range_min || a->range_max != b->range_max ||
	    a->base_interval != b->base_interval ||
	    a->period_us != b->period_us;
}

int
defn_define(const struct statsblob *sb, uint16_t voi_id,
    const struct vsd_defn *nd, uint64_t now, struct statsblob **ret,
    bool *ret_relaid, const char **ret_attr)
{
	const struct statsblobv1 *b = (const struct statsblobv1 *)sb;
	struct voistatspec vss[DEFN_MAX_VSS];
	uint32_t nvss = DEFN_MAX_VSS, i;
	const struct vsd_defn *d;
	struct statsblob *out;
	struct vsd_defn def;
	const char *why;
	bool relaid = false;
	int e;

	if (ret_attr != NULL)
		*ret_attr = NULL;
	if (sb == NULL || nd == NULL || ret == NULL)
		return -EINVAL;
	d = defn_get(sb, voi_id);
	if (d == NULL)
		return -ENOENT;
	def = *d;
	def.type = nd->type;
	def.mode = nd->mode;
	def.scale = nd->scale;
	def.entries_max = nd->entries_max;
	def.range_min = nd->range_min;
	def.range_max = nd->range_max;
	def.base_interval = nd->base_interval;
	def.period_us = nd->period_us;
	def.on = nd->on;
	why = stat_defn_valid(&def, ret_attr);
	if (why != NULL)
		return -EINVAL;
	if (def.on != d->on) {
		if (def.on)
			def.started_ns = now;
		else
			def.stopped_ns = now;
	}
	/* A redefinition discards the statistic's data. */
	stat_defn_reset_at(&def, now);
	e = stat_defn_vss(&def, vss, &nvss);
	if (e != 0)
		return -e;
	if (defn_same_shape(b, voi_id, vss, nvss)) {
		out = defn_copy(sb);
		e = out == NULL ? ENOMEM : 0;
		for (i = 0; e == 0 && i < nvss; i++) {
			struct voistat *vs = defn_stat(
			    (const struct statsblobv1 *)out, voi_id,
			    vss[i].stype);

			memcpy(blob_vsd((struct statsblobv1 *)out, vs),
			    vss[i].iv, vss[i].vsdsz);
			vs->errs = 0;
			if (vss[i].stype == VS_STYPE_DEFN)
				vs->flags |= VS_VSDVALID;
			else
				vs->flags &= ~VS_VSDVALID;
		}
	} else {
		e = layout_set_voi(sb, voi_id, VSD_DTYPE_INT_S64, 0, nvss, vss,
		    &out);
		relaid = e == 0;
	}
	defn_vss_free(vss, nvss);
	if (e != 0)
		return -e;
	*ret = out;
	if (ret_relaid != NULL)
		*ret_relaid = relaid;
	return 0;
}

/* ---------------------------------------------------------- the parser */

static int
defn_lookup_name(const char *const *names, size_t n, const char *s,
    size_t len)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (names[i] != NULL && strncmp(names[i], s, len) == 0 &&
		    names[i][len] == '\0')
			return (int)i;
	}
	return -1;
}

/* A whole-token number; the Linux code's match_token takes no junk. */
static bool
defn_num(const char *s, int base, bool is_signed, int64_t *sv, uint64_t *uv)
{
	char *end;

	if (*s == '\0' || *s == ' ' || *s == '+' ||
	    (!is_signed && *s == '-'))
		return false;
	errno = 0;
	if (is_signed)
		*sv = strtoll(s, &end, base);
	else
		*uv = strtoull(s, &end, base);
	return errno == 0 && *end == '\0';
}

static int
defn_enum(const char *const *names, unsigned n, const char *s)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		if (strcmp(names[i], s) == 0)
			return (int)i;
	}
	return -1;
}

/* Parse one token's value into L; read-only values are ignored. */
static int
defn_token(struct defn_line *L, enum defn_attr a, const char *val,
    size_t vlen, unsigned lineno, unsigned col, struct input_error *err)
{
	const struct defn_attr_info *ai = &defn_attrs[a];
	char v[64];
	int64_t sv = 0;
	uint64_t uv = 0;
	int k;

	if (ai->vtype == DV_READONLY)
		return 0;
	if (ai->vtype == DV_NAME) {
		if (!L->given[A_NAME]) {	/* the first name wins */
			L->given[A_NAME] = true;
			L->col[A_NAME] = col;
			L->name = val;
			L->namelen = vlen;
		}
		return 0;
	}
	if (vlen >= sizeof(v))
		return defn_fail(err, EINVAL, lineno, col, ai->name,
		    "the value of %s is too long", ai->name);
	memcpy(v, val, vlen);
	v[vlen] = '\0';
	switch (ai->vtype) {
	case DV_TYPE:
		if ((k = defn_enum(stat_defn_type_names, DEFN_NUM_TYPES,
		    v)) < 0)
			return defn_fail(err, EINVAL, lineno, col, ai->name,
			    "unknown type '%s' (value, range, array, list, "
			    "history or raw)", v);
		L->type = (uint8_t)k;
		break;
	case DV_MODE:
		if ((k = defn_enum(stat_history_mode_names, DEFN_NUM_MODES,
		    v)) < 0)
			return defn_fail(err, EINVAL, lineno, col, ai->name,
			    "unknown mode '%s' (increments, products or range)",
			    v);
		L->mode = (uint8_t)k;
		break;
	case DV_SCALE:
		if ((k = defn_enum(stat_defn_scale_names, DEFN_NUM_SCALES,
		    v)) < 0)
			return defn_fail(err, EINVAL, lineno, col, ai->name,
			    "unknown scale '%s' (lin or log2)", v);
		L->scale = (uint8_t)k;
		break;
	case DV_DATA:
		if (v[0] == '[')
			return 0;	/* a timestamp read back: read-only */
		if (strcmp(v, "reset") != 0)
			return defn_fail(err, EINVAL, lineno, col, ai->name,
			    "data can only be set to reset");
		L->reset = true;
		break;
	case DV_BOOL:
		if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0)
			return defn_fail(err, EINVAL, lineno, col, ai->name,
			    "on must be 0 or 1");
		L->on = v[0] == '1';
		break;
	case DV_S64:
		if (!defn_num(v, 0, true, &sv, NULL))
			return defn_fail(err, EINVAL, lineno, col, ai->name,
			    "%s must be a 64-bit signed integer", ai->name);
		if (a == A_RANGE_MIN)
			L->range_min = sv;
		else
			L->range_max = sv;
		break;
	case DV_U32:
		if (!defn_num(v, 10, false, NULL, &uv) || uv > UINT32_MAX)
			return defn_fail(err, EINVAL, lineno, col, ai->name,
			    "%s must be a decimal number", ai->name);
		L->entries_max = (uint32_t)uv;
		break;
	case DV_INT:
		if (!defn_num(v, 10, false, NULL, &uv) || uv == 0 ||
		    uv > INT64_MAX)
			return defn_fail(err, EINVAL, lineno, col, ai->name,
			    "%s must be a positive decimal number", ai->name);
		L->base_interval = uv;
		break;
	case DV_U64:
		if (!defn_num(v, 0, false, NULL, &uv))
			return defn_fail(err, EINVAL, lineno, col, ai->name,
			    "%s must be a number of microseconds", ai->name);
		L->period = uv;
		break;
	default:
		break;
	}
	L->given[a] = true;
	L->col[a] = col;
	return 0;
}

static int
defn_parse_line(const char *line, size_t len, unsigned lineno,
    struct defn_line *L, struct input_error *err)
{
	size_t i = 0;
	int e;

	memset(L, 0, sizeof(*L));
	while (i < len) {
		size_t start, eq, end;
		unsigned a;

		while (i < len && (line[i] == ' ' || line[i] == '\t' ||
		    line[i] == '\r'))
			i++;
		if (i == len)
			break;
		start = i;
		while (i < len && line[i] != ' ' && line[i] != '\t' &&
		    line[i] != '\r')
			i++;
		end = i;
		for (eq = start; eq < end && line[eq] != '='; eq++)
			;
		if (eq == end || eq == start)
			continue;	/* junk: no attribute=value */
		for (a = 0; a < A_NUM; a++) {
			if (strlen(defn_attrs[a].name) == eq - start &&
			    memcmp(defn_attrs[a].name, line + start,
			    eq - start) == 0)
				break;
		}
		if (a == A_NUM)
			continue;	/* junk: an unknown attribute */
		e = defn_token(L, (enum defn_attr)a, line + eq + 1,
		    end - eq - 1, lineno, (unsigned)(start + 1), err);
		if (e != 0)
			return e;
	}
	return 0;
}

/* Apply one parsed line to the working blob *wb, replacing it if need be. */
static int
defn_apply_line(struct statsblob **wb, const char *const *names,
    uint16_t nnames, const struct defn_line *L, unsigned lineno,
    uint64_t now, bool *relaid, struct input_error *err)
{
	const struct statsblobv1 *b = (const struct statsblobv1 *)*wb;
	const struct vsd_defn *d;
	struct statsblob *nb;
	struct vsd_defn nd;
	const char *attr;
	bool redefine = false, changed;
	unsigned a;
	int voi, e;
	uint16_t i;

	for (a = 0; a < A_NUM; a++)
		redefine |= L->given[a] && defn_attrs[a].redefines;
	if (!L->given[A_NAME]) {
		for (a = 0; a < A_NUM; a++) {
			if (L->given[a] && defn_attrs[a].redefines)
				return defn_fail(err, EINVAL, lineno, L->col[a],
				    defn_attrs[a].name, "%s needs name= (only "
				    "on= and data=reset apply to every "
				    "statistic)", defn_attrs[a].name);
		}
		for (i = 0; i < blob_nvois(b); i++) {
			if (defn_get(*wb, i) == NULL)
				continue;
			if (L->reset)
				defn_reset(*wb, i, now);
			if (L->given[A_ON])
				defn_set_on(*wb, i, L->on, now);
		}
		return 0;
	}
	voi = defn_lookup_name(names, nnames, L->name, L->namelen);
	if (voi < 0 || (d = defn_get(*wb, (uint16_t)voi)) == NULL)
		return defn_fail(err, ENOENT, lineno, L->col[A_NAME], "name",
		    "no statistic named '%.*s'", (int)(L->namelen > 64 ? 64 :
		    L->namelen), L->name);
	if (!redefine) {
		if (L->reset)
			defn_reset(*wb, (uint16_t)voi, now);
		if (L->given[A_ON])
			defn_set_on(*wb, (uint16_t)voi, L->on, now);
		return 0;
	}
	nd = *d;
	if (L->given[A_TYPE] && L->type != d->type) {
		/* The old type's attributes do not carry over. */
		nd.type = L->type;
		nd.mode = nd.scale = 0;
		nd.entries_max = 0;
		nd.base_interval = nd.period_us = 0;
		for (a = 0; a < A_NUM; a++) {
			if ((defn_attrs[a].required & T(nd.type)) &&
			    !L->given[a])
				return defn_fail(err, EINVAL, lineno,
				    L->col[A_TYPE], defn_attrs[a].name,
				    "type=%s needs %s", stat_defn_type_names[
				    nd.type], defn_attrs[a].name);
		}
	}
	for (a = 0; a < A_NUM; a++) {
		if (L->given[a] && defn_attrs[a].redefines &&
		    !(defn_attrs[a].types & T(nd.type)))
			return defn_fail(err, EINVAL, lineno, L->col[a],
			    defn_attrs[a].name, "%s does not apply to type %s",
			    defn_attrs[a].name, stat_defn_type_names[nd.type]);
	}
	if (L->given[A_MODE])
		nd.mode = L->mode;
	if (L->given[A_SCALE])
		nd.scale = L->scale;
	if (L->given[A_ENTRIES_MAX])
		nd.entries_max = L->entries_max;
	if (L->given[A_RANGE_MIN])
		nd.range_min = L->range_min;
	if (L->given[A_RANGE_MAX])
		nd.range_max = L->range_max;
	if (L->given[A_BASE_INTERVAL])
		nd.base_interval = L->base_interval;
	if (L->given[A_PERIOD])
		nd.period_us = L->period;
	if (L->given[A_ON])
		nd.on = L->on;
	changed = defn_differs(d, &nd);
	if (!changed) {
		if (L->reset)
			defn_reset(*wb, (uint16_t)voi, now);
		if (L->given[A_ON])
			defn_set_on(*wb, (uint16_t)voi, L->on, now);
		return 0;
	}
	if (stat_defn_valid(&nd, &attr) != NULL) {
		const char *why = stat_defn_valid(&nd, &attr);
		unsigned col = 0;

		for (a = 0; a < A_NUM; a++) {
			if (attr != NULL && strcmp(defn_attrs[a].name,
			    attr) == 0)
				col = L->col[a];
		}
		return defn_fail(err, EINVAL, lineno, col, attr, "%s", why);
	}
	e = defn_define(*wb, (uint16_t)voi, &nd, now, &nb, relaid, &attr);
	if (e != 0)
		return defn_fail(err, -e, lineno, 0, attr,
		    e == -EFBIG ? "the interface would not fit a blob" :
		    "cannot redefine the statistic");
	free(*wb);
	*wb = nb;
	return 0;
}

int
defn_apply(const struct statsblob *sb, const char *const *names,
    uint16_t nnames, const char *text, uint64_t now, struct statsblob **ret,
    bool *ret_relaid, struct input_error *err)
{
	const struct statsblobv1 *b = (const struct statsblobv1 *)sb;
	struct statsblob *wb;
	const char *p, *nl;
	bool relaid = false, r;
	unsigned lineno = 0;
	int e = 0;

	if (b == NULL || b->abi != STATS_ABI_V1 || text == NULL ||
	    ret == NULL || (names == NULL && nnames > 0))
		return defn_fail(err, EINVAL, 0, 0, NULL, "bad arguments");
	/* Work on a copy: the text applies as a whole or not at all. */
	wb = defn_copy(sb);
	if (wb == NULL)
		return -ENOMEM;
	for (p = text; e == 0 && *p != '\0'; p = *nl != '\0' ? nl + 1 : nl) {
		struct defn_line L;

		nl = strchr(p, '\n');
		if (nl == NULL)
			nl = p + strlen(p);
		lineno++;
		e = defn_parse_line(p, (size_t)(nl - p), lineno, &L, err);
		if (e == 0) {
			r = false;
			e = defn_apply_line(&wb, names, nnames, &L, lineno, now,
			    &r, err);
			relaid |= r;
		}
	}
	if (e != 0) {
		free(wb);
		return e;
	}
	*ret = wb;
	if (ret_relaid != NULL)
		*ret_relaid = relaid;
	return 0;
}

/* ------------------------------------------------------------- the file */

void
linux_seconds(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "%" PRIu64 ".%06" PRIu64, ns / 1000000000u,
	    ns % 1000000000u / 1000u);
}

void
linux_timestamp(char *buf, size_t len, uint64_t ns)
{
	char s[32];

	/* "[%5lu.%06lu]": the seconds at least five wide. */
	linux_seconds(s, sizeof(s), ns);
	snprintf(buf, len, "[%12s]", s);
}

void
defn_attrs_emit(const struct defn_view *v, const struct defn_sink *s)
{
	const struct vsd_defn *d = &v->d;
	char units[DEFN_UNITS_MAX + 1];

	s->text(s->arg, "name", v->name);
	s->num(s->arg, "on", false, d->on);
	s->text(s->arg, "type", d->type < DEFN_NUM_TYPES ?
	    stat_defn_type_names[d->type] : "?");
	s->num(s->arg, "range_min", true, (uint64_t)d->range_min);
	s->num(s->arg, "range_max", true, (uint64_t)d->range_max);
	switch (d->type) {
	case DEFN_VALUE:
		s->text(s->arg, "mode",
		    stat_history_mode_names[d->mode % DEFN_NUM_MODES]);
		break;
	case DEFN_ARRAY:
		s->num(s->arg, "base_interval", false, d->base_interval);
		s->text(s->arg, "scale",
		    stat_defn_scale_names[d->scale % DEFN_NUM_SCALES]);
		break;
	case DEFN_LIST:
		s->num(s->arg, "entries_max", false, d->entries_max);
		s->num(s->arg, "hits_missed", false, v->hits_missed);
		break;
	case DEFN_RAW:
		s->num(s->arg, "entries_max", false, d->entries_max);
		break;
	case DEFN_HISTORY:
		s->num(s->arg, "entries_max", false, d->entries_max);
		s->text(s->arg, "mode",
		    stat_history_mode_names[d->mode % DEFN_NUM_MODES]);
		s->num(s->arg, "period", false, d->period_us);
		break;
	default:
		break;
	}
	s->num(s->arg, "hits_out_of_range", false, d->hits_out_of_range);
	s->time(s->arg, "data", d->data_ns);
	s->time(s->arg, "started", d->started_ns);
	s->time(s->arg, "stopped", d->stopped_ns);
	snprintf(units, sizeof(units), "%.*s", DEFN_UNITS_MAX, d->units);
	s->text(s->arg, "units", units);
}

int
defn_walk(const struct statsblob *sb, const char *const *names,
    uint16_t nnames, int (*fn)(const struct defn_view *v, void *arg),
    void *arg)
{
	const struct statsblobv1 *b = (const struct statsblobv1 *)sb;
	struct defn_view v;
	uint16_t i;
	int r;

	if (b == NULL || b->abi != STATS_ABI_V1)
		return -EINVAL;
	for (i = 0; i < blob_nvois(b); i++) {
		const struct vsd_defn *d = defn_get(sb, i);
		struct voistat *vs;
		char dflt[16];

		if (d == NULL || d->type >= DEFN_NUM_TYPES)
			continue;
		v.name = i < nnames && names != NULL && names[i] != NULL ?
		    names[i] : NULL;
		if (v.name == NULL) {
			snprintf(dflt, sizeof(dflt), "voi%u", i);
			v.name = dflt;
		}
		v.d = *d;
		vs = d->type == DEFN_LIST ? defn_stat(b, i, VS_STYPE_LIST) :
		    NULL;
		v.hits_missed = vs != NULL ? ((const struct vsd_list *)
		    blob_vsd(b, vs))->hits_missed : 0;
		r = fn(&v, arg);
		if (r != 0)
			return r;
	}
	return 0;
}

/* The definition file's text: "key=value" one blank apart. */
struct defn_text {
	struct sbuf	*buf;
	bool		 first;
};

static void
defn_text_text(void *arg, const char *key, const char *v)
{
	struct defn_text *t = arg;

	sbuf_printf(t->buf, "%s%s=%s", t->first ? "" : " ", key, v);
	t->first = false;
}

static void
defn_text_num(void *arg, const char *key, bool is_signed, uint64_t v)
{
	char n[24];

	snprintf(n, sizeof(n), is_signed ? "%" PRId64 : "%" PRIu64, v);
	defn_text_text(arg, key, n);
}

static void
defn_text_time(void *arg, const char *key, uint64_t ns)
{
	char ts[48];

	linux_timestamp(ts, sizeof(ts), ns);
	defn_text_text(arg, key, ts);
}

static int
defn_text_line(const struct defn_view *v, void *arg)
{
	struct defn_text t = { arg, true };
	const struct defn_sink s = { defn_text_num, defn_text_text,
	    defn_text_time, &t };

	defn_attrs_emit(v, &s);
	sbuf_putc(arg, '\n');
	return 0;
}

int
defn_format(struct sbuf *buf, const struct statsblob *sb,
    const char *const *names, uint16_t nnames)
{
	int r;

	if (buf == NULL)
		return -EINVAL;
	r = defn_walk(sb, names, nnames, defn_text_line, buf);
	if (r != 0)
		return r;
	sbuf_putc(buf, '\n');
	return sbuf_error(buf) != 0 ? -sbuf_error(buf) : 0;
}

/* A LinuxDefinition: the attributes as members, times in ns. */
static void
defn_json_text(void *arg, const char *key, const char *v)
{
	struct defn_text *t = arg;

	sbuf_printf(t->buf, "%s\"%s\":", t->first ? "{" : ",", key);
	stat_json_string(t->buf, v, strlen(v));
	t->first = false;
}

static void
defn_json_num(void *arg, const char *key, bool is_signed, uint64_t v)
{
	struct defn_text *t = arg;

	sbuf_printf(t->buf, "%s\"%s\":", t->first ? "{" : ",", key);
	if (is_signed)
		sbuf_printf(t->buf, "%" PRId64, (int64_t)v);
	else
		numeric_json_u64(t->buf, v);
	t->first = false;
}

static void
defn_json_time(void *arg, const char *key, uint64_t ns)
{
	char k[32];

	snprintf(k, sizeof(k), "%s_ns", key);
	defn_json_num(arg, k, false, ns);
}

static int
defn_json_one(const struct defn_view *v, void *arg)
{
	struct defn_text *t = arg;
	const struct defn_sink s = { defn_json_num, defn_json_text,
	    defn_json_time, t };

	if (!t->first)
		sbuf_putc(t->buf, ',');
	t->first = true;
	defn_attrs_emit(v, &s);
	sbuf_putc(t->buf, '}');
	t->first = false;
	return 0;
}

int
defn_json(struct sbuf *buf, const struct statsblob *sb,
    const char *const *names, uint16_t nnames)
{
	struct defn_text t = { buf, true };
	int r;

	if (buf == NULL)
		return -EINVAL;
	sbuf_putc(buf, '[');
	r = defn_walk(sb, names, nnames, defn_json_one, &t);
	sbuf_putc(buf, ']');
	if (r != 0)
		return r;
	return sbuf_error(buf) != 0 ? -sbuf_error(buf) : 0;
}
