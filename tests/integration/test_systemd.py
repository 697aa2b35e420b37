# SPDX-License-Identifier: BSD-2-Clause
"""test_systemd.py: statsd under systemd's protocols without systemd as
PID 1 — socket activation through systemd-socket-activate, a fake
NOTIFY_SOCKET that must see READY=1, STATUS=, watchdog pings at half
WATCHDOG_USEC, RELOADING=1 (with MONOTONIC_USEC) then READY=1 on SIGHUP,
STOPPING=1 on SIGTERM; and the classic fork into the background."""
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import (DEADLINE, STATSD, Conn, Daemon, check,  # noqa: E402
                     finish, ok, wait_for)

ACTIVATE = shutil.which("systemd-socket-activate")
if ACTIVATE is None:
    print("systemd-socket-activate not found; skipped")
    sys.exit(77)

d = Daemon()
notify_path = os.path.join(d.tmp, "notify.sock")
notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
notify.bind(notify_path)
notify.settimeout(0.2)
messages = []


def pump():
    """Collect every datagram that has arrived."""
    while True:
        try:
            messages.append(notify.recv(4096).decode())
        except socket.timeout:
            return


def seen(pred):
    pump()
    return any(pred(m) for m in messages)


sock = os.path.join(d.tmp, "activated.sock")
env = dict(os.environ, NOTIFY_SOCKET=notify_path, WATCHDOG_USEC="400000")
os.makedirs(d.run, exist_ok=True)
log = open(d.logpath, "ab")
proc = harness.spawn([ACTIVATE, "-l", sock, "--fdname=varlink",
                         "-E", "NOTIFY_SOCKET", "-E", "WATCHDOG_USEC",
                         STATSD, "--foreground", "--config", d.conf,
                         "--runtime-dir", d.run, "--state-dir", d.state],
                        env=env, stdout=log, stderr=log)
wait_for(lambda: os.path.exists(sock), "systemd-socket-activate to listen")
# Nothing runs until the first connection.
check(not seen(lambda m: "READY=1" in m), "no statsd before a connection")
c = Conn(sock)
hello = ok(c.call("io.statsd.Hello", {}), "Hello over the activated socket")
c.close()
wait_for(lambda: seen(lambda m: "READY=1" in m), "READY=1")
check(seen(lambda m: "STATUS=" in m), "a STATUS= line")
n0 = sum("WATCHDOG=1" in m for m in messages)
t0 = time.monotonic()
wait_for(lambda: seen(lambda m: True) and
         sum("WATCHDOG=1" in m for m in messages) >= n0 + 5,
         "five watchdog pings")
# How often they come is the machine's business as much as statsd's (a
# loaded CI host stretches it): said, never asserted. That they keep
# coming is what a watchdog needs.
print("five watchdog pings in %.2fs (WATCHDOG_USEC 0.4s)"
      % (time.monotonic() - t0))
info = ok(Conn(sock).call("io.statsd.Info", {}), "Info")
check(info["pid"] == proc.pid, "statsd is the activated process itself")
messages.clear()
os.kill(proc.pid, signal.SIGHUP)
wait_for(lambda: seen(lambda m: "RELOADING=1" in m), "RELOADING=1")
check(seen(lambda m: "RELOADING=1" in m and "MONOTONIC_USEC=" in m),
      "RELOADING=1 comes with MONOTONIC_USEC")
wait_for(lambda: any("READY=1" in m for m in
                     messages[[i for i, m in enumerate(messages)
                               if "RELOADING=1" in m][0]:]),
         "READY=1 after the reload")
c = Conn(sock)
ok(c.call("io.statsd.Hello", {}), "served after the reload")
c.close()
os.kill(proc.pid, signal.SIGTERM)
wait_for(lambda: seen(lambda m: "STOPPING=1" in m), "STOPPING=1")
check(proc.wait(timeout=DEADLINE) == 0, "statsd exits 0 on SIGTERM")
check(os.path.exists(sock), "statsd leaves the activated socket alone")
log.close()
d.scan()

# Without activation, NOTIFY_SOCKET still gets READY=1; and without
# --foreground, statsd forks once it is ready.
messages.clear()
env = dict(os.environ, NOTIFY_SOCKET=notify_path)
argv = [a for a in d.argv() if a != "--foreground"]
p = harness.run(argv, env=env, timeout=DEADLINE,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
check(p.returncode == 0, "the parent exits 0 once statsd is ready")
info = ok(Conn(d.sock).call("io.statsd.Info", {}),
          "the backgrounded statsd answers at once")
wait_for(lambda: seen(lambda m: "READY=1" in m), "READY=1 (not activated)")
pid = info.get("pid", 0)
check(pid > 0 and pid != p.returncode, "a daemon pid")
if pid > 0:
    harness.track_pid(pid)
os.kill(pid, signal.SIGTERM)
wait_for(lambda: not os.path.exists("/proc/%d" % pid) or
         open("/proc/%d/stat" % pid).read().split()[2] == "Z",
         "the background statsd to stop")
check(not os.path.exists(d.sock), "statsd removes the socket it bound")
d.cleanup()
finish()
