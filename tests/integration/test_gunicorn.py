# SPDX-License-Identifier: BSD-2-Clause
"""test_gunicorn.py: a real gunicorn (Debian's) serving
examples/gunicorn_app.py with 8 sync workers and --max-requests, so that
workers exit and are forked again during the run, driven by a known number
of HTTP requests per route. Afterwards every counter and histogram count
in statsd's /metrics is exact: one series per route for the node, however
many workers served it.

Then the same with SIGKILL: between rounds of requests, random workers are
killed (gunicorn forks new ones); whatever a killed worker pushed before
it died is in the totals (prefork.py has the load and the checks).

The application's metrics are made in the master (--preload), before the
workers are forked: gunicorn forks with os.fork()."""
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(__file__))
from harness import SRCDIR, check, finish, free_port, spawn  # noqa: E402
import prefork  # noqa: E402

GUNICORN = shutil.which("gunicorn")
if GUNICORN is None:
    check(False, "gunicorn (Debian's package) is installed (tools/deps.sh)")
    finish()


def start_gunicorn(d, max_requests):
    port = free_port()
    env = dict(os.environ, STATSD_SOCKET=d.sock)
    p = spawn([GUNICORN, "--workers", str(prefork.WORKERS), "--worker-class",
               "sync", "--max-requests", str(max_requests),
               "--max-requests-jitter", "0", "--preload",
               "--graceful-timeout", "5", "--bind", "127.0.0.1:%d" % port,
               "--chdir", os.path.join(SRCDIR, "examples"),
               "gunicorn_app:app"], env=env,
              stdout=open(os.devnull, "w"),
              stderr=open(os.path.join(d.tmp, "gunicorn.log"), "w"))
    prefork.wait_ready(port, "gunicorn")
    return p, port


prefork.restarts(start_gunicorn, "gunicorn")
prefork.kills(start_gunicorn, "gunicorn")
finish()
