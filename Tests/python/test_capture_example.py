# SPDX-License-Identifier: MIT
"""Tests of examples/python/capture.py: its YUV->RGB conversion and PNG writer, and
the whole main job end-to-end in a subprocess with the synthetic camera."""
import glob
import struct
import zlib

import numpy as np
import pytest

import capture
from conftest import EXAMPLES, run_python

WHITE = (235, 128, 128)  # Y, Cb, Cr (BT.601 limited range)
RED = (81, 90, 240)
PAD = 0xEE  # row padding bytes, must never show up in the picture


def expected_rgb(h, w):
    """Left half white, right half red."""
    rgb = np.zeros((h, w, 3), dtype=np.int32)
    rgb[:, : w // 2] = (255, 255, 255)
    rgb[:, w // 2:] = (255, 0, 0)
    return rgb


def padded(rows, stride):
    """A 1-D plane of the given 2-D uint8 rows, each padded to `stride` bytes."""
    rows = np.asarray(rows, dtype=np.uint8)
    out = np.full((rows.shape[0], stride), PAD, dtype=np.uint8)
    out[:, : rows.shape[1]] = rows
    return out.reshape(-1)


def yuv_halves(h, w):
    y = np.where(np.arange(w) < w // 2, WHITE[0], RED[0])[None, :].repeat(h, 0)
    cw, ch = w // 2, h // 2
    u = np.where(np.arange(cw) < cw // 2, WHITE[1], RED[1])[None, :].repeat(ch, 0)
    v = np.where(np.arange(cw) < cw // 2, WHITE[2], RED[2])[None, :].repeat(ch, 0)
    return y, u, v


def test_S22_yuyv_to_rgb_honours_stride():
    h, w = 2, 8
    pairs = [WHITE[0], WHITE[1], WHITE[0], WHITE[2]] * (w // 4) + \
            [RED[0], RED[1], RED[0], RED[2]] * (w // 4)
    plane = padded([pairs] * h, stride=w * 2 + 6)
    rgb = capture.to_rgb("YUYV", w, h, [plane], [w * 2 + 6])
    assert rgb.shape == (h, w, 3) and rgb.dtype == np.uint8
    assert np.abs(rgb.astype(int) - expected_rgb(h, w)).max() <= 2


def test_S22_i420_to_rgb_honours_strides():
    h, w = 4, 8
    y, u, v = yuv_halves(h, w)
    planes = [padded(y, w + 4), padded(u, w // 2 + 3), padded(v, w // 2 + 3)]
    rgb = capture.to_rgb("YU12", w, h, planes, [w + 4, w // 2 + 3, w // 2 + 3])
    assert np.abs(rgb.astype(int) - expected_rgb(h, w)).max() <= 2


def test_S22_nv12_to_rgb_honours_strides():
    h, w = 4, 8
    y, u, v = yuv_halves(h, w)
    uv = np.stack([u, v], axis=2).reshape(h // 2, w)
    planes = [padded(y, w + 2), padded(uv, w + 2)]
    rgb = capture.to_rgb("NV12", w, h, planes, [w + 2, w + 2])
    assert np.abs(rgb.astype(int) - expected_rgb(h, w)).max() <= 2


def test_yuv_black_and_white_levels():
    y = np.array([[16, 235]], dtype=np.uint8)
    c = np.full((1, 2), 128, dtype=np.uint8)
    rgb = capture.yuv_to_rgb(y, c, c)
    assert rgb.tolist() == [[[0, 0, 0], [255, 255, 255]]]


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
    f = cap.capture(1, fourcc=fmt, width=640, height=480, fps=30)[0]
    rgb = capture.to_rgb(f.fourcc, f.width, f.height, f.planes, f.strides).astype(int)
    bottom = rgb[479]
    for want in BARS_RGB:
        close = np.abs(bottom - np.array(want)).max(axis=1) <= 3
        assert 76 <= close.sum() <= 84, (want, close.sum())
    if f.sequence == 0:
        centres = [bottom[40 + 80 * i] for i in range(8)]
        for got, want in zip(centres, BARS_RGB):
            assert np.abs(got - np.array(want)).max() <= 3, (centres, BARS_RGB)
