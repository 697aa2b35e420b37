# SPDX-License-Identifier: BSD-2-Clause
"""test_statsd.py: the statsd/DogStatsD front door. Raw datagrams over UDP
and the Unix datagram socket for every protocol feature, with each value
read back exactly through `statsctl scrape --format openmetrics` (sample
name, labels and value); Debian's python3-statsd as a real client
(counter, timer, gauge, set, pipeline; its decr is a counted refusal, as
a counter never goes down); malformed lines (garbage, bad numbers, bad types,
empty names, oversize datagrams, invalid UTF-8, 10,000 distinct names),
also from uid 65534 on the Unix socket, each refused and counted with
nothing existing changed; rights on the Unix socket; the series caps; TTL
expiry into dormancy and PERSISTENT prefixes.

Every wait polls statsd's own counters (statsd:0:daemon) with a deadline:
a datagram has been handled once statsd_datagrams counts it.
"""
import os
import re
import shutil
import socket
import sys
import math

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (Daemon, check, finish, free_port, ok,  # noqa: E402
                     read_data, wait_for, as_user, run, scrape_om, spawn)

PY = "/usr/bin/python3"


def self_stats(d):
    return read_data(d, "statsd", 0, "daemon")


class Front:
    """A statsd with its two datagram sockets, and a way to send to them
    and wait until statsd has read what was sent."""

    def __init__(self, extra="", tmp=None):
        """tmp: the directories of a statsd before, for a restart."""
        self.port = free_port(socket.SOCK_DGRAM)
        self.d = Daemon(tmp=tmp, config="statsd_udp = 127.0.0.1:%d\n%s" %
                        (self.port, extra))
        self.d.start()
        self.dgram = os.path.join(self.d.run, "statsd.dgram")
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sent = 0

    def wait(self):
        want = self.sent
        return wait_for(lambda: self_stats(self.d)["statsd_datagrams"] >=
                        want, "statsd to read %d datagrams" % want)

    def send(self, data, wait=True):
        if isinstance(data, str):
            data = data.encode()
        self.udp.sendto(data, ("127.0.0.1", self.port))
        self.sent += 1
        if wait:
            self.wait()

    def send_unix(self, data, wait=True):
        if isinstance(data, str):
            data = data.encode()
        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        s.sendto(data, self.dgram)
        s.close()
        self.sent += 1
        if wait:
            self.wait()

    def send_as_nobody(self, lines):
        """Each of lines as one datagram from uid 65534."""
        prog = ("import socket,sys\n"
                "s=socket.socket(socket.AF_UNIX,socket.SOCK_DGRAM)\n"
                "for l in sys.argv[2:]:\n"
                "    s.sendto(bytes.fromhex(l), sys.argv[1])\n")
        hexes = [(x.encode() if isinstance(x, str) else x).hex()
                 for x in lines]
        p = run(as_user([PY, "-c", prog, self.dgram] + hexes),
                capture_output=True, text=True)
        check(p.returncode == 0, "nobody's sender ran: %s" % p.stderr)
        self.sent += len(lines)
        self.wait()

    def series(self, type_, name, tags=()):
        """The kstat of a series, by its path; None if there is none.
        For what the exposition does not show: its owner."""
        want = ["statsd", type_, name] + sorted(set(tags))
        params = {"module": "statsd", "class": "statsd",
                  "name": "/^" + re.escape(name[:30]) + "$/"}
        while True:
            r = ok(self.d.call("io.statsd.Lookup", params),
                   "Lookup statsd series", False)
            for k in r["kstats"]:
                if k.get("path") == want:
                    return k
            if not r.get("cursor"):
                return None
            params["cursor"] = r["cursor"]


def sample(name, **labels):
    return (name, frozenset(labels.items()))


def expect(f, want, what):
    """Each of want's samples ({sample(name, label=value): value}) as the
    OpenMetrics scrape shows it, exactly."""
    got = scrape_om(f.d, what)
    for key, v in want.items():
        check(key in got and got[key] == v, "%s: %s%s = %s, want %s" %
              (what, key[0], dict(key[1]), got.get(key), v))
    return got


def carried(*incs):
    """A counter's sum of these increments (count/rate each) as statsd
    keeps it: whole numbers, each increment's fraction carried to the
    next, so the sum stays within one of the exact total."""
    carry, total = 0.0, 0
    for x in incs:
        w = carry + x
        n = math.floor(w + 1e-9)
        carry = w - n
        total += n
    return total


def flat(f, name, field):
    """A series' statistic as statsctl shows it (statsd::<name>:<field>):
    what the blob keeps beside the exposition's one family (a counter's
    COUNT of lines, a timer's MIN and MAX). None when absent."""
    p = run([os.environ.get("STATSCTL", "statsctl"), "--socket", f.d.sock,
             "show", "-p", "statsd::%s:%s" % (name, field)],
            capture_output=True, text=True, timeout=30)
    vals = [ln.split("\t")[1] for ln in p.stdout.splitlines()]
    return int(vals[0]) if p.returncode == 0 and len(vals) == 1 else None


def refused(before, after, reason):
    key = "statsd_refused_" + reason
    return after[key] - before[key]


# ------------------------------------------------------------ the protocol
f = Front("statsd_max_datagram = 8192\nstatsd_udp_max_series = 1000\n")
st0 = self_stats(f.d)
check(st0["statsd_lines"] == 0 and st0["statsd_kernel_drops"] == 0,
      "statsd's own kstat counts the front door")
# Its totals are counters (_total, which the strict OpenMetrics parser
# holds to the counter type), its levels gauges.
own = scrape_om(f.d, "self")
for key in ("statsd_statsd_daemon_statsd_lines_total",
            "statsd_statsd_daemon_statsd_datagrams_total",
            "statsd_statsd_daemon_applied_total",
            "statsd_statsd_daemon_drain_seconds_total",
            "statsd_statsd_daemon_statsd_refused_cap_total",
            "statsd_statsd_daemon_clients",
            "statsd_statsd_daemon_statsd_series",
            "statsd_statsd_daemon_uptime_seconds"):
    check(any(k[0] == key for k in own), "statsd's own %s" % key)

# A counter is one OpenMetrics counter of the metric's name: its sum (the
# count scaled by 1/rate). The values received stay in the blob (COUNT),
# for statsctl and Read, and are not a second series.
f.send("t.c:3|c")
f.send("t.c:3|c\nt.c:1|c|@0.1")       # @0.1: 10
got = expect(f, {sample("statsd_t_c_total"): 16}, "counter t.c")
check([k for k in got if k[0].startswith("statsd_t_c")] ==
      [sample("statsd_t_c_total")], "a counter is one series: %s" %
      [k for k in got if k[0].startswith("statsd_t_c")])
check(flat(f, "t.c", "value.count") == 3, "counter t.c: COUNT 3 in the blob")
# A sampled count is scaled, whole, its fraction carried to the next:
# 5|c|@0.3 adds 16 (16.67), 1|c|@0.3 then 4 (0.67 + 3.33), 2.5|c 2: 22
# for 22.5, and never more than one off the exact total.
f.send("t.q:5|c|@0.3")
f.send("t.q:1|c|@0.3\nt.q:2.5|c")
expect(f, {sample("statsd_t_q_total"): 22}, "counter t.q")
check(flat(f, "t.q", "value.count") == 3, "counter t.q: COUNT 3")
check(carried(5 / 0.3, 1 / 0.3, 2.5) == 22, "the test's model agrees")
f.send("".join("t.r:1|c|@0.3\n" for _ in range(30)))
expect(f, {sample("statsd_t_r_total"): 100}, "30 x 1|c|@0.3 add 100")

f.send("t.g:10|g")
f.send("t.g:+5|g\r\nt.g:-3|g\r\n")     # deltas, CR-LF
expect(f, {sample("statsd_t_g"): 12}, "gauge t.g")
f.send("t.g:7|g")
expect(f, {sample("statsd_t_g"): 7}, "gauge t.g set")

# A timer is one histogram in seconds (kept in microseconds): the classic
# buckets of statsd_buckets_timer (client_golang's DefBuckets), exact
# decimals, 14 series. MIN, MAX and the t-digest stay in the blob.
f.send("t.ms:12.5|ms\nt.ms:2|ms")
TIMER_LE = ["0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1.0",
            "2.5", "5.0", "10.0", "+Inf"]
want = {sample("statsd_t_ms_seconds_bucket", le=le): 1 if le == "0.005"
        else 2 for le in TIMER_LE}
want[sample("statsd_t_ms_seconds_bucket", le="0.01")] = 1
want[sample("statsd_t_ms_seconds_sum")] = 0.0145
want[sample("statsd_t_ms_seconds_count")] = 2
got = expect(f, want, "timer t.ms")
check(len([k for k in got if k[0].startswith("statsd_t_ms")]) == 14,
      "a timer is 14 series")
check(flat(f, "t.ms", "value.min") == 2000 and
      flat(f, "t.ms", "value.max") == 12500 and
      flat(f, "t.ms", "value.count") == 2, "timer t.ms: MIN, MAX, COUNT "
      "in the blob")
# A histogram is one histogram in the unit sent, its buckets' bounds
# statsd_buckets_histogram's whole numbers.
f.send("t.h:100|h|@0.5\nt.h:300|h")
expect(f, {sample("statsd_t_h_sum"): 500, sample("statsd_t_h_count"): 3,
           sample("statsd_t_h_bucket", le="50.0"): 0,
           sample("statsd_t_h_bucket", le="100.0"): 2,
           sample("statsd_t_h_bucket", le="250.0"): 2,
           sample("statsd_t_h_bucket", le="500.0"): 3,
           sample("statsd_t_h_bucket", le="+Inf"): 3}, "histogram t.h")
check(flat(f, "t.h", "value.min") == 100 and
      flat(f, "t.h", "value.max") == 300, "histogram t.h: MIN, MAX")
# DogStatsD 1.1: several values on a line; a distribution's weight 1/rate.
f.send("t.d:1:2:3|d|@0.25")
expect(f, {sample("statsd_t_d_sum"): 24, sample("statsd_t_d_count"): 12,
           sample("statsd_t_d_bucket", le="1.0"): 4,
           sample("statsd_t_d_bucket", le="2.0"): 8,
           sample("statsd_t_d_bucket", le="5.0"): 12},
       "distribution t.d")
# Whole weights, the fraction carried: ten values at @0.3 weigh 33, not 30.
f.send("\n".join(["t.w:2|h|@0.3"] * 7 + ["t.w:2:2:2|h|@0.3"]))
expect(f, {sample("statsd_t_w_count"): 33, sample("statsd_t_w_sum"): 66,
           sample("statsd_t_w_bucket", le="1.0"): 0,
           sample("statsd_t_w_bucket", le="2.0"): 33,
           sample("statsd_t_w_bucket", le="+Inf"): 33}, "weights of @0.3")
f.send("t.s:alice|s\nt.s:bob|s\nt.s:alice:carol|s")
got = expect(f, {sample("statsd_t_s"): 3}, "set t.s: the distinct count")
check([k for k in got if k[0].startswith("statsd_t_s")] ==
      [sample("statsd_t_s")], "a set is one series, members never labels")

# Tags: the set, not their order, names the series; they are its labels.
f.send("t.tag:1|c|#env:prod,web")
f.send("t.tag:2|c|#web,env:prod,web")
f.send("t.tag:5|c|#env:dev")
got = expect(f, {sample("statsd_t_tag_total", env="prod", web="true"): 3,
                 sample("statsd_t_tag_total", env="dev"): 5}, "tags")
check(sample("statsd_t_tag_total") not in got, "no untagged t.tag")
# The issue's own example.
f.send("peer.requests:1|c|#env:prod,zone:b/2")
expect(f, {sample("statsd_peer_requests_total", env="prod", zone="b/2"): 1},
       "peer.requests with #env:prod")
# statsctl selects series by their tags (each -t must match).
STATSCTL = os.environ.get("STATSCTL")
if check(STATSCTL is not None, "STATSCTL is set"):
    def show(*tags):
        argv = [STATSCTL, "--socket", f.d.sock, "show", "-p"]
        for t in tags:
            argv += ["-t", t]
        p = run(argv + ["statsd:::value.sum"], capture_output=True,
                text=True)
        return p.returncode, sorted(ln.split("\t")[1] for ln in
                                    p.stdout.splitlines())
    rc, vals = show("env:prod")
    check(rc == 0 and vals == ["1", "3"],
          "show -t env:prod: %s %s" % (rc, vals))
    rc, vals = show("web", "env:prod")
    check(rc == 0 and vals == ["3"],
          "show -t web -t env:prod: %s" % vals)
    rc, vals = show("env:dev")
    check(rc == 0 and vals == ["5"], "show -t env:dev: %s" % vals)
    rc, vals = show("env:dev", "web")
    check(rc != 0 and vals == [], "no series carries both: %s" % vals)
    rc, vals = show("env")
    check(rc != 0, "a tag matches whole, not a prefix: %s" % vals)
# Any UTF-8 travels, escaped in the path.
f.send("caf\u00e9:1|c|#city:z\u00fcrich,path:/a/b".encode())
check(f.series("counter", "caf%C3%A9", ["city:z%C3%BCrich",
                                        "path:%2Fa%2Fb"]) is not None,
      "UTF-8 escaped in the kstat2 path")
expect(f, {sample("statsd_caf_total", city="z\u00fcrich", path="/a/b"): 1},
       "UTF-8 name and tags")

# The container field is the tag container_id (over a container_id tag of
# the line's own); timestamps are taken; an unknown field is skipped and
# counted, the line still applied.
before = self_stats(f.d)
f.send("t.f:1|c|c:0123abcd|T1700000000\nt.f:1|c|e:what|x")
f.send("t.f:2|c|#container_id:mine,env:prod|c:0123abcd\n"
       "t.f:4|c|#container_id:mine")
expect(f, {sample("statsd_t_f_total", container_id="0123abcd"): 1,
           sample("statsd_t_f_total", container_id="0123abcd", env="prod"): 2,
           sample("statsd_t_f_total", container_id="mine"): 4,
           sample("statsd_t_f_total"): 1}, "fields")
after = self_stats(f.d)
check(after["statsd_ignored_fields"] - before["statsd_ignored_fields"] == 2,
      "unknown fields counted")
check(after["statsd_applied"] - before["statsd_applied"] == 4,
      "lines with unknown fields applied")

# The Unix socket: the sender's uid owns what it makes, in a namespace of
# its own: its series carry the tag statsd_uid:<uid> (a label).
f.send_unix("u.c:4|c")
expect(f, {sample("statsd_u_c_total", statsd_uid="0"): 4}, "Unix socket")
check(f.series("counter", "u.c", ["statsd_uid:0"])["owner"] == 0,
      "owned by its sender")
before = self_stats(f.d)
f.send_as_nobody(["n.c:2|c", "n.c:3|c", "n.c:1|c|c:ctr",
                  "n.c:1|c|#a,b,c,d,e,f,g,h,i,j,k,l|c:ctr"])
check(refused(before, self_stats(f.d), "toolong") == 1,
      "the container tag and the owner's are the 13th and 14th: past a "
      "path's 13")
expect(f, {sample("statsd_n_c_total", statsd_uid="65534"): 5,
           sample("statsd_n_c_total", container_id="ctr",
                  statsd_uid="65534"): 1},
       "nobody's n.c")
check(f.series("counter", "n.c", ["statsd_uid:65534"])["owner"] == 65534,
      "nobody owns n.c")
# ...and its lines of others' names make series of its own: root's and
# UDP's are never written, nor shown under nobody's value.
before = self_stats(f.d)
f.send_as_nobody(["u.c:100|c", "t.c:100|c|#statsd_uid:0"])
after = self_stats(f.d)
check(refused(before, after, "denied") == 0 and
      after["statsd_applied"] - before["statsd_applied"] == 2,
      "nobody's lines of others' names applied to its own series")
expect(f, {sample("statsd_u_c_total", statsd_uid="0"): 4,
           sample("statsd_t_c_total"): 16,
           sample("statsd_u_c_total", statsd_uid="65534"): 100,
           sample("statsd_t_c_total", statsd_uid="65534"): 100},
       "others' series unchanged, nobody's its own")

# A counter never goes down: a negative increment refuses its line whole
# (statsd_refused_negative), as the Prometheus statsd_exporter does;
# values that go down are a gauge's deltas (-N|g).
before = self_stats(f.d)
f.send("t.c:-1|c\nt.c:2:-1|c\nt.new:-1|c")
f.send_as_nobody(["n.c:-3|c", "n.c:1:-0.5|c|@0.5"])
after = self_stats(f.d)
check(refused(before, after, "negative") == 5,
      "negative increments refused and counted: %d" %
      refused(before, after, "negative"))
check(after["statsd_applied"] == before["statsd_applied"],
      "no negative increment applied")
got = expect(f, {sample("statsd_t_c_total"): 16,
                 sample("statsd_n_c_total", statsd_uid="65534"): 5},
             "counters unchanged")
check(sample("statsd_t_new_total") not in got,
      "a refused increment makes no series")

# -------------------------------------------------- python3-statsd client
code = """
import statsd, sys
c = statsd.StatsClient('127.0.0.1', int(sys.argv[1]), prefix='py')
c.incr('hits')
c.incr('hits', 4)
c.decr('hits', 2)
c.timing('lat', 12)
c.gauge('level', 40)
c.gauge('level', 2, delta=True)
c.set('users', 'ann')
with c.pipeline() as p:
    p.incr('hits')
    p.timing('lat', 30)
    p.gauge('level', -12, delta=True)
"""
before = self_stats(f.d)
p = run([PY, "-c", code, str(f.port), f.dgram], capture_output=True,
        text=True)
check(p.returncode == 0, "python3-statsd ran: %s" % p.stderr)
# eight datagrams: seven plain ones and the pipeline's (python3-statsd's
# Unix client speaks SOCK_STREAM, not datagrams: UDP only)
f.sent = before["statsd_datagrams"] + 8
f.wait()
after = self_stats(f.d)
# decr('hits', 2) sends hits:-2|c: refused, counted; the rest applied.
check(refused(before, after, "negative") == 1, "python's decr refused")
check(after["statsd_applied"] - before["statsd_applied"] == 9,
      "python's other lines applied: %d" %
      (after["statsd_applied"] - before["statsd_applied"]))
expect(f, {sample("statsd_py_hits_total"): 6,
           sample("statsd_py_lat_seconds_sum"): 0.042,
           sample("statsd_py_lat_seconds_count"): 2,
           sample("statsd_py_level"): 30,
           sample("statsd_py_users"): 1}, "python3-statsd")
# ------------------------------------------------------------ bad input
# What the bad input must leave as it is: every sample of these series.
MINE = ("statsd_t_", "statsd_n_c")


def mine():
    return {k: v for k, v in scrape_om(f.d, "snapshot").items()
            if k[0].startswith(MINE)}


# A datagram's first line is parsed ahead of its turn (front.c's hints)
# and taken from there: refused once when bad, and the lines after it
# applied once each.
before = self_stats(f.d)
f.send(b"garbage\nt.first:1|c\nt.first:2|c")
f.send(b"t.first:4|c\nt.c:1|x")
after = self_stats(f.d)
check(after["statsd_rejected_syntax"] - before["statsd_rejected_syntax"]
      == 1 and after["statsd_rejected_type"] -
      before["statsd_rejected_type"] == 1 and after["statsd_applied"] -
      before["statsd_applied"] == 3, "a bad first line is refused once, "
      "every other line applied once")
check(flat(f, "t.first", "value.sum") == 7, "t.first: SUM 7")
snapshot = mine()
check(len(snapshot) > 50, "a snapshot of %d samples" % len(snapshot))

BAD = [
    ("garbage", "syntax"),
    ("t.c:1", "syntax"),
    (":1|c", "name"),
    ("t c:1|c", "name"),
    ("t.c:1|x", "type"),
    ("t.c:1|cc", "type"),
    ("t.c:abc|c", "value"),
    ("t.c:1.2.3|c", "value"),
    ("t.g:nan|g", "value"),
    ("t.c:0x10|c", "value"),
    ("t.c:1|c|@2", "rate"),
    ("t.c:1|c|@0", "rate"),
    ("t.c:1|c|#:v", "tags"),
    (b"t.c\xff:1|c", "utf8"),
    (b"t.s:\xc0\x80|s", "utf8"),
    ("_e{1,1}:a|b", "event"),
    ("t.c:1|c|T17x", "timestamp"),
]


def bad_round(sender, who):
    before = self_stats(f.d)
    sender([b for b, _ in BAD])
    after = self_stats(f.d)
    want = {}
    for _, reason in BAD:
        want[reason] = want.get(reason, 0) + 1
    for reason, n in want.items():
        key = "statsd_rejected_" + reason
        check(after[key] - before[key] == n, "%s: %s refused %d times "
              "(got %d)" % (who, reason, n, after[key] - before[key]))
    check(after["statsd_applied"] == before["statsd_applied"],
          "%s: no bad line applied" % who)


def udp_all(lines):
    for x in lines:
        f.send(x, wait=False)
    f.wait()


bad_round(udp_all, "UDP")
bad_round(f.send_as_nobody, "uid 65534 on the Unix socket")

# An oversize datagram is dropped whole, and counted.
before = self_stats(f.d)
f.send(b"t.c:1|c\n" * 1200)          # 9,600 bytes: past 8,192
check(self_stats(f.d)["statsd_oversize"] - before["statsd_oversize"] == 1,
      "an oversize datagram counted")
p = run(as_user([PY, "-c",
                 "import socket,sys\n"
                 "s=socket.socket(socket.AF_UNIX,socket.SOCK_DGRAM)\n"
                 "s.setsockopt(socket.SOL_SOCKET,socket.SO_SNDBUF,1<<20)\n"
                 "s.sendto(b't.c:1|c\\n'*9000, sys.argv[1])\n", f.dgram]),
        capture_output=True, text=True)
check(p.returncode == 0, "nobody sent an oversize datagram: %s" % p.stderr)
f.sent += 1
f.wait()
check(self_stats(f.d)["statsd_oversize"] - before["statsd_oversize"] == 2,
      "an oversize Unix datagram counted")

# 10,000 distinct names: the caps refuse what is past them, counted.
before = self_stats(f.d)
for i in range(0, 10000, 100):
    f.send("".join("flood.%d:1|c\n" % j for j in range(i, i + 100)),
           wait=False)
f.wait()
after = self_stats(f.d)
made = after["statsd_series_created"] - before["statsd_series_created"]
capped = after["statsd_refused_cap"] - before["statsd_refused_cap"]
check(made + capped == 10000, "10,000 names: made %d + capped %d" %
      (made, capped))
check(capped > 0 and made <= 1000,
      "the cap held: %d series" % after["statsd_series"])
now = mine()
check(now == snapshot, "bad input changed nothing: %s" %
      sorted(k for k in set(now) | set(snapshot)
             if now.get(k) != snapshot.get(k))[:5])
check(f.d.alive(), "statsd still serves")

f.d.stop()

# ------------------------------------- caps, TTL, dormancy, PERSISTENT
g = Front("statsd_ttl_s = 1\nstatsd_persistent_prefixes = keep.\n"
          "statsd_udp_max_series = 3\n")
g.send("keep.x:5|c\ndrop.y:1|c\na:1|c\nb:1|c")
check(self_stats(g.d)["statsd_refused_cap"] == 1, "UDP's own cap: 3")
wait_for(lambda: self_stats(g.d)["statsd_series_expired"] >= 3,
         "idle series to expire")
check(sample("statsd_drop_y_total") not in scrape_om(g.d, "expired"),
      "an idle series is removed")
# Dormancy is a kstat flag the exposition does not show: Chain.
ch = ok(g.d.call("io.statsd.Chain", {"dormant": True}), "Chain", False)
dormant = [k for k in ch["kstats"]
           if k.get("path") == ["statsd", "counter", "keep.x"]]
check(len(dormant) == 1 and sorted(dormant[0]["flags"]) ==
      ["DORMANT", "PERSISTENT"], "an idle PERSISTENT series sleeps: %s" %
      dormant)
# A line wakes it with its data. With a TTL of one second it may sleep
# again before a scrape sees it (a loaded machine's scrape takes that
# long): let it, every time, and then wake it and scrape until a scrape
# comes first. Every line adds 1 to what it had, whether it found the
# series awake or asleep.
expired = self_stats(g.d)["statsd_series_expired"]
g.send("keep.x:1|c")
wait_for(lambda: self_stats(g.d)["statsd_series_expired"] > expired,
         "the woken series to sleep again")
lines = 1


def woken():
    global lines
    g.send("keep.x:1|c")
    lines += 1
    return scrape_om(g.d, "woken").get(sample("statsd_keep_x_total"))


got = wait_for(woken, "a scrape of the woken series")
check(got == 5 + lines, "a PERSISTENT series wakes with its data: %s, "
      "want 5 + %d lines" % (got, lines))
g.d.stop()

# --------------------------------------------- PERSISTENT across a restart
# A PERSISTENT series comes back with its data; a set's HyperLogLog is in
# its blob, so its estimate past the exact LIST survives too.
KEEP = "statsd_persistent_prefixes = keep.\nstatsd_set_exact_max = 8\n"
g = Front(KEEP)
for i in range(0, 600, 50):
    g.send("".join("keep.s:m%d|s\n" % j for j in range(i, i + 50)),
           wait=False)
g.send("keep.c:5|c\nkeep.c:1|c|@0.3")
est = scrape_om(g.d, "before the restart").get(sample("statsd_keep_s"))
check(est is not None and 540 <= est <= 660,
      "600 members, past a LIST of 8: estimated %s" % est)
g.d.stop()
made = re.findall(r"runtime files' thread: (\d+) made", g.d.stderr())
check(made and int(made[-1]) == 2, "the two PERSISTENT series' files were "
      "made by the runtime files' thread: %s" % made)
g = Front(KEEP, tmp=g.d.tmp)
g.send("keep.s:m0:m599|s\nkeep.c:1|c")
expect(g, {sample("statsd_keep_s"): est,
           sample("statsd_keep_c_total"): carried(5, 1 / 0.3) + 1},
       "PERSISTENT series after a restart")
g.send("".join("keep.s:n%d|s\n" % j for j in range(600)))
est2 = scrape_om(g.d, "after the restart").get(sample("statsd_keep_s"))
check(est2 is not None and 1080 <= est2 <= 1320,
      "600 more members: estimated %s of 1200" % est2)
g.d.stop()

# ------------------------- PERSISTENT series across a change of layout
# A timer's and a histogram's template is laid out by statsd_buckets_* and
# statsd_native_schema, and named by a digest of that layout. Restarted
# with other buckets and another schema, statsd brings back the older
# template from the checkpoint: the series keep their data exactly (count,
# sum, t-digest, every histogram as the older layout held it), new lines
# go on into that layout, and a new series takes the new one. The same
# after a reboot (no runtime files: the checkpoint's blobs).
LAY_A = ("statsd_persistent_prefixes = lay.\n"
         "statsd_buckets_timer = 0.005,0.05,0.5\n"
         "statsd_buckets_histogram = 10,100\n"
         "statsd_native_schema = 2\n")
LAY_B = ("statsd_persistent_prefixes = lay.\n"
         "statsd_buckets_timer = 0.01,0.1,1,10\n"
         "statsd_buckets_histogram = 5,50,500\n"
         "statsd_native_schema = 0\n")


def lay_read(g, name):
    """The kstat of series name (statsd's, UDP's), its data and blob."""
    r = ok(g.d.call("io.statsd.Lookup", {"module": "statsd", "name": name}),
           "Lookup %s" % name, False)
    ks = r.get("kstats", [])
    if not check(len(ks) == 1, "one kstat of series %s: %d" % (name,
                                                               len(ks))):
        return {}, {}, {}
    r = ok(g.d.call("io.statsd.Read", {"module": "statsd", "instance":
                                       ks[0]["instance"], "name": name}),
           "Read %s" % name, False)
    # The time of the read itself aside.
    data = {x: v for x, v in r.get("data", {}).items() if x != "snaptime"}
    return r.get("kstat", {}), data, r.get("blob", {})


def lay_diff(a, b, at=""):
    """Where a and b differ (for a failure's message)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return "; ".join(lay_diff(a.get(x), b.get(x), "%s.%s" % (at, x))
                         for x in sorted(set(a) | set(b))
                         if a.get(x) != b.get(x))
    if (isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and
            len(a) == len(b)):
        return "; ".join(lay_diff(x, y, "%s[%d]" % (at, i))
                         for i, (x, y) in enumerate(zip(a, b)) if x != y)
    return "%s: %.80s != %.80s" % (at, a, b)


def lay_tpls(g):
    r = ok(g.d.call("io.statsd.TemplateList", {}), "TemplateList", False)
    return [t.get("name") for t in r.get("templates", [])]


g = Front(LAY_A)
g.send("lay.t:3|ms\nlay.t:40|ms\nlay.t:400|ms\nlay.t:4000|ms\n"
       "lay.h:1|h\nlay.h:7|h\nlay.h:70|h\nlay.h:700|h")
before = {n: lay_read(g, n) for n in ("lay.t", "lay.h")}
tpl_a = {n: before[n][0].get("template") for n in before}
check(all(re.match(r'^"statsd\.(timer|histogram)\.[0-9a-f]{8}":', t or "")
          for t in tpl_a.values()),
      "layout A: series templates named by a digest: %s" % tpl_a)
want_a = {sample("statsd_lay_t_seconds_bucket", le="0.005"): 1,
          sample("statsd_lay_t_seconds_bucket", le="0.05"): 2,
          sample("statsd_lay_t_seconds_bucket", le="0.5"): 3,
          sample("statsd_lay_t_seconds_bucket", le="+Inf"): 4,
          sample("statsd_lay_t_seconds_count"): 4,
          sample("statsd_lay_t_seconds_sum"): 4.443,
          sample("statsd_lay_h_bucket", le="10.0"): 2,
          sample("statsd_lay_h_bucket", le="100.0"): 3,
          sample("statsd_lay_h_bucket", le="+Inf"): 4,
          sample("statsd_lay_h_count"): 4,
          sample("statsd_lay_h_sum"): 778}
expect(g, want_a, "layout A")
g.d.stop()
for rnd, reboot in ((1, False), (2, True)):
    if reboot:
        shutil.rmtree(g.d.run)
    g = Front(LAY_B, tmp=g.d.tmp)
    for n in ("lay.t", "lay.h"):
        k, data, blob = lay_read(g, n)
        check(k.get("template") == tpl_a[n],
              "restart %d: %s keeps its template %s: %s" % (
                  rnd, n, tpl_a[n], k.get("template")))
        check(blob == before[n][2] and data == before[n][1],
              "restart %d: %s's data and blob exactly as before: %s" % (
                  rnd, n, lay_diff(before[n][1:], (data, blob))))
    names = lay_tpls(g)
    check(all(t.split(":")[0].strip('"') in names for t in tpl_a.values()),
          "restart %d: the older templates are listed: %s" % (rnd, names))
    expect(g, want_a, "restart %d: layout A's series in /metrics" % rnd)
    g.d.stop()
# New lines go into the older layout; a new series takes the new one.
g = Front(LAY_B, tmp=g.d.tmp)
g.send("lay.t:30|ms\nlay.h:8|h\nlay.t2:30|ms")
want = dict(want_a)
for key in ("0.05", "0.5", "+Inf"):
    want[sample("statsd_lay_t_seconds_bucket", le=key)] += 1
want[sample("statsd_lay_t_seconds_count")] = 5
want[sample("statsd_lay_t_seconds_sum")] = 4.473
for key in ("10.0", "100.0", "+Inf"):
    want[sample("statsd_lay_h_bucket", le=key)] += 1
want[sample("statsd_lay_h_count")] = 5
want[sample("statsd_lay_h_sum")] = 786
want[sample("statsd_lay_t2_seconds_bucket", le="0.01")] = 0
want[sample("statsd_lay_t2_seconds_bucket", le="0.1")] = 1
want[sample("statsd_lay_t2_seconds_count")] = 1
expect(g, want, "layout B: new lines into the older layout, a new series")
k2 = lay_read(g, "lay.t2")[0]
check(k2.get("template") not in (None, tpl_a["lay.t"]) and
      k2.get("template", "").startswith('"statsd.timer.'),
      "layout B: a new series of its own template: %s" % k2.get("template"))
g.d.stop()

# ------------------------------------------------------ socket activation
# systemd-socket-activate passes both datagram sockets (its --datagram
# applies to every socket it makes); statsd binds its control socket
# itself, and takes the passed ones instead of statsd_udp and statsd_unix.
ACTIVATE = shutil.which("systemd-socket-activate")
if ACTIVATE is not None:
    h = Daemon(config="statsd_udp = 127.0.0.1:1\nstatsd_unix = none\n")
    port = free_port(socket.SOCK_DGRAM)
    path = os.path.join(h.tmp, "activated.dgram")
    os.makedirs(h.run, exist_ok=True)
    log = open(h.logpath, "ab")
    proc = spawn([ACTIVATE, "--datagram", "-l", path,
                  "-l", "127.0.0.1:%d" % port] + h.argv(),
                 stdout=log, stderr=log)
    wait_for(lambda: os.path.exists(path), "systemd-socket-activate")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.sendto(b"act.unix:2|c", path)

    def answers():
        try:
            return "error" not in h.call("io.statsd.Hello", {})
        except OSError:
            return False
    wait_for(answers, "the activated statsd to answer")
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.sendto(b"act.udp:3|c", ("127.0.0.1", port))
    a = Front.__new__(Front)
    a.d = h
    a.sent = 2
    a.wait()
    # The Unix datagram came before statsd (it is what starts statsd),
    # so before statsd could ask for its sender's credentials
    # (SO_PASSCRED): a datagram without them is nobody's.
    expect(a, {sample("statsd_act_unix_total", statsd_uid="65534"): 2,
               sample("statsd_act_udp_total"): 3}, "socket activation")
    proc.terminate()
    check(proc.wait(timeout=30) == 0, "activated statsd exits 0")
    log.close()
    h.scan()
finish()
