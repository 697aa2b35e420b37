# SPDX-License-Identifier: BSD-2-Clause
"""test_prometheus.py: a real Prometheus (Debian's, 2.42) scrapes statsd's
/metrics on loopback every second, and its HTTP API answers PromQL over
what it scraped: rate() of a counter a producer keeps pushing, and
histogram_quantile() on a stats(3) histogram, each within the bounds the
pushed data allow. Prometheus runs on a private directory and dies with
the test, as every process of the harness does."""
import json
import os
import re
import shutil
import sys
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
from harness import (Daemon, RingClient, check, finish, free_port,  # noqa
                     read_data, setup_kstat, spawn, wait_for, DEADLINE)

PROMETHEUS = shutil.which("prometheus")
if PROMETHEUS is None:
    print("prometheus (Debian's package) not found")
    check(False, "prometheus is installed (tools/deps.sh)")
    finish()


d = Daemon(config="http_listen = 127.0.0.1:0\n").start()
port = wait_for(lambda: (lambda m: m and int(m.group(1)))(re.search(
    r"http: serving /metrics on 127\.0\.0\.1 port (\d+)", d.stderr())),
    "the HTTP endpoint's port in the log")
setup_kstat(d)
rc = RingClient(d.sock)
check(rc.cmd("connect") == "ok", "ring_client connects")
check(rc.cmd("handle app 0 req").startswith("ok handle="), "handle")
check(rc.cmd("attach 12").startswith("ok"), "attach")
# latency: 150 x5, 250 x3, 5000 x2: the median lies in [100, 200).
rc.counters("push 5 1 150")
rc.counters("push 3 1 250")
rc.counters("push 2 1 5000")
pushed = 0
rc.counters("push 10 0 1")
pushed += 10
wait_for(lambda: read_data(d).get("requests.sum") == 10, "first updates")

web = free_port()
pdir = os.path.join(d.tmp, "prometheus")
os.makedirs(pdir)
conf = os.path.join(pdir, "prometheus.yml")
with open(conf, "w") as f:
    f.write("""global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: statsd
    static_configs:
      - targets: ['127.0.0.1:%d']
""" % port)
log = open(os.path.join(pdir, "log"), "wb")
spawn([PROMETHEUS, "--config.file=" + conf,
       "--storage.tsdb.path=" + os.path.join(pdir, "data"),
       "--web.listen-address=127.0.0.1:%d" % web, "--log.level=warn"],
      stdout=log, stderr=log, cwd=pdir)


def api(query):
    url = "http://127.0.0.1:%d/api/v1/query?%s" % (
        web, urllib.parse.urlencode({"query": query}))
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return json.load(r)
    except OSError:
        return None


def value(query):
    """The query's one value, while the producer keeps pushing."""
    global pushed
    rc.counters("push 10 0 1")
    pushed += 10
    r = api(query)
    if not r or r.get("status") != "success":
        return None
    res = r["data"]["result"]
    return float(res[0]["value"][1]) if len(res) == 1 else None


wait_for(lambda: api("up") is not None, "Prometheus to answer",
         deadline=max(DEADLINE, 60), step=0.2)
up = wait_for(lambda: value('up{job="statsd"}') == 1.0,
              "Prometheus to scrape statsd", deadline=max(DEADLINE, 60),
              step=0.2)
check(up, "the target is up: every scrape parsed")
rate = wait_for(lambda: (lambda v: v if v is not None and v > 0 else None)(
    value('rate(statsd_app_req_requests_sum_total[10s])')),
    "rate() of the counter", deadline=max(DEADLINE, 60), step=0.2)
check(rate is not None and 0 < rate <= pushed,
      "rate() of a counter: 0 < %s <= %d (all pushed, over >= 1 s)"
      % (rate, pushed))
q = wait_for(lambda: value('histogram_quantile(0.5, '
                           'statsd_app_req_latency_hist_bucket)'),
             "histogram_quantile()", deadline=max(DEADLINE, 60), step=0.2)
check(q is not None and 99 <= q <= 199,
      "histogram_quantile(0.5) of the stats(3) histogram in its bucket "
      "[99, 199]: %s" % q)
print("Prometheus: rate() = %s with %d pushed; histogram_quantile(0.5) = %s"
      % (rate, pushed, q))
rc.quit()
finish()
