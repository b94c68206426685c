# SPDX-License-Identifier: MIT
"""pytest suite for the video session of the camcore package (bindings/python) (SPEC S9–S21, S31).

Two synthetic cameras (Manager(synthetic=2)): "synthetic:0" faces front,
"synthetic:1" back. Sessions prefer 64x48 at 60–120 fps, so a 150 ms window
sees ~18 frames. Each test names the SPEC rule it checks and asserts real
values: camera_on from the state, which receivers got frames, their size,
sequence numbers, threads, and the order of completions and events.

Calls from inside callbacks that could hang or crash the interpreter run in
a subprocess with a time limit.
"""
import textwrap
import threading
import time

import numpy as np
import pytest

import camcore
from conftest import run_python, wait_until
from s9_oracle import s9_wants_camera

WINDOW = 0.15
FAST = dict(width=64, height=48, min_fps=60, max_fps=120)


class Counter:
    """A frame receiver: counts frames, keeps their sequence numbers, size, thread."""

    def __init__(self, name="rx", action=None):
        self.name = name
        self.lock = threading.Lock()
        self.count = 0
        self.total = 0
        self.seqs = []
        self.last = None          # (fourcc, width, height, sequence)
        self.last_bytes = None    # copy of plane 0 of the last frame
        self.threads = set()
        self.action = action      # called once, with the first frame, inside the callback
        self.acted = threading.Event()

    def __call__(self, frame):
        with self.lock:
            self.count += 1
            self.total += 1
            self.seqs.append(frame.sequence)
            self.last = (frame.fourcc, frame.width, frame.height, frame.sequence)
            self.last_bytes = frame.plane(0).copy()
            self.threads.add(threading.get_ident())
            act = self.action if not self.acted.is_set() else None
            if act is not None:
                self.acted.set()
        if act is not None:
            act(frame)

    def reset(self):
        with self.lock:
            self.count = 0
            self.seqs = []


def window(*counters, secs=WINDOW):
    """Resets the counters, waits, returns their counts. On a loaded machine
    (frames flowing, but slowly: 1 to 3 so far) it waits up to 2 s more."""
    for c in counters:
        c.reset()
    time.sleep(secs)
    end = time.monotonic() + 2
    while any(0 < c.count <= 3 for c in counters) and time.monotonic() < end:
        time.sleep(0.005)
    return [c.count for c in counters]


def assert_camera(s, on, step):
    st = s.state
    assert st.camera_on == on, f"{step}: camera_on {st.camera_on}, expected {on}: {st}"
    assert st.camera_on == s9_wants_camera(st), f"{step}: camera_on disagrees with S9: {st}"
    if on:
        assert st.format is not None and (st.format.width, st.format.height) != (0, 0)
    else:
        assert st.format is None


@pytest.fixture
def m2():
    with camcore.Manager(synthetic=2) as m:
        yield m


@pytest.fixture
def session(m2):
    with m2.session("synthetic:0", **FAST) as s:
        yield s


SESSION_STRUCTS = ["camcore_session_config", "camcore_session_state", "camcore_capture_hook",
                   "camcore_device_callbacks"]


def test_S29_session_structs_and_constants_match_the_header(tmp_path):
    import ctypes
    import re
    import shutil
    import subprocess
    from conftest import ROOT
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler")
    lines = ['#include <stdio.h>', '#include <stddef.h>', '#include "camcore.h"', "int main(void) {"]
    for name in SESSION_STRUCTS:
        lines.append(f'  printf("{name} size %zu\\n", sizeof({name}));')
        for field, _ in getattr(camcore._raw, name)._fields_:
            lines.append(f'  printf("{name} {field} %zu\\n", offsetof({name}, {field}));')
    lines += ["  return 0;", "}"]
    (tmp_path / "layout.c").write_text("\n".join(lines))
    subprocess.run([cc, "-std=c99", "-I", str(ROOT / "include"), str(tmp_path / "layout.c"),
                    "-o", str(tmp_path / "layout")], check=True, capture_output=True)
    out = subprocess.run([str(tmp_path / "layout")], check=True, capture_output=True,
                         text=True).stdout
    want = {tuple(line.split()[:2]): int(line.split()[2]) for line in out.splitlines()}
    for name in SESSION_STRUCTS:
        st = getattr(camcore._raw, name)
        assert ctypes.sizeof(st) == want[(name, "size")], name
        for field, _ in st._fields_:
            assert getattr(st, field).offset == want[(name, field)], (name, field)
    macros = dict(re.findall(r"#define CAMCORE_((?:VIDEO|HOOK)_\w+)\s+(\d+)",
                             (ROOT / "include" / "camcore.h").read_text()))
    assert len(macros) == 5
    for name, value in macros.items():
        assert getattr(camcore._raw, name) == int(value), name


def test_S4_two_synthetic_cameras_front_and_back(m2):
    devs = [(d.id, d.position, d.type, d.synthetic) for d in m2.devices() if d.synthetic]
    assert devs == [("synthetic:0", "front", "virtual", True),
                    ("synthetic:1", "back", "virtual", True)]


# --------------------------------------------------------------------------
# S9–S15: the camera switch
# --------------------------------------------------------------------------

def test_S9_truth_table(session):
    tx, p = Counter("tx"), Counter("preview")
    session.set_transmission_sink(tx)
    st = session.state
    assert st.device_id == "synthetic:0" and not st.transmitting and st.preview_count == 0
    # no preview, no transmit -> off
    assert_camera(session, False, "row 1")
    assert window(tx, p) == [0, 0]
    # preview only -> on
    pid = session.add_preview(p)
    assert pid != 0
    assert_camera(session, True, "row 2")
    fmt = session.state.format
    assert (fmt.width, fmt.height, fmt.fps) == (64, 48, 120)
    n_tx, n_p = window(tx, p)
    assert n_tx == 0 and n_p > 3
    assert p.last[1:3] == (64, 48) and p.last[0] == fmt.fourcc
    assert threading.get_ident() not in p.threads   # the capture thread, not ours
    # both -> on
    session.start_transmission()
    assert_camera(session, True, "row 4")
    n_tx, n_p = window(tx, p)
    assert n_tx > 3 and n_p > 3
    # transmit only -> on
    session.remove_preview(pid)
    assert_camera(session, True, "row 3")
    n_tx, n_p = window(tx, p)
    assert n_tx > 3 and n_p == 0
    # neither -> off
    session.end_transmission()
    assert_camera(session, False, "row 1 again")
    assert window(tx, p) == [0, 0]
    session.end_transmission()  # ending twice is fine


def test_S10_S11_S12_pause_preview_hold_remove_unhold_resume(session):
    tx, p = Counter("tx"), Counter("preview")
    session.set_transmission_sink(tx)

    session.start_transmission("pause")                  # S10: paused start, camera off
    st = session.state
    assert st.transmitting and st.paused
    assert_camera(session, False, "1 start paused")
    assert window(tx) == [0]

    pid = session.add_preview(p)                         # preview turns it on
    assert_camera(session, True, "2 add preview")
    n_tx, n_p = window(tx, p)
    assert n_tx == 0 and n_p > 3

    session.hold()                                       # S11: held, the preview keeps it on
    assert session.state.held and session.state.paused
    assert_camera(session, True, "3 hold")
    n_tx, n_p = window(tx, p)
    assert n_tx == 0 and n_p > 3

    session.remove_preview(pid)                          # nothing needs it: off
    assert_camera(session, False, "4 remove preview")
    assert window(tx, p) == [0, 0]

    session.unhold()                                     # as before the hold: still paused
    st = session.state
    assert not st.held and st.paused
    assert_camera(session, False, "5 unhold")
    assert window(tx) == [0]

    session.resume_video()                               # S12: on, transmitting
    assert_camera(session, True, "6 resume")
    n_tx, n_p = window(tx, p)
    assert n_tx > 3 and n_p == 0

    session.pause_video()                                # S12: off without a preview
    assert_camera(session, False, "7 pause")
    assert window(tx) == [0]
    session.resume_video()
    session.hold()                                       # S11 while transmitting: off
    assert_camera(session, False, "8 hold")
    session.unhold()
    assert_camera(session, True, "9 unhold")
    assert window(tx)[0] > 3

    with pytest.raises(camcore.StateError):
        session.start_transmission()                     # already transmitting
    session.end_transmission()
    for op in (session.pause_video, session.resume_video, session.hold, session.unhold,
               session.end_preparation):
        with pytest.raises(camcore.StateError):
            op()


def test_S13_preparation_runs_camera_but_transmits_after(session):
    tx = Counter("tx")
    session.set_transmission_sink(tx)
    session.start_transmission("resume", preparing=True)
    assert session.state.preparing
    assert_camera(session, True, "preparing")
    assert window(tx) == [0]
    session.pause_video()                                # pause/resume toggle the camera
    assert_camera(session, False, "preparing, paused")
    session.resume_video()
    assert_camera(session, True, "preparing, resumed")
    assert window(tx) == [0]
    session.end_preparation()
    assert not session.state.preparing
    assert window(tx)[0] > 3


def test_S15_null_sink_and_hard_mute(session):
    tx, p = Counter("tx"), Counter("preview")
    session.set_transmission_sink(tx)
    session.start_transmission()
    assert window(tx)[0] > 3
    session.set_transmission_sink(None)                  # camera keeps running, frames go nowhere
    frozen = tx.total
    assert_camera(session, True, "sink None")
    time.sleep(WINDOW)
    assert tx.total == frozen, "the old sink was called after set_transmission_sink(None)"
    session.set_transmission_sink(tx)

    session.hard_mute(True)                              # off, other state kept
    st = session.state
    assert st.hard_muted and st.transmitting and not st.paused and not st.held
    assert_camera(session, False, "muted")
    assert window(tx) == [0]
    pid = session.add_preview(p)                         # muted + preview: on for the preview only
    n_tx, n_p = window(tx, p)
    assert n_tx == 0 and n_p > 3
    session.remove_preview(pid)
    session.pause_video()
    session.hard_mute(False)                             # unmute keeps the pause
    st = session.state
    assert not st.hard_muted and st.paused
    assert_camera(session, False, "unmuted, paused")
    session.resume_video()
    assert_camera(session, True, "unmuted, resumed")
    assert window(tx)[0] > 3


def test_S14_two_previews_get_the_same_frames(m2):
    with m2.session("synthetic:1", **FAST) as s:
        a, b = Counter("A"), Counter("B")
        ida, idb = s.add_preview(a), s.add_preview(b)
        assert ida != idb and s.state.preview_count == 2
        window(a, b, secs=0.3)
        with a.lock, b.lock:
            sa, sb = list(a.seqs), list(b.seqs)
        lo, hi = max(sa[0], sb[0]), min(sa[-1], sb[-1])
        common_a = [x for x in sa if lo <= x <= hi]
        common_b = [x for x in sb if lo <= x <= hi]
        assert len(common_a) > 5 and common_a == common_b
        assert all(y > x for x, y in zip(sa, sa[1:]))
        s.remove_preview(ida)
        frozen = a.total
        assert_camera(s, True, "one preview left")
        assert window(b)[0] > 3
        assert a.total == frozen, "a removed preview was called again"
        s.remove_preview(idb)
        frozen = b.total
        assert_camera(s, False, "no previews")
        time.sleep(WINDOW)
        assert b.total == frozen
        with pytest.raises(camcore.InvalidArgError):
            s.remove_preview(idb)
        s.add_preview(a)
    frozen = a.total
    time.sleep(0.05)
    assert a.total == frozen, "a preview was called after the session closed"


def test_S9_camera_error_keeps_state(session):
    # The synthetic camera has no MJPG: with that setting every turn-on fails.
    session.start("MJPG", 64, 48, 60)                    # camera off: nothing to fail yet
    with pytest.raises(camcore.NotSupportedError):
        session.start_transmission()
    st = session.state
    assert st.transmitting and not st.camera_on
    p = Counter()
    with pytest.raises(camcore.NotSupportedError) as ei:
        session.add_preview(p)
    assert ei.value.preview_id != 0 and session.state.preview_count == 1
    session.start("YUYV", 64, 48, 60)                    # a good setting: the camera turns on
    assert_camera(session, True, "good setting")
    assert window(p)[0] > 3
    session.remove_preview(ei.value.preview_id)


# --------------------------------------------------------------------------
# S16–S19: capturer operations, completions, select and flip
# --------------------------------------------------------------------------

def test_S16_S17_completions_exactly_once_in_order(session):
    p = Counter()
    session.add_preview(p)
    log, lock, threads = [], threading.Lock(), set()
    ops = [("start", "YUYV", 64, 48), ("change", "I420", 96, 64), ("stop",), ("restart",),
           ("change", "NV12", 128, 96), ("stop",), ("change", "YUYV", 80, 60), ("restart",),
           ("start", "I420", 160, 120), ("stop",), ("stop",), ("restart",), ("restart",),
           ("change", "NV12", 64, 64), ("start", "YUYV", 96, 96), ("change", "YUYV", 112, 80),
           ("stop",), ("start", "NV12", 48, 32), ("change", "I420", 176, 144), ("restart",)]

    def completion(i):
        def done(err):
            st = session.state                            # allowed on the camera queue
            with lock:
                log.append((i, err, st.camera_on, st.stopped_by_app,
                            st.format and (st.format.fourcc, st.format.width, st.format.height)))
                threads.add(threading.get_ident())
        return done

    for i, op in enumerate(ops):
        fn = getattr(session, op[0])
        if len(op) > 1:
            fn(op[1], op[2], op[3], 60, completion=completion(i), wait=False)
        else:
            fn(completion=completion(i), wait=False)
    with pytest.raises(camcore.InvalidArgError, match="size 0x48"):     # refused at the call
        session.change("YUYV", 0, 48, 60, completion=completion(99), wait=False)
    session.restart(completion=completion(20), wait=False)                  # keeps the setting
    session.start("MJPG", 64, 48, 60, completion=completion(21), wait=False)  # camera lacks it
    session.start("YUYV", 64, 48, 60, completion=completion(22), wait=False)
    assert wait_until(lambda: len(log) >= 23, timeout=10)
    time.sleep(0.1)                                       # a second call would show now
    assert [e[0] for e in log] == list(range(23)), "not exactly once, in call order"
    assert len(threads) == 1 and threading.get_ident() not in threads
    stopped, cur = False, None
    for (i, err, on, by_app, fmt), op in zip(log, ops):
        assert err is None, (i, op, err)
        if op[0] in ("start", "change"):
            cur = ({"I420": "YU12"}.get(op[1], op[1]), op[2], op[3])
        if op[0] == "stop":
            stopped = True
        elif op[0] != "change":
            stopped = False
        assert (on, by_app) == (not stopped, stopped), (i, op)
        if not stopped:
            assert fmt == cur, (i, op, fmt, cur)        # took effect before the completion
    assert log[20][1] is None and log[20][2] and log[20][4] == ("YU12", 176, 144)
    assert isinstance(log[21][1], camcore.NotSupportedError) and log[21][2] is False
    assert log[22][1] is None and log[22][2] and log[22][4] == ("YUYV", 64, 48)
    assert window(p)[0] > 3 and p.last[1:3] == (64, 48)


def test_S17_wait_mode_raises_the_mapped_exception(session):
    session.start_transmission()
    with pytest.raises(camcore.InvalidArgError):
        session.change("YUYV", 0, 48, 60)
    with pytest.raises(camcore.NotSupportedError) as ei:
        session.change("MJPG", 64, 48, 60)
    assert ei.value.status == camcore.E_NOT_SUPPORTED and ei.value.detail
    session.change("NV12", 96, 64, 30)
    st = session.state
    assert st.camera_on and (st.format.fourcc, st.format.width, st.format.height) == ("NV12", 96, 64)
    assert st.format.fps == 30
    session.stop()
    assert not session.state.camera_on and session.state.stopped_by_app
    session.restart()
    st = session.state
    assert st.camera_on and (st.format.width, st.format.height) == (96, 64)
    calls = []
    session.stop(completion=lambda e: calls.append(e))    # completion and wait together
    assert calls == [None] and not session.state.camera_on


def test_S18_S19_select_flip_events_in_order_and_custom_source(session):
    events, lock = [], threading.Lock()

    def on_selected(dev, fmt):
        with lock:
            events.append(("selected", dev.id, dev.position, fmt.width, fmt.height))

    def done(err):
        with lock:
            events.append(("done", None if err is None else type(err).__name__))

    session.on_selected = on_selected
    tx = Counter()
    session.set_transmission_sink(tx)
    session.start_transmission()
    session.select("synthetic:1", completion=done)
    assert session.state.device_id == "synthetic:1" and session.state.camera_on
    assert window(tx)[0] > 3
    session.flip(completion=done)                         # back -> front
    assert session.state.device_id == "synthetic:0"
    session.flip(completion=done)                         # front -> back
    assert session.state.device_id == "synthetic:1"
    with pytest.raises(camcore.NoDeviceError):
        session.select("no-such-camera")
    assert session.state.device_id == "synthetic:1"
    session.custom_source(True)
    with pytest.raises(camcore.CustomSourceActiveError):
        session.select("synthetic:0")
    with pytest.raises(camcore.CustomSourceActiveError):
        session.flip()
    assert session.state.device_id == "synthetic:1"
    session.custom_source(False)
    session.flip(completion=done)
    with lock:
        got = list(events)
    assert got == [
        ("selected", "synthetic:1", "back", 64, 48), ("done", None),
        ("selected", "synthetic:0", "front", 64, 48), ("done", None),
        ("selected", "synthetic:1", "back", 64, 48), ("done", None),
        ("selected", "synthetic:0", "front", 64, 48), ("done", None),
    ]
    session.on_selected = None
    session.flip()
    assert len(events) == 8, "on_selected called after it was removed"


def test_S19_flip_keeps_format_and_rate(session):
    session.start_transmission()
    session.change("I420", 160, 120, 30)
    session.flip()
    st = session.state
    assert st.device_id == "synthetic:1"
    assert (st.format.width, st.format.height, st.format.fps) == (160, 120, 30)


def test_S6_set_preference_applies_when_on(session):
    p = Counter()
    session.add_preview(p)
    session.set_preference(width=96, height=64, min_fps=30, max_fps=30)
    st = session.state
    assert st.camera_on and (st.format.width, st.format.height, st.format.fps) == (96, 64, 30)
    assert window(p)[0] > 1 and p.last[1:3] == (96, 64)
    session.set_preference(width=64, height=48, min_fps=60, max_fps=120, output="RGB24")
    st = session.state
    assert (st.format.fourcc, st.format.width, st.format.height) == ("RGB3", 64, 48)
    assert window(p)[0] > 3 and p.last[:3] == ("RGB3", 64, 48)
    with pytest.raises(camcore.InvalidArgError):
        session.set_preference(width=0)


# --------------------------------------------------------------------------
# S20, S21: capture hook and custom source
# --------------------------------------------------------------------------

def test_S20_capture_hook_pass_and_drop(session):
    tx, p = Counter("tx"), Counter("preview")
    session.set_transmission_sink(tx)
    session.start_transmission()
    session.add_preview(p)
    mode, seen = ["pass"], []
    session.set_capture_hook(lambda f: (seen.append(f.width), mode[0])[1])
    n_tx, n_p = window(tx, p)
    assert n_tx > 3 and n_p > 3 and len(seen) > 3 and seen[-1] == 64
    mode[0] = "drop"
    time.sleep(0.02)
    before = len(seen)
    assert window(tx, p) == [0, 0]
    assert len(seen) - before > 3, "the hook must still see the frames it drops"
    assert_camera(session, True, "hook dropping")
    session.set_capture_hook(None)
    before = len(seen)
    n_tx, n_p = window(tx, p)
    assert n_tx > 3 and n_p > 3 and len(seen) == before


def test_S21_push_frame_reaches_sink_on_calling_thread(session):
    tx, p = Counter("tx"), Counter("preview")
    session.set_transmission_sink(tx)
    yuyv = (np.arange(32 * 16 * 2) * 7 + 3).astype(np.uint8)
    with pytest.raises(camcore.StateError):
        session.push_frame(yuyv, "YUYV", 32, 16)          # no custom source
    session.custom_source(True)
    session.start_transmission()
    assert_camera(session, False, "custom source, no preview")
    session.push_frame(yuyv, "YUYV", 32, 16, sequence=7)
    assert tx.total == 1 and tx.last == ("YUYV", 32, 16, 7)
    assert tx.threads == {threading.get_ident()}
    assert np.array_equal(tx.last_bytes, yuyv)

    got = {}

    def pusher():
        session.push_frame(yuyv, "YUYV", 32, 16)
        got["thread"] = threading.get_ident()
    t = threading.Thread(target=pusher)
    t.start()
    t.join()
    assert got["thread"] in tx.threads and tx.total == 2

    i420 = np.concatenate([np.full(32 * 16, 80, np.uint8), np.full(16 * 8, 90, np.uint8),
                           np.full(16 * 8, 100, np.uint8)])
    frames = []
    session.set_transmission_sink(lambda f: frames.append(
        (f.fourcc, f.plane_count, f.strides, f.lengths, [int(f.plane(i)[0]) for i in range(3)])))
    session.push_frame(i420, "I420", 32, 16)
    assert frames == [("YU12", 3, [32, 16, 16], [512, 128, 128], [80, 90, 100])]
    session.set_transmission_sink(tx)

    pid = session.add_preview(p)                          # the camera runs for previews only
    assert_camera(session, True, "custom source with a preview")
    n_tx, n_p = window(tx, p)
    assert n_tx == 0 and n_p > 3 and p.last[1:3] == (64, 48)
    session.remove_preview(pid)
    session.pause_video()
    before = tx.total
    session.push_frame(yuyv, "YUYV", 32, 16)              # accepted, not transmitted
    assert tx.total == before
    session.resume_video()
    with pytest.raises(camcore.InvalidArgError):
        session.push_frame(yuyv[:100], "YUYV", 32, 16)    # too small for the format
    session.custom_source(False)
    assert_camera(session, True, "custom source off")
    assert window(tx)[0] > 3 and tx.last[1:3] == (64, 48)
    with pytest.raises(camcore.StateError):
        session.push_frame(yuyv, "YUYV", 32, 16)


# --------------------------------------------------------------------------
# S16: eight threads at once
# --------------------------------------------------------------------------

def test_S16_eight_threads_leave_a_consistent_state(session):
    import random
    tx = Counter()
    session.set_transmission_sink(tx)
    barrier = threading.Barrier(8)
    bad, snapshots, held_previews = [], [], []

    def worker(seed):
        rnd = random.Random(seed)
        preview = None
        barrier.wait()
        for _ in range(60):
            r = rnd.randrange(11)
            try:
                if r == 0:
                    session.start_transmission(rnd.choice(["resume", "pause"]))
                elif r == 1:
                    session.end_transmission()
                elif r == 2:
                    session.pause_video()
                elif r == 3:
                    session.resume_video()
                elif r == 4:
                    session.hold()
                elif r == 5:
                    session.unhold()
                elif r == 6:
                    session.hard_mute(rnd.random() < 0.5)
                elif r in (7, 8):
                    if preview is None:
                        preview = session.add_preview(Counter())
                    else:
                        session.remove_preview(preview)
                        preview = None
                elif r == 9:
                    session.custom_source(rnd.random() < 0.25)
                else:
                    snapshots.append(session.state)
            except camcore.StateError:
                pass
            except Exception as e:  # anything else is a failure
                bad.append(e)
        if preview is not None:
            held_previews.append(preview)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    assert bad == []
    assert all(s.camera_on == s9_wants_camera(s) for s in snapshots)
    st = session.state
    assert st.preview_count == len(held_previews)
    assert st.camera_on == s9_wants_camera(st), st
    for pid in held_previews:
        session.remove_preview(pid)
    session.custom_source(False)
    session.end_transmission()
    assert_camera(session, False, "after the storm")
    session.start_transmission()
    assert_camera(session, True, "transmitting after the storm")
    assert window(tx)[0] > 3


# --------------------------------------------------------------------------
# S31: bad input, callbacks
# --------------------------------------------------------------------------

def test_S31_bad_input(m2):
    with pytest.raises(camcore.NoDeviceError):
        m2.session("no-such-camera")
    with pytest.raises(camcore.InvalidArgError):
        m2.session(width=0)
    with pytest.raises(camcore.InvalidArgError):
        m2.session(min_fps=60, max_fps=30)
    s = m2.session(**FAST)
    assert s.state.device_id == "synthetic:0"             # None: the first listed device
    with pytest.raises(camcore.InvalidArgError):
        s.start_transmission("sideways")
    with pytest.raises(camcore.InvalidArgError):
        s.remove_preview(4242)
    with pytest.raises(camcore.NoDeviceError):
        s.select("")                                      # no device has the empty id
    with pytest.raises(camcore.StateError):
        s.push_frame(np.zeros(8, np.uint8), "YUYV", 2, 2)  # no custom source
    s.close()
    s.close()                                             # twice is fine
    for op in (lambda: s.state, s.start_transmission, lambda: s.add_preview(Counter()),
               s.flip, lambda: s.custom_source(True)):
        with pytest.raises(camcore.StateError):
            op()


def test_S31_close_and_wait_inside_callbacks(session):
    out = {}

    def inside(frame):
        try:
            session.flip()                                # wait=True would deadlock
        except camcore.WouldDeadlockError as e:
            out["flip"] = e
        session.flip(wait=False)                          # queued: fine
        out["state_on"] = session.state.camera_on

    p = Counter(action=inside)
    session.add_preview(p)
    assert p.acted.wait(5) and wait_until(lambda: "state_on" in out)
    assert isinstance(out.get("flip"), camcore.WouldDeadlockError)
    assert out["state_on"] is True
    assert wait_until(lambda: session.state.device_id == "synthetic:1")
    assert not session.closed and window(p)[0] > 3


def test_S31_close_inside_a_preview_callback_never_fails_and_nothing_follows(manager):
    """Session.close() in a preview callback returns at once; neither that
    preview nor a second one nor a device callback is called afterwards."""
    s = manager.session("synthetic:0", width=320, height=240)
    calls, other = [], []

    def first(frame):
        calls.append(frame.sequence)
        if len(calls) == 3:
            s.close()
            calls.append("closed")

    s.set_device_callbacks(on_selected=lambda dev, fmt: other.append(("selected", dev.id)))
    s.add_preview(first)
    s.add_preview(lambda f: other.append(("frame", "closed" in calls)))
    assert wait_until(lambda: "closed" in calls, 10), calls
    assert s.closed
    snap_calls, snap_other = list(calls), list(other)
    time.sleep(0.3)                                       # frames would keep coming
    assert calls == snap_calls and calls[-1] == "closed" and len(calls) == 4, calls
    assert other == snap_other and ("frame", True) not in other, other


def test_S16_S36_pulling_a_preview_inside_the_sessions_callback_never_waits(session):
    """Frames of a pull preview come on the thread that runs the session's
    callbacks: pulling with a timeout there cannot be served, so it is
    WouldDeadlockError at once (it used to block for good with no timeout,
    or stall the camera for the whole timeout); polling (timeout 0) says
    CamcoreTimeoutError; the session goes on delivering."""
    out = {}

    def inside(frame):
        if "done" in out:
            return
        out["done"] = True
        for timeout in (None, 5.0):
            t0 = time.monotonic()
            try:
                next(session.preview_frames(1, timeout=timeout))
            except camcore.CamcoreError as e:
                out[timeout] = (e, time.monotonic() - t0)
        try:
            next(session.preview_frames(1, timeout=0))
        except camcore.CamcoreError as e:
            out[0] = e

    p = Counter(action=inside)
    session.add_preview(p)
    assert p.acted.wait(5) and wait_until(lambda: 0 in out), out
    for timeout in (None, 5.0):
        e, took = out[timeout]
        assert isinstance(e, camcore.WouldDeadlockError), e
        assert "own callback" in str(e) and took < 1.0, (e, took)
    assert isinstance(out[0], camcore.CamcoreTimeoutError), out[0]
    assert window(p)[0] > 3, "the preview stopped getting frames"
    assert not session.closed


def test_S31_session_calls_inside_frame_callback_are_queued(session):
    extra, out = Counter("extra"), {}

    def inside(frame):
        session.pause_video()
        session.hold()
        out["id"] = session.add_preview(extra)
        session.set_transmission_sink(None)
        out["on"] = session.state.camera_on

    tx, p = Counter("tx"), Counter("p", action=inside)
    session.set_transmission_sink(tx)
    session.start_transmission()
    session.add_preview(p)
    assert p.acted.wait(5) and wait_until(lambda: "on" in out)
    time.sleep(0.1)
    st = session.state
    assert st.paused and st.held and st.preview_count == 2 and st.camera_on
    n_tx, n_extra = window(tx, extra)
    assert n_tx == 0 and n_extra > 3
    assert out["id"] != 0, "add_preview inside a frame callback returned preview id 0"
    session.remove_preview(out["id"])


def test_S31_callback_exceptions_do_not_kill_the_process(session, caplog):
    def bad_frame(frame):
        raise RuntimeError("boom in preview")

    def bad_hook(frame):
        raise ValueError("boom in hook")

    def bad_completion(err):
        raise KeyError("boom in completion")

    def bad_selected(dev, fmt):
        raise ZeroDivisionError("boom in on_selected")

    good = Counter()
    session.set_capture_hook(bad_hook)
    session.add_preview(bad_frame)
    session.add_preview(good)
    session.on_selected = bad_selected
    session.flip(completion=bad_completion)
    assert window(good)[0] > 3                             # frames keep coming
    assert session.callback_error is not None and session.callback_error_count > 3
    kinds = {type(r.exc_info[1]) for r in caplog.records if r.exc_info}
    assert {RuntimeError, ValueError, KeyError, ZeroDivisionError} <= kinds
    # A hook returning something else than 'pass'/'drop' is reported, frames pass.
    session.set_capture_hook(lambda f: "sideways")
    assert window(good)[0] > 3
    # And in a fresh interpreter: the process lives on and exits 0 (sessions
    # still open at exit are closed by atexit).
    code = textwrap.dedent("""
        import time, camcore
        m = camcore.Manager(synthetic=2)
        s = m.session(width=64, height=48, min_fps=60, max_fps=120)
        s.add_preview(lambda f: 1 / 0)
        s.set_transmission_sink(lambda f: [][1])
        s.start_transmission()
        # Flip once a frame has failed: the completion's KeyError must not
        # be the first error kept when the first frame comes late.
        t0 = time.monotonic()
        while s.callback_error_count == 0 and time.monotonic() - t0 < 5:
            time.sleep(0.001)
        s.flip(completion=lambda e: {}["x"])
        time.sleep(0.3)
        print("alive", s.callback_error_count > 5, type(s.callback_error).__name__)
    """)
    r = run_python(code, timeout=60)
    assert r.returncode == 0, r.stderr[-2000:]
    # callback_error keeps the first error: the preview's or the sink's,
    # whichever of the two ran first on the first frame.
    out = r.stdout.split()
    assert out[:2] == ["alive", "True"] and out[2] in ("ZeroDivisionError", "IndexError"), r.stdout


# Calls from callbacks that might hang or crash: each in its own interpreter.
_PUSH_INSIDE = """
import threading, numpy as np, camcore
m = camcore.Manager(synthetic=2)
s = m.session(width=64, height=48, min_fps=60, max_fps=120)
got, done = [], threading.Event()
s.set_transmission_sink(lambda f: got.append(f.width))
s.custom_source(True)
s.start_transmission()
def preview(frame):
    if not done.is_set():
        s.push_frame(np.zeros(32 * 16 * 2, np.uint8), "YUYV", 32, 16)
        done.set()
s.add_preview(preview)
assert done.wait(5)
print("pushed", got)
s.close()
"""

_OP_INSIDE_PUSHED_SINK = """
import numpy as np, camcore
m = camcore.Manager(synthetic=2)
s = m.session(width=64, height=48, min_fps=60, max_fps=120)
s.custom_source(True)
s.start_transmission()
s.set_transmission_sink(lambda f: s.pause_video())
s.push_frame(np.zeros(32 * 16 * 2, np.uint8), "YUYV", 32, 16)
import time; time.sleep(0.1)
print("paused", s.state.paused)
s.close()
"""


@pytest.mark.parametrize("name,code,expect", [
    ("push_frame inside a preview callback", _PUSH_INSIDE, "pushed [32]"),
    ("pause_video inside the sink of a pushed frame", _OP_INSIDE_PUSHED_SINK, "paused True"),
], ids=["push_inside_preview", "pause_inside_pushed_sink"])
def test_S31_calls_inside_callbacks_do_not_hang_or_crash(name, code, expect):
    try:
        r = run_python(code, timeout=20)
    except Exception as e:  # subprocess.TimeoutExpired
        pytest.fail(f"{name}: hung (deadlock): {e}")
    assert r.returncode == 0, f"{name}: exit {r.returncode}: {r.stderr[-1500:]}"
    assert r.stdout.strip() == expect, f"{name}: {r.stdout!r}"
