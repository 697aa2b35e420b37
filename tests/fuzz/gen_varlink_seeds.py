#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""gen_varlink_seeds.py: writes the fuzz_varlink seed corpus: one file per
session, the NUL-framed varlink calls one connection sends, covering every
method of io.statsd.varlink and org.varlink.service (and a few messages
statsd must refuse). KstatCreate names its template by its spec, whose
hash only statsd computes: the script starts a statsd (as the integration
tests do) to learn the specs of the templates the sessions add. Run by
hand after an interface change, from a build directory:

  STATSD=build/src/daemon/statsd tests/fuzz/gen_varlink_seeds.py \\
      tests/fuzz/corpus/varlink

A session that starts with the byte 0xff is sent as uid 0 (fuzz_varlink.c).
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "integration"))
from harness import TPL_APP, Daemon  # noqa: E402

S = "io.statsd."

TPL_KINDS = {"name": "KINDS", "vois": [
    {"id": 0, "name": "a", "dtype": "INT_S64", "stats": [
        {"kind": "SUM"}, {"kind": "MIN"}, {"kind": "MAX"}, {"kind": "COUNT"},
        {"kind": "HIST", "scheme": "EXP", "lb": 1, "ub": 1024,
         "stepbase": 2, "stepexp": 1, "counters": 32},
        {"kind": "TDGST", "nctds": 16, "counters": 32}]},
    {"id": 1, "name": "b", "dtype": "INT_U64", "stats": [
        {"kind": "K2HIST", "scheme": "LOG2", "lb": 1, "ub": 1 << 20}]},
    {"id": 2, "name": "c", "dtype": "INT_U32", "stats": [
        {"kind": "HIST", "range": "DV", "scheme": "USR",
         "buckets": [1, 2, 3]}]},
    {"id": 3, "name": "e", "dtype": "INT_S64", "stats": [
        {"kind": "LIST", "entries_max": 8}]},
    {"id": 4, "name": "f", "dtype": "INT_S64", "stats": [
        {"kind": "HISTORY", "entries_max": 4, "mode": "range",
         "period_us": 1000000}]},
    {"id": 5, "name": "g", "dtype": "INT_S64", "stats": [
        {"kind": "RAW", "entries_max": 4}]},
    {"id": 6, "name": "h", "dtype": "INT_U64", "stats": [{"kind": "IOQ"}]},
    {"id": 7, "name": "i", "dtype": "INT_U64", "stats": [{"kind": "TIMER"}]},
    {"id": 8, "name": "j", "dtype": "INT_U64", "stats": [
        {"kind": "STRING", "maxlen": 32}]},
    {"id": 9, "name": "k", "dtype": "INT_S64", "stats": [
        {"kind": "DEFN", "units": "bytes"}]},
    {"id": 10, "name": "l", "dtype": "INT_U64", "stats": [
        {"kind": "LAST"}], "relupdate": True},
]}

# KINDS with one VOI more: a kstat of KINDS is laid out again in it.
TPL_KINDS2 = {"name": "KINDS2", "vois": TPL_KINDS["vois"] + [
    {"id": 11, "name": "m", "dtype": "INT_U64", "stats": [{"kind": "SUM"}]}]}


def call(method, params=None, **kw):
    m = {"method": method if "." in method else S + method}
    if params is not None:
        m["parameters"] = params
    m.update(kw)
    return json.dumps(m, separators=(",", ":")).encode() + b"\0"


def main():
    out = sys.argv[1]
    d = Daemon().start()
    try:
        c = d.conn()
        specs = []
        for tpl in (TPL_APP, TPL_KINDS, TPL_KINDS2):
            r = c.call(S + "TemplateAdd", tpl)
            if "error" in r:
                sys.exit("TemplateAdd %s: %s" % (tpl["name"], r))
            specs.append(r["parameters"]["template"]["spec"])
        app, kinds, kinds2 = specs
    finally:
        d.stop()
    k = {"module": "app", "instance": 0, "name": "req"}
    kk = {"module": "app", "instance": 1, "name": "kinds"}
    own = {"module": "statsd", "instance": 0, "name": "daemon"}
    seeds = {
        "service": [
            call("org.varlink.service.GetInfo"),
            call("org.varlink.service.GetInterfaceDescription",
                 {"interface": "io.statsd"}),
            call("org.varlink.service.GetInterfaceDescription",
                 {"interface": "org.varlink.service"}),
        ],
        "hello-info": [call("Hello", {"client": "fuzz"}), call("Info"),
                       call("Info", None, oneway=True)],
        "templates": [call("TemplateAdd", TPL_APP),
                      call("TemplateAdd", TPL_KINDS),
                      call("TemplateList", {}),
                      call("TemplateList", {}, more=True)],
        "kstat-life": [
            call("TemplateAdd", TPL_APP),
            call("KstatCreate", dict(k, template=app, **{
                "class": "net", "type": "BLOB", "flags": ["WRITABLE"],
                "description": "requests served",
                "path": ["app", "server", "req"]})),
            call("Write", dict(k, values={"state": -7, "requests": 3})),
            call("Read", k),
            call("Snapshot", dict(k, reset=True)),
            call("Lookup", {"module": "app"}),
            call("Lookup", {"module": "app", "name": "req",
                            "class": "net"}, more=True),
            call("Chain", {}),
            call("Chain", {"dormant": True}, more=True),
            call("KstatDelete", k),
            call("Chain", {"dormant": True}),
            call("Read", dict(own, interval_ms=100, count=2), more=True),
        ],
        "kstat-kinds": [
            call("TemplateAdd", TPL_KINDS),
            call("TemplateAdd", TPL_APP),
            call("KstatCreate", dict(kk, template=kinds,
                                     flags=["WRITABLE", "PERSISTENT"])),
            call("DefinitionGet", kk),
            call("DefinitionSet", dict(kk, text="name=k type=array "
                                       "base_interval=10 scale=lin "
                                       "range_min=0 range_max=50 on=1\n")),
            call("Write", dict(kk, values={"j": "text", "l": 5})),
            call("TemplateAdd", TPL_KINDS2),
            call("KstatRelayout", dict(kk, template=kinds2)),
            call("Snapshot", kk),
        ],
        "create-many": [
            call("TemplateAdd", TPL_APP),
            call("KstatCreateMany", {
                "template": app, "flags": ["WRITABLE"], "class": "disk",
                "kstats": [{"module": "sd", "instance": i, "name": "io",
                            "description": "disk %d" % i,
                            "path": ["disk", "sd", str(i)]}
                           for i in range(4)]}),
            call("KstatCreateMany", {
                "template": app, "join": True, "type": "RAW", "ndata": 8,
                "content": "BYTES", "scale": 1,
                "kstats": [{"module": "sd", "instance": 0, "name": "io"}]}),
            call("Scrape", {"format": "kstat", "selector": "sd:*:io"}),
        ],
        "scrape": [call("Scrape", {"format": f}) for f in
                   ("kstat", "json", "flat", "linux", "prometheus")] + [
            call("Scrape", {"format": "json", "selector": "statsd:0:*",
                            "class": "misc", "tags": ["a=b"]}),
            call("Scrape", {"format": "flat", "selector":
                            "/^stat[sd]+$/:0:/da.*/"}),
            call("Scrape", {"format": "kstat", "interval_ms": 100,
                            "count": 2}, more=True),
        ],
        "rings-segments": [call("SegmentAttach", {}),
                           call("SegmentAttach", {"from": 1}),
                           call("RingAttach", {"capacity_log2": 12,
                                               "overflow_size": 65536})],
        "own-kstat": [call("Read", own), call("Snapshot", own),
                      call("DefinitionGet", own),
                      call("Write", dict(own, values={"clients": 1})),
                      call("KstatDelete", own)],
        "rates": [call("SampleRatesGet"),
                  call("SampleRatesSet", {"text": "APP=40, KINDS=10"})],
        "errors": [b"{", b"[]\0", b"\0",
                   call("NoSuchMethod"), call("com.example.Thing"),
                   call("Hello", {}, more=True),
                   call("Hello", {}, upgrade=True),
                   call("Read", {"module": "x", "instance": 0, "name": "y"},
                        more=True, oneway=True),
                   call("Hello", {"client": 1}),
                   call("Hello", {"nope": True}),
                   b'{"method":"io.statsd.Hello","method":"x"}\0',
                   b'{"method":"io.statsd.Info","parameters":null}\0',
                   b'{"method":"io.statsd.Info","parameters":[]}\0'],
    }
    # The administrator's methods, as uid 0.
    seeds["rates-root"] = [b"\xff"] + seeds["rates"] + [
        call("SampleRatesSet", {"text": ""})]
    os.makedirs(out, exist_ok=True)
    for name, msgs in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(b"".join(msgs))
    # Every method of the interfaces has a seed.
    idl = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                       "src", "daemon", "proto", "io.statsd.varlink")
    with open(idl, encoding="utf-8") as f:
        methods = re.findall(r"^method (\w+)\(", f.read(), re.M)
    allb = b"".join(b"".join(v) for v in seeds.values())
    missing = [m for m in methods if (S + m).encode() not in allb]
    if missing:
        sys.exit("no seed calls " + ", ".join(missing))


if __name__ == "__main__":
    main()
