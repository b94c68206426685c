# SPDX-License-Identifier: MIT
"""camcore: camera control for Linux — find cameras, negotiate a format, capture frames.

A Python binding of libcamcore (a C library) through ctypes: no compiled
parts. ``camcore._raw`` is the raw ctypes layer (every struct and function
of include/camcore.h); this package builds the objects on it.

Quick tour::

    import camcore
    with camcore.Manager(synthetic=True) as m:        # synthetic: a test-pattern camera
        dev = m.devices()[0]
        setting = m.negotiate(dev.id, 640, 480, min_fps=15, max_fps=30)
        with m.open(dev.id) as cap:
            for f in cap.capture(10, setting):         # copies, in capture order
                print(f.sequence, f.array.shape)
            for f in cap.frames(30, setting):          # zero-copy, pulled
                rgb = f.array                          # numpy view (numpy imported here)

The library is found through ``CAMCORE_LIBRARY`` (a path), the copy inside
the self-contained wheel, ``pkg-config --variable=libdir camcore``, or the
dynamic loader's path, in that order (see ``camcore._raw``). The import fails
with ImportError when none is found or its version does not match.

Threading: every call may be made from any thread. Callbacks run on threads
the library creates (a capturer's capture thread, a session's camera queue,
the hot-plug monitor), one at a time per object; when an object's stop() or
close() returns, none of its callbacks runs again. close() never fails:
called from inside the object's own callback, no other callback starts and
the teardown finishes on a camcore thread once that callback returns. stop()
from there raises WouldDeadlockError instead of hanging. An exception raised by a callback never reaches C: it is kept (and
re-raised by stop(), or logged).

Ownership: lists and descriptions are copied into Python objects. A Frame
handed to a callback is borrowed: valid only during the callback (its
buffer then goes back to the driver); ``retain()`` keeps it, ``copy()``
copies it. Its numpy views keep the frame's buffer for as long as they are
referenced, so a view never reads memory reused for another frame.

Units: sizes in pixels, strides and lengths in bytes, timestamps in
CLOCK_MONOTONIC nanoseconds (``time.monotonic_ns()``'s clock), frame rates
as ``fractions.Fraction`` frames per second.

Rule tags such as "S6" in docstrings name the rule of camcore's behaviour
contract (SPEC) that a behaviour follows; each docstring says what the
rule means where it applies.
"""
from __future__ import annotations

import warnings
from typing import Any as _Any

from . import _raw
from ._args import Rate
from ._capturer import Capturer, FormatOrSetting, OnError, OnFrame, OnRestart, OnStall
from ._controls import Control, ControlChange, MenuItem, control_key
from ._errors import (AccessError, BandwidthError, BusyError, CamcoreError, CamcoreIOError, CamcoreTimeoutError,
                      CustomSourceActiveError, InternalError, InvalidArgError,
                      InvalidArgTypeError, InvalidArgValueError, NoDeviceError, NoMemoryError,
                      NotSupportedError, StateError, WouldDeadlockError, error_for_status,
                      last_error_message, strerror)
from ._frames import CapturedFrame, Frame, RetainedFrame
from ._info import (CaptureFormat, CaptureStats, DeviceInfo, Format, Holder, Holders, SessionState, Setting)
from ._manager import Manager, OnDevice, OnPermission
from ._pixfmt import (FOURCC_BIG_ENDIAN, PIXEL_FORMAT_ALIASES, FourCC, PixelFormat, fourcc,
                      fourcc_str, pixel_format)
from ._raw import (ADJUSTED_FORMAT, ADJUSTED_RATE, ADJUSTED_SIZE, BACKEND_AUTO, BACKEND_BOTH, BACKEND_LIBCAMERA,
                   BACKEND_PIPEWIRE, BACKEND_V4L2, BACKENDS, CID_AUTOGAIN,
                   CID_BACKLIGHT_COMPENSATION, CID_BRIGHTNESS, CID_CONTRAST, CID_EXPOSURE_ABSOLUTE,
                   CID_EXPOSURE_AUTO, CID_FOCUS_ABSOLUTE, CID_FOCUS_AUTO, CID_GAIN,
                   CID_PAN_ABSOLUTE, CID_POWER_LINE_FREQUENCY, CID_SATURATION, CID_SHARPNESS,
                   CID_TILT_ABSOLUTE, CID_WHITE_BALANCE_AUTO, CID_WHITE_BALANCE_TEMPERATURE,
                   CID_ZOOM_ABSOLUTE, CONTROL_CHANGED_FLAGS, CONTROL_CHANGED_RANGE,
                   CONTROL_CHANGED_VALUE, CONTROL_FLAG_DISABLED, CONTROL_FLAG_DYNAMIC_ARRAY,
                   CONTROL_FLAG_EXECUTE_ON_WRITE, CONTROL_FLAG_GRABBED, CONTROL_FLAG_HAS_PAYLOAD,
                   CONTROL_FLAG_INACTIVE, CONTROL_FLAG_MODIFY_LAYOUT, CONTROL_FLAG_READ_ONLY,
                   CONTROL_FLAG_SLIDER, CONTROL_FLAG_UPDATE, CONTROL_FLAG_VOLATILE,
                   CONTROL_FLAG_WRITE_ONLY, CONTROL_TYPE_BITMASK, CONTROL_TYPE_BOOLEAN,
                   CONTROL_TYPE_BUTTON, CONTROL_TYPE_INTEGER, CONTROL_TYPE_INTEGER64,
                   CONTROL_TYPE_INTEGER_MENU, CONTROL_TYPE_MENU, CONTROL_TYPE_STRING,
                   DEVICE_MULTIPLANAR, DEVICE_SYNTHETIC, DEVICE_TYPE_BUILTIN,
                   DEVICE_TYPE_EXTERNAL, DEVICE_TYPE_VIRTUAL, DEVICE_TYPE_INFRARED, DEVICE_UNAVAILABLE, DEVICE_HIDDEN, LIST_HIDDEN, E_ACCESS,
                   E_BANDWIDTH, E_BUSY, E_CUSTOM_SOURCE_ACTIVE, E_INTERNAL, E_INVALID_ARG, E_IO,
                   E_NO_DEVICE, E_NO_MEMORY, E_NOT_SUPPORTED, E_STATE, E_TIMEOUT,
                   E_WOULD_DEADLOCK, FORMAT_COMPRESSED, FORMAT_EMULATED, FOURCC_NATIVE,
                   FRAME_CORRUPTED, HOOK_DROP, HOOK_PASS, HOOK_REPLACE, MAX_PREVIEWS, OK,
                   PERMISSION_DENIED, PERMISSION_GRANTED, PERMISSION_PENDING, PERMISSION_UNKNOWN,
                   PERMISSIONS, PORTAL_ALWAYS, PORTAL_AUTO, PORTAL_NEVER, PORTALS, POSITION_BACK,
                   POSITION_EXTERNAL, POSITION_FRONT, POSITION_UNKNOWN, PULL_DEPTH_MAX,
                   PULL_DEPTH_MIN, RANGE_CONTINUOUS, RANGE_DISCRETE, RANGE_STEPWISE,
                   RANGE_UNKNOWN, VERSION, VERSION_NUM, VIDEO_PAUSE, VIDEO_RESUME)
from ._raw import lib as _lib
from ._session import Completion, Session, SessionFrameCallback
from ._threads import install as _install_thread_hooks
from ._version import VERSION_MAJOR, VERSION_MINOR, VERSION_PATCH, __version__

_install_thread_hooks()

#: The path (or loader name) libcamcore was loaded from.
library_path: str = _raw.lib_path


def version() -> str:
    """The loaded library's version string, e.g. ``"0.2.0"``."""
    v = _lib.camcore_version_string()
    return "" if v is None else str(v.decode("ascii", "replace"))


def library_version() -> "tuple[int, int, int]":
    """The loaded library's version as (major, minor, patch)."""
    packed = int(_lib.camcore_version())
    return packed >> 16, (packed >> 8) & 0xFF, packed & 0xFF


# Names of an older, one-file camcore.py, still found (with a DeprecationWarning).
_RENAMED = {"TimeoutError_": "CamcoreTimeoutError", "IOError_": "CamcoreIOError"}


def __getattr__(name: str) -> _Any:
    new = _RENAMED.get(name)
    if new is not None:
        warnings.warn(f"camcore.{name} is now camcore.{new}", DeprecationWarning, stacklevel=2)
        return globals()[new]
    if name.startswith("camcore_") and hasattr(_raw, name):
        warnings.warn(f"camcore.{name} is now camcore._raw.{name}", DeprecationWarning,
                      stacklevel=2)
        return getattr(_raw, name)
    raise AttributeError(f"module 'camcore' has no attribute {name!r}")


__all__ = [
    "__version__", "VERSION", "VERSION_MAJOR", "VERSION_MINOR", "VERSION_PATCH", "VERSION_NUM",
    "version", "library_version", "library_path", "strerror", "last_error_message",
    # pixel formats
    "fourcc", "fourcc_str", "FourCC", "FOURCC_BIG_ENDIAN", "FOURCC_NATIVE",
    "PIXEL_FORMAT_ALIASES", "PixelFormat", "pixel_format",
    # errors
    "CamcoreError", "InvalidArgError", "InvalidArgTypeError", "InvalidArgValueError",
    "NoDeviceError", "BusyError", "AccessError", "NotSupportedError", "CamcoreTimeoutError",
    "CamcoreIOError", "StateError", "CustomSourceActiveError", "WouldDeadlockError",
    "NoMemoryError", "InternalError", "BandwidthError", "error_for_status",
    # objects and descriptions
    "Manager", "Capturer", "Session", "Frame", "RetainedFrame", "CapturedFrame",
    "DeviceInfo", "Holder", "Holders", "Format", "CaptureFormat", "CaptureStats", "Setting", "SessionState",
    "Control", "ControlChange", "MenuItem", "control_key",
    # callback and argument types
    "OnFrame", "OnError", "OnStall", "OnRestart", "OnDevice", "OnPermission", "SessionFrameCallback",
    "Completion", "Rate", "FormatOrSetting",
    # status codes
    "OK", "E_INVALID_ARG", "E_NO_DEVICE", "E_BUSY", "E_ACCESS", "E_NOT_SUPPORTED", "E_TIMEOUT",
    "E_IO", "E_STATE", "E_CUSTOM_SOURCE_ACTIVE", "E_WOULD_DEADLOCK", "E_NO_MEMORY", "E_INTERNAL", "E_BANDWIDTH",
    # enum values and flags
    "RANGE_DISCRETE", "RANGE_STEPWISE", "RANGE_CONTINUOUS", "RANGE_UNKNOWN",
    "DEVICE_TYPE_BUILTIN", "DEVICE_TYPE_EXTERNAL", "DEVICE_TYPE_VIRTUAL", "DEVICE_TYPE_INFRARED",
    "POSITION_UNKNOWN", "POSITION_FRONT", "POSITION_BACK", "POSITION_EXTERNAL",
    "DEVICE_MULTIPLANAR", "DEVICE_SYNTHETIC", "DEVICE_UNAVAILABLE", "DEVICE_HIDDEN", "LIST_HIDDEN",
    "FORMAT_COMPRESSED", "FORMAT_EMULATED", "FRAME_CORRUPTED",
    "ADJUSTED_SIZE", "ADJUSTED_RATE", "ADJUSTED_FORMAT",
    "BACKENDS", "BACKEND_AUTO", "BACKEND_V4L2", "BACKEND_PIPEWIRE", "BACKEND_BOTH", "BACKEND_LIBCAMERA",
    "PORTALS", "PORTAL_AUTO", "PORTAL_NEVER", "PORTAL_ALWAYS",
    "PERMISSIONS", "PERMISSION_UNKNOWN", "PERMISSION_PENDING", "PERMISSION_GRANTED",
    "PERMISSION_DENIED", "PULL_DEPTH_MIN", "PULL_DEPTH_MAX",
    "VIDEO_RESUME", "VIDEO_PAUSE", "HOOK_PASS", "HOOK_DROP", "HOOK_REPLACE", "MAX_PREVIEWS",
    # controls
    "CONTROL_TYPE_INTEGER", "CONTROL_TYPE_BOOLEAN", "CONTROL_TYPE_MENU", "CONTROL_TYPE_BUTTON",
    "CONTROL_TYPE_INTEGER64", "CONTROL_TYPE_STRING", "CONTROL_TYPE_BITMASK",
    "CONTROL_TYPE_INTEGER_MENU",
    "CONTROL_FLAG_DISABLED", "CONTROL_FLAG_GRABBED", "CONTROL_FLAG_READ_ONLY",
    "CONTROL_FLAG_UPDATE", "CONTROL_FLAG_INACTIVE", "CONTROL_FLAG_SLIDER",
    "CONTROL_FLAG_WRITE_ONLY", "CONTROL_FLAG_VOLATILE", "CONTROL_FLAG_HAS_PAYLOAD",
    "CONTROL_FLAG_EXECUTE_ON_WRITE", "CONTROL_FLAG_MODIFY_LAYOUT", "CONTROL_FLAG_DYNAMIC_ARRAY",
    "CONTROL_CHANGED_VALUE", "CONTROL_CHANGED_FLAGS", "CONTROL_CHANGED_RANGE",
    "CID_BRIGHTNESS", "CID_CONTRAST", "CID_SATURATION", "CID_WHITE_BALANCE_AUTO",
    "CID_AUTOGAIN", "CID_GAIN", "CID_POWER_LINE_FREQUENCY", "CID_WHITE_BALANCE_TEMPERATURE",
    "CID_SHARPNESS", "CID_BACKLIGHT_COMPENSATION", "CID_EXPOSURE_AUTO", "CID_EXPOSURE_ABSOLUTE",
    "CID_PAN_ABSOLUTE", "CID_TILT_ABSOLUTE", "CID_FOCUS_ABSOLUTE", "CID_FOCUS_AUTO",
    "CID_ZOOM_ABSOLUTE",
]
