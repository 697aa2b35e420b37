# SPDX-License-Identifier: BSD-2-Clause
"""test_pointers.py: the pointers a producer holds to its published blobs
(stats_blob_publish) keep showing live data across restarts of statsd,
killed with SIGKILL and stopped cleanly.

The library shows each store segment in place, a blob at offset o of the
segment at a fixed address base + o of the process. A restarted statsd
starts from an empty segment, so the library asks it, when it makes each
kstat again, for the offset the blob had (KstatCreateMany's at_segment
and at_offset). The first statsd here had another kstat before the
producer's blobs, which the restarted one never gets back, and the
producer unpublished a few blobs before the restart: laid out anew from
the start of the arena, every blob would move by a part of a page and
the producer's pointers would show the data of before the restart. Every
fourth blob published one by one is PERSISTENT: statsd restores it from
its checkpoint, before the producer is back, at the offset the record
keeps, and the producer joins it. Then another process's kstats (of the
kstat API, made after the blobs) come back before the publishing process
does: libstatsclient asks for every kstat's old offset, so they take no
published blob's place."""
import os
import signal
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
import harness  # noqa: E402
from harness import (DEADLINE, Daemon, check, finish, ok,  # noqa: E402
                     read_data)

CLIENT_IT = os.environ.get("CLIENT_IT", "client_it")
N = 240

# One 64-byte blob: whatever comes after it in the arena is a part of a
# page away from the arena's start.
TPL_TINY = {"name": "tiny", "vois": [
    {"id": 0, "name": "n", "dtype": "INT_U64", "stats": [{"kind": "SUM"}]},
]}

d = Daemon().start()
c = d.conn()
spec = ok(c.call("io.statsd.TemplateAdd", TPL_TINY), "TemplateAdd")[
    "template"]["spec"]
k = ok(c.call("io.statsd.KstatCreate", {"module": "other", "instance": 0,
                                         "name": "first", "template": spec}),
       "KstatCreate other:0:first")["kstat"]
c.close()

p = harness.spawn([CLIENT_IT, "pointers", d.sock, str(N), "2"],
                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                  bufsize=1)
out = []


def wait_ready():
    """Lines of the producer up to its next "ready"."""
    while True:
        line = p.stdout.readline()
        if line == "":
            return False
        out.append(line)
        if line.strip() == "ready":
            return True


for how in ("SIGKILL", "SIGTERM"):
    check(wait_ready(), "producer ready before the %s restart:\n%s" % (
        how, "".join(out)[-3000:]))
    if how == "SIGKILL":
        d.kill9()
    else:
        d.stop()
    d.start()
    p.stdin.write("go\n")
    p.stdin.flush()
rest, _ = p.communicate(timeout=DEADLINE * 8)
out.append(rest)
text = "".join(out)
check(p.returncode == 0, "client_it pointers exited %d:\n%s" % (
    p.returncode, text[-3000:]))
wrong = [line for line in text.splitlines() if line.startswith("wrong=")]
check(wrong == ["wrong=0", "wrong=0"],
      "every pointer shows live data after kill -9 and after a clean "
      "restart: %s" % wrong)
check("pointers=%d" % N in text, "the producer ran to its end")

# statsd agrees with what the pointers showed: the counters pushed
# after the second restart ((i + 1) * 3), and for a PERSISTENT blob
# (p1, p9) all that was pushed ((i + 1) * (1 + 2 + 3)).
for i, want in ((0, 3), (1, 12), (9, 60), (N - 1, N * 3)):
    got = read_data(d, module="ptr", instance=0, name="p%d" % i).get(
        "n.sum")
    check(got == want, "statsd's ptr:0:p%d n.sum %s == %d" % (i, got, want))

d.stop()
d.cleanup()

# Another process's kstats come back first: a producer of kstats of the
# kstat API, made after the published blobs, reconnects to the restarted
# statsd while the publishing one is held (SIGSTOP). Laid out anew from
# the start of the arena, its kstats would take the published blobs'
# places; made again where they were, they leave them free.
d = Daemon().start()
pub = harness.spawn([CLIENT_IT, "pointers", d.sock, str(N), "1"],
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                    bufsize=1)
p = pub
out = []
check(wait_ready(), "producer ready:\n%s" % "".join(out)[-3000:])
kw = harness.spawn([CLIENT_IT, "kwait", d.sock, "60"],
                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                   bufsize=1)
check(kw.stdout.readline().strip() == "ready", "kstat producer ready")
os.kill(pub.pid, signal.SIGSTOP)
d.kill9()
d.start()
kw.stdin.write("go\n")
kw.stdin.flush()
check(kw.stdout.readline().strip() == "back",
      "the kstat producer is back first")
os.kill(pub.pid, signal.SIGCONT)
pub.stdin.write("go\n")
pub.stdin.flush()
rest, _ = pub.communicate(timeout=DEADLINE * 8)
out.append(rest)
text = "".join(out)
check(pub.returncode == 0 and "wrong=0" in text.splitlines(),
      "every pointer shows live data after another process's kstats came "
      "back first:\n%s" % text[-3000:])
kw.stdin.close()
kw.wait(timeout=DEADLINE)
check(kw.returncode == 0, "the kstat producer exited %s" % kw.returncode)
d.stop()
d.cleanup()
finish()
