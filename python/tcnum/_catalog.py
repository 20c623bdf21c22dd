"""Architectures, the instruction catalog, and models (built in or as JSON dicts)."""

from __future__ import annotations

import dataclasses
import functools
import json
import os

from . import _tcnum


@dataclasses.dataclass(frozen=True)
class Instruction:
    """One catalog instruction, by its PTX name (without .sync.aligned and layouts).
    a, b, c, d: the operands' formats; D = C + A·B with A m×k, B k×n."""

    name: str
    family: str  # "mma", "wgmma" or "tcgen05"
    m: int
    n: int
    k: int
    a: str
    b: str
    c: str
    d: str
    min_sm: int
    max_sm: int

    def __str__(self) -> str:
        return self.name


def arch_number(arch) -> int:
    """90 from "sm_90", "sm_90a" or 90; ValueError listing the known architectures."""
    if isinstance(arch, bool) or not isinstance(arch, (str, int)):
        raise TypeError(f"arch is a name such as 'sm_90', got {type(arch).__name__}")
    if isinstance(arch, int):
        arch = f"sm_{arch}"
    return _tcnum.parse_arch(arch)


@functools.lru_cache(maxsize=None)
def _instructions(sm: int) -> tuple:
    return tuple(Instruction(**d) for d in _tcnum.instructions(sm))


def instructions(arch="sm_90") -> list:
    """Every instruction tcnum models on an architecture, as Instruction records."""
    return list(_instructions(arch_number(arch)))


def instruction(name: str, arch="sm_90") -> Instruction:
    """The catalog entry of a PTX name; ValueError listing the valid names on that arch."""
    if isinstance(name, Instruction):
        name = name.name
    if not isinstance(name, str):
        raise TypeError(f"an instruction is a PTX name such as 'mma.m16n8k16.f32.bf16.bf16.f32', "
                        f"got {type(name).__name__}")
    return Instruction(**_tcnum.instruction(name, arch_number(arch)))


@functools.lru_cache(maxsize=None)
def _builtin(sm: int):
    return _tcnum.Model.builtin(sm)


def model(arch="sm_90") -> dict:
    """The built-in model of an architecture as a dict (the JSON of docs/models.md); pass
    it, changed or not, back as model=... to gemm, mma, mma_element and replay."""
    return json.loads(_builtin(arch_number(arch)).to_json())


def resolve_model(arch, model):
    """The compiled model: the built-in one of arch, or model (dict, JSON text or file path)."""
    if model is None:
        return _builtin(arch_number(arch))
    if isinstance(model, dict):
        return _tcnum.Model.from_json(json.dumps(model))
    if isinstance(model, (str, os.PathLike)):
        text = str(model)
        if not text.lstrip().startswith("{"):
            with open(text, encoding="utf-8") as f:
                text = f.read()
        return _tcnum.Model.from_json(text)
    raise TypeError(f"model is a dict (tcnum.model(arch)), JSON text or a file path, got {type(model).__name__}")


_FAMILY_RANK = {"tcgen05": 0, "wgmma": 1, "mma": 2}


def natural_instruction(a: str, b: str, d: str, arch="sm_90", c: str | None = None) -> Instruction:
    return _natural(a, b, d, arch_number(arch), c)


@functools.lru_cache(maxsize=None)
def _natural(a: str, b: str, d: str, arch: int, c: str | None) -> Instruction:
    """The instruction a straightforward kernel uses for these formats on arch: the newest
    family there (tcgen05 on sm_100, wgmma on sm_90, else mma.sync), then the largest k, m
    and n. Numerics do not depend on n (nor on m): every output element is one dot product."""
    # Block-scaled kinds take scale arguments the Python layer does not have: never picked.
    cands = [i for i in instructions(arch) if i.a == a and i.b == b and i.d == d and (c is None or i.c == c)
             and "block_scale" not in i.name]
    if not cands:
        combos = sorted({f"A {i.a}, B {i.b}, D {i.d}" for i in instructions(arch)})
        raise ValueError(f"no instruction on sm_{arch_number(arch)} takes A {a}, B {b} with D {d}"
                         + (f" and C {c}" if c else "") + "; there: " + "; ".join(combos))
    return min(cands, key=lambda i: (_FAMILY_RANK[i.family], -i.k, -i.m, -i.n, i.c != i.d))
