# SPDX-License-Identifier: BSD-2-Clause
"""test_stall.py: no unprivileged local user (uid 65534 through setpriv)
can hold statsd's event loop from root or from Prometheus. Each test names
an attack that once did, runs it at a scale a 2-core machine takes in
seconds, and meanwhile root calls io.statsd.Info every 20 ms on a
connection of its own and Prometheus (the test) scrapes GET /metrics.

Every check is of exactness or a bound: each of root's calls is answered,
each scrape gets 200 and a whole exposition, the attack's own result is
exact. Latencies and the watchdog's largest gap are printed for
information only, never asserted."""
import json
import os
import pwd
import random
import re
import socket
import statistics
import sys
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import (SETPRIV, Daemon, as_user, check, finish,  # noqa: E402
                     free_port, ok, spawn)
import subprocess  # noqa: E402
from zonetools import CgroupTree, ZonePeer, ZonesUnavailable  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
if os.getuid() != 0 or SETPRIV is None:
    print("needs root and setpriv; skipped")
    sys.exit(77)
NOBODY = pwd.getpwnam("nobody").pw_uid


class Hostile:
    """abuse_client.py run as nobody: one JSON command in, one JSON line
    out."""

    def __init__(self, d):
        harness.stage(os.path.join(HERE, "harness.py"))
        pw = pwd.getpwuid(NOBODY)
        self.proc = spawn(as_user(["/usr/bin/python3",
                                   os.path.join(HERE, "abuse_client.py"),
                                   d.sock], uid=NOBODY, regid=pw.pw_gid),
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          text=True, bufsize=1)

    def cmd(self, **kw):
        self.proc.stdin.write(json.dumps(kw) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        check(line != "", "abuse_client answers %s" % kw.get("op"))
        return json.loads(line) if line else {}

    def quit(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=harness.DEADLINE * 4)


class Watchdog:
    """A NOTIFY_SOCKET the daemon pings (WATCHDOG=1) at half of
    WATCHDOG_USEC: the pings' times, for the largest gap."""

    def __init__(self, tmp, usec=1000000):
        self.path = os.path.join(tmp, "notify.sock")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)
        self.sock.settimeout(0.2)
        self.usec = usec
        self.pings = []
        self.stop = False
        self.t = threading.Thread(target=self.run, daemon=True)
        self.t.start()

    def run(self):
        while not self.stop:
            try:
                m = self.sock.recv(4096)
            except socket.timeout:
                continue
            except OSError:
                return
            if b"WATCHDOG=1" in m:
                self.pings.append(time.monotonic())

    def gap_since(self, t0):
        ts = [t0] + [t for t in self.pings if t >= t0] + [time.monotonic()]
        return max(b - a for a, b in zip(ts, ts[1:]))

    def close(self):
        self.stop = True
        self.t.join()
        self.sock.close()


def start(config=""):
    """A daemon with a watchdog and an HTTP endpoint."""
    port = free_port()
    tmp = harness.mkdtemp()
    os.chmod(tmp, 0o755)
    wd = Watchdog(tmp)
    os.environ["NOTIFY_SOCKET"] = wd.path
    os.environ["WATCHDOG_USEC"] = str(wd.usec)
    try:
        d = Daemon(config="http_listen = 127.0.0.1:%d\n" % port + config)
        d.start()
    finally:
        del os.environ["NOTIFY_SOCKET"]
        del os.environ["WATCHDOG_USEC"]
    os.chmod(d.run, 0o755)
    d.port = port
    d.wd = wd
    print("statsd pid %d" % d.proc.pid, flush=True)
    return d


def stop(d):
    """Stop the daemon, and print what its turns took (information)."""
    d.wd.close()
    d.stop()
    for ln in d.stderr().splitlines():
        if "turns:" in ln:
            print("  statsd: " + ln.split("turns:", 1)[1].strip(),
                  flush=True)
    d.cleanup()


class Root:
    """Root calling Info every 20 ms, and Prometheus scraping, while an
    attack runs: what was sent, answered, and how long each took."""

    def __init__(self, d, scrape_every=0.5, call=("io.statsd.Info", {},
                                                  "kstats")):
        self.d = d
        # The call root makes (method, parameters, a key its reply has).
        self.call = call
        self.stop = False
        self.sent = self.answered = 0
        self.lat = []
        self.scrapes = []       # (status, whole) of each scrape
        self.scrape_every = scrape_every
        self.t0 = time.monotonic()
        self.ti = threading.Thread(target=self.info, daemon=True)
        self.ts = threading.Thread(target=self.scrape, daemon=True)
        self.ti.start()
        self.ts.start()

    def info(self):
        c = harness.Conn(self.d.sock, timeout=120)
        while not self.stop:
            t = time.monotonic()
            self.sent += 1
            r = c.call(self.call[0], self.call[1])
            if "error" not in r and self.call[2] in r.get("parameters", {}):
                self.answered += 1
            self.lat.append(time.monotonic() - t)
            time.sleep(0.02)
        c.close()

    def scrape(self):
        url = "http://127.0.0.1:%d/metrics" % self.d.port
        while not self.stop:
            try:
                with urllib.request.urlopen(url, timeout=120) as r:
                    body = r.read().decode()
                    self.scrapes.append((r.status, "statsd_daemon" in body))
            except Exception as e:  # noqa: BLE001 (a status is a result)
                self.scrapes.append((getattr(e, "code", str(e)), False))
            time.sleep(self.scrape_every)

    def done(self, what):
        self.stop = True
        self.ti.join()
        self.ts.join()
        check(self.sent > 0 and self.answered == self.sent,
              "%s: root's Info all answered: %d of %d"
              % (what, self.answered, self.sent))
        bad = [s for s in self.scrapes if s != (200, True)]
        check(len(self.scrapes) > 0 and not bad,
              "%s: every scrape whole with 200: %d, bad %s"
              % (what, len(self.scrapes), bad[:3]))
        lat = sorted(self.lat)
        if lat:
            print("%s: root Info n=%d median %.1f ms p99 %.1f ms max %.1f "
                  "ms; watchdog gap %.2f s; %d scrapes"
                  % (what, len(lat), 1000 * statistics.median(lat),
                     1000 * lat[min(len(lat) - 1, int(len(lat) * .99))],
                     1000 * lat[-1], self.d.wd.gap_since(self.t0),
                     len(self.scrapes)), flush=True)
        return lat


def tpl(name, nvois):
    return {"name": name, "vois": [
        {"id": i, "name": "v%d" % i, "dtype": "INT_U64",
         "stats": [{"kind": "SUM"}]} for i in range(nvois)]}


def create_many(c, spec, module, name, n, first=0, batch=512):
    """n kstats module:first..:name, in calls of batch (small: each call
    is one turn, and the longest turn statsd reports is the attack's)."""
    for base in range(first, first + n, batch):
        ok(c.call("io.statsd.KstatCreateMany", {
            "template": spec, "kstats": [
                {"module": module, "instance": i, "name": name}
                for i in range(base, min(first + n, base + batch))]}),
           "KstatCreateMany from %d" % base, False)


def series(text, label):
    return [ln for ln in text.splitlines()
            if not ln.startswith("#") and label in ln]


def test_row1_family_walk_bounded():
    """Row 1: 120,000 kstats sharing one module:name and a 256-VOI
    template; a Prometheus Scrape whose selector picks 2 of them walked
    the whole group once per family in one page (40 s of loop); here
    10,000 kstats and 32 VOIs. Every
    kstat a page looks at is work now: the scrape takes many pages, each
    bounded, and its result is exact."""
    d = start()
    c = d.conn()
    spec = ok(c.call("io.statsd.TemplateAdd", tpl("WIDE", 32)),
              "a 32-VOI template")["template"]["spec"]
    create_many(c, spec, "grp", "same", 10000)
    c.close()
    h = Hostile(d)
    root = Root(d)
    rep = h.cmd(op="pages", calls=[
        ("io.statsd.Scrape", {"format": "prometheus",
                              "selector": "grp:/^(7|1234)$/:same"}),
        ("io.statsd.Scrape", {"format": "prometheus",
                              "selector": "grp:7:same"})]).get(
                                  "replies", [])
    root.done("row 1")
    two = ok(rep[0], "the scrape of 2 of 10,000")
    one = ok(rep[1], "the scrape of 1")
    s7 = series(one.get("text", ""), 'instance="7"')
    check(len(s7) == 32, "one kstat: 32 series: %d" % len(s7))
    got7 = series(two.get("text", ""), 'instance="7"')
    got2 = series(two.get("text", ""), 'instance="1234"')
    check(sorted(got7) == sorted(s7) and len(got2) == 32 and
          len(series(two.get("text", ""), "statsd_grp_same")) == 64,
          "the two kstats' 64 series, exactly")
    helps = [ln for ln in two.get("text", "").splitlines()
             if ln.startswith("# HELP")]
    check(len(helps) == 32 and len(set(helps)) == 32,
          "each family's HELP once: %d" % len(helps))
    # 10,000 kstats x 32 families looked at, a page bounded: many pages.
    check(two.get("pages", 1) >= 16, "the walk went in pages: %d"
          % two.get("pages", 1))
    h.quit()
    stop(d)


def test_row1b_zone_kstats_anonymous_scrape():
    """Row 1b: the kstats of row 1 made inside a container's zone, and
    anonymous GET /metrics (the global zone, which sees a container's
    kstats made with GZ_VIS, the default) took 17.8 s a scrape, root's
    Info up to 4.8 s. Here 4,000 kstats of one module:name and 32 VOIs
    made by a container's root; while Prometheus scrapes and root calls
    Info, every scrape is whole and the last one holds every series
    exactly once."""
    try:
        tree = CgroupTree(["box"])
    except ZonesUnavailable as e:
        print("row 1b skipped: %s" % e, flush=True)
        return
    d = start("zone_cgroups = %s/box\n" % tree.rootname)
    zp = ZonePeer(d.sock, tree.join("box"))
    check(ok(zp.call("io.statsd.Hello"), "Hello in the container")[
        "peer"]["zone"] not in (None, 0), "the peer is in a zone")
    spec = ok(zp.call("io.statsd.TemplateAdd", tpl("WIDE", 32)),
              "a 32-VOI template")["template"]["spec"]
    create_many(zp, spec, "zgrp", "same", 4000)
    root = Root(d)
    url = "http://127.0.0.1:%d/metrics" % d.port
    with urllib.request.urlopen(url, timeout=120) as r:
        body = r.read().decode()
    root.done("row 1b")
    got = series(body, "statsd_zgrp_same")
    insts = set(re.findall(r'instance="(\d+)"', "\n".join(got)))
    check(len(got) == 4000 * 32 and len(set(got)) == len(got) and
          insts == set(str(i) for i in range(4000)),
          "the container's 4,000 kstats, 32 series each, once: %d series, "
          "%d instances" % (len(got), len(insts)))
    zp.quit()
    stop(d)
    tree.cleanup()


def test_row2_k4_pipelined_info():
    """Rows 2 and K4: pipelined unprivileged Info and TemplateList over
    many kstats walked every kstat each, on 64 connections: root waited
    seconds. nobody's Info is counted from the registry's counts, and its
    connections share one turn: root's calls are all answered, and what
    nobody counts is exact."""
    d = start()
    c = d.conn()
    spec = ok(c.call("io.statsd.TemplateAdd", tpl("T2", 4)),
              "template")["template"]["spec"]
    create_many(c, spec, "many", "k", 20000)
    ok(c.call("io.statsd.KstatCreate", {"module": "secret", "instance": 0,
                                        "name": "p", "template": spec,
                                        "flags": ["PRIV"]}), "a PRIV kstat")
    c.close()
    h = Hostile(d)
    r = h.cmd(op="calls", calls=[("io.statsd.Info", {}),
                                 ("io.statsd.TemplateList", {})])["replies"]
    all_ks = ok(d.call("io.statsd.Info", {}), "root's Info")["kstats"]
    check(ok(r[0], "nobody's Info")["kstats"] == all_ks - 1,
          "nobody counts every kstat but the PRIV one: %s of %d"
          % (r[0].get("parameters", {}).get("kstats"), all_ks))
    names = [t["name"] for t in ok(r[1], "nobody's TemplateList")[
        "templates"]]
    check("T2" in names, "nobody sees the template of public kstats")
    root = Root(d)
    h.cmd(op="pipeline", n=64, calls=300, method="io.statsd.Info")
    h.cmd(op="pipeline", n=8, calls=300, method="io.statsd.TemplateList")
    time.sleep(3)
    root.done("rows 2, K4")
    h.cmd(op="close")
    h.quit()
    stop(d)


def test_row4_empty_messages():
    """Row 4: 65,536 empty messages in one read, on 8 connections: the
    buffer was moved once per message. Each is answered, exactly once,
    and root meanwhile."""
    d = start()
    h = Hostile(d)
    root = Root(d)
    r = h.cmd(op="flood", n=8, bytes=65536)
    root.done("row 4")
    check(r.get("replies") == 8 * 65536, "one reply per empty message: %s"
          % r.get("replies"))
    h.quit()
    stop(d)


def test_row8_http_not_charged_to_nobody():
    """Row 8: HTTP scrapes were charged to uid 65534: the real user
    nobody holding its 64 control connections made every scrape get 503.
    They are charged to no user now."""
    d = start()
    h = Hostile(d)
    r = h.cmd(op="connect", n=64)
    check(r.get("ok") == 64, "nobody holds its 64 connections: %s" % r)
    r = h.cmd(op="connect", n=1)
    check(r.get("ok") == 0, "and no 65th")
    url = "http://127.0.0.1:%d/metrics" % d.port
    codes = []
    for _ in range(18):
        try:
            with urllib.request.urlopen(url, timeout=60) as resp:
                codes.append(resp.status)
                resp.read()
        except Exception as e:  # noqa: BLE001
            codes.append(getattr(e, "code", str(e)))
    check(codes == [200] * 18, "18 scrapes, 18 times 200: %s" % codes)
    h.cmd(op="close")
    h.quit()
    stop(d)


def test_k1_http_slow_headers():
    """K1: every HTTP connection held with a byte of a request line at a
    time: Prometheus got nothing for as long as it lasted. At the bound a
    new connection sheds the oldest one no scrape is answering: with the
    attacker opening new slow connections to hold all 16 again before
    each scrape, each scrape is answered, and sheds one of them."""
    # No time-out frees a connection here: only shedding can. The slow
    # connections and the scrapes are both root's, which may take the
    # privileged reserve past the 16 (test_k1b): none here, so that the
    # scrapes shed as anyone's would.
    d = start("http_max_connections = 16\nhttp_timeout_ms = 3600000\n"
              "quota_reserve_percent = 0\n")
    slow, shed = [], 0

    def hold():
        """Count the slow connections statsd closed, and open new ones
        until 16 are held again."""
        nonlocal slow, shed
        alive = []
        for s in slow:
            s.setblocking(False)
            try:
                closed = s.recv(1) == b""
            except BlockingIOError:
                closed = False
            except OSError:
                closed = True
            if closed:
                shed += 1
                s.close()
            else:
                s.sendall(b"E")
                alive.append(s)
        while len(alive) < 16:
            s = socket.create_connection(("127.0.0.1", d.port), timeout=60)
            s.sendall(b"G")
            alive.append(s)
        slow = alive

    hold()
    url = "http://127.0.0.1:%d/metrics" % d.port
    codes = []
    for _ in range(8):
        hold()
        # statsd has taken every connection made so far before the
        # scrape's: the control socket is served in the same loop.
        ok(d.call("io.statsd.Info", {}), "Info", False)
        try:
            with urllib.request.urlopen(url, timeout=60) as resp:
                body = resp.read().decode()
                codes.append((resp.status, "statsd_daemon" in body))
        except Exception as e:  # noqa: BLE001
            codes.append((getattr(e, "code", str(e)), False))
    hold()
    check(codes == [(200, True)] * 8, "8 scrapes whole, with 200, while "
          "16 slow requests were held: %s" % codes)
    # Shed on the scrape's connect: nothing else closes them.
    check(shed >= 8, "a slow connection shed for each scrape: %d" % shed)
    for s in slow:
        s.close()
    stop(d)


# nobody's scraper: opens N connections to PORT, each sending a scrape's
# request, reads nothing, and says (one line each) how many statsd closed
# before answering, and, once told on stdin, closes them.
SLOW_SCRAPER = r"""
import socket, sys, time
port, n = int(sys.argv[1]), int(sys.argv[2])
conns = []
for _ in range(n):
    s = socket.create_connection(("127.0.0.1", port), timeout=60)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    conns.append(s)
def state(s):
    s.setblocking(False)
    try:
        return "closed" if s.recv(1, socket.MSG_PEEK) == b"" else "data"
    except BlockingIOError:
        return "none"
    except OSError:
        return "closed"
deadline = time.monotonic() + 60
while time.monotonic() < deadline:
    states = [state(s) for s in conns]
    if "none" not in states:
        break
    time.sleep(0.05)
print(states.count("closed"), flush=True)
sys.stdin.readline()
"""


def slow_scrapers(d, uid, n):
    """uid's SLOW_SCRAPER of n connections: the process, and how many of
    them statsd closed before answering."""
    pw = pwd.getpwuid(uid)
    p = spawn(as_user(["/usr/bin/python3", "-c", SLOW_SCRAPER,
                       str(d.port), str(n)], uid=uid, regid=pw.pw_gid),
              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline().strip()
    return p, int(line) if line.isdigit() else line


def root_scrape(d):
    url = "http://127.0.0.1:%d/metrics" % d.port
    try:
        with urllib.request.urlopen(url, timeout=60) as resp:
            return (resp.status, b"statsd_daemon" in resp.read())
    except Exception as e:  # noqa: BLE001 (a status is a result)
        return (getattr(e, "code", str(e)), False)


def test_k1b_http_slow_scrapes_per_peer():
    """K1, held by scrapes: nobody kept all 16 HTTP connections with a
    scrape each, reading none of its reply; root's scrape got 503 and
    Prometheus nothing until http_timeout_ms. A local user, told by the
    kernel's socket diagnostics, now holds at most
    http_max_connections_per_peer (4): nobody's other 12 are closed as
    they come, and root's scrape is answered. Four users holding 4 each
    fill the 16; root's scrape is still answered, from the reserve
    (quota_reserve_percent of them, here 1) only privileged users may
    take, and a fifth user's connection is closed."""
    d = start("http_max_connections = 16\nhttp_timeout_ms = 3600000\n")
    c = d.conn()
    spec = ok(c.call("io.statsd.TemplateAdd", tpl("SLOWS", 8)), "t",
              False)["template"]["spec"]
    create_many(c, spec, "slow", "k", 20000)
    c.close()
    procs = []
    p, shut = slow_scrapers(d, NOBODY, 16)
    procs.append(p)
    check(shut == 12, "nobody's 16 scrapes: 12 closed at once, 4 held "
          "(%r)" % shut)
    got = root_scrape(d)
    check(got == (200, True), "root's scrape answered, whole, while "
          "nobody's 4 are held: %s" % (got,))
    # daemon, bin and sys (uids 1 to 3, Debian's base-passwd) too.
    for uid in (1, 2, 3):
        p, shut = slow_scrapers(d, uid, 4)
        procs.append(p)
        check(shut == 0, "uid %d's 4 scrapes held (%r closed)" % (uid,
                                                                  shut))
    got = root_scrape(d)
    check(got == (200, True), "root's scrape answered from the reserve "
          "while 16 slow scrapes of 4 users are held: %s" % (got,))
    p, shut = slow_scrapers(d, 4, 1)
    procs.append(p)
    check(shut == 1, "a fifth user's connection past the 16: closed (%r)"
          % shut)
    for p in procs:
        p.stdin.write("\n")
        p.stdin.flush()
        p.wait(timeout=harness.DEADLINE)
    d.wd.close()
    d.stop()
    m = re.findall(r"http: (\d+) connections past "
                   r"http_max_connections_per_peer closed, (\d+) past "
                   r"http_max_connections", d.stderr())
    check(m == [("12", "1")], "the exit log counts them: %s" % m)
    d.cleanup()


SERIES_RE = re.compile(r'^(statsd_\w+)\{module="([^"]+)",'
                       r'kstat_instance="(\d+)",name="([^"]+)"')


def exposition(text):
    """The kstats a Prometheus text shows, and whether each metric's
    series come together (a name never comes back after another)."""
    shown, names, together = set(), [], True
    for ln in text.splitlines():
        m = SERIES_RE.match(ln)
        if m is None:
            continue
        shown.add((m.group(2), int(m.group(3)), m.group(4)))
        if not names or names[-1] != m.group(1):
            together = together and m.group(1) not in names
            names.append(m.group(1))
    return shown, together


def test_k2_index_merged_not_sorted():
    """K2: a scrape after a change sorted the whole exposition index in
    one step; a varlink Scrape matching nothing did too. Changes are
    merged into the index now: after rounds of creations and deletions
    (enough to compact its strings), each scrape shows exactly the kstats
    there are, every metric's series together, and root is answered
    throughout."""
    d = start()
    c = d.conn()
    spec = ok(c.call("io.statsd.TemplateAdd", tpl("K2", 1)),
              "template")["template"]["spec"]
    rnd = random.Random(21)
    live = set()
    for i in range(3000):
        live.add(("k2m%d" % rnd.randrange(40), i, "n%d" % rnd.randrange(9)))
    for base in range(0, 3000, 500):
        ok(c.call("io.statsd.KstatCreateMany", {"template": spec, "kstats": [
            {"module": m, "instance": i, "name": n} for (m, i, n) in
            sorted(live) if base <= i < base + 500]}), "create", False)
    h = Hostile(d)
    root = Root(d)
    nxt, good = 3000, 0
    for rnd_i in range(20):
        for k in rnd.sample(sorted(live), 200):
            ok(c.call("io.statsd.KstatDelete", {"module": k[0],
                                                "instance": k[1],
                                                "name": k[2]}),
               "delete", False)
            live.discard(k)
        for _ in range(200):
            k = ("k2m%d" % rnd.randrange(40), nxt, "n%d" % rnd.randrange(9))
            nxt += 1
            ok(c.call("io.statsd.KstatCreate", {"module": k[0],
                                                "instance": k[1],
                                                "name": k[2],
                                                "template": spec}),
               "create", False)
            live.add(k)
        r = h.cmd(op="pages", calls=[
            ("io.statsd.Scrape", {"format": "prometheus",
                                  "selector": "nothing:0:here"}),
            ("io.statsd.Scrape", {"format": "prometheus",
                                  "selector": "/^k2m/:*:*"})])["replies"]
        none = ok(r[0], "a scrape matching nothing", False)
        shown, together = exposition(ok(r[1], "a scrape", False)
                                     .get("text", ""))
        good += (SERIES_RE.search(none.get("text", "")) is None and
                 shown == live and together)
    root.done("K2")
    check(good == 20, "20 scrapes after changes: exactly the kstats there "
          "are, each metric together: %d" % good)
    c.close()
    h.quit()
    stop(d)


def test_row14_streams_never_read():
    """Row 14: 64 connections each start Chain with "more" over many
    kstats and never read: each page waits for its uid's turn and for the
    client's output to fall, and root is answered meanwhile."""
    d = start()
    c = d.conn()
    spec = ok(c.call("io.statsd.TemplateAdd", tpl("T14", 2)),
              "template")["template"]["spec"]
    create_many(c, spec, "chain", "k", 20000)
    c.close()
    h = Hostile(d)
    root = Root(d)
    h.cmd(op="pipeline", n=63, calls=1, method="io.statsd.Chain",
          more=True)
    time.sleep(3)
    root.done("row 14")
    h.cmd(op="close")
    r = h.cmd(op="pages", calls=[("io.statsd.Chain", {})])["replies"][0]
    check(len(ok(r, "nobody's own Chain, read")["kstats"]) == 20000 + 2,
          "a Chain read to its end lists every kstat")
    h.cmd(op="close")
    h.quit()
    stop(d)


def test_soak_every_attack():
    """Every attack above at once, for a bounded while, while a victim
    creates and deletes kstats and root calls Info: root's calls are all
    answered, every scrape is whole, the victim's work is exact."""
    d = start()
    c = d.conn()
    spec = ok(c.call("io.statsd.TemplateAdd", tpl("SOAK", 64)),
              "template")["template"]["spec"]
    create_many(c, spec, "grp", "same", 10000)
    c.close()
    h = Hostile(d)
    h2 = Hostile(d)
    root = Root(d, scrape_every=0.2)
    victim = d.conn()
    vspec = ok(victim.call("io.statsd.TemplateAdd", tpl("V", 2)),
               "victim's template")["template"]["spec"]
    h.cmd(op="pipeline", n=24, calls=300, method="io.statsd.Info")
    h.cmd(op="pipeline", n=16, calls=1, method="io.statsd.Chain",
          more=True)
    h.cmd(op="pipeline", n=8, calls=4, method="io.statsd.Scrape",
          parameters={"format": "prometheus",
                      "selector": "grp:/^(7|12345)$/:same"})
    # Held unread: with every other attack of the same user queued, its
    # messages get a share of one turn a round, and would take long.
    h2.cmd(op="flood", n=4, bytes=65536, read=False)
    made = 0
    t_end = time.monotonic() + 15
    while time.monotonic() < t_end:
        ok(victim.call("io.statsd.KstatCreate", {
            "module": "victim", "instance": made, "name": "k",
            "template": vspec}), "the victim's create", False)
        made += 1
        if made % 2 == 0:
            ok(victim.call("io.statsd.KstatDelete", {
                "module": "victim", "instance": made - 2, "name": "k"}),
               "the victim's delete", False)
    lat = root.done("soak")
    victim.close()
    victim = d.conn()
    left = []
    p = {"module": "victim"}
    while True:
        r = ok(victim.call("io.statsd.Lookup", p), "Lookup", False)
        left += r.get("kstats", [])
        if "cursor" not in r:
            break
        p = {"module": "victim", "cursor": r["cursor"]}
    check(len(left) == made - made // 2, "the victim's kstats, exactly: "
          "%d of %d made" % (len(left), made))
    victim.close()
    if lat:
        print("soak: %d root calls; median %.1f ms, p99 %.1f ms, max %.1f ms"
              % (len(lat), 1000 * statistics.median(lat),
                 1000 * lat[min(len(lat) - 1, int(len(lat) * .99))],
                 1000 * lat[-1]))
    h.cmd(op="close")
    h2.cmd(op="close")
    h.quit()
    h2.quit()
    stop(d)


def test_calls_at_once():
    """A client making one call at a time, root or nobody, has each
    answered in its read callback (turns_run_now()): no round is armed
    for it. The exit log counts them. (That nobody's calls pipelined on
    many connections still queue, and root is served meanwhile, is row
    2's.)"""
    d = start()
    c = d.conn()
    for _ in range(200):
        ok(c.call("io.statsd.Hello", {}), "root's Hello")
    c.close()
    h = Hostile(d)
    r = h.cmd(op="calls", calls=[("io.statsd.Hello", {})] * 200)["replies"]
    check(len(r) == 200 and all("error" not in x for x in r),
          "nobody's 200 Hellos answered")
    h.quit()
    d.wd.close()
    d.stop()
    m = re.search(r"turns: (\d+) in (\d+) rounds, (\d+) taken at once",
                  d.stderr())
    check(m is not None and int(m.group(3)) >= 400 and
          int(m.group(3)) <= int(m.group(1)),
          "root's and nobody's 400 calls one at a time taken at once: %s"
          % (m and m.group(0)))
    d.cleanup()


TESTS = (test_row1_family_walk_bounded,
         test_row1b_zone_kstats_anonymous_scrape, test_row2_k4_pipelined_info,
         test_calls_at_once,
         test_row4_empty_messages, test_row8_http_not_charged_to_nobody,
         test_k1_http_slow_headers, test_k1b_http_slow_scrapes_per_peer,
         test_k2_index_merged_not_sorted,
         test_row14_streams_never_read, test_soak_every_attack)
if __name__ == "__main__":
    for t in TESTS:
        if len(sys.argv) > 1 and t.__name__ not in sys.argv[1:]:
            continue
        print("--", t.__name__, flush=True)
        t()
    finish()
