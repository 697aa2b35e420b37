# SPDX-License-Identifier: BSD-2-Clause
"""statsclient: Prometheus-style metrics kept by statsd, the node-local
statistics service, through libstatsclient's per-thread rings.

The API is python3-prometheus-client's: Counter, Gauge, Histogram and
Summary, labels(), inc(), dec(), set(), observe(), time() and
count_exceptions(). Each metric with its label values is a kstat that
statsd owns, so every process that updates it (every gunicorn or uWSGI
worker, whenever it was forked) updates one series, shown in statsd's
/metrics under the name and labels prometheus_client would give it. An
update is one C call into _statsclient; it never blocks and never raises
because statsd is absent or gone (dropped() counts what did not reach it).
Beside them, as C programs have them: kstat_read(), libkstat's reader, and
StatisticInterface, the Linux statistics infrastructure's interface,
whose statistics report (X, Y) pairs (_statistic.c).

This file owns the Python half: names and labels checked as
prometheus_client checks them, the families, the timers and the exception
counters. docs/python.md has the whole API, the fork rules and a migration
note from prometheus_client's multiprocess mode.
"""
import contextlib
import functools
import os
import re
import threading
import time as _time

from ._statsclient import Series as _Series
from ._statsclient import _after_fork
from ._statsclient import template as _template
from ._statsclient import (connected, dropped, flush, kstat_read,
                           last_error, pushed)
from ._statsclient import Statistic, StatisticInterface

__all__ = ["Counter", "Gauge", "Histogram", "Summary", "CollectorRegistry",
           "REGISTRY", "connected", "dropped", "flush", "kstat_read",
           "last_error", "pushed", "Statistic", "StatisticInterface"]

INF = float("inf")

# A worker forked by a pre-fork server (gunicorn) connects at the fork, not
# at its first update (its first request would wait for it);
# libstatsclient would otherwise drop the updates it makes until its
# watcher thread has reconnected. A server that forks without os.fork(), as
# uWSGI does, connects on the first update (_statsclient.c).
os.register_at_fork(after_in_child=_after_fork)
_METRIC_NAME_RE = re.compile(r"^[a-zA-Z_:][a-zA-Z0-9_:]*$")
_LABEL_NAME_RE = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*$")
_RESERVED_LABEL_RE = re.compile(r"^__.*$")


class CollectorRegistry:
    """The names this process made, so that making one twice raises as
    prometheus_client's registry does. statsd itself is the node's
    registry: what the process made stays there when it exits."""

    def __init__(self):
        self._lock = threading.Lock()
        self._names = {}

    def register(self, metric):
        names = metric._sample_names()
        with self._lock:
            dup = set(names) & set(self._names)
            if dup:
                raise ValueError("Duplicated timeseries in "
                                 "CollectorRegistry: %s" % dup)
            for n in names:
                self._names[n] = metric

    def unregister(self, metric):
        with self._lock:
            for n in metric._sample_names():
                if self._names.get(n) is metric:
                    del self._names[n]


REGISTRY = CollectorRegistry()

# Template ids by (type, bounds): one template per layout and process.
_templates = {}
_templates_lock = threading.Lock()


def _tpl(kind, bounds=()):
    key = (kind, bounds)
    t = _templates.get(key)
    if t is None:
        with _templates_lock:
            t = _templates.get(key)
            if t is None:
                t = _template(kind, bounds) if bounds else _template(kind)
                _templates[key] = t
    return t


def _full_name(kind, name, namespace, subsystem, unit):
    full = ""
    if namespace:
        full += namespace + "_"
    if subsystem:
        full += subsystem + "_"
    full += name
    if kind == "counter" and full.endswith("_total"):
        full = full[:-6]
    if unit and not full.endswith("_" + unit):
        full += "_" + unit
    return full


class _Metric(_Series):
    """A family, or (after labels()) one of its series. Its updates are
    the C methods of _Series, called directly."""

    _type = None
    _reserved_labelnames = ()
    # The names a family takes in a registry, as prometheus_client's.
    _suffixes = ("",)

    def __init__(self, name, documentation, labelnames=(), namespace="",
                 subsystem="", unit="", registry=REGISTRY,
                 _labelvalues=None, **kwargs):
        self._name = _full_name(self._type, name, namespace, subsystem,
                                unit)
        labelnames = tuple(labelnames)
        for ln in labelnames:
            if not _LABEL_NAME_RE.match(ln):
                raise ValueError("Invalid label metric name: " + ln)
            if _RESERVED_LABEL_RE.match(ln) or \
                    ln in self._reserved_labelnames:
                raise ValueError("Reserved label metric name: " + ln)
        if not _METRIC_NAME_RE.match(self._name):
            raise ValueError("Invalid metric name: " + self._name)
        self._labelnames = labelnames
        self._labelvalues = tuple(_labelvalues or ())
        self._documentation = documentation
        self._unit = unit
        self._kwargs = kwargs
        self._prepare(**kwargs)
        if labelnames and not self._labelvalues:
            # The family: its series come from labels().
            self._lock = threading.Lock()
            self._metrics = {}
            self._bind(self._type, 0, self._name, documentation,
                       labelnames, None)
        else:
            self._bind(self._type, self._template(), self._name,
                       documentation, labelnames, self._labelvalues,
                       self._pid_label())
        if not self._labelvalues and registry:
            registry.register(self)

    def _prepare(self, **kwargs):
        if kwargs:
            raise TypeError("unexpected arguments: %s" % ", ".join(kwargs))

    def _template(self):
        return _tpl(self._type)

    def _pid_label(self):
        return False

    def _sample_names(self):
        return [self._name + s for s in self._suffixes]

    def __str__(self):
        return "%s:%s" % (self._type, self._name)

    def __repr__(self):
        return "%s.%s(%s)" % (type(self).__module__, type(self).__name__,
                              self._name)

    def labels(self, *labelvalues, **labelkwargs):
        """The series of these label values (made on first use)."""
        if not self._labelnames:
            raise ValueError("No label names were set when constructing %s"
                             % self)
        if self._labelvalues:
            raise ValueError("%s already has labels set (%s); can not chain "
                             "calls to .labels()" % (
                                 self, dict(zip(self._labelnames,
                                                self._labelvalues))))
        if labelvalues and labelkwargs:
            raise ValueError("Can't pass both *args and **kwargs")
        if labelkwargs:
            if sorted(labelkwargs) != sorted(self._labelnames):
                raise ValueError("Incorrect label names")
            labelvalues = tuple(str(labelkwargs[ln])
                                for ln in self._labelnames)
        else:
            if len(labelvalues) != len(self._labelnames):
                raise ValueError("Incorrect label count")
            labelvalues = tuple(str(v) for v in labelvalues)
        m = self._metrics.get(labelvalues)
        if m is None:
            with self._lock:
                m = self._metrics.get(labelvalues)
                if m is None:
                    m = self.__class__(
                        self._name, documentation=self._documentation,
                        labelnames=self._labelnames, unit=self._unit,
                        registry=None, _labelvalues=labelvalues,
                        **self._kwargs)
                    self._metrics[labelvalues] = m
        return m

    def remove(self, *labelvalues):
        """Forget a series in this process (statsd keeps its kstat, which
        other processes may update)."""
        if not self._labelnames:
            raise ValueError("No label names were set when constructing %s"
                             % self)
        if len(labelvalues) != len(self._labelnames):
            raise ValueError("Incorrect label count (expected %d, got %s)"
                             % (len(self._labelnames), labelvalues))
        labelvalues = tuple(str(v) for v in labelvalues)
        with self._lock:
            self._metrics.pop(labelvalues, None)

    def clear(self):
        with self._lock:
            self._metrics = {}

    def _observable(self):
        if self._labelnames and not self._labelvalues:
            raise ValueError("%s metric is missing label values" %
                             self._type)


class _Timer:
    """time(): a context manager and a decorator that gives the seconds
    elapsed to the metric's callback (observe, or a gauge's set)."""

    def __init__(self, metric, callback):
        self._metric = metric
        self._callback = callback

    def __enter__(self):
        self._start = _time.perf_counter()
        return self

    def __exit__(self, typ, value, traceback):
        getattr(self._metric, self._callback)(
            max(_time.perf_counter() - self._start, 0))

    def labels(self, *args, **kw):
        self._metric = self._metric.labels(*args, **kw)

    def __call__(self, f):
        @functools.wraps(f)
        def wrapped(*args, **kwargs):
            with _Timer(self._metric, self._callback):
                return f(*args, **kwargs)
        return wrapped


class _ExceptionCounter(contextlib.ContextDecorator):
    def __init__(self, counter, exception):
        self._counter = counter
        self._exception = exception

    def __enter__(self):
        pass

    def __exit__(self, typ, value, traceback):
        if isinstance(value, self._exception):
            self._counter.inc()
        return False


class _InprogressTracker(contextlib.ContextDecorator):
    def __init__(self, gauge):
        self._gauge = gauge

    def __enter__(self):
        self._gauge.inc()

    def __exit__(self, typ, value, traceback):
        self._gauge.dec()


class Counter(_Metric):
    """A counter: `<name>_total` in /metrics. inc(amount=1) with amount
    >= 0."""

    _type = "counter"
    _suffixes = ("", "_total", "_created")

    def count_exceptions(self, exception=Exception):
        """Count exceptions of type exception raised out of a block or a
        function (a context manager and a decorator)."""
        self._observable()
        return _ExceptionCounter(self, exception)


class Gauge(_Metric):
    """A gauge: one value for the node (set, or inc and dec from any
    process), or with multiprocess_mode "all" or "liveall" one series per
    process, labelled pid."""

    _type = "gauge"
    _MULTIPROC_MODES = frozenset(("all", "liveall", "min", "livemin", "max",
                                  "livemax", "sum", "livesum",
                                  "mostrecent", "livemostrecent"))

    def _prepare(self, multiprocess_mode=None):
        if multiprocess_mode is not None and \
                multiprocess_mode not in self._MULTIPROC_MODES:
            raise ValueError("Invalid multiprocess mode: " +
                             multiprocess_mode)
        if multiprocess_mode in ("all", "liveall") and \
                "pid" in self._labelnames:
            raise ValueError("Reserved label metric name: pid")
        self._multiprocess_mode = multiprocess_mode

    def _pid_label(self):
        return self._multiprocess_mode in ("all", "liveall")

    def set_to_current_time(self):
        self.set(_time.time())

    def track_inprogress(self):
        """inc() on entering a block or function, dec() on leaving."""
        self._observable()
        return _InprogressTracker(self)

    def time(self):
        """Set the gauge to the seconds a block or function took."""
        self._observable()
        return _Timer(self, "set")


class Summary(_Metric):
    """A summary: `<name>_count`, `<name>_sum` and, from statsd's
    t-digest, `<name>{quantile="0.5"|"0.9"|"0.99"}`."""

    _type = "summary"
    _reserved_labelnames = ("quantile",)
    _suffixes = ("", "_count", "_sum", "_created")

    def time(self):
        """Observe the seconds a block or function took."""
        self._observable()
        return _Timer(self, "observe")


class Histogram(_Metric):
    """A histogram of the given bucket bounds (prometheus_client's default
    ones unless told): `<name>_bucket{le=...}`, `_count` and `_sum`."""

    _type = "histogram"
    _reserved_labelnames = ("le",)
    _suffixes = ("", "_bucket", "_count", "_sum", "_created")
    DEFAULT_BUCKETS = (.005, .01, .025, .05, .075, .1, .25, .5, .75, 1.0,
                       2.5, 5.0, 7.5, 10.0, INF)

    def _prepare(self, buckets=DEFAULT_BUCKETS):
        b = [float(x) for x in buckets]
        if b != sorted(b):
            raise ValueError("Buckets not in sorted order")
        if b and b[-1] != INF:
            b.append(INF)
        if len(b) < 2:
            raise ValueError("Must have at least two buckets")
        self._upper_bounds = b
        self._bounds = tuple(b[:-1])

    def _template(self):
        return _tpl("histogram", self._bounds)

    def time(self):
        """Observe the seconds a block or function took."""
        self._observable()
        return _Timer(self, "observe")
