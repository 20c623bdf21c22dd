"""Reveal: find the plan (instruction + schedule) a GEMM black box follows.

Two sources of evidence, one search:
  * reveal_recorded(call): a recorded library call (its inputs rebuilt from the seed, its
    output bits as recorded) — what a GPU host's capture gives;
  * reveal(black_box, ...): any callable computing D = A·B (a torch, Triton or JAX function on
    the GPU host, or on the CPU a tcnum.gemm that hides a schedule): it is run on inputs of both
    distributions ("normal" and "wide": the wide one exposes alignment) and every candidate is
    checked against every output.

Candidates come from plans.candidates (the kernel names' rule first, then plans that differ from
it in fewer choices), or, for a black box with no kernel names, from every instruction that
takes its operand types with every k-tile, partial-tile place and split count. A plan is
accepted only when it reproduces every compared output bit; when none does, the result says so
(and how close the best came), never a guess.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from .._catalog import instructions
from .._schedule import Schedule
from . import inputs
from .plans import Unexplained, candidates
from .replay import Operands, Plan, _output_bits, reproduce


@dataclass(frozen=True)
class Revealed:
    """The plan found (None: nothing in the language fits), how many candidates were tried,
    and the best candidate's share of matching output elements."""

    plan: Plan | None
    tried: int
    best_matched: int
    total: int
    reason: str = ""


def reveal_recorded(call: dict, budget: int = 2000) -> Revealed:
    """The first candidate plan that reproduces every recorded output of the call."""
    try:
        cands = candidates(call)
        ops = [Operands(call, i) for i in range(call["batch"])]
    except Unexplained as e:
        return Revealed(None, 0, 0, 0, str(e))
    best, total = 0, 0
    for tried, plan in enumerate(itertools.islice(cands, budget), 1):
        outcome = reproduce(call, plan, ops)
        total = outcome.total
        if outcome.ok:
            return Revealed(Plan(plan.instruction, plan.schedule, "rule" if tried == 1 else "revealed"), tried,
                            outcome.matched, outcome.total)
        best = max(best, outcome.matched)
    return Revealed(None, min(budget, tried if total else 0), best, total,
                    f"no candidate of {budget} reproduces every output (best {best} of {total})")


def generic_candidates(a: str, b: str, k: int, max_split: int = 16, arch: str = "sm_90"):
    """Plans for a black box with no kernel names: every f32-accumulating instruction of `arch`
    for the operand types, k-tiles 1-8 steps, the partial tile first or last, split counts
    1..max_split on whole tiles; tf32 operands truncated or rounded (ties to even or away)."""
    t = "tf32" if a == "f32" else a
    tb = "tf32" if b == "f32" else b
    names = sorted({i.name.replace("{N}", "8") for i in instructions(arch)
                    if i.a == t and i.b == tb and i.d == "f32" and i.c == "f32" and not i.name.startswith("tcgen05")})
    for split in range(1, max_split + 1):
        for name, steps, partial in itertools.product(names, (1, 2, 4, 8), ("last", "first")):
            ik = int(name.split(".")[1].rsplit("k", 1)[1])
            if split > 1 and split > -(-k // (steps * ik)):
                continue
            for mode in (("truncate", "nearest_even", "nearest_away") if t == "tf32" else ("truncate",)):
                kw = dict(tile_k=steps * ik, partial_tile=partial, tf32_operands=mode)
                if split > 1:
                    kw.update(split_k=split, slice_rule="whole_tiles")
                yield Plan(name, Schedule(**kw), "revealed")


def reveal(black_box, a: str, b: str, m: int, n: int, k: int, *, out: str = "f32", seeds=(1, 2), budget: int = 5000,
           plans=None) -> Revealed:
    """The plan of black_box(A, B) -> D (M×N, numpy-convertible, of type `out`), found by
    running it on generated inputs (seeds × normal/wide) and searching candidate plans on the
    CPU. `plans`: candidates to try (default: generic_candidates for the types and K)."""
    trials = []
    for seed, dist in itertools.product(seeds, ("normal", "wide")):
        E = inputs.WIDE_E[a] if dist == "wide" else 0
        A = inputs.to_dtype(inputs.values(seed, 1, m, k, dist, E), a)
        B = inputs.to_dtype(inputs.values(seed, 2, k, n, dist, E), b)
        D = np.asarray(black_box(A, B))
        trials.append((A, B, _raw_bits(D, out)))
    best, total = 0, m * n * len(trials)
    pool = plans if plans is not None else generic_candidates(a, b, k)
    for tried, plan in enumerate(itertools.islice(pool, budget), 1):
        matched = sum(int(np.count_nonzero(_plan_bits(plan, A, B, out) == want)) for A, B, want in trials)
        if matched == total:
            return Revealed(Plan(plan.instruction, plan.schedule, "rule" if tried == 1 and plans is not None else "revealed"),
                            tried, matched, total)
        best = max(best, matched)
    return Revealed(None, budget, best, total, f"no candidate of {budget} reproduces every output (best {best} of {total})")


def _raw_bits(d: np.ndarray, out: str) -> np.ndarray:
    """The black box's D as raw bits of its own storage (float32, bf16/f16: 4 and 2 bytes)."""
    d = np.asarray(d)
    views = {4: np.uint32, 2: np.uint16, 1: np.uint8}
    if d.dtype.itemsize not in views:
        raise TypeError(f"the black box returned {d.dtype}; reveal compares {out} bits (float32, bf16, f16 arrays)")
    return d.view(views[d.dtype.itemsize]).ravel().astype(np.uint64)


def _plan_bits(plan: Plan, A, B, out: str) -> np.ndarray:
    from .._ops import gemm  # noqa: PLC0415

    return _output_bits(np.asarray(gemm(A, B, instr=plan.instruction, schedule=plan.schedule, threads=1)), out)
