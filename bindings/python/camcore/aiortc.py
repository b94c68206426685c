# SPDX-License-Identifier: MIT
"""camcore in a WebRTC call: a camcore session as an aiortc video track.

``CameraTrack`` is an aiortc ``VideoStreamTrack`` (a ``MediaStreamTrack``
of kind ``"video"``) whose frames are a camcore Session's transmission
(SPEC S9–S19): add it to an ``RTCPeerConnection`` and the camera is on
exactly while the call sends video::

    import camcore
    from camcore.aiortc import CameraTrack

    track = CameraTrack(width=640, height=480, fps=30)   # camera still off
    pc.addTrack(track)
    track.stop_when_closed(pc)        # pc.close() also turns the camera off
    ...                               # offer/answer: the camera turns on when
                                      # aiortc starts sending (first recv())
    await track.pause()               # S12: nothing sent, camera off
    await track.resume()              # camera on, video again
    await track.flip()                # S19: the camera facing the other way
    track.stop()                      # transmission ends: camera off (S9)

This module is imported only when asked for (``import camcore.aiortc``);
it needs aiortc (which brings PyAV) and numpy: ``pip install
'camcore[webrtc]'``. Without them importing it raises ImportError saying
so; the rest of camcore never imports it.

What maps to what:

- the track's lifetime -> the session's transmission (S10): it starts
  when aiortc first asks for a frame (``recv()``; or ``await start()``
  earlier) and ends at ``stop()`` (and, with ``stop_when_closed(pc)``,
  when the peer connection closes); the camera is then off unless a
  preview of the same session still runs (S9);
- ``pause()``/``resume()`` -> ``Session.pause_video()``/``resume_video()``
  (S12); ``hold()``/``unhold()`` -> ``Session.hold()``/``unhold()`` (S11):
  while paused or held ``recv()`` simply waits, the connection stays up
  and the camera is off (unless previewed);
- ``flip()`` -> ``Session.flip()`` (S19), ``select(id)`` ->
  ``Session.select()`` (S18): the call goes on with the other camera;
- each camcore frame -> one ``av.VideoFrame``: the session is asked for
  I420 output (S8) and the frame's buffer is wrapped as ``yuv420p``
  without a copy (``VideoFrame.from_numpy_buffer``); the buffer is
  retained (S23) until PyAV and the encoder let go of it. Frames in
  another format (a session you made with another output) are converted
  once by camcore (``camcore_frame_convert``), which is a copy;
- ``pts``/``time_base``: the frames' CLOCK_MONOTONIC capture timestamps
  (S22) in aiortc's 90 kHz video clock, counted from the first frame the
  track returned (``start_timestamp_ns``).

Threads: frames arrive on camcore's capture thread. The track's
transmission sink only retains the frame (S23) and appends it to a small
bounded queue (``queue_size``, oldest dropped, counted in
``frames_dropped``), and wakes the event loop with
``loop.call_soon_threadsafe`` when ``recv()`` waits: it never blocks
camcore's thread. Everything else runs on the event loop; the session
calls that wait for the camera (start, pause, resume, hold, unhold, flip,
select) run in a worker thread (``asyncio.to_thread``) so the loop keeps
running while a camera opens.
"""
from __future__ import annotations

import asyncio
import logging
import threading
from collections import deque
from ctypes import byref, c_uint32
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Callable, Deque, Optional

try:
    import av
    import numpy
    from aiortc import VideoStreamTrack
    from aiortc.mediastreams import MediaStreamError
except ImportError as _e:  # pragma: no cover - exercised in a subprocess by the tests
    raise ImportError(
        f"camcore.aiortc needs aiortc (with PyAV) and numpy, and {_e.name or 'one of them'} "
        "cannot be imported: pip install 'camcore[webrtc]' (or pip install aiortc numpy). "
        "The rest of camcore works without them.") from _e

from ._args import Rate, int_in
from ._errors import CamcoreError, StateError, check
from ._frames import Frame, RetainedFrame
from ._info import SessionState
from ._pixfmt import parse_fourcc
from ._raw import lib as _lib
from ._views import _flat_view

if TYPE_CHECKING:
    from ._manager import Manager
    from ._session import Session

__all__ = ["CameraTrack", "VIDEO_CLOCK_RATE"]

log = logging.getLogger("camcore")

#: The clock of the tracks' pts: 90 kHz, RTP's video clock (aiortc's VIDEO_TIME_BASE).
VIDEO_CLOCK_RATE = 90000
_TIME_BASE = Fraction(1, VIDEO_CLOCK_RATE)

_YU12 = parse_fourcc("YU12")
_NV12 = parse_fourcc("NV12")
_RGB3 = parse_fourcc("RGB3")
_BGR3 = parse_fourcc("BGR3")
_GREY = parse_fourcc("GREY")


def _wake(waiter: "asyncio.Future[None]") -> None:
    """Completes a recv() waiter (on the event loop) unless it is done already."""
    if not waiter.done():
        waiter.set_result(None)


class CameraTrack(VideoStreamTrack):
    """An aiortc video track fed by a camcore Session's transmission (S9–S19).

    Args:
        session: the session whose transmission the track sends. The track
            sets its transmission sink (replacing any other) and starts and
            ends its transmission; it never closes it. Ask it for
            ``output="I420"`` (``Manager.session(..., output="I420")``) so
            frames reach aiortc without a copy. None: the track makes its
            own (closed at ``stop()``).
        manager: where the track's own session comes from (it is not
            closed by the track). None: the track makes a ``Manager()`` of
            its own (closed at ``stop()``); set CAMCORE_SYNTHETIC_CAMERA=1
            or pass ``Manager(synthetic=...)`` to use the synthetic camera.
        device_id: the camera of the track's own session (None: the first
            camera that is not infrared, S44). Ignored with ``session``.
        width, height: the preferred size in pixels (S6; the camera may
            give the nearest it has: ``state.format``). Ignored with
            ``session``.
        fps: the highest frame rate wanted (frames per second: an int,
            Fraction, float or (num, den)); min_fps: the lowest acceptable
            (None: no floor). Ignored with ``session``.
        queue_size: frames waiting for ``recv()`` (1–16); when full the
            oldest is dropped (``frames_dropped``). Each waiting frame keeps
            one of the camera's buffers (S23), so keep it small.

    The camera stays off until aiortc starts sending (the first
    ``recv()``) or ``await start()``. Raises what ``Manager()`` and
    ``Manager.session()`` raise (NoDeviceError for an unknown id,
    InvalidArgError).

    Frames: ``recv()`` returns ``av.VideoFrame`` objects whose pixels are
    the camera's buffer itself (I420 -> ``yuv420p``, NV12 -> ``nv12``,
    RGB24/BGR24 -> ``rgb24``/``bgr24``, GREY -> ``gray``), with
    ``time_base`` 1/90000 s and ``pts`` the capture time since
    ``start_timestamp_ns``. Do not write into them.

    Threads: construct, ``recv()`` and the control coroutines belong to
    one asyncio event loop (the one aiortc runs on), and so does
    ``stop()``. The state properties may be read from any thread.
    """

    kind = "video"

    def __init__(self, session: Optional["Session"] = None, manager: Optional["Manager"] = None,
                 device_id: Optional[str] = None, width: int = 640, height: int = 480,
                 fps: Rate = 30, min_fps: Optional[Rate] = 15, queue_size: int = 2) -> None:
        super().__init__()
        self._queue_size = int_in("queue_size", queue_size, 1, 16)
        self._own_manager: Optional["Manager"] = None
        self._own_session = session is None
        if session is None:
            if manager is None:
                from ._manager import Manager
                manager = self._own_manager = Manager()
            try:
                session = manager.session(device_id, width=width, height=height, min_fps=min_fps,
                                          max_fps=fps, output="I420")
            except BaseException:
                if self._own_manager is not None:
                    self._own_manager.close()
                raise
        self._session: "Session" = session
        # Frames from camcore's thread to the loop: guarded by _lock, never held long.
        self._lock = threading.Lock()
        self._frames: Deque[RetainedFrame] = deque()
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._waiter: Optional["asyncio.Future[None]"] = None
        self._wake_pending = False
        self._dropped = 0
        self._sent = 0
        # Transmission control: _ctl orders the worker-thread start against stop().
        self._ctl = threading.Lock()
        self._starting: Optional["asyncio.Future[None]"] = None
        self._started = False
        self._stopped = False
        self._paused = False
        self._held = False
        self._accepting = False    # the sink keeps frames (read on camcore's thread)
        self._t0: Optional[int] = None
        self._last_pts = -1
        #: The last error turning the camera on when recv() started the
        #: transmission by itself (recv() then keeps waiting for frames), or None.
        self.camera_error: Optional[CamcoreError] = None

    # -- state --
    @property
    def session(self) -> "Session":
        """The camcore Session the track transmits from (for previews, device
        events, set_preference...; leave its transmission to the track)."""
        return self._session

    @property
    def state(self) -> "SessionState":
        """The session's state (``Session.state``): ``camera_on`` (S9),
        ``transmitting``, ``paused``, ``held``, ``device_id``, ``format``.
        Raises StateError after ``stop()`` closed the track's own session."""
        return self._session.state

    @property
    def camera_on(self) -> bool:
        """The camera is open and streaming (S9): while the track sends video
        or a preview of the session runs. False once the track's own session
        is closed."""
        if self._session.closed:
            return False
        return self._session.camera_on

    @property
    def paused(self) -> bool:
        """pause() was called and resume() not since (S12)."""
        return self._paused

    @property
    def held(self) -> bool:
        """hold() was called and unhold() not since (S11)."""
        return self._held

    @property
    def frames_sent(self) -> int:
        """Frames recv() has returned."""
        return self._sent

    @property
    def frames_dropped(self) -> int:
        """Camera frames dropped because queue_size frames were already
        waiting for recv() (the consumer was slower than the camera)."""
        return self._dropped

    @property
    def start_timestamp_ns(self) -> Optional[int]:
        """The CLOCK_MONOTONIC time, in nanoseconds, that pts 0 stands for (the
        capture time of the first frame recv() returned); None before it."""
        return self._t0

    # -- camcore's side: the transmission sink (capture thread) --
    def _on_frame(self, frame: Frame) -> None:
        """The session's transmission sink (S15), on camcore's capture thread:
        keeps the frame (retain, S23) in the bounded queue, drops the oldest
        when full, wakes a waiting recv(). Never blocks. A frame the driver
        flagged corrupted (S26) is not sent."""
        if not self._accepting or frame.corrupted:
            return
        kept = frame.retain()
        old: Optional[RetainedFrame] = None
        loop: Optional[asyncio.AbstractEventLoop] = None
        waiter: Optional["asyncio.Future[None]"] = None
        with self._lock:
            if len(self._frames) >= self._queue_size:
                old = self._frames.popleft()
                self._dropped += 1
            self._frames.append(kept)
            if self._waiter is not None and not self._wake_pending:
                self._wake_pending = True
                loop, waiter = self._loop, self._waiter
        if old is not None:
            old.release()
        if loop is not None and waiter is not None:
            try:
                loop.call_soon_threadsafe(self._wake_waiter, waiter)
            except RuntimeError:   # the loop is closed: nobody will recv()
                pass

    def _wake_waiter(self, waiter: "asyncio.Future[None]") -> None:
        with self._lock:
            self._wake_pending = False
        _wake(waiter)

    def _flush(self) -> None:
        """Releases the frames waiting for recv()."""
        with self._lock:
            frames = list(self._frames)
            self._frames.clear()
        for f in frames:
            f.release()

    # -- aiortc's side --
    async def recv(self) -> "av.VideoFrame":
        """The next camera frame as an ``av.VideoFrame`` (aiortc calls this).

        The first call starts the session's transmission (S10: the camera
        turns on). Waits while no frame is queued: while paused or held
        that is until resume()/unhold(); it never sends a frame twice.
        A camera that fails to turn on here is logged and kept in
        ``camera_error``, and recv() goes on waiting (the session retries
        at the next change, S25 falls back to another camera).

        Raises aiortc's MediaStreamError once the track is stopped (the
        sender then ends).
        """
        if self.readyState != "live":
            raise MediaStreamError
        loop = asyncio.get_running_loop()
        with self._lock:
            self._loop = loop
        if not self._started:
            try:
                await self.start()
            except CamcoreError as e:
                self.camera_error = e
                log.warning("camcore.aiortc: the camera did not turn on: %s", e)
        while True:
            with self._lock:
                stopped = self._stopped   # stop() sets it before it looks for a waiter
                kept = self._frames.popleft() if self._frames and not stopped else None
                if kept is None and not stopped:
                    waiter = self._waiter = loop.create_future()
            if stopped:
                raise MediaStreamError
            if kept is not None:
                break
            try:
                await waiter
            finally:
                with self._lock:
                    if self._waiter is waiter:
                        self._waiter = None
            if self.readyState != "live":
                raise MediaStreamError
        try:
            video = self._video_frame(kept)
        finally:
            kept.release()   # the av frame's buffer holds its own retain when it shares the pixels
        self._sent += 1
        return video

    def _video_frame(self, kept: RetainedFrame) -> "av.VideoFrame":
        """kept as an av.VideoFrame with pts/time_base set: its buffer wrapped
        when PyAV takes the layout, else converted once by camcore."""
        c = kept._c()
        w, h = c.width, c.height
        video = self._wrap(kept, c)
        if video is None:
            video = self._converted(kept, w, h)
        ts = c.timestamp_ns
        if self._t0 is None:
            self._t0 = ts
        pts = (ts - self._t0) * VIDEO_CLOCK_RATE // 1_000_000_000
        if pts <= self._last_pts:   # never backwards, never twice (a camera switch)
            pts = self._last_pts + 1
        self._last_pts = pts
        video.pts = pts
        video.time_base = _TIME_BASE
        return video

    @staticmethod
    def _wrap(kept: RetainedFrame, c: Any) -> Optional["av.VideoFrame"]:
        """The frame's own buffer as an av.VideoFrame (no copy), or None when
        PyAV cannot take its format or layout as it is. The numpy array PyAV
        keeps holds one more retain of the buffer (S23)."""
        w, h, n = c.width, c.height, c.plane_count
        p = [c.planes[i] for i in range(min(n, 3))]
        if not p or not p[0].data or w == 0 or h == 0:
            return None
        s = p[0].stride
        base = p[0].data
        fmt: Optional[str] = None
        if c.fourcc in (_YU12, _NV12) and s % 2 == 0 and s >= w and h % 4 == 0:
            # One buffer, chroma right after luma: PyAV's from_numpy_buffer
            # layout, a (h * 3 / 2, stride) array.
            if c.fourcc == _YU12 and n == 3:
                cs = s // 2
                ok = (p[1].data == base + s * h and p[1].stride == cs and p[2].stride == cs
                      and p[2].data == p[1].data + cs * (h // 2)
                      and p[2].length >= cs * (h // 2))
                fmt = "yuv420p" if ok else None
            elif c.fourcc == _NV12 and n == 2:
                ok = p[1].data == base + s * h and p[1].stride == s and p[1].length >= s * (h // 2)
                fmt = "nv12" if ok else None
            if fmt is None:
                return None
            shape: tuple[int, ...] = (h * 3 // 2, s)
            strides: tuple[int, ...] = (s, 1)
            size = s * h * 3 // 2
        elif c.fourcc in (_RGB3, _BGR3) and n == 1 and s >= 3 * w:
            fmt = "rgb24" if c.fourcc == _RGB3 else "bgr24"
            shape, strides = (h, w, 3), (s, 3, 1)
            size = s * (h - 1) + 3 * w
        elif c.fourcc == _GREY and n == 1 and s >= w:
            fmt = "gray"
            shape, strides = (h, w), (s, 1)
            size = s * (h - 1) + w
        else:
            return None
        if fmt in ("rgb24", "bgr24", "gray") and p[0].length < size:
            return None
        own = kept.retain()        # released when PyAV frees the array
        buf, flat = _flat_view(base, size)
        buf._camcore_frame = own   # the ctypes array under the numpy view keeps the retain
        arr = numpy.ndarray(shape, numpy.uint8, flat, 0, strides)
        if fmt in ("yuv420p", "nv12"):
            return av.VideoFrame.from_numpy_buffer(arr, fmt, width=w)
        return av.VideoFrame.from_numpy_buffer(arr, fmt)

    @staticmethod
    def _converted(kept: RetainedFrame, w: int, h: int) -> "av.VideoFrame":
        """kept converted by camcore (camcore_frame_convert, S8) into a new
        buffer PyAV wraps: I420 when PyAV takes its size, else RGB24. The one
        copy of the path (and an MJPEG frame's decode)."""
        even = w % 2 == 0 and h % 4 == 0
        code, fmt = (_YU12, "yuv420p") if even else (_RGB3, "rgb24")
        n = c_uint32()
        check(_lib.camcore_pixel_format_frame_size(code, w, h, byref(n)), "CameraTrack: frame size")
        out = numpy.empty(n.value, numpy.uint8)
        check(_lib.camcore_frame_convert(kept._ptr, code, 0, 0, out.ctypes.data, n.value),
              f"CameraTrack: converting {kept.fourcc} {w}x{h} to {fmt}")
        if even:
            return av.VideoFrame.from_numpy_buffer(out.reshape(h * 3 // 2, w), fmt)
        return av.VideoFrame.from_numpy_buffer(out.reshape(h, w, 3), fmt)

    # -- control (event loop; session calls in a worker thread) --
    def _check_live(self, what: str) -> None:
        if self._stopped or self.readyState != "live":
            raise StateError(f"CameraTrack.{what}: the track is stopped")

    async def start(self) -> None:
        """Starts the session's transmission now (S10) instead of at the
        first recv(): the camera turns on (unless pause()d or hold()ed
        before), frames queue for aiortc. Returns when the camera is on.
        Calling it again does nothing. Raises StateError (stopped track) or
        the camera's error (BusyError, AccessError, ...; the transmission
        stays started and the session retries at the next change)."""
        self._check_live("start()")
        if self._started:
            return
        if self._starting is None:
            self._starting = asyncio.ensure_future(asyncio.to_thread(self._start_blocking))
        await asyncio.shield(self._starting)

    def _start_blocking(self) -> None:
        """start()'s work, in a worker thread, ordered against stop() by _ctl."""
        s = self._session
        with self._ctl:
            if self._stopped:
                return
            self._started = True
            self._accepting = not (self._paused or self._held)
            s.set_transmission_sink(self._on_frame)
            st = s.state
            if st.transmitting:
                # The app started it: the track takes it over as it is.
                if st.paused != self._paused:
                    if self._paused:
                        s.pause_video()
                    else:
                        s.resume_video()
                if st.held != self._held:
                    if self._held:
                        s.hold()
                    else:
                        s.unhold()
                return
            s.start_transmission(initial="pause" if self._paused else "resume")
            if self._held:
                s.hold()

    async def _control(self, what: str, call: Callable[[], None]) -> None:
        """Runs a session call that waits for the camera in a worker thread."""
        self._check_live(what)
        await asyncio.to_thread(call)

    async def pause(self) -> None:
        """The user turns their video off (S12, Session.pause_video()): nothing
        more is sent (frames already queued are dropped), the connection
        stays up, the camera turns off unless a preview runs. Returns when
        it is off. Raises StateError (stopped track)."""
        self._check_live("pause()")
        self._paused = True
        self._accepting = False
        self._flush()
        if self._started:
            await self._control("pause()", self._session.pause_video)
        self._flush()

    async def resume(self) -> None:
        """The user turns their video back on (S12, Session.resume_video()):
        the camera turns on (unless held) and frames flow again. Returns when
        it is on. Raises StateError (stopped track) or the camera's error
        (the session keeps the resumed state and retries at the next change)."""
        self._check_live("resume()")
        self._paused = False
        self._accepting = not self._held
        if self._started:
            await self._control("resume()", self._session.resume_video)

    async def hold(self) -> None:
        """The call is put on hold (S11, Session.hold()): nothing is sent, the
        camera turns off unless a preview runs. Raises StateError (stopped)."""
        self._check_live("hold()")
        self._held = True
        self._accepting = False
        self._flush()
        if self._started:
            await self._control("hold()", self._session.hold)
        self._flush()

    async def unhold(self) -> None:
        """The call is taken off hold (S11, Session.unhold()): video as before
        the hold (paused stays paused). Raises StateError (stopped track) or
        the camera's error."""
        self._check_live("unhold()")
        self._held = False
        self._accepting = not self._paused
        if self._started:
            await self._control("unhold()", self._session.unhold)

    async def flip(self) -> None:
        """Switches to the camera facing the other way (S19, Session.flip():
        front <-> back, else the next camera) at the nearest format and rate;
        the call goes on with its frames. Returns when the switch took effect.
        Raises NoDeviceError (no other camera), CustomSourceActiveError,
        StateError (stopped track), CamcoreTimeoutError (10 s)."""
        await self._control("flip()", self._session.flip)

    async def select(self, device_id: str) -> None:
        """Switches to camera device_id keeping the preferred setting (S18,
        Session.select()). Raises NoDeviceError (unknown id),
        CustomSourceActiveError, StateError (stopped track)."""
        def call() -> None:
            self._session.select(device_id)
        await self._control(f"select({device_id!r})", call)

    def stop_when_closed(self, pc: Any) -> None:
        """Stops this track when the aiortc RTCPeerConnection pc closes
        (connectionState "closed": pc.close(), or the remote side hung up
        and aiortc closed it). aiortc itself never stops a track whose
        connection closed (as browsers do not), so without this the camera
        stays on until stop()."""
        def on_state() -> None:
            if pc.connectionState == "closed":
                self.stop()
        pc.on("connectionstatechange", on_state)

    def stop(self) -> None:
        """Ends the track (aiortc's MediaStreamTrack.stop()): the session's
        transmission ends and its sink is removed, so the camera turns off
        unless a preview of the session runs (S9); the track's own session
        and manager are closed. When it returns no frame is queued any more
        and a waiting recv() raises MediaStreamError; the "ended" event is
        emitted. Call it on the event loop's thread, as any aiortc track's
        stop() (it waits while the camera turns off: the device is closed);
        stopping twice is fine; it never raises (a session error is logged)."""
        with self._ctl:
            if self._stopped:
                return
            self._stopped = True
            self._accepting = False
            s = self._session
            try:
                if not s.closed:
                    s.set_transmission_sink(None)
                    if self._started:
                        s.end_transmission()
            except CamcoreError as e:
                log.warning("camcore.aiortc: ending the transmission: %s", e)
            finally:
                if self._own_session:
                    s.close()
                if self._own_manager is not None:
                    self._own_manager.close()
        self._flush()
        with self._lock:
            loop, waiter = self._loop, self._waiter
        if loop is not None and waiter is not None:
            try:
                loop.call_soon_threadsafe(_wake, waiter)
            except RuntimeError:   # the loop is closed
                pass
        super().stop()

    def __repr__(self) -> str:
        state = "stopped" if self._stopped else (
            "paused" if self._paused else "held" if self._held else
            "sending" if self._started else "not started")
        return (f"<camcore.aiortc.CameraTrack {state}, {self._sent} frames sent, "
                f"{self._dropped} dropped>")
