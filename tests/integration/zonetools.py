# SPDX-License-Identifier: BSD-2-Clause
"""zonetools.py: containers for the integration tests, the Linux way: a
cgroup subtree on the cgroup2 mount whose cgroups statsd's zone_cgroups
names as containers (CgroupTree), and a client run inside one
(ZonePeer, over zone_peer.py). CgroupTree raises ZonesUnavailable where
cgroups cannot be made or joined here (not root, no cgroup2 mount)."""
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import harness  # noqa: E402
from harness import DEADLINE, check  # noqa: E402

PEER = os.path.join(HERE, "zone_peer.py")
PY = "/usr/bin/python3"


class ZonesUnavailable(Exception):
    """Containers cannot be made here: why."""


class CgroupTree:
    """A cgroup subtree of the test's on the cgroup2 mount. path(rel) is
    a cgroup's directory, name(rel) its path as /proc/<pid>/cgroup shows
    it, join(rel) an argv prefix that moves the process there before it
    execs the rest. Removed at cleanup, whatever happens: the processes
    left in it killed (cgroup.kill) and waited for first."""

    def __init__(self, rels):
        self.root = None
        self.dirs = []
        mnt = None
        with open("/proc/self/mountinfo") as f:
            for line in f:
                if " - cgroup2 " in line:
                    mnt = line.split()[4]
                    break
        if mnt is None:
            raise ZonesUnavailable("no cgroup2 mount here; cgroup zones "
                                   "are not tested")
        self.root = os.path.join(mnt, "statsd-it-cg-%d" % os.getpid())
        try:
            os.mkdir(self.root)
        except OSError as e:
            self.root = None
            raise ZonesUnavailable("cannot make a cgroup under %s (%s); "
                                   "cgroup zones are not tested" % (mnt, e))
        harness.on_cleanup(self)
        self.dirs.append(self.root)
        for rel in rels:
            os.mkdir(self.path(rel))
            self.dirs.append(self.path(rel))
        # The tree's name as a process in it reads it: the proof that a
        # process can be moved in, and what zone_cgroups must say.
        p = harness.run(self.join("") + ["cat", "/proc/self/cgroup"],
                        capture_output=True, text=True)
        lines = [ln[3:] for ln in p.stdout.splitlines()
                 if ln.startswith("0::")]
        if p.returncode != 0 or len(lines) != 1:
            raise ZonesUnavailable("cannot move a process into %s: %s" % (
                self.root, p.stderr.strip()))
        self.rootname = lines[0]

    def path(self, rel):
        return os.path.join(self.root, rel) if rel else self.root

    def name(self, rel):
        return self.rootname + ("/" + rel if rel else "")

    def join(self, rel):
        return ["/bin/sh", "-c", 'echo 0 > "$0" && exec "$@"',
                os.path.join(self.path(rel), "cgroup.procs")]

    def cleanup(self):
        for d in reversed(self.dirs):
            try:
                if os.path.exists(os.path.join(d, "cgroup.kill")):
                    with open(os.path.join(d, "cgroup.kill"), "w") as f:
                        f.write("1")
                end = time.monotonic() + DEADLINE
                while time.monotonic() < end:
                    with open(os.path.join(d, "cgroup.procs")) as f:
                        if not f.read().strip():
                            break
                    time.sleep(0.02)
                os.rmdir(d)
            except OSError as e:
                print("cleanup: cgroup %s: %s" % (d, e), file=sys.stderr,
                      flush=True)
        self.dirs = []


class ZonePeer:
    """zone_peer.py in a zone (prefix: the unshare or nsenter command that
    makes or joins a namespace, or the wrapper that moves it into a
    cgroup)."""

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
        return self._line("scan")

    def pid(self):
        """Its pid in the host's view: the child unshare forked."""
        with open("/proc/%d/task/%d/children" % (self.proc.pid,
                                                  self.proc.pid)) as f:
            kids = f.read().split()
        return int(kids[0]) if kids else self.proc.pid

    def quit(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=DEADLINE)
