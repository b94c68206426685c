# SPDX-License-Identifier: MIT
"""S40 on the kernel's vimc driver (a media-pipeline camera: sensors, debayer,
scaler and three capture nodes behind /dev/media0, every capture node
V4L2_CAP_IO_MC), built out of tree by Tests/kernel/vimc/build (TESTBED
"vimc"): camcore never lists those nodes as cameras, never sets their format
nor streams them, and says why when asked for hidden nodes."""
from __future__ import annotations

import json
import os
import re
import subprocess
import textwrap
import time

import pytest

import conftest

TOOL = os.path.join(conftest.REPO, "tools/camcore/camcore")
VIMC_DEPS = ["videodev", "mc", "v4l2-tpg", "videobuf2-common", "videobuf2-v4l2", "videobuf2-vmalloc",
             "videobuf2-dma-contig"]


def vimc_nodes():
    """The /dev/videoN nodes whose driver is vimc (from sysfs: no open)."""
    out = []
    for name in sorted(os.listdir("/sys/class/video4linux")):
        try:
            with open(f"/sys/class/video4linux/{name}/name") as f:
                label = f.read().strip()
            drv = os.path.basename(os.path.realpath(f"/sys/class/video4linux/{name}/device/driver"))
        except OSError:
            continue
        if drv == "vimc" and name.startswith("video"):
            out.append((f"/dev/{name}", label))
    return out


@pytest.fixture(scope="module")
def vimc():
    """vimc loaded (vivid unloaded first, so every capture node around is
    vimc's); unloaded at teardown."""
    if not conftest.IN_GUEST:
        pytest.skip("not in the kernel test guest")
    ko = os.path.join(conftest.REPO, "build/vimc", os.uname().release, "vimc.ko")
    if not os.path.exists(ko):
        pytest.fail(f"{ko} missing: run `bash Tests/kernel/vimc/build` (.ci/setup --kernel does) on the host")
    conftest._vivid.unload()
    conftest.sh("modprobe", "-a", *VIMC_DEPS)
    if not os.path.isdir("/sys/module/vimc"):
        conftest.sh("insmod", ko, timeout=120)
    conftest.sh("udevadm", "settle", "--timeout=30", check=False)
    deadline = time.monotonic() + 30
    while len(vimc_nodes()) < 3 and time.monotonic() < deadline:
        time.sleep(0.1)
    nodes = vimc_nodes()
    assert len(nodes) == 3, f"vimc gave {nodes} (want its three capture nodes)"
    yield nodes
    deadline = time.monotonic() + 20
    while subprocess.run(["rmmod", "vimc"], capture_output=True).returncode != 0:
        assert time.monotonic() < deadline, "rmmod vimc failed for 20 s (an fd still open?)"
        time.sleep(0.5)
    conftest.sh("udevadm", "settle", "--timeout=30", check=False)


def get_fmt(node):
    r = conftest.sh("v4l2-ctl", "-d", node, "--get-fmt-video")
    return re.sub(r"\s+", " ", r.stdout).strip()


def tool(*args, timeout=120):
    env = dict(os.environ)
    env.pop("CAMCORE_SYNTHETIC_CAMERA", None)
    return subprocess.run([TOOL, *args], capture_output=True, text=True, timeout=timeout, env=env, cwd="/tmp")


def test_S40_vimc_nodes_are_no_cameras_and_say_why_when_asked(vimc, camcore):
    with camcore.Manager(backend="v4l2") as m:
        cams = m.devices()
        assert [d for d in cams if d.driver == "vimc"] == [], cams
        everything = m.devices(hidden=True)
    hidden = [d for d in everything if d.hidden]
    assert sorted(d.node for d in hidden) == sorted(n for n, _ in vimc), (hidden, vimc)
    for d in hidden:
        assert d.driver == "vimc" and d.backend == "v4l2" and d.id.startswith("v4l2:"), d
        assert d.flags & camcore.DEVICE_HIDDEN and d.flags & camcore.DEVICE_UNAVAILABLE, d
        assert "media pipeline" in d.unavailable_reason and "libcamera" in d.unavailable_reason, d
        assert d.device_caps & 0x20000000, f"{d.node}: V4L2_CAP_IO_MC not in {d.device_caps:#x}"
    # The cameras come first, the hidden nodes after them.
    assert everything[:len(cams)] == cams


def test_S40_a_hidden_node_is_refused_by_open_and_keeps_its_format(vimc, camcore):
    before = {n: get_fmt(n) for n, _ in vimc}
    with camcore.Manager(backend="v4l2") as m:
        hidden = [d for d in m.devices(hidden=True) if d.hidden]
        assert hidden, "no hidden node listed"
        for d in hidden:
            with pytest.raises(camcore.NotSupportedError) as e:
                m.open(d.id)
            assert "media pipeline" in str(e.value), e.value
        # A session with no device asked picks no vimc node (before S40 it
        # chose one, set BGR3 1280x720 on it and failed at STREAMON: EPIPE).
        ids = {d.id for d in hidden}
        try:
            s = m.session()
        except camcore.CamcoreError:
            s = None                                   # no camera to choose: right
        if s is not None:
            try:
                try:
                    s.add_preview(lambda f: None)
                except camcore.CamcoreError:
                    pass
                st = s.state
                assert st.device_id not in ids, f"a session chose a pipeline node: {st}"
            finally:
                s.close()
    after = {n: get_fmt(n) for n, _ in vimc}
    assert after == before, f"camcore changed a pipeline node's format:\nbefore {before}\nafter  {after}"


def test_S40_cli_list_all_shows_the_nodes_with_the_reason(vimc):
    before = {n: get_fmt(n) for n, _ in vimc}
    r = tool("list", "--backend", "v4l2")
    assert r.returncode == 0, r.stderr
    assert "synthetic" in r.stdout and not any(n in r.stdout for n, _ in vimc), r.stdout
    r = tool("list", "--backend", "v4l2", "--all")
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("hidden: part of a media pipeline") == 3, r.stdout
    assert "3 capture nodes that are no cameras of their own" in r.stdout, r.stdout
    r = tool("list", "--backend", "v4l2", "--all", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert sorted(h["node"] for h in doc["hidden"]) == sorted(n for n, _ in vimc), doc
    assert all(h["hidden"] and h["unavailable"] and "libcamera" in h["unavailable_reason"] for h in doc["hidden"]), doc
    assert all(d.get("driver") != "vimc" for d in doc["devices"]), doc
    # `capture` with no camera falls back to the synthetic one, never a vimc node.
    r = tool("capture", "--backend", "v4l2", "--frames", "2")
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert "synthetic" in (r.stdout + r.stderr).lower(), (r.stdout, r.stderr)
    after = {n: get_fmt(n) for n, _ in vimc}
    assert after == before, f"the tool changed a pipeline node's format:\nbefore {before}\nafter  {after}"
    # auto: the camera itself, through libcamera (S41), and none of its nodes.
    r = tool("list")
    assert r.returncode == 0, r.stderr
    assert "libcamera:platform/vimc.0 Sensor B" in r.stdout and not any(n in r.stdout for n, _ in vimc), r.stdout


# -- S41: the libcamera backend on vimc ---------------------------------------
# libcamera 0.0.3 lists one vimc camera ("platform/vimc.0 Sensor B"), draws the
# sensor's colour bars through debayer and scaler, and cuts widths to
# multiples of 6 (640 -> 636). It configures the media graph itself.

LC_ID = "libcamera:platform/vimc.0 Sensor B"
# v4l2-tpg's 75% colour bars, left to right (vimc's sensor pattern 0).
BARS = ["white", "yellow", "cyan", "green", "magenta", "red", "blue", "black"]


def colour_name(r, g, b):
    # After debayer and scaler a 75% bar's channel reads 95..200, an off one ~0.
    hi = [c > 80 for c in (r, g, b)]
    lo = [c < 50 for c in (r, g, b)]
    names = {(1, 1, 1): "white", (1, 1, 0): "yellow", (0, 1, 1): "cyan", (0, 1, 0): "green",
             (1, 0, 1): "magenta", (1, 0, 0): "red", (0, 0, 1): "blue", (0, 0, 0): "black"}
    if not all(h or l for h, l in zip(hi, lo)):
        return f"unclear({r},{g},{b})"
    return names[tuple(int(h) for h in hi)]


# The bars as an R/B mix-up shows them (BGR bytes read as RGB).
SWAPPED = ["white", "cyan", "yellow", "green", "magenta", "blue", "red", "black"]


def bar_rows(frame):
    """For every row of an RGB3 frame (bytes R, G, B in memory), the colours at
    the middle of the 8 bars. Not every row shows the bars cleanly: vimc's
    debayer and its x3 scaler leave rows with a channel missing or mixed
    (seen mid-frame at 318x240, near the top at 636x480), differing between
    sizes and frames; the clean rows show the bars."""
    a = frame.array                                    # (h, w, 3)
    w = a.shape[1]
    cols = [int((i + 0.5) * w / 8) for i in range(8)]
    return [[colour_name(*[int(x) for x in row[c]]) for c in cols] for row in a]


def bar_colours(frame):
    """The bar colours most rows show, and how many rows show the right bars
    and the R/B-swapped ones."""
    rows = bar_rows(frame)
    right = sum(r == BARS for r in rows)
    swapped = sum(r == SWAPPED for r in rows)
    common = max(rows, key=rows.count)
    return common, right, swapped, len(rows)


def test_S41_libcamera_lists_the_vimc_camera_once(vimc, camcore):
    with camcore.Manager(backend="libcamera") as m:
        cams = m.devices()
    assert [d.id for d in cams] == [LC_ID], cams
    d = cams[0]
    assert d.backend == "libcamera" and d.driver == "libcamera" and d.node == "platform/vimc.0 Sensor B", d
    # auto: V4L2 met vimc's media-pipeline nodes, so libcamera's camera is there too, once.
    with camcore.Manager(backend="auto") as m:
        ids = [d.id for d in m.devices()]
    assert ids.count(LC_ID) == 1 and not any(i.startswith("v4l2:") and "vimc" in i for i in ids), ids
    # S33: a set of named backends; each camera once.
    with camcore.Manager(backend="v4l2,libcamera") as m:
        named = [d.id for d in m.devices()]
    assert named == ids, (named, ids)


def test_S41_formats_are_v4l2_fourccs_with_the_range(vimc, camcore):
    with camcore.Manager(backend="libcamera") as m:
        fmts = m.formats(LC_ID)
    names = {f.fourcc for f in fmts}
    # libcamera's BGR888 holds R, G, B: V4L2's RGB3; its RGB888 is BGR3.
    assert {"RGB3", "BGR3"} <= names, [f"{f.fourcc} {f.size}" for f in fmts]


@pytest.mark.guard_s(300)
def test_S41_capture_reports_the_cut_size_and_red_is_red(vimc, camcore):
    with camcore.Manager(backend="libcamera") as m, m.open(LC_ID) as cap:
        for want, got_w in ((640, 636), (320, 318)):
            seqs, stamps = [], []
            right = swapped = rows = 0
            common = None
            t0 = time.monotonic()
            for f in cap.frames(4, fourcc="RGB3", width=want, height=240 if want == 320 else 480, fps=None,
                                timeout=30):
                assert (f.fourcc, f.width) == ("RGB3", got_w), (f.fourcc, f.width, f.height)
                assert f.strides[0] >= got_w * 3, f.strides
                seqs.append(f.sequence)
                stamps.append(f.timestamp_ns)
                common, r, s, rows = bar_colours(f)
                right, swapped = right + r, swapped + s
                fmt = cap.format
            assert fmt.width == got_w and fmt.adjusted & camcore.ADJUSTED_SIZE, fmt
            assert seqs == sorted(seqs) and len(set(seqs)) == 4, seqs
            now = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
            assert stamps == sorted(stamps) and 0 < now - stamps[-1] < 60e9, (stamps, now)
            # The bars in their order and colours: an R/B mix-up makes yellow
            # cyan and red blue. Clean rows of 4 frames show the right order,
            # none the swapped one.
            assert right >= rows // 10 and swapped == 0, (
                f"{want}: of {rows} rows x 4 frames, {right} show {BARS}, {swapped} the R/B-swapped bars; "
                f"most rows of the last frame: {common} (took {time.monotonic() - t0:.1f} s)")


@pytest.mark.guard_s(300)
def test_S41_brightness_changes_the_pixels(vimc, camcore):
    with camcore.Manager(backend="libcamera") as m, m.open(LC_ID) as cap:
        names = {c.name for c in cap.controls()}
        assert {"Brightness", "Contrast", "Saturation"} <= names, names
        b = cap.control("brightness")
        assert b.id == camcore.CID_BRIGHTNESS and b.minimum < 0 < b.maximum, b
        means = []
        for value in (b.default, b.maximum):
            cap.set_control(b.id, value)
            assert cap.get_control(b.id) == value
            got = [float(f.array.mean()) for f in cap.frames(4, fourcc="RGB3", width=320, height=240, fps=None,
                                                               timeout=30)]
            means.append(got[-1])
        assert means[1] > means[0] + 10, f"mean pixel at default and max brightness: {means}"


@pytest.mark.guard_s(300)
def test_S41_camera_off_releases_it_for_another_process(vimc, camcore):
    cmd = [TOOL, "capture", LC_ID, "--backend", "libcamera", "--frames", "1", "--size", "320x240",
           "--format", "RGB3"]
    with camcore.Manager(backend="libcamera") as m:
        cap = m.open(LC_ID)                            # acquired: another process finds it busy
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        assert r.returncode != 0 and "busy" in (r.stdout + r.stderr).lower(), (r.returncode, r.stdout, r.stderr)
        cap.close()                                    # camera off: released
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, (r.stdout, r.stderr)


def _wait(pred, timeout):
    end = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > end:
            return False
        time.sleep(0.05)
    return True


@pytest.mark.guard_s(300)
def test_S41_session_camera_off_releases_the_camera(vimc, camcore):
    """S9 through libcamera: while a preview runs the camera is acquired (the
    tool in another process finds it busy); once the preview goes the camera
    is off, released, and the other process captures."""
    cmd = [TOOL, "capture", LC_ID, "--backend", "libcamera", "--frames", "1", "--size", "320x240",
           "--format", "RGB3"]
    frames = []
    with camcore.Manager(backend="libcamera") as m:
        with m.session(LC_ID, width=320, height=240, min_fps=1, max_fps=30) as s:
            pid = s.add_preview(lambda f: frames.append((f.fourcc, f.width)))
            assert _wait(lambda: len(frames) >= 2, 60), (frames, s.state)
            assert frames[-1][1] == 318 and s.state.camera_on, (frames[-1], s.state)
            # Held: libcamera in the other process finds it busy or, while
            # its media device is locked by this one, does not list it at all.
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
            out = (r.stdout + r.stderr).lower()
            assert r.returncode != 0 and ("busy" in out or "no camera" in out), (r.returncode, r.stdout, r.stderr)
            s.remove_preview(pid)
            assert _wait(lambda: not s.state.camera_on, 30), s.state
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
            assert r.returncode == 0, (r.stdout, r.stderr)


@pytest.mark.guard_s(300)
def test_S42_both_lists_a_uvc_camera_once_through_v4l2(vimc, uvc_cam, camcore):
    """A UVC camera is a V4L2 device and, through libcamera's uvcvideo
    handler, a libcamera camera too: `both` lists it once, as the V4L2
    device (S42), beside the media-pipeline camera that only libcamera has."""
    with camcore.Manager(backend="libcamera") as m:
        lc = [d.id for d in m.devices()]
    with camcore.Manager(backend="v4l2") as m:
        v4 = [d.id for d in m.devices()]
    with camcore.Manager(backend="both") as m:
        both = [d.id for d in m.devices()]
    uvc_v4l2 = [i for i in v4 if i.startswith("v4l2:")]
    assert len(uvc_v4l2) == 1, v4                      # the emulated webcam's capture node
    uvc_lc = [i for i in lc if i != LC_ID]
    print("MEASURED libcamera ids:", lc)
    assert LC_ID in lc, lc
    # Listed once: the UVC camera as V4L2's, the vimc camera as libcamera's.
    assert sorted(both) == sorted(uvc_v4l2 + [LC_ID]), (both, v4, lc)
    # (libcamera's own id of the UVC camera, when its uvcvideo handler has it,
    # ends in the USB vendor:product it is recognised by.)
    assert all(re.search(r"-[0-9a-f]{4}:[0-9a-f]{4}$", i) for i in uvc_lc), uvc_lc


# -- S24/S25 through libcamera: vimc's platform device unbound and bound -------

VIMC_DRIVER = "/sys/bus/platform/drivers/vimc"


def _vimc_bind(what):
    with open(os.path.join(VIMC_DRIVER, what), "w") as f:
        f.write("vimc.0")


UNBIND_CHILD = r"""
import json, sys, time
import camcore
LC_ID, DRIVER = sys.argv[1], sys.argv[2]

def wait(pred, timeout):
    end = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > end:
            return False
        time.sleep(0.05)
    return True

def bind(what):
    with open(f"{DRIVER}/{what}", "w") as f:
        f.write("vimc.0")

out = {}
events, errors, seqs = [], [], []
with camcore.Manager(backend="libcamera") as m:
    m.set_hotplug_callbacks(on_connected=lambda d: events.append(("+", d.id)),
                            on_disconnected=lambda d: events.append(("-", d.id)))
    cap = m.open(LC_ID)
    cap.start("RGB3", 320, 240, fps=None, on_frame=lambda f: seqs.append(f.sequence),
              on_error=lambda e: errors.append(type(e).__name__))
    out["started"] = wait(lambda: len(seqs) >= 3, 60)
    bind("unbind")
    out["told"] = wait(lambda: ("-", LC_ID) in events and errors, 60)
    out["errors"], out["streaming"] = list(errors), cap.streaming
    out["listed_while_gone"] = [d.id for d in m.devices()]
    cap.close()
    bind("bind")
    out["arrived"] = wait(lambda: ("+", LC_ID) in events, 60)
    out["events"] = events
    out["listed_after"] = [d.id for d in m.devices()]
    with m.open(LC_ID) as again:
        out["frames_after"] = [[f.fourcc, f.width] for f in again.frames(2, fourcc="RGB3", width=320, height=240,
                                                                       fps=None, timeout=30)]
    out["frames_before"] = len(seqs)
print(json.dumps(out))
"""


@pytest.mark.guard_s(400)
def test_S24_S25_unbinding_vimc_while_streaming_is_a_disconnect_binding_an_arrival(vimc, camcore):
    """vimc's platform device unbound mid-stream, then bound again, in a
    process of its own (libcamera 0.0.3 cannot stop a pipeline whose device
    vanished: its fds stay open until that process ends, which rmmod needs).
    libcamera never reports vimc's removal (its vimc handler has no hot-unplug)
    and aborts on the camera's return while it still holds the old one:
    camcore's media watch tells the removal, ends the stream as a
    disconnect (S25) and makes libcamera's CameraManager anew, so the return
    is an arrival (S24)."""
    import sys
    try:
        r = subprocess.run([sys.executable, "-c", UNBIND_CHILD, LC_ID, VIMC_DRIVER], capture_output=True,
                           text=True, timeout=300)
    finally:
        if not os.path.exists(os.path.join(VIMC_DRIVER, "vimc.0")):
            _vimc_bind("bind")
        conftest.sh("udevadm", "settle", "--timeout=30", check=False)
    assert r.returncode == 0, (r.returncode, r.stdout[-2000:], r.stderr[-3000:])
    out = json.loads(r.stdout.strip().splitlines()[-1])
    print("MEASURED vimc unbind/bind:", out)
    assert out["started"] and out["told"], out
    assert out["errors"] == ["NoDeviceError"] and not out["streaming"], out
    assert LC_ID not in out["listed_while_gone"], out
    assert out["arrived"] and out["events"].index(["-", LC_ID]) < out["events"].index(["+", LC_ID]), out
    assert out["listed_after"] == [LC_ID] and out["frames_after"] == [["RGB3", 318]] * 2, out


# -- S42/S43: vimc through PipeWire's libcamera node ---------------------------

@pytest.fixture(scope="module")
def pw_libcamera(vimc, camcore):
    """A private session bus, pipewire and wireplumber (with Debian's
    pipewire-libcamera, its libcamera monitor) while vimc is loaded; waits
    until camcore's PipeWire backend lists the node over the vimc camera."""
    import test_pipewire as tp
    if not os.path.exists("/usr/lib/x86_64-linux-gnu/spa-0.2/libcamera"):
        pytest.fail("PipeWire's libcamera plugin missing (.ci/setup --kernel installs pipewire-libcamera)")
    yield from tp.running_daemons(camcore, lambda devs: [x for x in devs if LC_ID in x.other_ids],
                                  f"a PipeWire node over {LC_ID}")


def _pw_node(camcore):
    with camcore.Manager(backend="pipewire") as m:
        nodes = [x for x in m.devices() if LC_ID in x.other_ids]
    assert len(nodes) == 1, nodes
    return nodes[0]


def test_S42_the_pipewire_libcamera_node_names_the_camera_and_both_lists_it_once(pw_libcamera, camcore):
    node = _pw_node(camcore)
    assert node.backend == "pipewire" and node.other_ids == (LC_ID,), node
    with camcore.Manager(backend="both") as m:
        both = m.devices()
    ids = [x.id for x in both]
    print("MEASURED both under PipeWire+libcamera:", [(x.id, x.other_ids) for x in both])
    # Once, as libcamera's camera (S42: media-pipeline cameras through
    # libcamera), naming the PipeWire node; the node itself is not listed.
    assert ids.count(LC_ID) == 1 and node.id not in ids, ids
    lc = next(x for x in both if x.id == LC_ID)
    assert node.id in lc.other_ids, lc


@pytest.mark.guard_s(300)
def test_S43_pipewire_libcamera_frames_carry_their_true_size(pw_libcamera, camcore):
    """The node announces 640x480 and delivers vimc's 636x480 at stride 1908:
    frames say 636x480, the capture's format follows (size adjusted) and
    says why; the pixels are the bars, red is red."""
    node = _pw_node(camcore)
    with camcore.Manager(backend="pipewire") as m:
        fourccs = {f.fourcc for f in m.formats(node.id)}
        assert "RGB3" in fourccs, fourccs
        with m.open(node.id) as cap:
            got, right, swapped, rows = [], 0, 0, 0
            for f in cap.frames(6, fourcc="RGB3", width=640, height=480, fps=None, timeout=60):
                got.append((f.width, f.height, f.strides[0], bool(f.flags & camcore.FRAME_CORRUPTED)))
                _, r, s, n = bar_colours(f)
                right, swapped, rows = right + r, swapped + s, rows + n
                fmt, note = cap.format, cap.frame_note
    print("MEASURED PipeWire libcamera node frames:", got[:2], "format", fmt, "note:", note)
    assert all(g == (636, 480, 1908, False) for g in got), got
    assert fmt.width == 636 and fmt.strides[0] == 1908 and fmt.adjusted & camcore.ADJUSTED_SIZE, fmt
    assert "636x480 (stride 1908)" in note and "640x480" in note, note
    assert right >= rows // 10 and swapped == 0, (right, swapped, rows)


def test_S33_S41_without_libcamera_and_pipewire_the_library_works(vimc, camcore):
    """libcamera and libpipewire taken out of the loader's view (an empty
    file bind-mounted over each, in a mount namespace of its own): the
    libcamera plugin cannot load, and camcore still lists, hides vimc's
    nodes with the reason, says why libcamera's ids cannot be opened, and
    captures from the synthetic camera."""
    libs = [p for p in ("/usr/lib/x86_64-linux-gnu/libcamera.so.0.0.3",
                        "/usr/lib/x86_64-linux-gnu/libcamera-base.so.0.0.3",
                        "/usr/lib/x86_64-linux-gnu/libpipewire-0.3.so.0") if os.path.exists(p)]
    assert len(libs) == 3, libs
    code = textwrap.dedent(f"""
        import camcore
        with camcore.Manager(backend="libcamera") as m:
            print("libcamera", len(m.devices()))
            try:
                m.open({LC_ID!r})
            except camcore.NotSupportedError as e:
                print("open:", "plugin is not available" in str(e))
        with camcore.Manager(backend="auto", synthetic=True) as m:
            print("auto", [d.backend for d in m.devices()])
            print("hidden", len([d for d in m.devices(hidden=True) if d.hidden]))
            print("frames", len(m.open("synthetic:0").capture(2, width=160, height=120)))
        with camcore.Manager(backend="both", synthetic=True) as m:
            print("both", [d.backend for d in m.devices()])
    """)
    hide = " && ".join(f"mount --bind /dev/null {p}" for p in libs)
    import sys
    r = subprocess.run(["unshare", "-m", "sh", "-c", f"{hide} && exec {sys.executable} -c \"$0\"", code],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, (r.stdout, r.stderr)
    lines = r.stdout.split("\n")
    assert lines[:2] == ["libcamera 0", "open: True"] and lines[3:5] == ["hidden 3", "frames 2"], (r.stdout, r.stderr)
    # Whatever else the guest has now (the emulated webcam is V4L2's), no
    # libcamera or PipeWire camera, and the synthetic one.
    for line, what in ((lines[2], "auto"), (lines[5], "both")):
        name, _, backends = line.partition(" ")
        assert name == what and set(eval(backends)) <= {"v4l2", "synthetic"} and "synthetic" in backends, line
