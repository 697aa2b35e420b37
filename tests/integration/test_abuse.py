# SPDX-License-Identifier: BSD-2-Clause
"""test_abuse.py: what an unprivileged local user can do to statsd, as
uid 65534 (and a few other system users) through setpriv — one regression
test per attack that once hung, bloated, crashed or fooled the daemon.
Each test names the attack it guards against. The ring attacks are in
test_abuse_rings.py.

Every check is of exactness or a bound (a quota, a count), never of a
time."""
import json
import mmap
import os
import pwd
import re
import resource
import signal
import socket
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import (SETPRIV, TPL_APP, Daemon, RingClient,  # noqa: E402
                     as_user, check, expect_error, finish, free_port, ok,
                     read_data, spawn, wait_for)

HERE = os.path.dirname(os.path.abspath(__file__))
if os.getuid() != 0 or SETPRIV is None:
    print("needs root and setpriv; skipped")
    sys.exit(77)
NOBODY = pwd.getpwnam("nobody").pw_uid
# Other users the crowd attacks are run as.
CROWD = [pwd.getpwnam(n).pw_uid for n in ("daemon", "bin", "sys", "games")]


class Hostile:
    """abuse_client.py run as uid: one JSON command in, one JSON line
    out."""

    def __init__(self, d, uid=NOBODY):
        harness.stage(os.path.join(HERE, "harness.py"))
        pw = pwd.getpwuid(uid)
        self.proc = spawn(as_user(["/usr/bin/python3",
                                   os.path.join(HERE, "abuse_client.py"),
                                   d.sock], uid=uid, regid=pw.pw_gid),
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          text=True, bufsize=1)

    def cmd(self, **kw):
        self.proc.stdin.write(json.dumps(kw) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        check(line != "", "abuse_client answers %s" % kw.get("op"))
        return json.loads(line) if line else {}

    def calls(self, calls):
        return self.cmd(op="calls", calls=calls).get("replies", [])

    def quit(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=harness.DEADLINE)


def daemon(config=""):
    d = Daemon(config=config).start()
    os.chmod(d.run, 0o755)
    return d


def quotas(d):
    return ok(d.call("io.statsd.Info", {}), "Info as root", False)["quotas"]


def user_usage(d, uid):
    for u in quotas(d)["users"]:
        if u["uid"] == uid:
            return u
    return {}


def refusal_lines(d):
    return [ln for ln in d.stderr().splitlines() if " refused " in ln]


# ------------------------------------------------------------------ row 11
def test_row11_connections_reserve_root():
    """Row 11: 20 uids x 64 connections left no room for root, and each
    refusal was logged. Now unprivileged users together get
    max_connections less quota_reserve_percent, each user at most
    max_connections_per_uid; root gets in; refusals are logged a few
    lines per period."""
    d = daemon("max_connections = 40\nmax_connections_per_uid = 8\n"
               "quota_reserve_percent = 10\n")
    crowd = [Hostile(d, NOBODY)] + [Hostile(d, u) for u in CROWD]
    t0 = time.monotonic()       # before the first refusal
    r = crowd[0].cmd(op="connect", n=9)
    check(r.get("ok") == 8, "nobody holds max_connections_per_uid: %s" % r)
    if check(r.get("errors"), "nobody's ninth connection is refused"):
        e = r["errors"][0]
        check(e.get("error") == "io.statsd.TooManyConnections" and
              e.get("parameters", {}).get("limit") == 8,
              "refused by max_connections_per_uid (8): %s" % e)
    held = 8
    for h in crowd[1:]:
        r = h.cmd(op="connect", n=8)
        held += r.get("ok", 0)
    check(held == 36, "unprivileged users together hold 90%% of "
          "max_connections: %d" % held)
    r = crowd[-1].cmd(op="connect", n=1)
    check(r.get("errors") and r["errors"][0].get("parameters", {}).get(
        "limit") == 36, "past the unreserved part: limit 36: %s" % r)
    # A flood of refused connects costs a few log lines, not one each.
    crowd[0].cmd(op="connect", n=200)
    conns = [d.conn() for _ in range(3)]
    for c in conns:
        ok(c.call("io.statsd.Hello", {}), "root connects past the crowd")
    q = quotas(d)
    check(q["total"]["connections"]["used"] == 40,
          "every connection counted: %s" % q["total"]["connections"])
    lines = refusal_lines(d)
    # statsd logs at most 5 refusal lines per 10 s: the refusals above
    # take well under 10 s, but a loaded machine may spread them over
    # more periods, each with its 5 lines; hundreds of lines would still
    # fail.
    periods = 1 + int((time.monotonic() - t0) // 10)
    check(0 < len(lines) <= 5 * periods, "refusals logged with a rate "
          "limit: %d lines in %d period(s) of 10 s" % (len(lines), periods))
    check(q["refusals"] >= 205, "every refusal counted: %d" % q["refusals"])
    for c in conns:
        c.close()
    survived(d, "statsd still answers", crowd)


def test_row11_buffered_bytes_bounded():
    """Row 11: 64 connections pipelining large replies and never reading
    held 447 MB. A user's connections together now hold at most
    max_buffered_per_uid of unread calls and unsent replies; a
    connection that would pass it is closed."""
    limit = 4 << 20
    d = daemon("max_connections_per_uid = 64\nmax_output = 1M\n"
               "max_buffered_per_uid = 4M\n")
    c = d.conn()
    spec = ok(c.call("io.statsd.TemplateAdd", TPL_APP), "TemplateAdd")[
        "template"]["spec"]
    for i in range(40):
        ok(c.call("io.statsd.KstatCreate", {"module": "big", "instance": i,
                                            "name": "x", "template": spec}),
           "kstat %d" % i, False)
    c.close()
    h = Hostile(d)
    r = h.cmd(op="pipeline", n=60, calls=400, method="io.statsd.Scrape",
              parameters={"format": "json"})
    # Each call asks for a reply of some 40 KiB: without the quota the
    # connections would hold max_output / 4 each, 15 MiB together. statsd
    # reads a connection's calls only as it answers them, and stops once
    # the user's connections hold half of max_buffered_per_uid, so the
    # attacker's own socket buffers hold most of what it tries to send.
    check(r.get("sent", 0) > 60 * 50 * 60, "the attacker sent %d bytes "
          "of calls" % r.get("sent", 0))
    peak = [0]

    def pressed():
        u = user_usage(d, NOBODY).get("buffered_bytes", 0)
        peak[0] = max(peak[0], u)
        check(u <= limit, "nobody holds at most max_buffered_per_uid: %d"
              % u, count=False)
        return quotas(d)["refusals"] > 0 or u >= limit // 2
    wait_for(pressed, "the attack pressing max_buffered_per_uid (half of "
             "it held, or a connection refused)")
    print("nobody held %d buffered bytes at the peak" % peak[0])
    check(peak[0] > 0, "the attack held buffers (peak %d)" % peak[0])
    check(d.alive(), "statsd answers root meanwhile")
    h.quit()
    wait_for(lambda: user_usage(d, NOBODY).get("buffered_bytes", 1) == 0,
             "nobody's buffers given back")
    check(user_usage(d, NOBODY).get("connections") == 0,
          "nobody's connections given back")
    d.stop()
    d.cleanup()


def vm_hwm_kib(d):
    """The daemon's peak resident memory, in KiB."""
    with open("/proc/%d/status" % d.proc.pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


# Opens n connections without a word (statsd may be stopped), says how
# many the kernel took, and holds them until stdin closes.
PENDING = """
import socket, sys
held, n = [], int(sys.argv[2])
for _ in range(n):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.setblocking(False)
    try:
        s.connect(sys.argv[1])
    except OSError:
        s.close()
        break
    held.append(s)
print(len(held), flush=True)
sys.stdin.read()
"""


def test_row11_listen_backlog():
    """Row 11, before any quota: connections statsd has not accepted yet
    wait in the kernel's listen queue, which every user shares. statsd
    listened with a queue of 128, so a user's connect flood while statsd
    was busy made root's connect fail with EAGAIN. The queue is now as
    long as the system allows (somaxconn, as under systemd's socket
    units): 600 pending connections of nobody's leave root room, and
    once statsd runs again nobody gets max_connections_per_uid of them
    and root is answered."""
    with open("/proc/sys/net/core/somaxconn") as f:
        if int(f.read()) < 1024:
            print("SKIP row 11 backlog: somaxconn below 1024")
            return
    d = daemon("max_connections_per_uid = 8\n")
    d.proc.send_signal(signal.SIGSTOP)
    try:
        p = spawn(as_user(["/usr/bin/python3", "-c", PENDING, d.sock,
                           "600"]), stdin=subprocess.PIPE,
                  stdout=subprocess.PIPE, text=True)
        n = int(p.stdout.readline() or 0)
        check(n == 600, "statsd stopped: the kernel queues nobody's 600 "
              "connects: %d" % n)
        root = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        root.setblocking(False)
        try:
            root.connect(d.sock)
            queued = True
        except OSError as e:
            queued = False
            check(False, "root's connect behind the flood: %s" % e)
    finally:
        d.proc.send_signal(signal.SIGCONT)
    if queued:
        root.setblocking(True)
        root.settimeout(harness.DEADLINE)
        root.sendall(json.dumps({"method": "io.statsd.Hello",
                                 "parameters": {}}).encode() + b"\0")
        buf = b""
        while not buf.endswith(b"\0"):
            chunk = root.recv(65536)
            if not chunk:
                break
            buf += chunk
        r = json.loads(buf.rstrip(b"\0") or b"{}")
        check("error" not in r and r.get("parameters", {}).get(
            "privileged") is True, "root answered once statsd runs: %s"
            % json.dumps(r)[:200])
    root.close()
    wait_for(lambda: quotas(d)["refusals"] >= 600 - 8, "nobody's flood "
             "refused past max_connections_per_uid")
    check(user_usage(d, NOBODY).get("connections", 0) <= 8, "nobody holds "
          "at most max_connections_per_uid: %s" % user_usage(d, NOBODY))
    p.stdin.close()
    p.wait(timeout=harness.DEADLINE)
    survived(d, "statsd answers")


# ------------------------------------------------------------- rows 1, 2
def test_row1_backtracking_pattern():
    """Row 1: a backreference made glibc's regexec backtrack for ever on a
    30-character module name: the loop stopped, SIGTERM was ignored.
    Patterns now run on a linear-time engine (a Pike VM) that has no
    backreferences: the pattern is refused by name, and what a
    backtracking engine takes exponential time on is answered."""
    d = daemon()
    h = Hostile(d)
    spec = ok(h.calls([("io.statsd.TemplateAdd", TPL_APP)])[0],
              "TemplateAdd as nobody")["template"]["spec"]
    ok(h.calls([("io.statsd.KstatCreate", {
        "module": "a" * 30, "instance": 0, "name": "x",
        "template": spec})])[0], "a kstat whose module is 30 a's")
    r = h.calls([("io.statsd.Lookup", {"module": "/^(a|a)*\\1*$/"})])[0]
    if expect_error(r, "io.statsd.InvalidValue", "Lookup with a "
                    "backreference", parameter="module"):
        check("backreferences are not supported" in r["parameters"][
            "reason"], "refused as such: %s" % r["parameters"])
    good = ["/^(a|aa)*b$/", "/^(a|a)*$/", "/^(a*)*$/", "/(a+)+b/",
            "/^((a|a){1,15}){1,15}$/"]
    rep = h.calls([("io.statsd.Lookup", {"module": p}) for p in good])
    want = {"/^(a|aa)*b$/": 0, "/^(a|a)*$/": 1, "/^(a*)*$/": 1,
            "/(a+)+b/": 0, "/^((a|a){1,15}){1,15}$/": 1}
    for p, r in zip(good, rep):
        n = len([k for k in ok(r, "Lookup " + p).get("kstats", [])
                 if k["module"] == "a" * 30])
        check(n == want[p], "%s matches %d kstat(s) of 30 a's: %d"
              % (p, want[p], n))
    # The same through Scrape's selector and statsctl's operand syntax.
    r = h.calls([("io.statsd.Scrape", {"selector": "/^(a|a)*\\1*$/:0"})])
    expect_error(r[0], "io.statsd.InvalidValue", "a backreference in a "
                 "Scrape selector", parameter="selector")
    survived(d, "statsd answers everyone", [h])


def test_row2_pattern_compile_size():
    """Row 2: a 23-byte pattern, (a{1,32767}){1,32767}, took 10 s and
    4.4 GB to compile, at every call. Repetition counts are now at most
    255 and a compiled program has a bounded size: such patterns are
    refused before any work, each refusal saying what is wrong, however
    often they come."""
    d = daemon()
    h = Hostile(d)
    hwm = vm_hwm_kib(d)
    bad = [("/(a{1,32767}){1,32767}/", "repetition count over 255"),
           ("/(a{1,255}){1,255}/", "pattern too large"),
           ("/a{1,2/", "invalid {m,n}"), ("/(a/", "unmatched (")]
    for _ in range(10):
        rep = h.calls([("io.statsd.Lookup", {"module": p})
                       for p, _ in bad])
        for (p, why), r in zip(bad, rep):
            if expect_error(r, "io.statsd.InvalidValue", "Lookup " + p,
                            parameter="module"):
                check(why in r["parameters"]["reason"],
                      "%s refused as \"%s\": %s" % (
                          p, why, r["parameters"]["reason"]), count=False)
    check(vm_hwm_kib(d) - hwm < 64 << 10, "no memory blow-up: peak grew "
          "%d KiB" % (vm_hwm_kib(d) - hwm))
    survived(d, "statsd answers everyone", [h])


def test_row1_row2_work_is_sliced():
    """Rows 1-2: a call over many kstats ran whole in the event loop.
    Work bigger than a slice is now done in slices, one per loop turn,
    so that other peers are answered in between: a read of many kstats
    answers in pages of at most a slice of work each, and walking the
    pages gives the same result."""
    d = daemon("max_kstats = 4096\n")
    c = d.conn()
    spec = ok(c.call("io.statsd.TemplateAdd", TPL_APP), "TemplateAdd")[
        "template"]["spec"]
    for i in range(1500):
        ok(c.call("io.statsd.KstatCreate", {
            "module": "m%d" % (i % 7), "instance": i, "name": "x",
            "template": spec}), "kstat %d" % i, False)
    c.close()
    s0 = ok(d.call("io.statsd.Info", {}), "Info")["slices"]
    h = Hostile(d)
    # A program of some 500 instructions per field: each kstat costs
    # about 3 x 31 x 500 units of the slice budget.
    heavy = "/^(m[0-9]|[a-z]{1,2}|x){1,60}$/"
    calls = [("io.statsd.Lookup", {"module": heavy, "name": heavy,
                                   "class": heavy})] * 4
    calls.append(("io.statsd.Chain", {}))
    sel = "%s:/^[0-9]+$/:%s:/^requests\.(sum|count)$/" % (heavy, heavy)
    calls.append(("io.statsd.Scrape", {"format": "json", "selector": sel,
                                       "class": heavy}))
    calls.append(("io.statsd.Scrape", {"format": "kstat", "selector": sel}))
    rep = h.cmd(op="pages", calls=calls).get("replies", [])
    for r in rep[:4]:
        found = [k for k in ok(r, "heavy Lookup").get("kstats", [])
                 if k["name"] == "x"]
        check(len(found) == 1500, "the sliced Lookup finds every kstat: "
              "%d" % len(found))
    names = [k["module"] for k in ok(rep[4], "Chain")["kstats"]]
    check(len(names) == 1500 + 2, "the Chain lists every kstat: %d"
          % len(names))
    js = ok(rep[5], "sliced Scrape json")
    ks = [k for k in js.get("kstats", []) if k["name"] == "x"]
    check(len(ks) == 1500 and all(sorted(k["data"]) == [
        "requests.count", "requests.sum"] for k in ks),
        "the sliced json Scrape has every kstat and the statistics chosen")
    check([(k["module"], k["instance"]) for k in ks] == sorted(
        (k["module"], k["instance"]) for k in ks),
        "in kstat's order")
    lines = [ln for ln in ok(rep[6], "sliced Scrape kstat").get(
        "text", "").splitlines() if ":x:" in ln]
    check(len(lines) == 3000, "kstat -p lines for every kstat: %d"
          % len(lines))
    s1 = ok(d.call("io.statsd.Info", {}), "Info")["slices"]
    print("%d slices for 4 lookups and a chain of 1500 kstats" % (s1 - s0))
    check(s1 - s0 >= 4 * 10, "the lookups ran in slices: %d" % (s1 - s0))
    # Many heavy calls at once, never read: root is still answered, and
    # kstats deleted under the slices leave no trace.
    h.cmd(op="pipeline", n=16, calls=20, method="io.statsd.Lookup",
          parameters={"module": heavy, "name": heavy, "class": heavy})
    h.cmd(op="pipeline", n=8, calls=20, method="io.statsd.Scrape",
          parameters={"selector": sel})
    c = d.conn()
    for i in range(0, 1500, 3):
        ok(c.call("io.statsd.KstatDelete", {"module": "m%d" % (i % 7),
                                            "instance": i, "name": "x"}),
           "root deletes under the slices", False)
    c.close()
    # Those connections hold nobody's buffered bytes until they go.
    h.cmd(op="close")
    wait_for(lambda: user_usage(d, NOBODY).get("buffered_bytes", 1) == 0,
             "nobody's pipelined calls given up")
    r = h.cmd(op="pages", calls=[("io.statsd.Scrape", {
        "format": "kstat", "selector": sel})]).get("replies", [])
    lines = [ln for ln in ok(r[0], "Scrape after").get("text", "")
             .splitlines() if ":x:" in ln]
    check(len(lines) == 2000, "kstat -p lines for what is left: %d"
          % len(lines))
    h.quit()
    d.stop()
    d.cleanup()


# ------------------------------------------------ full and failing disks
class Tmpfs:
    """A small tmpfs mounted for a test (root only), unmounted at exit
    (before its directory goes: cleanup runs newest first)."""

    def __init__(self, path, size):
        os.makedirs(path, exist_ok=True)
        self.path = path
        r = harness.run(["mount", "-t", "tmpfs", "-o",
                         "size=%s,mode=0755" % size, "statsd-test", path],
                        capture_output=True, text=True)
        self.mounted = r.returncode == 0
        self.err = r.stderr.strip()
        if self.mounted:
            harness._live.append(self)

    def remount(self, opts):
        r = harness.run(["mount", "-o", "remount," + opts, self.path],
                        capture_output=True, text=True)
        check(r.returncode == 0, "remount %s %s: %s" % (opts, self.path,
                                                       r.stderr))

    def fill(self, leave=0):
        """Fill it up, leaving about leave bytes; return the filler."""
        filler = os.path.join(self.path, "filler")
        st = os.statvfs(self.path)
        free = st.f_bavail * st.f_frsize - leave
        with open(filler, "wb") as f:
            try:
                f.write(b"\0" * max(free, 0))
            except OSError:
                pass
        return filler

    def cleanup(self):
        if self.mounted:
            harness.run(["umount", "-l", self.path], capture_output=True)
            self.mounted = False


def daemon_on_tmpfs(config, where, size, what):
    """statsd with config, its directory where ("run" or "state") a tmpfs
    of size, started, the runtime directory open to nobody's producers.
    Returns: (d, fs); (None, None) when no tmpfs can be mounted here, and
    the test (what) is skipped."""
    d = Daemon(config=config)
    fs = Tmpfs(getattr(d, where), size)
    if not fs.mounted:
        print("SKIP %s: cannot mount a tmpfs here (%s)" % (what, fs.err))
        d.cleanup()
        return None, None
    d.start()
    os.chmod(d.run, 0o755)
    return d, fs


def survived(d, what, leave=()):
    """The end of an attack: the clients in leave quit, statsd must still
    answer (what), and it stops on SIGTERM with status 0."""
    for h in leave:
        h.quit()
    check(d.alive(), what)
    d.stop()
    d.cleanup()


def persistence(d):
    return ok(d.call("io.statsd.Info", {}), "Info", False)["persistence"]


def names(d, dormant=True):
    return sorted("%s:%d:%s" % (k["module"], k["instance"], k["name"])
                  for k in ok(d.call("io.statsd.Chain",
                                     {"dormant": dormant}),
                              "Chain", False)["kstats"])


def pcreate(h, spec, name, flags=("PERSISTENT",)):
    return h.calls([("io.statsd.KstatCreate", {
        "module": "disk", "instance": 0, "name": name, "template": spec,
        "flags": list(flags)})])[0]


def test_row4_full_runtime_dir():
    """Row 4: PERSISTENT kstats filled the runtime filesystem, and the
    next update through a sparse mapping killed statsd with SIGBUS (at
    start too, with less than the ring journal's size free). Every file
    written through a mapping now has its blocks allocated when it is
    made: a full runtime directory refuses the create, or runs without
    the ring journal, and never faults."""
    d, fs = daemon_on_tmpfs("checkpoint_interval_ms = 200\n", "run", "1M",
                            "row 4")
    if d is None:
        return
    check("ring journal" in d.stderr(), "the ring journal does not fit: "
          "statsd runs without it and says so")
    h = Hostile(d)
    spec = ok(h.calls([("io.statsd.TemplateAdd", TPL_APP)])[0],
              "TemplateAdd")["template"]["spec"]
    made, err = [], None
    for i in range(64):
        r = pcreate(h, spec, "p%d" % i)
        if "error" in r:
            err = r
            break
        made.append("p%d" % i)
    check(len(made) > 0 and err is not None, "PERSISTENT kstats until the "
          "runtime directory is full: %d, then %s" % (len(made), err))
    if err is not None:
        expect_error(err, "io.statsd.SystemError", "a full runtime "
                     "directory refuses the create")
        check("No space left" in err["parameters"].get("reason", ""),
              "the refusal says why: %s" % err["parameters"])
    failed = "p%d" % len(made)
    check("disk:0:" + failed not in names(d), "the failed create left "
          "no ghost")
    # Updates through the full directory's mappings: no SIGBUS.
    rc = RingClient(d.sock, prefix={"uid": NOBODY})
    check(rc.cmd("connect") == "ok", "nobody's producer connects")
    rc.cmd("handle disk 0 p0")
    check(rc.cmd("attach 10").startswith("ok"), "a ring")
    pushed, dropped = rc.counters("push 5000 0 1")
    wait_for(lambda: read_data(d, "disk", 0, "p0").get("requests.sum") ==
             pushed - dropped, "the updates applied")
    check(d.alive(), "statsd survived updates on a full filesystem")
    # Space back: the name that failed is free, not dormant.
    ok(h.calls([("io.statsd.KstatDelete", {"module": "disk", "instance": 0,
                                           "name": made[-1]})] * 2)[1],
       "delete, then remove for good, to free a file")
    r = ok(pcreate(h, spec, failed), "the failed name is free now")
    check(r.get("revived") is False, "a new kstat, not a ghost revived")
    rc.quit()
    h.quit()
    # A restart on the full directory: everything acknowledged is back.
    before = names(d, dormant=False)
    d.stop()
    d.start()
    check(names(d, dormant=False) == before, "every acknowledged kstat "
          "back after a restart on a full runtime directory")
    check(read_data(d, "disk", 0, "p0").get("requests.sum") ==
          pushed - dropped, "with its data")
    d.stop()
    d.cleanup()


# A template whose kstats' checkpoint records pass a page, so that none
# fits in the slack of the log's last page on a full filesystem.
BIGREC = {"name": "BIGREC", "vois": [
    {"id": 0, "name": "lat", "dtype": "INT_U64",
     "stats": [{"kind": "HIST", "scheme": "USR",
                "buckets": list(range(0, 1000, 2))}]}]}


def test_row12_row15_state_dir_unusable():
    """Rows 12 and 15: with the state directory full, read-only or
    missing, statsd said ready, acknowledged PERSISTENT creates it could
    not keep, and a failed create left a dormant ghost that blocked its
    name. Now an unusable state directory is reported at start and in
    Info.persistence; PERSISTENT creates and deletes are refused with the
    reason, leave nothing behind, and work again once it is usable."""
    d, fs = daemon_on_tmpfs("checkpoint_interval_ms = 100\n", "state",
                            "256K", "rows 12, 15")
    if d is None:
        return
    h = Hostile(d)
    spec = ok(h.calls([("io.statsd.TemplateAdd", BIGREC)])[0],
              "TemplateAdd")["template"]["spec"]
    ok(pcreate(h, spec, "kept"), "a PERSISTENT kstat, kept")
    check(persistence(d)["usable"], "the state directory is usable")
    # Full.
    filler = fs.fill(leave=512)
    r = pcreate(h, spec, "full")
    expect_error(r, "io.statsd.SystemError", "a create on a full state "
                 "directory")
    check("No space" in r.get("parameters", {}).get("reason", ""),
          "says why: %s" % r.get("parameters"))
    p = persistence(d)
    check(not p["usable"] and "No space" in p["error"],
          "Info.persistence says so: %s" % p)
    check("disk:0:full" not in names(d), "no ghost of the failed create")
    expect_error(h.calls([("io.statsd.KstatDelete", {
        "module": "disk", "instance": 0, "name": "kept"})])[0],
        "io.statsd.SystemError", "a delete that cannot be kept is refused")
    check("disk:0:kept" in names(d, dormant=False), "and changes nothing")
    ok(h.calls([("io.statsd.KstatCreate", {
        "module": "disk", "instance": 0, "name": "volatile",
        "template": spec})])[0], "a kstat that is not PERSISTENT works")
    os.unlink(filler)
    wait_for(lambda: persistence(d)["usable"], "usable once there is room")
    r = ok(pcreate(h, spec, "full"), "the name that failed is free")
    check(r.get("revived") is False, "created, not revived")
    h.quit()
    # Read-only (at start: a file open for writing keeps a tmpfs from
    # being remounted read-only under a running statsd).
    d.stop()
    fs.remount("ro")
    d.start()
    p = persistence(d)
    check(not p["usable"] and "Read-only" in p["error"], "a read-only "
          "state directory reported in Info: %s" % p)
    check("state directory" in d.stderr(), "and at start")
    check({"disk:0:kept", "disk:0:full"} <= set(names(d, dormant=False)),
          "what was acknowledged was read back")
    h = Hostile(d)
    spec = ok(h.calls([("io.statsd.TemplateAdd", BIGREC)])[0],
              "TemplateAdd")["template"]["spec"]
    r = pcreate(h, spec, "ro")
    expect_error(r, "io.statsd.SystemError", "a create on a read-only "
                 "state directory")
    check("Read-only" in r.get("parameters", {}).get("reason", ""),
          "says why: %s" % r.get("parameters"))
    check("disk:0:ro" not in names(d), "no ghost")
    fs.remount("rw")
    wait_for(lambda: persistence(d)["usable"], "usable again")
    r = ok(pcreate(h, spec, "ro"), "the refused name is free")
    check(r.get("revived") is False, "a new kstat, not a ghost")
    h.quit()
    d.stop()
    d.start()
    check({"disk:0:kept", "disk:0:ro", "disk:0:full"} <= set(names(
        d, dormant=False)), "what was acknowledged came back")
    d.stop()
    # Missing, and not creatable: statsd runs and says so.
    fs.remount("ro")
    d2 = Daemon(config="checkpoint_interval_ms = 100\n")
    d2.state = os.path.join(d.state, "gone", "state")
    d2.start()
    os.chmod(d2.run, 0o755)
    p = persistence(d2)
    check(not p["usable"] and p["error"] != "", "a missing state "
          "directory reported in Info: %s" % p)
    check("state directory" in d2.stderr(), "and at start")
    h = Hostile(d2)
    spec = ok(h.calls([("io.statsd.TemplateAdd", BIGREC)])[0],
              "TemplateAdd")["template"]["spec"]
    expect_error(pcreate(h, spec, "x"), "io.statsd.SystemError",
                 "PERSISTENT refused without a state directory")
    ok(h.calls([("io.statsd.KstatCreate", {
        "module": "disk", "instance": 0, "name": "y", "template": spec})])[
        0], "the rest works")
    h.quit()
    d2.stop()
    d2.cleanup()
    fs.remount("rw")
    d.cleanup()


BIG_TPL = {"name": "BIG%d", "vois": [
    {"id": 0, "name": "lat", "dtype": "INT_U64",
     "stats": [{"kind": "HIST", "scheme": "USR",
                "buckets": list(range(0, 2 * 1000, 2))}]}]}


def test_row9_checkpoint_incremental():
    """Row 9: with 200 large templates, a PERSISTENT create/delete loop
    wrote 3.4 GB in 20 s, each change rewriting the whole checkpoint.
    The checkpoint is now a log: each change appends what changed, and
    compaction keeps it within twice what it holds."""
    d = daemon("checkpoint_interval_ms = 100\n")
    h = Hostile(d)
    for i in range(40):
        t = dict(BIG_TPL, name="BIG%d" % i)
        ok(h.calls([("io.statsd.TemplateAdd", t)])[0], "large template %d"
           % i, False)
    spec = ok(h.calls([("io.statsd.TemplateAdd", TPL_APP)])[0],
              "TemplateAdd")["template"]["spec"]
    w0 = persistence(d)["written_bytes"]
    loops = 150
    calls = []
    for i in range(loops):
        calls.append(("io.statsd.KstatCreate", {
            "module": "loop", "instance": 0, "name": "k", "template": spec,
            "flags": ["PERSISTENT"]}))
        calls.append(("io.statsd.KstatDelete", {
            "module": "loop", "instance": 0, "name": "k"}))
    for r in h.calls(calls):
        ok(r, "create/delete", False)
    p = persistence(d)
    written = p["written_bytes"] - w0
    print("%d PERSISTENT create/delete pairs wrote %d bytes (%d a change);"
          " log %d bytes holding %d, %d compactions" % (
              loops, written, written // (2 * loops), p["log_bytes"],
              p["live_bytes"], p["compactions"]))
    check(written < 2 * loops * 8192, "write volume follows the changes "
          "(%d bytes for %d changes), not the templates" % (written,
                                                             2 * loops))
    check(p["compactions"] >= 1, "compacted: %s" % p)
    wait_for(lambda: (lambda q: q["log_bytes"] <= 2 * q["live_bytes"] +
                      65536)(persistence(d)), "the log within twice what "
             "it holds")
    # What the log says after all that is what statsd had.
    ok(h.calls([("io.statsd.KstatCreate", {
        "module": "loop", "instance": 0, "name": "k", "template": spec,
        "flags": ["PERSISTENT"]})])[0], "revived once more")
    h.quit()
    d.kill9()
    d.start()
    check("loop:0:k" in names(d, dormant=False), "it comes back active "
          "after kill -9")
    d.stop()
    d.cleanup()


def test_row9_checkpoint_torn_and_v1():
    """Row 9's log, read back: a record cut short by a crash is dropped
    and the rest restored; a version 1 checkpoint (one JSON object) is
    read and rewritten as a log."""
    d = daemon()
    c = d.conn()
    spec = ok(c.call("io.statsd.TemplateAdd", TPL_APP), "TemplateAdd")[
        "template"]["spec"]
    ok(c.call("io.statsd.KstatCreate", {"module": "v", "instance": 0,
                                        "name": "k", "template": spec,
                                        "flags": ["PERSISTENT"]}), "create")
    snap = ok(c.call("io.statsd.Snapshot", {"module": "v", "instance": 0,
                                            "name": "k"}), "Snapshot")
    c.close()
    d.stop()
    ck = os.path.join(d.state, "statsd.checkpoint")
    with open(ck, "ab") as f:
        f.write(b'999 0badcafe {"t":"kstat","handle":')
    d.start()
    check("cut short" in d.stderr(), "the torn record is reported")
    check("v:0:k" in names(d, dormant=False), "and the rest restored")
    d.stop()
    # A version 1 checkpoint, after a reboot emptied the runtime
    # directory.
    k = snap["kstat"]
    v1 = {"format": "statsd-checkpoint", "version": 1, "next_handle": 100,
          "sample_rates": "", "templates": [TPL_APP], "kstats": [{
              "handle": k["handle"], "module": "v", "instance": 0,
              "name": "k", "class": "misc", "type": 6, "flags": 8,
              "owner": 0, "template": spec, "description": "",
              "path": [], "crtime": k["crtime"], "dormant": False,
              "birth": 0, "blob": snap["raw"]}]}
    with open(ck, "w") as f:
        json.dump(v1, f)
    for fn in os.listdir(os.path.join(d.run, "persist")):
        if fn.endswith(".kstat"):
            os.unlink(os.path.join(d.run, "persist", fn))
    d.start()
    check("v:0:k" in names(d, dormant=False), "a version 1 checkpoint "
          "restored")
    with open(ck, "rb") as f:
        check(f.read(1) != b"{", "and rewritten as a log")
    d.stop()
    d.start()
    check("v:0:k" in names(d, dormant=False), "which reads back")
    d.stop()
    d.cleanup()


# ------------------------------------------------------------------ row 6
# One statistic of each kind, as a VOI of its own (id 0).
EVERY_KIND = [
    ("SUM", "INT_U64", {"kind": "SUM"}),
    ("MIN", "INT_U64", {"kind": "MIN"}),
    ("MAX", "INT_U64", {"kind": "MAX"}),
    ("COUNT", "INT_U64", {"kind": "COUNT"}),
    ("LAST", "INT_U64", {"kind": "LAST"}),
    ("STRING", "INT_U64", {"kind": "STRING", "maxlen": 32}),
    ("HIST", "INT_S64", {"kind": "HIST", "scheme": "EXP", "lb": 1,
                         "ub": 1024, "stepbase": 2, "stepexp": 1}),
    ("K2HIST", "INT_U64", {"kind": "K2HIST", "scheme": "LOG2", "lb": 1,
                           "ub": 1 << 20}),
    ("TDGST", "INT_S64", {"kind": "TDGST", "nctds": 16}),
    ("LIST", "INT_S64", {"kind": "LIST", "entries_max": 8}),
    ("HISTORY", "INT_S64", {"kind": "HISTORY", "entries_max": 4,
                            "mode": "range", "period_us": 1000000}),
    ("RAW", "INT_S64", {"kind": "RAW", "entries_max": 4}),
    ("IOQ", "INT_U64", {"kind": "IOQ"}),
    ("TIMER", "INT_U64", {"kind": "TIMER"}),
    ("DEFN", "INT_S64", {"kind": "DEFN", "units": "bytes"}),
]


def kind_tpl(kind, dtype, spec):
    return {"name": "K_" + kind, "vois": [
        {"id": 0, "name": "v", "dtype": dtype, "stats": [spec]}]}


def test_row6_every_kind_survives():
    """Row 6: a PERSISTENT kstat whose template had a DEFN statistic was
    lost at every restart: the template's hash held the time it was
    registered, so the restored kstat named a template that no longer
    matched. A template's hash is now its name and schema's alone (VOIs
    in id order, no times in its blob), and every kind comes back, with
    its data, from a clean restart and from kill -9."""
    d = daemon()
    h = Hostile(d)
    specs = {}
    for kind, dtype, st in EVERY_KIND:
        r = h.calls([("io.statsd.TemplateAdd", kind_tpl(kind, dtype, st)),
                     ("io.statsd.KstatCreate", {
                         "module": "kinds", "instance": 0, "name": kind,
                         "template": "K_" + kind,
                         "flags": ["PERSISTENT"]})])
        specs[kind] = ok(r[0], "TemplateAdd %s" % kind)["template"]["spec"]
        ok(r[1], "a PERSISTENT kstat of %s" % kind)
    # The same schema with its VOIs in another order is one template.
    two = {"name": "ORDER", "vois": [
        {"id": 1, "name": "b", "dtype": "INT_U64", "stats": [
            {"kind": "SUM"}]},
        {"id": 0, "name": "a", "dtype": "INT_S64", "stats": [
            {"kind": "DEFN", "units": "ms"}]}]}
    rev = dict(two, vois=list(reversed(two["vois"])))
    r = h.calls([("io.statsd.TemplateAdd", two),
                 ("io.statsd.TemplateAdd", rev)])
    check(ok(r[1], "the same schema in another order").get("created") is
          False and r[0]["parameters"]["template"]["spec"] ==
          r[1]["parameters"]["template"]["spec"], "one template, one hash")

    def accounted():
        i = harness.info(d)
        return i.get("applied", 0) + i.get("rejected", 0) + \
            i.get("dropped", 0)

    def feed(n):
        """n updates of 7 to every kind's kstat, through one ring, and a
        wait until statsd has taken every one (applied, or refused by a
        kind that takes no plain update): the records of the later kinds
        follow the first kind's in the ring, so its total alone does not
        say they have been drained, and a state read before they are
        differs from the state after a restart."""
        base = accounted()
        rc = RingClient(d.sock, prefix={"uid": NOBODY})
        check(rc.cmd("connect") == "ok", "nobody's producer connects")
        check(rc.cmd("attach 12").startswith("ok"), "a ring")
        for kind, _, _ in EVERY_KIND:
            rc.cmd("handle kinds 0 " + kind)
            rc.counters("push %d 0 %d" % (n, 7))
        pushed, _ = rc.counters()
        rc.quit()
        wait_for(lambda: accounted() - base == pushed,
                 "statsd to take all %d updates" % pushed)

    def state():
        out = {}
        for kind, _, _ in EVERY_KIND:
            r = ok(d.call("io.statsd.Read", {"module": "kinds",
                                             "instance": 0,
                                             "name": kind}),
                   "Read %s" % kind, False)
            data = dict(r.get("data", {}))
            data.pop("snaptime", None)
            out[kind] = (r.get("kstat", {}).get("template"), data,
                         r.get("blob"))
        return out

    def back_after(restart, what):
        before = state()
        restart()
        d.start()
        after = state()
        for kind, _, _ in EVERY_KIND:
            check(after[kind] == before[kind], "%s: back after %s" %
                  (kind, what))

    feed(50)
    wait_for(lambda: h.calls([("io.statsd.Read", {
        "module": "kinds", "instance": 0, "name": "SUM"})])[0].get(
        "parameters", {}).get("data", {}).get("v.sum") == 350,
        "the updates applied")
    h.quit()
    back_after(d.stop, "a restart, its template and data as they were")
    h = Hostile(d)
    for kind, dtype, st in EVERY_KIND:
        r = ok(h.calls([("io.statsd.TemplateAdd", kind_tpl(kind, dtype,
                                                           st))])[0],
               "TemplateAdd %s again" % kind)
        check(r.get("created") is False and r["template"]["spec"] ==
              specs[kind], "%s: the same hash after a restart" % kind)
    h.quit()
    feed(20)
    wait_for(lambda: read_data(d, "kinds", 0, "SUM").get("v.sum") == 490,
             "the updates after the restart applied")
    back_after(d.kill9, "kill -9 with every update")
    d.stop()
    d.cleanup()


# ----------------------------------------------------------------- row 13
def framed(data):
    """A corpus seed as the checkpoint fuzzer writes it: one starting
    with '!' has each line framed (length, CRC-32), as ck_frame.c
    frames records."""
    import zlib
    if not data.startswith(b"!"):
        return data
    out = b""
    for line in data[1:].split(b"\n"):
        out += b"%d %08x " % (len(line), zlib.crc32(line)) + line + b"\n"
    return out


def test_row13_corrupted_checkpoints():
    """Row 13: corrupted checkpoints made statsd return a stack buffer
    (the reason a kstat was skipped) to its log, and render a crtime of
    -2^63 with a negation that overflows. Every seed of the checkpoint
    fuzzer's corpus (damaged records, torn ones, a crtime of -2^63, bad
    names, bad blobs, a version 1 file) is now started on, read and
    stopped without a sanitizer report, and each restored kstat renders."""
    corpus = os.path.join(harness.SRCDIR, "tests", "fuzz", "corpus",
                          "checkpoint")
    for seed in sorted(os.listdir(corpus)):
        d = Daemon()
        os.makedirs(d.state, exist_ok=True)
        with open(os.path.join(corpus, seed), "rb") as f:
            data = framed(f.read())
        with open(os.path.join(d.state, "statsd.checkpoint"), "wb") as f:
            f.write(data)
        d.start()
        ok(d.call("io.statsd.Scrape", {"format": "kstat"}), "Scrape after "
           "the %s checkpoint" % seed)
        ok(d.call("io.statsd.Chain", {"dormant": True}), "Chain")
        d.stop()        # and the harness scans for sanitizer reports
        d.cleanup()


# ----------------------------------------------------------------- row 14
SECRET = {"name": "SECRET", "vois": [
    {"id": 0, "name": "password_failures", "dtype": "INT_U64",
     "stats": [{"kind": "SUM"}]}]}


def test_row14_privilege_leaks():
    """Row 14: KstatCreate on a PRIV kstat's name answered KstatExists (an
    existence oracle); TemplateList showed PRIV kstats' VOI names;
    Info.kstats counted PRIV kstats. Now an unprivileged peer gets the
    neutral refusal (PermissionDenied, as for a privileged kstat) for a
    name held by a kstat it may not see, and TemplateList, Info's counts
    and statsd's own kstat show it only what it may see."""
    d = daemon()
    c = d.conn()
    sspec = ok(c.call("io.statsd.TemplateAdd", SECRET), "TemplateAdd")[
        "template"]["spec"]
    for name, flags in (("keys", ["PRIV"]), ("old", ["PRIV",
                                                     "PERSISTENT"])):
        ok(c.call("io.statsd.KstatCreate", {
            "module": "secret", "instance": 0, "name": name,
            "template": sspec, "flags": flags}), "root's PRIV kstat " + name)
    ok(c.call("io.statsd.KstatDelete", {"module": "secret", "instance": 0,
                                        "name": "old"}), "dormant PRIV")
    c.close()
    h = Hostile(d)
    spec = ok(h.calls([("io.statsd.TemplateAdd", TPL_APP)])[0],
              "TemplateAdd")["template"]["spec"]
    rep = h.calls([("io.statsd.KstatCreate", {
        "module": "secret", "instance": 0, "name": n, "template": spec})
        for n in ("keys", "old")])
    for r, n in zip(rep, ("keys", "old")):
        expect_error(r, "io.statsd.PermissionDenied", "a name held by a "
                     "PRIV kstat (%s)" % n, right="admin")
        check("kstat" not in r.get("parameters", {}), "the refusal names "
              "no kstat")
    mine = h.calls([("io.statsd.KstatCreate", {
        "module": "mine", "instance": 0, "name": "x", "template": spec}),
        ("io.statsd.KstatCreate", {
            "module": "mine", "instance": 0, "name": "x",
            "template": spec})])
    ok(mine[0], "a free name")
    expect_error(mine[1], "io.statsd.KstatExists", "a name nobody can see "
                 "taken", kstat="mine:0:x")
    tl = h.calls([("io.statsd.TemplateList", {})])[0]
    names_seen = [t["name"] for t in ok(tl, "TemplateList")["templates"]]
    check("SECRET" not in names_seen and "password_failures" not in
          json.dumps(tl), "TemplateList hides the PRIV kstats' template: "
          "%s" % names_seen)
    check("APP" in names_seen, "and shows nobody's own")
    root_tl = [t["name"] for t in ok(d.call("io.statsd.TemplateList", {}),
                                     "TemplateList as root")["templates"]]
    check("SECRET" in root_tl, "root sees it")
    info = ok(h.calls([("io.statsd.Info", {})])[0], "Info as nobody")
    chain = ok(h.calls([("io.statsd.Chain", {"dormant": True})])[0],
               "Chain as nobody")["kstats"]
    seen = len([k for k in chain if "DORMANT" not in k["flags"]])
    check(info["kstats"] == seen and info["dormant"] == len(chain) - seen,
          "Info counts what nobody sees: %d/%d, chain %d/%d" % (
              info["kstats"], info["dormant"], seen, len(chain) - seen))
    check(info["templates"] == len(names_seen), "and the templates it may "
          "see: %d, list %d" % (info["templates"], len(names_seen)))
    rinfo = ok(d.call("io.statsd.Info", {}), "Info as root")
    check(rinfo["kstats"] == info["kstats"] + 1 and rinfo["dormant"] ==
          info["dormant"] + 1, "root counts the PRIV ones too")
    own = wait_for(lambda: (lambda o: o.get("kstats") == info["kstats"] and
                            o.get("templates") == info["templates"] and o)(
        read_data(d, "statsd", 0, "daemon")), "statsd's own kstat to "
        "count what any peer may see")
    check(bool(own), "statsd's own kstat: %s" % own)
    h.quit()
    d.stop()
    d.cleanup()


# ------------------------------------------------------------- rows 7, 8
def big_tpl(name, buckets=1000):
    """A template of one HIST of many buckets: some 16 KiB of blob."""
    return {"name": name, "vois": [
        {"id": 0, "name": "lat", "dtype": "INT_U64",
         "stats": [{"kind": "HIST", "scheme": "USR",
                    "buckets": list(range(0, 2 * buckets, 2))}]}]}


def fill(h, calls):
    """Send calls in turn until one is refused: (how many went through,
    the refusal or None)."""
    rep = h.calls(calls)
    for i, r in enumerate(rep):
        if "error" in r:
            return i, r
    return len(rep), None


def test_row7_arena_quota():
    """Row 7: 1,100 kstats of a 64 KB template filled the public arena,
    and then everyone, root too, was refused with LimitReached
    max_kstats, the wrong reason. Arena bytes are now charged to the
    kstat's owner: a user stops at arena_bytes_per_uid, users together at
    the part of arena_size quota_reserve_percent does not reserve, root
    goes on into the reserve, and each refusal names the limit that
    stopped it."""
    per_uid, total = 512 << 10, 2 << 20
    unreserved = total * 90 // 100
    d = daemon("arena_size = 2M\narena_bytes_per_uid = 512K\n"
               "quota_reserve_percent = 10\n")
    users = [NOBODY] + CROWD
    crowd = [Hostile(d, u) for u in users]
    refusals = {}
    for h, uid in zip(crowd, users):
        ok(h.calls([("io.statsd.TemplateAdd", big_tpl("A%d" % uid))])[0],
           "a large template of uid %d" % uid)
        n, err = fill(h, [("io.statsd.KstatCreate", {
            "module": "arena", "instance": uid * 1000 + i, "name": "x",
            "template": "A%d" % uid}) for i in range(64)])
        check(err is not None, "uid %d fills its part of the arena: %d "
              "kstats, then %s" % (uid, n, err))
        refusals[uid] = (n, err or {})
        used = user_usage(d, uid).get("arena_bytes", 0)
        check(used <= per_uid, "uid %d holds at most "
              "arena_bytes_per_uid: %d" % (uid, used))
    n, err = refusals[NOBODY]
    check(n > 0, "nobody made kstats before its limit: %d" % n)
    expect_error(err, "io.statsd.LimitReached", "nobody past its arena "
                 "bytes", limit="arena_bytes_per_uid", value=per_uid)
    # The crowd together stops at the unreserved part of the arena.
    at_total = [e for _, e in refusals.values()
                if e.get("parameters", {}).get("limit") == "arena_size"]
    check(len(at_total) > 0 and all(
        e["parameters"]["value"] == unreserved for e in at_total),
        "the crowd refused at the unreserved part of arena_size (%d): %s"
        % (unreserved, [e.get("parameters") for _, e in
                        refusals.values()]))
    q = quotas(d)
    crowd_used = sum(user_usage(d, u).get("arena_bytes", 0) for u in users)
    check(crowd_used <= unreserved, "users together hold at most %d "
          "arena bytes: %d" % (unreserved, crowd_used))
    # Root goes on into the reserve, and is refused for the real reason.
    c = d.conn()
    ok(c.call("io.statsd.TemplateAdd", big_tpl("AROOT")), "root's template")
    made, err = 0, None
    for i in range(64):
        r = c.call("io.statsd.KstatCreate", {
            "module": "arena", "instance": i, "name": "root",
            "template": "AROOT"})
        if "error" in r:
            err = r
            break
        made += 1
    check(made > 0, "root creates kstats in the reserve: %d" % made)
    if check(err is not None, "root stops at the arena's end"):
        check(err.get("error") == "io.statsd.LimitReached" and
              err["parameters"].get("limit") == "arena_size",
              "root refused for the arena, not max_kstats: %s" % err)
    q = quotas(d)
    check(q["total"]["arena_bytes"]["used"] <= total, "the arena holds "
          "at most arena_size: %s" % q["total"]["arena_bytes"])
    c.close()
    # Nobody's kstats gone: its bytes are given back, and it may make
    # kstats again.
    h = crowd[0]
    n = refusals[NOBODY][0]
    for r in h.calls([("io.statsd.KstatDelete", {
            "module": "arena", "instance": NOBODY * 1000 + i, "name": "x"})
            for i in range(n)]):
        ok(r, "nobody deletes its kstats", False)
    check(user_usage(d, NOBODY).get("arena_bytes", -1) == 0,
          "nobody's arena bytes given back: %s" % user_usage(d, NOBODY))
    ok(h.calls([("io.statsd.KstatCreate", {
        "module": "arena", "instance": 0, "name": "again",
        "template": "A%d" % NOBODY})])[0], "nobody makes a kstat again")
    survived(d, "statsd answers", crowd)


def test_row8_template_quota():
    """Row 8: 1,100 templates with large bucket lists reached
    max_templates for everyone, took daemon memory from 8 to 240 MB,
    never freed, and made TemplateList (85.7 MB) fail for ever. A user's
    templates are now held to max_templates_per_uid and
    max_template_bytes_per_uid, those no kstat uses are freed (oldest
    first) to make room, users together stop short of the totals' reserve,
    root still adds templates, and TemplateList answers in pages whatever
    their number and size."""
    per_n, per_b = 8, 192 << 10
    tot_n, tot_b = 40, 1 << 20
    d = daemon("max_templates = %d\nmax_templates_per_uid = %d\n"
               "max_template_bytes = 1M\nmax_template_bytes_per_uid = 192K\n"
               "quota_reserve_percent = 10\nmax_output = 256K\n"
               "reply_page_size = 32K\n" % (tot_n, per_n))
    h = Hostile(d)
    # Unused templates: each new one frees the oldest unused.
    for i in range(30):
        r = h.calls([("io.statsd.TemplateAdd", big_tpl("U%02d" % i))])[0]
        ok(r, "nobody's unused template U%02d" % i, False)
        u = user_usage(d, NOBODY)
        check(u.get("templates", 0) <= per_n and
              u.get("template_bytes", 0) <= per_b, "nobody within its "
              "template quotas: %s" % u, count=False)
    seen = [t["name"] for t in ok(h.cmd(op="pages", calls=[(
        "io.statsd.TemplateList", {})])["replies"][0],
        "TemplateList")["templates"]]
    check("U29" in seen and "U00" not in seen, "the newest kept, the "
          "oldest unused freed: %s" % seen)
    # Used templates cannot be freed: a kstat on each, until refused.
    n, err = fill(h, [c for i in range(20) for c in (
        ("io.statsd.TemplateAdd", big_tpl("K%02d" % i)),
        ("io.statsd.KstatCreate", {"module": "tpl", "instance": i,
                                   "name": "x", "template": "K%02d" % i}))])
    check(err is not None and err.get("error") == "io.statsd.LimitReached"
          and err["parameters"].get("limit") in (
              "max_templates_per_uid", "max_template_bytes_per_uid"),
          "nobody's templates in use: refused by its own limit, after %d "
          "calls: %s" % (n, err))
    kept = n // 2
    # The crowd: together, the unreserved part of the totals.
    crowd = [Hostile(d, u) for u in CROWD]
    refusals = []
    for hh, uid in zip(crowd, CROWD):
        n, err = fill(hh, [c for i in range(20) for c in (
            ("io.statsd.TemplateAdd", big_tpl("C%d_%02d" % (uid, i))),
            ("io.statsd.KstatCreate", {
                "module": "tpl%d" % uid, "instance": i, "name": "x",
                "template": "C%d_%02d" % (uid, i)}))])
        refusals.append(err or {})
    q = quotas(d)
    unpriv = [u for u in q["users"] if u["uid"] != 0]
    check(sum(u["templates"] for u in unpriv) <= tot_n * 90 // 100 and
          sum(u["template_bytes"] for u in unpriv) <= tot_b * 90 // 100,
          "users together within the unreserved part: %s" % unpriv)
    check(any(e.get("parameters", {}).get("limit") in (
        "max_templates", "max_template_bytes") for e in refusals),
        "the crowd stopped by a total: %s" % [e.get("parameters")
                                              for e in refusals])
    # Root is not locked out.
    c = d.conn()
    ok(c.call("io.statsd.TemplateAdd", big_tpl("ROOT")), "root adds a "
       "template past the crowd")
    c.close()
    # TemplateList answers, in pages, for nobody and for root.
    for who, lister in (("nobody", h), ("root", None)):
        if lister is None:
            lister = Hostile(d, 0)
        r = ok(lister.cmd(op="pages", calls=[(
            "io.statsd.TemplateList", {})])["replies"][0],
            "TemplateList as %s" % who)
        ts = r.get("templates", [])
        check(r.get("pages", 1) > 1 and len(ts) == len(set(
            t["spec"] for t in ts)) and r.get("list", "").split(",") == [
            t["spec"] for t in ts], "TemplateList as %s in %d pages: %d "
            "templates, each once" % (who, r.get("pages", 1), len(ts)))
        if who == "root":
            check(len(ts) == q["total"]["templates"]["used"] + 1,
                  "root lists every template: %d" % len(ts))
            lister.quit()
    # Nobody's kstats removed: its templates are unused, freed as new
    # ones come, and its bytes given back.
    for r in h.calls([("io.statsd.KstatDelete", {
            "module": "tpl", "instance": i, "name": "x"})
            for i in range(kept)]):
        ok(r, "nobody deletes a kstat", False)
    for i in range(per_n + 1):
        ok(h.calls([("io.statsd.TemplateAdd", big_tpl("N%02d" % i))])[0],
           "nobody's template N%02d once its kstats are gone" % i, False)
    u = user_usage(d, NOBODY)
    check(u.get("templates", 0) <= per_n and u.get("template_bytes", 0) <=
          per_b, "nobody still within its quotas: %s" % u)
    survived(d, "statsd answers", crowd + [h])


def test_row9_persistent_bytes_quota():
    """Row 9, the disk it fills: what PERSISTENT kstats take on disk (a
    runtime file and a checkpoint record each, dormant ones included) is
    charged to their owner. Nobody stops at max_persistent_bytes_per_uid,
    named in the refusal; a dormant kstat still holds its bytes, one
    removed for good gives them back; root is not held to it."""
    per_uid = 256 << 10
    d = daemon("max_persistent_bytes_per_uid = 256K\n"
               "checkpoint_interval_ms = 100\n")
    h = Hostile(d)
    ok(h.calls([("io.statsd.TemplateAdd", big_tpl("PB"))])[0],
       "a large template")
    n, err = fill(h, [("io.statsd.KstatCreate", {
        "module": "pb", "instance": i, "name": "x", "template": "PB",
        "flags": ["PERSISTENT"]}) for i in range(64)])
    check(n > 0, "PERSISTENT kstats before the limit: %d" % n)
    expect_error(err, "io.statsd.LimitReached", "nobody past its disk "
                 "bytes", limit="max_persistent_bytes_per_uid",
                 value=per_uid)
    used = user_usage(d, NOBODY).get("persistent_bytes", 0)
    check(0 < used <= per_uid, "nobody holds at most its disk bytes: %d"
          % used)
    check("pb:%d:x" % n not in names(d), "the refused create left nothing")
    # Dormant: still on disk, still charged.
    ok(h.calls([("io.statsd.KstatDelete", {"module": "pb", "instance": 0,
                                           "name": "x"})])[0], "delete")
    check(user_usage(d, NOBODY).get("persistent_bytes") == used,
          "a dormant kstat keeps its bytes charged")
    expect_error(h.calls([("io.statsd.KstatCreate", {
        "module": "pb", "instance": n, "name": "x", "template": "PB",
        "flags": ["PERSISTENT"]})])[0], "io.statsd.LimitReached",
        "still refused", limit="max_persistent_bytes_per_uid")
    # Removed for good: the bytes come back, and the create goes through.
    ok(h.calls([("io.statsd.KstatDelete", {"module": "pb", "instance": 0,
                                           "name": "x"})])[0],
       "removed for good")
    check(user_usage(d, NOBODY).get("persistent_bytes", 0) < used,
          "its bytes given back: %s" % user_usage(d, NOBODY))
    ok(h.calls([("io.statsd.KstatCreate", {
        "module": "pb", "instance": n, "name": "x", "template": "PB",
        "flags": ["PERSISTENT"]})])[0], "room again")
    h.quit()
    # Root is held to the total only.
    c = d.conn()
    ok(c.call("io.statsd.TemplateAdd", big_tpl("PB")), "root's template")
    for i in range(n + 2):
        ok(c.call("io.statsd.KstatCreate", {
            "module": "pbroot", "instance": i, "name": "x",
            "template": "PB", "flags": ["PERSISTENT"]}),
           "root's PERSISTENT kstat %d" % i, False)
    c.close()
    survived(d, "statsd answers")


# ------------------------------------------------ statsd's own modules
def test_own_modules_not_squatted():
    """A statsd series' kstat is statsd:<hash of its path>:<name>, and
    the hash is public: a user who made kstats at the instances a series
    is going to take had it refused (statsd_refused_store). No peer makes
    kstats in statsd's modules (statsd, unix); the series is made."""
    port = free_port(socket.SOCK_DGRAM)
    d = daemon("statsd_udp = 127.0.0.1:%d\n" % port)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sent = [0]

    def send(line):
        udp.sendto(line.encode(), ("127.0.0.1", port))
        sent[0] += 1
        wait_for(lambda: read_data(d, "statsd", 0, "daemon")[
            "statsd_datagrams"] >= sent[0], "statsd to read the line")

    def victims():
        return [k for k in ok(d.call("io.statsd.Lookup", {
            "module": "statsd", "name": "victim.gauge"}), "Lookup",
            False)["kstats"]]

    # Where the series goes: made once, then deleted by root, so that
    # the next line makes it again at the same instance.
    send("victim.gauge:1|g")
    made = victims()
    check(len(made) == 1, "the series is made: %d" % len(made))
    inst = made[0]["instance"] if made else 1
    ok(d.call("io.statsd.KstatDelete", {"module": "statsd",
                                        "instance": inst,
                                        "name": "victim.gauge"}),
       "root deletes the series' kstat")
    h = Hostile(d)
    tpl = {"name": "SQUAT", "vois": [{"id": 0, "name": "v",
                                      "dtype": "INT_U64",
                                      "stats": [{"kind": "SUM"}]}]}
    spec = h.calls([("io.statsd.TemplateAdd", tpl)])[0].get(
        "parameters", {}).get("template", {}).get("spec", "SQUAT")
    squat = [("io.statsd.KstatCreate", {
        "module": "statsd", "instance": inst + i, "name": "victim.gauge",
        "template": spec}) for i in range(64)]
    for i, r in enumerate(h.calls(squat)):
        if not expect_error(r, "io.statsd.InvalidValue", "nobody's "
                            "kstat at statsd:%d" % (inst + i),
                            parameter="module"):
            break
    r = h.calls([("io.statsd.KstatCreateMany", {
        "template": spec, "kstats": [
            {"module": "mine", "instance": 0, "name": "x"},
            {"module": "unix", "instance": 0, "name": "system_misc"}]})])[0]
    expect_error(r, "io.statsd.InvalidValue", "a batch with a unix kstat",
                 parameter="kstats[1].module")
    check(not [k for k in ok(d.call("io.statsd.Chain", {}), "Chain",
                             False)["kstats"]
               if k["owner"] == NOBODY], "nobody owns no kstat")
    before = read_data(d, "statsd", 0, "daemon")["statsd_refused_store"]
    send("victim.gauge:2|g")
    again = victims()
    check(len(again) == 1 and again[0]["instance"] == inst,
          "the series is made again where it was: %s" % [
              (k["instance"], k["owner"]) for k in again][:4])
    check(read_data(d, "statsd", 0, "daemon")["statsd_refused_store"] ==
          before, "and not refused")
    h.quit()
    udp.close()
    d.stop()
    d.cleanup()


# ---------------------------------------------------- placement offsets
def segment_spans(d, seg="public"):
    """The kstats of segment seg as the segment shows them: (module, name,
    owner, blob offset, chunk), and the arena's (offset, size). Read while
    statsd is idle (no sequence counters needed)."""
    c = d.conn()
    sa = ok(c.call("io.statsd.SegmentAttach", {}), "SegmentAttach", False)
    fds = c.take_fds()
    c.close()
    spans, arena = [], (0, 0)
    for g in sa["segments"]:
        if g["name"] != seg:
            continue
        fd = fds[g["fd"]]
        m = mmap.mmap(fd, os.fstat(fd).st_size, mmap.MAP_SHARED,
                      mmap.PROT_READ)
        table_off, = struct.unpack_from("<Q", m, 56)
        ksize, = struct.unpack_from("<I", m, 68)
        arena = struct.unpack_from("<QQ", m, 72)
        used, = struct.unpack_from("<I", m, 88)
        for i in range(used):
            h = table_off + i * ksize
            off, _, chunk = struct.unpack_from("<QII", m, h + 32)
            owner, = struct.unpack_from("<I", m, h + 56)
            flags, = struct.unpack_from("<I", m, h + 64)
            if flags & 0x80000000:
                mod = m[h + 160:h + 191].split(b"\0")[0].decode()
                nm = m[h + 191:h + 222].split(b"\0")[0].decode()
                spans.append((mod, nm, owner, off, chunk))
        m.close()
    for fd in fds:
        os.close(fd)
    return spans, arena


def test_placement_offsets():
    """KstatCreate's at_segment and at_offset (where a restarted statsd
    should lay a published blob out) are a peer's: nobody's offsets over
    root's blob, inside it, off a chunk boundary, in the segment's table,
    past the arena, wrapping, in a segment it has no kstat in, or of a
    segment that does not exist are ignored (the kstat is made elsewhere,
    with the same reply), one on a free chunk is honoured, no chunk ever
    overlaps another, and nobody is charged the chunks its kstats take,
    as without an offset."""
    d = daemon()
    vspec = ok(d.call("io.statsd.TemplateAdd", TPL_APP), "TemplateAdd",
               False)["template"]["spec"]
    ok(d.call("io.statsd.KstatCreate", {"module": "root", "instance": 0,
                                        "name": "victim",
                                        "template": vspec}),
       "root's victim")
    spans, (aoff, asize) = segment_spans(d)
    victim = [x for x in spans if x[1] == "victim"]
    check(len(victim) == 1 and victim[0][4] >= 256, "the victim: %s" %
          victim)
    voff = victim[0][3] if victim else aoff
    free = aoff + asize // 2        # far past anything made yet
    h = Hostile(d)
    tpl = {"name": "PLACE", "vois": [{"id": 0, "name": "v",
                                      "dtype": "INT_U64",
                                      "stats": [{"kind": "SUM"}]}]}
    spec = h.calls([("io.statsd.TemplateAdd", tpl)])[0].get(
        "parameters", {}).get("template", {}).get("spec", "PLACE")
    hints = [("over", "public", voff), ("inside", "public", voff + 128),
             ("free", "public", free), ("misaligned", "public", free + 648),
             ("table", "public", 64), ("end", "public", aoff + asize),
             ("last", "public", aoff + asize - 64 * 1024),
             ("huge", "public", 2 ** 62), ("max", "public", 2 ** 63 - 64),
             ("private", "private", free + 4096),
             ("nope", "zone4242", free + 8192), ("plain", None, None)]
    calls = []
    for name, seg, off in hints:
        p = {"module": "nobody", "instance": 0, "name": name,
             "template": spec}
        if seg is not None:
            p.update(at_segment=seg, at_offset=off)
        calls.append(("io.statsd.KstatCreate", p))
    calls.append(("io.statsd.KstatCreateMany", {
        "template": spec, "kstats": [
            {"module": "nobody", "instance": 1, "name": "many_over",
             "at_segment": "public", "at_offset": voff},
            {"module": "nobody", "instance": 1, "name": "many_free",
             "at_segment": "public", "at_offset": free + 12 * 1024}]}))
    for bad in ({"at_offset": 0}, {"at_offset": -64},
                {"at_segment": "x" * 40}):
        p = {"module": "nobody", "instance": 2, "name": "bad",
             "template": spec, "at_segment": "public", "at_offset": free}
        p.update(bad)
        calls.append(("io.statsd.KstatCreate", p))
    replies = h.calls(calls)
    made = [r.get("parameters", {}).get("kstat", {}) for r in
            replies[:len(hints)]]
    check(all("error" not in r for r in replies[:len(hints) + 1]),
          "every offset is a kstat made: %s" % [
              r.get("error") for r in replies[:len(hints) + 1]])
    check(len({tuple(sorted(k)) for k in made}) == 1,
          "one reply shape, honoured or not")
    for r, bad in zip(replies[len(hints) + 1:], ("at_offset", "at_offset",
                                                  "at_segment")):
        expect_error(r, "org.varlink.service.InvalidParameter",
                     "a bad %s" % bad,
                     parameter=bad)
    spans, _ = segment_spans(d)
    where = {x[1]: x[3] for x in spans if x[2] == NOBODY}
    check(where.get("free") == free and
          where.get("many_free") == free + 12 * 1024,
          "free chunks asked for are given: %s" % where)
    check(where.get("last") == aoff + asize - 64 * 1024,
          "and the arena's last")
    for name, off in (("over", voff), ("many_over", voff),
                      ("inside", voff + 128),
                      ("misaligned", free + 648), ("private", free + 4096),
                      ("nope", free + 8192)):
        check(where.get(name) not in (None, off),
              "%s: laid out elsewhere (%s)" % (name, where.get(name)))
    spans.sort(key=lambda x: x[3])
    check(all(a[3] + a[4] <= b[3] for a, b in zip(spans, spans[1:])) and
          all(aoff <= x[3] and x[3] + x[4] <= aoff + asize for x in spans),
          "no chunk overlaps another or leaves the arena: %s" % [
              (x[1], x[3], x[4]) for x in spans])
    check([x for x in spans if x[1] == "victim"] == victim,
          "root's victim is where it was")
    charged = user_usage(d, NOBODY).get("arena_bytes")
    check(charged == sum(x[4] for x in spans if x[2] == NOBODY),
          "nobody is charged the chunks its kstats take: %s" % charged)
    # Placed or not, they are deleted as any.
    h.calls([("io.statsd.KstatDelete", {"module": "nobody", "instance": i,
                                        "name": n})
             for i, n in [(0, x[0]) for x in hints] +
             [(1, "many_over"), (1, "many_free")]])
    check(not [x for x in segment_spans(d)[0] if x[2] == NOBODY],
          "nobody's kstats are gone")
    h.quit()
    d.stop()
    d.cleanup()


# ------------------------------------------------------- descriptors
def test_descriptor_limit_raised():
    """statsd raises its soft descriptor limit to the hard one: systemd
    starts services at 1024, no more than max_connections alone, and a
    crowd of peers could run statsd out of descriptors below its quotas."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard <= 256:
        print("SKIP: hard descriptor limit %d" % hard)
        return
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))
    try:
        d = daemon()
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    with open("/proc/%d/limits" % d.proc.pid) as f:
        row = [ln.split()[3:5] for ln in f if ln.startswith("Max open files")]
    check(row == [[str(hard), str(hard)]],
          "started at a soft limit of 256, statsd runs at the hard %d: %s"
          % (hard, row))
    d.stop()
    d.cleanup()


TESTS = [test_row1_backtracking_pattern, test_row2_pattern_compile_size,
         test_row1_row2_work_is_sliced, test_row4_full_runtime_dir,
         test_row6_every_kind_survives, test_row7_arena_quota,
         test_row8_template_quota, test_row9_checkpoint_incremental,
         test_row9_persistent_bytes_quota,
         test_row9_checkpoint_torn_and_v1,
         test_row11_connections_reserve_root,
         test_row11_buffered_bytes_bounded,
         test_row11_listen_backlog,
         test_row12_row15_state_dir_unusable,
         test_row13_corrupted_checkpoints, test_row14_privilege_leaks,
         test_own_modules_not_squatted, test_placement_offsets,
         test_descriptor_limit_raised]

if __name__ == "__main__":
    only = sys.argv[1:]
    for t in TESTS:
        if not only or t.__name__ in only:
            print("--", t.__name__, flush=True)
            t()
    finish()
