#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""varlinkgen.py: the protocol's names, generated from its interface
definitions so that statsd, libstatsclient and statsctl share one copy.

Usage: varlinkgen.py OUT.h OUT.c IDL...

From each varlink interface definition it takes the interface name, the
method names and the errors with their parameters. Each error's comment
must carry one line "# errno: ENAME": the errno value a C caller gets for
that error (libstatsclient returns it negated). The header defines

  VL_IFACE_<IFACE>   the interface name ("io.statsd": VL_IFACE_STATSD),
  VL_M_<METHOD>      each method's fully qualified name
                     ("io.statsd.TemplateAdd": VL_M_TEMPLATE_ADD),
  VL_ERR_<ERROR>     each error's fully qualified name,
  enum vl_err        VL_E_<ERROR> for each error, and VL_E_NUM,

and the C file the error table (name, parameters, errno) and its lookup.
Anything the generator does not understand stops the build with the file,
line and what was wrong.
"""
import re
import sys


class IdlError(Exception):
    pass


def tokens(text, path):
    """(kind, value, line, comments) for each token; comments is the list
    of comment lines directly above the token."""
    out, comments, line = [], [], 1
    pos = 0
    pat = re.compile(r"""
        (?P<nl>\n) | (?P<ws>[ \t\r]+) | (?P<comment>\#[^\n]*) |
        (?P<arrow>->) | (?P<punct>[(),:?\[\]]) | (?P<word>[A-Za-z_][\w.]*)
        """, re.X)
    while pos < len(text):
        m = pat.match(text, pos)
        if m is None:
            raise IdlError("%s:%d: unexpected %r" % (path, line, text[pos]))
        pos = m.end()
        kind = m.lastgroup
        if kind == "nl":
            line += 1
        elif kind == "comment":
            comments.append(m.group()[1:].strip())
        elif kind != "ws":
            out.append((kind, m.group(), line, comments))
            comments = []
    return out


def skip_parens(toks, i, path):
    """Index just past the balanced (...) that starts at toks[i]."""
    if toks[i][1] != "(":
        raise IdlError("%s:%d: expected '('" % (path, toks[i][2]))
    depth = 0
    while i < len(toks):
        if toks[i][1] == "(":
            depth += 1
        elif toks[i][1] == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise IdlError("%s: unbalanced parentheses" % path)


def top_fields(toks, i, j):
    """The names of the fields of the struct toks[i:j] ("(" ... ")")."""
    names, depth, want = [], 0, True
    for k in range(i, j):
        v = toks[k][1]
        if v == "(":
            depth += 1
            want = depth == 1
            continue
        if v == ")":
            depth -= 1
            continue
        if depth == 1 and v == ",":
            want = True
            continue
        if depth == 1 and want and toks[k][0] == "word":
            names.append(v)
            want = False
    return names


def parse(text, path):
    toks = tokens(text, path)
    if len(toks) < 2 or toks[0][1] != "interface":
        raise IdlError("%s: does not start with 'interface NAME'" % path)
    idl = {"interface": toks[1][1], "methods": [], "errors": []}
    i = 2
    while i < len(toks):
        kind, word, line, comments = toks[i]
        if word not in ("type", "method", "error") or i + 2 >= len(toks):
            raise IdlError("%s:%d: unexpected %r" % (path, line, word))
        name = toks[i + 1][1]
        if not re.fullmatch(r"[A-Z][A-Za-z0-9]*", name):
            raise IdlError("%s:%d: %r is not a member name" %
                           (path, line, name))
        j = skip_parens(toks, i + 2, path)
        if word == "method":
            if j >= len(toks) or toks[j][1] != "->":
                raise IdlError("%s:%d: method %s has no '->'" %
                               (path, line, name))
            idl["methods"].append(name)
            j = skip_parens(toks, j + 1, path)
        elif word == "error":
            errno = [c.split(":", 1)[1].strip() for c in comments
                     if c.startswith("errno:")]
            if len(errno) != 1 or not re.fullmatch(r"E[A-Z0-9]+", errno[0]):
                raise IdlError("%s:%d: error %s needs one comment line "
                               "'# errno: ENAME' (what a C caller gets)" %
                               (path, line, name))
            idl["errors"].append((name, top_fields(toks, i + 2, j),
                                  errno[0]))
        i = j
    return idl


def upper_snake(name):
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).upper()


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: varlinkgen.py OUT.h OUT.c IDL...")
    out_h, out_c, paths = sys.argv[1], sys.argv[2], sys.argv[3:]
    idls = []
    try:
        for p in paths:
            with open(p, encoding="utf-8") as f:
                idls.append(parse(f.read(), p))
    except (IdlError, OSError) as e:
        sys.exit("varlinkgen.py: %s" % e)
    sources = ", ".join(p.split("/")[-1] for p in paths)
    macros, errors = {}, []

    def define(macro, value):
        if macro in macros:
            sys.exit("varlinkgen.py: %s names both %s and %s" %
                     (macro, macros[macro], value))
        macros[macro] = value

    for idl in idls:
        iface = idl["interface"]
        define("VL_IFACE_" + upper_snake(iface.rsplit(".", 1)[1]), iface)
        for m in idl["methods"]:
            define("VL_M_" + upper_snake(m), iface + "." + m)
        for name, params, errno in idl["errors"]:
            define("VL_ERR_" + upper_snake(name), iface + "." + name)
            errors.append((upper_snake(name), params, errno))
    maxp = max([len(p) for _, p, _ in errors] + [0]) + 1

    h = ["/*",
         " * varlink_names.h: the control protocol's interface, method and",
         " * error names, and the errno value each error means to a C caller.",
         " * Generated by varlinkgen.py from %s;" % sources,
         " * do not edit: change the interface definitions instead.",
         " */",
         "#ifndef STATSD_VARLINK_NAMES_H",
         "#define STATSD_VARLINK_NAMES_H",
         ""]
    w = max(len(k) for k in macros) + 1
    h.append("/* Interfaces, and each method's fully qualified name. */")
    for k, v in macros.items():
        if not k.startswith("VL_ERR_"):
            h.append("#define %s%s\"%s\"" % (k, " " * (w - len(k)), v))
    h += ["", "/* Each error's fully qualified name. */"]
    for k, v in macros.items():
        if k.startswith("VL_ERR_"):
            h.append("#define %s%s\"%s\"" % (k, " " * (w - len(k)), v))
    h += ["", "/* The errors, in the order of the interface definitions. */",
          "enum vl_err {"]
    for e, _, _ in errors:
        h.append("\tVL_E_%s," % e)
    h += ["\tVL_E_NUM", "};", "",
          "/* Most parameters an error has, plus one for the NULL that ends "
          "them. */",
          "#define VL_ERROR_PARAMS_MAX\t%d" % maxp, "",
          "struct vl_error_info {",
          "\tconst char\t*name;\t\t/* fully qualified */",
          "\tconst char\t*params[VL_ERROR_PARAMS_MAX]; /* NULL-terminated */",
          "\tint\t\t err;\t\t/* positive errno value */",
          "};", "",
          "/* Indexed by enum vl_err. */",
          "extern const struct vl_error_info vl_errors[VL_E_NUM];", "",
          "/*",
          " * vl_error_lookup: the error of a fully qualified name.",
          " * Returns: its enum vl_err value; VL_E_NUM for an unknown name or",
          " * NULL.",
          " */",
          "enum vl_err vl_error_lookup(const char *name);", "",
          "#endif"]
    c = ["/* Generated by varlinkgen.py from %s; do not edit. */" % sources,
         "#include <errno.h>",
         "#include <string.h>", "",
         "#include \"varlink_names.h\"", "",
         "const struct vl_error_info vl_errors[VL_E_NUM] = {"]
    for e, params, errno in errors:
        ps = ", ".join("\"%s\"" % p for p in params)
        c.append("\t[VL_E_%s] = { VL_ERR_%s, { %s }, %s }," %
                 (e, e, ps if ps else "NULL", errno))
    c += ["};", "",
          "enum vl_err",
          "vl_error_lookup(const char *name)",
          "{",
          "\tint i;", "",
          "\tif (name == NULL)",
          "\t\treturn VL_E_NUM;",
          "\tfor (i = 0; i < VL_E_NUM; i++)",
          "\t\tif (strcmp(vl_errors[i].name, name) == 0)",
          "\t\t\treturn (enum vl_err)i;",
          "\treturn VL_E_NUM;",
          "}"]
    with open(out_h, "w", encoding="utf-8") as f:
        f.write("\n".join(h) + "\n")
    with open(out_c, "w", encoding="utf-8") as f:
        f.write("\n".join(c) + "\n")


if __name__ == "__main__":
    main()
