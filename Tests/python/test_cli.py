"""The `camcore` command-line tool (tools/camcore) on the host, where the only
camera is camcore's synthetic one: each subcommand, its --json output, exit
codes and messages. The same tool against vivid: Tests/kernel/test_cli.py."""
import json
import os
import re
import signal
import struct
import subprocess
import time
import zlib

import pytest

from conftest import ROOT, STAGE_LIB

TOOL_DIR = ROOT / "tools" / "camcore"
TOOL = TOOL_DIR / "camcore"


@pytest.fixture(scope="module")
def tool():
    """Builds tools/camcore against the staged library (make is a no-op when up to date)."""
    pc = STAGE_LIB / "pkgconfig"
    r = subprocess.run(["make", "-C", str(TOOL_DIR), f"PKG_CONFIG_PATH={pc}", "CFLAGS=-O2 -g -Werror"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    return str(TOOL)


def has_real_camera():
    return any(n.startswith("video") for n in os.listdir("/dev"))


def run(tool, *args, env_extra=None, timeout=60):
    env = dict(os.environ)
    env.pop("CAMCORE_SYNTHETIC_CAMERA", None)
    env["LD_LIBRARY_PATH"] = str(STAGE_LIB)
    env.update(env_extra or {})
    return subprocess.run([tool, *args], capture_output=True, text=True, timeout=timeout, env=env)


def png_info(path):
    """(width, height, colour type, distinct colours sampled) of an 8-bit RGB PNG."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", data[pos + 8:pos + 8 + n])
        elif kind == b"IDAT":
            idat += data[pos + 8:pos + 8 + n]
        pos += 12 + n
    w, h = ihdr[0], ihdr[1]
    raw = zlib.decompress(idat)
    assert len(raw) == h * (1 + 3 * w)
    return w, h, ihdr[3], ihdr[2]


def test_cli_help_and_version(tool):
    r = run(tool, "--help")
    assert r.returncode == 0
    for word in ("list", "formats", "capture", "monitor", "controls", "--json", "Exit codes"):
        assert word in r.stdout
    r = run(tool, "--version")
    assert r.returncode == 0
    assert re.match(r"camcore \d+\.\d+\.\d+, libcamcore \d+\.\d+\.\d+", r.stdout)


def test_cli_usage_errors_exit_2(tool):
    r = run(tool)
    assert r.returncode == 2 and "usage:" in r.stderr
    r = run(tool, "frobnicate")
    assert r.returncode == 2 and "unknown command 'frobnicate'" in r.stderr
    r = run(tool, "capture", "--frames", "x")
    assert r.returncode == 2 and "--frames 'x' is not a number from 1 to 4294967295" in r.stderr
    r = run(tool, "capture", "--frames", "3", "--seconds", "1")
    assert r.returncode == 2 and "not both" in r.stderr
    r = run(tool, "capture", "--size", "640")
    assert r.returncode == 2 and "WIDTHxHEIGHT" in r.stderr
    r = run(tool, "list", "extra")
    assert r.returncode == 2


def test_S4_cli_list_synthetic_when_no_camera(tool):
    if has_real_camera():
        pytest.skip("this host has a camera")
    r = run(tool, "list")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "No camera found; camcore's synthetic camera stands in for one."
    assert re.match(r"#\s+ID\s+NAME\s+TYPE\s+POSITION\s+NODE\s+BACKEND$", lines[1])
    assert re.match(r"0\s+synthetic:0\s+camcore synthetic camera\s+virtual\s+unknown\s+synthetic"
                    r"\s+synthetic$", lines[2]), lines[2]
    assert len(lines) == 3


def test_S4_cli_list_json(tool):
    if has_real_camera():
        pytest.skip("this host has a camera")
    r = run(tool, "--json", "list")
    assert r.returncode == 0
    doc = json.loads(r.stdout)
    assert doc["devices"] == [{
        "index": 0, "id": "synthetic:0", "name": "camcore synthetic camera", "node": "synthetic",
        "backend": "synthetic", "type": "virtual", "position": "unknown", "driver": "camcore", "bus_info": "synthetic:0",
        "usb_vendor_id": 0, "usb_product_id": 0, "multiplanar": False, "synthetic": True,
        "unavailable": False}]
    # --json may come after the command too
    assert json.loads(run(tool, "list", "--json").stdout) == doc
    # --backend (S33): a name or a usage error.
    assert json.loads(run(tool, "--backend", "v4l2", "--json", "list").stdout) == doc
    r = run(tool, "--backend=gstreamer", "list")
    assert r.returncode == 2 and "auto, v4l2, pipewire, both" in r.stderr


def test_S5_cli_formats(tool):
    r = run(tool, "formats", "synthetic:0")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert out.splitlines()[0] == "Formats of camcore synthetic camera (synthetic, id synthetic:0):"
    for code in ("YUYV", "YU12", "NV12"):
        assert re.search(rf"^  {code}  ", out, re.M), out
    assert out.count("16x16 - 3840x2160 (step 2x2)  1 - 120 fps (continuous)") == 3


def test_S5_cli_formats_json(tool):
    r = run(tool, "formats", "--json", "0")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["device"]["id"] == "synthetic:0"
    assert [f["fourcc"] for f in doc["formats"]] == ["YUYV", "YU12", "NV12"]
    f = doc["formats"][0]
    assert (f["size_kind"], f["min_width"], f["max_width"], f["step_width"]) == ("stepwise", 16, 3840, 2)
    assert (f["min_height"], f["max_height"], f["step_height"]) == (16, 2160, 2)
    assert (f["rate_kind"], f["min_fps"], f["max_fps"], f["fps"]) == ("continuous", 1, 120, [])
    assert f["compressed"] is False


def test_S22_cli_capture_frames_snapshot_output(tool, tmp_path):
    snap, raw = tmp_path / "snap.png", tmp_path / "frames.yuv"
    r = run(tool, "capture", "--frames", "12", "--size", "320x240", "--fps", "60",
            "--snapshot", str(snap), "--output", str(raw))
    assert r.returncode == 0, r.stderr
    if not has_real_camera():
        assert "no camera found; using camcore's synthetic camera" in r.stderr
    lines = r.stdout.splitlines()
    assert re.match(r"Captured 12 frames from camcore synthetic camera \(synthetic\) in [\d.]+ s$", lines[0])
    assert lines[1] == "  format    YUYV 320x240 at 60 fps"
    m = re.match(r"  measured  ([\d.]+) fps, dropped 0, corrupted 0$", lines[2])
    assert m and 40 <= float(m.group(1)) <= 80, lines[2]  # 60 fps asked; a busy host jitters
    assert lines[3] == f"  snapshot  {snap} (320x240 PNG)"
    assert lines[4] == f"  output    {raw} ({12 * 320 * 240 * 2} bytes)"
    assert "ffplay -f rawvideo -pixel_format yuyv422 -video_size 320x240" in lines[5]
    assert png_info(snap)[:3] == (320, 240, 2)
    assert raw.stat().st_size == 12 * 320 * 240 * 2
    # The raw frames are YUYV: luma varies across the colour bars.
    first_row = raw.read_bytes()[:320 * 2]
    assert len(set(first_row[0::2])) >= 4


def test_S31_cli_capture_file_names_checked_before_capturing(tool, tmp_path):
    """An empty, unwritable or doubly used file name fails at once (no capture)."""
    r = run(tool, "capture", "--frames", "1", "--snapshot", "")
    assert r.returncode == 2 and "--snapshot needs a file name" in r.stderr, r.stderr
    r = run(tool, "capture", "--frames", "1", "--snapshot", str(tmp_path / "no" / "dir.png"))
    assert r.returncode == 1 and f"cannot create {tmp_path / 'no' / 'dir.png'}: No such file" in r.stderr
    assert "Captured" not in r.stdout
    same = str(tmp_path / "same.png")
    r = run(tool, "capture", "--frames", "1", "--snapshot", same, "--output", same)
    assert r.returncode == 2 and "name the same file" in r.stderr, r.stderr
    r = run(tool, "capture", "--frames", "99999999999999999999")
    assert r.returncode == 2 and "is not a number from 1 to 4294967295" in r.stderr, r.stderr
    assert not (tmp_path / "same.png").exists()


def test_S22_cli_capture_json_seconds_i420(tool, tmp_path):
    raw = tmp_path / "frames.i420"
    r = run(tool, "--json", "capture", "synthetic:0", "--seconds", "1", "--format", "I420",
            "--size", "640x480", "--fps", "30", "--output", str(raw))
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["format"] == {"fourcc": "YU12", "width": 640, "height": 480, "fps": 30, "adjusted": 0}
    assert 0.99 <= doc["seconds"] <= 3
    # 30 fps for about a second (a busy host may start late, never early).
    assert 25 <= doc["frames"] <= 30 * doc["seconds"] + 3, doc
    assert doc["dropped"] == 0 and doc["corrupted"] == 0 and doc["exit_code"] == 0
    assert doc["output_bytes"] == doc["frames"] * 640 * 480 * 3 // 2 == raw.stat().st_size


def test_S6_cli_capture_negotiates_unset_settings(tool):
    r = run(tool, "--json", "capture", "synthetic:0", "--frames", "3")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    # S6 default preference: 1280x720 at up to 30 fps; the synthetic camera can do it exactly.
    assert doc["format"]["width"] == 1280 and doc["format"]["height"] == 720
    assert doc["format"]["fps"] == 30 and doc["frames"] == 3


def test_S26_cli_capture_errors_are_actionable(tool):
    r = run(tool, "capture", "no-such-camera", "--frames", "2")
    assert r.returncode == 3
    assert "no camera with id 'no-such-camera'; see camcore list" in r.stderr
    r = run(tool, "capture", "7", "--frames", "2")
    assert r.returncode == 3 and "no camera with index 7" in r.stderr
    r = run(tool, "capture", "/dev/no-such-video", "--frames", "2")
    assert r.returncode == 3 and "no such device node: /dev/no-such-video" in r.stderr
    r = run(tool, "capture", "synthetic:0", "--format", "MJPG", "--frames", "2")
    assert r.returncode == 1
    assert "cannot capture MJPG" in r.stderr and "it offers YUYV, YU12, NV12" in r.stderr
    # A FourCC camcore does not know: naming it must not overwrite the
    # library's message before it is printed (it printed freed bytes).
    r = run(tool, "capture", "synthetic:0", "--format", "ABCD", "--frames", "2")
    assert r.returncode == 1
    assert ("cannot capture ABCD: the synthetic camera has no pixel format ABCD; "
            "it offers YUYV, YU12, NV12. See: camcore formats") in r.stderr, r.stderr
    r = run(tool, "capture", "synthetic:0", "--frames", "2", "--output", "/nonexistent-dir/x.raw")
    assert r.returncode == 1 and "cannot create /nonexistent-dir/x.raw" in r.stderr


def test_cli_capture_until_interrupted(tool):
    env = dict(os.environ, LD_LIBRARY_PATH=str(STAGE_LIB))
    p = subprocess.Popen([tool, "capture", "synthetic:0", "--size", "160x120"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env)
    line = p.stderr.readline()
    assert "Capturing from camcore synthetic camera (synthetic): YUYV 160x120 at 30 fps (Ctrl-C to stop)" in line
    time.sleep(0.7)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=10)
    assert p.returncode == 0, err
    m = re.match(r"Captured (\d+) frames from .* \(interrupted\)$", out.splitlines()[0])
    assert m and int(m.group(1)) >= 5, out


def test_S27_cli_controls_synthetic(tool):
    r = run(tool, "controls", "synthetic:0")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["Controls of camcore synthetic camera (synthetic):", "  (none)"]
    r = run(tool, "--json", "controls", "synthetic:0")
    doc = json.loads(r.stdout)
    assert doc["controls"] == [] and doc["device"]["synthetic"] is True
    r = run(tool, "controls", "synthetic:0", "--set", "brightness=10")
    assert r.returncode == 2
    assert "camcore synthetic camera (synthetic) has no controls" in r.stderr
    r = run(tool, "controls", "--set", "brightness")
    assert r.returncode == 2 and "NAME=VALUE" in r.stderr


def test_S24_cli_monitor_until_interrupted(tool):
    env = dict(os.environ, LD_LIBRARY_PATH=str(STAGE_LIB), CAMCORE_SYNTHETIC_CAMERA="1")
    for args in (["monitor"], ["--json", "monitor"]):
        p = subprocess.Popen([tool, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env=env)
        first = p.stdout.readline()
        time.sleep(0.8)  # at least one poll
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=10)
        assert p.returncode == 0, err
        if args[0] == "--json":
            ev = json.loads(first)
            assert ev["event"] == "present" and ev["device"]["id"] == "synthetic:0"
            assert re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$", ev["time"])
        else:
            assert re.match(r"\d\d:\d\d:\d\d\.\d{3}  present\s+synthetic  camcore synthetic camera  synthetic:0$",
                            first.rstrip("\n")), first
            assert "Watching for cameras (udev hot-plug events; Ctrl-C to stop)" in err \
                or "Watching for cameras (polling every 500 ms; Ctrl-C to stop)" in err, err
        assert out.strip() == ""  # nothing changed
