# SPDX-License-Identifier: MIT
"""Checks and conversions of Python arguments into C arguments.

ctypes would silently wrap or truncate a value a C field cannot hold
(2**32 + 5 stored as 5, 1.5 as 1); every check here refuses it instead with
InvalidArgError (a ValueError) or, for a value of the wrong type,
InvalidArgTypeError (also a TypeError), before anything reaches the library.
"""
from __future__ import annotations

import decimal
import math
import numbers
import operator
import threading
from fractions import Fraction
from typing import Any, Callable, Optional, Tuple, TypeVar, Union

from ._errors import InvalidArgError, InvalidArgTypeError, InvalidArgValueError
from ._raw import U32_MAX, camcore_fraction

I32_MIN, I32_MAX = -(1 << 31), (1 << 31) - 1
I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1
U64_MAX = (1 << 64) - 1

#: A frame rate in frames per second: an int, a Fraction, a float (30000/1001
#: as 29.97), or (numerator, denominator); None where the driver's rate is kept.
Rate = Union[int, Fraction, float, Tuple[int, int]]

F = TypeVar("F", bound=Callable[..., Any])


def cstr(what: str, value: object) -> bytes:
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


def callable_or_none(what: str, fn: Optional[F], optional: bool = True) -> Optional[F]:
    """fn if it can be called (or None where a callback may be absent); else
    InvalidArgTypeError now, rather than a TypeError later on camcore's thread."""
    if fn is None and optional:
        return None
    if not callable(fn):
        raise InvalidArgTypeError(f"{what} must be callable, not {type(fn).__name__}")
    return fn


def flag(name: str, value: object) -> bool:
    """A flag argument: True/False (or 0/1)."""
    if isinstance(value, bool) or value in (0, 1):
        return bool(value)
    raise InvalidArgTypeError(f"{name}={value!r}: True or False")


def int_in(name: str, value: object, lo: int, hi: int) -> int:
    """An integer (int, bool, numpy integer) for a C integer field or argument of
    range lo..hi. ctypes would wrap one outside it silently (2**64 + 5 stored as 5),
    so that is InvalidArgError; a non-integer (1.5, "3") is InvalidArgTypeError."""
    try:
        v = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise InvalidArgTypeError(f"{name} is an integer, not {type(value).__name__}") from None
    if not lo <= v <= hi:
        raise InvalidArgError(f"{name}={v} out of range ({lo}..{hi})")
    return v


def u32(name: str, value: object) -> int:
    """A uint32_t argument: an integer 0..2**32-1 (InvalidArgError outside it;
    InvalidArgTypeError for 1.5, "3" or None, which int() would have taken or
    truncated)."""
    return int_in(name, value, 0, U32_MAX)


def _timeout_seconds(timeout: object) -> Optional[float]:
    """The one timeout rule: None or float('inf') is no limit (None); any real
    number >= 0 (int, float, numpy scalars, Decimal, Fraction) is seconds;
    anything else (nan, negatives, bool, strings, complex) raises
    InvalidArgValueError."""
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, (numbers.Real, decimal.Decimal)):
        raise InvalidArgValueError(f"timeout={timeout!r}: seconds >= 0, float('inf') or None (no limit)")
    try:
        t = float(timeout)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        raise InvalidArgValueError(f"timeout={timeout!r}: seconds >= 0, float('inf') or None (no limit)") from None
    if t != t or t < 0:
        raise InvalidArgValueError(f"timeout={timeout!r}: seconds >= 0, float('inf') or None (no limit)")
    return None if t == float("inf") else t


def timeout_ms(timeout: Optional[float]) -> int:
    """Seconds as the milliseconds a C timeout takes (-1: no limit), by the one
    timeout rule (_timeout_seconds). A positive timeout under 1 ms waits 1 ms
    (never a poll); one beyond what a C int32 holds (~24.8 days) is no limit."""
    t = _timeout_seconds(timeout)
    if t is None:
        return -1
    ms = t * 1000
    if ms >= I32_MAX:
        return -1
    return int(ms) if int(ms) or t == 0 else 1


def timeout_s(timeout: Optional[float]) -> Optional[float]:
    """Seconds for a Python-side wait (threading, asyncio), by the one timeout
    rule: None for no limit; a positive timeout under 1 ms waits 1 ms, as
    timeout_ms() has it; beyond threading.TIMEOUT_MAX is no limit."""
    t = _timeout_seconds(timeout)
    if t is None or t >= threading.TIMEOUT_MAX:
        return None
    return max(t, 0.001) if t > 0 else 0.0


def count_arg(count: Optional[int]) -> None:
    """A frame count: an int >= 0, or None for no end."""
    if count is None:
        return
    if isinstance(count, bool) or not isinstance(count, int):
        raise InvalidArgTypeError(f"count={count!r}: an int >= 0, or None, not {type(count).__name__}")
    if count < 0:
        raise InvalidArgValueError(f"count={count!r}: an int >= 0, or None")


def output_size_arg(size: Optional[Tuple[int, int]]) -> Tuple[int, int]:
    """Output size (S38: camcore scales frames to exactly this size): None -> (0, 0),
    which keeps the captured size; else (width, height)."""
    if size is None:
        return (0, 0)
    if not isinstance(size, (tuple, list)) or len(size) != 2:
        raise InvalidArgError(f"output_size={size!r} must be (width, height) or None")
    w, h = size
    if isinstance(w, bool) or isinstance(h, bool):
        raise InvalidArgTypeError(f"output_size={size!r}: sides are integers, not booleans")
    return (u32("output_size width", w), u32("output_size height", h))


def frac(f: camcore_fraction) -> Optional[Fraction]:
    """A C fraction as a Fraction; None for 0/0 (unknown)."""
    return Fraction(f.numerator, f.denominator) if f.denominator else None


def c_fraction(fps: Optional[Rate]) -> camcore_fraction:
    """int | Fraction | float | (num, den) | None -> camcore_fraction (None -> 0/0)."""
    if fps is None:
        return camcore_fraction(0, 0)
    if isinstance(fps, tuple):
        try:
            if len(fps) != 2 or any(isinstance(x, bool) for x in fps):
                raise TypeError
            num, den = (operator.index(x) for x in fps)   # ints, numpy integers
        except TypeError:
            raise InvalidArgTypeError(f"fps {fps!r}: a (numerator, denominator) pair of ints") from None
    else:
        if isinstance(fps, bool) or not isinstance(fps, (int, float, Fraction)):
            try:
                fps = Fraction(fps)  # type: ignore[arg-type]
            except (TypeError, ValueError):
                raise InvalidArgTypeError(
                    f"fps {fps!r}: an int, Fraction, float or (numerator, denominator)") from None
        if isinstance(fps, float) and not math.isfinite(fps):
            raise InvalidArgValueError(f"fps {fps!r}: a finite rate")
        f = Fraction(fps).limit_denominator(1001) if isinstance(fps, float) else Fraction(fps)
        num, den = f.numerator, f.denominator
    if not (0 <= num <= U32_MAX and 0 <= den <= U32_MAX):
        raise InvalidArgError(f"fps {fps!r} out of range (non-negative, 32-bit)")
    return camcore_fraction(num, den)


