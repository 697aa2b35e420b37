"""test_zones.py: Solaris zones, the Linux way. A peer's zone is the pid
namespace of its process (statsd.conf's zones; user namespaces too); the
test makes two zones with unshare(1) and runs a client in each, next to the
host's (the global zone).

kstat2_create_histogram(9F): ks_zone is "the ID of the zone in which this
kstat will initially be visible. The constant ALL_ZONES is used to make the
kstat visible in all zones, and GLOBAL_ZONEID to make it visible only in
the global zone", and KSTAT2_FLAG_GZ_VIS "indicates that this kstat is
created and made visible in both the global zone and ks_zone". Checked over
the socket (Chain, Read, Scrape) and in every store segment a peer is given
(read byte by byte: no map shows a kstat of another zone), with the rights
that go with zones (a container's root is not statsd's admin) and ring
records.

Skipped (exit 77) where the kernel does not let root make namespaces.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import harness  # noqa: E402
from harness import (DEADLINE, Daemon, RingClient, check, expect_error,  # noqa
                     finish, ok, setup_kstat, wait_for)

PEER = os.path.join(HERE, "zone_peer.py")
PY = "/usr/bin/python3"


def can_unshare(*flags):
    try:
        p = subprocess.run(["unshare"] + list(flags) + ["true"],
                           capture_output=True, timeout=30)
        return p.returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


if os.geteuid() != 0 or not can_unshare("--pid", "--fork"):
    print("SKIP: this kernel (or this user) cannot make a pid namespace "
          "with unshare --pid --fork; zones are not tested here")
    sys.exit(77)


class ZonePeer:
    """zone_peer.py in a namespace of its own (prefix: the unshare or
    nsenter command that makes or joins it)."""

    def __init__(self, sock, prefix):
        self.proc = harness.spawn(prefix + [PY, PEER, sock],
                                  stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True,
                                  bufsize=1)

    def _line(self, text):
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()
        out = self.proc.stdout.readline()
        check(out != "", "zone peer answered (exit %s)" % self.proc.poll())
        return json.loads(out) if out else {}

    def call(self, method, params=None):
        r = self._line(json.dumps({"method": method,
                                   "parameters": params or {}}))
        rep = r.get("reply", {})
        harness.check_reply(method, rep)
        return rep

    def scan(self):
        return self._line("scan").get("scan", {})

    def pid(self):
        """Its pid in the host's view: the child unshare forked."""
        with open("/proc/%d/task/%d/children" % (self.proc.pid,
                                                  self.proc.pid)) as f:
            kids = f.read().split()
        return int(kids[0]) if kids else self.proc.pid

    def quit(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=DEADLINE)


def names(chain_reply):
    return sorted("%s:%d:%s" % (k["module"], k["instance"], k["name"])
                  for k in ok(chain_reply, "Chain", False).get("kstats", []))


def scanned(scan):
    """Every kstat name in every segment, and the segments' names."""
    return sorted(n for v in scan.values() for n in v), sorted(scan)


def create(peer_or_conn, module, name, tpl_spec, **extra):
    p = {"module": module, "instance": 0, "name": name,
         "template": tpl_spec}
    p.update(extra)
    return peer_or_conn.call("io.statsd.KstatCreate", p)


d = Daemon().start()
host = d.conn()
spec = ok(host.call("io.statsd.TemplateAdd", harness.TPL_APP),
          "TemplateAdd")["template"]["spec"]
ok(create(host, "host", "own", spec), "the host's own kstat")
ok(create(host, "host", "every", spec, zone=-1), "a kstat of ALL_ZONES")

# Two zones: two pid namespaces made by unshare.
za = ZonePeer(d.sock, ["unshare", "--pid", "--fork"])
zb = ZonePeer(d.sock, ["unshare", "--pid", "--fork"])
ha = ok(za.call("io.statsd.Hello"), "Hello in zone A")
hb = ok(zb.call("io.statsd.Hello"), "Hello in zone B")
A, B = ha.get("peer", {}).get("zone"), hb.get("peer", {}).get("zone")
check(A not in (None, 0) and B not in (None, 0, A),
      "two zones, neither the global one: %s %s" % (A, B))
check(ha["peer"]["zone_name"] == os.readlink("/proc/%d/ns/pid" % za.pid()),
      "zone A is named after its pid namespace: %s" % ha["peer"])
check(ok(host.call("io.statsd.Hello", {}), "Hello")["peer"]["zone"] == 0,
      "the host is the global zone")
check(ha.get("privileged") is True and "admin" not in ha.get("rights", []),
      "root in a zone is privileged there, but not statsd's admin: %s" % ha)

# Zone A's kstats: by default seen in A and by the host; ks_zone A alone
# (no GZ_VIS) only in A; with GZ_VIS in both; GLOBAL_ZONEID only by the
# host; ALL_ZONES from a zone means its zone and the host, never B.
k = ok(create(za, "za", "dflt", spec), "zone A: a kstat")["kstat"]
check(k["zone"] == A and "GZ_VIS" in k["flags"],
      "made in A, seen in A and the global zone: %s" % k)
k = ok(create(za, "za", "only", spec, zone=A), "zone A: ks_zone A")["kstat"]
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

SYS = ["statsd:0:daemon", "unix:0:kstat_types"]
want_a = sorted(["host:0:every", "unix:0:kstat_types", "za:0:dflt",
                 "za:0:every", "za:0:gzvis", "za:0:only"])
want_b = sorted(["host:0:every", "unix:0:kstat_types", "zb:0:dflt"])
want_host = sorted(["host:0:every", "host:0:own", "za:0:dflt", "za:0:every",
                    "za:0:glob", "za:0:gzvis", "zb:0:dflt"] + SYS)

# Over the socket.
check(names(za.call("io.statsd.Chain")) == want_a,
      "zone A's chain: %s" % names(za.call("io.statsd.Chain")))
check(names(zb.call("io.statsd.Chain")) == want_b,
      "zone B's chain: %s" % names(zb.call("io.statsd.Chain")))
check(names(host.call("io.statsd.Chain", {})) == want_host,
      "the host's chain: %s" % names(host.call("io.statsd.Chain", {})))
for peer, who, hidden in ((za, "A", "zb:0:dflt"), (za, "A", "host:0:own"),
                          (za, "A", "za:0:glob"), (zb, "B", "za:0:dflt"),
                          (zb, "B", "za:0:every")):
    m, i, n = hidden.split(":")
    expect_error(peer.call("io.statsd.Read", {"module": m, "instance": 0,
                                              "name": n}),
                 "io.statsd.NoSuchKstat", "zone %s reads %s" % (who, hidden))
expect_error(host.call("io.statsd.Read", {"module": "za", "instance": 0,
                                          "name": "only"}),
             "io.statsd.NoSuchKstat", "the host reads A's kstat without "
             "GZ_VIS")
sc = ok(zb.call("io.statsd.Scrape", {}), "Scrape in B")
check(sorted("%s:%d:%s" % (k["module"], k["instance"], k["name"])
             for k in sc.get("kstats", [])) == want_b,
      "zone B's scrape: %s" % sc.get("kstats"))

# In shared memory: every segment a peer is given, read byte by byte.
got, segs = scanned(za.scan())
check(got == want_a, "zone A's segments hold %s" % got)
check("public" not in segs and "private" not in segs,
      "zone A is not given the global zone's segments: %s" % segs)
got, segs = scanned(zb.scan())
check(got == want_b, "zone B's segments hold %s" % got)
hp = ZonePeer(d.sock, [])
got, segs = scanned(hp.scan())
hp.quit()
check(got == want_host, "the host's segments hold %s" % got)
check(len(segs) > 4 and "zone%d" % A not in segs,
      "the host maps zones' shared segments (more than a reply's 4 "
      "descriptors), not A's own: %s" % segs)

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
pid_a = za.pid()
rc = RingClient(d.sock, prefix=["nsenter", "--target", str(pid_a),
                                 "--pid", "--"])
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
      "zone A's records to the host's kstat were refused")
rc.quit()

# A zone is its namespace: a second process joining A's namespace is in A.
za2 = ZonePeer(d.sock, ["nsenter", "--target", str(pid_a), "--pid", "--"])
check(ok(za2.call("io.statsd.Hello"), "Hello")["peer"]["zone"] == A,
      "nsenter into A's pid namespace: zone A again")
za2.quit()
za.quit()
zb.quit()
host.close()
d.stop()

# zones = user: a user namespace (as unshare -r makes it) is a zone.
if can_unshare("--user", "--map-root-user"):
    d2 = Daemon(config="zones = user\n").start()
    zu = ZonePeer(d2.sock, ["unshare", "--user", "--map-root-user"])
    h = ok(zu.call("io.statsd.Hello"), "Hello in a user namespace")
    check(h["peer"]["zone"] != 0 and h["peer"]["zone_name"].startswith(
        "user:["), "zones = user: a user namespace is a zone: %s" % h)
    zp = ZonePeer(d2.sock, ["unshare", "--pid", "--fork"])
    check(ok(zp.call("io.statsd.Hello"), "Hello")["peer"]["zone"] == 0,
          "zones = user: a pid namespace alone is the global zone")
    zu.quit()
    zp.quit()
    d2.stop()
else:
    print("SKIP: unshare --user --map-root-user is not allowed here")

# zones = none: everyone is in the global zone.
d3 = Daemon(config="zones = none\n").start()
zn = ZonePeer(d3.sock, ["unshare", "--pid", "--fork"])
check(ok(zn.call("io.statsd.Hello"), "Hello")["peer"]["zone"] == 0,
      "zones = none: one zone")
zn.quit()
d3.stop()
finish()
