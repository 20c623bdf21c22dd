"""Replaying library calls on the CPU: rebuild a call's inputs from its seed, run tcnum.gemm
with a plan (instruction + schedule), apply the call's epilogue, compare the recorded bits.

    header, calls = read_library_corpus(path)
    outcome = reproduce(calls[0], plan_for(calls[0]))      # -> Outcome(matched, differing, total)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._ops import gemm
from .._schedule import Schedule
from . import inputs

_BITS = {"f32": np.uint32, "bf16": np.uint16, "f16": np.uint16}


@dataclass(frozen=True)
class Plan:
    """How tcnum reproduces a call: the instruction and the schedule (plus where it came from)."""

    instruction: str
    schedule: Schedule
    source: str = "rule"


@dataclass(frozen=True)
class Outcome:
    matched: int
    total: int

    @property
    def ok(self) -> bool:
        return self.matched == self.total


class Operands:
    """The sampled rows of A, columns of B and bias of one batch item, rebuilt exactly."""

    def __init__(self, call: dict, item: int = 0):
        spec = call["inputs"]
        seed, dist, E = spec["seed"] + item, spec["dist"], spec.get("E", 0)
        m, n, k = call["m"], call["n"], call["k"]
        self.a = inputs.to_dtype(inputs.values(seed, 1, m, k, dist, E, row_idx=call["rows"]), call["a"])
        self.b = inputs.to_dtype(inputs.values(seed, 2, k, n, dist, E, col_idx=call["cols"]), call["b"])
        self.bias = None
        if call.get("bias"):
            bias = inputs.values(seed, 3, 1, n, dist, E, col_idx=call["cols"])
            self.bias = inputs.to_dtype(bias, call["a"]).astype(np.float32)


def _expected(call: dict) -> list[np.ndarray]:
    items = call["out_bits"] if call["batch"] > 1 else [call["out_bits"]]
    return [np.array([int(h, 16) for h in it], dtype=np.uint64) for it in items]


def _output_bits(acc: np.ndarray, out: str) -> np.ndarray:
    """The output conversion: D (fp32) rounded to nearest even into the output type."""
    x = acc.astype(np.float32)
    if out == "f32":
        return x.view(np.uint32).ravel().astype(np.uint64)
    return inputs.to_dtype(x, out).view(_BITS[out]).ravel().astype(np.uint64)


def _instruction_operand(instr: str, x: np.ndarray, stored: str) -> np.ndarray:
    """x as the instruction takes it: unchanged, or fp8 taken exactly to the instruction's f16 or
    bf16 (Triton's MMAv2 path upcasts fp8 operands before mma.sync: docs/libraries.md)."""
    a_type = instr.split(".")[-3] if instr.startswith("mma.") else instr.split(".")[-2]
    if stored not in ("e4m3", "e5m2") or a_type not in ("f16", "bf16"):
        return x
    wide = np.asarray(x, np.float32)
    out = inputs.to_dtype(wide, a_type)
    if not np.array_equal(np.asarray(out, np.float32), wide, equal_nan=True):
        raise ValueError(f"{stored} operands are not exact in {a_type}")
    return out


def run_plan(call: dict, plan: Plan, operands: Operands) -> np.ndarray:
    """The output bits (flat, rows × cols) the plan gives for one batch item. A bias is the
    GEMM's C (every row the bias), entering where the plan's schedule says."""
    c = None
    if operands.bias is not None:
        c = np.ascontiguousarray(np.broadcast_to(operands.bias, (operands.a.shape[0], operands.b.shape[1])))
    schedule = plan.schedule.for_sample(call["rows"], call["cols"])
    a = _instruction_operand(plan.instruction, operands.a, call["a"])
    b = _instruction_operand(plan.instruction, operands.b, call["b"])
    acc = gemm(a, b, c, instr=plan.instruction, schedule=schedule, threads=1)
    return _output_bits(np.asarray(acc), call["out"])


def reproduce(call: dict, plan: Plan, operands: list[Operands] | None = None) -> Outcome:
    """How many recorded output elements the plan reproduces, over every batch item."""
    operands = operands or [Operands(call, i) for i in range(call["batch"])]
    matched = total = 0
    for want, ops in zip(_expected(call), operands):
        got = run_plan(call, plan, ops)
        matched += int(np.count_nonzero(got == want))
        total += want.size
    return Outcome(matched, total)
