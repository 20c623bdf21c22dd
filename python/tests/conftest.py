import pathlib

import pytest

import tcnum.pytest_plugin

pytest_plugins = ["pytester"]  # test_strategies.py runs the plugin in a pytest of its own

REPO = pathlib.Path(__file__).resolve().parents[2]


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
