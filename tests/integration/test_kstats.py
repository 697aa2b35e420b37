# SPDX-License-Identifier: BSD-2-Clause
"""test_kstats.py: templates, kstat create and delete, chain, lookup,
read, write, snapshot (with reset), scrape in its three formats,
definitions and sample rates — each method and each of its errors."""
import base64
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (TPL_APP, Daemon, check, expect_error,  # noqa: E402
                     finish, ok)

d = Daemon(config="max_templates = 8\nmax_kstats_per_uid = 6\n").start()
c = d.conn()
IP = "org.varlink.service.InvalidParameter"

# ----------------------------------------------------------- templates
t = ok(c.call("io.statsd.TemplateAdd", TPL_APP), "TemplateAdd")
spec = t["template"]["spec"]
check(t["created"] is True, "a new template is created")
check(spec.startswith('"APP":') and t["template"]["hash"] > 0,
      "the spec is \"APP\":<hash>: " + spec)
check(t["template"]["size"] > 32, "the template has a blob size")
t2 = ok(c.call("io.statsd.TemplateAdd", TPL_APP), "TemplateAdd again")
check(t2["created"] is False and t2["template"]["spec"] == spec,
      "the same definition again gives the same template")
expect_error(c.call("io.statsd.TemplateAdd", {"name": "APP", "vois": [
    {"id": 0, "name": "x", "dtype": "INT_U64", "stats": [{"kind": "SUM"}]}]}),
    "io.statsd.TemplateExists", "another definition, same name",
    template="APP")
bad_templates = [
    ({"name": "", "vois": TPL_APP["vois"]}, "name"),
    ({"name": "B c", "vois": TPL_APP["vois"]}, "name"),
    ({"name": "B", "vois": []}, "vois"),
    ({"name": "B", "vois": [{"id": 0, "name": "x", "dtype": "FLOAT",
                             "stats": [{"kind": "SUM"}]}]}, "vois[0].dtype"),
    ({"name": "B", "vois": [{"id": 0, "name": "x", "dtype": "INT_U64",
                             "stats": []}]}, "vois[0].stats"),
    ({"name": "B", "vois": [{"id": 0, "name": "x", "dtype": "INT_U64",
                             "stats": [{"kind": "AVG"}]}]},
     "vois[0].stats[0].kind"),
    ({"name": "B", "vois": [{"id": 0, "name": "x", "dtype": "INT_U64",
                             "stats": [{"kind": "SUM", "nctds": 3}]}]},
     "vois[0].stats[0].nctds"),
    ({"name": "B", "vois": [{"id": 0, "name": "x", "dtype": "INT_U64",
                             "stats": [{"kind": "SUM"}, {"kind": "SUM"}]}]},
     "vois[0]"),
    ({"name": "B", "vois": [{"id": 0, "name": "x", "dtype": "INT_U64",
                             "stats": [{"kind": "SUM"}]},
                            {"id": 0, "name": "y", "dtype": "INT_U64",
                             "stats": [{"kind": "SUM"}]}]}, "vois[1].id"),
    ({"name": "B", "vois": [{"id": 0, "name": "x", "dtype": "INT_U64",
                             "stats": [{"kind": "SUM"}]},
                            {"id": 1, "name": "x", "dtype": "INT_U64",
                             "stats": [{"kind": "SUM"}]}]}, "vois[1].name"),
    ({"name": "B", "vois": [{"id": 0, "name": "x", "dtype": "INT_U64",
                             "stats": [{"kind": "HIST", "scheme": "LIN",
                                        "lb": 0, "ub": 10 ** 9,
                                        "step": 1}]}]}, "vois[0].stats[0]"),
    ({"name": "B", "vois": [{"id": 0, "name": "x", "dtype": "INT_U64",
                             "stats": [{"kind": "HIST", "scheme": "ODD"}]}]},
     "vois[0].stats[0].scheme"),
    ({"name": "B", "vois": [{"id": 0, "name": "x", "dtype": "INT_U64",
                             "stats": [{"kind": "DEFN"}]}]},
     "vois[0].stats[0].kind"),
]
for tpl, param in bad_templates:
    expect_error(c.call("io.statsd.TemplateAdd", tpl),
                 "io.statsd.InvalidTemplate", "bad template at " + param,
                 parameter=param)
# Every kind of statistic builds.
KINDS = {"name": "KINDS", "vois": [
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
    {"id": 3, "name": "d", "dtype": "INT_U32", "stats": [
        {"kind": "HIST", "range": "DR", "scheme": "USR",
         "buckets": [0, 10, 10, 20]}]},
    {"id": 4, "name": "e", "dtype": "INT_S64", "stats": [
        {"kind": "LIST", "entries_max": 8}]},
    {"id": 5, "name": "f", "dtype": "INT_S64", "stats": [
        {"kind": "HISTORY", "entries_max": 4, "mode": "range",
         "period_us": 1000000}]},
    {"id": 6, "name": "g", "dtype": "INT_S64", "stats": [
        {"kind": "RAW", "entries_max": 4}]},
    {"id": 7, "name": "h", "dtype": "INT_U64", "stats": [{"kind": "IOQ"}]},
    {"id": 8, "name": "i", "dtype": "INT_U64", "stats": [{"kind": "TIMER"}]},
    {"id": 9, "name": "j", "dtype": "INT_U64", "stats": [
        {"kind": "STRING", "maxlen": 32}]},
    {"id": 10, "name": "k", "dtype": "INT_S64", "stats": [
        {"kind": "DEFN", "units": "bytes"}]},
    {"id": 11, "name": "l", "dtype": "INT_U64", "stats": [
        {"kind": "LAST"}], "relupdate": True},
]}
kinds = ok(c.call("io.statsd.TemplateAdd", KINDS), "a template of every kind")
lst = ok(c.call("io.statsd.TemplateList", {}), "TemplateList")
check(spec in lst["list"].split(",") and len(lst["templates"]) >= 3,
      "TemplateList has APP: " + lst["list"])

# -------------------------------------------------------------- kstats
k = ok(c.call("io.statsd.KstatCreate", {
    "module": "app", "instance": 0, "name": "req", "template": spec,
    "class": "net", "type": "BLOB", "flags": ["WRITABLE"],
    "description": "requests served",
    "path": ["app", "server", "req"]}), "KstatCreate")["kstat"]
check(k["flags"] == ["WRITABLE"] and k["class"] == "net" and
      k["path"] == ["app", "server", "req"] and
      k["description"] == "requests served" and k["owner"] == os.getuid(),
      "the created kstat: %s" % k)
check(k["handle"] > 0 and k["segment"] == "public", "handle and segment")
expect_error(c.call("io.statsd.KstatCreate", {
    "module": "app", "instance": 0, "name": "req", "template": spec}),
    "io.statsd.KstatExists", "create twice", kstat="app:0:req")
expect_error(c.call("io.statsd.KstatCreate", {
    "module": "app", "instance": 1, "name": "req", "template": '"NOPE":1'}),
    "io.statsd.NoSuchTemplate", "a missing template", template='"NOPE":1')
expect_error(c.call("io.statsd.KstatCreate", {
    "module": "app", "instance": 1, "name": "req", "template": spec,
    "type": "FANCY"}), "io.statsd.InvalidValue", "a bad type",
    parameter="type")
expect_error(c.call("io.statsd.KstatCreate", {
    "module": "app", "instance": 1, "name": "req", "template": spec,
    "flags": ["WRITABLE", "SHINY"]}), "io.statsd.InvalidValue",
    "a bad flag", parameter="flags[1]")
expect_error(c.call("io.statsd.KstatCreate", {
    "module": "a:b", "instance": 1, "name": "req", "template": spec}),
    "io.statsd.InvalidValue", "a ':' in the module", parameter="module")
expect_error(c.call("io.statsd.KstatCreate", {
    "module": "app", "instance": 1, "name": "req", "template": spec,
    "path": ["only-one"]}), "io.statsd.InvalidValue", "a short kstat2 path")
ok(c.call("io.statsd.KstatCreate", {"module": "app", "instance": 0,
                                    "name": "kinds",
                                    "template": kinds["template"]["spec"]}),
   "a kstat of every kind")
for i in range(4):
    ok(c.call("io.statsd.KstatCreate", {"module": "many", "instance": i,
                                        "name": "x", "template": spec}),
       "kstat %d under the per-uid limit" % i)
# The per-user limits hold unprivileged users only (test_abuse.py runs
# them as nobody); root is held to the totals.
for i in range(4):
    r = ok(c.call("io.statsd.KstatDelete", {"module": "many", "instance": i,
                                            "name": "x"}), "KstatDelete")
    check(r.get("dormant") is False, "a plain kstat is removed")
expect_error(c.call("io.statsd.KstatDelete", {"module": "many",
                                              "instance": 0, "name": "x"}),
             "io.statsd.NoSuchKstat", "delete twice", kstat="many:0:x")
OWN = {"module": "statsd", "instance": 0, "name": "daemon"}
expect_error(c.call("io.statsd.KstatDelete", OWN),
             "io.statsd.InvalidValue", "statsd's own kstat stays",
             parameter="name", reason="statsd's own kstat stays")
# Neither re-laid nor redefined, each refusal naming its parameter.
expect_error(c.call("io.statsd.KstatRelayout", dict(OWN, template=spec)),
             "io.statsd.InvalidValue", "statsd's own kstat keeps its layout",
             parameter="name", reason="statsd's own kstats keep their layout")
expect_error(c.call("io.statsd.DefinitionSet", dict(OWN, text="on=1\n")),
             "io.statsd.InvalidValue", "statsd's own kstat is not redefined",
             parameter="text", reason="statsd's own kstats are read-only")
# Nor may anyone, root included, make kstats in statsd's own modules.
for m in ("statsd", "unix"):
    expect_error(c.call("io.statsd.KstatCreate", {
        "module": m, "instance": 7, "name": "mine", "template": "APP"}),
        "io.statsd.InvalidValue", "root's kstat in module " + m,
        parameter="module")

# -------------------------------------------------------- chain, lookup
ch = ok(c.call("io.statsd.Chain", {}), "Chain")
names = sorted("%s:%d:%s" % (x["module"], x["instance"], x["name"])
               for x in ch["kstats"])
check(names == ["app:0:kinds", "app:0:req", "statsd:0:daemon",
                "unix:0:kstat_types"], "the chain: %s" % names)
check(ch["kcid"] > 0, "a KCID")
lk = ok(c.call("io.statsd.Lookup", {"module": "ap*", "name": "/^re/"}),
        "Lookup")
check([x["name"] for x in lk["kstats"]] == ["req"], "lookup by glob+regex")
lk = ok(c.call("io.statsd.Lookup", {"class": "net"}), "Lookup by class")
check(len(lk["kstats"]) == 1, "lookup by class")
lk = ok(c.call("io.statsd.Lookup", {"instance": 7}), "Lookup instance")
check(lk["kstats"] == [], "lookup of a missing instance")
expect_error(c.call("io.statsd.Lookup", {"name": "/(/"}),
             "io.statsd.InvalidValue", "a bad regex", parameter="name")

# -------------------------------------------------- read, write, snapshot
rd = ok(c.call("io.statsd.Read", {"module": "app", "instance": 0,
                                  "name": "req"}), "Read")
check(rd["data"].get("requests.sum") == 0 and "latency.max" in rd["data"],
      "Read's flat data: %s" % rd["data"])
check(rd["blob"].get("tplname") == "APP" and
      "latency" in rd["blob"].get("vois", {}), "Read's blob JSON")
expect_error(c.call("io.statsd.Read", {"module": "app", "instance": 3,
                                       "name": "req"}),
             "io.statsd.NoSuchKstat", "Read of a missing kstat",
             kstat="app:3:req")
w = ok(c.call("io.statsd.Write", {"module": "app", "instance": 0,
                                  "name": "req", "values": {"state": -7}}),
       "Write")
rd = ok(c.call("io.statsd.Read", {"module": "app", "instance": 0,
                                  "name": "req"}), "Read after Write")
check(rd["data"].get("state.last") == -7, "the written value reads back")
expect_error(c.call("io.statsd.Write", {"module": "app", "instance": 0,
                                        "name": "req",
                                        "values": {"nope": 1}}),
             "io.statsd.NotWritable", "Write of a missing VOI",
             statistic="nope")
expect_error(c.call("io.statsd.Write", {"module": "app", "instance": 0,
                                        "name": "req",
                                        "values": {"state": [1]}}),
             IP, "Write of a bad value type", parameter="values.state")
expect_error(c.call("io.statsd.Write", {"module": "app", "instance": 0,
                                        "name": "kinds",
                                        "values": {"a": 1}}),
             "io.statsd.NotWritable", "Write to a kstat not WRITABLE")
sn = ok(c.call("io.statsd.Snapshot", {"module": "app", "instance": 0,
                                      "name": "req", "reset": True}),
        "Snapshot with reset")
raw = base64.b64decode(sn["raw"])
check(len(raw) == k["size"], "the raw blob is the kstat's size")
check(sn["data"].get("state.last") == -7, "the snapshot has the data")
rd = ok(c.call("io.statsd.Read", {"module": "app", "instance": 0,
                                  "name": "req"}), "Read after reset")
check(rd["data"].get("state.last") == 0, "the reset cleared the source")
sn = ok(c.call("io.statsd.Snapshot", {"module": "app", "instance": 0,
                                      "name": "req"}), "Snapshot")

# ---------------------------------------------------------------- scrape
sc = ok(c.call("io.statsd.Scrape", {}), "Scrape json")
mods = [x["module"] for x in sc["kstats"]]
check(mods == ["app", "app", "statsd", "unix"], "scrape order: %s" % mods)
check(sc["text"].startswith("[{") and sc["text"].endswith("}]\n"),
      "kstat -j text")
sc = ok(c.call("io.statsd.Scrape", {"format": "json",
                                    "selector": "app::req:state*"}),
        "Scrape with a selector")
check(len(sc["kstats"]) == 1 and
      sorted(sc["kstats"][0]["data"]) == ["state.last"],
      "the selector picks statistics: %s" % sc["kstats"])
sc = ok(c.call("io.statsd.Scrape", {"format": "kstat",
                                    "selector": "statsd:0:daemon:uptime_ns"}),
        "Scrape kstat")
check(sc["text"].startswith("statsd:0:daemon:uptime_ns\t"),
      "kstat -p lines: %r" % sc["text"])
# flat: the data statsctl renders from, values as kstat's exact text, the
# times and class apart, counters marked from the kind table.
sc = ok(c.call("io.statsd.Scrape", {"format": "flat",
                                    "selector": "app::req:/^(req|state)/"}),
        "Scrape flat")
check("text" not in sc and len(sc["flat"]) == 1, "flat: one kstat, no text")
fk = sc["flat"][0]
check((fk["module"], fk["name"], fk["type"]) == ("app", "req", "BLOB") and
      isinstance(fk["crtime"], int) and isinstance(fk["snaptime"], int),
      "flat kstat header: %s" % fk)
fs = {s["name"]: s for s in fk["stats"]}
check(sorted(fs) == ["requests.count", "requests.sum", "state.last"],
      "flat: the selector picks statistics, no pseudo-statistics: %s"
      % sorted(fs))
check(fs["state.last"]["type"] == "int" and
      fs["state.last"]["value"] == 0 and
      fs["requests.count"]["type"] == "uint" and
      isinstance(fs["requests.count"]["value"], int),
      "flat values are typed numbers: %s" % fs)
check(fs["requests.sum"]["counter"] and fs["requests.count"]["counter"] and
      not fs["state.last"]["counter"],
      "an unsigned SUM and a COUNT are counters, a LAST a gauge: %s" % fs)
# An unsigned value above INT64_MAX is exact, as the string of its digits
# (an empty MIN of an INT_U64 holds UINT64_MAX), in the flat form, in
# Read's data and in a Scrape's items (statsctl's golden snapshot shows the
# blob's).
sc = ok(c.call("io.statsd.Scrape", {"format": "flat",
                                    "selector": "app::req:latency.min"}),
        "Scrape flat of a MIN")
fs = sc["flat"][0]["stats"]
check(fs == [{"name": "latency.min", "type": "uint",
              "text": "18446744073709551615", "counter": False}],
      "a u64 above INT64_MAX in the flat form: %s" % fs)
rd = ok(c.call("io.statsd.Read", {"module": "app", "instance": 0,
                                  "name": "req"}), "Read of a MIN")
check(rd["data"]["latency.min"] == "18446744073709551615" and
      isinstance(rd["data"]["requests.count"], int),
      "Read's data: exact numbers: %s" % rd["data"])
sc = ok(c.call("io.statsd.Scrape", {"format": "json",
                                    "selector": "app::req:latency.min"}),
        "Scrape json of a MIN")
check(sc["kstats"][0]["data"] == {"latency.min": "18446744073709551615"}
      and "18446744073709551615" in sc["text"],
      "Scrape json: the item exact, the kstat -j text as kstat's: %s" % sc)

sc = ok(c.call("io.statsd.Scrape", {"format": "flat",
                                    "selector": "app::req:nosuch"}),
        "Scrape flat, no statistic")
check(len(sc["flat"]) == 1 and sc["flat"][0]["stats"] == [],
      "flat keeps a kstat whose statistics are not picked (its times may "
      "be)")
sc = ok(c.call("io.statsd.Scrape", {"format": "json", "class": "net"}),
        "Scrape by class")
check(len(sc["kstats"]) == 1, "scrape by class")
expect_error(c.call("io.statsd.Scrape", {"format": "xml"}),
             "io.statsd.InvalidValue", "a bad format", parameter="format")
expect_error(c.call("io.statsd.Scrape", {"selector": "a:b:c:d:e"}),
             "io.statsd.InvalidValue", "a bad selector", parameter="selector")

# ----------------------------------------------------------- definitions
dg = ok(c.call("io.statsd.DefinitionGet", {"module": "app", "instance": 0,
                                           "name": "kinds"}), "DefinitionGet")
check(dg["text"].startswith("name=k on=0 type=value"),
      "the definition line: %r" % dg["text"])
dk = dg["definitions"]
check(len(dk) == 1 and dk[0]["name"] == "k" and dk[0]["on"] == 0 and
      dk[0]["type"] == "value" and isinstance(dk[0]["data_ns"], int) and
      dk[0]["units"] == "bytes" and dg["text"].count("\n") == 2,
      "the definition as data, one per line of the text: %s" % dk)
ds = ok(c.call("io.statsd.DefinitionSet", {
    "module": "app", "instance": 0, "name": "kinds",
    "text": "name=k type=array base_interval=10 scale=lin range_min=0 "
            "range_max=50 on=1\n"}), "DefinitionSet")
check(ds["relaid"] is True and "type=array" in ds["text"],
      "the definition changed: %r" % ds["text"])
sc = ok(c.call("io.statsd.Scrape", {"format": "linux"}), "Scrape linux")
check("# app:0:kinds\n" in sc["text"] and "k <=0 0\n" in sc["text"] and
      "k >50 0\n" in sc["text"], "Linux data lines: %r" % sc["text"])
lx = [x for x in sc["linux"] if (x["module"], x["name"]) == ("app", "kinds")]
lines = lx[0]["lines"] if len(lx) == 1 else []
check({"statistic": "k", "type": "array", "le": 0, "count": 0} in lines and
      {"statistic": "k", "type": "array", "gt": 50, "count": 0} in lines and
      len(lines) == sc["text"].count("\nk "),
      "Linux data lines as data, one per line of the text: %s" % lx)
expect_error(c.call("io.statsd.DefinitionSet", {
    "module": "app", "instance": 0, "name": "kinds",
    "text": "name=k type=list\n"}), "io.statsd.InvalidDefinition",
    "a type change without its attributes")
expect_error(c.call("io.statsd.DefinitionSet", {
    "module": "app", "instance": 0, "name": "kinds",
    "text": "name=k range_min=zz\n"}), "io.statsd.InvalidDefinition",
    "a bad value")
dg2 = ok(c.call("io.statsd.DefinitionGet", {"module": "app", "instance": 0,
                                            "name": "kinds"}),
         "DefinitionGet after errors")
check(dg2["text"] == ds["text"], "a refused definition changed nothing")
ok(c.call("io.statsd.Read", {"module": "app", "instance": 0,
                             "name": "kinds"}), "Read a re-laid kstat")

# ---------------------------------------------------------- sample rates
sr = ok(c.call("io.statsd.SampleRatesGet", {}), "SampleRatesGet")
check(sr["text"] == "" and sr["rates"] == [], "no rates at first")
sr = ok(c.call("io.statsd.SampleRatesSet", {"text": "APP=40, KINDS=10"}),
        "SampleRatesSet")
check(sr["rates"] == [{"template": spec, "pct": 40},
                      {"template": kinds["template"]["spec"], "pct": 10}],
      "rates: %s" % sr["rates"])
check(ok(c.call("io.statsd.SampleRatesGet", {}), "get")["text"] ==
      sr["text"], "rates read back")
expect_error(c.call("io.statsd.SampleRatesSet", {"text": "APP=90,KINDS=20"}),
             "io.statsd.InvalidValue", "rates over 100", parameter="text")
expect_error(c.call("io.statsd.SampleRatesSet", {"text": "NOPE=5"}),
             "io.statsd.InvalidValue", "rates of a missing template",
             parameter="text")

# ---------------------------------------------------------------- limits
# At max_templates, a user's templates that no kstat uses are freed,
# oldest first, to make room for its new ones; those in use stay.
for i in range(20):
    ok(c.call("io.statsd.TemplateAdd", {"name": "T%d" % i, "vois": [
        {"id": 0, "name": "x", "dtype": "INT_U64",
         "stats": [{"kind": "SUM"}]}]}), "template T%d past max_templates "
       "frees an unused one" % i)
names = [t["name"] for t in ok(c.call("io.statsd.TemplateList", {}),
                               "TemplateList")["templates"]]
check(len(names) == 8, "max_templates templates at most: %s" % names)
check("APP" in names and "T19" in names and "T0" not in names,
      "the templates in use and the newest stay: %s" % names)
c.close()
d.stop()
d.cleanup()

# ------------------------------------ KstatCreate's brief and definitions
# brief: the reply carries what a client's ring records and reads need
# (KstatMade), not the whole Kstat. definitions: Linux definition lines
# the new kstat takes before the reply, all of them or the kstat is not
# made (libstatsclient's statistic_start() in one round trip).
d = Daemon().start()
c = d.conn()
LX = {"name": "LX", "vois": [
    {"id": 0, "name": "reqs", "dtype": "INT_S64",
     "stats": [{"kind": "DEFN", "units": "calls"}]},
    {"id": 1, "name": "lat", "dtype": "INT_S64",
     "stats": [{"kind": "DEFN", "units": "us"}]}]}
lspec = ok(c.call("io.statsd.TemplateAdd", LX),
           "TemplateAdd LX")["template"]["spec"]
IF = {"module": "linux", "instance": 0, "template": lspec, "class": "linux"}


def lookup(name):
    return ok(c.call("io.statsd.Lookup", {"module": "linux", "instance": 0,
                                          "name": name}),
              "Lookup " + name)["kstats"]


def defs(name):
    return ok(c.call("io.statsd.DefinitionGet", {
        "module": "linux", "instance": 0, "name": name}),
        "DefinitionGet " + name).get("text", "")


b = ok(c.call("io.statsd.KstatCreate", dict(IF, name="b1", brief=True)),
       "KstatCreate brief")
check(set(b) == {"made", "revived"} and b["revived"] is False and
      set(b.get("made", {})) == {"handle", "segment", "slot", "gen"},
      "brief: made and revived only: %s" % b)
full = lookup("b1")
check(len(full) == 1 and all(full[0][f] == b["made"][f] for f in
                             ("handle", "segment", "slot", "gen")),
      "brief's made is the kstat's: %s %s" % (b, full))
p = ok(c.call("io.statsd.KstatCreate", dict(IF, name="b2", brief=False)),
       "KstatCreate brief false")
check("made" not in p and p.get("kstat", {}).get("name") == "b2" and
      p["kstat"].get("template") == lspec, "without brief, the Kstat: %s" % p)
expect_error(c.call("io.statsd.KstatCreate", dict(IF, name="b3",
                                                   brief="yes")),
             IP, "brief is a bool", parameter="brief")

ok(c.call("io.statsd.KstatCreate", dict(IF, name="d1", brief=True,
          definitions="name=lat type=range range_min=0 range_max=9\n"
                      "name=reqs on=1\n")), "KstatCreate with definitions")
t1 = defs("d1")
check("name=reqs on=1 type=value" in t1 and
      "name=lat on=0 type=range range_min=0 range_max=9" in t1,
      "the definitions came with the create: %r" % t1)
expect_error(c.call("io.statsd.KstatCreate", dict(
    IF, name="d2", definitions="name=reqs on=1\nname=lat type=list\n")),
    "io.statsd.InvalidDefinition", "a refused line refuses the create")
check(lookup("d2") == [], "a refused definition leaves no kstat behind")
expect_error(c.call("io.statsd.KstatCreate", dict(
    IF, name="d2", brief=True, definitions="name=nope on=1\n")),
    "io.statsd.InvalidDefinition", "a line of no statistic")
check(lookup("d2") == [], "nor does a line of no statistic")
expect_error(c.call("io.statsd.KstatCreate", dict(
    IF, name="d1", definitions="name=lat on=1\n")),
    "io.statsd.KstatExists", "definitions on a name taken",
    kstat="linux:0:d1")
check(defs("d1") == t1, "KstatExists: the kstat's definitions untouched")
ok(c.call("io.statsd.KstatCreate", dict(IF, name="d2", brief=True,
          definitions="name=lat on=1\n")), "the name made after all")
check("name=lat on=1" in defs("d2"), "its definitions: %r" % defs("d2"))
c.close()
d.stop()
d.cleanup()
finish()
