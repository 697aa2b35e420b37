#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# run.sh: build statsd and run it, in the foreground, with its built-in
# defaults, on a runtime directory under the checkout (./.runtime), with a
# demo producer feeding it (examples/demo_producer.c), so that statsctl
# shows live data, and, where gunicorn is installed, the Python example
# application (examples/gunicorn_app.py, two workers on 127.0.0.1:8123,
# or $STATSD_DEMO_HTTP) whose metrics appear in statsd's /metrics. statsd,
# statsctl, the library, the Python module statsclient and the manual
# pages are installed into ./.runtime/prefix, so that one export line
# (printed below, and kept in ./.runtime/env) makes `statsctl`,
# `man statsctl` and `import statsclient` work from any directory.
# Stop it with Ctrl-C.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
sh tools/deps.sh

rt="$top/.runtime"
prefix="$rt/prefix"
if [ -f build-run/build.ninja ]; then
	meson setup --reconfigure build-run --prefix="$prefix" >/dev/null
else
	meson setup build-run -Dtests=false -Dbench=false \
	    --prefix="$prefix" >/dev/null
fi
ninja -C build-run >/dev/null
meson install -C build-run --quiet >/dev/null

mkdir -p "$rt/state"
# Where meson installed the Python module (the interpreter's own layout
# under the prefix: lib/python3/dist-packages on Debian).
pymod=$(find "$prefix" -name '_statsclient*.so' 2>/dev/null | head -n 1)
pypath=${pymod:+$(dirname "$(dirname "$pymod")")}
# Shell-quoted, so a checkout path with spaces still works.
q() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
env_line="export PATH=$(q "$prefix/bin"):\"\$PATH\" \
STATSD_SOCKET=$(q "$rt/statsd.sock") MANPATH=$(q "$prefix/share/man"):"
if [ -n "$pypath" ]; then
	env_line="$env_line PYTHONPATH=$(q "$pypath")\${PYTHONPATH:+:\$PYTHONPATH}"
fi
printf '%s\n' "$env_line" >"$rt/env"

# The demo waits for the socket, and exits with statsd.
"$top/build-run/examples/demo_producer" "$rt/statsd.sock" \
    --exit-with-parent >"$rt/demo.log" 2>&1 &
web=""
if [ -n "$pypath" ] && command -v gunicorn >/dev/null; then
	# Exits with statsd, as the demo does (this shell becomes statsd).
	http=${STATSD_DEMO_HTTP:-127.0.0.1:8123}
	STATSD_SOCKET="$rt/statsd.sock" PYTHONPATH="$pypath" \
	    setpriv --pdeathsig TERM gunicorn --workers 2 --preload \
	    --bind "$http" --chdir "$top/examples" gunicorn_app:app \
	    >"$rt/gunicorn.log" 2>&1 &
	web="
Python example app (examples/gunicorn_app.py, log $rt/gunicorn.log):
  curl http://$http/a; curl -s http://127.0.0.1:18125/metrics | grep ^app_"
fi
cat <<MSG
statsd: socket $rt/statsd.sock, demo producer log $rt/demo.log
In another terminal, from any directory:
  $env_line
  statsctl show demo
  statsctl watch demo
  statsctl hist demo:0:web$web
MSG
# /dev/null as the configuration: the built-in defaults, whatever
# /etc holds.
exec "$prefix/sbin/statsd" --foreground --config /dev/null \
    --runtime-dir "$rt" --state-dir "$rt/state"
