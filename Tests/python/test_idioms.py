# SPDX-License-Identifier: MIT
"""Python idioms of the camcore package (issue 16): exceptions that are also the
matching builtins, messages in Python terms, capture(n) whose timeout follows n and
the rate and keeps the frames it got, a negotiation result passed straight to
start()/capture()/frames()/Session.start(), FourCC names as v4l2-ctl prints them
(with the big-endian "-BE" forms) parsed back, and the examples."""
import errno
import warnings

import pytest

import camcore
from conftest import EXAMPLES, run_python

BUILTINS = {
    camcore.InvalidArgError: (ValueError,),
    camcore.InvalidArgTypeError: (ValueError, TypeError),
    camcore.InvalidArgValueError: (ValueError,),
    camcore.NoDeviceError: (OSError,),
    camcore.BusyError: (OSError,),
    camcore.AccessError: (PermissionError, OSError),
    camcore.CamcoreTimeoutError: (TimeoutError, OSError),
    camcore.CamcoreIOError: (OSError,),
    camcore.StateError: (RuntimeError,),
    camcore.CustomSourceActiveError: (RuntimeError,),
    camcore.WouldDeadlockError: (RuntimeError,),
    camcore.NoMemoryError: (MemoryError,),
    camcore.InternalError: (RuntimeError,),
}


@pytest.mark.parametrize("cls", list(BUILTINS), ids=lambda c: c.__name__)
def test_S29_exceptions_are_also_the_matching_builtin(cls):
    err = cls("Manager.open('x'): why", detail="why")
    if cls not in (camcore.InvalidArgTypeError, camcore.InvalidArgValueError):
        err = camcore.error_for_status(cls.code, "Manager.open('x')", "why")   # the code's class
        assert type(err) is cls
    for b in BUILTINS[cls]:
        assert isinstance(err, b), (cls, b)
    assert isinstance(err, camcore.CamcoreError)
    assert str(err) == "Manager.open('x'): why"


def test_S29_oserror_subclasses_carry_errno():
    cases = {camcore.E_NO_DEVICE: errno.ENODEV, camcore.E_BUSY: errno.EBUSY,
             camcore.E_ACCESS: errno.EACCES, camcore.E_TIMEOUT: errno.ETIMEDOUT,
             camcore.E_IO: errno.EIO}
    for status, want in cases.items():
        err = camcore.error_for_status(status, "call", "detail")
        assert err.errno == want and str(err) == "call: detail"


def test_S29_no_trailing_underscore_names_and_old_names_warn():
    assert not [n for n in camcore.__all__ if n.endswith("_") and not n.startswith("__")]
    with pytest.warns(DeprecationWarning, match="CamcoreTimeoutError"):
        assert camcore.TimeoutError_ is camcore.CamcoreTimeoutError
    with pytest.warns(DeprecationWarning, match="CamcoreIOError"):
        assert camcore.IOError_ is camcore.CamcoreIOError


def test_S29_messages_speak_python(manager, synth_id):
    with pytest.raises(OSError) as ei:                    # NoDeviceError is an OSError
        manager.open("no-such-camera")
    msg = str(ei.value)
    assert msg.startswith("Manager.open('no-such-camera'): "), msg
    assert "camcore_" not in msg and "CAMCORE_" not in msg
    with manager.open(synth_id) as cap:
        with pytest.raises(ValueError) as ei:             # InvalidArgError is a ValueError
            cap.start("YUYV", 320, 240, 30, buffer_count=1)
        msg = str(ei.value)
        assert msg.startswith("Capturer.start(): ") and "camcore_" not in msg, msg
        # The library's detail is not preceded by the code's meaning again.
        meaning = camcore.strerror(camcore.E_INVALID_ARG).split(": ", 1)[1]
        assert f"{meaning}: {meaning}" not in msg


def test_S29_a_detail_naming_a_c_function_loses_the_name():
    err = camcore.error_for_status(camcore.E_STATE, "Session.acquire_preview()",
                                   "no pull preview with id 3 (camcore_session_add_preview_pull)")
    assert str(err) == "Session.acquire_preview(): no pull preview with id 3"


def test_S22_capture_timeout_follows_n_and_the_rate(cap):
    cap.start("YUYV", 160, 120, 5, on_frame=lambda f: None)
    try:
        # 3 s to start, then twice the time of n frames at the applied 5 fps.
        assert cap._capture_timeout(100, "YUYV", 5) == pytest.approx(3 + 2 * 100 / 5)
        assert cap._capture_timeout(10, "YUYV", 5) == pytest.approx(3 + 2 * 10 / 5)
    finally:
        cap.stop()
    # At 2 fps, 4 frames take 2 s: more than no timeout... and within the default.
    frames = cap.capture(4, "YUYV", 160, 120, fps=2)
    assert [f.sequence for f in frames] == sorted(f.sequence for f in frames) and len(frames) == 4


def test_S22_capture_timeout_keeps_the_frames_it_got(cap):
    with pytest.raises(TimeoutError) as ei:               # CamcoreTimeoutError
        cap.capture(50, "YUYV", 160, 120, fps=10, timeout=0.6)
    err = ei.value
    assert isinstance(err, camcore.CamcoreTimeoutError)
    assert 1 <= len(err.frames) < 50, len(err.frames)
    seqs = [f.sequence for f in err.frames]
    assert seqs == sorted(seqs)
    assert err.frames[0].array.shape == (120, 160, 2)
    assert f"{len(err.frames)} of 50 frames" in str(err)
    assert not cap.streaming


def test_S6_a_setting_goes_straight_to_start_capture_and_frames(manager, synth_id):
    s = manager.negotiate(synth_id, 320, 240, min_fps=15, max_fps=30, output="RGB24")
    assert (s.width, s.height, s.output) == (320, 240, "RGB3")
    with manager.open(synth_id) as cap:
        frames = cap.capture(2, s)
        assert frames[0].fourcc == "RGB3" and frames[0].array.shape == (240, 320, 3)
        assert cap.format.source_fourcc == s.fourcc and cap.format.fps == s.fps
        for f in cap.frames(1, s):
            assert f.array.shape == (240, 320, 3)
        got = []
        cap.start(s, on_frame=lambda f: got.append(f.fourcc))
        cap.stop()
        assert cap.format.width == 320
        # An explicit output wins over the setting's.
        assert cap.capture(1, s, output="NV12")[0].fourcc == "NV12"
    s2 = manager.format_for(synth_id, 640, 480, 30)
    with manager.session(synth_id) as sess:
        sess.start(s2)
        pid = sess.add_preview(lambda f: None)
        assert sess.state.format.width == 640
        sess.remove_preview(pid)


FOURCCS = ["YUYV", "YU12", "NV12", "MJPG", "RGB3", "BGR3", "GREY", "Y16 ", "Y16 -BE",
           "RGB565", "AB24"]


def test_S5_fourcc_names_as_v4l2_ctl_prints_them():
    y16 = camcore.fourcc("Y16 ")
    be = y16 | camcore.FOURCC_BIG_ENDIAN
    assert camcore.fourcc_str(y16) == "Y16 "
    assert camcore.fourcc_str(be) == "Y16 -BE"            # v4l2-ctl's fcc2s
    assert camcore.fourcc("Y16 -BE") == camcore.fourcc("Y16-BE") == camcore.fourcc("y16 -be".upper()) == be
    assert camcore.fourcc("Y16") == y16
    # Every format of camcore's table: its name is fourcc_str of its code, and parses back.
    seen = 0
    for name in FOURCCS:
        try:
            code = camcore.fourcc(name)
        except ValueError:
            continue
        pf = camcore.pixel_format(code)
        if pf is None:
            continue
        seen += 1
        assert pf.name == camcore.fourcc_str(code), (name, pf.name)
        assert camcore.fourcc(pf.name) == code
    assert seen >= 8
    with pytest.raises(ValueError):
        camcore.fourcc("TOOLONG")


def test_vision_loop_example_runs_on_the_synthetic_camera():
    r = run_python([str(EXAMPLES / "vision_loop.py"), "--frames", "8", "--size", "320x240"],
                   env_extra={"CAMCORE_SYNTHETIC_CAMERA": "0"}, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert "delivered as RGB24" in lines[1] or "delivered as RGB24" in lines[0]
    assert sum(l.startswith("frame ") for l in lines) == 8
    assert "8 RGB frames" in lines[-1] and "motion seen in 7 of 7" in lines[-1], lines[-1]


def test_video_call_example_runs_on_the_synthetic_cameras():
    r = run_python([str(EXAMPLES / "video_call.py"), "--seconds", "0.25", "--size", "320x240"],
                   timeout=90)
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    assert "6. flipped synthetic:0 -> synthetic:1" in out, out
    assert "4. self view closed while paused" in out and "camera off" in out
    assert out.strip().endswith("call done: every step as expected")


@pytest.mark.parametrize("fps", [float("nan"), float("inf"), float("-inf"), (1, 2, 3), ("30", 1), (True, 1)])
def test_S7_a_rate_that_is_not_a_number_is_an_argument_error(cap, manager, synth_id, fps):
    """NaN, infinities and malformed (num, den) pairs are InvalidArgError like any
    bad argument (not ValueError/OverflowError from fractions), and nothing starts."""
    with pytest.raises(camcore.InvalidArgError):
        cap.start(fps=fps, on_frame=lambda f: None)
    assert not cap.streaming
    with pytest.raises(camcore.InvalidArgError):
        manager.negotiate(synth_id, 640, 480, max_fps=fps)
    assert len(cap.capture(1, fps=30)) == 1
