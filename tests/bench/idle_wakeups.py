#!/usr/bin/python3
# SPDX-License-Identifier: BSD-2-Clause
"""idle_wakeups.py: how often each statistics daemon on the node wakes up
when it has (almost) nothing to do, side by side: statsd (this build, and
another build's for a before column), Etsy statsd 0.9 (npm), netdata
(Debian netdata-core, its statsd on a port of ours) and collectd (Debian
collectd-core, its statsd plugin), whichever are installed.

A wake-up is a context switch the kernel counts for a thread
(voluntary_ctxt_switches + nonvoluntary_ctxt_switches of every thread of
the daemon and of its child processes, from /proc): a daemon that sleeps
makes none. Each figure is switches per second over a window, the median
of 3 rounds that take the daemons in turn (they all run throughout).

Rows:
  idle            no client, no datagram
  slow sender     one counter datagram every 100 ms over UDP
  idle ring       (statsd) a client with a ring attached, pushing nothing
  slow producer   (statsd) that client pushing one update every 100 ms

Each daemon runs as its packagers ship it, but for what would reach out
of the machine: netdata without its web server and its collectors but
statsd (its collectors would be work, not idleness), collectd with the
statsd plugin alone, Etsy with no backend. statsd runs with no watchdog.

usage: python3 tests/bench/idle_wakeups.py [BUILDDIR [SECONDS [BEFORE]]]
BEFORE: another build directory (of the same tree at another commit).
Not run by meson test: its figures depend on the machine and its load.
"""
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

build = sys.argv[1] if len(sys.argv) > 1 else "build"
window = float(sys.argv[2]) if len(sys.argv) > 2 else 10.0
before = sys.argv[3] if len(sys.argv) > 3 else None
ROUNDS = 3

HERE = os.path.dirname(os.path.abspath(__file__))
os.environ.setdefault("RING_CLIENT", os.path.join(
    build, "tests", "integration", "ring_client"))
os.environ.pop("WATCHDOG_USEC", None)
os.environ.pop("NOTIFY_SOCKET", None)
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
import harness  # noqa: E402
sys.path.insert(0, HERE)
from peers import free_port, netdata_conf  # noqa: E402

procs = []


def tree(pid):
    """pid and every process below it."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            for tid in os.listdir("/proc/%d/task" % p):
                with open("/proc/%d/task/%s/children" % (p, tid)) as f:
                    todo += [int(c) for c in f.read().split()]
        except OSError:
            pass
    return out


def switches(pid):
    total = 0
    for p in tree(pid):
        try:
            tids = os.listdir("/proc/%d/task" % p)
        except OSError:
            continue
        for tid in tids:
            try:
                with open("/proc/%d/task/%s/status" % (p, tid)) as f:
                    for line in f:
                        if line.startswith(("voluntary_ctxt_switches:",
                                            "nonvoluntary_ctxt_switches:")):
                            total += int(line.split()[1])
            except OSError:
                pass
    return total


def per_second(pid, during=None):
    """Switches a second of pid's tree over the window, while during()
    (a function run in a thread until the window ends) works."""
    stop = threading.Event()
    t = None
    if during is not None:
        t = threading.Thread(target=during, args=(stop,))
        t.start()
        time.sleep(0.5)
    a = switches(pid)
    time.sleep(window)
    b = switches(pid)
    stop.set()
    if t is not None:
        t.join()
    return (b - a) / window


def udp_every(port, every=0.1):
    def run(stop):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        while not stop.is_set():
            s.sendto(b"bench.slow:1|c", ("127.0.0.1", port))
            stop.wait(every)
        s.close()
    return run


# ---------------------------------------------------------------- daemons
class Statsd:
    def __init__(self, name, builddir, tmp):
        self.name = name
        self.port = free_port()
        self.ring_client = os.path.join(builddir, "tests", "integration",
                                        "ring_client")
        run = os.path.join(tmp, "run")
        conf = os.path.join(tmp, "statsd.conf")
        with open(conf, "w") as f:
            f.write("statsd_udp = 127.0.0.1:%d\nhttp_listen =\n"
                    "log_level = warning\n" % self.port)
        self.sock = os.path.join(run, "statsd.sock")
        self.p = subprocess.Popen(
            [os.path.join(builddir, "src", "daemon", "statsd"),
             "--foreground", "--config", conf, "--runtime-dir", run,
             "--state-dir", os.path.join(tmp, "state")],
            stderr=subprocess.DEVNULL)
        procs.append(self.p)
        harness.wait_for(lambda: os.path.exists(self.sock), name)
        time.sleep(0.5)
        harness.setup_kstat(self)

    def conn(self):
        return harness.Conn(self.sock)

    def call(self, method, params=None):
        c = harness.Conn(self.sock)
        try:
            return c.call(method, params)
        finally:
            c.close()

    def ring(self, every):
        """A ring client that attaches and pushes one update every
        `every` seconds (None: never)."""
        def run(stop):
            rc = subprocess.Popen([self.ring_client, self.sock],
                                  stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True,
                                  bufsize=1)

            def cmd(line):
                rc.stdin.write(line + "\n")
                rc.stdin.flush()
                return rc.stdout.readline()
            cmd("connect")
            cmd("handle app 0 req")
            cmd("attach")
            while not stop.is_set():
                if every is not None:
                    cmd("push 1 0")
                stop.wait(every if every is not None else 0.5)
            cmd("quit")
            rc.wait()
        return run


class Etsy:
    def __init__(self, tmp):
        self.name = "Etsy statsd 0.9"
        subprocess.run(["npm", "install", "--prefix", tmp, "--no-save",
                        "--no-package-lock", "--no-audit", "--no-fund",
                        "--silent", "statsd@0.9.0"], check=True,
                       stdout=subprocess.DEVNULL)
        self.port = free_port()
        conf = os.path.join(tmp, "etsy.js")
        with open(conf, "w") as f:
            f.write("{ port: %d, address: '127.0.0.1', mgmt_port: %d, "
                    "mgmt_address: '127.0.0.1', backends: [] }\n" %
                    (self.port, free_port(socket.SOCK_STREAM)))
        self.p = subprocess.Popen(
            ["node", os.path.join(tmp, "node_modules", "statsd", "stats.js"),
             conf], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append(self.p)


class Netdata:
    def __init__(self, tmp):
        self.name = "netdata " + subprocess.run(
            ["netdata", "-v"], capture_output=True, text=True).stdout.split(
            )[-1].lstrip("v")
        self.port = free_port()
        conf = netdata_conf(tmp, self.port)
        self.p = subprocess.Popen(["netdata", "-D", "-c", conf],
                                  stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        procs.append(self.p)


class Collectd:
    def __init__(self, tmp):
        self.name = "collectd " + subprocess.run(
            ["collectd", "-h"], capture_output=True, text=True).stdout.split(
            "collectd ")[-1].split(",")[0].strip()
        self.port = free_port()
        conf = os.path.join(tmp, "collectd.conf")
        with open(conf, "w") as f:
            f.write('BaseDir "%s"\nPIDFile "%s/collectd.pid"\n'
                    'PluginDir "/usr/lib/collectd"\nInterval 10\n'
                    'LoadPlugin statsd\n<Plugin statsd>\n'
                    '  Host "127.0.0.1"\n  Port "%d"\n</Plugin>\n' %
                    (tmp, tmp, self.port))
        self.p = subprocess.Popen(["collectd", "-f", "-C", conf],
                                  stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        procs.append(self.p)


def main():
    tmp = tempfile.mkdtemp(prefix="idle-wakeups-")
    os.chmod(tmp, 0o755)
    daemons = []
    try:
        def sub(n):
            d = os.path.join(tmp, n)
            os.makedirs(d)
            return d
        daemons.append(Statsd("statsd", build, sub("statsd")))
        if before:
            daemons.append(Statsd("statsd before", before, sub("before")))
        if shutil.which("node") and shutil.which("npm"):
            daemons.append(Etsy(sub("etsy")))
        if shutil.which("netdata"):
            daemons.append(Netdata(sub("netdata")))
        if shutil.which("collectd"):
            daemons.append(Collectd(sub("collectd")))
        time.sleep(6)        # past start-up and the first flushes
        rows = ["idle", "slow sender", "idle ring", "slow producer"]
        got = {}
        for _ in range(ROUNDS):
            for d in daemons:
                for r in rows:
                    if r.endswith(("ring", "producer")) and \
                            not isinstance(d, Statsd):
                        continue
                    during = (None if r == "idle" else
                              udp_every(d.port) if r == "slow sender" else
                              d.ring(None) if r == "idle ring" else
                              d.ring(0.1))
                    if d.p.poll() is not None:
                        continue
                    got.setdefault((d.name, r), []).append(
                        per_second(d.p.pid, during))
                    time.sleep(1)
        with open("/proc/loadavg") as f:
            load = " ".join(f.read().split()[:3])
        names = [d.name for d in daemons]
        print("wake-ups a second (context switches of every thread), "
              "median of %d rounds of %.0f s; load average %s" %
              (ROUNDS, window, load))
        print("| row | " + " | ".join(names) + " |")
        print("|---" * (len(names) + 1) + "|")
        for r in rows:
            cells = []
            for n in names:
                v = got.get((n, r))
                cells.append("%.2f" % statistics.median(v) if v else "")
            print("| %s | %s |" % (r, " | ".join(cells)))
        s = got.get(("statsd", "idle"))
        if s:
            base = statistics.median(s)
            print("\nratios to statsd idle (%.2f/s):" % base)
            for n in names[1:]:
                v = got.get((n, "idle"))
                if v:
                    m = statistics.median(v)
                    print("  %s idle: %s" % (n, "%.1fx" % (m / base)
                                             if base > 0 else
                                             "%.2f/s against none" % m))
    finally:
        for p in procs:
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
        shutil.rmtree(tmp, ignore_errors=True)


main()
