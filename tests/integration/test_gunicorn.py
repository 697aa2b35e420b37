# SPDX-License-Identifier: BSD-2-Clause
"""test_gunicorn.py: a real gunicorn (Debian's) serving
examples/gunicorn_app.py with 8 sync workers and --max-requests, so that
workers exit and are forked again during the run, driven by a known number
of HTTP requests per route. Afterwards every counter and histogram count
in statsd's /metrics is exact: one series per route for the node, however
many workers served it.

Then the same with SIGKILL: between rounds of requests, random workers are
killed (gunicorn forks new ones); whatever a killed worker pushed before
it died is in the totals. The kills fall between rounds, while no request
is in flight, so that every request answered was counted and none was
half-served: exact totals, not bounds.

The application's metrics are made in the master (--preload), before the
workers are forked."""
import http.client
import os
import random
import shutil
import signal
import sys
import threading

sys.path.insert(0, os.path.dirname(__file__))
from harness import (DEADLINE, SRCDIR, check, finish, free_port,  # noqa
                     spawn, wait_for)
from pyscrape import http_daemon, scrape  # noqa: E402

GUNICORN = shutil.which("gunicorn")
if GUNICORN is None:
    check(False, "gunicorn (Debian's package) is installed (tools/deps.sh)")
    finish()

ROUTES = {"/a": "0.002", "/bb": "0.003", "/ccc": "0.1"}   # route: its le
WORKERS = 8
CLIENTS = 4


def start_gunicorn(d, max_requests):
    port = free_port()
    env = dict(os.environ, STATSD_SOCKET=d.sock)
    p = spawn([GUNICORN, "--workers", str(WORKERS), "--worker-class",
               "sync", "--max-requests", str(max_requests),
               "--max-requests-jitter", "0", "--preload",
               "--graceful-timeout", "5", "--bind", "127.0.0.1:%d" % port,
               "--chdir", os.path.join(SRCDIR, "examples"),
               "gunicorn_app:app"], env=env,
              stdout=open(os.devnull, "w"),
              stderr=open(os.path.join(d.tmp, "gunicorn.log"), "w"))
    wait_for(lambda: get(port, "/ready", count=False) is not None,
             "gunicorn answering on port %d" % port, deadline=DEADLINE * 2)
    return p, port


answered = {}
pids_seen = set()
lock = threading.Lock()


def get(port, route, count=True):
    """One request on its own connection; the worker's pid, or None."""
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=DEADLINE)
        c.request("GET", route)
        r = c.getresponse()
        body = r.read().decode()
        c.close()
    except OSError:
        return None
    if r.status != 200 or not body.startswith(route + " "):
        return None
    pid = int(body.split()[1])
    if count:
        with lock:
            answered[route] = answered.get(route, 0) + 1
            pids_seen.add(pid)
    return pid


def load(port, n):
    """n requests per route from CLIENTS threads; returns how many failed."""
    jobs = [r for r in ROUTES for _ in range(n)]
    random.shuffle(jobs)
    failed = []

    def client(part):
        for r in part:
            if get(port, r) is None:
                failed.append(r)
    ts = [threading.Thread(target=client, args=(jobs[k::CLIENTS],))
          for k in range(CLIENTS)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return len(failed)


def workers(master):
    """The master's live children (not the zombies of killed workers it
    has not reaped yet)."""
    try:
        with open("/proc/%d/task/%d/children" % (master, master)) as f:
            pids = [int(x) for x in f.read().split()]
    except OSError:
        return []
    live = []
    for pid in pids:
        try:
            with open("/proc/%d/stat" % pid) as f:
                if f.read().rpartition(")")[2].split()[0] not in "ZX":
                    live.append(pid)
        except OSError:
            pass
    return live


def expect(port, what):
    """Wait until /metrics holds the answered totals (statsd drains the
    rings of exited and killed workers as it drains any), then check
    each exactly."""
    def sample(got, name, **labels):
        return got.get((name, frozenset(labels.items())))

    def matches():
        got, _ = scrape(port, "app_")
        return all(sample(got, "app_requests_total", route=r) ==
                   answered.get(r, 0) for r in ROUTES) and got
    got = wait_for(matches, "%s: the totals in /metrics" % what,
                   deadline=DEADLINE * 2) or scrape(port, "app_")[0]
    for r, le in ROUTES.items():
        n = answered.get(r, 0)
        check(sample(got, "app_requests_total", route=r) == n,
              "%s: app_requests_total{route=%r} is %d: %r" % (
                  what, r, n, sample(got, "app_requests_total", route=r)))
        check(sample(got, "app_request_seconds_count", route=r) == n,
              "%s: app_request_seconds_count{route=%r} is %d: %r" % (
                  what, r, n, sample(got, "app_request_seconds_count",
                                     route=r)))
        for b in ("0.002", "0.003", "0.1", "+Inf"):
            want = n if float(b) >= float(le) else 0
            check(sample(got, "app_request_seconds_bucket", route=r,
                         le=b) == want,
                  "%s: bucket %s of %r is %d: %r" % (
                      what, b, r, want, sample(
                          got, "app_request_seconds_bucket", route=r,
                          le=b)))
        check(abs(sample(got, "app_request_seconds_sum", route=r) -
                  n * (len(r) / 1000.0)) < 1e-6,
              "%s: the sum of %r is %d x %g" % (what, r, n, len(r) / 1000))
    check(sample(got, "app_starts_total") == 1,
          "%s: the master loaded the app once: %r" % (
              what, sample(got, "app_starts_total")))
    check(sample(got, "app_errors_total") == 0, "%s: no request raised" %
          what)
    check(sample(got, "app_in_flight") == 0, "%s: no request in flight" %
          what)
    return got


# ---------------------------------------------- restarting workers (max)
N = 300
d, mport = http_daemon()
g, port = start_gunicorn(d, max_requests=40)
failed = load(port, N)
check(failed == 0, "every request is answered (%d failed)" % failed)
check(len(pids_seen) > WORKERS, "workers restarted during the run: %d "
      "worker pids served" % len(pids_seen))
expect(port=mport, what="max-requests")
g.send_signal(signal.SIGTERM)
g.wait(timeout=DEADLINE)

# -------------------------------------------------- workers killed with -9
answered.clear()
pids_seen.clear()
d2, mport2 = http_daemon()
g2, port2 = start_gunicorn(d2, max_requests=60)
rng = random.Random(23)
kills = 0
for rnd in range(10):
    failed = load(port2, 30)
    check(failed == 0, "round %d: every request is answered" % rnd,
          count=False)
    live = workers(g2.pid)
    killed = rng.sample(live, min(3, len(live)))
    for pid in killed:
        try:
            os.kill(pid, signal.SIGKILL)
            kills += 1
        except ProcessLookupError:
            pass
    # gunicorn forks replacements (a worker restarting for
    # --max-requests may make it 9 for a moment).
    wait_for(lambda: len(workers(g2.pid)) >= WORKERS and
             not set(killed) & set(workers(g2.pid)),
             "gunicorn back to %d workers" % WORKERS, deadline=DEADLINE * 2)
check(kills >= 20, "%d workers were killed with SIGKILL" % kills)
expect(port=mport2, what="SIGKILL")
g2.send_signal(signal.SIGTERM)
g2.wait(timeout=DEADLINE)
finish()
