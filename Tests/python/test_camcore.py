# SPDX-License-Identifier: MIT
"""pytest suite for the camcore package (bindings/python) against libcamcore's synthetic camera.

Each test names the SPEC rule it checks and asserts real values.
"""
import os
import gc
import json
import threading
import time
from fractions import Fraction

import numpy as np
import pytest

import camcore
from conftest import run_python, wait_until

W, H = 640, 480

# Expected layout of a 640x480 frame of the synthetic camera, per format:
# (FourCC, plane strides, plane lengths, array shape, array strides).
LAYOUTS = {
    "YUYV": ("YUYV", [1280], [614400], (480, 640, 2), (1280, 2, 1)),
    "I420": ("YU12", [640, 320, 320], [307200, 76800, 76800], (480, 640), (640, 1)),
    "NV12": ("NV12", [640, 640], [307200, 153600], (480, 640), (640, 1)),
}


class Recorder:
    """on_frame that copies every frame and records when it arrived (monotonic ns)."""

    def __init__(self, limit=None):
        self.frames = []
        self.arrivals = []
        self.limit = limit
        self.done = threading.Event()
        self.lock = threading.Lock()

    def __call__(self, frame):
        now = time.monotonic_ns()
        with self.lock:
            if self.limit is not None and len(self.frames) >= self.limit:
                return
            self.frames.append(frame.copy())
            self.arrivals.append(now)
            if self.limit is not None and len(self.frames) >= self.limit:
                self.done.set()

    def wait(self, timeout=10.0):
        assert self.done.wait(timeout), f"only {len(self.frames)} of {self.limit} frames came"
        return self.frames


def assert_rising_sequences(frames):
    """S22: sequences start at 0 and rise strictly; a gap (a frame period the
    camera skipped, e.g. on a loaded machine) is reported as dropped_before."""
    seqs = [f.sequence for f in frames]
    assert seqs[0] == 0, seqs
    assert all(b > a for a, b in zip(seqs, seqs[1:])), seqs
    assert frames[0].dropped_before == 0
    for a, b in zip(frames, frames[1:]):
        assert b.dropped_before == b.sequence - a.sequence - 1, seqs
    return sum(f.dropped_before for f in frames)


def assert_still_works(cap, fourcc="YUYV"):
    """S31: after an error the library keeps working: two frames arrive."""
    frames = cap.capture(2, fourcc=fourcc, width=160, height=120, fps=60, timeout=10)
    assert frames[0].sequence == 0 and frames[1].sequence > 0
    assert frames[0].width == 160 and frames[0].height == 120


# ---------------------------------------------------------------------------
# S29: version, status codes, messages, FourCC
# ---------------------------------------------------------------------------

def test_S29_version_matches_header():
    assert camcore.VERSION == (0, 2, 0)
    assert camcore.VERSION_NUM == 0x000200
    assert camcore.library_version() == camcore.VERSION
    assert camcore.version() == "0.2.0"


NAMES = {
    -1: ("CAMCORE_E_INVALID_ARG", camcore.InvalidArgError),
    -2: ("CAMCORE_E_NO_DEVICE", camcore.NoDeviceError),
    -3: ("CAMCORE_E_BUSY", camcore.BusyError),
    -4: ("CAMCORE_E_ACCESS", camcore.AccessError),
    -5: ("CAMCORE_E_NOT_SUPPORTED", camcore.NotSupportedError),
    -6: ("CAMCORE_E_TIMEOUT", camcore.CamcoreTimeoutError),
    -7: ("CAMCORE_E_IO", camcore.CamcoreIOError),
    -8: ("CAMCORE_E_STATE", camcore.StateError),
    -9: ("CAMCORE_E_CUSTOM_SOURCE_ACTIVE", camcore.CustomSourceActiveError),
    -10: ("CAMCORE_E_WOULD_DEADLOCK", camcore.WouldDeadlockError),
    -11: ("CAMCORE_E_NO_MEMORY", camcore.NoMemoryError),
    -12: ("CAMCORE_E_INTERNAL", camcore.InternalError),
    -13: ("CAMCORE_E_BANDWIDTH", camcore.BandwidthError),
}


@pytest.mark.parametrize("status", sorted(NAMES))
def test_S29_strerror_and_exception_per_code(status):
    name, cls = NAMES[status]
    text = camcore.strerror(status)
    assert text.startswith(name), text
    assert len(text) > len(name)  # "CAMCORE_E_BUSY: device busy"
    err = camcore.error_for_status(status, "call", "detail")
    assert type(err) is cls and isinstance(err, camcore.CamcoreError)
    assert err.status == status == cls.code
    # The message speaks Python: what was asked, then the library's detail; the
    # code's C name stays in .status (and strerror), out of the text.
    assert err.message == "call: detail" == str(err)
    meaning = text.split(": ", 1)[1]
    assert camcore.error_for_status(status, "call").message == f"call: {meaning}"
    # A detail that starts with the meaning is not doubled ("device busy: device busy").
    doubled = camcore.error_for_status(status, "call", f"{meaning}: /dev/video0")
    assert doubled.message == f"call: {meaning}: /dev/video0"


def test_S29_strerror_ok_and_unknown():
    assert camcore.strerror(0).startswith("CAMCORE_OK")
    assert camcore.strerror(-1000) == "unknown status"
    assert camcore.strerror(12345) == "unknown status"
    err = camcore.error_for_status(-1000)
    assert type(err) is camcore.CamcoreError and err.status == -1000


def test_S29_last_error_message_is_per_thread(manager):
    with pytest.raises(camcore.NoDeviceError) as ei:
        manager.open("no-such-camera")
    detail = camcore.last_error_message()
    assert detail != "" and detail == ei.value.detail
    seen = []
    t = threading.Thread(target=lambda: seen.append(camcore.last_error_message()))
    t.start()
    t.join()
    assert seen == [""]  # a thread that never failed has no message
    # A successful call leaves the message as it was.
    manager.devices()
    assert camcore.last_error_message() == detail


def test_S29_fourcc_round_trip():
    assert camcore.fourcc("YUYV") == 0x56595559
    assert camcore.fourcc("YU12") == 0x32315559
    assert camcore.fourcc("NV12") == 0x3231564E
    assert camcore.fourcc("MJPG") == 0x47504A4D
    assert camcore.fourcc("Y16") == camcore.fourcc("Y16 ")
    for s in ("YUYV", "YU12", "NV12", "RGB3", "BGR3", "MJPG", "GREY"):
        assert camcore.fourcc_str(camcore.fourcc(s)) == s
    with pytest.raises(ValueError):
        camcore.fourcc("TOOLONG")


# ---------------------------------------------------------------------------
# S4: the synthetic camera is listed only when asked for
# ---------------------------------------------------------------------------

def test_S4_synthetic_not_listed_by_default():
    with camcore.Manager() as m:
        assert [d for d in m.devices() if d.synthetic or d.node == "synthetic"] == []


def test_S4_synthetic_listed_when_asked(manager):
    devices = manager.devices()
    synth = [d for d in devices if d.synthetic]
    assert len(synth) == 1
    d = synth[0]
    assert devices[-1] == d  # after the real cameras
    assert d.id != ""
    assert d.name != ""
    assert d.node == "synthetic"
    assert d.driver == "camcore"
    assert d.type == "virtual"
    assert d.flags & camcore.DEVICE_SYNTHETIC
    assert not d.flags & camcore.DEVICE_MULTIPLANAR and d.multiplanar is False
    assert d.device_caps == 0
    assert (d.usb_vendor_id, d.usb_product_id) == (0, 0)
    assert d.position in ("unknown", "front", "back", "external")
    assert d.other_ids == ()  # S42: the synthetic camera is in no other backend
    assert d.rotation is None  # S45: it does not say


def test_S43_frame_note_is_empty_while_frames_fit(manager, synth_id):
    with manager.open(synth_id) as cap:
        frames = cap.capture(3, fourcc="NV12", width=320, height=240)
        assert [(f.width, f.height) for f in frames] == [(320, 240)] * 3
        assert cap.frame_note == ""
        assert not cap.format.adjusted & camcore.ADJUSTED_SIZE
    with pytest.raises(camcore.StateError):
        cap.frame_note  # closed


LIST_DEVICES = """
import json, camcore
with camcore.Manager() as m:
    print(json.dumps([[d.node, d.driver, d.synthetic] for d in m.devices()]))
"""


def test_S4_env_var_lists_synthetic():
    # The variable is read when a manager is created: run in fresh processes.
    on = run_python(LIST_DEVICES, env_extra={"CAMCORE_SYNTHETIC_CAMERA": "1"})
    assert on.returncode == 0, on.stderr
    assert ["synthetic", "camcore", True] in json.loads(on.stdout)
    off = run_python(LIST_DEVICES, env_remove=["CAMCORE_SYNTHETIC_CAMERA"])
    assert off.returncode == 0, off.stderr
    assert all(not s for _, _, s in json.loads(off.stdout))
    zero = run_python(LIST_DEVICES, env_extra={"CAMCORE_SYNTHETIC_CAMERA": "0"})
    assert zero.returncode == 0, zero.stderr
    assert all(not s for _, _, s in json.loads(zero.stdout))


# ---------------------------------------------------------------------------
# S5: formats of the synthetic camera
# ---------------------------------------------------------------------------

def test_S5_synthetic_formats(manager, synth_id):
    formats = manager.formats(synth_id)
    assert sorted(f.fourcc for f in formats) == ["NV12", "YU12", "YUYV"]
    for f in formats:
        assert f.fourcc_code == camcore.fourcc(f.fourcc)
        assert f.compressed is False and f.flags & camcore.FORMAT_COMPRESSED == 0
        assert f.description != ""
        assert f.size_kind == "stepwise"
        assert (f.min_width, f.max_width, f.step_width) == (16, 3840, 2)
        assert (f.min_height, f.max_height, f.step_height) == (16, 2160, 2)
        assert (f.width, f.height) == (3840, 2160)  # ranges report the largest size
        assert f.rate_kind == "continuous"
        assert f.rates == []
        assert f.min_fps == Fraction(1) and f.max_fps == Fraction(120)


def test_S5_formats_of_unknown_device(manager):
    with pytest.raises(camcore.NoDeviceError) as ei:
        manager.formats("no-such-camera")
    assert ei.value.status == camcore.E_NO_DEVICE
    assert str(ei.value).startswith("Manager.formats('no-such-camera'): "), str(ei.value)
    assert "CAMCORE_E_" not in str(ei.value) and "camcore_" not in str(ei.value)


# ---------------------------------------------------------------------------
# S22: capture 640x480 YUYV, I420, NV12
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["YUYV", "I420", "NV12"])
def test_S22_frame_fields(cap, synth_id, name):
    fcc, strides, lengths, shape, arr_strides = LAYOUTS[name]
    rec = Recorder(limit=10)
    cap.start(fourcc=fcc, width=W, height=H, fps=30, on_frame=rec)
    try:
        assert cap.streaming
        fmt = cap.format
        frames = rec.wait()
    finally:
        cap.stop()
    assert not cap.streaming
    assert cap.device_id == synth_id
    assert (fmt.fourcc, fmt.width, fmt.height) == (fcc, W, H)
    assert fmt.plane_count == len(strides)
    assert fmt.strides == strides
    assert fmt.frame_bytes == sum(lengths)
    assert fmt.fps == Fraction(30)
    assert 2 <= fmt.buffer_count <= 32
    for f in frames:
        assert (f.fourcc, f.width, f.height) == (fcc, W, H)
        assert f.plane_count == len(strides)
        assert f.strides == strides
        assert f.lengths == lengths
        assert [p.size for p in f.planes] == lengths
        assert f.flags == 0 and f.corrupted is False
        assert f.array.shape == shape and f.array.strides == arr_strides
    # Sequence 0, 1, 2, ... (gaps only as reported drops) and rising CLOCK_MONOTONIC timestamps.
    gaps = assert_rising_sequences(frames)
    ts = [f.timestamp_ns for f in frames]
    assert all(b > a for a, b in zip(ts, ts[1:]))
    for t, arrived in zip(ts, rec.arrivals):
        assert 0 <= arrived - t < 250_000_000, (t, arrived)  # stamped just before delivery
    stats = cap.stats
    assert stats.frames_delivered >= 10
    assert stats.frames_dropped >= gaps and stats.frames_corrupted == 0


@pytest.mark.parametrize("fps", [15, 60])
def test_S6_rate_near_requested(cap, fps):
    n = 30 if fps == 60 else 10
    frames = cap.capture(n, fourcc="YUYV", width=320, height=240, fps=fps, timeout=20)
    assert cap.format.fps == Fraction(fps)
    assert_rising_sequences(frames)
    ts = np.array([f.timestamp_ns for f in frames], dtype=np.int64)
    seq = np.array([f.sequence for f in frames], dtype=np.int64)
    # Time per frame period, from the frames' own timestamps (not wall time).
    per_period = np.diff(ts) / np.diff(seq) / 1e9
    period = 1.0 / fps
    # Single gaps jitter with scheduling (frames are stamped when made); the median does not.
    assert abs(float(np.median(per_period)) - period) < 0.1 * period, per_period
    span = (ts[-1] - ts[0]) / 1e9
    assert span >= (n - 1) * period * 0.9  # 30 frames at 60 fps span >= ~0.43 s
    measured = (seq[-1] - seq[0]) / span
    assert abs(measured - fps) < 0.1 * fps


def test_S6_applied_format_is_what_frames_carry(cap):
    # A size off the 2-pixel step: whatever the library applies, frames match it.
    frames = None
    rec = Recorder(limit=3)
    cap.start(fourcc="YUYV", width=641, height=481, fps=30, on_frame=rec)
    try:
        fmt = cap.format
        frames = rec.wait()
    finally:
        cap.stop()
    assert fmt.width % 2 == 0 and fmt.height % 2 == 0
    assert abs(fmt.width - 641) <= 1 and abs(fmt.height - 481) <= 1
    assert fmt.strides == [fmt.width * 2]
    for f in frames:
        assert (f.width, f.height) == (fmt.width, fmt.height)
        assert f.lengths == [fmt.width * 2 * fmt.height]


@pytest.mark.parametrize("name", ["YUYV", "I420", "NV12"])
def test_S4_pattern_moves(cap, name):
    fcc = LAYOUTS[name][0]
    frames = cap.capture(6, fourcc=fcc, width=W, height=H, fps=60)
    first, last = frames[0], frames[-1]
    assert first.planes[0].std() > 0  # a pattern, not a flat image
    assert not np.array_equal(first.planes[0], last.planes[0])
    # Luma stays in video range for a YUV pattern.
    y = first.array[:, :, 0] if fcc == "YUYV" else first.array
    assert y.min() >= 0 and y.max() <= 255 and y.shape == (H, W)


@pytest.mark.parametrize("name", ["YUYV", "I420", "NV12"])
def test_S22_numpy_views_are_zero_copy(cap, name):
    fcc, strides, lengths, shape, arr_strides = LAYOUTS[name]
    seen = []
    errors = []
    kept = []

    def on_frame(frame):
        try:
            c = frame._ptr.contents
            for i in range(frame.plane_count):
                p = frame.plane(i)
                assert p.dtype == np.uint8 and p.shape == (lengths[i],)
                assert p.ctypes.data == c.planes[i].data  # same memory, no copy
                assert not p.flags.writeable
            a = frame.array
            assert a.shape == shape and a.strides == arr_strides and a.dtype == np.uint8
            assert a.ctypes.data == c.planes[0].data
            assert np.shares_memory(a, frame.plane(0))
            # Row r of the view starts stride*r bytes into the plane.
            row = a[7].reshape(-1)
            assert np.array_equal(row, frame.plane(0)[7 * strides[0]: 7 * strides[0] + row.size])
            with pytest.raises(IndexError):
                frame.plane(frame.plane_count)
            kept.append(frame)
            seen.append(frame.sequence)
        except BaseException as e:  # report on the main thread
            errors.append(e)

    cap.start(fourcc=fcc, width=W, height=H, fps=60, on_frame=on_frame)
    wait_until(lambda: len(seen) + len(errors) >= 3)
    cap.stop()
    assert errors == []
    assert len(seen) >= 3
    # A borrowed frame used after its callback raises a Python error, not a crash.
    with pytest.raises(camcore.StateError):
        kept[0].sequence
    with pytest.raises(camcore.StateError):
        kept[0].array
    assert kept[0].valid is False


def test_S22_capture_convenience_returns_copies(cap):
    frames = cap.capture(5, fourcc="NV12", width=320, height=240, fps=60)
    assert len(frames) == 5
    assert_rising_sequences(frames)
    for f in frames:
        assert isinstance(f, camcore.CapturedFrame)
        assert f.plane_count == 2 and f.lengths == [76800, 38400]
        assert f.array.shape == (240, 320)
        assert np.shares_memory(f.array, f.planes[0])  # array is a view of the copy
    assert not np.shares_memory(frames[0].planes[0], frames[1].planes[0])


def test_S17_restart_resets_sequence_and_stats(cap):
    a = cap.capture(4, fourcc="YUYV", width=320, height=240, fps=60)
    b = cap.capture(3, fourcc="I420", width=320, height=240, fps=60)
    assert len(a) == 4 and len(b) == 3
    assert_rising_sequences(a)
    assert_rising_sequences(b)  # a new start counts from 0 again
    assert b[0].fourcc == "YU12"
    assert b[0].timestamp_ns > a[-1].timestamp_ns
    assert cap.format.fourcc == "YU12"
    assert 3 <= cap.stats.frames_delivered < 10


# ---------------------------------------------------------------------------
# S23: retain / release
# ---------------------------------------------------------------------------

def test_S23_retained_frame_survives_later_frames(cap):
    state = {"retained": None, "copy": None, "count": 0, "last": None}
    done = threading.Event()

    def on_frame(frame):
        if state["retained"] is None:
            state["retained"] = frame.retain()
            state["copy"] = frame.plane(0).copy()
            state["seq"] = frame.sequence
        state["count"] += 1
        state["last"] = frame.plane(0).copy()
        if state["count"] >= 16:  # 4 buffers cycled several times
            done.set()

    cap.start(fourcc="YUYV", width=W, height=H, fps=60, on_frame=on_frame, buffer_count=4)
    assert done.wait(10)
    cap.stop()
    r = state["retained"]
    assert isinstance(r, camcore.RetainedFrame)
    assert r.sequence == state["seq"] == 0 and (r.width, r.height, r.fourcc) == (W, H, "YUYV")
    assert np.array_equal(r.plane(0), state["copy"])  # unchanged by 15 later frames
    assert not np.array_equal(r.plane(0), state["last"])  # the pattern did move
    assert r.array.shape == (H, W, 2)
    r.release()
    with pytest.raises(camcore.StateError):
        r.sequence
    r.release()  # twice is a no-op
    assert_still_works(cap)


def test_S23_retaining_every_buffer_does_not_block(cap):
    held = []
    copies = []

    def on_frame(frame):
        held.append(frame.retain())
        copies.append(frame.plane(0).copy())

    cap.start(fourcc="YUYV", width=320, height=240, fps=60, on_frame=on_frame, buffer_count=2)
    granted = cap.format.buffer_count
    assert wait_until(lambda: len(held) >= granted, timeout=5)
    time.sleep(0.3)  # every buffer is retained now
    t0 = time.monotonic()
    cap.stop()
    assert time.monotonic() - t0 < 2.0
    # Every retained frame still holds its own data.
    for r, c in zip(held, copies):
        assert np.array_equal(r.plane(0), c)
    seqs = [r.sequence for r in held]
    assert seqs == sorted(set(seqs))
    cap.close()
    for r in held:  # release after close is allowed
        r.release()


def test_S23_retained_frame_context_manager(cap):
    box = []
    cap.start(fourcc="I420", width=160, height=120, fps=60,
              on_frame=lambda f: box.append(f.retain()) if not box else None)
    assert wait_until(lambda: box)
    cap.stop()
    with box[0] as r:
        assert r.plane_count == 3 and r.lengths == [19200, 4800, 4800]
        again = r.retain()
    with pytest.raises(camcore.StateError):
        r.width
    assert again.lengths == [19200, 4800, 4800]  # its own retain keeps it alive
    again.release()


# ---------------------------------------------------------------------------
# S16 / STYLE: no callback after stop; calls from inside callbacks
# ---------------------------------------------------------------------------

def test_S16_no_callback_after_stop_returns(cap):
    count = [0]
    inside = [False]

    def on_frame(frame):
        inside[0] = True
        time.sleep(0.003)
        count[0] += 1
        inside[0] = False

    cap.start(fourcc="YUYV", width=320, height=240, fps=120, on_frame=on_frame)
    assert wait_until(lambda: count[0] >= 10)
    cap.stop()
    assert inside[0] is False
    after_stop = count[0]
    assert not cap.streaming
    assert cap.stats.frames_delivered == after_stop
    time.sleep(0.3)
    assert count[0] == after_stop
    cap.stop()  # stopping a stopped capturer is OK
    assert count[0] == after_stop


def test_S16_no_callback_after_close_returns(manager, synth_id):
    count = [0]
    c = manager.open(synth_id)
    c.start(fourcc="YUYV", width=320, height=240, fps=120,
            on_frame=lambda f: count.__setitem__(0, count[0] + 1))
    assert wait_until(lambda: count[0] >= 5)
    c.close()
    n = count[0]
    time.sleep(0.2)
    assert count[0] == n


def _threads_named(name):
    out = []
    for t in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{t}/comm") as f:
                out.append(f.read().strip())
        except OSError:
            pass
    return [n for n in out if n == name]


def test_S31_stop_from_callback_would_deadlock(cap):
    results = []
    count = [0]

    def on_frame(frame):
        count[0] += 1
        if count[0] == 1:
            try:
                cap.stop()
                results.append("returned")
            except camcore.WouldDeadlockError as e:
                results.append(e.status)
            results.append(cap.streaming)

    cap.start(fourcc="YUYV", width=320, height=240, fps=60, on_frame=on_frame)
    assert wait_until(lambda: count[0] >= 5)  # streaming went on
    cap.stop()
    assert results == [camcore.E_WOULD_DEADLOCK, True]
    assert not cap.closed
    assert_still_works(cap)


def test_S31_close_from_callback_never_fails_and_no_callback_follows(manager, synth_id):
    """close() inside on_frame returns at once; no frame, error or stall
    callback follows the one that closed; the capture and close threads end."""
    cap = manager.open(synth_id)
    seen, errors = [], []
    closed_in = threading.Event()

    def on_frame(frame):
        seen.append(frame.sequence)
        if len(seen) == 3:
            cap.close()                       # returns: the teardown is deferred
            seen.append("closed")
            closed_in.set()

    cap.start(fourcc="YUYV", width=320, height=240, fps=120, on_frame=on_frame,
              on_error=errors.append)
    assert closed_in.wait(10), seen
    assert cap.closed
    assert wait_until(lambda: not _threads_named("camcore-close"), 10), _threads_named("camcore-close")
    after = list(seen)
    time.sleep(0.2)                           # a frame would come every 8 ms
    assert seen == after and seen[-1] == "closed" and len(seen) == 4, seen
    assert errors == [], errors
    cap.close()                               # twice is fine


def test_S31_stop_from_the_very_first_callback_would_deadlock(cap):
    # The first frame may arrive while start() is still returning: stop() from
    # it must still be refused, never stop the stream from the capture thread.
    outcomes = []
    for _ in range(200):
        res = []

        def on_frame(frame):
            if not res:
                try:
                    cap.stop()
                    res.append("stop returned")
                except camcore.WouldDeadlockError as e:
                    res.append(e.status if "library bug" not in e.message else "stop returned OK")

        cap.start(fourcc="YUYV", width=64, height=48, fps=120, on_frame=on_frame)
        assert wait_until(lambda: res)
        outcomes.append((res[0], cap.streaming))
        cap.stop()
    bad = [o for o in outcomes if o != (camcore.E_WOULD_DEADLOCK, True)]
    assert bad == [], f"{len(bad)} of {len(outcomes)} starts: {bad[:3]}"


def test_S31_exception_in_on_frame_is_reraised_by_stop(cap):
    count = [0]

    def on_frame(frame):
        count[0] += 1
        raise RuntimeError(f"boom {frame.sequence}")

    cap.start(fourcc="YUYV", width=320, height=240, fps=60, on_frame=on_frame)
    assert wait_until(lambda: count[0] >= 5)  # the process and the stream survive
    with pytest.raises(RuntimeError, match="boom 0"):
        cap.stop()
    assert not cap.streaming
    cap.stop()  # reported once
    assert_still_works(cap)


def test_S31_callbacks_kept_alive_without_references(cap):
    # The only reference to the callable is inside the capturer.
    count = [0]

    def make():
        return lambda f: count.__setitem__(0, count[0] + 1)

    cap.start(fourcc="YUYV", width=160, height=120, fps=120, on_frame=make())
    for _ in range(3):
        gc.collect()
    assert wait_until(lambda: count[0] >= 20)
    cap.stop()


# ---------------------------------------------------------------------------
# S31: bad input gives errors, never crashes; the library keeps working
# ---------------------------------------------------------------------------

def test_S31_unknown_device_id(manager, synth_id):
    with pytest.raises(camcore.NoDeviceError) as ei:
        manager.open("no-such-camera")
    assert ei.value.status == camcore.E_NO_DEVICE
    assert ei.value.message.startswith("Manager.open('no-such-camera'): no camera"), ei.value.message
    assert ei.value.detail != ""
    with manager.open(synth_id) as c:
        assert_still_works(c)


@pytest.mark.parametrize("kwargs", [
    dict(width=0), dict(height=0), dict(buffer_count=1), dict(buffer_count=33),
])
def test_S31_invalid_start_arguments(cap, kwargs):
    args = dict(fourcc="YUYV", width=320, height=240, fps=30)
    args.update(kwargs)
    with pytest.raises(camcore.InvalidArgError) as ei:
        cap.start(**args)
    assert ei.value.status == camcore.E_INVALID_ARG
    assert str(ei.value).startswith("Capturer.start(): "), str(ei.value)
    assert isinstance(ei.value, ValueError)
    assert not cap.streaming
    assert_still_works(cap)


def test_S31_negative_sizes_rejected_in_python(cap):
    with pytest.raises(camcore.InvalidArgError):
        cap.start(fourcc="YUYV", width=-640, height=480)
    with pytest.raises(camcore.InvalidArgError):
        cap.start(fourcc="YUYV", fps=-30)
    assert not cap.streaming
    assert_still_works(cap)


def test_S31_unsupported_pixel_format(cap):
    with pytest.raises(camcore.NotSupportedError):
        cap.start(fourcc="MJPG", width=320, height=240)
    assert not cap.streaming
    assert_still_works(cap)


def test_S31_start_twice_is_state_error(cap):
    count = [0]
    cap.start(fourcc="YUYV", width=320, height=240, fps=60,
              on_frame=lambda f: count.__setitem__(0, count[0] + 1))
    try:
        with pytest.raises(camcore.StateError) as ei:
            cap.start(fourcc="YUYV", width=320, height=240, fps=60, on_frame=lambda f: None)
        assert ei.value.status == camcore.E_STATE
        assert cap.streaming
        n = count[0]
        assert wait_until(lambda: count[0] >= n + 3)  # the first stream's callback goes on
    finally:
        cap.stop()
    assert_still_works(cap)


def test_S31_format_before_start_is_state_error(cap):
    with pytest.raises(camcore.StateError):
        cap.format
    assert cap.stats == camcore.CaptureStats(0, 0, 0)
    assert_still_works(cap)


def test_S28_fd_not_supported_on_synthetic(cap):
    with pytest.raises(camcore.NotSupportedError):
        cap.fd
    assert_still_works(cap)


def test_S31_close_twice_and_use_after_close(manager, synth_id):
    c = manager.open(synth_id)
    c.start(fourcc="YUYV", width=160, height=120, fps=60)  # close while streaming
    c.close()
    c.close()  # twice is OK
    assert c.closed
    for use in (lambda: c.start(), c.stop, lambda: c.format, lambda: c.stats,
                lambda: c.streaming, lambda: c.fd, lambda: c.device_id,
                lambda: c.capture(1)):
        with pytest.raises(camcore.StateError):
            use()
    with manager.open(synth_id) as again:  # the device is free again
        assert_still_works(again)


def test_S31_manager_close_twice_and_use_after_close(synth_id):
    m = camcore.Manager(synthetic=True)
    c = m.open(m.devices()[-1].id)
    m.close()
    m.close()
    with pytest.raises(camcore.StateError):
        m.devices()
    with pytest.raises(camcore.StateError):
        m.open(synth_id)
    # Closing the manager closed what it made (camcore_manager_free).
    assert c.closed
    with pytest.raises(camcore.StateError):
        c.capture(1)
    c.close()
    with camcore.Manager(synthetic=True) as m2, m2.open(synth_id) as c2:
        assert_still_works(c2)


def test_S31_capture_timeout_is_an_error(cap):
    with pytest.raises(camcore.CamcoreTimeoutError):
        cap.capture(5, fourcc="YUYV", width=160, height=120, fps=1, timeout=0.5)
    assert not cap.streaming
    assert_still_works(cap)


EXIT_WHILE_STREAMING = """
import camcore
m = camcore.Manager(synthetic=True)
c = m.open(m.devices()[-1].id)
c.start(fourcc='YUYV', width=320, height=240, fps=120, on_frame=lambda f: f.array.sum())
import time; time.sleep(0.2)
del c
print('bye')
"""


def test_S31_exit_while_streaming_is_clean():
    r = run_python(EXIT_WHILE_STREAMING, timeout=30)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "bye"


# ---------------------------------------------------------------------------
# Finding the library (the camcore package)
# ---------------------------------------------------------------------------

def test_library_found_through_pkg_config():
    from conftest import STAGE_LIB
    if not (STAGE_LIB / "pkgconfig" / "camcore.pc").exists():
        pytest.skip("no staged build/prefix")
    r = run_python("import camcore; print(camcore.library_path)",
                   env_remove=["CAMCORE_LIBRARY", "LD_LIBRARY_PATH"],
                   env_extra={"PKG_CONFIG_PATH": str(STAGE_LIB / "pkgconfig")})
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(STAGE_LIB / "libcamcore.so.0")


def test_bad_CAMCORE_LIBRARY_fails_import_clearly():
    r = run_python("import camcore", env_extra={"CAMCORE_LIBRARY": "/nonexistent/libcamcore.so"})
    assert r.returncode != 0
    assert "ImportError" in r.stderr and "CAMCORE_LIBRARY" in r.stderr


def test_S40_devices_hidden_lists_the_cameras_first_and_checks_its_argument():
    with camcore.Manager(synthetic=True) as m:
        cams = m.devices()
        everything = m.devices(hidden=True)
        assert everything[:len(cams)] == cams
        assert all(d.hidden and d.unavailable_reason for d in everything[len(cams):]), everything
        assert not any(d.hidden for d in cams)
        with pytest.raises(camcore.InvalidArgTypeError):
            m.devices(hidden="yes")
        assert m.devices() == cams                     # still usable


def test_S33_backends_are_named_sets():
    for b in ("v4l2,libcamera", ("v4l2", "libcamera"), ["libcamera", "v4l2", "pipewire"], "both"):
        with camcore.Manager(synthetic=True, backend=b) as m:
            assert [d.id for d in m.devices()][-1] == "synthetic:0", b
    for bad in ("v4l2,gstreamer", "v4l2,v4l2", "v4l2, libcamera", ("v4l2", 3), 7, "gstreamer"):
        with pytest.raises(camcore.InvalidArgError):
            camcore.Manager(backend=bad)
