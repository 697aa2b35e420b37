# SPDX-License-Identifier: BSD-2-Clause
"""test_cleanup.py: no integration test leaves a process behind. Runs a
real test (test_rings.py: a daemon and ring clients) made to fail on
purpose in each way a test can fail: a failed check, an exception, a
SIGTERM (what meson sends on a time-out) and a SIGKILL. Afterwards no
process of it remains and, but for SIGKILL, its directories are gone."""
import os
import shutil
import signal
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import check, finish, wait_for  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CHILD = os.path.join(HERE, "test_rings.py")


def processes_under(base):
    """Pids of processes whose command line or working directory names
    base."""
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode("utf-8", "replace")
            cwd = os.readlink("/proc/%s/cwd" % pid)
        except OSError:
            continue
        if base in cmd or cwd.startswith(base):
            out.append((int(pid), cmd))
    return out


WANT_RC = {"check": 1, "raise": 1, "term": 128 + signal.SIGTERM,
           "kill": -signal.SIGKILL}
for how, want in WANT_RC.items():
    base = tempfile.mkdtemp(prefix="statsd-cleanup-")
    env = dict(os.environ, STATSD_TEST_FAIL_ON_PURPOSE=how,
               STATSD_TEST_TMPDIR=base)
    p = harness.run([sys.executable, CHILD], env=env, capture_output=True,
                    text=True, timeout=harness.DEADLINE * 4)
    check(p.returncode == want, "%s: the test fails with status %s (got %s)"
          "\n%s%s" % (how, want, p.returncode, p.stdout[-2000:],
                      p.stderr[-2000:]))
    if how == "check":
        check("FAIL: failing on purpose" in p.stdout,
              "check: the deliberate failure is reported")
    left = wait_for(lambda: not processes_under(base),
                    "%s: every process of the failed test to end" % how)
    check(left is not None, "%s: processes left behind: %s"
          % (how, processes_under(base)))
    for pid, _ in processes_under(base):
        os.kill(pid, signal.SIGKILL)
    if how != "kill":
        check(os.listdir(base) == [], "%s: its directories are removed: %s"
              % (how, os.listdir(base)))
    shutil.rmtree(base, ignore_errors=True)
finish()
