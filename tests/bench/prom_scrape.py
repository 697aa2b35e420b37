#!/usr/bin/python3
# SPDX-License-Identifier: BSD-2-Clause
"""prom_scrape.py: what a Prometheus scrape of statsd costs, for 10,000
statsd timers with 3 tag values each (30,000 series, 5 values each),
side by side for two statsd binaries: this build's (one family per
metric, in seconds, native histograms in protobuf) and a baseline (e.g.
one built from an older commit: the mapping before, 94 series a timer).

For each daemon and format (text 0.0.4, OpenMetrics, protobuf): the
samples (text) or Metric messages (protobuf; one per series, a native
histogram with its classic buckets is one), the bytes of a scrape
(uncompressed), statsd's CPU per scrape (utime + stime from /proc, over
SCRAPES scrapes) and, for the text format, the time python3-prometheus-
client's parser takes to read it. A statsd without the protobuf format
answers that request with text: its row says so. Then the ratios of this
build to the baseline.

usage: /usr/bin/python3 tests/bench/prom_scrape.py [BUILDDIR [BASELINE_STATSD]]
BASELINE_STATSD is a statsd binary; the mapping before is that of any
build up to 61042b9 (the parent of "prometheus: one family per statsd
metric, in base units"), built with BUILDDIR's buildtype so that the
CPU figures compare.
Loopback only; every daemon is stopped at exit. Not run by meson test:
its figures depend on the machine and its load. Also printed: statsd's
CPU to take the 150,000 lines, which shows what keeping the classic and
native buckets costs each value.
"""
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

build = sys.argv[1] if len(sys.argv) > 1 else "build"
baseline = sys.argv[2] if len(sys.argv) > 2 else None
STATSD = os.path.join(build, "src", "daemon", "statsd")
STATSCTL = os.path.join(build, "src", "statsctl", "statsctl")
TIMERS, TAGS, VALUES = 10000, 3, 5
SCRAPES = 5
FORMATS = [
    ("text", "text/plain;version=0.0.4"),
    ("openmetrics", "application/openmetrics-text;version=1.0.0"),
    ("protobuf", "application/vnd.google.protobuf;"
     "proto=io.prometheus.client.MetricFamily;encoding=delimited"),
]
procs, dirs = [], []


def cleanup():
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
    for d in dirs:
        shutil.rmtree(d, ignore_errors=True)


def free_port(kind):
    s = socket.socket(socket.AF_INET, kind)
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def wait_for(pred, what, deadline=120.0):
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(0.1)
    raise SystemExit("prom_scrape: timed out waiting for " + what)


def cpu(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def self_value(sock, name):
    p = subprocess.run([STATSCTL, "--socket", sock, "show", "-p",
                        "statsd:0:daemon:" + name], capture_output=True,
                       text=True)
    m = re.search(r"\t(\d+)$", p.stdout.strip())
    return int(m.group(1)) if m else None


def pb_metrics(data):
    """Metric messages (field 4 of each delimited MetricFamily)."""
    def varint(b, i):
        v, s = 0, 0
        while True:
            c = b[i]
            i += 1
            v |= (c & 0x7f) << s
            s += 7
            if c < 0x80:
                return v, i
    i, n = 0, 0
    while i < len(data):
        ln, i = varint(data, i)
        end = i + ln
        while i < end:
            key, i = varint(data, i)
            wt = key & 7
            if wt == 0:
                _, i = varint(data, i)
            elif wt == 2:
                fl, i = varint(data, i)
                n += (key >> 3) == 4
                i += fl
            elif wt == 1:
                i += 8
            elif wt == 5:
                i += 4
            else:
                raise ValueError("wire type %d" % wt)
    return n


def run(binary, label):
    tmp = tempfile.mkdtemp(prefix="prom-scrape-")
    dirs.append(tmp)
    udp = free_port(socket.SOCK_DGRAM)
    conf = os.path.join(tmp, "statsd.conf")
    with open(conf, "w") as f:
        f.write("statsd_udp = 127.0.0.1:%d\nhttp_listen = 127.0.0.1:0\n"
                "http_gzip_level = 0\nstatsd_ttl_s = 0\n"
                "statsd_max_series = 100000\n"
                "statsd_udp_max_series = 100000\n"
                "arena_size = 4G\narena_bytes_per_uid = 4G\n" % udp)
    log = open(os.path.join(tmp, "stderr"), "w+")
    run_dir = os.path.join(tmp, "run")
    p = subprocess.Popen([binary, "--foreground", "--config", conf,
                          "--runtime-dir", run_dir, "--state-dir",
                          os.path.join(tmp, "state")], stderr=log)
    procs.append(p)
    sock = os.path.join(run_dir, "statsd.sock")

    def port():
        log.seek(0)
        m = re.search(r"http: serving /metrics on 127\.0\.0\.1 port (\d+)",
                      log.read())
        return int(m.group(1)) if m else None
    http = wait_for(port, "%s's HTTP port" % label)
    wait_for(lambda: self_value(sock, "statsd_datagrams") is not None,
             "%s's control socket" % label)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    c_in = cpu(p.pid)
    lines = ["bench.t%d:%d|ms|#k:v%d" % (i, 1 + (i * 7 + v * 13) % 900, j)
             for i in range(TIMERS) for j in range(TAGS)
             for v in range(VALUES)]
    sent = 0
    for k in range(0, len(lines), 40):
        s.sendto("\n".join(lines[k:k + 40]).encode(), ("127.0.0.1", udp))
        sent += 1
        if sent % 200 == 0:     # paced: loopback drops nothing
            want = sent
            wait_for(lambda: (self_value(sock, "statsd_datagrams") or 0)
                     >= want, "%s to read" % label)
    wait_for(lambda: (self_value(sock, "statsd_datagrams") or 0) >= sent,
             "%s to read everything" % label)
    ingest = cpu(p.pid) - c_in
    applied = self_value(sock, "statsd_applied")
    series = self_value(sock, "statsd_series")
    rows = {}
    for name, accept in FORMATS:
        req = urllib.request.Request("http://127.0.0.1:%d/metrics" % http,
                                     headers={"Accept": accept})
        c0 = cpu(p.pid)
        for _ in range(SCRAPES):
            with urllib.request.urlopen(req, timeout=300) as r:
                ctype = r.headers.get("Content-Type", "")
                data = r.read()
        c1 = cpu(p.pid)
        is_pb = ctype.startswith("application/vnd.google.protobuf")
        if is_pb:
            count = pb_metrics(data)
            decode = None
        else:
            text = data.decode()
            count = sum(1 for ln in text.splitlines()
                        if ln and not ln.startswith("#"))
            decode = None
            if name == "text":
                from prometheus_client.parser import (
                    text_string_to_metric_families)
                t0 = time.perf_counter()
                for _ in text_string_to_metric_families(text):
                    pass
                decode = time.perf_counter() - t0
        rows[name] = {"count": count, "bytes": len(data),
                      "cpu": (c1 - c0) / SCRAPES, "decode": decode,
                      "served": "protobuf" if is_pb else
                      ("openmetrics" if "openmetrics" in ctype else "text")}
    p.send_signal(signal.SIGTERM)
    p.wait(timeout=60)
    return {"applied": applied, "series": series, "rows": rows,
            "ingest": ingest}


def fmt(v, kind):
    if v is None:
        return "-"
    if kind == "bytes":
        return "%.1f MB" % (v / 1e6)
    if kind in ("cpu", "decode"):
        return "%.0f ms" % (v * 1000)
    return "{:,}".format(v)


try:
    print("this build: %s; baseline: %s" % (STATSD, baseline or "none"))
    results = [("this build", run(STATSD, "this build"))]
    if baseline:
        results.append(("baseline", run(baseline, "baseline")))
    print("%d timers x %d tag values, %d values each: %s" % (
        TIMERS, TAGS, VALUES, ", ".join(
            "%s %s series, %s lines applied" % (lab, "{:,}".format(
                r["series"] or 0), "{:,}".format(r["applied"] or 0))
            for lab, r in results)))
    print("statsd CPU to take the lines (the series made, then updated; "
          "its polling by statsctl included): " + ", ".join(
              "%s %.0f ms" % (lab, r["ingest"] * 1000) for lab, r in
              results))
    head = "%-12s %-12s" % ("format", "figure")
    for lab, _ in results:
        head += " %16s" % lab
    if baseline:
        head += " %10s" % "ratio"
    print(head)
    for name, _ in FORMATS:
        for kind, what in (("count", "series"), ("bytes", "bytes"),
                           ("cpu", "statsd CPU"), ("decode", "py decode")):
            vals = [r["rows"][name][kind] for _, r in results]
            if all(v is None for v in vals):
                continue
            line = "%-12s %-12s" % (name, what)
            for (_, r), v in zip(results, vals):
                served = r["rows"][name]["served"]
                cell = fmt(v, kind)
                if served != name:
                    cell += " (%s)" % served[:4]
                line += " %16s" % cell
            if baseline and vals[0] is not None and vals[1]:
                line += " %10.3f" % (vals[0] / vals[1])
            print(line)
finally:
    cleanup()
