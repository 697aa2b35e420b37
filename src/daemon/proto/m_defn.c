/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * m_defn.c: Linux statistic definitions (io.statsd.DefinitionGet and
 * DefinitionSet) and the templates' sample rates (SampleRatesGet and
 * SampleRatesSet).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <statsd/kstat.h>
#include <statsd/sbuf.h>

#include "checkpoint.h"
#include "control.h"
#include "daemon.h"
#include "defn.h"
#include "engine.h"
#include "log.h"
#include "methods.h"
#include "registry.h"
#include "stat_scalar.h"

#define M_NAME_FIELDS							\
	VLF_STR("module", false, KSTAT_STRLEN - 1),			\
	VLF_INT("instance", false, 0, INT32_MAX),			\
	VLF_STR("name", false, KSTAT_STRLEN - 1)

#define M_TEXT_MAX	65536

const struct vl_field m_defn_get_params[] = {
	M_NAME_FIELDS,
	VLF_END
};

const struct vl_field m_defn_set_params[] = {
	M_NAME_FIELDS,
	VLF_STR("text", false, M_KSTAT_DEFN_MAX),
	VLF_END
};

const struct vl_field m_defn_rates_get_params[] = { VLF_END };

const struct vl_field m_defn_rates_set_params[] = {
	VLF_STR("text", false, M_TEXT_MAX),
	VLF_END
};

/*
 * The reply of DefinitionGet (set NULL) and DefinitionSet: k's definition
 * lines as the definition file's text and as data (LinuxDefinition),
 * both written from the blob, and whether it was re-laid.
 */
static void
m_defn_reply(struct vl_call *call, const struct reg_kstat *k,
    const bool *relaid)
{
	const struct statsblob *sb = registry_blob_peek(k);
	struct sbuf *buf = sbuf_new_auto(), *text = sbuf_new_auto();
	const char *const *names;
	uint16_t nn;
	int r = -ENOMEM;

	names = registry_kstat_names(k, &nn);
	if (buf != NULL && text != NULL &&
	    (r = defn_format(text, sb, names, nn)) == 0 &&
	    (r = sbuf_finish(text) != 0 ? -ENOMEM : 0) == 0) {
		sbuf_cat(buf, "{\"text\":");
		stat_json_string(buf, sbuf_data(text), (size_t)sbuf_len(text));
		sbuf_cat(buf, ",\"definitions\":");
		r = defn_json(buf, sb, names, nn);
	}
	if (r == 0) {
		if (relaid != NULL)
			sbuf_cat(buf, *relaid ? ",\"relaid\":true" :
			    ",\"relaid\":false");
		sbuf_putc(buf, '}');
		r = sbuf_finish(buf) != 0 ? -ENOMEM : 0;
	}
	if (r < 0)
		varlink_error_errno(call, -r, "definition");
	else
		varlink_reply_text(call, sbuf_data(buf), (size_t)sbuf_len(buf));
	sbuf_delete(text);
	sbuf_delete(buf);
}

void
m_defn_get(struct vl_call *call, json_t *params)
{
	struct reg_kstat *k;

	k = m_kstat_get(call, params, false);
	if (k != NULL)
		m_defn_reply(call, k, NULL);
}

void
m_defn_set(struct vl_call *call, json_t *params)
{
	struct statsd *d = call->d;
	struct reg_kstat *k;
	bool relaid, resized;

	k = m_kstat_get_own(call, params, false, "text",
	    "statsd's own kstats are read-only");
	if (k == NULL)
		return;
	if (m_kstat_defn(call, k, varlink_str(params, "text", ""), "text",
	    &relaid, &resized) < 0)
		return;
	if (resized) {
		/* The new layout is in the runtime file already; the
		 * checkpoint has it once the persistence thread synced its
		 * record, or at its next pass. */
		checkpoint_unsynced(d->checkpoint, true);
		(void)checkpoint_kstat_put(d->checkpoint, k, k->dormant);
		checkpoint_unsynced(d->checkpoint, false);
		checkpoint_flush(d->checkpoint);
	}
	m_defn_reply(call, k, &relaid);
}

/* The rates of text as the IDL's []SampleRate; NULL if text is bad. */
static json_t *
m_rates_json(const char *text)
{
	struct stats_tpl_sample_rate *rates = NULL;
	json_t *a;
	char spec[STATS_TPL_MAX_STR_SPEC_LEN + 8];
	int n = 0, i;

	if (text[0] == '\0')
		return json_array();
	if (stats_tpl_sample_rates_parse(text, &rates, &n, NULL) != 0)
		return NULL;
	a = json_array();
	for (i = 0; i < n; i++) {
		if (stats_tpl_id2spec((uint32_t)rates[i].tpl_slot_id, spec,
		    sizeof(spec)) != 0)
			continue;
		json_array_append_new(a, json_pack("{s:s, s:I}", "template",
		    spec, "pct", (json_int_t)rates[i].tpl_sample_pct));
	}
	free(rates);
	return a;
}

void
m_defn_rates_get(struct vl_call *call, json_t *params)
{
	const char *text = call->d->sample_rates != NULL ?
	    call->d->sample_rates : "";
	json_t *a;

	(void)params;
	a = m_rates_json(text);
	varlink_reply(call, json_pack("{s:s, s:o}", "text", text, "rates",
	    a != NULL ? a : json_array()));
}

/*
 * SampleRatesSet answered once the record of the new rates is durable:
 * written in the loop, synced by the persistence thread with whatever
 * else waits (checkpoint.h), the call parked meanwhile; it was a whole
 * pass of the state log, in the loop, waiting for the thread first. A
 * failed write or sync is answered all the same, as it always was: the
 * rates are statsd's, and the next pass writes them (its meta record
 * follows them).
 */
struct m_rates {
	struct checkpoint_wait	 w;
	struct statsd		*d;
	struct conn		*conn;	/* NULL once the caller is gone */
	json_t			*reply;
};

static void
m_rates_free(struct m_rates *m)
{
	json_decref(m->reply);
	free(m);
}

static void
m_rates_wake(void *arg)
{
	struct m_rates *m = arg;

	if (m->conn != NULL)
		varlink_wake(m->conn);
	else
		m_rates_free(m);
}

static bool
m_rates_step(struct vl_call *call, json_t *params, void *state,
    uint64_t budget)
{
	struct m_rates *m = state;

	(void)params;
	(void)budget;
	if (m->w.result == 1) {
		varlink_park(call);
		return false;
	}
	varlink_reply(call, json_incref(m->reply));
	return true;
}

/* Answered, or the caller gone: a wait still on frees m when it ends. */
static void
m_rates_state_free(void *state)
{
	struct m_rates *m = state;

	if (m->w.result == 1 && m->w.prevp != NULL) {
		m->conn = NULL;
		return;
	}
	checkpoint_wait_cancel(m->d->checkpoint, &m->w);
	m_rates_free(m);
}

static void
m_rates_answer(struct vl_call *call, json_t *params, const char *canon)
{
	struct statsd *d = call->d;
	json_t *reply = json_pack("{s:s, s:o}", "text", canon, "rates",
	    m_rates_json(canon));
	struct m_rates *m;
	int r;

	if (reply == NULL) {
		varlink_error_errno(call, ENOMEM, "sample rates");
		return;
	}
	/* A state directory that failed is tried again with a whole pass,
	 * in the loop, as at start: that write, working, is what makes it
	 * usable again. */
	if (!checkpoint_status(d->checkpoint, NULL)) {
		(void)checkpoint_write(d->checkpoint);
		varlink_reply(call, reply);
		return;
	}
	checkpoint_unsynced(d->checkpoint, true);
	r = checkpoint_meta_put(d->checkpoint);
	checkpoint_unsynced(d->checkpoint, false);
	m = r == 0 ? calloc(1, sizeof(*m)) : NULL;
	if (m == NULL) {
		if (r == 0)	/* no one to wait: synced all the same */
			checkpoint_flush(d->checkpoint);
		varlink_reply(call, reply);
		return;
	}
	m->d = d;
	m->conn = call->conn;
	m->reply = reply;
	m->w.wake = m_rates_wake;
	m->w.arg = m;
	if (checkpoint_wait(d->checkpoint, &m->w) != 1) {
		varlink_reply(call, json_incref(reply));
		m_rates_free(m);
		return;
	}
	(void)varlink_defer(call, params, m_rates_step, m, m_rates_state_free);
}

void
m_defn_rates_set(struct vl_call *call, json_t *params)
{
	struct statsd *d = call->d;
	const char *text = varlink_str(params, "text", "");
	struct stats_tpl_sample_rate *rates = NULL;
	struct sbuf *buf;
	size_t errpos = 0;
	char *canon;
	int n = 0, r;

	if (text[0] != '\0') {
		r = stats_tpl_sample_rates_parse(text, &rates, &n, &errpos);
		if (r == ESRCH) {
			varlink_error_value(call, "text", "no such template at "
			    "byte %zu", errpos);
			return;
		}
		if (r != 0) {
			varlink_error_value(call, "text",
			    "malformed at byte %zu, "
			    "or a total over 100", errpos);
			return;
		}
	}
	buf = sbuf_new_auto();
	if (buf == NULL || stats_tpl_sample_rates_format(rates, n, buf) != 0 ||
	    sbuf_finish(buf) != 0 || (canon = strdup(sbuf_data(buf))) == NULL) {
		sbuf_delete(buf);
		free(rates);
		varlink_error_errno(call, ENOMEM, "sample rates");
		return;
	}
	sbuf_delete(buf);
	free(rates);
	free(d->sample_rates);
	d->sample_rates = canon;
	m_rates_answer(call, params, canon);
}
