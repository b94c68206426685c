# SPDX-License-Identifier: MIT
"""Fixtures of the kernel tests; they run inside the QEMU guest only.

Tests/kernel/run boots the guest once; guest.sh runs pytest on this folder
as root. Each test module asks for one vivid set-up through a fixture, and
the module is (re)loaded only when the set-up changes, so a whole run costs
a handful of modprobes. Outside the guest every test here is skipped.
"""
from __future__ import annotations

import faulthandler
import os
import subprocess
import sys
import time

import pytest

import v4l2probe

IN_GUEST = os.environ.get("CAMCORE_KERNEL_GUEST") == "1"
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
# The oracles shared with the host suite (Tests/python/s9_oracle.py). Appended,
# not prepended: this folder's own modules (test_session.py, conftest.py) stay
# ahead of their namesakes in Tests/python.
sys.path.append(os.path.join(REPO, "Tests", "python"))

# vivid set-ups. Its module parameters are per-instance arrays: give one value
# per instance, or the second instance keeps the defaults (all node types, and
# a single-planar instance also clears the multi-planar data_offset for all).
VIVID_DEFAULT = "n_devs=2"  # every node type: capture, output, vbi, radio, sdr, meta, touch
VIVID_WEBCAM = "n_devs=2 node_types=0x1,0x1 input_types=0x0,0x0"
VIVID_MPLANE = "n_devs=2 node_types=0x1,0x1 input_types=0x0,0x0 multiplanar=2,2"


# Run order: the testbed checks first, then grouped by vivid set-up (fewer reloads).
FILE_ORDER = ["test_testbed.py", "test_devices.py", "test_formats.py", "test_capture.py",
              "test_examples.py", "test_session.py", "test_mplane.py"]


def pytest_collection_modifyitems(config, items):
    def rank(item):
        name = os.path.basename(str(item.fspath))
        return FILE_ORDER.index(name) if name in FILE_ORDER else len(FILE_ORDER)
    if all(str(i.fspath).startswith(HERE + os.sep) for i in items):
        items.sort(key=rank)  # stable: keeps the order inside each file
    if IN_GUEST:
        return
    skip = pytest.mark.skip(reason="kernel test: runs inside the QEMU guest (bash Tests/kernel/run)")
    for item in items:
        if str(item.fspath).startswith(HERE + os.sep):
            item.add_marker(skip)


def sh(*cmd: str, timeout: float = 60, check: bool = True) -> subprocess.CompletedProcess:
    r = subprocess.run(list(cmd), capture_output=True, text=True, timeout=timeout)
    if check and r.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed ({r.returncode}): {r.stdout}{r.stderr}")
    return r


class Vivid:
    """Loads vivid with given parameters; reloads only when they change."""

    def __init__(self) -> None:
        self.params: str | None = None

    def unload(self) -> None:
        if not os.path.isdir("/sys/module/vivid"):
            self.params = None
            return
        deadline = time.monotonic() + 20
        while True:
            r = sh("modprobe", "-r", "vivid", check=False)
            if r.returncode == 0:
                break
            if time.monotonic() > deadline:
                raise AssertionError(
                    "modprobe -r vivid failed (a /dev/video fd still open? "
                    f"this process has: {v4l2probe.open_v4l_fds()}): {r.stderr}")
            time.sleep(0.5)
        sh("udevadm", "settle", "--timeout=30", check=False)
        self.params = None

    def load(self, params: str) -> None:
        if self.params == params and os.path.isdir("/sys/module/vivid"):
            return
        self.unload()
        sh("modprobe", "vivid", *params.split())
        sh("udevadm", "settle", "--timeout=30", check=False)
        self.params = params


_vivid = Vivid()


def _use(params: str):
    if not IN_GUEST:
        pytest.skip("not in the kernel test guest")
    _vivid.load(params)
    return params


@pytest.fixture(scope="module")
def vivid_default():
    """vivid n_devs=2 with all its default node types."""
    return _use(VIVID_DEFAULT)


@pytest.fixture(scope="module")
def vivid_webcam():
    """Two single-planar webcam-like vivid capture devices."""
    return _use(VIVID_WEBCAM)


@pytest.fixture(scope="module")
def vivid_mplane():
    """Two multi-planar webcam-like vivid capture devices."""
    return _use(VIVID_MPLANE)


def _uvc_util():
    if not IN_GUEST:
        pytest.skip("not in the kernel test guest")
    import uvc_util
    return uvc_util


@pytest.fixture(scope="module")
def uvc_cam():
    """One emulated UVC webcam (Tests/kernel/uvc/uvccam.c: bulk, serial UVC0001)
    bound by the real uvcvideo driver, for a test module. vivid is unloaded
    first so only real-USB nodes are around; the camera is unplugged cleanly
    at teardown and its nodes are checked gone."""
    uvc = _uvc_util()
    _vivid.unload()
    cam = uvc.UvcCam().start()
    uvc.record("uvc fixture setup (start uvccam .. capture+meta nodes ready in udev)", seconds=cam.setup_s)
    yield cam
    t0 = time.monotonic()
    cam.stop()
    uvc.record("uvc fixture teardown (clean detach .. nodes gone)", seconds=time.monotonic() - t0)


@pytest.fixture
def uvc_cams():
    """A factory of emulated UVC webcams for one test: uvc_cams(serial=..., iso=...,
    port=...) starts one and waits for its nodes; all are stopped after the test."""
    uvc = _uvc_util()
    _vivid.unload()
    cams = []

    def make(*, wait: bool = True, **kw):
        """wait=False: only launch it (attached, nodes maybe not there yet); call
        .ready() later, so several cameras enumerate at the same time."""
        cam = uvc.UvcCam(**kw)
        cams.append(cam)
        return cam.start() if wait else cam.launch()

    yield make
    for cam in reversed(cams):
        cam.stop()


# A hung test (say, a stop() that never returns) must not eat the whole guest
# run: dump every thread's stack and end pytest; guest.sh still reports.
PER_TEST_TIMEOUT = 150


_hang_file = None


def pytest_configure(config):
    config.addinivalue_line("markers", "guard_s(seconds): this test's own hang guard instead of PER_TEST_TIMEOUT")


@pytest.fixture(autouse=True)
def _hang_guard(request):
    global _hang_file
    if IN_GUEST:
        # pytest captures fd 2 during a test: write the stacks to a file guest.sh shows.
        if _hang_file is None:
            path = os.path.join(os.environ.get("CAMCORE_RESULTS", "/tmp"), "hang-traceback.txt")
            _hang_file = open(path, "w")
        _hang_file.seek(0)
        _hang_file.truncate()
        _hang_file.write(f"last test started: {request.node.nodeid} "
                         f"(thread stacks follow if it ran over {PER_TEST_TIMEOUT} s)\n")
        _hang_file.flush()
        mark = request.node.get_closest_marker("guard_s")
        faulthandler.dump_traceback_later(mark.args[0] if mark else PER_TEST_TIMEOUT, exit=True, file=_hang_file)
    yield
    if IN_GUEST:
        faulthandler.cancel_dump_traceback_later()


@pytest.fixture(scope="session")
def camcore():
    """The ctypes binding (the camcore package, bindings/python/camcore) on the staged library."""
    lib = os.environ.get("CAMCORE_LIBRARY", "")
    if not os.path.exists(lib):
        pytest.fail(f"CAMCORE_LIBRARY={lib!r} does not exist: run `make examples` on the host")
    import camcore as mod  # PYTHONPATH=bindings/python (guest.sh)
    return mod


def pytest_report_header(config):
    if IN_GUEST:
        return [f"kernel {os.uname().release}; camcore from {os.environ.get('CAMCORE_LIBRARY')}"]
    return []
