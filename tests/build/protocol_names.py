#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""protocol_names.py: the control protocol's names are written once.

Every interface, method and error name of the varlink interface
definitions (src/daemon/proto/*.varlink) reaches C code only through the
generated varlink_names.h. This test reads the definitions, then every C
file of the tree outside the build directories, strips its comments
(documentation may name a method), and fails for each string literal that
holds one of those names, with the file and line. It also fails if a
definition declares nothing, so that it cannot pass by reading nothing,
and if docs/protocol.md's table of errors gives an error another errno
value than the definitions do, or leaves one out.

usage: protocol_names.py SOURCE_ROOT
"""
import os
import re
import sys

root = sys.argv[1]
idl_dir = os.path.join(root, "src", "daemon", "proto")
names, ifaces, errnos = set(), [], {}
for fn in sorted(os.listdir(idl_dir)):
    if not fn.endswith(".varlink"):
        continue
    with open(os.path.join(idl_dir, fn), encoding="utf-8") as f:
        raw = f.read()
    text = re.sub(r"#[^\n]*", "", raw)
    iface = re.search(r"\binterface\s+([\w.]+)", text).group(1)
    members = re.findall(r"\b(?:method|error)\s+(\w+)", text)
    if not members:
        sys.exit("%s declares no method or error" % fn)
    ifaces.append(iface)
    names.update(iface + "." + m for m in members)
    for m in re.finditer(r"# errno: (E\w+)\n(?:#[^\n]*\n)*error (\w+)", raw):
        errnos[iface + "." + m.group(2)] = m.group(1)
if len(ifaces) < 2:
    sys.exit("expected io.statsd and org.varlink.service, found %s" % ifaces)

# A string literal (with escapes), a character literal, or a comment.
LEXEME = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|'
                    r'/\*.*?\*/|//[^\n]*', re.S)
# A protocol name inside a literal: an interface name alone, or followed by
# a member name (or by a dot that a concatenated literal continues).
NAME = re.compile(r"(?<![\w.])(%s)(?:\.(\w*))?(?![\w])" %
                  "|".join(re.escape(i) for i in ifaces))

bad = []
checked = 0
for d, dirs, files in os.walk(root):
    rel = os.path.relpath(d, root)
    dirs[:] = [x for x in dirs if not x.startswith(("build", "."))
               and x != "subprojects"]
    for fn in files:
        if not fn.endswith((".c", ".h")):
            continue
        path = os.path.join(d, fn)
        with open(path, encoding="utf-8", errors="replace") as f:
            src = f.read()
        checked += 1
        for m in LEXEME.finditer(src):
            lit = m.group()
            if not lit.startswith('"'):
                continue
            for n in NAME.finditer(lit):
                line = src.count("\n", 0, m.start()) + 1
                bad.append("%s:%d: %s written by hand; use varlink_names.h"
                           % (os.path.join(rel, fn), line, n.group()))
if checked < 50:
    sys.exit("only %d C files found under %s" % (checked, root))
with open(os.path.join(root, "docs", "protocol.md"), encoding="utf-8") as f:
    documented = dict(re.findall(r"^\| `([\w.]+)` \| [^|]*\| `(E\w+)` \|",
                                 f.read(), re.M))
for name, e in sorted(errnos.items()):
    if name.endswith("MethodNotImplemented"):
        continue        # declared by varlink, never sent by statsd
    if documented.get(name) != e:
        bad.append("docs/protocol.md: %s is %s in the IDL, %s in the "
                   "table of errors" % (name, e, documented.get(name)))
for b in bad:
    print(b)
if bad:
    sys.exit(1)
print("ok: %d C files, %d protocol names, none written by hand" %
      (checked, len(names)))
