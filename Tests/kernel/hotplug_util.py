# SPDX-License-Identifier: MIT
"""Helpers of the hot-plug and fault kernel tests (test_hotplug.py, test_faults.py).

- vivid's platform device: unbind/bind (one platform device, "vivid.0", holds
  every instance: unbinding it removes all of them, as unplugging a hub would);
- vivid's controls by id with VIDIOC_S_CTRL (error injection, test pattern);
- a driver for Tests/kernel/c/session_events (a camcore video session in a
  child process that prints its events and frames with CLOCK_MONOTONIC times);
- /proc readings (fds, threads, RSS, CPU time) and dmesg;
- `record()`: the measured numbers, printed and appended to
  $CAMCORE_RESULTS/hotplug-faults.txt for the closing note.
"""
from __future__ import annotations

import fcntl
import os
import queue
import shutil
import socket
import struct
import subprocess
import threading
import time
from typing import Callable, Dict, List, Optional

import pytest

import conftest
import v4l2probe as v4l

VIVID_DRIVER = "/sys/bus/platform/drivers/vivid"
VIVID_PDEV = "vivid.0"
BIN = os.path.join(conftest.REPO, "build", "kernel-c")

# vivid's controls (drivers/media/test-drivers/vivid/vivid-ctrls.c); names as
# `v4l2-ctl -L` prints them, checked by test_hotplug.test_testbed_vivid_control_names.
CTRL = {
    "test_pattern": 0x00F0F000,
    "osd_text_mode": 0x00F0F001,
    "disconnect": 0x00F0F041,
    "inject_v4l2_buf_flag_error": 0x00F0F042,
    "inject_vidioc_reqbufs_error": 0x00F0F043,
    "inject_vidioc_qbuf_error": 0x00F0F044,
    "inject_vidioc_streamon_error": 0x00F0F045,
    "inject_fatal_streaming_error": 0x00F0F046,
}
PATTERN_COLORBAR = 0   # 75% colour bars: luma 179 .. 16 (v4l2probe.COLORBAR_LUMA)
PATTERN_BLACK = 5      # 100% black: luma 16 everywhere
OSD_NONE = 2

VIDIOC_S_CTRL = (3 << 30) | (8 << 16) | (ord("V") << 8) | 28  # _IOWR('V', 28, struct v4l2_control)

RESULTS = os.environ.get("CAMCORE_RESULTS", "/tmp")
_SUMMARY = os.path.join(RESULTS, "hotplug-faults.txt")


def now() -> int:
    return time.monotonic_ns()


def ms(ns: Optional[int]) -> str:
    return "n/a" if ns is None else f"{ns / 1e6:.1f} ms"


def record(case: str, **numbers) -> None:
    """Prints one line of measurements and appends it to the results summary."""
    record_in(_SUMMARY, case, **numbers)


def record_in(summary: str, case: str, **numbers) -> None:
    """`record`, appending to the summary file `summary` (uvc_util keeps its own)."""
    parts = []
    for k, v in numbers.items():
        if isinstance(v, float):
            v = f"{v:.3f}"
        parts.append(f"{k}={v}")
    line = f"{case}: " + " ".join(parts)
    print("MEASURED " + line)
    try:
        with open(summary, "a") as f:
            f.write(line + "\n")
    except OSError:
        pass


# ---------------------------------------------------------------------------
# vivid
# ---------------------------------------------------------------------------


def vivid_bound() -> bool:
    return os.path.exists(os.path.join(VIVID_DRIVER, VIVID_PDEV))


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def unbind() -> int:
    """Unbinds vivid (a real udev remove of every vivid node); returns the
    monotonic time just before the write."""
    t = now()
    _write(os.path.join(VIVID_DRIVER, "unbind"), VIVID_PDEV)
    return t


def bind() -> int:
    t = now()
    _write(os.path.join(VIVID_DRIVER, "bind"), VIVID_PDEV)
    return t


def settle() -> None:
    conftest.sh("udevadm", "settle", "--timeout=30", check=False)


def ensure_bound() -> None:
    if os.path.isdir("/sys/module/vivid") and not vivid_bound():
        bind()
        settle()


def instance_node(instance: int) -> str:
    """/dev/videoN of vivid instance `instance`'s capture node (sysfs name)."""
    want = f"vivid-{instance:03d}-vid-cap"
    for n in v4l.v4l_nodes():
        if n.name == want:
            return n.devnode
    raise AssertionError(f"no {want} node; nodes: {[(n.devnode, n.name) for n in v4l.v4l_nodes()]}")


def rdev(node: str) -> int:
    return os.stat(node).st_rdev


def s_ctrl(node: str, name: str, value: int = 1) -> int:
    """Sets a vivid control with VIDIOC_S_CTRL on a file of our own (closed at
    once, so the driver's last-close logic is not held up); returns the
    monotonic time just before the ioctl."""
    fd = os.open(node, os.O_RDWR | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        buf = bytearray(struct.pack("Ii", CTRL[name], value))
        t = now()
        fcntl.ioctl(fd, VIDIOC_S_CTRL, buf)
        return t
    finally:
        os.close(fd)


VIDIOC_REQBUFS = (3 << 30) | (20 << 16) | (ord("V") << 8) | 8   # struct v4l2_requestbuffers


def queue_owned_by_other(node: str) -> bool:
    """True when another file owns the node's buffer queue: VIDIOC_REQBUFS
    (count 0, mmap) from a fresh file then fails with EBUSY."""
    fd = os.open(node, os.O_RDWR | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        buf = bytearray(struct.pack("IIIIB3x", 0, v4l.V4L2_BUF_TYPE_VIDEO_CAPTURE, 1, 0, 0))
        try:
            fcntl.ioctl(fd, VIDIOC_REQBUFS, buf)
        except OSError as e:
            return e.errno == 16  # EBUSY
        return False
    finally:
        os.close(fd)


def dmesg() -> str:
    return subprocess.run(["dmesg"], capture_output=True, text=True, timeout=30).stdout


def dmesg_count(text: str) -> int:
    return dmesg().count(text)


def wait_until(pred: Callable[[], bool], timeout: float, step: float = 0.02) -> bool:
    deadline = time.monotonic() + timeout
    while True:
        if pred():
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(step)


# ---------------------------------------------------------------------------
# Raw uevents: when the kernel and udevd sent an event, independent of camcore
# ---------------------------------------------------------------------------

NETLINK_KOBJECT_UEVENT = 15
GROUP_KERNEL, GROUP_UDEV = 1, 2


class UeventListener:
    """Listens to the kernel's uevents (group 1) and udevd's re-broadcasts
    (group 2, what libudev monitors receive) for video4linux and records
    (arrival ns, source, action, devname)."""

    def __init__(self):
        self.events: List[tuple] = []
        self._socks = []
        for group, name in ((GROUP_KERNEL, "kernel"), (GROUP_UDEV, "udev")):
            sk = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, NETLINK_KOBJECT_UEVENT)
            sk.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
            sk.bind((0, group))
            sk.settimeout(0.2)
            self._socks.append((sk, name))
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._run, args=(sk, name), daemon=True)
                         for sk, name in self._socks]
        for t in self._threads:
            t.start()

    def _run(self, sk, name):
        while not self._stop.is_set():
            try:
                data = sk.recv(1 << 16)
            except socket.timeout:
                continue
            except OSError:
                return
            t = now()
            fields = {}
            for part in data.split(b"\0"):
                k, sep, v = part.partition(b"=")
                if sep:
                    fields[k.decode(errors="replace")] = v.decode(errors="replace")
            if fields.get("SUBSYSTEM") != "video4linux":
                continue
            dev = fields.get("DEVNAME", "")
            if dev and not dev.startswith("/dev/"):
                dev = "/dev/" + dev
            self.events.append((t, name, fields.get("ACTION", ""), dev))

    def first(self, source: str, action: str, devname: str, after: int = 0) -> Optional[int]:
        for t, src, act, dev in list(self.events):
            if src == source and act == action and dev == devname and t >= after:
                return t
        return None

    def close(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(2)
        for sk, _ in self._socks:
            sk.close()

    def __enter__(self) -> "UeventListener":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


# ---------------------------------------------------------------------------
# /proc
# ---------------------------------------------------------------------------

CLK_TCK = os.sysconf("SC_CLK_TCK")


def fd_targets(pid="self") -> List[str]:
    out = []
    base = f"/proc/{pid}/fd"
    for fd in os.listdir(base):
        try:
            out.append(os.readlink(f"{base}/{fd}"))
        except OSError:
            pass
    return sorted(out)


def fds_on(rdev_: int, pid="self") -> List[str]:
    """The fds of a process open on the char device rdev_."""
    out = []
    base = f"/proc/{pid}/fd"
    for fd in os.listdir(base):
        try:
            st = os.stat(f"{base}/{fd}")
        except OSError:
            continue
        if st.st_rdev == rdev_ and (st.st_mode & 0o170000) == 0o020000:
            out.append(fd)
    return out


def video_fds(pid="self") -> List[str]:
    """fds on V4L2 char devices (major 81)."""
    out = []
    base = f"/proc/{pid}/fd"
    for fd in os.listdir(base):
        try:
            st = os.stat(f"{base}/{fd}")
        except OSError:
            continue
        if (st.st_mode & 0o170000) == 0o020000 and os.major(st.st_rdev) == v4l.VIDEO_MAJOR:
            out.append(fd)
    return out


def threads(pid="self") -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


def rss_kib(pid="self") -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def cpu_seconds(pid="self") -> float:
    """utime + stime of a process (all its threads)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


# ---------------------------------------------------------------------------
# Frames seen through a luma sample: which camera produced them
# ---------------------------------------------------------------------------


def is_colorbar(y0: int, y7: int) -> bool:
    """vivid's default 75% colour bars: white bar 179 on the left, black 16 on the right."""
    return abs(y0 - 179) <= 3 and abs(y7 - 16) <= 3


def is_black(y0: int, y7: int) -> bool:
    return abs(y0 - 16) <= 3 and abs(y7 - 16) <= 3


# ---------------------------------------------------------------------------
# The session child process (Tests/kernel/c/session_events.c)
# ---------------------------------------------------------------------------


class Frame:
    __slots__ = ("ns", "seq", "ts", "w", "h", "flags", "y0", "y7")

    def __init__(self, parts: List[str]):
        self.ns, self.seq, self.ts = int(parts[1]), int(parts[2]), int(parts[3])
        self.w, self.h, self.flags = int(parts[4]), int(parts[5]), int(parts[6])
        self.y0, self.y7 = int(parts[7]), int(parts[8])

    @property
    def colorbar(self) -> bool:
        return is_colorbar(self.y0, self.y7)

    @property
    def black(self) -> bool:
        return is_black(self.y0, self.y7)


class Event:
    __slots__ = ("ns", "kind", "args")

    def __init__(self, parts: List[str]):
        self.ns, self.kind, self.args = int(parts[1]), parts[2], parts[3:]

    @property
    def device(self) -> str:
        return self.args[0] if self.args else ""

    def __repr__(self) -> str:
        return f"<{self.kind} {' '.join(self.args)} @{self.ns / 1e9:.3f}>"


class SessionProc:
    """Runs session_events; a reader thread collects its lines."""

    def __init__(self, *args: str, timeout: float = 30):
        exe = os.path.join(BIN, "session_events")
        assert os.access(exe, os.X_OK), f"{exe} missing: Tests/kernel/run builds it"
        self.proc = subprocess.Popen([exe, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1)
        self.pid = self.proc.pid
        self.lock = threading.Condition()
        self.frames: List[Frame] = []
        self.events: List[Event] = []
        self.lines: List[str] = []         # everything but frames
        self.states: "queue.Queue[List[str]]" = queue.Queue()
        self.bye: Optional[List[str]] = None
        self.dones: List[tuple] = []        # (ns, "stop"|"restart", status) completions
        self.ready: Optional[str] = None
        self.add_status: Optional[int] = None
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        if not self.wait(lambda: self.ready is not None, timeout):
            self.kill()
            raise AssertionError(f"session_events did not get ready: {self.lines} {self.stderr()}")

    def _read(self) -> None:
        for line in self.proc.stdout:
            parts = line.split()
            if not parts:
                continue
            with self.lock:
                if parts[0] == "F":
                    self.frames.append(Frame(parts))
                else:
                    self.lines.append(line.rstrip("\n"))
                    if parts[0] == "EV":
                        self.events.append(Event(parts))
                    elif parts[0] == "STATE":
                        self.states.put(parts)
                    elif parts[0] == "READY":
                        self.ready = parts[2]
                    elif parts[0] == "ADD":
                        self.add_status = int(parts[2])
                    elif parts[0] == "DONE":
                        self.dones.append((int(parts[1]), parts[2], int(parts[3])))
                    elif parts[0] == "BYE":
                        self.bye = parts
                self.lock.notify_all()
        with self.lock:
            self.lock.notify_all()

    def diagnose(self) -> str:
        """For failure messages: process and reader state, recent lines, and the
        child's thread stacks (gdb) when it is still running."""
        with self.lock:
            info = (f"session_events pid {self.pid}: exit={self.proc.poll()} reader_alive={self._reader.is_alive()} "
                    f"frames={len(self.frames)} last_frame_ns={self.frames[-1].ns if self.frames else None} "
                    f"now={now()} lines={self.lines[-12:]}")
        if self.proc.poll() is None and shutil.which("gdb"):
            try:
                r = subprocess.run(["gdb", "-p", str(self.pid), "-batch", "-ex", "thread apply all bt 15"],
                                   capture_output=True, text=True, timeout=30)
                info += "\n" + "\n".join(l for l in r.stdout.splitlines() if l.startswith(("#", "Thread")))
            except (OSError, subprocess.TimeoutExpired):
                pass
        return info

    def stderr(self) -> str:
        if self.proc.poll() is None:
            return ""
        return self.proc.stderr.read() if self.proc.stderr else ""

    def wait(self, pred: Callable[[], bool], timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self.lock:
            while not pred():
                left = deadline - time.monotonic()
                if left <= 0 or (self.proc.poll() is not None and not self._reader.is_alive()):
                    return pred()
                self.lock.wait(min(left, 0.1))
            return True

    def send(self, cmd: str) -> None:
        self.proc.stdin.write(cmd + "\n")
        self.proc.stdin.flush()

    def command(self, what: str, timeout: float = 15) -> tuple:
        """Sends stop/restart and waits for its completion: (ns, what, status)."""
        n = len(self.dones)
        self.send(what)
        assert self.wait(lambda: len(self.dones) > n, timeout), f"no completion of {what}: {self.diagnose()}"
        return self.dones[n]

    def state(self, timeout: float = 10) -> Dict[str, object]:
        while not self.states.empty():
            self.states.get_nowait()
        self.send("state")
        p = self.states.get(timeout=timeout)
        return {"camera_on": int(p[2]), "previews": int(p[3]), "device": p[4],
                "fourcc": p[5], "width": int(p[6]), "height": int(p[7])}

    # -- queries (take the lock) --
    def events_after(self, t: int, kind: Optional[str] = None, device: Optional[str] = None) -> List[Event]:
        with self.lock:
            return [e for e in self.events if e.ns >= t and (kind is None or e.kind == kind)
                    and (device is None or e.device == device)]

    def frames_after(self, t: int, pred: Callable[[Frame], bool] = lambda f: True) -> List[Frame]:
        with self.lock:
            return [f for f in self.frames if f.ns >= t and pred(f)]

    def wait_event(self, t: int, kind: str, device: Optional[str] = None, timeout: float = 10) -> Optional[Event]:
        self.wait(lambda: bool(self._match(t, kind, device)), timeout)
        m = self._match(t, kind, device)
        return m[0] if m else None

    def _match(self, t, kind, device):
        return [e for e in self.events if e.ns >= t and e.kind == kind
                and (device is None or e.device == device)]

    def wait_frame(self, t: int, pred: Callable[[Frame], bool] = lambda f: True,
                   timeout: float = 10, count: int = 1) -> Optional[Frame]:
        def got():
            return sum(1 for f in self.frames if f.ns >= t and pred(f)) >= count
        self.wait(got, timeout)
        fs = self.frames_after(t, pred)
        return fs[count - 1] if len(fs) >= count else None

    def quit(self, timeout: float = 30) -> List[str]:
        """Sends quit; returns BYE's fields (session_free and manager_free times, us)."""
        self.send("quit")
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError("session_events did not exit after quit (session_free hung?)")
        self._reader.join(5)
        assert self.bye is not None, f"no BYE: {self.lines[-5:]} {self.stderr()}"
        assert self.proc.returncode == 0, f"exit {self.proc.returncode}: {self.stderr()}"
        return self.bye

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def __enter__(self) -> "SessionProc":
        return self

    def __exit__(self, *exc) -> None:
        self.kill()


# ---------------------------------------------------------------------------
# Test set-up: two webcam-like vivid instances in a known state
# ---------------------------------------------------------------------------


def prepare_webcams(black_second: bool = True) -> None:
    """Loads the webcam set-up, binds vivid, drops v4l2loopback, hides the OSD text and
    paints instance 1 black (instance 0 keeps its colour bars), so frames tell
    which camera made them."""
    conftest._use(conftest.VIVID_WEBCAM)
    cleanup()
    for inst in (0, 1):
        node = instance_node(inst)
        s_ctrl(node, "osd_text_mode", OSD_NONE)
        s_ctrl(node, "test_pattern", PATTERN_BLACK if (inst == 1 and black_second) else PATTERN_COLORBAR)


def cleanup() -> None:
    """Leaves vivid bound, default patterns, node modes restored, no v4l2loopback."""
    if os.path.isdir("/sys/module/v4l2loopback"):
        conftest.sh("modprobe", "-r", "v4l2loopback", check=False)
    ensure_bound()
    settle()
    for n in v4l.v4l_nodes():
        try:
            os.chmod(n.devnode, 0o660)
        except OSError:
            pass


def reset_patterns() -> None:
    if not os.path.isdir("/sys/module/vivid") or not vivid_bound():
        return
    for n in v4l.v4l_nodes():
        if n.name.startswith("vivid-") and n.name.endswith("-vid-cap"):
            try:
                s_ctrl(n.devnode, "test_pattern", PATTERN_COLORBAR)
                s_ctrl(n.devnode, "osd_text_mode", 0)
            except OSError:
                pass


def webcams():
    """Two webcam-like vivid instances, bound, in a known state, restored
    afterwards: a generator for a fixture to `yield from` (skips outside
    the kernel test guest)."""
    if not conftest.IN_GUEST:
        pytest.skip("not in the kernel test guest")
    prepare_webcams()
    yield
    cleanup()
    reset_patterns()


def wait_on(cv: threading.Condition, pred: Callable[[], object], timeout: float) -> bool:
    """Waits on `cv` (held here) until pred() holds or `timeout` seconds
    passed; returns whether it held."""
    deadline = time.monotonic() + timeout
    with cv:
        while not pred():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            cv.wait(left)
        return True
