# SPDX-License-Identifier: BSD-2-Clause
"""test_expo.py: the Prometheus and OpenMetrics exposition over HTTP and
through `statsctl scrape`: every output through python3-prometheus-client's
parsers (the strict OpenMetrics one too), a duplicate-series check of our
own, `promtool check metrics`; cumulative buckets with le = next bound - 1;
families together across the instances of a kstat; PRIV kstats never over
HTTP; 404, 405, keep-alive; and a scraper that never reads does not hold
up the drain."""
import gzip
import http.client
import os
import re
import shutil
import socket
import sys

sys.path.insert(0, os.path.dirname(__file__))
from harness import (STATSD, TPL_APP, Daemon, RingClient,  # noqa: E402
                     check, finish, ok, read_data, run, setup_kstat, spawn,
                     wait_for, DEADLINE)

from prometheus_client.parser import (  # noqa: E402
    text_string_to_metric_families as parse_text)
from prometheus_client.openmetrics.parser import (  # noqa: E402
    text_string_to_metric_families as parse_om)

STATSCTL = os.environ.get("STATSCTL", "statsctl")
OM = "application/openmetrics-text;version=1.0.0," \
    "application/openmetrics-text;version=0.0.1;q=0.75," \
    "text/plain;version=0.0.4;q=0.5,*/*;q=0.1"

d = Daemon(config="http_listen = 127.0.0.1:0\nhttp_timeout_ms = 1500\n"
           ).start()
port = wait_for(lambda: (lambda m: m and int(m.group(1)))(re.search(
    r"http: serving /metrics on 127\.0\.0\.1 port (\d+)", d.stderr())),
    "the HTTP endpoint's port in the log")


def get(path="/metrics", accept=None, method="GET", conn=None):
    c = conn or http.client.HTTPConnection("127.0.0.1", port,
                                           timeout=DEADLINE)
    c.request(method, path, headers={"Accept": accept} if accept else {})
    r = c.getresponse()
    body = r.read().decode()
    if conn is None:
        c.close()
    return r, body


def no_duplicates(text, what):
    """The parsers accept a series twice: count name + labels ourselves."""
    seen = set()
    dup = None
    for line in text.splitlines():
        if line.startswith("#") or not line:
            continue
        key = line.rsplit(" ", 1)[0]
        if key in seen:
            dup = key
        seen.add(key)
    check(dup is None, "%s: no series twice (%s)" % (what, dup))


def families_together(text, what):
    """Every family's lines in one run: a TYPE never comes back."""
    types = [line.split()[2] for line in text.splitlines()
             if line.startswith("# TYPE ")]
    check(len(types) == len(set(types)), "%s: one TYPE a family" % what)


def promtool(text, what):
    if shutil.which("promtool") is None:
        check(False, "promtool (Debian's prometheus package) is installed")
        return
    p = run(["promtool", "check", "metrics"], input=text, text=True,
            capture_output=True, timeout=DEADLINE)
    check(p.returncode == 0 and p.stdout.strip() == "" and
          p.stderr.strip() == "",
          "%s: promtool check metrics: exit %d %s %s" % (
              what, p.returncode, p.stdout[:400], p.stderr[:400]))


# Two instances of one kstat (one stem: families must not interleave),
# another kstat, and a PRIV one.
setup_kstat(d, instance=0)
setup_kstat(d, instance=1)
setup_kstat(d, module="app", instance=0, name="other")
setup_kstat(d, module="priv", instance=0, name="hidden", flags=["PRIV"])

rc = RingClient(d.sock)
check(rc.cmd("connect") == "ok", "ring_client connects")
check(rc.cmd("handle app 0 req").startswith("ok handle="), "handle")
check(rc.cmd("attach 12").startswith("ok"), "attach")
# requests: 7 updates of 1; latency: 150 x5, 250 x3, 5000 x2 (beyond the
# histogram's last bound: its last bucket).
rc.counters("push 7 0 1")
rc.counters("push 5 1 150")
rc.counters("push 3 1 250")
rc.counters("push 2 1 5000")
LAT_SUM = 5 * 150 + 3 * 250 + 2 * 5000
wait_for(lambda: read_data(d).get("latency.sum", 0) == LAT_SUM and
         read_data(d).get("requests.sum") == 7, "updates applied")

# --- text 0.0.4 over HTTP
r, text = get()
check(r.status == 200 and r.getheader("Content-Type").startswith(
    "text/plain; version=0.0.4"), "GET /metrics: 200, text 0.0.4")
check(text.endswith("\n"), "text ends with a newline")
fams = {f.name: f for f in parse_text(text)}
check("statsd_app_req_requests_sum" in fams and
      fams["statsd_app_req_requests_sum"].type == "counter",
      "an unsigned SUM is a counter")
check(fams.get("statsd_app_req_state_last") is not None and
      fams["statsd_app_req_state_last"].type == "gauge", "LAST is a gauge")
check(fams.get("statsd_app_req_latency_max") is not None and
      fams["statsd_app_req_latency_max"].type == "gauge", "MAX is a gauge")
check(fams.get("statsd_app_req_requests_count") is not None and
      fams["statsd_app_req_requests_count"].type == "counter",
      "COUNT is a counter")
check("statsd_priv_hidden" not in text, "no PRIV kstat over HTTP")
no_duplicates(text, "text")
families_together(text, "text")
promtool(text, "text")

h = fams.get("statsd_app_req_latency_hist")
check(h is not None and h.type == "histogram", "HIST is a histogram")
if h:
    b = {s.labels["le"]: s.value for s in h.samples
         if s.name.endswith("_bucket") and s.labels["kstat_instance"] == "0"}
    check(b.get("99.0") == 0 and b.get("199.0") == 5 and
          b.get("299.0") == 8 and b.get("+Inf") == 10,
          "cumulative buckets, le = next bound - 1: %s" % b)
    cnt = [s.value for s in h.samples if s.name.endswith("_count") and
           s.labels["kstat_instance"] == "0"]
    check(cnt == [10], "_count = +Inf")
    sm = [s.value for s in h.samples if s.name.endswith("_sum") and
          s.labels["kstat_instance"] == "0"]
    check(sm == [LAT_SUM], "_sum is the VOI's SUM")
    check(len({s.labels["kstat_instance"] for s in h.samples}) == 2,
          "both instances in one family")
sq = fams.get("statsd_app_req_latency_tdigest")
check(sq is not None and sq.type == "summary", "TDGST is a summary")

# --- OpenMetrics over HTTP, and the same through statsctl
r, om = get(accept=OM)
check(r.status == 200 and r.getheader("Content-Type").startswith(
    "application/openmetrics-text; version=1.0.0"), "OpenMetrics by Accept")
check(om.endswith("# EOF\n"), "OpenMetrics ends with # EOF")
try:
    omf = list(parse_om(om))
    check(len(omf) > 10, "strict OpenMetrics parser: %d families" % len(omf))
except ValueError as e:
    check(False, "strict OpenMetrics parser: %s" % e)
no_duplicates(om, "openmetrics")

for fmt in ("prometheus", "openmetrics"):
    p = run([STATSCTL, "--socket", d.sock, "scrape", "--format", fmt],
            capture_output=True, text=True, timeout=DEADLINE)
    check(p.returncode == 0, "statsctl scrape --format %s: %s" % (
        fmt, p.stderr))
    try:
        n = len(list(parse_om(p.stdout) if fmt == "openmetrics" else
                     parse_text(p.stdout)))
        check(n > 10, "statsctl %s parses: %d families" % (fmt, n))
    except ValueError as e:
        check(False, "statsctl %s parses: %s" % (fmt, e))
    no_duplicates(p.stdout, "statsctl " + fmt)
out = os.path.join(d.tmp, "statsd.prom")
p = run([STATSCTL, "--socket", d.sock, "scrape", "--format", "prometheus",
         "-o", out], capture_output=True, text=True, timeout=DEADLINE)
check(p.returncode == 0 and os.path.exists(out) and
      [f for f in os.listdir(d.tmp) if f.startswith("statsd.prom.")] == [],
      "scrape -o FILE: written, nothing left beside it")
with open(out) as f:
    promtool(f.read(), "scrape -o")

# --- a family name with two types (an unsigned SUM is a counter, a signed
# one a gauge): the scrape goes on, the first type holds, the other is
# counted in statsd:0:daemon.
for i, dt in enumerate(("INT_U64", "INT_S64")):
    t = ok(d.call("io.statsd.TemplateAdd", {"name": "CF%d" % i, "vois": [
        {"id": 0, "name": "v", "dtype": dt, "stats": [{"kind": "SUM"}]}]}),
        "TemplateAdd")["template"]["spec"]
    ok(d.call("io.statsd.KstatCreate", {"module": "cf", "instance": i,
                                        "name": "c", "template": t}),
       "KstatCreate cf:%d:c" % i)
r, om = get(accept=OM)
try:
    cf = {f.name: f for f in parse_om(om)}.get("statsd_cf_c_v_sum")
    check(r.status == 200 and cf is not None and cf.type == "counter" and
          len(cf.samples) == 1, "a conflicting type: the first holds")
except ValueError as e:
    check(False, "a conflicting type breaks nothing: %s" % e)
check(wait_for(lambda: read_data(d, "statsd", 0, "daemon").get(
    "expo_conflicts", 0) >= 1, "expo_conflicts in statsd:0:daemon"),
    "the series left out are counted")

# --- one family from two stems: cg:a's VOI "b_c" and cg:a_b's VOI "c"
# both give statsd_cg_a_b_c_sum; cg:a0 (between them in byte order)
# must not split the family.
for nm, voi in (("a", "b_c"), ("a_b", "c"), ("a0", "c")):
    t = ok(d.call("io.statsd.TemplateAdd", {"name": "CG" + nm, "vois": [
        {"id": 0, "name": voi, "dtype": "INT_U64",
         "stats": [{"kind": "SUM"}]}]}), "TemplateAdd")["template"]["spec"]
    ok(d.call("io.statsd.KstatCreate", {"module": "cg", "instance": 0,
                                        "name": nm, "template": t}),
       "KstatCreate cg:0:%s" % nm)
for accept in (None, OM):
    r, body = get(accept=accept)
    try:
        fs = {f.name: f for f in (parse_om(body) if accept else
                                  parse_text(body))}
        f = fs.get("statsd_cg_a_b_c_sum")
        check(f is not None and len(f.samples) == 2,
              "two stems' series in one family (%s)" % (accept and "om"))
    except ValueError as e:
        check(False, "two stems' family parses: %s" % e)
    no_duplicates(body, "two stems' family")
    families_together(body, "two stems' family")

# --- gzip, when the scraper takes it
c = http.client.HTTPConnection("127.0.0.1", port, timeout=DEADLINE)
c.request("GET", "/metrics", headers={"Accept": OM,
                                      "Accept-Encoding": "gzip"})
r = c.getresponse()
raw = r.read()
c.close()
if r.getheader("Content-Encoding") == "gzip":
    try:
        unz = gzip.decompress(raw).decode()
        check(unz.endswith("# EOF\n") and len(list(parse_om(unz))) > 10,
              "gzipped OpenMetrics decompresses and parses")
    except (OSError, ValueError) as e:
        check(False, "gzipped OpenMetrics: %s" % e)
else:
    check(False, "a scraper that takes gzip gets it (zlib is required)")

# --- a page with nothing to show: a kstat whose text passes a page ends
# one, and what follows is PRIV; the reply still ends (libevent sends no
# empty chunk and would never call back).
big = ok(d.call("io.statsd.TemplateAdd", {"name": "BIG", "vois": [
    {"id": 0, "name": "v", "dtype": "INT_U64",
     "stats": [{"kind": "HIST", "scheme": "LIN", "lb": 0, "ub": 2000,
                "step": 1}]}]}), "TemplateAdd BIG")["template"]["spec"]
ok(d.call("io.statsd.KstatCreate", {"module": "zzy", "instance": 0,
                                    "name": "big", "template": big}),
   "a kstat of 2000 buckets")
ok(d.call("io.statsd.KstatCreate", {"module": "zzz", "instance": 0,
                                    "name": "hidden", "template": big,
                                    "flags": ["PRIV"]}), "a PRIV one after")
r, text = get()
check(r.status == 200 and "statsd_zzy_big_v_hist_bucket" in text and
      text.endswith("\n") and "statsd_zzz" not in text,
      "a last page with nothing in it ends the reply")
r, om = get(accept=OM)
check(om.endswith("# EOF\n"), "... in OpenMetrics too")

# --- the rest of HTTP
r, body = get("/")
check(r.status == 200 and "/metrics" in body, "GET /: the landing page")
r, _ = get("/nope")
check(r.status == 404, "another path: 404")
r, _ = get(method="POST")
check(r.status == 405 and "GET" in (r.getheader("Allow") or ""),
      "POST: 405 with Allow")
c = http.client.HTTPConnection("127.0.0.1", port, timeout=DEADLINE)
r1, b1 = get(conn=c)
r2, b2 = get(conn=c)
check(r1.status == 200 and r2.status == 200 and len(b2) > 0,
      "keep-alive: two scrapes on one connection")
c.close()

# --- One stem of many kstats (the instances of wide:*:k), far more than a
# page: the pages end inside it, family by family, over HTTP and through
# statsctl (whose pages resume from a cursor).
spec = ok(d.call("io.statsd.TemplateAdd", TPL_APP), "TemplateAdd")[
    "template"]["spec"]
ok(d.call("io.statsd.KstatCreateMany", {
    "template": spec, "kstats": [
        {"module": "wide", "instance": i, "name": "k"} for i in range(300)]}),
   "300 instances of one kstat")
r, om = get(accept=OM)
try:
    fams = {f.name: f for f in parse_om(om)}
    h = fams.get("statsd_wide_k_latency_hist")
    check(h is not None and len({s.labels["kstat_instance"]
                                 for s in h.samples}) == 300,
          "one family holds the 300 instances' histograms")
except ValueError as e:
    check(False, "a stem across pages, strict OpenMetrics: %s" % e)
no_duplicates(om, "a stem across pages")
families_together(om, "a stem across pages")
p = run([STATSCTL, "--socket", d.sock, "scrape", "--format", "openmetrics"],
        capture_output=True, text=True, timeout=DEADLINE)
try:
    sf = {f.name: f for f in parse_om(p.stdout)}
    hs = sf.get("statsd_wide_k_latency_hist")
    check(p.returncode == 0 and hs is not None and
          len(hs.samples) == len(h.samples),
          "statsctl's pages, resumed by cursor inside the stem, parse "
          "strictly and hold every series")
    # statsctl runs privileged here: PRIV kstats too.
    check(set(fams) == {n for n in sf if not n.startswith(
        ("statsd_priv_", "statsd_zzz_"))},
          "statsctl has HTTP's families, and the PRIV ones")
except ValueError as e:
    check(False, "statsctl, a stem across pages: %s" % e)
no_duplicates(p.stdout, "statsctl, a stem across pages")


# --- a scraper that never reads: enough kstats that the reply cannot fit
# in the socket buffers, then a producer pushes and its totals arrive.
spec = ok(d.call("io.statsd.TemplateAdd", TPL_APP), "TemplateAdd")[
    "template"]["spec"]
for base in range(0, 3000, 1000):
    ok(d.call("io.statsd.KstatCreateMany", {
        "template": spec, "kstats": [
            {"module": "bulk", "instance": 0, "name": "k%d" % i}
            for i in range(base, base + 1000)]}), "KstatCreateMany")
slow = socket.socket()
slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
slow.connect(("127.0.0.1", port))
slow.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
rc.counters("push 1000 0 1")
check(wait_for(lambda: read_data(d).get("requests.sum") == 1007,
               "the producer's updates, while a scraper does not read"),
      "the drain goes on under a stalled scrape")
r, _ = get("/")
check(r.status == 200, "other HTTP clients are served meanwhile")


def closed_by_statsd(sock):
    """Read what is there; True once statsd has closed the connection."""
    sock.settimeout(0.05)
    try:
        while True:
            if not sock.recv(65536):
                return True
    except socket.timeout:
        return False
    except ConnectionResetError:
        return True


check(wait_for(lambda: closed_by_statsd(slow),
               "the stalled scraper's connection to time out"),
      "a scraper that stops reading is disconnected (http_timeout_ms)")
slow.close()
idle = socket.create_connection(("127.0.0.1", port))
check(wait_for(lambda: closed_by_statsd(idle),
               "a silent client's connection to time out"),
      "a client that sends nothing is disconnected (http_timeout_ms)")
idle.close()

rc.quit()

# --- socket activation: a TCP socket systemd passes (here through
# systemd-socket-activate, as statsd-http.socket does) is served, and
# nothing is bound (--http-listen "" would have none).
ACTIVATE = shutil.which("systemd-socket-activate")
if ACTIVATE is not None:
    d2 = Daemon(name="activated")
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    hport = probe.getsockname()[1]
    probe.close()
    os.makedirs(d2.run, exist_ok=True)
    log = open(d2.logpath, "ab")
    spawn([ACTIVATE, "-l", os.path.join(d2.tmp, "act.sock"),
           "-l", "127.0.0.1:%d" % hport, "--fdname=varlink:http",
           STATSD, "--foreground", "--config", d2.conf, "--runtime-dir",
           d2.run, "--state-dir", d2.state, "--http-listen", ""],
          stdout=log, stderr=log)

    def scrape_activated():
        try:
            c = http.client.HTTPConnection("127.0.0.1", hport, timeout=5)
            c.request("GET", "/metrics")
            r = c.getresponse()
            body = r.read().decode()
            c.close()
            return r.status == 200 and "statsd_statsd_daemon" in body
        except OSError:
            return False
    check(wait_for(scrape_activated, "a scrape of the activated socket"),
          "the socket systemd passes serves /metrics")
    log.close()
else:
    print("systemd-socket-activate not found: activation not tested")
finish()
