# SPDX-License-Identifier: BSD-2-Clause
"""abuse_client.py: a hostile local user, for test_abuse.py. Run as
another user (harness.as_user), it reads one JSON command per line on
stdin and answers each with one JSON line on stdout; connections it opens
stay open until a "close" command or the end of stdin, so that the test
can look at the daemon while they are held.

Commands ({"op": ..., ...}):
  connect n            open n connections, a Hello on each; answers
                       {"ok": count, "errors": [first error of the rest]}
  pipeline n calls m   open n connections and write m copies of call on
                       each without ever reading; answers {"sent": bytes}
  calls [[m, p], ...]  one connection, the calls in turn; answers
                       {"replies": [...]}
  pages [[m, p], ...]  as calls, each call walked to its last page (its
                       kstats, templates and text joined)
  flood n bytes        open n connections, send each `bytes` NULs (empty
                       messages) in one write, and read replies until one
                       per NUL came; answers {"replies": total}; with
                       "read": false, the connections are held unread
                       instead (answers {"sent": bytes})
  close                close every connection held; answers {}

pipeline takes "more": true to start streams (held, never read).
"""
import json
import os
import select
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Conn  # noqa: E402


def main():
    sock = sys.argv[1]
    held = []
    for line in sys.stdin:
        cmd = json.loads(line)
        op = cmd["op"]
        out = {}
        if op == "connect":
            n_ok, errors = 0, []
            for _ in range(cmd["n"]):
                try:
                    c = Conn(sock, timeout=10)
                except OSError as e:
                    errors.append(str(e))
                    continue
                held.append(c)
                try:
                    c.send("io.statsd.Hello", {})
                except OSError:
                    pass    # refused: its error is waiting to be read
                try:
                    r = c.recv()
                except OSError as e:
                    r = {"error": str(e)}
                if isinstance(r, dict) and "error" not in r:
                    n_ok += 1
                else:
                    errors.append(r)
            out = {"ok": n_ok, "errors": errors[:1], "refused": len(errors)}
        elif op == "pipeline":
            call = {"method": cmd["method"],
                    "parameters": cmd.get("parameters", {})}
            if cmd.get("more"):
                call["more"] = True
            msg = json.dumps(call)
            msg = msg.encode() + b"\0"
            sent = 0
            for _ in range(cmd["n"]):
                c = Conn(sock, timeout=10)
                held.append(c)
                c.sock.setblocking(False)
                for _ in range(cmd["calls"]):
                    try:
                        sent += c.sock.send(msg)
                    except (BlockingIOError, OSError):
                        break
            out = {"sent": sent}
        elif op == "calls":
            c = Conn(sock, timeout=60)
            replies = []
            for m, p in cmd["calls"]:
                try:
                    c.send(m, p)
                    replies.append(c.recv())
                except OSError as e:
                    replies.append({"error": "socket: %s" % e})
                    break
            c.close()
            out = {"replies": replies}
        elif op == "pages":
            # Each call walked to its end: a reply with a cursor is
            # followed by the same call from that cursor, its kstats,
            # templates and text added up.
            c = Conn(sock, timeout=60)
            replies = []
            for m, p in cmd["calls"]:
                try:
                    r = c.call(m, p)
                    while "cursor" in r.get("parameters", {}):
                        n = c.call(m, dict(p, cursor=r["parameters"][
                            "cursor"]))
                        if "error" in n:
                            r = n
                            break
                        for key in ("kstats", "flat", "templates"):
                            if key in r["parameters"]:
                                r["parameters"][key] += n["parameters"].get(
                                    key, [])
                        if "list" in r["parameters"]:
                            r["parameters"]["list"] = ",".join(
                                x for x in (r["parameters"]["list"],
                                            n["parameters"].get("list", ""))
                                if x)
                        if "text" in r["parameters"]:
                            r["parameters"]["text"] += n["parameters"].get(
                                "text", "")
                        r["parameters"]["pages"] = r["parameters"].get(
                            "pages", 1) + 1
                        if "cursor" in n["parameters"]:
                            r["parameters"]["cursor"] = n["parameters"][
                                "cursor"]
                        else:
                            del r["parameters"]["cursor"]
                    replies.append(r)
                except OSError as e:
                    replies.append({"error": "socket: %s" % e})
                    break
            c.close()
            out = {"replies": replies}
        elif op == "flood":
            conns = [Conn(sock, timeout=60) for _ in range(cmd["n"])]
            for c in conns:
                c.sock.sendall(b"\0" * cmd["bytes"])
            if not cmd.get("read", True):
                held += conns
                print(json.dumps({"sent": cmd["n"] * cmd["bytes"]}),
                      flush=True)
                continue
            # Every connection read as its replies come, so that none
            # waits unread for the idle time-out.
            got = {c.sock: 0 for c in conns}
            total = 0
            while got:
                ready, _, _ = select.select(list(got), [], [], 60)
                if not ready:
                    break
                for sk in ready:
                    data = sk.recv(1 << 20)
                    got[sk] += data.count(b"\0")
                    if not data or got[sk] >= cmd["bytes"]:
                        total += got.pop(sk)
            total += sum(got.values())
            for c in conns:
                c.close()
            out = {"replies": total}
        elif op == "close":
            for c in held:
                try:
                    c.sock.close()
                except OSError:
                    pass
            held = []
        print(json.dumps(out), flush=True)
    for c in held:
        try:
            c.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


if __name__ == "__main__":
    main()
