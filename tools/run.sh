#!/bin/sh
# run.sh: build statsd and run it — in the foreground, with its built-in
# defaults, on a runtime directory under the checkout (./.runtime) — with a
# demo producer feeding it (examples/demo_producer.c), so that statsctl
# shows live data.
# Stop it with Ctrl-C.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
sh tools/deps.sh

if [ -d build-run ]; then
	meson setup --reconfigure build-run >/dev/null
else
	meson setup build-run -Dtests=false -Dbench=false >/dev/null
fi
ninja -C build-run src/daemon/statsd examples/demo_producer \
    src/client/statsctl/statsctl >/dev/null

rt="$top/.runtime"
mkdir -p "$rt/state"
# The demo waits for the socket, and exits with statsd.
"$top/build-run/examples/demo_producer" "$rt/statsd.sock" \
    --exit-with-parent >"$rt/demo.log" 2>&1 &
cat <<MSG
statsd: socket $rt/statsd.sock, demo producer log $rt/demo.log
  from another terminal, in $top:
    export STATSD_SOCKET=$rt/statsd.sock
    build-run/src/client/statsctl/statsctl show demo
    build-run/src/client/statsctl/statsctl watch demo
    build-run/src/client/statsctl/statsctl hist demo:0:web
MSG
# /dev/null as the configuration: the built-in defaults, whatever
# /etc holds.
exec "$top/build-run/src/daemon/statsd" --foreground --config /dev/null \
    --runtime-dir "$rt" --state-dir "$rt/state"
