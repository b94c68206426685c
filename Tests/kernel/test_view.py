# SPDX-License-Identifier: MIT
"""`camcore view` on vivid, in a real window under Xvfb inside the guest
(the host's synthetic-camera checks: Tests/python/test_view.py):

- the picture is vivid's 75% colour bars, sampled at the bar centres of a
  screenshot; the title names vivid, YUYV 640x480 and the measured rate;
- pausing (the space key) turns the camera off: the tool's process no
  longer has the capture node open (/proc/PID/fd) and the window shows the
  camera-off frame; resuming opens it again (S9, S12);
- hot-plug: unbinding vivid is told in the window and on stderr, the
  session falls back to the synthetic camera (its 100% bars on screen), and
  on bind it returns to vivid (S24, S25);
- a camera another process streams from gives the tool's busy message and
  exit code 4, with no window;
- an MJPEG camera (the emulated UVC webcam on uvcvideo): its JPEGs decoded
  by camcore (full-range YUV, shown as such) give the camera's 75% bars.
"""
from __future__ import annotations

import os
import subprocess
import time

import pytest

import conftest
import hotplug_util as hp
import xview

TOOL = os.path.join(conftest.REPO, "tools/camcore/camcore")

pytestmark = pytest.mark.skipif(bool(xview.missing_tools()),
                                reason=f"needs {', '.join(xview.missing_tools())} (.ci/setup installs them)")


@pytest.fixture(scope="module")
def webcams():
    yield from hp.webcams()


@pytest.fixture(scope="module")
def display():
    if not conftest.IN_GUEST:
        pytest.skip("not in the kernel test guest")
    x = xview.Xvfb()
    yield x
    x.stop()


def node_open(pid: int, node: str) -> bool:
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") == node:
                    return True
            except OSError:
                pass
    except OSError:
        pass
    return False


def mapped(pid: int, node: str) -> bool:
    try:
        with open(f"/proc/{pid}/maps") as f:
            return node in f.read()
    except OSError:
        return False


def wait_until(cond, timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return
        time.sleep(0.02)
    raise AssertionError(f"not within {timeout} s: {what}")


def wait_bars(v, colours, need=3, tries=20):
    last = None
    for _ in range(tries):
        pic = v.screenshot()
        checks = xview.bar_check(pic, colours)
        if sum(1 for c in checks.values() if c) >= need:
            return pic
        last = checks
    raise AssertionError(f"the window never showed the bars: {last}; stderr {v.lines}")


def test_S12_S25_view_on_vivid_pauses_the_camera_and_follows_hotplug(webcams, display):
    node = hp.instance_node(0)
    # vivid's webcam mode does 640x480 at up to 25 fps.
    v = xview.View(display, TOOL, node, "--size", "640x480",
                   env_extra={"CAMCORE_SYNTHETIC_CAMERA": ""})
    try:
        v.wait_window(timeout=30)
        m = v.wait_title(r"camcore view: vivid - YUYV 640x480 - (\d+\.\d) fps", timeout=20)
        rate = float(m.group(1))
        assert 20 <= rate <= 35, m.group(0)
        pic = wait_bars(v, xview.BARS_75)
        assert node_open(v.proc.pid, node)

        # Pause: the device is closed (the LED would go out), the window
        # shows the camera-off frame.
        v.key("space")
        wait_until(lambda: not node_open(v.proc.pid, node), 5, f"{node} closed after pause")
        v.wait_title(r"camera off \(paused\)")
        pic = v.screenshot()
        assert xview.uniform(pic, xview.OFF_GREY, rows=(0.3, 0.7)), pic[int(480 * 0.3), ::80]
        v.key("space")
        wait_until(lambda: node_open(v.proc.pid, node), 5, f"{node} open again after resume")
        v.wait_title(r"vivid - YUYV 640x480 - \d+\.\d fps")
        wait_bars(v, xview.BARS_75)

        # Unplug (unbind vivid: every vivid node goes): told in the window and
        # on stderr, the synthetic camera shown in its place.
        n = len(v.lines)
        t0 = hp.unbind()
        v.wait_line("camera disconnected: vivid", timeout=10, start=n)
        t_msg = hp.now()
        v.wait_title(r"camcore synthetic camera - YUYV \d+x\d+ - ", timeout=15)
        pic = v.screenshot()
        # The message is shown over the picture's top rows: a dark band (black
        # at alpha 160: white bars read 95) under its first letters. (Only as
        # wide as the text: which message comes first, the disconnection or
        # the camera now shown, is a race between two threads.)
        dark = sum(1 for p in pic[10][4:60] if max(int(c) for c in p) <= 110)
        assert dark >= 20, f"no message band over row 10 ({dark} of 56 dark); stderr: {v.lines[n:]}"
        wait_bars(v, xview.BARS_100)
        assert not node_open(v.proc.pid, node)

        # Replug: back to vivid (the session returns to the same id).
        hp.settle()
        n = len(v.lines)
        hp.bind()
        v.wait_line("camera connected: vivid", timeout=15, start=n)
        v.wait_title(r"vivid - YUYV 640x480 - \d+\.\d fps", timeout=15)
        wait_bars(v, xview.BARS_75)
        hp.record("view on vivid", rate_fps=rate, unbind_to_message=hp.ms(t_msg - t0))

        v.key("q")
        assert v.wait_exit() == 0, v.lines
    finally:
        v.stop()
        hp.ensure_bound()
        hp.settle()


def test_S26_view_of_a_busy_camera_says_busy_and_opens_no_window(webcams, display):
    node = hp.instance_node(0)
    holder = subprocess.Popen(["v4l2-ctl", "-d", node, "--stream-mmap", "--stream-count=100000"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        # Its buffers mapped: v4l2-ctl owns the device (REQBUFS done).
        wait_until(lambda: mapped(holder.pid, node), 10, "v4l2-ctl streaming")
        env = display.env()
        env.pop("CAMCORE_SYNTHETIC_CAMERA", None)
        r = subprocess.run([TOOL, "view", node], env=env, capture_output=True, text=True, timeout=60)
        assert r.returncode == 4, (r.returncode, r.stderr)
        assert "device busy" in r.stderr, r.stderr
        out = subprocess.run(["xdotool", "search", "--name", "^camcore view"], env=display.env(),
                             capture_output=True, text=True)
        assert out.stdout.strip() == ""
    finally:
        holder.kill()
        holder.wait()


def test_S8_view_of_an_mjpeg_uvc_camera_shows_its_bars(uvc_cam, display):
    v = xview.View(display, TOOL, uvc_cam.capture, "--format", "MJPG", "--size", "640x480", "--fps", "30",
                   env_extra={"CAMCORE_SYNTHETIC_CAMERA": ""})
    try:
        v.wait_window(timeout=30)
        m = v.wait_title(r"MJPG 640x480 - (\d+\.\d) fps", timeout=20)
        pic = wait_bars(v, xview.BARS_75)
        # Full range shown as full range: a 75% channel of a bar's centre is
        # 191 +- a JPEG's rounding, not stretched by a limited-range reading
        # (~204), and a 0 channel stays near 0.
        bars = [b for c in xview.bar_check(pic, xview.BARS_75).values() if c for b in c]
        assert bars
        errors = [abs(ch - want) for b in bars for ch, want in zip(b["rgb"], xview.BARS_75[b["index"]])]
        assert max(errors) <= 10, [(b["index"], b["rgb"]) for b in bars]
        hp.record("view on the UVC camera, MJPEG 640x480", rate=m.group(1), max_channel_error=max(errors))
        v.key("Escape")
        assert v.wait_exit() == 0, v.lines
    finally:
        v.stop()
