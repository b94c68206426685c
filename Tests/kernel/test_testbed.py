# SPDX-License-Identifier: MIT
"""The test bed itself (TESTBED.md): udev runs, vivid and v4l2loopback give the
nodes the other kernel tests rely on. No libcamcore needed."""
from __future__ import annotations

import os
import subprocess

import conftest
import v4l2probe as v4l


def test_testbed_udevd_runs_and_has_data():
    r = subprocess.run(["udevadm", "control", "--ping"], capture_output=True, timeout=30)
    assert r.returncode == 0, "systemd-udevd is not running in the guest"
    assert os.path.isdir("/run/udev/data"), "no /run/udev/data: libudev enumeration would be empty"


def test_testbed_vivid_default_node_types(vivid_default):
    nodes = v4l.v4l_nodes()
    names = sorted(n.name for n in nodes)
    # Two instances, each with video capture/output, meta, vbi, radio, sdr and touch nodes.
    for inst in ("000", "001"):
        for kind in ("vid-cap", "vid-out", "vbi-cap", "vbi-out", "rad-rx", "rad-tx",
                     "sdr-cap", "meta-cap", "meta-out", "touch-cap"):
            assert f"vivid-{inst}-{kind}" in names, names
    caps = {n.name: n.caps.device_caps for n in nodes if n.caps}
    assert caps["vivid-000-vid-cap"] & v4l.V4L2_CAP_VIDEO_CAPTURE
    # The touch node also claims VIDEO_CAPTURE: a camera list must still leave it out.
    assert caps["vivid-000-touch-cap"] & v4l.V4L2_CAP_VIDEO_CAPTURE
    assert caps["vivid-000-touch-cap"] & v4l.V4L2_CAP_TOUCH
    assert caps["vivid-000-meta-cap"] & v4l.V4L2_CAP_META_CAPTURE
    assert [n for n in nodes if n.name.endswith("-vid-cap")] and \
        sorted(v4l.capture_nodes()) == sorted(n.devnode for n in nodes if n.name.endswith("-vid-cap"))
    # udev has processed them (libudev sees ID_PATH etc.).
    node = next(n.devnode for n in nodes if n.name == "vivid-000-vid-cap")
    props = subprocess.run(["udevadm", "info", "-q", "property", "-n", node],
                           capture_output=True, text=True, timeout=30).stdout
    assert "ID_V4L_CAPABILITIES=" in props and "ID_PATH=" in props, props


def test_testbed_vivid_webcam(vivid_webcam):
    nodes = v4l.v4l_nodes()
    assert sorted(n.name for n in nodes) == ["vivid-000-vid-cap", "vivid-001-vid-cap"]
    for n in nodes:
        assert n.caps.device_caps & v4l.V4L2_CAP_VIDEO_CAPTURE
        assert not n.caps.device_caps & v4l.V4L2_CAP_VIDEO_CAPTURE_MPLANE
        fourccs = [f for f, _flags, _d in v4l.enum_fmt(n.devnode, v4l.V4L2_BUF_TYPE_VIDEO_CAPTURE)]
        assert v4l.fourcc_from_ctl("YUYV") in fourccs and v4l.fourcc_from_ctl("NV12") in fourccs


def test_testbed_vivid_mplane(vivid_mplane):
    nodes = v4l.v4l_nodes()
    assert sorted(n.name for n in nodes) == ["vivid-000-vid-cap", "vivid-001-vid-cap"]
    for n in nodes:
        assert n.caps.device_caps & v4l.V4L2_CAP_VIDEO_CAPTURE_MPLANE
        assert not n.caps.device_caps & v4l.V4L2_CAP_VIDEO_CAPTURE


def test_testbed_v4l2loopback_loads():
    conftest._vivid.unload()
    conftest.sh("modprobe", "v4l2loopback", "devices=1", "video_nr=10", "exclusive_caps=0",
                "card_label=camcore-loop")
    try:
        conftest.sh("udevadm", "settle", "--timeout=30", check=False)
        caps = v4l.querycap("/dev/video10")
        assert caps.card == "camcore-loop"
        assert caps.device_caps & v4l.V4L2_CAP_VIDEO_OUTPUT
    finally:
        conftest.sh("modprobe", "-r", "v4l2loopback", check=False)
