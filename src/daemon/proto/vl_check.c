/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * vl_check.c: varlink parameters against the method tables: validation
 * by table (a refused value's path made only when refused), the readers
 * of checked parameters, and the tables' dump for the IDL agreement test.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "kind.h"
#include "varlink.h"
#include "varlink_priv.h"

/*
 * Where a value is in the message: a chain of frames up to the checked
 * object (NULL). The path's text ("kstats[3].name") is made only when a
 * value is refused: formatting it for every field of every call was a
 * fifth of a KstatCreate.
 */
struct vl_where {
	const struct vl_where	*up;
	const char		*name;	/* a field */
	long			 index;	/* its element; -1: the field */
};

/* Append w's path to bad (at *off, bounded by badlen). */
static void
vl_where_put(const struct vl_where *w, char *bad, size_t badlen, size_t *off)
{
	int n;

	if (w == NULL)
		return;
	vl_where_put(w->up, bad, badlen, off);
	if (*off >= badlen)
		return;
	n = w->index >= 0 ?
	    snprintf(bad + *off, badlen - *off, "%s%s[%ld]", *off > 0 &&
	    w->name[0] != '\0' ? "." : "", w->name, w->index) :
	    snprintf(bad + *off, badlen - *off, "%s%s", *off > 0 ? "." : "",
	    w->name);
	*off += n > 0 ? (size_t)n : 0;
}

/* Say where the refused value is. Returns: -EINVAL. */
static int
vl_where_bad(const struct vl_where *w, char *bad, size_t badlen)
{
	size_t off = 0;

	if (badlen > 0) {
		bad[0] = '\0';
		vl_where_put(w, bad, badlen, &off);
	}
	return -EINVAL;
}

static int vl_check_struct(json_t *obj, const struct vl_field *fields,
    const struct vl_where *where, char *bad, size_t badlen,
    unsigned depth);

/* Check one value against a field's type (elem: the array's element). */
static int
vl_check_value(json_t *v, const struct vl_field *f, uint8_t type,
    const struct vl_where *where, char *bad, size_t badlen,
    unsigned depth)
{
	switch (type) {
	case VL_BOOL:
		if (!json_is_boolean(v))
			break;
		return 0;
	case VL_INT:
		if (!json_is_integer(v) || json_integer_value(v) < f->min ||
		    json_integer_value(v) > f->max)
			break;
		return 0;
	case VL_STRING:
		if (!json_is_string(v) ||
		    json_string_length(v) > (size_t)f->max ||
		    strlen(json_string_value(v)) != json_string_length(v))
			break;
		return 0;
	case VL_OBJECT:
		if (!json_is_object(v))
			break;
		return 0;
	case VL_STRUCT:
		if (!json_is_object(v))
			break;
		return vl_check_struct(v, f->fields, where, bad, badlen,
		    depth + 1);
	}
	return vl_where_bad(where, bad, badlen);
}

/* The most fields a table has whose values vl_check_struct() keeps from
 * its walk of the object; a longer table's are looked up again. */
#define VL_FIELDS_KEPT	48

static int
vl_check_struct(json_t *obj, const struct vl_field *fields,
    const struct vl_where *where, char *bad, size_t badlen,
    unsigned depth)
{
	json_t *val[VL_FIELDS_KEPT] = { NULL };
	const struct vl_field *f;
	const char *key;
	json_t *v;
	size_t i;

	if (depth > 8)
		return vl_where_bad(where, bad, badlen);
	/* Unknown fields first: a misspelt optional field is named as
	 * what it is, not reported as something else missing. The walk
	 * keeps each field's value for the checks below, in the table's
	 * order: no second lookup by name. */
	json_object_foreach(obj, key, v) {
		for (f = fields; f->name != NULL; f++)
			if (f->name[0] == key[0] && strcmp(f->name, key) == 0)
				break;
		if (f->name == NULL) {
			struct vl_where at = { where, key, -1 };

			return vl_where_bad(&at, bad, badlen);
		}
		if (f - fields < VL_FIELDS_KEPT)
			val[f - fields] = v;
	}
	for (f = fields, i = 0; f->name != NULL; f++, i++) {
		struct vl_where at = { where, f->name, -1 };

		v = i < VL_FIELDS_KEPT ? val[i] : json_object_get(obj, f->name);
		if (v == NULL || json_is_null(v)) {
			if (f->optional)
				continue;
			return vl_where_bad(&at, bad, badlen);
		}
		if (f->type == VL_ARRAY) {
			size_t j;
			json_t *e;

			if (!json_is_array(v) || json_array_size(v) > f->maxn)
				return vl_where_bad(&at, bad, badlen);
			json_array_foreach(v, j, e) {
				at.index = (long)j;
				if (vl_check_value(e, f, f->elem, &at, bad,
				    badlen, depth) < 0)
					return -EINVAL;
			}
			continue;
		}
		if (vl_check_value(v, f, f->type, &at, bad, badlen,
		    depth) < 0)
			return -EINVAL;
	}
	return 0;
}

int
vl_check_params(json_t *obj, const struct vl_field *fields, char *bad,
    size_t badlen)
{
	return vl_check_struct(obj, fields, NULL, bad, badlen, 0);
}

const char *
varlink_str(json_t *params, const char *name, const char *def)
{
	json_t *v = json_object_get(params, name);

	return json_is_string(v) ? json_string_value(v) : def;
}

int64_t
varlink_int(json_t *params, const char *name, int64_t def)
{
	json_t *v = json_object_get(params, name);

	return json_is_integer(v) ? (int64_t)json_integer_value(v) : def;
}

bool
varlink_bool(json_t *params, const char *name, bool def)
{
	json_t *v = json_object_get(params, name);

	return json_is_boolean(v) ? json_is_true(v) : def;
}

/* ------------------------------------------------------------------- dump */

static json_t *
vl_type_json(const struct vl_field *f)
{
	static const char *const base[] = {
		[VL_BOOL] = "bool", [VL_INT] = "int", [VL_STRING] = "string",
		[VL_OBJECT] = "object",
	};
	char buf[128];
	const char *t;

	if (f->type == VL_ARRAY)
		t = f->elem == VL_STRUCT ? f->type_name : base[f->elem];
	else if (f->type == VL_STRUCT)
		t = f->type_name;
	else
		t = base[f->type];
	snprintf(buf, sizeof(buf), "%s%s%s", f->optional ? "?" : "",
	    f->type == VL_ARRAY ? "[]" : "", t);
	return json_string(buf);
}

static json_t *
vl_fields_json(const struct vl_field *fields, json_t *types)
{
	const struct vl_field *f;
	json_t *a = json_array();

	for (f = fields; f->name != NULL; f++) {
		json_array_append_new(a, json_pack("{s:s, s:o}", "name",
		    f->name, "type", vl_type_json(f)));
		if (f->fields != NULL && json_object_get(types,
		    f->type_name) == NULL)
			json_object_set_new(types, f->type_name,
			    vl_fields_json(f->fields, types));
	}
	return a;
}

/* The StatSpec kinds of the kind table, with the parameters each takes. */
static json_t *
vl_kinds_json(void)
{
	json_t *a = json_array();
	int s, p;
	uint8_t i;

	for (s = 1; s < VS_NUM_STYPES; s++) {
		for (i = 0; i < stype_ops[s].nspecs; i++) {
			const struct kind_spec *ks = &stype_ops[s].specs[i];
			json_t *ps = json_array();

			for (p = 0; p < KP_NUM; p++)
				if (ks->params & (1u << p))
					json_array_append_new(ps,
					    json_string(kind_params[p].name));
			json_array_append_new(a, json_pack("{s:s, s:o}",
			    "name", ks->name, "params", ps));
		}
	}
	return a;
}

void
varlink_dump_tables(FILE *f, const struct vl_methods *t)
{
	json_t *root = json_object(), *ms = json_array(), *es = json_array();
	json_t *types = json_object();
	size_t i, j;
	char *s;

	for (i = 0; i < t->n; i++) {
		const struct vl_method *m = &t->m[i];

		json_array_append_new(ms, json_pack("{s:s, s:s, s:b, s:b, "
		    "s:o}", "name", m->name, "right", right_names[m->right],
		    "streams", (m->flags & (VL_M_STREAMS | VL_M_PAGES)) != 0,
		    "pages", (m->flags & VL_M_PAGES) != 0,
		    "params", vl_fields_json(m->params, types)));
	}
	for (i = 0; i < VL_E_NUM; i++) {
		json_t *p = json_array();

		for (j = 0; vl_errors[i].params[j] != NULL; j++)
			json_array_append_new(p,
			    json_string(vl_errors[i].params[j]));
		json_array_append_new(es, json_pack("{s:s, s:o}", "name",
		    vl_errors[i].name, "params", p));
	}
	json_object_set_new(root, "methods", ms);
	json_object_set_new(root, "errors", es);
	json_object_set_new(root, "types", types);
	json_object_set_new(root, "kinds", vl_kinds_json());
	s = json_dumps(root, JSON_INDENT(1) | JSON_SORT_KEYS);
	if (s != NULL)
		fprintf(f, "%s\n", s);
	free(s);
	json_decref(root);
}
