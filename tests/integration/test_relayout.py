# SPDX-License-Identifier: BSD-2-Clause
"""test_relayout.py: KstatRelayout, a live kstat laid out again from
another template while keeping every unchanged VOI's data. The Linux
statistics page lets an exploiter attach statistics to an interface "as
the entities appear" and remove them with statistic_remove(); this is the
call that does it for any kstat: the VOIs defined alike in both templates
keep their data exactly, across a clean restart and a kill -9 for a
PERSISTENT kstat; updates in flight for a removed VOI are refused and
counted, never applied to another VOI; a VOI id redefined, another
user's kstat, an unknown template are refused. A blob a Linux definition
re-laid is named by a template of its own, so its stats(3) JSON keeps
its META names."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (DEADLINE, Daemon, RingClient, as_user,  # noqa: E402
                     check, expect_error, finish, info, ok, read_data, run,
                     wait_for)

REQ = {"id": 0, "name": "requests", "dtype": "INT_U64",
       "stats": [{"kind": "SUM"}, {"kind": "COUNT"}]}
LAT = {"id": 1, "name": "latency", "dtype": "INT_U64",
       "stats": [{"kind": "SUM"}, {"kind": "MIN"}, {"kind": "MAX"},
                 {"kind": "HIST", "scheme": "LIN", "lb": 0, "ub": 1000,
                  "step": 100}]}
ERR = {"id": 2, "name": "errors", "dtype": "INT_S64",
       "stats": [{"kind": "SUM"}]}
ERR_U64 = dict(ERR, dtype="INT_U64")


def tpl_add(d, name, vois):
    return ok(d.call("io.statsd.TemplateAdd", {"name": name, "vois": vois}),
              "TemplateAdd " + name)["template"]["spec"]


def relayout(d, name, spec, conn=None):
    return (conn or d).call("io.statsd.KstatRelayout", {
        "module": "rl", "instance": 0, "name": name, "template": spec})


def data(d, name="k"):
    """Its statistics; snaptime moves with every change."""
    return without(read_data(d, "rl", 0, name), "snaptime")


def without(dct, prefix):
    return {n: v for n, v in dct.items() if not n.startswith(prefix)}


d = Daemon(config="checkpoint_interval_ms = 100000\n").start()
t1 = tpl_add(d, "RL1", [REQ, LAT])
t2 = tpl_add(d, "RL2", [REQ, LAT, ERR])
t3 = tpl_add(d, "RL3", [REQ, ERR])
t4 = tpl_add(d, "RL4", [REQ, ERR_U64])
k = ok(d.call("io.statsd.KstatCreate", {
    "module": "rl", "instance": 0, "name": "k", "template": t1,
    "flags": ["PERSISTENT"]}), "KstatCreate PERSISTENT")["kstat"]

rc = RingClient(d.sock)
check(rc.cmd("connect") == "ok", "producer connects")
check(rc.cmd("handle rl 0 k") == "ok handle=%d" % k["handle"], "handle")
check(rc.cmd("attach 12").startswith("ok"), "a ring")
rc.counters("push 100 0 3")
rc.counters("push 50 1 250")
wait_for(lambda: data(d).get("latency.count") == 50 or
         data(d).get("latency.sum") == 12500, "the first updates applied")
d1 = data(d)
check(d1.get("requests.sum") == 300 and d1.get("latency.sum") == 12500,
      "before: requests.sum 300, latency.sum 12500: %s" % d1)
blob1 = ok(d.call("io.statsd.Read", {"module": "rl", "instance": 0,
                                     "name": "k"}), "Read")

# A VOI added: the two there keep every statistic, histogram buckets too.
r = ok(relayout(d, "k", t2), "KstatRelayout adds errors")
check(r.get("kept") == 2, "two VOIs kept: %s" % r)
check(r.get("kstat", {}).get("template") == t2, "the kstat is RL2's now")
check(r.get("kstat", {}).get("handle") == k["handle"], "its handle stays")
d2 = data(d)
check(without(d2, "errors") == d1,
      "requests and latency unchanged by the new VOI:\n%s\n%s" % (d1, d2))
rd = ok(d.call("io.statsd.Read", {"module": "rl", "instance": 0,
                                  "name": "k"}), "Read after")
check("errors" in str(rd.get("blob")) and "latency" in str(rd.get("blob")),
      "the stats(3) JSON names every VOI of the new template: %s"
      % str(rd.get("blob"))[:300])

# Feeding goes on where it was, the new VOI from zero.
rc.counters("push 7 2 1")
rc.counters("push 10 0 1")
wait_for(lambda: data(d).get("errors.sum") == 7 and
         data(d).get("requests.sum") == 310, "new updates applied")

# A VOI removed: the others keep their data.
before = data(d)
r = ok(relayout(d, "k", t3), "KstatRelayout removes latency")
check(r.get("kept") == 2, "requests and errors kept: %s" % r)
after = data(d)
check(after == without(before, "latency"),
      "requests and errors unchanged, latency gone:\n%s\n%s"
      % (before, after))
# Records still aimed at the removed VOI are refused and counted, not
# applied to another one.
rej0 = info(d).get("rejected", 0)
rc.counters("push 20 1 5")
rc.counters("push 1 0 1")
wait_for(lambda: data(d).get("requests.sum") == 311, "a later update")
check(without(data(d), "requests") == without(after, "requests"),
      "records for the removed VOI changed nothing")
check(info(d).get("rejected", 0) == rej0 + 20,
      "the 20 records for the removed VOI are counted as rejected (%s, %s)"
      % (rej0, info(d).get("rejected")))

# Updates of another producer still in its ring while the kstat is
# re-laid: a VOI both layouts hold gets each exactly once.
rc.counters("push 1000 0 1")
r = ok(relayout(d, "k", t2), "KstatRelayout while updates are in flight")
wait_for(lambda: data(d).get("requests.sum") == 1311,
         "in-flight updates of a kept VOI applied exactly once")
check(data(d).get("errors.sum") == 7, "errors kept through both")
r = ok(relayout(d, "k", t3), "KstatRelayout removes latency again")

# Its id given to another definition: refused, the kstat as it was.
expect_error(relayout(d, "k", t4), "io.statsd.InvalidValue",
             "a VOI id redefined", parameter="template")
expect_error(relayout(d, "k", '"NOPE":1'), "io.statsd.NoSuchTemplate",
             "an unknown template")
expect_error(relayout(d, "nope", t2), "io.statsd.NoSuchKstat",
             "an unknown kstat")
kept = data(d)

# Another user may not re-lay it.
p = run(as_user([sys.executable, os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "harness.py"), "--client",
    d.sock]), input=json.dumps({
        "method": "io.statsd.KstatRelayout", "parameters": {
            "module": "rl", "instance": 0, "name": "k", "template": t2}})
    + "\n", capture_output=True, text=True, timeout=DEADLINE)
check('"io.statsd.PermissionDenied"' in p.stdout,
      "another user is refused: %s %s" % (p.stdout, p.stderr[-300:]))
check(data(d) == kept, "the kstat is as it was")

# A definition that re-lays a blob (a Linux statistic's type changed)
# gives the new layout a template of its own: the stats(3) JSON of Read
# and Snapshot keeps its META names, across restarts too.
LX = [{"id": 0, "name": "lat", "dtype": "INT_S64",
       "stats": [{"kind": "DEFN", "units": "ms"}]},
      {"id": 1, "name": "cnt", "dtype": "INT_S64",
       "stats": [{"kind": "DEFN"}]}]
tlx = tpl_add(d, "LX", LX)
ok(d.call("io.statsd.KstatCreate", {
    "module": "rl", "instance": 0, "name": "lx", "template": tlx,
    "flags": ["PERSISTENT"]}), "KstatCreate a Linux-like kstat")


def lx_blob(method="io.statsd.Read"):
    return ok(d.call(method, {"module": "rl", "instance": 0, "name": "lx"}),
              method).get("blob", {})


def named(b):
    return isinstance(b, dict) and isinstance(b.get("tplname"), str) and \
        sorted(b.get("vois", {}).keys()) == ["cnt", "lat"]


check(named(lx_blob()), "laid out as its template: named: %s" % lx_blob())
r = ok(d.call("io.statsd.DefinitionSet", {
    "module": "rl", "instance": 0, "name": "lx",
    "text": "name=lat type=array range_min=0 range_max=64 "
            "base_interval=1 scale=log2\n"}), "DefinitionSet re-lays")
check(r.get("relaid") is True, "the definition re-laid the blob")
b = lx_blob()
check(named(b) and b["tplname"].startswith("LX.relaid.") and
      "HIST" in b["vois"]["lat"]["stats"],
      "re-laid: named by a template of its own, HIST and all: %s" % b)
check(named(lx_blob("io.statsd.Snapshot")), "Snapshot's JSON named too")
ok(d.call("io.statsd.DefinitionSet", {
    "module": "rl", "instance": 0, "name": "lx",
    "text": "name=cnt type=range range_min=0 range_max=9\n"}),
   "DefinitionSet re-lays again")
b2 = lx_blob()
check(named(b2) and b2.get("tplhash") != b.get("tplhash") and
      "DEFN" in str(b2["vois"]["cnt"]),
      "re-laid again: named by the new layout's template: %s" % b2)
lx_kept = lx_blob()

# A re-lay is charged as a create is: an unprivileged user at its arena
# quota is refused (LimitReached) and keeps its kstat as it was.
SMALL = [{"id": 0, "name": "n", "dtype": "INT_U64",
          "stats": [{"kind": "SUM"}]}]
BIG = SMALL + [{"id": 1, "name": "h", "dtype": "INT_U64",
                "stats": [{"kind": "HIST", "scheme": "LIN", "lb": 0,
                           "ub": 2100, "step": 1}]}]


def as_nobody(calls):
    """Run calls (method, parameters) as uid 65534 on one connection;
    returns the replies."""
    p = run(as_user([sys.executable, os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "harness.py"),
        "--client", d2.sock]), input="".join(
            json.dumps({"method": m, "parameters": a}) + "\n"
            for m, a in calls), capture_output=True, text=True,
        timeout=DEADLINE)
    return [json.loads(ln)["reply"] for ln in p.stdout.splitlines()
            if ln.startswith("{")]


d2 = Daemon(config="arena_bytes_per_uid = 64K\n").start()
q = {"module": "q", "instance": 0}
rep = as_nobody([
    ("io.statsd.TemplateAdd", {"name": "QS", "vois": SMALL}),
    ("io.statsd.TemplateAdd", {"name": "QB", "vois": BIG}),
    ("io.statsd.KstatCreate", dict(q, name="a", template="QS")),
    ("io.statsd.KstatCreate", dict(q, name="b", template="QS")),
    ("io.statsd.KstatRelayout", dict(q, name="a", template="QB")),
    ("io.statsd.Read", dict(q, name="a")),
    ("io.statsd.KstatDelete", dict(q, name="b")),
    ("io.statsd.KstatRelayout", dict(q, name="a", template="QB")),
])
check(len(rep) == 8, "nobody's eight calls answered: %s" % rep)
if len(rep) == 8:
    check(rep[4].get("error") == "io.statsd.LimitReached",
          "a re-lay past the arena quota: LimitReached: %s" % rep[4])
    check(rep[5].get("parameters", {}).get("kstat", {}).get(
        "template", "").startswith('"QS"'),
        "the kstat keeps its layout: %s" % rep[5])
    check("error" not in rep[7] and
          rep[7].get("parameters", {}).get("kept") == 1,
          "with room again, the re-lay is made: %s" % rep[7])
d2.stop()

# A clean restart, then a kill -9: the new layout and its data stay.
d.stop()
d.start()
got = ok(d.call("io.statsd.Read", {"module": "rl", "instance": 0,
                                   "name": "k"}), "Read after restart")
check(got.get("kstat", {}).get("template") == t3,
      "after a restart the kstat is RL3's: %s" % got.get("kstat"))
check(data(d) == kept, "after a restart the data is intact:\n%s\n%s"
      % (kept, data(d)))
check(lx_blob() == lx_kept, "after a restart the re-laid blob is named "
      "as before: %s" % lx_blob())
r = ok(relayout(d, "k", t2), "KstatRelayout after the restart")
check(r.get("kept") == 2, "requests and errors kept again")
rc.quit()
rc = RingClient(d.sock)
check(rc.cmd("connect") == "ok", "producer connects again")
check(rc.cmd("handle rl 0 k") == "ok handle=%d" % k["handle"], "handle")
check(rc.cmd("attach 12").startswith("ok"), "a ring")
rc.counters("push 4 1 100")
wait_for(lambda: data(d).get("latency.sum") == 400, "latency, new again")
kept = data(d)
d.kill9()
d.start()
check(data(d) == kept, "after kill -9 the data is intact:\n%s\n%s"
      % (kept, data(d)))
check(named(lx_blob()), "after kill -9 the re-laid blob is named")
rc.quit()
d.stop()
finish()
