# SPDX-License-Identifier: BSD-2-Clause
"""test_config.py: statsd.conf and the command line. --check-config
accepts a good file and prints it; what it prints parses to the same
output (golden round trip); every kind of mistake names the file, the
line and the key; the man page's key list is the table's; SIGHUP applies
reloadable keys only; the paths default as documented."""
import os
import re
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import (SRCDIR, STATSD, Daemon, check, finish,  # noqa: E402
                     info, ok, wait_for)

d = Daemon()


def run(*args, conf=None):
    argv = [STATSD] + list(args)
    if conf is not None:
        path = os.path.join(d.tmp, "t.conf")
        with open(path, "w") as f:
            f.write(conf)
        argv += ["--config", path]
    return harness.run(argv, capture_output=True, text=True, timeout=30)


p = run("--check-config", conf="# comment\n\nidle_timeout_ms = 5000  # x\n"
        "admin_group = \"wheel\"\narena_size = 128M\n")
check(p.returncode == 0, "a good file passes: " + p.stderr)
check("configuration OK" in p.stderr, "and says so")
check("idle_timeout_ms = 5000\n" in p.stdout and "arena_size = 128M\n" in
      p.stdout and "admin_group = wheel\n" in p.stdout,
      "--check-config prints the effective configuration")
first = p.stdout
p = run("--check-config", conf=first)
check(p.returncode == 0 and p.stdout == first,
      "the printed configuration parses to itself")
p = run("--print-config")
check(p.returncode == 0 and "max_connections = 1024\n" in p.stdout,
      "--print-config without a file prints the defaults")

BAD = [
    ("nonsense = 1\n", 1, "nonsense", "unknown key"),
    ("\n\nidle_timeout_ms = 12\n", 3, "idle_timeout_ms", "range"),
    ("max_connections = many\n", 1, "max_connections", "number"),
    ("max_connections = 10x\n", 1, "max_connections", "trailing"),
    ("log_level = chatty\n", 1, "log_level",
     "not one of error, warning, notice, info, debug"),
    ("socket_mode = 0999\n", 1, "socket_mode", "octal"),
    ("admin_group = two words\n", 1, "admin_group", "blanks"),
    ("max_rings = 5\nmax_rings = 6\n", 2, "max_rings", "twice"),
    ("just a line\n", 1, "just a line", "key = value"),
    ("arena_size = 99999999999999999999\n", 1, "arena_size", "range"),
    ("nice = -21\n", 1, "nice", "range"),
    ("nice = 20\n", 1, "nice", "range"),
    ("nice = -\n", 1, "nice", "number"),
    ("nice = 3x\n", 1, "nice", "trailing"),
]
for conf, line, key, words in BAD:
    p = run("--check-config", conf=conf)
    path = os.path.join(d.tmp, "t.conf")
    check(p.returncode == 1, "%r is refused" % conf)
    check(p.stderr.startswith("statsd: %s:%d: %s: " % (path, line, key)) and
          words in p.stderr, "%r: the error names file, line and key: %r"
          % (conf, p.stderr))
p = run("--check-config", "--config", "/nonexistent/statsd.conf")
check(p.returncode == 1 and "/nonexistent/statsd.conf" in p.stderr,
      "a missing --config file is an error")
p = run("--bogus")
check(p.returncode == 2 and "usage" in p.stderr, "a bad option: usage")

# The man page lists exactly the table's keys, as the table says.
mdoc = harness.run([STATSD, "--config-mdoc"], capture_output=True,
                      text=True, check=True).stdout
with open(os.path.join(SRCDIR, "man", "statsd.conf.5")) as f:
    page = f.read()
m = re.search(r"\.\\\" BEGIN KEYS[^\n]*\n(.*)\.\\\" END KEYS", page, re.S)
check(m is not None, "statsd.conf.5 has the generated key list")
check(m is not None and m.group(1) == mdoc,
      "statsd.conf.5's key list is the table's (regenerate it with "
      "statsd --config-mdoc)")

# Paths: the socket defaults into the runtime directory; --socket wins.
d.start()
inf = ok(d.call("io.statsd.Info", {}), "Info")
check(inf["socket"] == os.path.join(d.run, "statsd.sock"),
      "the socket defaults to RUNTIME/statsd.sock")
p = harness.run(d.argv(), capture_output=True, text=True, timeout=30)
check(p.returncode == 1 and "another statsd runs" in p.stderr,
      "a second statsd on the same runtime directory refuses: %r"
      % p.stderr)

# Reload: reloadable keys change, the others wait for a restart.
with open(d.conf, "w") as f:
    f.write("idle_timeout_ms = 7000\nmax_kstats = 99\n")
d.proc.send_signal(signal.SIGHUP)
wait_for(lambda: ok(d.call("io.statsd.Info", {}), "Info", False)["config"][
    "idle_timeout_ms"] == "7000", "the reload to apply idle_timeout_ms")
cfg = ok(d.call("io.statsd.Info", {}), "Info")["config"]
check(cfg["max_kstats"] == "262144", "max_kstats waits for a restart")
wait_for(lambda: "max_kstats need a restart" in d.stderr(),
         "the reload to log what it kept")
with open(d.conf, "w") as f:
    f.write("idle_timeout_ms = 1\n")
d.proc.send_signal(signal.SIGHUP)
wait_for(lambda: "reload refused" in d.stderr(), "a bad reload refused")
check(ok(d.call("io.statsd.Info", {}), "Info")["config"][
    "idle_timeout_ms"] == "7000", "a refused reload changes nothing")
d.stop()

alt = os.path.join(d.tmp, "alt.sock")
d2 = Daemon()
d2.argv = lambda: [STATSD, "--foreground", "--config", d2.conf,
                   "--runtime-dir", d2.run, "--state-dir", d2.state,
                   "--socket", alt]
d2.sock = alt
d2.start()
check(ok(d2.call("io.statsd.Info", {}), "Info")["socket"] == alt,
      "--socket places the socket")
d2.stop()
d2.cleanup()

# max_connections counts every uid.
d3 = Daemon(config="max_connections = 3\n").start()
# Only the first held connection is open once earlier ones are gone: it
# asks, so that no connection of the test's own is still closing when the
# others come (statsd counts a connection until it has seen it close).
held = [d3.conn()]
wait_for(lambda: ok(held[0].call("io.statsd.Info", {}), "Info")[
    "clients"] == 1, "earlier connections to close")
held += [d3.conn() for _ in range(2)]
for c in held:
    ok(c.call("io.statsd.Hello", {}), "a connection under max_connections")
extra = d3.conn()
r = extra.recv()
check(r is not None and r.get("error") == "io.statsd.TooManyConnections"
      and r["parameters"]["limit"] == 3, "past max_connections: %s" % r)
extra.close()
for c in held:
    c.close()
check(wait_for(d3.alive, "statsd to answer again"), "answers after")
d3.stop()
d3.cleanup()
d.cleanup()
finish()
