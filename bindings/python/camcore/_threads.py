# SPDX-License-Identifier: MIT
"""Thread hooks: one Python thread state per capture thread.

A ctypes callback on a thread Python does not know creates a thread state
on entry and destroys it on return (PyGILState_Ensure/Release): a third of
the cost of a frame callback. camcore_set_thread_hooks lets the binding
take one more PyGILState hold when a capture thread starts, so the state
lives as long as the thread, and give it back as the thread ends. Only
threads named "camcore-capture" (they call on_frame per frame) are
attached; their capturers and sessions are closed at exit (atexit), before
Python finalizes. Another user of the library in this process that installs
its own hooks replaces these (frames still arrive; each callback then pays
for its thread state again). CAMCORE_PY_THREAD_HOOKS=0 leaves them out.
"""
from __future__ import annotations

import ctypes
import os
import threading
from ctypes import byref, c_int
from typing import Optional

from ._raw import THREAD_HOOK, camcore_thread_hooks
from ._raw import lib as _lib

_gil_ensure = ctypes.pythonapi.PyGILState_Ensure
_gil_ensure.restype = c_int
_gil_ensure.argtypes = []
_gil_release = ctypes.pythonapi.PyGILState_Release
_gil_release.restype = None
_gil_release.argtypes = [c_int]
_thread_hold = threading.local()


def _on_thread_start(_user_data: Optional[int], name: Optional[bytes]) -> None:
    if name == b"camcore-capture":
        # Inside this callback the thread has a state; one more hold keeps it.
        _thread_hold.state = _gil_ensure()


def _on_thread_stop(_user_data: Optional[int], name: Optional[bytes]) -> None:
    state = getattr(_thread_hold, "state", None)
    if state is not None:
        del _thread_hold.state
        _gil_release(state)   # this callback's own hold ends the state on return


_thread_hook_fns = (THREAD_HOOK(_on_thread_start), THREAD_HOOK(_on_thread_stop))
_thread_hooks = camcore_thread_hooks()


def install() -> None:
    """Installs the hooks (once, at import) unless CAMCORE_PY_THREAD_HOOKS=0."""
    _lib.camcore_thread_hooks_init(byref(_thread_hooks))
    _thread_hooks.on_thread_start, _thread_hooks.on_thread_stop = _thread_hook_fns
    if os.environ.get("CAMCORE_PY_THREAD_HOOKS", "1") != "0":
        _lib.camcore_set_thread_hooks(byref(_thread_hooks))
