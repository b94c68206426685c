# SPDX-License-Identifier: MIT
"""S37 on vivid: the capture buffers exported as DMA-BUF (VIDIOC_EXPBUF).

Each plane of a frame carries an fd of its buffer and its offset; the bytes
read through a mapping of that fd are the frame's bytes; the fds are
camcore's and are closed when the capture stops (counted in /proc/self/fd);
a converting output or the synthetic camera refuses with NotSupportedError.
"""
from __future__ import annotations

import mmap
import os

import pytest


def dmabuf_fds() -> list:
    """This process's fds that are DMA-BUFs."""
    out = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            if "dmabuf" in os.readlink(f"/proc/self/fd/{fd}"):
                out.append(int(fd))
        except OSError:
            pass
    return out


def mapped_bytes(fd: int, offset: int, length: int) -> bytes:
    size = os.fstat(fd).st_size or (offset + length)
    with mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ) as m:
        return m[offset:offset + length]


def _check_frames(cap, fourcc, planes, n=5, **kw):
    seen = set()
    for f in cap.frames(n, fourcc=fourcc, width=640, height=480, fps=25, dmabuf=True, **kw):
        d = f.dmabuf
        assert d is not None and len(d) == planes == f.plane_count, (d, f)
        for i, (fd, off) in enumerate(d):
            assert fd >= 0 and fd in dmabuf_fds(), (fd, dmabuf_fds())
            want = f.plane(i).tobytes()
            assert mapped_bytes(fd, off, len(want)) == want, f"plane {i} differs through the DMA-BUF"
        seen.add(d[0][0])
    return seen


def test_S37_yuyv_frames_carry_their_buffer_as_dmabuf(vivid_webcam, camcore):
    before = dmabuf_fds()
    with camcore.Manager(backend="v4l2") as m:
        dev = m.devices()[0]
        with m.open(dev.id) as cap:
            seen = _check_frames(cap, "YUYV", 1)
            assert len(seen) >= 2, f"one fd per buffer: saw {seen}"
            assert dmabuf_fds() == before, "fds left open after the capture stopped"
            # Without the flag: no fds, frame.dmabuf is None.
            for f in cap.frames(2, width=640, height=480, fps=25):
                assert f.dmabuf is None
    assert dmabuf_fds() == before
    print(f"S37: YUYV 640x480, DMA-BUF fds per buffer {sorted(seen)}")


def test_S37_one_buffer_nv12_shares_one_fd_at_two_offsets(vivid_webcam, camcore):
    with camcore.Manager(backend="v4l2") as m:
        dev = m.devices()[0]
        with m.open(dev.id) as cap:
            for f in cap.frames(3, fourcc="NV12", width=640, height=480, fps=25, dmabuf=True):
                (fd0, off0), (fd1, off1) = f.dmabuf
                assert fd0 == fd1 and off0 == 0 and off1 == f.strides[0] * 480, f.dmabuf
                for i, (fd, off) in enumerate(f.dmabuf):
                    want = f.plane(i).tobytes()
                    assert mapped_bytes(fd, off, len(want)) == want


def test_S37_a_retained_frame_keeps_its_fd_and_a_converted_one_has_none(vivid_webcam, camcore):
    before = dmabuf_fds()
    with camcore.Manager(backend="v4l2") as m:
        dev = m.devices()[0]
        with m.open(dev.id) as cap:
            it = cap.frames(2, width=640, height=480, fps=25, dmabuf=True)
            kept = next(it).retain()
            it.close()                                           # the capture stops
            fd, off = kept.dmabuf[0]
            want = kept.plane(0).tobytes()
            assert mapped_bytes(fd, off, len(want)) == want      # still valid: the frame is
            kept.release()
            assert dmabuf_fds() == before
            with pytest.raises(camcore.NotSupportedError) as e:
                cap.start_pull(width=640, height=480, output="I420", dmabuf=True)
            assert "native frames" in e.value.detail
            assert [f.dmabuf for f in cap.frames(1, width=640, height=480)] == [None]   # still usable


def test_S37_multiplanar_plane_offset_is_the_data_offset(vivid_mplane, camcore):
    from test_mplane import PLANE0_DATA_OFFSET
    with camcore.Manager(backend="v4l2") as m:
        dev = m.devices()[0]
        assert dev.multiplanar
        with m.open(dev.id) as cap:
            for f in cap.frames(3, fourcc="YUYV", width=640, height=480, fps=25, dmabuf=True):
                [(fd, off)] = f.dmabuf
                assert off == PLANE0_DATA_OFFSET, f.dmabuf          # the image starts after it
                want = f.plane(0).tobytes()
                assert len(want) == 1280 * 480
                assert mapped_bytes(fd, off, len(want)) == want
