# SPDX-License-Identifier: BSD-2-Clause
"""test_protocol.py: the varlink surface — introspection, the agreement
of the IDL with the method and error tables, streams, limits, and a
protocol-abuse suite: garbage, a message with no NUL, truncated,
oversized, wrong types, unknown methods, "more" where nothing streams,
clients that die mid-call. After each, statsd must still answer."""
import json
import os
import re
import signal
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import (IDL, SRCDIR, STATSD, Daemon,  # noqa
                     check, expect_error, finish, ok, setup_kstat, wait_for)

MAXMSG = 65536
# The idle time-out is tested on a statsd of its own (at the end): here a
# short one would close any connection of the test that a loaded machine
# leaves without a call for that long.
d = Daemon(config="max_message_size = 64K\nmax_connections_per_uid = 12\n"
           ).start()
INVALID_PARAM = "org.varlink.service.InvalidParameter"


def alive(what):
    # Closes the test just made may still be on their way to statsd: a
    # refusal by the per-uid limit is retried until the deadline.
    check(wait_for(d.alive, "statsd to answer after " + what),
          "statsd still answers after " + what)


# ------------------------------------------------------- introspection
hello = ok(d.call("io.statsd.Hello", {"client": "test"}), "Hello")
check(hello.get("peer", {}).get("uid") == os.getuid(), "Hello peer uid")
check(hello.get("peer", {}).get("pid") == os.getpid(), "Hello peer pid")
check(hello.get("privileged") is True, "root is privileged")
check(hello.get("rights") == ["read", "owner", "admin"], "root's rights")
info = ok(d.call("io.statsd.Info", {}), "Info")
check(info.get("runtime_dir") == d.run, "Info runtime_dir")
check(info.get("config", {}).get("max_message_size") == "64K",
      "Info shows the config")
gi = ok(d.call("org.varlink.service.GetInfo", {}), "GetInfo")
check("io.statsd" in gi.get("interfaces", []), "GetInfo lists io.statsd")
desc = ok(d.call("org.varlink.service.GetInterfaceDescription",
                 {"interface": "io.statsd"}), "GetInterfaceDescription")
check(desc.get("description") == IDL["text"],
      "the served description is io.statsd.varlink byte for byte")
desc = ok(d.call("org.varlink.service.GetInterfaceDescription",
                 {"interface": "org.varlink.service"}), "service desc")
check("interface org.varlink.service" in desc.get("description", ""),
      "org.varlink.service is described")
expect_error(d.call("org.varlink.service.GetInterfaceDescription",
                    {"interface": "com.example.nope"}),
             "org.varlink.service.InterfaceNotFound", "unknown interface",
             interface="com.example.nope")

# ------------------------------------------ IDL <-> method/error tables
tables = json.loads(harness.run([STATSD, "--dump-methods"], check=True,
                                   capture_output=True, text=True).stdout)
table = {m["name"].rsplit(".", 1)[1]: m for m in tables["methods"]
         if m["name"].startswith("io.statsd.")}
check(sorted(table) == sorted(IDL["methods"]),
      "methods: table %s vs IDL %s" % (sorted(table), sorted(IDL["methods"])))
for name, (ins, _outs) in IDL["methods"].items():
    m = table.get(name)
    if m is None:
        continue
    got = [(p["name"], p["type"]) for p in m["params"]]
    check(sorted(got) == sorted(ins),
          "%s parameters: table %s vs IDL %s" % (name, got, ins))
    check(m["right"] in ("read", "owner", "admin"), name + " has a right")
for tname, fields in tables["types"].items():
    got = [(f["name"], f["type"]) for f in fields]
    check(sorted(got) == sorted(IDL["types"].get(tname, [])),
          "type %s: table %s vs IDL %s" % (tname, got,
                                           IDL["types"].get(tname)))
errs = {e["name"].rsplit(".", 1)[1]: e["params"] for e in tables["errors"]
        if e["name"].startswith("io.statsd.")}
check(sorted(errs) == sorted(IDL["errors"]),
      "errors: table %s vs IDL %s" % (sorted(errs), sorted(IDL["errors"])))
for name, params in errs.items():
    check(sorted(params) == sorted(f for f, _ in IDL["errors"].get(name, [])),
          "error %s parameters" % name)
with open(os.path.join(SRCDIR, "man", "statsd.8")) as f:
    man_rights = {}
    for line in f:
        m = re.match(r"\.It (.+) Ta (\w+)", line)
        if m and not m.group(1).startswith("Sy "):
            for name in m.group(1).split(", "):
                man_rights[name] = m.group(2)
check(man_rights == {n: m["right"] for n, m in table.items()},
      "statsd(8)'s rights table is the method table's: %s" % man_rights)
# docs/protocol.md's table of StatSpec kinds is the kind table's.
with open(os.path.join(SRCDIR, "docs", "protocol.md")) as f:
    doc_kinds = {}
    for line in f:
        m = re.match(r"\| (`[A-Z0-9]+`(?:(?:, | / )`[A-Z0-9]+`)*) \| (.*) \|$",
                     line)
        if m:
            for k in re.findall(r"`([A-Z0-9]+)`", m.group(1)):
                doc_kinds[k] = set(re.findall(r"`([a-z_]+)`", m.group(2)))
kinds = {k["name"]: set(k["params"]) for k in tables["kinds"]}
check(sorted(doc_kinds) == sorted(kinds),
      "docs/protocol.md lists the kinds of the kind table: %s vs %s"
      % (sorted(doc_kinds), sorted(kinds)))
for k, ps in kinds.items():
    check(doc_kinds.get(k) == ps,
          "docs/protocol.md: %s takes %s, the kind table says %s"
          % (k, sorted(doc_kinds.get(k, set())), sorted(ps)))
streams = sorted(n for n, m in table.items() if m["streams"])
check(streams == ["Chain", "Lookup", "Read", "Scrape", "TemplateList"],
      "Chain, Lookup, Read, Scrape and TemplateList stream: %s" % streams)
pages = sorted(n for n, m in table.items() if m["pages"])
check(pages == ["Chain", "Lookup", "Scrape", "TemplateList"],
      "Chain, Lookup, Scrape and TemplateList answer in pages: %s" % pages)

# ------------------------------------------------------------- abuse
c = d.conn()
c.send_raw(b"\x01\x02garbage\xff\0")
expect_error(c.recv(), "io.statsd.InvalidMessage", "garbage")
ok(c.call("io.statsd.Hello", {}), "same connection after garbage")
c.send_raw(b'{"method":"io.statsd.Hel\0')
expect_error(c.recv(), "io.statsd.InvalidMessage", "truncated JSON")
# A null "parameters" is none, as the reference Go library sends it.
c.send_raw(b'{"method":"org.varlink.service.GetInfo","parameters":null}\0')
check("io.statsd" in ok(c.recv(), "GetInfo with null parameters").get(
    "interfaces", []), "GetInfo answers a call whose parameters are null")
c.send_raw(b'{"method":"io.statsd.Info","parameters":null}\0')
ok(c.recv(), "Info with null parameters")
c.send_raw(b'{"method":"io.statsd.Read","parameters":null}\0')
expect_error(c.recv(), INVALID_PARAM, "null parameters of a method that "
             "needs some", parameter="module")
c.send_raw(b'{"method":"io.statsd.Info","parameters":[]}\0')
expect_error(c.recv(), "io.statsd.InvalidMessage", "parameters an array")
c.send_raw(b'[1,2,3]\0')
expect_error(c.recv(), "io.statsd.InvalidMessage", "a JSON array")
c.send_raw(b'"io.statsd.Hello"\0')
expect_error(c.recv(), "io.statsd.InvalidMessage", "a JSON string")
c.send_raw(b'{"method":"io.statsd.Hello"} trailing\0')
expect_error(c.recv(), "io.statsd.InvalidMessage", "trailing garbage")
c.send_raw(b'{"method":"io.statsd.Hello","method":"io.statsd.Info"}\0')
expect_error(c.recv(), "io.statsd.InvalidMessage", "duplicate keys")
c.send_raw(b'{"method":"io.statsd.Hello","parameters":{"client":"\xc3\x28"}}\0')
expect_error(c.recv(), "io.statsd.InvalidMessage", "invalid UTF-8")
c.send_raw(b'{"method":"io.statsd.Hel\0lo"}\0')
expect_error(c.recv(), "io.statsd.InvalidMessage", "NUL inside a string (1)")
expect_error(c.recv(), "io.statsd.InvalidMessage", "NUL inside a string (2)")
c.send_raw(b"[" * 5000 + b"]" * 5000 + b"\0")
r = c.recv()
check(r is not None and "error" in r, "deep nesting refused: %s"
      % json.dumps(r)[:200])
c.send_raw(b"\0")
expect_error(c.recv(), "io.statsd.InvalidMessage", "an empty message")
expect_error(c.call("io.statsd.Hello", None, extra=1), INVALID_PARAM,
             "unknown envelope field", parameter="extra")
c.send_raw(b'{"method":5}\0')
expect_error(c.recv(), "io.statsd.InvalidMessage", "method not a string")
c.send_raw(b'{"parameters":{}}\0')
expect_error(c.recv(), "io.statsd.InvalidMessage", "no method")
c.send_raw(b'{"method":"io.statsd.Hello","parameters":[]}\0')
expect_error(c.recv(), "io.statsd.InvalidMessage", "parameters an array")
c.send_raw(b'{"method":"io.statsd.Hello","more":"yes"}\0')
expect_error(c.recv(), INVALID_PARAM, "more not a bool", parameter="more")
expect_error(c.call("io.statsd.Read", {"module": 1, "instance": 0,
                                       "name": "x"}),
             INVALID_PARAM, "wrong type", parameter="module")
expect_error(c.call("io.statsd.Read", {"module": "a", "name": "x"}),
             INVALID_PARAM, "missing parameter", parameter="instance")
expect_error(c.call("io.statsd.Read", {"module": "a", "instance": 0,
                                       "name": "x", "bogus": True}),
             INVALID_PARAM, "unknown parameter", parameter="bogus")
expect_error(c.call("io.statsd.Read", {"module": "a", "instance": 0,
                                       "name": "x", "": 1}),
             INVALID_PARAM, "an empty name", parameter="")
expect_error(c.call("io.statsd.Read", {"name": "x", "instance": 0,
                                       "module": None}),
             INVALID_PARAM, "null for a needed one", parameter="module")
expect_error(c.call("io.statsd.Read", {"module": "a", "instance": -5,
                                       "name": "x"}),
             INVALID_PARAM, "out of range", parameter="instance")
expect_error(c.call("io.statsd.Read", {"module": "a" * 40, "instance": 0,
                                       "name": "x"}),
             INVALID_PARAM, "too long", parameter="module")
expect_error(c.call("io.statsd.Read", {"module": "a", "instance": 1.5,
                                       "name": "x"}),
             INVALID_PARAM, "a float for an int", parameter="instance")
expect_error(c.call("io.statsd.Read", {"module": "a", "instance":
                                       2 ** 40, "name": "x"}),
             INVALID_PARAM, "int past its bound", parameter="instance")
expect_error(c.call("io.statsd.TemplateAdd", {"name": "T", "vois": [
    {"id": 0, "name": "v", "dtype": "INT_U64",
     "stats": [{"kind": "SUM", "lb": "x"}]}]}),
    INVALID_PARAM, "nested wrong type", parameter="vois[0].stats[0].lb")
expect_error(c.call("io.statsd.NoSuchMethod", {}),
             "org.varlink.service.MethodNotFound", "unknown method",
             method="io.statsd.NoSuchMethod")
expect_error(c.call("com.example.Thing", {}),
             "org.varlink.service.InterfaceNotFound", "unknown interface",
             interface="com.example")
expect_error(c.call("NoDots", {}),
             "org.varlink.service.InterfaceNotFound", "no interface")
expect_error(c.call("io.statsd.Hello", {}, more=True), INVALID_PARAM,
             "more on a method that does not stream", parameter="more")
expect_error(c.call("io.statsd.Read", {"module": "statsd", "instance": 0,
                                       "name": "daemon"},
                    more=True, oneway=True),
             INVALID_PARAM, "more with oneway", parameter="oneway")
expect_error(c.call("io.statsd.Hello", {}, upgrade=True), INVALID_PARAM,
             "upgrade", parameter="upgrade")
c.send("io.statsd.Hello", {}, oneway=True)
r = c.call("io.statsd.Info", {})
check("uptime_ns" in r.get("parameters", {}),
      "oneway gets no reply: the next reply is Info's")
c.send_raw(b'{"method":"io.statsd.Hello"}\0{"method":"io.statsd.Info"}\0'
           b'{"method":"io.statsd.Hello"}\0')
r1, r2, r3 = c.recv(), c.recv(), c.recv()
check("product" in r1.get("parameters", {}) and
      "uptime_ns" in r2.get("parameters", {}) and
      "product" in r3.get("parameters", {}), "pipelined calls answered in order")
r, w = socket.socketpair()
c.send("io.statsd.Hello", {}, fds=[r.fileno(), w.fileno()])
ok(c.recv(), "a call carrying descriptors it does not take")
r.close()
w.close()
c.close()
alive("the abuse on one connection")

# A message with no NUL, then the client goes away.
c = d.conn()
c.send_raw(b'{"method":"io.statsd.Hello"')
c.close()
alive("a message with no NUL")

# Oversized: refused, connection closed.
c = d.conn()
try:
    c.send_raw(b"x" * (MAXMSG + 100))
except OSError:
    pass
expect_error(c.recv(), "io.statsd.MessageTooLarge", "oversized message",
             limit=MAXMSG)
check(c.recv() is None, "connection closed after an oversized message")
c.close()
alive("an oversized message")

# Clients that die mid-call.
for script in (
        "import socket,os,signal\ns=socket.socket(socket.AF_UNIX)\n"
        "s.connect(%r)\ns.send(b'{\"method\":\"io.statsd.Scr')\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n",
        "import socket,os,signal\ns=socket.socket(socket.AF_UNIX)\n"
        "s.connect(%r)\ns.send(b'{\"method\":\"io.statsd.Scrape\","
        "\"parameters\":{}}\\0')\nos.kill(os.getpid(), signal.SIGKILL)\n",
        "import socket,os,signal\ns=socket.socket(socket.AF_UNIX)\n"
        "s.connect(%r)\ns.send(b'{\"method\":\"io.statsd.Read\",\"more\":"
        "true,\"parameters\":{\"module\":\"statsd\",\"instance\":0,"
        "\"name\":\"daemon\",\"interval_ms\":100}}\\0')\n"
        "s.recv(10)\nos.kill(os.getpid(), signal.SIGKILL)\n"):
    p = harness.run([sys.executable, "-c", script % d.sock])
    check(p.returncode == -signal.SIGKILL, "the client died")
    alive("a client that died mid-call")

# ----------------------------------------------------------- streams
setup_kstat(d)
c = d.conn()
c.send("io.statsd.Read", {"module": "app", "instance": 0, "name": "req",
                          "interval_ms": 100, "count": 3}, more=True)
replies = [c.recv() for _ in range(3)]
check([r.get("continues") for r in replies] == [True, True, None],
      "a stream of 3: continues, continues, last: %s"
      % [r.get("continues") for r in replies])
check(all("data" in r.get("parameters", {}) for r in replies),
      "every streamed reply carries data")
ok(c.call("io.statsd.Hello", {}), "the connection serves calls after a stream")
c.send("io.statsd.Scrape", {"format": "kstat", "interval_ms": 100},
       more=True)
check(c.recv().get("continues") is True, "an endless scrape stream")
check(c.recv().get("continues") is True, "... keeps going")
c.close()
alive("a client that left a stream")
expect_error(d.call("io.statsd.Scrape", {"interval_ms": 1}, more=True),
             "io.statsd.InvalidValue", "interval below the minimum",
             parameter="interval_ms")
expect_error(d.call("io.statsd.Read", {"module": "no", "instance": 0,
                                       "name": "pe"}, more=True),
             "io.statsd.NoSuchKstat", "a stream of a missing kstat")

# ------------------------------------------------------------ limits
# max_connections_per_uid holds unprivileged users (test_abuse.py runs
# it as nobody); root is held only to max_connections.
conns = [d.conn() for _ in range(14)]
for cc in conns:
    ok(cc.call("io.statsd.Hello", {}), "root past max_connections_per_uid")
for cc in conns:
    cc.close()
alive("the connection limit")

d.stop()
d.cleanup()

# The idle time-out. The clock starts before the call: statsd arms the
# time-out when it reads the call and again when it writes the reply, both
# after t0, so a test slowed down after the reply cannot shorten what it
# measures. (The bound keeps room for libevent's cached loop time.)
d = Daemon(config="idle_timeout_ms = 1500\n").start()
idle = d.conn()
t0 = time.monotonic()
ok(idle.call("io.statsd.Hello", {}), "before idling")
check(idle.recv() is None, "an idle connection is closed")
check(time.monotonic() - t0 >= 1.0, "not before the idle time-out")
idle.close()
alive("the idle time-out")
d.stop()
d.cleanup()
finish()
