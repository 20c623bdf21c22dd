"""f64 DMMA (mma.m8n8k4.f64 on sm_80+, mma.m16n8k4/k8/k16.f64 on sm_90) as the H100 computes it:
an IEEE binary64 FMA chain in ascending k with the device's NaN rules (docs/models.md §8.6).
Not catalog instructions (tcnum.instructions does not list them): the catalog's raw fields are
32 bits wide."""

from __future__ import annotations

import re

import numpy as np

from . import _tcnum
from ._arrays import to_numpy
from ._catalog import arch_number

# name -> (K, first architecture)
DMMA_INSTRUCTIONS = {
    "mma.m8n8k4.f64.f64.f64.f64": (4, 80),
    "mma.m16n8k4.f64.f64.f64.f64": (4, 90),
    "mma.m16n8k8.f64.f64.f64.f64": (8, 90),
    "mma.m16n8k16.f64.f64.f64.f64": (16, 90),
}


def _name(instr: str) -> str:
    if not isinstance(instr, str):
        raise TypeError(f"instr must be a DMMA instruction name, got {instr!r}")
    return re.sub(r"\.(sync|aligned|row|col)(?=\.)", "", instr)


def dmma_element(instr, a, b, c=None, *, arch="sm_90") -> np.ndarray:
    """Single output elements d = c + Σ_k a_k·b_k of a DMMA instruction: a and b float64 (..., K)
    (a row of A, a column of B), c float64 (...) or None (+0). Returns d (...) float64, bit for
    bit as the H100 computes it: d = c, then d = fma(a_k, b_k, d) for k = 0 … K-1."""
    name = _name(instr)
    if name not in DMMA_INSTRUCTIONS:
        raise ValueError(f"{instr!r} is not a DMMA instruction; valid: {', '.join(DMMA_INSTRUCTIONS)}")
    k, first = DMMA_INSTRUCTIONS[name]
    sm = arch_number(arch)
    if sm < first:
        raise ValueError(f"{name} needs sm_{first} or later, not sm_{sm}")
    arrays = []
    for x, what in ((a, "a"), (b, "b")) + (() if c is None else ((c, "c"),)):
        arr = to_numpy(x, what)
        if arr.dtype != np.float64:
            raise TypeError(f"{what}: DMMA operands are float64, got {arr.dtype}")
        arrays.append(arr)
    a_arr, b_arr = arrays[0], arrays[1]
    batch = a_arr.shape[:-1]
    c_arr = np.zeros(batch, np.float64) if c is None else arrays[2]
    if a_arr.ndim < 1 or a_arr.shape[-1] != k or b_arr.shape != a_arr.shape or c_arr.shape != batch:
        raise ValueError(f"{name} elements take a and b (..., {k}) and c (...) of one batch shape; "
                         f"got a {a_arr.shape}, b {b_arr.shape}, c {c_arr.shape}")
    bits = [np.ascontiguousarray(x).view(np.uint64) for x in (a_arr, b_arr, c_arr)]
    d = _tcnum.dmma_elements(bits[0].reshape(-1, k), bits[1].reshape(-1, k), bits[2].reshape(-1))
    return np.asarray(d, dtype=np.uint64).view(np.float64).reshape(batch)
