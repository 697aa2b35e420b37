# SPDX-License-Identifier: BSD-2-Clause
"""zone_peer.py: a client of statsd run inside a zone (a namespace the test
made with unshare). Each stdin line is a call as JSON {"method":...,
"parameters":...}, answered by one line {"reply":..., "nfds":N}; the line
"scan" instead asks for every store segment statsd gives this peer
(SegmentAttach, page after page), maps each read-only and lists the
kstats found in its kstat table, and every marker ("zmark-" and a word:
test_zones.py puts them in descriptions) found anywhere in its bytes,
answered {"scan": {segment: [names]}, "marks": {segment: [markers]}}.
The scan trusts no library: it reads the layout drawn in store.h.

    zone_peer.py SOCKET
"""
import json
import mmap
import os
import re
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Conn  # noqa: E402

USED = 0x80000000  # STORE_KF_USED


MARK = re.compile(rb"zmark-[A-Za-z0-9_-]+")


def scan_segment(fd):
    """The module:instance:name of every kstat in the segment on fd, and
    every marker in its bytes."""
    size = os.fstat(fd).st_size
    m = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ)
    try:
        marks = sorted(set(x.decode() for x in MARK.findall(m[:])))
        if m[:8] != b"STDSTOR1":
            return ["<not a segment>"], marks
        table_off, = struct.unpack_from("=Q", m, 56)
        kstat_size, = struct.unpack_from("=I", m, 68)
        table_used, = struct.unpack_from("=I", m, 88)
        names = []
        for i in range(table_used):
            h = table_off + i * kstat_size
            instance, flags = struct.unpack_from("=iI", m, h + 60)
            if not flags & USED:
                continue

            def s(off):
                raw = m[h + off:h + off + 31]
                return raw.split(b"\0", 1)[0].decode("ascii", "replace")
            names.append("%s:%d:%s" % (s(160), instance, s(191)))
        return sorted(names), marks
    finally:
        m.close()


def main():
    c = Conn(sys.argv[1])
    for line in sys.stdin:
        line = line.strip()
        if line == "scan":
            out, marks, params = {}, {}, {}
            while params is not None:
                c.send("io.statsd.SegmentAttach", params)
                r = c.recv().get("parameters", {})
                fds = c.take_fds()
                for g in r.get("segments", []):
                    out[g["name"]], marks[g["name"]] = scan_segment(
                        fds[g["fd"]])
                for fd in fds:
                    os.close(fd)
                params = {"from": r["next"]} if "next" in r else None
            print(json.dumps({"scan": out, "marks": marks}), flush=True)
            continue
        m = json.loads(line)
        c.send(m["method"], m.get("parameters"))
        r = c.recv()
        print(json.dumps({"reply": r, "nfds": len(c.take_fds())}),
              flush=True)
    c.close()


if __name__ == "__main__":
    main()
