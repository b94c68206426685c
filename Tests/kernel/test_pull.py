# SPDX-License-Identifier: MIT
"""S36 on vivid: pull mode against a real V4L2 queue.

A reader that keeps up dequeues on its own thread and gets every frame with
rising sequence numbers; a reader that stays away gets the most recent
frames afterwards, consecutive, with the rest counted as dropped (the
capture thread took over and queued); a stop from another thread while the
reader waits ends the wait with StateError and leaves the capturer usable.
"""
from __future__ import annotations

import threading
import time

import pytest


def test_S36_a_reader_that_keeps_up_gets_rising_frames(vivid_webcam, camcore):
    with camcore.Manager(backend="v4l2") as m:
        with m.open(m.devices()[0].id) as cap:
            seqs = []
            for f in cap.frames(40, width=640, height=480, fps=25, depth=2):
                assert (f.fourcc, f.width, f.height) == ("YUYV", 640, 480), f
                assert f.array.nbytes >= 640 * 2 * 480
                seqs.append(f.sequence)
            st = cap.stats
    assert len(seqs) == 40
    assert all(b > a for a, b in zip(seqs, seqs[1:])), seqs
    gaps = sum(b - a - 1 for a, b in zip(seqs, seqs[1:]))
    # Every frame the driver gave was either read or counted as dropped.
    assert gaps <= st.frames_dropped, (gaps, st)
    print(f"S36 vivid keep-up: 40 frames, sequences {seqs[0]}..{seqs[-1]}, gaps {gaps}, "
          f"dropped {st.frames_dropped}")


def test_S36_a_reader_that_stays_away_gets_recent_frames(vivid_webcam, camcore):
    with camcore.Manager(backend="v4l2") as m:
        with m.open(m.devices()[0].id) as cap:
            cap.start_pull(width=640, height=480, fps=25, depth=2, buffer_count=4)
            try:
                with cap.acquire(5.0) as first:
                    s0 = first.sequence
                time.sleep(1.2)          # ~30 frames at 25 fps; the queue holds 2
                a = cap.acquire(5.0)
                b = cap.acquire(5.0)
                sa, sb = a.sequence, b.sequence
                a.release()
                b.release()
                st = cap.stats
            finally:
                cap.stop()
    assert sb == sa + 1, (sa, sb)
    assert sa - s0 >= 15, f"stale frames after a 1.2 s absence: {s0} then {sa}"
    assert st.frames_dropped >= sa - s0 - 3, (s0, sa, st)
    print(f"S36 vivid away 1.2 s: frame {s0}, then {sa},{sb}; dropped {st.frames_dropped}")


def test_S36_stop_from_another_thread_ends_a_waiting_reader(vivid_webcam, camcore):
    with camcore.Manager(backend="v4l2") as m:
        with m.open(m.devices()[0].id) as cap:
            cap.start_pull(width=640, height=480, fps=1, depth=1)   # 1 fps: the reader waits
            with cap.acquire(5.0):
                pass
            t = threading.Timer(0.2, cap.stop)
            t.start()
            t0 = time.monotonic()
            with pytest.raises((camcore.StateError, camcore.CamcoreTimeoutError)) as ei:
                while True:                     # a frame may still land before the stop
                    cap.acquire(3.0).release()
            waited = time.monotonic() - t0
            t.join()
            assert isinstance(ei.value, camcore.StateError), ei.value
            assert waited < 2.5, f"the stop took {waited:.2f} s to end the wait"
            # Usable afterwards.
            seqs = [f.sequence for f in cap.frames(3, width=640, height=480, fps=25)]
            assert len(seqs) == 3 and seqs[0] < seqs[1] < seqs[2], seqs
