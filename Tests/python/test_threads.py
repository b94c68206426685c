# SPDX-License-Identifier: MIT
"""The camcore package's thread hooks (camcore_set_thread_hooks) and its reused numpy
views, on the synthetic camera: a capture thread keeps one Python thread
state from its start to its end, and views handed out per buffer never
read a buffer that went back to the driver."""
from __future__ import annotations

import threading

import numpy as np
import pytest

import camcore
from conftest import run_python

SMALL = dict(width=160, height=120)


def _collect(cap, n, fn, **kw):
    done = threading.Event()
    out = []

    def on_frame(f):
        out.append(fn(f))
        if len(out) == n:
            done.set()

    cap.start(fps=60, on_frame=on_frame, **SMALL, **kw)
    assert done.wait(10), f"{len(out)} of {n} frames"
    cap.stop()
    return out


def test_a_capture_thread_keeps_one_python_thread_state(cap):
    # Without the hooks every ctypes callback makes a new thread state, and a
    # threading.local set in one frame's callback is gone in the next.
    tls = threading.local()
    counter = iter(range(1000))

    def look(f):
        if not hasattr(tls, "first"):
            tls.first = next(counter)
        return (threading.get_ident(), tls.first)

    seen = _collect(cap, 8, look)
    assert len({ident for ident, _ in seen}) == 1, seen
    assert [first for _, first in seen] == [0] * 8, seen      # one state all along
    again = _collect(cap, 3, look)                            # a new start: a new thread
    assert [first for _, first in again] == [1] * 3, again


def test_without_the_hooks_each_callback_has_a_new_thread_state():
    # The same program with CAMCORE_PY_THREAD_HOOKS=0: the local is gone each time,
    # so the test above can fail.
    code = """
import threading, camcore
tls = threading.local(); got = []; done = threading.Event()
def on_frame(f):
    got.append(hasattr(tls, "x")); tls.x = 1
    if len(got) == 4: done.set()
with camcore.Manager(synthetic=True) as m, m.open(m.devices()[0].id) as cap:
    cap.start(width=160, height=120, fps=60, on_frame=on_frame); done.wait(10); cap.stop()
print(got)
"""
    on = run_python(code)
    off = run_python(code, env_extra={"CAMCORE_PY_THREAD_HOOKS": "0"})
    assert on.returncode == 0 and off.returncode == 0, (on.stderr, off.stderr)
    assert on.stdout.split()[-4:] == ["[False,", "True,", "True,", "True]"], on.stdout
    assert off.stdout.split()[-4:] == ["[False,", "False,", "False,", "False]"], off.stdout


def test_views_of_a_buffer_are_reused_while_nothing_keeps_them(cap):
    # Each buffer's view is made once: with 4 buffers, 24 frames give at most 4
    # distinct array objects, and each frame's array shows its own pixels.
    ids = []

    def look(f):
        a = f.array
        ids.append(id(a))
        return f.sequence

    seqs = _collect(cap, 24, look, buffer_count=4)
    assert all(b > a for a, b in zip(seqs, seqs[1:])), seqs
    assert len(set(ids)) <= 4, len(set(ids))


def test_a_kept_view_keeps_its_buffer_and_later_frames_get_new_views(cap):
    kept = []

    def look(f):
        a = f.array
        if len(kept) < 3:
            kept.append((f.sequence, a, a.copy()))   # the view escapes the callback
        return f.sequence

    _collect(cap, 12, look, buffer_count=6)
    # The frames differ (so a reused buffer would show), and the kept views
    # still read their own frame (their buffers were held).
    assert not np.array_equal(kept[0][2], kept[1][2])
    for seq, view, copy in kept:
        assert np.array_equal(view, copy), seq
    assert len({id(v) for _, v, _ in kept}) == 3
    del kept


def test_pull_loop_holding_the_last_array_reads_its_own_frame(cap):
    # The common `img = frame.array` keeps the previous frame's view while the
    # next is taken: it must still show the previous frame's pixels.
    prev_img = prev_copy = None
    checked = 0
    for f in cap.frames(20, fps=60, **SMALL):
        if prev_img is not None:
            assert np.array_equal(prev_img, prev_copy)
            checked += 1
        img = f.array
        prev_img, prev_copy = img, img.copy()
    assert checked == 19
    assert np.array_equal(prev_img, prev_copy)     # after the loop too
    # A slice kept for longer is kept too.
    sl = None
    for f in cap.frames(8, fps=60, **SMALL):
        if sl is None:
            sl = f.plane(0)[:64]
            want = sl.copy()
    assert np.array_equal(sl, want)


def test_pull_loop_views_kept_for_several_frames_read_their_own(cap):
    # S36: a pull loop's frame ends at the next iteration, its buffer goes
    # back an iteration later; views kept longer (the first frame's for the
    # whole loop, more frames than the capture has buffers, and the last
    # two) keep their buffers and still show their own pixels.
    first = None
    kept = []
    seqs = []
    for f in cap.frames(30, fps=60, depth=4, **SMALL):
        img = f.array
        if first is None:
            first = (img, img.copy())
        kept.append((f.sequence, img, img.copy()))
        seqs.append(f.sequence)
        kept = kept[-2:]
        for _, view, want in kept:
            assert np.array_equal(view, want)
        assert np.array_equal(first[0], first[1])
    assert seqs == sorted(seqs) and len(set(seqs)) == 30
    assert [k[0] for k in kept] == seqs[-2:]
    for _, view, want in kept + [(0,) + first]:
        assert np.array_equal(view, want)
    # The synthetic camera's pictures move: kept frames differ from each other.
    assert not np.array_equal(kept[1][1], first[0])


def test_pull_loop_depth_1_with_a_kept_view_says_why(cap):
    # S36: depth=1 leaves room for one frame; `img = frame.array` still refers
    # to it when the next is taken, so the loop cannot go on, and says why.
    seen = []
    with pytest.raises(camcore.StateError, match=r"depth=1.*numpy views|numpy views.*depth=1"):
        for f in cap.frames(5, fps=60, depth=1, **SMALL):
            img = f.array
            seen.append(f.sequence)
    assert len(seen) == 1
    del img
    # Copies keep nothing: the same loop runs to its end, and the capturer
    # is usable after the refusal.
    seqs = []
    for f in cap.frames(5, fps=60, depth=1, **SMALL):
        img = f.array.copy()
        seqs.append(f.sequence)
    assert len(seqs) == 5 and seqs == sorted(seqs) and len(set(seqs)) == 5
