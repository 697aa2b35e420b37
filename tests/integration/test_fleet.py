# SPDX-License-Identifier: BSD-2-Clause
"""test_fleet.py: a fleet of three statsd instances (three UDP and three
HTTP ports on loopback) fed known statsd counters and timers, scraped by
Debian's Prometheus 2.42 every second, once with
--enable-feature=native-histograms and once without; Prometheus' HTTP API
answers PromQL over the fleet:

- sum(rate(counter[1h])) equals, to the last bits of a double, the rate
  Prometheus' own extrapolation gives over the raw samples it holds
  (fetched as a range vector at the same evaluation time);
- without native histograms (the text format): the sums of the timers'
  _count and _sum are the exact count and sum of every value sent (in
  seconds, from milliseconds), and histogram_quantile(0.99, sum by (le)
  (rate(..._bucket[1h]))) lies in the classic bucket that holds the true
  p99 of the union of the values;
- with them (Prometheus asks for the protobuf format, and statsd answers
  it): histogram_count and histogram_sum of the fleet's summed native
  histogram are the exact count and sum, and its histogram_quantile(0.99)
  is within the schema's error (a bucket's width, 2^(1/8) at schema 3) of
  the true p99.

Every wait polls with a deadline; every process dies with the test."""
import json
import math
import os
import re
import shutil
import socket
import sys
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
from harness import (Daemon, check, finish, free_port, read_data,  # noqa
                     spawn, wait_for, DEADLINE)

PROMETHEUS = shutil.which("prometheus")
if PROMETHEUS is None:
    print("prometheus (Debian's package) not found")
    check(False, "prometheus is installed (tools/deps.sh)")
    finish()

LONG = max(DEADLINE, 60)
N = 3
# Each round sends each instance i: the counter fleet.req (i + 1) * 10
# times 1, and 100 timer values: 90 of 3 ms, 5 of 30 ms, 5 of 300 ms.
# The union's p99 (rank 0.99 n) lies among the 300 ms values, in the
# bucket (0.25, 0.5]; the buckets below it hold 95 % of the values.
TIMER = [3] * 90 + [30] * 5 + [300] * 5
P99_BUCKET = (0.25, 0.5)
SCHEMA = 3      # statsd_native_schema's default


class Node:
    def __init__(self, i):
        self.udp = free_port(socket.SOCK_DGRAM)
        self.d = Daemon(config="http_listen = 127.0.0.1:0\n"
                        "statsd_udp = 127.0.0.1:%d\n" % self.udp,
                        name="statsd%d" % i).start()
        self.http = wait_for(lambda: (lambda m: m and int(m.group(1)))(
            re.search(r"http: serving /metrics on 127\.0\.0\.1 port (\d+)",
                      self.d.stderr())), "statsd%d's HTTP port" % i)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sent = 0
        self.req = 0
        self.count = 0
        self.sum_ms = 0

    def send(self, text):
        self.sock.sendto(text.encode(), ("127.0.0.1", self.udp))
        self.sent += 1
        want = self.sent
        wait_for(lambda: read_data(self.d, "statsd", 0, "daemon")
                 ["statsd_datagrams"] >= want, "statsd to read a datagram")

    def round(self, i):
        self.send("fleet.req:1|c\n" * ((i + 1) * 10))
        self.send("".join("fleet.lat:%d|ms\n" % v for v in TIMER))
        self.req += (i + 1) * 10
        self.count += len(TIMER)
        self.sum_ms += sum(TIMER)


nodes = [Node(i) for i in range(N)]


def start_prometheus(native, tag):
    web = free_port()
    pdir = os.path.join(nodes[0].d.tmp, "prometheus-" + tag)
    os.makedirs(pdir)
    conf = os.path.join(pdir, "prometheus.yml")
    with open(conf, "w") as f:
        f.write("""global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: fleet
    static_configs:
      - targets: [%s]
""" % ", ".join("'127.0.0.1:%d'" % n.http for n in nodes))
    log = open(os.path.join(pdir, "log"), "wb")
    argv = [PROMETHEUS, "--config.file=" + conf,
            "--storage.tsdb.path=" + os.path.join(pdir, "data"),
            "--web.listen-address=127.0.0.1:%d" % web, "--log.level=warn"]
    if native:
        argv.append("--enable-feature=native-histograms")
    p = spawn(argv, stdout=log, stderr=log, cwd=pdir)
    return p, web


def api(web, query, t=None):
    args = {"query": query}
    if t is not None:
        args["time"] = "%.3f" % t
    url = "http://127.0.0.1:%d/api/v1/query?%s" % (
        web, urllib.parse.urlencode(args))
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            j = json.load(r)
    except OSError:
        return None
    return j["data"] if j.get("status") == "success" else None


def scalar(web, query, t=None):
    r = api(web, query, t)
    if r is None or len(r["result"]) != 1:
        return None
    return float(r["result"][0]["value"][1])


def by_instance(web, query):
    r = api(web, query)
    if r is None:
        return {}
    return {s["metric"]["instance"]: float(s["value"][1])
            for s in r["result"]}


def scraped(web, native):
    """Has Prometheus the values of the last round of every node?"""
    req = by_instance(web, "statsd_fleet_req_total")
    cnt = by_instance(web, "histogram_count(statsd_fleet_lat_seconds)"
                      if native else "statsd_fleet_lat_seconds_count")
    return all(req.get("127.0.0.1:%d" % n.http) == n.req and
               cnt.get("127.0.0.1:%d" % n.http) == n.count for n in nodes)


def extrapolated_rate(points, t_ms, range_s):
    """rate() as Prometheus 2.42 computes it (promql/functions.go,
    extrapolatedRate) over one series' points [(t_ms, v)] in the range
    [t_ms - range, t_ms]."""
    if len(points) < 2:
        return None
    start, end = t_ms - range_s * 1000, t_ms
    result = points[-1][1] - points[0][1]
    prev = points[0][1]
    for _, v in points[1:]:
        if v < prev:
            result += prev
        prev = v
    to_start = (points[0][0] - start) / 1000
    to_end = (end - points[-1][0]) / 1000
    sampled = (points[-1][0] - points[0][0]) / 1000
    avg = sampled / (len(points) - 1)
    if result > 0 and points[0][1] >= 0:
        to_zero = sampled * (points[0][1] / result)
        if to_zero < to_start:
            to_start = to_zero
    threshold = avg * 1.1
    interval = sampled
    interval += to_start if to_start < threshold else avg / 2
    interval += to_end if to_end < threshold else avg / 2
    return result * (interval / sampled) / range_s


def phase(native, tag):
    p, web = start_prometheus(native, tag)
    wait_for(lambda: api(web, "up") is not None, "Prometheus to answer",
             deadline=LONG, step=0.2)
    ups = wait_for(lambda: (lambda u: len(u) == N and all(
        v == 1.0 for v in u.values()) and u)(by_instance(web, "up")),
        "%s: Prometheus to scrape the three" % tag, deadline=LONG, step=0.2)
    check(bool(ups), "%s: the three targets are up: every scrape parsed"
          % tag)
    # Rounds, each scraped before the next: the counters and buckets
    # change inside the window.
    for _ in range(4):
        for i, n in enumerate(nodes):
            n.round(i)
        check(wait_for(lambda: scraped(web, native), "%s: a round scraped"
                       % tag,
                       deadline=LONG, step=0.2) is True,
              "%s: Prometheus holds every node's round" % tag)
    # Evaluated 1.5 s back (Prometheus runs on this machine's clock):
    # every sample up to then is in the TSDB.
    t = math.floor((time.time() - 1.5) * 1000) / 1000
    t_ms = round(t * 1000)
    raw = api(web, "statsd_fleet_req_total[1h]", t)
    want = 0.0
    for s in (raw or {"result": []})["result"]:
        pts = [(round(float(ts) * 1000), float(v)) for ts, v in s["values"]]
        r = extrapolated_rate(pts, t_ms, 3600)
        check(r is not None, "%s: two samples or more of %s" %
              (tag, s["metric"]["instance"]))
        want += r or 0.0
    check(raw is not None and len(raw["result"]) == N,
          "%s: the counter's raw samples of the three" % tag)
    got = scalar(web, "sum(rate(statsd_fleet_req_total[1h]))", t)
    check(got is not None and want > 0 and
          abs(got - want) <= 1e-9 * want,
          "%s: sum(rate(counter)) = %s, Prometheus' extrapolation over "
          "its samples gives %s" % (tag, got, want))
    count = sum(n.count for n in nodes)
    sum_s = sum(n.sum_ms for n in nodes) / 1000
    union = sorted(TIMER * N)
    true_p99 = union[math.ceil(0.99 * len(union)) - 1] / 1000
    check(P99_BUCKET[0] < true_p99 <= P99_BUCKET[1],
          "the test's p99 %s lies in %s" % (true_p99, P99_BUCKET))
    if native:
        # The fleet's native histograms summed: exact totals, and a p99
        # within a bucket's width of the true one.
        got_count = scalar(web, "histogram_count(sum("
                           "statsd_fleet_lat_seconds))")
        got_sum = scalar(web, "histogram_sum(sum(statsd_fleet_lat_seconds))")
        check(got_count == count, "%s: histogram_count = %s, want %d" %
              (tag, got_count, count))
        check(got_sum is not None and abs(got_sum - sum_s) <= 1e-9 * sum_s,
              "%s: histogram_sum = %s s, want %s" % (tag, got_sum, sum_s))
        q = scalar(web, "histogram_quantile(0.99, sum("
                   "statsd_fleet_lat_seconds))")
        err = 2 ** (2 ** -SCHEMA) - 1
        check(q is not None and abs(q - true_p99) <= err * true_p99,
              "%s: native histogram_quantile(0.99) = %s within %.4f of "
              "the true %s" % (tag, q, err, true_p99))
        classic = scalar(web, "count(statsd_fleet_lat_seconds_bucket)")
        check(classic is None, "%s: the histograms are native only" % tag)
    else:
        got_count = scalar(web, "sum(statsd_fleet_lat_seconds_count)")
        got_sum = scalar(web, "sum(statsd_fleet_lat_seconds_sum)")
        check(got_count == count, "%s: sum of _count = %s, want %d" %
              (tag, got_count, count))
        check(got_sum is not None and abs(got_sum - sum_s) <= 1e-9 * sum_s,
              "%s: sum of _sum = %s s, want %s" % (tag, got_sum, sum_s))
        got_inf = scalar(web, 'sum(statsd_fleet_lat_seconds_bucket'
                         '{le="+Inf"})')
        check(got_inf == count, "%s: +Inf buckets = %s, want %d" %
              (tag, got_inf, count))
        # The classic p99 of the union, in the bucket of the true p99.
        q = scalar(web, "histogram_quantile(0.99, sum by (le) "
                   "(rate(statsd_fleet_lat_seconds_bucket[1h])))", t)
        check(q is not None and P99_BUCKET[0] <= q <= P99_BUCKET[1],
              "%s: histogram_quantile(0.99) = %s in the true p99's bucket "
              "%s" % (tag, q, P99_BUCKET))
    print("%s: sum(rate) = %s (want %s), count %s, sum %s s, p99 %s "
          "(true %s)" % (tag, got, want, got_count, got_sum, q, true_p99),
          flush=True)
    p.terminate()
    p.wait(timeout=LONG)


phase(False, "classic")
phase(True, "native-histograms")
finish()
