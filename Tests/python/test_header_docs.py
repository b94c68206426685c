# SPDX-License-Identifier: MIT
"""S29: include/camcore.h reads as one contract. Every function's doc comment
says \\threadsafety and \\since; every other doc comment at file scope (types,
macros, enums) says \\since; \\since always has one form and never names a
version above the header's own."""
import re

from conftest import ROOT

HEADER = ROOT / "include" / "camcore.h"
SINCE = re.compile(r"\\since (\d+)\.(\d+)(?=\s|\*/)")


def parse():
    """(declared functions, file-scope doc comments) of the header.

    Functions are (name, the doc comment right above them or None); doc
    comments are (text, what follows them), both found at brace depth 0
    (the extern "C" block of C++ does not count)."""
    h = HEADER.read_text()
    # Comments blanked, offsets kept, so braces and prototypes are code only.
    code = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"\S", " ", m.group(0)), h, flags=re.S)
    code = code.replace('extern "C" {', 'extern "C"  ')
    close = h.index('} /* extern "C" */')
    code = code[:close] + " " + code[close + 1:]

    level, depth_before = 0, []
    for c in code:
        depth_before.append(level)
        level += (c == "{") - (c == "}")

    def depth(pos):
        return depth_before[pos]

    docs = [m for m in re.finditer(r"/\*\*(?!<).*?\*/", h, re.S) if depth(m.start()) == 0]
    doc_ending_at = {m.end(): m.group(0) for m in docs}

    functions = []
    for m in re.finditer(r"^(?!typedef\b)[A-Za-z][\w ]*[\s*](camcore_\w+)\(", code, re.M):
        if depth(m.start()) != 0:
            continue
        above = h[:m.start()].rstrip()
        functions.append((m.group(1), doc_ending_at.get(len(above))))
    return functions, [(m.group(0), h[m.end():m.end() + 80].strip()) for m in docs]


def header_version():
    h = HEADER.read_text()
    return tuple(int(re.search(rf"#define CAMCORE_VERSION_{p} (\d+)", h).group(1))
                 for p in ("MAJOR", "MINOR"))


def test_S29_every_function_has_threadsafety_and_since():
    functions, _ = parse()
    assert len(functions) >= 60, f"only {len(functions)} functions found: is the parser broken?"
    undocumented = [name for name, doc in functions if doc is None]
    assert not undocumented, f"functions without a doc comment right above them: {undocumented}"
    no_threads = [name for name, doc in functions if not re.search(r"\\threadsafety\s+\S", doc)]
    assert not no_threads, f"functions without \\threadsafety: {no_threads}"
    no_since = [name for name, doc in functions if not SINCE.search(doc)]
    assert not no_since, f"functions without '\\since X.Y': {no_since}"


def test_S29_every_doc_comment_has_since():
    _, docs = parse()
    assert len(docs) >= 100, f"only {len(docs)} doc comments found: is the parser broken?"
    missing = [follows for doc, follows in docs if not SINCE.search(doc)]
    assert not missing, "file-scope doc comments without '\\since X.Y', above:\n" + "\n".join(missing)
    odd = [follows for doc, follows in docs if doc.count("\\since") != len(SINCE.findall(doc))]
    assert not odd, "'\\since' not in the one form '\\since X.Y', above:\n" + "\n".join(odd)
    newest = header_version()
    ahead = [follows for doc, follows in docs
             for v in SINCE.findall(doc) if (int(v[0]), int(v[1])) > newest]
    assert not ahead, f"'\\since' above the header's version {newest}, above:\n" + "\n".join(ahead)
