/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * m_template.c: io.statsd.TemplateAdd and io.statsd.TemplateList (its
 * pages chosen here, rendered by the reader thread).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <statsd/sbuf.h>

#include "control.h"
#include "daemon.h"
#include "methods.h"
#include "registry.h"
#include "rthread.h"
#include "stat_scalar.h"
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

/*
 * A page of TemplateList. The loop chooses the page's templates (what the
 * caller may see, about a page's bytes) and copies what the reply shows
 * of each; the reader thread renders the reply from the copies, so it
 * never touches the registry, and a template dropped meanwhile is still
 * shown as it was when the page was chosen.
 */
struct m_tl_item {
	char		 name[TPL_MAX_NAME_LEN + 1];
	char		 spec[STATS_TPL_MAX_STR_SPEC_LEN + 8];
	uint32_t	 hash;
	uint32_t	 size;
	char		*vois;		/* JSON text */
};

struct m_tljob {
	struct m_rcall		 rc;
	struct m_tl_item	*v;
	size_t			 n;
	char			 next[24];	/* "": the last page */
	struct sbuf		*text;		/* the reply's parameters */
	int			 r;
};

static void
m_tljob_free(struct m_rcall *rc)
{
	struct m_tljob *m = (struct m_tljob *)(void *)rc;
	size_t i;

	for (i = 0; i < m->n; i++)
		free(m->v[i].vois);
	free(m->v);
	sbuf_delete(m->text);
	free(m);
}

/* The reply's parameters, {"list":..,"templates":[..],"cursor":..}, as
 * TemplateList always gave them. On the reader thread. */
static void
m_tljob_run(struct rjob *j, struct rview *rv, struct pub_reader *rd)
{
	struct m_tljob *m = (struct m_tljob *)(void *)j;
	struct sbuf *list = sbuf_new_auto(), *sb = sbuf_new_auto();
	size_t i;

	(void)rv;
	(void)rd;
	m->r = -ENOMEM;
	if (list == NULL || sb == NULL) {
		sbuf_delete(list);
		sbuf_delete(sb);
		return;
	}
	for (i = 0; i < m->n; i++)
		sbuf_printf(list, "%s%s", i > 0 ? "," : "", m->v[i].spec);
	if (sbuf_finish(list) != 0) {
		sbuf_delete(list);
		sbuf_delete(sb);
		return;
	}
	sbuf_cat(sb, "{\"list\":");
	stat_json_string(sb, sbuf_data(list), (size_t)sbuf_len(list));
	sbuf_delete(list);
	sbuf_cat(sb, ",\"templates\":[");
	for (i = 0; i < m->n; i++) {
		const struct m_tl_item *t = &m->v[i];

		sbuf_cat(sb, i > 0 ? ",{\"spec\":" : "{\"spec\":");
		stat_json_string(sb, t->spec, strlen(t->spec));
		sbuf_cat(sb, ",\"name\":");
		stat_json_string(sb, t->name, strlen(t->name));
		sbuf_printf(sb, ",\"hash\":%" PRIu32 ",\"size\":%" PRIu32
		    ",\"vois\":%s}", t->hash, t->size, t->vois);
	}
	sbuf_putc(sb, ']');
	if (m->next[0] != '\0') {
		sbuf_cat(sb, ",\"cursor\":");
		stat_json_string(sb, m->next, strlen(m->next));
	}
	sbuf_putc(sb, '}');
	if (sbuf_finish(sb) != 0) {
		sbuf_delete(sb);
		return;
	}
	m->text = sb;
	m->r = 0;
}

static void
m_tljob_answer(struct vl_call *call, struct m_rcall *rc)
{
	struct m_tljob *m = (struct m_tljob *)(void *)rc;

	if (m->r < 0 || varlink_page_next(call, m->next[0] != '\0' ?
	    m->next : NULL) < 0) {
		varlink_error_errno(call, ENOMEM, "template list");
		return;
	}
	(void)varlink_reply_text(call, sbuf_data(m->text),
	    (size_t)sbuf_len(m->text));
}

/* Copy template t into the page's next item. Returns: 0; -ENOMEM. */
static int
m_tl_take(struct m_tljob *m, size_t *cap, const struct reg_template *t)
{
	struct m_tl_item *it;

	if (m->n == *cap) {
		size_t nc = *cap > 0 ? 2 * *cap : 16;
		void *p = realloc(m->v, nc * sizeof(*m->v));

		if (p == NULL)
			return -ENOMEM;
		m->v = p;
		*cap = nc;
	}
	it = &m->v[m->n];
	if ((it->vois = strdup(t->vois_json)) == NULL)
		return -ENOMEM;
	snprintf(it->name, sizeof(it->name), "%s", t->name);
	snprintf(it->spec, sizeof(it->spec), "%s", t->spec);
	it->hash = t->hash;
	it->size = t->size;
	m->n++;
	return 0;
}

void
m_template_list(struct vl_call *call, json_t *params)
{
	const char *cursor = varlink_str(params, "cursor", NULL);
	size_t budget = varlink_page_size(call), used = 0, n, i, first;
	size_t cap = 0;
	struct reg_template **tpls;
	unsigned long long seq = 0;
	struct m_tljob *m;
	char *end;

	if (cursor != NULL) {
		errno = 0;
		seq = strtoull(cursor, &end, 10);
		if (cursor[0] < '0' || cursor[0] > '9' || *end != '\0' ||
		    errno != 0) {
			varlink_error_value(call, "cursor", "not a cursor of "
			    "TemplateList");
			return;
		}
	}
	if ((m = calloc(1, sizeof(*m))) == NULL) {
		varlink_error_errno(call, ENOMEM, "template list");
		return;
	}
	m->rc.peer = call->conn->peer;
	m->rc.answer = m_tljob_answer;
	m->rc.free = m_tljob_free;
	m->rc.job.run = m_tljob_run;
	n = registry_templates(call->d->reg, &tpls);
	first = registry_templates_after(call->d->reg, seq);
	for (i = first; i < n; i++) {
		/* Others' templates the caller sees no kstat of (a PRIV
		 * kstat's, another zone's) are not shown: their names and
		 * VOIs would tell what those kstats hold. */
		if (!view_template_visible(&call->conn->peer, tpls[i]))
			continue;
		/* A page holds at least one template, and about a page's
		 * bytes: each template costs about its definition. (The
		 * ones before it on the page may all have been hidden.) */
		if (m->n > 0 && used + tpls[i]->bytes > budget) {
			snprintf(m->next, sizeof(m->next), "%llu",
			    (unsigned long long)tpls[i - 1]->seq);
			break;
		}
		if (m_tl_take(m, &cap, tpls[i]) < 0) {
			m_tljob_free(&m->rc);
			varlink_error_errno(call, ENOMEM, "template list");
			return;
		}
		used += tpls[i]->bytes;
	}
	if (call->d->rthread != NULL) {
		m_rcall_submit(call, params, &m->rc);
		return;
	}
	m_tljob_run(&m->rc.job, NULL, NULL);
	m_tljob_answer(call, &m->rc);
	m_tljob_free(&m->rc);
}
