#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the seed corpus of the MJPEG fuzz target (Tests/fuzz/corpus/mjpeg/).

Small JPEGs at the sizes the tests use, encoded by TurboJPEG (through ctypes,
libturbojpeg.so.0 from libturbojpeg0): 4:2:0, 4:2:2, 4:4:4, 4:4:0, 4:1:1 and
grey, an odd size, a UVC-style frame without DHT, a progressive one (its own
optimized tables), frames with stray bytes before markers.
Deterministic; run it again only to change the corpus (keep it < 200 KB).
"""
import ctypes, os, random, sys

tj = ctypes.CDLL("libturbojpeg.so.0")
tj.tjInitCompress.restype = ctypes.c_void_p
tj.tjCompress2.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                           ctypes.c_int, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_ulong),
                           ctypes.c_int, ctypes.c_int, ctypes.c_int]
tj.tjFree.argtypes = [ctypes.c_void_p]
TJPF_RGB = 0
SAMP = {"420": 2, "422": 1, "444": 0, "gray": 3, "440": 4, "411": 5}


def picture(w, h, seed):
    rnd = random.Random(seed)
    out = bytearray(3 * w * h)
    for y in range(h):
        for x in range(w):
            i = 3 * (y * w + x)
            n = rnd.randint(-8, 8)
            out[i] = max(0, min(255, 30 + 190 * x // max(w - 1, 1) + n))
            out[i + 1] = max(0, min(255, 40 + 170 * y // max(h - 1, 1) + n))
            out[i + 2] = 60 + 120 * ((x // 16 + y // 16) % 2)
    return bytes(out)


def jpeg(w, h, samp, quality=75, seed=1, flags=0):
    handle = tj.tjInitCompress()
    buf, size = ctypes.c_void_p(), ctypes.c_ulong(0)
    rc = tj.tjCompress2(handle, picture(w, h, seed), w, 3 * w, h, TJPF_RGB, ctypes.byref(buf),
                        ctypes.byref(size), SAMP[samp], quality, flags)
    assert rc == 0
    data = ctypes.string_at(buf, size.value)
    tj.tjFree(buf)
    return data


def segments(data):
    """(offset, marker, length with the marker) of each segment up to SOS."""
    out, i = [], 2
    while i + 4 <= len(data) and data[i] == 0xFF:
        m, n = data[i + 1], 2 + (data[i + 2] << 8 | data[i + 3])
        out.append((i, m, n))
        if m == 0xDA:
            break
        i += n
    return out


def insert(data, junk, marker):
    at = len(data) - 2 if marker == 0xD9 else next(o for o, m, _ in segments(data) if m == marker)
    return data[:at] + junk + data[at:]


def without_dht(data):
    for o, m, n in reversed(segments(data)):
        if m == 0xC4:
            data = data[:o] + data[o + n:]
    return data


def main():
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "mjpeg")
    os.makedirs(out, exist_ok=True)
    files = {
        "64x48_420.jpg": jpeg(64, 48, "420"),
        "64x48_422.jpg": jpeg(64, 48, "422"),
        "64x48_444.jpg": jpeg(64, 48, "444"),
        "64x48_gray.jpg": jpeg(64, 48, "gray"),
        "64x48_440.jpg": jpeg(64, 48, "440"),
        "64x48_411.jpg": jpeg(64, 48, "411"),
        "33x17_420.jpg": jpeg(33, 17, "420"),
        "16x16_422.jpg": jpeg(16, 16, "422"),
        "320x240_422.jpg": jpeg(320, 240, "422", quality=50),
        "320x240_420_uvc_no_dht.jpg": without_dht(jpeg(320, 240, "420", quality=50, seed=2)),
        "64x48_422_stray_before_eoi.jpg": insert(jpeg(64, 48, "422"), b"\x12\x34", 0xD9),
        "64x48_420_progressive.jpg": jpeg(64, 48, "420", flags=16384),  # TJFLAG_PROGRESSIVE: own tables
        "64x48_420_stray_before_dqt.jpg": insert(jpeg(64, 48, "420"), b"\x00\xff\x00\x55", 0xDB),
    }
    for name, data in files.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    total = sum(len(d) for d in files.values())
    print(f"{len(files)} files, {total} bytes in {out}")
    return 0 if total < 200_000 else 1


if __name__ == "__main__":
    sys.exit(main())
