/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * expo_pb.c: the text format 0.0.4 of render_prom.c read back into
 * Prometheus' delimited protobuf MetricFamily messages (expo_pb.h), with
 * the native histograms its "# NATIVE" lines carry.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "expo_pb.h"

#ifndef HAVE_PROTOBUF

bool
expo_pb_available(void)
{
	return false;
}

int
expo_pb_new(struct expo_pb **ret)
{
	*ret = NULL;
	return -ENOTSUP;
}

void
expo_pb_free(struct expo_pb *pb)
{
	(void)pb;
}

int
expo_pb_feed(struct expo_pb *pb, const char *text, size_t len,
    struct sbuf *out)
{
	(void)pb;
	(void)text;
	(void)len;
	(void)out;
	return -ENOTSUP;
}

int
expo_pb_end(struct expo_pb *pb, struct sbuf *out)
{
	(void)pb;
	(void)out;
	return -ENOTSUP;
}

#else /* HAVE_PROTOBUF */

#include "metrics.pb-c.h"

typedef Io__Prometheus__Client__MetricFamily	PbFamily;
typedef Io__Prometheus__Client__Metric		PbMetric;
typedef Io__Prometheus__Client__LabelPair	PbLabel;
typedef Io__Prometheus__Client__Histogram	PbHist;
typedef Io__Prometheus__Client__Bucket		PbBucket;
typedef Io__Prometheus__Client__BucketSpan	PbSpan;
typedef Io__Prometheus__Client__Summary		PbSummary;
typedef Io__Prometheus__Client__Quantile	PbQuantile;
typedef Io__Prometheus__Client__Counter		PbCounter;
typedef Io__Prometheus__Client__Gauge		PbGauge;
typedef Io__Prometheus__Client__Untyped		PbUntyped;

/*
 * A native histogram's zero bucket is [-threshold, threshold]: the least
 * one client_golang uses (2^-128). statsd's values are whole units of at
 * least 10^-18, so only a 0 falls in it; a threshold above 0 is also what
 * tells Prometheus a histogram is native while it is still empty.
 */
#define PB_ZERO_THRESHOLD	2.938735877055719e-39

enum pb_type { PBT_COUNTER, PBT_GAUGE, PBT_SUMMARY, PBT_UNTYPED,
    PBT_HISTOGRAM };

/* One label set's samples. */
struct pb_metric {
	char		 *key;		/* its labels as written, le and
					 * quantile left out */
	size_t		  nl;
	char		**lname, **lvalue;
	double		  value;
	bool		  has_count, has_sum;
	uint64_t	  count;
	double		  sum;
	size_t		  nb, cb;	/* buckets, or quantiles */
	double		 *bound;	/* le, or quantile */
	double		 *bval;		/* cumulative count, or value */
	bool		  native;
	int32_t		  schema;
	uint64_t	  zero;
	size_t		  nn;
	int32_t		 *nidx;
	uint64_t	 *ncnt;
};

struct expo_pb {
	char		 *name;		/* the open family; NULL: none */
	char		 *help;
	enum pb_type	  type;
	struct pb_metric *m;
	size_t		  nm, cm;
};

bool
expo_pb_available(void)
{
	return true;
}

int
expo_pb_new(struct expo_pb **ret)
{
	*ret = calloc(1, sizeof(**ret));
	return *ret != NULL ? 0 : -ENOMEM;
}

static void
metric_free(struct pb_metric *m)
{
	size_t i;

	for (i = 0; i < m->nl; i++) {
		free(m->lname[i]);
		free(m->lvalue[i]);
	}
	free(m->lname);
	free(m->lvalue);
	free(m->key);
	free(m->bound);
	free(m->bval);
	free(m->nidx);
	free(m->ncnt);
	memset(m, 0, sizeof(*m));
}

static void
family_clear(struct expo_pb *pb)
{
	size_t i;

	for (i = 0; i < pb->nm; i++)
		metric_free(&pb->m[i]);
	pb->nm = 0;
	free(pb->name);
	free(pb->help);
	pb->name = NULL;
	pb->help = NULL;
	pb->type = PBT_UNTYPED;
}

void
expo_pb_free(struct expo_pb *pb)
{
	if (pb == NULL)
		return;
	family_clear(pb);
	free(pb->m);
	free(pb);
}

/* A base-128 varint: the length before each delimited message. */
static void
put_varint(struct sbuf *out, uint64_t v)
{
	char b[10];
	size_t n = 0;

	do {
		b[n++] = (char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v != 0);
	sbuf_bcat(out, b, n);
}

/* The native buckets as spans and deltas (metrics.proto): consecutive
 * indices one span, each count the delta from the one before. */
static int
native_spans(const struct pb_metric *m, PbHist *h, PbSpan **spans,
    PbSpan ***spanp, int64_t **deltas)
{
	size_t i, ns = 0;
	int64_t prev = 0;
	int32_t last = 0;

	*spans = calloc(m->nn > 0 ? m->nn : 1, sizeof(**spans));
	*spanp = calloc(m->nn > 0 ? m->nn : 1, sizeof(**spanp));
	*deltas = calloc(m->nn > 0 ? m->nn : 1, sizeof(**deltas));
	if (*spans == NULL || *spanp == NULL || *deltas == NULL)
		return -ENOMEM;
	for (i = 0; i < m->nn; i++) {
		if (ns == 0 || m->nidx[i] != last + 1) {
			PbSpan *s = &(*spans)[ns];

			io__prometheus__client__bucket_span__init(s);
			s->has_offset = s->has_length = true;
			s->offset = ns == 0 ? m->nidx[i] : m->nidx[i] - last - 1;
			(*spanp)[ns++] = s;
		}
		(*spanp)[ns - 1]->length++;
		(*deltas)[i] = (int64_t)m->ncnt[i] - prev;
		prev = (int64_t)m->ncnt[i];
		last = m->nidx[i];
	}
	h->n_positive_span = ns;
	h->positive_span = *spanp;
	h->n_positive_delta = m->nn;
	h->positive_delta = *deltas;
	return 0;
}

/* The open family as one delimited message. */
static int
family_flush(struct expo_pb *pb, struct sbuf *out)
{
	static const Io__Prometheus__Client__MetricType types[] = {
		[PBT_COUNTER] = IO__PROMETHEUS__CLIENT__METRIC_TYPE__COUNTER,
		[PBT_GAUGE] = IO__PROMETHEUS__CLIENT__METRIC_TYPE__GAUGE,
		[PBT_SUMMARY] = IO__PROMETHEUS__CLIENT__METRIC_TYPE__SUMMARY,
		[PBT_UNTYPED] = IO__PROMETHEUS__CLIENT__METRIC_TYPE__UNTYPED,
		[PBT_HISTOGRAM] = IO__PROMETHEUS__CLIENT__METRIC_TYPE__HISTOGRAM,
	};
	PbFamily f = IO__PROMETHEUS__CLIENT__METRIC_FAMILY__INIT;
	PbMetric *ms = NULL, **mp = NULL;
	/* Per metric: its labels, value message, buckets or quantiles,
	 * native spans and deltas. */
	struct per {
		PbLabel		 *l, **lp;
		PbCounter	  c;
		PbGauge		  g;
		PbUntyped	  u;
		PbHist		  h;
		PbSummary	  s;
		PbBucket	 *b, **bp;
		PbQuantile	 *q, **qp;
		PbSpan		 *sp, **spp;
		int64_t		 *d;
	} *per = NULL;
	uint8_t *bytes = NULL;
	size_t i, j, len;
	int r = -ENOMEM;

	if (pb->name == NULL || pb->nm == 0) {
		family_clear(pb);
		return 0;
	}
	ms = calloc(pb->nm, sizeof(*ms));
	mp = calloc(pb->nm, sizeof(*mp));
	per = calloc(pb->nm, sizeof(*per));
	if (ms == NULL || mp == NULL || per == NULL)
		goto out;
	f.name = pb->name;
	f.help = pb->help != NULL ? pb->help : (char *)"";
	f.has_type = true;
	f.type = types[pb->type];
	f.n_metric = pb->nm;
	f.metric = mp;
	for (i = 0; i < pb->nm; i++) {
		struct pb_metric *m = &pb->m[i];
		struct per *p = &per[i];

		io__prometheus__client__metric__init(&ms[i]);
		mp[i] = &ms[i];
		p->l = calloc(m->nl > 0 ? m->nl : 1, sizeof(*p->l));
		p->lp = calloc(m->nl > 0 ? m->nl : 1, sizeof(*p->lp));
		p->b = calloc(m->nb > 0 ? m->nb : 1, sizeof(*p->b));
		p->bp = calloc(m->nb > 0 ? m->nb : 1, sizeof(*p->bp));
		p->q = calloc(m->nb > 0 ? m->nb : 1, sizeof(*p->q));
		p->qp = calloc(m->nb > 0 ? m->nb : 1, sizeof(*p->qp));
		if (p->l == NULL || p->lp == NULL || p->b == NULL ||
		    p->bp == NULL || p->q == NULL || p->qp == NULL)
			goto out;
		for (j = 0; j < m->nl; j++) {
			io__prometheus__client__label_pair__init(&p->l[j]);
			p->l[j].name = m->lname[j];
			p->l[j].value = m->lvalue[j];
			p->lp[j] = &p->l[j];
		}
		ms[i].n_label = m->nl;
		ms[i].label = p->lp;
		switch (pb->type) {
		case PBT_COUNTER:
			io__prometheus__client__counter__init(&p->c);
			p->c.has_value = true;
			p->c.value = m->value;
			ms[i].counter = &p->c;
			break;
		case PBT_GAUGE:
			io__prometheus__client__gauge__init(&p->g);
			p->g.has_value = true;
			p->g.value = m->value;
			ms[i].gauge = &p->g;
			break;
		case PBT_UNTYPED:
			io__prometheus__client__untyped__init(&p->u);
			p->u.has_value = true;
			p->u.value = m->value;
			ms[i].untyped = &p->u;
			break;
		case PBT_SUMMARY:
			io__prometheus__client__summary__init(&p->s);
			p->s.has_sample_count = m->has_count;
			p->s.sample_count = m->count;
			p->s.has_sample_sum = m->has_sum;
			p->s.sample_sum = m->sum;
			for (j = 0; j < m->nb; j++) {
				io__prometheus__client__quantile__init(
				    &p->q[j]);
				p->q[j].has_quantile = p->q[j].has_value = true;
				p->q[j].quantile = m->bound[j];
				p->q[j].value = m->bval[j];
				p->qp[j] = &p->q[j];
			}
			p->s.n_quantile = m->nb;
			p->s.quantile = p->qp;
			ms[i].summary = &p->s;
			break;
		case PBT_HISTOGRAM: {
			size_t nb = 0;

			io__prometheus__client__histogram__init(&p->h);
			p->h.has_sample_count = true;
			/* Without _count (OpenMetrics' rule for a bucket
			 * below 0 does not apply here): the +Inf bucket. */
			p->h.sample_count = m->has_count ? m->count :
			    m->nb > 0 ? (uint64_t)m->bval[m->nb - 1] : 0;
			p->h.has_sample_sum = m->has_sum;
			p->h.sample_sum = m->sum;
			/* Classic buckets, +Inf left out: it is the count. */
			for (j = 0; j < m->nb; j++) {
				if (isinf(m->bound[j]))
					continue;
				io__prometheus__client__bucket__init(&p->b[nb]);
				p->b[nb].has_upper_bound = true;
				p->b[nb].upper_bound = m->bound[j];
				p->b[nb].has_cumulative_count = true;
				p->b[nb].cumulative_count =
				    (uint64_t)m->bval[j];
				p->bp[nb] = &p->b[nb];
				nb++;
			}
			p->h.n_bucket = nb;
			p->h.bucket = p->bp;
			if (m->native) {
				p->h.has_schema = true;
				p->h.schema = m->schema;
				p->h.has_zero_threshold = true;
				p->h.zero_threshold = PB_ZERO_THRESHOLD;
				p->h.has_zero_count = true;
				p->h.zero_count = m->zero;
				if (native_spans(m, &p->h, &p->sp, &p->spp,
				    &p->d) < 0)
					goto out;
			}
			ms[i].histogram = &p->h;
			break;
		}
		}
	}
	len = io__prometheus__client__metric_family__get_packed_size(&f);
	if ((bytes = malloc(len > 0 ? len : 1)) == NULL)
		goto out;
	io__prometheus__client__metric_family__pack(&f, bytes);
	put_varint(out, len);
	sbuf_bcat(out, (const char *)bytes, len);
	r = sbuf_error(out) != 0 ? -ENOMEM : 0;
out:
	for (i = 0; per != NULL && i < pb->nm; i++) {
		free(per[i].l);
		free(per[i].lp);
		free(per[i].b);
		free(per[i].bp);
		free(per[i].q);
		free(per[i].qp);
		free(per[i].sp);
		free(per[i].spp);
		free(per[i].d);
	}
	free(bytes);
	free(per);
	free(mp);
	free(ms);
	family_clear(pb);
	return r;
}

/* Text with the format's escapes undone: \\, \n and (quoted) \". */
static char *
unescape(const char *s, size_t n)
{
	char *r = malloc(n + 1), *o = r;
	size_t i;

	if (r == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 1 < n) {
			i++;
			*o++ = s[i] == 'n' ? '\n' : s[i];
		} else {
			*o++ = s[i];
		}
	}
	*o = '\0';
	return r;
}

static int
family_start(struct expo_pb *pb, const char *name, size_t n,
    struct sbuf *out)
{
	int r = 0;

	if (pb->name != NULL && (strlen(pb->name) != n ||
	    memcmp(pb->name, name, n) != 0))
		r = family_flush(pb, out);
	if (r < 0)
		return r;
	if (pb->name == NULL && (pb->name = unescape(name, n)) == NULL)
		return -ENOMEM;
	return 0;
}

/* "# HELP <name> <text>", "# TYPE <name> <type>", "# NATIVE ...". */
static int
comment_line(struct expo_pb *pb, const char *s, const char *e,
    struct sbuf *out)
{
	static const char *const names[] = { "counter", "gauge", "summary",
	    "untyped", "histogram" };
	const char *name, *sp;
	size_t i;
	int r;

	if (e - s > 7 && memcmp(s, "# HELP ", 7) == 0) {
		name = s + 7;
		sp = memchr(name, ' ', (size_t)(e - name));
		if (sp == NULL)
			sp = e;
		if ((r = family_start(pb, name, (size_t)(sp - name), out)) < 0)
			return r;
		free(pb->help);
		pb->help = unescape(sp < e ? sp + 1 : e, sp < e ?
		    (size_t)(e - sp - 1) : 0);
		return pb->help != NULL ? 0 : -ENOMEM;
	}
	if (e - s > 7 && memcmp(s, "# TYPE ", 7) == 0) {
		name = s + 7;
		sp = memchr(name, ' ', (size_t)(e - name));
		if (sp == NULL)
			return -EINVAL;
		if ((r = family_start(pb, name, (size_t)(sp - name), out)) < 0)
			return r;
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if ((size_t)(e - sp - 1) == strlen(names[i]) &&
			    memcmp(sp + 1, names[i], strlen(names[i])) == 0) {
				pb->type = (enum pb_type)i;
				return 0;
			}
		pb->type = PBT_UNTYPED;
		return 0;
	}
	if (e - s > 9 && memcmp(s, "# NATIVE ", 9) == 0 && pb->nm > 0) {
		/* "# NATIVE <schema> <zero count> <index>:<count>...": the
		 * native buckets of the last label set (render_prom.c). */
		struct pb_metric *m = &pb->m[pb->nm - 1];
		char *end;
		const char *p = s + 9;
		size_t cap = 0;

		m->schema = (int32_t)strtol(p, &end, 10);
		m->zero = strtoull(end, &end, 10);
		p = end;
		while (p < e && *p == ' ') {
			long idx = strtol(p + 1, &end, 10);
			uint64_t c;

			if (*end != ':')
				return -EINVAL;
			c = strtoull(end + 1, &end, 10);
			if (m->nn == cap) {
				size_t nc = cap > 0 ? cap * 2 : 16;
				int32_t *ni = realloc(m->nidx, nc *
				    sizeof(*ni));
				uint64_t *nc2;

				if (ni == NULL)
					return -ENOMEM;
				m->nidx = ni;
				if ((nc2 = realloc(m->ncnt, nc *
				    sizeof(*nc2))) == NULL)
					return -ENOMEM;
				m->ncnt = nc2;
				cap = nc;
			}
			m->nidx[m->nn] = (int32_t)idx;
			m->ncnt[m->nn++] = c;
			p = end;
		}
		m->native = true;
		return 0;
	}
	return 0;	/* another comment */
}

/* The label pairs of "{...}" from s (at '{') into m (NULL: only read
 * them); *end after '}'. le and quantile go to *special; the text of the
 * others is the key (kb, kl bytes). Returns: 0; -EINVAL; -ENOMEM. */
static int
parse_labels(const char *s, const char *e, struct pb_metric *m,
    const char **special_name, double *special, const char **ret_end,
    const char **kb, size_t *kl)
{
	const char *p = s + 1, *kstart = p, *kend = p;
	size_t cap = 0;

	*special_name = NULL;
	while (p < e && *p != '}') {
		const char *n = p, *v;
		size_t nl;
		char *val, *nm;

		while (p < e && *p != '=')
			p++;
		if (p + 1 >= e || p[1] != '"')
			return -EINVAL;
		nl = (size_t)(p - n);
		v = p += 2;
		while (p < e && *p != '"')
			p += *p == '\\' ? 2 : 1;
		if (p >= e)
			return -EINVAL;
		p++;
		if (m == NULL && !((nl == 2 && memcmp(n, "le", 2) == 0) ||
		    (nl == 8 && memcmp(n, "quantile", 8) == 0))) {
			kend = p;	/* read only: no copy */
			if (p < e && *p == ',')
				p++;
			continue;
		}
		if ((val = unescape(v, (size_t)(p - 1 - v))) == NULL)
			return -ENOMEM;
		if ((nl == 2 && memcmp(n, "le", 2) == 0) ||
		    (nl == 8 && memcmp(n, "quantile", 8) == 0)) {
			*special_name = nl == 2 ? "le" : "quantile";
			*special = strtod(val, NULL);
			free(val);
		} else if (m != NULL) {
			if (m->nl == cap) {
				size_t nc = cap > 0 ? cap * 2 : 8;
				char **a = realloc(m->lname, nc * sizeof(*a));

				if (a == NULL) {
					free(val);
					return -ENOMEM;
				}
				m->lname = a;
				a = realloc(m->lvalue, nc * sizeof(*a));
				if (a == NULL) {
					free(val);
					return -ENOMEM;
				}
				m->lvalue = a;
				cap = nc;
			}
			if ((nm = malloc(nl + 1)) == NULL) {
				free(val);
				return -ENOMEM;
			}
			memcpy(nm, n, nl);
			nm[nl] = '\0';
			m->lname[m->nl] = nm;
			m->lvalue[m->nl++] = val;
			kend = p;
		} else {
			free(val);
			kend = p;
		}
		if (p < e && *p == ',')
			p++;
	}
	if (p >= e)
		return -EINVAL;
	*ret_end = p + 1;
	*kb = kstart;
	*kl = (size_t)(kend - kstart);
	return 0;
}

/* Does name end in sfx after the family's name? */
static bool
is_part(const char *fam, const char *name, size_t n, const char *sfx)
{
	size_t fl = strlen(fam), sl = strlen(sfx);

	return n == fl + sl && memcmp(name, fam, fl) == 0 &&
	    memcmp(name + fl, sfx, sl) == 0;
}

static int
sample_line(struct expo_pb *pb, const char *s, const char *e)
{
	const char *brace = memchr(s, '{', (size_t)(e - s)), *vend, *kb;
	const char *special_name;
	struct pb_metric *m;
	double special = 0, v;
	char *end;
	size_t n, kl;
	int r;

	if (brace == NULL || pb->name == NULL)
		return -EINVAL;
	n = (size_t)(brace - s);
	/* Read first, without copies: most lines of a histogram add to
	 * the label set of the line before. */
	r = parse_labels(brace, e, NULL, &special_name, &special, &vend, &kb,
	    &kl);
	if (r < 0)
		return r;
	while (vend < e && *vend == ' ')
		vend++;
	v = strtod(vend, &end);
	if (end == vend)
		return -EINVAL;
	m = pb->nm > 0 ? &pb->m[pb->nm - 1] : NULL;
	if (m == NULL || strlen(m->key) != kl || memcmp(m->key, kb, kl) != 0 ||
	    (special_name != NULL && m->has_count) ||
	    (pb->type != PBT_HISTOGRAM && pb->type != PBT_SUMMARY)) {
		struct pb_metric tmp;
		const char *sn, *ve;
		double sp;

		memset(&tmp, 0, sizeof(tmp));
		r = parse_labels(brace, e, &tmp, &sn, &sp, &ve, &kb, &kl);
		if (r == 0 && (tmp.key = malloc(kl + 1)) == NULL)
			r = -ENOMEM;
		if (r < 0) {
			metric_free(&tmp);
			return r;
		}
		memcpy(tmp.key, kb, kl);
		tmp.key[kl] = '\0';
		if (pb->nm == pb->cm) {
			size_t nc = pb->cm > 0 ? pb->cm * 2 : 64;
			struct pb_metric *a = realloc(pb->m, nc * sizeof(*a));

			if (a == NULL) {
				metric_free(&tmp);
				return -ENOMEM;
			}
			pb->m = a;
			pb->cm = nc;
		}
		pb->m[pb->nm++] = tmp;
		m = &pb->m[pb->nm - 1];
	}
	if (pb->type != PBT_HISTOGRAM && pb->type != PBT_SUMMARY) {
		m->value = v;
		return 0;
	}
	if (is_part(pb->name, s, n, "_sum")) {
		m->has_sum = true;
		m->sum = v;
	} else if (is_part(pb->name, s, n, "_count")) {
		m->has_count = true;
		m->count = (uint64_t)v;
	} else if (special_name != NULL) {
		if (m->nb == m->cb) {
			size_t nc = m->cb > 0 ? m->cb * 2 : 16;
			double *a = realloc(m->bound, nc * sizeof(*a));

			if (a == NULL)
				return -ENOMEM;
			m->bound = a;
			if ((a = realloc(m->bval, nc * sizeof(*a))) == NULL)
				return -ENOMEM;
			m->bval = a;
			m->cb = nc;
		}
		m->bound[m->nb] = special;
		m->bval[m->nb++] = v;
	}
	return 0;
}

int
expo_pb_feed(struct expo_pb *pb, const char *text, size_t len,
    struct sbuf *out)
{
	const char *p = text, *end = text + len;
	int r = 0;

	while (p < end && r == 0) {
		const char *e = memchr(p, '\n', (size_t)(end - p));

		if (e == NULL)
			e = end;
		if (e > p)
			r = *p == '#' ? comment_line(pb, p, e, out) :
			    sample_line(pb, p, e);
		p = e + 1;
	}
	if (sbuf_error(out) != 0)
		return -ENOMEM;
	return r;
}

int
expo_pb_end(struct expo_pb *pb, struct sbuf *out)
{
	return family_flush(pb, out);
}

#endif /* HAVE_PROTOBUF */
