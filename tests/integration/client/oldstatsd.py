# SPDX-License-Identifier: BSD-2-Clause
"""oldstatsd.py: a statsd as an older one answers, for libstatsclient's
tests: a proxy on a Unix socket of its own that passes every call and
reply (and the descriptors that come with them) between its clients and
a real statsd, except a KstatCreate with parameters an older statsd
does not know (brief, definitions), which it refuses as that statsd's
parameter check does: org.varlink.service.InvalidParameter naming the
first of them."""
import array
import json
import os
import socket
import threading

NEW_CREATE = ("brief", "definitions")
MAX_FDS = 16


def _recv(s):
    fds = array.array("i")
    data, anc, _, _ = s.recvmsg(65536, socket.CMSG_SPACE(
        MAX_FDS * fds.itemsize))
    for level, kind, raw in anc:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(raw[:len(raw) - len(raw) % fds.itemsize])
    return data, list(fds)


def _send(s, data, fds):
    anc = ([(socket.SOL_SOCKET, socket.SCM_RIGHTS,
             array.array("i", fds).tobytes())] if fds else [])
    s.sendmsg([data], anc)
    for fd in fds:
        os.close(fd)


class OldStatsd:
    """Listen on path; serve each client through its own connection to
    statsd at upstream. refused counts the calls it refused."""

    def __init__(self, path, upstream):
        self.path = path
        self.upstream = upstream
        self.refused = 0
        self.lock = threading.Lock()
        self.ls = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.ls.bind(path)
        self.ls.listen(16)
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self):
        self.ls.close()

    def _accept(self):
        while True:
            try:
                c, _ = self.ls.accept()
            except OSError:
                return
            u = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            u.connect(self.upstream)
            # Replies both ways go out under one lock: the proxy's own
            # refusals never cut into a reply being passed on.
            wlock = threading.Lock()
            threading.Thread(target=self._down, args=(u, c, wlock),
                             daemon=True).start()
            threading.Thread(target=self._up, args=(c, u, wlock),
                             daemon=True).start()

    def _down(self, u, c, wlock):
        """statsd's replies, as they come, to the client."""
        try:
            while True:
                data, fds = _recv(u)
                if not data:
                    break
                with wlock:
                    _send(c, data, fds)
        except OSError:
            pass
        c.close()

    def _up(self, c, u, wlock):
        """The client's calls, one message at a time, to statsd."""
        buf, held = b"", []
        try:
            while True:
                data, fds = _recv(c)
                if not data:
                    break
                buf += data
                held += fds
                while b"\0" in buf:
                    msg, buf = buf.split(b"\0", 1)
                    call = json.loads(msg)
                    params = call.get("parameters") or {}
                    new = [k for k in params if k in NEW_CREATE]
                    if call.get("method") == "io.statsd.KstatCreate" and new:
                        with self.lock:
                            self.refused += 1
                        err = {"error": "org.varlink.service."
                               "InvalidParameter",
                               "parameters": {"parameter": new[0]}}
                        with wlock:
                            _send(c, json.dumps(err).encode() + b"\0", [])
                        continue
                    _send(u, msg + b"\0", held)
                    held = []
        except OSError:
            pass
        u.close()
