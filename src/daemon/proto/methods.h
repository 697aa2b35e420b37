/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * methods.h: the method handlers, grouped by area, and their parameter
 * tables. The method table in methods.c ties each to its name and right.
 */
#ifndef STATSD_DAEMON_METHODS_H
#define STATSD_DAEMON_METHODS_H

#include <statsd/kstat.h>

#include "rights.h"
#include "rthread.h"
#include "varlink.h"

/* m_info.c: versions, identity, state; org.varlink.service. */
extern const struct vl_field m_hello_params[], m_info_params[];
extern const struct vl_field m_getinfo_params[], m_getifdesc_params[];
vl_handler_fn m_info_hello, m_info_info, m_info_getinfo, m_info_getifdesc;

/* m_template.c: templates. Which a caller may see is view.h's. */
extern const struct vl_field m_template_add_params[],
    m_template_list_params[];
vl_handler_fn m_template_add, m_template_list;

/* m_kstat.c: kstat create and delete. */
struct reg_kstat;
/* The kstat module/instance/name in params name, if the caller may see
 * it; otherwise answer NoSuchKstat and return NULL. */
struct reg_kstat *m_kstat_get(struct vl_call *call, json_t *params,
    bool dormant_too);
/* As m_kstat_get(), for a change: a kstat the caller may not modify
 * answers PermissionDenied, one of statsd's own an InvalidParameter on
 * field saying internal_why; either returns NULL. */
struct reg_kstat *m_kstat_get_own(struct vl_call *call, json_t *params,
    bool dormant_too, const char *field, const char *internal_why);
/* Kstats one KstatCreateMany may make: a bounded slice of work. */
#define M_KSTAT_BATCH_MAX	4096
/* A definition text's bytes (DefinitionSet's, KstatCreate's). */
#define M_KSTAT_DEFN_MAX	65536
/*
 * Apply Linux definition lines text to k (DefinitionSet's work, shared
 * with a KstatCreate that carries its definitions): k is changed only if
 * every line is taken; a new size is the owner's to pay. field names
 * text in an InvalidValue. The checkpoint
 * record of a re-laid kstat is the caller's to write (*ret_relaid).
 * Returns: 0; -errno (answered).
 */
int m_kstat_defn(struct vl_call *call, struct reg_kstat *k, const char *text,
    const char *field, bool *ret_relaid, bool *ret_resized);
extern const struct vl_field m_kstat_create_params[],
    m_kstat_create_many_params[], m_kstat_delete_params[];
vl_handler_fn m_kstat_create, m_kstat_create_many, m_kstat_delete;
extern const struct vl_field m_kstat_relayout_params[];
vl_handler_fn m_kstat_relayout;

/* m_ring.c: rings and segments, with SCM_RIGHTS. */
extern const struct vl_field m_ring_attach_params[],
    m_ring_segment_params[];
vl_handler_fn m_ring_attach, m_ring_segment;

/* m_read.c: chain, lookup, read, write, snapshot. */
extern const struct vl_field m_read_chain_params[], m_read_lookup_params[],
    m_read_read_params[], m_read_write_params[], m_read_snapshot_params[];
vl_handler_fn m_read_chain, m_read_lookup, m_read_read, m_read_write,
    m_read_snapshot;

/* What the readers share (m_read.c). */
struct ks_view;
struct ks_selector;
struct statsblob;
/* The chain id of what the caller sees. */
json_int_t m_kcid(const struct vl_call *call);

/*
 * m_walk.c: the walk the reads of many kstats share to answer in pages
 * (varlink.h): kstats in kstat(1M)'s order from the start or after a
 * page's cursor ("<sent>:<module>:<instance>:<name>": the kstats sent so
 * far and the last one's name), within the range the literal names allow
 * (a module, an instance, a whole name: the rest of the chain is never
 * looked at, so selecting a kstat by name costs the same however many
 * there are), a page ending when its work (a slice) or its bytes are
 * spent.
 */
/* Long enough for the exposition's (expo.h): two stems, two families and
 * a kstat's names. */
#define M_CURSOR_MAX	4096
#define M_CURSOR_FIELD	VLF_STR("cursor", true, M_CURSOR_MAX)
#define M_COST_KSTAT	64u	/* looking at one kstat */
#define M_COST_JSON	2048u	/* making its Kstat value */

struct ks_pattern;
struct m_walk {
	struct registry		*reg;
	const char		*module;	/* literal, or NULL */
	int32_t			 instance;	/* literal, or -1 */
	const char		*name;		/* literal, or NULL */
	struct reg_kstat	*k;		/* next; NULL: done */
	const struct reg_kstat	*last;		/* looked at last */
	uint64_t		 sent;		/* kstats sent before */
	uint64_t		 budget;	/* units left for the page */
	char			 cursor[M_CURSOR_MAX + 1];
};

/* An instance pattern that matches one number: it, else -1. */
int32_t m_literal_instance(const struct ks_pattern *p);

/* Start a page (set module, instance and name first): at the call's
 * cursor, or at the start of the range. Returns: 0; -EINVAL (a bad
 * cursor, answered with InvalidValue). */
int m_walk_start(struct vl_call *call, json_t *params, struct m_walk *w);

/* The next kstat the literal names match, looking at one costing
 * M_COST_KSTAT + cost: NULL at the end, or when the page's work is spent
 * (with a cursor after the last looked at). */
struct reg_kstat *m_walk_next(struct m_walk *w, uint64_t cost);

/* Charge units of the page's work (what was made of a kstat). */
void m_walk_charge(struct m_walk *w, uint64_t units);

/* End the page after k (just sent), if anything follows it. */
void m_walk_cut(struct m_walk *w, const struct reg_kstat *k);

/* The cursor of the page's reply: NULL if the walk is over. */
const char *m_walk_cursor(const struct m_walk *w);

/*
 * m_rcall.c: a call whose page the reader thread renders (rthread.h).
 * The handler fills one (job.run, answer, free; peer, the caller's), and
 * m_rcall_submit() hands it over: the call waits, parked, and answer()
 * replies in the loop once run() is done. free() is called once, when
 * the call is answered, or when the page comes back after the caller
 * left (or at once if the call could not be deferred: answered).
 */
struct m_rcall {
	struct rjob	 job;
	struct peer	 peer;
	void		(*answer)(struct vl_call *call, struct m_rcall *rc);
	void		(*free)(struct m_rcall *rc);
	bool		 submitted;	/* to the reader thread */
	bool		 finished;	/* run, and back in the loop */
	struct conn	*conn;		/* NULL once the caller left */
};
void m_rcall_submit(struct vl_call *call, json_t *params, struct m_rcall *rc);

/*
 * The same walk over a reader's view of the store (rview.h), for a page
 * the reader thread renders: m_rwalk_prepare() in the loop (the literal
 * names set first; the cursor parsed), the rest on the reader thread.
 * Pages and cursors are the registry walk's: a client may page with
 * either.
 */
struct rview;
struct rv_ent;
struct m_rwalk {
	const char		*module;	/* literal, or NULL */
	int32_t			 instance;	/* literal, or -1 */
	const char		*name;		/* literal, or NULL */
	bool			 resume;	/* after the cursor's kstat */
	char			 cmodule[KSTAT_STRLEN];
	int32_t			 cinstance;
	char			 cname[KSTAT_STRLEN];
	const struct rview	*rv;
	const struct rv_ent	*k;		/* the view's kstat order */
	size_t			 i, n;		/* next; its end */
	const struct rv_ent	*last;		/* looked at last */
	uint64_t		 sent;
	uint64_t		 budget;
	char			 cursor[M_CURSOR_MAX + 1];
};
int m_rwalk_prepare(struct vl_call *call, json_t *params, struct m_rwalk *w);
void m_rwalk_start(struct m_rwalk *w, const struct rview *rv);
const struct rv_ent *m_rwalk_next(struct m_rwalk *w, uint64_t cost);
void m_rwalk_charge(struct m_rwalk *w, uint64_t units);
void m_rwalk_cut(struct m_rwalk *w, const struct rv_ent *e);
const char *m_rwalk_cursor(const struct m_rwalk *w);

/* m_scrape.c: scrape, in pages. */
extern const struct vl_field m_scrape_params[];
vl_handler_fn m_scrape;

/* m_defn.c: definitions and sample rates. */
extern const struct vl_field m_defn_get_params[], m_defn_set_params[],
    m_defn_rates_get_params[], m_defn_rates_set_params[];
vl_handler_fn m_defn_get, m_defn_set, m_defn_rates_get, m_defn_rates_set;

/* methods.c: every method above with its name, right and flags. */
extern const struct vl_methods statsd_methods;

#endif
