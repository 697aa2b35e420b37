# SPDX-License-Identifier: BSD-2-Clause
"""test_abuse_front.py: what an unprivileged local user can do to statsd
through its two newest front doors, the statsd/DogStatsD datagram
sockets and the HTTP endpoint, as uid 65534 through setpriv. Each part
names the attack it guards against:

  row 16: idle HTTP connections (headers never finished) took every
          descriptor statsd had: root's Info was not answered, and
          libevent, retrying the failing accept() at once, logged
          millions of lines. One connection pipelining requests it never
          read the answers of made statsd hold all it sent. Now at most
          http_max_connections are open, each is read at most 32 KiB
          ahead, and a failing accept() pauses accepting, said once.
  lines:  hostile statsd lines (NUL bytes, invalid UTF-8, names, tags
          and values past their limits, rates of 0 and 1e-300, NaN,
          1e308, events, timestamps, paths too long, negative counts,
          oversize datagrams, CR-LF): each refused and counted under
          exactly one reason, nothing that exists changed.
  caps:   a series flood, a tag explosion, over the Unix socket and UDP:
          each sender is held to its cap and all to the total; another
          user's lines for root's series are refused.
  row 19: users together (or with UDP, anyone's) filled
          statsd_max_series, and root's lines made no series. Now
          unprivileged senders stop at the total less
          quota_reserve_percent.
  ttl:    churn under a one-second TTL: expired series are removed, a
          PERSISTENT one sleeps with its data and wakes with it.
  row 17: a backlog of large datagrams (60 KB of counter lines each)
          held the event loop until all were applied: the front door's
          events came before control's, and a wakeup applied all that
          was read. A flood of them kept root's Info waiting 13 s. Now
          the front door applies 256 KiB a loop turn, at control's
          priority: root's call is answered within the first datagrams
          of the backlog, with receiver threads and without.

Every check is of exactness or a bound, never of a time."""
import http.client
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import (SETPRIV, DEADLINE, Daemon, as_user, check,  # noqa: E402
                     finish, ok, read_data, run, spawn, wait_for)

PRLIMIT = shutil.which("prlimit")
if os.getuid() != 0 or SETPRIV is None or PRLIMIT is None:
    print("needs root, setpriv and prlimit; skipped")
    sys.exit(77)
PY = "/usr/bin/python3"
OTHER = pwd.getpwnam("daemon")


class LimitedDaemon(Daemon):
    """A statsd with at most nofile descriptors (RLIMIT_NOFILE), as a
    service gets 1024 from systemd."""

    def __init__(self, nofile, **kw):
        super().__init__(**kw)
        self.nofile = nofile

    def argv(self):
        return [PRLIMIT, "--nofile=%d:%d" % (self.nofile, self.nofile),
                "--"] + super().argv()


def http_port(d):
    return wait_for(lambda: (lambda m: m and int(m.group(1)))(re.search(
        r"http: serving /metrics on 127\.0\.0\.1 port (\d+)", d.stderr())),
        "the HTTP endpoint's port in the log")


def root_info(d, what):
    """Root's Info, answered (within the harness' deadline)."""
    try:
        c = harness.Conn(d.sock)
        r = c.call("io.statsd.Info", {})
        c.close()
        return check("error" not in r, "%s: root's Info is answered: %s" %
                     (what, r.get("error")))
    except OSError as e:
        return check(False, "%s: root's Info is answered: %r" % (what, e))


def scrape(port):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=DEADLINE)
    c.request("GET", "/metrics")
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, body


# A holder of HTTP connections, as nobody: "hold N" opens N connections
# that each send the start of a request and never finish its headers;
# "release" closes them. It answers each command with how many it holds.
HOLDER = r"""
import socket, sys
port = int(sys.argv[1]); held = []
for line in sys.stdin:
    cmd = line.split()
    if cmd[0] == "hold":
        for i in range(int(cmd[1])):
            s = socket.socket(); s.settimeout(5)
            try:
                s.connect(("127.0.0.1", port))
                s.send(b"GET /metrics HTTP/1.1\r\nX-Slow: ")
            except OSError:
                s.close(); break
            held.append(s)
    else:
        for s in held: s.close()
        held = []
    print(len(held), flush=True)
"""


def holder(port):
    return spawn(as_user([PY, "-c", HOLDER, port]), stdin=subprocess.PIPE,
                 stdout=subprocess.PIPE, text=True, bufsize=1)


def holder_cmd(p, line):
    p.stdin.write(line + "\n")
    p.stdin.flush()
    return int(p.stdout.readline())


def nfds(d):
    """The descriptors statsd holds now."""
    return len(os.listdir("/proc/%d/fd" % d.proc.pid))


def accept_lines(d):
    return sum(1 for ln in d.stderr().splitlines() if "accept" in ln)


# ------------------------------------------------- row 16: descriptors
# 64 descriptors: some 25 are statsd's own, the rest could all go to HTTP.
d = LimitedDaemon(64, config="http_listen = 127.0.0.1:0\n"
                  "http_max_connections = 4\nhttp_timeout_ms = 600000\n")
d.start()
port = http_port(d)
h = holder(port)
n = holder_cmd(h, "hold 100")
check(n == 100, "row 16: nobody holds 100 HTTP connections (%d)" % n)
root_info(d, "row 16, 100 idle HTTP connections of nobody")
root_info(d, "row 16, again")
check(accept_lines(d) == 0, "row 16: no accept() failed: statsd took 4 "
      "connections, not its every descriptor:\n" + d.stderr()[-2000:])
holder_cmd(h, "release")
st, body = scrape(port)
check(st == 200 and b"statsd_" in body, "row 16: scraped once nobody "
      "let go (%d)" % st)
d.stop()

# A bound above what the descriptors allow: accept() fails, and statsd
# pauses accepting and says so once, instead of retrying at once and
# logging each time.
d = LimitedDaemon(64, config="http_listen = 127.0.0.1:0\n"
                  "http_max_connections = 1000\nhttp_timeout_ms = 600000\n"
                  "http_max_connections_per_peer = 1000\n")
d.start()
port = http_port(d)
h2 = holder(port)
holder_cmd(h2, "hold 100")
wait_for(lambda: accept_lines(d) > 0, "statsd to run out of descriptors")
holder_cmd(h2, "release")
# Back to statsd once its HTTP thread has closed what nobody let go (it
# runs beside the loop that accepts root: root's connection could come
# first, while every descriptor is still taken).
wait_for(lambda: nfds(d) < 48, "statsd's HTTP thread to close the "
         "connections nobody let go")
root_info(d, "row 16, after the descriptors came back")
n = accept_lines(d)
check(1 <= n <= 2, "row 16: a failing accept() is logged once (at most "
      "once in 10 s), not at every retry (%d lines):\n%s" %
      (n, d.stderr()[-1000:]))
st, _ = scrape(port)
check(st == 200, "row 16: accepting goes on after the pause (%d)" % st)
d.stop()

# ------------------------------------------------ row 16: pipelining
d = Daemon(config="http_listen = 127.0.0.1:0\n").start()
port = http_port(d)
# Requests pipelined as fast as the socket takes them, no reply read:
# statsd reads a request or two ahead, and the sender then blocks (the
# kernel's buffers full) well before 64 MiB. It used to read them all.
PIPER = r"""
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.settimeout(2)
req = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n" * 2048
sent = 0
try:
    while sent < 64 << 20:
        sent += s.send(req)
except socket.timeout:
    pass
print(sent)
"""
p = run(as_user([PY, "-c", PIPER, port]), capture_output=True, text=True,
        timeout=120)
sent = int(p.stdout or -1)
check(0 < sent < 32 << 20, "row 16: a connection that reads no reply gets "
      "%d bytes of requests in, under 32 MiB" % sent)
# Pipelining still works, every request answered in order.
COUNTER = r"""
import socket, sys, threading
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=60)
n = int(sys.argv[2])
req = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n" * n + \
    b"GET /metrics HTTP/1.1\r\nConnection: close\r\n\r\n"
t = threading.Thread(target=s.sendall, args=(req,)); t.start()
data = b""
while True:
    b = s.recv(1 << 20)
    if not b: break
    data += b
t.join()
print(data.count(b"HTTP/1.1 200 OK"), data.count(b"<h1>statsd</h1>"))
"""
p = run(as_user([PY, "-c", COUNTER, port, 3000]), capture_output=True,
        text=True, timeout=300)
check(p.stdout.split() == ["3001", "3000"], "row 16: 3000 pipelined "
      "requests and a scrape, each answered: %r %s" % (p.stdout, p.stderr))
root_info(d, "row 16, after pipelining")
d.stop()


# -------------------------------------------------- the statsd sockets
def stats(d):
    return read_data(d, "statsd", 0, "daemon")


def send_as(d, dgrams, pw=None, udp_port=None):
    """Each of dgrams as one datagram from uid pw (nobody by default), to
    the Unix socket, or to UDP; then wait until statsd read them."""
    want = stats(d)["statsd_datagrams"] + len(dgrams)
    prog = ("import socket,sys\n"
            "u=len(sys.argv[1])<6\n"
            "s=socket.socket(socket.AF_INET if u else socket.AF_UNIX,"
            "socket.SOCK_DGRAM)\n"
            "a=('127.0.0.1',int(sys.argv[1])) if u else sys.argv[1]\n"
            "for l in sys.stdin.read().split():\n"
            "    s.sendto(bytes.fromhex(l), a)\n")
    target = str(udp_port) if udp_port else os.path.join(d.run,
                                                         "statsd.dgram")
    kw = {"uid": pw.pw_uid, "regid": pw.pw_gid} if pw else {}
    p = run(as_user([PY, "-c", prog, target], **kw), capture_output=True,
            text=True, input="\n".join(x.hex() for x in dgrams))
    check(p.returncode == 0, "sender ran: %s" % p.stderr)
    wait_for(lambda: stats(d)["statsd_datagrams"] >= want,
             "statsd to read %d datagrams" % want)


def reasons(before, after):
    """The counters that moved, as {name: delta}."""
    return {k: after[k] - before[k] for k in after
            if k.startswith("statsd_") and after[k] != before[k]}


def balanced(s, what):
    total = s["statsd_applied"] + sum(
        v for k, v in s.items()
        if k.startswith(("statsd_rejected_", "statsd_refused_")))
    check(s["statsd_lines"] == total, "%s: every line applied or counted "
          "under one reason (%d lines, %d counted)" %
          (what, s["statsd_lines"], total))


udp = harness.free_port(socket.SOCK_DGRAM)
d = Daemon(config="statsd_udp = 127.0.0.1:%d\nstatsd_max_datagram = 8192\n"
           "statsd_max_series_per_uid = 50\nstatsd_udp_max_series = 50\n"
           "statsd_max_series = 120\n" % udp).start()
os.chmod(d.run, 0o755)

# One counter of root's, which nobody must not move.
send_as(d, [b"root.owned:5|c"], pw=pwd.getpwuid(0))
tags13 = b",".join(b"t%d" % i for i in range(13))
HOSTILE = [
    (b"n\x00x:1|c", "rejected_name"),
    (b"x" * 201 + b":1|c", "rejected_name"),
    (b"n:1\x00|c", "rejected_value"),
    (b"n:1|c\x00", "rejected_type"),
    (b"n:1|c|#a\x00b", "rejected_tags"),
    (b"n:1|c|#" + tags13 + b",t13", "rejected_tags"),
    (b"n:1|c|#" + b"v" * 201, "rejected_tags"),
    (b"n:1|c|c:" + b"c" * 201, "rejected_tags"),
    (b"\xff\xfe:1|c", "rejected_utf8"),
    (b"n:\xed\xa0\x80|s", "rejected_utf8"),
    (b"n:1|c|#\xc0\xaf", "rejected_utf8"),
    (b"n:1|c|@0", "rejected_rate"),
    (b"n:1|c|@-1", "rejected_rate"),
    (b"n:1|c|@1e-400", "rejected_rate"),
    (b"n:1|c|@nan", "rejected_rate"),
    (b"n:nan|g", "rejected_value"),
    (b"n:inf|ms", "rejected_value"),
    (b"n:0x10|c", "rejected_value"),
    (b"n:" + b"9" * 64 + b"|c", "rejected_value"),
    (b"n:" + b":".join([b"1"] * 65) + b"|ms", "rejected_value"),
    (b"n:|c", "rejected_value"),
    (b"n:1|", "rejected_type"),
    (b"|||:::", "rejected_syntax"),
    (b"_e{5,5}:hello|world", "rejected_event"),
    (b"_sc|n|0", "rejected_event"),
    (b"n:1|c|T99999999999999999999", "rejected_timestamp"),
    (b"n:1|ms|@1e-300", "refused_range"),
    (b"n:1e308|ms", "refused_range"),
    (b"n:1e308|c", "refused_range"),
    (b"n:-1e308|g", "refused_range"),
    (b"x" * 200 + b":1|c|#" + b",".join(b"%d" % i + b"/" * 60
                                         for i in range(13)),
     "refused_toolong"),
    (b"n:-1|c", "refused_negative"),
    (b"n:1:2:-3|c", "refused_negative"),
]
made = set()
for line, why in HOSTILE:
    s0 = stats(d)
    send_as(d, [line])
    got = reasons(s0, stats(d))
    want = {"statsd_datagrams": 1, "statsd_lines": 1, "statsd_" + why: 1}
    typ = line.split(b"|")[1]
    if why == "refused_range" and typ not in made:
        # The series is made; the value out of range is not applied.
        want.update(statsd_series=1, statsd_series_created=1)
        made.add(typ)
    check(got == want, "lines: %r is counted as %s only: %s" %
          (line[:60], why, got))
# Lines without an ending newline, CR-LF, empty lines, a NUL line.
s0 = stats(d)
send_as(d, [b"crlf.a:1|c\r\ncrlf.b:2|c\r\n\r\n\n\x00\ncrlf.c:3|c"])
got = reasons(s0, stats(d))
check(got.get("statsd_applied") == 3 and got.get("statsd_lines") == 4 and
      got.get("statsd_rejected_syntax") == 1,
      "lines: CR-LF and a last line without newline are applied, a NUL "
      "line refused: %s" % got)
# Over statsd_max_datagram: dropped whole, counted.
s0 = stats(d)
send_as(d, [b"big:1|c\n" * 1200])
got = reasons(s0, stats(d))
check(got == {"statsd_datagrams": 1, "statsd_oversize": 1},
      "lines: a datagram over statsd_max_datagram is dropped whole: %s" % got)
owned = ok(d.call("io.statsd.Lookup", {"module": "statsd",
                                       "name": "root.owned"}),
           "Lookup root.owned")["kstats"]
r = read_data(d, "statsd", owned[0]["instance"] if owned else 0,
              "root.owned")
check(r.get("value.sum") == 5, "lines: root's counter is still 5 (%s)" %
      r.get("value.sum"))

# Caps: nobody's series flood and tag explosion stop at its cap; UDP at
# its own; root still makes its series; all stop at the total.
s0 = stats(d)
flood = [b"".join(b"flood.%d:1|c\n" % (i * 20 + j) for j in range(20))
         for i in range(5)]
flood += [b"".join(b"tags:1|c|#id:%d\n" % (i * 50 + j) for j in range(50))
          for i in range(2)]
send_as(d, flood)
got = reasons(s0, stats(d))
# nobody has 6 series: crlf.a, .b, .c, and the range lines' n of three
# types.
check(got.get("statsd_series_created") == 50 - 6 and
      got.get("statsd_refused_cap") == 200 - 44,
      "caps: nobody makes series up to its cap of 50 (it had 6): %s" % got)
send_as(d, [b"".join(b"rootmore.%d:1|c\n" % i for i in range(10))],
        pw=pwd.getpwuid(0))
send_as(d, [b"".join(b"udp.%d:1|c\n" % i for i in range(100))],
        udp_port=udp)
send_as(d, [b"".join(b"other.%d:1|c\n" % i for i in range(40))], pw=OTHER)
s1 = stats(d)
check(s1["statsd_series"] == 108, "row 19: unprivileged senders (UDP's too) "
      "stop at the total less its 10 %% reserve: 108 series (%d)" %
      s1["statsd_series"])
got = reasons(s0, s1)
check(got.get("statsd_series_created") == 44 + 10 + 47,
      "caps: root's 10 are made, UDP's up to the reserve, the last "
      "user's none: %s" % got)
send_as(d, [b"".join(b"rootlast.%d:1|c\n" % i for i in range(20))],
        pw=pwd.getpwuid(0))
got = reasons(s1, stats(d))
check(got.get("statsd_series_created") == 12 and
      got.get("statsd_refused_cap") == 8, "row 19: root makes 12 series "
      "in the reserve, up to the total of 120: %s" % got)
root_info(d, "caps")
balanced(s1, "lines and caps")
d.stop()

# Row 17: a backlog of 300 datagrams of 60 KB of counter lines, queued
# while statsd is stopped, then root's Read of statsd's own counters: it
# is answered while most of the backlog still waits, not after it.
BACKLOG = 300
FLOODER = r"""
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
d = b"".join(b"bl.%d:1|c\n" % (i % 10) for i in range(7000))[:60000]
d = d[:d.rindex(b"\n") + 1]
for i in range(int(sys.argv[2])):
    s.sendto(d, ("127.0.0.1", int(sys.argv[1])))
"""
for threads in (2, 0):
    udp = harness.free_port(socket.SOCK_DGRAM)
    d = Daemon(config="statsd_udp = 127.0.0.1:%d\nstatsd_threads = %d\n" %
               (udp, threads)).start()
    d.proc.send_signal(signal.SIGSTOP)
    try:
        p = run(as_user([PY, "-c", FLOODER, udp, BACKLOG]),
                capture_output=True, text=True, timeout=DEADLINE)
        check(p.returncode == 0, "row 17: the flooder ran: %s" % p.stderr)
        c = harness.Conn(d.sock)
        c.send("io.statsd.Read", {"module": "statsd", "instance": 0,
                                  "name": "daemon"})
    finally:
        d.proc.send_signal(signal.SIGCONT)
    r = c.recv()
    c.close()
    seen = (r or {}).get("parameters", {}).get("data", {}).get(
        "statsd_datagrams", -1)
    wait_for(lambda: stats(d)["statsd_datagrams"] +
             stats(d)["statsd_kernel_drops"] >= BACKLOG,
             "statsd to read or count the backlog")
    final = stats(d)
    check(final["statsd_datagrams"] >= BACKLOG // 2,
          "row 17 (threads %d): the backlog was queued: %d read, %d "
          "dropped" % (threads, final["statsd_datagrams"],
                       final["statsd_kernel_drops"]))
    check(0 <= seen < final["statsd_datagrams"] // 2,
          "row 17 (threads %d): root's Read is answered before most of "
          "the backlog is applied (%d of %d)" %
          (threads, seen, final["statsd_datagrams"]))
    balanced(final, "row 17")
    d.stop()

# Row 18: nobody's UDP lines of a PERSISTENT prefix, past what the
# totals keep for privileged peers; root's PERSISTENT create still fits.
udp = harness.free_port(socket.SOCK_DGRAM)
d = Daemon(config="statsd_udp = 127.0.0.1:%d\n"
           "statsd_persistent_prefixes = keep.\n"
           "max_persistent_bytes = 4M\nmax_persistent_bytes_per_uid = 1M\n"
           % udp).start()
s0 = stats(d)
# A turn makes at most 8 PERSISTENT series of a source (the rest of its
# lines are refused as busy): one datagram a turn, until no more are made.
KEEPU = b"".join(b"keep.u%d:1|c\n" % i for i in range(200))
made = -1
while made != stats(d)["statsd_series_created"]:
    made = stats(d)["statsd_series_created"]
    send_as(d, [KEEPU], udp_port=udp)
got = reasons(s0, stats(d))
check(0 < got.get("statsd_series_created", 0) < 200 and
      got.get("statsd_refused_store", 0) > 0,
      "row 18: UDP's PERSISTENT series stop at a per-user limit: %s" % got)
tot = harness.info(d)["quotas"]["total"]["persistent_bytes"]
check(tot["used"] <= tot["limit"] * 0.9, "row 18: UDP's series leave the "
      "reserve alone: %d of %d" % (tot["used"], tot["limit"]))
spec = ok(d.call("io.statsd.TemplateAdd", harness.TPL_APP),
          "TemplateAdd")["template"]["spec"]
ok(d.call("io.statsd.KstatCreate", {"module": "root", "instance": 0,
                                    "name": "precious", "template": spec,
                                    "flags": ["PERSISTENT"]}),
   "row 18: root's PERSISTENT KstatCreate after UDP's flood")
balanced(stats(d), "row 18")
d.stop()

# TTL churn: expired series go, a PERSISTENT one sleeps and wakes with
# its data; nobody's churn leaves no kstats behind.
d = Daemon(config="statsd_ttl_s = 1\nstatsd_persistent_prefixes = keep.\n"
           ).start()
os.chmod(d.run, 0o755)
for rnd in range(3):
    send_as(d, [b"keep.c:5|c\n" + b"".join(b"churn.%d.%d:1|c\n" % (rnd, i)
                                           for i in range(200))])
    want = (rnd + 1) * 201
    wait_for(lambda: stats(d)["statsd_series_expired"] >= want,
             "round %d's series to expire" % rnd)
s = stats(d)
check(s["statsd_series"] == 0 and s["statsd_series_created"] == 603,
      "ttl: 603 made, all expired: %d now" % s["statsd_series"])
# Dormancy is a kstat flag: Chain with the dormant ones.
ch = ok(d.call("io.statsd.Chain", {"dormant": True}), "Chain")["kstats"]
paths = [k.get("path", [])[:3] for k in ch]
check(not any(p[:2] == ["statsd", "counter"] and p[2].startswith("churn")
              for p in paths if len(p) == 3),
      "ttl: expired series leave no kstat behind")
k = [k for k in ch if k.get("path") == ["statsd", "counter", "keep.c",
                                         "statsd_uid:65534"]]
check(len(k) == 1 and sorted(k[0]["flags"]) == ["DORMANT", "PERSISTENT"],
      "ttl: the PERSISTENT series sleeps, one kstat: %s" % k)
# A line wakes it with its data. With a one-second TTL it may sleep again
# before a Read reaches it (a loaded machine's Read can take that long):
# let it, every time, and then wake it and read until a Read comes first.
# Every line adds 1 to what it had, awake or asleep.
KEEP = {"module": "statsd", "instance": k[0]["instance"] if k else 0,
        "name": "keep.c"}
expired = stats(d)["statsd_series_expired"]
send_as(d, [b"keep.c:1|c"])
wait_for(lambda: stats(d)["statsd_series_expired"] > expired,
         "ttl: the woken series to sleep again")
lines = 1


def woken():
    global lines
    send_as(d, [b"keep.c:1|c"])
    lines += 1
    r = d.call("io.statsd.Read", KEEP)
    return None if "error" in r else r["parameters"]["data"].get(
        "value.sum")


got = wait_for(woken, "ttl: a Read of the woken series")
check(got == 15 + lines, "ttl: it woke with its data: 5 + 5 + 5 + %d "
      "lines = %s" % (lines, got))
balanced(stats(d), "ttl")
d.stop()
finish()
