# SPDX-License-Identifier: BSD-2-Clause
"""test_scale.py: a store of 20,000 kstats (10 VOIs each, 28 statistics and
a Linux one) with statsd's default limits, read whole in every form: the
Scrape formats (json, kstat, linux, flat) streamed over the protocol, Chain
walked with its cursor, `statsctl scrape` in each of its formats and
`statsctl show -p` and `-j`, and the libkstat consumer (kstat_open() and a
kstat_read() of every kstat). Each read must hold every kstat once, in
kstat(1M)'s order, with every statistic.

Then a reader that asks for a streamed scrape of everything and stops
reading after its first reply: while it sits there statsd keeps answering
others (a whole scrape by statsctl) and keeps draining rings (a producer's
updates are applied), the bytes queued for the stalled reader stay far
below the scrape's size, and the reader is closed after idle_timeout_ms
without progress."""
import json
import os
import socket
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import (DEADLINE, Conn, Daemon, RingClient, check,  # noqa: E402
                     finish, ok, wait_for)

STATSCTL = os.environ.get("STATSCTL", "statsctl")
CLIENT_IT = os.environ.get("CLIENT_IT", "client_it")
N = 20000
IDLE_MS = 2000
TPL = {"name": "SCALE", "vois": [
    {"id": i, "name": "v%d" % i, "dtype": "INT_U64",
     "stats": [{"kind": "SUM"}, {"kind": "MIN"}, {"kind": "MAX"}]}
    for i in range(9)] + [
    {"id": 9, "name": "bytes", "dtype": "INT_S64",
     "stats": [{"kind": "DEFN", "units": "bytes"}]}]}

# The default limits, but for the idle time-out (for the stalled reader).
d = Daemon(config="idle_timeout_ms = %d\n" % IDLE_MS).start()
c = d.conn()
spec = ok(c.call("io.statsd.TemplateAdd", TPL), "TemplateAdd")[
    "template"]["spec"]
# Instances in an order that is not kstat(1M)'s, over three modules.
names = [("sc%d" % (i % 3), (i * 7919) % N, "k") for i in range(N)]
for at in range(0, N, 4096):
    ok(c.call("io.statsd.KstatCreateMany", {
        "template": spec, "class": "scale",
        "kstats": [{"module": m, "instance": i, "name": n}
                   for m, i, n in names[at:at + 4096]]}),
       "KstatCreateMany %d.." % at, count=False)
c.close()
want = sorted(names)
WANT = set(want)

# One kstat alone: what every kstat of the store must show.
one = ok(d.call("io.statsd.Scrape", {"format": "kstat",
                                     "selector": "sc0:0:k"}), "Scrape one")
STATS = sorted(ln.split("\t")[0].split(":", 3)[3]
               for ln in one.get("text", "").splitlines())
check(len(STATS) == 31 and "v8.max" in STATS and "bytes.count" in STATS,
      "one kstat shows its 28 + 3 statistics: %s" % STATS)


def key(s):
    m, i, n = s.split(":")[:3]
    return (m, int(i), n)


def in_order(shown, what):
    """Every kstat once, in kstat(1M)'s order."""
    check(shown == want, "%s: %d kstats, every one once, in order%s" % (
        what, len(shown), "" if shown == want else
        " (first difference at %d)" % next(
            (j for j, (a, b) in enumerate(zip(shown, want)) if a != b),
            min(len(shown), len(want)))))


def kstat_lines(text, what, sep="\t"):
    """kstat -p lines: each kstat's statistics, all of them, together."""
    shown, stats, bad = [], {}, 0
    for ln in text.splitlines():
        if not ln.startswith("sc"):
            continue
        name, _, _value = ln.partition(sep)
        if sep == ":":
            name = ln.rsplit(":", 1)[0]
        k = key(name)
        if not shown or shown[-1] != k:
            shown.append(k)
            stats[k] = []
        stats[k].append(name.split(":", 3)[3])
    bad = sum(1 for k in stats if sorted(stats[k]) != STATS)
    in_order(shown, what)
    check(bad == 0, "%s: every kstat with its %d statistics (%d without)"
          % (what, len(STATS), bad))


def json_kstats(arr, what):
    shown = [(k["module"], k["instance"], k["name"]) for k in arr
             if k["module"].startswith("sc")]
    in_order(shown, what)
    bad = sum(1 for k in arr if k["module"].startswith("sc") and
              len(k["data"]) < 28)
    check(bad == 0, "%s: every kstat with its data (%d without)" % (what, bad))


def stream(method, params, what):
    """Every reply of one call with "more"."""
    s = d.conn()
    s.send(method, params, more=True)
    pages = []
    while True:
        r = s.recv()
        p = ok(r, what, count=False)
        if not p:
            break
        pages.append(p)
        if not r.get("continues"):
            break
    s.close()
    check(len(pages) > 1, "%s: in %d replies" % (what, len(pages)))
    return pages


# --------------------------------------------------------- the protocol
pages = stream("io.statsd.Scrape", {"format": "kstat"}, "Scrape kstat")
whole = "".join(p["text"] for p in pages)
kstat_lines(whole, "Scrape kstat, streamed")
pages = stream("io.statsd.Scrape", {"format": "json"}, "Scrape json")
try:
    arr = json.loads("".join(p["text"] for p in pages))
except ValueError as e:
    check(False, "Scrape json: the texts join into JSON: %s" % e)
    arr = []
json_kstats(arr, "Scrape json, streamed")
pages = stream("io.statsd.Scrape", {"format": "linux"}, "Scrape linux")
text = "".join(p["text"] for p in pages)
shown = [key(ln[2:]) for ln in text.splitlines() if ln.startswith("# sc")]
in_order(shown, "Scrape linux, streamed")
check(text.count("\nbytes 0\n") == N, "Scrape linux: each kstat's data line")
pages = stream("io.statsd.Scrape", {"format": "flat"}, "Scrape flat")
flat = [k for p in pages for k in p["flat"] if k["module"].startswith("sc")]
in_order([(k["module"], k["instance"], k["name"]) for k in flat],
         "Scrape flat, streamed")
check(all(len(k["stats"]) == 28 for k in flat),
      "Scrape flat: each kstat's 28 statistics")

# Chain without a stream: the first page and a cursor, page after page.
c = d.conn()
shown, p, npages = [], {}, 0
while npages < 10000:
    r = ok(c.call("io.statsd.Chain", p), "Chain page", count=False)
    npages += 1
    shown += [(k["module"], k["instance"], k["name"])
              for k in r.get("kstats", []) if k["module"].startswith("sc")]
    if "cursor" not in r:
        break
    p = {"cursor": r["cursor"]}
c.close()
check(npages > 1, "Chain: %d pages" % npages)
in_order(shown, "Chain by cursor")

# ------------------------------------------------------------- statsctl
env = dict(os.environ, STATSD_SOCKET=d.sock)


def statsctl(*args):
    p = harness.run([STATSCTL] + list(args), env=env, capture_output=True,
                    text=True, timeout=DEADLINE * 4)
    check(p.returncode == 0, "statsctl %s exited %d: %s" % (
        " ".join(args), p.returncode, p.stderr[-500:]))
    return p.stdout


kstat_lines(statsctl("scrape", "--format", "kstat"), "statsctl scrape kstat")
try:
    arr = json.loads(statsctl("scrape", "--format", "json"))
except ValueError as e:
    check(False, "statsctl scrape json: JSON: %s" % e)
    arr = []
json_kstats(arr, "statsctl scrape json")
text = statsctl("scrape", "--format", "linux")
in_order([key(ln[2:]) for ln in text.splitlines() if ln.startswith("# sc")],
         "statsctl scrape linux")
kstat_lines(statsctl("show", "-p"), "statsctl show -p")
try:
    arr = json.loads(statsctl("show", "-j"))
except ValueError as e:
    check(False, "statsctl show -j: JSON: %s" % e)
    arr = []
json_kstats(arr, "statsctl show -j")

# ------------------------------------------- the libkstat consumer API
p = harness.run([CLIENT_IT, "kchain", d.sock], capture_output=True,
                text=True, timeout=DEADLINE * 4)
check(p.returncode == 0, "client_it kchain exited %d: %s" % (
    p.returncode, p.stdout[-1000:] + p.stderr[-1000:]))
shown, unread = [], 0
for ln in p.stdout.splitlines():
    if ln.startswith("chain=sc"):
        k, _, r = ln[len("chain="):].partition(" ")
        shown.append(key(k))
        unread += r != "read=1"
check(sorted(shown) == want and len(shown) == N,
      "kstat_open: every kstat in the chain (%d)" % len(shown))
check(unread == 0, "kstat_read of every kstat (%d failed)" % unread)

# ------------------------------------------------- a reader that stalls
rc = RingClient(d.sock)
check(rc.cmd("connect") == "ok", "ring_client connects")
check(rc.cmd("handle sc1 7919 k").startswith("ok handle="), "handle sc1:7919:k")
check(rc.cmd("attach").startswith("ok"), "ring attached")


def clients():
    return harness.info(d).get("clients", -1)


base = clients()
slow = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
# A small receive buffer, so that statsd's queue is what fills.
slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
slow.settimeout(DEADLINE)
slow.connect(d.sock)
slow.sendall(json.dumps({"method": "io.statsd.Scrape", "more": True,
                         "parameters": {"format": "kstat"}}).encode() +
             b"\0")
got = b""
while b"\0" not in got:
    b = slow.recv(4096)
    if not b:
        break
    got += b
check(b'"continues":true' in got.replace(b" ", b""),
      "the stalled reader got the first reply of its stream")
check(clients() == base + 1, "the stalled reader is connected")
# While it sits there: others are answered, rings drained.
kstat_lines(statsctl("scrape", "--format", "kstat"),
            "statsctl scrape kstat while a reader stalls")
pushed, dropped = rc.counters("push 1000 0 3")
check(wait_for(lambda: harness.read_data(d, "sc1", 7919, "k").get("v0.sum") ==
               3 * (pushed - dropped), "drained"),
      "the drain applies a producer's updates while a reader stalls")
q = harness.info(d).get("quotas", {}).get("total", {}).get(
    "buffered_bytes", {}).get("used", -1)
check(0 <= q < 8 << 20 < len(whole),
      "statsd holds %d bytes queued, not the scrape's %d" % (q, len(whole)))
# Then the stalled reader is closed (idle_timeout_ms without progress),
# and statsd goes on.
check(wait_for(lambda: clients() == base, "the stalled reader closed",
               deadline=IDLE_MS / 1000 + DEADLINE),
      "the reader that stopped reading was closed")
slow.close()
pushed2, dropped2 = rc.counters("push 1000 0 3")
check(wait_for(lambda: harness.read_data(d, "sc1", 7919, "k").get("v0.sum") ==
               3 * (pushed2 - dropped2), "drained"),
      "the drain goes on after the stalled reader is gone")
rc.quit()
check(d.alive(), "statsd is alive")
d.stop()
finish()
