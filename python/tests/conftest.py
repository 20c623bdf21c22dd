import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def corpus_files():
    files = sorted((REPO / "corpora").glob("**/*.tcc.gz")) + sorted((REPO / "corpora").glob("**/*.tcc"))
    assert files, f"no corpus files under {REPO / 'corpora'}"
    return files
