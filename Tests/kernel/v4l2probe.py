# SPDX-License-Identifier: MIT
"""What the kernel itself says about V4L2 nodes, found without camcore.

The kernel tests compare camcore's answers with these: VIDIOC_QUERYCAP and
VIDIOC_ENUM_FMT issued directly with fcntl.ioctl, sysfs, and the output of
`v4l2-ctl` (v4l-utils), which talks to the driver without libv4l.
"""
from __future__ import annotations

import dataclasses
import fcntl
import os
import re
import stat
import struct
import subprocess
from fractions import Fraction
from typing import Dict, List, Optional, Tuple

# linux/videodev2.h
V4L2_CAP_VIDEO_CAPTURE = 0x00000001
V4L2_CAP_VIDEO_OUTPUT = 0x00000002
V4L2_CAP_VIDEO_CAPTURE_MPLANE = 0x00001000
V4L2_CAP_VIDEO_OUTPUT_MPLANE = 0x00002000
V4L2_CAP_VIDEO_M2M_MPLANE = 0x00004000
V4L2_CAP_VIDEO_M2M = 0x00008000
V4L2_CAP_META_CAPTURE = 0x00800000
V4L2_CAP_TOUCH = 0x10000000
V4L2_CAP_DEVICE_CAPS = 0x80000000

V4L2_BUF_TYPE_VIDEO_CAPTURE = 1
V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE = 9

VIDEO_MAJOR = 81  # the char-device major of every V4L2 node


def _ioc(direction: int, nr: int, size: int) -> int:
    return (direction << 30) | (size << 16) | (ord("V") << 8) | nr


_CAP_FMT = "16s32s32sIII3I"            # struct v4l2_capability, 104 bytes
_FMTDESC_FMT = "III32sII3I"            # struct v4l2_fmtdesc, 64 bytes
_FORMAT_SIZE = 208                     # struct v4l2_format (type, pad, 200-byte union)
_STREAMPARM_SIZE = 204                 # struct v4l2_streamparm
VIDIOC_QUERYCAP = _ioc(2, 0, struct.calcsize(_CAP_FMT))
VIDIOC_ENUM_FMT = _ioc(3, 2, struct.calcsize(_FMTDESC_FMT))
VIDIOC_G_FMT = _ioc(3, 4, _FORMAT_SIZE)
VIDIOC_G_PARM = _ioc(3, 21, _STREAMPARM_SIZE)


def _cstr(b: bytes) -> str:
    return b.split(b"\0", 1)[0].decode("utf-8", "replace")


@dataclasses.dataclass(frozen=True)
class Caps:
    driver: str
    card: str
    bus_info: str
    capabilities: int
    device_caps: int  # the node's own caps (capabilities if the driver has none)


def querycap(node: str) -> Caps:
    fd = os.open(node, os.O_RDWR | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        buf = bytearray(struct.calcsize(_CAP_FMT))
        fcntl.ioctl(fd, VIDIOC_QUERYCAP, buf)
    finally:
        os.close(fd)
    driver, card, bus, _version, caps, dcaps, *_ = struct.unpack(_CAP_FMT, bytes(buf))
    if not caps & V4L2_CAP_DEVICE_CAPS:
        dcaps = caps
    return Caps(_cstr(driver), _cstr(card), _cstr(bus), caps, dcaps)


def enum_fmt(node: str, buf_type: int) -> List[Tuple[int, int, str]]:
    """(fourcc, flags, description) of every VIDIOC_ENUM_FMT entry, in index order."""
    out = []
    fd = os.open(node, os.O_RDWR | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        for index in range(1024):
            buf = bytearray(struct.pack(_FMTDESC_FMT, index, buf_type, 0, b"", 0, 0, 0, 0, 0))
            try:
                fcntl.ioctl(fd, VIDIOC_ENUM_FMT, buf)
            except OSError:
                break
            _i, _t, flags, desc, fourcc, *_ = struct.unpack(_FMTDESC_FMT, bytes(buf))
            out.append((fourcc, flags, _cstr(desc)))
    finally:
        os.close(fd)
    return out


def capture_buf_type(caps: int) -> int:
    mplane = caps & V4L2_CAP_VIDEO_CAPTURE_MPLANE and not caps & V4L2_CAP_VIDEO_CAPTURE
    return V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE if mplane else V4L2_BUF_TYPE_VIDEO_CAPTURE


@dataclasses.dataclass(frozen=True)
class DriverFormat:
    """VIDIOC_G_FMT + VIDIOC_G_PARM as the driver holds them right now."""
    fourcc: int
    width: int
    height: int
    strides: List[int]       # bytesperline per memory plane
    sizes: List[int]         # sizeimage per memory plane (includes data_offset)
    fps: Optional[Fraction]  # 1 / timeperframe


def driver_format(node: str) -> DriverFormat:
    """Reads the current format and rate from another open file of the node
    (allowed while someone else streams)."""
    buf_type = capture_buf_type(querycap(node).device_caps)
    fd = os.open(node, os.O_RDWR | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        f = bytearray(_FORMAT_SIZE)
        struct.pack_into("I", f, 0, buf_type)
        fcntl.ioctl(fd, VIDIOC_G_FMT, f)
        p = bytearray(_STREAMPARM_SIZE)
        struct.pack_into("I", p, 0, buf_type)
        fcntl.ioctl(fd, VIDIOC_G_PARM, p)
    finally:
        os.close(fd)
    if buf_type == V4L2_BUF_TYPE_VIDEO_CAPTURE:
        w, h, pixfmt, _field, bpl, size = struct.unpack_from("6I", f, 8)
        strides, sizes = [bpl], [size]
    else:
        w, h, pixfmt = struct.unpack_from("3I", f, 8)
        nplanes = f[8 + 20 + 8 * 20]
        strides, sizes = [], []
        for i in range(nplanes):
            size, bpl = struct.unpack_from("II", f, 8 + 20 + 20 * i)
            sizes.append(size)
            strides.append(bpl)
    num, den = struct.unpack_from("II", p, 12)
    fps = Fraction(den, num) if num and den else None
    return DriverFormat(pixfmt, w, h, strides, sizes, fps)


def is_capture(caps: int) -> bool:
    """A camera-like capture node: video capture (single- or multi-planar), not touch or m2m."""
    if not caps & (V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_VIDEO_CAPTURE_MPLANE):
        return False
    return not caps & (V4L2_CAP_TOUCH | V4L2_CAP_VIDEO_M2M | V4L2_CAP_VIDEO_M2M_MPLANE)


@dataclasses.dataclass(frozen=True)
class Node:
    devnode: str   # /dev/video0, /dev/vbi0, /dev/v4l-touch0, ...
    name: str      # sysfs name, e.g. "vivid-000-vid-cap"
    caps: Optional[Caps]


def v4l_nodes() -> List[Node]:
    """Every node of the video4linux class (sysfs), with its QUERYCAP when it answers."""
    out = []
    base = "/sys/class/video4linux"
    for entry in sorted(os.listdir(base)) if os.path.isdir(base) else []:
        try:
            with open(os.path.join(base, entry, "name")) as f:
                name = f.read().strip()
        except OSError:
            name = ""
        devnode = "/dev/" + entry
        try:
            caps = querycap(devnode)
        except OSError:
            caps = None
        out.append(Node(devnode, name, caps))
    return out


def capture_nodes() -> List[str]:
    """Nodes camcore must list (S1): capture caps and at least one pixel format."""
    out = []
    for n in v4l_nodes():
        if n.caps is None or not is_capture(n.caps.device_caps):
            continue
        if enum_fmt(n.devnode, capture_buf_type(n.caps.device_caps)):
            out.append(n.devnode)
    return sorted(out, key=node_order)


def node_order(devnode: str):
    m = re.match(r"^(.*?)(\d+)$", devnode)
    return (m.group(1), int(m.group(2))) if m else (devnode, -1)


def open_v4l_fds() -> List[str]:
    """This process's open file descriptors on V4L2 char devices (major 81)."""
    out = []
    for fd in os.listdir("/proc/self/fd"):
        path = f"/proc/self/fd/{fd}"
        try:
            st = os.stat(path)
        except OSError:
            continue  # the fd of the listdir itself, already closed
        if stat.S_ISCHR(st.st_mode) and os.major(st.st_rdev) == VIDEO_MAJOR:
            try:
                out.append(f"fd {fd} -> {os.readlink(path)}")
            except OSError:
                out.append(f"fd {fd}")
    return out


# ---------------------------------------------------------------------------
# v4l2-ctl --list-formats-ext
# ---------------------------------------------------------------------------


@dataclasses.dataclass
class CtlSize:
    kind: str                      # 'discrete' | 'stepwise' | 'continuous'
    width: int                     # discrete size, or the largest
    height: int
    min_width: int = 0
    max_width: int = 0
    step_width: int = 0
    min_height: int = 0
    max_height: int = 0
    step_height: int = 0
    rate_kind: str = "unknown"     # 'discrete' | 'stepwise' | 'continuous' | 'unknown'
    fps: List[str] = dataclasses.field(default_factory=list)  # as printed, "%.3f"


@dataclasses.dataclass
class CtlFormat:
    index: int
    fourcc: int
    fourcc_text: str
    text: str                      # "description, flag, flag"
    sizes: List[CtlSize] = dataclasses.field(default_factory=list)


def fourcc_from_ctl(text: str) -> int:
    be = text.endswith("-BE")
    if be:
        text = text[:-3]
    text = (text + "    ")[:4]
    code = struct.unpack("<I", text.encode("latin-1"))[0]
    return code | (0x80000000 if be else 0)


_FMT_RE = re.compile(r"^\s*\[(\d+)\]: '(.+?)' \((.*)\)\s*$")
_SIZE_DISCRETE = re.compile(r"^\s*Size: Discrete (\d+)x(\d+)\s*$")
_SIZE_STEPWISE = re.compile(r"^\s*Size: Stepwise (\d+)x(\d+) - (\d+)x(\d+) with step (\d+)/(\d+)\s*$")
_SIZE_CONT = re.compile(r"^\s*Size: Continuous (\d+)x(\d+) - (\d+)x(\d+)\s*$")
_IVAL_DISCRETE = re.compile(r"^\s*Interval: Discrete [\d.]+s \(([\d.]+) fps\)\s*$")
_IVAL_STEPWISE = re.compile(r"^\s*Interval: Stepwise .*\(([\d.]+)-([\d.]+) fps\)\s*$")
_IVAL_CONT = re.compile(r"^\s*Interval: Continuous .*\(([\d.]+)-([\d.]+) fps\)\s*$")


def v4l2_ctl(*args: str, timeout: float = 60) -> str:
    r = subprocess.run(["v4l2-ctl", *args], capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, f"v4l2-ctl {' '.join(args)} failed ({r.returncode}): {r.stderr}"
    return r.stdout


def ctl_list(node):
    """{id: dict} from `v4l2-ctl -d node -l` (the kernel's view via another fd)."""
    out = {}
    pat = re.compile(r"^\s*(\w+) 0x([0-9a-f]{8}) \((\w+)\)\s*:(.*)$")
    for line in v4l2_ctl("-d", node, "-l").splitlines():
        m = pat.match(line)
        if not m:
            continue
        fields = dict(re.findall(r"(\w+)=(\S+)", m.group(4)))
        out[int(m.group(2), 16)] = {"key": m.group(1), "type": m.group(3), **fields}
    return out


SCALAR_TYPES = {"int": "int", "bool": "bool", "menu": "menu", "button": "button",
                "int64": "int64", "bitmask": "bitmask", "intmenu": "intmenu", "str": "string"}


def check_controls_match(controls, node: str) -> dict:
    """Asserts camcore's controls (a list of camcore Control) are exactly the
    scalar and string controls `v4l2-ctl -l` lists on node, field by field
    (key, type, range, step, default, value unless volatile; SPEC S27).
    Compound ones (arrays, areas) camcore does not wrap. {id: Control}."""
    ours = {c.id: c for c in controls}
    theirs = ctl_list(node)
    listed = {cid: t for cid, t in theirs.items() if t["type"] in SCALAR_TYPES}
    assert set(ours) == set(listed), (sorted(set(ours) ^ set(listed)))
    for cid, t in listed.items():
        c = ours[cid]
        assert c.key == t["key"], (c.name, t)
        assert c.type == SCALAR_TYPES[t["type"]], (c.name, t)
        if "min" in t and c.type not in ("bitmask",):
            assert (c.minimum, c.maximum) == (int(t["min"]), int(t["max"])), (c.name, t)
        if "step" in t and c.type != "string":
            assert c.step == int(t["step"]), (c.name, t)
        if "default" in t:
            want = int(t["default"], 0)
            assert c.default == (want % (1 << 32) if c.type == "bitmask" else want), (c.name, t)
        if "value" in t and not c.volatile and c.type not in ("string", "button"):
            want = int(t["value"], 0)
            if c.type == "bitmask":
                want %= 1 << 32
            assert c.listed_value == want, (c.name, t)
        assert ("inactive" in t.get("flags", "")) == c.inactive, (c.name, t)
    return ours


def list_formats_ext(node: str) -> List[CtlFormat]:
    """Parses `v4l2-ctl -d node --list-formats-ext` (ENUM_FMT/FRAMESIZES/FRAMEINTERVALS)."""
    formats: List[CtlFormat] = []
    for line in v4l2_ctl("-d", node, "--list-formats-ext").splitlines():
        m = _FMT_RE.match(line)
        if m:
            formats.append(CtlFormat(int(m.group(1)), fourcc_from_ctl(m.group(2)),
                                     m.group(2), m.group(3)))
            continue
        if not formats:
            continue
        f = formats[-1]
        if m := _SIZE_DISCRETE.match(line):
            w, h = int(m.group(1)), int(m.group(2))
            f.sizes.append(CtlSize("discrete", w, h, w, w, 0, h, h, 0))
        elif m := _SIZE_STEPWISE.match(line):
            a = [int(x) for x in m.groups()]
            f.sizes.append(CtlSize("stepwise", a[2], a[3], a[0], a[2], a[4], a[1], a[3], a[5]))
        elif m := _SIZE_CONT.match(line):
            a = [int(x) for x in m.groups()]
            f.sizes.append(CtlSize("continuous", a[2], a[3], a[0], a[2], 1, a[1], a[3], 1))
        elif m := _IVAL_DISCRETE.match(line):
            f.sizes[-1].rate_kind = "discrete"
            f.sizes[-1].fps.append(m.group(1))
        elif m := _IVAL_STEPWISE.match(line):
            f.sizes[-1].rate_kind = "stepwise"
            f.sizes[-1].fps = [m.group(1), m.group(2)]
        elif m := _IVAL_CONT.match(line):
            f.sizes[-1].rate_kind = "continuous"
            f.sizes[-1].fps = [m.group(1), m.group(2)]
    return formats


def list_formats(node: str) -> List[Tuple[int, str]]:
    """(fourcc, text) from `v4l2-ctl -d node --list-formats`, in ENUM_FMT order."""
    out = []
    for line in v4l2_ctl("-d", node, "--list-formats").splitlines():
        m = _FMT_RE.match(line)
        if m:
            out.append((fourcc_from_ctl(m.group(2)), m.group(3)))
    return out


# ---------------------------------------------------------------------------
# vivid's default test pattern
# ---------------------------------------------------------------------------

# vivid draws "75% Colorbar" by default (test_pattern 0, no movement): eight
# vertical bars, each width/8 wide: white, yellow, cyan, green, magenta, red,
# blue, black at 75%, as limited-range BT.601 luma. Measured with v4l2-ctl
# --stream-to on this kernel: 179 160 130 111 83 64 34 16.
COLORBAR_LUMA = [179, 160, 130, 111, 83, 64, 34, 16]
NEUTRAL_CHROMA = 128  # the white, black and grey bars carry no colour


def bar_centres(width: int) -> List[int]:
    return [(2 * i + 1) * width // 16 for i in range(8)]
