# SPDX-License-Identifier: MIT
"""The video session: the camera switch of a video call (SPEC S9–S21).

A session keeps the camera on exactly while video is transmitted (started,
not paused, held or hard-muted, and past responder preparation) or at least
one preview is active (S9), and off otherwise, with the device closed (the
camera's LED goes out). The call-like states:

- start_transmission()/end_transmission(): a call with video begins/ends (S10);
- pause_video()/resume_video(): the user turns their video off/on (S12);
- hold()/unhold(): the call is on hold: nothing is sent (S11);
- start_transmission(preparing=True) ... end_preparation(): an answering
  side readies the camera before video is sent (S13);
- hard_mute(): the transmission's camera is turned off whatever else says (S15);
- add_preview()/remove_preview(): any number of local previews (S14);
- set_transmission_sink(): where transmitted frames go (S15);
- start/stop/restart/change/select/flip: capturer operations, each run in
  order on the session's camera queue, reporting through a completion (S16-S19);
- set_capture_hook(): a hook sees camera frames first and may drop them (S20);
- custom_source()/push_frame(): the app feeds transmission itself (S21).

    with camcore.Manager(synthetic=2) as m:           # front synthetic:0, back synthetic:1
        with m.session(width=640, height=480) as s:   # camera off
            pid = s.add_preview(lambda f: show(f.array))          # on: a preview
            s.set_transmission_sink(lambda f: send(f.copy()))
            s.start_transmission()
            s.pause_video(); s.resume_video(); s.hold(); s.unhold()
            s.flip()                                 # waits, raises on failure
            s.remove_preview(pid)
            print(s.state)                           # SessionState(camera_on=True, ...)

Callbacks: frame callbacks (sink, previews, hook) run on the capture
thread, or for pushed frames on the pushing thread; completions and device
events on the session's camera queue. None of them may block waiting for
the session (wait=True is refused there with WouldDeadlockError). An
exception a callback raises never reaches C: it is logged and the first is
kept in Session.callback_error.

C calls every callback through a few module-level CFUNCTYPE thunks that
live as long as the module; user_data is a token looked up in a registry,
so no thunk can be collected while C may call it, and a token C still uses
after Python forgot it is ignored.
"""
from __future__ import annotations

import atexit
import logging
import threading
import time as _time
from ctypes import POINTER, byref, c_int32, c_uint32, sizeof
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, List, Optional, Set, Tuple, Union, cast

from . import _raw
from ._args import (I32_MAX, U32_MAX, U64_MAX, Rate, c_fraction, callable_or_none, count_arg,
                    cstr, int_in, timeout_ms, timeout_s, u32)
from ._capturer import FormatOrSetting, capture_config
from ._closing import Closing
from ._errors import (CamcoreError, CamcoreTimeoutError, InvalidArgError, StateError,
                      WouldDeadlockError, _s, check, error_for_status, last_error_message, text_out)
from ._frames import Frame, RetainedFrame
from ._views import call_pushing, numpy
from ._pull import _next_frames
from ._info import DeviceInfo, CaptureFormat, SessionState, capture_format_from_c, device_from_c
from ._pixfmt import FourCC, fourcc_str, output_fourcc, parse_fourcc, pixel_format
from ._raw import (HOOK_DROP, HOOK_PASS, ON_CAPTURE, ON_COMPLETION, ON_DEVICE_ERROR,
                   ON_DEVICE_RESTART, ON_DEVICE_STALL, ON_FRAME, ON_SELECTED, ON_SESSION_DEVICE, VIDEO_PAUSE,
                   VIDEO_RESUME, camcore_capture_config, camcore_capture_format,
                   camcore_capture_hook, camcore_device_callbacks, camcore_frame,
                   camcore_frame_callbacks, camcore_preference, camcore_session_state)
from ._raw import lib as _lib

if TYPE_CHECKING:
    from ._frames import U8Array
    from ._manager import Manager

log = logging.getLogger("camcore")

# -- the callback registry: token -> what C's user_data stands for --------------

_cb_lock = threading.Lock()
_cb_registry: Dict[int, "_Entry"] = {}
_cb_next = [1]
# Which session's callback is running on this thread (deadlock guard).
_session_tls = threading.local()


def _cb_add(entry: "_Entry") -> int:
    with _cb_lock:
        token = _cb_next[0]
        _cb_next[0] += 1
        _cb_registry[token] = entry
    return token


def _cb_drop(*tokens: Optional[int]) -> None:
    with _cb_lock:
        for t in tokens:
            if t is not None:
                _cb_registry.pop(t, None)


def _cb_get(user_data: Optional[int]) -> Optional["_Entry"]:
    return _cb_registry.get(user_data) if user_data else None


class _Entry:
    """What one token stands for: the session and the Python callable(s)."""

    __slots__ = ("session", "fn", "extra")

    def __init__(self, session: "Session", fn: Any, extra: Any = None) -> None:
        self.session = session
        self.fn = fn
        self.extra = extra


def _run_callback(session: "Session", what: str, fn: Callable[..., Any], *args: Any) -> Any:
    """Calls fn(*args) marked as inside `session`'s callback; never raises."""
    prev = getattr(_session_tls, "session", None)
    _session_tls.session = session
    try:
        return fn(*args)
    except BaseException as e:  # never let it reach C
        session._store_callback_exception(what, e)
        return None
    finally:
        _session_tls.session = prev


def _frame_thunk_py(user_data: Optional[int], frame_ptr: Any) -> None:
    entry = _cb_get(user_data)
    if entry is None:
        return
    frame = Frame(frame_ptr)
    try:
        _run_callback(entry.session, entry.extra or "frame callback", entry.fn, frame)
    finally:
        frame._invalidate()


def _hook_thunk_py(user_data: Optional[int], frame_ptr: Any, replacement_ptr: Any) -> int:
    entry = _cb_get(user_data)
    if entry is None:
        return HOOK_PASS
    frame = Frame(frame_ptr)
    try:
        r = _run_callback(entry.session, "capture hook", entry.fn, frame)
    finally:
        frame._invalidate()
    if r is None or r == "pass" or r == HOOK_PASS:
        return HOOK_PASS
    if r == "drop" or r == HOOK_DROP:
        return HOOK_DROP
    entry.session._store_callback_exception(
        "capture hook", ValueError(f"capture hook returned {r!r}; expected 'pass' or 'drop'"))
    return HOOK_PASS


def _completion_thunk_py(user_data: Optional[int], status: int) -> None:
    entry = _cb_get(user_data)
    if entry is None:
        return
    _cb_drop(user_data)  # called exactly once (S16): the token is done
    err = None
    if status < 0:
        # The detail was set on this thread (the camera queue) for this completion.
        err = error_for_status(status, entry.extra["what"], last_error_message())
    pending = entry.extra
    pending["error"] = err
    pending["status"] = status
    pending["calls"] += 1
    try:
        if entry.fn is not None:
            _run_callback(entry.session, f"completion of {pending['what']}", entry.fn, err)
    finally:
        pending["done"].set()


def _device_event(kind: str) -> Callable[..., None]:
    def thunk(user_data: Optional[int], *args: Any) -> None:
        entry = _cb_get(user_data)
        if entry is None:
            return
        fn = entry.fn.get(kind)
        if fn is None:
            return
        dev = device_from_c(args[0].contents) if args[0] else None
        if kind == "on_selected":
            fmt = capture_format_from_c(args[1].contents) if args[1] else None
            _run_callback(entry.session, kind, fn, dev, fmt)
        elif kind == "on_error":
            err = error_for_status(args[1], f"capture on {dev.id if dev else '?'!r} failed",
                                   _s(args[2]))
            _run_callback(entry.session, kind, fn, dev, err)
        elif kind in ("on_stall", "on_restart"):
            _run_callback(entry.session, kind, fn, dev, bool(args[1]), int(args[2]))
        else:
            _run_callback(entry.session, kind, fn, dev)
    return thunk


# The thunks C calls: created once, alive as long as the module.
_SESSION_FRAME_THUNK = ON_FRAME(_frame_thunk_py)
_SESSION_HOOK_THUNK = ON_CAPTURE(_hook_thunk_py)
_SESSION_COMPLETION_THUNK = ON_COMPLETION(_completion_thunk_py)
_SESSION_DEVICE_THUNKS = {
    "on_connected": ON_SESSION_DEVICE(_device_event("on_connected")),
    "on_disconnected": ON_SESSION_DEVICE(_device_event("on_disconnected")),
    "on_selected": ON_SELECTED(_device_event("on_selected")),
    "on_error": ON_DEVICE_ERROR(_device_event("on_error")),
    "on_stall": ON_DEVICE_STALL(_device_event("on_stall")),
    "on_restart": ON_DEVICE_RESTART(_device_event("on_restart")),
}

# Sessions not yet closed (closed at interpreter exit).
_live_sessions: Set["Session"] = set()


def _close_sessions_at_exit() -> None:
    with _cb_lock:
        sessions = list(_live_sessions)
    for s in sessions:
        try:
            s.close()
        except Exception:
            pass


atexit.register(_close_sessions_at_exit)

SessionFrameCallback = Callable[[Frame], None]
#: on_selected(device, format): the device in use changed; format is what it captures.
OnSelected = Callable[[Optional[DeviceInfo], Optional[CaptureFormat]], None]
#: on_error(device, error): capture stopped on its own.
OnDeviceError = Callable[[Optional[DeviceInfo], CamcoreError], None]
#: on_connected(device) / on_disconnected(device).
OnSessionDevice = Callable[[Optional[DeviceInfo]], None]
#: on_stall(device, stalled, since_ns): frames stopped (True) or came back (False).
OnDeviceStall = Callable[[Optional[DeviceInfo], bool, int], None]
#: on_restart(device, restarted, attempt): S48 around a stall restart.
OnDeviceRestart = Callable[[Optional[DeviceInfo], bool, int], None]
Completion = Callable[[Optional[CamcoreError]], None]

class Session(Closing):
    """A video session: the camera switch of a call (camcore_session, S9–S21).

    The camera is on (open and streaming) exactly when video is transmitted
    or at least one preview is active (S9). Created by Manager.session(); a
    context manager; close() turns the camera off and frees the session, and
    when it returns no callback of the session runs again.

    The transmission and preview calls wait until the change took effect and
    raise on failure (StateError with no transmission, the camera's error when
    it had to turn on: the state is kept, the next change retries). Called
    from inside one of the session's frame callbacks they are queued instead,
    take effect right after the callback, and return at once.

    The capturer operations (start, stop, restart, change, select, flip,
    set_preference) take completion(error_or_None), called once on the camera
    queue after the operation took effect; with wait=True (the default) the
    call also blocks until then and raises the error.
    """

    def __init__(self, manager: "Manager", handle: int):
        self._manager = manager       # kept alive by its sessions (its close closes them)
        self._handle: Optional[int] = handle
        self._lock = threading.Lock()
        self._sink_token: Optional[int] = None
        self._hook_token: Optional[int] = None
        self._device_token: Optional[int] = None
        self._device_fns: Dict[str, Any] = {}
        self._previews: Dict[int, int] = {}     # preview id -> token
        self._retired: List[int] = []  # tokens C may still call (changes made from a callback)
        self._tokens: Set[int] = set()     # every token of this session, dropped at close
        self._push_sequence = 0
        #: The first exception a callback raised (logged too), or None.
        self.callback_error: Optional[BaseException] = None
        #: How many exceptions callbacks raised.
        self.callback_error_count = 0
        with _cb_lock:
            _live_sessions.add(self)

    # -- helpers --
    def _h(self) -> int:
        h = self._handle
        if h is None:
            raise StateError("session is closed")
        return h

    def _in_own_callback(self) -> bool:
        return getattr(_session_tls, "session", None) is self

    def _store_callback_exception(self, what: str, exc: BaseException) -> None:
        with self._lock:
            self.callback_error_count += 1
            first = self.callback_error is None
            if first:
                self.callback_error = exc
        log.error("camcore: exception in session %s", what,
                  exc_info=(type(exc), exc, exc.__traceback__))

    def _token(self, fn: Any, extra: Any = None) -> int:
        t = _cb_add(_Entry(self, fn, extra))
        with self._lock:
            self._tokens.add(t)
        return t

    def _forget(self, *tokens: Optional[int]) -> None:
        """Drops tokens C no longer calls; from inside a callback the change is
        only queued, so they are kept until the next change made from outside."""
        live = [t for t in tokens if t is not None]
        if self._in_own_callback():
            with self._lock:
                self._retired.extend(live)
            return
        with self._lock:
            retired, self._retired = self._retired, []
            for t in live + retired:
                self._tokens.discard(t)
        _cb_drop(*live, *retired)

    def _call(self, status: int, what: str) -> None:
        check(status, what)

    def _frame_callbacks(self, fn: Callable[[Frame], None], what: str) -> Tuple[camcore_frame_callbacks, int]:
        cbs = camcore_frame_callbacks()
        _lib.camcore_frame_callbacks_init(byref(cbs))
        token = self._token(fn, what)
        cbs.user_data = token
        cbs.on_frame = _SESSION_FRAME_THUNK
        return cbs, token

    # -- state --
    @property
    def closed(self) -> bool:
        """True after close()."""
        return self._handle is None

    @property
    def note(self) -> str:
        """Why the camera runs another setting than negotiated (S47: the USB bus
        could not carry it, and what it fell back to; S43: the frames' true
        size); "" when it runs what was negotiated."""
        return text_out(_lib.camcore_session_get_note, self._h(), "Session.note")

    @property
    def state(self) -> SessionState:
        """A snapshot of the session (camcore_session_get_state); safe from callbacks."""
        out = camcore_session_state()
        out.struct_size = sizeof(camcore_session_state)
        out.format.struct_size = sizeof(camcore_capture_format)
        check(_lib.camcore_session_get_state(self._h(), byref(out)),
               "Session.state")
        return SessionState(
            camera_on=bool(out.camera_on), transmitting=bool(out.transmitting),
            paused=bool(out.paused), held=bool(out.held), preparing=bool(out.preparing),
            hard_muted=bool(out.hard_muted), custom_source=bool(out.custom_source),
            stopped_by_app=bool(out.stopped_by_app), preview_count=out.preview_count,
            device_id=out.device_id.decode("utf-8", errors="replace"),
            format=capture_format_from_c(out.format) if out.camera_on else None,
            adjusted=out.adjusted)

    @property
    def camera_on(self) -> bool:
        """The camera device is open and streaming: true exactly while video is
        transmitted or a preview is active (S9)."""
        return self.state.camera_on

    # -- transmission (S10–S13, S15) --
    def start_transmission(self, initial: str = "resume", preparing: bool = False) -> None:
        """Starts transmission (S10): initial 'resume' (camera on at once) or 'pause'
        (off until resume_video). preparing=True: responder preparation (S13), no
        frame reaches the sink until end_preparation(). Raises StateError (already
        transmitting), InvalidArgError, or the camera's error (the state is kept)."""
        if initial not in ("resume", "pause", VIDEO_RESUME, VIDEO_PAUSE):
            raise InvalidArgError(f"initial={initial!r}: expected 'resume' or 'pause'")
        code = VIDEO_PAUSE if initial in ("pause", VIDEO_PAUSE) else VIDEO_RESUME
        self._call(_lib.camcore_session_start_transmission(self._h(), code, 1 if preparing else 0),
                   "Session.start_transmission()")

    def end_preparation(self) -> None:
        """Ends responder preparation: frames reach the sink from now (S13)."""
        self._call(_lib.camcore_session_end_preparation(self._h()),
                   "Session.end_preparation()")

    def pause_video(self) -> None:
        """The user turns their video off (S12): nothing is transmitted; the camera turns
        off unless a preview is active."""
        self._call(_lib.camcore_session_pause_video(self._h()), "Session.pause_video()")

    def resume_video(self) -> None:
        """The user turns their video back on (S12): transmission resumes; the camera turns on."""
        self._call(_lib.camcore_session_resume_video(self._h()), "Session.resume_video()")

    def hold(self) -> None:
        """The call is put on hold (S11): nothing is transmitted; the camera turns off
        unless a preview is active."""
        self._call(_lib.camcore_session_hold(self._h()), "Session.hold()")

    def unhold(self) -> None:
        """The call is taken off hold (S11): transmission and camera as before the hold."""
        self._call(_lib.camcore_session_unhold(self._h()), "Session.unhold()")

    def hard_mute(self, muted: bool = True) -> None:
        """True turns the camera off for transmission whatever the other states say,
        keeping them for later (a hard mute, S15); False restores them."""
        self._call(_lib.camcore_session_set_hard_mute(self._h(), 1 if muted else 0),
                   "Session.hard_mute()")

    def end_transmission(self) -> None:
        """Ends transmission; the camera turns off unless a preview is active. OK when not transmitting."""
        self._call(_lib.camcore_session_end_transmission(self._h()),
                   "Session.end_transmission()")

    def set_transmission_sink(self, on_frame: Optional[SessionFrameCallback]) -> None:
        """Where transmitted frames go (S15): on_frame(frame) on the capture thread
        (pushed frames: on the pushing thread). None keeps the camera as it is (on while transmitting, S9) and
        drops the frames. When this returns the old sink is not called again."""
        h = self._h()
        on_frame = callable_or_none("the transmission sink", on_frame)
        old = self._sink_token
        if on_frame is None:
            status = _lib.camcore_session_set_transmission_sink(h, None)
            token = None
        else:
            cbs, token = self._frame_callbacks(on_frame, "transmission sink")
            status = _lib.camcore_session_set_transmission_sink(h, byref(cbs))
        if status < 0:
            self._forget(token)
            check(status, "Session.set_transmission_sink()")
        self._sink_token = token
        self._forget(old)

    # -- previews (S14) --
    def add_preview(self, on_frame: SessionFrameCallback) -> int:
        """Adds a preview receiver (S14): on_frame(frame) for every camera frame, on
        the capture thread; the camera turns on if it was off. Returns the preview's
        id for remove_preview(). On the camera's error the preview stays added; the
        error is raised with .preview_id set."""
        h = self._h()
        callable_or_none("a preview's on_frame", on_frame, optional=False)
        cbs, token = self._frame_callbacks(on_frame, "preview")
        pid = c_uint32(0)
        status = _lib.camcore_session_add_preview(h, byref(cbs), byref(pid))
        if status < 0 and pid.value == 0:
            self._forget(token)
            check(status, "Session.add_preview()")
        with self._lock:
            self._previews[pid.value] = token
        if status < 0:
            err = error_for_status(status, "Session.add_preview()", last_error_message())
            err.preview_id = pid.value
            raise err
        return pid.value

    def remove_preview(self, preview_id: int) -> None:
        """Removes a preview: when this returns it is not called again; the camera
        turns off if nothing else needs it. Raises InvalidArgError for an unknown id."""
        self._call(_lib.camcore_session_remove_preview(self._h(), u32("preview_id", preview_id)),
                   "Session.remove_preview()")
        with self._lock:
            token = self._previews.pop(preview_id, None)
        self._forget(token)

    # -- capturer operations (S16–S19) --
    def _op(self, what: str, call: Callable[[int], int], completion: Optional[Completion], wait: bool,
            timeout: float) -> None:
        callable_or_none("completion", completion)
        limit = timeout_s(timeout)   # the one timeout rule, checked before anything is queued
        if wait and self._in_own_callback():
            raise WouldDeadlockError(
                f"{what} with wait=True from inside this session's callback would deadlock; "
                "pass wait=False (and a completion)")
        pending: Dict[str, Any] = {"what": what, "done": threading.Event(), "error": None, "status": None,
                   "calls": 0}
        token = self._token(completion, pending)
        status = call(token)
        if status < 0:
            self._forget(token)
            check(status, what)
        if not wait:
            return
        if not pending["done"].wait(limit):
            raise CamcoreTimeoutError(f"{what}: no completion within {timeout} s", status=_raw.E_TIMEOUT)
        if pending["error"] is not None:
            raise pending["error"]

    def start(self, fourcc: FormatOrSetting = "YUYV", width: int = 640, height: int = 480,
              fps: Optional[Rate] = 30, buffer_count: int = 4,
              completion: Optional[Completion] = None, wait: bool = True,
              timeout: float = 10.0) -> None:
        """Capture with this setting (a FourCC and size, or a Setting from negotiate())
        whenever the camera is to be on (transmitting or previewing, S9); clears a
        stop() (S17)."""
        cfg = capture_config(fourcc, width, height, fps, buffer_count)
        h = self._h()
        self._op("Session.start()",
                 lambda t: _lib.camcore_session_start(h, byref(cfg), _SESSION_COMPLETION_THUNK, t),
                 completion, wait, timeout)

    def change(self, fourcc: FormatOrSetting = "YUYV", width: int = 640, height: int = 480,
              fps: Optional[Rate] = 30, buffer_count: int = 4,
              completion: Optional[Completion] = None, wait: bool = True,
              timeout: float = 10.0) -> None:
        """New capture settings (as start()); the camera restarts with them if it is on (S17)."""
        cfg = capture_config(fourcc, width, height, fps, buffer_count)
        h = self._h()
        self._op("Session.change()",
                 lambda t: _lib.camcore_session_change(h, byref(cfg), _SESSION_COMPLETION_THUNK, t),
                 completion, wait, timeout)

    def stop(self, completion: Optional[Completion] = None, wait: bool = True,
             timeout: float = 10.0) -> None:
        """The camera turns off and stays off, whatever transmission and previews want,
        until start() or restart() (S17)."""
        h = self._h()
        self._op("Session.stop()",
                 lambda t: _lib.camcore_session_stop(h, _SESSION_COMPLETION_THUNK, t),
                 completion, wait, timeout)

    def restart(self, completion: Optional[Completion] = None, wait: bool = True,
                timeout: float = 10.0) -> None:
        """Undoes stop(): the camera is on again when transmitting or previewing (S9),
        with the settings it had before the stop (S17)."""
        h = self._h()
        self._op("Session.restart()",
                 lambda t: _lib.camcore_session_restart(h, _SESSION_COMPLETION_THUNK, t),
                 completion, wait, timeout)

    def select(self, device_id: str, completion: Optional[Completion] = None, wait: bool = True,
               timeout: float = 10.0) -> None:
        """Switch to camera device_id keeping the preferred setting (S18); on_selected
        reports it. Raises CustomSourceActiveError while a custom source is on,
        NoDeviceError for an unknown id."""
        h = self._h()
        b = cstr("device_id", device_id)
        self._op(f"Session.select({device_id!r})",
                 lambda t: _lib.camcore_session_select(h, b, _SESSION_COMPLETION_THUNK, t),
                 completion, wait, timeout)

    def flip(self, completion: Optional[Completion] = None, wait: bool = True,
             timeout: float = 10.0) -> None:
        """Switch to the camera facing the other way (front <-> back; else the next one)
        at the nearest
        format and rate. Raises NoDeviceError (no other camera), CustomSourceActiveError."""
        h = self._h()
        self._op("Session.flip()",
                 lambda t: _lib.camcore_session_flip(h, _SESSION_COMPLETION_THUNK, t),
                 completion, wait, timeout)

    def set_preference(self, width: int = 1280, height: int = 720,
                       min_fps: Optional[Rate] = 15, max_fps: Optional[Rate] = 30,
                       output: Optional[FourCC] = None,
                       completion: Optional[Completion] = None, wait: bool = True,
                       timeout: float = 10.0) -> None:
        """The preferred setting (S6) used when the camera turns on; applied now if it
        is on with the preference."""
        pref = preference(width, height, min_fps, max_fps, output)
        h = self._h()
        self._op("Session.set_preference()",
                 lambda t: _lib.camcore_session_set_preference(h, byref(pref),
                                                               _SESSION_COMPLETION_THUNK, t),
                 completion, wait, timeout)

    # -- hook and custom source (S20, S21) --
    def set_capture_hook(self, hook: Optional[Callable[[Frame], Optional[str]]]) -> None:
        """A capture hook (S20): hook(frame) runs for each camera frame before transmission and
        previews, on the capture thread; it returns 'pass' (or None) or 'drop'.
        None removes it; when this returns the old hook is not called again."""
        h = self._h()
        hook = callable_or_none("the capture hook", hook)
        old = self._hook_token
        if hook is None:
            status = _lib.camcore_session_set_capture_hook(h, None)
            token = None
        else:
            token = self._token(hook, "capture hook")
            c = camcore_capture_hook()
            c.struct_size = sizeof(camcore_capture_hook)
            c.user_data = token
            c.on_capture = _SESSION_HOOK_THUNK
            status = _lib.camcore_session_set_capture_hook(h, byref(c))
        if status < 0:
            self._forget(token)
            check(status, "Session.set_capture_hook()")
        self._hook_token = token
        self._forget(old)

    def custom_source(self, active: bool = True) -> None:
        """A custom video source (S21): while active, transmission takes push_frame()'s frames instead of the
        camera's; the camera runs only for previews; select/flip fail."""
        self._call(_lib.camcore_session_set_custom_source(self._h(), 1 if active else 0),
                   "Session.custom_source()")

    def push_frame(self, array: "U8Array", fourcc: FourCC, width: int, height: int,
                   sequence: Optional[int] = None, timestamp_ns: Optional[int] = None) -> None:
        """Pushes an app frame into transmission (custom source, S21); delivered to the sink on this
        thread when transmission takes frames (else dropped). array holds the whole
        image, tightly packed (rows of width * bytes per pixel; planar formats plane
        after plane). sequence: 0..2**32-1, by default one more than the last
        push's; timestamp_ns: CLOCK_MONOTONIC nanoseconds, 0..2**64-1, by default
        now. Raises StateError (no custom source), InvalidArgError (also for a
        sequence or timestamp out of range: never wrapped)."""
        h = self._h()
        if sequence is not None:
            sequence = int_in("sequence", sequence, 0, U32_MAX)
        if timestamp_ns is not None:
            timestamp_ns = int_in("timestamp_ns", timestamp_ns, 0, U64_MAX)
        np = numpy()
        data = np.ascontiguousarray(array, dtype=np.uint8).reshape(-1)
        fcc = parse_fourcc(fourcc)
        name = fourcc_str(fcc)
        width, height = u32("width", width), u32("height", height)
        pf = pixel_format(fcc)
        # Raw formats: tightly packed planes with the table's sizes.
        layout = None if pf is None or pf.compressed else \
            [pf.plane_size(width, height, i) for i in range(pf.plane_count)]
        f = camcore_frame()
        f.struct_size = sizeof(camcore_frame)
        f.fourcc = fcc
        f.width = width
        f.height = height
        base = data.ctypes.data
        if layout is None:  # compressed or unknown: one plane, no stride
            f.plane_count = 1
            f.planes[0].data = base
            f.planes[0].stride = 0
            f.planes[0].length = data.size
        else:
            offset = 0
            for i, (stride, rows) in enumerate(layout):
                length = stride * rows
                if offset + length > data.size:
                    raise InvalidArgError(
                        f"push_frame: {data.size} bytes is too small for {name} "
                        f"{width}x{height} (plane {i} ends at {offset + length})")
                f.planes[i].data = base + offset
                f.planes[i].stride = stride
                f.planes[i].length = length
                offset += length
            f.plane_count = len(layout)
        if sequence is None:
            sequence = self._push_sequence
        self._push_sequence = (sequence + 1) & U32_MAX  # the next default wraps as V4L2's does
        f.sequence = sequence
        f.timestamp_ns = _time.monotonic_ns() if timestamp_ns is None else timestamp_ns
        # The sink runs on this thread during the call (see call_pushing).
        status = call_pushing(data, lambda: _lib.camcore_session_push_frame(h, byref(f)))
        check(status, "Session.push_frame()")

    # -- device events (S24) --
    def set_device_callbacks(self, on_selected: Optional[OnSelected] = None,
                             on_error: Optional[OnDeviceError] = None,
                             on_connected: Optional[OnSessionDevice] = None,
                             on_disconnected: Optional[OnSessionDevice] = None,
                             on_stall: Optional[OnDeviceStall] = None,
                             on_restart: Optional[OnDeviceRestart] = None) -> None:
        """Device events, on the camera queue: on_selected(device, format) when the
        device in use changed (format: the one it captures or will; format.adjusted
        compares it with the preference, S6), on_error(device, error) when capture
        stopped on its own, on_connected(device), on_disconnected(device),
        on_stall(device, stalled, since_ns) when the camera in use stops delivering
        frames for longer than max(1 s, 5 frame intervals) (stalled True) and when
        frames come back (False); since_ns: CLOCK_MONOTONIC time of the last frame
        before the stall; on_restart(device, restarted, attempt) around S48's
        restart of a stall that lasted stall_restart (session()). All None
        removes them."""
        h = self._h()
        fns = {"on_selected": on_selected, "on_error": on_error, "on_connected": on_connected,
               "on_disconnected": on_disconnected, "on_stall": on_stall, "on_restart": on_restart}
        for k, v in fns.items():
            callable_or_none(k, v)
        old = self._device_token
        if all(v is None for v in fns.values()):
            status = _lib.camcore_session_set_device_callbacks(h, None)
            token = None
        else:
            token = self._token({k: v for k, v in fns.items() if v is not None})
            c = camcore_device_callbacks()
            c.struct_size = sizeof(camcore_device_callbacks)
            c.user_data = token
            for k, v in fns.items():
                if v is not None:
                    setattr(c, k, _SESSION_DEVICE_THUNKS[k])
            status = _lib.camcore_session_set_device_callbacks(h, byref(c))
        if status < 0:
            self._forget(token)
            check(status, "Session.set_device_callbacks()")
        self._device_token = token
        self._device_fns = fns
        self._forget(old)

    @property
    def on_selected(self) -> Optional[OnSelected]:
        """The on_selected(device, format) callback (S18, S19, S24), or None."""
        return self._device_fns.get("on_selected")

    @on_selected.setter
    def on_selected(self, fn: Optional[OnSelected]) -> None:
        self.set_device_callbacks(**{**self._device_fns, "on_selected": fn})

    @property
    def on_error(self) -> Optional[OnDeviceError]:
        """The on_error(device, error) callback (capture stopped on its own), or None."""
        return self._device_fns.get("on_error")

    @on_error.setter
    def on_error(self, fn: Optional[OnDeviceError]) -> None:
        self.set_device_callbacks(**{**self._device_fns, "on_error": fn})

    @property
    def on_stall(self) -> Optional[OnDeviceStall]:
        """The on_stall(device, stalled, since_ns) callback (frames stopped / resumed), or None."""
        return self._device_fns.get("on_stall")

    @on_stall.setter
    def on_stall(self, fn: Optional[OnDeviceStall]) -> None:
        self.set_device_callbacks(**{**self._device_fns, "on_stall": fn})

    # -- pull previews (S36) --
    def add_preview_pull(self, depth: int = 2) -> int:
        """Adds a preview read by pulling (S36, camcore_session_add_preview_pull):
        the camera turns on as for any preview; frames wait in a queue of `depth`
        for acquire_preview(). Returns its id for acquire_preview(),
        preview_fd() and remove_preview()."""
        pid = c_uint32(0)
        status = _lib.camcore_session_add_preview_pull(self._h(), int_in("depth", depth, 0, I32_MAX), byref(pid))
        if status < 0:
            err = error_for_status(status, "Session.add_preview_pull()", last_error_message())
            err.preview_id = pid.value or None
            raise err
        return pid.value

    def acquire_preview(self, preview_id: int, timeout: Optional[float] = 5.0) -> RetainedFrame:
        """The oldest queued frame of a pull preview (camcore_session_acquire_preview_frame),
        waiting up to timeout seconds (0: only a ready one; None: no limit). A
        RetainedFrame: release() it when done."""
        out = POINTER(camcore_frame)()
        check(_lib.camcore_session_acquire_preview_frame(self._h(), u32("preview_id", preview_id),
                                                          timeout_ms(timeout), byref(out)),
               "Session.acquire_preview()")
        return RetainedFrame(out)

    def preview_fd(self, preview_id: int) -> int:
        """An fd readable while a frame of the pull preview waits (select/poll/asyncio)."""
        fd = c_int32()
        check(_lib.camcore_session_get_preview_fd(self._h(), u32("preview_id", preview_id), byref(fd)),
               "Session.preview_fd()")
        return fd.value

    def preview_frames(self, count: Optional[int] = None, depth: int = 2,
                       timeout: Optional[float] = 5.0) -> Iterator[RetainedFrame]:
        """Adds a pull preview, yields `count` of its frames (None: until the loop
        ends), then removes it (the camera turns off if nothing else needs it).
        Each frame is valid until the next iteration unless retained."""
        pid = 0

        def begin() -> Tuple[str, Tuple[Any, ...], int, Callable[[], object]]:
            # At the first iteration, as a generator's body would.
            nonlocal pid
            count_arg(count)
            ms = timeout_ms(timeout)
            pid = self.add_preview_pull(depth)
            return "camcore_session_next_preview_frame", (self._h(), pid), ms, self._h

        def end() -> None:
            if pid and not self.closed:
                self.remove_preview(pid)

        # Capturer.frames()' pull core; without poll it yields no None.
        return cast(Iterator[RetainedFrame],
                    _next_frames(begin, end, count, "Session.preview_frames()", depth))

    # -- lifetime --
    def close(self) -> None:
        """Turns the camera off and frees the session (camcore_session_free). When it
        returns no callback of the session runs again. Closing twice is OK; it never
        fails. Called from inside one of the session's own callbacks, no other
        callback starts and the camera is turned off on a camcore thread right after
        that callback returns."""
        with self._lock:
            h, self._handle = self._handle, None
        if h is None:
            return
        _lib.camcore_session_free(h)
        with self._lock:
            tokens, self._tokens = list(self._tokens), set()
            self._previews.clear()
            self._retired = []
        _cb_drop(*tokens)
        with _cb_lock:
            _live_sessions.discard(self)
        if self.callback_error is not None:
            log.debug("camcore: session closed after %d callback exception(s)",
                      self.callback_error_count)

    def __repr__(self) -> str:
        if self._handle is None:
            return "<camcore.Session closed>"
        st = self.state
        return (f"<camcore.Session {st.device_id!r} camera {'on' if st.camera_on else 'off'}, "
                f"{st.preview_count} preview(s), transmitting={st.transmitting}>")


def preference(width: int, height: int, min_fps: Optional[Rate], max_fps: Optional[Rate],
               output: Optional[FourCC]) -> camcore_preference:
    """A camcore_preference: what a session would like to capture (see Manager.negotiate)."""
    pref = camcore_preference()
    _lib.camcore_preference_init(byref(pref))
    pref.width = u32("width", width)
    pref.height = u32("height", height)
    pref.min_fps = c_fraction(min_fps)
    pref.max_fps = c_fraction(max_fps)
    pref.output_fourcc = output_fourcc(output)
    return pref

