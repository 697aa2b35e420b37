# SPDX-License-Identifier: BSD-2-Clause
"""stall_bench.py BASE_STATSD NEW_STATSD [NAME...]: root's io.statsd.Info
latency while uid 65534 attacks the event loop, for two statsd binaries
side by side (e.g. a build of main and one of a branch), with the
ratios. Then root's own reads (a Scrape of statsd:0:daemon every 20 ms)
while nobody keeps the reader threads busy with pages: BASE, and NEW
with reader_threads = 1 and = 2 (the first thread kept for privileged
peers).

Each attack runs for a few seconds on a fresh daemon while root calls
Info every 20 ms on a connection of its own and the bench scrapes
/metrics (test_stall.py's Root); the attacks are test_stall.py's, at its
scale (NAME...: only the attacks whose name holds one). Needs root and
setpriv. Latencies depend on the machine and its load: compare the two
columns of one run, not runs of different days.
Never run by the tests."""
import os
import statistics
import sys
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
os.environ.setdefault("STATSD_SRCDIR", os.path.join(HERE, "..", ".."))
import harness  # noqa: E402
import test_stall as ts  # noqa: E402


def quiet(d):
    time.sleep(3)


def k4_pipelined_info(d):
    h = ts.Hostile(d)
    h.cmd(op="pipeline", n=64, calls=300, method="io.statsd.Info")
    time.sleep(4)
    h.cmd(op="close")
    h.quit()


def row4_empty_messages(d):
    h = ts.Hostile(d)
    h.cmd(op="flood", n=8, bytes=65536)
    h.quit()


def row1_family_walk(d):
    c = d.conn()
    spec = harness.ok(c.call("io.statsd.TemplateAdd", ts.tpl("WIDE", 32)),
                      "template", False)["template"]["spec"]
    ts.create_many(c, spec, "grp", "same", 10000)
    c.close()
    h = ts.Hostile(d)
    h.cmd(op="pages", calls=[("io.statsd.Scrape", {
        "format": "prometheus", "selector": "grp:/^(7|1234)$/:same"})])
    h.quit()


def http_flood(d):
    """16 scrapers (every connection http_max_connections allows) of
    20,000 kstats, each scraping again as soon as it is done, for 4 s:
    in the loop, every page was a turn beside root's."""
    url = "http://127.0.0.1:%d/metrics" % d.port
    stop = time.monotonic() + 4

    def scraper():
        while time.monotonic() < stop:
            try:
                with urllib.request.urlopen(url, timeout=60) as r:
                    r.read()
            except OSError:
                pass
    th = [threading.Thread(target=scraper) for _ in range(16)]
    for t in th:
        t.start()
    for t in th:
        t.join()


def make_wide_kstat(d):
    c = d.conn()
    spec = harness.ok(c.call("io.statsd.TemplateAdd", ts.tpl("READW", 256)),
                      "t", False)["template"]["spec"]
    harness.ok(c.call("io.statsd.KstatCreate", {
        "module": "wide", "instance": 0, "name": "k", "template": spec}),
        "KstatCreate", False)
    c.close()


def pipelined_reads(d):
    """64 connections pipelining Read of a 256-VOI kstat: each reply is
    about 20 KB of JSON to render; in the loop, every one a turn."""
    h = ts.Hostile(d)
    h.cmd(op="pipeline", n=64, calls=200, method="io.statsd.Read",
          parameters={"module": "wide", "instance": 0, "name": "k"})
    time.sleep(4)
    h.cmd(op="close")
    h.quit()


def make_nobody_templates(d):
    """200 templates of 64 VOIs, nobody's own: its TemplateList shows
    them all (about 1 MB of definitions, four pages)."""
    h = ts.Hostile(d)
    r = h.cmd(op="calls", calls=[("io.statsd.TemplateAdd",
                                  ts.tpl("NT%03d" % i, 64))
                                 for i in range(200)])
    h.quit()
    bad = [x for x in r.get("replies", []) if "error" in x]
    harness.check(len(r.get("replies", [])) == 200 and not bad,
                  "nobody's 200 templates: %s" % str(bad[:1])[:200])


def pipelined_template_lists(d):
    """64 connections pipelining TemplateList: each page is a quarter
    MB of JSON to render; in the loop, every one a turn."""
    h = ts.Hostile(d)
    h.cmd(op="pipeline", n=64, calls=50, method="io.statsd.TemplateList")
    time.sleep(4)
    h.cmd(op="close")
    h.quit()


def make_http_kstats(d):
    c = d.conn()
    spec = harness.ok(c.call("io.statsd.TemplateAdd", ts.tpl("HTTPW", 8)),
                      "t", False)["template"]["spec"]
    ts.create_many(c, spec, "web", "k", 20000)
    c.close()


ATTACKS = [("quiet", quiet), ("K4: 64 x Info pipelined", k4_pipelined_info),
           ("4: 8 x 65,536 empty messages", row4_empty_messages),
           ("1: Scrape of 2 in a group of 10,000", row1_family_walk),
           ("16 x GET /metrics of 20,000 kstats", http_flood),
           ("64 x Read of a 256-VOI kstat pipelined", pipelined_reads),
           ("64 x TemplateList of 200 pipelined", pipelined_template_lists)]


def pipelined_scrapes(d):
    """64 connections of nobody pipelining Scrape of 20,000 kstats in
    kstat(1M)'s text: each page a quarter MB for a reader thread."""
    h = ts.Hostile(d)
    h.cmd(op="pipeline", n=64, calls=40, method="io.statsd.Scrape",
          parameters={"format": "kstat"})
    time.sleep(4)
    h.cmd(op="close")
    h.quit()


ROOT_READ = ("io.statsd.Scrape", {"format": "kstat",
                                  "selector": "statsd:0:daemon"}, "text")


def run_read(binary, config):
    """Root's Scrape of statsd:0:daemon while nobody's pages fill the
    reader threads: median, p99 and max ms."""
    harness.STATSD = binary
    d = ts.start(config)
    make_http_kstats(d)
    root = ts.Root(d, call=ROOT_READ)
    pipelined_scrapes(d)
    root.stop = True
    root.ti.join()
    root.ts.join()
    lat = sorted(root.lat)
    answered, sent = root.answered, root.sent
    ts.stop(d)
    return (statistics.median(lat) * 1000,
            lat[min(len(lat) - 1, int(len(lat) * .99))] * 1000,
            lat[-1] * 1000, answered, sent)


def run(binary, attack):
    harness.STATSD = binary
    d = ts.start()
    # The group is made before root starts calling: only the attack is
    # measured.
    if attack is row1_family_walk:
        root = None
        t0 = time.monotonic()
        c = d.conn()
        spec = harness.ok(c.call("io.statsd.TemplateAdd",
                                 ts.tpl("WIDE", 32)), "t", False)[
                                     "template"]["spec"]
        ts.create_many(c, spec, "grp", "same", 10000)
        c.close()
        root = ts.Root(d)
        h = ts.Hostile(d)
        h.cmd(op="pages", calls=[("io.statsd.Scrape", {
            "format": "prometheus", "selector": "grp:/^(7|1234)$/:same"})])
        h.quit()
    else:
        # The kstats are made before root starts calling.
        if attack is http_flood:
            make_http_kstats(d)
        if attack is pipelined_reads:
            make_wide_kstat(d)
        if attack is pipelined_template_lists:
            make_nobody_templates(d)
        root = ts.Root(d)
        t0 = time.monotonic()
        attack(d)
    root.stop = True
    root.ti.join()
    root.ts.join()
    lat = sorted(root.lat)
    gap = d.wd.gap_since(t0)
    ok200 = sum(1 for s in root.scrapes if s == (200, True))
    ts.stop(d)
    return (statistics.median(lat) * 1000,
            lat[min(len(lat) - 1, int(len(lat) * .99))] * 1000,
            lat[-1] * 1000, gap, ok200, len(root.scrapes))


def main():
    base, new = sys.argv[1], sys.argv[2]
    print("load average at start: %.1f" % os.getloadavg()[0])
    print("%-38s %28s   %28s   %s" % ("attack (uid 65534)",
                                      "base: median/p99/max ms",
                                      "new: median/p99/max ms",
                                      "p99 ratio, max ratio"))
    only = sys.argv[3:]     # attacks whose name holds one of these
    for name, attack in ATTACKS:
        if only and not any(o in name for o in only):
            continue
        a = run(base, attack)
        b = run(new, attack)
        print("%-38s %8.1f %8.1f %8.1f   %8.1f %8.1f %8.1f   %5.2f %5.2f"
              % (name, a[0], a[1], a[2], b[0], b[1], b[2],
                 b[1] / a[1] if a[1] else 0, b[2] / a[2] if a[2] else 0))
        print("%-38s watchdog gap %.2f s / %.2f s; scrapes 200 %d of %d "
              "/ %d of %d" % ("", a[3], b[3], a[4], a[5], b[4], b[5]),
              flush=True)
    if not only or any(o in "reads" for o in only):
        print()
        print("root's Scrape of statsd:0:daemon every 20 ms while nobody "
              "pipelines Scrape pages of 20,000 kstats on 64 connections")
        print("%-38s %28s" % ("statsd", "median/p99/max ms"))
        rows = [("base", base, ""),
                ("new, reader_threads = 1", new, "reader_threads = 1\n"),
                ("new, reader_threads = 2", new, "reader_threads = 2\n")]
        res = []
        for name, binary, conf in rows:
            r = run_read(binary, conf)
            res.append(r)
            print("%-38s %8.1f %8.1f %8.1f   answered %d of %d"
                  % ((name,) + r), flush=True)
        print("%-38s p99 %.2fx, max %.2fx" % (
            "new 2 threads / base", res[2][1] / res[0][1],
            res[2][2] / res[0][2]))
    harness.cleanup_all()


if __name__ == "__main__":
    main()
