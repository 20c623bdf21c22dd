"""Corpus files (docs/corpus-format.md) from Python: replay them, or read their cases."""

from __future__ import annotations

import dataclasses
import glob
import os

import numpy as np

from . import _tcnum
from ._arrays import values_of
from ._catalog import Instruction, instruction, resolve_model


def _value(bits: np.ndarray, instr: Instruction, operand: str) -> np.ndarray:
    return values_of(bits, getattr(instr, operand))


@dataclasses.dataclass
class ReplayFailure:
    """A corpus line the model did not reproduce (device != emulated) or could not read
    (malformed, with the reason). Operands are arrays of their formats' dtypes."""

    file: str
    line: int
    malformed: bool
    reason: str
    arch: str | None = None
    instruction: str | None = None
    a: np.ndarray | None = None
    b: np.ndarray | None = None
    c: np.ndarray | None = None
    device: np.ndarray | None = None
    emulated: np.ndarray | None = None

    def __str__(self) -> str:
        if self.malformed:
            return f"{self.file}:{self.line}: malformed: {self.reason}"
        dev, emu = self.device.reshape(1), self.emulated.reshape(1)
        width = 2 * dev.dtype.itemsize

        def show(v):
            bits = int(v.view(f"u{v.dtype.itemsize}")[0])
            return f"0x{bits:0{width}x} ({float(v[0].astype(np.float64))!r})"

        return (f"{self.file}:{self.line}: mismatch {self.arch} {self.instruction}\n"
                f"  device   {show(dev)}\n  emulator {show(emu)}")


@dataclasses.dataclass
class ReplayResult:
    """passed/failed counts over all files and the first failures (all are counted).
    True when nothing failed."""

    passed: int
    failed: int
    failures: list
    files: list

    def __bool__(self) -> bool:
        return self.failed == 0 and self.passed > 0

    def __str__(self) -> str:
        lines = [str(f) for f in self.failures]
        lines.append(f"{self.passed} passed, {self.failed} failed")
        return "\n".join(lines)


def _expand(paths) -> list:
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    files = []
    for p in paths:
        p = os.fspath(p)
        if glob.has_magic(p):
            hits = sorted(glob.glob(p, recursive=True))
            if not hits:
                raise FileNotFoundError(f"no corpus file matches {p!r}")
            files += hits
        else:
            if not os.path.isfile(p):
                raise FileNotFoundError(f"no such corpus file: {p!r}")
            files.append(p)
    if not files:
        raise ValueError("no corpus files given")
    return files


def replay(paths, *, model=None, max_failures: int = 100) -> ReplayResult:
    """Replays corpus files (a path, a glob such as "corpora/**/*.tcc.gz", or a list) bit
    for bit with the built-in model of each case's arch, or `model` (dict/JSON/path) for all.
    Runs in C++ (numprobe replay's own code), without the GIL."""
    files = _expand(paths)
    compiled = None if model is None else resolve_model(None, model)
    passed, failed, raw = _tcnum.replay(files, compiled, int(max_failures))
    failures = []
    for f in raw:
        failure = ReplayFailure(file=f["file"], line=f["line"], malformed=f["malformed"], reason=f["reason"])
        if "case" in f:
            k = f["case"]
            ins = instruction(k["instruction"], k["arch"])
            failure.arch, failure.instruction = k["arch"], k["instruction"]
            failure.a, failure.b = _value(k["a"], ins, "a"), _value(k["b"], ins, "b")
            failure.c, failure.device = _value(k["c"], ins, "c"), _value(k["d"], ins, "d")
            failure.emulated = _value(f["emulated"], ins, "d")
        failures.append(failure)
    return ReplayResult(passed=passed, failed=failed, failures=failures, files=files)


@dataclasses.dataclass
class CorpusCases:
    """The cases of one (arch, instruction) in a corpus file: a and b (n, K) (a row of A and
    a column of B per case), c and d (n,) (d: what the device wrote), line (n,) numbers.
    Sparse instructions: a (n, K/2) holds the stored elements and meta (n, groups) uint8 the
    metadata values (tcnum.mma_element(..., meta=c.meta)); meta is None otherwise."""

    arch: str
    instruction: str
    a: np.ndarray
    b: np.ndarray
    c: np.ndarray
    d: np.ndarray
    line: np.ndarray
    meta: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.d)


def read_corpus(path) -> list:
    """The cases of a corpus file as arrays, grouped by (arch, instruction) in file order;
    ValueError on a malformed line. Check them with tcnum.mma_element(c.instruction, c.a,
    c.b, c.c, arch=c.arch, meta=c.meta) == c.d."""
    out = []
    for g in _tcnum.read_corpus(os.fspath(path)):
        ins = instruction(g["instruction"], g["arch"])
        out.append(CorpusCases(arch=g["arch"], instruction=g["instruction"], a=_value(g["a"], ins, "a"),
                               b=_value(g["b"], ins, "b"), c=_value(g["c"], ins, "c"), d=_value(g["d"], ins, "d"),
                               line=g["line"], meta=g["meta"].astype(np.uint8) if "meta" in g else None))
    return out
