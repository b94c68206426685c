# SPDX-License-Identifier: MIT
"""The emulated UVC webcam of the kernel tests (Tests/kernel/uvc/uvccam.c).

`UvcCam` starts one uvccam process (a USB device on vhci_hcd that the real
uvcvideo driver binds), waits for its capture and metadata nodes by polling
sysfs and the udev database (no fixed sleeps), drives its faults and plugs
over the control socket, and at the end detaches it cleanly and checks that
its nodes are gone. See uvccam.c for the control-socket commands.
"""
from __future__ import annotations

import glob
import itertools
import os
import select
import socket
import subprocess
import time
from typing import List, Optional, Tuple

import conftest
import hotplug_util as hp

BIN = os.path.join(conftest.REPO, "build", "kernel-c", "uvccam")
VHCI = "/sys/devices/platform/vhci_hcd.0"
RESULTS = os.environ.get("CAMCORE_RESULTS", "/tmp")
_SUMMARY = os.path.join(RESULTS, "uvc.txt")

# What uvccam's descriptors say (uvccam.c, formats[]): fourcc -> [(w, h, [fps...])].
FORMATS = {
    "YUYV": [(640, 480, [30, 20, 15, 10, 5]), (1280, 720, [10, 5]), (1920, 1080, [5])],
    "MJPG": [(640, 480, [30, 20, 15, 10]), (1280, 720, [30, 20, 15, 10]), (1920, 1080, [30, 20, 15, 10])],
}
# The IR function of `UvcCam(ir=True)` (uvccam --ir): interfaces 2/3 of the same
# USB device, greyscale only, its IAD's iFunction names it.
IR_FORMATS = {"GREY": [(640, 480, [30, 15])]}
IR_FUNCTION = "IR Camera"
IR_INTERFACE = "1.2"    # config 1, interface 2: the IR VideoControl interface uvcvideo binds
VID, PID = 0x1D6B, 0x0102
PRODUCT = "UVC Test Camera"
# 75% colour bars in BT.601 limited-range luma as uvccam draws them.
BAR_LUMA = [180, 162, 131, 112, 84, 65, 35, 16]
# The same bars in a decoded JPEG: JFIF full-range luma of uvccam's RGB (191/0).
BAR_LUMA_JPEG = [191, 169, 134, 112, 79, 57, 22, 0]
COUNTER_ROW = 24        # the frame counter: 32 blocks 16x16 in rows 16..31, MSB first
COUNTER_BLOCK = 16

_seq = itertools.count()


def record(case: str, **numbers) -> None:
    """One line of measurements, printed and appended to uvc.txt."""
    hp.record_in(_SUMMARY, case, **numbers)


def load_modules() -> None:
    for m in ("vhci-hcd", "uvcvideo"):
        if not os.path.isdir(f"/sys/module/{m.replace('-', '_')}"):
            conftest.sh("modprobe", m)
    deadline = time.monotonic() + 10
    while not os.path.exists(os.path.join(VHCI, "attach")):
        assert time.monotonic() < deadline, "vhci_hcd.0 has no attach file"
        time.sleep(0.05)


def hs_bus() -> int:
    """The USB bus number of vhci_hcd.0's high-speed root hub."""
    for d in glob.glob(os.path.join(VHCI, "usb*")):
        try:
            if open(os.path.join(d, "speed")).read().strip() == "480":
                return int(open(os.path.join(d, "busnum")).read())
        except OSError:
            pass
    raise AssertionError("vhci_hcd.0 has no high-speed root hub")


def udev_ready(node: str) -> bool:
    """True once udev has processed the node's add event (its database entry exists)."""
    try:
        st = os.stat(node)
    except OSError:
        return False
    major, minor = os.major(st.st_rdev), os.minor(st.st_rdev)
    try:
        return "E:ID_PATH=" in open(f"/run/udev/data/c{major}:{minor}").read()
    except OSError:
        return False


def wait_for(pred, timeout: float, what, step: float = 0.05):
    """pred()'s value once truthy, polling every `step` s for up to `timeout` s.
    `what` (a text, or a callable giving one, for state seen at the end)
    names the wait in the failure."""
    deadline = time.monotonic() + timeout
    while True:
        v = pred()
        if v:
            return v
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what() if callable(what) else what}")
        time.sleep(step)


class UvcCam:
    """`capture`/`meta`: the colour function's nodes (interface 0). With ir=True
    (uvccam --ir) the same USB device also has an infrared function (interfaces
    2/3, GREY 640x480 only) that uvcvideo binds as a second device: its nodes are
    `ir_capture`/`ir_meta`, waited for together with the colour ones."""

    def __init__(self, serial: Optional[str] = "UVC0001", iso: bool = False, port: Optional[int] = None,
                 vid: int = VID, pid: int = PID, product: str = PRODUCT, extra: Tuple[str, ...] = (),
                 ir: bool = False):
        self.serial, self.iso, self.vid, self.pid, self.product = serial, iso, vid, pid, product
        self.want_port = port
        self.extra = extra
        self.ir = ir
        self.ir_capture: Optional[str] = None
        self.ir_meta: Optional[str] = None
        n = next(_seq)
        self.ctl_path = f"/tmp/uvccam-{os.getpid()}-{n}.sock"
        self.log_path = os.path.join(RESULTS, f"uvccam-{n}.log")
        self.proc: Optional[subprocess.Popen] = None
        self.port: Optional[int] = None
        self.setup_s = 0.0

    # -- process -----------------------------------------------------------------
    def start(self, timeout: float = 30) -> "UvcCam":
        """Starts uvccam and waits until its nodes are ready (launch + ready)."""
        return self.launch(timeout).ready(timeout)

    def launch(self, timeout: float = 30) -> "UvcCam":
        """Starts uvccam and waits until it has attached to a vhci port (not for
        the nodes: launch several cameras, then call ready() on each)."""
        assert os.access(BIN, os.X_OK), f"{BIN} not built (Tests/kernel/run builds it)"
        load_modules()
        args = [BIN, "--ctl", self.ctl_path, "--vid", hex(self.vid), "--pid", hex(self.pid),
                "--product", self.product, "--verbose"]
        args += ["--serial", self.serial] if self.serial else ["--no-serial"]
        if self.iso:
            args.append("--iso")
        if self.ir:
            args.append("--ir")
        if self.want_port is not None:
            args += ["--port", str(self.want_port)]
        args += list(self.extra)
        t0 = time.monotonic()
        self._log = open(self.log_path, "a")
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=self._log, text=True)
        line = self._read_line(timeout)
        assert line.startswith("uvccam: attached port="), f"uvccam said {line!r} (log {self.log_path})"
        self.port = int(line.split("port=")[1].split()[0])
        self._t0 = t0
        return self

    def ready(self, timeout: float = 30) -> "UvcCam":
        self.wait_nodes(timeout)
        self.setup_s = time.monotonic() - self._t0
        return self

    def _read_line(self, timeout: float) -> str:
        r, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not r:
            raise AssertionError(f"uvccam did not attach within {timeout} s (log {self.log_path})")
        return self.proc.stdout.readline().strip()

    def cmd(self, line: str, timeout: float = 30) -> str:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(timeout)
        try:
            s.connect(self.ctl_path)
            s.sendall(line.encode() + b"\n")
            buf = b""
            while not buf.endswith(b"\n"):
                chunk = s.recv(512)
                if not chunk:
                    break
                buf += chunk
        finally:
            s.close()
        reply = buf.decode().strip()
        assert reply.startswith("OK"), f"uvccam {line!r}: {reply!r}"
        return reply

    def status(self) -> dict:
        return dict(kv.split("=", 1) for kv in self.cmd("status").split()[1:])

    # -- sysfs -------------------------------------------------------------------
    @property
    def usb_path(self) -> str:
        bus = hs_bus()
        return os.path.join(VHCI, f"usb{bus}", f"{bus}-{self.port + 1}")

    @property
    def busid(self) -> str:
        return os.path.basename(self.usb_path)

    def sysfs_nodes(self, interface: str = "1.0") -> List[Tuple[int, str]]:
        """(index, /dev/videoN) of this camera's video nodes: index 0 capture, 1 metadata.
        `interface`: the VideoControl interface uvcvideo bound, "1.0" the colour
        function, IR_INTERFACE ("1.2") the IR one."""
        out = []
        for d in glob.glob(os.path.join(self.usb_path, f"*:{interface}", "video4linux", "video*")):
            try:
                out.append((int(open(os.path.join(d, "index")).read()), "/dev/" + os.path.basename(d)))
            except OSError:
                pass
        return sorted(out)

    def nodes_ready(self, interface: str = "1.0") -> Optional[Tuple[str, str]]:
        nodes = dict(self.sysfs_nodes(interface))
        if 0 in nodes and 1 in nodes and udev_ready(nodes[0]) and udev_ready(nodes[1]):
            return nodes[0], nodes[1]
        return None

    def all_nodes(self) -> Tuple[str, ...]:
        """The capture and metadata nodes known now (the IR function's too)."""
        return tuple(n for n in (getattr(self, "capture", None), getattr(self, "meta", None),
                                 self.ir_capture, self.ir_meta) if n)

    def wait_nodes(self, timeout: float = 30) -> Tuple[str, str]:
        """Polls sysfs until both video nodes exist, lets udev drain its queue
        (`udevadm settle` polls it; a node number can be reused before udev has
        handled the old node's remove event), then checks udev's database."""
        deadline = time.monotonic() + timeout
        wait_for(lambda: len(self.sysfs_nodes()) >= 2, timeout, f"uvccam's video nodes in sysfs (port {self.port})")
        if self.ir:
            wait_for(lambda: len(self.sysfs_nodes(IR_INTERFACE)) >= 2, max(1.0, deadline - time.monotonic()),
                     lambda: f"uvccam's IR video nodes in sysfs (port {self.port}; "
                             f"interface {IR_INTERFACE} has {self.sysfs_nodes(IR_INTERFACE)})")
        conftest.sh("udevadm", "settle", f"--timeout={max(1, int(deadline - time.monotonic()))}", check=False)
        self.capture, self.meta = wait_for(self.nodes_ready, max(1.0, deadline - time.monotonic()),
                                           f"uvccam's video nodes in udev (port {self.port})")
        if self.ir:
            self.ir_capture, self.ir_meta = wait_for(lambda: self.nodes_ready(IR_INTERFACE),
                                                     max(1.0, deadline - time.monotonic()),
                                                     f"uvccam's IR video nodes in udev (port {self.port})")
        return self.capture, self.meta

    def gone(self, nodes=None) -> bool:
        nodes = nodes or self.all_nodes()
        return not os.path.exists(self.usb_path) and not any(os.path.exists(n) for n in nodes)

    def wait_gone(self, timeout: float = 30, nodes=None) -> float:
        """Seconds until the USB device and its nodes are gone from sysfs and /dev
        (then udev's queue is drained too, so its database has forgotten them)."""
        t0 = time.monotonic()
        wait_for(lambda: self.gone(nodes), timeout, f"uvccam's nodes to go (port {self.port})")
        took = time.monotonic() - t0
        conftest.sh("udevadm", "settle", "--timeout=30", check=False)
        return took

    # -- plugs -------------------------------------------------------------------
    def unplug(self) -> float:
        """Surprise unplug (the USB/IP connection closes). Returns seconds until the nodes went."""
        nodes = self.all_nodes()
        self.cmd("unplug")
        return self.wait_gone(nodes=nodes)

    def detach(self) -> float:
        nodes = self.all_nodes()
        self.cmd("detach")
        return self.wait_gone(nodes=nodes)

    def plug(self, port: Optional[int] = None, timeout: float = 30) -> float:
        """Replug on `port` (default: the same one); returns seconds until the nodes are ready."""
        t0 = time.monotonic()
        reply = self.cmd("plug" + ("" if port is None else f" {port}"))
        self.port = int(reply.split("port=")[1].split()[0])
        self.wait_nodes(timeout)
        return time.monotonic() - t0

    def stop(self) -> None:
        """Clean unplug and exit; asserts the nodes are gone."""
        if self.proc is None:
            return
        nodes = list(self.all_nodes())
        if self.proc.poll() is None:
            try:
                self.cmd("quit", timeout=10)
            except (OSError, AssertionError):
                self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.proc.stdout.close()
        self._log.close()
        self.proc = None
        if self.port is not None:
            wait_for(lambda: not os.path.exists(self.usb_path) and not any(os.path.exists(n) for n in nodes),
                     30, "uvccam's nodes to go at teardown")
            conftest.sh("udevadm", "settle", "--timeout=30", check=False)

    def __enter__(self) -> "UvcCam":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


# ---------------------------------------------------------------------------
# frames
# ---------------------------------------------------------------------------

def yuyv_counter(buf, width: int) -> int:
    """The 32-bit frame counter uvccam draws into a YUYV frame."""
    row = COUNTER_ROW * width * 2
    v = 0
    for bit in range(32):
        x = bit * COUNTER_BLOCK + COUNTER_BLOCK // 2
        v = (v << 1) | (1 if buf[row + 2 * x] > 128 else 0)
    return v


def grey_counter(buf, width: int) -> int:
    """The 32-bit frame counter uvccam draws into a GREY frame (the IR function's)."""
    row = COUNTER_ROW * width
    v = 0
    for bit in range(32):
        x = bit * COUNTER_BLOCK + COUNTER_BLOCK // 2
        v = (v << 1) | (1 if buf[row + x] > 128 else 0)
    return v


def bar_luma_at(luma_row, width: int) -> List[int]:
    return [int(luma_row[(2 * i + 1) * width // 16]) for i in range(8)]


def check_bars(luma_row, width: int, tol: int = 6, what: str = "", want=BAR_LUMA) -> None:
    got = bar_luma_at(luma_row, width)
    assert all(abs(g - w) <= tol for g, w in zip(got, want)), f"{what}: bar luma {got}, expected {want}"


def v4l2_stream(node: str, fourcc: str, w: int, h: int, count: int, fps: Optional[int] = None,
                to: Optional[str] = None, timeout: float = 120) -> Tuple[float, str]:
    """`v4l2-ctl --stream-mmap` of `count` frames; returns (fps reached, output).

    The rate is frames after the first over the time between the first and the
    last frame's dequeue, as v4l2-ctl's verbose timestamps show it."""
    args = ["v4l2-ctl", "-d", node, "-v", f"width={w},height={h},pixelformat={fourcc}",
            "--stream-mmap", f"--stream-count={count}", "--verbose"]
    if fps:
        args += ["-p", str(fps)]
    if to:
        args.append(f"--stream-to={to}")
    r = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, f"{' '.join(args)} failed: {r.stdout[-2000:]}{r.stderr[-2000:]}"
    stamps = []
    for line in (r.stdout + r.stderr).splitlines():
        # "cap dqbuf: 3 seq:      3 bytesused: 614400 ts: 41.234567 delta: ..."
        if "dqbuf:" in line and " ts: " in line:
            try:
                stamps.append(float(line.split(" ts: ")[1].split()[0]))
            except (IndexError, ValueError):
                pass
    fps_reached = (len(stamps) - 1) / (stamps[-1] - stamps[0]) if len(stamps) > 2 and stamps[-1] > stamps[0] else 0.0
    return fps_reached, r.stdout + r.stderr
