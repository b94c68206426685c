# SPDX-License-Identifier: MIT
"""S5/S22: camcore's pixel-format table through the ABI (camcore.pixel_format), and
the Python binding's frame shapes and pushed-frame planes that read it."""
import numpy as np
import pytest

import camcore


def test_S22_i420_planes_and_frame_size():
    pf = camcore.pixel_format("I420")
    assert pf.name == "YU12" and pf.fourcc_code == camcore.fourcc("YU12")
    assert pf.description == "Planar YUV 4:2:0"
    assert (pf.plane_count, pf.memory_plane_count, pf.bytes_per_pixel) == (3, 1, 1)
    assert pf.subsampling == (2, 2) and not pf.compressed
    assert [pf.plane_size(640, 480, p) for p in range(3)] == [(640, 480), (320, 240), (320, 240)]
    assert pf.frame_size(640, 480) == 460800
    with pytest.raises(camcore.InvalidArgError):
        pf.plane_size(640, 480, 3)


def test_S22_nv12_yuyv_rgb24():
    nv12 = camcore.pixel_format("NV12")
    assert nv12.plane_count == 2 and nv12.plane_size(640, 480, 1) == (640, 240)
    assert nv12.frame_size(640, 480) == 460800
    yuyv = camcore.pixel_format("YUYV")
    assert yuyv.plane_size(640, 480) == (1280, 480) and yuyv.bytes_per_pixel == 2
    assert yuyv.subsampling == (2, 1)
    rgb = camcore.pixel_format("RGB24")
    assert rgb.name == "RGB3" and rgb.bytes_per_pixel == 3 and rgb.plane_size(640, 480) == (1920, 480)
    assert camcore.pixel_format("YM12").memory_plane_count == 3


def test_S5_mjpeg_big_endian_and_unknown():
    mjpg = camcore.pixel_format("MJPEG")
    assert mjpg.compressed and mjpg.description == "Motion-JPEG" and mjpg.bytes_per_pixel == 0
    with pytest.raises(camcore.NotSupportedError):
        mjpg.plane_size(640, 480)
    with pytest.raises(camcore.NotSupportedError):
        mjpg.frame_size(640, 480)
    be = camcore.pixel_format(camcore.fourcc("Y16") | 0x80000000)
    assert be.name == "Y16 -BE" and be.description == "16-bit Greyscale BE"
    assert camcore.pixel_format("ZZZZ") is None


def test_S22_frame_array_shapes_follow_the_table(cap):
    for code, shape in (("YUYV", (240, 320, 2)), ("YU12", (240, 320)), ("NV12", (240, 320))):
        frames = cap.capture(2, fourcc=code, width=320, height=240, fps=30)
        assert frames, code
        f = frames[-1]
        assert f.array.shape == shape, code
        pf = camcore.pixel_format(code)
        assert sum(l for l in f.lengths) >= pf.frame_size(320, 240)


def test_S21_pushed_planes_use_the_table(manager, synth_id):
    # The plane sizes push_frame builds are the table's: a buffer one byte
    # short of I420's frame size is refused, the exact size is accepted.
    pf = camcore.pixel_format("I420")
    with manager.session(synth_id) as s:
        s.custom_source(True)
        with pytest.raises(camcore.InvalidArgError):
            s.push_frame(np.zeros(pf.frame_size(64, 48) - 1, np.uint8), "I420", 64, 48)
        s.push_frame(np.zeros(pf.frame_size(64, 48), np.uint8), "I420", 64, 48)


def test_S31_bad_arguments_are_camcore_errors():
    # Before: int() took 1.5 (truncated) and "3"; fourcc raised a bare ValueError.
    pf = camcore.pixel_format("I420")
    for bad in (1.5, "640", None):
        with pytest.raises(camcore.InvalidArgTypeError):
            pf.frame_size(bad, 480)
        with pytest.raises(camcore.InvalidArgTypeError):
            pf.plane_size(640, bad)
    with pytest.raises(camcore.InvalidArgError):
        pf.frame_size(-1, 480)
    assert pf.frame_size(np.uint16(640), np.int64(480)) == 460800
    for bad, kind in (("TOOLONG", camcore.InvalidArgValueError), ("", camcore.InvalidArgValueError),
                      ("YÜYV", camcore.InvalidArgValueError), (2**32, camcore.InvalidArgValueError),
                      (-1, camcore.InvalidArgValueError), (1.5, camcore.InvalidArgTypeError),
                      (None, camcore.InvalidArgTypeError), (True, camcore.InvalidArgTypeError)):
        with pytest.raises(kind):
            camcore.pixel_format(bad)
        assert issubclass(kind, camcore.CamcoreError)
    assert camcore.pixel_format(np.uint32(camcore.fourcc("NV12"))).name == "NV12"
