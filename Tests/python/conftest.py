# SPDX-License-Identifier: MIT
"""pytest setup for the camcore Python tests (host, synthetic camera).

Finds the library the way users do (the camcore package): CAMCORE_LIBRARY if set,
else the staged build in build/prefix/lib (set here as CAMCORE_LIBRARY, so
subprocesses use the same one), else pkg-config / the loader path.
"""
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "python"
#: The camcore package (bindings/python/camcore), imported from the tree.
BINDING = ROOT / "bindings" / "python"
STAGE_LIB = ROOT / "build" / "prefix" / "lib"

if "CAMCORE_LIBRARY" not in os.environ and (STAGE_LIB / "libcamcore.so.0").exists():
    os.environ["CAMCORE_LIBRARY"] = str(STAGE_LIB / "libcamcore.so.0")
# The synthetic camera must be listed only when a test asks for it.
os.environ.pop("CAMCORE_SYNTHETIC_CAMERA", None)
sys.path.insert(0, str(EXAMPLES))   # capture.py and the other examples
sys.path.insert(0, str(BINDING))

import camcore  # noqa: E402


@pytest.fixture
def manager():
    """A manager that lists the synthetic camera."""
    with camcore.Manager(synthetic=True) as m:
        yield m


@pytest.fixture
def synth_id(manager):
    """The synthetic camera's device id."""
    ids = [d.id for d in manager.devices() if d.synthetic]
    assert len(ids) == 1, ids
    return ids[0]


@pytest.fixture
def cap(manager, synth_id):
    """An open capturer on the synthetic camera, closed after the test."""
    with manager.open(synth_id) as c:
        yield c


def run_python(code_or_args, env_extra=None, env_remove=(), timeout=60, cwd=None):
    """Runs python3 with `-c code` (str) or script args (list); returns CompletedProcess."""
    env = dict(os.environ)
    for k in env_remove:
        env.pop(k, None)
    env.update(env_extra or {})
    env["PYTHONPATH"] = str(BINDING) + os.pathsep + env.get("PYTHONPATH", "")
    args = [sys.executable] + (["-c", code_or_args] if isinstance(code_or_args, str)
                               else list(code_or_args))
    return subprocess.run(args, env=env, capture_output=True, text=True, timeout=timeout,
                          cwd=cwd)


def wait_until(pred, timeout=5.0, step=0.005):
    """Polls pred() until true or timeout; returns its last value."""
    end = time.monotonic() + timeout
    while True:
        v = pred()
        if v or time.monotonic() > end:
            return v
        time.sleep(step)
