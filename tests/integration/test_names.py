# SPDX-License-Identifier: BSD-2-Clause
"""test_names.py: names cannot be squatted, and every per-peer resource is
under a quota — the attacks run as uid 65534 through setpriv.

- Templates: a template name is per owner. nobody registers a name first
  with another definition; root's TemplateAdd of it, and a libstatsclient
  producer's (client_it publish, which registers it_tpl and makes its
  kstat by the spec statsd answers), still work, each with its own
  template. TemplateAdd is no existence oracle for a template only a PRIV
  kstat uses: nobody gets the same answer as for a name no one has, and
  its KstatCreate by the hidden spec is NoSuchTemplate.
- statsd series: nobody's line claims a series name first, on the Unix
  socket (with forged statsd_uid tags too); the owner's 2,000 Unix lines
  and 1,000 UDP lines are all applied, the Unix ones to the owner's
  series, and GET /metrics serves the owner's value under its name and
  statsd_uid label, nobody's under nobody's.
- PERSISTENT series made or revived from one datagram are bounded: 8 a
  turn, the rest counted in statsd_refused_busy.
- Zones' store segments (a memfd descriptor each) are charged to the
  kstat's owner: with a descriptor limit that leaves room for 5, nobody's
  containers stop at its 3, another user's at the users' share of 4
  (LimitReached names the key), root's kstat in a zone still fits, and
  root's Info is answered all along; a segment's last kstat gone gives
  its charge back.

Every check is of an exact total, a state or a bound, never a time."""
import json
import os
import pwd
import re
import socket
import subprocess
import sys
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import harness  # noqa: E402
from harness import (DEADLINE, SETPRIV, Daemon, as_user, check,  # noqa: E402
                     expect_error, finish, free_port, ok, read_data, run,
                     spawn, wait_for)
from zonetools import CgroupTree, ZonesUnavailable  # noqa: E402

if os.getuid() != 0 or SETPRIV is None:
    print("SKIP: needs root and setpriv")
    sys.exit(77)
PY = "/usr/bin/python3"
NOBODY = pwd.getpwnam("nobody")
OWNER = pwd.getpwnam("daemon")          # the victim: another real user
CLIENT_IT = os.environ.get("CLIENT_IT", "")
PEER = os.path.join(HERE, "zone_peer.py")
harness.stage(os.path.join(HERE, "harness.py"))


class Peer:
    """zone_peer.py as a user (and, with prefix, in a cgroup): one JSON
    call in, one reply out."""

    def __init__(self, d, pw=NOBODY, prefix=()):
        self.proc = spawn(list(prefix) + as_user(
            [PY, PEER, d.sock], uid=pw.pw_uid, regid=pw.pw_gid),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            bufsize=1)

    def call(self, method, params=None):
        self.proc.stdin.write(json.dumps({"method": method,
                                          "parameters": params or {}}) +
                              "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        check(line != "", "peer answered %s (exit %s)" %
              (method, self.proc.poll()))
        return json.loads(line).get("reply", {}) if line else {}

    def quit(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=DEADLINE)


def voi(name, dtype, kind):
    return [{"id": 0, "name": name, "dtype": dtype,
             "stats": [{"kind": kind}]}]


def root_info(d, what):
    r = d.call("io.statsd.Info", {})
    check("parameters" in r, "%s: root's Info is answered: %s" %
          (what, r.get("error")))
    return r.get("parameters", {})


# --------------------------------------------------- templates (rows 5, 7)
d = Daemon().start()
os.chmod(d.run, 0o755)
nobody = Peer(d)

# Row 5: nobody takes the names first, with other definitions.
mine = {"name": "APP", "vois": voi("requests", "INT_U64", "SUM")}
squat = ok(nobody.call("io.statsd.TemplateAdd", {
    "name": "APP", "vois": voi("x", "INT_S64", "MAX")}), "nobody's APP")
check(squat["created"] is True, "nobody registers APP first")
it_squat = ok(nobody.call("io.statsd.TemplateAdd", {
    "name": "it_tpl", "vois": voi("n", "INT_U32", "MIN")}), "nobody's it_tpl")
got = ok(d.call("io.statsd.TemplateAdd", mine), "root's TemplateAdd of APP")
check(got["created"] is True and
      got["template"]["hash"] != squat["template"]["hash"],
      "row 5: root's TemplateAdd is not refused: its own APP, with its "
      "own definition's hash: %s" % got["template"]["spec"])
again = ok(d.call("io.statsd.TemplateAdd", mine), "root's APP again")
check(again["created"] is False and
      again["template"]["spec"] == got["template"]["spec"],
      "row 5: root's APP again is root's")
k = ok(d.call("io.statsd.KstatCreate", {
    "module": "app", "instance": 0, "name": "req",
    "template": got["template"]["spec"]}), "root's KstatCreate")["kstat"]
data = read_data(d, "app", 0, "req")
check(k["template"] == got["template"]["spec"] and
      any(key.startswith("requests") for key in data) and
      not any(key.startswith("x") for key in data),
      "row 5: root's kstat has root's template and VOI names: %s" % data)
# nobody's own APP is still nobody's: its answer is unchanged.
n2 = ok(nobody.call("io.statsd.TemplateAdd", {
    "name": "APP", "vois": voi("x", "INT_S64", "MAX")}), "nobody's again")
check(n2["created"] is False and
      n2["template"]["spec"] == squat["template"]["spec"],
      "nobody's APP stays its own")
# A libstatsclient producer (root's) publishes it_tpl as if nobody had not.
if CLIENT_IT:
    p = run([CLIENT_IT, "publish", d.sock], capture_output=True, text=True,
            timeout=DEADLINE)
    check(p.returncode == 0 and ", 0 failed" in p.stdout,
          "row 5: a libstatsclient producer publishes it_tpl after "
          "nobody took the name: %s%s" % (p.stdout[-600:], p.stderr[-600:]))
    spec = re.search(r"^spec=(.*)$", p.stdout, re.M)
    specs = [t["spec"] for t in ok(d.call("io.statsd.TemplateList", {}),
                                   "TemplateList")["templates"]]
    check(spec is not None and spec.group(1) in specs and
          spec.group(1) != it_squat["template"]["spec"],
          "row 5: statsd holds the producer's it_tpl (%s) beside "
          "nobody's (%s)" % (spec.group(1) if spec else None,
                             it_squat["template"]["spec"]))

# Row 7: a template only a PRIV kstat uses.
secret = {"name": "SECRET", "vois": voi("s", "INT_U64", "SUM")}
sp = ok(d.call("io.statsd.TemplateAdd", secret), "root's SECRET")[
    "template"]["spec"]
ok(d.call("io.statsd.KstatCreate", {"module": "root", "instance": 0,
                                    "name": "secret", "template": sp,
                                    "flags": ["PRIV"]}), "a PRIV kstat")
for how in (sp, "SECRET", ":" + sp.split(":")[1]):
    expect_error(nobody.call("io.statsd.KstatCreate", {
        "module": "n", "instance": 0, "name": "probe", "template": how}),
        "io.statsd.NoSuchTemplate",
        "row 7: a hidden template is no such template (%s)" % how)
# The exact guess, a name no one has, another definition (as another
# user): each answered alike, with the caller's own new template.
other = Peer(d, pw=pwd.getpwnam("bin"))
for peer, name, vois in ((nobody, "SECRET", secret["vois"]),
                         (nobody, "NOSUCH", secret["vois"]),
                         (other, "SECRET", voi("other", "INT_U32", "MAX"))):
    r = peer.call("io.statsd.TemplateAdd", {"name": name, "vois": vois})
    check("parameters" in r and r["parameters"]["created"] is True and
          r["parameters"]["template"]["vois"] == vois,
          "row 7: nobody's TemplateAdd of %s (%s) is answered as for a "
          "name no one has: its own, new: %s" %
          (name, vois[0]["name"], r.get("error") or
           r["parameters"]["template"]["spec"]))
lst = ok(nobody.call("io.statsd.TemplateList", {}), "TemplateList")
specs = [t["spec"] for t in lst["templates"]]
check(len([t for t in lst["templates"] if t["name"] == "SECRET"]) == 1,
      "row 7: nobody's TemplateList shows its own SECRET, never root's "
      "(which only a PRIV kstat uses): %s" % specs)
nobody.quit()
other.quit()
root_info(d, "templates")
d.stop()

# --------------------------------------------------- statsd series (row 6)
udp = free_port(socket.SOCK_DGRAM)
http = free_port()
d = Daemon(config="statsd_udp = 127.0.0.1:%d\nhttp_listen = 127.0.0.1:%d\n"
           "statsd_persistent_prefixes = keep.\n" % (udp, http)).start()
os.chmod(d.run, 0o755)
DGRAM = os.path.join(d.run, "statsd.dgram")


def stats():
    return read_data(d, "statsd", 0, "daemon")


def send_as(dgrams, pw=NOBODY, to_udp=False):
    """Each of dgrams as one datagram from pw, to the Unix socket or to
    UDP; then wait until statsd read them."""
    want = stats()["statsd_datagrams"] + len(dgrams)
    prog = ("import socket,sys\n"
            "u=len(sys.argv[1])<6\n"
            "s=socket.socket(socket.AF_INET if u else socket.AF_UNIX,"
            "socket.SOCK_DGRAM)\n"
            "a=('127.0.0.1',int(sys.argv[1])) if u else sys.argv[1]\n"
            "for l in sys.stdin.read().split():\n"
            "    s.sendto(bytes.fromhex(l), a)\n")
    target = str(udp) if to_udp else DGRAM
    p = run(as_user([PY, "-c", prog, target], uid=pw.pw_uid,
                    regid=pw.pw_gid), capture_output=True, text=True,
            input="\n".join(x.hex() for x in dgrams))
    check(p.returncode == 0, "sender ran: %s" % p.stderr)
    wait_for(lambda: stats()["statsd_datagrams"] >= want,
             "statsd to read %d datagrams" % want)


def moved(before, after):
    return {k: after[k] - before[k] for k in after
            if k.startswith("statsd_") and after[k] != before[k]}


def metrics():
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % http,
                                timeout=DEADLINE) as r:
        text = r.read().decode()
    from prometheus_client.parser import text_string_to_metric_families
    out = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            out[(s.name, frozenset(s.labels.items()))] = s.value
    return out


def sample(name, **labels):
    return (name, frozenset(labels.items()))


s0 = stats()
send_as([b"app.requests:1000000|c",
         b"app.requests:7|c|#statsd_uid:%d" % OWNER.pw_uid,
         b"app.requests:3|c|#statsd.uid:%d" % OWNER.pw_uid])
send_as([b"app.requests:1|c\n" * 100] * 20, pw=OWNER)
send_as([b"app.requests:1|c\n" * 100] * 10, pw=OWNER, to_udp=True)
got = moved(s0, stats())
check(got.get("statsd_applied") == 3003 and
      got.get("statsd_lines") == 3003 and
      not any(k.startswith(("statsd_refused_", "statsd_rejected_"))
              for k in got),
      "row 6: all of the owner's 2,000 Unix and 1,000 UDP lines (and "
      "nobody's 3) are applied, none refused: %s" % got)
check(got.get("statsd_series_created") == 3,
      "row 6: three series: nobody's, the owner's, UDP's: %s" % got)
m = metrics()
want = {
    sample("statsd_app_requests_total", statsd_uid=str(OWNER.pw_uid)): 2000,
    sample("statsd_app_requests_total", statsd_uid=str(NOBODY.pw_uid)):
        1000010,
    sample("statsd_app_requests_total"): 1000,
}
for key, v in want.items():
    check(m.get(key) == v, "row 6: /metrics %s%s = %s, want %s" %
          (key[0], dict(key[1]), m.get(key), v))
check(len([k for k in m if k[0] == "statsd_app_requests_total"]) == 3,
      "row 6: no other app_requests series: %s" %
      [k for k in m if k[0] == "statsd_app_requests_total"])
lk = ok(d.call("io.statsd.Lookup", {"module": "statsd",
                                    "name": "app.requests"}),
        "Lookup")["kstats"]
owners = sorted((k["owner"], k["path"][3:]) for k in lk)
# UDP's is statsd's own uid's: root's, as this statsd runs.
check(owners == sorted([(NOBODY.pw_uid, ["statsd_uid:%d" % NOBODY.pw_uid]),
                        (OWNER.pw_uid, ["statsd_uid:%d" % OWNER.pw_uid]),
                        (0, [])]),
      "row 6: each series owned by its namespace: %s" % owners)

# Row 9: one datagram naming 200 deleted PERSISTENT series of nobody's.
KEEP = b"".join(b"keep.s%d:1|c\n" % i for i in range(200))
made = -1
rounds = 0
while made != stats()["statsd_series_created"]:
    made = stats()["statsd_series_created"]
    s1 = stats()
    send_as([KEEP])
    got = moved(s1, stats())
    rounds += 1
    check(got.get("statsd_series_created", 0) <= 8,
          "row 9: a datagram makes at most 8 PERSISTENT series: %s" % got)
check(rounds == 26, "row 9: 200 series took 25 datagrams, and one more "
      "made none: %d" % rounds)


def chain(params):
    out, params = [], dict(params)
    while True:
        r = ok(d.call("io.statsd.Chain", params), "Chain", False)
        out += r.get("kstats", [])
        if not r.get("cursor"):
            return out
        params["cursor"] = r["cursor"]


def nobodys_keep(dormant):
    return [k for k in chain({"dormant": dormant})
            if k["module"] == "statsd" and k["name"].startswith("keep.") and
            k["owner"] == NOBODY.pw_uid and "PERSISTENT" in k["flags"]]


keep = nobodys_keep(True)
check(len(keep) == 200, "row 9: 200 PERSISTENT series: %d" % len(keep))
# nobody deletes its own series: each goes dormant with its data.
nobody = Peer(d)
for k in keep:
    ok(nobody.call("io.statsd.KstatDelete", {
        "module": "statsd", "instance": k["instance"], "name": k["name"]}),
        "nobody deletes %s" % k["name"], False)
nobody.quit()
s1 = stats()
send_as([KEEP])
got = moved(s1, stats())
check(got.get("statsd_applied") == 8 and
      got.get("statsd_refused_busy") == 192 and
      got.get("statsd_lines") == 200,
      "row 9: one datagram wakes 8 of the 200 sleeping series; 192 lines "
      "are refused as busy, counted: %s" % got)
awake = nobodys_keep(False)
check(len(awake) == 8, "row 9: 8 awake again: %d" % len(awake))
root_info(d, "series")
d.stop()


# ------------------------------------------- zones' segments (item 6, row 13)
BOXES = ["box-%d" % i for i in range(6)]
try:
    tree = CgroupTree(BOXES)
except ZonesUnavailable as e:
    print("SKIP (zones part): %s" % e)
    finish()
BIN = pwd.getpwnam("bin")
# The descriptor limit leaves room for 5 zone segments beside the other
# totals (16 connections, 2 HTTP, 8 rings of 2, statsd's own 256): users
# together may take 4 of them, root the last. statsd inherits the limit.
CONF = ("zone_cgroups = %s/box-*\nmax_connections = 16\n"
        "http_max_connections = 2\nmax_rings = 8\n"
        "max_zone_segments_per_uid = 3\n" % tree.rootname)
NOFILE = 16 + 2 + 2 * 8 + 256 + 5


class LimitedDaemon(Daemon):
    """statsd started under a descriptor limit (prlimit(1) execs it)."""

    def argv(self):
        return ["prlimit", "--nofile=%d:%d" % (NOFILE, NOFILE)] + \
            Daemon.argv(self)


d = LimitedDaemon(config=CONF).start()
os.chmod(d.run, 0o755)
TPL = {"name": "ZQ", "vois": voi("n", "INT_U64", "SUM")}


def in_zone(pw, box):
    """A peer of pw (None: root) in cgroup box."""
    if pw is None:
        p = Peer.__new__(Peer)
        p.proc = spawn(tree.join(box) + [PY, PEER, d.sock],
                       stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                       text=True, bufsize=1)
        return p
    return Peer(d, pw=pw, prefix=tree.join(box))


def make(peer, box, inst=None):
    spec = ok(peer.call("io.statsd.TemplateAdd", TPL), "TemplateAdd in " +
              box)["template"]["spec"]
    return peer.call("io.statsd.KstatCreate", {
        "module": "zq", "instance": int(box[-1]) if inst is None else inst,
        "name": "k", "template": spec})


def zone_quota():
    q = root_info(d, "zones")["quotas"]
    users = {u["uid"]: u.get("zone_segments") for u in q["users"]}
    return q["total"]["zone_segments"], users


peers = {}
for box in BOXES[:4]:
    peers[box] = in_zone(NOBODY, box)
    r = make(peers[box], box)
    if box != "box-3":
        ok(r, "nobody's kstat in " + box)
    else:
        expect_error(r, "io.statsd.LimitReached", "row 13: nobody's 4th "
                     "zone segment is past its own limit",
                     limit="max_zone_segments_per_uid", value=3)
total, users = zone_quota()
check(total["used"] == 3 and total["limit"] == 5 and
      users.get(NOBODY.pw_uid) == 3,
      "row 13: nobody holds 3 zone segments of the 5 the descriptor "
      "limit leaves: %s %s" % (total, users))
peers["bin-3"] = in_zone(BIN, "box-3")
ok(make(peers["bin-3"], "box-3"), "bin's kstat in box-3")
peers["bin-4"] = in_zone(BIN, "box-4")
expect_error(make(peers["bin-4"], "box-4"), "io.statsd.LimitReached",
             "row 13: users together stop at their share (4 of 5)",
             limit="max_zone_segments", value=4)
peers["root-5"] = in_zone(None, "box-5")
ok(make(peers["root-5"], "box-5"), "row 13: root's kstat in a zone fits "
   "in the reserve")
total, users = zone_quota()
check(total["used"] == 5 and users.get(NOBODY.pw_uid) == 3 and
      users.get(BIN.pw_uid) == 1 and users.get(0) == 1,
      "row 13: 5 zone segments: nobody 3, bin 1, root 1: %s %s" %
      (total, users))
root_info(d, "every zone segment taken")
# A segment's last kstat gone, its charge (and descriptor) goes: with
# two of nobody's gone, 3 are used, and users may take one more.
for i in (0, 1):
    ok(peers["box-%d" % i].call("io.statsd.KstatDelete", {
        "module": "zq", "instance": i, "name": "k"}),
       "nobody deletes zq:%d:k" % i)
total, users = zone_quota()
check(total["used"] == 3 and users.get(NOBODY.pw_uid) == 1,
      "row 13: deleted zone kstats give their segments back: %s %s" %
      (total, users))
ok(make(peers["bin-4"], "box-4"), "row 13: bin's kstat in box-4 fits now")
expect_error(make(peers["box-0"], "box-0", 10), "io.statsd.LimitReached",
             "row 13: and then no more for users",
             limit="max_zone_segments", value=4)
for p in peers.values():
    p.quit()
root_info(d, "after the zones")
d.stop()

finish()
