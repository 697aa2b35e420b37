#!/usr/bin/python3
# SPDX-License-Identifier: BSD-2-Clause
"""create_vs.py: creating one kstat at a time (bench_create.c) with this
build's statsd and libstatsclient and with another build's, side by side,
at 2,000 and 20,000 kstats: stats_blob_publish(), kstat_create() with
kstat_install(), statistic_create() with statistic_start(), and one
io.statsd.Hello round trip for reference. For each: microseconds a call
of wall time, and of CPU time (statsd's and the client's), the median of
3 rounds that alternate the two builds, and the ratios.

The other build is a build directory of the tree at another commit (say
the one before the change): bench_create.c of this tree is compiled
against its libstatsclient and its tests/bench/benchutil.c with cc.

usage: python3 tests/bench/create_vs.py BUILDDIR OTHER_SRCDIR OTHER_BUILDDIR
    [CALLS]
CREATE_VS_ROUNDS sets the rounds (3): on a virtual machine whose idle
vCPUs halt, a call's wall time moves by a third from run to run, and
more rounds steady the medians.

Not run by meson test: its figures depend on the machine and its load.
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile

if len(sys.argv) < 4:
    sys.exit(__doc__)
build, osrc, obuild = sys.argv[1:4]
calls = sys.argv[4] if len(sys.argv) > 4 else "1000"
HERE = os.path.dirname(os.path.abspath(__file__))
SIZES = "2000,20000"
ROUNDS = int(os.environ.get("CREATE_VS_ROUNDS", "3"))
WAYS = ["roundtrip", "publish", "kstat", "statistic"]


def other_bench(tmp):
    lib = os.path.join(obuild, "src", "client")
    out = os.path.join(tmp, "bench_create_other")
    subprocess.run(["cc", "-O2", "-std=c11", "-D_GNU_SOURCE", "-I",
                    os.path.join(osrc, "include"), "-I", obuild, "-o", out,
                    os.path.join(HERE, "bench_create.c"),
                    os.path.join(osrc, "tests", "bench", "benchutil.c"),
                    os.path.join(lib, "libstatsclient.so.0"),
                    "-Wl,-rpath," + os.path.abspath(lib)], check=True)
    return out


def run(bench, statsd):
    p = subprocess.run([bench, SIZES, statsd, calls], capture_output=True,
                       text=True, check=True)
    rows = {}
    for m in re.finditer(r"ROW n=(\d+) way=(\w+) wall_us=([\d.]+) "
                         r"statsd_us=([\d.]+) client_us=([\d.]+)", p.stdout):
        rows[(int(m.group(1)), m.group(2))] = tuple(
            float(m.group(i)) for i in (3, 4, 5))
    return rows


def main():
    with tempfile.TemporaryDirectory() as tmp:
        builds = [
            ("after", os.path.join(build, "tests", "bench", "bench_create"),
             os.path.join(build, "src", "daemon", "statsd")),
            ("before", other_bench(tmp),
             os.path.join(obuild, "src", "daemon", "statsd")),
        ]
        got = {}
        for _ in range(ROUNDS):
            for name, bench, statsd in builds:
                for k, v in run(bench, statsd).items():
                    got.setdefault((name,) + k, []).append(v)
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    print("creation, one call at a time: us a call, median of %d rounds "
          "(%s calls each); load average %s" % (ROUNDS, calls, load))
    print("| kstats | call | before wall | after wall | after/before | "
          "before CPU (statsd+client) | after CPU | after/before | "
          "after CPU / round trip CPU | after wall / round trip wall |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for n in (int(s) for s in SIZES.split(",")):
        def med(name, way, i):
            v = got.get((name, n, way))
            return statistics.median(x[i] for x in v) if v else 0.0

        def cpu(name, way):
            v = got.get((name, n, way))
            return statistics.median(x[1] + x[2] for x in v) if v else 0.0
        rt = cpu("after", "roundtrip")
        rtw = med("after", "roundtrip", 0)
        for way in WAYS:
            bw, aw = med("before", way, 0), med("after", way, 0)
            bc, ac = cpu("before", way), cpu("after", way)
            print("| %d | %s | %.1f | %.1f | %.2f | %.1f | %.1f | %.2f | "
                  "%.2f | %.2f |" % (n, way, bw, aw, aw / bw if bw else 0,
                                     bc, ac, ac / bc if bc else 0,
                                     ac / rt if rt else 0,
                                     aw / rtw if rtw else 0))


main()
