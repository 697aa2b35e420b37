# SPDX-License-Identifier: BSD-2-Clause
"""test_python.py: the Python module statsclient against a real statsd.

Each metric kind is made and updated both through statsclient and through
python3-prometheus-client (a private registry), and statsd's /metrics must
hold exactly the families, types, HELP texts, sample names, labels and
values that prometheus_client's own exposition holds (less its _created
samples, which a node-wide series has no one of). Bad arguments raise what
prometheus_client raises. Then: time() and count_exceptions() as
decorators and context managers, threads and asyncio (exact totals), a
series made before fork() updated by four children, per-process gauges,
and a process with no statsd (nothing raises, every update is counted as
dropped) and one whose statsd is killed. Beside them, the seed APIs C
programs have: kstat_read() and the Linux statistics infrastructure's
interfaces, whose (X, Y) pairs reach statsd's data lines exactly.

Needs PYTHONPATH to hold the built module (meson sets it)."""
import ast
import asyncio
import os
import subprocess
import sys
import threading

sys.path.insert(0, os.path.dirname(__file__))
import harness  # noqa: E402
from harness import DEADLINE, check, finish, mkdtemp  # noqa: E402
from pyscrape import http_daemon, parse, scrape  # noqa: E402

import prometheus_client as pc  # noqa: E402

d, port = http_daemon()
os.environ["STATSD_SOCKET"] = d.sock
import statsclient as sc  # noqa: E402


def same_ops(mod, reg):
    """The same metrics and updates through mod (statsclient or
    prometheus_client) into registry reg."""
    c = mod.Counter("app_requests", "Requests served.", ["route"],
                    registry=reg)
    c.labels("/a").inc()
    c.labels(route="/b").inc(2.5)
    c.labels("/a").inc(3)
    c2 = mod.Counter("app_jobs_total", "Jobs, named with _total.",
                     registry=reg)
    c2.inc(7)
    ns = mod.Counter("errors", "Namespaced.", namespace="app",
                     subsystem="db", registry=reg)
    ns.inc()
    g = mod.Gauge("app_temperature_celsius", "A level.", ["room"],
                  registry=reg)
    g.labels("hall").set(20.5)
    g.labels("hall").inc(2)
    g.labels("hall").dec(0.25)
    g.labels("cellar").set(-3)
    h = mod.Histogram("app_latency_seconds", "Latency.", ["route", "code"],
                      buckets=(0.005, 0.1, 1, 2.5), registry=reg)
    for v in (0.005, 0.0051, 0.1, 0.100001, 2, 2.5, 7, 0, -1):
        h.labels("/a", "200").observe(v)
    h.labels(code="500", route="/b").observe(0.3)
    hd = mod.Histogram("app_default_seconds", "Default buckets.",
                       registry=reg)
    for v in (0.001, 0.01, 0.3, 10, 11):
        hd.observe(v)
    s = mod.Summary("app_payload_bytes", "Sizes.", ["kind"], registry=reg)
    for v in range(1, 101):
        s.labels("json").observe(v)
    u = mod.Counter("app_text", "Odd label values.", ["v"], registry=reg)
    u.labels('a "quoted" / slash % \\ back\nline, é').inc()
    u.labels("").inc(2)
    return c, g, h, s


# ---------------------------------------------- the same as prometheus_client
mine = same_ops(sc, None)
theirs_reg = pc.CollectorRegistry()
same_ops(pc, theirs_reg)
check(sc.flush(int(DEADLINE * 1000)), "flush() returns True")
check(sc.dropped() == 0, "nothing dropped (%d)" % sc.dropped())

want, want_fams = parse(pc.generate_latest(theirs_reg).decode(), "app_")
want = {k: v for k, v in want.items() if not k[0].endswith("_created")}
want_fams = {k: v for k, v in want_fams.items() if not k.endswith("_created")}
got, got_fams = scrape(port, "app_")
quantiles = {k: v for k, v in got.items() if ("quantile", "0.5") in k[1] or
             ("quantile", "0.9") in k[1] or ("quantile", "0.99") in k[1]}
got = {k: v for k, v in got.items() if k not in quantiles}
for k in sorted(set(want) | set(got), key=str):
    check(k in got and k in want and got[k] == want[k],
          "sample %s %s: statsd has %r, prometheus_client %r" % (
              k[0], dict(k[1]), got.get(k), want.get(k)))
for f in sorted(set(want_fams) | set(got_fams)):
    check(got_fams.get(f) == want_fams.get(f),
          "family %s: statsd has %r, prometheus_client %r" % (
              f, got_fams.get(f), want_fams.get(f)))
# The summary's t-digest quantiles: of 1..100, within a centroid.
for q, lo, hi in ((0.5, 45, 56), (0.9, 85, 96), (0.99, 95, 100)):
    k = ("app_payload_bytes", frozenset({("kind", "json"),
                                         ("quantile", str(q))}))
    check(k in quantiles and lo <= quantiles[k] <= hi,
          "summary quantile %s of 1..100 is in [%d, %d]: %r" % (
              q, lo, hi, quantiles.get(k)))
# read(): the node's value, as statsd holds it.
c, g, h, s = mine
check(c.labels("/a").read() == 4.0, "read() of a counter: %r" %
      c.labels("/a").read())
check(g.labels("hall").read() == 22.25, "read() of a gauge: %r" %
      g.labels("hall").read())
check(h.labels("/a", "200").read() == (9, 10.710101),
      "read() of a histogram: (count, sum) %r" % (h.labels("/a", "200")
                                                  .read(),))
check(c.labels("/a").kstat.startswith("python:") and
      c.labels("/a").path[:3] == ("prometheus", "counter", "app_requests"),
      "a series is a kstat python:...: %s %r" % (c.labels("/a").kstat,
                                                  c.labels("/a").path))

# kstat_read(): libkstat's view of the same kstat (millionths), and of
# statsd's own.
mod, inst, kname = c.labels("/a").kstat.split(":")
ks = sc.kstat_read(mod, int(inst), kname)
check(len(ks) == 1 and ks[0]["class"] == "prometheus" and
      ks[0]["data"] == {"value.sum": 4000000},
      "kstat_read() of a series: %r" % ks)
ks = sc.kstat_read("statsd", 0, "daemon")
check(len(ks) == 1 and isinstance(ks[0]["data"].get("kstats"), int) and
      isinstance(ks[0]["data"].get("applied"), int),
      "kstat_read() of statsd:0:daemon: %r" % (ks[0]["data"] if ks else ks))


# ------------------------------------------------------ the same exceptions
def raised(f):
    try:
        f()
    except Exception as e:  # what prometheus_client raises, compared
        msg = str(e)
        if msg.startswith("Duplicated timeseries"):
            # A set of names, in no particular order.
            head, _, names = msg.partition(": ")
            msg = "%s: %s" % (head, sorted(ast.literal_eval(names)))
        return (type(e), msg)
    return None


BAD = [
    ("negative increment", lambda m, r: m.Counter(
        "b1", "d", registry=r).inc(-1)),
    ("label count", lambda m, r: m.Counter(
        "b2", "d", ["a", "b"], registry=r).labels("x")),
    ("label names", lambda m, r: m.Counter(
        "b3", "d", ["a"], registry=r).labels(b="x")),
    ("args and kwargs", lambda m, r: m.Counter(
        "b4", "d", ["a", "b"], registry=r).labels("x", b="y")),
    ("no label names", lambda m, r: m.Counter(
        "b5", "d", registry=r).labels("x")),
    ("missing label values", lambda m, r: m.Counter(
        "b6", "d", ["a"], registry=r).inc()),
    ("missing label values (histogram)", lambda m, r: m.Histogram(
        "b7", "d", ["a"], registry=r).observe(1)),
    ("chained labels", lambda m, r: m.Counter(
        "b8", "d", ["a"], registry=r).labels("x").labels("y")),
    ("metric name", lambda m, r: m.Counter("0bad", "d", registry=r)),
    ("label name", lambda m, r: m.Counter("b9", "d", ["a-b"], registry=r)),
    ("reserved label", lambda m, r: m.Counter("b10", "d", ["__x"],
                                              registry=r)),
    ("le on a histogram", lambda m, r: m.Histogram("b11", "d", ["le"],
                                                   registry=r)),
    ("quantile on a summary", lambda m, r: m.Summary(
        "b12", "d", ["quantile"], registry=r)),
    ("unsorted buckets", lambda m, r: m.Histogram(
        "b13", "d", buckets=(1, 0.5), registry=r)),
    ("one bucket", lambda m, r: m.Histogram("b14", "d", buckets=(INF,),
                                            registry=r)),
    ("multiprocess mode", lambda m, r: m.Gauge(
        "b15", "d", multiprocess_mode="nope", registry=r)),
    ("duplicate", lambda m, r: [m.Counter("b16", "d", registry=r),
                                m.Counter("b16", "d", registry=r)]),
    ("inc() of a string", lambda m, r: m.Counter("b17", "d",
                                                 registry=r).inc("x")),
]
INF = float("inf")
for what, f in BAD:
    mine_e = raised(lambda: f(sc, sc.CollectorRegistry()))
    theirs_e = raised(lambda: f(pc, pc.CollectorRegistry()))
    check(mine_e is not None and theirs_e is not None and
          mine_e[0] is theirs_e[0] and (mine_e[1] == theirs_e[1] or
                                        mine_e[0] is TypeError),
          "%s: statsclient raises %r, prometheus_client %r" % (
              what, mine_e, theirs_e))
# What statsd cannot keep is refused, not kept wrong.
nan = float("nan")
for what, f in (("NaN to a counter", lambda: sc.Counter(
        "n1", "d", registry=None).inc(nan)),
        ("NaN to a gauge", lambda: sc.Gauge("n2", "d", registry=None).set(
            nan)),
        ("NaN to a histogram", lambda: sc.Histogram(
            "n3", "d", registry=None).observe(nan)),
        ("inf to a gauge", lambda: sc.Gauge("n4", "d", registry=None).set(
            INF)),
        ("bounds closer than 1e-6", lambda: sc.Histogram(
            "n5", "d", buckets=(1, 1.0000001), registry=None))):
    e = raised(f)
    check(e is not None and e[0] is ValueError, "%s raises ValueError: %r" %
          (what, e))

# A method of another type is an AttributeError (prometheus_client's
# classes lack it); a metric with labels wants its values first.
for what, f, want in (
        ("dec() of a counter", lambda: sc.Counter(
            "a1", "d", registry=None).dec(),
         (AttributeError, "dec() is a gauge's")),
        ("set() of a counter", lambda: sc.Counter(
            "a2", "d", registry=None).set(1),
         (AttributeError, "set() is a gauge's")),
        ("observe() of a gauge", lambda: sc.Gauge(
            "a3", "d", registry=None).observe(1),
         (AttributeError, "observe() is a histogram's or a summary's")),
        ("dec() without label values", lambda: sc.Gauge(
            "a4", "d", ["x"], registry=None).dec(),
         (ValueError, "gauge metric is missing label values"))):
    e = raised(f)
    check(e == want, "%s raises %r: %r" % (what, want, e))


# ------------------------- the Linux statistics infrastructure's (X, Y) pairs
# StatisticInterface is statistic.h's interface, the kstat linux:0:<name>:
# each statistic a definition from the Linux page, fed by add(x, y) and
# inc(x) from four threads; statsd's Linux data lines and libkstat's named
# values hold exact totals.
iface = sc.StatisticInterface("py-iface")
check(iface.kstat == "linux:0:py-iface", "an interface is its kstat: %r" %
      iface.kstat)
val = iface.statistic("bytes_read", "bytes/incidents")
prod = iface.statistic("work", "units/incidents")
rng = iface.statistic("fill", "slots/incidents")
arr = iface.statistic("lat", "ms/incidents")
lst = iface.statistic("sizes", "bytes/incidents")
val.define_value()
prod.define_value(mode="products")
rng.define_range(0, 1000)
arr.define_array(0, 100, 10)
lst.define_list(0, 1 << 20, 4)
stats = (val, prod, rng, arr, lst)
check([st.start() for st in stats] == [False] * 5 and val.start() is True,
      "start() says whether the statistic was on")


def reporter():
    for x in range(1000):
        val.add(x, 2)
        prod.add(x % 10, y=3)
        rng.inc(x % 100)
        arr.inc(x % 50)
        lst.add(512 << (x % 3))


rts = [threading.Thread(target=reporter) for _ in range(4)]
for x in rts:
    x.start()
for x in rts:
    x.join()
check(sc.flush(int(DEADLINE * 1000)) and sc.dropped() == 0,
      "statistics' updates flushed, none dropped (%d)" % sc.dropped())
text = harness.ok(d.call("io.statsd.Scrape", {
    "format": "linux", "selector": "linux:0:py-iface"}),
    "Scrape linux").get("text", "")
check(text.splitlines() == [
    "# linux:0:py-iface", "bytes_read 8000", "work 54000",
    "fill 4000 0 49.500 99",
    "lat <=0 80", "lat <=10 800", "lat <=20 800", "lat <=30 800",
    "lat <=40 800", "lat <=50 720"] + ["lat <=%d 0" % b for b in
                                       range(60, 101, 10)] + [
    "lat >100 0", "sizes 0x200 1336", "sizes 0x400 1332",
    "sizes 0x800 1332"],
    "the Linux data lines of four threads' (X, Y) pairs: %r" % text)
ks = sc.kstat_read("linux", 0, "py-iface")
check(len(ks) == 1 and ks[0]["data"] == {
    "bytes_read.count": 8000, "work.sum": 54000, "fill.count": 4000,
    "fill.sum": 198000, "fill.min": 0, "fill.max": 99},
    "kstat_read() of the interface: %r" % ks)
for what, f, want in (
        ("a statistic's name twice", lambda: iface.statistic("work"),
         ValueError),
        ("a range upside down", lambda: val.define_range(10, 0), ValueError),
        ("no such mode", lambda: val.define_value(mode="sum"), ValueError),
        ("no such scale", lambda: arr.define_array(0, 10, 1, "log10"),
         ValueError),
        ("a negative count", lambda: val.add(1, -1), ValueError),
        ("add() of a keyword not y", lambda: val.add(1, z=1), TypeError),
        ("a float X", lambda: val.inc(0.5), TypeError),
        ("an X past 64 bits", lambda: val.inc(1 << 63), OverflowError),
        ("an interface name with ':'", lambda: sc.StatisticInterface("a:b"),
         ValueError),
        ("a Statistic made directly", lambda: sc.Statistic(), TypeError)):
    e = raised(f)
    check(e is not None and e[0] is want, "%s raises %s: %r" % (
        what, want.__name__, e))
check(val.stop() is True and val.stop() is False, "stop() says whether it "
      "was on")
prod.reset()
lst.remove()
check(lst.removed and not prod.removed, "remove() marks a statistic removed")
e = raised(lambda: lst.inc(1))
check(e is not None and e[0] is ValueError, "a removed statistic's inc() "
      "raises ValueError: %r" % (e,))
text = harness.ok(d.call("io.statsd.Scrape", {
    "format": "linux", "selector": "linux:0:py-iface"}),
    "Scrape linux").get("text", "")
check("work 0" in text.splitlines() and "bytes_read 8000" in
      text.splitlines() and "sizes" not in text,
      "reset() zeroes one statistic, remove() takes one away: %r" % text)
iface.remove()
check(all(st.removed for st in stats) and
      sc.kstat_read("linux", 0, "py-iface") == [],
      "an interface's remove() takes its kstat and statistics")


# ----------------------------------------- time() and count_exceptions()
t = sc.Histogram("app_timed_seconds", "d", ["how"], buckets=(1000,))
ts = sc.Summary("app_timed_s_seconds", "d")
tg = sc.Gauge("app_timed_g_seconds", "d")
ex = sc.Counter("app_failures", "d", ["where"])
busy = sc.Gauge("app_busy", "d")


@t.labels("decorator").time()
@ex.labels("decorator").count_exceptions(ValueError)
def work(fail):
    if fail:
        raise ValueError("no")
    return 42


@busy.track_inprogress()
def tracked():
    return busy.read()


for i in range(10):
    try:
        check(work(i % 3 == 0) == 42, "a decorated function returns its "
              "value")
    except ValueError:
        pass
with t.labels("with").time():
    pass
with ts.time():
    pass
with tg.time():
    pass
for i in range(5):
    try:
        with ex.labels("with").count_exceptions():
            if i % 2 == 0:
                raise KeyError(i)
    except KeyError:
        pass
try:
    with ex.labels("with").count_exceptions(ValueError):
        raise KeyError("not counted")
except KeyError:
    pass
tracked()
check(sc.flush(int(DEADLINE * 1000)), "flush() after the timers")
got, _ = scrape(port, "app_")


def sample(name, **labels):
    return got.get((name, frozenset(labels.items())))


check(sample("app_timed_seconds_count", how="decorator") == 10,
      "time() as a decorator observes each call, raising or not: %r" %
      sample("app_timed_seconds_count", how="decorator"))
check(sample("app_timed_seconds_count", how="with") == 1,
      "time() as a context manager observes once")
check(sample("app_timed_s_seconds_count") == 1, "a summary's time()")
check(sample("app_timed_g_seconds") is not None and
      0 <= sample("app_timed_g_seconds") < DEADLINE, "a gauge's time() sets "
      "it to the seconds elapsed: %r" % sample("app_timed_g_seconds"))
check(sample("app_failures_total", where="decorator") == 4,
      "count_exceptions() as a decorator: %r" %
      sample("app_failures_total", where="decorator"))
check(sample("app_failures_total", where="with") == 3,
      "count_exceptions() as a context manager counts its type only: %r" %
      sample("app_failures_total", where="with"))
check(sample("app_busy") == 0, "track_inprogress() is back to 0: %r" %
      sample("app_busy"))

# ------------------------------------------------------ threads and asyncio
th = sc.Counter("app_threads", "d", ["t"])
thh = sc.Histogram("app_threads_seconds", "d", buckets=(0.5,))
NT, NI = 8, 20000


def worker(k):
    mine_c = th.labels(str(k % 2))
    for i in range(NI):
        mine_c.inc()
        thh.observe(i % 2)


ths = [threading.Thread(target=worker, args=(k,)) for k in range(NT)]
for x in ths:
    x.start()
for x in ths:
    x.join()
ac = sc.Counter("app_async", "d")


async def task(n):
    for i in range(n):
        ac.inc()
        await asyncio.sleep(0)


async def main():
    await asyncio.gather(*(task(500) for _ in range(20)))


asyncio.run(main())
check(sc.flush(int(DEADLINE * 1000)), "flush() after the threads")
got, _ = scrape(port, "app_")
for k in ("0", "1"):
    check(sample("app_threads_total", t=k) == NT * NI / 2,
          "%d threads: exact total %r" % (NT, sample("app_threads_total",
                                                     t=k)))
check(sample("app_threads_seconds_bucket", le="0.5") == NT * NI / 2 and
      sample("app_threads_seconds_count") == NT * NI,
      "threads: exact histogram counts")
check(sample("app_async_total") == 20 * 500, "asyncio tasks: exact total")
check(sc.dropped() == 0, "nothing dropped by threads (%d)" % sc.dropped())

# ----------------------------------------------------------------- fork
fk = sc.Counter("app_forked", "d", ["who"])
fk.labels("parent").inc()
pg = sc.Gauge("app_worker_pid", "d", multiprocess_mode="all")
pg.set(1)
ng = sc.Gauge("app_node_level", "d")
ng.set(100)
kids = []
for i in range(4):
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            for j in range(5000):
                fk.labels("parent").inc()
                fk.labels("child").inc()
            pg.set(os.getpid())
            ng.inc()
            if not sc.flush(int(DEADLINE * 1000)) or sc.dropped() != 0:
                code = 3
        except BaseException:
            code = 4
        os._exit(code)
    kids.append(pid)
codes = [os.waitpid(p, 0)[1] for p in kids]
check(codes == [0] * 4, "fork children flush with nothing dropped: %r" %
      codes)
got, _ = scrape(port, "app_")
check(sample("app_forked_total", who="parent") == 20001 and
      sample("app_forked_total", who="child") == 20000,
      "a series made before fork() counts every child's updates: %r %r" %
      (sample("app_forked_total", who="parent"),
       sample("app_forked_total", who="child")))
pids = {dict(k[1]).get("pid"): v for k, v in got.items()
        if k[0] == "app_worker_pid"}
check(pids == dict([(str(os.getpid()), 1.0)] +
                   [(str(p), float(p)) for p in kids]),
      "multiprocess_mode='all': one series per process, labelled pid: %r" %
      pids)
check(sample("app_node_level") == 104, "a node gauge: one value that every "
      "process moved: %r" % sample("app_node_level"))

# A fork that runs no Python hook, as uWSGI forks its workers (libc's
# fork(), through ctypes): the child's first update, of a series made
# before the fork, connects it instead of being dropped.
CFORK = r"""
import ctypes, os
import statsclient as sc
pre = sc.Counter("app_cfork", "d")
lvl = sc.Gauge("app_cfork_level", "d")
st = sc.StatisticInterface("py-cfork").statistic("n")
st.define_value()
st.start()
pre.inc()
fork = ctypes.CDLL(None, use_errno=True).fork
kids = []
for k in range(3):
    pid = fork()
    if pid == 0:
        lvl.inc()
        st.add(1, 5)
        for i in range(100):
            pre.inc()
        ok = sc.flush(30000) and sc.dropped() == 0
        os._exit(0 if ok else 3)
    kids.append(pid)
print([os.waitpid(p, 0)[1] for p in kids])
"""
p = harness.run([sys.executable, "-c", CFORK], capture_output=True,
                text=True, timeout=DEADLINE * 4)
got, _ = scrape(port, "app_")
ks = sc.kstat_read("linux", 0, "py-cfork")
check(p.stdout.split() == ["[0,", "0,", "0]"] and
      got.get(("app_cfork_total", frozenset())) == 301 and
      got.get(("app_cfork_level", frozenset())) == 3 and
      len(ks) == 1 and ks[0]["data"] == {"n.count": 15},
      "children of a fork without Python's hooks drop no first update: "
      "%r %r %r %r" % (p.stdout, p.stderr[-300:],
                       got.get(("app_cfork_level", frozenset())), ks))

# A worker that stays idle past statsd's idle_timeout_ms (gunicorn's
# workers wait for requests) has its connection closed; its first updates
# after that were dropped. (The 1 s sleep only makes the close likely; a
# machine too slow to close it in time passes without the case.)
IDLE = r"""
import os, sys, time
import statsclient as sc
pre = sc.Counter("app_idle_pre", "d")
pre.inc()
pid = os.fork()
if pid == 0:
    time.sleep(1)
    new = sc.Counter("app_idle_new", "d", ["k"])
    for i in range(1000):
        pre.inc()
        new.labels("x").inc()
    ok = sc.flush(30000) and sc.dropped() == 0
    os._exit(0 if ok else 3)
_, st = os.waitpid(pid, 0)
print(st)
"""
d3, port3 = http_daemon("idle_timeout_ms = 100\n")
p = harness.run([sys.executable, "-c", IDLE], capture_output=True,
                text=True, timeout=DEADLINE * 4,
                env=dict(os.environ, STATSD_SOCKET=d3.sock))
got, _ = scrape(port3, "app_")
check(p.stdout.split() == ["0"] and
      got.get(("app_idle_pre_total", frozenset())) == 1001 and
      got.get(("app_idle_new_total", frozenset({("k", "x")}))) == 1000,
      "a fork child idle past idle_timeout_ms drops nothing: %r %r %r" % (
          p.stdout, p.stderr[-300:], got))

# --------------------------------------------- no statsd, and a dead statsd
NOSTATSD = r"""
import os, sys
import statsclient as sc
c = sc.Counter("app_absent", "d", ["x"])
h = sc.Histogram("app_absent_seconds", "d")
for i in range(1000):
    c.labels(str(i % 3)).inc()
    h.observe(i)
print(sc.dropped(), sc.pushed(), sc.connected(), c.labels("0").published,
      c.labels("0").dropped, bool(c.labels("0").error))
"""
tmp = mkdtemp()
p = harness.run([sys.executable, "-c", NOSTATSD], capture_output=True,
                text=True, timeout=DEADLINE * 4,
                env=dict(os.environ, STATSD_SOCKET=os.path.join(
                    tmp, "nothing.sock")))
check(p.returncode == 0 and p.stdout.split() == [
    "2000", "2000", "False", "False", "334", "True"],
      "without statsd nothing raises and every update is dropped and "
      "counted: %r %r" % (p.stdout, p.stderr[-500:]))

# The Linux statistics without statsd: add() and inc() neither raise nor
# block, and are counted as dropped; a definition, which needs statsd's
# answer, raises OSError (ENOTCONN).
NOSTATSD_XY = r"""
import errno
import statsclient as sc
st = sc.StatisticInterface("absent").statistic("x", "a/b")
for i in range(100):
    st.add(i, 2)
    st.inc(i)
try:
    st.define_value()
    e = None
except OSError as x:
    e = x.errno == errno.ENOTCONN
print(sc.dropped(), sc.pushed(), sc.connected(), e)
"""
p = harness.run([sys.executable, "-c", NOSTATSD_XY], capture_output=True,
                text=True, timeout=DEADLINE * 4,
                env=dict(os.environ, STATSD_SOCKET=os.path.join(
                    tmp, "nothing.sock")))
check(p.returncode == 0 and p.stdout.split() == [
    "200", "200", "False", "True"],
      "without statsd a statistic's updates are dropped and counted, and a "
      "definition raises OSError: %r %r" % (p.stdout, p.stderr[-500:]))

DEAD = r"""
import os, sys
import statsclient as sc
c = sc.Counter("app_dead", "d")
c.inc()
print("ready", sc.flush(10000), flush=True)
sys.stdin.readline()
for i in range(1000):
    c.inc()
print(sc.pushed(), flush=True)
"""
d2, port2 = http_daemon()
p = harness.spawn([sys.executable, "-c", DEAD], stdin=subprocess.PIPE,
                  stdout=subprocess.PIPE, text=True,
                  env=dict(os.environ, STATSD_SOCKET=d2.sock))
check(p.stdout.readline().split() == ["ready", "True"],
      "a client of a statsd to be killed is ready")
d2.kill9()
p.stdin.write("go\n")
p.stdin.flush()
line = p.stdout.readline().split()
check(line == ["1001"], "updates after statsd died neither raise nor block: "
      "%r" % line)
p.stdin.close()
p.wait(timeout=DEADLINE)
check(p.returncode == 0, "the client of a dead statsd exits 0")
check(sc.dropped() == 0, "this process dropped nothing (%d)" % sc.dropped())
finish()
