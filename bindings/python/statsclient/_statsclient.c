/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * _statsclient.c: the C half of the Python module statsclient, over
 * libstatsclient: one series of a Prometheus-style metric (a counter, a
 * gauge, a histogram or a summary with its label values) as a kstat that
 * statsd owns, published with stats_blob_publish_ext() and updated through
 * the calling thread's ring. An update (inc, dec, set, observe) is this
 * one C call: a float turned into an integer of millionths and one
 * stats_voi_update_xy(), no lock and no system call. statsclient/__init__.py
 * holds the Python API around it (families, labels(), time()).
 *
 * The kstat is python:<instance>:<name> of class "prometheus" with the
 * kstat2 path prometheus/<type>/<family>/<label>=<value>..., from which
 * statsd's exposition names it as the Prometheus client library would
 * (docs/formats.md). Every process that makes the same series joins the
 * same kstat: its name and instance are a hash of the path.
 *
 * Never blocking on, and never raising for, a dead or absent statsd: a
 * series that cannot be published yet counts its updates as dropped and
 * tries again at most once a second; the library spills and reconnects by
 * itself once it is published.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <statsd/client.h>
#include <statsd/kstat.h>
#include <statsd/stats.h>

#include "_statistic.h"

enum series_type { ST_COUNTER, ST_GAUGE, ST_HISTOGRAM, ST_SUMMARY,
    ST_NTYPES };

static const char *const type_names[ST_NTYPES] = {
	"counter", "gauge", "histogram", "summary",
};

/* What one is in a series' integers: statsd's exposition divides by it
 * (docs/formats.md). Millionths: a histogram's bounds are integers. */
#define UNIT		1e6
/* Values an int64_t of millionths holds, with room for sums. */
#define LIMIT		9e12
#define PATH_MAX_SEGS	16
#define PATH_MAX_BYTES	255
#define DESC_MAX	1023
#define RETRY_NS	1000000000ll	/* publish again after 1 s */
#define MODULE_NAME	"python"
#define SUMMARY_NCTDS	64

/* Bumped in a fork() child: a series made before the fork that has a
 * pid label is published again, under the child's pid. */
static unsigned fork_gen;
/* The fork_gen whose process connected after its fork (or tried to):
 * until then an update connects first (forked_connect()). Under the
 * GIL. */
static unsigned connected_gen;
/* Updates dropped by series not published (no statsd yet). Under the
 * GIL. */
static uint64_t unpublished_drops;
static stats_client_t *client;	/* under attach_lock */
static int client_errno;
static pthread_mutex_t attach_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct {
	PyObject_HEAD
	struct statsblob	*sb;
	enum series_type	 type;
	int			 tpl;
	int			 pid_label;
	unsigned		 gen;
	long long		 next_try_ns;
	int32_t			 instance;
	char			 name[31];
	char			*desc;
	/* The path: nseg segments in segbuf, the pid label's last. */
	uint32_t		 nseg;
	char			*seg[PATH_MAX_SEGS];
	char			 segbuf[PATH_MAX_BYTES + 64];
	size_t			 fixedlen;	/* bytes of segbuf before a pid
						   label */
	uint32_t		 nfixed;	/* segments before it */
	uint64_t		 dropped;
	int			 last_errno;
} SeriesObject;

static void
atfork_child(void)
{
	fork_gen++;
	unpublished_drops = 0;
	/* A parent's thread may have held it. */
	pthread_mutex_init(&attach_lock, NULL);
	statistic_atfork_child();
}

static long long
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* The process's client, opened lazily (the library finds statsd by
 * $STATSD_SOCKET, else its system socket). NULL if it cannot be. */
static stats_client_t *
get_client(void)
{
	if (client == NULL) {
		client = stats_client_open(NULL, STATS_CLIENT_LAZY);
		if (client == NULL)
			client_errno = errno;
	}
	return client;
}

/* s (n bytes) as a path segment into out at *o (within end): every byte
 * outside printable ASCII, and '/' and '%', as %XX, as statsd writes a
 * statsd series' tags. Returns: 0; -1 if it does not fit. */
static int
seg_put(char *out, size_t *o, size_t end, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c > 0x7e || c == '/' || c == '%') {
			if (*o + 3 >= end)
				return -1;
			out[(*o)++] = '%';
			out[(*o)++] = hex[c >> 4];
			out[(*o)++] = hex[c & 15];
		} else {
			if (*o + 1 >= end)
				return -1;
			out[(*o)++] = (char)c;
		}
	}
	return 0;
}

static uint64_t
fnv1a(uint64_t h, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/*
 * The kstat's name and instance from its path: the family (up to 21
 * characters, ':' as '_') and 32 bits of a hash of the whole path, the
 * instance 31 more, so two series of one family meet in one kstat only
 * with a chance of about n^2 / 2^64.
 */
static void
series_names(SeriesObject *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	const char *fam = s->seg[2];
	size_t i, n = strlen(fam);

	for (i = 0; i < s->nseg; i++)
		h = fnv1a(h, s->seg[i], strlen(s->seg[i]) + 1);
	if (n > 21)
		n = 21;
	memcpy(s->name, fam, n);
	for (i = 0; i < n; i++)
		if (s->name[i] == ':')
			s->name[i] = '_';
	snprintf(s->name + n, sizeof(s->name) - n, ".%08x",
	    (unsigned)(h >> 32));
	s->instance = (int32_t)(h & 0x7fffffff);
}

/* Append the label pid=<pid> (a per-process series) or nothing. */
static void
series_pid(SeriesObject *s)
{
	size_t o = s->fixedlen;

	if (!s->pid_label)
		return;
	s->nseg = s->nfixed;
	s->seg[s->nseg++] = s->segbuf + o;
	snprintf(s->segbuf + o, sizeof(s->segbuf) - o, "pid=%ld",
	    (long)getpid());
	series_names(s);
}

/*
 * Publish the series' kstat. Called with the GIL, which it drops around
 * the call to statsd; attach_lock makes a thread that meets a series
 * another thread is publishing wait for it (and never holds it while
 * waiting for the GIL), so that its updates are not dropped meanwhile.
 * Returns: 0; -1 (counted as a drop by the caller).
 */
static int
series_attach(SeriesObject *s)
{
	struct stats_publish_extra x;
	stats_client_t *c;
	struct statsblob *sb;
	int err = 0;

	if (now_ns() < s->next_try_ns)
		return -1;
	Py_BEGIN_ALLOW_THREADS
	pthread_mutex_lock(&attach_lock);
	sb = s->sb;
	if (s->pid_label && s->gen != fork_gen) {
		series_pid(s);
		sb = NULL;
	}
	s->gen = fork_gen;
	if (sb == NULL && now_ns() >= s->next_try_ns) {
		c = get_client();
		x.path = (const char *const *)s->seg;
		x.npath = s->nseg;
		x.description = s->desc;
		sb = c != NULL ? stats_blob_publish_ext(c, s->tpl,
		    MODULE_NAME, s->instance, s->name, "prometheus", 0, &x) :
		    NULL;
		/* A connection statsd closed (idle, or a restart the
		 * watcher has not seen yet) fails the call and is dropped:
		 * the next call connects again. */
		if (sb == NULL && c != NULL && errno == ENOTCONN)
			sb = stats_blob_publish_ext(c, s->tpl, MODULE_NAME,
			    s->instance, s->name, "prometheus", 0, &x);
		if (sb == NULL) {
			err = c != NULL ? errno : client_errno;
			s->last_errno = err;
			s->next_try_ns = now_ns() + RETRY_NS;
		} else {
			s->last_errno = 0;
			/* The thread's ring now: a connection holding one
			 * is not closed as idle before the first update. */
			(void)stats_client_connect(c);
		}
		__atomic_store_n(&s->sb, sb, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&attach_lock);
	Py_END_ALLOW_THREADS
	return sb != NULL ? 0 : -1;
}

/* An update of a family with labels, not of one of its series. */
static PyObject *
missing_labels(SeriesObject *s)
{
	PyErr_Format(PyExc_ValueError, "%s metric is missing label values",
	    type_names[s->type]);
	return NULL;
}

/* A method's first check: s has its label values and is of a type the
 * method is for (type_ok); otherwise the exception, naming the types
 * (msg), and -1. */
static int
series_for(SeriesObject *s, bool type_ok, const char *msg)
{
	if (s->nseg == 0) {
		missing_labels(s);
		return -1;
	}
	if (!type_ok) {
		PyErr_SetString(PyExc_AttributeError, msg);
		return -1;
	}
	return 0;
}

/*
 * The first update of a fork() child connects it, once, before it pushes:
 * the library forgets the parent's connection and rings in the child, and
 * an update that finds no connection is dropped until its watcher thread
 * has connected again. os.register_at_fork's hook does it at the fork,
 * but a server that forks in C (uWSGI) runs no Python hook: its workers
 * come here. Without statsd the one try fails at once and updates are
 * dropped and counted, as always.
 */
static void
forked_connect(void)
{
	stats_client_t *c = client != NULL ? client : statistic_client();
	unsigned gen = fork_gen;

	if (c != NULL) {
		Py_BEGIN_ALLOW_THREADS
		(void)stats_client_connect(c);
		Py_END_ALLOW_THREADS
	}
	connected_gen = gen;
}

void
statsclient_fork_check(void)
{
	if (connected_gen != fork_gen)
		forked_connect();
}

/* One update (weight 1) of q millionths. */
static inline void
series_push(SeriesObject *s, int64_t q, uint32_t flags)
{
	struct voistatdata_numeric n;

	if (connected_gen != fork_gen)
		forked_connect();
	if (s->pid_label && s->gen != fork_gen)
		s->sb = NULL;	/* a per-process series of the parent */
	if (__atomic_load_n(&s->sb, __ATOMIC_ACQUIRE) == NULL &&
	    series_attach(s) < 0) {
		s->dropped++;
		unpublished_drops++;
		return;
	}
	n.int64.s64 = q;
	(void)stats_voi_update_xy(s->sb, 0, s->type == ST_COUNTER ?
	    VSD_DTYPE_INT_U64 : VSD_DTYPE_INT_S64, &n, 1, flags);
}

/* The float argument (default dflt) of a method taking one value. */
static int
one_value(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
    const char *kw, double dflt, double *ret)
{
	PyObject *o = NULL;

	if (nargs == 1 && kwnames == NULL) {
		o = args[0];
	} else if (nargs == 0 && kwnames == NULL) {
		*ret = dflt;
		return 0;
	} else if (nargs + (kwnames != NULL ? PyTuple_GET_SIZE(kwnames) :
	    0) == 1 && kwnames != NULL && PyUnicode_CompareWithASCIIString(
	    PyTuple_GET_ITEM(kwnames, 0), kw) == 0) {
		o = args[0];
	} else {
		PyErr_Format(PyExc_TypeError, "takes one argument, %s",
		    kw);
		return -1;
	}
	/* An int directly: PyFloat_AsDouble() would make a float object of
	 * it first, a third of an inc(1)'s time. */
	if (PyFloat_CheckExact(o))
		*ret = PyFloat_AS_DOUBLE(o);
	else if (PyLong_CheckExact(o)) {
		if ((*ret = PyLong_AsDouble(o)) == -1.0 && PyErr_Occurred())
			return -1;
	} else if ((*ret = PyFloat_AsDouble(o)) == -1.0 && PyErr_Occurred())
		return -1;
	return 0;
}

/* v in millionths (ValueError for NaN and what it cannot hold). */
static int
to_q(double v, int64_t *ret)
{
	if (isnan(v)) {
		PyErr_SetString(PyExc_ValueError, "value is NaN");
		return -1;
	}
	if (!(v > -LIMIT && v < LIMIT)) {
		PyErr_Format(PyExc_ValueError, "value %g is out of the range "
		    "statsd keeps (-9e12, 9e12)", v);
		return -1;
	}
	*ret = llround(v * UNIT);
	return 0;
}

static PyObject *
Series_inc(SeriesObject *s, PyObject *const *args, Py_ssize_t nargs,
    PyObject *kwnames)
{
	double v;
	int64_t q;

	if (s->nseg == 0)
		return missing_labels(s);
	if (one_value(args, nargs, kwnames, "amount", 1.0, &v) < 0)
		return NULL;
	if (s->type == ST_COUNTER) {
		if (v < 0) {
			PyErr_SetString(PyExc_ValueError, "Counters can only "
			    "be incremented by non-negative amounts.");
			return NULL;
		}
		if (isnan(v)) {
			PyErr_SetString(PyExc_ValueError, "value is NaN");
			return NULL;
		}
		if (!(v < 2.0 * LIMIT)) {	/* an unsigned sum */
			PyErr_Format(PyExc_ValueError, "increment %g is out "
			    "of the range statsd keeps", v);
			return NULL;
		}
		series_push(s, (int64_t)(uint64_t)llround(v * UNIT), 0);
		Py_RETURN_NONE;
	}
	if (s->type != ST_GAUGE) {
		PyErr_SetString(PyExc_AttributeError, "inc() is a counter's "
		    "or a gauge's");
		return NULL;
	}
	if (to_q(v, &q) < 0)
		return NULL;
	series_push(s, q, SB_VOI_RELUPDATE);
	Py_RETURN_NONE;
}

static PyObject *
Series_dec(SeriesObject *s, PyObject *const *args, Py_ssize_t nargs,
    PyObject *kwnames)
{
	double v;
	int64_t q;

	if (series_for(s, s->type == ST_GAUGE, "dec() is a gauge's") < 0)
		return NULL;
	if (one_value(args, nargs, kwnames, "amount", 1.0, &v) < 0 ||
	    to_q(-v, &q) < 0)
		return NULL;
	series_push(s, q, SB_VOI_RELUPDATE);
	Py_RETURN_NONE;
}

static PyObject *
Series_set(SeriesObject *s, PyObject *const *args, Py_ssize_t nargs,
    PyObject *kwnames)
{
	double v;
	int64_t q;

	if (series_for(s, s->type == ST_GAUGE, "set() is a gauge's") < 0)
		return NULL;
	if (one_value(args, nargs, kwnames, "value", NAN, &v) < 0)
		return NULL;
	if (nargs == 0 && kwnames == NULL) {
		PyErr_SetString(PyExc_TypeError, "set() takes a value");
		return NULL;
	}
	if (to_q(v, &q) < 0)
		return NULL;
	series_push(s, q, 0);
	Py_RETURN_NONE;
}

static PyObject *
Series_observe(SeriesObject *s, PyObject *const *args, Py_ssize_t nargs,
    PyObject *kwnames)
{
	double v;
	int64_t q;

	if (series_for(s, s->type == ST_HISTOGRAM || s->type == ST_SUMMARY,
	    "observe() is a histogram's or a summary's") < 0)
		return NULL;
	if (nargs + (kwnames != NULL ? PyTuple_GET_SIZE(kwnames) : 0) != 1) {
		PyErr_SetString(PyExc_TypeError, "observe() takes one "
		    "argument, amount");
		return NULL;
	}
	if (one_value(args, nargs, kwnames, "amount", 0, &v) < 0 ||
	    to_q(v, &q) < 0)
		return NULL;
	series_push(s, q, 0);
	Py_RETURN_NONE;
}

/* The series' data as statsd holds it now, node-wide: a counter's or a
 * gauge's value; a histogram's or summary's (count, sum). None while it
 * is not published. */
static PyObject *
Series_read(SeriesObject *s, PyObject *Py_UNUSED(ignored))
{
	uint64_t u;
	int64_t v;

	if (s->sb == NULL || (s->pid_label && s->gen != fork_gen))
		Py_RETURN_NONE;
	switch (s->type) {
	case ST_COUNTER:
		if (stats_voistat_fetch_u64(s->sb, 0, VS_STYPE_SUM, &u) != 0)
			break;
		return PyFloat_FromDouble((double)u / UNIT);
	case ST_GAUGE:
		if (stats_voistat_fetch_s64(s->sb, 0, VS_STYPE_LAST, &v) != 0)
			break;
		return PyFloat_FromDouble((double)v / UNIT);
	default:
		break;
	}
	if (s->type == ST_HISTOGRAM || s->type == ST_SUMMARY) {
		int64_t n;

		/* COUNT has the VOI's type. */
		if (stats_voistat_fetch_s64(s->sb, 0, VS_STYPE_SUM, &v) != 0 ||
		    stats_voistat_fetch_s64(s->sb, 0, VS_STYPE_COUNT, &n) != 0)
			Py_RETURN_NONE;
		return Py_BuildValue("(Ld)", (long long)n, (double)v / UNIT);
	}
	Py_RETURN_NONE;
}

static PyObject *
Series_quantile(SeriesObject *s, PyObject *arg)
{
	double q = PyFloat_AsDouble(arg), ret;
	int r;

	if (q == -1.0 && PyErr_Occurred())
		return NULL;
	if (s->type != ST_SUMMARY && s->type != ST_HISTOGRAM) {
		PyErr_SetString(PyExc_AttributeError, "quantile() is a "
		    "summary's");
		return NULL;
	}
	if (s->sb == NULL)
		Py_RETURN_NONE;
	r = stats_voistat_fetch_quantile(s->sb, 0, s->type == ST_SUMMARY ?
	    VS_STYPE_TDGST : VS_STYPE_HIST, q, &ret);
	if (r != 0)
		Py_RETURN_NONE;
	return PyFloat_FromDouble(ret / UNIT);
}

static int Series_init(SeriesObject *s, PyObject *args, PyObject *kw);

static PyObject *
Series_bind(SeriesObject *s, PyObject *args, PyObject *kw)
{
	if (Series_init(s, args, kw) < 0)
		return NULL;
	Py_RETURN_NONE;
}

static PyObject *
Series_get_dropped(SeriesObject *s, void *Py_UNUSED(closure))
{
	return PyLong_FromUnsignedLongLong(s->dropped);
}

static PyObject *
Series_get_published(SeriesObject *s, void *Py_UNUSED(closure))
{
	return PyBool_FromLong(s->sb != NULL);
}

static PyObject *
Series_get_error(SeriesObject *s, void *Py_UNUSED(closure))
{
	if (s->last_errno == 0)
		Py_RETURN_NONE;
	return PyUnicode_FromFormat("%s (%s)", strerror(s->last_errno),
	    client != NULL ? stats_client_strerror(client) : "no client");
}

static PyObject *
Series_get_kstat(SeriesObject *s, void *Py_UNUSED(closure))
{
	return PyUnicode_FromFormat("%s:%d:%s", MODULE_NAME,
	    (int)s->instance, s->name);
}

static PyObject *
Series_get_path(SeriesObject *s, void *Py_UNUSED(closure))
{
	PyObject *t = PyTuple_New(s->nseg);
	uint32_t i;

	if (t == NULL)
		return NULL;
	for (i = 0; i < s->nseg; i++)
		PyTuple_SET_ITEM(t, i, PyUnicode_FromString(s->seg[i]));
	return t;
}

/*
 * _bind(type, tpl, family, doc, labelnames, labelvalues, pid_label): make
 * s the series of family (a str) with those label values (a tuple of str,
 * as many as labelnames), of template tpl; labelvalues None makes it the
 * family of series with labels, which has no updates of its own.
 */
static int
Series_init(SeriesObject *s, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "type", "tpl", "family", "doc",
	    "labelnames", "labelvalues", "pid_label", NULL };
	const char *type, *family, *doc;
	PyObject *names, *values;
	Py_ssize_t i, nl, fl;
	size_t o = 0, end;
	int tpl, pid_label = 0, t;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "sis#sOO|p", kwlist,
	    &type, &tpl, &family, &fl, &doc, &names, &values, &pid_label))
		return -1;
	for (t = 0; t < ST_NTYPES; t++)
		if (strcmp(type, type_names[t]) == 0)
			break;
	if (t == ST_NTYPES) {
		PyErr_Format(PyExc_ValueError, "no series type %s", type);
		return -1;
	}
	s->type = (enum series_type)t;
	s->nseg = 0;
	s->sb = NULL;
	if (values == Py_None)
		return 0;
	if (!PyTuple_Check(names) || !PyTuple_Check(values) ||
	    PyTuple_GET_SIZE(names) != PyTuple_GET_SIZE(values)) {
		PyErr_SetString(PyExc_ValueError, "Incorrect label count");
		return -1;
	}
	nl = PyTuple_GET_SIZE(names);
	if (nl + 3 + (pid_label ? 1 : 0) > PATH_MAX_SEGS) {
		PyErr_Format(PyExc_ValueError, "statsd keeps at most %d labels",
		    PATH_MAX_SEGS - 3 - (pid_label ? 1 : 0));
		return -1;
	}
	s->tpl = tpl;
	s->pid_label = pid_label;
	s->gen = fork_gen;
	/* The path must fit statsd's 255 bytes with its '/'s. */
	end = PATH_MAX_BYTES + 1 - (pid_label ? 16 : 0);
	s->nseg = 0;
	s->seg[s->nseg++] = s->segbuf + o;
	(void)seg_put(s->segbuf, &o, end, "prometheus", 10);
	s->segbuf[o++] = '\0';
	s->seg[s->nseg++] = s->segbuf + o;
	(void)seg_put(s->segbuf, &o, end, type, strlen(type));
	s->segbuf[o++] = '\0';
	s->seg[s->nseg++] = s->segbuf + o;
	if (seg_put(s->segbuf, &o, end, family, (size_t)fl) < 0)
		goto toolong;
	s->segbuf[o++] = '\0';
	for (i = 0; i < nl; i++) {
		PyObject *n = PyTuple_GET_ITEM(names, i);
		PyObject *v = PyTuple_GET_ITEM(values, i);
		const char *ns, *vs;
		Py_ssize_t nn, vn;

		if (!PyUnicode_Check(n) || !PyUnicode_Check(v)) {
			PyErr_SetString(PyExc_TypeError, "label names and "
			    "values are str");
			return -1;
		}
		ns = PyUnicode_AsUTF8AndSize(n, &nn);
		vs = PyUnicode_AsUTF8AndSize(v, &vn);
		if (ns == NULL || vs == NULL)
			return -1;
		s->seg[s->nseg++] = s->segbuf + o;
		if (seg_put(s->segbuf, &o, end, ns, (size_t)nn) < 0 ||
		    o + 1 >= end)
			goto toolong;
		s->segbuf[o++] = '=';
		if (seg_put(s->segbuf, &o, end, vs, (size_t)vn) < 0 ||
		    o >= end)
			goto toolong;
		s->segbuf[o++] = '\0';
	}
	/* Joined by '/' the segments take o - 1 bytes. */
	if (o - 1 > (size_t)(end - 1))
		goto toolong;
	s->fixedlen = o;
	s->nfixed = s->nseg;
	if (pid_label)
		series_pid(s);
	else
		series_names(s);
	{
		size_t dl = strlen(doc), k;

		if (dl > DESC_MAX)
			dl = DESC_MAX;
		PyMem_Free(s->desc);
		s->desc = PyMem_Malloc(dl + 1);
		if (s->desc == NULL) {
			PyErr_NoMemory();
			return -1;
		}
		/* statsd keeps printable ASCII: others become '?', and
		 * white space a blank. */
		for (k = 0; k < dl; k++) {
			unsigned char c = (unsigned char)doc[k];

			s->desc[k] = c == '\n' || c == '\t' || c == '\r' ? ' ' :
			    c < 0x20 || c > 0x7e ? '?' : (char)c;
		}
		s->desc[dl] = '\0';
	}
	/* Made now, as prometheus_client shows a series from its making
	 * (a counter at 0); without statsd, on its first update. */
	(void)series_attach(s);
	return 0;
toolong:
	PyErr_Format(PyExc_ValueError, "the name and label values of %s "
	    "pass the 255 bytes statsd keeps of a series' path", family);
	return -1;
}

static void
Series_dealloc(SeriesObject *s)
{
	/* The kstat stays with statsd: other processes update it too. */
	PyMem_Free(s->desc);
	Py_TYPE(s)->tp_free((PyObject *)s);
}

static PyMethodDef Series_methods[] = {
	{ "inc", (PyCFunction)(void (*)(void))Series_inc,
	    METH_FASTCALL | METH_KEYWORDS, "inc(amount=1)" },
	{ "dec", (PyCFunction)(void (*)(void))Series_dec,
	    METH_FASTCALL | METH_KEYWORDS, "dec(amount=1): a gauge's" },
	{ "set", (PyCFunction)(void (*)(void))Series_set,
	    METH_FASTCALL | METH_KEYWORDS, "set(value): a gauge's" },
	{ "observe", (PyCFunction)(void (*)(void))Series_observe,
	    METH_FASTCALL | METH_KEYWORDS, "observe(amount)" },
	{ "_bind", (PyCFunction)(void (*)(void))Series_bind,
	    METH_VARARGS | METH_KEYWORDS,
	    "_bind(type, tpl, family, doc, labelnames, labelvalues, "
	    "pid_label=False)" },
	{ "read", (PyCFunction)Series_read, METH_NOARGS,
	    "the node-wide value statsd holds now (None if unpublished)" },
	{ "quantile", (PyCFunction)Series_quantile, METH_O,
	    "quantile(q): a summary's t-digest quantile (None if unknown)" },
	{ NULL, NULL, 0, NULL }
};

static PyGetSetDef Series_getset[] = {
	{ "dropped", (getter)Series_get_dropped, NULL,
	    "updates dropped while the series was not published", NULL },
	{ "published", (getter)Series_get_published, NULL,
	    "whether the kstat is published", NULL },
	{ "error", (getter)Series_get_error, NULL,
	    "why the last publish failed (None if it did not)", NULL },
	{ "kstat", (getter)Series_get_kstat, NULL,
	    "the kstat's module:instance:name", NULL },
	{ "path", (getter)Series_get_path, NULL,
	    "the kstat's kstat2 path", NULL },
	{ NULL, NULL, NULL, NULL, NULL }
};

static PyTypeObject SeriesType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "statsclient._statsclient.Series",
	.tp_basicsize = sizeof(SeriesObject),
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "One series (a metric with its label values) as a kstat",
	.tp_new = PyType_GenericNew,
	.tp_dealloc = (destructor)Series_dealloc,
	.tp_methods = Series_methods,
	.tp_getset = Series_getset,
};

/* ---------------------------------------------------------- templates */

/* A template of one VOI "value" with the statistics of type (and, for a
 * histogram, the bounds). Returns: its id; -errno. */
static int
make_template(enum series_type t, const double *bounds, size_t nb)
{
	char tname[64];
	uint64_t h = 0xcbf29ce484222325ull;
	int id, r;

	if (t == ST_HISTOGRAM) {
		h = fnv1a(h, (const char *)bounds, nb * sizeof(*bounds));
		snprintf(tname, sizeof(tname), "prom_histogram_%016llx",
		    (unsigned long long)h);
	} else {
		snprintf(tname, sizeof(tname), "prom_%s", type_names[t]);
	}
	id = stats_tpl_fetch_allocid(tname, 0);
	if (id >= 0)
		return id;
	id = stats_tpl_alloc(tname, 0);
	if (id < 0)
		return id;
	if (t == ST_COUNTER) {
		struct voistatspec v[] = { STATS_VSS_SUM() };

		r = stats_tpl_add_voistats((uint32_t)id, 0, "value",
		    VSD_DTYPE_INT_U64, NVSS(v), v, 0);
	} else if (t == ST_GAUGE) {
		struct voistatspec v[] = { STATS_VSS_LAST() };

		r = stats_tpl_add_voistats((uint32_t)id, 0, "value",
		    VSD_DTYPE_INT_S64, NVSS(v), v, SB_VOI_RELUPDATE);
	} else if (t == ST_SUMMARY) {
		struct voistatspec v[] = { STATS_VSS_SUM(), STATS_VSS_COUNT(),
		    STATS_VSS_TDGSTCLUST64(SUMMARY_NCTDS, 0) };

		r = stats_tpl_add_voistats((uint32_t)id, 0, "value",
		    VSD_DTYPE_INT_S64, NVSS(v), v, 0);
	} else {
		/* Continuous-range buckets [lb, next lb): from the least
		 * value, then each bound in millionths plus one, so that a
		 * bucket holds the values at most its bound, as
		 * Prometheus' le says (statsd shows an integer bucket's
		 * le as its upper bound less one); the last reaches the
		 * type's maximum, the +Inf bucket. */
		struct voistatdata_numeric (*bk)[2] = calloc(nb + 1,
		    sizeof(*bk));
		struct voistatspec v[3];
		size_t i;

		if (bk == NULL)
			return -ENOMEM;
		bk[0][0].int64.s64 = INT64_MIN;
		bk[0][1] = bk[0][0];
		for (i = 0; i < nb; i++) {
			bk[i + 1][0].int64.s64 = llround(bounds[i] * UNIT) +
			    1;
			bk[i + 1][1] = bk[i + 1][0];
		}
		struct vss_hist_hlpr_info info = {
			.scheme = BKT_USR,
			.hist_dtype = VSD_DTYPE_CRHIST64,
			.usr.nbkts = (uint16_t)(nb + 1),
			.usr.bkts = (const void *)bk,
		};

		v[0] = STATS_VSS_SUM();
		v[1] = STATS_VSS_COUNT();
		v[2] = STATS_VSS_HIST(VSD_DTYPE_CRHIST64, &info);
		r = stats_tpl_add_voistats((uint32_t)id, 0, "value",
		    VSD_DTYPE_INT_S64, 3, v, 0);
		free(bk);
	}
	return r != 0 ? -(r > 0 ? r : -r) : id;
}

/* template(type, bounds=()): the template id for series of type. */
static PyObject *
mod_template(PyObject *Py_UNUSED(m), PyObject *args)
{
	const char *type;
	PyObject *bt = NULL;
	double *b = NULL;
	Py_ssize_t i, nb = 0;
	int t, id;

	if (!PyArg_ParseTuple(args, "s|O!", &type, &PyTuple_Type, &bt))
		return NULL;
	for (t = 0; t < ST_NTYPES; t++)
		if (strcmp(type, type_names[t]) == 0)
			break;
	if (t == ST_NTYPES) {
		PyErr_Format(PyExc_ValueError, "no series type %s", type);
		return NULL;
	}
	if (t == ST_HISTOGRAM) {
		nb = bt != NULL ? PyTuple_GET_SIZE(bt) : 0;
		if (nb < 1 || nb > 1000) {
			PyErr_SetString(PyExc_ValueError, "a histogram has 1 "
			    "to 1000 finite bucket bounds");
			return NULL;
		}
		b = PyMem_Calloc((size_t)nb, sizeof(*b));
		if (b == NULL)
			return PyErr_NoMemory();
		for (i = 0; i < nb; i++) {
			b[i] = PyFloat_AsDouble(PyTuple_GET_ITEM(bt, i));
			if (b[i] == -1.0 && PyErr_Occurred())
				goto fail;
			if (!(b[i] > -LIMIT && b[i] < LIMIT)) {
				PyErr_Format(PyExc_ValueError, "bucket bound "
				    "%g is out of the range statsd keeps "
				    "(-9e12, 9e12)", b[i]);
				goto fail;
			}
			if (i > 0 && llround(b[i] * UNIT) <=
			    llround(b[i - 1] * UNIT)) {
				PyErr_SetString(PyExc_ValueError,
				    "Buckets not in sorted order (statsd "
				    "keeps bounds to 1e-6)");
				goto fail;
			}
		}
	}
	id = make_template((enum series_type)t, b, (size_t)nb);
	PyMem_Free(b);
	if (id < 0) {
		errno = -id;
		return PyErr_SetFromErrno(PyExc_OSError);
	}
	return PyLong_FromLong(id);
fail:
	PyMem_Free(b);
	return NULL;
}

static PyObject *
mod_dropped(PyObject *Py_UNUSED(m), PyObject *Py_UNUSED(a))
{
	stats_client_t *c = client != NULL ? client : statistic_client();

	return PyLong_FromUnsignedLongLong(unpublished_drops +
	    (c != NULL ? stats_client_dropped(c) : 0));
}

static PyObject *
mod_pushed(PyObject *Py_UNUSED(m), PyObject *Py_UNUSED(a))
{
	stats_client_t *c = client != NULL ? client : statistic_client();

	return PyLong_FromUnsignedLongLong(unpublished_drops +
	    (c != NULL ? stats_client_pushed(c) : 0));
}

static PyObject *
mod_connected(PyObject *Py_UNUSED(m), PyObject *Py_UNUSED(a))
{
	stats_client_t *c = client != NULL ? client : statistic_client();

	return PyBool_FromLong(c != NULL && stats_client_connected(c));
}

static PyObject *
mod_flush(PyObject *Py_UNUSED(m), PyObject *args)
{
	stats_client_t *c;
	int timeout_ms = -1, r;

	if (!PyArg_ParseTuple(args, "|i", &timeout_ms))
		return NULL;
	c = client != NULL ? client : statistic_client();
	if (c == NULL)
		Py_RETURN_TRUE;
	Py_BEGIN_ALLOW_THREADS
	r = stats_client_flush(c, timeout_ms);
	Py_END_ALLOW_THREADS
	return PyBool_FromLong(r == 0);
}

/* After os.fork() in the child (os.register_at_fork): connect now, at
 * the fork rather than at the first update (forked_connect()), so that a
 * worker's first request does not wait for it. */
static PyObject *
mod_after_fork(PyObject *Py_UNUSED(m), PyObject *Py_UNUSED(a))
{
	stats_client_t *c;

	forked_connect();
	c = client != NULL ? client : statistic_client();
	return PyBool_FromLong(c != NULL && stats_client_connected(c));
}

static PyObject *
mod_last_error(PyObject *Py_UNUSED(m), PyObject *Py_UNUSED(a))
{
	return PyUnicode_FromString(client != NULL ?
	    stats_client_strerror(client) : "");
}

/* A named value as Python has it (None for a type it has no value of). */
static PyObject *
named_value(const kstat_named_t *kn)
{
	switch (kn->data_type) {
	case KSTAT_DATA_CHAR:
		return PyUnicode_DecodeUTF8(kn->value.c, strnlen(kn->value.c,
		    sizeof(kn->value.c)), "replace");
	case KSTAT_DATA_INT32:
		return PyLong_FromLong(kn->value.i32);
	case KSTAT_DATA_UINT32:
		return PyLong_FromUnsignedLong(kn->value.ui32);
	case KSTAT_DATA_INT64:
		return PyLong_FromLongLong(kn->value.i64);
	case KSTAT_DATA_UINT64:
		return PyLong_FromUnsignedLongLong(kn->value.ui64);
	case KSTAT_DATA_STRING:
		if (KSTAT_NAMED_STR_PTR(kn) == NULL)
			Py_RETURN_NONE;
		return PyUnicode_DecodeUTF8(KSTAT_NAMED_STR_PTR(kn),
		    strlen(KSTAT_NAMED_STR_PTR(kn)), "replace");
	case KSTAT_DATA_UINT64_ARRAY: {
		PyObject *l = PyList_New(KSTAT_NAMED_ARR_LEN(kn));
		uint32_t i;

		for (i = 0; l != NULL && i < KSTAT_NAMED_ARR_LEN(kn); i++)
			PyList_SET_ITEM(l, i, PyLong_FromUnsignedLongLong(
			    KSTAT_NAMED_ARR_PTR(kn)[i]));
		return l;
	}
	default:
		Py_RETURN_NONE;
	}
}

/*
 * kstat_read(module=None, instance=-1, name=None): the kstats statsd has
 * that match (None and -1 match anything), read with libkstat as
 * illumos's consumers read them: a list of dicts with module, instance,
 * name, class, type (KSTAT_TYPE_*), snaptime (ns) and data, the named
 * values ({name: value}; stats(3) blobs and Linux interfaces show as
 * named values "<voi>.<kind>"), None for the other kstat types.
 */
static PyObject *
mod_kstat_read(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "module", "instance", "name", NULL };
	const char *module = NULL, *name = NULL;
	int instance = -1, err = 0;
	PyObject *out = NULL;
	kstat_ctl_t *kc;
	kstat_t *ksp;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|ziz", kwlist, &module,
	    &instance, &name))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	kc = kstat_open();
	if (kc == NULL)
		err = errno;
	Py_END_ALLOW_THREADS
	if (kc == NULL) {
		errno = err;
		return PyErr_SetFromErrno(PyExc_OSError);
	}
	out = PyList_New(0);
	for (ksp = kc->kc_chain; out != NULL && ksp != NULL;
	    ksp = ksp->ks_next) {
		PyObject *d, *data;
		kid_t r;

		if ((module != NULL && strcmp(ksp->ks_module, module) != 0) ||
		    (instance != -1 && ksp->ks_instance != instance) ||
		    (name != NULL && strcmp(ksp->ks_name, name) != 0))
			continue;
		Py_BEGIN_ALLOW_THREADS
		r = kstat_read(kc, ksp, NULL);
		Py_END_ALLOW_THREADS
		if (r == -1)
			continue;	/* gone meanwhile, or not ours to read */
		if (ksp->ks_type == KSTAT_TYPE_NAMED) {
			kstat_named_t *kn = KSTAT_NAMED_PTR(ksp);
			unsigned i;

			data = PyDict_New();
			for (i = 0; data != NULL && i < ksp->ks_ndata; i++) {
				PyObject *v = named_value(&kn[i]);

				if (v == NULL || PyDict_SetItemString(data,
				    kn[i].name, v) < 0)
					Py_CLEAR(data);
				Py_XDECREF(v);
			}
		} else {
			data = Py_None;
			Py_INCREF(data);
		}
		d = data == NULL ? NULL : Py_BuildValue(
		    "{s:s,s:i,s:s,s:s,s:i,s:L,s:N}", "module", ksp->ks_module,
		    "instance", ksp->ks_instance, "name", ksp->ks_name,
		    "class", ksp->ks_class, "type", (int)ksp->ks_type,
		    "snaptime", (long long)ksp->ks_snaptime, "data", data);
		if (d == NULL || PyList_Append(out, d) < 0)
			Py_CLEAR(out);
		Py_XDECREF(d);
	}
	(void)kstat_close(kc);
	return out;
}

static PyMethodDef mod_methods[] = {
	{ "kstat_read", (PyCFunction)(void (*)(void))mod_kstat_read,
	    METH_VARARGS | METH_KEYWORDS,
	    "kstat_read(module=None, instance=-1, name=None): the kstats "
	    "that match, as libkstat reads them" },
	{ "last_error", mod_last_error, METH_NOARGS,
	    "the text of libstatsclient's last error (\"\" if none)" },
	{ "_after_fork", mod_after_fork, METH_NOARGS,
	    "connect in a fork child before its first update" },
	{ "template", mod_template, METH_VARARGS,
	    "template(type, bounds=()): a template id" },
	{ "dropped", mod_dropped, METH_NOARGS,
	    "updates of this process that never reached statsd" },
	{ "pushed", mod_pushed, METH_NOARGS,
	    "updates this process made" },
	{ "connected", mod_connected, METH_NOARGS,
	    "whether the process is connected to statsd now" },
	{ "flush", mod_flush, METH_VARARGS,
	    "flush(timeout_ms=-1): wait until statsd applied every update "
	    "made so far; True, or False on time-out" },
	{ NULL, NULL, 0, NULL }
};

static struct PyModuleDef module = {
	PyModuleDef_HEAD_INIT, "_statsclient",
	"libstatsclient's series for the statsclient module", -1, mod_methods,
	NULL, NULL, NULL, NULL
};

PyMODINIT_FUNC PyInit__statsclient(void);

PyMODINIT_FUNC
PyInit__statsclient(void)
{
	PyObject *m;

	if (PyType_Ready(&SeriesType) < 0)
		return NULL;
	m = PyModule_Create(&module);
	if (m == NULL)
		return NULL;
	Py_INCREF(&SeriesType);
	if (PyModule_AddObject(m, "Series", (PyObject *)&SeriesType) < 0) {
		Py_DECREF(&SeriesType);
		Py_DECREF(m);
		return NULL;
	}
	if (statistic_types_add(m) < 0) {
		Py_DECREF(m);
		return NULL;
	}
	(void)pthread_atfork(NULL, NULL, atfork_child);
	return m;
}
