import importlib.util
import pathlib

import pytest

import tcnum.pytest_plugin

pytest_plugins = ["pytester"]  # test_strategies.py runs the plugin in a pytest of its own

REPO = pathlib.Path(__file__).resolve().parents[2]


def load_tool(name: str):
    """tools/libraries/<name>.py as a module (the library tools are scripts, not a package)."""
    spec = importlib.util.spec_from_file_location(name, REPO / "tools" / "libraries" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="session")
def corpus_files():
    files = sorted((REPO / "corpora").glob("**/*.tcc.gz")) + sorted((REPO / "corpora").glob("**/*.tcc"))
    assert files, f"no corpus files under {REPO / 'corpora'}"
    return files


def pytest_configure(config):
    config.addinivalue_line("markers", "corpus_replay: replays every recorded library call (minutes; ctest runs "
                            "these as python/library-replay, beside the rest of the suite)")
    # The suite uses tcnum's own pytest plugin (fixtures tcnum_arch, tcnum_rng, assert_bitexact).
    # An installed tcnum registers it through its pytest11 entry point; a build tree on
    # PYTHONPATH has no entry point, so it is registered here (once either way).
    if not config.pluginmanager.is_registered(tcnum.pytest_plugin):
        config.pluginmanager.register(tcnum.pytest_plugin, "tcnum")
