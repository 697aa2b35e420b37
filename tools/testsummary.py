#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Sum up meson test logs: every Check test case counts, and every test
that is not a Check suite counts as one. A build directory whose build
failed (tools/test.sh writes "failed" to its build-status until the build
succeeds), or that has no test log, counts as one failure. Directories
after --compile-only are builds without tests: each counts as one test,
passed if it compiled. Prints "N passed, N failed"; exits 1 on any
failure."""
import json
import os
import re
import sys

CHECK = re.compile(r"(\d+)%: Checks: (\d+), Failures: (\d+), Errors: (\d+)")


def tally(logfile):
    passed = failed = 0
    bad = []
    with open(logfile, encoding="utf-8", errors="replace") as f:
        for line in f:
            t = json.loads(line)
            ok = t.get("result") in ("OK", "EXPECTEDFAIL", "SKIP")
            m = None
            for m in CHECK.finditer(t.get("stdout") or ""):
                pass
            if m:
                n, fl, er = int(m.group(2)), int(m.group(3)), int(m.group(4))
                passed += n - fl - er
                failed += fl + er
                if not ok and fl + er == 0:
                    failed += 1     # crashed or timed out after its report
            elif t.get("result") != "SKIP":
                passed += ok
                failed += not ok
            if not ok:
                bad.append(t.get("name"))
    return passed, failed, bad


def built(d):
    """Whether tools/test.sh saw d's build succeed."""
    try:
        with open(os.path.join(d, "build-status"), encoding="utf-8") as f:
            return f.read().strip() == "ok"
    except OSError:
        return False


def main():
    tp = tf = 0
    compile_only = False
    for d in sys.argv[1:]:
        if d == "--compile-only":
            compile_only = True
            continue
        if not built(d):
            print(f"{d}: build failed")
            tf += 1
            continue
        if compile_only:
            print(f"{d}: compiled")
            tp += 1
            continue
        log = os.path.join(d, "meson-logs", "testlog.json")
        if not os.path.exists(log):
            print(f"{d}: no test log")
            tf += 1
            continue
        p, f, bad = tally(log)
        tp += p
        tf += f
        print(f"{d}: {p} passed, {f} failed" +
              (f" ({', '.join(bad)})" if bad else ""))
    print(f"{tp} passed, {tf} failed")
    return 1 if tf else 0


if __name__ == "__main__":
    sys.exit(main())
