# SPDX-License-Identifier: BSD-2-Clause
"""test_client.py: libstatsclient end to end. A real statsd on a temporary
directory; client_it (a C application of the library) in its modes; the
daemon's view of what it did read over the control socket. Covers the
connection and rings (8 threads x 1M updates, exact totals after a flush),
stats_blob_publish, two processes feeding one kstat, fork, and a client
that survives a restart of statsd."""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
import harness  # noqa: E402
from harness import (DEADLINE, Daemon, check, finish, ok,  # noqa: E402
                     read_data, wait_for)
from oldstatsd import OldStatsd  # noqa: E402

CLIENT_IT = os.environ.get("CLIENT_IT", "client_it")
EXAMPLES = os.environ.get("EXAMPLES_DIR", "examples")


def run(d, mode, *args, timeout=DEADLINE * 10, env=None):
    """Run one mode to its end; its own checks must pass. Returns its
    key=value results."""
    p = harness.run([CLIENT_IT, mode, d.sock] + [str(a) for a in args],
                       stdin=subprocess.DEVNULL, capture_output=True,
                       text=True, timeout=timeout,
                       env=dict(os.environ, **(env or {})))
    check(p.returncode == 0, "client_it %s exited %d:\n%s%s" % (
        mode, p.returncode, p.stdout[-3000:], p.stderr[-3000:]))
    check("Sanitizer" not in p.stderr and "runtime error" not in p.stderr,
          "client_it %s: sanitizer report:\n%s" % (mode, p.stderr[-3000:]))
    return results(p.stdout)


def results(text):
    out = {"_out": text}
    for m in re.finditer(r"(\w+)=(\S+)", text):
        out[m.group(1)] = m.group(2)
    return out


def data_of(d, name):
    return read_data(d, module="it", instance=0, name=name)


d = Daemon().start()

# 8 threads x 1M updates; the program checks applied + dropped = pushed
# from its own view; statsd must agree.
r = run(d, "threads", 8, 1000000)
n = None
if "applied" in r:
    n = data_of(d, "threads").get("n.sum")
    check(n == int(r["applied"]), "statsd's n.sum %s == applied %s" % (
        n, r["applied"]))
    check(int(r["applied"]) + int(r["dropped"]) == 8000000,
          "applied + dropped == 8M")
    print("threads: %s applied, %s dropped in %ss" % (
        r["applied"], r["dropped"], r["seconds"]))

# The same with rings that hold a thread's million: nothing is dropped,
# statsd applies all 8M.
r = run(d, "threads", 8, 1000000, env={"CLIENT_IT_RING_LOG2": "20"})
if "applied" in r:
    check(r["dropped"] == "0", "no drops with 2^20 rings (%s): %s" % (
        r["dropped"], r.get("_out")))
    check(r["applied"] == "8000000", "all 8M applied (%s)" % r["applied"])
    n2 = data_of(d, "threads").get("n.sum")
    check(n2 == n + 8000000, "statsd's n.sum grew by exactly 8M (%s, %s)"
          % (n, n2))
    print("threads, 2^20 rings: %s applied, %s dropped in %ss" % (
        r["applied"], r["dropped"], r["seconds"]))

# stats(3) over the daemon.
r = run(d, "publish")
check(r.get("spec", "").startswith('"it_tpl":'), "spec printed")

# The kstat providers of every type, read back by the libkstat consumer
# through the segments; then over the socket only.
r = run(d, "kstat")
run(d, "kread")
run(d, "kread", env={"STATSD_KSTAT_SOCKET": "1"})
nd = read_data(d, module="it", instance=0, name="named")
check(nd.get("reqs") == 1010 and nd.get("level") == -7,
      "statsd's view of the NAMED kstat: %s" % nd)
io = read_data(d, module="it", instance=0, name="disk")
check(io.get("nread") == 4196 and io.get("writes") == 1,
      "statsd's view of the IO kstat: %s" % io)

# kstat2 histograms.
run(d, "kstat2")
rd = ok(d.call("io.statsd.Read", {"module": "it_drv", "instance": 1,
                                  "name": "data_in"}), "Read data_in")
print("kstat2:", json.dumps(rd.get("blob"))[:600])
check(rd.get("kstat", {}).get("path") == ["misc", "it_drv", "1", "data_in"],
      "kstat2 path kept")
check(rd.get("kstat", {}).get("description") == "data read by it_drv",
      "kstat2 description kept")
check("PERSISTENT" in rd.get("kstat", {}).get("flags", []), "PERSISTENT")

# The Linux exploiter API, seen as Linux data lines.
run(d, "statistic")
sc = ok(d.call("io.statsd.Scrape", {"format": "linux",
                                    "selector": "linux:0:it-linux"}),
        "Scrape linux")
text = sc.get("text", "")
print(text)
check("bytes 10240" in text, "value/products: 10 x 512 x 2 = 10240")
check(re.search(r"^latency 10 0 450\.000 900$", text, re.M) is not None,
      "range: 10 0 450.000 900")
check("sizes <=0 1" in text and "sizes >1024 1" not in text,
      "array lines")
check(re.search(r"^codes 0xc8 4$", text, re.M) is not None, "list lines")
df = ok(d.call("io.statsd.DefinitionGet", {"module": "linux", "instance": 0,
                                           "name": "it-linux"}),
        "DefinitionGet").get("text", "")
check("name=latency on=1 type=range range_min=0 range_max=1000" in df and
      "hits_out_of_range=1" in df, "definition lines:\n" + df)
check("name=events on=0 type=raw" in df, "raw stopped")

# Two processes feeding one kstat of one template, a third joining it
# again and again meanwhile, and a fourth reading it with kstat_read(): a
# join reads where the kstat is, a read its data, while statsd keeps it
# busy (regression: a join, and a consumer's read, failed with EAGAIN
# under load).
procs = [harness.spawn([CLIENT_IT, "feed", d.sock, "200000"],
                          stdout=subprocess.PIPE, text=True)
         for _ in range(2)]
joiner = harness.spawn([CLIENT_IT, "joins", d.sock, "50"],
                       stdout=subprocess.PIPE, text=True)
reader = harness.spawn([CLIENT_IT, "kreads", d.sock, "200"],
                       stdout=subprocess.PIPE, text=True)
out, _ = joiner.communicate(timeout=DEADLINE * 4)
check(joiner.returncode == 0 and "joined=50" in out,
      "50 joins during a flood: %s" % out.strip())
out, _ = reader.communicate(timeout=DEADLINE * 4)
check(reader.returncode == 0 and "kreads=200" in out,
      "200 kstat_read()s during a flood: %s" % out.strip())
applied = 0
for p in procs:
    out, _ = p.communicate(timeout=DEADLINE * 4)
    check(p.returncode == 0, "feed exited %d: %s" % (p.returncode, out))
    rr = results(out)
    applied += int(rr.get("pushed", 0)) - int(rr.get("dropped", 0))
n = data_of(d, "shared").get("n.sum")
check(n == applied, "two feeders: n.sum %s == %d" % (n, applied))

# A publish that meets a kstat of another template under its name fails,
# and leaves that kstat alone (regression: the failed batch deleted the
# kstat it could not join, which a privileged client may).
ok(d.call("io.statsd.TemplateAdd", harness.TPL_APP), "TemplateAdd APP")
spec = ok(d.call("io.statsd.TemplateList", {}), "TemplateList")[
    "templates"]
spec = [t["spec"] for t in spec if t["name"] == "APP"][0]
ok(d.call("io.statsd.KstatCreate", {"module": "it", "instance": 0,
                                    "name": "taken", "template": spec}),
   "KstatCreate it:0:taken")
r = run(d, "nojoin", "taken", 17)
check("another template" in r.get("_out", ""), "the error says why: %s"
      % r.get("_out", "").strip())
ok(d.call("io.statsd.Read", {"module": "it", "instance": 0,
                             "name": "taken"}),
   "the kstat that was there is still there")

# fork: the child gets rings of its own. (ThreadSanitizer refuses a thread
# started in the child of a threaded parent unless told otherwise; the
# library's watcher is one.)
tsan = os.environ.get("TSAN_OPTIONS", "")
r = run(d, "fork", env={"TSAN_OPTIONS": (tsan + ":" if tsan else "") +
                        "die_after_fork=0"})
n = data_of(d, "forked").get("n.sum")
check(n is not None and int(r.get("sum", -1)) == n,
      "fork: statsd's sum %s == what the parent read %s" % (n, r.get("sum")))

# A client that survives a restart of statsd (PERSISTENT kstat): stopped
# cleanly, then killed. Its ring is handed back; what it pushed while
# statsd was away is applied.
base = 0
for how in ("SIGTERM", "SIGKILL"):
    p = harness.spawn([CLIENT_IT, "restart", d.sock],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True, bufsize=1)
    line = p.stdout.readline().strip()
    check(line == "ready", "restart: client ready (%r)" % line)
    if how == "SIGTERM":
        d.stop()
    else:
        d.kill9()
    d.start()
    p.stdin.write("go\n")
    p.stdin.flush()
    out, _ = p.communicate(timeout=DEADLINE * 4)
    check(p.returncode == 0, "restart (%s) exited %d:\n%s" % (
        how, p.returncode, out))
    rr = results(out)
    if "pushed" in rr:
        want = base + int(rr["pushed"]) - int(rr["dropped"])
        got = wait_for(lambda: data_of(d, "survivor").get("n.sum") == want,
                       "survivor n.sum == %d" % want)
        check(got, "restart (%s): applied + dropped == pushed (%s; %s)" % (
            how, out.strip(), data_of(d, "survivor").get("n.sum")))
        base = want

# The consumer's chain updates follow the change logs and agree with a
# chain read whole, also past what a log holds.
r = run(d, "chain", 5000)
check(r.get("chain") == "ok", "chain updates from the change logs")

# Many blobs in one process, shown in place through one mapping per
# segment; then again across a restart of a statsd of its own, where the
# blobs are made again as they were first laid out. In the plain and ASan
# builds both counts are past the 16,384 blobs a process could once
# publish. ThreadSanitizer's shadow memory multiplies what every byte
# costs (40,000 ran a CI runner out of memory): there a small count runs
# the same code for races, and the other builds prove the numbers.
TSAN = "thread" in os.environ.get("STATSD_SANITIZED", "")
MANY, MANY_RESTART = (2000, 1000) if TSAN else (40000, 20000)
big = Daemon(config="max_kstats = 65536\narena_size = 256M\n").start()
r = run(big, "many", MANY)
check(r.get("many") == str(MANY),
      "%d blobs published and read in place" % MANY)
big.stop()
big = Daemon(config="max_kstats = 65536\narena_size = 256M\n").start()
p = harness.spawn([CLIENT_IT, "many", big.sock, str(MANY_RESTART),
                   "restart"],
                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                  text=True, bufsize=1)
line = p.stdout.readline().strip()
check(line == "ready", "many restart: client ready (%r)" % line)
big.stop()
big.start()
p.stdin.write("go\n")
p.stdin.flush()
out, _ = p.communicate(timeout=DEADLINE * 4)
check(p.returncode == 0 and "many=%d" % MANY_RESTART in out,
      "many restart exited %d:\n%s" % (p.returncode, out[-3000:]))
big.stop()

# The examples: each runs to its end against statsd.
env = dict(os.environ, STATSD_SOCKET=d.sock)
for ex, args in (("stats_server", [d.sock, "20000"]),
                 ("kstat_server", ["300"]), ("linux_server", ["5000"]),
                 ("kstat_reader", ["example"])):
    p = harness.run([os.path.join(EXAMPLES, ex)] + args, env=env,
                       capture_output=True, text=True, timeout=DEADLINE * 4)
    check(p.returncode == 0 and "Sanitizer" not in p.stderr,
          "example %s exited %d: %s%s" % (ex, p.returncode, p.stdout[-2000:],
                                          p.stderr[-2000:]))
    if ex == "kstat_reader":
        check("example:0:disk0:reads\t200" in p.stdout and
              "example:0:counters:requests\t300" in p.stdout,
              "kstat_reader shows kstat_server's kstats:\n" + p.stdout)
    if ex == "stats_server":
        check("20000 requests" in p.stdout, "stats_server: " + p.stdout)

d.stop()
d.cleanup()

# A connection registers a template once: later kstats of it name it by
# statsd's spec (statsd logs each call at debug level). 20 blobs of one
# template, 5 NAMED kstats of one shape, 3 Linux interfaces of one
# statistic: three TemplateAdd calls.
d = Daemon(config="log_level = debug\n").start()
run(d, "tplonce")
check(len(read_data(d, "it", 0, "once19")) > 0, "the last blob is there")
with open(d.logpath, errors="replace") as f:
    log = f.read()
adds = log.count("io.statsd.TemplateAdd")
check(adds == 3, "three templates, one TemplateAdd each (%d)" % adds)
# One call a kstat: a blob's (KstatCreateMany), a NAMED kstat's and an
# interface's (KstatCreate), the last with its statistic's definition and
# on state (statistic_start()), no DefinitionSet after.
creates = log.count("io.statsd.KstatCreate\n")
manys = log.count("io.statsd.KstatCreateMany\n")
check(creates == 8 and manys == 20, "28 kstats, one call each (%d "
      "KstatCreate, %d KstatCreateMany)" % (creates, manys))
check("io.statsd.DefinitionSet" not in log,
      "no DefinitionSet: the definitions came with the create")
d.stop()
d.cleanup()

# An older statsd, which knows neither brief nor definitions in
# KstatCreate, refuses the first create of a connection that sends them;
# the client makes its calls without them from then on, and every kstat
# is made as before: an interface's definitions by DefinitionSet.
d = Daemon(config="log_level = debug\n").start()
old = OldStatsd(os.path.join(d.tmp, "old.sock"), d.sock)
for mode in ("tplonce", "statistic"):
    p = harness.run([CLIENT_IT, mode, old.path], stdin=subprocess.DEVNULL,
                    capture_output=True, text=True, timeout=DEADLINE * 10)
    check(p.returncode == 0, "client_it %s through an older statsd:\n%s%s"
          % (mode, p.stdout[-3000:], p.stderr[-3000:]))
old.close()
check(old.refused == 2, "one refused create a connection (%d)" % old.refused)
with open(d.logpath, errors="replace") as f:
    log = f.read()
check(log.count("io.statsd.KstatCreate\n") == 9,
      "9 kstats made, each by a plain KstatCreate (%d)"
      % log.count("io.statsd.KstatCreate\n"))
check(log.count("io.statsd.DefinitionSet\n") >= 4,
      "the interfaces' definitions by DefinitionSet (%d)"
      % log.count("io.statsd.DefinitionSet\n"))
df = ok(d.call("io.statsd.DefinitionGet", {"module": "linux", "instance": 0,
                                           "name": "it-linux"}),
        "DefinitionGet through an older statsd").get("text", "")
check("name=latency on=1 type=range range_min=0 range_max=1000" in df,
      "the definitions reached statsd: %r" % df)
d.stop()
d.cleanup()

# statsd lets a template that no kstat uses go when its owner needs the
# room: the client, which registered it on this connection, registers it
# again for its next kstat (as nobody: the per-user limit holds for
# unprivileged peers).
LIBSTATSCLIENT = os.environ.get("LIBSTATSCLIENT", "")
if LIBSTATSCLIENT:
    import shutil
    stage_dir = os.path.dirname(harness.stage(CLIENT_IT))
    shutil.copy(LIBSTATSCLIENT, os.path.join(stage_dir,
                                             "libstatsclient.so.0"))
    os.chmod(os.path.join(stage_dir, "libstatsclient.so.0"), 0o755)
    d = Daemon(config="max_templates_per_uid = 2\n").start()
    p = harness.run(harness.as_user([CLIENT_IT, "tplevict", d.sock]),
                    stdin=subprocess.DEVNULL, capture_output=True,
                    text=True, timeout=DEADLINE,
                    env=dict(os.environ, LD_LIBRARY_PATH=stage_dir))
    check(p.returncode == 0, "client_it tplevict as nobody:\n%s%s" % (
        p.stdout[-3000:], p.stderr[-3000:]))
    check(len(read_data(d, "it", 0, "ev2b")) > 0, "ev2b was made")
    d.stop()
    d.cleanup()
finish()
