# SPDX-License-Identifier: MIT
"""An independent YUV->RGB oracle for tests (BT.601 limited range, numpy, nearest-
neighbour chroma): what camcore's libyuv conversion is compared with, within a
rounding tolerance."""
import numpy as np


def yuv_to_rgb(y: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """BT.601 limited-range Y'CbCr -> 8-bit RGB; y, u, v are (h, w) uint8 arrays."""
    c = (y.astype(np.float32) - 16.0) * 1.164
    d = u.astype(np.float32) - 128.0
    e = v.astype(np.float32) - 128.0
    rgb = np.empty(y.shape + (3,), dtype=np.float32)
    rgb[..., 0] = c + 1.596 * e
    rgb[..., 1] = c - 0.392 * d - 0.813 * e
    rgb[..., 2] = c + 2.017 * d
    return np.clip(np.rint(rgb), 0, 255).astype(np.uint8)


def _rows(plane: np.ndarray, rows: int, row_bytes: int, stride: int) -> np.ndarray:
    """(rows, row_bytes) view of a 1-D plane whose rows are `stride` bytes apart."""
    need = (rows - 1) * stride + row_bytes
    if plane.size < need:
        raise ValueError(f"plane has {plane.size} bytes, needs {need}")
    return np.lib.stride_tricks.as_strided(plane, shape=(rows, row_bytes),
                                           strides=(stride, 1), writeable=False)


def _upsample(c: np.ndarray, h: int, w: int) -> np.ndarray:
    """2x2 chroma subsampled plane -> full size (nearest neighbour)."""
    return np.repeat(np.repeat(c, 2, axis=0), 2, axis=1)[:h, :w]


def to_rgb(fourcc: str, width: int, height: int, planes, strides) -> np.ndarray:
    """Converts one frame (1-D uint8 planes with their strides) to an (h, w, 3) RGB array."""
    w, h = width, height
    if fourcc == "YUYV":
        px = _rows(planes[0], h, w * 2, strides[0]).reshape(h, w // 2, 4)
        y = px[:, :, 0::2].reshape(h, w)
        u = np.repeat(px[:, :, 1], 2, axis=1)
        v = np.repeat(px[:, :, 3], 2, axis=1)
        return yuv_to_rgb(y, u, v)
    if fourcc == "YU12":  # I420: Y, then U (Cb), then V (Cr), chroma 2x2 subsampled
        cw, ch = (w + 1) // 2, (h + 1) // 2
        y = _rows(planes[0], h, w, strides[0])
        u = _upsample(_rows(planes[1], ch, cw, strides[1]), h, w)
        v = _upsample(_rows(planes[2], ch, cw, strides[2]), h, w)
        return yuv_to_rgb(y, u, v)
    if fourcc == "NV12":  # Y, then interleaved Cb,Cr
        cw, ch = (w + 1) // 2, (h + 1) // 2
        y = _rows(planes[0], h, w, strides[0])
        uv = _rows(planes[1], ch, cw * 2, strides[1]).reshape(ch, cw, 2)
        return yuv_to_rgb(y, _upsample(uv[:, :, 0], h, w), _upsample(uv[:, :, 1], h, w))
    if fourcc == "RGB3":
        return np.ascontiguousarray(_rows(planes[0], h, w * 3, strides[0]).reshape(h, w, 3))
    if fourcc == "BGR3":
        bgr = _rows(planes[0], h, w * 3, strides[0]).reshape(h, w, 3)
        return np.ascontiguousarray(bgr[..., ::-1])
    if fourcc == "GREY":
        g = _rows(planes[0], h, w, strides[0])
        return np.repeat(g[:, :, None], 3, axis=2)
    raise ValueError(f"no RGB conversion for {fourcc}")


