#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# deps.sh: install what building and testing statsd needs, from Debian's
# packages, without prompting (Go and the reference varlink library only
# build test_varlink_go.py's client; python3-statsd is test_statsd.py's
# statsd client; binutils' nm reads the objects for tests/build/layers.py;
# python3-dev builds the Python module statsclient, and gunicorn serves
# examples/gunicorn_app.py for test_gunicorn.py and tools/run.sh, as
# uWSGI (uwsgi-core with its python3 plugin) does for test_uwsgi.py;
# protoc-c makes the C of Prometheus' metrics.proto, from the client
# model's package, with libprotobuf-dev's timestamp.proto it imports, for
# the protobuf exposition). The benchmarks' peers (netdata-core,
# collectd-core, Etsy statsd from npm) are not needed by any test: the
# benchmarks measure whichever of them is installed.
# Does nothing when everything is present, so the Quick start commands are
# cheap to re-run.
set -eu

PKGS="gcc libc6-dev binutils meson ninja-build pkg-config python3 git
libevent-dev libjansson-dev libsystemd-dev check libck-dev
clang libclang-rt-14-dev llvm systemd util-linux procps socat
groff-base mandoc golang-go golang-github-varlink-go-dev varlink-go
python3-prometheus-client prometheus zlib1g-dev
python3-statsd python3-dev gunicorn uwsgi-core uwsgi-plugin-python3
libprotobuf-c-dev protobuf-c-compiler libprotobuf-dev
golang-github-prometheus-client-model-dev"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
	    grep -q '^install ok installed$'; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "deps.sh: missing packages:$missing" >&2
	echo "deps.sh: run as root, or: sudo apt-get install$missing" >&2
	exit 1
fi
echo "deps.sh: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
