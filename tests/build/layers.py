#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""layers.py BUILDDIR: calls between source files run one way.

Reads the symbol tables of the object files meson built (nm) and draws a
file -> file arrow for every global function or object a file uses that
another file of the same program defines. Fails if:

- files call each other, directly or round a loop, within statsd,
  libstatsclient, statsctl or src/common (each program with src/common,
  which it links);
- a folder of src/common calls a folder above it. The order is meson's
  common_layers, lowest first: base, shm, kinds, engine, model, render
  (shm and kinds are side by side: neither calls the other).

- a module of statsd calls one above it. DAEMON_ORDER lists statsd's
  modules (its .c files), lowest first; a module missing from it fails
  too, so that a new file is placed deliberately.

The one call that runs upwards by design, the engine's hook for published
blobs (engine_remote_set()), goes through a function pointer and so draws
no arrow."""
import collections
import glob
import json
import os
import subprocess
import sys

ORDER = ["base", "shm", "kinds", "engine", "model", "render"]
SIDE_BY_SIDE = {("kinds", "shm"), ("shm", "kinds")}

# statsd's modules, lowest first, by the folder each lives in (src/daemon's
# meson.build draws the folders). A module may call only those before it.
# Calls that must run upward (a closed connection telling the drain, the
# self kstat reading the front door's counters) go through hooks the
# higher module registers, and so draw no arrow.
DAEMON_ORDER = [
    # .: what every role uses; persist/crashpoint, the crash tests' points
    "log", "crashpoint", "zones", "config",
    # policy/: who a peer is, what it may hold
    "rights", "quota",
    # persist/ (below the registry): runtime files, the ring journal, the
    # persistence thread, the runtime files' thread
    "journal", "mirror", "syncer", "filer",
    # core/: what the writer publishes for reader threads, its registry
    # and index
    "pub", "kindex", "tpldef", "registry",
    # policy/view: what a peer may see and change, over the registry
    "view",
    # persist/: the state log: a record's frame, its records, the log's
    # file (appends, syncs, health), a kstat's synced appends, the
    # periodic pass and compaction, the object that ties them (it gives
    # the log the pass's hook), and loading at start (which restores
    # into the registry)
    "ck_frame", "ck_record", "ck_log", "ck_kstat", "ck_pass", "checkpoint",
    "ck_load",
    # core/: the self kstats and the drain
    "sysks", "drain_apply", "drain",
    # readers/: fair turns between peers, a reader's view of the store,
    # the reader thread of the control socket's reads
    "turns", "rview", "rthread",
    # front/: the statsd datagram doors: the series' templates, their
    # table and by-path index, a line's apply and expiry, the sockets
    "series_tpl", "series_table", "series", "front",
    # http/: the exposition and /metrics
    "expo_pb", "expo", "http",
    # proto/: the control socket, varlink (parameter checks, replies,
    # streams and deferred calls, then the dispatch over them), the
    # handlers
    "control", "vl_check", "vl_reply", "vl_stream", "varlink", "m_rcall", "m_walk", "m_kstat", "m_template", "m_info",
    "m_ring", "m_read", "m_scrape", "m_defn", "methods",
    # .: the process
    "main",
]


def objects(build, pattern):
    """The object files of one target (pattern: its .p folder, a glob)
    that the build's sources make now, by compile_commands.json: a build
    folder keeps the objects of sources since renamed or removed, and
    those must not draw arrows."""
    with open(os.path.join(build, "compile_commands.json")) as f:
        outs = {os.path.join(build, c["output"]) for c in json.load(f)
                if "output" in c}
    return sorted(o for o in glob.glob(os.path.join(build, pattern, "*.o"))
                  if o in outs)


def unit(path):
    """The source file an object was built from, as meson names it."""
    return os.path.basename(path)[:-2]


def symbols(objs):
    defs, uses = {}, collections.defaultdict(set)
    out = subprocess.run(["nm", "-A"] + objs, capture_output=True,
                         text=True, check=True).stdout
    for line in out.splitlines():
        # "path.o:<value> <type> <name>", or "path.o: U <name>"
        where, _, rest = line.partition(".o:")
        f = unit(where + ".o")
        p = rest.split()
        if len(p) == 3 and p[1] in "TDBRC":
            defs[p[2]] = f
        elif len(p) == 2 and p[0] == "U":
            uses[f].add(p[1])
    return defs, uses


def graph(objs):
    defs, uses = symbols(objs)
    g = collections.defaultdict(dict)
    for f, names in uses.items():
        for n in names:
            if n in defs and defs[n] != f:
                g[f].setdefault(defs[n], []).append(n)
    return g


def loops(g):
    """Strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in g.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(set(g) | {w for e in g.values() for w in e}):
        if v not in index:
            visit(v)
    return out


def main():
    build = sys.argv[1]
    common = objects(build, "src/common/libstatscommon.a.p")
    programs = {
        "src/common": [],
        "statsd": objects(build, "src/daemon/statsd.p"),
        "libstatsclient": objects(build, "src/client/libstatsclient.so*.p"),
        "statsctl": objects(build, "src/statsctl/statsctl.p"),
    }
    if not common:
        print("layers: no object files under %s" % build)
        return 1
    bad = 0
    for name, objs in programs.items():
        g = graph(common + objs)
        for comp in loops(g):
            bad += 1
            print("%s: files that call each other: %s" % (name,
                                                         ", ".join(comp)))
            for a in comp:
                for b, names in sorted(g[a].items()):
                    if b in comp:
                        print("    %s -> %s: %s" % (a, b, ", ".join(
                            sorted(names)[:6])))
        if not loops(g):
            print("%s: %d files, no loop" % (name, len(common + objs)))
    bad += daemon_order(build)
    g = graph(common)
    for a, edges in sorted(g.items()):
        la = a.split("_", 1)[0]
        for b, names in sorted(edges.items()):
            lb = b.split("_", 1)[0]
            if la in ORDER and lb in ORDER and la != lb and (
                    ORDER.index(lb) > ORDER.index(la) or
                    (la, lb) in SIDE_BY_SIDE):
                bad += 1
                print("src/common: %s (%s/) calls up into %s (%s/): %s" %
                      (a, la, b, lb, ", ".join(sorted(names)[:6])))
    return 1 if bad else 0


def module(unit_name):
    """A daemon object's module: "core_drain.c" -> "drain"; None for the
    files meson generates (the compiled-in interface descriptions)."""
    if unit_name.startswith("meson-generated"):
        return None
    base = unit_name[:-2] if unit_name.endswith(".c") else unit_name
    for folder in ("policy_", "core_", "persist_", "front_", "http_",
                   "proto_", "readers_"):
        if base.startswith(folder):
            return base[len(folder):]
    return base


def daemon_order(build):
    """Count (and print) statsd's calls that run upward in DAEMON_ORDER,
    and its modules missing from it."""
    bad = 0
    g = graph(objects(build, "src/daemon/statsd.p"))
    mods = {module(f) for f in set(g) | {w for e in g.values() for w in e}}
    for m in sorted(mods - set(DAEMON_ORDER) - {None}):
        bad += 1
        print("statsd: module %s is not in layers.py's DAEMON_ORDER" % m)
    for a, edges in sorted(g.items()):
        ma = module(a)
        for b, names in sorted(edges.items()):
            mb = module(b)
            if ma is None or mb is None or ma not in DAEMON_ORDER or \
                    mb not in DAEMON_ORDER:
                continue
            if DAEMON_ORDER.index(mb) > DAEMON_ORDER.index(ma):
                bad += 1
                print("statsd: %s calls up into %s: %s" % (
                    a, b, ", ".join(sorted(names)[:6])))
    if not bad:
        print("statsd: %d modules, every call downward" % len(mods - {None}))
    return bad


if __name__ == "__main__":
    sys.exit(main())
