#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# tdigest_vs_npm.sh: statsd's t-digest next to an independent one, the npm
# `tdigest` package (Dunning's t-digest as Will Welch wrote it), on the
# same data at equal size: the accuracy tables of docs/tdigest.md.
#
# The package is installed into a temporary directory, removed at exit;
# nothing is installed in the checkout. Needs node and npm, and the npm
# registry. A run takes several minutes (npm's compression is searched for
# each data set, in JavaScript).
#
# usage: sh tests/bench/tdigest_vs_npm.sh [BUILDDIR [RUNS]]
set -eu

build=${1:-build}
runs=${2:-3}
here=$(cd "$(dirname "$0")" && pwd)
bench=$build/tests/bench/bench_tdigest

for tool in node npm; do
	command -v "$tool" >/dev/null 2>&1 || {
		echo "tdigest_vs_npm.sh: needs $tool" >&2
		exit 1
	}
done
[ -x "$bench" ] || {
	echo "tdigest_vs_npm.sh: no $bench (build first)" >&2
	exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
npm install --prefix "$tmp" --no-save --no-package-lock --no-audit \
    --no-fund --silent tdigest@0.1.3 >/dev/null
echo "load: $(uptime)"
"$bench" npm "$here/tdigest_npm.js" "$tmp" "$runs"
