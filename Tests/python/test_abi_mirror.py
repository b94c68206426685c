# SPDX-License-Identifier: MIT
"""S29: the camcore package (camcore._raw) mirrors include/camcore.h exactly: struct sizes and field offsets
(checked against the C compiler), constants and version macros."""
import ctypes
import re
import shutil
import subprocess

import pytest

import camcore
from conftest import ROOT

HEADER = ROOT / "include" / "camcore.h"

STRUCTS = ["camcore_fraction", "camcore_manager_config", "camcore_device_info",
           "camcore_device_list", "camcore_format", "camcore_format_list", "camcore_plane",
           "camcore_frame", "camcore_frame_callbacks", "camcore_capture_config",
           "camcore_capture_format", "camcore_capture_stats", "camcore_preference",
           "camcore_setting", "camcore_pixel_format_info", "camcore_thread_hooks"]


def c_layout(tmp_path):
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not cc:
        pytest.skip("no C compiler")
    lines = ['#include <stdio.h>', '#include <stddef.h>', '#include "camcore.h"', 'int main(void) {']
    for name in STRUCTS:
        lines.append(f'  printf("{name} size %zu\\n", sizeof({name}));')
        for field, _ in getattr(camcore._raw, name)._fields_:
            lines.append(f'  printf("{name} {field} %zu\\n", offsetof({name}, {field}));')
    lines += ["  return 0;", "}"]
    src = tmp_path / "layout.c"
    src.write_text("\n".join(lines))
    exe = tmp_path / "layout"
    subprocess.run([cc, "-std=c99", "-I", str(ROOT / "include"), str(src), "-o", str(exe)],
                   check=True, capture_output=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    return {tuple(l.split()[:2]): int(l.split()[2]) for l in out.splitlines()}


def test_S29_ctypes_structs_match_the_header(tmp_path):
    want = c_layout(tmp_path)
    for name in STRUCTS:
        st = getattr(camcore._raw, name)
        assert ctypes.sizeof(st) == want[(name, "size")], name
        for field, _ in st._fields_:
            assert getattr(st, field).offset == want[(name, field)], (name, field)


def test_S29_constants_match_the_header():
    h = HEADER.read_text()
    macros = dict(re.findall(r"#define (CAMCORE_\w+)\s+(0x[0-9a-fA-F]+|\d+)u?\b", h))
    assert (camcore.VERSION_MAJOR, camcore.VERSION_MINOR, camcore.VERSION_PATCH) == (
        int(macros["CAMCORE_VERSION_MAJOR"]), int(macros["CAMCORE_VERSION_MINOR"]),
        int(macros["CAMCORE_VERSION_PATCH"]))
    enums = {k: int(v) for k, v in re.findall(r"\b(CAMCORE_\w+) = (-?\d+)", h)}
    assert len(enums) >= 13 + 4 + 3 + 4
    for cname, value in enums.items():
        attr = cname[len("CAMCORE_"):]
        assert getattr(camcore, attr) == value, cname
    for cname in ("CAMCORE_DEVICE_MULTIPLANAR", "CAMCORE_DEVICE_SYNTHETIC",
                  "CAMCORE_FORMAT_COMPRESSED", "CAMCORE_FORMAT_EMULATED",
                  "CAMCORE_FRAME_CORRUPTED", "CAMCORE_MAX_PREVIEWS"):
        assert getattr(camcore, cname[len("CAMCORE_"):]) == int(macros[cname], 0), cname


def test_S29_every_header_function_is_declared():
    h = HEADER.read_text()
    # Prototypes start a line with their return type: "int camcore_x(", "const char *camcore_y(".
    declared = set(re.findall(r"^[A-Za-z][\w ]*[\s*](camcore_\w+)\(", h, re.M))
    assert len(declared) >= 29
    mirrored = {name for name, _, _ in camcore._raw.PROTOTYPES}
    assert declared == mirrored
    for name in mirrored:
        fn = getattr(camcore._lib, name)
        assert fn.argtypes is not None, name
