#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Python frame path of the benchmark: CPU per frame of a Python program
receiving frames, one JSON line on stdout.

  py_capture.py camcore  --device /dev/video0 [--size 640x480] [--fps 120] [--frames 300] [--warmup 10]
  py_capture.py camcore-iter ... the same through the pull iterator (for frame in cap.frames())
  py_capture.py camcore-rgb24 / camcore-iter-rgb24 ...  the same with output="RGB24":
                             camcore converts each frame to RGB3 (libyuv), as cv2-bgr converts
  py_capture.py camcore-rawpull ...  the floor of a ctypes pull loop: acquire + release through
                             camcore._raw, one field read, no frame objects (a reference row)
  py_capture.py cv2      ...   cv2.VideoCapture (CAP_V4L2), raw YUYV (CAP_PROP_CONVERT_RGB off)
  py_capture.py cv2-bgr  ...   cv2.VideoCapture as people use it: frames converted to BGR

camcore: the camcore package, bindings/python (ctypes); each frame arrives in on_frame
on the capture thread and is looked at as a zero-copy numpy view
(frame.array), one byte read, as the C programs do. cv2: cap.read() in a
loop, one byte read. CPU is getrusage(RUSAGE_SELF) user+sys, all threads,
from the warm-up'th frame to the last.
"""
from __future__ import annotations

import argparse
import json
import resource
import sys
import threading
import time


def cpu_ns() -> int:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return int((r.ru_utime + r.ru_stime) * 1e9)


def status_kb(key: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return -1


def find_device(m, device: str):
    """The camcore device whose node or id is `device`; exits when there is none."""
    dev = next((d for d in m.devices() if device in (d.node, d.id)), None)
    if dev is None:
        raise SystemExit(f"py_capture: no camcore device {device}")
    return dev


def run_camcore(a) -> dict:
    import camcore
    import numpy  # noqa: F401  camcore imports numpy at the first frame.array; not on the capture thread here

    w, h = a.size
    done = threading.Event()
    st = {"n": 0, "sink": 0, "cpu0": 0, "wall0": 0, "cpu1": 0, "wall1": 0}
    start_at, end_at = a.warmup, a.warmup + a.frames

    def on_frame(frame):
        arr = frame.array                  # zero-copy numpy view, (h, w, 2) for YUYV, (h, w, 3) for RGB3
        st["sink"] += int(arr[0, 0, 0])
        st["n"] += 1
        if st["n"] == 1:
            st["shape"] = arr.shape
        n = st["n"]
        if n == start_at:
            st["cpu0"], st["wall0"] = cpu_ns(), time.monotonic_ns()
        elif n == end_at:
            st["cpu1"], st["wall1"] = cpu_ns(), time.monotonic_ns()
            done.set()

    with camcore.Manager() as m:
        dev = find_device(m, a.device)
        with m.open(dev.id) as cap:
            cap.start(fourcc="YUYV", width=w, height=h, fps=a.fps, on_frame=on_frame, output=a.output)
            ok = done.wait(120)
            fmt = cap.format
            hwm, rss = status_kb("VmHWM"), status_kb("VmRSS")
            cap.stop()
    if not ok:
        raise SystemExit(f"py_capture: timed out after {st['n']} frames")
    return {"fps": float(fmt.fps) if fmt.fps else 0.0, "width": fmt.width, "height": fmt.height,
            "output": str(fmt.fourcc) if a.output else "", "shape": list(st.get("shape", ())),
            "cpu0": st["cpu0"], "cpu1": st["cpu1"], "wall0": st["wall0"], "wall1": st["wall1"],
            "vm_hwm_kb": hwm, "vm_rss_kb": rss}


def run_camcore_iter(a) -> dict:
    """The pull API (S36): frames taken in this thread, no callback per frame."""
    import camcore
    import numpy  # noqa: F401  as run_camcore: not imported inside the measured loop

    w, h = a.size
    sink = 0
    cpu0 = wall0 = 0
    with camcore.Manager() as m:
        dev = find_device(m, a.device)
        with m.open(dev.id) as cap:
            n = 0
            for frame in cap.frames(a.warmup + a.frames, fourcc="YUYV", width=w, height=h, fps=a.fps,
                                    timeout=120, output=a.output):
                arr = frame.array
                sink += int(arr[0, 0, 0])
                n += 1
                shape = arr.shape
                if n == a.warmup:
                    cpu0, wall0 = cpu_ns(), time.monotonic_ns()
                    fmt = cap.format
            cpu1, wall1 = cpu_ns(), time.monotonic_ns()
            hwm, rss = status_kb("VmHWM"), status_kb("VmRSS")
    return {"fps": float(fmt.fps) if fmt.fps else 0.0, "width": fmt.width, "height": fmt.height,
            "output": str(fmt.fourcc) if a.output else "", "shape": list(shape),
            "cpu0": cpu0, "cpu1": cpu1, "wall0": wall0, "wall1": wall1,
            "vm_hwm_kb": hwm, "vm_rss_kb": rss}


def run_camcore_rawpull(a) -> dict:
    """The floor of any ctypes pull loop: per frame only the two calls a pull
    takes (camcore_capturer_acquire_frame, camcore_frame_release) and one
    field read (the sequence), through camcore's raw ctypes layer; no frame object, no
    generator, no numpy. Not an API users call: a reference for the
    iterator row (what the binding adds above ctypes itself)."""
    import ctypes
    import camcore
    from camcore import _raw

    lib = _raw.lib
    acquire, release = lib.camcore_capturer_acquire_frame, lib.camcore_frame_release
    w, h = a.size
    sink = 0
    cpu0 = wall0 = 0
    with camcore.Manager() as m:
        dev = find_device(m, a.device)
        with m.open(dev.id) as cap:
            cap.start_pull(fourcc="YUYV", width=w, height=h, fps=a.fps, output=a.output)
            fmt = cap.format
            hc = cap._h()
            p = _raw.frame_p()
            ref = ctypes.byref(p)
            for n in range(1, a.warmup + a.frames + 1):
                if acquire(hc, 120000, ref):
                    raise SystemExit("py_capture: acquire failed")
                sink += p.contents.sequence
                release(p)
                if n == a.warmup:
                    cpu0, wall0 = cpu_ns(), time.monotonic_ns()
            cpu1, wall1 = cpu_ns(), time.monotonic_ns()
            hwm, rss = status_kb("VmHWM"), status_kb("VmRSS")
            cap.stop()
    return {"fps": float(fmt.fps) if fmt.fps else 0.0, "width": fmt.width, "height": fmt.height,
            "output": str(fmt.fourcc) if a.output else "", "shape": [h, w * 2],
            "cpu0": cpu0, "cpu1": cpu1, "wall0": wall0, "wall1": wall1,
            "vm_hwm_kb": hwm, "vm_rss_kb": rss}


def run_cv2(a, convert: bool) -> dict:
    import cv2

    w, h = a.size
    cap = cv2.VideoCapture(a.device, cv2.CAP_V4L2)
    if not cap.isOpened():
        raise SystemExit(f"py_capture: cv2 cannot open {a.device}")
    cap.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter_fourcc(*"YUYV"))
    cap.set(cv2.CAP_PROP_FRAME_WIDTH, w)
    cap.set(cv2.CAP_PROP_FRAME_HEIGHT, h)
    cap.set(cv2.CAP_PROP_FPS, a.fps)
    cap.set(cv2.CAP_PROP_BUFFERSIZE, 4)
    if not convert:
        cap.set(cv2.CAP_PROP_CONVERT_RGB, 0)
    sink = 0
    cpu0 = wall0 = 0
    shape = None
    for n in range(1, a.warmup + a.frames + 1):
        ok, img = cap.read()
        if not ok:
            raise SystemExit("py_capture: cv2 read failed")
        sink += int(img.flat[0])
        shape = img.shape
        if n == a.warmup:
            cpu0, wall0 = cpu_ns(), time.monotonic_ns()
    cpu1, wall1 = cpu_ns(), time.monotonic_ns()
    fps = cap.get(cv2.CAP_PROP_FPS)
    hwm, rss = status_kb("VmHWM"), status_kb("VmRSS")
    cap.release()
    return {"fps": fps, "width": int(w), "height": int(h), "shape": list(shape or ()),
            "cv2_version": cv2.__version__,
            "cpu0": cpu0, "cpu1": cpu1, "wall0": wall0, "wall1": wall1, "vm_hwm_kb": hwm, "vm_rss_kb": rss}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["camcore", "camcore-iter", "camcore-rgb24", "camcore-iter-rgb24", "camcore-rawpull",
                                       "cv2", "cv2-bgr"])
    p.add_argument("--device", required=True)
    p.add_argument("--size", default="640x480")
    p.add_argument("--fps", type=int, default=120)
    p.add_argument("--frames", type=int, default=300)
    p.add_argument("--warmup", type=int, default=10)
    a = p.parse_args()
    a.size = tuple(int(v) for v in a.size.split("x"))
    a.output = "RGB24" if a.mode.endswith("-rgb24") else None
    if a.mode in ("camcore", "camcore-rgb24"):
        r = run_camcore(a)
    elif a.mode == "camcore-rawpull":
        r = run_camcore_rawpull(a)
    elif a.mode in ("camcore-iter", "camcore-iter-rgb24"):
        r = run_camcore_iter(a)
    else:
        r = run_cv2(a, a.mode == "cv2-bgr")
    wall = (r.pop("wall1") - r.pop("wall0")) / 1e9
    cpu = r.pop("cpu1") - r.pop("cpu0")
    out = {"prog": "python-" + a.mode, "frames": a.frames, "cpu_ns_per_frame": cpu / a.frames,
           "wall_s": wall, "measured_fps": a.frames / wall if wall > 0 else 0.0}
    out.update(r)
    print(json.dumps(out))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
