# SPDX-License-Identifier: MIT
"""The emulated UVC webcam as the kernel sees it (no camcore): uvcvideo binds
uvccam (Tests/kernel/uvc/uvccam.c) over USB/IP and gives a capture node, a
metadata node, the descriptors' formats and the units' controls; frames
stream over bulk and isochronous endpoints; unplug and replug work. These
check the test bed the camcore tests (test_uvc_camcore.py) stand on, with
the SPEC rule each property feeds.
"""
from __future__ import annotations

import os
import re
import subprocess
import time

import pytest

import uvc_util as uvc
import v4l2probe as v4l


def test_S1_uvc_camera_has_capture_and_metadata_node(uvc_cam):
    out = v4l.v4l2_ctl("--list-devices")
    block = out.split(f"{uvc.PRODUCT}:")[1].split("\n\n")[0]
    listed = re.findall(r"/dev/\S+", block)
    assert f"usb-vhci_hcd.0-{uvc_cam.port + 1}" in block, block
    assert uvc_cam.capture in listed and uvc_cam.meta in listed, (listed, uvc_cam.capture, uvc_cam.meta)
    assert any(n.startswith("/dev/media") for n in listed), listed
    cap, meta = v4l.querycap(uvc_cam.capture), v4l.querycap(uvc_cam.meta)
    assert cap.driver == meta.driver == "uvcvideo"
    # uvcvideo names the video device "<product>: <entity>", cut to 31 characters.
    assert cap.card == meta.card == f"{uvc.PRODUCT}: {uvc.PRODUCT}"[:31]
    assert cap.bus_info == meta.bus_info == f"usb-vhci_hcd.0-{uvc_cam.port + 1}"
    assert cap.device_caps & v4l.V4L2_CAP_VIDEO_CAPTURE
    assert not cap.device_caps & v4l.V4L2_CAP_META_CAPTURE
    assert meta.device_caps & v4l.V4L2_CAP_META_CAPTURE
    assert not meta.device_caps & v4l.V4L2_CAP_VIDEO_CAPTURE
    # udev knows it as a USB camera with the descriptor's serial.
    props = subprocess.run(["udevadm", "info", "-q", "property", "-n", uvc_cam.capture],
                           capture_output=True, text=True).stdout
    assert f"ID_VENDOR_ID={uvc.VID:04x}" in props and f"ID_MODEL_ID={uvc.PID:04x}" in props, props
    assert "ID_SERIAL_SHORT=UVC0001" in props, props


def test_S5_uvc_formats_are_the_descriptors(uvc_cam):
    got = v4l.list_formats_ext(uvc_cam.capture)
    assert [f.fourcc_text for f in got] == ["YUYV", "MJPG"]
    for f in got:
        sizes = [(s.kind, s.width, s.height, s.rate_kind, [float(x) for x in s.fps]) for s in f.sizes]
        want = [("discrete", w, h, "discrete", [float(r) for r in rates]) for w, h, rates in uvc.FORMATS[f.fourcc_text]]
        assert sizes == want, f.fourcc_text


def _ctrls(node):
    out = v4l.v4l2_ctl("-d", node, "--list-ctrls")
    ctrls = {}
    for line in out.splitlines():
        m = re.match(r"^\s*(\w+) 0x([0-9a-f]+) \((\w+)\)\s*:(.*)$", line)
        if m:
            fields = dict(re.findall(r"(\w+)=(-?\w+)", m.group(4)))
            ctrls[m.group(1)] = (int(m.group(2), 16), m.group(3), fields)
    return ctrls


def test_S27_uvc_controls_from_the_units(uvc_cam):
    c = _ctrls(uvc_cam.capture)
    assert set(c) == {"brightness", "contrast", "saturation", "gain", "power_line_frequency",
                      "white_balance_automatic", "white_balance_temperature",
                      "auto_exposure", "exposure_time_absolute", "focus_absolute",
                      "focus_automatic_continuous"}, sorted(c)
    assert c["brightness"][2] == {"min": "-64", "max": "64", "step": "1", "default": "0", "value": "0"}
    assert c["white_balance_temperature"][2]["step"] == "10"
    assert c["white_balance_temperature"][2]["flags"] == "inactive"       # auto WB is on
    assert c["exposure_time_absolute"][2]["flags"] == "inactive"          # aperture priority
    assert c["focus_absolute"][2]["flags"] == "inactive"                  # autofocus on
    assert c["power_line_frequency"][1] == "menu"


def test_S27_uvc_coupled_control_refused_then_settable(uvc_cam):
    """White balance temperature is refused (EACCES) while auto WB is on; off, it holds a value."""
    node = uvc_cam.capture
    r = subprocess.run(["v4l2-ctl", "-d", node, "-c", "white_balance_temperature=5000"],
                       capture_output=True, text=True)
    assert r.returncode != 0 and "Permission denied" in r.stderr, (r.returncode, r.stderr)
    try:
        v4l.v4l2_ctl("-d", node, "-c", "white_balance_automatic=0")
        v4l.v4l2_ctl("-d", node, "-c", "white_balance_temperature=5004")  # rounded to the step
        assert v4l.v4l2_ctl("-d", node, "-C", "white_balance_temperature").split(":")[1].strip() == "5000"
        assert "flags" not in _ctrls(node)["white_balance_temperature"][2]
    finally:
        v4l.v4l2_ctl("-d", node, "-c", "white_balance_automatic=1")


@pytest.fixture(scope="module")
def uvc_iso_cam():
    cam = uvc.UvcCam(serial="UVCISO1", iso=True).start()
    uvc.record("uvc iso camera setup", seconds=cam.setup_s)
    yield cam
    cam.stop()


CASES = [("YUYV", 640, 480, 16), ("MJPG", 640, 480, 60), ("MJPG", 1280, 720, 60)]


def _stream_case(cam, transport, fourcc, w, h, count, tmp_path):
    to = str(tmp_path / "frames.raw") if fourcc == "YUYV" else None
    fps, out = uvc.v4l2_stream(cam.capture, fourcc, w, h, count, fps=30 if fourcc == "MJPG" else None, to=to)
    uvc.record(f"uvc {transport} {fourcc} {w}x{h} v4l2-ctl --stream-mmap", fps=fps, frames=count)
    assert fps > 0, out[-1500:]
    if fourcc == "YUYV":
        data = open(to, "rb").read()
        size = w * h * 2
        assert len(data) == size * count
        counters = [uvc.yuyv_counter(data[i * size:(i + 1) * size], w) for i in range(count)]
        # Consecutive frames, except one uvcvideo drops when v4l2-ctl (writing the
        # file under emulation) has no buffer queued in time.
        assert all(b > a for a, b in zip(counters, counters[1:])), counters
        assert counters[-1] - counters[0] <= count - 1 + count // 4, counters
        uvc.check_bars(data[(h - 1) * w * 2:h * w * 2:2], w, what="YUYV last row")
        assert fps > 2, f"YUYV {w}x{h} over {transport}: {fps:.1f} fps"
    else:
        assert fps > 20, f"MJPEG {w}x{h} over {transport}: {fps:.1f} fps"  # 30 fps interval


@pytest.mark.parametrize("fourcc,w,h,count", CASES, ids=[f"{c[0]}-{c[1]}x{c[2]}" for c in CASES])
def test_S22_uvc_streams_over_bulk(uvc_cam, fourcc, w, h, count, tmp_path):
    _stream_case(uvc_cam, "bulk", fourcc, w, h, count, tmp_path)


@pytest.mark.parametrize("fourcc,w,h,count", CASES, ids=[f"{c[0]}-{c[1]}x{c[2]}" for c in CASES])
def test_S22_uvc_streams_over_iso(uvc_iso_cam, fourcc, w, h, count, tmp_path):
    _stream_case(uvc_iso_cam, "iso", fourcc, w, h, count, tmp_path)
    alt = uvc_iso_cam.status()["alt"]
    assert alt == "0", "streaming ended: uvcvideo sets alternate setting 0 again"


@pytest.mark.parametrize("code,errno_text", [(1, "Device or resource busy"), (4, "Numerical result out of range")])
def test_S26_uvc_stalled_control_request_gives_the_error_code(uvc_cam, code, errno_text):
    """uvccam STALLs one SET_CUR(brightness); uvcvideo asks the request error code and
    maps it (1 not ready -> EBUSY, 4 out of range -> ERANGE)."""
    uvc_cam.cmd(f"ctlstall 2 2 SET_CUR {code} 1")
    r = subprocess.run(["v4l2-ctl", "-d", uvc_cam.capture, "-c", "brightness=5"], capture_output=True, text=True)
    assert r.returncode != 0 and errno_text in r.stderr, (r.returncode, r.stderr)
    v4l.v4l2_ctl("-d", uvc_cam.capture, "-c", "brightness=0")   # the STALL was for one request only


def test_S39_uvc_surprise_unplug_and_replug(uvc_cams):
    cam = uvc_cams(serial="UVCPLUG")
    port, old = cam.port, (cam.capture, cam.meta)
    gone = cam.unplug()
    assert not any(os.path.exists(n) for n in old)
    back = cam.plug()
    assert cam.port == port
    uvc.record("uvc surprise unplug -> nodes gone; replug same port -> nodes ready", gone_s=gone, back_s=back)
    assert v4l.querycap(cam.capture).driver == "uvcvideo"
    gone = cam.detach()
    back = cam.plug(port=(port + 1) % 8 if port < 7 else 0)
    assert cam.port != port
    uvc.record("uvc clean detach -> gone; replug other port -> ready", gone_s=gone, back_s=back)
    assert v4l.querycap(cam.capture).bus_info == f"usb-vhci_hcd.0-{cam.port + 1}"


def test_S22_uvc_start_stop_cycles_keep_the_camera(uvc_cam):
    """Streaming started and stopped over and over: uvcvideo kills its URBs each time
    (CMD_UNLINK, sometimes ahead of the URB's own CMD_SUBMIT on vhci_hcd); the
    camera stays attached and every run gets its frames."""
    log_before = open(uvc_cam.log_path).read().count("before its submit: deferred")
    t0 = time.monotonic()
    cycles = 12
    for i in range(cycles):
        fmt = ("MJPG", 640, 480) if i % 2 else ("YUYV", 640, 480)
        uvc.v4l2_stream(uvc_cam.capture, fmt[0], fmt[1], fmt[2], 3)
    took = time.monotonic() - t0
    st = uvc_cam.status()
    assert st["attached"] == "1" and st["streaming"] == "0", st
    dmesg = subprocess.run(["dmesg"], capture_output=True, text=True).stdout
    assert "cannot find a urb" not in dmesg
    deferred = open(uvc_cam.log_path).read().count("before its submit: deferred") - log_before
    uvc.record("uvc start/stop cycles (v4l2-ctl, 3 frames each)", cycles=cycles, seconds=took,
               unlinks_ahead_of_submit=deferred)
