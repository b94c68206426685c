# SPDX-License-Identifier: MIT
"""S1, S5, S22 on multi-planar vivid (multiplanar=2 for both instances).

In multi-planar mode vivid puts YUYV's image 128 bytes into the buffer
(vivid-core.h PLANE0_DATA_OFFSET, only for vivid_formats[0] = YUYV): the
plane's data_offset is 128, bytesused is 128 + 1280*480, and the first 128
bytes are filled with 0x80 (vivid-kthread-cap.c vivid_fillbuff). A library
that ignores data_offset shows a 64-pixel shift and a too-long plane.
"""
from __future__ import annotations

import frames as fr
import test_formats
import v4l2probe as v4l

PLANE0_DATA_OFFSET = 128


def test_S1_multiplanar_devices_flagged(vivid_mplane, camcore):
    with camcore.Manager() as m:
        devices = m.devices()
    assert [d.node for d in devices] == v4l.capture_nodes()
    assert len(devices) == 2
    for d in devices:
        caps = v4l.querycap(d.node)
        assert caps.device_caps & v4l.V4L2_CAP_VIDEO_CAPTURE_MPLANE
        assert d.device_caps == caps.device_caps, (
            f"{d.node}: camcore device_caps {d.device_caps:#010x}, the driver's QUERYCAP "
            f"{caps.device_caps:#010x} (VIDEO_CAPTURE_MPLANE {v4l.V4L2_CAP_VIDEO_CAPTURE_MPLANE:#x})")
        assert d.multiplanar, f"{d.node} not flagged multiplanar"
        assert d.flags & 0x1  # CAMCORE_DEVICE_MULTIPLANAR


def test_S5_formats_match_enum_fmt_multiplanar(vivid_mplane, camcore):
    with camcore.Manager() as m:
        devices = m.devices()
    for d in devices:
        assert test_formats.check_formats_match_driver(camcore, d) >= 6 * 20


def test_S22_capture_640x480_yuyv_multiplanar_data_offset(vivid_mplane, camcore):
    with camcore.Manager() as m:
        dev = m.devices()[0]
        with m.open(dev.id) as cap:
            run = fr.collect(cap, dev.node, 30, "YUYV", 640, 480, fps=30)
    fr.check_run(run, 30, "YUYV", 640, 480)
    # The driver's sizeimage counts the data_offset: this is the vivid set-up we expect.
    assert run.driver.sizes[0] == 1280 * 480 + PLANE0_DATA_OFFSET, run.driver
    fmt = run.fmt
    assert fmt.plane_count == 1 and fmt.strides[0] == 1280
    problems = []
    first = run.frames[0].planes[0]
    if (first[:PLANE0_DATA_OFFSET] == 0x80).all():
        problems.append("plane 0 starts with vivid's 128 bytes of 0x80 padding: the image "
                        "does not start at data_offset")
    for f in run.frames:
        assert f.strides[0] == 1280
        assert f.planes[0].size == f.lengths[0]
        # bytesused includes data_offset; the plane holds only the image.
        if f.lengths[0] != 1280 * 480:
            problems.append(f"seq {f.sequence}: plane length {f.lengths[0]}, want {1280 * 480} "
                            f"(bytesused {1280 * 480 + PLANE0_DATA_OFFSET} - data_offset "
                            f"{PLANE0_DATA_OFFSET})")
            break
    for f in (run.frames[0], run.frames[-1]):
        try:
            fr.check_yuyv_pixels(f)
        except AssertionError as e:
            problems.append(f"seq {f.sequence} pixels: {str(e).splitlines()[0]}")
    assert not problems, "multi-planar data_offset not honoured:\n  " + "\n  ".join(problems)


def test_S22_capture_nv12_multiplanar(vivid_mplane, camcore):
    """NV12 on the multi-planar API (one buffer, data_offset 0): planes split."""
    with camcore.Manager() as m:
        dev = m.devices()[0]
        with m.open(dev.id) as cap:
            run = fr.collect(cap, dev.node, 5, "NV12", 640, 480, fps=30)
    fr.check_run(run, 5, "NV12", 640, 480)
    f = run.frames[-1]
    assert f.plane_count == 2
    assert f.lengths == [f.strides[0] * 480, f.strides[1] * 240]
    fr.check_colorbar_luma(fr.rows(f.planes[0], f.strides[0], 480, 640), "NV12 mplane Y plane")
