# SPDX-License-Identifier: BSD-2-Clause
"""test_linux_grow.py: the Linux statistics page's programming model
through libstatsclient. "Call statistic_create_interface() in order to
create an interface where several statistics for the concerned entity can
be attached next by calling statistic_create()"; "in order to remove
statistics call statistic_remove()". client_it's grow mode attaches and
removes statistics of an interface statsd already holds data for; between
its steps the interface's data lines are read here: every statistic not
created or removed keeps its lines exactly, and goes on counting from
them. A definition statsd refuses before it has the interface leaves no
interface behind."""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
import harness  # noqa: E402
from harness import DEADLINE, Daemon, check, finish, ok  # noqa: E402

CLIENT_IT = os.environ.get("CLIENT_IT", "client_it")
WR = "request_sizes_scsi_write"
LAT = "latencies_scsi_write"
PEND = "pending_scsi_write"
ERP = "occurrence_erp"


def lines(d):
    """The interface's data lines, by statistic name."""
    sc = ok(d.call("io.statsd.Scrape", {"format": "linux",
                                        "selector": "linux:0:it-grow"}),
            "Scrape linux")
    out = {}
    for ln in sc.get("text", "").splitlines():
        if ln.strip():
            out.setdefault(ln.split()[0], []).append(ln)
    return out


def definitions(d):
    return ok(d.call("io.statsd.DefinitionGet", {
        "module": "linux", "instance": 0, "name": "it-grow"}),
        "DefinitionGet").get("text", "")


def step(p, n):
    """Wait for client_it's step n; returns False if it ended instead."""
    for ln in p.stdout:
        if ln.strip() == "step %d" % n:
            return True
        if ln.startswith("FAIL"):
            check(False, "client_it: " + ln.strip())
    check(False, "client_it ended before step %d" % n)
    return False


def go_on(p):
    p.stdin.write("\n")
    p.stdin.flush()


d = Daemon().start()
p = harness.spawn([CLIENT_IT, "grow", d.sock], stdin=subprocess.PIPE,
                  stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                  text=True, bufsize=1)

if step(p, 1):
    s1 = lines(d)
    check(s1.get(WR) == ["%s 0x1000 14" % WR, "%s 0x2000 13" % WR,
                         "%s 0x3000 13" % WR],
          "step 1: the list of request sizes: %s" % s1.get(WR))
    check(LAT in s1 and any(ln.endswith(" 5") for ln in s1[LAT]),
          "step 1: the latency histogram, attached live, counts: %s"
          % s1.get(LAT))
    go_on(p)

if step(p, 2):
    s2 = lines(d)
    check(s2.get(WR) == s1.get(WR) and s2.get(LAT) == s1.get(LAT),
          "step 2: a statistic attached, the others' lines unchanged:\n"
          "%s\n%s" % (s1, s2))
    check(s2.get(PEND) == ["%s 10 0 4.500 9" % PEND],
          "step 2: the new range statistic: %s" % s2.get(PEND))
    df = definitions(d)
    check(re.search(r"name=%s on=1 type=list range_min=0 "
                    r"range_max=1048576 entries_max=16" % WR, df)
          is not None and
          re.search(r"name=%s on=1 type=array .*scale=log2" % LAT, df)
          is not None,
          "step 2: the first statistics keep their definitions:\n" + df)
    go_on(p)

if step(p, 3):
    s3 = lines(d)
    check(s3.get(WR) == ["%s 0x1000 34" % WR, "%s 0x2000 13" % WR,
                         "%s 0x3000 13" % WR],
          "step 3: the list went on from its old counts: %s" % s3.get(WR))
    check(s3.get(LAT) == s1.get(LAT) and s3.get(PEND) == s2.get(PEND),
          "step 3: the others unchanged")
    go_on(p)

if step(p, 4):
    s4 = lines(d)
    check(LAT not in s4, "step 4: the removed statistic is gone: %s" % s4)
    check(s4.get(WR) == s3.get(WR) and s4.get(PEND) == s3.get(PEND),
          "step 4: a statistic removed, the others' lines unchanged:\n"
          "%s\n%s" % (s3, s4))
    go_on(p)

if step(p, 5):
    s5 = lines(d)
    check(s5.get(ERP) == ["%s 5" % ERP], "step 5: a value statistic "
          "attached, started and fed: %s" % s5.get(ERP))
    check(s5.get(LAT) == ["%s 0" % LAT], "step 5: a name removed comes "
          "back as a new statistic, from zero: %s" % s5.get(LAT))
    check(s5.get(WR) == s4.get(WR) and s5.get(PEND) == s4.get(PEND),
          "step 5: the others unchanged")
    go_on(p)

try:
    out, err = p.communicate(timeout=DEADLINE)
except subprocess.TimeoutExpired:
    p.kill()
    out, err = p.communicate()
check(p.returncode == 0 and "grow done" in out,
      "client_it grow exited %s:\n%s%s" % (p.returncode, out[-2000:],
                                           err[-2000:]))
check("Sanitizer" not in err and "runtime error" not in err,
      "client_it grow: sanitizer report:\n%s" % err[-3000:])

# A definition statsd refuses, on an interface it does not have yet: the
# interface's kstat is made with its definitions in one call, all or
# none, so nothing is left behind; the next definition makes it, without
# the refused one.
p = harness.spawn([CLIENT_IT, "statrefused", d.sock], stdin=subprocess.PIPE,
                  stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                  text=True, bufsize=1)


def refused_kstat():
    return ok(d.call("io.statsd.Lookup", {
        "module": "linux", "instance": 0, "name": "it-refused"}),
        "Lookup it-refused")["kstats"]


if step(p, 1):
    check(refused_kstat() == [], "step 1: a refused definition leaves no "
          "interface behind: %s" % refused_kstat())
    go_on(p)
if step(p, 2):
    df = ok(d.call("io.statsd.DefinitionGet", {
        "module": "linux", "instance": 0, "name": "it-refused"}),
        "DefinitionGet it-refused").get("text", "")
    check("name=fine on=0 type=range range_min=0 range_max=10" in df and
          "name=big on=1 type=value" in df and "entries_max" not in df,
          "step 2: the interface, without the refused definition: %r" % df)
    go_on(p)
try:
    out, err = p.communicate(timeout=DEADLINE)
except subprocess.TimeoutExpired:
    p.kill()
    out, err = p.communicate()
check(p.returncode == 0 and "statrefused done" in out,
      "client_it statrefused exited %s:\n%s%s" % (p.returncode, out[-2000:],
                                                  err[-2000:]))
check("Sanitizer" not in err and "runtime error" not in err,
      "client_it statrefused: sanitizer report:\n%s" % err[-3000:])
d.stop()
finish()
