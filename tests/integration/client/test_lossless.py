# SPDX-License-Identifier: BSD-2-Clause
"""test_lossless.py: producers that never lose an update, against a real
statsd. 8 threads x 1M updates flat out, and a 20k burst from one thread
into a ring statsd had been idle on: nothing dropped, every total exact,
MIN and MAX right (a full ring's updates go to the ring's spill buffers,
which statsd merges). Then every statistic kind through statsd's merge of
spill buffers: a producer on a 4-record ring that spills nearly all it
pushes, and the same records through a ring large enough to hold them
all, end in the same data. Totals are asserted; timings are the
benchmark's (tests/bench/bench_lossless)."""
import os
import random
import re
import signal
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
import harness  # noqa: E402
from harness import (DEADLINE, Daemon, RingClient, check, finish,  # noqa: E402
                     mkdtemp, ok, read_data)

CLIENT_IT = os.environ.get("CLIENT_IT", "client_it")


def run(d, mode, *args):
    p = harness.run([CLIENT_IT, mode, d.sock] + [str(a) for a in args],
                    stdin=subprocess.DEVNULL, capture_output=True,
                    text=True, timeout=DEADLINE * 20)
    check(p.returncode == 0, "client_it %s exited %d:\n%s%s" % (
        mode, p.returncode, p.stdout[-3000:], p.stderr[-3000:]))
    check("Sanitizer" not in p.stderr and "runtime error" not in p.stderr,
          "client_it %s: sanitizer report:\n%s" % (mode, p.stderr[-3000:]))
    out = {}
    for word in p.stdout.split():
        if "=" in word:
            k, v = word.split("=", 1)
            out[k] = v
    return out


d = Daemon().start()

# --- 8 threads x 1M, flat out. Thread t sends v = 1 + (7i + t) % 1000
# for i in 1..N-1 (i = 0 takes its ring), thread 3 one 5000 at N/2 and
# thread 5 one -7 at N/3; and a count of 1 per update, the first too.
T, N = 8, 1000000
r = run(d, "lossless", "flood", T, N)
check(r.get("dropped") == "0", "8 x 1M flat out: nothing dropped (%s)"
      % r.get("dropped"))
check(r.get("pushed") == str(T * N + T * (N - 1)),
      "pushed %s == %d" % (r.get("pushed"), T * N + T * (N - 1)))
want_sum = 0
for t in range(T):
    # 1 + (7i + t) % 1000 has period 1000 in i.
    period = sum(1 + (7 * i + t) % 1000 for i in range(1000))
    full, rest = divmod(N - 1, 1000)
    s = full * period + sum(1 + (7 * i + t) % 1000
                            for i in range(1 + full * 1000, N))
    # i runs 1..N-1: the period sum above counted i = 0..999, so take
    # i = 0 out and i = full*1000 in.
    s += (1 + (7 * (full * 1000) + t) % 1000) - (1 + t % 1000)
    if t == 3:
        s += 5000 - (1 + (7 * (N // 2) + t) % 1000)
    if t == 5:
        s += -7 - (1 + (7 * (N // 3) + t) % 1000)
    want_sum += s
data = read_data(d, "it", 0, "flood")
check(data.get("n.sum") == T * N, "count exact: n.sum %s == %d"
      % (data.get("n.sum"), T * N))
check(data.get("v.sum") == want_sum, "sum exact: v.sum %s == %d"
      % (data.get("v.sum"), want_sum))
check(data.get("v.min") == -7 and data.get("v.max") == 5000,
      "MIN and MAX right: %s, %s" % (data.get("v.min"), data.get("v.max")))

# --- a 20k burst from one thread into a ring statsd sleeps on.
r = run(d, "burst", "burst", 20000)
check(r.get("pushed") == "20000" and r.get("dropped") == "0",
      "a 20k burst: all kept (%s)" % r)
check(read_data(d, "it", 0, "burst").get("n.sum") == 20001,
      "the burst's total exact")
inf = ok(d.call("io.statsd.Info", {}), "Info")
check(inf.get("dropped") == 0 and inf.get("spilled", 0) > 0,
      "statsd dropped nothing and merged spills (%s spilled)"
      % inf.get("spilled"))

# --- every kind through statsd's merge of spill buffers.
KINDS = {"name": "KINDS", "vois": [
    {"id": 0, "name": "sum", "dtype": "INT_U64",
     "stats": [{"kind": "SUM"}, {"kind": "COUNT"}, {"kind": "MIN"},
               {"kind": "MAX"}]},
    {"id": 1, "name": "hist", "dtype": "INT_S64",
     "stats": [{"kind": "HIST", "scheme": "LIN", "lb": 0, "ub": 1000,
                "step": 100}, {"kind": "TDGST", "nctds": 32}]},
    {"id": 2, "name": "last", "dtype": "INT_S64",
     "stats": [{"kind": "LAST"}]},
    {"id": 3, "name": "list", "dtype": "INT_S64",
     "stats": [{"kind": "LIST", "entries_max": 8}]},
    {"id": 4, "name": "history", "dtype": "INT_S64",
     "stats": [{"kind": "HISTORY", "entries_max": 16, "mode": "range",
                "period_us": 50}]},
    {"id": 5, "name": "raw", "dtype": "INT_S64",
     "stats": [{"kind": "RAW", "entries_max": 16}]},
    {"id": 6, "name": "ioq", "dtype": "INT_S64",
     "stats": [{"kind": "IOQ"}]},
    {"id": 7, "name": "timer", "dtype": "INT_S64",
     "stats": [{"kind": "TIMER"}]},
    {"id": 8, "name": "rel", "dtype": "INT_S64", "relupdate": True,
     "stats": [{"kind": "SUM"}, {"kind": "MAX"}]},
]}
c = d.conn()
spec = ok(c.call("io.statsd.TemplateAdd", KINDS), "TemplateAdd KINDS")[
    "template"]["spec"]
for name in ("spilled", "reference"):
    ok(c.call("io.statsd.KstatCreate", {"module": "kinds", "instance": 0,
                                        "name": name, "template": spec}),
       "KstatCreate " + name)
c.close()

# Ops (op.h): abs 1, rel 2, xy 3, qenter 4, qexit 5, qmove 6, tstart 7,
# tstop 8, set 9, hist 10. UNSIGNED = 1, RUNQ = 2.
rng = random.Random(7)
recs = []
t = 1000000000
for i in range(6000):
    t += rng.randrange(1000, 30000)
    voi = rng.randrange(9)
    op, flags, x, y = 1, 0, rng.randrange(1000), 0
    if voi == 0:
        op, flags = rng.choice((1, 3)), 1
    elif voi == 1:
        op = rng.choice((1, 3, 10))
    elif voi == 2:
        op = rng.choice((1, 9))
    elif voi == 3:
        op, x = rng.choice((1, 3)), rng.randrange(12)
    elif voi in (4, 5):
        op = rng.choice((1, 3))
    elif voi == 6:
        op = rng.choice((4, 5, 6, 3))
        flags = 2 if op != 3 and rng.random() < 0.5 else 0
        x = x if op == 3 or (op == 5 and flags) else 0
    elif voi == 7:
        op, x = rng.choice((7, 8)), 0
    else:
        op, x = rng.choice((1, 2, 2)), x - 500
    if op in (3, 10):
        y = rng.randrange(1, 4)
    recs.append((voi, op, flags, x, y, t))

tmp = mkdtemp()
for name, log2, spill in (("spilled", 2, True), ("reference", 16, False)):
    rc = RingClient(d.sock)
    check(rc.cmd("connect") == "ok", "ring_client connects")
    h = rc.cmd("handle kinds 0 %s" % name)
    check(h.startswith("ok handle="), h)
    handle = int(h.split("=")[1])
    path = os.path.join(tmp, name + ".recs")
    with open(path, "wb") as f:
        for voi, op, flags, x, y, tm in recs:
            f.write(struct.pack("=IHBBqqQ", handle, voi, op, flags, x, y,
                                tm))
    check(rc.cmd("attach %d 1048576" % log2).startswith("ok"), "attach")
    if spill:
        check(rc.cmd("spill").startswith("ok"), "spill on")
    out = rc.cmd("pushfile " + path)
    check(out == "ok pushed=%d dropped=0" % len(recs),
          "%s: every record kept: %s" % (name, out))
    harness.wait_for(lambda: rc.cmd("handover") == "ok left=0",
                     "the spill buffers handed over")
    rc.quit()

spilled = ok(d.call("io.statsd.Info", {}), "Info")["spilled"]
check(spilled > len(recs) // 2, "most of them went through spill buffers "
      "(%d spilled in all)" % spilled)


def blob(name):
    r = ok(d.call("io.statsd.Read", {"module": "kinds", "instance": 0,
                                     "name": name}), "Read " + name)
    return r.get("blob", {})


# Every statistic but the t-digest the same; of the t-digest, its count
# (its centroids depend on the order samples came in).
def strip_tdgst(b):
    out = {}
    for name, v in b.get("vois", {}).items():
        st = dict(v.get("stats", {}))
        td = st.get("TDGST")
        if isinstance(td, dict):
            st["TDGST"] = {k: td[k] for k in ("count", "smplcnt", "min",
                                               "max") if k in td}
        out[name] = st
    return out


want = strip_tdgst(blob("reference"))
got = harness.wait_for(lambda: strip_tdgst(blob("spilled")) == want and
                       strip_tdgst(blob("spilled")),
                       "the spilled kstat to equal the reference")
if got != want:
    g = strip_tdgst(blob("spilled"))
    for k in want:
        if want[k] != g.get(k):
            print("VOI %s:\n  reference %s\n  spilled   %s"
                  % (k, want[k], g.get(k)))

# --- the overflow area exhausted. A ring of 4 records with the smallest
# overflow area (8 KiB: two spill buffers of 4 KiB), statsd stopped so
# that it drains nothing and takes no hand-over: timer starts and stops,
# which a spill blob cannot fold, fill the ring and then one buffer's log,
# and the rest is dropped, and counted. Let go, statsd shows the buffer
# in its self kstat until the producer hands it over; then every update
# is applied or counted as dropped, exactly.
def self_ks():
    return read_data(d, "statsd", 0, "daemon")


ok(d.call("io.statsd.KstatCreate", {"module": "kinds", "instance": 0,
                                    "name": "exhaust", "template": spec}),
   "KstatCreate exhaust")
rc = RingClient(d.sock)
check(rc.cmd("connect") == "ok", "ring_client connects")
handle = int(rc.cmd("handle kinds 0 exhaust").split("=")[1])
check(rc.cmd("attach 2 8192").startswith("ok"), "a 4-record ring, 8 KiB "
      "of overflow")
check(rc.cmd("spill").startswith("ok"), "spill on")
path = os.path.join(tmp, "timer.recs")
N = 2000
with open(path, "wb") as f:
    for i in range(N):
        f.write(struct.pack("=IHBBqqQ", handle, 7, 7 + i % 2, 0, 0, 0,
                            2000000000 + 1000 * i))
before = ok(d.call("io.statsd.Info", {}), "Info")
d.proc.send_signal(signal.SIGSTOP)
out = rc.cmd("pushfile " + path)
d.proc.send_signal(signal.SIGCONT)
m = re.match(r"ok pushed=(\d+) dropped=(\d+)$", out)
check(m is not None, "pushfile: " + out)
pushed, dropped = int(m.group(1)), int(m.group(2))
check(pushed == N and 0 < dropped < N - 4,
      "the overflow area ran out: %d of %d dropped" % (dropped, N))
harness.wait_for(lambda: self_ks().get("overflow_used", 0) > 0,
                 "statsd's self kstat shows the buffer it has not been "
                 "handed: %s" % self_ks())
check(self_ks().get("overflow_bytes", 0) >= 8192,
      "and the overflow area: %s" % self_ks().get("overflow_bytes"))
harness.wait_for(lambda: rc.cmd("handover") == "ok left=0",
                 "the spill buffer handed over")


def applied():
    inf = ok(d.call("io.statsd.Info", {}), "Info")
    return inf["applied"] - before["applied"]


harness.wait_for(lambda: applied() == pushed - dropped,
                 "applied + dropped = pushed (%d + %d vs %d)"
                 % (applied(), dropped, pushed))
inf = ok(d.call("io.statsd.Info", {}), "Info")
check(inf["dropped"] - before["dropped"] == dropped,
      "statsd counts the producer's drops: %d" % (inf["dropped"] -
                                                    before["dropped"]))
harness.wait_for(lambda: self_ks().get("overflow_used") == 0,
                 "the buffer released: %s" % self_ks())
rc.quit()
d.stop()
finish()
