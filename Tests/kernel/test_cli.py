# SPDX-License-Identifier: MIT
"""The `camcore` tool (tools/camcore) against vivid: every subcommand, checked
against the kernel's own answers (v4l2-ctl, sysfs) and camcore's C API.

Needs the tool built on the host: `make tools` (or make -C tools/camcore).
"""
from __future__ import annotations

import json
import os
import re
import select
import signal
import struct
import subprocess
import time
import zlib

import pytest

import conftest
import v4l2probe as v4l

TOOL = os.path.join(conftest.REPO, "tools/camcore/camcore")


@pytest.fixture(scope="module")
def tool():
    if not os.access(TOOL, os.X_OK):
        pytest.fail(f"{TOOL} not built: run `make tools` (or make -C tools/camcore) on the host")
    return TOOL


def run(*args, timeout=120):
    env = dict(os.environ)
    env.pop("CAMCORE_SYNTHETIC_CAMERA", None)
    r = subprocess.run([TOOL, *args], capture_output=True, text=True, timeout=timeout, env=env, cwd="/tmp")
    print(f"$ camcore {' '.join(args)}  -> {r.returncode}\n{r.stdout}{r.stderr}")
    return r


def devices():
    r = run("--json", "list")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["devices"]


def png_pixels(path):
    """(width, height, rows of RGB bytes) of an 8-bit RGB PNG written by the tool."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", data[pos + 8:pos + 8 + n])
        elif kind == b"IDAT":
            idat += data[pos + 8:pos + 8 + n]
        pos += 12 + n
    w, h = ihdr[0], ihdr[1]
    assert ihdr[2:4] == (8, 2), ihdr
    raw = zlib.decompress(idat)
    rows, prev, stride = [], bytearray(w * 3), 1 + w * 3
    for y in range(h):
        f, line = raw[y * stride], bytearray(raw[y * stride + 1:(y + 1) * stride])
        for i in range(len(line)):
            a = line[i - 3] if i >= 3 else 0
            b = prev[i]
            c = prev[i - 3] if i >= 3 else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, rows


def test_cli_list(vivid_webcam, tool):
    nodes = v4l.capture_nodes()
    assert len(nodes) == 2, nodes
    r = run("list")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert re.match(r"#\s+ID\s+NAME\s+TYPE\s+POSITION\s+NODE\s+BACKEND$", lines[0]), lines
    rows = lines[1:]
    assert len(rows) == 2, lines
    for i, (row, node) in enumerate(zip(rows, nodes)):
        assert re.match(rf"{i}\s+\S+\s+vivid\s+virtual\s+\w+\s+{re.escape(node)}\s+v4l2$", row), row
    assert "synthetic" not in r.stdout
    devs = devices()
    assert [d["node"] for d in devs] == nodes
    assert [d["index"] for d in devs] == [0, 1]
    for d in devs:
        caps = v4l.querycap(d["node"])
        assert (d["driver"], d["name"], d["bus_info"]) == ("vivid", caps.card, caps.bus_info)
        assert d["type"] == "virtual" and d["synthetic"] is False and d["multiplanar"] is False
    assert devs[0]["id"] != devs[1]["id"]


def test_cli_formats(vivid_webcam, tool):
    devs = devices()
    node = devs[0]["node"]
    kernel = v4l.list_formats(node)
    by_node, by_index, by_id = run("formats", node), run("formats", "0"), run("formats", devs[0]["id"])
    assert by_node.returncode == by_index.returncode == by_id.returncode == 0
    assert by_node.stdout == by_index.stdout == by_id.stdout
    out = by_node.stdout
    assert out.splitlines()[0] == f"Formats of vivid ({node}, id {devs[0]['id']}):"
    listed = re.findall(r"^  (\S.{3}(?:-BE)?)  ", out, re.M)  # "Y16 ", "Y16 -BE" as v4l2-ctl writes them
    assert [v4l.fourcc_from_ctl(c) for c in listed] == [f for f, _ in kernel]
    # vivid's webcam sizes with their discrete rates (640x480 goes up to 25 fps).
    assert re.search(r"^        640x480  25(, [\d.]+)* fps$", out, re.M), out
    doc = json.loads(run("--json", "formats", node).stdout)
    assert doc["device"]["node"] == node
    fourccs = []
    for f in doc["formats"]:
        if f["fourcc"] not in fourccs:
            fourccs.append(f["fourcc"])
        assert f["size_kind"] == "discrete" and f["rate_kind"] == "discrete"
        assert f["fps"] and f["fps"] == sorted(f["fps"], reverse=True)
    assert [v4l.fourcc_from_ctl(c) for c in fourccs] == [f for f, _ in kernel]
    yuyv = {(f["width"], f["height"]): f["fps"] for f in doc["formats"] if f["fourcc"] == "YUYV"}
    assert yuyv[(640, 480)][0] == 25  # as VIDIOC_ENUM_FRAMEINTERVALS says (see test_formats.py)


def test_cli_capture(vivid_webcam, tool):
    node = devices()[1]["node"]
    snap, raw = "/tmp/cli-snap.png", "/tmp/cli-frames.yuv"
    for p in (snap, raw):
        if os.path.exists(p):
            os.remove(p)
    r = run("capture", node, "--frames", "10", "--size", "640x480", "--format", "YUYV",
            "--snapshot", snap, "--output", raw)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert re.match(rf"Captured 10 frames from vivid \({re.escape(node)}\) in [\d.]+ s$", lines[0]), lines
    assert lines[1] == "  format    YUYV 640x480 at 25 fps"
    assert re.match(r"  measured  [\d.]+ fps, dropped \d+, corrupted 0$", lines[2]), lines
    assert lines[3] == f"  snapshot  {snap} (640x480 PNG)"
    assert lines[4] == f"  output    {raw} ({10 * 640 * 480 * 2} bytes)"
    assert os.path.getsize(raw) == 10 * 640 * 480 * 2
    w, h, rows = png_pixels(snap)
    assert (w, h) == (640, 480)
    # vivid's 75% colour bars: the first bar is (75%) white, the last-but-one blue-ish,
    # every bar is flat across its width in the middle row.
    mid = rows[240]
    centres = v4l.bar_centres(640)
    first = mid[centres[0] * 3:centres[0] * 3 + 3]
    assert min(first) > 150 and max(first) - min(first) < 30, first
    colours = {bytes(mid[x * 3:x * 3 + 3]) for x in centres}
    assert len(colours) == len(centres), colours


def test_cli_capture_json_seconds_and_negotiation(vivid_webcam, tool, camcore):
    r = run("--json", "capture", "0", "--seconds", "2")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    # No --size/--fps: what S6 negotiation picks for 1280x720 at 15-30 fps (vivid's
    # 1280x720 does not reach 15 fps, so a 16:9 size that does).
    with camcore.Manager() as m:
        want = m.negotiate(doc["device"]["id"])
    f = doc["format"]
    assert (f["fourcc"], f["width"], f["height"], f["fps"]) == (want.fourcc, want.width, want.height, want.fps), \
        (f, want)
    assert 15 <= f["fps"] <= 30 and f["width"] * 9 == f["height"] * 16
    assert doc["frames"] >= 3 and doc["corrupted"] == 0 and doc["exit_code"] == 0
    assert 1.9 <= doc["seconds"] <= 10


def test_cli_capture_busy_device(vivid_webcam, tool):
    node = devices()[0]["node"]
    other = subprocess.Popen(["v4l2-ctl", "-d", node, "--stream-mmap", "--stream-count", "2000"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(2.0)
        assert other.poll() is None, other.stderr.read()
        r = run("capture", node, "--frames", "3")
        assert r.returncode == 4, r.stderr
        assert f"device busy: {node} is used by another process" in r.stderr
        assert "Close the other program, or pick another camera (camcore list)" in r.stderr
        # S46: the detail names the holder, and `list` marks the camera.
        assert f"held by v4l2-ctl (pid {other.pid})" in r.stderr, r.stderr
        print("MEASURED busy message:", r.stderr.strip().splitlines()[-1])
        r = run("list")
        assert r.returncode == 0 and f"busy: held by v4l2-ctl (pid {other.pid})" in r.stdout, r.stdout
        r = run("--json", "list")
        busy = [d for d in json.loads(r.stdout)["devices"] if d.get("holders")]
        assert [(d["node"], d["holders"]) for d in busy] == [(node, [{"pid": other.pid, "command": "v4l2-ctl"}])], r.stdout
    finally:
        other.terminate()
        other.wait(timeout=20)


def test_cli_controls_list(vivid_webcam, tool):
    node = devices()[0]["node"]
    r = run("controls", node)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert out.splitlines()[0] == f"Controls of vivid ({node}):"
    assert re.search(r"^  brightness\s+0x00980900 int\s+value=128 min=0 max=255 step=1 default=128 flags=slider$",
                     out, re.M), out
    assert re.search(r"^  gain\s+0x00980913 int\s+value=\d+ min=0 max=255 step=1 default=100 flags=inactive,volatile$",
                     out, re.M)
    assert re.search(r"^  menu\s+0x0098f904 menu\s+value=3 \(Menu Item 3\) min=1 max=4 default=3\n"
                     r"      1: Menu Item 1\n      3: Menu Item 3\n      4: Menu Item 4\n", out, re.M)
    assert re.search(r"^  button\s+0x0098f900 button\s+\(button\) flags=write-only,execute-on-write$", out, re.M)
    assert re.search(r"^  bitmask\s+0x0098f906 bitmask\s+value=0x80002000 mask=0x80402010 default=0x80002000$",
                     out, re.M)
    assert re.search(r"^  read_only_integer_32_bits\s+0x0098f90c int\s+value=\d+ .*flags=read-only$", out, re.M)
    doc = json.loads(run("--json", "controls", node).stdout)
    ctl = {c["key"]: c for c in doc["controls"]}
    kernel = {m.group(1) for m in re.finditer(r"^\s*(\w+) 0x[0-9a-f]{8} \((int|bool|menu|button|int64|bitmask|intmenu|str)\)",
                                              v4l.v4l2_ctl("-d", node, "-l"), re.M)}
    assert set(ctl) == kernel
    assert ctl["brightness"] == {"id": 0x00980900, "name": "Brightness", "key": "brightness", "type": "int",
                                 "minimum": 0, "maximum": 255, "step": 1, "default": 128, "value": 128,
                                 "flags_raw": 0x20, "flags": ["slider"], "menu": []}
    assert ctl["integer_64_bits"]["minimum"] == -(1 << 63)
    assert [m["index"] for m in ctl["integer_menu"]["menu"]] == [2, 3, 4, 5, 6, 7, 8]


def test_cli_controls_string(vivid_webcam, tool):
    """A string control: listed with its text, set with --set NAME=TEXT (the
    kernel sees it), a length outside 2..4 refused with the valid lengths."""
    node = devices()[0]["node"]
    before = {c["key"]: c for c in json.loads(run("--json", "controls", node).stdout)["controls"]}["string"]
    assert before["type"] == "string" and "text" in before, before
    try:
        r = run("controls", node, "--set", "string=xyz")
        assert r.returncode == 0, r.stderr
        assert r.stdout.splitlines() == ['string: "xyz"']
        assert "xyz" in v4l.v4l2_ctl("-d", node, "-C", "string")
        assert re.search(r'^  string\s+0x0098f905 string\s+value="xyz" length 2\.\.4', run("controls", node).stdout, re.M)
        doc = json.loads(run("--json", "controls", node, "--set", "string=ab").stdout)
        assert [(x["key"], x["requested"], x["applied"]) for x in doc["set"]] == [("string", "ab", "ab")]
        r = run("controls", node, "--set", "string=toolong")
        assert r.returncode == 2 and "length from 2 to 4" in r.stderr, r.stderr
    finally:
        run("controls", node, "--set", f"string={before['text']}")


def test_cli_controls_set(vivid_webcam, tool):
    node = devices()[0]["node"]
    try:
        r = run("controls", node, "--set", "brightness=200", "--set", "Contrast=0x40", "--set", "menu=Menu Item 4",
                "--set", "boolean=false", "--set", "0x0098f903=-5")
        assert r.returncode == 0, r.stderr
        assert r.stdout.splitlines() == ["brightness: 200", "contrast: 64", "menu: 4 (Menu Item 4)",
                                         "boolean: 0", "integer_64_bits: -5"]
        kernel = v4l.v4l2_ctl("-d", node, "-C", "brightness,contrast,menu,boolean,integer_64_bits")
        assert "brightness: 200" in kernel and "contrast: 64" in kernel and "menu: 4" in kernel
        assert "boolean: 0" in kernel and "integer_64_bits: -5" in kernel

        # A leading zero is decimal, not octal (strtoll base 0 read 010 as 8 and refused 08).
        r = run("controls", node, "--set", "brightness=010", "--set", "contrast=08")
        assert r.returncode == 0, r.stderr
        assert r.stdout.splitlines() == ["brightness: 10", "contrast: 8"], r.stdout
        assert run("controls", node, "--set", "brightness=200", "--set", "contrast=0x40").returncode == 0
        r = run("controls", node, "--set", "brightness=300")
        assert r.returncode == 2
        assert "cannot set Brightness to 300: value 300 is out of range for control 'Brightness' " \
               "(0x00980900): minimum 0, maximum 255, step 1" in r.stderr
        r = run("controls", node, "--set", "gain=10")
        assert r.returncode == 1 and "is inactive" in r.stderr and "turn that off first" in r.stderr
        r = run("controls", node, "--set", "menu=2")
        assert r.returncode == 2 and "valid indices: 1 (Menu Item 1), 3 (Menu Item 3), 4 (Menu Item 4)" in r.stderr
        r = run("controls", node, "--set", "read_only_integer_32_bits=1")
        assert r.returncode == 1 and "is read-only" in r.stderr
        r = run("controls", node, "--set", "no_such_control=1")
        assert r.returncode == 2 and f"{node} has no control 'no_such_control'" in r.stderr
        r = run("controls", node, "--set", "menu=Menu Item 2")
        assert r.returncode == 2 and "is not an item of menu 'Menu'" in r.stderr
        # autogain off makes gain writable
        r = run("--json", "controls", node, "--set", "gain_automatic=0", "--set", "gain=10")
        assert r.returncode == 0, r.stderr
        doc = json.loads(r.stdout)
        assert [(s["key"], s["requested"], s["applied"]) for s in doc["set"]] == [
            ("gain_automatic", 0, 0), ("gain", 10, 10)]
        assert "gain: 10" in v4l.v4l2_ctl("-d", node, "-C", "gain")
        assert v4l.v4l2_ctl("-d", node, "-C", "brightness").strip() == "brightness: 200"  # earlier set kept
    finally:
        v4l.v4l2_ctl("-d", node, "-c", "brightness=128,contrast=128,menu=3,boolean=1,integer_64_bits=0,"
                                       "gain_automatic=1")


class Lines:
    """Reads a child's stdout line by line with a timeout (never hangs the run)."""

    def __init__(self, proc):
        self.fd = proc.stdout.fileno()
        self.buf = b""

    def next(self, timeout=60.0) -> str:
        end = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = end - time.monotonic()
            assert left > 0, f"no line within {timeout} s (have {self.buf!r})"
            r, _, _ = select.select([self.fd], [], [], left)
            if r:
                chunk = os.read(self.fd, 4096)
                assert chunk, f"EOF (have {self.buf!r})"
                self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode()


def test_cli_monitor_hotplug(vivid_webcam, tool):
    before = devices()
    p = subprocess.Popen([TOOL, "--json", "monitor"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = Lines(p)
    events = []
    try:
        for _ in before:
            events.append(json.loads(out.next()))
        assert [(e["event"], e["device"]["id"]) for e in events] == [("present", d["id"]) for d in before]
        conftest._vivid.unload()   # hot-unplug: both devices go
        gone = [json.loads(out.next()) for _ in before]
        assert sorted((e["event"], e["device"]["id"]) for e in gone) == \
            sorted(("disconnected", d["id"]) for d in before)
        conftest._vivid.load(conftest.VIVID_WEBCAM)   # and come back with the same ids
        back = [json.loads(out.next()) for _ in before]
        assert sorted((e["event"], e["device"]["id"]) for e in back) == \
            sorted(("connected", d["id"]) for d in before)
        assert {e["device"]["node"] for e in back} == {d["node"] for d in before}
    finally:
        p.send_signal(signal.SIGINT)
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
    assert p.returncode == 0, p.stderr.read()
    # text mode: the present lines
    p = subprocess.Popen([TOOL, "monitor"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = Lines(p)
    lines = [out.next() for _ in before]
    p.send_signal(signal.SIGINT)
    p.wait(timeout=10)
    for line, d in zip(lines, before):
        assert re.match(rf"\d\d:\d\d:\d\d\.\d{{3}}  present\s+{re.escape(d['node'])}  vivid  {re.escape(d['id'])}$",
                        line), line


def y4m_frames(data):
    """(header fields, [frame payloads]) of a YUV4MPEG2 stream of 4:2:0 frames."""
    assert data.startswith(b"YUV4MPEG2 "), data[:40]
    end = data.index(b"\n")
    header = {f[0]: f[1:] for f in data[10:end].decode().split(" ")}
    w, h = int(header["W"]), int(header["H"])
    size = w * h + 2 * ((w + 1) // 2) * ((h + 1) // 2)
    frames, pos = [], end + 1
    while pos < len(data):
        assert data[pos:pos + 6] == b"FRAME\n", pos
        frames.append(data[pos + 6:pos + 6 + size])
        assert len(frames[-1]) == size
        pos += 6 + size
    return header, frames


def test_cli_formats_json_names_and_exact_rates(vivid_webcam, tool):
    """--json formats against v4l2-ctl --list-formats-ext: FourCC names as it
    writes them ('Y16 -BE' included) and every discrete rate as the exact
    fraction whose value v4l2-ctl prints."""
    node = devices()[0]["node"]
    ctl = v4l.list_formats_ext(node)
    doc = json.loads(run("--json", "formats", node).stdout)
    names = []
    for f in doc["formats"]:
        if f["fourcc"] not in names:
            names.append(f["fourcc"])
    assert names == [c.fourcc_text for c in ctl]
    assert any(n.endswith(" -BE") for n in names), names  # vivid has big-endian formats
    checked = 0
    for c in ctl:
        for size in c.sizes:
            entry = [f for f in doc["formats"] if f["fourcc"] == c.fourcc_text and
                     (f["width"], f["height"]) == (size.width, size.height)]
            assert len(entry) == 1, (c.fourcc_text, size)
            e = entry[0]
            assert len(e["fps_exact"]) == len(e["fps"]) == len(size.fps)
            # camcore lists rates highest first, v4l2-ctl in the driver's order.
            printed = sorted(size.fps, key=float, reverse=True)
            for exact, decimal, want in zip(e["fps_exact"], e["fps"], printed):
                assert f"{exact['num'] / exact['den']:.3f}" == want, (exact, want)
                assert abs(decimal - exact["num"] / exact["den"]) < 1e-4
                checked += 1
    assert checked >= 10, checked


def test_cli_capture_y4m_to_stdout(vivid_webcam, tool):
    """capture --output - from vivid: a Y4M stream on stdout (YUYV converted
    to I420 by camcore), the summary on stderr."""
    node = devices()[1]["node"]
    env = dict(os.environ)
    env.pop("CAMCORE_SYNTHETIC_CAMERA", None)
    p = subprocess.run([TOOL, "capture", node, "--frames=5", "--size", "640x480", "--format", "YUYV",
                        "--output", "-"], capture_output=True, timeout=120, env=env, cwd="/tmp")
    err = p.stderr.decode()
    assert p.returncode == 0, err
    header, frames = y4m_frames(p.stdout)
    assert (header["W"], header["H"], header["F"], len(frames)) == ("640", "480", "25:1", 5), header
    assert header["C"] == "420jpeg" and header["X"] == "COLORRANGE=LIMITED"
    y = frames[-1]
    mid = [y[240 * 640 + x] for x in v4l.bar_centres(640)]
    assert len(set(mid)) == len(mid), mid  # every colour bar has its own luma
    assert f"Captured 5 frames from vivid ({node})" in err
    assert "  format    YUYV 640x480 at 25 fps (converted to YU12)" in err, err
