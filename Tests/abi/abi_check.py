#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Tests/abi/abi_check.py — generated checks of the hand-written sides of the C ABI.

camcore.h is written by hand, and so are the two things that must follow it:
the Swift @_cdecl exports that implement it (Sources/CamCoreCABI/Exports) and
the C++ wrapper (include/camcore.hpp). Swift cannot check an @_cdecl function
against a hand-written prototype, and nothing makes the wrapper grow with the
header, so this script compares them:

  python3 Tests/abi/abi_check.py hpp         every function camcore.h declares
                                            is used by camcore.hpp (outside
                                            comments); prints the missing ones
  python3 Tests/abi/abi_check.py signatures every @_cdecl("camcore_x") export's
                                            Swift signature matches camcore_x's
                                            prototype in camcore.h; prints each
                                            mismatch
  python3 Tests/abi/abi_check.py self-test  both checks catch seeded faults

The signature check pairs names both ways (an export the header does not
declare, a declared function with no export, an export made twice) and, for
each pair, compares the parameter count and, per parameter and for the
return value:
  - the kind: pointer, integer of a width, floating point of a width, bool,
    void, struct by value (camcore_fraction);
  - an integer's signedness (int32_t is Int32, uint32_t UInt32, size_t Int
    or UInt: Swift imports size_t as Int);
  - for pointers what the C importer would give: `const T *` is
    UnsafePointer<T>, `T *` UnsafeMutablePointer<T>, `void *`
    UnsafeMutableRawPointer, a pointer to an opaque struct (camcore_manager)
    OpaquePointer, and so on down `**`; plain `char` is CChar; a
    function-pointer typedef (camcore_completion_fn) is itself or the
    @convention(c) type it stands for;
  - a pointer parameter is Optional in Swift: C may pass NULL, and a
    non-optional Swift pointer that receives NULL is undefined behaviour.

Pure Python 3 (no compiler, no build): it reads the files. Exit status 0
when everything matches, 1 otherwise (and 2 for a file it cannot parse).
"""
import argparse
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
HEADER = ROOT / "include" / "camcore.h"
HPP = ROOT / "include" / "camcore.hpp"
EXPORTS = ROOT / "Sources" / "CamCoreCABI" / "Exports"


class ParseError(Exception):
    pass


# --------------------------------------------------------------------------
# Types: one structure for both languages
#
#   ("void",)
#   ("int", bits, signed)     signed: True, False, or "size" (size_t: Int or UInt)
#   ("char",)                 plain char (CChar)
#   ("bool",)
#   ("float", bits)
#   ("struct", name)          a complete struct, by value or as a pointee
#   ("opaque", name)          an incomplete struct (a handle); name None from Swift
#   ("enum", name)            a C enum (int); Swift spells it Int32 or its name
#   ("fn", ret, params)       a function (the pointee of a function pointer)
#   ("ptr", pointee, const, optional, typedef name)
#                             const: whether the pointee is const; None for
#                             OpaquePointer and function pointers. optional:
#                             always True from C; from Swift whether the
#                             type is Optional. typedef name: a function-
#                             pointer typedef's (camcore_completion_fn), else None.
#
# Widths are LP64's (Linux on x86-64 and aarch64): long and size_t are 64-bit.

def show(t):
    """A C-like spelling of a type, for messages."""
    k = t[0]
    if k == "void":
        return "void"
    if k == "int":
        if t[2] == "size":
            return "size_t"
        return ("int%d" if t[2] else "uint%d") % t[1]
    if k == "char":
        return "char"
    if k == "bool":
        return "bool"
    if k == "float":
        return {32: "float", 64: "double"}.get(t[1], "float%d" % t[1])
    if k in ("struct", "enum"):
        return t[1]
    if k == "opaque":
        return t[1] or "(opaque struct)"
    if k == "fn":
        return "%s (*)(%s)" % (show(t[1]), ", ".join(show(p) for p in t[2]) or "void")
    if k == "ptr":
        inner = t[1]
        if inner[0] == "fn":
            return show(inner)
        if inner[0] == "opaque" and inner[1] is None:
            return "OpaquePointer"
        if t[4]:
            return t[4]
        const = "const " if t[2] else ""
        return "%s%s *" % (const, show(inner))
    return repr(t)


def abi_kind(t):
    """How the value is passed: what must match for the call to work at all."""
    k = t[0]
    if k == "ptr":
        return "pointer"
    if k == "int":
        return "%d-bit integer" % t[1]
    if k == "char":
        return "8-bit integer"
    if k == "enum":
        return "32-bit integer"
    if k == "float":
        return "%d-bit floating point" % t[1]
    if k == "struct":
        return "struct %s by value" % t[1]
    return k


# --------------------------------------------------------------------------
# C: camcore.h

C_KEYWORDS = {"const", "volatile", "restrict", "signed", "unsigned", "short", "long", "int", "char",
              "void", "float", "double", "_Bool", "bool", "struct", "enum", "union", "static",
              "inline", "extern"}

C_BUILTIN = {
    "int8_t": ("int", 8, True), "uint8_t": ("int", 8, False),
    "int16_t": ("int", 16, True), "uint16_t": ("int", 16, False),
    "int32_t": ("int", 32, True), "uint32_t": ("int", 32, False),
    "int64_t": ("int", 64, True), "uint64_t": ("int", 64, False),
    "size_t": ("int", 64, "size"), "ssize_t": ("int", 64, True),
    "ptrdiff_t": ("int", 64, True), "intptr_t": ("int", 64, True), "uintptr_t": ("int", 64, False),
    "bool": ("bool",), "_Bool": ("bool",),
}


def strip_c_comments(text, literals=True):
    """Comments out; newlines kept; string and character literals kept, or
    emptied ("") with literals=False."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                raise ParseError("unterminated comment")
            out.append("\n" * text.count("\n", i, j + 2) or " ")
            i = j + 2
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1] if literals else c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def strip_directives(text):
    lines, out, cont = text.split("\n"), [], False
    for line in lines:
        directive = cont or line.lstrip().startswith("#")
        cont = directive and line.rstrip().endswith("\\")
        out.append("" if directive else line)
    return "\n".join(out)


TOKEN = re.compile(r'\s*(?:([A-Za-z_]\w*)|(0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*)|("(?:\\.|[^"\\])*")|(\.\.\.|.))',
                   re.S)


def c_tokens(text):
    toks, pos = [], 0
    text = text.rstrip()
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m:
            raise ParseError("cannot tokenize at %r" % text[pos:pos + 30])
        toks.append(next(g for g in m.groups() if g is not None))
        pos = m.end()
    return toks


def split_top(toks, sep):
    """Splits on sep outside (), [], {}."""
    parts, cur, depth = [], [], 0
    for t in toks:
        if t in "([{":
            depth += 1
        elif t in ")]}":
            depth -= 1
        if t == sep and depth == 0:
            parts.append(cur)
            cur = []
        else:
            cur.append(t)
    if cur:
        parts.append(cur)
    return parts


def match_paren(toks, i):
    """Index of the ')' closing the '(' at i."""
    depth = 0
    for j in range(i, len(toks)):
        if toks[j] == "(":
            depth += 1
        elif toks[j] == ")":
            depth -= 1
            if depth == 0:
                return j
    raise ParseError("unbalanced parentheses in %s" % " ".join(toks))


class CHeader:
    """The declarations of camcore.h: typedefs and function prototypes."""

    def __init__(self, text):
        self.structs, self.opaque, self.enums = set(), set(), set()
        self.aliases = {}      # typedef name -> type tokens (scalar typedefs)
        self.fn_typedefs = {}  # typedef name -> ("ptr", ("fn", ret, params), None, True, name)
        self.protos = {}       # function name -> (return type tokens, parameter tokens, text)
        self.order = []
        toks = c_tokens(strip_directives(strip_c_comments(text)))
        # extern "C" { ... }: its #ifdef __cplusplus lines are gone, the
        # braces are not; they enclose declarations like any others.
        cleaned, i, skip_close = [], 0, 0
        while i < len(toks):
            if toks[i] == "extern" and i + 2 < len(toks) and toks[i + 1] == '"C"' and toks[i + 2] == "{":
                skip_close += 1
                i += 3
                continue
            cleaned.append(toks[i])
            i += 1
        decls = split_top(cleaned, ";")
        if skip_close:
            decls = [d for d in decls if d != ["}"]]
        for d in decls:
            self._declaration(d)
        for name in list(self.opaque):
            if name in self.structs:
                self.opaque.discard(name)

    def _declaration(self, d):
        if not d:
            return
        if d[0] == "typedef":
            body = d[1:]
            if body[0] in ("struct", "union", "enum"):
                name = body[-1]
                if "{" in body:
                    (self.enums if body[0] == "enum" else self.structs).add(name)
                else:
                    tag = body[1]
                    (self.enums if body[0] == "enum" else self.opaque).add(name)
                    if tag != name:
                        self.aliases[name] = ["struct", tag]
                return
            if "(" in body:
                i = body.index("(")
                if body[i + 1] == "*":
                    name = body[i + 2]
                    close = match_paren(body, i)
                    ret = self.c_type(body[:i])
                    params = self._params(body[close + 2:match_paren(body, close + 1)])
                    self.fn_typedefs[name] = ("ptr", ("fn", ret, [t for _, t in params]), None, True, name)
                    return
                raise ParseError("unsupported typedef: %s" % " ".join(d))
            self.aliases[body[-1]] = body[:-1]
            return
        if d[0] in ("struct", "enum", "union") and "{" in d:
            if d[0] == "struct":
                self.structs.add(d[1])
            return
        if "(" in d:
            i = d.index("(")
            name = d[i - 1]
            if not re.match(r"^[A-Za-z_]\w*$", name):
                raise ParseError("unsupported declaration: %s" % " ".join(d))
            close = match_paren(d, i)
            if close != len(d) - 1:
                raise ParseError("unsupported declarator (a function returning a function pointer?): %s"
                                 % " ".join(d))
            ret_toks = [t for t in d[:i - 1] if t not in ("extern", "static", "inline")]
            if name in self.protos:
                raise ParseError("%s declared twice" % name)
            self.protos[name] = (ret_toks, d[i + 1:close], " ".join(d))
            self.order.append(name)

    def function(self, name):
        """(return type, [(param name, type)]) of a prototype."""
        ret_toks, param_toks, _ = self.protos[name]
        return self.c_type(ret_toks), self._params(param_toks)

    def _params(self, toks):
        if toks in ([], ["void"]):
            return []
        out = []
        for n, p in enumerate(split_top(toks, ","), 1):
            if p == ["..."]:
                raise ParseError("variadic functions cannot be @_cdecl exports")
            out.append(self._param(p, n))
        return out

    def _param(self, p, n):
        if "(" in p:  # a function pointer: RET (*name)(PARAMS)
            i = p.index("(")
            close = match_paren(p, i)
            if p[i + 1] != "*":
                raise ParseError("unsupported parameter: %s" % " ".join(p))
            name = p[i + 2] if i + 2 < close else "#%d" % n
            ret = self.c_type(p[:i])
            params = self._params(p[close + 2:match_paren(p, close + 1)])
            return name, ("ptr", ("fn", ret, [t for _, t in params]), None, True, None)
        array = "[" in p
        if array:  # T name[5] is T *name
            p = p[:p.index("[")]
        name = "#%d" % n
        if (len(p) > 1 and re.match(r"^[A-Za-z_]\w*$", p[-1]) and p[-1] not in C_KEYWORDS
                and p[-2] not in ("struct", "enum", "union")):
            name, p = p[-1], p[:-1]
        t = self.c_type(p + ["*"] if array else p)
        return name, t

    def c_type(self, toks):
        """Type tokens (no name) to a type. `const` before the first `*`
        belongs to the base type; one after a `*` makes that pointer const,
        which is the pointee's constness for the next `*` out."""
        toks = [t for t in toks if t not in ("restrict", "volatile")]
        first = toks.index("*") if "*" in toks else len(toks)
        base, rest = toks[:first], toks[first:]
        t = self._base([w for w in base if w != "const"])
        const = "const" in base
        for tok in rest:
            if tok == "*":
                t = ("ptr", t, const, True, None)
                const = False
            elif tok == "const":
                const = True
            else:
                raise ParseError("unsupported type: %s" % " ".join(toks))
        return t

    def _base(self, base):
        words = " ".join(base)
        if words in ("void",):
            return ("void",)
        if words == "char":
            return ("char",)
        if words == "signed char":
            return ("int", 8, True)
        if words == "unsigned char":
            return ("int", 8, False)
        if words in ("short", "short int", "signed short", "signed short int"):
            return ("int", 16, True)
        if words in ("unsigned short", "unsigned short int"):
            return ("int", 16, False)
        if words in ("int", "signed", "signed int"):
            return ("int", 32, True)
        if words in ("unsigned", "unsigned int"):
            return ("int", 32, False)
        if words in ("long", "long int", "signed long", "long long", "long long int"):
            return ("int", 64, True)
        if words in ("unsigned long", "unsigned long int", "unsigned long long", "unsigned long long int"):
            return ("int", 64, False)
        if words == "float":
            return ("float", 32)
        if words == "double":
            return ("float", 64)
        if len(base) == 2 and base[0] in ("struct", "union"):
            name = base[1]
            return ("struct", name) if name in self.structs else ("opaque", name)
        if len(base) == 2 and base[0] == "enum":
            return ("enum", base[1])
        if len(base) == 1:
            name = base[0]
            if name in C_BUILTIN:
                return C_BUILTIN[name]
            if name in self.fn_typedefs:
                return self.fn_typedefs[name]
            if name in self.structs:
                return ("struct", name)
            if name in self.opaque:
                return ("opaque", name)
            if name in self.enums:
                return ("enum", name)
            if name in self.aliases:
                return self.c_type(self.aliases[name])
        raise ParseError("unknown C type '%s'" % words)

# --------------------------------------------------------------------------
# Swift: the @_cdecl exports

SWIFT_INTS = {
    "Int8": ("int", 8, True), "UInt8": ("int", 8, False), "CSignedChar": ("int", 8, True),
    "CUnsignedChar": ("int", 8, False),
    "Int16": ("int", 16, True), "UInt16": ("int", 16, False), "CShort": ("int", 16, True),
    "CUnsignedShort": ("int", 16, False),
    "Int32": ("int", 32, True), "UInt32": ("int", 32, False), "CInt": ("int", 32, True),
    "CUnsignedInt": ("int", 32, False),
    "Int64": ("int", 64, True), "UInt64": ("int", 64, False), "CLongLong": ("int", 64, True),
    "CUnsignedLongLong": ("int", 64, False),
    "Int": ("int", 64, True), "UInt": ("int", 64, False), "CLong": ("int", 64, True),
    "CUnsignedLong": ("int", 64, False),
    "CChar": ("char",), "Bool": ("bool",), "CBool": ("bool",),
    "Double": ("float", 64), "CDouble": ("float", 64), "Float": ("float", 32), "CFloat": ("float", 32),
    "Void": ("void",),
}


def strip_swift_comments(text):
    """Comments out (nested block comments too), string literals kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append("\n" * text.count("\n", i, j) or " ")
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith('"""', i):
            j = text.find('"""', i + 3)
            j = n if j < 0 else j + 3
            out.append(text[i:j])
            i = j
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] not in '"\n':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def split_swift(s, sep=","):
    parts, cur, depth = [], [], 0
    i = 0
    while i < len(s):
        c = s[i]
        if s.startswith("->", i):
            cur.append("->")
            i += 2
            continue
        if c in "(<[":
            depth += 1
        elif c in ")>]":
            depth -= 1
        if c == sep and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
        i += 1
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return parts


def swift_type(s, c_names):
    """A Swift type spelling to a type ("ptr", pointee, const, optional, typedef name)."""
    s = s.strip()
    while s.startswith("@") and not s.startswith("@convention"):
        s = re.sub(r"^@\w+(\([^)]*\))?\s*", "", s)  # @escaping, @Sendable, ...
    optional = False
    if s.endswith("?") or s.endswith("!"):
        optional, s = True, s[:-1].strip()
    if re.match(r"^\(\s*\)$", s):
        return ("void",)
    if s.startswith("(") and match_swift_paren(s, 0) == len(s) - 1:
        return with_optional(swift_type(s[1:-1], c_names), optional)  # (T)?
    m = re.match(r"^@convention\(c\)\s*(\(.*\))\s*->\s*(.+)$", s, re.S)
    if m:
        params = m.group(1)[1:-1]
        ps = [swift_type(p, c_names) for p in split_swift(params)] if params.strip() else []
        return ("ptr", ("fn", swift_type(m.group(2), c_names), ps), None, optional, None)
    m = re.match(r"^Unsafe(Mutable)?Pointer<(.+)>$", s, re.S)
    if m:
        return ("ptr", swift_type(m.group(2), c_names), m.group(1) is None, optional, None)
    if s == "UnsafeRawPointer":
        return ("ptr", ("void",), True, optional, None)
    if s == "UnsafeMutableRawPointer":
        return ("ptr", ("void",), False, optional, None)
    if s == "OpaquePointer":
        return ("ptr", ("opaque", None), None, optional, None)
    if s in SWIFT_INTS:
        return SWIFT_INTS[s]
    if s in c_names.fn_typedefs:
        return with_optional(c_names.fn_typedefs[s], optional)
    if s in c_names.structs:
        return ("struct", s)
    if s in c_names.enums:
        return ("enum", s)
    if s in c_names.aliases:
        return c_names.c_type(c_names.aliases[s])
    raise ParseError("unknown Swift type '%s'" % s)


def with_optional(t, optional):
    """A pointer type, Optional or not."""
    return t[:3] + (optional,) + t[4:] if t[0] == "ptr" else t


def match_swift_paren(s, i):
    depth = 0
    for j in range(i, len(s)):
        if s[j] == "(":
            depth += 1
        elif s[j] == ")":
            depth -= 1
            if depth == 0:
                return j
    raise ParseError("unbalanced parentheses in %r" % s[i:i + 80])


CDECL = re.compile(r'@_cdecl\(\s*"([^"]*)"\s*\)')


def swift_exports(files):
    """{C name: [(file, line, Swift name, [(label, type text)], return text)]}."""
    found = {}
    for path in files:
        raw = path.read_text()
        text = strip_swift_comments(raw)
        for m in CDECL.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            rest = text[m.end():]
            fm = re.match(r'\s*(?:@\w+(?:\([^)]*\))?\s*)*(?:(?:public|internal|package|fileprivate|private|'
                          r'nonisolated|final|static)\s+)*func\s+([A-Za-z_]\w*)\s*(<[^>]*>)?\s*\(', rest)
            where = "%s:%d" % (path.relative_to(ROOT), line)
            if not fm:
                raise ParseError("%s: @_cdecl(\"%s\") is not followed by a func" % (where, m.group(1)))
            if fm.group(2):
                raise ParseError("%s: a generic @_cdecl function" % where)
            open_at = fm.end() - 1
            close = match_swift_paren(rest, open_at)
            params_text = rest[open_at + 1:close]
            after = rest[close + 1:]
            body = after.find("{")
            tail = after[:body].strip()
            if re.search(r"\b(throws|async|rethrows)\b", tail):
                raise ParseError("%s: an @_cdecl function that throws or is async" % where)
            rm = re.match(r"^->\s*(.+)$", tail, re.S)
            ret = rm.group(1).strip() if rm else "Void"
            ret = re.sub(r"\s+where\s+.*$", "", ret, flags=re.S)
            params = []
            for p in split_swift(params_text):
                pm = re.match(r"^(?:(\w+)\s+)?(\w+)\s*:\s*(.+?)(?:\s*=\s*.+)?$", p, re.S)
                if not pm:
                    raise ParseError("%s: cannot read parameter %r" % (where, p))
                params.append((pm.group(2), " ".join(pm.group(3).split())))
            found.setdefault(m.group(1), []).append((where, fm.group(1), params, " ".join(ret.split())))
    return found


# --------------------------------------------------------------------------
# The comparison

def compare(c, s, what, problems, param):
    """Compares a C type (resolved) with a Swift type; appends messages."""
    ck, sk = abi_kind(c), abi_kind(s)
    if ck != sk:
        problems.append("%s: header %s (%s), Swift %s (%s)" % (what, show(c), ck, show(s), sk))
        return
    if c[0] == "enum" or s[0] == "enum":
        # A C enum is an int: Int32 or the enum's own imported name.
        if s[0] == "enum" and c[0] == "enum" and s[1] != c[1]:
            problems.append("%s: header enum %s, Swift %s" % (what, c[1], s[1]))
        elif (s[0] == "int" and s[2] is not True) or (c[0] == "int" and c[2] is not True):
            problems.append("%s: header %s, Swift %s: a C enum is a signed int (Int32)" % (what, show(c), show(s)))
        return
    if c[0] == "int" and s[0] == "int":
        if c[2] != "size" and c[2] != s[2]:
            problems.append("%s: header %s, Swift %s: signedness differs" % (what, show(c), show(s)))
        return
    if c[0] != s[0]:  # char vs Int8/UInt8
        problems.append("%s: header %s, Swift %s (a C char is CChar)" % (what, show(c), show(s)))
        return
    if c[0] == "struct" and c[1] != s[1]:
        problems.append("%s: header struct %s, Swift %s" % (what, c[1], s[1]))
        return
    if c[0] == "ptr":
        if param and not s[3]:
            problems.append("%s: Swift %s is not Optional, but C may pass NULL (undefined behaviour in Swift)"
                            % (what, show(s)))
        cp, sp = c[1], s[1]
        if cp[0] == "opaque" or sp[0] == "opaque":
            if not (cp[0] == "opaque" and sp[0] == "opaque"):
                problems.append("%s: header %s, Swift %s: a pointer to an opaque struct, and only that, is "
                                "OpaquePointer" % (what, show(c), show(s)))
            return
        if cp[0] == "fn" or sp[0] == "fn":
            if cp[0] != sp[0]:
                problems.append("%s: header %s, Swift %s" % (what, show(c), show(s)))
            elif c[4] and s[4] and c[4] != s[4]:
                problems.append("%s: header %s, Swift %s" % (what, c[4], s[4]))
            else:
                compare_fn(cp, sp, what, problems)
            return
        if c[2] != s[2]:
            problems.append("%s: header %s, Swift %s: %s" % (
                what, show(c), show(s),
                "a const pointee is UnsafePointer/UnsafeRawPointer" if c[2]
                else "a non-const pointee is UnsafeMutablePointer/UnsafeMutableRawPointer"))
            return
        compare(cp, sp, what + " (pointee)", problems, False)


def compare_fn(c, s, what, problems):
    if len(c[2]) != len(s[2]):
        problems.append("%s: the callback takes %d parameters in the header, %d in Swift"
                        % (what, len(c[2]), len(s[2])))
        return
    compare(c[1], s[1], what + " (callback return)", problems, False)
    for i, (cp, sp) in enumerate(zip(c[2], s[2]), 1):
        compare(cp, sp, "%s (callback parameter %d)" % (what, i), problems, False)


def check_signatures(header_text, swift_files, out=sys.stdout):
    """Returns the list of mismatches (empty when all match)."""
    return check_pairs(CHeader(header_text), swift_exports(swift_files), out)


def check_pairs(h, exports, out=sys.stdout):
    """check_signatures() on a parsed header and parsed exports."""
    problems = []
    declared = set(h.protos)
    exported = set(exports)
    for name in sorted(exported - declared):
        for where, _, _, _ in exports[name]:
            problems.append("%s: @_cdecl(\"%s\") is not declared in camcore.h" % (where, name))
    for name in sorted(declared - exported):
        problems.append("%s: declared in camcore.h, but no Swift @_cdecl(\"%s\") exports it" % (name, name))
    for name in sorted(exported):
        if len(exports[name]) > 1:
            problems.append("%s: exported %d times (%s)" % (name, len(exports[name]),
                                                             ", ".join(w for w, _, _, _ in exports[name])))
    n_params = 0
    for name in h.order:
        if name not in exports:
            continue
        where, swift_name, sparams, sret = exports[name][0]
        ret, cparams = h.function(name)
        label = "%s (%s %s)" % (name, where, swift_name)
        try:
            s_ret = swift_type(sret, h)
            s_types = [(p, swift_type(t, h)) for p, t in sparams]
        except ParseError as e:
            problems.append("%s: %s" % (label, e))
            continue
        compare(ret, s_ret, label + ": return value", problems, False)
        if len(cparams) != len(s_types):
            problems.append("%s: %d parameters in the header (%s), %d in Swift (%s)" % (
                label, len(cparams), ", ".join(n for n, _ in cparams) or "void",
                len(s_types), ", ".join(n for n, _ in s_types) or "none"))
            continue
        for i, ((cn, ct), (sn, st)) in enumerate(zip(cparams, s_types), 1):
            n_params += 1
            compare(ct, st, "%s: parameter %d (%s / %s)" % (label, i, cn, sn), problems, True)
    if out is not None:
        both = len(declared & exported)
        if problems:
            print("%d mismatch(es) between camcore.h and the Swift @_cdecl exports:" % len(problems), file=out)
            for p in problems:
                print("  " + p, file=out)
        print("%d functions declared in camcore.h, %d @_cdecl exports, %d paired; %d parameters and %d return "
              "values compared" % (len(declared), len(exported), both, n_params, both), file=out)
    return problems


def hpp_uses(hpp_text):
    """The camcore_* identifiers camcore.hpp's code names (not its comments,
    nor strings such as the call names in error messages)."""
    return set(re.findall(r"\b(camcore_[a-z0-9_]+)\b", strip_c_comments(hpp_text, literals=False)))


def check_hpp_text(declared, hpp_text):
    """The functions of `declared` that hpp_text does not use."""
    used = hpp_uses(hpp_text)
    return [n for n in declared if n not in used]


def check_hpp(header_text, hpp_text, out=sys.stdout):
    """Returns the header functions camcore.hpp does not use."""
    declared = CHeader(header_text).order
    missing = check_hpp_text(declared, hpp_text)
    if out is not None:
        if missing:
            print("%d of the %d functions camcore.h declares are not used by camcore.hpp (add a wrapper):"
                  % (len(missing), len(declared)), file=out)
            for n in missing:
                print("  " + n, file=out)
        else:
            print("all %d functions camcore.h declares are used by camcore.hpp" % len(declared), file=out)
    return missing


# --------------------------------------------------------------------------
# Self-test: each check must catch a seeded fault

def self_test(out=sys.stdout):
    """Seeds one fault at a time into the parsed sources (so a reformatted
    file does not break the test) and checks that it is reported; then
    reads a Swift text written to trip the parser."""
    import copy

    h0 = CHeader(HEADER.read_text())
    exports0 = swift_exports(sorted(EXPORTS.glob("*.swift")))
    failures = []
    n_seeded = 0

    def seeded(what, expect, name=None, param=None, swift=None, mutate=None):
        """Sets parameter `param` (1-based; 0: the return value) of the
        export `name` to the Swift type `swift`, or runs mutate(h, exports)."""
        nonlocal n_seeded
        n_seeded += 1
        h, exports = copy.deepcopy(h0), copy.deepcopy(exports0)
        if mutate:
            mutate(h, exports)
        else:
            where, fn, params, ret = exports[name][0]
            if param == 0:
                ret = swift
            else:
                params[param - 1] = (params[param - 1][0], swift)
            exports[name][0] = (where, fn, params, ret)
        probs = check_pairs(h, exports, out=None)
        if not any(re.search(expect, p) for p in probs):
            failures.append("%s: not caught (reported: %s)" % (what, probs or "nothing"))

    base = check_pairs(h0, exports0, out=None)
    if base:
        failures.append("the sources as they are mismatch already: %s" % base)

    def drop_param(h, exports):
        where, fn, params, ret = exports["camcore_session_get_preview_fd"][0]
        exports["camcore_session_get_preview_fd"][0] = (where, fn, params[:1] + params[2:], ret)

    def rename(h, exports):
        exports["camcore_version_x"] = exports.pop("camcore_version")

    def twice(h, exports):
        exports["camcore_version"].append(exports["camcore_version"][0])

    def header_drops_param(h, exports):
        ret, params, text = h.protos["camcore_session_flip"]
        h.protos["camcore_session_flip"] = (ret, params[:len(params) - params[::-1].index(",") - 1], text)

    seeded("a parameter dropped", r"camcore_session_get_preview_fd.*3 parameters in the header.*2 in Swift",
           mutate=drop_param)
    seeded("a width changed", r"camcore_capturer_set_control .*parameter 3.*64-bit integer.*32-bit integer",
           "camcore_capturer_set_control", 3, "Int32")
    seeded("signedness changed", r"camcore_capturer_start_pull .*parameter 3.*signedness",
           "camcore_capturer_start_pull", 3, "Int32")
    seeded("a pointer made an integer", r"camcore_session_get_note .*parameter 2.*pointer.*64-bit integer",
           "camcore_session_get_note", 2, "Int")
    seeded("a return type changed", r"camcore_version .*return value.*32-bit.*64-bit",
           "camcore_version", 0, "UInt64")
    seeded("const dropped", r"camcore_manager_negotiate .*parameter 3.*const pointee",
           "camcore_manager_negotiate", 3, "UnsafeMutablePointer<camcore_preference>?")
    seeded("const added", r"camcore_capturer_get_stats .*parameter 2.*non-const pointee",
           "camcore_capturer_get_stats", 2, "UnsafePointer<camcore_capture_stats>?")
    seeded("a pointee changed", r"camcore_manager_format_for .*parameter 6.*pointee",
           "camcore_manager_format_for", 6, "UnsafeMutablePointer<camcore_preference>?")
    seeded("a pointer to a pointer lost a level", r"camcore_capturer_next_frame .*parameter 3.*pointee",
           "camcore_capturer_next_frame", 3, "UnsafeMutablePointer<camcore_frame>?")
    seeded("Int8 for a C char", r"camcore_fourcc_to_string .*parameter 2.*CChar",
           "camcore_fourcc_to_string", 2, "UnsafeMutablePointer<Int8>?")
    seeded("a non-optional pointer parameter", r"camcore_frame_release .*not Optional",
           "camcore_frame_release", 1, "UnsafePointer<camcore_frame>")
    seeded("OpaquePointer for a complete struct", r"camcore_frame_retain .*parameter 1.*opaque",
           "camcore_frame_retain", 1, "OpaquePointer?")
    seeded("a struct by value changed", r"camcore_manager_max_frame_rate .*parameter 6",
           "camcore_manager_max_frame_rate", 6, "camcore_setting")
    seeded("a callback spelled out wrongly", r"camcore_session_stop .*parameter 2.*callback parameter 2.*signedness",
           "camcore_session_stop", 2, "(@convention(c) (UnsafeMutableRawPointer?, UInt32) -> Void)?")
    seeded("a callback with a parameter too many", r"camcore_session_restart .*callback takes 2 parameters.*3 in Swift",
           "camcore_session_restart", 2, "(@convention(c) (UnsafeMutableRawPointer?, Int32, Int32) -> Void)?")
    seeded("an export not in the header", r'@_cdecl\("camcore_version_x"\) is not declared', mutate=rename)
    seeded("a header function not exported", r"camcore_version: declared in camcore.h, but no Swift", mutate=rename)
    seeded("an export made twice", r"camcore_version: exported 2 times", mutate=twice)
    seeded("a header prototype changed", r"camcore_session_flip .*2 parameters in the header.*3 in Swift",
           mutate=header_drops_param)

    # The Swift reader: comments, attributes, a multi-line list, a string
    # that looks like a comment, and an @_cdecl that is only in a comment.
    class Text:
        def __init__(self, text):
            self.text = text

        def read_text(self):
            return self.text

        def relative_to(self, root):
            return pathlib.Path("seeded.swift")

    tricky = Text('\n'.join([
        '// @_cdecl("camcore_in_a_comment")',
        '/* nested /* comment */ @_cdecl("camcore_in_a_block") */',
        '@_cdecl("camcore_set_thread_hooks") @inline(never)',
        'public func hooks(',
        '    _ hooks: UnsafePointer<camcore_thread_hooks>?  // the hooks',
        ') -> Int32 { let s = "/* not a comment"; return 0 }',
        '@_cdecl( "camcore_version" )',
        'public func version(_ extra: Int32 = 0) -> UInt64 /* wrong */ { 0 }',
    ]))
    got = swift_exports([tricky])
    if sorted(got) != ["camcore_set_thread_hooks", "camcore_version"]:
        failures.append("the Swift reader found %s" % sorted(got))
    else:
        probs = []
        ret, cparams = h0.function("camcore_version")
        _, _, sparams, sret = got["camcore_version"][0]
        compare(ret, swift_type(sret, h0), "camcore_version: return value", probs, False)
        if len(sparams) != 1 or not probs:
            failures.append("the Swift reader read camcore_version as %s -> %s" % (sparams, sret))
        _, _, sparams, sret = got["camcore_set_thread_hooks"][0]
        if sparams != [("hooks", "UnsafePointer<camcore_thread_hooks>?")] or sret != "Int32":
            failures.append("the Swift reader read camcore_set_thread_hooks as %s -> %s" % (sparams, sret))

    # The hpp check: a function left out is reported; naming it in a comment
    # or a string is no use.
    declared = h0.order
    every = "".join("    %s(x);\n" % n for n in declared)
    if check_hpp_text(declared, every):
        failures.append("a wrapper calling every function was found missing some")
    fake = every.replace("    camcore_session_get_preview_fd(x);\n", "    // camcore_session_get_preview_fd(x);\n")
    fake += '/* camcore_session_get_preview_fd */ const char *s = "camcore_session_get_preview_fd";\n'
    got = check_hpp_text(declared, fake)
    if got != ["camcore_session_get_preview_fd"]:
        failures.append("the hpp check found %s missing, not only the function named in comments" % got)

    for f in failures:
        print("self-test FAIL: " + f, file=out)
    if not failures:
        print("self-test: every seeded fault was caught (%d signature faults, the Swift reader, the wrapper check)"
              % n_seeded, file=out)
    return failures


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=["hpp", "signatures", "self-test"])
    args = ap.parse_args(argv)
    try:
        if args.what == "hpp":
            return 1 if check_hpp(HEADER.read_text(), HPP.read_text()) else 0
        if args.what == "signatures":
            return 1 if check_signatures(HEADER.read_text(), sorted(EXPORTS.glob("*.swift"))) else 0
        return 1 if self_test() else 0
    except ParseError as e:
        print("abi_check: cannot parse: %s" % e, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
