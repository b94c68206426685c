# SPDX-License-Identifier: MIT
"""The camcore package as users install it (issue 16): the pure wheel and `pip install
bindings/python` find libcamcore through CAMCORE_LIBRARY, pkg-config or the loader
path; the self-contained wheel carries libcamcore and the libraries a stock Debian
12 lacks. Each is installed into a fresh venv (no network: --no-index) and run with
none of the variables that point at the build tree. Also: mypy, __all__, type
hints on every public name, no method attached to a class from outside it, and
numpy imported only when an array is asked for."""
import inspect
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import camcore
from conftest import BINDING, ROOT, STAGE_LIB

# Variables that would let a venv find the tree's library or package.
POINTERS = ("CAMCORE_LIBRARY", "LD_LIBRARY_PATH", "PKG_CONFIG_PATH", "PYTHONPATH",
            "CAMCORE_SYNTHETIC_CAMERA")

# Runs inside the venv: lists the synthetic camera, captures 3 frames through a
# callback (metadata only: the venv has no numpy), asks for an array.
PROBE = r"""
import sys, threading, camcore
print("path", camcore.library_path)
print("file", camcore.__file__)
with camcore.Manager(synthetic=True) as m:
    dev = [d for d in m.devices() if d.synthetic][0]
    s = m.negotiate(dev.id, 320, 240)
    seqs, done = [], threading.Event()
    def on_frame(f):
        seqs.append(f.sequence)
        if len(seqs) == 3:
            try:
                f.array
            except ImportError as e:
                print("array", "ImportError", "numpy" in str(e))
            else:
                print("array", "ok")
            done.set()
    with m.open(dev.id) as cap:
        cap.start(s, on_frame=on_frame)
        assert done.wait(10), seqs
        cap.stop()
print("frames", len(seqs) >= 3)
print("numpy", "numpy" in sys.modules)
maps = [l.split()[-1] for l in open("/proc/self/maps") if ".so" in l]
for name in ("libcamcore", "libyuv", "libturbojpeg", "libv4l2", "libv4lconvert", "libjpeg"):
    hits = sorted({p for p in maps if "/" + name + "." in p})
    print("lib:" + name, hits[0] if hits else "-")
"""


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in POINTERS}
    env.update(extra)
    return env


def pip(*args, cwd=None):
    r = subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", *args],
                       capture_output=True, text=True, timeout=120, cwd=cwd,
                       env=clean_env(PIP_NO_INDEX="1"))
    assert r.returncode == 0, r.stdout + r.stderr
    return r


def fresh_venv(path: Path) -> Path:
    """A new venv without pip (pip runs from outside with --python): quick, and
    nothing in it but the standard library."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True,
                   timeout=60)
    return path / "bin" / "python"


def install(py: Path, target: str):
    pip("--python", str(py), "install", "--no-index", "--no-deps", "--no-build-isolation",
        "-q", target)


def probe(py: Path, cwd, **env):
    r = subprocess.run([str(py), "-c", PROBE], capture_output=True, text=True, timeout=60,
                       cwd=cwd, env=clean_env(**env))
    return r, dict((l.split(" ", 1) + [""])[:2] for l in r.stdout.splitlines())


@pytest.fixture(scope="module")
def wheels(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheels")
    # `make wheel`, as the README says, into a folder of the test's own.
    r = subprocess.run(["make", "-s", "-C", str(ROOT), "wheel", f"WHEELS={out}", f"PYTHON={sys.executable}"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    pure = list(out.glob("camcore-*-py3-none-any.whl"))
    assert len(pure) == 1, list(out.iterdir())
    return pure[0]


def test_wheels_carry_the_mit_licence(wheels, bundled):
    import zipfile
    version = camcore.__version__
    with zipfile.ZipFile(wheels) as z:
        meta = z.read(f"camcore-{version}.dist-info/METADATA").decode()
        assert "License: MIT" in meta and "License :: OSI Approved :: MIT License" in meta, meta[:600]
        assert z.read(f"camcore-{version}.dist-info/LICENSE").startswith(b"MIT License")
    with zipfile.ZipFile(bundled[0]) as z:
        names = z.namelist()
        assert z.read(f"camcore-{version}.dist-info/LICENSE").startswith(b"MIT License")
        # The bundled libraries' own licences, from their Debian packages.
        for pkg in ("libyuv0", "libturbojpeg0", "libv4l-0", "libv4lconvert0", "libjpeg62-turbo"):
            name = f"camcore/_libs/LICENSES/{pkg}.copyright"
            assert name in names, names
            assert b"Copyright" in z.read(name) or b"copyright" in z.read(name), name


@pytest.fixture(scope="module")
def bundled(tmp_path_factory):
    if not shutil.which("patchelf"):
        pytest.fail("patchelf is needed for the self-contained wheel: run .ci/setup")
    out = tmp_path_factory.mktemp("bundled")
    r = subprocess.run([sys.executable, str(BINDING / "bundle_wheel.py"),
                        str(STAGE_LIB / "libcamcore.so.0"), str(out)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    whl = list(out.glob("camcore-*-linux_*.whl"))
    assert len(whl) == 1
    return whl[0], r.stdout


def test_pure_wheel_finds_the_library_each_way(wheels, tmp_path):
    py = fresh_venv(tmp_path / "venv")
    install(py, str(wheels))
    # Nothing points at a library: a clear ImportError, naming the ways to give one.
    r, _ = probe(py, tmp_path)
    installed = "libcamcore" in os.popen("ldconfig -p").read() or subprocess.run(
        ["pkg-config", "--exists", "camcore"], env=clean_env()).returncode == 0
    if not installed:
        assert r.returncode != 0
        assert "ImportError" in r.stderr and "CAMCORE_LIBRARY" in r.stderr, r.stderr
    lib = str(STAGE_LIB / "libcamcore.so.0")
    for env, want in ((dict(CAMCORE_LIBRARY=lib), lib),
                      (dict(PKG_CONFIG_PATH=str(STAGE_LIB / "pkgconfig")), lib),
                      (dict(LD_LIBRARY_PATH=str(STAGE_LIB)), None)):
        r, out = probe(py, tmp_path, **env)
        assert r.returncode == 0, (env, r.stderr)
        assert out["file"].startswith(str(tmp_path / "venv")), out   # the installed copy
        if want:
            assert out["path"] == want, (env, out)
        assert out["lib:libcamcore"].startswith(str(STAGE_LIB)), out
        assert out["frames"] == "True"
        # The venv has no numpy: listing and capture worked, an array says why not.
        assert out["numpy"] == "False" and out["array"] == "ImportError True", out


def test_pip_install_of_the_source_tree(tmp_path):
    py = fresh_venv(tmp_path / "venv")
    install(py, str(BINDING))         # the in-tree backend: no setuptools, no network
    r, out = probe(py, tmp_path, PKG_CONFIG_PATH=str(STAGE_LIB / "pkgconfig"))
    assert r.returncode == 0, r.stderr
    assert out["file"].startswith(str(tmp_path / "venv")) and out["frames"] == "True", out
    site = Path(out["file"]).parent
    assert (site / "py.typed").exists()
    assert not (site / "_libs").exists()      # only the self-contained wheel carries libraries


def test_self_contained_wheel_carries_its_libraries(bundled, tmp_path):
    whl, log = bundled
    # What a stock Debian 12 lacks is inside, from these Debian packages.
    for pkg in ("libyuv0", "libturbojpeg0", "libv4l-0", "libv4lconvert0", "libjpeg62-turbo"):
        assert f"({pkg})" in log, log
    assert "libudev" not in log and "libstdc++" not in log and "libc.so" not in log, log
    py = fresh_venv(tmp_path / "venv")
    install(py, str(whl))
    r, out = probe(py, tmp_path)      # no CAMCORE_LIBRARY, LD_LIBRARY_PATH or PKG_CONFIG_PATH
    assert r.returncode == 0, r.stderr
    libs = str(tmp_path / "venv") + "/"
    assert out["path"].startswith(libs) and out["path"].endswith("/camcore/_libs/libcamcore.so.0")
    for name in ("libcamcore", "libyuv", "libturbojpeg", "libv4l2", "libv4lconvert", "libjpeg"):
        assert out["lib:" + name].startswith(libs), (name, out)   # each the wheel's copy
    assert out["frames"] == "True"
    rpath = subprocess.run(["patchelf", "--print-rpath", out["path"]], capture_output=True,
                           text=True).stdout.strip()
    assert rpath == "$ORIGIN"


def test_mypy_passes():
    import importlib.util
    assert importlib.util.find_spec("mypy"), "mypy is not installed (.ci/setup installs it)"
    r = subprocess.run([sys.executable, "-m", "mypy", "--config-file", "pyproject.toml",
                        "--cache-dir", str(ROOT / "build" / "mypy-cache")],
                       cwd=BINDING, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Success" in r.stdout


def test_version_and_py_typed():
    assert camcore.__version__ == ".".join(map(str, camcore.VERSION)) == camcore.version()
    assert (BINDING / "camcore" / "py.typed").exists()
    toml = (BINDING / "pyproject.toml").read_text()
    assert f'version = "{camcore.__version__}"' in toml


def public_members():
    for name in camcore.__all__:
        yield name, getattr(camcore, name)


def test_all_is_complete_and_exact():
    assert len(camcore.__all__) == len(set(camcore.__all__))
    for name in camcore.__all__:
        assert hasattr(camcore, name), name
    # Every public name of the package namespace (not its submodules) is listed.
    extra = {n for n, v in vars(camcore).items()
             if not n.startswith("_") and not inspect.ismodule(v) and n not in ("annotations",)}
    assert extra - set(camcore.__all__) == set()
    assert not [n for n in camcore.__all__ if n.endswith("_") and not n.startswith("__")]


def _check_annotated(qual, fn, missing):
    fn = inspect.unwrap(fn)
    sig = inspect.signature(fn)
    for p in sig.parameters.values():
        if p.name in ("self", "cls") or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and \
                p.annotation is not p.empty:
            continue
        if p.annotation is p.empty:
            missing.append(f"{qual}({p.name})")
    if sig.return_annotation is sig.empty and fn.__name__ != "__init__":
        missing.append(f"{qual} -> ?")


def test_every_public_name_has_type_hints():
    missing = []
    for name, obj in public_members():
        if inspect.isfunction(obj):
            _check_annotated(name, obj, missing)
        elif inspect.isclass(obj) and obj.__module__.startswith("camcore"):
            for attr, member in vars(obj).items():
                if attr.startswith("_") and attr not in ("__init__", "__enter__", "__exit__"):
                    continue
                if isinstance(member, property):
                    _check_annotated(f"{name}.{attr}", member.fget, missing)
                    if member.fset:
                        _check_annotated(f"{name}.{attr}=", member.fset, missing)
                elif inspect.isfunction(member):
                    _check_annotated(f"{name}.{attr}", member, missing)
                elif isinstance(member, (staticmethod, classmethod)):
                    _check_annotated(f"{name}.{attr}", member.__func__, missing)
    assert missing == []


def test_no_method_is_attached_from_outside_its_class():
    for name, cls in public_members():
        if not (inspect.isclass(cls) and cls.__module__.startswith("camcore")):
            continue
        for attr, member in vars(cls).items():
            fn = member.fget if isinstance(member, property) else member
            if inspect.isfunction(fn):
                assert fn.__qualname__.startswith(cls.__name__ + "."), (name, attr, fn.__qualname__)


def test_raw_layer_is_apart_from_the_objects():
    raw = camcore._raw
    assert {name for name, _, _ in raw.PROTOTYPES} >= {"camcore_capturer_start", "camcore_session_flip"}
    assert not hasattr(raw, "Manager") and not hasattr(raw, "Capturer")
    for name in ("Manager", "Capturer", "Session", "Frame"):
        assert getattr(camcore, name).__module__ != "camcore._raw"


NO_NUMPY = r"""
import sys
sys.modules["numpy"] = None          # numpy cannot be imported
import camcore
with camcore.Manager(synthetic=True) as m:
    d = [d for d in m.devices() if d.synthetic][0]
    fmts = m.formats(d.id)
    s = m.negotiate(d.id, 640, 480)
    with m.open(d.id) as cap:
        for f in cap.frames(2, s):
            seq = f.sequence
        for f in cap.frames(1, s):
            try:
                f.array
            except ImportError as e:
                print("array:", e)
        got = cap.capture(3, s)
        print("captured", [(g.fourcc, g.width, g.height, type(g.planes[0]).__name__, len(g.planes[0]), g.array)
                           for g in got])
        assert got[0].sequence < got[1].sequence < got[2].sequence
print("listed", len(fmts), s.width)
"""


def test_listing_and_capture_work_without_numpy():
    from conftest import run_python
    r = run_python(NO_NUMPY)
    assert r.returncode == 0, r.stderr
    assert "listed" in r.stdout and "array: camcore: frame arrays need numpy" in r.stdout, r.stdout
    # capture(n) copies the planes as bytes when numpy is absent (YUYV 640x480: 614400 bytes).
    assert "captured " + repr([("YUYV", 640, 480, "bytes", 614400, None)] * 3) in r.stdout, r.stdout


def test_import_does_not_import_numpy():
    from conftest import run_python
    r = run_python("import sys, camcore\n"
                   "with camcore.Manager(synthetic=True) as m: m.devices()\n"
                   "print('numpy' in sys.modules)")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "False"
