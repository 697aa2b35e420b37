"""test_abuse.py: what an unprivileged local user can do to statsd, as
uid 65534 (and a few other system users) through setpriv — one regression
test per attack that once hung, bloated, crashed or fooled the daemon.
Each test names the attack it guards against. The ring attacks are in
test_abuse_rings.py.

Every check is of exactness or a bound (a quota, a count), never of a
time."""
import json
import os
import pwd
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import (SETPRIV, TPL_APP, Daemon, as_user, check,  # noqa: E402
                     expect_error, finish, ok, spawn, wait_for)

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
def test_connections_reserve_root():
    """Row 11: 20 uids x 64 connections left no room for root, and each
    refusal was logged. Now unprivileged users together get
    max_connections less quota_reserve_percent, each user at most
    max_connections_per_uid; root gets in; refusals are logged a few
    lines per period."""
    d = daemon("max_connections = 40\nmax_connections_per_uid = 8\n"
               "quota_reserve_percent = 10\n")
    crowd = [Hostile(d, NOBODY)] + [Hostile(d, u) for u in CROWD]
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
    check(0 < len(lines) <= 5, "refusals logged with a rate limit: %d "
          "lines" % len(lines))
    check(q["refusals"] >= 205, "every refusal counted: %d" % q["refusals"])
    for c in conns:
        c.close()
    for h in crowd:
        h.quit()
    check(d.alive(), "statsd still answers")
    d.stop()
    d.cleanup()


def test_buffered_bytes_bounded():
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
    # connections would hold max_output / 4 each, 15 MiB together.
    check(r.get("sent", 0) > 60 * 100 * 60, "the attacker sent %d bytes "
          "of calls" % r.get("sent", 0))
    peak = [0]

    def pressed():
        u = user_usage(d, NOBODY).get("buffered_bytes", 0)
        peak[0] = max(peak[0], u)
        check(u <= limit, "nobody holds at most max_buffered_per_uid: %d"
              % u, count=False)
        return quotas(d)["refusals"] > 0
    wait_for(pressed, "a connection refused at max_buffered_per_uid")
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


# ------------------------------------------------------------- rows 1, 2
def test_patterns_bounded():
    """Row 1: a backreference made glibc's regexec backtrack for ever on a
    30-character module name: the loop stopped, SIGTERM was ignored.
    Row 2: a 23-byte pattern took 10 s and 4.4 GB to compile. Patterns now
    compile to a linear-time engine: no backreferences, a bounded program,
    and each refusal says what is wrong."""
    d = daemon()
    h = Hostile(d)
    spec = ok(h.calls([("io.statsd.TemplateAdd", TPL_APP)])[0],
              "TemplateAdd as nobody")["template"]["spec"]
    ok(h.calls([("io.statsd.KstatCreate", {
        "module": "a" * 30, "instance": 0, "name": "x",
        "template": spec})])[0], "a kstat whose module is 30 a's")
    hwm = vm_hwm_kib(d)
    bad = [("/^(a|a)*\\1*$/", "backreferences are not supported"),
           ("/(a{1,32767}){1,32767}/", "repetition count over 255"),
           ("/(a{1,255}){1,255}/", "pattern too large"),
           ("/a{1,2/", "invalid {m,n}"), ("/(a/", "unmatched (")]
    rep = h.calls([("io.statsd.Lookup", {"module": p}) for p, _ in bad])
    for (p, why), r in zip(bad, rep):
        if expect_error(r, "io.statsd.InvalidValue", "Lookup " + p,
                        parameter="module"):
            check(why in r["parameters"]["reason"],
                  "%s refused as \"%s\": %s" % (p, why,
                                                 r["parameters"]["reason"]))
    # What a backtracking engine takes exponential time on, answered.
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
    check(vm_hwm_kib(d) - hwm < 64 << 10, "no memory blow-up: peak grew "
          "%d KiB" % (vm_hwm_kib(d) - hwm))
    check(d.alive(), "statsd answers everyone")
    h.quit()
    d.stop()        # checks it stops on SIGTERM, with status 0
    d.cleanup()


def test_work_is_sliced():
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


TESTS = [test_connections_reserve_root, test_buffered_bytes_bounded,
         test_patterns_bounded, test_work_is_sliced]

if __name__ == "__main__":
    only = sys.argv[1:]
    for t in TESTS:
        if not only or t.__name__ in only:
            print("--", t.__name__, flush=True)
            t()
    finish()
