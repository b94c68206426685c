# SPDX-License-Identifier: MIT
"""Who owns a frame's pixels, and the cache of numpy views of the library's
buffers: a frame's `array`/`plane()` reuse one view per buffer and shape, and
a view still referenced when its frame ends keeps the buffer (S23)."""
from __future__ import annotations

import struct
import sys
import threading
from ctypes import c_uint8, sizeof
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Tuple

from ._pixfmt import _PIXEL_FORMATS, pixel_format
from ._raw import camcore_frame
from ._raw import lib as _lib

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    U8Array = NDArray[np.uint8]


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
