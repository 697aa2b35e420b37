# SPDX-License-Identifier: BSD-2-Clause
"""test_rings.py: update rings end to end — real producer processes
attach rings (descriptors over SCM_RIGHTS), push, and every update is
either applied or counted as dropped, exactly; bad records are rejected
and counted; statsd's own kstat agrees; segments attach read-only."""
import mmap
import os
import signal
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (Daemon, RingClient, check, expect_error,  # noqa: E402
                     finish, ok, read_data, setup_kstat, wait_for)

d = Daemon(config="max_rings = 10\nring_max_capacity_log2 = 18\n"
           "drain_batch = 256\n").start()
setup_kstat(d)


def info():
    return ok(d.call("io.statsd.Info", {}), "Info", False)


def settled(expect_sum):
    """Wait until requests.sum reaches expect_sum; return the data."""
    return wait_for(lambda: read_data(d).get("requests.sum") == expect_sum
                    and read_data(d), "requests.sum == %d" % expect_sum)


base = info()

# One producer, a small ring: drops happen and are counted exactly.
rc = RingClient(d.sock)
check(rc.cmd("connect") == "ok", "ring_client connects")
check(rc.cmd("handle app 0 req").startswith("ok handle="), "handle lookup")
out = rc.cmd("attach 4")
check(out.startswith("ok ") and '"capacity":16' in out, "attach: " + out)
total_ok = 0
for burst in range(20):
    pushed, dropped = rc.counters("push 5000 0")
pushed, dropped = rc.counters()
check(pushed == 100000, "100000 pushes attempted")
check(dropped > 0, "a 16-record ring overflowed (%d dropped)" % dropped)
data = settled(pushed - dropped)
check(data and data.get("requests.count") == pushed - dropped,
      "COUNT agrees with SUM")
inf = wait_for(lambda: (lambda i: i["dropped"] - base["dropped"] == dropped
                        and i)(info()), "Info.dropped to catch up")
if inf:
    check(inf["applied"] - base["applied"] == pushed - dropped,
          "pushed = applied + dropped: %d = %d + %d" % (
              pushed, inf["applied"] - base["applied"], dropped))
    check(inf["rings"] == base["rings"] + 1, "one ring attached")
    check(inf["drain_passes"] > base["drain_passes"], "drain passes counted")

# A big ring: no drops.
rc2 = RingClient(d.sock)
rc2.cmd("connect")
rc2.cmd("handle app 0 req")
check(rc2.cmd("attach 16").startswith("ok"), "a 2^16 ring")
p2, d2 = rc2.counters("push 50000 0")
check(d2 == 0, "no drops in a ring that holds them all")
settled(pushed - dropped + p2)

# (X, Y) updates and latency statistics.
rc2.counters("pushxy 10 1 250 3")
data = wait_for(lambda: read_data(d).get("latency.sum") == 7500 and
                read_data(d), "latency.sum == 250*3*10")
check(data and data.get("latency.max") == 250 and
      data.get("latency.min") == 250, "MIN and MAX of (X, Y) updates")

# Bad records are rejected and counted, good ones still apply.
b0 = info()["rejected"]
rc2.counters("pushbad 123")
wait_for(lambda: info()["rejected"] - b0 == 123, "123 rejected records")
rc2.counters("push 1 9")
wait_for(lambda: info()["rejected"] - b0 == 124,
         "a record for a VOI the kstat lacks is rejected")

# Three producers at once on one kstat.
before = read_data(d)["requests.sum"]
clients = [RingClient(d.sock) for _ in range(3)]
for cl in clients:
    cl.cmd("connect")
    cl.cmd("handle app 0 req")
    cl.cmd("attach 12")
for cl in clients:
    cl.proc.stdin.write("push 20000 0\n")
    cl.proc.stdin.flush()
sums = []
for cl in clients:
    line = cl.proc.stdout.readline()
    p, dr = [int(x.split("=")[1]) for x in line.split()[1:]]
    sums.append(p - dr)
settled(before + sum(sums))

# statsd's own kstat agrees with Info (after a tick).
def self_ok():
    i = info()
    s = read_data(d, "statsd", 0, "daemon")
    return (s.get("applied") == i["applied"] and
            s.get("rejected") == i["rejected"] and
            s.get("dropped") == i["dropped"] and s.get("rings") == i["rings"]
            and s)
s = wait_for(self_ok, "statsd:0:daemon to agree with Info")
check(s and s.get("uptime_ns", 0) > 0 and s.get("kstats", 0) >= 2,
      "statsd:0:daemon carries uptime and kstats")

# A producer that dies right after pushing: what it pushed still counts.
before = read_data(d)["requests.sum"]
rc3 = RingClient(d.sock)
rc3.cmd("connect")
rc3.cmd("handle app 0 req")
rc3.cmd("attach 14")
p3, d3 = rc3.counters("push 30000 0")
rc3.proc.send_signal(signal.SIGKILL)
rc3.proc.wait()
settled(before + p3 - d3)

# Closing a ring frees it once drained.
n_rings = info()["rings"]
check(rc2.cmd("close") == "ok", "close the ring")
wait_for(lambda: info()["rings"] == n_rings - 1, "a closed ring to be freed")

# Limits and bad requests. Root is held to the total only (the per-user
# limits are tested as an unprivileged user in test_abuse_rings.py).
c = d.conn()
fds = []
for i in range(12):
    r = c.call("io.statsd.RingAttach", {"capacity_log2": 4})
    fds += c.take_fds()
    if "error" in r:
        break
expect_error(r, "io.statsd.LimitReached", "max_rings",
             limit="max_rings", value=10)
for fd in fds:
    os.close(fd)
c.close()
expect_error(d.call("io.statsd.RingAttach", {"capacity_log2": 20}),
             "io.statsd.InvalidValue", "a ring past ring_max_capacity_log2",
             parameter="capacity_log2")
expect_error(d.call("io.statsd.RingAttach", {"capacity_log2": 30}),
             "org.varlink.service.InvalidParameter", "capacity_log2 > 24",
             parameter="capacity_log2")
expect_error(d.call("io.statsd.RingAttach", {"adopt": True}),
             "io.statsd.InvalidValue", "adopt without descriptors",
             parameter="adopt")
tmpf = tempfile.TemporaryFile()
tmpf.truncate(1 << 16)
r, w = os.pipe()
c = d.conn()
expect_error(c.call("io.statsd.RingAttach", {"adopt": True},
                    fds=[tmpf.fileno(), r]),
             "io.statsd.InvalidValue", "adopt of a plain file",
             parameter="adopt")
memfd = os.memfd_create("fake", os.MFD_ALLOW_SEALING)
os.ftruncate(memfd, 4096)
import fcntl  # noqa: E402
fcntl.fcntl(memfd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW)
expect_error(c.call("io.statsd.RingAttach", {"adopt": True},
                    fds=[memfd, r]),
             "io.statsd.InvalidValue", "adopt with a pipe for the eventfd",
             parameter="adopt")
efd = os.eventfd(0)
expect_error(c.call("io.statsd.RingAttach", {"adopt": True},
                    fds=[memfd, efd]),
             "io.statsd.InvalidValue", "adopt of a memfd with no ring in it",
             parameter="adopt")
for fd in (r, w, memfd, efd):
    os.close(fd)
tmpf.close()
c.close()
check(d.alive(), "statsd answers after bad adoptions")

# Segments: read-only descriptors with the store's magic.
c = d.conn()
sa = ok(c.call("io.statsd.SegmentAttach", {}), "SegmentAttach")
sfds = c.take_fds()
check(len(sfds) == 3 and [(g["name"], g["fd"]) for g in sa["segments"]] ==
      [("all", 0), ("public", 1), ("private", 2)],
      "root gets every zone's, the global zone's and the private segment: "
      "%s" % sa)
for fd in sfds:
    size = os.fstat(fd).st_size
    m = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ)
    check(m[:8] == b"STDSTOR1", "the segment starts with its magic")
    m.close()
    try:
        mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        check(False, "a segment descriptor maps writable")
    except (PermissionError, OSError):
        check(True, "")
    check(os.fstat(fd).st_mode & 0o777 == 0o400, "the segment is mode 0400")
    os.close(fd)
c.close()

for cl in [rc, rc2] + clients:
    cl.quit()
d.stop()
d.cleanup()
finish()
