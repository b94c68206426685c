# SPDX-License-Identifier: MIT
"""Hostile and careless callers of the Python binding (SPEC S23, S29, S31).

Each test names the SPEC rule it checks. Uses that could crash the
interpreter (a numpy view read after its frame's buffer was freed) run in a
subprocess, so a segfault fails the test instead of killing pytest.
"""
import ctypes
import gc
import textwrap
import time

import numpy as np
import pytest

import camcore
from conftest import run_python, wait_until

# ---------------------------------------------------------------------------
# S23: numpy views of a borrowed frame used after the callback returned
# ---------------------------------------------------------------------------

# Runs one way of keeping something of a borrowed frame past its callback,
# then uses it after the capturer was stopped and closed and its buffers'
# memory was handed out again. Prints "ok" when the use either gave the
# frame's own pixels or raised a camcore error; a crash or other pixels fail.
KEEP_SCRIPT = textwrap.dedent(r"""
    import gc, sys, time
    import numpy as np
    import camcore

    way = sys.argv[1]
    fourcc, output = {"planes": ("I420", None), "converted": ("YUYV", "RGB24")}.get(
        way, ("YUYV", None))
    box, seen = {}, []

    def on_frame(f):
        seen.append(f.sequence)
        if "kept" in box:
            return
        box["planes"] = [f.plane(i).copy() for i in range(f.plane_count)]
        box["array"] = f.array.copy()
        if way in ("array", "converted"):
            box["kept"] = f.array
        elif way == "slice":
            box["kept"] = f.array[100:200, 50:300]
        elif way == "planes":
            box["kept"] = [f.plane(i) for i in range(f.plane_count)]
        elif way == "frame":
            box["kept"] = f
        elif way == "memoryview":
            box["kept"] = memoryview(f.plane(0))
        elif way == "copy_after":
            box["kept"] = f.plane(0)
        elif way == "retained_view":
            r = f.retain()
            box["kept"] = (r, r.array)

    with camcore.Manager(synthetic=True) as m:
        sid = [d.id for d in m.devices() if d.synthetic][0]
        cap = m.open(sid)
        cap.start(fourcc, 640, 480, fps=120, on_frame=on_frame, buffer_count=2, output=output)
        end = time.monotonic() + 20
        while len(seen) < 12 and time.monotonic() < end:  # the 2 buffers cycle
            time.sleep(0.005)
        cap.stop()
        cap.close()
    assert len(seen) >= 12, seen
    gc.collect()
    # Hand the freed memory out again, filled with a value no frame has.
    junk = [np.full(640 * 480 * 3, 0xA5, np.uint8) for _ in range(8)]

    kept = box["kept"]
    if way in ("array", "converted"):
        ok = np.array_equal(np.array(kept), box["array"])
    elif way == "slice":
        ok = np.array_equal(np.array(kept), box["array"][100:200, 50:300])
    elif way == "planes":
        ok = len(kept) == 3 and all(np.array_equal(np.array(k), c)
                                    for k, c in zip(kept, box["planes"]))
    elif way == "memoryview":
        ok = np.array_equal(np.asarray(kept), box["planes"][0])
    elif way == "copy_after":
        ok = np.array_equal(kept.copy(), box["planes"][0])
    elif way == "retained_view":
        r, view = kept
        r.release()  # the view still holds the buffer
        del r
        gc.collect()
        junk += [np.full(640 * 480 * 3, 0x5A, np.uint8) for _ in range(8)]
        ok = np.array_equal(np.array(view), box["array"])
    elif way == "frame":
        raised = []
        for use in (lambda: kept.sequence, lambda: kept.array, lambda: kept.plane(0),
                    kept.copy, kept.retain, lambda: kept.strides):
            try:
                use()
            except camcore.StateError as e:
                raised.append("callback returned" in str(e))
        ok = raised == [True] * 6 and kept.valid is False
    print("ok" if ok else "WRONG PIXELS")
""")

KEEP_WAYS = ["array", "slice", "planes", "frame", "memoryview", "copy_after", "converted",
             "retained_view"]


@pytest.mark.parametrize("way", KEEP_WAYS)
def test_S23_view_kept_past_the_callback_stays_valid_or_raises(way):
    r = run_python(["-c", KEEP_SCRIPT, way], timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == "ok", (
        f"{way}: rc={r.returncode} stdout={r.stdout!r} stderr={r.stderr[-2000:]!r}")


def test_S23_views_keep_their_buffer_until_collected(cap):
    """STYLE: a view keeps its frame retained, so views held past the callback
    hold capture buffers; dropping them gives the buffers back."""
    kept, count = [], [0]

    def on_frame(f):
        count[0] += 1
        if count[0] <= 2:
            kept.append(f.array[10:20])  # a slice is enough to keep the buffer

    cap.start("YUYV", 320, 240, fps=120, on_frame=on_frame, buffer_count=2)
    assert cap.format.buffer_count == 2
    assert wait_until(lambda: len(kept) == 2)
    time.sleep(0.2)
    before = count[0]
    time.sleep(0.3)
    assert count[0] == before == 2, "frames came while every buffer was held by a view"
    kept.clear()
    gc.collect()
    assert wait_until(lambda: count[0] > before + 3), "buffers did not come back"
    assert cap.stats.frames_dropped > 0  # meanwhile the camera dropped frames, it did not block
    cap.stop()


PUSH_SCRIPT = textwrap.dedent(r"""
    import gc
    import numpy as np
    import camcore

    kept = []
    with camcore.Manager(synthetic=True) as m:
        sid = [d.id for d in m.devices() if d.synthetic][0]
        with m.session(sid, width=64, height=48) as s:
            s.set_transmission_sink(
                lambda f: kept.append((f.array, f.plane(0)[:4], f.copy())))
            s.custom_source(True)
            s.start_transmission()
            for k in range(3):
                img = np.full(640 * 480 * 2, 10 + k, np.uint8)
                s.push_frame(img, "YUYV", 640, 480)
                del img
    gc.collect()
    junk = [np.full(640 * 480 * 2, 0xEE, np.uint8) for _ in range(8)]
    assert [int(a[0, 0, 0]) for a, _, _ in kept] == [10, 11, 12], kept
    for k, (a, head, copied) in enumerate(kept):
        assert a.shape == (480, 640, 2) and (a == 10 + k).all(), k
        assert list(head) == [10 + k] * 4, k
        assert np.array_equal(copied.array, a), k
    print("ok")
""")


def test_S21_view_of_a_pushed_frame_outlives_the_push():
    """S21/S23: a pushed frame is the app's memory (camcore cannot retain it); a
    view the sink keeps holds that memory instead, valid after push_frame returned."""
    r = run_python(["-c", PUSH_SCRIPT], timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == "ok", (
        f"rc={r.returncode} stdout={r.stdout!r} stderr={r.stderr[-2000:]!r}")


# ---------------------------------------------------------------------------
# S31: strings with an embedded NUL reach C as a shorter string
# ---------------------------------------------------------------------------

def test_S31_device_id_with_nul_is_refused(manager, synth_id):
    bad = synth_id + "\0junk"
    calls = [
        lambda: manager.open(bad),
        lambda: manager.formats(bad),
        lambda: manager.negotiate(bad),
        lambda: manager.format_for(bad, 640, 480, 30),
        lambda: manager.max_frame_rate(bad, "YUYV", 640, 480, 30),
        lambda: manager.session(bad),
        lambda: manager.open(bad.encode()),
        lambda: manager.open("\ud800"),  # not encodable as UTF-8
        lambda: manager.open(None),
        lambda: manager.open(5),
    ]
    for i, call in enumerate(calls):
        with pytest.raises(camcore.InvalidArgError) as e:
            call()
        assert e.value.status == camcore.E_INVALID_ARG, i
    with manager.session(synth_id, width=64, height=48) as s:
        with pytest.raises(camcore.InvalidArgError):
            s.select(bad)
        with pytest.raises(camcore.InvalidArgError):
            s.select(b"synthetic:0")  # bytes: refused like any non-str
    with manager.open(synth_id) as cap:  # the id itself still works
        assert cap.device_id == synth_id


# ---------------------------------------------------------------------------
# S29: strerror of a value that is not an int32
# ---------------------------------------------------------------------------

def test_S29_strerror_out_of_int32_is_unknown():
    # camcore_strerror takes an int; what does not fit one is an unknown code,
    # never a wrapped known one (2**32 wrapped to 0 read "CAMCORE_OK").
    for status in (2**32, 2**32 - 1, 2**32 - 12, 2**31, -(2**31) - 1, -(2**32) - 1, 2**64):
        assert camcore.strerror(status) == "unknown status", status
    assert camcore.strerror(2**31 - 1) == "unknown status"
    assert camcore.strerror(-(2**31)) == "unknown status"
    assert camcore.strerror(-1).startswith("CAMCORE_E_INVALID_ARG")
    err = camcore.error_for_status(2**32 - 1)  # would wrap to -1
    assert type(err) is camcore.CamcoreError and "unknown status" in err.message
    for bad in (1.5, "0", None):
        with pytest.raises(camcore.InvalidArgError):
            camcore.strerror(bad)


# ---------------------------------------------------------------------------
# S31: callbacks that are not callable
# ---------------------------------------------------------------------------

def test_S31_non_callable_callbacks_are_refused_at_the_call(manager, synth_id):
    def refused(call):
        with pytest.raises(camcore.InvalidArgError) as e:
            call()
        assert isinstance(e.value, TypeError) and e.value.status == camcore.E_INVALID_ARG
        assert "callable" in str(e.value)

    with manager.open(synth_id) as cap:
        refused(lambda: cap.start("YUYV", 160, 120, on_frame=42))
        refused(lambda: cap.start("YUYV", 160, 120, on_frame=print, on_error="log"))
        assert not cap.streaming  # refused before anything started
        refused(lambda: cap.on_control_changed(3))
    refused(lambda: manager.set_hotplug_callbacks(on_connected=object()))
    refused(lambda: manager.set_hotplug_callbacks(on_connected=print, on_disconnected=1))
    with manager.session(synth_id, width=64, height=48) as s:
        refused(lambda: s.set_transmission_sink("sink"))
        refused(lambda: s.add_preview(None))
        refused(lambda: s.add_preview(1))
        refused(lambda: s.set_capture_hook(1))
        refused(lambda: s.set_device_callbacks(on_selected=1))
        refused(lambda: s.set_device_callbacks(on_error=print, on_connected=[]))
        refused(lambda: setattr(s, "on_selected", 7))
        refused(lambda: s.flip(completion=5))
        st = s.state
        assert st.preview_count == 0 and not st.camera_on
        # None still means "no callback" where it did before.
        s.set_transmission_sink(None)
        s.set_capture_hook(None)
        s.set_device_callbacks()


# ---------------------------------------------------------------------------
# S31: 64-bit (and 32-bit) values that do not fit wrapped silently
# ---------------------------------------------------------------------------

def test_S31_push_frame_timestamp_and_sequence_out_of_range(manager, synth_id):
    got = []
    img = np.zeros(32 * 16 * 2, np.uint8)
    with manager.session(synth_id, width=64, height=48) as s:
        s.set_transmission_sink(lambda f: got.append((f.timestamp_ns, f.sequence)))
        s.custom_source(True)
        s.start_transmission()
        for kw in (dict(timestamp_ns=2**64), dict(timestamp_ns=2**64 + 5),
                   dict(timestamp_ns=-1), dict(timestamp_ns=1.5), dict(timestamp_ns="1"),
                   dict(sequence=2**32), dict(sequence=-1), dict(sequence=2.0)):
            with pytest.raises(camcore.InvalidArgError):
                s.push_frame(img, "YUYV", 32, 16, **kw)
        assert got == []  # nothing reached the sink
        s.push_frame(img, "YUYV", 32, 16, timestamp_ns=2**64 - 1, sequence=2**32 - 1)
        s.push_frame(img, "YUYV", 32, 16, timestamp_ns=np.uint64(5), sequence=np.int64(3))
    assert got == [(2**64 - 1, 2**32 - 1), (5, 3)]


def test_S31_control_value_out_of_int64_is_refused(cap):
    # The synthetic camera has no controls: a value that fits reaches the
    # library (NotSupportedError); one that does not is refused before it.
    with pytest.raises(camcore.NotSupportedError):
        cap.set_control(camcore.CID_BRIGHTNESS, 2**63 - 1)
    with pytest.raises(camcore.NotSupportedError):
        cap.set_control(camcore.CID_BRIGHTNESS, -(2**63))
    for value in (2**63, -(2**63) - 1, 2**64, 1.5, None, "3"):
        with pytest.raises(camcore.InvalidArgError):
            cap.set_control(camcore.CID_BRIGHTNESS, value)


def test_S31_manager_synthetic_out_of_int32_is_refused():
    # include_synthetic is an int32_t: 2**32 wrapped to 0 (no synthetic camera).
    for value in (2**32, 2**32 + 1, -(2**31) - 1):
        with pytest.raises(camcore.InvalidArgError):
            camcore.Manager(synthetic=value)
    with pytest.raises(camcore.InvalidArgTypeError):
        camcore.Manager(synthetic="yes")
    with camcore.Manager(synthetic=np.int64(1)) as m:
        assert [d.id for d in m.devices() if d.synthetic] == ["synthetic:0"]


# ---------------------------------------------------------------------------
# S14, S17, S31: the preview cap, rates checked at the call, Manager.close
# ---------------------------------------------------------------------------

def test_S14_previews_past_the_cap_are_refused(manager, synth_id):
    with manager.session(synth_id, width=160, height=120) as s:
        ids = [s.add_preview(lambda f: None) for _ in range(camcore.MAX_PREVIEWS)]
        assert len(set(ids)) == camcore.MAX_PREVIEWS == 64
        with pytest.raises(camcore.NoMemoryError, match="64"):
            s.add_preview(lambda f: None)
        assert s.state.preview_count == 64
        s.remove_preview(ids[0])
        assert s.add_preview(lambda f: None) not in ids


def test_S17_a_zero_rate_is_refused_at_the_call(cap, manager, synth_id):
    for fps in (0, (0, 1), (30, 0)):
        with pytest.raises(camcore.InvalidArgError, match="fps"):
            cap.start(fourcc="YUYV", width=160, height=120, fps=fps, on_frame=lambda f: None)
        assert not cap.streaming
    # None is 0/0: the driver's rate.
    frames = cap.capture(2, fourcc="YUYV", width=160, height=120, fps=None)
    assert [f.sequence for f in frames] == [0, 1]
    with manager.session(synth_id) as s:
        with pytest.raises(camcore.InvalidArgError):
            s.start(fourcc="YUYV", width=0, height=120, fps=30)


def test_S31_manager_close_closes_its_sessions_and_capturers(synth_id):
    m = camcore.Manager(synthetic=True)
    s = m.session(synth_id, width=160, height=120)
    seen = []
    s.add_preview(lambda f: seen.append(f.sequence))
    c = m.open(synth_id)
    got = []
    c.start(fourcc="YUYV", width=160, height=120, fps=60, on_frame=lambda f: got.append(f.sequence))
    assert wait_until(lambda: len(seen) >= 3 and len(got) >= 3, timeout=5)
    m.close()
    n_seen, n_got = len(seen), len(got)
    time.sleep(0.3)
    assert (len(seen), len(got)) == (n_seen, n_got)  # no callback after close
    assert s.closed and c.closed and m.closed
    with pytest.raises(camcore.StateError):
        s.add_preview(lambda f: None)
    with pytest.raises(camcore.StateError):
        c.start(fourcc="YUYV", width=160, height=120, fps=60, on_frame=lambda f: None)


def test_S31_manager_close_inside_a_preview_closes_all_and_nothing_follows(synth_id):
    m = camcore.Manager(synthetic=True)
    s = m.session(synth_id, width=160, height=120)
    calls = []

    def preview(f):
        calls.append(f.sequence)
        if len(calls) == 1:
            m.close()                         # never fails, also from here
            calls.append("closed")
    s.add_preview(preview)
    assert wait_until(lambda: "closed" in calls, timeout=5), calls
    assert m.closed and s.closed
    time.sleep(0.2)                           # a frame would come every 33 ms
    assert len(calls) == 2, calls
    m.close()


def test_S31_a_capturer_keeps_its_manager_alive(synth_id):
    c = camcore.Manager(synthetic=True).open(synth_id)  # the Manager is not kept by the caller
    gc.collect()
    frames = c.capture(2, fourcc="YUYV", width=160, height=120, fps=60)
    assert [f.width for f in frames] == [160, 160]
    c.close()


# ---------------------------------------------------------------------------
# S33: backend choice, and the library without PipeWire
# ---------------------------------------------------------------------------

def test_S33_backend_choice_without_pipewire(synth_id):
    code = textwrap.dedent("""
        import camcore
        for b in camcore.BACKENDS:
            with camcore.Manager(synthetic=True, backend=b) as m:
                ds = m.devices()
                print(b, [d.backend for d in ds])
        with camcore.Manager(synthetic=True, backend="pipewire") as m:
            frames = m.open("synthetic:0").capture(2, width=160, height=120)
            print("frames", len(frames))
        with camcore.Manager(synthetic=True, backend="libcamera") as m:
            frames = m.open("synthetic:0").capture(2, width=160, height=120)
            print("frames", len(frames))
            try:
                m.open("libcamera:platform/vimc.0 Sensor B")
            except camcore.NotSupportedError as e:
                print("libcamera:", "plugin is not available" in str(e))
    """)
    # Neither PipeWire nor libcamera (S33, S41): both are loaded at run time.
    r = run_python(code, env_extra={"CAMCORE_PIPEWIRE_LIBRARY": "/nonexistent/libpipewire-0.3.so.0",
                                    "CAMCORE_LIBCAMERA_PLUGIN": "/nonexistent/libcamcore-libcamera.so"})
    assert r.returncode == 0, r.stderr
    lines = r.stdout.split("\n")
    # No PipeWire, no libcamera: those backends list nothing, V4L2 (none
    # here) and the synthetic camera are unaffected, nothing crashes, and
    # opening a libcamera id says why.
    assert lines[:8] == ["auto ['synthetic']", "v4l2 ['synthetic']", "pipewire ['synthetic']",
                         "both ['synthetic']", "libcamera ['synthetic']", "frames 2", "frames 2",
                         "libcamera: True"], r.stdout
    with pytest.raises(camcore.InvalidArgError):
        camcore.Manager(backend="gstreamer")


def test_S49_camera_present_counts_no_synthetic_camera():
    """Here (no portal) the listing decides: the synthetic camera is no
    camera; the C call and Python agree, and a bad handle is refused."""
    with camcore.Manager(synthetic=True) as m:
        real = [d for d in m.devices() if not d.synthetic]
        assert m.camera_present is bool(real)
        assert camcore._lib.camcore_manager_camera_present(m._h()) == int(bool(real))
    assert camcore._lib.camcore_manager_camera_present(None) == camcore.E_INVALID_ARG


def test_S46_holders_of_cameras_without_a_node_and_bad_arguments():
    lib = camcore._lib
    with camcore.Manager(synthetic=True) as m:
        with pytest.raises(camcore.NotSupportedError) as e:
            m.holders("synthetic:0")
        assert "no device node of its own" in str(e.value)
        with pytest.raises(camcore.NoDeviceError):
            m.holders("v4l2:no-such-camera")
        found = ctypes.c_size_t(99)
        assert lib.camcore_manager_get_holders(None, b"synthetic:0", None, 0, ctypes.byref(found), None) == camcore.E_INVALID_ARG
        assert lib.camcore_manager_get_holders(m._h(), None, None, 0, None, None) == camcore.E_INVALID_ARG
        assert lib.camcore_manager_get_holders(m._h(), b"synthetic:0", None, 4, None, None) == camcore.E_INVALID_ARG
        assert found.value == 99  # untouched on failure
        assert m.devices()  # still usable


def test_S33_bad_backend_value_is_refused_by_the_c_abi():
    cfg = camcore._raw.camcore_manager_config()
    camcore._lib.camcore_manager_config_init(ctypes.byref(cfg))
    assert (cfg.backend, cfg.pipewire_fd) == (camcore.BACKEND_AUTO, -1)
    cfg.backend = 7
    out = ctypes.c_void_p()
    assert camcore._lib.camcore_manager_new(ctypes.byref(cfg), ctypes.byref(out)) == camcore.E_INVALID_ARG
    assert "backend 7" in camcore.last_error_message()


# ---------------------------------------------------------------------------
# S35: the camera portal without a bus or without libdbus (the portal itself
# is tested in the guest: Tests/kernel/test_pipewire.py)
# ---------------------------------------------------------------------------

PORTAL_PROBE = textwrap.dedent("""
    import camcore
    events = []
    with camcore.Manager(synthetic=True, backend="pipewire", portal="always") as m:
        print("before", m.camera_permission)     # nothing asked yet
        # Starting the hot-plug watch lists the PipeWire cameras: that asks the portal.
        m.set_hotplug_callbacks(on_permission=lambda s, why: events.append((s, why)))
        try:
            m.request_camera_access(timeout=20)
            print("request ok")
        except camcore.AccessError as e:
            print("request AccessError", e.status)
            print("detail", e.detail)
        print("after", m.camera_permission)
        print("devices", [d.id for d in m.devices()])
        try:
            m.open("pipewire:some-node")
        except camcore.AccessError as e:
            print("open AccessError")
        frames = m.open("synthetic:0").capture(2, width=160, height=120)
        print("frames", len(frames))
        m.set_hotplug_callbacks(None, None)
    print("events", [s for s, _ in events])
    with camcore.Manager(synthetic=True, backend="pipewire") as m:
        print("no portal", m.camera_permission, m.request_camera_access(timeout=0))
""")


@pytest.mark.parametrize("why", ["no session bus", "no libdbus"])
def test_S35_portal_unreachable_is_denied_with_a_reason(why):
    env = {"DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus", "DISPLAY": ""}
    if why == "no libdbus":
        env["CAMCORE_DBUS_LIBRARY"] = "/nonexistent/libdbus-1.so.3"
    r = run_python(PORTAL_PROBE, env_extra=env)
    assert r.returncode == 0, r.stderr
    out = dict(line.split(" ", 1) for line in r.stdout.strip().split("\n"))
    assert out["before"] == "unknown", r.stdout
    assert out["request"] == f"AccessError {camcore.E_ACCESS}", r.stdout
    want = "cannot reach the session bus" if why == "no session bus" else "libdbus-1 is not installed"
    assert want in out["detail"], out["detail"]
    assert out["after"] == "denied"
    assert out["devices"] == "['synthetic:0']"      # the synthetic camera is unaffected
    assert out["open"] == "AccessError"
    assert out["frames"] == "2"
    # The hot-plug watch asks first; request_camera_access() joins that ask
    # while it is pending, or (it failed already) asks again, as documented
    # ("after a denial it asks again"): one or two rounds, each pending then
    # denied, never granted.
    assert out["events"] in ("['pending', 'denied']", "['pending', 'denied', 'pending', 'denied']"), r.stdout
    assert out["no"] == "portal granted granted", r.stdout


def test_S35_portal_arguments_are_checked_by_the_c_abi():
    cfg = camcore._raw.camcore_manager_config()
    camcore._lib.camcore_manager_config_init(ctypes.byref(cfg))
    assert cfg.portal == camcore.PORTAL_AUTO
    cfg.portal = 3
    out = ctypes.c_void_p()
    assert camcore._lib.camcore_manager_new(ctypes.byref(cfg), ctypes.byref(out)) == camcore.E_INVALID_ARG
    assert "portal 3" in camcore.last_error_message()
    with pytest.raises(camcore.InvalidArgError):
        camcore.Manager(portal="sometimes")
    with camcore.Manager(synthetic=True) as m:
        h = m._h()
        assert camcore._lib.camcore_manager_get_camera_permission(h, None) == camcore.E_INVALID_ARG
        state = ctypes.c_int32(-1)
        assert camcore._lib.camcore_manager_request_camera_access(h, 0, None) == 0
        assert camcore._lib.camcore_manager_get_camera_permission(h, ctypes.byref(state)) == 0
        assert state.value == camcore.PERMISSION_GRANTED
        for bad in (-1.0, float("nan"), "1", True):
            with pytest.raises(camcore.InvalidArgError):
                m.request_camera_access(timeout=bad)
    assert camcore._lib.camcore_manager_get_camera_permission(h, ctypes.byref(state)) == camcore.E_INVALID_ARG


def test_S48_stall_restart_settings_are_checked_and_default_to_3_s():
    cfg = camcore._raw.camcore_capture_config()
    camcore._lib.camcore_capture_config_init(ctypes.byref(cfg))
    assert (cfg.stall_restart_ms, cfg.stall_restart_tries) == (3000, 3)
    with camcore.Manager(synthetic=True) as m, m.open("synthetic:0") as cap:
        for bad in (-1, 601, "3", True):
            with pytest.raises(camcore.InvalidArgError):
                cap.start("NV12", 320, 240, on_frame=lambda f: None, stall_restart=bad)
        cfg.fourcc = camcore.fourcc("NV12")
        cfg.stall_restart_ms = 700_000
        assert camcore._lib.camcore_capturer_start(cap._h(), ctypes.byref(cfg), None) == camcore.E_INVALID_ARG
        assert "stall_restart_ms 700000 is out of range" in camcore.last_error_message()
        # After the refusals the capturer still works.
        frames = cap.capture(2, fourcc="NV12", width=320, height=240)
        assert len(frames) == 2 and cap.stats.restarts == 0


def test_S48_session_stall_restart_settings():
    cfg = camcore._raw.camcore_session_config()
    camcore._lib.camcore_session_config_init(ctypes.byref(cfg))
    assert (cfg.stall_restart_ms, cfg.stall_restart_tries) == (3000, 3)
    with camcore.Manager(synthetic=True) as m:
        with pytest.raises(camcore.InvalidArgError):
            m.session("synthetic:0", stall_restart=-1)
        cfg.stall_restart_tries = 101
        out = ctypes.c_void_p()
        assert camcore._lib.camcore_session_new(m._h(), ctypes.byref(cfg), ctypes.byref(out)) == camcore.E_INVALID_ARG
        assert "stall_restart_tries 101 is out of range" in camcore.last_error_message()
        with m.session("synthetic:0", stall_restart=None) as s:   # never: still a working session
            got = []
            pid = s.add_preview(lambda f: got.append(f.width))
            end = time.monotonic() + 10
            while not got and time.monotonic() < end:
                time.sleep(0.02)
            s.remove_preview(pid)
        assert got, "no preview frame"
