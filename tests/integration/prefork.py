# SPDX-License-Identifier: BSD-2-Clause
"""prefork.py: what test_gunicorn.py and test_uwsgi.py share: a pre-fork
server serving examples/gunicorn_app.py (metrics made in the master,
before the workers are forked), driven by a known number of HTTP requests
per route, its workers restarting (max requests) or killed with SIGKILL
between rounds; afterwards every counter and histogram count in statsd's
/metrics must be exact.

A test gives a start(daemon, max_requests) that starts its server on a
free port with WORKERS workers and returns (process, port), its master's
pid being process.pid."""
import http.client
import os
import random
import signal
import subprocess
import threading

from harness import DEADLINE, check, wait_for
from pyscrape import http_daemon, scrape

ROUTES = {"/a": "0.002", "/bb": "0.003", "/ccc": "0.1"}   # route: its le
WORKERS = 8
CLIENTS = 4

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


def wait_ready(port, what):
    """Wait until the server answers (a request not counted in the
    routes' totals: its route is /ready)."""
    wait_for(lambda: get(port, "/ready", count=False) is not None,
             "%s answering on port %d" % (what, port),
             deadline=DEADLINE * 2)


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
    # Each request's inc() and dec(): a worker's first update dropped
    # would leave it off 0.
    check(sample(got, "app_in_flight") == 0, "%s: no request in flight: "
          "%r" % (what, sample(got, "app_in_flight")))
    return got


def restarts(start, what, n=300, max_requests=40):
    """n requests per route while workers exit after max_requests and
    the master forks new ones: exact totals."""
    answered.clear()
    pids_seen.clear()
    d, mport = http_daemon()
    server, port = start(d, max_requests)
    failed = load(port, n)
    check(failed == 0, "%s: every request is answered (%d failed)" % (
        what, failed))
    check(len(pids_seen) > WORKERS, "%s: workers restarted during the "
          "run: %d worker pids served" % (what, len(pids_seen)))
    expect(port=mport, what="%s, max requests" % what)
    stop(server)


def kills(start, what, rounds=10, n=30, max_requests=60):
    """rounds of n requests per route; after each, up to three random
    workers are killed with SIGKILL (the master forks new ones). The
    kills fall between rounds, while no request is in flight, so that
    every request answered was counted and none was half-served: exact
    totals, not bounds."""
    answered.clear()
    pids_seen.clear()
    d, mport = http_daemon()
    server, port = start(d, max_requests)
    rng = random.Random(23)
    killed_n = 0
    for rnd in range(rounds):
        failed = load(port, n)
        check(failed == 0, "%s: round %d: every request is answered" % (
            what, rnd), count=False)
        live = workers(server.pid)
        killed = rng.sample(live, min(3, len(live)))
        for pid in killed:
            try:
                os.kill(pid, signal.SIGKILL)
                killed_n += 1
            except ProcessLookupError:
                pass
        # The master forks replacements (a worker restarting for max
        # requests may make it one more for a moment).
        wait_for(lambda: len(workers(server.pid)) >= WORKERS and
                 not set(killed) & set(workers(server.pid)),
                 "%s back to %d workers" % (what, WORKERS),
                 deadline=DEADLINE * 2)
    check(killed_n >= 2 * rounds, "%s: %d workers were killed with "
          "SIGKILL" % (what, killed_n))
    expect(port=mport, what="%s, SIGKILL" % what)
    stop(server)


def stop(server):
    """SIGTERM, as an operator stops the server. A master still there
    after DEADLINE is killed with its workers: uWSGI can miss a worker
    it forks again while it stops (the worker waits for requests until
    its master is gone), and the totals were checked already."""
    server.send_signal(signal.SIGTERM)
    try:
        server.wait(timeout=DEADLINE)
        return
    except subprocess.TimeoutExpired:
        pass
    for pid in workers(server.pid) + [server.pid]:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    server.wait(timeout=DEADLINE)
