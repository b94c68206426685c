# SPDX-License-Identifier: MIT
"""S5: camcore's format list equals what the driver enumerates.

The reference is `v4l2-ctl --list-formats` / `--list-formats-ext` (raw
VIDIOC_ENUM_FMT, ENUM_FRAMESIZES, ENUM_FRAMEINTERVALS, no libv4l), checked
against a direct ENUM_FMT ioctl as well.
"""
from __future__ import annotations

from fractions import Fraction

import v4l2probe as v4l


def check_formats_match_driver(camcore, device) -> int:
    """Asserts S5 for one device; returns the number of camcore format entries."""
    with camcore.Manager() as m:
        formats = m.formats(device.id)
    node = device.node
    buf_type = v4l.capture_buf_type(v4l.querycap(node).device_caps)  # the driver's, not camcore's

    # FourCCs: same set, in the driver's ENUM_FMT order.
    ctl = v4l.list_formats(node)
    ioctl = v4l.enum_fmt(node, buf_type)
    assert [f for f, _ in ctl] == [f for f, _flags, _d in ioctl], "v4l2-ctl and ENUM_FMT disagree"
    order = []
    for f in formats:
        if f.fourcc_code not in order:
            order.append(f.fourcc_code)
    assert order == [f for f, _ in ctl], (
        f"fourccs: camcore {[camcore.fourcc_str(c) for c in order]} "
        f"!= driver {[camcore.fourcc_str(c) for c, _ in ctl]}")
    # Entries of one FourCC are contiguous.
    runs = [f.fourcc_code for i, f in enumerate(formats)
            if i == 0 or formats[i - 1].fourcc_code != f.fourcc_code]
    assert runs == order

    # Sizes and rates.
    ext = {f.fourcc: f for f in v4l.list_formats_ext(node)}
    flags = {f: fl for f, fl, _d in ioctl}
    descs = {f: d for f, _fl, d in ioctl}
    for code in order:
        mine = [f for f in formats if f.fourcc_code == code]
        ref = ext[code]
        name = camcore.fourcc_str(code)
        for f in mine:
            assert f.fourcc == name
            assert f.description == descs[code]
            assert ref.text.startswith(f.description), (f.description, ref.text)
            assert f.compressed == bool(flags[code] & 0x1)
        if not ref.sizes:  # the driver does not enumerate sizes
            continue
        assert len(mine) == len(ref.sizes), f"{name}: {len(mine)} entries, driver has {len(ref.sizes)} sizes"
        for f, s in zip(mine, ref.sizes):
            where = f"{name} {s.width}x{s.height}"
            assert f.size_kind == s.kind, where
            assert (f.width, f.height) == (s.width, s.height), where
            assert (f.min_width, f.max_width, f.min_height, f.max_height) == \
                (s.min_width, s.max_width, s.min_height, s.max_height), where
            if s.kind == "discrete":
                assert (f.step_width, f.step_height) == (0, 0), where
            else:
                assert (f.step_width, f.step_height) == (s.step_width, s.step_height), where
            assert f.rate_kind == s.rate_kind, where
            if s.rate_kind == "discrete":
                got = [f"{float(r):.3f}" for r in f.rates]
                want = sorted(s.fps, key=float, reverse=True)
                assert got == want, f"{where}: rates {got} != driver {want}"
                assert all(isinstance(r, Fraction) for r in f.rates)
                assert f.max_fps == f.rates[0] and f.min_fps == f.rates[-1], where
            elif s.rate_kind in ("stepwise", "continuous"):
                lo, hi = sorted(float(x) for x in s.fps)
                assert (f"{float(f.min_fps):.3f}", f"{float(f.max_fps):.3f}") == \
                    (f"{lo:.3f}", f"{hi:.3f}"), where
    return len(formats)


def test_S5_formats_match_enum_fmt(vivid_webcam, camcore):
    with camcore.Manager() as m:
        devices = m.devices()
    assert len(devices) == 2
    for d in devices:
        n = check_formats_match_driver(camcore, d)
        # vivid's webcam input: dozens of formats, each at 6 discrete sizes.
        assert n >= 6 * 20, f"{d.node}: only {n} format entries"


def test_S5_webcam_sizes_and_rates(vivid_webcam, camcore):
    """Exact values from vivid's source: webcam_sizes[] and webcam_intervals[], where
    size i offers the first 2 * (6 - i) intervals (bigger sizes, lower top rates)."""
    with camcore.Manager() as m:
        d = m.devices()[0]
        yuyv = [f for f in m.formats(d.id) if f.fourcc == "YUYV"]
    sizes = [(320, 180), (640, 360), (640, 480), (1280, 720), (1920, 1080), (3840, 2160)]
    assert [(f.width, f.height) for f in yuyv] == sizes
    fps = [Fraction(1), Fraction(2), Fraction(4), Fraction(5), Fraction(10), Fraction(25, 2),
           Fraction(15), Fraction(25), Fraction(30), Fraction(40), Fraction(50), Fraction(60)]
    for i, f in enumerate(yuyv):
        want = sorted(fps[:2 * (6 - i)], reverse=True)
        assert f.size_kind == "discrete" and f.rate_kind == "discrete"
        assert f.rates == want, f"{f.width}x{f.height}"
        assert (f.min_fps, f.max_fps) == (want[-1], want[0])
