# SPDX-License-Identifier: BSD-2-Clause
"""pyscrape.py: what the statsclient tests share: a statsd with its HTTP
endpoint, and its /metrics read with python3-prometheus-client's parser,
as a Prometheus server would read it."""
import http.client
import re

from harness import DEADLINE, Daemon, check, wait_for


def http_daemon(config=""):
    """A started statsd with /metrics on a free port; (daemon, port)."""
    d = Daemon(config="http_listen = 127.0.0.1:0\n" + config).start()
    port = wait_for(lambda: (lambda m: m and int(m.group(1)))(re.search(
        r"http: serving /metrics on 127\.0\.0\.1 port (\d+)", d.stderr())),
        "the HTTP endpoint's port in the log")
    return d, port


def get_metrics(port):
    """The text of GET /metrics ("" if it fails, with a failed check)."""
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=DEADLINE)
        c.request("GET", "/metrics")
        r = c.getresponse()
        body = r.read().decode()
        c.close()
    except OSError as e:
        check(False, "GET /metrics: %r" % e)
        return ""
    check(r.status == 200, "GET /metrics answers 200, not %d" % r.status,
          False)
    return body


def parse(text, prefix=""):
    """(samples, families) of a text exposition: samples as
    {(name, frozenset(labels.items())): value}, families as
    {name: (type, documentation)}, only those whose name starts with
    prefix."""
    from prometheus_client.parser import text_string_to_metric_families
    samples, fams = {}, {}
    for fam in text_string_to_metric_families(text):
        if not fam.name.startswith(prefix):
            continue
        fams[fam.name] = (fam.type, fam.documentation)
        for s in fam.samples:
            samples[(s.name, frozenset(s.labels.items()))] = s.value
    return samples, fams


def scrape(port, prefix=""):
    return parse(get_metrics(port), prefix)
