/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * m_template.c: io.statsd.TemplateAdd and io.statsd.TemplateList.
 */
#include <errno.h>
#include <stdlib.h>

#include <statsd/sbuf.h>

#include "control.h"
#include "daemon.h"
#include "methods.h"
#include "registry.h"
#include "tpldef.h"
#include "view.h"

const struct vl_field m_template_add_params[] = {
	VLF_STR("name", false, TPL_MAX_NAME_LEN),
	VLF_STRUCTS("vois", false, "VoiSpec", tpldef_voispec_fields,
	    TPLDEF_MAX_VOIS),
	VLF_END
};

const struct vl_field m_template_list_params[] = {
	VLF_STR("cursor", true, 24),
	VLF_END
};

void
m_template_add(struct vl_call *call, json_t *params)
{
	struct statsd *d = call->d;
	const struct peer *p = &call->conn->peer;
	struct reg_owner owner = { p->uid, p->privileged, false };
	struct quota_refusal why;
	struct reg_template *t;
	struct input_error terr;
	bool created;
	int r;

	r = registry_template_add(d->reg, params, &owner, &t, &created, &terr, &why);
	switch (r) {
	case 0:
		break;
	case -EINVAL:
		varlink_error_input(call, VL_E_INVALID_TEMPLATE, &terr);
		return;
	case -EEXIST:
		varlink_error(call, VL_E_TEMPLATE_EXISTS, json_pack("{s:s}",
		    "template", varlink_str(params, "name", "")));
		return;
	case -EDQUOT:
		varlink_error_limit(call, why.limit, (int64_t)why.value);
		return;
	default:
		varlink_error_errno(call, r, "template");
		return;
	}
	varlink_reply(call, json_pack("{s:o, s:b}", "template",
	    registry_template_json(t), "created", created));
}

void
m_template_list(struct vl_call *call, json_t *params)
{
	const char *cursor = varlink_str(params, "cursor", NULL);
	size_t budget = varlink_page_size(call), used = 0, n, i, first;
	struct reg_template **tpls;
	unsigned long long seq = 0;
	char *end, next[24];
	json_t *a = json_array();
	struct sbuf *sb;

	if (cursor != NULL) {
		errno = 0;
		seq = strtoull(cursor, &end, 10);
		if (cursor[0] < '0' || cursor[0] > '9' || *end != '\0' ||
		    errno != 0) {
			json_decref(a);
			varlink_error_value(call, "cursor", "not a cursor of "
			    "TemplateList");
			return;
		}
	}
	sb = sbuf_new_auto();
	if (sb == NULL || a == NULL) {
		json_decref(a);
		sbuf_delete(sb);
		varlink_error_errno(call, ENOMEM, "template list");
		return;
	}
	n = registry_templates(call->d->reg, &tpls);
	first = registry_templates_after(call->d->reg, seq);
	next[0] = '\0';
	for (i = first; i < n; i++) {
		/* Others' templates the caller sees no kstat of (a PRIV
		 * kstat's, another zone's) are not shown: their names and
		 * VOIs would tell what those kstats hold. */
		if (!view_template_visible(&call->conn->peer, tpls[i]))
			continue;
		/* A page holds at least one template, and about a page's
		 * bytes: each template costs about its definition. (The
		 * ones before it on the page may all have been hidden.) */
		if (json_array_size(a) > 0 && used + tpls[i]->bytes > budget) {
			snprintf(next, sizeof(next), "%llu",
			    (unsigned long long)tpls[i - 1]->seq);
			break;
		}
		sbuf_printf(sb, "%s%s", json_array_size(a) > 0 ? "," : "",
		    tpls[i]->spec);
		json_array_append_new(a, registry_template_json(tpls[i]));
		used += tpls[i]->bytes;
	}
	if (sbuf_finish(sb) != 0) {
		json_decref(a);
		sbuf_delete(sb);
		varlink_error_errno(call, ENOMEM, "template list");
		return;
	}
	varlink_reply_page(call, json_pack("{s:s, s:o}", "list",
	    sbuf_data(sb), "templates", a), next[0] != '\0' ? next : NULL);
	sbuf_delete(sb);
}
