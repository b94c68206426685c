# SPDX-License-Identifier: MIT
"""S38 output size on the synthetic camera, through the camcore package: frames come at
the asked size (width, height, strides, plane lengths, numpy shape) by
callback, by pull and through a session; bad sizes raise InvalidArgError and
the capturer still captures afterwards. (The synthetic camera offers YUYV,
I420 and NV12, no MJPEG: the DCT-scale path is tested in Swift.)"""
from __future__ import annotations

import threading

import numpy as np

import pytest

import camcore
from conftest import wait_until


def test_S38_callbacks_deliver_the_output_size(cap):
    seen = []
    lock = threading.Lock()

    def on_frame(f):
        with lock:
            seen.append((f.fourcc, f.width, f.height, f.strides, f.lengths, f.array.shape, f.sequence))

    cap.start(fourcc="YUYV", width=640, height=480, fps=60, output="I420", output_size=(320, 240),
              on_frame=on_frame)
    try:
        assert wait_until(lambda: len(seen) >= 5, timeout=5)
        fmt = cap.format
    finally:
        cap.stop()
    for fourcc, w, h, strides, lengths, shape, _ in seen:
        assert (fourcc, w, h) == ("YU12", 320, 240)
        assert strides == [320, 160, 160]
        assert lengths == [320 * 240, 160 * 120, 160 * 120]
    seqs = [s[-1] for s in seen]
    assert all(b > a for a, b in zip(seqs, seqs[1:])), seqs
    assert (fmt.fourcc, fmt.source_fourcc, fmt.width, fmt.height) == ("YU12", "YUYV", 320, 240)
    assert fmt.strides == [320, 160, 160] and fmt.frame_bytes == 320 * 240 * 3 // 2


def test_S38_pull_and_capture_deliver_the_output_size(cap):
    cap.start_pull(fourcc="NV12", width=640, height=480, fps=60, output="NV12", output_size=(200, 150))
    try:
        last = None
        for _ in range(4):
            with cap.acquire(timeout=3) as f:
                assert (f.fourcc, f.width, f.height) == ("NV12", 200, 150)
                assert f.strides == [200, 200] and f.lengths == [200 * 150, 200 * 75]
                assert last is None or f.sequence > last
                last = f.sequence
    finally:
        cap.stop()
    frames = cap.capture(3, fourcc="YUYV", width=640, height=480, fps=60, output="RGB24", output_size=(101, 77))
    assert [(f.fourcc, f.width, f.height) for f in frames] == [("RGB3", 101, 77)] * 3
    assert frames[0].array.shape[:2] == (77, 101)


@pytest.mark.parametrize("output, size, why", [
    (None, (320, 240), "needs an output format"),
    ("I420", (320, 0), "give both sides"),
    ("I420", (321, 240), "even"),
    ("NV12", (320, 239), "even"),
    ("YUYV", (321, 240), "even"),
    ("I420", (20000, 240), "outside"),
    ("I420", (2560, 1920), "4 times"),
])
def test_S38_bad_output_sizes_raise_and_capture_goes_on(cap, output, size, why):
    with pytest.raises(camcore.InvalidArgError) as e:
        cap.start(fourcc="YUYV", width=320, height=240, fps=60, output=output, output_size=size)
    assert why in str(e.value), str(e.value)
    assert not cap.streaming
    frames = cap.capture(2, fourcc="YUYV", width=320, height=240, fps=60, output="I420", output_size=(160, 120))
    assert [(f.width, f.height) for f in frames] == [(160, 120)] * 2


def test_S38_output_size_argument_is_checked_in_python(cap):
    with pytest.raises(camcore.InvalidArgError):
        cap.start(output="I420", output_size=320)
    with pytest.raises(camcore.InvalidArgError):
        cap.start(output="I420", output_size=(-2, 240))


def test_S38_session_previews_get_the_output_size(manager, synth_id):
    with pytest.raises(camcore.InvalidArgError):
        manager.session(synth_id, width=640, height=360, max_fps=60, output_size=(320, 180))
    with manager.session(synth_id, width=640, height=360, max_fps=60, output="I420",
                         output_size=(320, 180)) as s:
        pid = s.add_preview_pull(2)
        last = None
        for _ in range(3):
            with s.acquire_preview(pid, timeout=3) as f:
                assert (f.fourcc, f.width, f.height) == ("YU12", 320, 180)
                assert f.strides == [320, 160, 160]
                assert last is None or f.sequence > last
                last = f.sequence
        s.remove_preview(pid)


def test_S38_frames_iterator_takes_an_output_size(cap):
    got = [(f.fourcc, f.width, f.height, f.strides[0], f.sequence)
           for f in cap.frames(4, fourcc="YUYV", width=640, height=480, fps=60, output="I420",
                               output_size=(320, 180))]
    assert [g[:4] for g in got] == [("YU12", 320, 180, 320)] * 4, got
    assert all(b[4] > a[4] for a, b in zip(got, got[1:])), got


@pytest.mark.parametrize("bad", [{320: 0, 240: 0}, (True, 2), (640,), (640, 360, 1), "640x360"])
def test_S38_output_size_takes_only_a_pair_of_integers(cap, bad):
    with pytest.raises(camcore.InvalidArgError):
        cap.start(fourcc="YUYV", width=640, height=480, fps=60, output="I420", output_size=bad,
                  on_frame=lambda f: None)
    assert not cap.streaming
    got = [(f.width, f.height) for f in cap.frames(2, fps=60, output="I420", output_size=(320, 240))]
    assert got == [(320, 240)] * 2


@pytest.mark.parametrize("output", ["RGB24", "I420", "NV12", "RGBA"])
def test_S45_output_rotation_turns_the_picture(manager, synth_id, output):
    """The synthetic camera's bars run left to right (white first); turned
    90 degrees clockwise they run top to bottom (white on top), 270 bottom
    to top, 180 right to left. Compared on each picture's bar profile (the
    median across the bars, so the moving square does not count)."""
    import threading
    frames = {}
    with manager.open(synth_id) as cap:
        for deg in (0, 90, 180, 270):
            got, ev = [], threading.Event()

            def on_frame(f, got=got, ev=ev):
                if not got:
                    y = f.plane(0)    # luma (or the packed picture), as bytes
                    got.append((f.width, f.height, f.fourcc, np.array(y, dtype=np.uint8).reshape(-1), f.strides[0]))
                    ev.set()
            cap.start("YU12", 320, 240, on_frame=on_frame, output=output, rotation=deg)
            assert ev.wait(10), deg
            cap.stop()
            fmt = cap.format
            w, h, fcc, data, stride = got[0]
            assert (w, h) == ((320, 240) if deg in (0, 180) else (240, 320)), (deg, w, h)
            assert (fmt.width, fmt.height) == (w, h) and fmt.strides[0] == stride, fmt
            bpp = {"RGB24": 3, "RGBA": 4}.get(output, 1)
            frames[deg] = data[:stride * h].reshape(h, stride)[:, :w * bpp].reshape(h, w, bpp).astype(int)
    along_x = np.median(frames[0], axis=0)           # (320, bpp): the bars, left to right
    for deg, prof, want in ((90, np.median(frames[90], axis=1), along_x),
                            (180, np.median(frames[180], axis=0), along_x[::-1]),
                            (270, np.median(frames[270], axis=1), along_x[::-1])):
        diff = np.abs(prof - want).mean()
        assert diff < 3, f"{output} {deg}: bar profile differs by {diff:.1f} on average"
    with pytest.raises(camcore.InvalidArgError):
        with manager.open(synth_id) as cap:
            cap.start("YU12", 320, 240, on_frame=lambda f: None, output=output, rotation=45)
    with pytest.raises(camcore.InvalidArgError, match="YUYV cannot be turned"):
        with manager.open(synth_id) as cap:
            cap.start("YU12", 320, 240, on_frame=lambda f: None, output="YUYV", rotation=90)
    with pytest.raises(camcore.InvalidArgError):
        with manager.open(synth_id) as cap:
            cap.start("YU12", 320, 240, on_frame=lambda f: None, rotation=90)   # no output format
