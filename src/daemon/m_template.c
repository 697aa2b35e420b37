/*
 * m_template.c: io.statsd.TemplateAdd and io.statsd.TemplateList.
 */
#include <errno.h>
#include <stdlib.h>

#include <statsd/sbuf.h>

#include "checkpoint.h"
#include "control.h"
#include "daemon.h"
#include "methods.h"
#include "registry.h"
#include "tpldef.h"

const struct vl_field m_template_add_params[] = {
	VLF_STR("name", false, TPL_MAX_NAME_LEN),
	VLF_STRUCTS("vois", false, "VoiSpec", tpldef_voispec_fields,
	    TPLDEF_MAX_VOIS),
	VLF_END
};

const struct vl_field m_template_list_params[] = { VLF_END };

void
m_template_add(struct vl_call *call, json_t *params)
{
	struct statsd *d = call->d;
	const struct peer *p = &call->conn->peer;
	struct reg_owner owner = { p->uid, p->privileged, false };
	struct quota_refusal why;
	struct reg_template *t;
	char bad[128], reason[160];
	bool created;
	int r;

	r = registry_template_add(d->reg, params, &owner, &t, &created, bad,
	    sizeof(bad), reason, sizeof(reason), &why);
	switch (r) {
	case 0:
		break;
	case -EINVAL:
		varlink_error(call, VL_E_INVALID_TEMPLATE,
		    json_pack("{s:s, s:s}",
		    "parameter", bad, "reason", reason));
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
	/* A template a PERSISTENT kstat may use must be in the checkpoint
	 * before that kstat can be. */
	if (created)
		(void)checkpoint_write(d->checkpoint);
	varlink_reply(call, json_pack("{s:o, s:b}", "template",
	    registry_template_json(t), "created", created));
}

void
m_template_list(struct vl_call *call, json_t *params)
{
	struct reg_template **tpls;
	json_t *a = json_array();
	struct sbuf *sb;
	size_t n, i;

	(void)params;
	sb = sbuf_new_auto();
	if (sb == NULL || a == NULL) {
		json_decref(a);
		sbuf_delete(sb);
		varlink_error_errno(call, ENOMEM, "template list");
		return;
	}
	n = registry_templates(call->d->reg, &tpls);
	for (i = 0; i < n; i++) {
		sbuf_printf(sb, "%s%s", i > 0 ? "," : "", tpls[i]->spec);
		json_array_append_new(a, registry_template_json(tpls[i]));
	}
	if (sbuf_finish(sb) != 0) {
		json_decref(a);
		sbuf_delete(sb);
		varlink_error_errno(call, ENOMEM, "template list");
		return;
	}
	varlink_reply(call, json_pack("{s:s, s:o}", "list", sbuf_data(sb),
	    "templates", a));
	sbuf_delete(sb);
}
