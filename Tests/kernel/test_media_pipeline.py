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
    r = tool("list")
    assert r.returncode == 0, r.stderr
    assert "vimc" not in r.stdout.lower() or "synthetic" in r.stdout, r.stdout
    assert not any(n in r.stdout for n, _ in vimc), r.stdout
    r = tool("list", "--all")
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("hidden: part of a media pipeline") == 3, r.stdout
    assert "3 capture nodes that are no cameras of their own" in r.stdout, r.stdout
    r = tool("list", "--all", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert sorted(h["node"] for h in doc["hidden"]) == sorted(n for n, _ in vimc), doc
    assert all(h["hidden"] and h["unavailable"] and "libcamera" in h["unavailable_reason"] for h in doc["hidden"]), doc
    assert all(d.get("driver") != "vimc" for d in doc["devices"]), doc
    # `capture` with no camera falls back to the synthetic one, never a vimc node.
    r = tool("capture", "--frames", "2")
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert "synthetic" in (r.stdout + r.stderr).lower(), (r.stdout, r.stderr)
    after = {n: get_fmt(n) for n, _ in vimc}
    assert after == before, f"the tool changed a pipeline node's format:\nbefore {before}\nafter  {after}"
