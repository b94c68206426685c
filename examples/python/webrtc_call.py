#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""webrtc_call.py — a WebRTC call whose video is a camcore session (aiortc).

Two aiortc peer connections in one process call each other over
127.0.0.1: the caller sends a camcore.aiortc.CameraTrack, the callee
decodes what arrives (VP8). At each step the script prints whether the
camera is on (the session's state, SPEC S9), which camera is in use and
how many frames the far end decoded during the step:

  1. start:  the call connects; aiortc asks for frames, the camera turns on;
  2. pause:  the user turns their video off: camera off, nothing arrives,
             the connection stays up (S12);
  3. resume: camera on, frames arrive again;
  4. flip:   the camera facing the other way (S19);
  5. close:  the call ends (pc.close()): camera off (S9).

    pip install 'camcore[webrtc]'          # aiortc, PyAV, numpy
    python3 webrtc_call.py [--seconds S] [--size WxH] [--device ID]

With no cameras it uses camcore's two synthetic ones (front and back), so
the flip has somewhere to go. Exits 0 when every step behaved as above.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import sys
from typing import Any, List, Optional

try:
    import camcore
except ModuleNotFoundError:  # run from a checkout, not installed: the package in the tree
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                    "bindings", "python"))
    import camcore

try:
    import aioice.ice
    from aiortc import RTCConfiguration, RTCPeerConnection
    from aiortc.mediastreams import MediaStreamError
    from camcore.aiortc import CameraTrack
except ImportError as e:
    sys.exit(f"webrtc_call.py: {e}")


class FarEnd:
    """The callee's video: decodes every frame aiortc receives, counts them."""

    def __init__(self, track: Any) -> None:
        self.frames = 0
        self.size = ""
        self.task = asyncio.ensure_future(self.run(track))

    async def run(self, track: Any) -> None:
        try:
            while True:
                frame = await track.recv()
                self.frames += 1
                self.size = f"{frame.width}x{frame.height}"
        except MediaStreamError:
            pass

    def take(self) -> int:
        n, self.frames = self.frames, 0
        return n


async def call(a: argparse.Namespace) -> int:
    w, h = (int(v) for v in a.size.lower().split("x"))
    failures: List[str] = []
    # synthetic=2: two synthetic cameras (front "synthetic:0", back "synthetic:1"),
    # listed after any real ones; real cameras are used first.
    with camcore.Manager(synthetic=2) as m:
        devices = m.devices()
        real = [d for d in devices if not d.synthetic and not d.unavailable_reason and d.type != "infrared"]
        device = a.device or (real or devices)[0].id
        track = CameraTrack(manager=m, device_id=device, width=w, height=h, fps=30)
        cfg = RTCConfiguration(iceServers=[])        # no STUN server: a call inside this machine
        caller, callee = RTCPeerConnection(cfg), RTCPeerConnection(cfg)
        caller.addTrack(track)
        track.stop_when_closed(caller)               # closing the call turns the camera off
        got: "asyncio.Future[Any]" = asyncio.get_running_loop().create_future()
        callee.on("track", lambda t: got.done() or got.set_result(t))
        far: Optional[FarEnd] = None

        async def step(title: str, camera_on: bool, frames: bool) -> None:
            assert far is not None
            far.take()
            await asyncio.sleep(a.seconds)
            on = track.camera_on
            n = far.take()
            where = track.state.device_id if not track.session.closed else "-"
            print(f"{title:36s} camera {'on ' if on else 'off'}  received {n:3d} frames "
                  f"{far.size:>9s}  [{where}]  connection {caller.connectionState}")
            if on != camera_on:
                failures.append(f"{title}: camera {'on' if on else 'off'}")
            if (n > 0) != frames:
                failures.append(f"{title}: {n} frames received")

        print(f"{'0. before the call':36s} camera {'on ' if track.camera_on else 'off'}  [{device}]")
        await caller.setLocalDescription(await caller.createOffer())
        await callee.setRemoteDescription(caller.localDescription)
        await callee.setLocalDescription(await callee.createAnswer())
        await caller.setRemoteDescription(callee.localDescription)
        far = FarEnd(await asyncio.wait_for(got, 10))
        await step("1. start", camera_on=True, frames=True)
        await track.pause()
        await asyncio.sleep(0.2)   # frames sent before the pause may still be on their way
        await step("2. pause", camera_on=False, frames=False)
        await track.resume()
        await step("3. resume", camera_on=True, frames=True)
        before = track.state.device_id
        try:
            await track.flip()
        except camcore.NoDeviceError as e:
            print(f"   (no camera to flip to: {e})")
        else:
            await step(f"4. flip {before} -> {track.state.device_id}", camera_on=True, frames=True)
        await caller.close()
        await callee.close()
        far.task.cancel()
        on = track.camera_on
        print(f"{'5. close':36s} camera {'on ' if on else 'off'}  track {track.readyState}, "
              f"{track.frames_sent} frames sent, {track.frames_dropped} dropped")
        if on or track.readyState != "ended":
            failures.append("close: the camera stayed on")
    if failures:
        print("FAILED: " + "; ".join(failures))
        return 1
    print("call done: every step as expected")
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(description="A WebRTC call (aiortc, loopback) whose video is a camcore session.")
    p.add_argument("--seconds", type=float, default=1.0, help="time spent in each step")
    p.add_argument("--size", default="640x480", help="preferred size WxH")
    p.add_argument("--device", help="camera id (default: the first real camera, else synthetic:0)")
    a = p.parse_args(argv)
    # aioice leaves 127.0.0.1 out of its host candidates; both ends are in this
    # process, so the loopback address is all the call needs (no network).
    aioice.ice.get_host_addresses = lambda use_ipv4, use_ipv6: ["127.0.0.1"]
    return asyncio.run(call(a))


if __name__ == "__main__":
    sys.exit(main())
