/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kstat_hdr.c: kstat headers as data — their rules, lookup with
 * kstat_lookup(3KSTAT)'s wildcards — and kstat(1M)'s selectors.
 *
 * illumos truncates long names silently (kstat_set_string); statsd refuses
 * them, so a name read back is always the name given. ':' is refused in
 * names because every flat view (kstat -p lines, selectors) splits on it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kstat_hdr.h"
#include "rx.h"

static int
ks_fail(struct input_error *err, const char *field, int error, const char *msg)
{
	return input_fail(err, error, field, "%s", msg);
}

/* Printable ASCII, and not one of the characters in bad. */
static bool
ks_text_ok(const char *s, size_t n, const char *bad)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c >= 0x7f || strchr(bad, c) != NULL)
			return false;
	}
	return true;
}

static int
ks_name_check(const char *s, const char *field, struct input_error *err)
{
	size_t n;

	if (s == NULL || *s == '\0')
		return ks_fail(err, field, EINVAL, "must not be empty");
	n = strlen(s);
	if (n > KSTAT_STRLEN - 1)
		return ks_fail(err, field, ENAMETOOLONG,
		    "longer than 30 characters");
	if (!ks_text_ok(s, n, ":"))
		return ks_fail(err, field, EINVAL,
		    "holds ':' or a non-printable character");
	return 0;
}

int
ks_hdr_init(struct kstat_hdr *h, const char *module, int32_t instance,
    const char *name, const char *class_, uint8_t type, uint32_t flags,
    struct input_error *err)
{
	char dflt[KSTAT_STRLEN + 16];
	int e;

	if (h == NULL)
		return -EINVAL;
	if ((e = ks_name_check(module, "module", err)) != 0)
		return e;
	if (instance < 0)
		return ks_fail(err, "instance", EINVAL, "must not be negative");
	if (name == NULL) {
		/* illumos: a NULL name is "<module><instance>". */
		snprintf(dflt, sizeof(dflt), "%s%d", module, instance);
		dflt[KSTAT_STRLEN - 1] = '\0';
		name = dflt;
	}
	if ((e = ks_name_check(name, "name", err)) != 0)
		return e;
	if (class_ == NULL)
		class_ = "misc";
	if ((e = ks_name_check(class_, "class", err)) != 0)
		return e;
	if (type >= KSTAT_NUM_TYPES)
		return ks_fail(err, "type", EINVAL, "unknown kstat type");
	if ((flags & ~KS_FLAGS_CREATOR) != 0)
		return ks_fail(err, "flags", EINVAL,
		    "holds a flag only statsd sets, or an unknown one");
	if ((flags & KSTAT_FLAG_PERSISTENT) && (flags & KSTAT_FLAG_VIRTUAL))
		return ks_fail(err, "flags", EINVAL,
		    "PERSISTENT and VIRTUAL exclude each other");
	memset(h, 0, sizeof(*h));
	strcpy(h->module, module);
	strcpy(h->name, name);
	strcpy(h->class_, class_);
	h->instance = instance;
	h->type = type;
	h->flags = flags;
	h->content = KSTAT2_NVMT_UNK;
	h->scale = 1;
	return 0;
}

int
ks_hdr_set_path(struct kstat_hdr *h, const char *const *pseg,
    uint32_t npseg, struct input_error *err)
{
	char path[KS_PATH_MAX + 1];
	size_t len = 0, n;
	uint32_t i;

	if (h == NULL || (npseg > 0 && pseg == NULL))
		return -EINVAL;
	if (npseg == 0) {
		h->path[0] = '\0';
		return 0;
	}
	if (npseg < KS_NPSEG_MIN || npseg > KS_NPSEG_MAX)
		return ks_fail(err, "path", EINVAL,
		    "needs 3 to 16 segments (category, component, name...)");
	for (i = 0; i < npseg; i++) {
		if (pseg[i] == NULL || pseg[i][0] == '\0')
			return ks_fail(err, "path", EINVAL,
			    "a segment is empty");
		n = strlen(pseg[i]);
		if (!ks_text_ok(pseg[i], n, "/"))
			return ks_fail(err, "path", EINVAL,
			    "a segment holds '/' or a non-printable character");
		if (len + (i > 0) + n > KS_PATH_MAX)
			return ks_fail(err, "path", ENAMETOOLONG,
			    "longer than 255 bytes");
		if (i > 0)
			path[len++] = '/';
		memcpy(path + len, pseg[i], n);
		len += n;
	}
	path[len] = '\0';
	memcpy(h->path, path, len + 1);
	return 0;
}

int
ks_hdr_set_desc(struct kstat_hdr *h, const char *desc, struct input_error *err)
{
	size_t n;

	if (h == NULL)
		return -EINVAL;
	if (desc == NULL)
		desc = "";
	n = strlen(desc);
	if (n > KS_DESC_MAX)
		return ks_fail(err, "description", ENAMETOOLONG,
		    "longer than 1023 bytes");
	if (!ks_text_ok(desc, n, ""))
		return ks_fail(err, "description", EINVAL,
		    "holds a non-printable character");
	memcpy(h->desc, desc, n + 1);
	return 0;
}

int
ks_hdr_set_content(struct kstat_hdr *h, uint8_t content, uint64_t scale,
    struct input_error *err)
{
	if (h == NULL)
		return -EINVAL;
	if (content >= KSTAT2_NVMT_NUM)
		return ks_fail(err, "content", EINVAL, "unknown content type");
	if (scale == 0)
		return ks_fail(err, "scale", EINVAL, "must be at least 1");
	h->content = content;
	h->scale = scale;
	return 0;
}

/* A string field of a foreign header: terminated, then the usual rules. */
static int
ks_field_check(const char *s, size_t cap, const char *field,
    struct input_error *err)
{
	if (memchr(s, '\0', cap) == NULL)
		return ks_fail(err, field, EINVAL, "not terminated");
	return ks_name_check(s, field, err);
}

int
ks_hdr_new(struct kstat_hdr *h, const char *module, int32_t instance,
    const char *name, const char *class_, uint8_t type, uint32_t flags,
    const char *const *pseg, uint32_t npseg, const char *desc,
    struct input_error *err)
{
	int r;

	r = ks_hdr_init(h, module, instance, name, class_, type, flags, err);
	if (r == 0 && npseg > 0)
		r = ks_hdr_set_path(h, pseg, npseg, err);
	if (r == 0 && desc != NULL)
		r = ks_hdr_set_desc(h, desc, err);
	return r;
}

int
ks_hdr_check(const struct kstat_hdr *h, struct input_error *err)
{
	size_t n;
	int e;

	if (h == NULL)
		return -EINVAL;
	if ((e = ks_field_check(h->module, sizeof(h->module), "module",
	    err)) != 0 ||
	    (e = ks_field_check(h->name, sizeof(h->name), "name", err)) != 0 ||
	    (e = ks_field_check(h->class_, sizeof(h->class_), "class",
	    err)) != 0)
		return -EINVAL;
	if (h->instance < 0)
		return ks_fail(err, "instance", EINVAL, "must not be negative");
	if (h->type >= KSTAT_NUM_TYPES)
		return ks_fail(err, "type", EINVAL, "unknown kstat type");
	if ((h->flags & ~KS_FLAGS_KNOWN) != 0)
		return ks_fail(err, "flags", EINVAL, "unknown flag");
	if (h->content >= KSTAT2_NVMT_NUM)
		return ks_fail(err, "content", EINVAL, "unknown content type");
	if (h->scale == 0)
		return ks_fail(err, "scale", EINVAL, "must be at least 1");
	if (memchr(h->path, '\0', sizeof(h->path)) == NULL)
		return ks_fail(err, "path", EINVAL, "not terminated");
	n = strlen(h->path);
	if (n > 0 && (!ks_text_ok(h->path, n, "") || h->path[0] == '/' ||
	    h->path[n - 1] == '/' || strstr(h->path, "//") != NULL ||
	    ks_hdr_npseg(h) < KS_NPSEG_MIN || ks_hdr_npseg(h) > KS_NPSEG_MAX))
		return ks_fail(err, "path", EINVAL, "malformed path");
	if (memchr(h->desc, '\0', sizeof(h->desc)) == NULL)
		return ks_fail(err, "description", EINVAL, "not terminated");
	if (!ks_text_ok(h->desc, strlen(h->desc), ""))
		return ks_fail(err, "description", EINVAL,
		    "holds a non-printable character");
	return 0;
}

uint32_t
ks_hdr_npseg(const struct kstat_hdr *h)
{
	const char *p;
	uint32_t n;

	if (h->path[0] == '\0')
		return 0;
	for (n = 1, p = h->path; (p = strchr(p, '/')) != NULL; p++)
		n++;
	return n;
}

int
ks_hdr_pseg(const struct kstat_hdr *h, uint32_t i, char *buf, size_t len)
{
	const char *p = h->path, *end;
	size_t n;

	if (h->path[0] == '\0')
		return -ENOENT;
	while (i-- > 0) {
		p = strchr(p, '/');
		if (p == NULL)
			return -ENOENT;
		p++;
	}
	end = strchr(p, '/');
	n = end != NULL ? (size_t)(end - p) : strlen(p);
	if (n >= len)
		return -ENOBUFS;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return 0;
}

/* Each kstat type's protocol identifier and its name as illumos's
 * unix:0:kstat_types lists it (statsd's own types after illumos's). */
static const struct {
	const char	*id;
	const char	*name;
} ks_types[KSTAT_NUM_TYPES] = {
	[KSTAT_TYPE_RAW] = { "RAW", "raw" },
	[KSTAT_TYPE_NAMED] = { "NAMED", "name=value" },
	[KSTAT_TYPE_INTR] = { "INTR", "interrupt" },
	[KSTAT_TYPE_IO] = { "IO", "i/o" },
	[KSTAT_TYPE_TIMER] = { "TIMER", "event_timer" },
	[KSTAT_TYPE_HIST] = { "HIST", "histogram" },
	[KSTAT_TYPE_BLOB] = { "BLOB", "blob" },
};

const struct ks_flag_name ks_flag_names[KS_NFLAG_NAMES] = {
	{ "PERSISTENT", KSTAT_FLAG_PERSISTENT },
	{ "PRIV", KSTAT_FLAG_PRIV },
	{ "WRITABLE", KSTAT_FLAG_WRITABLE },
	{ "DORMANT", KSTAT_FLAG_DORMANT },
	{ "VIRTUAL", KSTAT_FLAG_VIRTUAL },
	{ "VAR_SIZE", KSTAT_FLAG_VAR_SIZE },
	{ "GZ_VIS", KSTAT2_FLAG_GZ_VIS },
};

size_t
ks_flags_names(uint32_t flags, const char *names[KS_NFLAG_NAMES])
{
	size_t i, n = 0;

	for (i = 0; i < KS_NFLAG_NAMES; i++)
		if (flags & ks_flag_names[i].flag)
			names[n++] = ks_flag_names[i].name;
	return n;
}

uint32_t
ks_flag_from_name(const char *name)
{
	size_t i;

	for (i = 0; name != NULL && i < KS_NFLAG_NAMES; i++)
		if (strcmp(ks_flag_names[i].name, name) == 0)
			return ks_flag_names[i].flag;
	return 0;
}

const char *
ks_type_name(uint8_t type)
{
	return type < KSTAT_NUM_TYPES ? ks_types[type].name : NULL;
}

const char *
ks_type_id(uint8_t type)
{
	return type < KSTAT_NUM_TYPES ? ks_types[type].id : NULL;
}

int
ks_type_from_id(const char *id)
{
	int t;

	for (t = 0; id != NULL && t < KSTAT_NUM_TYPES; t++)
		if (strcmp(ks_types[t].id, id) == 0)
			return t;
	return -EINVAL;
}

/* Solaris 11.4's KSTAT2_NVMT_* names, in their order. */
static const char *const ks_contents[KSTAT2_NVMT_NUM] = {
	"UNK", "ID", "CNT", "T_EPOCH", "T_REL", "T_ACC", "PCT", "ADDR",
	"TEMP_C", "RPM", "VOLT", "WATT", "CURR", "BYTES", "BITS", "STATE",
	"FREQ", "FLAGS", "JOULE",
};

const char *
ks_content_id(uint8_t content)
{
	return content < KSTAT2_NVMT_NUM ? ks_contents[content] : NULL;
}

int
ks_content_from_id(const char *id)
{
	int c;

	for (c = 0; id != NULL && c < KSTAT2_NVMT_NUM; c++)
		if (strcmp(ks_contents[c], id) == 0)
			return c;
	return -EINVAL;
}

void
ks_hdr_kstat(kstat_t *ks, const struct kstat_hdr *h)
{
	memcpy(ks->ks_module, h->module, KSTAT_STRLEN);
	memcpy(ks->ks_name, h->name, KSTAT_STRLEN);
	memcpy(ks->ks_class, h->class_, KSTAT_STRLEN);
	ks->ks_instance = h->instance;
	ks->ks_type = h->type;
	ks->ks_flags = h->flags;
	ks->ks_kid = (kid_t)h->kid;
	ks->ks_crtime = h->crtime;
	ks->ks_snaptime = h->snaptime;
}

int
ks_hdr_cmp(const struct kstat_hdr *a, const struct kstat_hdr *b)
{
	int c = strcasecmp(a->module, b->module);

	if (c != 0)
		return c;
	if (a->instance != b->instance)
		return a->instance < b->instance ? -1 : 1;
	return strcasecmp(a->name, b->name);
}

bool
ks_hdr_matches(const struct kstat_hdr *h, const char *module,
    int32_t instance, const char *name)
{
	return (module == NULL || strcmp(h->module, module) == 0) &&
	    (instance == -1 || h->instance == instance) &&
	    (name == NULL || strcmp(h->name, name) == 0);
}

ssize_t
ks_hdr_lookup(const struct kstat_hdr *const *hdrs, size_t n,
    const char *module, int32_t instance, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (hdrs[i] != NULL &&
		    ks_hdr_matches(hdrs[i], module, instance, name))
			return (ssize_t)i;
	}
	return -ENOENT;
}

int
ks_pattern_init(struct ks_pattern *p, const char *text, struct input_error *err)
{
	enum rx_syntax syntax = RX_GLOB;
	const char *why;
	size_t n, off;
	int rc;

	memset(p, 0, sizeof(*p));
	if (text == NULL || *text == '\0' || strcmp(text, "*") == 0) {
		p->any = true;
		return 0;
	}
	n = strlen(text);
	if (n >= 2 && text[0] == '/' && text[n - 1] == '/') {
		syntax = RX_ERE;
		text++;
		n -= 2;
	}
	rc = rx_compile(text, n, syntax, &p->rx, &why, &off);
	if (rc == -EINVAL)
		(void)input_fail(err, EINVAL, "pattern", "%s at character %zu",
		    why, off + 1 + (syntax == RX_ERE));
	if (rc == 0 && syntax == RX_GLOB && strpbrk(text, "*?[\\") == NULL) {
		p->literal = strdup(text);
		if (p->literal == NULL) {
			ks_pattern_done(p);
			return -ENOMEM;
		}
	}
	return rc;
}

const char *
ks_pattern_literal(const struct ks_pattern *p)
{
	return p->literal;
}

bool
ks_pattern_match(const struct ks_pattern *p, const char *s)
{
	if (p->any)
		return true;
	return rx_match(p->rx, s, strlen(s), NULL);
}

uint64_t
ks_pattern_cost(const struct ks_pattern *p, size_t len)
{
	if (p->any)
		return 0;
	return ((uint64_t)len + 1) * rx_size(p->rx);
}

void
ks_pattern_done(struct ks_pattern *p)
{
	rx_free(p->rx);
	free(p->literal);
	memset(p, 0, sizeof(*p));
	p->any = true;
}

static const char *const ks_field_names[KS_NFIELDS] = {
	"module", "instance", "name", "statistic",
};

void
ks_selector_all(struct ks_selector *sel)
{
	int i;

	for (i = 0; i < KS_NFIELDS; i++) {
		memset(&sel->f[i], 0, sizeof(sel->f[i]));
		sel->f[i].any = true;
	}
}

int
ks_selector_set(struct ks_selector *sel, enum ks_field f, const char *text,
    struct input_error *err)
{
	struct ks_pattern p;
	int e;

	if (f >= KS_NFIELDS)
		return -EINVAL;
	e = ks_pattern_init(&p, text, err);
	if (e != 0) {
		if (err != NULL)
			snprintf(err->where, sizeof(err->where), "%s",
			    ks_field_names[f]);
		return e;
	}
	ks_pattern_done(&sel->f[f]);
	sel->f[f] = p;
	return 0;
}

/* The end of the field starting at s: a /regex/ may hold ':'. */
static const char *
ks_field_end(const char *s)
{
	const char *p;

	if (*s == '/') {
		for (p = s + 1; *p != '\0'; p++) {
			if (*p == '/' && (p[1] == ':' || p[1] == '\0'))
				return p + 1;
		}
	}
	p = strchr(s, ':');
	return p != NULL ? p : s + strlen(s);
}

int
ks_selector_parse(struct ks_selector *sel, const char *text,
    struct input_error *err)
{
	const char *s = text != NULL ? text : "", *end;
	int f = 0, e;

	ks_selector_all(sel);
	for (;;) {
		char *field;

		if (f == KS_NFIELDS) {
			ks_selector_done(sel);
			return ks_fail(err, "statistic", EINVAL,
			    "more than four ':'-separated fields");
		}
		end = ks_field_end(s);
		field = strndup(s, (size_t)(end - s));
		if (field == NULL) {
			ks_selector_done(sel);
			return -ENOMEM;
		}
		e = ks_selector_set(sel, (enum ks_field)f, field, err);
		free(field);
		if (e != 0) {
			ks_selector_done(sel);
			return e;
		}
		f++;
		if (*end == '\0')
			break;
		s = end + 1;
	}
	return 0;
}

bool
ks_selector_match_kstat(const struct ks_selector *sel,
    const struct kstat_hdr *h)
{
	char inst[16];

	snprintf(inst, sizeof(inst), "%d", h->instance);
	return ks_pattern_match(&sel->f[KS_F_MODULE], h->module) &&
	    ks_pattern_match(&sel->f[KS_F_INSTANCE], inst) &&
	    ks_pattern_match(&sel->f[KS_F_NAME], h->name);
}

bool
ks_selector_match_stat(const struct ks_selector *sel, const char *statistic)
{
	return ks_pattern_match(&sel->f[KS_F_STATISTIC], statistic);
}

void
ks_selector_done(struct ks_selector *sel)
{
	int i;

	for (i = 0; i < KS_NFIELDS; i++)
		ks_pattern_done(&sel->f[i]);
}
