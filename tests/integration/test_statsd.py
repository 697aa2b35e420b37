"""test_statsd.py: the statsd/DogStatsD front door. Raw datagrams over UDP
and the Unix datagram socket for every protocol feature, with each value
read back exactly; Debian's python3-statsd as a real client (counter,
timer, gauge, pipeline); malformed lines (garbage, bad numbers, bad types,
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (Daemon, check, finish, ok, wait_for, as_user, run,
                     spawn)  # noqa: E402

PY = "/usr/bin/python3"


def free_udp_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def self_stats(d):
    r = ok(d.call("io.statsd.Read", {"module": "statsd", "instance": 0,
                                     "name": "daemon"}), "Read self", False)
    return r["data"]


class Front:
    """A statsd with its two datagram sockets, and a way to send to them
    and wait until statsd has read what was sent."""

    def __init__(self, extra=""):
        self.port = free_udp_port()
        self.d = Daemon(config="statsd_udp = 127.0.0.1:%d\n%s" %
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
        """The kstat of a series, by its path; None if there is none."""
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

    def data(self, type_, name, tags=()):
        k = self.series(type_, name, tags)
        if not check(k is not None, "series %s %s %s exists" %
                     (type_, name, tags)):
            return {}
        r = ok(self.d.call("io.statsd.Read", {"module": k["module"],
                                              "instance": k["instance"],
                                              "name": k["name"]}),
               "Read", False)
        return r["data"]


def expect(f, type_, name, want, tags=()):
    got = f.data(type_, name, tags)
    for key, v in want.items():
        check(got.get(key) == v, "%s %s %s: %s = %s, want %s" %
              (type_, name, list(tags), key, got.get(key), v))


# ------------------------------------------------------------ the protocol
f = Front("statsd_max_datagram = 8192\nstatsd_udp_max_series = 1000\n")
st0 = self_stats(f.d)
check(st0["statsd_lines"] == 0 and st0["statsd_kernel_drops"] == 0,
      "statsd's own kstat counts the front door")

f.send("t.c:3|c")
f.send("t.c:3|c\nt.c:1|c|@0.1")       # @0.1: weight 10
expect(f, "counter", "t.c", {"value.sum": 16, "value.count": 12})

f.send("t.g:10|g")
f.send("t.g:+5|g\r\nt.g:-3|g\r\n")     # deltas, CR-LF
expect(f, "gauge", "t.g", {"value.last": 12})
f.send("t.g:7|g")
expect(f, "gauge", "t.g", {"value.last": 7})

f.send("t.ms:12.5|ms\nt.ms:2|ms")       # kept in microseconds
expect(f, "timer", "t.ms", {"value.sum": 14500, "value.min": 2000,
                            "value.max": 12500, "value.count": 2})
f.send("t.h:100|h|@0.5\nt.h:300|h")
expect(f, "histogram", "t.h", {"value.sum": 500, "value.count": 3,
                               "value.min": 100, "value.max": 300})
# DogStatsD 1.1: several values on a line; a distribution's weight 1/rate.
f.send("t.d:1:2:3|d|@0.25")
expect(f, "distribution", "t.d", {"value.sum": 24, "value.count": 12,
                                  "value.min": 1, "value.max": 3})
f.send("t.s:alice|s\nt.s:bob|s\nt.s:alice:carol|s")
expect(f, "set", "t.s", {"distinct.last": 3})

# Tags: the set, not their order, names the series.
f.send("t.tag:1|c|#env:prod,web")
f.send("t.tag:2|c|#web,env:prod,web")
f.send("t.tag:5|c|#env:dev")
expect(f, "counter", "t.tag", {"value.sum": 3}, ["env:prod", "web"])
expect(f, "counter", "t.tag", {"value.sum": 5}, ["env:dev"])
check(f.series("counter", "t.tag") is None, "no untagged t.tag")
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
    check(rc == 0 and vals == ["3"], "show -t env:prod: %s %s" % (rc, vals))
    rc, vals = show("web", "env:prod")
    check(rc == 0 and vals == ["3"], "show -t web -t env:prod: %s" % vals)
    rc, vals = show("env:dev")
    check(rc == 0 and vals == ["5"], "show -t env:dev: %s" % vals)
    rc, vals = show("env:dev", "web")
    check(rc != 0 and vals == [], "no series carries both: %s" % vals)
    rc, vals = show("env")
    check(rc != 0, "a tag matches whole, not a prefix: %s" % vals)
# Any UTF-8 travels, escaped in the path.
f.send("caf\u00e9:1|c|#city:z\u00fcrich,path:/a/b".encode())
expect(f, "counter", "caf%C3%A9", {"value.sum": 1},
       ["city:z%C3%BCrich", "path:%2Fa%2Fb"])

# The container field and timestamps are taken; an unknown field is
# skipped and counted, the line still applied.
before = self_stats(f.d)
f.send("t.f:1|c|c:0123abcd|T1700000000\nt.f:1|c|e:what|x")
expect(f, "counter", "t.f", {"value.sum": 2})
after = self_stats(f.d)
check(after["statsd_ignored_fields"] - before["statsd_ignored_fields"] == 2,
      "unknown fields counted")
check(after["statsd_applied"] - before["statsd_applied"] == 2,
      "lines with unknown fields applied")

# The Unix socket: the sender's uid owns what it makes.
f.send_unix("u.c:4|c")
expect(f, "counter", "u.c", {"value.sum": 4})
check(f.series("counter", "u.c")["owner"] == 0, "owned by its sender")
f.send_as_nobody(["n.c:2|c", "n.c:3|c"])
expect(f, "counter", "n.c", {"value.sum": 5})
check(f.series("counter", "n.c")["owner"] == 65534, "nobody owns n.c")
# ...and may not change another's series.
before = self_stats(f.d)
f.send_as_nobody(["u.c:100|c", "t.c:100|c"])
after = self_stats(f.d)
check(after["statsd_refused_denied"] - before["statsd_refused_denied"] == 2,
      "nobody's updates of others' series refused")
expect(f, "counter", "u.c", {"value.sum": 4})
expect(f, "counter", "t.c", {"value.sum": 16})

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
before = self_stats(f.d)["statsd_datagrams"]
p = run([PY, "-c", code, str(f.port), f.dgram], capture_output=True,
        text=True)
check(p.returncode == 0, "python3-statsd ran: %s" % p.stderr)
# eight datagrams: seven plain ones and the pipeline's (python3-statsd's
# Unix client speaks SOCK_STREAM, not datagrams: UDP only)
f.sent = before + 8
f.wait()
expect(f, "counter", "py.hits", {"value.sum": 4, "value.count": 4})
expect(f, "timer", "py.lat", {"value.sum": 42000, "value.count": 2})
expect(f, "gauge", "py.level", {"value.last": 30})
expect(f, "set", "py.users", {"distinct.last": 1})
# ------------------------------------------------------------ bad input
snapshot = {}
for t, n in (("counter", "t.c"), ("gauge", "t.g"), ("timer", "t.ms"),
             ("set", "t.s"), ("counter", "n.c")):
    snapshot[(t, n)] = f.data(t, n)

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
for key, old in snapshot.items():
    check(f.data(*key) == old, "%s %s unchanged by bad input" % key)
check(f.d.alive(), "statsd still serves")

f.d.stop()

# ------------------------------------- caps, TTL, dormancy, PERSISTENT
g = Front("statsd_ttl_s = 1\nstatsd_persistent_prefixes = keep.\n"
          "statsd_udp_max_series = 3\n")
g.send("keep.x:5|c\ndrop.y:1|c\na:1|c\nb:1|c")
check(self_stats(g.d)["statsd_refused_cap"] == 1, "UDP's own cap: 3")
wait_for(lambda: self_stats(g.d)["statsd_series_expired"] >= 3,
         "idle series to expire")
check(g.series("counter", "drop.y") is None, "an idle series is removed")
ch = ok(g.d.call("io.statsd.Chain", {"dormant": True}), "Chain", False)
dormant = [k for k in ch["kstats"]
           if k.get("path") == ["statsd", "counter", "keep.x"]]
check(len(dormant) == 1 and sorted(dormant[0]["flags"]) ==
      ["DORMANT", "PERSISTENT"], "an idle PERSISTENT series sleeps: %s" %
      dormant)
g.send("keep.x:1|c")
expect(g, "counter", "keep.x", {"value.sum": 6})
g.d.stop()

# ------------------------------------------------------ socket activation
# systemd-socket-activate passes both datagram sockets (its --datagram
# applies to every socket it makes); statsd binds its control socket
# itself, and takes the passed ones instead of statsd_udp and statsd_unix.
ACTIVATE = shutil.which("systemd-socket-activate")
if ACTIVATE is not None:
    h = Daemon(config="statsd_udp = 127.0.0.1:1\nstatsd_unix = none\n")
    port = free_udp_port()
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
    expect(a, "counter", "act.unix", {"value.sum": 2})
    expect(a, "counter", "act.udp", {"value.sum": 3})
    proc.terminate()
    check(proc.wait(timeout=30) == 0, "activated statsd exits 0")
    log.close()
    h.scan()
finish()
