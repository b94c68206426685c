"""camcore — Python (ctypes) binding of libcamcore, a camera-control core for Linux.

One module, no compiled parts: it loads ``libcamcore.so`` and declares the
argument and result types of every function of ``include/camcore.h``.

Finding the library, first that applies:

1. the environment variable ``CAMCORE_LIBRARY`` (a path to the .so; if set
   and it does not load, the import fails rather than trying elsewhere);
2. ``pkg-config --variable=libdir camcore`` (honours ``PKG_CONFIG_PATH``);
3. the dynamic loader's path (``ctypes.util.find_library("camcore")``,
   then ``libcamcore.so.0``; honours ``LD_LIBRARY_PATH``).

The import fails with ``ImportError`` when the library is missing or its
major/minor version does not match the header version mirrored here.

Quick tour::

    import camcore
    with camcore.Manager(synthetic=True) as m:
        dev = m.devices()[0]
        with m.open(dev.id) as cap:
            for f in cap.capture(10, fourcc="YUYV", width=640, height=480, fps=30):
                print(f.sequence, f.array.shape)

Threading: every call may be made from any thread. ``on_frame`` and
``on_error`` callbacks run on the capturer's own capture thread (a thread
the library creates), one frame at a time, in capture order. When
``Capturer.stop()`` or ``Capturer.close()`` returns, no callback of that
capturer runs again. Calling ``stop()``/``close()`` from inside the
capturer's own callback raises ``WouldDeadlockError``. An exception raised
by ``on_frame``/``on_error`` never reaches C: it is caught, frames keep
coming, and the first one is re-raised by ``stop()`` (or ``capture()``), or
logged by ``close()``. The callables are kept alive (with the capturer)
until ``stop()``/``close()`` returns, so C never calls freed code.

Ownership: lists and descriptions are copied into Python objects and the C
lists freed at once. A ``Frame`` is borrowed: it is valid only during
``on_frame`` (afterwards its attributes raise ``StateError``);
``frame.retain()`` keeps it until ``release()``, ``frame.copy()`` copies it.
Its zero-copy numpy views (``frame.array``, ``frame.plane(i)``) keep the
frame's buffer retained until the last view is garbage-collected, so a view
used after the callback still reads that frame; but each buffer held that way
is out of the capture queue (``buffer_count`` in all), so keep copies, not
views, of frames kept for long. Managers and capturers are freed
by ``close()`` (or their ``with`` block, or garbage collection); a capturer
still streaming is kept alive until stopped, and closed at interpreter exit.

Units: sizes in pixels, strides and lengths in bytes, timestamps in
CLOCK_MONOTONIC nanoseconds (the clock of ``time.monotonic_ns()``), frame
rates as ``fractions.Fraction`` frames per second.
"""
from __future__ import annotations

import atexit
import ctypes
import dataclasses
import logging
import operator
import os
import sys
import threading
import weakref
from ctypes import (
    CFUNCTYPE,
    POINTER,
    Structure,
    byref,
    c_char,
    c_char_p,
    c_int,
    c_int32,
    c_size_t,
    c_uint8,
    c_uint16,
    c_uint32,
    c_uint64,
    c_void_p,
    sizeof,
)
from fractions import Fraction
from typing import Callable, Dict, List, Optional, Tuple, Union

import numpy as np

__all__ = [
    "VERSION", "VERSION_MAJOR", "VERSION_MINOR", "VERSION_PATCH", "VERSION_NUM",
    "version", "library_version", "library_path", "strerror", "last_error_message",
    "fourcc", "fourcc_str", "PixelFormat", "pixel_format",
    "CamcoreError", "InvalidArgError", "NoDeviceError", "BusyError", "AccessError",
    "NotSupportedError", "TimeoutError_", "IOError_", "StateError", "InvalidArgTypeError",
    "InvalidArgValueError", "CustomSourceActiveError", "WouldDeadlockError", "NoMemoryError", "InternalError",
    "error_for_status",
    "Manager", "BACKENDS", "BACKEND_AUTO", "BACKEND_V4L2", "BACKEND_PIPEWIRE", "BACKEND_BOTH",
    "Capturer", "DeviceInfo", "Format", "CaptureFormat", "CaptureStats", "Setting",
    "Frame", "RetainedFrame", "CapturedFrame",
]

log = logging.getLogger("camcore")

# --------------------------------------------------------------------------
# Version (mirrors CAMCORE_VERSION_* of include/camcore.h)
# --------------------------------------------------------------------------

VERSION_MAJOR = 0
VERSION_MINOR = 1
VERSION_PATCH = 0
#: The header version this module was written against, (major, minor, patch).
VERSION: Tuple[int, int, int] = (VERSION_MAJOR, VERSION_MINOR, VERSION_PATCH)
#: VERSION packed as CAMCORE_VERSION_NUM does: (major << 16) | (minor << 8) | patch.
VERSION_NUM = (VERSION_MAJOR << 16) | (VERSION_MINOR << 8) | VERSION_PATCH

# --------------------------------------------------------------------------
# Status codes (camcore_status)
# --------------------------------------------------------------------------

OK = 0
E_INVALID_ARG = -1
E_NO_DEVICE = -2
E_BUSY = -3
E_ACCESS = -4
E_NOT_SUPPORTED = -5
E_TIMEOUT = -6
E_IO = -7
E_STATE = -8
E_CUSTOM_SOURCE_ACTIVE = -9
E_WOULD_DEADLOCK = -10
E_NO_MEMORY = -11
E_INTERNAL = -12

# Range kinds, device types, positions, flags.
RANGE_DISCRETE, RANGE_STEPWISE, RANGE_CONTINUOUS, RANGE_UNKNOWN = 0, 1, 2, 3
DEVICE_TYPE_BUILTIN, DEVICE_TYPE_EXTERNAL, DEVICE_TYPE_VIRTUAL = 0, 1, 2
POSITION_UNKNOWN, POSITION_FRONT, POSITION_BACK, POSITION_EXTERNAL = 0, 1, 2, 3
DEVICE_MULTIPLANAR = 0x1
DEVICE_SYNTHETIC = 0x2
DEVICE_UNAVAILABLE = 0x4
FORMAT_COMPRESSED = 0x1
FORMAT_EMULATED = 0x2
FRAME_CORRUPTED = 0x1
ADJUSTED_SIZE = 0x1
ADJUSTED_RATE = 0x2
ADJUSTED_FORMAT = 0x4
FOURCC_NATIVE = 0

_RANGE_NAMES = {0: "discrete", 1: "stepwise", 2: "continuous", 3: "unknown"}
_TYPE_NAMES = {0: "builtin", 1: "external", 2: "virtual"}
_POSITION_NAMES = {0: "unknown", 1: "front", 2: "back", 3: "external"}

_U32_MAX = 0xFFFFFFFF

# --------------------------------------------------------------------------
# C structs (field for field as in include/camcore.h)
# --------------------------------------------------------------------------


class camcore_fraction(Structure):
    """A rational number, frames per second (camcore_fraction)."""

    _fields_ = [("numerator", c_uint32), ("denominator", c_uint32)]


class camcore_manager_config(Structure):
    """Manager settings (camcore_manager_config); fill with camcore_manager_config_init."""

    _fields_ = [("struct_size", c_uint32), ("include_synthetic", c_int32), ("backend", c_int32),
                ("pipewire_fd", c_int32), ("portal", c_int32)]


class camcore_device_info(Structure):
    """One camera (camcore_device_info); strings owned by the list."""

    _fields_ = [
        ("id", c_char_p),
        ("name", c_char_p),
        ("node", c_char_p),
        ("bus_info", c_char_p),
        ("driver", c_char_p),
        ("usb_vendor_id", c_uint16),
        ("usb_product_id", c_uint16),
        ("flags", c_uint32),
        ("device_caps", c_uint32),
        ("type", c_int32),
        ("position", c_int32),
        ("unavailable_reason", c_char_p),
        ("backend", c_char_p),
        ("v4l2_id", c_char_p),
    ]


class camcore_device_list(Structure):
    """A device list (camcore_device_list); one allocation, freed with camcore_device_list_free."""

    _fields_ = [("count", c_size_t), ("devices", POINTER(camcore_device_info))]


class camcore_format(Structure):
    """One format at one size or size range (camcore_format); rates owned by the list."""

    _fields_ = [
        ("fourcc", c_uint32),
        ("flags", c_uint32),
        ("description", c_char * 32),
        ("size_kind", c_int32),
        ("width", c_uint32),
        ("height", c_uint32),
        ("min_width", c_uint32),
        ("max_width", c_uint32),
        ("step_width", c_uint32),
        ("min_height", c_uint32),
        ("max_height", c_uint32),
        ("step_height", c_uint32),
        ("rate_kind", c_int32),
        ("rates", POINTER(camcore_fraction)),
        ("rate_count", c_size_t),
        ("min_fps", camcore_fraction),
        ("max_fps", camcore_fraction),
        ("interval_step", camcore_fraction),
    ]


class camcore_format_list(Structure):
    """A format list (camcore_format_list); freed with camcore_format_list_free."""

    _fields_ = [("count", c_size_t), ("formats", POINTER(camcore_format))]


class camcore_plane(Structure):
    """One plane of a frame (camcore_plane): borrowed data address, stride and length in bytes."""

    # data is `uint8_t *` in C; c_void_p has the same ABI and reads as an int address.
    _fields_ = [("data", c_void_p), ("stride", c_uint32), ("length", c_uint32)]


class camcore_frame(Structure):
    """A captured frame (camcore_frame); borrowed for the callback unless retained."""

    _fields_ = [
        ("struct_size", c_uint32),
        ("fourcc", c_uint32),
        ("width", c_uint32),
        ("height", c_uint32),
        ("plane_count", c_uint32),
        ("flags", c_uint32),
        ("planes", camcore_plane * 3),
        ("timestamp_ns", c_uint64),
        ("sequence", c_uint32),
        ("dropped_before", c_uint32),
        ("dmabuf_fd", c_int32 * 3),
        ("dmabuf_offset", c_uint32 * 3),
    ]


ON_FRAME = CFUNCTYPE(None, c_void_p, POINTER(camcore_frame))
ON_ERROR = CFUNCTYPE(None, c_void_p, c_int, c_char_p)
ON_STALL = CFUNCTYPE(None, c_void_p, c_int, c_uint64)


class camcore_frame_callbacks(Structure):
    """Frame and error callbacks (camcore_frame_callbacks); copied at start."""

    _fields_ = [
        ("struct_size", c_uint32),
        ("user_data", c_void_p),
        ("on_frame", ON_FRAME),
        ("on_error", ON_ERROR),
        ("on_stall", ON_STALL),
    ]


class camcore_capture_config(Structure):
    """Capture settings (camcore_capture_config); fill with camcore_capture_config_init."""

    _fields_ = [
        ("struct_size", c_uint32),
        ("fourcc", c_uint32),
        ("width", c_uint32),
        ("height", c_uint32),
        ("fps", camcore_fraction),
        ("buffer_count", c_uint32),
        ("output_fourcc", c_uint32),
        ("dmabuf", c_int32),
        ("output_width", c_uint32),
        ("output_height", c_uint32),
    ]


class camcore_capture_format(Structure):
    """What a started capturer uses (camcore_capture_format); set struct_size first."""

    _fields_ = [
        ("struct_size", c_uint32),
        ("fourcc", c_uint32),
        ("width", c_uint32),
        ("height", c_uint32),
        ("plane_count", c_uint32),
        ("strides", c_uint32 * 3),
        ("frame_bytes", c_uint32),
        ("fps", camcore_fraction),
        ("buffer_count", c_uint32),
        ("source_fourcc", c_uint32),
        ("adjusted", c_uint32),
    ]


class camcore_capture_stats(Structure):
    """Counters since the last start (camcore_capture_stats); set struct_size first."""

    _fields_ = [
        ("struct_size", c_uint32),
        ("frames_delivered", c_uint64),
        ("frames_dropped", c_uint64),
        ("frames_corrupted", c_uint64),
        ("measured_fps", ctypes.c_double),
        ("stalls", c_uint64),
    ]


class camcore_preference(Structure):
    """What an app would like to capture (camcore_preference); fill with camcore_preference_init."""

    _fields_ = [
        ("struct_size", c_uint32),
        ("width", c_uint32),
        ("height", c_uint32),
        ("min_fps", camcore_fraction),
        ("max_fps", camcore_fraction),
        ("output_fourcc", c_uint32),
    ]


class camcore_setting(Structure):
    """A capture setting chosen by negotiation (camcore_setting); set struct_size first."""

    _fields_ = [
        ("struct_size", c_uint32),
        ("fourcc", c_uint32),
        ("width", c_uint32),
        ("height", c_uint32),
        ("fps", camcore_fraction),
        ("adjusted", c_uint32),
    ]


class camcore_pixel_format_info(Structure):
    """One pixel format of camcore's table (camcore_pixel_format_info); set struct_size first."""

    _fields_ = [
        ("struct_size", c_uint32),
        ("fourcc", c_uint32),
        ("name", c_char * 8),
        ("description", c_char * 32),
        ("flags", c_uint32),
        ("plane_count", c_uint32),
        ("memory_plane_count", c_uint32),
        ("bytes_per_pixel", c_uint32),
        ("horizontal_subsampling", c_uint32),
        ("vertical_subsampling", c_uint32),
        ("plane_group_bytes", c_uint32 * 3),
        ("plane_group_pixels", c_uint32 * 3),
        ("plane_vertical_subsampling", c_uint32 * 3),
    ]


# Opaque handles are passed as c_void_p.
_manager_p = c_void_p
_capturer_p = c_void_p
_frame_p = POINTER(camcore_frame)

# (name, restype, argtypes) for every function of camcore.h.
_PROTOTYPES = [
    ("camcore_version", c_uint32, []),
    ("camcore_version_string", c_char_p, []),
    ("camcore_strerror", c_char_p, [c_int]),
    ("camcore_last_error_message", c_char_p, []),
    ("camcore_fourcc_to_string", c_char_p, [c_uint32, POINTER(c_char)]),
    ("camcore_pixel_format_get_info", c_int, [c_uint32, POINTER(camcore_pixel_format_info)]),
    ("camcore_pixel_format_plane_size", c_int,
     [c_uint32, c_uint32, c_uint32, c_uint32, POINTER(c_uint32), POINTER(c_uint32)]),
    ("camcore_pixel_format_frame_size", c_int, [c_uint32, c_uint32, c_uint32, POINTER(c_uint32)]),
    ("camcore_manager_config_init", None, [POINTER(camcore_manager_config)]),
    ("camcore_manager_new", c_int, [POINTER(camcore_manager_config), POINTER(_manager_p)]),
    ("camcore_manager_free", None, [_manager_p]),
    ("camcore_manager_list_devices", c_int, [_manager_p, POINTER(POINTER(camcore_device_list))]),
    ("camcore_device_list_free", None, [POINTER(camcore_device_list)]),
    ("camcore_manager_list_formats", c_int,
     [_manager_p, c_char_p, POINTER(POINTER(camcore_format_list))]),
    ("camcore_format_list_free", None, [POINTER(camcore_format_list)]),
    ("camcore_preference_init", None, [POINTER(camcore_preference)]),
    ("camcore_manager_negotiate", c_int,
     [_manager_p, c_char_p, POINTER(camcore_preference), POINTER(camcore_setting)]),
    ("camcore_manager_format_for", c_int,
     [_manager_p, c_char_p, c_uint32, c_uint32, camcore_fraction, POINTER(camcore_setting)]),
    ("camcore_manager_max_frame_rate", c_int,
     [_manager_p, c_char_p, c_uint32, c_uint32, c_uint32, camcore_fraction,
      POINTER(camcore_fraction)]),
    ("camcore_frame_retain", _frame_p, [_frame_p]),
    ("camcore_frame_release", None, [_frame_p]),
    ("camcore_frame_convert", c_int, [_frame_p, c_uint32, c_uint32, c_uint32, c_void_p, c_size_t]),
    ("camcore_frame_callbacks_init", None, [POINTER(camcore_frame_callbacks)]),
    ("camcore_capture_config_init", None, [POINTER(camcore_capture_config)]),
    ("camcore_capturer_open", c_int, [_manager_p, c_char_p, POINTER(_capturer_p)]),
    ("camcore_capturer_close", None, [_capturer_p]),
    ("camcore_capturer_start", c_int,
     [_capturer_p, POINTER(camcore_capture_config), POINTER(camcore_frame_callbacks)]),
    ("camcore_capturer_stop", c_int, [_capturer_p]),
    ("camcore_capturer_is_streaming", c_int, [_capturer_p]),
    ("camcore_capturer_get_format", c_int, [_capturer_p, POINTER(camcore_capture_format)]),
    ("camcore_capturer_get_stats", c_int, [_capturer_p, POINTER(camcore_capture_stats)]),
    ("camcore_capturer_fd", c_int, [_capturer_p]),
    ("camcore_capturer_device_id", c_char_p, [_capturer_p]),
]

# --------------------------------------------------------------------------
# Loading the library
# --------------------------------------------------------------------------


def _pkg_config_libdir() -> Optional[str]:
    # Imported here, not at the top: only a lookup without CAMCORE_LIBRARY
    # pays for them (they are a good part of a bare `import camcore`).
    import shutil
    import subprocess

    exe = shutil.which("pkg-config")
    if not exe:
        return None
    try:
        out = subprocess.run([exe, "--variable=libdir", "camcore"], capture_output=True,
                             text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    libdir = out.stdout.strip()
    return libdir if out.returncode == 0 and libdir else None


def _load() -> Tuple[ctypes.CDLL, str]:
    env = os.environ.get("CAMCORE_LIBRARY")
    if env:
        try:
            return ctypes.CDLL(env), env
        except OSError as e:
            raise ImportError(f"camcore: CAMCORE_LIBRARY={env!r} does not load: {e}") from e
    tried = []
    libdir = _pkg_config_libdir()
    if libdir:
        for name in ("libcamcore.so.0", "libcamcore.so"):
            path = os.path.join(libdir, name)
            if os.path.exists(path):
                try:
                    return ctypes.CDLL(path), path
                except OSError as e:
                    tried.append(f"{path}: {e}")
    from ctypes.util import find_library

    for name in (find_library("camcore"), "libcamcore.so.0", "libcamcore.so"):
        if not name:
            continue
        try:
            return ctypes.CDLL(name), name
        except OSError as e:
            tried.append(f"{name}: {e}")
    raise ImportError(
        "camcore: libcamcore.so not found; set CAMCORE_LIBRARY to its path, add its "
        "pkgconfig directory to PKG_CONFIG_PATH, or its directory to LD_LIBRARY_PATH"
        + ("" if not tried else " (tried: " + "; ".join(tried) + ")"))


def _declare(lib: ctypes.CDLL) -> None:
    for name, restype, argtypes in _PROTOTYPES:
        try:
            fn = getattr(lib, name)
        except AttributeError as e:
            raise ImportError(f"camcore: {lib._name} lacks {name}; wrong library?") from e
        fn.restype = restype
        fn.argtypes = argtypes


_lib, _lib_path = _load()
_declare(_lib)


def _check_version() -> None:
    packed = _lib.camcore_version()
    major, minor = packed >> 16, (packed >> 8) & 0xFF
    # Same major; before 1.0 every minor may change the ABI, so minors must match too;
    # after 1.0 the library may be newer (minor >= ours) but not older.
    if major != VERSION_MAJOR or (major == 0 and minor != VERSION_MINOR) or minor < VERSION_MINOR:
        raise ImportError(
            f"camcore: library {_lib_path} is version {major}.{minor}.{packed & 0xFF}, "
            f"this module needs {VERSION_MAJOR}.{VERSION_MINOR}.x")


_check_version()


# --------------------------------------------------------------------------
# Thread hooks: one Python thread state per capture thread
# --------------------------------------------------------------------------
# A ctypes callback on a thread Python does not know creates a thread state
# on entry and destroys it on return (PyGILState_Ensure/Release): a third of
# the cost of a frame callback. camcore_set_thread_hooks lets camcore.py take
# one more PyGILState hold when a capture thread starts, so the state lives
# as long as the thread, and give it back as the thread ends. Only threads
# named "camcore-capture" (they call on_frame per frame) are attached; their
# capturers and sessions are closed at exit (atexit below), before Python
# finalizes. Another user of the library in this process that installs its
# own hooks replaces these (frames still arrive; each callback then pays
# for its thread state again).

class camcore_thread_hooks(Structure):
    """Hooks run on each thread camcore starts (camcore_thread_hooks)."""

    _fields_ = [("struct_size", c_uint32), ("user_data", c_void_p),
                ("on_thread_start", CFUNCTYPE(None, c_void_p, c_char_p)),
                ("on_thread_stop", CFUNCTYPE(None, c_void_p, c_char_p))]


_THREAD_HOOK = CFUNCTYPE(None, c_void_p, c_char_p)
_lib.camcore_thread_hooks_init.restype = None
_lib.camcore_thread_hooks_init.argtypes = [POINTER(camcore_thread_hooks)]
_lib.camcore_set_thread_hooks.restype = c_int
_lib.camcore_set_thread_hooks.argtypes = [POINTER(camcore_thread_hooks)]
_PROTOTYPES.extend([("camcore_thread_hooks_init", None, [POINTER(camcore_thread_hooks)]),
                    ("camcore_set_thread_hooks", c_int, [POINTER(camcore_thread_hooks)])])

_gil_ensure = ctypes.pythonapi.PyGILState_Ensure
_gil_ensure.restype = c_int
_gil_ensure.argtypes = []
_gil_release = ctypes.pythonapi.PyGILState_Release
_gil_release.restype = None
_gil_release.argtypes = [c_int]
_thread_hold = threading.local()


def _on_thread_start(_user_data, name) -> None:
    if name == b"camcore-capture":
        # Inside this callback the thread has a state; one more hold keeps it.
        _thread_hold.state = _gil_ensure()


def _on_thread_stop(_user_data, name) -> None:
    state = getattr(_thread_hold, "state", None)
    if state is not None:
        del _thread_hold.state
        _gil_release(state)   # this callback's own hold ends the state on return


_thread_hook_fns = (_THREAD_HOOK(_on_thread_start), _THREAD_HOOK(_on_thread_stop))
_thread_hooks = camcore_thread_hooks()
_lib.camcore_thread_hooks_init(byref(_thread_hooks))
_thread_hooks.on_thread_start, _thread_hooks.on_thread_stop = _thread_hook_fns
if os.environ.get("CAMCORE_PY_THREAD_HOOKS", "1") != "0":
    _lib.camcore_set_thread_hooks(byref(_thread_hooks))

#: The path (or loader name) libcamcore was loaded from.
library_path: str = _lib_path


def _s(b: Optional[bytes]) -> str:
    return "" if b is None else b.decode("utf-8", errors="replace")


def version() -> str:
    """The loaded library's version string, e.g. ``"0.1.0"`` (camcore_version_string)."""
    return _s(_lib.camcore_version_string())


def library_version() -> Tuple[int, int, int]:
    """The loaded library's version as (major, minor, patch), from camcore_version()."""
    packed = _lib.camcore_version()
    return packed >> 16, (packed >> 8) & 0xFF, packed & 0xFF


# camcore_strerror's parameter is a C int; ctypes would wrap a larger value
# (2**32 read as 0, "CAMCORE_OK").
_INT_MIN = -(1 << (8 * sizeof(c_int) - 1))
_INT_MAX = (1 << (8 * sizeof(c_int) - 1)) - 1
#: camcore_strerror's text for a value that is no status code (camcore.h).
_UNKNOWN_STATUS = "unknown status"


def strerror(status: int) -> str:
    """The name of a status code, e.g. ``"CAMCORE_E_BUSY: device busy"`` (camcore_strerror).

    Any integer is accepted; one that is no status code, including one that
    does not fit a C int, gives "unknown status" as camcore_strerror does.
    Raises InvalidArgTypeError for a non-integer."""
    try:
        v = operator.index(status)
    except TypeError:
        raise InvalidArgTypeError(f"a status is an int, not {type(status).__name__}") from None
    if not _INT_MIN <= v <= _INT_MAX:
        return _UNKNOWN_STATUS
    return _s(_lib.camcore_strerror(v))


def last_error_message() -> str:
    """Detail of the last failed camcore call made on the calling thread ("" if none)."""
    return _s(_lib.camcore_last_error_message())


# --------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------


class CamcoreError(Exception):
    """A camcore call failed.

    Attributes:
        status: the negative CAMCORE_E_* code (int).
        message: the full text: what was called, the code's name and the
            library's detail (camcore_last_error_message()).
        detail: the library's detail alone ("" if none).
    """

    code: Optional[int] = None

    def __init__(self, message: str = "", status: Optional[int] = None, detail: str = ""):
        self.status = status if status is not None else (self.code if self.code is not None else 0)
        self.message = message
        self.detail = detail
        super().__init__(message)


class InvalidArgError(CamcoreError):
    """CAMCORE_E_INVALID_ARG: an argument was NULL, out of range, or a struct too small."""
    code = E_INVALID_ARG


class InvalidArgTypeError(InvalidArgError, TypeError):
    """CAMCORE_E_INVALID_ARG for an argument of the wrong type (a device id that is
    not a str, a callback that is not callable); also a TypeError."""


class InvalidArgValueError(InvalidArgError, ValueError):
    """CAMCORE_E_INVALID_ARG for a value no C argument can hold (a FourCC of five
    characters or past 32 bits); also a ValueError."""


class NoDeviceError(CamcoreError):
    """CAMCORE_E_NO_DEVICE: no such device, or it went away."""
    code = E_NO_DEVICE


class BusyError(CamcoreError):
    """CAMCORE_E_BUSY: the device is in use by another process or stream."""
    code = E_BUSY


class AccessError(CamcoreError):
    """CAMCORE_E_ACCESS: permission denied opening the device node."""
    code = E_ACCESS


class NotSupportedError(CamcoreError):
    """CAMCORE_E_NOT_SUPPORTED: the device or camcore cannot do what was asked."""
    code = E_NOT_SUPPORTED


class TimeoutError_(CamcoreError):
    """CAMCORE_E_TIMEOUT: the device did not answer in time (also Capturer.capture's timeout)."""
    code = E_TIMEOUT


class IOError_(CamcoreError):
    """CAMCORE_E_IO: the driver reported an I/O error."""
    code = E_IO


class StateError(CamcoreError):
    """CAMCORE_E_STATE: not valid in the object's state (also: use after close)."""
    code = E_STATE


class CustomSourceActiveError(CamcoreError):
    """CAMCORE_E_CUSTOM_SOURCE_ACTIVE: a custom video source feeds transmission."""
    code = E_CUSTOM_SOURCE_ACTIVE


class WouldDeadlockError(CamcoreError):
    """CAMCORE_E_WOULD_DEADLOCK: called from inside the object's own callback."""
    code = E_WOULD_DEADLOCK


class NoMemoryError(CamcoreError):
    """CAMCORE_E_NO_MEMORY: out of memory, or too few buffers."""
    code = E_NO_MEMORY


class InternalError(CamcoreError):
    """CAMCORE_E_INTERNAL: a bug in camcore; the message says where."""
    code = E_INTERNAL


_ERROR_CLASSES = {cls.code: cls for cls in (
    InvalidArgError, NoDeviceError, BusyError, AccessError, NotSupportedError, TimeoutError_,
    IOError_, StateError, CustomSourceActiveError, WouldDeadlockError, NoMemoryError,
    InternalError)}


def error_for_status(status: int, what: str = "", detail: str = "") -> CamcoreError:
    """The exception (not raised) for a negative status: the subclass for its code.

    The message reads ``"<what>: <strerror(status)>: <detail>"``.
    """
    cls = _ERROR_CLASSES.get(status, CamcoreError)
    parts = [p for p in (what, strerror(status), detail) if p]
    return cls(": ".join(parts), status=status, detail=detail)


def _check(status: int, what: str) -> int:
    """Raises the exception for a negative status, with this thread's last error detail."""
    if status < 0:
        # Read on the same thread, right after the failing call (the detail is per thread).
        raise error_for_status(status, what, last_error_message())
    return status


# --------------------------------------------------------------------------
# FourCC
# --------------------------------------------------------------------------


def fourcc(code: Union[str, bytes, int]) -> int:
    """The V4L2 FourCC integer of a 1–4 character code (``"YUYV"``); shorter codes are
    space-padded (``"Y16"`` -> ``"Y16 "``). An int is returned as is.

    Raises InvalidArgValueError (also a ValueError) for an int past 32 bits or a
    code of 0 or 5+ characters or not ASCII, InvalidArgTypeError (also a
    TypeError) for anything but str, bytes or int."""
    if isinstance(code, bool) or not isinstance(code, (int, str, bytes, bytearray)):
        if hasattr(code, "__index__") and not isinstance(code, bool):
            code = operator.index(code)          # numpy integers
        else:
            raise InvalidArgTypeError(f"a FourCC is a str, bytes or int, not {type(code).__name__}")
    if isinstance(code, int):
        if not 0 <= code <= _U32_MAX:
            raise InvalidArgValueError(f"fourcc {code} out of range (0..2**32-1)")
        return code
    try:
        b = code.encode("ascii") if isinstance(code, str) else bytes(code)
    except UnicodeEncodeError:
        raise InvalidArgValueError(f"a FourCC is ASCII, not {code!r}") from None
    if not 1 <= len(b) <= 4:
        raise InvalidArgValueError(f"a FourCC has 1 to 4 characters, not {code!r}")
    b = b.ljust(4, b" ")
    return b[0] | (b[1] << 8) | (b[2] << 16) | (b[3] << 24)


#: Common names accepted by Capturer.start/capture for the V4L2 FourCC they mean.
PIXEL_FORMAT_ALIASES = {"I420": "YU12", "MJPEG": "MJPG", "RGB24": "RGB3", "BGR24": "BGR3",
                        "RGBA": "AB24"}


def _fourcc(code: Union[str, bytes, int]) -> int:
    """fourcc() that also takes the PIXEL_FORMAT_ALIASES names (I420 -> YU12)."""
    if isinstance(code, str):
        code = PIXEL_FORMAT_ALIASES.get(code.upper(), code)
    return fourcc(code)


def _output_size(output_size: Optional[Tuple[int, int]]) -> Tuple[int, int]:
    """Output size (S38): None -> (0, 0), the negotiated size; else (width, height)."""
    if output_size is None:
        return (0, 0)
    if not isinstance(output_size, (tuple, list)) or len(output_size) != 2:
        raise InvalidArgError(f"output_size={output_size!r} must be (width, height) or None")
    w, h = output_size
    if isinstance(w, bool) or isinstance(h, bool):
        raise InvalidArgTypeError(f"output_size={output_size!r}: sides are integers, not booleans")
    return (_u32("output_size width", w), _u32("output_size height", h))


def _output_fourcc(output: Union[str, int, None]) -> int:
    """Output format (S8): None or 'native' -> CAMCORE_FOURCC_NATIVE (0), else a FourCC."""
    if output is None or (isinstance(output, str) and output.lower() == "native"):
        return FOURCC_NATIVE
    return _fourcc(output)


_FOURCC_STRS: "dict[int, str]" = {}


def fourcc_str(code: int) -> str:
    """The four characters of a FourCC integer (camcore_fourcc_to_string), e.g. ``"YUYV"``.
    Cached: a frame's .fourcc costs a dict lookup, not a library call."""
    code = int(code) & _U32_MAX
    s = _FOURCC_STRS.get(code)
    if s is None:
        buf = ctypes.create_string_buffer(5)
        _lib.camcore_fourcc_to_string(code, buf)
        s = buf.raw[:4].decode("latin-1")
        if len(_FOURCC_STRS) < 4096:
            _FOURCC_STRS[code] = s
    return s


@dataclasses.dataclass(frozen=True)
class PixelFormat:
    """One pixel format of camcore's table (camcore_pixel_format_get_info).

    Sizes are the tight ones (rows without padding); captured frames may pad
    rows, so step them by the plane's stride."""

    fourcc_code: int
    #: The name v4l2-ctl prints: "YUYV", "Y16 -BE".
    name: str
    #: The kernel's description, e.g. "Planar YUV 4:2:0".
    description: str
    compressed: bool
    #: Logical planes (as frames carry them) and V4L2 memory planes.
    plane_count: int
    memory_plane_count: int
    #: Bytes per pixel of plane 0; 0 for compressed formats.
    bytes_per_pixel: int
    #: Chroma subsampling (horizontal, vertical): (2, 2) for 4:2:0; (0, 0) if compressed.
    subsampling: Tuple[int, int]

    def plane_size(self, width: int, height: int, plane: int = 0) -> Tuple[int, int]:
        """(bytes of one row, rows) of a plane at width x height pixels.
        Raises NotSupportedError for compressed formats, InvalidArgError past the planes."""
        row, rows = c_uint32(), c_uint32()
        _check(_lib.camcore_pixel_format_plane_size(self.fourcc_code, _u32("width", width),
                                                    _u32("height", height), _u32("plane", plane),
                                                    byref(row), byref(rows)),
               "camcore_pixel_format_plane_size")
        return row.value, rows.value

    def frame_size(self, width: int, height: int) -> int:
        """Bytes of one tightly packed frame (planes one after the other)."""
        n = c_uint32()
        _check(_lib.camcore_pixel_format_frame_size(self.fourcc_code, _u32("width", width),
                                                    _u32("height", height), byref(n)),
               "camcore_pixel_format_frame_size")
        return n.value


_PIXEL_FORMATS: dict = {}


def pixel_format(code: Union[str, bytes, int]) -> Optional[PixelFormat]:
    """The table entry of a FourCC ('YU12', 'I420', 0x56595559), or None when camcore
    does not know the format. The table is static, so entries are cached."""
    c = _fourcc(code)
    if c not in _PIXEL_FORMATS:
        info = camcore_pixel_format_info()
        info.struct_size = sizeof(camcore_pixel_format_info)
        status = _lib.camcore_pixel_format_get_info(c, byref(info))
        if status == E_NOT_SUPPORTED:
            _PIXEL_FORMATS[c] = None
        else:
            _check(status, "camcore_pixel_format_get_info")
            _PIXEL_FORMATS[c] = PixelFormat(
                fourcc_code=c, name=_s(info.name), description=_s(info.description),
                compressed=bool(info.flags & FORMAT_COMPRESSED), plane_count=info.plane_count,
                memory_plane_count=info.memory_plane_count, bytes_per_pixel=info.bytes_per_pixel,
                subsampling=(info.horizontal_subsampling, info.vertical_subsampling))
    return _PIXEL_FORMATS[c]


def _frac(f: camcore_fraction) -> Optional[Fraction]:
    return Fraction(f.numerator, f.denominator) if f.denominator else None


def _to_c_fraction(fps) -> camcore_fraction:
    """int | Fraction | float | (num, den) | None -> camcore_fraction (None -> 0/0)."""
    if fps is None:
        return camcore_fraction(0, 0)
    if isinstance(fps, tuple):
        num, den = fps
    else:
        if isinstance(fps, float):
            f = Fraction(fps).limit_denominator(1001)
        else:
            f = Fraction(fps)
        num, den = f.numerator, f.denominator
    if not (0 <= num <= _U32_MAX and 0 <= den <= _U32_MAX):
        raise InvalidArgError(f"fps {fps!r} out of range (non-negative, 32-bit)")
    return camcore_fraction(num, den)


def _cstr(what: str, value) -> bytes:
    """A str for a `const char *` argument, as UTF-8. C reads up to the first NUL,
    so a str holding one would reach it as a shorter string: refused, as are
    text not encodable as UTF-8 (InvalidArgError) and non-str values
    (InvalidArgTypeError)."""
    if not isinstance(value, str):
        raise InvalidArgTypeError(f"{what} must be a str, not {type(value).__name__}")
    if "\0" in value:
        shown = repr(value) if len(value) <= 60 else repr(value[:57]) + "..."
        raise InvalidArgError(f"{what} {shown} contains a NUL character")
    try:
        return value.encode("utf-8")
    except UnicodeEncodeError as e:
        raise InvalidArgError(f"{what} is not encodable as UTF-8: {e.reason}") from None


def _callable(what: str, fn, optional: bool = True):
    """fn if it can be called (or None where a callback may be absent); else
    InvalidArgTypeError now, rather than a TypeError later on camcore's thread."""
    if fn is None and optional:
        return None
    if not callable(fn):
        raise InvalidArgTypeError(f"{what} must be callable, not {type(fn).__name__}")
    return fn


_I32_MIN, _I32_MAX = -(1 << 31), (1 << 31) - 1
_I64_MIN, _I64_MAX = -(1 << 63), (1 << 63) - 1
_U64_MAX = (1 << 64) - 1


def _bool(name: str, value) -> bool:
    """A flag argument: True/False (or 0/1)."""
    if isinstance(value, bool) or value in (0, 1):
        return bool(value)
    raise InvalidArgTypeError(f"{name}={value!r}: True or False")


def _int_in(name: str, value, lo: int, hi: int) -> int:
    """An integer (int, bool, numpy integer) for a C integer field or argument of
    range lo..hi. ctypes would wrap one outside it silently (2**64 + 5 stored as 5),
    so that is InvalidArgError; a non-integer (1.5, "3") is InvalidArgTypeError."""
    try:
        v = operator.index(value)
    except TypeError:
        raise InvalidArgTypeError(f"{name} is an integer, not {type(value).__name__}") from None
    if not lo <= v <= hi:
        raise InvalidArgError(f"{name}={v} out of range ({lo}..{hi})")
    return v


def _u32(name: str, value) -> int:
    """A uint32_t argument: an integer 0..2**32-1 (InvalidArgError outside it;
    InvalidArgTypeError for 1.5, "3" or None, which int() would have taken or
    truncated)."""
    return _int_in(name, value, 0, _U32_MAX)


# --------------------------------------------------------------------------
# Descriptions (dataclasses)
# --------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class DeviceInfo:
    """One camera (camcore_device_info, S2).

    id: stable unique id, pass it to Manager.open(); name: display name;
    node: "/dev/videoN" or "synthetic"; bus_info, driver: as V4L2 reports;
    usb_vendor_id/usb_product_id: 0 where unknown; flags: CAMCORE_DEVICE_* bits;
    device_caps: V4L2_CAP_* bits (0 for synthetic); type: 'builtin' | 'external' |
    'virtual'; position: 'unknown' | 'front' | 'back' | 'external'.
    """
    id: str
    name: str
    node: str
    bus_info: str
    driver: str
    usb_vendor_id: int
    usb_product_id: int
    flags: int
    device_caps: int
    type: str
    position: str
    multiplanar: bool
    synthetic: bool
    #: Why the device cannot be opened (e.g. permission denied); "" when usable.
    unavailable_reason: str = ""
    #: The backend (S32): "v4l2", "pipewire" or "synthetic".
    backend: str = ""
    #: For a PipeWire camera over a V4L2 device: that device's V4L2 id; "" otherwise.
    v4l2_id: str = ""


@dataclasses.dataclass(frozen=True)
class Format:
    """One pixel format at one size or size range, with its rates (camcore_format, S5).

    Sizes in pixels. For a discrete size width/height is the size and the
    min/max equal it (steps 0); for ranges width/height is the largest size.
    rates: discrete rates in fps, highest first (empty for ranges);
    min_fps/max_fps: the rate bounds in fps (None if unknown);
    interval_step: stepwise interval step in seconds, else None.
    """
    fourcc: str
    fourcc_code: int
    flags: int
    compressed: bool
    description: str
    size_kind: str
    width: int
    height: int
    min_width: int
    max_width: int
    step_width: int
    min_height: int
    max_height: int
    step_height: int
    rate_kind: str
    rates: List[Fraction]
    min_fps: Optional[Fraction]
    max_fps: Optional[Fraction]
    interval_step: Optional[Fraction] = None


@dataclasses.dataclass(frozen=True)
class CaptureFormat:
    """What a started capturer really uses, read back from the driver (S6).

    strides: bytes per row of each plane; frame_bytes: bytes of one frame;
    fps: applied rate (None if the driver does not say); buffer_count: granted buffers.
    """
    fourcc: str
    width: int
    height: int
    plane_count: int
    strides: List[int]
    frame_bytes: int
    fps: Optional[Fraction]
    buffer_count: int
    #: The driver's pixel format (differs from fourcc when camcore converts, S8).
    source_fourcc: str = ""
    #: ADJUSTED_* bits: how the applied setting differs from the request (S6, S7).
    adjusted: int = 0


@dataclasses.dataclass(frozen=True)
class CaptureStats:
    """Counters since the last start (S22); measured_fps from the last (up to 32)
    frames' timestamps, 0.0 before two frames."""
    frames_delivered: int
    frames_dropped: int
    frames_corrupted: int
    measured_fps: float = 0.0
    #: Times no frame came for longer than max(1 s, 5 frame intervals) (on_stall).
    stalls: int = 0


@dataclasses.dataclass(frozen=True)
class Setting:
    """A capture setting a device can do, chosen by Manager.negotiate/format_for (S6, S7).

    Pass fourcc, width, height and fps to Capturer.start(). fps is None when
    the driver does not enumerate rates. adjusted: ADJUSTED_* bits, 0 when the
    preference is met exactly (see .valid).
    """
    fourcc: str
    fourcc_code: int
    width: int
    height: int
    fps: Optional[Fraction]
    adjusted: int

    @property
    def valid(self) -> bool:
        """True when nothing was adjusted (the "Valid" result of S6)."""
        return self.adjusted == 0

    @property
    def adjustments(self) -> List[str]:
        """Names of what was adjusted: 'size', 'rate', 'format'."""
        return [n for bit, n in ((ADJUSTED_SIZE, "size"), (ADJUSTED_RATE, "rate"),
                                 (ADJUSTED_FORMAT, "format")) if self.adjusted & bit]


def _shaped(code: int, width: int, height: int, stride: int, data: np.ndarray) -> np.ndarray:
    """A view of plane 0's 1-D bytes shaped for its format (bytes per pixel from the
    pixel-format table), rows stepped by stride."""
    pf = _PIXEL_FORMATS.get(code, False)   # a frame's FourCC is an int: skip the name parsing
    if pf is False:
        pf = pixel_format(code)
    if pf is None or pf.compressed or pf.bytes_per_pixel == 0:
        return data
    bpp = pf.bytes_per_pixel
    row = width * bpp
    if width == 0 or height == 0 or stride < row or data.size < (height - 1) * stride + row:
        return data  # compressed, unknown or short (corrupted) data: plain bytes
    if bpp == 1:
        shape, strides = (height, width), (stride, 1)
    else:
        shape, strides = (height, width, bpp), (stride, bpp, 1)
    # np.ndarray over the read-only bytes: read-only too, based on `data` (so it
    # keeps the frame's buffer); a quarter of as_strided's cost per frame.
    return np.ndarray(shape, np.uint8, data, 0, strides)


@dataclasses.dataclass
class CapturedFrame:
    """A frame copied out of the library (Capturer.capture(), Frame.copy()).

    Owns its data: planes are 1-D uint8 copies, array is a view of planes[0]
    shaped as Frame.array is. Timestamps in CLOCK_MONOTONIC nanoseconds.
    """
    fourcc: str
    width: int
    height: int
    sequence: int
    timestamp_ns: int
    flags: int
    corrupted: bool
    dropped_before: int
    strides: List[int]
    lengths: List[int]
    planes: List[np.ndarray]
    array: np.ndarray

    @property
    def plane_count(self) -> int:
        """Planes used, 1 to 3."""
        return len(self.planes)

    def plane(self, i: int) -> np.ndarray:
        """Plane i (1-D uint8 copy)."""
        return self.planes[i]


class _Pixels:
    """What keeps a frame's buffer out of the capture queue while numpy views
    of it exist: one retain of the frame (camcore_frame_retain, or the hold
    of an acquired frame), given back (camcore_frame_release) when this
    object is garbage-collected; or, for a frame the app pushed (S21), the
    pushed array itself.
    """

    __slots__ = ("_retained", "_owner", "__weakref__")

    def __init__(self, retained=None, owner=None):
        self._retained = retained
        self._owner = owner

    def __del__(self):
        r, self._retained = self._retained, None
        if r is not None:
            try:
                _lib.camcore_frame_release(r)
            except Exception:  # interpreter shutdown: nothing sensible left to do
                pass


# The array push_frame() is pushing on this thread: pushed frames reach the sink
# on the pushing thread, during the push, in that array's memory.
_push_tls = threading.local()
_get_ident = threading.get_ident
# How many push_frame() calls are in progress (any thread): while none is, a
# frame's views skip the look at _push_tls.
_pushing = 0
_pushing_lock = threading.Lock()


def _pushed_owner(c: camcore_frame) -> Optional[np.ndarray]:
    """The array being pushed on this thread if every plane of c lies inside it."""
    owner = getattr(_push_tls, "array", None)
    if owner is None:
        return None
    lo = owner.ctypes.data
    hi = lo + owner.nbytes
    for i in range(min(c.plane_count, 3)):
        p = c.planes[i]
        if p.length and not (p.data and lo <= p.data and p.data + p.length <= hi):
            return None
    return owner


# --------------------------------------------------------------------------
# Numpy views of frame buffers, made once per buffer and reused
# --------------------------------------------------------------------------
# A capture cycles through a few buffers (buffer_count), so the views of a
# buffer are made the first time a frame lands in it and handed to every
# later frame in the same buffer: no ctypes array, numpy object or retain
# per frame. When a frame's validity ends (its callback returns, the pull
# loop moves on, release()) camcore.py looks whether anything outside this
# cache still refers to the views it handed out (sys.getrefcount: numpy
# views of views, slices and memoryviews all hold a reference to one of
# them). If something does, the views "escape": the frame's buffer is kept
# for them (one retain, given back when they are collected) and the buffer
# gets new views next time. So a view never reads a buffer that went back
# to the driver, as before, and the common case costs a few dict and
# refcount look-ups.

_getrefcount = sys.getrefcount
# Orders the hand-out of a view against the end of the frame handing it out
# (another thread may read a frame while its callback returns).
_views_lock = threading.Lock()
_views: Dict[Tuple[int, int], "_BufferViews"] = {}
_VIEWS_MAX = 64   # buffers remembered; more (many streams) starts again


def _flat_view(address: int, length: int):
    """(ctypes array, read-only 1-D uint8 numpy view of it) over length bytes at address."""
    buf = (c_uint8 * length).from_address(address)
    flat = np.frombuffer(buf, dtype=np.uint8)
    flat.flags.writeable = False
    return buf, flat


class _BufferViews:
    """The read-only numpy views of one plane's memory: flat (1-D uint8) and,
    for plane 0, shaped as Frame.array is (see _shaped)."""

    __slots__ = ("key", "shape_key", "buf", "flat", "shaped", "counts")

    def __init__(self, address: int, length: int, shape_key):
        self.key = (address, length)
        self.shape_key = shape_key
        buf, flat = _flat_view(address, length)
        self.buf = buf
        self.flat = flat
        self.shaped = _shaped(shape_key[0], shape_key[1], shape_key[2], shape_key[3], flat) \
            if shape_key is not None else None
        del buf, flat
        # The reference counts while only this object refers to them.
        self.counts = (_getrefcount(self.buf), _getrefcount(self.flat),
                       _getrefcount(self.shaped) if self.shaped is not None else 0)

    def escaped(self) -> bool:
        """Whether something outside this cache refers to the views."""
        c = self.counts
        return (_getrefcount(self.buf) != c[0] or _getrefcount(self.flat) != c[1]
                or (self.shaped is not None and _getrefcount(self.shaped) != c[2]))

    def keep(self, pixels: Optional[_Pixels]) -> None:
        """The views escaped: they keep `pixels` (the buffer) and leave the cache."""
        if pixels is not None:
            self.buf._pixels = pixels
        if _views.get(self.key) is self:
            del _views[self.key]


def _buffer_views(address: int, length: int, shape_key) -> _BufferViews:
    """The cached views of (address, length), made when none fit. Called with
    _views_lock held, for a frame that is valid (its buffer is mapped)."""
    v = _views.get((address, length))
    if v is None or (shape_key is not None and v.shape_key != shape_key):
        if len(_views) >= _VIEWS_MAX:
            _views.clear()
        v = _views[(address, length)] = _BufferViews(address, length, shape_key)
    return v


def _keep_escaped(used, pixels: Optional[_Pixels]) -> bool:
    """Gives `pixels` to each escaped one of `used` (views handed out by a frame
    whose validity ended). True if any escaped."""
    any_escaped = False
    for v in used:
        if v.escaped():
            v.keep(pixels)
            any_escaped = True
    return any_escaped


class _FrameBase:
    """Shared read-only view of a camcore_frame.

    The description is copied when the object is made (reading it never
    touches library memory); the pixels stay in the library's buffer and
    numpy views of them keep that buffer while they exist (see above).
    """

    __slots__ = ("_ptr", "_frame", "_pixels", "_used")

    def __init__(self, ptr, pixels: Optional[_Pixels] = None):
        self._ptr = ptr
        self._frame = camcore_frame.from_buffer_copy(ptr.contents)
        self._pixels = pixels
        self._used = None   # the _BufferViews handed out, when any

    def _c(self) -> camcore_frame:
        if self._ptr is None:
            raise StateError(self._gone_message())
        return self._frame

    def _gone_message(self) -> str:
        return "frame is no longer valid"

    def _view(self, i: int, shaped: bool) -> np.ndarray:
        """Plane i's flat view, or plane 0 shaped (Frame.array), from the cache."""
        c = self._c()
        p = c.planes[i]
        address, length = p.data, p.length
        if not address or length == 0:
            return np.zeros(0, dtype=np.uint8)
        pushed = getattr(_push_tls, "array", None) if _pushing else None
        with _views_lock:
            if self._ptr is None:
                raise StateError(self._gone_message())
            if pushed is not None and self._pixels is None:
                # A frame push_frame() is pushing: its array is the memory.
                owner = _pushed_owner(c)
                if owner is not None:
                    buf, flat = _flat_view(address, length)
                    buf._pixels = _Pixels(owner=owner)
                    return _shaped(c.fourcc, c.width, c.height, p.stride, flat) if shaped else flat
            v = _buffer_views(address, length, (c.fourcc, c.width, c.height, p.stride) if i == 0 else None)
            used = self._used
            if used is None:
                self._used = [v]
            elif v not in used:
                used.append(v)
            return v.shaped if shaped else v.flat

    def _end(self):
        """Ends the frame's validity: (what keeps its buffer, the views it handed out)."""
        with _views_lock:
            self._ptr = None
            px, self._pixels = self._pixels, None
            used, self._used = self._used, None
        return px, used

    @property
    def valid(self) -> bool:
        """True while the frame's memory may be read."""
        return self._ptr is not None

    @property
    def fourcc(self) -> str:
        """Pixel format FourCC, e.g. 'YUYV'."""
        return fourcc_str(self._c().fourcc)

    @property
    def fourcc_code(self) -> int:
        """Pixel format FourCC as an int."""
        return self._c().fourcc

    @property
    def width(self) -> int:
        """Width in pixels."""
        return self._c().width

    @property
    def height(self) -> int:
        """Height in pixels."""
        return self._c().height

    @property
    def plane_count(self) -> int:
        """Planes used, 1 to 3."""
        return self._c().plane_count

    @property
    def flags(self) -> int:
        """CAMCORE_FRAME_* bits."""
        return self._c().flags

    @property
    def corrupted(self) -> bool:
        """True if the driver flagged the buffer (do not trust the pixels)."""
        return bool(self._c().flags & FRAME_CORRUPTED)

    @property
    def timestamp_ns(self) -> int:
        """Capture time, CLOCK_MONOTONIC nanoseconds (comparable to time.monotonic_ns())."""
        return self._c().timestamp_ns

    @property
    def sequence(self) -> int:
        """The driver's sequence number."""
        return self._c().sequence

    @property
    def dropped_before(self) -> int:
        """Frames dropped just before this one (sequence gap)."""
        return self._c().dropped_before

    @property
    def strides(self) -> List[int]:
        """Bytes per row of each used plane (0 for compressed data)."""
        c = self._c()
        return [c.planes[i].stride for i in range(min(c.plane_count, 3))]

    @property
    def lengths(self) -> List[int]:
        """Bytes of valid data in each used plane."""
        c = self._c()
        return [c.planes[i].length for i in range(min(c.plane_count, 3))]

    def plane(self, i: int) -> np.ndarray:
        """Zero-copy, read-only 1-D uint8 view of plane i (length bytes).

        The view keeps the frame's buffer: the first view of a frame retains it
        (camcore_frame_retain) and the buffer is given back when the frame and
        all its views are garbage-collected. So a view stays valid after the
        callback, but each buffer a kept view holds is out of the capture
        queue (buffer_count of them); when all are held the driver drops
        frames. Keep copies (copy(), np.copy) for data kept long.
        """
        c = self._c()
        if not 0 <= i < min(c.plane_count, 3):
            raise IndexError(f"plane {i} out of range (frame has {c.plane_count})")
        return self._view(i, False)

    @property
    def dmabuf(self) -> Optional[List[Tuple[int, int]]]:
        """(fd, offset) of each plane as a DMA-BUF (S37), or None when the capture
        was not started with dmabuf=True. The fds are camcore's, valid as long as
        the frame: os.dup() one to keep it longer, never close it."""
        c = self._c()
        if c.plane_count < 1 or c.dmabuf_fd[0] < 0:
            return None
        return [(c.dmabuf_fd[i], c.dmabuf_offset[i]) for i in range(min(c.plane_count, 3))]

    @property
    def array(self) -> np.ndarray:
        """Zero-copy, read-only numpy view of the image, rows stepped by the stride.

        Shaped by plane 0's bytes per pixel in camcore's pixel-format table
        (pixel_format()): YUYV-like: (h, w, 2); RGB3/BGR3: (h, w, 3); 32-bit
        RGB: (h, w, 4); GREY: (h, w); I420/NV12 and other Y-first planar
        formats: the Y plane (h, w); MJPEG, unknown or short (corrupted) data:
        1-D bytes. Keeps the frame's buffer as plane() does.
        """
        return self._view(0, True)

    def copy(self) -> CapturedFrame:
        """A CapturedFrame holding copies of the planes (valid forever)."""
        c = self._c()
        # The views die with this call: the buffer is kept only while copying.
        planes = [self.plane(i).copy() for i in range(min(c.plane_count, 3))]
        fcc = fourcc_str(c.fourcc)
        strides = self.strides
        arr = _shaped(c.fourcc, c.width, c.height, strides[0] if strides else 0,
                      planes[0] if planes else np.zeros(0, np.uint8))
        return CapturedFrame(
            fourcc=fcc, width=c.width, height=c.height, sequence=c.sequence,
            timestamp_ns=c.timestamp_ns, flags=c.flags,
            corrupted=bool(c.flags & FRAME_CORRUPTED), dropped_before=c.dropped_before,
            strides=strides, lengths=self.lengths, planes=planes, array=arr)

    def __repr__(self) -> str:
        if self._ptr is None:
            return f"<{type(self).__name__} (no longer valid)>"
        c = self._frame
        return (f"<{type(self).__name__} {fourcc_str(c.fourcc)} {c.width}x{c.height} "
                f"seq={c.sequence} ts={c.timestamp_ns}>")


class Frame(_FrameBase):
    """A frame handed to on_frame (camcore_frame, S22). Borrowed (S23).

    Valid only during the on_frame call that received it; afterwards every
    attribute raises StateError. Call retain() to keep it longer, or copy()
    to copy its data. The numpy views (array, plane(i)) share the library's
    buffer and keep it (see plane()): one used after the callback still
    reads this frame's pixels, never reused memory.
    """

    __slots__ = ()

    def _gone_message(self) -> str:
        return "frame used after its on_frame callback returned; retain() or copy() it"

    def _invalidate(self) -> None:
        """Ends the frame's validity (its callback returns). Views made of it that
        are still referenced keep its buffer (one retain, taken now while the
        frame is still the callback's)."""
        with _views_lock:
            ptr, self._ptr = self._ptr, None
            used, self._used = self._used, None
        if used is None:
            return
        px = None
        for v in used:
            if v.escaped():
                if px is None:
                    r = _lib.camcore_frame_retain(ptr)
                    if not r:
                        log.error("camcore: a numpy view outlives its frame and the frame "
                                  "cannot be retained (%s); its data may change", last_error_message())
                    px = _Pixels(retained=r) if r else None
                v.keep(px)

    def retain(self) -> "RetainedFrame":
        """Keeps this frame beyond the callback (camcore_frame_retain, S23).

        Returns a RetainedFrame valid until its release() (also a context
        manager). Its buffer is not reused until then; while every buffer is
        retained the driver drops frames. Release may happen on any thread,
        also after the capturer stopped or closed.
        """
        with _views_lock:
            c_ptr = _lib.camcore_frame_retain(self._ptr) if self._ptr is not None else None
        if not c_ptr:
            raise StateError(self._gone_message())
        return RetainedFrame(c_ptr)


class RetainedFrame(_FrameBase):
    """A retained frame: same attributes as Frame, valid until release().

    Owns one retain of the library's buffer; release() (or leaving a `with`
    block, or garbage collection) gives it back, once numpy views taken from
    it are gone too (they keep the buffer, as a Frame's do). After release
    every attribute raises StateError.
    """

    __slots__ = ()

    def __init__(self, ptr):
        # _FrameBase.__init__ inlined: a pulled frame is made per iteration.
        self._ptr = ptr
        self._frame = camcore_frame.from_buffer_copy(ptr.contents)
        self._pixels = _Pixels(ptr)
        self._used = None

    def _gone_message(self) -> str:
        return ("frame used after release() or, for frames()/preview_frames(), after the next "
                "iteration; retain() or copy() it to keep it")

    def retain(self) -> "RetainedFrame":
        """One more retain of the same buffer (released separately)."""
        with _views_lock:
            c_ptr = _lib.camcore_frame_retain(self._ptr) if self._ptr is not None else None
        if not c_ptr:
            raise StateError(self._gone_message())
        return RetainedFrame(c_ptr)

    def release(self) -> None:
        """Gives the buffer back (camcore_frame_release) unless numpy views of it
        still exist (then when they are collected). Releasing twice is a no-op."""
        px, used = self._end()
        if used is not None:
            _keep_escaped(used, px)
        # px, unless an escaped view took it, is released here.

    def __del__(self):
        if self._pixels is not None:
            try:
                self.release()
            except Exception:  # interpreter shutdown
                pass

    def __enter__(self) -> "RetainedFrame":
        return self

    def __exit__(self, *exc) -> None:
        self.release()


# --------------------------------------------------------------------------
# Capturer
# --------------------------------------------------------------------------

# Capturers C may call back into are kept here (strong references), so that
# neither they nor their CFUNCTYPE thunks are collected while streaming.
_live_lock = threading.Lock()
_live: set = set()
# Which capturer's callback is running on this thread (for the deadlock guard).
_tls = threading.local()


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


class Capturer:
    """One open camera device (camcore_capturer). Use as a context manager.

    Created by Manager.open(). close() (or leaving the `with` block) stops
    streaming and closes the device; after it, every method raises
    StateError. It keeps its Manager alive; closing the Manager closes it.
    """

    def __init__(self, handle: int, device_id: str, manager: Optional["Manager"] = None):
        self._manager = manager       # kept alive by its capturers (its close closes them)
        self._handle: Optional[int] = handle
        self._device_id = device_id
        self._lock = threading.Lock()
        self._thunks = None          # (callbacks struct, ON_FRAME, ON_ERROR) C may call
        self._generation = 0         # bumped by each start
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
                     on_stall: Optional[OnStall] = None):
        def frame_thunk(_user_data, frame_ptr):
            self._cb_thread = _get_ident()
            frame = Frame(frame_ptr)
            try:
                on_frame(frame)
            except BaseException as e:  # never let it reach C; report from stop()
                self._store_callback_exception(e)
            finally:
                frame._invalidate()

        def error_thunk(_user_data, status, message):
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

        def stall_thunk(_user_data, stalled, since_ns):
            prev = getattr(_tls, "capturer", None)
            _tls.capturer = self
            try:
                on_stall(bool(stalled), since_ns)
            except BaseException as e:
                self._store_callback_exception(e)
            finally:
                _tls.capturer = prev

        cbs = camcore_frame_callbacks()
        _lib.camcore_frame_callbacks_init(byref(cbs))
        f = ON_FRAME(frame_thunk) if on_frame is not None else ON_FRAME()
        e = ON_ERROR(error_thunk)
        st = ON_STALL(stall_thunk) if on_stall is not None else ON_STALL()
        cbs.on_frame = f
        cbs.on_error = e
        cbs.on_stall = st
        return cbs, f, e, st

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
        """The device's file descriptor (S28). Borrowed: do not close it.

        Raises NotSupportedError for the synthetic camera.
        """
        return _check(_lib.camcore_capturer_fd(self._h()), "camcore_capturer_fd")

    @property
    def format(self) -> CaptureFormat:
        """The format, strides and rate the driver applied (StateError if never started)."""
        out = camcore_capture_format()
        out.struct_size = sizeof(camcore_capture_format)
        _check(_lib.camcore_capturer_get_format(self._h(), byref(out)),
               "camcore_capturer_get_format")
        n = min(out.plane_count, 3)
        return CaptureFormat(
            fourcc=fourcc_str(out.fourcc), width=out.width, height=out.height,
            plane_count=out.plane_count, strides=[out.strides[i] for i in range(n)],
            frame_bytes=out.frame_bytes, fps=_frac(out.fps), buffer_count=out.buffer_count,
            source_fourcc=fourcc_str(out.source_fourcc), adjusted=out.adjusted)

    @property
    def stats(self) -> CaptureStats:
        """Frames delivered, dropped and corrupted since the last start."""
        out = camcore_capture_stats()
        out.struct_size = sizeof(camcore_capture_stats)
        _check(_lib.camcore_capturer_get_stats(self._h(), byref(out)),
               "camcore_capturer_get_stats")
        return CaptureStats(out.frames_delivered, out.frames_dropped, out.frames_corrupted,
                            out.measured_fps, out.stalls)

    def start(self, fourcc: Union[str, int] = "YUYV", width: int = 640, height: int = 480,
              fps: Union[int, Fraction, float, Tuple[int, int], None] = 30,
              on_frame: Optional[OnFrame] = None, on_error: Optional[OnError] = None,
              buffer_count: int = 4, output: Union[str, int, None] = None,
              on_stall: Optional[OnStall] = None, dmabuf: bool = False,
              output_size: Optional[Tuple[int, int]] = None) -> None:
        """Sets the format and rate and starts streaming (camcore_capturer_start).

        Args:
            fourcc: pixel format, 'YUYV', 'YU12', 'NV12', ... or its int code; the
                names 'I420' (-> 'YU12'), 'MJPEG', 'RGB24', 'BGR24' are accepted too.
                Frames report the V4L2 FourCC ('YU12' for I420).
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
                last frame before the stall. The stream is not restarted.
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
        (no such pixel format), BusyError, NoDeviceError, IOError_, NoMemoryError,
        WouldDeadlockError (called from this capturer's callback).
        The callables are kept alive until stop() or close() returns.
        """
        h = self._h()
        on_frame = _callable("on_frame", on_frame)
        on_error = _callable("on_error", on_error)
        on_stall = _callable("on_stall", on_stall)
        cfg = camcore_capture_config()
        _lib.camcore_capture_config_init(byref(cfg))
        cfg.fourcc = _fourcc(fourcc)
        cfg.width = _u32("width", width)
        cfg.height = _u32("height", height)
        cfg.fps = _to_c_fraction(fps)
        cfg.buffer_count = _u32("buffer_count", buffer_count)
        cfg.output_fourcc = _output_fourcc(output)
        cfg.dmabuf = 1 if _bool("dmabuf", dmabuf) else 0
        cfg.output_width, cfg.output_height = _output_size(output_size)
        thunks = self._make_thunks(on_frame, on_error, on_stall)
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
            err = error_for_status(status, "camcore_capturer_start", last_error_message())
            with self._lock:
                if self._generation == generation:
                    # Restore what was there: the failed start's thunks are never called.
                    self._thunks = previous
                    if previous is None:
                        with _live_lock:
                            _live.discard(self)
            raise err

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
            _check(status, "camcore_capturer_stop")
            raise WouldDeadlockError(
                "camcore_capturer_stop returned OK from inside its own callback (library bug)")
        _check(status, "camcore_capturer_stop")
        self._cb_thread = None
        self._forget_thunks(generation)
        exc = self._take_callback_exception()
        if exc is not None:
            raise exc

    def close(self) -> None:
        """Stops and closes the device (camcore_capturer_close). Closing twice is OK.

        When it returns no callback runs again and the fd is closed; retained
        frames stay valid until released. A callback exception not yet
        re-raised by stop() is logged. Raises WouldDeadlockError (and leaves
        the capturer open) when called from this capturer's own callback.
        """
        if self._in_own_callback():
            raise WouldDeadlockError(
                f"close() of {self._device_id!r} called from its own callback",
                detail="the capturer stays open")
        with self._lock:
            h, self._handle = self._handle, None
            generation = self._generation
        if h is None:
            return
        _lib.camcore_capturer_close(h)
        self._cb_thread = None
        self._forget_thunks(generation)
        exc = self._take_callback_exception()
        if exc is not None:
            log.error("camcore: exception in a callback of %r", self._device_id,
                      exc_info=(type(exc), exc, exc.__traceback__))

    def capture(self, n: int, fourcc: Union[str, int] = "YUYV", width: int = 640,
                height: int = 480, fps: Union[int, Fraction, float, None] = 30,
                timeout: float = 10.0, buffer_count: int = 4,
                output: Union[str, int, None] = None,
                output_size: Optional[Tuple[int, int]] = None) -> List[CapturedFrame]:
        """Starts, collects n frames as copies, stops; returns them in capture order.
        output and output_size are start()'s.

        Blocks the calling thread up to `timeout` seconds (TimeoutError_ if fewer
        than n frames came). Re-raises an error that ended streaming and any
        exception from the internal callback.
        """
        if n < 0:
            raise InvalidArgError(f"n={n} must be >= 0")
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

        self.start(fourcc=fourcc, width=width, height=height, fps=fps, on_frame=on_frame,
                   on_error=on_error, buffer_count=buffer_count, output=output,
                   output_size=output_size)
        try:
            got = done.wait(timeout)
        finally:
            self.stop()
        if errors:
            raise errors[0]
        if not got:
            raise TimeoutError_(f"capture: {len(frames)} of {n} frames in {timeout} s",
                                status=E_TIMEOUT)
        return frames[:n]

    def __enter__(self) -> "Capturer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        # Not reached while streaming (_live holds a reference); closes a stopped one.
        try:
            if self._handle is not None and not self._in_own_callback():
                self.close()
        except Exception:
            pass

    def __repr__(self) -> str:
        state = "closed" if self._handle is None else "open"
        return f"<camcore.Capturer {self._device_id!r} {state}>"


# --------------------------------------------------------------------------
# Manager
# --------------------------------------------------------------------------


#: Backend names (camcore_backend values in this order, S33).
BACKENDS = ("auto", "v4l2", "pipewire", "both")
BACKEND_AUTO, BACKEND_V4L2, BACKEND_PIPEWIRE, BACKEND_BOTH = range(4)
#: Camera portal use (camcore_portal values in this order, S35).
PORTALS = ("auto", "never", "always")
PORTAL_AUTO, PORTAL_NEVER, PORTAL_ALWAYS = range(3)
#: Camera permission states (camcore_permission values in this order, S35).
PERMISSIONS = ("unknown", "pending", "granted", "denied")
PERMISSION_UNKNOWN, PERMISSION_PENDING, PERMISSION_GRANTED, PERMISSION_DENIED = range(4)


class Manager:
    """A camera manager (camcore_manager): lists devices and formats, opens capturers.

    Args:
        synthetic: also list the built-in synthetic camera (S4), after the real
            ones. The environment variable CAMCORE_SYNTHETIC_CAMERA=1, read when
            the manager is created, does the same. 2 lists two: a front
            "synthetic:0" and a back "synthetic:1" (to try Session.flip()).
        backend: "auto" (PipeWire in a sandbox, else V4L2; CAMCORE_BACKEND
            overrides it), "v4l2", "pipewire" or "both" (S33).
        pipewire_fd: a PipeWire remote fd the app holds (camera portal), or -1.
        portal: when PipeWire is reached through the camera portal (S35):
            "auto" (inside a sandbox; CAMCORE_PORTAL overrides it), "never" or
            "always". See camera_permission and request_camera_access().

    Use as a context manager; close() frees it and first closes every
    Capturer and Session made from it (they keep it alive until then).
    Raises NoMemoryError on failure.
    """

    def __init__(self, synthetic: Union[bool, int] = False, backend: str = "auto",
                 pipewire_fd: int = -1, portal: str = "auto"):
        cfg = camcore_manager_config()
        _lib.camcore_manager_config_init(byref(cfg))
        cfg.include_synthetic = _int_in("synthetic", synthetic, _I32_MIN, _I32_MAX)
        if not isinstance(backend, str) or backend not in BACKENDS:
            raise InvalidArgError(f"backend={backend!r}: one of {', '.join(BACKENDS)}")
        cfg.backend = BACKENDS.index(backend)
        cfg.pipewire_fd = _int_in("pipewire_fd", pipewire_fd, -1, _I32_MAX)
        if not isinstance(portal, str) or portal not in PORTALS:
            raise InvalidArgError(f"portal={portal!r}: one of {', '.join(PORTALS)}")
        cfg.portal = PORTALS.index(portal)
        out = _manager_p()
        _check(_lib.camcore_manager_new(byref(cfg), byref(out)), "camcore_manager_new")
        self._handle: Optional[int] = out.value
        self._lock = threading.Lock()
        self._children: "weakref.WeakSet" = weakref.WeakSet()  # its open capturers and sessions

    def _h(self) -> int:
        h = self._handle
        if h is None:
            raise StateError("manager is closed")
        return h

    def _adopt(self, child):
        with self._lock:
            self._children.add(child)
        return child

    @property
    def closed(self) -> bool:
        """True after close()."""
        return self._handle is None

    def devices(self) -> List[DeviceInfo]:
        """The capture devices present now (S1–S4): real cameras in node order, then
        the synthetic one if asked for. Opens each node briefly; nothing streams."""
        out = POINTER(camcore_device_list)()
        _check(_lib.camcore_manager_list_devices(self._h(), byref(out)),
               "camcore_manager_list_devices")
        try:
            lst = out.contents
            result = []
            for i in range(lst.count):
                d = lst.devices[i]
                result.append(DeviceInfo(
                    id=_s(d.id), name=_s(d.name), node=_s(d.node), bus_info=_s(d.bus_info),
                    driver=_s(d.driver), usb_vendor_id=d.usb_vendor_id,
                    usb_product_id=d.usb_product_id, flags=d.flags, device_caps=d.device_caps,
                    type=_TYPE_NAMES.get(d.type, f"unknown({d.type})"),
                    position=_POSITION_NAMES.get(d.position, f"unknown({d.position})"),
                    multiplanar=bool(d.flags & DEVICE_MULTIPLANAR),
                    synthetic=bool(d.flags & DEVICE_SYNTHETIC),
                    unavailable_reason=_s(d.unavailable_reason), backend=_s(d.backend),
                    v4l2_id=_s(d.v4l2_id)))
            return result
        finally:
            _lib.camcore_device_list_free(out)

    def formats(self, device_id: str) -> List[Format]:
        """The formats of one device (S5), in the driver's order then size order.

        Raises NoDeviceError for an unknown id, AccessError, BusyError, IOError_.
        """
        out = POINTER(camcore_format_list)()
        _check(_lib.camcore_manager_list_formats(self._h(), _cstr("device_id", device_id),
                                                 byref(out)),
               f"camcore_manager_list_formats({device_id!r})")
        try:
            lst = out.contents
            result = []
            for i in range(lst.count):
                f = lst.formats[i]
                rates = [Fraction(f.rates[j].numerator, f.rates[j].denominator)
                         for j in range(f.rate_count) if f.rates[j].denominator] \
                    if f.rates else []
                result.append(Format(
                    fourcc=fourcc_str(f.fourcc), fourcc_code=f.fourcc, flags=f.flags,
                    compressed=bool(f.flags & FORMAT_COMPRESSED),
                    description=f.description.decode("utf-8", errors="replace"),
                    size_kind=_RANGE_NAMES.get(f.size_kind, f"unknown({f.size_kind})"),
                    width=f.width, height=f.height,
                    min_width=f.min_width, max_width=f.max_width, step_width=f.step_width,
                    min_height=f.min_height, max_height=f.max_height,
                    step_height=f.step_height,
                    rate_kind=_RANGE_NAMES.get(f.rate_kind, f"unknown({f.rate_kind})"),
                    rates=rates,
                    min_fps=None if f.rate_kind == RANGE_UNKNOWN else _frac(f.min_fps),
                    max_fps=None if f.rate_kind == RANGE_UNKNOWN else _frac(f.max_fps),
                    interval_step=_frac(f.interval_step)))
            return result
        finally:
            _lib.camcore_format_list_free(out)

    def _setting(self, out: camcore_setting) -> Setting:
        return Setting(fourcc=fourcc_str(out.fourcc), fourcc_code=out.fourcc, width=out.width,
                       height=out.height, fps=_frac(out.fps), adjusted=out.adjusted)

    def negotiate(self, device_id: str, width: int = 1280, height: int = 720,
                  min_fps=15, max_fps=30, output: Union[str, int, None] = None) -> Setting:
        """The setting of a device nearest to a preference (S6, camcore_manager_negotiate).

        Defaults are S6's: 1280x720 at 15–30 fps, native output. Sizes in pixels,
        rates in fps (int, Fraction, float or (num, den)). Returns a Setting whose
        .adjusted says what differs. Raises NoDeviceError, AccessError, IOError_,
        NotSupportedError (the device lists no formats).
        """
        pref = camcore_preference()
        _lib.camcore_preference_init(byref(pref))
        pref.width = _u32("width", width)
        pref.height = _u32("height", height)
        pref.min_fps = _to_c_fraction(min_fps)
        pref.max_fps = _to_c_fraction(max_fps)
        pref.output_fourcc = _output_fourcc(output)
        out = camcore_setting()
        out.struct_size = sizeof(camcore_setting)
        _check(_lib.camcore_manager_negotiate(self._h(), _cstr("device_id", device_id), byref(pref),
                                              byref(out)),
               f"camcore_manager_negotiate({device_id!r})")
        return self._setting(out)

    def format_for(self, device_id: str, width: int, height: int, fps) -> Setting:
        """S7 format_for: the format nearest to width x height among those supporting
        fps exactly (camcore_manager_format_for). Raises NotSupportedError when no
        format supports fps, NoDeviceError, IOError_."""
        out = camcore_setting()
        out.struct_size = sizeof(camcore_setting)
        _check(_lib.camcore_manager_format_for(self._h(), _cstr("device_id", device_id),
                                               _u32("width", width), _u32("height", height),
                                               _to_c_fraction(fps), byref(out)),
               f"camcore_manager_format_for({device_id!r})")
        return self._setting(out)

    def max_frame_rate(self, device_id: str, fourcc: Union[str, int], width: int, height: int,
                       fps) -> Optional[Fraction]:
        """S7 max_frame_rate: fps if the format at this size supports it, else the
        supported rate closest to it, in fps (camcore_manager_max_frame_rate).
        Raises NotSupportedError (no such format, or rates unknown), NoDeviceError."""
        out = camcore_fraction()
        _check(_lib.camcore_manager_max_frame_rate(self._h(), _cstr("device_id", device_id),
                                                   _fourcc(fourcc), _u32("width", width),
                                                   _u32("height", height), _to_c_fraction(fps),
                                                   byref(out)),
               f"camcore_manager_max_frame_rate({device_id!r})")
        return _frac(out)

    def open(self, device_id: str) -> Capturer:
        """Opens a device (camcore_capturer_open); nothing streams yet.

        Returns a Capturer (a context manager). Raises NoDeviceError (unknown id
        or gone), AccessError, BusyError, IOError_, NoMemoryError.
        """
        out = _capturer_p()
        _check(_lib.camcore_capturer_open(self._h(), _cstr("device_id", device_id), byref(out)),
               f"camcore_capturer_open({device_id!r})")
        return self._adopt(Capturer(out.value, device_id, self))

    def close(self) -> None:
        """Closes every Capturer and Session made from this manager, then frees it
        (camcore_manager_free). When it returns none of their callbacks runs
        again. Closing twice is OK. Raises WouldDeadlockError (and closes
        nothing) when called from a callback of one of them or from this
        manager's hot-plug callback."""
        with self._lock:
            if self._handle is None:
                return
            children = list(self._children)
        if getattr(_hotplug_tls, "manager", None) is self or \
                any(c._in_own_callback() for c in children):
            raise WouldDeadlockError("Manager.close() called from a callback of the manager or "
                                     "of something made from it", detail="nothing was closed")
        for c in children:
            c.close()
        with self._lock:
            h, self._handle = self._handle, None
        if h is not None:
            _lib.camcore_manager_free(h)

    def __enter__(self) -> "Manager":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        # Reached only once no capturer or session of it is left (they hold it).
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self) -> str:
        return f"<camcore.Manager {'closed' if self._handle is None else 'open'}>"


# ==========================================================================
# Controls (S27, S28) — the "Controls" section of camcore.h
# ==========================================================================
# Kept apart from the rest of the module: the Capturer methods below are
# attached by _install_control_methods() at the end of this section.
#
#     with m.open(device_id) as cap:
#         for c in cap.controls():              # list[Control]
#             print(c.key, c.value, c.range, c.flags_names, c.menu)
#         cap.control("brightness").value = 200 # or cap.control(camcore.CID_BRIGHTNESS)
#         applied = cap.control("exposure_time_absolute").set(333)  # driver-rounded value
#         cap.on_control_changed(lambda ch: print(ch))            # ControlChange events

from ctypes import c_int64 as _c_int64  # noqa: E402

#: Control types (camcore_control_type; equal to V4L2_CTRL_TYPE_*).
CONTROL_TYPE_INTEGER = 1
CONTROL_TYPE_BOOLEAN = 2
CONTROL_TYPE_MENU = 3
CONTROL_TYPE_BUTTON = 4
CONTROL_TYPE_INTEGER64 = 5
CONTROL_TYPE_STRING = 7
CONTROL_TYPE_BITMASK = 8
CONTROL_TYPE_INTEGER_MENU = 9
_CONTROL_TYPE_NAMES = {1: "int", 2: "bool", 3: "menu", 4: "button", 5: "int64", 7: "string",
                       8: "bitmask", 9: "intmenu"}

#: Control flags (CAMCORE_CONTROL_FLAG_*; equal to V4L2_CTRL_FLAG_*).
CONTROL_FLAG_DISABLED = 0x0001
CONTROL_FLAG_GRABBED = 0x0002
CONTROL_FLAG_READ_ONLY = 0x0004
CONTROL_FLAG_UPDATE = 0x0008
CONTROL_FLAG_INACTIVE = 0x0010
CONTROL_FLAG_SLIDER = 0x0020
CONTROL_FLAG_WRITE_ONLY = 0x0040
CONTROL_FLAG_VOLATILE = 0x0080
CONTROL_FLAG_HAS_PAYLOAD = 0x0100
CONTROL_FLAG_EXECUTE_ON_WRITE = 0x0200
CONTROL_FLAG_MODIFY_LAYOUT = 0x0400
CONTROL_FLAG_DYNAMIC_ARRAY = 0x0800
_CONTROL_FLAG_NAMES = [
    (CONTROL_FLAG_DISABLED, "disabled"), (CONTROL_FLAG_GRABBED, "grabbed"),
    (CONTROL_FLAG_READ_ONLY, "read-only"), (CONTROL_FLAG_UPDATE, "update"),
    (CONTROL_FLAG_INACTIVE, "inactive"), (CONTROL_FLAG_SLIDER, "slider"),
    (CONTROL_FLAG_WRITE_ONLY, "write-only"), (CONTROL_FLAG_VOLATILE, "volatile"),
    (CONTROL_FLAG_HAS_PAYLOAD, "has-payload"), (CONTROL_FLAG_EXECUTE_ON_WRITE, "execute-on-write"),
    (CONTROL_FLAG_MODIFY_LAYOUT, "modify-layout"), (CONTROL_FLAG_DYNAMIC_ARRAY, "dynamic-array")]

#: What changed in a ControlChange (CAMCORE_CONTROL_CHANGED_*; V4L2_EVENT_CTRL_CH_*).
CONTROL_CHANGED_VALUE = 0x1
CONTROL_CHANGED_FLAGS = 0x2
CONTROL_CHANGED_RANGE = 0x4

#: Ids of common camera controls (CAMCORE_CID_*; equal to V4L2_CID_*).
CID_BRIGHTNESS = 0x00980900
CID_CONTRAST = 0x00980901
CID_SATURATION = 0x00980902
CID_WHITE_BALANCE_AUTO = 0x0098090C
CID_AUTOGAIN = 0x00980912
CID_GAIN = 0x00980913
CID_POWER_LINE_FREQUENCY = 0x00980918
CID_WHITE_BALANCE_TEMPERATURE = 0x0098091A
CID_SHARPNESS = 0x0098091B
CID_BACKLIGHT_COMPENSATION = 0x0098091C
CID_EXPOSURE_AUTO = 0x009A0901
CID_EXPOSURE_ABSOLUTE = 0x009A0902
CID_PAN_ABSOLUTE = 0x009A0908
CID_TILT_ABSOLUTE = 0x009A0909
CID_FOCUS_ABSOLUTE = 0x009A090A
CID_FOCUS_AUTO = 0x009A090C
CID_ZOOM_ABSOLUTE = 0x009A090D


class camcore_menu_item(Structure):
    _fields_ = [("index", c_uint32), ("name", c_char_p), ("value", _c_int64)]


class camcore_control_info(Structure):
    _fields_ = [
        ("id", c_uint32),
        ("type", c_int32),
        ("name", c_char_p),
        ("minimum", _c_int64),
        ("maximum", _c_int64),
        ("step", _c_int64),
        ("default_value", _c_int64),
        ("value", _c_int64),
        ("flags", c_uint32),
        ("menu_count", c_uint32),
        ("menu", POINTER(camcore_menu_item)),
    ]


class camcore_control_list(Structure):
    _fields_ = [("count", c_size_t), ("controls", POINTER(camcore_control_info))]


ON_CONTROL_CHANGED = CFUNCTYPE(None, c_void_p, c_uint32, _c_int64, c_uint32, c_uint32)


class camcore_control_callbacks(Structure):
    _fields_ = [
        ("struct_size", c_uint32),
        ("user_data", c_void_p),
        ("on_control_changed", ON_CONTROL_CHANGED),
    ]


_CONTROL_PROTOTYPES = [
    ("camcore_capturer_list_controls", c_int,
     [_capturer_p, POINTER(POINTER(camcore_control_list))]),
    ("camcore_control_list_free", None, [POINTER(camcore_control_list)]),
    ("camcore_capturer_get_control", c_int, [_capturer_p, c_uint32, POINTER(_c_int64)]),
    ("camcore_capturer_set_control", c_int,
     [_capturer_p, c_uint32, _c_int64, POINTER(_c_int64)]),
    ("camcore_capturer_get_control_string", c_int, [_capturer_p, c_uint32, c_void_p, c_size_t]),
    ("camcore_capturer_set_control_string", c_int, [_capturer_p, c_uint32, c_char_p]),
    ("camcore_control_callbacks_init", None, [POINTER(camcore_control_callbacks)]),
    ("camcore_capturer_set_control_callbacks", c_int,
     [_capturer_p, POINTER(camcore_control_callbacks)]),
]
_PROTOTYPES.extend(_CONTROL_PROTOTYPES)
for _name, _restype, _argtypes in _CONTROL_PROTOTYPES:
    try:
        _fn = getattr(_lib, _name)
    except AttributeError as _e:
        raise ImportError(f"camcore: {_lib_path} lacks {_name}; library older than this module?") \
            from _e
    _fn.restype = _restype
    _fn.argtypes = _argtypes


def control_key(name: str) -> str:
    """The short name of a control, as v4l2-ctl and `camcore controls` print it:
    lower case, other characters as one '_' ("Gain, Automatic" -> "gain_automatic")."""
    out, pending = [], False
    for ch in name:
        if ch.isascii() and ch.isalnum():
            if pending and out:
                out.append("_")
            pending = False
            out.append(ch.lower())
        else:
            pending = True
    return "".join(out)


@dataclasses.dataclass(frozen=True)
class MenuItem:
    """One item of a menu control: set ``index`` to choose it. ``value`` is the
    number an integer-menu item stands for (equal to index for menus)."""
    index: int
    name: str
    value: int


@dataclasses.dataclass(frozen=True)
class ControlChange:
    """A control-change event (V4L2_EVENT_CTRL), as on_control_changed receives it."""
    id: int
    value: int
    flags: int
    changes: int

    @property
    def value_changed(self) -> bool:
        return bool(self.changes & CONTROL_CHANGED_VALUE)

    @property
    def flags_changed(self) -> bool:
        return bool(self.changes & CONTROL_CHANGED_FLAGS)

    @property
    def range_changed(self) -> bool:
        return bool(self.changes & CONTROL_CHANGED_RANGE)

    @property
    def inactive(self) -> bool:
        return bool(self.flags & CONTROL_FLAG_INACTIVE)


class Control:
    """One control of an open capturer (S27), from Capturer.controls() or .control().

    The description (name, type, range, flags, menu) is what it was when listed;
    ``.value`` reads and writes the device each time. Setting a read-only control
    raises NotSupportedError, an inactive or grabbed one StateError, a value out of
    range (or a skipped menu index, or foreign bitmask bits) InvalidArgError whose
    message gives the valid range. Off-step values are rounded by the driver: use
    set() to learn the value applied.
    """

    def __init__(self, capturer: "Capturer", c: camcore_control_info):
        self._capturer = capturer
        self.id: int = c.id
        self.name: str = _s(c.name)
        self.key: str = control_key(self.name)
        self.type_code: int = c.type
        self.type: str = _CONTROL_TYPE_NAMES.get(c.type, f"unknown({c.type})")
        self.minimum: int = c.minimum
        self.maximum: int = c.maximum
        self.step: int = c.step
        self.default: int = c.default_value
        #: The value when listed (0 for buttons, write-only and string controls;
        #: read a string control's text with .value).
        self.listed_value: int = c.value
        self.flags: int = c.flags
        self.menu: List[MenuItem] = [
            MenuItem(c.menu[i].index, _s(c.menu[i].name), c.menu[i].value)
            for i in range(c.menu_count)] if c.menu_count else []

    @property
    def _string_room(self) -> int:
        return max(1, min(self.maximum, _STRING_CONTROL_MAX))

    @property
    def range(self) -> Tuple[int, int, int]:
        """(minimum, maximum, step). Bitmask: maximum holds the settable bits."""
        return (self.minimum, self.maximum, self.step)

    @property
    def flags_names(self) -> List[str]:
        return [n for bit, n in _CONTROL_FLAG_NAMES if self.flags & bit]

    read_only = property(lambda self: bool(self.flags & CONTROL_FLAG_READ_ONLY))
    write_only = property(lambda self: bool(self.flags & CONTROL_FLAG_WRITE_ONLY))
    inactive = property(lambda self: bool(self.flags & CONTROL_FLAG_INACTIVE))
    volatile = property(lambda self: bool(self.flags & CONTROL_FLAG_VOLATILE))
    grabbed = property(lambda self: bool(self.flags & CONTROL_FLAG_GRABBED))

    @property
    def value(self) -> Union[int, str]:
        """The current value (camcore_capturer_get_control); the text of a string
        control (camcore_capturer_get_control_string). Raises NotSupportedError for
        buttons and write-only controls."""
        if self.type_code == CONTROL_TYPE_STRING:
            return self._capturer.get_control_string(self.id, self._string_room)
        return self._capturer.get_control(self.id)

    @value.setter
    def value(self, v) -> None:
        self.set(v)

    def set(self, v) -> Union[int, str]:
        """Sets the control and returns the value the driver applied. ``v`` is an
        int, a bool, for menus an item's name, for string controls a str (its
        UTF-8 length within minimum..maximum; the text read back is returned)."""
        if self.type_code == CONTROL_TYPE_STRING:
            self._capturer.set_control_string(self.id, v)
            return v if self.write_only else self._capturer.get_control_string(self.id, self._string_room)
        if isinstance(v, str):
            want = control_key(v)
            for item in self.menu:
                if item.name.lower() == v.lower() or control_key(item.name) == want:
                    v = item.index
                    break
            else:
                raise InvalidArgError(
                    f"{v!r} is not an item of {self.name!r}; items: "
                    + ", ".join(f"{i.index}: {i.name}" for i in self.menu), status=E_INVALID_ARG)
        return self._capturer.set_control(self.id, int(v))

    def press(self) -> None:
        """Presses a button control."""
        self._capturer.set_control(self.id, 1)

    def refresh(self) -> "Control":
        """A fresh description (flags and range may have changed)."""
        return self._capturer.control(self.id)

    def __repr__(self) -> str:
        flags = ",".join(self.flags_names)
        return (f"<camcore.Control {self.key} 0x{self.id:08x} {self.type} "
                f"range={self.range} default={self.default}"
                + (f" flags={flags}" if flags else "") + ">")


OnControlChanged = Callable[[ControlChange], None]


def _capturer_controls(self: "Capturer") -> List[Control]:
    """Every control of the device with its description (camcore_capturer_list_controls).
    Empty for the synthetic camera. Raises StateError after close()."""
    out = POINTER(camcore_control_list)()
    _check(_lib.camcore_capturer_list_controls(self._h(), byref(out)),
           "camcore_capturer_list_controls")
    try:
        lst = out.contents
        return [Control(self, lst.controls[i]) for i in range(lst.count)]
    finally:
        _lib.camcore_control_list_free(out)


def _capturer_control(self: "Capturer", name_or_id: Union[str, int]) -> Control:
    """One control by id (int, e.g. camcore.CID_BRIGHTNESS), short name
    ("brightness", "gain_automatic") or full name ("Gain, Automatic").
    Raises NotSupportedError when the device has no such control."""
    controls = _capturer_controls(self)
    for c in controls:
        if isinstance(name_or_id, int):
            if c.id == name_or_id:
                return c
        elif c.key == control_key(name_or_id) or c.name.lower() == name_or_id.lower():
            return c
    what = f"0x{name_or_id:08x}" if isinstance(name_or_id, int) else repr(name_or_id)
    have = ", ".join(c.key for c in controls) or "none"
    raise NotSupportedError(f"{self._device_id!r} has no control {what} (controls: {have})",
                            status=E_NOT_SUPPORTED)


def _control_id(value) -> int:
    """A control id for every control call: an integer (int, numpy integer) in
    0..2**32-1, else InvalidArgError."""
    if isinstance(value, bool):
        raise InvalidArgError("a control id is an int, not bool", status=E_INVALID_ARG)
    try:
        v = operator.index(value)
    except TypeError:
        raise InvalidArgError(f"a control id is an int, not {type(value).__name__}", status=E_INVALID_ARG) from None
    return _u32("control_id", v)


def _capturer_get_control(self: "Capturer", control_id: int) -> int:
    """The current value of control ``control_id`` (camcore_capturer_get_control)."""
    cid = _control_id(control_id)
    v = _c_int64()
    _check(_lib.camcore_capturer_get_control(self._h(), cid, byref(v)),
           f"camcore_capturer_get_control(0x{cid:08x})")
    return v.value


def _capturer_set_control(self: "Capturer", control_id: int, value: int) -> int:
    """Sets control ``control_id``; returns the value applied (camcore_capturer_set_control)."""
    cid = _control_id(control_id)
    value = _int_in("value", value, _I64_MIN, _I64_MAX)
    applied = _c_int64()
    _check(_lib.camcore_capturer_set_control(self._h(), cid, value, byref(applied)),
           f"camcore_capturer_set_control(0x{cid:08x}, {value})")
    return applied.value


_STRING_CONTROL_MAX = 1 << 20


def _capturer_get_control_string(self: "Capturer", control_id: int, max_bytes: int = 4096) -> str:
    """The text of string control ``control_id`` (camcore_capturer_get_control_string),
    decoded as UTF-8 (invalid bytes become U+FFFD). ``max_bytes``: the longest text
    expected, 1..2**20 (Control.maximum of the control always suffices)."""
    cid = _control_id(control_id)
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or not 1 <= max_bytes <= _STRING_CONTROL_MAX:
        raise InvalidArgError(f"max_bytes={max_bytes!r}: an int from 1 to {_STRING_CONTROL_MAX}",
                              status=E_INVALID_ARG)
    buf = ctypes.create_string_buffer(max_bytes + 1)
    _check(_lib.camcore_capturer_get_control_string(self._h(), cid, buf, max_bytes + 1),
           f"camcore_capturer_get_control_string(0x{cid:08x})")
    return buf.value.decode("utf-8", "replace")


def _capturer_set_control_string(self: "Capturer", control_id: int, text: str) -> None:
    """Sets string control ``control_id`` (camcore_capturer_set_control_string). Its
    length in UTF-8 bytes must fit the control's range and it may not hold a NUL,
    else InvalidArgError; nothing is cut short."""
    cid = _control_id(control_id)
    data = _cstr("a string control's text", text)
    shown = repr(text) if len(text) <= 40 else repr(text[:37]) + f"... ({len(data)} bytes)"
    _check(_lib.camcore_capturer_set_control_string(self._h(), cid, data),
           f"camcore_capturer_set_control_string(0x{cid:08x}, {shown})")


def _capturer_on_control_changed(self: "Capturer", callback: Optional[OnControlChanged]) -> None:
    """Calls ``callback(change: ControlChange)`` on camcore's control-event thread
    whenever a control's value, flags or range changes (including changes made
    through this capturer); None removes it. When this returns after removing or
    replacing a callback, the old one is never called again. Exceptions in the
    callback are logged. Raises WouldDeadlockError when called from the callback,
    NotSupportedError when the driver reports no control events."""
    h = self._h()
    callback = _callable("on_control_changed callback", callback)
    if callback is None:
        _check(_lib.camcore_capturer_set_control_callbacks(h, None),
               "camcore_capturer_set_control_callbacks")
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
    old = getattr(self, "_control_thunk", None)
    self._control_thunk = (cbs, fn, old)  # the old one stays alive until C let go of it
    _check(_lib.camcore_capturer_set_control_callbacks(h, byref(cbs)),
           "camcore_capturer_set_control_callbacks")
    self._control_thunk = (cbs, fn)


def _install_control_methods() -> None:
    Capturer.controls = _capturer_controls
    Capturer.control = _capturer_control
    Capturer.get_control = _capturer_get_control
    Capturer.set_control = _capturer_set_control
    Capturer.get_control_string = _capturer_get_control_string
    Capturer.set_control_string = _capturer_set_control_string
    Capturer.on_control_changed = _capturer_on_control_changed


_install_control_methods()


# ==========================================================================
# Pull (S36) — camcore_capturer_start_pull / acquire_frame / get_frame_fd
# ==========================================================================
# Kept apart from the rest of the module: the Capturer methods are attached
# at the end of this section.
#
#     with camcore.Manager() as m, m.open(m.devices()[0].id) as cap:
#         for frame in cap.frames(30, width=640, height=480):    # no callback per frame
#             print(frame.sequence, frame.array.shape)            # valid until the next one
#
#         async for frame in cap.aframes(30):                     # the same in asyncio
#             ...

_PULL_PROTOTYPES = [
    ("camcore_capturer_start_pull", c_int, [_capturer_p, POINTER(camcore_capture_config), c_uint32]),
    ("camcore_capturer_acquire_frame", c_int, [_capturer_p, c_int32, POINTER(POINTER(camcore_frame))]),
    ("camcore_capturer_get_frame_fd", c_int, [_capturer_p, POINTER(c_int32)]),
]
for _name, _restype, _argtypes in _PULL_PROTOTYPES:
    getattr(_lib, _name).restype = _restype
    getattr(_lib, _name).argtypes = _argtypes
_PROTOTYPES.extend(_PULL_PROTOTYPES)

#: Queue depths start_pull() accepts (CAMCORE_PULL_DEPTH_MIN...MAX).
PULL_DEPTH_MIN, PULL_DEPTH_MAX = 1, 8


def _timeout_ms(timeout: Optional[float]) -> int:
    if timeout is None:
        return -1
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout != timeout or timeout < 0:
        raise InvalidArgValueError(f"timeout={timeout!r}: seconds >= 0, or None")
    return min(int(timeout * 1000), _I32_MAX)


def _count_arg(count: Optional[int]) -> None:
    if count is not None and (isinstance(count, bool) or not isinstance(count, int) or count < 0):
        raise InvalidArgValueError(f"count={count!r}: an int >= 0, or None")


def _pull_settle(prev: Optional[RetainedFrame], held, defer: bool):
    """Ends the pull loop's last frame `prev`: released now, unless numpy views
    of it are still referenced; then, with `defer`, it is held one more
    iteration (returned as `held`: the common `img = frame.array` keeps the
    previous frame's view until the next frame is assigned), else its views
    keep its buffer. A frame `held` from the iteration before is settled the
    same way, without deferring again."""
    if held is not None:
        _keep_escaped(held[1], held[0])
        held = None   # its buffer goes back here unless an escaped view took it
    if prev is not None:
        px, used = prev._end()
        if used is not None:
            if defer:
                for v in used:
                    if v.escaped():
                        return (px, used)
            else:
                _keep_escaped(used, px)
    return None


def _pulled(acquire, args: tuple, count: Optional[int], what: str, depth: int):
    """Yields `count` frames (None: no end) taken with acquire(*args, &frame), each
    released when the next is asked for or the loop ends (frames(), preview_frames())."""
    prev = None
    held = None
    defer = depth >= 2   # room in the queue's held frames for one kept back
    n = 0
    try:
        while count is None or n < count:
            held = _pull_settle(prev, held, defer)
            prev = None
            out = _frame_p()
            status = acquire(*args, byref(out))
            if status:
                _check(status, what)
            prev = RetainedFrame(out)
            n += 1
            yield prev
    finally:
        _pull_settle(prev, held, False)


def _capturer_start_pull(self: "Capturer", fourcc: Union[str, int] = "YUYV", width: int = 640,
                         height: int = 480, fps: Union[int, Fraction, float, Tuple[int, int], None] = 30,
                         buffer_count: int = 4, output: Union[str, int, None] = None,
                         depth: int = 2, dmabuf: bool = False,
                         output_size: Optional[Tuple[int, int]] = None) -> None:
    """Starts streaming in pull mode (S36, camcore_capturer_start_pull): frames
    wait in a queue of `depth` (1..8) for acquire(); a full queue gives up its
    oldest frame (counted in .stats.frames_dropped), so a slow reader never
    stalls the driver. Arguments as start() (no callbacks). Raises as start(),
    and InvalidArgError for a depth out of range."""
    h = self._h()
    cfg = camcore_capture_config()
    _lib.camcore_capture_config_init(byref(cfg))
    cfg.fourcc = _fourcc(fourcc)
    cfg.width = _u32("width", width)
    cfg.height = _u32("height", height)
    cfg.fps = _to_c_fraction(fps)
    cfg.buffer_count = _u32("buffer_count", buffer_count)
    cfg.output_fourcc = _output_fourcc(output)
    cfg.dmabuf = 1 if _bool("dmabuf", dmabuf) else 0
    cfg.output_width, cfg.output_height = _output_size(output_size)
    _check(_lib.camcore_capturer_start_pull(h, byref(cfg), _int_in("depth", depth, 0, _I32_MAX)),
           "camcore_capturer_start_pull")


def _capturer_acquire(self: "Capturer", timeout: Optional[float] = 5.0) -> RetainedFrame:
    """The oldest queued frame of a capturer started with start_pull()
    (camcore_capturer_acquire_frame), waiting up to timeout seconds (0: only a
    ready one; None: no limit). Returns a RetainedFrame: release() it (or use
    `with`) when done; at most `depth` may be held at once. Raises
    TimeoutError_, StateError (started with callbacks, not started, stopped,
    or too many held), and the error that ended streaming."""
    h = self._h()
    out = POINTER(camcore_frame)()
    _check(_lib.camcore_capturer_acquire_frame(h, _timeout_ms(timeout), byref(out)),
           "camcore_capturer_acquire_frame")
    return RetainedFrame(out)


def _capturer_frame_fd(self: "Capturer") -> int:
    """An fd that is readable while a frame is ready (camcore_capturer_get_frame_fd),
    for select/poll/asyncio. camcore's: never read or close it."""
    fd = c_int32()
    _check(_lib.camcore_capturer_get_frame_fd(self._h(), byref(fd)), "camcore_capturer_get_frame_fd")
    return fd.value


def _capturer_frames(self: "Capturer", count: Optional[int] = None, fourcc: Union[str, int] = "YUYV",
                     width: int = 640, height: int = 480, fps=30, buffer_count: int = 4,
                     output: Union[str, int, None] = None, depth: int = 2,
                     timeout: Optional[float] = 5.0, dmabuf: bool = False,
                     output_size: Optional[Tuple[int, int]] = None):
    """Starts pull mode and yields `count` frames (None: until the loop ends),
    then stops. Each frame is valid until the next iteration (its buffer goes
    back then); frame.retain() keeps one longer, frame.copy() copies it.
    Numpy views keep their frame's buffer while they exist (counted among the
    `depth` frames held). `output`/`output_size` as start_pull() (S8, S38).
    Raises as start_pull() and acquire()."""
    _count_arg(count)
    ms = _timeout_ms(timeout)
    self.start_pull(fourcc, width, height, fps, buffer_count, output, depth, dmabuf, output_size)
    try:
        yield from _pulled(_lib.camcore_capturer_acquire_frame, (self._h(), ms), count,
                           "camcore_capturer_acquire_frame", depth)
    finally:
        if not self.closed:
            self.stop()


async def _capturer_aframes(self: "Capturer", count: Optional[int] = None, fourcc: Union[str, int] = "YUYV",
                            width: int = 640, height: int = 480, fps=30, buffer_count: int = 4,
                            output: Union[str, int, None] = None, depth: int = 2,
                            timeout: Optional[float] = 5.0, dmabuf: bool = False,
                            output_size: Optional[Tuple[int, int]] = None):
    """frames() for asyncio: waits on frame_fd() with the running loop's
    add_reader, so the loop runs other tasks between frames."""
    import asyncio
    _count_arg(count)
    _timeout_ms(timeout)
    loop = asyncio.get_running_loop()
    self.start_pull(fourcc, width, height, fps, buffer_count, output, depth, dmabuf, output_size)
    h = self._h()
    fd = self.frame_fd()
    acquire = _lib.camcore_capturer_acquire_frame
    prev = None
    held = None
    n = 0
    try:
        while count is None or n < count:
            held = _pull_settle(prev, held, depth >= 2)
            prev = None
            out = _frame_p()
            status = acquire(h, 0, byref(out))
            if status == E_TIMEOUT:
                ready = loop.create_future()
                loop.add_reader(fd, lambda: ready.done() or ready.set_result(None))
                try:
                    await asyncio.wait_for(ready, timeout)
                except asyncio.TimeoutError:
                    raise TimeoutError_(f"no frame within {timeout} s") from None
                finally:
                    loop.remove_reader(fd)
                continue
            _check(status, "camcore_capturer_acquire_frame")
            prev = RetainedFrame(out)
            n += 1
            yield prev
    finally:
        _pull_settle(prev, held, False)
        if not self.closed:
            self.stop()


_SESSION_PULL_PROTOTYPES = [
    ("camcore_session_add_preview_pull", c_int, [c_void_p, c_uint32, POINTER(c_uint32)]),
    ("camcore_session_acquire_preview_frame", c_int,
     [c_void_p, c_uint32, c_int32, POINTER(POINTER(camcore_frame))]),
    ("camcore_session_get_preview_fd", c_int, [c_void_p, c_uint32, POINTER(c_int32)]),
]
for _name, _restype, _argtypes in _SESSION_PULL_PROTOTYPES:
    getattr(_lib, _name).restype = _restype
    getattr(_lib, _name).argtypes = _argtypes
_PROTOTYPES.extend(_SESSION_PULL_PROTOTYPES)


def _session_add_preview_pull(self, depth: int = 2) -> int:
    """Adds a preview read by pulling (S36, camcore_session_add_preview_pull):
    the camera turns on as for any preview; frames wait in a queue of `depth`
    for acquire_preview(). Returns its id for acquire_preview(),
    preview_fd() and remove_preview()."""
    pid = c_uint32(0)
    status = _lib.camcore_session_add_preview_pull(self._h(), _int_in("depth", depth, 0, _I32_MAX), byref(pid))
    if status < 0:
        err = error_for_status(status, "camcore_session_add_preview_pull", last_error_message())
        err.preview_id = pid.value or None
        raise err
    return pid.value


def _session_acquire_preview(self, preview_id: int, timeout: Optional[float] = 5.0) -> RetainedFrame:
    """The oldest queued frame of a pull preview (camcore_session_acquire_preview_frame),
    waiting up to timeout seconds (0: only a ready one; None: no limit). A
    RetainedFrame: release() it when done."""
    out = POINTER(camcore_frame)()
    _check(_lib.camcore_session_acquire_preview_frame(self._h(), _u32("preview_id", preview_id),
                                                      _timeout_ms(timeout), byref(out)),
           "camcore_session_acquire_preview_frame")
    return RetainedFrame(out)


def _session_preview_fd(self, preview_id: int) -> int:
    """An fd readable while a frame of the pull preview waits (select/poll/asyncio)."""
    fd = c_int32()
    _check(_lib.camcore_session_get_preview_fd(self._h(), _u32("preview_id", preview_id), byref(fd)),
           "camcore_session_get_preview_fd")
    return fd.value


def _session_preview_frames(self, count: Optional[int] = None, depth: int = 2,
                            timeout: Optional[float] = 5.0):
    """Adds a pull preview, yields `count` of its frames (None: until the loop
    ends), then removes it (the camera turns off if nothing else needs it).
    Each frame is valid until the next iteration unless retained."""
    _count_arg(count)
    ms = _timeout_ms(timeout)
    pid = self.add_preview_pull(depth)
    try:
        yield from _pulled(_lib.camcore_session_acquire_preview_frame, (self._h(), pid, ms), count,
                           "camcore_session_acquire_preview_frame", depth)
    finally:
        if not self.closed:
            self.remove_preview(pid)


Capturer.start_pull = _capturer_start_pull
Capturer.acquire = _capturer_acquire
Capturer.frame_fd = _capturer_frame_fd
Capturer.frames = _capturer_frames
Capturer.aframes = _capturer_aframes


# ==========================================================================
# Hot-plug (S24) — camcore_manager_set_hotplug_callbacks of camcore.h
# ==========================================================================
# Kept apart from the rest of the module: Manager.set_hotplug_callbacks is
# attached at the end of this section.
#
#     with camcore.Manager() as m:
#         m.set_hotplug_callbacks(on_connected=lambda d: print("+", d.node, d.id),
#                                 on_disconnected=lambda d: print("-", d.node, d.id))
#         ...                                   # events come on camcore's hot-plug thread
#         m.set_hotplug_callbacks(None, None)   # stop: no callback runs after it returns

_ON_DEVICE = CFUNCTYPE(None, c_void_p, POINTER(camcore_device_info))
_ON_PERMISSION = CFUNCTYPE(None, c_void_p, c_int32, c_char_p)


class camcore_hotplug_callbacks(Structure):
    """Hot-plug callbacks of a manager (camcore_hotplug_callbacks)."""

    _fields_ = [
        ("struct_size", c_uint32),
        ("user_data", c_void_p),
        ("on_connected", _ON_DEVICE),
        ("on_disconnected", _ON_DEVICE),
        ("on_permission", _ON_PERMISSION),
    ]


_HOTPLUG_PROTOTYPES = [
    ("camcore_manager_set_hotplug_callbacks", c_int,
     [_manager_p, POINTER(camcore_hotplug_callbacks)]),
    ("camcore_manager_get_camera_permission", c_int, [_manager_p, POINTER(c_int32)]),
    ("camcore_manager_request_camera_access", c_int, [_manager_p, c_int32, POINTER(c_int32)]),
]
for _name, _restype, _argtypes in _HOTPLUG_PROTOTYPES:
    getattr(_lib, _name).restype = _restype
    getattr(_lib, _name).argtypes = _argtypes
_PROTOTYPES.extend(_HOTPLUG_PROTOTYPES)

# Which manager's hot-plug callback runs on this thread (for the deadlock guard).
_hotplug_tls = threading.local()


def _device_from_c(d: camcore_device_info) -> DeviceInfo:
    return DeviceInfo(
        id=_s(d.id), name=_s(d.name), node=_s(d.node), bus_info=_s(d.bus_info),
        driver=_s(d.driver), usb_vendor_id=d.usb_vendor_id, usb_product_id=d.usb_product_id,
        flags=d.flags, device_caps=d.device_caps,
        type=_TYPE_NAMES.get(d.type, f"unknown({d.type})"),
        position=_POSITION_NAMES.get(d.position, f"unknown({d.position})"),
        multiplanar=bool(d.flags & DEVICE_MULTIPLANAR), synthetic=bool(d.flags & DEVICE_SYNTHETIC),
        unavailable_reason=_s(d.unavailable_reason), backend=_s(d.backend), v4l2_id=_s(d.v4l2_id))


OnDevice = Callable[[DeviceInfo], None]


def _manager_set_hotplug_callbacks(self: "Manager", on_connected: Optional[OnDevice] = None,
                                   on_disconnected: Optional[OnDevice] = None,
                                   on_permission: Optional[Callable[[str, str], None]] = None) -> None:
    """Reports capture devices plugged in or removed from now on (S24,
    camcore_manager_set_hotplug_callbacks).

    Each callback gets a DeviceInfo (for a removal: what was known of the
    device) and runs on camcore's own hot-plug thread (libudev monitor; the
    app pumps nothing). Only capture devices (S1) are reported.
    on_permission(state, detail) gets camera-permission changes (S35: one of
    PERMISSIONS, and why) on camcore's portal thread. Passing None for all
    stops the reports; when this returns, the old callbacks are not called
    again. An exception in a callback is logged, never reaches C.

    Raises IOError_ (no udev monitor), WouldDeadlockError (called from one of
    this manager's hot-plug callbacks).
    """
    h = self._h()
    on_connected = _callable("on_connected", on_connected)
    on_disconnected = _callable("on_disconnected", on_disconnected)
    on_permission = _callable("on_permission", on_permission)
    if getattr(_hotplug_tls, "manager", None) is self:
        raise WouldDeadlockError("set_hotplug_callbacks() called from this manager's own "
                                 "hot-plug callback")

    def thunk(fn: Optional[OnDevice], what: str):
        if fn is None:
            return _ON_DEVICE()

        def call(_user_data, dev_ptr):
            prev = getattr(_hotplug_tls, "manager", None)
            _hotplug_tls.manager = self
            try:
                fn(_device_from_c(dev_ptr.contents))
            except BaseException:  # never let it reach C
                log.exception("camcore: exception in hot-plug callback %s", what)
            finally:
                _hotplug_tls.manager = prev
        return _ON_DEVICE(call)

    def permission_thunk(fn):
        if fn is None:
            return _ON_PERMISSION()

        def call(_user_data, state, detail):
            prev = getattr(_hotplug_tls, "manager", None)
            _hotplug_tls.manager = self
            try:
                fn(PERMISSIONS[state] if 0 <= state < len(PERMISSIONS) else f"unknown({state})",
                   _s(detail))
            except BaseException:  # never let it reach C
                log.exception("camcore: exception in hot-plug callback on_permission")
            finally:
                _hotplug_tls.manager = prev
        return _ON_PERMISSION(call)

    with self._lock:
        old = getattr(self, "_hotplug", None)
        if on_connected is None and on_disconnected is None and on_permission is None:
            _check(_lib.camcore_manager_set_hotplug_callbacks(h, None),
                   "camcore_manager_set_hotplug_callbacks")
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
            _check(status, "camcore_manager_set_hotplug_callbacks")
        self._hotplug = (cbs,)  # the call replaced the old callbacks: C no longer uses them


Manager.set_hotplug_callbacks = _manager_set_hotplug_callbacks


def _manager_camera_permission(self: "Manager") -> str:
    """The camera permission now (S35): "granted" when no camera portal is in
    use, else the portal's answer ("unknown", "pending", "granted", "denied")."""
    out = c_int32()
    _check(_lib.camcore_manager_get_camera_permission(self._h(), byref(out)),
           "camcore_manager_get_camera_permission")
    return PERMISSIONS[out.value]


def _manager_request_camera_access(self: "Manager", timeout: Optional[float] = None) -> str:
    """Asks the camera portal for access (S35, AccessCamera) unless a request is
    pending or access is granted (after a denial it asks again), and waits up
    to timeout seconds for the answer (None: until answered; 0: not at all).
    Returns "granted" (or "pending" with timeout 0). Raises AccessError
    (denied, or no portal to ask), TimeoutError_ (no answer in time; the
    request stays pending), WouldDeadlockError (waiting inside a hot-plug
    callback)."""
    if timeout is None:
        ms = -1
    else:
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout != timeout \
                or timeout < 0:
            raise InvalidArgValueError(f"timeout={timeout!r}: seconds >= 0, or None")
        ms = min(int(timeout * 1000), _I32_MAX)
    out = c_int32()
    _check(_lib.camcore_manager_request_camera_access(self._h(), ms, byref(out)),
           "camcore_manager_request_camera_access")
    return PERMISSIONS[out.value]


Manager.camera_permission = property(_manager_camera_permission)
Manager.request_camera_access = _manager_request_camera_access


# ==========================================================================
# Video session (S9–S21) — the "Video session" section of camcore.h
# ==========================================================================
# Kept apart from the rest of the module: Manager.session is attached at the
# end of this section.
#
#     with camcore.Manager(synthetic=2) as m:           # front synthetic:0, back synthetic:1
#         with m.session(width=640, height=480) as s:   # camera off (S9)
#             pid = s.add_preview(lambda f: show(f.array))          # on: a preview
#             s.set_transmission_sink(lambda f: send(f.copy()))
#             s.start_transmission()                                 # S10 resume
#             s.pause_video(); s.resume_video(); s.hold(); s.unhold()  # S11, S12
#             s.flip()                                 # S19: waits, raises on failure
#             s.remove_preview(pid)
#             print(s.state)                           # SessionState(camera_on=True, ...)
#
# Callbacks: frame callbacks (sink, previews, hook) run on the capture
# thread, or for pushed frames on the pushing thread; completions and device
# events on the session's camera queue. None of them may block waiting for
# the session (wait=True is refused there with WouldDeadlockError). An
# exception a callback raises never reaches C: it is logged and the first is
# kept in Session.callback_error.
#
# C calls every callback through a few module-level CFUNCTYPE thunks that
# live as long as the module; user_data is a token looked up in a registry,
# so no thunk can be collected while C may call it, and a token C still uses
# after Python forgot it is ignored.

import time as _time  # noqa: E402

#: Initial video state of a transmission (S10).
VIDEO_RESUME = 0
VIDEO_PAUSE = 1
#: Capture hook results (S20).
HOOK_PASS = 0
HOOK_DROP = 1
HOOK_REPLACE = 2
#: The most previews one session takes (CAMCORE_MAX_PREVIEWS); one more
#: raises NoMemoryError.
MAX_PREVIEWS = 64

_session_p = c_void_p


class camcore_session_config(Structure):
    """Session settings (camcore_session_config)."""

    _fields_ = [
        ("struct_size", c_uint32),
        ("device_id", c_char_p),
        ("preference", camcore_preference),
        ("return_to_reconnected_device", c_int32),
        ("output_width", c_uint32),
        ("output_height", c_uint32),
    ]


class camcore_session_state(Structure):
    """A snapshot of a session (camcore_session_state)."""

    _fields_ = [
        ("struct_size", c_uint32),
        ("camera_on", c_int32),
        ("transmitting", c_int32),
        ("paused", c_int32),
        ("held", c_int32),
        ("preparing", c_int32),
        ("hard_muted", c_int32),
        ("custom_source", c_int32),
        ("stopped_by_app", c_int32),
        ("preview_count", c_uint32),
        ("device_id", c_char * 256),
        ("format", camcore_capture_format),
        ("adjusted", c_uint32),
    ]


_COMPLETION = CFUNCTYPE(None, c_void_p, c_int)
_ON_CAPTURE = CFUNCTYPE(c_int, c_void_p, _frame_p, _frame_p)
_ON_SESSION_DEVICE = CFUNCTYPE(None, c_void_p, POINTER(camcore_device_info))
_ON_SELECTED = CFUNCTYPE(None, c_void_p, POINTER(camcore_device_info),
                         POINTER(camcore_capture_format))
_ON_DEVICE_ERROR = CFUNCTYPE(None, c_void_p, POINTER(camcore_device_info), c_int, c_char_p)
_ON_DEVICE_STALL = CFUNCTYPE(None, c_void_p, POINTER(camcore_device_info), c_int, c_uint64)


class camcore_capture_hook(Structure):
    """A capture hook (camcore_capture_hook, S20)."""

    _fields_ = [
        ("struct_size", c_uint32),
        ("user_data", c_void_p),
        ("on_capture", _ON_CAPTURE),
    ]


class camcore_device_callbacks(Structure):
    """Device events of a session (camcore_device_callbacks, S24)."""

    _fields_ = [
        ("struct_size", c_uint32),
        ("user_data", c_void_p),
        ("on_connected", _ON_SESSION_DEVICE),
        ("on_disconnected", _ON_SESSION_DEVICE),
        ("on_selected", _ON_SELECTED),
        ("on_error", _ON_DEVICE_ERROR),
        ("on_stall", _ON_DEVICE_STALL),
    ]


_SESSION_PROTOTYPES = [
    ("camcore_session_config_init", None, [POINTER(camcore_session_config)]),
    ("camcore_session_new", c_int,
     [_manager_p, POINTER(camcore_session_config), POINTER(_session_p)]),
    ("camcore_session_free", None, [_session_p]),
    ("camcore_session_start_transmission", c_int, [_session_p, c_int, c_int]),
    ("camcore_session_end_preparation", c_int, [_session_p]),
    ("camcore_session_pause_video", c_int, [_session_p]),
    ("camcore_session_resume_video", c_int, [_session_p]),
    ("camcore_session_hold", c_int, [_session_p]),
    ("camcore_session_unhold", c_int, [_session_p]),
    ("camcore_session_set_hard_mute", c_int, [_session_p, c_int]),
    ("camcore_session_end_transmission", c_int, [_session_p]),
    ("camcore_session_set_transmission_sink", c_int,
     [_session_p, POINTER(camcore_frame_callbacks)]),
    ("camcore_session_add_preview", c_int,
     [_session_p, POINTER(camcore_frame_callbacks), POINTER(c_uint32)]),
    ("camcore_session_remove_preview", c_int, [_session_p, c_uint32]),
    ("camcore_session_get_state", c_int, [_session_p, POINTER(camcore_session_state)]),
    ("camcore_session_start", c_int,
     [_session_p, POINTER(camcore_capture_config), _COMPLETION, c_void_p]),
    ("camcore_session_stop", c_int, [_session_p, _COMPLETION, c_void_p]),
    ("camcore_session_restart", c_int, [_session_p, _COMPLETION, c_void_p]),
    ("camcore_session_change", c_int,
     [_session_p, POINTER(camcore_capture_config), _COMPLETION, c_void_p]),
    ("camcore_session_select", c_int, [_session_p, c_char_p, _COMPLETION, c_void_p]),
    ("camcore_session_flip", c_int, [_session_p, _COMPLETION, c_void_p]),
    ("camcore_session_set_preference", c_int,
     [_session_p, POINTER(camcore_preference), _COMPLETION, c_void_p]),
    ("camcore_session_set_capture_hook", c_int, [_session_p, POINTER(camcore_capture_hook)]),
    ("camcore_session_set_custom_source", c_int, [_session_p, c_int]),
    ("camcore_session_push_frame", c_int, [_session_p, _frame_p]),
    ("camcore_session_set_device_callbacks", c_int,
     [_session_p, POINTER(camcore_device_callbacks)]),
]
_PROTOTYPES.extend(_SESSION_PROTOTYPES)
for _name, _restype, _argtypes in _SESSION_PROTOTYPES:
    try:
        _fn = getattr(_lib, _name)
    except AttributeError as _e:
        raise ImportError(f"camcore: {_lib_path} lacks {_name}; library older than this module?") \
            from _e
    _fn.restype = _restype
    _fn.argtypes = _argtypes


@dataclasses.dataclass(frozen=True)
class SessionState:
    """A snapshot of a session (camcore_session_get_state).

    camera_on is S9's output: the device is open and streaming. format is
    what the camera captures while on (None while off). adjusted: ADJUSTED_*
    bits, how the setting in use differs from what the session asked for (the
    preference, S6, or the start setting); 0 while off.
    """
    camera_on: bool
    transmitting: bool
    paused: bool
    held: bool
    preparing: bool
    hard_muted: bool
    custom_source: bool
    stopped_by_app: bool
    preview_count: int
    device_id: str
    format: Optional[CaptureFormat]
    adjusted: int = 0

    @property
    def adjustments(self) -> List[str]:
        """Names of what was adjusted: 'size', 'rate', 'format'."""
        return [name for bit, name in ((ADJUSTED_SIZE, "size"), (ADJUSTED_RATE, "rate"),
                                       (ADJUSTED_FORMAT, "format")) if self.adjusted & bit]


def _capture_format_from_c(out: camcore_capture_format) -> CaptureFormat:
    n = min(out.plane_count, 3)
    return CaptureFormat(
        fourcc=fourcc_str(out.fourcc), width=out.width, height=out.height,
        plane_count=out.plane_count, strides=[out.strides[i] for i in range(n)],
        frame_bytes=out.frame_bytes, fps=_frac(out.fps), buffer_count=out.buffer_count,
        source_fourcc=fourcc_str(out.source_fourcc), adjusted=out.adjusted)


# -- the callback registry: token -> what C's user_data stands for --------------

_cb_lock = threading.Lock()
_cb_registry: dict = {}
_cb_next = [1]
# Which session's callback is running on this thread (deadlock guard).
_session_tls = threading.local()


def _cb_add(entry) -> int:
    with _cb_lock:
        token = _cb_next[0]
        _cb_next[0] += 1
        _cb_registry[token] = entry
    return token


def _cb_drop(*tokens) -> None:
    with _cb_lock:
        for t in tokens:
            if t is not None:
                _cb_registry.pop(t, None)


def _cb_get(user_data):
    return _cb_registry.get(user_data) if user_data else None


class _Entry:
    """What one token stands for: the session and the Python callable(s)."""

    __slots__ = ("session", "fn", "extra")

    def __init__(self, session: "Session", fn, extra=None):
        self.session = session
        self.fn = fn
        self.extra = extra


def _run_callback(session: "Session", what: str, fn, *args):
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


def _frame_thunk_py(user_data, frame_ptr):
    entry = _cb_get(user_data)
    if entry is None:
        return
    frame = Frame(frame_ptr)
    try:
        _run_callback(entry.session, entry.extra or "frame callback", entry.fn, frame)
    finally:
        frame._invalidate()


def _hook_thunk_py(user_data, frame_ptr, replacement_ptr):
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


def _completion_thunk_py(user_data, status):
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


def _device_event(kind):
    def thunk(user_data, *args):
        entry = _cb_get(user_data)
        if entry is None:
            return
        fn = entry.fn.get(kind)
        if fn is None:
            return
        dev = _device_from_c(args[0].contents) if args[0] else None
        if kind == "on_selected":
            fmt = _capture_format_from_c(args[1].contents) if args[1] else None
            _run_callback(entry.session, kind, fn, dev, fmt)
        elif kind == "on_error":
            err = error_for_status(args[1], f"capture on {dev.id if dev else '?'!r} failed",
                                   _s(args[2]))
            _run_callback(entry.session, kind, fn, dev, err)
        elif kind == "on_stall":
            _run_callback(entry.session, kind, fn, dev, bool(args[1]), int(args[2]))
        else:
            _run_callback(entry.session, kind, fn, dev)
    return thunk


# The thunks C calls: created once, alive as long as the module.
_SESSION_FRAME_THUNK = ON_FRAME(_frame_thunk_py)
_SESSION_HOOK_THUNK = _ON_CAPTURE(_hook_thunk_py)
_SESSION_COMPLETION_THUNK = _COMPLETION(_completion_thunk_py)
_SESSION_DEVICE_THUNKS = {
    "on_connected": _ON_SESSION_DEVICE(_device_event("on_connected")),
    "on_disconnected": _ON_SESSION_DEVICE(_device_event("on_disconnected")),
    "on_selected": _ON_SELECTED(_device_event("on_selected")),
    "on_error": _ON_DEVICE_ERROR(_device_event("on_error")),
    "on_stall": _ON_DEVICE_STALL(_device_event("on_stall")),
}

# Sessions not yet closed (closed at interpreter exit).
_live_sessions: set = set()


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
Completion = Callable[[Optional[CamcoreError]], None]

class Session:
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
        self._device_fns: dict = {}
        self._previews: dict = {}     # preview id -> token
        self._retired: List[int] = []  # tokens C may still call (changes made from a callback)
        self._tokens: set = set()     # every token of this session, dropped at close
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

    def _token(self, fn, extra=None) -> int:
        t = _cb_add(_Entry(self, fn, extra))
        with self._lock:
            self._tokens.add(t)
        return t

    def _forget(self, *tokens) -> None:
        """Drops tokens C no longer calls; from inside a callback the change is
        only queued, so they are kept until the next change made from outside."""
        tokens = [t for t in tokens if t is not None]
        if self._in_own_callback():
            with self._lock:
                self._retired.extend(tokens)
            return
        with self._lock:
            retired, self._retired = self._retired, []
            for t in tokens + retired:
                self._tokens.discard(t)
        _cb_drop(*tokens, *retired)

    def _call(self, status: int, what: str) -> None:
        _check(status, what)

    def _frame_callbacks(self, fn, what: str) -> Tuple[camcore_frame_callbacks, int]:
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
    def state(self) -> SessionState:
        """A snapshot of the session (camcore_session_get_state); safe from callbacks."""
        out = camcore_session_state()
        out.struct_size = sizeof(camcore_session_state)
        out.format.struct_size = sizeof(camcore_capture_format)
        _check(_lib.camcore_session_get_state(self._h(), byref(out)),
               "camcore_session_get_state")
        return SessionState(
            camera_on=bool(out.camera_on), transmitting=bool(out.transmitting),
            paused=bool(out.paused), held=bool(out.held), preparing=bool(out.preparing),
            hard_muted=bool(out.hard_muted), custom_source=bool(out.custom_source),
            stopped_by_app=bool(out.stopped_by_app), preview_count=out.preview_count,
            device_id=out.device_id.decode("utf-8", errors="replace"),
            format=_capture_format_from_c(out.format) if out.camera_on else None,
            adjusted=out.adjusted)

    @property
    def camera_on(self) -> bool:
        """S9: the camera device is open and streaming."""
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
                   "camcore_session_start_transmission")

    def end_preparation(self) -> None:
        """Ends responder preparation: frames reach the sink from now (S13)."""
        self._call(_lib.camcore_session_end_preparation(self._h()),
                   "camcore_session_end_preparation")

    def pause_video(self) -> None:
        """S12: stop transmitting; the camera turns off unless a preview is active."""
        self._call(_lib.camcore_session_pause_video(self._h()), "camcore_session_pause_video")

    def resume_video(self) -> None:
        """S12: transmit again; the camera turns back on."""
        self._call(_lib.camcore_session_resume_video(self._h()), "camcore_session_resume_video")

    def hold(self) -> None:
        """S11: hold the call: no transmission; camera off unless a preview is active."""
        self._call(_lib.camcore_session_hold(self._h()), "camcore_session_hold")

    def unhold(self) -> None:
        """S11: unhold: transmission and camera as before the hold."""
        self._call(_lib.camcore_session_unhold(self._h()), "camcore_session_unhold")

    def hard_mute(self, muted: bool = True) -> None:
        """S15: True turns the transmission's camera off keeping the other state; False restores it."""
        self._call(_lib.camcore_session_set_hard_mute(self._h(), 1 if muted else 0),
                   "camcore_session_set_hard_mute")

    def end_transmission(self) -> None:
        """Ends transmission; the camera turns off unless a preview is active. OK when not transmitting."""
        self._call(_lib.camcore_session_end_transmission(self._h()),
                   "camcore_session_end_transmission")

    def set_transmission_sink(self, on_frame: Optional[SessionFrameCallback]) -> None:
        """Where transmitted frames go (S15): on_frame(frame) on the capture thread
        (pushed frames: on the pushing thread). None keeps the camera as S9 says and
        drops the frames. When this returns the old sink is not called again."""
        h = self._h()
        on_frame = _callable("the transmission sink", on_frame)
        old = self._sink_token
        if on_frame is None:
            status = _lib.camcore_session_set_transmission_sink(h, None)
            token = None
        else:
            cbs, token = self._frame_callbacks(on_frame, "transmission sink")
            status = _lib.camcore_session_set_transmission_sink(h, byref(cbs))
        if status < 0:
            self._forget(token)
            _check(status, "camcore_session_set_transmission_sink")
        self._sink_token = token
        self._forget(old)

    # -- previews (S14) --
    def add_preview(self, on_frame: SessionFrameCallback) -> int:
        """Adds a preview receiver (S14): on_frame(frame) for every camera frame, on
        the capture thread; the camera turns on if it was off. Returns the preview's
        id for remove_preview(). On the camera's error the preview stays added; the
        error is raised with .preview_id set."""
        h = self._h()
        _callable("a preview's on_frame", on_frame, optional=False)
        cbs, token = self._frame_callbacks(on_frame, "preview")
        pid = c_uint32(0)
        status = _lib.camcore_session_add_preview(h, byref(cbs), byref(pid))
        if status < 0 and pid.value == 0:
            self._forget(token)
            _check(status, "camcore_session_add_preview")
        with self._lock:
            self._previews[pid.value] = token
        if status < 0:
            err = error_for_status(status, "camcore_session_add_preview", last_error_message())
            err.preview_id = pid.value
            raise err
        return pid.value

    def remove_preview(self, preview_id: int) -> None:
        """Removes a preview: when this returns it is not called again; the camera
        turns off if nothing else needs it. Raises InvalidArgError for an unknown id."""
        self._call(_lib.camcore_session_remove_preview(self._h(), _u32("preview_id", preview_id)),
                   "camcore_session_remove_preview")
        with self._lock:
            token = self._previews.pop(preview_id, None)
        self._forget(token)

    # -- capturer operations (S16–S19) --
    def _op(self, what: str, call, completion: Optional[Completion], wait: bool,
            timeout: float) -> None:
        _callable("completion", completion)
        if wait and self._in_own_callback():
            raise WouldDeadlockError(
                f"{what}(wait=True) from inside this session's callback would deadlock; "
                "pass wait=False (and a completion)")
        pending = {"what": what, "done": threading.Event(), "error": None, "status": None,
                   "calls": 0}
        token = self._token(completion, pending)
        status = call(token)
        if status < 0:
            self._forget(token)
            _check(status, what)
        if not wait:
            return
        if not pending["done"].wait(timeout):
            raise TimeoutError_(f"{what}: no completion within {timeout} s", status=E_TIMEOUT)
        if pending["error"] is not None:
            raise pending["error"]

    def start(self, fourcc: Union[str, int] = "YUYV", width: int = 640, height: int = 480,
              fps=30, buffer_count: int = 4, completion: Optional[Completion] = None,
              wait: bool = True, timeout: float = 10.0) -> None:
        """S17 start: capture with this setting whenever S9 says on (clears a stop)."""
        cfg = self._config(fourcc, width, height, fps, buffer_count)
        h = self._h()
        self._op("camcore_session_start",
                 lambda t: _lib.camcore_session_start(h, byref(cfg), _SESSION_COMPLETION_THUNK, t),
                 completion, wait, timeout)

    def change(self, fourcc: Union[str, int] = "YUYV", width: int = 640, height: int = 480,
               fps=30, buffer_count: int = 4, completion: Optional[Completion] = None,
               wait: bool = True, timeout: float = 10.0) -> None:
        """S17 change: new settings; the camera restarts with them if it is on."""
        cfg = self._config(fourcc, width, height, fps, buffer_count)
        h = self._h()
        self._op("camcore_session_change",
                 lambda t: _lib.camcore_session_change(h, byref(cfg), _SESSION_COMPLETION_THUNK, t),
                 completion, wait, timeout)

    def stop(self, completion: Optional[Completion] = None, wait: bool = True,
             timeout: float = 10.0) -> None:
        """S17 stop: the camera turns off and stays off until start or restart."""
        h = self._h()
        self._op("camcore_session_stop",
                 lambda t: _lib.camcore_session_stop(h, _SESSION_COMPLETION_THUNK, t),
                 completion, wait, timeout)

    def restart(self, completion: Optional[Completion] = None, wait: bool = True,
                timeout: float = 10.0) -> None:
        """S17 restart: back on (if S9 says so) with the settings before the stop."""
        h = self._h()
        self._op("camcore_session_restart",
                 lambda t: _lib.camcore_session_restart(h, _SESSION_COMPLETION_THUNK, t),
                 completion, wait, timeout)

    def select(self, device_id: str, completion: Optional[Completion] = None, wait: bool = True,
               timeout: float = 10.0) -> None:
        """S18 select: switch to device_id keeping the preferred setting; on_selected
        reports it. Raises CustomSourceActiveError while a custom source is on,
        NoDeviceError for an unknown id."""
        h = self._h()
        b = _cstr("device_id", device_id)
        self._op(f"camcore_session_select({device_id!r})",
                 lambda t: _lib.camcore_session_select(h, b, _SESSION_COMPLETION_THUNK, t),
                 completion, wait, timeout)

    def flip(self, completion: Optional[Completion] = None, wait: bool = True,
             timeout: float = 10.0) -> None:
        """S19 flip: the camera facing the other way (or the next one) at the nearest
        format and rate. Raises NoDeviceError (no other camera), CustomSourceActiveError."""
        h = self._h()
        self._op("camcore_session_flip",
                 lambda t: _lib.camcore_session_flip(h, _SESSION_COMPLETION_THUNK, t),
                 completion, wait, timeout)

    def set_preference(self, width: int = 1280, height: int = 720, min_fps=15, max_fps=30,
                       output: Union[str, int, None] = None,
                       completion: Optional[Completion] = None, wait: bool = True,
                       timeout: float = 10.0) -> None:
        """The preferred setting (S6) used when the camera turns on; applied now if it
        is on with the preference."""
        pref = _session_preference(width, height, min_fps, max_fps, output)
        h = self._h()
        self._op("camcore_session_set_preference",
                 lambda t: _lib.camcore_session_set_preference(h, byref(pref),
                                                               _SESSION_COMPLETION_THUNK, t),
                 completion, wait, timeout)

    @staticmethod
    def _config(fourcc, width, height, fps, buffer_count) -> camcore_capture_config:
        cfg = camcore_capture_config()
        _lib.camcore_capture_config_init(byref(cfg))
        cfg.fourcc = _fourcc(fourcc)
        cfg.width = _u32("width", width)
        cfg.height = _u32("height", height)
        cfg.fps = _to_c_fraction(fps)
        cfg.buffer_count = _u32("buffer_count", buffer_count)
        return cfg

    # -- hook and custom source (S20, S21) --
    def set_capture_hook(self, hook: Optional[Callable[[Frame], Optional[str]]]) -> None:
        """S20: hook(frame) runs for each camera frame before transmission and
        previews, on the capture thread; it returns 'pass' (or None) or 'drop'.
        None removes it; when this returns the old hook is not called again."""
        h = self._h()
        hook = _callable("the capture hook", hook)
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
            _check(status, "camcore_session_set_capture_hook")
        self._hook_token = token
        self._forget(old)

    def custom_source(self, active: bool = True) -> None:
        """S21: while active, transmission takes push_frame()'s frames instead of the
        camera's; the camera runs only for previews; select/flip fail."""
        self._call(_lib.camcore_session_set_custom_source(self._h(), 1 if active else 0),
                   "camcore_session_set_custom_source")

    def push_frame(self, array: np.ndarray, fourcc: Union[str, int], width: int, height: int,
                   sequence: Optional[int] = None, timestamp_ns: Optional[int] = None) -> None:
        """S21: pushes an app frame into transmission; delivered to the sink on this
        thread when transmission takes frames (else dropped). array holds the whole
        image, tightly packed (rows of width * bytes per pixel; planar formats plane
        after plane). sequence: 0..2**32-1, by default one more than the last
        push's; timestamp_ns: CLOCK_MONOTONIC nanoseconds, 0..2**64-1, by default
        now. Raises StateError (no custom source), InvalidArgError (also for a
        sequence or timestamp out of range: never wrapped)."""
        h = self._h()
        if sequence is not None:
            sequence = _int_in("sequence", sequence, 0, _U32_MAX)
        if timestamp_ns is not None:
            timestamp_ns = _int_in("timestamp_ns", timestamp_ns, 0, _U64_MAX)
        data = np.ascontiguousarray(array, dtype=np.uint8).reshape(-1)
        fcc = _fourcc(fourcc)
        name = fourcc_str(fcc)
        width, height = _u32("width", width), _u32("height", height)
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
        self._push_sequence = (sequence + 1) & _U32_MAX  # the next default wraps as V4L2's does
        f.sequence = sequence
        f.timestamp_ns = _time.monotonic_ns() if timestamp_ns is None else timestamp_ns
        # The sink runs on this thread during the call; a view it keeps of the
        # pushed frame keeps `data` (camcore cannot retain the app's memory).
        prev = getattr(_push_tls, "array", None)
        global _pushing
        with _pushing_lock:
            _pushing += 1
        _push_tls.array = data
        try:
            status = _lib.camcore_session_push_frame(h, byref(f))
        finally:
            _push_tls.array = prev
            with _pushing_lock:
                _pushing -= 1
        _check(status, "camcore_session_push_frame")

    # -- device events (S24) --
    def set_device_callbacks(self, on_selected=None, on_error=None, on_connected=None,
                             on_disconnected=None, on_stall=None) -> None:
        """Device events, on the camera queue: on_selected(device, format) when the
        device in use changed (format: the one it captures or will; format.adjusted
        compares it with the preference, S6), on_error(device, error) when capture
        stopped on its own, on_connected(device), on_disconnected(device),
        on_stall(device, stalled, since_ns) when the camera in use stops delivering
        frames for longer than max(1 s, 5 frame intervals) (stalled True) and when
        frames come back (False); since_ns: CLOCK_MONOTONIC time of the last frame
        before the stall. All None removes them."""
        h = self._h()
        fns = {"on_selected": on_selected, "on_error": on_error, "on_connected": on_connected,
               "on_disconnected": on_disconnected, "on_stall": on_stall}
        for k, v in fns.items():
            _callable(k, v)
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
            _check(status, "camcore_session_set_device_callbacks")
        self._device_token = token
        self._device_fns = fns
        self._forget(old)

    @property
    def on_selected(self):
        """The on_selected(device, format) callback (S18, S19, S24), or None."""
        return self._device_fns.get("on_selected")

    @on_selected.setter
    def on_selected(self, fn) -> None:
        self.set_device_callbacks(**{**self._device_fns, "on_selected": fn})

    @property
    def on_error(self):
        """The on_error(device, error) callback (capture stopped on its own), or None."""
        return self._device_fns.get("on_error")

    @on_error.setter
    def on_error(self, fn) -> None:
        self.set_device_callbacks(**{**self._device_fns, "on_error": fn})

    @property
    def on_stall(self):
        """The on_stall(device, stalled, since_ns) callback (frames stopped / resumed), or None."""
        return self._device_fns.get("on_stall")

    @on_stall.setter
    def on_stall(self, fn) -> None:
        self.set_device_callbacks(**{**self._device_fns, "on_stall": fn})

    # -- lifetime --
    def close(self) -> None:
        """Turns the camera off and frees the session (camcore_session_free). When it
        returns no callback of the session runs again. Closing twice is OK. Raises
        WouldDeadlockError (and the session stays) when called from its own callback."""
        if self._in_own_callback():
            raise WouldDeadlockError("Session.close() called from the session's own callback",
                                     detail="the session stays open")
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

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        try:
            if self._handle is not None and not self._in_own_callback():
                self.close()
        except Exception:
            pass

    def __repr__(self) -> str:
        if self._handle is None:
            return "<camcore.Session closed>"
        st = self.state
        return (f"<camcore.Session {st.device_id!r} camera {'on' if st.camera_on else 'off'}, "
                f"{st.preview_count} preview(s), transmitting={st.transmitting}>")


def _session_preference(width, height, min_fps, max_fps, output) -> camcore_preference:
    pref = camcore_preference()
    _lib.camcore_preference_init(byref(pref))
    pref.width = _u32("width", width)
    pref.height = _u32("height", height)
    pref.min_fps = _to_c_fraction(min_fps)
    pref.max_fps = _to_c_fraction(max_fps)
    pref.output_fourcc = _output_fourcc(output)
    return pref


def _manager_session(self: "Manager", device_id: Optional[str] = None, width: int = 1280,
                     height: int = 720, min_fps=15, max_fps=30,
                     output: Union[str, int, None] = None,
                     return_to_reconnected_device: bool = True,
                     output_size: Optional[Tuple[int, int]] = None) -> Session:
    """A video session on device_id (None: the first listed device) with the
    preferred setting width x height at min_fps..max_fps and the output format
    (S6, S8); output_size=(w, h) delivers every frame of the session (previews
    and transmission) at that size (S38, needs output; as Capturer.start()).
    The camera stays off until a preview or transmission needs it.
    The session keeps the manager alive; closing the manager closes it.
    Raises NoDeviceError (unknown id), InvalidArgError."""
    cfg = camcore_session_config()
    _lib.camcore_session_config_init(byref(cfg))
    cfg.struct_size = sizeof(camcore_session_config)
    cfg.device_id = _cstr("device_id", device_id) if device_id is not None else None
    cfg.preference = _session_preference(width, height, min_fps, max_fps, output)
    cfg.return_to_reconnected_device = 1 if return_to_reconnected_device else 0
    cfg.output_width, cfg.output_height = _output_size(output_size)
    out = _session_p()
    _check(_lib.camcore_session_new(self._h(), byref(cfg), byref(out)),
           f"camcore_session_new({device_id!r})")
    return self._adopt(Session(self, out.value))


Manager.session = _manager_session

__all__ += ["Session", "SessionState", "VIDEO_RESUME", "VIDEO_PAUSE", "HOOK_PASS", "HOOK_DROP",
            "HOOK_REPLACE", "MAX_PREVIEWS"]


# Pull previews (S36), defined with the capturer's pull above.
Session.add_preview_pull = _session_add_preview_pull
Session.acquire_preview = _session_acquire_preview
Session.preview_fd = _session_preview_fd
Session.preview_frames = _session_preview_frames
