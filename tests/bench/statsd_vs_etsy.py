#!/usr/bin/python3
# SPDX-License-Identifier: BSD-2-Clause
"""statsd_vs_etsy.py: statsd's statsd/DogStatsD front door side by side
with Etsy statsd 0.9 (the reference implementation of the protocol) and
netdata (Debian's netdata-core, its statsd plugin alone), fed by the same
C sender (statsd_sender.c): 1, 4 and 8 threads, 1 and 20 lines per
datagram, or one line a datagram of 1,000 names in DogStatsD clients'
mix of types ("mix": counters, gauges, timers, histograms, sets), one
sendto() per datagram, flat out for a while. For each row:
lines sent, lines received (statsd: its counter's sum, for the mix its
own statsd_applied; Etsy: its management port's `counters`, for the mix
its metrics_received; netdata: what reached its socket, the lines
sent less the socket's kernel drops from /proc/net/udp, once its receive
queue is empty), the kernel's drops for every daemon as a cross-check, %
received, the sender's ns per line and the daemon's CPU seconds (utime +
stime from /proc) per million lines received. STATSD_BENCH_ROWS picks
rows ("THREADSxLINES ...", LINES a number or "mix"; default "1x1 4x1
8x1 1x20 8x20 1xmix"). Each row runs STATSD_BENCH_ROUNDS times (3 by
default), the rounds taking every row and daemon in turn, and the tables
of ratios are of the medians. STATSD_BEFORE
names
another build directory whose statsd runs beside this one (a "before"
column).

Etsy statsd is installed from the npm registry into a temporary directory
(`npm install statsd@0.9.0`), removed at exit; it runs with no backend and
a flush interval longer than the run, so its counters only grow. Both
daemons run with their defaults otherwise (statsd asks for a 32 MiB
receive buffer; Etsy takes the kernel's default). Needs node and npm.

Each daemon runs twice: at nice -10, statsd's default (statsd.conf nice),
and at nice 0, the sender's, which was statsd's before it had the key.
Etsy statsd has no such setting: it is started under nice(1) at the same
values, so that each row compares the two at one scheduler share. Nice
-10 needs root; as another user the nice -10 daemons are left out.

usage: python3 tests/bench/statsd_vs_etsy.py [BUILDDIR [MS]]
STATSD_BENCH_CONFIG adds statsd.conf lines (';'-separated), e.g.
"statsd_threads = 0" to read in the event loop.
Not run by meson test: its figures depend on the machine and its load.
"""
import os
import re
import shutil
import statistics
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peers import cpu_s, free_port, netdata_conf, varlink  # noqa: E402

build = sys.argv[1] if len(sys.argv) > 1 else "build"
ms = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
STATSD = os.path.join(build, "src", "daemon", "statsd")
SENDER = os.path.join(build, "tests", "bench", "statsd_sender")
ROWS = [(int(t), n if n == "mix" else int(n)) for t, n in (
    r.split("x", 1) for r in os.environ.get(
        "STATSD_BENCH_ROWS", "1x1 4x1 8x1 1x20 8x20 1xmix").split())]
BEFORE = os.environ.get("STATSD_BEFORE")
ROUNDS = int(os.environ.get("STATSD_BENCH_ROUNDS", "3"))
procs = []


def wait_for(pred, what, deadline=30.0):
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        v = pred()
        if v is not None:
            return v
        time.sleep(0.05)
    sys.exit("statsd_vs_etsy: timed out waiting for " + what)


def udp_socket(port):
    """(receive queue bytes, kernel drops) of the UDP sockets bound to
    127.0.0.1:port (statsd binds several, SO_REUSEPORT), summed, from
    /proc/net/udp."""
    want = "0100007F:%04X" % port
    queued = drops = 0
    with open("/proc/net/udp") as f:
        for line in f.readlines()[1:]:
            cols = line.split()
            if cols[1] == want:
                queued += int(cols[4].split(":")[1], 16)
                drops += int(cols[-1])
    return queued, drops


def settle(read, quiet=6):
    """The count once it has not moved for quiet reads 50 ms apart (the
    daemon drained its socket)."""
    last, still = read(), 0
    while still < quiet:
        time.sleep(0.05)
        v = read()
        still = still + 1 if v == last else 0
        last = v
    return last


# ----------------------------------------------------------------- statsd
class Statsd:
    def __init__(self, tmp, nice, binary=None, label="statsd"):
        self.name = "%s, nice %d" % (label, nice)
        self.port = free_port()
        run = os.path.join(tmp, "run")
        conf = os.path.join(tmp, "statsd.conf")
        with open(conf, "w") as f:
            f.write("statsd_udp = 127.0.0.1:%d\nstatsd_unix = none\n"
                    "nice = %d\n%s" %
                    (self.port, nice, os.environ.get("STATSD_BENCH_CONFIG",
                                                     "").replace(";", "\n")))
        self.sock = os.path.join(run, "statsd.sock")
        self.p = subprocess.Popen([binary or STATSD, "--foreground", "--config", conf,
                                   "--runtime-dir", run, "--state-dir",
                                   os.path.join(tmp, "state")],
                                  stderr=subprocess.DEVNULL)
        procs.append(self.p)

        def up():
            try:
                return varlink(self.sock, "io.statsd.Hello", {})
            except OSError:
                return None
        wait_for(up, "statsd")

    def count(self, lines):
        if lines == "mix":
            d = varlink(self.sock, "io.statsd.Read",
                        {"module": "statsd", "instance": 0,
                         "name": "daemon"})
            return int(d["parameters"]["data"]["statsd_applied"])
        # Lookup answers in pages: after the mix row's 1,000 series the
        # counter may be on any of them.
        q = {"module": "statsd", "class": "statsd"}
        while True:
            r = varlink(self.sock, "io.statsd.Lookup", q).get(
                "parameters", {})
            for k in r.get("kstats", []):
                if k.get("path") == ["statsd", "counter", "bench.c"]:
                    d = varlink(self.sock, "io.statsd.Read",
                                {"module": "statsd",
                                 "instance": k["instance"],
                                 "name": k["name"]})
                    return int(d["parameters"]["data"].get("value.sum", 0))
            if not r.get("cursor"):
                return 0
            q["cursor"] = r["cursor"]


# ------------------------------------------------------------------- Etsy
def etsy_install(tmp):
    subprocess.run(["npm", "install", "--prefix", tmp, "--no-save",
                    "--no-package-lock", "--no-audit", "--no-fund",
                    "--silent", "statsd@0.9.0"], check=True,
                   stdout=subprocess.DEVNULL)
    return os.path.join(tmp, "node_modules", "statsd", "stats.js")


class Etsy:
    def __init__(self, tmp, stats_js, nice):
        self.name = "Etsy 0.9, nice %d" % nice
        self.port = free_port()
        self.mgmt = free_port(socket.SOCK_STREAM)
        conf = os.path.join(tmp, "etsy.js")
        with open(conf, "w") as f:
            f.write("{ port: %d, address: '127.0.0.1', mgmt_port: %d, "
                    "mgmt_address: '127.0.0.1', backends: [], "
                    "flushInterval: 1000000000 }\n" % (self.port, self.mgmt))
        self.p = subprocess.Popen(
            ["nice", "-n", str(nice), "node", stats_js, conf],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append(self.p)
        wait_for(lambda: self._counters(), "Etsy statsd's management port")

    def _counters(self):
        try:
            s = socket.create_connection(("127.0.0.1", self.mgmt), timeout=5)
        except OSError:
            return None
        s.sendall(b"counters\n")
        buf = b""
        while b"END" not in buf:
            chunk = s.recv(65536)
            if not chunk:
                break
            buf += chunk
        s.close()
        return buf.decode()

    def count(self, lines):
        m = re.search(r"'statsd\.metrics_received': (\d+)" if lines == "mix"
                      else r"'bench\.c': (\d+)", self._counters() or "")
        return int(m.group(1)) if m else 0


# ---------------------------------------------------------------- netdata
class Netdata:
    """netdata with its statsd plugin alone: no web server, no other
    collector, no health or ML, database in memory."""

    def __init__(self, tmp, nice):
        self.name = "netdata, nice %d" % nice
        self.port = free_port()
        conf = netdata_conf(tmp, self.port)
        self.p = subprocess.Popen(["nice", "-n", str(nice), "netdata", "-D",
                                   "-c", conf], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        procs.append(self.p)
        wait_for(lambda: True if self._bound() else None, "netdata's statsd")

    def _bound(self):
        want = "0100007F:%04X" % self.port
        with open("/proc/net/udp") as f:
            return any(line.split()[1] == want for line in f.readlines()[1:])

    def count(self, lines):
        # netdata's own count is behind its web API, which the bench
        # leaves off: the socket's view stands in (see row()). The
        # receive queue, until it is empty.
        return udp_socket(self.port)[0]


def row(d, threads, lines):
    """Lines sent, lines received, the sender's ns a line, the daemon's
    CPU seconds, the socket's kernel drops (datagrams)."""
    before = d.count(lines)
    drops0 = udp_socket(d.port)[1]
    c0 = cpu_s(d.p.pid)
    out = subprocess.run([SENDER, "127.0.0.1", str(d.port), str(threads),
                          str(lines), str(ms)], check=True,
                         capture_output=True, text=True).stdout
    sent = int(re.search(r"sent (\d+)", out).group(1))
    nsl = float(re.search(r"ns_per_line ([\d.]+)", out).group(1))
    if isinstance(d, Netdata):
        wait_for(lambda: True if d.count(lines) == 0 else None,
                 "netdata's receive queue")
        got = None
    else:
        # statsd's own kstat is refreshed once a second.
        got = settle(lambda: d.count(lines),
                     30 if lines == "mix" else 6) - before
    drops = udp_socket(d.port)[1] - drops0
    if got is None:
        got = sent - drops * (1 if lines == "mix" else lines)
    cpu = cpu_s(d.p.pid) - c0
    return sent, got, nsl, cpu, drops


def ratios(title, table, nices, nice_col):
    """Print statsd's figure over each other daemon's at each nice, row
    by row (and nice -10's over nice 0's, with nice_col)."""
    print()
    print(title + ":")
    for threads, lines in ROWS:
        out = []
        for n in nices:
            s = table[("statsd, nice %d" % n, threads, lines)]
            for other in ("before", "netdata", "Etsy 0.9"):
                o = table.get(("%s, nice %d" % (other, n), threads, lines))
                if o is not None:
                    out.append("/ %s at nice %d: %.2fx" % (
                        other, n, s / o if o else float("inf")))
        if nice_col and len(nices) == 2:
            a = table[("statsd, nice -10", threads, lines)]
            b = table[("statsd, nice 0", threads, lines)]
            out.append("nice -10 / nice 0: %.2fx" %
                       (a / b if b else float("inf")))
        print("  %d thread(s), %s: %s" %
              (threads, "mix of 1,000 names" if lines == "mix" else
               "%2d line(s)/datagram" % lines, "; ".join(out)))


def main():
    for f in (STATSD, SENDER):
        if not os.access(f, os.X_OK):
            sys.exit("statsd_vs_etsy: no %s (build with -Dbench=true)" % f)
    if shutil.which("npm") is None or shutil.which("node") is None:
        sys.exit("statsd_vs_etsy: needs node and npm")
    tmp = tempfile.mkdtemp(prefix="statsd-bench-")
    try:
        stats_js = etsy_install(os.path.join(tmp, "npm"))
        nices = [-10, 0] if os.geteuid() == 0 else [0]
        daemons = []
        kinds = ["statsd"] + (["before"] if BEFORE else []) + ["etsy"] + (
            ["netdata"] if shutil.which("netdata") else [])
        for n in nices:
            for kind in kinds:
                t = os.path.join(tmp, "%s%d" % (kind, n + 20))
                os.makedirs(t)
                if kind == "statsd":
                    daemons.append(Statsd(t, n))
                elif kind == "before":
                    daemons.append(Statsd(t, n, os.path.join(
                        BEFORE, "src", "daemon", "statsd"), "before"))
                elif kind == "etsy":
                    daemons.append(Etsy(t, stats_js, n))
                else:
                    daemons.append(Netdata(t, n))
        print("load:", subprocess.run(["uptime"], capture_output=True,
                                      text=True).stdout.strip())
        print("%ds per row, one sendto() per datagram, counters "
              "\"bench.c:1|c\" (mix: 1,000 names of five types)" %
              (ms // 1000))
        hdr = ("%-18s %7s %5s %12s %12s %8s %9s %9s %12s" %
               ("daemon", "threads", "lines", "sent", "received",
                "% recv", "drops", "ns/line", "CPU s/Mline"))
        print(hdr)
        print("-" * len(hdr))
        # Every round runs every row on every daemon in turn, so a
        # passing load weighs on all of them alike; each figure is then
        # the median of its rounds.
        runs = {}
        for rnd in range(ROUNDS):
            if ROUNDS > 1:
                print("round %d of %d" % (rnd + 1, ROUNDS), flush=True)
            for threads, lines in ROWS:
                for d in daemons:
                    sent, got, nsl, cpu, drops = row(d, threads, lines)
                    pct = 100.0 * got / sent if sent else 0.0
                    c = cpu / (got / 1e6) if got else float("nan")
                    runs.setdefault((d.name, threads, lines), []).append(
                        (sent, got, pct, drops, nsl, c))
                    print("%-18s %7d %5s %12d %12d %7.2f%% %9d %9.1f "
                          "%12.3f" % (d.name, threads, lines, sent, got, pct,
                                      drops, nsl, c), flush=True)
        res, cpl = {}, {}
        if ROUNDS > 1:
            print()
            print("medians of %d rounds; load average %s" % (
                ROUNDS, " ".join(open("/proc/loadavg").read().split()[:3])))
            print(hdr)
            print("-" * len(hdr))
        for threads, lines in ROWS:
            for d in daemons:
                v = runs[(d.name, threads, lines)]
                med = [statistics.median(x[i] for x in v)
                       for i in range(6)]
                res[(d.name, threads, lines)] = med[2]
                cpl[(d.name, threads, lines)] = med[5]
                if ROUNDS > 1:
                    print("%-18s %7d %5s %12d %12d %7.2f%% %9d %9.1f "
                          "%12.3f" % (d.name, threads, lines, med[0], med[1],
                                      med[2], med[3], med[4], med[5]))
        ratios("ratios of % received (statsd / other)", res, nices, True)
        ratios("ratios of CPU per line received (statsd / other)", cpl,
               nices, False)
    finally:
        for p in procs:
            p.terminate()
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
        shutil.rmtree(tmp, ignore_errors=True)


main()
