# SPDX-License-Identifier: BSD-2-Clause
"""test_rights.py: rights by SO_PEERCRED. An unprivileged client (nobody,
through setpriv) does not see PRIV kstats, gets only the public segment,
cannot create PRIV kstats, cannot change, reset, redefine or delete what
others own, and its ring cannot update others' kstats; members of the
admin group (primary or supplementary) are privileged."""
import grp
import json
import os
import pwd
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (SETPRIV, TPL_APP, Daemon, RingClient,  # noqa: E402
                     as_user, check, expect_error, finish, ok, read_data,
                     run, setup_kstat, wait_for)

HERE = os.path.dirname(os.path.abspath(__file__))
if os.getuid() != 0 or SETPRIV is None:
    print("needs root and setpriv; skipped")
    sys.exit(77)
NOBODY = pwd.getpwnam("nobody")
NOGROUP = grp.getgrgid(NOBODY.pw_gid).gr_name
ADMIN = "adm"
ADMIN_GID = grp.getgrnam(ADMIN).gr_gid

d = Daemon(config="admin_group = %s\n" % ADMIN).start()
os.chmod(d.run, 0o755)
pub = setup_kstat(d, flags=["WRITABLE"])
spec = pub["template"]
priv = ok(d.call("io.statsd.KstatCreate", {
    "module": "secret", "instance": 0, "name": "keys", "template": spec,
    "flags": ["PRIV"]}), "root creates a PRIV kstat")["kstat"]
check(priv["segment"] == "private", "a PRIV kstat lives in the private "
      "segment")


def as_nobody(calls, groups=None, regid=NOGROUP):
    """Run harness.py's plain client as nobody; return its replies."""
    p = run(as_user(["/usr/bin/python3", os.path.join(HERE, "harness.py"),
                     "--client", d.sock], regid=regid, groups=groups),
            input="".join(json.dumps({"method": m, "parameters": p}) + "\n"
                          for m, p in calls),
            capture_output=True, text=True, timeout=60)
    check(p.returncode == 0, "the unprivileged client ran: " + p.stderr)
    return [json.loads(line) for line in p.stdout.splitlines()]


K = {"module": "app", "instance": 0, "name": "req"}
S = {"module": "secret", "instance": 0, "name": "keys"}
MINE = {"module": "mine", "instance": 0, "name": "x"}
calls = [
    ("io.statsd.Hello", {}),
    ("io.statsd.Chain", {}),
    ("io.statsd.Read", S),
    ("io.statsd.Lookup", {"module": "secret"}),
    ("io.statsd.Scrape", {}),
    ("io.statsd.SegmentAttach", {}),
    ("io.statsd.KstatCreate", dict(S, name="mine", template=spec,
                                   flags=["PRIV"])),
    ("io.statsd.KstatDelete", K),
    ("io.statsd.Snapshot", dict(K, reset=True)),
    ("io.statsd.Write", dict(K, values={"state": 5})),
    ("io.statsd.DefinitionSet", dict(K, text="on=1\n")),
    ("io.statsd.SampleRatesSet", {"text": ""}),
    ("io.statsd.KstatDelete", S),
    ("io.statsd.Snapshot", K),
    ("io.statsd.Read", K),
    ("io.statsd.TemplateAdd", TPL_APP),
    ("io.statsd.KstatCreate", dict(MINE, template=spec,
                                   flags=["WRITABLE"])),
    ("io.statsd.Write", dict(MINE, values={"state": 9})),
    ("io.statsd.Snapshot", dict(MINE, reset=True)),
    ("io.statsd.KstatDelete", MINE),
]
R = as_nobody(calls)
rep = [r["reply"] for r in R]
h = ok(rep[0], "Hello as nobody")
check(h.get("peer", {}).get("uid") == NOBODY.pw_uid, "peer is nobody")
check(h.get("privileged") is False and h.get("rights") == ["read", "owner"],
      "nobody is not privileged: %s" % h)
names = [x["module"] for x in ok(rep[1], "Chain")["kstats"]]
check("secret" not in names and "app" in names,
      "the chain hides PRIV kstats from nobody: %s" % names)
expect_error(rep[2], "io.statsd.NoSuchKstat", "Read of a PRIV kstat",
             kstat="secret:0:keys")
check(ok(rep[3], "Lookup")["kstats"] == [], "Lookup hides PRIV kstats")
check("secret" not in [x["module"] for x in ok(rep[4], "Scrape")["kstats"]],
      "Scrape hides PRIV kstats")
sa = ok(rep[5], "SegmentAttach as nobody")
names = [g["name"] for g in sa.get("segments", [])]
check(R[5]["nfds"] == 2 and names == ["all", "public"],
      "nobody gets the public segments only: %s, %d fds" % (sa, R[5]["nfds"]))
expect_error(rep[6], "io.statsd.PermissionDenied", "nobody creates PRIV",
             right="admin")
expect_error(rep[7], "io.statsd.PermissionDenied", "delete root's kstat",
             right="owner")
expect_error(rep[8], "io.statsd.PermissionDenied", "reset root's kstat",
             right="owner")
expect_error(rep[9], "io.statsd.PermissionDenied", "write root's kstat",
             right="owner")
expect_error(rep[10], "io.statsd.PermissionDenied", "redefine root's kstat",
             right="owner")
expect_error(rep[11], "io.statsd.PermissionDenied", "set sample rates",
             method="io.statsd.SampleRatesSet", right="admin")
expect_error(rep[12], "io.statsd.NoSuchKstat", "delete a PRIV kstat")
ok(rep[13], "a snapshot without reset is a read")
ok(rep[14], "Read of a public kstat")
ok(rep[15], "TemplateAdd as nobody")
mine = ok(rep[16], "nobody creates its own kstat").get("kstat", {})
check(mine.get("owner") == NOBODY.pw_uid, "nobody owns what it created")
ok(rep[17], "nobody writes its own kstat")
ok(rep[18], "nobody resets its own kstat")
ok(rep[19], "nobody deletes its own kstat")
check(ok(d.call("io.statsd.Read", S), "root reads PRIV")["kstat"]["name"] ==
      "keys", "root still sees the PRIV kstat")

# A segment descriptor cannot be reopened writable by another uid.
probe = ("import array,json,os,socket,sys\n"
         "s=socket.socket(socket.AF_UNIX);s.connect(sys.argv[1])\n"
         "s.sendall(b'{\"method\":\"io.statsd.SegmentAttach\"}\\0')\n"
         "d,a,f,_=s.recvmsg(65536,socket.CMSG_SPACE(16))\n"
         "fd=array.array('i',a[0][2][:4])[0]\n"
         "try:\n os.open('/proc/self/fd/%d'%fd,os.O_RDWR);print('rw')\n"
         "except PermissionError:\n print('denied')\n")
p = run(as_user(["/usr/bin/python3", "-c", probe, d.sock]),
        capture_output=True, text=True, timeout=60)
check(p.stdout.strip() == "denied",
      "nobody cannot reopen the segment read-write: %r %r"
      % (p.stdout, p.stderr))

# nobody's ring cannot update root's kstat; its own, yes.
before = read_data(d)["requests.sum"]
rej0 = ok(d.call("io.statsd.Info", {}), "Info")["rejected"]
rc = RingClient(d.sock, prefix={"regid": NOGROUP})
check(rc.cmd("connect") == "ok", "nobody's producer connects")
rc.cmd("handle app 0 req")
check(rc.cmd("attach 8").startswith("ok"), "nobody attaches a ring")
pushed, dropped = rc.counters("push 100 0")
wait_for(lambda: ok(d.call("io.statsd.Info", {}), "Info", False)[
    "rejected"] - rej0 == pushed - dropped, "nobody's updates to rejected")
check(read_data(d)["requests.sum"] == before, "root's kstat is untouched")
r = rc.cmd('call {"method":"io.statsd.KstatCreate","parameters":'
           '{"module":"mine","instance":1,"name":"y","template":%s}}'
           % json.dumps(spec))
check(r.startswith("ok"), "nobody creates a kstat: " + r)
rc.cmd("handle mine 1 y")
rc.counters("push 50 0")
wait_for(lambda: read_data(d, "mine", 1, "y").get("requests.sum") == 50,
         "nobody's ring updates its own kstat")
rc.quit()

# The admin group, as a supplementary group and as the primary group.
for how, kw in (("supplementary", {"groups": str(ADMIN_GID)}),
                ("primary", {"regid": ADMIN})):
    R = as_nobody([("io.statsd.Hello", {}), ("io.statsd.Read", S),
                   ("io.statsd.SegmentAttach", {})], **kw)
    check(ok(R[0]["reply"], "Hello").get("privileged") is True,
          "admin group (%s) is privileged" % how)
    ok(R[1]["reply"], "an admin reads PRIV (%s)" % how)
    check(R[2]["nfds"] == 3, "an admin gets the private segment too (%s)"
          % how)

d.stop()
d.cleanup()
finish()
