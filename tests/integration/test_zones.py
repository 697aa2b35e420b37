# SPDX-License-Identifier: BSD-2-Clause
"""test_zones.py: Solaris zones, the Linux way.

By default (zones = cgroup) a peer's zone is the container cgroup its
process is in. The test makes a cgroup subtree on the cgroup2 mount
(/sys/fs/cgroup, or /sys/fs/cgroup/unified on a hybrid host), points
zone_cgroups at two "containers" in it, box-a and box-b, and moves each
client into its box before it connects (through a wrapper that moves
itself, then execs the client). The same checks then run with
zones = pidns, two pid namespaces made by unshare(1).

kstat2_create_histogram(9F): ks_zone is "the ID of the zone in which this
kstat will initially be visible. The constant ALL_ZONES is used to make the
kstat visible in all zones, and GLOBAL_ZONEID to make it visible only in
the global zone", and KSTAT2_FLAG_GZ_VIS "indicates that this kstat is
created and made visible in both the global zone and ks_zone". Checked
through every reader (Chain, Lookup, Read, Snapshot, Scrape, statsctl, the
library's kstat_open() chain) and in every store segment a peer is given
(its kstat table read, and all its bytes searched for markers the kstats'
descriptions carry: no map shows a kstat of another zone), with the
rights that go with zones (a container's root is not statsd's admin) and
ring records.

A container's PERSISTENT kstats come back in it after a kill -9 and after
a clean restart, and a statsd with no privilege at all (uid nobody, no
capability) still tells containers apart.

Skipped (exit 77) where cgroups cannot be made here (not root, no cgroup2
mount, or moving a process into one is refused); the namespace parts are
skipped where unshare(1) cannot make namespaces.
"""
import json
import os
import pwd
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import harness  # noqa: E402
from harness import (DEADLINE, Daemon, RingClient, check, expect_error,  # noqa
                     finish, ok, wait_for)

from zonetools import CgroupTree, ZonePeer, ZonesUnavailable  # noqa: E402

CLIENT_IT = os.environ.get("CLIENT_IT", "")
STATSCTL = os.environ.get("STATSCTL", "")


def skip(why):
    print("SKIP: " + why)
    sys.exit(77)


def can_unshare(*flags):
    try:
        p = subprocess.run(["unshare"] + list(flags) + ["true"],
                           capture_output=True, timeout=30)
        return p.returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def names(chain_reply):
    return sorted("%s:%d:%s" % (k["module"], k["instance"], k["name"])
                  for k in ok(chain_reply, "Chain", False).get("kstats", []))


def mark(full):
    """The marker a kstat's description carries."""
    m, _i, n = full.split(":")
    return "zmark-%s-%s" % (m, n)


def scanned(scan):
    """Every kstat name in every segment, every marker in their bytes, and
    the segments' names."""
    s, marks = scan.get("scan", {}), scan.get("marks", {})
    return (sorted(n for v in s.values() for n in v),
            sorted(set(x for v in marks.values() for x in v)), sorted(s))


def create(peer_or_conn, module, name, tpl_spec, **extra):
    p = {"module": module, "instance": 0, "name": name,
         "template": tpl_spec, "description": mark("%s:0:%s" % (module,
                                                                name))}
    p.update(extra)
    return peer_or_conn.call("io.statsd.KstatCreate", p)


def in_zone(prefix, argv):
    """Run argv in a zone; its stdout."""
    p = harness.run(prefix + argv, capture_output=True, text=True,
                    timeout=DEADLINE)
    check(p.returncode == 0, "%s in a zone: exit %d %s" % (
        os.path.basename(argv[0]), p.returncode, p.stderr[-400:]))
    return p.stdout


SYS = ["statsd:0:daemon", "unix:0:kstat_types"]


def visibility(d, label, zone_a, zone_b, join, names_want):
    """The checks every mode passes. zone_a, zone_b: argv prefixes that
    put a process in zones A and B; join(peer, "a" or "b"): a prefix that
    puts another process in the zone of peer (A's or B's), another way (a
    deeper cgroup, nsenter); names_want(za, zb): (A's name, B's name) as
    Hello gives them."""
    host = d.conn()
    spec = ok(host.call("io.statsd.TemplateAdd", harness.TPL_APP),
              "TemplateAdd")["template"]["spec"]
    ok(create(host, "host", "own", spec), "the host's own kstat")
    ok(create(host, "host", "every", spec, zone=-1), "a kstat of ALL_ZONES")

    za = ZonePeer(d.sock, zone_a)
    zb = ZonePeer(d.sock, zone_b)
    ha = ok(za.call("io.statsd.Hello"), "Hello in zone A")
    hb = ok(zb.call("io.statsd.Hello"), "Hello in zone B")
    A, B = ha.get("peer", {}).get("zone"), hb.get("peer", {}).get("zone")
    check(A not in (None, 0) and B not in (None, 0, A),
          "%s: two zones, neither the global one: %s %s" % (label, A, B))
    want_name_a, want_name_b = names_want(za, zb)
    check(ha["peer"]["zone_name"] == want_name_a,
          "%s: zone A is named %s: %s" % (label, want_name_a, ha["peer"]))
    check(hb["peer"]["zone_name"] == want_name_b,
          "%s: zone B is named %s: %s" % (label, want_name_b, hb["peer"]))
    check(ok(host.call("io.statsd.Hello", {}), "Hello")["peer"]["zone"] == 0,
          "the host is the global zone")
    check(ha.get("privileged") is True and "admin" not in ha.get("rights",
                                                                  []),
          "root in a zone is privileged there, but not statsd's admin: %s"
          % ha)

    # Zone A's kstats: by default seen in A and by the host; ks_zone A
    # alone (no GZ_VIS) only in A; with GZ_VIS in both; GLOBAL_ZONEID only
    # by the host; ALL_ZONES from a zone means its zone and the host,
    # never B.
    k = ok(create(za, "za", "dflt", spec), "zone A: a kstat")["kstat"]
    check(k["zone"] == A and "GZ_VIS" in k["flags"],
          "made in A, seen in A and the global zone: %s" % k)
    k = ok(create(za, "za", "only", spec, zone=A), "zone A: ks_zone A")[
        "kstat"]
    check(k["zone"] == A and "GZ_VIS" not in k["flags"], "A alone: %s" % k)
    ok(create(za, "za", "gzvis", spec, zone=A, flags=["GZ_VIS"]),
       "zone A: ks_zone A with GZ_VIS")
    ok(create(za, "za", "glob", spec, zone=0), "zone A: GLOBAL_ZONEID")
    k = ok(create(za, "za", "every", spec, zone=-1), "zone A: ALL_ZONES")[
        "kstat"]
    check(k["zone"] == A and "GZ_VIS" in k["flags"],
          "ALL_ZONES from a zone is that zone and the global one: %s" % k)
    expect_error(create(za, "za", "intob", spec, zone=B),
                 "io.statsd.InvalidValue", "zone A cannot make B's kstats",
                 parameter="zone")
    ok(create(zb, "zb", "dflt", spec), "zone B: a kstat")
    k = ok(create(host, "host", "forb", spec, zone=B), "the host: a kstat "
           "for zone B")["kstat"]
    check(k["zone"] == B and "GZ_VIS" not in k["flags"],
          "the host's kstat for B alone: %s" % k)

    want_a = sorted(["host:0:every", "unix:0:kstat_types", "za:0:dflt",
                     "za:0:every", "za:0:gzvis", "za:0:only"])
    want_b = sorted(["host:0:every", "host:0:forb", "unix:0:kstat_types",
                     "zb:0:dflt"])
    want_host = sorted(["host:0:every", "host:0:own", "za:0:dflt",
                        "za:0:every", "za:0:glob", "za:0:gzvis",
                        "zb:0:dflt"] + SYS)
    every = set(want_a) | set(want_b) | set(want_host) | {"za:0:glob"}

    # Over the socket: Chain, Lookup, Scrape, Read and Snapshot.
    for peer, who, want in ((za, "A", want_a), (zb, "B", want_b)):
        got = names(peer.call("io.statsd.Chain"))
        check(got == want, "%s: zone %s's chain: %s" % (label, who, got))
        got = names(peer.call("io.statsd.Lookup", {"module": "*"}))
        check(got == want, "%s: zone %s's Lookup: %s" % (label, who, got))
        sc = ok(peer.call("io.statsd.Scrape", {}), "Scrape in " + who)
        got = sorted("%s:%d:%s" % (k["module"], k["instance"], k["name"])
                     for k in sc.get("kstats", []))
        check(got == want, "%s: zone %s's scrape: %s" % (label, who, got))
        # Info counts what the zone's root sees, not the daemon's all.
        info = ok(peer.call("io.statsd.Info"), "Info in " + who)
        check(info.get("kstats") == len(want) and info.get("dormant") == 0,
              "%s: zone %s's Info counts its %d kstats: %s" % (
                  label, who, len(want), {k: info.get(k) for k in
                                         ("kstats", "dormant")}))
        for full in sorted(every - set(want)):
            m, _i, n = full.split(":")
            for method in ("io.statsd.Read", "io.statsd.Snapshot"):
                expect_error(peer.call(method, {"module": m, "instance": 0,
                                                "name": n}),
                             "io.statsd.NoSuchKstat",
                             "%s: zone %s: %s %s" % (label, who, method,
                                                     full))
    got = names(host.call("io.statsd.Chain", {}))
    check(got == want_host, "%s: the host's chain: %s" % (label, got))
    for hidden in ("za:0:only", "host:0:forb"):
        m, _i, n = hidden.split(":")
        expect_error(host.call("io.statsd.Read", {"module": m, "instance": 0,
                                                  "name": n}),
                     "io.statsd.NoSuchKstat", "%s: the host reads %s "
                     "without GZ_VIS" % (label, hidden))

    # The library's consumer (kstat_open's chain, each kstat read from its
    # mapped segment) and statsctl, run in zone A.
    if CLIENT_IT:
        out = in_zone(join(za, "a"), [CLIENT_IT, "kchain", d.sock])
        chain = re.findall(r"^chain=(\S+) read=(\d)$", out, re.M)
        check(sorted(c for c, _r in chain) == want_a,
              "%s: kstat_open's chain in zone A: %s" % (label, chain))
        check(all(r == "1" for _c, r in chain),
              "%s: zone A reads every kstat of its chain: %s" % (label,
                                                                 chain))
    if STATSCTL:
        out = in_zone(join(zb, "b"), [STATSCTL, "--socket", d.sock, "show",
                                      "-j"])
        try:
            got = sorted("%s:%d:%s" % (k["module"], k["instance"], k["name"])
                         for k in json.loads(out))
        except ValueError:
            got = out
        check(got == want_b, "%s: statsctl show in zone B: %s" % (label,
                                                                   got))

    # In shared memory: every segment a peer is given, its kstat table
    # and every byte of it.
    for peer, who, want in ((za, "A", want_a), (zb, "B", want_b)):
        got, marks, segs = scanned(peer.scan())
        check(got == want, "%s: zone %s's segments hold %s" % (label, who,
                                                               got))
        check(marks == sorted(mark(x) for x in want if x not in SYS),
              "%s: zone %s's segments' bytes show %s" % (label, who, marks))
        check("public" not in segs and "private" not in segs,
              "%s: zone %s is not given the global zone's segments: %s"
              % (label, who, segs))
    hp = ZonePeer(d.sock, [])
    got, marks, segs = scanned(hp.scan())
    hp.quit()
    check(got == want_host, "%s: the host's segments hold %s" % (label, got))
    check(marks == sorted(mark(x) for x in want_host if x not in SYS),
          "%s: the host's segments' bytes show %s" % (label, marks))
    check(len(segs) > 4 and "zone%d" % A not in segs,
          "%s: the host maps zones' shared segments (more than a reply's 4 "
          "descriptors), not A's own: %s" % (label, segs))

    # Rights. Root in zone A owns A's kstats, not the host's ones it sees.
    reset = {"module": "host", "instance": 0, "name": "every", "reset": True}
    expect_error(za.call("io.statsd.Snapshot", reset),
                 "io.statsd.PermissionDenied", "zone A's root resets the "
                 "host's kstat", right="owner")
    ok(za.call("io.statsd.Snapshot", {"module": "za", "instance": 0,
                                      "name": "dflt", "reset": True}),
       "zone A resets its own kstat")
    expect_error(za.call("io.statsd.SampleRatesSet", {"rates": []}),
                 "io.statsd.PermissionDenied", "zone A's root is not admin",
                 right="admin")
    ok(host.call("io.statsd.Snapshot", {"module": "za", "instance": 0,
                                        "name": "dflt", "reset": True}),
       "the host's root resets a zone's kstat it sees")

    # Ring records from zone A to the host's ALL_ZONES kstat are refused.
    rc = RingClient(d.sock, prefix=join(za, "a"))
    check(rc.cmd("connect").startswith("ok"), "ring client in zone A")
    check(rc.cmd("attach").startswith("ok"), "ring in zone A")
    check(rc.cmd("handle host 0 every").startswith("ok"), "its handle")
    check(rc.cmd("push 10 0 7").startswith("ok"), "pushed")
    check(rc.cmd("handle za 0 dflt").startswith("ok"), "A's own handle")
    check(rc.cmd("push 3 0 5").startswith("ok"), "pushed")

    def applied():
        return harness.read_data(d, "za", 0, "dflt").get("requests.sum") == 15

    wait_for(applied, "zone A's own records to land")
    check(harness.read_data(d, "host", 0, "every").get("requests.sum") == 0,
          "%s: zone A's records to the host's kstat were refused" % label)
    rc.quit()

    # A zone is its container: another process that gets in is in A.
    za2 = ZonePeer(d.sock, join(za, "a"))
    check(ok(za2.call("io.statsd.Hello"), "Hello")["peer"]["zone"] == A,
          "%s: another way into A: zone A again" % label)
    za2.quit()
    za.quit()
    zb.quit()
    host.close()


if os.geteuid() != 0:
    skip("not root: cannot make cgroups or namespaces; zones are not "
         "tested here")
try:
    tree = CgroupTree(["box-a", "box-a/deeper", "box-b", "plain"])
except ZonesUnavailable as e:
    skip(str(e))
CG_CONF = "zone_cgroups = %s/box-*\n" % tree.rootname
BOX_A, BOX_B = tree.join("box-a"), tree.join("box-b")

# ---------------------------------------------- zones = cgroup (default)
d = Daemon(config=CG_CONF).start()
visibility(d, "cgroup", BOX_A, BOX_B,
           lambda peer, ab: tree.join("box-a/deeper" if ab == "a" else
                                      "box-b"),
           lambda za, zb: (tree.name("box-a"), tree.name("box-b")))
# A cgroup under no pattern is the host's, wherever it is.
zp = ZonePeer(d.sock, tree.join("plain"))
check(ok(zp.call("io.statsd.Hello"), "Hello")["peer"]["zone"] == 0,
      "a cgroup that is no container: the global zone")
zp.quit()
inf = ok(d.call("io.statsd.Info", {}), "Info")
check(inf.get("config", {}).get("zones") == "cgroup",
      "zones = cgroup is the default: %s" % inf.get("config", {}).get("zones"))
d.stop()
check("a peer (pid" not in d.stderr(), "no peer was refused: %s"
      % d.stderr()[-2000:])

# ------------------------------- zones = cgroup: PERSISTENT kstats last
# A container's PERSISTENT kstats are kept by its cgroup's path, and come
# back in that container after a kill -9 and after a clean restart.
dp = Daemon(config=CG_CONF + "checkpoint_interval_ms = 100000\n").start()
host = dp.conn()
spec = ok(host.call("io.statsd.TemplateAdd", harness.TPL_APP),
          "TemplateAdd")["template"]["spec"]
pa, pb = ZonePeer(dp.sock, BOX_A), ZonePeer(dp.sock, BOX_B)
A = ok(pa.call("io.statsd.Hello"), "Hello")["peer"]["zone"]
P = ["PERSISTENT"]
ok(create(pa, "pa", "keep", spec, flags=P), "A: a PERSISTENT kstat")
ok(create(pa, "pa", "mine", spec, zone=A, flags=P), "A: one for A alone")
ok(create(pa, "pa", "dorm", spec, flags=P), "A: one to go dormant")
ok(create(host, "hp", "fora", spec, zone=A, flags=P), "the host: one "
   "for A")
ok(create(pb, "pb", "keep", spec, flags=P), "B: a PERSISTENT kstat")
SUMS = {"pa:0:keep": 20, "pa:0:mine": 9, "pa:0:dorm": 7, "pb:0:keep": 4}
for box, who, kst in ((BOX_A, "A", ("pa:0:keep", "pa:0:mine", "pa:0:dorm")),
                      (BOX_B, "B", ("pb:0:keep",))):
    rc = RingClient(dp.sock, prefix=box)
    check(rc.cmd("connect").startswith("ok") and
          rc.cmd("attach").startswith("ok"), "ring in zone " + who)
    for full in kst:
        check(rc.cmd("handle " + full.replace(":", " ")).startswith("ok"),
              "handle of " + full)
        check(rc.cmd("push 1 0 %d" % SUMS[full]).startswith("ok"), "pushed")
    rc.quit()


def sum_in(peer, full):
    m, _i, n = full.split(":")
    r = peer.call("io.statsd.Read", {"module": m, "instance": 0, "name": n})
    return ok(r, "Read " + full, False).get("data", {}).get("requests.sum")


for full in ("pa:0:keep", "pa:0:mine", "pa:0:dorm"):
    wait_for(lambda: sum_in(pa, full) == SUMS[full], full + "'s records")
wait_for(lambda: sum_in(pb, "pb:0:keep") == 4, "B's records")
r = ok(pa.call("io.statsd.KstatDelete", {"module": "pa", "instance": 0,
                                         "name": "dorm"}), "delete dorm")
check(r.get("dormant") is True, "a PERSISTENT kstat goes dormant: %s" % r)
for p in (pa, pb):
    p.quit()
host.close()

want_pa = sorted(["hp:0:fora", "pa:0:keep", "pa:0:mine", "pb:0:keep"])
for how in ("kill -9", "a clean restart"):
    if how == "kill -9":
        dp.kill9()
    else:
        dp.stop()
    dp.start()
    pa, pb = ZonePeer(dp.sock, BOX_A), ZonePeer(dp.sock, BOX_B)
    host = dp.conn()
    A = ok(pa.call("io.statsd.Hello"), "Hello")["peer"]["zone"]
    B = ok(pb.call("io.statsd.Hello"), "Hello")["peer"]["zone"]
    got = [x for x in names(pa.call("io.statsd.Chain")) if x in want_pa]
    check(got == ["hp:0:fora", "pa:0:keep", "pa:0:mine"],
          "after %s, zone A has its kstats back: %s" % (how, got))
    got = [x for x in names(pb.call("io.statsd.Chain")) if x in want_pa]
    check(got == ["pb:0:keep"], "after %s, zone B has its own: %s"
          % (how, got))
    got = [x for x in names(host.call("io.statsd.Chain", {}))
           if x in want_pa]
    check(got == ["pa:0:keep", "pb:0:keep"], "after %s, the host sees the "
          "zones' GZ_VIS kstats only: %s" % (how, got))
    for peer, full in ((pa, "pa:0:keep"), (pa, "pa:0:mine"),
                       (pb, "pb:0:keep")):
        check(sum_in(peer, full) == SUMS[full], "after %s, %s kept its data"
              % (how, full))
    m = ok(pa.call("io.statsd.Read", {"module": "pa", "instance": 0,
                                      "name": "keep"}), "Read")["kstat"]
    check(m["zone"] == A and "GZ_VIS" in m["flags"],
          "after %s, pa:0:keep is in zone A and the global zone: %s"
          % (how, m))
    m = ok(pa.call("io.statsd.Read", {"module": "pa", "instance": 0,
                                      "name": "mine"}), "Read")["kstat"]
    check(m["zone"] == A and "GZ_VIS" not in m["flags"],
          "after %s, pa:0:mine is A's alone: %s" % (how, m))
    # Owners as they were: A's root owns A's kstats, not the host's one.
    ok(pa.call("io.statsd.Snapshot", {"module": "pa", "instance": 0,
                                      "name": "mine", "reset": False}),
       "A snapshots its kstat")
    expect_error(pa.call("io.statsd.Snapshot", {"module": "hp",
                                                "instance": 0,
                                                "name": "fora",
                                                "reset": True}),
                 "io.statsd.PermissionDenied", "after %s, the host's kstat "
                 "for A is still the host's" % how, right="owner")
    got, marks, _segs = scanned(pb.scan())
    check(not [x for x in got if x.startswith(("pa:", "hp:"))] and
          not [x for x in marks if x.startswith(("zmark-pa", "zmark-hp"))],
          "after %s, B's segments hold nothing of A's: %s %s"
          % (how, got, marks))
    if how == "kill -9":
        r = create(pb, "pa", "dorm", spec, flags=P)
        check("error" in r, "B cannot revive A's dormant kstat: %s" % r)
    else:
        r = ok(create(pa, "pa", "dorm", spec, flags=P), "A revives dorm")
        check(r.get("revived") is True and r["kstat"]["zone"] == A,
              "A's dormant kstat comes back in A: %s" % r)
        check(sum_in(pa, "pa:0:dorm") == 7, "with its data")
    pa.quit()
    pb.quit()
    host.close()
dp.stop()

# ------------------------- zones = cgroup with no privilege whatsoever
# statsd as nobody, no capability: /proc/<pid>/cgroup is all it needs.
NOBODY = pwd.getpwnam("nobody")


class NobodyDaemon(Daemon):
    def argv(self):
        return harness.as_user(Daemon.argv(self))


dn = NobodyDaemon(config=CG_CONF)
for sub in (dn.run, dn.state):
    os.makedirs(sub, exist_ok=True)
    os.chown(sub, NOBODY.pw_uid, NOBODY.pw_gid)
dn.start()
pid = ok(dn.call("io.statsd.Info", {}), "Info").get("pid", 0)
with open("/proc/%d/status" % pid) as f:
    status = f.read()
uids = re.search(r"^Uid:\s+(.*)$", status, re.M).group(1).split()
caps = re.search(r"^CapEff:\s+(\S+)$", status, re.M).group(1)
check(uids == [str(NOBODY.pw_uid)] * 4 and int(caps, 16) == 0,
      "statsd runs as nobody with no capability: uids %s, CapEff %s"
      % (uids, caps))
na, nb = ZonePeer(dn.sock, BOX_A), ZonePeer(dn.sock, BOX_B)
hd = ZonePeer(dn.sock, tree.join("box-a/deeper"))
ha = ok(na.call("io.statsd.Hello"), "Hello")["peer"]
hb = ok(nb.call("io.statsd.Hello"), "Hello")["peer"]
check(ha["zone"] not in (0, hb["zone"]) and hb["zone"] != 0 and
      ha["zone_name"] == tree.name("box-a") and
      hb["zone_name"] == tree.name("box-b"),
      "unprivileged statsd: A and B are two zones: %s %s" % (ha, hb))
check(ok(hd.call("io.statsd.Hello"), "Hello")["peer"]["zone"] == ha["zone"],
      "unprivileged statsd: box-a/deeper is zone A")
check(ok(dn.call("io.statsd.Hello", {}), "Hello")["peer"]["zone"] == 0,
      "unprivileged statsd: the host is the global zone")
spec = ok(na.call("io.statsd.TemplateAdd", harness.TPL_APP),
          "TemplateAdd")["template"]["spec"]
ok(create(na, "na", "k", spec), "A's kstat")
check("na:0:k" in names(na.call("io.statsd.Chain")) and
      "na:0:k" not in names(nb.call("io.statsd.Chain")),
      "unprivileged statsd: A's kstat is not B's")
got, marks, _segs = scanned(nb.scan())
check("na:0:k" not in got and "zmark-na-k" not in marks,
      "unprivileged statsd: B's segments hold nothing of A's")
for p in (na, nb, hd):
    p.quit()
dn.stop()
check("a peer (pid" not in dn.stderr() and "zones = " not in dn.stderr(),
      "an unprivileged statsd refuses no peer and warns of nothing: %s"
      % dn.stderr()[-2000:])

# Fail closed: with /proc hiding other users' processes (hidepid=, as
# systemd's ProtectProc=invisible mounts it), an unprivileged statsd
# cannot read a peer's cgroup; it says so at start, and refuses the peer
# rather than take it for the host.


class HiddenProcDaemon(NobodyDaemon):
    def argv(self):
        return (["unshare", "--mount", "--propagation", "private", "/bin/sh",
                 "-c", 'mount -t proc -o hidepid=invisible proc /proc && '
                 'exec "$@"', "sh"] + NobodyDaemon.argv(self))


dh = HiddenProcDaemon(config=CG_CONF)
for sub in (dh.run, dh.state):
    os.makedirs(sub, exist_ok=True)
    os.chown(sub, NOBODY.pw_uid, NOBODY.pw_gid)
dh.start(wait=False)
if wait_for(lambda: "hidepid" in dh.stderr() or dh.proc.poll() is not None,
            "statsd to start under hidepid=invisible"):
    check("zones = cgroup: /proc is mounted with hidepid=" in dh.stderr(),
          "statsd warns that /proc hides other users' processes: %s"
          % dh.stderr()[-1000:])
    # Connected once it listens: the socket file appears at bind(2), and
    # a connect before listen(2) is refused by the kernel, not by statsd.

    def connected():
        try:
            return harness.Conn(dh.sock)
        except OSError:
            return None
    c = wait_for(connected, "its socket to listen") or harness.Conn(dh.sock)
    try:
        c.send("io.statsd.Hello", {})
        got = c.recv()
    except OSError:  # closed before the call was even sent
        got = None
    check(got is None, "a peer statsd cannot place is refused: %s" % got)
    c.close()
    check(wait_for(lambda: re.search(r"a peer \(pid \d+, uid 0\) refused: "
                                     r"statsd may not read its /proc",
                                     dh.stderr()), "the refusal logged"),
          "the refusal names the peer and why: %s" % dh.stderr()[-1000:])
dh.stop()

# ------------------------------------------- zones = pidns (namespaces)
if can_unshare("--pid", "--fork"):
    d = Daemon(config="zones = pidns\n").start()

    def ns_name(za, zb):
        return (os.readlink("/proc/%d/ns/pid" % za.pid()),
                os.readlink("/proc/%d/ns/pid" % zb.pid()))

    visibility(d, "pidns", ["unshare", "--pid", "--fork"],
               ["unshare", "--pid", "--fork"],
               lambda peer, ab: ["nsenter", "--target", str(peer.pid()),
                                 "--pid", "--"],
               ns_name)
    d.stop()

    # zones = none: everyone is in the global zone.
    d3 = Daemon(config="zones = none\n").start()
    for pfx in (["unshare", "--pid", "--fork"], BOX_A):
        zn = ZonePeer(d3.sock, pfx)
        check(ok(zn.call("io.statsd.Hello"), "Hello")["peer"]["zone"] == 0,
              "zones = none: one zone")
        zn.quit()
    d3.stop()
else:
    print("SKIP: unshare --pid --fork is not allowed here; the namespace "
          "modes are not tested")

# zones = userns: a user namespace (as unshare -r makes it) is a zone.
if can_unshare("--user", "--map-root-user"):
    d2 = Daemon(config="zones = userns\n").start()
    zu = ZonePeer(d2.sock, ["unshare", "--user", "--map-root-user"])
    h = ok(zu.call("io.statsd.Hello"), "Hello in a user namespace")
    check(h["peer"]["zone"] != 0 and h["peer"]["zone_name"].startswith(
        "user:["), "zones = userns: a user namespace is a zone: %s" % h)
    zp = ZonePeer(d2.sock, BOX_A)
    check(ok(zp.call("io.statsd.Hello"), "Hello")["peer"]["zone"] == 0,
          "zones = userns: a container cgroup alone is the global zone")
    zu.quit()
    zp.quit()
    d2.stop()
else:
    print("SKIP: unshare --user --map-root-user is not allowed here")
finish()
