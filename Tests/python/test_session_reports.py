# SPDX-License-Identifier: MIT
"""What the camera tells the app beyond frames, on the host (synthetic camera):
S6's "says that it adjusted" for sessions (state, on_selected) and stalls
(S22: on_stall of a capturer and of a session, the stall counter), and that
callers built against the header before these fields still work."""
import ctypes
import threading
import time

import pytest

import camcore
from conftest import wait_until

# The synthetic camera's sizes step by 2: 641x481 becomes 642x482.
ODD = dict(width=641, height=481, min_fps=30, max_fps=60)


@pytest.fixture
def m2():
    with camcore.Manager(synthetic=2) as m:
        yield m


def test_S6_session_state_and_on_selected_say_adjusted(m2):
    selected = []
    with m2.session("synthetic:0", **ODD) as s:
        s.on_selected = lambda dev, fmt: selected.append((dev.id, fmt.width, fmt.height, fmt.adjusted))
        s.add_preview(lambda f: None)
        st = s.state
        assert st.camera_on and (st.format.width, st.format.height) == (642, 482)
        assert st.adjusted == camcore.ADJUSTED_SIZE and st.adjustments == ["size"]
        assert st.format.adjusted == camcore.ADJUSTED_SIZE
        s.select("synthetic:1")
        assert selected == [("synthetic:1", 642, 482, camcore.ADJUSTED_SIZE)]
        assert s.state.adjusted == camcore.ADJUSTED_SIZE


def test_S6_session_met_exactly_is_not_adjusted(m2):
    with m2.session("synthetic:0", width=640, height=480, min_fps=30, max_fps=30) as s:
        pid = s.add_preview(lambda f: None)
        assert s.state.camera_on and s.state.adjusted == 0 and s.state.format.adjusted == 0
        s.remove_preview(pid)
        assert not s.state.camera_on and s.state.adjusted == 0


def test_S29_session_state_of_an_older_caller_is_written_to_its_size(m2):
    """A caller built before `adjusted` passes the old struct_size: accepted,
    and nothing is written past it."""
    lib = camcore._lib
    old = camcore._raw.camcore_session_state.adjusted.offset
    with m2.session("synthetic:0", **ODD) as s:
        s.add_preview(lambda f: None)
        buf = (ctypes.c_uint8 * (ctypes.sizeof(camcore._raw.camcore_session_state) + 16))()
        ctypes.memset(buf, 0xA5, len(buf))
        st = camcore._raw.camcore_session_state.from_buffer(buf)
        st.struct_size = old
        assert lib.camcore_session_get_state(s._h(), ctypes.byref(st)) == 0
        assert st.struct_size == old and st.camera_on == 1 and st.format.width == 642
        assert all(b == 0xA5 for b in bytes(buf)[old:])
        st.struct_size = old - 4
        assert lib.camcore_session_get_state(s._h(), ctypes.byref(st)) == camcore.E_INVALID_ARG


def test_S22_capturer_on_stall_and_counter_when_every_buffer_is_kept(m2):
    held, events, lock = [], [], threading.Lock()
    last, keep = [0], [True]

    def on_frame(frame):
        last[0] = frame.timestamp_ns
        if keep[0]:
            held.append(frame.retain())

    def on_stall(stalled, since_ns):
        with lock:
            events.append((time.monotonic_ns(), stalled, since_ns))

    with m2.open("synthetic:0") as cap:
        cap.start(fourcc="YUYV", width=64, height=48, fps=60, buffer_count=2,
                  on_frame=on_frame, on_stall=on_stall)
        assert wait_until(lambda: len(events) >= 1, timeout=5)
        t, stalled, since = events[0]
        assert stalled and since == last[0] and len(held) == cap.format.buffer_count
        assert 1.0e9 <= t - since < 1.6e9
        assert cap.stats.stalls == 1 and cap.streaming
        keep[0] = False
        for r in held:
            r.release()
        assert wait_until(lambda: len(events) >= 2, timeout=5)
        assert events[1][1] is False and events[1][2] == since
        n = cap.stats.frames_delivered
        assert wait_until(lambda: cap.stats.frames_delivered > n + 5, timeout=5)
        cap.stop()
        assert cap.stats.stalls == 1 and len(events) == 2


def test_S22_session_on_stall_when_a_preview_keeps_every_frame(m2):
    events, held = [], []
    hold = [True]

    def preview(frame):
        if hold[0]:
            held.append(frame.retain())

    with m2.session("synthetic:0", width=64, height=48, min_fps=60, max_fps=60) as s:
        s.on_stall = lambda dev, stalled, since: events.append((dev.id, stalled, since))
        s.add_preview(preview)
        assert wait_until(lambda: len(events) >= 1, timeout=5)
        assert events[0][:2] == ("synthetic:0", True) and s.state.camera_on
        hold[0] = False
        for r in held:
            r.release()
        assert wait_until(lambda: len(events) >= 2, timeout=5)
        assert events[1] == ("synthetic:0", False, events[0][2])
