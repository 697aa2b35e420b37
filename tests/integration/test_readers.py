# SPDX-License-Identifier: BSD-2-Clause
"""test_readers.py: /metrics is served by a thread of its own that reads
the store as any reader does, never from the event loop: the thread is
there ("statsd-http"); scrapes take no turn of the loop (its count of
turns, logged at exit, stays below the pages served); scrapes while
kstats come and go are each whole — no series twice, every family's
series together, Prometheus' parser takes them — and, once the churn
stops, the next scrape shows exactly the kstats left; a reload's HTTP
settings reach the thread (a lower http_max_connections answers a scrape
past it 503). The varlink Scrape, Chain and Lookup are rendered by the
reader thread ("statsd-reader"): Scrape's pages, resumed by cursor, show
what /metrics shows; Chain's pages give every kstat once, in order, as
the registry made it; callers that leave while their page is being
rendered cost nothing. TemplateList's pages, from the same thread, give
every template once, in order, as TemplateAdd gave it."""
import base64
import http.client
import json
import os
import re
import socket
import sys
import pwd
import subprocess
import threading

sys.path.insert(0, os.path.dirname(__file__))
import harness  # noqa: E402
from harness import (TPL_APP, Daemon, as_user, check, finish,  # noqa: E402
                     ok, run, spawn, wait_for, DEADLINE)

from prometheus_client.parser import (  # noqa: E402
    text_string_to_metric_families as parse_text)

HERE = os.path.dirname(os.path.abspath(__file__))
d = Daemon(config="http_listen = 127.0.0.1:0\nhttp_timeout_ms = 5000\n"
           ).start()
port = wait_for(lambda: (lambda m: m and int(m.group(1)))(re.search(
    r"http: serving /metrics on 127\.0\.0\.1 port (\d+)", d.stderr())),
    "the HTTP endpoint's port in the log")


def get():
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=4 * DEADLINE)
    c.request("GET", "/metrics")
    r = c.getresponse()
    body = r.read().decode()
    c.close()
    return r.status, body


def whole(text, what):
    """No series twice, each family's lines together, and Prometheus'
    own parser (python3-prometheus-client) reads it all."""
    seen, fams, last = set(), set(), None
    dup = split = None
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        key = line.rsplit(" ", 1)[0]
        fam = re.sub(r"(_bucket|_sum|_count)$", "", key.split("{")[0])
        if key in seen:
            dup = key
        if fam != last and fam in fams:
            split = fam
        seen.add(key)
        fams.add(fam)
        last = fam
    try:
        n = sum(1 for _ in parse_text(text))
    except ValueError as e:
        n = -1
        check(False, "%s: parses: %s" % (what, e))
    return dup is None and split is None and n > 0, dup, split


def kstats_of(text, module):
    """The (instance, name) of every kstat of module in a scrape."""
    return set(re.findall(r'module="%s",kstat_instance="(\d+)",name="([^"]+)"'
                          % re.escape(module), text))


# The thread.
pid = d.proc.pid
names = []
for t in os.listdir("/proc/%d/task" % pid):
    try:
        with open("/proc/%d/task/%s/comm" % (pid, t)) as f:
            names.append(f.read().strip())
    except OSError:
        pass
check("statsd-http" in names, "/metrics has a thread of its own: %s" % names)
check("statsd-reader" in names, "so have the control socket's reads: %s" %
      names)

def make_bulk(c):
    """Enough kstats for a scrape of many pages (64 KiB each): 1,500 of
    TPL_APP. Returns: the template's spec."""
    spec = ok(c.call("io.statsd.TemplateAdd", TPL_APP), "TemplateAdd")[
        "template"]["spec"]
    for base in range(0, 1500, 500):
        ok(c.call("io.statsd.KstatCreateMany", {
            "template": spec, "kstats": [
                {"module": "bulk", "instance": i, "name": "k"}
                for i in range(base, base + 500)]}), "KstatCreateMany",
           False)
    return spec


c = d.conn()
spec = make_bulk(c)

# Scrapes: none of their pages is a turn of the loop.
SCRAPES = 12
pages = 0
for i in range(SCRAPES):
    st, body = get()
    check(st == 200 and len(kstats_of(body, "bulk")) == 1500,
          "scrape %d: 200 and all 1500 kstats" % i, count=(i == 0))
    pages += len(body.encode()) // 65536
check(pages >= 5 * SCRAPES, "the scrapes were many pages: %d" % pages)

# Kstats come and go while scrapes run: each scrape whole.
stop = threading.Event()
expect = {}


def churn():
    cc = d.conn()
    n = 0
    while not stop.is_set() and n < 400:
        i = n % 64
        key = (str(i), "c")
        if key in expect:
            ok(cc.call("io.statsd.KstatDelete", {
                "module": "churn", "instance": i, "name": "c"}),
               "KstatDelete", False)
            del expect[key]
        else:
            ok(cc.call("io.statsd.KstatCreate", {
                "module": "churn", "instance": i, "name": "c",
                "template": spec}), "KstatCreate", False)
            expect[key] = True
        n += 1
    cc.close()


th = threading.Thread(target=churn, daemon=True)
th.start()
bad = []
for i in range(15):
    st, body = get()
    good, dup, split = whole(body, "scrape during churn %d" % i)
    if st != 200 or not good or len(kstats_of(body, "bulk")) != 1500:
        bad.append((i, st, dup, split))
    pages += len(body.encode()) // 65536
stop.set()
th.join(DEADLINE)
check(not th.is_alive(), "the churn ended")
check(not bad, "every scrape during the churn whole, the 1500 others in "
      "it: %s" % bad)
st, body = get()
check(st == 200 and kstats_of(body, "churn") == set(expect),
      "after the churn, the scrape shows exactly the %d kstats left" %
      len(expect))
check(whole(body, "after the churn")[0], "and it is whole")

# The loop's turns so far: the churn's calls, not the pages served.
c.close()
d.stop()
m = re.search(r"turns: (\d+) in \d+ rounds", d.stderr())
check(m is not None and int(m.group(1)) < pages // 2,
      "the loop's turns (%s) far fewer than the pages served (%d): scrapes "
      "are not the loop's" % (m and m.group(1), pages))

# Again, for the varlink Scrape and a reload.
d.start()
port = wait_for(lambda: (lambda m: m and int(m[-1]))(re.findall(
    r"http: serving /metrics on 127\.0\.0\.1 port (\d+)", d.stderr())),
    "the HTTP endpoint's port, restarted")
c = d.conn()
make_bulk(c)
st, body = get()

# The varlink Scrape, from the reader thread, in pages: what /metrics
# shows.
STATSCTL = os.environ.get("STATSCTL", "statsctl")
# (Time-outs for a sanitizer build on a loaded machine.)
p = run([STATSCTL, "--socket", d.sock, "scrape", "--format", "prometheus"],
        capture_output=True, text=True, timeout=4 * DEADLINE)
check(p.returncode == 0 and len(kstats_of(body, "bulk")) == 1500 and
      kstats_of(p.stdout, "bulk") == kstats_of(body, "bulk"),
      "statsctl scrape's pages show the kstats /metrics shows")
check(whole(p.stdout, "statsctl scrape")[0], "and are whole")

# Chain and Lookup, from the reader thread, in pages by cursor: every
# kstat once, in kstat(1M)'s order, as the registry made them.
def pages(method, params):
    got, cursor, n = [], None, 0
    while n < 1000:
        p = dict(params)
        if cursor:
            p["cursor"] = cursor
        r = ok(d.call(method, p), method, False)
        got += r.get("kstats", [])
        cursor = r.get("cursor")
        n += 1
        if not cursor:
            break
    return got, n


chain, npages = pages("io.statsd.Chain", {})
bulk = [k for k in chain if k["module"] == "bulk"]
check(len(bulk) == 1500 and len({k["handle"] for k in bulk}) == 1500 and
      [k["instance"] for k in bulk] == list(range(1500)) and npages > 1,
      "Chain's %d pages: the 1,500 kstats once each, in order" % npages)
check(all(k["template"] == bulk[0]["template"] and k["segment"] == "public"
          and k["owner"] == os.getuid() for k in bulk),
      "each with its template, segment and owner")
look, _ = pages("io.statsd.Lookup", {"module": "bulk", "instance": 7})
check([(k["instance"], k["handle"]) for k in look] ==
      [(7, bulk[7]["handle"])], "Lookup of one instance: that kstat")

# Read and Snapshot, from the reader thread: the kstat as Chain shows it,
# the values written, the blob whole.
READS = 50
for i in range(READS):
    rd = ok(d.call("io.statsd.Read", {"module": "bulk", "instance": i,
                                      "name": "k"}), "Read", False)
    if rd.get("kstat") != bulk[i] or rd.get("data", {}).get(
            "state.last") != 0:
        break
check(i == READS - 1, "%d Reads give the kstat Chain gives, and its data "
      "(%s)" % (READS, str(rd)[:200]))
sn = ok(d.call("io.statsd.Snapshot", {"module": "bulk", "instance": 3,
                                      "name": "k"}), "Snapshot", False)
check(len(base64.b64decode(sn["raw"])) == bulk[3]["size"] and
      sn["kstat"] == bulk[3] and sn["blob"].get("tplname") == "APP",
      "Snapshot's raw blob is the kstat's size: %s" % str(sn)[:200])

# Callers that leave while their page is being rendered: nothing is
# answered to them, nothing leaks (the sanitizer builds), and statsd
# goes on.
for i in range(40):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(d.sock)
    s.sendall(json.dumps({"method": "io.statsd.Scrape", "parameters": {
        "format": "openmetrics"}}).encode() + b"\0")
    s.close()
r = d.call("io.statsd.Info", {})
check("error" not in r, "Info after 40 callers left mid-page")
p = run([STATSCTL, "--socket", d.sock, "scrape", "--format", "openmetrics"],
        capture_output=True, text=True, timeout=4 * DEADLINE)
check(p.returncode == 0 and p.stdout.rstrip().endswith("# EOF"),
      "and a scrape after them is whole")

# A reload's settings reach the thread: one scrape held open (its reader
# takes nothing), http_max_connections = 1, the next one is 503. (Both
# are root's, which may take the privileged reserve past the bound: none
# here.)
held = socket.create_connection(("127.0.0.1", port), timeout=DEADLINE)
held.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
with open(d.conf, "a") as f:
    f.write("http_max_connections = 1\nquota_reserve_percent = 0\n")
d.proc.send_signal(1)   # SIGHUP
wait_for(lambda: "configuration reloaded" in d.stderr(), "the reload")
held.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
wait_for(lambda: held.recv(1, socket.MSG_PEEK), "the held scrape started")
c2 = http.client.HTTPConnection("127.0.0.1", port, timeout=DEADLINE)
c2.request("GET", "/metrics")
r2 = c2.getresponse()
check(r2.status == 503, "past the reloaded http_max_connections: 503 "
      "(got %d)" % r2.status)
r2.read()
c2.close()
held.close()

c.close()
d.stop()
m = re.findall(r"reader threads: (\d+) pages", d.stderr())
h = re.findall(r"(\d+) reads the reader thread left to the loop",
               d.stderr())
check(m and h and int(m[-1]) > READS and h[-1] == "0",
      "the reader thread rendered every Read and Snapshot (%s pages), the "
      "loop none (%s)" % (m and m[-1], h and h[-1]))

# The loop renders a Read or Snapshot the thread's view cannot (here the
# second, at the test's failure point): the same reply, byte for byte
# (Snapshot's is Read's with the time of the copy and the raw blob), and
# a Write answered before is in it.
os.environ["STATSD_TEST_FAIL_AT"] = "reader.decline:2"
d4 = Daemon().start()
del os.environ["STATSD_TEST_FAIL_AT"]
c = d4.conn()
ok(c.call("io.statsd.TemplateAdd", TPL_APP), "TemplateAdd")
ok(c.call("io.statsd.KstatCreate", {"template": spec, "module": "cmp",
                                    "instance": 0, "name": "k",
                                    "flags": ["WRITABLE"]}), "KstatCreate")
ok(c.call("io.statsd.Write", {"module": "cmp", "instance": 0, "name": "k",
                              "values": {"state": 42}}), "Write")
key = {"module": "cmp", "instance": 0, "name": "k"}
r1 = c.call("io.statsd.Read", key)
r2 = c.call("io.statsd.Read", key)
check("error" not in r1 and r1 == r2 and
      r1["parameters"]["data"].get("state.last") == 42 and
      r1["parameters"]["blob"]["vois"]["state"]["stats"]["LAST"]["val"] ==
      42, "Read: the thread's reply is the loop's: %s / %s" %
      (str(r1)[:300], str(r2)[:300]))
s3 = ok(c.call("io.statsd.Snapshot", key), "Snapshot", False)
raw = base64.b64decode(s3.pop("raw", ""))
s3.pop("snaptime", None)
r2 = r2["parameters"]
r2.pop("snaptime", None)
check(s3 == r2 and len(raw) == r2["kstat"]["size"],
      "Snapshot: the thread's is the loop's Read with its raw blob: %s / %s"
      % (str(s3)[:300], str(r2)[:300]))
c.close()
d4.stop()
h = re.findall(r"(\d+) reads the reader thread left to the loop",
               d4.stderr())
check(h == ["1"], "the loop rendered the one declined: %s" % h)

# A call whose page comes back late is not an idle connection: statsd is
# still answering it. (The reader thread's first page held 1.5 s, five
# times idle_timeout_ms; the connection was closed under it before.)
os.environ["STATSD_TEST_FAIL_AT"] = "reader.stall"
d3 = Daemon(config="idle_timeout_ms = 300\n").start()
del os.environ["STATSD_TEST_FAIL_AT"]
r = d3.call("io.statsd.Scrape", {"format": "kstat"})
check("error" not in r and "statsd:0:daemon:uptime" in
      r.get("parameters", {}).get("text", ""),
      "a page held past idle_timeout_ms is answered: %s" % str(r)[:200])
d3.stop()

# TemplateList, from the reader thread, in pages of at most 4 KiB: every
# template once, in the order they were registered, each as TemplateAdd
# answered it (the loop's rendering of the same template), a dropped
# cursor refused. The exit log counts the pages as the thread's.
d5 = Daemon(config="reply_page_size = 4096\n").start()
c = d5.conn()
added = []
for i in range(60):
    tpl = {"name": "T%02d" % i, "vois": [
        {"id": v, "name": "voi%d_with_a_longer_name" % v,
         "dtype": "INT_U64", "stats": [{"kind": "SUM"}, {"kind": "MAX"}]}
        for v in range(4 + i % 5)]}
    added.append(ok(c.call("io.statsd.TemplateAdd", tpl), "TemplateAdd",
                    False)["template"])
listed, cursor, npages, lists = [], None, 0, []
while npages < 100:
    r = ok(c.call("io.statsd.TemplateList",
                  {"cursor": cursor} if cursor else {}), "TemplateList",
           False)
    listed += r["templates"]
    lists.append(r["list"])
    npages += 1
    cursor = r.get("cursor")
    if not cursor:
        break
mine = [t for t in listed if t["name"].startswith("T")]
check(npages > 2 and mine == added,
      "TemplateList's %d pages: the 60 templates once each, in order, as "
      "TemplateAdd gave them (%d listed)" % (npages, len(mine)))
check(",".join(lists) == ",".join(t["spec"] for t in listed),
      "each page's list is its templates' specs")
r = c.call("io.statsd.TemplateList", {"cursor": "x1"})
check(r.get("error") == "io.statsd.InvalidValue" and
      r["parameters"]["parameter"] == "cursor",
      "a cursor that is no number: %s" % str(r)[:160])
c.close()
d5.stop()
m = re.findall(r"reader threads: (\d+) pages", d5.stderr())
check(m and int(m[-1]) >= npages, "the reader thread rendered the %d "
      "pages (%s)" % (npages, m and m[-1]))

# Root's reads wait for no other user's page: with reader_threads = 2 one
# thread is kept for privileged peers. nobody's Scrape is the first page;
# the test's failure point holds it 1.5 s on its thread. Root's Scrape,
# Chain, Read and TemplateList are all answered while it is held (the log
# says when the held page goes on). With one thread, root's first read
# waits for nobody's page: the same check finds the page gone on.
def held_by_nobody(threads):
    os.environ["STATSD_TEST_FAIL_AT"] = "reader.stall"
    dd = Daemon(config="reader_threads = %d\n" % threads).start()
    del os.environ["STATSD_TEST_FAIL_AT"]
    harness.stage(os.path.join(HERE, "harness.py"))
    pw = pwd.getpwnam("nobody")
    nob = spawn(as_user(["/usr/bin/python3",
                         os.path.join(HERE, "abuse_client.py"), dd.sock],
                        uid=pw.pw_uid, regid=pw.pw_gid),
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                bufsize=1)
    nob.stdin.write(json.dumps({"op": "pipeline", "n": 1, "calls": 1,
                                "method": "io.statsd.Scrape",
                                "parameters": {"format": "kstat"}}) + "\n")
    nob.stdin.flush()
    check(nob.stdout.readline() != "", "nobody sent its Scrape")
    wait_for(lambda: "reader.stall: a user's page held" in dd.stderr(),
             "nobody's page held on its thread")
    c = dd.conn()
    calls = [("io.statsd.Scrape", {"format": "kstat"}),
             ("io.statsd.Chain", {}),
             ("io.statsd.Read", {"module": "statsd", "instance": 0,
                                 "name": "daemon"}),
             ("io.statsd.TemplateList", {})]
    replies = [c.call(m, p) for m, p in calls]
    held = "the page held goes on" not in dd.stderr()
    c.close()
    nob.stdin.close()
    nob.wait(timeout=DEADLINE)
    dd.stop()
    m = re.findall(r"reader threads: (\d+) pages, (\d+) of them on the "
                   r"thread kept", dd.stderr())
    return replies, held, m


if os.getuid() != 0 or harness.SETPRIV is None:
    print("# not root, or no setpriv: the kept reader thread is not tested")
    finish()
replies, held, m = held_by_nobody(2)
check(all("error" not in r for r in replies) and held,
      "reader_threads = 2: root's Scrape, Chain, Read and TemplateList "
      "answered while nobody's page is held: %s" %
      [str(r)[:80] for r in replies if "error" in r])
check(m and int(m[-1][1]) >= len(replies) and int(m[-1][0]) > int(m[-1][1]),
      "the kept thread rendered root's pages, the other nobody's: %s" % m)
replies, held, m = held_by_nobody(1)
check(all("error" not in r for r in replies) and not held,
      "reader_threads = 1: root's reads are answered once nobody's held "
      "page went on")
check(m and m[-1][1] == "0", "one thread: none kept for privileged peers")
finish()
