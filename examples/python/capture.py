#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""capture.py — the camcore main job in Python.

Lists the cameras, captures N frames from the first camera (or --device ID),
prints each frame's size, FourCC and sequence and the measured frame rate,
and writes one frame as a PNG snapshot. With no camera it uses camcore's
synthetic camera and says so.

    python3 capture.py [--frames N] [--device ID] [--size WxH] [--fps N]
                       [--format FOURCC] [--snapshot FILE]

Needs the camcore package (pip install bindings/python, or run from a
checkout: the package is then taken from ../../bindings/python). The
library is found through CAMCORE_LIBRARY, pkg-config (PKG_CONFIG_PATH) or
the loader path (LD_LIBRARY_PATH); see the camcore package.
"""
from __future__ import annotations

import argparse
import os
import struct
import sys
import threading
import time
import zlib
from fractions import Fraction

import numpy as np

try:
    import camcore
except ModuleNotFoundError:  # run from a checkout, not installed: the package in the tree
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                    "bindings", "python"))
    import camcore

# Formats tried first when --format is not given, in order of preference;
# camcore converts any of them (and most others) to RGB for the snapshot.
PREFERRED = ("YUYV", "YU12", "NV12", "MJPG", "RGB3", "BGR3", "GREY")
FORMAT_ALIASES = {"I420": "YU12", "MJPEG": "MJPG", "RGB24": "RGB3", "BGR24": "BGR3"}


# ---------------------------------------------------------------------------
# PNG writing (the RGB pixels come from camcore: Frame.convert)
# ---------------------------------------------------------------------------

def png_bytes(rgb: np.ndarray) -> bytes:
    """An 8-bit RGB PNG of an (h, w, 3) uint8 array (zlib + struct only)."""
    h, w, _ = rgb.shape

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    raw = np.empty((h, 1 + w * 3), dtype=np.uint8)
    raw[:, 0] = 0  # filter type None for every row
    raw[:, 1:] = np.ascontiguousarray(rgb, dtype=np.uint8).reshape(h, w * 3)
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)  # 8-bit, colour type 2 (RGB)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr)
            + chunk(b"IDAT", zlib.compress(raw.tobytes(), 6)) + chunk(b"IEND", b""))


# ---------------------------------------------------------------------------
# The main job
# ---------------------------------------------------------------------------

_print_lock = threading.Lock()


def say(text: str) -> None:
    """print() for lines written from both the main and the capture thread."""
    with _print_lock:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()


def parse_args(argv=None) -> argparse.Namespace:
    """Command line: --frames, --device, --size WxH, --fps, --format, --snapshot."""
    p = argparse.ArgumentParser(description="Capture frames with camcore and save a PNG snapshot.")
    p.add_argument("--frames", type=int, default=30, metavar="N", help="frames to capture (30)")
    p.add_argument("--device", metavar="ID", help="device id (default: the first camera)")
    p.add_argument("--size", default="640x480", metavar="WxH", help="frame size (640x480)")
    p.add_argument("--fps", type=float, default=30, metavar="N", help="frame rate (30)")
    p.add_argument("--format", metavar="FOURCC",
                   help="pixel format, e.g. YUYV, I420/YU12, NV12 (default: first of "
                        + ", ".join(PREFERRED) + " the camera offers)")
    p.add_argument("--snapshot", default="snapshot.png", metavar="FILE",
                   help="PNG file for one frame (snapshot.png); '' for none")
    a = p.parse_args(argv)
    try:
        w, h = a.size.lower().split("x")
        a.width, a.height = int(w), int(h)
    except ValueError:
        p.error(f"--size wants WxH, e.g. 640x480, not {a.size!r}")
    if a.frames < 1:
        p.error("--frames must be at least 1")
    if a.format:
        a.format = FORMAT_ALIASES.get(a.format.upper(), a.format)
    return a


def choose_format(m: camcore.Manager, device_id: str) -> str:
    """The first format in PREFERRED the device offers, else its first format."""
    offered = [f.fourcc for f in m.formats(device_id)]
    for fcc in PREFERRED:
        if fcc in offered:
            return fcc
    if not offered:
        raise SystemExit(f"device {device_id} lists no formats")
    return offered[0]


def main(argv=None) -> int:
    """The main job; returns the exit status (0 ok, 1 too few frames, 2 bad device)."""
    args = parse_args(argv)
    print(f"camcore {camcore.version()} ({camcore.library_path})")
    # Asking for the synthetic camera lists it after the real cameras.
    with camcore.Manager(synthetic=True) as m:
        devices = m.devices()
        print("Cameras:")
        for d in devices:
            tag = " [synthetic]" if d.synthetic else ""
            print(f"  {d.id}  {d.name!r}  node={d.node} driver={d.driver} type={d.type}"
                  f" position={d.position}{tag}")
        real = [d for d in devices if not d.synthetic and d.type != "infrared"]  # S44
        if args.device:
            dev = next((d for d in devices if d.id == args.device), None)
            if dev is None:
                print(f"error: no device with id {args.device!r}", file=sys.stderr)
                return 2
        elif real:
            dev = real[0]
        else:
            dev = next(d for d in devices if d.synthetic)
            print("No camera found: using camcore's synthetic camera (moving test pattern).")
        fourcc = args.format or choose_format(m, dev.id)
        fps = Fraction(args.fps).limit_denominator(1001)

        n = args.frames
        lock = threading.Lock()
        done = threading.Event()
        state = {"count": 0, "first_ts": None, "last_ts": None, "snapshot": None}
        snap_index = n // 2  # a middle frame: the first ones may be warm-up frames

        def on_frame(frame: camcore.Frame) -> None:
            # Runs on the capture thread; the frame is borrowed for this call.
            with lock:
                if state["count"] >= n:
                    return
                i = state["count"]
                state["count"] += 1
                if state["first_ts"] is None:
                    state["first_ts"] = frame.timestamp_ns
                state["last_ts"] = frame.timestamp_ns
                if i == snap_index and args.snapshot:
                    state["snapshot"] = frame.retain()  # keep it past the callback
            flag = " CORRUPTED" if frame.corrupted else ""
            drop = f" dropped_before={frame.dropped_before}" if frame.dropped_before else ""
            say(f"frame {i + 1:3d}/{n}: {frame.width}x{frame.height} {frame.fourcc} "
                f"seq={frame.sequence} bytes={sum(frame.lengths)}{drop}{flag}")
            if i + 1 >= n:
                done.set()

        def on_error(err: camcore.CamcoreError) -> None:
            print(f"capture error: {err}", file=sys.stderr)
            done.set()

        with m.open(dev.id) as cap:
            say(f"Capturing {n} frames from {dev.name!r} ({dev.id}): {fourcc} "
                f"{args.width}x{args.height} @ {fps} fps")
            t0 = time.monotonic()
            cap.start(fourcc=fourcc, width=args.width, height=args.height, fps=fps,
                      on_frame=on_frame, on_error=on_error)
            fmt = cap.format
            say(f"Driver applied: {fmt.fourcc} {fmt.width}x{fmt.height} strides={fmt.strides} "
                f"frame_bytes={fmt.frame_bytes} fps={fmt.fps} buffers={fmt.buffer_count}")
            rate = float(fmt.fps) if fmt.fps else float(fps) or 30.0
            done.wait(timeout=5.0 + 3.0 * n / rate)
            cap.stop()
            wall = time.monotonic() - t0
            stats = cap.stats

        count = state["count"]
        if count == 0:
            print("error: no frames arrived", file=sys.stderr)
            return 1
        if count > 1 and state["last_ts"] > state["first_ts"]:
            measured = (count - 1) * 1e9 / (state["last_ts"] - state["first_ts"])
            print(f"Measured: {measured:.2f} fps over {count} frames (frame timestamps); "
                  f"{wall:.2f} s wall time")
        print(f"Stats: delivered={stats.frames_delivered} dropped={stats.frames_dropped} "
              f"corrupted={stats.frames_corrupted}")

        snap = state["snapshot"]
        if snap is not None:
            with snap:  # released at the end of the block
                try:
                    # camcore's conversion (libyuv; TurboJPEG for MJPEG): (h, w, 3) RGB.
                    rgb = snap.convert("RGB24").array
                except camcore.CamcoreError as e:
                    print(f"no snapshot: {e}", file=sys.stderr)
                    rgb = None
                seq = snap.sequence
            if rgb is not None:
                with open(args.snapshot, "wb") as fh:
                    fh.write(png_bytes(rgb))
                print(f"Snapshot: frame seq={seq} -> {args.snapshot} "
                      f"({rgb.shape[1]}x{rgb.shape[0]} PNG)")
        return 0 if count >= n else 1


if __name__ == "__main__":
    sys.exit(main())
