# SPDX-License-Identifier: MIT
"""The `camcore` command-line tool (tools/camcore) on the host, where the only
camera is camcore's synthetic one: each subcommand, its --json output, exit
codes and messages. The same tool against vivid: Tests/kernel/test_cli.py."""
import json
import os
import re
import shutil
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
    assert r.returncode == 2 and "auto, v4l2, pipewire, libcamera, both, or names comma-separated" in r.stderr
    # A set of names (S33), and a set with a name camcore does not have.
    assert json.loads(run(tool, "--backend", "v4l2,libcamera", "--json", "list").stdout) == doc
    r = run(tool, "--backend=v4l2,gstreamer", "list")
    assert r.returncode == 2 and "comma-separated" in r.stderr, r.stderr


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
    assert (f["min_fps_exact"], f["max_fps_exact"], f["fps_exact"]) == ({"num": 1, "den": 1},
                                                                        {"num": 120, "den": 1}, [])
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
    assert doc["format"] == {"fourcc": "YU12", "width": 640, "height": 480, "fps": 30,
                             "fps_exact": {"num": 30, "den": 1}, "adjusted": 0}
    assert 0.99 <= doc["seconds"] <= 3
    # 30 fps for about a second (a busy host may start late, never early).
    assert 25 <= doc["frames"] <= 30 * doc["seconds"] + 3, doc
    assert doc["dropped"] == 0 and doc["corrupted"] == 0 and doc["exit_code"] == 0
    assert doc["output_bytes"] == doc["frames"] * 640 * 480 * 3 // 2 == raw.stat().st_size
    assert doc["container"] == "raw"


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


# ---------------------------------------------------------------------------
# Packaging (issue 16): getopt_long forms, --help per command, Y4M and
# --output - to a pipe, exact frame-rate fractions, v4l2-ctl FourCC names,
# bash completion and the man page.

COMMAND_OPTIONS = {
    "list": ["--json"],
    "formats": ["--json"],
    "capture": ["--size", "--fps", "--format", "--frames", "--seconds", "--snapshot", "--output",
                "--container", "--output-size", "--json"],
    "monitor": ["--json"],
    "controls": ["--set", "--json"],
}


def y4m_parse(data):
    """(header fields, [frame payloads]) of a YUV4MPEG2 stream; asserts its framing."""
    assert data.startswith(b"YUV4MPEG2 "), data[:40]
    end = data.index(b"\n")
    fields = data[10:end].decode().split(" ")
    header = {f[0]: f[1:] for f in fields}
    w, h = int(header["W"]), int(header["H"])
    assert header["C"] == "420jpeg"
    size = w * h + 2 * ((w + 1) // 2) * ((h + 1) // 2)
    frames, pos = [], end + 1
    while pos < len(data):
        assert data[pos:pos + 6] == b"FRAME\n", (pos, data[pos:pos + 12])
        payload = data[pos + 6:pos + 6 + size]
        assert len(payload) == size, f"frame {len(frames)}: {len(payload)} of {size} bytes"
        frames.append(payload)
        pos += 6 + size
    return header, frames


def test_cli_getopt_long_forms(tool):
    """--opt=value, -n N, options after DEVICE, -- ending the options."""
    a = run(tool, "capture", "--frames=3", "--size=160x120", "--fps=60", "--json", "synthetic:0")
    assert a.returncode == 0, a.stderr
    doc = json.loads(a.stdout)
    assert (doc["frames"], doc["format"]["width"], doc["format"]["height"], doc["format"]["fps"]) == (3, 160, 120, 60)
    b = run(tool, "capture", "synthetic:0", "-n", "2", "--size", "160x120", "--json")
    assert b.returncode == 0 and json.loads(b.stdout)["frames"] == 2, b.stderr
    c = run(tool, "--json", "capture", "-n2", "--size=160x120", "--", "synthetic:0")
    assert c.returncode == 0 and json.loads(c.stdout)["device"]["id"] == "synthetic:0", c.stderr
    # After --, "--frames" is a DEVICE, not an option.
    d = run(tool, "capture", "--frames", "1", "--", "--frames")
    assert d.returncode == 3 and "no camera with id '--frames'" in d.stderr, d.stderr
    e = run(tool, "formats", "--backend=v4l2", "--json", "synthetic:0")
    assert e.returncode == 0 and json.loads(e.stdout)["device"]["id"] == "synthetic:0"
    f = run(tool, "capture", "--size")
    assert f.returncode == 2 and "capture: --size needs a value" in f.stderr, f.stderr
    g = run(tool, "controls", "--frobnicate")
    assert g.returncode == 2 and "controls: unknown option '--frobnicate'" in g.stderr
    assert "Try 'camcore controls --help'." in g.stderr


def test_cli_help_per_command(tool):
    for command, options in COMMAND_OPTIONS.items():
        r = run(tool, command, "--help")
        assert r.returncode == 0 and r.stderr == "", (command, r.stderr)
        assert r.stdout.startswith(f"usage: camcore {command}"), r.stdout[:60]
        for option in options:
            assert re.search(rf"^\s+(-\w, )?{option}\b", r.stdout, re.M), (command, option, r.stdout)
        assert run(tool, command, "-h").stdout == r.stdout
        assert run(tool, "help", command).stdout == r.stdout
        # --help prints the help whatever else the line holds.
        assert run(tool, command, "--help", "--json").stdout == r.stdout
    top = run(tool, "--help").stdout
    assert "camcore COMMAND --help" in top and "--frames=10" in top
    r = run(tool, "help", "frobnicate")
    assert r.returncode == 2 and "unknown command 'frobnicate'" in r.stderr


def test_S22_cli_y4m_file(tool, tmp_path):
    out = tmp_path / "clip.y4m"
    r = run(tool, "--json", "capture", "synthetic:0", "--frames", "4", "--size", "320x240", "--fps", "30",
            "--format", "YUYV", "--output", str(out))
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    data = out.read_bytes()
    header, frames = y4m_parse(data)
    assert header == {"W": "320", "H": "240", "F": "30:1", "I": "p", "A": "1:1", "C": "420jpeg",
                      "X": "COLORRANGE=LIMITED"}, header
    assert len(frames) == 4 == doc["frames"]
    assert doc["container"] == "y4m" and doc["output_bytes"] == len(data)
    # YUYV captured, I420 written: camcore converted (the summary says from what).
    assert doc["format"]["fourcc"] == "YU12"
    y = frames[0][:320 * 240]
    assert len(set(y[120 * 320:121 * 320])) >= 4  # the colour bars across a row
    text = run(tool, "capture", "synthetic:0", "--frames", "2", "--size", "320x240", "--format", "YUYV",
               "--output", str(out))
    assert "  format    YUYV 320x240 at 30 fps (converted to YU12)" in text.stdout, text.stdout
    assert f"  output    {out} ({len(out.read_bytes())} bytes, Y4M)" in text.stdout
    assert f"  play it   ffplay {out}" in text.stdout
    # --format y4m: the container whatever the file name; scaled frames keep their size.
    other = tmp_path / "clip.bin"
    r = run(tool, "capture", "synthetic:0", "--frames", "3", "--size", "320x240", "--output-size", "160x120",
            "--format", "y4m", "--output", str(other))
    assert r.returncode == 0, r.stderr
    header, frames = y4m_parse(other.read_bytes())
    assert (header["W"], header["H"], len(frames), len(frames[0])) == ("160", "120", 3, 160 * 120 * 3 // 2)
    r = run(tool, "capture", "--container", "mp4", "--output", str(other))
    assert r.returncode == 2 and "--container 'mp4': raw or y4m" in r.stderr
    r = run(tool, "capture", "--container", "y4m", "--frames", "1")
    assert r.returncode == 2 and "needs --output FILE or --output -" in r.stderr


def test_S22_cli_output_to_a_pipe(tool):
    """--output - : the video on stdout (Y4M by default), every word of the tool on stderr."""
    env = dict(os.environ, LD_LIBRARY_PATH=str(STAGE_LIB))
    p = subprocess.run([tool, "--json", "capture", "synthetic:0", "--frames", "5", "--size", "160x120",
                        "--output", "-"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=60)
    assert p.returncode == 0, p.stderr
    header, frames = y4m_parse(p.stdout)
    assert (header["W"], header["H"], header["F"], len(frames)) == ("160", "120", "30:1", 5)
    summary = json.loads(p.stderr.decode().strip().splitlines()[-1])
    assert summary["output"] == "-" and summary["container"] == "y4m"
    assert summary["output_bytes"] == len(p.stdout) and summary["reader_closed"] is False
    # Text summary: on stderr, nothing but video on stdout.
    p = subprocess.run([tool, "capture", "synthetic:0", "-n", "3", "--size", "160x120", "-o", "-",
                        "--container", "raw"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=60)
    assert p.returncode == 0, p.stderr
    assert len(p.stdout) == 3 * 160 * 120 * 2  # YUYV, rows unpadded, no framing
    err = p.stderr.decode()
    assert re.search(r"^Captured 3 frames from camcore synthetic camera", err, re.M), err
    assert f"  output    stdout ({3 * 160 * 120 * 2} bytes)" in err
    # A reader that stops reading (a closed player) ends the capture cleanly.
    p = subprocess.Popen([tool, "capture", "synthetic:0", "--size", "160x120", "--output", "-"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    first = p.stdout.read(200)
    p.stdout.close()
    err = p.stderr.read().decode()
    assert p.wait(timeout=20) == 0, err
    assert first.startswith(b"YUV4MPEG2 W160 H120 F30:1 ")
    assert "(the reader closed the pipe)" in err, err


def test_S22_cli_output_pipe_plays_in_ffprobe(tool):
    """What `camcore capture --output - | ffplay -` shows, read by ffmpeg's own prober."""
    assert shutil.which("ffprobe"), "ffprobe not installed (.ci/setup installs ffmpeg)"
    env = dict(os.environ, LD_LIBRARY_PATH=str(STAGE_LIB))
    cam = subprocess.Popen([tool, "capture", "synthetic:0", "--frames", "6", "--size", "320x240", "--format", "NV12",
                            "--output", "-"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    probe = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-show_entries",
                            "stream=codec_name,width,height,pix_fmt,r_frame_rate,nb_read_frames", "-of", "json", "-"],
                           stdin=cam.stdout, capture_output=True, text=True, timeout=60)
    cam.stdout.close()
    assert cam.wait(timeout=20) == 0
    assert probe.returncode == 0, probe.stderr
    stream = json.loads(probe.stdout)["streams"][0]
    assert stream == {"codec_name": "rawvideo", "width": 320, "height": 240, "pix_fmt": "yuv420p",
                      "r_frame_rate": "30/1", "nb_read_frames": "6"}, stream


def test_S5_cli_json_fps_exact_fractions(tool):
    r = run(tool, "--json", "capture", "synthetic:0", "--fps", "30000/1001", "--frames", "3", "--size", "160x120")
    assert r.returncode == 0, r.stderr
    fmt = json.loads(r.stdout)["format"]
    assert fmt["fps_exact"] == {"num": 30000, "den": 1001}
    assert fmt["fps"] == 29.97  # the decimal beside it, 6 significant digits
    r = run(tool, "--json", "capture", "synthetic:0", "--fps", "15/2", "--frames", "2", "--size", "160x120")
    fmt = json.loads(r.stdout)["format"]
    assert (fmt["fps"], fmt["fps_exact"]) == (7.5, {"num": 15, "den": 2})
    r = run(tool, "capture", "--fps", "30/0")
    assert r.returncode == 2 and "not a frame rate" in r.stderr


def test_cli_fourcc_names_as_v4l2_ctl(tool):
    """FourCCs in and out as v4l2-ctl writes them, the big-endian '-BE' forms included."""
    for spelling in ("Y16 -BE", "Y16-BE", "y16-be"):
        r = run(tool, "capture", "synthetic:0", "--format", spelling, "--frames", "1")
        assert r.returncode == 1, r.stderr
        assert "cannot capture Y16 -BE: the synthetic camera has no pixel format Y16 -BE" in r.stderr, r.stderr
    r = run(tool, "capture", "synthetic:0", "--format", "mjpeg", "--frames", "1")
    assert "cannot capture MJPG:" in r.stderr
    r = run(tool, "capture", "synthetic:0", "--format", "TOOLONG", "--frames", "1")
    assert r.returncode == 2 and "is not a FourCC" in r.stderr


def test_cli_snapshot_converted_by_camcore(tool, tmp_path):
    """--snapshot goes through camcore_frame_convert: YUYV, NV12 and I420 all give the same picture size."""
    for fmt in ("YUYV", "NV12", "I420"):
        snap = tmp_path / f"{fmt}.png"
        r = run(tool, "capture", "synthetic:0", "--frames", "2", "--size", "320x240", "--format", fmt,
                "--snapshot", str(snap))
        assert r.returncode == 0, r.stderr
        assert png_info(snap)[:3] == (320, 240, 2), fmt


def completions(words, env_extra=None):
    """COMPREPLY of the bash completion for the words typed (the last one being completed)."""
    script = (f"source {TOOL_DIR / 'camcore.bash-completion'}\n"
              f"COMP_WORDS=({' '.join(repr(w) if w else chr(39) * 2 for w in words)})\n"
              f"COMP_CWORD={len(words) - 1}\n"
              "_camcore\n"
              "printf '%s\\n' \"${COMPREPLY[@]}\"\n")
    env = dict(os.environ, LD_LIBRARY_PATH=str(STAGE_LIB), PATH=f"{TOOL_DIR}:{os.environ['PATH']}")
    env.update(env_extra or {})
    r = subprocess.run(["bash", "--norc", "-c", script], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    return [l for l in r.stdout.splitlines() if l]


def test_cli_bash_completion(tool):
    assert completions(["camcore", "ca"]) == ["capture"]
    assert set(completions(["camcore", ""])) >= {"list", "formats", "capture", "monitor", "controls", "--json"}
    assert completions(["camcore", "capture", "--con"]) == ["--container"]
    assert completions(["camcore", "capture", "--container", ""]) == ["raw", "y4m"]
    assert completions(["camcore", "--backend", "pi"]) == ["pipewire"]
    assert completions(["camcore", "controls", "--s"]) == ["--set"]
    # DEVICE: the ids `camcore list` shows.
    assert "synthetic:0" in completions(["camcore", "formats", "syn"])


def test_cli_man_page():
    page = TOOL_DIR / "camcore.1"
    r = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", str(page)], capture_output=True, text=True)
    if r.returncode == 127:
        pytest.skip("no groff")
    assert r.returncode == 0 and r.stderr == "", r.stderr
    text = subprocess.run(["groff", "-man", "-Tutf8", "-P-c", str(page)], capture_output=True, text=True).stdout
    text = re.sub(r".\x08", "", text)
    for word in ("list", "formats", "capture", "monitor", "controls", "--container", "EXIT STATUS", "fps_exact"):
        assert word in text, word
    # Every option of every command's --help is in the page.
    for options in COMMAND_OPTIONS.values():
        for option in options:
            assert option.replace("-", "\u2010") in text or option in text, option


def test_S49_list_present_says_whether_a_camera_is_there(tool):
    real = has_real_camera()
    r = run(tool, "--json", "list", "--present", env_extra={"CAMCORE_SYNTHETIC_CAMERA": "1"})
    want = (0, '{"present": true}\n') if real else (3, '{"present": false}\n')  # synthetic: no camera
    assert (r.returncode, r.stdout) == want, (r.returncode, r.stdout, r.stderr)
    r = run(tool, "list", "--present")
    assert (r.returncode, r.stdout) == ((0, "present\n") if real else (3, "absent\n")), (r.stdout, r.stderr)
    r = run(tool, "list", "--present", "--all")
    assert r.returncode == 2 and "do not go together" in r.stderr, r.stderr
