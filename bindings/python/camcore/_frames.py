# SPDX-License-Identifier: MIT
"""Frames: borrowed views of the library's buffers, and numpy views of their pixels.

A frame handed to a callback is *borrowed* (SPEC S23): its memory is the
driver's mmap buffer, lent for the callback and reused for a later frame
once it returns. So a ``Frame`` is valid only during its callback (later
attribute reads raise StateError); ``retain()`` keeps it out of the capture
queue until ``release()``, and ``copy()`` copies it.

numpy is imported only when an array is asked for (``frame.array``,
``frame.plane(i)``, ``copy()``, ``Session.push_frame()``): listing cameras,
negotiating and capturing into callbacks work without numpy installed.
"""
from __future__ import annotations

import dataclasses
import logging
from ctypes import addressof, byref, c_uint8, c_uint32, sizeof, string_at
from typing import TYPE_CHECKING, Any, List, Optional, Tuple

from . import _raw, _views
from ._args import u32
from ._errors import InvalidArgError, StateError, check, last_error_message
from ._pixfmt import FourCC, fourcc_str, parse_fourcc, pixel_format
from ._raw import FRAME_CORRUPTED, camcore_frame
from ._raw import lib as _lib
from ._views import (_BufferViews, _Pixels, _buffer_views, _flat_view, _keep_escaped, _numpy_missing,
                     _push_tls, _pushed_owner, _shaped, _views_lock, numpy)

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    U8Array = NDArray[np.uint8]

log = logging.getLogger("camcore")

@dataclasses.dataclass
class CapturedFrame:
    """A frame copied out of the library (Capturer.capture(), Frame.copy()).

    Owns its data: planes are 1-D uint8 copies, array is a view of planes[0]
    shaped as Frame.array is. Timestamps in CLOCK_MONOTONIC nanoseconds.
    Without numpy installed, planes are `bytes` and array is None.
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
    planes: List[U8Array]
    array: Optional[U8Array]

    @property
    def plane_count(self) -> int:
        """Planes used, 1 to 3."""
        return len(self.planes)

    def plane(self, i: int) -> U8Array:
        """Plane i (1-D uint8 copy; bytes without numpy)."""
        return self.planes[i]

    def convert(self, fourcc: FourCC = "RGB24", width: int = 0, height: int = 0) -> "CapturedFrame":
        """This copy converted (and scaled) into a new CapturedFrame, as
        Frame.convert does (camcore_frame_convert on a frame described from
        these planes, checked as a pushed frame is). Same arguments and
        errors; InvalidArgError also when the planes do not hold the format
        and size this frame says (e.g. fields edited by hand)."""
        what = f"CapturedFrame.convert({fourcc!r}, {width}, {height})"
        c = camcore_frame()
        c.struct_size = sizeof(camcore_frame)
        c.fourcc = parse_fourcc(self.fourcc)
        c.width, c.height = u32("width", self.width), u32("height", self.height)
        c.flags = self.flags & 0xFFFFFFFF
        c.sequence = self.sequence & 0xFFFFFFFF
        c.timestamp_ns = self.timestamp_ns & 0xFFFFFFFFFFFFFFFF
        c.dropped_before = self.dropped_before & 0xFFFFFFFF
        if not 1 <= len(self.planes) <= 3 or len(self.strides) < len(self.planes):
            raise InvalidArgError(f"{what}: {len(self.planes)} planes and {len(self.strides)} strides "
                                  "(1 to 3 planes, a stride each)")
        c.plane_count = len(self.planes)
        keep = []   # the memory the planes point at, alive through the call
        for i, p in enumerate(self.planes):
            data = bytes(p) if not isinstance(p, (bytes, bytearray)) else p
            buf = (c_uint8 * max(len(data), 1)).from_buffer_copy(data.ljust(1, b"\0"))
            keep.append(buf)
            c.planes[i].data = addressof(buf)
            c.planes[i].stride = u32("stride", self.strides[i])
            c.planes[i].length = len(data)
        for i in range(3):
            c.dmabuf_fd[i] = -1
        return _convert(byref(c), c, fourcc, width, height, what)


def _convert(ptr: Any, c: camcore_frame, fourcc: FourCC, width: int, height: int, what: str) -> CapturedFrame:
    """camcore_frame_convert of the frame at ptr (described by c) into a new
    CapturedFrame, tightly packed (Frame.convert, CapturedFrame.convert)."""
    code = parse_fourcc(fourcc)
    info = pixel_format(code)
    if info is None:
        raise InvalidArgError(f"{what}: unknown pixel format {fourcc!r}")
    w, h = (width, height) if width or height else (c.width, c.height)
    n = c_uint32()
    if _lib.camcore_pixel_format_frame_size(code, u32("width", w), u32("height", h), byref(n)):
        # Not an output format, or no size: camcore_frame_convert's own words
        # ("output pixel format MJPG is not one of ..."), not the size helper's.
        one = (c_uint8 * 1)()
        check(_lib.camcore_frame_convert(ptr, code, u32("width", width), u32("height", height),
                                         addressof(one), 0), what)
        raise InvalidArgError(f"{what}: no {fourcc_str(code)} frame of {w}x{h}")
    size = n.value
    out = (c_uint8 * max(size, 1))()
    check(_lib.camcore_frame_convert(ptr, code, u32("width", width), u32("height", height),
                                     addressof(out), size), what)
    raw = memoryview(out).cast("B")[:size]
    planes: List[Any] = []
    strides: List[int] = []
    lengths: List[int] = []
    at = 0
    for i in range(info.plane_count):
        row, rows = info.plane_size(w, h, i)
        planes.append(bytes(raw[at:at + row * rows]))
        strides.append(row)
        lengths.append(row * rows)
        at += row * rows
    arr: Optional[U8Array] = None
    if not _numpy_missing():
        np = numpy()
        planes = [np.frombuffer(bytearray(p_), np.uint8) for p_ in planes]
        arr = _shaped(code, w, h, strides[0], planes[0])
    return CapturedFrame(
        fourcc=fourcc_str(code), width=w, height=h, sequence=c.sequence,
        timestamp_ns=c.timestamp_ns, flags=c.flags,
        corrupted=bool(c.flags & FRAME_CORRUPTED), dropped_before=c.dropped_before,
        strides=strides, lengths=lengths, planes=planes, array=arr)


class _FrameBase:
    """Shared read-only view of a camcore_frame.

    The description is copied when the object is made (reading it never
    touches library memory); the pixels stay in the library's buffer and
    numpy views of them keep that buffer while they exist (see above).
    """

    __slots__ = ("_ptr", "_frame", "_pixels", "_used")

    def __init__(self, ptr: Any, pixels: Optional[_Pixels] = None) -> None:
        self._ptr = ptr
        self._frame = camcore_frame.from_buffer_copy(ptr.contents)
        self._pixels = pixels
        self._used: Optional[List[_BufferViews]] = None   # the _BufferViews handed out, when any

    def _c(self) -> camcore_frame:
        if self._ptr is None:
            raise StateError(self._gone_message())
        return self._frame

    def _gone_message(self) -> str:
        return "frame is no longer valid"

    def _view(self, i: int, shaped: bool) -> U8Array:
        """Plane i's flat view, or plane 0 shaped (Frame.array), from the cache."""
        c = self._c()
        p = c.planes[i]
        address, length = p.data, p.length
        if not address or length == 0:
            return numpy().zeros(0, dtype=numpy().uint8)  # type: ignore[no-any-return]
        pushed = getattr(_push_tls, "array", None) if _views._pushing else None
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
            return v.shaped if shaped else v.flat  # type: ignore[return-value]

    def _end(self) -> Tuple[Optional[_Pixels], Optional[List[_BufferViews]]]:
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
        """FRAME_* bits (FRAME_CORRUPTED)."""
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

    def plane(self, i: int) -> U8Array:
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
    def array(self) -> U8Array:
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
        fcc = fourcc_str(c.fourcc)
        strides = self.strides
        arr: Optional[U8Array] = None
        if _numpy_missing():
            # No numpy: the bytes themselves, copied while the frame is valid.
            planes: List[Any] = [string_at(c.planes[i].data, c.planes[i].length) if c.planes[i].data else b""
                                 for i in range(min(c.plane_count, 3))]
        else:
            # The views die with this call: the buffer is kept only while copying.
            planes = [self.plane(i).copy() for i in range(min(c.plane_count, 3))]
            arr = _shaped(c.fourcc, c.width, c.height, strides[0] if strides else 0,
                          planes[0] if planes else numpy().zeros(0, numpy().uint8))
        return CapturedFrame(
            fourcc=fcc, width=c.width, height=c.height, sequence=c.sequence,
            timestamp_ns=c.timestamp_ns, flags=c.flags,
            corrupted=bool(c.flags & FRAME_CORRUPTED), dropped_before=c.dropped_before,
            strides=strides, lengths=self.lengths, planes=planes, array=arr)

    def convert(self, fourcc: FourCC = "RGB24", width: int = 0, height: int = 0) -> CapturedFrame:
        """This frame converted (and scaled) into a CapturedFrame of its own
        (camcore_frame_convert): the conversion an output format does (libyuv,
        BT.601 limited range; MJPEG decoded with TurboJPEG), for a snapshot or
        an occasional frame. fourcc: 'I420', 'NV12', 'YUYV', 'RGB24' (RGB3),
        'BGR24' (BGR3) or 'RGBA'; width/height: an output size in pixels, or
        both 0 for the frame's own (scaling follows the output-size rules,
        S38: exactly the size asked, stretched if the aspect differs; each side
        at most 16384 and 4x the frame's). The result
        is tightly packed: RGB24's array is (height, width, 3). Raises
        NotSupportedError for a conversion camcore lacks, InvalidArgError for a
        size it refuses or pixels that cannot be decoded (a truncated JPEG)."""
        c = self._c()
        return _convert(self._ptr, c, fourcc, width, height, f"Frame.convert({fourcc!r}, {width}, {height})")

    def __repr__(self) -> str:
        if self._ptr is None:
            return f"<{type(self).__name__} (no longer valid)>"
        c = self._c()
        return (f"<{type(self).__name__} {fourcc_str(c.fourcc)} {c.width}x{c.height} "
                f"seq={c.sequence} ts={c.timestamp_ns}>")


class Frame(_FrameBase):
    """A frame handed to on_frame (camcore_frame): its planes (pointer, stride, length),
    CLOCK_MONOTONIC timestamp, the driver's sequence, a corrupted flag and the
    sequence gap (S22). Borrowed (S23): valid only during the callback.

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

    def __init__(self, ptr: Any) -> None:
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

    def __exit__(self, *exc: object) -> None:
        self.release()
