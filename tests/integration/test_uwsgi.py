# SPDX-License-Identifier: BSD-2-Clause
"""test_uwsgi.py: a real uWSGI (Debian's uwsgi-core and its python3
plugin) serving examples/gunicorn_app.py as test_gunicorn.py's gunicorn
does: 8 workers and --max-requests, so that workers exit and are forked
again during the run, then random workers killed with SIGKILL between
rounds of requests; every counter and histogram count in statsd's
/metrics is exact (prefork.py has the load and the checks).

uWSGI loads the application in its master and forks the workers in C:
no os.fork(), so no Python fork hook runs in them. A worker's first
update of a metric made in the master must still reach statsd (the
in-flight gauge, moved by every request, ends at 0 only if none is
dropped)."""
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(__file__))
from harness import SRCDIR, check, finish, free_port, spawn  # noqa: E402
import prefork  # noqa: E402

UWSGI = shutil.which("uwsgi")
PLUGIN = "/usr/lib/uwsgi/plugins/python3_plugin.so"
if UWSGI is None or not os.path.exists(PLUGIN):
    check(False, "uWSGI and its python3 plugin (Debian's uwsgi-core, "
          "uwsgi-plugin-python3) are installed (tools/deps.sh)")
    finish()


def start_uwsgi(d, max_requests):
    port = free_port()
    env = dict(os.environ, STATSD_SOCKET=d.sock)
    # --min-worker-lifetime 0: uWSGI otherwise keeps a worker 60 s
    # whatever --max-requests says. --need-app: exit if the app does not
    # load, rather than serve errors. The mercies: how long a worker that
    # does not stop is waited for before SIGKILL (60 s otherwise).
    p = spawn([UWSGI, "--plugin", "python3", "--master",
               "--processes", str(prefork.WORKERS),
               "--max-requests", str(max_requests),
               "--min-worker-lifetime", "0",
               "--http-socket", "127.0.0.1:%d" % port,
               "--chdir", os.path.join(SRCDIR, "examples"),
               "--module", "gunicorn_app:app", "--need-app",
               "--die-on-term", "--reload-mercy", "5",
               "--worker-reload-mercy", "5", "--disable-logging"], env=env,
              stdout=open(os.devnull, "w"),
              stderr=open(os.path.join(d.tmp, "uwsgi.log"), "w"))
    prefork.wait_ready(port, "uWSGI")
    return p, port


prefork.restarts(start_uwsgi, "uWSGI")
prefork.kills(start_uwsgi, "uWSGI")
finish()
