# SPDX-License-Identifier: MIT
"""camcore on a real uvcvideo camera: the emulated UVC webcam uvccam
(Tests/kernel/uvc/uvccam.c) through the Python binding and the CLI.

uvcvideo differs from vivid where real webcams do: a metadata node next to
the capture node (S1, S39), USB ids, serial and port in udev (S2), MJPEG
and bandwidth-limited raw formats (S5, S6, S8), units' controls coupled to
auto modes (S27), STALLed control requests, and unplug mid-stream (S25,
S39: VIDIOC_DQBUF fails with ENODEV, or EIO/EINVAL when the queue errors
before the node is unregistered; either is CAMCORE_E_NO_DEVICE).
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import threading
import time
from fractions import Fraction

import numpy as np
import pytest

import conftest
import uvc_util as uvc
import v4l2probe as v4l

TOOL = os.path.join(conftest.REPO, "tools/camcore/camcore")


def uvc_devices(m):
    return [d for d in m.devices() if d.driver == "uvcvideo"]


def only_uvc(m, cam):
    devs = [d for d in uvc_devices(m) if d.node == cam.capture]
    assert len(devs) == 1, (uvc_devices(m), cam.capture)
    return devs[0]


def test_S1_S2_S39_lists_capture_node_once_never_metadata(uvc_cam, camcore):
    with camcore.Manager() as m:
        devs = uvc_devices(m)
    assert [d.node for d in devs] == [uvc_cam.capture], devs
    assert uvc_cam.meta not in [d.node for d in devs]
    d = devs[0]
    caps = v4l.querycap(uvc_cam.capture)
    assert d.name == caps.card and d.name.startswith(uvc.PRODUCT)
    assert d.bus_info == caps.bus_info == f"usb-vhci_hcd.0-{uvc_cam.port + 1}"
    assert (d.usb_vendor_id, d.usb_product_id) == (uvc.VID, uvc.PID)
    assert d.type == "external"
    assert d.position == "external"
    assert d.device_caps & v4l.V4L2_CAP_VIDEO_CAPTURE and not d.multiplanar and not d.synthetic
    assert d.id and "/dev/video" not in d.id
    assert "UVC0001" in d.id, f"id {d.id!r} not built from udev's ID_SERIAL"


def test_S5_formats_are_the_descriptors(uvc_cam, camcore):
    with camcore.Manager() as m:
        d = only_uvc(m, uvc_cam)
        fmts = m.formats(d.id)
    got = {}
    for f in fmts:
        assert f.size_kind == "discrete" and f.rate_kind == "discrete", f
        got.setdefault(f.fourcc, []).append((f.width, f.height, sorted(f.rates, reverse=True)))
    want = {fc: [(w, h, [Fraction(r) for r in rates]) for w, h, rates in sizes] for fc, sizes in uvc.FORMATS.items()}
    assert got == want
    assert [f.compressed for f in fmts if f.fourcc == "MJPG"] == [True, True, True]


def test_S6_preferred_720p_picks_mjpeg_because_yuyv_720p_is_10fps(uvc_cam, camcore):
    """1280x720 at 15-30 fps: YUYV 720p reaches only 10 fps, so the rate floor picks MJPEG at 30."""
    with camcore.Manager() as m:
        d = only_uvc(m, uvc_cam)
        s = m.negotiate(d.id)
    assert (s.fourcc, s.width, s.height, s.fps) == ("MJPG", 1280, 720, Fraction(30)), s


def _collect(cap, n, timeout=60, **start):
    frames, errors, done = [], [], threading.Event()

    def on_frame(f):
        if len(frames) < n:
            frames.append(f.copy())
        if len(frames) >= n:
            done.set()

    def on_error(e):
        errors.append(e)
        done.set()

    cap.start(on_frame=on_frame, on_error=on_error, **start)
    try:
        fmt = cap.format
        done.wait(timeout)
        stats = cap.stats
    finally:
        cap.stop()
    assert not errors, errors
    assert len(frames) == n, f"{len(frames)} of {n} frames"
    return frames, fmt, stats


def test_S22_capture_yuyv_frames_with_counter(uvc_cam, camcore):
    with camcore.Manager() as m:
        d = only_uvc(m, uvc_cam)
        with m.open(d.id) as cap:
            frames, fmt, stats = _collect(cap, 6, fourcc="YUYV", width=640, height=480, fps=30)
    assert (fmt.fourcc, fmt.width, fmt.height, fmt.fps) == ("YUYV", 640, 480, Fraction(30))
    uvc.record("uvc camcore YUYV 640x480 bulk", measured_fps=stats.measured_fps)
    counters = []
    for f in frames:
        assert (f.fourcc, f.width, f.height) == ("YUYV", 640, 480) and not f.corrupted
        buf = f.planes[0]
        assert f.strides[0] == 1280 and buf.size >= 640 * 480 * 2
        counters.append(uvc.yuyv_counter(buf, 640))
        uvc.check_bars(buf[479 * 1280:480 * 1280:2], 640, what="YUYV")
    assert all(b > a for a, b in zip(counters, counters[1:])), counters
    seqs = [f.sequence for f in frames]
    assert all(b > a for a, b in zip(seqs, seqs[1:])), seqs


@pytest.mark.parametrize("size", [(640, 480), (1280, 720)])
def test_S8_capture_mjpeg_decoded_to_i420(uvc_cam, camcore, size):
    w, h = size
    with camcore.Manager() as m:
        d = only_uvc(m, uvc_cam)
        with m.open(d.id) as cap:
            frames, fmt, stats = _collect(cap, 10, fourcc="MJPG", width=w, height=h, fps=30, output="I420")
    assert fmt.source_fourcc == "MJPG" and fmt.fourcc == "YU12", fmt
    assert fmt.fps == Fraction(30)
    uvc.record(f"uvc camcore MJPEG {w}x{h} -> I420 bulk", measured_fps=stats.measured_fps)
    f = frames[-1]
    assert (f.fourcc, f.width, f.height, f.plane_count) == ("YU12", w, h, 3)
    y = f.planes[0]
    # JPEG (JFIF) carries full-range YCbCr: camcore hands the decoded planes on as they are.
    uvc.check_bars(y[(h - 1) * f.strides[0]:(h - 1) * f.strides[0] + w], w, tol=8, what="decoded MJPEG luma",
                   want=uvc.BAR_LUMA_JPEG)
    assert stats.frames_corrupted == 0


def test_S8_mjpeg_decoded_by_camcore_equals_turbojpeg_on_the_same_bytes(uvc_cam, camcore):
    """The camera's own 4:2:2 MJPEG frames, taken as they come (pull, native): each
    one converted to RGB24 by camcore (camcore_frame_convert: the converter an
    output format uses) is byte for byte TurboJPEG's decode of the same JPEG."""
    import ctypes

    from camcore import _raw
    from test_mjpeg import TurboJPEG

    w, h = 640, 480
    lib, tj = _raw.lib, TurboJPEG()
    checked = 0
    try:
        with camcore.Manager() as m:
            d = only_uvc(m, uvc_cam)
            with m.open(d.id) as cap:
                cap.start_pull(fourcc="MJPG", width=w, height=h, fps=30)
                p = _raw.frame_p()
                out = (ctypes.c_uint8 * (w * h * 3))()
                for _ in range(6):   # uvccam cycles through four JPEGs per size
                    assert lib.camcore_capturer_acquire_frame(cap._h(), 10000, ctypes.byref(p)) == 0
                    try:
                        f = p.contents
                        assert (camcore.fourcc_str(f.fourcc), f.width, f.height) == ("MJPG", w, h)
                        jpeg = ctypes.string_at(f.planes[0].data, f.planes[0].length)
                        rc = lib.camcore_frame_convert(p, 0x33424752, 0, 0, out, len(out))  # RGB3
                        assert rc == 0, f"camcore_frame_convert: status {rc}"
                    finally:
                        lib.camcore_frame_release(p)
                    ref = tj.decode_rgb(jpeg, w, h)
                    got = np.frombuffer(out, np.uint8).reshape(h, w, 3)
                    assert np.array_equal(got, ref), f"{int(np.count_nonzero(got != ref))} bytes differ"
                    checked += 1
                cap.stop()
    finally:
        tj.close()
    assert checked == 6


def test_S2_S39_same_id_after_replug_on_the_same_port(uvc_cams, camcore):
    cam = uvc_cams(serial=None)
    with camcore.Manager() as m:
        before = only_uvc(m, cam).id
    port = cam.port
    cam.unplug()
    cam.plug()
    assert cam.port == port
    with camcore.Manager() as m:
        after = only_uvc(m, cam).id
    assert after == before


def test_S2_S39_serial_camera_keeps_its_id_on_another_port(uvc_cams, camcore):
    cam = uvc_cams(serial="SERIAL42")
    with camcore.Manager() as m:
        before = only_uvc(m, cam).id
    port = cam.port
    cam.detach()
    cam.plug(port=port + 1)
    assert cam.port == port + 1
    with camcore.Manager() as m:
        after = only_uvc(m, cam)
    assert after.bus_info == f"usb-vhci_hcd.0-{port + 2}"
    assert after.id == before, "a camera with a serial number keeps its id on any port (S39)"


def test_S2_two_identical_cameras_without_serial_get_distinct_ids(uvc_cams, camcore):
    a = uvc_cams(serial=None, wait=False)
    b = uvc_cams(serial=None, wait=False)
    a.ready(), b.ready()
    with camcore.Manager() as m:
        da, db = only_uvc(m, a), only_uvc(m, b)
    assert da.id != db.id, (da.id, db.id)
    assert (da.usb_vendor_id, da.usb_product_id) == (db.usb_vendor_id, db.usb_product_id)


def test_S2_two_cameras_with_the_same_serial_get_distinct_ids(uvc_cams, camcore):
    a = uvc_cams(serial="SAME", wait=False)
    b = uvc_cams(serial="SAME", wait=False)
    a.ready(), b.ready()
    with camcore.Manager() as m:
        da, db = only_uvc(m, a), only_uvc(m, b)
    assert da.id != db.id, (da.id, db.id)


@pytest.mark.parametrize("iso", [False, True], ids=["bulk", "iso"])
def test_S25_S39_unplug_while_streaming_reports_disconnect_within_a_second(uvc_cams, camcore, iso):
    """The stream ends with one NoDeviceError within 2.5 s (ENODEV from VIDIOC_DQBUF
    here; the fake-node unit tests cover EIO/EINVAL with the node gone), and
    every later call on the capturer says NoDeviceError too."""
    cam = uvc_cams(serial="UNPLUG1", iso=iso)
    frames, errors = [], []
    first, failed = threading.Event(), threading.Event()

    def on_frame(f):
        frames.append(f.sequence)
        first.set()

    def on_error(e):
        errors.append((time.monotonic(), e))
        failed.set()

    with camcore.Manager() as m:
        d = only_uvc(m, cam)
        with m.open(d.id) as cap:
            cap.start(fourcc="MJPG", width=640, height=480, fps=30, on_frame=on_frame, on_error=on_error)
            try:
                assert first.wait(30), "no frame before the unplug"
                t0 = time.monotonic()
                cam.cmd("unplug")
                failed.wait(10)
                assert errors, "no error callback within 10 s of the unplug"
                took = errors[0][0] - t0
                uvc.record(f"uvc camcore unplug while streaming ({'iso' if iso else 'bulk'}) -> on_error", seconds=took,
                           error=type(errors[0][1]).__name__)
                # The kernel's own word (EIO, EINVAL or ENODEV, by timing) stays in the message.
                uvc.record(f"uvc camcore unplug ({'iso' if iso else 'bulk'}) error message", text=str(errors[0][1]))
                assert isinstance(errors[0][1], camcore.NoDeviceError), errors
                assert errors[0][1].status == camcore.E_NO_DEVICE
                assert len(errors) == 1, errors
                assert took < 2.5, f"disconnect reported after {took:.2f} s"
            finally:
                cap.stop()
            assert not cap.streaming
            # S25: whatever the app calls next on the gone camera says so, and nothing crashes.
            cam.wait_gone(nodes=(cam.capture, cam.meta))
            for call in (lambda: cap.get_control(camcore.CID_BRIGHTNESS),
                         lambda: cap.set_control(camcore.CID_BRIGHTNESS, 1),
                         lambda: cap.start(fourcc="MJPG", width=640, height=480, fps=30, on_frame=on_frame)):
                with pytest.raises(camcore.CamcoreError) as e:
                    call()
                assert isinstance(e.value, camcore.NoDeviceError), e.value
            assert not cap.streaming
        with pytest.raises(camcore.NoDeviceError):
            m.open(d.id)
        assert d.id not in [x.id for x in m.devices()]


def test_S27_controls_coupled_to_auto_modes(uvc_cam, camcore):
    with camcore.Manager() as m:
        d = only_uvc(m, uvc_cam)
        with m.open(d.id) as cap:
            c = {x.name: x for x in cap.controls()}
            for name in ("Brightness", "Contrast", "Gain", "Power Line Frequency",
                         "White Balance Temperature", "White Balance, Automatic"):
                assert name in c, sorted(c)
            b = c["Brightness"]
            assert (b.minimum, b.maximum, b.step, b.default) == (-64, 64, 1, 0)
            wbt = c["White Balance Temperature"]
            assert (wbt.minimum, wbt.maximum, wbt.step) == (2800, 6500, 10)
            assert wbt.inactive
            with pytest.raises(camcore.CamcoreError) as e:
                cap.set_control(camcore.CID_WHITE_BALANCE_TEMPERATURE, 5000)
            assert isinstance(e.value, (camcore.StateError, camcore.AccessError)), e.value
            # S27: the error names the automatic control in charge, and how to turn it off.
            assert "White Balance, Automatic" in str(e.value) and "to 0" in str(e.value), str(e.value)
            try:
                cap.set_control(camcore.CID_WHITE_BALANCE_AUTO, 0)
                assert not cap.control(camcore.CID_WHITE_BALANCE_TEMPERATURE).inactive
                cap.set_control(camcore.CID_WHITE_BALANCE_TEMPERATURE, 5000)
                assert cap.get_control(camcore.CID_WHITE_BALANCE_TEMPERATURE) == 5000
                cap.set_control(camcore.CID_BRIGHTNESS, -20)
                assert cap.get_control(camcore.CID_BRIGHTNESS) == -20
                with pytest.raises(camcore.InvalidArgError):
                    cap.set_control(camcore.CID_BRIGHTNESS, 65)
            finally:
                cap.set_control(camcore.CID_BRIGHTNESS, 0)
                cap.set_control(camcore.CID_WHITE_BALANCE_AUTO, 1)
    # the camera itself holds the values (uvccam answers GET_CUR from its state)
    out = v4l.v4l2_ctl("-d", uvc_cam.capture, "-C", "white_balance_temperature,brightness")
    assert "white_balance_temperature: 5000" in out and "brightness: 0" in out, out


def test_S27_controls_match_v4l2_ctl(uvc_cam, camcore):
    """Every control uvcvideo builds from the camera's units, field for field as
    `v4l2-ctl -l` lists them through another fd (key, type, range, step,
    default, value, inactive), with auto white balance on and then off."""
    with camcore.Manager() as m:
        d = only_uvc(m, uvc_cam)
        with m.open(d.id) as cap:
            ours = v4l.check_controls_match(cap.controls(), uvc_cam.capture)
            assert {"brightness", "contrast", "saturation", "gain", "power_line_frequency", "auto_exposure",
                    "exposure_time_absolute", "white_balance_automatic",
                    "white_balance_temperature"} <= {c.key for c in ours.values()}, sorted(c.key for c in ours.values())
            plf = ours[camcore.CID_POWER_LINE_FREQUENCY]
            assert plf.type == "menu" and [i.name for i in plf.menu][:3] == ["Disabled", "50 Hz", "60 Hz"], plf.menu
            try:
                cap.set_control(camcore.CID_WHITE_BALANCE_AUTO, 0)
                cap.set_control(camcore.CID_WHITE_BALANCE_TEMPERATURE, 3210)
                ours = v4l.check_controls_match(cap.controls(), uvc_cam.capture)
                assert ours[camcore.CID_WHITE_BALANCE_TEMPERATURE].listed_value == 3210
                assert not ours[camcore.CID_WHITE_BALANCE_TEMPERATURE].inactive
            finally:
                cap.set_control(camcore.CID_WHITE_BALANCE_AUTO, 1)


def test_S27_exposure_menu_skips_unsupported_modes_and_couples_exposure_time(uvc_cam, camcore):
    """uvcvideo builds auto_exposure from the camera's GET_RES bitmap: only Manual (1)
    and Aperture Priority (3); the others are skipped indices. Manual mode makes
    exposure_time_absolute active and settable."""
    with camcore.Manager() as m:
        d = only_uvc(m, uvc_cam)
        with m.open(d.id) as cap:
            ae = cap.control(camcore.CID_EXPOSURE_AUTO)
            assert ae.type == "menu"
            assert [(i.index, i.name) for i in ae.menu] == [(1, "Manual Mode"), (3, "Aperture Priority Mode")]
            assert ae.value == 3 and ae.default == 3
            for bad in (0, 2):
                with pytest.raises(camcore.InvalidArgError):
                    cap.set_control(camcore.CID_EXPOSURE_AUTO, bad)
            assert cap.control(camcore.CID_EXPOSURE_ABSOLUTE).inactive
            try:
                cap.set_control(camcore.CID_EXPOSURE_AUTO, 1)
                et = cap.control(camcore.CID_EXPOSURE_ABSOLUTE)
                assert not et.inactive and et.range == (3, 2047, 1)
                cap.set_control(camcore.CID_EXPOSURE_ABSOLUTE, 100)
                assert cap.get_control(camcore.CID_EXPOSURE_ABSOLUTE) == 100
            finally:
                cap.set_control(camcore.CID_EXPOSURE_AUTO, 3)
            assert cap.control(camcore.CID_EXPOSURE_ABSOLUTE).inactive


def test_S27_auto_white_balance_change_event_updates_the_temperature_flags(uvc_cam, camcore):
    """uvcvideo sends a control event for the slave when its master changes:
    turning auto WB off makes white_balance_temperature active (flags changed)."""
    changes, got = [], threading.Event()

    def on_change(c):
        changes.append(c)
        if c.id == camcore.CID_WHITE_BALANCE_TEMPERATURE and c.flags_changed:
            got.set()

    with camcore.Manager() as m:
        d = only_uvc(m, uvc_cam)
        with m.open(d.id) as cap:
            cap.on_control_changed(on_change)
            try:
                cap.set_control(camcore.CID_WHITE_BALANCE_AUTO, 0)
                assert got.wait(10), changes
                ev = [c for c in changes if c.id == camcore.CID_WHITE_BALANCE_TEMPERATURE and c.flags_changed][0]
                assert not ev.inactive, ev
                got.clear()
                cap.set_control(camcore.CID_WHITE_BALANCE_AUTO, 1)
                assert got.wait(10), changes
                ev = [c for c in changes if c.id == camcore.CID_WHITE_BALANCE_TEMPERATURE and c.flags_changed][-1]
                assert ev.inactive, ev
            finally:
                cap.on_control_changed(None)
                cap.set_control(camcore.CID_WHITE_BALANCE_AUTO, 1)


NODROP = "/sys/module/uvcvideo/parameters/nodrop"


@pytest.mark.parametrize("nodrop", [0, 1], ids=["nodrop0", "nodrop1"])
@pytest.mark.parametrize("fault", ["err", "short"])
def test_S26_bad_frames_flagged_or_dropped(uvc_cam, uvc_cams, camcore, fault, nodrop):
    """uvccam sends 3 bad frames (the UVC payload error bit, or half a frame). With
    uvcvideo's nodrop=0 (the default) the driver drops them (a sequence gap); with
    nodrop=1 it hands them over with V4L2_BUF_FLAG_ERROR. camcore counts them
    dropped or flags them corrupted, and never delivers one as a good frame.
    uvcvideo reads nodrop when it probes a camera: nodrop=1 needs a new one."""
    frames, done, warm = [], threading.Event(), threading.Event()

    def on_frame(f):
        bad = f.corrupted
        frames.append((f.sequence, bad, None if bad else uvc.yuyv_counter(f.plane(0), 640), f.lengths[0]))
        if len(frames) >= 3:
            warm.set()
        if len(frames) >= 12:
            done.set()

    cam = uvc_cam
    if nodrop:
        old = open(NODROP).read().strip()
        with open(NODROP, "w") as fh:
            fh.write("1")
        try:
            cam = uvc_cams(serial="NODROP1")
        finally:
            with open(NODROP, "w") as fh:
                fh.write(old)
    with camcore.Manager() as m:
        d = only_uvc(m, cam)
        with m.open(d.id) as cap:
            cap.start(fourcc="YUYV", width=640, height=480, fps=30, on_frame=on_frame)
            try:
                assert warm.wait(60), frames
                cam.cmd(f"{fault} 3")
                assert done.wait(60), frames
                stats = cap.stats
            finally:
                cap.stop()
    corrupted = [f for f in frames if f[1]]
    print(fault, nodrop, stats, frames)
    uvc.record(f"uvc camcore 3 bad frames ({fault}, nodrop={nodrop})", delivered_corrupted=len(corrupted),
               stats_corrupted=stats.frames_corrupted, stats_dropped=stats.frames_dropped)
    assert stats.frames_corrupted == len(corrupted)
    assert stats.frames_corrupted + stats.frames_dropped >= 3, (stats, frames)
    good = [f for f in frames if not f[1]]
    counters = [c for _, _, c, _ in good]
    assert all(b > a for a, b in zip(counters, counters[1:])), counters
    assert all(n == 640 * 480 * 2 for _, _, _, n in good), good
    # every good frame is a whole uvccam frame: its counter is the sequence plus a constant
    offs = {c - s for s, _, c, _ in good}
    assert len(offs) == 1, good


def test_S22_frames_without_eof_still_complete_on_the_fid_toggle(uvc_cam, camcore):
    """Some cameras never set EOF: uvcvideo ends a frame when FID toggles. uvccam
    drops EOF on 4 frames; camcore delivers them whole and unflagged."""
    frames, done, warm = [], threading.Event(), threading.Event()

    def on_frame(f):
        frames.append((f.sequence, f.corrupted, uvc.yuyv_counter(f.plane(0), 640)))
        if len(frames) >= 3:
            warm.set()
        if len(frames) >= 12:
            done.set()

    with camcore.Manager() as m:
        d = only_uvc(m, uvc_cam)
        with m.open(d.id) as cap:
            cap.start(fourcc="YUYV", width=640, height=480, fps=30, on_frame=on_frame)
            try:
                assert warm.wait(60), frames
                reply = uvc_cam.cmd("noeof 4")
                assert done.wait(60), frames
                stats = cap.stats
            finally:
                cap.stop()
    first_bad = int(reply.split("from frame ")[1])
    assert any(c in range(first_bad, first_bad + 4) for _, _, c in frames), (reply, frames)
    assert not any(bad for _, bad, _ in frames), frames
    assert stats.frames_corrupted == 0 and stats.frames_dropped == 0, stats
    assert len({c - s for s, _, c in frames}) == 1, frames


def test_S24_stall_reported_and_cleared(uvc_cam, camcore):
    """No frames for 2.5 s, then frames again: on_stall(True) then on_stall(False), no restart."""
    events, frames = [], []
    back = threading.Event()

    def on_stall(stalled, since_ns):
        events.append((stalled, time.monotonic(), time.monotonic_ns() - since_ns))

    def on_frame(f):
        frames.append(time.monotonic())
        if any(not s for s, _, _ in events):
            back.set()

    with camcore.Manager() as m:
        d = only_uvc(m, uvc_cam)
        with m.open(d.id) as cap:
            cap.start(fourcc="MJPG", width=640, height=480, fps=30, on_frame=on_frame, on_stall=on_stall,
                      stall_restart=None)   # S24 alone: S48's restart is its own test
            try:
                uvc.wait_for(lambda: len(frames) >= 5, 30, "frames before the stall")
                uvc_cam.cmd("stall 2.5")
                assert back.wait(30), events
                stats = cap.stats
            finally:
                cap.stop()
    assert [s for s, _, _ in events][:2] == [True, False], events
    assert stats.stalls == 1
    # S24: told max(1 s, 5 frame intervals) = 1 s after the last frame (30 fps), not later.
    quiet = events[0][2] / 1e9
    uvc.record("uvc camcore stall: on_stall(True) after the last frame", seconds=quiet)
    assert 0.95 <= quiet < 1.5, events


@pytest.mark.guard_s(240)
def test_S48_a_stalled_stream_is_restarted_and_a_dead_one_ends(uvc_cam, camcore):
    """The camera stops sending (URBs held): after stall_restart the stream
    is restarted (on_restart before and after, counted), and frames come
    back without the app doing anything. A stall that restarts do not end
    ends the stream after the tries with CamcoreTimeoutError."""
    frames, restarts, errors = [], [], []
    with camcore.Manager() as m:
        d = only_uvc(m, uvc_cam)
        with m.open(d.id) as cap:
            cap.start(fourcc="MJPG", width=640, height=480, fps=30, on_frame=lambda f: frames.append(time.monotonic()),
                      on_error=errors.append, stall_restart=1.5,
                      on_restart=lambda done, n: restarts.append((done, n, time.monotonic())))
            try:
                uvc.wait_for(lambda: len(frames) >= 5, 30, "frames before the stall")
                t0 = time.monotonic()
                uvc_cam.cmd("stall 3")
                uvc.wait_for(lambda: [t for t in frames if t > t0 + 0.5][:5], 30,
                             lambda: f"frames again after the stall (restarts {restarts}, errors {errors})")
                back = [t for t in frames if t > t0 + 0.5][0] - t0
                stats = cap.stats
            finally:
                cap.stop()
        uvc.record("uvc camcore S48: stall -> frames again", seconds=back, restarts=stats.restarts)
        assert [(done, n) for done, n, _ in restarts][:2] == [(False, 1), (True, 1)], restarts
        assert stats.restarts >= 1 and not errors, (stats, errors)
        # A camera that stays silent: two restarts, then the stream ends.
        frames.clear(); restarts.clear()
        with m.open(d.id) as cap:
            cap.start(fourcc="MJPG", width=640, height=480, fps=30, on_frame=lambda f: frames.append(time.monotonic()),
                      on_error=errors.append, stall_restart=1.0, stall_restart_tries=2,
                      on_restart=lambda done, n: restarts.append((done, n, time.monotonic())))
            try:
                uvc.wait_for(lambda: len(frames) >= 5, 30, "frames before the long stall")
                t0 = time.monotonic()
                uvc_cam.cmd("stall 600")
                uvc.wait_for(lambda: errors, 30, lambda: f"the stream's end (restarts {restarts})")
                ended = time.monotonic() - t0
            finally:
                uvc_cam.cmd("stall 0")
                cap.stop()
        uvc.record("uvc camcore S48: endless stall -> timeout error", seconds=ended)
        assert isinstance(errors[0], camcore.CamcoreTimeoutError), errors
        assert "2 restarts did not bring frames back" in str(errors[0]), errors[0]
        assert [(done, n) for done, n, _ in restarts] == [(False, 1), (True, 1), (False, 2), (True, 2)], restarts
        # And the camera works again afterwards.
        with m.open(d.id) as cap:
            assert len(cap.capture(3, fourcc="MJPG", width=640, height=480, fps=30, timeout=30)) == 3


@pytest.mark.guard_s(240)
def test_S48_a_session_restarts_a_stalled_camera_and_drops_a_dead_one(uvc_cam, camcore):
    """Under a session: the restart is told through on_restart (device,
    restarted, attempt) and the camera stays on; a stall the restarts do
    not end is a disconnect (S25)."""
    events, frames = [], []
    with camcore.Manager() as m:
        d = only_uvc(m, uvc_cam)
        with m.session(d.id, width=640, height=480, stall_restart=1.0, stall_restart_tries=2) as s:
            s.set_device_callbacks(
                on_restart=lambda dev, done, n: events.append(("restart", dev.id, done, n)),
                on_disconnected=lambda dev: events.append(("disconnected", dev.id)))
            pid = s.add_preview(lambda f: frames.append(time.monotonic()))
            try:
                uvc.wait_for(lambda: len(frames) >= 5, 30, "preview frames")
                t0 = time.monotonic()
                uvc_cam.cmd("stall 2.5")
                uvc.wait_for(lambda: [t for t in frames if t > t0 + 0.5][:3], 30,
                             lambda: f"frames again (events {events})")
                assert s.state.camera_on and events[:2] == [("restart", d.id, False, 1), ("restart", d.id, True, 1)], \
                    (events, s.state)
                uvc_cam.cmd("stall 600")
                uvc.wait_for(lambda: ("disconnected", d.id) in events, 30, lambda: f"the disconnect (events {events})")
            finally:
                uvc_cam.cmd("stall 0")
                s.remove_preview(pid)
    restarts = [e for e in events if e[0] == "restart"]
    assert restarts[-4:] == [("restart", d.id, False, 1), ("restart", d.id, True, 1),
                             ("restart", d.id, False, 2), ("restart", d.id, True, 2)], events
    assert events[-1] == ("disconnected", d.id), events


def test_S26_busy_control_is_a_clear_error(uvc_cam, camcore):
    """The camera STALLs SET_CUR(brightness) with "not ready": uvcvideo says EBUSY."""
    with camcore.Manager() as m:
        d = only_uvc(m, uvc_cam)
        with m.open(d.id) as cap:
            uvc_cam.cmd("ctlstall 2 2 SET_CUR 1 1")
            with pytest.raises(camcore.CamcoreError) as e:
                cap.set_control(camcore.CID_BRIGHTNESS, 7)
            assert isinstance(e.value, camcore.BusyError), e.value
            cap.set_control(camcore.CID_BRIGHTNESS, 7)
            assert cap.get_control(camcore.CID_BRIGHTNESS) == 7
            cap.set_control(camcore.CID_BRIGHTNESS, 0)


def test_S26_S27_stalled_control_is_an_io_error_and_the_stream_goes_on(uvc_cam, camcore):
    """The camera STALLs one SET_CUR(brightness) with error code 0 (none
    given): uvcvideo says EPIPE. camcore: CamcoreIOError naming the control,
    the stream keeps delivering frames, the next set works."""
    frames = []
    with camcore.Manager() as m:
        d = only_uvc(m, uvc_cam)
        with m.open(d.id) as cap:
            cap.start(fourcc="MJPG", width=640, height=480, fps=30, on_frame=lambda f: frames.append(f.sequence))
            try:
                uvc.wait_for(lambda: len(frames) >= 3, 30, "frames before the stalled control")
                assert uvc_cam.cmd("ctlstall 2 2 SET_CUR 0 1").startswith("OK")
                with pytest.raises(camcore.CamcoreError) as e:
                    cap.set_control(camcore.CID_BRIGHTNESS, 9)
                assert isinstance(e.value, camcore.CamcoreIOError), e.value
                assert "Brightness" in str(e.value), str(e.value)
                n = len(frames)
                uvc.wait_for(lambda: len(frames) >= n + 10, 10, "frames after the stalled control")
                cap.set_control(camcore.CID_BRIGHTNESS, 9)
                assert cap.get_control(camcore.CID_BRIGHTNESS) == 9
                assert cap.streaming and cap.last_error is None
                stats = cap.stats
            finally:
                uvc_cam.cmd("ctlstall off")
                cap.set_control(camcore.CID_BRIGHTNESS, 0)
                cap.stop()
    assert stats.frames_corrupted == 0 and stats.stalls == 0, stats
    assert all(b > a for a, b in zip(frames, frames[1:])), frames


def test_S6_S8_default_setting_decodes_mjpeg_720p30_to_rgb(uvc_cam, camcore):
    """The default preference (1280x720, 15-30 fps) with an output format: camcore
    picks MJPEG 720p at 30 (YUYV 720p is 10 fps) and delivers decoded RGB24."""
    with camcore.Manager() as m:
        d = only_uvc(m, uvc_cam)
        with m.open(d.id) as cap:
            frames, fmt, stats = _collect(cap, 8, fourcc=m.negotiate(d.id), output="RGB24")
    assert (fmt.source_fourcc, fmt.fourcc, fmt.width, fmt.height, fmt.fps) == ("MJPG", "RGB3", 1280, 720,
                                                                               Fraction(30)), fmt
    uvc.record("uvc camcore default setting MJPEG 1280x720 -> RGB24 bulk", measured_fps=stats.measured_fps)
    f = frames[-1]
    assert (f.fourcc, f.width, f.height, f.strides[0]) == ("RGB3", 1280, 720, 1280 * 3)
    rgb = f.planes[0][719 * 1280 * 3:720 * 1280 * 3].reshape(1280, 3).astype(int)
    luma = (rgb[:, 0] * 77 + rgb[:, 1] * 150 + rgb[:, 2] * 29) >> 8
    uvc.check_bars(luma, 1280, tol=12, what="decoded RGB luma", want=uvc.BAR_LUMA_JPEG)
    assert stats.frames_corrupted == 0


def _tool(*args, timeout=60):
    env = dict(os.environ)
    env.pop("CAMCORE_SYNTHETIC_CAMERA", None)
    r = subprocess.run([TOOL, *args], capture_output=True, text=True, timeout=timeout, env=env, cwd="/tmp")
    print(f"$ camcore {' '.join(args)} -> {r.returncode}\n{r.stdout}{r.stderr}")
    return r


def test_S1_S5_cli_lists_and_formats_the_uvc_camera(uvc_cam, tmp_path):
    if not os.access(TOOL, os.X_OK):
        pytest.fail(f"{TOOL} not built: run `make tools` on the host")
    r = _tool("--json", "list")
    assert r.returncode == 0, r.stderr
    devs = [d for d in json.loads(r.stdout)["devices"] if d["driver"] == "uvcvideo"]
    assert [d["node"] for d in devs] == [uvc_cam.capture], devs
    d = devs[0]
    assert d["type"] == "external" and d["name"] == v4l.querycap(uvc_cam.capture).card
    r = _tool("--json", "formats", d["id"])
    assert r.returncode == 0, r.stderr
    text = r.stdout
    for fc in ("YUYV", "MJPG"):
        assert fc in text
    r = _tool("capture", d["id"], "--size", "640x480", "--fps", "30", "--frames", "5",
              "--snapshot", str(tmp_path / "s.png"))
    assert r.returncode == 0, r.stdout + r.stderr
    assert (tmp_path / "s.png").stat().st_size > 1000


def test_S27_cli_controls_on_the_uvc_camera(uvc_cam):
    """`camcore controls` lists what uvcvideo lists, sets through the auto
    coupling (refused while auto is on, naming it), and the camera holds it."""
    if not os.access(TOOL, os.X_OK):
        pytest.fail(f"{TOOL} not built: run `make tools` on the host")
    node = uvc_cam.capture
    doc = json.loads(_tool("--json", "controls", node).stdout)
    ctl = {c["key"]: c for c in doc["controls"]}
    kernel = v4l.ctl_list(node)
    assert set(ctl) == {t["key"] for t in kernel.values() if t["type"] in v4l.SCALAR_TYPES}
    for t in (t for t in kernel.values() if t["type"] in v4l.SCALAR_TYPES):
        c = ctl[t["key"]]
        if "min" in t:
            assert (c["minimum"], c["maximum"]) == (int(t["min"]), int(t["max"])), (c, t)
        if "default" in t:
            assert c["default"] == int(t["default"]), (c, t)
        if "value" in t and "volatile" not in t.get("flags", ""):
            assert c["value"] == int(t["value"]), (c, t)
    r = _tool("controls", node)
    assert r.returncode == 0, r.stderr
    assert re.search(r"^  brightness\s+0x00980900 int\s+value=0 min=-64 max=64 step=1 default=0$",
                     r.stdout, re.M), r.stdout
    # (uvcvideo sets no slider flag; the manual control of an auto mode is inactive)
    assert re.search(r"^  white_balance_temperature\s+0x0098091a int\s+value=\d+ min=2800 max=6500 step=10 "
                     r"default=\d+ flags=inactive", r.stdout, re.M), r.stdout
    try:
        r = _tool("controls", node, "--set", "white_balance_temperature=4000")
        assert r.returncode == 1 and "White Balance, Automatic" in r.stderr, r.stderr
        r = _tool("controls", node, "--set", "white_balance_automatic=0", "--set", "white_balance_temperature=4000",
                  "--set", "brightness=-7")
        assert r.returncode == 0, r.stderr
        assert r.stdout.splitlines() == ["white_balance_automatic: 0", "white_balance_temperature: 4000",
                                         "brightness: -7"], r.stdout
        out = v4l.v4l2_ctl("-d", node, "-C", "white_balance_temperature,brightness")
        assert "white_balance_temperature: 4000" in out and "brightness: -7" in out, out
        r = _tool("controls", node, "--set", "brightness=65")
        assert r.returncode == 2 and "minimum -64, maximum 64" in r.stderr, r.stderr
    finally:
        _tool("controls", node, "--set", "brightness=0", "--set", "white_balance_automatic=1")


def test_S44_an_ir_twin_is_listed_after_the_colour_camera_and_never_picked(uvc_cams, camcore):
    """A face-login camera: one USB device with a colour function and a
    GREY-only one (uvccam --ir), beside the module's plain camera. The IR
    node is type infrared, listed after every colour camera; a session with
    no device takes a colour camera, flips never land on the IR one, and the
    CLI's default camera is a colour one."""
    cam = uvc_cams(serial="IRCAM1", ir=True)
    bus = v4l.querycap(cam.capture).bus_info
    with camcore.Manager(backend="v4l2") as m:
        listed = m.devices()
        print("MEASURED S44 listing:", [(d.id, d.node, d.type, d.bus_info) for d in listed])
        twin = [d for d in listed if d.bus_info == bus]
        assert [(d.node, d.type) for d in twin] == [(cam.capture, "external"), (cam.ir_capture, "infrared")], twin
        colour, ir = twin
        assert ir.id != colour.id, ir.id
        assert all(listed.index(ir) > i for i, d in enumerate(listed) if d.type != "infrared"), listed
        assert {f.fourcc for f in m.formats(ir.id)} == {"GREY"}, m.formats(ir.id)
        colours = [d.id for d in listed if d.type != "infrared"]
        frames, used = [], []
        with m.session(width=640, height=480) as s:
            assert s.state.device_id == colours[0], (s.state, colours)
            pid = s.add_preview(lambda f: frames.append((f.fourcc, f.width, f.height)))
            uvc.wait_for(lambda: len(frames) >= 2, 30, "preview frames")
            for _ in range(len(colours) + 1):
                try:
                    s.flip()
                except camcore.NoDeviceError:
                    assert len(colours) == 1, colours   # only with no other colour camera
                used.append(s.state.device_id)
            assert ir.id not in used and s.state.camera_on, (used, s.state)
            s.remove_preview(pid)
        print("MEASURED S44 session: first", colours[0], "flips", used, "frames", frames[:2])
    r = _tool("--json", "list")
    assert r.returncode == 0, r.stderr
    cli = [(d["node"], d["type"]) for d in json.loads(r.stdout)["devices"] if d["bus_info"] == bus]
    assert cli == [(cam.capture, "external"), (cam.ir_capture, "infrared")], cli
    r = _tool("--json", "formats")        # no DEVICE: the first camera, never the IR one
    assert r.returncode == 0 and "GREY" not in r.stdout, r.stdout + r.stderr
