# SPDX-License-Identifier: MIT
"""S22 (and S6) on single-planar vivid webcams: real frames through on_frame."""
from __future__ import annotations

from fractions import Fraction

import pytest

import frames as fr
import v4l2probe as v4l


def first_device(m):
    devices = m.devices()
    assert devices and devices[0].driver == "vivid", devices
    return devices[0]


def test_S22_capture_640x480_yuyv(vivid_webcam, camcore):
    with camcore.Manager() as m:
        dev = first_device(m)
        assert not dev.multiplanar
        with m.open(dev.id) as cap:
            run = fr.collect(cap, dev.node, 30, "YUYV", 640, 480, fps=30)
    fr.check_run(run, 30, "YUYV", 640, 480)
    fmt = run.fmt
    assert fmt.plane_count == 1
    assert fmt.strides[0] >= 1280
    # vivid offers 640x480 at up to 25 fps (webcam_intervals): 30 is rounded down.
    assert fmt.fps == Fraction(25)
    for f in run.frames:
        assert f.plane_count == 1
        assert f.strides[0] == fmt.strides[0] >= 1280
        assert f.lengths[0] == f.strides[0] * 480
        assert f.planes[0].size == f.lengths[0]
    fr.check_yuyv_pixels(run.frames[0])
    fr.check_yuyv_pixels(run.frames[-1])


@pytest.mark.parametrize("fourcc", ["YU12", "NV12"])
def test_S22_capture_planar_formats_split_into_planes(vivid_webcam, camcore, fourcc):
    """I420 and NV12 come from vivid in one buffer; camcore splits the planes."""
    with camcore.Manager() as m:
        dev = first_device(m)
        with m.open(dev.id) as cap:
            run = fr.collect(cap, dev.node, 5, fourcc, 640, 480, fps=30)
    fr.check_run(run, 5, fourcc, 640, 480)
    f = run.frames[-1]
    if fourcc == "YU12":
        assert f.plane_count == 3
        assert f.strides[0] >= 640 and f.strides[1] == f.strides[2] >= 320
        assert f.lengths == [f.strides[0] * 480, f.strides[1] * 240, f.strides[2] * 240]
    else:
        assert f.plane_count == 2
        assert f.strides[0] >= 640 and f.strides[1] >= 640
        assert f.lengths == [f.strides[0] * 480, f.strides[1] * 240]
    y = fr.rows(f.planes[0], f.strides[0], 480, 640)
    fr.check_colorbar_luma(y, fourcc + " Y plane")
    # The white bar carries no colour: chroma there is neutral in every chroma plane.
    cx = v4l.bar_centres(640)[0] // 2
    for p in range(1, f.plane_count):
        c = fr.rows(f.planes[p], f.strides[p], 240, f.strides[p])
        got = int(c[0, cx * (2 if fourcc == "NV12" else 1)])
        assert abs(got - v4l.NEUTRAL_CHROMA) <= 4, f"plane {p}: {got}"


def test_S22_capture_320x180_at_60fps(vivid_webcam, camcore):
    """Another size and the highest rate: the driver applies what it offers."""
    with camcore.Manager() as m:
        dev = first_device(m)
        with m.open(dev.id) as cap:
            run = fr.collect(cap, dev.node, 10, "YUYV", 320, 180, fps=60)
    fr.check_run(run, 10, "YUYV", 320, 180)
    assert run.fmt.fps == Fraction(60)
    f = run.frames[-1]
    assert f.lengths[0] == f.strides[0] * 180 and f.strides[0] >= 640
    fr.check_yuyv_pixels(f)
