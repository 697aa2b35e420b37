# SPDX-License-Identifier: BSD-2-Clause
"""test_units.py: the systemd files. `systemd-analyze verify` is clean on
statsd.socket, statsd-http.socket (loopback, handed to statsd.service)
and statsd.service (built with ExecStart in the build
tree); the service's sandbox scores at most 2.0 in `systemd-analyze
security --offline=yes`; the sysusers.d and tmpfiles.d snippets apply to
a scratch root.

statsd runs with no capability: zones (zones = cgroup) need none, and
CAP_SYS_PTRACE, which the namespace modes need, is ptrace access to every
process's memory. The unit grants no capability, and scores no worse than
the same unit with CAP_SYS_PTRACE granted (and /proc hidden, as it was
then), on whatever systemd-analyze this host has."""
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import SRCDIR, check, finish  # noqa: E402

ANALYZE = shutil.which("systemd-analyze")
UNITS = os.environ.get("STATSD_UNITS", "")
if ANALYZE is None or not UNITS:
    print("systemd-analyze or STATSD_UNITS missing; skipped")
    sys.exit(77)

tmp = tempfile.mkdtemp(prefix="statsd-units-")
shutil.copy(os.path.join(UNITS, "statsd.service.test"),
            os.path.join(tmp, "statsd.service"))
shutil.copy(os.path.join(SRCDIR, "systemd", "statsd.socket"), tmp)
shutil.copy(os.path.join(SRCDIR, "systemd", "statsd-http.socket"), tmp)
svc = os.path.join(tmp, "statsd.service")
sockunit = os.path.join(tmp, "statsd.socket")
httpunit = os.path.join(tmp, "statsd-http.socket")

p = harness.run([ANALYZE, "verify", "--man=no", "--recursive-errors=no",
                    sockunit, httpunit, svc], capture_output=True, text=True,
                cwd=tmp)
check(p.returncode == 0, "systemd-analyze verify exits 0: %s" % p.stderr)
ours = [line for line in p.stderr.splitlines() if "statsd" in line]
check(ours == [], "verify says nothing about statsd's units: %s" % ours)



def exposure(unit):
    """systemd-analyze security's exposure of unit, and its output."""
    p = harness.run([ANALYZE, "security", "--offline=yes", "--threshold=20",
                     unit], capture_output=True, text=True, cwd=tmp)
    m = re.search(r"Overall exposure level for [^:]*: ([0-9.]+)", p.stdout)
    check(m is not None, "security prints an exposure level for %s" % unit)
    check(p.returncode == 0, "security --threshold=20 passes for %s" % unit)
    return (float(m.group(1)) if m else 99.0), p.stdout


with open(httpunit) as f:
    http_unit = f.read()
check(re.search(r"^ListenStream=127\.0\.0\.1:18125$", http_unit, re.M) and
      "Service=statsd.service" in http_unit and
      "FileDescriptorName=http" in http_unit,
      "statsd-http.socket listens on loopback and hands the socket over")

score, out = exposure(svc)
check(score <= 2.0, "exposure %s <= 2.0" % score)

# No capability, CAP_SYS_PTRACE least of all.
with open(svc) as f:
    unit = f.read()
settings = dict(line.split("=", 1) for line in unit.splitlines()
                if "=" in line and not line.startswith("#"))
check(all("CAP_SYS_PTRACE" not in line for line in unit.splitlines()
          if not line.lstrip().startswith("#")),
      "the unit grants no CAP_SYS_PTRACE")
check(settings.get("CapabilityBoundingSet") == "",
      "the bounding set is empty: %r" % settings.get("CapabilityBoundingSet"))
check("AmbientCapabilities" not in settings, "no ambient capability")
check(re.search(r"✓ CapabilityBoundingSet=~CAP_SYS_PTRACE", out) is not None,
      "systemd-analyze finds no ptrace ability")
# zones = cgroup reads other users' /proc/<pid>/cgroup: /proc is not
# hidden from statsd.
check(settings.get("ProtectProc", "default") == "default",
      "ProtectProc lets statsd see /proc/<pid>/cgroup: %r"
      % settings.get("ProtectProc"))
# At least as good as the unit that granted CAP_SYS_PTRACE.
old = os.path.join(tmp, "statsd-ptrace.service")
then = (unit.replace("CapabilityBoundingSet=\n",
                     "CapabilityBoundingSet=CAP_SYS_PTRACE\n"
                     "AmbientCapabilities=CAP_SYS_PTRACE\n")
        .replace("ProtectProc=default", "ProtectProc=invisible"))
check(then.count("CAP_SYS_PTRACE\n") == 2 and "ProtectProc=invisible" in then,
      "the unit as it was, with CAP_SYS_PTRACE")
with open(old, "w") as f:
    f.write(then)
old_score, _ = exposure(old)
check(score <= old_score, "exposure %s is no worse than %s with "
      "CAP_SYS_PTRACE" % (score, old_score))

root = os.path.join(tmp, "root")
os.makedirs(os.path.join(root, "etc"))
p = harness.run(["systemd-sysusers", "--root=" + root,
                    os.path.join(SRCDIR, "systemd", "statsd.sysusers")],
                   capture_output=True, text=True)
check(p.returncode == 0, "sysusers applies: " + p.stderr)
with open(os.path.join(root, "etc", "passwd")) as f:
    check("_statsd:" in f.read(), "the _statsd user")
with open(os.path.join(root, "etc", "group")) as f:
    check("statsd-admin:" in f.read(), "the statsd-admin group")
p = harness.run(["systemd-tmpfiles", "--create", "--root=" + root,
                    os.path.join(SRCDIR, "systemd", "statsd.tmpfiles")],
                   capture_output=True, text=True)
check(p.returncode == 0, "tmpfiles applies: " + p.stderr)
check(os.path.isdir(os.path.join(root, "run", "statsd")) and
      os.path.isdir(os.path.join(root, "var", "lib", "statsd")),
      "tmpfiles makes the directories")
check(os.stat(os.path.join(root, "var", "lib", "statsd")).st_mode & 0o777
      == 0o750, "the state directory is 0750")
shutil.rmtree(tmp)
finish()
