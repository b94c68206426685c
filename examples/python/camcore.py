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
lists freed at once. A ``Frame`` is borrowed: it and its zero-copy numpy
views are valid only during ``on_frame``; ``frame.retain()`` keeps it until
``release()``, ``frame.copy()`` copies it. Managers and capturers are freed
by ``close()`` (or their ``with`` block, or garbage collection); a capturer
still streaming is kept alive until stopped, and closed at interpreter exit.

Units: sizes in pixels, strides and lengths in bytes, timestamps in
CLOCK_MONOTONIC nanoseconds (the clock of ``time.monotonic_ns()``), frame
rates as ``fractions.Fraction`` frames per second.
"""
from __future__ import annotations

import atexit
import ctypes
import ctypes.util
import dataclasses
import logging
import os
import shutil
import subprocess
import threading
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
from typing import Callable, List, Optional, Tuple, Union

import numpy as np

__all__ = [
    "VERSION", "VERSION_MAJOR", "VERSION_MINOR", "VERSION_PATCH", "VERSION_NUM",
    "version", "library_version", "library_path", "strerror", "last_error_message",
    "fourcc", "fourcc_str",
    "CamcoreError", "InvalidArgError", "NoDeviceError", "BusyError", "AccessError",
    "NotSupportedError", "TimeoutError_", "IOError_", "StateError",
    "CustomSourceActiveError", "WouldDeadlockError", "NoMemoryError", "InternalError",
    "error_for_status",
    "Manager", "Capturer", "DeviceInfo", "Format", "CaptureFormat", "CaptureStats", "Setting",
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

    _fields_ = [("struct_size", c_uint32), ("include_synthetic", c_int32)]


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
    ]


ON_FRAME = CFUNCTYPE(None, c_void_p, POINTER(camcore_frame))
ON_ERROR = CFUNCTYPE(None, c_void_p, c_int, c_char_p)


class camcore_frame_callbacks(Structure):
    """Frame and error callbacks (camcore_frame_callbacks); copied at start."""

    _fields_ = [
        ("struct_size", c_uint32),
        ("user_data", c_void_p),
        ("on_frame", ON_FRAME),
        ("on_error", ON_ERROR),
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
    for name in (ctypes.util.find_library("camcore"), "libcamcore.so.0", "libcamcore.so"):
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


def strerror(status: int) -> str:
    """The name of a status code, e.g. ``"CAMCORE_E_BUSY: device busy"`` (camcore_strerror)."""
    return _s(_lib.camcore_strerror(int(status)))


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
    space-padded (``"Y16"`` -> ``"Y16 "``). An int is returned as is."""
    if isinstance(code, int):
        if not 0 <= code <= _U32_MAX:
            raise ValueError(f"fourcc {code} out of range")
        return code
    b = code.encode("ascii") if isinstance(code, str) else bytes(code)
    if not 1 <= len(b) <= 4:
        raise ValueError(f"a FourCC has 1 to 4 characters, not {code!r}")
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


def _output_fourcc(output: Union[str, int, None]) -> int:
    """Output format (S8): None or 'native' -> CAMCORE_FOURCC_NATIVE (0), else a FourCC."""
    if output is None or (isinstance(output, str) and output.lower() == "native"):
        return FOURCC_NATIVE
    return _fourcc(output)


def fourcc_str(code: int) -> str:
    """The four characters of a FourCC integer (camcore_fourcc_to_string), e.g. ``"YUYV"``."""
    buf = ctypes.create_string_buffer(5)
    _lib.camcore_fourcc_to_string(int(code) & _U32_MAX, buf)
    return buf.raw[:4].decode("latin-1")


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


def _u32(name: str, value) -> int:
    v = int(value)
    if not 0 <= v <= _U32_MAX:
        raise InvalidArgError(f"{name}={value!r} out of range (0..2**32-1)")
    return v


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


# Pixel layouts for Frame.array: packed formats -> bytes per pixel; planar ones start
# with a full-size 8-bit Y plane.
_PACKED_BPP = {
    "YUYV": 2, "YVYU": 2, "UYVY": 2, "VYUY": 2, "RGBP": 2, "RGBO": 2,
    "RGB3": 3, "BGR3": 3, "GREY": 1,
    "AR24": 4, "XR24": 4, "AB24": 4, "XB24": 4, "RA24": 4, "RX24": 4,
    "BA24": 4, "BX24": 4, "RGB4": 4, "BGR4": 4,
}
_Y_FIRST = {"YU12", "YV12", "NV12", "NV21", "NV16", "NV61", "422P", "YM12", "NM12"}


def _shaped(fourcc_s: str, width: int, height: int, stride: int, data: np.ndarray) -> np.ndarray:
    """A view of a plane's 1-D bytes shaped for its format, rows stepped by stride."""
    if fourcc_s in _PACKED_BPP:
        bpp = _PACKED_BPP[fourcc_s]
    elif fourcc_s in _Y_FIRST:
        bpp = 1
    else:
        return data
    row = width * bpp
    if width == 0 or height == 0 or stride < row or data.size < (height - 1) * stride + row:
        return data  # compressed, unknown or short (corrupted) data: plain bytes
    if bpp == 1:
        shape, strides = (height, width), (stride, 1)
    else:
        shape, strides = (height, width, bpp), (stride, bpp, 1)
    return np.lib.stride_tricks.as_strided(data, shape=shape, strides=strides, writeable=False)


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


class _FrameBase:
    """Shared read-only view of a camcore_frame in library memory."""

    __slots__ = ("_ptr",)

    def __init__(self, ptr):
        self._ptr = ptr

    def _c(self) -> camcore_frame:
        if self._ptr is None:
            raise StateError(self._gone_message())
        return self._ptr.contents

    def _gone_message(self) -> str:
        return "frame is no longer valid"

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

        The view borrows the library's buffer: it is valid only as long as
        this frame is (the callback, or until release()); reading it later
        reads memory the library reuses.
        """
        c = self._c()
        if not 0 <= i < min(c.plane_count, 3):
            raise IndexError(f"plane {i} out of range (frame has {c.plane_count})")
        p = c.planes[i]
        if not p.data or p.length == 0:
            return np.zeros(0, dtype=np.uint8)
        buf = (c_uint8 * p.length).from_address(p.data)
        view = np.frombuffer(buf, dtype=np.uint8)
        view.flags.writeable = False
        return view

    @property
    def array(self) -> np.ndarray:
        """Zero-copy, read-only numpy view of the image, rows stepped by the stride.

        YUYV-like: (h, w, 2); RGB3/BGR3: (h, w, 3); 32-bit RGB: (h, w, 4);
        GREY: (h, w); I420/NV12 and other Y-first planar formats: the Y plane
        (h, w); MJPEG, unknown or short (corrupted) data: 1-D bytes. Valid as
        long as the frame is (see plane()).
        """
        c = self._c()
        return _shaped(fourcc_str(c.fourcc), c.width, c.height, c.planes[0].stride, self.plane(0))

    def copy(self) -> CapturedFrame:
        """A CapturedFrame holding copies of the planes (valid forever)."""
        c = self._c()
        planes = [self.plane(i).copy() for i in range(min(c.plane_count, 3))]
        fcc = fourcc_str(c.fourcc)
        strides = self.strides
        arr = _shaped(fcc, c.width, c.height, strides[0] if strides else 0,
                      planes[0] if planes else np.zeros(0, np.uint8))
        return CapturedFrame(
            fourcc=fcc, width=c.width, height=c.height, sequence=c.sequence,
            timestamp_ns=c.timestamp_ns, flags=c.flags,
            corrupted=bool(c.flags & FRAME_CORRUPTED), dropped_before=c.dropped_before,
            strides=strides, lengths=self.lengths, planes=planes, array=arr)

    def __repr__(self) -> str:
        if self._ptr is None:
            return f"<{type(self).__name__} (no longer valid)>"
        c = self._c()
        return (f"<{type(self).__name__} {fourcc_str(c.fourcc)} {c.width}x{c.height} "
                f"seq={c.sequence} ts={c.timestamp_ns}>")


class Frame(_FrameBase):
    """A frame handed to on_frame (camcore_frame, S22). Borrowed (S23).

    Valid only during the on_frame call that received it; afterwards every
    attribute raises StateError. Call retain() to keep it longer, or copy()
    to copy its data. The numpy views (array, plane(i)) share the library's
    buffer and must not be used after the callback returns.
    """

    __slots__ = ()

    def _gone_message(self) -> str:
        return "frame used after its on_frame callback returned; retain() or copy() it"

    def retain(self) -> "RetainedFrame":
        """Keeps this frame beyond the callback (camcore_frame_retain, S23).

        Returns a RetainedFrame valid until its release() (also a context
        manager). Its buffer is not reused until then; while every buffer is
        retained the driver drops frames. Release may happen on any thread,
        also after the capturer stopped or closed.
        """
        c_ptr = _lib.camcore_frame_retain(self._ptr if self._ptr is not None else None)
        if not c_ptr:
            raise StateError(self._gone_message())
        return RetainedFrame(c_ptr)


class RetainedFrame(_FrameBase):
    """A retained frame: same attributes as Frame, valid until release().

    Owns one retain of the library's buffer; release() (or leaving a `with`
    block, or garbage collection) gives it back. After release every
    attribute raises StateError; numpy views taken earlier must not be used.
    """

    __slots__ = ("_lock",)

    def __init__(self, ptr):
        super().__init__(ptr)
        self._lock = threading.Lock()

    def _gone_message(self) -> str:
        return "retained frame used after release()"

    def retain(self) -> "RetainedFrame":
        """One more retain of the same buffer (released separately)."""
        c_ptr = _lib.camcore_frame_retain(self._ptr)
        if not c_ptr:
            raise StateError(self._gone_message())
        return RetainedFrame(c_ptr)

    def release(self) -> None:
        """Gives the buffer back (camcore_frame_release). Releasing twice is a no-op."""
        with self._lock:
            ptr, self._ptr = self._ptr, None
        if ptr is not None:
            _lib.camcore_frame_release(ptr)

    def __enter__(self) -> "RetainedFrame":
        return self

    def __exit__(self, *exc) -> None:
        self.release()

    def __del__(self):
        try:
            self.release()
        except Exception:  # interpreter shutdown: nothing sensible left to do
            pass


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


class Capturer:
    """One open camera device (camcore_capturer). Use as a context manager.

    Created by Manager.open(). close() (or leaving the `with` block) stops
    streaming and closes the device; after it, every method raises
    StateError. The capturer stays usable after its Manager is closed.
    """

    def __init__(self, handle: int, device_id: str):
        self._handle: Optional[int] = handle
        self._device_id = device_id
        self._lock = threading.Lock()
        self._thunks = None          # (callbacks struct, ON_FRAME, ON_ERROR) C may call
        self._generation = 0         # bumped by each start
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
        return getattr(_tls, "capturer", None) is self

    def _make_thunks(self, on_frame: Optional[OnFrame], on_error: Optional[OnError]):
        def frame_thunk(_user_data, frame_ptr):
            prev = getattr(_tls, "capturer", None)
            _tls.capturer = self
            frame = Frame(frame_ptr)
            try:
                on_frame(frame)
            except BaseException as e:  # never let it reach C; report from stop()
                self._store_callback_exception(e)
            finally:
                frame._ptr = None
                _tls.capturer = prev

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

        cbs = camcore_frame_callbacks()
        _lib.camcore_frame_callbacks_init(byref(cbs))
        f = ON_FRAME(frame_thunk) if on_frame is not None else ON_FRAME()
        e = ON_ERROR(error_thunk)
        cbs.on_frame = f
        cbs.on_error = e
        return cbs, f, e

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
                            out.measured_fps)

    def start(self, fourcc: Union[str, int] = "YUYV", width: int = 640, height: int = 480,
              fps: Union[int, Fraction, float, Tuple[int, int], None] = 30,
              on_frame: Optional[OnFrame] = None, on_error: Optional[OnError] = None,
              buffer_count: int = 4, output: Union[str, int, None] = None) -> None:
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

        Raises InvalidArgError, StateError (already streaming), NotSupportedError
        (no such pixel format), BusyError, NoDeviceError, IOError_, NoMemoryError,
        WouldDeadlockError (called from this capturer's callback).
        The callables are kept alive until stop() or close() returns.
        """
        h = self._h()
        cfg = camcore_capture_config()
        _lib.camcore_capture_config_init(byref(cfg))
        cfg.fourcc = _fourcc(fourcc)
        cfg.width = _u32("width", width)
        cfg.height = _u32("height", height)
        cfg.fps = _to_c_fraction(fps)
        cfg.buffer_count = _u32("buffer_count", buffer_count)
        cfg.output_fourcc = _output_fourcc(output)
        thunks = self._make_thunks(on_frame, on_error)
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
        self._forget_thunks(generation)
        exc = self._take_callback_exception()
        if exc is not None:
            log.error("camcore: exception in a callback of %r", self._device_id,
                      exc_info=(type(exc), exc, exc.__traceback__))

    def capture(self, n: int, fourcc: Union[str, int] = "YUYV", width: int = 640,
                height: int = 480, fps: Union[int, Fraction, float, None] = 30,
                timeout: float = 10.0, buffer_count: int = 4,
                output: Union[str, int, None] = None) -> List[CapturedFrame]:
        """Starts, collects n frames as copies, stops; returns them in capture order.

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
                   on_error=on_error, buffer_count=buffer_count, output=output)
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


class Manager:
    """A camera manager (camcore_manager): lists devices and formats, opens capturers.

    Args:
        synthetic: also list the built-in synthetic camera (S4), after the real
            ones. The environment variable CAMCORE_SYNTHETIC_CAMERA=1, read when
            the manager is created, does the same.

    Use as a context manager; close() frees it (capturers opened from it stay
    valid and must be closed themselves). Raises NoMemoryError on failure.
    """

    def __init__(self, synthetic: bool = False):
        cfg = camcore_manager_config()
        _lib.camcore_manager_config_init(byref(cfg))
        cfg.include_synthetic = 1 if synthetic else 0
        out = _manager_p()
        _check(_lib.camcore_manager_new(byref(cfg), byref(out)), "camcore_manager_new")
        self._handle: Optional[int] = out.value
        self._lock = threading.Lock()

    def _h(self) -> int:
        h = self._handle
        if h is None:
            raise StateError("manager is closed")
        return h

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
                    unavailable_reason=_s(d.unavailable_reason)))
            return result
        finally:
            _lib.camcore_device_list_free(out)

    def formats(self, device_id: str) -> List[Format]:
        """The formats of one device (S5), in the driver's order then size order.

        Raises NoDeviceError for an unknown id, AccessError, BusyError, IOError_.
        """
        out = POINTER(camcore_format_list)()
        _check(_lib.camcore_manager_list_formats(self._h(), device_id.encode("utf-8"),
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
        _check(_lib.camcore_manager_negotiate(self._h(), device_id.encode("utf-8"), byref(pref),
                                              byref(out)),
               f"camcore_manager_negotiate({device_id!r})")
        return self._setting(out)

    def format_for(self, device_id: str, width: int, height: int, fps) -> Setting:
        """S7 format_for: the format nearest to width x height among those supporting
        fps exactly (camcore_manager_format_for). Raises NotSupportedError when no
        format supports fps, NoDeviceError, IOError_."""
        out = camcore_setting()
        out.struct_size = sizeof(camcore_setting)
        _check(_lib.camcore_manager_format_for(self._h(), device_id.encode("utf-8"),
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
        _check(_lib.camcore_manager_max_frame_rate(self._h(), device_id.encode("utf-8"),
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
        _check(_lib.camcore_capturer_open(self._h(), device_id.encode("utf-8"), byref(out)),
               f"camcore_capturer_open({device_id!r})")
        return Capturer(out.value, device_id)

    def close(self) -> None:
        """Frees the manager (camcore_manager_free). Closing twice is OK."""
        with self._lock:
            h, self._handle = self._handle, None
        if h is not None:
            _lib.camcore_manager_free(h)

    def __enter__(self) -> "Manager":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self) -> str:
        return f"<camcore.Manager {'closed' if self._handle is None else 'open'}>"
