# SPDX-License-Identifier: BSD-2-Clause
"""test_kstat_fields.py: what KstatCreate carries besides names and a
template. Solaris kstat2_create_histogram(9F) gives a kstat a content_type,
"the type of the values being added to the histogram", and a scale, the
"scaling factor to be applied to the histogram bucket contents"; illumos
kstat_create(9F) gives a RAW kstat its size in bytes (ndata). statsd keeps
all three, shows them in every Kstat, keeps them across a restart for a
PERSISTENT kstat, and refuses what cannot be."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (Daemon, check, expect_error, finish, ok)  # noqa: E402

WORDS = {"name": "RAW2", "vois": [
    {"id": i, "name": "w%d" % i, "dtype": "INT_U64",
     "stats": [{"kind": "LAST"}]} for i in range(2)]}
HIST = {"name": "H", "vois": [
    {"id": 0, "name": "buckets", "dtype": "INT_U64",
     "stats": [{"kind": "K2HIST", "scheme": "LOG2", "lb": 0, "ub": 0,
                "step": 0}]}]}


def create(d, name, tpl, **kw):
    p = {"module": "f", "instance": 0, "name": name, "template": tpl}
    p.update(kw)
    return d.call("io.statsd.KstatCreate", p)


def fields(k):
    return (k.get("content"), k.get("scale"), k.get("ndata"))


d = Daemon().start()
words = ok(d.call("io.statsd.TemplateAdd", WORDS), "TemplateAdd words")[
    "template"]["spec"]
hist = ok(d.call("io.statsd.TemplateAdd", HIST), "TemplateAdd hist")[
    "template"]["spec"]

# A RAW kstat of 12 bytes in two words: its Kstat says 12.
k = ok(create(d, "raw12", words, type="RAW", ndata=12), "RAW, 12 bytes")[
    "kstat"]
check(fields(k) == ("UNK", 1, 12), "RAW: ndata 12: %s" % (fields(k),))
k = ok(create(d, "raw", words, type="RAW"), "RAW, no ndata")["kstat"]
check(fields(k) == ("UNK", 1, 16), "RAW without ndata: its words' bytes, "
      "16: %s" % (fields(k),))
k = ok(create(d, "named", words, type="NAMED"), "NAMED")["kstat"]
check(fields(k) == ("UNK", 1, 2), "NAMED: its VOIs: %s" % (fields(k),))

# A kstat2 histogram of page counts in bytes (the page's own example of a
# scale), PERSISTENT.
k = ok(create(d, "pages", hist, type="HIST", content="BYTES", scale=4096,
              flags=["PERSISTENT"]), "HIST, BYTES, scale 4096")["kstat"]
check(fields(k) == ("BYTES", 4096, 1), "HIST: %s" % (fields(k),))
lk = ok(d.call("io.statsd.Lookup", {"module": "f", "name": "pages"}),
        "Lookup")["kstats"]
check(len(lk) == 1 and fields(lk[0]) == ("BYTES", 4096, 1),
      "Lookup shows them too: %s" % lk)

# Refused: more bytes than the words hold, an unknown content type, a
# scale of 0, another kind's ndata past its VOIs.
expect_error(create(d, "raw17", words, type="RAW", ndata=17),
             "io.statsd.InvalidValue", "17 bytes in two words",
             parameter="ndata")
expect_error(create(d, "nope", hist, type="HIST", content="NOPE"),
             "io.statsd.InvalidValue", "an unknown content type",
             parameter="content")
r = create(d, "zero", hist, type="HIST", scale=0)
check(r.get("error") is not None, "scale 0 is refused: %s" % r)
expect_error(create(d, "named3", words, type="NAMED", ndata=3),
             "io.statsd.InvalidValue", "3 records of 2 VOIs",
             parameter="ndata")

# Kept across a clean restart and a kill -9.
d.stop()
d.start()
r = ok(d.call("io.statsd.Read", {"module": "f", "instance": 0,
                                 "name": "pages"}), "Read after a restart")
check(fields(r.get("kstat", {})) == ("BYTES", 4096, 1),
      "after a restart: %s" % (fields(r.get("kstat", {})),))
check(r.get("data", {}).get("content") == "BYTES" and
      r.get("data", {}).get("scale") == 4096,
      "the flat data shows them after a restart: %s" % r.get("data"))
d.kill9()
d.start()
r = ok(d.call("io.statsd.Read", {"module": "f", "instance": 0,
                                 "name": "pages"}), "Read after kill -9")
check(fields(r.get("kstat", {})) == ("BYTES", 4096, 1),
      "after kill -9: %s" % (fields(r.get("kstat", {})),))
d.stop()
finish()
