/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * _statistic.c: the Linux statistics infrastructure's exploiter API
 * (<statsd/statistic.h>, the s390 zfcp proposal) for Python, in the module
 * statsclient: StatisticInterface (an interface, the kstat
 * linux:0:<name>) and Statistic (one of its statistics), whose add(x, y)
 * and inc(x) report (X, Y) pairs through the calling thread's ring as
 * statistic_add() does in C. Users read the data with statsctl, or from
 * Python with kstat_read().
 *
 * add() and inc() never block and never raise because of statsd. The
 * other calls (create, define_*, start, stop, reset, remove) talk to
 * statsd and may wait for its answer: they run without the GIL, one at a
 * time (setup_lock), and raise OSError when statsd refuses or is absent.
 * A remove clears the object's pointer under the GIL before the library
 * frees it, so that an update in another thread finds None, never freed
 * memory; setup_lock keeps a define of another thread from running on it.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include <statsd/client.h>
#include <statsd/statistic.h>

#include "_statistic.h"

static pthread_mutex_t setup_lock = PTHREAD_MUTEX_INITIALIZER;
/* Whether an interface was made (under the GIL). */
static int interfaces_made;

typedef struct {
	PyObject_HEAD
	struct statistic	*st;	/* NULL once removed */
	char			 name[STATISTIC_NAME_SIZE];
} StatisticObject;

typedef struct {
	PyObject_HEAD
	struct statistic_interface	*si;	/* NULL once removed */
	PyObject			*stats;	/* list of its Statistics */
	char				 name[STATISTIC_NAME_SIZE];
} InterfaceObject;

static PyTypeObject StatisticType;

stats_client_t *
statistic_client(void)
{
	return interfaces_made ? stats_client_default() : NULL;
}

void
statistic_atfork_child(void)
{
	/* A parent's thread may have held it. */
	pthread_mutex_init(&setup_lock, NULL);
}

/* The exception of a library call's -errno r (what names it: what). */
static PyObject *
setup_error(int r, const char *what)
{
	stats_client_t *c = stats_client_default();
	const char *why = c != NULL ? stats_client_strerror(c) : "";
	PyObject *args;

	if (r == -EINVAL || r == -EEXIST) {
		PyErr_Format(PyExc_ValueError, "%s: %s%s%s", what,
		    strerror(-r), why[0] != '\0' ? ": " : "", why);
		return NULL;
	}
	/* OSError(errno, text): errno set, as OSError's own have it. */
	args = Py_BuildValue("(iN)", -r, PyUnicode_FromFormat("%s: %s%s%s",
	    what, strerror(-r), why[0] != '\0' ? ": " : "", why));
	if (args != NULL) {
		PyErr_SetObject(PyExc_OSError, args);
		Py_DECREF(args);
	}
	return NULL;
}

/* The statistic of s, or NULL with ValueError (removed). */
static struct statistic *
stat_of(StatisticObject *s)
{
	struct statistic *st = __atomic_load_n(&s->st, __ATOMIC_ACQUIRE);

	if (st == NULL)
		PyErr_Format(PyExc_ValueError, "statistic %s was removed",
		    s->name);
	return st;
}

/* ------------------------------------------------------------ Statistic */

/* add(x, y=1): report (x, y). The one C call of the update path. */
static PyObject *
Statistic_add(StatisticObject *s, PyObject *const *args, Py_ssize_t nargs,
    PyObject *kwnames)
{
	Py_ssize_t nkw = kwnames != NULL ? PyTuple_GET_SIZE(kwnames) : 0;
	long long x, y = 1;
	struct statistic *st;

	/* add(x), add(x, y) or add(x, y=y): the only forms. */
	if (nargs < 1 || nargs + nkw > 2 || (nkw == 1 &&
	    PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0),
	    "y") != 0)) {
		PyErr_SetString(PyExc_TypeError, "add(x, y=1) takes one or "
		    "two integers");
		return NULL;
	}
	x = PyLong_AsLongLong(args[0]);
	if (x == -1 && PyErr_Occurred())
		return NULL;
	if (nargs + nkw == 2) {
		y = PyLong_AsLongLong(args[1]);
		if (y == -1 && PyErr_Occurred())
			return NULL;
		if (y < 0) {
			PyErr_SetString(PyExc_ValueError, "y is a count: "
			    "at least 0");
			return NULL;
		}
	}
	statsclient_fork_check();
	if ((st = stat_of(s)) == NULL)
		return NULL;
	(void)statistic_add(st, (int64_t)x, (uint64_t)y);
	Py_RETURN_NONE;
}

/* inc(x): report (x, 1). */
static PyObject *
Statistic_inc(StatisticObject *s, PyObject *x_obj)
{
	long long x = PyLong_AsLongLong(x_obj);
	struct statistic *st;

	if (x == -1 && PyErr_Occurred())
		return NULL;
	statsclient_fork_check();
	if ((st = stat_of(s)) == NULL)
		return NULL;
	(void)statistic_inc(st, (int64_t)x);
	Py_RETURN_NONE;
}

enum def_kind { DEF_VALUE, DEF_RANGE, DEF_ARRAY, DEF_LIST, DEF_RAW,
    DEF_HISTORY };

/* A mode or scale named name among names; -1 with ValueError. */
static int
pick(const char *name, const char *const *names, int n, const char *what)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(name, names[i]) == 0)
			return i;
	PyErr_Format(PyExc_ValueError, "no %s %s", what, name);
	return -1;
}

/* One define_*() call: the arguments as the kind takes them, then the
 * library's call without the GIL. */
static PyObject *
Statistic_define(StatisticObject *s, enum def_kind kind, PyObject *args,
    PyObject *kw)
{
	static const char *const vmodes[] = { "increments", "products" };
	static const char *const hmodes[] = { "increments", "products",
	    "range" };
	static const char *const scales[] = { "lin", "log2" };
	static char *kw_value[] = { "range_min", "range_max", "mode", NULL };
	static char *kw_range[] = { "range_min", "range_max", NULL };
	static char *kw_array[] = { "range_min", "range_max", "base_interval",
	    "scale", NULL };
	static char *kw_entries[] = { "range_min", "range_max", "entries_max",
	    NULL };
	static char *kw_history[] = { "range_min", "range_max", "entries_max",
	    "period", "mode", NULL };
	long long lo = STATISTIC_RANGE_MIN, hi = STATISTIC_RANGE_MAX;
	unsigned long long period = 0;
	unsigned int n = 0;
	const char *mode = "increments", *scale = "lin";
	struct statistic *st;
	int m = 0, r = 0, ok;

	switch (kind) {
	case DEF_VALUE:
		ok = PyArg_ParseTupleAndKeywords(args, kw, "|LLs", kw_value,
		    &lo, &hi, &mode);
		break;
	case DEF_RANGE:
		ok = PyArg_ParseTupleAndKeywords(args, kw, "|LL", kw_range,
		    &lo, &hi);
		break;
	case DEF_ARRAY:
		ok = PyArg_ParseTupleAndKeywords(args, kw, "LLI|s", kw_array,
		    &lo, &hi, &n, &scale);
		break;
	case DEF_LIST:
	case DEF_RAW:
		ok = PyArg_ParseTupleAndKeywords(args, kw, "LLI", kw_entries,
		    &lo, &hi, &n);
		break;
	default:
		ok = PyArg_ParseTupleAndKeywords(args, kw, "LLIK|s",
		    kw_history, &lo, &hi, &n, &period, &mode);
		break;
	}
	if (!ok)
		return NULL;
	if (kind == DEF_VALUE)
		m = pick(mode, vmodes, 2, "value mode");
	else if (kind == DEF_HISTORY)
		m = pick(mode, hmodes, 3, "history mode");
	else if (kind == DEF_ARRAY)
		m = pick(scale, scales, 2, "array scale");
	if (m < 0)
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	pthread_mutex_lock(&setup_lock);
	st = __atomic_load_n(&s->st, __ATOMIC_ACQUIRE);
	if (st == NULL)
		r = -ENOENT;
	else if (kind == DEF_VALUE)
		r = statistic_define_value(st, lo, hi, m);
	else if (kind == DEF_RANGE)
		r = statistic_define_range(st, lo, hi);
	else if (kind == DEF_ARRAY)
		r = statistic_define_array(st, lo, hi, n, (uint8_t)m);
	else if (kind == DEF_LIST)
		r = statistic_define_list(st, lo, hi, n);
	else if (kind == DEF_RAW)
		r = statistic_define_raw(st, lo, hi, n);
	else
		r = statistic_define_history(st, lo, hi, n, period, m);
	pthread_mutex_unlock(&setup_lock);
	Py_END_ALLOW_THREADS
	if (r == -ENOENT)
		return stat_of(s) == NULL ? NULL : setup_error(r, s->name);
	if (r < 0)
		return setup_error(r, s->name);
	Py_RETURN_NONE;
}

static PyObject *
Statistic_define_value(StatisticObject *s, PyObject *a, PyObject *kw)
{
	return Statistic_define(s, DEF_VALUE, a, kw);
}

static PyObject *
Statistic_define_range(StatisticObject *s, PyObject *a, PyObject *kw)
{
	return Statistic_define(s, DEF_RANGE, a, kw);
}

static PyObject *
Statistic_define_array(StatisticObject *s, PyObject *a, PyObject *kw)
{
	return Statistic_define(s, DEF_ARRAY, a, kw);
}

static PyObject *
Statistic_define_list(StatisticObject *s, PyObject *a, PyObject *kw)
{
	return Statistic_define(s, DEF_LIST, a, kw);
}

static PyObject *
Statistic_define_raw(StatisticObject *s, PyObject *a, PyObject *kw)
{
	return Statistic_define(s, DEF_RAW, a, kw);
}

static PyObject *
Statistic_define_history(StatisticObject *s, PyObject *a, PyObject *kw)
{
	return Statistic_define(s, DEF_HISTORY, a, kw);
}

enum onoff { OO_START, OO_STOP, OO_RESET };

/* start(), stop(): whether it was on before; reset(): None. */
static PyObject *
Statistic_onoff(StatisticObject *s, enum onoff what)
{
	struct statistic *st;
	int r = -ENOENT;

	Py_BEGIN_ALLOW_THREADS
	pthread_mutex_lock(&setup_lock);
	st = __atomic_load_n(&s->st, __ATOMIC_ACQUIRE);
	if (st != NULL)
		r = what == OO_START ? statistic_start(st) : what == OO_STOP ?
		    statistic_stop(st) : statistic_reset(st);
	pthread_mutex_unlock(&setup_lock);
	Py_END_ALLOW_THREADS
	if (r == -ENOENT && stat_of(s) == NULL)
		return NULL;
	if (r < 0)
		return setup_error(r, s->name);
	if (what == OO_RESET)
		Py_RETURN_NONE;
	return PyBool_FromLong(r == STATISTIC_DEF_ON);
}

static PyObject *
Statistic_start(StatisticObject *s, PyObject *Py_UNUSED(a))
{
	return Statistic_onoff(s, OO_START);
}

static PyObject *
Statistic_stop(StatisticObject *s, PyObject *Py_UNUSED(a))
{
	return Statistic_onoff(s, OO_STOP);
}

static PyObject *
Statistic_reset(StatisticObject *s, PyObject *Py_UNUSED(a))
{
	return Statistic_onoff(s, OO_RESET);
}

/* Free the statistic (its pointer taken from s under the GIL first). */
static PyObject *
Statistic_remove(StatisticObject *s, PyObject *Py_UNUSED(a))
{
	struct statistic *st = stat_of(s);
	int r;

	if (st == NULL)
		return NULL;
	__atomic_store_n(&s->st, NULL, __ATOMIC_RELEASE);
	Py_BEGIN_ALLOW_THREADS
	pthread_mutex_lock(&setup_lock);
	r = statistic_remove(&st);
	pthread_mutex_unlock(&setup_lock);
	Py_END_ALLOW_THREADS
	if (r < 0)
		return setup_error(r, s->name);
	Py_RETURN_NONE;
}

static PyObject *
Statistic_get_name(StatisticObject *s, void *Py_UNUSED(closure))
{
	return PyUnicode_FromString(s->name);
}

static PyObject *
Statistic_get_removed(StatisticObject *s, void *Py_UNUSED(closure))
{
	return PyBool_FromLong(__atomic_load_n(&s->st, __ATOMIC_ACQUIRE) ==
	    NULL);
}

static PyMethodDef Statistic_methods[] = {
	{ "add", (PyCFunction)(void (*)(void))Statistic_add,
	    METH_FASTCALL | METH_KEYWORDS, "add(x, y=1): report (x, y)" },
	{ "inc", (PyCFunction)Statistic_inc, METH_O,
	    "inc(x): report (x, 1)" },
	{ "define_value", (PyCFunction)(void (*)(void))Statistic_define_value,
	    METH_VARARGS | METH_KEYWORDS,
	    "define_value(range_min=MIN, range_max=MAX, mode='increments'): "
	    "the total of Y, or of X*Y ('products')" },
	{ "define_range", (PyCFunction)(void (*)(void))Statistic_define_range,
	    METH_VARARGS | METH_KEYWORDS,
	    "define_range(range_min=MIN, range_max=MAX): number, minimum, "
	    "average and maximum of X" },
	{ "define_array", (PyCFunction)(void (*)(void))Statistic_define_array,
	    METH_VARARGS | METH_KEYWORDS,
	    "define_array(range_min, range_max, base_interval, scale='lin'): "
	    "a histogram of X, intervals 'lin' or 'log2'" },
	{ "define_list", (PyCFunction)(void (*)(void))Statistic_define_list,
	    METH_VARARGS | METH_KEYWORDS,
	    "define_list(range_min, range_max, entries_max): totals of Y per "
	    "distinct X" },
	{ "define_raw", (PyCFunction)(void (*)(void))Statistic_define_raw,
	    METH_VARARGS | METH_KEYWORDS,
	    "define_raw(range_min, range_max, entries_max): the last reports" },
	{ "define_history",
	    (PyCFunction)(void (*)(void))Statistic_define_history,
	    METH_VARARGS | METH_KEYWORDS,
	    "define_history(range_min, range_max, entries_max, period, "
	    "mode='increments'): periods of period microseconds" },
	{ "start", (PyCFunction)Statistic_start, METH_NOARGS,
	    "start gathering; whether it was on" },
	{ "stop", (PyCFunction)Statistic_stop, METH_NOARGS,
	    "stop gathering; whether it was on" },
	{ "reset", (PyCFunction)Statistic_reset, METH_NOARGS,
	    "discard the statistic's data" },
	{ "remove", (PyCFunction)Statistic_remove, METH_NOARGS,
	    "remove the statistic from its interface" },
	{ NULL, NULL, 0, NULL }
};

static PyGetSetDef Statistic_getset[] = {
	{ "name", (getter)Statistic_get_name, NULL, "the statistic's name",
	    NULL },
	{ "removed", (getter)Statistic_get_removed, NULL,
	    "whether remove() (of it or its interface) was called", NULL },
	{ NULL, NULL, NULL, NULL, NULL }
};

static PyObject *
Statistic_new(PyTypeObject *Py_UNUSED(t), PyObject *Py_UNUSED(a),
    PyObject *Py_UNUSED(kw))
{
	PyErr_SetString(PyExc_TypeError, "a Statistic comes from "
	    "StatisticInterface.statistic()");
	return NULL;
}

static PyTypeObject StatisticType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "statsclient._statsclient.Statistic",
	.tp_basicsize = sizeof(StatisticObject),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "A statistic of a Linux statistics interface",
	.tp_new = Statistic_new,
	.tp_methods = Statistic_methods,
	.tp_getset = Statistic_getset,
};

/* --------------------------------------------------- StatisticInterface */

/* StatisticInterface(name): statistic_create_interface(). statsd sees it
 * once one of its statistics is defined or started. */
static PyObject *
Interface_new(PyTypeObject *t, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "name", NULL };
	InterfaceObject *o;
	const char *name;
	Py_ssize_t n;
	int r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "s#", kwlist, &name, &n))
		return NULL;
	if ((size_t)n >= STATISTIC_NAME_SIZE || strlen(name) != (size_t)n) {
		PyErr_SetString(PyExc_ValueError, "an interface name is 1 to "
		    "30 printable characters, no ':'");
		return NULL;
	}
	o = (InterfaceObject *)t->tp_alloc(t, 0);
	if (o == NULL)
		return NULL;
	memcpy(o->name, name, (size_t)n + 1);
	interfaces_made = 1;
	o->stats = PyList_New(0);
	if (o->stats == NULL) {
		Py_DECREF(o);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	pthread_mutex_lock(&setup_lock);
	r = statistic_create_interface(&o->si, name);
	pthread_mutex_unlock(&setup_lock);
	Py_END_ALLOW_THREADS
	if (r < 0) {
		Py_DECREF(o);
		if (r == -EINVAL || r == -ENAMETOOLONG) {
			PyErr_SetString(PyExc_ValueError, "an interface name "
			    "is 1 to 30 printable characters, no ':'");
			return NULL;
		}
		return setup_error(r, name);
	}
	return (PyObject *)o;
}

/* statistic(name, units=None): a new statistic of the interface, off,
 * as value/increments over the widest range. */
static PyObject *
Interface_statistic(InterfaceObject *o, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "name", "units", NULL };
	struct statistic_interface *si;
	StatisticObject *s;
	const char *name, *units = NULL;
	Py_ssize_t n;
	int r = -ENOENT;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "s#|z", kwlist, &name, &n,
	    &units))
		return NULL;
	if ((size_t)n >= STATISTIC_NAME_SIZE || strlen(name) != (size_t)n) {
		PyErr_SetString(PyExc_ValueError, "a statistic name is 1 to "
		    "63 of [A-Za-z0-9_.=/-]");
		return NULL;
	}
	s = PyObject_New(StatisticObject, &StatisticType);
	if (s == NULL)
		return NULL;
	s->st = NULL;
	memcpy(s->name, name, (size_t)n + 1);
	Py_BEGIN_ALLOW_THREADS
	pthread_mutex_lock(&setup_lock);
	si = __atomic_load_n(&o->si, __ATOMIC_ACQUIRE);
	if (si != NULL)
		r = statistic_create(&s->st, si, name, units);
	pthread_mutex_unlock(&setup_lock);
	Py_END_ALLOW_THREADS
	/* -ENOTCONN: made, and laid out when statsd is there. */
	if (r < 0 && r != -ENOTCONN) {
		Py_DECREF(s);
		if (r == -ENOENT) {
			PyErr_Format(PyExc_ValueError, "interface %s was "
			    "removed", o->name);
			return NULL;
		}
		if (r == -EINVAL) {
			PyErr_Format(PyExc_ValueError, "%s: a statistic name is "
			    "1 to 63 of [A-Za-z0-9_.=/-], its units printable "
			    "without blanks", name);
			return NULL;
		}
		if (r == -EEXIST) {
			PyErr_Format(PyExc_ValueError, "%s: interface %s has "
			    "a statistic of that name", name, o->name);
			return NULL;
		}
		return setup_error(r, name);
	}
	if (PyList_Append(o->stats, (PyObject *)s) < 0) {
		Py_DECREF(s);
		return NULL;
	}
	return (PyObject *)s;
}

/* Remove the interface, its statistics and its kstat; every Statistic
 * of it is marked removed under the GIL first. */
static PyObject *
Interface_remove(InterfaceObject *o, PyObject *Py_UNUSED(a))
{
	struct statistic_interface *si = __atomic_load_n(&o->si,
	    __ATOMIC_ACQUIRE);
	Py_ssize_t i;
	int r;

	if (si == NULL) {
		PyErr_Format(PyExc_ValueError, "interface %s was removed",
		    o->name);
		return NULL;
	}
	__atomic_store_n(&o->si, NULL, __ATOMIC_RELEASE);
	for (i = 0; i < PyList_GET_SIZE(o->stats); i++) {
		StatisticObject *s = (StatisticObject *)PyList_GET_ITEM(
		    o->stats, i);

		__atomic_store_n(&s->st, NULL, __ATOMIC_RELEASE);
	}
	Py_BEGIN_ALLOW_THREADS
	pthread_mutex_lock(&setup_lock);
	r = statistic_interface_remove(&si);
	pthread_mutex_unlock(&setup_lock);
	Py_END_ALLOW_THREADS
	if (r < 0 && r != -ENOTCONN)
		return setup_error(r, o->name);
	Py_RETURN_NONE;
}

static PyObject *
Interface_get_name(InterfaceObject *o, void *Py_UNUSED(closure))
{
	return PyUnicode_FromString(o->name);
}

static PyObject *
Interface_get_kstat(InterfaceObject *o, void *Py_UNUSED(closure))
{
	return PyUnicode_FromFormat("linux:0:%s", o->name);
}

static void
Interface_dealloc(InterfaceObject *o)
{
	/* The interface stays, as C's do until removed: its Statistics
	 * (which the caller may still hold) keep reporting into it. */
	Py_XDECREF(o->stats);
	Py_TYPE(o)->tp_free((PyObject *)o);
}

static PyMethodDef Interface_methods[] = {
	{ "statistic", (PyCFunction)(void (*)(void))Interface_statistic,
	    METH_VARARGS | METH_KEYWORDS,
	    "statistic(name, units=None): a new statistic, off" },
	{ "remove", (PyCFunction)Interface_remove, METH_NOARGS,
	    "remove the interface, its statistics and its kstat" },
	{ NULL, NULL, 0, NULL }
};

static PyGetSetDef Interface_getset[] = {
	{ "name", (getter)Interface_get_name, NULL, "the interface's name",
	    NULL },
	{ "kstat", (getter)Interface_get_kstat, NULL,
	    "its kstat, linux:0:<name>", NULL },
	{ NULL, NULL, NULL, NULL, NULL }
};

static PyTypeObject InterfaceType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "statsclient._statsclient.StatisticInterface",
	.tp_basicsize = sizeof(InterfaceObject),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "StatisticInterface(name): an interface of the Linux "
	    "statistics infrastructure, the kstat linux:0:<name>",
	.tp_new = Interface_new,
	.tp_dealloc = (destructor)Interface_dealloc,
	.tp_methods = Interface_methods,
	.tp_getset = Interface_getset,
};

int
statistic_types_add(PyObject *m)
{
	if (PyType_Ready(&StatisticType) < 0 ||
	    PyType_Ready(&InterfaceType) < 0)
		return -1;
	Py_INCREF(&StatisticType);
	if (PyModule_AddObject(m, "Statistic",
	    (PyObject *)&StatisticType) < 0) {
		Py_DECREF(&StatisticType);
		return -1;
	}
	Py_INCREF(&InterfaceType);
	if (PyModule_AddObject(m, "StatisticInterface",
	    (PyObject *)&InterfaceType) < 0) {
		Py_DECREF(&InterfaceType);
		return -1;
	}
	return 0;
}
