# SPDX-License-Identifier: MIT
"""S36 pull on the synthetic camera, through the C ABI (ctypes): the frame
iterator, the bounded queue that gives up its oldest frames, the held-frame
limit, the ready fd, asyncio, output conversion, and the refusals."""
from __future__ import annotations

import asyncio
import ctypes
import select
import time

import pytest

import camcore
from conftest import wait_until

SMALL = dict(width=160, height=120)


def test_S36_frames_iterator_yields_rising_sequences(cap):
    seen = []
    for f in cap.frames(12, fps=60, **SMALL):
        assert (f.fourcc, f.width, f.height) == ("YUYV", 160, 120)
        assert f.array.shape == (120, 160, 2)
        seen.append((f.sequence, f.timestamp_ns))
        assert cap.streaming
    assert len(seen) == 12
    assert all(b[0] > a[0] and b[1] > a[1] for a, b in zip(seen, seen[1:])), seen
    assert not cap.streaming                       # the loop's end stopped it
    st = cap.stats
    assert st.frames_delivered >= 12, st


def test_S36_a_frame_is_valid_until_the_next_iteration_unless_retained(cap):
    it = cap.frames(3, fps=60, **SMALL)
    first = next(it)
    kept = first.retain()
    view = first.plane(0)
    seq = first.sequence
    second = next(it)
    with pytest.raises(camcore.StateError):
        first.width                                # given back at the next iteration
    assert kept.sequence == seq and kept.width == 160
    assert view.shape == (160 * 2 * 120,)          # the view still reads its own buffer
    assert second.sequence > seq
    kept.release()
    del view
    it.close()
    assert not cap.streaming


def test_S36_a_slow_reader_loses_the_oldest_frames_never_the_driver(cap):
    cap.start_pull(fps=60, depth=2, **SMALL)
    try:
        time.sleep(0.6)                             # ~36 frames arrive, nobody reads
        a = cap.acquire(timeout=1)
        b = cap.acquire(timeout=1)
        assert b.sequence == a.sequence + 1, (a.sequence, b.sequence)   # the newest two, in order
        assert a.sequence >= 20, a.sequence         # the old ones were given up
        dropped = cap.stats.frames_dropped
        assert dropped >= a.sequence - 2, (dropped, a.sequence)
        last = b.sequence
        a.release()
        b.release()
        # The driver never starved: new frames keep coming at once.
        c = cap.acquire(timeout=1)
        assert c.sequence > last
        c.release()
    finally:
        cap.stop()


def test_S36_more_frames_held_than_the_queue_allows_is_refused(cap):
    cap.start_pull(fps=60, depth=2, **SMALL)
    try:
        a, b = cap.acquire(timeout=2), cap.acquire(timeout=2)
        with pytest.raises(camcore.StateError) as e:
            cap.acquire(timeout=2)
        assert "not released" in e.value.detail, e.value.detail
        a.release()
        c = cap.acquire(timeout=2)                  # one released: one more may come
        assert c.sequence > b.sequence
        b.release()
        c.release()
    finally:
        cap.stop()


def test_S36_pull_and_callbacks_are_not_mixed_and_stop_ends_acquire(cap):
    with pytest.raises(camcore.StateError) as e:
        cap.acquire(timeout=0)
    assert "not started" in e.value.detail
    cap.start(fps=60, on_frame=lambda f: None, **SMALL)
    with pytest.raises(camcore.StateError) as e:
        cap.acquire(timeout=0)
    assert "started with callbacks" in e.value.detail
    with pytest.raises(camcore.StateError):
        cap.frame_fd()
    cap.stop()
    cap.start_pull(fps=60, **SMALL)
    f = cap.acquire(timeout=2)
    cap.stop()
    with pytest.raises(camcore.StateError) as e:
        cap.acquire(timeout=0)
    assert "stopped" in e.value.detail
    assert f.width == 160                           # a frame taken before stop stays valid
    f.release()
    # And the capturer is still usable.
    assert [x.width for x in cap.frames(2, fps=60, **SMALL)] == [160, 160]


def test_S36_the_ready_fd_is_readable_exactly_while_a_frame_waits(cap):
    cap.start_pull(fps=5, depth=2, **SMALL)          # a frame every 200 ms
    try:
        fd = cap.frame_fd()
        r, _, _ = select.select([fd], [], [], 3)
        assert r == [fd]
        frames = []
        while True:
            try:
                frames.append(cap.acquire(timeout=0))
            except camcore.CamcoreTimeoutError:
                break
        assert frames
        r, _, _ = select.select([fd], [], [], 0)
        assert r == [], "readable with no frame queued"
        for f in frames:
            f.release()
        r, _, _ = select.select([fd], [], [], 3)    # the next frame makes it readable again
        assert r == [fd]
    finally:
        cap.stop()


def test_S36_aframes_lets_the_event_loop_run_between_frames(cap):
    async def main():
        ticks = 0
        stop = False

        async def ticker():
            nonlocal ticks
            while not stop:
                ticks += 1
                await asyncio.sleep(0.005)

        t = asyncio.get_running_loop().create_task(ticker())
        seqs = [f.sequence async for f in cap.aframes(6, fps=30, **SMALL)]
        stop = True
        await t
        return seqs, ticks

    seqs, ticks = asyncio.run(main())
    assert len(seqs) == 6 and all(b > a for a, b in zip(seqs, seqs[1:])), seqs
    assert ticks >= 10, f"the loop ran only {ticks} times while waiting for frames"
    assert not cap.streaming


def test_S36_output_conversion_in_pull_mode(cap):
    got = [(f.fourcc, f.width, f.height, f.plane_count) for f in cap.frames(3, fps=60, output="I420", **SMALL)]
    assert got == [("YU12", 160, 120, 3)] * 3


def test_S36_bad_arguments_are_refused_and_leave_it_usable(cap):
    for depth in (0, 9):
        with pytest.raises(camcore.InvalidArgError):
            cap.start_pull(depth=depth, **SMALL)
    for bad in (-1, float("nan"), "2"):
        with pytest.raises(camcore.InvalidArgError):
            cap.acquire(timeout=bad)
    # A frame count of the wrong type is a TypeError too; a negative one a ValueError only.
    for bad in ("2", 2.0, True):
        with pytest.raises(camcore.InvalidArgTypeError):
            next(cap.frames(bad, **SMALL))
    with pytest.raises(camcore.InvalidArgValueError):
        next(cap.frames(-1, **SMALL))
    assert not cap.streaming
    h = cap._h()
    assert camcore._lib.camcore_capturer_acquire_frame(h, 0, None) == camcore.E_INVALID_ARG
    assert camcore._lib.camcore_capturer_get_frame_fd(h, None) == camcore.E_INVALID_ARG
    assert camcore._lib.camcore_capturer_start_pull(None, None, 2) == camcore.E_INVALID_ARG
    assert [f.sequence >= 0 for f in cap.frames(2, fps=60, **SMALL)] == [True, True]


def test_S37_dmabuf_is_refused_on_the_synthetic_camera(cap):
    with pytest.raises(camcore.NotSupportedError) as e:
        cap.start(on_frame=lambda f: None, dmabuf=True, **SMALL)
    assert "V4L2 devices" in e.value.detail
    with pytest.raises(camcore.InvalidArgError):
        cap.start_pull(dmabuf="yes", **SMALL)
    assert [f.dmabuf for f in cap.frames(2, fps=60, **SMALL)] == [None, None]


def test_S36_a_pull_preview_turns_the_camera_on_and_yields_frames(manager, synth_id):
    with manager.session(synth_id, width=160, height=120, min_fps=30, max_fps=60) as s:
        assert s.state.camera_on is False
        seqs = []
        for f in s.preview_frames(6):
            assert (f.fourcc, f.width, f.height) == ("YUYV", 160, 120)
            assert s.state.camera_on is True and s.state.preview_count == 1
            seqs.append(f.sequence)
        assert all(b > a for a, b in zip(seqs, seqs[1:])), seqs
        assert wait_until(lambda: s.state.camera_on is False), s.state     # removed: off again (S9)
        # By hand, with the ready fd, next to a callback preview.
        got = []
        cb = s.add_preview(lambda f: got.append(f.sequence))
        pid = s.add_preview_pull(depth=2)
        r, _, _ = select.select([s.preview_fd(pid)], [], [], 3)
        assert r, "the pull preview's fd never became readable"
        f = s.acquire_preview(pid, timeout=2)
        assert f.width == 160
        f.release()
        s.remove_preview(pid)
        with pytest.raises(camcore.InvalidArgError):
            s.acquire_preview(pid, timeout=0)                              # removed
        with pytest.raises(camcore.InvalidArgError):
            s.add_preview_pull(depth=0)
        assert wait_until(lambda: len(got) >= 3), got                      # the other preview still runs
        s.remove_preview(cb)


def test_S36_loop_frames_copied_retained_and_the_loop_owns_only_its_capture(cap):
    # copy.copy of a loop frame is a retain of that frame: it keeps its own
    # sequence and pixels while the loop moves on (it would otherwise follow
    # the loop's pointer), and needs a release.
    import copy
    kept = None
    for i, f in enumerate(cap.frames(8, fps=60, **SMALL)):
        if i == 1:
            kept = copy.copy(f)
            seq, want = f.sequence, f.array.copy()
            assert isinstance(kept, camcore.RetainedFrame) and not isinstance(kept, type(f))
    assert kept.sequence == seq and (kept.array == want).all()
    kept.release()
    with pytest.raises(TypeError):
        import pickle
        for f in cap.frames(1, **SMALL):
            pickle.dumps(f)
    # A frames() generator left suspended does not stop a capture started
    # after the one it started ended.
    old = cap.frames(fps=60, **SMALL)
    next(old)
    cap.stop()
    got = []
    cap.start(fps=60, on_frame=lambda fr: got.append(fr.sequence), **SMALL)
    old.close()
    n = len(got)
    wait_until(lambda: len(got) >= n + 5, 5.0)
    assert cap.streaming
    cap.stop()


def test_S36_loop_refusals_say_what_happened(cap):
    # Retained frames count against the depth: the loop says so.
    held = []
    with pytest.raises(camcore.StateError, match="retain.*depth=2"):
        for f in cap.frames(6, fps=60, **SMALL):
            held.append(f.retain())
    assert len(held) == 2
    for r in held:
        r.release()
    # A positive timeout under a millisecond waits, it does not poll.
    assert camcore._args.timeout_ms(0.0004) == 1 and camcore._args.timeout_ms(0) == 0
    with pytest.raises(camcore.InvalidArgError, match=r"1\.\.8"):
        next(cap.frames(depth=-1, **SMALL))
    # Closing the capturer inside the loop: StateError "closed", not a bad argument.
    with pytest.raises(camcore.StateError, match="closed"):
        for i, f in enumerate(cap.frames(6, fps=60, **SMALL)):
            if i == 1:
                cap.close()


# -- issue 29: closed while waiting, break-and-restart, one timeout rule --

def _close_while_aframes_waits(cap, timeout):
    """A task waits in aframes() (1 fps: the next frame is up to 1 s away);
    the capturer is closed 0.2 s after the first frame. Returns (what the
    task raised, seconds from the close to the task's end)."""
    async def main():
        loop = asyncio.get_running_loop()
        closed_at = []

        def close_it():
            closed_at.append(time.monotonic())
            cap.close()

        async def reader():
            async for f in cap.aframes(None, fps=1, timeout=timeout, **SMALL):
                if not closed_at:
                    loop.call_later(0.2, close_it)
        task = loop.create_task(reader())
        try:
            await asyncio.wait_for(task, 8)
        except BaseException as e:   # noqa: B902 - the outcome is what we check
            return e, time.monotonic() - closed_at[0] if closed_at else None
        return None, None
    return asyncio.run(main())


@pytest.mark.parametrize("timeout", [None, 5.0])
def test_S36_aframes_learns_of_a_close_at_once(cap, timeout):
    err, after = _close_while_aframes_waits(cap, timeout)
    # Before: timeout=None still waited after 8 s; timeout=5 ended in a timeout.
    assert isinstance(err, camcore.StateError), (type(err), err)
    assert "closed" in str(err), err
    assert after is not None and after < 1.0, after


def test_S36_break_then_a_new_aframes_at_once_takes_over(cap):
    async def main():
        firsts = []
        for _ in range(3):
            async for f in cap.aframes(None, fps=60, **SMALL):
                firsts.append((f.width, f.sequence))
                break                                  # the generator closes later
        n = 0
        async for f in cap.aframes(5, fps=60, **SMALL):
            n += 1
        return firsts, n
    firsts, n = asyncio.run(main())
    # Before: the second aframes() raised StateError "already started".
    assert [w for w, _ in firsts] == [160, 160, 160], firsts
    assert n == 5
    assert not cap.streaming


def test_S36_break_then_a_new_frames_takes_over_a_kept_generator(cap):
    it = cap.frames(None, fps=60, **SMALL)
    first = next(it)                                   # kept, not closed
    assert first.width == 160
    seqs = [f.sequence for f in cap.frames(3, fps=60, **SMALL)]
    assert len(seqs) == 3 and seqs == sorted(seqs), seqs
    with pytest.raises(camcore.StateError):
        next(it)                                       # the old loop ends when resumed
    assert not cap.streaming


def test_S36_one_timeout_rule_inf_waits_nan_is_refused(cap):
    got = [f.sequence for f in cap.frames(2, fps=60, timeout=float("inf"), **SMALL)]
    assert len(got) == 2, got
    frames = cap.capture(2, fps=60, timeout=float("inf"), **SMALL)
    assert len(frames) == 2 and frames[0].width == 160

    async def one():
        async for f in cap.aframes(1, fps=60, timeout=float("inf"), **SMALL):
            return f.width
    assert asyncio.run(one()) == 160
    for bad in (float("nan"), -1, -float("inf"), "1", True):
        with pytest.raises(camcore.InvalidArgValueError):
            list(cap.frames(1, fps=60, timeout=bad, **SMALL))
    assert [f.width for f in cap.frames(1, fps=60, **SMALL)] == [160]   # still usable


def test_S36_a_second_aframes_task_ends_the_first_with_state_error(cap):
    """Two tasks: the second aframes() takes the capturer over; the first,
    waiting on the frame fd, ends at once with StateError (before: it waited
    on an fd the new start had closed, forever or until its timeout)."""
    async def main():
        outcome = {}

        async def first():
            try:
                async for f in cap.aframes(None, fps=2, timeout=None, **SMALL):
                    outcome.setdefault("first_frame", f.sequence)
            except camcore.StateError as e:
                outcome["first"] = ("StateError", str(e))

        async def second():
            while "first_frame" not in outcome:
                await asyncio.sleep(0.01)
            n = 0
            async for f in cap.aframes(3, fps=30, **SMALL):
                n += 1
            outcome["second"] = n

        await asyncio.wait_for(asyncio.gather(first(), second()), 10)
        return outcome
    outcome = asyncio.run(main())
    assert outcome.get("second") == 3, outcome
    assert outcome.get("first", ("",))[0] == "StateError" and "took the capturer over" in outcome["first"][1], outcome


def test_S36_frames_take_over_across_threads_never_stops_the_new_loop(cap):
    """A loop abandoned on one thread while another thread starts a new loop:
    the old loop's end must not stop the new capture (before: 1 in 5)."""
    import threading
    errors = []
    for i in range(20):
        old = cap.frames(None, fps=60, **SMALL)
        next(old)

        def close_old():
            old.close()
        t = threading.Thread(target=close_old)
        t.start()
        try:
            got = [f.sequence for f in cap.frames(3, fps=60, **SMALL)]
            if len(got) != 3:
                errors.append((i, got))
        except camcore.StateError as e:
            errors.append((i, str(e)))
        t.join()
    assert not errors, errors


def test_S36_one_timeout_rule_everywhere(cap, manager, synth_id):
    import decimal
    import fractions
    import numpy as np
    # Any real number >= 0 is seconds; huge ones mean no limit.
    for t in (np.float32(2.5), np.int64(3), decimal.Decimal("2.5"), fractions.Fraction(5, 2), 1e300, 2 ** 70):
        assert [f.width for f in cap.frames(1, fps=60, timeout=t, **SMALL)] == [160], t
    assert len(cap.capture(1, fps=60, timeout=1e300, width=160, height=120)) == 1
    assert len(cap.capture(1, fps=60, timeout=2 ** 70, width=160, height=120)) == 1
    # A tiny positive timeout waits at least 1 ms, in aframes as in frames.

    async def one():
        async for f in cap.aframes(1, fps=60, timeout=5e-324, **SMALL):
            return f.width
    try:
        asyncio.run(one())
    except camcore.CamcoreTimeoutError:
        pass
    # Sessions check before anything is queued.
    with manager.session(synth_id, width=160, height=120) as s:
        for bad in (float("nan"), -1, "x"):
            with pytest.raises(camcore.InvalidArgValueError):
                s.stop(timeout=bad)
        s.stop(timeout=float("inf"))                   # no limit: waits for the completion
