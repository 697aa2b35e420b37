/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kstat_consumer.c: illumos's libkstat consumer API (kstat(3KSTAT)) over
 * statsd: the chain, lookups, reads and writes. Reads copy blobs out of the
 * store segments mapped read-only (under each kstat's sequence counter);
 * where statsd gives no segment they go over the socket (Chain, Snapshot).
 * VOI names, which the segment does not hold, come from TemplateList.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "b64.h"
#include "client_priv.h"
#include "kstat_data.h"
#include "kstat_hdr.h"

#define KC_MAGIC	0x6b63746cu	/* "kctl" */
#define KS_MAGIC	0x6b737463u	/* "kstc" */

/* A template's VOI names and kstat2 histograms, by its hash. */
struct kc_tpl {
	uint32_t		 hash;
	uint16_t		 nnames;
	char			**names;
	struct k2hist_params	*k2;	/* nnames of them */
};

/* The chain id of a segment the chain was last made from. */
struct kc_seen {
	uint64_t		 birth;
	uint64_t		 kcid;
};

struct kc_ks;

struct kc_state {
	kstat_ctl_t		 kc;		/* first: the caller's handle */
	uint32_t		 magic;
	struct vlc		*vlc;
	bool			 socket_only;
	struct cl_segs		 segs;		/* mapped read-only */
	/* What an update needs to change only what changed: the segments'
	 * chain ids the chain is at, the chain's last kstat, and the
	 * kstats by (segment, slot). */
	struct kc_seen		*seen;
	size_t			 nseen;
	uint64_t		*walked;	/* each segment's, in a walk */
	size_t			 cwalked;
	struct kc_ks		*tail;
	struct kc_ks		**byslot;
	size_t			 byslot_mask, nbyslot;
	struct kc_tpl		*tpls;
	size_t			 ntpls;
	void			*blob;		/* a read's copy */
	char			 err[256];
};

struct kc_ks {
	kstat_t			 ks;		/* first */
	uint32_t		 magic;
	struct kc_ks		*prev;		/* on the chain */
	struct kc_ks		*hnext;		/* in byslot */
	uint64_t		 seg;		/* its segment's birth; 0: known
						 * over the socket */
	struct store_ref	 ref;
	uint8_t			 type;		/* statsd's */
	uint32_t		 ndata;		/* the header's */
	uint32_t		 tpl_hash;
	uint8_t			 content;	/* kstat2's, the header's */
	uint64_t		 scale;
};

static struct kc_state *
kc_state(kstat_ctl_t *kc)
{
	struct kc_state *s = (struct kc_state *)kc;

	return s != NULL && s->magic == KC_MAGIC ? s : NULL;
}

static struct kc_ks *
kc_ks(kstat_t *ksp)
{
	struct kc_ks *k = (struct kc_ks *)ksp;

	return k != NULL && k->magic == KS_MAGIC ? k : NULL;
}

static int
kc_errno(int r)
{
	errno = r < 0 ? -r : r;
	return -1;
}

static int
kc_call(struct kc_state *s, const char *method, json_t *params,
    struct vlc_reply *rep)
{
	int r;

	r = vlc_call(s->vlc, method, params, 0, NULL, 0, CL_CALL_TIMEOUT_MS,
	    rep);
	json_decref(params);
	if (r == -EREMOTEIO)
		return -vlc_error_errno(rep->error);
	return r;
}

/* ---------------------------------------------------------------- names */

static void
kc_tpls_free(struct kc_state *s)
{
	size_t i;
	uint16_t k;

	for (i = 0; i < s->ntpls; i++) {
		for (k = 0; k < s->tpls[i].nnames; k++)
			free(s->tpls[i].names[k]);
		free(s->tpls[i].names);
		free(s->tpls[i].k2);
	}
	free(s->tpls);
	s->tpls = NULL;
	s->ntpls = 0;
}

/* A K2HIST StatSpec of io.statsd.varlink: what the histogram was created
 * with (absent fields take the IDL's defaults). */
static void
kc_k2hist(const json_t *st, struct k2hist_params *p)
{
	const char *scheme = json_string_value(json_object_get(st, "scheme"));
	int type = k2hist_type_from_name(scheme != NULL ? scheme : "LINEAR");
	json_t *v;

	p->valid = type >= 0;
	p->type = (enum k2hist_type)(type >= 0 ? type : 0);
	v = json_object_get(st, "lb");
	p->range_min = json_is_integer(v) ? (uint64_t)json_integer_value(v) : 0;
	v = json_object_get(st, "ub");
	p->range_max = json_is_integer(v) ? (uint64_t)json_integer_value(v) : 0;
	v = json_object_get(st, "step");
	p->stepping = json_is_integer(v) ? (uint64_t)json_integer_value(v) : 1;
}

/* Add the templates of one TemplateList page. Returns: 0; -ENOMEM. */
static int
kc_tpls_add(struct kc_state *s, json_t *tl, size_t *cap)
{
	json_t *t, *vois, *v;
	size_t i, j;

	if (s->ntpls + json_array_size(tl) + 1 > *cap) {
		size_t nc = s->ntpls + json_array_size(tl) + 16;
		struct kc_tpl *nt = realloc(s->tpls, nc * sizeof(*nt));

		if (nt == NULL)
			return -ENOMEM;
		s->tpls = nt;
		*cap = nc;
	}
	json_array_foreach(tl, i, t) {
		struct kc_tpl *kt = &s->tpls[s->ntpls];
		json_int_t hash = 0, maxid = -1;

		memset(kt, 0, sizeof(*kt));
		(void)json_unpack(t, "{s:I}", "hash", &hash);
		vois = json_object_get(t, "vois");
		json_array_foreach(vois, j, v) {
			json_int_t id = json_integer_value(json_object_get(v,
			    "id"));

			if (id > maxid && id < 65536)
				maxid = id;
		}
		kt->hash = (uint32_t)hash;
		kt->nnames = (uint16_t)(maxid + 1);
		kt->names = calloc(kt->nnames + 1u, sizeof(char *));
		kt->k2 = calloc(kt->nnames + 1u, sizeof(*kt->k2));
		if (kt->names == NULL || kt->k2 == NULL) {
			free(kt->names);
			free(kt->k2);
			return -ENOMEM;
		}
		json_array_foreach(vois, j, v) {
			json_int_t id = json_integer_value(json_object_get(v,
			    "id"));
			const char *n = json_string_value(json_object_get(v,
			    "name"));
			json_t *st;
			size_t k;

			if (id < 0 || id >= kt->nnames)
				continue;
			if (n != NULL)
				kt->names[id] = strdup(n);
			json_array_foreach(json_object_get(v, "stats"), k, st)
				if (json_is_string(json_object_get(st, "kind"))
				    && strcmp(json_string_value(json_object_get(
				    st, "kind")), "K2HIST") == 0)
					kc_k2hist(st, &kt->k2[id]);
		}
		s->ntpls++;
	}
	return 0;
}

/* A paged reply's cursor, copied into *ret for the next call; *ret stays
 * NULL after the last page. Returns: 0; -ENOMEM. */
static int
kc_next_cursor(const json_t *params, char **ret)
{
	const char *c = json_string_value(json_object_get(params, "cursor"));

	if (c == NULL)
		return 0;
	*ret = strdup(c);
	return *ret != NULL ? 0 : -ENOMEM;
}

/* Load every template's VOI names (TemplateList, page by page).
 * Returns: 0; -errno. */
static int
kc_tpls_load(struct kc_state *s)
{
	struct vlc_reply rep;
	char *cursor = NULL;
	size_t cap = 0;
	int r;

	kc_tpls_free(s);
	do {
		r = kc_call(s, VL_M_TEMPLATE_LIST, cursor != NULL ?
		    json_pack("{s:s}", "cursor", cursor) : NULL, &rep);
		free(cursor);
		cursor = NULL;
		if (r == 0)
			r = kc_tpls_add(s, json_object_get(rep.params,
			    "templates"), &cap);
		if (r == 0)
			r = kc_next_cursor(rep.params, &cursor);
		vlc_reply_done(&rep);
	} while (r == 0 && cursor != NULL);
	return r;
}

static const struct kc_tpl *
kc_tpl_find(struct kc_state *s, uint32_t hash, bool reload)
{
	size_t i;

	for (i = 0; i < s->ntpls; i++)
		if (s->tpls[i].hash == hash)
			return &s->tpls[i];
	if (reload && kc_tpls_load(s) == 0)
		return kc_tpl_find(s, hash, false);
	return NULL;
}

/* ---------------------------------------------------------------- chain */

/* What consumers see of a type: blobs and histograms as NAMED. */
static uint8_t
kc_shown_type(uint8_t t)
{
	return t == KSTAT_TYPE_BLOB || t == KSTAT_TYPE_HIST ||
	    t >= KSTAT_NUM_TYPES ? KSTAT_TYPE_NAMED : t;
}

static size_t
kc_fixed_size(uint8_t type, uint32_t ndata)
{
	switch (type) {
	case KSTAT_TYPE_INTR:
		return sizeof(kstat_intr_t);
	case KSTAT_TYPE_IO:
		return sizeof(kstat_io_t);
	case KSTAT_TYPE_TIMER:
		return (size_t)ndata * sizeof(kstat_timer_t);
	case KSTAT_TYPE_RAW:
		return ndata;		/* the header's: its bytes */
	default:
		return 0;	/* known after a read */
	}
}

/*
 * One kstat of a new chain, as the segment or the socket described it:
 * where it is read, and the kstat_t its header makes (ks_hdr_kstat()).
 * The header itself is not kept: a chain of 10^5 kstats would hold its
 * paths and descriptions, which a consumer never shows, 1.4 KB apiece.
 */
struct kc_entry {
	uint64_t		 seg;		/* as kc_ks */
	struct store_ref	 ref;
	uint32_t		 ndata;
	uint32_t		 tpl_hash;
	uint8_t			 type;		/* statsd's */
	uint8_t			 content;	/* kstat2's */
	uint64_t		 scale;
	kstat_t			 ks;
};

static int
kc_entry_cmp(const void *a, const void *b)
{
	const struct kc_entry *x = a, *y = b;

	return x->ks.ks_kid < y->ks.ks_kid ? -1 :
	    x->ks.ks_kid > y->ks.ks_kid;
}

/* A kstat of segment seg (0: known over the socket), as its slot and
 * header describe it. */
static void
kc_entry_of(struct kc_entry *x, uint64_t seg, const struct store_entry *e,
    const struct kstat_hdr *h)
{
	memset(x, 0, sizeof(*x));
	x->seg = seg;
	x->ref = e->ref;
	x->ndata = e->slot.ndata;
	x->tpl_hash = (uint32_t)e->slot.tpl_hash;
	x->type = h->type;
	x->content = h->content;
	x->scale = h->scale;
	ks_hdr_kstat(&x->ks, h);
	x->ks.ks_type = kc_shown_type(h->type);
	x->ks.ks_flags &= KS_FLAGS_SHOWN;
}

/* A walk's entries: those of the segments walked, then this one's. */
struct kc_walk {
	struct kc_entry		*e;
	size_t			 n, cap;
	size_t			 n0;		/* where this segment's start */
	uint64_t		 seg;
};

static int
kc_walk_one(void *arg, const struct store_entry *se,
    const struct kstat_hdr *h)
{
	struct kc_walk *w = arg;

	if (se == NULL) {		/* the chain changed: again */
		w->n = w->n0;
		return 0;
	}
	if (w->n == w->cap) {
		size_t nc = 2 * w->cap + 64;
		struct kc_entry *ne = realloc(w->e, nc * sizeof(*ne));

		if (ne == NULL)
			return -ENOMEM;
		w->e = ne;
		w->cap = nc;
	}
	kc_entry_of(&w->e[w->n++], w->seg, se, h);
	return 0;
}

static int
kc_entries_segments(struct kc_state *s, struct kc_entry **ret, size_t *ret_n,
    uint64_t *ret_kcid)
{
	struct kc_walk w = { 0 };
	uint64_t kcid = 0, k1;
	size_t seg;
	int r = 0;

	if (s->cwalked < s->segs.n) {
		uint64_t *nw = realloc(s->walked, s->segs.n * sizeof(*nw));

		if (nw == NULL)
			return -ENOMEM;
		s->walked = nw;
		s->cwalked = s->segs.n;
	}
	for (seg = 0; seg < s->segs.n; seg++) {
		struct cl_seg *g = &s->segs.v[seg];

		s->walked[seg] = 0;
		if (g->r == NULL)
			continue;
		w.n0 = w.n;
		w.seg = g->birth;
		r = store_reader_walk(g->r, kc_walk_one, &w, &k1);
		if (r < 0) {
			free(w.e);
			return r;
		}
		kcid += k1;
		s->walked[seg] = k1;
	}
	*ret = w.e;
	*ret_n = w.n;
	*ret_kcid = kcid;
	return 0;
}

/* The hash of a Kstat's template spec (0, the wildcard, if it has none
 * or is malformed). */
static uint32_t
kc_spec_hash(const char *spec)
{
	char name[STATS_TPL_MAX_STR_SPEC_LEN + 1];
	uint32_t hash = 0;

	if (spec == NULL ||
	    stats_tpl_spec_parse(spec, name, sizeof(name), &hash) != 0)
		return 0;
	return hash;
}

/* Add the kstats of one Chain page to *e. Returns: 0; -ENOMEM. */
static int
kc_entries_page(json_t *ks, struct kc_entry **e, size_t *n, size_t *cap)
{
	json_t *k, *fl, *f;
	size_t i, j;

	if (*n + json_array_size(ks) + 1 > *cap) {
		size_t nc = (*n + json_array_size(ks)) * 2 + 16;
		struct kc_entry *ne = realloc(*e, nc * sizeof(*ne));

		if (ne == NULL)
			return -ENOMEM;
		*e = ne;
		*cap = nc;
	}
	json_array_foreach(ks, i, k) {
		const char *mod = "", *name = "", *cls = "", *type = "",
		    *tpl = "", *content = "UNK";
		json_int_t inst = 0, kid = 0, cr = 0, snap = 0, scale = 1;
		json_int_t ndata = 0;
		struct store_entry se = { 0 };
		struct kstat_hdr h;

		if (json_unpack(k, "{s:s, s:I, s:s, s:s, s:s, s:I, s?I, s?I, "
		    "s?s}", "module", &mod, "instance", &inst, "name", &name,
		    "class", &cls, "type", &type, "kid", &kid, "crtime", &cr,
		    "snaptime", &snap, "template", &tpl) != 0)
			continue;
		/* The path and description are not wanted: not cleared. */
		memset(&h, 0, offsetof(struct kstat_hdr, path));
		h.kid = (int64_t)kid;
		h.crtime = (hrtime_t)cr;
		h.snaptime = (hrtime_t)snap;
		h.instance = (int32_t)inst;
		if (ks_type_from_id(type) >= 0)
			h.type = (uint8_t)ks_type_from_id(type);
		fl = json_object_get(k, "flags");
		json_array_foreach(fl, j, f)
			h.flags |= ks_flag_from_name(json_string_value(f));
		strncpy(h.module, mod, KSTAT_STRLEN - 1);
		strncpy(h.name, name, KSTAT_STRLEN - 1);
		strncpy(h.class_, cls, KSTAT_STRLEN - 1);
		se.slot.tpl_hash = kc_spec_hash(tpl);
		/* kstat2's content type and scale, and ndata (a RAW kstat's
		 * bytes), from a statsd that sends them. */
		(void)json_unpack(k, "{s?s, s?I, s?I}", "content", &content,
		    "scale", &scale, "ndata", &ndata);
		if (ks_content_from_id(content) >= 0 && scale >= 1)
			(void)ks_hdr_set_content(&h,
			    (uint8_t)ks_content_from_id(content),
			    (uint64_t)scale, NULL);
		if (ndata > 0 && ndata <= UINT32_MAX)
			se.slot.ndata = (uint32_t)ndata;
		kc_entry_of(&(*e)[(*n)++], 0, &se, &h);
	}
	return 0;
}

/* The chain over the socket, page by page: consistent when the KCID of
 * the last page is the first's (else -EAGAIN: the caller tries again). */
static int
kc_entries_socket(struct kc_state *s, struct kc_entry **ret, size_t *ret_n,
    uint64_t *ret_kcid)
{
	struct vlc_reply rep;
	struct kc_entry *e = NULL;
	json_int_t kcid = 0, first = -1;
	char *cursor = NULL;
	size_t n = 0, cap = 0;
	int r;

	do {
		json_t *p = json_pack("{s:b}", "dormant", 1);

		if (cursor != NULL)
			json_object_set_new(p, "cursor", json_string(cursor));
		free(cursor);
		cursor = NULL;
		r = kc_call(s, VL_M_CHAIN, p, &rep);
		if (r == 0) {
			(void)json_unpack(rep.params, "{s:I}", "kcid", &kcid);
			if (first < 0)
				first = kcid;
			r = kc_entries_page(json_object_get(rep.params,
			    "kstats"), &e, &n, &cap);
		}
		if (r == 0)
			r = kc_next_cursor(rep.params, &cursor);
		vlc_reply_done(&rep);
	} while (r == 0 && cursor != NULL);
	if (r == 0 && kcid != first)
		r = -EAGAIN;
	if (r < 0) {
		free(e);
		return r;
	}
	*ret = e;
	*ret_n = n;
	*ret_kcid = (uint64_t)kcid;
	return 0;
}

static uint64_t
kc_kcid_now(struct kc_state *s)
{
	return cl_segs_kcid(&s->segs);
}

/* Map the segments statsd gives this peer (those already mapped stay).
 * Returns: 0; -errno. */
static int
kc_attach_call(void *ctx, json_t *params, struct vlc_reply *rep)
{
	return kc_call(ctx, VL_M_SEGMENT_ATTACH, params, rep);
}

static int
kc_attach(struct kc_state *s)
{
	return cl_segs_attach(&s->segs, kc_attach_call, s, NULL);
}

static void
kc_ks_free(kstat_t *ksp)
{
	free(ksp->ks_data);
	free(ksp);
}

/* The old chain's kstats by KID, to find those that stay in O(1). */
struct kc_keep {
	struct kc_ks	**slot;
	size_t		  mask;
};

static size_t
kc_keep_hash(uint64_t kid, size_t mask)
{
	return (size_t)((kid * UINT64_C(11400714819323198485)) >> 17) & mask;
}

static int
kc_keep_init(struct kc_keep *kp, kstat_t *old)
{
	size_t n = 0, cap = 16;
	kstat_t *p;

	for (p = old; p != NULL; p = p->ks_next)
		n++;
	while (cap < 2 * n)
		cap <<= 1;
	kp->slot = calloc(cap, sizeof(*kp->slot));
	if (kp->slot == NULL)
		return -ENOMEM;
	kp->mask = cap - 1;
	for (p = old; p != NULL; p = p->ks_next) {
		size_t i = kc_keep_hash((uint64_t)p->ks_kid, kp->mask);

		while (kp->slot[i] != NULL)
			i = (i + 1) & kp->mask;
		kp->slot[i] = (struct kc_ks *)p;
	}
	return 0;
}

/* The old kstat e describes, if any (taken: it is never found again). */
static struct kc_ks *
kc_keep_take(struct kc_keep *kp, const struct kc_entry *e)
{
	size_t i = kc_keep_hash((uint64_t)e->ks.ks_kid, kp->mask);

	for (; kp->slot[i] != NULL; i = (i + 1) & kp->mask) {
		struct kc_ks *o = kp->slot[i];

		if (o->ks.ks_kid == e->ks.ks_kid && o->seg == e->seg &&
		    o->ref.slot == e->ref.slot && o->ref.gen == e->ref.gen &&
		    o->magic == KS_MAGIC) {
			/* Marked, not removed, so that probes go on past. */
			o->magic = 0;
			return o;
		}
	}
	return NULL;
}

/* A chain kstat as entry e says; what the consumer made of it (its data,
 * its place on the chain, a snaptime it read) stays. */
static void
kc_ks_fill(struct kc_ks *k, const struct kc_entry *e)
{
	kstat_t was = k->ks;

	k->magic = KS_MAGIC;
	k->seg = e->seg;
	k->ref = e->ref;
	k->type = e->type;
	k->ndata = e->ndata;
	k->tpl_hash = e->tpl_hash;
	k->content = e->content;
	k->scale = e->scale;
	k->ks = e->ks;
	k->ks.ks_next = was.ks_next;
	k->ks.ks_data = was.ks_data;
	k->ks.ks_ndata = was.ks_ndata;
	k->ks.ks_data_size = was.ks_data_size;
	if (was.ks_snaptime != 0)
		k->ks.ks_snaptime = was.ks_snaptime;
}

/* ---------------------------------------------- the kstats by slot */

static size_t
kc_byslot_hash(uint64_t birth, uint32_t slot, size_t mask)
{
	return (size_t)(((birth ^ ((uint64_t)slot << 20) ^ slot) *
	    UINT64_C(11400714819323198485)) >> 17) & mask;
}

static struct kc_ks *
kc_byslot_find(struct kc_state *s, uint64_t birth, uint32_t slot)
{
	struct kc_ks *k;

	if (s->byslot == NULL)
		return NULL;
	for (k = s->byslot[kc_byslot_hash(birth, slot, s->byslot_mask)];
	    k != NULL; k = k->hnext)
		if (k->seg == birth && k->ref.slot == slot)
			return k;
	return NULL;
}

static void
kc_byslot_put(struct kc_state *s, struct kc_ks *k)
{
	size_t h = kc_byslot_hash(k->seg, k->ref.slot, s->byslot_mask);

	k->hnext = s->byslot[h];
	s->byslot[h] = k;
	s->nbyslot++;
}

static void
kc_byslot_del(struct kc_state *s, struct kc_ks *k)
{
	struct kc_ks **pp;

	for (pp = &s->byslot[kc_byslot_hash(k->seg, k->ref.slot,
	    s->byslot_mask)]; *pp != NULL; pp = &(*pp)->hnext)
		if (*pp == k) {
			*pp = k->hnext;
			s->nbyslot--;
			return;
		}
}

/* Index the chain's segment kstats by slot (after a rebuild, or when it
 * grows). Without memory, no index: updates then walk the segments. */
static void
kc_byslot_make(struct kc_state *s)
{
	size_t n = 0, cap = 64;
	kstat_t *p;

	for (p = s->kc.kc_chain; p != NULL; p = p->ks_next)
		n++;
	while (cap < 2 * n + 64)
		cap <<= 1;
	free(s->byslot);
	s->byslot = calloc(cap, sizeof(*s->byslot));
	s->nbyslot = 0;
	s->byslot_mask = cap - 1;
	if (s->byslot == NULL)
		return;
	for (p = s->kc.kc_chain; p != NULL; p = p->ks_next)
		if (((struct kc_ks *)p)->seg != 0)
			kc_byslot_put(s, (struct kc_ks *)p);
}

/* Build the chain from entries, keeping the kstat_t of those that stay. */
static int
kc_rebuild(struct kc_state *s, struct kc_entry *e, size_t n)
{
	kstat_t *head = NULL, **tail = &head;
	struct kc_keep kp;
	struct kc_ks **ks;
	size_t i;

	ks = calloc(n + 1, sizeof(*ks));
	if (ks == NULL || kc_keep_init(&kp, s->kc.kc_chain) < 0) {
		free(ks);
		return -ENOMEM;
	}
	qsort(e, n, sizeof(*e), kc_entry_cmp);
	/* First find or make every kstat, so that a failure leaves the
	 * old chain as it was. */
	for (i = 0; i < n; i++) {
		ks[i] = kc_keep_take(&kp, &e[i]);
		if (ks[i] != NULL)
			continue;
		ks[i] = calloc(1, sizeof(**ks));
		if (ks[i] == NULL) {
			while (i-- > 0)
				if (ks[i]->magic == KS_MAGIC)
					kc_ks_free(&ks[i]->ks);
				else
					ks[i]->magic = KS_MAGIC;
			free(ks);
			free(kp.slot);
			return -ENOMEM;
		}
		ks[i]->magic = KS_MAGIC;
		ks[i]->ks.ks_data_size = kc_fixed_size(e[i].type,
		    e[i].ndata);
	}
	/* The old ones not kept go. */
	for (i = 0; i <= kp.mask; i++)
		if (kp.slot[i] != NULL && kp.slot[i]->magic == KS_MAGIC)
			kc_ks_free(&kp.slot[i]->ks);
	s->tail = NULL;
	for (i = 0; i < n; i++) {
		struct kc_ks *k = ks[i];

		kc_ks_fill(k, &e[i]);
		k->prev = s->tail;
		s->tail = k;
		*tail = &k->ks;
		tail = &k->ks.ks_next;
	}
	*tail = NULL;
	free(ks);
	free(kp.slot);
	s->kc.kc_chain = head;
	kc_byslot_make(s);
	return 0;
}

/* Take k off the chain and free it. */
static void
kc_unlink(struct kc_state *s, struct kc_ks *k)
{
	kstat_t *next = k->ks.ks_next;

	if (k->prev != NULL)
		k->prev->ks.ks_next = next;
	else
		s->kc.kc_chain = next;
	if (next != NULL)
		((struct kc_ks *)next)->prev = k->prev;
	else
		s->tail = k->prev;
	kc_byslot_del(s, k);
	kc_ks_free(&k->ks);
}

/* Put k on the chain in KID order: new kstats have the largest KIDs, so
 * the place is found from the end. */
static void
kc_link(struct kc_state *s, struct kc_ks *k)
{
	struct kc_ks *p = s->tail;

	while (p != NULL && p->ks.ks_kid > k->ks.ks_kid)
		p = p->prev;
	k->prev = p;
	k->ks.ks_next = p != NULL ? p->ks.ks_next : s->kc.kc_chain;
	if (k->ks.ks_next != NULL)
		((struct kc_ks *)k->ks.ks_next)->prev = k;
	else
		s->tail = k;
	if (p != NULL)
		p->ks.ks_next = &k->ks;
	else
		s->kc.kc_chain = &k->ks;
	kc_byslot_put(s, k);
}

/* Remember the segments' chain ids the chain now shows. */
static int
kc_seen_set(struct kc_state *s, const uint64_t *kcid)
{
	size_t i;

	if (s->nseen != s->segs.n) {
		struct kc_seen *ns = realloc(s->seen, (s->segs.n + 1) *
		    sizeof(*ns));

		if (ns == NULL) {
			s->nseen = 0;
			return -ENOMEM;
		}
		s->seen = ns;
		s->nseen = s->segs.n;
	}
	for (i = 0; i < s->segs.n; i++) {
		s->seen[i].birth = s->segs.v[i].birth;
		s->seen[i].kcid = kcid[i];
	}
	return 0;
}

#define KC_CHANGES_MAX	4096

/*
 * The chain made up to date from the segments' change logs: only the
 * kstats of the slots that changed since the chain was made are read
 * again, the other kstat_t stay as they are (illumos's kstat_chain_update
 * keeps those too). Returns: 0 (*ret_kcid: the chain's new id); -ERANGE
 * when the logs cannot tell (the caller reads the whole chain); -errno.
 */
static int
kc_update_changes(struct kc_state *s, uint64_t *ret_kcid)
{
	uint32_t *slots;
	uint64_t *now, sum = 0;
	size_t i, j, n;
	int r = 0;

	if (s->byslot == NULL || s->nseen != s->segs.n || s->segs.n == 0)
		return -ERANGE;
	slots = malloc(KC_CHANGES_MAX * sizeof(*slots));
	now = calloc(s->segs.n, sizeof(*now));
	if (slots == NULL || now == NULL) {
		free(slots);
		free(now);
		return -ENOMEM;
	}
	/* Every segment's log must tell, before anything is changed. */
	for (i = 0; i < s->segs.n && r == 0; i++) {
		struct cl_seg *g = &s->segs.v[i];

		if (s->seen[i].birth != g->birth || g->r == NULL) {
			r = -ERANGE;
			break;
		}
		r = store_reader_changes(g->r, s->seen[i].kcid, slots,
		    KC_CHANGES_MAX, &n, &now[i]);
	}
	for (i = 0; i < s->segs.n && r == 0; i++) {
		struct cl_seg *g = &s->segs.v[i];

		r = store_reader_changes(g->r, s->seen[i].kcid, slots,
		    KC_CHANGES_MAX, &n, &now[i]);
		for (j = 0; j < n && r == 0; j++) {
			struct kc_ks *k = kc_byslot_find(s, g->birth,
			    slots[j]);
			struct store_entry se;
			struct kstat_hdr h;
			struct kc_entry e;

			if (k != NULL)
				kc_unlink(s, k);
			r = store_reader_slot(g->r, slots[j], &se, &h);
			if (r == -ESTALE) {
				r = 0;	/* gone */
				continue;
			}
			if (r < 0)
				break;
			k = calloc(1, sizeof(*k));
			if (k == NULL) {
				r = -ENOMEM;
				break;
			}
			kc_entry_of(&e, g->birth, &se, &h);
			k->ks.ks_data_size = kc_fixed_size(e.type, e.ndata);
			kc_ks_fill(k, &e);
			kc_link(s, k);
		}
		sum += now[i];
	}
	/* Grown past the index's room: index again. */
	if (r == 0 && s->nbyslot > s->byslot_mask)
		kc_byslot_make(s);
	if (r == 0)
		r = kc_seen_set(s, now);
	free(slots);
	free(now);
	if (r == 0)
		*ret_kcid = sum;
	return r;
}

static kid_t
kc_update(struct kc_state *s, bool force)
{
	struct kc_entry *e = NULL;
	uint64_t kcid = 0;
	size_t n = 0;
	int r, tries;

	if (!s->socket_only && !force &&
	    (kid_t)kc_kcid_now(s) == s->kc.kc_chain_id)
		return 0;
	/* Segments come and go with zones: statsd moves the "all" one's
	 * chain id when they do. */
	if (!s->socket_only && cl_segs_stale(&s->segs)) {
		r = kc_attach(s);
		if (r < 0)
			return kc_errno(r);
	}
	/* Only what changed, when the change logs tell it. */
	if (!s->socket_only && !force && kc_update_changes(s, &kcid) == 0) {
		s->kc.kc_chain_id = (kid_t)(kcid == 0 ? 1 : kcid &
		    0x7fffffff);
		return s->kc.kc_chain_id;
	}
	for (tries = 0; tries < 16; tries++) {
		r = s->socket_only ? kc_entries_socket(s, &e, &n, &kcid) :
		    kc_entries_segments(s, &e, &n, &kcid);
		/* Consistent across the segments: same KCIDs after;
		 * over the socket, the same KCID on every page. */
		if (r == -EAGAIN && s->socket_only)
			continue;
		if (r < 0 || s->socket_only || kc_kcid_now(s) == kcid)
			break;
		free(e);
		e = NULL;
	}
	if (r < 0)
		return kc_errno(r);
	if (tries == 16) {
		free(e);
		return kc_errno(EAGAIN);
	}
	if (!force && (kid_t)kcid == s->kc.kc_chain_id && s->kc.kc_chain !=
	    NULL) {
		free(e);
		return 0;
	}
	r = kc_rebuild(s, e, n);
	free(e);
	if (r < 0)
		return kc_errno(r);
	/* The change logs go on from the chain ids the walk saw. */
	if (!s->socket_only)
		(void)kc_seen_set(s, s->walked);
	else
		s->nseen = 0;
	/* A KCID is never 0 (0 means "unchanged"). */
	s->kc.kc_chain_id = (kid_t)(kcid == 0 ? 1 : kcid & 0x7fffffff);
	return s->kc.kc_chain_id;
}

/* ------------------------------------------------------------------ API */

kstat_ctl_t *
kstat_open(void)
{
	struct kc_state *s;
	const char *env = getenv("STATSD_KSTAT_SOCKET");
	char *path;
	int r;

	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return NULL;
	s->magic = KC_MAGIC;
	s->blob = malloc(STORE_BLOB_MAX + 1);
	if (s->blob == NULL) {
		free(s);
		errno = ENOMEM;
		return NULL;
	}
	/* The process's client socket, if it has one, else the default. */
	pthread_mutex_lock(&cl.lock);
	path = cl.refs > 0 ? strdup(cl.path) : strdup(vlc_default_socket());
	pthread_mutex_unlock(&cl.lock);
	r = path != NULL ? vlc_connect(path, CL_CALL_TIMEOUT_MS, &s->vlc) :
	    -ENOMEM;
	free(path);
	if (r < 0)
		goto fail;
	s->kc.kc_kd = vlc_fd(s->vlc);
	s->socket_only = env != NULL && strcmp(env, "1") == 0;
	/* Without segments, the socket does it all. */
	if (!s->socket_only && (kc_attach(s) < 0 || s->segs.n == 0))
		s->socket_only = true;
	if (kc_update(s, true) < 0) {
		r = -errno;
		goto fail;
	}
	return &s->kc;
fail:
	(void)kstat_close(&s->kc);
	errno = -r;
	return NULL;
}

int
kstat_close(kstat_ctl_t *kc)
{
	struct kc_state *s = kc_state(kc);
	kstat_t *p;

	if (s == NULL)
		return kc_errno(EINVAL);
	while ((p = s->kc.kc_chain) != NULL) {
		s->kc.kc_chain = p->ks_next;
		kc_ks_free(p);
	}
	cl_segs_free(&s->segs);
	free(s->seen);
	free(s->walked);
	free(s->byslot);
	kc_tpls_free(s);
	vlc_free(s->vlc);
	free(s->blob);
	s->magic = 0;
	free(s);
	return 0;
}

kid_t
kstat_chain_update(kstat_ctl_t *kc)
{
	struct kc_state *s = kc_state(kc);

	if (s == NULL)
		return kc_errno(EINVAL);
	return kc_update(s, false);
}

kstat_t *
kstat_lookup(kstat_ctl_t *kc, const char *ks_module, int ks_instance,
    const char *ks_name)
{
	kstat_t *p;

	if (kc_state(kc) == NULL) {
		errno = EINVAL;
		return NULL;
	}
	for (p = kc->kc_chain; p != NULL; p = p->ks_next) {
		if ((ks_module == NULL || strcmp(p->ks_module, ks_module) == 0)
		    && (ks_instance == -1 || p->ks_instance == ks_instance) &&
		    (ks_name == NULL || strcmp(p->ks_name, ks_name) == 0))
			return p;
	}
	errno = ENOENT;
	return NULL;
}

/* Copy ksp's blob into s->blob. Returns: its size; -errno. */
static ssize_t
kc_fetch(struct kc_state *s, struct kc_ks *k, uint64_t *ret_snap,
    uint32_t *ret_flags)
{
	struct kstat_hdr h;
	struct vlc_reply rep;
	const char *raw = NULL;
	json_int_t snap = 0;
	struct cl_seg *g;
	size_t size = 0;
	ssize_t n;
	int r;

	if (k->seg != 0 && (g = cl_segs_by_birth(&s->segs, k->seg)) != NULL) {
		r = cl_store_read(g->r, k->ref, &h, s->blob,
		    STORE_BLOB_MAX + 1, &size);
		if (r == -ESTALE || r == -ENOENT)
			return -ENXIO;
		if (r < 0)
			return r;
		*ret_snap = (uint64_t)h.snaptime;
		*ret_flags = h.flags & KS_FLAGS_SHOWN;
		return (ssize_t)size;
	}
	r = kc_call(s, VL_M_SNAPSHOT, json_pack("{s:s, s:i, s:s}",
	    "module", k->ks.ks_module, "instance", k->ks.ks_instance, "name",
	    k->ks.ks_name), &rep);
	if (r < 0) {
		vlc_reply_done(&rep);
		return r == -ENOENT ? -ENXIO : r;
	}
	(void)json_unpack(rep.params, "{s:s, s:I}", "raw", &raw, "snaptime",
	    &snap);
	/* The daemon's base64 is strict (b64.h): anything else is a bad
	 * reply. */
	n = raw != NULL ? b64_decode(raw, s->blob, STORE_BLOB_MAX + 1) :
	    -EBADMSG;
	if (n < 0)
		n = -EBADMSG;
	*ret_snap = (uint64_t)snap;
	*ret_flags = k->ks.ks_flags;
	vlc_reply_done(&rep);
	return n;
}

kid_t
kstat_read(kstat_ctl_t *kc, kstat_t *ksp, void *buf)
{
	struct kc_state *s = kc_state(kc);
	struct kc_ks *k = kc_ks(ksp);
	const struct kc_tpl *t;
	struct kd_out out;
	uint64_t snap = 0;
	uint32_t flags = 0;
	ssize_t n;
	int r;

	if (s == NULL || k == NULL)
		return kc_errno(EINVAL);
	n = kc_fetch(s, k, &snap, &flags);
	if (n < 0)
		return kc_errno((int)n);
	if (stats_blob_validate(s->blob, (size_t)n) != 0)
		return kc_errno(EINVAL);
	t = kc_tpl_find(s, k->tpl_hash, true);
	r = kd_convert(k->type, k->ndata, k->content, k->scale, s->blob,
	    t != NULL ?
	    (const char *const *)t->names : NULL, t != NULL ? t->k2 : NULL,
	    t != NULL ? t->nnames : 0, (hrtime_t)snap, &out);
	if (r < 0)
		return kc_errno(r);
	free(ksp->ks_data);
	ksp->ks_data = out.data;
	ksp->ks_ndata = out.ndata;
	ksp->ks_data_size = out.size;
	ksp->ks_type = out.type;
	ksp->ks_snaptime = (hrtime_t)snap;
	/* Set, as illumos's install sets it, when a value is a STRING. */
	ksp->ks_flags = flags | (out.longstrings ? KSTAT_FLAG_LONGSTRINGS : 0);
	if (buf != NULL && out.size > 0) {
		memcpy(buf, out.data, out.size);
		if (out.type == KSTAT_TYPE_NAMED) {
			kstat_named_t *kn = buf;
			unsigned i;

			/* Strings (and arrays) point into buf, as illumos
			 * rebases them. */
			for (i = 0; i < out.ndata; i++)
				if ((kn[i].data_type == KSTAT_DATA_STRING ||
				    kn[i].data_type == KSTAT_DATA_UINT64_ARRAY) &&
				    kn[i].value.str.addr.ptr != NULL)
					kn[i].value.str.addr.ptr = (char *)buf +
					    (kn[i].value.str.addr.ptr -
					    (char *)out.data);
		}
	}
	return s->socket_only ? s->kc.kc_chain_id : (kid_t)(kc_kcid_now(s) &
	    0x7fffffff);
}

/* Is name one of the template's VOI names (a named value of its own)? */
static bool
kc_is_voi(const struct kc_tpl *t, const char *name)
{
	uint16_t i;

	for (i = 0; t != NULL && i < t->nnames; i++)
		if (t->names[i] != NULL && strncmp(t->names[i], name,
		    KSTAT_STRLEN - 1) == 0)
			return true;
	return false;
}

kid_t
kstat_write(kstat_ctl_t *kc, kstat_t *ksp, void *buf)
{
	struct kc_state *s = kc_state(kc);
	struct kc_ks *k = kc_ks(ksp);
	const kstat_named_t *kn;
	const struct kc_tpl *t;
	struct vlc_reply rep;
	json_t *vals;
	unsigned i;
	int r;

	if (s == NULL || k == NULL)
		return kc_errno(EINVAL);
	if (k->type != KSTAT_TYPE_NAMED ||
	    !(ksp->ks_flags & KSTAT_FLAG_WRITABLE))
		return kc_errno(EACCES);
	t = kc_tpl_find(s, k->tpl_hash, true);
	kn = buf != NULL ? buf : ksp->ks_data;
	if (kn == NULL)
		return kc_errno(EINVAL);
	vals = json_object();
	for (i = 0; i < ksp->ks_ndata; i++) {
		char name[KSTAT_STRLEN];
		json_t *v;

		memcpy(name, kn[i].name, sizeof(name));
		name[KSTAT_STRLEN - 1] = '\0';
		if (!kc_is_voi(t, name))
			continue;	/* "<voi>.<kind>": read-only */
		switch (kn[i].data_type) {
		case KSTAT_DATA_INT32:
			v = json_integer(kn[i].value.i32);
			break;
		case KSTAT_DATA_UINT32:
			v = json_integer(kn[i].value.ui32);
			break;
		case KSTAT_DATA_INT64:
			v = json_integer(kn[i].value.i64);
			break;
		case KSTAT_DATA_UINT64:
			v = json_integer((json_int_t)kn[i].value.ui64);
			break;
		case KSTAT_DATA_CHAR:
			v = json_stringn_nocheck(kn[i].value.c,
			    strnlen(kn[i].value.c, sizeof(kn[i].value.c)));
			break;
		case KSTAT_DATA_STRING:
			v = json_string(kn[i].value.str.addr.ptr != NULL ?
			    kn[i].value.str.addr.ptr : "");
			break;
		default:
			json_decref(vals);
			return kc_errno(EINVAL);
		}
		json_object_set_new(vals, name, v);
	}
	r = kc_call(s, VL_M_WRITE, json_pack("{s:s, s:i, s:s, s:o}",
	    "module", ksp->ks_module, "instance", ksp->ks_instance, "name",
	    ksp->ks_name, "values", vals), &rep);
	vlc_reply_done(&rep);
	if (r == -ENOENT)
		r = -ENXIO;
	if (r < 0)
		return kc_errno(r);
	return s->socket_only ? s->kc.kc_chain_id : (kid_t)(kc_kcid_now(s) &
	    0x7fffffff);
}

void *
kstat_data_lookup(kstat_t *ksp, const char *name)
{
	unsigned i;

	if (ksp == NULL || name == NULL || (ksp->ks_type != KSTAT_TYPE_NAMED &&
	    ksp->ks_type != KSTAT_TYPE_TIMER)) {
		errno = EINVAL;
		return NULL;
	}
	for (i = 0; i < ksp->ks_ndata && ksp->ks_data != NULL; i++) {
		if (ksp->ks_type == KSTAT_TYPE_NAMED) {
			kstat_named_t *kn = (kstat_named_t *)ksp->ks_data + i;

			if (strcmp(kn->name, name) == 0)
				return kn;
		} else {
			kstat_timer_t *kt = (kstat_timer_t *)ksp->ks_data + i;

			if (strcmp(kt->name, name) == 0)
				return kt;
		}
	}
	errno = ENOENT;
	return NULL;
}
