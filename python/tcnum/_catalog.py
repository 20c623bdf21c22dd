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
    a, b, c, d: the operands' formats; D = C + A·B with A m×k, B k×n; block-scaled instructions
    also scale_block and scale_type (their scales: tcnum.gemm's scale_a, scale_b)."""

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
    scale_block: int = 0  # block-scaled: K elements per scale (scale_A[i][k // scale_block]); 0 = none
    scale_type: str = ""  # "ue8m0" or "ue4m3" where block-scaled
    sparse: bool = False  # mma.sp / wgmma.mma_async.sp: A 2:4 sparse (tf32 1:2), K logical

    def __str__(self) -> str:
        return self.name


def arch_number(arch) -> int:
    """90 from "sm_90", "sm_90a" or 90; 942 from "gfx942" or 942 (AMD: "gfx90a" is 910);
    ValueError listing the known architectures."""
    if isinstance(arch, bool) or not isinstance(arch, (str, int)):
        raise TypeError(f"arch is a name such as 'sm_90', got {type(arch).__name__}")
    if isinstance(arch, int):
        arch = _tcnum.arch_name(arch)
    return _tcnum.parse_arch(arch)


@functools.lru_cache(maxsize=None)
def _instructions(sm: int) -> tuple:
    return tuple(Instruction(**d) for d in _tcnum.instructions(sm))


def instructions(arch="sm_90") -> list:
    """Every instruction tcnum models on an architecture, as Instruction records."""
    return list(_instructions(arch_number(arch)))


def sparse_instructions(arch="sm_90") -> list:
    """The sparse forms of an architecture (mma.sp::ordered_metadata on sm_80+, fp8 on sm_89+,
    wgmma.mma_async.sp on sm_90a), as Instruction records; tcnum.instructions lists the dense ones."""
    sm = arch_number(arch)
    return [instruction(name, sm) for name in _tcnum.sparse_instructions(sm)]


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


def default_instruction(a: str, b: str, d: str, arch="sm_90", c: str | None = None) -> Instruction:
    """The instruction tcnum takes for these formats on arch when none is named: the C++
    tcnum::default_instruction (one rule for the library, numprobe and Python): the
    architecture's own family (wgmma on sm_90, tcgen05 on sm_100, mfma on AMD's gfx targets, mma
    elsewhere), the largest K,
    the smallest M and N. Numerics do not depend on M or N: every output element is one dot
    product of K. c: C's format when it must be a given one. ValueError saying why when there
    is none, or when the only one is block-scaled (its scales cannot be passed from Python)."""
    return _default(a, b, d, arch_number(arch), c)


@functools.lru_cache(maxsize=None)
def _default(a: str, b: str, d: str, arch: int, c: str | None) -> Instruction:
    ins = Instruction(**_tcnum.default_instruction(a, b, d, c, arch))
    if "block_scale" in ins.name:
        raise ValueError(f"{ins.name}: on {_tcnum.arch_name(arch)} only block-scaled instructions take A {a}, B {b} with D {d}; "
                         "give the instruction (instr=) and its scales (tcnum.gemm's scale_a, scale_b)")
    return ins


# The name of earlier releases.
natural_instruction = default_instruction
