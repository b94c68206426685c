#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""video_call.py — the camera side of a video call with a camcore session.

A session turns the camera on exactly while video is sent or a preview
shows, and off (device closed, LED out) otherwise. This script plays one
call and prints, at every step, whether the camera is on and how many
frames reached the transmission sink (the "encoder") and the preview
(the "self view"):

  1. a self view before the call (preview only: camera on, nothing sent);
  2. the call starts (transmission: frames reach the sink);
  3. the user pauses their video (nothing sent; the preview keeps it on);
  4. the self view closes while paused: the camera turns off;
  5. video resumes (camera on again), the call is held, then unheld;
  6. the camera flips to the one facing the other way;
  7. the call ends: the camera turns off.

    python3 video_call.py [--seconds S] [--size WxH]

With no cameras it uses camcore's two synthetic ones (front and back), so
the flip has somewhere to go. Exits 0 when every step behaved as above.

The "encoder" here only counts frames, to show the camera switch alone.
The same steps in a real WebRTC call: `webrtc_call.py` (aiortc, through
`camcore.aiortc.CameraTrack`) and `examples/gstreamer/` (webrtcbin, through
the camcoresrc element).
"""
from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from typing import Dict, List, Optional

try:
    import camcore
except ModuleNotFoundError:  # run from a checkout, not installed: the package in the tree
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                    "bindings", "python"))
    import camcore


class Counter:
    """Frames seen by one callback (it runs on camcore's capture thread)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.n = 0
        self.last: Optional[str] = None

    def __call__(self, frame: camcore.Frame) -> None:
        with self.lock:
            self.n += 1
            self.last = f"{frame.fourcc} {frame.width}x{frame.height}"

    def take(self) -> int:
        with self.lock:
            n, self.n = self.n, 0
            return n


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(description="A video call's camera with a camcore session.")
    p.add_argument("--seconds", type=float, default=0.5, help="time spent in each step")
    p.add_argument("--size", default="640x480", help="preferred size WxH")
    a = p.parse_args(argv)
    w, h = (int(v) for v in a.size.lower().split("x"))
    failures: List[str] = []

    # synthetic=2: two synthetic cameras (front "synthetic:0", back "synthetic:1"),
    # listed after any real ones; real cameras are used first.
    with camcore.Manager(synthetic=2) as m:
        devices = m.devices()
        real = [d for d in devices if not d.synthetic and not d.unavailable_reason and d.type != "infrared"]
        first = (real or devices)[0]
        sink, preview = Counter(), Counter()
        selected: List[str] = []
        with m.session(first.id, width=w, height=h, min_fps=15, max_fps=30) as s:
            s.on_selected = lambda dev, fmt: selected.append(dev.id if dev else "?")

            def step(title: str, camera_on: bool, sending: bool, previewing: bool) -> None:
                # Each change has taken effect when its call returns: count from here.
                sink.take(), preview.take()
                time.sleep(a.seconds)
                st = s.state
                got_sink, got_preview = sink.take(), preview.take()
                print(f"{title:44s} camera {'on ' if st.camera_on else 'off'}  "
                      f"sent {got_sink:3d}  preview {got_preview:3d}  [{st.device_id}]")
                if st.camera_on != camera_on:
                    failures.append(f"{title}: camera {'on' if st.camera_on else 'off'}")
                if (got_sink > 0) != sending:
                    failures.append(f"{title}: {got_sink} frames sent")
                if (got_preview > 0) != previewing:
                    failures.append(f"{title}: {got_preview} preview frames")

            step("0. idle session", camera_on=False, sending=False, previewing=False)
            pid = s.add_preview(preview)
            step("1. self view before the call", camera_on=True, sending=False, previewing=True)
            s.set_transmission_sink(sink)
            s.start_transmission()
            step("2. call started", camera_on=True, sending=True, previewing=True)
            s.pause_video()
            step("3. video paused", camera_on=True, sending=False, previewing=True)
            s.remove_preview(pid)
            step("4. self view closed while paused", camera_on=False, sending=False,
                 previewing=False)
            s.resume_video()
            step("5. video resumed", camera_on=True, sending=True, previewing=False)
            s.hold()
            step("   call held", camera_on=False, sending=False, previewing=False)
            s.unhold()
            step("   call unheld", camera_on=True, sending=True, previewing=False)
            before = s.state.device_id
            try:
                s.flip()
            except camcore.NoDeviceError as e:
                print(f"   (no camera to flip to: {e})")
            else:
                after = s.state.device_id
                step(f"6. flipped {before} -> {after}", camera_on=True, sending=True,
                     previewing=False)
                if after == before:
                    failures.append("flip kept the same camera")
            s.end_transmission()
            step("7. call ended", camera_on=False, sending=False, previewing=False)
            if s.callback_error is not None:
                failures.append(f"callback raised {s.callback_error!r}")
        print(f"cameras selected: {' -> '.join(selected) or first.id}")
    if failures:
        print("FAILED: " + "; ".join(failures))
        return 1
    print("call done: every step as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
