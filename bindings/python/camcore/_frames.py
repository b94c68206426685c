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
import struct
import sys
import threading
from ctypes import addressof, byref, c_int, c_uint8, c_uint32, c_void_p, sizeof, string_at
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, List, Optional, Tuple

from . import _raw
from ._args import u32
from ._errors import InvalidArgError, StateError, check, last_error_message
from ._pixfmt import _PIXEL_FORMATS, FourCC, fourcc_str, parse_fourcc, pixel_format
from ._raw import FRAME_CORRUPTED, camcore_frame, frame_p
from ._raw import lib as _lib

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    U8Array = NDArray[np.uint8]

log = logging.getLogger("camcore")

_np: Any = None


def numpy() -> Any:
    """The numpy module, imported on first use (ImportError with advice if absent)."""
    global _np
    if _np is None:
        try:
            import numpy as mod
        except ImportError as e:
            raise ImportError("camcore: frame arrays need numpy (pip install numpy); "
                              "listing, negotiation, callbacks, frames() and capture() work without it "
                              "(copied frames then hold their planes as bytes)") from e
        _np = mod
    return _np


def _numpy_missing() -> bool:
    """True when numpy cannot be imported (checked once; copy() then keeps bytes)."""
    if _np is not None:
        return False
    try:
        numpy()
    except ImportError:
        return True
    return False


def _shaped(code: int, width: int, height: int, stride: int, data: U8Array) -> U8Array:
    """A view of plane 0's 1-D bytes shaped for its format (bytes per pixel from the
    pixel-format table), rows stepped by stride."""
    pf: Any = _PIXEL_FORMATS.get(code, False)   # a frame's FourCC is an int: skip the name parsing
    if pf is False:
        pf = pixel_format(code)
    if pf is None or pf.compressed or pf.bytes_per_pixel == 0:
        return data
    bpp = pf.bytes_per_pixel
    row = width * bpp
    if width == 0 or height == 0 or stride < row or data.size < (height - 1) * stride + row:
        return data  # compressed, unknown or short (corrupted) data: plain bytes
    shape: Tuple[int, ...]
    strides: Tuple[int, ...]
    if bpp == 1:
        shape, strides = (height, width), (stride, 1)
    else:
        shape, strides = (height, width, bpp), (stride, bpp, 1)
    # np.ndarray over the read-only bytes: read-only too, based on `data` (so it
    # keeps the frame's buffer); a quarter of as_strided's cost per frame.
    np = _np or numpy()
    return np.ndarray(shape, np.uint8, data, 0, strides)  # type: ignore[no-any-return]


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


class _Pixels:
    """What keeps a frame's buffer out of the capture queue while numpy views
    of it exist: one retain of the frame (camcore_frame_retain, or the hold
    of an acquired frame), given back (camcore_frame_release) when this
    object is garbage-collected; or, for a frame the app pushed (S21), the
    pushed array itself.
    """

    __slots__ = ("_retained", "_owner", "__weakref__")

    def __init__(self, retained: Any = None, owner: Any = None) -> None:
        self._retained = retained
        self._owner = owner

    def __del__(self) -> None:
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


def call_pushing(array: "U8Array", call: Callable[[], int]) -> int:
    """Runs call() (camcore_session_push_frame) marking `array` as the memory of
    the frames pushed on this thread meanwhile: the sink runs on this thread
    during the call, and a view it keeps of a pushed frame keeps `array`
    (camcore cannot retain the app's memory)."""
    global _pushing
    prev = getattr(_push_tls, "array", None)
    with _pushing_lock:
        _pushing += 1
    _push_tls.array = array
    try:
        return call()
    finally:
        _push_tls.array = prev
        with _pushing_lock:
            _pushing -= 1


def _pushed_owner(c: camcore_frame) -> Optional[U8Array]:
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
# loop moves on, release()) the binding looks whether anything outside this
# cache still refers to the views it handed out (sys.getrefcount: numpy
# views of views, slices and memoryviews all hold a reference to one of
# them). If something does, the views "escape": the frame's buffer is kept
# for them (one retain, given back when they are collected) and the buffer
# gets new views next time. So a view never reads a buffer that went back
# to the driver, as before, and the common case costs a few dict and
# refcount look-ups.

_getrefcount = sys.getrefcount
#: (fourcc, width, height, stride) a shaped view was made for.
_ShapeKey = Tuple[int, int, int, int]
# Orders the hand-out of a view against the end of the frame handing it out
# (another thread may read a frame while its callback returns).
_views_lock = threading.Lock()
_views: Dict[Tuple[int, ...], "_BufferViews"] = {}
# Bound once: a pull loop takes the lock twice per frame (`with` costs twice as much).
_views_acquire = _views_lock.acquire
_views_release = _views_lock.release
_views_get = _views.get
_VIEWS_MAX = 64   # buffers remembered; more (many streams) forgets the oldest half


def _flat_view(address: int, length: int) -> Tuple[Any, "U8Array"]:
    """(ctypes array, read-only 1-D uint8 numpy view of it) over length bytes at address."""
    np = _np or numpy()
    buf = (c_uint8 * length).from_address(address)
    flat = np.frombuffer(buf, dtype=np.uint8)
    flat.flags.writeable = False
    return buf, flat


class _BufferViews:
    """The read-only numpy views of one plane's memory: flat (1-D uint8) and,
    for plane 0, shaped as Frame.array is (see _shaped)."""

    __slots__ = ("key", "shape_key", "buf", "flat", "shaped", "counts")

    def __init__(self, address: int, length: int, shape_key: Optional[_ShapeKey]) -> None:
        self.key = _views_key(address, length, shape_key)
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


def _views_key(address: int, length: int, shape_key: Optional[_ShapeKey]) -> Tuple[int, ...]:
    """The _views key: (address, length) for flat views; for shaped ones the
    fields _frame_sig reads, in its order (fourcc, width, height, address,
    stride, length), so a pull loop finds them with one unpack."""
    if shape_key is None:
        return (address, length)
    return (shape_key[0], shape_key[1], shape_key[2], address, shape_key[3], length)


#: Reads (fourcc, width, height, planes[0].data, planes[0].stride,
#: planes[0].length) out of a camcore_frame in one call: the key of plane
#: 0's shaped views.
_FRAME_SIG = struct.Struct("=4xIII8xQII")
_frame_sig = _FRAME_SIG.unpack_from
if _FRAME_SIG.size != camcore_frame.planes.offset + 16 or sizeof(camcore_frame) < _FRAME_SIG.size:  # the layout _raw declares
    raise ImportError("camcore: camcore_frame's layout is not the one _frame_sig reads")


def _buffer_views(address: int, length: int, shape_key: Optional[_ShapeKey]) -> _BufferViews:
    """The cached views of (address, length) shaped by shape_key (None: flat
    only), made when none fit. Called with _views_lock held, for a frame
    that is valid (its buffer is mapped)."""
    key = _views_key(address, length, shape_key)
    v = _views.get(key)
    if v is None:
        if len(_views) >= _VIEWS_MAX:
            # Forget the oldest half (buffers of streams that ended, most
            # likely), not the views a running stream is reusing.
            for old in list(_views)[:_VIEWS_MAX // 2]:
                del _views[old]
        v = _views[key] = _BufferViews(address, length, shape_key)
    return v


def _keep_escaped(used: List[_BufferViews], pixels: Optional[_Pixels]) -> bool:
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
            return (_np or numpy()).zeros(0, dtype=(_np or numpy()).uint8)  # type: ignore[no-any-return]
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



_Held = Optional[Tuple[Optional[_Pixels], List[_BufferViews]]]


def _pull_settle(prev: Optional[RetainedFrame], held: _Held, defer: bool) -> _Held:
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


class _LoopFrame(RetainedFrame):
    """A frame of Capturer.frames(): a RetainedFrame whose buffer the loop
    gives back itself, through a later camcore_capturer_next_frame call (one
    library call per frame, no release object per frame). Valid until the
    next iteration (or release()); the buffer goes back an iteration later,
    or with the views that still refer to it then, as for any frame.

    The description is copied at the first attribute read, not per frame:
    under _views_lock while the frame is valid, the library's struct cannot
    go (the loop takes that lock before it gives a buffer back)."""

    __slots__ = ()

    def __init__(self, ptr: Any) -> None:
        self._ptr = ptr
        self._frame = None  # type: ignore[assignment]  # copied at the first read (_c)
        self._pixels = None
        self._used = None

    def _c(self) -> camcore_frame:
        f = self._frame
        if f is None:
            with _views_lock:
                ptr = self._ptr
                if ptr is None:
                    raise StateError(self._gone_message())
                f = self._frame = camcore_frame.from_buffer_copy(ptr.contents)
        elif self._ptr is None:
            raise StateError(self._gone_message())
        return f  # type: ignore[no-any-return]

    def release(self) -> None:
        self._ptr = None   # _used stays: the loop looks at the views when it gives the buffer back

    def __del__(self) -> None:
        pass

    def __copy__(self) -> RetainedFrame:
        # Its pointer is the loop's, rewritten each iteration: a copy of the
        # object would follow the loop. A copy is a retain of this frame.
        return self.retain()

    def __deepcopy__(self, memo: Any) -> CapturedFrame:
        return self.copy()

    def __reduce__(self) -> Any:
        raise TypeError("a frame of Capturer.frames() cannot be pickled; copy() it (a CapturedFrame)")

    @property
    def array(self) -> U8Array:
        """As Frame.array. A loop frame finds its cached view with one read
        of the library's frame struct (_frame_sig); else as _view does."""
        _views_acquire()
        try:
            ptr = self._ptr
            if ptr is not None:
                v = _views_get(_frame_sig(ptr.contents))
                if v is not None:
                    shaped = v.shaped
                    if shaped is not None:
                        used = self._used
                        if used is None:
                            self._used = [v]
                        elif v not in used:
                            used.append(v)
                        return shaped
        finally:
            _views_release()
        return self._view(0, True)


def _settle_slot(frame: _LoopFrame, slot: Any) -> bool:
    """The loop is about to give back the buffer in `slot` (a frame_p) of
    `frame`, whose validity ended. Under _views_lock (a reader on another
    thread that found the frame valid reads the slot under it, so it is done
    first), takes the views the frame handed out; if any is still
    referenced, they keep the buffer (a copy of the pointer, released when
    they are collected) and True says the slot's pointer is theirs now."""
    _views_acquire()
    used, frame._used = frame._used, None
    _views_release()
    if used:
        for v in used:
            if v.escaped():
                _keep_escaped(used, _Pixels(frame_p.from_buffer_copy(slot)))
                return True
    return False


def _loop_error(status: int, what: str, depth: int, kept_out: bool, recheck: Callable[[], object]) -> None:
    """Raises for a failed camcore_capturer_next_frame of Capturer.frames():
    StateError when the capturer was closed meanwhile (recheck raises it),
    an explanation when frames the app keeps fill the queue depth, else the
    library's error."""
    recheck()
    msg = last_error_message()
    if status == _raw.E_STATE and "not released" in msg:
        held = ("numpy views of earlier frames that are still referenced and frames you retain()"
                if kept_out else "frames you retain()")
        hint = ("use depth >= 2 (`img = frame.array` still refers to the previous frame while the "
                "next is taken)" if depth == 1 else f"use a larger depth than {depth}")
        raise StateError(f"{what}: {held} hold their buffers and count against depth={depth}, which "
                         f"leaves no room for the next frame: {hint}, release them or keep copies "
                         "(frame.array.copy(), frame.copy())")
    check(status, what)


def _next_frames(begin: Callable[[], Tuple[int, int, Callable[[], object]]], end: Callable[[], None],
                 count: Optional[int], what: str, depth: int) -> Iterator[RetainedFrame]:
    """Capturer.frames(): begin() starts the capture at the first iteration
    and gives (capturer handle, timeout ms, a check that raises StateError
    once the capturer is closed); end() stops it when the loop ends. Yields
    `count` frames (None: no end), each valid
    until the next iteration. One camcore_capturer_next_frame call per
    frame: it gives back a buffer and takes the next frame. With depth >= 2
    the loop alternates two pointers, so a frame's buffer goes back one
    iteration after its validity ended: the common `img = frame.array`
    still refers to the previous frame's view when the next frame is
    taken, and by the time its buffer goes back `img` is the new view, so
    the cached views are reused, not kept. Views still referenced then
    keep their buffer (see _settle_slot)."""
    # A function object of its own without argtypes: ctypes' per-argument
    # checks cost a third of the call, and the loop passes exactly the C
    # types (the handle as c_void_p, ms an int32 already checked, a pointer).
    h, ms, recheck = begin()
    nxt = _lib["camcore_capturer_next_frame"]
    nxt.restype = c_int
    hp = c_void_p(h)
    nslots = 2 if depth >= 2 else 1
    slots = [frame_p() for _ in range(nslots)]
    refs = [byref(x) for x in slots]
    made: List[Optional[_LoopFrame]] = [None] * nslots   # the last frame taken into each slot
    cur: Optional[_LoopFrame] = None
    kept_out = False   # views kept a buffer of this loop (for the error when none is left)
    i = 0
    n = 0
    try:
        while count is None or n < count:
            if cur is not None:
                # Its validity ends (a view handed out meanwhile is in _used:
                # the hand-out holds the lock, _settle_slot takes it).
                cur._ptr = None
                cur = None
            if nslots == 2:
                i ^= 1
            old = made[i]
            if old is not None and _settle_slot(old, slots[i]):
                kept_out = True
                slots[i] = frame_p()
                refs[i] = byref(slots[i])
            status = nxt(hp, ms, refs[i])
            if status:
                made[i] = None   # the call gave slot i's frame back whatever the outcome
                j = i ^ 1
                last = made[j] if nslots == 2 else None
                if status == _raw.E_STATE and last is not None and "not released" in last_error_message():
                    # Views kept from earlier frames hold buffers too, so the two
                    # slots do not fit under the queue depth: give the other
                    # slot's frame (the last one, no longer valid) back now.
                    made[j] = None
                    if _settle_slot(last, slots[j]):
                        kept_out = True
                    else:
                        _lib.camcore_frame_release(slots[j])
                    slots[j] = frame_p()
                    refs[j] = byref(slots[j])
                    status = nxt(hp, ms, refs[i])
                if status:
                    _loop_error(status, what, depth, kept_out, recheck)
            cur = made[i] = _LoopFrame(slots[i])
            n += 1
            yield cur
    finally:
        try:
            if cur is not None:
                cur._ptr = None
            for k in range(nslots):
                old = made[k]
                if old is not None and _settle_slot(old, slots[k]):
                    continue
                if slots[k]:
                    _lib.camcore_frame_release(slots[k])
        finally:
            end()


def _pulled(acquire: Callable[..., int], args: Tuple[Any, ...], count: Optional[int], what: str,
            depth: int) -> Iterator[RetainedFrame]:
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
            out = frame_p()
            status = acquire(*args, byref(out))
            if status:
                check(status, what)
            prev = RetainedFrame(out)
            n += 1
            yield prev
    finally:
        _pull_settle(prev, held, False)

