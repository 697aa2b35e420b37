# SPDX-License-Identifier: BSD-2-Clause
"""test_abuse_rings.py: what an unprivileged local user can do to statsd
through update rings, as uid 65534 (and a second system user) through
setpriv — one regression test per attack of the hardening audit that
lives in the ring code. Each test names the attack it guards against:

  row 3:  RingAttach in a loop with large rings: statsd held gigabytes.
          Now rings and their bytes (records and overflow areas) are
          quotas per user, with a total and a reserve for privileged
          peers; LimitReached names the limit that stopped the call.
  row 5:  another user squats the name an application publishes: the
          library joined it and its updates were refused behind its back.
          Now it never joins another user's kstat, and the updates statsd
          refuses count in the client's own dropped counter.
  row 10: RingAttach with adopt on one's own live ring, three times: 1,000
          pushes counted 3,000, and the copies shared a journal slot. Now
          a ring is adopted once, only by the user statsd made it for,
          and only once its holder is gone.
  item 7: a ring reporting dropped = 2^64 - 1 made Info.dropped read -1
          forever. Now counters fed by rings are bounded.
  spills: a producer's spill buffers are hostile input: one that names
          another user's kstat, is scribbled over, is rewritten after its
          hand-over or claims 2^64 - 1 updates spoils only its own
          updates, and the counters stay bounded.

Every check is of exactness or a bound, never of a time."""
import json
import os
import pwd
import shutil
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import (SETPRIV, Daemon, RingClient, as_user, check,  # noqa: E402
                     expect_error, finish, ok, read_data, spawn, wait_for)

if os.getuid() != 0 or SETPRIV is None:
    print("needs root and setpriv; skipped")
    sys.exit(77)
NOBODY = pwd.getpwnam("nobody")
OTHER = pwd.getpwnam("daemon")
CLIENT_IT = os.environ.get("CLIENT_IT", "client_it")
LIBSTATSCLIENT = os.environ.get("LIBSTATSCLIENT", "")


def info(d):
    return ok(d.call("io.statsd.Info", {}), "Info", False)


def daemon(config=""):
    d = Daemon(config=config).start()
    os.chmod(d.run, 0o755)
    return d


def ring_as(d, pw):
    rc = RingClient(d.sock, prefix={"uid": pw.pw_uid, "regid": pw.pw_gid})
    check(rc.cmd("connect") == "ok", "ring_client connects as uid %d"
          % pw.pw_uid)
    return rc


# ------------------------------------------------------------------ row 3
d = daemon("max_rings_per_uid = 6\nmax_ring_bytes_per_uid = 8M\n"
           "max_ring_bytes = 12M\nring_overflow_size = 1M\n")
# Rings of 2^16 records (2 MiB) and 1 MiB of overflow: 3 MiB each, so
# the third passes the user's 8 MiB (without its overflow area it would
# not: the spill buffers are counted).
rc = ring_as(d, NOBODY)
out = rc.cmd("attach 4 %d" % ((64 << 20) + 8192))
check("io.statsd.InvalidValue" in out and "ring_max_overflow_size" in out,
      "row 3: an overflow area above ring_max_overflow_size is refused: %s"
      % out)
outs = [rc.cmd("attach 16") for _ in range(3)]
check(all(o.startswith("ok") for o in outs[:2]), "two large rings: %s"
      % outs[:2])
check("io.statsd.LimitReached" in outs[2] and
      '"limit":"max_ring_bytes_per_uid"' in outs[2],
      "row 3: ring bytes past the user's limit: LimitReached names "
      "max_ring_bytes_per_uid: %s" % outs[2])
used = [u for u in info(d)["quotas"].get("users", [])
        if u.get("uid") == NOBODY.pw_uid]
check(used and 0 < used[0].get("ring_bytes", 0) <= 8 << 20,
      "row 3: the user's ring bytes stay within its limit: %s" % used)
# Small rings: the count is a quota too.
small = [rc.cmd("attach 4 0") for _ in range(6)]
check(any('"limit":"max_rings_per_uid"' in o for o in small),
      "row 3: past max_rings_per_uid: %s" % small[-1])
# A second user fills what the total leaves unprivileged users
# (12 MiB less 10%): the total is named; root still gets a ring.
rc2 = ring_as(d, OTHER)
outs2 = [rc2.cmd("attach 16") for _ in range(3)]
check(any('"limit":"max_ring_bytes"' in o for o in outs2),
      "row 3: past the unprivileged part of max_ring_bytes: %s" % outs2)
c = d.conn()
r = c.call("io.statsd.RingAttach", {"capacity_log2": 10})
for fd in c.take_fds():
    os.close(fd)
ok(r, "row 3: root is never locked out: it gets a ring from the reserve")
c.close()
rc.quit()
rc2.quit()
wait_for(lambda: info(d)["rings"] == 0, "the users' rings freed with their "
         "connections")
check(info(d)["quotas"]["ring_bytes"]["used"] == 0, "and their bytes given "
      "back")
d.stop()

# ----------------------------------------------------------------- row 10
d = daemon()
rc = ring_as(d, NOBODY)
# nobody's own kstat, so that nobody's pushes apply.
mine = rc.cmd('call {"method":"io.statsd.TemplateAdd","parameters":%s}'
              % json.dumps(harness.TPL_APP))
check(mine.startswith("ok"), "nobody adds the template")
spec = json.loads(mine[3:])["parameters"]["template"]["spec"]
out = rc.cmd('call {"method":"io.statsd.KstatCreate","parameters":'
             '{"module":"ten","instance":0,"name":"req","template":%s}}'
             % json.dumps(spec))
check(out.startswith("ok"), "nobody creates ten:0:req: " + out)
check(rc.cmd("handle ten 0 req").startswith("ok handle="), "handle")
check(rc.cmd("attach 10").startswith("ok"), "a ring")
for i in range(3):
    out = rc.cmd("adopt")
    check(out.startswith("error") and "attached already" in out,
          "row 10: adopting one's own live ring (%d) is refused: %s"
          % (i, out))
check(info(d)["rings"] == 1, "row 10: still one ring")
rc.counters("push 1000 0")
wait_for(lambda: read_data(d, "ten", 0, "req").get("requests.sum") == 1000,
         "1000 pushes applied")
check(read_data(d, "ten", 0, "req").get("requests.sum") == 1000,
      "row 10: 1000 pushes counted 1000")
# The ring's holder goes (its connection closes): the ring is freed, and
# its owner, and only its owner, may take it back, once.
check(rc.cmd("disconnect") == "ok", "disconnect")
wait_for(lambda: info(d)["rings"] == 0, "the ring freed with its "
         "connection")
pid = rc.proc.pid
ring_fd = None
for f in sorted(os.listdir("/proc/%d/fd" % pid), key=int):
    if os.readlink("/proc/%d/fd/%s" % (pid, f)).startswith(
            "/memfd:statsd-ring"):
        ring_fd = os.open("/proc/%d/fd/%s" % (pid, f), os.O_RDWR)
efd = os.eventfd(0)
check(ring_fd is not None, "root finds nobody's ring")
c = d.conn()
r = c.call("io.statsd.RingAttach", {"adopt": True}, fds=[ring_fd, efd])
expect_error(r, "io.statsd.InvalidValue", "row 10: another user (root "
             "too) cannot adopt nobody's ring", parameter="adopt")
c.close()
os.close(ring_fd)
os.close(efd)
check(rc.cmd("connect") == "ok", "nobody connects again")
check(rc.cmd("adopt").startswith("ok"), "row 10: its owner adopts it")
out = rc.cmd("adopt")
check(out.startswith("error") and "attached already" in out,
      "row 10: and only once: " + out)
rc.counters("push 500 0")
wait_for(lambda: read_data(d, "ten", 0, "req").get("requests.sum") == 1500,
         "pushes after the adoption applied once")
check(info(d)["rings"] == 1, "row 10: one ring, one journal slot")

# ------------------------------------------------------- hostile spills
# A producer that names another user's kstat in its spill buffer,
# scribbles over the blob, lies about how many updates it holds, or
# writes the buffer after handing it over spoils nothing but its own
# updates: statsd copies a buffer out when it takes the hand-over,
# checks it as hostile input, and merges a blob only into a kstat the
# ring's owner may update. statsd is stopped (SIGSTOP) so that the
# 4-record ring fills and the rest spills into buffer 0 of a new ring,
# whose first entry lies at a known place.
ok(d.call("io.statsd.KstatCreate", {"module": "vic", "instance": 0,
                                    "name": "req", "template": spec}),
   "root creates vic:0:req")
sp = ring_as(d, NOBODY)
vic = int(sp.cmd("handle vic 0 req").split("=")[1])
own = int(sp.cmd("handle ten 0 req").split("=")[1])
OVF = 4096			# 512 + 4 records, to the next 4096
ENT = OVF + 64			# buffer 0's first entry; its blob at + 24


def mine():
    return read_data(d, "ten", 0, "req").get("requests.sum")


def victim():
    return read_data(d, "vic", 0, "req").get("requests.sum", 0)


def spill_round(pokes, after_handover=False):
    """1004 pushes: 4 in the ring, 1000 spilled; pokes before or after the
    hand-over; then one more push, applied once statsd took the buffer.
    Returns: what the 1000 spilled added to nobody's kstat."""
    check(sp.cmd("attach 2 8192").startswith("ok"), "a 4-record ring")
    check(sp.cmd("spill").startswith("ok"), "spill on")
    base = mine()
    d.proc.send_signal(signal.SIGSTOP)
    sp.counters("push 1004 0")
    if not after_handover:
        for off, v in pokes:
            check(sp.cmd("poke %d %d" % (off, v)) == "ok", "poke")
    d.proc.send_signal(signal.SIGCONT)
    wait_for(lambda: mine() == base + 4, "the ring's records applied")
    if after_handover:
        d.proc.send_signal(signal.SIGSTOP)
    check(sp.cmd("handover") == "ok left=0", "the buffer handed over")
    if after_handover:
        for off, v in pokes:
            check(sp.cmd("poke %d %d" % (off, v)) == "ok", "poke")
        d.proc.send_signal(signal.SIGCONT)
    sp.counters("push 1 0")
    wait_for(lambda: mine() in (base + 5, base + 1005),
             "the buffer taken, the push after it applied")
    return mine() - base - 5


check(spill_round([]) == 1000, "an honest spill merges")
check(spill_round([(ENT + 8, own)]) == 1000, "the entry's handle is where "
      "the pokes below write it")
check(spill_round([(ENT + 8, vic)]) == 0 and victim() == 0,
      "a spill blob naming another user's kstat is refused; that kstat "
      "is untouched (%s)" % victim())
check(spill_round([(ENT + 24, 0xdeadbeefdeadbeef),
                   (ENT + 32, 0xffffffffffffffff)]) == 0,
      "a scribbled spill blob is refused")
check(spill_round([(ENT + 8, vic)], after_handover=True) == 0 and
      victim() == 0, "a buffer rewritten after its hand-over spoils no "
      "other user's kstat (%s)" % victim())
check(spill_round([(OVF + 16, 2 ** 64 - 1), (ENT + 16, 2 ** 64 - 1)]) ==
      1000, "a buffer that claims 2^64 - 1 updates merges what it holds")
spilled = info(d)["spilled"]
check(0 <= spilled < 10 ** 12, "and Info.spilled stays bounded: %d"
      % spilled)
check(info(d)["rings"] >= 1, "statsd still serves")
sp.quit()

# ---------------------------------------------------------------- item 7
# A producer that claims 2^64 - 1 drops: Info.dropped stays a count a
# ring could have reached (one per nanosecond of its life at most).
before = info(d)["dropped"]
check(rc.cmd("poke 136 18446744073709551615") == "ok", "the producer lies")
after = info(d)["dropped"]
check(0 <= after < 10 ** 12 and after >= before,
      "item 7: Info.dropped bounded, never negative: %d" % after)
self_ks = read_data(d, "statsd", 0, "daemon")
check(0 <= self_ks.get("dropped", -1) < 10 ** 12,
      "item 7: the self kstat's dropped too: %s" % self_ks.get("dropped"))
rc.quit()
d.stop()

# ------------------------------------------------------------------ row 5
# client_it as two users: its library is staged beside it.
if LIBSTATSCLIENT:
    stage = os.path.dirname(harness.stage(CLIENT_IT))
    shutil.copy(LIBSTATSCLIENT, os.path.join(stage, "libstatsclient.so.0"))
    os.chmod(os.path.join(stage, "libstatsclient.so.0"), 0o755)
env = dict(os.environ, LD_LIBRARY_PATH=os.path.dirname(
    harness.stage(CLIENT_IT)))
d = daemon()


def client_as(pw, mode, *args, stdin=subprocess.DEVNULL):
    return spawn(as_user([CLIENT_IT, mode, d.sock] + [str(a) for a in args],
                         uid=pw.pw_uid, regid=pw.pw_gid),
                 stdin=stdin, stdout=subprocess.PIPE, text=True, env=env)


squat = client_as(OTHER, "squat", "victim", stdin=subprocess.PIPE)
check(squat.stdout.readline().strip() == "ok",
      "another user holds it:0:victim")
p = client_as(NOBODY, "nojoin", "victim")
out, _ = p.communicate(timeout=harness.DEADLINE)
check(p.returncode == 0 and "error=%d" % 1 in out and
      "owned by uid %d" % OTHER.pw_uid in out,
      "row 5: the library does not join another user's kstat; the error "
      "says whose it is: %s" % out.strip())
squat.stdin.close()
squat.wait(timeout=harness.DEADLINE)

# Updates statsd refuses (their kstat was deleted by an admin) count in
# the client's own dropped counter.
p = client_as(NOBODY, "refused", "mine", 1000, stdin=subprocess.PIPE)
first = p.stdout.readline().split()
check(first == ["pushed=1000", "dropped=0"], "1000 pushed, none dropped: "
      "%s" % first)
ok(d.call("io.statsd.KstatDelete", {"module": "it", "instance": 0,
                                    "name": "mine"}), "root deletes it")
p.stdin.write("go\n")
p.stdin.flush()
second = p.stdout.readline().split()
check(second == ["pushed=2000", "dropped=1000"],
      "row 5: the 1000 updates statsd refused count as dropped in the "
      "client: %s" % second)
p.stdin.close()
p.wait(timeout=harness.DEADLINE)
check(p.returncode == 0, "client_it refused exited %s" % p.returncode)
d.stop()
finish()
