# SPDX-License-Identifier: MIT
"""S27/S28 controls through the Python binding, on the host's synthetic camera
(which has no controls), plus the ctypes mirror of the controls section of
camcore.h. vivid's real controls are tested in Tests/kernel/test_controls.py."""
import ctypes
import re
import shutil
import subprocess
import threading

import pytest

import camcore
from conftest import ROOT

HEADER = ROOT / "include" / "camcore.h"
STRUCTS = ["camcore_menu_item", "camcore_control_info", "camcore_control_list",
           "camcore_control_callbacks"]


def test_S29_control_structs_match_the_header(tmp_path):
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler")
    lines = ['#include <stdio.h>', '#include <stddef.h>', '#include "camcore.h"', 'int main(void) {']
    for name in STRUCTS:
        lines.append(f'  printf("{name} size %zu\\n", sizeof({name}));')
        for field, _ in getattr(camcore._raw, name)._fields_:
            lines.append(f'  printf("{name} {field} %zu\\n", offsetof({name}, {field}));')
    lines += ["  return 0;", "}"]
    (tmp_path / "l.c").write_text("\n".join(lines))
    subprocess.run([cc, "-std=c99", "-I", str(ROOT / "include"), str(tmp_path / "l.c"), "-o",
                    str(tmp_path / "l")], check=True, capture_output=True)
    out = subprocess.run([str(tmp_path / "l")], check=True, capture_output=True, text=True).stdout
    want = {tuple(l.split()[:2]): int(l.split()[2]) for l in out.splitlines()}
    for name in STRUCTS:
        st = getattr(camcore._raw, name)
        assert ctypes.sizeof(st) == want[(name, "size")], name
        for field, _ in st._fields_:
            assert getattr(st, field).offset == want[(name, field)], (name, field)


def test_S27_control_constants_match_the_header():
    h = HEADER.read_text()
    macros = dict(re.findall(r"#define (CAMCORE_(?:CID|CONTROL)_\w+)\s+(0x[0-9a-fA-F]+|\d+)u?\b", h))
    assert len(macros) >= 17 + 12 + 3
    for cname, value in macros.items():
        assert getattr(camcore, cname[len("CAMCORE_"):]) == int(value, 0), cname
    # The values are V4L2's (videodev2.h / v4l2-controls.h).
    assert camcore.CID_BRIGHTNESS == 0x00980900 and camcore.CID_GAIN == 0x00980913
    assert camcore.CID_EXPOSURE_ABSOLUTE == 0x009A0902 and camcore.CID_ZOOM_ABSOLUTE == 0x009A090D
    assert camcore.CONTROL_FLAG_INACTIVE == 0x10 and camcore.CONTROL_FLAG_VOLATILE == 0x80


def test_S27_control_key_names_like_v4l2_ctl():
    assert camcore.control_key("Brightness") == "brightness"
    assert camcore.control_key("Gain, Automatic") == "gain_automatic"
    assert camcore.control_key("Integer 32 Bits") == "integer_32_bits"
    assert camcore.control_key("Exposure Time, Absolute") == "exposure_time_absolute"
    assert camcore.control_key("Read-Only Integer 32 Bits") == "read_only_integer_32_bits"


def test_S27_synthetic_camera_has_no_controls(cap):
    assert cap.controls() == []
    with pytest.raises(camcore.NotSupportedError) as e:
        cap.control("brightness")
    assert "no control 'brightness'" in e.value.message
    with pytest.raises(camcore.NotSupportedError) as e:
        cap.control(camcore.CID_GAIN)
    assert "0x00980913" in e.value.message


def test_S27_synthetic_get_and_set_are_not_supported(cap):
    with pytest.raises(camcore.NotSupportedError) as e:
        cap.get_control(camcore.CID_BRIGHTNESS)
    assert e.value.status == camcore.E_NOT_SUPPORTED
    assert "no controls" in e.value.detail
    with pytest.raises(camcore.NotSupportedError):
        cap.set_control(camcore.CID_BRIGHTNESS, 10)
    with pytest.raises(camcore.NotSupportedError) as e:
        cap.get_control_string(0x0098F905)
    assert "no controls" in e.value.detail
    with pytest.raises(camcore.NotSupportedError):
        cap.set_control_string(0x0098F905, "abc")
    with pytest.raises(camcore.InvalidArgError):
        cap.set_control_string(0x0098F905, 12)  # not a str: refused before the library
    # Bad arguments are camcore errors, never TypeError/ValueError/MemoryError.
    for args in [(None,), ("abc",), (1.5,), (-1,), (2**33,), (1, 0), (1, -3), (1, 2**40), (1, 1.5)]:
        with pytest.raises(camcore.InvalidArgError):
            cap.get_control_string(*args)
    for cid in [None, "abc", 1.5, -1, 2**33, True]:  # one id check for every control call
        with pytest.raises(camcore.InvalidArgError):
            cap.get_control(cid)
        with pytest.raises(camcore.InvalidArgError):
            cap.set_control(cid, 1)
    for text in ["a\0b", "\ud800", b"abc"]:
        with pytest.raises(camcore.InvalidArgError):
            cap.set_control_string(0x0098F905, text)
    with pytest.raises(camcore.NotSupportedError) as e:
        cap.set_control_string(0x0098F905, "x" * 1_000_000)
    assert len(str(e.value)) < 1000  # the text is not copied into the message
    # Also while streaming.
    cap.start(width=160, height=120, fps=60)
    try:
        assert cap.controls() == []
        with pytest.raises(camcore.NotSupportedError):
            cap.set_control(camcore.CID_CONTRAST, 1)
    finally:
        cap.stop()


def test_S27_synthetic_control_callback_accepted_never_called(cap):
    calls = []
    cap.on_control_changed(calls.append)
    frames = cap.capture(5, width=160, height=120, fps=60)
    assert len(frames) == 5
    cap.on_control_changed(None)
    assert calls == []


def test_S27_controls_after_close_raise_state(manager, synth_id):
    c = manager.open(synth_id)
    c.close()
    with pytest.raises(camcore.StateError):
        c.controls()
    with pytest.raises(camcore.StateError):
        c.get_control(camcore.CID_BRIGHTNESS)
    with pytest.raises(camcore.StateError):
        c.on_control_changed(None)


def test_S27_controls_from_many_threads(cap):
    errors = []

    def worker():
        try:
            for _ in range(50):
                assert cap.controls() == []
                try:
                    cap.get_control(camcore.CID_BRIGHTNESS)
                except camcore.NotSupportedError:
                    pass
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
