#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# run.sh [SECONDS]: build each libFuzzer target with clang straight from the
# sources (so the library code is instrumented too) and run it for SECONDS
# (default 60) on a scratch copy of its seed corpus. New inputs stay in the
# scratch directory; crashes are written there as crash-*. Exits non-zero if
# a target fails to build or finds a crash. FUZZ_TARGETS picks targets;
# `run.sh --list` prints them all.
set -eu
all="ring store text spill checkpoint line rx varlink json"
if [ "${1:-}" = "--list" ]; then
	echo "$all"
	exit 0
fi
secs=${1:-60}
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${FUZZ_OUT:-$top/build-fuzz}
cc=${FUZZ_CC:-}
if [ -z "$cc" ]; then
	for c in clang clang-14 clang-15 clang-16; do
		if command -v "$c" >/dev/null 2>&1; then cc=$c; break; fi
	done
fi
if [ -z "$cc" ]; then
	echo "run.sh: clang not found (apt-get install clang libclang-rt-14-dev)" >&2
	exit 1
fi

# File lists come from the layout itself, so moving a file between layers
# never breaks this script: the ring and store targets take the shm layer
# (which knows nothing of the engine); the text and spill targets reach
# the whole engine, which sits on the shm layer, and take every layer.
# The shm layer checks its invariants with base/invariant.c.
# Every layer is an include directory, as in meson.build.
src="$top/src/common"
lib_ring="$(ls "$src"/shm/*.c | tr '\n' ' ') $src/base/invariant.c"
lib_store=$lib_ring
lib_text=$(ls "$src"/*/*.c | tr '\n' ' ')
lib_spill=$lib_text
# The line target is the statsd/DogStatsD parser alone.
lib_line="$src/model/statsd_line.c"
# The rx target is the pattern engine alone, against glibc's.
lib_rx="$src/base/rx.c"
# The json target is the control socket's reader and writer, against
# jansson's.
lib_json="$src/render/jload.c $src/render/jdump.c"
# The checkpoint target is statsd's start: the checkpoint and what it
# restores into (the registry, runtime files, journal, quotas), with the
# protocol's generated names and the daemon's libraries.
# The daemon is laid out in folders by role; a module is found by its name.
dmn="$top/src/daemon"
lib_checkpoint="$lib_text $(for f in checkpoint ck_frame ck_record ck_log \
	ck_kstat ck_pass ck_load registry pub kindex tpldef quota zones config log \
	mirror journal crashpoint syncer; do
	find "$dmn" -name "$f.c"; done |
	tr '\n' ' ')"
# The varlink target is statsd without its datagram sockets' threads
# and HTTP listener: every daemon module but main.c, with the
# interface descriptions embedded as meson embeds them.
lib_varlink="$lib_text $(find "$dmn" -name '*.c' ! -name main.c |
	sort | tr '\n' ' ')"
dmn_incs=$(for d in "$dmn" "$dmn"/*/; do printf -- '-I%s ' "${d%/}"; done)
libs_checkpoint="-ljansson -levent -lz -lpthread"
libs_varlink=$libs_checkpoint
# Every layer holds render/jdump.c and render/jload.c, which use jansson.
libs_text="-ljansson"
libs_spill=$libs_text
libs_json=$libs_text
incs=$(for d in "$src"/*/; do printf -- '-I%s ' "${d%/}"; done)
flags="-std=c11 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
	-I$top/include $incs"
# store images are 8 KiB; larger ones only slow the search
maxlen_ring=4096
maxlen_store=16384
maxlen_text=4096
maxlen_spill=32768
# a datagram (statsd reads at most 64 KiB)
maxlen_line=8192
# a few records; a blob's base64 is up to 88 KiB, most are far smaller
maxlen_checkpoint=16384
# a pattern (at most 1 KiB) and a subject
maxlen_rx=2048
# a message (the fast reader's cases are all short)
maxlen_json=8192
# a connection's calls; messages are bounded by max_message_size
maxlen_varlink=65536

mkdir -p "$out"
status=0
for t in ${FUZZ_TARGETS:-$all}; do
	# shellcheck disable=SC2086
	eval lib=\$lib_$t
	eval libs=\${libs_$t:-}
	extra=
	if [ "$t" = checkpoint ] || [ "$t" = varlink ]; then
		# The daemon's sources need the names generated from the
		# interface definitions, as meson makes them.
		mkdir -p "$out/gen"
		python3 "$dmn/proto/varlinkgen.py" "$out/gen/varlink_names.h" \
		    "$out/gen/varlink_names.c" \
		    "$dmn/proto/org.varlink.service.varlink" \
		    "$dmn/proto/io.statsd.varlink" || status=1
		extra="$dmn_incs -I$out/gen $out/gen/varlink_names.c"
	fi
	if [ "$t" = varlink ]; then
		python3 "$dmn/proto/embed.py" varlink_idl_io_statsd \
		    "$dmn/proto/io.statsd.varlink" "$out/gen/io_statsd.c" &&
		python3 "$dmn/proto/embed.py" varlink_idl_org_varlink_service \
		    "$dmn/proto/org.varlink.service.varlink" \
		    "$out/gen/org_varlink_service.c" || status=1
		extra="$extra $out/gen/io_statsd.c $out/gen/org_varlink_service.c"
	fi
	# shellcheck disable=SC2086
	if ! $cc $flags $extra "$top/tests/fuzz/fuzz_$t.c" $lib -lm $libs \
	    -o "$out/fuzz_$t"; then
		echo "== fuzz_$t: build FAILED"
		status=1
		continue
	fi
	work="$out/corpus-$t"
	mkdir -p "$work"
	eval maxlen=\$maxlen_$t
	echo "== fuzz_$t: ${secs}s"
	if ! "$out/fuzz_$t" -max_total_time="$secs" -max_len="$maxlen" \
	    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	    -artifact_prefix="$out/" "$work" "$top/tests/fuzz/corpus/$t" \
	    >"$out/fuzz_$t.log" 2>&1; then
		tail -n 60 "$out/fuzz_$t.log"
		echo "== fuzz_$t: FAILED (log: $out/fuzz_$t.log)"
		status=1
		continue
	fi
	grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "$out/fuzz_$t.log" || true
	echo "== fuzz_$t: ok"
done
exit $status
