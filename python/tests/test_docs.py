"""Docs as tests: the Python code of docs/python.md and README.md runs as written.

- Every ```python block of a file runs, in order, in one namespace per file (a later block may
  use what an earlier one made), with the repository root as the working directory.
- A ```text block right after a ```python block (blank lines between) is the output the docs
  show: what the block prints must equal it (trailing spaces aside).
- Every `python3 -c "..."` line of a ```sh block runs with this interpreter (the one-liners
  users paste); other shell lines (pip install, builds) are not run here.
- A block that imports an optional package (hypothesis, torch, jax) that is not installed is
  skipped, saying so.
- `<!-- docs-test: skip REASON -->` on the line before a block skips it (blocks that need a
  GPU, a network or a built C++ tree); the reason is stated there, next to the block.
"""

from __future__ import annotations

import contextlib
import io
import pathlib
import re
import shlex
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
DOCS = ["docs/python.md", "README.md"]
# Optional packages a block may import: where one is missing, that block is skipped, not failed.
OPTIONAL = {"hypothesis", "torch", "jax"}
_FENCE = re.compile(r"^```(\w*)\s*$")
_SKIP = re.compile(r"^<!--\s*docs-test:\s*skip\s+(.+?)\s*-->\s*$")


def blocks(path: pathlib.Path) -> list:
    """(language, first line number, text, skip reason or None) of every fenced block."""
    out, lines, i = [], path.read_text().splitlines(), 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m or not m.group(1):
            i += 1
            continue
        lang, start = m.group(1), i + 1
        j = start
        while j < len(lines) and lines[j].strip() != "```":
            j += 1
        prev = next((lines[p] for p in range(i - 1, -1, -1) if lines[p].strip()), "")
        skip = _SKIP.match(prev)
        out.append((lang, start + 1, "\n".join(lines[start:j]) + "\n", skip.group(1) if skip else None))
        i = j + 1
    return out


def python_steps(path: pathlib.Path) -> list:
    """(line, code, expected output or None, skip reason or None) of each python block."""
    bs, steps = blocks(path), []
    for n, (lang, line, text, skip) in enumerate(bs):
        if lang != "python":
            continue
        expected = None
        if n + 1 < len(bs) and bs[n + 1][0] == "text":
            between = path.read_text().splitlines()[line - 1 + text.count("\n"):bs[n + 1][1] - 2]
            if all(not s.strip() or s.strip() == "```" for s in between):
                expected = bs[n + 1][2]
        steps.append((line, text, expected, skip))
    return steps


def one_liners(path: pathlib.Path) -> list:
    """(line, code, skip reason) of every `python3 -c "..."` in the sh blocks."""
    out = []
    for lang, line, text, skip in blocks(path):
        if lang != "sh":
            continue
        for k, cmd in enumerate(text.splitlines()):
            if re.match(r"^\s*python3 -c ", cmd):
                argv = shlex.split(cmd.split(" #")[0] if cmd.count('"') == 2 else cmd)
                out.append((line + k, argv[2], skip))
    return out


def _normalise(text: str) -> str:
    return "\n".join(s.rstrip() for s in text.strip("\n").splitlines())


@pytest.mark.parametrize("doc", DOCS)
def test_python_blocks_run_as_written_and_print_what_the_docs_show(doc, monkeypatch):
    path = REPO / doc
    steps = python_steps(path)
    if not steps:
        pytest.skip(f"{doc} has no python blocks")
    monkeypatch.chdir(REPO)
    namespace: dict = {"__name__": "__docs__"}
    skipped = []
    for line, code, expected, skip in steps:
        if skip:
            skipped.append(f"{doc}:{line}: {skip}")
            continue
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(code, f"{doc}:{line}", "exec"), namespace)
        except ModuleNotFoundError as e:
            if e.name not in OPTIONAL:
                raise AssertionError(f"{doc}:{line}: the block raised {type(e).__name__}: {e}") from e
            skipped.append(f"{doc}:{line}: {e.name} is not installed")
            continue
        except Exception as e:  # the block, as a user pastes it, fails
            raise AssertionError(f"{doc}:{line}: the block raised {type(e).__name__}: {e}") from e
        if expected is not None:
            assert _normalise(out.getvalue()) == _normalise(expected), (
                f"{doc}:{line}: printed\n{out.getvalue()}\nbut the docs show\n{expected}")
    for s in skipped:
        print("skipped:", s)


@pytest.mark.parametrize("doc", DOCS)
def test_python_one_liners_of_shell_blocks_run(doc):
    cases = one_liners(REPO / doc)
    if not cases:
        pytest.skip(f"{doc} has no python3 -c lines")
    for line, code, skip in cases:
        if skip:
            continue
        r = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, f"{doc}:{line}: python3 -c failed:\n{r.stderr}"


def test_the_extractor_finds_blocks_outputs_and_skips(tmp_path):
    md = tmp_path / "x.md"
    md.write_text("intro\n\n```python\nprint(1 + 1)\n```\n\n```text\n2\n```\n\n"
                  "<!-- docs-test: skip needs a GPU -->\n```python\nimport torch\n```\n\n"
                  "```sh\npython3 -c \"print(3)\"\npip install x\n```\n")
    steps = python_steps(md)
    assert [(s[1], s[2], s[3]) for s in steps] == [("print(1 + 1)\n", "2\n", None),
                                                   ("import torch\n", None, "needs a GPU")]
    assert [c[1] for c in one_liners(md)] == ["print(3)"]
