# SPDX-License-Identifier: MIT
"""Capture helpers for the kernel tests: collect frames through a real
on_frame callback, then check them against what the driver says."""
from __future__ import annotations

import dataclasses
import threading
import time
from typing import List, Optional

import numpy as np

import v4l2probe as v4l


@dataclasses.dataclass
class Run:
    frames: list                 # CapturedFrame copies, capture order
    arrivals: List[int]          # time.monotonic_ns() when each callback ran
    fmt: object                  # cap.format read while streaming
    stats: object                # cap.stats read while streaming
    driver: v4l.DriverFormat     # VIDIOC_G_FMT/G_PARM from another fd while streaming
    late_callbacks: int          # callbacks that ran after stop() returned
    errors: list
    started_ns: int


def collect(cap, node: str, n: int, fourcc: str, width: int, height: int, fps=30,
            timeout: float = 90.0) -> Run:
    frames: list = []
    arrivals: List[int] = []
    errors: list = []
    done = threading.Event()
    stopped = threading.Event()
    late = [0]

    def on_frame(frame) -> None:
        if stopped.is_set():
            late[0] += 1
            return
        arrivals.append(time.monotonic_ns())
        if len(frames) < n:
            frames.append(frame.copy())
        if len(frames) >= n:
            done.set()

    def on_error(err) -> None:
        errors.append(err)
        done.set()

    started = time.monotonic_ns()
    cap.start(fourcc=fourcc, width=width, height=height, fps=fps,
              on_frame=on_frame, on_error=on_error)
    try:
        assert cap.streaming
        fmt = cap.format
        driver = v4l.driver_format(node)
        done.wait(timeout)
        stats = cap.stats
    finally:
        cap.stop()
        stopped.set()
    time.sleep(0.5)  # a callback still running now would be a late one
    assert not cap.streaming
    return Run(frames[:n], arrivals[:n], fmt, stats, driver, late[0], errors, started)


def check_run(run: Run, n: int, fourcc: str, width: int, height: int) -> None:
    """S22 on a run of frames: fields, sequence, timestamps; S6: format as applied."""
    assert not run.errors, f"streaming ended with an error: {run.errors}"
    assert len(run.frames) == n, f"got {len(run.frames)} of {n} frames"
    assert run.late_callbacks == 0, "on_frame ran after stop() returned"

    fmt, drv = run.fmt, run.driver
    assert (fmt.fourcc, fmt.width, fmt.height) == (fourcc, width, height)
    assert (drv.fourcc, drv.width, drv.height) == (v4l.fourcc_from_ctl(fourcc), width, height), drv
    assert fmt.strides[0] == drv.strides[0], (fmt, drv)
    assert fmt.fps == drv.fps, f"applied rate {fmt.fps}, driver {drv.fps}"
    assert fmt.buffer_count >= 2
    assert run.stats.frames_delivered >= n
    assert run.stats.frames_corrupted == 0

    seqs = [f.sequence for f in run.frames]
    stamps = [f.timestamp_ns for f in run.frames]
    assert all(b > a for a, b in zip(seqs, seqs[1:])), f"sequence not strictly rising: {seqs}"
    assert all(b > a for a, b in zip(stamps, stamps[1:])), "timestamps not strictly rising"
    for f, arrived in zip(run.frames, run.arrivals):
        assert (f.fourcc, f.width, f.height) == (fourcc, width, height)
        assert not f.corrupted and f.flags & 1 == 0
        # CLOCK_MONOTONIC: vivid stamps the end of exposure, a little before or
        # after the buffer is handed over; an emulated guest adds delay.
        assert abs(arrived - f.timestamp_ns) < 2_000_000_000, (arrived, f.timestamp_ns)
        assert f.timestamp_ns > run.started_ns - 1_000_000_000
        assert f.strides[: fmt.plane_count] == fmt.strides, (f.strides, fmt.strides)
        assert f.plane_count == fmt.plane_count
    # Sequence gaps match dropped_before.
    for a, b in zip(run.frames, run.frames[1:]):
        assert b.dropped_before == b.sequence - a.sequence - 1, (a.sequence, b.sequence, b.dropped_before)


def rows(plane: np.ndarray, stride: int, height: int, row_bytes: int) -> np.ndarray:
    assert plane.size >= (height - 1) * stride + row_bytes
    return np.lib.stride_tricks.as_strided(plane, shape=(height, row_bytes), strides=(stride, 1))


def check_colorbar_luma(y_rows: np.ndarray, what: str, luma_step: int = 1) -> None:
    """vivid's 75% colour bars in the luma samples of the first and last row.

    y_rows: (height, row_bytes) bytes; luma of pixel x is at x * luma_step.
    """
    width = y_rows.shape[1] // luma_step
    for r in (0, y_rows.shape[0] - 1):
        got = [int(y_rows[r, x * luma_step]) for x in v4l.bar_centres(width)]
        ok = all(abs(g - w) <= 4 for g, w in zip(got, v4l.COLORBAR_LUMA))
        assert ok, f"{what}: row {r} luma at bar centres {got}, vivid draws {v4l.COLORBAR_LUMA}"


def check_yuyv_pixels(frame) -> None:
    stride = frame.strides[0]
    img = rows(frame.planes[0], stride, frame.height, frame.width * 2)
    check_colorbar_luma(img, "YUYV", luma_step=2)
    # White bar (first) and black bar (last): neutral chroma.
    for x in (v4l.bar_centres(frame.width)[0], v4l.bar_centres(frame.width)[7]):
        x &= ~1
        u, v = int(img[0, 2 * x + 1]), int(img[0, 2 * x + 3])
        assert abs(u - v4l.NEUTRAL_CHROMA) <= 4 and abs(v - v4l.NEUTRAL_CHROMA) <= 4, (x, u, v)
    # The binding's zero-copy shape agrees with the strided bytes.
    assert frame.array.shape == (frame.height, frame.width, 2)
    assert np.array_equal(frame.array[:, :, 0], img[:, 0::2])
