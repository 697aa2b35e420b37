#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""test_varlink_go.py: statsd against the reference varlink implementation.

A small client built on Debian's golang-github-varlink-go-dev (the
varlink project's Go library) calls GetInfo and GetInterfaceDescription
(the library sends "parameters": null for a call without parameters),
Info, Chain, a Read, a Read of a missing kstat (an error reply) and a Read
with "more" (a stream of three replies). Debian's
varlink-go-interface-generator must parse io.statsd.varlink, and the Go
code it generates must build.

Everything Go builds goes in the test's temporary directory (GOPATH,
GOCACHE), offline, in GOPATH mode with the library from /usr/share/gocode.
Without golang-go or the library the test is skipped (exit 77) saying so;
tools/deps.sh installs both.
"""
import os
import shutil
import sys

import harness
from harness import SRCDIR, Daemon, check, finish, run

GOCODE = "/usr/share/gocode"
LIB = os.path.join(GOCODE, "src", "github.com", "varlink", "go", "varlink")
GO = shutil.which("go")
GENERATOR = shutil.which("varlink-go-interface-generator")

missing = [what for what, ok_ in (
    ("golang-go (go)", GO is not None),
    ("golang-github-varlink-go-dev (%s)" % LIB, os.path.isdir(LIB)),
    ("varlink-go (varlink-go-interface-generator)", GENERATOR is not None))
    if not ok_]
if missing:
    print("SKIP: not installed: %s (tools/deps.sh installs them)"
          % ", ".join(missing))
    sys.exit(77)

tmp = harness.mkdtemp("statsd-go-")
gopath = os.path.join(tmp, "gopath")
env = dict(os.environ, GO111MODULE="off", GOFLAGS="", GOPROXY="off",
           GOPATH=gopath + ":" + GOCODE, GOCACHE=os.path.join(tmp, "cache"),
           CGO_ENABLED="0", HOME=tmp)

# The IDL parses with the reference generator, and its Go builds.
gen = os.path.join(gopath, "src", "iostatsd")
os.makedirs(gen)
shutil.copy(os.path.join(SRCDIR, "src", "daemon", "proto",
                         "io.statsd.varlink"), gen)
p = run([GENERATOR, os.path.join(gen, "io.statsd.varlink")], cwd=gen,
        env=env, capture_output=True, text=True)
check(p.returncode == 0, "varlink-go-interface-generator parses "
      "io.statsd.varlink: %s" % (p.stdout + p.stderr))
p = run([GO, "build", "iostatsd"], cwd=tmp, env=env, capture_output=True,
        text=True)
check(p.returncode == 0, "the generated Go builds: %s" % p.stderr)

# The client.
src = os.path.join(gopath, "src", "statsdclient")
os.makedirs(src)
shutil.copy(os.path.join(SRCDIR, "tests", "integration", "varlink_go",
                         "main.go"), src)
client = os.path.join(tmp, "client")
p = run([GO, "build", "-o", client, "statsdclient"], cwd=tmp, env=env,
        capture_output=True, text=True)
if not check(p.returncode == 0, "the Go client builds: %s" % p.stderr):
    finish()

d = Daemon(config="watch_min_interval_ms = 10\n")
d.start()
p = run([client, d.sock], env=env, capture_output=True, text=True,
        timeout=60)
out = p.stdout
print("go client:\n" + out + p.stderr, flush=True)
check(p.returncode == 0, "the Go client ran through: %s" % out[-300:])
for want in ("getinfo product=statsd interfaces=org.varlink.service,"
             "io.statsd",
             "description starts_interface=true has_read=true",
             "info version=",
             "chain kstats>0=true has_daemon=true",
             "read kstat=statsd:0:daemon uptime_ns=true",
             "error name=io.statsd.NoSuchKstat",
             "stream replies=3"):
    check(want in out, "Go client: %r" % want)
d.stop()
finish()
