# SPDX-License-Identifier: MIT
"""What the tests of `camcore view` share (Tests/python/test_view.py on the
host's synthetic camera, Tests/kernel/test_view.py on vivid in the guest):

- `Xvfb`: a virtual X display (Debian's xvfb), started on a free display
  number (-displayfd) and stopped at the end;
- `View`: `camcore view` in that display, with its stderr collected, its
  window found by title, keys sent with xdotool (XTEST, as a user types),
  the close button pressed (a WM_DELETE_WINDOW client message, as a window
  manager sends it), screenshots of the window taken with imagemagick's
  `import -window root` and cut to the window's geometry;
- `bar_check`: where a picture shows vertical colour bars of a known order
  (sliding, as the synthetic camera's do), the bars' centres and their
  colours.
"""
from __future__ import annotations

import ctypes
import os
import re
import shutil
import subprocess
import threading
import time
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

# 100% colour bars (the synthetic camera; BT.601 limited range YUV shown as
# RGB by SDL), in order: white, yellow, cyan, green, magenta, red, blue, black.
BARS_100 = [(255, 255, 255), (255, 255, 0), (0, 255, 255), (0, 255, 0),
            (255, 0, 255), (255, 0, 0), (0, 0, 255), (0, 0, 0)]
# vivid's default test pattern, 75% colour bars, same order.
BARS_75 = [(191, 191, 191), (191, 191, 0), (0, 191, 191), (0, 191, 0),
           (191, 0, 191), (191, 0, 0), (0, 0, 191), (0, 0, 0)]
# The camera-off frame of `camcore view` (cmd_view.c).
OFF_GREY = (40, 40, 48)

TOOLS = ("Xvfb", "xdotool", "import")


def missing_tools() -> List[str]:
    return [t for t in TOOLS if shutil.which(t) is None]


class Xvfb:
    """A virtual X display for the tests; `display` is ":N"."""

    def __init__(self, size: str = "1024x768x24"):
        r, w = os.pipe()
        self.proc = subprocess.Popen(["Xvfb", "-displayfd", str(w), "-screen", "0", size, "-nolisten", "tcp",
                                      "-noreset"], pass_fds=(w,), stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
        os.close(w)
        text = b""
        with os.fdopen(r, "rb") as f:
            while not text.endswith(b"\n"):
                c = f.read(1)
                if not c:
                    break
                text += c
        if not text.strip().isdigit():
            self.proc.kill()
            raise RuntimeError("Xvfb did not start: " + self.proc.stderr.read().decode(errors="replace"))
        self.display = ":" + text.decode().strip()

    def env(self) -> Dict[str, str]:
        e = dict(os.environ)
        e["DISPLAY"] = self.display
        e.pop("WAYLAND_DISPLAY", None)
        return e

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class View:
    """`camcore view ARGS` on the display; lines of its stderr in `lines`."""

    def __init__(self, x: Xvfb, tool: str, *args: str, env_extra: Optional[Dict[str, str]] = None):
        self.x = x
        env = x.env()
        env.update(env_extra or {})
        self.proc = subprocess.Popen([tool, "view", *args], env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        self.lines: List[str] = []
        self.cond = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.window: Optional[str] = None

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            with self.cond:
                self.lines.append(line.rstrip("\n"))
                self.cond.notify_all()

    def xdotool(self, *args: str) -> str:
        r = subprocess.run(["xdotool", *args], env=self.x.env(), capture_output=True, text=True, timeout=10)
        return r.stdout.strip() if r.returncode == 0 else ""

    def wait_window(self, timeout: float = 20) -> str:
        """The window's X id, once it is mapped and titled 'camcore view...'."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise AssertionError(f"camcore view exited ({self.proc.returncode}): {self.lines}")
            ids = self.xdotool("search", "--onlyvisible", "--name", "^camcore view").split()
            if ids:
                self.window = ids[0]
                return self.window
            time.sleep(0.05)
        raise AssertionError(f"no camcore view window within {timeout} s: {self.lines}")

    def title(self) -> str:
        assert self.window
        return self.xdotool("getwindowname", self.window)

    def wait_title(self, pattern: str, timeout: float = 10) -> re.Match:
        end = time.monotonic() + timeout
        t = ""
        while time.monotonic() < end:
            t = self.title()
            m = re.search(pattern, t)
            if m:
                return m
            time.sleep(0.05)
        raise AssertionError(f"title {t!r} never matched {pattern!r}; stderr: {self.lines}")

    def wait_line(self, needle: str, timeout: float = 10, start: int = 0) -> str:
        end = time.monotonic() + timeout
        with self.cond:
            while True:
                for line in self.lines[start:]:
                    if needle in line:
                        return line
                left = end - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no stderr line with {needle!r}: {self.lines}")
                self.cond.wait(left)

    def key(self, *keys: str) -> None:
        """Types keys into the window (focus, then XTEST key events)."""
        assert self.window
        subprocess.run(["xdotool", "windowfocus", "--sync", self.window, "key", *keys], env=self.x.env(),
                       check=True, timeout=10)

    def geometry(self) -> Tuple[int, int, int, int]:
        """x, y, width, height of the window on the screen."""
        assert self.window
        out = self.xdotool("getwindowgeometry", "--shell", self.window)
        g = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
        return int(g["X"]), int(g["Y"]), int(g["WIDTH"]), int(g["HEIGHT"])

    def screenshot(self, save: Optional[str] = None) -> np.ndarray:
        """The window's pixels now, (height, width, 3) uint8 RGB, from a
        screenshot of the whole display (`import -window root`)."""
        x, y, w, h = self.geometry()
        r = subprocess.run(["import", "-window", "root", "-depth", "8", "rgb:-"], env=self.x.env(),
                           capture_output=True, timeout=30, check=True)
        sw, sh = screen_size(self.x)
        screen = np.frombuffer(r.stdout, dtype=np.uint8)
        assert screen.size == sw * sh * 3, (screen.size, sw, sh)
        screen = screen.reshape(sh, sw, 3)
        if save:
            subprocess.run(["import", "-window", "root", "-crop", f"{w}x{h}+{x}+{y}", save], env=self.x.env(),
                           check=True, timeout=30)
        return screen[y:y + h, x:x + w].copy()

    def close_button(self) -> None:
        """What a window manager sends when the close button is pressed:
        a WM_PROTOCOLS client message carrying WM_DELETE_WINDOW."""
        assert self.window
        send_delete_window(self.x.display, int(self.window))

    def wait_exit(self, timeout: float = 15) -> int:
        try:
            rc = self.proc.wait(timeout)
        finally:
            self.reader.join(5)
        return rc

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def screen_size(x: Xvfb) -> Tuple[int, int]:
    r = subprocess.run(["xdotool", "getdisplaygeometry"], env=x.env(), capture_output=True, text=True,
                       check=True, timeout=10)
    w, h = r.stdout.split()
    return int(w), int(h)


class _XClientMessageEvent(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("serial", ctypes.c_ulong), ("send_event", ctypes.c_int),
                ("display", ctypes.c_void_p), ("window", ctypes.c_ulong), ("message_type", ctypes.c_ulong),
                ("format", ctypes.c_int), ("l", ctypes.c_long * 5)]


class _XEvent(ctypes.Union):
    _fields_ = [("xclient", _XClientMessageEvent), ("pad", ctypes.c_long * 24)]


def send_delete_window(display: str, window: int) -> None:
    x11 = ctypes.CDLL("libX11.so.6")
    x11.XOpenDisplay.restype = ctypes.c_void_p
    x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
    x11.XInternAtom.restype = ctypes.c_ulong
    x11.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
    x11.XSendEvent.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_long,
                               ctypes.POINTER(_XEvent)]
    x11.XFlush.argtypes = [ctypes.c_void_p]
    x11.XCloseDisplay.argtypes = [ctypes.c_void_p]
    dpy = x11.XOpenDisplay(display.encode())
    assert dpy, f"cannot open display {display}"
    try:
        ev = _XEvent()
        ev.xclient.type = 33  # ClientMessage
        ev.xclient.window = window
        ev.xclient.message_type = x11.XInternAtom(dpy, b"WM_PROTOCOLS", 0)
        ev.xclient.format = 32
        ev.xclient.l[0] = x11.XInternAtom(dpy, b"WM_DELETE_WINDOW", 0)
        ev.xclient.l[1] = 0  # CurrentTime
        assert x11.XSendEvent(dpy, window, 0, 0, ctypes.byref(ev)) != 0
        x11.XFlush(dpy)
    finally:
        x11.XCloseDisplay(dpy)


def nearest(px: Sequence[int], colours: Sequence[Tuple[int, int, int]]) -> int:
    d = [sum((int(a) - b) ** 2 for a, b in zip(px, c)) for c in colours]
    return int(np.argmin(d))


def bar_row(row: np.ndarray, colours: Sequence[Tuple[int, int, int]], tolerance: int = 48) -> Optional[List[dict]]:
    """The bars of one row of pixels, or None when the row is not a clean
    run of them: every pixel is classified to the nearest bar colour; runs
    shorter than 1/32 of the width (edges, blended chroma) are ignored; the
    runs that are whole (not cut by the picture's edges) must be about
    width/8 wide and follow the bars' cyclic order, and each run's centre
    pixel must be within `tolerance` of its bar's colour in every channel.
    Returns [{"index", "start", "end", "centre", "rgb"}] of the whole runs."""
    w = row.shape[0]
    cls = np.array([nearest(p, colours) for p in row])
    runs = []
    start = 0
    for x in range(1, w + 1):
        if x == w or cls[x] != cls[start]:
            runs.append((int(cls[start]), start, x))
            start = x
    runs = [r for r in runs if r[2] - r[1] >= max(2, w // 32)]
    if len(runs) < 6:
        return None
    whole = runs[1:-1]
    bar_w = w / 8
    out = []
    for i, (c, a, b) in enumerate(whole):
        if abs((b - a) - bar_w) > max(4, bar_w * 0.1):
            return None
        if i and c != (whole[i - 1][0] + 1) % 8:
            return None
        centre = (a + b) // 2
        rgb = tuple(int(v) for v in row[centre])
        if any(abs(v - e) > tolerance for v, e in zip(rgb, colours[c])):
            return None
        out.append({"index": c, "start": a, "end": b, "centre": centre, "rgb": rgb})
    return out


def bar_check(picture: np.ndarray, colours: Sequence[Tuple[int, int, int]],
              rows: Sequence[float] = (0.3, 0.45, 0.6, 0.75)) -> Dict[float, Optional[List[dict]]]:
    """bar_row() at each fraction of the picture's height."""
    h = picture.shape[0]
    return {f: bar_row(picture[int(h * f)], colours) for f in rows}


def uniform(picture: np.ndarray, rgb: Tuple[int, int, int], rows: Sequence[float], tolerance: int = 6) -> bool:
    """Every pixel of the rows at these height fractions is within tolerance of rgb."""
    h = picture.shape[0]
    for f in rows:
        row = picture[int(h * f)].astype(int)
        if np.abs(row - np.array(rgb)).max() > tolerance:
            return False
    return True
