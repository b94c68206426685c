# SPDX-License-Identifier: MIT
"""The manager: lists cameras and their formats, negotiates, opens capturers and sessions.

    import camcore
    with camcore.Manager(synthetic=True) as m:
        for dev in m.devices():
            print(dev.id, dev.name, [f.fourcc for f in m.formats(dev.id)])
        dev_id = m.devices()[0].id
        setting = m.negotiate(dev_id, 1280, 720, min_fps=15, max_fps=30)
        with m.open(dev_id) as cap:
            frames = cap.capture(10, setting)

Listing opens each node only briefly and streams nothing; nothing here
needs numpy.
"""
from __future__ import annotations

import logging
import threading
import weakref
from ctypes import POINTER, byref, c_int32, sizeof
from fractions import Fraction
from typing import Any, Callable, List, Optional, Sequence, Tuple, TypeVar, Union

from . import _raw
from ._args import (I32_MAX, I32_MIN, Rate, c_fraction, callable_or_none, cstr, frac, int_in,
                    output_size_arg, u32, timeout_ms)
from ._capturer import Capturer, stall_restart_ms
from ._closing import Closing
from ._errors import (InvalidArgError, InvalidArgTypeError, InvalidArgValueError, StateError, WouldDeadlockError, _s,
                      check)
from ._info import DeviceInfo, Format, Holder, Holders, Setting, device_from_c, format_from_c, setting_from_c
from ._pixfmt import FourCC, fourcc_str, output_fourcc, parse_fourcc
from ._raw import (BACKENDS, PERMISSIONS, PORTALS, ON_DEVICE, ON_PERMISSION, camcore_device_list, camcore_format_list,
                   camcore_fraction, camcore_hotplug_callbacks, camcore_manager_config,
                   camcore_preference, camcore_session_config, camcore_setting)
from ._raw import lib as _lib
from ._session import Session, preference

log = logging.getLogger("camcore")

_Child = TypeVar("_Child", Capturer, Session)

#: Which manager's hot-plug callback runs on this thread (for the deadlock guard).
_hotplug_tls = threading.local()
# Hot-plug thunks of managers closed from inside one of them: the running
# one must outlive its own return (C calls none of them again). Kept until exit.
_closed_in_callback: List[Any] = []

OnDevice = Callable[[DeviceInfo], None]
#: on_permission(state, detail): state is one of PERMISSIONS.
OnPermission = Callable[[str, str], None]

class Manager(Closing):
    """A camera manager (camcore_manager): lists devices and formats, opens capturers.

    Args:
        synthetic: also list the built-in synthetic camera (S4), after the real
            ones. The environment variable CAMCORE_SYNTHETIC_CAMERA=1, read when
            the manager is created, does the same. 2 lists two: a front
            "synthetic:0" and a back "synthetic:1" (to try Session.flip()).
        backend: "auto" (PipeWire in a sandbox, else V4L2 and, when a
            media-pipeline camera is there, libcamera; CAMCORE_BACKEND overrides
            it), "v4l2", "pipewire", "libcamera", "both" (every backend), or a
            set of backend names: "v4l2,libcamera" or ("v4l2", "libcamera")
            (S33; a camera several reach is listed once, S42).
        pipewire_fd: a PipeWire remote fd the app holds (camera portal), or -1.
        portal: when PipeWire is reached through the camera portal (S35):
            "auto" (inside a sandbox; CAMCORE_PORTAL overrides it), "never" or
            "always". See camera_permission and request_camera_access().

    Use as a context manager; close() frees it and first closes every
    Capturer and Session made from it (they keep it alive until then).
    Raises NoMemoryError on failure.
    """

    def __init__(self, synthetic: Union[bool, int] = False, backend: Union[str, Sequence[str]] = "auto",
                 pipewire_fd: int = -1, portal: str = "auto") -> None:
        cfg = camcore_manager_config()
        _lib.camcore_manager_config_init(byref(cfg))
        cfg.include_synthetic = int_in("synthetic", synthetic, I32_MIN, I32_MAX)
        if isinstance(backend, (list, tuple)) and backend and all(isinstance(b, str) for b in backend):
            backend = ",".join(backend)
        if not isinstance(backend, str):
            raise InvalidArgError(f"backend={backend!r}: one of {', '.join(BACKENDS)}, or backend names "
                                  "('v4l2,libcamera' or a list of them)")
        if backend in BACKENDS:
            cfg.backend = BACKENDS.index(backend)
        else:
            # A set of names: camcore checks it (InvalidArgError naming what it takes).
            names = backend.encode("utf-8", "surrogateescape")
            if b"\0" in names:
                raise InvalidArgError(f"backend={backend!r}: a NUL in a backend name")
            cfg.backend_names = names
        cfg.pipewire_fd = int_in("pipewire_fd", pipewire_fd, -1, I32_MAX)
        if not isinstance(portal, str) or portal not in PORTALS:
            raise InvalidArgError(f"portal={portal!r}: one of {', '.join(PORTALS)}")
        cfg.portal = PORTALS.index(portal)
        out = _raw.manager_p()
        check(_lib.camcore_manager_new(byref(cfg), byref(out)), "Manager()")
        self._handle: Optional[int] = out.value
        self._lock = threading.Lock()
        self._hotplug: Any = None
        self._children: "weakref.WeakSet[Any]" = weakref.WeakSet()  # its open capturers and sessions

    def _h(self) -> int:
        h = self._handle
        if h is None:
            raise StateError("manager is closed")
        return h

    def _adopt(self, child: _Child) -> _Child:
        with self._lock:
            self._children.add(child)
        return child

    @property
    def closed(self) -> bool:
        """True after close()."""
        return self._handle is None

    def devices(self, hidden: bool = False) -> List[DeviceInfo]:
        """The cameras present now: video capture nodes only (S1: never metadata,
        output, m2m, touch or radio nodes, nor the capture nodes of a media
        pipeline, S40), each with a stable id (S3), real cameras in node order,
        then the synthetic one if asked for. Opens each node briefly; nothing
        streams. hidden=True also lists, after them, the capture nodes that are
        no cameras of their own (DeviceInfo.hidden, with unavailable_reason
        saying why; camcore_manager_list_devices_with, CAMCORE_LIST_HIDDEN)."""
        out = POINTER(camcore_device_list)()
        if not isinstance(hidden, bool):
            raise InvalidArgTypeError(f"Manager.devices(hidden={hidden!r}): a bool")
        check(_lib.camcore_manager_list_devices_with(self._h(), _raw.LIST_HIDDEN if hidden else 0, byref(out)),
               "Manager.devices()")
        try:
            lst = out.contents
            result = [device_from_c(lst.devices[i], lst.details[i].contents if lst.details else None)
                      for i in range(lst.count)]
            return result
        finally:
            _lib.camcore_device_list_free(out)

    def formats(self, device_id: str) -> List[Format]:
        """The formats of one device, in the driver's order then size order: FourCC x
        frame size x frame rates, with stepwise and continuous ranges kept as
        ranges (S5).

        Raises NoDeviceError for an unknown id, AccessError, BusyError, CamcoreIOError.
        """
        out = POINTER(camcore_format_list)()
        check(_lib.camcore_manager_list_formats(self._h(), cstr("device_id", device_id),
                                                 byref(out)),
               f"Manager.formats({device_id!r})")
        try:
            lst = out.contents
            result = [format_from_c(lst.formats[i]) for i in range(lst.count)]
            return result
        finally:
            _lib.camcore_format_list_free(out)

    def negotiate(self, device_id: str, width: int = 1280, height: int = 720,
                  min_fps: Optional[Rate] = 15, max_fps: Optional[Rate] = 30,
                  output: Optional[FourCC] = None) -> Setting:
        """The best setting the camera really has for "about width x height at
        min_fps..max_fps" (S6 negotiation).

        The choice keeps, in this order: a rate of at least min_fps, the aspect
        ratio of width x height, the size nearest to it, the format cheapest to
        deliver in `output` (None: the driver's own format), and a rate of at
        most max_fps. Defaults: 1280x720 at 15–30 fps. Sizes in pixels, rates in
        fps (int, Fraction, float or (num, den)).

        Returns a Setting to pass straight to Capturer.start()/capture()/frames()
        or Session.start(); its .adjusted/.adjustments say what differs from the
        request. Raises NoDeviceError, AccessError, CamcoreIOError,
        NotSupportedError (the device lists no formats).
        """
        pref = camcore_preference()
        _lib.camcore_preference_init(byref(pref))
        pref.width = u32("width", width)
        pref.height = u32("height", height)
        pref.min_fps = c_fraction(min_fps)
        pref.max_fps = c_fraction(max_fps)
        pref.output_fourcc = output_fourcc(output)
        out = camcore_setting()
        out.struct_size = sizeof(camcore_setting)
        check(_lib.camcore_manager_negotiate(self._h(), cstr("device_id", device_id), byref(pref),
                                              byref(out)),
               f"Manager.negotiate({device_id!r})")
        out_name = None if pref.output_fourcc == _raw.FOURCC_NATIVE else fourcc_str(pref.output_fourcc)
        return setting_from_c(out, out_name)

    def format_for(self, device_id: str, width: int, height: int, fps: Rate) -> Setting:
        """The format nearest to width x height among those that support exactly
        `fps` (S7). Returns a Setting to pass to start()/capture(). Raises
        NotSupportedError when no format supports fps, NoDeviceError, CamcoreIOError."""
        out = camcore_setting()
        out.struct_size = sizeof(camcore_setting)
        check(_lib.camcore_manager_format_for(self._h(), cstr("device_id", device_id),
                                               u32("width", width), u32("height", height),
                                               c_fraction(fps), byref(out)),
               f"Manager.format_for({device_id!r})")
        return setting_from_c(out)

    def max_frame_rate(self, device_id: str, fourcc: FourCC, width: int, height: int,
                       fps: Rate) -> Optional[Fraction]:
        """`fps` if the format at this size supports it, else the supported rate
        closest to it, in fps (S7).
        Raises NotSupportedError (no such format, or rates unknown), NoDeviceError."""
        out = camcore_fraction()
        check(_lib.camcore_manager_max_frame_rate(self._h(), cstr("device_id", device_id),
                                                   parse_fourcc(fourcc), u32("width", width),
                                                   u32("height", height), c_fraction(fps),
                                                   byref(out)),
               f"Manager.max_frame_rate({device_id!r})")
        return frac(out)

    def open(self, device_id: str) -> Capturer:
        """Opens a device (camcore_capturer_open); nothing streams yet.

        Returns a Capturer (a context manager). Raises NoDeviceError (unknown id
        or gone), AccessError, BusyError, CamcoreIOError, NoMemoryError.
        """
        out = _raw.capturer_p()
        check(_lib.camcore_capturer_open(self._h(), cstr("device_id", device_id), byref(out)),
               f"Manager.open({device_id!r})")
        return self._adopt(Capturer(out.value or 0, device_id, self))

    # -- hot-plug (S24) and the camera portal (S35) --
    def set_hotplug_callbacks(self, on_connected: Optional[OnDevice] = None,
                              on_disconnected: Optional[OnDevice] = None,
                              on_permission: Optional[OnPermission] = None) -> None:
        """Reports capture devices plugged in or removed from now on (S24,
        camcore_manager_set_hotplug_callbacks).

        Each callback gets a DeviceInfo (for a removal: what was known of the
        device) and runs on camcore's own hot-plug thread (libudev monitor; the
        app pumps nothing). Only capture devices (S1) are reported.
        on_permission(state, detail) gets camera-permission changes (S35: one of
        PERMISSIONS, and why) on camcore's portal thread. Passing None for all
        stops the reports; when this returns, the old callbacks are not called
        again. An exception in a callback is logged, never reaches C.

        Raises CamcoreIOError (no udev monitor), WouldDeadlockError (called from one of
        this manager's hot-plug callbacks).
        """
        h = self._h()
        on_connected = callable_or_none("on_connected", on_connected)
        on_disconnected = callable_or_none("on_disconnected", on_disconnected)
        on_permission = callable_or_none("on_permission", on_permission)
        if getattr(_hotplug_tls, "manager", None) is self:
            raise WouldDeadlockError("set_hotplug_callbacks() called from this manager's own "
                                     "hot-plug callback")

        def thunk(fn: Optional[OnDevice], what: str) -> Any:
            if fn is None:
                return ON_DEVICE()

            def call(_user_data: Any, dev_ptr: Any) -> None:
                prev = getattr(_hotplug_tls, "manager", None)
                _hotplug_tls.manager = self
                try:
                    fn(device_from_c(dev_ptr.contents))
                except BaseException:  # never let it reach C
                    log.exception("camcore: exception in hot-plug callback %s", what)
                finally:
                    _hotplug_tls.manager = prev
            return ON_DEVICE(call)

        def permission_thunk(fn: Optional[OnPermission]) -> Any:
            if fn is None:
                return ON_PERMISSION()

            def call(_user_data: Any, state: int, detail: Optional[bytes]) -> None:
                prev = getattr(_hotplug_tls, "manager", None)
                _hotplug_tls.manager = self
                try:
                    fn(PERMISSIONS[state] if 0 <= state < len(PERMISSIONS) else f"unknown({state})",
                       _s(detail))
                except BaseException:  # never let it reach C
                    log.exception("camcore: exception in hot-plug callback on_permission")
                finally:
                    _hotplug_tls.manager = prev
            return ON_PERMISSION(call)

        with self._lock:
            old = self._hotplug
            if on_connected is None and on_disconnected is None and on_permission is None:
                check(_lib.camcore_manager_set_hotplug_callbacks(h, None),
                       "Manager.set_hotplug_callbacks()")
                self._hotplug = None  # C calls none of the old thunks any more
                return
            cbs = camcore_hotplug_callbacks()
            cbs.struct_size = sizeof(camcore_hotplug_callbacks)
            cbs.on_connected = thunk(on_connected, "on_connected")
            cbs.on_disconnected = thunk(on_disconnected, "on_disconnected")
            cbs.on_permission = permission_thunk(on_permission)
            # Keep the new thunks (and the old ones, until C stops using them) alive.
            self._hotplug = (cbs, old)
            status = _lib.camcore_manager_set_hotplug_callbacks(h, byref(cbs))
            if status < 0:
                self._hotplug = old
                check(status, "Manager.set_hotplug_callbacks()")
            self._hotplug = (cbs,)  # the call replaced the old callbacks: C no longer uses them



    @property
    def camera_permission(self) -> str:
        """The camera permission now (S35): "granted" when no camera portal is in
        use, else the portal's answer ("unknown", "pending", "granted", "denied")."""
        out = c_int32()
        check(_lib.camcore_manager_get_camera_permission(self._h(), byref(out)),
               "Manager.camera_permission")
        return PERMISSIONS[out.value]

    @property
    def camera_present(self) -> bool:
        """Whether a camera is there now, without asking for the permission (S49):
        through the camera portal its IsCameraPresent (no prompt, the permission
        untouched), elsewhere whether the listing has a non-synthetic camera.
        Raises CamcoreIOError when the portal does not answer."""
        return check(_lib.camcore_manager_camera_present(self._h()), "Manager.camera_present") == 1

    def holders(self, device_id: str) -> Holders:
        """The processes that hold a camera's device node open (S46), found
        through /proc as fuser does (this process too), in pid order; the list's
        ``unseen`` counts processes that could not be looked at. Raises
        NoDeviceError, NotSupportedError (no device node of its own:
        libcamera, PipeWire, synthetic)."""
        found, unseen = _raw.c_size_t(), _raw.c_uint32()
        what = f"Manager.holders({device_id!r})"
        check(_lib.camcore_manager_get_holders(self._h(), cstr("device_id", device_id), None, 0,
                                               byref(found), byref(unseen)), what)
        n = found.value + 4        # room for one that came meanwhile
        arr = (_raw.camcore_holder * n)()
        check(_lib.camcore_manager_get_holders(self._h(), cstr("device_id", device_id), arr, n,
                                               byref(found), byref(unseen)), what)
        return Holders([Holder(arr[i].pid, arr[i].command.decode("utf-8", "replace"))
                        for i in range(min(found.value, n))], unseen.value)

    def request_camera_access(self, timeout: Optional[float] = None) -> str:
        """Asks the camera portal for access (S35, AccessCamera) unless a request is
        pending or access is granted (after a denial it asks again), and waits up
        to timeout seconds for the answer (None: until answered; 0: not at all).
        Returns "granted" (or "pending" with timeout 0). Raises AccessError
        (denied, or no portal to ask), CamcoreTimeoutError (no answer in time; the
        request stays pending), WouldDeadlockError (waiting inside a hot-plug
        callback)."""
        ms = timeout_ms(timeout)   # the one timeout rule (None, inf: no limit)
        out = c_int32()
        check(_lib.camcore_manager_request_camera_access(self._h(), ms, byref(out)),
               "Manager.request_camera_access()")
        return PERMISSIONS[out.value]

    # -- sessions (S9-S21) --
    def session(self, device_id: Optional[str] = None, width: int = 1280,
                height: int = 720, min_fps: Optional[Rate] = 15, max_fps: Optional[Rate] = 30,
                output: Optional[FourCC] = None,
                return_to_reconnected_device: bool = True,
                output_size: Optional[Tuple[int, int]] = None, stall_restart: Optional[float] = 3.0,
                stall_restart_tries: int = 3) -> Session:
        """A video session on device_id (None: the first listed device that is not an
        infrared camera, S44) with the
        preferred setting width x height at min_fps..max_fps and the output format
        (S6, S8); output_size=(w, h) delivers every frame of the session (previews
        and transmission) at that size (S38, needs output; as Capturer.start()).
        The camera stays off until a preview or transmission needs it.
        The session keeps the manager alive; closing the manager closes it.
        stall_restart, stall_restart_tries: S48 for the session's camera, as
        Capturer.start() takes them (a stall that the restarts do not end is a
        disconnect: the session falls back, S25).
        Raises NoDeviceError (unknown id), InvalidArgError."""
        cfg = camcore_session_config()
        _lib.camcore_session_config_init(byref(cfg))
        cfg.struct_size = sizeof(camcore_session_config)
        cfg.device_id = cstr("device_id", device_id) if device_id is not None else None
        cfg.preference = preference(width, height, min_fps, max_fps, output)
        cfg.return_to_reconnected_device = 1 if return_to_reconnected_device else 0
        cfg.output_width, cfg.output_height = output_size_arg(output_size)
        cfg.stall_restart_ms = stall_restart_ms(stall_restart)
        cfg.stall_restart_tries = u32("stall_restart_tries", stall_restart_tries)
        out = _raw.session_p()
        check(_lib.camcore_session_new(self._h(), byref(cfg), byref(out)),
               f"Manager.session({device_id!r})")
        return self._adopt(Session(self, out.value or 0))

    def close(self) -> None:
        """Closes every Capturer and Session made from this manager, then frees it
        (camcore_manager_free). When it returns none of their callbacks runs
        again. Closing twice is OK; it never fails. Called from inside a callback
        of the manager or of one of them, no other callback starts and the rest
        of the teardown runs on a camcore thread right after that callback
        returns."""
        with self._lock:
            if self._handle is None:
                return
            children = list(self._children)
        for c in children:
            c.close()
        with self._lock:
            h, self._handle = self._handle, None
        if h is not None:
            _lib.camcore_manager_free(h)
        if getattr(_hotplug_tls, "manager", None) is self:
            # The running hot-plug thunk must outlive its own return.
            _closed_in_callback.append(self._hotplug)

    def __repr__(self) -> str:
        return f"<camcore.Manager {'closed' if self._handle is None else 'open'}>"
