# SPDX-License-Identifier: BSD-2-Clause
"""test_create_many.py: KstatCreateMany — many kstats of one template in
one call: each as KstatCreate would make it, all or none (a failure
names the kstat and takes back what the call made, revived ones
included), join gives back the caller's own kstats of the same template,
never another user's, and the call's size and quotas are bounded."""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import (TPL_APP, Daemon, check, expect_error,  # noqa: E402
                     finish, ok)

d = Daemon(config="max_kstats_per_uid = 20\n").start()
c = d.conn()
spec = ok(c.call("io.statsd.TemplateAdd", TPL_APP), "TemplateAdd")[
    "template"]["spec"]


def names(prefix, n, start=0):
    return [{"module": prefix, "instance": i, "name": "k"}
            for i in range(start, start + n)]


def chain():
    return {(k["module"], k["instance"], k["name"]): k for k in
            ok(c.call("io.statsd.Chain", {"dormant": True}),
               "Chain", False)["kstats"]}


def present():
    """Which kstats exist, by name and identity, without their values: the
    daemon's own statsd:0:daemon moves its snaptime every second, so two
    whole chains taken a second apart differ though nothing was made."""
    return {key: (k["handle"], k["slot"], k["gen"], k["flags"])
            for key, k in chain().items()}


r = ok(c.call("io.statsd.KstatCreateMany", {
    "template": spec, "class": "net", "kstats": names("mm", 5) + [
        {"module": "mm", "instance": 9, "name": "own", "class": "disk",
         "description": "its own", "path": ["a", "b", "c"]}]}),
    "KstatCreateMany of six")
ks = r["kstats"]
check(len(ks) == 6 and r["template"] == spec,
      "six made, and the template's spec")
check(r["revived"] == [False] * 6 and r["joined"] == [False] * 6,
      "none revived or joined")
check(len(set(k["handle"] for k in ks)) == 6 and
      all(k["segment"] == "public" for k in ks), "six handles, public")
ch = chain()
made = [ch.get(("mm", i, "k")) for i in range(5)] + [ch.get(("mm", 9, "own"))]
check(None not in made and [k["handle"] for k in made] ==
      [k["handle"] for k in ks] and [(k["slot"], k["gen"]) for k in made] ==
      [(k["slot"], k["gen"]) for k in ks],
      "the kstats in the call's order, as the chain has them")
check(None not in made and all(k["template"] == spec for k in made) and
      [k["class"] for k in made] == ["net"] * 5 + ["disk"],
      "the call's template and class, a kstat's own class")
check(None not in made and made[5]["description"] == "its own" and
      made[5]["path"] == ["a", "b", "c"],
      "a kstat's own description and path")

# All or none: the fourth exists, so nothing of the call stays.
before = present()
# Let the daemon's own kstat tick once, as it did on a loaded CI machine:
# what follows must compare what exists, not a snapshot of values.
time.sleep(1.1)
expect_error(c.call("io.statsd.KstatCreateMany", {
    "template": spec, "kstats": names("nn", 3) + names("mm", 1, 2)}),
    "io.statsd.KstatExists", "an existing kstat in the batch",
    kstat="mm:2:k")
check(present() == before, "a failed batch leaves nothing behind")
expect_error(c.call("io.statsd.KstatCreateMany", {
    "template": spec, "kstats": names("nn", 2) + [
        {"module": "bad:mod", "instance": 0, "name": "x"}]}),
    "io.statsd.InvalidValue", "a bad name in the batch",
    parameter="kstats[2].module")
check(present() == before, "nor a bad name")
# The same name twice in one call: the second exists by then.
expect_error(c.call("io.statsd.KstatCreateMany", {
    "template": spec, "kstats": names("dd", 2) + names("dd", 1)}),
    "io.statsd.KstatExists", "a name twice in one call", kstat="dd:0:k")
check(present() == before, "nor a name twice")

# Join: the caller's own kstats of the template come back as they are.
r = ok(c.call("io.statsd.KstatCreateMany", {
    "template": spec, "join": True, "kstats": names("mm", 3, 3)}),
    "join two existing and one new")
check(r["joined"] == [True, True, False], "joined, joined, made: %s"
      % r["joined"])
check(r["kstats"][0]["handle"] == ks[3]["handle"], "the same kstat")

# A PERSISTENT one deleted goes dormant; a batch revives it, and undoes
# the revival when the batch fails.
ok(c.call("io.statsd.KstatCreateMany", {
    "template": spec, "flags": ["PERSISTENT"], "kstats": names("pp", 2)}),
    "two PERSISTENT kstats")
ok(c.call("io.statsd.KstatDelete", {"module": "pp", "instance": 0,
                                    "name": "k"}), "one goes dormant")
expect_error(c.call("io.statsd.KstatCreateMany", {
    "template": spec, "flags": ["PERSISTENT"],
    "kstats": names("pp", 1) + names("mm", 1)}),
    "io.statsd.KstatExists", "a batch that fails after a revival",
    kstat="mm:0:k")
check("DORMANT" in chain()[("pp", 0, "k")]["flags"],
      "the revived kstat sleeps again")
r = ok(c.call("io.statsd.KstatCreateMany", {
    "template": spec, "flags": ["PERSISTENT"], "kstats": names("pp", 1)}),
    "a batch that revives")
check(r["revived"] == [True], "revived")

# Quotas count each kstat: past max_kstats_per_uid as another user the
# batch fails whole, naming the limit.
HERE = os.path.dirname(os.path.abspath(__file__))
harness.stage(os.path.join(HERE, "harness.py"))
os.chmod(d.run, 0o755)
user = harness.spawn(harness.as_user(["/usr/bin/python3", os.path.join(
    HERE, "abuse_client.py"), d.sock]), stdin=subprocess.PIPE,
    stdout=subprocess.PIPE, text=True, bufsize=1)
user.stdin.write(json.dumps({"op": "calls", "calls": [
    ["io.statsd.KstatCreateMany", {"template": spec, "kstats":
                                   names("u1", 15)}],
    ["io.statsd.KstatCreateMany", {"template": spec, "kstats":
                                   names("u2", 10)}],
    ["io.statsd.KstatCreateMany", {"template": spec, "join": True,
                                   "kstats": names("mm", 1)}]]}) + "\n")
user.stdin.flush()
line = user.stdout.readline()
out = json.loads(line).get("replies", []) if line else []
check(len(out) == 3, "the other user's calls ran")
if len(out) == 3:
    ok(out[0], "fifteen as another user")
    expect_error(out[1], "io.statsd.LimitReached", "ten more: over its "
                 "limit", limit="max_kstats_per_uid")
    expect_error(out[2], "io.statsd.KstatExists", "join never takes "
                 "another user's kstat", kstat="mm:0:k")
user.stdin.close()
user.wait(timeout=harness.DEADLINE)
check(not any(k[0] == "u2" for k in chain()),
      "the batch over the limit left nothing")

# At most 4096 a call.
expect_error(c.call("io.statsd.KstatCreateMany", {
    "template": spec, "kstats": names("big", 4097)}),
    "org.varlink.service.InvalidParameter", "4097 in one call",
    parameter="kstats")
expect_error(c.call("io.statsd.KstatCreateMany", {
    "template": "nope", "kstats": names("x", 1)}),
    "io.statsd.NoSuchTemplate", "no such template", template="nope")
check(d.alive(), "statsd still answers")
c.close()
d.stop()
finish()
