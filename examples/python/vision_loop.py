#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""vision_loop.py — a computer-vision loop on camcore: numpy RGB frames, one by one.

Negotiates "about WxH at 15–30 fps" on the first camera (or --device ID,
or camcore's synthetic camera when there is none), has camcore deliver
RGB24 frames (it converts from the camera's YUYV/MJPEG/NV12 on its capture
thread), and pulls them with ``cap.frames()``: each frame is a zero-copy
(height, width, 3) uint8 numpy array, valid until the next iteration. The
"vision" here is small and real: mean brightness, the bright pixels'
centroid, and motion as the mean absolute difference to the previous frame
(kept as a copy: a view would pin the previous buffer).

    python3 vision_loop.py [--frames N] [--device ID] [--size WxH]

Prints one line per frame and a summary; exits 0 when all N frames came.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from typing import List, Optional

import numpy as np

try:
    import camcore
except ModuleNotFoundError:  # run from a checkout, not installed: the package in the tree
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                    "bindings", "python"))
    import camcore


def pick_device(m: camcore.Manager, wanted: Optional[str]) -> camcore.DeviceInfo:
    devices = m.devices()
    if wanted:
        for d in devices:
            if wanted in (d.id, d.node):
                return d
        raise SystemExit(f"no camera {wanted!r}; cameras: {', '.join(d.id for d in devices)}")
    real = [d for d in devices if not d.synthetic and not d.unavailable_reason and d.type != "infrared"]
    if real:
        return real[0]
    print("No camera found: using camcore's synthetic camera (moving test pattern).")
    return next(d for d in devices if d.synthetic)


def analyse(rgb: np.ndarray, prev: Optional[np.ndarray]) -> dict:
    """Brightness (0..255), centroid of the brightest tenth of the pixels, motion."""
    luma = rgb @ np.array([0.299, 0.587, 0.114], dtype=np.float32)  # (h, w) float32
    bright = luma >= np.percentile(luma, 90)
    ys, xs = np.nonzero(bright)
    motion = float(np.abs(luma - prev).mean()) if prev is not None else 0.0
    return {"brightness": float(luma.mean()), "centroid": (float(xs.mean()), float(ys.mean())),
            "motion": motion, "luma": luma}


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(description="A numpy vision loop on camcore frames.")
    p.add_argument("--frames", type=int, default=60)
    p.add_argument("--device", help="camera id or /dev/videoN (default: the first camera)")
    p.add_argument("--size", default="640x480", help="wanted size WxH (negotiated)")
    a = p.parse_args(argv)
    w, h = (int(v) for v in a.size.lower().split("x"))

    with camcore.Manager(synthetic=True) as m:
        dev = pick_device(m, a.device)
        # The best setting the camera has near w x h at 15-30 fps, delivered as RGB24.
        setting = m.negotiate(dev.id, w, h, min_fps=15, max_fps=30, output="RGB24")
        print(f"{dev.name}: {setting.fourcc} {setting.width}x{setting.height} at "
              f"{setting.fps} fps, delivered as RGB24"
              + (f" (adjusted: {', '.join(setting.adjustments)})" if setting.adjustments else ""))
        prev_luma: Optional[np.ndarray] = None
        motions: List[float] = []
        t0 = time.monotonic()
        n = 0
        with m.open(dev.id) as cap:
            for frame in cap.frames(a.frames, setting):
                rgb = frame.array                    # (h, w, 3) uint8, zero-copy
                assert rgb.shape == (frame.height, frame.width, 3), rgb.shape
                r = analyse(rgb, prev_luma)
                prev_luma = r["luma"]                # a new array, not a view of the frame
                motions.append(r["motion"])
                cx, cy = r["centroid"]
                print(f"frame {frame.sequence:5d}  brightness {r['brightness']:6.1f}  "
                      f"bright spot ({cx:6.1f}, {cy:6.1f})  motion {r['motion']:5.2f}")
                n += 1
        dt = time.monotonic() - t0
    moving = sum(1 for v in motions[1:] if v > 0.0)
    print(f"{n} RGB frames in {dt:.2f} s ({n / dt if dt else 0:.1f} fps); "
          f"motion seen in {moving} of {max(n - 1, 0)} frame pairs")
    return 0 if n == a.frames else 1


if __name__ == "__main__":
    sys.exit(main())
