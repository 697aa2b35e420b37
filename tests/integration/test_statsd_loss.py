# SPDX-License-Identifier: BSD-2-Clause
"""test_statsd_loss.py: statsd is honest about what it loses at its
statsd/DogStatsD front door, and keeps the priority it is configured for.

Loss: statsd is stopped (SIGSTOP) while 2,000 datagrams are sent to a UDP
socket whose receive buffer holds a few dozen, so the kernel must drop
most of them; once statsd runs again, every datagram is either read
(statsd_datagrams) or counted as dropped (statsd_kernel_drops), exactly,
for both ways of reading: receiver threads and the event loop.

Priority: statsd sets the nice value of statsd.conf's nice for itself
before it starts a thread, so every thread has it; raising the nice value
needs no privilege, lowering it (the default, -10) needs root.
"""
import os
import signal
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (Daemon, check, finish, free_port, ok,  # noqa: E402
                     read_data, wait_for)

SENT = 2000


def thread_nices(pid):
    """The nice value of each of a process's threads (proc(5) field 19)."""
    out = []
    for t in os.listdir("/proc/%d/task" % pid):
        with open("/proc/%d/task/%s/stat" % (pid, t)) as f:
            out.append(int(f.read().rsplit(")", 1)[1].split()[16]))
    return out


for threads in (2, 0):
    port = free_port(socket.SOCK_DGRAM)
    d = Daemon(config="statsd_udp = 127.0.0.1:%d\nstatsd_unix = none\n"
               "statsd_threads = %d\nstatsd_rcvbuf = 4K\n" % (port, threads))
    d.start()
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    d.proc.send_signal(signal.SIGSTOP)
    try:
        for i in range(SENT):
            s.sendto(b"loss.c:1|c", ("127.0.0.1", port))
    finally:
        d.proc.send_signal(signal.SIGCONT)
    s.close()

    def settled():
        st = read_data(d, "statsd", 0, "daemon")
        return st if (st["statsd_datagrams"] + st["statsd_kernel_drops"] >=
                      SENT) else None
    st = wait_for(settled, "statsd to account for %d datagrams (threads %d)"
                  % (SENT, threads)) or read_data(d, "statsd", 0, "daemon")
    got, drops = st["statsd_datagrams"], st["statsd_kernel_drops"]
    check(got + drops == SENT,
          "threads %d: every datagram is read or counted as dropped: "
          "%d read + %d dropped = %d sent" % (threads, got, drops, SENT))
    check(drops > 0 and got > 0,
          "threads %d: a 4K receive buffer kept some and dropped some "
          "(%d, %d)" % (threads, got, drops))
    check(st["statsd_applied"] == got,
          "threads %d: each datagram read was a line applied (%d)" %
          (threads, st["statsd_applied"]))
    d.stop()

# The configured nice, in every thread (receiver threads included).
d = Daemon(config="statsd_udp = 127.0.0.1:%d\nstatsd_unix = none\n"
           "statsd_threads = 2\nnice = 7\n" % free_port(socket.SOCK_DGRAM))
d.start()
n = thread_nices(d.proc.pid)
check(len(n) >= 3 and all(x == 7 for x in n),
      "nice = 7: every thread of statsd runs at nice 7: %s" % n)
check(ok(d.call("io.statsd.Info", {}), "Info")["config"]["nice"] == "7",
      "Info shows the configured nice")
d.stop()
if os.geteuid() == 0:
    d = Daemon(config="statsd_udp = 127.0.0.1:%d\nstatsd_unix = none\n" %
               free_port(socket.SOCK_DGRAM))
    d.start()
    n = thread_nices(d.proc.pid)
    check(all(x == -10 for x in n),
          "as root, statsd takes its default nice, -10: %s" % n)
    d.stop()
finish()
