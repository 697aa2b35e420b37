# SPDX-License-Identifier: BSD-2-Clause
"""test_mapping.py: statsd.conf's [mapping] rules, as statsd_exporter
users write them, on a real statsd fed over UDP and read with `statsctl
scrape --format openmetrics` (python3-prometheus-client's strict parser):
a glob's captures name the family and fill labels, tags stay labels (a
rule's label wins over a tag of its name), drop leaves a series out, a
summary observer shows the t-digest's quantiles, a native one no classic
buckets, a ttl leaves out a series not updated for that long (and keeps
it); SIGHUP loads new rules; a bad rule is refused with its line and
column, at start and at a reload, which keeps the running rules."""
import os
import signal
import socket
import sys

sys.path.insert(0, os.path.dirname(__file__))
import harness  # noqa: E402
from harness import (Daemon, check, finish, free_port, read_data,  # noqa
                     scrape_om, wait_for)

STATSD = os.environ.get("STATSD", "statsd")

RULES = """[mapping]
# statsd_exporter's first example, in one line
api.*.latency name=api_latency route="$1" observer=histogram
api.*.hits name=api_hits_total route="${1}"
noise.* drop
sum.* observer=summary quantiles=0.5,0.9
nat.* observer=native name=nat_$1
fresh.* ttl=1h
stale.* ttl=1s
"""


def sample(name, **labels):
    return (name, frozenset(labels.items()))


port = free_port(socket.SOCK_DGRAM)
conf = "statsd_udp = 127.0.0.1:%d\n" % port
d = Daemon(config=conf + RULES).start()
udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sent = 0


def send(text):
    global sent
    udp.sendto(text.encode(), ("127.0.0.1", port))
    sent += 1
    want = sent
    wait_for(lambda: read_data(d, "statsd", 0, "daemon")["statsd_datagrams"]
             >= want, "statsd to read a datagram")


send("api.login.latency:5|ms|#env:prod,route:tag\n"
     "api.logout.latency:70|ms\n"
     "api.x.hits:3|c\napi.x.hits:4|c|#env:dev\n"
     "noise.a:1|c\nnoise.b:2|ms\n"
     "sum.t:5|ms\nsum.t:9|ms\n"
     "nat.q:3|h\n"
     "plain.g:7|g")
got = scrape_om(d, "mapped")


def want(key, value, what):
    check(got.get(key) == value, "%s: %s%s = %s, want %s" %
          (what, key[0], dict(key[1]), got.get(key), value))


want(sample("api_latency_bucket", route="login", env="prod", le="0.005"), 1,
     "a capture names the label, the tag env stays")
want(sample("api_latency_bucket", route="logout", le="0.05"), 0,
     "api.logout.latency")
want(sample("api_latency_bucket", route="logout", le="0.1"), 1,
     "api.logout.latency")
want(sample("api_latency_sum", route="login", env="prod"), 0.005,
     "api.login.latency's _sum in seconds")
check(not any(k[0].startswith("statsd_api") for k in got),
      "no series of a mapped metric keeps its statsd_ name")
check(not any(("route", "tag") in k[1] for k in got),
      "the rule's route wins over the tag route:tag")
want(sample("api_hits_total", route="x"), 3, "a counter's name_total")
want(sample("api_hits_total", route="x", env="dev"), 4,
     "tags as labels on a mapped counter")
check(not any("noise" in k[0] for k in got), "drop leaves noise.* out")
want(sample("statsd_sum_t_seconds", quantile="0.5"), 0.005,
     "a summary's quantile from the t-digest")
want(sample("statsd_sum_t_seconds", quantile="0.9"), 0.009,
     "a summary's quantile from the t-digest")
want(sample("statsd_sum_t_seconds_count"), 2, "a summary's _count")
check(sorted(k for k in got if k[0].startswith("nat_q")) == sorted([
    sample("nat_q_bucket", le="+Inf"), sample("nat_q_sum"),
    sample("nat_q_count")]), "native only: no classic buckets in text")
want(sample("statsd_plain_g"), 7, "a metric no rule matches")
check(read_data(d, "statsd", 0, "daemon")["statsd_series"] == 9,
      "a dropped series is still kept (statsctl reads it)")

# ttl: a series not updated for that long is left out of the exposition,
# and kept. The ttl=1h series cannot age within the test; the ttl=1s one
# is awaited (a deadline, no duration asserted), then sent again until a
# scrape follows its update within the second: each send adds 1, so the
# value shown is the number of sends, nothing lost meanwhile.
send("fresh.c:1|c\nstale.c:1|c")
series = read_data(d, "statsd", 0, "daemon")["statsd_series"]


def aged(g):
    return (g.get(sample("statsd_fresh_c_total")) == 1 and
            sample("statsd_stale_c_total") not in g)


check(wait_for(lambda: aged(scrape_om(d, "ttl")),
               "the ttl=1s series to age out", step=0.2) is True,
      "ttl=1s leaves the series out; ttl=1h keeps it")
check(read_data(d, "statsd", 0, "daemon")["statsd_series"] == series,
      "a series past its rule's ttl is still kept")
sends = 1


def stale_back():
    global sends
    send("stale.c:1|c")
    sends += 1
    return scrape_om(d, "ttl, updated").get(sample("statsd_stale_c_total"))


check(wait_for(stale_back, "the updated series shown", deadline=max(
    harness.DEADLINE, 60)) == sends,
      "updated again, the series is back with every value sent")

# SIGHUP: new rules apply to the next scrape.
with open(d.conf, "w") as f:
    f.write(conf + "[mapping]\napi.*.latency name=lat_$1\n")
d.proc.send_signal(signal.SIGHUP)
wait_for(lambda: "configuration reloaded" in d.stderr(), "the reload")
got = scrape_om(d, "reloaded")
want(sample("lat_login_bucket", env="prod", route="tag", le="0.005"), 1,
     "the reloaded rule names the family; the tag route is back")
want(sample("api_hits_total", route="x"), None,
     "the old rules are gone")
want(sample("statsd_api_x_hits_total"), 3, "api.x.hits unmapped")
check(any("noise" in k[0] for k in got), "noise.* no longer dropped")

# A bad rule: the reload is refused with its line and column, and the
# running rules stay.
with open(d.conf, "w") as f:
    f.write(conf + "[mapping]\nsum.* drop\napi.*.latency name=a-b\n")
d.proc.send_signal(signal.SIGHUP)
wait_for(lambda: "reload refused" in d.stderr(), "the bad reload refused")
log = d.stderr()
check(":4: mapping: column 21: a name holds" in log,
      "the refusal names line 4, column 21: %r" % log[-300:])
got = scrape_om(d, "refused")
want(sample("lat_login_bucket", env="prod", route="tag", le="0.005"), 1,
     "the running rules stay")
check(any(k[0].startswith("statsd_sum_t") for k in got),
      "the refused file's drop does not apply")
d.stop()

# At start, a bad rule refuses the configuration.
bad = Daemon(config=conf.replace(str(port), "0") +
             "[mapping]\nx.**.y drop\n", name="bad")
p = harness.run(bad.argv(), capture_output=True, text=True, timeout=30)
check(p.returncode != 0 and ":3: mapping: column 4: at most one '*'" in
      p.stderr, "a bad rule at start: %r" % p.stderr)
finish()
