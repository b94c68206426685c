# SPDX-License-Identifier: MIT
"""Hot-plug of a real uvcvideo camera (the emulated webcam uvccam) through
camcore: the libudev monitor (S24), a session losing its camera and getting
it back (S25, S39), and an unplug while the stream is stalled (S25, S39).
"""
from __future__ import annotations

import os
import subprocess
import threading
import time

import pytest

import conftest
import hotplug_util as hp
import uvc_util as uvc


def test_S24_S1_hotplug_reports_the_uvc_camera_once(uvc_cams, camcore):
    """Plugging a UVC camera adds a capture node, a metadata node and a media node:
    camcore reports one connected (the capture node) and, on unplug, one disconnected."""
    conn, disc = [], []
    got_conn, got_disc = threading.Event(), threading.Event()

    def on_connected(d):
        conn.append((time.monotonic(), d))
        got_conn.set()

    def on_disconnected(d):
        disc.append((time.monotonic(), d))
        got_disc.set()

    with camcore.Manager() as m:
        m.set_hotplug_callbacks(on_connected=on_connected, on_disconnected=on_disconnected)
        try:
            t0 = time.monotonic()
            cam = uvc_cams(serial="HOTPLUG1")
            assert got_conn.wait(15), "no connected event"
            t1 = time.monotonic()
            cam.unplug()
            assert got_disc.wait(15), "no disconnected event"
            hp.settle()
        finally:
            m.set_hotplug_callbacks(None, None)
    assert [d.node for _, d in conn] == [cam.capture], [d for _, d in conn]
    assert [d.node for _, d in disc] == [cam.capture], [d for _, d in disc]
    c, d = conn[0][1], disc[0][1]
    assert c.driver == "uvcvideo" and c.type == "external" and (c.usb_vendor_id, c.usb_product_id) == (uvc.VID, uvc.PID)
    assert d.id == c.id
    uvc.record("uvc camcore hot-plug events", plug_to_connected_s=conn[0][0] - t0,
               unplug_to_disconnected_s=disc[0][0] - t1)


def test_S25_S39_session_falls_back_and_returns_to_the_uvc_camera(uvc_cams, camcore):
    """A session previewing the UVC camera: surprise unplug -> disconnected within 1 s and
    the synthetic camera selected; replug on the same port -> the same id comes back,
    is selected again and streams."""
    cam = uvc_cams(serial="SESSION1")
    with camcore.Manager() as m:
        dev = [d for d in m.devices() if d.node == cam.capture][0]
    with hp.SessionProc("--device", dev.id, "--synthetic", "1", "--size", "640x480") as s:
        assert s.ready == dev.id, s.lines
        assert s.wait_frame(0, lambda f: f.w == 640 and f.colorbar, timeout=30, count=3), s.diagnose()
        t0 = hp.now()
        cam.cmd("unplug")
        ev = s.wait_event(t0, "disconnected", dev.id, timeout=10)
        sel = s.wait_event(t0, "selected", "synthetic:0", timeout=10)
        assert ev is not None and sel is not None, s.diagnose()
        errors = s.events_after(t0, "error")
        cam.wait_gone(nodes=(cam.capture, cam.meta))
        t1 = hp.now()
        cam.plug()
        conn = s.wait_event(t1, "connected", dev.id, timeout=20)
        back = s.wait_event(t1, "selected", dev.id, timeout=20)
        frame = s.wait_frame(t1, lambda f: f.w == 640 and f.colorbar, timeout=30, count=3)
        assert conn is not None and back is not None and frame is not None, s.diagnose()
        st = s.state()
        assert st["camera_on"] == 1 and st["device"] == dev.id, st
        s.quit()
    uvc.record("uvc session unplug/replug", unplug_to_disconnected=hp.ms(ev.ns - t0),
               unplug_to_selected_synthetic=hp.ms(sel.ns - t0), plug_to_connected=hp.ms(conn.ns - t1),
               plug_to_selected_back=hp.ms(back.ns - t1), plug_to_frames_back=hp.ms(frame.ns - t1),
               errors=len(errors))
    assert ev.ns - t0 < 1.5e9, hp.ms(ev.ns - t0)


def test_S25_S39_unplug_while_stalled_reports_disconnect(uvc_cams, camcore):
    """The camera stops sending (a stall), then is unplugged: camcore still reports the
    disconnect promptly, although no DQBUF was completing."""
    cam = uvc_cams(serial="STALLUNPLUG")
    stalls, errors, frames = [], [], []
    stalled, failed = threading.Event(), threading.Event()

    def on_stall(is_stalled, since):
        stalls.append(is_stalled)
        if is_stalled:
            stalled.set()

    def on_error(e):
        errors.append((time.monotonic(), e))
        failed.set()

    with camcore.Manager() as m:
        d = [x for x in m.devices() if x.node == cam.capture][0]
        with m.open(d.id) as cap:
            cap.start(fourcc="MJPG", width=640, height=480, fps=30, on_frame=lambda f: frames.append(1),
                      on_error=on_error, on_stall=on_stall)
            try:
                uvc.wait_for(lambda: len(frames) >= 3, 30, "frames before the stall")
                cam.cmd("stall 60")
                assert stalled.wait(10), "no on_stall"
                t0 = time.monotonic()
                cam.cmd("unplug")
                assert failed.wait(10), "no on_error within 10 s of an unplug during a stall"
            finally:
                cap.stop()
    took = errors[0][0] - t0
    uvc.record("uvc camcore unplug during a stall -> on_error", seconds=took, error=type(errors[0][1]).__name__)
    assert isinstance(errors[0][1], camcore.NoDeviceError), errors
    assert took < 2.5, took


# The count: 50 unplug/replug cycles (~2 s each in the guest).
CYCLES = int(os.environ.get("CAMCORE_UVC_CYCLES", "50"))


def _fds_and_threads():
    return len(os.listdir("/proc/self/fd")), len(os.listdir("/proc/self/task"))


@pytest.mark.guard_s(60 + 5 * CYCLES)
def test_S24_S39_unplug_replug_cycles_leak_no_fd_or_thread(uvc_cams, camcore):
    """CYCLES surprise unplugs and replugs of a UVC camera while a manager watches
    hot-plug and, each cycle, opens the camera and pulls a frame: one connected and
    one disconnected event per cycle, the same id each time, and afterwards the
    process has as many fds and threads as after the first cycle."""
    cam = uvc_cams(serial="CYCLES01")
    conns, discs = [], []
    back = threading.Semaphore(0)

    def on_connected(d):
        if d.node == cam.capture or d.driver == "uvcvideo":
            conns.append(d.id)
            back.release()

    def on_disconnected(d):
        discs.append(d.id)

    def one_frame(m, dev_id):
        with m.open(dev_id) as cap:
            for f in cap.frames(1, fourcc="YUYV", width=640, height=480, fps=30, timeout=10):
                assert (f.fourcc, f.width, f.height) == ("YUYV", 640, 480)

    with camcore.Manager() as m:
        dev_id = [d for d in m.devices() if d.node == cam.capture][0].id
        m.set_hotplug_callbacks(on_connected=on_connected, on_disconnected=on_disconnected)
        try:
            base = None
            t0 = time.monotonic()
            for i in range(CYCLES):
                cam.unplug()
                cam.plug()
                assert back.acquire(timeout=20), f"cycle {i}: no connected event"
                ids = [d.id for d in m.devices() if d.driver == "uvcvideo"]
                assert ids == [dev_id], (i, ids)
                one_frame(m, dev_id)
                if base is None:
                    base = _fds_and_threads()   # after one whole cycle: every lazy thread is up
            took = time.monotonic() - t0
            end = _fds_and_threads()
        finally:
            m.set_hotplug_callbacks(None, None)
    assert conns == [dev_id] * CYCLES, conns[-3:]
    assert discs == [dev_id] * CYCLES, discs[-3:]
    assert end == base, f"fds, threads after cycle 1: {base}; after cycle {CYCLES}: {end}"
    uvc.record("uvc unplug/replug cycles", cycles=CYCLES, seconds=round(took, 1),
               fds=end[0], threads=end[1])


def test_S39_cli_capture_ends_with_disconnected_when_unplugged(uvc_cams):
    """`camcore capture` streaming from the UVC camera: a surprise unplug ends it with
    the "disconnected" message and exit code 3 (CAMCORE_E_NO_DEVICE: the camera went
    away), within a few seconds, not a hang or a crash."""
    tool = os.path.join(conftest.REPO, "tools", "camcore", "camcore")
    if not os.access(tool, os.X_OK):
        pytest.fail(f"{tool} not built: run `make tools` on the host")
    cam = uvc_cams(serial="CLIUNPLUG")
    env = dict(os.environ)
    env.pop("CAMCORE_SYNTHETIC_CAMERA", None)
    p = subprocess.Popen([tool, "capture", cam.capture, "--size", "640x480", "--fps", "30", "--seconds", "60"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd="/tmp")
    try:
        def streaming():
            try:
                fds = [os.readlink(f"/proc/{p.pid}/fd/{n}") for n in os.listdir(f"/proc/{p.pid}/fd")]
                return cam.capture in fds and len(os.listdir(f"/proc/{p.pid}/task")) >= 2
            except OSError:
                return False
        deadline = time.monotonic() + 20
        while not streaming():
            assert p.poll() is None and time.monotonic() < deadline, "camcore capture did not start streaming"
            time.sleep(0.05)
        time.sleep(0.5)   # some frames
        t0 = time.monotonic()
        cam.cmd("unplug")
        out, err = p.communicate(timeout=15)
        took = time.monotonic() - t0
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
    print(out, err)
    assert p.returncode == 3, (p.returncode, err)
    assert "disconnected" in err and cam.capture in err, err
    assert took < 5, took
    uvc.record("uvc cli unplug", unplug_to_exit_s=round(took, 2))
