# SPDX-License-Identifier: BSD-2-Clause
"""test_idle.py: an idle statsd sleeps. With no client, no ring, no
datagram and no watchdog asked for, none of its threads (the event loop,
the statsd receiver threads) is woken: no drain tick, no receive time-out,
no periodic STATUS=, checkpoint or expiry pass. Counted, not timed: the
context switches the kernel counts for each of its threads
(/proc/PID/task/*/status) over a few seconds of idleness. Then a datagram
still reaches it, the tick starts again for a ring and stops after it, and
SIGTERM still stops the receiver threads. The series a datagram made
does not keep statsd awake, nor does a stream of datagrams once it
ends."""
import os
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (DEADLINE, Daemon, RingClient, check,  # noqa: E402
                     finish, free_port, info, read_data, wait_for)

# No watchdog, no notify socket: what systemd asks for is not idleness.
for var in ("WATCHDOG_USEC", "WATCHDOG_PID", "NOTIFY_SOCKET"):
    os.environ.pop(var, None)

WINDOW = 3.0        # seconds of idleness counted
BOUND = 2           # a timer of 1 Hz would make 3 in the window


def switches(pid):
    """Context switches of every thread of pid, voluntary or not, and
    how many threads."""
    total, n = 0, 0
    base = "/proc/%d/task" % pid
    for tid in os.listdir(base):
        try:
            with open(os.path.join(base, tid, "status")) as f:
                for line in f:
                    if line.startswith(("voluntary_ctxt_switches:",
                                        "nonvoluntary_ctxt_switches:")):
                        total += int(line.split()[1])
            n += 1
        except FileNotFoundError:
            pass
    return total, n


def settle(pid):
    """Wait for the one-shot timers a start or a client arms (the STATUS=
    update comes 5 s after a change, the last checkpoint pass one period
    after the last client) to have fired: until a second passes without
    a switch, at least 6 s after the last activity."""
    time.sleep(6)
    end = time.monotonic() + 4 * DEADLINE
    while time.monotonic() < end:
        a, _ = switches(pid)
        time.sleep(1)
        b, _ = switches(pid)
        if a == b:
            return True
    return False


def idle_switches(pid):
    a, n = switches(pid)
    time.sleep(WINDOW)
    b, _ = switches(pid)
    return b - a, n


UDP = free_port(socket.SOCK_DGRAM)
d = Daemon(config="checkpoint_interval_ms = 100\n"
           "statsd_threads = 2\nstatsd_udp = 127.0.0.1:%d\n" % UDP).start()
pid = d.proc.pid
check(settle(pid), "statsd falls quiet after its start")
n, threads = idle_switches(pid)
print("idle: %d context switches in %.0f s over %d threads" %
      (n, WINDOW, threads))
check(threads >= 3, "the loop and its receiver threads (%d)" % threads)
check(n <= BOUND, "idle, statsd's threads are not woken: %d switches in "
      "%.0f s (at most %d)" % (n, WINDOW, BOUND))

# A datagram wakes a receiver thread at once (no time-out to wait for),
# and the counters say so.
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.sendto(b"idle.wake:1|c\n", os.path.join(d.run, "statsd.dgram"))
s.close()
check(wait_for(lambda: read_data(d, "statsd", 0, "daemon").get(
    "statsd_applied", 0) >= 1, "the datagram to be applied"),
    "a datagram after idleness is applied")
# Its series lives on (statsd_ttl_s, an hour), and statsd looks for
# series to expire once every sixtieth of it, not every second.
check(settle(pid), "statsd falls quiet after a datagram")
n, _ = idle_switches(pid)
print("a series alive, no datagram: %d context switches in %.0f s" %
      (n, WINDOW))
check(n <= BOUND, "with a series and no datagram, statsd sleeps: %d "
      "switches (at most %d)" % (n, BOUND))
# A stream of UDP datagrams (each sent less than a pause after the last)
# has the receivers pause between reads rather than wait for each one;
# once it ends, a read finds nothing and they wait in poll(2) again:
# every datagram applied, then no wake-up.
STREAM = 20000
before = read_data(d, "statsd", 0, "daemon").get("statsd_applied", 0)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(STREAM):
    s.sendto(b"idle.stream:1|c", ("127.0.0.1", UDP))
s.close()
check(wait_for(lambda: read_data(d, "statsd", 0, "daemon").get(
    "statsd_applied", 0) == before + STREAM, "the stream to be applied"),
    "a stream of %d datagrams is applied, every one" % STREAM)
check(settle(pid), "statsd falls quiet after a stream")
n, _ = idle_switches(pid)
print("after a stream: %d context switches in %.0f s" % (n, WINDOW))
check(n <= BOUND, "after a stream, the receivers sleep: %d switches (at "
      "most %d)" % (n, BOUND))
# The receiver threads block in poll(2) with no time-out: the stop wakes
# them (stop() checks that statsd exits 0 on SIGTERM, in time).
d.stop()

# A ring: the drain's tick runs while it exists, and statsd falls quiet
# again once its client is gone.
# (A client keeps the checkpoint pass running, here every 5 s.)
d2 = Daemon(config="checkpoint_interval_ms = 5000\n").start()
rc = RingClient(d2.sock)
check(rc.cmd("connect") == "ok", "ring_client connects")
check(rc.cmd("attach").startswith("ok"), "a ring attached")
check(wait_for(lambda: read_data(d2, "statsd", 0, "daemon").get("rings")
               == 1, "the self kstat to count the ring"),
      "the self kstat counts the ring")
# An idle ring: once no ring had records for a second, the tick comes once
# a second (it came twenty times), and nothing else runs. The second of
# fast ticks and the one-shot timers of the calls above first.
time.sleep(7)
n, _ = idle_switches(d2.proc.pid)
print("an idle ring: %d context switches in %.0f s" % (n, WINDOW))
RING_BOUND = int(5 * WINDOW)    # the fast tick would make 60
check(n <= RING_BOUND, "with an idle ring, statsd wakes about once a "
      "second: %d switches in %.0f s (at most %d)" % (n, WINDOW,
                                                      RING_BOUND))
# The checkpoint passes the client keeps coming (every 5 s) find nothing
# changed: no fdatasync(2), and no wake-up of the persistence thread. (A
# pass used to hand the thread a sync whatever it wrote, five more
# switches in the window above, and a flaky bound.)
syncs = info(d2)["persistence"]["syncs"]
time.sleep(6)
n = info(d2)["persistence"]["syncs"] - syncs
print("an idle ring, 6 s: %d syncs" % n)
check(n == 0, "checkpoint passes that find nothing changed sync nothing "
      "(%d syncs in 6 s)" % n)
rc.quit()
check(wait_for(lambda: read_data(d2, "statsd", 0, "daemon").get("rings")
               == 0, "the self kstat to see the ring gone"),
      "the self kstat sees the ring gone")
check(settle(d2.proc.pid), "statsd falls quiet once the ring is gone")
n, _ = idle_switches(d2.proc.pid)
print("after a ring: %d context switches in %.0f s" % (n, WINDOW))
check(n <= BOUND, "after its ring is gone, statsd sleeps: %d switches "
      "(at most %d)" % (n, BOUND))
d2.stop()
finish()
