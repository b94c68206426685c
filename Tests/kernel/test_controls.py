# SPDX-License-Identifier: MIT
"""S27/S28: vivid's real controls through camcore (the Python binding on the C ABI),
checked against the kernel's own view (`v4l2-ctl`, another file handle).

vivid's user controls (drivers/media/test-drivers/vivid/vivid-ctrls.c): brightness
0..255, gain in an auto cluster with autogain (inactive and volatile while
autogain is on), a read-only 32-bit integer, a menu skipping index 2, an integer
menu skipping index 1, a button, 64-bit and bitmask controls. vivid has no control
with a step above 1, so rounding off the step is tested in Swift
(Tests/CamCoreTests/Controls/ControlTests.swift) against the kernel's ROUND_TO_RANGE.
Every test puts back what it changed (later tests check vivid's pixels).
"""
from __future__ import annotations

import fcntl
import re
import struct
import threading
import time

import pytest

import v4l2probe as v4l

CID_BUTTON = 0x0098F900
CID_BOOLEAN = 0x0098F901
CID_INT32 = 0x0098F902
CID_INT64 = 0x0098F903
CID_MENU = 0x0098F904
CID_STRING = 0x0098F905
CID_BITMASK = 0x0098F906
CID_INTMENU = 0x0098F907
CID_RO_INT32 = 0x0098F90C
CID_HUE = 0x00980903


@pytest.fixture
def vivid(vivid_webcam, camcore):
    """(manager, device, capturer) on the first vivid webcam; controls restored after."""
    with camcore.Manager() as m:
        devices = m.devices()
        assert devices and devices[0].driver == "vivid", devices
        dev = devices[0]
        with m.open(dev.id) as cap:
            before = {c.id: c.listed_value for c in cap.controls()
                      if not (c.read_only or c.write_only or c.volatile) and c.type not in ("button", "string")}
            yield m, dev, cap
            cap.on_control_changed(None)
            cap.set_control(camcore.CID_AUTOGAIN, 1)
            for cid, value in before.items():
                try:
                    cap.set_control(cid, value)
                except camcore.CamcoreError:
                    pass


class Events:
    """Collects ControlChange events (they arrive on camcore's control thread)."""

    def __init__(self):
        self.items = []
        self.cond = threading.Condition()
        self.threads = set()

    def __call__(self, change):
        with self.cond:
            self.items.append(change)
            self.threads.add(threading.get_ident())
            self.cond.notify_all()

    def wait_for(self, pred, timeout=10.0):
        end = time.monotonic() + timeout
        with self.cond:
            while True:
                hit = [e for e in self.items if pred(e)]
                if hit:
                    return hit
                left = end - time.monotonic()
                if left <= 0:
                    return []
                self.cond.wait(left)


ctl_list = v4l.ctl_list


def test_S27_controls_match_the_kernel(vivid):
    _, dev, cap = vivid
    ours = v4l.check_controls_match(cap.controls(), dev.node)
    assert len(ours) >= 30, ours
    # Brightness, exactly (S27: id, name, type, min, max, step, default, value, flags).
    b = ours[0x00980900]
    assert (b.name, b.type, b.range, b.default, b.listed_value) == ("Brightness", "int", (0, 255, 1), 128, 128)
    assert b.flags_names == ["slider"] and b.menu == []
    assert cap.get_control(0x00980900) == 128
    assert cap.control("brightness").value == 128


def test_S27_set_brightness_and_out_of_range(vivid, camcore):
    _, dev, cap = vivid
    b = cap.control(camcore.CID_BRIGHTNESS)
    assert b.set(200) == 200
    assert b.value == 200
    assert ctl_list(dev.node)[0x00980900]["value"] == "200"  # the driver holds it
    for bad in (256, -1, 1 << 40):
        with pytest.raises(camcore.InvalidArgError) as e:
            b.value = bad
        assert e.value.status == camcore.E_INVALID_ARG
        assert f"value {bad} is out of range for control 'Brightness' (0x00980900): " \
               "minimum 0, maximum 255, step 1" in e.value.detail
    assert b.value == 200  # never clamped silently
    # The 32-bit integer: its full range, and one past it.
    i32 = cap.control(CID_INT32)
    assert i32.range == (-(1 << 31), (1 << 31) - 1, 1)
    assert i32.set((1 << 31) - 1) == (1 << 31) - 1
    assert i32.set(-(1 << 31)) == -(1 << 31)
    with pytest.raises(camcore.InvalidArgError) as e:
        i32.set(1 << 31)
    assert "maximum 2147483647" in e.value.detail
    assert i32.value == -(1 << 31)
    # Hue has a negative minimum.
    assert cap.set_control(CID_HUE, -100) == -100
    with pytest.raises(camcore.InvalidArgError):
        cap.set_control(CID_HUE, -129)


def test_S27_gain_inactive_under_autogain_then_writable_with_event(vivid, camcore):
    _, dev, cap = vivid
    autogain = cap.control(camcore.CID_AUTOGAIN)
    gain = cap.control(camcore.CID_GAIN)
    assert (autogain.type, autogain.listed_value) == ("bool", 1)
    assert "update" in autogain.flags_names
    assert gain.inactive and gain.volatile, gain
    assert gain.range == (0, 255, 1) and gain.default == 100
    with pytest.raises(camcore.StateError) as e:
        gain.set(50)
    assert "'Gain' (0x00980913) is inactive" in e.value.detail
    assert "while 'Gain, Automatic' (0x00980912) is on" in e.value.detail, e.value.detail
    assert "turn that off first" in e.value.detail

    events = Events()
    cap.on_control_changed(events)
    assert autogain.set(0) == 0
    got = events.wait_for(lambda ch: ch.id == camcore.CID_GAIN and ch.flags_changed)
    assert got, f"no flags event for gain; events: {events.items}"
    assert not got[-1].inactive and not (got[-1].flags & camcore.CONTROL_FLAG_VOLATILE)
    assert events.wait_for(lambda ch: ch.id == camcore.CID_AUTOGAIN and ch.value_changed and ch.value == 0)
    assert threading.get_ident() not in events.threads  # delivered on camcore's thread
    fresh = gain.refresh()
    assert not fresh.inactive and not fresh.volatile
    assert fresh.set(77) == 77
    assert gain.value == 77
    assert events.wait_for(lambda ch: ch.id == camcore.CID_GAIN and ch.value_changed and ch.value == 77)
    # Auto again: gain inactive again, reported.
    n = len(events.items)
    autogain.value = 1
    assert events.wait_for(lambda ch: ch.id == camcore.CID_GAIN and ch.flags_changed and ch.inactive)
    assert len(events.items) > n
    with pytest.raises(camcore.StateError):
        gain.set(10)


def test_S27_read_only_integer(vivid, camcore):
    _, _, cap = vivid
    ro = cap.control(CID_RO_INT32)
    assert ro.name == "Read-Only Integer 32 Bits" and ro.read_only
    assert ro.range == (0, 255, 1)
    assert 0 <= ro.value <= 255
    with pytest.raises(camcore.NotSupportedError) as e:
        ro.set(1)
    assert "'Read-Only Integer 32 Bits' (0x0098f90c) is read-only" in e.value.detail


def test_S27_menu_with_skipped_items(vivid, camcore):
    _, _, cap = vivid
    menu = cap.control(CID_MENU)
    assert (menu.type, menu.range[:2], menu.default) == ("menu", (1, 4), 3)
    assert menu.menu == [camcore.MenuItem(1, "Menu Item 1", 1), camcore.MenuItem(3, "Menu Item 3", 3),
                         camcore.MenuItem(4, "Menu Item 4", 4)]
    for bad in (0, 2, 5):
        with pytest.raises(camcore.InvalidArgError) as e:
            menu.set(bad)
        assert "valid indices: 1 (Menu Item 1), 3 (Menu Item 3), 4 (Menu Item 4)" in e.value.detail
    assert menu.set(4) == 4 and menu.value == 4
    assert menu.set("Menu Item 1") == 1 and menu.value == 1
    im = cap.control(CID_INTMENU)
    assert im.type == "intmenu" and im.range[:2] == (1, 8)
    assert [(i.index, i.value) for i in im.menu] == [(2, 2), (3, 3), (4, 5), (5, 8), (6, 13), (7, 21), (8, 42)]
    assert [i.name for i in im.menu][:3] == ["2", "3", "5"]
    with pytest.raises(camcore.InvalidArgError):
        im.set(1)  # skipped
    assert im.set(8) == 8 and im.value == 8


def test_S27_button_int64_bitmask_boolean(vivid, camcore):
    _, _, cap = vivid
    button = cap.control(CID_BUTTON)
    assert button.type == "button" and button.write_only
    assert set(button.flags_names) == {"write-only", "execute-on-write"}
    with pytest.raises(camcore.NotSupportedError) as e:
        button.value
    assert "write-only" in e.value.detail
    button.press()
    assert cap.set_control(CID_BUTTON, 12345) == 0

    i64 = cap.control(CID_INT64)
    assert i64.type == "int64" and i64.range == (-(1 << 63), (1 << 63) - 1, 1)
    for v in ((1 << 40) + 5, -(1 << 62), (1 << 63) - 1):
        assert i64.set(v) == v and i64.value == v

    bm = cap.control(CID_BITMASK)
    assert bm.type == "bitmask" and bm.maximum == 0x80402010 and bm.default == 0x80002000
    assert bm.listed_value == 0x80002000  # unsigned, not -2147475456
    assert bm.set(0x80400010) == 0x80400010 and bm.value == 0x80400010
    with pytest.raises(camcore.InvalidArgError) as e:
        bm.set(0x1)
    assert "valid bits: 0x80402010" in e.value.detail

    bo = cap.control(CID_BOOLEAN)
    assert bo.type == "bool" and bo.listed_value == 1
    assert bo.set(False) == 0 and bo.value == 0
    with pytest.raises(camcore.InvalidArgError):
        bo.set(2)

    s = cap.control(CID_STRING)
    assert s.type == "string" and (s.minimum, s.maximum, s.step) == (2, 4, 1)
    with pytest.raises(camcore.NotSupportedError):
        cap.get_control(0x0098F908)  # an array control: not wrapped, reachable through the fd


def test_S27_string_control(vivid, camcore):
    """vivid's 'String' (2..4 bytes): read, set, seen by the kernel through
    another fd; lengths outside the range, a too-small buffer and string calls
    on a number control are refused with the valid lengths, nothing cut short."""
    import ctypes

    m, dev, cap = vivid
    s = cap.control(CID_STRING)
    before = s.value
    assert isinstance(before, str) and 2 <= len(before.encode()) <= 4, repr(before)
    try:
        assert s.set("abc") == "abc" and s.value == "abc"
        assert cap.get_control_string(CID_STRING, 4) == "abc"
        kernel = ctl_list(dev.node)[CID_STRING]
        assert kernel["type"] == "str" and "abc" in kernel.get("value", ""), kernel
        cap.set_control_string(CID_STRING, "wxyz")
        assert s.value == "wxyz"
        for bad in ("a", "abcde", ""):
            with pytest.raises(camcore.InvalidArgError) as e:
                s.set(bad)
            assert "length from 2 to 4" in e.value.detail, e.value.detail
            assert s.value == "wxyz"
        with pytest.raises(camcore.InvalidArgError):
            s.set(12)
        # Bytes go through as they are, in both directions: not UTF-8 is not
        # rewritten (and a maximum + 1 buffer always holds the value).
        h = cap._h()
        assert camcore._lib.camcore_capturer_set_control_string(h, CID_STRING, b"\xff\xfe\xfd") == 0
        raw = ctypes.create_string_buffer(5)
        assert camcore._lib.camcore_capturer_get_control_string(h, CID_STRING, raw, 5) == 0
        assert raw.raw == b"\xff\xfe\xfd\x00\x00"
        assert s.value == "\ufffd\ufffd\ufffd"
        with pytest.raises(camcore.InvalidArgError) as e:
            s.set("ab\0cd")  # would reach the driver as "ab": refused instead
        assert "NUL" in str(e.value)
        cap.set_control_string(CID_STRING, "wxyz")
        # The C call with a buffer too small for the value: refused, size named.
        buf = ctypes.create_string_buffer(b"keep", 4)
        rc = camcore._lib.camcore_capturer_get_control_string(cap._h(), CID_STRING, buf, 4)
        assert rc == camcore.E_INVALID_ARG and buf.raw == b"keep"
        assert "needs 5" in camcore._lib.camcore_last_error_message().decode()
        # String calls on a number control, number calls on the string control.
        with pytest.raises(camcore.NotSupportedError) as e:
            cap.set_control_string(camcore.CID_BRIGHTNESS, "12")
        assert "not a string" in e.value.detail
        with pytest.raises(camcore.NotSupportedError):
            cap.get_control_string(camcore.CID_BRIGHTNESS)
        with pytest.raises(camcore.NotSupportedError):
            cap.get_control(CID_STRING)
        with pytest.raises(camcore.NotSupportedError):
            cap.get_control_string(0x0098F9FF)  # no such control
    finally:
        cap.set_control_string(CID_STRING, before)
    assert s.value == before


def test_S27_change_from_another_process_reported(vivid, camcore):
    _, dev, cap = vivid
    events = Events()
    cap.on_control_changed(events)
    v4l.v4l2_ctl("-d", dev.node, "-c", "contrast=99")
    got = events.wait_for(lambda ch: ch.id == camcore.CID_CONTRAST and ch.value == 99)
    assert got and got[0].value_changed and not got[0].flags_changed
    assert cap.get_control(camcore.CID_CONTRAST) == 99
    # Removed: no callback once on_control_changed(None) returned.
    cap.on_control_changed(None)
    n = len(events.items)
    v4l.v4l2_ctl("-d", dev.node, "-c", "contrast=100")
    time.sleep(0.5)
    assert len(events.items) == n
    assert cap.get_control(camcore.CID_CONTRAST) == 100


def test_S27_controls_while_streaming(vivid, camcore):
    _, _, cap = vivid
    events = Events()
    cap.on_control_changed(events)
    seen = []
    cap.start("YUYV", 640, 480, fps=25, on_frame=lambda f: seen.append(f.sequence))
    try:
        assert cap.set_control(camcore.CID_SATURATION, 10) == 10
        assert events.wait_for(lambda ch: ch.id == camcore.CID_SATURATION and ch.value == 10)
        deadline = time.monotonic() + 10
        while len(seen) < 10 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(seen) >= 10 and seen == sorted(seen)
    finally:
        cap.stop()


def test_S27_callback_rules(vivid, camcore):
    """Calls back into camcore from the control callback: get/set work;
    removing the callback from inside it is refused (WouldDeadlockError),
    closing from inside it closes once it returns (close cannot fail) and no
    callback follows."""
    m, dev, _ = vivid
    c2 = m.open(dev.id)         # the fixture's capturer restores the controls afterwards
    results = {}
    calls = []
    done = threading.Event()

    def cb(ch):
        if ch.id != camcore.CID_CONTRAST:
            return
        calls.append(ch.value)
        if done.is_set():
            return
        results["get"] = c2.get_control(camcore.CID_CONTRAST)
        results["set"] = c2.set_control(camcore.CID_SATURATION, 42)
        for name, call in (("remove", lambda: c2.on_control_changed(None)), ("close", c2.close)):
            try:
                call()
                results[name] = "returned"
            except camcore.WouldDeadlockError:
                results[name] = "WouldDeadlockError"
        results["closed"] = c2.closed
        done.set()

    c2.on_control_changed(cb)
    v4l.v4l2_ctl("-d", dev.node, "-c", "contrast=33")
    assert done.wait(10), (results, calls)
    assert results == {"get": 33, "set": 42, "remove": "WouldDeadlockError", "close": "returned",
                       "closed": True}, results
    v4l.v4l2_ctl("-d", dev.node, "-c", "contrast=34")
    time.sleep(0.5)             # a callback would come within milliseconds
    assert calls == [33], calls


def test_S28_fd_is_the_devices(vivid):
    _, dev, cap = vivid
    fd = cap.fd
    assert fd >= 0
    buf = bytearray(struct.calcsize("16s32s32sIII3I"))
    fcntl.ioctl(fd, v4l.VIDIOC_QUERYCAP, buf)
    driver, card, bus = struct.unpack_from("16s32s32s", buf)
    assert driver.rstrip(b"\0") == b"vivid" and bus.rstrip(b"\0").decode() == dev.bus_info


def test_S27_close_stops_callbacks_and_frees_the_fd(vivid_webcam, camcore):
    with camcore.Manager() as m:
        dev = m.devices()[0]
        cap = m.open(dev.id)
        events = Events()
        cap.on_control_changed(events)
        v4l.v4l2_ctl("-d", dev.node, "-c", "contrast=120")
        assert events.wait_for(lambda ch: ch.id == camcore.CID_CONTRAST and ch.value == 120)
        cap.close()
        n = len(events.items)
        v4l.v4l2_ctl("-d", dev.node, "-c", "contrast=128")
        time.sleep(0.5)
        assert len(events.items) == n
        assert not [f for f in v4l.open_v4l_fds() if f.endswith(dev.node)], v4l.open_v4l_fds()
