#!/usr/bin/env python3
"""Docs as tests, the shell side: the numprobe commands of a doc's shell blocks run as written.

    numprobe_blocks.py --numprobe PATH --repo DIR DOC.md   # run DOC's blocks (a ctest per doc)
    numprobe_blocks.py --self-test --numprobe PATH         # the runner itself, on made-up docs
    numprobe_blocks.py --others-skipped --repo DIR DOC.md...   # every other doc: blocks all skipped

What runs (python/tests/test_docs.py does the same for the Python blocks):
- Every fenced ```sh or ```console block of DOC that holds a numprobe command. In a ```sh block
  each line whose command is `numprobe` or a path ending in `/numprobe` (build/tools/numprobe)
  runs, its `\\` continuation lines joined; other lines (cmake, python3, plot scripts) are not
  run here. In a ```console block a line `$ CMD` is a command and the lines up to the next `$ `
  line are what it prints on stdout, compared exactly (trailing spaces aside); a line `...`
  stands for any number of lines.
- Each command must exit with status 0, or N where `<!-- docs-test: exit N -->` precedes the
  block.
- `<!-- docs-test: skip REASON -->` before a block skips it: GPU-only, cluster or hours-long
  blocks, the reason stated there, next to the block (and printed here).
- `<!-- docs-test: shorten OLD => NEW -->` before a block: a long block (a study of minutes)
  runs here with OLD replaced by NEW in each command (fewer trials), every other word as the
  doc spells it; one marker per replacement.
- The markers are the comment lines right above the block (blank lines between allowed).
- A block runs in a fresh temporary folder holding links to the repository's corpora/ and docs/
  and build/tools/numprobe, with the numprobe under test first on PATH; each command runs in
  bash (`set -o pipefail`), so globs and redirections work as in a user's shell. Its outputs
  stay in that folder.

A doc with no numprobe command fails, and so does one whose blocks are all skipped: a test that
runs nothing must not pass. Such docs (GPU-only blocks) are not given a test of their own:
`--others-skipped` checks that every doc of README.md and docs/*.md not named (not run by a ctest)
has only skipped numprobe blocks, so a new block of a doc that is not run is noticed.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^```(\w*)\s*$")
MARKER = re.compile(r"^<!--\s*docs-test:\s*(\w+)\s*(.*?)\s*-->\s*$")
NUMPROBE = re.compile(r"^(?:\S*/)?numprobe(?:\s|$)")
KNOWN_MARKERS = {"skip", "exit", "shorten"}


class DocError(Exception):
    """A doc whose blocks or markers cannot be read as this runner reads them."""


def fenced_blocks(lines: list) -> list:
    """(language, line number of the first body line, body lines, markers) of each block."""
    out, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and lines[j].strip() != "```":
            j += 1
        out.append((m.group(1), i + 2, lines[i + 1:j], markers_above(lines, i)))
        i = j + 1
    return out


def markers_above(lines: list, fence: int) -> list:
    """The (name, argument) markers on the comment lines right above line `fence`."""
    found, p = [], fence - 1
    while p >= 0 and (not lines[p].strip() or MARKER.match(lines[p])):
        m = MARKER.match(lines[p])
        if m:
            if m.group(1) not in KNOWN_MARKERS:
                raise DocError(f"line {p + 1}: unknown marker docs-test: {m.group(1)}")
            check_marker(m.group(1), m.group(2), p + 1)
            found.append((m.group(1), m.group(2)))
        p -= 1
    return found[::-1]


def check_marker(name: str, arg: str, line: int) -> None:
    if name == "skip" and not arg:
        raise DocError(f"line {line}: docs-test: skip needs a reason")
    if name == "exit" and not arg.isdigit():
        raise DocError(f"line {line}: docs-test: exit needs a status, got '{arg}'")
    if name == "shorten" and (" => " not in arg or arg.startswith("=>")):
        raise DocError(f"line {line}: docs-test: shorten needs OLD => NEW, got '{arg}'")


def sh_commands(body: list, first: int) -> list:
    """(line, command, expected stdout or None) of the numprobe lines of a sh block."""
    out, k = [], 0
    while k < len(body):
        line, start = body[k], k
        while line.endswith("\\") and k + 1 < len(body):
            k += 1
            line = line[:-1] + " " + body[k].strip()
        if NUMPROBE.match(line.strip()):
            out.append((first + start, line.strip(), None))
        k += 1
    return out


def console_commands(body: list, first: int) -> list:
    """(line, command, expected stdout lines) of the `$ ` lines of a console block."""
    out = []
    for k, line in enumerate(body):
        if line.startswith("$ "):
            out.append([first + k, line[2:].strip(), []])
        elif out:
            out[-1][2].append(line)
        else:
            raise DocError(f"line {first + k}: console block output before any '$ ' command")
    return [tuple(c) for c in out]


def block_commands(lang: str, body: list, first: int) -> list:
    if lang == "console":
        return [c for c in console_commands(body, first) if NUMPROBE.match(c[1])]
    if lang in ("sh", "bash"):
        return sh_commands(body, first)
    return []


def output_matches(expected: list, actual: list) -> bool:
    """Whether the actual lines match the expected ones, where a line '...' matches any run."""
    exp = [e.rstrip() for e in expected]
    act = [a.rstrip() for a in actual]
    while exp and not exp[-1]:
        exp.pop()
    while act and not act[-1]:
        act.pop()
    if not exp:
        return not act
    if exp[0] == "...":
        return any(output_matches(exp[1:], act[i:]) for i in range(len(act) + 1))
    return bool(act) and exp[0] == act[0] and output_matches(exp[1:], act[1:])


def block_folder(repo: pathlib.Path, numprobe: pathlib.Path) -> pathlib.Path:
    """A fresh folder as a user's clone looks after the build: corpora/, docs/, build/tools/numprobe."""
    folder = pathlib.Path(tempfile.mkdtemp(prefix="tcnum_docs_"))
    for name in ("corpora", "docs"):
        if (repo / name).exists():
            (folder / name).symlink_to(repo / name)
    (folder / "build" / "tools").mkdir(parents=True)
    (folder / "build" / "tools" / "numprobe").symlink_to(numprobe)
    return folder


def run_command(cmd: str, folder: pathlib.Path, timeout: int) -> subprocess.CompletedProcess:
    env = dict(os.environ, PATH=f"{folder / 'build' / 'tools'}{os.pathsep}{os.environ.get('PATH', '')}")
    return subprocess.run(["bash", "-c", "set -o pipefail; " + cmd], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=timeout)


def shortened(cmd: str, markers: list) -> str:
    """The command with each `shorten OLD => NEW` marker's replacement made."""
    for name, arg in markers:
        if name == "shorten":
            old, _, new = arg.partition(" => ")
            cmd = cmd.replace(old, new)
    return cmd


def check_block(doc: str, block: tuple, repo: pathlib.Path, numprobe: pathlib.Path, timeout: int) -> list:
    """Runs one block's commands; the failures, each a message naming the doc's line."""
    lang, first, body, markers = block
    status = int(next((arg for name, arg in markers if name == "exit"), "0"))
    folder, failures = block_folder(repo, numprobe), []
    try:
        for line, cmd, expected in block_commands(lang, body, first):
            cmd = shortened(cmd, markers)
            try:
                r = run_command(cmd, folder, timeout)
            except subprocess.TimeoutExpired:
                failures.append(f"{doc}:{line}: `{cmd}` ran longer than {timeout} s")
                continue
            print(f"{doc}:{line}: exit {r.returncode}: {cmd}")
            if r.returncode != status:
                failures.append(f"{doc}:{line}: `{cmd}` exited {r.returncode}, not {status}:\n{r.stderr[-2000:]}")
            elif expected is not None and not output_matches(expected, r.stdout.splitlines()):
                failures.append(f"{doc}:{line}: `{cmd}` printed\n{r.stdout}\nbut the doc shows\n" + "\n".join(expected))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return failures


def run_doc(path: pathlib.Path, repo: pathlib.Path, numprobe: pathlib.Path, timeout: int) -> int:
    doc = str(path.relative_to(repo)) if path.is_relative_to(repo) else str(path)
    try:
        blocks = [b for b in fenced_blocks(path.read_text().splitlines()) if block_commands(b[0], b[2], b[1])]
    except DocError as e:
        print(f"{doc}: {e}", file=sys.stderr)
        return 2
    if not blocks:
        print(f"{doc}: no numprobe command in a sh or console block: nothing to test", file=sys.stderr)
        return 1
    failures, ran = [], 0
    for block in blocks:
        reason = next((arg for name, arg in block[3] if name == "skip"), None)
        if reason:
            print(f"{doc}:{block[1]}: skipped: {reason}")
            continue
        failures += check_block(doc, block, repo, numprobe, timeout)
        ran += 1
    for f in failures:
        print(f"FAILED {f}", file=sys.stderr)
    if not ran:
        print(f"{doc}: every numprobe block is skipped: nothing to test", file=sys.stderr)
        return 1
    return 1 if failures else 0


def others_skipped(repo: pathlib.Path, listed: list) -> int:
    """1 when a doc of README.md and docs/*.md that no ctest runs has a numprobe block not skipped."""
    docs = [repo / "README.md"] + sorted((repo / "docs").glob("*.md"))
    missing = [d for d in listed if not (repo / d).is_file()]
    unrun = []
    for path in docs:
        doc = str(path.relative_to(repo))
        if doc in listed:
            continue
        try:
            blocks = fenced_blocks(path.read_text().splitlines())
        except DocError as e:
            unrun.append(f"{doc}: {e}")
            continue
        for lang, first, body, markers in blocks:
            if block_commands(lang, body, first) and not any(name == "skip" for name, _ in markers):
                unrun.append(f"{doc}:{first}: a numprobe block that no ctest runs and no skip marker explains")
            elif block_commands(lang, body, first):
                print(f"{doc}:{first}: skipped: {next(arg for name, arg in markers if name == 'skip')}")
    for m in missing:
        print(f"FAILED {m}: named but not found", file=sys.stderr)
    for u in unrun:
        print(f"FAILED {u} (add the doc to TCNUM_DOCS_WITH_NUMPROBE in tests/CMakeLists.txt, or mark the block)",
              file=sys.stderr)
    return 1 if missing or unrun else 0


def self_test(numprobe: pathlib.Path) -> int:
    """The runner on made-up docs: what must pass passes, what must fail fails."""
    cases = {
        "pass": ("```sh\nnumprobe list --arch sm_90 | sed -n 1p   # a comment\n```\n", 0),
        "continued line": ("```sh\nbuild/tools/numprobe list \\\n    --arch sm_80 > x.txt\n```\n", 0),
        "output shown": ("```console\n$ numprobe list --arch sm_90 | sed -n 1p\nsm_90:\n```\n", None),
        "wrong output": ("```console\n$ numprobe list --arch sm_90 | sed -n 1p\nsm_80:\n```\n", 1),
        "elided output": ("```console\n$ numprobe list --arch sm_90\n...\n```\n", 0),
        "bad option": ("```sh\nnumprobe list --no-such-option\n```\n", 1),
        "exit marker": ("<!-- docs-test: exit 2 -->\n```sh\nnumprobe list --no-such-option\n```\n", 0),
        "skip only": ("<!-- docs-test: skip needs a GPU -->\n```sh\nnumprobe record --out x\n```\n", 1),
        "skip without reason": ("<!-- docs-test: skip -->\n```sh\nnumprobe list\n```\n", 2),
        "no command": ("```sh\necho numprobe\n```\n", 1),
        "shortened": ("<!-- docs-test: shorten --no-such-option => --arch sm_80 -->\n"
                      "```sh\nnumprobe list --no-such-option\n```\n", 0),
        "shorten without =>": ("<!-- docs-test: shorten --arch -->\n```sh\nnumprobe list --arch sm_80\n```\n", 2),
    }
    work = pathlib.Path(tempfile.mkdtemp(prefix="tcnum_docs_self_"))
    (work / "docs").mkdir()
    first_line = run_command(f"{numprobe} list --arch sm_90 | sed -n 1p", work, 60).stdout
    wrong = []
    try:
        for name, (text, want) in cases.items():
            if want is None:  # the shown output is numprobe's real first line
                text, want = text.replace("sm_90:\n", first_line), 0
            doc = work / "docs" / "x.md"
            doc.write_text(text)
            said = io.StringIO()
            with contextlib.redirect_stdout(said), contextlib.redirect_stderr(said):
                got = run_doc(doc, work, numprobe, 60)
            if got != want:
                wrong.append(f"{name}: exit {got}, expected {want}; it said:\n{said.getvalue()}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for w in wrong:
        print(f"SELF-TEST FAILED {w}", file=sys.stderr)
    return 1 if wrong else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--numprobe", type=pathlib.Path)
    ap.add_argument("--repo", type=pathlib.Path, default=pathlib.Path(__file__).resolve().parents[2])
    ap.add_argument("--timeout", type=int, default=120, help="seconds per command")
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("--others-skipped", action="store_true")
    ap.add_argument("docs", nargs="*")
    args = ap.parse_args()
    if args.others_skipped:
        return others_skipped(args.repo.resolve(), args.docs)
    if not args.numprobe:
        ap.error("give --numprobe PATH")
    numprobe = args.numprobe.resolve()
    if args.self_test:
        return self_test(numprobe)
    if len(args.docs) != 1:
        ap.error("give one DOC.md (or --self-test)")
    return run_doc((args.repo / args.docs[0]).resolve(), args.repo.resolve(), numprobe, args.timeout)


if __name__ == "__main__":
    sys.exit(main())
