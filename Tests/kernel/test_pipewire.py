"""S32–S34: vivid's cameras through a real PipeWire daemon in the guest.

The fixture starts a private session bus, pipewire and wireplumber
(TESTBED.md "PipeWire in the guest"), waits until camcore itself lists the
camera nodes (readiness, not a sleep: under emulation they can take ~50 s),
and stops all three at teardown.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


def _wait(pred, timeout, what):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout} s waiting for {what() if callable(what) else what}")


@pytest.fixture(scope="module")
def pipewire(vivid_webcam, camcore):
    for prog in ("pipewire", "wireplumber", "dbus-daemon"):
        if not shutil.which(prog):
            pytest.fail(f"{prog} not installed (.ci/setup --kernel installs it)")
    run = tempfile.mkdtemp(prefix="camcore-pw-")
    os.chmod(run, 0o700)
    saved = {k: os.environ.get(k) for k in ("XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS")}
    os.environ["XDG_RUNTIME_DIR"] = run
    os.environ["DBUS_SESSION_BUS_ADDRESS"] = f"unix:path={run}/bus"
    logs = open(os.path.join(run, "daemons.log"), "w")
    procs = []

    def start(*cmd):
        p = subprocess.Popen(list(cmd), stdout=logs, stderr=subprocess.STDOUT, env=dict(os.environ))
        procs.append(p)
        return p

    try:
        start("dbus-daemon", "--session", f"--address=unix:path={run}/bus", "--nofork", "--nopidfile")
        _wait(lambda: os.path.exists(f"{run}/bus"), 30, "the session bus socket")
        start("pipewire")
        _wait(lambda: os.path.exists(f"{run}/pipewire-0"), 30, "the pipewire socket")
        start("wireplumber")
        with camcore.Manager(backend="pipewire") as m:
            _wait(lambda: len(m.devices()) >= 2, 120, "two vivid camera nodes in PipeWire")
        yield run
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in reversed(procs):
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
        logs.close()
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _pipewire_cameras(camcore):
    with camcore.Manager(backend="pipewire") as m:
        return m.devices()


def test_S32_S34_pipewire_lists_vivid_with_its_v4l2_id(pipewire, camcore):
    pw = _pipewire_cameras(camcore)
    with camcore.Manager(backend="v4l2") as m:
        v4l2 = {d.node: d.id for d in m.devices()}
    assert len(pw) == 2, pw
    for d in pw:
        assert d.backend == "pipewire" and d.id.startswith("pipewire:"), d
        assert d.driver == "vivid" and d.type == "virtual", d
        assert d.v4l2_id in v4l2.values(), (d, v4l2)
    assert len({d.v4l2_id for d in pw}) == 2


def test_S5_S34_formats_are_the_v4l2_ones(pipewire, camcore):
    d = _pipewire_cameras(camcore)[0]
    with camcore.Manager(backend="both") as m:
        pwf = m.formats(d.id)
        v4f = m.formats(d.v4l2_id)
    pw_set = {(f.fourcc, f.width, f.height) for f in pwf}
    v4_set = {(f.fourcc, f.width, f.height) for f in v4f}
    assert ("YUYV", 640, 480) in pw_set, sorted(pw_set)
    # PipeWire lists what the V4L2 node lists (formats it has a SPA name for).
    assert pw_set <= v4_set, sorted(pw_set - v4_set)
    yuyv = [f for f in pwf if (f.fourcc, f.width, f.height) == ("YUYV", 640, 480)][0]
    assert yuyv.size_kind == "discrete" and yuyv.rates, yuyv
    print("PipeWire formats:", sorted({f.fourcc for f in pwf}))


def test_S33_both_lists_each_camera_once(pipewire, camcore):
    with camcore.Manager(backend="both") as m:
        ids = [d.id for d in m.devices()]
    with camcore.Manager(backend="v4l2") as m:
        v4l2 = [d.id for d in m.devices()]
    assert ids == v4l2, ids


def test_S22_S34_capture_60_frames_through_pipewire(pipewire, camcore):
    d = _pipewire_cameras(camcore)[0]
    with camcore.Manager(backend="pipewire") as m, m.open(d.id) as cap:
        frames = cap.capture(60, fourcc="YUYV", width=640, height=480, fps=25, timeout=60)
        fmt = cap.format
        stats = cap.stats
    assert (fmt.fourcc, fmt.width, fmt.height) == ("YUYV", 640, 480)
    assert len(frames) == 60
    for f in frames:
        assert (f.fourcc, f.width, f.height) == ("YUYV", 640, 480)
        assert f.planes[0].size >= 640 * 2 * 480
    seqs = [f.sequence for f in frames]
    assert all(b > a for a, b in zip(seqs, seqs[1:])), seqs
    ts = [f.timestamp_ns for f in frames]
    assert all(b > a for a, b in zip(ts, ts[1:]))
    now = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    assert 0 < now - ts[-1] < 10_000_000_000, "timestamps are CLOCK_MONOTONIC"
    assert stats.frames_delivered >= 60 and stats.frames_corrupted == 0
    print(f"PipeWire capture: {fmt}, {stats}")


TWO = textwrap.dedent("""
    import sys, camcore
    with camcore.Manager(backend="pipewire") as m, m.open(sys.argv[1]) as cap:
        frames = cap.capture(30, fourcc="YUYV", width=640, height=480, fps=25, timeout=60)
    print(len(frames), frames[-1].width, frames[-1].height)
""")


def test_S34_two_processes_capture_one_camera_at_once(pipewire, camcore):
    d = _pipewire_cameras(camcore)[0]
    env = dict(os.environ)
    procs = [subprocess.Popen([sys.executable, "-c", TWO, d.id], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env) for _ in range(2)]
    outs = [p.communicate(timeout=120) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err
        assert out.split() == ["30", "640", "480"], out


def test_S33_library_without_pipewire_still_lists_v4l2(pipewire, camcore):
    code = textwrap.dedent("""
        import camcore
        with camcore.Manager(backend="pipewire") as m:
            print("pipewire", len(m.devices()))
        with camcore.Manager(backend="both") as m:
            print("both", len(m.devices()))
    """)
    env = dict(os.environ, CAMCORE_PIPEWIRE_LIBRARY="/nonexistent/libpipewire-0.3.so.0")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["pipewire", "0", "both", "2"], r.stdout


def test_S24_S34_node_removal_and_return_are_hotplug_events(pipewire, camcore):
    import hotplug_util as hp
    before = {d.id for d in _pipewire_cameras(camcore)}
    events = []
    with camcore.Manager(backend="pipewire") as m:
        m.set_hotplug_callbacks(on_connected=lambda d: events.append(("+", d.id)),
                                on_disconnected=lambda d: events.append(("-", d.id)))
        try:
            hp.unbind()
            _wait(lambda: {i for s, i in events if s == "-"} == before, 60,
                  lambda: f"both nodes removed (events {events}, before {before})")
            assert m.devices() == []
        finally:
            hp.bind()
            hp.settle()
        _wait(lambda: {i for s, i in events if s == "+"} == before, 120,
              lambda: f"both nodes back (events {events}, before {before}, now {m.devices()})")
        m.set_hotplug_callbacks(None, None)
    assert [s for s, _ in events[:2]] == ["-", "-"], events
    print("PipeWire hot-plug events:", events)
