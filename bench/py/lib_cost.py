#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Library cost of the Python entry points, in a fresh process: the time
`import camcore` (the camcore package, bindings/python: ctypes loads libcamcore) or
`import cv2` (opencv-python-headless) takes, with numpy already imported
(both need it), the shared objects the import maps and their bytes on disk,
and the resident memory it adds. One JSON line on stdout.

  lib_cost.py camcore|cv2
"""
from __future__ import annotations

import json
import os
import sys
import time


def mapped() -> set:
    out = set()
    with open("/proc/self/maps") as f:
        for line in f:
            i = line.find("/")
            if i >= 0 and ".so" in line[i:]:
                out.add(line[i:].strip())
    return out


def rss_kb() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def main() -> None:
    which = sys.argv[1]
    import numpy  # noqa: F401  (both sides need it; not counted)

    before, rss0 = mapped(), rss_kb()
    t0 = time.perf_counter()
    if which == "camcore":
        import camcore
        mod_dir = os.path.dirname(os.path.realpath(os.environ.get("CAMCORE_LIBRARY", "")))
        version = camcore.version()
    else:
        import cv2
        mod_dir = os.path.dirname(os.path.dirname(os.path.realpath(cv2.__file__)))
        version = cv2.__version__
    t1 = time.perf_counter()
    rss1 = rss_kb()
    added = sorted(mapped() - before)
    if which == "camcore":
        own = [p for p in added if "libcamcore" in os.path.basename(p)]
    else:
        own = [p for p in added if p.startswith(mod_dir + "/cv2") or "opencv_python_headless" in p]
    size = lambda ps: sum(os.path.getsize(p) for p in ps if os.path.exists(p))
    print(json.dumps({
        "prog": "import-" + which, "version": version, "import_ms": (t1 - t0) * 1e3,
        "own_so": [os.path.basename(p) for p in own], "own_so_bytes": size(own),
        "so_added": len(added), "so_added_bytes": size(added), "rss_added_kb": rss1 - rss0,
    }))


if __name__ == "__main__":
    main()
