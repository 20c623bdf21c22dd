"""tcnum's pytest plugin: fixtures for kernel tests with tcnum as the oracle.

Installed with the package (entry point ``pytest11``: ``tcnum = tcnum.pytest_plugin``), so a
test suite gets, without a conftest:

- ``tcnum_arch``: the architecture to emulate, ``"sm_90"`` unless ``--tcnum-arch sm_80``;
- ``tcnum_rng``: a ``numpy.random.Generator`` seeded from ``--tcnum-seed`` (default 0) and the
  test's id, so every test draws its own reproducible stream (the seed is in the header and in
  a failing test's report);
- ``assert_bitexact``: ``tcnum.testing.assert_bitexact`` (AssertionError on any difference,
  shape and dtype included, with the C++ compare report).

Hypothesis strategies for every format and for whole GEMM problems: ``tcnum.strategies``.
Disable the plugin with ``-p no:tcnum``.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from . import testing as _testing
from ._catalog import arch_number

__all__ = ["assert_bitexact_fixture", "tcnum_arch", "tcnum_rng", "tcnum_seed"]


def pytest_addoption(parser):
    group = parser.getgroup("tcnum", "tcnum (bit-exact tensor-core oracle)")
    group.addoption("--tcnum-arch", default="sm_90",
                    help="architecture the tcnum_arch fixture gives, e.g. sm_80 (default: sm_90)")
    group.addoption("--tcnum-seed", type=int, default=0,
                    help="base seed of the tcnum_rng fixture; each test mixes in its own id (default: 0)")


def pytest_configure(config):
    arch = config.getoption("--tcnum-arch", default="sm_90")
    try:
        arch_number(arch)
    except ValueError as e:
        raise pytest.UsageError(f"--tcnum-arch {arch}: {e}") from None


def pytest_report_header(config):
    return (f"tcnum: --tcnum-arch {config.getoption('--tcnum-arch', default='sm_90')}, "
            f"--tcnum-seed {config.getoption('--tcnum-seed', default=0)}")


@pytest.fixture(scope="session")
def tcnum_arch(request) -> str:
    """The architecture under test: --tcnum-arch (default sm_90)."""
    return request.config.getoption("--tcnum-arch", default="sm_90")


@pytest.fixture
def tcnum_seed(request) -> int:
    """This test's seed: --tcnum-seed mixed with the test's id (stable across runs and machines)."""
    base = request.config.getoption("--tcnum-seed", default=0)
    return (int(base) << 32) ^ zlib.crc32(request.node.nodeid.encode())


@pytest.fixture
def tcnum_rng(request, tcnum_seed) -> np.random.Generator:
    """numpy.random.default_rng(tcnum_seed); the seed is added to the test's report sections."""
    request.node.add_report_section("call", "tcnum", f"tcnum_rng seed {tcnum_seed}")
    return np.random.default_rng(tcnum_seed)


@pytest.fixture(name="assert_bitexact")
def assert_bitexact_fixture():
    """tcnum.testing.assert_bitexact(actual, expected, *, format=None, max_report=10, msg="")."""
    return _testing.assert_bitexact

