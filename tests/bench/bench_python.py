#!/usr/bin/python3
# SPDX-License-Identifier: BSD-2-Clause
"""bench_python.py: the Python module statsclient side by side with
python3-prometheus-client, single-process and in its multiprocess mode, in
one run.

1. Update cost: ns per inc() of a counter series and per observe() of a
   histogram series (prometheus_client's default buckets), the series
   bound once (labels() outside the loop), the best of several timed
   loops of a million calls, each library in a process of its own.
2. Scrape after worker restarts: 1, 64 and 1,024 workers, forked one
   after the other as a pre-fork server restarts them, each making 50
   metrics (25 counters and 25 histograms, one series each), updating
   each once and exiting. Then the node's metrics are scraped: for
   statsclient, statsd's GET /metrics; for multiprocess mode, what its
   documented /metrics handler does (a registry with a
   MultiProcessCollector over PROMETHEUS_MULTIPROC_DIR, generate_latest()).
   The median of 5 scrapes, its size, and whether every counter total is
   the number of workers (exact) are printed.

usage: python3 tests/bench/bench_python.py [BUILDDIR]
Starts its own statsd (BUILDDIR/src/daemon/statsd) through the
integration harness, and imports statsclient from BUILDDIR/bindings/python.
Not run by meson test: its figures depend on the machine and its load.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
top = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(top, "tests", "integration"))
os.environ.setdefault("STATSD", os.path.join(build, "src", "daemon",
                                             "statsd"))
os.environ["PYTHONPATH"] = os.path.join(build, "bindings", "python") + (
    ":" + os.environ["PYTHONPATH"] if os.environ.get("PYTHONPATH") else "")
sys.path.insert(0, os.path.join(build, "bindings", "python"))

import harness  # noqa: E402
from pyscrape import get_metrics, http_daemon, parse  # noqa: E402

UPDATE = r"""
import os, sys, timeit
lib = sys.argv[1]
if lib == "statsclient":
    import statsclient as m
else:
    import prometheus_client as m
    if lib == "multiprocess":
        from prometheus_client import values
        assert values.ValueClass is not values.MutexValue, "not multiprocess"
kw = {} if lib == "statsclient" else {"registry": None}
cf = m.Counter("bench_requests", "d", ["route"], **kw)
hf = m.Histogram("bench_seconds", "d", ["route"], **kw)
c, h = cf.labels("/a"), hf.labels("/a")
inc, observe = c.inc, h.observe
N = int(os.environ.get("BENCH_N", "1000000"))
def best(stmt):
    return min(timeit.repeat(stmt, number=N, repeat=5, globals=globals())) / N
t_inc = best("inc()")
t_obs = best("observe(0.042)")
# Exact: the counter and the histogram's count hold every call (the
# timed loops and timeit's own), as each library reads them back.
want = 5 * N
if lib == "statsclient":
    m.flush(60000)
    ok = m.dropped() == 0 and c.read() == want and h.read()[0] == want
else:
    got = {s.name: s.value for f in (cf, hf) for s in
           f.collect()[0].samples}
    ok = got["bench_requests_total"] == want and \
        got["bench_seconds_count"] == want
print(t_inc * 1e9, t_obs * 1e9, ok)
"""


def updates(lib, env):
    p = subprocess.run([sys.executable, "-c", UPDATE, lib], env=env,
                       capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        print(p.stderr, file=sys.stderr)
        raise SystemExit("%s: the update benchmark failed" % lib)
    a, b, ok = p.stdout.split()
    return float(a), float(b), ok == "True"


WORKERS = r"""
import os, sys
lib, n = sys.argv[1], int(sys.argv[2])
if lib == "statsclient":
    import statsclient as m
else:
    import prometheus_client as m
kw = {} if lib == "statsclient" else {"registry": None}
for w in range(n):
    pid = os.fork()
    if pid == 0:
        for i in range(25):
            m.Counter("work_c%02d" % i, "d", ["k"], **kw).labels("x").inc()
            m.Histogram("work_h%02d_seconds" % i, "d", ["k"],
                        **kw).labels("x").observe(0.01 * i)
        if lib == "statsclient":
            m.flush(60000)
        os._exit(0)
    _, st = os.waitpid(pid, 0)
    assert st == 0, st
"""


def restarts(lib, n, env):
    p = subprocess.run([sys.executable, "-c", WORKERS, lib, str(n)], env=env,
                       capture_output=True, text=True, timeout=3600)
    if p.returncode != 0:
        print(p.stderr, file=sys.stderr)
        raise SystemExit("%s: the workers failed" % lib)


SCRAPE_MP = r"""
import sys, time
from prometheus_client import CollectorRegistry, generate_latest, multiprocess
ts = []
for i in range(5):
    t = time.perf_counter()
    reg = CollectorRegistry()
    multiprocess.MultiProcessCollector(reg)
    text = generate_latest(reg)
    ts.append(time.perf_counter() - t)
sys.stdout.write(text.decode())
print("#TIME", sorted(ts)[2])
"""


def scrape_mp(env):
    p = subprocess.run([sys.executable, "-c", SCRAPE_MP], env=env,
                       capture_output=True, text=True, timeout=3600)
    text, _, t = p.stdout.rpartition("#TIME ")
    return float(t), text


def scrape_statsd(port):
    ts = []
    for i in range(5):
        t = time.perf_counter()
        text = get_metrics(port)
        ts.append(time.perf_counter() - t)
    return sorted(ts)[2], text


def exact(text, n):
    s, _ = parse(text, "work_")
    want = [("work_c%02d_total" % i, frozenset({("k", "x")}))
            for i in range(25)] + [
        ("work_h%02d_seconds_count" % i, frozenset({("k", "x")}))
        for i in range(25)]
    return all(s.get(k) == n for k in want)


def main():
    base = dict(os.environ)
    base.pop("PROMETHEUS_MULTIPROC_DIR", None)
    d, port = http_daemon()
    sc_env = dict(base, STATSD_SOCKET=d.sock)
    mpdir = tempfile.mkdtemp(prefix="bench-mp-")
    mp_env = dict(base, PROMETHEUS_MULTIPROC_DIR=mpdir)

    print("Update cost, ns per call (best of 5 loops of %d; lower is better)"
          % int(os.environ.get("BENCH_N", "1000000")))
    rows = [("statsclient", updates("statsclient", sc_env)),
            ("prometheus_client", updates("single", base)),
            ("prometheus_client multiprocess", updates("multiprocess",
                                                       mp_env))]
    sc_inc, sc_obs = rows[0][1][0], rows[0][1][1]
    print("%-32s %9s %9s %11s %11s %s" % ("", "inc()", "observe()",
                                         "inc ratio", "obs ratio",
                                         "exact"))
    for name, (i, o, ok) in rows:
        print("%-32s %9.0f %9.0f %10.1fx %10.1fx %s" % (
            name, i, o, i / sc_inc, o / sc_obs, "yes" if ok else "NO"))
    print("(ratio: the row's cost over statsclient's)")
    print()

    print("Scrape after worker restarts, 50 metrics per worker "
          "(median of 5)")
    print("%-9s %14s %10s %6s %16s %10s %6s %9s" % (
        "restarts", "statsclient ms", "bytes", "exact",
        "multiprocess ms", "bytes", "exact", "mp/sc"))
    done = 0
    shutil.rmtree(mpdir)
    os.mkdir(mpdir)
    for n in [int(x) for x in os.environ.get(
            "BENCH_RESTARTS", "1,64,1024").split(",")]:
        restarts("statsclient", n - done, sc_env)
        restarts("multiprocess", n - done, mp_env)
        done = n
        t_sc, text_sc = scrape_statsd(port)
        t_mp, text_mp = scrape_mp(mp_env)
        print("%-9d %14.2f %10d %6s %16.2f %10d %6s %8.1fx" % (
            n, t_sc * 1e3, len(text_sc), "yes" if exact(text_sc, n) else
            "NO", t_mp * 1e3, len(text_mp), "yes" if exact(text_mp, n) else
            "NO", t_mp / t_sc))
        sys.stdout.flush()
    print("(statsd's page also holds its own statsd_* families; "
          "files in the multiprocess directory: %d)" % len(os.listdir(mpdir)))
    shutil.rmtree(mpdir, ignore_errors=True)
    harness.cleanup_all()


if __name__ == "__main__":
    main()
