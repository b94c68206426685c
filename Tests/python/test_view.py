# SPDX-License-Identifier: MIT
"""`camcore view` (tools/camcore/cmd_view.c) on the host's synthetic camera,
in a real window under Xvfb: the picture is the camera's colour bars (colour
sampled at the bar centres of a screenshot), the title carries the camera,
the format and a measured rate, pause turns the camera off and shows the
camera-off frame (S12), the snapshot key writes the picture as a PNG, size
and rate keys change the capture (S17), Escape and the close button end the
tool cleanly, and a camera that is not there gives the usual message and
exit code with no window. The same on vivid with hot-plug, in the guest:
Tests/kernel/test_view.py."""
import os
import subprocess

import numpy as np
import pytest

from conftest import STAGE_LIB
from test_cli import run, tool  # noqa: F401  (fixture)
import xview

pytestmark = pytest.mark.skipif(bool(xview.missing_tools()),
                                reason=f"needs {', '.join(xview.missing_tools())} (.ci/setup installs them)")

ENV = {"LD_LIBRARY_PATH": str(STAGE_LIB), "CAMCORE_SYNTHETIC_CAMERA": "1"}


@pytest.fixture(scope="module")
def display():
    x = xview.Xvfb()
    yield x
    x.stop()


@pytest.fixture
def view(display, tool, tmp_path):  # noqa: F811
    views = []

    def start(*args):
        v = xview.View(display, tool, *args, env_extra=ENV)
        views.append(v)
        return v
    yield start
    for v in views:
        v.stop()


def bars_shown(v, colours=xview.BARS_100):
    """A screenshot whose rows show the bars; returns (picture, checks)."""
    pic = v.screenshot()
    checks = xview.bar_check(pic, colours)
    return pic, checks


def wait_bars(v, colours=xview.BARS_100, need=3, tries=20):
    """Screenshots until `need` of the sampled rows show the bars (the
    bouncing white square may cross one row)."""
    last = None
    for _ in range(tries):
        pic, checks = bars_shown(v, colours)
        good = [f for f, c in checks.items() if c]
        if len(good) >= need:
            return pic, checks
        last = checks
    raise AssertionError(f"the window never showed the bars in {need} rows: {last}; stderr {v.lines}")


def test_S12_view_shows_the_bars_titles_the_rate_and_pauses_the_camera(view, tmp_path):
    v = view("--size", "640x480", "--fps", "30", "--snapshot-dir", str(tmp_path))
    v.wait_window()
    m = v.wait_title(r"camcore view: camcore synthetic camera - YUYV 640x480 - (\d+\.\d) fps")
    assert 27.0 <= float(m.group(1)) <= 33.0, m.group(0)
    assert v.geometry()[2:] == (640, 480)
    pic, checks = wait_bars(v)
    for f, bars in checks.items():
        if bars:
            # Whole bars are 80 px wide, each centre the bar's colour.
            assert len(bars) >= 6, bars
            assert all(abs((b["end"] - b["start"]) - 80) <= 8 for b in bars), bars
    # The status line at the bottom: dark band with text over the picture.
    assert pic[-12, 4:200].mean() < pic[int(480 * 0.6)].mean()

    # Pause (space): the session turns the camera off; the window shows the
    # camera-off frame where the picture was, and says why.
    v.key("space")
    v.wait_line("video paused: camera off")
    v.wait_title(r"camera off \(paused\)")
    pic = v.screenshot()
    assert xview.uniform(pic, xview.OFF_GREY, rows=(0.3, 0.7)), pic[int(480 * 0.3), ::80]
    assert all(c is None for c in xview.bar_check(pic, xview.BARS_100).values())

    # Resume: bars again and a rate in the title.
    v.key("space")
    v.wait_line("video resumed: camera on")
    v.wait_title(r"YUYV 640x480 - \d+\.\d fps")
    wait_bars(v)

    # Snapshot: a 640x480 PNG of the camera's picture.
    v.key("s")
    line = v.wait_line("snapshot saved:")
    path = tmp_path / "camcore-view-001.png"
    assert str(path) in line and "(640x480)" in line
    raw = subprocess.run(["convert", str(path), "-depth", "8", "rgb:-"], capture_output=True, check=True).stdout
    shot = np.frombuffer(raw, dtype=np.uint8).reshape(480, 640, 3)
    assert sum(1 for c in xview.bar_check(shot, xview.BARS_100).values() if c) >= 3

    v.key("Escape")
    assert v.wait_exit() == 0, v.lines


def test_S17_view_size_and_rate_keys_change_the_capture(view):
    v = view("--size", "640x480", "--fps", "30")
    v.wait_window()
    v.wait_title(r"YUYV 640x480 - \d+\.\d fps")
    # z: the next size of YUYV on the synthetic camera's ladder (640x480 -> 1280x720).
    v.key("z")
    v.wait_line("changing to YUYV 1280x720 @ 30 fps")
    m = v.wait_title(r"YUYV 1280x720 - (\d+\.\d) fps")
    # The window keeps its size; the picture is scaled into it, aspect kept
    # (16:9 in a 4:3 window: black bands above and below).
    assert v.geometry()[2:] == (640, 480)
    pic = v.screenshot()
    assert pic[20, 320].max() < 16 and pic[460, 320].max() < 16, (pic[20, 320], pic[460, 320])
    rows = xview.bar_check(pic[60:420], xview.BARS_100, rows=(0.2, 0.4, 0.6, 0.8))
    assert sum(1 for c in rows.values() if c) >= 3, rows
    # r: the next lower rate (30 -> 25).
    v.key("r")
    v.wait_line("changing to YUYV 1280x720 @ 25 fps")
    # The first titles after the change may still average frames of the old
    # rate: wait for one measured at 23-27 fps.
    m = v.wait_title(r"YUYV 1280x720 - (2[3-6]\.\d|27\.0) fps", timeout=15)
    assert 23 <= float(m.group(1)) <= 27
    # Closing with the close button, as a window manager tells it.
    v.close_button()
    assert v.wait_exit() == 0, v.lines


def test_view_absent_camera_and_bad_options_give_the_usual_exit_codes(tool, display):  # noqa: F811
    env = dict(ENV, DISPLAY=display.display)
    r = run(tool, "view", "7", env_extra=env, timeout=30)
    assert r.returncode == 3, r.stderr
    assert "no camera with index 7" in r.stderr
    r = run(tool, "view", "/dev/video99", env_extra=env, timeout=30)
    assert r.returncode == 3 and "no such device node: /dev/video99" in r.stderr, r.stderr
    r = run(tool, "view", "/dev/null", env_extra=env, timeout=30)
    assert r.returncode == 3 and "/dev/null is not a camera camcore can capture from" in r.stderr, r.stderr
    # No window was made for either.
    out = subprocess.run(["xdotool", "search", "--name", "^camcore view"], env=display.env(),
                         capture_output=True, text=True)
    assert out.stdout.strip() == ""
    r = run(tool, "view", "--size", "big", env_extra=env)
    assert r.returncode == 2 and "--size 'big' is not WIDTHxHEIGHT" in r.stderr
    r = run(tool, "view", "--seconds", "-1", env_extra=env)
    assert r.returncode == 2
    # No display: exit 1 with the reason, before any camera is opened.
    env_nodisplay = {k: v for k, v in env.items()}
    env_nodisplay["DISPLAY"] = ""
    r = run(tool, "view", env_extra=env_nodisplay, timeout=30)
    assert r.returncode == 1 and "cannot open a window" in r.stderr, r.stderr


def test_view_help_lists_the_keys(tool):  # noqa: F811
    r = run(tool, "view", "--help")
    assert r.returncode == 0
    for key in ("space, p", "h ", "f ", "n ", "z ", "r ", "s ", "q, Escape", "--snapshot-dir"):
        assert key in r.stdout, key
    r = run(tool, "--help")
    assert "view [DEVICE]" in r.stdout


def test_view_runs_for_seconds_and_exits_0(view):
    v = view("--size", "320x240", "--seconds", "1.5")
    v.wait_window()
    assert v.wait_exit() == 0, v.lines
    assert os.path.exists(str(STAGE_LIB))


# ---------------------------------------------------------------------------
# --serve PORT: the same session's frames as MJPEG over HTTP (no window)
# ---------------------------------------------------------------------------

def _serve(tool, *args):  # noqa: F811
    """`camcore view --serve 0 ARGS` with no display; (process, port)."""
    import re
    env = dict(os.environ, **ENV)
    env["DISPLAY"] = ""
    p = subprocess.Popen([tool, "view", "--serve", "0", *args], env=env, stderr=subprocess.PIPE, text=True)
    for line in p.stderr:
        m = re.search(r"serving http://127\.0\.0\.1:(\d+)/", line)
        if m:
            return p, int(m.group(1))
    p.wait(10)
    raise AssertionError(f"no 'serving' line; exit {p.returncode}")


def _get(port, path, method="GET"):
    import http.client
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    c.request(method, path)
    return c, c.getresponse()


def _decode_jpeg(data, w, h):
    raw = subprocess.run(["convert", "jpeg:-", "-depth", "8", "rgb:-"], input=data, capture_output=True,
                         check=True).stdout
    assert len(raw) == w * h * 3
    return np.frombuffer(raw, dtype=np.uint8).reshape(h, w, 3)


def test_view_serve_gives_the_camera_as_mjpeg_over_http(tool):  # noqa: F811
    p, port = _serve(tool, "--size", "640x480", "--fps", "30")
    try:
        # One frame: a 640x480 JPEG of the colour bars.
        c, r = _get(port, "/snapshot.jpg")
        assert r.status == 200 and r.getheader("Content-Type") == "image/jpeg"
        jpeg = r.read()
        c.close()
        assert jpeg[:2] == b"\xff\xd8" and jpeg[-2:] == b"\xff\xd9"
        pic = _decode_jpeg(jpeg, 640, 480)
        assert sum(1 for v in xview.bar_check(pic, xview.BARS_100).values() if v) >= 3

        # The stream: multipart parts, each a whole JPEG of the stated length;
        # the bars slide, so successive frames differ.
        c, r = _get(port, "/stream")
        assert r.status == 200
        assert r.getheader("Content-Type") == "multipart/x-mixed-replace; boundary=camcoreframe"
        parts = []
        while len(parts) < 4:
            line = r.fp.readline()
            if line.strip() == b"":
                continue
            assert line == b"--camcoreframe\r\n", line
            headers = {}
            while True:
                h = r.fp.readline().decode()
                if h == "\r\n":
                    break
                k, v = h.split(":", 1)
                headers[k.strip().lower()] = v.strip()
            assert headers["content-type"] == "image/jpeg"
            body = r.fp.read(int(headers["content-length"]))
            assert body[:2] == b"\xff\xd8" and body[-2:] == b"\xff\xd9"
            parts.append(body)
        c.close()
        assert len(set(parts)) == 4
        # The page, and what is not there.
        c, r = _get(port, "/")
        page = r.read().decode()
        assert r.status == 200 and '<img src="/stream"' in page and "camcore synthetic camera" in page
        c.close()
        c, r = _get(port, "/nothing")
        assert r.status == 404
        c.close()
        c, r = _get(port, "/", method="POST")
        assert r.status == 405
        c.close()
    finally:
        p.terminate()
        assert p.wait(15) == 0


def test_view_serve_bad_port_and_port_in_use(tool):  # noqa: F811
    import socket
    env = dict(ENV, DISPLAY="")
    r = run(tool, "view", "--serve", "70000", env_extra=env)
    assert r.returncode == 2 and "--serve '70000' is not a TCP port" in r.stderr
    r = run(tool, "view", "--serve", "80", "--bind", "localhost", env_extra=env)
    assert r.returncode == 2 and "--bind 'localhost' is not an IPv4 address" in r.stderr
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(1)
    try:
        r = run(tool, "view", "--serve", str(s.getsockname()[1]), "--seconds", "5", env_extra=env, timeout=30)
        assert r.returncode == 1 and "cannot serve on 127.0.0.1:" in r.stderr, r.stderr
        assert "Address already in use" in r.stderr
    finally:
        s.close()
