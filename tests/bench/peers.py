# SPDX-License-Identifier: BSD-2-Clause
"""peers.py: what the benchmarks that run other statsd daemons beside
statsd share: a free local port, netdata's configuration with its
statsd plugin alone (no web server, no other collector, no health or
ML, its database in memory), a process's CPU time, and one varlink call
to statsd."""
import json
import os
import socket

NETDATA_OFF = ("proc", "diskspace", "cgroups", "tc", "idlejitter", "apps",
               "python.d", "charts.d", "go.d", "node.d", "ebpf", "perf",
               "slabinfo", "timex", "checks", "debugfs", "nfacct",
               "freeipmi", "profile")


def free_port(kind=socket.SOCK_DGRAM):
    s = socket.socket(socket.AF_INET, kind)
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def netdata_conf(tmp, port):
    """Write netdata's configuration for a statsd on 127.0.0.1:port under
    tmp (its directories too); its path."""
    for d in ("cache", "lib", "log", "run"):
        os.makedirs(os.path.join(tmp, d), exist_ok=True)
    os.chmod(tmp, 0o755)
    conf = os.path.join(tmp, "netdata.conf")
    with open(conf, "w") as f:
        f.write("[global]\n  memory mode = ram\n  run as user = %s\n"
                "[directories]\n  cache = %s/cache\n  lib = %s/lib\n"
                "  log = %s/log\n  run = %s/run\n[web]\n  mode = none\n"
                "[ml]\n  enabled = no\n[health]\n  enabled = no\n"
                "[plugins]\n%s  statsd = yes\n[statsd]\n  enabled = yes\n"
                "  bind to = udp:127.0.0.1:%d\n" % (
                    os.environ.get("USER", "root"), tmp, tmp, tmp, tmp,
                    "".join("  %s = no\n" % p for p in NETDATA_OFF), port))
    return conf


def cpu_times(pid):
    """The process's (user, system) CPU time, every thread's, in s."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    hz = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / hz, int(fields[12]) / hz


def cpu_s(pid):
    """The process's CPU time (every thread's, user and system), in s."""
    return sum(cpu_times(pid))


def varlink(sock, method, params):
    """One call on statsd's Unix socket; its reply, parsed."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sock)
    s.sendall(json.dumps({"method": method, "parameters": params})
              .encode() + b"\0")
    buf = b""
    while not buf.endswith(b"\0"):
        chunk = s.recv(65536)
        if not chunk:
            break
        buf += chunk
    s.close()
    return json.loads(buf[:-1])
