# SPDX-License-Identifier: MIT
"""S9, S18, S19 on two vivid webcams (n_devs=2 node_types=0x1): the camera
switch really opens and closes the device.

When S9 says off, this process holds no fd on any /dev/videoN (checked in
/proc/self/fd) and another process can open and stream the device
(`v4l2-ctl --stream-mmap`); when on, exactly the selected device's node is
open and another process cannot stream it. select() and flip() move the open
fd (and the frames) to the other vivid device, with on_selected events.
"""
from __future__ import annotations

import subprocess
import threading
import time

import pytest

import v4l2probe as v4l
from s9_oracle import s9_wants_camera  # Tests/python, see conftest.py

PREF = dict(width=640, height=480, min_fps=15, max_fps=30)


def video_fds() -> list:
    """The /dev/video* nodes this process has open."""
    return sorted(line.split("-> ", 1)[1] for line in v4l.open_v4l_fds() if "-> " in line)


def stream_elsewhere(node: str):
    """Another process streams 3 frames from node; returns (ok, output).

    v4l2-ctl exits 0 even when VIDIOC_REQBUFS fails (EBUSY), so success is
    judged from its output: no failed ioctl, and a '<' per dequeued frame."""
    r = subprocess.run(["v4l2-ctl", "-d", node, "--stream-mmap", "--stream-count=3"],
                       capture_output=True, text=True, timeout=60)
    out = (r.stdout + r.stderr).strip()
    ok = r.returncode == 0 and "returned -1" not in out and out.count("<") >= 3
    return ok, out


def wait_until(pred, timeout=15.0, step=0.02):
    end = time.monotonic() + timeout
    while True:
        v = pred()
        if v or time.monotonic() > end:
            return v
        time.sleep(step)


class Counter:
    """Frame receiver: counts, keeps (sequence, width, height) of each frame."""

    def __init__(self):
        self.lock = threading.Lock()
        self.frames = []

    def __call__(self, frame):
        with self.lock:
            self.frames.append((frame.sequence, frame.width, frame.height))

    @property
    def n(self):
        with self.lock:
            return len(self.frames)

    def since(self, k):
        with self.lock:
            return list(self.frames[k:])


@pytest.fixture
def vivid_pair(vivid_webcam, camcore):
    with camcore.Manager() as m:
        devs = [d for d in m.devices() if d.driver == "vivid"]
        assert len(devs) == 2, m.devices()
        assert [d.node for d in devs] == sorted((d.node for d in devs), key=v4l.node_order)
        assert video_fds() == [], f"fds open before the test: {v4l.open_v4l_fds()}"
        yield m, devs
    assert video_fds() == [], f"fds left open: {v4l.open_v4l_fds()}"


def check_switch(s, on: bool, node: str, step: str, probe_other_process: bool = False):
    st = s.state
    assert st.camera_on == on, f"{step}: camera_on {st.camera_on}, expected {on}: {st}"
    assert st.camera_on == s9_wants_camera(st), f"{step}: disagrees with S9: {st}"
    fds = video_fds()
    if on:
        assert fds == [node], f"{step}: camera on, expected exactly {node} open, have {fds}"
    else:
        assert fds == [], f"{step}: camera off but fds are open: {fds}"
    if probe_other_process:
        ok, out = stream_elsewhere(node)
        if on:
            assert not ok, f"{step}: another process streamed {node} while camcore streams it: {out}"
        else:
            assert ok, f"{step}: camera off but another process cannot stream {node}: {out}"


def test_S9_off_closes_the_fd_and_frees_the_device(vivid_pair, camcore):
    m, devs = vivid_pair
    node = devs[0].node
    tx, p = Counter(), Counter()
    with m.session(devs[0].id, **PREF) as s:
        s.set_transmission_sink(tx)
        assert s.state.device_id == devs[0].id
        check_switch(s, False, node, "created", probe_other_process=True)

        pid = s.add_preview(p)                                   # preview only: on
        check_switch(s, True, node, "preview only", probe_other_process=True)
        fmt = s.state.format
        assert (fmt.width, fmt.height) == (640, 480) and 15 <= fmt.fps <= 30, fmt
        assert wait_until(lambda: p.n >= 3), f"preview got {p.n} frames"
        assert tx.n == 0

        s.start_transmission()                                   # both: on
        check_switch(s, True, node, "preview and transmission")
        assert wait_until(lambda: tx.n >= 3), f"transmission got {tx.n} frames"

        s.remove_preview(pid)                                    # transmission only: on
        check_switch(s, True, node, "transmission only")

        s.pause_video()                                          # S12: off
        check_switch(s, False, node, "paused", probe_other_process=True)
        k = tx.n
        s.resume_video()
        check_switch(s, True, node, "resumed")
        assert wait_until(lambda: tx.n >= k + 3)

        s.hold()                                                 # S11: off
        check_switch(s, False, node, "held")
        s.unhold()
        check_switch(s, True, node, "unheld")

        s.hard_mute(True)                                        # S15: off
        check_switch(s, False, node, "hard muted", probe_other_process=True)
        s.hard_mute(False)
        check_switch(s, True, node, "unmuted")

        s.set_transmission_sink(None)                            # S15: still on
        check_switch(s, True, node, "sink cleared")

        s.end_transmission()                                     # neither: off
        check_switch(s, False, node, "ended", probe_other_process=True)

        s.start_transmission("pause")                            # S10 pause: stays off
        check_switch(s, False, node, "started paused")
        s.stop()                                                 # S17 stop overrides S9
        s.resume_video()
        check_switch(s, False, node, "resumed but stopped by the app")
        s.restart()
        check_switch(s, True, node, "restarted")
    assert video_fds() == [], "session closed but the fd is open"
    ok, out = stream_elsewhere(node)
    assert ok, f"after close another process cannot stream {node}: {out}"


def test_S18_select_between_vivid_devices_while_transmitting(vivid_pair, camcore):
    m, devs = vivid_pair
    a, b = devs
    tx = Counter()
    events = []
    with m.session(a.id, **PREF) as s:
        s.on_selected = lambda dev, fmt: events.append((dev.id, dev.node, fmt.width, fmt.height))
        s.set_transmission_sink(tx)
        s.start_transmission()
        check_switch(s, True, a.node, f"transmitting on {a.node}")
        assert wait_until(lambda: tx.n >= 3)

        k = tx.n                                   # a's stream is past sequence 2 by now
        s.select(b.id)
        assert events == [(b.id, b.node, 640, 480)], events
        assert s.state.device_id == b.id
        check_switch(s, True, b.node, f"selected {b.node}")
        assert wait_until(lambda: tx.n >= k + 5), "no frames after select"
        after = tx.since(k)
        # A new stream on the other device: its sequence numbers start again at 0.
        seqs = [f[0] for f in after]
        assert min(seqs) <= 2, f"frames after select do not look like a new stream: {seqs}"
        assert all(f[1:] == (640, 480) for f in after)
        # The old device is free for others while camcore streams the new one.
        ok, out = stream_elsewhere(a.node)
        assert ok, f"{a.node} not free after selecting {b.node}: {out}"
        ok, out = stream_elsewhere(b.node)
        assert not ok, f"another process streamed {b.node} while camcore uses it: {out}"

        s.select(a.id)
        assert events[-1] == (a.id, a.node, 640, 480)
        check_switch(s, True, a.node, f"selected {a.node} again")
        k = tx.n
        assert wait_until(lambda: tx.n >= k + 3)

        with pytest.raises(camcore.NoDeviceError):
            s.select("no-such-camera")
        check_switch(s, True, a.node, "failed select")

        s.custom_source(True)                                    # S18: refused
        with pytest.raises(camcore.CustomSourceActiveError):
            s.select(b.id)
        check_switch(s, False, a.node, "custom source, no preview")
        s.custom_source(False)
        check_switch(s, True, a.node, "custom source off")

        s.end_transmission()                                     # select while off: stays off
        s.select(b.id)
        assert events[-1][0] == b.id and s.state.device_id == b.id
        check_switch(s, False, b.node, "selected while off")
    assert len(events) == 3, events


def test_S19_flip_on_vivid_goes_to_the_other_camera(vivid_pair, camcore):
    m, devs = vivid_pair
    a, b = devs
    orientation = {}
    for d in devs:
        r = v4l.v4l2_ctl("-d", d.node, "-L")
        orientation[d.node] = "camera_orientation" in r
    positions = {d.node: d.position for d in devs}
    print(f"orientation control: {orientation}; positions: {positions}")
    opposite = {positions[a.node], positions[b.node]} == {"front", "back"}
    if not any(orientation.values()):
        # No V4L2_CID_CAMERA_ORIENTATION: no position comes from the driver, so the
        # two vivid devices are never a front/back pair: flip takes the next camera.
        assert not opposite, positions
    tx = Counter()
    events = []
    with m.session(a.id, **PREF) as s:
        s.on_selected = lambda dev, fmt: events.append((dev.id, fmt.width, fmt.height, fmt.fps))
        s.set_transmission_sink(tx)
        s.start_transmission()
        check_switch(s, True, a.node, "transmitting")
        s.change("YUYV", 320, 180, 15)            # a size vivid's webcam offers
        fmt = s.state.format
        assert (fmt.width, fmt.height, fmt.fps) == (320, 180, 15), fmt

        s.flip()                                   # the next (or opposite) camera: b
        assert s.state.device_id == b.id
        check_switch(s, True, b.node, "flipped once")
        fmt = s.state.format
        assert (fmt.width, fmt.height, fmt.fps) == (320, 180, 15), \
            f"flip did not keep the nearest format and rate: {fmt}"
        k = tx.n
        assert wait_until(lambda: tx.n >= k + 3), "no frames after flip"
        assert all(f[1:] == (320, 180) for f in tx.since(k))

        s.flip()                                   # and back (the list wraps)
        assert s.state.device_id == a.id
        check_switch(s, True, a.node, "flipped twice")
    assert [e[0] for e in events] == [b.id, a.id], events
    assert all(e[1:] == (320, 180, 15) for e in events), events
