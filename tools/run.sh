#!/bin/sh
# run.sh: build statsd and run it, in the foreground, with its built-in
# defaults, on a runtime directory under the checkout (./.runtime), with a
# demo producer feeding it (examples/demo_producer.c), so that statsctl
# shows live data. statsd, statsctl, the library and the manual pages are
# installed into ./.runtime/prefix, so that one export line (printed
# below, and kept in ./.runtime/env) makes `statsctl` and `man statsctl`
# work from any directory.
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
# Shell-quoted, so a checkout path with spaces still works.
q() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
env_line="export PATH=$(q "$prefix/bin"):\"\$PATH\" \
STATSD_SOCKET=$(q "$rt/statsd.sock") MANPATH=$(q "$prefix/share/man"):"
printf '%s\n' "$env_line" >"$rt/env"

# The demo waits for the socket, and exits with statsd.
"$top/build-run/examples/demo_producer" "$rt/statsd.sock" \
    --exit-with-parent >"$rt/demo.log" 2>&1 &
cat <<MSG
statsd: socket $rt/statsd.sock, demo producer log $rt/demo.log
In another terminal, from any directory:
  $env_line
  statsctl show demo
  statsctl watch demo
  statsctl hist demo:0:web
MSG
# /dev/null as the configuration: the built-in defaults, whatever
# /etc holds.
exec "$prefix/sbin/statsd" --foreground --config /dev/null \
    --runtime-dir "$rt" --state-dir "$rt/state"
