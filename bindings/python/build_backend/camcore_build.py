# SPDX-License-Identifier: MIT
"""A PEP 517 build backend for the camcore package, standard library only.

Why not setuptools: the package is pure Python (ctypes), and building it
must work offline and in a bare venv (`pip install --no-index
bindings/python`, CI without network, `make wheel`). This backend writes
the wheel (and an sdist, and an editable install) directly from
pyproject.toml's [project] table; it needs nothing but Python.

The self-contained wheel, which also carries libcamcore.so and the
libraries it needs, is made from this wheel by ../bundle_wheel.py.
"""
from __future__ import annotations

import base64
import hashlib
import io
import os
import tarfile
import time
import zipfile
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

try:
    import tomllib
except ImportError:  # Python < 3.11: the package needs 3.11 anyway
    tomllib = None  # type: ignore[assignment]

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "camcore"
# Reproducible archives: a fixed date for every member (SOURCE_DATE_EPOCH wins).
_EPOCH = int(os.environ.get("SOURCE_DATE_EPOCH", "1700000000"))


def _project() -> Dict[str, Any]:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["project"]  # type: ignore[union-attr]


def _dist_name(p: Dict[str, Any]) -> str:
    return p["name"].replace("-", "_")


def _metadata(p: Dict[str, Any]) -> str:
    lines = ["Metadata-Version: 2.1", f"Name: {p['name']}", f"Version: {p['version']}",
             f"Summary: {p.get('description', '')}", f"Requires-Python: {p.get('requires-python', '')}"]
    lic = p.get("license", {})
    if isinstance(lic, dict) and lic.get("text"):
        lines.append(f"License: {lic['text']}")
    if _licence_file():
        lines.append("License-File: LICENSE")
    for c in p.get("classifiers", []):
        lines.append(f"Classifier: {c}")
    for extra, reqs in p.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        for r in reqs:
            lines.append(f'Requires-Dist: {r}; extra == "{extra}"')
    readme = ROOT / p.get("readme", "README.md")
    body = readme.read_text(encoding="utf-8") if readme.exists() else ""
    if body:
        lines.append("Description-Content-Type: text/markdown")
    return "\n".join(lines) + "\n\n" + body


def _licence_file() -> Optional[Path]:
    """camcore's LICENSE (bindings/python/LICENSE links to the repository's)."""
    path = ROOT / "LICENSE"
    return path if path.is_file() else None


def _package_files() -> List[Path]:
    files = []
    for path in sorted((ROOT / PACKAGE).rglob("*")):
        rel = path.relative_to(ROOT / PACKAGE).parts
        if not path.is_file() or any(part.startswith(".") or part == "__pycache__" for part in rel):
            continue
        if path.suffix == ".py" or path.name == "py.typed" or rel[0] == "_libs":
            files.append(path)
    return files


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def write_wheel(out_dir: str, members: List[Tuple[str, bytes, int]], tag: str,
                p: Optional[Dict[str, Any]] = None) -> str:
    """Writes a wheel of `members` ((archive name, data, mode)) tagged `tag`
    ("py3-none-any"); adds the .dist-info; returns the file name."""
    p = p or _project()
    name, version = _dist_name(p), p["version"]
    info = f"{name}-{version}.dist-info"
    pure = tag.endswith("-none-any")
    wheel_meta = ("Wheel-Version: 1.0\nGenerator: camcore_build\n"
                  f"Root-Is-Purelib: {'true' if pure else 'false'}\nTag: {tag}\n")
    members = list(members) + [(f"{info}/METADATA", _metadata(p).encode(), 0o644),
                               (f"{info}/WHEEL", wheel_meta.encode(), 0o644),
                               (f"{info}/top_level.txt", f"{PACKAGE}\n".encode(), 0o644)]
    lic = _licence_file()
    if lic:
        members.append((f"{info}/LICENSE", lic.read_bytes(), 0o644))
    record = [_record_line(n, d) for n, d, _ in members] + [f"{info}/RECORD,,"]
    members.append((f"{info}/RECORD", ("\n".join(record) + "\n").encode(), 0o644))
    filename = f"{name}-{version}-{tag}.whl"
    with zipfile.ZipFile(os.path.join(out_dir, filename), "w", zipfile.ZIP_DEFLATED) as z:
        for n, d, mode in members:
            zi = zipfile.ZipInfo(n, time.gmtime(_EPOCH)[:6])
            zi.external_attr = (0o100000 | mode) << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, d)
    return filename


def _pure_members() -> List[Tuple[str, bytes, int]]:
    return [(path.relative_to(ROOT).as_posix(), path.read_bytes(), 0o644)
            for path in _package_files()]


# -- PEP 517 / PEP 660 hooks ------------------------------------------------

def get_requires_for_build_wheel(config_settings: Any = None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings: Any = None) -> List[str]:
    return []


def get_requires_for_build_editable(config_settings: Any = None) -> List[str]:
    return []


def build_wheel(wheel_directory: str, config_settings: Any = None,
                metadata_directory: Optional[str] = None) -> str:
    return write_wheel(wheel_directory, _pure_members(), "py3-none-any")


def build_editable(wheel_directory: str, config_settings: Any = None,
                   metadata_directory: Optional[str] = None) -> str:
    # A .pth file puts the source tree on sys.path: edits take effect at once.
    pth = (str(ROOT) + "\n").encode()
    return write_wheel(wheel_directory, [(f"__editable__.{PACKAGE}.pth", pth, 0o644)],
                       "py3-none-any")


def build_sdist(sdist_directory: str, config_settings: Any = None) -> str:
    p = _project()
    base = f"{_dist_name(p)}-{p['version']}"
    filename = f"{base}.tar.gz"
    files = [ROOT / "pyproject.toml", ROOT / "README.md", ROOT / "build_backend" / "camcore_build.py"]
    files += _package_files()
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz") as tar:
        for path in files:
            if not path.exists():
                continue
            data = path.read_bytes()
            ti = tarfile.TarInfo(f"{base}/{path.relative_to(ROOT).as_posix()}")
            ti.size, ti.mtime, ti.mode = len(data), _EPOCH, 0o644
            tar.addfile(ti, io.BytesIO(data))
        meta = _metadata(p).encode()
        ti = tarfile.TarInfo(f"{base}/PKG-INFO")
        ti.size, ti.mtime, ti.mode = len(meta), _EPOCH, 0o644
        tar.addfile(ti, io.BytesIO(meta))
    return filename
