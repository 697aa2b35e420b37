#!/usr/bin/python3
# SPDX-License-Identifier: BSD-2-Clause
"""statsd_feed.py: feed statsd from Python, as any statsd client does.

It sends a request counter, a latency timer, a queue-depth gauge, a set
of users and a DogStatsD distribution with tags, over UDP (anonymous) or
the Unix datagram socket (the sender's uid owns what it makes), then
shows how to read them back with statsctl. With Debian's python3-statsd
installed it also uses that client (over UDP: its Unix client is a stream
client) for a counter, a timer and a pipeline. A counter only grows: its
decr() sends a negative count, which statsd refuses and counts
(statsd_refused_negative); a value that goes down is a gauge delta.

usage: statsd_feed.py [--unix PATH | --udp HOST:PORT] [--count N]
  (default: UDP to 127.0.0.1:8125)

Then, for instance:
  statsctl read 'statsd:*:app.requests'
  statsctl list -v 'statsd:*:*'        # the tags are in each kstat2 path
  statsctl scrape --format openmetrics  # the tags as labels:
      # statsd_app_requests_total{env="prod",route="/login"} 100
"""
import argparse
import random
import socket
import time


def sender(args):
    if args.unix:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        return lambda data: s.sendto(data, args.unix)
    host, port = args.udp.rsplit(":", 1)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    return lambda data: s.sendto(data, (host, int(port)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--unix", help="the Unix datagram socket's path")
    ap.add_argument("--udp", default="127.0.0.1:8125", help="HOST:PORT")
    ap.add_argument("--count", type=int, default=100)
    args = ap.parse_args()
    send = sender(args)

    for i in range(args.count):
        lat = random.lognormvariate(2.5, 0.6)       # milliseconds
        # Several lines per datagram, one sendto: cheaper for the sender.
        lines = [
            "app.requests:1|c|#env:prod,route:/login",
            "app.latency:%.3f|ms|#env:prod" % lat,
            "app.queue:%d|g" % random.randint(0, 50),
            "app.users:user%d|s" % random.randint(1, 20),
            # DogStatsD 1.1: three values on one line, sampled at 50 %.
            "app.sizes:%d:%d:%d|d|@0.5|#env:prod" % tuple(
                random.randint(100, 5000) for _ in range(3)),
        ]
        send("\n".join(lines).encode())
        time.sleep(0.001)

    try:
        import statsd     # Debian's python3-statsd
    except ImportError:
        return
    if args.unix:
        # python3-statsd's UnixSocketStatsClient speaks SOCK_STREAM;
        # statsd's Unix socket takes datagrams.
        return
    host, port = args.udp.rsplit(":", 1)
    c = statsd.StatsClient(host, int(port), prefix="pyapp")
    c.incr("jobs")
    with c.timer("work"):
        time.sleep(0.01)
    with c.pipeline() as p:       # one datagram for all three
        p.incr("jobs", 2)
        p.gauge("backlog", 7)
        p.gauge("backlog", -2, delta=True)


if __name__ == "__main__":
    main()
