# SPDX-License-Identifier: BSD-2-Clause
"""test_man_examples.py: every EXAMPLES section of the manual pages works
as written.

- statsctl(8): each `$ ` command runs, through bash with the installed
  names on PATH, against a statsd fed by the demo producer, as the
  README's Quick start sets them up; the output lines the page shows have
  the same shape as the real ones (the same names in the same columns).
- statsd(8): the daemon command line starts a statsd in a scratch
  directory, and the socat call gets a reply from it.
- statsd.conf(5): the sample configuration passes --check-config.
- The section 3 pages: each C example compiles with the documented
  pkg-config line against the uninstalled library and runs to success
  against the daemon. A fragment is wrapped in main() with the public
  headers; CONTEXT below gives the few declarations a fragment takes from
  its page's prose or from the example before it.

Plain builds only for the C part: a program built with plain cc cannot
link a sanitized library.
"""
import os
import re
import shutil
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import (DEADLINE, SRCDIR, STATSD, Daemon, check,  # noqa: E402
                     finish, mkdtemp, wait_for)

STATSCTL = os.environ["STATSCTL"]
DEMO = os.environ["DEMO_PRODUCER"]
BUILD = os.environ["STATSD_BUILDDIR"]
SANITIZED = os.environ.get("STATSD_SANITIZED", "none") != "none"
MAN = os.path.join(SRCDIR, "man")


def examples(page):
    """The EXAMPLES section of a page as a list of blocks: ('literal',
    text) for .Bd -literal ... .Ed and ('line', text) for .Dl."""
    with open(os.path.join(MAN, page), encoding="utf-8") as f:
        src = f.read()
    m = re.search(r"^\.Sh EXAMPLES\n(.*?)^\.Sh ", src, re.S | re.M)
    if not m:
        return []
    out, cur = [], None
    for line in m.group(1).splitlines():
        if line.startswith(".Bd -literal"):
            cur = []
        elif line.startswith(".Ed") and cur is not None:
            out.append(("literal", "\n".join(cur)))
            cur = None
        elif cur is not None:
            cur.append(roff_text(line))
        elif line.startswith(".Dl "):
            out.append(("line", roff_text(line[4:])))
    return out


def roff_text(line):
    """What roff prints for a literal line: \\e is a backslash, \\& is
    nothing."""
    return line.replace("\\&", "").replace("\\e", "\\")


def shell_commands(block):
    """The `$ ` commands of a block (with their continuation lines), each
    with the output lines the page shows after it."""
    cmds = []
    lines = block.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("$ "):
            cmd = line[2:]
            while cmd.endswith("\\") and i + 1 < len(lines):
                i += 1
                cmd = cmd[:-1] + lines[i]
            cmds.append([cmd, []])
        elif cmds and line.strip() and line.strip() != "...":
            cmds[-1][1].append(line)
        i += 1
    return cmds


# -------------------------------------------------------------- statsctl(8)

d = Daemon().start()
os.chmod(d.run, 0o755)
demo = harness.spawn([DEMO, d.sock], stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL)
wait_for(lambda: "demo:0:web" in subprocess.run(
    [STATSCTL, "--socket", d.sock, "show", "-p", "demo:0:web:class"],
    capture_output=True, text=True).stdout, "the demo producer's kstat")
# Some data in every statistic the examples read.
wait_for(lambda: "requests.sum" in subprocess.run(
    [STATSCTL, "--socket", d.sock, "show", "-p", "demo"],
    capture_output=True, text=True).stdout, "the demo's first updates")

# An I/O kstat, as a disk driver would make it, for the iostat example.
c = d.conn()
disk = c.call("io.statsd.TemplateAdd", {"name": "DISK", "vois": [
    {"id": 0, "name": "io", "dtype": "INT_S64", "stats": [{"kind": "IOQ"}]}]})
check("parameters" in disk, "TemplateAdd DISK: %s" % disk)
made = c.call("io.statsd.KstatCreate", {
    "module": "sd", "instance": 0, "name": "sd0", "class": "disk",
    "type": "IO", "template": disk["parameters"]["template"]["spec"]})
check("parameters" in made, "KstatCreate sd:0:sd0: %s" % made)
c.close()

work = mkdtemp()
env = dict(os.environ, STATSD_SOCKET=d.sock,
           PATH=os.path.dirname(STATSCTL) + ":" + os.environ["PATH"])


def shape(line):
    """A line's shape: its words, with numbers and bars made generic."""
    words = re.split(r"\s+", line.strip())
    return [re.sub(r"^[-+]?\d+(\.\d+)?$", "N", re.sub(r"^\|@+$", "|@", w))
            for w in words if w]


n = 0
for kind, block in examples("statsctl.8"):
    for cmd, shown in shell_commands(block) if kind == "literal" else \
            [[block[2:], []]] if block.startswith("$ ") else []:
        n += 1
        # `watch`, and `iostat` with an interval and no count, run until
        # interrupted.
        forever = (re.match(r"statsctl watch\b", cmd) and
                   " -n " not in cmd) or (
            re.match(r"statsctl iostat\b.* [\d.]+$", cmd) and
            not re.search(r" [\d.]+ \d+$", cmd))
        if forever:
            # `watch` runs until interrupted: interrupt it as a user would.
            p = harness.spawn(["bash", "-c", cmd], cwd=work, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, start_new_session=True)
            try:
                out, err = p.communicate(timeout=2.5)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGINT)
                out, err = p.communicate(timeout=DEADLINE)
            ok_rc = p.returncode in (0, -signal.SIGINT, 130)
        else:
            p = harness.run(["bash", "-c", cmd], cwd=work, env=env,
                            capture_output=True, text=True, timeout=DEADLINE)
            out, err, ok_rc = p.stdout, p.stderr, p.returncode == 0
        check(ok_rc and err == "", "statsctl(8) example `%s`: exit %s, "
              "stderr %r" % (cmd, p.returncode, err))
        check(out.strip() != "" or not shown,
              "statsctl(8) example `%s` printed something" % cmd)
        real = [shape(x) for x in out.splitlines()]
        for want in shown:
            check(shape(want) in real, "statsctl(8) example `%s`: a line "
                  "shaped like %r in:\n%s" % (cmd, want, out[:2000]))
check(n >= 6, "statsctl(8) has its examples (%d)" % n)
check(os.path.getsize(os.path.join(work, "web.json")) > 0,
      "the snapshot example wrote web.json")

# ----------------------------------------------------------------- statsd(8)

blocks = [b for k, b in examples("statsd.8") if k == "literal"]
check(len(blocks) == 2, "statsd(8) has its two examples")
scratch = mkdtemp()
sbin = mkdtemp()
os.symlink(STATSD, os.path.join(sbin, "statsd"))
senv = dict(os.environ, PATH=sbin + ":" + os.environ["PATH"])
daemon = harness.spawn(["bash", "-c", "exec " + blocks[0].strip()],
                       cwd=scratch, env=senv, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)


def answers():
    """The example daemon answers a call. Its socket file appears at
    bind(2), before listen(2) and before statsd serves, and the example's
    socat waits only half a second for a reply after its input ends: the
    example runs once statsd answers, as a user would run it."""
    try:
        c = harness.Conn(os.path.join(scratch, ".runtime", "statsd.sock"),
                         timeout=2)
        try:
            return "error" not in c.call("io.statsd.Hello", {})
        finally:
            c.close()
    except OSError:
        return False


wait_for(answers, "the statsd(8) example daemon to answer")
p = harness.run(["bash", "-c", blocks[1]], cwd=scratch, env=senv,
                capture_output=True, timeout=DEADLINE)
check(p.returncode == 0 and b'"parameters"' in p.stdout and
      b'"version"' in p.stdout,
      "statsd(8) socat example answers: %r %r" % (p.stdout[:300], p.stderr))
daemon.send_signal(signal.SIGTERM)
check(daemon.wait(timeout=DEADLINE) == 0, "the example daemon stops")

# ------------------------------------------------------------ statsd.conf(5)

conf = os.path.join(mkdtemp(), "statsd.conf")
for kind, block in examples("statsd.conf.5"):
    with open(conf, "w") as f:
        f.write(block + "\n")
    p = harness.run([STATSD, "--check-config", "--config", conf],
                    capture_output=True, text=True, timeout=DEADLINE)
    check(p.returncode == 0, "statsd.conf(5) example passes --check-config: "
          + p.stderr)

# ---------------------------------------------------------- section 3 pages

HEADERS = ("#include <inttypes.h>\n#include <stdint.h>\n#include <stdio.h>\n"
           "#include <statsd/client.h>\n#include <statsd/kstat.h>\n"
           "#include <statsd/statistic.h>\n#include <statsd/stats.h>\n")
# What a fragment takes from its page: (page, index of the C block).
CONTEXT = {
    # "Updating that blob": the blob of the program before it.
    ("stats.3", 1): """
	struct voistatspec vss0[] = { STATS_VSS_MIN() };
	struct voistatspec vss2[] = { STATS_VSS_SUM(), STATS_VSS_MAX() };
	int id = stats_tpl_alloc("EXAMPLE", 0);
	struct statsblob *sb;

	stats_tpl_add_voistats(id, 0, "", VSD_DTYPE_INT_S64, NVSS(vss0), vss0,
	    SB_VOI_RELUPDATE);
	stats_tpl_add_voistats(id, 2, "", VSD_DTYPE_INT_U32, NVSS(vss2), vss2,
	    0);
	sb = stats_blob_alloc(id, 0);
""",
    # "... statistic_inc(lat, elapsed_ms)": a time measured elsewhere.
    ("statistic.3", 0): "\tint64_t elapsed_ms = 3;\n",
}
# What a fragment's comments say it prints.
PRINTS = {("stats.3", 1): "min -5\n"}

if SANITIZED:
    print("section 3 examples: skipped in a sanitized build")
else:
    cc = shutil.which("cc")
    cenv = dict(os.environ, PKG_CONFIG_PATH=os.path.join(
        BUILD, "meson-uninstalled"), STATSD_SOCKET=d.sock,
        LD_LIBRARY_PATH=os.path.join(BUILD, "src", "client"))
    flags = subprocess.run(["pkg-config", "--cflags", "--libs",
                            "libstatsclient"], env=cenv, check=True,
                           capture_output=True, text=True).stdout.split()
    cdir = mkdtemp()
    for page in ("stats.3", "kstat.3", "statistic.3", "libstatsclient.3"):
        cblocks = [b for k, b in examples(page) if k == "literal"]
        check(cblocks, "%s has C examples" % page)
        for i, code in enumerate(cblocks):
            code = "\n".join(x for x in code.splitlines()
                             if x.strip() != "...")
            if re.search(r"^main\(", code, re.M):
                prog = code
            else:
                body = "\n".join("\t" + x if x else x
                                 for x in code.splitlines())
                prog = "%s\nint\nmain(void)\n{\n%s\n%s\n\treturn 0;\n}\n" % (
                    HEADERS, CONTEXT.get((page, i), ""), body)
            src = os.path.join(cdir, "%s-%d.c" % (page, i))
            with open(src, "w") as f:
                f.write(prog)
            exe = src[:-2]
            p = harness.run([cc, "-std=c11", "-Wall", "-Werror",
                             "-Wno-unused-variable", "-o", exe, src] + flags,
                            env=cenv, capture_output=True, text=True,
                            timeout=DEADLINE * 2)
            if not check(p.returncode == 0, "%s example %d compiles:\n%s\n%s"
                         % (page, i, p.stderr[-3000:], prog)):
                continue
            p = harness.run([exe], env=cenv, capture_output=True, text=True,
                            timeout=DEADLINE)
            check(p.returncode == 0, "%s example %d runs: exit %d %s" % (
                page, i, p.returncode, p.stderr[-2000:]))
            want = PRINTS.get((page, i))
            if want is not None:
                check(want in p.stdout, "%s example %d prints %r: %r"
                      % (page, i, want, p.stdout))

demo.terminate()
d.stop()
finish()
