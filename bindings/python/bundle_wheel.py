#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Builds the self-contained camcore wheel: the package plus libcamcore.so and the
libraries it needs that a stock Debian 12 lacks, so that

    pip install camcore-<version>-py3-none-linux_<arch>.whl

works on a machine where libcamcore was never built or installed.

    python3 bindings/python/bundle_wheel.py LIBCAMCORE OUT_DIR

LIBCAMCORE is the built library (build/prefix/lib/libcamcore.so.0). Its
dependencies are read with ldd; every one is bundled except those a stock
Debian 12 (even a minimal install or the debian:12 image) always has:
glibc's (libc, libm, ld-linux, libpthread, libdl, librt), and libstdc++,
libgcc_s and libudev, which apt itself needs (libapt-pkg6.0 depends on
libstdc++6, libgcc-s1 and libudev1).
What is left on this project's build machines is libv4l2 and
libv4lconvert (Debian's libv4l-0, libv4lconvert0), libyuv (libyuv0),
libturbojpeg (libturbojpeg0) and libjpeg (libjpeg62-turbo); the script
prints the Debian package of each (dpkg -S) so a change shows. The copies
go to camcore/_libs/ with RPATH $ORIGIN (patchelf), so each finds the
others next to it; the package loads camcore/_libs/libcamcore.so.0 before
looking anywhere else (CAMCORE_LIBRARY still wins).

libcamcore loads libpipewire and libdbus at run time, only for the PipeWire
backend and the camera portal; those stay the system's (they make sense only
with the system's daemons) and are not bundled.
"""
from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Tuple

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "build_backend"))
import camcore_build  # noqa: E402

#: Libraries every stock Debian 12 has (sonames' stems): never bundled.
SYSTEM = ("linux-vdso", "ld-linux", "libc.so", "libm.so", "libpthread.so", "libdl.so",
          "librt.so", "libstdc++.so", "libgcc_s.so", "libudev.so")


def dependencies(lib: Path) -> Dict[str, Path]:
    """soname -> path of every library ldd lists for `lib` that is not SYSTEM."""
    out = subprocess.run(["ldd", str(lib)], check=True, capture_output=True, text=True).stdout
    deps: Dict[str, Path] = {}
    for line in out.splitlines():
        m = re.match(r"\s*(\S+) => (\S+) \(0x", line)
        if not m:
            if "not found" in line:
                raise SystemExit(f"bundle_wheel: {lib}: {line.strip()}")
            continue
        soname, path = m.group(1), Path(m.group(2))
        if not soname.startswith(SYSTEM):
            deps[soname] = path
    return deps


def debian_package(path: Path) -> str:
    if not shutil.which("dpkg"):
        return "?"
    for p in (path, path.resolve()):
        r = subprocess.run(["dpkg", "-S", str(p)], capture_output=True, text=True)
        if r.returncode == 0:
            return r.stdout.split(":")[0]
    return "not from a Debian package"


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    lib, out_dir = Path(sys.argv[1]), Path(sys.argv[2])
    patchelf = shutil.which("patchelf")
    if not patchelf:
        raise SystemExit("bundle_wheel: patchelf not found (apt-get install patchelf)")
    out_dir.mkdir(parents=True, exist_ok=True)
    bundle: List[Tuple[str, Path]] = [("libcamcore.so.0", lib.resolve())]
    bundle += sorted(dependencies(lib).items())
    members = [m for m in camcore_build._pure_members() if not m[0].startswith("camcore/_libs/")]
    with tempfile.TemporaryDirectory() as tmp:
        for soname, path in bundle:
            print(f"bundle_wheel: {soname:24s} {str(path):50s} ({debian_package(path)})")
            copy = Path(tmp) / soname
            shutil.copyfile(path.resolve(), copy)
            os.chmod(copy, 0o755)
            subprocess.run([patchelf, "--set-rpath", "$ORIGIN", str(copy)], check=True)
            members.append((f"camcore/_libs/{soname}", copy.read_bytes(), 0o755))
    # Each bundled library's licence (Debian's copyright file of its package).
    for pkg in sorted({debian_package(path) for _, path in bundle[1:]}):
        copyright_file = Path("/usr/share/doc") / pkg.split(":")[0] / "copyright"
        if not copyright_file.is_file():
            raise SystemExit(f"bundle_wheel: no licence text for {pkg} ({copyright_file})")
        members.append((f"camcore/_libs/LICENSES/{pkg}.copyright", copyright_file.read_bytes(), 0o644))
    machine = platform.machine()
    name = camcore_build.write_wheel(str(out_dir), members, f"py3-none-linux_{machine}")
    print(f"bundle_wheel: {out_dir / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
