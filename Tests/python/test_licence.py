# SPDX-License-Identifier: MIT
"""The project's licence: a LICENSE file (MIT) and an SPDX line in every
source file git tracks (code, scripts, build files), so that a file copied
out of the tree still says what it may be used under."""
import os
import subprocess

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TAG = "SPDX-License-Identifier: MIT"
SOURCE_EXT = {"swift", "c", "h", "hpp", "cpp", "py", "sh", "modulemap", "map", "in", "toml", "build"}
SOURCE_NAMES = {"run", "setup", "run-all", "Makefile", "Doxyfile", "meson.build", "CMakeLists.txt"}


def tracked():
    out = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True)
    if out.returncode != 0:
        return None
    return out.stdout.split()


def test_licence_file_is_mit():
    with open(os.path.join(REPO, "LICENSE"), encoding="utf-8") as f:
        text = f.read()
    assert text.startswith("MIT License")
    assert "Permission is hereby granted, free of charge" in text


def test_every_source_file_has_an_spdx_line():
    files = tracked()
    if files is None:
        import pytest
        pytest.skip("not a git checkout")
    sources = []
    for f in files:
        base = os.path.basename(f)
        ext = base.rsplit(".", 1)[-1] if "." in base else ""
        if ext in SOURCE_EXT or base in SOURCE_NAMES:
            sources.append(f)
    assert len(sources) > 150, f"only {len(sources)} source files found"
    missing = []
    for f in sources:
        p = os.path.join(REPO, f)
        if not os.path.isfile(p):
            continue
        with open(p, encoding="utf-8", errors="replace") as fh:
            head = fh.read(600)
        if TAG not in head:
            missing.append(f)
    assert missing == [], f"{len(missing)} source files lack '{TAG}' near the top: {missing[:10]}"
