#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# manlint.sh SRCDIR: every manual page in man/ is clean under
# `groff -mandoc -ww -z` (no output at all) and under `mandoc -T lint`
# down to the STYLE level.  Cross-references are resolved against a
# private manual tree holding our own pages only: a reference to one of
# ours must resolve, and the only message allowed is "referenced manual
# not found" for a page we do not ship (FreeBSD's sbuf(9), illumos'
# kstat(1M), the system's own pages), which no manual tree here can hold.
set -eu
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
ours=""
for f in "$src"/man/*.[1-9]; do
	base=${f##*/}
	sec=${base##*.}
	mkdir -p "$tmp/man/man$sec"
	cp "$f" "$tmp/man/man$sec/"
	ours="$ours ${base%.*}($sec)"
done
makewhatis "$tmp/man" 2>/dev/null || true
for f in "$src"/man/*.[1-9]; do
	base=${f##*/}
	out=$(groff -mandoc -ww -z "$f" 2>&1) || true
	if [ -n "$out" ]; then
		printf 'groff -ww %s:\n%s\n' "$base" "$out"
		status=1
	fi
	out=$(cd "$src/man" && MANPATH="$tmp/man" mandoc -T lint -W style "$base" 2>&1 |
	    grep -v -e 'outdated mandoc.db' || true)
	bad=$(printf '%s\n' "$out" | while IFS= read -r line; do
		[ -n "$line" ] || continue
		case $line in
		*"referenced manual not found: Xr "*)
			ref=${line##*Xr }
			ref=${ref%% (*}
			name=${ref% *}
			sec=${ref#* }
			case " $ours " in
			*" $name($sec) "*) printf '%s\n' "$line" ;;
			esac
			;;
		*) printf '%s\n' "$line" ;;
		esac
	done)
	if [ -n "$bad" ]; then
		printf 'mandoc -T lint %s:\n%s\n' "$base" "$bad"
		status=1
	fi
done
[ "$status" -eq 0 ] && echo "man pages: groff -ww and mandoc -T lint are clean"
exit "$status"
