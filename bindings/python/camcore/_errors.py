# SPDX-License-Identifier: MIT
"""Exceptions: one class per camcore status code, each also the matching builtin.

Every failing call raises the class of its status code (SPEC S29: a failed
call returns one of a fixed set of negative codes and leaves a per-thread
detail text). Each class also derives from the builtin exception a Python
caller would catch for the same trouble, so ``except PermissionError`` or
``except TimeoutError`` works without knowing camcore:

==========================  ======================  =====================================
class                       also a                  when
==========================  ======================  =====================================
InvalidArgError             ValueError              an argument is out of range or wrong
InvalidArgTypeError         ValueError, TypeError   an argument of the wrong type
InvalidArgValueError        ValueError              a value no C argument can hold
NoDeviceError               OSError (ENODEV)        no such camera, or it went away
BusyError                   OSError (EBUSY)         the camera is used by another program
AccessError                 PermissionError         no permission to open the camera
NotSupportedError           –                       the camera or camcore cannot do it
CamcoreTimeoutError         TimeoutError            nothing came in time
CamcoreIOError              OSError (EIO)           the driver reported an I/O error
StateError                  RuntimeError            not valid now (stopped, closed, ...)
CustomSourceActiveError     RuntimeError            the app feeds transmission itself
WouldDeadlockError          RuntimeError            called from the object's own callback
NoMemoryError               MemoryError             out of memory, or too few buffers
InternalError               RuntimeError            a bug in camcore
BandwidthError              OSError (ENOSPC)        the USB bus cannot carry the stream
==========================  ======================  =====================================

Messages say what was asked in Python terms (``Manager.open('usb-1')``) and
then the library's explanation; ``.status`` keeps the C code and
``.detail`` the library's text alone.
"""
from __future__ import annotations

import ctypes
import errno as _errno_mod
import operator
import re
from ctypes import c_int, sizeof
from typing import Any, Dict, List, Optional, Type

from . import _raw
from ._raw import lib as _lib

_INT_MIN = -(1 << (8 * sizeof(c_int) - 1))
_INT_MAX = (1 << (8 * sizeof(c_int) - 1)) - 1
#: camcore_strerror's text for a value that is no status code (camcore.h).
_UNKNOWN_STATUS = "unknown status"


def _s(b: Optional[bytes]) -> str:
    return "" if b is None else b.decode("utf-8", errors="replace")


def strerror(status: int) -> str:
    """The name and meaning of a status code, e.g. ``"CAMCORE_E_BUSY: device busy"``.

    Any integer is accepted; one that is no status code, including one that
    does not fit a C int, gives "unknown status". Raises InvalidArgTypeError
    (also a TypeError) for a non-integer."""
    try:
        v = operator.index(status)
    except TypeError:
        raise InvalidArgTypeError(f"a status is an int, not {type(status).__name__}") from None
    if not _INT_MIN <= v <= _INT_MAX:
        return _UNKNOWN_STATUS
    return _s(_lib.camcore_strerror(v))


def last_error_message() -> str:
    """The library's explanation of the last failed camcore call made on the calling
    thread ("" if none). Each thread has its own, so read it on the failing thread."""
    return _s(_lib.camcore_last_error_message())


class CamcoreError(Exception):
    """A camcore call failed.

    Attributes:
        status: the negative status code (``E_BUSY``, ...; see strerror()).
        message: the full text, as str() gives it: what was asked and why it failed.
        detail: the library's explanation alone ("" if none).
        frames: for an error raised by Capturer.capture(), the frames (CapturedFrame)
            that came before it; None otherwise.
        preview_id: for an error of Session.add_preview()/add_preview_pull() raised
            after the preview was added (the camera failed to turn on), its id.

    The classes that are also an OSError set ``errno`` too (ENODEV, EBUSY,
    EACCES, ETIMEDOUT, EIO).
    """

    #: The status code of the class (None for CamcoreError itself).
    code: Optional[int] = None
    _errno: int = 0
    status: int
    message: str
    detail: str
    frames: Optional[List[Any]] = None
    preview_id: Optional[int] = None

    def __init__(self, message: str = "", status: Optional[int] = None, detail: str = "") -> None:
        self.status = status if status is not None else (self.code if self.code is not None else 0)
        self.message = message
        self.detail = detail
        super().__init__(message)
        if self._errno:
            setattr(self, "errno", self._errno)  # an OSError's attribute; str() stays the message


class InvalidArgError(CamcoreError, ValueError):
    """An argument was out of range, missing, or of the wrong kind (CAMCORE_E_INVALID_ARG);
    also a ValueError."""
    code = _raw.E_INVALID_ARG


class InvalidArgTypeError(InvalidArgError, TypeError):
    """An argument of the wrong type (a device id that is not a str, a callback that
    is not callable); also a TypeError (and a ValueError, as every InvalidArgError)."""


class InvalidArgValueError(InvalidArgError):
    """A value no C argument can hold (a FourCC of five characters or past 32 bits);
    a ValueError."""


class NoDeviceError(CamcoreError, OSError):
    """No camera with that id, or it went away (CAMCORE_E_NO_DEVICE); an OSError (ENODEV)."""
    code = _raw.E_NO_DEVICE
    _errno = _errno_mod.ENODEV


class BusyError(CamcoreError, OSError):
    """The camera is in use by another program or stream (CAMCORE_E_BUSY); an OSError
    (EBUSY)."""
    code = _raw.E_BUSY
    _errno = _errno_mod.EBUSY


class AccessError(CamcoreError, PermissionError):
    """No permission to open the camera (its /dev node, or the camera portal said no)
    (CAMCORE_E_ACCESS); a PermissionError."""
    code = _raw.E_ACCESS
    _errno = _errno_mod.EACCES


class NotSupportedError(CamcoreError):
    """The camera or camcore cannot do what was asked: a pixel format, size or rate it
    lacks, a control it has not, the fd of the synthetic camera (CAMCORE_E_NOT_SUPPORTED)."""
    code = _raw.E_NOT_SUPPORTED


class CamcoreTimeoutError(CamcoreError, TimeoutError):
    """Nothing came in time: the device did not answer, no frame arrived, an operation
    did not complete (CAMCORE_E_TIMEOUT); a TimeoutError. When raised by
    Capturer.capture(), ``.frames`` holds the frames that did arrive."""
    code = _raw.E_TIMEOUT
    _errno = _errno_mod.ETIMEDOUT


class CamcoreIOError(CamcoreError, OSError):
    """The driver reported an I/O error (CAMCORE_E_IO); an OSError (EIO)."""
    code = _raw.E_IO
    _errno = _errno_mod.EIO


class StateError(CamcoreError, RuntimeError):
    """Not valid in the object's state: not started, already streaming, used after
    close() (CAMCORE_E_STATE); a RuntimeError."""
    code = _raw.E_STATE


class CustomSourceActiveError(CamcoreError, RuntimeError):
    """A custom video source feeds transmission, so the camera cannot be selected or
    flipped (CAMCORE_E_CUSTOM_SOURCE_ACTIVE); a RuntimeError."""
    code = _raw.E_CUSTOM_SOURCE_ACTIVE


class WouldDeadlockError(CamcoreError, RuntimeError):
    """Called from inside the object's own callback, where waiting for it would hang
    (CAMCORE_E_WOULD_DEADLOCK); a RuntimeError."""
    code = _raw.E_WOULD_DEADLOCK


class NoMemoryError(CamcoreError, MemoryError):
    """Out of memory, or the driver granted too few buffers (CAMCORE_E_NO_MEMORY); a
    MemoryError."""
    code = _raw.E_NO_MEMORY


class InternalError(CamcoreError, RuntimeError):
    """A bug in camcore; the message says where (CAMCORE_E_INTERNAL); a RuntimeError."""
    code = _raw.E_INTERNAL


class BandwidthError(CamcoreError, OSError):
    """The bus cannot carry the stream (S47, CAMCORE_E_BANDWIDTH: USB isochronous
    bandwidth, ENOSPC at stream start); MJPEG or a lower size or rate may fit. An
    OSError with errno ENOSPC."""
    code = _raw.E_BANDWIDTH
    _errno = _errno_mod.ENOSPC


_ERROR_CLASSES: Dict[int, Type[CamcoreError]] = {cls.code: cls for cls in (  # type: ignore[misc]
    InvalidArgError, NoDeviceError, BusyError, AccessError, NotSupportedError,
    CamcoreTimeoutError, CamcoreIOError, StateError, CustomSourceActiveError, WouldDeadlockError,
    NoMemoryError, InternalError, BandwidthError)}

# "camcore_capturer_start: ..." or " (camcore_session_add_preview_pull)": a C function
# name in the library's text (the message names the Python call instead).
_C_NAME = re.compile(r"^camcore_\w+: |\s*\(camcore_\w+\)")


def _meaning(status: int) -> str:
    """strerror() without the code's name: "device busy"."""
    text = strerror(status)
    return text.split(": ", 1)[1] if text.startswith("CAMCORE_") and ": " in text else text


def error_for_status(status: int, what: str = "", detail: str = "") -> CamcoreError:
    """The exception (not raised) for a negative status: the subclass for its code.

    The message reads ``"<what>: <detail>"``, or ``"<what>: <meaning of the
    code>"`` when there is no detail (``"Capturer.start(): device busy"``).
    A detail that repeats the code's meaning is not doubled, and C function
    names in it are left out.
    """
    cls = _ERROR_CLASSES.get(status, CamcoreError)
    detail = _C_NAME.sub("", detail).strip()
    meaning = _meaning(status)
    parts = [p for p in (what, detail or meaning) if p]
    return cls(": ".join(parts), status=status, detail=detail)


def check(status: int, what: str) -> int:
    """Raises the exception for a negative status, with this thread's last error detail."""
    if status < 0:
        # Read on the same thread, right after the failing call (the detail is per thread).
        raise error_for_status(status, what, last_error_message())
    return status


def text_out(fn: Any, handle: Any, what: str) -> str:
    """The text of a C getter in snprintf style (fn(handle, buffer, size) -> full
    length, or a negative status): asked for its length, then read."""
    n = fn(handle, None, 0)
    check(n if n < 0 else 0, what)
    buf = ctypes.create_string_buffer(n + 1)
    n = fn(handle, buf, n + 1)
    check(n if n < 0 else 0, what)
    return buf.value.decode("utf-8", "replace")
