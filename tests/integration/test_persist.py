# SPDX-License-Identifier: BSD-2-Clause
"""test_persist.py: PERSISTENT kstats across kill -9 and restarts. The
counts are intact after kill -9; updates a producer pushed while statsd
was down wait in its ring and are drained once it hands the ring back;
pushed = applied + dropped holds across it all. A deleted PERSISTENT
kstat goes dormant and comes back with its data; a cleared runtime
directory (a reboot) falls back to the checkpoint. Spill buffers too: a
buffer handed over and not yet merged when statsd is killed is merged
once by the next statsd; kill -9 again and again while a producer spills
and statsd merges keeps pushed = applied + dropped, nothing doubled."""
import glob
import os
import random
import re
import shutil
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (TPL_APP, Daemon, RingClient, check,  # noqa: E402
                     expect_error, finish, info, ok, read_data,
                     setup_kstat, wait_for)

P = {"module": "p", "instance": 0, "name": "counts"}
d = Daemon(config="checkpoint_interval_ms = 100000\n").start()
k = setup_kstat(d, "p", 0, "counts", flags=["PERSISTENT"])
check(k["flags"] == ["PERSISTENT"], "a PERSISTENT kstat")
setup_kstat(d, "plain", 0, "x")
priv = setup_kstat(d, "p", 1, "secret", flags=["PERSISTENT", "PRIV"])


def psum(name="counts", instance=0):
    return read_data(d, "p", instance, name).get("requests.sum")


# Phase 1: statsd up.
rc = RingClient(d.sock)
check(rc.cmd("connect") == "ok", "producer connects")
check(rc.cmd("handle p 0 counts") == "ok handle=%d" % k["handle"], "handle")
check(rc.cmd("attach 10").startswith("ok"), "a 1024-record ring")
p1, d1 = rc.counters("push 5000 0")
wait_for(lambda: psum() == p1 - d1, "phase 1 applied")
s1 = psum()
rc.cmd("handle p 1 secret")
rc.counters("push 7 0")
wait_for(lambda: psum("secret", 1) == 7, "the PRIV kstat updated")
rc.cmd("handle p 0 counts")

# kill -9: nothing flushed, nothing said.
d.kill9()
check(not os.path.exists(os.path.join(d.state, "statsd.checkpoint.tmp")),
      "no half-written checkpoint")
# Phase 2: statsd down; the ring keeps what fits, the rest is dropped.
p2, d2 = rc.counters("push 3000 0")
check(d2 - d1 >= 3000 - 1024, "a full ring drops while statsd is down")

# Restart: the counts are intact.
d.start()
check(psum() == s1, "after kill -9 the counts are intact (%s == %s)"
      % (psum(), s1))
check(psum("secret", 1) == 7, "the PRIV PERSISTENT kstat is intact")
expect_error(d.call("io.statsd.Read", {"module": "plain", "instance": 0,
                                       "name": "x"}),
             "io.statsd.NoSuchKstat", "a plain kstat did not survive")
lst = ok(d.call("io.statsd.TemplateList", {}), "TemplateList")["list"]
check(k["template"] in lst.split(","), "the template survived")
kk = ok(d.call("io.statsd.Read", P), "Read")["kstat"]
check(kk["handle"] == k["handle"], "the handle survived")

# The producer reconnects and hands its ring back: what waited is drained.
check(rc.cmd("disconnect") == "ok" and rc.cmd("connect") == "ok",
      "producer reconnects")
out = rc.cmd("adopt")
check(out.startswith("ok") and '"adopted":true' in out, "adopt: " + out)
# Seven of the pushes went to p:1:secret.
pushed, dropped = rc.counters()
pushed -= 7
wait_for(lambda: psum() == pushed - dropped,
         "pushed = applied + dropped after the restart (%d - %d)"
         % (pushed, dropped))
p3, d3 = rc.counters("push 2000 0")
p3 -= 7
wait_for(lambda: psum() == p3 - d3, "updates after adoption")
check(p3 == 10000, "10000 pushes in all")

# Again, with kill -9 while the producer is still pushing.
rc.proc.stdin.write("push 20000 0\n")
rc.proc.stdin.flush()
d.kill9()
p4, d4 = [int(x.split("=")[1]) for x in
          rc.proc.stdout.readline().split()[1:]]
p4 -= 7
d.start()
rc.cmd("disconnect")
rc.cmd("connect")
check(rc.cmd("adopt").startswith("ok"), "adopt after the second kill")
wait_for(lambda: psum() == p4 - d4,
         "pushed = applied + dropped across a kill mid-stream "
         "(%s vs %d)" % (psum(), p4 - d4))

# Delete: dormant, hidden, updates refused; revive brings the data back.
before = psum()
r = ok(d.call("io.statsd.KstatDelete", P), "KstatDelete")
check(r.get("dormant") is True, "a PERSISTENT kstat goes dormant")
expect_error(d.call("io.statsd.Read", P), "io.statsd.NoSuchKstat",
             "a dormant kstat is not read")
chain = ok(d.call("io.statsd.Chain", {"dormant": True}), "Chain")["kstats"]
dorm = [x for x in chain if x["module"] == "p" and x["instance"] == 0]
check(dorm and "DORMANT" in dorm[0]["flags"], "Chain shows it dormant")
rej0 = info(d)["rejected"]
rc.counters("push 10 0")
wait_for(lambda: info(d)["rejected"] - rej0 == 10,
         "updates to a dormant kstat are rejected")
rc.quit()
d.stop()
d.start()
chain = ok(d.call("io.statsd.Chain", {"dormant": True}), "Chain")["kstats"]
check(any("DORMANT" in x["flags"] for x in chain
          if x["module"] == "p" and x["instance"] == 0),
      "still dormant after a restart")
expect_error(d.call("io.statsd.KstatCreate", dict(
    P, template='"OTHER":1')), "io.statsd.NoSuchTemplate",
    "revive with a missing template")
ok(d.call("io.statsd.TemplateAdd", {"name": "OTHER", "vois": [
    {"id": 0, "name": "x", "dtype": "INT_U64",
     "stats": [{"kind": "SUM"}]}]}), "another template")
spec_other = ok(d.call("io.statsd.TemplateList", {}), "list")[
    "templates"][-1]["spec"]
expect_error(d.call("io.statsd.KstatCreate", dict(P, template=spec_other)),
             "io.statsd.TemplateMismatch", "revive with another template",
             kstat="p:0:counts")
r = ok(d.call("io.statsd.KstatCreate", dict(P, template=k["template"])),
       "revive")
check(r.get("revived") is True, "KstatCreate revives the dormant kstat")
check(psum() == before, "it comes back with its data")

# A reboot clears the runtime directory: the checkpoint has the data.
d.stop()
shutil.rmtree(d.run)
d.start()
check(psum() == before, "the checkpoint restores the data after a reboot")
check(glob.glob(os.path.join(d.run, "persist", "*.kstat")),
      "runtime files are made again")

# A damaged checkpoint is set aside, not trusted.
d.stop()
with open(os.path.join(d.state, "statsd.checkpoint"), "w") as f:
    f.write('{"format": "statsd-checkpoint", "version": 1, "kstats": [1, ')
shutil.rmtree(d.run)
d.start()
check(os.path.exists(os.path.join(d.state, "statsd.checkpoint.bad")),
      "the damaged checkpoint is set aside")
check("set aside" in d.stderr(), "and the reason is logged")
expect_error(d.call("io.statsd.Read", P), "io.statsd.NoSuchKstat",
             "nothing restored from a damaged checkpoint")
d.stop()
d.cleanup()



def kill9_while_pushing(config, name, attach, push, spill, what):
    """A PERSISTENT kstat p:0:name and a producer that pushes push
    updates at a time through a ring made by "attach <attach>" (with
    spill buffers if spill); statsd is killed six times while it pushes
    and each time the ring is handed back (and, spilling, what was
    spilled handed over). Every update must be applied once or counted
    as dropped. Returns: what the producer pushed."""
    d = Daemon(config=config).start()
    setup_kstat(d, "p", 0, name, flags=["PERSISTENT"])
    rc = RingClient(d.sock)
    rc.cmd("connect")
    rc.cmd("handle p 0 %s" % name)
    rc.cmd("attach %s" % attach)
    if spill:
        rc.cmd("spill")
    for cycle in range(6):
        rc.proc.stdin.write("push %d 0\n" % push)
        rc.proc.stdin.flush()
        time.sleep(random.uniform(0.0, 0.02))
        d.kill9()
        rc.proc.stdout.readline()
        d.start()
        rc.cmd("disconnect")
        rc.cmd("connect")
        check(rc.cmd("adopt").startswith("ok"), "adopt after kill %d" % cycle)
        if spill:
            wait_for(lambda: rc.cmd("handover") == "ok left=0",
                     "what was spilled handed over after kill %d" % cycle)
    pushed, dropped = rc.counters()
    wait_for(lambda: read_data(d, "p", 0, name).get("requests.sum") ==
             pushed - dropped, "pushed = applied + dropped over six kills "
             "%s (%d - %d vs %s)" % (what, pushed, dropped,
                                     read_data(d, "p", 0, name)))
    rc.quit()
    d.stop()
    d.cleanup()
    return pushed


# kill -9 in the middle of long drain passes, again and again: the ring
# journal keeps every count exact (no update lost, none applied twice).
kill9_while_pushing("drain_batch = 65536\n", "c", "17", 400000, False,
                    "mid-drain")

# A spill buffer handed over and not yet merged when statsd dies. statsd
# is stopped (SIGSTOP) so that the producer's ring fills and it spills;
# let go, statsd drains the ring; stopped again, it cannot merge the
# buffer the producer now hands over; killed, the next statsd gets the
# ring back and merges it, once.
d = Daemon().start()
setup_kstat(d, "p", 0, "s", flags=["PERSISTENT"])


def ssum():
    return read_data(d, "p", 0, "s").get("requests.sum")


rc = RingClient(d.sock)
rc.cmd("connect")
rc.cmd("handle p 0 s")
check(rc.cmd("attach 2 1048576").startswith("ok"), "a 4-record ring")
check(rc.cmd("spill").startswith("ok"), "spill on")
rc.counters("push 4 0")
wait_for(lambda: ssum() == 4, "the first records applied")
d.proc.send_signal(signal.SIGSTOP)
rc.counters("push 1004 0")		# 4 fill the ring, 1000 spill
d.proc.send_signal(signal.SIGCONT)
wait_for(lambda: ssum() == 8, "statsd drained the ring, not the buffer")
d.proc.send_signal(signal.SIGSTOP)
check(rc.cmd("handover") == "ok left=0", "the buffer handed over")
d.kill9()
d.start()
check(ssum() == 8, "after kill -9: the handed-over buffer not merged yet")
rc.cmd("disconnect")
rc.cmd("connect")
check(rc.cmd("adopt").startswith("ok"), "the ring handed back")
pushed, dropped = rc.counters()
check(pushed == 1008 and dropped == 0, "nothing dropped (%d, %d)"
      % (pushed, dropped))
wait_for(lambda: ssum() == 1008, "the buffer merged once after the restart "
         "(%s)" % ssum())
check(ssum() == 1008, "and only once")
rc.quit()
d.stop()
d.cleanup()

# KstatCreate's definitions on a PERSISTENT kstat: taken before its
# checkpoint record, or the create is taken back whole. A new one refused
# leaves nothing, not after a restart either; a dormant one whose revival
# is refused sleeps on, with its data and definitions.
d = Daemon().start()
LX = {"name": "LX", "vois": [
    {"id": 0, "name": "reqs", "dtype": "INT_S64",
     "stats": [{"kind": "DEFN", "units": "calls"}]}]}
lspec = ok(d.call("io.statsd.TemplateAdd", LX), "TemplateAdd LX")[
    "template"]["spec"]
PL = {"module": "linux", "instance": 0, "name": "pif", "template": lspec,
      "flags": ["PERSISTENT"]}
BAD = "name=reqs type=list\n"
GOOD = "name=reqs type=range range_min=0 range_max=7\n"


def pif_chain():
    return [x for x in ok(d.call("io.statsd.Chain", {"dormant": True}),
                          "Chain")["kstats"]
            if (x["module"], x["name"]) == ("linux", "pif")]


expect_error(d.call("io.statsd.KstatCreate", dict(PL, definitions=BAD)),
             "io.statsd.InvalidDefinition", "a PERSISTENT create refused")
check(pif_chain() == [], "a refused PERSISTENT create leaves no kstat")
d.stop()
d.start()
check(pif_chain() == [], "nor a checkpoint record: none after a restart")
ok(d.call("io.statsd.TemplateAdd", LX), "TemplateAdd LX again")
ok(d.call("io.statsd.KstatCreate", dict(PL, definitions=GOOD)),
   "a PERSISTENT create with its definitions")
PIF = {"module": "linux", "instance": 0, "name": "pif"}
dtext = ok(d.call("io.statsd.DefinitionGet", PIF), "DefinitionGet")["text"]
check("type=range range_min=0 range_max=7" in dtext,
      "its definitions: %r" % dtext)
ok(d.call("io.statsd.KstatDelete", PIF), "KstatDelete: dormant")
d.stop()
d.start()
expect_error(d.call("io.statsd.KstatCreate", dict(PL, definitions=BAD)),
             "io.statsd.InvalidDefinition", "a revival refused")
pc = pif_chain()
check(len(pc) == 1 and "DORMANT" in pc[0]["flags"],
      "a refused revival leaves the kstat dormant: %s" % pc)
r = ok(d.call("io.statsd.KstatCreate", dict(PL, brief=True)), "revive")
check(r.get("revived") is True and "made" in r, "revived, briefly: %s" % r)
dtext2 = ok(d.call("io.statsd.DefinitionGet", PIF), "DefinitionGet")["text"]
check("type=range range_min=0 range_max=7" in dtext2,
      "revived with its definitions: %r" % dtext2)
d.stop()
d.cleanup()

# kill -9 again and again while a producer spills (a 4-record ring) and
# statsd merges: every update is applied once or counted as dropped.
pushed = kill9_while_pushing("", "m", "2 1048576", 200000, True,
                             "of a spilling producer's statsd")
check(pushed == 6 * 200000, "1.2M pushed")

# Runtime files are made and deleted by their own thread, never in the
# event loop: the exit log counts what it made and deleted; the
# kstats' files are there, those removed for good are not.
def pfiles(dd):
    return sorted(f for f in os.listdir(os.path.join(dd.run, "persist"))
                  if f.endswith(".kstat"))


def pmany(c, spec, prefix, n):
    return c.call("io.statsd.KstatCreateMany", {
        "template": spec, "flags": ["PERSISTENT"], "kstats": [
            {"module": prefix, "instance": i, "name": "k"}
            for i in range(n)]})


def handles(r):
    return sorted("%d.kstat" % k["handle"]
                  for k in r.get("parameters", {}).get("kstats", []))


def armed(point, dd=None):
    """A daemon (dd restarted, or a new one) with a failure point armed,
    a connection and TPL_APP's spec."""
    os.environ["STATSD_TEST_FAIL_AT"] = point
    try:
        dd = dd.start() if dd is not None else Daemon().start()
    finally:
        del os.environ["STATSD_TEST_FAIL_AT"]
    cc = dd.conn()
    sp = ok(cc.call("io.statsd.TemplateAdd", TPL_APP), "TemplateAdd")[
        "template"]["spec"]
    return dd, cc, sp


def send_many(cc, sp, module):
    """A KstatCreateMany of 20 PERSISTENT kstats, its reply not read."""
    cc.send("io.statsd.KstatCreateMany", {
        "template": sp, "flags": ["PERSISTENT"], "kstats": [
            {"module": module, "instance": i, "name": "k"}
            for i in range(20)]})


d = Daemon().start()
c = d.conn()
spec = ok(c.call("io.statsd.TemplateAdd", TPL_APP), "TemplateAdd")[
    "template"]["spec"]
r = ok(pmany(c, spec, "fm", 50), "KstatCreateMany of 50 PERSISTENT", False)
made = handles({"parameters": r})
check(len(made) == 50 and set(made) <= set(pfiles(d)),
      "their 50 runtime files are there when the call is answered")
gone = {"module": "fm", "instance": 3, "name": "k"}
ok(c.call("io.statsd.KstatDelete", gone), "KstatDelete: dormant")
ok(c.call("io.statsd.KstatDelete", gone), "KstatDelete: for good")
c.close()
d.stop()
m = re.findall(r"runtime files' thread: (\d+) made, (\d+) deleted",
               d.stderr())
check(m and int(m[-1][0]) == 50 and int(m[-1][1]) == 1,
      "the thread made the 50 files and deleted the one removed: %s" % m)
check(sorted(set(made) - set(pfiles(d))) ==
      ["%d.kstat" % r["kstats"][3]["handle"]],
      "the file of the kstat removed for good is gone, the 49 others stay")
d.cleanup()

# A file that cannot be made (the third of five, at the test's failure
# point: a full runtime directory) refuses the whole batch, and nothing
# of it stays: no kstat, no file. The next create is made.
d, c, spec = armed("filer.make:3")
r = pmany(c, spec, "ff", 5)
expect_error(r, "io.statsd.SystemError", "a batch whose third file "
             "cannot be made")
chain = ok(c.call("io.statsd.Chain", {}), "Chain", False)["kstats"]
check(not [k for k in chain if k["module"] == "ff"],
      "none of the batch's kstats stayed")
r = ok(pmany(c, spec, "fg", 2), "the next batch is made", False)
c.close()
d.stop()
check(pfiles(d) == handles({"parameters": r}),
      "only the next batch's files are left: %s" % pfiles(d))
d.cleanup()

# While the thread makes a batch's files (held 1.5 s at the test's
# failure point), the loop serves everyone: root's Info is answered
# before the batch goes on, and the create when it has.
d, c, spec = armed("filer.stall")
send_many(c, spec, "fs")
wait_for(lambda: "filer.stall: a batch of 20 held" in d.stderr(),
         "the batch held on the files' thread")
info(d)
check("the batch held goes on" not in d.stderr(),
      "root's Info answered while the files are being made")
r = c.recv()
check("error" not in r and len(r["parameters"]["kstats"]) == 20 and
      "the batch held goes on" in d.stderr(),
      "the create answered once they are: %s" % str(r)[:200])
# A caller that leaves while its files are being made: the create is
# done all the same, as a durable create whose caller left is: its
# kstats and their files are there.
c.close()
d.stop()
d, c, spec = armed("filer.stall", d)
before = pfiles(d)
held = d.stderr().count("filer.stall: a batch of 20 held")


def fl_kstats():
    return [k for k in ok(d.call("io.statsd.Chain", {}), "Chain",
                          False)["kstats"] if k["module"] == "fl"]


send_many(c, spec, "fl")
wait_for(lambda: d.stderr().count("filer.stall: a batch of 20 held") > held,
         "the leaver's batch held")
c.close()
wait_for(lambda: len(fl_kstats()) == 20 and len(pfiles(d)) ==
         len(before) + 20, "the leaver's kstats made, with their files")
d.stop()

# Stopped while a batch's files are being made: after the restart the
# batch is there whole or not at all, and the runtime directory holds
# exactly the files of the kstats there.
d, c, spec = armed("filer.stall", d)
held = d.stderr().count("filer.stall: a batch of 20 held")
send_many(c, spec, "fs2")
wait_for(lambda: d.stderr().count("filer.stall: a batch of 20 held") > held,
         "the batch held")
d.stop()
c.close()
d.start()
chain = ok(d.call("io.statsd.Chain", {}), "Chain", False)["kstats"]
fs2 = [k for k in chain if k["module"] == "fs2"]
check(len(fs2) in (0, 20), "stopped while its files were made: the batch "
      "whole or not at all (%d of 20)" % len(fs2))
want = sorted("%d.kstat" % k["handle"] for k in chain
              if "PERSISTENT" in k["flags"])
d.stop()
check(pfiles(d) == want, "the runtime files are the PERSISTENT kstats' "
      "(%d files, %d kstats)" % (len(pfiles(d)), len(want)))
d.cleanup()
finish()
