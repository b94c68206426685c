# SPDX-License-Identifier: MIT
"""S5–S8, S22–S23 in the kernel guest on vivid: format negotiation against
vivid's real tables, the rate set after the format and read back, the rate
clamp, every output pixel format checked on known test patterns (and against
libyuv's own result), and zero-copy native buffers with retain/release.

vivid's webcam input (drivers/media/test-drivers/vivid): every raw format at
the six discrete sizes 320x180, 640x360, 640x480, 1280x720, 1920x1080,
3840x2160; size i offers the first 2 * (6 - i) of the intervals 1, 2, 4, 5,
10, 12.5, 15, 25, 30, 40, 50, 60 fps, so the top rate falls as the size
grows (60, 40, 25, 12.5, 5, 2 fps). test_formats.py checks that table.
"""
from __future__ import annotations

import ctypes
import dataclasses
import os
import re
import threading
import time
from fractions import Fraction
from typing import List

import numpy as np
import pytest

import v4l2probe as v4l

# vivid's test_pattern and osd_text_mode menu items (`v4l2-ctl -L` in the guest).
PATTERN_75_COLORBAR = 0
PATTERN_RED = 7
OSD_ALL = 0
OSD_NONE = 2

# 75% colour bars, left to right: white, yellow, cyan, green, magenta, red, blue, black.
BAR_RGB = [(1, 1, 1), (1, 1, 0), (0, 1, 1), (0, 1, 0), (1, 0, 1), (1, 0, 0), (0, 0, 1), (0, 0, 0)]
BAR_LEVEL = 191  # 75% of 255 (vivid's white bar has luma 179 ~ 0.745 * 219 + 16)

# 100% red as limited-range BT.601 Y'CbCr (vivid's default for its sRGB webcam):
# Y = 16 + 219 * 0.299, Cb = 128 - 224 * 0.1687, Cr = 128 + 224 * 0.5.
RED_YUV = (81.5, 90.2, 240.0)

# The output formats of S8 (camcore's names) and the V4L2 FourCC frames carry.
OUTPUTS = {"I420": "YU12", "NV12": "NV12", "YUYV": "YUYV", "RGB24": "RGB3",
           "BGR24": "BGR3", "RGBA": "AB24"}


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------


def vivid0(m):
    devs = [d for d in m.devices() if d.bus_info == "platform:vivid-000"]
    assert devs, [(d.node, d.bus_info) for d in m.devices()]
    return devs[0]


def set_ctrl(node: str, **values: int) -> None:
    args = ",".join(f"{k}={v}" for k, v in values.items())
    v4l.v4l2_ctl("-d", node, "-c", args)


@pytest.fixture
def pattern(vivid_webcam):
    """Sets vivid instance 0's test pattern and OSD; restores the defaults after."""
    nodes = []

    def use(node: str, test_pattern: int, osd: int) -> None:
        nodes.append(node)
        set_ctrl(node, test_pattern=test_pattern, osd_text_mode=osd)

    yield use
    for n in nodes:
        set_ctrl(n, test_pattern=PATTERN_75_COLORBAR, osd_text_mode=OSD_ALL)


_PARM_RE = re.compile(r"Frames per second:\s*[\d.]+\s*\((\d+)/(\d+)\)")


def get_parm_fps(node: str) -> Fraction:
    """`v4l2-ctl --get-parm`: VIDIOC_G_PARM from another open file, as v4l-utils prints it."""
    out = v4l.v4l2_ctl("-d", node, "--get-parm")
    m = _PARM_RE.search(out)
    assert m, out
    return Fraction(int(m.group(1)), int(m.group(2)))


def device_maps(node: str) -> List[tuple]:
    """(start, end) of this process's mappings of `node` (/proc/self/maps)."""
    out = []
    with open("/proc/self/maps") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 6 and parts[5] == node:
                a, b = parts[0].split("-")
                out.append((int(a, 16), int(b, 16)))
    return out


def inside(addr: int, maps: List[tuple]) -> bool:
    return any(a <= addr < b for a, b in maps)


@dataclasses.dataclass
class Grab:
    frames: list            # CapturedFrame copies
    addrs: List[tuple]      # plane data addresses of every delivered frame
    fmt: object             # cap.format while streaming
    stats: object           # cap.stats after the frames came
    parm: Fraction          # v4l2-ctl --get-parm while streaming
    driver: v4l.DriverFormat
    maps: List[tuple]       # the device's mmap areas while streaming
    errors: list
    stamps: List[int]       # timestamp_ns of every delivered frame
    final: object           # cap.stats after stop()


def grab(cap, node: str, n: int, fourcc: str, width: int, height: int, fps=30,
         output=None, buffer_count: int = 4, timeout: float = 60.0) -> Grab:
    """Starts, collects n frame copies (and every frame's plane addresses),
    reads format, stats, G_PARM and the mappings while streaming, stops."""
    frames, addrs, errors, stamps = [], [], [], []
    done = threading.Event()

    def on_frame(f) -> None:
        stamps.append(f.timestamp_ns)
        addrs.append(tuple(f.plane(i).ctypes.data for i in range(f.plane_count)))
        if len(frames) < n:
            frames.append(f.copy())
            if len(frames) == n:
                done.set()

    def on_error(e) -> None:
        errors.append(e)
        done.set()

    cap.start(fourcc=fourcc, width=width, height=height, fps=fps, on_frame=on_frame,
              on_error=on_error, buffer_count=buffer_count, output=output)
    try:
        fmt = cap.format
        parm = get_parm_fps(node)
        driver = v4l.driver_format(node)
        assert done.wait(timeout), f"{len(frames)} of {n} frames in {timeout} s"
        maps = device_maps(node)
        stats = cap.stats
    finally:
        cap.stop()
    assert not errors, errors
    return Grab(frames, list(addrs), fmt, stats, parm, driver, maps, errors, list(stamps), cap.stats)


def rows(plane: np.ndarray, stride: int, height: int, row_bytes: int) -> np.ndarray:
    assert plane.size >= (height - 1) * stride + row_bytes, (plane.size, stride, height, row_bytes)
    return np.lib.stride_tricks.as_strided(plane, shape=(height, row_bytes), strides=(stride, 1))


# ---------------------------------------------------------------------------
# S6 by hand: the rules applied in Python to `v4l2-ctl --list-formats-ext`
# ---------------------------------------------------------------------------


_tables: dict = {}


def ctl_table(node: str):
    """[(fourcc text, compressed, width, height, [fps...])] in driver order
    (parsed once per node and vivid load: v4l2-ctl prints ~4000 lines)."""
    key = (node, _vivid_load_id())
    if key not in _tables:
        _tables.clear()
        _tables[key] = _ctl_table(node)
    return _tables[key]


def _vivid_load_id() -> str:
    """Changes whenever vivid is reloaded (its sysfs directory is re-created)."""
    try:
        return str(os.stat("/sys/module/vivid").st_ino)
    except OSError:
        return ""


def _ctl_table(node: str):
    table = []
    for f in v4l.list_formats_ext(node):
        compressed = "compressed" in f.text
        for s in f.sizes:
            assert s.kind == "discrete" and s.rate_kind == "discrete", (f.fourcc_text, s)
            table.append((f.fourcc_text, compressed, s.width, s.height, [Fraction(x) for x in s.fps]))
    return table


def s6_choose(table, width, height, min_fps, max_fps, output=None):
    """SPEC S6 on a discrete table, written independently of camcore:
    (1) only entries whose rates reach min_fps, if any do; (2) nearest aspect
    ratio (within 0.5 % counts as equal); (3) the smallest size at or above
    the request, else the largest below; (4) least work: the output format,
    then raw, then compressed; (5) the highest rate not above max_fps (else
    the lowest); remaining ties: driver order. Returns (fourcc, w, h, fps, adjusted)."""
    import camcore
    pool = list(enumerate(table))
    fast = [c for c in pool if c[1][4] and max(c[1][4]) >= min_fps]
    if fast:
        pool = fast

    def aspect(c):
        a, b = Fraction(c[2], c[3]), Fraction(width, height)
        d = max(a / b, b / a)
        return Fraction(1) if d < Fraction(1005, 1000) else d

    best = min(aspect(c) for _, c in pool)
    pool = [(i, c) for i, c in pool if aspect(c) == best]
    above = [(i, c) for i, c in pool if c[2] >= width and c[3] >= height]
    if above:
        area = min(c[2] * c[3] for _, c in above)
        pool = [(i, c) for i, c in above if c[2] * c[3] == area]
    else:
        area = max(c[2] * c[3] for _, c in pool)
        pool = [(i, c) for i, c in pool if c[2] * c[3] == area]

    def work(c):
        if output is not None and c[0] == output:
            return 0
        if output is None and not c[1]:
            return 0
        return 2 if c[1] else 1

    least = min(work(c) for _, c in pool)
    pool = [(i, c) for i, c in pool if work(c) == least]

    def rate(c):
        below = [r for r in c[4] if r <= max_fps]
        return max(below) if below else min(c[4])

    def key(ic):
        i, c = ic
        r = rate(c)
        return ((2, r) if r <= max_fps else (1, -r), -i)

    _, c = max(pool, key=key)
    r = rate(c)
    adjusted = 0
    if (c[2], c[3]) != (width, height):
        adjusted |= camcore.ADJUSTED_SIZE
    if r < min_fps or r > max_fps:
        adjusted |= camcore.ADJUSTED_RATE
    if output is not None and output != c[0]:
        adjusted |= camcore.ADJUSTED_FORMAT
    return (c[0], c[2], c[3], r, adjusted)


# ---------------------------------------------------------------------------
# S6: the default preference on vivid
# ---------------------------------------------------------------------------


def test_S6_default_preference_on_vivid(vivid_webcam, camcore):
    """1280x720 at 15-30 fps on vivid: 1280x720 tops out at 12.5 fps, so rule
    (1) keeps only 320x180 (60), 640x360 (40) and 640x480 (25 fps); rule (2)
    keeps the 16:9 ones; rule (3): none is at or above 1280x720, the largest
    below is 640x360; rule (4): every vivid format is raw (native output: no
    work), so all formats at 640x360 tie; rule (5): 30 fps (the highest of
    their rates not above 30); driver order breaks the tie: YUYV (index 0).
    Adjusted: the size only (30 fps lies inside 15-30; native output)."""
    with camcore.Manager() as m:
        dev = vivid0(m)
        s = m.negotiate(dev.id)  # the defaults: 1280x720, 15-30 fps, native
    want = s6_choose(ctl_table(dev.node), 1280, 720, Fraction(15), Fraction(30))
    assert want == ("YUYV", 640, 360, Fraction(30), camcore.ADJUSTED_SIZE)  # checked by hand
    assert (s.fourcc, s.width, s.height, s.fps, s.adjusted) == want
    assert s.fourcc_code == camcore.fourcc("YUYV")
    assert s.adjustments == ["size"] and not s.valid


@pytest.mark.parametrize("output, fourcc", [("I420", "YU12"), ("NV12", "NV12"), ("RGB24", "RGB3"),
                                            ("BGR24", "BGR3"), ("RGBA", "AB24")])
def test_S6_rule4_prefers_the_output_format_vivid_offers(vivid_webcam, camcore, output, fourcc):
    """Rule (4): among the 640x360 ties, the format the app wants as output
    needs no work, so it wins over YUYV; nothing but the size is adjusted."""
    with camcore.Manager() as m:
        dev = vivid0(m)
        s = m.negotiate(dev.id, output=output)
    want = s6_choose(ctl_table(dev.node), 1280, 720, Fraction(15), Fraction(30), output=fourcc)
    assert want == (fourcc, 640, 360, Fraction(30), camcore.ADJUSTED_SIZE)
    assert (s.fourcc, s.width, s.height, s.fps, s.adjusted) == want


def test_S6_fractional_rate_stays_a_fraction(vivid_webcam, camcore):
    """With a 10 fps floor 1280x720 qualifies: its top rate is 12.5 fps
    (interval 2/25), reported as the fraction 25/2, and nothing is adjusted."""
    with camcore.Manager() as m:
        dev = vivid0(m)
        s = m.negotiate(dev.id, 1280, 720, min_fps=10, max_fps=30)
    want = s6_choose(ctl_table(dev.node), 1280, 720, Fraction(10), Fraction(30))
    assert want == ("YUYV", 1280, 720, Fraction(25, 2), 0)
    assert (s.fourcc, s.width, s.height, s.fps, s.adjusted) == want
    assert s.valid


def test_S6_negotiated_default_starts_as_negotiated(vivid_webcam, camcore):
    """Start with what negotiation chose: the driver applies YUYV 640x360 at
    30 fps (G_FMT / G_PARM from another fd agree, as `v4l2-ctl --get-parm`
    prints them), nothing is adjusted, frames come at about 30 fps."""
    with camcore.Manager() as m:
        dev = vivid0(m)
        s = m.negotiate(dev.id)
        with m.open(dev.id) as cap:
            g = grab(cap, dev.node, 32, s.fourcc, s.width, s.height, fps=s.fps)
    fmt = g.fmt
    assert (fmt.fourcc, fmt.source_fourcc, fmt.width, fmt.height) == ("YUYV", "YUYV", 640, 360)
    assert fmt.fps == Fraction(30) == g.parm == g.driver.fps
    assert fmt.adjusted == 0
    assert (g.driver.fourcc, g.driver.width, g.driver.height) == (camcore.fourcc("YUYV"), 640, 360)
    assert fmt.plane_count == 1 and fmt.strides == [1280] == g.driver.strides
    assert fmt.frame_bytes == 1280 * 360 == g.driver.sizes[0]
    assert all((f.fourcc, f.width, f.height) == ("YUYV", 640, 360) for f in g.frames)
    assert g.stats.frames_delivered >= 12 and g.stats.frames_corrupted == 0
    check_measured_fps(g, Fraction(30))


def test_S6_session_says_it_adjusted_the_default_preference(vivid_webcam, camcore):
    """A session with the default preference (1280x720, 15-30 fps) on vivid
    runs 640x360 (test_S6_default_preference_on_vivid): its state and the
    selected event say the size was adjusted, as negotiation does; the
    driver applied exactly what was negotiated."""
    selected = []
    with camcore.Manager() as m:
        dev = vivid0(m)
        other = next(d for d in m.devices() if d.driver == "vivid" and d.id != dev.id)
        with m.session(dev.id) as s:
            s.on_selected = lambda d, fmt: selected.append((d.id, fmt.width, fmt.height, fmt.adjusted))
            s.add_preview(lambda f: None)
            st = s.state
            s.select(other.id)
            s.select(dev.id)
            st2 = s.state
    assert st.camera_on and (st.format.fourcc, st.format.width, st.format.height) == ("YUYV", 640, 360)
    assert st.format.fps == Fraction(30)
    assert st.adjusted == camcore.ADJUSTED_SIZE and st.adjustments == ["size"]
    assert st.format.adjusted == camcore.ADJUSTED_SIZE
    assert selected == [(other.id, 640, 360, camcore.ADJUSTED_SIZE), (dev.id, 640, 360, camcore.ADJUSTED_SIZE)]
    assert st2.adjusted == camcore.ADJUSTED_SIZE


def check_measured_fps(g: Grab, nominal: Fraction) -> None:
    """measured_fps is the rate of the last (up to 32) delivered frames'
    timestamps: recompute it from the stamps seen in on_frame. It cannot
    exceed the applied rate; below it when the (emulated) guest drops frames."""
    st = g.stamps
    assert g.final.frames_delivered == len(st), (g.final, len(st))
    last = st[-32:]
    mine = (len(last) - 1) * 1e9 / (last[-1] - last[0])
    assert abs(g.final.measured_fps - mine) <= 0.01 * mine, (g.final, mine)
    assert mine <= float(nominal) * 1.05, (mine, nominal)


# ---------------------------------------------------------------------------
# S7: format_for, max_frame_rate and the clamp on start
# ---------------------------------------------------------------------------


def test_S7_format_for_and_max_frame_rate_on_vivid(vivid_webcam, camcore):
    with camcore.Manager() as m:
        dev = vivid0(m)
        # format_for: the nearest size among the formats supporting the rate exactly.
        s = m.format_for(dev.id, 1280, 720, 30)   # 30 fps: 320x180, 640x360 (16:9), 640x480
        assert (s.fourcc, s.width, s.height, s.fps, s.adjusted) == \
            ("YUYV", 640, 360, Fraction(30), camcore.ADJUSTED_SIZE)
        s = m.format_for(dev.id, 1280, 720, Fraction(25, 2))
        assert (s.fourcc, s.width, s.height, s.fps, s.adjusted) == ("YUYV", 1280, 720, Fraction(25, 2), 0)
        s = m.format_for(dev.id, 1920, 1080, 60)  # only 320x180 reaches 60
        assert (s.fourcc, s.width, s.height, s.fps, s.adjusted) == \
            ("YUYV", 320, 180, Fraction(60), camcore.ADJUSTED_SIZE)
        with pytest.raises(camcore.NotSupportedError):
            m.format_for(dev.id, 640, 480, 100)   # vivid's top rate is 60
        # max_frame_rate: the rate itself if offered, else the closest offered one.
        assert m.max_frame_rate(dev.id, "YUYV", 640, 480, 40) == Fraction(25)   # 640x480 tops at 25
        assert m.max_frame_rate(dev.id, "YUYV", 640, 480, 25) == Fraction(25)
        assert m.max_frame_rate(dev.id, "YUYV", 320, 180, 40) == Fraction(40)
        assert m.max_frame_rate(dev.id, "YUYV", 1280, 720, 15) == Fraction(25, 2)
        assert m.max_frame_rate(dev.id, "NV12", 1920, 1080, 30) == Fraction(5)
        with pytest.raises(camcore.NotSupportedError):
            m.max_frame_rate(dev.id, "MJPG", 640, 480, 30)  # vivid has no MJPEG
    # The same answers from the driver's own table.
    table = {(f, w, h): r for f, _, w, h, r in ctl_table(dev.node)}
    assert max(table[("YUYV", 640, 480)]) == Fraction(25)
    assert max(table[("YUYV", 1280, 720)]) == Fraction(25, 2)


def test_S7_start_above_the_formats_maximum_is_clamped(vivid_webcam, camcore):
    """Ask 40 fps of YUYV 640x480 (top rate 25): start clamps to 25, says so
    (ADJUSTED_RATE), and reports what VIDIOC_G_PARM reads back."""
    with camcore.Manager() as m:
        dev = vivid0(m)
        assert m.max_frame_rate(dev.id, "YUYV", 640, 480, 40) == Fraction(25)
        with m.open(dev.id) as cap:
            g = grab(cap, dev.node, 10, "YUYV", 640, 480, fps=40)
    fmt = g.fmt
    assert (fmt.fourcc, fmt.width, fmt.height) == ("YUYV", 640, 480)
    assert fmt.fps == Fraction(25) == g.parm == g.driver.fps
    assert fmt.adjusted == camcore.ADJUSTED_RATE
    check_measured_fps(g, Fraction(25))


def test_S6_rate_is_read_back_after_a_size_change(vivid_webcam, camcore):
    """vivid lowers the rate when the size grows. 320x180 at 60 fps; then
    1920x1080 with the driver's rate (fps=None): the rate applied is the one
    G_PARM reads back after S_FMT (5 fps), not the 60 set before. Then ask
    60 fps at 1920x1080: clamped to 5. Back to 320x180 at 60: S_PARM comes
    after S_FMT, so 60 is applied (set before S_FMT it would stay at 5)."""
    with camcore.Manager() as m:
        dev = vivid0(m)
        with m.open(dev.id) as cap:
            small = grab(cap, dev.node, 4, "YUYV", 320, 180, fps=60)
            big = grab(cap, dev.node, 2, "YUYV", 1920, 1080, fps=None, buffer_count=2)
            big60 = grab(cap, dev.node, 2, "YUYV", 1920, 1080, fps=60, buffer_count=2)
            back = grab(cap, dev.node, 4, "YUYV", 320, 180, fps=60)
    assert small.fmt.fps == Fraction(60) == small.parm and small.fmt.adjusted == 0
    assert (big.fmt.width, big.fmt.height) == (1920, 1080)
    assert big.fmt.fps == Fraction(5) == big.parm == big.driver.fps
    assert big.fmt.adjusted == 0  # no rate was asked
    assert big60.fmt.fps == Fraction(5) == big60.parm
    assert big60.fmt.adjusted == camcore.ADJUSTED_RATE
    assert back.fmt.fps == Fraction(60) == back.parm and back.fmt.adjusted == 0


# ---------------------------------------------------------------------------
# S8: every output format from vivid YUYV
# ---------------------------------------------------------------------------

W, H = 320, 180


def layout(out_fourcc: str):
    """(plane count, strides, rows per plane) of camcore's tightly packed outputs."""
    return {
        "YU12": (3, [W, W // 2, W // 2], [H, H // 2, H // 2]),
        "NV12": (2, [W, W], [H, H // 2]),
        "YUYV": (1, [2 * W], [H]),
        "RGB3": (1, [3 * W], [H]),
        "BGR3": (1, [3 * W], [H]),
        "AB24": (1, [4 * W], [H]),
    }[out_fourcc]


def to_rgb(f) -> np.ndarray:
    """(H, W, 3) R, G, B of an RGB-family frame."""
    p = f.planes[0]
    if f.fourcc == "RGB3":
        return rows(p, f.strides[0], H, 3 * W).reshape(H, W, 3)
    if f.fourcc == "BGR3":
        return rows(p, f.strides[0], H, 3 * W).reshape(H, W, 3)[:, :, ::-1]
    assert f.fourcc == "AB24"
    return rows(p, f.strides[0], H, 4 * W).reshape(H, W, 4)[:, :, :3]


def to_yuv(f):
    """Full-resolution Y and the chroma planes U, V (each (H/2 or H, W/2))."""
    if f.fourcc == "YU12":
        y = rows(f.planes[0], f.strides[0], H, W)
        u = rows(f.planes[1], f.strides[1], H // 2, W // 2)
        v = rows(f.planes[2], f.strides[2], H // 2, W // 2)
    elif f.fourcc == "NV12":
        y = rows(f.planes[0], f.strides[0], H, W)
        uv = rows(f.planes[1], f.strides[1], H // 2, W)
        u, v = uv[:, 0::2], uv[:, 1::2]
    else:
        assert f.fourcc == "YUYV"
        img = rows(f.planes[0], f.strides[0], H, 2 * W)
        y, u, v = img[:, 0::2], img[:, 1::4], img[:, 3::4]
    return y, u, v


def check_output_layout(g: Grab, out: str, fourcc: str) -> None:
    n, strides, nrows = layout(fourcc)
    fmt = g.fmt
    assert (fmt.fourcc, fmt.source_fourcc, fmt.width, fmt.height) == (fourcc, "YUYV", W, H)
    assert fmt.plane_count == n
    if fourcc == "YUYV":
        # The driver's own format: delivered as it is, at the driver's stride.
        assert fmt.strides == g.driver.strides
    else:
        assert fmt.strides == strides, (out, fmt.strides)
        assert fmt.frame_bytes == sum(s * r for s, r in zip(strides, nrows))
    assert fmt.fps == Fraction(30) == g.parm and fmt.adjusted == 0
    for f in g.frames:
        assert (f.fourcc, f.width, f.height, f.plane_count) == (fourcc, W, H, n)
        assert f.strides == fmt.strides
        assert f.lengths == [s * r for s, r in zip(fmt.strides, nrows)]
        assert [p.size for p in f.planes] == f.lengths
        assert not f.corrupted
    assert g.stats.frames_corrupted == 0


@pytest.mark.parametrize("out", list(OUTPUTS))
def test_S8_output_of_a_red_frame(pattern, camcore, out):
    """vivid "100% Red", no OSD: every pixel of every output is BT.601 red:
    RGB (255, 0, 0), Y'CbCr (81.5, 90, 240) in limited range."""
    fourcc = OUTPUTS[out]
    with camcore.Manager() as m:
        dev = vivid0(m)
        pattern(dev.node, PATTERN_RED, OSD_NONE)
        with m.open(dev.id) as cap:
            g = grab(cap, dev.node, 3, "YUYV", W, H, fps=30, output=out)
    check_output_layout(g, out, fourcc)
    f = g.frames[-1]
    if fourcc in ("RGB3", "BGR3", "AB24"):
        rgb = to_rgb(f).astype(np.int16)
        assert rgb[:, :, 0].min() >= 247, f"R {rgb[:, :, 0].min()}..{rgb[:, :, 0].max()}"
        assert rgb[:, :, 1:].max() <= 8, f"G/B up to {rgb[:, :, 1:].max()}"
        if fourcc == "AB24":
            a = rows(f.planes[0], f.strides[0], H, 4 * W).reshape(H, W, 4)[:, :, 3]
            assert (a == 255).all(), "alpha of a YUV source is opaque"
    else:
        for name, plane, want in zip("YUV", to_yuv(f), RED_YUV):
            lo, hi = int(plane.min()), int(plane.max())
            assert abs(lo - want) <= 3 and abs(hi - want) <= 3, f"{out} {name}: {lo}..{hi}, want {want}"


# libyuv itself (the library camcore uses), called directly on the native frame.
_yuv = None


def libyuv():
    global _yuv
    if _yuv is None:
        _yuv = ctypes.CDLL("libyuv.so.0")
    return _yuv


def _p(a: np.ndarray):
    return ctypes.c_void_p(a.ctypes.data)


def libyuv_reference(native, fourcc: str) -> List[np.ndarray]:
    """The output libyuv gives for a YUYV frame, as tight planes."""
    src = np.ascontiguousarray(rows(native.planes[0], native.strides[0], H, 2 * W))
    lib = libyuv()
    if fourcc == "YU12":
        y, u, v = (np.zeros((H, W), np.uint8), np.zeros((H // 2, W // 2), np.uint8),
                   np.zeros((H // 2, W // 2), np.uint8))
        assert lib.YUY2ToI420(_p(src), 2 * W, _p(y), W, _p(u), W // 2, _p(v), W // 2, W, H) == 0
        return [y, u, v]
    if fourcc == "NV12":
        y, uv = np.zeros((H, W), np.uint8), np.zeros((H // 2, W), np.uint8)
        assert lib.YUY2ToNV12(_p(src), 2 * W, _p(y), W, _p(uv), W, W, H) == 0
        return [y, uv]
    if fourcc == "YUYV":
        return [src]
    argb = np.zeros((H, W, 4), np.uint8)  # libyuv "ARGB": bytes B, G, R, A
    assert lib.YUY2ToARGB(_p(src), 2 * W, _p(argb), 4 * W, W, H) == 0
    rgb = argb[:, :, [2, 1, 0]]
    return [rgb]


@pytest.mark.parametrize("out", list(OUTPUTS))
def test_S8_output_matches_libyuv_on_colour_bars(pattern, camcore, out):
    """vivid's 75% colour bars, no OSD, no movement (every frame the same):
    the native YUYV frame run through libyuv by the test equals camcore's
    output (YUV outputs exactly; RGB within 2, the route may differ), and the
    bar centres have the bar colours."""
    fourcc = OUTPUTS[out]
    with camcore.Manager() as m:
        dev = vivid0(m)
        pattern(dev.node, PATTERN_75_COLORBAR, OSD_NONE)
        with m.open(dev.id) as cap:
            native = grab(cap, dev.node, 2, "YUYV", W, H, fps=30)
            g = grab(cap, dev.node, 2, "YUYV", W, H, fps=30, output=out)
    a, b = native.frames
    assert np.array_equal(rows(a.planes[0], a.strides[0], H, 2 * W),
                          rows(b.planes[0], b.strides[0], H, 2 * W)), "vivid frames differ"
    check_output_layout(g, out, fourcc)
    f = g.frames[-1]
    ref = libyuv_reference(a, fourcc)
    centres = v4l.bar_centres(W)
    if fourcc in ("RGB3", "BGR3", "AB24"):
        rgb = to_rgb(f).astype(np.int16)
        diff = np.abs(rgb - ref[0].astype(np.int16))
        assert diff.max() <= 2, f"{out}: differs from libyuv YUY2ToARGB by up to {diff.max()}"
        for x, bar in zip(centres, BAR_RGB):
            got = rgb[H // 2, x]
            want = [BAR_LEVEL * c for c in bar]
            assert all(abs(int(g_) - w) <= 8 for g_, w in zip(got, want)), (out, x, list(got), want)
    else:
        n, strides, nrows = layout(fourcc)
        if fourcc == "YUYV":
            got = [rows(f.planes[0], f.strides[0], H, 2 * W)]
        else:
            got = [rows(p, s, r, s) for p, s, r in zip(f.planes, f.strides, nrows)]
        for i, (gp, rp) in enumerate(zip(got, ref)):
            assert np.array_equal(gp, rp), f"{out} plane {i}: {int((gp != rp).sum())} bytes differ from libyuv"
        y, u, v = to_yuv(f)
        got_luma = [int(y[H // 2, x]) for x in centres]
        assert all(abs(g_ - w) <= 4 for g_, w in zip(got_luma, v4l.COLORBAR_LUMA)), got_luma
        # Chroma of the bars, limited-range BT.601 of the 75% colours.
        for x, bar in zip(centres, BAR_RGB):
            r_, g_, b_ = (0.75 * c for c in bar)
            cb = 128 + 224 * (-0.168736 * r_ - 0.331264 * g_ + 0.5 * b_)
            cr = 128 + 224 * (0.5 * r_ - 0.418688 * g_ - 0.081312 * b_)
            gu, gv = int(u[u.shape[0] // 2, x // 2]), int(v[v.shape[0] // 2, x // 2])
            assert abs(gu - cb) <= 6 and abs(gv - cr) <= 6, (out, x, gu, gv, round(cb), round(cr))


# ---------------------------------------------------------------------------
# S8 native zero-copy, S23 retain / release
# ---------------------------------------------------------------------------


def test_S8_native_frames_point_into_the_mmap_buffers(vivid_webcam, camcore):
    """Native output: each frame's data pointer is the start of one of the
    device's mmap'd buffers (a /dev/videoN mapping of this process), and the
    frames cycle through exactly buffer_count distinct buffers. Converted
    output lives in camcore's own memory: no device mapping, other addresses."""
    with camcore.Manager() as m:
        dev = vivid0(m)
        with m.open(dev.id) as cap:
            nat = grab(cap, dev.node, 16, "YUYV", 320, 180, fps=60, buffer_count=4)
            conv = grab(cap, dev.node, 16, "YUYV", 320, 180, fps=60, buffer_count=4, output="I420")
    assert nat.fmt.buffer_count == 4
    assert len(nat.maps) == nat.fmt.buffer_count, f"device mappings: {nat.maps}"
    starts = {a for a, _ in nat.maps}
    plane0 = [a[0] for a in nat.addrs]
    assert all(p in starts for p in plane0), "a native frame does not start at an mmap'd buffer"
    assert len(set(plane0)) == nat.fmt.buffer_count, sorted(set(plane0))

    assert conv.fmt.fourcc == "YU12" and conv.fmt.source_fourcc == "YUYV"
    assert len(conv.maps) == conv.fmt.buffer_count  # the driver's buffers are still mapped
    caddrs = [a for t in conv.addrs for a in t]
    assert not any(inside(a, conv.maps) for a in caddrs), "converted frames point into the driver's buffers"
    assert len({t[0] for t in conv.addrs}) <= conv.fmt.buffer_count
    assert not set(t[0] for t in conv.addrs) & set(plane0)
    for t in conv.addrs:  # I420 planes one after the other in one output buffer
        assert t[1] == t[0] + 320 * 180 and t[2] == t[1] + 160 * 90


def test_S23_retained_buffer_is_not_reused_until_released(pattern, camcore):
    """Retain the first two frames: while held their buffers never come back
    (the other frames use the remaining buffer_count - 2), their pixels stay
    as they were (vivid's OSD prints a changing counter, so a reuse would
    show); after release all buffers are in use again."""
    retained, snapshot, after, released_addrs = [], [], [], []
    phase = ["hold"]
    done = threading.Event()
    errors = []

    def on_frame(f):
        a = f.plane(0).ctypes.data
        if len(retained) < 2:
            retained.append(f.retain())
            snapshot.append(f.plane(0).copy())
            return
        if phase[0] == "hold":
            after.append(a)
            if len(after) >= 12:
                done.set()
        else:
            released_addrs.append(a)
            if len(released_addrs) >= 16:
                done.set()

    with camcore.Manager() as m:
        dev = vivid0(m)
        pattern(dev.node, PATTERN_75_COLORBAR, OSD_ALL)
        with m.open(dev.id) as cap:
            cap.start(fourcc="YUYV", width=320, height=180, fps=60, buffer_count=4,
                      on_frame=on_frame, on_error=errors.append)
            try:
                assert done.wait(60), f"{len(after)} frames while two were retained"
                held = [r.plane(0).ctypes.data for r in retained]
                for r, snap in zip(retained, snapshot):
                    assert np.array_equal(r.plane(0), snap), "a retained buffer was overwritten"
                done.clear()
                phase[0] = "released"
                for r in retained:
                    r.release()
                assert done.wait(60), f"{len(released_addrs)} frames after release"
                stats = cap.stats
            finally:
                cap.stop()
    assert not errors, errors
    assert len(set(held)) == 2
    assert not set(after) & set(held), "a retained buffer was handed out again"
    assert len(set(after)) == 4 - 2, sorted(set(after))
    assert set(held) <= set(released_addrs), "released buffers did not come back"
    assert len(set(released_addrs)) == 4
    assert stats.frames_corrupted == 0


def test_S23_starving_the_buffers_is_counted_as_drops(vivid_webcam, camcore):
    """Retain every frame: once all buffers are held nothing is delivered,
    the capturer keeps streaming (no hang, no error); vivid keeps counting
    frames, so after the release the next frame reports the gap and the
    statistics count the drops. stop() returns promptly."""
    held, seqs, after = [], [], []
    errors = []
    all_held = threading.Event()
    resumed = threading.Event()
    mode = ["hold"]

    def on_frame(f):
        if mode[0] == "hold":
            held.append(f.retain())
            seqs.append(f.sequence)
            if len(held) == 3:
                all_held.set()
        else:
            after.append((f.sequence, f.dropped_before))
            if len(after) >= 3:
                resumed.set()

    with camcore.Manager() as m:
        dev = vivid0(m)
        with m.open(dev.id) as cap:
            cap.start(fourcc="YUYV", width=320, height=180, fps=60, buffer_count=3,
                      on_frame=on_frame, on_error=errors.append)
            try:
                assert cap.format.buffer_count == 3
                assert all_held.wait(30)
                time.sleep(1.0)  # ~60 frame periods with no buffer queued
                assert len(held) == 3, "a frame came while every buffer was retained"
                assert cap.streaming and not errors
                mid = cap.stats
                mode[0] = "free"
                for r in held:
                    r.release()
                assert resumed.wait(30), "no frame after the buffers were released"
                stats = cap.stats
            finally:
                t0 = time.monotonic()
                cap.stop()
                stop_s = time.monotonic() - t0
    assert not errors, errors
    assert mid.frames_delivered == 3
    first_seq, gap = after[0]
    assert gap == first_seq - seqs[-1] - 1 and gap >= 10, (seqs, after)
    assert stats.frames_dropped >= gap
    assert stop_s < 5, f"stop took {stop_s:.1f} s"


def test_S23_starving_converted_output_is_counted_as_drops(vivid_webcam, camcore):
    """With conversion the driver's buffer is requeued at once; holding every
    output buffer makes camcore drop (and count) the converted frames instead."""
    held = []
    errors = []
    all_held = threading.Event()
    resumed = threading.Event()
    mode = ["hold"]
    after = []

    def on_frame(f):
        if mode[0] == "hold":
            held.append(f.retain())
            if len(held) == 3:
                all_held.set()
        else:
            after.append(f.sequence)
            if len(after) >= 3:
                resumed.set()

    with camcore.Manager() as m:
        dev = vivid0(m)
        with m.open(dev.id) as cap:
            cap.start(fourcc="YUYV", width=320, height=180, fps=60, buffer_count=3, output="RGB24",
                      on_frame=on_frame, on_error=errors.append)
            try:
                assert all_held.wait(30)
                before = cap.stats.frames_dropped
                time.sleep(1.0)
                mid = cap.stats
                assert len(held) == 3 and cap.streaming and not errors
                mode[0] = "free"
                for r in held:
                    r.release()
                assert resumed.wait(30), "no frame after the output buffers were released"
            finally:
                cap.stop()
    assert not errors, errors
    assert mid.frames_delivered == 3
    assert mid.frames_dropped - before >= 10, (before, mid)
