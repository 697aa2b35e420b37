# SPDX-License-Identifier: BSD-2-Clause
"""test_soak.py: the hardening soak. For a bounded time (STATSD_SOAK_SECONDS,
30 by default, at most 60) a hostile unprivileged user, uid 65534, runs
every attack of the hardening table that a peer can make at run time, in
turn and again, while a victim user pushes updates through a ring and root
calls Info. Afterwards the victim's totals are exact, the attacker held no
more than its quotas at any sample, and statsd's peak memory grew by no
more than what those quotas let a user make it hold.

Root's Info latency is printed, never asserted: it is a figure of the
machine as much as of statsd. So are the load average and the rounds each
attack made. The attacks on disks (rows 4, 12, 15) need a filesystem of
their own and run in test_abuse.py; the corrupted state files of row 13
are read at start only."""
import os
import pwd
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import (TPL_APP, Conn, RingClient, check, finish, ok,  # noqa: E402
                     read_data, wait_for)
from test_abuse import (NOBODY, Hostile, big_tpl, daemon, quotas,  # noqa: E402
                        user_usage, vm_hwm_kib)

VICTIM = pwd.getpwnam("daemon").pw_uid
SECONDS = min(float(os.environ.get("STATSD_SOAK_SECONDS", "30")), 60.0)

# The attacker's limits: small, so that the rounds reach them.
PER_UID = {
    "connections": ("max_connections_per_uid", 16),
    "buffered_bytes": ("max_buffered_per_uid", 4 << 20),
    "templates": ("max_templates_per_uid", 16),
    "template_bytes": ("max_template_bytes_per_uid", 512 << 10),
    "kstats": ("max_kstats_per_uid", 256),
    "arena_bytes": ("arena_bytes_per_uid", 1 << 20),
    "persistent_bytes": ("max_persistent_bytes_per_uid", 1 << 20),
    "rings": ("max_rings_per_uid", 8),
    "ring_bytes": ("max_ring_bytes_per_uid", 8 << 20),
}
# What of those statsd holds in its own memory (the rest is disk or
# descriptors): the bound on how much a user can make it grow.
HELD_IN_MEMORY = ("buffered_bytes", "template_bytes", "arena_bytes",
                  "ring_bytes")
# Room for what no quota counts: the allocator's slack, the replies being
# built, the victim's ring, statsd's own kstats.
SLACK_KIB = 64 << 10

HEAVY = "/^(m[0-9]|[a-z]{1,2}|x){1,60}$/"


class Soak:
    def __init__(self, d, h):
        self.d, self.h = d, h
        # What runs now, for root's Info latencies to be told apart.
        self.phase = ["quiet"]
        self.rounds = {}
        self.peak = dict.fromkeys(PER_UID, 0)
        self.n = 0

    def sample(self):
        """Nobody's usage against its limits, and the total's."""
        q = quotas(self.d)
        u = user_usage(self.d, NOBODY)
        for res, (key, limit) in PER_UID.items():
            self.peak[res] = max(self.peak[res], u.get(res, 0))
            check(u.get(res, 0) <= limit, "nobody within %s (%d): %d"
                  % (key, limit, u.get(res, 0)), count=False)
            t = q["total"][res]
            check(t["used"] <= t["limit"], "%s within its total: %s"
                  % (res, t), count=False)

    # One round of each attack; each names its row.
    def row1_row2_patterns(self):
        self.h.calls([
            ("io.statsd.Lookup", {"module": "/^(a|a)*\\1*$/"}),
            ("io.statsd.Lookup", {"module": "/(a{1,32767}){1,32767}/"}),
            ("io.statsd.Lookup", {"module": HEAVY, "name": HEAVY,
                                  "class": HEAVY}),
            ("io.statsd.Scrape", {"selector": "%s:/^[0-9]+$/:%s:/./"
                                  % (HEAVY, HEAVY)})])

    def row3_row10_rings(self):
        rc = RingClient(self.d.sock, prefix={"uid": NOBODY})
        if rc.cmd("connect") == "ok":
            for _ in range(PER_UID["rings"][1] + 2):
                if not rc.cmd("attach 16").startswith("ok"):
                    break
                rc.cmd("pushbad 2000")
            # Its own live ring, adopted again: refused.
            check(not rc.cmd("adopt").startswith("ok"), "adopting one's "
                  "own live ring is refused", count=False)
            self.sample()
        rc.quit()

    def row5_victims_name(self):
        name = {"module": "victim", "instance": 0, "name": "k"}
        rep = self.h.calls([
            ("io.statsd.KstatCreate", dict(name, template=TPL_APP["name"],
                                           flags=["WRITABLE"])),
            ("io.statsd.Write", dict(name, values={"state": 666})),
            ("io.statsd.Snapshot", dict(name, reset=True)),
            ("io.statsd.KstatDelete", name)])
        for r in rep:
            check("error" in r, "nobody cannot take, write, reset or "
                  "delete the victim's kstat: %s" % r, count=False)

    def row7_arena(self):
        calls = [("io.statsd.KstatCreate", {
            "module": "arena", "instance": i, "name": "x",
            "template": "ARENA"}) for i in range(80)]
        rep = self.h.calls(calls)
        made = [i for i, r in enumerate(rep) if "error" not in r]
        self.sample()
        self.h.calls([("io.statsd.KstatDelete", {
            "module": "arena", "instance": i, "name": "x"}) for i in made])

    def row8_templates(self):
        self.h.calls([("io.statsd.TemplateAdd", big_tpl(
            "S%d_%d" % (self.n, i), 400)) for i in range(24)])

    def row9_persistent_churn(self):
        calls = []
        for _ in range(20):
            p = {"module": "churn", "instance": 0, "name": "k"}
            calls.append(("io.statsd.KstatCreate", dict(
                p, template=TPL_APP["name"], flags=["PERSISTENT"])))
            calls.append(("io.statsd.KstatDelete", p))
        self.h.calls(calls)

    def row11_connections(self):
        self.h.cmd(op="connect", n=PER_UID["connections"][1] + 4)
        self.sample()
        self.h.cmd(op="close")
        self.h.cmd(op="pipeline", n=8, calls=400, method="io.statsd.Scrape",
                   parameters={"format": "json"})
        self.sample()
        self.h.cmd(op="close")

    def row14_probing(self):
        rep = self.h.cmd(op="pages", calls=[
            ("io.statsd.KstatCreate", {"module": "secret", "instance": 0,
                                       "name": "keys",
                                       "template": TPL_APP["name"]}),
            ("io.statsd.TemplateList", {}), ("io.statsd.Info", {})])[
            "replies"]
        check(rep[0].get("error") == "io.statsd.PermissionDenied",
              "a PRIV name answers a neutral refusal: %s" % rep[0],
              count=False)
        check("SECRET" not in [t["name"] for t in rep[1].get(
            "parameters", {}).get("templates", [])], "TemplateList hides "
            "the PRIV template", count=False)

    ATTACKS = [row1_row2_patterns, row3_row10_rings, row5_victims_name,
               row7_arena, row8_templates, row9_persistent_churn,
               row11_connections, row14_probing]

    def run(self, end):
        while time.monotonic() < end:
            for a in self.ATTACKS:
                self.phase[0] = a.__name__
                a(self)
                self.rounds[a.__name__] = self.rounds.get(a.__name__, 0) + 1
                self.sample()
                if time.monotonic() >= end:
                    break
            self.n += 1


def victim(d, stop, out):
    """The victim pushes 1s into its kstat until told to stop, then
    hands over what it spilled; out gets (pushed, dropped)."""
    rc = RingClient(d.sock, prefix={"uid": VICTIM})
    rc.cmd("connect")
    rc.cmd("handle victim 0 k")
    out["attach"] = rc.cmd("attach 12")
    out["spill"] = rc.cmd("spill")
    while not stop.is_set():
        rc.cmd("push 2000 0 1")
    deadline = time.monotonic() + harness.DEADLINE
    while rc.cmd("handover") != "ok left=0" and \
            time.monotonic() < deadline:
        time.sleep(0.02)
    out["counters"] = rc.cmd("counters")
    rc.quit()


def root_info(d, stop, phase, lat):
    """Root calls Info every 20 ms; lat gets (what ran when the call
    started, its time in s, or -1 for an error)."""
    c = Conn(d.sock)
    while not stop.is_set():
        t0, what = time.monotonic(), phase[0]
        r = c.call("io.statsd.Info", {})
        lat.append((what, time.monotonic() - t0 if "error" not in r
                    else -1.0))
        stop.wait(0.02)
    c.close()


def latency_line(name, xs):
    """n, min, median, p90, p99 and max of xs (s), in ms."""
    xs = sorted(xs)

    def pct(p):
        return 1000 * xs[min(len(xs) - 1, int(p * len(xs)))]
    return "  %-22s %5d %8.2f %8.2f %8.2f %8.2f %8.2f" % (
        name, len(xs), 1000 * xs[0], pct(0.5), pct(0.9), pct(0.99),
        1000 * xs[-1])


def sanitized(d):
    with open("/proc/%d/maps" % d.proc.pid) as f:
        maps = f.read()
    return "libasan" in maps or "libtsan" in maps


def test_soak():
    conf = "".join("%s = %d\n" % v for v in PER_UID.values())
    d = daemon(conf + "checkpoint_interval_ms = 200\nmax_output = 1M\n")
    c = d.conn()
    ok(c.call("io.statsd.TemplateAdd", {"name": "SECRET", "vois": [
        {"id": 0, "name": "password_failures", "dtype": "INT_U64",
         "stats": [{"kind": "SUM"}]}]}), "root's SECRET template")
    ok(c.call("io.statsd.KstatCreate", {
        "module": "secret", "instance": 0, "name": "keys",
        "template": "SECRET", "flags": ["PRIV"]}), "root's PRIV kstat")
    for i in range(200):
        ok(c.call("io.statsd.KstatCreate", {
            "module": "m%d" % (i % 7), "instance": i, "name": "x",
            "template": ok(c.call("io.statsd.TemplateAdd", TPL_APP),
                           "APP", False)["template"]["spec"]}),
           "root's kstat %d" % i, False)
    c.close()
    v = Hostile(d, VICTIM)
    ok(v.calls([("io.statsd.TemplateAdd", TPL_APP),
                ("io.statsd.KstatCreate", {
                    "module": "victim", "instance": 0, "name": "k",
                    "template": TPL_APP["name"]})])[1],
       "the victim's kstat")
    v.quit()
    h = Hostile(d)
    ok(h.calls([("io.statsd.TemplateAdd", TPL_APP),
                ("io.statsd.TemplateAdd", big_tpl("ARENA"))])[1],
       "nobody's large template")
    rss0 = vm_hwm_kib(d)

    stop = threading.Event()
    vout, lat = {}, []
    soak = Soak(d, h)
    threads = [threading.Thread(target=victim, args=(d, stop, vout)),
               threading.Thread(target=root_info, args=(d, stop,
                                                        soak.phase, lat))]
    for t in threads:
        t.start()
    # A quiet while first (the victim pushes, nobody waits): root's
    # latency without the attacks, to compare with.
    wait_for(lambda: len(lat) >= 50, "root's Info calls while it is quiet")
    t0 = time.monotonic()
    try:
        soak.run(t0 + SECONDS)
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=2 * harness.DEADLINE)
    took = time.monotonic() - t0
    h.cmd(op="close")
    h.quit()

    # The victim's totals are exact.
    check(vout.get("attach", "").startswith("ok") and
          vout.get("spill", "").startswith("ok"), "the victim's ring: %s"
          % vout)
    m = [int(x.split("=")[1]) for x in vout.get("counters", "").split()[1:]]
    pushed, dropped = (m + [0, 0])[:2]
    check(pushed > 0 and dropped == 0, "the victim pushed %d updates and "
          "lost none (%d dropped)" % (pushed, dropped))
    got = wait_for(lambda: (lambda s: s if s == pushed else None)(
        read_data(d, "victim", 0, "k").get("requests.sum")),
        "the victim's sum to be every update it pushed (%d)" % pushed)
    check(got == pushed and read_data(d, "victim", 0, "k").get(
        "requests.count") == pushed, "the victim's totals are exact: sum "
        "%s, count %s of %d" % (got, read_data(d, "victim", 0, "k").get(
            "requests.count"), pushed))

    # Everything the attacker held is given back.
    wait_for(lambda: all(user_usage(d, NOBODY).get(r, 1) == 0 for r in (
        "connections", "buffered_bytes", "rings", "ring_bytes")),
        "nobody's connections, buffers and rings given back")

    # Memory: what the quotas let one user make statsd hold, and slack.
    grew = vm_hwm_kib(d) - rss0
    bound = sum(PER_UID[r][1] for r in HELD_IN_MEMORY) // 1024 + SLACK_KIB
    if sanitized(d):
        print("peak memory grew %d KiB (not checked under a sanitizer, "
              "whose allocator keeps freed memory)" % grew)
    else:
        check(grew <= bound, "statsd's peak memory grew %d KiB, within "
              "nobody's quotas and slack: %d KiB" % (grew, bound))
    check(d.alive(), "statsd answers")
    ok(d.call("io.statsd.Info", {}), "Info after the soak")

    # The figures, for the record (never asserted).
    good = [x for _, x in lat if x >= 0]
    check(len(good) > 0 and len(good) == len(lat), "every Info of root "
          "answered: %d of %d" % (len(good), len(lat)))
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    print("soak: %.1f s, %d rounds of %d attacks as nobody; load average "
          "%s" % (took, soak.n, len(Soak.ATTACKS), load))
    print("  rounds: " + ", ".join("%s %d" % kv for kv in
                                   sorted(soak.rounds.items())))
    print("  victim: %d updates pushed, %d dropped, sum exact" % (pushed,
                                                                 dropped))
    print("  nobody's peaks: " + ", ".join(
        "%s %d/%d" % (r, soak.peak[r], PER_UID[r][1]) for r in PER_UID))
    print("  peak memory grew %d KiB (bound %d KiB)" % (grew, bound))
    if good:
        print("  root's Info latency, ms, by what ran as the call began:")
        print("  %-22s %5s %8s %8s %8s %8s %8s" % (
            "", "calls", "min", "median", "p90", "p99", "max"))
        for what in ["quiet"] + [a.__name__ for a in Soak.ATTACKS]:
            xs = [x for w, x in lat if w == what and x >= 0]
            if xs:
                print(latency_line(what, xs))
        print(latency_line("all attacks", [x for w, x in lat
                                           if w != "quiet" and x >= 0]))
    d.stop()
    d.cleanup()


if __name__ == "__main__":
    test_soak()
    finish()
