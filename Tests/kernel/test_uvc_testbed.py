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


def _bus_info_d(node):
    """The bus info `v4l2-ctl -D` prints for node."""
    out = v4l.v4l2_ctl("-d", node, "-D")
    m = re.search(r"^\s*Bus info\s*:\s*(\S+)\s*$", out, re.M)
    assert m, out
    return m.group(1)


def _sizes(fmt):
    return [(s.kind, s.width, s.height, s.rate_kind, [float(x) for x in s.fps]) for s in fmt.sizes]


def test_S44_uvc_ir_function_is_a_greyscale_node_on_the_same_usb_device(uvc_cams):
    """uvccam --ir: one USB device with two video functions (interfaces 0/1 colour,
    2/3 infrared), as face-login laptop cameras have. uvcvideo binds each
    VideoControl interface as a device of its own: two capture nodes with the same
    bus info, the colour one YUYV+MJPG, the IR one GREY 640x480 only."""
    cam = uvc_cams(serial="UVCIR01", ir=True)
    uvc.record("uvc --ir camera setup (colour + IR nodes ready)", seconds=cam.setup_s)
    nodes = [cam.capture, cam.meta, cam.ir_capture, cam.ir_meta]
    assert len(set(nodes)) == 4, nodes
    ir_listing = v4l.v4l2_ctl("-d", cam.ir_capture, "--list-formats-ext")
    print(f"IR node {cam.ir_capture} --list-formats-ext:\n{ir_listing}")
    bus = f"usb-vhci_hcd.0-{cam.port + 1}"
    seen = {n: (_bus_info_d(n), v4l.querycap(n)) for n in nodes}
    assert all(b == bus and c.bus_info == bus and c.driver == "uvcvideo" for b, c in seen.values()), seen
    # uvcvideo names each function "<product>: <IAD iFunction>", cut to 31 characters.
    assert seen[cam.capture][1].card == f"{uvc.PRODUCT}: {uvc.PRODUCT}"[:31], seen
    assert seen[cam.ir_capture][1].card == f"{uvc.PRODUCT}: {uvc.IR_FUNCTION}"[:31], seen
    # Exactly two capture nodes on this USB device (and two metadata nodes).
    on_device = {n.devnode: n.caps for n in v4l.v4l_nodes() if n.caps and n.caps.bus_info == bus}
    captures = sorted(n for n, c in on_device.items() if c.device_caps & v4l.V4L2_CAP_VIDEO_CAPTURE)
    metas = sorted(n for n, c in on_device.items() if c.device_caps & v4l.V4L2_CAP_META_CAPTURE)
    assert captures == sorted([cam.capture, cam.ir_capture]), (captures, on_device)
    assert metas == sorted([cam.meta, cam.ir_meta]), (metas, on_device)
    # The colour function is the same as without --ir; the IR one is greyscale only.
    colour = v4l.list_formats_ext(cam.capture)
    assert [f.fourcc_text for f in colour] == ["YUYV", "MJPG"], colour
    for f in colour:
        want = [("discrete", w, h, "discrete", [float(r) for r in rates]) for w, h, rates in uvc.FORMATS[f.fourcc_text]]
        assert _sizes(f) == want, (f.fourcc_text, _sizes(f))
    ir = v4l.list_formats_ext(cam.ir_capture)
    assert [f.fourcc_text for f in ir] == ["GREY"], ir_listing
    want = [("discrete", w, h, "discrete", [float(r) for r in rates]) for w, h, rates in uvc.IR_FORMATS["GREY"]]
    assert _sizes(ir[0]) == want, ir_listing
    # Its camera terminal has no controls; the colour function keeps all of its own.
    assert _ctrls(cam.ir_capture) == {}, _ctrls(cam.ir_capture)
    assert "brightness" in _ctrls(cam.capture)
    # udev: both are the same USB camera.
    for n in (cam.capture, cam.ir_capture):
        props = subprocess.run(["udevadm", "info", "-q", "property", "-n", n], capture_output=True, text=True).stdout
        assert f"ID_VENDOR_ID={uvc.VID:04x}" in props and "ID_SERIAL_SHORT=UVCIR01" in props, (n, props)
    # A surprise unplug takes all four nodes; a replug brings both functions back.
    gone = cam.unplug()
    assert not any(os.path.exists(n) for n in nodes), nodes
    back = cam.plug()
    uvc.record("uvc --ir surprise unplug -> 4 nodes gone; replug -> colour + IR ready", gone_s=gone, back_s=back)
    assert [f.fourcc_text for f in v4l.list_formats_ext(cam.ir_capture)] == ["GREY"]
    assert [f.fourcc_text for f in v4l.list_formats_ext(cam.capture)] == ["YUYV", "MJPG"]


def _ir_frames(cam, count, tmp_path, name):
    to = str(tmp_path / name)
    fps, out = uvc.v4l2_stream(cam.ir_capture, "GREY", 640, 480, count, to=to)
    data = open(to, "rb").read()
    size = 640 * 480
    assert len(data) == size * count, (len(data), out[-1500:])
    assert f"bytesused: {size}" in out, out[-1500:]
    counters = [uvc.grey_counter(data[i * size:(i + 1) * size], 640) for i in range(count)]
    assert all(b > a for a, b in zip(counters, counters[1:])), counters
    uvc.check_bars(data[(480 - 1) * 640:480 * 640], 640, what="GREY last row")
    return fps, counters


@pytest.mark.parametrize("transport", ["bulk", "iso"])
def test_S44_uvc_ir_function_streams_grey(uvc_cams, transport, tmp_path):
    """The IR function streams GREY 640x480 frames on its own bulk endpoint 0x82,
    alone and while the colour function streams YUYV at the same time (over its
    bulk endpoint, or its isochronous alternate settings with --iso)."""
    cam = uvc_cams(serial="UVCIR02", ir=True, iso=transport == "iso")
    fps, counters = _ir_frames(cam, 3, tmp_path, "ir.raw")
    st = cam.status()
    assert st["ir_streaming"] == "0" and int(st["ir_frames"]) >= 3 and st["frames"] == "0", st
    uvc.record(f"uvc --ir ({transport}) GREY 640x480 v4l2-ctl --stream-mmap", fps=fps, frames=3)
    # Both functions at once: each has its own probe/commit, URB queue and stream.
    # 90 colour frames (3 s at 30 fps) so the IR capture runs inside them.
    n, size = 90, 640 * 480 * 2
    colour_to = str(tmp_path / "colour.raw")
    args = ["v4l2-ctl", "-d", cam.capture, "-v", "width=640,height=480,pixelformat=YUYV",
            "--stream-mmap", f"--stream-count={n}", f"--stream-to={colour_to}"]
    colour = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        uvc.wait_for(lambda: int(cam.status()["frames"]) > 0 or colour.poll() is not None, 30,
                     lambda: f"the colour stream to start: {cam.status()}")
        before = cam.status()
        _, counters = _ir_frames(cam, 6, tmp_path, "ir2.raw")
        during = cam.status()
        out, _ = colour.communicate(timeout=120)
    finally:
        if colour.poll() is None:
            colour.kill()
            colour.wait()
    assert colour.returncode == 0, out[-2000:]
    # the colour stream ran all through the IR capture
    assert before["streaming"] == during["streaming"] == "1", (before, during)
    assert int(during["frames"]) > int(before["frames"]), (before, during)
    data = open(colour_to, "rb").read()
    assert len(data) == size * n, (len(data), out[-1500:])
    got = [uvc.yuyv_counter(data[i * size:(i + 1) * size], 640) for i in range(n)]
    assert all(b > a for a, b in zip(got, got[1:])), got
    uvc.check_bars(data[(480 - 1) * size // 480:480 * size // 480:2], 640, what="YUYV last row (with IR streaming)")
    st = cam.status()
    assert st["streaming"] == "0" and st["ir_streaming"] == "0" and st["alt"] == "0", st
    assert int(st["ir_frames"]) >= 9 and int(st["frames"]) >= n, st
    dmesg = subprocess.run(["dmesg"], capture_output=True, text=True).stdout
    assert "cannot find a urb" not in dmesg
