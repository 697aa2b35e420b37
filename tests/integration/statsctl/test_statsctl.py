# SPDX-License-Identifier: BSD-2-Clause
"""test_statsctl.py: statsctl against a real statsd. Every verb and every
output format is run on a fixed set of kstats and compared with a golden
file under golden/ (times, hashes, ids and paths normalised); exit
statuses 0, 1 and 2 with the message on stderr; --help of every verb; the
watch table on a pseudo-terminal; rates from live updates; the bash
completion.

STATSCTL_GOLDEN_UPDATE=1 writes the golden files instead of comparing:
review every change by eye before accepting it.
"""
import difflib
import json
import os
import pty
import re
import select
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import harness  # noqa: E402
from harness import (SANITIZER_MARKS, SETPRIV, TPL_APP, Daemon,  # noqa
                     RingClient, as_user, check, finish, info, ok, spawn,
                     wait_for)

STATSCTL = os.environ.get("STATSCTL", "statsctl")
GOLDEN = os.path.join(HERE, "golden")
UPDATE = os.environ.get("STATSCTL_GOLDEN_UPDATE") == "1"
COMPLETION = os.path.join(os.environ.get("STATSD_SRCDIR",
                                         os.path.join(HERE, "..", "..", "..")),
                          "src", "statsctl", "completion",
                          "statsctl.bash")

KINDS = {"name": "KINDS", "vois": [
    {"id": 0, "name": "a", "dtype": "INT_S64", "stats": [
        {"kind": "SUM"}, {"kind": "COUNT"},
        {"kind": "HIST", "scheme": "EXP", "lb": 1, "ub": 1024,
         "stepbase": 2, "stepexp": 1, "counters": 32},
        {"kind": "TDGST", "nctds": 16, "counters": 32}]},
    {"id": 1, "name": "b", "dtype": "INT_U64", "stats": [
        {"kind": "K2HIST", "scheme": "LOG2", "lb": 1, "ub": 1 << 20}]},
    {"id": 2, "name": "c", "dtype": "INT_U32", "stats": [
        {"kind": "HIST", "range": "DV", "scheme": "USR",
         "buckets": [1, 2, 3]}]},
    {"id": 3, "name": "d", "dtype": "INT_U32", "stats": [
        {"kind": "HIST", "range": "DR", "scheme": "USR",
         "buckets": [0, 10, 10, 20]}]},
]}
DISK = {"name": "DISK", "vois": [
    {"id": 0, "name": "io", "dtype": "INT_S64", "stats": [{"kind": "IOQ"}]}]}
LNX = {"name": "LNX", "vois": [
    {"id": 0, "name": "ops", "dtype": "INT_S64",
     "stats": [{"kind": "DEFN", "units": "ops"}]},
    {"id": 1, "name": "lat", "dtype": "INT_S64",
     "stats": [{"kind": "DEFN", "units": "us"}]}]}

# Normalisation, for every output: what changes from run to run.
RULES = [
    # kstat times (crtime, snaptime) in every form: -p, -C, default, JSON.
    (r'(\b(?:crtime|snaptime)"?(?::|\t| )\s*)-?\d+(?:\.\d+)?', r"\1<T>"),
    (r"\b\d+\.\d{9}\b", "<T>"),
    # Linux timestamps.
    (r"\[\s*\d+\.\d{6}\]", "[<TS>]"),
    (r'("(?:data|started|stopped)": )"\d+\.\d{6}"', r'\1"<TS>"'),
    # watch's wall clock.
    (r"(?m)^\d{9,11}\.\d{3}\b", "<WALL>"),
    (r'"time":[\d.e+]+', '"time":<WALL>'),
    # Template hashes, in specs and as numbers (not watch -j's keys).
    (r'((?:\\?")(?!(?:report|value|rate)")[A-Za-z_][\w.]*(?:\\?")):\d+',
     r"\1:<HASH>"),
    (r'("(?:hash|tplhash)": )[\d.e+]+', r"\1<HASH>"),
    # Ids, owners and processes.
    (r'("(?:kid|handle|slot|gen|owner|pid|uid|gid|uptime_ns|clients|'
     r'rings|drain_passes|slices|kcid)": )\d+', r"\1<N>"),
    (r'"raw": "[^"]*"', '"raw": "<BASE64>"'),
]
# Extra rules for some cases.
TAB_HASH = [(r"(?m)^(\S+)\t\d+\t", r"\1\t<HASH>\t")]
INFO = [
    (r"(?m)^(\s+(?:PID|Clients|Rings|Chain ID)): \d+", r"\1: <N>"),
    (r"(?m)^(\s+Uptime): .*", r"\1: <SPAN>"),
    (r"(?m)^(\s+Drain): \d+ passes", r"\1: <N> passes"),
    (r"(uid|gid|pid) \d+", r"\1 <N>"),
    (r"(?m)^((?:pid|uptime_ns|clients|rings|drain_passes|slices|kcid|"
     r"peer\.pid|"
     r"peer\.uid|peer\.gid)\t)\d+", r"\1<N>"),
    # Connections and their buffers: statsctl's and the test's own.
    (r'("(?:connections|buffered_bytes)": \{\s+"used": )\d+', r"\1<N>"),
    (r'("(?:connections|buffered_bytes)": )\d+', r"\1<N>"),
    (r'("(?:log_bytes|live_bytes|written_bytes|syncs)": )\d+', r"\1<N>"),
]

d = Daemon().start()
ENV = dict(os.environ, STATSD_SOCKET=d.sock, LC_ALL="C", TZ="UTC")
ENV.pop("COLUMNS", None)


def norm(text, extra=()):
    text = text.replace(d.tmp, "<TMP>")
    for pat, rep in list(RULES) + list(extra):
        text = re.sub(pat, rep, text)
    return text


def run(argv, stdin=None, env=None, user=False):
    """statsctl argv; as nobody when user is true."""
    argv = [STATSCTL] + argv
    p = harness.run(as_user(argv) if user else argv, input=stdin,
                    capture_output=True, text=True, env=env or ENV,
                    timeout=60)
    for mark in SANITIZER_MARKS:
        check(mark not in p.stderr, "statsctl %s: sanitizer report:\n%s"
              % (" ".join(argv), p.stderr[-3000:]))
    return p


def golden(name, text):
    """Compare text with golden/<name>.txt (or write it)."""
    path = os.path.join(GOLDEN, name + ".txt")
    if UPDATE:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return
    try:
        with open(path, encoding="utf-8") as f:
            want = f.read()
    except FileNotFoundError:
        check(False, "no golden file %s" % path)
        return
    if not check(text == want, "golden %s differs" % name):
        sys.stdout.writelines(difflib.unified_diff(
            want.splitlines(True), text.splitlines(True),
            "golden/" + name + ".txt", "statsctl"))


def case(name, argv, rc=0, stdin=None, extra=(), stderr_has=None):
    """Run statsctl, check its exit status (and stderr), and compare a
    transcript (command, stdout, stderr, exit) with golden/<name>.txt."""
    p = run(argv, stdin=stdin)
    check(p.returncode == rc, "%s: exit %d, expected %d; stderr: %s"
          % (name, p.returncode, rc, p.stderr))
    if rc == 0:
        check(p.stderr == "", "%s: quiet stderr: %r" % (name, p.stderr))
    else:
        check(p.stderr.startswith("statsctl: ") or p.stderr == "",
              "%s: stderr starts with statsctl: %r" % (name, p.stderr))
    if rc == 2:
        check("\nusage: statsctl " in p.stderr, "%s: the usage follows a "
              "usage error: %r" % (name, p.stderr))
    if stderr_has is not None:
        check(stderr_has in p.stderr, "%s: stderr has %r: %r"
              % (name, stderr_has, p.stderr))
    text = "$ statsctl %s\n" % " ".join(argv)
    if stdin is not None:
        text += "--- stdin\n" + stdin + "--- stdout\n"
    text += p.stdout
    if p.stderr:
        text += "--- stderr\n" + p.stderr
    text += "--- exit %d\n" % p.returncode
    golden(name, norm(text, extra))
    return p


# ------------------------------------------------------------ fixture
c = d.conn()
specs = {}
for tpl in (TPL_APP, KINDS, DISK, LNX):
    specs[tpl["name"]] = ok(c.call("io.statsd.TemplateAdd", tpl),
                            "TemplateAdd " + tpl["name"])["template"]["spec"]
for m, n, t, cls, typ, flags in (
        ("app", "req", "APP", "net", "BLOB", ["WRITABLE"]),
        ("app", "kinds", "KINDS", "test", "BLOB", []),
        ("sd", "sd0", "DISK", "disk", "IO", []),
        ("lnx", "dev", "LNX", "scsi", "BLOB", [])):
    ok(c.call("io.statsd.KstatCreate", {
        "module": m, "instance": 0, "name": n, "template": specs[t],
        "class": cls, "type": typ, "flags": flags}), "KstatCreate " + n)
ok(c.call("io.statsd.Write", {"module": "app", "instance": 0, "name": "req",
                              "values": {"state": -7}}), "Write state")
c.close()

# Linux statistics are created off: statsctl turns them on and makes lat
# an array before data arrives (these are also the on and define cases).
case("on-all", ["on", "lnx:0:dev"])
case("define", ["define", "lnx:0:dev", "name=lat type=array "
                "base_interval=100 scale=lin range_min=0 range_max=500"])

rc = RingClient(d.sock)
pushes = ["handle app 0 kinds", "attach"]
for v in (1, 2, 3, 5, 100, 700):
    pushes += ["push 3 0 %d" % v, "push 2 1 %d" % v, "push 1 2 %d" % (v % 4),
               "push 1 3 %d" % (v % 25)]
pushes += ["handle app 0 req"]
for v in (10, 20, 250, 999):
    pushes += ["push 2 1 %d" % v, "push 1 0 %d" % v]
pushes += ["handle sd 0 sd0", "pushxy 1 0 4096 2", "pushxy 1 0 -512 1",
           "handle lnx 0 dev", "push 3 0 1", "push 1 1 50", "push 2 1 150",
           "push 1 1 420", "push 1 1 9999"]
check(rc.cmd("connect").startswith("ok"), "ring_client connects")
for line in pushes:
    out = rc.cmd(line)
    check(out.startswith("ok"), "ring_client %s: %s" % (line, out))
pushed = rc.counters()[0]
wait_for(lambda: info(d).get("applied", 0) >= pushed,
         "statsd to apply %d updates" % pushed)

# --------------------------------------------------------------- show
case("show-default", ["show", "app::req"])
case("show-p", ["show", "-p", "app::req"])
case("show-j", ["show", "-j", "app::req"])
case("show-C", ["show", "-C", "app::/^(kinds|req)$/:/^[lr]/"])
case("show-l", ["show", "-l", "app"])
case("show-options", ["show", "-p", "-m", "app", "-n", "req", "-s",
                      "requests*"])
case("show-class", ["show", "-c", "disk"])
case("show-io-p", ["show", "-p", "sd:0:sd0"])
case("show-two", ["show", "-p", "app::req:requests.count",
                  "app::req:state*"])
case("show-j-two", ["show", "-j", "app::req:state*", "nope",
                    "sd:::reads"])
case("show-j-none", ["show", "-j", "nope"], rc=1,
     stderr_has="no kstat matches 'nope'")
case("show-global-json", ["--json", "show", "app::req:state*"])
case("show-interval", ["show", "-p", "app::req:requests.count", "1", "2"])
case("show-T-u", ["show", "-T", "u", "-p", "app::req:requests.count"],
     extra=[(r"(?m)^\d{9,11}$", "<EPOCH>")])
case("show-q", ["show", "-q", "app"])
case("show-q-none", ["show", "-q", "nope"], rc=1)
case("show-none", ["show", "app:7"], rc=1,
     stderr_has="statsctl: show: no kstat matches 'app:7'")
case("show-bad-option", ["show", "-x"], rc=2,
     stderr_has="unknown option -x")
case("show-three-numbers", ["show", "app", "1", "2", "3"], rc=2)
case("show-zero-interval", ["show", "app", "0"], rc=2)
case("show-q-p", ["show", "-q", "-p"], rc=2)
case("show-bad-regex", ["show", ":::/(/"], rc=2,
     stderr_has="bad selector ':::/(/'")
case("show-mixed", ["show", "-m", "app", "app::req"], rc=2)
case("show-bad-T", ["show", "-T", "x"], rc=2)

# ------------------------------------------------------------- iostat
# The figures are rates over the kstat's life (snaptime - crtime), so the
# golden files hide them; iostat_exact() checks them to the digit.
# An all-zero line (a report over no change) stays.
RATES = [(r"(?m)^(\S+)(?!(?: +0\.0){7}(?: +0){2} $)(?: +\d+\.\d){7}"
          r"(?: +\d+){2} $", r"\1 <RATES>"),
         (r"(?m)^(?!(?: +0\.0){8}(?: +0){2} )(?: +\d+\.\d){8}(?: +\d+){2}"
          r" (\S+)$", r"<RATES> \1")]
case("iostat-x", ["iostat", "-x", "sd:0:sd0"], extra=RATES)
case("iostat-xn", ["iostat", "-xn", "sd:0:sd0"], extra=RATES)
case("iostat-all", ["iostat"], extra=RATES)
# A second report over an unchanged kstat: every figure is 0.
case("iostat-interval", ["iostat", "-x", "sd:0:sd0", "0.2", "2"],
     extra=RATES)
case("iostat-none", ["iostat", "app::req"], rc=1,
     stderr_has="no I/O kstat matches 'app::req'")
case("iostat-none-interval", ["iostat", "app::req", "0.2"], rc=1,
     stderr_has="no I/O kstat matches 'app::req'")
case("iostat-three-numbers", ["iostat", "1", "2", "3"], rc=2)
case("iostat-late-selector", ["iostat", "1", "sd"], rc=2)
case("iostat-bad-option", ["iostat", "-q"], rc=2)
case("iostat-bad-interval", ["iostat", "0"], rc=2)
case("iostat-statistic", ["iostat", "sd:::reads"], rc=2,
     stderr_has="iostat takes module:instance:name")
case("iostat-star-statistic", ["iostat", "-x", "sd:::*"], extra=RATES)


IO_COUNTS = ("reads", "writes", "nread", "nwritten", "wtime", "wlentime",
             "rtime", "rlentime")


def iostat_want(old, cur):
    """The -x line of sd0 between two readings of it (old None: since its
    creation), computed as illumos iostat does (iostat.c), as the
    figures' doubles and printf's rounding give them."""
    if old is None:
        old = dict.fromkeys(IO_COUNTS, 0)
        old["snaptime"] = cur["crtime"]
    dt = cur["snaptime"] - old["snaptime"]
    hr = 1e9 if dt == 0 else float(dt)
    et = hr / 1e9
    d = {k: cur[k] - old[k] for k in IO_COUNTS}
    rps, wps = d["reads"] / et, d["writes"] / et
    krps, kwps = d["nread"] / et / 1024.0, d["nwritten"] / et / 1024.0
    wait, actv = d["wlentime"] / hr, d["rlentime"] / hr
    tps = rps + wps
    wsvc = wait * 1000.0 / tps if tps > 0 else 0.0
    asvc = actv * 1000.0 / tps if tps > 0 else 0.0
    pw, pb = 100.0 * d["wtime"] / hr, 100.0 * d["rtime"] / hr
    return ("%-6s %6.1f %6.1f %6.1f %6.1f %4.1f %4.1f %6.1f %3.0f %3.0f \n"
            % ("sd0", rps, wps, krps, kwps, wait, actv, wsvc + asvc, pw,
               pb),
            " %6.1f %6.1f %6.1f %6.1f %4.1f %4.1f %6.1f %6.1f %3.0f %3.0f "
            "sd0\n" % (rps, wps, krps, kwps, wait, actv, wsvc, asvc, pw,
                       pb))


def iostat_exact():
    """iostat's first report covers the kstat's life: every figure of it
    is its kstat_io count over snaptime - crtime, both read from show -p
    (the kstat does not change in between), formatted as iostat -x and
    -xn print them."""
    p = run(["show", "-p", "sd:0:sd0"])
    vals = dict((line.split("\t", 1)[0].split(":")[3],
                 line.split("\t", 1)[1]) for line in p.stdout.splitlines())
    cur = {}
    for t in ("crtime", "snaptime"):
        check(re.match(r"^\d+\.\d{9}$", vals[t]) is not None,
              "show -p's %s is seconds.nanoseconds: %r" % (t, vals[t]))
        cur[t] = int(vals[t].replace(".", ""))
    cur.update({k: int(vals[k]) for k in IO_COUNTS})
    check(tuple(cur[k] for k in IO_COUNTS[:4]) == (2, 1, 4096, 512),
          "sd0's counts as pushed: %r" % cur)
    check(cur["snaptime"] > cur["crtime"],
          "sd0 was updated after its creation: %r" % cur)
    want_x, want_xn = iostat_want(None, cur)
    for argv, want in ((["iostat", "-x", "sd:0:sd0"], want_x),
                       (["iostat", "-xn", "sd:0:sd0"], want_xn)):
        p = run(argv)
        lines = p.stdout.splitlines(True)
        check(p.returncode == 0 and len(lines) == 3 and lines[2] == want,
              "%s: %r, want the line %r (from %r)"
              % (" ".join(argv), p.stdout, want, cur))


iostat_exact()

# -------------------------------------------------------------- watch
case("watch-lines", ["watch", "-i", "0.2", "-n", "2", "app::req"])
case("watch-p", ["watch", "-p", "-i", "0.2", "-n", "1", "app::req"])
case("watch-j", ["watch", "-j", "-i", "0.2", "-n", "1", "sd:0:sd0"])
case("watch-io", ["watch", "-i", "0.2", "-n", "1", "-c", "disk"])
# A SUM of a signed VOI may fall: watch shows it as a gauge (no rate); the
# COUNT beside it is a counter.
case("watch-signed-sum", ["watch", "-p", "-i", "0.2", "-n", "1",
                          "app:0:kinds:/^a\\./"])
case("watch-too-fast", ["watch", "-i", "0.01", "-n", "1"], rc=1,
     stderr_has="watch_min_interval_ms")
case("watch-zero-count", ["watch", "-n", "0"], rc=2)
case("watch-bad-interval", ["watch", "-i", "x"], rc=2)


def watch_tty():
    """watch on a pseudo-terminal: the table, redrawn."""
    master, slave = pty.openpty()
    p = spawn([STATSCTL, "watch", "-i", "0.2", "-n", "2", "app::req"],
              stdin=subprocess.DEVNULL, stdout=slave,
              stderr=subprocess.PIPE, env=ENV)
    os.close(slave)
    out = b""
    while True:
        r, _, _ = select.select([master], [], [], 30)
        if not r:
            break
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    rcode = p.wait(timeout=30)
    err = p.stderr.read().decode()
    p.stderr.close()
    check(rcode == 0, "watch on a terminal exits 0: %s" % err)
    text = out.decode().replace("\r\n", "\n").replace("\x1b[H\x1b[2J",
                                                       "<CLEAR>")
    check(text.count("<CLEAR>") == 2, "the table is redrawn per report")
    text = re.sub(r"\d\d:\d\d:\d\d", "<HH:MM:SS>", text)
    golden("watch-tty", "$ statsctl watch -i 0.2 -n 2 app::req "
           "(on a terminal)\n" + text)


watch_tty()



# --------------------------------------------------------------- hist
case("hist-all", ["hist", "app:0:kinds"])
case("hist-voi", ["hist", "app:0:req:latency"])
case("hist-p", ["hist", "-p", "app:0:kinds"])
case("hist-j", ["hist", "-j", "app:0:req:latency"])
case("hist-array", ["hist", "lnx:0:dev"])
case("hist-none", ["hist", "app:0:req:state"], rc=1,
     stderr_has="app:0:req:state has no histogram")
case("hist-no-voi", ["hist", "app:0:req:nope"], rc=1,
     stderr_has="app:0:req has no VOI 'nope'")
case("hist-no-kstat", ["hist", "app:7:req"], rc=1,
     stderr_has="no such kstat: app:7:req")
case("hist-bad-kstat", ["hist", "app"], rc=2)

# ------------------------------------------------- data and definitions
case("data", ["data", "lnx:0:dev"])
case("data-j", ["data", "-j", "lnx:0:dev"])
case("data-p", ["data", "-p", "lnx:0:dev"])
case("data-not-linux", ["data", "app:0:req"], rc=1,
     stderr_has="app:0:req has no Linux statistics")
case("data-no-kstat", ["data", "app:9:x"], rc=1,
     stderr_has="no such kstat: app:9:x")
case("definition", ["definition", "lnx:0:dev"])
case("definition-j", ["definition", "-j", "lnx:0:dev"])
case("definition-p", ["definition", "-p", "lnx:0:dev"])
case("define-bad", ["define", "lnx:0:dev", "name=lat range_min=zz"], rc=1,
     stderr_has="line 1, column 10, range_min:")
case("define-stdin", ["define", "lnx:0:dev", "-"],
     stdin="name=ops on=0\nname=lat on=1\n")
case("define-no-text", ["define", "lnx:0:dev"], rc=2)
case("off-one", ["off", "lnx:0:dev", "lat"])
case("definition-after", ["definition", "lnx:0:dev"])
case("on-unknown", ["on", "lnx:0:dev", "nope"], rc=1,
     stderr_has="lnx:0:dev: invalid definition: line 1, column 1, name: "
     "no statistic named 'nope'")
case("on-not-linux", ["on", "app:0:req"], rc=1)
case("reset-one", ["reset", "lnx:0:dev", "lat"])
case("data-after-reset", ["data", "lnx:0:dev"])

# ----------------------------------------------- snapshot, templates...
case("snapshot", ["snapshot", "app:0:req"])
case("snapshot-p", ["snapshot", "-p", "app:0:req"])
case("snapshot-raw", ["snapshot", "--raw", "-p", "sd:0:sd0"])
p = run(["snapshot", "--raw", "sd:0:sd0"])
check(p.returncode == 0 and '"raw": "' in p.stdout, "--raw adds the blob")
case("snapshot-reset", ["snapshot", "--reset", "-p", "app:0:kinds"])
case("after-snapshot-reset", ["show", "-p", "app::kinds"])
case("reset", ["reset", "app:0:req"])
case("after-reset", ["show", "-p", "app::req"])
case("reset-no-kstat", ["reset", "app:9:req"], rc=1)
case("templates", ["templates"])
case("templates-l", ["templates", "-l"])
case("templates-p", ["templates", "-p"], extra=TAB_HASH)
case("templates-j", ["templates", "-j"])
case("templates-extra", ["templates", "x"], rc=2)
case("sample-rates-none", ["sample-rates"])
case("sample-rates-set", ["sample-rates", "APP=40,KINDS=10"])
case("sample-rates-p", ["sample-rates", "-p"], extra=TAB_HASH)
case("sample-rates-j", ["sample-rates", "-j"])
case("sample-rates-bad", ["sample-rates", "NOPE=5"], rc=1,
     stderr_has="no such template")
case("scrape", ["scrape", "app::req"])
case("scrape-kstat", ["scrape", "--format", "kstat", "-c", "net"])
case("scrape-linux", ["scrape", "--format", "linux"])
case("scrape-bad-format", ["scrape", "--format", "xml"], rc=2)
case("scrape-bad-selector", ["scrape", "a:b:c:d:e"], rc=2)
case("info", ["info"], extra=INFO)
case("info-p", ["info", "-p"], extra=INFO)
case("info-j", ["info", "-j"], extra=INFO)
case("info-c", ["info", "-c"], extra=INFO)

# Errors before any call: no daemon, no verb, an unknown verb.
case("no-daemon", ["--socket", "/nonexistent/statsd.sock", "info"], rc=1,
     stderr_has="cannot connect to /nonexistent/statsd.sock: No such file "
     "or directory (is statsd running?)")
case("no-verb", [], rc=2)
case("unknown-verb", ["frobnicate"], rc=2)

# The admin right, as nobody (root and setpriv only).
if os.getuid() == 0 and SETPRIV is not None:
    os.chmod(d.run, 0o755)
    p = run(["sample-rates", "APP=1"], user=True)
    check(p.returncode == 1 and p.stderr == "statsctl: sample rates: "
          "permission denied: SampleRatesSet needs the admin right\n",
          "permission denied as nobody: %d %r" % (p.returncode, p.stderr))

def watch_rates():
    """Rates come from live updates: a counter's rate in a report is its
    change since the report before over the change in its kstat's
    snaptime, the time statsd last updated it. After each report the
    test pushes a batch of updates and, once statsd has applied it, notes
    the count and snaptime it has; a later report that shows a new count
    must show exactly (count - count before) / (snaptime - snaptime
    before). How fast the machine is changes which reports see which
    batch, never what their rates must be. (A batch statsd drained in
    two passes gives a count the test has no snaptime for: that report
    is not checked.)"""
    key = "app:0:req:requests.count"
    rc.cmd("handle app 0 req")

    def now():
        r = ok(d.call("io.statsd.Read", {"module": "app", "instance": 0,
                                         "name": "req"}), "Read", False)
        return r.get("data", {}).get("requests.count"), r.get("snaptime")

    count, snap = now()
    snaps = {count: snap}
    p = spawn([STATSCTL, "watch", "-j", "-i", "0.3", "-n", "6", key],
              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
              stderr=subprocess.PIPE, text=True, env=ENV)
    prev, reports, checked = None, 0, 0
    for line in p.stdout:
        reports += 1
        try:
            st = [x for x in json.loads(line)["stats"]
                  if x["statistic"] == key][0]
        except (ValueError, KeyError, IndexError):
            check(False, "watch -j: a report of %s: %r" % (key, line))
            break
        value, rate = st["value"], st.get("rate")
        if prev is not None and value != prev and value in snaps and \
                prev in snaps:
            want = (value - prev) / ((snaps[value] - snaps[prev]) / 1e9)
            check(rate is not None and abs(rate - want) <= 1e-6 * want,
                  "watch: %s went %d -> %d: rate %s, want %s" % (
                      key, prev, value, rate, want))
            checked += 1
        prev = value
        n = 10 * reports
        rc.counters("push %d 0 1" % n)
        count += n
        wait_for(lambda: now()[0] == count, "statsd to apply %d updates" % n)
        snaps[count] = now()[1]
    err = p.stderr.read()
    check(p.wait(timeout=harness.DEADLINE) == 0 and reports == 6,
          "watch -j gives 6 reports: %d, %s" % (reports, err))
    check(checked > 0, "a rate from live updates checked (%d)" % checked)


watch_rates()


def iostat_deltas():
    """After the first, each iostat report covers the change since the
    report before. After each report the test makes one read of its own
    size (one ring record, so statsd applies it whole) and, once statsd
    has, notes the kstat's counts and snaptime (Read). A report sees one
    of the states so noted, never an earlier one than the report before
    it did: its line must be exactly the figures between the two (all 0
    for the same state). How fast the machine is changes which reports
    see which state, never what their lines must be; iostat runs until a
    report has shown a change (or 40 reports, a failure)."""
    rc.cmd("handle sd 0 sd0")

    def now():
        r = ok(d.call("io.statsd.Read", {"module": "sd", "instance": 0,
                                         "name": "sd0"}), "Read sd0", False)
        st = dict(r.get("data", {}), snaptime=r.get("snaptime"),
                  crtime=r.get("kstat", {}).get("crtime"))
        check(all(isinstance(st.get(k), int) for k in
                  IO_COUNTS + ("snaptime", "crtime")),
              "Read sd0 gives its counts and times: %r" % r)
        return st

    states = [now()]
    p = spawn([STATSCTL, "iostat", "-x", "sd:0:sd0", "0.3"],
              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
              stderr=subprocess.PIPE, text=True, env=ENV)
    seen, reports, changed = None, 0, 0
    for line in p.stdout:
        if not line.startswith("sd0 "):
            continue
        reports += 1
        if seen is None:
            cands = [(k, iostat_want(None, states[k])[0])
                     for k in range(len(states))]
        else:
            cands = [(k, iostat_want(states[seen], states[k])[0])
                     for k in range(seen, len(states))]
        match = [k for k, want in cands if want == line]
        if not check(match, "iostat report %d: %r is none of %r" % (
                reports, line, [w for _, w in cands])):
            break
        if seen is not None and match[0] > seen:
            changed += 1
        seen = match[0]
        if changed > 0 or reports >= 40:
            break
        size = 1000 * (len(states) + 1)
        out = rc.cmd("pushxy 1 0 %d 1" % size)
        check(out.startswith("ok"), "pushxy: %s" % out)
        want = states[-1]["nread"] + size
        wait_for(lambda: now()["nread"] == want,
                 "statsd to apply a read of %d bytes" % size)
        states.append(now())
    p.terminate()
    p.wait(timeout=harness.DEADLINE)
    err = p.stderr.read()
    check(changed > 0, "an iostat report over a change: %d reports, %s"
          % (reports, err))
    check(err == "" or err.startswith("statsctl: "),
          "iostat's stderr: %r" % err)


iostat_deltas()

# --help for every verb, and the global help and version.
VERBS = ["show", "watch", "iostat", "hist", "data", "definition", "define",
         "on", "off", "reset", "snapshot", "templates", "sample-rates",
         "scrape", "info"]
helps = ""
for v in VERBS:
    p = run([v, "--help"])
    check(p.returncode == 0 and p.stdout.startswith("usage: statsctl " + v)
          and p.stderr == "", "%s --help" % v)
    helps += "$ statsctl %s --help\n%s" % (v, p.stdout)
    p2 = run(["help", v])
    check(p2.stdout == p.stdout, "statsctl help %s is %s --help" % (v, v))
p = run(["--help"])
check(p.returncode == 0 and all("  %s " % v in p.stdout for v in VERBS),
      "statsctl --help lists every verb")
helps += "$ statsctl --help\n" + p.stdout
golden("help", helps)
p = run(["--version"])
check(p.returncode == 0 and re.match(r"statsctl \d+\.\d+", p.stdout),
      "--version: %r" % p.stdout)

# The bash completion completes verbs, options and kstats.
BASH = shutil.which("bash")
if BASH is not None:
    def complete(words, breaks=" "):
        """COMPREPLY for the line; with ':' out of COMP_WORDBREAKS (the
        default here) replies are whole words."""
        script = ('source "%s"; COMP_WORDBREAKS="%s"; COMP_LINE="%s"; '
                  'COMP_POINT=${#COMP_LINE}; _statsctl; '
                  'printf "%%s\\n" "${COMPREPLY[@]}"'
                  % (COMPLETION, breaks, " ".join(words)))
        p = harness.run([BASH, "--norc", "-c", script],
                        capture_output=True, text=True, env=dict(
                            ENV, PATH=os.path.dirname(STATSCTL) + ":" +
                            ENV.get("PATH", "")), timeout=30)
        return p.stdout.split()
    check(complete(["statsctl", "sh"]) == ["show"], "completes a verb")
    check("sample-rates" in complete(["statsctl", ""]), "lists every verb")
    check("--reset" in complete(["statsctl", "snapshot", "--r"]),
          "completes a verb's option")
    check(complete(["statsctl", "hist", "app:0:k"]) == ["app:0:kinds"],
          "completes a kstat name from the daemon: %s"
          % complete(["statsctl", "hist", "app:0:k"]))
    check(complete(["statsctl", "hist", "app:0:k"], breaks=" :") ==
          ["kinds"], "with ':' a word break, only what follows the last "
          "':' is offered")
    check(complete(["statsctl", "on", "lnx:0:dev", "o"]) == ["ops"],
          "completes a Linux statistic's name")
    check(complete(["statsctl", "iostat", "--n"]) == ["--names-last"],
          "completes iostat's option")
    check(complete(["statsctl", "iostat", "-n", "sd:0:s"]) == ["sd:0:sd0"],
          "completes a kstat after iostat -n (no argument of its own)")
    check(complete(["statsctl", "scrape", "--format", ""]) ==
          ["json", "kstat", "linux"], "completes a format")

rc.quit()
d.stop()
d.cleanup()
finish()
