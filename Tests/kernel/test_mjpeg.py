# SPDX-License-Identifier: MIT
"""S1, S5–S8, S22, S26 with real MJPEG: a v4l2loopback camera whose only
format is MJPEG 640x480. A writer in this process (the "camera") sets the
loopback's OUTPUT format to MJPG and write()s JPEG frames made with
TurboJPEG (libturbojpeg.so.0, through ctypes); camcore captures them from
the same node, natively or decoded.

v4l2loopback (0.12.x) facts used here: the capture side offers no format
until a writer has set one and started (STREAMON on OUTPUT or a first
write); then it offers exactly that format at that size and the writer's
rate (30 fps by default); each write() becomes one frame with
bytesused = the bytes written and sequence = the write count; a reader
that falls behind skips to the newest frame. The writer waits until camcore
has taken each frame before writing the next, so no frame is skipped or
overwritten while camcore reads it.
"""
from __future__ import annotations

import ctypes
import fcntl
import functools
import os
import re
import struct
import threading
import time
from fractions import Fraction
from typing import List

import numpy as np
import pytest

import conftest
import v4l2probe as v4l

NODE = "/dev/video10"
LABEL = "camcore-mjpeg"
W, H = 640, 480

# linux/videodev2.h
V4L2_BUF_TYPE_VIDEO_OUTPUT = 2
V4L2_FIELD_NONE = 1
V4L2_COLORSPACE_SRGB = 8
VIDIOC_S_FMT = (3 << 30) | (208 << 16) | (ord("V") << 8) | 5
VIDIOC_STREAMON = (1 << 30) | (4 << 16) | (ord("V") << 8) | 18


# ---------------------------------------------------------------------------
# TurboJPEG (the same library camcore decodes with), for making and
# independently decoding the test JPEGs
# ---------------------------------------------------------------------------

TJPF_RGB = 0
TJSAMP_420 = 2


class TurboJPEG:
    def __init__(self):
        lib = ctypes.CDLL("libturbojpeg.so.0")
        vp, c_int, c_ulong = ctypes.c_void_p, ctypes.c_int, ctypes.c_ulong
        lib.tjInitCompress.restype = vp
        lib.tjInitDecompress.restype = vp
        lib.tjDestroy.argtypes = [vp]
        lib.tjFree.argtypes = [vp]
        lib.tjGetErrorStr2.restype = ctypes.c_char_p
        lib.tjGetErrorStr2.argtypes = [vp]
        lib.tjCompress2.argtypes = [vp, vp, c_int, c_int, c_int, c_int, ctypes.POINTER(vp),
                                    ctypes.POINTER(c_ulong), c_int, c_int, c_int]
        lib.tjDecompress2.argtypes = [vp, vp, c_ulong, vp, c_int, c_int, c_int, c_int, c_int]
        lib.tjDecompressToYUVPlanes.argtypes = [vp, vp, c_ulong, ctypes.POINTER(vp), c_int,
                                                ctypes.POINTER(c_int), c_int, c_int]
        self.lib = lib
        self.c = lib.tjInitCompress()
        self.d = lib.tjInitDecompress()
        assert self.c and self.d

    def _err(self, h) -> str:
        return self.lib.tjGetErrorStr2(h).decode(errors="replace")

    def compress(self, rgb: np.ndarray, quality: int = 95, subsamp: int = TJSAMP_420) -> bytes:
        h, w, _ = rgb.shape
        src = np.ascontiguousarray(rgb, dtype=np.uint8)
        buf, size = ctypes.c_void_p(), ctypes.c_ulong(0)
        rc = self.lib.tjCompress2(self.c, src.ctypes.data, w, 3 * w, h, TJPF_RGB, ctypes.byref(buf),
                                  ctypes.byref(size), subsamp, quality, 0)
        assert rc == 0, self._err(self.c)
        try:
            return ctypes.string_at(buf, size.value)
        finally:
            self.lib.tjFree(buf)

    def decode_rgb(self, jpeg: bytes, w: int = W, h: int = H) -> np.ndarray:
        out = np.zeros((h, w, 3), np.uint8)
        src = ctypes.create_string_buffer(jpeg, len(jpeg))
        rc = self.lib.tjDecompress2(self.d, ctypes.addressof(src), len(jpeg), out.ctypes.data,
                                    w, 3 * w, h, TJPF_RGB, 0)
        assert rc == 0, self._err(self.d)
        return out

    def decode_i420(self, jpeg: bytes, w: int = W, h: int = H):
        y = np.zeros((h, w), np.uint8)
        u = np.zeros((h // 2, w // 2), np.uint8)
        v = np.zeros((h // 2, w // 2), np.uint8)
        src = ctypes.create_string_buffer(jpeg, len(jpeg))
        planes = (ctypes.c_void_p * 3)(y.ctypes.data, u.ctypes.data, v.ctypes.data)
        strides = (ctypes.c_int * 3)(w, w // 2, w // 2)
        rc = self.lib.tjDecompressToYUVPlanes(self.d, ctypes.addressof(src), len(jpeg), planes, w,
                                              strides, h, 0)
        assert rc == 0, self._err(self.d)
        return y, u, v

    def close(self):
        self.lib.tjDestroy(self.c)
        self.lib.tjDestroy(self.d)


@functools.lru_cache(maxsize=None)
def known_image(k: int, w: int = W, h: int = H) -> np.ndarray:
    """A known picture, different for each k: smooth gradients (JPEG keeps
    them well) and four solid blocks on 16-pixel (MCU) boundaries."""
    x = np.arange(w)[None, :]
    y = np.arange(h)[:, None]
    img = np.zeros((h, w, 3), np.uint8)
    img[:, :, 0] = (x * 255 // (w - 1)).astype(np.uint8)
    img[:, :, 1] = (y * 255 // (h - 1)).astype(np.uint8)
    img[:, :, 2] = ((x + y + 40 * k) % 256).astype(np.uint8) // 2 + 64
    blocks = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)]
    for i, c in enumerate(blocks):
        x0 = 64 + 128 * i
        img[320:416, x0:x0 + 96] = c
    img[32:48, 16 * (k % 30):16 * (k % 30) + 16] = (0, 0, 0)  # a marker that moves with k
    img.flags.writeable = False
    return img


def jfif_ycbcr(rgb: np.ndarray):
    """Full-range BT.601 (JFIF) Y, and Cb, Cr averaged over 2x2 (4:2:0)."""
    r, g, b = (rgb[:, :, i].astype(np.float32) for i in range(3))
    y = 0.299 * r + 0.587 * g + 0.114 * b
    cb = 128 - 0.168736 * r - 0.331264 * g + 0.5 * b
    cr = 128 + 0.5 * r - 0.418688 * g - 0.081312 * b

    def pool(p):
        return p.reshape(p.shape[0] // 2, 2, p.shape[1] // 2, 2).mean(axis=(1, 3))

    return y, pool(cb), pool(cr)


# ---------------------------------------------------------------------------
# The loopback camera
# ---------------------------------------------------------------------------


class Writer:
    """The producer side of the loopback: MJPG at W x H, frames by write()."""

    def __init__(self, node: str = NODE, width: int = W, height: int = H, fourcc: str = "MJPG"):
        self.fd = os.open(node, os.O_RDWR | os.O_CLOEXEC)
        f = bytearray(208)
        struct.pack_into("I", f, 0, V4L2_BUF_TYPE_VIDEO_OUTPUT)
        struct.pack_into("8I", f, 8, width, height, v4l.fourcc_from_ctl(fourcc), V4L2_FIELD_NONE,
                         0, 0, V4L2_COLORSPACE_SRGB, 0)
        fcntl.ioctl(self.fd, VIDIOC_S_FMT, f)
        w, h, pix = struct.unpack_from("3I", f, 8)
        assert (w, h, pix) == (width, height, v4l.fourcc_from_ctl(fourcc)), (w, h, pix)
        self.written = 0

    def start(self) -> None:
        """STREAMON on OUTPUT: the capture side now offers the format (no frame yet)."""
        fcntl.ioctl(self.fd, VIDIOC_STREAMON, struct.pack("I", V4L2_BUF_TYPE_VIDEO_OUTPUT))

    def write(self, data: bytes) -> None:
        assert os.write(self.fd, data) == len(data)
        self.written += 1

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


@pytest.fixture(scope="module")
def loopback():
    """v4l2loopback loaded as TESTBED.md says (whatever vivid set-up is loaded
    stays: its nodes are /dev/video0-7 at most, this one is /dev/video10)."""
    if not conftest.IN_GUEST:
        pytest.skip("not in the kernel test guest")
    if os.path.isdir("/sys/module/v4l2loopback"):
        conftest.sh("modprobe", "-r", "v4l2loopback")
    conftest.sh("modprobe", "v4l2loopback", "devices=1", "video_nr=10", "exclusive_caps=0",
                f"card_label={LABEL}")
    conftest.sh("udevadm", "settle", "--timeout=30", check=False)
    assert os.path.exists(NODE)
    state = {"writer": None}
    yield state
    if state["writer"] is not None:
        state["writer"].close()
    deadline = time.monotonic() + 20
    while conftest.sh("modprobe", "-r", "v4l2loopback", check=False).returncode != 0:
        assert time.monotonic() < deadline, f"cannot unload v4l2loopback: {v4l.open_v4l_fds()}"
        time.sleep(0.5)
    conftest.sh("udevadm", "settle", "--timeout=30", check=False)


@pytest.fixture
def camera(loopback):
    """The loopback with a started MJPG writer: an MJPEG-only camera. One per
    test: when the writer and every reader have closed the node, v4l2loopback
    drops its buffers and write count, so each test starts from sequence 0
    with no frame left over (a new reader would first get the newest old
    frame, its sequence and bytesused reset by REQBUFS)."""
    w = Writer()
    loopback["writer"] = w
    w.start()
    yield w
    w.close()


@pytest.fixture(scope="module")
def tj():
    t = TurboJPEG()
    yield t
    t.close()


def loop_device(m):
    devs = [d for d in m.devices() if d.node == NODE]
    assert len(devs) == 1, [(d.node, d.driver) for d in m.devices()]
    return devs[0]


class Session:
    """camcore capturing from the loopback while the test writes frames one by one."""

    def __init__(self, cap, camera: Writer, output=None):
        self.cap, self.camera = cap, camera
        self.frames: list = []
        self.addrs: List[int] = []
        self.errors: list = []
        self.push_ms: List[int] = []  # write -> taken by camcore, per frame
        self.cv = threading.Condition()

        def on_frame(f):
            with self.cv:
                self.frames.append(f.copy())
                self.addrs.append(f.plane(0).ctypes.data)
                self.cv.notify_all()

        def on_error(e):
            with self.cv:
                self.errors.append(e)
                self.cv.notify_all()

        cap.start(fourcc="MJPG", width=W, height=H, fps=30, on_frame=on_frame, on_error=on_error,
                  output=output)
        assert camera.written == 0
        self.base_stats = cap.stats
        self.base = self.processed()
        assert self.base == 0, f"a frame came before any was written: {self.base_stats}"

    def processed(self) -> int:
        """Frames camcore has taken: delivered, or counted corrupted."""
        s = self.cap.stats
        return s.frames_delivered + s.frames_corrupted

    def _wait(self, n: int, timeout: float = 20.0) -> bool:
        deadline = time.monotonic() + timeout
        while self.processed() - self.base < n:
            if self.errors or time.monotonic() > deadline:
                return False
            time.sleep(0.005)
        return True

    def push(self, data: bytes) -> None:
        """Writes one frame and waits until camcore has delivered or counted it."""
        want = self.processed() - self.base + 1
        t0 = time.monotonic()
        self.camera.write(data)
        assert self._wait(want), f"camcore did not take frame {want}: {self.cap.stats} {self.errors}"
        self.push_ms.append(round((time.monotonic() - t0) * 1000))

    def stop(self) -> None:
        """Reads the final statistics, then stops."""
        self.final = self.cap.stats
        self.streaming = self.cap.streaming
        self.cap.stop()
        print(f"MEASURED mjpeg write->taken ms per frame: {self.push_ms}")

    def counts(self):
        """(delivered, corrupted, dropped) at stop()."""
        s, b = self.final, self.base_stats
        return (s.frames_delivered - b.frames_delivered, s.frames_corrupted - b.frames_corrupted,
                s.frames_dropped - b.frames_dropped)


# ---------------------------------------------------------------------------
# listing and negotiation
# ---------------------------------------------------------------------------


def test_S1_loopback_without_a_format_is_not_listed(loopback, camcore):
    """Before a writer sets a format the loopback's capture side enumerates
    no format (VIDIOC_ENUM_FMT fails): not a camera yet (S1)."""
    assert loopback["writer"] is None
    assert v4l.enum_fmt(NODE, 1) == []
    with camcore.Manager() as m:
        assert [d for d in m.devices() if d.node == NODE] == []


def test_S5_mjpeg_only_camera_is_listed(camera, camcore):
    caps = v4l.querycap(NODE)
    assert caps.driver == "v4l2 loopback" and caps.card == LABEL
    assert [f for f, _, _ in v4l.enum_fmt(NODE, 1)] == [v4l.fourcc_from_ctl("MJPG")]
    with camcore.Manager() as m:
        dev = loop_device(m)
        formats = m.formats(dev.id)
    assert (dev.driver, dev.name, dev.bus_info) == ("v4l2 loopback", LABEL, "platform:v4l2loopback-000")
    assert not dev.multiplanar and not dev.synthetic
    assert len(formats) == 1, formats
    f = formats[0]
    assert (f.fourcc, f.size_kind, f.width, f.height) == ("MJPG", "discrete", W, H)
    assert f.compressed
    assert (f.rate_kind, f.rates) == ("discrete", [Fraction(30)])


def test_S6_negotiate_on_an_mjpeg_only_camera(camera, camcore):
    """The only format is compressed, so it is chosen whatever the app wants
    (rule (4)'s "unless only a compressed format reaches the rate")."""
    with camcore.Manager() as m:
        dev = loop_device(m)
        s = m.negotiate(dev.id)
        assert (s.fourcc, s.width, s.height, s.fps, s.adjusted) == \
            ("MJPG", W, H, Fraction(30), camcore.ADJUSTED_SIZE)
        s = m.negotiate(dev.id, output="I420")
        assert (s.fourcc, s.width, s.height, s.fps) == ("MJPG", W, H, Fraction(30))
        assert s.adjusted == camcore.ADJUSTED_SIZE | camcore.ADJUSTED_FORMAT
        s = m.negotiate(dev.id, W, H, output="I420")
        assert s.adjusted == camcore.ADJUSTED_FORMAT
        s = m.format_for(dev.id, 1280, 720, 30)
        assert (s.fourcc, s.width, s.height, s.fps) == ("MJPG", W, H, Fraction(30))
        assert m.max_frame_rate(dev.id, "MJPG", W, H, 60) == Fraction(30)


# ---------------------------------------------------------------------------
# capture
# ---------------------------------------------------------------------------


def test_S8_native_mjpeg_is_the_written_jpeg_zero_copy(camera, camcore, tj):
    """Native output: each frame is exactly the JPEG written (length = the
    bytes written), in the loopback's mmap'd buffer."""
    jpegs = [tj.compress(known_image(k)) for k in range(4)]
    with camcore.Manager() as m:
        dev = loop_device(m)
        with m.open(dev.id) as cap:
            s = Session(cap, camera)
            fmt = cap.format
            parm = v4l.driver_format(NODE).fps
            for j in jpegs:
                s.push(j)
            maps = [ln.split()[0] for ln in open("/proc/self/maps") if ln.rstrip().endswith(NODE)]
            s.stop()
            # S7 on a driver without V4L2_CAP_TIMEPERFRAME: 60 fps is clamped to
            # the only rate (30) and reported; G_PARM still says 30.
            cap.start(fourcc="MJPG", width=W, height=H, fps=60)
            fmt60 = cap.format
            cap.stop()
    assert not s.errors, s.errors
    assert (fmt.fourcc, fmt.source_fourcc, fmt.width, fmt.height) == ("MJPG", "MJPG", W, H)
    assert fmt.fps == Fraction(30) == parm and fmt.adjusted == 0
    assert fmt.plane_count == 1 and fmt.buffer_count >= 2
    assert (fmt60.fps, fmt60.adjusted) == (Fraction(30), camcore.ADJUSTED_RATE)
    assert s.counts() == (4, 0, 0)
    assert [f.sequence for f in s.frames] == [0, 1, 2, 3]  # v4l2loopback: the write count
    for f, j in zip(s.frames, jpegs):
        assert (f.fourcc, f.width, f.height, f.plane_count) == ("MJPG", W, H, 1)
        assert f.lengths == [len(j)] and bytes(f.planes[0]) == j
        assert not f.corrupted and f.dropped_before == 0
    ranges = [tuple(int(x, 16) for x in r.split("-")) for r in maps]
    assert len(ranges) == fmt.buffer_count, maps
    assert all(any(a <= p < b for a, b in ranges) for p in s.addrs), "native frame outside the mmap buffers"


@pytest.mark.parametrize("out", ["I420", "RGB24", "NV12", "BGR24", "RGBA", "YUYV"])
def test_S8_mjpeg_is_decoded(camera, camcore, tj, out):
    """MJPEG decoded to each output format. RGB: within mean abs error 4 of
    the source image, and equal to TurboJPEG's own decode of the same JPEG.
    YUV: the JPEG's own (full-range) samples, equal to TurboJPEG's YUV decode
    and close to the source's JFIF Y'CbCr."""
    images = [known_image(k) for k in (10, 11, 12)]
    jpegs = [tj.compress(img) for img in images]
    with camcore.Manager() as m:
        dev = loop_device(m)
        with m.open(dev.id) as cap:
            s = Session(cap, camera, output=out)
            fmt = cap.format
            for j in jpegs:
                s.push(j)
            s.stop()
    assert not s.errors, s.errors
    want_fourcc = {"I420": "YU12", "RGB24": "RGB3", "NV12": "NV12", "BGR24": "BGR3",
                   "RGBA": "AB24", "YUYV": "YUYV"}[out]
    assert (fmt.fourcc, fmt.source_fourcc, fmt.width, fmt.height) == (want_fourcc, "MJPG", W, H)
    assert s.counts() == (3, 0, 0)
    for f, img, j in zip(s.frames, images, jpegs):
        assert (f.fourcc, f.width, f.height) == (want_fourcc, W, H)
        assert not f.corrupted
        assert f.strides == fmt.strides
        if want_fourcc in ("RGB3", "BGR3", "AB24"):
            bpp = 4 if want_fourcc == "AB24" else 3
            assert f.plane_count == 1 and f.strides == [bpp * W] and f.lengths == [bpp * W * H]
            px = f.planes[0].reshape(H, W, bpp)
            rgb = px[:, :, :3] if want_fourcc != "BGR3" else px[:, :, 2::-1]
            if want_fourcc == "AB24":
                assert (px[:, :, 3] == 255).all()
            mae = np.abs(rgb.astype(np.int16) - img.astype(np.int16)).mean()
            assert mae <= 4, f"{out}: mean abs error {mae:.2f} against the source image"
            ref = tj.decode_rgb(j)
            d = np.abs(rgb.astype(np.int16) - ref.astype(np.int16))
            assert d.max() <= 1, f"{out}: differs from TurboJPEG's decode by up to {d.max()}"
        else:
            ry, ru, rv = tj.decode_i420(j)
            if want_fourcc == "YU12":
                assert f.plane_count == 3 and f.strides == [W, W // 2, W // 2]
                assert f.lengths == [W * H, W * H // 4, W * H // 4]
                y = f.planes[0].reshape(H, W)
                u = f.planes[1].reshape(H // 2, W // 2)
                v = f.planes[2].reshape(H // 2, W // 2)
            elif want_fourcc == "NV12":
                assert f.plane_count == 2 and f.strides == [W, W] and f.lengths == [W * H, W * H // 2]
                y = f.planes[0].reshape(H, W)
                uv = f.planes[1].reshape(H // 2, W)
                u, v = uv[:, 0::2], uv[:, 1::2]
            else:  # YUYV: 4:2:2, chroma rows doubled from the 4:2:0 decode
                assert f.plane_count == 1 and f.strides == [2 * W] and f.lengths == [2 * W * H]
                p = f.planes[0].reshape(H, 2 * W)
                y, u, v = p[:, 0::2], p[0::2, 1::4], p[0::2, 3::4]
            assert np.array_equal(y, ry), f"{out}: Y differs from TurboJPEG's decode"
            for name, got, ref in (("U", u, ru), ("V", v, rv)):
                d = np.abs(got.astype(np.int16) - ref.astype(np.int16)).max()
                assert d <= 1, f"{out}: {name} differs from TurboJPEG's decode by up to {d}"
            jy, jcb, jcr = jfif_ycbcr(img)
            assert np.abs(y - jy).mean() <= 3, np.abs(y - jy).mean()
            assert np.abs(u - jcb).mean() <= 4 and np.abs(v - jcr).mean() <= 4


def test_S8_cli_snapshot_of_an_mjpeg_camera(camera, tj):
    """`camcore capture --snapshot` on an MJPEG-only camera: frames stay
    MJPEG (so --output gets the JPEGs as they came) and camcore decodes the
    last one for the PNG (camcore_frame_convert), whose pixels are
    TurboJPEG's decode of the written JPEG."""
    import subprocess

    from test_cli import TOOL, png_pixels

    if not os.access(TOOL, os.X_OK):
        pytest.fail(f"{TOOL} not built: run `make tools` on the host")
    img = known_image(7)
    jpeg = tj.compress(img)
    snap = "/tmp/kernel-cli-mjpeg-snapshot.png"
    if os.path.exists(snap):
        os.unlink(snap)
    stop = threading.Event()

    def feed():  # a camera at ~30 fps while the tool runs
        while not stop.is_set():
            camera.write(jpeg)
            time.sleep(0.03)

    env = dict(os.environ)
    env.pop("CAMCORE_SYNTHETIC_CAMERA", None)

    def tool(*args):
        return subprocess.run([TOOL, "capture", NODE, *args], capture_output=True, text=True,
                              timeout=120, env=env, cwd="/tmp")

    t = threading.Thread(target=feed, daemon=True)
    t.start()
    try:
        r = tool("--frames", "3", "--snapshot", snap)
        # With --output too: the file gets the JPEGs, the PNG is made all the same.
        r2 = tool("--frames", "2", "--snapshot", snap + ".2", "--output", "/tmp/kernel-cli-raw.mjpeg")
    finally:
        stop.set()
        t.join()
    print(r.stdout, r.stderr, r2.stdout, r2.stderr)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert re.match(rf"  format    MJPG {W}x{H} at [\d.]+ fps$", lines[1]), lines  # not converted
    assert lines[3] == f"  snapshot  {snap} ({W}x{H} PNG)", lines
    want = tj.decode_rgb(jpeg).astype(np.int16)
    for path in (snap, snap + ".2"):
        w, h, rows = png_pixels(path)
        assert (w, h) == (W, H)
        got = np.frombuffer(b"".join(bytes(x) for x in rows), dtype=np.uint8).reshape(H, W, 3)
        d = np.abs(got.astype(np.int16) - want)
        assert d.max() <= 1, f"{path} differs from TurboJPEG's decode by up to {d.max()}"
    assert r2.returncode == 0, r2.stderr
    raw = open("/tmp/kernel-cli-raw.mjpeg", "rb").read()
    assert raw.count(b"\xff\xd8\xff") == 2 and raw.startswith(b"\xff\xd8"), len(raw)  # the two JPEGs


def test_S26_corrupt_jpegs_are_counted_not_delivered(camera, camcore, tj):
    """Between good frames the camera sends a truncated JPEG (no end marker),
    bytes that are no JPEG at all, and a JPEG of the wrong size: each is
    counted in frames_corrupted and not delivered; capture goes on and the
    good frames decode right."""
    good = [known_image(k) for k in (20, 21, 22, 23)]
    gj = [tj.compress(img) for img in good]
    truncated = gj[0][: len(gj[0]) // 2]
    garbage = bytes(np.random.default_rng(3).integers(1, 256, 20000, dtype=np.uint8))
    wrong_size = tj.compress(known_image(5, 320, 240))
    sequence = [gj[0], truncated, gj[1], garbage, gj[2], wrong_size, gj[3]]
    with camcore.Manager() as m:
        dev = loop_device(m)
        with m.open(dev.id) as cap:
            s = Session(cap, camera, output="RGB24")
            for data in sequence:
                s.push(data)
            s.stop()
    assert not s.errors, s.errors
    assert s.streaming
    delivered, corrupted, dropped = s.counts()
    assert (delivered, corrupted, dropped) == (4, 3, 0)
    assert len(s.frames) == 4
    for f, img in zip(s.frames, good):
        assert not f.corrupted and f.fourcc == "RGB3"
        mae = np.abs(f.planes[0].reshape(H, W, 3).astype(np.int16) - img.astype(np.int16)).mean()
        assert mae <= 4, mae
    # Sequence numbers still count the bad frames: good ones sit 2 apart after each bad one.
    assert [f.sequence for f in s.frames] == [0, 2, 4, 6]
