#!/usr/bin/python3
# SPDX-License-Identifier: BSD-2-Clause
"""lines_vs.py: bench_lines of two builds side by side: the CPU statsd
spends parsing and applying a statsd/DogStatsD line (20 lines a datagram,
each shape of bench_lines.c), this build against another ("before"),
with ratios. The two binaries run in turn, ROUNDS times each, so that a
change in the machine's load falls on both; each figure is the median of
those runs (each run itself the median of its own rounds).

usage: python3 tests/bench/lines_vs.py BUILDDIR BEFORE_BUILDDIR
           [DATAGRAMS [ROUNDS]]
BEFORE_BUILDDIR (or BEFORE_BUILDDIR/tests/bench/bench_lines) is any build
with bench_lines. Not run by meson test: its figures depend on the
machine and its load.
"""
import os
import statistics
import subprocess
import sys


def binary(d):
    p = os.path.join(d, "tests", "bench", "bench_lines")
    return p if os.path.exists(p) else d


def run(exe, n):
    out = subprocess.run([exe, str(n), "5"], check=True,
                         capture_output=True, text=True).stdout
    rows = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 4 and f[0] not in ("shape", "mean") and \
                f[0][0].isalpha() and f[1][0].isdigit():
            rows[f[0]] = (float(f[1]), float(f[2]))
    return rows


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    now, before = binary(sys.argv[1]), binary(sys.argv[2])
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 20000
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    with open("/proc/loadavg") as f:
        load0 = " ".join(f.read().split()[:3])
    got = {now: [], before: []}
    for _ in range(rounds):
        for exe in (now, before):
            got[exe].append(run(exe, n))
    with open("/proc/loadavg") as f:
        load1 = " ".join(f.read().split()[:3])
    print("bench_lines, 20 lines a datagram, %d datagrams a run, median of "
          "%d runs each, interleaved" % (n, rounds))
    print("load average %s at the start, %s at the end" % (load0, load1))
    print("%-8s %11s %11s %7s %11s %11s %7s" % (
        "shape", "ns/line", "before", "ratio", "parse ns", "before",
        "ratio"))
    shapes = [s for s in got[now][0] if s in got[before][0]]
    for s in shapes:
        a = statistics.median(r[s][0] for r in got[now])
        b = statistics.median(r[s][0] for r in got[before])
        pa = statistics.median(r[s][1] for r in got[now])
        pb = statistics.median(r[s][1] for r in got[before])
        print("%-8s %11.1f %11.1f %6.2fx %11.1f %11.1f %6.2fx" % (
            s, a, b, a / b, pa, pb, pa / pb))


if __name__ == "__main__":
    main()
