#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# pkgconfig.sh BUILDDIR SRCDIR: the library as a user meets it. A program
# written from the stats(3) SYNOPSIS builds with the documented command
# against the uninstalled pkg-config file and behaves as the page says;
# the shared object has the right SONAME and exports only public names.
set -eu
build=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

export PKG_CONFIG_PATH="$build/meson-uninstalled"
cflags=$(pkg-config --cflags libstatsclient)
libs=$(pkg-config --libs libstatsclient)
# shellcheck disable=SC2086
cc -std=c11 -Wall -Wextra -Werror -o "$tmp/prog" "$src/tests/build/synopsis.c" \
    $cflags $libs
libdir=$(pkg-config --variable=libdir libstatsclient 2>/dev/null || true)
LD_LIBRARY_PATH="$build/src/client${libdir:+:$libdir}" "$tmp/prog" >"$tmp/out"
sed 's/"tplhash":[0-9]*/"tplhash":HASH/' "$tmp/out" >"$tmp/out.norm"
diff -u "$src/tests/build/synopsis.expected" "$tmp/out.norm"

so="$build/src/client/libstatsclient.so.0"
soname=$(readelf -d "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libstatsclient.so.0" ] || {
	echo "SONAME is '$soname', want libstatsclient.so.0" >&2
	exit 1
}
bad=$(nm -D --defined-only "$so" | awk '{print $3}' |
    grep -Ev '^(stats_|sbuf_|kstat_|kstat2_|statistic_|STATSCLIENT_)' || true)
if [ -n "$bad" ]; then
	echo "non-public symbols exported:" >&2
	echo "$bad" >&2
	exit 1
fi
echo "1 passed, 0 failed"
