# SPDX-License-Identifier: BSD-2-Clause
"""test_paging.py: reads of many kstats in pages — Chain, Lookup, Scrape
(every format) and TemplateList with a small reply_page_size: a client
that does not ask for a stream gets the first page and a cursor and walks
the rest with it; one that asks for "more" gets every page as a reply of
a stream; both see each kstat once, in kstat(1M)'s order, and the pages'
texts join into the whole output. Bad cursors are refused by name, a
literal name selects one kstat, a kstat added or removed between pages
does not disturb the walk, and Scrape's rounds repeat as pages."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (TPL_APP, Daemon, check, expect_error,  # noqa: E402
                     finish, ok)

N = 300
d = Daemon(config="reply_page_size = 4K\nmax_kstats_per_uid = 1000\n"
           "max_templates = 64\n").start()
c = d.conn()
spec = ok(c.call("io.statsd.TemplateAdd", TPL_APP), "TemplateAdd")[
    "template"]["spec"]
names = []
for i in range(N):
    # Modules in two cases and instances out of order: the order is
    # kstat(1M)'s, not the order of creation.
    m = ("pg" if i % 2 else "PG") + str(i % 7)
    ok(c.call("io.statsd.KstatCreate", {
        "module": m, "instance": (i * 37) % 11, "name": "k%03d" % i,
        "template": spec, "class": "even" if i % 2 == 0 else "odd"}),
        "KstatCreate %d" % i, count=False)
    names.append((m, (i * 37) % 11, "k%03d" % i))


def order(key):
    m, i, n = key
    return (m.lower(), i, n.lower(), m, n)


def by_cursor(method, params):
    """Every page, by calling again with the cursor of the last."""
    pages = []
    p = dict(params)
    while True:
        r = ok(c.call(method, p), method + " page", count=False)
        pages.append(r)
        if "cursor" not in r:
            return pages
        p = dict(params, cursor=r["cursor"])
        if len(pages) > 10000:
            check(False, method + ": pages without end")
            return pages


def by_stream(method, params):
    """Every page, as the replies of one call with "more"."""
    c.send(method, params, more=True)
    pages = []
    while True:
        r = c.recv()
        p = ok(r, method + " streamed page", count=False)
        pages.append(p)
        if not r.get("continues"):
            check("cursor" not in p, method + ": the last page has no cursor")
            return pages
        check("cursor" in p, method + ": a page before the last has a cursor",
              count=False)


def keys(pages):
    return [(k["module"], k["instance"], k["name"])
            for p in pages for k in p["kstats"]
            if k["module"].lower().startswith("pg")]


want = sorted(names, key=order)
for how in (by_cursor, by_stream):
    pages = how("io.statsd.Chain", {})
    check(len(pages) > 3, "Chain %s: several pages (%d)" % (how.__name__,
                                                            len(pages)))
    check(keys(pages) == want, "Chain %s: every kstat once, in kstat(1M) "
          "order" % how.__name__)
    pages = how("io.statsd.Lookup", {"module": "pg3"})
    got = keys(pages)
    check(got == [k for k in want if k[0] == "pg3"],
          "Lookup of a literal module %s: %d kstats" % (how.__name__,
                                                        len(got)))
    pages = how("io.statsd.Lookup", {"class": "odd"})
    check(keys(pages) == [k for k in want if int(k[2][1:]) % 2],
          "Lookup by class %s" % how.__name__)

# One literal name: one kstat, one page.
pages = by_cursor("io.statsd.Lookup", {"module": "pg1", "instance":
                                       (1 * 37) % 11, "name": "k001"})
check(keys(pages) == [("pg1", 37 % 11, "k001")] and len(pages) == 1,
      "Lookup of one name: that kstat only")
pages = by_cursor("io.statsd.Scrape", {"format": "kstat",
                                       "selector": "pg1:4:k001"})
check(len(pages) == 1 and pages[0]["text"].startswith("pg1:4:k001:"),
      "Scrape of one name: that kstat only")

# Scrape: the texts join into the whole output, in every format.
for how in (by_cursor, by_stream):
    pages = how("io.statsd.Scrape", {"format": "kstat", "selector": "/^[pP][gG]/"})
    text = "".join(p["text"] for p in pages)
    lines = text.splitlines()
    shown = []
    for ln in lines:
        m, i, n = ln.split("\t")[0].split(":")[:3]
        if not shown or shown[-1] != (m, int(i), n):
            shown.append((m, int(i), n))
    check(len(pages) > 3 and shown == want,
          "Scrape kstat %s: %d pages, every kstat once, in order"
          % (how.__name__, len(pages)))
    pages = how("io.statsd.Scrape", {"format": "json", "selector": "/^[pP][gG]/"})
    text = "".join(p["text"] for p in pages)
    try:
        arr = json.loads(text)
    except ValueError:
        arr = None
    check(isinstance(arr, list) and [(k["module"], k["instance"], k["name"])
                                      for k in arr] == want,
          "Scrape json %s: the pages' texts make one kstat -j array"
          % how.__name__)
    objs = [(k["module"], k["instance"], k["name"]) for p in pages
            for k in p["kstats"]]
    check(objs == want, "Scrape json %s: the objects of the pages"
          % how.__name__)
pages = by_cursor("io.statsd.Scrape", {"format": "json", "selector": "x:9"})
check(len(pages) == 1 and pages[0]["text"] == "[]\n" and
      pages[0]["kstats"] == [], "Scrape json of nothing: []")

# TemplateList in pages.
for i in range(20):
    ok(c.call("io.statsd.TemplateAdd", {"name": "T%02d" % i, "vois": [
        {"id": j, "name": "v%d" % j, "dtype": "INT_U64",
         "stats": [{"kind": "SUM"}, {"kind": "MAX"}]} for j in range(8)]}),
       "TemplateAdd T%02d" % i, count=False)
for how in (by_cursor, by_stream):
    pages = how("io.statsd.TemplateList", {})
    mine = ["APP"] + ["T%02d" % i for i in range(20)]
    got = [t["name"] for p in pages for t in p["templates"]
           if t["name"] in mine]
    lists = ",".join(p["list"] for p in pages).split(",")
    check(len(pages) > 1 and got == mine and
          lists == [t["spec"] for p in pages for t in p["templates"]],
          "TemplateList %s: %d pages, every template once, oldest first"
          % (how.__name__, len(pages)))

# The chain changes between pages: the walk goes on after the last kstat
# it sent; one added after it shows, one removed before it does not.
r = ok(c.call("io.statsd.Chain", {}), "Chain first page")
first = keys([r])
ok(c.call("io.statsd.KstatCreate", {"module": "pg6", "instance": 99,
                                    "name": "late", "template": spec}),
   "a kstat added between pages")
ok(c.call("io.statsd.KstatDelete", {"module": first[0][0], "instance":
                                    first[0][1], "name": first[0][2]}),
   "a kstat removed between pages")
rest = by_cursor("io.statsd.Chain", {"cursor": r["cursor"]})
check(first + keys(rest) == sorted(names + [("pg6", 99, "late")],
                                   key=order),
      "a changing chain: each kstat once")

# Bad cursors: refused, naming the parameter.
for bad in ("", "x", "1:a", "1:a:b:c", "1:a:1:b:c", "1::1:b",
            "99999999999999999999999:a:1:b", "1:a:99999999999:b",
            "1:" + "m" * 40 + ":1:b"):
    expect_error(c.call("io.statsd.Chain", {"cursor": bad}),
                 "io.statsd.InvalidValue", "cursor %r" % bad,
                 parameter="cursor")
expect_error(c.call("io.statsd.TemplateList", {"cursor": "a"}),
             "io.statsd.InvalidValue", "TemplateList cursor",
             parameter="cursor")
# A cursor is a position, not a secret: one from elsewhere just resumes
# there.
r = ok(c.call("io.statsd.Chain", {"cursor": "0:zzzz:0:zzzz"}),
       "a cursor past the end")
check(r["kstats"] == [] and "cursor" not in r, "past the end: nothing more")

# Scrape rounds: with interval_ms and count, each round is pages again.
c.send("io.statsd.Scrape", {"format": "kstat", "selector": "/^[pP][gG]/",
                            "interval_ms": 100, "count": 2}, more=True)
rounds, cur = [], []
while True:
    r = c.recv()
    p = ok(r, "a page of a round", count=False)
    cur.append(p["text"])
    if "cursor" not in p:
        rounds.append("".join(cur))
        cur = []
    if not r.get("continues"):
        break
check(len(rounds) == 2 and rounds[0] == rounds[1] and
      rounds[0].count("\n") > N, "two rounds of pages, each the whole "
      "scrape (%d rounds)" % len(rounds))
check(d.alive(), "statsd still answers")
c.close()
d.stop()
finish()
