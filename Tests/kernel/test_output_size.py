# SPDX-License-Identifier: MIT
"""S38 with real MJPEG: the v4l2loopback camera of test_mjpeg.py (MJPEG
640x480 only), captured with an output format and an output size. camcore
decodes at TurboJPEG's DCT scale: 320x240 from 640x480 is 1/2 exactly, so a
4:2:0 JPEG's I420 frame is TurboJPEG's own 1/2 YUV decode byte for byte;
200x150 is a 1/2 decode scaled further (close to the picture); 4:2:2 (what
UVC webcams send) decodes and scales too. Frames report the output size."""
from __future__ import annotations

import ctypes
import threading
import time

import numpy as np
import pytest

from test_mjpeg import NODE, W, H, TurboJPEG, camera, known_image, loop_device, loopback, tj  # noqa: F401

TJSAMP_422 = 1
TJSAMP_420 = 2


def decode_i420_at(t: TurboJPEG, jpeg: bytes, w: int, h: int):
    """TurboJPEG's YUV decode at w x h (a DCT scale of a 4:2:0 JPEG)."""
    y = np.zeros((h, w), np.uint8)
    u = np.zeros((h // 2, w // 2), np.uint8)
    v = np.zeros((h // 2, w // 2), np.uint8)
    src = ctypes.create_string_buffer(jpeg, len(jpeg))
    planes = (ctypes.c_void_p * 3)(y.ctypes.data, u.ctypes.data, v.ctypes.data)
    strides = (ctypes.c_int * 3)(w, w // 2, w // 2)
    assert t.lib.tjDecompressToYUVPlanes(t.d, ctypes.addressof(src), len(jpeg), planes, w, strides, h, 0) == 0
    return y, u, v


def capture_scaled(m, camera, jpegs, output, size):
    """Starts camcore on the loopback at `size`, writes the JPEGs one by one,
    returns the copied frames."""
    dev = loop_device(m)
    frames, cv = [], threading.Condition()

    def on_frame(f):
        with cv:
            frames.append(f.copy())
            cv.notify_all()

    with m.open(dev.id) as cap:
        cap.start(fourcc="MJPG", width=W, height=H, fps=30, output=output, output_size=size, on_frame=on_frame)
        fmt = cap.format
        for i, j in enumerate(jpegs):
            camera.write(j)
            with cv:
                assert cv.wait_for(lambda: len(frames) > i, timeout=20), cap.stats
        stats = cap.stats
        cap.stop()
    return frames, fmt, stats


def test_S38_mjpeg_at_an_exact_dct_scale_is_turbojpegs_scaled_decode(camera, camcore, tj):
    images = [known_image(k) for k in (20, 21, 22)]
    jpegs = [tj.compress(img, subsamp=TJSAMP_420) for img in images]
    with camcore.Manager() as m:
        frames, fmt, stats = capture_scaled(m, camera, jpegs, "I420", (320, 240))
    assert (fmt.fourcc, fmt.source_fourcc, fmt.width, fmt.height) == ("YU12", "MJPG", 320, 240)
    assert stats.frames_corrupted == 0 and len(frames) == 3
    seqs = [f.sequence for f in frames]
    assert seqs == sorted(seqs) and len(set(seqs)) == 3
    for f, j in zip(frames, jpegs):
        assert (f.fourcc, f.width, f.height, f.strides) == ("YU12", 320, 240, [320, 160, 160])
        y, u, v = decode_i420_at(tj, j, 320, 240)
        assert bytes(f.planes[0]) == y.tobytes()
        assert bytes(f.planes[1]) == u.tobytes() and bytes(f.planes[2]) == v.tobytes()


@pytest.mark.parametrize("subsamp", [TJSAMP_420, TJSAMP_422])
def test_S38_mjpeg_scaled_past_the_dct_scale_is_the_picture(camera, camcore, tj, subsamp):
    images = [known_image(k) for k in (30, 31)]
    jpegs = [tj.compress(img, subsamp=subsamp) for img in images]
    with camcore.Manager() as m:
        frames, fmt, stats = capture_scaled(m, camera, jpegs, "I420", (200, 150))
    assert (fmt.width, fmt.height, fmt.strides) == (200, 150, [200, 100, 100])
    assert stats.frames_corrupted == 0 and len(frames) == 2
    for f, img in zip(frames, images):
        assert (f.width, f.height, f.lengths) == (200, 150, [200 * 150, 100 * 75, 100 * 75])
        got = f.planes[0].reshape(150, 200).astype(np.float32)
        # The picture's full-range luma, averaged down by area (640/200 = 3.2).
        rgb = img.astype(np.float32)
        luma = 0.299 * rgb[:, :, 0] + 0.587 * rgb[:, :, 1] + 0.114 * rgb[:, :, 2]
        ys = (np.arange(150) * H // 150)[:, None]
        xs = (np.arange(200) * W // 200)[None, :]
        want = np.zeros((150, 200), np.float32)
        for dy in range(3):
            for dx in range(3):
                want += luma[np.minimum(ys + dy, H - 1), np.minimum(xs + dx, W - 1)]
        want /= 9
        err = float(np.mean(np.abs(got - want)))
        assert err < 6, f"mean luma error {err:.2f}"
