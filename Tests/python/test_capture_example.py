# SPDX-License-Identifier: MIT
"""Tests of examples/python/capture.py: the conversion its snapshot asks camcore
for (Frame.convert), its PNG writer, and the whole main job end-to-end in a
subprocess with the synthetic camera."""
import glob
import struct
import zlib

import numpy as np
import pytest

import capture
from conftest import EXAMPLES, run_python


@pytest.mark.parametrize("fmt", ["YUYV", "YU12", "NV12"])
def test_S8_frame_convert_is_the_output_formats_conversion(fmt):
    """Frame.convert("RGB24"), which the example's snapshot uses, gives the same
    bytes as capturing with output="RGB24" (one libyuv conversion), and its
    picture agrees with an independent BT.601 conversion of the source planes,
    strides included."""
    import camcore
    import yuv_oracle
    with camcore.Manager(synthetic=True) as m:
        d = next(d for d in m.devices() if d.synthetic)
        with m.open(d.id) as cap:
            for f in cap.frames(1, fourcc=fmt, width=320, height=240):
                rgb = f.convert("RGB24")
                oracle = yuv_oracle.to_rgb(f.fourcc, f.width, f.height,
                                           [f.plane(i) for i in range(f.plane_count)], f.strides)
            out = cap.capture(1, fourcc=fmt, width=320, height=240, output="RGB24")[0]
    assert (rgb.fourcc, rgb.width, rgb.height, rgb.strides, rgb.array.shape) == \
        ("RGB3", 320, 240, [960], (240, 320, 3))
    # The synthetic picture moves, so the two captures differ in the moving
    # part only: the colour bars (top rows) are the same bytes.
    assert np.array_equal(rgb.array[:60], out.array[:60])
    assert np.abs(rgb.array.astype(int) - oracle.astype(int)).max() <= 3


def test_S8_frame_convert_scales_and_refuses_what_it_cannot():
    import camcore
    with camcore.Manager(synthetic=True) as m:
        d = next(d for d in m.devices() if d.synthetic)
        with m.open(d.id) as cap:
            for f in cap.frames(1, fourcc="YUYV", width=640, height=480):
                small = f.convert("I420", 320, 240)
                with pytest.raises(camcore.InvalidArgError):
                    f.convert("RGB24", 320, 0)       # one side of the size only
                with pytest.raises(camcore.InvalidArgError):
                    f.convert("ZZZZ")
    assert (small.fourcc, small.width, small.height, small.strides) == ("YU12", 320, 240, [320, 160, 160])
    assert [len(p) for p in small.planes] == [320 * 240, 160 * 120, 160 * 120]


@pytest.mark.parametrize("fmt", ["YUYV", "YU12", "NV12"])
def test_S8_captured_frame_converts_as_the_frame_did(fmt):
    """A copy (capture(), Frame.copy()) converts to the same bytes as the frame it
    was copied from, scales, and refuses planes that do not hold its format."""
    import dataclasses

    import camcore
    with camcore.Manager(synthetic=True) as m:
        d = next(d for d in m.devices() if d.synthetic)
        with m.open(d.id) as cap:
            for f in cap.frames(1, fourcc=fmt, width=320, height=240):
                want = f.convert("RGB24")
                kept = f.copy()
            got = kept.convert("RGB24")
            assert (got.fourcc, got.width, got.height, got.sequence) == ("RGB3", 320, 240, kept.sequence)
            assert np.array_equal(got.array, want.array)
            small = cap.capture(1, fourcc=fmt, width=320, height=240)[0].convert("I420", 160, 120)
    assert (small.fourcc, small.width, small.height, [len(p) for p in small.planes]) == \
        ("YU12", 160, 120, [160 * 120, 80 * 60, 80 * 60])
    with pytest.raises(camcore.InvalidArgError) as e:
        dataclasses.replace(kept, width=4000).convert()
    assert "CapturedFrame.convert('RGB24', 0, 0): plane 0:" in str(e.value), str(e.value)
    with pytest.raises(camcore.InvalidArgError):
        dataclasses.replace(kept, planes=[]).convert()
    with pytest.raises(camcore.InvalidArgError):
        kept.convert("ZZZZ")
    assert np.array_equal(kept.convert("RGB24").array, want.array)   # nothing lost on the way


def read_png(data):
    """Checks a PNG's signature, chunk CRCs and IHDR; returns (w, h, rgb array)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, []
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos: pos + 4])
        kind = data[pos + 4: pos + 8]
        body = data[pos + 8: pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length: pos + 12 + length])
        assert crc == zlib.crc32(kind + body) & 0xFFFFFFFF, kind
        chunks.append((kind, body))
        pos += 12 + length
    assert chunks[0][0] == b"IHDR" and chunks[-1] == (b"IEND", b"")
    w, h, depth, colour, comp, filt, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    assert (depth, colour, comp, filt, interlace) == (8, 2, 0, 0, 0)
    raw = zlib.decompress(b"".join(b for k, b in chunks if k == b"IDAT"))
    assert len(raw) == h * (1 + w * 3)
    rows = np.frombuffer(raw, dtype=np.uint8).reshape(h, 1 + w * 3)
    assert (rows[:, 0] == 0).all()  # our writer uses filter 0
    return w, h, rows[:, 1:].reshape(h, w, 3)


def test_png_writer_round_trip():
    rgb = (np.arange(5 * 7 * 3) % 256).astype(np.uint8).reshape(5, 7, 3)
    w, h, back = read_png(capture.png_bytes(rgb))
    assert (w, h) == (7, 5)
    assert np.array_equal(back, rgb)


@pytest.mark.parametrize("fmt,expect", [("YUYV", "YUYV"), ("I420", "YU12"), ("NV12", "NV12")])
def test_main_job_end_to_end(tmp_path, fmt, expect):
    snap = tmp_path / "snap.png"
    r = run_python([str(EXAMPLES / "capture.py"), "--frames", "12", "--size", "320x240",
                    "--fps", "60", "--format", fmt, "--snapshot", str(snap)],
                   env_remove=["CAMCORE_SYNTHETIC_CAMERA"], cwd=str(tmp_path))
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    assert "synthetic" in out
    frame_lines = [l for l in out.splitlines() if l.startswith("frame ")]
    assert len(frame_lines) == 12
    assert all(f"320x240 {expect}" in l for l in frame_lines)
    seqs = [int(l.split("seq=")[1].split()[0]) for l in frame_lines]
    assert seqs[0] == 0 and all(b > a for a, b in zip(seqs, seqs[1:])), seqs
    fps_line = next(l for l in out.splitlines() if l.startswith("Measured:"))
    measured = float(fps_line.split()[1])
    # 60 fps over 11 intervals; one late frame on a loaded machine moves it by a few fps.
    assert 45 < measured < 75
    w, h, rgb = read_png(snap.read_bytes())
    assert (w, h) == (320, 240)
    assert rgb.std() > 0  # a test pattern, not a blank image


def test_main_job_defaults_write_snapshot_png(tmp_path):
    r = run_python([str(EXAMPLES / "capture.py"), "--frames", "5"], cwd=str(tmp_path),
                   env_remove=["CAMCORE_SYNTHETIC_CAMERA"])
    assert r.returncode == 0, r.stdout + r.stderr
    if not glob.glob("/dev/video*"):
        assert "No camera found: using camcore's synthetic camera" in r.stdout
    w, h, _ = read_png((tmp_path / "snapshot.png").read_bytes())
    assert (w, h) == (640, 480)


def test_main_job_unknown_device(tmp_path):
    r = run_python([str(EXAMPLES / "capture.py"), "--device", "no-such-camera"],
                   cwd=str(tmp_path))
    assert r.returncode == 2
    assert "no device with id 'no-such-camera'" in r.stderr
    assert not (tmp_path / "snapshot.png").exists()


BARS_RGB = [(255, 255, 255), (255, 255, 0), (0, 255, 255), (0, 255, 0),
            (255, 0, 255), (255, 0, 0), (0, 0, 255), (0, 0, 0)]


@pytest.mark.parametrize("fmt", ["YUYV", "I420", "NV12"])
def test_S4_first_frame_shows_the_colour_bars(cap, fmt):
    # The synthetic camera shows eight 100% colour bars (white ... black), 80 px wide
    # at 640x480, sliding sideways, and a small white square bouncing from the
    # top-left: in frame 0 the bottom row is bars only, in bar order.
    import yuv_oracle
    f = cap.capture(1, fourcc=fmt, width=640, height=480, fps=30)[0]
    rgb = yuv_oracle.to_rgb(f.fourcc, f.width, f.height, f.planes, f.strides).astype(int)
    bottom = rgb[479]
    for want in BARS_RGB:
        close = np.abs(bottom - np.array(want)).max(axis=1) <= 3
        assert 76 <= close.sum() <= 84, (want, close.sum())
    if f.sequence == 0:
        centres = [bottom[40 + 80 * i] for i in range(8)]
        for got, want in zip(centres, BARS_RGB):
            assert np.abs(got - np.array(want)).max() <= 3, (centres, BARS_RGB)
