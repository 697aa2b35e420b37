"""test_units.py: the systemd files. `systemd-analyze verify` is clean on
statsd.socket and statsd.service (built with ExecStart in the build
tree); the service's sandbox scores at most 2.0 in `systemd-analyze
security --offline=yes`; the sysusers.d and tmpfiles.d snippets apply to
a scratch root."""
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
svc = os.path.join(tmp, "statsd.service")
sockunit = os.path.join(tmp, "statsd.socket")

p = harness.run([ANALYZE, "verify", "--man=no", "--recursive-errors=no",
                    sockunit, svc], capture_output=True, text=True, cwd=tmp)
check(p.returncode == 0, "systemd-analyze verify exits 0: %s" % p.stderr)
ours = [line for line in p.stderr.splitlines() if "statsd" in line]
check(ours == [], "verify says nothing about statsd's units: %s" % ours)

p = harness.run([ANALYZE, "security", "--offline=yes", "--threshold=20",
                    svc], capture_output=True, text=True, cwd=tmp)
m = re.search(r"Overall exposure level for statsd.service: ([0-9.]+)",
              p.stdout)
check(m is not None, "security prints an exposure level")
if m:
    check(float(m.group(1)) <= 2.0, "exposure %s <= 2.0" % m.group(1))
check(p.returncode == 0, "security --threshold=20 passes")

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
