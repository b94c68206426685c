# SPDX-License-Identifier: MIT
"""The examples capture from a real V4L2 driver (vivid), not the synthetic camera."""
from __future__ import annotations

import os
import re
import struct
import subprocess
import sys

import pytest

import conftest

REPO = conftest.REPO


def png_size(path: str):
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    assert head[12:16] == b"IHDR"
    return struct.unpack(">II", head[16:24])


def run_example(cmd, timeout=240):
    env = dict(os.environ)
    env.pop("CAMCORE_SYNTHETIC_CAMERA", None)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, cwd="/tmp")
    out = r.stdout + r.stderr
    print(out)
    assert r.returncode == 0, f"{cmd} exited {r.returncode}:\n{out}"
    return r.stdout, out


def test_c_example_captures_from_vivid(vivid_webcam):
    exe = os.path.join(REPO, "examples/c/camcore-capture")
    if not os.access(exe, os.X_OK):
        pytest.fail(f"{exe} not built: run `make examples` on the host")
    snap = "/tmp/kernel-c-snapshot.png"
    if os.path.exists(snap):
        os.remove(snap)
    stdout, out = run_example([exe, "--frames", "30", "--snapshot", snap])
    assert not re.search(r"using camcore's synthetic camera", stdout, re.I), \
        "the C example fell back to the synthetic camera"
    assert re.search(r"^Using camera \[0\] vivid \(/dev/video\d+\)", stdout, re.M), stdout
    frame_lines = [l for l in stdout.splitlines() if re.match(r"^\s*frame\s+\d+", l)]
    assert len(frame_lines) == 30, f"{len(frame_lines)} frame lines"
    for line in frame_lines:
        assert "640x480" in line and "YUYV" in line, line
    seqs = [int(m.group(1)) for l in frame_lines if (m := re.search(r"seq\s+(\d+)", l))]
    assert len(seqs) == 30 and all(b > a for a, b in zip(seqs, seqs[1:])), seqs
    assert png_size(snap) == (640, 480)


def test_python_example_captures_from_vivid(vivid_webcam):
    script = os.path.join(REPO, "examples/python/capture.py")
    if not os.path.exists(script):
        pytest.fail(f"{script} missing (the Python example is not written yet)")
    snap = "/tmp/kernel-py-snapshot.png"
    if os.path.exists(snap):
        os.remove(snap)
    stdout, out = run_example([sys.executable, script, "--frames", "10", "--snapshot", snap])
    assert not re.search(r"using camcore's synthetic camera", stdout, re.I), \
        "the Python example fell back to the synthetic camera"
    assert re.search(r"^Capturing 10 frames from 'vivid'", stdout, re.M), stdout
    frame_lines = [l for l in stdout.splitlines() if re.match(r"^\s*frame\s+\d+", l)]
    assert len(frame_lines) == 10, f"{len(frame_lines)} frame lines"
    for line in frame_lines:
        assert "640x480" in line and "YUYV" in line, line
    assert png_size(snap) == (640, 480)
