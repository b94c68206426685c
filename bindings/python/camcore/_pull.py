# SPDX-License-Identifier: MIT
"""The one pull core (issue 32): Capturer.frames(), Capturer.aframes() and
Session.preview_frames() all run `_next_frames`, one library call per frame
(camcore_capturer_next_frame / camcore_session_next_preview_frame) that
gives a buffer back and takes the next frame, with one way of settling a
frame whose numpy views outlive it (`_settle_slot`)."""
from __future__ import annotations

from ctypes import byref, c_int, c_void_p
from typing import TYPE_CHECKING, Any, Callable, Generator, List, Optional, Tuple

from . import _raw
from ._errors import StateError, check, last_error_message
from ._frames import CapturedFrame, RetainedFrame
from ._views import (_Pixels, _frame_sig, _keep_escaped, _views_acquire, _views_get, _views_lock,
                     _views_release)
from ._raw import camcore_frame, frame_p
from ._raw import lib as _lib

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    U8Array = NDArray[np.uint8]


class _LoopFrame(RetainedFrame):
    """A frame of a pull loop (Capturer.frames(), aframes(),
    Session.preview_frames()): a RetainedFrame whose buffer the loop gives
    back itself, through its next next-frame call (one library call per
    frame, no release object per frame). Valid until the
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
    """Raises for a failed next-frame call of a pull loop: StateError when
    the capturer or session was closed meanwhile (recheck raises it), an
    explanation when frames the app keeps fill the queue depth, else the
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


#: What a pull loop's begin() gives: the C next-frame function
#: (camcore_capturer_next_frame or camcore_session_next_preview_frame), the
#: arguments before the timeout (the handle, and a preview's id), the timeout
#: in ms (0: yield None when no frame is ready, for aframes()), and a check
#: that raises StateError once the object is closed.
LoopBegin = Callable[[], Tuple[str, Tuple[Any, ...], int, Callable[[], object]]]


def _next_frames(begin: LoopBegin, end: Callable[[], None], count: Optional[int], what: str,
                 depth: int, poll: bool = False) -> Generator[Optional[RetainedFrame], None, None]:
    """The one pull core of Capturer.frames(), Capturer.aframes() and
    Session.preview_frames(): begin() runs at the first iteration (see
    LoopBegin), end() when the loop ends. Yields `count` frames (None: no
    end), each valid until the next iteration; with `poll` (and a timeout
    of 0) it yields None when no frame is ready (the caller waits on the
    frame fd and iterates again; None does not count), without it never. One next-frame call per frame: it
    gives back a buffer and takes the next frame. With depth >= 2 the loop
    alternates two pointers, so a frame's buffer goes back one iteration
    after its validity ended: the common `img = frame.array` still refers
    to the previous frame's view when the next frame is taken, and by the
    time its buffer goes back `img` is the new view, so the cached views
    are reused, not kept. Views still referenced then keep their buffer
    (see _settle_slot)."""
    name, lead, ms, recheck = begin()
    # A function object of its own without argtypes: ctypes' per-argument
    # checks cost a third of the call, and the loop passes exactly the C
    # types (the handle as c_void_p, ids and ms as ints already checked, a
    # pointer).
    nxt = _lib[name]
    nxt.restype = c_int
    args = tuple(c_void_p(a) if k == 0 else a for k, a in enumerate(lead))
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
            status = nxt(*args, ms, refs[i])
            if status:
                made[i] = None   # the call gave slot i's frame back whatever the outcome
                if poll and status == _raw.E_TIMEOUT:
                    if nslots == 2:
                        i ^= 1   # the same, now empty, slot next time
                    yield None
                    continue
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
                    status = nxt(*args, ms, refs[i])
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
