# SPDX-License-Identifier: MIT
"""The capturer: one open camera, streaming into callbacks or pulled frame by frame.

    with camcore.Manager() as m, m.open(m.devices()[0].id) as cap:
        setting = m.negotiate(cap.device_id, 1280, 720, min_fps=15, max_fps=30)
        frames = cap.capture(10, setting)                # copies, in capture order
        for frame in cap.frames(30, setting):            # pulled: no callback per frame
            print(frame.sequence, frame.array.shape)     # valid until the next one
        cap.start(setting, on_frame=lambda f: ...)       # callbacks on the capture thread
        cap.stop()

Threading: every method may be called from any thread. ``on_frame``,
``on_error`` and ``on_stall`` run on the capturer's own capture thread (one
the library creates), one frame at a time, in capture order. When
``stop()`` or ``close()`` returns, no callback of the capturer runs again
(so whatever they use may be freed). ``close()`` never fails: from inside
the capturer's own callback no other callback starts and the device is
closed on a camcore thread once that callback returns; ``stop()`` from there
raises WouldDeadlockError instead of hanging. An exception raised by a callback never reaches C: it is caught,
frames keep coming, and the first one is re-raised by ``stop()`` (or
``capture()``), or logged by ``close()``.
"""
from __future__ import annotations

import atexit
import ctypes
import logging
import threading
import time
from ctypes import POINTER, byref, c_int32, c_int64, sizeof
from fractions import Fraction
from typing import (TYPE_CHECKING, Any, AsyncIterator, Callable, Iterator, List, Optional, Set, cast,
                    Tuple, Union)

from . import _raw
from ._args import (I32_MAX, I64_MAX, I64_MIN, Rate, c_fraction, callable_or_none, count_arg, cstr,
                    flag, int_in, output_size_arg, timeout_ms, timeout_s, u32)
from ._args import frac
from ._controls import STRING_CONTROL_MAX, Control, ControlChange, control_key
from ._controls import control_id as _control_id
from ._closing import Closing
from ._errors import (CamcoreError, CamcoreTimeoutError, InvalidArgError, InvalidArgValueError, NotSupportedError, text_out,
                      StateError, WouldDeadlockError, _s, check, error_for_status,
                      last_error_message)
from ._frames import CapturedFrame, Frame, RetainedFrame
from ._views import _get_ident
from ._pull import _next_frames
from ._info import CaptureFormat, CaptureStats, Setting, capture_format_from_c
from ._pixfmt import FourCC, fourcc_str, output_fourcc, parse_fourcc
from ._raw import (PULL_DEPTH_MAX, PULL_DEPTH_MIN, ON_CONTROL_CHANGED, ON_ERROR, ON_FRAME, ON_RESTART, ON_STALL, camcore_capture_config,
                   camcore_capture_stats, camcore_capture_format, camcore_control_callbacks,
                   camcore_control_list, camcore_frame, camcore_frame_callbacks, frame_p)
from ._raw import lib as _lib

if TYPE_CHECKING:
    from ._manager import Manager

log = logging.getLogger("camcore")

#: What start(), capture(), frames() and Session.start() take as their first
#: setting argument: a pixel format name or code, or a whole Setting from
#: Manager.negotiate()/format_for() (which then gives the size and rate too).
FormatOrSetting = Union[FourCC, Setting]


def stall_restart_ms(stall_restart: Optional[float]) -> int:
    """S48's stall_restart argument (seconds; None: never) in milliseconds."""
    if stall_restart is None:
        return 0
    if isinstance(stall_restart, bool) or not isinstance(stall_restart, (int, float)) \
            or not 0 <= stall_restart <= 600:
        raise InvalidArgValueError(f"stall_restart={stall_restart!r}: seconds, 0...600, or None (never)")
    return int(round(stall_restart * 1000))


def capture_config(fourcc: FormatOrSetting, width: int, height: int, fps: Optional[Rate],
                   buffer_count: int, output: Optional[FourCC] = None, dmabuf: bool = False,
                   output_size: Optional[Tuple[int, int]] = None, stall_restart: Optional[float] = 3.0,
                   stall_restart_tries: int = 3, rotation: int = 0) -> camcore_capture_config:
    """A camcore_capture_config from the arguments start() takes. A Setting in
    place of the FourCC brings its fourcc, size and rate (and its output format
    unless `output` is given); its fps None keeps the driver's rate."""
    if isinstance(fourcc, Setting):
        setting = fourcc
        fourcc, width, height, fps = setting.fourcc_code, setting.width, setting.height, setting.fps
        if output is None:
            output = setting.output
    cfg = camcore_capture_config()
    _lib.camcore_capture_config_init(byref(cfg))
    cfg.fourcc = parse_fourcc(fourcc)
    cfg.width = u32("width", width)
    cfg.height = u32("height", height)
    cfg.fps = c_fraction(fps)
    cfg.buffer_count = u32("buffer_count", buffer_count)
    cfg.output_fourcc = output_fourcc(output)
    cfg.dmabuf = 1 if flag("dmabuf", dmabuf) else 0
    cfg.output_width, cfg.output_height = output_size_arg(output_size)
    cfg.stall_restart_ms = stall_restart_ms(stall_restart)
    cfg.stall_restart_tries = u32("stall_restart_tries", stall_restart_tries)
    cfg.output_rotation = u32("rotation", rotation)
    return cfg


# Capturers C may call back into are kept here (strong references), so that
# neither they nor their CFUNCTYPE thunks are collected while streaming.
_live_lock = threading.Lock()
_live: Set["Capturer"] = set()
# Which capturer's callback is running on this thread (stop() is refused there).
_tls = threading.local()
# Thunks of capturers closed from inside their own callback: C finishes the
# close on its thread once that callback returned and calls none of them
# again, but the running one must outlive its own return. Kept until exit.
_closed_in_callback: List[Any] = []


def _close_all_at_exit() -> None:
    with _live_lock:
        caps = list(_live)
    for cap in caps:
        try:
            cap.close()
        except Exception:
            pass


atexit.register(_close_all_at_exit)

OnFrame = Callable[[Frame], None]
OnError = Callable[[CamcoreError], None]
#: on_stall(stalled, since_ns): frames stopped (True) or came back (False);
#: since_ns is the CLOCK_MONOTONIC time of the last frame before the stall.
OnStall = Callable[[bool, int], None]
#: on_restart(restarted, attempt): S48's restart of a stalled stream.
OnRestart = Callable[[bool, int], None]
#: on_control_changed(change): a control's value, flags or range changed.
OnControlChanged = Callable[[ControlChange], None]


class Capturer(Closing):
    """One open camera device (camcore_capturer). Use as a context manager.

    Created by Manager.open(). close() (or leaving the `with` block) stops
    streaming and closes the device; after it, every method raises
    StateError. It keeps its Manager alive; closing the Manager closes it.
    """

    def __init__(self, handle: int, device_id: str, manager: Optional["Manager"] = None) -> None:
        self._manager = manager       # kept alive by its capturers (its close closes them)
        self._handle: Optional[int] = handle
        self._device_id = device_id
        self._lock = threading.Lock()
        self._thunks: Any = None     # (callbacks struct, ON_FRAME, ON_ERROR) C may call
        self._control_thunk: Any = None
        self._generation = 0         # bumped by each start
        self._loop_run = 0           # the run a frames()/aframes() loop started (0: none)
        # Held while a frames()/aframes() loop starts its capture or stops it
        # at its end, so an earlier loop's end never stops a later loop's capture.
        self._loop_lock = threading.Lock()
        # aframes() loops waiting for the frame fd: (event loop, future), woken
        # by a take-over (the fd is shared, and the new loop's first look may
        # clear a wake meant for them).
        self._async_waiters: Set[Tuple[Any, Any]] = set()
        self._fd_reader: Optional[Tuple[Any, Any]] = None   # the waiter whose add_reader is in place
        self._runs = 0               # captures started (start, start_pull): frames() stops only its own
        self._cb_thread: Optional[int] = None   # the capture thread calling on_frame
        self._callback_exc: Optional[BaseException] = None
        self._callback_exc_count = 0
        self._callback_exc_reported = True
        #: The error that ended streaming on its own (on_error), or None.
        self.last_error: Optional[CamcoreError] = None

    # -- helpers --
    def _h(self) -> int:
        h = self._handle
        if h is None:
            raise StateError(f"capturer for {self._device_id!r} is closed")
        return h

    def _in_own_callback(self) -> bool:
        # Python runs on a capture thread only inside its callbacks: on_frame
        # notes the thread (cheaper per frame than setting _tls twice).
        t = self._cb_thread
        return (t is not None and t == _get_ident()) or getattr(_tls, "capturer", None) is self

    def _make_thunks(self, on_frame: Optional[OnFrame], on_error: Optional[OnError],
                     on_stall: Optional[OnStall] = None, on_restart: Optional[OnRestart] = None) -> Tuple[Any, ...]:
        def frame_thunk(_user_data: Any, frame_ptr: Any) -> None:
            self._cb_thread = _get_ident()
            frame = Frame(frame_ptr)
            try:
                on_frame(frame)  # type: ignore[misc]  # only installed with an on_frame
            except BaseException as e:  # never let it reach C; report from stop()
                self._store_callback_exception(e)
            finally:
                frame._invalidate()

        def error_thunk(_user_data: Any, status: int, message: Optional[bytes]) -> None:
            prev = getattr(_tls, "capturer", None)
            _tls.capturer = self
            try:
                err = error_for_status(status, f"capture on {self._device_id!r} ended",
                                       _s(message))
                self.last_error = err
                if on_error is not None:
                    on_error(err)
                else:
                    log.error("%s", err.message)
            except BaseException as e:
                self._store_callback_exception(e)
            finally:
                _tls.capturer = prev
                self._cb_thread = None   # the thread ends after this call

        def marked(call: Callable[[], None]) -> None:
            """Runs an app callback as this capturer's (re-entrancy mark set);
            what it raises is kept for stop()."""
            prev = getattr(_tls, "capturer", None)
            _tls.capturer = self
            try:
                call()
            except BaseException as e:
                self._store_callback_exception(e)
            finally:
                _tls.capturer = prev

        def stall_thunk(_user_data: Any, stalled: int, since_ns: int) -> None:
            marked(lambda: on_stall(bool(stalled), since_ns))  # type: ignore[misc]  # only installed with one

        def restart_thunk(_user_data: Any, restarted: int, attempt: int) -> None:
            marked(lambda: on_restart(bool(restarted), attempt))  # type: ignore[misc]  # only installed with one

        cbs = camcore_frame_callbacks()
        _lib.camcore_frame_callbacks_init(byref(cbs))
        f = ON_FRAME(frame_thunk) if on_frame is not None else ON_FRAME()
        e = ON_ERROR(error_thunk)
        st = ON_STALL(stall_thunk) if on_stall is not None else ON_STALL()
        rs = ON_RESTART(restart_thunk) if on_restart is not None else ON_RESTART()
        cbs.on_frame = f
        cbs.on_error = e
        cbs.on_stall = st
        cbs.on_restart = rs
        return cbs, f, e, st, rs

    def _store_callback_exception(self, exc: BaseException) -> None:
        with self._lock:
            self._callback_exc_count += 1
            if self._callback_exc is None:
                self._callback_exc = exc
                self._callback_exc_reported = False
                return
        log.debug("camcore: further exception in callback: %r", exc)

    def _take_callback_exception(self) -> Optional[BaseException]:
        with self._lock:
            exc, count = self._callback_exc, self._callback_exc_count
            reported = self._callback_exc_reported
            self._callback_exc_reported = True
        if exc is None or reported:
            return None
        if count > 1:
            exc.add_note(f"(raised in a camcore callback; {count} callback exceptions in all, "
                         "this is the first)")
        else:
            exc.add_note("(raised in a camcore callback)")
        return exc

    def _forget_thunks(self, generation: int) -> None:
        with self._lock:
            if self._generation != generation:
                return  # a newer start registered its own thunks
            self._thunks = None
        with _live_lock:
            _live.discard(self)

    # -- public API --
    @property
    def device_id(self) -> str:
        """The id of the device this capturer was opened on (camcore_capturer_device_id)."""
        return _s(_lib.camcore_capturer_device_id(self._h()))

    @property
    def closed(self) -> bool:
        """True after close()."""
        return self._handle is None

    @property
    def streaming(self) -> bool:
        """True while the capturer streams (camcore_capturer_is_streaming)."""
        return bool(_lib.camcore_capturer_is_streaming(self._h()))

    @property
    def fd(self) -> int:
        """The device's file descriptor, for what camcore does not cover itself (S28: the
        native fd, e.g. for array controls through ioctl). Borrowed: do not close it.

        Raises NotSupportedError for the synthetic camera.
        """
        return check(_lib.camcore_capturer_fd(self._h()), "Capturer.fd")

    @property
    def format(self) -> CaptureFormat:
        """The format, strides and rate the driver applied (StateError if never started)."""
        out = camcore_capture_format()
        out.struct_size = sizeof(camcore_capture_format)
        check(_lib.camcore_capturer_get_format(self._h(), byref(out)),
               "Capturer.format")
        n = min(out.plane_count, 3)
        return CaptureFormat(
            fourcc=fourcc_str(out.fourcc), width=out.width, height=out.height,
            plane_count=out.plane_count, strides=[out.strides[i] for i in range(n)],
            frame_bytes=out.frame_bytes, fps=frac(out.fps), buffer_count=out.buffer_count,
            source_fourcc=fourcc_str(out.source_fourcc), adjusted=out.adjusted)

    @property
    def frame_note(self) -> str:
        """What camcore last found of this capture's frame geometry (S43): a frame
        of another consistent size than negotiated (delivered with its true size;
        format() follows, "size" adjusted) or one that fits no geometry (flagged
        corrupted), and why; "" while every frame fits. Cleared at start."""
        return text_out(_lib.camcore_capturer_get_frame_note, self._h(), "Capturer.frame_note")

    @property
    def stats(self) -> CaptureStats:
        """Frames delivered, dropped and corrupted since the last start."""
        out = camcore_capture_stats()
        out.struct_size = sizeof(camcore_capture_stats)
        check(_lib.camcore_capturer_get_stats(self._h(), byref(out)),
               "Capturer.stats")
        return CaptureStats(out.frames_delivered, out.frames_dropped, out.frames_corrupted,
                            out.measured_fps, out.stalls, out.restarts)

    def start(self, fourcc: FormatOrSetting = "YUYV", width: int = 640, height: int = 480,
              fps: Optional[Rate] = 30,
              on_frame: Optional[OnFrame] = None, on_error: Optional[OnError] = None,
              buffer_count: int = 4, output: Optional[FourCC] = None,
              on_stall: Optional[OnStall] = None, dmabuf: bool = False,
              output_size: Optional[Tuple[int, int]] = None, stall_restart: Optional[float] = 3.0,
              stall_restart_tries: int = 3, on_restart: Optional[OnRestart] = None, rotation: int = 0) -> None:
        """Sets the format and rate and starts streaming (camcore_capturer_start).

        Args:
            fourcc: pixel format, 'YUYV', 'YU12', 'NV12', ... or its int code; the
                names 'I420' (-> 'YU12'), 'MJPEG', 'RGB24', 'BGR24' are accepted too.
                Frames report the V4L2 FourCC ('YU12' for I420). Or a Setting from
                Manager.negotiate()/format_for(), which gives fourcc, width,
                height and fps (and output, unless given here).
            width, height: size in pixels; the driver may round it (see .format).
            fps: frames per second as int, Fraction, float or (num, den); None keeps
                the driver's rate. The driver may round it (see .format).
            on_frame: called as on_frame(frame: Frame) for every frame, on the
                capture thread (not the caller's), one at a time. The Frame is
                borrowed for the call. Exceptions it raises are caught; the first
                is re-raised by stop() (or capture()), later ones are counted.
            on_error: called as on_error(error: CamcoreError) on the capture thread
                when streaming ends on its own (device gone, I/O error). Without
                it the error is logged; either way it is kept in .last_error.
            buffer_count: mmap buffers to request, 2..32.
            output: the pixel format frames are delivered in (S8): 'I420', 'NV12',
                'YUYV', 'RGB24', 'BGR24', 'RGBA', or None / 'native' (default) for
                the driver's buffers as they are, zero-copy. Converting happens on
                the capture thread; .format.source_fourcc tells the driver's format.
            on_stall: called as on_stall(stalled: bool, since_ns: int) on the capture
                thread when no frame came for longer than max(1 s, 5 frame
                intervals) (True; counted in .stats.stalls) and just before the
                next frame (False); since_ns is the CLOCK_MONOTONIC time of the
                last frame before the stall.
            stall_restart: seconds a stall may last before the stream is restarted,
                stream off and on again (S48; default 3.0, None or 0: never);
                stall_restart_tries restarts (default 3) are made before a stall
                that goes on ends the stream (on_error: CamcoreTimeoutError); a
                frame resets the count. Counted in .stats.restarts.
            on_restart: called as on_restart(restarted: bool, attempt: int) on the
                capture thread just before a restart (False) and once the stream
                is on again (True).
            rotation: turn the output by 0, 90, 180 or 270 degrees clockwise (S45;
                e.g. DeviceInfo.rotation, to show a sensor mounted rotated
                upright); 90 and 270 swap width and height. Needs `output` (I420,
                NV12, RGB24, BGR24, RGBA).
            dmabuf: True exports the buffers as DMA-BUF (S37): frame.dmabuf gives
                each plane's (fd, offset). V4L2 devices, native output only
                (NotSupportedError otherwise).
            output_size: (width, height) frames are delivered at (S38), scaled by
                camcore (libyuv box filter; MJPEG decoded at a DCT scale first),
                exactly that size (stretched, not cropped); needs `output`. None
                (default) keeps the captured size. InvalidArgError for one side 0,
                no output, a side above 16384 or 4x the captured one, or an odd
                side the output's chroma needs even (I420/NV12 both, YUYV width).

        Raises InvalidArgError, StateError (already streaming), NotSupportedError
        (no such pixel format), BusyError, NoDeviceError, CamcoreIOError, NoMemoryError,
        WouldDeadlockError (called from this capturer's callback).
        The callables are kept alive until stop() or close() returns.
        """
        h = self._h()
        on_frame = callable_or_none("on_frame", on_frame)
        on_error = callable_or_none("on_error", on_error)
        on_stall = callable_or_none("on_stall", on_stall)
        on_restart = callable_or_none("on_restart", on_restart)
        cfg = capture_config(fourcc, width, height, fps, buffer_count, output, dmabuf, output_size,
                             stall_restart, stall_restart_tries, rotation)
        thunks = self._make_thunks(on_frame, on_error, on_stall, on_restart)
        with self._lock:
            self._generation += 1
            generation = self._generation
            previous = self._thunks
            # Keep an older set too if C might still call it (start failing with STATE).
            self._thunks = (thunks, previous) if previous is not None else (thunks,)
            self._callback_exc = None
            self._callback_exc_count = 0
            self._callback_exc_reported = True
            self.last_error = None
        with _live_lock:
            _live.add(self)
        status = _lib.camcore_capturer_start(h, byref(cfg), byref(thunks[0]))
        if status < 0:
            err = error_for_status(status, "Capturer.start()", last_error_message())
            with self._lock:
                if self._generation == generation:
                    # Restore what was there: the failed start's thunks are never called.
                    self._thunks = previous
                    if previous is None:
                        with _live_lock:
                            _live.discard(self)
            raise err
        self._runs += 1

    def stop(self) -> None:
        """Stops streaming (camcore_capturer_stop). Stopping a stopped capturer is OK.

        When it returns no callback runs again. Then, if on_frame or on_error
        raised, the first such exception is re-raised here (once).
        Raises WouldDeadlockError when called from this capturer's own callback.
        """
        h = self._h()
        generation = self._generation
        status = _lib.camcore_capturer_stop(h)
        if self._in_own_callback():
            # Never drop the thunks of a callback that is running right now.
            check(status, "Capturer.stop()")
            raise WouldDeadlockError(
                "Capturer.stop() was let through from inside its own callback (library bug)")
        check(status, "Capturer.stop()")
        self._cb_thread = None
        self._forget_thunks(generation)
        exc = self._take_callback_exception()
        if exc is not None:
            raise exc

    def close(self) -> None:
        """Stops and closes the device (camcore_capturer_close). Closing twice is OK;
        it never fails.

        When it returns no callback runs again and the fd is closed; retained
        frames stay valid until released. A callback exception not yet
        re-raised by stop() is logged. Called from inside this capturer's own
        callback, no other callback starts, and the device is closed on a camcore
        thread right after that callback returns.
        """
        inside = self._in_own_callback()
        with self._lock:
            h, self._handle = self._handle, None
            generation = self._generation
        if h is None:
            return
        _lib.camcore_capturer_close(h)
        if inside:
            # The running thunk must outlive its own return: keep them all.
            with _live_lock:
                _closed_in_callback.append((self._thunks, self._control_thunk))
                _live.discard(self)
            return
        self._cb_thread = None
        self._forget_thunks(generation)
        exc = self._take_callback_exception()
        if exc is not None:
            log.error("camcore: exception in a callback of %r", self._device_id,
                      exc_info=(type(exc), exc, exc.__traceback__))

    def capture(self, n: int, fourcc: FormatOrSetting = "YUYV", width: int = 640,
                height: int = 480, fps: Optional[Rate] = 30,
                timeout: Optional[float] = None, buffer_count: int = 4,
                output: Optional[FourCC] = None,
                output_size: Optional[Tuple[int, int]] = None) -> List[CapturedFrame]:
        """Starts, collects n frames as copies, stops; returns them in capture order.

        fourcc (or a Setting), width, height, fps, output and output_size are
        start()'s. Blocks the calling thread until n frames came, or `timeout`
        seconds passed. The default timeout (None) follows n and the rate the
        driver applied: the time n frames take at that rate, twice over, plus
        3 s for the camera to start (the first frames of a real camera can take
        a second); so capture(300, fps=5) waits up to 123 s, capture(10) at
        30 fps up to 3.7 s.

        Never throws away the frames it got: when fewer than n came in time it
        raises CamcoreTimeoutError (a TimeoutError) whose ``.frames`` holds
        those that did; when streaming ended on its own (device gone, I/O
        error) that error is raised with ``.frames`` likewise; an exception of
        the internal callback (e.g. numpy missing) is re-raised the same way.
        """
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise InvalidArgError(f"capture(n={n!r}): n is an int >= 0")
        # The one timeout rule (inf: no limit); None here means the default below.
        limit = timeout_s(timeout) if timeout is not None else self._capture_timeout(n, fourcc, fps)
        frames: List[CapturedFrame] = []
        done = threading.Event()
        errors: List[CamcoreError] = []
        if n == 0:
            done.set()

        def on_frame(frame: Frame) -> None:
            if len(frames) < n:
                frames.append(frame.copy())
                if len(frames) >= n:
                    done.set()

        def on_error(err: CamcoreError) -> None:
            errors.append(err)
            done.set()

        self.start(fourcc, width=width, height=height, fps=fps, on_frame=on_frame,
                   on_error=on_error, buffer_count=buffer_count, output=output,
                   output_size=output_size)
        try:
            got = done.wait(limit)
        except BaseException:
            self._stop_keeping(frames)
            raise
        self._stop_keeping(frames)
        if errors:
            errors[0].frames = frames[:n]
            raise errors[0]
        if not got and len(frames) < n:   # (the last one may come as the wait ends)
            err = CamcoreTimeoutError(
                f"Capturer.capture({n}): {len(frames)} of {n} frames came within {limit or 0:.3g} s",
                status=_raw.E_TIMEOUT)
            err.frames = frames[:n]
            raise err
        return frames[:n]

    def _capture_timeout(self, n: int, fourcc: FormatOrSetting, fps: Optional[Rate]) -> float:
        """capture()'s default timeout: 3 s + twice the time of n frames at the
        applied rate (the requested one if the driver does not say; 1 fps if
        neither is known)."""
        rate: Optional[Fraction] = None
        try:
            rate = self.format.fps
        except CamcoreError:
            pass
        if not rate:
            want = fourcc.fps if isinstance(fourcc, Setting) else fps
            try:
                c = c_fraction(want)
                rate = Fraction(c.numerator, c.denominator) if c.denominator and c.numerator else None
            except CamcoreError:
                rate = None
        return 3.0 + 2.0 * n / float(rate or 1)

    def _stop_keeping(self, frames: List[CapturedFrame]) -> None:
        """stop(); an exception it re-raises from the callback carries `frames`."""
        try:
            self.stop()
        except BaseException as e:
            try:
                e.frames = list(frames)  # type: ignore[attr-defined]
            except AttributeError:
                pass
            raise

    # -- controls (S27) --
    def controls(self) -> List[Control]:
        """Every control of the device with its description (camcore_capturer_list_controls).
        Empty for the synthetic camera. Raises StateError after close()."""
        out = POINTER(camcore_control_list)()
        check(_lib.camcore_capturer_list_controls(self._h(), byref(out)),
               "Capturer.controls()")
        try:
            lst = out.contents
            return [Control(self, lst.controls[i]) for i in range(lst.count)]
        finally:
            _lib.camcore_control_list_free(out)

    def control(self, name_or_id: Union[str, int]) -> Control:
        """One control by id (int, e.g. camcore.CID_BRIGHTNESS), short name
        ("brightness", "gain_automatic") or full name ("Gain, Automatic").
        Raises NotSupportedError when the device has no such control."""
        controls = self.controls()
        for c in controls:
            if isinstance(name_or_id, int):
                if c.id == name_or_id:
                    return c
            elif c.key == control_key(name_or_id) or c.name.lower() == name_or_id.lower():
                return c
        what = f"0x{name_or_id:08x}" if isinstance(name_or_id, int) else repr(name_or_id)
        have = ", ".join(c.key for c in controls) or "none"
        raise NotSupportedError(f"{self._device_id!r} has no control {what} (controls: {have})",
                                status=_raw.E_NOT_SUPPORTED)

    def get_control(self, control_id: int) -> int:
        """The current value of control ``control_id`` (camcore_capturer_get_control)."""
        cid = _control_id(control_id)
        v = c_int64()
        check(_lib.camcore_capturer_get_control(self._h(), cid, byref(v)),
               f"Capturer.get_control(0x{cid:08x})")
        return v.value

    def set_control(self, control_id: int, value: int) -> int:
        """Sets control ``control_id``; returns the value applied (camcore_capturer_set_control)."""
        cid = _control_id(control_id)
        value = int_in("value", value, I64_MIN, I64_MAX)
        applied = c_int64()
        check(_lib.camcore_capturer_set_control(self._h(), cid, value, byref(applied)),
               f"Capturer.set_control(0x{cid:08x}, {value})")
        return applied.value

    def get_control_string(self, control_id: int, max_bytes: int = 4096) -> str:
        """The text of string control ``control_id`` (camcore_capturer_get_control_string),
        decoded as UTF-8 (invalid bytes become U+FFFD). ``max_bytes``: the longest text
        expected, 1..2**20 (Control.maximum of the control always suffices)."""
        cid = _control_id(control_id)
        if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or not 1 <= max_bytes <= STRING_CONTROL_MAX:
            raise InvalidArgError(f"max_bytes={max_bytes!r}: an int from 1 to {STRING_CONTROL_MAX}",
                                  status=_raw.E_INVALID_ARG)
        buf = ctypes.create_string_buffer(max_bytes + 1)
        check(_lib.camcore_capturer_get_control_string(self._h(), cid, buf, max_bytes + 1),
               f"Capturer.get_control_string(0x{cid:08x})")
        return buf.value.decode("utf-8", "replace")

    def set_control_string(self, control_id: int, text: str) -> None:
        """Sets string control ``control_id`` (camcore_capturer_set_control_string). Its
        length in UTF-8 bytes must fit the control's range and it may not hold a NUL,
        else InvalidArgError; nothing is cut short."""
        cid = _control_id(control_id)
        data = cstr("a string control's text", text)
        shown = repr(text) if len(text) <= 40 else repr(text[:37]) + f"... ({len(data)} bytes)"
        check(_lib.camcore_capturer_set_control_string(self._h(), cid, data),
               f"Capturer.set_control_string(0x{cid:08x}, {shown})")

    def on_control_changed(self, callback: Optional[OnControlChanged]) -> None:
        """Calls ``callback(change: ControlChange)`` on camcore's control-event thread
        whenever a control's value, flags or range changes (including changes made
        through this capturer); None removes it. When this returns after removing or
        replacing a callback, the old one is never called again. Exceptions in the
        callback are logged. Raises WouldDeadlockError when called from the callback,
        NotSupportedError when the driver reports no control events."""
        h = self._h()
        callback = callable_or_none("on_control_changed callback", callback)
        if callback is None:
            check(_lib.camcore_capturer_set_control_callbacks(h, None),
                   "Capturer.on_control_changed()")
            self._control_thunk = None
            return

        def thunk(_user_data, control_id, value, flags, changes):
            prev = getattr(_tls, "capturer", None)
            _tls.capturer = self
            try:
                callback(ControlChange(control_id, value, flags, changes))
            except BaseException:  # never let it reach C
                log.exception("camcore: exception in on_control_changed of %r", self._device_id)
            finally:
                _tls.capturer = prev

        cbs = camcore_control_callbacks()
        _lib.camcore_control_callbacks_init(byref(cbs))
        fn = ON_CONTROL_CHANGED(thunk)
        cbs.on_control_changed = fn
        old = self._control_thunk
        self._control_thunk = (cbs, fn, old)  # the old one stays alive until C let go of it
        check(_lib.camcore_capturer_set_control_callbacks(h, byref(cbs)),
               "Capturer.on_control_changed()")
        self._control_thunk = (cbs, fn)

    # -- pull (S36) --
    def start_pull(self, fourcc: FormatOrSetting = "YUYV", width: int = 640, height: int = 480,
                   fps: Optional[Rate] = 30, buffer_count: int = 4, output: Optional[FourCC] = None,
                   depth: int = 2, dmabuf: bool = False,
                   output_size: Optional[Tuple[int, int]] = None) -> None:
        """Starts streaming in pull mode (S36, camcore_capturer_start_pull): frames
        wait in a queue of `depth` (1..8) for acquire(); a full queue gives up its
        oldest frame (counted in .stats.frames_dropped), so a slow reader never
        stalls the driver. Arguments as start() (no callbacks). Raises as start(),
        and InvalidArgError for a depth out of range."""
        h = self._h()
        cfg = capture_config(fourcc, width, height, fps, buffer_count, output, dmabuf, output_size)
        check(_lib.camcore_capturer_start_pull(h, byref(cfg), int_in("depth", depth, PULL_DEPTH_MIN, PULL_DEPTH_MAX)),
               "Capturer.start_pull()")
        self._runs += 1

    def acquire(self, timeout: Optional[float] = 5.0) -> RetainedFrame:
        """The oldest queued frame of a capturer started with start_pull()
        (camcore_capturer_acquire_frame), waiting up to timeout seconds (0: only a
        ready one; None: no limit). Returns a RetainedFrame: release() it (or use
        `with`) when done; at most `depth` may be held at once. Raises
        CamcoreTimeoutError, StateError (started with callbacks, not started, stopped,
        or too many held), and the error that ended streaming."""
        h = self._h()
        out = POINTER(camcore_frame)()
        check(_lib.camcore_capturer_acquire_frame(h, timeout_ms(timeout), byref(out)),
               "Capturer.acquire()")
        return RetainedFrame(out)

    def frame_fd(self) -> int:
        """An fd that is readable while a frame is ready (camcore_capturer_get_frame_fd),
        for select/poll/asyncio. camcore's: never read or close it."""
        fd = c_int32()
        check(_lib.camcore_capturer_get_frame_fd(self._h(), byref(fd)), "Capturer.frame_fd()")
        return fd.value

    def frames(self, count: Optional[int] = None, fourcc: FormatOrSetting = "YUYV",
               width: int = 640, height: int = 480, fps: Optional[Rate] = 30,
               buffer_count: int = 4, output: Optional[FourCC] = None, depth: int = 2,
               timeout: Optional[float] = 5.0, dmabuf: bool = False,
               output_size: Optional[Tuple[int, int]] = None) -> Iterator[RetainedFrame]:
        """Starts pull mode and yields `count` frames (None: until the loop ends),
        then stops. Each frame is valid until the next iteration (its buffer goes
        back then); frame.retain() keeps one longer, frame.copy() copies it.
        Numpy views keep their frame's buffer while they exist; they and the
        frames you retain() count among the `depth` frames held, and the loop
        keeps one or two (two from depth 2: a frame's buffer goes back one
        iteration after the frame ends). When they leave no room the loop raises
        StateError saying so. copy.copy(frame) is frame.retain(). Only the
        capture the loop started is stopped at its end. `output`/`output_size`
        as start_pull() (S8, S38). Raises as start_pull() and acquire(), and
        StateError when the capturer is closed meanwhile.

        A new frames() or aframes() takes the capturer over from an earlier
        loop that was left without being closed (after `break`, a generator
        is closed when it is collected, an async one only later, by the event
        loop): that capture is stopped and the earlier loop, if resumed, ends
        with StateError. So breaking out of one loop and starting the next
        at once just works."""
        run = 0

        def begin() -> Tuple[str, Tuple[Any, ...], int, Callable[[], object]]:
            # At the first iteration, as a generator's body would.
            nonlocal run
            count_arg(count)
            ms = timeout_ms(timeout)
            run = self._start_loop(fourcc, width, height, fps, buffer_count, output, depth, dmabuf, output_size)
            return "camcore_capturer_next_frame", (self._h(),), ms, self._h

        def end() -> None:
            # Only the capture this loop started: a generator collected
            # later must not stop a capture started since.
            self._end_loop(run)

        # The loop itself, not a generator around it: one generator frame
        # resumed per frame instead of two. Without poll it yields no None.
        return cast(Iterator[RetainedFrame], _next_frames(begin, end, count, "Capturer.frames()", depth))

    async def aframes(self, count: Optional[int] = None, fourcc: FormatOrSetting = "YUYV",
                      width: int = 640, height: int = 480, fps: Optional[Rate] = 30,
                      buffer_count: int = 4, output: Optional[FourCC] = None, depth: int = 2,
                      timeout: Optional[float] = 5.0, dmabuf: bool = False,
                      output_size: Optional[Tuple[int, int]] = None
                      ) -> AsyncIterator[RetainedFrame]:
        """frames() for asyncio: waits on frame_fd() with the running loop's
        add_reader, so the loop runs other tasks between frames. Takes over
        from an earlier loop left unclosed, as frames() does (so `break` and a
        new aframes() at once just works). When the capturer is closed while a
        task waits here, the wait ends at once with StateError ("closed"):
        the frame fd turns readable at close and stays open until the waiter
        has looked (camcore_capturer_get_frame_fd)."""
        import asyncio
        count_arg(count)
        wait = timeout_s(timeout)
        loop = asyncio.get_running_loop()
        run = self._start_loop(fourcc, width, height, fps, buffer_count, output, depth, dmabuf, output_size)
        fd = self.frame_fd()

        def begin() -> Tuple[str, Tuple[Any, ...], int, Callable[[], object]]:
            return "camcore_capturer_next_frame", (self._h(),), 0, self._h

        # The same pull core as frames(), polling: None when no frame is
        # ready, and this task waits on the frame fd meanwhile.
        frames = _next_frames(begin, lambda: self._end_loop(run), count, "Capturer.aframes()", depth, poll=True)
        try:
            for frame in frames:
                while frame is None:
                    ready = loop.create_future()
                    waiter = (loop, ready)
                    with self._lock:
                        # One reader per fd and event loop: a newer loop's
                        # add_reader replaces ours, and then ours is not
                        # ours to remove.
                        loop.add_reader(fd, lambda: None if ready.done() else ready.set_result(None))
                        self._async_waiters.add(waiter)
                        self._fd_reader = waiter
                    try:
                        await asyncio.wait_for(ready, wait)
                    except asyncio.TimeoutError:
                        raise CamcoreTimeoutError(f"Capturer.aframes(): no frame within {timeout} s") from None
                    finally:
                        with self._lock:
                            self._async_waiters.discard(waiter)
                            owner = self._fd_reader
                            if owner is waiter or owner is None or owner[0] is not loop:
                                loop.remove_reader(fd)
                            if owner is waiter:
                                self._fd_reader = None
                    if self._runs != run and not self.closed:
                        raise StateError("Capturer.aframes(): a newer frames()/aframes() loop or start took the "
                                         "capturer over; this loop has ended")
                    frame = next(frames)
                yield frame
        finally:
            # Settles the last frames and ends only the capture this loop
            # started (a later loop may have taken over).
            frames.close()

    def _start_loop(self, fourcc: FormatOrSetting, width: int, height: int, fps: Optional[Rate],
                    buffer_count: int, output: Optional[FourCC], depth: int, dmabuf: bool,
                    output_size: Optional[Tuple[int, int]]) -> int:
        """Starts the pull capture of a frames()/aframes() loop, first stopping
        the capture of an earlier loop left unclosed; returns the run number
        that loop's end compares with (it stops only its own capture)."""
        with self._loop_lock:
            with self._lock:
                earlier = self._loop_run
            if earlier and earlier == self._runs and self.streaming:
                self.stop()
            self.start_pull(fourcc, width, height, fps, buffer_count, output, depth, dmabuf, output_size)
            with self._lock:
                self._loop_run = self._runs
                waiters = list(self._async_waiters)
            # Earlier aframes() loops waiting on the frame fd learn of the take-over.
            for loop, fut in waiters:
                try:
                    loop.call_soon_threadsafe(lambda f=fut: None if f.done() else f.set_result(None))
                except RuntimeError:
                    pass   # that event loop is closed
            return self._runs

    def _end_loop(self, run: int) -> None:
        """A frames()/aframes() loop ends: stops its capture unless a later
        loop (or start) has taken the capturer over meanwhile."""
        with self._loop_lock:
            if not self.closed and self._runs == run:
                self.stop()

    def __repr__(self) -> str:
        state = "closed" if self._handle is None else "open"
        return f"<camcore.Capturer {self._device_id!r} {state}>"
