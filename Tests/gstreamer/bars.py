#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks that a PNG shows camcore's synthetic colour bars.

    bars.py FILE.png [--variant front|back]

The synthetic camera draws eight vertical bars (white, yellow, cyan, green,
magenta, red, blue, black in BT.601 limited-range YUV), sliding left 4 px a
frame, with a white square bouncing over them. The check takes the median
of each column over all rows (the square covers an eighth of the rows, so
the median is the bar), names each column by the nearest expected colour,
and wants: nearly every column close to a bar colour, all eight colours,
and the bars in their cyclic order: white, yellow, ... black from the left
for the front camera ("synthetic:0"), the other way (black, blue, ...
white) for the back one ("synthetic:1"), so a flip shows.

Decodes the PNG with zlib and numpy only (8-bit RGB or RGBA, not
interlaced). Exit 0 when the bars are there; prints what it saw either way.
"""
import struct
import sys
import zlib

import numpy as np

BARS_YUV = [(235, 128, 128), (210, 16, 146), (170, 166, 16), (145, 54, 34),
            (106, 202, 222), (81, 90, 240), (41, 240, 110), (16, 128, 128)]
NAMES = ["white", "yellow", "cyan", "green", "magenta", "red", "blue", "black"]


def rgb_of(y, u, v):
    """BT.601 limited range to 8-bit RGB, clamped."""
    c, d, e = y - 16, u - 128, v - 128
    r = 1.164 * c + 1.596 * e
    g = 1.164 * c - 0.392 * d - 0.813 * e
    b = 1.164 * c + 2.017 * d
    return tuple(int(min(255, max(0, round(x)))) for x in (r, g, b))


def expected():
    return [rgb_of(*yuv) for yuv in BARS_YUV]


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError(f"unsupported PNG: depth {depth} colour type {ctype} interlace {interlace}")
    ch = 3 if ctype == 2 else 4
    raw = np.frombuffer(zlib.decompress(idat), dtype=np.uint8)
    stride = w * ch
    out = np.zeros((h, stride), dtype=np.int32)
    prev = np.zeros(stride, dtype=np.int32)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)].astype(np.int32)
        if f == 0:
            cur = line
        elif f == 2:
            cur = (line + prev) & 255
        else:
            cur = np.zeros(stride, dtype=np.int32)
            for i in range(stride):
                a = cur[i - ch] if i >= ch else 0
                b = prev[i]
                c = prev[i - ch] if i >= ch else 0
                if f == 1:
                    p = a
                elif f == 3:
                    p = (a + b) >> 1
                else:
                    pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                    p = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                cur[i] = (line[i] + p) & 255
        out[y] = cur
        prev = cur
    return out.reshape(h, w, ch)[:, :, :3]


def check(img, variant="front", tol=48):
    """Returns (ok, description)."""
    h, w, _ = img.shape
    cols = np.median(img, axis=0)                       # w x 3
    exp = np.array(expected(), dtype=np.float64)         # 8 x 3
    dist = np.linalg.norm(cols[:, None, :] - exp[None, :, :], axis=2)
    label = dist.argmin(axis=1)
    near = dist.min(axis=1) <= tol
    runs = []
    for x in range(w):
        if runs and runs[-1][0] == label[x]:
            runs[-1][1] += 1
        else:
            runs.append([label[x], 1])
    big = [r for r in runs if r[1] >= max(2, w // 32)]
    seq = [int(r[0]) for r in big]
    step = 7 if variant == "back" else 1
    ordered = all((b - a) % 8 == step for a, b in zip(seq, seq[1:]))
    seen = "%dx%d, columns near a bar colour %.0f%%, bars left to right: %s" % (
        w, h, 100.0 * near.mean(),
        " ".join("%s(%d px, rgb %s)" % (NAMES[r[0]], r[1],
                 tuple(int(v) for v in cols[sum(x[1] for x in runs[:runs.index(r)]) + r[1] // 2]))
                 for r in big))
    ok = near.mean() >= 0.9 and len(set(seq)) == 8 and ordered
    return ok, seen


def main():
    args = sys.argv[1:]
    variant = "front"
    if "--variant" in args:
        i = args.index("--variant")
        variant = args[i + 1]
        del args[i:i + 2]
    ok, seen = check(read_png(args[0]), variant)
    print(("bars ok (%s): " % variant if ok else "NO %s bars: " % variant) + seen)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
