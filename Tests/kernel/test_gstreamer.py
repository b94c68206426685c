# SPDX-License-Identifier: MIT
"""camcoresrc (bindings/gstreamer, issue 33) on vivid in the kernel guest,
run as users run it: gst-launch-1.0 -m (every bus message printed) with
fakesink dump=true. The pipeline scales the camera's picture to 8x2 I420 by
nearest neighbour, so fakesink prints each buffer's first 16 bytes: 8 luma
samples of the row at 1/4 of the height and 8 of the row at 3/4, one at the
centre of each of vivid's 8 colour bars. Instance 0 shows its 75% colour bars,
instance 1 is painted black, the synthetic camera shows 100% bars sliding
by: each buffer tells which camera made it.

- frames flow from the /dev/videoN given as `device` (the process has that
  node open), from either instance;
- S24/S25 hot-plug mid-stream: vivid unbound (its platform device: a real udev
  remove of every node) while the pipeline plays; the bus carries
  camcore-disconnected for the camera in use (in-use=true) and no ERROR.
  With the synthetic camera listed the session falls back to it and, after
  the rebind, returns to the lost camera (camcore-connected, camcore-selected,
  its frames, its node open again). With one vivid instance and nothing to
  fall back on, the stream waits without buffers and resumes from the camera
  after the rebind. The pipeline stops cleanly either way.

The camera's picture is taken at 640x480 (a caps filter before videoscale):
the sampled row (360) lies below the text vivid draws at the top, which a
rebound instance shows again (its controls reset).

Needs the plugin staged (`make stage` ends with `make gst`:
build/prefix/lib/gstreamer-1.0/libgstcamcore.so) and gst-launch-1.0 with
videoscale (gstreamer1.0-tools, -plugins-base); skipped otherwise. Times
(unbind -> message, bind -> frames back) go to hotplug-faults.txt.
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import threading
import time
from typing import Callable, List, Optional

import pytest

import conftest
import hotplug_util as hp

PLUGIN_DIR = os.path.join(conftest.REPO, "build", "prefix", "lib", "gstreamer-1.0")
PLUGIN = os.path.join(PLUGIN_DIR, "libgstcamcore.so")
# The guest's root is the host's, read-only: GStreamer's registry goes to /tmp.
GST_ENV = {"GST_PLUGIN_PATH": PLUGIN_DIR, "GST_REGISTRY": "/tmp/camcore-kernel-gst-registry.bin"}

VIVID_BARS = [179, 160, 130, 111, 83, 64, 34, 16]       # vivid's 75% bars (v4l2probe.COLORBAR_LUMA)
# camcore's synthetic camera: 100% bars sliding left 4 pixels a frame and a white
# square bouncing over them, so its samples are some rotation of these, one
# of them maybe white.
SYNTHETIC_BARS = [235, 210, 170, 145, 106, 81, 41, 16]
BLACK = [16] * 8
# One webcam-like instance: after an unbind there is no camera at all.
VIVID_ONE = "n_devs=1 node_types=0x1 input_types=0x0"


def _near(y: List[int], want: List[int], tol: int = 3) -> bool:
    return len(y) == len(want) and all(abs(a - b) <= tol for a, b in zip(y, want))


def _synthetic(y: List[int], tol: int = 3) -> bool:
    for r in range(8):
        want = SYNTHETIC_BARS[r:] + SYNTHETIC_BARS[:r]
        if len(y) == 8 and sum(abs(a - b) <= tol for a, b in zip(y, want)) >= 7:
            return True
    return False


def kind(y: List[int]) -> str:
    """Which picture 8 luma samples show: vivid-bars (static), black, synthetic or other."""
    for name, want in (("vivid-bars", VIVID_BARS), ("black", BLACK)):
        if _near(y, want):
            return name
    return "synthetic" if _synthetic(y) else "other"


@pytest.fixture(scope="module")
def gst():
    """gst-launch-1.0 with camcoresrc and videoscale, the registry built once (skips when missing)."""
    if not conftest.IN_GUEST:
        pytest.skip("not in the kernel test guest")
    if not os.path.exists(PLUGIN):
        pytest.skip(f"{PLUGIN} not built: make stage (it ends with make gst; needs libgstreamer1.0-dev, "
                    "libgstreamer-plugins-base1.0-dev)")
    for tool in ("gst-launch-1.0", "gst-inspect-1.0"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} not installed (gstreamer1.0-tools)")
    env = dict(os.environ, **GST_ENV)
    for element in ("camcoresrc", "videoscale", "fakesink"):
        r = subprocess.run(["gst-inspect-1.0", element], capture_output=True, text=True, timeout=240, env=env)
        if r.returncode != 0:
            pytest.skip(f"GStreamer element {element} not found (plugin dir {PLUGIN_DIR}): {r.stderr[-300:]}")
    return env


@pytest.fixture
def webcams():
    """Two webcam-like vivid instances, bound, instance 0 colour bars, 1 black; restored afterwards."""
    yield from hp.webcams()


@pytest.fixture
def one_webcam():
    """One webcam-like vivid instance, bound, colour bars, no text; left bound afterwards."""
    if not conftest.IN_GUEST:
        pytest.skip("not in the kernel test guest")
    conftest._use(VIVID_ONE)
    hp.cleanup()
    node = hp.instance_node(0)
    hp.s_ctrl(node, "osd_text_mode", hp.OSD_NONE)
    hp.s_ctrl(node, "test_pattern", hp.PATTERN_COLORBAR)
    yield
    hp.cleanup()
    hp.reset_patterns()


# "Got message #12 from element "camcoresrc0" (element): camcore-disconnected, device-id=(string)..., in-use=(boolean)true;"
MSG = re.compile(r'^Got message #\d+ from (?:element|pad|object) "([^"]*)" \(([\w-]+)\): (.*)$')
FIELD = re.compile(r'([\w-]+)=\((\w+)\)("(?:[^"\\]|\\.)*"|[^,;]*)')
# fakesink dump=true: "00000000 (0x55d5c8c0a340): b3 a0 82 6f 53 40 22 10 b3 a0 ..."
DUMP = re.compile(r'^00000000 \(0x[0-9a-f]+\): ((?:[0-9a-f]{2} ){16})')


class Message:
    __slots__ = ("ns", "source", "type", "name", "fields", "line")

    def __init__(self, ns: int, source: str, mtype: str, body: str, line: str):
        self.ns, self.source, self.type, self.line = ns, source, mtype, line
        self.name = body.split(",", 1)[0].split(";", 1)[0].strip()
        self.fields = {k: v.strip('"').replace("\\", "") for k, _, v in FIELD.findall(body)}

    def __repr__(self) -> str:
        return f"<{self.type} {self.name} from {self.source} @{self.ns / 1e9:.3f}>"


class Launch:
    """gst-launch-1.0 -m PIPELINE in a child process; a reader thread stamps
    each line with CLOCK_MONOTONIC: buffers (the 16 bytes fakesink dumps,
    luma rows at 1/4 and 3/4 of the height), bus messages, ERROR/WARNING lines."""

    def __init__(self, env: dict, *pipeline: str):
        self.argv = ["gst-launch-1.0", "-m", *pipeline]
        self.proc = subprocess.Popen(self.argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                     bufsize=1, env=env)
        self.pid = self.proc.pid
        self.lock = threading.Condition()
        self.frames: List[tuple] = []        # (ns, luma row at 3/4 height: 8 samples)
        self.messages: List[Message] = []
        self.lines: List[str] = []           # everything but buffer dumps
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            t = hp.now()
            line = line.rstrip("\n")
            with self.lock:
                d = DUMP.match(line)
                if d:
                    b = [int(x, 16) for x in d.group(1).split()]
                    self.frames.append((t, b[8:16]))
                elif not line.startswith("0000"):
                    self.lines.append(line)
                    m = MSG.match(line)
                    if m:
                        self.messages.append(Message(t, m.group(1), m.group(2), m.group(3), line))
                self.lock.notify_all()
        with self.lock:
            self.lock.notify_all()

    def wait(self, pred: Callable[[], bool], timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self.lock:
            while not pred():
                left = deadline - time.monotonic()
                if left <= 0 or not self._reader.is_alive():
                    return pred()
                self.lock.wait(min(left, 0.2))
            return True

    def frames_after(self, t: int, what: Optional[str] = None) -> List[tuple]:
        with self.lock:
            return [f for f in self.frames if f[0] >= t and (what is None or kind(f[1]) == what)]

    def wait_frames(self, t: int, what: str, count: int, timeout: float) -> Optional[tuple]:
        self.wait(lambda: len(self.frames_after(t, what)) >= count, timeout)
        fs = self.frames_after(t, what)
        return fs[count - 1] if len(fs) >= count else None

    def element(self, t: int, name: str, **fields: str) -> List[Message]:
        """camcoresrc's element messages NAME after t whose fields match."""
        with self.lock:
            return [m for m in self.messages if m.ns >= t and m.type == "element" and m.name == name
                    and all(m.fields.get(k) == v for k, v in fields.items())]

    def wait_element(self, t: int, name: str, timeout: float, **fields: str) -> Optional[Message]:
        self.wait(lambda: bool(self.element(t, name, **fields)), timeout)
        ms = self.element(t, name, **fields)
        return ms[0] if ms else None

    def errors(self) -> List[str]:
        """ERROR bus messages and gst-launch's ERROR lines."""
        with self.lock:
            return [l for l in self.lines if l.startswith("ERROR") or " (error): " in l]

    def warnings(self) -> List[str]:
        with self.lock:
            return [l for l in self.lines if l.startswith("WARNING") or " (warning): " in l]

    def kinds(self, t0: int = 0, t1: Optional[int] = None) -> str:
        """The frames' pictures in order, run-length coded: 'vivid-bars x12, synthetic x30'."""
        runs: List[list] = []
        for t, y in self.frames_after(t0):
            if t1 is not None and t >= t1:
                break
            k = kind(y)
            if runs and runs[-1][0] == k:
                runs[-1][1] += 1
            else:
                runs.append([k, 1])
        return ", ".join(f"{k} x{n}" for k, n in runs) or "none"

    def diagnose(self) -> str:
        with self.lock:
            last = self.frames[-1] if self.frames else None
            return (f"{' '.join(self.argv)}: pid {self.pid} exit={self.proc.poll()} frames={len(self.frames)} "
                    f"(last {last}) now={hp.now()}\n  pictures: {self.kinds()}\n  messages: "
                    f"{[m for m in self.messages if m.type in ('element', 'error', 'warning', 'eos')]}\n  last lines:\n    "
                    + "\n    ".join(self.lines[-15:]))

    def stop(self, timeout: float = 30) -> int:
        """SIGINT as Ctrl-C: gst-launch-1.0 stops the pipeline and exits; its exit status."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
            raise AssertionError(f"gst-launch-1.0 did not stop on SIGINT within {timeout} s: {self.diagnose()}")
        self._reader.join(5)
        return self.proc.returncode

    def __enter__(self) -> "Launch":
        return self

    def __exit__(self, *exc) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


def pipeline(node: str, synthetic: int = 0) -> List[str]:
    """camcoresrc on NODE at 640x480, its picture scaled to 8x2 I420 by nearest
    neighbour (rows 120 and 360, the centre of each bar), into fakesink dump=true."""
    return ["camcoresrc", f"device={node}", f"synthetic={synthetic}", "!", "video/x-raw,width=640,height=480", "!",
            "videoscale", "method=nearest-neighbour", "!", "video/x-raw,format=I420,width=8,height=2", "!",
            "fakesink", "dump=true"]


@pytest.mark.parametrize("instance,picture", [(0, "vivid-bars"), (1, "black")], ids=["vivid0", "vivid1"])
def test_camcoresrc_frames_from_node(gst, webcams, instance, picture):
    """camcoresrc device=/dev/videoN ! ... ! fakesink: buffers flow, each
    one the picture of that instance (0: colour bars, 1: black), the process
    holds that node open, no ERROR or WARNING on the bus, and Ctrl-C stops it
    with exit status 0."""
    node = hp.instance_node(instance)
    with Launch(gst, *pipeline(node)) as g:
        t0 = hp.now()
        tenth = g.wait_frames(0, picture, 10, timeout=60)
        assert tenth is not None, f"no 10 {picture} frames from {node} within 60 s: {g.diagnose()}"
        open_fds = hp.fds_on(hp.rdev(node), g.pid)
        others = [kind(y) for _, y in g.frames_after(0) if kind(y) != picture]
        n = len(g.frames_after(0))
        rc = g.stop()
        errors, warnings = g.errors(), g.warnings()
    assert open_fds, f"gst-launch-1.0 (pid {g.pid}) has no fd on {node} while streaming: {hp.fd_targets(g.pid)}"
    assert others == [], f"frames not from {node} ({picture}): {g.kinds()}"
    assert errors == [] and warnings == [], f"errors {errors}, warnings {warnings}: {g.diagnose()}"
    assert rc == 0, f"gst-launch-1.0 exit status {rc}: {g.diagnose()}"
    hp.record(f"gst camcoresrc {node} (vivid {instance})", frames=n, start_to_10th_frame=hp.ms(tenth[0] - t0))


def test_S25_camcoresrc_unbind_falls_back_and_returns(gst, webcams):
    """vivid unbound under a playing camcoresrc that may list the synthetic
    camera: camcore-disconnected for its camera (in-use) within 2 s, no
    ERROR, no frame of it from 1 s after the unbind, camcore-selected for the
    synthetic camera and its frames; after the bind camcore-connected and
    camcore-selected for the camera, its frames again from its node (open in
    the process, the other instance's not), and Ctrl-C stops the pipeline
    with exit status 0 (S24, S25)."""
    _unbind_rebind(gst, synthetic=1)


def test_S25_camcoresrc_unbind_waits_and_resumes(gst, one_webcam):
    """The only camera (one vivid instance) unbound under a playing
    camcoresrc: camcore-disconnected (in-use) within 2 s, no ERROR, no buffer
    from 1 s after the unbind while the pipeline stays up; after the bind
    camcore-connected and camcore-selected for it and its frames again, and
    Ctrl-C stops the pipeline with exit status 0 (S24, S25)."""
    _unbind_rebind(gst, synthetic=0)


def _unbind_rebind(gst: dict, synthetic: int) -> None:
    node = hp.instance_node(0)
    other = hp.instance_node(1) if synthetic else None
    with Launch(gst, *pipeline(node, synthetic)) as g:
        assert g.wait_frames(0, "vivid-bars", 10, timeout=60), f"no frames from {node}: {g.diagnose()}"
        t0 = hp.unbind()
        t1 = hp.now()
        gone = g.wait_element(t0, "camcore-disconnected", 10, node=node)
        assert gone is not None, f"no camcore-disconnected for {node} after the unbind: {g.diagnose()}"
        if synthetic:
            sel = g.wait_element(t0, "camcore-selected", 15, **{"device-id": "synthetic:0"})
            syn = g.wait_frames(t0, "synthetic", 5, timeout=20)
            assert sel is not None and syn is not None, f"no fallback to the synthetic camera: {g.diagnose()}"
        else:
            time.sleep(3)   # no camera: no buffers, the pipeline stays up
            assert g.proc.poll() is None, f"gst-launch-1.0 ended with the camera gone: {g.diagnose()}"
        time.sleep(max(0.0, (t1 + 2_000_000_000 - hp.now()) / 1e9))   # a second of frames past the 1 s allowed
        late = g.frames_after(t1 + 1_000_000_000, "vivid-bars")
        between = g.frames_after(t1, "vivid-bars")
        idle = [f for f in g.frames_after(t1 + 1_000_000_000)]
        t_check = hp.now()
        errors_unplugged = g.errors()
        hp.settle()
        t_bind = hp.bind()
        conn = g.wait_element(t_bind, "camcore-connected", 20, node=node)
        back = g.wait_element(t_bind, "camcore-selected", 20, node=node)
        bframe = g.wait_frames(t_bind, "vivid-bars", 5, timeout=30)
        assert conn is not None and back is not None and bframe is not None, \
            f"after the bind: connected {conn}, selected {back}, 5th frame back {bframe}: {g.diagnose()}"
        hp.settle()
        fds_node = hp.fds_on(hp.rdev(node), g.pid)
        fds_other = hp.fds_on(hp.rdev(other), g.pid) if other else []
        alive = g.proc.poll() is None
        pictures = g.kinds(t0)
        rc = g.stop()
        errors, warnings = g.errors(), g.warnings()
        events = [f"{m.name}:{m.fields.get('node') or m.fields.get('device-id')}" for m in g.messages
                  if m.ns >= t0 and m.type == "element" and m.name.startswith("camcore-")]
    assert gone.fields.get("in-use") == "true", f"camcore-disconnected not marked in-use: {gone.line}"
    assert gone.ns - t0 < 2e9, f"camcore-disconnected {hp.ms(gone.ns - t0)} after the unbind"
    assert late == [], f"{len(late)} frame(s) of {node} later than 1 s after the unbind ({pictures})"
    if not synthetic:
        assert idle == [], f"buffers with no camera: {g.kinds(t1, t_check)}"
    assert errors_unplugged == [] and errors == [], f"pipeline errors: {errors}: {g.diagnose()}"
    assert fds_node and not fds_other, f"after the return: fds on {node} {fds_node}, on {other} {fds_other}"
    assert alive and rc == 0, f"pipeline not playing to the end (alive {alive}, exit {rc}): {g.diagnose()}"
    numbers = dict(unbind_to_disconnected=hp.ms(gone.ns - t0), frames_between=len(between),
                   bind_to_connected=hp.ms(conn.ns - t_bind), bind_to_selected=hp.ms(back.ns - t_bind),
                   bind_to_5th_frame_back=hp.ms(bframe[0] - t_bind), pictures=pictures.replace(" ", ""),
                   events=" ".join(events), warnings=len(warnings))
    if synthetic:
        numbers.update(unbind_to_selected_synthetic=hp.ms(sel.ns - t0), unbind_to_5th_synthetic=hp.ms(syn[0] - t0))
    hp.record(f"S25 gst camcoresrc unbind/bind ({'synthetic fallback' if synthetic else 'one camera, no fallback'})",
              **numbers)
