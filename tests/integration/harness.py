# SPDX-License-Identifier: BSD-2-Clause
"""harness.py: the integration tests' harness. It starts a real statsd on a
private temporary directory with its stderr captured, waits for its socket
(by polling, with a deadline; never a fixed sleep), makes varlink calls,
checks every reply against io.statsd.varlink, and fails the test when the
daemon's stderr shows a sanitizer report. Standard library only.

Every process a test starts goes through spawn() or run() and dies with
the test: one cleanup path (cleanup_all) runs at exit, whether the script
finishes, fails a check, raises, or is stopped by a signal; and each child
carries a parent-death signal (setpriv --pdeathsig), so even a test killed
with SIGKILL leaves nothing behind. Processes run as another user get
copies of what they need in a world-readable directory (stage()), since a
checkout under a 0700 home is out of their reach.

Environment (set by meson): STATSD (the daemon), RING_CLIENT (the C
producer), STATSD_SRCDIR (the source tree). STATSD_TEST_TMPDIR: where the
temporary directories go (default: the system's). STATSD_TEST_FAIL_ON_PURPOSE
(check, raise, term or kill): fail in that way as soon as the first ring
client has started, so that test_cleanup.py can prove the cleanup.
"""
import array
import atexit
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

STATSD = os.environ.get("STATSD", "statsd")
RING_CLIENT = os.environ.get("RING_CLIENT", "ring_client")
SRCDIR = os.environ.get("STATSD_SRCDIR",
                        os.path.join(os.path.dirname(__file__), "..", ".."))
IDL_PATH = os.path.join(SRCDIR, "src", "daemon", "proto", "io.statsd.varlink")
SETPRIV = shutil.which("setpriv")
TMPDIR = os.environ.get("STATSD_TEST_TMPDIR") or None
FAIL_ON_PURPOSE = os.environ.get("STATSD_TEST_FAIL_ON_PURPOSE", "")
SANITIZER_MARKS = ("AddressSanitizer", "runtime error:", "LeakSanitizer",
                   "ThreadSanitizer")
# Sanitizer builds are slow; every wait has this much room.
DEADLINE = float(os.environ.get("STATSD_TEST_DEADLINE", "30"))

_passed = 0
_failed = 0


def check(cond, what, count=True):
    """Record one check (a pass only when count: polling loops do not
    inflate the total); print failures with what was expected."""
    global _passed, _failed
    if cond:
        _passed += count
    else:
        _failed += 1
        print("FAIL: %s" % what, flush=True)
    return cond


def finish():
    """Stop everything the test started, print the summary line and exit
    with the verdict."""
    cleanup_all()
    print("%d passed, %d failed" % (_passed, _failed), flush=True)
    sys.exit(1 if _failed else 0)


# ------------------------------------------------------------ processes

_live = []     # what cleanup_all() stops: Daemons, Popens, staging dirs


def _guard(argv):
    """argv run under setpriv --pdeathsig: the child is killed when this
    process dies, however it dies."""
    argv = [str(a) for a in argv]
    if SETPRIV is None:
        return argv
    return [SETPRIV, "--pdeathsig", "SIGKILL", "--"] + argv


def spawn(argv, **kw):
    """subprocess.Popen for a test: guarded, and stopped at exit."""
    p = subprocess.Popen(_guard(argv), **kw)
    _live.append(p)
    return p


def run(argv, **kw):
    """subprocess.run for a test: guarded (subprocess.run itself kills
    the child on a time-out or an exception)."""
    return subprocess.run(_guard(argv), **kw)


def _stop_proc(p):
    if p.poll() is None:
        p.terminate()
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    for f in (p.stdin, p.stdout, p.stderr):
        if f is not None:
            try:
                f.close()
            except OSError:
                pass


def cleanup_all():
    """The one cleanup path: stop every process and daemon the test
    started, newest first, and remove their directories. Safe to call
    more than once."""
    while _live:
        obj = _live.pop()
        try:
            if isinstance(obj, subprocess.Popen):
                _stop_proc(obj)
            elif isinstance(obj, str):
                shutil.rmtree(obj, ignore_errors=True)
            else:
                obj.cleanup()
        except Exception as e:  # keep cleaning up the rest
            print("cleanup: %r" % e, file=sys.stderr, flush=True)


class _Pid:
    """A process the test did not start itself (a daemon that forked into
    the background): killed at exit if it still runs."""

    def __init__(self, pid):
        self.pid = pid
        self.cmdline = self._cmdline()

    def _cmdline(self):
        try:
            with open("/proc/%d/cmdline" % self.pid, "rb") as f:
                return f.read()
        except OSError:
            return None

    def cleanup(self):
        # Only the process seen at track_pid(), not a later one that got
        # its pid.
        if self.cmdline is not None and self._cmdline() == self.cmdline:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def track_pid(pid):
    """Make cleanup_all() kill pid too."""
    _live.append(_Pid(pid))


def on_cleanup(obj):
    """Make cleanup_all() call obj.cleanup(), after it has stopped
    everything started later (cgroups a test made, once empty)."""
    _live.append(obj)


def _on_signal(signum, _frame):
    # Unwind through the normal exit path, so that atexit runs.
    raise SystemExit(128 + signum)


atexit.register(cleanup_all)
for _sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(_sig, _on_signal)


def mkdtemp(prefix="statsd-it-"):
    """A temporary directory removed at exit."""
    path = tempfile.mkdtemp(prefix=prefix, dir=TMPDIR)
    _live.append(path)
    return path


_stage_dir = None


def stage(path):
    """A copy of path (a program or script of the build or source tree) in
    a world-readable directory, for a process run as another user."""
    global _stage_dir
    if _stage_dir is None:
        _stage_dir = mkdtemp(prefix="statsd-stage-")
        os.chmod(_stage_dir, 0o755)
        # A staged client that checks replies (harness.Conn) reads the
        # IDL beside itself: the checkout may be closed to its user.
        if os.path.isfile(IDL_PATH):
            shutil.copy(IDL_PATH, _stage_dir)
            os.chmod(os.path.join(_stage_dir, os.path.basename(IDL_PATH)),
                     0o644)
    dst = os.path.join(_stage_dir, os.path.basename(path))
    if not os.path.exists(dst):
        shutil.copy(path, dst)
        os.chmod(dst, 0o755)
    return dst


def as_user(argv, uid=None, regid=None, groups=None):
    """argv run as another user (nobody by default) through setpriv, with
    every file of the checkout it names staged where that user can read
    it."""
    import pwd
    import grp
    pw = pwd.getpwnam("nobody") if uid is None else pwd.getpwuid(uid)
    gid = pw.pw_gid if regid is None else regid
    if isinstance(gid, str):
        gid = grp.getgrnam(gid).gr_gid
    # --pdeathsig again: changing the uid clears the one _guard() set.
    out = [SETPRIV, "--reuid=%d" % pw.pw_uid, "--regid=%d" % gid,
           "--pdeathsig", "SIGKILL"]
    out += ["--groups=%s" % groups] if groups else ["--clear-groups"]
    for a in argv:
        a = str(a)
        if os.path.isfile(a) and not a.startswith(("/usr/", "/bin/",
                                                    "/lib")):
            a = stage(a)
        out.append(a)
    return out


def fail_on_purpose():
    """What STATSD_TEST_FAIL_ON_PURPOSE asks for (once)."""
    global FAIL_ON_PURPOSE
    how, FAIL_ON_PURPOSE = FAIL_ON_PURPOSE, ""
    if how == "check":
        check(False, "failing on purpose (STATSD_TEST_FAIL_ON_PURPOSE)")
    elif how == "raise":
        raise RuntimeError("failing on purpose (STATSD_TEST_FAIL_ON_PURPOSE)")
    elif how == "term":
        os.kill(os.getpid(), signal.SIGTERM)
    elif how == "kill":
        os.kill(os.getpid(), signal.SIGKILL)


def wait_for(pred, what, deadline=DEADLINE, step=0.02):
    """Poll pred() until it is true or the deadline passes."""
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(step)
    check(False, "timed out waiting for " + what)
    return None


# ------------------------------------------------------------------ IDL

def parse_idl(text):
    """The IDL's types, methods (inputs, outputs) and errors, as
    {name: [(field, type)]}; comments dropped."""
    text = re.sub(r"#[^\n]*", "", text)

    def fields(s):
        out = []
        for part in s.split(","):
            part = part.strip()
            if not part:
                continue
            name, typ = part.split(":", 1)
            out.append((name.strip(), typ.strip().replace(" ", "")))
        return out

    idl = {"types": {}, "methods": {}, "errors": {}}
    for m in re.finditer(r"\btype\s+(\w+)\s*\(([^)]*)\)", text):
        idl["types"][m.group(1)] = fields(m.group(2))
    for m in re.finditer(r"\bmethod\s+(\w+)\s*\(([^)]*)\)\s*->\s*\(([^)]*)\)",
                         text):
        idl["methods"][m.group(1)] = (fields(m.group(2)), fields(m.group(3)))
    for m in re.finditer(r"\berror\s+(\w+)\s*\(([^)]*)\)", text):
        idl["errors"][m.group(1)] = fields(m.group(2))
    iface = re.search(r"\binterface\s+([\w.]+)", text)
    idl["interface"] = iface.group(1) if iface else ""
    return idl


class _Idl(dict):
    """The IDL, read when first used: a client run as another user
    through `harness.py --client` cannot read the checkout."""

    def _load(self):
        if not dict.__len__(self):
            path = IDL_PATH
            if not os.access(path, os.R_OK):
                # Staged (see stage()): the copy beside this file.
                path = os.path.join(os.path.dirname(
                    os.path.abspath(__file__)), os.path.basename(IDL_PATH))
            with open(path, encoding="utf-8") as f:
                self["text"] = f.read()
            self.update(parse_idl(self["text"]))

    def __getitem__(self, k):
        self._load()
        return dict.__getitem__(self, k)


IDL = _Idl()
SERVICE_ERRORS = {"InterfaceNotFound": ["interface"],
                  "MethodNotFound": ["method"],
                  "MethodNotImplemented": ["method"],
                  "InvalidParameter": ["parameter"]}


def check_reply(method, reply):
    """Check a reply's shape against the IDL."""
    if not isinstance(reply, dict):
        check(False, "%s: reply is not an object: %r" % (method, reply))
        return
    if "error" in reply:
        err = reply["error"]
        params = reply.get("parameters", {})
        if err.startswith("org.varlink.service."):
            want = SERVICE_ERRORS.get(err.rsplit(".", 1)[1])
        elif err.startswith("io.statsd."):
            decl = IDL["errors"].get(err.rsplit(".", 1)[1])
            want = [f for f, _ in decl] if decl is not None else None
        else:
            want = None
        check(want is not None, "%s: undeclared error %s" % (method, err))
        if want is not None:
            check(sorted(params) == sorted(want),
                  "%s: error %s has parameters %s, IDL says %s"
                  % (method, err, sorted(params), sorted(want)))
        return
    if not method.startswith("io.statsd."):
        return
    decl = IDL["methods"].get(method.rsplit(".", 1)[1])
    if not check(decl is not None, "reply from undeclared " + method):
        return
    outs = dict(decl[1])
    params = reply.get("parameters", {})
    for k in params:
        check(k in outs, "%s: reply field %s not in the IDL" % (method, k))
    for k, t in outs.items():
        if not t.startswith("?"):
            check(k in params, "%s: reply lacks %s" % (method, k))


# ------------------------------------------------------------- the wire

class Conn:
    """One varlink connection: NUL-framed JSON, fds with SCM_RIGHTS."""

    def __init__(self, path, timeout=DEADLINE):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.buf = b""
        self.fds = []

    def send_raw(self, data, fds=None):
        if fds:
            self.sock.sendmsg([data], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                        array.array("i", fds))])
        else:
            self.sock.sendall(data)

    def send(self, method, params=None, more=False, oneway=False, fds=None,
             **extra):
        msg = {"method": method}
        if params is not None:
            msg["parameters"] = params
        if more:
            msg["more"] = True
        if oneway:
            msg["oneway"] = True
        msg.update(extra)
        self.send_raw(json.dumps(msg).encode() + b"\0", fds)

    def recv(self):
        """One reply as a dict, or None at end of stream."""
        while b"\0" not in self.buf:
            fdsize = array.array("i").itemsize
            try:
                data, anc, _flags, _addr = self.sock.recvmsg(
                    1 << 16, socket.CMSG_SPACE(8 * fdsize))
            except ConnectionResetError:
                # Closed with our bytes unread: as good as an end.
                return None
            for level, typ, payload in anc:
                if level == socket.SOL_SOCKET and typ == socket.SCM_RIGHTS:
                    a = array.array("i")
                    a.frombytes(payload[:len(payload) - len(payload) % fdsize])
                    self.fds.extend(a)
            if not data:
                return None
            self.buf += data
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, **kw):
        self.send(method, params, **kw)
        reply = self.recv()
        check_reply(method, reply)
        return reply

    def take_fds(self):
        fds, self.fds = self.fds, []
        return fds

    def close(self):
        for fd in self.fds:
            os.close(fd)
        self.fds = []
        self.sock.close()


def ok(reply, what, count=True):
    """Check a reply is not an error; return its parameters."""
    good = isinstance(reply, dict) and "error" not in reply
    check(good, "%s: %s" % (what, json.dumps(reply)[:400]), count)
    return reply.get("parameters", {}) if good else {}


def expect_error(reply, name, what, **params):
    """Check a reply is error `name` whose parameters include params."""
    good = isinstance(reply, dict) and reply.get("error") == name
    if good:
        for k, v in params.items():
            good = good and reply.get("parameters", {}).get(k) == v
    check(good, "%s: expected %s %s, got %s" % (
        what, name, params, json.dumps(reply)[:400]))
    return good


# ----------------------------------------------------------- the daemon

class Daemon:
    """A statsd on a private runtime and state directory."""

    def __init__(self, tmp=None, config="", name="statsd"):
        self.tmp = tmp or tempfile.mkdtemp(prefix="statsd-it-", dir=TMPDIR)
        _live.append(self)
        # Reachable by the unprivileged test user: rights, not file modes,
        # decide what it may do.
        os.chmod(self.tmp, 0o755)
        self.run = os.path.join(self.tmp, "run")
        self.state = os.path.join(self.tmp, "state")
        self.sock = os.path.join(self.run, "statsd.sock")
        self.conf = os.path.join(self.tmp, name + ".conf")
        # The statsd/DogStatsD UDP socket on a port of its own (the
        # default, 8125, is one per host), unless the test picks one.
        self.udp_opt = ([] if "statsd_udp" in config else
                        ["--statsd-udp", "127.0.0.1:0"])
        with open(self.conf, "w") as f:
            f.write(config)
        self.logpath = os.path.join(self.tmp, name + ".stderr")
        self.proc = None
        self.logs = []

    def argv(self):
        argv = [STATSD, "--foreground", "--config", self.conf,
                "--runtime-dir", self.run, "--state-dir", self.state
                ] + self.udp_opt
        # Daemons of parallel tests would all take http_listen's default
        # port: no HTTP endpoint unless the test's config asks for one.
        with open(self.conf) as f:
            if "http_listen" not in f.read():
                argv += ["--http-listen", ""]
        return argv

    def start(self, wait=True):
        self.log = open(self.logpath, "ab")
        self.proc = subprocess.Popen(_guard(self.argv()),
                                     stdin=subprocess.DEVNULL,
                                     stdout=self.log, stderr=self.log)
        if wait:
            self.wait_ready()
        return self

    def wait_ready(self):
        def up():
            if self.proc.poll() is not None:
                return "dead"
            try:
                c = Conn(self.sock, timeout=2)
                r = c.call("io.statsd.Hello", {})
                c.close()
                return "error" not in r
            except OSError:
                return False
        state = wait_for(up, "statsd to answer on " + self.sock)
        check(state is True, "statsd started (exit %s)" % self.proc.poll())

    def conn(self):
        return Conn(self.sock)

    def call(self, method, params=None, **kw):
        c = Conn(self.sock)
        try:
            return c.call(method, params, **kw)
        finally:
            c.close()

    def alive(self):
        """The daemon still runs and answers."""
        try:
            r = self.call("io.statsd.Hello", {})
            return self.proc.poll() is None and "error" not in r
        except OSError:
            return False

    def stop(self, sig=signal.SIGTERM):
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            rc = self.proc.wait(timeout=DEADLINE)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
            check(False, "statsd did not stop on signal %d" % sig)
        if sig == signal.SIGTERM:
            check(rc == 0, "statsd exited 0 on SIGTERM (got %s)" % rc)
        self.proc = None
        self.log.close()
        self.scan()

    def kill9(self):
        self.proc.kill()
        self.proc.wait()
        self.proc = None
        self.log.close()
        self.scan()

    def scan(self):
        """Fail on sanitizer reports in everything statsd wrote."""
        with open(self.logpath, "rb") as f:
            text = f.read().decode("utf-8", "replace")
        for mark in SANITIZER_MARKS:
            if mark in text:
                check(False, "sanitizer report in statsd's stderr:\n" +
                      text[-4000:])
                break

    def stderr(self):
        with open(self.logpath, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def cleanup(self):
        """Stop the daemon (SIGTERM, then SIGKILL) and remove its
        directory. Called by the test, and again by cleanup_all()."""
        if self.proc is not None:
            self.stop()
        if self.tmp is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)
            self.tmp = None
        if self in _live:
            _live.remove(self)


class RingClient:
    """The C producer (tests/integration/ring_client.c), driven by lines."""

    def __init__(self, sock, prefix=()):
        argv = [RING_CLIENT, sock]
        argv = as_user(argv, **prefix) if isinstance(prefix, dict) else \
            list(prefix) + argv
        self.proc = spawn(argv, stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True, bufsize=1)
        fail_on_purpose()

    def cmd(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        out = self.proc.stdout.readline().strip()
        return out

    def counters(self, line="counters"):
        out = self.cmd(line)
        m = re.match(r"ok pushed=(\d+) dropped=(\d+)", out)
        check(m is not None, "ring_client %s: %s" % (line, out))
        return (int(m.group(1)), int(m.group(2))) if m else (0, 0)

    def quit(self):
        try:
            self.proc.stdin.write("quit\n")
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        self.proc.wait(timeout=DEADLINE)


# Templates the tests share.
TPL_APP = {"name": "APP", "vois": [
    {"id": 0, "name": "requests", "dtype": "INT_U64",
     "stats": [{"kind": "SUM"}, {"kind": "COUNT"}]},
    {"id": 1, "name": "latency", "dtype": "INT_U64",
     "stats": [{"kind": "SUM"}, {"kind": "MIN"}, {"kind": "MAX"},
               {"kind": "HIST", "scheme": "LIN", "lb": 0, "ub": 1000,
                "step": 100},
               {"kind": "TDGST", "nctds": 32}]},
    {"id": 2, "name": "state", "dtype": "INT_S64",
     "stats": [{"kind": "LAST"}]},
]}


def setup_kstat(d, module="app", instance=0, name="req", flags=None,
                tpl=TPL_APP, conn=None):
    """Add TPL_APP and a kstat of it; return the kstat."""
    c = conn or d.conn()
    spec = ok(c.call("io.statsd.TemplateAdd", tpl), "TemplateAdd")[
        "template"]["spec"]
    p = {"module": module, "instance": instance, "name": name,
         "template": spec}
    if flags:
        p["flags"] = flags
    k = ok(c.call("io.statsd.KstatCreate", p), "KstatCreate")["kstat"]
    if conn is None:
        c.close()
    return k


def free_port(kind=socket.SOCK_STREAM):
    """A port of 127.0.0.1 free at the moment, for a TCP (or, with
    kind=socket.SOCK_DGRAM, UDP) listener of a test."""
    s = socket.socket(socket.AF_INET, kind)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def read_data(d, module="app", instance=0, name="req"):
    r = d.call("io.statsd.Read", {"module": module, "instance": instance,
                                  "name": name})
    return ok(r, "Read %s:%d:%s" % (module, instance, name),
              False).get("data", {})


def scrape_om(d, what="scrape"):
    """Every sample of `statsctl scrape --format openmetrics` of daemon d
    (statsctl from $STATSCTL), run through run() and read with
    python3-prometheus-client's strict OpenMetrics parser, as test_expo.py
    checks the exposition: {(sample name, frozenset of label items):
    value}. A scrape that fails or does not parse fails the check and
    gives {}. (Imported here: the rest of the harness is the standard
    library only.)"""
    from prometheus_client.openmetrics.parser import (
        text_string_to_metric_families)
    p = run([os.environ.get("STATSCTL", "statsctl"), "--socket", d.sock,
             "scrape", "--format", "openmetrics"], capture_output=True,
            text=True, timeout=DEADLINE)
    if not check(p.returncode == 0, "%s: statsctl scrape exits 0: %s" %
                 (what, p.stderr.strip()), False):
        return {}
    got = {}
    try:
        for fam in text_string_to_metric_families(p.stdout):
            for smp in fam.samples:
                got[(smp.name, frozenset(smp.labels.items()))] = smp.value
    except ValueError as e:
        check(False, "%s: the scrape parses as OpenMetrics: %s" % (what, e))
        return {}
    return got


def info(d):
    return ok(d.call("io.statsd.Info", {}), "Info", False)


if __name__ == "__main__" and len(sys.argv) == 3 and sys.argv[1] == "--client":
    # A plain client for other users: each stdin line is a call as JSON
    # {"method":..., "parameters":...}; each reply is printed as one line.
    _c = Conn(sys.argv[2])
    for _line in sys.stdin:
        _m = json.loads(_line)
        _c.send(_m["method"], _m.get("parameters"))
        _r = _c.recv()
        print(json.dumps({"reply": _r, "nfds": len(_c.take_fds())}),
              flush=True)
    _c.close()
