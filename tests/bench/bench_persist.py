#!/usr/bin/python3
# SPDX-License-Identifier: BSD-2-Clause
"""bench_persist.py: PERSISTENT creates and deletes per second, two statsd
binaries side by side (say, one built before a change to the persistence
thread and one after), and root's Info latency while they run: its
maximum in the compact row is the event loop's longest stall while the
state log is compacted.

Rows:
  create x1      KstatCreate of PERSISTENT kstats, N calls pipelined on
                 one connection (a connection has one call at a time, so
                 each waits its own sync)
  create x8      the same on 8 connections at once (group commit gathers
                 the syncs of different connections)
  many 200       KstatCreateMany batches of 200 PERSISTENT kstats, on one
                 connection
  delete x1      KstatDelete of the N kstats of create x1, pipelined on
                 one connection: each goes dormant (its record synced)
  remove x1      KstatDelete of them again: removed for good
  delete x8      KstatDelete of the N kstats of create x8 on 8 connections
                 at once (group commit gathers their syncs)
  compact        create, delete, delete again of fresh kstats, 300 calls
                 pipelined at a time, until the log (some 3N kstats by
                 then) has been compacted once: the compaction's new log
                 is written, synced and renamed while the calls go on
For each: calls answered per second, and root's Info round trip (median,
max) measured from another connection every 5 ms while the row runs.

The state directory is made under DIR (default: the current directory),
which should be on the disk the service would use: on tmpfs fdatasync
costs nothing and the rows measure only the loop. The runtime directory
(the PERSISTENT kstats' runtime files) is on /dev/shm, tmpfs, as /run is
on a real system.

Each binary runs ROUNDS times (default 2), alternating, each time on a
fresh daemon; a row shows its best round (the most calls per second, the
lowest median and maximum): on a machine shared with other work, load
that comes and goes then weighs on both columns alike.

RUNDIR (default /dev/shm) is where the runtime directory goes: a disk
file system's there shows what making and deleting runtime files costs
off tmpfs. The loop's longest turn (statsd's exit log) is printed for
each binary: where a runtime file made or deleted in the loop shows.

usage: python3 tests/bench/bench_persist.py BEFORE_STATSD AFTER_STATSD
       [N [DIR [ROUNDS [RUNDIR]]]]
Not run by meson test: its figures depend on the machine and its load.
"""
import multiprocessing
import os
import re
import socket
import statistics
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
import harness  # noqa: E402
from harness import TPL_APP, Conn, Daemon  # noqa: E402

if len(sys.argv) < 3:
    sys.exit(__doc__)
BINS = [("before", sys.argv[1]), ("after", sys.argv[2])]
N = int(sys.argv[3]) if len(sys.argv) > 3 else 2000
BASE = os.path.abspath(sys.argv[4] if len(sys.argv) > 4 else ".")
ROUNDS = int(sys.argv[5]) if len(sys.argv) > 5 else 2
RUNDIR = os.path.abspath(sys.argv[6] if len(sys.argv) > 6 else "/dev/shm")


def pipeline(sock, calls):
    """Send every call at once on a new connection; return the replies."""
    c = Conn(sock, timeout=600)
    c.sock.sendall(b"".join(
        (harness.json.dumps({"method": m, "parameters": p}) + "\0").encode()
        for m, p in calls))
    out = [c.recv() for _ in calls]
    c.close()
    return out


class InfoProbe:
    """Root's Info every 5 ms until stopped, from a process of its own
    (so that the bench's own threads never delay it); the round trips
    in ms."""

    def __init__(self, sock):
        self.sock = sock
        self.stop_ev = multiprocessing.Event()
        self.rd, wr = multiprocessing.Pipe(duplex=False)
        self.proc = multiprocessing.Process(target=self.run, args=(wr,),
                                            daemon=True)

    def start(self):
        self.proc.start()

    def run(self, wr):
        c = Conn(self.sock, timeout=600)
        ms = []
        while not self.stop_ev.is_set():
            t = time.monotonic()
            c.call("io.statsd.Info", {})
            ms.append((time.monotonic() - t) * 1000)
            time.sleep(0.005)
        c.close()
        wr.send(ms)

    def join(self):
        self.stop_ev.set()
        self.ms = self.rd.recv()
        self.proc.join()


def compactions(d):
    return d.call("io.statsd.Info", {})["parameters"]["persistence"][
        "compactions"]


def churn(d, spec, c0):
    """Fresh kstats made, deleted, removed, until a compaction is done.
    Returns: the calls made and their replies."""
    calls, replies, i = 0, [], 0
    while compactions(d) == c0 and calls < 200 * N:
        batch = []
        for j in range(100):
            key = {"module": "churn", "instance": i + j, "name": "k"}
            batch.append(("io.statsd.KstatCreate", dict(
                key, template=spec, flags=["PERSISTENT"])))
            batch.append(("io.statsd.KstatDelete", key))
            batch.append(("io.statsd.KstatDelete", key))
        replies += pipeline(d.sock, batch)
        calls += len(batch)
        i += 100
    return calls, replies


def on_8(d, parts):
    """Each part pipelined on a connection of its own, all at once."""
    res = [None] * len(parts)

    def one(j):
        res[j] = pipeline(d.sock, parts[j])
    th = [threading.Thread(target=one, args=(j,)) for j in range(len(parts))]
    for x in th:
        x.start()
    for x in th:
        x.join()
    return sum(res, [])


def row(d, spec, what):
    """One row on a fresh name space: (calls/s, Info median, max)."""
    row.n += 1
    mod = "b%d" % row.n
    calls = N

    def create(i):
        return ("io.statsd.KstatCreate", {
            "module": mod, "instance": i, "name": "k", "template": spec,
            "flags": ["PERSISTENT"]})
    probe = InfoProbe(d.sock)
    probe.start()
    t = time.monotonic()
    if what == "create x1":
        replies = pipeline(d.sock, [create(i) for i in range(N)])
    elif what in ("delete x1", "remove x1"):
        replies = pipeline(d.sock, [("io.statsd.KstatDelete", {
            "module": "b1", "instance": i, "name": "k"}) for i in range(N)])
    elif what == "delete x8":
        parts = [[("io.statsd.KstatDelete", {
            "module": "b2", "instance": i, "name": "k"})
            for i in range(j, N, 8)] for j in range(8)]
        replies = on_8(d, parts)
    elif what == "compact":
        c0 = compactions(d)
        calls, replies = churn(d, spec, c0)
        row.compacted = compactions(d) - c0
    elif what == "create x8":
        replies = on_8(d, [[create(i) for i in range(j, N, 8)]
                           for j in range(8)])
    else:
        replies = pipeline(d.sock, [("io.statsd.KstatCreateMany", {
            "template": spec, "flags": ["PERSISTENT"], "kstats": [
                {"module": mod, "instance": i, "name": "k"}
                for i in range(j, min(j + 200, N))]})
            for j in range(0, N, 200)])
    dt = time.monotonic() - t
    probe.join()
    bad = [r for r in replies if not r or "error" in r]
    if bad:
        sys.exit("%s: %d calls failed: %s" % (what, len(bad), bad[0]))
    ms = probe.ms or [0.0]
    return calls / dt, statistics.median(ms), max(ms)


ROWS = ["create x1", "create x8", "many 200", "delete x1", "remove x1",
        "delete x8", "compact"]
CONFIG = ("checkpoint_interval_ms = 600000\n"
          "max_persistent_bytes = 64G\nmax_persistent_bytes_per_uid = 64G\n"
          "max_kstats_per_uid = 1000000\n")
results = {}
longest = {}    # the loop's longest turn, ms: the best round's


def one_round(name, path):
    harness.STATSD = path
    d = Daemon(tmp=harness.tempfile.mkdtemp(prefix="bench-persist-",
                                            dir=RUNDIR), config=CONFIG)
    # The state directory on the disk asked for.
    d.state = os.path.join(BASE, "bench-persist-state-%d" % os.getpid())
    d.start()
    spec = d.call("io.statsd.TemplateAdd", TPL_APP)["parameters"][
        "template"]["spec"]
    row.n = 0
    row.compacted = 0
    got = [row(d, spec, w) for w in ROWS]
    d.stop()
    m = re.findall(r"turns: \d+ in \d+ rounds, the longest ([\d.]+) ms",
                   d.stderr())
    if m:
        longest[name] = min(longest.get(name, 1e9), float(m[-1]))
    d.cleanup()
    harness.shutil.rmtree(d.state, ignore_errors=True)
    if name not in results:
        results[name] = got
    else:
        results[name] = [(max(a[0], b[0]), min(a[1], b[1]), min(a[2], b[2]))
                         for a, b in zip(results[name], got)]
    results[name + " compacted"] = min(results.get(name + " compacted",
                                                   row.compacted),
                                       row.compacted)


for _ in range(ROUNDS):
    for name, path in BINS:
        one_round(name, path)

print("PERSISTENT creates and deletes, N = %d per row, state directory "
      "under %s, runtime directory under %s (%s), best of %d rounds" % (
          N, BASE, RUNDIR, socket.gethostname(), ROUNDS))
print("%-10s | %12s %12s %7s | %22s %22s" % (
    "row", "before /s", "after /s", "ratio", "Info ms before (med/max)",
    "after (med/max)"))
for i, w in enumerate(ROWS):
    b, a = results["before"][i], results["after"][i]
    print("%-10s | %12.0f %12.0f %6.2fx | %10.2f / %9.2f %10.2f / %9.2f" % (
        w, b[0], a[0], a[0] / b[0], b[1], b[2], a[1], a[2]))
b, a = results["before"][-1], results["after"][-1]
print("compact: compactions done before %d, after %d; longest Info round "
      "trip during it (the loop's longest stall) before %.2f ms, after "
      "%.2f ms: %.2fx" % (results["before compacted"],
                          results["after compacted"], b[2], a[2],
                          b[2] / a[2] if a[2] else 0.0))
print("the loop's longest turn (exit log), before %.1f ms, after %.1f ms"
      % (longest.get("before", 0.0), longest.get("after", 0.0)))
harness.cleanup_all()
