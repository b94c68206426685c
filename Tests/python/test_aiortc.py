# SPDX-License-Identifier: MIT
"""camcore.aiortc: a camcore session as an aiortc video track (issue 33; SPEC S9–S19).

Loopback calls on 127.0.0.1: two RTCPeerConnections in one asyncio loop, the
sender's video track a CameraTrack on the synthetic cameras
(Manager(synthetic=2): "synthetic:0" front, "synthetic:1" back), VP8 as
aiortc negotiates it. The receiver decodes the frames; the tests convert
them to RGB and look for the synthetic camera's eight colour bars, and
check the camera switch (S9) through the session's state at each step:
call -> camera on, pause/hold -> off with the connection up and nothing
sent, resume -> frames again, flip -> the back camera, close/stop -> off.

Timing: "MEASURED" lines (pytest -s shows them) give the frames received,
pause -> camera off and resume -> first received frame. Every wait is
bounded (asyncio.wait_for); the absence of frames while paused is watched
for a fixed window.

Frames carry their capture time: the track's pts are the CLOCK_MONOTONIC
timestamps in 90 kHz counted from track.start_timestamp_ns, and RTP keeps
their differences, so the receiver knows when each frame it decodes was
captured (capture_ns below) and can tell frames captured after a change.

Needs aiortc (pip install 'camcore[webrtc]'); without it the call tests are
skipped and only the ImportError test runs.
"""
import asyncio
import importlib.util
import time
from collections import deque

import numpy as np
import pytest

import camcore
from conftest import EXAMPLES, run_python

HAVE_AIORTC = importlib.util.find_spec("aiortc") is not None
needs_aiortc = pytest.mark.skipif(
    not HAVE_AIORTC, reason="aiortc is not installed (pip install 'camcore[webrtc]'): "
                            "no WebRTC call to test")

W, H, FPS = 320, 240, 30
#: The synthetic camera's 100% colour bars, left to right (they slide left).
BARS_RGB = np.array([(255, 255, 255), (255, 255, 0), (0, 255, 255), (0, 255, 0),
                     (255, 0, 255), (255, 0, 0), (0, 0, 255), (0, 0, 0)])
#: How far a decoded VP8 pixel may be from its bar's colour.
TOLERANCE = 48
#: Every wait for frames or a connection: well above what a loaded machine needs.
LIMIT = 10.0
#: How long "no frames while paused" is watched.
QUIET = 0.5


def test_importing_camcore_never_needs_aiortc():
    """`import camcore` works without aiortc and PyAV and does not import
    them; only `import camcore.aiortc` raises, with an ImportError that says
    what to install."""
    code = (
        "import sys\n"
        "sys.modules['aiortc'] = None; sys.modules['av'] = None\n"
        "import camcore\n"
        "with camcore.Manager(synthetic=True) as m: m.devices()\n"
        "print('camcore ok')\n"
        "try:\n"
        "    import camcore.aiortc\n"
        "except ImportError as e:\n"
        "    print('ImportError:', e)\n")
    r = run_python(code)
    assert r.returncode == 0, r.stderr
    assert "camcore ok" in r.stdout
    assert "ImportError: camcore.aiortc needs aiortc" in r.stdout, r.stdout
    assert "pip install 'camcore[webrtc]'" in r.stdout, r.stdout
    r = run_python("import sys, camcore\n"
                   "print(sorted(m for m in ('aiortc', 'av', 'camcore.aiortc') if m in sys.modules))")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


# -- the call ---------------------------------------------------------------

@pytest.fixture
def loopback(monkeypatch):
    """ICE on 127.0.0.1 only: aioice leaves the loopback address out of its host
    candidates, so it is given as the only one (no network needed)."""
    import aioice.ice
    monkeypatch.setattr(aioice.ice, "get_host_addresses", lambda use_ipv4, use_ipv6: ["127.0.0.1"])


class Receiver:
    """The far end's video: decodes every frame (aiortc's receiving track),
    keeps (arrival ns, capture ns) of each and the last few av frames."""

    def __init__(self, track, sender):
        self.sender = sender          # the CameraTrack, for start_timestamp_ns
        self.times = []               # (arrival_ns, capture_ns)
        self.last = deque(maxlen=4)   # (capture_ns, av.VideoFrame)
        self.first_pts = None
        self.cond = asyncio.Condition()
        self.task = asyncio.ensure_future(self._run(track))

    def capture_ns(self, frame):
        """When the frame was captured (CLOCK_MONOTONIC ns): RTP timestamps keep the
        differences of the track's pts, and the first frame received is its pts 0."""
        if self.first_pts is None:
            self.first_pts = frame.pts
        ticks = (frame.pts - self.first_pts) % 2 ** 32
        return self.sender.start_timestamp_ns + ticks * 10 ** 9 // 90000

    async def _run(self, track):
        from aiortc.mediastreams import MediaStreamError
        try:
            while True:
                f = await track.recv()
                arrived = time.monotonic_ns()
                async with self.cond:
                    cap = self.capture_ns(f)
                    self.times.append((arrived, cap))
                    self.last.append((cap, f))
                    self.cond.notify_all()
        except MediaStreamError:
            pass

    def count(self, since_ns=0):
        """Frames received that were captured after since_ns."""
        return sum(1 for _, c in self.times if c > since_ns)

    async def wait(self, n, since_ns=0, timeout=LIMIT):
        """Waits until n frames captured after since_ns arrived; returns the arrival
        time of the first of them (ns)."""
        async with self.cond:
            await asyncio.wait_for(self.cond.wait_for(lambda: self.count(since_ns) >= n), timeout)
            return next(a for a, c in self.times if c > since_ns)

    async def close(self):
        self.task.cancel()
        try:
            await self.task
        except asyncio.CancelledError:
            pass


class Call:
    """A loopback call: pc1 sends the CameraTrack, pc2 receives (recvonly)."""

    def __init__(self, track):
        from aiortc import RTCConfiguration, RTCPeerConnection
        cfg = RTCConfiguration(iceServers=[])   # no STUN: nothing leaves the machine
        self.track = track
        self.pc1, self.pc2 = RTCPeerConnection(cfg), RTCPeerConnection(cfg)
        self.sender = self.pc1.addTrack(track)
        self.rx = None

    async def connect(self):
        got = asyncio.get_running_loop().create_future()
        self.pc2.on("track", lambda t: got.done() or got.set_result(t))
        await self.pc1.setLocalDescription(await self.pc1.createOffer())
        await self.pc2.setRemoteDescription(self.pc1.localDescription)
        await self.pc2.setLocalDescription(await self.pc2.createAnswer())
        await self.pc1.setRemoteDescription(self.pc2.localDescription)
        remote = await asyncio.wait_for(got, LIMIT)
        assert remote.kind == "video"
        self.rx = Receiver(remote, self.track)
        return self

    def codec(self):
        """The video codec the answer chose (its first payload type)."""
        sdp = self.pc2.localDescription.sdp.splitlines()
        pt = next(line.split()[3] for line in sdp if line.startswith("m=video"))
        return next(line.split()[1].split("/")[0] for line in sdp if line.startswith(f"a=rtpmap:{pt} "))

    async def close(self):
        if self.rx is not None:
            await self.rx.close()
        await self.pc1.close()
        await self.pc2.close()


def bars_of(frame):
    """The decoded frame's colour bars: for each column the bar whose colour the
    column's median is nearest to (the median over rows leaves the moving white
    square out), the distance, and how many columns are within TOLERANCE."""
    rgb = frame.to_ndarray(format="rgb24").astype(int)
    profile = np.median(rgb, axis=0)                       # (width, 3)
    dist = np.abs(profile[:, None, :] - BARS_RGB[None, :, :]).max(axis=2)   # (width, 8)
    nearest = dist.argmin(axis=1)
    close = dist.min(axis=1) <= TOLERANCE
    return nearest, close


def assert_bars(frame, what, reversed_bars=False):
    """The frame shows the eight bars in order, each about width/8 wide; the
    back synthetic camera's run the other way (black first)."""
    nearest, close = bars_of(frame)
    w = frame.width
    assert close.mean() >= 0.85, f"{what}: only {close.mean():.0%} of the columns show a bar colour"
    widths = np.bincount(nearest[close], minlength=8)
    assert (widths >= 0.6 * w / 8).all(), f"{what}: bar widths {widths.tolist()} (of {w} px)"
    # Left to right the bars follow each other (white, yellow, ... black, white ...).
    runs = [int(b) for i, b in enumerate(nearest) if close[i] and (i == 0 or nearest[i - 1] != b)]
    steps = {(b - a) % 8 for a, b in zip(runs, runs[1:])}
    assert steps <= ({7} if reversed_bars else {1}), f"{what}: bar order {runs}"


def run(coro):
    """Runs one test's coroutine in a fresh event loop (bounded by the waits inside)."""
    return asyncio.run(asyncio.wait_for(coro, 45))


def measured(what, value):
    print(f"MEASURED {what}: {value}")


@needs_aiortc
def test_S10_call_sends_the_camera_and_the_receiver_sees_the_bars(loopback):
    """S9, S10: the camera is off until the call sends video, then on; the
    receiver decodes >= 30 VP8 frames at the camera's size whose pictures are
    the synthetic camera's colour bars; their capture times follow each other
    at the camera's rate."""
    from camcore.aiortc import CameraTrack
    from aiortc import VideoStreamTrack

    async def main():
        with camcore.Manager(synthetic=2) as m:
            track = CameraTrack(manager=m, device_id="synthetic:0", width=W, height=H, fps=FPS)
            assert isinstance(track, VideoStreamTrack) and track.kind == "video"
            assert not track.camera_on and not track.state.transmitting   # nothing sent yet (S9)
            t0 = time.monotonic_ns()
            call = await Call(track).connect()
            try:
                first = await call.rx.wait(1)
                await call.rx.wait(30)
                measured("call start -> first received frame", f"{(first - t0) / 1e6:.1f} ms")
                st = track.state
                assert st.camera_on and st.transmitting and st.device_id == "synthetic:0"
                assert (st.format.fourcc, st.format.width, st.format.height) == ("YU12", W, H)
                assert call.codec() == "VP8"
                caps = [c for _, c in call.rx.times]
                assert all(b > a for a, b in zip(caps, caps[1:])), "capture times go back"
                span = (caps[-1] - caps[0]) / 1e9
                rate = (len(caps) - 1) / span
                measured("frames received in the call", f"{len(caps)} in {span:.2f} s of capture "
                         f"({rate:.1f} fps; {track.frames_sent} sent, {track.frames_dropped} dropped "
                         "by the track's queue)")
                # Never above the camera's rate (no frame twice); below it only when a
                # loaded machine made the track drop frames (frames_dropped).
                assert FPS * 0.3 <= rate <= FPS * 1.1, rate
                # Capture -> decoded at the far end: positive, and well under a second.
                lat = sorted(a - c for a, c in call.rx.times)
                assert 0 < lat[0] and lat[-1] < 2 * 10 ** 9, (lat[0], lat[-1])
                measured("capture -> decoded at the receiver", f"median {lat[len(lat) // 2] / 1e6:.1f} ms, "
                         f"max {lat[-1] / 1e6:.1f} ms")
                for cap, f in list(call.rx.last):
                    assert (f.width, f.height) == (W, H)
                    assert_bars(f, f"frame captured at {cap}")
            finally:
                await call.close()
                track.stop()
            assert not track.camera_on

    run(main())


@needs_aiortc
def test_S12_pause_turns_the_camera_off_with_the_call_up_and_resume_brings_frames_back(loopback):
    """S12, S11: pause() returns with the camera off (state), the connection
    still connected, and no frame captured after the pause reaches the
    receiver (the track sends nothing: frames_sent stays put); resume()
    brings frames again. hold()/unhold() likewise (S11)."""
    from camcore.aiortc import CameraTrack

    async def main():
        with camcore.Manager(synthetic=2) as m:
            track = CameraTrack(manager=m, device_id="synthetic:0", width=W, height=H, fps=FPS)
            call = await Call(track).connect()
            try:
                await call.rx.wait(10)
                for off, on, rule in ((track.pause, track.resume, "pause"),
                                      (track.hold, track.unhold, "hold")):
                    t = time.monotonic_ns()
                    await off()
                    t_off = time.monotonic_ns()
                    st = track.state
                    assert not st.camera_on, f"{rule}: {st}"
                    assert st.paused if rule == "pause" else st.held
                    measured(f"{rule} -> camera off", f"{(t_off - t) / 1e6:.2f} ms")
                    sent = track.frames_sent
                    await asyncio.sleep(QUIET)           # a window in which nothing may come
                    assert track.frames_sent == sent, f"{rule}: frames sent while off"
                    assert call.rx.count(since_ns=t_off) == 0, f"{rule}: frames captured while off"
                    assert call.pc1.connectionState == "connected" == call.pc2.connectionState
                    assert not track.camera_on
                    t = time.monotonic_ns()
                    await on()
                    assert track.state.camera_on
                    first = await call.rx.wait(1, since_ns=t)
                    measured(f"{'resume' if rule == 'pause' else 'unhold'} -> first received frame",
                             f"{(first - t) / 1e6:.1f} ms")
                    await call.rx.wait(10, since_ns=t)
                    cap, f = call.rx.last[-1]
                    assert_bars(f, f"after {rule}")
            finally:
                await call.close()
                track.stop()
            assert not track.camera_on

    run(main())


@needs_aiortc
def test_S19_flip_sends_the_back_camera(loopback):
    """S19: flip() switches the call to "synthetic:1", the back camera
    (on_selected says so, and the state), and the receiver decodes the back
    camera's picture, its bars running the other way, from frames captured
    after the switch. select() goes back to the front one (S18), whose bars
    run forward again."""
    from camcore.aiortc import CameraTrack

    async def main():
        with camcore.Manager(synthetic=2) as m:
            track = CameraTrack(manager=m, device_id="synthetic:0", width=W, height=H, fps=FPS)
            selected = []
            track.session.on_selected = lambda dev, fmt: selected.append((dev.id, dev.position))
            call = await Call(track).connect()
            try:
                await call.rx.wait(10)
                assert track.state.device_id == "synthetic:0"
                await track.flip()
                t = time.monotonic_ns()
                assert selected[-1] == ("synthetic:1", "back"), selected
                st = track.state
                assert st.device_id == "synthetic:1" and st.camera_on and st.transmitting
                first = await call.rx.wait(15, since_ns=t)
                measured("flip -> first frame of the back camera received", f"{(first - t) / 1e6:.1f} ms")
                for cap, f in list(call.rx.last):
                    assert cap > t
                    assert_bars(f, "back camera", reversed_bars=True)
                await track.select("synthetic:0")
                t = time.monotonic_ns()
                assert selected[-1] == ("synthetic:0", "front") and track.state.device_id == "synthetic:0"
                await call.rx.wait(5, since_ns=t)
                for cap, f in list(call.rx.last):
                    if cap > t:
                        assert_bars(f, "front camera again")
            finally:
                await call.close()
                track.stop()

    run(main())


@needs_aiortc
def test_S9_closing_the_call_turns_the_camera_off(loopback):
    """S9: with stop_when_closed(pc), pc.close() stops the track: the
    transmission ends, the camera turns off, the track is "ended" and its
    recv() raises MediaStreamError; the track's own session is closed."""
    from aiortc.mediastreams import MediaStreamError
    from camcore.aiortc import CameraTrack

    async def main():
        with camcore.Manager(synthetic=2) as m:
            track = CameraTrack(manager=m, width=W, height=H, fps=FPS)
            ended = []
            track.on("ended", lambda: ended.append(track.camera_on))
            call = await Call(track).connect()
            track.stop_when_closed(call.pc1)
            await call.rx.wait(5)
            session = track.session
            assert session.camera_on
            t = time.monotonic_ns()
            await call.close()
            measured("pc.close() -> camera off", f"{(time.monotonic_ns() - t) / 1e6:.1f} ms")
            assert track.readyState == "ended" and ended == [False]
            assert session.closed and not track.camera_on
            with pytest.raises(MediaStreamError):
                await asyncio.wait_for(track.recv(), LIMIT)
            with pytest.raises(camcore.StateError):
                await track.pause()

    run(main())


@needs_aiortc
def test_S9_stopping_the_track_leaves_a_preview_of_the_apps_session_on(loopback):
    """S9 with the app's own session: stop() ends the transmission (the app's
    sink-free session stays open, not closed by the track) and the camera stays
    on while the app's preview runs, off once it is removed."""
    from camcore.aiortc import CameraTrack

    async def main():
        with camcore.Manager(synthetic=2) as m, \
                m.session("synthetic:1", width=W, height=H, max_fps=FPS, output="I420") as s:
            track = CameraTrack(session=s)
            call = await Call(track).connect()
            try:
                await call.rx.wait(5)
                pid = s.add_preview(lambda f: None)
                track.stop()
                st = s.state
                assert not s.closed and not st.transmitting and st.camera_on and st.preview_count == 1
                s.remove_preview(pid)
                assert not s.camera_on
            finally:
                await call.close()

    run(main())


@needs_aiortc
def test_S23_recv_wraps_the_camera_buffer_with_capture_time_pts():
    """recv() without a call: an I420 session's frames become yuv420p av frames
    over the camera's own buffer (no copy: the plane pointers are the ones the
    capture hook saw, S20), with pts the capture time in 90 kHz since
    start_timestamp_ns; a YUYV session's frames are converted (once) to yuv420p.
    While nobody calls recv() the queue keeps the newest queue_size frames
    and counts the others dropped; the camera's thread never waits."""
    from camcore.aiortc import CameraTrack

    async def main():
        with camcore.Manager(synthetic=2) as m:
            with m.session("synthetic:0", width=W, height=H, max_fps=60, output="I420") as s:
                seen = {}

                def hook(f):
                    seen[f.timestamp_ns] = f._c().planes[0].data   # where the pixels are
                s.set_capture_hook(hook)
                track = CameraTrack(session=s, queue_size=2)
                try:
                    first = await asyncio.wait_for(track.recv(), LIMIT)
                    assert first.pts == 0 and str(first.time_base) == "1/90000"
                    t0 = track.start_timestamp_ns
                    assert first.format.name == "yuv420p" and (first.width, first.height) == (W, H)
                    assert first.planes[0].buffer_ptr == seen[t0], "the frame was copied"
                    assert first.planes[0].line_size == W
                    f = await asyncio.wait_for(track.recv(), LIMIT)
                    ts = next(t for t, _ in list(seen.items()) if (t - t0) * 90000 // 10 ** 9 == f.pts)
                    assert f.planes[0].buffer_ptr == seen[ts]
                    # Nobody reads: the queue holds the newest two, the rest are dropped.
                    dropped = track.frames_dropped
                    deadline = time.monotonic() + LIMIT
                    while track.frames_dropped < dropped + 5:
                        assert time.monotonic() < deadline, "no frames dropped while nobody read"
                        await asyncio.sleep(0.01)
                    newest = max(list(seen))
                    g = await asyncio.wait_for(track.recv(), LIMIT)
                    captured = t0 + g.pts * 10 ** 9 // 90000
                    assert newest - captured <= 3 * 10 ** 9 // 60 + 10 ** 6, "an old frame was kept"
                finally:
                    track.stop()
                assert not s.camera_on and not s.closed
            with m.session("synthetic:0", width=W, height=H, max_fps=60) as s:   # native YUYV
                track = CameraTrack(session=s)
                try:
                    f = await asyncio.wait_for(track.recv(), LIMIT)
                    assert s.state.format.fourcc == "YUYV"
                    assert f.format.name == "yuv420p" and (f.width, f.height) == (W, H)
                    assert_bars(f, "converted YUYV")
                finally:
                    track.stop()

    run(main())


@needs_aiortc
def test_S9_the_webrtc_call_example_runs_the_call():
    """examples/python/webrtc_call.py: the loopback call it plays prints the camera
    state at each step (on, off while paused, on, flipped, off after close) and
    exits 0 when each step behaved (its own checks)."""
    r = run_python([str(EXAMPLES / "webrtc_call.py"), "--seconds", "0.4", "--size", "320x240",
                    "--device", "synthetic:0"], timeout=50)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    for step, camera in (("0. before the call", "off"), ("1. start", "on"), ("2. pause", "off"),
                         ("3. resume", "on"), ("4. flip synthetic:0 -> synthetic:1", "on"),
                         ("5. close", "off")):
        line = next((ln for ln in lines if ln.startswith(step)), None)
        assert line is not None and f"camera {camera}" in line, (step, r.stdout)
    assert "received   0 frames" in next(ln for ln in lines if ln.startswith("2. pause"))
    assert lines[-1] == "call done: every step as expected"
