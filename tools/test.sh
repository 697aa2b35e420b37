#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# test.sh: the whole test suite, as the README's Quick start runs it.
#
# Installs what is missing, then builds twice, once with warnings as errors
# and once with AddressSanitizer and UndefinedBehaviorSanitizer, and runs
# every `meson test` in both; compiles an optimised -Werror build; then
# builds the concurrency code under ThreadSanitizer and runs its tests.
# Ends with one line, "N passed, N failed", counting every Check test case (and every test that
# is not a Check suite as one, and a build that does not compile as one
# failure), and exits non-zero on any failure.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
sh tools/deps.sh

jobs=$(nproc 2>/dev/null || echo 2)
status=0

setup() {	# dir, meson options...
	dir=$1
	shift
	mkdir -p "$dir"
	# Nothing from an earlier run may count for this one.
	rm -f "$dir/meson-logs/testlog.json"
	echo failed >"$dir/build-status"
	if [ -f "$dir/build.ninja" ]; then
		meson setup --reconfigure "$dir" "$@" >"$dir/setup.log" 2>&1
	else
		meson setup "$dir" "$@" >"$dir/setup.log" 2>&1
	fi || {
		tail -n 40 "$dir/setup.log"
		echo "== $dir: meson setup FAILED"
		status=1
		return 1
	}
}

build() {	# dir, description
	if ! ninja -C "$1" -j "$jobs" >"$1/build.log" 2>&1; then
		tail -n 40 "$1/build.log"
		echo "== $2: build FAILED"
		status=1
		return 1
	fi
	echo ok >"$1/build-status"
}

run_build() {	# dir, description, meson test args...
	dir=$1
	what=$2
	shift 2
	echo "== $what ($dir)"
	build "$dir" "$what" || return 0
	if ! meson test -C "$dir" --print-errorlogs --num-processes "$jobs" \
	    "$@"; then
		status=1
	fi
}

export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1:strict_string_checks=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1"

setup build-werror -Dwerror=true -Dbuildtype=debugoptimized &&
    run_build build-werror "gcc -Werror" || :

setup build-asan -Dwerror=true -Db_sanitize=address,undefined \
    -Db_lundef=false -Dbuildtype=debug &&
    run_build build-asan "ASan+UBSan" || :

# An optimised build: -O3 inlining finds warnings the others do not.
# Compiled only (it counts as one test); the tests above cover its code.
echo "== gcc -O3 -Werror (build-release)"
# (build records the failure in $status; `|| :` keeps set -e from ending
# the script before the summary.)
setup build-release -Dwerror=true -Dbuildtype=release &&
    build build-release "gcc -O3 -Werror" || :

# The lock-free ring and the seqlock store, under ThreadSanitizer.
setup build-tsan -Dwerror=true -Db_sanitize=thread -Dbuildtype=debug \
    -Dbench=false &&
    run_build build-tsan "TSan" --suite tsan || :

python3 tools/testsummary.py build-werror build-asan build-tsan \
    --compile-only build-release || status=1
exit "$status"
