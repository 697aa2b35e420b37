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

Every check is of exactness or a bound, never of a time."""
import http.client
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import (SETPRIV, DEADLINE, Daemon, as_user, check,  # noqa: E402
                     finish, run, spawn, wait_for)

PRLIMIT = shutil.which("prlimit")
if os.getuid() != 0 or SETPRIV is None or PRLIMIT is None:
    print("needs root, setpriv and prlimit; skipped")
    sys.exit(77)
PY = "/usr/bin/python3"


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
                  "http_max_connections = 1000\nhttp_timeout_ms = 600000\n")
d.start()
port = http_port(d)
h2 = holder(port)
holder_cmd(h2, "hold 100")
wait_for(lambda: accept_lines(d) > 0, "statsd to run out of descriptors")
holder_cmd(h2, "release")
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


finish()
