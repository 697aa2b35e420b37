# SPDX-License-Identifier: BSD-2-Clause
"""gunicorn_app.py: a WSGI application instrumented with statsclient, as
a prometheus_client user would write it, for gunicorn (or any pre-fork
server) with as many workers as you like: every worker's updates land in
the same series in statsd, and statsd's /metrics shows them once for the
node. tools/run.sh starts it beside the demo producer; the integration
tests test_gunicorn.py and test_uwsgi.py drive it with restarting and
killed workers.

    STATSD_SOCKET=... gunicorn --workers 8 --preload \\
        --chdir examples gunicorn_app:app
    STATSD_SOCKET=... uwsgi --plugin python3 --master --processes 8 \\
        --http-socket 127.0.0.1:8123 --chdir examples \\
        --module gunicorn_app:app

GET /<route> answers "<route> <pid>\\n" and counts the request under its
route; the time it "took" is a fixed value per route (the route's length
in milliseconds) so that a test knows each histogram bucket's count.
"""
import os

import statsclient

# Made in the master with --preload, before fork(): every worker uses them.
REQUESTS = statsclient.Counter("app_requests", "Requests served.",
                               ["route"])
LATENCY = statsclient.Histogram("app_request_seconds", "Time per request.",
                                ["route"], buckets=(0.002, 0.003, 0.1))
ERRORS = statsclient.Counter("app_errors", "Requests that raised.")
STARTS = statsclient.Counter("app_starts", "Times the application was "
                             "loaded (once per master with --preload).")
IN_FLIGHT = statsclient.Gauge("app_in_flight", "Requests being served "
                              "now, on the node.")
STARTS.inc()


@ERRORS.count_exceptions()
def app(environ, start_response):
    route = environ.get("PATH_INFO", "/") or "/"
    with IN_FLIGHT.track_inprogress():
        REQUESTS.labels(route).inc()
        LATENCY.labels(route).observe(len(route) / 1000.0)
        body = ("%s %d\n" % (route, os.getpid())).encode()
    start_response("200 OK", [("Content-Type", "text/plain"),
                              ("Content-Length", str(len(body)))])
    return [body]
