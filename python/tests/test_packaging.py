"""What the wheel promises wherever it is installed: one version, a loadable extension that
needs nothing beyond the manylinux baseline, and type information (py.typed, the extension's
stub as nanobind's stubgen writes it)."""

import importlib.metadata
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

import tcnum
from tcnum import _tcnum

REPO = pathlib.Path(__file__).resolve().parents[2]
PACKAGE = pathlib.Path(tcnum.__file__).parent

# Libraries every manylinux system provides (auditwheel's manylinux policies) and that the
# extension may need: the C and C++ runtimes and zlib. libdeflate is linked statically (CMakeLists.txt).
MANYLINUX_LIBRARIES = {"libc.so.6", "libm.so.6", "libstdc++.so.6", "libgcc_s.so.1", "libpthread.so.0",
                       "libdl.so.2", "librt.so.1", "libz.so.1", "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1"}


def project_version():
    text = (REPO / "CMakeLists.txt").read_text()
    return re.search(r"project\(tcnum VERSION ([0-9][0-9.]*)", text).group(1)


def test_one_version_everywhere():
    assert tcnum.__version__ == project_version() == _tcnum.__version__
    try:
        installed = importlib.metadata.version("tcnum")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("tcnum runs from a build tree, not an installed distribution")
    assert installed == tcnum.__version__


def test_build_info_names_the_build():
    info = tcnum.build_info()
    assert info["version"] == tcnum.__version__
    assert info["git_revision"] and info["compiler"]
    assert info["simd"] in {"avx512", "avx2", "baseline", "portable"}


def needed_libraries(path):
    out = subprocess.run(["readelf", "-d", str(path)], check=True, capture_output=True, text=True).stdout
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)


@pytest.mark.skipif(shutil.which("readelf") is None, reason="readelf (binutils) not installed")
def test_extension_needs_only_manylinux_libraries():
    needed = needed_libraries(_tcnum.__file__)
    assert "libc.so.6" in needed, f"readelf found no NEEDED entries in {_tcnum.__file__}: {needed}"
    outside = sorted(set(needed) - MANYLINUX_LIBRARIES)
    assert not outside, f"{_tcnum.__file__} needs {outside}, which a manylinux host need not have"


def test_type_information_ships():
    assert (PACKAGE / "py.typed").is_file()
    assert (PACKAGE / "_tcnum.pyi").is_file(), "the extension's stub (python/tcnum/_tcnum.pyi) is not installed"


def test_stub_matches_the_extension(tmp_path):
    """python/tcnum/_tcnum.pyi is what stubgen writes for the built extension; regenerate it with
    python -m nanobind.stubgen -m tcnum._tcnum -o python/tcnum/_tcnum.pyi (tcnum importable)."""
    pytest.importorskip("nanobind.stubgen", reason="nanobind is not installed in this environment")
    fresh = tmp_path / "_tcnum.pyi"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(PACKAGE.parent), os.environ.get("PYTHONPATH", "")]))
    subprocess.run([sys.executable, "-m", "nanobind.stubgen", "-q", "-m", "tcnum._tcnum", "-o", str(fresh)],
                   check=True, env=env)
    checked_in = REPO / "python" / "tcnum" / "_tcnum.pyi"
    assert fresh.read_text() == checked_in.read_text(), (
        f"{checked_in} differs from nanobind's stubgen output for this build; regenerate it: {test_stub_matches_the_extension.__doc__}")
