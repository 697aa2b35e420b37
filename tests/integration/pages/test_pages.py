# SPDX-License-Identifier: BSD-2-Clause
"""test_pages.py: what a program written from the specification pages alone
expects of a live statsd, through every reader: the libkstat consumer API
(pages_it, a C program written from the pages), statsctl, the JSON and
kstat -p scrapes, and Read and Snapshot. Each check quotes the page's
words it holds statsd to.

Solaris kstat2_create_histogram(9F): a histogram kstat exists with all its
buckets ("a kstat containing exactly 65 buckets") from creation, and its
data has the fields "buckets", "type", "range_min", "range_max" and
"stepping", readable by name; its content type and scale, as the creator
gave them, reach every reader. illumos kstat(3KSTAT): a KSTAT_DATA_STRING
is published whether or not the kstat is WRITABLE, BUFLEN is strlen + 1.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import harness  # noqa: E402
from harness import DEADLINE, Daemon, check, finish, ok  # noqa: E402

PAGES_IT = os.environ.get("PAGES_IT", "pages_it")
STATSCTL = os.environ.get("STATSCTL", "statsctl")

# The page's four examples: instance (from the path), type, range_min,
# range_max, stepping, and how many buckets the page says the kstat holds.
# LOG10_LIN (2, 4, 5): the page numbers its buckets up to 23 twice; its
# ranges give 17 (docs/formats.md records the choice).
EXAMPLES = [
    (1, 0, 0, 1024, 128, 10, "at most 10 buckets"),
    (2, 1, 0, 0, 0, 65, "exactly 65 buckets"),
    (3, 2, 0, 0, 0, 21, "exactly 21 buckets"),
    (4, 3, 2, 4, 5, 17, "< 100 ... > 100000 in steps of 5"),
]


def pages_it(d, mode):
    p = harness.run([PAGES_IT, mode, d.sock], stdin=subprocess.DEVNULL,
                    capture_output=True, text=True, timeout=DEADLINE * 4)
    check(p.returncode == 0, "pages_it %s exited %d:\n%s%s" % (
        mode, p.returncode, p.stdout[-3000:], p.stderr[-3000:]))
    check("Sanitizer" not in p.stderr and "runtime error" not in p.stderr,
          "pages_it %s: sanitizer report:\n%s" % (mode, p.stderr[-3000:]))
    return p.stdout


def statsctl(d, *argv):
    p = harness.run([STATSCTL, "--socket", d.sock] + list(argv),
                    stdin=subprocess.DEVNULL, capture_output=True, text=True,
                    timeout=DEADLINE)
    check(p.returncode == 0, "statsctl %s exited %d: %s" % (
        " ".join(argv), p.returncode, p.stderr))
    return p.stdout


def key(inst):
    return {"module": "my_drv", "instance": inst, "name": "data_in"}


def check_fields(where, data, inst, typ, rmin, rmax, step, n, says):
    """data maps the histogram's field names to their values."""
    b = data.get("buckets")
    check(isinstance(b, list) and len(b) == n,
          "%s, example %d: %s (buckets %r)" % (where, inst, says, b))
    check(isinstance(b, list) and all(x == 0 for x in b),
          "%s, example %d: every bucket at zero before anything is added"
          % (where, inst))
    got = (data.get("type"), data.get("range_min"), data.get("range_max"),
           data.get("stepping"))
    check(got == (typ, rmin, rmax, step),
          "%s, example %d: type, range_min, range_max, stepping %r"
          % (where, inst, got))


d = Daemon().start()
pages_it(d, "provide")

for inst, typ, rmin, rmax, step, n, says in EXAMPLES:
    # Read: the flat data by name, and the blob's histogram with every
    # bucket (not "null": nothing has been added yet).
    r = ok(d.call("io.statsd.Read", key(inst)), "Read example %d" % inst)
    check_fields("Read", r.get("data", {}), inst, typ, rmin, rmax, step, n,
                 says)
    hist = r.get("blob", {}).get("vois", {}).get("buckets", {}).get(
        "stats", {}).get("HIST")
    check(isinstance(hist, dict) and hist.get("nbkts") == n and
          [b["cnt"] for b in hist.get("bkts", [])] == [0] * n,
          "Read blob, example %d: the histogram has its %d buckets: %r"
          % (inst, n, hist))
    s = ok(d.call("io.statsd.Snapshot", key(inst)),
           "Snapshot example %d" % inst)
    check(s.get("blob", {}).get("vois", {}).get("buckets", {}).get(
        "stats", {}).get("HIST") == hist,
        "Snapshot blob, example %d: the same histogram" % inst)
    check_fields("Snapshot", s.get("data", {}), inst, typ, rmin, rmax, step,
                 n, says)

# The JSON scrape, as values and as kstat -j's text.
sc = ok(d.call("io.statsd.Scrape", {"format": "json",
                                    "selector": "my_drv:::"}), "Scrape json")
byinst = {k["instance"]: k for k in sc.get("kstats", [])}
text = json.loads(sc.get("text", "[]"))
bytext = {k["instance"]: k for k in text}
for inst, typ, rmin, rmax, step, n, says in EXAMPLES:
    check_fields("Scrape json", byinst.get(inst, {}).get("data", {}), inst,
                 typ, rmin, rmax, step, n, says)
    check_fields("Scrape json text", bytext.get(inst, {}).get("data", {}),
                 inst, typ, rmin, rmax, step, n, says)

# kstat -p: the buckets on one line, blank-separated.
sc = ok(d.call("io.statsd.Scrape", {"format": "kstat",
                                    "selector": "my_drv:2:data_in:"}),
        "Scrape kstat")
lines = dict(ln.split("\t", 1) for ln in sc.get("text", "").splitlines())
check(lines.get("my_drv:2:data_in:buckets") == " ".join(["0"] * 65),
      "kstat -p: 65 buckets at zero: %r" % lines.get(
          "my_drv:2:data_in:buckets"))
check(lines.get("my_drv:2:data_in:type") == "1" and
      lines.get("my_drv:2:data_in:stepping") == "0",
      "kstat -p: type and stepping by name: %r" % lines)

# statsctl: show (kstat(1M)) and hist.
out = statsctl(d, "show", "-p", "my_drv:3:data_in:buckets")
check(out.strip() == "my_drv:3:data_in:buckets\t" + " ".join(["0"] * 21),
      "statsctl show -p: 21 buckets at zero: %r" % out)
out = statsctl(d, "show", "-j", "my_drv:4:data_in")
try:
    shown = json.loads(out)
except ValueError:
    shown = []
check_fields("statsctl show -j", shown[0].get("data", {}) if shown else {},
             4, 3, 2, 4, 5, 17, "17 buckets")
for inst, typ, rmin, rmax, step, n, says in EXAMPLES:
    out = statsctl(d, "hist", "-j", "my_drv:%d:data_in" % inst)
    try:
        dists = json.loads(out)
    except ValueError:
        dists = None
    check(dists is not None and "no histogram" not in out,
          "statsctl hist -j, example %d: a histogram: %r" % (inst, out[:300]))
    out = statsctl(d, "hist", "my_drv:%d:data_in" % inst)
    check("no histogram" not in out and "Distribution" in out,
          "statsctl hist, example %d: drawn: %r" % (inst, out[:300]))

# The libkstat consumer API: kstat_read + kstat_data_lookup by name
# (content and scale among them).
pages_it(d, "hist")

# kstat2_create_histogram(9F): content_type is "the type of the values
# being added to the histogram", scale the "scaling factor to be applied
# to the histogram bucket contents". What the creator gave, every reader
# shows: the chain's Kstat, Read's data, statsctl (kstat(1M)'s -p), and the
# exposition names the values' unit after the content type.
CONTENT = {1: ("BYTES", 1), 2: ("BYTES", 1), 3: ("T_REL", 1000000),
           4: ("CNT", 1)}
for inst, (content, scale) in CONTENT.items():
    r = ok(d.call("io.statsd.Read", key(inst)), "Read example %d" % inst)
    got = (r.get("kstat", {}).get("content"), r.get("kstat", {}).get("scale"))
    check(got == (content, scale), "Kstat, example %d: content and scale "
          "%r" % (inst, got))
    got = (r.get("data", {}).get("content"), r.get("data", {}).get("scale"))
    check(got == (content, scale), "Read data, example %d: content and "
          "scale %r" % (inst, got))
out = statsctl(d, "show", "-p", "my_drv:3:data_in:content")
check(out == "my_drv:3:data_in:content\tT_REL\n",
      "statsctl show -p: the content type: %r" % out)
out = statsctl(d, "show", "-p", "my_drv:3:data_in:scale")
check(out == "my_drv:3:data_in:scale\t1000000\n",
      "statsctl show -p: the scale: %r" % out)
prom = ok(d.call("io.statsd.Scrape", {"format": "prometheus",
                                      "selector": "my_drv:::"}),
          "Scrape prometheus").get("text", "")
for inst, fam in ((1, "hist_bytes_bucket"), (2, "hist_bytes_bucket"),
                  (3, "hist_seconds_bucket"), (4, "hist_bucket")):
    check(any(("_%s{" % fam) in ln and 'kstat_instance="%d"' % inst in ln
              for ln in prom.splitlines()),
          "exposition, example %d: the values' unit from the content "
          "type: %s" % (inst, fam))
# LOG10 of relative times: the bucket [10, 100) ns ends at 99 ns, in
# seconds.
check(any('kstat_instance="3"' in ln and 'le="9.9e-08"' in ln
          for ln in prom.splitlines()),
      "exposition, example 3: nanosecond bounds in seconds")

# kstat(3KSTAT): "KSTAT_DATA_STRING is a data type that allows
# arbitrary-length strings to be associated with a named kstat"; the
# provider publishes it on a kstat consumers may not write.
pages_it(d, "strings")
r = ok(d.call("io.statsd.Read", {"module": "pages", "instance": 0,
                                 "name": "strings"}), "Read pages:0:strings")
check(r.get("data", {}).get("model") ==
      "a string that a device publishes, fifty bytes long" and
      r.get("data", {}).get("state") == "running",
      "Read: the strings: %r" % r.get("data"))
check("WRITABLE" not in r.get("kstat", {}).get("flags", []),
      "pages:0:strings is not WRITABLE")
out = statsctl(d, "show", "-p", "pages:0:strings:model")
check(out == "pages:0:strings:model\ta string that a device publishes, "
      "fifty bytes long\n", "statsctl show -p: the string: %r" % out)
sc = ok(d.call("io.statsd.Scrape", {"format": "json",
                                    "selector": "pages:0:strings"}),
        "Scrape json strings")
check([k.get("data", {}).get("state") for k in sc.get("kstats", [])] ==
      ["running"], "Scrape json: the string")
# Consumers still may not write a kstat that is not WRITABLE.
c = d.conn()
harness.expect_error(c.call("io.statsd.Write", {
    "module": "pages", "instance": 0, "name": "strings",
    "values": {"state": "stolen"}}), "io.statsd.NotWritable",
    "Write without publish on a read-only kstat")
c.close()

# kstat(3KSTAT): "tools can read out the standard system kstat kstat_types
# (full name spec is <unix, 0, kstat_types>). This is a KSTAT_TYPE_NAMED
# kstat in which the name field describes the type of kstat, and the value
# field is the kstat type number (for example, KSTAT_TYPE_IO is type 3)."
TYPES = {"raw": 0, "name=value": 1, "interrupt": 2, "i/o": 3,
         "event_timer": 4}
pages_it(d, "types")
ch = ok(d.call("io.statsd.Chain", {}), "Chain")
kt = [k for k in ch.get("kstats", []) if (k["module"], k["instance"],
                                            k["name"]) ==
      ("unix", 0, "kstat_types")]
check(len(kt) == 1 and kt[0]["type"] == "NAMED" and
      kt[0]["class"] == "kstat" and "WRITABLE" not in kt[0]["flags"],
      "the chain holds unix:0:kstat_types, NAMED, read-only: %r" % kt)
data = ok(d.call("io.statsd.Read", {
    "module": "unix", "instance": 0, "name": "kstat_types"}),
    "Read kstat_types").get("data", {})
check(all(data.get(n) == v for n, v in TYPES.items()),
      "Read: names are the types, values their numbers: %r" % data)
out = statsctl(d, "show", "-p", "unix:0:kstat_types:i/o")
check(out == "unix:0:kstat_types:i/o\t3\n", "statsctl show -p: %r" % out)
# Read-only, for everyone: no write, publish, reset, redefinition or delete.
c = d.conn()
tkey = {"module": "unix", "instance": 0, "name": "kstat_types"}
harness.expect_error(c.call("io.statsd.Write", dict(
    tkey, values={"i/o": 9}, publish=True)), "io.statsd.NotWritable",
    "Write to kstat_types")
harness.expect_error(c.call("io.statsd.Snapshot", dict(tkey, reset=True)),
                     "io.statsd.InvalidValue", "reset kstat_types")
harness.expect_error(c.call("io.statsd.DefinitionSet", dict(
    tkey, text="on=1\n")), "io.statsd.InvalidValue",
    "redefine kstat_types")
harness.expect_error(c.call("io.statsd.KstatDelete", tkey),
                     "io.statsd.InvalidValue", "delete kstat_types")
c.close()
data = ok(d.call("io.statsd.Read", tkey), "Read kstat_types again").get(
    "data", {})
check(all(data.get(n) == v for n, v in TYPES.items()),
      "kstat_types unchanged: %r" % data)

d.stop()
finish()
