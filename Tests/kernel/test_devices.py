# SPDX-License-Identifier: MIT
"""S1, S2, S3, S4 against vivid loaded with all its node types.

`modprobe vivid n_devs=2` creates, per instance, video capture and output,
VBI capture/output, radio rx/tx, SDR, metadata capture/output and touch
nodes. Only the two video-capture nodes are cameras.
"""
from __future__ import annotations

import collections

import v4l2probe as v4l


def test_S1_device_list_equals_vivid_capture_nodes(vivid_default, camcore):
    nodes = v4l.v4l_nodes()
    expected = v4l.capture_nodes()  # from QUERYCAP + ENUM_FMT, without camcore
    # The test bed is what we think it is: the capture nodes are exactly vivid's vid-cap nodes,
    # and plenty of other node types sit next to them.
    assert expected == sorted((n.devnode for n in nodes if n.name.endswith("-vid-cap")),
                              key=v4l.node_order)
    assert len(expected) == 2
    assert len(nodes) >= 10

    with camcore.Manager() as m:
        devices = m.devices()

    listed = [d.node for d in devices]
    others = {n.devnode: n.name for n in nodes if n.devnode not in expected}
    wrongly_listed = {node: others[node] for node in listed if node in others}
    assert not wrongly_listed, f"non-camera nodes listed: {wrongly_listed}"
    assert listed == expected, "real cameras come in node order, exactly the capture nodes"

    for d in devices:
        caps = v4l.querycap(d.node)
        assert d.name == caps.card
        assert d.bus_info == caps.bus_info
        assert d.driver == caps.driver == "vivid"
        assert d.device_caps == caps.device_caps
        assert d.device_caps & v4l.V4L2_CAP_VIDEO_CAPTURE
        assert d.type == "virtual"
        assert not d.multiplanar and not d.synthetic
        assert (d.usb_vendor_id, d.usb_product_id) == (0, 0)
        assert d.position in ("unknown", "front", "back", "external")
    assert sorted(d.bus_info for d in devices) == ["platform:vivid-000", "platform:vivid-001"]

    ids = [d.id for d in devices]
    dup = [i for i, n in collections.Counter(ids).items() if n > 1]
    assert not dup, f"ids not unique: {ids}"
    for i in ids:
        assert i, "empty id"
        assert "/dev/video" not in i, f"id {i!r} is built from the node path"


def test_S1_device_list_is_stable_across_calls(vivid_default, camcore):
    with camcore.Manager() as m:
        first = m.devices()
        second = m.devices()
    with camcore.Manager() as m:
        third = m.devices()
    assert [d.id for d in first] == [d.id for d in second] == [d.id for d in third]


def test_S3_listing_leaves_no_device_open(vivid_default, camcore):
    assert v4l.open_v4l_fds() == [], "test started with V4L2 fds open"
    with camcore.Manager() as m:
        devices = m.devices()
        assert devices
        assert v4l.open_v4l_fds() == [], "list_devices left a V4L2 node open"
        for d in devices:
            assert m.formats(d.id)
        assert v4l.open_v4l_fds() == [], "list_formats left a V4L2 node open"
        # Opening holds exactly one fd, the capturer's (S28); closing gives it back.
        with m.open(devices[0].id) as cap:
            held = v4l.open_v4l_fds()
            assert len(held) == 1 and held[0].startswith(f"fd {cap.fd} ->"), held
        assert v4l.open_v4l_fds() == [], "close left a V4L2 node open"
    assert v4l.open_v4l_fds() == []


def test_S4_synthetic_camera_comes_after_vivid(vivid_default, camcore):
    with camcore.Manager(synthetic=True) as m:
        devices = m.devices()
    assert [d.node for d in devices] == v4l.capture_nodes() + ["synthetic"]
    s = devices[-1]
    assert s.synthetic and s.driver == "camcore" and s.type == "virtual"
    assert not any(d.synthetic for d in devices[:-1])


def test_S49_camera_present_without_asking(vivid_default, camcore):
    """A camera is there (vivid): present through the listing, in Python and
    the tool; the synthetic camera alone never counts."""
    import os
    import subprocess
    with camcore.Manager(synthetic=True) as m:
        assert m.camera_present is True
    tool = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "camcore", "camcore")
    r = subprocess.run([tool, "list", "--present"], capture_output=True, text=True, timeout=60)
    assert (r.returncode, r.stdout) == (0, "present\n"), (r.returncode, r.stdout, r.stderr)
