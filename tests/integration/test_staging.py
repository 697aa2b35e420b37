# SPDX-License-Identifier: BSD-2-Clause
"""test_staging.py: a client run as another user never reads the checkout.

On a fresh machine the clone sits in /root, which only root may enter, so a
client run as nobody (harness.as_user) must find everything it reads, the
IDL its replies are checked against included, in the world-readable
staging directory. Here the checkout the client is told about is a
directory only root may enter, as /root/project is; the hostile client of
the abuse tests checks every reply against the IDL, so a call that works
proves it read the staged copy.
"""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Daemon, as_user, check, finish, spawn  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

closed = harness.mkdtemp(prefix="statsd-closed-")
os.makedirs(os.path.join(closed, "src", "daemon", "proto"))
shutil.copy(harness.IDL_PATH, os.path.join(closed, "src", "daemon", "proto"))
os.chmod(closed, 0o700)
# What the staged client resolves its checkout from.
os.environ["STATSD_SRCDIR"] = closed

d = Daemon()
d.start()
harness.stage(os.path.join(HERE, "harness.py"))
p = spawn(as_user(["/usr/bin/python3", os.path.join(HERE, "abuse_client.py"),
                   d.sock]),
          stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
p.stdin.write(json.dumps({"op": "pages",
                          "calls": [["io.statsd.Info", {}]]}) + "\n")
p.stdin.flush()
line = p.stdout.readline()
check(line != "", "the client run as nobody answers")
replies = json.loads(line).get("replies", []) if line else []
check(len(replies) == 1 and "error" not in replies[0],
      "Info as nobody, its reply checked against the staged IDL: %s"
      % (replies[:1],))
p.stdin.close()
p.wait(timeout=harness.DEADLINE)
d.cleanup()
finish()
