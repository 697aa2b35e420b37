#!/usr/bin/python3
# SPDX-License-Identifier: BSD-2-Clause
"""rx_floor.py: statsd's CPU a statsd line against the kernel's floor,
side by side in one run. The same sender (statsd_sender.c: THREADS
threads flat out, LINES lines a datagram) feeds in turn:

  statsd             statsd itself (its default configuration: nice -10,
                     its receiver threads, its parse and apply)
  bare, naive        rx_floor.c reading as a naive loop does
                     (recvmmsg(2) with MSG_WAITFORONE, 64 buffers)
  bare, full reads   rx_floor.c sleeping 1 ms after a read that did not
                     fill its 64 buffers: most reads take a full batch,
                     the least the kernel's work per datagram can be

Both bare receivers only read each datagram's first byte: no parse, no
apply. Each figure is the median of ROUNDS rounds (3; RX_FLOOR_ROUNDS)
that alternate the three: microseconds of CPU a line (user and system),
datagrams a read for the bare loops, and the lines kept. So a daemon
whose CPU a line is below the "full reads" floor is counting it wrong,
and the gap between statsd and the floor is all statsd can still save.

Run as root: every receiver runs at nice -10, as statsd does by default
(as another user they all run at nice 0).

usage: python3 tests/bench/rx_floor.py BUILDDIR [MS [THREADS [LINES]]]
Not run by meson test: its figures depend on the machine and its load.
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peers import cpu_times, free_port, varlink  # noqa: E402

if len(sys.argv) < 2:
    sys.exit(__doc__)
build = sys.argv[1]
ms = sys.argv[2] if len(sys.argv) > 2 else "3000"
threads = sys.argv[3] if len(sys.argv) > 3 else "4"
lines = int(sys.argv[4]) if len(sys.argv) > 4 else 1
ROUNDS = int(os.environ.get("RX_FLOOR_ROUNDS", "3"))
NICE = -10 if os.geteuid() == 0 else 0
SENDER = os.path.join(build, "tests", "bench", "statsd_sender")
FLOOR = os.path.join(build, "tests", "bench", "rx_floor")
STATSD = os.path.join(build, "src", "daemon", "statsd")


def send(port):
    """The sender's datagrams, sent flat out for ms to port."""
    out = subprocess.run([SENDER, "127.0.0.1", str(port), threads,
                          str(lines), ms], capture_output=True, text=True,
                         check=True).stdout.split()
    return int(out[3])


def bare(pause_us):
    port = free_port()
    p = subprocess.Popen(["nice", "-n", str(NICE), FLOOR, str(port),
                          str(pause_us)], stdout=subprocess.PIPE, text=True)
    try:
        if p.stdout.readline().strip() != "READY":
            sys.exit("rx_floor: the bare receiver did not start")
        sent = send(port)
        row = dict(f.split("=") for f in p.stdout.readline().split()[1:])
        p.wait(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    n = int(row["datagrams"])
    return {"cpu": (float(row["user_us"]) + float(row["sys_us"])) /
            (n * lines), "user": float(row["user_us"]) / (n * lines),
            "sys": float(row["sys_us"]) / (n * lines),
            "per_read": float(row["per_read"]), "kept": n / sent}


def applied(sock):
    d = varlink(sock, "io.statsd.Read", {"module": "statsd", "instance": 0,
                                         "name": "daemon"})
    return int(d["parameters"]["data"]["statsd_applied"])


def statsd():
    tmp = tempfile.mkdtemp(prefix="rx_floor.")
    port = free_port()
    conf = os.path.join(tmp, "statsd.conf")
    with open(conf, "w") as f:
        f.write("statsd_udp = 127.0.0.1:%d\nstatsd_unix = none\n"
                "nice = %d\n" % (port, NICE))
    sock = os.path.join(tmp, "run", "statsd.sock")
    p = subprocess.Popen([STATSD, "--foreground", "--config", conf,
                          "--runtime-dir", os.path.join(tmp, "run"),
                          "--state-dir", os.path.join(tmp, "state")],
                         stderr=subprocess.DEVNULL)
    try:
        for _ in range(600):
            try:
                varlink(sock, "io.statsd.Hello", {})
                break
            except OSError:
                time.sleep(0.05)
        else:
            sys.exit("rx_floor: statsd did not answer within 30 s")
        u0, s0 = cpu_times(p.pid)
        sent = send(port)
        # Drained once the count stops moving.
        last, still = applied(sock), 0
        while still < 6:
            time.sleep(0.05)
            now = applied(sock)
            still = still + 1 if now == last else 0
            last = now
        u1, s1 = cpu_times(p.pid)
    finally:
        p.terminate()
        p.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    return {"cpu": (u1 - u0 + s1 - s0) * 1e6 / last,
            "user": (u1 - u0) * 1e6 / last, "sys": (s1 - s0) * 1e6 / last,
            "per_read": None, "kept": last / (sent * lines)}


def main():
    ways = [("statsd", statsd), ("bare, naive", lambda: bare(0)),
            ("bare, full reads", lambda: bare(1000))]
    got = {w: [] for w, _ in ways}
    for _ in range(ROUNDS):
        for w, fn in ways:
            got[w].append(fn())
    print("statsd lines against the kernel's floor: %s senders x %d line(s) "
          "a datagram, %s ms flat out, nice %d; median of %d rounds; "
          "load average %s" % (threads, lines, ms, NICE, ROUNDS,
                               " ".join("%.2f" % x for x in
                                        os.getloadavg())))
    print("| receiver | CPU us a line | user | system | datagrams a read "
          "| kept | CPU / full-reads floor |")
    print("|---|---|---|---|---|---|---|")
    med = {w: {k: statistics.median(r[k] for r in got[w])
               if got[w][0][k] is not None else None
               for k in got[w][0]} for w in got}
    floor = med["bare, full reads"]["cpu"]
    for w, _ in ways:
        m = med[w]
        print("| %s | %.3f | %.3f | %.3f | %s | %.1f %% | %.2f |" % (
            w, m["cpu"], m["user"], m["sys"],
            "%.1f" % m["per_read"] if m["per_read"] is not None else "",
            100 * m["kept"], m["cpu"] / floor))


main()
